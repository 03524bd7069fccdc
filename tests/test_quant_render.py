#!/usr/bin/python3
"""Quantized models drawn as their float twins (onyx-cli render, see
onyx_layout_engine_set_fold_quant): small CNNs and a transformer-like stack made here
with python3-onnx, float and quantized as ONNX Runtime's quantizer writes them (QDQ:
QuantizeLinear → DequantizeLinear pairs on the activations, int8 weights behind a
DequantizeLinear, per channel for Conv; dynamic: DynamicQuantizeLinear → ConvInteger
or MatMulInteger → Cast → Mul; QOperator: QLinearConv, QLinearMatMul, QLinearAdd).
The quantized drawing has at most 1.1 times the boxes of the float one, every group
open or as Auto opens them, no label overlapping another or a box, and says what was
folded: weight lines, edge marks, the ops' types; --no-fold-quant draws every node."""
import os
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree
import zlib

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import onyx_test
from test_labels import SVG, count

OPSET = [helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1)]


class Builder:
    """Nodes and initializers of a float model, named with "/"-scopes as exporters do."""

    def __init__(self, seed=0):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits = [], []

    def weight(self, name, shape, scale=0.1):
        self.inits.append(numpy_helper.from_array((self.rng.standard_normal(shape) * scale).astype(np.float32), name))
        return name

    def op(self, op, scope, inputs, **attrs):
        out = "/%s/%s_output_0" % (scope, op)
        self.nodes.append(helper.make_node(op, inputs, [out], "/%s/%s" % (scope, op), **attrs))
        return out

    def model(self, inputs, outputs, name):
        graph = helper.make_graph(self.nodes, name, inputs, outputs, self.inits)
        return helper.make_model(graph, opset_imports=OPSET[:1], ir_version=8)


def float_cnn(layers=3):
    """A stem Conv, `layers` residual blocks (Conv, Relu, Conv, Add, Relu) and a head
    (MaxPool, GlobalAveragePool, Flatten, MatMul, Add)."""
    b = Builder()
    x = b.op("Conv", "stem/conv", ["input", b.weight("stem.w", (8, 3, 3, 3)), b.weight("stem.b", (8,))],
             pads=[1, 1, 1, 1], kernel_shape=[3, 3])
    x = b.op("Relu", "stem/relu", [x])
    for n in range(layers):
        s = "layers.%d" % n
        h = b.op("Conv", s + "/conv1", [x, b.weight(s + ".w1", (8, 8, 3, 3)), b.weight(s + ".b1", (8,))],
                 pads=[1, 1, 1, 1], kernel_shape=[3, 3])
        h = b.op("Relu", s + "/relu1", [h])
        h = b.op("Conv", s + "/conv2", [h, b.weight(s + ".w2", (8, 8, 3, 3)), b.weight(s + ".b2", (8,))],
                 pads=[1, 1, 1, 1], kernel_shape=[3, 3])
        h = b.op("Add", s + "/add", [h, x])
        x = b.op("Relu", s + "/relu2", [h])
    x = b.op("MaxPool", "head/pool", [x], kernel_shape=[2, 2], strides=[2, 2])
    x = b.op("GlobalAveragePool", "head/gap", [x])
    x = b.op("Flatten", "head/flatten", [x])
    x = b.op("MatMul", "head/fc", [x, b.weight("fc.w", (8, 4))])
    b.nodes.append(helper.make_node("Add", [x, b.weight("fc.b", (4,))], ["output"], "/head/fc/Add"))
    return b.model([helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 16, 16])],
                   [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 4])], "cnn")


def float_transformer(layers=3, d=16):
    """`layers` blocks of a single-head attention and a feed-forward on [8, d] tokens."""
    b = Builder(1)
    x = "tokens"
    for n in range(layers):
        s = "layers.%d" % n
        q = b.op("MatMul", s + "/attn/q", [x, b.weight(s + ".wq", (d, d))])
        k = b.op("MatMul", s + "/attn/k", [x, b.weight(s + ".wk", (d, d))])
        v = b.op("MatMul", s + "/attn/v", [x, b.weight(s + ".wv", (d, d))])
        kt = b.op("Transpose", s + "/attn", [k], perm=[1, 0])
        a = b.op("MatMul", s + "/attn/scores", [q, kt])
        a = b.op("Softmax", s + "/attn", [a], axis=-1)
        a = b.op("MatMul", s + "/attn/mix", [a, v])
        a = b.op("MatMul", s + "/attn/out", [a, b.weight(s + ".wo", (d, d))])
        x = b.op("Add", s + "/attn/residual", [a, x])
        h = b.op("MatMul", s + "/ffn/fc1", [x, b.weight(s + ".w1", (d, 2 * d))])
        h = b.op("Add", s + "/ffn/fc1/bias", [h, b.weight(s + ".b1", (2 * d,))])
        h = b.op("Relu", s + "/ffn", [h])
        h = b.op("MatMul", s + "/ffn/fc2", [h, b.weight(s + ".w2", (2 * d, d))])
        x = b.op("Add", s + "/ffn/residual", [h, x])
    b.nodes[-1].output[0] = "encoded"
    return b.model([helper.make_tensor_value_info("tokens", TensorProto.FLOAT, [8, d])],
                   [helper.make_tensor_value_info("encoded", TensorProto.FLOAT, [8, d])], "transformer")


def activation_params(name):
    """A scale and a uint8 zero point of an activation, made up but stable."""
    h = zlib.crc32(name.encode())
    return np.float32(0.005 + (h % 1000) / 20000.0), np.uint8(100 + h % 56)


def quantize_weight(inits, name, axis=None):
    """int8 symmetric, per channel along `axis`; adds the tensors, returns their names."""
    w = numpy_helper.to_array(inits[name])
    if axis is None:
        scale = np.float32(max(np.abs(w).max(), 1e-8) / 127)
        q = np.round(w / scale)
    else:
        scale = (np.abs(np.moveaxis(w, axis, 0).reshape(w.shape[axis], -1)).max(axis=1) / 127).astype(np.float32)
        q = np.round(w / scale.reshape([-1 if i == axis else 1 for i in range(w.ndim)]))
    zero = np.zeros(np.shape(scale), np.int8)
    return [numpy_helper.from_array(np.clip(q, -127, 127).astype(np.int8), name + "_quantized"),
            numpy_helper.from_array(np.asarray(scale, np.float32), name + "_scale"),
            numpy_helper.from_array(zero, name + "_zero_point")], np.asarray(scale, np.float32)


QDQ_OPS = {"Conv", "Relu", "Add", "MaxPool", "GlobalAveragePool", "MatMul", "Transpose", "Softmax"}


def quantize_qdq(float_model, float_outputs=False):
    """The model as ONNX Runtime's quantize_static writes it in QDQ format; with
    `float_outputs`, the graph's outputs left unquantized (a float head)."""
    model = onnx.ModelProto()
    model.CopyFrom(float_model)
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    outputs = {o.name for o in g.output}
    new_inits, weight_nodes, activations = [], [], []
    for node in g.node:
        if node.op_type not in QDQ_OPS:
            continue
        read = list(node.input)
        for slot, name in enumerate(read):
            if name in inits:
                if node.op_type == "Conv" and slot == 2:
                    x_scale = activation_params(read[0])[0]
                    _, w_scale = quantize_weight(inits, read[1], 0)
                    b = numpy_helper.to_array(inits[name])
                    scale = (x_scale * w_scale).astype(np.float32)
                    tensors = [numpy_helper.from_array(np.round(b / scale).astype(np.int32), name + "_quantized"),
                               numpy_helper.from_array(scale, name + "_scale"),
                               numpy_helper.from_array(np.zeros(scale.shape, np.int32), name + "_zero_point")]
                    axis = 0
                else:
                    axis = 0 if node.op_type == "Conv" else None
                    tensors, _ = quantize_weight(inits, name, axis)
                new_inits += tensors
                weight_nodes.append(helper.make_node(
                    "DequantizeLinear", [t.name for t in tensors], [name + "_DequantizeLinear_Output"],
                    name + "_DequantizeLinear", **({"axis": axis} if axis is not None else {})))
                node.input[slot] = name + "_DequantizeLinear_Output"
            elif name not in activations:
                activations.append(name)
        for name in node.output:
            if name not in activations:
                activations.append(name)
    pairs = []
    for name in activations:
        if float_outputs and name in outputs:
            continue
        scale, zero = activation_params(name)
        new_inits += [numpy_helper.from_array(np.array(scale), name + "_scale"),
                      numpy_helper.from_array(np.array(zero), name + "_zero_point")]
        q_in, dq_out = name, name + "_DequantizeLinear_Output"
        if name in outputs:
            q_in, dq_out = name + "_QuantizeLinear_Input", name
            for node in g.node:
                node.output[:] = [q_in if o == name else o for o in node.output]
        else:
            for node in g.node:
                node.input[:] = [dq_out if i == name else i for i in node.input]
        pairs += [helper.make_node("QuantizeLinear", [q_in, name + "_scale", name + "_zero_point"],
                                   [name + "_QuantizeLinear_Output"], name + "_QuantizeLinear"),
                  helper.make_node("DequantizeLinear", [name + "_QuantizeLinear_Output", name + "_scale",
                                                        name + "_zero_point"], [dq_out], name + "_DequantizeLinear")]
    nodes = weight_nodes + pairs + list(g.node)
    return finish(model, nodes, new_inits)


def finish(model, nodes, new_inits):
    """The nodes in an order that runs, the initializers they read."""
    g = model.graph
    made = {i.name for i in g.input} | {i.name for i in g.initializer} | {i.name for i in new_inits}
    ordered, left = [], list(nodes)
    while left:
        ready = [n for n in left if all(i == "" or i in made for i in n.input)]
        assert ready, "a cycle"
        for n in ready:
            ordered.append(n)
            made.update(n.output)
            left.remove(n)
    del g.node[:]
    g.node.extend(ordered)
    read = {i for n in ordered for i in n.input}
    kept = [i for i in list(g.initializer) + new_inits if i.name in read]
    del g.initializer[:]
    g.initializer.extend(kept)
    onnx.checker.check_model(model)
    return model


def quantize_dynamic(float_model):
    """The model as ONNX Runtime's quantize_dynamic writes it: Conv and MatMul of a weight
    as DynamicQuantizeLinear → ConvInteger/MatMulInteger → Cast → Mul by the scales,
    a Conv's bias added after through a Reshape; one DynamicQuantizeLinear per input."""
    model = onnx.ModelProto()
    model.CopyFrom(float_model)
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    nodes, new_inits, quantized = [], [], {}
    for node in g.node:
        if node.op_type not in ("Conv", "MatMul") or node.input[1] not in inits:
            nodes.append(node)
            continue
        x = node.input[0]
        if x not in quantized:
            quantized[x] = [x + "_quantized", x + "_scale", x + "_zero_point"]
            nodes.append(helper.make_node("DynamicQuantizeLinear", [x], quantized[x], x + "_QuantizeLinear"))
        xq, xs, xz = quantized[x]
        tensors, _ = quantize_weight(inits, node.input[1])
        new_inits += tensors
        base = node.name + "_quant"
        integer = node.output[0] + "_output_quantized"
        op = helper.make_node(node.op_type + "Integer", [xq, tensors[0].name, xz, tensors[2].name], [integer], base)
        op.attribute.extend(node.attribute)
        has_bias = len(node.input) > 2
        scaled = node.output[0] + "quant_scaled_output" if has_bias else node.output[0]
        nodes += [op, helper.make_node("Cast", [integer], [integer + "_cast_output"], integer + "_cast", to=1),
                  helper.make_node("Mul", [xs, tensors[1].name], [base + "_scales_mul:0"], base + "_scales_mul"),
                  helper.make_node("Mul", [integer + "_cast_output", base + "_scales_mul:0"], [scaled],
                                   base + "_output_scale_mul")]
        if has_bias:
            shape = node.output[0] + "_bias_reshape_shape"
            new_inits.append(numpy_helper.from_array(np.array([1, -1, 1, 1], np.int64), shape))
            nodes += [helper.make_node("Reshape", [node.input[2], shape], [node.output[0] + "_bias_reshape_output"]),
                      helper.make_node("Add", [scaled, node.output[0] + "_bias_reshape_output"], [node.output[0]],
                                       node.output[0] + "_bias_add")]
    return finish(model, nodes, new_inits)


def qlinear_model():
    """QuantizeLinear, QLinearConv, QLinearConv, com.microsoft's QLinearAdd of both,
    QLinearMatMul, DequantizeLinear: the QOperator format."""
    rng = np.random.default_rng(2)
    inits = []

    def tensor(name, value):
        inits.append(numpy_helper.from_array(value, name))
        return name

    def params(name, scale, zero, dtype=np.uint8):
        return [tensor(name + "_scale", np.array(scale, np.float32)), tensor(name + "_zero_point", np.array(zero, dtype))]

    w1 = tensor("w1_quantized", rng.integers(-127, 127, (4, 3, 3, 3)).astype(np.int8))
    w2 = tensor("w2_quantized", rng.integers(-127, 127, (4, 4, 1, 1)).astype(np.int8))
    w1p = [tensor("w1_scale", np.full(4, 0.01, np.float32)), tensor("w1_zero_point", np.zeros(4, np.int8))]
    w2p = params("w2", 0.02, 0, np.int8)
    m = tensor("m_quantized", rng.integers(0, 255, (8, 8)).astype(np.uint8))
    nodes = [
        helper.make_node("QuantizeLinear", ["input"] + params("input", 0.0235, 128), ["x"], "/quant"),
        helper.make_node("QLinearConv", ["x", "input_scale", "input_zero_point", w1] + w1p + params("c1", 0.05, 120),
                         ["c1"], "/conv1", pads=[1, 1, 1, 1]),
        helper.make_node("QLinearConv", ["c1", "c1_scale", "c1_zero_point", w2] + w2p + params("c2", 0.04, 110),
                         ["c2"], "/conv2"),
        helper.make_node("QLinearAdd", ["c1", "c1_scale", "c1_zero_point", "c2", "c2_scale", "c2_zero_point"]
                         + params("sum", 0.06, 125), ["sum"], "/add", domain="com.microsoft"),
        helper.make_node("QLinearMatMul", ["sum", "sum_scale", "sum_zero_point", m] + params("m", 0.03, 128)
                         + params("y", 0.07, 127), ["y"], "/matmul"),
        helper.make_node("DequantizeLinear", ["y", "y_scale", "y_zero_point"], ["output"], "/dequant"),
    ]
    graph = helper.make_graph(nodes, "qlinear", [helper.make_tensor_value_info("input", TensorProto.FLOAT,
                                                                                [1, 3, 8, 8])],
                              [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 4, 8, 8])], inits)
    return helper.make_model(graph, opset_imports=OPSET, ir_version=8)


def drawing(path, expand="all", *extra):
    """(boxes, [box titles], {texts}, collisions) of the model's SVG: boxes counts op,
    value and group boxes (an op box's title is its node's name); collisions sums
    count()'s overlaps, labels out of the picture and cut texts."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "x.svg")
        run = onyx_test.cli("render", path, "-o", out, "--expand", expand, *extra, timeout=300)
        assert run.returncode == 0, run.stderr
        root = ElementTree.parse(out).getroot()
        boxes = [g for g in root.iter(SVG + "g") if g.get("data-box") is not None or g.get("data-group") is not None]
        titles = [g.find(SVG + "title").text for g in boxes if g.get("data-box") is not None]
        texts = {"".join(t.itertext()) for t in root.iter(SVG + "text")}
        found = count(out)
        return len(boxes), titles, texts, sum(found[k] for k in ("label_label", "label_box", "outside", "cut"))


class QuantRenderTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.checks = 0

    def tearDown(self):
        self.tmp.cleanup()

    def save(self, model, name):
        path = os.path.join(self.tmp.name, name)
        onnx.save(model, path)
        return path

    def assert_twins(self, float_model, quantized, name):
        """The quantized drawing: at most 1.1 × the float one's boxes, no collision.
        Returns the texts of the quantized drawing with every group open."""
        float_path, quant_path = self.save(float_model, name + "_float.onnx"), self.save(quantized, name + ".onnx")
        self.assertGreater(len(quantized.graph.node), 1.5 * len(float_model.graph.node))
        texts = None
        for expand in ("all", "auto"):
            float_boxes, _, _, float_collisions = drawing(float_path, expand)
            boxes, _, shown, collisions = drawing(quant_path, expand)
            unfolded, titles, _, unfolded_collisions = drawing(quant_path, expand, "--no-fold-quant")
            print("%s --expand %s: float %d boxes, quantized %d (%d with --no-fold-quant)" % (
                name, expand, float_boxes, boxes, unfolded))
            self.assertLessEqual(boxes, 1.1 * float_boxes, (name, expand))
            self.assertEqual((float_collisions, collisions, unfolded_collisions), (0, 0, 0), (name, expand))
            self.checks += 2
            if expand == "all":
                texts = shown
                # Unfolded: a box per node (titled by its name); the others are the graph's
                # inputs and outputs, and stubs of what many groups read ("from …").
                g = quantized.graph
                values = {v.name for v in list(g.input) + list(g.output)}
                ops = [t for t in titles if t not in values and not t.startswith(("from ", "to "))]
                self.assertEqual(len(ops), len(g.node))
                self.assertEqual(set(ops), {n.name or n.op_type for n in g.node})
                self.checks += 2
        return texts

    def test_qdq_cnn(self):
        texts = self.assert_twins(float_cnn(), quantize_qdq(float_cnn()), "cnn_qdq")
        # Weights per channel and the int32 bias as lines of their Conv, the activations'
        # pairs as marks, the ops' quantized types in their titles.
        for text in ("W int8 ⟨8×8×3×3⟩ per-channel ×8", "B int32 ⟨8⟩ per-channel ×8", "Conv · uint8/int8 → uint8",
                     "Relu · uint8 → uint8", "Add · uint8 → uint8", "MatMul · uint8/int8 → uint8"):
            self.assertIn(text, texts)
            self.checks += 1
        # A per-tensor weight says its scale and zero point.
        self.assertTrue([t for t in texts if t.startswith("B int8 ⟨8×4⟩ s=0.") and t.endswith(" zp=0")], texts)
        scale, zero = activation_params("/layers.1/relu2/Relu_output_0")
        self.assertIn("uint8 s=%.3g zp=%d" % (scale, zero), texts)
        self.assertFalse([t for t in texts if t.startswith(("QuantizeLinear", "DequantizeLinear"))])
        self.checks += 3
        # A head left in float: its bias Add runs on quantized inputs and gives float.
        _, _, shown, _ = drawing(self.save(quantize_qdq(float_cnn(), float_outputs=True), "cnn_float_head.onnx"), "all")
        self.assertIn("Add · uint8/int8 → float", shown)
        self.checks += 1
        self.assertEqual(self.checks, 16)

    def test_dynamic_cnn(self):
        texts = self.assert_twins(float_cnn(), quantize_dynamic(float_cnn()), "cnn_dynamic")
        for text in ("Conv (dynamic int8)", "MatMul (dynamic int8)", "uint8 dynamic", "B ⟨8⟩"):
            self.assertIn(text, texts)
            self.checks += 1
        self.assertTrue([t for t in texts if t.startswith("W int8 ⟨8×8×3×3⟩ s=") and t.endswith(" zp=0")], texts)
        self.assertFalse([t for t in texts if t.startswith(("DynamicQuantizeLinear", "Cast", "ConvInteger"))])
        self.checks += 2
        self.assertEqual(self.checks, 12)

    def test_transformer_stack(self):
        float_model = float_transformer()
        for quantized, name in ((quantize_qdq(float_model), "transformer_qdq"),
                                (quantize_dynamic(float_model), "transformer_dynamic")):
            texts = self.assert_twins(float_model, quantized, name)
            self.assertIn("MatMul · uint8/int8 → uint8" if name.endswith("qdq") else "MatMul (dynamic int8)", texts)
            # Auto keeps the alike layers one stack, however their scales differ.
            _, _, closed, _ = drawing(self.save(quantized, name + ".onnx"), "auto")
            self.assertIn("layers.0–2", closed)
            self.checks += 2
        self.assertEqual(self.checks, 16)

    def test_qlinear_lines(self):
        path = self.save(qlinear_model(), "qlinear.onnx")
        _, _, texts, collisions = drawing(path)
        self.assertEqual(collisions, 0)
        # Each scale with its zero point and what they quantize, one line each.
        for text in ("x uint8 s=0.0235 zp=128", "w int8 ⟨4×3×3×3⟩ per-channel ×4", "y uint8 s=0.05 zp=120",
                     "w int8 ⟨4×4×1×1⟩ s=0.02 zp=0", "A uint8 s=0.05 zp=120", "C uint8 s=0.06 zp=125",
                     "b uint8 ⟨8×8⟩ s=0.03 zp=128", "y uint8 s=0.07 zp=127"):
            self.assertIn(text, texts)
            self.checks += 1
        self.assertFalse([t for t in texts if "_scale" in t or "_zero_point" in t], texts)
        _, _, unfolded, _ = drawing(path, "all", "--no-fold-quant")
        self.assertIn("x_scale ⟨⟩", unfolded)
        self.checks += 3
        self.assertEqual(self.checks, 11)

    def test_help_names_the_option(self):
        run = onyx_test.cli("render", "--help")
        self.assertIn("--no-fold-quant", run.stdout)


if __name__ == "__main__":
    unittest.main()
