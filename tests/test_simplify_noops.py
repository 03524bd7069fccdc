#!/usr/bin/python3
"""onyx-cli edit --simplify=noops: nodes that compute nothing bypassed, pairs that undo
each other removed, Transposes and Reshapes in a row merged; and where they must stay
(a graph output in the way, a second reader, dims not known to match, another
opset's form)."""
import unittest

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from simplify_test import SimplifyCase, constant, float_input, make_model

INT64_MAX = np.iinfo(np.int64).max


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def floats(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.float32), name)


def node(op, inputs, output, name, **attrs):
    return helper.make_node(op, inputs, [output] if isinstance(output, str) else output, name=name, **attrs)


class Noops(SimplifyCase):
    def check(self, model, removed, left, feeds):
        """Simplifies with the noops pass alone: `removed` nodes removed, `left` the
        nodes' names after, the graph outputs' names kept, the same results."""
        simplified, report = self.simplify(model, "--simplify=noops")
        self.assertEqual(self.pass_of(report, "noops")["nodes_removed"], removed)
        self.assertEqual([n.name for n in simplified.graph.node], left)
        self.assertEqual([o.name for o in simplified.graph.output], [o.name for o in model.graph.output])
        if removed > 0:
            self.assertEqual(report["verdict"], "proven")
            self.assert_runs_equal(model, simplified, feeds)
        return simplified

    def test_identity_dropout_and_same_type_cast_go(self):
        model = make_model([node("Identity", ["x"], "a", "id"),
                            node("Dropout", ["a"], "b", "drop"),
                            node("Cast", ["b"], "c", "same_cast", to=TensorProto.FLOAT),
                            node("Relu", ["c"], "y", "relu")],
                           [float_input("x", [2, 3])], [float_input("y", [2, 3])])
        simplified = self.check(model, 3, ["relu"], {"x": np.array([[1, -2, 3], [-4, 5, -6]], dtype=np.float32)})
        self.assertEqual(list(simplified.graph.node[0].input), ["x"])

    def test_identity_of_a_weight_without_fold(self):
        model = make_model([node("Identity", ["w"], "w_shared", "share"),
                            node("MatMul", ["x", "w_shared"], "y", "matmul")],
                           [float_input("x", [1, 2])], [float_input("y", [1, 2])],
                           [floats("w", [[1, 2], [3, 4]])])
        simplified = self.check(model, 1, ["matmul"], {"x": np.array([[1, -1]], dtype=np.float32)})
        self.assertEqual(list(simplified.graph.node[0].input), ["x", "w"])

    def test_graph_output_keeps_its_name(self):
        model = make_model([node("Relu", ["x"], "r", "relu"),
                            node("Identity", ["r"], "y", "id")],
                           [float_input("x", [3])], [float_input("y", [3])])
        simplified = self.check(model, 1, ["relu"], {"x": np.array([1, -2, 3], dtype=np.float32)})
        self.assertEqual(list(simplified.graph.node[0].output), ["y"])

    def test_graph_output_in_the_way_or_a_second_reader(self):
        # y is a graph output made from a graph input: nothing but the Identity can
        # write it. r is read twice: the Relu cannot take the name y2. Only the
        # Identity before the Relu goes.
        model = make_model([node("Identity", ["x"], "y", "id_direct"),
                            node("Identity", ["x"], "xi", "id_in"),
                            node("Relu", ["xi"], "r", "relu"),
                            node("Identity", ["r"], "y2", "id_shared"),
                            node("Neg", ["r"], "z", "neg")],
                           [float_input("x", [3])],
                           [float_input("y", [3]), float_input("y2", [3]), float_input("z", [3])])
        simplified = self.check(model, 1, ["id_direct", "relu", "id_shared", "neg"],
                                {"x": np.array([1, -2, 3], dtype=np.float32)})
        self.assertEqual(list(simplified.graph.node[1].input), ["x"])

    def test_dropout_in_training_or_with_its_mask_read_stays(self):
        x = float_input("x", [4])
        feeds = {"x": np.array([1, 2, 3, 4], dtype=np.float32)}
        for training, removed in ((False, 1), (True, 0)):
            with self.subTest(training=training):
                mode = numpy_helper.from_array(np.array(training), "mode")
                model = make_model([node("Dropout", ["x", "", "mode"], "d", "drop"),
                                    node("Relu", ["d"], "y", "relu")],
                                   [x], [float_input("y", [4])], [mode])
                self.check(model, removed, ["relu"] if removed else ["drop", "relu"], feeds)
        mask = make_model([node("Dropout", ["x"], ["d", "m"], "drop"),
                           node("Relu", ["d"], "y", "relu")],
                          [x], [float_input("y", [4]), helper.make_tensor_value_info("m", TensorProto.BOOL, [4])])
        self.check(mask, 0, ["drop", "relu"], feeds)
        # Opset 6: training unless is_test says otherwise; opset 7: inference.
        for opset, removed in ((6, 0), (7, 1)):
            with self.subTest(opset=opset):
                model = make_model([node("Dropout", ["x"], "d", "drop"), node("Relu", ["d"], "y", "relu")],
                                   [x], [float_input("y", [4])], opset=opset)
                self.check(model, removed, ["relu"] if removed else ["drop", "relu"], feeds)

    def test_cast_there_and_back_only_when_exact(self):
        i32 = TensorProto.INT32
        model = make_model([
            # float → float16 loses digits (both stay); float16 → float → float16 loses none.
            node("Cast", ["x"], "h", "to_half", to=TensorProto.FLOAT16),
            node("Cast", ["h"], "f", "widen", to=TensorProto.FLOAT),
            node("Cast", ["f"], "h2", "narrow", to=TensorProto.FLOAT16),
            node("Cast", ["h2"], "y", "to_float", to=TensorProto.FLOAT),
            # int32 → int64 → int32, ending in a graph output, whose name stays.
            node("Abs", ["i"], "a", "abs"),
            node("Cast", ["a"], "wide", "widen_int", to=TensorProto.INT64),
            node("Cast", ["wide"], "j", "narrow_int", to=i32),
            # The wide tensor read elsewhere stays; the narrowing goes.
            node("Cast", ["i"], "wide2", "widen_read", to=TensorProto.INT64),
            node("Cast", ["wide2"], "n", "narrow_read", to=i32),
            node("Neg", ["n"], "k", "neg"),
            node("Neg", ["wide2"], "l", "neg_wide")],
            [float_input("x", [3]), helper.make_tensor_value_info("i", i32, [3])],
            [float_input("y", [3]), helper.make_tensor_value_info("j", i32, [3]),
             helper.make_tensor_value_info("k", i32, [3]), helper.make_tensor_value_info("l", TensorProto.INT64, [3])])
        simplified = self.check(model, 5, ["to_half", "to_float", "abs", "widen_read", "neg", "neg_wide"],
                                {"x": np.array([0.1, 1e5, -3.3333], dtype=np.float32),
                                 "i": np.array([7, -2**31 + 1, 2**31 - 1], dtype=np.int32)})
        nodes = {n.name: n for n in simplified.graph.node}
        self.assertEqual(list(nodes["to_float"].input), ["h"])
        self.assertEqual(list(nodes["abs"].output), ["j"])
        self.assertEqual(list(nodes["neg"].input), ["i"])

    def test_shapes_kept_by_reshape_expand_flatten(self):
        model = make_model([node("Reshape", ["x", "same"], "a", "same_reshape"),
                            node("Expand", ["a", "row"], "b", "same_expand"),
                            node("Relu", ["b"], "c", "relu"),
                            node("Reshape", ["c", "matrix"], "d", "to_matrix"),
                            node("Flatten", ["d"], "y", "flatten", axis=1)],
                           [float_input("x", [2, 3, 4])], [float_input("y", [6, 4])],
                           [ints("same", [2, 3, 4]), ints("row", [3, 1]), ints("matrix", [6, 4])])
        simplified = self.check(model, 3, ["relu", "to_matrix"],
                                {"x": np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 12})
        self.assertEqual(list(simplified.graph.node[0].input), ["x"])
        self.assertEqual(list(simplified.graph.node[1].output), ["y"])

    def test_symbolic_dims_count_only_when_the_same(self):
        # N broadcast with 1 is N: the Expand does nothing. The Reshapes' outputs are
        # declared [N, 4], x's shape, and [M, 4], not known to be x's. Squeezing every
        # dim of 1 from [N, 4]: N may be 1.
        model = make_model([node("Expand", ["x", "row"], "e", "expand"),
                            node("Relu", ["e"], "y", "relu"),
                            node("Reshape", ["x", "shape"], "same", "reshape_n"),
                            node("Relu", ["same"], "z", "relu_n"),
                            node("Reshape", ["x", "shape"], "other", "reshape_m"),
                            node("Relu", ["other"], "w", "relu_m"),
                            node("Squeeze", ["x"], "s", "squeeze"),
                            node("Relu", ["s"], "v", "relu_s")],
                           [float_input("x", ["N", 4])],
                           [float_input("y", ["N", 4]), float_input("z", ["N", 4]), float_input("w", ["M", 4]),
                            float_input("v", ["a", "b"])],
                           [ints("row", [1, 4]), ints("shape", [-1, 4])])
        model.graph.value_info.extend([float_input("same", ["N", 4]), float_input("other", ["M", 4])])
        self.check(model, 2, ["relu", "relu_n", "reshape_m", "relu_m", "squeeze", "relu_s"],
                   {"x": np.ones((3, 4), dtype=np.float32)})

    def test_unsqueeze_then_squeeze_in_both_opset_forms(self):
        feeds = {"x": np.array([[1, -2, 3], [4, 5, -6]], dtype=np.float32)}
        at_13 = make_model([node("Unsqueeze", ["x", "last"], "u", "unsqueeze"),
                            node("Squeeze", ["u", "two"], "s", "squeeze"),
                            node("Relu", ["s"], "y", "relu")],
                           [float_input("x", [2, 3])], [float_input("y", [2, 3])],
                           [ints("last", [-1]), ints("two", [2])])
        self.check(at_13, 2, ["relu"], feeds)
        at_11 = make_model([node("Unsqueeze", ["x"], "u", "unsqueeze", axes=[0]),
                            node("Squeeze", ["u"], "s", "squeeze", axes=[0]),
                            node("Relu", ["s"], "y", "relu")],
                           [float_input("x", [2, 3])], [float_input("y", [2, 3])], opset=11)
        self.check(at_11, 2, ["relu"], feeds)
        # Other axes: a real change of shape.
        other = make_model([node("Unsqueeze", ["x", "zero"], "u", "unsqueeze"),
                            node("Squeeze", ["u", "two"], "s", "squeeze"),
                            node("Relu", ["s"], "y", "relu")],
                           [float_input("x", [2, 1, 3])], [float_input("y", [1, 2, 3])],
                           [ints("zero", [0]), ints("two", [2])])
        self.check(other, 0, ["unsqueeze", "squeeze", "relu"], {})
        # Axes from a graph input are not known.
        fed = make_model([node("Unsqueeze", ["x", "axes"], "u", "unsqueeze"),
                          node("Squeeze", ["u", "axes"], "y", "squeeze")],
                         [float_input("x", [2, 3]), helper.make_tensor_value_info("axes", TensorProto.INT64, [1])],
                         [float_input("y", ["a", "b"])])
        self.check(fed, 0, ["unsqueeze", "squeeze"], {})

    def test_squeeze_then_unsqueeze_of_dims_of_one(self):
        model = make_model([node("Relu", ["x"], "r", "relu"),
                            node("Squeeze", ["r", "one"], "s", "squeeze"),
                            node("Unsqueeze", ["s", "one"], "y", "unsqueeze"),
                            # Every dim of 1 squeezed, then put back.
                            node("Squeeze", ["x"], "s_all", "squeeze_all"),
                            node("Unsqueeze", ["s_all", "one"], "u", "unsqueeze_all"),
                            node("Neg", ["u"], "z", "neg"),
                            # Unknown dims may be 1 or not.
                            node("Squeeze", ["n"], "s_n", "squeeze_n"),
                            node("Unsqueeze", ["s_n", "one"], "w", "unsqueeze_n")],
                           [float_input("x", [2, 1, 3]), float_input("n", ["N", 1, 3])],
                           [float_input("y", [2, 1, 3]), float_input("z", [2, 1, 3]), float_input("w", ["N", 1, 3])],
                           [ints("one", [1])])
        simplified = self.check(model, 4, ["relu", "neg", "squeeze_n", "unsqueeze_n"],
                                {"x": np.arange(6, dtype=np.float32).reshape(2, 1, 3) - 3,
                                 "n": np.ones((2, 1, 3), dtype=np.float32)})
        self.assertEqual(list(simplified.graph.node[0].output), ["y"])
        self.assertEqual(list(simplified.graph.node[1].input), ["x"])

    def test_transposes(self):
        model = make_model([
            # The identity perm, and a perm followed by its inverse.
            node("Transpose", ["x"], "a", "same", perm=[0, 1, 2]),
            node("Transpose", ["a"], "b", "there", perm=[1, 2, 0]),
            node("Transpose", ["b"], "c", "back", perm=[2, 0, 1]),
            node("Relu", ["c"], "y", "relu"),
            # Two become one with the composed perm.
            node("Transpose", ["x"], "d", "first", perm=[0, 2, 1]),
            node("Transpose", ["d"], "z", "second", perm=[2, 0, 1]),
            # The first read elsewhere stays; the second reads past it all the same.
            node("Transpose", ["x"], "e", "first_read", perm=[0, 2, 1]),
            node("Transpose", ["e"], "w", "second_past"),
            node("Neg", ["e"], "v", "neg")],
            [float_input("x", [2, 3, 4])],
            [float_input("y", [2, 3, 4]), float_input("z", [3, 2, 4]), float_input("w", [3, 4, 2]),
             float_input("v", [2, 4, 3])])
        simplified = self.check(model, 4, ["relu", "second", "first_read", "second_past", "neg"],
                                {"x": np.arange(24, dtype=np.float32).reshape(2, 3, 4)})
        nodes = {n.name: n for n in simplified.graph.node}
        self.assertEqual(list(nodes["second"].input), ["x"])
        self.assertEqual(list(nodes["second"].attribute[0].ints), [1, 0, 2])
        # No perm reverses the dims: [2, 1, 0] after [0, 2, 1] is [1, 2, 0].
        self.assertEqual(list(nodes["second_past"].input), ["x"])
        self.assertEqual(list(nodes["second_past"].attribute[0].ints), [1, 2, 0])

    def test_reshapes_in_a_row(self):
        feeds = {"x": np.arange(24, dtype=np.float32).reshape(2, 3, 4)}
        model = make_model([node("Reshape", ["x", "flat"], "a", "first"),
                            node("Reshape", ["a", "square"], "y", "second")],
                           [float_input("x", [2, 3, 4])], [float_input("y", [4, 6])],
                           [ints("flat", [6, 4]), ints("square", [4, -1])])
        simplified = self.check(model, 1, ["second"], feeds)
        self.assertEqual(list(simplified.graph.node[0].input), ["x", "square"])
        # A 0 copies a dim of what the first made: it stays.
        model = make_model([node("Reshape", ["x", "flat"], "a", "first"),
                            node("Reshape", ["a", "copy"], "y", "second")],
                           [float_input("x", [2, 3, 4])], [float_input("y", [3, 2, 4])],
                           [ints("flat", [3, 8]), ints("copy", [0, 2, -1])])
        self.check(model, 0, ["first", "second"], feeds)

    def test_pad_concat_split_slice_that_change_nothing(self):
        feeds = {"x": np.arange(6, dtype=np.float32).reshape(2, 3)}
        model = make_model([node("Pad", ["x", "no_pads"], "a", "pad", mode="reflect"),
                            node("Concat", ["a"], "b", "concat", axis=0),
                            node("Split", ["b"], "c", "split", axis=1),
                            node("Slice", ["c", "zero", "end"], "d", "slice_to_max"),
                            node("Slice", ["d", "zeros", "dims", "axes", "steps"], "e", "slice_to_dims"),
                            node("Slice", ["e", "zero", "end", "zero", "two"], "y", "every_other")],
                           [float_input("x", [2, 3])], [float_input("y", [1, 3])],
                           [ints("no_pads", [0, 0, 0, 0]), ints("zero", [0]), ints("end", [INT64_MAX]),
                            ints("zeros", [0, 0]), ints("dims", [2, 3]), ints("axes", [-2, 1]),
                            ints("steps", [1, 1]), ints("two", [2])])
        self.check(model, 5, ["every_other"], feeds)
        # Opset 9: pads and slice bounds as attributes; a real pad stays.
        model = make_model([node("Pad", ["x"], "a", "pad", pads=[0, 0, 0, 0]),
                            node("Slice", ["a"], "b", "slice", starts=[0], ends=[3], axes=[1]),
                            node("Pad", ["b"], "y", "real_pad", pads=[0, 1, 0, 0])],
                           [float_input("x", [2, 3])], [float_input("y", [2, 4])], opset=9)
        self.check(model, 2, ["real_pad"], feeds)
        # A slice short of the end stays.
        model = make_model([node("Slice", ["x", "zero", "two", "one"], "y", "slice")],
                           [float_input("x", [2, 3])], [float_input("y", [2, 2])],
                           [ints("zero", [0]), ints("two", [2]), ints("one", [1])])
        self.check(model, 0, ["slice"], feeds)

    def test_arithmetic_with_neutral_constants(self):
        feeds = {"x": np.array([[1, -2, 3], [4, 5, -6]], dtype=np.float32)}
        model = make_model([constant("zero_row", np.zeros(3, dtype=np.float32)),
                            node("Add", ["zero_row", "x"], "a", "add_zero"),
                            node("Sub", ["a", "zero"], "b", "sub_zero"),
                            node("Mul", ["b", "one"], "c", "mul_one"),
                            node("Div", ["c", "one"], "d", "div_one"),
                            node("Sub", ["zero", "d"], "e", "zero_minus"),
                            node("Div", ["one", "e"], "f", "one_over"),
                            node("Mul", ["f", "two"], "y", "mul_two")],
                           [float_input("x", [2, 3])], [float_input("y", [2, 3])],
                           [floats("zero", [0]), floats("one", [1]), floats("two", [2])])
        # The Constant left unread goes with Clean Up.
        self.check(model, 4, ["zero_minus", "one_over", "mul_two"], feeds)
        # Broadcasting makes the result larger than x: not a no-op.
        model = make_model([node("Add", ["x", "zeros"], "y", "add")],
                           [float_input("x", [3])], [float_input("y", [2, 3])], [floats("zeros", np.zeros((2, 3)))])
        self.check(model, 0, ["add"], {})

    def test_inside_a_branch(self):
        relu = node("Relu", ["t"], "then_out", "inner_relu")
        then_branch = helper.make_graph([node("Identity", ["x"], "t", "inner_id"), relu], "then", [],
                                        [float_input("then_out", [3])])
        else_branch = helper.make_graph([node("Neg", ["x"], "else_out", "inner_neg")], "else", [],
                                        [float_input("else_out", [3])])
        model = make_model([node("If", ["c"], "y", "if", then_branch=then_branch, else_branch=else_branch)],
                           [float_input("x", [3]), helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
                           [float_input("y", [3])])
        simplified = self.check(model, 1, ["if"], {"x": np.array([1, -2, 3], dtype=np.float32),
                                                   "c": np.array(True)})
        then_graph = [a.g for a in simplified.graph.node[0].attribute if a.name == "then_branch"][0]
        self.assertEqual([n.name for n in then_graph.node], ["inner_relu"])
        self.assertEqual(list(then_graph.node[0].input), ["x"])


if __name__ == "__main__":
    unittest.main()
