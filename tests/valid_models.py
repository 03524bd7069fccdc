#!/usr/bin/python3
"""False findings of `onyx-cli check` on models known to be valid: every error or
warning other than the true findings valid models can still have (nodes whose result
reaches no output, initializers nothing reads).

Debian's libonnx-testdata (opsets 7–17) is checked by tests/test_diagnose.py. ONNX's
own operator test models, valid by construction, are checked by hand against a build
of Onyx on a newer ONNX (docs/onnx-versions.md):

    tests/valid_models.py _build-122/src/cli/onyx-cli onnx/backend/test/data/node [--full]

prints each false finding and a count, and exits 1 when there is any."""
import glob
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

# Findings that are true of valid models too: ONNX's expanded test models keep the
# Constant and Shape nodes their function bodies made and did not use.
TRUE_FINDINGS = {"dead-node", "unused-initializer"}


def model_paths(root):
    return sorted(glob.glob(os.path.join(root, "**", "model.onnx"), recursive=True))


def check_one(cli, path, full):
    """(path, exit status, report or None, stderr)."""
    run = subprocess.run([cli, "check", path, "--json"] + (["--full"] if full else []),
                         capture_output=True, text=True, timeout=300)
    report = json.loads(run.stdout) if run.returncode in (0, 1) else None
    return path, run.returncode, report, run.stderr


def false_findings(cli, paths, full=False):
    """(number of models checked, [(path, message)] of findings that should not be)."""
    checked = 0
    false = []
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for path, status, report, stderr in pool.map(lambda p: check_one(cli, p, full), paths):
            if report is None:
                false.append((path, "exit %d: %s" % (status, stderr.strip())))
                continue
            checked += 1
            for problem in report["problems"]:
                if problem["severity"] in ("error", "warning") and problem["kind"] not in TRUE_FINDINGS:
                    false.append((path, "%s %s: %s" % (problem["severity"], problem["kind"], problem["message"])))
    return checked, false


def main():
    if len(sys.argv) < 3 or sys.argv[3:] not in ([], ["--full"]):
        print(__doc__, file=sys.stderr)
        return 2
    paths = model_paths(sys.argv[2])
    checked, false = false_findings(sys.argv[1], paths, full=sys.argv[3:] == ["--full"])
    for path, message in false:
        print("%s: %s" % (os.path.relpath(path, sys.argv[2]), message))
    print("%d models checked, %d false findings" % (checked, len(false)))
    return 1 if false or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
