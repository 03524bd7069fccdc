#!/usr/bin/python3
"""onyx-cli check's diagnostics (operator schemas, types, uses): the walkthrough models,
hand-broken variants of them (one defect each, found on the right node and nothing
else), and Debian's libonnx-testdata with no error that python3-onnx's checker does
not share."""
import copy
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

import valid_models
from onyx_test import library

CLI = os.environ["ONYX_CLI"]
DATA = os.environ["ONYX_TEST_DATA"]
TESTDATA = os.environ.get("ONYX_TESTDATA_DIR", "/usr/share/libonnx-testdata/data")


def check(path):
    run = subprocess.run([CLI, "check", path, "--json"], capture_output=True, text=True, timeout=120)
    if run.returncode not in (0, 1):
        raise AssertionError("onyx-cli check %s: exit %d: %s" % (path, run.returncode, run.stderr))
    report = json.loads(run.stdout)
    # Exit status 1 exactly when there are errors.
    assert (run.returncode == 1) == (report["errors"] > 0), (path, run.returncode, report)
    return report


def problems(report):
    return sorted((p["kind"], p["severity"], p["node"], p["tensor"]) for p in report["problems"])


class Walkthrough(unittest.TestCase):
    def test_clean_exports(self):
        for name in ("model.onnx", "model_scripted.onnx"):
            report = check(os.path.join(DATA, name))
            self.assertEqual(report["problems"], [], name)
            self.assertEqual(report["dynamic_dims"], [{"name": "N", "tensors": ["input", "output"]}])

    def test_custom_op_is_the_only_finding(self):
        report = check(os.path.join(DATA, "model_foo.onnx"))
        self.assertEqual(problems(report), [("custom-op", "warning", "/FooOp", None)])
        self.assertIn("devtech::FooOp", report["problems"][0]["message"])
        self.assertEqual(report["errors"], 0)
        text = subprocess.run([CLI, "check", os.path.join(DATA, "model_foo.onnx")],
                              capture_output=True, text=True)
        self.assertEqual(text.returncode, 0)
        self.assertIn("warning: main graph: /FooOp uses the custom operator devtech::FooOp", text.stdout)
        self.assertIn("0 errors, 1 warning", text.stdout)


FIRST_CONV = "/model/model.0/Conv"
FIRST_RELU = "/model/model.2/Relu"
SECOND_CONV = "/model/model.3/Conv"
LAST_RELU = "/model/model.5/Relu"


def node(model, name):
    return next(n for n in model.graph.node if n.name == name)


def set_attribute(target, attribute):
    kept = [a for a in target.attribute if a.name != attribute.name]
    del target.attribute[:]
    target.attribute.extend(kept + [attribute])


class Broken(unittest.TestCase):
    """Each variant of model.onnx has one defect; exactly that is reported."""

    def variant(self, change):
        model = onnx.load(os.path.join(DATA, "model.onnx"))
        change(model)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "broken.onnx")
            onnx.save(model, path)
            report = check(path)
        # An error is what python3-onnx's full checker rejects too.
        if report["errors"] > 0:
            with self.assertRaises(Exception, msg=report["problems"]):
                onnx.checker.check_model(model, full_check=True)
        return report

    def assert_only(self, report, kind, severity, node_name=None, tensor=None, text=None):
        self.assertEqual(problems(report), [(kind, severity, node_name, tensor)],
                         [p["message"] for p in report["problems"]])
        if text is not None:
            self.assertIn(text, report["problems"][0]["message"])

    def assert_then_inference(self, report, kind, severity, node_name, tensor, text, inference_node):
        """The finding, and ONNX's shape inference failing downstream, where the
        file's recorded value_info no longer matches what the change makes."""
        self.assertEqual(problems(report), sorted([(kind, severity, node_name, tensor),
                                                   ("shape-inference", "error", inference_node, None)]),
                         [p["message"] for p in report["problems"]])
        self.assertIn(text, [p for p in report["problems"] if p["kind"] == kind][0]["message"])

    def test_wrong_input_count(self):
        report = self.variant(lambda m: node(m, FIRST_RELU).input.append("input"))
        self.assert_only(report, "input-count", "error", FIRST_RELU, text="has 2 inputs, but Relu takes 1")

    def test_wrong_output_count(self):
        report = self.variant(lambda m: node(m, FIRST_RELU).output.append("extra"))
        self.assert_only(report, "output-count", "error", FIRST_RELU)

    def test_unknown_attribute(self):
        report = self.variant(lambda m: node(m, SECOND_CONV).attribute.append(
            helper.make_attribute("dilation", [1, 1])))
        self.assert_only(report, "unknown-attribute", "error", SECOND_CONV, text="'dilation'")

    def test_wrong_attribute_type(self):
        report = self.variant(lambda m: set_attribute(node(m, SECOND_CONV),
                                                      helper.make_attribute("group", 1.0)))
        self.assert_only(report, "attribute-type", "error", SECOND_CONV,
                         text="attribute 'group' of /model/model.3/Conv is FLOAT, but Conv expects INT")

    def test_missing_required_attribute(self):
        # Concat of one input is fine, but only with its required `axis`.
        def change(m):
            node(m, LAST_RELU).op_type = "Concat"
        self.assert_only(self.variant(change), "missing-attribute", "error", LAST_RELU, text="'axis'")

    def test_op_too_new_for_opset(self):
        # HardSwish arrived in opset 14; the model imports 13.
        def change(m):
            node(m, FIRST_RELU).op_type = "HardSwish"
        self.assert_only(self.variant(change), "op-not-in-opset", "error", FIRST_RELU,
                         text="exists from opset 14 of ai.onnx on, but the model imports opset 13")

    def test_op_removed_from_opset(self):
        # Upsample was deprecated in opset 10 (Resize took its place).
        def change(m):
            target = node(m, FIRST_RELU)
            target.op_type = "Upsample"
            target.input.append("scales")
            m.graph.initializer.append(numpy_helper.from_array(
                np.array([1, 1, 2, 2], dtype=np.float32), "scales"))
        # ONNX's inference passes over a node that does not match its schema.
        self.assert_only(self.variant(change), "op-not-in-opset", "error", FIRST_RELU,
                         text="was removed in opset 10")

    def test_unknown_standard_op(self):
        def change(m):
            node(m, FIRST_RELU).op_type = "Rleu"
        self.assert_only(self.variant(change), "unknown-op", "error", FIRST_RELU,
                         text="Rleu is not an operator of ai.onnx")

    def test_type_conflict_between_inputs(self):
        # The bias stored as float64 while X and W are float32: Conv's T binds all three.
        def change(m):
            bias = next(t for t in m.graph.initializer if t.name == "onnx::Conv_23")
            array = numpy_helper.to_array(bias).astype(np.float64)
            bias.CopyFrom(numpy_helper.from_array(array, "onnx::Conv_23"))
        report = self.variant(change)
        self.assert_only(report, "type-conflict", "error", FIRST_CONV, "onnx::Conv_23",
                         text="must have the same type T")
        self.assertIn("tensor(double)", report["problems"][0]["message"])

    def test_type_not_allowed(self):
        # int64 weights: Conv's T allows only floating point types.
        def change(m):
            for t in m.graph.initializer:
                if t.name in ("onnx::Conv_25", "onnx::Conv_26"):
                    array = numpy_helper.to_array(t).astype(np.int64)
                    t.CopyFrom(numpy_helper.from_array(array, t.name))
        report = self.variant(change)
        # W is not allowed; B then has nothing valid left to agree with, so it is
        # reported on its own.
        self.assertEqual({f[:3] for f in problems(report)}, {("type-conflict", "error", SECOND_CONV)})
        self.assertIn("allows only tensor(double), tensor(float), tensor(float16)",
                      report["problems"][0]["message"])

    def test_value_info_conflicts_with_producer(self):
        def change(m):
            m.graph.value_info.append(helper.make_tensor_value_info(
                "/model/model.2/Relu_output_0", TensorProto.DOUBLE, None))
        report = self.variant(change)
        # Reported once, at the producer, not again at the Conv that reads it. Newer
        # ONNX releases carry the declared double on and fail at the last Relu too.
        if library_opset() > 17:
            report["problems"] = [p for p in report["problems"]
                                  if (p["kind"], p["node"]) != ("shape-inference", LAST_RELU)]
        self.assert_only(report, "type-conflict", "error", FIRST_RELU, "/model/model.2/Relu_output_0",
                         text="is declared tensor(double), but Relu makes it tensor(float)")

    def test_type_followed_through_the_graph(self):
        # A Cast to int64 in front of the second Conv: the conflict shows at the Conv,
        # known only by following Cast's `to` through.
        def change(m):
            cast = helper.make_node("Cast", ["/model/model.2/Relu_output_0"], ["as_int"], name="cast",
                                    to=TensorProto.INT64)
            conv = node(m, SECOND_CONV)
            conv.input[0] = "as_int"
            nodes = list(m.graph.node)
            nodes.insert(2, cast)
            del m.graph.node[:]
            m.graph.node.extend(nodes)
        report = self.variant(change)
        self.assert_then_inference(report, "type-conflict", "error", SECOND_CONV, "as_int",
                                   "input X 'as_int' of /model/model.3/Conv is tensor(int64)",
                                   "/model/model.5/Relu")

    def test_unused_initializer(self):
        def change(m):
            m.graph.initializer.append(numpy_helper.from_array(np.zeros(3, np.float32), "leftover"))
        self.assert_only(self.variant(change), "unused-initializer", "warning", None, "leftover")

    def test_dead_node(self):
        def change(m):
            m.graph.node.append(helper.make_node("Neg", ["input"], ["nowhere"], name="dead"))
        self.assert_only(self.variant(change), "dead-node", "warning", "dead")

    def test_dead_chain_each_node(self):
        def change(m):
            m.graph.node.append(helper.make_node("Neg", ["input"], ["a"], name="dead_a"))
            m.graph.node.append(helper.make_node("Abs", ["a"], ["b"], name="dead_b"))
        report = self.variant(change)
        self.assertEqual(problems(report), [("dead-node", "warning", "dead_a", None),
                                            ("dead-node", "warning", "dead_b", None)])

    def test_initializers_listed_as_inputs(self):
        def change(m):
            for t in m.graph.initializer:
                m.graph.input.append(helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)))
        report = self.variant(change)
        self.assert_only(report, "initializer-input", "info", None, "onnx::Conv_22",
                         text="4 initializers are also listed as graph inputs")
        self.assertEqual(report["errors"], 0)

    def test_input_without_shape(self):
        def change(m):
            m.graph.input[0].type.tensor_type.ClearField("shape")
        self.assert_only(self.variant(change), "no-shape", "warning", None, "input")

    def test_mistyped_dynamic_dim(self):
        def change(m):
            m.graph.output[0].type.tensor_type.shape.dim[0].dim_param = "n"
        report = self.variant(change)
        self.assert_only(report, "dim-name", "warning", None, "output", text="'n' of 'output'")
        self.assertEqual(report["dynamic_dims"], [{"name": "N", "tensors": ["input"]},
                                                  {"name": "n", "tensors": ["output"]}])

    def test_different_dim_names_are_fine(self):
        def change(m):
            m.graph.output[0].type.tensor_type.shape.dim[0].dim_param = "batch_size"
            m.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "batch"
        self.assertEqual(self.variant(change)["problems"], [])

    def test_opset_newer_than_the_library_is_one_info(self):
        # An op the library does not know, in an opset newer than it: maybe real, and
        # any schema may have changed since, so nothing is said of the node.
        def change(m):
            m.opset_import[0].version = 99
            node(m, FIRST_RELU).op_type = "FutureOp"
        report = self.variant(change)
        self.assert_only(report, "newer-opset", "info", text="ai.onnx opset 99 is newer than ONNX")

    def test_subgraph_nodes_checked(self):
        # An If whose then-branch holds a Relu with an unknown attribute.
        def change(m):
            relu = node(m, LAST_RELU)
            then_branch = helper.make_graph(
                [helper.make_node("Relu", [relu.input[0]], ["t"], name="inner", alpha=1.0)], "then", [],
                [helper.make_tensor_value_info("t", TensorProto.FLOAT, None)])
            else_branch = helper.make_graph(
                [helper.make_node("Neg", [relu.input[0]], ["e"], name="inner_else")], "else", [],
                [helper.make_tensor_value_info("e", TensorProto.FLOAT, None)])
            m.graph.initializer.append(numpy_helper.from_array(np.array(True), "flag"))
            branch = helper.make_node("If", ["flag"], ["output"], name="branch",
                                      then_branch=then_branch, else_branch=else_branch)
            nodes = [n for n in m.graph.node if n.name != LAST_RELU] + [branch]
            del m.graph.node[:]
            m.graph.node.extend(nodes)
        report = self.variant(change)
        self.assert_only(report, "unknown-attribute", "error", "inner")
        self.assertEqual(report["problems"][0]["graph"], "branch:then_branch")


class OneLine(unittest.TestCase):
    """libonnx's messages run over several lines ("...\\n\\n==> Context: Bad node spec"):
    what reaches the user is their first line, with no newline and no escaped one."""

    def test_checker_message_is_one_line(self):
        model = onnx.load(os.path.join(DATA, "model.onnx"))
        node(model, FIRST_RELU).attribute.append(helper.make_attribute("foo", 3))
        # The case only tests something while the checker does say it on several lines.
        with self.assertRaises(Exception) as raised:
            onnx.checker.check_model(model)
        self.assertIn("\n", str(raised.exception))
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "attr.onnx")
            onnx.save(model, path)
            text = subprocess.run([CLI, "check", "--full", path], capture_output=True, text=True, timeout=120)
            report = subprocess.run([CLI, "check", "--full", "--json", path], capture_output=True, text=True,
                                    timeout=120)
        checker = [line for line in text.stdout.splitlines() if "onnx.checker:" in line]
        self.assertEqual(len(checker), 1, text.stdout)
        self.assertIn("Unrecognized attribute: foo for operator Relu", checker[0])
        self.assertNotIn("Context", text.stdout)
        self.assertNotIn("\\x0a", text.stdout + report.stdout)
        messages = [p["message"] for p in json.loads(report.stdout)["problems"]]
        self.assertIn("onnx-checker", [p["kind"] for p in json.loads(report.stdout)["problems"]])
        for message in messages:
            self.assertNotIn("\n", message)
            self.assertNotIn("\\x0a", message)


class LocalFunctions(unittest.TestCase):
    def test_function_call_is_not_a_custom_op(self):
        """A node calling a function of the model runs anywhere (runtimes inline it);
        the function's body is checked against its own opset imports."""
        body = [helper.make_node("Relu", ["x"], ["r"]),
                helper.make_node("Neg", ["r"], ["y"], bogus=1)]
        function = helper.make_function("local", "ReluNeg", ["x"], ["y"], body,
                                        [helper.make_opsetid("", 13)])
        graph = helper.make_graph([helper.make_node("ReluNeg", ["in"], ["out"], name="call", domain="local")],
                                  "g", [helper.make_tensor_value_info("in", TensorProto.FLOAT, [2])],
                                  [helper.make_tensor_value_info("out", TensorProto.FLOAT, [2])])
        model = helper.make_model(graph, functions=[function],
                                  opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("local", 1)])
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "functions.onnx")
            onnx.save(model, path)
            report = check(path)
        self.assertEqual([(p["kind"], p["graph"], p["node_index"]) for p in report["problems"]],
                         [("unknown-attribute", "function local::ReluNeg", 1)])


class Domains(unittest.TestCase):
    """ONNX Runtime's contrib domain is told apart from custom ones, and an import no
    node uses is unused, not a custom operator in use."""

    def save(self, tmp, nodes, opsets):
        graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])
        path = os.path.join(tmp, "m.onnx")
        onnx.save(model, path)
        return path

    def info(self, path):
        run = subprocess.run([CLI, "info", path, "--json"], capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 0, run.stderr)
        text = subprocess.run([CLI, "info", path], capture_output=True, text=True, timeout=60).stdout
        return json.loads(run.stdout), text

    def test_onnxruntime_contrib_operator(self):
        """ONNX Runtime's operators are said once for the model, not once per node, and
        checked against their schemas as ONNX's are."""
        with tempfile.TemporaryDirectory() as tmp:
            path = self.save(tmp, [helper.make_node("FastGelu", ["x"], ["g"], domain="com.microsoft"),
                                   helper.make_node("FastGelu", ["g"], ["y"], domain="com.microsoft")],
                             [("", 17), ("com.microsoft", 1)])
            problems = check(path)["problems"]
            self.assertEqual([(p["kind"], p["severity"]) for p in problems], [("onnxruntime", "info")])
            self.assertEqual(problems[0]["message"], "uses 1 operator of ONNX Runtime in 2 nodes (FastGelu): "
                                                     "the model runs on ONNX Runtime")
            report, text = self.info(path)
            self.assertEqual(report["custom_domains"], ["com.microsoft"])
            self.assertIn("Custom domain: com.microsoft (ONNX Runtime's contrib operators: runs on ONNX "
                          "Runtime only)", text)
            # A MatMulNBits without K (required) is an error, as ONNX Runtime says too.
            nodes = [helper.make_node("MatMulNBits", ["x", "b", "s"], ["y"], name="mm", domain="com.microsoft",
                                      N=4, bits=4, block_size=32)]
            path = self.save(tmp, nodes, [("", 17), ("com.microsoft", 1)])
            kinds = [(p["kind"], p["severity"], p["node"]) for p in check(path)["problems"]]
            self.assertIn(("missing-attribute", "error", "mm"), kinds)
            # An operator ONNX Runtime's documentation does not list stays a warning.
            path = self.save(tmp, [helper.make_node("NoSuchOp", ["x"], ["y"], domain="com.microsoft")],
                             [("", 17), ("com.microsoft", 1)])
            problems = check(path)["problems"]
            self.assertEqual([(p["kind"], p["severity"]) for p in problems], [("custom-op", "warning")])
            self.assertIn("which ONNX Runtime's documentation", problems[0]["message"])

    def test_onnxruntime_kernel_in_the_standard_domain(self):
        """SimplifiedLayerNormalization is ONNX Runtime's kernel in ai.onnx, not ONNX's:
        no false error, its attributes unchecked (its documentation lists none)."""
        node = helper.make_node("SimplifiedLayerNormalization", ["x", "scale"], ["y"], name="rms", axis=-1,
                                epsilon=1e-5, stash_type=1)
        graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])],
                                  [numpy_helper.from_array(np.ones(4, dtype=np.float32), "scale")])
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "rms.onnx")
            onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
            problems = check(path)["problems"]
            self.assertEqual([(p["kind"], p["severity"]) for p in problems], [("onnxruntime", "info")],
                             problems)

    def test_unused_import_is_not_a_custom_operator(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = self.save(tmp, [helper.make_node("Relu", ["x"], ["y"])],
                             [("", 17), ("devtech", 1), ("com.microsoft.nchwc", 1)])
            report = check(path)
            self.assertEqual(problems(report), [("unused-opset", "info", None, None),
                                                ("unused-opset", "info", None, None)])
            self.assertEqual(report["problems"][0]["message"],
                             "opset import devtech (version 1) is not used by any node")
            info, text = self.info(path)
            self.assertEqual(info["custom_domains"], [])
            self.assertEqual(info["unused_opset_imports"], ["devtech", "com.microsoft.nchwc"])
            self.assertNotIn("Custom domain", text)
            self.assertIn("Unused opset import: devtech (no node uses it)", text)

    def test_custom_operator_inside_a_branch_counts(self):
        branch = helper.make_graph([helper.make_node("FooOp", ["x"], ["t"], domain="devtech")], "then",
                                   [], [helper.make_tensor_value_info("t", TensorProto.FLOAT, [4])])
        other = helper.make_graph([helper.make_node("Identity", ["x"], ["e"])], "else",
                                  [], [helper.make_tensor_value_info("e", TensorProto.FLOAT, [4])])
        nodes = [helper.make_node("Constant", [], ["c"], value=helper.make_tensor("v", TensorProto.BOOL, [], [True])),
                 helper.make_node("If", ["c"], ["y"], name="If_0", then_branch=branch, else_branch=other)]
        with tempfile.TemporaryDirectory() as tmp:
            path = self.save(tmp, nodes, [("", 17), ("devtech", 1)])
            problems = check(path)["problems"]
            self.assertEqual([(p["kind"], p["graph"]) for p in problems], [("custom-op", "If_0:then_branch")])
            info, _ = self.info(path)
            self.assertEqual(info["custom_domains"], ["devtech"])
            self.assertEqual(info["unused_opset_imports"], [])


def library_opset():
    return library()[1]


class Modern(unittest.TestCase):
    """Models as exporters write them today (opset 18 and up, IR 10 and up): valid, so
    no error and no warning, whichever ONNX the build links."""

    def save(self, tmp, opset, ir_version=10):
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 8])
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 1])
        nodes = [helper.make_node("Gelu", ["x"], ["g"], name="gelu"),                    # opset 20
                 helper.make_node("RMSNormalization", ["g", "scale"], ["r"], name="rms"),  # opset 23
                 helper.make_node("ReduceMean", ["r", "axes"], ["y"], name="mean")]        # axes an input from 18
        graph = helper.make_graph(nodes, "modern", [x], [y], [
            numpy_helper.from_array(np.array([1], dtype=np.int64), "axes"),
            numpy_helper.from_array(np.ones(8, dtype=np.float32), "scale")])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=ir_version)
        path = os.path.join(tmp, "modern.onnx")
        onnx.save(model, path)
        return path

    def test_valid_modern_model(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = self.save(tmp, 23, ir_version=11)
            for full in ([], ["--full"]):
                run = subprocess.run([CLI, "check", path, "--json"] + full, capture_output=True, text=True)
                self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
                report = json.loads(run.stdout)
                self.assertEqual((report["errors"], report["warnings"]), (0, 0), report["problems"])
                kinds = [p["kind"] for p in report["problems"]]
                if library_opset() < 23:
                    # Said once, with what the library knows.
                    self.assertEqual(kinds.count("newer-opset"), 1, kinds)
                    self.assertIn("newer-ir", kinds)
                    message = next(p["message"] for p in report["problems"] if p["kind"] == "newer-opset")
                    self.assertRegex(message, r"^ai\.onnx opset 23 is newer than ONNX [0-9.]+ knows \(%d\): "
                                     r"operator checks and shapes of this domain are limited$" % library_opset())
                else:
                    self.assertNotIn("newer-opset", kinds)

    def test_seeded_faults_found_at_todays_opsets(self):
        """Five faults seeded into models of opsets 18 to 22 (what PyTorch and ONNX
        Runtime's builder write today) are each found, at every opset the library
        knows: the default build's ONNX must know them."""
        self.assertGreaterEqual(library_opset(), 22, "the default build knows opset 22 (ONNX 1.17 or newer)")
        faults = {
            "unknown-op": (helper.make_node("Frobnicate", ["x"], ["y"], name="n"), TensorProto.FLOAT),
            "input-count": (helper.make_node("Relu", ["x", "x"], ["y"], name="n"), TensorProto.FLOAT),
            "unknown-attribute": (helper.make_node("Relu", ["x"], ["y"], name="n", bogus=1), TensorProto.FLOAT),
            "type-conflict": (helper.make_node("Sqrt", ["x"], ["y"], name="n"), TensorProto.INT64),
            "missing-input": (helper.make_node("Add", ["x"], ["y"], name="n"), TensorProto.FLOAT),
        }
        found = 0
        with tempfile.TemporaryDirectory() as tmp:
            for opset in (18, 19, 20, 21, 22):
                for kind, (node, elem) in faults.items():
                    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", elem, [4])],
                                              [helper.make_tensor_value_info("y", elem, [4])])
                    path = os.path.join(tmp, "%s-%d.onnx" % (kind, opset))
                    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                                                ir_version=10), path)
                    report = check(path)
                    kinds = {p["kind"] for p in report["problems"] if p["severity"] == "error"}
                    expected = {"missing-input": "input-count"}.get(kind, kind)
                    self.assertIn(expected, kinds, (opset, kind, report["problems"]))
                    found += 1
        self.assertEqual(found, 25)

    def test_inverse_onesided_dft_is_valid(self):
        """An inverse real DFT (onesided and inverse) is valid from opset 20, though
        ONNX 1.17's inference refuses it (ONNX's test_dft_irfft)."""
        node = helper.make_node("DFT", ["x", "", "axis"], ["y"], name="irfft", inverse=1, onesided=1)
        graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 5, 2])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                                  [numpy_helper.from_array(np.array(1, dtype=np.int64), "axis")])
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "irfft.onnx")
            onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)], ir_version=10), path)
            report = check(path)
        self.assertEqual(report["errors"], 0, report["problems"])

    def test_info_says_what_the_library_knows(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = self.save(tmp, 23)
            run = subprocess.run([CLI, "info", path, "--json"], capture_output=True, text=True, check=True)
            opset = json.loads(run.stdout)["opset_imports"][0]
            self.assertEqual(opset["known"], library_opset() >= 23)
            text = subprocess.run([CLI, "info", path], capture_output=True, text=True, check=True).stdout
            self.assertEqual("newer than ONNX" in text, library_opset() < 23, text)


class Testdata(unittest.TestCase):
    def test_no_false_problems(self):
        """Debian's corpus (opsets 7-17) is valid: no error or warning but the dead nodes
        and unused initializers its expanded models really have."""
        paths = valid_models.model_paths(TESTDATA)
        if not paths:
            self.skipTest("libonnx-testdata is not installed")
        self.assertGreaterEqual(len(paths), 1000)
        checked, false = valid_models.false_problems(CLI, paths)
        self.assertEqual(false, [])
        self.assertEqual(checked, len(paths))
        print("%d testdata models checked, no false problems" % checked, file=sys.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
