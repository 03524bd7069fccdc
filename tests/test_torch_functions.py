#!/usr/bin/python3
"""A function-per-module export as torch 2.2's dynamo exporter wrote them, made here
with python3-onnx and named as the real ones are (ir-py's Speech2Text2ForCausalLM,
resnet18, mobilenetv2): drawn with the module paths its function names hold, its
inlined layers folded into one stack; and its operator functions' attributes, which
they declare only in attribute_proto (IR 9) in a model of IR 8: told as such, and,
once a tool of IR 8 has dropped that field, the error ONNX Runtime refuses it with
explained by what Inline Functions repairs."""
import json
import os
import re
import shutil
import tempfile
import unittest

import numpy as np
import onnx
from onnx import AttributeProto, TensorProto, helper, numpy_helper

from onyx_test import cli
import onyx_test

LIB = "pkg.onnxscript.torch_lib"
TORCH = "pkg.torch.2.2.0a0+git63d65dd"
HF = "pkg.transformers.4.34.0.dev0"
HF_CLASS = "transformers_models_tiny_modeling_tiny_"
OPSETS = [helper.make_opsetid("", 18), helper.make_opsetid(LIB, 1), helper.make_opsetid(TORCH, 1),
          helper.make_opsetid(HF, 1)]
LAYERS = 4
WIDTH = 8


def ref(name, kind, attribute=None):
    """An attribute whose value is the call's attribute `name`."""
    a = AttributeProto()
    a.name = attribute or name
    a.ref_attr_name = name
    a.type = kind
    return a


def with_defaults(function, defaults):
    """`function` with FunctionProto.attribute_proto (field 11, IR 9), which
    python3-onnx 1.12 does not know: appended to its bytes as the exporter wrote it."""
    data = bytearray(function.SerializeToString())
    for default in defaults:
        body = default.SerializeToString()
        data += bytes([0x5a]) + varint(len(body)) + body
    parsed = onnx.FunctionProto()
    parsed.ParseFromString(bytes(data))
    return parsed


def varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def operator_functions(declared):
    """onnxscript's aten_add and aten_addmm as torch 2.2 wrote them: attributes read
    by reference, listed nowhere but in attribute_proto (left out: `declared` False)."""
    alpha = helper.make_node("Constant", [], ["alpha"], name="n0")
    alpha.attribute.append(ref("alpha", AttributeProto.FLOAT, "value_float"))
    add = helper.make_function(LIB, "aten_add", ["self", "other"], ["return_val"], [
        alpha, helper.make_node("CastLike", ["alpha", "other"], ["alpha_0"], name="n1"),
        helper.make_node("Mul", ["other", "alpha_0"], ["other_1"], name="n2"),
        helper.make_node("Add", ["self", "other_1"], ["return_val"], name="n3")], [OPSETS[0]])
    gemm = helper.make_node("Gemm", ["mat1", "mat2", "self"], ["return_val"], name="n0")
    gemm.attribute.extend([ref("alpha", AttributeProto.FLOAT), ref("beta", AttributeProto.FLOAT)])
    addmm = helper.make_function(LIB, "aten_addmm", ["self", "mat1", "mat2"], ["return_val"], [gemm],
                                 [OPSETS[0]])
    simple = [helper.make_function(LIB, name, ["self"], ["return_val"],
                                   [helper.make_node(op, ["self"], ["return_val"], name="n0")], [OPSETS[0]])
              for name, op in (("aten_relu", "Relu"), ("aten_copy", "Identity"), ("aten_t", "Transpose"))]
    if declared:
        add = with_defaults(add, [helper.make_attribute("alpha", 1.0)])
        addmm = with_defaults(addmm, [helper.make_attribute("alpha", 1.0), helper.make_attribute("beta", 1.0)])
    return [add, addmm] + simple


def call(function, domain, inputs, outputs, name, **attributes):
    return helper.make_node(function, inputs, outputs, name=name, domain=domain, **attributes)


def linear(path):
    """torch.nn.Linear at module path `path` ("model.decoder.layers.0.fc1")."""
    name = "torch_nn_modules_linear_Linear_%s_1" % path.replace(".", "_")
    body = [call("aten_t", LIB, ["weight"], ["t"], "aten_t_0"),
            call("aten_addmm", LIB, ["bias", "input", "t"], ["addmm"], "aten_addmm_1", alpha=1.0, beta=1.0)]
    return name, helper.make_function(TORCH, name, ["input", "weight", "bias"], ["addmm"], body, OPSETS)


def relu_module(path):
    name = "torch_nn_modules_activation_ReLU_%s_1" % path.replace(".", "_")
    body = [call("aten_relu", LIB, ["input"], ["relu_0"], "aten_relu_0"),
            call("aten_copy", LIB, ["relu_0"], ["relu"], "aten_copy_1")]
    return name, helper.make_function(TORCH, name, ["input"], ["relu"], body, OPSETS)


def layer(n):
    """A decoder layer: self_attn (its q_proj and a ReLU), fc1, activation_fn, and
    the residual's aten_add; each module a function calling the next."""
    path = "model.decoder.layers.%d" % n
    q_name, q_proj = linear(path + ".self_attn.q_proj")
    attn_name = HF_CLASS + "TinyAttention_%s_self_attn_1" % path.replace(".", "_")
    attention = helper.make_function(HF, attn_name, ["hidden", "q_w", "q_b"], ["out"], [
        call(q_name, TORCH, ["hidden", "q_w", "q_b"], ["q"], q_name + "_0"),
        call("aten_relu", LIB, ["q"], ["out"], "aten_relu_1")], OPSETS)
    fc1_name, fc1 = linear(path + ".fc1")
    act_name, act = relu_module(path + ".activation_fn")
    layer_name = HF_CLASS + "TinyDecoderLayer_%s_1" % path.replace(".", "_")
    body = [call(attn_name, HF, ["hidden", "q_w", "q_b"], ["attn"], attn_name + "_0"),
            call(fc1_name, TORCH, ["attn", "fc1_w", "fc1_b"], ["fc1"], fc1_name + "_1"),
            call(act_name, TORCH, ["fc1"], ["act"], act_name + "_2"),
            call("aten_add", LIB, ["hidden", "act"], ["out"], "aten_add_3", alpha=1.0)]
    function = helper.make_function(HF, layer_name, ["hidden", "q_w", "q_b", "fc1_w", "fc1_b"], ["out"], body,
                                    OPSETS)
    parameters = ["%s.self_attn.q_proj.weight" % path, "%s.self_attn.q_proj.bias" % path,
                  "%s.fc1.weight" % path, "%s.fc1.bias" % path]
    return layer_name, parameters, [q_proj, attention, fc1, act, function]


def make_model(path, declared=True):
    rng = np.random.default_rng(3)
    functions = operator_functions(declared)
    decoder_body, decoder_inputs, parameters = [], ["hidden"], []
    hidden = "hidden"
    for n in range(LAYERS):
        name, layer_parameters, layer_functions = layer(n)
        functions += layer_functions
        inputs = ["p%d_%d" % (n, k) for k in range(4)]
        decoder_inputs += inputs
        parameters += layer_parameters
        decoder_body.append(call(name, HF, [hidden] + inputs, ["h%d" % n], "%s_%d" % (name, n)))
        hidden = "h%d" % n
    decoder_body.append(helper.make_node("Identity", [hidden], ["out"], name="Identity_%d" % LAYERS))
    decoder_name = HF_CLASS + "TinyDecoder_model_decoder_1"
    functions.append(helper.make_function(HF, decoder_name, decoder_inputs, ["out"], decoder_body, OPSETS))
    head_name, head = linear("lm_head")
    functions.append(head)
    initializers = []
    for name in parameters + ["lm_head.weight", "lm_head.bias"]:
        shape = (WIDTH, WIDTH) if name.endswith("weight") else (WIDTH,)
        initializers.append(numpy_helper.from_array((rng.standard_normal(shape) * 0.5).astype(np.float32), name))
    nodes = [call(decoder_name, HF, ["l_x_"] + parameters, ["model_decoder_1"], decoder_name + "_0"),
             call(head_name, TORCH, ["model_decoder_1", "lm_head.weight", "lm_head.bias"], ["lm_head_1"],
                  head_name + "_1")]
    graph = helper.make_graph(nodes, "main_graph",
                              [helper.make_tensor_value_info("l_x_", TensorProto.FLOAT, [2, WIDTH])],
                              [helper.make_tensor_value_info("lm_head_1", TensorProto.FLOAT, [2, WIDTH])],
                              initializers)
    model = helper.make_model(graph, producer_name="pytorch", producer_version="2.2.0",
                              opset_imports=OPSETS, functions=functions)
    model.ir_version = 8
    onnx.save(model, path)
    return path


def svg_texts(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return [re.sub(r"<[^>]*>", "", t) for t in re.findall(r"<text[^>]*>.*?</text>", text)], text


def svg_size(text):
    match = re.search(r'<svg[^>]* width="([0-9.]+)pt" height="([0-9.]+)pt"', text)
    return float(match.group(1)), float(match.group(2))


class Drawing(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.model = make_model(os.path.join(cls.tmp, "tiny.onnx"))
        cls.inlined = os.path.join(cls.tmp, "inlined.onnx")
        run = cli("edit", cls.model, "-o", cls.inlined, "--inline-functions")
        assert run.returncode == 0, run.stderr

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def render(self, model, *options):
        out = os.path.join(self.tmp, "out.svg")
        run = cli("render", model, "-o", out, *options)
        self.assertEqual(run.returncode, 0, run.stderr)
        return svg_texts(out)

    def test_calls_titled_by_module(self):
        texts, _ = self.render(self.model)
        self.assertIn("model.decoder · TinyDecoder", texts)
        self.assertIn("lm_head · Linear", texts)
        self.assertFalse([t for t in texts if "transformers_models" in t or "torch_nn_modules" in t], texts)

    def test_inlined_layers_stack_under_module_paths(self):
        texts, svg = self.render(self.inlined, "--expand", "auto")
        # The layers' paths differ only in their index: one stack.
        self.assertIn("model.decoder.layers.0–3 · TinyDecoderLayer", texts)
        self.assertIn("%d × 10 nodes" % LAYERS, texts)
        self.assertIn("model.decoder · TinyDecoder · 41 nodes", texts)
        self.assertFalse([t for t in texts if "transformers_models" in t or "_1_0" in t], texts)
        # Opened, the layer shown says its modules, calls counted no more.
        texts, _ = self.render(self.inlined, "--expand", "model.decoder/model.decoder.layers.0–3")
        for title in ("model.decoder.layers.0.self_attn · TinyAttention",
                      "model.decoder.layers.0.self_attn.q_proj · Linear",
                      "model.decoder.layers.0.activation_fn · ReLU"):
            self.assertTrue([t for t in texts if t.startswith(title + " · ")], (title, texts))
        self.assertIn("to model.decoder.layers.1", texts)
        # Every group's title is 60 characters at most.
        titles = [t.rsplit(" · ", 1)[0] for t in texts if re.search(r" · \d+ (×|nodes?)", t)]
        self.assertGreater(len(titles), 5)
        self.assertEqual([t for t in titles if len(t) > 60], [])
        width, height = svg_size(svg)
        _, drawn_out = self.render(self.inlined, "--expand", "all")
        self.assertLess(width * height, svg_size(drawn_out)[0] * svg_size(drawn_out)[1])


class UndeclaredAttributes(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def check(self, model):
        run = cli("check", model, "--json")
        return json.loads(run.stdout), run

    def test_defaults_only_in_attribute_proto_said(self):
        model = make_model(os.path.join(self.tmp, "as_written.onnx"))
        # The model must be as torch 2.2 wrote it, or the test proves nothing.
        functions = {f.name: f for f in onnx.load(model).functions}
        self.assertEqual(list(functions["aten_add"].attribute), [])
        self.assertGreater(len(functions["aten_add"].UnknownFields()), 0)
        report, run = self.check(model)
        self.assertEqual(report["errors"], 0, run.stdout)
        said = sorted(p["message"] for p in report["problems"] if p["kind"] == "undeclared-attribute")
        self.assertEqual(said, [
            "function aten_add (called %d times) declares attribute 'alpha' only in attribute_proto, which "
            "came with IR version 9, but the model says IR version 8: a tool reading it as such loses the "
            "declaration. Inline Functions repairs it." % LAYERS,
            "function aten_addmm (called %d times) declares attributes 'alpha', 'beta' only in attribute_proto, "
            "which came with IR version 9, but the model says IR version 8: a tool reading it as such loses the "
            "declaration. Inline Functions repairs it." % (2 * LAYERS + 1)])
        code, output, stderr = onyx_test.run_onnxruntime(
            model, "l_x_", np.ones((2, WIDTH), np.float32), self.tmp)
        self.assertEqual(code, 0, stderr)
        self.assertEqual(output.shape, (2, WIDTH))

    def test_undeclared_attribute_explained_and_repaired(self):
        model = make_model(os.path.join(self.tmp, "dropped.onnx"), declared=False)
        report, run = self.check(model)
        self.assertEqual(run.returncode, 1)
        errors = [p for p in report["problems"] if p["severity"] == "error"]
        self.assertEqual([p["message"] for p in errors], [
            "function aten_add (called %d times) uses attribute 'alpha' that it does not declare; ONNX Runtime "
            "refuses this model. Inline Functions repairs it." % LAYERS])
        # ONNX's own words are its detail, not problems of their own.
        self.assertIn("One and only one of the attributes 'value', 'value_*' or 'sparse_value' must be "
                      "specified for a Constant node", errors[0]["detail"])
        self.assertEqual(errors[0]["see"], "docs/exporter-faults.md#function-attributes-not-declared")
        self.assertFalse([p for p in report["problems"] if p["kind"] == "shape-inference"], report["problems"])
        gemm = [p for p in report["problems"] if "aten_addmm" in p["message"]]
        self.assertEqual([p["severity"] for p in gemm], ["warning"])
        self.assertIn("ONNX's inference ignores what the calls set", gemm[0]["message"])
        text = cli("check", model).stdout
        self.assertIn("\n  ONNX: ", text)
        self.assertIn("\n  see docs/exporter-faults.md#function-attributes-not-declared\n", text)
        # As the docs say: ONNX Runtime refuses it…
        x = np.random.default_rng(5).standard_normal((2, WIDTH)).astype(np.float32)
        code, _, stderr = onyx_test.run_onnxruntime(model, "l_x_", x, self.tmp)
        self.assertNotEqual(code, 0)
        self.assertIn("One and only one of the attributes", stderr)
        # …and Inline Functions repairs it: checks clean, loads, computes what the
        # model as written computes.
        inlined = os.path.join(self.tmp, "inlined.onnx")
        run = cli("edit", model, "-o", inlined, "--inline-functions")
        self.assertEqual(run.returncode, 0, run.stderr)
        report, run = self.check(inlined)
        self.assertEqual((report["errors"], report["warnings"]), (0, 0), report["problems"])
        code, repaired, stderr = onyx_test.run_onnxruntime(inlined, "l_x_", x, self.tmp)
        self.assertEqual(code, 0, stderr)
        written = make_model(os.path.join(self.tmp, "as_written.onnx"))
        code, expected, stderr = onyx_test.run_onnxruntime(written, "l_x_", x, self.tmp)
        self.assertEqual(code, 0, stderr)
        self.assertLess(float(np.abs(repaired - expected).max()), 1e-5)


if __name__ == "__main__":
    unittest.main()
