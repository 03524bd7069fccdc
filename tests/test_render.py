#!/usr/bin/python3
"""onyx-cli render: PNG, SVG and PDF files of the laid-out graph that show the nodes."""
import os
import struct
import subprocess
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree
import zlib

CLI = os.environ["ONYX_CLI"]
DATA = os.environ["ONYX_TEST_DATA"]


def cli(*args):
    return subprocess.run([CLI, *args], capture_output=True, text=True, timeout=300)


def png_pixels(path):
    """(width, height, set of distinct pixels sampled) of an 8-bit RGB or RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height, channels = 8, b"", 0, 0, 4
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), (depth, colour)
            channels = 4 if colour == 6 else 3
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels + 1
    colours = set()
    for y in range(0, height, max(1, height // 60)):
        row = raw[y * stride + 1:(y + 1) * stride]  # filter byte skipped: only a rough sample
        for x in range(0, width, max(1, width // 60)):
            colours.add(row[x * channels:(x + 1) * channels])
    return width, height, colours


class Render(unittest.TestCase):
    def render(self, model, name, *options):
        tmp = tempfile.mkdtemp()
        self.addCleanup(lambda: __import__("shutil").rmtree(tmp))
        out = os.path.join(tmp, name)
        run = cli("render", os.path.join(DATA, model), "-o", out, *options)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(os.listdir(tmp), [name])
        return out

    def test_png_is_not_blank(self):
        out = self.render("model_foo.onnx", "foo.png")
        width, height, colours = png_pixels(out)
        self.assertGreater(width, 100)
        self.assertGreater(height, 200)
        self.assertGreater(len(colours), 5)
        bigger = self.render("model_foo.onnx", "foo2.png", "--scale", "2")
        self.assertAlmostEqual(png_pixels(bigger)[0], 2 * width, delta=2)

    def test_pdf_shows_the_labels(self):
        out = self.render("model_foo.onnx", "foo.pdf", "--expand", "all")
        text = subprocess.run(["pdftotext", out, "-"], capture_output=True, text=True, check=True).stdout
        for label in ("input", "Conv", "Relu", "FooOp", "devtech", "output", "float32[N×3×128×128]",
                      "dilations = [1, 1]"):
            self.assertIn(label, text)

    def test_groups_collapse_and_expand(self):
        collapsed = self.render("model.onnx", "c.pdf", "--expand", "none")
        text = subprocess.run(["pdftotext", collapsed, "-"], capture_output=True, text=True, check=True).stdout
        self.assertIn("4 nodes", text)
        self.assertNotIn("Relu", text)
        opened = self.render("model.onnx", "o.pdf", "--expand", "none", "--expand", "/model")
        text = subprocess.run(["pdftotext", opened, "-"], capture_output=True, text=True, check=True).stdout
        self.assertIn("Relu", text)

    def test_svg_is_xml(self):
        out = self.render("model_scripted.onnx", "scripted.svg")
        root = ElementTree.parse(out).getroot()
        self.assertTrue(root.tag.endswith("svg"))
        self.assertGreater(len(list(root.iter())), 20)

    def test_bad_output(self):
        with tempfile.TemporaryDirectory() as tmp:
            run = cli("render", os.path.join(DATA, "model.onnx"), "-o", os.path.join(tmp, "x.bmp"))
            self.assertEqual(run.returncode, 3)
            self.assertIn("x.bmp: unknown image format", run.stderr)
            run = cli("render", os.path.join(DATA, "model.onnx"))
            self.assertEqual(run.returncode, 2)
            run = cli("render", os.path.join(DATA, "model.onnx"), "-o", os.path.join(tmp, "x.png"), "--scale", "0")
            self.assertEqual(run.returncode, 2)
            self.assertEqual(os.listdir(tmp), [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
