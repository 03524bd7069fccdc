#!/usr/bin/python3
"""Writes the seeds of the fuzzers of what Run reads (tests/fuzz/seeds/):

fuzz-array: .npy and .npz files as numpy writes them (python3-numpy): several dtypes,
  a 0-d array, an empty one, Fortran order, big-endian, format versions 2.0 and 3.0,
  stored and deflated archives, and a small cut of tests/data/model_foo.npz.
fuzz-wire: requests and results of real runs of onyx-cli on small test models,
  captured on their way to and from Onyx's helper, each behind the byte that tells
  fuzz-wire.c what it is (0 request, 1 result, 2 the helper's whole input, 3 the app's).
  To capture them this script stands in for the helper (ONYX_ONNX_HELPER names it),
  starts the real one (onyx-ort-helper) and passes every byte and memory file along,
  keeping a copy. In the whole streams, a part that crossed in a memory file is
  written on the stream instead, as a file cannot pass one. Needs a build with ONNX
  Runtime.

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
REQUEST = struct.Struct("=Qq")  # a job's kind and argument (onyx-onnx-private.h)
PART = struct.Struct("=QQ")  # a part's length, and whether its bytes are in a memory file


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
    a socket of its own and passes bytes and memory files both ways, keeping copies
    (a memory file's bytes, each after its length, in a file of their own)."""
    capture = os.environ["ONYX_SEED_CAPTURE"]
    app = socket.socket(fileno=os.dup(3))
    ours, theirs = socket.socketpair()  # while fd 3 is taken: neither gets it
    os.dup2(theirs.fileno(), 3)
    helper = subprocess.Popen([os.environ["ONYX_SEED_REAL_HELPER"]], pass_fds=(3,))
    os.close(3)
    theirs.close()
    stem = os.path.join(capture, str(os.getpid()))
    copies = {app: open(stem + ".jobs.part", "wb"), ours: open(stem + ".answers.part", "wb")}
    files = {app: open(stem + ".jobs-files.part", "wb"), ours: open(stem + ".answers-files.part", "wb")}
    other = {app: ours, ours: app}
    open_ends = [app, ours]
    while open_ends:
        for end in select.select(open_ends, [], [])[0]:
            data, fds, _flags, _address = socket.recv_fds(end, 1 << 16, 1)
            if not data:
                open_ends.remove(end)
                other[end].shutdown(socket.SHUT_WR)
                continue
            copies[end].write(data)
            for fd in fds:
                contents = os.pread(fd, os.fstat(fd).st_size, 0)
                files[end].write(struct.pack("=Q", len(contents)) + contents)
            sent = socket.send_fds(other[end], [data], fds) if fds else 0
            other[end].sendall(data[sent:])
            for fd in fds:
                os.close(fd)
    for f in list(copies.values()) + list(files.values()):
        f.close()
        os.rename(f.name, f.name[:-len(".part")])
    return helper.wait()


def memory_files(copy):
    """The memory files' bytes kept by relay(), in the order they came."""
    found, at = [], 0
    while at < len(copy):
        (length,) = struct.unpack_from("=Q", copy, at)
        found.append(copy[at + 8:at + 8 + length])
        at += 8 + length
    return found


class Stream:
    """What one side sent, read part by part; `inline` is the same with every part on
    the stream, as fuzz-wire.c reads it from a file."""

    def __init__(self, data, files):
        self.data, self.files, self.at, self.inline = data, files, 0, bytearray()

    def more(self):
        return self.at < len(self.data)

    def fixed(self, layout):
        values = layout.unpack_from(self.data, self.at)
        self.inline += self.data[self.at:self.at + layout.size]
        self.at += layout.size
        return values

    def part(self):
        length, in_file = PART.unpack_from(self.data, self.at)
        self.at += PART.size
        if length == NONE:
            self.inline += PART.pack(NONE, 0)
            return None
        if in_file:
            found = self.files.pop(0)
        else:
            found = self.data[self.at:self.at + length]
            self.at += length
        assert len(found) == length
        self.inline += PART.pack(length, 0) + found
        return found


def split(jobs, answers):
    """The jobs of one helper and its answers, in order: [(kind, input, result, text)]."""
    exchanges = []
    while jobs.more():
        kind, _argument = jobs.fixed(REQUEST)
        job_input = jobs.part()
        result, text = answers.part(), answers.part()
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
                   ONYX_SEED_REAL_HELPER=os.path.abspath(os.path.join(build, "src/helper/onyx-ort-helper")))
        for name, args in runs.items():
            args = [a.replace("@tmp", tmp) for a in args]
            subprocess.run([os.path.join(build, "src/cli/onyx-cli"), "run", os.path.join(data, args[0])] + args[1:],
                           env=env, stdout=subprocess.DEVNULL)
            # The stand-ins finish their copies once onyx-cli has closed their sockets.
            while any(f.endswith(".part") for f in os.listdir(capture)):
                time.sleep(0.05)
            for stem in sorted({f.rsplit(".", 1)[0] for f in os.listdir(capture)}):
                sides = {}
                for side in ("jobs", "answers"):
                    with open(os.path.join(capture, stem + "." + side), "rb") as f:
                        sent = f.read()
                    with open(os.path.join(capture, stem + "." + side + "-files"), "rb") as f:
                        sides[side] = Stream(sent, memory_files(f.read()))
                    os.remove(os.path.join(capture, stem + "." + side))
                    os.remove(os.path.join(capture, stem + "." + side + "-files"))
                exchanges = split(sides["jobs"], sides["answers"])
                if exchanges and all(kind == JOB_RUN for kind, _, _, _ in exchanges):
                    if name in framed:
                        write(os.path.join(out, name + "-jobs"), b"\x02" + sides["jobs"].inline)
                        write(os.path.join(out, name + "-answers"), b"\x03" + sides["answers"].inline)
                    for kind, job_input, result, _text in exchanges:
                        write(os.path.join(out, name + "-request"), b"\x00" + job_input)
                        if result is not None:
                            write(os.path.join(out, name + "-result"), b"\x01" + result)


def main():
    if "ONYX_SEED_CAPTURE" in os.environ:
        sys.exit(relay())
    build, out = sys.argv[1:3]
    array_seeds(os.path.join(out, "fuzz-array"))
    wire_seeds(build, os.path.join(out, "fuzz-wire"))


if __name__ == "__main__":
    main()
