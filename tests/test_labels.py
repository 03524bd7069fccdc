#!/usr/bin/python3
"""Edge labels of `onyx-cli render --expand all` SVGs: none overlaps another label or a
box, none leaves the image, none is cut. Run on every model of tests/data, an
Inception-v1-like model (tools/make-inception-model.py: Concat fan-ins) and a sample
of Debian's libonnx-testdata (every LSTM, GRU and RNN test among them).

The SVG writer gives each box and label its rectangle (data-box, data-group,
data-label), so nothing is measured here. Run by hand with ONYX_CLI and
ONYX_TEST_DATA set, it prints the counts per model with -v."""
import glob
import os
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree

from onyx_test import DATA, HERE
import onyx_test

CORPUS = "/usr/share/libonnx-testdata/data"
SVG = "{http://www.w3.org/2000/svg}"
# Rectangles sharing an edge, or less than this, do not overlap (coordinates have two decimals).
SLACK = 0.05


def corpus_sample():
    node = sorted(glob.glob(os.path.join(CORPUS, "node", "*", "model.onnx")))
    recurrent = [p for p in node if os.path.basename(os.path.dirname(p)).startswith(("test_lstm", "test_gru", "test_rnn"))]
    picked = node[::4] + recurrent
    for folder, step in (("pytorch-operator", 1), ("simple", 1), ("pytorch-converted", 1), ("real", 1)):
        picked += sorted(glob.glob(os.path.join(CORPUS, folder, "*", "model.onnx")))[::step]
    return sorted(set(picked))


def rect(text):
    x, y, w, h = (float(v) for v in text.split())
    return x, y, w, h


def overlaps(a, b):
    return (a[0] + SLACK < b[0] + b[2] and b[0] + SLACK < a[0] + a[2] and
            a[1] + SLACK < b[1] + b[3] and b[1] + SLACK < a[1] + a[3])


def inside(a, b):
    return (a[0] >= b[0] - SLACK and a[1] >= b[1] - SLACK and a[0] + a[2] <= b[0] + b[2] + SLACK
            and a[1] + a[3] <= b[1] + b[3] + SLACK)


def count(svg_path):
    """{labels, label_label, label_box, outside, cut} of one SVG."""
    root = ElementTree.parse(svg_path).getroot()
    view = tuple(float(v) for v in root.get("viewBox").split())
    labels, boxes, groups, cut = [], [], [], 0
    for g in root.iter(SVG + "g"):
        if g.get("data-label") is not None:
            labels.append(rect(g.get("data-label")))
            text = "".join(g.itertext())
            cut += text.endswith("…")
        elif g.get("data-box") is not None:
            boxes.append(rect(g.get("data-box")))
        elif g.get("data-group") is not None:
            groups.append(rect(g.get("data-group")))
    result = {"labels": len(labels), "label_label": 0, "label_box": 0, "outside": 0, "cut": cut}
    for i, a in enumerate(labels):
        result["label_label"] += sum(overlaps(a, b) for b in labels[i + 1:])
        result["label_box"] += sum(overlaps(a, b) for b in boxes)
        # Across a group's border: in it, or out of it, is fine.
        result["label_box"] += sum(overlaps(a, b) and not inside(a, b) for b in groups)
        result["outside"] += not inside(a, view)
    return result


class LabelTest(unittest.TestCase):
    def test_labels_clear_of_each_other_and_boxes(self):
        with tempfile.TemporaryDirectory() as tmp:
            inception = os.path.join(tmp, "inception.onnx")
            subprocess.run(["/usr/bin/python3", os.path.join(HERE, "..", "tools", "make-inception-model.py"),
                            inception], check=True)
            models = sorted(glob.glob(os.path.join(DATA, "*.onnx"))) + [inception] + corpus_sample()
            # Every group open; and the LLMs as they open, their layers in a stack.
            renders = [(model, "all") for model in models] + [
                (model, "auto") for model in sorted(glob.glob(os.path.join(DATA, "llm_*.onnx")))]
            totals = {"labels": 0, "label_label": 0, "label_box": 0, "outside": 0, "cut": 0}
            rendered, failed = 0, []
            for model, expand in renders:
                out = os.path.join(tmp, "x.svg")
                run = onyx_test.cli("render", model, "-o", out, "--expand", expand, timeout=300)
                if run.returncode != 0:
                    failed.append((model, run.stderr.strip()))
                    continue
                rendered += 1
                found = count(out)
                for key in totals:
                    totals[key] += found[key]
                if "-v" in sys.argv or any(found[k] for k in ("label_label", "label_box", "outside", "cut")):
                    print(model, found, file=sys.stderr)
            print("models rendered %d, not rendered %d; totals %s" % (rendered, len(failed), totals), file=sys.stderr)
            # The check ran: enough models, enough labels.
            self.assertGreater(rendered, 300)
            self.assertGreater(totals["labels"], 1400)
            self.assertLess(len(failed), rendered // 20, failed[:5])
            self.assertEqual(totals["label_label"], 0)
            self.assertEqual(totals["label_box"], 0)
            self.assertEqual(totals["outside"], 0)
            self.assertEqual(totals["cut"], 0)


if __name__ == "__main__":
    unittest.main(argv=[a for a in sys.argv if a != "-v"])
