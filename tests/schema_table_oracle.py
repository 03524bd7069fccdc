#!/usr/bin/python3
"""The operator schema table as python3-onnx's registry gives it: an independent
reading, in Python, of what onyx-gen-schema-table writes at build time from the C++
library. tests/test_schemas.py compares the two when both are the same ONNX release.

    /usr/bin/python3 tests/schema_table_oracle.py > table.c
"""
import re
import sys

import onnx
import onnx.defs
import onnx.shape_inference
from onnx import AttributeProto, TensorProto, helper

# Domains of the standard: the default one, ONNX-ML and the training preview.
DOMAINS = ("", "ai.onnx.ml", "ai.onnx.preview", "ai.onnx.preview.training")
DOC_MAX = 200


def c_string(text):
    """A C string literal; bytes outside printable ASCII as octal escapes (which,
    unlike \\x, cannot swallow the digits that follow)."""
    out = ['"']
    for byte in text.encode("utf-8") if isinstance(text, str) else text:
        ch = chr(byte)
        if ch in '"\\':
            out.append("\\" + ch)
        elif 32 <= byte < 127 and ch != "?":  # '?' could start a trigraph
            out.append(ch)
        else:
            out.append("\\%03o" % byte)
    out.append('"')
    return "".join(out)


def one_line(doc):
    """The first sentence of the schema's first paragraph, markdown links reduced to
    their text, at most DOC_MAX characters."""
    doc = re.sub(r"<br\s*/?>", "\n\n", doc)
    paragraphs = [p for p in re.split(r"\n\s*\n", doc.strip()) if p.strip()]
    if not paragraphs:
        return ""
    text = " ".join(paragraphs[0].split())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    # A sentence ends before a capital letter (so "w.r.t. x" does not end one).
    match = re.search(r"[.:;](\s+(?=[A-Z`(])|$)", text)
    if match:
        text = text[: match.start() + 1].rstrip(":;") + ("." if text[match.start()] != "." else "")
    if len(text) > DOC_MAX:
        text = text[: DOC_MAX - 1].rsplit(" ", 1)[0] + "…"
    return text


OPTION = {
    onnx.defs.OpSchema.FormalParameterOption.Single: "ONYX_PARAM_SINGLE",
    onnx.defs.OpSchema.FormalParameterOption.Optional: "ONYX_PARAM_OPTIONAL",
    onnx.defs.OpSchema.FormalParameterOption.Variadic: "ONYX_PARAM_VARIADIC",
}


class Writer:
    """Emits each distinct array once, however many schema versions share it."""

    def __init__(self):
        self.lines = []
        self.arrays = {}
        self.types = []
        self.type_index = {}

    def array(self, prefix, ctype, items):
        if not items:
            return "NULL"
        body = tuple(items)
        name = self.arrays.get((ctype, body))
        if name is None:
            name = "%s%d" % (prefix, len(self.arrays))
            self.arrays[(ctype, body)] = name
            self.lines.append("static const %s %s[] = {" % (ctype, name))
            self.lines.extend("  %s," % item for item in body)
            self.lines.append("};")
        return name

    def type_id(self, type_str):
        if type_str not in self.type_index:
            self.type_index[type_str] = len(self.types)
            self.types.append(type_str)
        return self.type_index[type_str]


def params(writer, prefix, formal):
    items = ["{ %s, %s, %s, %s, %s }" % (c_string(p.name), c_string(p.typeStr), OPTION[p.option],
                                         "TRUE" if p.isHomogeneous else "FALSE",
                                         c_string(one_line(p.description or "")))
             for p in formal]
    return writer.array(prefix, "OnyxSchemaParam", items)


# ---- Which INT attributes name a data type: the generator's probe of each schema's
# type inference, made again through python3-onnx's infer_shapes ----

def elem_types(schema, type_str):
    """The element types a parameter's type string allows: tensors and sequences of
    tensors."""
    allowed = [type_str]
    for constraint in schema.type_constraints:
        if constraint.type_param_str == type_str:
            allowed = list(constraint.allowed_type_strs)
    found = []
    for t in allowed:
        match = re.fullmatch(r"tensor\((\w+)\)|seq\(tensor\((\w+)\)\)", t)
        if match:
            found.append(TensorProto.DataType.Value((match.group(1) or match.group(2)).upper()))
    return found


def some_value(name, attr_type):
    attr = AttributeProto(name=name, type=attr_type)
    if attr_type == AttributeProto.INT:
        attr.i = 1
    elif attr_type == AttributeProto.FLOAT:
        attr.f = 1
    elif attr_type == AttributeProto.STRING:
        attr.s = b"a"
    elif attr_type == AttributeProto.INTS:
        attr.ints.append(1)
    elif attr_type == AttributeProto.FLOATS:
        attr.floats.append(1)
    elif attr_type == AttributeProto.STRINGS:
        attr.strings.append(b"a")
    elif attr_type == AttributeProto.TENSOR:
        attr.t.data_type = TensorProto.FLOAT
        attr.t.float_data.append(1)
    return attr


def inferred_output_types(schema, probed, value):
    node = onnx.NodeProto(op_type=schema.name, domain=schema.domain)
    inputs = []
    for i, param in enumerate(schema.inputs):
        types = elem_types(schema, param.typeStr)
        if param.option == onnx.defs.OpSchema.FormalParameterOption.Optional or not types:
            node.input.append("")
            continue
        node.input.append("in%d" % i)
        inputs.append(helper.make_tensor_value_info("in%d" % i, types[0], None))
    while node.input and not node.input[-1]:
        node.input.pop()
    node.output.extend("out%d" % i for i in range(len(schema.outputs)))
    for name, attr in schema.attributes.items():
        if name == probed:
            node.attribute.append(AttributeProto(name=name, type=AttributeProto.INT, i=value))
        elif attr.required:
            node.attribute.append(some_value(name, int(attr.type)))
    model = helper.make_model(helper.make_graph([node], "", inputs, []), ir_version=onnx.IR_VERSION,
                              opset_imports=[helper.make_opsetid(schema.domain, schema.since_version)])
    types = [0] * len(schema.outputs)
    try:
        model = onnx.shape_inference.infer_shapes(model)
    except Exception:
        return types
    for info in model.graph.value_info:
        t = info.type
        if t.HasField("tensor_type"):
            types[int(info.name[3:])] = t.tensor_type.elem_type
        elif t.HasField("sequence_type") and t.sequence_type.elem_type.HasField("tensor_type"):
            types[int(info.name[3:])] = t.sequence_type.elem_type.tensor_type.elem_type
    return types


def is_data_type_attribute(schema, name):
    if int(schema.attributes[name].type) != AttributeProto.INT or schema.deprecated:
        return False
    input_types = {types[0] for types in (elem_types(schema, p.typeStr) for p in schema.inputs) if types}
    for output in schema.outputs:
        candidates = []
        for t in elem_types(schema, output.typeStr):
            if t not in input_types and t not in candidates:
                candidates.append(t)
        if len(candidates) < 2:
            continue
        first = inferred_output_types(schema, name, candidates[0])
        second = inferred_output_types(schema, name, candidates[1])
        if any(a == candidates[0] and b == candidates[1] for a, b in zip(first, second)):
            return True
    return False


def data_type_names(schemas):
    return {name for s in schemas for name in s.attributes if is_data_type_attribute(s, name)}


def attributes(writer, schema, data_types):
    items = []
    for name in sorted(schema.attributes):
        attr = schema.attributes[name]
        default = attr.default_value
        if default.type != 0:
            data = default.SerializeToString()
            value = "%s, %d" % (c_string(data), len(data))
        else:
            value = "NULL, 0"
        data_type = int(attr.type) == AttributeProto.INT and name in data_types
        items.append("{ %s, %d, %s, %s, %s, %s }" % (c_string(name), int(attr.type),
                                                     "TRUE" if attr.required else "FALSE", value,
                                                     c_string(one_line(attr.description or "")),
                                                     "TRUE" if data_type else "FALSE"))
    return writer.array("a", "OnyxSchemaAttribute", items)


def constraints(writer, schema):
    items = []
    for constraint in schema.type_constraints:
        ids = [str(writer.type_id(t)) for t in sorted(constraint.allowed_type_strs)]
        allowed = writer.array("t", "guint8", ids)
        items.append("{ %s, %s, %d }" % (c_string(constraint.type_param_str), allowed, len(ids)))
    return writer.array("c", "OnyxSchemaTypeConstraint", items)


def arity(value):
    # Variadic parameters have no upper bound (INT_MAX in the schema).
    return "G_MAXINT" if value >= 2 ** 31 - 1 else str(value)


def generate():
    schemas = [s for s in onnx.defs.get_all_schemas_with_history() if s.domain in DOMAINS]
    schemas.sort(key=lambda s: (s.domain, s.name, s.since_version))
    writer = Writer()
    data_types = data_type_names(schemas)
    rows = []
    for s in schemas:
        inputs = params(writer, "i", s.inputs)
        outputs = params(writer, "o", s.outputs)
        attrs = attributes(writer, s, data_types)
        cons = constraints(writer, s)
        rows.append("  { %s, %s, %d, %s, %s, %d, %s, %d, %s, %d, %s, %d, %s, %s, %s, %s, %s },"
                    % (c_string(s.domain), c_string(s.name), s.since_version,
                       "TRUE" if s.deprecated else "FALSE",
                       inputs, len(s.inputs), outputs, len(s.outputs),
                       attrs, len(s.attributes), cons, len(s.type_constraints),
                       arity(s.min_input), arity(s.max_input),
                       arity(s.min_output), arity(s.max_output),
                       c_string(one_line(s.doc or ""))))
    out = ['#include "onyx-schema-private.h"', ""]
    out.extend(writer.lines)
    out.append("")
    out.append("const char *const onyx_schema_type_strings[] = {")
    out.extend("  %s," % c_string(t) for t in writer.types)
    out.append("};")
    out.append("const guint onyx_schema_n_type_strings = %d;" % len(writer.types))
    out.append("")
    out.append("/* Sorted by domain, name and since_version. */")
    out.append("const OnyxSchema onyx_schema_table[] = {")
    out.extend(rows)
    out.append("};")
    out.append("const guint onyx_schema_table_size = %d;" % len(rows))
    out.append('const char onyx_schema_table_onnx_version[] = "%s";' % onnx.__version__)
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(generate())
