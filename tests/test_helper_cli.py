#!/usr/bin/python3
"""No helper process outlives onyx-cli: the commands that run ONNX's library in Onyx's
helper (check, nodes, render, edit --infer-shapes) wait for it before they exit, and
on SIGINT or SIGTERM end it, then themselves.

This test process makes itself a child subreaper (prctl), so that a helper orphaned by
onyx-cli, running or a zombie, becomes its child, where it can be seen. The helper is
started through a wrapper (ONYX_ONNX_HELPER) that writes its process id down and then
becomes the real helper, so that each check is known to have had a helper to check."""
import ctypes
import os
import signal
import subprocess
import tempfile
import time
import unittest

from onyx_test import CLI, data

PR_SET_CHILD_SUBREAPER = 36
HELPER = os.path.join(os.path.dirname(os.path.dirname(CLI)), "helper", "onyx-onnx-helper")
# Writes its pid to $ONYX_TEST_HELPER_PIDS, then is the helper (same process), or with
# $ONYX_TEST_HELPER_SLOW sleeps instead, as a long job would keep it.
WRAPPER = """#!/usr/bin/python3
import os, sys, time
with open(os.environ["ONYX_TEST_HELPER_PIDS"], "a") as f:
    f.write("%d\\n" % os.getpid())
if os.environ.get("ONYX_TEST_HELPER_SLOW"):
    time.sleep(60)
os.execv(os.environ["ONYX_TEST_REAL_HELPER"], [os.environ["ONYX_TEST_REAL_HELPER"]])
"""


def children():
    """The processes whose parent is this one (reparented ones included), with their
    state: R, S, Z…"""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                stat = f.read()
        except OSError:
            continue
        # "pid (comm) state ppid …": comm may hold spaces and parentheses.
        state, ppid = stat[stat.rindex(")") + 2:].split()[:2]
        # The sanitizers' symbolizer, started to match a leak against the suppressions
        # of an ASan build, is left behind by design: not a helper.
        if stat[stat.index("(") + 1:stat.rindex(")")] == "llvm-symbolizer":
            continue
        if int(ppid) == os.getpid():
            found[int(entry)] = state
    return found


def reap_all():
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG) == (0, 0):
                return
        except ChildProcessError:
            return


class HelperOutlivesNothing(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")
        assert os.access(HELPER, os.X_OK), HELPER

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.pids = os.path.join(self.tmp.name, "helper-pids")
        wrapper = os.path.join(self.tmp.name, "helper")
        with open(wrapper, "w") as f:
            f.write(WRAPPER)
        os.chmod(wrapper, 0o755)
        self.env = dict(os.environ, ONYX_ONNX_HELPER=wrapper, ONYX_TEST_HELPER_PIDS=self.pids,
                        ONYX_TEST_REAL_HELPER=HELPER)
        reap_all()
        self.assertEqual(children(), {})

    def tearDown(self):
        reap_all()
        self.tmp.cleanup()

    def helpers_started(self):
        if not os.path.exists(self.pids):
            return []
        with open(self.pids) as f:
            return [int(line) for line in f]

    def test_commands_wait_for_their_helper(self):
        out = os.path.join(self.tmp.name, "out.onnx")
        commands = [["check", data("model.onnx")], ["nodes", data("model_foo.onnx"), "--json"],
                    ["edit", data("model.onnx"), "-o", out, "--infer-shapes"],
                    ["render", data("control_if.onnx"), "-o", os.path.join(self.tmp.name, "if.svg")],
                    ["check", data("llm_tiny.onnx"), data("model.onnx"), "--full"]]
        for n, args in enumerate(commands, 1):
            run = subprocess.run([CLI, *args], capture_output=True, text=True, env=self.env, timeout=120)
            self.assertEqual(run.returncode, 0, (args, run.stderr))
            # Looked at before anything reaps them: an orphaned helper would be ours now.
            self.assertEqual(children(), {}, args)
            self.assertGreaterEqual(len(self.helpers_started()), n, args)
        for pid in self.helpers_started():
            self.assertFalse(os.path.exists("/proc/%d" % pid), pid)

    def test_signals_end_the_helper_first(self):
        for number in (signal.SIGTERM, signal.SIGINT):
            env = dict(self.env, ONYX_TEST_HELPER_SLOW="1")
            before = len(self.helpers_started())
            process = subprocess.Popen([CLI, "check", data("model.onnx")], env=env, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.PIPE)
            deadline = time.monotonic() + 60
            while len(self.helpers_started()) == before and time.monotonic() < deadline:
                time.sleep(0.01)
            helper = self.helpers_started()[before]
            # onyx-cli waits on its busy helper; it is told to end.
            process.send_signal(number)
            self.assertEqual(process.wait(timeout=30), -number, process.stderr.read())
            process.stderr.close()
            self.assertEqual(children(), {}, number)
            self.assertFalse(os.path.exists("/proc/%d" % helper), number)


if __name__ == "__main__":
    unittest.main(verbosity=2)
