#!/usr/bin/python3
"""The operator schema table the build generated from the linked ONNX library says
what python3-onnx's registry says, and the CLI shows it."""
import json
import glob
import os
import re
import subprocess
import sys
import unittest

import onnx
import onnx.defs

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORACLE = os.path.join(ROOT, "tests", "schema_table_oracle.py")


def read_table():
    with open(os.environ["ONYX_SCHEMA_TABLE"], encoding="utf-8") as f:
        return f.read()


class Table(unittest.TestCase):
    def setUp(self):
        self.table = read_table()
        version = re.search(r'onyx_schema_table_onnx_version\[\] = "([^"]*)"', self.table).group(1)
        # A build against another ONNX (1.22 from -Donnx_prefix) has nothing to compare
        # with Debian's python3-onnx; CI builds against the same release.
        if version != onnx.__version__:
            self.skipTest("the table comes from ONNX %s, python3-onnx is %s" % (version, onnx.__version__))

    def test_same_as_python_onnx(self):
        oracle = subprocess.run([sys.executable, ORACLE], capture_output=True, text=True, check=True).stdout
        body = self.table[self.table.index("#include"):self.table.index("\nconst OnyxSchemaDomainRange")]
        self.assertEqual(body, oracle)

    def test_every_schema_listed(self):
        onnx_part = self.table[:self.table.index("/* ONNX Runtime's operators")]
        rows = set(re.findall(r'^  \{ "([^"]*)", "([^"]*)", (\d+), ', onnx_part, re.M))
        expected = {(s.domain, s.name, str(s.since_version))
                    for s in onnx.defs.get_all_schemas_with_history()}
        self.assertEqual(rows, expected)
        self.assertGreaterEqual(len(rows), 444)

    def test_onnxruntime_operators_after_onnx_own(self):
        """Every operator of ONNX Runtime's documentation, in a table of its own; its
        ai.onnx kernels only where ONNX has no operator of the name."""
        ort_part = self.table[self.table.index("/* ONNX Runtime's operators"):]
        rows = set(re.findall(r'^  \{ "([^"]*)", "([^"]*)", (\d+), ', ort_part, re.M))
        documented = set()
        for path in glob.glob(os.path.join(ROOT, "src", "core", "onyx-ort-operators-*.c")):
            with open(path, encoding="utf-8") as f:
                documented |= set(re.findall(r'^  \{ "(com\.microsoft)", "([^"]*)", (\d+), ', f.read(), re.M))
        self.assertGreaterEqual(len(documented), 120)
        self.assertLessEqual(documented, rows)
        standard = {(s.domain, s.name) for s in onnx.defs.get_all_schemas_with_history()}
        kernels = {(d, n) for d, n, _ in rows if not d.startswith("com.microsoft")}
        self.assertIn(("", "SimplifiedLayerNormalization"), kernels)
        self.assertEqual(kernels & standard, set())

    def test_library_limits(self):
        ranges = dict(((d, int(hi)) for d, _, hi in
                       re.findall(r'^  \{ "([^"]*)", (\d+), (\d+) \},$', self.table, re.M)))
        self.assertEqual(ranges[""], onnx.defs.onnx_opset_version())
        self.assertIn("ai.onnx.ml", ranges)
        ir = re.search(r"onyx_schema_table_ir_version = (\d+);", self.table).group(1)
        self.assertEqual(int(ir), onnx.IR_VERSION)

    def test_modest_size(self):
        self.assertLess(len(self.table.encode()), 2 * 1024 * 1024)


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
