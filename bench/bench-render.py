#!/usr/bin/python3
"""Export benchmark: `onyx-cli render --expand all` of the whole graph to SVG and PNG,
against `dot -Tsvg` on the same operator graph, measured in one run on this machine.

usage: bench/bench-render.py BUILD_DIR [RUNS]
Models as for bench-layout.py (/tmp/onyx-bench/transformer_{24,96}.onnx). Each onyx
time is the best of RUNS (default 3) runs of the whole command: loading, layout and
writing; `dot` runs once. Targets (issue 17): transformer_24 to SVG at least 20x
faster than dot -Tsvg; transformer_96 to SVG and to PNG under 1.5 s each.
"""
import importlib.util
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("bench_layout", os.path.join(HERE, "bench-layout.py"))
bench_layout = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench_layout)


def timed(command):
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def best_render(cli, model, out, runs):
    return min(timed([cli, "render", model, "--expand", "all", "-o", out]) for _ in range(runs))


def main():
    build = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    cli = os.path.join(build, "src", "cli", "onyx-cli")
    paths = {os.path.basename(p): p for p in bench_layout.models()}
    t24, t96 = paths["transformer_24.onnx"], paths["transformer_96.onnx"]
    with tempfile.TemporaryDirectory() as tmp:
        dot_file = os.path.join(tmp, "transformer_24.dot")
        # bench-layout writes the plain operator graph (and times layouts, unused here).
        subprocess.run([os.path.join(build, "bench", "bench-layout"), t24, dot_file], check=True,
                       stdout=subprocess.DEVNULL)
        dot_s = timed(["dot", "-Tsvg", dot_file, "-o", os.path.join(tmp, "dot.svg")])
        svg24 = best_render(cli, t24, os.path.join(tmp, "t24.svg"), runs)
        svg96 = best_render(cli, t96, os.path.join(tmp, "t96.svg"), runs)
        png96 = best_render(cli, t96, os.path.join(tmp, "t96.png"), runs)
        size = {name: os.path.getsize(os.path.join(tmp, name)) / 1e6 for name in ("t24.svg", "t96.svg", "t96.png")}
    print(f"transformer_24  dot -Tsvg {dot_s:6.2f}s  onyx SVG {svg24:5.2f}s ({size['t24.svg']:.1f} MB)"
          f"  ratio {dot_s / svg24:5.1f}x (target >= 20x)")
    print(f"transformer_96  onyx SVG {svg96:5.2f}s ({size['t96.svg']:.1f} MB)  "
          f"onyx PNG {png96:5.2f}s ({size['t96.png']:.1f} MB)  (targets < 1.5 s)")


if __name__ == "__main__":
    main()
