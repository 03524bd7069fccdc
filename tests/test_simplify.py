#!/usr/bin/python3
"""onyx-cli edit --simplify: Constant nodes to initializers, constant folding, what
every pass shares (bad pass names, nothing to do)."""
import unittest

import numpy as np
from onnx import helper, numpy_helper

from simplify_test import SimplifyCase, constant, float_input, make_model


class Simplify(SimplifyCase):
    def test_constants_become_initializers_of_the_same_name(self):
        scale = np.array([2.0, 3.0], dtype=np.float32)
        model = make_model([constant("scale", scale),
                            helper.make_node("Constant", [], ["offset"], name="offset_node", value_float=0.5),
                            helper.make_node("Mul", ["x", "scale"], ["y"], name="mul"),
                            helper.make_node("Add", ["y", "offset"], ["z"], name="add")],
                           [float_input("x", [2])], [float_input("z", [2])])
        simplified, report = self.simplify(model, "--simplify=constants")
        self.assertEqual(self.pass_of(report, "constants")["nodes_removed"], 2)
        self.assertEqual(self.pass_of(report, "constants")["initializers_added"], 2)
        self.assertEqual([n.name for n in simplified.graph.node], ["mul", "add"])
        values = {t.name: numpy_helper.to_array(t) for t in simplified.graph.initializer}
        np.testing.assert_array_equal(values["scale"], scale)
        self.assertEqual(values["offset"].shape, ())
        self.assertEqual(report["verdict"], "proven")
        self.assert_runs_equal(model, simplified, {"x": np.array([1.0, -1.0], dtype=np.float32)})

    def test_constant_subgraphs_fold_and_large_results_stay(self):
        shape = np.array([2, 3], dtype=np.int64)
        big = np.array([512, 1024], dtype=np.int64)
        model = make_model([constant("shape", shape),
                            constant("big_shape", big),
                            # Folded: ones of 2×3, doubled: both become one initializer.
                            helper.make_node("ConstantOfShape", ["shape"], ["ones"], name="ones_node",
                                             value=numpy_helper.from_array(np.array([1.0], dtype=np.float32))),
                            helper.make_node("Add", ["ones", "ones"], ["twos"], name="double"),
                            helper.make_node("Mul", ["x", "twos"], ["y"], name="mul"),
                            # 2 MiB of zeros from 16 bytes: stays a node.
                            helper.make_node("ConstantOfShape", ["big_shape"], ["zeros"], name="zeros_node",
                                             value=numpy_helper.from_array(np.array([0.0], dtype=np.float32))),
                            helper.make_node("ReduceSum", ["zeros"], ["zero_sum"], name="sum", keepdims=0),
                            helper.make_node("Add", ["b", "zeros"], ["z"], name="add")],
                           [float_input("x", [2, 3]), float_input("b", [512, 1024])],
                           [float_input("y", [2, 3]), float_input("z", [512, 1024]), float_input("zero_sum", [])])
        simplified, report = self.simplify(model, "--simplify=constants,fold")
        left = [n.name for n in simplified.graph.node]
        self.assertEqual(left, ["mul", "zeros_node", "sum", "add"])
        self.assertGreaterEqual(self.pass_of(report, "fold")["nodes_removed"], 2)
        twos = [t for t in simplified.graph.initializer if t.name == "twos"][0]
        np.testing.assert_array_equal(numpy_helper.to_array(twos), np.full((2, 3), 2.0, dtype=np.float32))
        self.assertEqual(report["verdict"], "proven")
        self.assert_runs_equal(model, simplified, {"x": np.arange(6, dtype=np.float32).reshape(2, 3),
                                                   "b": np.ones((512, 1024), dtype=np.float32)})

    def test_identity_of_a_weight_is_the_weight(self):
        weight = numpy_helper.from_array(np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32), "w")
        model = make_model([helper.make_node("Identity", ["w"], ["w_shared"], name="share"),
                            helper.make_node("MatMul", ["x", "w"], ["y"], name="first"),
                            helper.make_node("MatMul", ["y", "w_shared"], ["z"], name="second")],
                           [float_input("x", [1, 2])], [float_input("z", [1, 2])], [weight])
        simplified, report = self.simplify(model, "--simplify=fold")
        self.assertEqual([n.name for n in simplified.graph.node], ["first", "second"])
        self.assertEqual(list(simplified.graph.node[1].input), ["y", "w"])
        # No copy of the weight.
        self.assertEqual([t.name for t in simplified.graph.initializer], ["w"])
        self.assert_runs_equal(model, simplified, {"x": np.array([[1.0, -1.0]], dtype=np.float32)})

    def test_unknown_pass_is_bad_usage(self):
        model = make_model([helper.make_node("Relu", ["x"], ["y"])], [float_input("x", [1])], [float_input("y", [1])])
        _, run = self.simplify(model, "--simplify=fold,squash", expect=1)
        self.assertIn("no Simplify pass is named 'squash'", run.stderr)

    def test_nothing_to_simplify_writes_the_model_unchanged(self):
        model = make_model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [float_input("x", [1])],
                           [float_input("y", [1])])
        simplified, report = self.simplify(model, "--simplify")
        self.assertEqual(report["verdict"], "unchanged")
        self.assertEqual(report["nodes_before"], report["nodes_after"])
        self.assertEqual([n.name for n in simplified.graph.node], ["relu"])


if __name__ == "__main__":
    unittest.main()
