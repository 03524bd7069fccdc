#!/usr/bin/python3
"""onyx-cli run QUANTIZED --compare FLOAT: each layer that runs quantized, its value as
it is handed on against the float twin's, as SQNR and as its largest difference against
the float tensor's range, the worst first, and the first layer under the threshold.
A scale planted wrong in one layer of the QDQ CNN is named, whichever way it is wrong."""
import json
import os
import tempfile
import unittest

import numpy as np
import onnx
from onnx import numpy_helper

from onyx_test import cli, data

BUILT_WITH_ORT = os.environ.get("ONYX_HAVE_ONNXRUNTIME") == "1"


def planted(path, name, factor, source="qdq_cnn.onnx"):
    model = onnx.load(data(source))
    tensor = next(t for t in model.graph.initializer if t.name == name)
    tensor.CopyFrom(numpy_helper.from_array((numpy_helper.to_array(tensor) * factor).astype(np.float32), name))
    onnx.save(model, path)
    return path


class Accuracy(unittest.TestCase):
    def setUp(self):
        if not BUILT_WITH_ORT:
            self.skipTest("this build has no ONNX Runtime (meson found none)")

    def report(self, model, twin, *more, expect=0):
        run = cli("run", model, "--compare", twin, "--json", *more, timeout=300)
        self.assertEqual(run.returncode, expect, run.stdout[-2000:] + run.stderr)
        return json.loads(run.stdout)["compare"]["quantization"]

    def test_calibrated_models_keep_their_layers(self):
        expected = {"qdq_cnn": ("qdq_cnn_float", 8, 8), "qdq_transformer": ("qdq_transformer_float", 18, 18),
                    "dynamic_unet": ("dynamic_unet_float", 5, 5),
                    # QLinear outputs stay uint8 up to the QGemm: compared dequantized.
                    "qoperator_cnn": ("qdq_cnn_float", 8, 8)}
        for name, (twin, layers, compared) in expected.items():
            report = self.report(data(name + ".onnx"), data(twin + ".onnx"))
            self.assertEqual((report["quantized_layers"], len(report["layers"])), (layers, compared), name)
            self.assertEqual(report["uncompared"], layers - compared, name)
            self.assertIsNone(report["first_below"], name)
            sqnrs = [layer["sqnr_db"] for layer in report["layers"]]
            self.assertEqual(sqnrs, sorted(sqnrs), name)
            self.assertGreater(min(sqnrs), 22, name)
            for layer in report["layers"]:
                self.assertLess(layer["range_error"], 0.1, (name, layer))

    def test_int4_against_a_lower_threshold(self):
        report = self.report(data("int4_mlp.onnx"), data("int4_mlp_float.onnx"), expect=1)
        self.assertEqual(report["first_below"]["node"], "/up/MatMul")
        report = self.report(data("int4_mlp.onnx"), data("int4_mlp_float.onnx"), "--sqnr-threshold", "12")
        self.assertEqual([layer["node"] for layer in report["layers"]], ["/down/MatMul", "/up/MatMul"])

    def test_planted_scale_is_named(self):
        with tempfile.TemporaryDirectory() as tmp:
            # A weight's scales six times too large: the layer's output is six times off.
            weight = planted(os.path.join(tmp, "weight.onnx"), "down.weight_scale", 6)
            report = self.report(weight, data("qdq_cnn_float.onnx"), expect=1)
            self.assertEqual(report["first_below"]["node"], "/down/Conv")
            self.assertEqual(report["layers"][0]["node"], "/down/Conv")
            self.assertLess(report["first_below"]["sqnr_db"], 0)
            # Layers before it keep their accuracy.
            kept = {layer["node"]: layer["sqnr_db"] for layer in report["layers"]}
            for before in ("/stem/Conv", "/block1/conv1/Conv", "/block1/conv2/Conv", "/block1/Add"):
                self.assertGreater(kept[before], 30, before)
            # An activation's range a tenth of what it holds: it saturates.
            activation = planted(os.path.join(tmp, "activation.onnx"), "/block1/conv1/Relu_output_0_scale", 0.1)
            report = self.report(activation, data("qdq_cnn_float.onnx"), expect=1)
            self.assertEqual(report["first_below"]["node"], "/block1/conv1/Conv")
            self.assertEqual(report["first_below"]["tensor"], "/block1/conv1/Relu_output_0_DequantizeLinear_Output")
            self.assertEqual(report["first_below"]["other"], "/block1/conv1/Relu_output_0")

            run = cli("run", weight, "--compare", data("qdq_cnn_float.onnx"), timeout=300)
            self.assertEqual(run.returncode, 1, run.stderr)
            self.assertIn("quantized layers against the float model: 8 of 8 compared", run.stdout)
            self.assertIn("first layer under 20 dB: /down/Conv (", run.stdout)
            self.assertNotIn("first divergence", run.stdout)

    def test_qoperator_layers_compared_dequantized(self):
        report = self.report(data("qoperator_cnn.onnx"), data("qdq_cnn_float.onnx"))
        layers = {layer["node"]: layer for layer in report["layers"]}
        # The integer tensor is named; the float model's past the Relu folded into its range.
        self.assertEqual(layers["/stem/Conv"]["tensor"], "/stem/Relu_output_0_quantized")
        self.assertEqual(layers["/stem/Conv"]["other"], "/stem/Relu_output_0")
        self.assertEqual(layers["/block1/conv2/Conv"]["other"], "/block1/conv2/Conv_output_0")
        # Every uint8 tensor the run pairs with a float one is compared as the value it
        # stands for (the Flatten between the pool and the QGemm too), not as integers.
        run = cli("run", data("qoperator_cnn.onnx"), "--compare", data("qdq_cnn_float.onnx"), "--json", timeout=300)
        deltas = {d["tensor"]: d for d in json.loads(run.stdout)["compare"]["tensors"]}
        self.assertIn("/flatten/Flatten_output_0_quantized", deltas)
        for name, delta in deltas.items():
            self.assertLess(delta["max_abs"], 0.2, name)
            self.assertEqual(delta.get("dequantized", False), name.endswith("_quantized"), name)
        # The run's own DequantizeLinear copies are not listed among the model's tensors.
        self.assertNotIn("(dequantized", run.stdout)
        text = cli("run", data("qoperator_cnn.onnx"), "--compare", data("qdq_cnn_float.onnx"), timeout=300)
        self.assertIn("  /flatten/Flatten_output_0_quantized (dequantized) max abs ", text.stdout)
        # Two QOperator models compare their integers as they are: nothing dequantized.
        report = self.report(data("qoperator_cnn.onnx"), data("qoperator_cnn.onnx"))
        self.assertTrue(all(layer["sqnr_db"] is None or layer["sqnr_db"] > 100 for layer in report["layers"]))

    def test_planted_scale_in_a_qoperator_model_is_named(self):
        with tempfile.TemporaryDirectory() as tmp:
            weight = planted(os.path.join(tmp, "weight.onnx"), "down.weight_scale", 6, "qoperator_cnn.onnx")
            report = self.report(weight, data("qdq_cnn_float.onnx"), expect=1)
            self.assertEqual(report["first_below"]["node"], "/down/Conv")
            self.assertEqual(report["first_below"]["tensor"], "/down/Relu_output_0_quantized")
            kept = {layer["node"]: layer["sqnr_db"] for layer in report["layers"]}
            for before in ("/stem/Conv", "/block1/conv1/Conv", "/block1/conv2/Conv", "/block1/Add"):
                self.assertGreater(kept[before], 30, before)


if __name__ == "__main__":
    unittest.main()
