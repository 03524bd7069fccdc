#!/usr/bin/python3
"""onyx-cli run --profile: ONNX Runtime's own profiler over runs, its trace read back
and said on the nodes of the file. What Onyx reports is checked against the raw trace
ONNX Runtime wrote (--profile-trace), read here independently, on small models made
here: a Conv+BatchNormalization+Relu block at every optimization level, a Loop whose
body holds an If, a run with several threads, nodes without names, and a profile
compared with an edited copy's."""
import csv
import json
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import unittest
from collections import defaultdict

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

from onyx_test import HERE, cli, data

BUILT_WITH_ORT = os.environ.get("ONYX_HAVE_ONNXRUNTIME") == "1"
# Few runs: the tests check what is read, not how fast the model is.
QUICK = ["--runs", "3", "--warmup", "1"]
MAKE_LLM = os.path.join(os.path.dirname(HERE), "tools", "make-llm-model.py")


def save(graph, path, opset=13):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)


def conv_block(path, channels=8, size=16):
    """x[1,3,size,size] → Conv → BatchNormalization → Relu → y: what ONNX Runtime fuses."""
    rng = np.random.default_rng(1)
    weights = [numpy_helper.from_array(rng.standard_normal((channels, 3, 3, 3)).astype(np.float32), "W"),
               numpy_helper.from_array(rng.standard_normal(channels).astype(np.float32), "B")]
    for name, low in (("scale", 0.5), ("bias", -1), ("mean", -1), ("var", 0.5)):
        weights.append(numpy_helper.from_array(rng.uniform(low, 1.5, channels).astype(np.float32), name))
    nodes = [helper.make_node("Conv", ["x", "W", "B"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             helper.make_node("BatchNormalization", ["c", "scale", "bias", "mean", "var"], ["n"], name="bn"),
             helper.make_node("Relu", ["n"], ["y"], name="relu")]
    save(helper.make_graph(nodes, "block", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, size, size])],
                           [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, channels, size, size])],
                           weights), path)


def chain(path, names, drop=None):
    """x[4,4] → Relu → Sigmoid → Neg → y, nodes named `names` ("" for none); `drop`: a
    node left out (the chain joined around it), as a Bypass leaves it."""
    ops = ["Relu", "Sigmoid", "Neg"]
    nodes, last = [], "x"
    for i, (op, name) in enumerate(zip(ops, names)):
        if i == drop:
            continue
        out = "y" if i == len(ops) - 1 else f"t{i}"
        nodes.append(helper.make_node(op, [last], [out], name=name))
        last = out
    if drop == len(ops) - 1:
        nodes[-1].output[0] = "y"
    save(helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 4])],
                           [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 4])]), path)


def fusion_patterns(folder):
    """{name: path} of small models holding a pattern each that ONNX Runtime rewrites at
    level extended: Gelu from its Erf form, Add + LayerNormalization (on 3 dims: on 2,
    MatMul + Add becomes a Gemm first), MatMul times a scalar, two Transposes that
    cancel."""
    rng = np.random.default_rng(4)

    def weight(name, shape):
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)

    def scalar(name, value):
        return numpy_helper.from_array(np.array(value, dtype=np.float32), name)

    mk = helper.make_node
    patterns = {
        "gelu": ([mk("MatMul", ["x", "W"], ["m"], name="mm"), mk("Div", ["m", "sqrt2"], ["d"], name="div"),
                  mk("Erf", ["d"], ["e"], name="erf"), mk("Add", ["e", "one"], ["a"], name="add"),
                  mk("Mul", ["m", "a"], ["p"], name="mul"), mk("Mul", ["p", "half"], ["y"], name="half")],
                 [weight("W", (16, 16)), scalar("sqrt2", 1.4142135), scalar("one", 1), scalar("half", 0.5)]),
        "skip": ([mk("MatMul", ["x", "W"], ["m"], name="mm"), mk("Add", ["m", "x"], ["s"], name="residual"),
                  mk("LayerNormalization", ["s", "g", "b"], ["y"], name="ln", axis=-1)],
                 [weight("W", (16, 16)), weight("g", (16,)), weight("b", (16,))]),
        "scale": ([mk("MatMul", ["x", "W"], ["m"], name="mm"), mk("Mul", ["m", "k"], ["y"], name="scale")],
                  [weight("W", (16, 16)), scalar("k", 0.125)]),
        "transposes": ([mk("Transpose", ["x"], ["t"], name="t1", perm=[1, 0]),
                        mk("Transpose", ["t"], ["u"], name="t2", perm=[1, 0]), mk("Relu", ["u"], ["y"], name="relu")],
                       []),
    }
    paths = {}
    for name, (nodes, weights) in patterns.items():
        shape = [1, 4, 16] if name == "skip" else [4, 16]
        paths[name] = os.path.join(folder, name + ".onnx")
        save(helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                               [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)], weights),
             paths[name], opset=17)
    return paths


def node_count(path):
    """Nodes of every graph of the model, subgraphs included."""
    def count(graph):
        return sum(1 + sum(count(a.g) for a in n.attribute if a.type == onnx.AttributeProto.GRAPH)
                   for n in graph.node)
    return count(onnx.load(path).graph)


def raw_trace(path, warmup):
    """(kernel name → per-run times over the measured runs, model_run of each, session
    creation), read from ONNX Runtime's trace as it wrote it: the runs by model_run in
    time order, the first `warmup` left out with the kernels timed within them."""
    with open(path) as f:
        events = json.load(f)
    runs = sorted((e["ts"], e["dur"]) for e in events if e.get("cat") == "Session" and e["name"] == "model_run")
    measured = len(runs) - warmup
    times = defaultdict(lambda: [0.0] * measured)
    for e in events:
        if e.get("cat") != "Node" or not e["name"].endswith("_kernel_time"):
            continue
        for r, (ts, dur) in enumerate(runs):
            if ts <= e["ts"] <= ts + dur:
                if r >= warmup:
                    times[e["name"][:-len("_kernel_time")]][r - warmup] += e["dur"]
                break
    session = sum(e["dur"] for e in events if e.get("cat") == "Session" and
                  (e["name"] == "session_initialization" or e["name"].startswith("model_loading")))
    return times, [dur for _, dur in runs[warmup:]], session, events


class Profile(unittest.TestCase):
    def setUp(self):
        if not BUILT_WITH_ORT:
            self.skipTest("this build has no ONNX Runtime (meson found none)")
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def profile(self, model, *args, expect=0):
        run = cli("run", model, "--profile", *args, "--json")
        self.assertEqual(run.returncode, expect, run.stdout + run.stderr)
        return json.loads(run.stdout) if expect == 0 else run

    def nodes(self, report):
        return {n["name"]: n for n in report["profile"]["nodes"]}

    def assert_as_traced(self, report, trace, warmup):
        """Every kernel time Onyx gives is the raw trace's median, min and max of the
        kernel's per-run sums; the totals are the trace's too. Returns the checks made."""
        times, runs, session, _ = raw_trace(trace, warmup)
        profile = report["profile"]
        checked = 0
        for node in profile["nodes"]:
            if node["status"] == "folded":
                self.assertNotIn("kernel", node)
                continue
            per_run = times[node["kernel"]]
            for key, value in (("median_us", statistics.median(per_run)), ("min_us", min(per_run)),
                               ("max_us", max(per_run))):
                self.assertAlmostEqual(node[key], value, places=6, msg=f"{node['name']} {key}")
            checked += 1
        self.assertAlmostEqual(profile["run_median_us"], statistics.median(runs), places=6)
        self.assertAlmostEqual(profile["session_init_us"], session, places=6)
        self.assertEqual(report["runs"], len(runs))
        return checked

    def test_conv_block_fused_at_every_level(self):
        model = self.path("block.onnx")
        conv_block(model)
        seen = {}
        for level in ("disabled", "basic", "extended", "all"):
            trace = self.path(f"{level}.json")
            report = self.profile(model, *QUICK, "--opt-level", level, "--profile-trace", trace)
            self.assertEqual(report["opt_level"], level)
            nodes = self.nodes(report)
            self.assertEqual(len(nodes), 3)
            self.assertEqual(self.assert_as_traced(report, trace, 1),
                             sum(n["status"] != "folded" for n in nodes.values()))
            seen[level] = nodes
        # One to one without optimizations.
        for name, node in seen["disabled"].items():
            self.assertEqual((node["status"], node["kernel"], node["kernel_op"]), ("own", name, node["op_type"]))
        # Basic folds the BatchNormalization into the Conv's weights: nothing of it runs.
        basic = seen["basic"]
        self.assertEqual((basic["conv"]["status"], basic["conv"]["kernel_op"]), ("own", "Conv"))
        self.assertEqual(basic["bn"]["status"], "folded")
        self.assertEqual((basic["relu"]["status"], basic["relu"]["kernel"]), ("own", "relu"))
        # Extended fuses the Relu too: one FusedConv named after the Conv.
        extended = seen["extended"]
        self.assertEqual((extended["conv"]["status"], extended["conv"]["kernel_op"]), ("own", "FusedConv"))
        for name in ("bn", "relu"):
            self.assertEqual((extended[name]["status"], extended[name]["kernel"]), ("fused", "conv"))
        # All may move the Conv to the NCHWc layout, under a name of its output's:
        # whichever kernel it is, all three nodes share it, and the Conv is its own
        # only under its own name.
        every = seen["all"]
        kernel = every["conv"]["kernel"]
        self.assertIn(every["conv"]["kernel_op"], ("FusedConv", "Conv"))
        self.assertEqual(every["conv"]["status"], "own" if kernel == "conv" else "fused")
        for name in ("bn", "relu"):
            self.assertEqual((every[name]["status"], every[name]["kernel"]), ("fused", kernel))

    def test_runtime_fusions_map_to_the_nodes_they_replace(self):
        expected = {
            "gelu": {"mm": ("own", "MatMul")} | {n: ("fused", "Gelu") for n in ("div", "erf", "add", "mul", "half")},
            "skip": {"mm": ("own", "MatMul"), "residual": ("fused", "SkipLayerNormalization"),
                     "ln": ("fused", "SkipLayerNormalization")},
            "scale": {"mm": ("fused", "FusedMatMul"), "scale": ("fused", "FusedMatMul")},
            "transposes": {"t1": ("folded", None), "t2": ("folded", None), "relu": ("own", "Relu")},
        }
        checked = 0
        for name, path in fusion_patterns(self.tmp).items():
            report = self.profile(path, *QUICK, "--opt-level", "extended")
            got = {n["name"]: (n["status"], n.get("kernel_op")) for n in report["profile"]["nodes"]}
            self.assertEqual(got, expected[name], name)
            fused = {n["kernel"] for n in report["profile"]["nodes"] if n["status"] == "fused"}
            self.assertLessEqual(len(fused), 1, name)  # one kernel for the whole pattern
            self.assertEqual(report["profile"]["added_kernels"], [], name)
            checked += 1
        self.assertEqual(checked, len(expected))

    def test_added_kernels_are_the_traces_kernels_no_node_makes(self):
        model = self.path("block.onnx")
        conv_block(model, channels=32)
        trace = self.path("all.json")
        report = self.profile(model, *QUICK, "--profile-trace", trace)
        times, _, _, events = raw_trace(trace, 1)
        covering = {n["kernel"] for n in report["profile"]["nodes"] if "kernel" in n}
        expected = sorted(name for name in times if name not in covering)
        self.assertEqual(sorted(k["kernel"] for k in report["profile"]["added_kernels"]), expected)
        # Layout reorders, when ONNX Runtime moved the Conv to NCHWc, are among them.
        reorders = {e["name"][:-len("_kernel_time")] for e in events
                    if e.get("args", {}).get("op_name", "").startswith("Reorder")}
        self.assertTrue(reorders <= set(expected), (reorders, expected))
        for kernel in report["profile"]["added_kernels"]:
            self.assertAlmostEqual(kernel["median_us"], statistics.median(times[kernel["kernel"]]), places=6)

    def test_loop_body_and_if_branches_have_their_times(self):
        inputs = self.path("loop.npz")
        np.savez(inputs, x=np.random.default_rng(2).standard_normal((2, 8)).astype(np.float32),
                 n=np.array(3, dtype=np.int64))
        trace = self.path("loop.json")
        report = self.profile(data("control_loop.onnx"), *QUICK, "--inputs", inputs, "--profile-trace", trace)
        nodes = self.nodes(report)
        self.assertEqual(len(nodes), node_count(data("control_loop.onnx")))
        # The body's kernels ran three times a run: their time is the three summed.
        times, _, _, events = raw_trace(trace, 1)
        self.assertEqual(sum(1 for e in events if e["name"] == "/Mod_kernel_time"), 3 * 4)
        self.assertEqual(self.assert_as_traced(report, trace, 1), 7)
        for name in ("/Loop", "/Mod", "/Equal", "/If", "/Add"):
            self.assertEqual((nodes[name]["status"], nodes[name]["kernel"]), ("own", name))
        # The then branch's Gemm and Tanh became one FusedGemm.
        for name in ("/lin/Gemm", "/Tanh"):
            self.assertEqual((nodes[name]["status"], nodes[name]["kernel_op"]), ("fused", "FusedGemm"))
        for name in ("/Constant", "/Constant_1", "/Cast", "/Identity"):
            self.assertEqual(nodes[name]["status"], "folded")
        # The Loop's time holds its body's; totals count each µs once.
        self.assertGreaterEqual(nodes["/Loop"]["median_us"], nodes["/If"]["median_us"])
        operators = sum(op["us"] for op in report["operators"])
        self.assertAlmostEqual(operators, report["profile"]["kernels_us"], places=3)

    def test_several_threads(self):
        model = self.path("block.onnx")
        conv_block(model, channels=64, size=64)
        trace = self.path("threads.json")
        report = self.profile(model, *QUICK, "--threads", "2", "--opt-level", "extended", "--profile-trace", trace)
        self.assertEqual(report["threads"], 2)
        self.assertEqual(self.assert_as_traced(report, trace, 1), 3)
        # ONNX Runtime says how it spread each kernel over its threads.
        _, _, _, events = raw_trace(trace, 1)
        stats = [e["args"]["thread_scheduling_stats"] for e in events
                 if e.get("cat") == "Node" and e["args"].get("thread_scheduling_stats")]
        self.assertTrue(stats, "no kernel of the trace ran on several threads")

    def test_nodes_without_a_unique_name_are_named_by_reference(self):
        model = self.path("unnamed.onnx")
        chain(model, ["", "twice", "twice"])
        trace = self.path("unnamed.json")
        report = self.profile(model, *QUICK, "--opt-level", "disabled", "--profile-trace", trace)
        names = [n["name"] for n in report["profile"]["nodes"]]
        self.assertEqual(names, ["#0", "#1", "#2"])
        for node in report["profile"]["nodes"]:
            self.assertEqual((node["status"], node["kernel"]), ("own", node["name"]))
        self.assertEqual(self.assert_as_traced(report, trace, 1), 3)
        # The model run was a copy: the file keeps its names.
        self.assertEqual([n.name for n in onnx.load(model).graph.node], ["", "twice", "twice"])

    def test_an_inlined_function_call_is_covered_by_every_kernel_of_its_body(self):
        trace = self.path("function.json")
        report = self.profile(data("local_function.onnx"), *QUICK, "--profile-trace", trace)
        times, _, _, _ = raw_trace(trace, 1)
        (call,) = report["profile"]["nodes"]
        self.assertEqual((call["name"], call["status"]), ("call", "fused"))
        # Relu and Neg of its body: the one making the call's output is named, the
        # other is no kernel added by ONNX Runtime.
        self.assertEqual(len(times), 2)
        self.assertIn(call["kernel"], times)
        self.assertEqual(report["profile"]["added_kernels"], [])

    def test_every_node_accounted_on_a_paddle_style_cnn(self):
        model = data("paddle_style.onnx")
        for level in ("all", "disabled"):
            report = self.profile(model, *QUICK, "--opt-level", level, "--dim", "image:2=64", "--dim", "image:3=64")
            nodes = report["profile"]["nodes"]
            self.assertEqual(len(nodes), node_count(model))
            kinds = defaultdict(int)
            for node in nodes:
                kinds[node["status"]] += 1
                self.assertEqual("kernel" in node, node["status"] != "folded", node)
                if level == "disabled" and node["op_type"] != "Constant":
                    self.assertEqual((node["status"], node["kernel"], node["kernel_op"]),
                                     ("own", node["name"], node["op_type"]))
            self.assertEqual(sum(kinds.values()), len(nodes))
            self.assertGreater(kinds["folded"], 0)  # the Constant nodes
            profile = report["profile"]
            self.assertGreater(profile["kernels_us"], 0)
            self.assertAlmostEqual(profile["overhead_us"], max(profile["run_median_us"] - profile["kernels_us"], 0),
                                   places=3)

    def test_csv_has_a_line_per_node(self):
        model = self.path("block.onnx")
        conv_block(model)
        out = self.path("nodes.csv")
        report = self.profile(model, *QUICK, "--opt-level", "extended", "--profile-csv", out)
        with open(out, newline="") as f:
            rows = list(csv.reader(f))
        self.assertEqual(rows[0], ["node", "op_type", "status", "kernel", "kernel_op", "median_us", "min_us", "max_us",
                                   "share"])
        self.assertEqual([r[0] for r in rows[1:]], [n["name"] for n in report["profile"]["nodes"]])
        for row, node in zip(rows[1:], report["profile"]["nodes"]):
            self.assertEqual(row[2:5], [node["status"], node["kernel"], node["kernel_op"]])
            self.assertAlmostEqual(float(row[5]), node["median_us"], places=2)

    def test_compare_says_each_nodes_change_and_the_nodes_gone(self):
        before, after = self.path("before.onnx"), self.path("after.onnx")
        chain(before, ["relu", "sigmoid", "neg"])
        chain(after, ["relu", "sigmoid", "neg"], drop=1)
        report = self.profile(before, *QUICK, "--opt-level", "disabled", "--profile-compare", after)
        compare = report["compare"]
        self.assertEqual(compare["against"], after)
        self.assertEqual(compare["disappeared"], ["sigmoid"])
        changes = {n["name"]: n for n in compare["nodes"]}
        self.assertEqual(set(changes), {"relu", "sigmoid", "neg"})
        self.assertIsNone(changes["sigmoid"]["after_us"])
        after_nodes = {n["name"]: n for n in compare["profile"]["nodes"]}
        for name in ("relu", "neg"):
            self.assertEqual(changes[name]["after_us"], after_nodes[name]["median_us"])
            self.assertEqual(changes[name]["before_us"], self.nodes(report)[name]["median_us"])
        text = cli("run", before, "--profile", *QUICK, "--opt-level", "disabled", "--profile-compare", after)
        self.assertEqual(text.returncode, 0, text.stderr)
        self.assertRegex(text.stdout, r"against .*after\.onnx: run ([+-]\d+ %, )?[0-9.]+ → [0-9.]+ (µs|ms|s); kernels ")
        self.assertIn("gone from", text.stdout)
        self.assertIn("sigmoid", text.stdout.split("gone from")[1])

    def test_text_names_totals_top_nodes_and_operators(self):
        model = self.path("block.onnx")
        conv_block(model)
        run = cli("run", model, "--profile", *QUICK, "--opt-level", "extended")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertRegex(run.stdout, r"profiled 3 runs after 1 warm-up with ONNX Runtime [0-9.]+ "
                                     r"\(optimizations extended")
        for heading in ("  run ", "  kernels ", "  session ", "  nodes      3: 1 with a kernel of their own, 2 fused",
                        "top nodes", "top operators"):
            self.assertIn(heading, run.stdout)
        self.assertRegex(run.stdout, r"conv \(Conv\) as FusedConv, with bn \(BatchNormalization\), relu \(Relu\) fused")
        self.assertTrue(all(len(line) <= 240 for line in run.stdout.splitlines()))

    def make_llm(self, layers=5):
        path = self.path("llm.onnx")
        subprocess.run(["/usr/bin/python3", MAKE_LLM, path, "--layers", str(layers), "--hidden", "64", "--heads", "4",
                        "--kv-heads", "2", "--intermediate", "128", "--vocab", "100"], check=True, capture_output=True)
        return path

    def check_stacks(self, report, stacks):
        """Each stack's time is its layers' kernels added, each kernel once per layer, as
        the JSON's nodes say; the median layer's parts add up to it."""
        kernels_of_layer = defaultdict(dict)
        for node in report["nodes"]:
            layer = re.match(r"/model/layers\.(\d+)/", node["name"])
            if layer and "kernel" in node:
                kernels_of_layer[int(layer.group(1))][node["kernel"]] = node["median_us"]
        self.assertEqual(len(stacks), 1, stacks)
        stack = stacks[0]
        self.assertEqual(stack["path"], "model/layers.1–4")  # layer 0 reads the embedding: apart
        self.assertEqual(stack["layers"], 4)
        times = [sum(kernels_of_layer[n].values()) for n in range(1, 5)]
        self.assertAlmostEqual(stack["us"], sum(times), delta=0.01)
        self.assertAlmostEqual(stack["share"], stack["us"] / report["kernels_us"], places=6)
        median = int(stack["median_layer"].rsplit(".", 1)[1])
        self.assertAlmostEqual(stack["median_layer_us"], sorted(times, reverse=True)[2], delta=0.01)
        self.assertAlmostEqual(stack["median_layer_us"], times[median - 1], delta=0.01)
        parts = {part["name"]: part for part in stack["parts"]}
        self.assertEqual(set(parts), {"attn", "mlp", "input_layernorm", "post_attention_layernorm"})
        self.assertAlmostEqual(sum(part["us"] for part in parts.values()), stack["median_layer_us"], delta=0.01)
        self.assertAlmostEqual(sum(part["share"] for part in parts.values()), 1, places=6)

    def test_llm_layers_and_a_decoding_step(self):
        model = self.make_llm()
        run = cli("run", model, "--profile", *QUICK, "--json", "--dim", "past_sequence_length=16")
        self.assertEqual(run.returncode, 0, run.stderr)
        report = json.loads(run.stdout)
        self.check_stacks(report["profile"], report["stacks"])
        # The run as made (4 new tokens after 16), then one new token after the same past.
        step = report["decoding_step"]
        self.assertEqual(step["past"], 16)
        self.assertGreater(step["kernels_us"], 0)
        self.assertEqual([stack["path"] for stack in step["stacks"]], ["model/layers.1–4"])
        text = cli("run", model, "--profile", *QUICK)
        self.assertEqual(text.returncode, 0, text.stderr)
        self.assertRegex(text.stdout, r"model/layers\.1–4: 4 layers, [0-9.]+ (µs|ms), [0-9.]+ % of the kernels\n"
                                      r"    model/layers\.\d, the median layer, [0-9.]+ (µs|ms): ")
        self.assertIn("one decoding step (1 new token after 4 past)", text.stdout)
        # A run of one new token is the step already; arrays given are not made up again.
        one = cli("run", model, "--profile", *QUICK, "--json", "--dim", "sequence_length=1")
        self.assertEqual(one.returncode, 0, one.stderr)
        self.assertNotIn("decoding_step", json.loads(one.stdout))
        plain = self.path("block.onnx")
        conv_block(plain)
        self.assertEqual(json.loads(cli("run", plain, "--profile", *QUICK, "--json").stdout)["stacks"], [])

    def test_bad_usage(self):
        model = self.path("block.onnx")
        conv_block(model)
        for args, said in ((["--runs", "3"], "--runs needs --profile"),
                           (["--profile-trace", "t.json"], "--profile-trace needs --profile"),
                           (["--profile", "--all"], "takes none of"),
                           (["--profile", "--runs", "0"], "--runs takes"),
                           (["--profile", "--threads", "-1"], "--threads takes"),
                           (["--profile", "--opt-level", "most"], "--opt-level is")):
            run = cli("run", model, *args)
            self.assertEqual(run.returncode, 2, (args, run.stdout, run.stderr))
            self.assertIn(said, run.stderr)
        # A file that cannot be written: 3, and nothing half said on stdout.
        run = cli("run", model, "--profile", *QUICK, "--profile-csv", self.path("no/such/folder/x.csv"))
        self.assertEqual(run.returncode, 3, run.stderr)
        self.assertEqual(run.stdout, "")


if __name__ == "__main__":
    unittest.main()
