#!/usr/bin/python3
"""t175-values: --explain --values arange against NumPy. Each operand
holds np.arange(n).reshape(shape) in its dtype; what the text prints for
each operand and for the result must be str() of NumPy's arrays, byte for
byte: the seeds' examples (seed 004's a + b + d among them) and random
shapes, ops and dtypes, in English and in Chinese; and the picture's
result cells hold the result's values.
"""
import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import Tap  # noqa: E402

try:
    import numpy as np
except ImportError:
    print("1..0 # SKIP no numpy for %s (python3-numpy)" % sys.executable)
    sys.exit(0)

GEN = os.environ.get("GEN") or "build/bcastgen"
TAP = Tap()
DTYPES = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8,
          "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "f16": np.float16, "f32": np.float32,
          "f64": np.float64}
OPS = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply,
       "maximum": np.maximum, "minimum": np.minimum}


def printed(text, head):
    """The array printed after the line HEAD, up to the next line of text
    (its 2 columns of indent taken off, blank lines within kept)."""
    lines = text.split("\n")
    out = []
    for line in lines[lines.index(head) + 1:]:
        if line and not (line.startswith("   ") or re.match(r"^  [-\d\[]", line)):
            break
        if line.startswith("  out = ") or re.match(r"^  \w+ = np\.arange", line):
            break
        out.append(line[2:])
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out)


def check(what, args, want, operands=()):
    """Run bcastgen with ARGS; the result it prints must be str(WANT), and
    each of OPERANDS, (name, shape, NumPy array), printed under its
    np.arange line, str() of its array."""
    p = subprocess.run([GEN, "--explain", "rule", "--values", "arange"] + args,
                       capture_output=True, text=True)
    diag = [] if p.returncode == 0 else ["exit %d" % p.returncode, p.stderr]
    for n, s, x in operands:
        tup = "(" + ",".join(map(str, s)) + ("," if len(s) == 1 else "") + ")"
        head = "  %s = np.arange(%d, dtype=np.%s).reshape(%s)" % (n, x.size, x.dtype, tup)
        if head not in p.stdout.split("\n"):
            diag.append("no line %r" % head)
        elif printed(p.stdout, head) != str(x):
            diag += ["%s printed:" % n, printed(p.stdout, head), "numpy:", str(x)]
    heads = [l for l in p.stdout.split("\n") if l.startswith("  out = ")]
    if len(heads) != 1:
        diag.append("no line '  out = ...'")
    elif printed(p.stdout, heads[0]) != str(want):
        diag += ["result printed:", printed(p.stdout, heads[0]), "numpy:", str(want)]
    TAP.ok(not diag, what, diag)


def arange(shapes, dtype):
    """Each of SHAPES holding np.arange(n) in DTYPE (bcastgen's name)."""
    return [np.arange(int(np.prod(s)), dtype=DTYPES[dtype]).reshape(s) for s in shapes]


def case(shapes, op, dtype, lang="en"):
    """Explain OP on SHAPES in DTYPE with --values arange; compare with NumPy."""
    names = ["a", "b", "d", "e"][:len(shapes)]
    words = ["%s=%s" % (n, ",".join(map(str, s))) for n, s in zip(names, shapes)]
    arrays = arange(shapes, dtype)
    want = arrays[0]
    with np.errstate(over="ignore"):
        for x in arrays[1:]:
            want = OPS[op](want, x).astype(DTYPES[dtype])
    check("%s %s %s (%s)" % (op, dtype, " ".join(words), lang),
          ["--op", op, "--dtype", dtype, "--lang", lang] + words, want,
          list(zip(names, shapes, arrays)))


def expr_case(expr, dtype, shapes, fn, axis=None):
    """--expr EXPR on operands x, y (of SHAPES, in DTYPE); FN computes it in NumPy."""
    words = ["%s:%s=%s" % (n, dtype, ",".join(map(str, sh))) for n, sh in zip("xy", shapes)]
    with np.errstate(all="ignore"):
        want = fn(*arange(shapes, dtype))
    check("--expr %s on %s (%s)" % (expr, dtype, words),
          ["--expr", expr] + words + ([] if axis is None else ["--axis", str(axis)]), want)


# the seeds' examples
case([(3, 1, 2), (1, 2, 1), (2, 1, 2, 2)], "add", "i64")
case([(3, 1, 2), (1, 2, 1), (2, 1, 2, 2)], "add", "f32", "zh")
case([(2, 1, 4), (3, 1)], "add", "f32")
case([(4, 1), (3,)], "add", "i32")
case([(4, 3), (3,)], "multiply", "f64", "zh")
case([(2, 3, 4), ()], "subtract", "i16")
case([(4, 3, 2, 2), (3, 1, 1)], "add", "f32")
# rows longer than NumPy's 75 columns, wrapped as it wraps them
case([(2, 30), (30,)], "add", "i32")
case([(4, 60), (60,)], "multiply", "f64", "zh")
case([(3, 2, 40), (40,)], "subtract", "i8")
case([(3,), (2, 3)], "subtract", "u64")

rng = random.Random(int(os.environ.get("VALUES_SEED", "175")))
for k in range(40):
    rank = rng.randint(0, 4)
    out = [rng.choice([1, 2, 3, 4, 5]) for _ in range(rank)]
    shapes = []
    for _ in range(rng.choice([2, 2, 3])):
        r = rng.randint(0, rank)
        shapes.append(tuple(1 if rng.random() < 0.4 else n for n in out[rank - r:]))
    if int(np.prod(np.broadcast_shapes(*shapes))) > 256:
        continue
    op = rng.choice(sorted(OPS))
    if op == "subtract" and len(shapes) > 2:
        shapes = shapes[:2]
    case(shapes, op, rng.choice(sorted(DTYPES)), rng.choice(["en", "zh"]))

# floats rounded as their dtype rounds them, and printed with their own
# shortest digits; minus zero; inf; u64 compared unsigned; no elements
expr_case("x*y", "f16", [(16, 16), (16,)], lambda x, y: x * y)
expr_case("x*x*x*y", "f16", [(5, 6), (6,)], lambda x, y: x * x * x * y)
expr_case("x*x*x*x*x*x*x*x+y", "f32", [(16, 16), (16,)], lambda x, y: x * x * x * x * x * x * x * x + y)
expr_case("x*x*x*y", "f32", [(16, 16), (16,)], lambda x, y: x * x * x * y)
expr_case("-x*y", "f32", [(3, 4), (4,)], lambda x, y: -x * y)
expr_case("-x", "f64", [(3,)], lambda x: -x)
expr_case("-x", "f32", [()], lambda x: -x)
expr_case("max(x - 1, y)", "u64", [(16, 16), (16,)], lambda x, y: np.maximum(x - np.uint64(1), y))
expr_case("abs(y - x)", "u64", [(16, 16), (16,)], lambda x, y: y - x)
expr_case("min(x*2, y-7)", "u64", [(5, 6), (6,)],
          lambda x, y: np.minimum(x * np.uint64(2), y - np.uint64(7)))
expr_case("x + 100", "f32", [(2, 2)], lambda x: x + np.float32(100))
expr_case("x + y", "i32", [(0, 3), (3,)], lambda x, y: x + y)
expr_case("x + y", "f32", [(2, 3, 4), (3, 1)], lambda x, y: x + y, axis=1)

# the picture: the result's cells hold its values (seed 004's 13 is there)
p = subprocess.run([GEN, "--explain", "--values", "arange", "--format", "svg", "--dtype", "i64",
                    "a=3,1,2", "b=1,2,1", "d=2,1,2,2"], capture_output=True, text=True)
cells = re.findall(r">(\d+)</text>", p.stdout)
TAP.ok(p.returncode == 0 and "13" in cells and "11" in cells,
       "the picture's result cells hold a + b + d's values (13 and 11 among them)",
       [p.stderr, "cells: %s" % " ".join(cells[-24:])])

TAP.done()
