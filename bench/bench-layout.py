#!/usr/bin/python3
"""Layout benchmark: Onyx against plain `dot -Tplain` on the same operator graph,
measured in one run on this machine.

usage: bench/bench-layout.py BUILD_DIR [DOT_TIMEOUT_S]
Models: tests/data/model.onnx and transformer_{4,24,96}.onnx, written to
/tmp/onyx-bench/ by ../shared/models/export_scale_models.py when missing (needs
python3-torch). Targets (issue 5): first drawable layout of transformer_96 under 1 s;
full expanded transformer_24 at least 10x faster than plain dot; a frame under 16 ms.
"""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)


def models():
    folder = "/tmp/onyx-bench"
    os.makedirs(folder, exist_ok=True)
    wanted = [os.path.join(folder, f"transformer_{n}.onnx") for n in (4, 24, 96)]
    script = os.path.join(TOP, "..", "shared", "models", "export_scale_models.py")
    if not all(os.path.exists(p) for p in wanted):
        subprocess.run(["/usr/bin/python3", script, folder, "4", "24", "96"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return [os.path.join(TOP, "tests", "data", "model.onnx")] + wanted


def main():
    build = sys.argv[1]
    timeout = float(sys.argv[2]) if len(sys.argv) > 2 else 300
    bench = os.path.join(build, "bench", "bench-layout")
    print(f"{'model':18s} {'nodes':>6s} {'first':>8s} {'full':>8s} {'dot':>10s} {'ratio':>8s} "
          f"{'frame fit':>9s} {'frame 1:1':>9s} {'RSS':>8s}")
    for path in models():
        dot_file = "/tmp/onyx-bench/" + os.path.basename(path) + ".dot"
        out = subprocess.run([bench, path, dot_file], capture_output=True, text=True, check=True).stdout
        r = dict(line.split() for line in out.splitlines())
        start = time.perf_counter()
        try:
            subprocess.run(["dot", "-Tplain", dot_file], stdout=subprocess.DEVNULL, timeout=timeout, check=True)
            dot_s = time.perf_counter() - start
            dot_text, ratio = f"{dot_s:9.2f}s", f"{dot_s / float(r['full_layout']):7.1f}x"
        except subprocess.TimeoutExpired:
            dot_text, ratio = f">{timeout:7.0f}s", f">{timeout / float(r['full_layout']):6.0f}x"
        print(f"{os.path.basename(path):18s} {r['nodes']:>6s} {float(r['first_layout']):7.3f}s "
              f"{float(r['full_layout']):7.3f}s {dot_text:>10s} {ratio:>8s} "
              f"{float(r['frame_fit']) * 1000:7.1f}ms {float(r['frame_100']) * 1000:7.1f}ms "
              f"{int(r['peak_rss']) / 1e6:6.0f}MB")
    print("first = first drawable layout (groups opened while about 200 boxes show); full = every"
          " node laid out; ratio = dot / full; frames redraw the canvas cache of a 1280x800 view (1920x1200 px) of the full layout.")


if __name__ == "__main__":
    main()
