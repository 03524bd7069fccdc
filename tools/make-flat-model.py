#!/usr/bin/python3
"""Writes a model as exporters other than PyTorch write them (paddle2onnx, tf2onnx):
flat node names ("p2o.Conv.0"), weights in Constant nodes instead of initializers
(four around every BatchNormalization), one Constant read by two nodes.

usage: make-flat-model.py [--paddle] OUT.onnx   (python3-onnx, run with /usr/bin/python3)

--paddle writes what paddle2onnx writes besides: symbolic dims named
"p2o.DynamicDimension.N", no producer name, a depthwise Conv (group, strides, pads,
dilations, kernel_shape) and a Reshape to a computed shape, whose dims ONNX's shape
inference names "unk__N"."""
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

counts = {}


def name(op):
    n = counts.get(op, 0)
    counts[op] = n + 1
    return "p2o.%s.%d" % (op, n)


def main():
    paddle = "--paddle" in sys.argv[1:]
    out_path = [a for a in sys.argv[1:] if a != "--paddle"][0]
    rng = np.random.default_rng(0)
    nodes = []

    def constant(array):
        out = name("Constant") + ".out"
        nodes.append(helper.make_node("Constant", [], [out], name=out[:-4],
                                      value=numpy_helper.from_array(array.astype(np.float32))))
        return out

    x, channels = "image", 3
    for block, width in enumerate((8, 16, 16)):
        w = constant(rng.standard_normal((width, channels, 3, 3)) * 0.2)
        b = constant(rng.standard_normal(width) * 0.1)
        conv = name("Conv")
        nodes.append(helper.make_node("Conv", [x, w, b], [conv + ".out"], name=conv, pads=[1, 1, 1, 1],
                                      strides=[2, 2] if block else [1, 1]))
        stats = [constant(rng.uniform(0.5, 1.5, width)), constant(rng.standard_normal(width) * 0.1),
                 constant(rng.standard_normal(width) * 0.1), constant(rng.uniform(0.5, 1.5, width))]
        bn = name("BatchNormalization")
        nodes.append(helper.make_node("BatchNormalization", [conv + ".out"] + stats, [bn + ".out"],
                                      name=bn, epsilon=1e-5))
        relu = name("Relu")
        nodes.append(helper.make_node("Relu", [bn + ".out"], [relu + ".out"], name=relu))
        x, channels = relu + ".out", width
    if paddle:
        w = constant(rng.standard_normal((16, 1, 3, 3)) * 0.2)
        b = constant(rng.standard_normal(16) * 0.1)
        conv = name("Conv")
        nodes.append(helper.make_node("Conv", [x, w, b], [conv + ".out"], name=conv, group=16,
                                      strides=[1, 1], pads=[1, 1, 1, 1], dilations=[1, 1],
                                      kernel_shape=[3, 3]))
        x = conv + ".out"
        # A computed shape: inference cannot tell the dims and names them unk__N.
        shape = name("Shape")
        nodes.append(helper.make_node("Shape", [x], [shape + ".out"], name=shape))
        reshape = name("Reshape")
        nodes.append(helper.make_node("Reshape", [x, shape + ".out"], [reshape + ".out"], name=reshape,
                                      allowzero=0))
        x = reshape + ".out"
    pool = name("GlobalAveragePool")
    nodes.append(helper.make_node("GlobalAveragePool", [x], [pool + ".out"], name=pool))
    flat = name("Flatten")
    nodes.append(helper.make_node("Flatten", [pool + ".out"], [flat + ".out"], name=flat))
    w = constant(rng.standard_normal((16, 10)) * 0.2)
    mm = name("MatMul")
    nodes.append(helper.make_node("MatMul", [flat + ".out", w], [mm + ".out"], name=mm))
    # One shift, read twice: a Constant shared by two nodes stays a box of its own.
    shift = constant(rng.standard_normal(10) * 0.1)
    add = name("Add")
    nodes.append(helper.make_node("Add", [mm + ".out", shift], [add + ".out"], name=add))
    add2 = name("Add")
    nodes.append(helper.make_node("Add", [add + ".out", shift], [add2 + ".out"], name=add2))
    soft = name("Softmax")
    nodes.append(helper.make_node("Softmax", [add2 + ".out"], ["scores"], name=soft, axis=1))

    batch = "p2o.DynamicDimension.0" if paddle else "N"
    size = "p2o.DynamicDimension.1" if paddle else 32
    graph = helper.make_graph(nodes, "flat",
                              [helper.make_tensor_value_info("image", TensorProto.FLOAT, [batch, 3, size, size])],
                              [helper.make_tensor_value_info("scores", TensorProto.FLOAT, [batch, 10])])
    model = helper.make_model(graph, producer_name="" if paddle else "onyx-flat-model",
                              opset_imports=[helper.make_opsetid("", 14 if paddle else 13)])
    model.ir_version = 7
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, out_path)


if __name__ == "__main__":
    main()
