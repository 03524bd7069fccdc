#!/usr/bin/python3
"""onyx-cli info / check / roundtrip driven as a person would, checked against
python3-onnx's own view of the same files."""
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

import numpy
import onnx
from onnx import helper, numpy_helper, TensorProto

from onyx_test import CLI, cli, data


class Info(unittest.TestCase):
    def test_walkthrough_text(self):
        run = cli("info", data("model.onnx"))
        self.assertEqual(run.returncode, 0, run.stderr)
        out = run.stdout
        self.assertRegex(out, r"(?m)^  input +float32\[N×3×128×128\]$")
        self.assertRegex(out, r"(?m)^  output +float32\[N×64×31×31\]$")
        self.assertIn("ai.onnx v13", out)
        self.assertRegex(out, r"(?m)^  IR version +7$")
        self.assertRegex(out, r"(?m)^  Producer +pytorch$")
        self.assertRegex(out, r"(?m)^Nodes: 4$")
        self.assertRegex(out, r"(?m)^  Conv +2$")
        self.assertRegex(out, r"(?m)^  Relu +2$")
        self.assertNotIn("Custom domain", out)

    def test_custom_op_text(self):
        run = cli("info", data("model_foo.onnx"))
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("devtech v1 (custom)", run.stdout)
        self.assertRegex(run.stdout, r"(?m)^  devtech::FooOp +1$")
        self.assertIn("Custom domain: devtech", run.stdout)

    def test_json_matches_python_onnx(self):
        for name in ("model.onnx", "model_scripted.onnx", "model_foo.onnx"):
            run = cli("info", data(name), "--json")
            self.assertEqual(run.returncode, 0, run.stderr)
            info = json.loads(run.stdout)
            model = onnx.load(data(name))
            self.assertEqual(info["ir_version"], model.ir_version)
            self.assertEqual(info["producer_name"], model.producer_name)
            self.assertEqual({(o["domain"], o["version"]) for o in info["opset_imports"]},
                             {(o.domain, o.version) for o in model.opset_import})
            self.assertEqual(info["node_count"], len(model.graph.node))
            ops = {}
            for node in model.graph.node:
                key = node.op_type if node.domain in ("", "ai.onnx") else node.domain + "::" + node.op_type
                ops[key] = ops.get(key, 0) + 1
            self.assertEqual({c["op"]: c["count"] for c in info["op_counts"]}, ops)
            params = sum(int(__import__("numpy").prod(t.dims)) for t in model.graph.initializer)
            self.assertEqual(info["parameter_count"], params)
            self.assertEqual([i["name"] for i in info["inputs"]], ["input"])
            self.assertEqual(info["inputs"][0]["dims"], ["N", 3, 128, 128])
            self.assertEqual(info["inputs"][0]["elem_type"], "float32")
        foo = json.loads(cli("info", data("model_foo.onnx"), "--json").stdout)
        self.assertEqual(foo["custom_domains"], ["devtech"])
        self.assertIn({"domain": "devtech", "version": 1, "standard": False, "known": False},
                      foo["opset_imports"])
        self.assertIn({"domain": "", "version": 13, "standard": True, "known": True}, foo["opset_imports"])

    @staticmethod
    def constant_values(graph):
        """The arrays of the graph's Constant nodes, those of its subgraphs included."""
        values = []
        for node in graph.node:
            if node.op_type == "Constant" and node.domain in ("", "ai.onnx"):
                values += [numpy_helper.to_array(a.t) for a in node.attribute if a.name == "value"]
            for attribute in node.attribute:
                for body in ([attribute.g] if attribute.type == onnx.AttributeProto.GRAPH else []) + list(attribute.graphs):
                    values += Info.constant_values(body)
        return values

    def test_parameters_in_constant_nodes(self):
        model = onnx.load(data("flat_constants.onnx"))
        self.assertEqual(len(model.graph.initializer), 0)
        values = self.constant_values(model.graph)
        self.assertEqual(len(values), 20)
        count, size = sum(v.size for v in values), sum(v.nbytes for v in values)
        info = json.loads(cli("info", data("flat_constants.onnx"), "--json").stdout)
        self.assertEqual((info["parameter_count"], info["parameter_bytes"]), (count, size))
        self.assertEqual((info["constant_count"], info["constant_parameter_count"],
                          info["constant_parameter_bytes"]), (20, count, size))
        self.assertEqual(info["initializer_count"], 0)
        run = cli("info", data("flat_constants.onnx"))
        self.assertRegex(run.stdout, r"(?m)^Parameters: %.1f k \(%s\) in 0 initializers and 20 Constant nodes "
                                     r"\(16\.2\skB\)$" % (count / 1000, format(count, ",")))

    def test_columns_aligned_for_long_and_non_ascii_names(self):
        inputs = [helper.make_tensor_value_info(name, TensorProto.FLOAT, [1])
                  for name in ("x", "past_key_values.17.value", "größe")]
        nodes = [helper.make_node("Sum", [i.name for i in inputs], ["present.17.value_with_a_long_name"]),
                 helper.make_node("SkipSimplifiedLayerNormalization", ["x", "x"], ["y"], domain="com.microsoft")]
        outputs = [helper.make_tensor_value_info("present.17.value_with_a_long_name", TensorProto.FLOAT, [1]),
                   helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])]
        model = helper.make_model(helper.make_graph(nodes, "g", inputs, outputs),
                                  opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "long.onnx")
            onnx.save(model, path)
            lines = cli("info", path).stdout.splitlines()
        values = lines[lines.index("Inputs") + 1:lines.index("Outputs")] + \
            lines[lines.index("Outputs") + 1:lines.index("Outputs") + 3]
        self.assertEqual(len(values), 5, lines)
        # The type column starts at the same character for every input and output.
        self.assertEqual({line.index("float32") for line in values}, {len("  present.17.value_with_a_long_name ")},
                         values)
        start = lines.index(next(line for line in lines if line.startswith("Nodes:")))
        ops = lines[start + 1:start + 3]
        self.assertEqual({len(line) - len(line.rstrip("0123456789")) for line in ops}, {1}, ops)
        self.assertEqual(len({len(line.rstrip("0123456789")) for line in ops}), 1, ops)
        self.assertTrue(all(re.match(r"^  \S+ +\d+$", line) for line in ops), ops)

    def test_parameters_without_constants_unchanged(self):
        run = cli("info", data("model.onnx"))
        self.assertRegex(run.stdout, r"(?m)^Parameters: 9\.7 k \(9,728\) in 4 initializers \(38\.9\skB\)$")
        info = json.loads(cli("info", data("model.onnx"), "--json").stdout)
        self.assertEqual((info["initializer_count"], info["parameter_count"], info["parameter_bytes"]),
                         (4, 9728, 38912))
        self.assertEqual((info["constant_count"], info["constant_parameter_count"]), (0, 0))

    def test_parameters_in_subgraphs(self):
        def branch(name, value):
            return helper.make_graph(
                [helper.make_node("Constant", [], [name + "_w"], value=numpy_helper.from_array(value)),
                 helper.make_node("Add", ["x", name + "_w"], [name + "_y"])],
                name, [], [helper.make_tensor_value_info(name + "_y", TensorProto.FLOAT, None)],
                initializer=[numpy_helper.from_array(numpy.ones(3, numpy.float32), name + "_bias")])
        weights = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
        node = helper.make_node("If", ["cond"], ["y"], then_branch=branch("then", weights),
                                else_branch=branch("else", numpy.zeros(3, numpy.float32)))
        graph = helper.make_graph([node], "g",
                                  [helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
                                   helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        self.assertEqual(sum(v.size for v in self.constant_values(model.graph)), 9)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "if.onnx")
            onnx.save(model, path)
            info = json.loads(cli("info", path, "--json").stdout)
            self.assertEqual((info["constant_count"], info["constant_parameter_count"]), (2, 9))
            # The branches' own initializers count too: 6 + 3 in Constants, 3 + 3 in biases.
            self.assertEqual((info["initializer_count"], info["parameter_count"], info["parameter_bytes"]),
                             (2, 15, 60))
            self.assertRegex(cli("info", path).stdout,
                             r"(?m)^Parameters: 15 in 2 initializers and 2 Constant nodes \(60 bytes\)$")

    def test_metadata_and_odd_names(self):
        node = helper.make_node("Relu", ["in\x01put"], ["out"], name="bad\nname")
        graph = helper.make_graph([node], "g",
                                  [helper.make_tensor_value_info("in\x01put", TensorProto.FLOAT, ["batch", 3])],
                                  [helper.make_tensor_value_info("out", TensorProto.FLOAT, None)])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        helper.set_model_props(model, {"author": "me", "license": "MIT"})
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "odd.onnx")
            onnx.save(model, path)
            run = cli("info", path)
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertIn("in\\x01put", run.stdout)
            self.assertIn("float32[batch×3]", run.stdout)
            self.assertIn("author = me", run.stdout)
            info = json.loads(cli("info", path, "--json").stdout)
            self.assertEqual(info["inputs"][0]["name"], "in\x01put")
            self.assertEqual(info["outputs"][0]["type"], "float32")
            self.assertEqual({m["key"]: m["value"] for m in info["metadata_props"]},
                             {"author": "me", "license": "MIT"})


class Check(unittest.TestCase):
    def test_clean_models(self):
        for name in ("model.onnx", "model_scripted.onnx"):
            run = cli("check", data(name))
            self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
            self.assertIn("no problems found", run.stdout)
        # The custom op is a warning (standard runtimes cannot run it), not an error.
        run = cli("check", data("model_foo.onnx"))
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("0 errors, 1 warning", run.stdout)

    def broken_model(self, tmp):
        nodes = [helper.make_node("Relu", ["x"], ["y"], name="first"),
                 helper.make_node("Add", ["y", "ghost"], ["z"], name="second"),
                 helper.make_node("FooOp", ["z"], ["w"], name="custom", domain="devtech")]
        graph = helper.make_graph(nodes, "g",
                                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                                  [helper.make_tensor_value_info("w", TensorProto.FLOAT, [1])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        path = os.path.join(tmp, "broken.onnx")
        onnx.save(model, path)
        return path

    def test_problems_listed(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = self.broken_model(tmp)
            run = cli("check", path)
            self.assertEqual(run.returncode, 1)
            self.assertIn("broken.onnx: error: main graph: input 1 'ghost' of second", run.stdout)
            self.assertIn("custom uses domain 'devtech' but no opset is imported", run.stdout)
            self.assertIn("2 errors", run.stdout)
            report = json.loads(cli("check", path, "--json").stdout)
            self.assertEqual(report["errors"], 2)
            self.assertEqual({p["node"] for p in report["problems"]}, {"second", "custom"})

    def test_cycle(self):
        nodes = [helper.make_node("Relu", ["b"], ["a"], name="r"),
                 helper.make_node("Neg", ["a"], ["b"], name="n")]
        graph = helper.make_graph(nodes, "g", [], [helper.make_tensor_value_info("b", TensorProto.FLOAT, [1])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "cycle.onnx")
            onnx.save(model, path)
            run = cli("check", path)
            self.assertEqual(run.returncode, 1)
            self.assertIn("cycle", run.stdout)
            # info still describes it, and says in one line on stderr what is wrong.
            run = cli("info", path)
            self.assertEqual(run.returncode, 0)
            self.assertIn("Nodes: 2", run.stdout)
            self.assertRegex(run.stderr, r"^onyx-cli: cycle.onnx: the graph has a cycle: .*onyx-cli check.*\n$")


class BadInput(unittest.TestCase):
    """Each bad file: exit status 3, one line naming the file, no traceback or crash."""

    def assert_refused(self, content, expected):
        """`expected`: a regular expression for the whole message after the file name."""
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bad.onnx")
            with open(path, "wb") as f:
                f.write(content)
            for command in (["info", path], ["check", path], ["roundtrip", path, path + ".out"]):
                run = cli(*command)
                self.assertEqual(run.returncode, 3, run.stderr)
                self.assertEqual(run.stdout, "")
                lines = run.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, run.stderr)
                self.assertRegex(lines[0], r"\Aonyx-cli: bad\.onnx: " + expected + r"\Z")
            self.assertFalse(os.path.exists(path + ".out"))

    def test_empty(self):
        self.assert_refused(b"", re.escape("the file is empty"))

    def test_truncated(self):
        with open(data("model.onnx"), "rb") as f:
            content = f.read()
        self.assert_refused(content[: len(content) // 2],
                            r"truncated: field 'graph' of ModelProto claims \d+ bytes but only \d+ remain"
                            r" \(at byte \d+\)")

    def test_text(self):
        # '{' (0x7b) reads as the start of a group of field 15, which ONNX never uses.
        self.assert_refused(b'{"model": "not really"}', re.escape(
            "not an ONNX model: field '#15' of ModelProto uses protobuf groups (at byte 0)"))

    def test_random(self):
        import random
        rng = random.Random(7)
        refused = 0
        for _ in range(50):
            blob = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 400)))
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "r.onnx")
                with open(path, "wb") as f:
                    f.write(blob)
                run = cli("info", path)
                self.assertIn(run.returncode, (0, 3), run.stderr)
                refused += run.returncode == 3
        self.assertGreater(refused, 40)

    def test_missing(self):
        run = cli("info", "/nonexistent/model.onnx")
        self.assertEqual(run.returncode, 3)
        self.assertIn("model.onnx", run.stderr)


class Roundtrip(unittest.TestCase):
    def test_keeps_everything(self):
        model = onnx.load(data("model_foo.onnx"))
        model.doc_string = "exported for the walkthrough"
        model.model_version = 5
        helper.set_model_props(model, {"origin": "test"})
        model.graph.value_info.append(helper.make_tensor_value_info("extra", TensorProto.INT64, ["N"]))
        with tempfile.TemporaryDirectory() as tmp:
            source = os.path.join(tmp, "in.onnx")
            target = os.path.join(tmp, "out.onnx")
            onnx.save(model, source)
            run = cli("roundtrip", source, target)
            self.assertEqual(run.returncode, 0, run.stderr)
            saved = onnx.load(target)
            self.assertEqual(saved, model)
            onnx.checker.check_model(saved)

    def test_overwrite_keeps_permissions_and_failure_keeps_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            target = os.path.join(tmp, "out.onnx")
            shutil.copy(data("model.onnx"), target)
            os.chmod(target, 0o640)
            run = cli("roundtrip", data("model_foo.onnx"), target)
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertEqual(stat.S_IMODE(os.stat(target).st_mode), 0o640)
            self.assertEqual(onnx.load(target), onnx.load(data("model_foo.onnx")))
            # A failed save (target is a folder) leaves the other file untouched.
            folder = os.path.join(tmp, "folder.onnx")
            os.mkdir(folder)
            run = cli("roundtrip", target, folder)
            self.assertEqual(run.returncode, 3)
            self.assertIn("folder.onnx: is a folder", run.stderr)
            self.assertEqual(sorted(os.listdir(tmp)), ["folder.onnx", "out.onnx"])


class FailingDisks(unittest.TestCase):
    """Saving onto a full or read-only file system (small tmpfs mounts, so root's
    permission bypass does not hide the failure): one clear error, the old file intact,
    nothing left behind."""

    def mount(self, size, read_only=False):
        folder = tempfile.mkdtemp()
        options = "size=%s" % size
        run = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", folder], capture_output=True)
        if run.returncode != 0:
            os.rmdir(folder)
            self.skipTest("mounting a tmpfs is not permitted here: %s" % run.stderr.decode().strip())
        self.addCleanup(lambda: (subprocess.run(["umount", folder]), os.rmdir(folder)))
        return folder

    def test_full_disk(self):
        folder = self.mount("32k")
        target = os.path.join(folder, "model.onnx")
        shutil.copy(data("model_foo.onnx"), target)
        with open(target, "rb") as f:
            before = f.read()
        run = cli("roundtrip", data("model.onnx"), target)  # 40 kB more does not fit
        self.assertEqual(run.returncode, 3)
        self.assertRegex(run.stderr, r"^onyx-cli: model.onnx: cannot write: No space left on device\n$")
        with open(target, "rb") as f:
            self.assertEqual(f.read(), before)
        self.assertEqual(os.listdir(folder), ["model.onnx"])

    def test_read_only_folder(self):
        folder = self.mount("1m")
        target = os.path.join(folder, "model.onnx")
        shutil.copy(data("model_foo.onnx"), target)
        subprocess.run(["mount", "-o", "remount,ro", folder], check=True)
        run = cli("edit", target, "-o", target, "--bypass-op", "devtech::FooOp")
        self.assertEqual(run.returncode, 3)
        self.assertIn("model.onnx: cannot create a file in its folder: Read-only file system", run.stderr)
        self.assertEqual(onnx.load(target), onnx.load(data("model_foo.onnx")))


class SeveralModels(unittest.TestCase):
    """check and info of a folder of exports in one process: a line (or an object) per
    model, the same as each alone; an unreadable one is said and the others go on."""

    MODELS = ("model.onnx", "model_foo.onnx", "model_scripted.onnx")

    def test_check_a_line_per_model(self):
        run = cli("check", *[data(name) for name in self.MODELS])
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout.splitlines(), ["model.onnx: no problems found",
                                                   "model_foo.onnx: 0 errors, 1 warning",
                                                   "model_scripted.onnx: no problems found"])
        with tempfile.TemporaryDirectory() as tmp:
            broken = os.path.join(tmp, "broken.onnx")
            with open(broken, "wb") as out:
                out.write(b"not a model")
            run = cli("check", data("model.onnx"), broken, data("model_foo.onnx"))
            self.assertEqual(run.returncode, 3, run.stderr)
            self.assertEqual(len(run.stdout.splitlines()), 2, run.stdout)
            self.assertEqual(len(run.stderr.splitlines()), 1, run.stderr)
            self.assertIn("broken.onnx", run.stderr)
            reports = json.loads(cli("check", "--json", data("model.onnx"), broken).stdout)
            self.assertEqual([sorted(r) for r in reports][1], ["error", "file"])

    def test_json_arrays_equal_each_model_alone(self):
        for command in ("check", "info"):
            together = json.loads(cli(command, "--json", *[data(name) for name in self.MODELS]).stdout)
            alone = [json.loads(cli(command, "--json", data(name)).stdout) for name in self.MODELS]
            self.assertEqual(together, alone, command)
            self.assertEqual([r["file"] for r in together], list(self.MODELS))

    def test_errors_of_any_model_set_the_status(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "dangling.onnx")
            model = onnx.load(data("model.onnx"))
            model.graph.node[1].input[0] = "ghost"
            onnx.save(model, path)
            run = cli("check", data("model.onnx"), path)
            self.assertEqual(run.returncode, 1, run.stderr)
            self.assertRegex(run.stdout.splitlines()[1], r"^dangling.onnx: [1-9]\d* errors?, \d+ warnings?")

    def test_info_of_several(self):
        run = cli("info", data("model.onnx"), data("model_foo.onnx"))
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout.split("\n\n")[0], cli("info", data("model.onnx")).stdout.rstrip("\n"))
        self.assertTrue(run.stdout.split("\n\n")[1].startswith("model_foo.onnx\n"))


class Usage(unittest.TestCase):
    def test_help_and_version(self):
        run = cli("--help")
        self.assertEqual(run.returncode, 0)
        for word in ("info", "check", "roundtrip", "Exit status"):
            self.assertIn(word, run.stdout)
        run = cli("--version")
        self.assertEqual(run.returncode, 0)
        self.assertRegex(run.stdout, r"^onyx-cli \d+\.\d+")
        run = cli("info", "--help")
        self.assertEqual(run.returncode, 0)
        self.assertIn("--json", run.stdout)

    def test_bad_usage(self):
        for args in ([], ["frobnicate"], ["info"], ["check", "--json"], ["info", "--bogus", "x"],
                     ["check", "--graph", "main", data("model.onnx"), data("model_foo.onnx")]):
            run = subprocess.run([CLI, *args], capture_output=True, text=True)
            self.assertEqual(run.returncode, 2, args)
            self.assertTrue(run.stderr, args)

    def test_exit_codes_as_help_says(self):
        """--help: 2 is bad usage, 3 a file that cannot be read or written. Every
        command but run (tests/test_run_cli.py), both ways."""
        model = data("model.onnx")
        with tempfile.TemporaryDirectory() as tmp:
            missing, folder = os.path.join(tmp, "missing.onnx"), os.path.join(tmp, "no", "such")
            cases = {
                2: [["info", ""], ["info", "--frobnicate", model], ["graphs"], ["graphs", model, model],
                    ["check", model, ""], ["check", model, "--graph", "nowhere"], ["nodes", model, "--graph", "nowhere"],
                    ["nodes", ""], ["diff", model], ["diff", "", model], ["roundtrip", model, ""],
                    ["roundtrip", model], ["edit", model, "-o", "", "--cleanup"], ["edit", model, "--output=", "--cleanup"],
                    ["edit", "", "-o", os.path.join(tmp, "out.onnx"), "--cleanup"], ["edit", model, "--cleanup"],
                    ["edit", model, "-o", os.path.join(tmp, "out.onnx")], ["edit", model, "-o", "x.onnx", "--frobnicate"],
                    ["render", model], ["render", model, "-o", os.path.join(tmp, "x.bmp")],
                    ["render", model, "-o", os.path.join(tmp, "x")], ["render", model, "-o", ""],
                    ["render", model, "-o", os.path.join(tmp, "x.png"), "--scale", "99"]],
                3: [["info", missing], ["graphs", missing], ["check", missing], ["nodes", missing], ["diff", model, missing],
                    ["roundtrip", missing, os.path.join(tmp, "out.onnx")], ["roundtrip", model, os.path.join(folder, "o.onnx")],
                    ["edit", missing, "-o", os.path.join(tmp, "out.onnx"), "--cleanup"],
                    ["edit", model, "-o", os.path.join(folder, "out.onnx"), "--cleanup"],
                    ["render", missing, "-o", os.path.join(tmp, "x.png")],
                    ["render", model, "-o", os.path.join(folder, "x.png")]],
            }
            for code, runs in cases.items():
                for args in runs:
                    run = subprocess.run([CLI, *args], capture_output=True, text=True)
                    self.assertEqual(run.returncode, code, (args, run.stderr))
                    self.assertEqual(len(run.stderr.strip().splitlines()[:1]), 1, args)
            # Nothing was written by the runs that failed.
            self.assertEqual(os.listdir(tmp), [])
        commands = {c[0] for runs in cases.values() for c in runs}
        self.assertEqual(commands, {"info", "graphs", "check", "nodes", "diff", "roundtrip", "edit", "render"})


class Startup(unittest.TestCase):
    """Each start of onyx-cli loads only what its commands need: render and run go on in
    onyx-cli-full (the same arguments, the same process), which has Graphviz, cairo,
    pango and libzip; libonnx and its C++ run in the helper only."""
    NOT_LOADED = ("libgvc", "libcgraph", "libcairo", "libpango", "libzip", "libstdc++", "libprotobuf.so")

    @classmethod
    def setUpClass(cls):
        # clang's sanitizer runtime (the ASan + UBSan build) is C++: there onyx-cli
        # itself needs libstdc++, as the runtime's, not for libonnx.
        with open(CLI, "rb") as f:
            if b"__asan_init" in f.read():
                cls.NOT_LOADED = tuple(name for name in cls.NOT_LOADED if name != "libstdc++")

    def loaded(self, *args):
        """The libraries onyx-cli itself loaded (not its helper's) for `args`."""
        process = subprocess.Popen([CLI, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                   env=dict(os.environ, LD_DEBUG="files"))
        _, err = process.communicate(timeout=120)
        self.assertEqual(process.returncode, 0, err[-2000:])
        return set(re.findall(r"(?m)^ *%d:\s+file=(\S+) \[0\];  needed by" % process.pid, err))

    def test_light_commands_load_no_drawing_nor_libonnx(self):
        with tempfile.TemporaryDirectory() as tmp:
            # (--simplify's proof runs the model: Run's code without its .npz files.)
            runs = [("info", data("model.onnx")), ("check", "--full", data("model_foo.onnx")),
                    ("edit", data("model.onnx"), "-o", os.path.join(tmp, "out.onnx"), "--infer-shapes"),
                    ("edit", data("model.onnx"), "-o", os.path.join(tmp, "out.onnx"), "--simplify")]
            for args in runs:
                loaded = self.loaded(*args)
                self.assertIn("libglib-2.0.so.0", loaded, args)
                self.assertEqual([name for name in loaded if name.startswith(self.NOT_LOADED)], [], args)

    def test_render_goes_on_in_the_full_program(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "model.svg")
            loaded = self.loaded("render", data("model_foo.onnx"), "-o", out)
            self.assertTrue(any(name.startswith("libgvc") for name in loaded), sorted(loaded))
            self.assertTrue(os.path.getsize(out) > 0)


class Plurals(unittest.TestCase):
    """Counts of one are said in the singular ("1 node", not "1 nodes")."""

    def test_counts_of_one(self):
        from onnx import TensorProto, helper
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
        models = {
            "loop.onnx": [helper.make_node("Add", ["x", "y"], ["y"], name="loop")],
            "relu.onnx": [helper.make_node("Relu", ["x"], ["y"], name="relu")],
            "add.onnx": [helper.make_node("Add", ["x", "x"], ["y"], name="relu")],
        }
        expected = [
            (["check", "loop.onnx"], "the graph has a cycle: 1 node depends on itself (loop)"),
            (["edit", "loop.onnx", "-o", "o.onnx", "--toposort"], "a cycle through 1 node: it cannot be sorted"),
            (["edit", "relu.onnx", "-o", "o.onnx", "--set-dim", "x:2=N"], "graph input 'x' has 1 dim, not 3"),
            (["edit", "relu.onnx", "-o", "o.onnx", "--replace", "relu=Add"], "relu has 1 input, but Add takes at least 2"),
            (["diff", "relu.onnx", "add.onnx"], "1 of 1 node matched"),
            (["diff", "relu.onnx", "add.onnx"], "\n    1 input → 2\n"),
        ]
        with tempfile.TemporaryDirectory() as tmp:
            for name, nodes in models.items():
                graph = helper.make_graph(nodes, "g", [x], [y])
                onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), os.path.join(tmp, name))
            for args, text in expected:
                run = subprocess.run([CLI, *args], capture_output=True, text=True, cwd=tmp)
                self.assertIn(text, run.stdout + run.stderr, args)
                self.assertNotRegex(run.stdout + run.stderr, r"\b1 (node|input|dim|value)s\b", args)


if __name__ == "__main__":
    unittest.main(verbosity=2)
