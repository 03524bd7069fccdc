#!/usr/bin/python3
"""onyx-cli edit --replace and --insert (issue 16), checked with python3-onnx's full
checker and run with onnxruntime: the repaired models compute what the originals (or
torch, for model_foo.onnx) did, and keep their graph output names."""
import os
import shutil
import tempfile
import unittest

import numpy as np
import onnx
from onnx import numpy_helper

from onyx_test import cli, data
import onyx_test

TESTDATA = os.environ.get("ONYX_TESTDATA_DIR", "/usr/share/libonnx-testdata/data")
# The walkthrough model's tensor between the Relu and FooOp.
RELU_OUTPUT = "/model/model.2/Relu_output_0"


class Repairs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def edit(self, source, *steps):
        """The edited model (checked in full) and the CLI's stdout."""
        out = os.path.join(self.tmp, "out%d.onnx" % len(os.listdir(self.tmp)))
        run = cli("edit", source, "-o", out, *steps)
        self.assertEqual(run.returncode, 0, run.stderr)
        onnx.checker.check_model(onnx.load(out), full_check=True)
        return out, run.stdout

    def run_model(self, path, input_name, x):
        code, output, stderr = onyx_test.run_onnxruntime(path, input_name, x, self.tmp)
        self.assertEqual(code, 0, stderr)
        return output

    def assert_foo_output(self, path):
        expected = np.load(data("model_foo.npz"))
        output = self.run_model(path, "input", expected["input"])
        self.assertLess(float(np.abs(output - expected["output"]).max()), 1e-5)

    def test_replace_foo_op_with_identity(self):
        path, stdout = self.edit(data("model_foo.onnx"), "--replace", "/FooOp=Identity", "--cleanup")
        self.assertEqual(stdout.splitlines(), ["/FooOp now computes Identity", "removed the opset import devtech"])
        model = onnx.load(path)
        self.assertEqual([(n.name, n.op_type, n.domain) for n in model.graph.node][-1], ("/FooOp", "Identity", ""))
        # The devtech opset went with the last node of that domain.
        self.assertEqual([(o.domain, o.version) for o in model.opset_import], [("", 13)])
        self.assertEqual([o.name for o in model.graph.output], ["output"])
        self.assert_foo_output(path)

    def test_replace_relu_with_leaky_relu(self):
        source = os.path.join(TESTDATA, "node", "test_relu", "model.onnx")
        if not os.path.exists(source):
            self.skipTest("libonnx-testdata is not installed")
        path, stdout = self.edit(source, "--replace", "#0=LeakyRelu", "--set-attr", "#0.alpha=0")
        self.assertEqual(stdout.splitlines(), ["#0 (Relu) now computes LeakyRelu", "#0 (LeakyRelu).alpha = 0.0 (new)"])
        self.assertEqual([n.op_type for n in onnx.load(path).graph.node], ["LeakyRelu"])
        sets = os.path.join(os.path.dirname(source), "test_data_set_0")
        x = numpy_helper.to_array(onnx.load_tensor(os.path.join(sets, "input_0.pb")))
        y = numpy_helper.to_array(onnx.load_tensor(os.path.join(sets, "output_0.pb")))
        self.assertTrue(np.array_equal(self.run_model(path, "x", x), y))

    def test_replace_every_relu_of_a_model(self):
        original = onnx.load(data("model.onnx"))
        relus = [n.name for n in original.graph.node if n.op_type == "Relu"]
        steps = [arg for name in relus for arg in ("--replace", name + "=LeakyRelu", "--set-attr", name + ".alpha=0")]
        path, _ = self.edit(data("model.onnx"), *steps)
        x = np.random.default_rng(16).standard_normal((1, 3, 128, 128)).astype(np.float32)
        self.assertTrue(np.allclose(self.run_model(path, "input", x),
                                    self.run_model(data("model.onnx"), "input", x), atol=1e-6))

    def test_insert_identity_on_intermediate_and_output(self):
        path, stdout = self.edit(data("model_foo.onnx"), "--replace", "/FooOp=Identity",
                                 "--insert", RELU_OUTPUT + "=Identity", "--insert", "output=Identity")
        self.assertEqual(stdout.splitlines()[1:],
                         ["inserted the new node %s/Identity (Identity), reading %s" % (RELU_OUTPUT, RELU_OUTPUT),
                          "inserted the new node output/Identity (Identity), reading output"])
        model = onnx.load(path)
        nodes = [(n.op_type, list(n.input), list(n.output)) for n in model.graph.node]
        inserted = RELU_OUTPUT + "/Identity"
        self.assertEqual(nodes[2:], [
            ("Identity", [RELU_OUTPUT], [inserted + "_output"]),
            ("Identity", [inserted + "_output"], ["output/Identity_output"]),
            ("Identity", ["output/Identity_output"], ["output"])])
        self.assertEqual([o.name for o in model.graph.output], ["output"])
        self.assert_foo_output(path)

    def test_insert_then_set_attribute_of_the_new_node(self):
        path, stdout = self.edit(data("model.onnx"), "--insert", "input=LeakyRelu",
                                 "--set-attr", "input/LeakyRelu.alpha=0.5")
        self.assertIn("new node input/LeakyRelu", stdout)
        node = onnx.load(path).graph.node[0]
        self.assertEqual((node.name, node.op_type, list(node.input)), ("input/LeakyRelu", "LeakyRelu", ["input"]))
        self.assertEqual([(a.name, a.f) for a in node.attribute], [("alpha", 0.5)])
        x = np.random.default_rng(3).standard_normal((1, 3, 128, 128)).astype(np.float32)
        leaky = np.where(x < 0, 0.5 * x, x)
        self.assertTrue(np.allclose(self.run_model(path, "input", x),
                                    self.run_model(data("model.onnx"), "input", leaky), atol=1e-5))

    def test_insert_with_extra_inputs(self):
        """Extra inputs follow the tensor; "" leaves an optional input out."""
        path, _ = self.edit(data("model.onnx"), "--insert", "input=Mul:input")
        node = onnx.load(path).graph.node[0]
        self.assertEqual((node.op_type, list(node.input)), ("Mul", ["input", "input"]))
        x = np.random.default_rng(5).standard_normal((1, 3, 128, 128)).astype(np.float32)
        self.assertTrue(np.allclose(self.run_model(path, "input", x),
                                    self.run_model(data("model.onnx"), "input", x * x), atol=1e-5))
        path, _ = self.edit(data("model.onnx"), "--insert", "input=Clip:,input")
        node = onnx.load(path).graph.node[0]
        self.assertEqual((node.op_type, list(node.input)), ("Clip", ["input", "", "input"]))

    def test_custom_op_keeps_attributes(self):
        source = data("model.onnx")
        original = onnx.load(source)
        conv = original.graph.node[0]
        path = os.path.join(self.tmp, "custom.onnx")
        run = cli("edit", source, "-o", path, "--replace", "%s=acme::FastConv" % conv.name)
        self.assertEqual(run.returncode, 0, run.stderr)
        model = onnx.load(path)
        node = model.graph.node[0]
        self.assertEqual((node.domain, node.op_type), ("acme", "FastConv"))
        self.assertEqual(node.attribute, conv.attribute)
        self.assertIn(("acme", 1), [(o.domain, o.version) for o in model.opset_import])

    def test_dropped_and_missing_attributes_are_told(self):
        """Both are the user's to fix; the model is saved (the diagnostics report them)."""
        conv = onnx.load(data("model.onnx")).graph.node[0]
        run = cli("edit", data("model.onnx"), "-o", os.path.join(self.tmp, "gemm.onnx"),
                  "--replace", conv.name + "=Gemm")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("%s now computes Gemm; dropped its attributes dilations, group, kernel_shape, pads and "
                      "strides" % conv.name, run.stdout)
        relu = onnx.load(data("model.onnx")).graph.node[1]
        run = cli("edit", data("model.onnx"), "-o", os.path.join(self.tmp, "cast.onnx"),
                  "--replace", relu.name + "=Cast")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("Cast requires to (set with set-attr)", run.stdout)

    def test_journal_replay_of_both_steps(self):
        """What --replace and --insert record replays to the same model (the C tests
        cover this for every step; here the text arguments with odd names)."""
        a, _ = self.edit(data("model_foo.onnx"), "--replace=/FooOp=Identity", "--insert=output=Identity")
        b, _ = self.edit(data("model_foo.onnx"), "--replace", "/FooOp=ai.onnx::Identity", "--insert", "output=Identity")
        self.assertEqual(onnx.load(a), onnx.load(b))


class Refusals(unittest.TestCase):
    def assert_refused(self, *steps, message, source="model_foo.onnx", code=1):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out.onnx")
            run = cli("edit", data(source), "-o", out, *steps)
            self.assertEqual(run.returncode, code, run.stderr)
            self.assertIn(message, run.stderr)
            self.assertFalse(os.path.exists(out))

    def test_refusals(self):
        self.assert_refused("--replace", "/FooOp=LeakyRelux",
                            message="step 1 (--replace /FooOp=LeakyRelux): LeakyRelux is not an operator of "
                                    "ai.onnx opset 13")
        self.assert_refused("--replace", "/FooOp=Add", message="/FooOp has 1 input, but Add takes at least 2")
        self.assert_refused("--insert", "output=Conv:input,input,input,input",
                            message="the new Conv node has 5 inputs, but Conv takes at most 3")
        self.assert_refused("--insert", "output=Frob", message="Frob is not an operator of ai.onnx opset 13")
        self.assert_refused("--insert", "ghost=Identity", message="there is no tensor 'ghost'")
        self.assert_refused("--insert", "input=Add:ghost", message="there is no tensor 'ghost'")
        self.assert_refused("--replace", "/FooOp=::Relu", message="is not an operator: OP or DOMAIN::OP")
        self.assert_refused("--replace", "/FooOp", message="is not of the form NODE=[DOMAIN::]OP")
        self.assert_refused("--replace", "nope=Relu", message="there is no node named 'nope'")

    def test_usage(self):
        run = cli("edit", "--help")
        self.assertEqual(run.returncode, 0)
        self.assertIn("--replace NODE=[DOMAIN::]OP", run.stdout)
        self.assertIn("--insert TENSOR=[DOMAIN::]OP[:EXTRA_INPUT,...]", run.stdout)


if __name__ == "__main__":
    unittest.main()
