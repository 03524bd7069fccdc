#!/usr/bin/python3
"""Round-trip every model.onnx under a folder through `onyx-cli roundtrip`.

usage: roundtrip_testdata.py ONYX_CLI DATA_DIR
Each saved copy must parse with python3-onnx, pass onnx.checker (when the original
does) and equal the original message field by field (unknown fields included).
Prints one line per failure and the counts; exits 1 when anything failed.
"""
import os
import subprocess
import sys
import tempfile

import onnx


def find_models(root):
    for folder, _dirs, files in os.walk(root):
        for name in files:
            if name.endswith(".onnx"):
                yield os.path.join(folder, name)


def check_one(cli, path, out):
    run = subprocess.run([cli, "roundtrip", path, out], capture_output=True, text=True)
    if run.returncode != 0:
        return "onyx-cli failed: " + run.stderr.strip()
    original = onnx.load(path, load_external_data=False)
    saved = onnx.load(out, load_external_data=False)
    if original != saved:
        return "saved model differs from the original"
    if original.SerializeToString() != saved.SerializeToString():
        return "saved model serializes differently"
    try:
        onnx.checker.check_model(original)
    except Exception:  # the original is not checker-clean: nothing to preserve
        return None
    try:
        onnx.checker.check_model(saved)
    except Exception as error:
        return "onnx.checker rejects the saved model: %s" % str(error).splitlines()[0]
    return None


def main():
    cli, root = sys.argv[1], sys.argv[2]
    models = sorted(find_models(root))
    if not models:
        print("no models under %s" % root)
        return 1
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "saved.onnx")
        for path in models:
            problem = check_one(cli, path, out)
            if problem:
                failures += 1
                print("FAIL %s: %s" % (os.path.relpath(path, root), problem))
    print("round-tripped %d models: %d passed, %d failed" % (len(models), len(models) - failures, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
