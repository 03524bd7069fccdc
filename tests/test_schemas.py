#!/usr/bin/python3
"""The committed operator schema table is what tools/gen-op-schemas.py makes from this
system's python3-onnx, and covers every schema of the standard domains."""
import json
import os
import re
import subprocess
import sys
import unittest

import onnx
import onnx.defs

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = os.path.join(ROOT, "src", "core", "onyx-schema-table.c")
GENERATOR = os.path.join(ROOT, "tools", "gen-op-schemas.py")


class Table(unittest.TestCase):
    def test_up_to_date(self):
        run = subprocess.run([sys.executable, GENERATOR, "--check", TABLE], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)

    def test_every_schema_listed(self):
        with open(TABLE, encoding="utf-8") as f:
            rows = set(re.findall(r'^  \{ "([^"]*)", "([^"]*)", (\d+), ', f.read(), re.M))
        expected = {(s.domain, s.name, str(s.since_version))
                    for s in onnx.defs.get_all_schemas_with_history()
                    if s.domain in ("", "ai.onnx.ml", "ai.onnx.preview.training")}
        self.assertEqual(rows, expected)
        self.assertGreaterEqual(len(rows), 444)

    def test_modest_size(self):
        self.assertLess(os.path.getsize(TABLE), 1024 * 1024)


class Nodes(unittest.TestCase):
    """onyx-cli nodes shows what the schema says of each node, as python3-onnx reads it."""

    def test_text(self):
        run = subprocess.run([os.environ["ONYX_CLI"], "nodes",
                              os.path.join(os.environ["ONYX_TEST_DATA"], "model.onnx")],
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("in:  X=input, W=onnx::Conv_22, B=onnx::Conv_23", run.stdout)
        self.assertIn('auto_pad = "NOTSET" (default)', run.stdout)
        self.assertIn("Conv-11: The convolution operator", run.stdout)
        self.assertIn("https://onnx.ai/onnx/operators/onnx__Conv.html", run.stdout)

    def test_json_matches_python_onnx(self):
        for name in ("model.onnx", "model_foo.onnx"):
            path = os.path.join(os.environ["ONYX_TEST_DATA"], name)
            run = subprocess.run([os.environ["ONYX_CLI"], "nodes", path, "--json"],
                                 capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stderr)
            model = onnx.load(path)
            opsets = {o.domain: o.version for o in model.opset_import}
            for listed, node in zip(json.loads(run.stdout), model.graph.node):
                if node.domain not in ("", "ai.onnx"):
                    self.assertIsNone(listed["schema"])
                    continue
                schema = onnx.defs.get_schema(node.op_type, opsets[""], node.domain)
                self.assertEqual(listed["schema"]["since_version"], schema.since_version)
                self.assertEqual(listed["schema"]["input_names"],
                                 [schema.inputs[i].name for i in range(len(node.input))])
                self.assertEqual(listed["schema"]["output_names"],
                                 [schema.outputs[i].name for i in range(len(node.output))])
                given = {a.name for a in node.attribute}
                defaults = {n for n, a in schema.attributes.items()
                            if a.default_value.type != 0 and n not in given}
                self.assertEqual(set(listed["schema"]["defaults"]), defaults)


if __name__ == "__main__":
    unittest.main(verbosity=2)
