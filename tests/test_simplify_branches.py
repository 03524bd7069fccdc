#!/usr/bin/python3
"""onyx-cli edit --simplify=branches: an If whose condition is a constant is replaced by
the branch it takes, its names kept unless they clash, its outputs' names kept."""
import copy
import os
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import onyx_test
from onyx_test import data
from simplify_test import SimplifyCase, float_input, make_model, save


def bool_tensor(name, value):
    return numpy_helper.from_array(np.array(value, dtype=np.bool_), name)


def floats(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.float32), name)


def branch(name, nodes, outputs, initializers=()):
    return helper.make_graph(nodes, name, [], [float_input(o, [2]) for o in outputs], list(initializers))


def if_node(name, cond, outputs, then_branch, else_branch):
    return helper.make_node("If", [cond], outputs, name=name, then_branch=then_branch, else_branch=else_branch)


def node_names(graph):
    return [n.name for n in graph.node]


def subgraph(node, attribute):
    return [a.g for a in node.attribute if a.name == attribute][0]


class ConstantConditions(SimplifyCase):
    def test_control_if_takes_either_branch(self):
        expected = {True: ["/conv/Conv", "/Relu"], False: ["/Sigmoid", "/Constant_1", "/Mul"]}
        original = onnx.load(data("control_if.onnx"))
        x = np.random.default_rng(0).standard_normal((1, 3, 8, 8)).astype(np.float32)
        for cond, names in expected.items():
            model = copy.deepcopy(original)
            model.graph.initializer.append(bool_tensor("fixed_cond", cond))
            [node for node in model.graph.node if node.op_type == "If"][0].input[0] = "fixed_cond"
            simplified, report = self.simplify(model, "--simplify=branches")
            counts = self.pass_of(report, "branches")
            # Counted over every graph: the If and the nodes of both its branches go,
            # copies of the taken branch's come.
            self.assertEqual(counts["nodes_removed"], 1 + 2 + 3)
            self.assertEqual(counts["nodes_added"], len(names))
            # The condition's own nodes went with Clean Up.
            self.assertEqual(node_names(simplified.graph), names)
            self.assertEqual(simplified.graph.node[-1].output[0], "y")
            self.assertEqual([o.name for o in simplified.graph.output], ["y"])
            self.assertEqual(report["verdict"], "proven")
            self.assert_runs_equal(model, simplified, {"x": x})

    def test_outer_names_initializers_and_graph_outputs(self):
        then_branch = branch("then", [helper.make_node("Mul", ["x", "bias"], ["made"], name="scale")],
                             ["h", "bias", "made", "h"], [floats("bias", [0.5, 2.0])])
        else_branch = branch("else", [helper.make_node("Neg", ["x"], ["negated"], name="negate")],
                             ["x", "negated", "negated", "x"])
        model = make_model([helper.make_node("Relu", ["x"], ["h"], name="relu"),
                            if_node("choose", "always", ["from_outer", "from_initializer", "made_output",
                                                         "outer_output"], then_branch, else_branch),
                            helper.make_node("Add", ["from_outer", "x"], ["a"], name="use_outer"),
                            helper.make_node("Add", ["from_initializer", "x"], ["b"], name="use_initializer")],
                           [float_input("x", [2])],
                           [float_input("a", [2]), float_input("b", [2]), float_input("made_output", [2]),
                            float_input("outer_output", [2])],
                           [bool_tensor("always", True)])
        simplified, report = self.simplify(model, "--simplify=branches")
        counts = self.pass_of(report, "branches")
        self.assertEqual((counts["nodes_removed"], counts["nodes_added"]), (1 + 1 + 1, 1 + 1))
        graph = simplified.graph
        self.assertEqual(node_names(graph), ["relu", "scale", "choose", "use_outer", "use_initializer"])
        nodes = {n.name: n for n in graph.node}
        # The branch's node writes the If's output; an outer name is read in its place;
        # a graph output made of an outer name keeps its name through an Identity
        # named as the If.
        self.assertEqual(list(nodes["scale"].output), ["made_output"])
        self.assertEqual(list(nodes["use_outer"].input), ["h", "x"])
        self.assertEqual(list(nodes["use_initializer"].input), ["bias", "x"])
        self.assertEqual((nodes["choose"].op_type, list(nodes["choose"].input), list(nodes["choose"].output)),
                         ("Identity", ["h"], ["outer_output"]))
        self.assertIn("bias", [t.name for t in graph.initializer])
        self.assertEqual([o.name for o in graph.output], ["a", "b", "made_output", "outer_output"])
        # ONNX Runtime refuses a branch returning an outer name directly (valid ONNX):
        # the simplified model's outputs are checked against what the branch computes.
        x = np.array([-1.0, 3.0], dtype=np.float32)
        bias = np.array([0.5, 2.0], dtype=np.float32)
        outputs = onyx_test.run_onnxruntime_feeds(save(simplified, os.path.join(self.tmp, "b.onnx")), {"x": x},
                                                  self.tmp)
        expected = {"a": np.maximum(x, 0) + x, "b": bias + x, "made_output": x * bias,
                    "outer_output": np.maximum(x, 0)}
        self.assertEqual(sorted(outputs), sorted(expected))
        for name, value in expected.items():
            np.testing.assert_allclose(outputs[name], value)

    def test_clashing_names_are_renamed_consistently(self):
        taken = branch("taken", [helper.make_node("Add", ["doubled", "one"], ["t"], name="add"),
                                 helper.make_node("Mul", ["t", "t"], ["squared"], name="mul")],
                       ["squared"], [floats("one", [1.0, 1.0])])
        not_taken = branch("not_taken", [helper.make_node("Identity", ["doubled"], ["same"], name="same_node")],
                           ["same"])
        # A sibling branch defines `t` too, and the graph has an initializer `one`.
        dynamic_then = branch("dynamic_then", [helper.make_node("Add", ["fixed", "one"], ["t"], name="dynamic_add")],
                              ["t"])
        dynamic_else = branch("dynamic_else", [helper.make_node("Neg", ["fixed"], ["e"], name="dynamic_neg")], ["e"])
        model = make_model([helper.make_node("Add", ["x", "x"], ["doubled"], name="add"),
                            if_node("fixed_if", "always", ["fixed"], taken, not_taken),
                            if_node("dynamic_if", "c", ["y"], dynamic_then, dynamic_else)],
                           [float_input("x", [2]), helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
                           [float_input("y", [2])],
                           [bool_tensor("always", True), floats("one", [3.0, 4.0])])
        simplified, report = self.simplify(model, "--simplify=branches")
        counts = self.pass_of(report, "branches")
        self.assertEqual((counts["nodes_removed"], counts["nodes_added"]), (1 + 2 + 1, 2))
        graph = simplified.graph
        self.assertEqual(node_names(graph), ["add", "add_1", "mul", "dynamic_if"])
        nodes = {n.name: n for n in graph.node}
        self.assertEqual((list(nodes["add_1"].input), list(nodes["add_1"].output)), (["doubled", "one_1"], ["t_1"]))
        self.assertEqual((list(nodes["mul"].input), list(nodes["mul"].output)), (["t_1", "t_1"], ["fixed"]))
        values = {t.name: numpy_helper.to_array(t).tolist() for t in graph.initializer}
        self.assertEqual((values["one"], values["one_1"]), ([3.0, 4.0], [1.0, 1.0]))
        # The sibling branch still defines and reads its own names.
        self.assertEqual(node_names(subgraph(nodes["dynamic_if"], "then_branch")), ["dynamic_add"])
        self.assertEqual(list(subgraph(nodes["dynamic_if"], "then_branch").node[0].input), ["fixed", "one"])
        for cond in (True, False):
            self.assert_runs_equal(model, simplified, {"x": np.array([1.0, 2.0], dtype=np.float32),
                                                       "c": np.array(cond)})

    def test_nested_if_is_taken_in_the_next_round(self):
        inner_then = branch("inner_then", [helper.make_node("Neg", ["x"], ["inner_negated"], name="inner_neg")],
                            ["inner_negated"])
        inner_else = branch("inner_else", [helper.make_node("Sigmoid", ["x"], ["inner_sigmoid"], name="inner_sig")],
                            ["inner_sigmoid"])
        outer_then = branch("outer_then",
                            [helper.make_node("Constant", [], ["never"], name="never_node",
                                              value=bool_tensor("never", False)),
                             if_node("inner_if", "never", ["inner_out"], inner_then, inner_else),
                             helper.make_node("Relu", ["inner_out"], ["outer_relu"], name="outer_relu_node")],
                            ["outer_relu"])
        outer_else = branch("outer_else", [helper.make_node("Identity", ["x"], ["outer_same"], name="outer_id")],
                            ["outer_same"])
        model = make_model([if_node("outer_if", "always", ["y"], outer_then, outer_else)],
                           [float_input("x", [2])], [float_input("y", [2])], [bool_tensor("always", True)])
        simplified, report = self.simplify(model, "--simplify=branches")
        counts = self.pass_of(report, "branches")
        # The outer If with its 3 + 2 + 1 nodes, then the copy of the inner one with its 2.
        self.assertEqual((counts["nodes_removed"], counts["nodes_added"]), (7 + 3, 5 + 1))
        self.assertGreaterEqual(report["rounds"], 2)
        self.assertEqual(node_names(simplified.graph), ["inner_sig", "outer_relu_node"])
        self.assertEqual(list(simplified.graph.node[0].output), ["inner_out"])
        self.assertEqual(list(simplified.graph.node[1].output), ["y"])
        self.assert_runs_equal(model, simplified, {"x": np.array([-1.0, 2.0], dtype=np.float32)})

    def test_if_in_a_loop_body(self):
        then_branch = branch("then", [helper.make_node("Add", ["acc", "x"], ["added"], name="loop_add")], ["added"])
        else_branch = branch("else", [helper.make_node("Sub", ["acc", "x"], ["subbed"], name="loop_sub")], ["subbed"])
        body = helper.make_graph(
            [helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep_going"),
             if_node("body_if", "always", ["acc_out"], then_branch, else_branch)],
            "body",
            [helper.make_tensor_value_info("i", TensorProto.INT64, []),
             helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []), float_input("acc", [2])],
            [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []), float_input("acc_out", [2])],
            [bool_tensor("always", True)])
        model = make_model([helper.make_node("Loop", ["trips", "", "start"], ["total"], name="loop", body=body)],
                           [float_input("x", [2]), float_input("start", [2])], [float_input("total", [2])],
                           [numpy_helper.from_array(np.array(3, dtype=np.int64), "trips")])
        simplified, report = self.simplify(model, "--simplify=branches")
        counts = self.pass_of(report, "branches")
        self.assertEqual((counts["nodes_removed"], counts["nodes_added"]), (1 + 1 + 1, 1))
        self.assertEqual(node_names(simplified.graph), ["loop"])
        new_body = subgraph(simplified.graph.node[0], "body")
        self.assertEqual(node_names(new_body), ["keep_going", "loop_add"])
        self.assertEqual(list(new_body.node[1].output), ["acc_out"])
        self.assert_runs_equal(model, simplified, {"x": np.array([1.0, 2.0], dtype=np.float32),
                                                   "start": np.array([0.5, 0.5], dtype=np.float32)})

    def test_conditions_that_are_inputs_stay(self):
        """A condition fed by the caller (Silero VAD's sample rate), even with a
        default initializer (IR 4 and later), is no constant."""
        then_branch = branch("then", [helper.make_node("Neg", ["x"], ["negated"], name="neg")], ["negated"])
        else_branch = branch("else", [helper.make_node("Relu", ["x"], ["rectified"], name="relu")], ["rectified"])
        model = make_model([if_node("by_input", "c", ["y"], then_branch, else_branch),
                            if_node("by_default", "d", ["z"], copy.deepcopy(then_branch), copy.deepcopy(else_branch))],
                           [float_input("x", [2]), helper.make_tensor_value_info("c", TensorProto.BOOL, []),
                            helper.make_tensor_value_info("d", TensorProto.BOOL, [])],
                           [float_input("y", [2]), float_input("z", [2])], [bool_tensor("d", True)])
        simplified, report = self.simplify(model, "--simplify=branches")
        self.assertEqual(self.pass_of(report, "branches")["nodes_removed"], 0)
        self.assertEqual(report["verdict"], "unchanged")
        self.assertEqual(node_names(simplified.graph), ["by_input", "by_default"])


    def test_condition_of_a_fixed_input_folds_first(self):
        """Silero VAD's If on its sample rate: a graph input (with a default) keeps the
        If; once the input is fixed, constant folding makes the condition and the next
        round takes the branch."""
        then_branch = branch("then", [helper.make_node("Mul", ["x", "two"], ["at_16k"], name="at_16k_node")],
                             ["at_16k"], [floats("two", [2.0, 2.0])])
        else_branch = branch("else", [helper.make_node("Mul", ["x", "half"], ["at_8k"], name="at_8k_node")],
                             ["at_8k"], [floats("half", [0.5, 0.5])])
        model = make_model([helper.make_node("Equal", ["sr", "rate_16k"], ["is_16k"], name="is_16k_node"),
                            if_node("by_rate", "is_16k", ["y"], then_branch, else_branch)],
                           [float_input("x", [2]), helper.make_tensor_value_info("sr", TensorProto.INT64, [])],
                           [float_input("y", [2])],
                           [numpy_helper.from_array(np.array(16000, dtype=np.int64), "sr"),
                            numpy_helper.from_array(np.array(16000, dtype=np.int64), "rate_16k")])
        simplified, report = self.simplify(model, "--simplify")
        self.assertEqual(self.pass_of(report, "branches")["nodes_removed"], 0)
        self.assertEqual(node_names(simplified.graph), ["is_16k_node", "by_rate"])

        simplified, report = self.simplify(model, "--remove-input", "sr", "--simplify")
        self.assertEqual(self.pass_of(report, "fold")["nodes_removed"], 1)
        self.assertEqual(self.pass_of(report, "branches")["nodes_removed"], 1 + 1 + 1)
        self.assertEqual(node_names(simplified.graph), ["at_16k_node"])
        self.assertEqual(list(simplified.graph.node[0].output), ["y"])
        self.assertEqual(report["verdict"], "proven")
        x = np.array([1.0, -3.0], dtype=np.float32)
        self.assert_runs_equal(model, simplified, {"x": x, "sr": np.array(16000, dtype=np.int64)})

if __name__ == "__main__":
    unittest.main()
