#!/usr/bin/python3
"""onyx-cli's main paths under valgrind --leak-check=full: no definite leaks and no
memory errors. Runs in the plain build only (the sanitizer build has its own checks)."""
import os
import subprocess
import tempfile
import unittest

CLI = os.environ["ONYX_CLI"]
# render goes on in onyx-cli-full (exec), which valgrind would not follow: run directly.
FULL = os.path.join(os.path.dirname(CLI), "onyx-cli-full")
DATA = os.environ["ONYX_TEST_DATA"]
VALGRIND = ["valgrind", "--quiet", "--leak-check=full", "--errors-for-leak-kinds=definite",
            "--error-exitcode=99", "--track-origins=yes",
            "--suppressions=" + os.path.join(os.path.dirname(os.path.abspath(__file__)), "valgrind.supp")]


class Valgrind(unittest.TestCase):
    def run_clean(self, *args, expected=0, program=CLI):
        run = subprocess.run(VALGRIND + [program, *args], capture_output=True, text=True, timeout=300)
        self.assertNotEqual(run.returncode, 99, run.stderr)
        self.assertEqual(run.returncode, expected, run.stderr)

    def test_info(self):
        for name in ("model.onnx", "model_foo.onnx"):
            self.run_clean("info", os.path.join(DATA, name))
            self.run_clean("info", "--json", os.path.join(DATA, name))

    def test_check(self):
        self.run_clean("check", os.path.join(DATA, "model_foo.onnx"))
        self.run_clean("check", "--json", os.path.join(DATA, "model.onnx"))

    def test_diff(self):
        self.run_clean("diff", os.path.join(DATA, "model.onnx"), os.path.join(DATA, "model_scripted.onnx"),
                       expected=1)
        self.run_clean("diff", "--json", os.path.join(DATA, "model.onnx"), os.path.join(DATA, "model_foo.onnx"),
                       expected=1)

    def test_roundtrip(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.run_clean("roundtrip", os.path.join(DATA, "model.onnx"), os.path.join(tmp, "out.onnx"))

    def test_edit_and_nodes(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.run_clean("edit", os.path.join(DATA, "model_foo.onnx"), "-o", os.path.join(tmp, "out.onnx"),
                           "--bypass-op", "devtech::FooOp", "--cleanup", "--rename", "input=image",
                           "--set-attr", "#0.strides=[1,1]", "--add-output", "/model/model.0/Conv_output_0",
                           "--toposort")
            self.run_clean("edit", os.path.join(DATA, "model.onnx"), "-o", os.path.join(tmp, "out.onnx"),
                           "--bypass", "nope", expected=1)
            self.run_clean("edit", os.path.join(DATA, "function_modules.onnx"), "-o",
                           os.path.join(tmp, "out.onnx"), "--inline-functions")
        self.run_clean("nodes", "--json", os.path.join(DATA, "model.onnx"))

    def test_render(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.run_clean("render", os.path.join(DATA, "model_foo.onnx"), "-o", os.path.join(tmp, "out.png"),
                           program=FULL)
            self.run_clean("render", os.path.join(DATA, "model.onnx"), "--expand", "none", "-o",
                           os.path.join(tmp, "out.svg"), program=FULL)
            self.assertTrue(os.path.getsize(os.path.join(tmp, "out.svg")) > 0)

    def test_bad_input(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bad.onnx")
            with open(os.path.join(DATA, "model.onnx"), "rb") as f:
                content = f.read()
            with open(path, "wb") as f:
                f.write(content[: len(content) // 3])
            self.run_clean("info", path, expected=3)


if __name__ == "__main__":
    unittest.main(verbosity=2)
