#!/usr/bin/python3
"""Writes a voice-activity detector shaped like Silero VAD v5 as TorchScript exports it:
inputs `input` [batch, samples], `state` [2, batch, 128] and `sr` (the sample rate, an
int64 scalar); an If on `sr == 16000` chooses between two branches, one per rate, each
an STFT done as a Conv with a constant basis, an encoder of Conv → Relu blocks and an
LSTM cell over the state, then a Conv → Sigmoid decoder; outputs `output` [batch, 1] and
`stateN`. Inside the branches every weight is a Constant node, as are the exporter's
literals (Slice bounds, Unsqueeze axes, Gather indices), and what the scripted model
computes from its weights at run time is left in the graph: each encoder Conv's weight
is its 3×3 and 1×1 kernels added (not reparametrized before export), and the LSTM's
weights are reordered from torch's gates to ONNX's with Slice and Concat, as torch's
lstm_cell symbolic writes them. Shapes are read back with Shape → Gather → Unsqueeze →
Concat → Reshape around each block. Random weights, fixed seed, opset 16: 673 nodes
(subgraphs included), 335 of them Constant (Silero VAD v5: 689, 341).

usage: make-vad-model.py OUT.onnx   (python3-onnx, run with /usr/bin/python3)"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HIDDEN = 128
# Encoder blocks: output channels and stride (the first reads the STFT's bins).
ENCODER = [(128, 1), (64, 2), (64, 2), (128, 1), (128, 1), (128, 1), (96, 1), (96, 1), (128, 1), (128, 1)]


class Branch:
    """The nodes of one branch, named as TorchScript names them ("/encoder/0/Conv"),
    prefixed by the branch's rate so that names stay unique in the model."""

    def __init__(self, rate, rng):
        self.nodes, self.rng, self.prefix, self.count = [], rng, "/_model%s" % ("" if rate == 16000 else "_8k"), 0

    def node(self, op, inputs, scope, n_outputs=1, **attrs):
        self.count += 1
        name = "%s%s/%s_%d" % (self.prefix, scope, op, self.count)
        outputs = ["%s_output_%d" % (name, i) for i in range(n_outputs)]
        self.nodes.append(helper.make_node(op, inputs, outputs, name=name, **attrs))
        return outputs[0] if n_outputs == 1 else outputs

    def constant(self, array, scope):
        return self.node("Constant", [], scope, value=numpy_helper.from_array(np.asarray(array)))

    def ints(self, values, scope):
        return self.constant(np.array(values, dtype=np.int64), scope)

    def weight(self, dims, scope, scale=None):
        fan_in = int(np.prod(dims[1:])) if len(dims) > 1 else 1
        std = scale if scale is not None else 1.0 / np.sqrt(fan_in)
        return self.constant((self.rng.standard_normal(dims) * std).astype(np.float32), scope)

    def slice(self, x, start, end, axis, scope):
        return self.node("Slice", [x, self.ints([start], scope), self.ints([end], scope), self.ints([axis], scope)],
                         scope)

    def unsqueeze(self, x, axis, scope):
        return self.node("Unsqueeze", [x, self.ints([axis], scope)], scope)

    def squeeze(self, x, axis, scope):
        return self.node("Squeeze", [x, self.ints([axis], scope)], scope)

    def view(self, x, channels, scope):
        """x.view(x.size(0), channels, x.size(2)) as the exporter writes it."""
        shape = self.node("Shape", [x], scope)
        batch = self.unsqueeze(self.node("Gather", [shape, self.ints(0, scope)], scope, axis=0), 0, scope)
        frames = self.unsqueeze(self.node("Gather", [shape, self.ints(2, scope)], scope, axis=0), 0, scope)
        dims = self.node("Concat", [batch, self.ints([channels], scope), frames], scope, axis=0)
        return self.node("Reshape", [x, dims], scope)

    def stft(self, x, n_fft):
        """|STFT| of x [batch, samples]: reflect-padded, a Conv with the cos/sin basis."""
        scope, bins = "/stft", n_fft // 2 + 1
        x = self.unsqueeze(x, 1, scope)
        x = self.node("Pad", [x, self.ints([0, 0, 0, 0, 0, n_fft // 4], scope)], scope, mode="reflect")
        k = np.arange(n_fft)[None, :] * np.arange(bins)[:, None] * 2 * np.pi / n_fft
        basis = np.concatenate([np.cos(k), -np.sin(k)])[:, None, :].astype(np.float32)
        spec = self.node("Conv", [x, self.constant(basis, scope)], scope, strides=[n_fft // 2])
        real = self.slice(spec, 0, bins, 1, scope)
        imag = self.slice(spec, bins, 2 * bins, 1, scope)
        two = self.constant(np.array(2.0, np.float32), scope)
        power = self.node("Add", [self.node("Pow", [real, two], scope), self.node("Pow", [imag, two], scope)], scope)
        return self.node("Sqrt", [power], scope), bins

    def encoder_block(self, x, c_in, c_out, stride, i):
        """Conv(3×3 kernel + 1×1 kernel padded to 3) → Relu: the reparametrization the
        export did not do, left to run time."""
        scope = "/encoder/%d" % i
        w3 = self.weight((c_out, c_in, 3), scope)
        w1 = self.weight((c_out, c_in, 1), scope)
        padded = self.node("Pad", [w1, self.ints([0, 0, 1, 0, 0, 1], scope)], scope)
        w = self.node("Add", [w3, padded], scope)
        b = self.node("Add", [self.weight((c_out,), scope, 0.05), self.weight((c_out,), scope, 0.05)], scope)
        y = self.node("Relu", [self.node("Conv", [x, w, b], scope, pads=[1, 1], strides=[stride])], scope)
        return self.view(y, c_out, scope)

    def lstm_cell(self, x, state):
        """torch's lstm_cell symbolic: weights reordered (i, f, g, o → i, o, f, g) by
        Slice and Concat, the cell run as a one-step LSTM."""
        scope = "/decoder/rnn"
        x = self.unsqueeze(self.squeeze(x, 2, scope), 0, scope)
        h0 = self.unsqueeze(self.node("Gather", [state, self.ints(0, scope)], scope, axis=0), 0, scope)
        c0 = self.unsqueeze(self.node("Gather", [state, self.ints(1, scope)], scope, axis=0), 0, scope)

        def reordered(dims):
            w = self.weight(dims, scope)
            parts = [(0, 1), (3, 4), (1, 3)]
            return self.node("Concat", [self.slice(w, a * HIDDEN, b * HIDDEN, 0, scope) for a, b in parts], scope,
                             axis=0)

        w_ih = self.unsqueeze(reordered((4 * HIDDEN, HIDDEN)), 0, scope)
        w_hh = self.unsqueeze(reordered((4 * HIDDEN, HIDDEN)), 0, scope)
        bias = self.unsqueeze(self.node("Concat", [reordered((4 * HIDDEN,)), reordered((4 * HIDDEN,))], scope,
                                        axis=0), 0, scope)
        _, h, c = self.node("LSTM", [x, w_ih, w_hh, bias, "", h0, c0], scope, n_outputs=3, hidden_size=HIDDEN)
        return self.squeeze(h, 0, scope), self.squeeze(c, 0, scope)

    def build(self, rate):
        """The branch's nodes and its two outputs."""
        x, c = self.stft("input", 256 if rate == 16000 else 128)
        for i, (c_out, stride) in enumerate(ENCODER):
            x = self.encoder_block(x, c, c_out, stride, i)
            c = c_out
        x = self.node("ReduceMean", [x], "/encoder", axes=[2], keepdims=1)
        h, cell = self.lstm_cell(x, "state")
        scope = "/decoder"
        state = self.node("Concat", [self.unsqueeze(h, 0, scope), self.unsqueeze(cell, 0, scope)], scope, axis=0)
        y = self.node("Relu", [self.unsqueeze(h, 2, scope)], scope)
        y = self.node("Conv", [y, self.weight((1, HIDDEN, 1), scope), self.weight((1,), scope, 0.05)], scope)
        y = self.squeeze(self.node("Sigmoid", [y], scope), 2, scope)
        output = self.node("Identity", [y], scope)
        return output, state


def branch_graph(rate, rng):
    branch = Branch(rate, rng)
    output, state = branch.build(rate)
    f32 = TensorProto.FLOAT
    return helper.make_graph(branch.nodes, "_model" if rate == 16000 else "_model_8k", [],
                             [helper.make_tensor_value_info(output, f32, None),
                              helper.make_tensor_value_info(state, f32, None)])


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    rng = np.random.default_rng(0)
    is_16k = "/Constant_16000_output_0"
    nodes = [helper.make_node("Constant", [], [is_16k], name="/Constant_16000",
                              value=numpy_helper.from_array(np.array(16000, np.int64))),
             helper.make_node("Equal", ["sr", is_16k], ["/Equal_output_0"], name="/Equal"),
             helper.make_node("If", ["/Equal_output_0"], ["output", "stateN"], name="/If",
                              then_branch=branch_graph(16000, rng), else_branch=branch_graph(8000, rng))]
    f32 = TensorProto.FLOAT
    graph = helper.make_graph(
        nodes, "main_graph",
        [helper.make_tensor_value_info("input", f32, ["batch", "samples"]),
         helper.make_tensor_value_info("state", f32, [2, "batch", HIDDEN]),
         helper.make_tensor_value_info("sr", TensorProto.INT64, [])],
        [helper.make_tensor_value_info("output", f32, ["batch", 1]),
         helper.make_tensor_value_info("stateN", f32, [2, "batch", HIDDEN])])
    model = helper.make_model(graph, producer_name="pytorch", producer_version="1.13.1",
                              opset_imports=[helper.make_opsetid("", 16)])
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, sys.argv[1])
    every = list(nodes) + list(nodes[2].attribute[0].g.node) + list(nodes[2].attribute[1].g.node)
    n_constant = sum(n.op_type == "Constant" for n in every)
    print("%s: %d nodes (subgraphs included), %d of them Constant" % (sys.argv[1], len(every), n_constant))


if __name__ == "__main__":
    main()
