#!/usr/bin/python3
"""Writes a model with large tensor payloads, for measuring memory by hand: a chain of
MatMul nodes whose weights are float32 initializers in raw_data, and every tenth layer
an Add of a large Constant node (payloads in attributes, not initializers).

usage: make-big-model.py OUT.onnx [SIZE_MB]   (default 200; python3-onnx, /usr/bin/python3)
Tensors are named x, /layers.N/MatMul_output_0, /layers.N/Add_output_0 and y."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

WIDTH = 1024


def main():
    path = sys.argv[1]
    size_mb = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    layers = max(2, size_mb * 1024 * 1024 // (WIDTH * WIDTH * 4))
    rng = np.random.default_rng(0)
    nodes, initializers = [], []
    previous = "x"
    for i in range(layers):
        weight = f"/layers.{i}/weight"
        initializers.append(numpy_helper.from_array(rng.standard_normal((WIDTH, WIDTH), dtype=np.float32), weight))
        out = f"/layers.{i}/MatMul_output_0"
        nodes.append(helper.make_node("MatMul", [previous, weight], [out], name=f"/layers.{i}/MatMul"))
        previous = out
        if i % 10 == 9:
            bias = f"/layers.{i}/Constant_output_0"
            nodes.append(helper.make_node("Constant", [], [bias], name=f"/layers.{i}/Constant",
                                          value=numpy_helper.from_array(
                                              rng.standard_normal((WIDTH, WIDTH), dtype=np.float32))))
            out = f"/layers.{i}/Add_output_0"
            nodes.append(helper.make_node("Add", [previous, bias], [out], name=f"/layers.{i}/Add"))
            previous = out
    nodes.append(helper.make_node("Identity", [previous], ["y"], name="/Identity"))
    graph = helper.make_graph(nodes, "big", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", WIDTH])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", WIDTH])],
                              initializer=initializers)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


if __name__ == "__main__":
    main()
