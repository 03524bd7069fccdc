#!/usr/bin/python3
"""Writes a text detector the way paddle2onnx writes PaddleOCR's det model (PP-OCRv3's
DBNet): a MobileNetV3 backbone of Conv → BatchNormalization → activation blocks, an FPN
neck of convolutions with squeeze-excitation that upsamples with Resize, and a head of
Conv and ConvTranspose. Every weight is a Constant node (paddle2onnx writes no
initializers), each Slice's starts, ends and axes a Constant of its own, and each
Resize's sizes come from the Shape → Slice → Cast → Mul → Concat scaffolding paddle2onnx
writes (a Shape per use). Flat node names (p2o.Conv.0), dims named
p2o.DynamicDimension.N, no producer name, opset 11 (HardSwish as x · HardSigmoid(x)).
Random weights, fixed seed: 628 nodes, 342 of them Constant (PaddleOCR det: 672, 342).

usage: make-paddle-model.py OUT.onnx   (python3-onnx, run with /usr/bin/python3)"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# MobileNetV3-large at scale 0.5 without squeeze-excitation, PP-OCRv3 det's backbone:
# kernel, expansion, output channels, activation, stride.
BLOCKS = [
    (3, 8, 8, "Relu", 1),
    (3, 32, 12, "Relu", 2),
    (3, 40, 12, "Relu", 1),
    (5, 40, 20, "Relu", 2),
    (5, 64, 20, "Relu", 1),
    (5, 64, 20, "Relu", 1),
    (3, 120, 40, "HardSwish", 2),
    (3, 104, 40, "HardSwish", 1),
    (3, 96, 40, "HardSwish", 1),
    (3, 96, 40, "HardSwish", 1),
    (3, 240, 56, "HardSwish", 1),
    (3, 336, 56, "HardSwish", 1),
    (5, 336, 80, "HardSwish", 2),
    (5, 480, 80, "HardSwish", 1),
    (5, 480, 80, "HardSwish", 1),
]
NECK = 96


class Writer:
    def __init__(self):
        self.nodes, self.counts = [], {}
        self.rng = np.random.default_rng(0)

    def name(self, op):
        n = self.counts.get(op, 0)
        self.counts[op] = n + 1
        return "p2o.%s.%d" % (op, n)

    def node(self, op, inputs, **attrs):
        name = self.name(op)
        self.nodes.append(helper.make_node(op, inputs, [name + ".out"], name=name, **attrs))
        return name + ".out"

    def constant(self, array):
        name = self.name("Constant")
        self.nodes.append(helper.make_node("Constant", [], [name + ".out"], name=name,
                                           value=numpy_helper.from_array(np.asarray(array))))
        return name + ".out"

    def weight(self, *dims, scale=None):
        fan_in = int(np.prod(dims[1:])) if len(dims) > 1 else 1
        std = scale if scale is not None else np.sqrt(1.0 / fan_in)  # activations neither grow nor vanish
        return self.constant((self.rng.standard_normal(dims) * std).astype(np.float32))

    def conv(self, x, c_in, c_out, k, stride=1, group=1, bias=False):
        inputs = [x, self.weight(c_out, c_in // group, k, k)]
        if bias:
            inputs.append(self.weight(c_out, scale=0.05))
        return self.node("Conv", inputs, dilations=[1, 1], group=group, kernel_shape=[k, k],
                         pads=[k // 2] * 4, strides=[stride, stride])

    def batch_norm(self, x, c):
        stats = [self.constant(self.rng.uniform(0.5, 1.0, c).astype(np.float32)),
                 self.constant((self.rng.standard_normal(c) * 0.1).astype(np.float32)),
                 self.constant((self.rng.standard_normal(c) * 0.1).astype(np.float32)),
                 self.constant(self.rng.uniform(1.0, 2.0, c).astype(np.float32))]
        return self.node("BatchNormalization", [x] + stats, epsilon=1e-5, momentum=0.9)

    def activation(self, x, act):
        """Opset 11 has no HardSwish: paddle2onnx writes x · HardSigmoid(x)."""
        if act == "HardSwish":
            return self.node("Mul", [x, self.node("HardSigmoid", [x], alpha=1.0 / 6, beta=0.5)])
        return self.node(act, [x])

    def conv_bn(self, x, c_in, c_out, k, stride=1, group=1, act=None):
        x = self.batch_norm(self.conv(x, c_in, c_out, k, stride, group), c_out)
        return self.activation(x, act) if act else x

    def rse(self, x, c_in, c_out, k):
        """RSEFPN's layer: a convolution, then squeeze-excitation added to it."""
        y = self.conv(x, c_in, c_out, k)
        pooled = self.node("GlobalAveragePool", [y])
        hidden = self.node("Relu", [self.conv(pooled, c_out, c_out // 4, 1, bias=True)])
        gate = self.node("HardSigmoid", [self.conv(hidden, c_out // 4, c_out, 1, bias=True)], alpha=0.2, beta=0.5)
        return self.node("Add", [y, self.node("Mul", [y, gate])])

    def slice(self, x, start, end):
        return self.node("Slice", [x, self.constant(np.array([start], np.int64)),
                                   self.constant(np.array([end], np.int64)),
                                   self.constant(np.array([0], np.int64))])

    def upsample(self, x, factor):
        """Resize to `factor` times x's height and width, its sizes computed from x's shape
        as paddle2onnx writes them (a Shape per use, each slice's bounds a Constant)."""
        batch_channels = self.slice(self.node("Shape", [x]), 0, 2)
        height_width = self.node("Cast", [self.slice(self.node("Shape", [x]), 2, 4)], to=TensorProto.FLOAT)
        scaled = self.node("Mul", [height_width, self.constant(np.array([factor, factor], np.float32))])
        sizes = self.node("Concat", [batch_channels, self.node("Cast", [scaled], to=TensorProto.INT64)], axis=0)
        roi = self.constant(np.array([], np.float32))
        scales = self.constant(np.array([], np.float32))
        return self.node("Resize", [x, roi, scales, sizes], coordinate_transformation_mode="asymmetric",
                         mode="nearest", nearest_mode="floor")


def build(w):
    x = w.conv_bn("x", 3, 8, 3, stride=2, act="HardSwish")
    c, features = 8, []
    for i, (k, exp, out, act, stride) in enumerate(BLOCKS):
        if stride == 2 and i > 2:  # what each stage leaves at 1/4, 1/8 and 1/16 of the image
            features.append((x, c))
        y = w.conv_bn(x, c, exp, 1, act=act)
        y = w.conv_bn(y, exp, exp, k, stride=stride, group=exp, act=act)
        y = w.conv_bn(y, exp, out, 1)
        x = w.node("Add", [x, y]) if stride == 1 and c == out else y
        c = out
    features.append((w.conv_bn(x, c, 480, 1, act="HardSwish"), 480))

    # RSEFPN: 1×1 layers to NECK channels, top-down sums, 3×3 layers, all upsampled to
    # a quarter of the image and concatenated.
    laterals = [w.rse(f, fc, NECK, 1) for f, fc in features]
    top = laterals[3]
    merged = [top]
    for lateral in reversed(laterals[:3]):
        top = w.node("Add", [lateral, w.upsample(top, 2)])
        merged.insert(0, top)
    outs = [w.rse(m, NECK, NECK // 4, 3) for m in merged]
    fused = w.node("Concat", [outs[0]] + [w.upsample(o, 2 ** i) for i, o in enumerate(outs) if i > 0], axis=1)

    # DBHead: Conv-BN-Relu, ConvTranspose-BN-Relu, ConvTranspose, Sigmoid (a quarter to full size).
    y = w.conv_bn(fused, NECK, NECK // 4, 3, act="Relu")
    y = w.node("ConvTranspose", [y, w.weight(NECK // 4, NECK // 4, 2, 2), w.weight(NECK // 4, scale=0.05)],
               strides=[2, 2], kernel_shape=[2, 2])
    y = w.node("Relu", [w.batch_norm(y, NECK // 4)])
    y = w.node("ConvTranspose", [y, w.weight(NECK // 4, 1, 2, 2), w.weight(1, scale=0.05)],
               strides=[2, 2], kernel_shape=[2, 2])
    w.nodes.append(helper.make_node("Sigmoid", [y], ["sigmoid_0.tmp_0"], name=w.name("Sigmoid")))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    w = Writer()
    build(w)
    dims = ["p2o.DynamicDimension.%d" % i for i in range(3)]
    graph = helper.make_graph(
        w.nodes, "Model from PaddlePaddle.",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [dims[0], 3, dims[1], dims[2]])],
        [helper.make_tensor_value_info("sigmoid_0.tmp_0", TensorProto.FLOAT, [dims[0], 1, dims[1], dims[2]])])
    model = helper.make_model(graph, producer_name="", opset_imports=[helper.make_opsetid("", 11)])
    model.ir_version = 6
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, sys.argv[1])
    n_constant = sum(n.op_type == "Constant" for n in w.nodes)
    print("%s: %d nodes, %d of them Constant" % (sys.argv[1], len(w.nodes), n_constant))


if __name__ == "__main__":
    main()
