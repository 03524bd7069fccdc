#!/usr/bin/python3
"""Writes a model as PyTorch's dynamo exporter (torch >= 2.9) writes one: flat node
names (node_MatMul_0, node_linear, node_relu, node_linear_1) and the module hierarchy in each node's
metadata_props, for

    class Net(nn.Module):
        def __init__(self):
            self.network = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
            self.offset = nn.Parameter(torch.ones(3))
        def forward(self, x):
            x = self.network(x)           # train.py line 96
            return x + self.offset        # train.py line 97

NodeProto.metadata_props (field 9) and ValueInfoProto.metadata_props (field 4) are not
in python3-onnx 1.12's onnx.proto, nor GraphProto's (field 16): their bytes are
appended to the serialized message, which keeps them as unknown fields. The graph's
entry is this script's own (the exporter writes none there), for a test to read.

usage: make-dynamo-model.py OUT.onnx   (python3-onnx, run with /usr/bin/python3)"""
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

TRAIN = "/home/u/proj/train.py"
TORCH = "/usr/lib/python3/dist-packages/torch/nn/modules/"


def varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def with_metadata(message, field, entries):
    """The message with `entries` appended as repeated StringStringEntryProto `field`."""
    data = message.SerializeToString()
    for key, value in entries:
        entry = onnx.StringStringEntryProto(key=key, value=value).SerializeToString()
        data += varint(field << 3 | 2) + varint(len(entry)) + entry
    return type(message).FromString(data)


def frame(file, line, function, code):
    return '  File "%s", line %d, in %s\n    %s\n' % (file, line, function, code)


def node_entries(scopes, classes, frames, fx):
    namespace = "/".join("%s: %s" % (s, c) for s, c in zip(scopes, classes))
    return [
        ("pkg.torch.onnx.class_hierarchy", repr(classes)),
        ("pkg.torch.onnx.fx_node", fx),
        ("pkg.torch.onnx.name_scopes", repr(scopes)),
        ("pkg.torch.onnx.stack_trace", "".join(frames).rstrip("\n")),
        ("namespace", namespace),
    ]


def main():
    rng = np.random.default_rng(0)
    net, seq, linear = "__main__.Net", "torch.nn.modules.container.Sequential", "torch.nn.modules.linear.Linear"
    relu = "torch.nn.modules.activation.ReLU"
    into_network = frame(TRAIN, 96, "forward", "x = self.network(x)")
    in_sequential = frame(TORCH + "container.py", 250, "forward", "input = module(input)")

    def linear_frames():
        return [into_network, in_sequential,
                frame(TORCH + "linear.py", 125, "forward", "return F.linear(input, self.weight, self.bias)")]

    # aten.linear on a 3-d input lowers to MatMul and Add: two nodes of one module.
    def linear_specs(index, inp, out, suffix):
        scopes = ["", "network", "network.%d" % index, out]
        classes = [net, seq, linear, "aten.linear.default"]
        weight = "network.%d.weight" % index
        return [("node_MatMul_%d" % index, "MatMul", [inp, weight], out + "_matmul", scopes, classes, out),
                ("node_linear" + suffix, "Add", [out + "_matmul", "network.%d.bias" % index], out, scopes, classes,
                 out)]

    specs = linear_specs(0, "x", "linear", "") + [
        ("node_relu", "Relu", ["linear"], "relu", ["", "network", "network.1", "relu"],
         [net, seq, relu, "aten.relu.default"], None),
    ] + linear_specs(2, "relu", "linear_1", "_1") + [
        ("node_add", "Add", ["linear_1", "offset"], "add", ["", "add"], [net, "aten.add.Tensor"], None),
    ]
    traces = {
        "linear": linear_frames(), "linear_1": linear_frames(),
        "relu": [into_network, in_sequential,
                 frame(TORCH + "activation.py", 133, "forward", "return F.relu(input, inplace=self.inplace)")],
        "add": [frame(TRAIN, 97, "forward", "return x + self.offset")],
    }
    nodes = []
    for name, op, inputs, output, scopes, classes, fx_name in specs:
        fx_name = fx_name or output
        fx = "%%%s : [num_users=1] = call_function[target=torch.ops.%s](args = (%s), kwargs = {})" % (
            fx_name, classes[-1], ", ".join("%" + i.replace(".", "_") for i in inputs))
        node = helper.make_node(op, inputs, [output], name=name)
        nodes.append(with_metadata(node, 9, node_entries(scopes, classes, traces[scopes[-1]], fx)))

    def weights(name, *shape):
        return numpy_helper.from_array((rng.standard_normal(shape) * 0.3).astype(np.float32), name)

    # Stored transposed, as the exporter folds the Transpose of aten.linear into them.
    initializers = [weights("network.0.weight", 4, 8), weights("network.0.bias", 8),
                    weights("network.2.weight", 8, 3), weights("network.2.bias", 3),
                    numpy_helper.from_array(np.ones(3, np.float32), "offset")]
    kind = "pkg.torch.export.graph_signature.InputSpec.kind"
    x = with_metadata(helper.make_tensor_value_info("x", TensorProto.FLOAT, ["s77", 5, 4]), 4,
                      [(kind, "USER_INPUT")])
    add = with_metadata(helper.make_tensor_value_info("add", TensorProto.FLOAT, ["s77", 5, 3]), 4,
                        [("pkg.torch.export.graph_signature.OutputSpec.kind", "USER_OUTPUT")])
    relu_info = with_metadata(helper.make_tensor_value_info("relu", TensorProto.FLOAT, ["s77", 5, 8]), 4,
                              [("pkg.torch.onnx.original_node_name", "relu")])
    graph = helper.make_graph(nodes, "main_graph", [x], [add], initializers, value_info=[relu_info])
    graph = with_metadata(graph, 16, [("made_by", "tools/make-dynamo-model.py")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)],
                              producer_name="pytorch", producer_version="2.9.0")
    model.ir_version = 10
    onnx.save(model, sys.argv[1])


if __name__ == "__main__":
    main()
