#!/usr/bin/python3
"""Quantized models through onyx-cli: `info` says how they run quantized, `nodes` each
node's quantized types, `check` each seeded quantization fault once, naming the node,
and nothing on valid quantized models: ONNX's own QuantizeLinear, DequantizeLinear,
QLinear and integer operator tests (Debian's libonnx-testdata and ONNX 1.22.0's, also
with their inputs made constants so that the values are judged), the models of
tools/make-qdq-model.py and the int4 LLM. The test models run in onnxruntime-node and
track their float twins."""
import copy
import glob
import json
import os
import tempfile
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from onyx_test import TESTDATA, cli, data, run_onnxruntime_feeds

QUANTIZED = ["qdq_cnn", "qdq_transformer", "dynamic_unet", "qoperator_cnn", "int4_mlp"]
TWIN = {"qoperator_cnn": "qdq_cnn_float"}
QUANT_KINDS = {"quant-scale", "quant-zero-point", "quant-pair", "quant-axis", "quant-float-op",
               "quant-unused-dequantize"}
# Names of ONNX's operator tests of quantization.
QUANT_TESTS = ("quantiz", "qlinear", "integer")


def check_json(*paths):
    run = cli("check", "--json", *paths)
    assert run.returncode in (0, 1), run.stderr
    reports = json.loads(run.stdout)
    return reports if len(paths) > 1 else [reports]


def initializer(model, name):
    return next(t for t in model.graph.initializer if t.name == name)


def node(model, name):
    return next(n for n in model.graph.node if n.name == name)


def set_value(model, name, change):
    tensor = initializer(model, name)
    values = numpy_helper.to_array(tensor).copy()
    tensor.CopyFrom(numpy_helper.from_array(change(values).astype(values.dtype), name))


def scale_to(value):
    def change(values):
        values.flat[0] = value
        return values
    return change


def without_pair(model, tensor):
    """The QuantizeLinear → DequantizeLinear pair of `tensor` taken away, its readers
    reading the float tensor again."""
    quantizer, dequantizer = tensor + "_QuantizeLinear", tensor + "_DequantizeLinear"
    out = node(model, dequantizer).output[0]
    for n in model.graph.node:
        n.input[:] = [tensor if i == out else i for i in n.input]
    kept = [n for n in model.graph.node if n.name not in (quantizer, dequantizer)]
    del model.graph.node[:]
    model.graph.node.extend(kept)
    constants = [t for t in model.graph.initializer if t.name not in (tensor + "_scale", tensor + "_zero_point")]
    del model.graph.initializer[:]
    model.graph.initializer.extend(constants)
    return model


def seeded_faults(base):
    """{fault: (model, kind, severity, node)} made from qdq_cnn.onnx, one fault each."""
    act = "/block1/conv1/Relu_output_0"
    faults = {}

    def fault(name, kind, severity, where, edit):
        model = copy.deepcopy(base)
        edit(model)
        faults[name] = (model, kind, severity, where)

    for name, value, severity in (("zero", 0, "error"), ("nan", np.nan, "error"), ("inf", np.inf, "error"),
                                  ("negative", -0.02, "warning")):
        fault("scale-" + name, "quant-scale", severity, act + "_QuantizeLinear",
              lambda m, v=value: set_value(m, act + "_scale", scale_to(v)))
    fault("scale-subnormal", "quant-scale", "warning", "block1.conv2.weight_DequantizeLinear",
          lambda m: set_value(m, "block1.conv2.weight_scale", scale_to(1e-41)))

    def zero_point_out_of_range(m):
        # A uint8 zero point written in int32_data, as some exporters write small types.
        t = initializer(m, act + "_zero_point")
        t.ClearField("raw_data")
        t.int32_data[:] = [300]
    fault("zero-point-range", "quant-zero-point", "error", act + "_QuantizeLinear", zero_point_out_of_range)

    def zero_point_type(m):
        m.opset_import[0].version = 21
        node(m, act + "_QuantizeLinear").attribute.append(helper.make_attribute("output_dtype", TensorProto.INT8))
    fault("zero-point-type", "quant-zero-point", "error", act + "_QuantizeLinear", zero_point_type)

    def other_scale(m):
        m.graph.initializer.append(numpy_helper.from_array(np.array(0.5, np.float32), "other_scale"))
        node(m, act + "_DequantizeLinear").input[1] = "other_scale"
    fault("pair-scale", "quant-pair", "warning", act + "_DequantizeLinear", other_scale)

    def other_zero_point(m):
        m.graph.initializer.append(numpy_helper.from_array(np.array(7, np.uint8), "other_zero_point"))
        node(m, act + "_DequantizeLinear").input[2] = "other_zero_point"
    fault("pair-zero-point", "quant-pair", "warning", act + "_DequantizeLinear", other_zero_point)

    def axis_out(m):
        next(a for a in node(m, "block1.conv2.weight_DequantizeLinear").attribute if a.name == "axis").i = 4
    fault("axis-range", "quant-axis", "error", "block1.conv2.weight_DequantizeLinear", axis_out)

    def fewer_scales(m):
        set_value(m, "block1.conv2.weight_scale", lambda v: v[:-1])
        set_value(m, "block1.conv2.weight_zero_point", lambda v: v[:-1])
    fault("axis-length", "quant-axis", "error", "block1.conv2.weight_DequantizeLinear", fewer_scales)

    def zero_point_shape(m):
        set_value(m, "block1.conv2.weight_zero_point", lambda v: v[:1].reshape(()))
    fault("axis-zero-point", "quant-axis", "error", "block1.conv2.weight_DequantizeLinear", zero_point_shape)

    # The residual Add reads the second Conv's output in float: it cannot run quantized.
    fault("float-op", "quant-float-op", "warning", "/block1/Add",
          lambda m: without_pair(m, "/block1/conv2/Conv_output_0"))

    def stray(m):
        m.graph.node.append(helper.make_node(
            "DequantizeLinear", ["block1.conv2.weight_quantized", "block1.conv2.weight_scale",
                                 "block1.conv2.weight_zero_point"], ["stray"], name="stray_DequantizeLinear", axis=0))
    fault("unused-dequantize", "quant-unused-dequantize", "warning", "stray_DequantizeLinear", stray)
    return faults


def folded(model_path, folder, out):
    """ONNX's operator test with its first test inputs as initializers (scales and zero
    points become constants the checks judge), or None when it has no inputs."""
    model = onnx.load(model_path)
    tensors = []
    for n, value in enumerate(model.graph.input):
        path = os.path.join(folder, "input_%d.pb" % n)
        if not os.path.exists(path):
            path = os.path.join(folder, "test_data_set_0", "input_%d.pb" % n)
        if not os.path.exists(path):
            return None
        tensor = onnx.TensorProto()
        with open(path, "rb") as f:
            tensor.ParseFromString(f.read())
        tensor.name = value.name
        tensors.append(tensor)
    del model.graph.input[:]
    model.graph.initializer.extend(tensors)
    onnx.save(model, out)
    return out


class Checks(unittest.TestCase):
    def test_each_seeded_fault_once(self):
        base = onnx.load(data("qdq_cnn.onnx"))
        faults = seeded_faults(base)
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for name, (model, _, _, _) in faults.items():
                paths.append(os.path.join(tmp, name + ".onnx"))
                onnx.save(model, paths[-1])
            reports = check_json(*paths)
        checked = 0
        for (name, (_, kind, severity, where)), report in zip(faults.items(), reports):
            found = [p for p in report["problems"] if p["severity"] != "info" or p["kind"] in QUANT_KINDS]
            self.assertEqual([(p["kind"], p["severity"], p["node"]) for p in found], [(kind, severity, where)],
                             (name, [p["message"] for p in found]))
            # The message names the node and says what to do.
            self.assertIn(where, found[0]["message"])
            checked += 1
        self.assertEqual(checked, 14)
        self.assertEqual(len(QUANT_KINDS - {kind for _, kind, _, _ in faults.values()}), 0)

    def test_text_names_the_fault_and_the_checks(self):
        base = onnx.load(data("qdq_cnn.onnx"))
        model, _, _, _ = seeded_faults(base)["scale-zero"]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "zero.onnx")
            onnx.save(model, path)
            run = cli("check", path)
        self.assertEqual(run.returncode, 1, run.stdout)
        self.assertIn("scale '/block1/conv1/Relu_output_0_scale' is 0", run.stdout)
        self.assertIn("quantization: 21 scales, 21 zero points, 9 QuantizeLinear → DequantizeLinear pairs, "
                      "12 per-axis scales, 0 float operators and 21 DequantizeLinears checked", run.stdout)

    def test_block_scales_of_matmulnbits(self):
        model = onnx.load(data("llm_tiny.onnx"))
        target = next(n for n in model.graph.node if n.op_type == "MatMulNBits")
        set_value(model, target.input[2], lambda v: v[:-2])
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "llm.onnx")
            onnx.save(model, path)
            report = check_json(path)[0]
        found = [p for p in report["problems"] if p["kind"] in QUANT_KINDS]
        self.assertEqual([(p["kind"], p["node"]) for p in found], [("quant-axis", target.name)])
        self.assertIn("in blocks of 32", found[0]["message"])

    def test_packed_zero_points_of_matmulnbits(self):
        """4-bit zero points two a byte, a row of blocks per column: read one per block,
        so the weight's range is known."""
        k, n, block = 64, 3, 32
        weight = numpy_helper.from_array(np.zeros((n, k // block, block // 2), np.uint8), "w_q")
        scales = numpy_helper.from_array(np.full(n * (k // block), 0.5, np.float32), "w_scales")
        # Column c's two blocks: zero points 2c+1 (low nibble) and 2c+2.
        zeros = numpy_helper.from_array(np.array([0x21, 0x43, 0x65], np.uint8), "w_zeros")
        node = helper.make_node("MatMulNBits", ["x", "w_q", "w_scales", "w_zeros"], ["y"], "mm",
                                domain="com.microsoft", K=k, N=n, bits=4, block_size=block)
        graph = helper.make_graph([node], "nbits", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, k])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, n])],
                                  [weight, scales, zeros])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                        helper.make_opsetid("com.microsoft", 1)])
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "nbits.onnx")
            onnx.save(model, path)
            run = cli("nodes", "--json", path, "--op", "com.microsoft::MatMulNBits")
        self.assertEqual(run.returncode, 0, run.stderr)
        tensor = json.loads(run.stdout)[0]["quantization"]["tensors"][0]
        self.assertEqual(tensor["zero_points"], [1, 2, 3, 4, 5, 6])
        # Values 0..15 about zero points 1 to 6 at scale 0.5: (0 - 6) / 2 to (15 - 1) / 2.
        self.assertEqual(tensor["range"], [-3.0, 7.0])

    def test_scales_past_the_budget_are_counted_not_read(self):
        # One scale of 0 among the first values of a per-channel scale too large to
        # read (Onyx reads 2^20 scales and zero points at most: an LLM's blocks are
        # billions), beside a small one that is read and judged.
        channels = (1 << 20) + 1
        scale = np.full(channels, 0.01, np.float32)
        scale[0] = 0
        graph = helper.make_graph(
            [helper.make_node("DequantizeLinear", ["big", "big_scale"], ["big_float"], axis=0, name="big_dq"),
             helper.make_node("DequantizeLinear", ["small", "small_scale"], ["small_float"], name="small_dq")],
            "g", [], [helper.make_tensor_value_info("big_float", TensorProto.FLOAT, [channels]),
                      helper.make_tensor_value_info("small_float", TensorProto.FLOAT, [4])],
            [numpy_helper.from_array(np.ones(channels, np.int8), "big"),
             numpy_helper.from_array(scale, "big_scale"),
             numpy_helper.from_array(np.ones(4, np.int8), "small"),
             numpy_helper.from_array(np.float32(0), "small_scale")])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "big.onnx")
            onnx.save(model, path)
            report = check_json(path)[0]
            run = cli("check", path)
        found = [(p["kind"], p["node"]) for p in report["problems"] if p["kind"] in QUANT_KINDS]
        self.assertEqual(found, [("quant-scale", "small_dq")])
        checks = report["quantization_checks"]
        self.assertEqual((checks["scales"], checks["unread"], checks["unread_values"]), (1, 1, channels))
        self.assertIn("1 constant of 1,048,577 values in all left unjudged", run.stdout)

    def test_no_false_finding_on_valid_quantized_models(self):
        """ONNX's operator tests of quantization (Debian's corpus and ONNX 1.22.0's, kept
        in tests/data/onnx-quant-tests), each also with its inputs as constants; the
        generated models and the int4 LLM."""
        folders = [d for d in sorted(glob.glob(os.path.join(TESTDATA, "*")))
                   if any(k in os.path.basename(d) for k in QUANT_TESTS)]
        folders += sorted(glob.glob(data(os.path.join("onnx-quant-tests", "*"))))
        with tempfile.TemporaryDirectory() as tmp:
            paths = [os.path.join(d, "model.onnx") for d in folders]
            for n, d in enumerate(folders):
                made = folded(os.path.join(d, "model.onnx"), d, os.path.join(tmp, "%d.onnx" % n))
                if made is not None:
                    paths.append(made)
            paths += [data(name + ".onnx") for name in QUANTIZED] + [data("llm_tiny.onnx")]
            reports = check_json(*paths)
        totals = {}
        false = []
        for path, report in zip(paths, reports):
            self.assertNotIn("error", report, path)
            for key, value in report["quantization_checks"].items():
                totals[key] = totals.get(key, 0) + value
            false += [(path, p["message"]) for p in report["problems"] if p["kind"] in QUANT_KINDS]
        self.assertEqual(false, [])
        print("%d models, quantization checks made: %s" % (len(paths), totals))
        # The models were seen and the checks made: Debian's 17 tests (build-aux/setup
        # installs them) and ONNX 1.22's 45, each twice, and the 6 quantized models.
        self.assertEqual(len(folders), 17 + 45)
        self.assertEqual(len(paths), 2 * (17 + 45) + 6)
        self.assertGreaterEqual(totals["scales"], 157)
        self.assertGreaterEqual(totals["zero_points"], 150)
        self.assertGreaterEqual(totals["pairs"], 33)
        self.assertGreaterEqual(totals["axes"], 60)
        self.assertGreaterEqual(totals["float_ops"], 11)
        self.assertGreaterEqual(totals["dequantizers"], 92)


class Summary(unittest.TestCase):
    def info(self, name):
        run = cli("info", "--json", data(name + ".onnx"))
        self.assertEqual(run.returncode, 0, run.stderr)
        return json.loads(run.stdout)["quantization"]

    def test_info_json(self):
        expected = {"qdq_cnn": (["QDQ"], 14, 0), "qdq_transformer": (["QDQ"], 20, 10),
                    "dynamic_unet": (["dynamic"], 5, 7), "qoperator_cnn": (["QOperator"], 8, 1),
                    "int4_mlp": (["weight-only"], 2, 1)}
        for name, (kinds, quantized, floats) in expected.items():
            summary = self.info(name)
            self.assertEqual((summary["kinds"], summary["quantized_node_count"], summary["float_node_count"]),
                             (kinds, quantized, floats), name)
        self.assertEqual(self.info("int4_mlp")["types"], ["int4"])
        self.assertAlmostEqual(self.info("int4_mlp")["bits_per_weight"], 5.0)
        self.assertEqual(self.info("dynamic_unet")["float_quantizable_node_count"], 3)
        self.assertIsNone(self.info("qdq_cnn_float"))

    def test_info_text(self):
        run = cli("info", data("qdq_cnn.onnx"))
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("Quantization: QDQ; types uint8, int8, int32\n", run.stdout)
        self.assertIn("  runs quantized   14 nodes: Conv 5, Relu 5, Add 1, Flatten 1, Gemm 1, GlobalAveragePool 1\n",
                      run.stdout)
        self.assertIn("  Q/DQ nodes       9 quantize, 21 dequantize\n", run.stdout)
        self.assertRegex(run.stdout, r"bits per weight  9\.\d\d \(5,050 stored quantized: 9\.\d\d each")
        self.assertNotIn("Quantization", cli("info", data("qdq_cnn_float.onnx")).stdout)

    def test_nodes(self):
        run = cli("nodes", data("qdq_cnn.onnx"), "--op", "Conv")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout.count("quantized: Conv · uint8×int8 → uint8 (QDQ)"), 5)
        run = cli("nodes", "--json", data("qdq_cnn.onnx"), "--op", "DequantizeLinear")
        nodes = json.loads(run.stdout)
        weight = next(n for n in nodes if n["name"] == "stem.weight_DequantizeLinear")["quantization"]
        self.assertEqual(weight["role"], "dequantize")
        self.assertEqual(weight["input_types"], ["int8", None, None])
        tensor = weight["tensors"][0]
        self.assertEqual((tensor["name"], tensor["type"], tensor["scale_count"], tensor["axis"]),
                         ("stem.weight_quantized", "int8", 8, 0))
        self.assertEqual(len(tensor["scales"]), 8)
        self.assertLess(tensor["range"][0], 0)
        run = cli("nodes", data("llm_tiny.onnx"), "--op", "com.microsoft::MatMulNBits")
        self.assertEqual(run.stdout.count("quantized: MatMulNBits · float×uint4 → float (weight-only)"), 11)
        self.assertIn("uint4 in blocks of 32, 256 scales", run.stdout)


class Runs(unittest.TestCase):
    def test_models_run_and_track_their_float_twins(self):
        rng = np.random.default_rng(5)
        with tempfile.TemporaryDirectory() as tmp:
            for name in QUANTIZED:
                twin = data(TWIN.get(name, name + "_float") + ".onnx")
                model = onnx.load(twin)
                feeds = {i.name: rng.random([d.dim_value for d in i.type.tensor_type.shape.dim]).astype(np.float32)
                         for i in model.graph.input}
                got = run_onnxruntime_feeds(data(name + ".onnx"), feeds, tmp)
                want = run_onnxruntime_feeds(twin, feeds, tmp)
                for output, value in want.items():
                    sqnr = 10 * np.log10((value ** 2).sum() / ((got[output] - value) ** 2).sum())
                    # int8 keeps 25–45 dB; int4 in blocks of 32 about 15.
                    self.assertGreater(sqnr, 12 if name == "int4_mlp" else 22, (name, output, sqnr))


if __name__ == "__main__":
    unittest.main()
