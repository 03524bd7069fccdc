#!/usr/bin/python3
"""A decoder LLM as onnxruntime-genai's builder writes it (tools/make-llm-model.py:
int4 MatMulNBits, GroupQueryAttention with a KV cache, SimplifiedLayerNormalization and
SkipSimplifiedLayerNormalization, the attention-mask subgraph, external data, IR 10,
opset 21): what Onyx knows of ONNX Runtime's operators, against what ONNX Runtime does.

- `check` finds nothing wrong and says once that the model runs on ONNX Runtime;
- every com.microsoft node has a schema with named slots (`nodes --json`);
- `--infer-shapes` on the model, which records no value_info, types every tensor, and
  each type and shape is what ONNX Runtime produced in a run (every tensor captured),
  symbolic dims standing for one size each throughout.
Needs a build on ONNX 1.17 or newer (opset 21) and onnxruntime-node for the run."""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

import onnx

from onyx_test import HERE, cli, library

MAKE = os.path.join(os.path.dirname(HERE), "tools", "make-llm-model.py")
# One run's sizes: a past of 3 tokens, 5 new ones.
DIMS = {"batch_size": 1, "sequence_length": 5, "past_sequence_length": 3, "total_sequence_length": 8}
ELEM = {1: "float32", 6: "int32", 7: "int64"}


def make_model(tmp, *options, name="llm.onnx"):
    path = os.path.join(tmp, name)
    subprocess.run(["/usr/bin/python3", MAKE, path, *options], check=True)
    return path


def dims_of(info):
    return [d.dim_value if d.HasField("dim_value") else (d.dim_param or None)
            for d in info.type.tensor_type.shape.dim]


def svg_size(path):
    with open(path, encoding="utf-8") as f:
        head = f.read(400)
    width = float(re.search(r'width="([0-9.]+)pt"', head).group(1))
    height = float(re.search(r'height="([0-9.]+)pt"', head).group(1))
    return width, height


class LLMPicture(unittest.TestCase):
    """32 layers drawn as the network they are: one stack, not 32 boxes in a staircase."""

    def render(self, model, *options):
        out = model + ".svg"
        run = cli("render", model, "-o", out, *options)
        self.assertEqual(run.returncode, 0, run.stderr)
        with open(out, encoding="utf-8") as f:
            return f.read(), svg_size(out)

    def test_layers_drawn_once(self):
        with tempfile.TemporaryDirectory() as tmp:
            model = make_model(tmp, "--layers", "32", "--hidden", "64", "--heads", "2", "--kv-heads", "1",
                               "--intermediate", "64", "--vocab", "64", "--max-length", "16", "--no-external")
            text, (width, height) = self.render(model)
            # Layer 0 opens with a plain norm, the others with the previous residual.
            self.assertIn(">layers.1–31<", text)
            self.assertIn(">31 × 11 nodes<", text)
            self.assertIn("present.0.key", text)
            self.assertNotIn("present.1.key", text)
            self.assertLess(width, 2500)
            self.assertLess(height, 4000)
            text, _ = self.render(model, "--expand", "/model/layers.1–31")
            self.assertIn(">layers.1–31 · 31 × 11 nodes · showing layers.1<", text)
            self.assertEqual(text.count("present.1.key"), 2)   # its box's title and text
            self.assertNotIn("present.2.key", text)
            self.assertIn(">to layers.2<", text)
            text, (width_all, height_all) = self.render(model, "--expand", "all")
            self.assertNotIn("–31", text)
            self.assertIn("present.31.key", text)
            self.assertGreater(width_all * height_all, 5 * width * height)
            text, _ = self.render(model, "--expand", "/model/layers.17/attn")
            self.assertIn("showing layers.17<", text)
            self.assertIn("present.17.value", text)
            self.assertIn(">from layers.16<", text)

    def test_dynamo_export_folds_alike(self):
        with tempfile.TemporaryDirectory() as tmp:
            model = make_model(tmp, "--dynamo", "--layers", "6", "--hidden", "32", "--heads", "2",
                               "--intermediate", "32", "--vocab", "32", "--no-external")
            text, (width, _) = self.render(model, "--expand", "none", "--expand", "model")
            self.assertIn(">model.layers.0–5 · LlamaDecoderLayer<", text)
            self.assertIn(">6 × 40 nodes<", text)
            self.assertLess(width, 1000)


@unittest.skipIf(library()[1] < 21, "the build's ONNX does not know opset 21")
class GenaiLLM(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.path = make_model(cls.tmp)

    @classmethod
    def tearDownClass(cls):
        __import__("shutil").rmtree(cls.tmp)

    def test_check_says_onnxruntime_once(self):
        run = cli("check", self.path, "--json")
        self.assertEqual(run.returncode, 0, run.stderr)
        report = json.loads(run.stdout)
        self.assertEqual((report["errors"], report["warnings"]), (0, 0), report["problems"])
        statements = [p["message"] for p in report["problems"] if p["kind"] == "onnxruntime"]
        self.assertEqual(statements, ["uses 4 operators of ONNX Runtime in 34 nodes (GroupQueryAttention, "
                                      "MatMulNBits, SimplifiedLayerNormalization, "
                                      "SkipSimplifiedLayerNormalization): the model runs on ONNX Runtime"])

    def test_check_says_a_fault_of_every_layer_once(self):
        """The Cast of the mask's length bypassed, each layer's GroupQueryAttention reads an
        int64 seqlens_k: one line for the layers, the count kept whole (--json lists each)."""
        broken = os.path.join(self.tmp, "broken.onnx")
        run = cli("edit", self.path, "-o", broken, "--bypass", "/model/attn_mask_reformat/attn_mask_subgraph/Sub/Cast")
        self.assertEqual(run.returncode, 0, run.stderr)
        run = cli("check", broken)
        self.assertEqual(run.returncode, 1, run.stderr)
        errors = [line for line in run.stdout.splitlines() if ": error: " in line]
        self.assertEqual(len(errors), 1, run.stdout)
        self.assertIn("of /model/layers.0–3/attn/GroupQueryAttention is tensor(int64)", errors[0])
        self.assertIn("(4 alike)", run.stdout)
        self.assertIn("4 errors", run.stdout)
        report = json.loads(cli("check", broken, "--json").stdout)
        self.assertEqual(report["errors"], 4)
        self.assertEqual(len([p for p in report["problems"] if p["severity"] == "error"]), 4)

    def test_run_with_no_input_options_makes_meaningful_inputs(self):
        """Token ids within the vocabulary, a mask of ones, a cache of 4 past tokens for 4
        new ones (total 8): GroupQueryAttention gets lengths that agree, so no NaN and
        no all-zero attention; the inputs made are saved with the outputs."""
        if os.environ.get("ONYX_HAVE_ONNXRUNTIME") != "1":
            self.skipTest("built without ONNX Runtime")
        saved = os.path.join(self.tmp, "run.npz")
        run = cli("run", self.path, "--all", "--json", "--save", saved)
        self.assertEqual(run.returncode, 0, run.stderr)
        report = json.loads(run.stdout)
        self.assertIsNone(report["first_nonfinite"])
        made = {i["name"]: i for i in report["inputs"]}
        self.assertEqual(made["input_ids"]["shape"], [1, 4])
        self.assertIn("token ids in [0, 1024)", made["input_ids"]["made_as"])
        self.assertEqual(made["attention_mask"]["shape"], [1, 8])
        self.assertEqual(made["past_key_values.3.value"]["shape"], [1, 2, 4, 32])
        tensors = {t["name"]: t for t in report["tensors"]}
        for layer in range(4):
            attention = tensors["/model/layers.%d/attn/GroupQueryAttention/output_0" % layer]
            self.assertGreater(attention["std"], 0)
            self.assertEqual(tensors["present.%d.key" % layer]["shape"], [1, 2, 8, 32])
        import numpy as np
        arrays = np.load(saved)
        self.assertTrue(0 <= arrays["input_ids"].min() and arrays["input_ids"].max() < 1024)
        self.assertTrue((arrays["attention_mask"] == 1).all())
        self.assertIn("logits", arrays.files)

    def test_dims_by_name_or_axis_and_unknown_names_refused(self):
        if os.environ.get("ONYX_HAVE_ONNXRUNTIME") != "1":
            self.skipTest("built without ONNX Runtime")
        run = cli("run", self.path, "--json", "--dim", "sequence_length=2", "--dim", "past_sequence_length=6")
        self.assertEqual(run.returncode, 0, run.stderr)
        made = {i["name"]: i["shape"] for i in json.loads(run.stdout)["inputs"]}
        self.assertEqual((made["input_ids"], made["attention_mask"]), ([1, 2], [1, 8]))
        # (GroupQueryAttention on CPU takes several sequences one token at a time.)
        run = cli("run", self.path, "--json", "--dim", "input_ids:0=3", "--dim", "batch_size=3",
                  "--dim", "sequence_length=1")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(json.loads(run.stdout)["inputs"][0]["shape"], [3, 1])
        run = cli("run", self.path, "--dim", "seq_len=2")
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn("'seq_len' is no dimension of the inputs of llm.onnx (named ones: batch_size, "
                      "sequence_length, total_sequence_length, past_sequence_length; any one as INPUT:AXIS)",
                      run.stderr)

    def test_generate_keeps_to_one_pass(self):
        """Fed its own outputs (present into past) the model's logits at every step are
        those of one pass over the whole sequence."""
        if os.environ.get("ONYX_HAVE_ONNXRUNTIME") != "1":
            self.skipTest("built without ONNX Runtime")
        run = cli("run", self.path, "--generate", "6", "--prompt-ids", "5,9,200,3,77", "--json")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        report = json.loads(run.stdout)
        self.assertEqual(report["prompt"], [5, 9, 200, 3, 77])
        self.assertEqual(len(report["steps"]), 6)
        self.assertTrue(all(0 <= step["token"] < 1024 for step in report["steps"]))
        self.assertIsNone(report["first_bad_step"])
        text = cli("run", self.path, "--generate", "3").stdout
        self.assertIn("llm.onnx: generated 3 tokens with ONNX Runtime", text)
        self.assertIn("the cache keeps to one pass over the whole sequence at every step", text)
        text = cli("run", self.path, "--generate", "1").stdout
        self.assertIn("llm.onnx: generated 1 token with ONNX Runtime", text)

    def test_generate_names_where_a_broken_cache_parts(self):
        """Two ways exports break the cache, each only once there is a past: the step and
        the layer are named."""
        if os.environ.get("ONYX_HAVE_ONNXRUNTIME") != "1":
            self.skipTest("built without ONNX Runtime")
        seqlens = make_model(self.tmp, "--broken-seqlens", name="seqlens.onnx")
        run = cli("run", seqlens, "--generate", "4", "--json")
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        report = json.loads(run.stdout)
        self.assertEqual((report["first_bad_step"], report["first_bad_cache"]), (2, "present.0.key"))
        self.assertEqual(report["steps"][0]["max_abs_vs_full_pass"], 0)
        total = make_model(self.tmp, "--broken-total-length", name="total.onnx")
        run = cli("run", total, "--generate", "4")
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn("step 2: ONNX Runtime failed at node '/model/layers.0/attn/GroupQueryAttention'", run.stdout)
        self.assertIn("the KV cache or its lengths are wired wrongly", run.stdout)

    def test_saved_elsewhere_with_its_data(self):
        """An edited model with external data saved into another folder takes its data
        with it, runs there, and leaves the original files as they were."""
        import hashlib
        data = self.path + ".data"
        digest = hashlib.sha256(open(data, "rb").read()).hexdigest()
        other = os.path.join(self.tmp, "elsewhere")
        os.mkdir(other)
        out = os.path.join(other, "edited.onnx")
        run = cli("edit", self.path, "-o", out, "--set-name", "#0=renamed")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(sorted(os.listdir(other)), ["edited.onnx", "llm.onnx.data"])
        self.assertEqual(hashlib.sha256(open(data, "rb").read()).hexdigest(), digest)
        self.assertEqual(open(os.path.join(other, "llm.onnx.data"), "rb").read(), open(data, "rb").read())
        if os.environ.get("ONYX_HAVE_ONNXRUNTIME") == "1":
            run = cli("run", out, "--json")
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertIsNone(json.loads(run.stdout)["first_nonfinite"])

    def test_int4_weights_counted_as_values(self):
        """MatMulNBits's B packs two int4 a byte: N × K values, not its bytes; the
        scales are counted apart."""
        info = json.loads(cli("info", self.path, "--json").stdout)
        layers, hidden, inter, kv, head, vocab = 4, 256, 512, 2, 32, 1024
        per_layer = hidden * (8 + 2 * kv) * head + 8 * head * hidden + 2 * hidden * inter + inter * hidden
        low_bit = layers * per_layer + hidden * vocab
        norms = (2 * layers + 1) * hidden
        caches = 2 * 256 * head // 2
        self.assertEqual(info["low_bit_parameter_count"], low_bit)
        self.assertEqual(info["low_bit_width"], 4)
        self.assertEqual(info["quantization_parameter_count"], low_bit // 32)
        self.assertEqual(info["parameter_count"], low_bit + vocab * hidden + norms + caches + 3)
        text = cli("info", self.path).stdout
        self.assertIn(", %.1f M of them in 4 bits, besides %.1f k quantization scales and zero points\n"
                      % (low_bit / 1e6, low_bit // 32 / 1e3),
                      text)

    def test_every_contrib_node_has_named_slots(self):
        nodes = json.loads(cli("nodes", self.path, "--json").stdout)
        contrib = [n for n in nodes if n["domain"] == "com.microsoft"]
        self.assertEqual(len(contrib), 33)
        for node in contrib:
            self.assertIsNotNone(node["schema"], node["name"])
            self.assertTrue(node["schema"]["onnxruntime"])
            self.assertIn("ContribOperators.md#com.microsoft." + node["op_type"], node["schema"]["docs_url"])
            self.assertEqual(len(node["schema"]["input_names"]), len(node["inputs"]), node["name"])
        gqa = next(n for n in contrib if n["op_type"] == "GroupQueryAttention")
        self.assertEqual(gqa["schema"]["input_names"], ["query", "key", "value", "past_key", "past_value",
                                                        "seqlens_k", "total_sequence_length", "cos_cache",
                                                        "sin_cache"])
        self.assertEqual(gqa["schema"]["output_names"], ["output", "present_key", "present_value"])
        rms = next(n for n in nodes if n["op_type"] == "SimplifiedLayerNormalization")
        self.assertTrue(rms["schema"]["onnxruntime"])
        self.assertEqual(rms["schema"]["input_names"], ["X", "scale"])

    def test_inferred_shapes_are_what_onnxruntime_produces(self):
        if os.environ.get("ONYX_HAVE_ONNXRUNTIME") != "1":
            self.skipTest("built without ONNX Runtime")
        inferred = os.path.join(self.tmp, "inferred.onnx")
        run = cli("edit", self.path, "-o", inferred, "--infer-shapes")
        self.assertEqual(run.returncode, 0, run.stderr)
        graph = onnx.load(inferred, load_external_data=False).graph
        types = {v.name: v for v in list(graph.value_info) + list(graph.output)}
        produced = [o for n in graph.node for o in n.output if o]
        self.assertEqual([o for o in produced if o not in types], [])

        options = ["--all", "--json", "--fill", "ones"] + sum((["--dim", "%s=%d" % kv] for kv in DIMS.items()), [])
        run = cli("run", self.path, *options)
        self.assertEqual(run.returncode, 0, run.stderr)
        ran = {t["name"]: t for t in json.loads(run.stdout)["tensors"]}
        sizes, compared = dict(DIMS), 0
        for name in produced:
            info, tensor = types[name], ran[name]
            self.assertEqual(ELEM.get(info.type.tensor_type.elem_type), tensor["dtype"], name)
            ours = dims_of(info)
            self.assertEqual(len(ours), len(tensor["shape"]), (name, ours, tensor["shape"]))
            for dim, size in zip(ours, tensor["shape"]):
                if isinstance(dim, int):
                    self.assertEqual(dim, size, (name, ours, tensor["shape"]))
                elif dim is not None:
                    # A symbolic dim is one size wherever it appears.
                    self.assertEqual(sizes.setdefault(dim, size), size, (name, dim))
            compared += 1
        self.assertEqual(compared, len(produced))
        self.assertGreater(compared, 60)


if __name__ == "__main__":
    unittest.main(verbosity=2)
