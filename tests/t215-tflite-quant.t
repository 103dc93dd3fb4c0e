#!/usr/bin/python3
"""t215-tflite-quant: examples/firmware/tflite_quant.py, which reads a
.tflite model's scales and zero points with the Python standard library
alone and prints bcastgen spec kernels, on models this test writes: no
TensorFlow, no flatbuffers package, no network.

The models come from a FlatBuffer writer of its own (Builder, below),
which lays out the bytes as the FlatBuffers format specifies and as its
builders do, independently of the reader: built from the end toward the
start, so that every object is written before what refers to it and so
lies after it (an offset, unsigned, points forward); each table with a
vtable in front of it. The model (model()): a float input quantized,
a CONV_2D whose weights are quantized per channel, a squeeze-and-
excitation MUL (int8), a residual ADD with a fused RELU (int8), a float
ADD, and an int16 SUB with RELU_N1_TO_1; the scales those of
examples/firmware/kernels.lua.

Checked: the script's output on it, exactly, run with -I -S (no site
packages); --list, exactly; bcastgen takes the spec it prints, and its
banner's scales are the float32s the model holds (%.9g); the README's
example of its output is its output; kernels.lua's quantized kernels
have the scales and zero points that the script prints for the MUL and
the ADD; a file that is not a TFLite model, one
cut short, a tensor quantized per channel, an int8 tensor without
quantization and a fused TANH are refused with an error line and exit
status 1, the other ops' kernels still printed.
"""
import os
import re
import struct
import subprocess
import sys
import tempfile

TESTS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TESTS)

from tap import Tap, fresh                 # noqa: E402

SCRIPT = os.path.join(TESTS, "..", "examples", "firmware", "tflite_quant.py")
SCRIPT = os.path.abspath(SCRIPT)
gen = os.path.abspath(os.environ.get("GEN") or "build/bcastgen")
if not (os.path.isfile(gen) and os.access(gen, os.X_OK)):
    print("1..0 # SKIP no bcastgen binary at %s: run make first" % gen)
    sys.exit(0)


class Builder:
    """A FlatBuffer, written as the format specifies (little-endian).

    As FlatBuffers' builders do, the bytes are laid from the end of the
    buffer toward its start: self.buf is the buffer's tail, and new bytes
    go in front of it. A position while building is counted back from
    the end ("back": len(self.buf) just after the object's first byte is
    written); in the finished buffer of N bytes the object is at N - back.
    So whatever an object refers to was written before it and lies after
    it: a uoffset (uint32), stored at address P and referring to address
    Q, is Q - P > 0, i.e. back(P) - back(Q).

    A table: first an soffset (int32), the table's address less its
    vtable's; then its fields, each aligned to its size. Its vtable,
    written just in front of it: uint16s, the vtable's size in bytes,
    the table's size in bytes, then for each field k up to the last one
    present, the field's offset from the table's start (0: absent, the
    reader takes the default). A field that holds a table, a vector or a
    string holds a uoffset to it. A vector: a uint32 count, then the
    elements, aligned to their size; a string: a vector of bytes with a
    0 after it (not counted). The buffer starts with the uoffset of the
    root table, then the 4-byte file identifier.

    Alignment is counted back from the end, and finish() pads the front
    so that the length is a multiple of the largest alignment used: an
    object aligned back from the end is aligned in the file.
    """

    def __init__(self):
        self.buf = bytearray()
        self.align = 1

    def back(self):
        return len(self.buf)

    def front(self, data):
        self.buf[0:0] = data

    def prep(self, size, extra=0):
        """Pad so that, once EXTRA more bytes are written, the next thing
        written in front of them is aligned to SIZE."""
        self.align = max(self.align, size)
        self.front(bytes(-(len(self.buf) + extra) % size))

    def scalar(self, fmt, v):
        data = struct.pack("<" + fmt, v)
        self.prep(len(data))
        self.front(data)
        return self.back()

    def uoffset(self, target):
        """A uoffset to the object at back position TARGET, written earlier."""
        self.prep(4)
        return self.scalar("I", self.back() + 4 - target)

    def vector(self, fmt, values):
        size = struct.calcsize("<" + fmt)
        self.prep(4, size * len(values))        # the count's alignment
        self.prep(size, size * len(values))     # the elements'
        for v in reversed(values):
            self.front(struct.pack("<" + fmt, v))
        return self.scalar("I", len(values))

    def string(self, text):
        data = text.encode("utf-8") + b"\0"
        self.prep(4, len(data))
        self.front(data)
        return self.scalar("I", len(data) - 1)

    def tables(self, targets):
        """A vector of tables: a uoffset to each, from the element's own address."""
        self.prep(4, 4 * len(targets))
        for t in reversed(targets):
            self.uoffset(t)
        return self.scalar("I", len(targets))

    def table(self, fields):
        """A table of FIELDS, {field id: (struct format, value)} for a
        scalar, or ("ref", back position) for a table, vector or string
        already written; a value None is left out (the default)."""
        fields = {k: v for k, v in fields.items() if v[1] is not None}
        start = self.back()
        at = {}
        for k in sorted(fields, reverse=True):
            fmt, v = fields[k]
            at[k] = self.uoffset(v) if fmt == "ref" else self.scalar(fmt, v)
        table = self.scalar("i", 0)             # the soffset, set below
        n = max(fields) + 1 if fields else 0
        vtable = [4 + 2 * n, table - start] + [table - at[k] if k in at else 0
                                              for k in range(n)]
        self.front(struct.pack("<%dH" % len(vtable), *vtable))
        # The table's address less the vtable's, from their back positions.
        i = len(self.buf) - table
        self.buf[i:i + 4] = struct.pack("<i", self.back() - table)
        return table

    def finish(self, root, identifier):
        self.prep(max(self.align, 4), 8)
        self.front(identifier)
        self.uoffset(root)
        assert len(self.buf) % self.align == 0
        return bytes(self.buf)


def f32(v):
    """V rounded to float32, as the model stores a scale."""
    return struct.unpack("<f", struct.pack("<f", v))[0]


# TensorType, BuiltinOperator, BuiltinOptions and ActivationFunctionType
# numbers of tensorflow/lite/schema/schema.fbs.
FLOAT32, INT16, INT8 = 0, 7, 9
ADD, CONV_2D, MUL, SUB, QUANTIZE, GELU = 0, 3, 18, 41, 114, 150
CONV_2D_OPTIONS, ADD_OPTIONS, MUL_OPTIONS, SUB_OPTIONS = 1, 11, 21, 28
NONE, RELU, RELU_N1_TO_1, RELU6, TANH = 0, 1, 2, 3, 4

# The tensors: name, type, shape, scales, zero points, quantized dimension.
# The int8 scales are those of examples/firmware/kernels.lua, as a
# converter computes them from a range: 6/255 (a ReLU6), 1/256 (a
# sigmoid), 5.6/255, 12.1/255 (-5.2 to 6.9: zero point -18), 10/255.
CONV_SCALES = [0.0021 + 0.0001 * c for c in range(16)]
TENSORS = [
    ("input", FLOAT32, [1, 8, 8, 16], None, None, 0),
    ("block/feat", INT8, [1, 8, 8, 16], [6 / 255], [-128], 0),
    ("block/se/gate", INT8, [1, 1, 1, 16], [1 / 256], [-128], 0),
    ("block/se/mul", INT8, [1, 8, 8, 16], [5.6 / 255], [-128], 0),
    ("block/skip", INT8, [1, 8, 8, 16], [12.1 / 255], [-18], 0),
    ("block/add", INT8, [1, 8, 8, 16], [10 / 255], [-128], 0),
    ("block/conv/weights", INT8, [16, 1, 1, 16], CONV_SCALES, [0] * 16, 0),
    ("input_twice", FLOAT32, [1, 8, 8, 16], None, None, 0),
    ("audio/x", INT16, [4, 10], [2 ** -12], [0], 0),
    ("audio/y", INT16, [10], [2 ** -11], [0], 0),
    ("audio/diff", INT16, [4, 10], [2 ** -15], [0], 0),
]


def model(gate_per_channel=False, skip_unquantized=False, add_activation=RELU,
          identifier=b"TFL3"):
    """The test model's bytes; the arguments make the variants it refuses."""
    b = Builder()
    tensors = []
    for i, (name, typ, shape, scales, zps, axis) in enumerate(TENSORS):
        if gate_per_channel and i == 2:
            scales, zps, axis = [1 / 256 + c / 65536 for c in range(16)], [-128] * 16, 3
        if skip_unquantized and i == 4:
            scales = None
        q = None
        if scales is not None:
            q = b.table({2: ("ref", b.vector("f", scales)), 3: ("ref", b.vector("q", zps)),
                         6: ("i", axis or None)})
        tensors.append(b.table({0: ("ref", b.vector("i", shape)), 1: ("b", typ or None),
                                3: ("ref", b.string(name)), 4: ("ref", q)}))
    # Operator codes: ADD as newer converters write it (both fields, here
    # their default 0, left out; a version); MUL as older ones did (only
    # the byte); GELU, above 127, with the byte at 127.
    codes = [b.table({2: ("i", 2)}),
             b.table({0: ("b", MUL)}),
             b.table({0: ("b", CONV_2D), 3: ("i", CONV_2D)}),
             b.table({0: ("b", QUANTIZE), 3: ("i", QUANTIZE)}),
             b.table({0: ("b", 127), 3: ("i", GELU)}),
             b.table({0: ("b", SUB), 3: ("i", SUB)})]

    def op(code, inputs, outputs, options_type=None, options=None):
        return b.table({0: ("I", code or None), 1: ("ref", b.vector("i", inputs)),
                        2: ("ref", b.vector("i", outputs)), 3: ("B", options_type),
                        4: ("ref", options)})
    ops = [
        op(3, [0], [4]),
        op(2, [4, 6, -1], [1], CONV_2D_OPTIONS, b.table({3: ("b", RELU6)})),
        op(1, [1, 2], [3], MUL_OPTIONS, b.table({})),           # NONE: the default
        op(0, [3, 4], [5], ADD_OPTIONS, b.table({0: ("b", add_activation or None)})),
        op(0, [0, 0], [7], ADD_OPTIONS, b.table({})),           # float: not quantized
        op(5, [8, 9], [10], SUB_OPTIONS, b.table({0: ("b", RELU_N1_TO_1)})),
    ]
    subgraph = b.table({0: ("ref", b.tables(tensors)), 1: ("ref", b.vector("i", [0, 2])),
                        2: ("ref", b.vector("i", [5, 7])), 3: ("ref", b.tables(ops)),
                        4: ("ref", b.string("main"))})
    buffers = b.tables([b.table({})])
    root = b.table({0: ("I", 3), 1: ("ref", b.tables(codes)),
                    2: ("ref", b.tables([subgraph])), 4: ("ref", buffers)})
    return b.finish(root, identifier)


def run(args, cwd=None):
    """The script, with no site packages (-S) and isolated (-I): what it needs
    is the standard library."""
    p = subprocess.run([sys.executable, "-I", "-S", SCRIPT] + args, cwd=cwd,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    return p.returncode, p.stdout, p.stderr


def show(rc, out, err):
    return ["exit status %d" % rc, "stdout:", out, "stderr:", err]


MUL_LINE = ('kernel "op2_mul" { op = "multiply", dtype = "i8", activation = "none", '
            'quant = { x = {"0.0235294122", -128}, y = {"0.00390625", -128}, '
            'out = {"0.0219607837", -128} }, "x:i8=1,8,8,16", "y:i8=1,1,1,16" }')
ADD_LINE = ('kernel "op3_add" { op = "add", dtype = "i8", activation = "relu", '
            'quant = { x = {"0.0219607837", -128}, y = {"0.047450982", -18}, '
            'out = {"0.0392156877", -128} }, "x:i8=1,8,8,16", "y:i8=1,8,8,16" }')
SUB_LINE = ('kernel "op5_sub" { op = "subtract", dtype = "i16", activation = "relu_n1_to_1", '
            'quant = { x = {"0.000244140625", 0}, y = {"0.00048828125", 0}, '
            'out = {"3.05175781e-05", 0} }, "x:i16=4,10", "y:i16=10" }')


def expected(name):
    lines = ["-- The int8/int16 ADD, SUB and MUL of %s, subgraph 0, by tflite_quant.py" % name,
             '-- op 2: MUL: x = tensor 1 "block/feat", y = tensor 2 "block/se/gate", '
             'out = tensor 3 "block/se/mul"', MUL_LINE,
             '-- op 3: ADD: x = tensor 3 "block/se/mul", y = tensor 4 "block/skip", '
             'out = tensor 5 "block/add"', ADD_LINE,
             '-- op 5: SUB: x = tensor 8 "audio/x", y = tensor 9 "audio/y", '
             'out = tensor 10 "audio/diff"', SUB_LINE]
    return "\n".join(lines) + "\n"


def main():
    t = Tap()
    scratch = tempfile.mkdtemp(prefix="bcastgen-t215.")
    try:
        return checks(t, scratch)
    finally:
        subprocess.run(["rm", "-rf", scratch])


def checks(t, scratch):
    data = model()

    # The writer's own layout: the root offset, the identifier, and the
    # Model table's vtable read by hand from the bytes.
    root = struct.unpack_from("<I", data, 0)[0]
    vt = root - struct.unpack_from("<i", data, root)[0]
    vsize, tsize = struct.unpack_from("<HH", data, vt)
    t.ok(data[4:8] == b"TFL3" and root % 4 == 0 and vt % 2 == 0 and vsize == 4 + 2 * 5
         and len(data) % 8 == 0,
         "the writer: root offset, identifier, the Model's vtable of fields 0-4",
         ["root %d vtable %d size %d table %d length %d" % (root, vt, vsize, tsize, len(data))])

    d = fresh(scratch)
    path = os.path.join(d, "se.tflite")
    with open(path, "wb") as f:
        f.write(data)
    rc, out, err = run([path])
    want = expected(path)
    t.ok(rc == 0 and out == want and err == "",
         "the int8 MUL and ADD (RELU) and the int16 SUB (RELU_N1_TO_1) as spec kernels, "
         "with the tensors' names; the CONV_2D, QUANTIZE and float ADD left out",
         show(rc, out, err) + ["wanted:", want])

    # bcastgen takes the spec; its banners hold the scales the model holds.
    spec = os.path.join(d, "quant.lua")
    with open(spec, "w") as f:
        f.write(out)
    p = subprocess.run([gen, spec, "-o", os.path.join(d, "quant.c")],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    t.ok(p.returncode == 0, "bcastgen takes the spec it prints", [p.stdout])
    banner = ""
    if p.returncode == 0:
        with open(os.path.join(d, "quant.c")) as f:
            banner = f.read()
    got = re.findall(r"^ \*   (x|y|out) +scale (\S+) +zero point (-?\d+)$", banner, re.M)
    wanted = []
    for ins, o in (((1, 2), 3), ((3, 4), 5), ((8, 9), 10)):
        for name, i in zip(("x", "y", "out"), ins + (o,)):
            wanted.append((name, "%.9g" % f32(TENSORS[i][3][0]), str(TENSORS[i][4][0])))
    t.ok(got == wanted,
         "bcastgen's banners: each scale the float32 the model holds (%.9g), each zero point",
         ["got %r" % (got,), "wanted %r" % (wanted,)])
    t.ok(len(got) == 9 and all(f32(float(s)) == f32(TENSORS[i][3][0])
                               for (_, s, _), i in zip(got, (1, 2, 3, 3, 4, 5, 8, 9, 10))),
         "... and each %.9g reads back as that float32", ["got %r" % (got,)])

    # The README's example of its output: its lines are the script's for
    # this model, named model.tflite.
    with open(os.path.join(TESTS, "..", "README.md")) as f:
        readme = f.read()
    m = re.search(r"^\$ python3 examples/firmware/tflite_quant.py model.tflite\n(.*?)^```$",
                  readme, re.S | re.M)
    shown = [line for line in m.group(1).splitlines() if line != "..."] if m else []
    with open(os.path.join(d, "model.tflite"), "wb") as f:
        f.write(data)
    rc, out, err = run(["model.tflite"], cwd=d)
    t.ok(len(shown) >= 3 and all(line in out.splitlines() for line in shown),
         "the README's example output: lines of the script's output for the model",
         ["README: %r" % shown] + show(rc, out, err))

    # examples/firmware/kernels.lua has the same scales and zero points,
    # as the script prints them for this model.
    with open(os.path.join(TESTS, "..", "examples", "firmware", "kernels.lua")) as f:
        lua = f.read()
    pairs = r'\{"([^"]+)", (-?\d+)\}'
    blocks = [re.search(r'^kernel "%s" \{.*?\}$' % k, lua, re.S | re.M)
              for k in ("se_scale", "residual")]
    ex = [re.findall(pairs, b.group(0)) if b else None for b in blocks]
    printed = [re.findall(pairs, line) for line in (MUL_LINE, ADD_LINE)]
    t.ok(ex == printed and len(ex[0]) == 3,
         "examples/firmware/kernels.lua's se_scale and residual: the scales and zero points "
         "the script prints for the model's MUL and ADD",
         ["kernels.lua %r" % (ex,), "printed %r" % (printed,)])

    rc, out, err = run(["--list", path])
    conv = ",".join("%.9g" % f32(s) for s in CONV_SCALES)
    rows = [
        ("tensor", "name", "dtype", "shape", "scale", "zero point"),
        ("0", '"input"', "float32", "1,8,8,16", "-", "-"),
        ("1", '"block/feat"', "int8", "1,8,8,16", "0.0235294122", "-128"),
        ("2", '"block/se/gate"', "int8", "1,1,1,16", "0.00390625", "-128"),
        ("3", '"block/se/mul"', "int8", "1,8,8,16", "0.0219607837", "-128"),
        ("4", '"block/skip"', "int8", "1,8,8,16", "0.047450982", "-18"),
        ("5", '"block/add"', "int8", "1,8,8,16", "0.0392156877", "-128"),
        ("6", '"block/conv/weights"', "int8", "16,1,1,16", "per channel (16)",
         "per channel (16)"),
        ("7", '"input_twice"', "float32", "1,8,8,16", "-", "-"),
        ("8", '"audio/x"', "int16", "4,10", "0.000244140625", "0"),
        ("9", '"audio/y"', "int16", "10", "0.00048828125", "0"),
        ("10", '"audio/diff"', "int16", "4,10", "3.05175781e-05", "0"),
    ]
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    want = "".join("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[5] + "\n"
                   + ("    scales along dimension 0: %s\n    zero points: %s\n"
                      % (conv, ",".join(["0"] * 16)) if r[0] == "6" else "")
                   for r in rows)
    t.ok(rc == 0 and out == want and err == "",
         "--list: every tensor's index, name, dtype, shape, scale and zero point; "
         "below a per-channel one's row, its scales and zero points",
         show(rc, out, err) + ["wanted:", want])

    # What it refuses: an error line each, exit status 1.
    d = fresh(scratch)
    lua = os.path.join(TESTS, "..", "examples", "firmware", "kernels.lua")
    for what, path in (("a Lua file", lua), ("a FlatBuffer with another identifier", None)):
        if path is None:
            path = os.path.join(d, "other.bin")
            with open(path, "wb") as f:
                f.write(model(identifier=b"CIR0"))
        rc, out, err = run([path])
        t.ok(rc == 1 and out == "" and err == "tflite_quant.py: %s: error: not a TFLite "
             'model: no file identifier "TFL3" at bytes 4-8\n' % path,
             "%s: not a TFLite model, exit status 1" % what, show(rc, out, err))

    path = os.path.join(d, "short.tflite")
    with open(path, "wb") as f:
        f.write(data[:len(data) // 2])
    rc, out, err = run([path])
    t.ok(rc == 1 and out == "" and re.fullmatch(
        r"tflite_quant\.py: %s: error: a read at \d+ of a file of %d bytes\n"
        % (re.escape(path), len(data) // 2), err),
         "a model cut short: an error line, no traceback, exit status 1", show(rc, out, err))

    for what, kwargs, n, message in (
            ("a tensor quantized per channel", {"gate_per_channel": True}, 2,
             'op 2 (MUL): tensor 2 "block/se/gate" is quantized per channel (16 scales '
             "along dimension 3): bcastgen's kernels take one scale per tensor"),
            ("an int8 tensor with no quantization", {"skip_unquantized": True}, 3,
             'op 3 (ADD): tensor 4 "block/skip" is int8 but has no scale (no quantization)'),
            ("a fused TANH", {"add_activation": TANH}, 3,
             "op 3 (ADD): fused activation TANH: bcastgen has none, relu, relu6 and "
             "relu_n1_to_1")):
        path = os.path.join(d, "refused%d.tflite" % t.n)
        with open(path, "wb") as f:
            f.write(model(**kwargs))
        rc, out, err = run([path])
        # The other ops' kernels, each with its comment line, are printed.
        keep = [line for line in expected(path).splitlines(True)
                if not line.startswith("-- op %d:" % n) and 'kernel "op%d_' % n not in line]
        t.ok(rc == 1 and err == "tflite_quant.py: %s: error: %s\n" % (path, message)
             and out == "".join(keep),
             "%s: an error line for that op, the other kernels printed, exit status 1" % what,
             show(rc, out, err) + ["wanted stderr: " + message])
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
