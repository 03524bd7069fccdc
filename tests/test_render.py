#!/usr/bin/python3
"""onyx-cli render: PNG, SVG and PDF files of the laid-out graph that show the nodes."""
import os
import re
import struct
import subprocess
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree
import zlib

from onyx_test import DATA
import onyx_test


def cli(*args):
    return onyx_test.cli(*args, timeout=300)


def png_size(path):
    """(width, height) from a PNG's header, without decoding it."""
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR"
    return struct.unpack(">II", head[16:24])


def png_rows(path):
    """(width, height, rows of (r, g, b) pixels) of a non-interlaced 8-bit RGB or RGBA PNG,
    with the scanline filters undone (PNG spec, section 9)."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height, channels = 8, b"", 0, 0, 4
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
            channels = 4 if colour == 6 else 3
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    assert len(raw) == height * (stride + 1), (len(raw), width, height)
    previous, rows = bytearray(stride), []
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        assert kind <= 4, kind
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                up_left = previous[i - channels] if i >= channels else 0
                guess = left + up - up_left
                near = min((abs(guess - left), 0, left), (abs(guess - up), 1, up),
                           (abs(guess - up_left), 2, up_left))
                line[i] = (line[i] + near[2]) & 255
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, channels)])
        previous = line
    return width, height, rows


SVG = "{http://www.w3.org/2000/svg}"


def path_points(d):
    """The points an SVG path's d goes through (as M, L, H, V, C and A use them; no
    relative commands)."""
    tokens = re.findall(r"[A-Za-z]|-?[0-9.]+", d)
    points, x, y, i, command = [], 0.0, 0.0, 0, None
    arguments = {"M": 2, "L": 2, "H": 1, "V": 1, "C": 6, "A": 7, "Z": 0}
    while i < len(tokens):
        if tokens[i].isalpha():
            command = tokens[i]
            assert command in arguments, command
            i += 1
            if command == "Z":
                continue
        values = [float(v) for v in tokens[i:i + arguments[command]]]
        i += arguments[command]
        if command == "H":
            x = values[0]
        elif command == "V":
            y = values[0]
        elif command == "C":
            points += [(values[0], values[1]), (values[2], values[3])]
            x, y = values[4], values[5]
        else:
            x, y = values[-2], values[-1]
        points.append((x, y))
    return points


WHITE = (255, 255, 255)
# The node header colours of src/core/onyx-render.c (category_colours), as 8-bit values.
HEADERS = {
    "Conv": (0.20, 0.33, 0.53),
    "Relu": (0.44, 0.16, 0.13),
    "FooOp": (0.77, 0.38, 0.00),
}


def near(pixel, colour):
    """Whether an 8-bit pixel is the 0..1 colour, give or take cairo's rounding."""
    return all(abs(p - c * 255) <= 1.5 for p, c in zip(pixel, colour))


def header_pixels(rows, colour):
    """(count, mean row) of the pixels of one header colour."""
    ys = [y for y, row in enumerate(rows) for pixel in row if near(pixel, colour)]
    return len(ys), sum(ys) / max(len(ys), 1)


class Render(unittest.TestCase):
    def render(self, model, name, *options):
        tmp = tempfile.mkdtemp()
        self.addCleanup(lambda: __import__("shutil").rmtree(tmp))
        out = os.path.join(tmp, name)
        run = cli("render", os.path.join(DATA, model), "-o", out, *options)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(os.listdir(tmp), [name])
        return out

    def test_png_shows_the_nodes(self):
        out = self.render("model_foo.onnx", "foo.png")
        width, height, rows = png_rows(out)
        self.assertGreater(width, 100)
        self.assertGreater(height, 200)
        # A white page: the corners and most of the image.
        for x, y in ((0, 0), (width - 1, 0), (0, height - 1), (width - 1, height - 1)):
            self.assertEqual(rows[y][x], WHITE, (x, y))
        white = sum(row.count(WHITE) for row in rows)
        self.assertGreater(white, width * height // 2)
        # …that is not blank: a twentieth of it is drawn on.
        self.assertGreater(width * height - white, width * height // 20)
        # Each node's header band, in its category colour, and in graph order from the top
        # (Conv → Relu → FooOp). A band is 22 pixels high and about 100 wide.
        headers = {op: header_pixels(rows, colour) for op, colour in HEADERS.items()}
        for op, (count, _) in headers.items():
            self.assertGreater(count, 500, op)
        self.assertLess(headers["Conv"][1], headers["Relu"][1])
        self.assertLess(headers["Relu"][1], headers["FooOp"][1])

        bigger = self.render("model_foo.onnx", "foo2.png", "--scale", "2")
        big_width, _, big_rows = png_rows(bigger)
        self.assertAlmostEqual(big_width, 2 * width, delta=2)
        # Drawn twice as large, not only on a larger page: four times the header pixels.
        big_conv = header_pixels(big_rows, HEADERS["Conv"])[0]
        self.assertAlmostEqual(big_conv / headers["Conv"][0], 4, delta=0.5)

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

    def test_svg_labels_are_text(self):
        out = self.render("model_foo.onnx", "foo.svg", "--expand", "all")
        root = ElementTree.parse(out).getroot()
        texts = [element.text for element in root.iter(SVG + "text")]
        for label in ("input", "Conv", "Relu", "FooOp", "devtech", "output", "model · 2 nodes",
                      "W ⟨16×3×3×3⟩", "dilations = [1, 1]", "group = 1", "N×3×128×128"):
            self.assertIn(label, texts)
        # Long dim names shortened the same way in a box and on an edge, nothing cut.
        self.assertIn("float32[N×FooOp…_dim_1×FooOp…_dim_2×FooOp…_dim_3]", texts)
        self.assertIn("N×FooOp…_dim_1×FooOp…_dim_2×FooOp…_dim_3", texts)
        # Text, not glyph outlines.
        self.assertEqual(list(root.iter(SVG + "use")), [])
        self.assertEqual([element.text for element in root.iter(SVG + "title")],
                         ["model", "/model/model.0/Conv", "/model/model.2/Relu", "input", "/FooOp", "output"])
        # The view box holds every box and every edge.
        x, y, width, height = map(float, root.get("viewBox").split())
        points = [point for element in root.iter(SVG + "path") for point in path_points(element.get("d"))]
        self.assertGreater(len(points), 50)
        for px, py in points:
            self.assertTrue(x <= px <= x + width and y <= py <= y + height, (px, py))

    def test_svg_escapes_names(self):
        from onnx import TensorProto, helper
        import onnx

        name = 'a<b> & "c"\x01'
        graph = helper.make_graph(
            [helper.make_node("Relu", ["x&y"], ["out"], name=name)], "g",
            [helper.make_tensor_value_info("x&y", TensorProto.FLOAT, [1])],
            [helper.make_tensor_value_info("out", TensorProto.FLOAT, [1])])
        tmp = tempfile.mkdtemp()
        self.addCleanup(lambda: __import__("shutil").rmtree(tmp))
        model = os.path.join(tmp, "names.onnx")
        onnx.save(helper.make_model(graph), model)
        out = os.path.join(tmp, "names.svg")
        run = cli("render", model, "-o", out, "--expand", "all")
        self.assertEqual(run.returncode, 0, run.stderr)
        root = ElementTree.parse(out).getroot()
        titles = [element.text for element in root.iter(SVG + "title")]
        self.assertIn("x&y", titles)
        self.assertTrue(any(title.startswith('a<b> & "c"') for title in titles), titles)

    def chain(self, tmp, length):
        """A flat chain of `length` nodes, as tf2onnx names them: one tall column."""
        import onnx
        from onnx import TensorProto, helper
        ops = ["Relu", "Sigmoid", "Tanh", "Neg", "Abs", "Exp"]
        nodes, previous = [], "x"
        for i in range(length):
            nodes.append(helper.make_node(ops[i % len(ops)], [previous], ["t%d" % i], name="n%d" % i))
            previous = "t%d" % i
        graph = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 8])],
                                  [helper.make_tensor_value_info(previous, TensorProto.FLOAT, ["N", 8])])
        path = os.path.join(tmp, "chain.onnx")
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
        return path

    def test_tall_graph_in_columns(self):
        """A 672-node chain is over 27,000 points tall: PNG and PDF show it in columns
        side by side that image viewers open; every node is still drawn, in order."""
        with tempfile.TemporaryDirectory() as tmp:
            model = self.chain(tmp, 672)
            for name in ("chain.png", "chain.pdf"):
                out = os.path.join(tmp, name)
                run = cli("render", model, "-o", out)
                self.assertEqual(run.returncode, 0, run.stderr)
                columns = int(re.search(r"the graph is (\d+) columns side by side", run.stdout).group(1))
                self.assertGreater(columns, 4)
                if name.endswith(".png"):
                    width, height = png_size(out)
                else:
                    info = subprocess.run(["pdfinfo", out], capture_output=True, text=True, check=True).stdout
                    width, height = (float(v) for v in re.search(r"Page size:\s+([\d.]+) x ([\d.]+)", info).groups())
                self.assertLess(max(width, height), 16000, name)
                self.assertLess(max(width, height) / min(width, height), 2.5, name)
            # The columns are the graph's shape, not the zoom's: the same at 0.55.
            run = cli("render", model, "-o", os.path.join(tmp, "small.png"), "--scale", "0.55")
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertEqual(int(re.search(r"the graph is (\d+) columns side by side", run.stdout).group(1)), columns)
            # The PDF's text in reading order: the nodes from the first to the last.
            text = subprocess.run(["pdftotext", "-raw", out, "-"], capture_output=True, text=True, check=True).stdout
            self.assertEqual(text.count("Sigmoid"), 112)
            self.assertEqual(text.count("Exp"), 112)
            # A short one stays one column, and says nothing.
            short = self.chain(tmp, 20)
            run = cli("render", short, "-o", os.path.join(tmp, "short.png"))
            self.assertEqual((run.returncode, run.stdout), (0, ""), run.stderr)
            width, height = png_size(os.path.join(tmp, "short.png"))
            self.assertGreater(height, 4 * width)

    def test_scale_beyond_what_a_png_holds_is_said(self):
        import onnx
        from onnx import TensorProto, helper
        with tempfile.TemporaryDirectory() as tmp:
            # 60 readers of one input side by side: about 6,000 points wide.
            nodes = [helper.make_node("Relu", ["x"], ["y%d" % i], name="r%d" % i) for i in range(60)]
            graph = helper.make_graph(nodes, "wide", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8])],
                                      [helper.make_tensor_value_info("y%d" % i, TensorProto.FLOAT, [8])
                                       for i in range(60)])
            model = os.path.join(tmp, "wide.onnx")
            onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), model)
            out = os.path.join(tmp, "big.png")
            run = cli("render", model, "-o", out, "--scale", "8")
            self.assertEqual(run.returncode, 0, run.stderr)
            line = re.search(r"drawn at scale ([\d.]+) \((\d+) × (\d+) pixels\) instead of 8: a PNG is at most "
                             r"32000 pixels a side", run.stderr)
            self.assertIsNotNone(line, run.stderr)
            self.assertEqual(png_size(out), (int(line.group(2)), int(line.group(3))))
            self.assertLess(float(line.group(1)), 8)
            run = cli("render", model, "-o", os.path.join(tmp, "fine.png"))
            self.assertEqual(run.stderr, "")

    def test_bad_output(self):
        with tempfile.TemporaryDirectory() as tmp:
            # A name that says no format is bad usage (2), not a file that could not be
            # written (3).
            run = cli("render", os.path.join(DATA, "model.onnx"), "-o", os.path.join(tmp, "x.bmp"))
            self.assertEqual(run.returncode, 2)
            self.assertIn("expects -o OUT.png, OUT.svg or OUT.pdf (not ", run.stderr)
            run = cli("render", os.path.join(DATA, "model.onnx"))
            self.assertEqual(run.returncode, 2)
            run = cli("render", os.path.join(DATA, "model.onnx"), "-o", os.path.join(tmp, "x.png"), "--scale", "0")
            self.assertEqual(run.returncode, 2)
            self.assertEqual(os.listdir(tmp), [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
