#!/usr/bin/python3
"""Writes src/core/onyx-ort-operators*.c and onyx-ort-kernels.c: what ONNX Runtime documents of the operators
it adds to ONNX's, as facts for Onyx's schemas (slot names, optional and variadic
slots, attribute types, required marks and stated defaults, type constraints, opset
versions) and which of them its CPU execution provider runs.

usage: tools/gen-ort-operators.py CONTRIB_MD CONTRIB_COMMIT KERNELS_MD KERNELS_COMMIT OUT.c

CONTRIB_MD is docs/ContribOperators.md of microsoft/onnxruntime, KERNELS_MD its
docs/OperatorKernels.md (only the CPUExecutionProvider section is read), each at the
commit given, which the table records. OUT.c lists the parts OUT-1.c, OUT-2.c… that
hold the operators (each under 900 lines); onyx-ort-kernels.c is written beside it. Only the structured parts are read (headings,
Version, Attributes, Inputs, Outputs, Type Constraints; the kernel tables' first three
columns): no sentence of the documentation goes into the table, but an attribute's
default where its description states one ("Default value is 0")."""
import html
import os
import re
import sys

ATTRIBUTE_TYPES = {
    "int": "INT", "float": "FLOAT", "string": "STRING", "tensor": "TENSOR", "graph": "GRAPH",
    "list of ints": "INTS", "list of floats": "FLOATS", "list of strings": "STRINGS",
    "list of tensors": "TENSORS", "list of graphs": "GRAPHS", "sparse tensor": "SPARSE_TENSOR",
}
DT = re.compile(r"<dt><tt>(.*?)</tt>(?: \(([^)]*)\))? : (.*?)</dt>\s*(?:<dd>(.*?)</dd>)?", re.S)
DEFAULT = re.compile(r"[Dd]efault(?:s| value)?(?: is| to|:)\s*:?\s*`?(\"[^\"]*\"|'[^']*'|-?[0-9][0-9.]*(?:[eE][-+]?[0-9]+)?f?|true|false|[A-Za-z_][A-Za-z0-9_]*)`?")


def c_string(text):
    if text is None:
        return "NULL"
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def stated_default(kind, doc):
    """The default a description states, as text of the attribute's type, or None."""
    if doc is None or kind not in ("INT", "FLOAT", "STRING"):
        return None
    m = DEFAULT.search(html.unescape(doc))
    if m is None:
        return None
    value = m.group(1)
    if kind == "STRING":
        return value[1:-1] if value[:1] in "'\"" else None
    # A sentence's full stop is not a decimal point ("Default value is 0.").
    value = value.rstrip(".").rstrip("f")
    try:
        number = float(value)
    except ValueError:
        return None
    if kind == "INT":
        return str(int(number)) if number == int(number) and "." not in value else None
    return repr(number)


def arity(heading, params):
    """(min, max) from "#### Inputs (2 - 7)"; max -1 for no bound."""
    m = re.search(r"\((\d+) - (\d+|&#8734;|∞)\)", heading)
    if m:
        return int(m.group(1)), (-1 if not m.group(2).isdigit() else int(m.group(2)))
    return len(params), len(params)


def parse_contrib(text):
    operators = []
    for block in re.split(r"\n(?=### )", text):
        head = re.match(r"### (<sub>experimental</sub> )?<a name=\"([^\"]+)\"></a>", block)
        if head is None:
            continue
        domain, name = head.group(2).rsplit(".", 1)
        version = re.search(r"since version (\d+) of the '([^']+)' operator set", block)
        op = {"domain": domain, "name": name, "since": int(version.group(1)) if version else 1,
              "experimental": head.group(1) is not None, "inputs": [], "outputs": [], "attributes": [],
              "types": [], "arity": {}}
        for section in re.split(r"\n(?=#### )", block):
            title = section.split("\n", 1)[0]
            entries = DT.findall(section)
            if title.startswith("#### Attributes"):
                for attr, _, kind, doc in entries:
                    required = kind.endswith("(required)")
                    kind = ATTRIBUTE_TYPES.get(kind.replace(" (required)", "").strip())
                    if kind is None:
                        raise SystemExit("%s.%s: attribute %s of unknown type" % (domain, name, attr))
                    op["attributes"].append((attr, kind, required, None if required else stated_default(kind, doc)))
            elif title.startswith(("#### Inputs", "#### Outputs")):
                key = "inputs" if title.startswith("#### Inputs") else "outputs"
                for slot, options, kind, _ in entries:
                    flags = [o.strip() for o in options.split(",")] if options else []
                    op[key].append((slot, kind.strip(), "optional" in flags, "variadic" in flags,
                                    "heterogeneous" in flags))
                op["arity"][key] = arity(title, op[key])
            elif title.startswith("#### Type Constraints"):
                for constraint, _, kinds, _ in entries:
                    op["types"].append((constraint, [t.strip() for t in kinds.split(", ") if t.strip()]))
        for key in ("inputs", "outputs"):
            op["arity"].setdefault(key, (0, 0))
        operators.append(op)
    return operators


def parse_kernels(text):
    """{(domain, name): (since, until or 0, inputs, outputs)} of the CPU provider."""
    start = text.find("Operators implemented by CPUExecutionProvider")
    end = text.find("cudaexecutionprovider", start)
    kernels, domain, current = {}, None, None
    for line in text[start:end if end > 0 else len(text)].splitlines():
        cells = line.split("|")
        if len(cells) < 5 or not line.startswith("|"):
            continue
        m = re.match(r"\*\*Operator Domain:\*\* \*([^*]+)\*", cells[1])
        if m:
            domain = "" if m.group(1) == "ai.onnx" else m.group(1)
            continue
        if domain is None or cells[1].startswith("-") or cells[1] == "Op Name":
            continue
        versions = re.findall(r"\d+", cells[3])
        if not versions:
            continue
        low = int(versions[0])
        high = 0 if cells[3].strip().endswith("+") else int(versions[-1])
        if cells[1]:
            signature = cells[2].split("<br><br>or<br><br>")[0]
            inputs = re.findall(r"\*in\* ([^:]+):", signature)
            outputs = re.findall(r"\*out\* ([^:]+):", signature)
            current = (domain, cells[1].strip())
            kernels[current] = [low, high, inputs, outputs]
        elif current is not None:
            entry = kernels[current]
            entry[0] = min(entry[0], low)
            if entry[1] != 0:
                entry[1] = 0 if high == 0 else max(entry[1], high)
    return kernels


def ident(domain, name):
    return re.sub(r"[^A-Za-z0-9]", "_", (domain or "ai_onnx") + "_" + name)


# A generated file stays under the house rule of 900 lines: the operators go into
# parts of about this many lines, each with its slot tables.
PART_LINES = 850


def header(name, contrib_commit, kernels_commit):
    return ("/* %s: generated by tools/gen-ort-operators.py; do not edit.\n"
            " * Facts of the operators ONNX Runtime adds, from microsoft/onnxruntime:\n"
            " *   docs/ContribOperators.md at %s\n"
            " *   docs/OperatorKernels.md (CPUExecutionProvider) at %s */\n"
            '#include "onyx-ort-operators.h"\n\n' % (name, contrib_commit, kernels_commit))


def operator_text(op, kernels):
    """(its slot tables, its entry in a part's table)."""
    tag = ident(op["domain"], op["name"])
    tables = []
    for key in ("inputs", "outputs"):
        if op[key]:
            tables.append("static const OnyxOrtParam %s_%s[] = {\n" % (tag, key))
            for slot, kind, optional, variadic, heterogeneous in op[key]:
                flags = " | ".join(f for f, on in (("ONYX_ORT_OPTIONAL", optional), ("ONYX_ORT_VARIADIC", variadic),
                                                  ("ONYX_ORT_HETEROGENEOUS", heterogeneous)) if on) or "0"
                tables.append("  { %s, %s, %s },\n" % (c_string(slot), c_string(kind), flags))
            tables.append("};\n")
    if op["attributes"]:
        tables.append("static const OnyxOrtAttribute %s_attributes[] = {\n" % tag)
        for attr, kind, required, default in sorted(op["attributes"]):
            tables.append("  { %s, ONYX_ORT_ATTR_%s, %s, %s },\n"
                          % (c_string(attr), kind, "TRUE" if required else "FALSE", c_string(default)))
        tables.append("};\n")
    if op["types"]:
        tables.append("static const OnyxOrtConstraint %s_types[] = {\n" % tag)
        for constraint, kinds in op["types"]:
            tables.append("  { %s, %s },\n" % (c_string(constraint), c_string(", ".join(kinds))))
        tables.append("};\n")
    cpu = kernels.get((op["domain"], op["name"]))
    (min_in, max_in), (min_out, max_out) = op["arity"]["inputs"], op["arity"]["outputs"]
    entry = "  { %s, %s, %d, %s, %s,\n    %d, %d, %d, %d,\n" % (
        c_string(op["domain"]), c_string(op["name"]), op["since"], "TRUE" if op["experimental"] else "FALSE",
        "TRUE" if cpu else "FALSE", min_in, max_in, min_out, max_out)
    parts = []
    for key, count in (("inputs", len(op["inputs"])), ("outputs", len(op["outputs"])),
                       ("attributes", len(op["attributes"])), ("types", len(op["types"]))):
        parts.append("%s, %d" % ("%s_%s" % (tag, key) if count else "NULL", count))
    entry += "    %s },\n" % ", ".join(parts)
    return "".join(tables), entry


def split_parts(texts):
    """The operators' texts in runs of at most PART_LINES lines, in order."""
    parts, current, lines = [], [], 0
    for tables, entry in texts:
        size = (tables + entry).count("\n")
        if current and lines + size > PART_LINES:
            parts.append(current)
            current, lines = [], 0
        current.append((tables, entry))
        lines += size
    if current:
        parts.append(current)
    return parts


def write(out_path, operators, kernels, contrib_commit, kernels_commit):
    """OUT.c (the list of parts), OUT-N.c (the operators, part N) and
    onyx-ort-kernels.c beside it; returns the paths written."""
    stem = out_path[:-2] if out_path.endswith(".c") else out_path
    folder = os.path.dirname(out_path)
    parts = split_parts([operator_text(op, kernels) for op in operators])
    written = []
    for n, part in enumerate(parts, 1):
        path = "%s-%d.c" % (stem, n)
        with open(path, "w", encoding="utf-8") as out:
            out.write(header(os.path.basename(path), contrib_commit, kernels_commit))
            out.write("".join(tables for tables, _ in part))
            out.write("\nconst OnyxOrtOperator onyx_ort_operators_%d[] = {\n" % n)
            out.write("".join(entry for _, entry in part))
            out.write("};\n")
        written.append(path)
    with open(out_path, "w", encoding="utf-8") as out:
        out.write(header(os.path.basename(out_path), contrib_commit, kernels_commit))
        out.write("const char onyx_ort_contrib_commit[] = %s;\n" % c_string(contrib_commit))
        out.write("const char onyx_ort_kernels_commit[] = %s;\n\n" % c_string(kernels_commit))
        for n in range(1, len(parts) + 1):
            out.write("extern const OnyxOrtOperator onyx_ort_operators_%d[];\n" % n)
        out.write("\nconst OnyxOrtOperatorPart onyx_ort_operator_parts[] = {\n")
        for n, part in enumerate(parts, 1):
            out.write("  { onyx_ort_operators_%d, %d },\n" % (n, len(part)))
        out.write("};\nconst guint onyx_ort_n_operator_parts = G_N_ELEMENTS (onyx_ort_operator_parts);\n")
    written.insert(0, out_path)
    # Kernels of the CPU provider in the other domains: ai.onnx's are ONNX's own but for
    # a few (SimplifiedLayerNormalization); which ones is up to the ONNX linked.
    documented = {(op["domain"], op["name"]) for op in operators}
    kernels_path = os.path.join(folder, "onyx-ort-kernels.c")
    with open(kernels_path, "w", encoding="utf-8") as out:
        out.write(header("onyx-ort-kernels.c", contrib_commit, kernels_commit))
        out.write("const OnyxOrtKernel onyx_ort_kernels[] = {\n")
        for (domain, name), (low, high, inputs, outputs) in sorted(kernels.items()):
            if (domain, name) in documented:
                continue
            out.write("  { %s, %s, %d, %d, %s, %s },\n" % (c_string(domain), c_string(name), low, high,
                                                         c_string(",".join(inputs)), c_string(",".join(outputs))))
        out.write("};\nconst guint onyx_ort_n_kernels = G_N_ELEMENTS (onyx_ort_kernels);\n")
    written.append(kernels_path)
    return written


def main():
    if len(sys.argv) != 6:
        print(__doc__, file=sys.stderr)
        return 2
    contrib_md, contrib_commit, kernels_md, kernels_commit, out_path = sys.argv[1:]
    with open(contrib_md, encoding="utf-8") as f:
        operators = parse_contrib(f.read())
    with open(kernels_md, encoding="utf-8") as f:
        kernels = parse_kernels(f.read())
    if len(operators) < 100 or not any(k[0] == "" for k in kernels):
        raise SystemExit("too few operators or kernels found: is this the right documentation?")
    operators.sort(key=lambda op: (op["domain"], op["name"]))
    written = write(out_path, operators, kernels, contrib_commit, kernels_commit)
    print("wrote " + " ".join(os.path.basename(path) for path in written) + " (list them in src/core/meson.build)")
    print("%d operators, %d of them with a CPU kernel; %d other CPU kernels" % (
        len(operators), sum((op["domain"], op["name"]) in kernels for op in operators),
        len(kernels) - sum((op["domain"], op["name"]) in kernels for op in operators)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
