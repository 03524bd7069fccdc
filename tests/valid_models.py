#!/usr/bin/python3
"""False problems of `onyx-cli check` on models known to be valid: every error or
warning other than the true problems valid models can still have (nodes whose result
reaches no output, initializers nothing reads).

Debian's libonnx-testdata (opsets 7–17) is checked by tests/test_diagnose.py. ONNX's
own operator test models, valid by construction, are checked by hand against a build
of Onyx on a newer ONNX (docs/onnx-versions.md):

    tests/valid_models.py _build-122/src/cli/onyx-cli onnx/backend/test/data/node [--full]

prints each false problem and a count, and exits 1 when there is any."""
import glob
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

# Problems that are true of valid models too: ONNX's expanded test models keep the
# Constant and Shape nodes their function bodies made and did not use.
TRUE_FINDINGS = {"dead-node", "unused-initializer"}


def model_paths(root):
    return sorted(glob.glob(os.path.join(root, "**", "model.onnx"), recursive=True))


# Models per `onyx-cli check` process: one process per model was ~1,200 processes for
# Debian's corpus, most of the sweep's time on a busy machine.
CHUNK = 64


def check_chunk(cli, paths, full):
    """[(path, report or None, why not)] for paths, in one onyx-cli process."""
    run = subprocess.run([cli, "check", "--json"] + (["--full"] if full else []) + paths,
                         capture_output=True, text=True, timeout=600)
    if run.returncode not in (0, 1, 3):
        return [(path, None, "exit %d: %s" % (run.returncode, run.stderr.strip())) for path in paths]
    reports = json.loads(run.stdout)
    if len(paths) == 1:
        reports = [reports]
    assert len(reports) == len(paths), (len(reports), len(paths))
    return [(path, None if "error" in report else report, report.get("error"))
            for path, report in zip(paths, reports)]


def false_problems(cli, paths, full=False):
    """(number of models checked, [(path, message)] of problems that should not be)."""
    checked = 0
    false = []
    chunks = [paths[i:i + CHUNK] for i in range(0, len(paths), CHUNK)]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for results in pool.map(lambda chunk: check_chunk(cli, chunk, full), chunks):
            for path, report, why in results:
                if report is None:
                    false.append((path, why))
                    continue
                checked += 1
                for problem in report["problems"]:
                    if problem["severity"] in ("error", "warning") and problem["kind"] not in TRUE_FINDINGS:
                        false.append((path, "%s %s: %s" % (problem["severity"], problem["kind"],
                                                           problem["message"])))
    return checked, false


def main():
    if len(sys.argv) < 3 or sys.argv[3:] not in ([], ["--full"]):
        print(__doc__, file=sys.stderr)
        return 2
    paths = model_paths(sys.argv[2])
    checked, false = false_problems(sys.argv[1], paths, full=sys.argv[3:] == ["--full"])
    for path, message in false:
        print("%s: %s" % (os.path.relpath(path, sys.argv[2]), message))
    print("%d models checked, %d false problems" % (checked, len(false)))
    return 1 if false or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
