#!/usr/bin/python3
"""onyx-cli edit and nodes, checked with python3-onnx and run with onnxruntime.

The walkthrough's repair: bypass devtech::FooOp and clean up; the result passes
onnx.checker and onnxruntime computes the same output as torch did for the original
model (model_foo.npz), while the original fails in onnxruntime (FooOp is unknown)."""
import json
import os
import tempfile
import unittest

import numpy as np
import onnx

from onyx_test import cli, data
import onyx_test


def run_onnxruntime(model, inputs, tmp):
    """(returncode, output array or None, stderr) of model on inputs["input"]."""
    return onyx_test.run_onnxruntime(model, "input", inputs["input"], tmp)


class Walkthrough(unittest.TestCase):
    def test_foo_op_removal_runs_in_onnxruntime(self):
        expected = np.load(data("model_foo.npz"))
        with tempfile.TemporaryDirectory() as tmp:
            removed = os.path.join(tmp, "removed.onnx")
            run = cli("edit", data("model_foo.onnx"), "-o", removed, "--bypass-op", "devtech::FooOp", "--cleanup")
            self.assertEqual(run.returncode, 0, run.stderr)
            # Each step says what it did.
            self.assertEqual(run.stdout.splitlines(), ["bypassed /FooOp: /model/model.2/Relu_output_0 now feeds output",
                                                       "removed the opset import devtech"])

            model = onnx.load(removed)
            onnx.checker.check_model(model)
            self.assertEqual([n.op_type for n in model.graph.node], ["Conv", "Relu"])
            self.assertEqual([(o.domain, o.version) for o in model.opset_import], [("", 13)])
            self.assertEqual([o.name for o in model.graph.output], ["output"])
            original = onnx.load(data("model_foo.onnx"))
            self.assertEqual(model.graph.input, original.graph.input)
            self.assertEqual(model.producer_name, original.producer_name)

            code, output, _ = run_onnxruntime(removed, expected, tmp)
            self.assertEqual(code, 0)
            self.assertLess(float(np.abs(output - expected["output"]).max()), 1e-5)

            code, _, stderr = run_onnxruntime(data("model_foo.onnx"), expected, tmp)
            self.assertNotEqual(code, 0)
            self.assertIn("FooOp", stderr)

    def test_bypass_by_name_equals_bypass_op(self):
        with tempfile.TemporaryDirectory() as tmp:
            a, b = os.path.join(tmp, "a.onnx"), os.path.join(tmp, "b.onnx")
            self.assertEqual(cli("edit", data("model_foo.onnx"), "-o", a, "--bypass-op=devtech::FooOp").returncode, 0)
            self.assertEqual(cli("edit", data("model_foo.onnx"), "-o", b, "--bypass", "/FooOp").returncode, 0)
            self.assertEqual(onnx.load(a), onnx.load(b))


class Steps(unittest.TestCase):
    def edit(self, *steps, source="model.onnx"):
        tmp = tempfile.mkdtemp()
        self.addCleanup(lambda: __import__("shutil").rmtree(tmp))
        out = os.path.join(tmp, "out.onnx")
        run = cli("edit", data(source), "-o", out, *steps)
        self.assertEqual(run.returncode, 0, run.stderr)
        model = onnx.load(out)
        onnx.checker.check_model(model)
        return model, run

    def test_reconnect_add_output_cleanup(self):
        original = onnx.load(data("model.onnx"))
        relu0 = original.graph.node[1]
        last = original.graph.node[-1]
        # The last Relu reads the first Relu's output: the second Conv becomes dead.
        model, _ = self.edit("--reconnect", "%s:0=%s" % (last.name, relu0.output[0]), "--cleanup")
        self.assertEqual([n.op_type for n in model.graph.node], ["Conv", "Relu", "Relu"])
        self.assertEqual(len(model.graph.initializer), 2)
        model, _ = self.edit("--add-output", relu0.output[0])
        self.assertEqual([o.name for o in model.graph.output], ["output", relu0.output[0]])

    def test_added_outputs_typed_as_onnx_infers(self):
        """New graph outputs get the element types onnx's own shape inference gives,
        from the operator schemas (Shape, TopK's indices, Equal, Add of int32)."""
        from onnx import TensorProto, helper
        graph = helper.make_graph(
            [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("TopK", ["x", "k"], ["values", "indices"]),
             helper.make_node("Equal", ["x", "x"], ["eq"]),
             helper.make_node("Cast", ["x"], ["c"], to=TensorProto.INT32),
             helper.make_node("Add", ["c", "c"], ["sum"]),
             helper.make_node("Mul", ["x", "w"], ["scaled"]),
             helper.make_node("Where", ["eq", "one", "scaled"], ["picked"]),
             helper.make_node("Relu", ["x"], ["y"])],
            "typed", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])],
            [helper.make_tensor("k", TensorProto.INT64, [1], [2]),
             helper.make_tensor("w", TensorProto.FLOAT, [3], [1, 2, 3]),
             helper.make_tensor("one", TensorProto.FLOAT, [1, 1, 1], [1])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        inferred = {v.name: v.type.tensor_type
                    for v in onnx.shape_inference.infer_shapes(model).graph.value_info}
        names = ["s", "values", "indices", "eq", "c", "sum", "scaled", "picked"]
        with tempfile.TemporaryDirectory() as tmp:
            source, out = os.path.join(tmp, "typed.onnx"), os.path.join(tmp, "out.onnx")
            onnx.save(model, source)
            steps = [arg for name in names for arg in ("--add-output", name)]
            run = cli("edit", source, "-o", out, *steps)
            self.assertEqual(run.returncode, 0, run.stderr)
            edited = onnx.load(out)
        onnx.checker.check_model(edited, full_check=True)
        outputs = {o.name: o.type.tensor_type for o in edited.graph.output}
        self.assertEqual({name: outputs[name].elem_type for name in names},
                         {name: inferred[name].elem_type for name in names})
        self.assertEqual(outputs["indices"].elem_type, TensorProto.INT64)
        self.assertEqual(outputs["sum"].elem_type, TensorProto.INT32)

        def dims(tensor_type):
            return [d.dim_value if d.HasField("dim_value") else d.dim_param or "?"
                    for d in tensor_type.shape.dim]
        # Where onnx infers a dim, Onyx gives the same or leaves it unknown.
        for name in names:
            ours, theirs = dims(outputs[name]), dims(inferred[name])
            self.assertEqual(len(ours), len(theirs), name)
            for a, b in zip(ours, theirs):
                self.assertIn(a, (b, "?"), (name, ours, theirs))
        self.assertEqual(dims(outputs["s"]), [2])
        self.assertEqual(dims(outputs["sum"]), ["N", 3])
        self.assertEqual(dims(outputs["picked"]), [1, "N", 3])

    def test_rename_set_attr_set_dim_set_name(self):
        model, run = self.edit("--rename", "input=image", "--set-dim", "image:0=1", "--set-dim", "image:2=H",
                               "--set-attr", "#0.strides=[1,1]", "--set-name", "#0=first_conv")
        self.assertEqual(model.graph.input[0].name, "image")
        self.assertEqual(model.graph.node[0].input[0], "image")
        dims = model.graph.input[0].type.tensor_type.shape.dim
        self.assertEqual([d.dim_value or d.dim_param for d in dims], [1, 3, "H", 128])
        strides = [a for a in model.graph.node[0].attribute if a.name == "strides"][0]
        self.assertEqual(list(strides.ints), [1, 1])
        self.assertEqual(model.graph.node[0].name, "first_conv")
        self.assertEqual(run.stdout.splitlines(), ["renamed input to image", "dim 0 of image is now 1 (was N)",
                                                   "dim 2 of image is now H (was 128)",
                                                   "/model/model.0/Conv.strides = [1, 1] (was [2, 2])",
                                                   "renamed node /model/model.0/Conv to first_conv"])

    def test_delete_tree_and_toposort(self):
        original = onnx.load(data("model.onnx"))
        # Deleting the second Conv and what follows leaves no output: refused, nothing written.
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out.onnx")
            run = cli("edit", data("model.onnx"), "-o", out, "--delete", original.graph.node[2].name)
            self.assertEqual(run.returncode, 1)
            self.assertIn("is not produced by any node", run.stderr)
            self.assertIn("nothing was written", run.stderr)
            self.assertFalse(os.path.exists(out))
            run = cli("edit", data("model.onnx"), "-o", out, "--force", "--delete", original.graph.node[2].name)
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertEqual(len(onnx.load(out).graph.node), 3)
        model, _ = self.edit("--toposort")
        self.assertEqual(model.graph.node, original.graph.node)

    def test_edit_in_place(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "model.onnx")
            with open(data("model_foo.onnx"), "rb") as src, open(path, "wb") as dst:
                dst.write(src.read())
            run = cli("edit", path, "-o", path, "--bypass-op", "devtech::FooOp", "--cleanup")
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertEqual([n.op_type for n in onnx.load(path).graph.node], ["Conv", "Relu"])
            self.assertEqual(os.listdir(tmp), ["model.onnx"])


class BadSteps(unittest.TestCase):
    def assert_refused(self, *steps, message, code=1):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out.onnx")
            run = cli("edit", data("model_foo.onnx"), "-o", out, *steps)
            self.assertEqual(run.returncode, code, run.stderr)
            self.assertIn(message, run.stderr)
            self.assertFalse(os.path.exists(out))

    def test_refusals(self):
        self.assert_refused("--bypass", "nope", message="step 1 (--bypass nope): there is no node named 'nope'")
        self.assert_refused("--cleanup", "--bypass-op", "Softmax", message="step 2 (--bypass-op Softmax): no node has operator Softmax")
        self.assert_refused("--reconnect", "#1:0=ghost", message="there is no tensor 'ghost'")
        self.assert_refused("--reconnect", "#0:0=output", message="would make")
        self.assert_refused("--reconnect", "#0-0=x", message="is not of the form NODE:INDEX=TENSOR")
        self.assert_refused("--rename", "input=output", message="already in use")
        self.assert_refused("--set-dim", "input:9=1", message="has 4 dims")
        self.assert_refused("--set-attr", "#0.strides=wide", message="is not a valid INTS value")
        self.assert_refused("--frobnicate", message="unknown option --frobnicate", code=2)
        self.assert_refused("--cleanup=now", message="takes no argument", code=2)
        self.assert_refused("--bypass", message="needs NODE[:INPUT]", code=2)

    def test_usage(self):
        run = cli("edit", "--help")
        self.assertEqual(run.returncode, 0)
        self.assertIn("--bypass-op [DOMAIN::]OP", run.stdout)
        run = cli("edit", data("model_foo.onnx"), "--cleanup")
        self.assertEqual(run.returncode, 2)
        self.assertIn("expects IN -o OUT", run.stderr)


class Messages(unittest.TestCase):
    """Errors the model had before the edits are not blamed on them, and the message
    says what gets past them; the converter's failures are one sentence."""

    def save(self, model, name):
        tmp = tempfile.mkdtemp()
        self.addCleanup(lambda: __import__("shutil").rmtree(tmp))
        path = os.path.join(tmp, name)
        onnx.save(model, path)
        return path, os.path.join(tmp, "out.onnx")

    def unsorted(self):
        """model.onnx with its second and third nodes swapped: valid but out of order."""
        model = onnx.load(data("model.onnx"))
        nodes = list(model.graph.node)
        nodes[1], nodes[2] = nodes[2], nodes[1]
        del model.graph.node[:]
        model.graph.node.extend(nodes)
        with self.assertRaisesRegex(Exception, "topological"):
            onnx.checker.check_model(model)
        return model

    def test_nodes_out_of_order_name_toposort_and_force(self):
        path, out = self.save(self.unsorted(), "unsorted.onnx")
        run = cli("edit", path, "-o", out, "--set-name", "#0=first")
        self.assertEqual(run.returncode, 1, run.stderr)
        self.assertFalse(os.path.exists(out))
        self.assertIn("unsorted.onnx: nothing was written: the model had 1 error before the edits "
                      "(nodes are not in topological order: /model/model.3/Conv uses", run.stderr)
        self.assertIn("add --toposort as the first step to sort the nodes, or --force to save anyway",
                      run.stderr)
        self.assertNotIn("the edits made", run.stderr)
        # What the message says works.
        run = cli("edit", path, "-o", out, "--toposort", "--set-name", "#0=first")
        self.assertEqual(run.returncode, 0, run.stderr)
        onnx.checker.check_model(onnx.load(out))
        os.unlink(out)
        run = cli("edit", path, "-o", out, "--force", "--set-name", "#0=first")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(onnx.load(out).graph.node[0].name, "first")

    def test_step_refused_by_the_order_names_toposort(self):
        path, out = self.save(self.unsorted(), "unsorted.onnx")
        run = cli("edit", path, "-o", out, "--insert", "/model/model.2/Relu_output_0=Relu")
        self.assertEqual(run.returncode, 1, run.stderr)
        self.assertFalse(os.path.exists(out))
        self.assertIn("step 1 (--insert", run.stderr)
        self.assertIn("the model had 1 error before the edits (nodes are not in topological order", run.stderr)
        self.assertIn("add --toposort as the first step", run.stderr)
        # --force saves; it does not make a step apply.
        self.assertNotIn("--force", run.stderr)

    def test_infer_shapes_on_nodes_out_of_order_is_refused_at_its_step(self):
        path, out = self.save(self.unsorted(), "unsorted.onnx")
        run = cli("edit", path, "-o", out, "--infer-shapes")
        self.assertEqual(run.returncode, 1, run.stderr)
        self.assertFalse(os.path.exists(out))
        # Not "nothing to change" nor "Write inferred shapes", then a refusal.
        self.assertEqual(run.stdout, "")
        self.assertIn("step 1 (--infer-shapes): shape inference reads the nodes in file order, so they "
                      "must be sorted first (nodes are not in topological order: /model/model.3/Conv uses",
                      run.stderr)
        self.assertIn("add --toposort before this step", run.stderr)
        # Said once: the refusal names the model's own error, which is not said again.
        self.assertEqual(len(run.stderr.splitlines()), 1, run.stderr)
        self.assertEqual(run.stderr.count("not in topological order"), 1, run.stderr)
        run = cli("edit", path, "-o", out, "--toposort", "--infer-shapes")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout, "moved 2 nodes into topological order\nwrote 3 inferred types (value_info)\n")
        written = onnx.load(out)
        onnx.checker.check_model(written)
        self.assertGreater(len(written.graph.value_info), 0)

    def test_cleanup_drops_every_unused_opset_import_but_ai_onnx(self):
        model = onnx.load(data("model.onnx"))
        model.opset_import.extend([onnx.helper.make_opsetid("ai.onnx.ml", 3),
                                   onnx.helper.make_opsetid("devtech", 1)])
        path, out = self.save(model, "imports.onnx")
        self.assertEqual([p["kind"] for p in json.loads(cli("check", path, "--json").stdout)["problems"]
                          if p["kind"] == "unused-opset"], ["unused-opset"] * 2)
        run = cli("edit", path, "-o", out, "--cleanup")
        self.assertEqual((run.returncode, run.stdout), (0, "removed the opset imports ai.onnx.ml and devtech\n"),
                         run.stderr)
        self.assertEqual([(o.domain, o.version) for o in onnx.load(out).opset_import],
                         [(o.domain, o.version) for o in onnx.load(data("model.onnx")).opset_import])
        report = json.loads(cli("check", out, "--json").stdout)
        self.assertNotIn("unused-opset", [p["kind"] for p in report["problems"]])
        # Nothing left to clean: the second says so, and check agrees.
        again = os.path.join(os.path.dirname(out), "again.onnx")
        run = cli("edit", out, "-o", again, "--cleanup")
        self.assertEqual((run.returncode, run.stdout), (0, "--cleanup: nothing to change\n"), run.stderr)

    def test_other_earlier_errors_name_force_and_check(self):
        model = self.unsorted()
        model.graph.node[0].input[0] = "missing"
        model.graph.node[3].input.append("missing_too")
        path, out = self.save(model, "broken.onnx")
        run = cli("edit", path, "-o", out, "--set-name", "#0=first")
        self.assertEqual(run.returncode, 1, run.stderr)
        self.assertFalse(os.path.exists(out))
        self.assertRegex(run.stderr, r"nothing was written: the model had 3 errors before the edits \(.*; .* and 1 more\): "
                         r"add --toposort as the first step to sort the nodes; --force saves anyway, "
                         r"onyx-cli check broken.onnx lists them")
        model = onnx.load(data("model.onnx"))
        model.graph.node[0].input[0] = "missing"
        path, out = self.save(model, "dangling.onnx")
        run = cli("edit", path, "-o", out, "--set-name", "#0=first")
        self.assertEqual(run.returncode, 1, run.stderr)
        self.assertIn("the model had 1 error before the edits (input 0 'missing'", run.stderr)
        self.assertIn("--force saves anyway; onyx-cli check dangling.onnx lists it", run.stderr)
        self.assertNotIn("--toposort", run.stderr)

    def test_errors_of_the_edit_are_its_own(self):
        path, out = self.save(self.unsorted(), "unsorted.onnx")
        # Deleting the first Conv leaves its reader dangling: the edit's error, besides the old one.
        run = cli("edit", path, "-o", out, "--delete", "/model/model.0/Conv")
        self.assertEqual(run.returncode, 1, run.stderr)
        self.assertFalse(os.path.exists(out))
        lines = run.stderr.splitlines()
        self.assertIn("onyx-cli: the edits made 1 error; nothing was written (--force saves it anyway)", lines)
        self.assertIn("onyx-cli: unsorted.onnx: the model had 1 error before the edits (nodes are not in "
                      "topological order", lines[-1])

    def test_convert_failure_is_one_sentence(self):
        from onnx import helper, TensorProto
        import onnx.version_converter
        graph = helper.make_graph([helper.make_node("Flatten", ["x"], ["y"], name="flat", axis=1)], "g",
                                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 12])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        # The library has no adapter down from Flatten-13: the case fails for real.
        with self.assertRaisesRegex(Exception, "No Adapter From Version \\$13 for Flatten"):
            onnx.version_converter.convert_version(model, 12)
        path, out = self.save(model, "flatten.onnx")
        version = onyx_test.library()[0]
        run = cli("edit", path, "-o", out, "--convert-opset", "12")
        self.assertEqual(run.returncode, 1, run.stderr)
        self.assertFalse(os.path.exists(out))
        self.assertEqual(run.stderr.splitlines(),
                         ["onyx-cli: flatten.onnx: step 1 (--convert-opset 12): ONNX %s cannot convert Flatten "
                          "from opset 13 to 12; nothing was written" % version])
        run = cli("edit", path, "-o", out, "--verbose", "--convert-opset", "12")
        self.assertEqual(run.returncode, 1, run.stderr)
        lines = run.stderr.splitlines()
        self.assertEqual(len(lines), 2, run.stderr)
        self.assertIn("ONNX %s cannot convert Flatten from opset 13 to 12" % version, lines[0])
        self.assertRegex(lines[1], r"^onyx-cli: the ONNX library said: .*No Adapter From Version \$13 for Flatten")
        self.assertIn("--verbose", cli("edit", "--help").stdout)


class Nodes(unittest.TestCase):
    def test_text_and_json(self):
        run = cli("nodes", data("model_foo.onnx"))
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertRegex(run.stdout, r"(?m)^#2 +devtech::FooOp +/FooOp$")
        self.assertIn("kernel_shape = [3, 3]", run.stdout)
        nodes = json.loads(cli("nodes", data("model.onnx"), "--json").stdout)
        model = onnx.load(data("model.onnx"))
        self.assertEqual([n["name"] for n in nodes], [n.name for n in model.graph.node])
        self.assertEqual([n["inputs"] for n in nodes], [list(n.input) for n in model.graph.node])
        self.assertEqual(nodes[0]["attributes"]["strides"], "[2, 2]")
        only = json.loads(cli("nodes", data("model_foo.onnx"), "--op", "devtech::FooOp", "--json").stdout)
        self.assertEqual([n["op_type"] for n in only], ["FooOp"])
        self.assertEqual(only[0]["index"], 2)

    def test_steps_say_what_they_did(self):
        """A line per step in its own words; --verbose names what went and came."""
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out.onnx")
            run = cli("edit", data("model.onnx"), "-o", out, "--bypass-op", "Relu", "--cleanup", "--verbose")
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertEqual(run.stdout.splitlines(), [
                "bypassed 2 nodes of Relu",
                "  bypassed /model/model.2/Relu: /model/model.0/Conv_output_0 now feeds /model/model.2/Relu_output_0",
                "  bypassed /model/model.5/Relu: /model/model.3/Conv_output_0 now feeds output",
                "  removed nodes: /model/model.2/Relu, /model/model.5/Relu",
                "--cleanup: nothing to change"])
            run = cli("edit", data("model.onnx"), "-o", out, "--bypass-op", "Relu")
            self.assertEqual(run.stdout, "bypassed 2 nodes of Relu\n")
            run = cli("edit", data("model.onnx"), "-o", out, "--force", "--delete-tree", "#2", "--verbose")
            self.assertEqual(run.stdout.splitlines(), [
                "deleted /model/model.3/Conv and what depends on it: removed 2 nodes and the graph output output",
                "  removed nodes: /model/model.3/Conv, /model/model.5/Relu", "  removed graph outputs: output"])

    def test_data_types_by_name(self):
        """Attributes the schemas say name an element type read by that name: in the
        list, on the drawing, beside the number in JSON, and when set."""
        from onnx import TensorProto, helper
        graph = helper.make_graph(
            [helper.make_node("Cast", ["x"], ["c"], name="cast", to=TensorProto.INT64),
             helper.make_node("EyeLike", ["x"], ["e"], name="eye", dtype=TensorProto.DOUBLE, k=1)],
            "types", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2])],
            [helper.make_tensor_value_info("c", TensorProto.INT64, [2, 2]),
             helper.make_tensor_value_info("e", TensorProto.DOUBLE, [2, 2])])
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "types.onnx")
            onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
            text = cli("nodes", path).stdout
            self.assertIn("       to = INT64\n", text)
            self.assertIn("       dtype = DOUBLE\n", text)
            self.assertIn("       k = 1\n", text)
            nodes = json.loads(cli("nodes", path, "--json").stdout)
            self.assertEqual([(n["attributes"], n["attribute_value_names"]) for n in nodes],
                             [({"to": "7"}, {"to": "INT64"}), ({"dtype": "11", "k": "1"}, {"dtype": "DOUBLE"})])
            run = cli("render", path, "-o", os.path.join(tmp, "types.svg"))
            self.assertEqual(run.returncode, 0, run.stderr)
            with open(os.path.join(tmp, "types.svg"), encoding="utf-8") as f:
                self.assertIn("to = INT64", f.read())
            # Set by name, as shown (and by number, as before).
            out = os.path.join(tmp, "out.onnx")
            run = cli("edit", path, "-o", out, "--set-attr", "cast.to=INT32", "--set-attr", "eye.dtype=11")
            self.assertEqual(run.returncode, 0, run.stderr)
            saved = onnx.load(out)
            self.assertEqual([a.i for n in saved.graph.node for a in n.attribute if a.name in ("to", "dtype")],
                             [TensorProto.INT32, TensorProto.DOUBLE])


if __name__ == "__main__":
    unittest.main(verbosity=2)
