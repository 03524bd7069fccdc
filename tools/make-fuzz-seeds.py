#!/usr/bin/python3
"""Writes the seeds of the fuzzers of what Run reads (tests/fuzz/seeds/):

fuzz-array: .npy and .npz files as numpy writes them (python3-numpy): several dtypes,
  a 0-d array, an empty one, Fortran order, big-endian, format versions 2.0 and 3.0,
  stored and deflated archives, and a small cut of tests/data/model_foo.npz.
fuzz-wire: requests and results of real runs of onyx-cli on small test models,
  captured on their way to and from Onyx's helper, each behind the byte that tells
  fuzz-wire.c what it is (0 request, 1 result, 2 the helper's whole input, 3 the app's).
  To capture them this script stands in for the helper (ONYX_ONNX_HELPER names it),
  starts the real one and passes every byte along, keeping a copy. Needs a build with
  ONNX Runtime.

usage: make-fuzz-seeds.py BUILD_DIR OUT_DIR   (run with /usr/bin/python3, from the source root)"""
import os
import select
import socket
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

JOB_RUN = 3  # ONYX_ONNX_JOB_RUN of onyx-onnx.h
NONE = (1 << 64) - 1  # a part's length that says "no part"


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def array_seeds(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(0)
    np.save(os.path.join(out, "float32-2x3.npy"), np.arange(6, dtype="<f4").reshape(2, 3))
    np.save(os.path.join(out, "int64-big-endian.npy"), np.array([1, -2, 3 << 40], dtype=">i8"))
    np.save(os.path.join(out, "float64-fortran.npy"), np.asfortranarray(rng.standard_normal((3, 2))))
    np.save(os.path.join(out, "int16-0d.npy"), np.array(-7, dtype="<i2"))
    np.save(os.path.join(out, "uint8-empty.npy"), np.zeros((0, 4), dtype="u1"))
    np.save(os.path.join(out, "bool-2x2.npy"), np.array([[True, False], [False, True]]))
    np.save(os.path.join(out, "float16-nan-inf.npy"), np.array([0.5, np.nan, -np.inf, 65504], dtype="<f2"))
    with open(os.path.join(out, "uint32-version-2.npy"), "wb") as f:
        np.lib.format.write_array(f, np.arange(5, dtype="<u4"), version=(2, 0))
    with open(os.path.join(out, "int8-fortran-version-3.npy"), "wb") as f:
        np.lib.format.write_array(f, np.asfortranarray(np.arange(-3, 3, dtype="i1").reshape(2, 3)),
                                  version=(3, 0))
    np.savez(os.path.join(out, "stored.npz"), ids=np.array([[1, 2, 3]], dtype="<i4"),
             mask=np.ones((1, 3), dtype="<u2"))
    np.savez_compressed(os.path.join(out, "deflated.npz"), x=np.linspace(0, 1, 7),
                        big=np.array([2 ** 63], dtype=">u8"), scalar=np.float32(3.5))
    # model_foo.npz's entries, names and dtypes, cut small.
    with np.load("tests/data/model_foo.npz") as foo:
        np.savez_compressed(os.path.join(out, "model_foo-cut.npz"), input=foo["input"][:1, :1, :4, :4],
                            output=foo["output"][:1, :2, :3, :3])


def relay():
    """Stands in for the helper: fd 3 is the app's socket. Starts the real helper on
    a socket of its own and passes bytes both ways, keeping copies."""
    capture = os.environ["ONYX_SEED_CAPTURE"]
    app = socket.socket(fileno=os.dup(3))
    ours, theirs = socket.socketpair()  # while fd 3 is taken: neither gets it
    os.dup2(theirs.fileno(), 3)
    helper = subprocess.Popen([os.environ["ONYX_SEED_REAL_HELPER"]], pass_fds=(3,))
    os.close(3)
    theirs.close()
    stem = os.path.join(capture, str(os.getpid()))
    copies = {app: open(stem + ".jobs.part", "wb"), ours: open(stem + ".answers.part", "wb")}
    other = {app: ours, ours: app}
    open_ends = [app, ours]
    while open_ends:
        for end in select.select(open_ends, [], [])[0]:
            data = end.recv(1 << 16)
            if not data:
                open_ends.remove(end)
                other[end].shutdown(socket.SHUT_WR)
                continue
            copies[end].write(data)
            other[end].sendall(data)
    for f in copies.values():
        f.close()
        os.rename(f.name, f.name[:-len(".part")])
    return helper.wait()


def parts(stream, at, n):
    """n length-prefixed parts from stream[at:]: (parts, where they end)."""
    found = []
    for _ in range(n):
        (length,) = struct.unpack_from("=Q", stream, at)
        at += 8
        if length == NONE:
            found.append(None)
        else:
            found.append(stream[at:at + length])
            at += length
    return found, at


def split(jobs, answers):
    """The jobs of one helper and its answers, in order: [(kind, input, result, text)]."""
    exchanges, at_job, at_answer = [], 0, 0
    while at_job < len(jobs):
        kind, _argument, length = struct.unpack_from("=QqQ", jobs, at_job)
        at_job += 24
        job_input = jobs[at_job:at_job + length]
        at_job += length
        (result, text), at_answer = parts(answers, at_answer, 2)
        exchanges.append((kind, job_input, result, text))
    return exchanges


def wire_seeds(build, out):
    os.makedirs(out, exist_ok=True)
    data = os.path.abspath("tests/data")
    runs = {
        "control-if": ["control_if.onnx"],
        "kept-nonfinite": ["local_function.onnx", "--all", "--save", "@tmp/kept.npz", "--range=-1e39,1e39",
                           "--allow-nonfinite"],
        "compared-models": ["function_modules.onnx", "--all", "--compare",
                            os.path.join(data, "function_modules.onnx"), "--dim", "N=2"],
        "reference": ["control_if.onnx", "--compare", "@tmp/reference.npz"],
        "refused": ["function_modules.onnx", "--compare", os.path.join(data, "dynamo_metadata.onnx")],
    }
    # Whole streams of these; of the others, the request and result alone.
    framed = {"reference", "refused"}
    with tempfile.TemporaryDirectory() as tmp:
        capture = os.path.join(tmp, "capture")
        os.mkdir(capture)
        # y of the wrong shape beside x of the right one: a delta and a mismatch.
        np.savez(os.path.join(tmp, "reference.npz"), y=np.zeros((1, 3, 8, 8), dtype="<f4"),
                 x=np.zeros((2,), dtype="<f4"))
        env = dict(os.environ, ONYX_ONNX_HELPER=os.path.abspath(__file__), ONYX_SEED_CAPTURE=capture,
                   ONYX_SEED_REAL_HELPER=os.path.abspath(os.path.join(build, "src/helper/onyx-onnx-helper")))
        for name, args in runs.items():
            args = [a.replace("@tmp", tmp) for a in args]
            subprocess.run([os.path.join(build, "src/cli/onyx-cli"), "run", os.path.join(data, args[0])] + args[1:],
                           env=env, stdout=subprocess.DEVNULL)
            # The stand-ins finish their copies once onyx-cli has closed their sockets.
            while any(f.endswith(".part") for f in os.listdir(capture)):
                time.sleep(0.05)
            for stem in sorted({f.rsplit(".", 1)[0] for f in os.listdir(capture)}):
                with open(os.path.join(capture, stem + ".jobs"), "rb") as f:
                    jobs = f.read()
                with open(os.path.join(capture, stem + ".answers"), "rb") as f:
                    answers = f.read()
                exchanges = split(jobs, answers)
                if exchanges and all(kind == JOB_RUN for kind, _, _, _ in exchanges):
                    if name in framed:
                        write(os.path.join(out, name + "-jobs"), b"\x02" + jobs)
                        write(os.path.join(out, name + "-answers"), b"\x03" + answers)
                    for kind, job_input, result, _text in exchanges:
                        write(os.path.join(out, name + "-request"), b"\x00" + job_input)
                        if result is not None:
                            write(os.path.join(out, name + "-result"), b"\x01" + result)
                os.remove(os.path.join(capture, stem + ".jobs"))
                os.remove(os.path.join(capture, stem + ".answers"))


def main():
    if "ONYX_SEED_CAPTURE" in os.environ:
        sys.exit(relay())
    build, out = sys.argv[1:3]
    array_seeds(os.path.join(out, "fuzz-array"))
    wire_seeds(build, os.path.join(out, "fuzz-wire"))


if __name__ == "__main__":
    main()
