#!/usr/bin/python3
"""Extract memory benchmark: peak RSS of `onyx-cli edit --extract` against `onyx-cli
info` on a model with large payloads (tools/make-big-model.py), measured with
/usr/bin/time -v in the same run.

usage: bench/bench-extract.py ONYX_CLI [SIZE_MB]   (default 200 MB)
The cut keeps every layer but the first, so nearly all payloads (initializers and
Constant attributes) go into the new model. Target (issue 16): extracting holds the
payloads once, not twice: peak RSS under 1.5x the file size (the mapped file counts as
it is read for saving). The exit status is 1 when it is not met."""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def peak_rss_kb(command):
    run = subprocess.run(["/usr/bin/time", "-v", *command], capture_output=True, text=True, check=True)
    return int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", run.stderr).group(1))


def main():
    cli = sys.argv[1]
    size_mb = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    folder = "/tmp/onyx-bench"
    os.makedirs(folder, exist_ok=True)
    model = os.path.join(folder, f"big_{size_mb}.onnx")
    if not os.path.exists(model):
        subprocess.run(["/usr/bin/python3", os.path.join(HERE, "..", "tools", "make-big-model.py"), model,
                        str(size_mb)], check=True)
    out = os.path.join(folder, "big-extracted.onnx")
    file_kb = os.path.getsize(model) // 1024
    info_kb = peak_rss_kb([cli, "info", model])
    extract_kb = peak_rss_kb([cli, "edit", model, "-o", out, "--extract", "/layers.0/MatMul_output_0:y"])
    out_kb = os.path.getsize(out) // 1024
    os.unlink(out)
    print(f"file {file_kb / 1024:.0f} MB, extracted file {out_kb / 1024:.0f} MB")
    print(f"peak RSS: info {info_kb / 1024:.0f} MB, extract {extract_kb / 1024:.0f} MB "
          f"({extract_kb / file_kb:.2f}x the file)")
    return 0 if extract_kb < 1.5 * file_kb else 1


if __name__ == "__main__":
    sys.exit(main())
