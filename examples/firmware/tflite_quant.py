#!/usr/bin/env python3
"""tflite_quant.py: the scales and zero points of a .tflite model's int8
and int16 ADD, SUB and MUL, as bcastgen spec kernels.

    python3 tflite_quant.py model.tflite > quant.lua
    python3 tflite_quant.py --list model.tflite

For each int8 or int16 ADD, SUB or MUL of the model's first subgraph it
prints a kernel of a bcastgen spec (Lua): named after the operator's
index, its operands x and y with the input tensors' shapes and dtype,
each tensor's scale (the float32 the model holds, printed %.9g, which
reads back as the same float32) and zero point, and the activation fused
into the operator; a comment above it names the tensors. --list prints
every tensor instead: its index, name, dtype, shape, scale and zero
point.

It refuses, with an error line and exit status 1, a file that is not a
TFLite model (no "TFL3" at bytes 4-8) or is cut short, and an operator
that bcastgen cannot compute as the model does: a tensor quantized per
channel (more than one scale), an int8 or int16 tensor with no scale, a
fused activation other than NONE, RELU, RELU6 and RELU_N1_TO_1, mixed
dtypes, uint8. The kernels of the other operators are still printed.
Operators of float tensors are left out.

The Python 3 standard library only (struct, argparse, sys): no
TensorFlow, no flatbuffers package, no network. The parts of TFLite's
schema (tensorflow/lite/schema/schema.fbs) read here:

  Model:          operator_codes (field 1), subgraphs (2)
  OperatorCode:   deprecated_builtin_code (0, byte), builtin_code (3,
                  int); the op is the larger of the two
  SubGraph:       tensors (0), operators (3)
  Tensor:         shape (0, [int]), type (1, byte), name (3, string),
                  quantization (4)
  QuantizationParameters: scale (2, [float]), zero_point (3, [long]),
                  quantized_dimension (6, int)
  Operator:       opcode_index (0, uint), inputs (1, [int]), outputs (2),
                  builtin_options_type (3, ubyte), builtin_options (4)
  AddOptions, MulOptions, SubOptions: fused_activation_function (0, byte)

A FlatBuffer is little-endian. Its first 4 bytes are the offset of the
root table (Model), then the file identifier. A table begins with an
int32, its position less its vtable's; the vtable holds uint16s: its own
size in bytes, the table's, then for each field k (at 4 + 2k) the
field's offset in the table, 0 (or beyond the vtable) for a field that
is absent and takes its default. A field that refers to a table, vector
or string holds a uint32 offset from the field's own position; a vector
(or string) is a uint32 count, then the elements; a vector of tables
holds such an offset per element.
"""
import argparse
import struct
import sys

# TensorType (schema.fbs): the dtypes a --list names; bcastgen's quantized
# kernels take int8 and int16.
TENSOR_TYPES = {
    0: "float32", 1: "float16", 2: "int32", 3: "uint8", 4: "int64", 5: "string",
    6: "bool", 7: "int16", 8: "complex64", 9: "int8", 10: "float64",
    11: "complex128", 12: "uint64", 13: "resource", 14: "variant", 15: "uint32",
    16: "uint16", 17: "int4", 18: "bfloat16",
}
BCASTGEN_DTYPES = {9: "i8", 7: "i16"}

# BuiltinOperator: bcastgen's op, and the BuiltinOptions union member
# (AddOptions 11, MulOptions 21, SubOptions 28) that holds its activation.
OPS = {0: ("ADD", "add", 11), 18: ("MUL", "multiply", 21), 41: ("SUB", "subtract", 28)}

# ActivationFunctionType: bcastgen's --activation, or None where it has none.
ACTIVATIONS = {0: "none", 1: "relu", 2: "relu_n1_to_1", 3: "relu6"}
ACTIVATION_NAMES = {0: "NONE", 1: "RELU", 2: "RELU_N1_TO_1", 3: "RELU6", 4: "TANH",
                    5: "SIGN_BIT"}


class Malformed(Exception):
    """The bytes are not the FlatBuffer they claim to be."""


class Refused(Exception):
    """An operator bcastgen cannot compute as the model does; str() says why."""


class Table:
    """A FlatBuffer table at POS of DATA (bytes)."""

    def __init__(self, data, pos):
        self.data = data
        self.pos = pos
        self.vtable = pos - read(data, "<i", pos)
        self.vsize = read(data, "<H", self.vtable)
        if self.vsize < 4 or self.vsize % 2:
            raise Malformed("a vtable of %d bytes at %d" % (self.vsize, self.vtable))

    def field(self, k):
        """Where field K is, or None when it is absent."""
        slot = 4 + 2 * k
        if slot >= self.vsize:
            return None
        off = read(self.data, "<H", self.vtable + slot)
        return self.pos + off if off else None

    def scalar(self, k, fmt, default=0):
        at = self.field(k)
        return default if at is None else read(self.data, fmt, at)

    def ref(self, k):
        """Where the object field K refers to is, or None."""
        at = self.field(k)
        return None if at is None else at + read(self.data, "<I", at)

    def table(self, k):
        at = self.ref(k)
        return None if at is None else Table(self.data, at)

    def vector(self, k, fmt):
        """Field K's vector of scalars (struct format FMT), or None when absent."""
        at = self.ref(k)
        if at is None:
            return None
        n = read(self.data, "<I", at)
        size = struct.calcsize(fmt)
        if at + 4 + n * size > len(self.data):
            raise Malformed("a vector of %d at %d runs past the end" % (n, at))
        return [read(self.data, fmt, at + 4 + i * size) for i in range(n)]

    def tables(self, k):
        """Field K's vector of tables ([] when absent)."""
        at = self.ref(k)
        if at is None:
            return []
        n = read(self.data, "<I", at)
        if at + 4 + 4 * n > len(self.data):
            raise Malformed("a vector of %d tables at %d runs past the end" % (n, at))
        return [Table(self.data, e + read(self.data, "<I", e))
                for e in range(at + 4, at + 4 + 4 * n, 4)]

    def string(self, k):
        v = self.vector(k, "<B")
        return None if v is None else bytes(v).decode("utf-8", "replace")


def read(data, fmt, pos):
    if pos < 0 or pos + struct.calcsize(fmt) > len(data):
        raise Malformed("a read at %d of a file of %d bytes" % (pos, len(data)))
    return struct.unpack_from(fmt, data, pos)[0]


def float32_text(v):
    """A float32 (read from the model, exact in a Python float) as %.9g:
    the shortest form bcastgen's banner also prints, reading back as it."""
    return "%.9g" % v


class Tensor:
    def __init__(self, index, t):
        self.index = index
        self.shape = t.vector(0, "<i") or []
        self.type = t.scalar(1, "<b")
        self.name = t.string(3) or ""
        self.scales, self.zero_points, self.axis = [], [], 0
        q = t.table(4)
        if q is not None:
            self.scales = q.vector(2, "<f") or []
            self.zero_points = q.vector(3, "<q") or []
            self.axis = q.scalar(6, "<i")

    def dtype(self):
        return TENSOR_TYPES.get(self.type, "type %d" % self.type)

    def label(self):
        return 'tensor %d "%s"' % (self.index, quoted(self.name))

    def quant(self):
        """(scale as text, zero point) for bcastgen; Refused unless one scale."""
        if not self.scales:
            raise Refused("%s is %s but has no scale (no quantization)"
                          % (self.label(), self.dtype()))
        if len(self.scales) > 1:
            raise Refused("%s is quantized per channel (%d scales along dimension %d): "
                          "bcastgen's kernels take one scale per tensor"
                          % (self.label(), len(self.scales), self.axis))
        scale = self.scales[0]
        if not scale > 0 or scale == float("inf"):
            raise Refused("%s has scale %r: not a positive finite float32"
                          % (self.label(), scale))
        if len(self.zero_points) != 1:
            raise Refused("%s has %d zero points for its one scale"
                          % (self.label(), len(self.zero_points)))
        return float32_text(scale), self.zero_points[0]


def quoted(name):
    """NAME for a one-line comment: backslashes, quotes and control characters escaped."""
    out = []
    for c in name:
        if c in '\\"':
            out.append("\\" + c)
        elif ord(c) < 32 or ord(c) == 127:
            out.append("\\x%02x" % ord(c))
        else:
            out.append(c)
    return "".join(out)


def load(path):
    """The model's operator codes (a list of builtin op numbers), and the
    first subgraph's tensors and operators (Tables)."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8 or data[4:8] != b"TFL3":
        raise Malformed('not a TFLite model: no file identifier "TFL3" at bytes 4-8')
    model = Table(data, read(data, "<I", 0))
    codes = []
    for c in model.tables(1):
        # Models before builtin_code existed have only the byte; later
        # ones put 127 (PLACEHOLDER_FOR_GREATER_OP_CODES) there for the
        # ops above it: TFLite takes the larger of the two.
        codes.append(max(c.scalar(0, "<b"), c.scalar(3, "<i")))
    subgraphs = model.tables(2)
    if not subgraphs:
        raise Malformed("the model has no subgraph")
    g = subgraphs[0]
    tensors = [Tensor(i, t) for i, t in enumerate(g.tables(0))]
    return codes, tensors, g.tables(3)


def kernel(index, op, codes, tensors):
    """The spec kernel of operator INDEX (a Table): (comment, kernel) or
    None when it is not an int8/int16 ADD, SUB or MUL; Refused."""
    opcode = op.scalar(0, "<I")
    if opcode >= len(codes):
        raise Malformed("operator %d has opcode index %d of %d" % (index, opcode, len(codes)))
    if codes[opcode] not in OPS:
        return None
    what, bc_op, options_type = OPS[codes[opcode]]
    where = "op %d (%s)" % (index, what)
    inputs = op.vector(1, "<i") or []
    outputs = op.vector(2, "<i") or []
    if len(inputs) != 2 or len(outputs) != 1:
        raise Refused("%s: %d inputs and %d outputs, not 2 and 1"
                      % (where, len(inputs), len(outputs)))
    for i in inputs + outputs:
        if not 0 <= i < len(tensors):
            raise Malformed("%s: tensor %d of %d" % (where, i, len(tensors)))
    x, y, out = (tensors[i] for i in inputs + outputs)
    types = {x.type, y.type, out.type}
    if types == {3}:
        raise Refused("%s: uint8, quantized as older converters did: bcastgen's "
                      "kernels take int8 and int16" % where)
    if not types & set(BCASTGEN_DTYPES):
        return None                 # a float (or other) op: not quantized
    if len(types) > 1:
        raise Refused("%s: mixed dtypes %s, %s -> %s"
                      % (where, x.dtype(), y.dtype(), out.dtype()))
    for t in (x, y):
        if any(d < 0 for d in t.shape):
            raise Refused("%s: %s has shape [%s]: bcastgen needs every size"
                          % (where, t.label(), ",".join(map(str, t.shape))))
    act = 0
    kind = op.scalar(3, "<B")
    options = op.table(4)
    if kind not in (0, options_type):
        raise Malformed("%s: builtin options of type %d, not %d" % (where, kind, options_type))
    if kind and options is not None:
        act = options.scalar(0, "<b")
    if act not in ACTIVATIONS:
        raise Refused("%s: fused activation %s: bcastgen has none, relu, relu6 and "
                      "relu_n1_to_1" % (where, ACTIVATION_NAMES.get(act, str(act))))
    quant = []
    for name, t in (("x", x), ("y", y), ("out", out)):
        try:
            scale, zp = t.quant()
        except Refused as e:
            raise Refused("%s: %s" % (where, e))
        quant.append('%s = {"%s", %d}' % (name, scale, zp))
    dtype = BCASTGEN_DTYPES[x.type]
    comment = "-- op %d: %s: x = %s, y = %s, out = %s" % (
        index, what, x.label(), y.label(), out.label())
    line = ('kernel "op%d_%s" { op = "%s", dtype = "%s", activation = "%s", '
            'quant = { %s }, "x:%s=%s", "y:%s=%s" }'
            % (index, what.lower(), bc_op, dtype, ACTIVATIONS[act], ", ".join(quant),
               dtype, ",".join(map(str, x.shape)), dtype, ",".join(map(str, y.shape))))
    return comment, line


def listing(tensors):
    """The --list table: one row a tensor, columns padded; a tensor
    quantized per channel has its scales and zero points on two more
    lines below its row."""
    rows = [("tensor", "name", "dtype", "shape", "scale", "zero point")]
    more = {}
    for t in tensors:
        if not t.scales:
            scale, zp = "-", "-"
        elif len(t.scales) == 1:
            scale, zp = float32_text(t.scales[0]), ",".join(map(str, t.zero_points))
        else:
            scale = "per channel (%d)" % len(t.scales)
            zp = "per channel (%d)" % len(t.zero_points)
            more[len(rows)] = [
                "    scales along dimension %d: %s"
                % (t.axis, ",".join(float32_text(s) for s in t.scales)),
                "    zero points: %s" % ",".join(map(str, t.zero_points))]
        rows.append((str(t.index), '"%s"' % quoted(t.name), t.dtype(),
                     ",".join(map(str, t.shape)), scale, zp))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    lines = []
    for i, r in enumerate(rows):
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[-1])
        lines.extend(more.get(i, []))
    return lines


def main(argv):
    ap = argparse.ArgumentParser(
        prog="tflite_quant.py",
        description="Print a .tflite model's int8/int16 ADD, SUB and MUL as bcastgen "
                    "spec kernels, with the model's scales and zero points.")
    ap.add_argument("model", help="the .tflite file")
    ap.add_argument("--list", action="store_true",
                    help="list every tensor: name, dtype, shape, scale, zero point")
    args = ap.parse_args(argv)
    prog = "tflite_quant.py: %s" % args.model
    try:
        codes, tensors, operators = load(args.model)
        if args.list:
            print("\n".join(listing(tensors)))
            return 0
        lines, errors = [], []
        for i, op in enumerate(operators):
            try:
                k = kernel(i, op, codes, tensors)
            except Refused as e:
                errors.append(str(e))
                continue
            if k:
                lines.extend(k)
    except OSError as e:
        print("%s: error: %s" % (prog, e.strerror or e), file=sys.stderr)
        return 1
    except Malformed as e:
        print("%s: error: %s" % (prog, e), file=sys.stderr)
        return 1
    if lines:
        print("-- The int8/int16 ADD, SUB and MUL of %s, subgraph 0, by tflite_quant.py"
              % quoted(args.model))
        print("\n".join(lines))
    for e in errors:
        print("%s: error: %s" % (prog, e), file=sys.stderr)
    if not lines and not errors:
        print("%s: error: no int8 or int16 ADD, SUB or MUL in subgraph 0" % prog,
              file=sys.stderr)
        return 1
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
