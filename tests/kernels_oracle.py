"""NumPy differential test of the kernels bcastgen emits (issue 3).

Builds a seeded corpus of kernels (every op x dtype x strategy that
applies, a few times each, then random ones), generates them all with
`bcastgen -o`, compiles them in a few batches together with harnesses
written here, runs them on inputs full of edge values and compares every
output element with NumPy 1.24 (bit for bit; float power within 1 ULP).
The same corpus is then compiled and run again under ASan + UBSan.

Usage: kernels_oracle.py GEN        (run with /usr/bin/python3)
Env:   BCAST_KERNELS_N     number of cases (default 2400)
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

TAP: one test for the generation of all kernels, one for the headers,
then for each build (-O2 with strict warnings; -O1 with sanitizers) one
test per compile batch and one per op.
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

# ---------------------------------------------------------------- tables

# dtype name -> (numpy dtype, C type)
DTYPES = {
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
FLOATS = ("f32", "f64")
INTS = [d for d in DT_NAMES if d not in FLOATS]

# op -> (alias, kind, arity, integer only). arity "var" = 1..4 operands,
# folded left to right. kind: arith, cmp, logic, bit, copy.
OPS = {
    "add": ("add", "arith", "var", False),
    "subtract": ("sub", "arith", 2, False),
    "multiply": ("mul", "arith", "var", False),
    "divide": ("div", "arith", 2, False),
    "floor_divide": ("floordiv", "arith", 2, False),
    "remainder": ("mod", "arith", 2, False),
    "fmod": ("fmod", "arith", 2, False),
    "power": ("pow", "arith", 2, False),
    "maximum": ("max", "arith", "var", False),
    "minimum": ("min", "arith", "var", False),
    "equal": ("eq", "cmp", 2, False),
    "not_equal": ("ne", "cmp", 2, False),
    "less": ("lt", "cmp", 2, False),
    "less_equal": ("le", "cmp", 2, False),
    "greater": ("gt", "cmp", 2, False),
    "greater_equal": ("ge", "cmp", 2, False),
    "logical_and": ("and", "logic", 2, False),
    "logical_or": ("or", "logic", 2, False),
    "logical_xor": ("xor", "logic", 2, False),
    "logical_not": ("not", "logic", 1, False),
    "bitwise_and": ("bitwise_and", "bit", 2, True),
    "bitwise_or": ("bitwise_or", "bit", 2, True),
    "bitwise_xor": ("bitwise_xor", "bit", 2, True),
    "left_shift": ("shl", "bit", 2, True),
    "right_shift": ("shr", "bit", 2, True),
    "invert": ("invert", "bit", 1, True),
    "copy": ("copy", "copy", 1, False),
}
OP_NAMES = list(OPS)
STRATEGIES = ("unroll", "loops", "auto")
NBATCH = 4
RUN_TIMEOUT = int(os.environ.get("BCAST_KERNELS_TIMEOUT", "300"))


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
    return not OPS[op][3] or dt in INTS


def make_case(rng, op, t, strategy, hint=None):
    alias, kind, arity, _ = OPS[op]
    c = {"op": op, "t": t, "strategy": strategy, "to": None, "axis": None,
         "inplace": False, "fn": None, "outshape": None, "unroll_limit": None,
         "vseed": rng.getrandbits(63)}
    c["opname"] = alias if rng.random() < 0.3 else op
    c["omit_dtype"] = t == "f32" and rng.random() < 0.3
    if arity == "var":
        nops = rng.choice([1, 2, 2, 2, 3, 3, 4, 4])
    else:
        nops = arity
    if strategy == "unroll":
        limit = 64
        c["unroll_limit"] = 64
    else:
        limit = rng.choice([16, 64, 300, 2000, 2000, 2000, 4096])
        if strategy == "auto" and rng.random() < 0.3:
            c["unroll_limit"] = rng.choice([1, 8, 64, 256])
    c["inplace"] = kind in ("arith", "bit") and hint != "to" and rng.random() < 0.1
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
    dts = [None] * nops
    if hint == "dt" or rng.random() < 0.15:
        for j in range(nops):
            if not (c["inplace"] and j == 0) and rng.random() < 0.6:
                dts[j] = rng.choice(DT_NAMES)
    if not c["inplace"] and (hint == "to" or rng.random() < 0.1):
        # never float -> integer stores of arbitrary values (tested elsewhere)
        if kind in ("cmp", "logic"):
            c["to"] = rng.choice([d for d in DT_NAMES if d != "u8"])
        elif is_float(t):
            c["to"] = "f64" if t == "f32" else "f32"
        else:
            c["to"] = rng.choice([d for d in DT_NAMES if d != t])
    if rng.random() < 0.1:
        c["fn"] = "fn_%d" % rng.randrange(10 ** 6)      # made unique later
    c["operands"] = [{"name": n, "dt": d, "shape": list(s), "aligned": list(al)}
                     for n, d, s, al in zip(names, dts, shapes, aligned)]
    c["result"] = result
    return c


def build_corpus(seed, n):
    rng = random.Random(seed)
    triples = [(op, t, s) for op in OP_NAMES for t in DT_NAMES if applies(op, t)
               for s in STRATEGIES]
    # whole passes over all triples; in the second and third passes 40% of
    # the cases are forced to use --out-dtype or per-operand dtypes
    picks = []
    hints = [None, "to", "dt"]
    while len(picks) + len(triples) <= n:
        h = hints[len(picks) // len(triples) % 3]
        picks += [t + ((h if h and rng.random() < 0.4 else None),) for t in triples]
    rest = list(triples)
    rng.shuffle(rest)
    while len(picks) < n:
        picks.append((rest.pop() if rest else rng.choice(triples)) + (None,))
    cases = [make_case(rng, *p) for p in picks]
    rng.shuffle(cases)
    for i, c in enumerate(cases):
        c["id"] = i
        c["name"] = "k%04d" % (i + 1)
        if c["fn"]:
            c["fn"] = "fn_%s_k%04d" % (c["op"][:3], i + 1)
    return cases, len(triples)


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
    return v


def float_values(g, dt, n, shared):
    npdt = DTYPES[dt][0]
    wide = 38 if dt == "f32" else 300
    exp = np.where(g.random(n) < 0.7, g.integers(-6, 7, n), g.integers(-wide - 7, wide + 1, n))
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


# Floats of type dt that convert to the integer type t without leaving
# its range, within [lo, hi] when given.
def float_to_int_values(g, dt, t, n, lo=None, hi=None):
    tlo, thi = irange(t)
    bound = 2 ** 24 if dt == "f32" else 2 ** 53
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
    return x.astype(DTYPES[dt][0])


# Values of operand j of case c (stored type s, kernel type t).
def operand_values(g, c, j, s, n, shared):
    op, t = c["op"], c["t"]
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
        return float_values(g, s, n, shared if s == t else None)
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
        arrs.append(operand_values(g, c, j, s, prod(o["shape"]), shared)
                    .reshape(o["shape"]))
    return arrs


# ---------------------------------------------------------------- reference

UFUNCS = {name: getattr(np, name) for name in OP_NAMES
          if name not in ("divide", "copy")}


def reference(c, arrs):
    t = DTYPES[c["t"]][0]
    op = c["op"]
    res_shape = tuple(c["result"])
    with np.errstate(all="ignore"):
        xs = [np.ascontiguousarray(np.broadcast_to(
            a.astype(t).reshape(o["aligned"]), res_shape))
            for a, o in zip(arrs, c["operands"])]
        if op == "copy":
            r = xs[0].copy()
        elif OPS[op][2] == "var":
            r = xs[0].copy()
            for x in xs[1:]:
                r = UFUNCS[op](r, x)
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
            r = UFUNCS[op](*xs)
        r = np.asarray(r).reshape(res_shape).astype(DTYPES[out_dtype(c)][0])
    return r


# ---------------------------------------------------------------- compare

def fmt(v, dt):
    if is_float(dt):
        ut = np.uint32 if dt == "f32" else np.uint64
        bitsv = int(np.array(v, dtype=DTYPES[dt][0]).view(ut))
        return "%s[0x%0*x]" % (str(v), 8 if dt == "f32" else 16, bitsv)
    return str(int(v))


def ulp_diff(w, g, dt):
    """ULPs between two non-NaN floats of one sign; None if signs differ."""
    ut = np.uint32 if dt == "f32" else np.uint64
    nb = 32 if dt == "f32" else 64
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
    ut = np.uint32 if dt == "f32" else np.uint64
    bad = (want.view(ut) != got.view(ut)) & ~(wn & gn)
    maxulp = 0
    if c["op"] == "power" and is_float(c["t"]) and bad.any():
        # within 1 ULP of the narrower of the kernel and output types
        cdt = dt
        if DTYPES[dt][0].itemsize > DTYPES[c["t"]][0].itemsize:
            cdt = c["t"]
        w2 = want.astype(DTYPES[cdt][0])
        g2 = got.astype(DTYPES[cdt][0])
        # same sign, both finite, at most 1 apart (inf vs FLT_MAX is a failure)
        for idx in zip(*np.nonzero(bad)):
            w, g = w2[idx], g2[idx]
            if np.isnan(w) or np.isnan(g) or np.isinf(w) or np.isinf(g):
                continue
            d = ulp_diff(w, g, cdt)
            if d is not None:
                maxulp = max(maxulp, d)
                if d <= 1:
                    bad[idx] = False
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

static void *xalloc(long n)
{
    void *p = malloc(n > 0 ? (size_t)n : 1);
    if (!p) { perror("malloc"); exit(3); }
    return p;
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
        if (!t->inplace) {
            p[t->nin] = xalloc(t->obytes);
            memset(p[t->nin], 0xa5, (size_t)t->obytes);
        }
        t->call(p);
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


# The two builds of every batch: (name, kernel flags, harness flags).
BUILDS = [
    ("-O2", ["-std=c99", "-O2", "-Wall", "-Wextra", "-Wpedantic", "-Wconversion",
             "-Werror", "-ffp-contract=off"], ["-std=c99", "-O1", "-w"]),
    # -fno-var-tracking: -g with line numbers for the reports, twice as fast
    ("asan+ubsan", ["-std=c99", "-O1", "-g", "-fno-var-tracking", "-w", "-ffp-contract=off",
                    "-fsanitize=address,undefined", "-fno-sanitize-recover=all"],
     ["-std=c99", "-O1", "-g", "-fno-var-tracking", "-w", "-fsanitize=address,undefined",
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
    if c.get("gen_error"):
        return "%s: %s" % (c["cmd"], c["gen_error"])
    if odir in c.get("cc_error", {}):
        return "%s: %s" % (c["cmd"], c["cc_error"][odir])
    if odir in c.get("run_error", {}):
        return "%s: %s" % (c["cmd"], c["run_error"][odir])
    if outdata is None:
        return "%s: not run" % c["cmd"]
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
    for a, o in zip(c["arrs"], c["operands"]):
        s = o["dt"] or c["t"]
        v = np.broadcast_to(a.reshape(o["aligned"]), tuple(c["result"]))[idx]
        txt = "%s=%s" % (o["name"], fmt(v, s))
        if s != c["t"]:
            with np.errstate(all="ignore"):
                txt += "->%s" % fmt(np.array(v).astype(DTYPES[c["t"]][0]), c["t"])
        ins.append(txt)
    return "%s: %d of %d elements differ; first at [%s] (flat %d): %s: expected %s, got %s" % (
        c["cmd"], int(bad.sum()), bad.size, ",".join(str(int(i)) for i in idx), flat,
        " ".join(ins), fmt(want[idx], to), fmt(got[idx], to))


def main():
    gen = sys.argv[1] if len(sys.argv) > 1 else "build/bcastgen"
    gen = os.path.abspath(gen)
    n = int(os.environ.get("BCAST_KERNELS_N", "2400"))
    seed = int(os.environ.get("BCAST_KERNELS_SEED", "20240611"))
    jobs = max(1, int(os.environ.get("BCAST_KERNELS_JOBS", "2")))
    cc = os.environ.get("BCAST_KERNELS_CC") or "gcc"
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    runtime = os.path.join(top, "runtime")
    t0 = time.time()

    cases, ntriples = build_corpus(seed, n)
    nb = max(1, min(NBATCH, len(cases)))
    batches = [cases[k * len(cases) // nb:(k + 1) * len(cases) // nb] for k in range(nb)]
    builds = BUILDS
    tap = Tap(2 + len(builds) * (nb + len(OP_NAMES)))
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
                 lambda c, args: check_axis_shape(gen, c, args))
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
                if op == "power":
                    m = max([0] + [c.get("maxulp", {}).get(o, 0) for c, _ in lst
                                   for o in odirs])
                    extra = "; float results within %d ULP of NumPy" % m
                tap.result(not fails, "%s: %s (%d cases: %s%s)" % (
                    bname, op, len(lst), ", ".join(
                        "%s %d" % (s, sum(1 for c, _ in lst if c["strategy"] == s))
                        for s in STRATEGIES), extra), fails, total=len(lst))
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
