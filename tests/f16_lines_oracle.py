"""NumPy differential test of the f16 lines: kernels that convert their
f16 data a line of 64 elements at a time.

On a target whose row converts f16 in hardware and has vectors
(x86-64-v3, x86-64-v4), a kernel of loops whose innermost loop runs 64
times or more converts each f16 input with stride 1 there a line at a
time (bc_f16_to_f32_n, or bc_f16_to_f32_nq where every value reading it
is arithmetic + - * / or a comparison or logical op, which cannot show a
signalling NaN turned quiet), computes a float line, converts that to an
f16 output with stride 1 at once (bc_f32_to_f16_n, or _nq where the value
stored is arithmetic) and does the rest of the loop an element at a time.

A fixed list of kernels (CASES) covers every branch of that decision:
f16 add, subtract, multiply, divide (quiet both ways); maximum, minimum,
fmax, fmin, negative, absolute, copysign, where (f16 and u8 condition),
copy (exact: _n); a comparison and a logical op to u8 (inputs quiet, no
output line); f16 inputs computed in f32 and in f64 (the f64 value
stored through bc_f64_to_f16, no output line); f32 inputs to an f16
output (quiet from arithmetic, exact from a copy); in place; the fused
'max(x*w + b, 0)' and 'x*x + y'; innermost loops of 64, 100, 128, 130,
400, 500, 3136 and 9408 (a kernel of one loop, all lines), operands of
stride 0 in the innermost loop, an output of stride 64 there
(--loop-order), --stream auto past the cache (lines, not streamed); and
kernels that must not convert a line
at a time: an innermost loop of 63 (block and loops), --stream on,
--optimize size, targets x86-64 and cortex-m4f. For each the generated .c
must show the plan's choice: which inputs are converted a line at a time
and by which helper (_n or _nq), which output helper, the loop of lines
and the rest, the banner's words; and --explain must say the same.

The kernels are compiled with gcc and clang (as one translation unit;
those its diagnostics name, each on its own, and left out of the run),
-std=c99 -O2 -Wall -Wextra -Werror -mf16c -mavx2 (the hardware path:
a compile of bc.h with those flags must see BC_F16_HW == 1, the driver
must print it, and its code must hold vcvtph2ps and vcvtps2ph), and with
gcc -std=c99
-O2 -Wall -Wextra -Werror -DBC_F16_PORTABLE (the portable path: BC_F16_HW
is 0, no such instruction), and with gcc and clang without either (F16C
found at run time, BC_F16_DISPATCH: BC_F16_HW is 0, the instructions are
there). The hardware builds are made and run only
where /proc/cpuinfo has f16c and avx2 (else a TAP skip says so). Every
buffer starts one element past a 64-byte boundary, the output is followed
by guard bytes that must stay untouched, and the inputs must come back
unchanged.

The inputs hold every class of f16 bit pattern (+-0, subnormals, normals,
+-inf, quiet NaNs and signalling NaNs with payloads such as 0x7c01,
0x7d00, 0xfc01, 0x7e00, 0x7e01, values near 65504 whose sums and
products overflow) and random bit patterns; f32 inputs the floats that
round to those, ties, f32 signalling NaNs whose top payload bits are 0.
Every output element is compared with NumPy 1.24 (np.float16 arithmetic,
np.maximum and its kin on float16 arrays, astype) as tests/
kernels_oracle.py does: bit for bit, a NaN's sign and payload and whether
it is signalling included, except that where NumPy's own result is a NaN
made by arithmetic on two NaNs (add, subtract, multiply, divide, the
expressions) any NaN equals any NaN: which operand's NaN comes out is the
compiler's choice. Arithmetic on one NaN gives that NaN made quiet, on x86
in both. Last, each hardware build's output bytes must equal the portable
build's wherever NumPy's result is defined bit for bit.

Usage: f16_lines_oracle.py GEN        (run with /usr/bin/python3)
Env:   BCAST_F16_RUNTIME  the runtime directory (bc.h) to compile with
                          instead of runtime/: a copy with a NaN fix-up of
                          bc__f16x8_to_f32 or bc__f32x8_to_f16 taken out
                          shows that the NaN-exact kernels then fail
       BCAST_F16_SEED     the inputs' seed (default 20250305)
       BCAST_F16_JOBS     builds compiled at once (default 2)
       BCAST_F16_KEEP     keep the scratch directory if set (path printed)
"""
import concurrent.futures
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

from tap import Tap

GEN = os.path.abspath(sys.argv[1])
TESTS = os.path.dirname(os.path.abspath(__file__))
RUNTIME = os.path.abspath(os.environ.get("BCAST_F16_RUNTIME") or
                          os.path.join(os.path.dirname(TESTS), "runtime"))
SEED = int(os.environ.get("BCAST_F16_SEED", "20250305"))
JOBS = int(os.environ.get("BCAST_F16_JOBS", "2"))
LINE = 64           # f16 elements converted at a time (plan.h's PLAN_F16_LINE)

DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "u8": np.uint8}
UINT = {"f16": np.uint16, "f32": np.uint32, "f64": np.uint64}

TAP = Tap()
ok, skip = TAP.ok, TAP.skip


def run(cmd, cwd=None, timeout=300):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)


# ---------------------------------------------------------------- references

def nan2(a, b):
    """Where arithmetic on a and b meets two NaNs: which one comes out is
    the compiler's choice, so any NaN equals any NaN there."""
    return np.isnan(a) & np.isnan(b)


def arith(f):
    return lambda d: (f(d["x"], d["y"]), nan2(d["x"], d["y"]))


def exact(f):
    return lambda d: (f(d), None)


def ref_fma_relu(d):
    x, w, b = d["x"], d["w"], d["b"]
    xw = x * w
    return (np.maximum(xw + b, np.float16(0)),
            nan2(x, w) | nan2(xw, b))


def ref_square_add(d):
    x, y = d["x"], d["y"]
    # x*x on a NaN x is that NaN made quiet, whichever operand comes out
    return x * x + y, nan2(x, y)


def ref_f64_to_f16(d):
    x, y = d["x"].astype(np.float64), d["y"].astype(np.float64)
    return (x + y).astype(np.float16), nan2(x, y)


# ---------------------------------------------------------------- cases

class Case:
    """One kernel: bcastgen's words, NumPy's result, and what the plan
    must choose. widen: the inputs converted a line at a time, each 'n'
    or 'nq' (None: the kernel converts no line at all); narrow: the
    output's helper, 'n', 'nq' or None (no output line); inner: the
    innermost loop's extent; has / hasnt: text the .c must (not) hold."""

    def __init__(self, what, args, ref, widen, narrow=None, inner=None, target="x86-64-v3",
                 has=(), hasnt=(), out_dt=None, inplace=False):
        self.what, self.args, self.ref = what, list(args), ref
        self.widen, self.narrow, self.inner = widen, narrow, inner
        self.target, self.has, self.hasnt = target, list(has), list(hasnt)
        self.inplace = inplace
        self.operands = []
        for w in args:
            m = re.match(r"^(\w+):(\w+)=([\d,]*)$", w)
            if m:
                sh = [int(s) for s in m.group(3).split(",")] if m.group(3) else []
                self.operands.append((m.group(1), m.group(2), sh))
        self.out_dt = out_dt
        self.name = None

    @property
    def lines(self):
        return self.widen is not None

    def cmd(self, path):
        return [GEN, "--target", self.target, "--name", self.name, "-o", path] + self.args

    def describe(self):
        return "%s: %s (%s)" % (self.name, self.what, self.target)

    def decision(self):
        if not self.lines:
            return "no f16 lines"
        parts = ["%s _%s" % (n, q) for n, q in self.widen.items()]
        parts.append("output %s" % ("_" + self.narrow if self.narrow else "stored as computed"))
        return "f16 lines: " + ", ".join(parts)


def mx(op):
    return lambda d: (op(d["x"], d["y"]), None)


F16_IN = "x:f16=4,100 y:f16=100"
CASES = [
    # quiet both ways: + - * / of f16s
    Case("add, f16, row broadcast, inner 100 (36 one at a time)",
         ["--op", "add", "x:f16=5,100", "y:f16=100"], arith(np.add),
         {"x": "nq", "y": "nq"}, "nq", 100),
    Case("multiply, f16, y(4,1) of stride 0 in the inner loop of 3136",
         ["--op", "multiply", "x:f16=2,4,3136", "y:f16=4,1"], arith(np.multiply),
         {"x": "nq"}, "nq", 3136, has=["const float y_v = bc_f16_to_f32(*y_"]),
    Case("subtract, f16, inner 64 exactly",
         ["--op", "subtract", "x:f16=3,64", "y:f16=64"], arith(np.subtract),
         {"x": "nq", "y": "nq"}, "nq", 64),
    Case("divide, f16, inner 130",
         ["--op", "divide", "x:f16=7,130", "y:f16=130"], arith(np.divide),
         {"x": "nq", "y": "nq"}, "nq", 130),
    # NaN-exact: _n both ways
    Case("maximum, f16", ["--op", "maximum"] + F16_IN.split(), mx(np.maximum),
         {"x": "n", "y": "n"}, "n", 100),
    Case("minimum, f16, y(3,1) of stride 0", ["--op", "minimum", "x:f16=3,128", "y:f16=3,1"],
         mx(np.minimum), {"x": "n"}, "n", 128, target="x86-64-v4"),
    Case("fmax, f16, same shapes merged to 400", ["--op", "fmax", "x:f16=4,100", "y:f16=4,100"],
         mx(np.fmax), {"x": "n", "y": "n"}, "n", 400),
    Case("fmin, f16, x a row", ["--op", "fmin", "x:f16=100", "y:f16=3,100"], mx(np.fmin),
         {"x": "n", "y": "n"}, "n", 100),
    Case("negative, f16", ["--op", "negative", "x:f16=5,100"],
         exact(lambda d: np.negative(d["x"])), {"x": "n"}, "n", 500),
    Case("absolute, f16, one loop of 9408, 147 lines and no rest",
         ["--op", "absolute", "x:f16=3,3136"],
         exact(lambda d: np.absolute(d["x"])), {"x": "n"}, "n", 9408, target="x86-64-v4"),
    Case("copysign, f16", ["--op", "copysign"] + F16_IN.split(), mx(np.copysign),
         {"x": "n", "y": "n"}, "n", 100),
    Case("where, f16 condition", ["--op", "where", "c:f16=4,100", "x:f16=4,100", "y:f16=100"],
         exact(lambda d: np.where(d["c"] != 0, d["x"], d["y"])),
         {"c": "n", "x": "n", "y": "n"}, "n", 100),
    Case("where, u8 condition, y(4,1) of stride 0",
         ["--op", "where", "c:u8=4,100", "x:f16=100", "y:f16=4,1"],
         exact(lambda d: np.where(d["c"] != 0, d["x"], d["y"])), {"x": "n"}, "n", 100,
         has=["(c_0[i1 + lane] != 0)"]),
    Case("copy, f16, to --out-shape 6,100", ["--op", "copy", "--out-shape", "6,100", "x:f16=100"],
         exact(lambda d: np.broadcast_to(d["x"], (6, 100))), {"x": "n"}, "n", 100),
    # to u8: inputs quiet, the output stored as computed
    Case("greater, f16 > f16 to u8", ["--op", "greater"] + F16_IN.split(),
         exact(lambda d: np.greater(d["x"], d["y"])), {"x": "nq", "y": "nq"}, None, 100,
         out_dt="u8", has=["out_0[i1 + lane] = (uint8_t)(x_f[lane] > y_f[lane]);"]),
    Case("logical_or, f16 to u8", ["--op", "logical_or"] + F16_IN.split(),
         exact(lambda d: np.logical_or(d["x"], d["y"])), {"x": "nq", "y": "nq"}, None, 100,
         out_dt="u8", target="x86-64-v4"),
    # other dtypes
    Case("add, f16 inputs, --dtype f32, f32 output",
         ["--op", "add", "--dtype", "f32"] + F16_IN.split(),
         arith(lambda x, y: x.astype(np.float32) + y.astype(np.float32)),
         {"x": "nq", "y": "nq"}, None, 100, out_dt="f32"),
    Case("copy, f16 to --dtype f32 (astype)",
         ["--op", "copy", "--dtype", "f32", "--out-shape", "4,100", "x:f16=100"],
         exact(lambda d: np.broadcast_to(d["x"].astype(np.float32), (4, 100))),
         {"x": "n"}, None, 100, out_dt="f32"),
    Case("add, f32 inputs, --out-dtype f16",
         ["--op", "add", "--out-dtype", "f16", "x:f32=4,100", "y:f32=100"],
         arith(lambda x, y: (x + y).astype(np.float16)), {}, "nq", 100),
    Case("copy, an f32 input to --out-dtype f16 (astype)",
         ["--op", "copy", "--out-dtype", "f16", "--out-shape", "4,100", "x:f32=100"],
         exact(lambda d: np.broadcast_to(d["x"].astype(np.float16), (4, 100))), {}, "n", 100),
    Case("add, f16 inputs, --dtype f64 --out-dtype f16: stored by bc_f64_to_f16",
         ["--op", "add", "--dtype", "f64", "--out-dtype", "f16"] + F16_IN.split(),
         ref_f64_to_f16, {"x": "n", "y": "n"}, None, 100,
         has=["out_0[i1 + lane] = bc_f64_to_f16((double)x_f[lane] + (double)y_f[lane]);"]),
    # in place
    Case("multiply --inplace, f16", ["--op", "multiply", "--inplace"] + F16_IN.split(),
         arith(np.multiply), {"x": "nq", "y": "nq"}, "nq", 100, inplace=True,
         has=["bc_f32_to_f16_nq(x_0 + i1, line, 64);"]),
    Case("maximum --inplace, f16, inner 3136",
         ["--op", "maximum", "--inplace", "x:f16=3,3136", "y:f16=3136"], mx(np.maximum),
         {"x": "n", "y": "n"}, "n", 3136, inplace=True, target="x86-64-v4",
         has=["bc_f32_to_f16_n(x_0 + i1, line, 64);"]),
    # fused expressions
    Case("expr 'max(x*w + b, 0)', f16, w and b rows",
         ["--expr", "max(x*w + b, 0)", "x:f16=4,100", "w:f16=100", "b:f16=100"],
         ref_fma_relu, {"x": "nq", "w": "nq", "b": "nq"}, "n", 100),
    Case("expr 'max(x*w + b, 0)', f16, w and b (3,1) of stride 0, inner 3136",
         ["--expr", "max(x*w + b, 0)", "x:f16=2,3,3136", "w:f16=3,1", "b:f16=3,1"],
         ref_fma_relu, {"x": "nq"}, "n", 3136),
    Case("expr 'x*x + y', f16", ["--expr", "x*x + y"] + F16_IN.split(), ref_square_add,
         {"x": "nq", "y": "nq"}, "nq", 100),
    # an output of stride 64 in the innermost loop: no output line
    Case("add --loop-order 1,0: x of stride 1, y of stride 0, out of stride 64",
         ["--op", "add", "--loop-order", "1,0", "x:f16=100,1", "y:f16=1,64"], arith(np.add),
         {"x": "nq"}, None, 100, has=["out_0[(i1 + lane) * 64] = bc_f32_to_f16(x_f[lane] + y_v);"]),
    Case("add --stream auto --cache-size 1K: lines, not streamed",
         ["--op", "add", "--stream", "auto", "--cache-size", "1K", "x:f16=4,3136", "y:f16=3136"],
         arith(np.add), {"x": "nq", "y": "nq"}, "nq", 3136,
         has=["Not streamed past the cache: a streamed line converts its f16s one at"],
         hasnt=["bc_stream"]),
    # no f16 lines
    Case("add, inner 63 (auto: a block)", ["--op", "add", "x:f16=4,63", "y:f16=63"],
         arith(np.add), None),
    Case("add, inner 63, --strategy loops", ["--op", "add", "--strategy", "loops",
                                             "x:f16=4,63", "y:f16=63"], arith(np.add), None),
    Case("add --stream on: streamed, not converted a line at a time",
         ["--op", "add", "--stream", "on", "x:f16=4,3136", "y:f16=3136"], arith(np.add), None,
         has=["bc_stream_line_f16("]),
    Case("add --optimize size", ["--op", "add", "--optimize", "size"] + F16_IN.split(),
         arith(np.add), None),
    Case("add, target whose processor may have F16C, asked at run time (x86-64)",
         ["--op", "add"] + F16_IN.split(), arith(np.add), {"x": "nq", "y": "nq"}, "nq", 100,
         target="x86-64"),
    Case("add, target without f16 conversions (generic)", ["--op", "add"] + F16_IN.split(),
         arith(np.add), None, target="generic"),
    Case("add, target with f16 conversions but no vectors", ["--op", "add"] + F16_IN.split(),
         arith(np.add), None, target="cortex-m4f"),
]
for _k, _c in enumerate(CASES):
    _c.name = "k%02d" % (_k + 1)
    _c.out_dt = _c.out_dt or "f16"

NAN_EXACT_OPS = ("maximum", "minimum", "fmax", "fmin", "negative", "absolute", "copysign",
                 "where", "copy")


# ---------------------------------------------------------------- generation checks

WIDEN = re.compile(r"\bbc_f16_to_f32_n(q?)\((\w+)_f, (\w+) \+ (i\d+), 64\);")
NARROW = re.compile(r"\bbc_f32_to_f16_n(q?)\((\w+) \+ (i\d+), line, 64\);")


def check_case(c, work):
    """Generate C's kernel and its --explain; return the list of what is wrong
    with the plan's choice as the .c and the explanation show it."""
    path = os.path.join(work, c.name + ".c")
    r = run(c.cmd(path))
    if r.returncode != 0:
        return ["bcastgen exit %d: %s" % (r.returncode, r.stderr.strip())]
    text = open(path).read()
    bad = []
    body = text[text.index("/* Begin"):]
    banner = " ".join(text[:text.index("/* Begin")].replace("*", " ").split())
    widened = {}
    for q, op, _, _ in WIDEN.findall(body):
        if op in widened:
            bad.append("%s converted twice a line" % op)
        widened[op] = "nq" if q else "n"
    narrowed = ["nq" if m[0] else "n" for m in NARROW.findall(body)]
    any_helper = re.search(r"bc_f16_to_f32_n|bc_f32_to_f16_n", body)
    ex = run([GEN, "--target", c.target, "--explain"] + c.args)
    explain = " ".join(ex.stdout.split())
    said = "The f16 data are converted a line of 64 elements at a time" in explain
    if ex.returncode != 0:
        bad.append("--explain: exit %d: %s" % (ex.returncode, ex.stderr.strip()))
    if not c.lines:
        if any_helper or "a line of 64 elements at a time" in banner:
            bad.append("converts f16 a line at a time, which it must not")
        if said:
            bad.append("--explain says the f16 data are converted a line at a time")
    else:
        if widened != c.widen:
            bad.append("inputs converted a line at a time: %s, expected %s" % (
                widened or "none", c.widen or "none"))
        want_n = [c.narrow] if c.narrow else []
        if narrowed != want_n:
            bad.append("output lines converted by %s, expected %s" % (
                narrowed or "nothing", want_n or "nothing"))
        # the lines from 0, then the rest one at a time
        m = re.search(r"for \((i\d+) = 0; \1 \+ 64 <= (\d+); \1 \+= 64\) \{", body)
        if not m or int(m.group(2)) != c.inner:
            bad.append("no loop of lines 'for (iK = 0; iK + 64 <= %d; iK += 64)'" % c.inner)
        else:
            i = m.group(1)
            rest = c.inner % LINE
            if rest and "for (; %s < %d; %s++)" % (i, c.inner, i) not in body[m.end():]:
                bad.append("no loop of the rest after the lines: 'for (; %s < %d; %s++)'"
                           % (i, c.inner, i))
            phrase = "The last %d elements of %s go one at a time." % (rest, i)
            if (phrase in banner) != (rest > 0):
                bad.append("the banner %s '%s'" % ("lacks" if rest else "says", phrase))
            e_rest = "The last %d elements of the innermost loop are converted one at a time" \
                % rest
            if (e_rest in explain) != (rest > 0):
                bad.append("--explain %s '%s'" % ("lacks" if rest else "says", e_rest))
        if "converted a line of 64 elements at a time" not in banner:
            bad.append("the banner does not say the f16 data are converted a line at a time")
        if not said:
            bad.append("--explain does not say the f16 data are converted a line at a time")
        quiet = all(q == "nq" for q in list(c.widen.values()) + [c.narrow or "nq"])
        b_q = "No signalling NaN can reach the output as one here" in banner
        e_q = "the conversions need not keep one signalling (the _nq helpers)" in explain
        if b_q != quiet or e_q != quiet:
            bad.append("banner / --explain say no signalling NaN can reach the output: "
                       "%s / %s, expected %s" % (b_q, e_q, quiet))
    for s in c.has:
        if s not in text:
            bad.append("the .c lacks '%s'" % s)
    for s in c.hasnt:
        if s in text:
            bad.append("the .c holds '%s'" % s)
    return bad


# ---------------------------------------------------------------- data

F16_NAN_Q = [0x7e00, 0xfe00, 0x7e01, 0x7fff, 0xfe2a, 0x7f00]
F16_NAN_S = [0x7c01, 0x7d00, 0xfc01, 0x7dff, 0xfd55, 0x7c80]
F16_EDGES = ([0x0000, 0x8000, 0x0001, 0x8001, 0x0200, 0x03ff, 0x83ff, 0x0155,    # +-0, subnormals
              0x0400, 0x8400, 0x3c00, 0xbc00, 0x3555, 0x4000, 0xc500, 0x3c01,  # normals
              0x7bff, 0xfbff, 0x7bfe, 0x7a00, 0x5c00, 0x5bff, 0xdc00,          # near 65504
              0x7c00, 0xfc00] + F16_NAN_Q + F16_NAN_S)                         # inf, NaNs
F32_EDGES = [0x00000000, 0x80000000, 0x00000001, 0x807fffff,      # +-0, f32 subnormals
             0x3f800000, 0xbfc00000, 0x477fe000, 0x477fefff,      # 1, -1.5, 65504, < 65520
             0x477ff000, 0xc77ff000, 0x47800000, 0x7f7fffff,      # 65520, 2^16, FLT_MAX
             0x33000000, 0x33000001, 0x33c00000, 0x33800000,      # 2^-25, 3 * 2^-25, 2^-24
             0x38800000, 0x387fffff, 0x38801000, 0x38803000,      # 2^-14, ties
             0x7f800000, 0xff800000,                              # +-inf
             0x7fc00000, 0xffc12345, 0x7fc00001, 0x7fffffff,      # quiet NaNs
             0x7f800001, 0x7f802000, 0xff801234, 0x7fbfffff, 0x7fa00000]  # signalling


def f16_values(g, n):
    """n f16 bit patterns: edges, ordinary magnitudes, random bits; each
    edge at least once where n allows."""
    v = g.integers(0, 1 << 16, n, dtype=np.uint32).astype(np.uint16)
    cat = g.random(n)
    pool = np.array(F16_EDGES, dtype=np.uint16)
    m = cat < 0.45
    v[m] = pool[g.integers(0, len(pool), m.sum())]
    m = (cat >= 0.45) & (cat < 0.6)              # ordinary magnitudes, both signs
    v[m] = (g.integers(0x3000, 0x5400, m.sum()) | (g.integers(0, 2, m.sum()) << 15)) \
        .astype(np.uint16)
    if n >= len(pool):                           # each edge at least once
        v[g.choice(n, len(pool), replace=False)] = pool
    return v.view(np.float16)


def f32_values(g, n):
    """n f32 bit patterns: edges, f16s with random low bits (ties among
    them), random bits."""
    v = g.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    cat = g.random(n)
    pool = np.array(F32_EDGES, dtype=np.uint32)
    m = cat < 0.4
    v[m] = pool[g.integers(0, len(pool), m.sum())]
    m = (cat >= 0.4) & (cat < 0.8)
    h = f16_values(g, int(m.sum())).astype(np.float32).view(np.uint32)
    low = np.where(g.random(m.sum()) < 0.3, 0x1000, g.integers(0, 0x2000, m.sum()))
    finite = (h & 0x7f800000) != 0x7f800000
    v[m] = np.where(finite, h | low.astype(np.uint32), h)
    if n >= len(pool):
        v[g.choice(n, len(pool), replace=False)] = pool
    return v.view(np.float32)


def make_data(c, g):
    c.inputs = {}
    for name, dt, sh in c.operands:
        n = int(np.prod(sh)) if sh else 1
        if dt == "f16":
            a = f16_values(g, n)
        elif dt == "f32":
            a = f32_values(g, n)
        else:
            a = g.choice(np.array([0, 1, 2, 255], dtype=np.uint8), n)
        c.inputs[name] = a.reshape(sh)
    with np.errstate(all="ignore"):
        want, loose = c.ref(c.inputs)
    want = np.ascontiguousarray(want).astype(DTYPES[c.out_dt])
    c.shape = want.shape
    c.want = want
    c.loose = (np.zeros(want.shape, bool) if loose is None
               else np.ascontiguousarray(np.broadcast_to(loose, want.shape)))


def check_data(cases):
    """The oracle has teeth: every class of f16 in each f16 operand of a
    line case, and NumPy outputs holding signalling NaNs for the NaN-exact
    ones (which a quieting conversion would change)."""
    bad = []
    classes = {"+0": [0x0000], "-0": [0x8000], "subnormal": list(range(1, 0x400)),
               "inf": [0x7c00, 0xfc00], "quiet NaN": [0x7e00, 0x7e01, 0xfe00],
               "signalling NaN": [0x7c01, 0x7d00, 0xfc01]}
    for c in cases:
        for name, dt, sh in c.operands:
            if dt != "f16" or np.prod(sh) < len(F16_EDGES):
                continue
            bits = c.inputs[name].view(np.uint16).reshape(-1)
            for what, pats in classes.items():
                if not np.isin(bits, pats).any():
                    bad.append("%s: operand %s has no %s" % (c.name, name, what))
        op = c.args[1] if c.args[0] == "--op" else None
        if op in NAN_EXACT_OPS and c.out_dt in UINT:
            w = c.want.view(UINT[c.out_dt]).reshape(-1)
            if c.out_dt == "f16":
                snan = ((w & 0x7e00) == 0x7c00) & ((w & 0x1ff) != 0)
            else:
                snan = ((w & 0x7fc00000) == 0x7f800000) & ((w & 0x3fffff) != 0)
            if not snan.any():
                bad.append("%s: NumPy's %s output holds no signalling NaN" % (c.name, op))
    return bad


# ---------------------------------------------------------------- driver

DRIVER_HEAD = r"""/* driver.c: runs each kernel (compiled apart, declared by its header)
 * on its inputs, every buffer one element past a 64-byte boundary, guard
 * bytes after the output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "bc_f16.h"
"""

DRIVER_BODY = r"""
struct kcase {
	const char *name;
	void (*fn)(void *const *p);
	int nin, inplace;
	size_t in_bytes[4], in_size[4], out_bytes, out_size;
};

#define GUARD 64
#define PAT 0xa5

/* A buffer of N bytes SIZE bytes past a 64-byte boundary, guards after it;
 * the block malloc returned at *RAW. */
static unsigned char *buffer(size_t n, size_t size, unsigned char **raw)
{
	unsigned char *p = malloc(n + size + GUARD + 64);

	*raw = p;
	if (!p)
		return NULL;
	memset(p, PAT, n + size + GUARD + 64);
	return p + (64 - (uintptr_t)p % 64) % 64 + size;
}

/* Run case C on DIR/NAME.in; write its output to OUT/NAME.out. */
static int run_case(const struct kcase *c, const char *dir, const char *outdir)
{
	char path[4096];
	FILE *f;
	unsigned char *raw[5], *buf[5], *out, *data;
	size_t total = 0, off, j, k;
	int bad = 0;

	for (j = 0; j < (size_t)c->nin; j++)
		total += c->in_bytes[j];
	snprintf(path, sizeof path, "%s/%s.in", dir, c->name);
	data = malloc(total + 1);
	f = fopen(path, "rb");
	if (!data || !f || fread(data, 1, total, f) != total) {
		printf("%s error: cannot read %s\n", c->name, path);
		return 1;
	}
	fclose(f);
	for (j = 0, off = 0; j < (size_t)c->nin; off += c->in_bytes[j], j++) {
		buf[j] = buffer(c->in_bytes[j], c->in_size[j], &raw[j]);
		if (!buf[j])
			return 1;
		memcpy(buf[j], data + off, c->in_bytes[j]);
	}
	if (c->inplace) {
		out = buf[0];
	} else {
		out = buf[c->nin] = buffer(c->out_bytes, c->out_size, &raw[c->nin]);
		if (!out)
			return 1;
	}
	c->fn((void *const *)buf);
	for (k = 0; k < GUARD; k++)
		if (out[c->out_bytes + k] != PAT) {
			printf("%s error: guard byte %lu past the output changed\n", c->name,
			       (unsigned long)k);
			bad = 1;
			break;
		}
	for (j = 0, off = 0; j < (size_t)c->nin; off += c->in_bytes[j], j++)
		if (!(c->inplace && j == 0) && memcmp(buf[j], data + off, c->in_bytes[j])) {
			printf("%s error: input %lu changed\n", c->name, (unsigned long)j);
			bad = 1;
		}
	snprintf(path, sizeof path, "%s/%s.out", outdir, c->name);
	f = fopen(path, "wb");
	if (!f || fwrite(out, 1, c->out_bytes, f) != c->out_bytes || fclose(f)) {
		printf("%s error: cannot write %s\n", c->name, path);
		return 1;
	}
	for (j = 0; j < (size_t)c->nin + !c->inplace; j++)
		free(raw[j]);
	free(data);
	if (!bad)
		printf("%s ran\n", c->name);
	return bad;
}

/* driver DIR OUTDIR: run every case. */
int main(int argc, char **argv)
{
	size_t i;
	int bad = 0;

	if (argc != 3)
		return 2;
	printf("BC_F16_HW %d\n", BC_F16_HW);
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		bad |= run_case(&cases[i], argv[1], argv[2]);
		fflush(stdout);
	}
	return bad;
}
"""


def write_inputs(cases, work):
    for c in cases:
        with open(os.path.join(work, c.name + ".in"), "wb") as f:
            for n, _, _ in c.operands:
                f.write(np.ascontiguousarray(c.inputs[n]).tobytes())


def write_driver(cases, path):
    """The driver of CASES (those a build compiled) at PATH."""
    parts = [DRIVER_HEAD]
    for c in cases:
        parts.append('#include "%s.h"\n' % c.name)
    for c in cases:
        n = len(c.operands) + (0 if c.inplace else 1)
        parts.append("static void w_%s(void *const *p)\n{\n\t%s(%s);\n}\n" % (
            c.name, c.name, ", ".join("p[%d]" % j for j in range(n))))
    struct_end = DRIVER_BODY.index("#define GUARD")
    rows = []
    for c in cases:
        arrs = [c.inputs[n] for n, _, _ in c.operands]
        rows.append('\t{"%s", w_%s, %d, %d, {%s}, {%s}, %d, %d},' % (
            c.name, c.name, len(arrs), int(c.inplace),
            ", ".join(str(a.nbytes) for a in arrs), ", ".join(str(a.itemsize) for a in arrs),
            c.want.nbytes, c.want.itemsize))
    parts.append(DRIVER_BODY[:struct_end])
    parts.append("static const struct kcase cases[] = {\n%s\n};\n\n" % "\n".join(rows))
    parts.append(DRIVER_BODY[struct_end:])
    with open(path, "w") as f:
        f.write("".join(parts))


# ---------------------------------------------------------------- builds

def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


STRICT = ["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror"]
HW = ["-mf16c", "-mavx2"]


def no_hw():
    """Why the hardware builds cannot run here, or None."""
    flags = cpu_flags()
    missing = [f for f in ("f16c", "avx2") if f not in flags]
    return ("the processor lacks %s (no %s in /proc/cpuinfo)" % (
        " and ".join(missing), " or ".join(missing)) if missing else None)


def builds():
    """(tag, compiler, flags, the line helpers' form: 1 F16C built in
    (BC_F16_HW), 2 F16C found at run time (BC_F16_DISPATCH, x86-64; its
    code holds F16C's instructions whichever it runs), 3 SSE2 alone
    (BC_F16_NO_F16C; or the dispatch form's SSE2 fallback, where the test
    macro BC__F16_NO_CPU_F16C has its check answer no, and the compiler
    drops the F16C path), 0 portable; why it cannot be built and run here
    or None)."""
    noclang = None if shutil.which("clang") else "clang is not installed"
    nox86 = None if platform.machine() == "x86_64" else "not an x86-64 machine"
    return [
        ("gcc hardware", "gcc", STRICT + HW, 1, no_hw()),
        ("clang hardware", "clang", STRICT + HW, 1, noclang or no_hw()),
        ("gcc found at run time", "gcc", STRICT, 2, no_hw()),
        ("clang found at run time", "clang", STRICT, 2, noclang or no_hw()),
        ("gcc not found at run time", "gcc", STRICT + ["-DBC__F16_NO_CPU_F16C"], 3, nox86),
        ("gcc SSE2", "gcc", STRICT + ["-DBC_F16_NO_F16C"], 3, nox86),
        ("clang SSE2", "clang", STRICT + ["-DBC_F16_NO_F16C"], 3, noclang or nox86),
        ("gcc portable", "gcc", STRICT + ["-DBC_F16_PORTABLE"], 0, None),
    ]


HW_CHECK = r"""#include "bc_f16.h"
#if BC_F16_HW != %d
#error "BC_F16_HW is not %d"
#endif
int bc_f16_hw_check(void);
int bc_f16_hw_check(void) { return BC_F16_HW; }
"""


def check_hw_macro(work):
    """A compile of bc.h sees BC_F16_HW 1 with -mf16c -mavx2 (gcc, clang),
    0 with -DBC_F16_PORTABLE, with or without them."""
    for tag, cc, flags, hw in (("gcc", "gcc", HW, 1), ("clang", "clang", HW, 1),
                               ("gcc", "gcc", ["-DBC_F16_PORTABLE"], 0),
                               ("gcc", "gcc", HW + ["-DBC_F16_PORTABLE"], 0),
                               ("gcc", "gcc", ["-mavx2"], 0)):
        what = "%s %s: bc.h has BC_F16_HW == %d" % (tag, " ".join(STRICT + flags), hw)
        why = (None if shutil.which(cc) else cc + " is not installed") or \
            (no_hw() if set(HW) & set(flags) else None)
        if why:
            skip(what, why)
            continue
        src = os.path.join(work, "hw%d.c" % hw)
        with open(src, "w") as f:
            f.write(HW_CHECK % (hw, hw))
        r = run([cc] + STRICT + flags + ["-I", RUNTIME, "-fsyntax-only", src])
        ok(r.returncode == 0 and not r.stderr.strip(), what, r.stderr)


def disassembly(exe):
    if not shutil.which("objdump"):
        return None
    r = run(["objdump", "-d", "--no-show-raw-insn", exe])
    return r.stdout if r.returncode == 0 else None


def named(c, stderr):
    return [l for l in stderr.splitlines() if re.search(r"\b%s\.[ch]:" % c.name, l)]


def do_build(b, work, cases):
    """Compile the kernels as one translation unit (several times faster than
    one each: bc.h brings in immintrin.h); those named in its diagnostics,
    or all if it fails naming none, each on its own, for their own
    diagnostics; then the driver of those that compiled; run it."""
    tag, cc, flags, hw, _ = b
    d = os.path.join(work, re.sub(r"[^A-Za-z0-9]+", "_", tag))
    os.makedirs(d, exist_ok=True)
    inc = ["-I", work, "-I", RUNTIME]
    res = {"dir": d, "failed": {}}
    t0 = time.time()

    def batch(sel):
        src = os.path.join(d, "batch.c")
        with open(src, "w") as f:
            f.write("".join('#include "%s.c"\n' % c.name for c in sel))
        return run([cc] + flags + inc + ["-c", "-o", os.path.join(d, "batch.o"), src])

    objs, alone = [], []         # objects; kernels compiled on their own
    together = list(cases)      # kernels in batch.o
    r = batch(together)
    if r.returncode != 0 or r.stderr.strip():
        bad = [c for c in cases if named(c, r.stderr)] or list(cases)
        one = run([cc] + flags + inc + ["-c"] + [os.path.join(work, c.name + ".c") for c in bad],
                  cwd=d)
        for c in bad:
            mine = named(c, one.stderr)
            if os.path.exists(os.path.join(d, c.name + ".o")) and not mine:
                alone.append(c)
            else:
                res["failed"][c.name] = [l for l in mine if "error" in l or "warning" in l] \
                    or mine or ["no object: %s" % one.stderr.strip()[:200]]
        together = [c for c in cases if c not in bad]
        r = batch(together) if together else None
        if r is not None and (r.returncode != 0 or r.stderr.strip()):
            for c in together:
                res["failed"][c.name] = ["with the others: %s" % r.stderr.strip()[:300]]
            together = []
    objs = [os.path.join(d, c.name + ".o") for c in alone]
    if together:
        objs.append(os.path.join(d, "batch.o"))
    built = [c for c in cases if c in together or c in alone]
    res["ctime"] = time.time() - t0
    exe = os.path.join(d, "driver")
    write_driver(built, os.path.join(d, "driver.c"))
    res["link"] = run([cc] + flags + inc + ["-o", exe, os.path.join(d, "driver.c")] + objs)
    if res["link"].returncode != 0:
        return res
    res["built"] = [c.name for c in built]
    res["asm"] = disassembly(exe)
    t0 = time.time()
    try:
        res["run"] = run([exe, work, d], timeout=120)
    except subprocess.TimeoutExpired:
        res["run"] = None
    res["rtime"] = time.time() - t0
    return res


def fmt_bits(a, dt):
    if dt in UINT:
        return "0x%0*x" % (np.dtype(DTYPES[dt]).itemsize * 2, int(np.asarray(a).view(UINT[dt])))
    return str(int(a))


def output(c, res):
    path = os.path.join(res["dir"], c.name + ".out")
    if not os.path.exists(path):
        return None
    got = np.fromfile(path, dtype=DTYPES[c.out_dt])
    return got.reshape(c.shape) if got.size == c.want.size else None


def mismatches(c, got):
    """Where GOT is not NumPy's result: bit for bit, any NaN for any NaN
    only where the case's arithmetic met two NaNs."""
    if c.out_dt in UINT:
        ut = UINT[c.out_dt]
        bad = got.view(ut) != c.want.view(ut)
        bad &= ~(c.loose & np.isnan(got) & np.isnan(c.want))
    else:
        bad = got != c.want
    return bad


def explain_mismatch(c, got, bad):
    lines = ["%d of %d elements differ from NumPy" % (bad.sum(), bad.size)]
    for idx in list(zip(*np.nonzero(bad)))[:4]:
        ins = []
        for name, dt, sh in c.operands:
            v = np.broadcast_to(c.inputs[name], c.shape)[idx]
            ins.append("%s=%s" % (name, fmt_bits(v, dt)))
        lines.append("at %s: got %s, NumPy %s (%s)" % (
            ",".join(str(int(i)) for i in idx), fmt_bits(got[idx], c.out_dt),
            fmt_bits(c.want[idx], c.out_dt), ", ".join(ins)))
    return lines


def report_build(b, res, cases, outputs):
    tag, cc, flags, hw, _ = b
    failed = res["failed"]
    ok(not failed, "%s: all %d kernels compile (%s %s), no diagnostic "
       "(%.1f s)" % (tag, len(cases), cc, " ".join(flags), res["ctime"]),
       ["%s: %s" % (n, " | ".join(ls[:3])) for n, ls in sorted(failed.items())])
    link = res["link"]
    ok(link.returncode == 0 and not link.stderr.strip(),
       "%s: the driver of the %d kernels that compiled builds, no diagnostic"
       % (tag, len(cases) - len(failed)), link.stderr or "exit %d" % link.returncode)
    if link.returncode != 0:
        return
    asm = res.get("asm")
    if asm is None:
        skip("%s: F16C instructions where BC_F16_HW is 1, none where it is 0" % tag,
             "objdump failed or is not installed")
    else:
        n2ps = len(re.findall(r"\svcvtph2ps\s", asm))
        n2ph = len(re.findall(r"\svcvtps2ph\s", asm))
        f16c = hw in (1, 2)
        good = (n2ps > 0 and n2ph > 0) if f16c else (n2ps == 0 and n2ph == 0)
        ok(good, "%s: the driver's code holds %s vcvtph2ps and vcvtps2ph (%d and %d, objdump -d)"
           % (tag, "both" if f16c else "no", n2ps, n2ph))
    r = res.get("run")
    lines = r.stdout.splitlines() if r else []
    errors = [l for l in lines if " error" in l]
    nbuilt = len(res["built"])
    ok(r is not None and r.returncode == 0 and not r.stderr
       and lines[:1] == ["BC_F16_HW %d" % (hw == 1)]
       and not errors and sum(l.endswith(" ran") for l in lines) == nbuilt,
       "%s: the driver runs its %d kernels (BC_F16_HW %d), guards past each output and "
       "the inputs untouched (%.1f s)" % (tag, nbuilt, hw == 1, res.get("rtime", 0)),
       ["timed out"] if r is None else ["exit %d" % r.returncode, r.stderr] + errors +
       lines[:1])
    outputs[tag] = {}
    for c in cases:
        got = output(c, res) if c.name in res["built"] else None
        outputs[tag][c.name] = got
        if got is None:
            ok(False, "%s: %s: output is NumPy's" % (tag, c.describe()),
               "did not compile" if c.name in failed else "no output")
            continue
        bad = mismatches(c, got)
        rule = ("NaNs bit for bit" if not c.loose.any() else
                "any NaN for NaN op NaN (%d elements)" % c.loose.sum())
        ok(not bad.any(), "%s: %s: all %d elements NumPy's, %s" % (
            tag, c.describe(), c.want.size, rule), explain_mismatch(c, got, bad))


def check_same(outputs, cases):
    """Each hardware build writes the portable build's bytes wherever
    NumPy's result is defined bit for bit."""
    base = outputs.get("gcc portable")
    for tag in ("gcc hardware", "clang hardware"):
        what = "%s and gcc portable write the same bytes wherever NumPy's result is " \
               "defined bit for bit" % tag
        if base is None or tag not in outputs:
            skip(what, "%s did not run" % (tag if base is not None else "gcc portable"))
            continue
        diffs, loose_diffs, missing = [], 0, []
        for c in cases:
            a, p = outputs[tag].get(c.name), base.get(c.name)
            if a is None or p is None:      # failed above
                missing.append(c.name)
                continue
            ut = UINT.get(c.out_dt, np.uint8)
            differ = a.view(ut) != p.view(ut)
            loose_diffs += int((differ & c.loose).sum())
            n = int((differ & ~c.loose).sum())
            if n:
                k = tuple(np.argwhere(differ & ~c.loose)[0])
                diffs.append("%s: %d elements differ, first at %s: %s against %s" % (
                    c.name, n, ",".join(str(int(i)) for i in k), fmt_bits(a[k], c.out_dt),
                    fmt_bits(p[k], c.out_dt)))
        ok(not diffs, what + " (%d NaNs of two NaNs differ%s)" % (
            loose_diffs, "; %s not compared: no output" % " ".join(missing) if missing else ""),
           diffs)


# ---------------------------------------------------------------- main

def main():
    t_start = time.time()
    work = tempfile.mkdtemp(prefix="bcastgen-f16lines.")
    keep = bool(os.environ.get("BCAST_F16_KEEP"))
    try:
        print("# %d kernels, seed %d, runtime %s; scratch %s" % (
            len(CASES), SEED, RUNTIME, work))
        g = np.random.default_rng(SEED)
        generated = []
        for c in CASES:
            bad = check_case(c, work)
            ok(not bad, "%s: %s" % (c.describe(), c.decision()),
               bad + ["bcastgen --target %s %s" % (c.target, " ".join(c.args))])
            if os.path.exists(os.path.join(work, c.name + ".c")):
                make_data(c, g)
                generated.append(c)
        bad = check_data(generated)
        ok(not bad, "the inputs hold every class of f16 (+-0, subnormals, infinities, quiet "
           "and signalling NaNs), NumPy's NaN-exact outputs signalling NaNs", bad)
        if len(generated) != len(CASES):
            TAP.done()
            return 1
        write_inputs(generated, work)
        check_hw_macro(work)
        blist = builds()
        todo = [b for b in blist if not b[4]]
        outputs = {}
        with concurrent.futures.ThreadPoolExecutor(max(1, JOBS)) as ex:
            futs = {b[0]: ex.submit(do_build, b, work, generated) for b in todo}
            for b in blist:
                if b[4]:
                    skip("%s: all kernels" % b[0], b[4])
                    continue
                report_build(b, futs[b[0]].result(), generated, outputs)
        check_same(outputs, generated)
        status = TAP.done()
        print("# %d kernels, %.1f s" % (len(CASES), time.time() - t_start))
        return status
    finally:
        if keep:
            print("# kept %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
