#!/usr/bin/python3
"""Time and peak memory of `onyx-cli diff A B` next to `onyx-cli info A`, on a large
model against its own round trip (run by hand, not in the test suite).

usage: bench-diff.py ONYX_CLI [MODEL.onnx]   (default: a ~96 MiB model made with
tools/make-big-model.py in a temporary folder; /usr/bin/python3 for python3-onnx)

Each command runs RUNS times; the best wall time and the best peak RSS (ru_maxrss of
the child) are printed, with diff's ratio to info's."""
import os
import resource
import subprocess
import sys
import tempfile
import time

RUNS = 5
HERE = os.path.dirname(os.path.abspath(__file__))


def measure(argv):
    """(best seconds, best peak RSS in KiB) of RUNS runs of argv."""
    best_time, best_rss = None, None
    for _ in range(RUNS):
        pid = os.fork()
        if pid == 0:
            fd = os.open(os.devnull, os.O_WRONLY)
            os.dup2(fd, 1)
            os.execv(argv[0], argv)
        start = time.perf_counter()
        _, status, usage = os.wait4(pid, 0)
        elapsed = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) not in (0, 1):
            sys.exit("%s failed" % " ".join(argv))
        best_time = elapsed if best_time is None else min(best_time, elapsed)
        best_rss = usage.ru_maxrss if best_rss is None else min(best_rss, usage.ru_maxrss)
    return best_time, best_rss


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cli = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        if len(sys.argv) > 2:
            model = sys.argv[2]
        else:
            model = os.path.join(tmp, "big.onnx")
            subprocess.run(["/usr/bin/python3", os.path.join(HERE, "..", "tools", "make-big-model.py"), model, "88"],
                           check=True)
        trip = os.path.join(tmp, "roundtrip.onnx")
        subprocess.run([cli, "roundtrip", model, trip], check=True, stdout=subprocess.DEVNULL)
        size = os.path.getsize(model) / 1e6
        info = measure([cli, "info", model])
        diff = measure([cli, "diff", model, trip])
    print("model: %.1f MB, best of %d runs" % (size, RUNS))
    print("%-6s %8s %10s" % ("", "time", "peak RSS"))
    for name, (seconds, rss) in (("info", info), ("diff", diff)):
        print("%-6s %7.3fs %7.1f MB" % (name, seconds, rss / 1024))
    print("diff/info: time %.1fx, peak RSS %.1fx" % (diff[0] / info[0], diff[1] / info[1]))


if __name__ == "__main__":
    main()
