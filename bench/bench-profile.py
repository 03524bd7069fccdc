#!/usr/bin/python3
"""Profiling through Onyx against onnxruntime-node profiling the same model itself, and
the issue's "done when" checks, from one run of this script (by hand, not in the test
suite; onnxruntime-node from tests/npm).

usage: bench-profile.py BUILD_DIR MODEL[@DIM=SIZE,...]... [--runs N] [--warmup K]
                        [--threads T] [--opt-level LEVEL] [--repeat R]
  (/usr/bin/python3, for python3-onnx)
e.g. bench-profile.py _build /tmp/onyx-bench/transformer_24.onnx@N=128 \\
       tests/data/paddle_style.onnx@image:2=320,image:3=320

Each side is a fresh process, run R times (default 3) in turn with the other, the best
wall time kept (and the least CPU time, of the process and those it started, which
other work on the machine sways less): `onyx-cli run MODEL --profile --json --fill zeros` (helper start,
session, K + N runs under the profiler, the trace read back and mapped on every node,
JSON printed) against bench-profile.js (node start, session, the same runs, the trace
written). Inputs are zeros; a symbolic dim is 1 unless DIM=SIZE names it (by name, or
INPUT:AXIS) for both. Then, from Onyx's JSON and onnxruntime-node's own trace:
  - every node of the file accounted for (own, fused or folded; a kernel for the first two);
  - the kernels' total per run within 30 % of what onnxruntime-node's trace gives, read
    the same way (each kernel's median over the runs, added up: on a busy machine a
    mean follows the few runs the scheduler stalled), the run's overhead shown apart;
  - the top operator by time the same, its share within 10 points.
Last, the trace reader (BUILD_DIR/bench/bench-profile-read) on a trace of 100,000
kernel events made from onnxruntime-node's trace of the first model, its runs repeated
with their times moved on (budget: under 0.2 s)."""
import argparse
import glob
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
READER_EVENTS = 100000


def node_count(model):
    def count(graph):
        return sum(1 + sum(count(a.g) for a in n.attribute if a.type == onnx.AttributeProto.GRAPH)
                   for n in graph.node)
    return count(model.graph)


def feeds_of(model, sizes):
    """{input: [type, dims]}: dims as onyx-cli makes them with --dim SIZES."""
    initializers = {i.name for i in model.graph.initializer}
    feeds = {}
    for value in model.graph.input:
        if value.name in initializers:
            continue
        tensor = value.type.tensor_type
        types = {onnx.TensorProto.FLOAT: "float32", onnx.TensorProto.INT64: "int64"}
        if tensor.elem_type not in types:
            sys.exit(f"{value.name}: bench-profile.py feeds float32 and int64 inputs only")
        dims = []
        for axis, dim in enumerate(tensor.shape.dim):
            given = sizes.get(f"{value.name}:{axis}", sizes.get(dim.dim_param) if dim.dim_param else None)
            dims.append(dim.dim_value if dim.HasField("dim_value") else int(given or 1))
        feeds[value.name] = [types[tensor.elem_type], dims]
    return feeds


def cpu_of_children():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv):
    """(wall seconds, CPU seconds of the process and the processes it waited for, stdout)."""
    start, cpu = time.perf_counter(), cpu_of_children()
    run = subprocess.run(argv, capture_output=True, text=True)
    elapsed, cpu = time.perf_counter() - start, cpu_of_children() - cpu
    if run.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed: {run.stderr.strip()}")
    return elapsed, cpu, run.stdout


def trace_totals(trace, warmup):
    """(kernels' time per run, {op: time per run}, model_run's median) of onnxruntime-node's trace, read as
    Onyx reads its own: each kernel's own time (a body's kernels out of their Loop's or
    If's) added up within each measured run, its median over the runs, those added."""
    with open(trace) as f:
        events = json.load(f)
    runs = sorted((e["ts"], e["dur"]) for e in events if e.get("cat") == "Session" and e["name"] == "model_run")
    measured = runs[warmup:]
    kernels = sorted((e for e in events if e.get("cat") == "Node" and e["name"].endswith("_kernel_time")),
                     key=lambda e: (e["ts"], -e["dur"]))
    own = defaultdict(lambda: [0.0] * len(measured))
    op_of, holding = {}, []
    for e in kernels:
        run = next((r for r, (ts, dur) in enumerate(measured) if ts <= e["ts"] <= ts + dur), None)
        if run is None:
            continue
        while holding and e["ts"] >= holding[-1]["ts"] + holding[-1]["dur"]:
            holding.pop()
        key = (holding[-1]["name"] if holding else "", e["name"])
        if holding:  # a body's kernel: out of its holder's own time
            own[(holding[-2]["name"] if len(holding) > 1 else "", holding[-1]["name"])][run] -= e["dur"]
        own[key][run] += e["dur"]
        op_of[key] = e["args"]["op_name"]
        holding.append(e)
    ops = defaultdict(float)
    for key, per_run in own.items():
        ops[op_of[key]] += max(statistics.median(per_run), 0)
    return sum(ops.values()), ops, statistics.median(dur for _, dur in measured)


def accounted(report, expected):
    nodes = report["profile"]["nodes"]
    good = sum(1 for n in nodes if n["status"] in ("own", "fused", "folded") and
               ("kernel" in n) == (n["status"] != "folded"))
    return good, len(nodes), expected


def reader_speed(build, trace, work):
    """bench-profile-read on a trace of READER_EVENTS kernel events made from `trace`."""
    with open(trace) as f:
        events = json.load(f)
    runs = sorted((e for e in events if e["name"] == "model_run"), key=lambda e: e["ts"])
    first_end = runs[0]["ts"] + runs[0]["dur"]
    head = [e for e in events if e["ts"] < first_end]
    body = [e for e in events if e["ts"] >= first_end]
    span = max(e["ts"] + e["dur"] for e in body) - min(e["ts"] for e in body) + 10
    per_copy = sum(1 for e in body if e["name"].endswith("_kernel_time"))
    out, n, shift = list(head), 0, 0
    while n < READER_EVENTS:
        out.extend(dict(e, ts=e["ts"] + shift) for e in body)
        n += per_copy
        shift += span
    big = os.path.join(work, "big.json")
    with open(big, "w") as f:
        f.write("[\n" + ",\n".join(json.dumps(e) for e in out) + "\n]\n")
    _, _, text = timed([os.path.join(build, "bench", "bench-profile-read"), big, "1"])
    return n, json.loads(text)


def main():
    parser = argparse.ArgumentParser(usage=__doc__)
    parser.add_argument("build")
    parser.add_argument("models", nargs="+")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--opt-level", default="all")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    cli = os.path.join(args.build, "src", "cli", "onyx-cli")
    settings = ["--runs", str(args.runs), "--warmup", str(args.warmup), "--threads", str(args.threads),
                "--opt-level", args.opt_level]
    print(f"{args.runs} runs after {args.warmup} warm-up, optimizations {args.opt_level}, "
          f"threads {args.threads or 'default'}; best of {args.repeat}")
    print(f"{'model':24} {'onyx s':>7} {'node s':>7} {'ratio':>6} {'CPU':>5}  {'kernels/run onyx':>16} {'node':>9} {'diff':>6}  "
          f"{'top operator onyx':>24} {'node':>24}  {'run onyx':>9} {'node':>8} {'beyond':>8}  nodes")
    failures = 0
    first_trace = None
    work = tempfile.mkdtemp()
    try:
        for spec in args.models:
            path, _, dims = spec.partition("@")
            sizes = dict(d.split("=") for d in dims.split(",") if d)
            model = onnx.load(path)
            feeds = os.path.join(work, "feeds.json")
            with open(feeds, "w") as f:
                json.dump(feeds_of(model, sizes), f)
            dim_args = [a for d in sizes.items() for a in ("--dim", "=".join(d))]
            onyx_best = node_best = None
            onyx_cpu = node_cpu = float("inf")
            for r in range(args.repeat):
                elapsed, cpu, out = timed([cli, "run", path, "--profile", "--json", "--fill", "zeros", *settings,
                                           *dim_args])
                onyx_cpu = min(onyx_cpu, cpu)
                if onyx_best is None or elapsed < onyx_best[0]:
                    onyx_best = (elapsed, json.loads(out))
                trace_dir = os.path.join(work, f"node-{len(os.listdir(work))}-{r}")
                os.mkdir(trace_dir)
                elapsed, cpu, _ = timed(["node", os.path.join(HERE, "bench-profile.js"), path, feeds, str(args.runs),
                                         str(args.warmup), args.opt_level, str(args.threads), trace_dir])
                node_cpu = min(node_cpu, cpu)
                if node_best is None or elapsed < node_best[0]:
                    node_best = (elapsed, glob.glob(os.path.join(trace_dir, "*.json"))[0])
            report = onyx_best[1]
            profile = report["profile"]
            node_kernels, node_ops, node_run = trace_totals(node_best[1], args.warmup)
            first_trace = first_trace or node_best[1]
            node_top = max(node_ops, key=node_ops.get)
            node_share = node_ops[node_top] / sum(node_ops.values())
            onyx_top = report["operators"][0]
            diff = profile["kernels_us"] / node_kernels - 1
            good, listed, expected = accounted(report, node_count(model))
            ratio = onyx_best[0] / node_best[0]
            ok = (ratio <= 1.2, abs(diff) <= 0.3, onyx_top["op"] == node_top and
                  abs(onyx_top["share"] - node_share) <= 0.1, good == listed == expected)
            failures += not all(ok)
            print(f"{os.path.basename(path):24} {onyx_best[0]:7.2f} {node_best[0]:7.2f} {ratio:6.2f} "
                  f"{onyx_cpu / node_cpu:5.2f}  "
                  f"{profile['kernels_us'] / 1e3:13.2f} ms {node_kernels / 1e3:6.2f} ms {diff * 100:+5.0f} %  "
                  f"{onyx_top['op']:>15} {onyx_top['share'] * 100:5.1f} % {node_top:>15} {node_share * 100:5.1f} %  "
                  f"{profile['run_median_us'] / 1e3:6.2f} ms {node_run / 1e3:5.2f} ms {profile['overhead_us'] / 1e3:5.2f} ms  "
                  f"{good}/{expected} accounted"
                  + ("" if all(ok) else "   FAILS: " + ", ".join(
                      what for what, passed in zip(("ratio", "kernels", "top operator", "nodes"), ok) if not passed)))
        events, read = reader_speed(args.build, first_trace, work)
        print(f"trace reader: {events:,} kernel events, {read['megabytes']} MB: {read['seconds']:.3f} s wall, "
              f"{read['cpu_seconds']:.3f} s CPU (best of 5)")
        failures += read["cpu_seconds"] >= 0.2
    finally:
        shutil.rmtree(work)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
