#!/usr/bin/python3
"""Simplify (`onyx-cli edit MODEL -o OUT --simplify --json`) against ONNX Runtime's basic
graph optimizer on the same files, measured in the same run (by hand, not in the test
suite; onnxruntime-node from tests/npm, `npm install --ignore-scripts` there).

usage: bench-simplify.py [--cli ONYX_CLI] [--runs N] [--dim NAME=SIZE]... [--keep]
                         MODEL.onnx|DIR...

A DIR stands for the default set under it (those present; docs/performance.md says how
each is made): transformer_24.onnx, transformer_96.onnx, speech2text2_inlined.onnx,
paddle_det.onnx, vad.onnx, phi3/model.onnx. --dim (as `onyx-cli run --dim`) sizes the
inputs of the check run of the models given by name; the default set's own sizes are
built in (and the VAD is checked at both sample rates, one run per branch). --keep
leaves the results: Onyx's beside each model (.NAME.bench-simplify.onnx, so that its
external data is shared, not copied), ONNX Runtime's in a folder the bench names.

Each model is simplified by Onyx and optimized by ONNX Runtime N times (default 3),
the two alternating; times are medians with their range. For each:
- Onyx: the whole onyx-cli process, wall time and peak RSS (GNU time's: the largest of
  onyx-cli and the helpers it waits for), the proof in ONNX Runtime included; its
  JSON report (verdict, its own timing);
- ONNX Runtime: onnxruntime-node's session creation with graphOptimizationLevel
  'basic' and optimizedModelFilePath (bench-simplify.js), and the node process;
- nodes of the three files counted alike, nodes of If/Loop/Scan bodies included;
- then Onyx's simplified file is checked: `onyx-cli check` finds no error in it,
  onnxruntime-node loads it, and `onyx-cli run SIMPLIFIED --compare ORIGINAL` (random
  inputs, as Run makes them) exits 0. Models with weights over Simplify's proof budget
  (2 GiB) are not run.
Prints a markdown table (stdout; progress on stderr)."""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
TIME = "/usr/bin/time"
PROOF_BUDGET = 2 << 30
# The default set: file under DIR, name in the table, the check runs (each: --dim
# arguments, and int64 scalar inputs given, the others made at random).
DEFAULT_SET = [
    ("transformer_24.onnx", "TorchScript transformer_24", [([], {})]),
    ("transformer_96.onnx", "TorchScript transformer_96", [([], {})]),
    ("speech2text2_inlined.onnx", "dynamo Speech2Text2, inlined", [([], {})]),
    ("paddle_det.onnx", "paddle2onnx-style detector", [(["x:2=224", "x:3=224"], {})]),
    # Each branch of the If: 16 kHz and 8 kHz.
    ("vad.onnx", "VAD with If branches", [(["samples=512"], {"sr": 16000}), (["samples=512"], {"sr": 8000})]),
    ("phi3/model.onnx", "Phi-3-sized LLM, 2.7 GB external", [([], {})]),
]
ANCHORS = """Anchors: onnx-simplifier's issue #543 measured a median node reduction of about 20 % over
88 ONNX model-zoo models. ONNX Runtime's basic optimizer on the models issue 44 names
(nodes of subgraphs included): TorchScript transformer_24 3,183 → 1,848, ir-py's inlined
dynamo Speech2Text2 1,255 → 539, PaddleOCR det 672 → 328, Silero VAD v5 689 → 224."""


def graphs_of(graph):
    yield graph
    for node in graph.node:
        for attr in node.attribute:
            if attr.HasField("g"):
                yield from graphs_of(attr.g)
            for sub in attr.graphs:
                yield from graphs_of(sub)


def count_nodes(path):
    """(nodes, Constant nodes, bytes of initializers), every graph of the model."""
    model = onnx.load(path, load_external_data=False)
    nodes = constants = 0
    for graph in graphs_of(model.graph):
        nodes += len(graph.node)
        constants += sum(n.op_type == "Constant" and n.domain in ("", "ai.onnx") for n in graph.node)
    weights = 0
    for tensor in model.graph.initializer:
        dtype = onnx.mapping.TENSOR_TYPE_TO_NP_TYPE.get(tensor.data_type)
        weights += int(np.prod(tensor.dims, dtype=np.int64)) * (np.dtype(dtype).itemsize if dtype else 0)
    return nodes, constants, weights


def run(argv, what):
    """(wall seconds, CPU seconds, peak RSS in bytes, stdout) of a process and the
    children it waited for; exits naming `what` when it fails."""
    with tempfile.NamedTemporaryFile("r") as usage:
        start = time.perf_counter()
        done = subprocess.run([TIME, "-f", "%U %S %M", "-o", usage.name] + argv, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        if done.returncode != 0:
            sys.exit(f"{what} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
        user, system, rss = usage.read().split()[-3:]
    return elapsed, float(user) + float(system), int(rss) * 1024, done.stdout


def spread(values, unit="s", digits=2):
    """'0.41 s (0.39–0.47)': the median and the range."""
    med = statistics.median(values)
    if len(values) == 1 or min(values) == max(values):
        return f"{med:.{digits}f} {unit}"
    return f"{med:.{digits}f} {unit} ({min(values):.{digits}f}–{max(values):.{digits}f})"


def measure(cli, model, label, checks, runs, work, keep):
    stem = os.path.splitext(os.path.basename(model))[0]
    # Onyx writes beside the model, so that external data is referenced, not copied along.
    onyx_out = os.path.join(os.path.dirname(os.path.abspath(model)), f".{stem}.bench-simplify.onnx")
    ort_out = os.path.join(work, f"{stem}.ort.onnx")
    onyx = {"wall": [], "cpu": [], "rss": [], "reports": []}
    ort = {"create": [], "wall": [], "cpu": [], "rss": []}

    def run_onyx():
        elapsed, cpu, rss, out = run([cli, "edit", model, "-o", onyx_out, "--simplify", "--json"],
                                     f"onyx-cli on {label}")
        onyx["reports"].append(next(s["simplify"] for s in json.loads(out) if s.get("step") == "simplify"))
        for key, value in (("wall", elapsed), ("cpu", cpu), ("rss", rss)):
            onyx[key].append(value)

    def run_ort():
        elapsed, cpu, rss, out = run(["node", os.path.join(HERE, "bench-simplify.js"), model, ort_out],
                                     f"onnxruntime-node on {label}")
        for key, value in (("create", json.loads(out)["create"]), ("wall", elapsed), ("cpu", cpu), ("rss", rss)):
            ort[key].append(value)

    for i in range(runs):
        print(f"{label}: run {i + 1} of {runs}", file=sys.stderr)
        for side in ((run_onyx, run_ort) if i % 2 == 0 else (run_ort, run_onyx)):
            side()

    before, constants_before, weights = count_nodes(model)
    onyx_after, constants_after, _ = count_nodes(onyx_out)
    ort_after, _, _ = count_nodes(ort_out)
    report = onyx["reports"][-1]
    if report["nodes_before"] != before or report["nodes_after"] != onyx_after:
        sys.exit(f"{label}: Onyx counted {report['nodes_before']} → {report['nodes_after']} nodes, "
                 f"this bench {before} → {onyx_after}")
    checked = check(cli, model, onyx_out, label, checks, weights, work)
    if not keep:
        for path in (onyx_out, onyx_out + ".data"):
            if os.path.exists(path):
                os.unlink(path)
    return {
        "label": label, "before": before, "onyx_after": onyx_after, "ort_after": ort_after,
        "constants": (constants_before, constants_after), "onyx": onyx, "ort": ort, "report": report,
        "checks": checked,
    }


def check(cli, model, simplified, label, checks, weights, work):
    """What is checked of Onyx's file, as a short text; exits when a check fails."""
    found = subprocess.run([cli, "check", simplified, "--json"], capture_output=True, text=True)
    verdict = json.loads(found.stdout) if found.stdout.strip() else None
    if verdict is None or verdict["errors"] > 0:
        sys.exit(f"{label}: onyx-cli check finds errors in the simplified model: "
                 f"{verdict['problems'][:3] if verdict else found.stderr.strip()}")
    loaded = subprocess.run(["node", os.path.join(HERE, "bench-simplify.js"), simplified], capture_output=True,
                            text=True)
    if loaded.returncode != 0:
        sys.exit(f"{label}: onnxruntime-node cannot load the simplified model: {loaded.stderr.strip()}")
    if weights > PROOF_BUDGET:
        return "checks clean, loads; not run (weights over 2 GiB)"
    for dims, inputs in checks:
        argv = [cli, "run", simplified, "--compare", model] + [arg for d in dims for arg in ("--dim", d)]
        for name, value in inputs.items():
            path = os.path.join(work, f"{name}.npy")
            np.save(path, np.array(value, dtype=np.int64))
            argv += ["--random", "0", "--input", f"{name}={path}"]
        compare = subprocess.run(argv, capture_output=True, text=True)
        if compare.returncode != 0:
            sys.exit(f"{label}: {' '.join(argv[1:])} exits {compare.returncode}: "
                     f"{(compare.stderr or compare.stdout).strip()[-2000:]}")
    return "checks clean, loads, outputs equal" + (f" ({len(checks)} runs)" if len(checks) > 1 else "")


def reduction(before, after):
    return f"{after:,} (−{100 * (before - after) / before:.0f} %)" if before else f"{after:,}"


def table(rows, runs):
    print("| model | nodes | Onyx after | ORT after | Constant nodes | Onyx | ORT basic | Onyx/ORT "
          "| peak RSS, Onyx / ORT | verdict |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    median = statistics.median
    for r in rows:
        onyx, ort = r["onyx"], r["ort"]
        print(f"| {r['label']} | {r['before']:,} | {reduction(r['before'], r['onyx_after'])} "
              f"| {reduction(r['before'], r['ort_after'])} | {r['constants'][0]:,} → {r['constants'][1]:,} "
              f"| {spread(onyx['wall'])}, CPU {median(onyx['cpu']):.2f} s "
              f"| {spread(ort['create'])}; node {median(ort['wall']):.2f} s, CPU {median(ort['cpu']):.2f} s "
              f"| {median(onyx['wall']) / median(ort['create']):.2f}× (CPU {median(onyx['cpu']) / median(ort['cpu']):.2f}×) "
              f"| {median(onyx['rss']) / 2 ** 20:,.0f} / {median(ort['rss']) / 2 ** 20:,.0f} MB "
              f"| {r['report']['verdict']} |")
    print(f"""
{runs} run(s) each, alternating; medians (range). Onyx: the whole `onyx-cli edit --simplify --json`
process, the proof included, and its CPU time (user and system, its helpers included). ORT basic:
onnxruntime-node's session creation (graphOptimizationLevel 'basic', optimizedModelFilePath), the
whole node process and its CPU time. Onyx/ORT: Onyx's process against ORT's session creation (the
goal: at most 1.5×), and the CPU times of both processes. Nodes of subgraphs counted.
""")
    for r in rows:
        rep = r["report"]
        passes = ", ".join(f"{p['name']} −{p['nodes_removed']}+{p['nodes_added']} ({p['seconds']:.2f} s)"
                           + (" refused" if p.get("refused") else "") for p in rep["passes"])
        print(f"- {r['label']}: {r['checks']}. Simplify {rep['seconds']:.2f} s, of which the proof "
              f"{rep['proof_seconds']:.2f} s; {rep['rounds']} round(s): {passes}. {rep.get('proof') or ''}")
    print("\n" + ANCHORS)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("models", nargs="+", metavar="MODEL.onnx|DIR")
    parser.add_argument("--cli", default=os.path.join(HERE, "..", "_build", "src", "cli", "onyx-cli"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dim", action="append", default=[], metavar="NAME=SIZE")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    if not os.access(TIME, os.X_OK):
        sys.exit(f"{TIME} is missing: apt-get install time")
    cli = os.path.abspath(args.cli)
    todo = []
    for given in args.models:
        if os.path.isdir(given):
            for name, label, checks in DEFAULT_SET:
                path = os.path.join(given, name)
                if os.path.exists(path):
                    todo.append((path, label, checks))
                else:
                    print(f"{path} is missing: left out (docs/performance.md says how it is made)", file=sys.stderr)
        else:
            todo.append((given, os.path.splitext(os.path.basename(given))[0], [(args.dim, {})]))
    if not todo:
        sys.exit("no models to measure")
    work = tempfile.mkdtemp(prefix="bench-simplify-")
    try:
        rows = [measure(cli, path, label, checks, args.runs, work, args.keep) for path, label, checks in todo]
    finally:
        if args.keep:
            print(f"ONNX Runtime's results are in {work}", file=sys.stderr)
        else:
            shutil.rmtree(work)
    table(rows, args.runs)


if __name__ == "__main__":
    main()
