#!/usr/bin/python3
"""onyx-cli edit --simplify=shapes: Shape, Size, and Gather/Slice of a Shape whose dims
shape inference knows become int64 initializers; symbolic dims never do."""
import itertools
import unittest

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from simplify_test import SimplifyCase, float_input, make_model

INT64_MAX = np.iinfo(np.int64).max
INT64_MIN = np.iinfo(np.int64).min


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def initializers_of(model):
    return {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}


def node_names(model):
    return [n.name for n in model.graph.node]


class ShapeFolding(SimplifyCase):
    def assert_folded(self, model, name, expected):
        value = initializers_of(model)[name]
        self.assertEqual(value.dtype, np.int64)
        np.testing.assert_array_equal(value, np.array(expected, dtype=np.int64))
        self.assertEqual(value.shape, np.array(expected).shape)

    def assert_outputs_kept(self, original, simplified):
        self.assertEqual([o.name for o in simplified.graph.output], [o.name for o in original.graph.output])

    def test_shape_and_size_of_known_dims(self):
        model = make_model([helper.make_node("Shape", ["x"], ["x_shape"], name="shape"),
                            helper.make_node("Size", ["x"], ["x_size"], name="size"),
                            helper.make_node("Reshape", ["w", "x_shape"], ["y"], name="reshape"),
                            helper.make_node("Unsqueeze", ["x_size", "axes"], ["size_1d"], name="unsqueeze"),
                            helper.make_node("Reshape", ["w", "size_1d"], ["z"], name="flatten")],
                           [float_input("x", [2, 3, 4]), float_input("w", [24])],
                           [float_input("y", [2, 3, 4]), float_input("z", [24])], [ints("axes", [0])])
        simplified, report = self.simplify(model, "--simplify=shapes")
        self.assertEqual(self.pass_of(report, "shapes")["nodes_removed"], 2)
        self.assertEqual(node_names(simplified), ["reshape", "unsqueeze", "flatten"])
        self.assert_folded(simplified, "x_shape", [2, 3, 4])
        self.assert_folded(simplified, "x_size", 24)
        self.assert_outputs_kept(model, simplified)
        self.assertEqual(report["verdict"], "proven")
        self.assert_runs_equal(model, simplified, {"x": np.zeros((2, 3, 4), dtype=np.float32),
                                                   "w": np.arange(24, dtype=np.float32)})

    def test_shape_start_and_end_of_opset_15(self):
        model = make_model([helper.make_node("Shape", ["x"], ["last_two"], name="last_two_node", start=-2),
                            helper.make_node("Shape", ["x"], ["middle"], name="middle_node", start=1, end=-1),
                            helper.make_node("Shape", ["x"], ["empty"], name="empty_node", start=2, end=1),
                            helper.make_node("Concat", ["middle", "last_two", "empty"], ["dims"], name="concat",
                                             axis=0),
                            helper.make_node("Reshape", ["w", "dims"], ["y"], name="reshape")],
                           [float_input("x", [2, 3, 4]), float_input("w", [36])], [float_input("y", [3, 3, 4])],
                           opset=15)
        simplified, report = self.simplify(model, "--simplify=shapes")
        self.assertEqual(self.pass_of(report, "shapes")["nodes_removed"], 3)
        self.assertEqual(node_names(simplified), ["concat", "reshape"])
        self.assert_folded(simplified, "last_two", [3, 4])
        self.assert_folded(simplified, "middle", [3])
        self.assert_folded(simplified, "empty", np.zeros(0, dtype=np.int64))
        self.assert_runs_equal(model, simplified, {"x": np.zeros((2, 3, 4), dtype=np.float32),
                                                   "w": np.arange(36, dtype=np.float32)})

    def symbolic_batch_model(self, opset=13):
        """x [N, 3, 4]: the batch is picked, reversed and sliced out beside known dims."""
        slice_inputs = {13: ["x_shape", "one", "big"], 9: ["x_shape"]}[opset]
        slice_attributes = {13: {}, 9: {"starts": [1], "ends": [INT64_MAX]}}[opset]
        return make_model([helper.make_node("Shape", ["x"], ["x_shape"], name="shape"),
                           helper.make_node("Gather", ["x_shape", "zero"], ["batch"], name="pick_batch"),
                           helper.make_node("Gather", ["x_shape", "minus_one"], ["last"], name="pick_last"),
                           helper.make_node("Gather", ["x_shape", "pair_indices"], ["pair"], name="pick_pair"),
                           helper.make_node("Slice", slice_inputs, ["tail"], name="slice_tail", **slice_attributes),
                           helper.make_node("Unsqueeze", ["batch"], ["batch_1d"], name="unsqueeze", axes=[0])
                           if opset < 13 else
                           helper.make_node("Unsqueeze", ["batch", "zero_1d"], ["batch_1d"], name="unsqueeze"),
                           helper.make_node("Concat", ["batch_1d", "tail"], ["target"], name="concat", axis=0),
                           helper.make_node("Reshape", ["x", "target"], ["y"], name="reshape"),
                           helper.make_node("Add", ["last", "last"], ["last_twice"], name="add"),
                           helper.make_node("Mul", ["pair", "pair"], ["pair_squared"], name="mul")],
                          [float_input("x", ["N", 3, 4])],
                          [float_input("y", ["N", 3, 4]), helper.make_tensor_value_info("last_twice", TensorProto.INT64, []),
                           helper.make_tensor_value_info("pair_squared", TensorProto.INT64, [2])],
                          [ints("zero", 0), ints("minus_one", -1), ints("pair_indices", [-1, 1]), ints("one", [1]),
                           ints("big", [INT64_MAX]), ints("zero_1d", [0])], opset=opset)

    def check_symbolic_batch(self, opset):
        model = self.symbolic_batch_model(opset)
        simplified, report = self.simplify(model, "--simplify=shapes")
        # The batch N stays symbolic: the Reshape's target says 0, the input's own dim
        # at that place, and the chain that picked it goes with Clean Up.
        self.assertEqual(self.pass_of(report, "shapes")["nodes_removed"], 3)
        self.assertEqual(node_names(simplified), ["reshape", "add", "mul"])
        np.testing.assert_array_equal(initializers_of(simplified)[simplified.graph.node[0].input[1]], [0, 3, 4])
        self.assert_folded(simplified, "last", 4)
        self.assert_folded(simplified, "pair", [4, 3])
        self.assertNotIn("batch", initializers_of(simplified))
        self.assert_outputs_kept(model, simplified)
        self.assertEqual(report["verdict"], "proven")
        for batch in (1, 5):
            self.assert_runs_equal(model, simplified, {"x": np.ones((batch, 3, 4), dtype=np.float32)})

    def test_known_dims_picked_beside_a_symbolic_batch(self):
        self.check_symbolic_batch(13)

    def test_slice_of_opset_9_takes_attributes(self):
        self.check_symbolic_batch(9)

    def test_reversed_slice_folds_only_without_the_batch(self):
        model = make_model([helper.make_node("Shape", ["x"], ["x_shape"], name="shape"),
                            # [4, 3]: from the last dim back to (not including) the first.
                            helper.make_node("Slice", ["x_shape", "minus_one", "zero", "zero", "minus_one"],
                                             ["known_reversed"], name="known_slice"),
                            # [4, 3, N]: the batch in it, so it stays.
                            helper.make_node("Slice", ["x_shape", "minus_one", "very_negative", "zero", "minus_one"],
                                             ["all_reversed"], name="all_slice"),
                            helper.make_node("Concat", ["known_reversed", "all_reversed"], ["dims"], name="concat",
                                             axis=0)],
                           [float_input("x", ["N", 3, 4])], [helper.make_tensor_value_info("dims", TensorProto.INT64, [5])],
                           [ints("minus_one", [-1]), ints("zero", [0]), ints("very_negative", [-INT64_MAX])])
        simplified, report = self.simplify(model, "--simplify=shapes")
        self.assertEqual(self.pass_of(report, "shapes")["nodes_removed"], 1)
        self.assertEqual(node_names(simplified), ["shape", "all_slice", "concat"])
        self.assert_folded(simplified, "known_reversed", [4, 3])
        self.assert_runs_equal(model, simplified, {"x": np.ones((2, 3, 4), dtype=np.float32)})

    def test_every_start_end_and_step_as_onnx_runtime_slices(self):
        """Shape's start/end and Slice's clamping over many values, proven by ONNX
        Runtime (Simplify refuses the pass otherwise, and this compares again)."""
        edges = [INT64_MIN, -INT64_MAX, -6, -5, -4, -1, 0, 1, 3, 4, 5, INT64_MAX]
        steps = [-INT64_MAX, -2, -1, 1, 2, 3, INT64_MAX]
        nodes = [helper.make_node("Shape", ["x"], ["x_shape"], name="shape")]
        initializers, outputs = [], []

        def read(name):
            nodes.append(helper.make_node("Identity", [name], [name + "_out"], name=name + "_read"))
            outputs.append(helper.make_tensor_value_info(name + "_out", TensorProto.INT64, [None]))

        for i, (start, end) in enumerate(itertools.product([None, -6, -2, 0, 1, 4, 6], [None, -6, -1, 0, 2, 4, 9])):
            bounds = {k: v for k, v in (("start", start), ("end", end)) if v is not None}
            nodes.append(helper.make_node("Shape", ["x"], [f"part{i}"], name=f"part{i}_node", **bounds))
            read(f"part{i}")
        for i, (start, end, step) in enumerate(itertools.product(edges, edges, steps)):
            operands = [f"start{i}", f"end{i}", f"axis{i}", f"step{i}"]
            initializers += [ints(operands[0], [start]), ints(operands[1], [end]), ints(operands[2], [-(i % 2)]),
                             ints(operands[3], [step])]
            nodes.append(helper.make_node("Slice", ["x_shape"] + operands, [f"slice{i}"], name=f"slice{i}_node"))
            read(f"slice{i}")
        model = make_model(nodes, [float_input("x", ["N", 3, 4, 5])], outputs, initializers, opset=15)
        simplified, report = self.simplify(model, "--simplify=shapes")
        # Those that pick no N (and no backward slice to INT_MAX, which runtimes read apart).
        self.assertEqual(self.pass_of(report, "shapes")["nodes_removed"], 766)
        self.assertEqual(report["verdict"], "proven")
        self.assert_outputs_kept(model, simplified)
        self.assert_runs_equal(model, simplified, {"x": np.zeros((2, 3, 4, 5), dtype=np.float32)})

    def test_symbolic_dims_and_graph_outputs_stay(self):
        model = make_model([helper.make_node("Shape", ["x"], ["x_shape"], name="shape"),
                            helper.make_node("Size", ["x"], ["x_size"], name="size"),
                            # A graph output keeps the node making it, known or not.
                            helper.make_node("Shape", ["k"], ["k_shape"], name="known_shape"),
                            helper.make_node("Gather", ["x_shape", "two"], ["x_last"], name="pick_last")],
                           [float_input("x", ["N", 3, 4]), float_input("k", [2, 2])],
                           [helper.make_tensor_value_info("x_size", TensorProto.INT64, []),
                            helper.make_tensor_value_info("k_shape", TensorProto.INT64, [2]),
                            helper.make_tensor_value_info("x_last", TensorProto.INT64, [])],
                           [ints("two", 2)])
        simplified, report = self.simplify(model, "--simplify=shapes")
        self.assertEqual(self.pass_of(report, "shapes")["nodes_removed"], 0)
        self.assertEqual(report["verdict"], "unchanged")
        self.assertEqual(node_names(simplified), ["shape", "size", "known_shape", "pick_last"])

    def test_shape_in_a_branch_reads_an_outer_tensor(self):
        then_branch = helper.make_graph(
            [helper.make_node("Shape", ["x"], ["inner_shape"], name="inner_shape_node"),
             helper.make_node("Gather", ["inner_shape", "second"], ["columns"], name="inner_gather"),
             helper.make_node("Concat", ["columns", "rest"], ["swapped"], name="inner_concat", axis=0),
             helper.make_node("Reshape", ["x", "swapped"], ["then_out"], name="inner_reshape")],
            "then", [], [float_input("then_out", [3, "N"])])
        else_branch = helper.make_graph([helper.make_node("Identity", ["x"], ["else_out"], name="inner_identity")],
                                        "else", [], [float_input("else_out", ["N", 3])])
        model = make_model([helper.make_node("If", ["c"], ["y"], name="if", then_branch=then_branch,
                                             else_branch=else_branch)],
                           [float_input("x", ["N", 3]), helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
                           [float_input("y", [None, None])], [ints("second", [1]), ints("rest", [-1])])
        simplified, report = self.simplify(model, "--simplify=shapes")
        # The Gather folds inside the branch; the Shape, read by nothing then, goes with Clean Up.
        self.assertEqual(self.pass_of(report, "shapes")["nodes_removed"], 1)
        self.assertEqual(node_names(simplified), ["if"])
        branch = [a.g for a in simplified.graph.node[0].attribute if a.name == "then_branch"][0]
        self.assertEqual([n.name for n in branch.node], ["inner_concat", "inner_reshape"])
        self.assertEqual([numpy_helper.to_array(t).tolist() for t in branch.initializer], [[3]])
        self.assertEqual([t.name for t in branch.initializer], ["columns"])
        self.assert_outputs_kept(model, simplified)
        for cond in (True, False):
            self.assert_runs_equal(model, simplified, {"x": np.arange(6, dtype=np.float32).reshape(2, 3),
                                                       "c": np.array(cond)})
    def reshape_chain(self, index, extra_constant, opset=12):
        """x [N, 3, 4] reshaped to [x.size(INDEX), 12] (or [.., 12, 1]) as TorchScript
        writes it: Shape → Gather → Unsqueeze, Concat with the constant part."""
        parts = [helper.make_node("Shape", ["x"], ["x_shape"], name="shape"),
                 helper.make_node("Gather", ["x_shape", "i"], ["dim"], name="gather", axis=0),
                 helper.make_node("Unsqueeze", ["dim"], ["dim_1d"], name="unsqueeze", axes=[0]) if opset < 13 else
                 helper.make_node("Unsqueeze", ["dim", "axes"], ["dim_1d"], name="unsqueeze"),
                 helper.make_node("Concat", ["dim_1d", "rest"], ["target"], name="concat", axis=0),
                 helper.make_node("Reshape", ["x", "target"], ["y"], name="reshape")]
        rest = [12, 1] if extra_constant else [12]
        output = float_input("y", ["N", 12] if not extra_constant else ["M", 12, 1])
        return make_model(parts, [float_input("x", ["N", 3, 4])], [output],
                          [ints("i", index), ints("rest", rest), ints("axes", [0])], opset=opset)

    def test_reshape_target_of_the_inputs_own_dims(self):
        # The batch N taken at the place it lands: 0, "the input's dim there".
        model = self.reshape_chain(0, False)
        simplified, report = self.simplify(model, "--simplify=shapes")
        self.assertEqual(node_names(simplified), ["reshape"])
        target = simplified.graph.node[0].input[1]
        np.testing.assert_array_equal(initializers_of(simplified)[target], [0, 12])
        # N stays symbolic: nothing of x's size was frozen.
        self.assertEqual(simplified.graph.input[0].type.tensor_type.shape.dim[0].dim_param, "N")
        self.assertEqual(report["verdict"], "proven")
        self.assert_runs_equal(model, simplified, {"x": np.arange(24, dtype=np.float32).reshape(2, 3, 4)})

    def test_reshape_target_with_one_dim_elsewhere(self):
        # x.size(1) put first is no dim of x at its place: the one computed part is -1.
        model = self.reshape_chain(1, True)
        simplified, report = self.simplify(model, "--simplify=shapes")
        self.assertEqual(node_names(simplified), ["reshape"])
        np.testing.assert_array_equal(initializers_of(simplified)[simplified.graph.node[0].input[1]], [-1, 12, 1])
        self.assert_runs_equal(model, simplified, {"x": np.arange(36, dtype=np.float32).reshape(3, 3, 4)})

    def test_reshape_target_kept_with_allowzero_or_two_unknowns(self):
        # Two parts computed elsewhere: two -1 would not be a shape.
        model = self.reshape_chain(1, True)
        model.graph.node[3].input[:] = ["dim_1d", "rest", "dim_1d"]
        model.graph.output[0].type.tensor_type.shape.dim.add().dim_param = "K"
        simplified, report = self.simplify(model, "--simplify=shapes")
        self.assertIn("concat", node_names(simplified))
        # With allowzero a 0 would be a 0.
        allowzero = self.reshape_chain(0, False, opset=14)
        allowzero.graph.node[-1].attribute.append(helper.make_attribute("allowzero", 1))
        simplified, report = self.simplify(allowzero, "--simplify=shapes")
        self.assertIn("concat", node_names(simplified))
        self.assertEqual(self.pass_of(report, "shapes")["nodes_removed"], 0)


if __name__ == "__main__":
    unittest.main()
