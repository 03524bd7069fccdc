#!/usr/bin/python3
"""onyx-cli nodes on a model as PyTorch's dynamo exporter writes it: the module each
node came from and its metadata_props, checked against python3-onnx's own reading of
the same bytes (onnx 1.12 keeps NodeProto field 9 as an unknown field)."""
import ast
import json
import os
import tempfile
import unittest

import onnx

from onyx_test import cli, data

MODEL = data("dynamo_metadata.onnx")


def entries(message, field):
    """metadata_props of `message` (field `field`) as (key, value) pairs, in order."""
    found = []
    for unknown in message.UnknownFields():
        if unknown.field_number == field and unknown.wire_type == 2:
            entry = onnx.StringStringEntryProto.FromString(unknown.data)
            found.append((entry.key, entry.value))
    return found


class Nodes(unittest.TestCase):
    def setUp(self):
        self.model = onnx.load(MODEL)
        # Sure that the file holds what the checks below compare against.
        self.assertEqual(len(self.model.graph.node), 6)
        self.assertTrue(all(entries(n, 9) for n in self.model.graph.node))

    def test_json_module_and_entries(self):
        run = cli("nodes", MODEL, "--json")
        self.assertEqual(run.returncode, 0, run.stderr)
        nodes = json.loads(run.stdout)
        self.assertEqual(len(nodes), len(self.model.graph.node))
        for shown, node in zip(nodes, self.model.graph.node):
            expected = entries(node, 9)
            self.assertEqual([(e["key"], e["value"]) for e in shown["metadata_props"]], expected)
            props = dict(expected)
            scopes = ast.literal_eval(props["pkg.torch.onnx.name_scopes"])
            classes = ast.literal_eval(props["pkg.torch.onnx.class_hierarchy"])
            module = shown["module"]
            self.assertEqual(module["path"], scopes[1:-1], node.name)
            self.assertEqual(module["classes"], classes[1:-1])
            self.assertEqual(module["root_class"], "__main__.Net")
            self.assertEqual(module["op"], scopes[-1])
            self.assertEqual(module["op_class"], classes[-1])
            self.assertEqual(module["source"]["file"], "/home/u/proj/train.py")
            self.assertTrue(module["source"]["user"])
            self.assertEqual(module["frames"][0], module["source"])
            self.assertTrue(all(not f["user"] for f in module["frames"][1:]))
        first, add = nodes[0]["module"], nodes[5]["module"]
        self.assertEqual(first["path"], ["network", "network.0"])
        self.assertEqual(first["classes"][-1], "torch.nn.modules.linear.Linear")
        self.assertEqual(first["source"], {"file": "/home/u/proj/train.py", "line": 96, "function": "forward",
                                           "code": "x = self.network(x)", "user": True})
        self.assertEqual([f["file"].rsplit("/", 1)[1] for f in first["frames"]],
                         ["train.py", "container.py", "linear.py"])
        self.assertEqual(add["path"], [])
        self.assertEqual(add["source"]["line"], 97)
        self.assertEqual(add["source"]["code"], "return x + self.offset")

    def test_text(self):
        run = cli("nodes", MODEL)
        self.assertEqual(run.returncode, 0, run.stderr)
        out = run.stdout
        self.assertIn("       module: network/network.0 (Net › Sequential › Linear › aten.linear.default)\n", out)
        self.assertIn("       source: /home/u/proj/train.py:96 in forward: x = self.network(x)\n", out)
        self.assertIn("       module: (top) (Net › aten.add.Tensor)\n", out)
        self.assertRegex(out, r"(?m)^       metadata pkg\.torch\.onnx\.fx_node = %relu : ")
        # The entries the module line is made of are not repeated raw.
        self.assertNotIn("metadata pkg.torch.onnx.stack_trace", out)
        self.assertNotIn("metadata namespace", out)

    def test_without_metadata(self):
        run = cli("nodes", data("model.onnx"), "--json")
        self.assertEqual(run.returncode, 0, run.stderr)
        nodes = json.loads(run.stdout)
        self.assertTrue(nodes)
        for node in nodes:
            self.assertIsNone(node["module"])
            self.assertEqual(node["metadata_props"], [])
        self.assertNotIn("module:", cli("nodes", data("model.onnx")).stdout)


class Saving(unittest.TestCase):
    def test_roundtrip_keeps_metadata_bytes(self):
        with tempfile.TemporaryDirectory() as tmp:
            target = os.path.join(tmp, "out.onnx")
            run = cli("roundtrip", MODEL, target)
            self.assertEqual(run.returncode, 0, run.stderr)
            with open(MODEL, "rb") as a, open(target, "rb") as b:
                self.assertEqual(a.read(), b.read())

    def test_edit_keeps_metadata_of_other_nodes(self):
        model = onnx.load(MODEL)
        with tempfile.TemporaryDirectory() as tmp:
            target = os.path.join(tmp, "out.onnx")
            run = cli("edit", MODEL, "-o", target, "--bypass", "node_relu")
            self.assertEqual(run.returncode, 0, run.stderr)
            saved = onnx.load(target)
            kept = {n.name: n for n in saved.graph.node}
            self.assertNotIn("node_relu", kept)
            self.assertEqual(len(kept), 5)
            for node in model.graph.node:
                if node.name in kept:
                    self.assertEqual(entries(kept[node.name], 9), entries(node, 9))
            self.assertEqual(entries(saved.graph.input[0], 4), entries(model.graph.input[0], 4))
            self.assertEqual(entries(saved.graph, 16), [("made_by", "tools/make-dynamo-model.py")])


if __name__ == "__main__":
    unittest.main(verbosity=2)
