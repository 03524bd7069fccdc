#!/usr/bin/python3
"""onyx-cli diff: the walkthrough's traced and scripted exports differ only in names,
as python3-onnx sees them; a model against itself is empty; an edit (by onyx-cli edit
or python) is reported as exactly that edit, also inside If and Loop bodies, where
each entry names its graph; renamed exports still align."""
import glob
import json
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

CLI = os.environ["ONYX_CLI"]
DATA = os.environ["ONYX_TEST_DATA"]
TESTDATA = os.environ.get("ONYX_TESTDATA_DIR", "/usr/share/libonnx-testdata/data")


def data(name):
    return os.path.join(DATA, name)


def diff(a, b):
    run = subprocess.run([CLI, "diff", a, b, "--json"], capture_output=True, text=True, timeout=120)
    assert run.returncode in (0, 1), (a, b, run.returncode, run.stderr)
    report = json.loads(run.stdout)
    # Exit status 1 exactly when something differs.
    assert (run.returncode == 1) == bool(report["differences"]), (a, b, run.returncode)
    return report


def entries(report):
    return sorted((d["subject"], d["change"], d["name_a"], d["name_b"]) for d in report["differences"])


def tensor_key(tensor):
    array = numpy_helper.to_array(tensor)
    return (array.dtype.str, array.shape, array.tobytes())


class TracedVsScripted(unittest.TestCase):
    def test_only_names_differ(self):
        a, b = onnx.load(data("model.onnx")), onnx.load(data("model_scripted.onnx"))
        # What python3-onnx says differs: the same operators, attributes, inputs and
        # outputs, opsets and metadata; other node, tensor and initializer names.
        self.assertEqual([n.op_type for n in a.graph.node], [n.op_type for n in b.graph.node])
        self.assertEqual([list(n.attribute) for n in a.graph.node], [list(n.attribute) for n in b.graph.node])
        self.assertEqual(a.graph.input, b.graph.input)
        self.assertEqual(a.graph.output, b.graph.output)
        self.assertEqual(a.opset_import, b.opset_import)
        self.assertEqual((a.ir_version, a.producer_name, a.producer_version, a.graph.name),
                         (b.ir_version, b.producer_name, b.producer_version, b.graph.name))
        expected = set()
        for na, nb in zip(a.graph.node, b.graph.node):
            if na.name != nb.name or list(na.output) != list(nb.output):
                expected.add(("node", "renamed", na.name, nb.name))
        by_contents = {tensor_key(t): t.name for t in b.graph.initializer}
        self.assertEqual(len(by_contents), len(b.graph.initializer))
        for t in a.graph.initializer:
            other = by_contents[tensor_key(t)]
            if other != t.name:
                expected.add(("initializer", "renamed", t.name, other))
        self.assertEqual(len(expected), 8)

        report = diff(data("model.onnx"), data("model_scripted.onnx"))
        self.assertEqual(set(entries(report)), expected)
        self.assertEqual(report["matched_by_structure"], 4)
        self.assertEqual(report["node_matches"], [[i, i] for i in range(4)])
        # The renamed outputs are listed, each with the schema's slot name.
        first = next(d for d in report["differences"] if d["name_a"] == "/model/model.0/Conv")
        self.assertEqual(first["details"], ["output 0 (Y) renamed /model/model.0/Conv_output_0 → "
                                            "/model/0/Conv_output_0"])

    def test_text(self):
        run = subprocess.run([CLI, "diff", data("model.onnx"), data("model_scripted.onnx")],
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 1)
        self.assertIn("model.onnx → model_scripted.onnx: 4 of 4 nodes matched (0 by name, 4 by structure)",
                      run.stdout)
        self.assertIn("renamed node /model/model.5/Relu → /model/5/Relu\n", run.stdout)
        self.assertIn("renamed initializer onnx::Conv_25 → onnx::Conv_23\n", run.stdout)


class Same(unittest.TestCase):
    def test_model_with_itself(self):
        paths = [data(n) for n in ("model.onnx", "model_scripted.onnx", "model_foo.onnx", "control_if.onnx",
                                   "control_loop.onnx")]
        paths += sorted(glob.glob(os.path.join(TESTDATA, "**", "model.onnx"), recursive=True))[::50]
        for path in paths:
            report = diff(path, path)
            self.assertEqual(report["differences"], [], path)
            n = len(onnx.load(path, load_external_data=False).graph.node)
            self.assertEqual(report["matched_by_name"] + report["matched_by_structure"] +
                             report["matched_by_order"], n, path)

    def test_nodes_nothing_tells_apart(self):
        # Two unnamed, unused, identical Constants: no name, neighbour or contents tells
        # them apart; they pair in file order, and a model is still the same as itself.
        model = onnx.load(data("model.onnx"))
        for _ in range(2):
            model.graph.node.append(helper.make_node("Constant", [], ["c%d" % len(model.graph.node)],
                                                     value_float=1.0))
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "twins.onnx")
            onnx.save(model, path)
            report = diff(path, path)
        self.assertEqual(report["differences"], [])
        self.assertEqual(report["matched_by_order"], 2)
        self.assertEqual(report["node_matches"], [[i, i] for i in range(6)])

    def test_bad_usage(self):
        run = subprocess.run([CLI, "diff", data("model.onnx")], capture_output=True, text=True)
        self.assertEqual(run.returncode, 2)
        run = subprocess.run([CLI, "diff", data("model.onnx"), data("missing.onnx")],
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 3)
        self.assertIn("missing.onnx", run.stderr)


class AfterEdit(unittest.TestCase):
    """The difference between a model and an edited copy is that edit."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def edited(self, source, *steps):
        out = os.path.join(self.tmp.name, "edited.onnx")
        run = subprocess.run([CLI, "edit", data(source), "-o", out, *steps], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        return diff(data(source), out)

    def python_edited(self, change):
        model = onnx.load(data("model.onnx"))
        change(model)
        out = os.path.join(self.tmp.name, "python.onnx")
        onnx.save(model, out)
        return diff(data("model.onnx"), out)

    def test_set_attribute(self):
        report = self.edited("model.onnx", "--set-attr", "/model/model.3/Conv.strides=[1, 1]")
        self.assertEqual(entries(report), [("node", "changed", "/model/model.3/Conv", "/model/model.3/Conv")])
        self.assertEqual(report["differences"][0]["details"], ["attribute strides: [2, 2] → [1, 1]"])

    def test_set_name(self):
        report = self.edited("model.onnx", "--set-name", "/model/model.2/Relu=first_relu")
        self.assertEqual(entries(report), [("node", "renamed", "/model/model.2/Relu", "first_relu")])
        self.assertEqual(report["differences"][0]["details"], [])
        self.assertEqual(report["matched_by_name"], 3)

    def test_set_input_dim(self):
        report = self.edited("model.onnx", "--set-dim", "input:0=1")
        self.assertEqual(entries(report), [("graph-input", "changed", "input", "input")])
        self.assertEqual(report["differences"][0]["details"],
                         ["float32[N×3×128×128] → float32[1×3×128×128]"])

    def test_add_output(self):
        report = self.edited("model.onnx", "--add-output", "/model/model.2/Relu_output_0")
        self.assertEqual(entries(report), [("graph-output", "added", None, "/model/model.2/Relu_output_0")])

    def test_walkthrough_repair(self):
        report = self.edited("model_foo.onnx", "--bypass-op", "devtech::FooOp", "--cleanup")
        # FooOp goes, with its opset import; the Relu before it now writes the output.
        self.assertEqual(entries(report), [("node", "removed", "/FooOp", None),
                                           ("node", "renamed", "/model/model.2/Relu", "/model/model.2/Relu"),
                                           ("opset", "removed", "devtech", None)])
        relu = next(d for d in report["differences"] if d["change"] == "renamed")
        self.assertEqual(relu["details"], ["output 0 (Y) renamed /model/model.2/Relu_output_0 → output"])

    def test_weights_changed_by_python(self):
        def change(model):
            weights = next(t for t in model.graph.initializer if t.name == "onnx::Conv_25")
            array = numpy_helper.to_array(weights).copy()
            array[0, 0, 0, 0] += 1
            weights.CopyFrom(numpy_helper.from_array(array, "onnx::Conv_25"))
        report = self.python_edited(change)
        self.assertEqual(entries(report), [("initializer", "changed", "onnx::Conv_25", "onnx::Conv_25")])
        self.assertEqual(report["differences"][0]["details"], ["values differ"])

    def test_node_inserted_by_python(self):
        def change(model):
            conv = next(n for n in model.graph.node if n.name == "/model/model.3/Conv")
            conv.input[0] = "scaled"
            scale = helper.make_node("Mul", ["/model/model.2/Relu_output_0", "half"], ["scaled"], name="scale")
            model.graph.initializer.append(numpy_helper.from_array(np.array(0.5, np.float32), "half"))
            nodes = list(model.graph.node)
            nodes.insert(2, scale)
            del model.graph.node[:]
            model.graph.node.extend(nodes)
        report = self.python_edited(change)
        self.assertEqual(entries(report), [("initializer", "added", None, "half"),
                                           ("node", "added", None, "scale"),
                                           ("node", "changed", "/model/model.3/Conv", "/model/model.3/Conv")])
        conv = next(d for d in report["differences"] if d["change"] == "changed")
        self.assertEqual(conv["details"], ["input 0 (X) reads /model/model.2/Relu_output_0 → scaled"])

    def test_string_tensor_by_python(self):
        def change(model, text):
            model.graph.initializer.append(numpy_helper.from_array(np.array([text], dtype=object), "labels"))
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for text in (b"cat", b"dog"):
                model = onnx.load(data("model.onnx"))
                change(model, text)
                paths.append(os.path.join(tmp, text.decode() + ".onnx"))
                onnx.save(model, paths[-1])
            self.assertEqual(diff(paths[0], paths[0])["differences"], [])
            report = diff(paths[0], paths[1])
        self.assertEqual(entries(report), [("initializer", "changed", "labels", "labels")])
        self.assertEqual(report["differences"][0]["details"], ["values differ"])

    def test_opset_and_metadata_by_python(self):
        def change(model):
            model.opset_import[0].version = 14
            model.producer_version = "2.0"
            helper.set_model_props(model, {"author": "me"})
        report = self.python_edited(change)
        self.assertEqual(entries(report), [("metadata", "added", None, "author"),
                                           ("metadata", "changed", "producer_version", "producer_version"),
                                           ("opset", "changed", "ai.onnx", "ai.onnx")])


class LargePayloads(unittest.TestCase):
    """Payloads large enough to stay in the mapped file (and to be compared in more
    than one slice) are compared byte for byte: a change in the last element shows."""

    def test_last_element_and_renamed_weight(self):
        rng = np.random.default_rng(0)
        weight = rng.standard_normal((1024, 1536), dtype=np.float32)  # 6 MiB: two slices
        graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], "g",
                                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 1024])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 1536])],
                                  [numpy_helper.from_array(weight, "w")])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        with tempfile.TemporaryDirectory() as tmp:
            paths = {}
            for name, last, weight_name in (("a", 0.0, "w"), ("b", 1.0, "w"), ("c", 0.0, "renamed")):
                changed = weight.copy()
                changed[-1, -1] += last
                model.graph.initializer[0].CopyFrom(numpy_helper.from_array(changed, weight_name))
                model.graph.node[0].input[1] = weight_name
                paths[name] = os.path.join(tmp, name + ".onnx")
                onnx.save(model, paths[name])
            trip = os.path.join(tmp, "trip.onnx")
            self.assertEqual(subprocess.run([CLI, "roundtrip", paths["a"], trip]).returncode, 0)
            self.assertEqual(diff(paths["a"], trip)["differences"], [])
            report = diff(paths["a"], paths["b"])
            self.assertEqual(entries(report), [("initializer", "changed", "w", "w")])
            self.assertEqual(report["differences"][0]["details"], ["values differ"])
            # Matched by contents: the same weight under another name.
            report = diff(paths["a"], paths["c"])
            self.assertIn(("initializer", "renamed", "w", "renamed"), entries(report))


def renamed_copy(model, prefix):
    """Every node and every tensor but the graph's inputs and outputs renamed, and the
    nodes in reverse order within what the graph allows (a different export)."""
    keep = {v.name for v in model.graph.input} | {v.name for v in model.graph.output}
    names = {}

    def rename(name):
        if not name or name in keep:
            return name
        return names.setdefault(name, "%s%d" % (prefix, len(names)))

    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    for node in copy.graph.node:
        node.name = prefix + "node_%s" % node.name
        node.input[:] = [rename(n) for n in node.input]
        node.output[:] = [rename(n) for n in node.output]
    for tensor in copy.graph.initializer:
        tensor.name = rename(tensor.name)
    for info in copy.graph.value_info:
        info.name = rename(info.name)
    nodes = list(copy.graph.node)[::-1]
    del copy.graph.node[:]
    copy.graph.node.extend(nodes)
    return copy


class RenamedExport(unittest.TestCase):
    def test_nodes_align_by_structure(self):
        paths = [data("model.onnx"), data("model_foo.onnx")]
        paths += [p for p in sorted(glob.glob(os.path.join(TESTDATA, "**", "model.onnx"), recursive=True))
                  if "/real/" in p or "/pytorch-converted/" in p][::5]
        aligned = 0
        with tempfile.TemporaryDirectory() as tmp:
            for path in paths:
                model = onnx.load(path)
                # Subgraphs would keep the old names inside; those models are left out.
                if any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)
                       for n in model.graph.node for a in n.attribute):
                    continue
                out = os.path.join(tmp, "renamed.onnx")
                onnx.save(renamed_copy(model, "x_"), out)
                report = diff(path, out)
                n = len(model.graph.node)
                self.assertEqual(report["matched_by_structure"], n, path)
                self.assertEqual(sorted(report["node_matches"]), [[i, n - 1 - i] for i in range(n)], path)
                self.assertEqual({d["change"] for d in report["differences"]} - {"renamed"}, set(), path)
                aligned += 1
        print("%d renamed exports aligned" % aligned, file=sys.stderr)
        self.assertGreaterEqual(aligned, 10)


def graph_entries(report):
    return sorted((d["graph"], d["subject"], d["change"], d["name_a"], d["name_b"])
                  for d in report["differences"])


def subgraph(graph, *path):
    """The graph of attribute ATTR of the node named NODE, for each (NODE, ATTR) in turn."""
    for node_name, attribute in path:
        node = next(n for n in graph.node if n.name == node_name)
        graph = next(a for a in node.attribute if a.name == attribute).g
    return graph


class InSubgraphs(unittest.TestCase):
    """Edits inside If and Loop bodies of the torch.jit.script exports (control_if:
    /If with then_branch Conv, Relu and else_branch Sigmoid, Constant, Mul;
    control_loop: /Loop whose body holds an /If) are entries of their graph."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def changed(self, source, change):
        model = onnx.load(data(source))
        change(model)
        out = os.path.join(self.tmp.name, "changed.onnx")
        onnx.save(model, out)
        return out, diff(data(source), out)

    def test_attribute_in_then_branch(self):
        def change(model):
            conv = subgraph(model.graph, ("/If", "then_branch")).node[0]
            next(a for a in conv.attribute if a.name == "strides").ints[:] = [2, 2]
        out, report = self.changed("control_if.onnx", change)
        # Not "changed node /If: attribute then_branch …": the branch's own node.
        self.assertEqual(graph_entries(report), [("/If:then_branch", "node", "changed", "/conv/Conv", "/conv/Conv")])
        entry = report["differences"][0]
        self.assertEqual(entry["details"], ["attribute strides: [1, 1] → [2, 2]"])
        self.assertEqual((entry["index_a"], entry["index_b"]), (0, 0))
        self.assertEqual(report["node_matches"], [[i, i] for i in range(5)])
        run = subprocess.run([CLI, "diff", data("control_if.onnx"), out], capture_output=True, text=True)
        self.assertEqual(run.returncode, 1)
        self.assertEqual(run.stdout.splitlines()[1:],
                         ["/If:then_branch: changed node /conv/Conv: attribute strides: [1, 1] → [2, 2]"])

    def test_node_removed_from_loop_body(self):
        def change(model):
            body = subgraph(model.graph, ("/Loop", "body"))
            cast = next(n for n in body.node if n.name == "/Cast")
            body.node.remove(cast)
            next(n for n in body.node if n.name == "/If").input[0] = "/Equal_output_0"
        _, report = self.changed("control_loop.onnx", change)
        self.assertEqual(graph_entries(report), [("/Loop:body", "node", "changed", "/If", "/If"),
                                                 ("/Loop:body", "node", "removed", "/Cast", None)])
        by_change = {d["change"]: d for d in report["differences"]}
        self.assertEqual(by_change["changed"]["details"], ["input 0 (cond) reads /Cast_output_0 → /Equal_output_0"])
        # Positions within the body: /If moved up by one.
        self.assertEqual((by_change["changed"]["index_a"], by_change["changed"]["index_b"]), (5, 4))
        self.assertEqual((by_change["removed"]["index_a"], by_change["removed"]["index_b"]), (4, -1))

    def test_node_renamed_deep_inside(self):
        def change(model):
            branch = subgraph(model.graph, ("/Loop", "body"), ("/If", "then_branch"))
            next(n for n in branch.node if n.name == "/Tanh").name = "tanh_deep"
        _, report = self.changed("control_loop.onnx", change)
        self.assertEqual(graph_entries(report), [("/If:then_branch", "node", "renamed", "/Tanh", "tanh_deep")])
        self.assertEqual(report["differences"][0]["details"], [])

    def test_unchanged_branches_report_nothing(self):
        # A change in the main graph and one in else_branch: nothing of then_branch.
        def change(model):
            next(n for n in model.graph.node if n.name == "/ReduceSum").attribute[0].i = 1
            mul = subgraph(model.graph, ("/If", "else_branch")).node[2]
            mul.op_type = "Add"
        _, report = self.changed("control_if.onnx", change)
        self.assertEqual(graph_entries(report), [("/If:else_branch", "node", "changed", "/Mul", "/Mul"),
                                                 ("main", "node", "changed", "/ReduceSum", "/ReduceSum")])
        self.assertEqual([d["details"][0] for d in report["differences"]],
                         ["attribute keepdims: 0 → 1", "operator Mul → Add"])

    def test_renamed_export_aligns_inside(self):
        # Every name changed, the bodies' too: what they read from outside (x.29,
        # lin.weight) and their inputs, by position, still line the nodes up.
        def change(model):
            keep = {v.name for v in model.graph.input} | {v.name for v in model.graph.output}
            names = {}

            def rename(name):
                if not name or name in keep:
                    return name
                return names.setdefault(name, "x%d" % len(names))

            def walk(graph, values):
                for node in graph.node:
                    node.name = "x_" + node.name
                    node.input[:] = [rename(n) for n in node.input]
                    node.output[:] = [rename(n) for n in node.output]
                    for a in node.attribute:
                        if a.type == onnx.AttributeProto.GRAPH:
                            walk(a.g, list(a.g.input) + list(a.g.output))
                for tensor in graph.initializer:
                    tensor.name = rename(tensor.name)
                for info in values + list(graph.value_info):
                    info.name = rename(info.name)
            walk(model.graph, [])
        _, report = self.changed("control_loop.onnx", change)
        self.assertEqual({d["change"] for d in report["differences"]}, {"renamed"})
        self.assertEqual({d["graph"] for d in report["differences"]},
                         {"main", "x_/Loop:body", "x_/If:then_branch", "x_/If:else_branch"})
        nodes = [d for d in report["differences"] if d["subject"] == "node"]
        self.assertEqual(len(nodes), 2 + 7 + 2 + 2)
        self.assertTrue(all(d["name_b"] == "x_" + d["name_a"] for d in nodes))
        self.assertTrue(all(d["index_a"] == d["index_b"] for d in nodes))

    def test_graphs_list_element_by_element(self):
        # A custom operator holding a GRAPHS attribute: its elements are diffed in
        # order, and one more element shows as the holder's difference.
        def branch(name, op):
            return helper.make_graph([helper.make_node(op, ["x"], ["y_" + name], name=name)], name, [],
                                     [helper.make_tensor_value_info("y_" + name, onnx.TensorProto.FLOAT, [1])])

        def model(*ops):
            holder = helper.make_node("Multi", ["x"], ["y"], name="multi", domain="devtech")
            holder.attribute.append(helper.make_attribute("branches", [branch("b%d" % i, op)
                                                                       for i, op in enumerate(ops)]))
            graph = helper.make_graph([holder], "g", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1])],
                                      [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1])])
            path = os.path.join(self.tmp.name, "-".join(ops) + ".onnx")
            onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                              helper.make_opsetid("devtech", 1)]), path)
            return path
        a = model("Relu", "Tanh")
        report = diff(a, model("Relu", "Sigmoid"))
        self.assertEqual(graph_entries(report), [("multi:branches[1]", "node", "changed", "b1", "b1")])
        self.assertEqual(report["differences"][0]["details"], ["operator Tanh → Sigmoid"])
        report = diff(a, model("Relu", "Tanh", "Abs"))
        self.assertEqual(graph_entries(report), [("main", "node", "changed", "multi", "multi")])
        self.assertEqual(report["differences"][0]["details"], ["attribute branches: 2 graphs → 3"])
        self.assertEqual(diff(a, a)["differences"], [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
