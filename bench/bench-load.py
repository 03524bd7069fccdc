#!/usr/bin/python3
"""Load benchmark: peak RSS and time of `onyx-cli info` on a large model, against
python3-onnx's onnx.load on the same file, measured in the same run.

usage: bench/bench-load.py ONYX_CLI [SIZE_MB]   (default 350 MB)
The model is synthetic: a chain of MatMul nodes whose weights are large float32
initializers stored in raw_data, as exported transformers store them. It is written
once to /tmp/onyx-bench/ and reused. Target (issue 8): onyx-cli's peak RSS under
1.5x the file size; the exit status is 1 when it is not met.
"""
import os
import subprocess
import sys
import time



def make_model(path, size_mb):
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    width = 1024
    layer_bytes = width * width * 4
    layers = max(1, size_mb * 1024 * 1024 // layer_bytes)
    rng = np.random.default_rng(0)
    nodes, inits = [], []
    prev = "x"
    for i in range(layers):
        w = rng.standard_normal((width, width), dtype=np.float32)
        inits.append(numpy_helper.from_array(w, name=f"/layers.{i}/weight"))
        out = f"/layers.{i}/MatMul_output_0"
        nodes.append(helper.make_node("MatMul", [prev, inits[-1].name], [out], name=f"/layers.{i}/MatMul"))
        prev = out
    graph = helper.make_graph(nodes, "big",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", width])],
                              [helper.make_tensor_value_info(prev, TensorProto.FLOAT, ["N", width])],
                              initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.save(model, path)


def measure(argv):
    """(seconds, peak RSS in bytes) of a child process. Linux carries the parent's
    RSS high-water mark into a forked child, so this process stays small: it imports
    neither numpy nor onnx (the model is written by a child process)."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - start
    if status != 0:
        sys.exit("failed: %s" % " ".join(argv))
    return elapsed, usage.ru_maxrss * 1024


def main():
    if sys.argv[1] == "--make":
        make_model(sys.argv[2], int(sys.argv[3]))
        return
    cli = sys.argv[1]
    size_mb = int(sys.argv[2]) if len(sys.argv) > 2 else 350
    folder = "/tmp/onyx-bench"
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"synthetic_{size_mb}mb.onnx")
    if not os.path.exists(path):
        print(f"writing {path} …", flush=True)
        subprocess.run([sys.executable, __file__, "--make", path, str(size_mb)], check=True)
    size = os.path.getsize(path)
    runs = {
        "onyx-cli info": [cli, "info", path],
        "onyx-cli check": [cli, "check", path],
        "python onnx.load": ["/usr/bin/python3", "-c", "import onnx, sys; onnx.load(sys.argv[1])", path],
        "python (import onnx only)": ["/usr/bin/python3", "-c", "import onnx"],
        "baseline (true)": ["true"],
    }
    print(f"model: {path} ({size / 1e6:.1f} MB)")
    results = {}
    for name, argv in runs.items():
        best = min((measure(argv) for _ in range(3)), key=lambda r: r[0])
        results[name] = best
        print(f"  {name:28s} {best[0] * 1000:8.1f} ms   peak RSS {best[1] / 1e6:8.1f} MB"
              f"   ({best[1] / size:.2f}x file size)")
    onyx_t, onyx_rss = results["onyx-cli info"]
    py_t, py_rss = results["python onnx.load"]
    print(f"onyx-cli info vs onnx.load: time {py_t / onyx_t:.1f}x faster, RSS {py_rss / onyx_rss:.1f}x smaller")
    met = onyx_rss < 1.5 * size
    print("target: onyx-cli info peak RSS < 1.5x file size: %s" % ("met" if met else "NOT met"))
    # A missed target fails the run, for scripts and CI that only look at the status.
    if not met:
        sys.exit(1)


if __name__ == "__main__":
    main()
