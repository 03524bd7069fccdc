#!/usr/bin/python3
"""Graphs inside If and Loop nodes through onyx-cli, checked with python3-onnx and run
with onnxruntime.

control_if.onnx and control_loop.onnx are torch.jit.script exports (If on the input's
sum with a Conv branch; a Loop whose body holds an If). Their branches are listed,
listed node by node, checked and rendered by name; edits name nodes inside branches
directly, and the saved models pass onnx.checker with full_check=True; the If model
with Relu bypassed inside its then branch computes the Conv alone in onnxruntime."""
import json
import os
import struct
import tempfile
import unittest

import numpy as np
import onnx
from onnx import numpy_helper

from onyx_test import cli, data
import onyx_test


def run_onnxruntime(model, x, tmp):
    code, output, stderr = onyx_test.run_onnxruntime(model, "x", x, tmp)
    if code != 0:
        raise AssertionError(stderr)
    return output


def conv3x3(x, weight, bias):
    """Conv with 3×3 kernels, padding 1, stride 1 (NCHW)."""
    n, c, h, w = x.shape
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((n, weight.shape[0], h, w), dtype=np.float64)
    for o in range(weight.shape[0]):
        for i in range(c):
            for dy in range(3):
                for dx in range(3):
                    out[:, o] += weight[o, i, dy, dx] * padded[:, i, dy:dy + h, dx:dx + w]
        out[:, o] += bias[o]
    return out


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    return struct.unpack(">II", head[16:24])


class Graphs(unittest.TestCase):
    def test_lists_nested_graphs(self):
        run = cli("graphs", data("control_loop.onnx"), "--json")
        self.assertEqual(run.returncode, 0, run.stderr)
        graphs = json.loads(run.stdout)
        self.assertEqual([g["name"] for g in graphs],
                         ["main", "/Loop:body", "/If:then_branch", "/If:else_branch"])
        self.assertEqual([g["depth"] for g in graphs], [0, 1, 2, 2])
        self.assertEqual(graphs[2]["parent"], "/Loop:body")
        self.assertEqual(graphs[2]["held_by"], "If")
        # The then branch reads the body's carried x and the main graph's weights.
        self.assertEqual(sorted(graphs[2]["outer_reads"]), ["lin.bias", "lin.weight", "x.29"])
        model = onnx.load(data("control_loop.onnx"))
        body = model.graph.node[1].attribute[0].g
        self.assertEqual(graphs[1]["nodes"], len(body.node))

    def test_nodes_of_a_branch(self):
        run = cli("nodes", data("control_if.onnx"), "--graph", "/If:else_branch", "--json")
        self.assertEqual(run.returncode, 0, run.stderr)
        nodes = json.loads(run.stdout)
        self.assertEqual([n["op_type"] for n in nodes], ["Sigmoid", "Constant", "Mul"])
        self.assertEqual({n["graph"] for n in nodes}, {"/If:else_branch"})
        self.assertEqual(nodes[0]["inputs"], ["x"])

    def test_unknown_graph_is_a_usage_error(self):
        run = cli("nodes", data("control_if.onnx"), "--graph", "/If:body")
        self.assertEqual(run.returncode, 2)
        self.assertEqual(run.stderr.splitlines()[0],
                         "onyx-cli nodes: node '/If' holds no graph attribute 'body'")
        run = cli("render", data("control_if.onnx"), "--graph", "nowhere", "-o", "/dev/null")
        self.assertEqual(run.returncode, 2)
        self.assertIn("no graph 'nowhere' in the model", run.stderr)

    def test_render_a_branch(self):
        with tempfile.TemporaryDirectory() as tmp:
            main_png = os.path.join(tmp, "main.png")
            branch_png = os.path.join(tmp, "branch.png")
            self.assertEqual(cli("render", data("control_loop.onnx"), "-o", main_png).returncode, 0)
            run = cli("render", data("control_loop.onnx"), "--graph", "/Loop:body", "-o", branch_png)
            self.assertEqual(run.returncode, 0, run.stderr)
            # The body (7 nodes) is drawn, not the 2-node main graph again.
            self.assertGreater(png_size(branch_png)[1], png_size(main_png)[1])


class Functions(unittest.TestCase):
    """Model-local functions are graphs of their own, listed and browsed by name."""

    def test_function_body_listed_and_browsed(self):
        from onnx import helper, TensorProto
        body = [helper.make_node("Relu", ["a"], ["r"]), helper.make_node("Neg", ["r"], ["b"])]
        function = helper.make_function("local", "ReluNeg", ["a"], ["b"], body,
                                        [helper.make_opsetid("", 17)])
        graph = helper.make_graph([helper.make_node("ReluNeg", ["x"], ["y"], domain="local", name="call")],
                                  "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
        model = helper.make_model(graph, functions=[function],
                                  opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)])
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "f.onnx")
            onnx.save(model, path)
            run = cli("graphs", path, "--json")
            self.assertEqual(run.returncode, 0, run.stderr)
            graphs = json.loads(run.stdout)
            self.assertEqual([(g["name"], g["kind"], g["nodes"]) for g in graphs],
                             [("main", "main", 1), ("ReluNeg", "function", 2)])
            run = cli("nodes", path, "--graph", "ReluNeg", "--json")
            self.assertEqual(run.returncode, 0, run.stderr)
            nodes = json.loads(run.stdout)
            self.assertEqual([n["op_type"] for n in nodes], ["Relu", "Neg"])
            self.assertEqual(nodes[0]["schema"]["since_version"], 14)
            run = cli("render", path, "--graph", "ReluNeg", "-o", os.path.join(tmp, "f.png"))
            self.assertEqual(run.returncode, 0, run.stderr)
            # The call is no custom operator, and the function is checked on its own.
            self.assertEqual(cli("check", path, "--graph", "ReluNeg").returncode, 0)


TESTDATA = os.environ.get("ONYX_TESTDATA_DIR", "/usr/share/libonnx-testdata/data")


def subgraph_count(graph):
    n = 0
    for node in graph.node:
        for attr in node.attribute:
            for g in ([attr.g] if attr.type == onnx.AttributeProto.GRAPH else list(attr.graphs)):
                n += 1 + subgraph_count(g)
    return n


class Corpus(unittest.TestCase):
    """Every libonnx-testdata model with If/Loop/Scan bodies: each body is listed,
    drawn and has its nodes listed; a node renamed inside each body saves a model that
    passes onnx.checker's full check when the original does."""

    def test_bodies(self):
        import glob
        n_models = n_rendered = n_saved = 0
        paths = sorted(glob.glob(os.path.join(TESTDATA, "**", "model.onnx"), recursive=True))
        with tempfile.TemporaryDirectory() as tmp:
            for path in paths:
                model = onnx.load(path)
                expected = subgraph_count(model.graph)
                if expected == 0:
                    continue
                n_models += 1
                run = cli("graphs", path, "--json")
                self.assertEqual(run.returncode, 0, (path, run.stderr))
                bodies = [g for g in json.loads(run.stdout) if g["kind"] == "subgraph"]
                self.assertEqual(len(bodies), expected, path)
                try:
                    onnx.checker.check_model(model, full_check=True)
                    valid = True
                except Exception:
                    valid = False
                for body in bodies:
                    png = os.path.join(tmp, "body.png")
                    run = cli("render", path, "--graph", body["name"], "-o", png)
                    self.assertEqual(run.returncode, 0, (path, body["name"], run.stderr))
                    n_rendered += 1
                    run = cli("nodes", path, "--graph", body["name"], "--json")
                    nodes = json.loads(run.stdout)
                    self.assertEqual(len(nodes), body["nodes"], (path, body["name"]))
                    if not valid or not nodes:
                        continue
                    out = os.path.join(tmp, "renamed.onnx")
                    reference = "%s#0" % body["name"]
                    run = cli("edit", path, "-o", out, "--set-name", reference + "=onyx_renamed_node")
                    self.assertEqual(run.returncode, 0, (path, reference, run.stderr))
                    onnx.checker.check_model(onnx.load(out), full_check=True)
                    n_saved += 1
        # 22 models hold 24 bodies in Debian's corpus.
        self.assertGreaterEqual(n_models, 20)
        self.assertGreaterEqual(n_rendered, 22)
        self.assertGreaterEqual(n_saved, 10)


class EditsInBranches(unittest.TestCase):
    def test_unknown_op_in_a_branch_is_reported_there(self):
        model = onnx.load(data("control_if.onnx"))
        then_branch = [a for a in model.graph.node[4].attribute if a.name == "then_branch"][0].g
        then_branch.node[1].op_type = "Relux"
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "unknown.onnx")
            onnx.save(model, path)
            run = cli("check", path, "--json")
            self.assertEqual(run.returncode, 1)
            problems = json.loads(run.stdout)["problems"]
            self.assertEqual([(p["kind"], p["graph"], p["node"]) for p in problems],
                             [("unknown-op", "/If:then_branch", "/Relu")])
            run = cli("check", path, "--graph", "/If:else_branch")
            self.assertEqual(run.returncode, 0, run.stdout)

    def test_bypass_in_branch_runs_in_onnxruntime(self):
        model = onnx.load(data("control_if.onnx"))
        weights = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
        x = np.linspace(-1.0, 2.0, 3 * 8 * 8, dtype=np.float32).reshape(1, 3, 8, 8)
        self.assertGreater(x.sum(), 0)  # the then branch runs
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "no_relu.onnx")
            run = cli("edit", data("control_if.onnx"), "-o", out, "--bypass", "/Relu")
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertEqual(run.stdout.splitlines(), ["bypassed /Relu: /conv/Conv_output_0 now feeds /Relu_output_0"])
            edited = onnx.load(out)
            onnx.checker.check_model(edited, full_check=True)
            branch = [a for a in edited.graph.node[4].attribute if a.name == "then_branch"][0].g
            self.assertEqual([n.op_type for n in branch.node], ["Conv"])
            self.assertEqual(branch.node[0].output[0], branch.output[0].name)

            expected = conv3x3(x.astype(np.float64), weights["conv.weight"], weights["conv.bias"])
            self.assertLess(expected.min(), 0)  # Relu would have changed it
            got = run_onnxruntime(out, x, tmp)
            np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)
            original = run_onnxruntime(data("control_if.onnx"), x, tmp)
            np.testing.assert_allclose(original, np.maximum(expected, 0), rtol=1e-4, atol=1e-4)

    def test_nested_edits_pass_the_full_checker(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "edited.onnx")
            run = cli("edit", data("control_loop.onnx"), "-o", out,
                      "--bypass", "/Tanh", "--set-attr", "/lin/Gemm.alpha=0.5",
                      "--reconnect", "/Add:0=x.29", "--set-name", "/Mod=mod_renamed")
            self.assertEqual(run.returncode, 0, run.stderr)
            edited = onnx.load(out)
            onnx.checker.check_model(edited, full_check=True)
            body = edited.graph.node[1].attribute[0].g
            inner_if = [n for n in body.node if n.op_type == "If"][0]
            then_branch = [a for a in inner_if.attribute if a.name == "then_branch"][0].g
            self.assertEqual([n.op_type for n in then_branch.node], ["Gemm"])
            gemm_alpha = [a.f for a in then_branch.node[0].attribute if a.name == "alpha"]
            self.assertEqual(gemm_alpha, [0.5])
            self.assertIn("mod_renamed", [n.name for n in body.node])

    def test_branch_output_refusal(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "edited.onnx")
            run = cli("edit", data("control_loop.onnx"), "-o", out, "--bypass", "/Identity")
            self.assertEqual(run.returncode, 1)
            self.assertIn("its output '/Identity_output_0' is an output of its graph", run.stderr)
            self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
