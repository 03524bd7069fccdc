#!/usr/bin/python3
"""Time of `onyx-cli run MODEL --all` (every tensor captured, with statistics) next to
onnxruntime-node's plain run of the same all-outputs model, measured in the same run
(by hand, not in the test suite; onnxruntime-node from tests/npm, `npm install
--ignore-scripts` there).

usage: bench-run.py ONYX_CLI MODEL.onnx...   (/usr/bin/python3 for python3-onnx)
Models: e.g. transformer_96.onnx from ../shared/models/export_scale_models.py.
Inputs are float32 zeros, symbolic dims 1. Each side runs RUNS times as a fresh
process, best wall time kept (process start, loading, session creation, the run,
and Onyx's statistics, JSON and helper start included); the ORT run alone is printed
too: Onyx's "seconds" and the baseline's session.run."""
import json
import os
import subprocess
import sys
import tempfile
import time

import onnx

RUNS = 5
HERE = os.path.dirname(os.path.abspath(__file__))


def all_outputs_copy(model_path, out_path):
    """The model with every node output of the main graph a graph output, typed where
    shape inference knows the type, as Onyx's own capturing copy is."""
    model = onnx.load(model_path)
    inferred = onnx.shape_inference.infer_shapes(model)
    types = {v.name: v for v in list(inferred.graph.value_info) + list(inferred.graph.output)}
    present = {o.name for o in model.graph.output}
    for node in model.graph.node:
        for name in node.output:
            if name and name not in present:
                present.add(name)
                model.graph.output.append(types.get(name, onnx.ValueInfoProto(name=name)))
    onnx.save(model, out_path)
    return len(present)


def feeds_of(model_path):
    model = onnx.load(model_path, load_external_data=False)
    initializers = {i.name for i in model.graph.initializer}
    feeds = {}
    for value in model.graph.input:
        if value.name in initializers:
            continue
        if value.type.tensor_type.elem_type != onnx.TensorProto.FLOAT:
            sys.exit(f"{value.name}: bench-run.py feeds float32 inputs only")
        feeds[value.name] = [d.dim_value if d.HasField("dim_value") else 1 for d in value.type.tensor_type.shape.dim]
    return feeds


def best_of(argv):
    """(best wall seconds, stdout of that run)."""
    best, out = None, None
    for _ in range(RUNS):
        start = time.perf_counter()
        run = subprocess.run(argv, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        if run.returncode != 0:
            sys.exit(f"{' '.join(argv)} failed: {run.stderr.strip()}")
        if best is None or elapsed < best:
            best, out = elapsed, run.stdout
    return best, out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    cli = os.path.abspath(sys.argv[1])
    print(f"{'model':24} {'tensors':>8} {'onyx s':>8} {'ort-node s':>10} {'ratio':>6}   run alone: onyx / node")
    with tempfile.TemporaryDirectory() as tmp:
        for model in sys.argv[2:]:
            copy = os.path.join(tmp, "all.onnx")
            n_outputs = all_outputs_copy(model, copy)
            feeds = os.path.join(tmp, "feeds.json")
            with open(feeds, "w") as f:
                json.dump(feeds_of(model), f)
            onyx_time, onyx_out = best_of([cli, "run", model, "--all", "--fill", "zeros", "--json"])
            node_time, node_out = best_of(["node", os.path.join(HERE, "bench-run.js"), copy, feeds])
            report = json.loads(onyx_out)
            if len(report["tensors"]) < n_outputs - len(onnx.load(model).graph.output):
                sys.exit(f"onyx-cli captured {len(report['tensors'])} tensors of {n_outputs}")
            baseline = json.loads(node_out)
            print(f"{os.path.basename(model):24} {len(report['tensors']):8} {onyx_time:8.3f} {node_time:10.3f} "
                  f"{onyx_time / node_time:6.2f}   {report['seconds']:.3f} / {baseline['run']:.3f}")


if __name__ == "__main__":
    main()
