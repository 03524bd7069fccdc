#!/usr/bin/python3
"""Turns one of ir-py's test models (onnx/ir-py, `testdata/e2e_models/*/*.textproto`:
real exports whose initializers were stripped of their data) into a model that runs,
its weights drawn at random from their dtype and dims.

usage: make-irpy-model.py [--seed N] IN.textproto OUT.onnx
       (python3-onnx, run with /usr/bin/python3)

e.g. from a clone of onnx/ir-py:
  git -C ir-py show HEAD:testdata/e2e_models/Speech2Text2ForCausalLM/Speech2Text2ForCausalLM_dynamo.textproto \\
      > s2t.textproto
  make-irpy-model.py s2t.textproto s2t.onnx
  onyx-cli edit s2t.onnx -o s2t-inlined.onnx --inline-functions --cleanup

Floats are drawn from N(0, 0.05²) (small enough that a 6-layer decoder's logits stay
finite), integers and booleans are zeros (an index is then always in range). Fields
newer than Debian's onnx (a function's attribute_proto, IR 9) are dropped with a note:
torch 2.2's functions read attributes declared only there, which is what Onyx's
Inline Functions repairs."""
import argparse
import sys

import numpy as np
import onnx
from google.protobuf import text_format
from onnx import mapping, numpy_helper


def random_tensor(tensor, rng):
    dtype = mapping.TENSOR_TYPE_TO_NP_TYPE[tensor.data_type]
    dims = tuple(tensor.dims)
    if np.issubdtype(dtype, np.floating):
        values = (rng.standard_normal(dims) * 0.05).astype(dtype)
    else:
        values = np.zeros(dims, dtype=dtype)
    filled = numpy_helper.from_array(values, tensor.name)
    tensor.raw_data = filled.raw_data


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("textproto")
    parser.add_argument("output")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    model = onnx.ModelProto()
    with open(args.textproto) as f:
        text = f.read()
    try:
        text_format.Parse(text, model)
    except text_format.ParseError:
        model = onnx.ModelProto()
        text_format.Parse(text, model, allow_unknown_field=True)
        print("note: fields this onnx does not know were dropped", file=sys.stderr)
    rng = np.random.default_rng(args.seed)
    for tensor in model.graph.initializer:
        if tensor.data_location == onnx.TensorProto.EXTERNAL:
            sys.exit(f"{tensor.name}: external data is not supported")
        random_tensor(tensor, rng)
    onnx.save(model, args.output)
    print(f"{args.output}: {len(model.graph.node)} nodes, {len(model.functions)} functions, "
          f"{len(model.graph.initializer)} initializers")


if __name__ == "__main__":
    main()
