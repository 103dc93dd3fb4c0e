"""NumPy differential test of the kernels bcastgen emits.

Builds a seeded corpus of kernels (every op x dtype x strategy that
applies, a few times each, then random ones), generates them all with
`bcastgen -o` (a third of them `--tune cascadelake`, whose elements
written out are stored a vector at a time, BC_STORE_ORDER), compiles them in a few batches together with harnesses
written here, runs them on inputs full of edge values and compares every
output element with NumPy 1.24. The same corpus is then compiled and run
again under ASan + UBSan.

What is compared (README's Ops, Dtypes and Semantics):
  - bit for bit, except that any NaN equals any NaN where the NaN that
    comes out is the hardware's or compiler's choice; for maximum,
    minimum, fmax, fmin, copysign, heaviside, negative, absolute, where
    and copy a NaN's sign and payload must be NumPy's too (inputs hold
    NaNs with payloads). Float power, exp, log, hypot, arctan2 and
    logaddexp within ULP_TOL ULP of the narrower of the kernel's and the
    output's dtype, 1 ULP where that is f16; infinities exactly;
  - the kernel's dtype: --dtype, or, without it (a third of the cases,
    operand dtypes drawn to make it each dtype in turn), NumPy's: the
    np.result_type of the operands' stored dtypes (an operand without a
    dtype counts as f32), and for an op that takes only floats, the
    dtype NumPy's loop selection picks (np.sqrt of int8 gives float16).
    The banner's --dtype must say so. FIXED adds cases where these are
    not what promoting pairwise from the left gives, among others;
  - logical ops and where's condition test each operand for truth as it
    is stored (a float 0.5 or NaN is true in an integer kernel, an int32
    INT_MIN in an int8 one), as NumPy's logical ops on the arrays do;
  - f16 (np.float16, kept as its bits) as kernel, operand and output
    dtype: NumPy's float16 loops compute each operation in float and
    round it back, so a fold of three operands rounds twice.
Operands are converted to the kernel's dtype as NumPy's astype does; a
float operand of an integer kernel holds only values in the kernel's
range (NumPy leaves the others undefined).

Usage: kernels_oracle.py GEN        (run with /usr/bin/python3)
Env:   BCAST_KERNELS_N     number of cases (default 1200; make check-quick 100)
       BCAST_KERNELS_SEED  corpus seed (default 20240611)
       BCAST_KERNELS_JOBS  parallel jobs (default 2)
       BCAST_KERNELS_KEEP  keep the scratch directory if set (path printed)
       BCAST_KERNELS_LOG   write every failing case's diagnostic to this file
       BCAST_KERNELS_TIMEOUT  seconds a harness may run before its current
                           kernel counts as hung (default 300)
       BCAST_KERNELS_CC    the C compiler (default gcc)

Each batch of kernels is compiled first as one translation unit that
includes all their .c files (ten times faster than one gcc run per file);
kernels named in its diagnostics, or the whole batch if it still fails,
are compiled one file each, so every reported diagnostic comes from a
normal compile of one kernel. Each harness calls its kernels on exact-size
heap buffers, checks that const inputs are unchanged, and when a kernel
crashes (sanitizer report, signal, time-out) the case fails and the
harness restarts after it.

The ops, their aliases, operands, kinds and dtypes are read from the
generator's op table (bcastgen --list ops, tests/optable.py); what the
oracle knows of each, NumPy's function first, is keyed by op name, and a
test checks that it knows every op of the table.

TAP: one test that the oracle knows every op of the table, one for the
generation of all kernels, one for the headers, then for each build (-O2
with strict warnings; -O0 with sanitizers) one test per compile batch and
one per op.
"""
import concurrent.futures
import math
import os
import random
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

import optable

# ---------------------------------------------------------------- tables

# dtype name -> (numpy dtype, C type). An f16 is an IEEE binary16 kept as
# its bits (bc_f16, a uint16_t, in the kernels): the harness passes
# np.float16 data, whose bytes are those bits, as uint16_t.
DTYPES = {
    "f16": (np.dtype(np.float16), "uint16_t"),
    "f32": (np.dtype(np.float32), "float"),
    "f64": (np.dtype(np.float64), "double"),
    "i8": (np.dtype(np.int8), "int8_t"),
    "i16": (np.dtype(np.int16), "int16_t"),
    "i32": (np.dtype(np.int32), "int32_t"),
    "i64": (np.dtype(np.int64), "int64_t"),
    "u8": (np.dtype(np.uint8), "uint8_t"),
    "u16": (np.dtype(np.uint16), "uint16_t"),
    "u32": (np.dtype(np.uint32), "uint32_t"),
    "u64": (np.dtype(np.uint64), "uint64_t"),
}
DT_NAMES = list(DTYPES)
FLOATS = ("f16", "f32", "f64")
INTS = [d for d in DT_NAMES if d not in FLOATS]
# a float dtype's bits, as an unsigned integer type
UINT = {"f16": np.uint16, "f32": np.uint32, "f64": np.uint64}
# random dtypes for operands and outputs: f16 twice as often as the others
DT_CHOICE = DT_NAMES + ["f16"]

# The oracle: the NumPy function of each op of the table, by its name.
# reference() computes divide of integers itself (C's division, truncating,
# x / 0 = 0), and where's condition and logical ops' operands as stored.
NUMPY = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
    "floor_divide": np.floor_divide, "remainder": np.remainder, "fmod": np.fmod,
    "power": np.power, "maximum": np.maximum, "minimum": np.minimum, "fmax": np.fmax,
    "fmin": np.fmin, "negative": np.negative, "absolute": np.absolute, "sqrt": np.sqrt,
    "exp": np.exp, "log": np.log, "floor": np.floor, "ceil": np.ceil,
    "copysign": np.copysign, "hypot": np.hypot, "arctan2": np.arctan2,
    "logaddexp": np.logaddexp, "heaviside": np.heaviside, "equal": np.equal,
    "not_equal": np.not_equal, "less": np.less, "less_equal": np.less_equal,
    "greater": np.greater, "greater_equal": np.greater_equal,
    "logical_and": np.logical_and, "logical_or": np.logical_or,
    "logical_xor": np.logical_xor, "logical_not": np.logical_not,
    "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or,
    "bitwise_xor": np.bitwise_xor, "invert": np.invert, "left_shift": np.left_shift,
    "right_shift": np.right_shift, "where": np.where, "copy": np.copy,
}
# The ops of the generator's table (bcastgen --list ops, read by
# read_table) that NUMPY knows, in the table's order: op -> (alias, kind,
# arity, types). arity "var" = 1..4 operands, folded left to right. kind:
# arith, cmp, logic, select, copy. types: any, int (integers only) or
# float (floats only; without --dtype, integer operands compute in the
# float NumPy's loops choose).
OPS = {}
OP_NAMES = []
KINDS = {"arith": "arith", "compare": "cmp", "logical": "logic", "select": "select",
         "copy": "copy"}
# Float results of these ops may differ from NumPy's by this many ULP of
# the narrower of the kernel's and the output's dtype (1 where that is
# f16), infinities and NaNs excepted (README's Semantics, bc_math.h).
ULP_TOL = {"power": 1, "exp": 4, "log": 4, "hypot": 1, "arctan2": 2, "logaddexp": 2}
# Ops whose float result must be NumPy's bit for bit, a NaN's sign and
# payload included (for the others any NaN equals any NaN: which NaN
# comes out of, say, NaN + NaN is the compiler's choice).
NAN_EXACT = ("maximum", "minimum", "fmax", "fmin", "copysign", "heaviside", "negative",
             "absolute", "where", "copy")
STRATEGIES = ("unroll", "loops", "auto")
NBATCH = 4
RUN_TIMEOUT = int(os.environ.get("BCAST_KERNELS_TIMEOUT", "300"))


def read_table(gen):
    """Fill OPS and OP_NAMES from GEN's op table; return the TAP test
    (ok, name, diagnostics) that NUMPY covers every op of it, that the
    ops whose float helper calls the C library are ULP_TOL's, and that
    NAN_EXACT names ops of it."""
    ops = optable.load(gen)
    ok, name, diags = optable.coverage(ops, "kernels_oracle.py's NumPy functions (NUMPY)",
                                       NUMPY, {})
    libm = sorted(op["name"] for op in ops if op["libm"])
    if sorted(ULP_TOL) != libm:
        ok = False
        diags.append("ULP_TOL has %s, but the ops that call the C library are %s" % (
            " ".join(sorted(ULP_TOL)), " ".join(libm)))
    for op in NAN_EXACT:
        if not optable.find(ops, op):
            ok = False
            diags.append("NAN_EXACT has '%s', which is not an op of the table" % op)
    for op in ops:
        if op["name"] in NUMPY:
            n = op["max_operands"]
            OPS[op["name"]] = (op["alias"], KINDS[op["kind"]], "var" if n is None else n,
                               op["types"])
            OP_NAMES.append(op["name"])
    return ok, name, diags


def is_float(dt):
    return dt in FLOATS


def bits(dt):
    return DTYPES[dt][0].itemsize * 8


def irange(dt):
    info = np.iinfo(DTYPES[dt][0])
    return int(info.min), int(info.max)


def out_dtype(case):
    if case["to"]:
        return case["to"]
    return "u8" if OPS[case["op"]][1] in ("cmp", "logic") else case["t"]


def shape_str(shape):
    return ",".join(str(d) for d in shape)


def prod(shape):
    n = 1
    for d in shape:
        n *= d
    return n


# ---------------------------------------------------------------- shapes

SIZES = [1, 1, 2, 2, 3, 3, 4, 5, 6, 7, 8, 9, 16, 31, 32, 64]


# A result shape of the given rank with at most `limit` elements.
def gen_result(rng, rank, limit, zero_p=0.07):
    sizes = SIZES if limit < 300 else SIZES + [17, 33, 63, 100, 127, 255]
    dims = [rng.choice(sizes) for _ in range(rank)]
    while prod(dims) > limit:
        i = rng.choice([k for k, d in enumerate(dims) if d > 1])
        dims[i] = max(1, dims[i] // 2 if rng.random() < 0.7 else dims[i] - 1)
    if rank and rng.random() < zero_p:
        dims[rng.randrange(rank)] = 0
    return dims


# An operand broadcastable to r: a suffix of r, some dims set to 1.
def sub_shape(rng, r, p1=0.35, full_rank=False):
    k = len(r) if full_rank or rng.random() < 0.5 else rng.randint(0, len(r))
    return [1 if rng.random() < p1 else d for d in r[len(r) - k:]]


def pick_rank(rng):
    return rng.choice([0, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 5, 6])


# NumPy-rule shapes for nops operands; shapes[0] is the result shape when
# first_full. Patterns that stress coalescing.
def numpy_shapes(rng, nops, limit, first_full):
    pattern = rng.choice(["same", "row", "col", "bias", "scalar", "mid1",
                          "random", "random"])
    if pattern == "bias":
        r = gen_result(rng, rng.choice([3, 4, 4]), limit)
        c = r[-3]
        shapes = [list(r)] + [[c, 1, 1] if rng.random() < 0.7 else list(r)
                              for _ in range(nops - 1)]
        if nops > 1 and all(s == r for s in shapes[1:]):
            shapes[1] = [c, 1, 1]
    else:
        r = gen_result(rng, pick_rank(rng), limit)
        rank = len(r)
        shapes = [list(r)]
        for _ in range(nops - 1):
            if pattern == "same":
                s = list(r)
            elif pattern == "row":
                s = list(r[rank - rng.randint(0, rank):]) if rank else []
            elif pattern == "col":
                j = rng.randint(0, rank)
                s = list(r[:j]) + [1] * (rank - j)
            elif pattern == "scalar":
                s = [] if rng.random() < 0.7 else sub_shape(rng, r)
            elif pattern == "mid1":
                s = [d if i in (0, rank - 1) or rng.random() < 0.4 else 1
                     for i, d in enumerate(r)]
            else:
                s = sub_shape(rng, r)
            shapes.append(s)
        if pattern == "scalar" and nops == 1 and rng.random() < 0.5:
            shapes = [[]]
    if not first_full:
        if pattern != "same" and rng.random() < 0.3:
            shapes[0] = sub_shape(rng, shapes[0], p1=0.25)
        rng.shuffle(shapes)
    return shapes


# Paddle-axis shapes for x, y: returns (x, y, axis, aligned x, aligned y).
def axis_shapes(rng, limit, x_full):
    kind = rng.random()
    r = gen_result(rng, rng.randint(1, 6), limit, zero_p=0.05)
    rank = len(r)
    big = list(r) if x_full else sub_shape(rng, r, p1=0.25, full_rank=True)
    if kind < 0.15 or rank < 2:                      # identical shapes
        s = list(big)
        return s, list(s), rng.randint(-1, rank - 1), s, list(s)
    if kind < 0.3:                                    # equal ranks: -1 / 0
        small = sub_shape(rng, r, full_rank=True)
        return big, small, rng.choice([-1, 0]), big, small
    if kind < 0.4:                                    # -1: NumPy rule
        small = sub_shape(rng, r)
        small = small[len(small) - min(len(small), rank - 1):]
        return big, small, -1, big, [1] * (rank - len(small)) + small
    # lower-rank operand placed at axis; sometimes with trailing 1s that
    # are trimmed first (and may reach past the end of the larger one)
    k = rng.randint(1, rank - 1)
    t = rng.randint(1, rank - 1 - k) if k < rank - 1 and rng.random() < 0.3 else 0
    a = rng.randint(0, rank - k)
    core = [1 if rng.random() < 0.3 else d for d in r[a:a + k]]
    if t == 0 and core[-1] == 1 and r[a + k - 1] != 1:
        core[-1] = r[a + k - 1]
    small = core + [1] * t
    trimmed = list(core)
    while trimmed and trimmed[-1] == 1:
        trimmed.pop()
    aligned = [1] * a + trimmed + [1] * (rank - a - len(trimmed))
    if x_full or rng.random() < 0.7:
        return big, small, a, big, aligned
    return small, big, a, aligned, big


# ---------------------------------------------------------------- corpus

def applies(op, dt):
    types = OPS[op][3]
    return types == "any" or (dt in INTS) == (types == "int")


_NP_DTYPE = {}


def numpy_dtype(op, dts):
    """The dtype bcastgen computes op in without --dtype, for operands
    stored as dts (None: an operand without a dtype, which counts as
    f32): NumPy's np.result_type of the stored dtypes (dtype objects, so
    no value-based casting), where's condition left out; for an op that
    takes only floats, the dtype NumPy's own loop selection gives
    (np.sqrt of int8 computes in float16)."""
    key = (op, tuple(dts))
    if key not in _NP_DTYPE:
        stored = [DTYPES[d or "f32"][0] for d in dts]
        if OPS[op][3] == "float":
            with np.errstate(all="ignore"):
                r = NUMPY[op](*[np.ones(1, s) for s in stored]).dtype
        elif op == "where":     # np.where: the condition has no say
            r = np.result_type(*stored[1:])
        else:
            r = np.result_type(*stored)
        _NP_DTYPE[key] = [d for d in DT_NAMES if DTYPES[d][0] == r][0]
    return _NP_DTYPE[key]


def promoted_dtypes(rng, op, t, nops, inplace):
    """Operand dtypes (None: none given) whose NumPy promotion, without
    --dtype, is t; None if none were found. The first operand of an
    in-place kernel has no dtype (it counts as f32)."""
    near = [d for d in DT_CHOICE + [None] if numpy_dtype(op, [d, t]) == t]
    for _ in range(40):
        dts = [None if inplace and j == 0 else
               t if rng.random() < 0.3 else rng.choice(near) for j in range(nops)]
        if numpy_dtype(op, dts) == t:
            return dts
    return None


def make_case(rng, op, t, strategy, hint=None):
    alias, kind, arity, _ = OPS[op]
    c = {"op": op, "t": t, "strategy": strategy, "to": None, "axis": None,
         "inplace": False, "fn": None, "outshape": None, "unroll_limit": None,
         "vseed": rng.getrandbits(63), "inputs": None}
    c["opname"] = alias if rng.random() < 0.3 else op
    if arity == "var":
        nops = rng.choice([1, 2, 2, 2, 3, 3, 4, 4])
    else:
        nops = arity
    c["inplace"] = kind in ("arith", "bit") and hint != "to" and rng.random() < 0.1
    dts = [None] * nops
    if hint == "promote":
        # no --dtype: the operands' dtypes make t (README's Dtypes)
        dts = promoted_dtypes(rng, op, t, nops, c["inplace"]) or dts
    elif hint == "dt" or rng.random() < 0.15:
        for j in range(nops):
            if not (c["inplace"] and j == 0) and rng.random() < 0.6:
                dts[j] = rng.choice(DT_CHOICE)
    c["omit_dtype"] = numpy_dtype(op, dts) == t and (hint == "promote" or rng.random() < 0.3)
    if not c["inplace"] and (hint == "to" or rng.random() < 0.1):
        # never float -> integer stores of arbitrary values (tested elsewhere)
        if kind in ("cmp", "logic"):
            c["to"] = rng.choice([d for d in DT_CHOICE if d != "u8"])
        elif is_float(t):
            c["to"] = rng.choice([d for d in FLOATS if d != t])
        else:
            c["to"] = rng.choice([d for d in DT_CHOICE if d != t])
    # f16 code converts at every operation: unrolled, it is slow to compile
    f16 = "f16" in [t, c["to"]] + dts
    if strategy == "unroll":
        limit = 16 if f16 else 64
        c["unroll_limit"] = 64
    else:
        limit = rng.choice([16, 64, 300, 2000, 2000, 2000, 4096])
        if strategy == "auto" and rng.random() < 0.3:
            c["unroll_limit"] = rng.choice([1, 8, 16] if f16 else [1, 8, 64, 256])
    use_axis = nops == 2 and kind != "copy" and rng.random() < 0.12
    names = ["x", "y"] if use_axis else ["a", "b", "c", "d"][:nops]
    if rng.random() < 0.1:
        names = ["in" + n for n in names]
    if use_axis:
        x, y, axis, ax, ay = axis_shapes(rng, limit, c["inplace"])
        shapes, aligned = [x, y], [ax, ay]
        c["axis"] = axis
    else:
        shapes = numpy_shapes(rng, nops, limit, c["inplace"])
        aligned = list(shapes)
    result = list(np.broadcast_shapes(*[tuple(s) for s in aligned]))
    if kind == "copy":
        # np.broadcast_to: the operand stretched to a (larger) shape
        target = gen_result(rng, pick_rank(rng), limit)
        if rng.random() < 0.8 and len(target) < 6:
            target = [rng.choice([1, 2, 3])] * rng.randint(0, 2) + target
            while prod(target) > limit:
                target[rng.randrange(len(target))] = 1
        shapes = [sub_shape(rng, target)]
        aligned = list(shapes)
        result = list(target)
        c["outshape"] = result
    elif rng.random() < 0.05:
        c["outshape"] = result
    if rng.random() < 0.1:
        c["fn"] = "fn_%d" % rng.randrange(10 ** 6)      # made unique later
    c["operands"] = [{"name": n, "dt": d, "shape": list(s), "aligned": list(al)}
                     for n, d, s, al in zip(names, dts, shapes, aligned)]
    c["result"] = result
    return c


# Fixed cases: (op, --dtype or None for NumPy's promotion, operands,
# inputs by operand name or None for random ones[, the strategy, else
# the next of STRATEGIES in turn]). Kernel dtypes chosen by
# NumPy's promotion, also where np.result_type of three dtypes is not the
# pairwise promotion folded from the left, and where NumPy's loop for an
# op that takes only floats is not the float of the promoted integer type
# (int8 with uint8 gives float16); truth tested in the stored dtype (0.5,
# -0.25 and NaN are true, INT_MIN too); f16 folds rounded after each
# operation (-2 + 4588 is the tie 4586, which rounds to 4584; unrounded,
# 4586 - 92 would be the tie 4494, which rounds to 4496, not 4492).
NAN = math.nan
FIXED = [
    ("add", "f16", "a=2 b=2 c=2", {"a": [-2.0, 1.0], "b": [4588.0, 2049.0], "c": [-92.0, 2.0]}),
    ("multiply", "f16", "a=1 b=1 c=1", {"a": [-9.9765625], "b": [-0.0653076171875],
                                        "c": [-7.0]}),
    ("add", None, "a:i8=5 b:u8=5 c:f16=5", None),
    ("multiply", None, "a:i16=2,3 b:u16=3 c:f32=1", None),
    ("maximum", None, "a:u8=4 b:i8=4 c:f16=4 d:f16=4", None),
    ("add", None, "a:u64=4 b=1,1,1", None),
    ("add", None, "a:i8=3 b:u8=3", {"a": [127, -128, -1], "b": [255, 255, 1]}),
    ("subtract", None, "a:i64=3 b:i64=3", None),
    ("hypot", None, "a:i8=4 b:u8=4", None),
    ("arctan2", None, "a:u16=4 b:i16=4", None),
    ("copysign", None, "a:i8=4 b:u16=4", None),
    ("sqrt", None, "a:i8=6", {"a": [0, 1, 2, 100, 127, -128]}),
    ("exp", None, "a:u16=4", None),
    ("log", None, "a:i32=4", None),
    ("logical_and", "i8", "a:f32=6 b:i32=6",
     {"a": [0.5, -0.25, NAN, 0.0, -0.0, 1e-45], "b": [-2 ** 31, 256, 1, 1, 1, 512]}),
    ("logical_or", "u8", "a:f64=4 b:f16=4",
     {"a": [0.0, -0.0, 5e-324, NAN], "b": [-0.0, 6e-8, 0.0, 0.0]}),
    ("logical_xor", "i16", "a:f16=4 b:u32=4",
     {"a": [0.5, -0.25, NAN, 0.0], "b": [65536, 0, 2 ** 31, 65536]}),
    ("logical_not", "i8", "a:i32=4", {"a": [-2 ** 31, 256, 0, 1]}),
    ("where", "i32", "c:f32=5 a=5 b=5", {"c": [0.5, -0.25, NAN, 0.0, -0.0],
                                         "a": [1, 2, 3, 4, 5], "b": [-1, -2, -3, -4, -5]}),
    ("where", None, "c:f64=6 a:i8=6 b:i8=6", None),
    ("where", "f16", "c:i64=3 a:f32=3 b=3", {"c": [2 ** 40, 0, -1],
                                             "a": [65519.0, 1e-8, 0.1], "b": [1, 2, 3]}),
    # b's rows read again in a block, the loop of 2 moved in around it
    ("add", None, "a=2,3,1,5,7 b=3,4,1,7", None, "auto"),
]


def fixed_cases(rng):
    out = []
    for k, (op, t, spec, inputs, *strategy) in enumerate(FIXED):
        ops = []
        for w in spec.split():
            nm, shape = w.split("=")
            nm, dt = (nm.split(":") + [None])[:2]
            sh = [int(v) for v in shape.split(",")] if shape else []
            ops.append({"name": nm, "dt": dt, "shape": sh, "aligned": sh})
        dts = [o["dt"] for o in ops]
        c = {"op": op, "opname": op, "t": t or numpy_dtype(op, dts), "omit_dtype": t is None,
             "strategy": strategy[0] if strategy else STRATEGIES[k % 3], "to": None, "axis": None, "inplace": False,
             "fn": None, "outshape": None, "unroll_limit": 64, "inputs": inputs,
             "vseed": rng.getrandbits(63), "operands": ops,
             "result": list(np.broadcast_shapes(*[tuple(o["shape"]) for o in ops]))}
        out.append(c)
    return out


def build_corpus(seed, n):
    rng = random.Random(seed)
    triples = [(op, t, s) for op in OP_NAMES for t in DT_NAMES if applies(op, t)
               for s in STRATEGIES]
    ntriples = len(triples)
    # the ops that take only floats have few dtypes: their triples twice
    triples += [tr for tr in triples if OPS[tr[0]][3] == "float"]
    # whole passes over all triples, then random ones; a case may be
    # made to use NumPy's promotion (no --dtype), per-operand dtypes or
    # --out-dtype
    picks = []
    while len(picks) + len(triples) <= n:
        picks += triples
    rest = list(triples)
    rng.shuffle(rest)
    while len(picks) < n:
        picks.append(rest.pop() if rest else rng.choice(triples))
    hints = [None] * 4 + ["promote"] * 3 + ["dt"] * 2 + ["to"]
    cases = [make_case(rng, *p, hint=rng.choice(hints)) for p in picks]
    rng.shuffle(cases)
    cases += fixed_cases(rng)
    for i, c in enumerate(cases):
        c["id"] = i
        c["name"] = "k%04d" % (i + 1)
        if c["fn"]:
            c["fn"] = "fn_%s_k%04d" % (c["op"][:3], i + 1)
    return cases, ntriples


def command(gen, c, outdir):
    args = [gen, "-o", os.path.join(outdir, c["name"] + ".c")]
    if c["fn"]:
        args += ["--name", c["fn"]]
    args += ["--op", c["opname"]]
    if not c["omit_dtype"]:
        args += ["--dtype", c["t"]]
    if c["to"]:
        args += ["--out-dtype", c["to"]]
    args += ["--strategy", c["strategy"]]
    if c["id"] % 3 == 1:
        # tuned for a processor whose written-out stores go in order
        args += ["--tune", "cascadelake"]
    if c["unroll_limit"] is not None:
        args += ["--unroll-limit", str(c["unroll_limit"])]
    if c["axis"] is not None:
        args += ["--axis", str(c["axis"])]
    if c["inplace"]:
        args.append("--inplace")
    if c["outshape"] is not None:
        args += ["--out-shape", shape_str(c["outshape"])]
    for o in c["operands"]:
        args.append("%s%s=%s" % (o["name"], ":" + o["dt"] if o["dt"] else "",
                                 shape_str(o["shape"])))
    return args


# ---------------------------------------------------------------- values

def int_values(g, dt, n, shared):
    npdt = DTYPES[dt][0]
    lo, hi = irange(dt)
    b = bits(dt)
    edges = [0, 1, 2, lo, hi, lo + 1, hi - 1] + ([-1] if lo < 0 else [])
    small = [v for v in range(-10, 11) if lo <= v <= hi]
    shifty = [v for v in range(-(b + 2), b + 3) if lo <= v <= hi]
    x = g.integers(lo, hi, size=n, endpoint=True, dtype=npdt)
    x = x >> g.integers(0, b, size=n).astype(npdt)       # various magnitudes
    cat = g.random(n)
    for p0, p1, pool in ((0, .2, edges), (.2, .4, small), (.4, .5, shifty),
                         (.5, .65, shared)):
        m = (cat >= p0) & (cat < p1)
        if pool is not None and len(pool) and m.any():
            x[m] = np.array(pool, dtype=npdt)[g.integers(0, len(pool), m.sum())]
    return x


def float_specials(dt):
    fi = np.finfo(DTYPES[dt][0])
    sub = float(fi.smallest_subnormal)
    v = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -7.0, 1e-7, 1e10,
         math.nan, -math.nan, math.inf, -math.inf, sub, -sub, 3 * sub,
         float(fi.tiny), -float(fi.tiny), float(fi.tiny) / 2, float(fi.max),
         -float(fi.max), float(np.finfo(np.float32).max)]
    if dt == "f16":
        # 65519 rounds to 65504 and 65520 to inf; 2049 and 2051 are ties;
        # 6e-8 is the smallest subnormal, half of it a tie with 0
        v += [65504.0, 65519.0, 65520.0, -65520.0, 2049.0, 2051.0, 6.1e-5, 6e-8,
              2.0 ** -25, 3 * 2.0 ** -25, 0.1, 1 / 3, 11.09, -17.33]
    return v


# quiet NaNs with payloads, of both signs, by their bits
NAN_PAYLOADS = {"f16": [0x7e01, 0xfe2a, 0x7fff],
                "f32": [0x7fc01234, 0xffc00005, 0x7fffffff],
                "f64": [0x7ff8000000001234, 0xfff8000020000000, 0x7fffffffffffffff]}


def float_values(g, dt, n, shared):
    npdt = DTYPES[dt][0]
    wide = {"f16": 5, "f32": 38, "f64": 300}[dt]
    near = 4 if dt == "f16" else 6
    exp = np.where(g.random(n) < 0.7, g.integers(-near, near + 1, n),
                   g.integers(-wide - 7, wide + 1, n))
    sign = np.where(g.random(n) < 0.5, -1.0, 1.0)
    x = sign * (1 + 9 * g.random(n)) * np.power(10.0, exp.astype(np.float64))
    cat = g.random(n)
    m = cat < 0.25
    sp = float_specials(dt)
    x[m] = np.array(sp)[g.integers(0, len(sp), m.sum())]
    m = (cat >= 0.25) & (cat < 0.4)
    x[m] = g.integers(-20, 21, m.sum())
    m = (cat >= 0.4) & (cat < 0.47)
    x[m] = g.integers(-40, 41, m.sum()) / 2
    with np.errstate(all="ignore"):
        x = x.astype(npdt)
    m = (cat >= 0.47) & (cat < 0.6)
    if shared is not None and len(shared) and m.any():
        x[m] = np.array(shared, dtype=npdt)[g.integers(0, len(shared), m.sum())]
    return x


def edge_floats(g, x, dt, zeros=0.04, nans=0.02, payloads=0.02):
    """x (a 1-d array of dtype dt) with more signed zeros, NaNs of both
    signs and NaNs with payloads."""
    r = g.random(len(x))
    m = r < zeros
    x[m] = np.where(g.random(m.sum()) < 0.5, 0.0, -0.0)
    m = (r >= zeros) & (r < zeros + nans)
    x[m] = np.where(g.random(m.sum()) < 0.5, math.nan, -math.nan)
    m = (r >= zeros + nans) & (r < zeros + nans + payloads)
    pool = np.array(NAN_PAYLOADS[dt], dtype=UINT[dt])
    x.view(UINT[dt])[m] = pool[g.integers(0, len(pool), m.sum())]
    return x


# Floats of type dt that convert to the integer type t without leaving
# its range, within [lo, hi] when given.
def float_to_int_values(g, dt, t, n, lo=None, hi=None):
    tlo, thi = irange(t)
    bound = {"f16": 65504, "f32": 2 ** 24, "f64": 2 ** 53}[dt]
    lo = max(tlo, -bound) if lo is None else max(lo, tlo, -bound)
    hi = min(thi, bound) if hi is None else min(hi, thi, bound)
    x = g.uniform(lo, hi, n) / np.power(2.0, g.integers(0, 30, n))
    x = np.clip(x, lo, hi)
    cat = g.random(n)
    sp = [v for v in (0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, lo, hi, lo + 1, hi - 1)
          if lo <= v <= hi or v in (-0.0, -0.5) and lo <= 0]
    m = cat < 0.3
    x[m] = np.array(sp)[g.integers(0, len(sp), m.sum())]
    m = (cat >= 0.3) & (cat < 0.5)
    x[m] = np.clip(g.integers(-12, 13, m.sum()), lo, hi)
    x = x.astype(DTYPES[dt][0])
    if dt == "f16":
        # rounded to f16, a value near a bound may have left [lo, hi]
        xf = x.astype(np.float64)
        x[(xf < lo) | (xf > hi)] = 0
    return x


# Values of operand j of case c (stored type s, kernel type t).
def operand_values(g, c, j, s, n, shared):
    op, t = c["op"], c["t"]
    kind = OPS[op][1]
    if kind == "logic" or (kind == "select" and j == 0):
        # tested for truth as stored, never converted to t: anything goes,
        # many zeros, small fractions, NaNs
        if is_float(s):
            x = float_values(g, s, n, None)
            m = g.random(n) < 0.1
            x[m] = g.uniform(-1, 1, m.sum())
            return edge_floats(g, x, s, zeros=0.2, nans=0.05)
        x = int_values(g, s, n, shared if s == t else None)
        x[g.random(n) < 0.3] = 0
        return x
    mode = "normal"
    if op in ("left_shift", "right_shift") and j == 1:
        mode = "shift"
    elif op == "power" and j == 1 and not is_float(t):
        mode = "powexp"
    if is_float(s) and not is_float(t):
        if mode == "shift":
            return float_to_int_values(g, s, t, n, -(bits(t) + 2), bits(t) + 2)
        if mode == "powexp":
            return float_to_int_values(g, s, t, n, 0, 2 * bits(t) + 3)
        return float_to_int_values(g, s, t, n)
    if is_float(s):
        x = float_values(g, s, n, shared if s == t else None)
        return edge_floats(g, x, s, zeros=0.2 if op == "heaviside" and j == 0 else 0.04)
    x = int_values(g, s, n, shared if s == t else None)
    slo, shi = irange(s)
    if mode == "shift":
        b = bits(t)
        pool = [v for v in range(-(b + 2), b + 3) if slo <= v <= shi]
        m = g.random(n) < 0.8
        x[m] = np.array(pool, dtype=x.dtype)[g.integers(0, len(pool), m.sum())]
    elif mode == "powexp":
        b = bits(t)
        pool = [v for v in range(0, 2 * b + 4) if v <= shi]
        m = g.random(n) < 0.85
        x[m] = np.array(pool, dtype=x.dtype)[g.integers(0, len(pool), m.sum())]
        with np.errstate(all="ignore"):
            neg = x.astype(DTYPES[t][0]) < 0
        x[neg] = np.array(g.integers(0, 6, neg.sum()), dtype=x.dtype)
    return x


def make_inputs(c):
    g = np.random.default_rng(c["vseed"])
    t = c["t"]
    shared = None
    if is_float(t):
        shared = list(float_values(g, t, 6, None).astype(np.float64))
    else:
        shared = [int(v) for v in int_values(g, t, 6, None)]
    arrs = []
    for j, o in enumerate(c["operands"]):
        s = o["dt"] or t
        if c.get("inputs") and o["name"] in c["inputs"]:
            a = np.array(c["inputs"][o["name"]], dtype=DTYPES[s][0])
        else:
            a = operand_values(g, c, j, s, prod(o["shape"]), shared)
        arrs.append(a.reshape(o["shape"]))
    return arrs


# ---------------------------------------------------------------- reference

def reference(c, arrs):
    t = DTYPES[c["t"]][0]
    op = c["op"]
    kind = OPS[op][1]
    res_shape = tuple(c["result"])

    def full(a, o, dt):
        return np.ascontiguousarray(np.broadcast_to(a.astype(dt).reshape(o["aligned"]),
                                                    res_shape))
    with np.errstate(all="ignore"):
        if kind == "logic":
            # NumPy's logical ops on the arrays as they are: truth (!= 0,
            # NaN true) in each operand's own dtype, not the kernel's
            r = NUMPY[op](*[full(a, o, a.dtype) != 0 for a, o in zip(arrs, c["operands"])])
        elif kind == "select":
            # the condition as stored, the branches in t
            cond = full(arrs[0], c["operands"][0], arrs[0].dtype) != 0
            r = NUMPY[op](cond, full(arrs[1], c["operands"][1], t),
                          full(arrs[2], c["operands"][2], t))
        else:
            xs = [full(a, o, t) for a, o in zip(arrs, c["operands"])]
            if OPS[op][2] == "var":
                r = xs[0].copy()
                for x in xs[1:]:
                    r = NUMPY[op](r, x)
            elif op == "divide" and not is_float(c["t"]):
                a, b = xs
                q = np.floor_divide(a, b)
                rem = np.remainder(a, b)
                if t.kind == "i":
                    adj = (rem != 0) & ((a < 0) != (b < 0))
                    q = q + adj.astype(t)
                q = np.where(b == 0, np.zeros_like(q), q)
                r = q.astype(t)
            elif op == "divide":
                r = np.divide(*xs)
            else:
                r = NUMPY[op](*xs)
            if np.asarray(r).dtype != t and kind != "cmp":
                raise RuntimeError("NumPy computed %s in %s, not %s" % (
                    op, np.asarray(r).dtype, t))
        r = np.asarray(r).reshape(res_shape).astype(DTYPES[out_dtype(c)][0])
    return r


# ---------------------------------------------------------------- compare

def fmt(v, dt):
    if is_float(dt):
        bitsv = int(np.array(v, dtype=DTYPES[dt][0]).view(UINT[dt]))
        return "%s[0x%0*x]" % (str(v), DTYPES[dt][0].itemsize * 2, bitsv)
    return str(int(v))


def ulp_diff(w, g, dt):
    """ULPs between two non-NaN floats of one sign; None if signs differ."""
    ut = UINT[dt]
    nb = DTYPES[dt][0].itemsize * 8
    a = int(np.array(w, dtype=DTYPES[dt][0]).view(ut))
    b = int(np.array(g, dtype=DTYPES[dt][0]).view(ut))
    if (a ^ b) >> (nb - 1):
        return None
    return abs(a - b)


# Returns (bad mask, max ulp) comparing got with want (both of dtype dt).
def compare(c, want, got, dt):
    if not is_float(dt):
        return want != got, 0
    wn, gn = np.isnan(want), np.isnan(got)
    ut = UINT[dt]
    bad = want.view(ut) != got.view(ut)
    if c["op"] not in NAN_EXACT:
        bad &= ~(wn & gn)
    maxulp = 0
    if c["op"] in ULP_TOL and is_float(c["t"]) and bad.any():
        # within the op's ULPs of the narrower of the kernel and output
        # types (1 in f16)
        cdt = dt
        if DTYPES[dt][0].itemsize > DTYPES[c["t"]][0].itemsize:
            cdt = c["t"]
        tol = 1 if cdt == "f16" else ULP_TOL[c["op"]]
        w2 = want.astype(DTYPES[cdt][0]).reshape(-1)
        g2 = got.astype(DTYPES[cdt][0]).reshape(-1)
        flat = bad.reshape(-1).copy()
        # same sign, both finite, at most tol apart (inf vs FLT_MAX is a failure)
        for k in np.flatnonzero(flat):
            w, g = w2[k], g2[k]
            if np.isnan(w) or np.isnan(g) or np.isinf(w) or np.isinf(g):
                continue
            d = ulp_diff(w, g, cdt)
            if d is not None:
                maxulp = max(maxulp, d)
                if d <= tol:
                    flat[k] = False
        bad = flat.reshape(bad.shape)
    return bad, maxulp


# ---------------------------------------------------------------- harness

def prototype(c):
    params = []
    for j, o in enumerate(c["operands"]):
        ct = DTYPES[o["dt"] or c["t"]][1]
        params.append(("%s *" if c["inplace"] and j == 0 else "const %s *") % ct)
    if not c["inplace"]:
        params.append("%s *" % DTYPES[out_dtype(c)][1])
    return "void %s(%s);" % (c["fn"] or c["name"], ", ".join(params))


HARNESS_MAIN = r"""
struct tcase {
    void (*call)(void **);
    int id, nin, inplace;
    long off[4], bytes[4], ooff, obytes;
};

/* Under ASan buffers have their exact size; otherwise each is followed
 * by SLACK(n) bytes of 0xa5 that must stay so, and a kernel that writes
 * past its output (the wrong dtype, say) fails alone instead of
 * corrupting the heap for the kernels run after it. */
#ifdef __SANITIZE_ADDRESS__
#define SLACK(n) 0L
#else
#define SLACK(n) (8 * (n) + 64)
#endif

static void *xalloc(long n)
{
    void *p = malloc(n + SLACK(n) > 0 ? (size_t)(n + SLACK(n)) : 1);
    if (!p) { perror("malloc"); exit(3); }
    memset(p, 0xa5, (size_t)(n + SLACK(n)));
    return p;
}

static int overrun(const void *p, long n)
{
    const unsigned char *q = (const unsigned char *)p + n;
    long k;
    for (k = 0; k < SLACK(n); k++)
        if (q[k] != 0xa5)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    FILE *in, *out;
    long i, start;
    int j;
    if (argc != 4) return 2;
    in = fopen(argv[1], "rb");
    out = fopen(argv[2], "r+b");
    if (!in || !out) { perror("fopen"); return 2; }
    start = atol(argv[3]);
    for (i = start; i < (long)(sizeof cases / sizeof cases[0]); i++) {
        const struct tcase *t = &cases[i];
        void *p[5], *copy[4];
        printf("B %ld\n", i);
        fflush(stdout);
        for (j = 0; j < t->nin; j++) {
            p[j] = xalloc(t->bytes[j]);
            copy[j] = xalloc(t->bytes[j]);
            if (fseek(in, t->off[j], SEEK_SET) ||
                fread(p[j], 1, (size_t)t->bytes[j], in) != (size_t)t->bytes[j]) {
                fprintf(stderr, "harness: short read\n");
                return 2;
            }
            memcpy(copy[j], p[j], (size_t)t->bytes[j]);
        }
        if (!t->inplace)
            p[t->nin] = xalloc(t->obytes);
        t->call(p);
        if (t->inplace ? overrun(p[0], t->bytes[0]) : overrun(p[t->nin], t->obytes))
            printf("O %ld\n", i);
        if (fseek(out, t->ooff, SEEK_SET) ||
            fwrite(t->inplace ? p[0] : p[t->nin], 1, (size_t)t->obytes, out)
                != (size_t)t->obytes || fflush(out)) {
            fprintf(stderr, "harness: write error\n");
            return 2;
        }
        for (j = t->inplace ? 1 : 0; j < t->nin; j++)
            if (memcmp(copy[j], p[j], (size_t)t->bytes[j]))
                printf("M %ld %d\n", i, j);
        for (j = 0; j < t->nin; j++) { free(p[j]); free(copy[j]); }
        if (!t->inplace) free(p[t->nin]);
        printf("E %ld\n", i);
        fflush(stdout);
    }
    return 0;
}
"""


def write_harness(path, cases):
    lines = ["#include <stdint.h>", "#include <stdio.h>", "#include <stdlib.h>",
             "#include <string.h>", ""]
    for c in cases:
        lines.append(prototype(c))
    lines.append("")
    for k, c in enumerate(cases):
        n = len(c["operands"]) + (0 if c["inplace"] else 1)
        lines.append("static void call%d(void **p) { %s(%s); }" % (
            k, c["fn"] or c["name"], ", ".join("p[%d]" % j for j in range(n))))
    body = HARNESS_MAIN.split("int main", 1)
    lines.append(body[0])
    lines.append("static const struct tcase cases[] = {")
    for k, c in enumerate(cases):
        offs = c["in_off"] + [0] * (4 - len(c["in_off"]))
        byts = c["in_bytes"] + [0] * (4 - len(c["in_bytes"]))
        lines.append("    {call%d, %d, %d, %d, {%s}, {%s}, %dL, %dL}," % (
            k, c["id"], len(c["operands"]), int(c["inplace"]),
            ", ".join("%dL" % v for v in offs), ", ".join("%dL" % v for v in byts),
            c["out_off"], c["out_bytes"]))
    lines.append("};")
    lines.append("\nint main" + body[1])
    with open(path, "w") as f:
        f.write("\n".join(lines))


# ---------------------------------------------------------------- driver

class Tap:
    """TAP output: the plan, then ok / not ok lines, each failure followed
    by at most `show` diagnostics, one '# ' line per line of text."""
    started = False

    def __init__(self, total):
        self.n = 0
        self.failed = 0
        Tap.started = True
        print("1..%d" % total, flush=True)

    def result(self, ok, name, diags=(), total=None, show=4):
        self.n += 1
        self.failed += not ok
        print("%s %d - %s" % ("ok" if ok else "not ok", self.n, name))
        diags = list(diags)
        for d in diags[:show]:
            for line in str(d).split("\n"):
                print("# " + line)
        if total is not None and diags:
            print("# %d of %d fail" % (len(diags), total))
        elif len(diags) > show:
            print("# ... and %d more" % (len(diags) - show))
        sys.stdout.flush()

    def skip(self, name, why):
        """A test that cannot run here, and why."""
        self.n += 1
        print("ok %d - %s # skip %s" % (self.n, name, why), flush=True)


# The two builds of every batch: (name, kernel flags, harness flags).
BUILDS = [
    ("-O2", ["-std=c99", "-O2", "-Wall", "-Wextra", "-Wpedantic", "-Wconversion",
             "-Werror", "-ffp-contract=off"], ["-std=c99", "-O1", "-w"]),
    # -O0 -g1: every access checked (nothing optimized away) and line
    # numbers for the reports, compiled in about half the time of -O1 -g,
    # which was most of t300's and t310's; the -O2 build runs the fully
    # optimized kernels.
    ("asan+ubsan", ["-std=c99", "-O0", "-g1", "-w", "-ffp-contract=off",
                    "-fsanitize=address,undefined", "-fno-sanitize-recover=all"],
     ["-std=c99", "-O1", "-g1", "-w", "-fsanitize=address,undefined",
      "-fno-sanitize-recover=all"]),
]


def run(args, cwd=None, timeout=600):
    try:
        p = subprocess.run(args, cwd=cwd, capture_output=True, timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return -999, "", "timed out after %d s" % timeout
    except OSError as e:
        return -998, "", str(e)


def first_lines(text, n=2, width=300):
    ls = [line.strip() for line in text.splitlines() if line.strip()]
    return " | ".join(ls[:n])[:width]


def generate(gen, cases, kdir, jobs, command, check=None):
    """Run bcastgen for every case (command(gen, c, kdir) gives its words);
    set c["cmd"], and c["gen_error"] to None or what went wrong. CHECK(c,
    args), if given, may find more wrong with a kernel generated."""
    def one(c):
        args = command(gen, c, kdir)
        c["cmd"] = shlex.join(args)
        rc, out, err = run(args, timeout=60)
        if rc != 0:
            return "bcastgen failed (exit %d): %s" % (rc, first_lines(err, 3))
        for ext in (".c", ".h"):
            if not os.path.exists(os.path.join(kdir, c["name"] + ext)):
                return "bcastgen exit 0 but wrote no %s%s" % (c["name"], ext)
        return check(c, args) if check else None
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(jobs, 2) * 2) as ex:
        for c, err in zip(cases, ex.map(one, cases)):
            c["gen_error"] = err


def check_axis_shape(gen, c, args):
    """For an --axis case: bcastgen --shape gives the expected result shape."""
    if c["axis"] is None:
        return None
    sargs = [gen, "--shape", "--axis", str(c["axis"])] + args[-2:]
    rc, out, err = run(sargs, timeout=60)
    if rc != 0 or out != shape_str(c["result"]) + "\n":
        return "%s gives %r (exit %d %s); expected result shape %s" % (
            shlex.join(sargs), out.strip(), rc, first_lines(err, 1), shape_str(c["result"]))
    return None


def banner_dtype(path):
    """The --dtype of the 'Made by' command in the banner of the kernel
    file path (the dtype bcastgen chose), or None."""
    try:
        with open(path) as f:
            lines = f.read(4096).split("\n")
    except OSError:
        return None
    for i, line in enumerate(lines[:-1]):
        if "Made by:" in line:
            w = lines[i + 1].split()
            return w[w.index("--dtype") + 1] if "--dtype" in w[:-1] else None
    return None


def check_dtype(c, kdir):
    """Without --dtype: the banner must show the dtype NumPy's promotion
    gives (a kernel in another dtype would write an output of another
    size), else None."""
    if not c["omit_dtype"]:
        return None
    got = banner_dtype(os.path.join(kdir, c["name"] + ".c"))
    if got != c["t"]:
        return "without --dtype bcastgen computes in %s (its banner's --dtype); NumPy, " \
            "in %s" % (got, c["t"])
    return None


def write_inputs(scratch, batches, out_itemsize):
    """Write each batch's inputs to in<k>.bin and make its zeroed output
    files out<k>-o2.bin and out<k>-san.bin; record in each case the offsets
    and sizes of its inputs and output (out_itemsize(c): bytes per element)."""
    for k, batch in enumerate(batches):
        off = ooff = 0
        with open(os.path.join(scratch, "in%d.bin" % k), "wb") as f:
            for c in batch:
                c["in_off"], c["in_bytes"] = [], []
                for a in c["arrs"]:
                    data = np.ascontiguousarray(a).tobytes()
                    c["in_off"].append(off)
                    c["in_bytes"].append(len(data))
                    f.write(data)
                    off += len(data)
                c["out_off"] = ooff
                c["out_bytes"] = prod(c["result"]) * out_itemsize(c)
                ooff += c["out_bytes"]
        for tag in ("o2", "san"):
            with open(os.path.join(scratch, "out%d-%s.bin" % (k, tag)), "wb") as f:
                f.truncate(ooff)


def check_headers(cc, flags, incs, scratch, cases):
    """Include every generated header twice in one file and compile it:
    (ok, diagnostics)."""
    hsrc = os.path.join(scratch, "headers.c")
    with open(hsrc, "w") as f:
        for c in cases:
            if not c["gen_error"]:
                f.write('#include "%s.h"\n#include "%s.h"\n' % (c["name"], c["name"]))
        f.write("int headers_ok(void);\nint headers_ok(void) { return 0; }\n")
    rc, out, err = run([cc] + flags + incs + ["-fsyntax-only", hsrc])
    return rc == 0 and not err.strip(), [first_lines(err, 4, 800)] if err.strip() or rc else []


# Compile kernels one file each (exact diagnostics); returns (clean,
# diags, objs by case id).
def compile_separately(cc, flags, incs, kdir, odir, batch):
    srcs = [os.path.join(kdir, c["name"] + ".c") for c in batch]
    if not srcs:
        return True, [], {}
    rc, out, err = run([cc] + flags + incs + ["-c"] + srcs, cwd=odir, timeout=900)
    objs = {}
    diags = []
    for c in batch:
        o = os.path.join(odir, c["name"] + ".o")
        if os.path.exists(o):
            objs[c["id"]] = o
        else:
            mine = [line for line in err.splitlines()
                    if c["name"] + ".c:" in line or c["name"] + ".h:" in line]
            mine = [line for line in mine if "error" in line or "warning" in line] or mine
            c.setdefault("cc_error", {})[odir] = "does not compile (%s): %s" % (
                " ".join(flags), " | ".join(line.strip() for line in mine[:2])[:400]
                or first_lines(err))
            diags.append("%s: %s" % (c["cmd"], c["cc_error"][odir]))
    if rc != 0 and not diags:
        diags.append("compiler exit %d: %s" % (rc, first_lines(err)))
    if err.strip() and rc == 0:
        diags.append("diagnostics: %s" % first_lines(err, 3))
    return rc == 0 and not err.strip(), diags, objs


# Compile one batch of kernels with the given flags. For speed, first as
# one translation unit that includes every kernel's .c (a "unity" build);
# kernels named in its diagnostics, and all of them if it still fails,
# are compiled one file each, so every diagnostic is a separate compile's.
# Returns (clean, diags, objs by case id).
def compile_kernels(cc, flags, incs, kdir, odir, batch):
    os.makedirs(odir, exist_ok=True)
    pending = list(batch)
    objs = {}
    diags = []
    clean = True
    for attempt in range(3):
        if not pending:
            break
        src = os.path.join(odir, "unity%d.c" % attempt)
        obj = os.path.join(odir, "unity%d.o" % attempt)
        with open(src, "w") as f:
            for c in pending:
                f.write('#include "%s"\n' % os.path.join(kdir, c["name"] + ".c"))
        rc, out, err = run([cc] + flags + incs + ["-c", "-o", obj, src], cwd=odir,
                           timeout=900)
        if rc == 0 and not err.strip():
            for c in pending:
                objs[c["id"]] = obj
            pending = []
            break
        suspects = [c for c in pending
                    if c["name"] + ".c:" in err or c["name"] + ".h:" in err]
        if not suspects or attempt == 2:
            break
        ok, d, o = compile_separately(cc, flags, incs, kdir, odir, suspects)
        clean &= ok
        diags += d
        objs.update(o)
        pending = [c for c in pending if c not in suspects]
    if pending:
        ok, d, o = compile_separately(cc, flags, incs, kdir, odir, pending)
        clean &= ok
        diags += d
        objs.update(o)
    return clean, diags, objs


# Link a harness for the cases with objects; drop undefined functions.
def link_harness(cc, hflags, odir, batch, objs, tag):
    todo = [c for c in batch if c["id"] in objs]
    diags = []
    for _ in range(4):
        hsrc = os.path.join(odir, "harness%s.c" % tag)
        exe = os.path.join(odir, "harness%s" % tag)
        write_harness(hsrc, todo)
        olist = sorted(set(objs[c["id"]] for c in todo))
        rc, out, err = run([cc] + hflags + ["-o", exe, hsrc] + olist + ["-lm"],
                           cwd=odir, timeout=900)
        if rc == 0:
            return exe, todo, diags
        undef = set()
        for line in err.splitlines():
            if "undefined reference to `" in line:
                undef.add(line.split("undefined reference to `")[1].split("'")[0])
        if not undef:
            diags.append("harness link failed: %s" % first_lines(err, 3, 600))
            for c in todo:
                c.setdefault("run_error", {})[odir] = "harness link failed: %s" % first_lines(err, 2)
            return None, [], diags
        keep = []
        for c in todo:
            if (c["fn"] or c["name"]) in undef:
                c.setdefault("run_error", {})[odir] = (
                    "no function %s in the emitted code (link error)" % (c["fn"] or c["name"]))
                diags.append("%s: %s" % (c["cmd"], c["run_error"][odir]))
            else:
                keep.append(c)
        todo = keep
    return None, [], diags


def run_harness(exe, infile, outfile, todo, odir):
    start = 0
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0",
               UBSAN_OPTIONS="print_stacktrace=0")
    done = set()
    while start < len(todo):
        try:
            p = subprocess.run([exe, infile, outfile, str(start)], capture_output=True,
                               timeout=RUN_TIMEOUT, env=env)
            rc, out, err = p.returncode, p.stdout.decode(errors="replace"), \
                p.stderr.decode(errors="replace")
        except subprocess.TimeoutExpired as e:
            rc, out, err = "timeout", (e.stdout or b"").decode(errors="replace"), \
                "timed out after %d s" % RUN_TIMEOUT
        last = None
        for line in out.splitlines():
            w = line.split()
            if len(w) >= 2 and w[0] == "B":
                last = int(w[1])
            elif len(w) >= 2 and w[0] == "E":
                done.add(int(w[1]))
                last = None
            elif len(w) == 2 and w[0] == "O":
                c = todo[int(w[1])]
                c.setdefault("run_error", {})[odir] = (
                    "the kernel wrote past the end of its output (%d bytes expected)" % (
                        c["out_bytes"]))
            elif len(w) == 3 and w[0] == "M":
                c = todo[int(w[1])]
                c.setdefault("run_error", {})[odir] = (
                    "the kernel modified its const input %s" % c["operands"][int(w[2])]["name"])
        if rc == 0:
            break
        if last is None:
            for k in range(start, len(todo)):
                if k not in done:
                    todo[k].setdefault("run_error", {})[odir] = \
                        "harness failed before the case (exit %s): %s" % (rc, first_lines(err))
            break
        msg = [line.strip() for line in err.splitlines()
               if "runtime error" in line or "ERROR: AddressSanitizer" in line
               or "SUMMARY" in line or "timed out" in line]
        what = "killed by signal %d" % -rc if isinstance(rc, int) and rc < 0 else "exit %s" % rc
        todo[last].setdefault("run_error", {})[odir] = "kernel crashed (%s): %s" % (
            what, (" | ".join(msg[:2]) or first_lines(err))[:400])
        start = last + 1
    return done


def check_case(c, odir, outdata):
    """Returns None or a diagnostic for case c in build odir."""
    cmd = c["cmd"]
    if c["omit_dtype"]:
        cmd += " (no --dtype: NumPy's is %s)" % c["t"]
    if c.get("gen_error"):
        return "%s: %s" % (cmd, c["gen_error"])
    if odir in c.get("cc_error", {}):
        return "%s: %s" % (cmd, c["cc_error"][odir])
    if odir in c.get("run_error", {}):
        return "%s: %s" % (cmd, c["run_error"][odir])
    if outdata is None:
        return "%s: not run" % cmd
    to = out_dtype(c)
    got = np.frombuffer(outdata, dtype=DTYPES[to][0]).reshape(c["result"])
    want = c["want"]
    bad, maxulp = compare(c, want, got, to)
    c.setdefault("maxulp", {})[odir] = maxulp
    if not bad.any():
        return None
    flat = int(np.flatnonzero(bad.reshape(-1))[0])
    idx = np.unravel_index(flat, tuple(c["result"])) if c["result"] else ()
    ins = []
    kind = OPS[c["op"]][1]
    for j, (a, o) in enumerate(zip(c["arrs"], c["operands"])):
        s = o["dt"] or c["t"]
        v = np.broadcast_to(a.reshape(o["aligned"]), tuple(c["result"]))[idx]
        txt = "%s=%s" % (o["name"], fmt(v, s))
        if kind == "logic" or (kind == "select" and j == 0):
            txt += " (tested as stored)"
        elif s != c["t"]:
            with np.errstate(all="ignore"):
                txt += "->%s" % fmt(np.array(v).astype(DTYPES[c["t"]][0]), c["t"])
        ins.append(txt)
    return "%s: %d of %d elements differ; first at [%s] (flat %d): %s: expected %s, got %s" % (
        cmd, int(bad.sum()), bad.size, ",".join(str(int(i)) for i in idx), flat,
        " ".join(ins), fmt(want[idx], to), fmt(got[idx], to))


def main():
    gen = sys.argv[1] if len(sys.argv) > 1 else "build/bcastgen"
    gen = os.path.abspath(gen)
    n = int(os.environ.get("BCAST_KERNELS_N", "1200"))
    seed = int(os.environ.get("BCAST_KERNELS_SEED", "20240611"))
    jobs = max(1, int(os.environ.get("BCAST_KERNELS_JOBS", "2")))
    cc = os.environ.get("BCAST_KERNELS_CC") or "gcc"
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    runtime = os.path.join(top, "runtime")
    t0 = time.time()

    try:
        table = read_table(gen)
    except RuntimeError as e:
        print("Bail out! the op table: %s" % e, flush=True)
        return 1
    cases, ntriples = build_corpus(seed, n)
    nb = max(1, min(NBATCH, len(cases)))
    batches = [cases[k * len(cases) // nb:(k + 1) * len(cases) // nb] for k in range(nb)]
    builds = BUILDS
    tap = Tap(3 + len(builds) * (nb + len(OP_NAMES)))
    tap.result(*table, show=10)
    print("# seed %d, %d cases (%d op/dtype/strategy triples), %s, bcastgen %s" % (
        seed, len(cases), ntriples, cc, gen), flush=True)

    log = None
    if os.environ.get("BCAST_KERNELS_LOG"):
        log = open(os.environ["BCAST_KERNELS_LOG"], "w")
    cnt = lambda f: sum(1 for c in cases if f(c))
    print("# corpus: operands %s; result rank %s; zero-size %d, --inplace %d, --axis %d, "
          "per-operand dtypes %d, --out-dtype %d, --name %d, --out-shape %d (copy %d)" % (
              "/".join(str(cnt(lambda c, k=k: len(c["operands"]) == k)) for k in range(1, 5)),
              "/".join(str(cnt(lambda c, k=k: len(c["result"]) == k)) for k in range(7)),
              cnt(lambda c: 0 in c["result"]), cnt(lambda c: c["inplace"]),
              cnt(lambda c: c["axis"] is not None),
              cnt(lambda c: any(o["dt"] for o in c["operands"])), cnt(lambda c: c["to"]),
              cnt(lambda c: c["fn"]), cnt(lambda c: c["outshape"] is not None),
              cnt(lambda c: c["op"] == "copy")), flush=True)
    print("# dtypes: no --dtype (NumPy's promotion) %d (not f32 %d); f16: kernel %d, "
          "operand %d, --out-dtype %d; fixed cases %d" % (
              cnt(lambda c: c["omit_dtype"]), cnt(lambda c: c["omit_dtype"] and c["t"] != "f32"),
              cnt(lambda c: c["t"] == "f16"),
              cnt(lambda c: any(o["dt"] == "f16" for o in c["operands"])),
              cnt(lambda c: c["to"] == "f16"), len(FIXED)), flush=True)
    keep = os.environ.get("BCAST_KERNELS_KEEP")
    scratch = tempfile.mkdtemp(prefix="bcastgen-kernels.")
    if keep:
        print("# scratch directory kept: %s" % scratch)
    try:
        kdir = os.path.join(scratch, "k")
        os.makedirs(kdir)
        # inputs, reference results, data files per batch
        for c in cases:
            c["arrs"] = make_inputs(c)
            c["want"] = reference(c, c["arrs"])
        write_inputs(scratch, batches, lambda c: DTYPES[out_dtype(c)][0].itemsize)

        # generation
        generate(gen, cases, kdir, jobs, command,
                 lambda c, args: check_dtype(c, kdir) or check_axis_shape(gen, c, args))
        bad = [c for c in cases if c["gen_error"]]
        if log:
            for c in bad:
                log.write("generate: %s: %s\n" % (c["cmd"], c["gen_error"]))
        tap.result(not bad, "bcastgen -o: %d kernels generated (%.0f s)" % (
            len(cases), time.time() - t0),
            ["%s: %s" % (c["cmd"], c["gen_error"]) for c in bad])

        # headers: all of them, each twice, in one translation unit
        incs = ["-I", runtime, "-I", kdir]
        ok, diags = check_headers(cc, builds[0][1], incs, scratch, cases)
        tap.result(ok, "all headers, each included twice, in one file (strict flags)", diags)

        for tag, (bname, kflags, hflags) in zip(("o2", "san"), builds):
            tb = time.time()
            odirs = [os.path.join(scratch, "%s-%d" % (tag, k)) for k in range(nb)]
            gens = [[c for c in b if not c["gen_error"]] for b in batches]
            with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
                res = list(ex.map(lambda k: compile_kernels(cc, kflags, incs, kdir,
                                                            odirs[k], gens[k]), range(nb)))
            tc = time.time()

            def link_and_run(k):
                ok, diags, objs = res[k]
                exe, todo, ldiags = link_harness(cc, hflags, odirs[k], gens[k], objs, "")
                if exe:
                    run_harness(exe, os.path.join(scratch, "in%d.bin" % k),
                                os.path.join(scratch, "out%d-%s.bin" % (k, tag)),
                                todo, odirs[k])
                return ldiags
            with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
                ldiags = list(ex.map(link_and_run, range(nb)))
            for k in range(nb):
                ok, diags, objs = res[k]
                if log:
                    for d in diags + ldiags[k]:
                        log.write("%s: batch %d: %s\n" % (bname, k + 1, d))
                tap.result(ok and not ldiags[k],
                           "%s: compile batch %d/%d (%d kernels, %s), link, run" % (
                               bname, k + 1, nb, len(gens[k]), " ".join(kflags)),
                           diags + ldiags[k])
            # compare
            per_op = {op: [] for op in OP_NAMES}
            for k, batch in enumerate(batches):
                with open(os.path.join(scratch, "out%d-%s.bin" % (k, tag)), "rb") as f:
                    data = f.read()
                for c in batch:
                    per_op[c["op"]].append((c, check_case(
                        c, odirs[k], data[c["out_off"]:c["out_off"] + c["out_bytes"]])))
            for op in OP_NAMES:
                lst = per_op[op]
                fails = [d for c, d in lst if d]
                if log:
                    for d in fails:
                        log.write("%s: %s: %s\n" % (bname, op, d))
                extra = ""
                if op in ULP_TOL:
                    m = max([0] + [c.get("maxulp", {}).get(o, 0) for c, _ in lst
                                   for o in odirs])
                    extra = "; float results within %d ULP of NumPy" % m
                nf16 = sum(1 for c, _ in lst if c["t"] == "f16")
                tap.result(not fails, "%s: %s (%d cases: %s; in f16 %d%s)" % (
                    bname, op, len(lst), ", ".join(
                        "%s %d" % (s, sum(1 for c, _ in lst if c["strategy"] == s))
                        for s in STRATEGIES), nf16, extra), fails, total=len(lst))
            print("# %s build: %.0f s (compile %.0f s)" % (bname, time.time() - tb, tc - tb),
                  flush=True)
    finally:
        if not keep:
            shutil.rmtree(scratch, ignore_errors=True)
    print("# total %.0f s" % (time.time() - t0))
    return 1 if tap.failed else 0


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # clean up scratch
    sys.exit(main())
