#!/usr/bin/python3
"""What `check`, `graphs`, `nodes` and `info` print reads right on real exports: no
line longer than 240 characters, a KV cache's tensors by family
(past_key_values.0–31.key/value), long lists folded ("… and 57 more"), long metadata
cut or folded, counts as people read them ("19.4 M (19,411,203)"). The models are made
here: a 32-layer decoder as onnxruntime-genai writes it, and one with what makes lines
long in the wild (a hundred inputs, a loop body reading sixty outer tensors, a Concat
of eighty long-named inputs, a torch fx_node of 1,313 characters, a stack trace of
several lines, a long string attribute, long model metadata)."""
import importlib.util
import json
import os
import re
import subprocess
import tempfile
import unittest

import onnx
from onnx import TensorProto, helper

from onyx_test import HERE, cli

TOOLS = os.path.join(os.path.dirname(HERE), "tools")
MAX_LINE = 240
COMMANDS = ("check", "graphs", "nodes", "info")


def dynamo_tool():
    """tools/make-dynamo-model.py as a module: its with_metadata() writes a node's
    metadata_props, which python3-onnx 1.12 does not know."""
    spec = importlib.util.spec_from_file_location("make_dynamo_model", os.path.join(TOOLS, "make-dynamo-model.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_llm(tmp):
    path = os.path.join(tmp, "llm32.onnx")
    subprocess.run(["/usr/bin/python3", os.path.join(TOOLS, "make-llm-model.py"), path, "--layers", "32",
                    "--hidden", "32", "--heads", "2", "--kv-heads", "1", "--intermediate", "32", "--vocab", "32",
                    "--no-external"], check=True)
    return path


def make_wide(tmp):
    """A model whose every listing would run long if printed whole."""
    long = "/encoder/very_long_module_path/with/many/levels/of/scope/and/names/that/keep/going"
    names = ["input_%s" % chr(ord("a") + i % 26) * (1 + i // 26) for i in range(100)]
    inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, ["batch", 4]) for n in names]
    outer = [helper.make_tensor("%s/weight_%s" % (long, chr(ord("a") + i % 26) * (1 + i // 26)), TensorProto.FLOAT,
                                [4], [1, 2, 3, 4]) for i in range(60)]
    body_nodes = [helper.make_node("Add", ["x_in", outer[0].name], ["acc0"])]
    for i, weight in enumerate(outer[1:], 1):
        body_nodes.append(helper.make_node("Add", ["acc%d" % (i - 1), weight.name], ["acc%d" % i]))
    body_nodes.append(helper.make_node("Identity", ["cond_in"], ["cond_out"]))
    body_nodes.append(helper.make_node("Identity", ["acc%d" % (len(outer) - 1)], ["x_out"]))
    body = helper.make_graph(body_nodes, "body",
                             [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                              helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
                              helper.make_tensor_value_info("x_in", TensorProto.FLOAT, ["batch", 4])],
                             [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
                              helper.make_tensor_value_info("x_out", TensorProto.FLOAT, ["batch", 4])])
    trip = helper.make_tensor("trip", TensorProto.INT64, [], [2])
    cond = helper.make_tensor("cond", TensorProto.BOOL, [], [True])
    copies = ["%s/copy_%d" % (long, i) for i in range(80)]
    nodes = [helper.make_node("Identity", [names[i % len(names)]], [copies[i]], name="%s/Identity_%d" % (long, i))
             for i in range(80)]
    nodes.append(helper.make_node("Concat", copies, ["joined"], name="%s/Concat" % long, axis=1,
                                  note="a string attribute " * 60))
    nodes.append(helper.make_node("Loop", ["trip", "cond", names[0]], ["looped"], name="/Loop", body=body))
    fx = ("%cat : [num_users=1] = call_function[target=torch.ops.aten.cat.default](args = ([" +
          ", ".join("%%copy_%d" % (i % 80) for i in range(128)) + "], 1), kwargs = {})")
    assert 1300 < len(fx) < 1400, len(fx)
    trace = "".join('  File "/home/u/proj/model.py", line %d, in forward\n    x = torch.cat(parts, 1)\n' % (90 + i)
                    for i in range(12))
    nodes[-2] = dynamo_tool().with_metadata(nodes[-2], 9, [("pkg.torch.onnx.fx_node", fx),
                                                          ("exporter.trace", trace)])
    graph = helper.make_graph(nodes, "wide", inputs,
                              [helper.make_tensor_value_info("joined", TensorProto.FLOAT, ["batch", 320]),
                               helper.make_tensor_value_info("looped", TensorProto.FLOAT, ["batch", 4])],
                              initializer=[trip, cond] + outer)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              doc_string="A model description that goes on. " * 40)
    helper.set_model_props(model, {"training_config": "{" + ", ".join('"k%d": %d' % (i, i) for i in range(200)) + "}"})
    path = os.path.join(tmp, "wide.onnx")
    onnx.save(model, path)
    return path


class Listings(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.llm = make_llm(cls.tmp.name)
        cls.wide = make_wide(cls.tmp.name)
        cls.out = {}
        for model in (cls.llm, cls.wide):
            for command in COMMANDS:
                run = cli(command, model)
                # (check finds the made-up attribute of the Concat: 1.)
                assert run.returncode in (0, 1) and run.stdout, (command, model, run.stderr)
                cls.out[os.path.basename(model), command] = run.stdout + run.stderr

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_no_line_over_240_characters(self):
        checked = 0
        for (model, command), text in self.out.items():
            for line in text.splitlines():
                self.assertLessEqual(len(line), MAX_LINE, "%s %s: %s" % (command, model, line[:120]))
                checked += 1
        # Every command printed, and nodes printed the nodes of both models.
        self.assertEqual(len(self.out), 8)
        self.assertGreater(checked, 3000)

    def test_families(self):
        check = self.out["llm32.onnx", "check"]
        self.assertRegex(check, r"dynamic dims: batch_size \(input_ids, attention_mask, past_key_values\.0–31\.key/value,"
                                r"\s+logits,\s+present\.0–31\.key/value\)")
        self.assertNotIn("past_key_values.1.key", check)
        info = self.out["llm32.onnx", "info"]
        self.assertRegex(info, r"(?m)^  past_key_values\.0–31\.key/value +float32\[batch_size×1×past_sequence_length×16\] "
                               r"\(64 inputs\)$")
        self.assertRegex(info, r"(?m)^  present\.0–31\.key/value +float32\[.*\] \(64 outputs\)$")

    def test_long_lists_folded(self):
        graphs = self.out["wide.onnx", "graphs"]
        self.assertRegex(graphs, r"/Loop:body  62 nodes, Loop body,\s+reads from outside: /encoder/.*/weight_a,")
        self.assertIn("… and 48 more", graphs)
        info = self.out["wide.onnx", "info"]
        # A hundred inputs, no two of a family: forty rows, then how many more.
        self.assertRegex(info, r"(?m)^Inputs\n(  input_\w+ +float32\[batch×4\]\n){40}  … and 60 more \(--json lists them all\)$")
        self.assertRegex(info, r"(?m)^  Description      (A model description that goes on\. )+.*… \(1,360 characters\)$")
        self.assertRegex(info, r"(?m)^  Metadata         training_config = \{\"k0\": 0, .*… \([0-9,]+ characters\)$")

    def test_node_details_folded(self):
        nodes = self.out["wide.onnx", "nodes"]
        concat = nodes[nodes.index("Concat "):]
        # Eighty inputs: sixteen, wrapped at a comma, each line after the first 12
        # columns in, then how many more.
        inputs = re.search(r"       in:  (.*\n(?: {12}\S.*\n)*)", concat).group(1)
        self.assertEqual(inputs.count("/copy_"), 16)
        self.assertGreater(inputs.count("\n"), 10)
        self.assertRegex(inputs, r"inputs\[15\]=/encoder/.*/copy_15,\s+… and 64 more \(--json lists them all\)\n$")
        self.assertRegex(concat, r"       metadata pkg\.torch\.onnx\.fx_node = %cat : \[num_users=1\] = call_function.*… "
                                 r"\(1,3\d\d characters\)\n")
        self.assertIn('       metadata exporter.trace =   File "/home/u/proj/model.py", line 90, in forward '
                      "… (23 more lines)\n", concat)
        self.assertRegex(concat, r"       note = \"a string attribute a string attribute .*… \([0-9,]+ characters\)\n")

    def test_counts(self):
        info = self.out["llm32.onnx", "info"]
        counts = json.loads(cli("info", self.llm, "--json").stdout)
        parameters = counts["parameter_count"]
        self.assertGreater(parameters, 100000)
        self.assertRegex(info, r"(?m)^Parameters: %s \(%s\) in \d+ initializers \([\d.]+\s\w+\), %s of them in 4 bits, "
                               r"besides %s quantization scales and zero points$"
                         % (rounded(parameters), format(parameters, ","), rounded(counts["low_bit_parameter_count"]),
                            rounded(counts["quantization_parameter_count"])))


def rounded(n):
    """onyx_format_count's "22.0 M", for counts of thousands."""
    assert 1000 <= n < 999500
    return re.escape("%.1f k" % (n / 1000) if n < 99950 else "%.0f k" % (n / 1000))


if __name__ == "__main__":
    unittest.main(verbosity=2)
