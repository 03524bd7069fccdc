#!/usr/bin/python3
"""onyx-cli edit --inline-functions on a model shaped like an older dynamo export
(tests/data/function_modules.onnx, from tools/make-function-model.py): the result has
no functions, passes python3-onnx's full checker, and computes in onnxruntime what
the model with functions did."""
import os
import shutil
import tempfile
import unittest

import numpy as np
import onnx

from onyx_test import cli, data
import onyx_test

SOURCE = data("function_modules.onnx")


class InlineFunctions(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def inline(self, source=SOURCE):
        out = os.path.join(self.tmp, "inlined.onnx")
        run = cli("edit", source, "-o", out, "--inline-functions")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout.splitlines(), ["inlined 4 calls of local functions: removed 4 nodes, 4 local functions "
                                                   "and the opset import pkg.torch.__subgraph__; added 11 nodes"])
        return out

    def test_inlined_model_is_checked_and_has_no_functions(self):
        original = onnx.load(SOURCE)
        # The test model must have what the edit is about, or the test proves nothing.
        self.assertEqual(len(original.functions), 4)
        model = onnx.load(self.inline())
        onnx.checker.check_model(model, full_check=True)
        self.assertEqual(len(model.functions), 0)
        domains = {"pkg.torch.__subgraph__"}
        graphs = [model.graph] + [a.g for n in model.graph.node for a in n.attribute if a.g.node]
        nodes = [n for g in graphs for n in g.node]
        self.assertFalse([n.name for n in nodes if n.domain in domains])
        # The call's domain import went with the calls; ai.onnx stayed.
        self.assertEqual([(o.domain, o.version) for o in model.opset_import], [("", 17)])
        names = [n.name for n in nodes]
        self.assertEqual(len(names), len(set(names)))
        self.assertIn("Sequential_0/Linear_0/MatMul", names)
        self.assertIn("Sequential_0/Linear_2/MatMul", names)
        branch = sorted((n.name, n.op_type) for g in graphs[1:] for n in g.node)
        self.assertEqual(branch, [("Neg_branch", "Neg"), ("ReLU_branch/Relu", "Relu")])
        # Both Linear calls wrote `tmp`: each got its own name.
        outputs = [o for n in nodes for o in n.output]
        self.assertEqual(len(outputs), len(set(outputs)))
        self.assertIn("Sequential_0/Linear_0/tmp", outputs)
        self.assertIn("Sequential_0/Linear_2/tmp", outputs)
        leaky = {n.name: n for n in nodes if n.op_type == "LeakyRelu"}
        self.assertEqual([(a.name, round(a.f, 6), a.ref_attr_name) for a in leaky["Head_2/LeakyRelu"].attribute],
                         [("alpha", 0.2, "")])
        # Not set by its call and no default: left unset (LeakyRelu's own default).
        self.assertEqual(list(leaky["Head_5/LeakyRelu"].attribute), [])
        clips = {n.name: list(n.input) for n in nodes if n.op_type == "Clip"}
        self.assertEqual(clips["Head_2/Clip"], ["Head_2/tmp", "", "high"])
        self.assertEqual(clips["Head_5/Clip"], ["Head_5/tmp", "", ""])

    def test_inlined_model_computes_the_same(self):
        out = self.inline()
        rng = np.random.default_rng(7)
        compared = 0
        for batch in (1, 5):
            x = rng.standard_normal((batch, 4)).astype(np.float32)
            before = onyx_test.run_onnxruntime_feeds(SOURCE, {"x": x}, self.tmp)
            after = onyx_test.run_onnxruntime_feeds(out, {"x": x}, self.tmp)
            self.assertEqual(list(before), ["y"])
            self.assertEqual(list(after), ["y"])
            self.assertEqual(before["y"].shape, (batch, 3))
            self.assertLess(float(np.abs(before["y"] - after["y"]).max()), 1e-5)
            # Negative values: LeakyRelu's slope counted.
            self.assertTrue((before["y"] < 0).any())
            compared += 1
        self.assertEqual(compared, 2)

    def test_model_without_functions_is_refused(self):
        out = os.path.join(self.tmp, "none.onnx")
        run = cli("edit", data("model_foo.onnx"), "-o", out, "--inline-functions")
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("no local functions", run.stderr)
        self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
