#!/usr/bin/python3
"""onyx-cli edit --simplify=duplicates: what is computed twice is computed once (equal
initializers and Constant nodes shared, nodes with the same operator, inputs and
attributes merged), and where it must not be (graph outputs, random numbers,
attributes or inputs that differ, a graph input's default)."""
import os
import unittest

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from simplify_test import SimplifyCase, constant, float_input, make_model


def node_names(model):
    return [n.name for n in model.graph.node]


def node_named(model, name):
    return [n for n in model.graph.node if n.name == name][0]


def initializer(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def external(name, dims, location, offset, length):
    """A float tensor whose bytes are in `location` beside the model."""
    tensor = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=dims)
    tensor.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", str(offset)), ("length", str(length))):
        entry = tensor.external_data.add()
        entry.key, entry.value = key, value
    return tensor


class Duplicates(SimplifyCase):
    def merged(self, model, removed, initializers_removed=0):
        """The model simplified by duplicates alone, after checking its counts."""
        simplified, report = self.simplify(model, "--simplify=duplicates")
        duplicates = self.pass_of(report, "duplicates")
        self.assertEqual(duplicates["nodes_removed"], removed)
        self.assertEqual(duplicates["initializers_removed"], initializers_removed)
        self.assertEqual([o.name for o in simplified.graph.output], [o.name for o in model.graph.output])
        return simplified, report

    def test_shape_chains_of_one_tensor_merge_in_both_unsqueeze_forms(self):
        """TorchScript's Shape → Gather → Unsqueeze, once per use of a size: axes as an
        attribute before opset 13, as an input (two equal initializers) from 13."""
        for opset in (11, 13):
            with self.subTest(opset=opset):
                def unsqueeze(suffix):
                    if opset < 13:
                        return helper.make_node("Unsqueeze", ["d" + suffix], ["u" + suffix], name="unsq" + suffix,
                                                axes=[0])
                    return helper.make_node("Unsqueeze", ["d" + suffix, "axes" + suffix], ["u" + suffix],
                                            name="unsq" + suffix)
                inits = [initializer("zero_a", np.int64(0)), initializer("zero_b", np.int64(0)),
                         initializer("four", np.array([4], np.int64)), initializer("two", np.array([2], np.int64))]
                if opset >= 13:
                    inits += [initializer("axes_a", np.array([0], np.int64)),
                              initializer("axes_b", np.array([0], np.int64))]
                model = make_model([helper.make_node("Shape", ["x"], ["s_a"], name="shape_a"),
                                    helper.make_node("Gather", ["s_a", "zero_a"], ["d_a"], name="gather_a"),
                                    unsqueeze("_a"),
                                    helper.make_node("Concat", ["u_a", "four"], ["shape_y"], name="cat_y", axis=0),
                                    helper.make_node("Reshape", ["x", "shape_y"], ["y"], name="reshape_y"),
                                    helper.make_node("Shape", ["x"], ["s_b"], name="shape_b"),
                                    helper.make_node("Gather", ["s_b", "zero_b"], ["d_b"], name="gather_b"),
                                    unsqueeze("_b"),
                                    # Two readers of the last duplicate: both move.
                                    helper.make_node("Concat", ["u_b", "two", "two"], ["shape_z"], name="cat_z",
                                                     axis=0),
                                    helper.make_node("Reshape", ["x", "shape_z"], ["z"], name="reshape_z"),
                                    helper.make_node("Cast", ["u_b"], ["n"], name="count", to=TensorProto.FLOAT)],
                                   [float_input("x", ["N", 4])],
                                   [float_input("y", ["N", 4]), float_input("z", ["N", 2, 2]),
                                    float_input("n", [1])], inits, opset=opset)
                simplified, report = self.merged(model, 3, 2 if opset >= 13 else 1)
                self.assertEqual(node_names(simplified),
                                 ["shape_a", "gather_a", "unsq_a", "cat_y", "reshape_y", "cat_z", "reshape_z", "count"])
                self.assertEqual(list(node_named(simplified, "cat_z").input), ["u_a", "two", "two"])
                self.assertEqual(list(node_named(simplified, "count").input), ["u_a"])
                self.assertEqual(sorted(t.name for t in simplified.graph.initializer),
                                 sorted(["zero_a", "four", "two"] + (["axes_a"] if opset >= 13 else [])))
                self.assertEqual(report["verdict"], "proven")
                self.assert_runs_equal(model, simplified, {"x": np.arange(12, dtype=np.float32).reshape(3, 4)})

    def test_attributes_in_any_order_but_inputs_in_order(self):
        weight = initializer("w", np.arange(9, dtype=np.float32).reshape(3, 3))
        gemm_2 = helper.make_node("Gemm", ["a", "w"], ["g2"], name="gemm_2", alpha=2.0, beta=1.0)
        attributes = list(gemm_2.attribute)
        del gemm_2.attribute[:]
        gemm_2.attribute.extend(reversed(attributes))
        model = make_model([helper.make_node("Gemm", ["a", "w"], ["g1"], name="gemm_1", alpha=2.0, beta=1.0),
                            gemm_2,
                            helper.make_node("Gemm", ["a", "w"], ["g3"], name="gemm_3", alpha=2.0, transB=1),
                            helper.make_node("Sub", ["a", "b"], ["d1"], name="sub_1"),
                            helper.make_node("Sub", ["b", "a"], ["d2"], name="sub_2"),
                            helper.make_node("Sum", ["g1", "g2", "g3", "d1", "d2"], ["y"], name="sum")],
                           [float_input("a", [2, 3]), float_input("b", [2, 3])], [float_input("y", [2, 3])],
                           [weight])
        simplified, report = self.merged(model, 1)
        self.assertEqual(node_names(simplified), ["gemm_1", "gemm_3", "sub_1", "sub_2", "sum"])
        self.assertEqual(list(node_named(simplified, "sum").input), ["g1", "g1", "g3", "d1", "d2"])
        self.assertEqual(report["verdict"], "proven")
        feeds = {"a": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.ones((2, 3), np.float32)}
        self.assert_runs_equal(model, simplified, feeds)

    def test_trailing_omitted_inputs_are_absent_and_split_parts_count(self):
        """Clip(x, lo) is Clip(x, lo, ""), not Clip(x, "", lo); a Split into 2 is not one into 3."""
        model = make_model([helper.make_node("Clip", ["x", "lo"], ["c1"], name="clip_1"),
                            helper.make_node("Clip", ["x", "lo", ""], ["c2"], name="clip_2"),
                            helper.make_node("Clip", ["x", "", "lo"], ["c3"], name="clip_3"),
                            helper.make_node("Split", ["x"], ["p1", "p2"], name="halves_1", axis=0),
                            helper.make_node("Split", ["x"], ["q1", "q2"], name="halves_2", axis=0),
                            helper.make_node("Split", ["x"], ["t1", "t2", "t3"], name="thirds", axis=0),
                            helper.make_node("Concat", ["c1", "c2", "c3", "q2", "q1", "p1", "t3"], ["y"], name="cat",
                                             axis=0)],
                           [float_input("x", [6])], [float_input("y", [29])], [initializer("lo", np.float32(1.5))])
        simplified, report = self.merged(model, 2)
        self.assertEqual(node_names(simplified), ["clip_1", "clip_3", "halves_1", "thirds", "cat"])
        self.assertEqual(list(node_named(simplified, "cat").input), ["c1", "c1", "c3", "p2", "p1", "p1", "t3"])
        self.assertEqual(report["verdict"], "proven")
        self.assert_runs_equal(model, simplified, {"x": np.arange(6, dtype=np.float32)})

    def test_graph_output_keeps_its_node_but_not_its_readers(self):
        """The later duplicate makes a graph output: it stays, its other reader reads the
        earlier one, which makes that reader a duplicate in turn."""
        model = make_model([helper.make_node("Relu", ["x"], ["r_a"], name="relu_a"),
                            helper.make_node("Relu", ["x"], ["r_b"], name="relu_b"),
                            helper.make_node("Neg", ["r_a"], ["n_a"], name="neg_a"),
                            helper.make_node("Neg", ["r_b"], ["n_b"], name="neg_b"),
                            helper.make_node("Add", ["n_a", "n_b"], ["y"], name="add")],
                           [float_input("x", [3])], [float_input("r_b", [3]), float_input("y", [3])])
        simplified, report = self.merged(model, 1)
        self.assertEqual(node_names(simplified), ["relu_a", "relu_b", "neg_a", "add"])
        self.assertEqual(list(node_named(simplified, "relu_b").output), ["r_b"])
        self.assertEqual(list(node_named(simplified, "add").input), ["n_a", "n_a"])
        self.assertEqual(report["verdict"], "proven")
        self.assert_runs_equal(model, simplified, {"x": np.array([-1.0, 0.5, 2.0], np.float32)})

    def test_two_graph_outputs_computed_alike_both_stay(self):
        model = make_model([helper.make_node("Relu", ["x"], ["r_a"], name="relu_a"),
                            helper.make_node("Relu", ["x"], ["r_b"], name="relu_b"),
                            helper.make_node("Abs", ["x"], ["m_a"], name="abs_a"),
                            helper.make_node("Abs", ["x"], ["m_b"], name="abs_b"),
                            helper.make_node("Add", ["m_a", "m_b"], ["y"], name="add")],
                           [float_input("x", [3])], [float_input("r_a", [3]), float_input("r_b", [3]),
                                                     float_input("y", [3])])
        simplified, _ = self.merged(model, 1)
        self.assertEqual(node_names(simplified), ["relu_a", "relu_b", "abs_a", "add"])
        self.assert_runs_equal(model, simplified, {"x": np.array([-1.0, 0.5, 2.0], np.float32)})

    def test_random_numbers_and_training_dropout_are_never_merged(self):
        """Dropout trains with a training_mode input not known false (opset 12 on); the
        ratio 0 keeps the outputs comparable."""
        model = make_model([helper.make_node("Dropout", ["x", "ratio", "training"], ["t1"], name="train_1"),
                            helper.make_node("Dropout", ["x", "ratio", "training"], ["t2"], name="train_2"),
                            helper.make_node("Dropout", ["x", "ratio", "inference"], ["i1"], name="infer_1"),
                            helper.make_node("Dropout", ["x", "ratio", "inference"], ["i2"], name="infer_2"),
                            helper.make_node("Dropout", ["x"], ["o1"], name="plain_1"),
                            helper.make_node("Dropout", ["x"], ["o2"], name="plain_2"),
                            helper.make_node("Sum", ["t1", "t2", "i1", "i2", "o1", "o2"], ["y"], name="sum")],
                           [float_input("x", [4])], [float_input("y", [4])],
                           [initializer("ratio", np.float32(0.0)), initializer("training", np.bool_(True)),
                            initializer("inference", np.bool_(False))])
        simplified, report = self.merged(model, 2)
        self.assertEqual(node_names(simplified), ["train_1", "train_2", "infer_1", "plain_1", "sum"])
        self.assertEqual(report["verdict"], "proven")
        self.assert_runs_equal(model, simplified, {"x": np.arange(4, dtype=np.float32)})

        random = make_model([helper.make_node("RandomNormalLike", ["x"], ["n1"], name="noise_1", seed=1.0),
                             helper.make_node("RandomNormalLike", ["x"], ["n2"], name="noise_2", seed=1.0),
                             helper.make_node("Abs", ["x"], ["a1"], name="abs_1"),
                             helper.make_node("Abs", ["x"], ["a2"], name="abs_2"),
                             helper.make_node("Sum", ["n1", "n2", "a1", "a2"], ["y"], name="sum")],
                            [float_input("x", [4])], [float_input("y", [4])])
        simplified, report = self.merged(random, 1)
        self.assertEqual(node_names(simplified), ["noise_1", "noise_2", "abs_1", "sum"])
        self.assertEqual(report["verdict"], "not-proven")

    def test_dropout_before_opset_7_trains_unless_is_test(self):
        model = make_model([helper.make_node("Dropout", ["x"], ["t1"], name="train_1"),
                            helper.make_node("Dropout", ["x"], ["t2"], name="train_2"),
                            helper.make_node("Dropout", ["x"], ["i1"], name="test_1", is_test=1),
                            helper.make_node("Dropout", ["x"], ["i2"], name="test_2", is_test=1),
                            helper.make_node("Sum", ["t1", "t2", "i1", "i2"], ["y"], name="sum")],
                           [float_input("x", [4])], [float_input("y", [4])], opset=6)
        simplified, _ = self.merged(model, 1)
        self.assertEqual(node_names(simplified), ["train_1", "train_2", "test_1", "sum"])

    def test_equal_initializers_and_constants_are_shared(self):
        values = np.arange(6, dtype=np.float32).reshape(2, 3)
        model = make_model([helper.make_node("Add", ["x", "w1"], ["a"], name="add"),
                            helper.make_node("Sub", ["x", "w2"], ["b"], name="sub"),
                            helper.make_node("Mul", ["x", "w_default"], ["c"], name="mul"),
                            constant("w_constant", values),
                            helper.make_node("Div", ["x", "w_constant"], ["d"], name="div"),
                            helper.make_node("MatMul", ["x", "w_transposed"], ["e"], name="matmul"),
                            helper.make_node("Cast", ["w_ints"], ["f"], name="cast", to=TensorProto.FLOAT),
                            helper.make_node("Sum", ["a", "b", "c", "d", "f"], ["y"], name="sum")],
                           [float_input("x", [2, 3]), float_input("w_default", [2, 3])],
                           [float_input("y", [2, 3]), float_input("e", [2, 2])],
                           [initializer("w1", values), initializer("w2", values),
                            # A graph input's default: a caller may feed another value.
                            initializer("w_default", values),
                            # The same bytes, other dims; other type.
                            initializer("w_transposed", values.reshape(3, 2)),
                            initializer("w_ints", values.view(np.int32))])
        simplified, report = self.merged(model, 1, 1)
        self.assertEqual(node_names(simplified), ["add", "sub", "mul", "div", "matmul", "cast", "sum"])
        self.assertEqual(list(node_named(simplified, "sub").input), ["x", "w1"])
        self.assertEqual(list(node_named(simplified, "div").input), ["x", "w1"])
        self.assertEqual(list(node_named(simplified, "mul").input), ["x", "w_default"])
        self.assertEqual([t.name for t in simplified.graph.initializer], ["w1", "w_default", "w_transposed", "w_ints"])
        self.assertEqual(report["verdict"], "proven")
        feeds = {"x": np.ones((2, 3), np.float32) * 3, "w_default": np.full((2, 3), 0.5, np.float32)}
        self.assert_runs_equal(model, simplified, feeds)

    def test_large_external_initializers_shared_only_when_the_same_bytes(self):
        """Past 1 MiB values are not read: two tensors naming the same bytes of the data
        file are shared, an equal copy elsewhere in it is not."""
        n = 300_000
        data = np.linspace(0.0, 1.0, n, dtype=np.float32)
        with open(os.path.join(self.tmp, "weights.bin"), "wb") as f:
            f.write(data.tobytes() * 2)
        size = data.nbytes
        model = make_model([helper.make_node("Add", ["x", "big_a"], ["a"], name="add"),
                            helper.make_node("Mul", ["x", "big_b"], ["b"], name="mul"),
                            helper.make_node("Sub", ["x", "big_copy"], ["c"], name="sub"),
                            helper.make_node("Sum", ["a", "b", "c"], ["y"], name="sum")],
                           [float_input("x", [n])], [float_input("y", [n])],
                           [external("big_a", [n], "weights.bin", 0, size),
                            external("big_b", [n], "weights.bin", 0, size),
                            external("big_copy", [n], "weights.bin", size, size)])
        simplified, report = self.merged(model, 0, 1)
        self.assertEqual(list(node_named(simplified, "mul").input), ["x", "big_a"])
        self.assertEqual(list(node_named(simplified, "sub").input), ["x", "big_copy"])
        self.assertEqual(sorted(t.name for t in simplified.graph.initializer), ["big_a", "big_copy"])
        self.assertEqual(report["verdict"], "proven")
        self.assert_runs_equal(model, simplified, {"x": np.full(n, 2.0, np.float32)})

    def test_subgraphs_equal_holders_merge_and_bodies_are_simplified(self):
        def branch(name, op, suffix):
            return helper.make_graph([helper.make_node(op, ["x", "one"], [name + suffix], name=name + suffix + "_n")],
                                     name + suffix, [], [float_input(name + suffix, [2])])

        def holder(name, then_op, suffix):
            return helper.make_node("If", ["cond"], [name], name=name,
                                    then_branch=branch("then", then_op, suffix),
                                    else_branch=branch("else", "Sub", suffix))
        body = helper.make_graph([helper.make_node("Relu", ["x"], ["r1"], name="relu_1"),
                                  helper.make_node("Relu", ["x"], ["r2"], name="relu_2"),
                                  helper.make_node("Add", ["r1", "r2"], ["inner"], name="inner_add")],
                                 "body", [], [float_input("inner", [2])])
        model = make_model([holder("if_1", "Add", ""), holder("if_2", "Add", ""), holder("if_3", "Mul", "_3"),
                            helper.make_node("If", ["cond"], ["if_4"], name="if_4", then_branch=body,
                                             else_branch=branch("else", "Sub", "_4")),
                            helper.make_node("Sum", ["if_1", "if_2", "if_3", "if_4"], ["y"], name="sum")],
                           [float_input("x", [2]), helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
                           [float_input("y", [2])], [initializer("one", np.ones(2, np.float32))])
        # if_2 with the two nodes of its branches, and relu_2.
        simplified, report = self.merged(model, 4)
        self.assertEqual(node_names(simplified), ["if_1", "if_3", "if_4", "sum"])
        self.assertEqual(list(node_named(simplified, "sum").input), ["if_1", "if_1", "if_3", "if_4"])
        then_4 = [a.g for a in node_named(simplified, "if_4").attribute if a.name == "then_branch"][0]
        self.assertEqual([n.name for n in then_4.node], ["relu_1", "inner_add"])
        self.assertEqual(list(then_4.node[1].input), ["r1", "r1"])
        self.assertEqual(report["verdict"], "proven")
        for cond in (True, False):
            self.assert_runs_equal(model, simplified, {"x": np.array([-1.0, 2.0], np.float32),
                                                       "cond": np.array(cond)})

    def test_other_inputs_of_equal_shape_and_other_attributes_stay(self):
        """Shapes of different inputs (their symbolic dims apart), Transposes of other
        perms: only the Shape asked twice of one tensor merges."""
        model = make_model([helper.make_node("Shape", ["x"], ["sx"], name="shape_x"),
                            helper.make_node("Shape", ["y"], ["sy"], name="shape_y"),
                            helper.make_node("Shape", ["x"], ["sx2"], name="shape_x_again"),
                            helper.make_node("Transpose", ["x"], ["tx"], name="t_1", perm=[1, 0]),
                            helper.make_node("Transpose", ["x"], ["tx2"], name="t_2", perm=[0, 1]),
                            helper.make_node("Add", ["sx", "sy"], ["s_sum"], name="add"),
                            helper.make_node("Mul", ["sx2", "sy"], ["s_prod"], name="mul")],
                           [float_input("x", ["N", 4]), float_input("y", ["M", 4])],
                           [helper.make_tensor_value_info("s_sum", TensorProto.INT64, [2]),
                            helper.make_tensor_value_info("s_prod", TensorProto.INT64, [2]),
                            float_input("tx", [4, "N"]), float_input("tx2", ["N", 4])])
        simplified, report = self.merged(model, 1)
        self.assertEqual(node_names(simplified), ["shape_x", "shape_y", "t_1", "t_2", "add", "mul"])
        self.assertEqual(list(node_named(simplified, "mul").input), ["sx", "sy"])
        self.assertEqual(report["verdict"], "proven")
        self.assert_runs_equal(model, simplified, {"x": np.ones((3, 4), np.float32), "y": np.ones((5, 4), np.float32)})

if __name__ == "__main__":
    unittest.main()
