#!/usr/bin/env python3
"""What the main thread did during the stalls bench-stalls found (run by hand).

    BENCH_STALLS_TRACE=1 xvfb-run -a perf record -k mono -F 2000 --call-graph dwarf \\
        -o stalls.data _build/bench/bench-stalls MODEL [PHASE...] 2> stalls.txt
    bench/stall-profile.py stalls.data stalls.txt [TOP]

Keeps only the bench's main thread's samples that fall inside a stall over 20 ms and prints,
per function, the share of those samples it was on the stack for (inclusive) and at
the top of (self)."""
import collections
import subprocess
import sys


def read_stalls(path):
    stalls = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[0] == "stall":
                stalls.append((float(parts[1]), float(parts[2])))
    return stalls


def samples(data):
    """Yields (pid, tid, time, [function, ...] innermost first) per sample."""
    out = subprocess.run(["perf", "script", "-i", data, "-F", "pid,tid,time,ip,sym"],
                         capture_output=True, text=True, check=True).stdout
    head, stack = None, []
    for line in out.splitlines() + [""]:
        if not line.strip():
            if head is not None:
                yield head + (stack,)
            head, stack = None, []
        elif head is None:
            ids, time = line.split()[0], line.split()[1].rstrip(":")
            pid, tid = ids.split("/")
            head = (int(pid), int(tid), float(time))
        else:
            fields = line.split(None, 1)
            stack.append(fields[1].split("+0x")[0] if len(fields) > 1 else "?")


def main():
    data, stall_file = sys.argv[1], sys.argv[2]
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    stalls = read_stalls(stall_file)
    inclusive, own = collections.Counter(), collections.Counter()
    counted = 0
    bench_pid = None  # the process perf started: its helper processes run beside it
    for pid, tid, time, stack in samples(data):
        bench_pid = bench_pid or pid
        if pid != bench_pid or tid != pid or not any(start <= time <= end for start, end in stalls):
            continue
        counted += 1
        own[stack[0] if stack else "?"] += 1
        for function in set(stack):
            inclusive[function] += 1
    print(f"{len(stalls)} stalls, {counted} main-thread samples in them")
    if counted == 0:
        sys.exit(1)
    for title, counter in (("inclusive", inclusive), ("self", own)):
        print(f"\n{title}:")
        for function, n in counter.most_common(top):
            print(f"{100 * n / counted:6.1f}%  {function}")


if __name__ == "__main__":
    main()
