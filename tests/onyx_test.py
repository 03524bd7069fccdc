"""What the python tests share: the onyx-cli under test, the test data, and running a
model in onnxruntime-node (tests/npm) through run_ort.js."""
import json
import os
import subprocess

CLI = os.environ["ONYX_CLI"]
DATA = os.environ["ONYX_TEST_DATA"]
HERE = os.path.dirname(os.path.abspath(__file__))
RUN_ORT = os.path.join(HERE, "run_ort.js")


def cli(*args, timeout=120):
    return subprocess.run([CLI, *args], capture_output=True, text=True, timeout=timeout)


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
