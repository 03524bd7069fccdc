#!/usr/bin/python3
"""ONNX's own library in Onyx: shape inference, the full checker, opset conversion.

Shapes written by `onyx-cli edit --infer-shapes` must equal what python3-onnx's
onnx.shape_inference.infer_shapes gives, on every tensor of every graph; `check
--full` must reject what onnx.checker.check_model(full_check=True) rejects; models
converted with `--convert-opset` must compute in onnxruntime what the originals
compute (or what the corpus's test data says they should)."""
import glob
import os
import tempfile
import unittest

import numpy as np
import onnx
import onnx.shape_inference
import onnx.version_converter
from onnx import TensorProto, helper, numpy_helper

from onyx_test import TESTDATA, cli, data, library, run_onnxruntime_feeds, testdata, testdata_feeds


def types_by_tensor(graph, out, path="main"):
    """{(graph path, tensor name): serialized TypeProto} over a graph and its subgraphs."""
    for info in list(graph.input) + list(graph.value_info) + list(graph.output):
        if info.type.WhichOneof("value") is not None:
            out[(path, info.name)] = info.type.SerializeToString()
    for n, node in enumerate(graph.node):
        for attribute in node.attribute:
            if attribute.HasField("g"):
                types_by_tensor(attribute.g, out, f"{path}/{n}:{attribute.name}")
            for k, body in enumerate(attribute.graphs):
                types_by_tensor(body, out, f"{path}/{n}:{attribute.name}[{k}]")
    return out


def corpus_models():
    return sorted(glob.glob(os.path.join(TESTDATA, "*", "model.onnx")))


def default_opset(model):
    return next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))


class Shapes(unittest.TestCase):
    def setUp(self):
        # Against another ONNX release (-Donnx_prefix) the inference itself differs.
        if library()[0] != onnx.__version__:
            self.skipTest("onyx-cli links ONNX %s, python3-onnx is %s" % (library()[0], onnx.__version__))

    def assert_same_as_python(self, path, tmp):
        """The number of tensors compared, or None when python's inference refuses."""
        try:
            expected = types_by_tensor(onnx.shape_inference.infer_shapes(onnx.load(path)).graph, {})
        except Exception:
            return None
        out = os.path.join(tmp, "inferred.onnx")
        run = cli("edit", path, "-o", out, "--force", "--infer-shapes")
        self.assertEqual(run.returncode, 0, (path, run.stderr))
        ours = types_by_tensor(onnx.load(out).graph, {})
        self.assertEqual(sorted(ours), sorted(expected), path)
        for key, value in expected.items():
            self.assertEqual(onnx.TypeProto.FromString(ours[key]), onnx.TypeProto.FromString(value),
                             (path, key))
        return len(expected)

    def test_equal_to_onnx_on_the_corpus_and_the_test_models(self):
        paths = corpus_models()[::3] + sorted(glob.glob(data("*.onnx")))
        compared = models = 0
        with tempfile.TemporaryDirectory() as tmp:
            for path in paths:
                n = self.assert_same_as_python(path, tmp)
                if n is not None:
                    compared += n
                    models += 1
        # The corpus has ~1,070 models; a third of them, with thousands of tensors.
        self.assertGreater(models, 300)
        self.assertGreater(compared, 1500)

    def test_subgraph_bodies_are_typed(self):
        with tempfile.TemporaryDirectory() as tmp:
            for name in ("control_if.onnx", "control_loop.onnx"):
                self.assertGreater(self.assert_same_as_python(data(name), tmp), 5, name)

    def test_nodes_json_carries_types(self):
        import json

        run = cli("nodes", "--json", data("model.onnx"))
        self.assertEqual(run.returncode, 0, run.stderr)
        conv = json.loads(run.stdout)[0]
        self.assertEqual(conv["input_types"][0], {"type": "float32[N×3×128×128]", "inferred": False})
        self.assertEqual(conv["output_types"], [{"type": "float32[N×16×63×63]", "inferred": True}])


def broadcast_model(shape_a, shape_b):
    a = helper.make_tensor_value_info("a", TensorProto.FLOAT, shape_a)
    b = helper.make_tensor_value_info("b", TensorProto.FLOAT, shape_b)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, shape_a)
    graph = helper.make_graph([helper.make_node("Add", ["a", "b"], ["y"], name="add")], "g", [a, b], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


class Check(unittest.TestCase):
    def check(self, model, *flags):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "m.onnx")
            onnx.save(model, path)
            return cli("check", *flags, path)

    def test_incompatible_broadcast_is_an_error_on_its_node(self):
        model = broadcast_model([2, 3], [4, 5])
        with self.assertRaises(Exception):
            onnx.checker.check_model(model, full_check=True)
        for flags in ((), ("--full",)):
            run = self.check(model, *flags)
            self.assertEqual(run.returncode, 1, run.stdout)
            self.assertIn("m.onnx: error: main graph: add: shape inference: Incompatible dimensions",
                          run.stdout)

    def test_compatible_broadcast_passes(self):
        model = broadcast_model([2, 3], [1, 3])
        onnx.checker.check_model(model, full_check=True)
        run = self.check(model, "--full")
        self.assertEqual(run.returncode, 0, run.stdout)
        self.assertIn("no problems found", run.stdout)

    def test_full_check_runs_the_checker(self):
        # A graph output without a type: onnx.checker's own finding.
        model = broadcast_model([2, 3], [1, 3])
        model.graph.output[0].ClearField("type")
        with self.assertRaises(onnx.checker.ValidationError):
            onnx.checker.check_model(model)
        self.assertNotIn("onnx.checker", self.check(model).stdout)
        run = self.check(model, "--full")
        self.assertEqual(run.returncode, 1, run.stdout)
        self.assertIn("error: model: onnx.checker: Field 'type' of 'output' is required but missing",
                      run.stdout.replace("value_info", "output"))

    def test_strict_inference_checks_types(self):
        # Add of float and int64: only the strict (full-check) inference says so.
        model = broadcast_model([2, 3], [2, 3])
        model.graph.input[1].type.tensor_type.elem_type = TensorProto.INT64
        with self.assertRaises(Exception):
            onnx.checker.check_model(model, full_check=True)
        run = self.check(model, "--full", "--json")
        self.assertEqual(run.returncode, 1, run.stdout)


def softmax_model(opset, op, axis, shape):
    """x → op(axis) → y at `opset`, with dynamic dims where `shape` has names."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)
    if shape is None:  # the element type only
        x.type.tensor_type.ClearField("shape")
        y.type.tensor_type.ClearField("shape")
    relu = helper.make_node("Relu", ["x"], ["r"], name="relu")
    node = helper.make_node(op, ["r"], ["y"], name="op", axis=axis)
    graph = helper.make_graph([relu, node], "g", [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=7)


class Convert(unittest.TestCase):
    def convert(self, path, target, tmp, full_check=True):
        out = os.path.join(tmp, f"converted-{target}.onnx")
        run = cli("edit", path, "-o", out, "--convert-opset", str(target))
        self.assertEqual(run.returncode, 0, (path, run.stdout, run.stderr))
        self.assertRegex(run.stdout, rf"^converted ai\.onnx from opset \d+ to {target}\b")
        converted = onnx.load(out)
        self.assertEqual(default_opset(converted), target)
        if full_check:
            onnx.checker.check_model(converted, full_check=True)
        return out

    def test_softmax_with_dynamic_dims_crosses_opset_13(self):
        rng = np.random.default_rng(7)
        checked = 0
        for op in ("Softmax", "LogSoftmax", "Hardmax"):
            for axis in (0, 1, -2, 2):
                for dims in (None, ["N", "C", "L"]):
                    with self.subTest(op=op, axis=axis, dims=dims), tempfile.TemporaryDirectory() as tmp:
                        model = softmax_model(9, op, axis, dims)
                        path = os.path.join(tmp, "m.onnx")
                        onnx.save(model, path)
                        if dims is None and op != "Hardmax":
                            # What onnx's own converter does without a shape: refuses (and
                            # takes Hardmax as unchanged, which it is not off the last axis).
                            with self.assertRaises(Exception):
                                onnx.version_converter.convert_version(model, 13)
                        # The checker wants shapes on graph inputs and outputs.
                        out = self.convert(path, 13, tmp, full_check=dims is not None)
                        for shape in ((2, 3, 4), (1, 5, 2)):
                            feeds = {"x": rng.standard_normal(shape).astype(np.float32)}
                            want = run_onnxruntime_feeds(path, feeds, tmp)["y"]
                            got = run_onnxruntime_feeds(out, feeds, tmp)["y"]
                            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
                            checked += 1
        self.assertEqual(checked, 48)

    def test_corpus_models_compute_their_outputs_after_conversion(self):
        names = ["test_softmax_axis_0", "test_logsoftmax_axis_1", "test_hardmax_axis_0", "test_elu",
                 "test_selu_example", "test_instancenorm_epsilon", "test_tan", "test_and3d",
                 "test_asinh", "test_shrink_soft", "test_thresholdedrelu_default",
                 "test_unsqueeze_axis_3", "test_maxpool_2d_same_lower", "test_maxpool_2d_dilations",
                 "test_reduce_sum_keepdims_example", "test_slice", "test_split_equal_parts_1d"]
        checked = 0
        with tempfile.TemporaryDirectory() as tmp:
            for name in names:
                path = testdata(name)
                if not os.path.exists(path):
                    continue
                source = default_opset(onnx.load(path))
                for target in sorted({13, 15, max(source, 13)} - {source}):
                    with self.subTest(name=name, target=target):
                        out = self.convert(path, target, tmp)
                        model = onnx.load(path)
                        expected = []
                        for n in range(len(model.graph.output)):
                            tensor = onnx.TensorProto()
                            with open(os.path.join(TESTDATA, name, "test_data_set_0", f"output_{n}.pb"),
                                      "rb") as f:
                                tensor.ParseFromString(f.read())
                            expected.append(numpy_helper.to_array(tensor))
                        got = run_onnxruntime_feeds(out, testdata_feeds(name), tmp)
                        for n, output in enumerate(model.graph.output):
                            np.testing.assert_allclose(got[output.name], expected[n], rtol=1e-4, atol=1e-5)
                        checked += 1
        self.assertGreaterEqual(checked, 20)

    def test_round_trip_keeps_the_walkthrough_model_computing(self):
        rng = np.random.default_rng(3)
        feeds = {"input": rng.standard_normal((2, 3, 128, 128)).astype(np.float32)}
        with tempfile.TemporaryDirectory() as tmp:
            source = data("model.onnx")
            want = run_onnxruntime_feeds(source, feeds, tmp)
            for target in (15, 17):
                out = self.convert(source, target, tmp)
                got = run_onnxruntime_feeds(out, feeds, tmp)
                for name, value in want.items():
                    np.testing.assert_allclose(got[name], value, rtol=1e-5, atol=1e-5)

    def test_refusals(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "x.onnx")
            for argument, message in (("99", "opset 99 is not an opset of ai.onnx"),
                                      ("abc", "convert-opset"),
                                      (str(default_opset(onnx.load(data("model.onnx")))), "already")):
                run = cli("edit", data("model.onnx"), "-o", out, "--convert-opset", argument)
                self.assertNotEqual(run.returncode, 0)
                self.assertIn(message, run.stderr)
                self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
