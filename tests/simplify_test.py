"""What the tests of Simplify's passes share (test_simplify*.py): small models made
with python3-onnx, onyx-cli edit --simplify --json on them, the result checked by
python3-onnx's full checker and run in onnxruntime-node against the original."""
import json
import os
import shutil
import tempfile
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from onyx_test import cli
import onyx_test

OPSET = 13


def save(model, path):
    onnx.save(model, path)
    return path


def make_model(nodes, inputs, outputs, initializers=(), opset=OPSET):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=7)


def float_input(name, dims):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)


def constant(name, array):
    return helper.make_node("Constant", [], [name], name=name + "_node", value=numpy_helper.from_array(array, name))


class SimplifyCase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def simplify(self, model, *extra, expect=0):
        """(simplified model, --json report of the simplify step); with `expect` non-zero,
        (None, the finished process) after checking that nothing was written."""
        source = save(model, os.path.join(self.tmp, "in.onnx"))
        out = os.path.join(self.tmp, "out.onnx")
        run = cli("edit", source, "-o", out, "--json", *extra)
        self.assertEqual(run.returncode, expect, run.stderr)
        if expect != 0:
            self.assertFalse(os.path.exists(out))
            return None, run
        steps = json.loads(run.stdout)
        report = [s["simplify"] for s in steps if s["step"] == "simplify"][0]
        simplified = onnx.load(out)
        onnx.checker.check_model(simplified, full_check=True)
        return simplified, report

    def assert_runs_equal(self, original, simplified, feeds):
        before = onyx_test.run_onnxruntime_feeds(save(original, os.path.join(self.tmp, "a.onnx")), feeds, self.tmp)
        after = onyx_test.run_onnxruntime_feeds(save(simplified, os.path.join(self.tmp, "b.onnx")), feeds, self.tmp)
        self.assertEqual(sorted(before), sorted(after))
        for name in before:
            np.testing.assert_allclose(after[name], before[name], rtol=1e-5, atol=1e-6)

    def pass_of(self, report, name):
        return [p for p in report["passes"] if p["name"] == name][0]
