"""quant_kernels_oracle.py: bcastgen's quantized kernels against the oracle.

The differential test of `bcastgen --quant` (int8/int16 add, subtract
and multiply, bit-exact with TensorFlow Lite Micro's reference kernels):
every kernel is generated, compiled at -O2, at -O3, under
-fsanitize=address,undefined -fno-sanitize-recover=all and, where this
machine runs them, at -O3 -march=x86-64-v3 and -march=x86-64-v4 (the
AVX2 and AVX-512 paths of bc_quant.h), run on its inputs, and each
element of its result compared, bit for bit, with
tests/quant_oracle.py's compute() for the same parameters (the same
scale texts, given to both: the oracle's float32() and bcastgen each
round them once to float32).

The kernels:
  - random parameter sets (QUANT_KERNEL_SETS, default 200, that the
    oracle accepts): the first 48 go through every op x dtype x rounding
    x activation, in a shuffled order, the others are drawn at random;
    scales log-uniform over 1e-6 .. 1e3 as "%.9g" texts, zero points
    over the whole int8 range for int8, 0 for int16 (one zero point in
    100 another, which TFLM refuses); a third of the MUL sets get an out
    scale that makes the real multiplier sx * sy / so 2^0 .. 2^40 (a
    positive shift; beyond 2^30, refused under double rounding). Each
    set makes a kernel on random broadcast shapes (ranks 0-4, sizes 1-9:
    the same shapes, x or y or both broadcast, or a scalar; for block,
    shapes of two loops or more, the innermost at most 64), the
    strategies auto, unroll (at most 64 elements), loops and block in
    turn for each op and dtype; a third of the sets make a second
    kernel, in place (x has the result's shape), the strategies in turn
    too; a third of the kernels are made for another --target (TARGETS:
    the Cortex-M55's call bc_quant.h's line helpers), all run here;
  - fixed sets (FIXED), two kernels each, one in place: where SUB's
    float32 multipliers differ from ADD's double ones (t700's sets A and
    B), zero points at the extremes, MUL shifting left by 18 (the product
    wraps in int32), the float32 relu6 bound, an out multiplier just
    below 1, MUL's multiplier flushed to 0, saturated under single
    rounding, int16 shifting left by 4 and by 30, int16 relu6 beyond the
    range;
  - exhaustive int8, on six of the fixed sets (one activation each),
    each op and both roundings: a [256, 256] kernel whose x[i][j] = i -
    128 and y[i][j] = j - 128, every pair of int8 values (auto and loops,
    in place or not, in turn), and again for --target cortex-m55 (a line
    helper); the same pairs broadcast, x [256, 1] by y [256] (double
    rounding), or in blocks, x [256, 1, 2, 1] by y [16, 1, 16] (single
    rounding).
The command says --activation none, --rounding double and --strategy
auto half the time, the defaults; the --quant options come in another
order now and then; half the kernels get a --name. Inputs hold random
values over the whole range mixed with the extremes, the zero points and
their neighbours, values near the operand's zero point, powers of two
and smaller magnitudes; each operand of 3 elements or more holds both
extremes and its zero point.

Every parameter set the oracle refuses on the way (Refused: TFLM's
Prepare fails) must make bcastgen exit with 1 or 2, print one line on
stderr, starting "bcastgen: ", and write no file; so must a few fixed
ones (int16 zero points, ADD's out multiplier 1 or more, MUL's shift
31 under double rounding, a relu6 bound beyond int32). Bad command lines
(no --quant out, a zero, negative, NaN or overflowing scale, a zero
point out of range, --quant with another op or dtype, mixed operand
dtypes, ...) must exit with 1 or 2, say something on stderr and write
no file.

Each batch of kernels (BATCH) compiles as one translation unit that
includes their .c files (each kernel its own file, half of them with a
function renamed by --name); kernels named in its diagnostics are
compiled one file each. A harness per batch and build calls each kernel
on exact-size heap buffers (with guard bytes outside ASan), checks that
a const input is left alone and nothing is written outside the output,
and when a kernel crashes restarts after it. The headers, each included
twice, with the signature the issue gives, compile in one file; each
kernel's banner shows the scales as the oracle rounds their texts. The
builds for x86-64-v3 and -v4 compile the kernels that call a line helper
of bc_quant.h (its AVX2 and AVX-512 paths), the exhaustive ones and one
in four of the others; each is skipped, with the reason, where the
compiler or this machine cannot build or run it, as the sanitizer build
is.

Usage: quant_kernels_oracle.py GEN   (with /usr/bin/python3; or main(GEN))
Env:   QUANT_KERNEL_SETS   random parameter sets (default 200)
       QUANT_KERNEL_SEED   seed (default 7101)
       QUANT_KERNEL_JOBS   parallel jobs (default 2)
       QUANT_KERNEL_CC     the C compiler (default cc)
       QUANT_KERNEL_KEEP   keep the scratch directory (its path printed)
       QUANT_KERNEL_CFLAGS more flags for the kernels, in every build
       QUANT_KERNEL_TIMEOUT  seconds a harness may run (default 300)
TAP: the generation, the banners, the headers, the refusals, each bad
command line, the coverage; then for each build the compile and run, one
test per op and dtype of the random kernels, the fixed sets, the
exhaustive kernels of each op; a summary comment of what was checked.
"""
import concurrent.futures
import fractions
import math
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

TESTS = os.path.dirname(os.path.abspath(__file__))
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)

import numpy as np                          # noqa: E402

import quant_oracle as q                    # noqa: E402
from tap import Tap, fresh                  # noqa: E402

# the oracle's names -> bcastgen's
OP_NAMES = {"add": "add", "sub": "subtract", "mul": "multiply"}
# dtype: bcastgen's name, C type, NumPy type
DTYPES = {"int8": ("i8", "int8_t", np.int8), "int16": ("i16", "int16_t", np.int16)}
STRATEGIES = ("auto", "unroll", "loops", "block")
# --target for a third of the random kernels (the rest: the default,
# generic): the plans differ, and where a line is a helper's call
# (bc_quant.h's line helpers) the C too: a line runs the helper's
# portable loop here, or its AVX2 or AVX-512 lanes in the v3 and v4
# builds; the Cortex-M55's Helium lanes are t630's. All run on this host;
# the Cortex-M55 more often.
TARGETS = ("x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4", "cortex-m0", "cortex-m4f",
           "cortex-m7", "rv32imac", "rv32imafc") + ("cortex-m55",) * 5
UNROLL_MAX = 64            # the default --unroll-limit: the generic target's block
BATCH = 120                # kernels per compile batch
RUN_TIMEOUT = int(os.environ.get("QUANT_KERNEL_TIMEOUT", "300"))
SHOW = 5                   # failing kernels shown in one test's diagnostics

# (tag, name, kernel flags, harness flags, what it needs). The -O3 build
# adds the strict warnings the other kernels meet (t300: -Wpedantic
# -Wconversion). The sanitizer build at -O0: every access checked,
# compiled fastest. The last two build for this machine's vector units
# where it has them (bc_quant.h's AVX2 and AVX-512 lines, BC_Q_X86): the
# kernels that call a line helper (bc_q_..._line_...), whose C these
# change, the exhaustive ones and one in four of the others (SIMD_SHARE),
# which only the compiler's vectorization changes.
PLAIN = ["-std=c99", "-O1", "-w"]
BUILDS = [
    ("o2", "-O2", ["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror"], PLAIN, None),
    ("o3", "-O3", ["-std=c99", "-O3", "-Wall", "-Wextra", "-Wpedantic", "-Wconversion",
                   "-Werror"], PLAIN, None),
    ("san", "asan+ubsan", ["-std=c99", "-O0", "-g1", "-Wall", "-Wextra", "-Werror",
                           "-fsanitize=address,undefined", "-fno-sanitize-recover=all"],
     ["-std=c99", "-O1", "-g1", "-w", "-fsanitize=address,undefined",
      "-fno-sanitize-recover=all"], "sanitizers"),
    ("v3", "-O3 x86-64-v3", ["-std=c99", "-O3", "-march=x86-64-v3", "-Wall", "-Wextra",
                             "-Werror"], PLAIN, "x86-64-v3"),
    ("v4", "-O3 x86-64-v4", ["-std=c99", "-O3", "-march=x86-64-v4", "-Wall", "-Wextra",
                             "-Werror"], PLAIN, "x86-64-v4"),
]
SIMD_SHARE = 4
# what __builtin_cpu_supports calls a level, or its features where the
# compiler does not know the level's name
CPU_LEVELS = {"x86-64-v3": ["avx2", "fma", "bmi2"],
              "x86-64-v4": ["avx512f", "avx512bw", "avx512dq", "avx512vl"]}


def prod(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def shape_str(shape):
    return ",".join(str(d) for d in shape)


def run(args, cwd=None, timeout=600, env=None):
    try:
        p = subprocess.run(args, cwd=cwd, capture_output=True, timeout=timeout, env=env)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return "timeout", "", "timed out after %d s" % timeout
    except OSError as e:
        return "oserror", "", str(e)


def first_lines(text, n=2, width=280):
    ls = [line.strip() for line in text.splitlines() if line.strip()]
    return " | ".join(ls[:n])[:width]


# ---------------------------------------------------------------- parameter sets

def set_text(s):
    """A parameter set as one line: op dtype x=S,Z y=S,Z out=S,Z activation rounding."""
    return "%s %s %s %s %s" % (s["op"], s["dtype"], " ".join(
        "%s=%s,%d" % (t, s["quant"][t][0], s["quant"][t][1]) for t in ("x", "y", "out")),
        s["activation"], s["rounding"])


def params_text(p):
    """The oracle's constants of params P, for a diagnostic."""
    keys = ["zx", "zy", "zo", "lo", "hi"]
    if p["op"] == "mul":
        keys += ["out_mult", "out_shift"]
    else:
        keys += ["left_shift", "x_mult", "x_shift", "y_mult", "y_shift", "out_mult", "out_shift"]
    words = ["%s=%d" % (k, p[k]) for k in keys]
    words += ["sx=%r sy=%r so=%r" % (float(p["sx"]), float(p["sy"]), float(p["so"]))]
    words += ["real_out=%.9g" % p["real_out"]]
    return " ".join(words)


def oracle_params(s):
    return q.params(s["op"], s["dtype"], s["quant"], s["activation"], s["rounding"])


def exact_decimal(v):
    """The Fraction V (positive, its denominator dividing a power of 10)
    written out exactly as a decimal without an exponent."""
    n = 0
    while (v * 10 ** n).denominator != 1:
        n += 1
    digits = str((v * 10 ** n).numerator).rjust(n + 1, "0")
    return digits[:len(digits) - n] + ("." + digits[len(digits) - n:] if n else "")


def scale_text(rng, v):
    """The scale V (a float) as a decimal text, mostly "%.9g"; now and then
    17 digits, an exponent with E, a fixed point, or a decimal on a tie
    between two float32s or just beside one (which rounds once to the
    nearest float32, not through a double: "...5000001" rounds up where
    the double nearest it is the tie, which rounds to even)."""
    r = rng.random()
    if r < 0.6:
        return "%.9g" % v
    if r < 0.7:
        return "%.17g" % v
    if r < 0.8:
        return rng.choice(["%.4e", "%.7E", "%.10e"]) % v
    if r < 0.88 and v >= 1e-4:
        return "%.12f" % v
    f = np.float32(v)
    lo, hi = sorted((f, np.nextafter(f, np.float32(np.inf))))
    tie = (fractions.Fraction(float(lo)) + fractions.Fraction(float(hi))) / 2
    text = exact_decimal(tie)
    k = len(text) + 6
    return rng.choice([text, exact_decimal(tie + fractions.Fraction(1, 10 ** k)),
                       exact_decimal(tie - fractions.Fraction(1, 10 ** k))])


def random_scale(rng):
    """A scale log-uniform over 1e-6 .. 1e3, as a text (scale_text)."""
    return scale_text(rng, 10 ** rng.uniform(-6, 3))


def random_set(rng, combo):
    """A parameter set of COMBO (op, dtype, rounding, activation)."""
    op, dtype, rounding, activation = combo
    lo, hi = q.DTYPES[dtype][1:3]
    if dtype == "int8":
        zps = [rng.randint(lo, hi) for _ in range(3)]
    else:
        # 0; one zero point in 100 another, which TFLM refuses
        zps = [0 if rng.random() < 0.99 else rng.randint(lo, hi) for _ in range(3)]
    quant = {t: (random_scale(rng), z) for t, z in zip(("x", "y", "out"), zps)}
    if op == "mul" and rng.random() < 0.33:
        # a real multiplier 2^0 .. 2^40: shifts up to 30 and beyond
        sx, sy = (float(q.float32(quant[t][0])) for t in ("x", "y"))
        quant["out"] = (scale_text(rng, sx * sy / 2 ** rng.uniform(0, 40)), quant["out"][1])
    return {"op": op, "dtype": dtype, "rounding": rounding, "activation": activation,
            "quant": quant}


# Fixed sets: (label, dtype, x, y, out, activation, ops, roundings,
# exhaustive). Set A: float32(0.03) is exactly 1.5 float32(0.02), so
# SUB's x multiplier is 1/3 rounded to float32 (1431655808), ADD's is
# round(2^32 / 3) (1431655765): 4431 of 65536 pairs differ (t700). B:
# one pair differs, (-126, -15). Shift18: MUL's multiplier 2^17, (2^30,
# 18): the product shifted left wraps in int32 under double rounding.
# relu6-0.8: 6 / 0.8 is 7.5 in float32 (top 8), 7.4999999 in double.
ALL = ("add", "sub", "mul")
BOTH = ("double", "single")
FIXED = [
    ("A", "int8", ("0.02", 0), ("0.03", 0), ("0.02", 0), "none", ALL, BOTH, True),
    ("B", "int8", ("0.01", 0), ("0.07", 0), ("0.06", 0), "relu", ALL, BOTH, True),
    ("zp", "int8", ("0.05", -3), ("0.02", 5), ("0.1", -1), "relu6", ALL, BOTH, True),
    ("shift18", "int8", ("1", 0), ("1", 0), ("0.00000762939453125", 0), "none", ALL, BOTH,
     True),
    ("zp-edges", "int8", ("0.5", -128), ("0.25", 127), ("0.75", -128), "relu_n1_to_1", ALL,
     BOTH, True),
    ("relu6-0.8", "int8", ("0.5", 0), ("0.5", 0), ("0.8", 0), "relu6", ALL, BOTH, True),
    # the out multiplier 2 / (2^20 so) just below 1 (so one float32 above 2^-19)
    ("below-1", "int8", ("1", 0), ("1", 0), ("1.90734886e-06", 0), "none", ("add", "sub"),
     BOTH, False),
    # MUL's multiplier 1e-15: shift below -31, flushed to 0: every element zo
    ("flush", "int8", ("1e-6", 7), ("1e-6", -9), ("1e3", 3), "relu", ("mul",), BOTH, False),
    # 1e6 / 1e-6: shift 40, saturated under single rounding to (2^31 - 1, 30)
    ("saturated", "int8", ("1000", 1), ("1000", -1), ("1e-6", 0), "none", ("mul",),
     ("single",), False),
    # int16 MUL by 8, (2^30, 4): 16384 * 16384 << 4 wraps
    ("i16-shift4", "int16", ("1", 0), ("1", 0), ("0.125", 0), "none", ("mul",), BOTH, False),
    # int16 MUL by 2^29: shift 30, the largest double rounding allows
    ("i16-shift30", "int16", ("1", 0), ("1", 0), ("0.00000000186264514923095703125", 0),
     "relu", ("mul",), BOTH, False),
    # relu6's bound 60000 beyond int16: clamped to qmax
    ("i16-relu6", "int16", ("0.001", 0), ("0.002", 0), ("0.0001", 0), "relu6", ALL, BOTH,
     False),
    ("i16-A", "int16", ("0.02", 0), ("0.03", 0), ("0.02", 0), "relu_n1_to_1", ALL, BOTH,
     False),
]


def fixed_sets():
    """The fixed sets as (set, exhaustive), each op and rounding apart."""
    out = []
    for label, dtype, x, y, o, act, ops, roundings, exh in FIXED:
        for op in ops:
            for r in roundings:
                out.append(({"op": op, "dtype": dtype, "rounding": r, "activation": act,
                             "quant": {"x": x, "y": y, "out": o}, "label": label}, exh))
    return out


# ---------------------------------------------------------------- shapes and values

def sub_shape(rng, r, p1=0.4):
    """An operand shape that broadcasts to R: a suffix, some sizes 1."""
    k = len(r) if rng.random() < 0.6 else rng.randint(0, len(r))
    return [1 if rng.random() < p1 else d for d in r[len(r) - k:]]


def random_shapes(rng, inplace, limit):
    """(x shape, y shape): the result rank 0..4, sizes 1..9, at most LIMIT
    elements; the same shapes, x or y broadcast, both, or a scalar. In
    place, x has the result's shape."""
    r = [rng.randint(1, 9) for _ in range(rng.randint(0, 4))]
    while prod(r) > limit:
        i = rng.choice([k for k, d in enumerate(r) if d > 1])
        r[i] = max(1, r[i] // 2)
    pattern = rng.choice(["same", "y", "y", "x", "x", "both", "scalar"])
    if inplace and pattern in ("x", "both"):
        pattern = "y"
    if pattern == "same":
        xs, ys = list(r), list(r)
    elif pattern == "y":                      # y broadcast to x
        xs, ys = list(r), sub_shape(rng, r)
    elif pattern == "x":                      # x broadcast to y
        xs, ys = sub_shape(rng, r), list(r)
    elif pattern == "both":
        xs, ys = sub_shape(rng, r, 0.5), sub_shape(rng, r, 0.5)
    else:
        xs, ys = list(r), []
        if not inplace and rng.random() < 0.5:
            xs, ys = ys, xs
    return xs, ys


def loops(xs, ys):
    """The sizes of the loops the result of XS and YS makes once adjacent
    dimensions that broadcast alike are merged (sizes 1 left out),
    outermost first."""
    r = np.broadcast_shapes(tuple(xs), tuple(ys))
    ax = [1] * (len(r) - len(xs)) + list(xs)
    ay = [1] * (len(r) - len(ys)) + list(ys)
    out, last = [], None
    for d, a, b in zip(r, ax, ay):
        if d == 1:
            continue
        mask = (a == 1, b == 1)
        if mask == last:
            out[-1] *= d
        else:
            out.append(d)
        last = mask
    return out


def block_shapes(rng, inplace):
    """Shapes --strategy block takes: two loops or more, the innermost
    of at most UNROLL_MAX iterations."""
    for _ in range(200):
        xs, ys = random_shapes(rng, inplace, 9 ** 4)
        n = loops(xs, ys)
        if len(n) >= 2 and n[-1] <= UNROLL_MAX:
            return xs, ys
    a, b = rng.randint(2, 9), rng.randint(2, 9)
    return [a, b], [b]


def values(rng, nrng, shape, dtype, zp, other_zp):
    """Values of DTYPE for an operand of SHAPE whose zero point is ZP:
    random over the range, edges (the extremes and their neighbours, the
    zero points, 0, +-1, powers of two), values near ZP, smaller
    magnitudes; the two extremes and ZP always among them (for 3
    elements or more)."""
    nptype = DTYPES[dtype][2]
    lo, hi = q.DTYPES[dtype][1:3]
    n = prod(shape)
    bits = 8 if dtype == "int8" else 16
    pool = {lo, hi, lo + 1, hi - 1, zp, zp - 1, zp + 1, other_zp, 0, 1, -1}
    for k in range(1, bits - 1):
        pool |= {1 << k, -(1 << k)}
    pool = np.array(sorted(v for v in pool if lo <= v <= hi), dtype=np.int64)
    v = nrng.integers(lo, hi, size=n, endpoint=True)
    cat = nrng.random(n)
    m = cat < 0.25
    v[m] = pool[nrng.integers(0, len(pool), m.sum())]
    m = (cat >= 0.25) & (cat < 0.45)
    v[m] = np.clip(zp + nrng.integers(-12, 13, m.sum()), lo, hi)
    m = (cat >= 0.45) & (cat < 0.6)
    v[m] = v[m] >> nrng.integers(0, bits, m.sum())
    if n >= 3:
        where = rng.sample(range(n), 3)
        v[where] = [lo, hi, zp]
    return v.astype(nptype).reshape(shape)


# ---------------------------------------------------------------- the corpus

class Corpus:
    def __init__(self, seed, nsets):
        self.rng = random.Random(seed)
        self.nrng = np.random.default_rng(self.rng.randrange(1 << 62))
        self.cases = []
        self.refused = []          # (set, reason): each must be refused by bcastgen
        self.nsets = nsets
        self.accepted = 0
        self.mul_shift = 0         # random MUL sets with a shift > 0
        self.turn = {}             # (op, dtype, inplace) -> the next strategy's index
        self.build(nsets)

    def strategy(self, op, dtype, inplace):
        k = (op, dtype, inplace)
        i = self.turn.get(k, 0)
        self.turn[k] = i + 1
        return STRATEGIES[i % len(STRATEGIES)]

    def add_case(self, s, p, kind, xs, ys, strategy, inplace, x=None, y=None, target=None):
        i = len(self.cases)
        rng = self.rng
        c = {"id": i, "name": "q%05d" % (i + 1), "set": s, "p": p, "kind": kind,
             "xs": list(xs), "ys": list(ys), "strategy": strategy, "inplace": inplace,
             "result": list(np.broadcast_shapes(tuple(xs), tuple(ys))), "target": target}
        c["fn"] = "qk_%s_%s_%d" % (s["op"], s["dtype"], i + 1) if i % 2 else c["name"]
        # how the command says it: options left at their defaults now and then
        c["say_strategy"] = strategy != "auto" or rng.random() < 0.5
        c["say_rounding"] = s["rounding"] != "double" or rng.random() < 0.5
        c["say_activation"] = s["activation"] != "none" or rng.random() < 0.5
        c["quant_order"] = rng.sample(["x", "y", "out"], 3) if rng.random() < 0.3 \
            else ["x", "y", "out"]
        if x is None:
            zx, zy = s["quant"]["x"][1], s["quant"]["y"][1]
            x = values(rng, self.nrng, xs, s["dtype"], zx, zy)
            y = values(rng, self.nrng, ys, s["dtype"], zy, zx)
        c["x"], c["y"] = x, y
        self.cases.append(c)
        return c

    def random_kernel(self, s, p, kind, inplace):
        strategy = self.strategy(s["op"], s["dtype"], inplace)
        if strategy == "block":
            xs, ys = block_shapes(self.rng, inplace)
        else:
            limit = UNROLL_MAX if strategy == "unroll" else 9 ** 4
            xs, ys = random_shapes(self.rng, inplace, limit)
        target = self.rng.choice(TARGETS) if self.rng.random() < 1 / 3 else None
        self.add_case(s, p, kind, xs, ys, strategy, inplace, target=target)

    def build(self, nsets):
        rng = self.rng
        combos = [(op, dt, r, a) for op in q.OPS for dt in DTYPES for r in q.ROUNDINGS
                  for a in q.ACTIVATIONS]
        rng.shuffle(combos)
        for k in range(nsets):
            combo = combos[k] if k < len(combos) else (
                rng.choice(q.OPS), rng.choice(list(DTYPES)), rng.choice(q.ROUNDINGS),
                rng.choice(q.ACTIVATIONS))
            for _ in range(200):
                s = random_set(rng, combo)
                try:
                    p = oracle_params(s)
                except q.Refused as e:
                    self.refused.append((s, str(e)))
                    continue
                break
            else:
                raise RuntimeError("no accepted set for %s in 200 tries" % (combo,))
            self.accepted += 1
            if s["op"] == "mul" and p["out_shift"] > 0:
                self.mul_shift += 1
            self.random_kernel(s, p, "random", False)
            if rng.random() < 1 / 3:
                self.random_kernel(s, p, "random", True)
        # the fixed sets: two kernels each (one in place), and the
        # exhaustive ones over every int8 pair
        v = np.arange(-128, 128, dtype=np.int8)
        gx = np.ascontiguousarray(np.broadcast_to(v[:, None], (256, 256)))
        gy = np.ascontiguousarray(np.broadcast_to(v[None, :], (256, 256)))
        nexh = {}
        for s, exh in fixed_sets():
            p = oracle_params(s)
            self.random_kernel(s, p, "fixed", False)
            self.random_kernel(s, p, "fixed", True)
            if exh:
                # auto and loops, in place or not, with each rounding, in
                # turn for each op (every 4 sets: a set's two roundings
                # follow each other; a [256, 256] result coalesces to one
                # loop: no block); the same pairs broadcast, x [256, 1] by
                # y [256] under double rounding (auto and loops), in
                # blocks under single
                k = nexh.get(s["op"], 0)
                nexh[s["op"]] = k + 1
                self.add_case(s, p, "exhaustive", [256, 256], [256, 256],
                              ("auto", "loops")[(k + k // 2) % 2], k // 4 % 2 == 1,
                              gx.copy(), gy.copy())
                # for the Cortex-M55: a line helper's loop
                self.add_case(s, p, "exhaustive", [256, 256], [256, 256], "auto",
                              k // 2 % 2 == 1, gx.copy(), gy.copy(), target="cortex-m55")
                if s["rounding"] == "double":
                    self.add_case(s, p, "exhaustive", [256, 1], [256],
                                  ("loops", "auto")[k // 2 % 2], False,
                                  v[:, None].copy(), v.copy())
                else:
                    # every pair (twice) in blocks: x [256, 1, 2, 1] by y
                    # [16, 1, 16]: loops of 256, 16 and 2 around blocks of 16
                    self.add_case(s, p, "exhaustive", [256, 1, 2, 1], [16, 1, 16], "block",
                                  False, np.repeat(v.reshape(256, 1, 1, 1), 2, axis=2),
                                  v.reshape(16, 1, 16).copy())


def command(gen, c):
    """bcastgen's words for case C, run in the kernel directory."""
    s = c["set"]
    args = [gen, "--op", OP_NAMES[s["op"]], "--dtype", DTYPES[s["dtype"]][0]]
    for t in c["quant_order"]:
        args += ["--quant", "%s=%s,%d" % (t, s["quant"][t][0], s["quant"][t][1])]
    if c["say_activation"]:
        args += ["--activation", s["activation"]]
    if c["say_rounding"]:
        args += ["--rounding", s["rounding"]]
    if c["say_strategy"]:
        args += ["--strategy", c["strategy"]]
    if c["inplace"]:
        args.append("--inplace")
    if c["target"]:
        args += ["--target", c["target"]]
    args += ["x=" + shape_str(c["xs"]), "y=" + shape_str(c["ys"]), "-o", c["name"] + ".c"]
    if c["fn"] != c["name"]:
        args += ["--name", c["fn"]]
    return args


# ---------------------------------------------------------------- generation

def generate(gen, cases, kdir, jobs):
    def one(c):
        args = command(gen, c)
        c["cmd"] = shlex.join(args)
        rc, out, err = run(args, cwd=kdir, timeout=60)
        if rc != 0:
            return "bcastgen failed (exit %s): %s" % (rc, first_lines(err, 3))
        for ext in (".c", ".h"):
            if not os.path.exists(os.path.join(kdir, c["name"] + ext)):
                return "bcastgen exit 0 but wrote no %s%s" % (c["name"], ext)
        return None
    with concurrent.futures.ThreadPoolExecutor(max_workers=2 * jobs) as ex:
        for c, err in zip(cases, ex.map(one, cases)):
            c["gen_error"] = err


def banner_scales(c, kdir):
    """None, or how the scales and zero points in the banner's 'Made by'
    command of case C's kernel (--quant NAME=%.9g,ZP, the float32 bcastgen
    rounded the text to) differ from the oracle's float32() of the texts."""
    try:
        with open(os.path.join(kdir, c["name"] + ".c")) as f:
            lines = f.read(8192).split("\n")
    except OSError as e:
        return str(e)
    words = None
    for i, line in enumerate(lines[:-1]):
        if "Made by:" in line:
            words = lines[i + 1].split()
    if words is None:
        return "no 'Made by:' line in the banner"
    got = {}
    for k, w in enumerate(words[:-1]):
        if w == "--quant" and "=" in words[k + 1]:
            name, val = words[k + 1].split("=", 1)
            got[name] = val
    want = {t: "%.9g,%d" % (float(c["p"]["s" + t[0]]), c["p"]["z" + t[0]])
            for t in ("x", "y", "out")}
    if got != want:
        return "the banner's --quant %s, the oracle's float32 of the texts %s" % (
            " ".join("%s=%s" % kv for kv in sorted(got.items())),
            " ".join("%s=%s" % kv for kv in sorted(want.items())))
    return None


def expect_refusal(gen, args, tmp, strict):
    """Run bcastgen ARGS (its -o into a fresh directory); None if it
    exits with 1 or 2, writes nothing and says why on stderr (STRICT:
    one line, starting "bcastgen: "), else what went wrong."""
    d = fresh(tmp)
    full = [gen] + args + ["-o", "k.c"]
    rc, out, err = run(full, cwd=d, timeout=60)
    wrong = []
    if rc not in (1, 2):
        wrong.append("exit %s, not 1 or 2" % rc)
    files = sorted(os.listdir(d))
    if files:
        wrong.append("wrote %s" % " ".join(files))
    lines = err.strip("\n").split("\n") if err.strip() else []
    if not lines:
        wrong.append("nothing on stderr")
    elif strict and (len(lines) != 1 or not lines[0].startswith("bcastgen: ")):
        wrong.append("stderr is not one line starting 'bcastgen: ': %r" % err[:200])
    shutil.rmtree(d, ignore_errors=True)
    if wrong:
        return "%s: %s" % (shlex.join(full), "; ".join(wrong))
    return None


def quant_args(s, shapes=("4,3", "3")):
    args = ["--op", OP_NAMES.get(s["op"], s["op"]), "--dtype", DTYPES[s["dtype"]][0]]
    for t in ("x", "y", "out"):
        args += ["--quant", "%s=%s,%d" % (t, s["quant"][t][0], s["quant"][t][1])]
    args += ["--activation", s["activation"], "--rounding", s["rounding"]]
    return args + ["x=" + shapes[0], "y=" + shapes[1]]


# Bad command lines: (what, the words after bcastgen, before -o). Each
# must exit 1 or 2 with something on stderr and write nothing; those
# whose "what" starts with "refused:" are sets the oracle refuses: one
# line on stderr, "bcastgen: ...".
GOOD = ["--op", "add", "--dtype", "i8", "--quant", "x=0.05,-3", "--quant", "y=0.02,5",
        "--quant", "out=0.1,-1"]


def bad_inputs():
    def without(t):
        a = list(GOOD)
        i = a.index("--quant", [k for k, w in enumerate(a) if w.startswith(t + "=")][0] - 1)
        del a[i:i + 2]
        return a

    def with_quant(t, v, base=GOOD):
        a = list(base)
        a[[k for k, w in enumerate(a) if w.startswith(t + "=")][0]] = "%s=%s" % (t, v)
        return a

    xy = ["x=4,3", "y=3"]
    i16 = ["--op", "multiply", "--dtype", "i16", "--quant", "x=0.5,0", "--quant", "y=0.5,0",
           "--quant", "out=0.25,0"]
    return [
        ("no --quant out", without("out") + xy),
        ("no --quant x", without("x") + xy),
        ("no --quant y", without("y") + xy),
        ("scale 0", with_quant("x", "0,-3") + xy),
        ("scale -0.05", with_quant("y", "-0.05,5") + xy),
        ("scale nan", with_quant("out", "nan,-1") + xy),
        ("scale inf", with_quant("x", "inf,-3") + xy),
        ("scale abc", with_quant("x", "abc,-3") + xy),
        ("scale 1e-50 (0 as a float32)", with_quant("y", "1e-50,5") + xy),
        ("scale 1e39 (beyond float32)", with_quant("out", "1e39,-1") + xy),
        ("int8 zero point 128", with_quant("x", "0.05,128") + xy),
        ("int8 zero point -129", with_quant("out", "0.1,-129") + xy),
        ("zero point 1.5", with_quant("y", "0.02,1.5") + xy),
        ("--quant x=0.05 (no zero point)", with_quant("x", "0.05") + xy),
        ("--quant x=0.05,1,2", with_quant("x", "0.05,1,2") + xy),
        ("--quant z=1,0 (no operand z)", GOOD + ["--quant", "z=1,0"] + xy),
        ("--quant x twice", GOOD + ["--quant", "x=0.5,0"] + xy),
        ("refused: int16 with zero point -3 (x)", with_quant("x", "0.5,-3", i16) + xy),
        ("refused: int16 with zero point 1 (out)", with_quant("out", "0.25,1", i16) + xy),
        ("--quant with --op maximum", ["--op", "maximum"] + GOOD[2:] + xy),
        ("--quant with --op divide", ["--op", "divide"] + GOOD[2:] + xy),
        ("--quant with --dtype i32", GOOD[:2] + ["--dtype", "i32"] + GOOD[4:] + xy),
        ("--quant with --dtype f32", GOOD[:2] + ["--dtype", "f32"] + GOOD[4:] + xy),
        ("x:i8 with --dtype i16", i16 + ["x:i8=4,3", "y=3"]),
        ("y:i16 with --dtype i8", GOOD + ["x=4,3", "y:i16=3"]),
        ("--activation tanh", GOOD + ["--activation", "tanh"] + xy),
        ("--rounding triple", GOOD + ["--rounding", "triple"] + xy),
        ("--strategy sideways", GOOD + ["--strategy", "sideways"] + xy),
        ("--inplace with x=3, y=4,3 (x is not the result)", GOOD + ["--inplace", "x=3",
                                                                   "y=4,3"]),
        ("shapes that do not broadcast (x=4,3 y=2)", GOOD + ["x=4,3", "y=2"]),
        ("refused: ADD out multiplier >= 1 (out scale 1e-6 for inputs 1)",
         ["--op", "add", "--dtype", "i8", "--quant", "x=1,0", "--quant", "y=1,0",
          "--quant", "out=1e-6,0"] + xy),
        ("refused: MUL multiplier 2^30 under double rounding (shift 31)",
         ["--op", "multiply", "--dtype", "i16", "--quant", "x=1,0", "--quant", "y=1,0",
          "--quant", "out=0.000000000931322574615478515625,0", "--rounding", "double"] + xy),
        ("refused: relu6 bound beyond int32", ["--op", "multiply", "--dtype", "i8", "--quant",
                                      "x=1e-6,0", "--quant", "y=1e-6,0", "--quant",
                                      "out=1e-12,0", "--activation", "relu6"] + xy),
    ]


# ---------------------------------------------------------------- harness

HARNESS_HEAD = r"""
struct tcase {
    void (*call)(void **);
    int inplace;
    long xoff, xbytes, yoff, ybytes, ooff, obytes;
};
"""

HARNESS_MAIN = r"""

/* Under ASan every buffer has its exact size; otherwise SLACK bytes of
 * 0xa5 follow it, which must stay so. */
#ifdef __SANITIZE_ADDRESS__
#define SLACK 0L
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLACK 0L
#endif
#endif
#ifndef SLACK
#define SLACK 64L
#endif

static void *xalloc(long n)
{
    unsigned char *p = malloc((size_t)(n + SLACK));
    if (!p) { perror("malloc"); exit(3); }
    memset(p, 0xa5, (size_t)(n + SLACK));
    return p;
}

static int overrun(const void *p, long n)
{
    const unsigned char *e = (const unsigned char *)p + n;
    long k;
    for (k = 0; k < SLACK; k++)
        if (e[k] != 0xa5)
            return 1;
    return 0;
}

static void load(FILE *in, void *p, long off, long n)
{
    if (fseek(in, off, SEEK_SET) || fread(p, 1, (size_t)n, in) != (size_t)n) {
        fprintf(stderr, "harness: short read\n");
        exit(2);
    }
}

int main(int argc, char **argv)
{
    FILE *in, *out;
    long i;
    if (argc != 4) return 2;
    in = fopen(argv[1], "rb");
    out = fopen(argv[2], "r+b");
    if (!in || !out) { perror("fopen"); return 2; }
    for (i = atol(argv[3]); i < (long)(sizeof cases / sizeof cases[0]); i++) {
        const struct tcase *t = &cases[i];
        void *p[3], *xc, *yc, *o;
        printf("B %ld\n", i);
        fflush(stdout);
        p[0] = xalloc(t->xbytes);
        p[1] = xalloc(t->ybytes);
        xc = xalloc(t->xbytes);
        yc = xalloc(t->ybytes);
        load(in, p[0], t->xoff, t->xbytes);
        load(in, p[1], t->yoff, t->ybytes);
        memcpy(xc, p[0], (size_t)t->xbytes);
        memcpy(yc, p[1], (size_t)t->ybytes);
        p[2] = t->inplace ? NULL : xalloc(t->obytes);
        t->call(p);
        o = t->inplace ? p[0] : p[2];
        if (overrun(o, t->obytes) || overrun(p[0], t->xbytes) || overrun(p[1], t->ybytes))
            printf("O %ld\n", i);
        if (!t->inplace && memcmp(xc, p[0], (size_t)t->xbytes))
            printf("M %ld x\n", i);
        if (memcmp(yc, p[1], (size_t)t->ybytes))
            printf("M %ld y\n", i);
        if (fseek(out, t->ooff, SEEK_SET)
            || fwrite(o, 1, (size_t)t->obytes, out) != (size_t)t->obytes || fflush(out)) {
            fprintf(stderr, "harness: write error\n");
            return 2;
        }
        free(p[0]); free(p[1]); free(xc); free(yc);
        if (p[2]) free(p[2]);
        printf("E %ld\n", i);
        fflush(stdout);
    }
    return 0;
}
"""


def prototype(c):
    t = DTYPES[c["set"]["dtype"]][1]
    if c["inplace"]:
        return "void %s(%s *x, const %s *y);" % (c["fn"], t, t)
    return "void %s(const %s *x, const %s *y, %s *out);" % (c["fn"], t, t, t)


def write_harness(path, todo):
    lines = ["#include <stdint.h>", "#include <stdio.h>", "#include <stdlib.h>",
             "#include <string.h>", HARNESS_HEAD]
    lines += [prototype(c) for c in todo]
    for k, c in enumerate(todo):
        lines.append("static void call%d(void **p) { %s(%s); }" % (
            k, c["fn"], "p[0], p[1]" if c["inplace"] else "p[0], p[1], p[2]"))
    lines.append("static const struct tcase cases[] = {")
    for k, c in enumerate(todo):
        lines.append("    {call%d, %d, %dL, %dL, %dL, %dL, %dL, %dL}," % (
            k, int(c["inplace"]), c["xoff"], c["xbytes"], c["yoff"], c["ybytes"],
            c["ooff"], c["obytes"]))
    if not todo:
        lines.append("    {0, 0, 0, 0, 0, 0, 0, 0}")
    lines.append("};")
    main = HARNESS_MAIN
    if not todo:
        main = main.replace("(long)(sizeof cases / sizeof cases[0])", "0L")
    lines.append(main)
    with open(path, "w") as f:
        f.write("\n".join(lines))


def write_inputs(path, batch):
    """The batch's inputs, one after the other, in PATH; the offsets,
    sizes and output places in each case. Returns the output's size."""
    off = ooff = 0
    with open(path, "wb") as f:
        for c in batch:
            for t in ("x", "y"):
                data = np.ascontiguousarray(c[t]).tobytes()
                c[t + "off"], c[t + "bytes"] = off, len(data)
                f.write(data)
                off += len(data)
            c["ooff"] = ooff
            c["obytes"] = prod(c["result"]) * np.dtype(DTYPES[c["set"]["dtype"]][2]).itemsize
            ooff += c["obytes"]
    return ooff


def compile_one_each(cc, flags, incs, kdir, odir, cases, tag):
    objs = {}
    for c in cases:
        obj = os.path.join(odir, c["name"] + ".o")
        rc, out, err = run([cc] + flags + incs + ["-c", "-o", obj,
                                                  os.path.join(kdir, c["name"] + ".c")],
                           cwd=odir, timeout=600)
        if rc == 0 and not err.strip():
            objs[c["id"]] = obj
        else:
            # the first diagnostic, the kernel's directory left out
            mine = [line.strip().replace(kdir + "/", "") for line in err.splitlines()
                    if "error" in line or "warning" in line]
            c.setdefault("cc_error", {})[tag] = "%s does not compile it: %s" % (
                " ".join([os.path.basename(cc)] + flags),
                (mine[0] if mine else first_lines(err))[:300])
    return objs


def compile_batch(cc, flags, incs, kdir, odir, batch, tag):
    """The batch's kernels compiled as one translation unit that includes
    their .c files; those named in its diagnostics, and all if it still
    fails, one file each. Returns {case id: object}."""
    os.makedirs(odir, exist_ok=True)
    pending = list(batch)
    objs = {}
    for attempt in range(3):
        if not pending:
            break
        src = os.path.join(odir, "unity%d.c" % attempt)
        obj = os.path.join(odir, "unity%d.o" % attempt)
        with open(src, "w") as f:
            for c in pending:
                f.write('#include "%s.c"\n' % c["name"])
        rc, out, err = run([cc] + flags + incs + ["-c", "-o", obj, src], cwd=odir,
                           timeout=1800)
        if rc == 0 and not err.strip():
            objs.update((c["id"], obj) for c in pending)
            return objs
        suspects = [c for c in pending if c["name"] + ".c:" in err or c["name"] + ".h:" in err]
        if not suspects:
            break
        objs.update(compile_one_each(cc, flags, incs, kdir, odir, suspects, tag))
        pending = [c for c in pending if c not in suspects]
    objs.update(compile_one_each(cc, flags, incs, kdir, odir, pending, tag))
    return objs


def link_harness(cc, hflags, odir, batch, objs, tag):
    """The harness of the batch's compiled kernels: (exe, the cases it
    runs), (None, []) if it cannot be linked."""
    todo = [c for c in batch if c["id"] in objs]
    for _ in range(4):
        src = os.path.join(odir, "harness.c")
        exe = os.path.join(odir, "harness")
        write_harness(src, todo)
        olist = sorted(set(objs[c["id"]] for c in todo))
        rc, out, err = run([cc] + hflags + ["-o", exe, src] + olist, cwd=odir, timeout=600)
        if rc == 0:
            return exe, todo
        undef = set()
        for line in err.splitlines():
            if "undefined reference to `" in line:
                undef.add(line.split("undefined reference to `")[1].split("'")[0])
        if not undef:
            for c in todo:
                c.setdefault("run_error", {})[tag] = "harness link failed: %s" % first_lines(err)
            return None, []
        keep = []
        for c in todo:
            if c["fn"] in undef:
                c.setdefault("run_error", {})[tag] = (
                    "no function %s in the kernel (link error)" % c["fn"])
            else:
                keep.append(c)
        todo = keep
    return None, []


def run_harness(exe, infile, outfile, todo, tag):
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0",
               UBSAN_OPTIONS="print_stacktrace=1")
    start = 0
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
        done = set()
        for line in out.splitlines():
            w = line.split()
            if len(w) < 2:
                continue
            if w[0] == "B":
                last = int(w[1])
            elif w[0] == "E":
                done.add(int(w[1]))
                last = None
            elif w[0] == "O":
                todo[int(w[1])].setdefault("run_error", {})[tag] = (
                    "the kernel wrote outside its output (past the end of a buffer)")
            elif w[0] == "M" and len(w) == 3:
                todo[int(w[1])].setdefault("run_error", {})[tag] = (
                    "the kernel changed its const input %s" % w[2])
        if rc == 0:
            return
        if last is None:
            for k in range(start, len(todo)):
                if k not in done:
                    todo[k].setdefault("run_error", {})[tag] = \
                        "harness failed before the kernel ran (exit %s): %s" % (
                            rc, first_lines(err))
            return
        msg = [line.strip() for line in err.splitlines()
               if "runtime error" in line or "ERROR: AddressSanitizer" in line
               or "SUMMARY" in line or "timed out" in line]
        what = "signal %d" % -rc if isinstance(rc, int) and rc < 0 else "exit %s" % rc
        todo[last].setdefault("run_error", {})[tag] = "kernel crashed (%s): %s" % (
            what, (" | ".join(msg[:2]) or first_lines(err) or "nothing on stderr")[:400])
        start = last + 1


# ---------------------------------------------------------------- comparison

def check_case(c, tag, data):
    """None, or what is wrong with case C's result in build TAG."""
    head = ["bcastgen: %s" % c["cmd"], "set: %s" % set_text(c["set"]),
            "oracle: %s" % params_text(c["p"])]
    if c.get("gen_error"):
        return head[:2] + [c["gen_error"]]
    for key in ("cc_error", "run_error"):
        if tag in c.get(key, {}):
            return head + [c[key][tag]]
    if data is None:
        return head + ["not run"]
    nptype = DTYPES[c["set"]["dtype"]][2]
    got = np.frombuffer(data, dtype=nptype).reshape(c["result"])
    want = c["want"]
    bad = got != want
    if not bad.any():
        return None
    flat = int(np.flatnonzero(bad.reshape(-1))[0])
    idx = tuple(int(i) for i in np.unravel_index(flat, tuple(c["result"]))) \
        if c["result"] else ()
    shape = tuple(c["result"])
    xv = int(np.broadcast_to(c["x"], shape)[idx])
    yv = int(np.broadcast_to(c["y"], shape)[idx])
    return head + ["%d of %d elements differ; the first at [%s] (flat %d): x=%d y=%d: "
                   "got %d, expected %d (element(): %d)" % (
                       int(bad.sum()), bad.size, ",".join(map(str, idx)), flat, xv, yv,
                       int(got[idx]), int(want[idx]), q.element(c["p"], xv, yv))]


def diag_of(fails, total):
    lines = []
    for d in fails[:SHOW]:
        lines += d
    if len(fails) > SHOW:
        lines.append("... and %d more" % (len(fails) - SHOW))
    lines.append("%d of %d kernels fail" % (len(fails), total))
    return lines


# ---------------------------------------------------------------- main

def sanitizers_work(cc, tmp):
    d = fresh(tmp)
    src = os.path.join(d, "t.c")
    with open(src, "w") as f:
        f.write("int main(void) { return 0; }\n")
    rc, out, err = run([cc, "-fsanitize=address,undefined", "-o", os.path.join(d, "t"), src],
                       cwd=d)
    if rc != 0:
        return "%s cannot build with -fsanitize=address,undefined: %s" % (cc, first_lines(err))
    rc, out, err = run([os.path.join(d, "t")], env=dict(os.environ,
                                                        ASAN_OPTIONS="detect_leaks=0"))
    if rc != 0:
        return "a -fsanitize=address,undefined program does not run here: %s" % (
            first_lines(err))
    return None


def cpu_level(cc, tmp, level):
    """None if CC builds for LEVEL (-march=LEVEL) and this machine runs
    it, else why not."""
    d = fresh(tmp)
    src, exe = os.path.join(d, "t.c"), os.path.join(d, "t")
    for names in ([level], CPU_LEVELS[level]):
        with open(src, "w") as f:
            f.write("int main(void)\n{\n\t__builtin_cpu_init();\n\treturn !(%s);\n}\n" % (
                " && ".join('__builtin_cpu_supports("%s")' % n for n in names)))
        rc, out, err = run([cc, "-march=" + level, "-o", exe, src], cwd=d)
        if rc == 0:
            break
    else:
        return "%s cannot build for -march=%s: %s" % (cc, level, first_lines(err))
    rc, out, err = run([exe], cwd=d)
    if rc != 0:
        return "this machine is not %s (%s)" % (level, " ".join(CPU_LEVELS[level]))
    return None


def check_headers(tap, cc, incs, tmp, cases):
    """Every header, twice, and the prototypes the harness declares, in
    one translation unit with the -O3 build's strict flags."""
    ok = [c for c in cases if not c.get("gen_error")]
    src = os.path.join(fresh(tmp), "headers.c")
    with open(src, "w") as f:
        for c in ok:
            f.write('#include "%s.h"\n#include "%s.h"\n%s\n' % (c["name"], c["name"],
                                                                 prototype(c)))
        f.write("int headers_ok(void);\nint headers_ok(void) { return 0; }\n")
    rc, out, err = run([cc] + BUILDS[1][2] + incs + ["-fsyntax-only", src], timeout=600)
    diags = []
    if rc != 0 or err.strip():
        named = [c for c in ok if c["name"] + ".h:" in err or c["fn"] + "'" in err
                 or c["fn"] + "\u2019" in err]
        for c in named[:SHOW]:
            diags.append("%s: %s" % (c["cmd"], prototype(c)))
        diags.append(first_lines(err, 6, 1200))
    tap.ok(not diags, "the headers of %d kernels, each included twice with the signature "
           "the issue gives (void k(const T *x, const T *y, T *out); in place "
           "void k(T *x, const T *y)) in one file (-Wpedantic -Wconversion -Werror)"
           % len(ok), diags)


def main(gen=None):
    if gen is None:
        gen = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("GEN", "build/bcastgen")
    gen = os.path.abspath(gen)
    nsets = int(os.environ.get("QUANT_KERNEL_SETS", "200"))
    seed = int(os.environ.get("QUANT_KERNEL_SEED", "7101"))
    jobs = max(1, int(os.environ.get("QUANT_KERNEL_JOBS", "2")))
    cc = os.environ.get("QUANT_KERNEL_CC") or "cc"
    keep = os.environ.get("QUANT_KERNEL_KEEP")
    extra = shlex.split(os.environ.get("QUANT_KERNEL_CFLAGS", ""))
    runtime = os.path.join(os.path.dirname(TESTS), "runtime")
    t0 = time.time()
    tap = Tap()
    if not shutil.which(cc):
        print("1..0 # SKIP no C compiler %s" % cc)
        return 0

    corpus = Corpus(seed, nsets)
    cases = corpus.cases
    for c in cases:
        c["want"] = q.compute(c["p"], c["x"], c["y"])
    tap.comment("seed %d, %s, bcastgen %s: %d random sets (%d MUL with a shift > 0), %d "
                "refused on the way, %d fixed; %d kernels (%d random, %d fixed, %d "
                "exhaustive), %d elements" % (
                    seed, cc, gen, corpus.accepted, corpus.mul_shift, len(corpus.refused),
                    len(fixed_sets()), len(cases),
                    sum(c["kind"] == "random" for c in cases),
                    sum(c["kind"] == "fixed" for c in cases),
                    sum(c["kind"] == "exhaustive" for c in cases),
                    sum(prod(c["result"]) for c in cases)))
    scratch = tempfile.mkdtemp(prefix="bcastgen-quantk.")
    if keep:
        tap.comment("scratch directory kept: %s" % scratch)
    try:
        kdir = os.path.join(scratch, "k")
        os.makedirs(kdir)
        t_gen = time.time()
        generate(gen, cases, kdir, jobs)
        t_gen = time.time() - t_gen
        bad = [c for c in cases if c["gen_error"]]
        tap.ok(not bad, "bcastgen --quant -o: %d kernels generated, each its .c and .h" % (
            len(cases)),
            diag_of([["%s: %s" % (c["cmd"], c["gen_error"])] for c in bad], len(cases)))
        wrong = []
        for c in cases:
            if not c["gen_error"]:
                w = banner_scales(c, kdir)
                if w:
                    wrong.append(["%s: %s" % (c["cmd"], w)])
        tap.ok(not wrong, "each kernel's banner ('Made by', --quant NAME=%%.9g,ZP) shows "
               "the scales as the oracle rounds the texts to float32 (%d kernels; texts "
               "of 9 and 17 digits, with E, in fixed point, on ties between float32s "
               "and beside them)" % sum(1 for c in cases if not c["gen_error"]),
               diag_of(wrong, len(cases)))
        incs = ["-I", runtime, "-I", kdir]
        check_headers(tap, cc, incs, scratch, cases)

        # the refusals: every set the oracle refused on the way, and bad lines
        t_ref = time.time()
        with concurrent.futures.ThreadPoolExecutor(max_workers=2 * jobs) as ex:
            wrong = [w for w in ex.map(
                lambda sr: expect_refusal(gen, quant_args(sr[0]), scratch, True),
                corpus.refused) if w]
            reasons = {}
            for s, why in corpus.refused:
                key = " ".join(why.split(":")[0].split(" ")[:2])
                reasons[key] = reasons.get(key, 0) + 1
            tap.ok(not wrong, "%d parameter sets the oracle refuses (%s): bcastgen exits 1 "
                   "or 2, one line 'bcastgen: ...' on stderr, no file" % (
                       len(corpus.refused), ", ".join("%s %d" % kv for kv in
                                                      sorted(reasons.items()))),
                   diag_of([[w] for w in wrong], len(corpus.refused)))
            lines = bad_inputs()
            for (what, args), w in zip(lines, ex.map(
                    lambda wa: expect_refusal(gen, wa[1], scratch, wa[0].startswith("refused:")),
                    lines)):
                if what.startswith("refused:"):
                    tap.ok(not w, "TFLM refuses %s: bcastgen exits 1 or 2, one line "
                           "'bcastgen: ...' on stderr, no file" % what[len("refused: "):], w)
                else:
                    tap.ok(not w, "bad input, %s: bcastgen exits 1 or 2, says why on stderr, "
                           "no file" % what, w)
        tap.comment("generation %.0f s, refusals %.0f s" % (t_gen, time.time() - t_ref))

        # what the corpus covers
        if nsets >= 48:
            miss = []
            seen = set((c["set"]["op"], c["set"]["dtype"], c["set"]["rounding"],
                        c["set"]["activation"]) for c in cases if c["kind"] == "random")
            for op in q.OPS:
                for dt in DTYPES:
                    miss += ["%s %s %s %s" % (op, dt, r, a) for r in q.ROUNDINGS
                             for a in q.ACTIVATIONS if (op, dt, r, a) not in seen]
                    ks = [c for c in cases if c["kind"] == "random"
                          and (c["set"]["op"], c["set"]["dtype"]) == (op, dt)]
                    miss += ["%s %s strategy %s" % (op, dt, s) for s in STRATEGIES
                             if not any(c["strategy"] == s for c in ks)]
                    miss += ["%s %s strategy %s in place" % (op, dt, s) for s in STRATEGIES
                             if not any(c["strategy"] == s and c["inplace"] for c in ks)]
                    if not any(c["xs"] != c["ys"] for c in ks):
                        miss.append("%s %s with broadcasting" % (op, dt))
            if corpus.mul_shift < max(10, nsets // 40):
                miss.append("only %d random MUL sets with a shift > 0" % corpus.mul_shift)
            tap.ok(not miss, "the random kernels cover every op x dtype x rounding x "
                   "activation, every strategy, in place or not, and %d MUL sets with a "
                   "multiplier of 1 or more" % corpus.mul_shift, miss)
        else:
            tap.skip("the random kernels cover every op x dtype x rounding x activation",
                     "QUANT_KERNEL_SETS=%d is below the 48 combinations" % nsets)

        # the builds
        gens = [c for c in cases if not c["gen_error"]]
        nb = max(1, math.ceil(len(gens) / BATCH))
        # exhaustive kernels spread over the batches: each has as much to run
        gens.sort(key=lambda c: (c["kind"] != "exhaustive", c["id"]))
        batches = [gens[k::nb] for k in range(nb)]
        outsize = []
        for k, b in enumerate(batches):
            outsize.append(write_inputs(os.path.join(scratch, "in%d.bin" % k), b))
        why_not = {}
        for b in BUILDS:
            if b[4] == "sanitizers":
                why_not[b[0]] = sanitizers_work(cc, scratch)
            elif b[4]:
                why_not[b[0]] = cpu_level(cc, scratch, b[4])
        builds = [b for b in BUILDS if not why_not.get(b[0])]

        for c in gens:
            with open(os.path.join(kdir, c["name"] + ".c")) as f:
                c["lines"] = re.search(r"\bbc_q_\w*_line_", f.read()) is not None
            c["simd"] = c["lines"] or c["kind"] == "exhaustive" or c["id"] % SIMD_SHARE == 0

        def built(tag, c):
            """Whether build TAG compiles case C."""
            return c["simd"] or tag not in ("v3", "v4")

        def task(tb):
            (tag, bname, kflags, hflags, _), k = tb
            kflags = kflags + extra
            odir = os.path.join(scratch, "%s-%d" % (tag, k))
            t = time.time()
            mine = [c for c in batches[k] if built(tag, c)]
            objs = compile_batch(cc, kflags, incs, kdir, odir, mine, tag)
            tc = time.time() - t
            exe, todo = link_harness(cc, hflags, odir, mine, objs, tag)
            outfile = os.path.join(scratch, "out%d-%s.bin" % (k, tag))
            with open(outfile, "wb") as f:
                f.truncate(outsize[k])
            if exe:
                run_harness(exe, os.path.join(scratch, "in%d.bin" % k), outfile, todo, tag)
            return tc, time.time() - t
        tb = time.time()
        work = [(b, k) for b in builds for k in range(nb)]
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
            times = list(ex.map(task, work))
        tap.comment("compile and run: %.0f s wall for %d builds of %d batches (compile %s; "
                    "link and run %.0f s of work)" % (
                        time.time() - tb, len(builds), nb,
                        ", ".join("%s %.0f s" % (b[1], sum(t[0] for w, t in zip(work, times)
                                                         if w[0] is b)) for b in builds),
                        sum(t[1] - t[0] for t in times)))
        checked = 0
        for tag, bname, kflags, hflags, _ in BUILDS:
            if why_not.get(tag):
                tap.skip("%s: every kernel" % bname, why_not[tag])
                continue
            broken = [c for c in gens if tag in c.get("cc_error", {})]
            tap.ok(not broken, "%s: %d kernels compile (%s) in %d batches, link and run%s" % (
                bname, sum(built(tag, c) for c in gens), " ".join(kflags), nb,
                "" if tag not in ("v3", "v4") else
                " (the %d that call a line helper, the exhaustive ones, 1 in %d of the "
                "others)" % (sum(c["lines"] for c in gens), SIMD_SHARE)),
                diag_of([["bcastgen: " + c["cmd"], "  " + c["cc_error"][tag]] for c in broken],
                        len(gens)))
            results = {}
            for k, b in enumerate(batches):
                with open(os.path.join(scratch, "out%d-%s.bin" % (k, tag)), "rb") as f:
                    data = f.read()
                for c in b:
                    results[c["id"]] = data[c["ooff"]:c["ooff"] + c["obytes"]]
            groups = []
            for op in q.OPS:
                for dt in DTYPES:
                    groups.append(("%s %s random sets" % (op, dt),
                                   lambda c, op=op, dt=dt: c["kind"] == "random"
                                   and (c["set"]["op"], c["set"]["dtype"]) == (op, dt)))
            groups.append(("fixed sets (%s)" % " ".join(f[0] for f in FIXED),
                           lambda c: c["kind"] == "fixed"))
            for op in q.OPS:
                groups.append(("%s int8 exhaustive: every pair of int8 values, [256,256], "
                               "[256,1] x [256] and [256,1,2,1] x [16,1,16], sets %s, "
                               "both roundings" % (op, " ".join(f[0] for f in FIXED if f[8])),
                               lambda c, op=op: c["kind"] == "exhaustive"
                               and c["set"]["op"] == op))
            for what, pick in groups:
                mine = [c for c in cases if pick(c)
                        and (tag not in ("v3", "v4") or c.get("simd"))]
                fails = []
                n = 0
                for c in mine:
                    d = check_case(c, tag, results.get(c["id"]))
                    if d:
                        fails.append(d)
                    else:
                        n += prod(c["result"])
                checked += n
                strat = ", ".join("%s %d" % (s, sum(c["strategy"] == s for c in mine))
                                  for s in STRATEGIES)
                tap.ok(not fails, "%s: %s: %d kernels (%s; in place %d; --target %d, "
                       "cortex-m55 %d), %d elements bit for bit" % (
                           bname, what, len(mine), strat, sum(c["inplace"] for c in mine),
                           sum(bool(c["target"]) for c in mine),
                           sum(c["target"] == "cortex-m55" for c in mine),
                           sum(prod(c["result"]) for c in mine)),
                       diag_of(fails, len(mine)))
        tap.comment("checked: %d parameter sets (%d random, %d fixed; %d refused sets and "
                    "%d bad command lines refused), %d kernels, %d elements in %d builds "
                    "(%d element results compared equal), %.0f s" % (
                        corpus.accepted + len(fixed_sets()), corpus.accepted,
                        len(fixed_sets()), len(corpus.refused), len(bad_inputs()),
                        len(cases), sum(prod(c["result"]) for c in cases), len(builds),
                        checked, time.time() - t0))
    finally:
        if not keep:
            shutil.rmtree(scratch, ignore_errors=True)
    return tap.done()


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))   # clean up the scratch
    sys.exit(main())
