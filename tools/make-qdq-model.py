#!/usr/bin/python3
"""Writes quantized models as ONNX Runtime's quantizer writes them, each beside its
float twin (the same network, weights and node names), for the tests of quantization:

  qdq_cnn.onnx           QDQ: Conv (BatchNormalization folded) / Relu / Add /
                         GlobalAveragePool / Gemm; weights int8 per channel behind
                         DequantizeLinear, biases int32, activations QuantizeLinear →
                         DequantizeLinear in uint8 per tensor; opset 17
  qdq_transformer.onnx   QDQ: a transformer encoder block (LayerNormalization, MatMul
                         projections, attention, MLP), MatMul weights int8 per column
  dynamic_unet.onnx      dynamic: a background-removal-style U-Net (downsampling, a
                         skip Concat, Resize, a Sigmoid mask) whose Convs are
                         DynamicQuantizeLinear → ConvInteger → Cast → Mul by the scales
                         → Add the bias, as quantize_dynamic writes them
  qoperator_cnn.onnx     QOperator: the CNN as QLinearConv, QLinearAdd,
                         QLinearGlobalAveragePool and QGemm between a QuantizeLinear in and
                         float out; its float twin is qdq_cnn_float.onnx
  int4_mlp.onnx          weight-only int4: DequantizeLinear of int4 weights in blocks of 32
                         (opset 21's block_size) → MatMul, as `use_qdq` writes them

and NAME_float.onnx for each but qoperator_cnn. Activation scales are calibrated on
random inputs uniform in [0, 1), which `onyx-cli run` feeds by default, so that the
quantized model's outputs track the float one's. Random weights, fixed seed. Run
with /usr/bin/python3 (python3-onnx, python3-numpy).

usage: make-qdq-model.py OUT_DIR [--only NAME] [--width N]"""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

INT4 = 22  # TensorProto.INT4 of ONNX ≥ 1.16; python3-onnx 1.12 does not name it
CALIBRATION = 16


# ---- The networks, as layers evaluated in numpy ----

def conv2d(x, w, b, stride, pad):
    n, c, h, wd = x.shape
    m, _, kh, kw = w.shape
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    cols = np.empty((n, c, kh, kw, oh, ow), np.float32)
    for i in range(kh):
        for j in range(kw):
            cols[:, :, i, j] = x[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
    y = np.einsum("nckl...,mckl->nm...", cols, w, optimize=True)
    return (y + b.reshape(1, m, 1, 1)).astype(np.float32)


def layer_norm(x, scale, bias):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return ((x - mean) / np.sqrt(var + 1e-5) * scale + bias).astype(np.float32)


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)


class Net:
    """A network as a list of layers, each with its node name, op, inputs, output,
    weights (float, numpy) and attributes; `run` evaluates it."""

    def __init__(self, name, inputs, rng):
        self.name, self.inputs, self.rng = name, inputs, rng
        self.layers, self.outputs = [], []

    def add(self, node, op, inputs, weights=None, **attrs):
        out = node + "_output_0"
        self.layers.append(dict(node=node, op=op, inputs=list(inputs), out=out, weights=weights or {}, attrs=attrs))
        return out

    def weight(self, *shape, fan_in):
        return (self.rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)

    def conv(self, node, x, cin, cout, k=3, stride=1, relu=True):
        """A Conv with a BatchNormalization folded into its weight and bias."""
        w = self.weight(cout, cin, k, k, fan_in=cin * k * k)
        gamma = self.rng.uniform(0.5, 1.5, cout).astype(np.float32)
        beta = self.rng.uniform(-0.2, 0.2, cout).astype(np.float32)
        mean = self.rng.uniform(-0.1, 0.1, cout).astype(np.float32)
        var = self.rng.uniform(0.5, 1.5, cout).astype(np.float32)
        factor = gamma / np.sqrt(var + 1e-5)
        w = (w * factor.reshape(-1, 1, 1, 1)).astype(np.float32)
        b = (beta - mean * factor).astype(np.float32)
        y = self.add(node + "/Conv", "Conv", [x], dict(W=w, B=b), stride=stride, pad=k // 2)
        return self.add(node + "/Relu", "Relu", [y]) if relu else y

    def run(self, feeds):
        values = dict(feeds)
        self.shapes = {}
        for layer in self.layers:
            xs = [values[i] for i in layer["inputs"]]
            w, a, op = layer["weights"], layer["attrs"], layer["op"]
            if op == "Conv":
                y = conv2d(xs[0], w["W"], w["B"], a["stride"], a["pad"])
            elif op == "Relu":
                y = np.maximum(xs[0], 0)
            elif op == "Sigmoid":
                y = 1 / (1 + np.exp(-xs[0]))
            elif op == "Add":
                y = xs[0] + (xs[1] if len(xs) > 1 else w["B"])
            elif op == "Mul":
                y = xs[0] * (xs[1] if len(xs) > 1 else w["C"])
            elif op == "GlobalAveragePool":
                y = xs[0].mean(axis=(2, 3), keepdims=True)
            elif op == "Flatten":
                y = xs[0].reshape(xs[0].shape[0], -1)
            elif op == "Gemm":
                y = xs[0] @ w["W"].T + w["B"]
            elif op == "MatMul":
                y = xs[0] @ (xs[1] if len(xs) > 1 else w["W"])
            elif op == "LayerNormalization":
                y = layer_norm(xs[0], w["scale"], w["bias"])
            elif op == "Softmax":
                y = softmax(xs[0])
            elif op == "Reshape":
                y = xs[0].reshape([d if d != 0 else xs[0].shape[i] for i, d in enumerate(a["shape"])])
            elif op == "Transpose":
                y = xs[0].transpose(a["perm"])
            elif op == "Resize":
                y = xs[0].repeat(2, axis=2).repeat(2, axis=3)
            elif op == "Concat":
                y = np.concatenate(xs, axis=a["axis"])
            else:
                raise ValueError(op)
            values[layer["out"]] = y.astype(np.float32)
            self.shapes[layer["out"]] = (1,) + y.shape[1:]
        return values


def cnn(rng, width):
    net = Net("qdq_cnn", [("input", (1, 3, 32, 32))], rng)
    c = width
    x = net.conv("/stem", "input", 3, c)
    x = net.conv("/block1/conv1", x, c, c)
    y = net.conv("/block1/conv2", x, c, c, relu=False)
    x = net.add("/block1/Relu", "Relu", [net.add("/block1/Add", "Add", [x, y])])
    x = net.conv("/down", x, c, 2 * c, stride=2)
    x = net.conv("/block2/conv1", x, 2 * c, 2 * c)
    x = net.add("/pool/GlobalAveragePool", "GlobalAveragePool", [x])
    x = net.add("/flatten/Flatten", "Flatten", [x])
    net.outputs = [net.add("/fc/Gemm", "Gemm", [x], dict(W=net.weight(10, 2 * c, fan_in=2 * c),
                                                           B=np.zeros(10, np.float32)))]
    return net


def transformer(rng, width):
    d, heads, seq = 2 * width, 2, 8
    head = d // heads
    net = Net("qdq_transformer", [("hidden_states", (1, seq, d))], rng)

    def linear(node, x, k, n):
        y = net.add(node + "/MatMul", "MatMul", [x], dict(W=net.weight(k, n, fan_in=k)))
        return net.add(node + "/Add", "Add", [y], dict(B=(rng.standard_normal(n) * 0.1).astype(np.float32)))

    def split(node, x):
        x = net.add(node + "/Reshape", "Reshape", [x], shape=[0, 0, heads, head])
        return net.add(node + "/Transpose", "Transpose", [x], perm=[0, 2, 1, 3])

    x = "hidden_states"
    normed = net.add("/attention/norm/LayerNormalization", "LayerNormalization", [x],
                     dict(scale=np.ones(d, np.float32), bias=np.zeros(d, np.float32)))
    q = split("/attention/q", linear("/attention/q", normed, d, d))
    k = split("/attention/k", linear("/attention/k", normed, d, d))
    v = split("/attention/v", linear("/attention/v", normed, d, d))
    kt = net.add("/attention/kt/Transpose", "Transpose", [k], perm=[0, 1, 3, 2])
    scores = net.add("/attention/scores/MatMul", "MatMul", [q, kt])
    scores = net.add("/attention/scale/Mul", "Mul", [scores], dict(C=np.array(head ** -0.5, np.float32)))
    probs = net.add("/attention/Softmax", "Softmax", [scores], axis=-1)
    context = net.add("/attention/context/MatMul", "MatMul", [probs, v])
    context = net.add("/attention/merge/Transpose", "Transpose", [context], perm=[0, 2, 1, 3])
    context = net.add("/attention/merge/Reshape", "Reshape", [context], shape=[0, 0, d])
    x = net.add("/attention/residual/Add", "Add", [x, linear("/attention/o", context, d, d)])
    normed = net.add("/mlp/norm/LayerNormalization", "LayerNormalization", [x],
                     dict(scale=np.ones(d, np.float32), bias=np.zeros(d, np.float32)))
    hidden = net.add("/mlp/Relu", "Relu", [linear("/mlp/up", normed, d, 2 * d)])
    net.outputs = [net.add("/mlp/residual/Add", "Add", [x, linear("/mlp/down", hidden, 2 * d, d)])]
    return net


def unet(rng, width):
    c = width
    net = Net("dynamic_unet", [("image", (1, 3, 32, 32))], rng)
    e1 = net.conv("/encoder1", "image", 3, c)
    e2 = net.conv("/encoder2", e1, c, 2 * c, stride=2)
    m = net.conv("/middle", e2, 2 * c, 2 * c)
    up = net.add("/up/Resize", "Resize", [m])
    x = net.add("/skip/Concat", "Concat", [up, e1], axis=1)
    x = net.conv("/decoder", x, 3 * c, c)
    x = net.conv("/head", x, c, 1, relu=False)
    net.outputs = [net.add("/mask/Sigmoid", "Sigmoid", [x])]
    return net


def mlp(rng, width):
    d = 4 * width
    net = Net("int4_mlp", [("x", (1, 4, d))], rng)
    x = net.add("/up/MatMul", "MatMul", ["x"], dict(W=net.weight(d, 2 * d, fan_in=d)))
    x = net.add("/act/Relu", "Relu", [x])
    net.outputs = [net.add("/down/MatMul", "MatMul", [x], dict(W=net.weight(2 * d, d, fan_in=2 * d)))]
    return net


# ---- Writing them ----

WEIGHT_NAMES = {"W": "weight", "B": "bias", "C": "scale"}


def module_path(node):
    """"stem" of node /stem/Conv, as torch names the module's weights."""
    return ".".join(node.strip("/").split("/")[:-1])


class Writer:
    def __init__(self, net):
        self.net, self.nodes, self.initializers = net, [], []

    def const(self, name, array):
        self.initializers.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op, inputs, outputs, name, domain=None, **attrs):
        self.nodes.append(helper.make_node(op, inputs, outputs, name=name, domain=domain, **attrs))
        return outputs[0]

    def float_layer(self, layer, inputs):
        """A layer's float nodes reading `inputs` (its weights as float initializers)."""
        w, a, node, op, out = layer["weights"], layer["attrs"], layer["node"], layer["op"], layer["out"]
        prefix = module_path(node)
        if op == "Conv":
            return self.node("Conv", inputs + [self.const(prefix + ".weight", w["W"]), self.const(prefix + ".bias", w["B"])],
                             [out], node, strides=[a["stride"]] * 2, pads=[a["pad"]] * 4)
        if op == "Gemm":
            return self.node("Gemm", inputs + [self.const(prefix + ".weight", w["W"]), self.const(prefix + ".bias", w["B"])],
                             [out], node, transB=1)
        if op in ("MatMul", "Add", "Mul") and w:
            key = next(iter(w))
            return self.node(op, inputs + [self.const(prefix + "." + WEIGHT_NAMES[key], w[key])], [out], node)
        if op == "LayerNormalization":
            return self.node(op, inputs + [self.const(prefix + ".scale", w["scale"]), self.const(prefix + ".bias", w["bias"])],
                             [out], node, axis=-1, epsilon=1e-5)
        if op == "Reshape":
            return self.node(op, inputs + [self.const(prefix + ".shape", np.array(a["shape"], np.int64))], [out], node)
        if op == "Resize":
            return self.node(op, inputs + ["", self.const(prefix + ".scales", np.array([1, 1, 2, 2], np.float32))], [out],
                             node, mode="nearest")
        return self.node(op, inputs, [out], node, **a)

    def model(self, opset=17, domains=()):
        net = self.net
        inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(s)) for n, s in net.inputs]
        outputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(net.shapes[n])) for n in net.outputs]
        graph = helper.make_graph(self.nodes, net.name, inputs, outputs, self.initializers)
        opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, 1) for d in domains]
        model = helper.make_model(graph, opset_imports=opsets, producer_name="onnx.quantization",
                                  producer_version="1.31.1")
        model.ir_version = 8 if opset <= 17 else 10
        return model


def write_float(net):
    w = Writer(net)
    for layer in net.layers:
        w.float_layer(layer, layer["inputs"])
    return w.model()


def activation_params(values):
    """uint8 per-tensor scale and zero point of a tensor's calibrated range (0 in it)."""
    low, high = min(float(values.min()), 0.0), max(float(values.max()), 0.0)
    scale = max(high - low, 1e-8) / 255.0
    return np.float32(scale), np.uint8(np.clip(round(-low / scale), 0, 255))


def weight_params(w, axis):
    """int8 symmetric scales per slice along `axis` (None: one for the tensor)."""
    if axis is None:
        return np.float32(max(float(np.abs(w).max()), 1e-8) / 127.0)
    other = tuple(i for i in range(w.ndim) if i != axis)
    return (np.maximum(np.abs(w).max(axis=other), 1e-8) / 127.0).astype(np.float32)


def quantize(w, scale, axis, qmin=-128, qmax=127, dtype=np.int8):
    shape = [1] * w.ndim
    if axis is not None:
        shape[axis] = -1
    return np.clip(np.rint(w / np.reshape(scale, shape)), qmin, qmax).astype(dtype)


QDQ_OPS = {"Conv", "Gemm", "MatMul", "Add", "Mul", "GlobalAveragePool", "Softmax", "Concat", "Resize", "Sigmoid"}


class QDQWriter(Writer):
    """Activations read by a quantizable op go through QuantizeLinear → DequantizeLinear
    once, after their producer; weights are int8 initializers behind DequantizeLinear."""

    def __init__(self, net, values):
        super().__init__(net)
        self.values, self.dequantized = values, {}

    def activation(self, name):
        if name not in self.dequantized:
            scale, zero = activation_params(self.values[name])
            s = self.const(name + "_scale", scale)
            z = self.const(name + "_zero_point", zero)
            q = self.node("QuantizeLinear", [name, s, z], [name + "_QuantizeLinear_Output"], name + "_QuantizeLinear")
            self.dequantized[name] = self.node("DequantizeLinear", [q, s, z], [name + "_DequantizeLinear_Output"],
                                               name + "_DequantizeLinear")
        return self.dequantized[name]

    def weight(self, name, w, axis, dtype=np.int8):
        scale = weight_params(w, axis)
        q = self.const(name + "_quantized", quantize(w, scale, axis))
        s = self.const(name + "_scale", scale)
        z = self.const(name + "_zero_point", np.zeros(np.shape(scale), dtype))
        kwargs = {"axis": axis} if axis is not None else {}
        return self.node("DequantizeLinear", [q, s, z], [name + "_DequantizeLinear_Output"], name + "_DequantizeLinear",
                         **kwargs), scale

    def bias(self, name, b, input_scale, weight_scale):
        """int32, its scale the input's times the weight's, per channel."""
        scale = (input_scale * weight_scale).astype(np.float32)
        q = self.const(name + "_quantized", np.rint(b / scale).astype(np.int32))
        s = self.const(name + "_scale", scale)
        z = self.const(name + "_zero_point", np.zeros(scale.shape, np.int32))
        return self.node("DequantizeLinear", [q, s, z], [name + "_DequantizeLinear_Output"], name + "_DequantizeLinear",
                         axis=0)

    def layer(self, layer):
        op, w, node, out = layer["op"], layer["weights"], layer["node"], layer["out"]
        prefix = module_path(node)
        if op not in QDQ_OPS:
            return self.float_layer(layer, [self.dequantized.get(i, i) for i in layer["inputs"]])
        inputs = [self.activation(i) for i in layer["inputs"]]
        if op in ("Conv", "Gemm"):
            x_scale, _ = activation_params(self.values[layer["inputs"][0]])
            wq, w_scale = self.weight(prefix + ".weight", w["W"], 0)
            bq = self.bias(prefix + ".bias", w["B"], x_scale, w_scale)
            a = layer["attrs"]
            attrs = dict(strides=[a["stride"]] * 2, pads=[a["pad"]] * 4) if op == "Conv" else dict(transB=1)
            return self.node(op, inputs + [wq, bq], [out], node, **attrs)
        if op == "MatMul" and w:
            wq, _ = self.weight(prefix + ".weight", w["W"], 1)
            return self.node(op, inputs + [wq], [out], node)
        if op in ("Add", "Mul") and w:
            key = next(iter(w))
            wq, _ = self.weight(prefix + "." + WEIGHT_NAMES[key], w[key], None)
            return self.node(op, inputs + [wq], [out], node)
        return self.float_layer(layer, inputs)


def write_qdq(net, values):
    w = QDQWriter(net, values)
    consumers = {}
    for layer in net.layers:
        for i in layer["inputs"]:
            consumers.setdefault(i, []).append(layer)
    for layer in net.layers:
        w.layer(layer)
        # A quantized op's output is quantized again right after it, unless a Relu
        # comes between (whose output is, then).
        readers = consumers.get(layer["out"], [])
        if layer["op"] in QDQ_OPS | {"Relu"} and layer["out"] not in net.outputs and readers \
                and any(c["op"] != "Relu" for c in readers):
            w.activation(layer["out"])
    return w.model()


def write_dynamic(net):
    """Each Conv as quantize_dynamic writes it: the activation quantized at run time,
    the weight int8 per tensor, the integer result cast and scaled back, then the bias."""
    w = Writer(net)
    for layer in net.layers:
        if layer["op"] != "Conv":
            w.float_layer(layer, layer["inputs"])
            continue
        node, x, out, a = layer["node"], layer["inputs"][0], layer["out"], layer["attrs"]
        prefix = module_path(node)
        scale = weight_params(layer["weights"]["W"], None)
        wq = w.const(prefix + ".weight_quantized", quantize(layer["weights"]["W"], scale, None))
        ws = w.const(prefix + ".weight_scale", scale)
        wz = w.const(prefix + ".weight_zero_point", np.int8(0))
        xq, xs, xz = (x + "_quantized", x + "_scale", x + "_zero_point")
        if not any(n.output[0] == xq for n in w.nodes):
            w.node("DynamicQuantizeLinear", [x], [xq, xs, xz], x + "_QuantizeLinear")
        integer = w.node("ConvInteger", [xq, wq, xz, wz], [out + "_output_quantized"], node + "_quant",
                         strides=[a["stride"]] * 2, pads=[a["pad"]] * 4)
        cast = w.node("Cast", [integer], [integer + "_cast_output"], integer + "_cast", to=TensorProto.FLOAT)
        scales = w.node("Mul", [xs, ws], [node + "_scales_mul:0"], node + "_scales_mul")
        scaled = w.node("Mul", [cast, scales], [out + "_scaled"], node + "_output_scale_mul")
        bias = w.const(prefix + ".bias_reshaped", layer["weights"]["B"].reshape(-1, 1, 1))
        w.node("Add", [scaled, bias], [out], node + "_bias_add")
    return w.model()


def write_qoperator(net, values):
    """The CNN with uint8 tensors between QLinear operators (ONNX's and ONNX Runtime's):
    a Relu is folded into the range of the output of the Conv or Add before it (a zero
    point of 0 clamps what is negative), as ONNX Runtime's quantizer folds it."""
    w = Writer(net)
    params = {}
    relu_of = {l["inputs"][0]: l["out"] for l in net.layers if l["op"] == "Relu"}
    stands_for = {}  # a float tensor → the one whose quantized value holds it (a Relu's output)

    def qparams(name):
        if name not in params:
            scale, zero = activation_params(values[name])
            params[name] = (w.const(name + "_scale", scale), w.const(name + "_zero_point", zero), scale)
        return params[name]

    def quantized(name):
        return name + "_quantized"

    s, z, _ = qparams("input")
    w.node("QuantizeLinear", ["input", s, z], [quantized("input")], "input_QuantizeLinear")
    for layer in net.layers:
        op, node, wts, a = layer["op"], layer["node"], layer["weights"], layer["attrs"]
        if op == "Relu":
            continue
        inputs = [stands_for.get(i, i) for i in layer["inputs"]]
        out = stands_for.setdefault(layer["out"], relu_of.get(layer["out"], layer["out"]))
        prefix = module_path(node)
        if op in ("Conv", "Gemm"):
            xs, xz, x_scale = qparams(inputs[0])
            w_scale = weight_params(wts["W"], 0 if op == "Conv" else None)
            wq = w.const(prefix + ".weight_quantized", quantize(wts["W"], w_scale, 0 if op == "Conv" else None))
            ws = w.const(prefix + ".weight_scale", w_scale)
            wz = w.const(prefix + ".weight_zero_point", np.zeros(np.shape(w_scale), np.int8))
            b = w.const(prefix + ".bias_quantized", np.rint(wts["B"] / (x_scale * w_scale)).astype(np.int32))
            if op == "Conv":
                ys, yz, _ = qparams(out)
                w.node("QLinearConv", [quantized(inputs[0]), xs, xz, wq, ws, wz, ys, yz, b], [quantized(out)], node,
                       strides=[a["stride"]] * 2, pads=[a["pad"]] * 4)
            else:
                # Without y_scale, QGemm gives float: the graph's output.
                w.node("QGemm", [quantized(inputs[0]), xs, xz, wq, ws, wz, b], [out], node,
                       domain="com.microsoft", transB=1)
        elif op == "Add":
            (as_, az, _), (bs, bz, _), (cs, cz, _) = qparams(inputs[0]), qparams(inputs[1]), qparams(out)
            w.node("QLinearAdd", [quantized(inputs[0]), as_, az, quantized(inputs[1]), bs, bz, cs, cz],
                   [quantized(out)], node, domain="com.microsoft")
        elif op == "GlobalAveragePool":
            (xs, xz, _), (ys, yz, _) = qparams(inputs[0]), qparams(out)
            w.node("QLinearGlobalAveragePool", [quantized(inputs[0]), xs, xz, ys, yz], [quantized(out)], node,
                   domain="com.microsoft", channels_last=0)
        elif op == "Flatten":
            params[out] = params[inputs[0]]
            w.node("Flatten", [quantized(inputs[0])], [quantized(out)], node)
        else:
            raise ValueError(op)
    return w.model(domains=["com.microsoft"])


def write_int4(net):
    """MatMul weights as int4 in blocks of 32 along K (DequantizeLinear-21's block_size)."""
    w = Writer(net)
    for layer in net.layers:
        if layer["op"] != "MatMul":
            w.float_layer(layer, layer["inputs"])
            continue
        wt = layer["weights"]["W"]
        k, n = wt.shape
        prefix = module_path(layer["node"])
        blocks = wt.reshape(k // 32, 32, n)
        scale = (np.maximum(np.abs(blocks).max(axis=1), 1e-8) / 7.0).astype(np.float32)
        q = np.clip(np.rint(blocks / scale[:, None, :]), -8, 7).astype(np.int8).reshape(k, n)
        flat = (q.reshape(-1) & 0xF).astype(np.uint8)
        packed = flat[0::2] | (flat[1::2] << 4)
        tensor = TensorProto(name=prefix + ".weight_quantized", data_type=INT4, dims=[k, n],
                             raw_data=packed.astype(np.uint8).tobytes())
        w.initializers.append(tensor)
        s = w.const(prefix + ".weight_scale", scale)
        dq = w.node("DequantizeLinear", [tensor.name, s], [prefix + ".weight_DequantizeLinear_Output"],
                    prefix + ".weight_DequantizeLinear", axis=0, block_size=32)
        w.node("MatMul", layer["inputs"] + [dq], [layer["out"]], layer["node"])
    return w.model(opset=21)


def calibrate(net, seed):
    rng = np.random.default_rng(seed)
    feeds = {n: rng.random((CALIBRATION,) + tuple(s[1:])).astype(np.float32) for n, s in net.inputs}
    return net.run(feeds)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--only", help="write this model (and its twin) alone: qdq_cnn, qdq_transformer, "
                                       "dynamic_unet, qoperator_cnn or int4_mlp")
    parser.add_argument("--width", type=int, default=8, help="channels of the first layer (the rest follow)")
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)

    def save(model, name):
        onnx.save(model, os.path.join(args.out_dir, name + ".onnx"))

    wanted = lambda name: args.only in (None, name)
    if wanted("qdq_cnn") or wanted("qoperator_cnn"):
        net = cnn(np.random.default_rng(1), args.width)
        values = calibrate(net, 11)
        save(write_float(net), "qdq_cnn_float")
        if wanted("qdq_cnn"):
            save(write_qdq(net, values), "qdq_cnn")
        if wanted("qoperator_cnn"):
            save(write_qoperator(net, values), "qoperator_cnn")
    if wanted("qdq_transformer"):
        net = transformer(np.random.default_rng(2), args.width)
        values = calibrate(net, 12)
        save(write_float(net), "qdq_transformer_float")
        save(write_qdq(net, values), "qdq_transformer")
    if wanted("dynamic_unet"):
        net = unet(np.random.default_rng(3), args.width)
        calibrate(net, 13)  # (the output's shape)
        save(write_float(net), "dynamic_unet_float")
        save(write_dynamic(net), "dynamic_unet")
    if wanted("int4_mlp"):
        net = mlp(np.random.default_rng(4), args.width)
        calibrate(net, 14)
        save(write_float(net), "int4_mlp_float")
        save(write_int4(net), "int4_mlp")


if __name__ == "__main__":
    main()
