#!/usr/bin/python3
"""onyx-cli edit --extract, against onnx.utils.extract_model on the same cut.

For each model and cut: the same nodes (op types and names, in order), inputs and
outputs (names and types) and initializers as onnx's extractor gives; the result passes
onnx.checker (full check); and in onnxruntime it computes what the original model
computes for those tensors (the original is run with the cut's tensors exposed as
outputs, and its values of the cut's inputs are fed to both extracted models).

onnx's extractor runs shape inference first and types the new inputs and outputs from
it; onyx takes recorded value_info, else the same inference (libonnx). The sources
are given their inferred value_info first, as exporters often record it, except where
noted."""
import os
import tempfile
import unittest

import numpy as np
import onnx
import onnx.utils

from onyx_test import cli, data, run_onnxruntime_feeds as run_onnxruntime, testdata, testdata_feeds

def with_exposed(model, names):
    """`model` with `names` as extra graph outputs (typed by shape inference)."""
    inferred = onnx.shape_inference.infer_shapes(model)
    known = {vi.name: vi for vi in list(inferred.graph.value_info) + list(inferred.graph.input)}
    exposed = onnx.ModelProto()
    exposed.CopyFrom(model)
    present = {o.name for o in exposed.graph.output}
    for name in names:
        if name not in present:
            exposed.graph.output.append(known[name])
    return exposed


def inferred_copy(path, tmp):
    """`path` with the value_info onnx's shape inference finds, saved in `tmp`."""
    inferred = os.path.join(tmp, "inferred-" + os.path.basename(path))
    onnx.save(onnx.shape_inference.infer_shapes(onnx.load(path)), inferred)
    return inferred


def passes_checker(model):
    try:
        onnx.checker.check_model(model, full_check=True)
        return True
    except onnx.checker.ValidationError:
        return False


def tensor_type(value_info):
    t = value_info.type.tensor_type
    return t.elem_type, [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]


class Extract(unittest.TestCase):
    def check_cut(self, path, inputs, outputs, feeds, min_nodes=1, infer_first=True):
        with tempfile.TemporaryDirectory() as tmp:
            if infer_first:
                path = inferred_copy(path, tmp)
            ours_path = os.path.join(tmp, "ours.onnx")
            run = cli("edit", path, "-o", ours_path, "--extract", ",".join(inputs) + ":" + ",".join(outputs))
            self.assertEqual(run.returncode, 0, run.stderr)
            original = onnx.load(path)
            ours = onnx.load(ours_path)
            theirs = onnx.utils.Extractor(original).extract_model(inputs, outputs)
            theirs_path = os.path.join(tmp, "theirs.onnx")
            onnx.save(theirs, theirs_path)

            self.assertGreaterEqual(len(ours.graph.node), min_nodes)
            self.assertEqual(run.stdout.strip(), f"extracted {len(ours.graph.node)} of {len(original.graph.node)} nodes")
            self.assertEqual([(n.op_type, n.name) for n in ours.graph.node],
                             [(n.op_type, n.name) for n in theirs.graph.node])
            for ours_list, theirs_list in ((ours.graph.input, theirs.graph.input),
                                           (ours.graph.output, theirs.graph.output)):
                self.assertEqual([v.name for v in ours_list], [v.name for v in theirs_list])
                for a, b in zip(ours_list, theirs_list):
                    (a_elem, a_dims), (b_elem, b_dims) = tensor_type(a), tensor_type(b)
                    self.assertEqual(a_elem, b_elem, a.name)
                    if a_dims and b_dims:
                        self.assertEqual(len(a_dims), len(b_dims), a.name)
                        for x, y in zip(a_dims, b_dims):
                            self.assertTrue(x is None or y is None or x == y, (a.name, a_dims, b_dims))
            self.assertEqual([i.name for i in ours.graph.initializer], [i.name for i in theirs.graph.initializer])
            self.assertEqual(ours.opset_import, original.opset_import)
            self.assertEqual(ours.ir_version, original.ir_version)
            self.assertEqual(ours.producer_name, original.producer_name)
            if passes_checker(theirs):  # the transformer's untyped activations fail onnx's too
                onnx.checker.check_model(ours, full_check=True)

            exposed_path = os.path.join(tmp, "exposed.onnx")
            onnx.save(with_exposed(original, inputs + outputs), exposed_path)
            truth = run_onnxruntime(exposed_path, feeds, tmp)
            cut_feeds = {name: truth[name] for name in inputs}
            ours_values = run_onnxruntime(ours_path, cut_feeds, tmp)
            theirs_values = run_onnxruntime(theirs_path, cut_feeds, tmp)
            for name in outputs:
                np.testing.assert_allclose(ours_values[name], truth[name], rtol=1e-5, atol=1e-6, err_msg=name)
                np.testing.assert_array_equal(ours_values[name], theirs_values[name], err_msg=name)

    def test_flat_convnet_middle(self):
        feeds = {"image": np.random.default_rng(0).standard_normal((2, 3, 32, 32), dtype=np.float32)}
        # No value_info: onyx's own inference types the cut (Relu keeps Conv's shape).
        self.check_cut(data("flat_constants.onnx"), ["p2o.Relu.0.out"], ["p2o.Relu.2.out"], feeds, min_nodes=10,
                       infer_first=False)

    def test_flat_convnet_two_outputs(self):
        feeds = {"image": np.random.default_rng(1).standard_normal((1, 3, 32, 32), dtype=np.float32)}
        self.check_cut(data("flat_constants.onnx"), ["p2o.Conv.1.out"],
                       ["p2o.Flatten.0.out", "p2o.BatchNormalization.1.out"], feeds, min_nodes=10)

    def test_layer_normalization(self):
        name = "test_layer_normalization_4d_axis1_expanded"
        p = "LayerNormalization_test_layer_normalization_4d_axis1_expanded_function_"
        self.check_cut(testdata(name), [p + "XU"], [p + "Normalized", p + "InvStdDev2D"],
                       testdata_feeds(name), min_nodes=10)

    def test_nllloss_several_inputs_of_several_types(self):
        name = "test_nllloss_NCd1_weight_ii_expanded"
        p = "NegativeLogLikelihoodLoss_test_nllloss_NCd1_weight_ii_expanded_function_"
        self.check_cut(testdata(name), ["input", p + "transform_targets", p + "mask", "weight"], ["loss"],
                       testdata_feeds(name), min_nodes=10)

    def test_hann_window(self):
        name = "test_hannwindow_expanded"
        p = "HannWindow_test_hannwindow_expanded_function_"
        self.check_cut(testdata(name), [p + "Periodic_Size_FP"], ["y"], testdata_feeds(name), min_nodes=15)

    def test_if_keeps_its_branches_and_their_outer_reads(self):
        model = onnx.load(data("control_if.onnx"))
        feeds = {"x": np.random.default_rng(2).standard_normal(
            [d.dim_value or 1 for d in model.graph.input[0].type.tensor_type.shape.dim], dtype=np.float32)}
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "if.onnx")
            source = inferred_copy(data("control_if.onnx"), tmp)
            run = cli("edit", source, "-o", out, "--extract", "/Cast_output_0,x:y")
            self.assertEqual(run.returncode, 0, run.stderr)
            cut = onnx.load(out)
            onnx.checker.check_model(cut, full_check=True)
            self.assertEqual([n.op_type for n in cut.graph.node], ["If"])
            self.assertEqual([i.name for i in cut.graph.initializer], [i.name for i in model.graph.initializer])
            original_path = os.path.join(tmp, "exposed.onnx")
            onnx.save(with_exposed(model, ["/Cast_output_0"]), original_path)
            truth = run_onnxruntime(original_path, feeds, tmp)
            values = run_onnxruntime(out, {"/Cast_output_0": truth["/Cast_output_0"], "x": feeds["x"]}, tmp)
            np.testing.assert_allclose(values["y"], truth["y"], rtol=1e-5, atol=1e-6)

            # Without x, the branches' read of it cannot be satisfied.
            run = cli("edit", source, "-o", out + "2", "--extract", "/Cast_output_0:y")
            self.assertNotEqual(run.returncode, 0)
            self.assertIn("'x'", run.stderr)

    def test_functions_the_kept_nodes_call_come_along(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "f.onnx")
            run = cli("edit", data("local_function.onnx"), "-o", out, "--extract", "x:y")
            self.assertEqual(run.returncode, 0, run.stderr)
            cut = onnx.load(out)
            onnx.checker.check_model(cut, full_check=True)
            self.assertEqual([f.name for f in cut.functions], ["ReluNeg"])

    def test_extract_after_other_steps_and_steps_after_it(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out.onnx")
            run = cli("edit", data("flat_constants.onnx"), "-o", out, "--rename", "p2o.Relu.1.out=mid",
                      "--extract", "mid:scores", "--set-name", "p2o.Softmax.0=last")
            self.assertEqual(run.returncode, 0, run.stderr)
            cut = onnx.load(out)
            self.assertEqual([i.name for i in cut.graph.input], ["mid"])
            self.assertEqual(cut.graph.node[-1].name, "last")
            onnx.checker.check_model(cut, full_check=True)

    def test_errors_write_nothing(self):
        name = "test_nllloss_NCd1_weight_ii_expanded"
        p = "NegativeLogLikelihoodLoss_test_nllloss_NCd1_weight_ii_expanded_function_"
        cases = [
            (data("flat_constants.onnx"), "p2o.Relu.0.out:no_such_tensor", "'no_such_tensor' is not a tensor"),
            (data("flat_constants.onnx"), "nope:scores", "'nope' is not a tensor"),
            (testdata(name), p + "transform_targets:loss",
             "'loss' cannot be computed from the given inputs: it needs 'target', a graph input that is not listed"),
            (data("flat_constants.onnx"), "p2o.Relu.0.out", "INPUTS:OUTPUTS"),
            (data("flat_constants.onnx"), "p2o.Relu.0.out:", "no output"),
        ]
        for path, argument, message in cases:
            with self.subTest(argument=argument), tempfile.TemporaryDirectory() as tmp:
                out = os.path.join(tmp, "out.onnx")
                run = cli("edit", path, "-o", out, "--extract", argument)
                self.assertNotEqual(run.returncode, 0)
                self.assertIn(message, run.stderr)
                self.assertEqual(len(run.stderr.strip().splitlines()), 1, run.stderr)
                self.assertEqual(os.listdir(tmp), [])

    def test_names_with_colons(self):
        with tempfile.TemporaryDirectory() as tmp:
            renamed = os.path.join(tmp, "renamed.onnx")
            out = os.path.join(tmp, "out.onnx")
            self.assertEqual(cli("edit", data("flat_constants.onnx"), "-o", renamed,
                                 "--rename", "p2o.Relu.0.out=relu:0", "--rename", "p2o.Relu.1.out=relu:1").returncode, 0)
            run = cli("edit", renamed, "-o", out, "--extract", "relu:0:relu:1")
            self.assertEqual(run.returncode, 0, run.stderr)
            cut = onnx.load(out)
            self.assertEqual(([i.name for i in cut.graph.input], [o.name for o in cut.graph.output]),
                             (["relu:0"], ["relu:1"]))

    @unittest.skipUnless(os.path.exists("/tmp/onyx-bench/transformer_4.onnx"),
                         "transformer_4.onnx is made by bench/bench-layout.py (needs python3-torch)")
    def test_transformer_layer(self):
        path = "/tmp/onyx-bench/transformer_4.onnx"
        model = onnx.load(path)
        produced = {o: n for n in model.graph.node for o in n.output}
        # The tensor layer 1 reads from layer 0, and the last tensor layer 1 writes.
        start = next(i for n in model.graph.node if n.name.startswith("/layers.1/") for i in n.input
                     if i in produced and produced[i].name.startswith("/layers.0/"))
        end = [n for n in model.graph.node if n.name.startswith("/layers.1/")][-1].output[0]
        dims = [d.dim_value or 3 for d in model.graph.input[0].type.tensor_type.shape.dim]
        feeds = {model.graph.input[0].name: np.random.default_rng(3).integers(0, 10, dims).astype(
            onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[model.graph.input[0].type.tensor_type.elem_type])}
        self.check_cut(path, [start], [end], feeds, min_nodes=20)


if __name__ == "__main__":
    unittest.main()
