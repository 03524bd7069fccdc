#!/usr/bin/python3
"""onyx-cli run: the model runs in ONNX Runtime inside Onyx's helper; what it prints
is checked against numpy over what onnxruntime-node computes for the same inputs, and
its comparison finds the node where an edited copy of the model parts from the
original."""
import json
import os
import shutil
import tempfile
import unittest

import numpy as np
import onnx
from onnx import helper, numpy_helper

from onyx_test import cli, data
import onyx_test

# meson says whether this build has ONNX Runtime; a build that should and cannot run
# fails here rather than skipping.
BUILT_WITH_ORT = os.environ.get("ONYX_HAVE_ONNXRUNTIME") == "1"


def chain_model(path):
    """x[1,4] → MatMul(W1) → Relu → MatMul(W2) → Sigmoid → y, named nodes, weights seeded."""
    rng = np.random.default_rng(3)
    w1 = numpy_helper.from_array(rng.standard_normal((4, 8)).astype(np.float32), "W1")
    w2 = numpy_helper.from_array(rng.standard_normal((8, 3)).astype(np.float32), "W2")
    nodes = [helper.make_node("MatMul", ["x", "W1"], ["h"], name="mm1"),
             helper.make_node("Relu", ["h"], ["r"], name="relu"),
             helper.make_node("MatMul", ["r", "W2"], ["z"], name="mm2"),
             helper.make_node("Sigmoid", ["z"], ["y"], name="sigmoid")]
    graph = helper.make_graph(nodes, "chain",
                              [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["N", 4])],
                              [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["N", 3])],
                              [w1, w2])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)
    return model


class Run(unittest.TestCase):
    def setUp(self):
        if not BUILT_WITH_ORT:
            self.skipTest("this build has no ONNX Runtime (meson found none)")
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.model = os.path.join(self.tmp, "chain.onnx")
        chain_model(self.model)
        self.x = np.random.default_rng(5).standard_normal((2, 4)).astype(np.float32)
        self.inputs = os.path.join(self.tmp, "inputs.npz")
        np.savez(self.inputs, x=self.x)

    def run_json(self, *args, expect=0):
        run = cli("run", *args, "--json")
        self.assertEqual(run.returncode, expect, run.stdout + run.stderr)
        return json.loads(run.stdout)

    def test_every_tensor_has_numpy_statistics_of_what_onnxruntime_computes(self):
        report = self.run_json(self.model, "--inputs", self.inputs, "--all")
        expected = onyx_test.run_onnxruntime_feeds(self.all_outputs_copy(), {"x": self.x}, self.tmp)
        tensors = {t["name"]: t for t in report["tensors"]}
        self.assertEqual(set(tensors), {"h", "r", "z", "y"})
        checked = 0
        for name, values in expected.items():
            t = tensors[name]
            self.assertEqual(t["shape"], list(values.shape))
            self.assertEqual(t["dtype"], "float32")
            self.assertEqual(t["count"], values.size)
            for key, value in (("min", values.min()), ("max", values.max()), ("mean", values.mean()),
                               ("std", values.std())):
                self.assertAlmostEqual(t[key], float(value), places=5, msg=f"{name} {key}")
            # The histogram spreads every value over [min, max].
            self.assertEqual(sum(t["histogram"]), values.size)
            self.assertEqual(t["nan"], 0)
            checked += 1
        self.assertEqual(checked, 4)
        # Relu's output is never negative, and some of its inputs were.
        self.assertGreaterEqual(tensors["r"]["min"], 0)
        self.assertLess(tensors["h"]["min"], 0)

    def all_outputs_copy(self):
        model = onnx.load(self.model)
        for name in ("h", "r", "z"):
            model.graph.output.append(helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None))
        path = os.path.join(self.tmp, "all.onnx")
        onnx.save(model, path)
        return path

    def test_saved_outputs_are_onnxruntimes_values(self):
        out = os.path.join(self.tmp, "out.npz")
        run = cli("run", self.model, "--inputs", self.inputs, "--save", out)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("sigmoid", open(self.model, "rb").read().decode("latin-1"))
        saved = np.load(out)
        # The inputs the run was fed too, so that it can be repeated elsewhere.
        self.assertEqual(list(saved.keys()), ["y", "x"])
        np.testing.assert_array_equal(saved["x"], self.x)
        expected = onyx_test.run_onnxruntime_feeds(self.model, {"x": self.x}, self.tmp)["y"]
        np.testing.assert_allclose(saved["y"], expected, rtol=1e-6)
        # --all saves every tensor.
        run = cli("run", self.model, "--inputs", self.inputs, "--all", "--save", out)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(sorted(np.load(out).keys()), ["h", "r", "x", "y", "z"])

    def test_random_inputs_follow_seed_and_symbolic_dims(self):
        first = self.run_json(self.model, "--random", "7", "--dim", "N=5")
        again = self.run_json(self.model, "--random", "7", "--dim", "N=5")
        other = self.run_json(self.model, "--random", "8", "--dim", "N=5")
        self.assertEqual(first["tensors"][0]["shape"], [5, 3])
        self.assertEqual(first["tensors"], again["tensors"])
        self.assertNotEqual(first["tensors"][0]["mean"], other["tensors"][0]["mean"])
        ones = self.run_json(self.model, "--fill", "ones")
        self.assertEqual(ones["tensors"][0]["shape"], [1, 3])

    def test_the_model_against_itself_does_not_diverge(self):
        report = self.run_json(self.model, "--inputs", self.inputs, "--compare", self.model)
        compared = {t["tensor"] for t in report["compare"]["tensors"]}
        self.assertEqual(compared, {"h", "r", "z", "y"})
        self.assertTrue(all(t["max_abs"] == 0 for t in report["compare"]["tensors"]))
        self.assertIsNone(report["compare"]["first_divergence"])

    def test_first_divergence_is_the_node_whose_weight_changed(self):
        self.assertEqual(onnx.load(self.model).graph.initializer[1].name, "W2")
        path = self.edited_w2()
        report = self.run_json(self.model, "--inputs", self.inputs, "--compare", path, expect=1)
        first = report["compare"]["first_divergence"]
        self.assertEqual(first["node"], "mm2")
        self.assertEqual(first["tensor"], "z")
        self.assertGreater(first["max_abs"], 1e-3)
        # h and r agree; z and y do not.
        exceeding = {t["tensor"] for t in report["compare"]["tensors"] if t["exceeding"] > 0}
        self.assertEqual(exceeding, {"z", "y"})
        # A loose enough tolerance takes the divergence away.
        report = self.run_json(self.model, "--inputs", self.inputs, "--compare", path, "--atol", "1e9")
        self.assertIsNone(report["compare"]["first_divergence"])

    def test_reference_arrays_of_an_npz(self):
        # The walkthrough: FooOp bypassed, the model must give the arrays saved with it.
        removed = os.path.join(self.tmp, "removed.onnx")
        run = cli("edit", data("model_foo.onnx"), "-o", removed, "--bypass-op", "devtech::FooOp", "--cleanup")
        self.assertEqual(run.returncode, 0, run.stderr)
        report = self.run_json(removed, "--inputs", data("model_foo.npz"), "--compare", data("model_foo.npz"))
        self.assertEqual([t["tensor"] for t in report["compare"]["tensors"]], ["output"])
        self.assertIsNone(report["compare"]["tensors"][0]["mismatch"])
        self.assertLess(report["compare"]["tensors"][0]["max_abs"], 1e-5)
        self.assertIsNone(report["compare"]["first_divergence"])
        # A reference one value off is found, at the node that makes it.
        ref = dict(np.load(data("model_foo.npz")))
        ref["output"] = ref["output"].copy()
        ref["output"][0, 0, 0, 0] += 1
        path = os.path.join(self.tmp, "ref.npz")
        np.savez(path, **ref)
        report = self.run_json(removed, "--inputs", data("model_foo.npz"), "--compare", path, expect=1)
        first = report["compare"]["first_divergence"]
        self.assertEqual(first["tensor"], "output")
        self.assertEqual(first["node"], onnx.load(removed).graph.node[-1].name)
        self.assertEqual(report["compare"]["tensors"][0]["exceeding"], 1)
        run = cli("run", removed, "--inputs", data("model_foo.npz"), "--compare", path)
        self.assertEqual(run.returncode, 1, run.stderr)
        self.assertIn(": 1 tensor compared, 1 beyond the tolerance\n", run.stdout)
        self.assertRegex(run.stdout, r"(?m)^  output +max abs [0-9.e-]+  max rel [0-9.e-]+  1 value beyond$")
        # Another model's arrays cannot be compared: the shapes say so.
        report = self.run_json(data("model.onnx"), "--inputs", data("model_foo.npz"), "--compare", path, expect=1)
        self.assertIn("shape [2×64×31×31] against [2×16×63×63]", report["compare"]["tensors"][0]["mismatch"])

    def edited_w2(self):
        edited = onnx.load(self.model)
        w2 = edited.graph.initializer[1]
        w2.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(w2) * 1.5, "W2"))
        path = os.path.join(self.tmp, "edited.onnx")
        onnx.save(edited, path)
        return path

    def test_a_renamed_export_is_matched_through_the_diff(self):
        # Every node and tensor renamed, as two exports of one network name them apart.
        renamed = onnx.load(self.edited_w2())
        names = {"h": "t0", "r": "t1", "z": "t2"}
        for node in renamed.graph.node:
            node.name = "n_" + node.name
            node.input[:] = [names.get(i, i) for i in node.input]
            node.output[:] = [names.get(o, o) for o in node.output]
        path = os.path.join(self.tmp, "renamed.onnx")
        onnx.save(renamed, path)
        report = self.run_json(self.model, "--inputs", self.inputs, "--compare", path, expect=1)
        pairs = {t["tensor"]: t["other"] for t in report["compare"]["tensors"]}
        self.assertEqual(pairs, {"h": "t0", "r": "t1", "z": "t2", "y": "y"})
        first = report["compare"]["first_divergence"]
        self.assertEqual((first["node"], first["tensor"], first["other"]), ("mm2", "z", "t2"))

    def test_until_runs_the_part_a_node_needs(self):
        report = self.run_json(self.model, "--inputs", self.inputs, "--all", "--until", "mm2")
        self.assertEqual([t["name"] for t in report["tensors"]], ["h", "r", "z"])
        out = os.path.join(self.tmp, "z.npz")
        run = cli("run", self.model, "--inputs", self.inputs, "--until", "mm2", "--save", out)
        self.assertEqual(run.returncode, 0, run.stderr)
        model = onnx.load(self.model)
        w1, w2 = (numpy_helper.to_array(t) for t in model.graph.initializer)
        np.testing.assert_allclose(np.load(out)["z"], np.maximum(self.x @ w1, 0) @ w2, rtol=1e-5)
        run = cli("run", self.model, "--inputs", self.inputs, "--until", "nope")
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn("chain.onnx has no node named 'nope'", run.stderr)

    def test_repro_is_the_divergent_node_with_what_it_was_fed(self):
        edited = self.edited_w2()
        repro = os.path.join(self.tmp, "repro.onnx")
        report = self.run_json(self.model, "--inputs", self.inputs, "--compare", edited, "--repro", repro, expect=1)
        self.assertEqual(report["compare"]["repro"], {"model": repro, "inputs": os.path.join(self.tmp, "repro.npz")})
        cut = onnx.load(repro)
        self.assertEqual([n.name for n in cut.graph.node], ["mm2"])
        self.assertEqual([i.name for i in cut.graph.input], ["r"])
        fed = np.load(os.path.join(self.tmp, "repro.npz"))
        model = onnx.load(self.model)
        w1, w2 = (numpy_helper.to_array(t) for t in model.graph.initializer)
        np.testing.assert_allclose(fed["r"], np.maximum(self.x @ w1, 0), rtol=1e-6)
        # One command repeats it: the node alone gives what it gave in the model.
        out = os.path.join(self.tmp, "z.npz")
        run = cli("run", repro, "--inputs", os.path.join(self.tmp, "repro.npz"), "--save", out)
        self.assertEqual(run.returncode, 0, run.stderr)
        np.testing.assert_allclose(np.load(out)["z"], fed["r"] @ w2, rtol=1e-5)
        # Without a comparison there is nothing to reproduce.
        run = cli("run", self.model, "--inputs", self.inputs, "--repro", repro)
        self.assertEqual(run.returncode, 2)
        self.assertIn("--repro needs --compare", run.stderr)

    def test_a_model_onnxruntime_cannot_run_is_one_error_naming_the_node(self):
        run = cli("run", data("model_foo.onnx"), "--random", "1")
        self.assertEqual(run.returncode, 1)
        self.assertEqual(run.stdout, "")
        lines = run.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, run.stderr)
        foo = [n for n in onnx.load(data("model_foo.onnx")).graph.node if n.op_type == "FooOp"][0]
        self.assertIn(f"node '{foo.name}' ({foo.domain}::FooOp)", lines[0])

    def test_a_failure_on_the_inputs_names_the_node_in_one_line(self):
        # Slice's steps come from an input: zeros are no step.
        graph = helper.make_graph(
            [helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"], name="cut"),
             helper.make_node("Mod", ["a", "b"], ["c"], name="remainder")],
            "inputs", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [4]),
                       helper.make_tensor_value_info("a", onnx.TensorProto.INT32, [2]),
                       helper.make_tensor_value_info("b", onnx.TensorProto.INT32, [2])] +
            [helper.make_tensor_value_info(n, onnx.TensorProto.INT64, [1]) for n in ("starts", "ends", "axes", "steps")],
            [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None),
             helper.make_tensor_value_info("c", onnx.TensorProto.INT32, [2])])
        path = os.path.join(self.tmp, "inputs.onnx")
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), path)
        run = cli("run", path, "--fill", "zeros", "--until", "cut")
        self.assertEqual(run.returncode, 1)
        lines = run.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, run.stderr)
        self.assertIn("ONNX Runtime failed at node 'cut' (Slice) on these inputs: ", lines[0])
        # An integer division by zero ends the runtime's process: said as such, and the
        # next run works.
        run = cli("run", path, "--fill", "zeros", "--until", "remainder")
        self.assertEqual(run.returncode, 1)
        self.assertRegex(run.stderr, r"(?i)integer (division|modulo) by zero")
        self.assertEqual(len(run.stderr.strip().splitlines()), 1, run.stderr)
        self.run_json(path, "--fill", "ones", "--until", "remainder")

    def test_a_failure_on_made_inputs_says_the_sizes_onyx_chose(self):
        # A reflect pad of 2 needs 3 values along its axis: the dim that defaulted to 1
        # is said, with how to set it (as Silero VAD's `sequence`).
        graph = helper.make_graph(
            [helper.make_node("Pad", ["x", "pads"], ["padded"], mode="reflect", name="the_pad"),
             helper.make_node("Identity", ["w"], ["w_out"], name="same")],
            "pad", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["batch", "sequence"]),
                    helper.make_tensor_value_info("w", onnx.TensorProto.FLOAT, [None])],
            [helper.make_tensor_value_info("padded", onnx.TensorProto.FLOAT, None),
             helper.make_tensor_value_info("w_out", onnx.TensorProto.FLOAT, [None])],
            [numpy_helper.from_array(np.array([0, 2, 0, 2], dtype=np.int64), "pads")])
        path = os.path.join(self.tmp, "pad.onnx")
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), path)
        failed = "ONNX Runtime failed at node 'the_pad' (Pad) on these inputs: "
        run = cli("run", path)
        self.assertEqual(run.returncode, 1, run.stderr)
        self.assertEqual(len(run.stderr.strip().splitlines()), 1, run.stderr)
        self.assertIn(failed, run.stderr)
        self.assertTrue(run.stderr.endswith(
            " (Onyx made these inputs with the free dimensions batch=1, sequence=1, w:0=1 by default: set them with "
            "--dim NAME=SIZE, or in Run Settings)\n"), run.stderr)
        # Sizes given are not repeated; one left.
        run = cli("run", path, "--dim", "batch=2", "--dim", "w:0=3")
        self.assertEqual(run.returncode, 1, run.stderr)
        self.assertTrue(run.stderr.endswith(
            " (Onyx made these inputs with the free dimension sequence=1 by default: set it with --dim NAME=SIZE, "
            "or in Run Settings)\n"), run.stderr)
        self.assertEqual(self.run_json(path, "--dim", "sequence=5")["tensors"][0]["shape"], [1, 9])
        # Arrays given: Onyx chose nothing, and says nothing of it.
        given = os.path.join(self.tmp, "given.npz")
        np.savez(given, x=np.ones((1, 1), np.float32), w=np.ones(2, np.float32))
        run = cli("run", path, "--inputs", given)
        self.assertEqual(run.returncode, 1, run.stderr)
        self.assertIn(failed, run.stderr)
        self.assertNotIn("Onyx made", run.stderr)
        np.savez(given, x=np.ones((1, 1), np.float32), w=np.ones((1, 2), np.float32))
        run = cli("run", path, "--inputs", given)
        self.assertIn("input 'w' has 1 dimension, but its array has 2", run.stderr)

    def test_inputs_that_do_not_fit_say_which_and_why(self):
        # Nothing given: Onyx makes them (the default is --random 0).
        made = self.run_json(self.model)
        self.assertEqual([(i["name"], i["shape"][1:]) for i in made["inputs"]], [("x", [4])])
        wrong = os.path.join(self.tmp, "wrong.npy")
        np.save(wrong, np.zeros((2, 4), dtype=np.int64))
        run = cli("run", self.model, "--input", "x=" + wrong)
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn("input 'x' takes float32, but its array holds int64", run.stderr)
        np.save(wrong, np.zeros((2, 5), dtype=np.float32))
        run = cli("run", self.model, "--input", "x=" + wrong)
        self.assertIn("input 'x' has 4 in dimension 1, but its array has 5", run.stderr)
        np.save(wrong, np.zeros(4, dtype=np.float32))
        run = cli("run", self.model, "--input", "x=" + wrong)
        self.assertIn("input 'x' has 2 dimensions, but its array has 1", run.stderr)
        run = cli("run", self.model, "--input", "nope=" + wrong)
        self.assertIn("'nope' is not an input of chain.onnx (its inputs: 'x')", run.stderr)

    def test_exit_statuses_are_those_of_help(self):
        """2 for what the command asks that cannot be, 3 for a file that cannot be read
        or written, 1 for a model ONNX Runtime fails at (onyx-cli --help)."""
        other = os.path.join(self.tmp, "other.npz")
        np.savez(other, y=self.x)
        cases = [(("--dim", "M=2"), 2, "'M' is no dimension of the inputs of chain.onnx (named ones: N;"),
                 (("--until", "nope"), 2, "chain.onnx has no node named 'nope'"),
                 (("--input", "x"), 2, "--input is NAME=FILE.npy, not 'x'"),
                 (("--range", "3,1"), 2, "--range is LOW,HIGH with LOW < HIGH"),
                 (("--inputs", other), 2, "no array for input 'x'"),
                 (("--inputs", os.path.join(self.tmp, "missing.npz")), 3, "missing.npz"),
                 (("--save", os.path.join(self.tmp, "no", "out.npz")), 3, "out.npz")]
        for options, status, said in cases:
            run = cli("run", self.model, *options)
            self.assertEqual((run.returncode, run.stdout), (status, ""), (options, run.stderr))
            self.assertIn(said, run.stderr, options)
            # Bad usage points to the help, as every command's does.
            self.assertEqual("Try 'onyx-cli run --help'." in run.stderr, status == 2, run.stderr)


class ImageInputs(unittest.TestCase):
    """An image input whose height and width are free is not run at 1×1 unasked."""

    def test_refused_until_given(self):
        if not BUILT_WITH_ORT:
            self.skipTest("this build has no ONNX Runtime (meson found none)")
        run = cli("run", data("paddle_style.onnx"))
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn("input 'image' looks like an image whose height and width are not fixed: give them "
                      "(Run Settings, or --dim image:2=HEIGHT --dim image:3=WIDTH)", run.stderr)
        run = cli("run", data("paddle_style.onnx"), "--dim", "image:2=32", "--dim", "image:3=32", "--json")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(json.loads(run.stdout)["inputs"][0]["shape"][2:], [32, 32])


class CompareNoise(unittest.TestCase):
    """Two equivalent computations differ by float noise in their intermediate tensors
    (a MatMul's weights moved by 2e-7 of themselves, as a conversion moves them): no
    divergence and exit 0, as long as the outputs agree; --strict judges element by
    element; a wrong weight is still found where it is."""

    def setUp(self):
        if not BUILT_WITH_ORT:
            self.skipTest("this build has no ONNX Runtime (meson found none)")
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        rng = np.random.default_rng(3)
        weights = (rng.standard_normal((512, 512)) * 10).astype(np.float32)
        np.savez(os.path.join(self.tmp, "x.npz"), x=rng.standard_normal((1, 512)).astype(np.float32))
        noisy = (weights * (1 + rng.uniform(-2e-7, 2e-7, weights.shape))).astype(np.float32)
        wrong = weights.copy()
        wrong[:, 7] += 5
        for name, w in (("a", weights), ("noisy", noisy), ("wrong", wrong)):
            nodes = [helper.make_node("MatMul", ["x", "W"], ["y"], name="matmul"),
                     helper.make_node("Sign", ["y"], ["out"], name="sign")]
            graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 512])],
                                      [helper.make_tensor_value_info("out", onnx.TensorProto.FLOAT, [1, 512])],
                                      [numpy_helper.from_array(w, "W")])
            onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
                      os.path.join(self.tmp, name + ".onnx"))

    def compare(self, other, *options):
        return cli("run", os.path.join(self.tmp, "a.onnx"), "--inputs", os.path.join(self.tmp, "x.npz"),
                   "--compare", os.path.join(self.tmp, other + ".onnx"), *options)

    def test_float_noise_is_no_divergence(self):
        run = self.compare("noisy")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertRegex(run.stdout, r"no divergence beyond float noise: 1 tensor differs element by element, by "
                                     r"at most [0-9.e-]+ of its largest value \(--scale-rtol 0.0001; --strict")
        self.assertNotIn("first divergence", run.stdout)
        run = self.compare("noisy", "--strict")
        self.assertEqual(run.returncode, 1, run.stdout)
        self.assertIn("first divergence: node matmul, output y", run.stdout)

    def test_a_wrong_weight_is_found(self):
        run = self.compare("wrong")
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn("first divergence: node matmul, output y", run.stdout)


class NonFinite(unittest.TestCase):
    """A run that makes NaN or Inf says so, naming the node that made them first, and
    fails unless --allow-nonfinite."""

    def setUp(self):
        if not BUILT_WITH_ORT:
            self.skipTest("this build has no ONNX Runtime (meson found none)")
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        nodes = [helper.make_node("Sub", ["x", "two"], ["shifted"], name="minus"),
                 helper.make_node("Log", ["shifted"], ["logged"], name="log"),
                 helper.make_node("Relu", ["logged"], ["y"], name="relu")]
        graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 4])],
                                  [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 4])],
                                  [numpy_helper.from_array(np.array(2, dtype=np.float32), "two")])
        self.model = os.path.join(self.tmp, "nan.onnx")
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), self.model)

    def test_named_with_its_first_node(self):
        run = cli("run", self.model, "--random", "1", "--all")
        self.assertEqual(run.returncode, 1, run.stderr)
        self.assertIn("onyx-cli run: NaN first made by node log (Log), in logged: 8 NaN, 0 Inf of 8 values "
                      "(--allow-nonfinite lets a run make them)", run.stderr)
        run = cli("run", self.model, "--random", "1", "--all", "--allow-nonfinite", "--json")
        self.assertEqual(run.returncode, 0, run.stderr)
        first = json.loads(run.stdout)["first_nonfinite"]
        self.assertEqual((first["tensor"], first["node"], first["nan"]), ("logged", "log", 8))
        self.assertIn("NaN first made by node log", run.stderr)

    def test_without_every_tensor_the_node_is_named_too(self):
        # The outputs alone say only where NaN ended up: the model runs again capturing
        # every tensor to name the node, and prints the outputs as asked.
        run = cli("run", self.model, "--random", "1", "--json")
        self.assertEqual(run.returncode, 1, run.stderr)
        self.assertIn("onyx-cli run: NaN first made by node log (Log), in logged: 8 NaN, 0 Inf of 8 values "
                      "(--allow-nonfinite lets a run make them)", run.stderr)
        report = json.loads(run.stdout)
        self.assertEqual([t["name"] for t in report["tensors"]], ["y"])
        first = report["first_nonfinite"]
        self.assertEqual((first["tensor"], first["node"], first["node_index"]), ("logged", "log", 1))

    def save_model(self, nodes, name):
        graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["N", "M"])],
                                  [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["N", "M"])])
        path = os.path.join(self.tmp, name)
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), path)
        return path

    def test_the_first_node_in_the_graphs_order_is_named(self):
        # 0 / 0 makes NaN, and later a Log of negatives does too: the Div is named.
        path = self.save_model([helper.make_node("Sub", ["x", "x"], ["zero"], name="the_sub"),
                                helper.make_node("Div", ["zero", "zero"], ["q"], name="the_div"),
                                helper.make_node("Neg", ["x"], ["negx"], name="neg"),
                                helper.make_node("Log", ["negx"], ["logged"], name="the_log"),
                                helper.make_node("Add", ["q", "logged"], ["y"], name="add")], "div.onnx")
        for options in ((), ("--all",)):
            run = cli("run", path, "--dim", "N=2", "--dim", "M=4", *options)
            self.assertEqual(run.returncode, 1, run.stderr)
            self.assertEqual(run.stderr, "onyx-cli run: NaN first made by node the_div (Div), in q: 8 NaN, 0 Inf of 8 "
                                         "values (--allow-nonfinite lets a run make them)\n")
        # Inf, by a node without a name (x in [1, 2) over zeros), in one value.
        path = self.save_model([helper.make_node("Sub", ["x", "x"], ["zero"], name="the_sub"),
                                helper.make_node("Div", ["x", "zero"], ["y"])], "inf.onnx")
        run = cli("run", path, "--range", "1,2")
        self.assertEqual(run.returncode, 1, run.stderr)
        self.assertIn("onyx-cli run: Inf first made by an unnamed Div node, in y: 0 NaN, 1 Inf of 1 value (", run.stderr)

    def test_finite_runs_say_nothing(self):
        run = cli("run", data("model.onnx"), "--random", "1", "--json")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIsNone(json.loads(run.stdout)["first_nonfinite"])
        self.assertEqual(run.stderr, "")


if __name__ == "__main__":
    unittest.main()
