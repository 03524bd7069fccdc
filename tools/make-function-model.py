#!/usr/bin/python3
"""Writes a model shaped like an older dynamo export (torch 2.2-2.4), which wrapped
every module in a model-local function: the main graph calls Sequential, which calls
Linear (MatMul + Add, weights passed in from main-graph initializers) and ReLU twice;
Head's LeakyRelu takes its alpha by reference (ref_attr_name) from the call, once set
and once not; Head's Clip has optional inputs that one call leaves out ("") and one
call gives fewer inputs; an If's branch calls ReLU. Both Linear calls name their
MatMul output `tmp`.

usage: make-function-model.py OUT.onnx   (python3-onnx, run with /usr/bin/python3)"""
import sys

import numpy as np
import onnx
from onnx import AttributeProto, TensorProto, helper, numpy_helper

DOMAIN = "pkg.torch.__subgraph__"
OPSETS = [helper.make_opsetid("", 17), helper.make_opsetid(DOMAIN, 1)]


def call(function, inputs, outputs, name, **attributes):
    return helper.make_node(function, inputs, outputs, name=name, domain=DOMAIN, **attributes)


def attribute_ref(name, kind):
    """An attribute whose value is the calling node's attribute `name`."""
    attribute = AttributeProto()
    attribute.name = name
    attribute.ref_attr_name = name
    attribute.type = kind
    return attribute


def functions():
    linear = helper.make_function(
        DOMAIN, "Linear", ["input", "weight", "bias"], ["output"],
        [helper.make_node("MatMul", ["input", "weight"], ["tmp"], name="MatMul"),
         helper.make_node("Add", ["tmp", "bias"], ["output"], name="Add")], OPSETS)
    relu = helper.make_function(DOMAIN, "ReLU", ["input"], ["output"],
                                [helper.make_node("Relu", ["input"], ["output"], name="Relu")], OPSETS)
    sequential = helper.make_function(
        DOMAIN, "Sequential", ["input", "w0", "b0", "w1", "b1"], ["output"],
        [call("Linear", ["input", "w0", "b0"], ["linear_0"], "Linear_0"),
         call("ReLU", ["linear_0"], ["relu_0"], "ReLU_1"),
         call("Linear", ["relu_0", "w1", "b1"], ["linear_1"], "Linear_2"),
         call("ReLU", ["linear_1"], ["output"], "ReLU_3")], OPSETS)
    leaky = helper.make_node("LeakyRelu", ["input"], ["tmp"], name="LeakyRelu")
    leaky.attribute.append(attribute_ref("alpha", AttributeProto.FLOAT))
    head = helper.make_function(
        DOMAIN, "Head", ["input", "low", "high"], ["output"],
        [leaky, helper.make_node("Clip", ["tmp", "low", "high"], ["output"], name="Clip")],
        OPSETS, attributes=["alpha"])
    return [linear, relu, sequential, head]


def main():
    rng = np.random.default_rng(0)
    weights = {"seq.0.weight": rng.standard_normal((4, 8)), "seq.0.bias": rng.standard_normal(8),
               "seq.2.weight": rng.standard_normal((8, 3)), "seq.2.bias": rng.standard_normal(3),
               "shift": np.array(0.25), "high": np.array(0.5), "use_relu": np.array(True)}
    initializers = [numpy_helper.from_array(v.astype(np.bool_ if v.dtype == np.bool_ else np.float32), k)
                    for k, v in weights.items()]
    then_branch = helper.make_graph(
        [call("ReLU", ["head_0"], ["branch_relu"], "ReLU_branch")], "then",
        [], [helper.make_tensor_value_info("branch_relu", TensorProto.FLOAT, None)])
    else_branch = helper.make_graph(
        [helper.make_node("Neg", ["head_0"], ["branch_neg"], name="Neg_branch")], "else",
        [], [helper.make_tensor_value_info("branch_neg", TensorProto.FLOAT, None)])
    nodes = [
        call("Sequential", ["x", "seq.0.weight", "seq.0.bias", "seq.2.weight", "seq.2.bias"],
             ["sequential_0"], "Sequential_0"),
        # Centred, so that LeakyRelu's alpha shows in the values.
        helper.make_node("Sub", ["sequential_0", "shift"], ["centred"], name="Sub_1"),
        # low left out, high given; alpha set.
        call("Head", ["centred", "", "high"], ["head_0"], "Head_2", alpha=0.2),
        helper.make_node("If", ["use_relu"], ["if_0"], name="If_3",
                         then_branch=then_branch, else_branch=else_branch),
        helper.make_node("Neg", ["if_0"], ["neg_0"], name="Neg_4"),
        # low and high left out by giving fewer inputs; alpha not set: LeakyRelu's default.
        call("Head", ["neg_0"], ["y"], "Head_5"),
    ]
    graph = helper.make_graph(nodes, "Net",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])],
                              initializers)
    model = helper.make_model(graph, producer_name="pytorch", producer_version="2.3.0",
                              opset_imports=OPSETS, functions=functions())
    model.ir_version = 8
    # Not full_check: onnx 1.12's function shape inference reads past the inputs of a
    # call that gives fewer ("Input 1 is out of bounds"); the inlined model passes it.
    onnx.checker.check_model(model)
    onnx.save(model, sys.argv[1])


if __name__ == "__main__":
    main()
