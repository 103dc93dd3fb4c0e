#!/usr/bin/python3
"""t700-quant-oracle: tests/quant_oracle.py, the oracle of the quantized
kernels (TFLM's reference int8/int16 ADD, SUB and MUL), checked against
gemmlowp and against values derived by hand.

1. tests/quant_gemmlowp.cc (gemmlowp's fixedpoint.h, Debian's
   libgemmlowp-dev) built with g++ -std=c++11; the oracle's srdhm and
   rounding_divide_by_pot, vectorized and scalar, against it: every edge
   value crossed with every other (INT32_MIN * INT32_MIN, the saturating
   case, among them), exact halves and their neighbours, and 2 million
   random pairs for each.
2. quantize_multiplier and float32 on values whose results are derived
   in the comments; mbqm's two roundings where they differ.
3. SUB's float32 multipliers against ADD's double ones, on the recorded
   parameter sets, exhaustively over int8 x int8.
4. The activation range's float32 division where double would round
   the other way; MUL with a multiplier of 1 or more (positive shift,
   wrapping); what TFLM refuses.
5. Random parameter sets (200 that TFLM accepts, and the ones it
   refuses on the way, each refusal recomputed apart) on random
   broadcast shapes: the vectorized and the scalar paths agree, the
   values lie in the clamp, broadcasting changes no element, and, where
   nothing wraps, each element lies within its roundings' error bound
   (tolerance()) of the real-valued result.

QUANT_SEED=N changes the random inputs, QUANT_SETS=N the number of sets.
"""
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile

TESTS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TESTS)

from tap import Tap, fresh                 # noqa: E402

try:
    import numpy as np
except ImportError:
    print("1..0 # SKIP no numpy for %s (python3-numpy)" % sys.executable)
    sys.exit(0)

import quant_oracle as q                   # noqa: E402

I32_MIN, I32_MAX = q.INT32_MIN, q.INT32_MAX
GEMMLOWP_H = "/usr/include/gemmlowp/fixedpoint/fixedpoint.h"
RANDOM_PAIRS = 2000000
SCALAR_PAIRS = 20000         # of the random ones, through the scalar path too
RANDOM_SETS = int(os.environ.get("QUANT_SETS", "200"))
WHAT = ("x_mult", "x_shift", "y_mult", "y_shift", "out_mult", "out_shift")


def int8_grid():
    """Every int8 pair, as x[256, 1] and y[1, 256]."""
    v = np.arange(-128, 128, dtype=np.int8)
    return v[:, None], v[None, :]


def build_gemmlowp(tmp):
    """quant_gemmlowp built in TMP: (path, None), or (None, why not)."""
    cxx = shutil.which("g++")
    if not cxx:
        return None, "g++ not installed"
    if not os.path.exists(GEMMLOWP_H):
        return None, "no %s (apt-get install libgemmlowp-dev)" % GEMMLOWP_H
    exe = os.path.join(fresh(tmp), "quant_gemmlowp")
    cmd = [cxx, "-std=c++11", "-O2", "-Wall", "-Wextra", "-Wpedantic", "-Wshadow",
           "-Werror", "-o", exe, os.path.join(TESTS, "quant_gemmlowp.cc")]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        return None, "build failed: %s\n%s" % (" ".join(cmd), r.stderr)
    return exe, None


def run_gemmlowp(exe, tmp, srdhm_pairs, rdbpot_pairs):
    """gemmlowp's results for the (a, b) and (x, e) pairs (int64 arrays
    of shape [n, 2]), through a file of lines."""
    d = fresh(tmp)
    path = os.path.join(d, "in.txt")
    with open(path, "w") as f:
        f.write("".join("srdhm %d %d\n" % (a, b) for a, b in srdhm_pairs.tolist()))
        f.write("".join("rdbpot %d %d\n" % (x, e) for x, e in rdbpot_pairs.tolist()))
    r = subprocess.run([exe, path], capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError("quant_gemmlowp failed: " + r.stderr)
    out = np.array(r.stdout.split(), dtype=np.int64)
    return out[:len(srdhm_pairs)], out[len(srdhm_pairs):]


def edges():
    """Edge int32 values: the extremes, 0, +-1, +-2, +-2^30 and their
    neighbours, +-2^15 (where products cross 2^30)."""
    e = {I32_MIN, I32_MIN + 1, I32_MAX, I32_MAX - 1, 0, 1, -1, 2, -2}
    for p in (15, 16, 30):
        for s in (1, -1):
            e |= {s * (1 << p) + d for d in (-1, 0, 1)}
    return sorted(v for v in e if I32_MIN <= v <= I32_MAX)


def srdhm_pairs(rng):
    """The pairs for SRDHM: edges crossed; a*b an exact half of 2^31
    ((2k+1) * 2^30, where the nudge decides) and its neighbours +-1, with
    both signs; random pairs, half uniform over int32 and half of random
    bit lengths (so that small products, as in the kernels, are many)."""
    e = edges()
    pairs = [(a, b) for a in e for b in e]
    for j in range(0, 31):
        for _ in range(8):
            k = rng.randrange(0, 1 << min(j, 30))
            b = ((2 * k + 1) << (30 - j))
            for d in (-1, 0, 1):
                for sa, sb in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
                    if I32_MIN <= sb * b + d <= I32_MAX:
                        pairs.append((sa * (1 << j), sb * b + d))
    fixed = np.array(pairs, dtype=np.int64)
    nrng = np.random.default_rng(rng.randrange(1 << 30))
    n = RANDOM_PAIRS // 2
    uniform = nrng.integers(I32_MIN, I32_MAX, size=(n, 2), endpoint=True)
    bits = nrng.integers(0, 32, size=(RANDOM_PAIRS - n, 2))
    sized = nrng.integers(0, 1 << 31, size=(RANDOM_PAIRS - n, 2)) >> (31 - bits)
    sized *= nrng.choice([-1, 1], size=sized.shape)
    return fixed, np.concatenate([uniform, sized])


def rdbpot_pairs(rng):
    """The pairs (x, e) for RoundingDivideByPOT: edges with every
    exponent 0..31; exact halves (2k+1) * 2^(e-1) and their neighbours,
    both signs; random x of random bit lengths, random exponents."""
    pairs = [(x, e) for x in edges() for e in range(32)]
    for e in range(1, 32):
        for _ in range(8):
            k = rng.randrange(0, 1 << (31 - e))
            h = (2 * k + 1) << (e - 1)
            for d in (-1, 0, 1):
                for s in (1, -1):
                    if I32_MIN <= s * h + d <= I32_MAX:
                        pairs.append((s * h + d, e))
    fixed = np.array(pairs, dtype=np.int64)
    nrng = np.random.default_rng(rng.randrange(1 << 30))
    bits = nrng.integers(0, 33, size=RANDOM_PAIRS)
    x = nrng.integers(I32_MIN, I32_MAX, size=RANDOM_PAIRS, endpoint=True) >> (32 - bits)
    e = nrng.integers(0, 32, size=RANDOM_PAIRS)
    return fixed, np.stack([x, e], axis=1)


def mismatches(pairs, got, want, limit=8):
    bad = np.flatnonzero(got != want)
    lines = ["%d of %d pairs differ" % (len(bad), len(pairs))]
    for i in bad[:limit]:
        lines.append("(%d, %d): oracle %d, gemmlowp %d"
                     % (pairs[i][0], pairs[i][1], got[i], want[i]))
    return lines


def check_gemmlowp(tap, tmp, rng):
    names = ["quant_gemmlowp.cc builds with g++ -std=c++11 -Werror",
             "srdhm (vectorized) is gemmlowp's SaturatingRoundingDoublingHighMul: "
             "edges crossed, INT32_MIN^2, halves +-1, %d random pairs" % RANDOM_PAIRS,
             "srdhm (scalar) is gemmlowp's on the edges, the halves and %d random pairs"
             % SCALAR_PAIRS,
             "rounding_divide_by_pot (vectorized) is gemmlowp's RoundingDivideByPOT: "
             "edges x exponents 0..31, halves +-1, %d random pairs" % RANDOM_PAIRS,
             "rounding_divide_by_pot (scalar) is gemmlowp's on the edges, the halves "
             "and %d random pairs" % SCALAR_PAIRS,
             "gemmlowp's SRDHM is floor(a*b / 2^31 + 1/2) but at INT32_MIN^2 (the docstring)"]
    exe, why = build_gemmlowp(tmp)
    if not exe:
        if why.startswith("build failed"):
            tap.ok(False, names[0], why)
            why, names = "quant_gemmlowp did not build", names[1:]
        for name in names:
            tap.skip(name, why)
        return
    tap.ok(True, names[0])
    s_fixed, s_rand = srdhm_pairs(rng)
    r_fixed, r_rand = rdbpot_pairs(rng)
    s_all = np.concatenate([s_fixed, s_rand])
    r_all = np.concatenate([r_fixed, r_rand])
    s_want, r_want = run_gemmlowp(exe, tmp, s_all, r_all)

    got = q.srdhm(s_all[:, 0], s_all[:, 1])
    tap.ok(np.array_equal(got, s_want), names[1], mismatches(s_all, got, s_want))
    n = len(s_fixed) + SCALAR_PAIRS
    got = np.array([q.srdhm(a, b) for a, b in s_all[:n].tolist()], dtype=np.int64)
    tap.ok(np.array_equal(got, s_want[:n]), names[2], mismatches(s_all, got, s_want[:n]))

    got = q.rounding_divide_by_pot(r_all[:, 0], r_all[:, 1])
    tap.ok(np.array_equal(got, r_want), names[3], mismatches(r_all, got, r_want))
    n = len(r_fixed) + SCALAR_PAIRS
    got = np.array([q.rounding_divide_by_pot(x, e) for x, e in r_all[:n].tolist()],
                   dtype=np.int64)
    tap.ok(np.array_equal(got, r_want[:n]), names[4], mismatches(r_all, got, r_want[:n]))

    # The docstring's reading of SRDHM: floor(a*b / 2^31 + 1/2), halves
    # rounded up, but at INT32_MIN * INT32_MIN.
    a, b = s_all[:, 0], s_all[:, 1]
    sat = (a == I32_MIN) & (b == I32_MIN)
    plain = np.where(sat, I32_MAX, (a * b + (1 << 30)) >> 31)
    tap.ok(np.array_equal(plain, s_want), names[5], mismatches(s_all, plain, s_want))


def check_quantize_multiplier(tap):
    """Each row: q, rounding, the expected (m, shift), and why."""
    rows = [
        # frexp(0.5) = (0.5, 0); 0.5 * 2^31 = 2^30
        (0.5, "double", (1 << 30, 0)),
        # frexp(0.25) = (0.5, -1)
        (0.25, "double", (1 << 30, -1)),
        # frexp(1.0) = (0.5, 1): a multiplier of 1 has shift 1
        (1.0, "double", (1 << 30, 1)),
        # frexp(0.75) = (0.75, 0); 0.75 * 2^31 = 3 * 2^29 = 1610612736
        (0.75, "double", (1610612736, 0)),
        # just under 1: (1 - 2^-24) * 2^31 = 2^31 - 2^7 = 2147483520 (the
        # float32 below 1); (1 - 2^-31) * 2^31 = 2^31 - 1
        (1 - 2.0 ** -24, "double", (2147483520, 0)),
        (1 - 2.0 ** -31, "double", (I32_MAX, 0)),
        # (1 - 2^-32) * 2^31 = 2^31 - 1/2: a half, rounded away from zero
        # to 2^31, which becomes 2^30 with the shift one more: (2^30, 1),
        # the value of 1.0 (what QuantizeMultiplierSmallerThanOneExp refuses)
        (1 - 2.0 ** -32, "double", (1 << 30, 1)),
        # (0.5 + 2^-32) * 2^31 = 2^30 + 1/2: halves away from zero give
        # 2^30 + 1 (ties to even would give 2^30)
        (0.5 + 2.0 ** -32, "double", (1073741825, 0)),
        # 1000 = 0.9765625 * 2^10; 0.9765625 * 2^31 = 2097152000
        (1000.0, "double", (2097152000, 10)),
        # 2^-32 = 0.5 * 2^-31: the last shift kept
        (2.0 ** -32, "double", (1 << 30, -31)),
        # 2^-33 = 0.5 * 2^-32: shift below -31, flushed to (0, 0)
        (2.0 ** -33, "double", (0, 0)),
        # (1 - 2^-33) * 2^-32: frexp gives shift -32, but the fraction
        # rounds up to 2^31 first, so the shift becomes -31 and stays
        ((1 - 2.0 ** -33) * 2.0 ** -32, "double", (1 << 30, -31)),
        (0.0, "double", (0, 0)),
        # 2^30 = 0.5 * 2^31: shift 31, kept under double rounding (params
        # refuses it), saturated under single to (2^31 - 1, 30)
        (2.0 ** 30, "double", (1 << 30, 31)),
        (2.0 ** 30, "single", (I32_MAX, 30)),
        (1e12, "single", (I32_MAX, 30)),
        # 2^29 = 0.5 * 2^30: shift 30, the largest single rounding keeps
        (2.0 ** 29, "single", (1 << 30, 30)),
    ]
    bad = ["quantize_multiplier(%r, %s) = %r, not %r" % (v, r, q.quantize_multiplier(v, r), want)
           for v, r, want in rows if q.quantize_multiplier(v, r) != want]
    tap.ok(not bad, "quantize_multiplier on %d values derived by hand: halves away "
           "from zero, 2^31 halved, shift < -31 flushed, single's saturation" % len(rows), bad)


def check_float32(tap):
    rows = [
        # 0.1 = 13421773 * 2^-27 as a float32 (0.100000001490116...)
        ("0.1", 13421773 * 2.0 ** -27),
        # 1 + 2^-24 is the halfway point between 1 and 1 + 2^-23. Just
        # above it, the decimal rounds up to 1 + 2^-23; through a double
        # it would first become exactly the halfway point and then round
        # to even, 1.0: float32 rounds the decimal once.
        ("1.000000059604644775390625000001", 1 + 2.0 ** -23),
        ("1.000000059604644775390625", 1.0),
        ("0.00000762939453125", 2.0 ** -17),
        (" 2.5e-3", float(np.float32(0.0025))),
    ]
    bad = ["float32(%r) = %r, not %r" % (t, float(q.float32(t)), want)
           for t, want in rows if float(q.float32(t)) != want]
    for t in ("0", "-1", "-0.0", "inf", "nan", "1e-50", "1e39", "abc", ""):
        try:
            v = q.float32(t)
            bad.append("float32(%r) = %r, not an error" % (t, v))
        except ValueError:
            pass
    tap.ok(not bad, "float32 rounds a decimal once to float32; rejects 0, negatives, "
           "non-finite, underflow, overflow, non-numbers", bad)


def exhaustive_diff(pa, pb):
    """The int8 pairs where the kernels of params PA and PB differ."""
    x, y = int8_grid()
    a, b = q.compute(pa, x, y), q.compute(pb, x, y)
    return [(int(x[i, 0]), int(y[0, j]), int(a[i, j]), int(b[i, j]))
            for i, j in np.argwhere(a != b)]


def with_multipliers(p, of):
    """P with the multipliers and shifts of OF."""
    r = dict(p)
    r.update({k: of[k] for k in WHAT})
    return r


def check_sub_float32(tap):
    # The recorded sets: SUB's multipliers (float32) against ADD's
    # (double) for the same scales, and the int8 pairs whose SUB result
    # changes if ADD's multipliers were used, over all 65536 pairs.
    #
    # A: x 0.02, y 0.03, out 0.02, zero points 0. As float32s, 0.03 is
    # exactly 1.5 times 0.02, so x's multiplier, 0.02 / 0.06, is exactly
    # 1/3 = (2/3) * 2^-1. Double keeps it: m = round(2^32 / 3) =
    # round(1431655765.33) = 1431655765; float32 rounds 1/3 to 24 bits,
    # 11184811 * 2^-25, so m = 11184811 * 2^7 = 1431655808. The real
    # result, x - 1.5 y, is a half wherever y is odd: the one multiplier
    # is below 1/3 and the other above, and 4431 of those halves round
    # the other way.
    # B: x 0.01, y 0.07, out 0.06: one pair in 65536 differs, (-126,
    # -15), whose real result is -3.4999995 (with the float32 scales):
    # SUB gives -3, ADD's multipliers -4.
    sets = [
        ("A", {"x": ("0.02", 0), "y": ("0.03", 0), "out": ("0.02", 0)}, 4431,
         {"x_mult": (1431655808, 1431655765)}),
        ("B", {"x": ("0.01", 0), "y": ("0.07", 0), "out": ("0.06", 0)}, 1,
         {"x_mult": (1227133440, 1227133480), "out_mult": (1252698880, 1252698828)}),
    ]
    for name, quant, count, mults in sets:
        sub = q.params("sub", "int8", quant)
        add = q.params("add", "int8", quant)
        diag = ["SUB %s" % [sub[k] for k in WHAT], "ADD %s" % [add[k] for k in WHAT]]
        ok = all((sub[k], add[k]) == v for k, v in mults.items())
        ok = ok and any(sub[k] != add[k] for k in WHAT)
        diff = exhaustive_diff(sub, with_multipliers(sub, add))
        diag.append("%d pairs differ (x, y, SUB, SUB with ADD's multipliers): %s"
                    % (len(diff), diff[:6]))
        ok = ok and len(diff) == count
        if name == "B":
            ok = ok and diff == [(-126, -15, -3, -4)]
        tap.ok(ok, "set %s %s: SUB's float32 multipliers differ from ADD's double ones; "
               "%d of 65536 int8 pairs differ" % (name, quant, count), diag)
        for line in diag[2:]:
            tap.comment("set %s: %s" % (name, line))


def check_activation(tap):
    # float32(0.8) = 13421773 * 2^-24 = 0.800000011920928955...; 6 / it =
    # 7.4999998882..., which double keeps (round: 7), but float32 near
    # 7.5 has ulps of 2^-21 = 4.8e-7, so the float32 quotient is exactly
    # 7.5, and std::round gives 8: relu6's top is zo + 8.
    # float32(0.096): 6 / it = 62.49999946 in double, 62.5 in float32: 63.
    # float32(0.4): 1 / it = 2.49999996 in double, 2.5 in float32: +-3.
    rows = [
        ("int8", "relu6", ("0.8", 0), (0, 8)),
        ("int8", "relu6", ("0.096", -100), (-100, -37)),
        ("int8", "relu_n1_to_1", ("0.4", 5), (2, 8)),
        ("int16", "relu_n1_to_1", ("0.4", 0), (-3, 3)),
        ("int8", "relu", ("0.8", -7), (-7, 127)),
        ("int8", "none", ("0.8", -7), (-128, 127)),
        ("int16", "relu6", ("0.0001", 0), (0, 32767)),      # 60000 clamps to qmax
        ("int8", "relu6", ("1000", 127), (127, 127)),        # round(0.006) = 0
    ]
    bad = []
    for dtype, act, out, want in rows:
        for op in ("add", "sub", "mul"):
            quant = {"x": ("0.5", 0), "y": ("0.5", 0), "out": out}
            p = q.params(op, dtype, quant, activation=act)
            if (p["lo"], p["hi"]) != want:
                bad.append("%s %s %s out %s: (%d, %d), not %s"
                           % (op, dtype, act, out, p["lo"], p["hi"], want))
    # the cases chosen do differ between float32 and double
    for t, f in (("0.8", 6.0), ("0.096", 6.0), ("0.4", 1.0)):
        so = q.float32(t)
        if q._round_away(float(np.float32(f) / so)) == q._round_away(f / float(so)):
            bad.append("%s / %s: float32 and double round the same: no test" % (f, t))
    tap.ok(not bad, "activation ranges: relu, relu6, relu_n1_to_1 divide in float32 "
           "(out scale 0.8: relu6 top 8, where double gives 7)", bad)


def check_mul_large(tap):
    bad = []

    def expect(what, got, want):
        if got != want:
            bad.append("%s: %r, not %r" % (what, got, want))

    # int16, scales 1, 1, 0.125: real multiplier 8 = 0.5 * 2^4, so (2^30,
    # 4). x = y = 16384: the product 2^28; double rounding shifts it left
    # by 4 in int32: 2^32 wraps to 0, SRDHM(0, m) = 0, out 0. Single
    # rounding: (2^28 * 2^30 + 2^26) >> 27 = 2^31, cast to int32:
    # INT32_MIN, clamped to -32768. (The real value, 2^31, would clamp to
    # 32767.) x = 3, y = -5: -15 * 16 = -240, SRDHM(-240, 2^30) = -120.
    quant = {"x": ("1", 0), "y": ("1", 0), "out": ("0.125", 0)}
    for r, big in (("double", 0), ("single", -32768)):
        p = q.params("mul", "int16", quant, rounding=r)
        expect("int16 %s multiplier" % r, (p["out_mult"], p["out_shift"]), (1 << 30, 4))
        expect("int16 %s (16384, 16384)" % r, q.element(p, 16384, 16384), big)
        expect("int16 %s (3, -5)" % r, q.element(p, 3, -5), -120)
        v = np.array([16384, 3], dtype=np.int16)
        w = np.array([16384, -5], dtype=np.int16)
        expect("int16 %s compute" % r, q.compute(p, v, w).tolist(), [big, -120])
    # int8, scales 1, 1, 2^-17: real 2^17 = 0.5 * 2^18: (2^30, 18). (127,
    # 127): 16129 * 2^18 = 4228120576 wraps to -66846720, SRDHM halves it:
    # -33423360, clamped to -128. Single: (16129 * 2^30 + 2^12) >> 13 =
    # 16129 * 2^17, clamped to 127. (-128, -128): 2^14 * 2^18 = 2^32
    # wraps to 0 (double: 0); single: 2^44 >> 13 = 2^31 wraps to
    # INT32_MIN: -128.
    quant = {"x": ("1", 0), "y": ("1", 0), "out": ("0.00000762939453125", 0)}
    for r, want in (("double", (-128, 0)), ("single", (127, -128))):
        p = q.params("mul", "int8", quant, rounding=r)
        expect("int8 %s multiplier" % r, (p["out_mult"], p["out_shift"]), (1 << 30, 18))
        expect("int8 %s (127, 127), (-128, -128)" % r,
               (q.element(p, 127, 127), q.element(p, -128, -128)), want)
    # int8, scales 0.5, 0.5, 0.125 with zero points: real 2 = 0.5 * 2^2:
    # (2^30, 2). x = 13 (zx 3), y = 1 (zy -2): 10 * 3 * 4 = 120, SRDHM
    # halves it: 60, plus zo 5: 65.
    quant = {"x": ("0.5", 3), "y": ("0.5", -2), "out": ("0.125", 5)}
    p = q.params("mul", "int8", quant)
    expect("int8 (2^30, 2)", (p["out_mult"], p["out_shift"]), (1 << 30, 2))
    expect("int8 (13, 1)", q.element(p, 13, 1), 65)
    tap.ok(not bad, "MUL with a multiplier of 1 or more: positive shifts, int32 wrapping "
           "under double rounding, the 64-bit result truncated under single", bad)


def check_roundings(tap):
    bad = []
    # MBQM(1, 2^30, -1), a multiplier of 0.25: double rounding rounds
    # twice: SRDHM(1, 2^30) = round(0.5) = 1 (halves up), then 1 / 2 =
    # 0.5 rounds away from zero to 1. Single: (2^30 + 2^31) >> 32 = 0.
    if (q.mbqm(1, 1 << 30, -1), q.mbqm(1, 1 << 30, -1, "single")) != (1, 0):
        bad.append("mbqm(1, 2^30, -1): %r" % ((q.mbqm(1, 1 << 30, -1),
                                                q.mbqm(1, 1 << 30, -1, "single")),))
    # -1 * 0.25: SRDHM(-1, 2^30) = round(-0.5) = 0 (halves up); single:
    # (-2^30 + 2^31) >> 32 = 0. Both 0.
    if (q.mbqm(-1, 1 << 30, -1), q.mbqm(-1, 1 << 30, -1, "single")) != (0, 0):
        bad.append("mbqm(-1, 2^30, -1) is not 0 under both")
    counts = []
    for op in ("add", "sub", "mul"):
        quant = {"x": ("0.02", 0), "y": ("0.03", 0), "out": ("0.02", 0)}
        d = exhaustive_diff(q.params(op, "int8", quant),
                            q.params(op, "int8", quant, rounding="single"))
        counts.append("%s %d" % (op, len(d)))
        if not d:
            bad.append("%s: the two roundings agree on every int8 pair" % op)
    tap.ok(not bad, "double and single rounding differ: mbqm(1, 2^30, -1) is 1 and 0; "
           "int8 pairs that differ on scales 0.02, 0.03, 0.02: " + ", ".join(counts), bad)


def check_refusals(tap):
    def refused(op, dtype, quant, activation="none", rounding="double", why=""):
        try:
            p = q.params(op, dtype, quant, activation, rounding)
            return "%s %s %s %s: accepted (%s)" % (op, dtype, quant, rounding,
                                                   {k: p.get(k) for k in WHAT})
        except q.Refused as e:
            return None if why in str(e) else "%s: reason %r lacks %r" % (op, str(e), why)

    def accepted(op, dtype, quant, rounding="double"):
        try:
            q.params(op, dtype, quant, rounding=rounding)
            return None
        except q.Refused as e:
            return "%s %s %s: refused: %s" % (op, dtype, quant, e)

    one = ("1", 0)
    # ADD/SUB: out multiplier 2 / (2^20 * so): so = 2^-19 gives exactly 1
    # (refused), the next float32 up gives less than 1; 1e-6 gives 1.9.
    pot19 = "0.0000019073486328125"
    above = repr(float(np.nextafter(q.float32(pot19), np.float32(1))))
    # MUL: real 2^29 has shift 30 (kept); 2^30 has shift 31 (refused
    # under double, saturated under single). Out scales 2^-29 and 2^-30:
    pot29 = "0.00000000186264514923095703125"
    pot30 = "0.000000000931322574615478515625"
    r = [
        refused("add", "int8", {"x": one, "y": one, "out": ("1e-6", 0)}, why="out multiplier"),
        refused("sub", "int8", {"x": one, "y": one, "out": ("1e-6", 0)}, why="out multiplier"),
        refused("add", "int8", {"x": one, "y": one, "out": (pot19, 0)}, why="not in (0, 1)"),
        refused("add", "int8", {"x": one, "y": one, "out": (pot19, 0)}, rounding="single",
                why="not in (0, 1)"),
        accepted("add", "int8", {"x": one, "y": one, "out": (above, 0)}),
        refused("add", "int16", {"x": one, "y": one, "out": ("0.00006", 0)},
                why="out multiplier"),
        refused("mul", "int8", {"x": ("1000", 0), "y": ("1000", 0), "out": ("1e-6", 0)},
                why="> 30"),
        accepted("mul", "int8", {"x": ("1000", 0), "y": ("1000", 0), "out": ("1e-6", 0)},
                 rounding="single"),
        refused("mul", "int16", {"x": one, "y": one, "out": (pot30, 0)}, why="shift 31 > 30"),
        accepted("mul", "int16", {"x": one, "y": one, "out": (pot29, 0)}),
        refused("mul", "int8", {"x": ("1e-6", 0), "y": ("1e-6", 0), "out": ("1e-12", 0)},
                activation="relu6", why="activation bound"),
    ]
    for op in ("add", "sub", "mul"):
        for t in ("x", "y", "out"):
            quant = {"x": one, "y": one, "out": ("4", 0)}
            quant[t] = ("1", -3)
            r.append(refused(op, "int16", quant, why="int16 zero point of " + t))
    bad = [x for x in r if x]
    for args in (("div", "int8"), ("add", "int32"), ("add", "int8", "tanh"),
                 ("add", "int8", "none", "triple")):
        quant = {"x": one, "y": one, "out": ("4", 0)}
        try:
            q.params(args[0], args[1], quant, *args[2:])
            bad.append("params%r accepted" % (args,))
        except ValueError:
            pass
    try:
        q.params("add", "int8", {"x": ("1", 128), "y": one, "out": one})
        bad.append("zero point 128 accepted for int8")
    except ValueError:
        pass
    tap.ok(not bad, "refused: ADD and SUB out multipliers >= 1, MUL shift > 30 under double "
           "(single saturates), int16 zero points, activation bounds beyond int32", bad)


def random_scale(rng):
    """A scale log-uniform over 1e-6 .. 1e3, as a decimal of 6 digits."""
    return "%.6g" % (10 ** rng.uniform(-6, 3))


def random_shapes(rng):
    """Two shapes that broadcast: each dimension of the result 1..5, each
    operand's either the same or 1, or missing (ranks 0..4)."""
    out = [rng.randint(1, 5) for _ in range(rng.randint(0, 4))]
    shapes = []
    for _ in range(2):
        rank = rng.randint(0, len(out))
        dims = out[len(out) - rank:]
        shapes.append(tuple(d if rng.random() < 0.6 else 1 for d in dims))
    return shapes


def random_values(rng, nrng, shape, dtype):
    """Values over the whole range of DTYPE, with its extremes mixed in."""
    info = np.iinfo(dtype)
    v = nrng.integers(info.min, info.max, size=shape, endpoint=True).astype(dtype)
    if v.size:
        flat = v.reshape(-1)
        for _ in range(rng.randint(0, 3)):
            flat[rng.randrange(flat.size)] = rng.choice([info.min, info.max, 0, -1])
    return v


def expected_refusal(op, dtype, quant, activation, rounding):
    """Whether TFLM refuses the set, computed apart from quant_oracle's
    params (its own arithmetic, from the conditions in the docstring)."""
    if dtype == "int16" and any(z != 0 for _, z in quant.values()):
        return True
    sx, sy, so = (q.float32(quant[t][0]) for t in ("x", "y", "out"))
    shift = {"int8": 20, "int16": 15}[dtype]
    if op == "add":
        refused = 2 * max(float(sx), float(sy)) / (2.0 ** shift * float(so)) >= 1 - 2.0 ** -32
    elif op == "sub":
        with np.errstate(over="ignore"):
            real = float((np.float32(2) * max(sx, sy)) / (np.float32(2 ** shift) * so))
        refused = real >= 1 - 2.0 ** -32
    else:
        real = float(sx) * float(sy) / float(so)
        refused = rounding == "double" and real >= 2.0 ** 30 - 0.25
    top = {"relu6": 6.0, "relu_n1_to_1": 1.0}.get(activation, 0.0)
    with np.errstate(over="ignore"):
        bound = float(np.float32(top) / so)
    return refused or math.floor(bound + 0.5) + abs(quant["out"][1]) > I32_MAX


def real_result(p, x, y):
    """The real-valued result of P's kernel on the int64 arrays X and Y,
    from the real multipliers that TFLM quantizes (SUB's float32 ones
    for SUB), in units of the output scale, before rounding and clamp."""
    xv, yv = (x - p["zx"]).astype(np.float64), (y - p["zy"]).astype(np.float64)
    if p["op"] == "mul":
        return p["zo"] + xv * yv * p["real_out"]
    scale = 2.0 ** p["left_shift"]
    a, b = xv * scale * p["real_x"], yv * scale * p["real_y"]
    return p["zo"] + (a + b if p["op"] == "add" else a - b) * p["real_out"]


def tolerance(p):
    """How far an element of P's kernel may lie from the real result,
    clamped. One MBQM is off by at most 1 under double rounding (1/2 from
    SRDHM, 1/2 from RoundingDivideByPOT) and 1/2 under single; a
    multiplier quantized to 31 bits is off by 2^-31 relative, which on
    ADD's and SUB's inputs (|x - zx| * 2^L <= 2^30, times at most 1/2)
    is at most 1/4. So ADD and SUB are off by 2 * (e + 1/4) before the
    out multiplier Mo, and e after it: e + 2 (e + 1/4) Mo; MUL by e. The
    last quantization's relative error on values that clamp adds < 1e-3."""
    e = 1.0 if p["rounding"] == "double" else 0.5
    if p["op"] == "mul":
        return e + 1e-3
    return e + 2 * (e + 0.25) * p["real_out"] + 1e-3


def may_wrap(p, x, y):
    """Whether an int32 of P's kernel can wrap on X, Y: MUL's product
    shifted left, or the 64-bit result of single rounding beyond int32,
    or a saturated shift (single rounding above 2^30)."""
    if p["op"] != "mul":
        return False
    prod = np.abs((x.astype(np.int64) - p["zx"]) * (y.astype(np.int64) - p["zy"]))
    top = int(prod.max()) if prod.size else 0
    if p["real_out"] >= 2.0 ** 30:
        return True
    return top * max(p["real_out"], 2.0 ** max(p["out_shift"], 0)) >= 2.0 ** 30


def check_random(tap, rng):
    nrng = np.random.default_rng(rng.randrange(1 << 30))
    accepted = refusals = mul_big = wrapped = approx_checked = 0
    reasons = {}
    bad = []
    tries = 0
    while accepted < RANDOM_SETS and tries < 20 * RANDOM_SETS:
        tries += 1
        op = rng.choice(q.OPS)
        dtype = rng.choice(("int8", "int16"))
        rounding = rng.choice(q.ROUNDINGS)
        activation = rng.choice(q.ACTIVATIONS)
        lo, hi = q.DTYPES[dtype][1:3]
        zp = (lambda: rng.randint(lo, hi)) if dtype == "int8" else \
             (lambda: 0 if rng.random() < 0.95 else rng.randint(lo, hi))
        quant = {t: (random_scale(rng), zp()) for t in ("x", "y", "out")}
        if op == "mul" and rng.random() < 0.25:
            # a large multiplier, 2^0 .. 2^40: shifts up to 30 and beyond
            sx, sy = (float(q.float32(quant[t][0])) for t in ("x", "y"))
            quant["out"] = ("%.6g" % (sx * sy / 2 ** rng.uniform(0, 40)), quant["out"][1])
        want_refused = expected_refusal(op, dtype, quant, activation, rounding)
        try:
            p = q.params(op, dtype, quant, activation, rounding)
        except q.Refused as e:
            refusals += 1
            key = str(e).split(":")[0].split(" ")[0:2]
            reasons[" ".join(key)] = reasons.get(" ".join(key), 0) + 1
            if not want_refused:
                bad.append("%s %s %s %s: refused (%s), expected accepted"
                           % (op, dtype, quant, rounding, e))
            continue
        accepted += 1
        if want_refused:
            bad.append("%s %s %s %s: accepted, expected refused" % (op, dtype, quant, rounding))
        if op == "mul" and p["out_shift"] > 0:
            mul_big += 1
        nptype = q.DTYPES[dtype][0]
        xs, ys = random_shapes(rng)
        x = random_values(rng, nrng, xs, nptype)
        y = random_values(rng, nrng, ys, nptype)
        what = "%s %s %s %s %s, shapes %s %s" % (op, dtype, quant, activation, rounding, xs, ys)
        out = q.compute(p, x, y)
        shape = np.broadcast_shapes(xs, ys)
        if out.shape != shape or out.dtype != nptype:
            bad.append("%s: result %s %s" % (what, out.shape, out.dtype))
            continue
        if not q.DTYPES[dtype][1] <= p["lo"] <= p["hi"] <= q.DTYPES[dtype][2]:
            bad.append("%s: clamp (%d, %d)" % (what, p["lo"], p["hi"]))
        if out.size and (out.min() < p["lo"] or out.max() > p["hi"]):
            bad.append("%s: values outside (%d, %d)" % (what, p["lo"], p["hi"]))
        bx, by = (np.broadcast_to(v, shape).copy() for v in (x, y))
        scalar = np.array([q.element(p, a, b) for a, b in zip(bx.reshape(-1).tolist(),
                                                             by.reshape(-1).tolist())],
                          dtype=np.int64).reshape(shape)
        if not np.array_equal(out, scalar):
            bad.append("%s: compute and element differ" % what)
        flat = q.compute(p, bx.reshape(-1), by.reshape(-1)).reshape(shape)
        if not np.array_equal(out, flat):
            bad.append("%s: the broadcast result differs from the elementwise one" % what)
        bx64, by64 = bx.astype(np.int64), by.astype(np.int64)
        if may_wrap(p, bx64, by64):
            wrapped += 1
        elif out.size:
            approx_checked += 1
            real = np.clip(real_result(p, bx64, by64), p["lo"], p["hi"])
            far = np.abs(out.astype(np.float64) - real)
            if far.max() > tolerance(p):
                i = np.unravel_index(int(np.argmax(far)), shape)
                bad.append("%s: element %s = %d, the real result %.6f, more than %.3f away"
                           % (what, i, out[i], real[i], tolerance(p)))
    tap.comment("random sets: %d accepted (%d MUL with a shift > 0, %d that may wrap), "
                "%d refused %s; %d checked against the real result"
                % (accepted, mul_big, wrapped, refusals, sorted(reasons.items()), approx_checked))
    if accepted < RANDOM_SETS:
        bad.append("only %d sets accepted in %d tries" % (accepted, tries))
    if mul_big < 10:
        bad.append("only %d MUL sets with a multiplier of 1 or more" % mul_big)
    tap.ok(not bad, "%d random parameter sets on random broadcast shapes: compute is "
           "element, in the clamp, the same broadcast or not, near the real result; "
           "refusals as expected" % RANDOM_SETS, bad)


def main():
    tap = Tap()
    rng = random.Random(int(os.environ.get("QUANT_SEED", "7001")))
    tmp = tempfile.mkdtemp(prefix="bcastgen-quant.")
    try:
        check_gemmlowp(tap, tmp, rng)
        check_quantize_multiplier(tap)
        check_float32(tap)
        check_roundings(tap)
        check_sub_float32(tap)
        check_activation(tap)
        check_mul_large(tap)
        check_refusals(tap)
        check_random(tap, rng)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
