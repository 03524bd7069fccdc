"""What the python tests share: the onyx-cli under test, the test data, and running a
model in onnxruntime-node (tests/npm) through run_ort.js or run_ort_all.js, and the
models of Debian's libonnx-testdata."""
import json
import os
import subprocess

CLI = os.environ["ONYX_CLI"]
DATA = os.environ["ONYX_TEST_DATA"]
HERE = os.path.dirname(os.path.abspath(__file__))
RUN_ORT = os.path.join(HERE, "run_ort.js")


def cli(*args, timeout=120):
    return subprocess.run([CLI, *args], capture_output=True, text=True, timeout=timeout)


def library():
    """(version, newest ai.onnx opset) of the ONNX library onyx-cli is built with, from
    `onyx-cli --version` ("ONNX 1.12.0: IR version 8, ai.onnx opset 17, …")."""
    import re

    text = cli("--version").stdout
    return (re.search(r"^ONNX ([0-9.]+):", text, re.M).group(1),
            int(re.search(r"ai\.onnx opset (\d+)", text).group(1)))


def data(name):
    return os.path.join(DATA, name)


def run_onnxruntime(model, input_name, x, tmp):
    """(returncode, first output as a float32 array or None, stderr) of `model` run in
    onnxruntime on one float32 input."""
    import numpy as np

    in_file = os.path.join(tmp, "in.bin")
    out_file = os.path.join(tmp, "out.bin")
    x.astype("<f4").tofile(in_file)
    run = subprocess.run(["node", RUN_ORT, model, input_name, in_file, ",".join(map(str, x.shape)),
                          out_file], capture_output=True, text=True, timeout=300)
    if run.returncode != 0:
        return run.returncode, None, run.stderr
    shape = json.loads(run.stdout)["dims"]
    return 0, np.fromfile(out_file, dtype="<f4").reshape(shape), run.stderr


TESTDATA = "/usr/share/libonnx-testdata/data/node"
ORT_TYPES = {"float32": "float32", "float64": "float64", "int32": "int32", "int64": "int64",
             "bool": "bool"}
RUN_ORT_ALL = os.path.join(HERE, "run_ort_all.js")


def run_onnxruntime_feeds(model, feeds, tmp):
    """{output name: array} of `model` run in onnxruntime on `feeds` ({name: array})."""
    import tempfile

    import numpy as np

    out_dir = tempfile.mkdtemp(dir=tmp)
    spec = {}
    for n, (name, value) in enumerate(feeds.items()):
        file = os.path.join(out_dir, f"in{n}.bin")
        value.astype(value.dtype.newbyteorder("<")).tofile(file)
        spec[name] = {"type": ORT_TYPES[value.dtype.name], "dims": list(value.shape), "file": file}
    feeds_file = os.path.join(out_dir, "feeds.json")
    with open(feeds_file, "w") as f:
        json.dump(spec, f)
    run = subprocess.run(["node", RUN_ORT_ALL, model, feeds_file, out_dir], capture_output=True,
                         text=True, timeout=300)
    if run.returncode != 0:
        raise AssertionError(f"onnxruntime failed on {model}: {run.stderr}")
    dtypes = {v: np.dtype(k) for k, v in ORT_TYPES.items()}
    return {o["name"]: np.fromfile(o["file"], dtype=dtypes[o["type"]]).reshape(o["dims"])
            for o in json.loads(run.stdout)}


def testdata(name):
    """The model.onnx of a node test of Debian's libonnx-testdata."""
    return os.path.join(TESTDATA, name, "model.onnx")


def testdata_feeds(name):
    """{input name: array} of a corpus model's first test data set."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(testdata(name))
    folder = os.path.join(TESTDATA, name, "test_data_set_0")
    feeds = {}
    for n, value_info in enumerate(model.graph.input):
        tensor = onnx.TensorProto()
        with open(os.path.join(folder, f"input_{n}.pb"), "rb") as f:
            tensor.ParseFromString(f.read())
        feeds[value_info.name] = numpy_helper.to_array(tensor)
    return feeds
