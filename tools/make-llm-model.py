#!/usr/bin/python3
"""Writes a decoder-only LLM as onnxruntime-genai's model builder writes them for ONNX
Runtime (a LLaMA/Phi-3 shape): int4 MatMulNBits projections, GroupQueryAttention with
a KV cache and rotary from cos/sin caches, SimplifiedLayerNormalization then
SkipSimplifiedLayerNormalization around each block, the attention-mask subgraph that
makes seqlens_k and total_sequence_length, inputs input_ids, attention_mask and
past_key_values.N.key/value, outputs logits and present.N.key/value, node names
/model/layers.N/…, weights as external data in one file beside the model. IR 10,
ai.onnx opset 21 and com.microsoft 1. Random weights, fixed seed.

usage: make-llm-model.py OUT.onnx [--layers N] [--hidden H] [--heads N] [--kv-heads N]
                         [--intermediate I] [--vocab V] [--max-length L] [--no-external]
                         [--value-info] [--broken-total-length] [--broken-seqlens] [--fast-weights]
                         [--constant-nodes]

Small sizes by default (hidden 256, 4 layers) for the test suite; Phi-3-mini's for
benches: --layers 32 --hidden 3072 --heads 32 --kv-heads 32 --intermediate 8192
--vocab 32064 --max-length 4096 (2.7 GB of external data; with --fast-weights, random
int4 nibbles written straight to the data file, it takes seconds). --broken-total-length
wires total_sequence_length from the new tokens' shape instead of the mask's, the
KV-cache bug that only shows once there is a past (ONNX Runtime refuses the second
step); --broken-seqlens counts seqlens_k from the new tokens, which it runs with wrong
numbers. Run with /usr/bin/python3 (python3-onnx, python3-numpy)."""
import argparse
import importlib.util
import os
import re

import numpy as np
import onnx
import onnx.shape_inference
from onnx import TensorProto, helper, numpy_helper

BLOCK = 32


class Builder:
    def __init__(self, rng, accuracy_level):
        self.nodes, self.initializers, self.rng = [], [], rng
        self.accuracy_level = accuracy_level
        self.data, self.data_name = None, None
        self.constant_nodes = False
        self.sparse = False

    def sparse_weights(self, path):
        """--sparse-weights: the data file holds the weights' places, not their bytes (a
        hole that reads as zeros): a Llama-70B's 47 GB in seconds, for what never
        runs the model (opening, drawing, editing)."""
        self.stream_weights(path)
        self.sparse = True

    def random(self, shape, dtype, make):
        """`make ()` of that shape, or with --sparse-weights an array of that shape and
        type that holds nothing."""
        return np.broadcast_to(np.zeros(1, dtype), shape) if self.sparse else make()

    def finish(self):
        if self.data is not None:
            self.data.truncate(self.data.tell())
            self.data.close()

    def stream_weights(self, path):
        """--fast-weights: payloads of 1 kB and more are written to `path` as they are
        made (at 4 kB boundaries, so that a runtime can map them), never all held."""
        self.data, self.data_name = open(path, "wb"), os.path.basename(path)

    def node(self, op, inputs, outputs, name, domain="", **attrs):
        self.nodes.append(helper.make_node(op, inputs, outputs, name=name, domain=domain or None, **attrs))
        return outputs[0] if len(outputs) == 1 else outputs

    def weight(self, name, array):
        if self.data is None or array.nbytes < 1024:
            self.initializers.append(numpy_helper.from_array(array, name))
            return name
        offset = -self.data.tell() % 4096 + self.data.tell()
        self.data.seek(offset)
        if self.sparse:
            self.data.seek(offset + array.nbytes)
        else:
            self.data.write(np.ascontiguousarray(array).tobytes())
        tensor = TensorProto(name=name, data_type=onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[array.dtype],
                             dims=array.shape, data_location=TensorProto.EXTERNAL)
        for key, value in (("location", self.data_name), ("offset", str(offset)), ("length", str(array.nbytes))):
            entry = tensor.external_data.add()
            entry.key, entry.value = key, value
        self.initializers.append(tensor)
        return name

    def literal(self, name, array):
        """A small constant: an initializer, or with --constant-nodes a Constant node."""
        if not self.constant_nodes:
            return self.weight(name, array)
        return self.node("Constant", [], [name], "/model/constant_nodes/" + name,
                         value=numpy_helper.from_array(array, name))

    def matmul_nbits(self, scope, x, k, n, out_name=None):
        """(scope names the weights: model.layers.0.attn.qkv_proj; the node is
        /model/layers.0/attn/qkv_proj/MatMulNBits, as the builder names them.)"""
        """x [..., k] times a random [k, n] weight quantized to int4 in blocks of 32:
        B [n, k/32, 16] uint8 (two values a byte, low nibble first), scales [n·k/32]."""
        if self.data is not None:
            # --fast-weights: random nibbles and scales of the size quantizing N(0, 1/k) gives.
            packed = self.random((n, k // BLOCK, BLOCK // 2), np.uint8,
                                 lambda: self.rng.integers(0, 256, (n, k // BLOCK, BLOCK // 2), dtype=np.uint8))
            scales = self.random((n, k // BLOCK), np.float32, lambda: (self.rng.uniform(0.5, 1.0, (n, k // BLOCK)) *
                                                                       (2.5 / 7 / np.sqrt(k))).astype(np.float32))
        else:
            w = self.rng.standard_normal((n, k)).astype(np.float32) * (1.0 / np.sqrt(k))
            blocks = w.reshape(n, k // BLOCK, BLOCK)
            scales = np.maximum(np.abs(blocks).max(axis=2) / 7.0, 1e-8).astype(np.float32)
            q = np.clip(np.rint(blocks / scales[:, :, None]) + 8, 0, 15).astype(np.uint8)
            packed = (q[:, :, 0::2] | (q[:, :, 1::2] << 4)).astype(np.uint8)
        b = self.weight(scope + ".qweight", packed)
        s = self.weight(scope + ".scales", scales.reshape(-1))
        path = "/" + re.sub(r"\.(?!\d)", "/", scope)
        out = out_name or path + "/MatMul/output_0"
        return self.node("MatMulNBits", [x, b, s], [out], path + "/MatMulNBits",
                         domain="com.microsoft", K=k, N=n, bits=4, block_size=BLOCK, accuracy_level=self.accuracy_level)


def graph_values(args, kv_heads, head):
    """The decoder's inputs and outputs: ids, mask, logits and the KV cache of each layer."""
    f32 = TensorProto.FLOAT
    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch_size", "sequence_length"]),
              helper.make_tensor_value_info("attention_mask", TensorProto.INT64,
                                            ["batch_size", "total_sequence_length"])]
    outputs = [helper.make_tensor_value_info("logits", f32, ["batch_size", "sequence_length", args.vocab])]
    for i in range(args.layers):
        for kind in ("key", "value"):
            inputs.append(helper.make_tensor_value_info(
                "past_key_values.%d.%s" % (i, kind), f32, ["batch_size", kv_heads, "past_sequence_length", head]))
            outputs.append(helper.make_tensor_value_info(
                "present.%d.%s" % (i, kind), f32, ["batch_size", kv_heads, "total_sequence_length", head]))
    return inputs, outputs


def build(args):
    rng = np.random.default_rng(0)
    b = Builder(rng, args.accuracy_level)
    b.constant_nodes = args.constant_nodes
    if args.sparse_weights:
        b.sparse_weights(data_path(args.out))
    elif args.fast_weights:
        b.stream_weights(data_path(args.out))
    head = args.hidden // args.heads
    hidden, inter = args.hidden, args.intermediate

    inputs, outputs = graph_values(args, args.kv_heads, head)

    # The attention-mask subgraph every layer's GroupQueryAttention reads.
    sub = "/model/attn_mask_reformat/attn_mask_subgraph"
    b.literal("one_i64", np.array(1, dtype=np.int64))
    b.literal("axes_1", np.array([1], dtype=np.int64))
    counted = "attention_mask"
    if args.broken_seqlens:
        # The new tokens counted instead of the mask's: input_ids × 0 + 1.
        b.literal("zero_i64", np.array(0, dtype=np.int64))
        zeros = b.node("Mul", ["input_ids", "zero_i64"], [sub + "/Mul/output_0"], sub + "/Mul")
        counted = b.node("Add", [zeros, "one_i64"], [sub + "/Add/output_0"], sub + "/Add")
    total = b.node("ReduceSum", [counted, "axes_1"], [sub + "/ReduceSum/output_0"], sub + "/ReduceSum",
                   keepdims=0)
    minus = b.node("Sub", [total, "one_i64"], [sub + "/Sub/output_0"], sub + "/Sub")
    b.node("Cast", [minus], [sub + "/Sub/Cast/output_0"], sub + "/Sub/Cast", to=TensorProto.INT32)
    shape_of = "input_ids" if args.broken_total_length else "attention_mask"
    shape = b.node("Shape", [shape_of], [sub + "/Shape/output_0"], sub + "/Shape")
    b.literal("index_1", np.array(1, dtype=np.int64))
    length = b.node("Gather", [shape, "index_1"], [sub + "/Gather/output_0"], sub + "/Gather", axis=0)
    b.node("Cast", [length], [sub + "/Gather/Cast/output_0"], sub + "/Gather/Cast", to=TensorProto.INT32)
    seqlens_k, total_len = sub + "/Sub/Cast/output_0", sub + "/Gather/Cast/output_0"

    # Rotary caches [max_length, head/2], as the builder precomputes them.
    inv_freq = 1.0 / (10000.0 ** (np.arange(0, head, 2, dtype=np.float32) / head))
    angles = np.outer(np.arange(args.max_length, dtype=np.float32), inv_freq)
    cos = b.weight("cos_cache", np.cos(angles).astype(np.float32))
    sin = b.weight("sin_cache", np.sin(angles).astype(np.float32))

    embed = b.weight("model.embed_tokens.weight",
                     b.random((args.vocab, hidden), np.float32,
                              lambda: rng.standard_normal((args.vocab, hidden), dtype=np.float32) * np.float32(0.02))
                     if b.data is not None else (rng.standard_normal((args.vocab, hidden)) * 0.02).astype(np.float32))
    x = b.node("Gather", [embed, "input_ids"], ["/model/embed_tokens/Gather/output_0"], "/model/embed_tokens/Gather")
    residual, pending = x, None
    for i in range(args.layers):
        scope = "/model/layers.%d" % i
        norm_w = b.weight("model.layers.%d.input_layernorm.weight" % i, np.ones(hidden, dtype=np.float32))
        if pending is None:
            normed = b.node("SimplifiedLayerNormalization", [residual, norm_w],
                            [scope + "/input_layernorm/output_0"], scope + "/input_layernorm/LayerNorm",
                            axis=-1, epsilon=1e-5, stash_type=1)
        else:
            normed, _, _, residual = b.node("SkipSimplifiedLayerNormalization", [pending, residual, norm_w],
                                            [scope + "/input_layernorm/output_0", "", "",
                                             scope + "/input_layernorm/output_3"],
                                            scope + "/input_layernorm/SkipLayerNorm", domain="com.microsoft",
                                            epsilon=1e-5)
        qkv = b.matmul_nbits("model.layers.%d.attn.qkv_proj" % i, normed, hidden,
                             (args.heads + 2 * args.kv_heads) * head)
        attn = b.node("GroupQueryAttention",
                      [qkv, "", "", "past_key_values.%d.key" % i, "past_key_values.%d.value" % i, seqlens_k,
                       total_len, cos, sin],
                      [scope + "/attn/GroupQueryAttention/output_0", "present.%d.key" % i, "present.%d.value" % i],
                      scope + "/attn/GroupQueryAttention", domain="com.microsoft",
                      num_heads=args.heads, kv_num_heads=args.kv_heads, do_rotary=1, rotary_interleaved=0,
                      scale=float(1.0 / np.sqrt(head)), local_window_size=-1)[0]
        attn_out = b.matmul_nbits("model.layers.%d.attn.o_proj" % i, attn, args.heads * head, hidden)
        post_w = b.weight("model.layers.%d.post_attention_layernorm.weight" % i, np.ones(hidden, dtype=np.float32))
        normed, _, _, residual = b.node("SkipSimplifiedLayerNormalization", [attn_out, residual, post_w],
                                        [scope + "/post_attention_layernorm/output_0", "", "",
                                         scope + "/post_attention_layernorm/output_3"],
                                        scope + "/post_attention_layernorm/SkipLayerNorm", domain="com.microsoft",
                                        epsilon=1e-5)
        gate = b.matmul_nbits("model.layers.%d.mlp.gate_proj" % i, normed, hidden, inter)
        up = b.matmul_nbits("model.layers.%d.mlp.up_proj" % i, normed, hidden, inter)
        sig = b.node("Sigmoid", [gate], [scope + "/mlp/act_fn/Sigmoid/output_0"], scope + "/mlp/act_fn/Sigmoid")
        silu = b.node("Mul", [gate, sig], [scope + "/mlp/act_fn/Mul/output_0"], scope + "/mlp/act_fn/Mul")
        prod = b.node("Mul", [silu, up], [scope + "/mlp/Mul/output_0"], scope + "/mlp/Mul")
        pending = b.matmul_nbits("model.layers.%d.mlp.down_proj" % i, prod, inter, hidden)
    final_w = b.weight("model.norm.weight", np.ones(hidden, dtype=np.float32))
    final, _, _, _ = b.node("SkipSimplifiedLayerNormalization", [pending, residual, final_w],
                            ["/model/norm/output_0", "", "", "/model/norm/output_3"], "/model/norm/SkipLayerNorm",
                            domain="com.microsoft", epsilon=1e-5)
    b.matmul_nbits("lm_head", final, hidden, args.vocab, out_name="logits")
    b.finish()

    graph = helper.make_graph(b.nodes, "main_graph", inputs, outputs, b.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21),
                                                    helper.make_opsetid("com.microsoft", 1)],
                              producer_name="onnxruntime-genai", producer_version="0.9.0")
    model.ir_version = 10
    return model


def dynamo_metadata():
    """tools/make-dynamo-model.py's writer of node metadata (python3-onnx 1.12 has no field for it)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "make-dynamo-model.py")
    spec = importlib.util.spec_from_file_location("make_dynamo_model", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class DynamoBuilder(Builder):
    """Nodes named flat as torch.onnx.export(dynamo=True) names them (node_MatMul_12), each
    with its module path in metadata_props (pkg.torch.onnx.name_scopes)."""

    def __init__(self, rng):
        super().__init__(rng, 0)
        self.meta, self.count = dynamo_metadata(), 0

    def op(self, modules, op, inputs, outputs=None, **attrs):
        """modules: (path, class) pairs from the top module down."""
        self.count += 1
        name = "node_%s_%d" % (op, self.count)
        outputs = outputs or ["val_%d" % self.count]
        scopes = [""] + [m for m, _ in modules] + [op.lower() + "_%d" % self.count]
        classes = ["transformers.LlamaForCausalLM"] + [c for _, c in modules] + ["aten.%s.default" % op.lower()]
        node = helper.make_node(op, inputs, outputs, name=name, **attrs)
        entries = self.meta.node_entries(scopes, classes, [], "%" + outputs[0])
        self.nodes.append(self.meta.with_metadata(node, 9, entries))
        return outputs[0]

    def const(self, name, array):
        return self.weight(name, np.asarray(array))


def build_dynamo(args):
    """The same decoder as torch.onnx.export(dynamo=True) writes it: standard operators
    only (opset 18), multi-head attention with the KV cache concatenated, RMSNorm spelled
    out, an additive mask made from attention_mask."""
    rng = np.random.default_rng(0)
    b = DynamoBuilder(rng)
    heads, head = args.heads, args.hidden // args.heads
    hidden, inter = args.hidden, args.intermediate
    top = [("model", "transformers.LlamaModel")]

    inputs, outputs = graph_values(args, heads, head)
    b.const("one_f", np.array(1.0, np.float32))
    b.const("big_negative", np.array(-10000.0, np.float32))
    b.const("mask_axes", np.array([1, 2], np.int64))
    b.const("two_f", np.array(2.0, np.float32))
    b.const("eps", np.array(1e-5, np.float32))
    b.const("last_axis", np.array([-1], np.int64))
    b.const("heads_shape", np.array([0, 0, heads, head], np.int64))
    b.const("hidden_shape", np.array([0, 0, hidden], np.int64))
    b.const("scale", np.array(1.0 / np.sqrt(head), np.float32))
    mask = b.op(top, "Cast", ["attention_mask"], to=TensorProto.FLOAT)
    mask = b.op(top, "Sub", ["one_f", mask])
    mask = b.op(top, "Mul", [mask, "big_negative"])
    mask = b.op(top, "Unsqueeze", [mask, "mask_axes"])

    def linear(modules, x, name, k, n):
        w = b.const(name + ".weight", (rng.standard_normal((k, n)) / np.sqrt(k)).astype(np.float32))
        return b.op(modules, "MatMul", [x, w])

    def rms_norm(modules, x, name):
        w = b.const(name + ".weight", np.ones(hidden, np.float32))
        squared = b.op(modules, "Pow", [x, "two_f"])
        mean = b.op(modules, "ReduceMean", [squared, "last_axis"], keepdims=1)
        root = b.op(modules, "Sqrt", [b.op(modules, "Add", [mean, "eps"])])
        return b.op(modules, "Mul", [b.op(modules, "Div", [x, root]), w])

    embed = b.const("model.embed_tokens.weight", (rng.standard_normal((args.vocab, hidden)) * 0.02).astype(np.float32))
    x = b.op(top + [("model.embed_tokens", "torch.nn.modules.sparse.Embedding")], "Gather", [embed, "input_ids"])
    for i in range(args.layers):
        layer = top + [("model.layers.%d" % i, "transformers.LlamaDecoderLayer")]
        attn = layer + [("model.layers.%d.self_attn" % i, "transformers.LlamaAttention")]
        mlp = layer + [("model.layers.%d.mlp" % i, "transformers.LlamaMLP")]
        prefix = "model.layers.%d" % i
        normed = rms_norm(layer + [(prefix + ".input_layernorm", "transformers.LlamaRMSNorm")], x,
                          prefix + ".input_layernorm")

        def split_heads(kind):
            modules = attn + [("%s.self_attn.%s_proj" % (prefix, kind), "torch.nn.modules.linear.Linear")]
            projected = linear(modules, normed, "%s.self_attn.%s_proj" % (prefix, kind), hidden, hidden)
            return b.op(attn, "Transpose", [b.op(attn, "Reshape", [projected, "heads_shape"])], perm=[0, 2, 1, 3])

        q, k, v = split_heads("q"), split_heads("k"), split_heads("v")
        k = b.op(attn, "Concat", ["past_key_values.%d.key" % i, k], ["present.%d.key" % i], axis=2)
        v = b.op(attn, "Concat", ["past_key_values.%d.value" % i, v], ["present.%d.value" % i], axis=2)
        scores = b.op(attn, "MatMul", [q, b.op(attn, "Transpose", [k], perm=[0, 1, 3, 2])])
        scores = b.op(attn, "Add", [b.op(attn, "Mul", [scores, "scale"]), mask])
        context = b.op(attn, "MatMul", [b.op(attn, "Softmax", [scores], axis=-1), v])
        context = b.op(attn, "Reshape", [b.op(attn, "Transpose", [context], perm=[0, 2, 1, 3]), "hidden_shape"])
        o = linear(attn + [(prefix + ".self_attn.o_proj", "torch.nn.modules.linear.Linear")], context,
                   prefix + ".self_attn.o_proj", hidden, hidden)
        x = b.op(layer, "Add", [x, o])
        normed = rms_norm(layer + [(prefix + ".post_attention_layernorm", "transformers.LlamaRMSNorm")], x,
                          prefix + ".post_attention_layernorm")
        gate = linear(mlp + [(prefix + ".mlp.gate_proj", "torch.nn.modules.linear.Linear")], normed,
                      prefix + ".mlp.gate_proj", hidden, inter)
        up = linear(mlp + [(prefix + ".mlp.up_proj", "torch.nn.modules.linear.Linear")], normed,
                    prefix + ".mlp.up_proj", hidden, inter)
        silu = b.op(mlp + [(prefix + ".mlp.act_fn", "torch.nn.modules.activation.SiLU")], "Mul",
                    [gate, b.op(mlp + [(prefix + ".mlp.act_fn", "torch.nn.modules.activation.SiLU")], "Sigmoid",
                                [gate])])
        down = linear(mlp + [(prefix + ".mlp.down_proj", "torch.nn.modules.linear.Linear")],
                      b.op(mlp, "Mul", [silu, up]), prefix + ".mlp.down_proj", inter, hidden)
        x = b.op(layer, "Add", [x, down])
    final = rms_norm(top + [("model.norm", "transformers.LlamaRMSNorm")], x, "model.norm")
    head_w = b.const("lm_head.weight", (rng.standard_normal((hidden, args.vocab)) * 0.02).astype(np.float32))
    b.op([("lm_head", "torch.nn.modules.linear.Linear")], "MatMul", [final, head_w], ["logits"])

    graph = helper.make_graph(b.nodes, "main_graph", inputs, outputs, b.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)],
                              producer_name="pytorch", producer_version="2.9.0")
    model.ir_version = 10
    return model


def data_path(out):
    """The external data file beside OUT: OUT.data."""
    return os.path.join(os.path.dirname(os.path.abspath(out)), os.path.basename(out) + ".data")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--kv-heads", type=int, default=2)
    parser.add_argument("--intermediate", type=int, default=512)
    parser.add_argument("--vocab", type=int, default=1024)
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--accuracy-level", type=int, default=4,
                        help="MatMulNBits's: 4 (int8 activations, the builder's default for CPU) or 0")
    parser.add_argument("--no-external", action="store_true")
    parser.add_argument("--value-info", action="store_true", help="record every tensor's type, as the builder does")
    parser.add_argument("--broken-total-length", action="store_true")
    parser.add_argument("--broken-seqlens", action="store_true",
                        help="seqlens_k counted from the new tokens instead of the mask")
    parser.add_argument("--dynamo", action="store_true",
                        help="as torch.onnx.export(dynamo=True) writes it: standard operators, opset 18, "
                             "flat node names with module paths in metadata (--kv-heads ignored)")
    parser.add_argument("--fast-weights", action="store_true",
                        help="random int4 nibbles instead of quantized weights, written to the data file as they "
                             "are made: seconds and little memory for Phi-3's sizes (not with --dynamo or "
                             "--no-external)")
    parser.add_argument("--sparse-weights", action="store_true",
                        help="as --fast-weights, but the data file is sparse, the weights zeros: a Llama-70B "
                             "(--layers 80 --hidden 8192 --heads 64 --kv-heads 8 --intermediate 28672 --vocab "
                             "128256) in seconds, to open and edit, not to run")
    parser.add_argument("--constant-nodes", action="store_true",
                        help="the attention mask's small literals as Constant nodes instead of initializers "
                             "(something for Simplify to change)")
    args = parser.parse_args()
    if (args.fast_weights or args.sparse_weights) and (args.dynamo or args.no_external):
        parser.error("--fast-weights and --sparse-weights write external data of the genai-shaped model only")
    if os.path.exists(data_path(args.out)):
        os.unlink(data_path(args.out))
    model = build_dynamo(args) if args.dynamo else build(args)
    if args.value_info:
        inferred = onnx.shape_inference.infer_shapes(model)
        model.graph.value_info.extend(inferred.graph.value_info)
    if args.no_external or args.fast_weights or args.sparse_weights:
        onnx.save(model, args.out)
    else:
        onnx.save(model, args.out, save_as_external_data=True, all_tensors_to_one_file=True,
                  location=os.path.basename(data_path(args.out)), size_threshold=1024)


if __name__ == "__main__":
    main()
