#!/usr/bin/python3
"""Writes a model shaped like Inception v1 (GoogLeNet) as the ONNX model zoo has it:
a stem, then inception modules whose four branches (1x1; 1x1 then 3x3; 1x1 then 5x5;
max-pool then 1x1) fan in to one Concat, with every tensor's shape recorded. The
fan-ins are where edge labels crowd; Debian's libonnx-testdata names the real model
but does not ship it.

usage: make-inception-model.py OUT.onnx [MODULES]   (default 3; python3-onnx, /usr/bin/python3)"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    path = sys.argv[1]
    modules = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    rng = np.random.default_rng(0)
    nodes, initializers = [], []

    def conv(x, cin, cout, k, name, stride=1):
        w, b = name + "_w_0", name + "_b_0"
        initializers.append(numpy_helper.from_array(
            (rng.standard_normal((cout, cin, k, k)) * 0.05).astype(np.float32), w))
        initializers.append(numpy_helper.from_array(np.zeros(cout, np.float32), b))
        nodes.append(helper.make_node("Conv", [x, w, b], [name + "_1"], name=name, kernel_shape=[k, k],
                                      strides=[stride, stride], pads=[k // 2] * 4))
        nodes.append(helper.make_node("Relu", [name + "_1"], [name + "_2"], name=name + "_relu"))
        return name + "_2"

    def pool(x, name, stride):
        nodes.append(helper.make_node("MaxPool", [x], [name + "_1"], name=name, kernel_shape=[3, 3],
                                      strides=[stride, stride], pads=[1, 1, 1, 1]))
        return name + "_1"

    x = conv("data_0", 3, 64, 7, "conv1/7x7_s2", stride=2)
    x = pool(x, "pool1/3x3_s2", 2)
    x = conv(x, 64, 192, 3, "conv2/3x3")
    x = pool(x, "pool2/3x3_s2", 2)
    channels = 192
    for m in range(modules):
        p = "inception_%d%s" % (3 + m // 2, "ab"[m % 2])
        a = conv(x, channels, 64, 1, p + "/1x1")
        b = conv(conv(x, channels, 96, 1, p + "/3x3_reduce"), 96, 128, 3, p + "/3x3")
        c = conv(conv(x, channels, 16, 1, p + "/5x5_reduce"), 16, 32, 5, p + "/5x5")
        d = conv(pool(x, p + "/pool", 1), channels, 32, 1, p + "/pool_proj")
        nodes.append(helper.make_node("Concat", [a, b, c, d], [p + "/output_1"], name=p + "/output", axis=1))
        x, channels = p + "/output_1", 256
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["pool5_1"], name="pool5"))
    nodes.append(helper.make_node("Flatten", ["pool5_1"], ["flat_1"], name="flat", axis=1))
    initializers.append(numpy_helper.from_array(
        (rng.standard_normal((channels, 1000)) * 0.05).astype(np.float32), "loss3/classifier_w_0"))
    nodes.append(helper.make_node("MatMul", ["flat_1", "loss3/classifier_w_0"], ["logits"], name="loss3/classifier"))
    nodes.append(helper.make_node("Softmax", ["logits"], ["prob_1"], name="prob", axis=1))
    graph = helper.make_graph(nodes, "inception_v1_like",
                              [helper.make_tensor_value_info("data_0", TensorProto.FLOAT, [1, 3, 224, 224])],
                              [helper.make_tensor_value_info("prob_1", TensorProto.FLOAT, [1, 1000])],
                              initializer=initializers)
    model = helper.make_model(graph, producer_name="onyx-inception-model",
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    model = onnx.shape_inference.infer_shapes(model)
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, path)


if __name__ == "__main__":
    main()
