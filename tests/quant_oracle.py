"""quant_oracle.py: TFLM's reference int8/int16 ADD, SUB and MUL, bit for bit.

The oracle for bcastgen's quantized kernels: what TensorFlow Lite Micro's
reference integer kernels compute, written from its sources (the
functions named below) and checked against gemmlowp's fixedpoint.h by
tests/t700-quant-oracle.t. Python ints stand for C's int32_t and
int64_t: every place where C would wrap, the oracle wraps (wrap32).

Scales are float32, as a .tflite stores them (float32(text) rounds a
decimal once, to nearest, ties to even); zero points are ints.

Quantized multipliers (quantization_util.cc, QuantizeMultiplier): a real
multiplier q > 0 is q = f * 2^shift with f in [0.5, 1) (frexp); m =
round(f * 2^31), halves away from zero (TfLiteRound, std::round); m =
2^31 becomes 2^30 with shift + 1; a shift below -31 flushes to m = 0,
shift = 0; under single rounding a shift above 30 saturates to m = 2^31
- 1, shift = 30. QuantizeMultiplierSmallerThanOneExp (ADD, SUB) aborts
unless 0 < q < 1 and the resulting shift is <= 0 (q >= 1 - 2^-32 rounds
to 1): the oracle raises Refused.

MultiplyByQuantizedMultiplier, MBQM(x, m, shift), with TFLITE_SINGLE_ROUNDING
(common.cc; MultiplyByQuantizedMultiplierSmallerThanOneExp in common.h is
the same with shift <= 0):
  double (the default): v = x * 2^max(shift, 0), wrapped to int32 (C's
    x * (1 << shift)); h = SRDHM(v, m); RDBPOT(h, max(-shift, 0)).
    SRDHM(a, b) (gemmlowp SaturatingRoundingDoublingHighMul): a*b in 64
    bits, plus 2^30 if a*b >= 0 else 1 - 2^30, divided by 2^31 with C's
    truncating '/': that is floor(a*b / 2^31 + 1/2), halves rounded up;
    a = b = INT32_MIN saturates to INT32_MAX.
    RDBPOT(x, e) (gemmlowp RoundingDivideByPOT): x / 2^e rounded to
    nearest, halves away from zero, 0 <= e <= 31.
    A shift above 30 is undefined in C (1 << shift): params refuses it.
  single: (x * m + 2^(30 - shift)) >> (31 - shift) in 64 bits (halves
    rounded up, once), cast to int32 (wrapped, as a release build does),
    for -31 <= shift <= 30 (QuantizeMultiplier saturates to that).

ADD and SUB (add_common.cc CalculateOpDataAdd, sub_common.cc
CalculateOpDataSub; integer_ops/add.h AddFunc, reference/add.h
AddElementwise for int16, reference/sub.h SubElementwise and
BroadcastQuantSubSlow), per element:
  a = MBQM((x - zx) * 2^L, m1, e1), b = MBQM((y - zy) * 2^L, m2, e2),
  out = clamp(MBQM(a +- b, mo, eo) + zo, lo, hi), L = 20 (int8), 15 (int16);
  twice = 2 * max(sx, sy); m1,e1 from sx / twice; m2,e2 from sy / twice;
  mo,eo from twice / (2^L * so). ADD computes these in double (the
  float32 scales widened); SUB in float32 (twice_max_input_scale and each
  division are float, widened to double only for QuantizeMultiplier), so
  its multipliers differ from ADD's for the same scales.
MUL (mul_common.cc CalculateOpDataMul; integer_ops/mul.h MulElementwise,
BroadcastMul6DSlow): out = clamp(zo + MBQM((x - zx) * (y - zy), m, e),
lo, hi), m, e from sx * sy / so in double (QuantizeMultiplier: the
multiplier may be 1 or more, the shift positive).

Activation range (kernel_util.cc CalculateActivationRangeQuantized and
Quantize): the dtype's range, narrowed by relu to max(qmin, zo +
round(0 / so)), by relu6 also to min(qmax, zo + round(6 / so)), by
relu_n1_to_1 to zo + round(-1 / so) .. zo + round(1 / so); each f / so
divided in float32 and rounded by std::round on the float (halves away
from zero). TFLM refuses a bound that leaves int32 (TF_LITE_ENSURE).

int16 needs every zero point 0 (mul_common.cc; ADD and SUB are refused
here too, by this project's choice). Broadcasting is NumPy's rule; each
element depends on its two inputs only.

Read from tflite-micro 90b983c2b3f1 (2026-08) and gemmlowp's fixedpoint.h
(Debian's libgemmlowp-dev, 0.0~git20211220.e844ffd). Not modelled: a
TFLITE_EMULATE_FLOAT build, whose IntegerFrExp rounds the fraction's
halves down, not away from zero.

API: float32(text); quantize_multiplier(q, rounding); srdhm(a, b);
rounding_divide_by_pot(x, exp); mbqm(x, m, shift, rounding), on ints or
int64 NumPy arrays; params(op, dtype, quant, activation, rounding) -> dict
or Refused; compute(params, x, y) (NumPy, broadcast) and element(params,
x, y) (one element, Python ints: an independent path).
"""
import fractions
import math

import numpy as np

INT32_MIN = -(1 << 31)
INT32_MAX = (1 << 31) - 1

# dtype name: NumPy type, range, TFLM's left shift L for ADD and SUB
DTYPES = {
    "int8": (np.int8, -128, 127, 20),
    "int16": (np.int16, -32768, 32767, 15),
}
OPS = ("add", "sub", "mul")
ACTIVATIONS = ("none", "relu", "relu6", "relu_n1_to_1")
ROUNDINGS = ("double", "single")


class Refused(Exception):
    """TFLM refuses these parameters (its Prepare fails or aborts, or the
    kernel would be undefined); str() is the reason."""


def float32(text):
    """TEXT (a decimal string, or a number) rounded once to the nearest
    float32, ties to even, as a model stores a scale: a np.float32.
    Raises ValueError unless the result is finite and positive."""
    if isinstance(text, (np.floating, float)):
        exact = fractions.Fraction(float(text))
    else:
        try:
            exact = fractions.Fraction(str(text).strip())
        except (ValueError, ZeroDivisionError):
            raise ValueError("scale %r is not a finite decimal number" % (text,))
    if exact <= 0:
        raise ValueError("scale %r is not positive" % (text,))
    with np.errstate(over="ignore"):
        guess = np.float32(float(exact))
    best = None
    for c in (np.nextafter(guess, np.float32(0)), guess,
              np.nextafter(guess, np.float32(np.inf))):
        if not np.isfinite(c):
            continue
        d = abs(fractions.Fraction(float(c)) - exact)
        even = int(np.array(c).view(np.uint32)) & 1 == 0
        if best is None or d < best[0] or (d == best[0] and even):
            best = (d, c)
    # beyond FLT_MAX by half an ulp or more rounds to infinity
    top = np.finfo(np.float32).max
    half_ulp = fractions.Fraction(float(top) - float(np.nextafter(top, np.float32(0)))) / 2
    if best is None or exact >= fractions.Fraction(float(top)) + half_ulp:
        raise ValueError("scale %r is not finite as a float32" % (text,))
    if best[1] == 0:
        raise ValueError("scale %r rounds to 0 as a float32" % (text,))
    return np.float32(best[1])


def _round_away(v):
    """A double rounded to the nearest integer, halves away from zero
    (std::round), exactly, as a Python int."""
    a = abs(v)
    f = math.floor(a)
    if a - f >= 0.5:            # exact: a - floor(a) is a double's fraction
        f += 1
    return -f if v < 0 else f


def quantize_multiplier(q, rounding="double"):
    """TFLM's QuantizeMultiplier: the real multiplier Q (a double) as
    (m, shift) with q ~ m * 2^(shift - 31), m an int32. ROUNDING
    ("double" or "single") is TFLITE_SINGLE_ROUNDING's choice: single
    saturates a shift above 30."""
    if rounding not in ROUNDINGS:
        raise ValueError("rounding %r is not one of %s" % (rounding, ", ".join(ROUNDINGS)))
    q = float(q)
    if not math.isfinite(q):
        raise ValueError("multiplier %r is not finite" % q)
    if q == 0:
        return 0, 0
    f, shift = math.frexp(q)                # q = f * 2^shift, 0.5 <= |f| < 1
    m = _round_away(f * 2.0 ** 31)           # exact product: a power of 2
    if m == 1 << 31:
        m //= 2
        shift += 1
    if shift < -31:                          # every bit would shift out
        return 0, 0
    if rounding == "single" and shift > 30:
        return INT32_MAX, 30
    return m, shift


def wrap32(v):
    """V (an int, or an int64 array) wrapped to int32 as two's complement."""
    if isinstance(v, np.ndarray):
        return ((v.astype(np.int64) + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)
    return ((v + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


def _check_int32(name, v):
    if isinstance(v, np.ndarray):
        if v.size and (v.min() < INT32_MIN or v.max() > INT32_MAX):
            raise ValueError("%s holds values outside int32" % name)
    elif not INT32_MIN <= v <= INT32_MAX:
        raise ValueError("%s = %d is outside int32" % (name, v))


def _arg(v):
    """V as the scalar paths take it (a Python int; NumPy integer scalars
    too) or as the vectorized ones do (an int64 array)."""
    if isinstance(v, np.ndarray):
        return v.astype(np.int64)
    return int(v)


def srdhm(a, b):
    """gemmlowp's SaturatingRoundingDoublingHighMul on int32 values (ints,
    or arrays: then element by element): the high half of 2*a*b, rounded
    by a nudge of +-2^30 and C's truncating division by 2^31;
    INT32_MIN * INT32_MIN saturates to INT32_MAX."""
    a, b = _arg(a), _arg(b)
    _check_int32("a", a)
    _check_int32("b", b)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a = np.asarray(a, dtype=np.int64)
        b = np.asarray(b, dtype=np.int64)
        ab = a * b                                   # |ab| <= 2^62
        n = ab + np.where(ab >= 0, 1 << 30, 1 - (1 << 30))
        t = np.abs(n) >> 31
        t = np.where(n >= 0, t, -t)                  # C's '/' truncates
        t = np.where((a == INT32_MIN) & (b == INT32_MIN), INT32_MAX, t)
        return wrap32(t)
    if a == INT32_MIN and b == INT32_MIN:
        return INT32_MAX
    ab = a * b
    n = ab + ((1 << 30) if ab >= 0 else 1 - (1 << 30))
    t = abs(n) >> 31
    return wrap32(t if n >= 0 else -t)


def rounding_divide_by_pot(x, exp):
    """gemmlowp's RoundingDivideByPOT: int32 X divided by 2^EXP (0..31),
    rounded to nearest with halves away from zero. X may be an array,
    EXP an int or an array of the same shape."""
    x, exp = _arg(x), _arg(exp)
    _check_int32("x", x)
    if isinstance(x, np.ndarray) or isinstance(exp, np.ndarray):
        x = np.asarray(x, dtype=np.int64)
        e = np.asarray(exp, dtype=np.int64)
        if e.size and (e.min() < 0 or e.max() > 31):
            raise ValueError("exponent outside 0..31")
        q = x >> e                                   # floor
        twice_rest = (x - (q << e)) * 2              # in [0, 2^(e+1))
        unit = np.int64(1) << e
        up = (twice_rest > unit) | ((twice_rest == unit) & (x >= 0))
        return q + up.astype(np.int64)
    if not 0 <= exp <= 31:
        raise ValueError("exponent %d outside 0..31" % exp)
    q = x >> exp
    twice_rest = (x - (q << exp)) * 2
    if twice_rest > (1 << exp) or (twice_rest == (1 << exp) and x >= 0):
        q += 1
    return q


def mbqm(x, m, shift, rounding="double"):
    """TFLM's MultiplyByQuantizedMultiplier(int32 x, int32 m, int shift)
    under ROUNDING (see the module's docstring); X an int or an array.
    Raises ValueError for a shift that C would make undefined."""
    x, m, shift = _arg(x), int(m), int(shift)
    _check_int32("x", x)
    _check_int32("m", m)
    if rounding == "double":
        if shift > 30:
            raise ValueError("shift %d > 30: 1 << shift is undefined" % shift)
        if shift < -31:
            raise ValueError("shift %d < -31" % shift)
        left = shift if shift > 0 else 0
        right = -shift if shift < 0 else 0
        return rounding_divide_by_pot(srdhm(wrap32(x * (1 << left)), m), right)
    if rounding == "single":
        if not -31 <= shift <= 30 or m < 0:
            raise ValueError("single rounding needs -31 <= shift <= 30 and m >= 0")
        total = 31 - shift
        return wrap32((x * m + (1 << (total - 1))) >> total)
    raise ValueError("rounding %r is not one of %s" % (rounding, ", ".join(ROUNDINGS)))


def _smaller_than_one(what, q, rounding):
    """QuantizeMultiplierSmallerThanOneExp: its checks as Refused."""
    if not 0 < q < 1:
        raise Refused("%s multiplier %.17g is not in (0, 1): TFLM's "
                      "QuantizeMultiplierSmallerThanOneExp aborts" % (what, q))
    m, shift = quantize_multiplier(q, rounding)
    if shift > 0:
        raise Refused("%s multiplier %.17g rounds to 1 (shift %d > 0): TFLM's "
                      "QuantizeMultiplierSmallerThanOneExp aborts" % (what, q, shift))
    return m, shift


def _bound(f, so, zo):
    """kernel_util.cc Quantize: zo + round(f / so), the division in
    float32 and std::round on the float; Refused where TFLM refuses (or
    where the int conversion would be undefined)."""
    with np.errstate(over="ignore"):
        t = np.float32(f) / so
    r = _round_away(float(t)) if np.isfinite(t) else None
    if r is None or not INT32_MIN <= r <= INT32_MAX or not INT32_MIN <= zo + r <= INT32_MAX:
        raise Refused("activation bound %g / %r does not fit int32" % (f, float(so)))
    return zo + r


def activation_range(activation, so, zo, qmin, qmax):
    """CalculateActivationRangeQuantized: (lo, hi) of the clamp."""
    if activation == "none":
        return qmin, qmax
    if activation == "relu":
        return max(qmin, _bound(0.0, so, zo)), qmax
    if activation == "relu6":
        return max(qmin, _bound(0.0, so, zo)), min(qmax, _bound(6.0, so, zo))
    if activation == "relu_n1_to_1":
        return max(qmin, _bound(-1.0, so, zo)), min(qmax, _bound(1.0, so, zo))
    raise ValueError("activation %r is not one of %s" % (activation, ", ".join(ACTIVATIONS)))


def params(op, dtype, quant, activation="none", rounding="double"):
    """Every constant of the kernel OP ("add", "sub", "mul") on DTYPE
    ("int8", "int16"): QUANT maps "x", "y" and "out" to (scale, zero
    point), a scale as float32() takes it. Returns a dict: op, dtype,
    rounding, activation, qmin, qmax, lo, hi, zx, zy, zo, the scales sx,
    sy, so (np.float32), and the multipliers as (m, shift) pairs: for
    ADD and SUB left_shift, x_mult, x_shift, y_mult, y_shift, out_mult,
    out_shift; for MUL out_mult, out_shift; real_* the real multipliers
    they come from. Raises Refused where TFLM refuses, ValueError for
    arguments that are not a kernel at all."""
    if op not in OPS:
        raise ValueError("op %r is not one of %s" % (op, ", ".join(OPS)))
    if dtype not in DTYPES:
        raise ValueError("dtype %r is not one of %s" % (dtype, ", ".join(DTYPES)))
    if activation not in ACTIVATIONS:
        raise ValueError("activation %r is not one of %s" % (activation, ", ".join(ACTIVATIONS)))
    if rounding not in ROUNDINGS:
        raise ValueError("rounding %r is not one of %s" % (rounding, ", ".join(ROUNDINGS)))
    _, qmin, qmax, left_shift = DTYPES[dtype]
    p = {"op": op, "dtype": dtype, "rounding": rounding, "activation": activation,
         "qmin": qmin, "qmax": qmax}
    for t in ("x", "y", "out"):
        scale, zp = quant[t]
        if int(zp) != zp or not qmin <= zp <= qmax:
            raise ValueError("zero point %r of %s is not an %s" % (zp, t, dtype))
        if dtype == "int16" and zp != 0:
            raise Refused("int16 zero point of %s is %d: TFLM's int16 kernels need 0"
                          % (t, zp))
        p["s" + t[0]] = float32(scale)
        p["z" + t[0]] = int(zp)
    sx, sy, so = p["sx"], p["sy"], p["so"]
    if op in ("add", "sub"):
        p["left_shift"] = left_shift
        if op == "add":                      # CalculateOpDataAdd: double
            twice = 2 * float(max(sx, sy))
            reals = (float(sx) / twice, float(sy) / twice,
                     twice / ((1 << left_shift) * float(so)))
        else:                                # CalculateOpDataSub: float32
            with np.errstate(over="ignore", under="ignore"):
                twice = np.float32(2) * max(sx, sy)
                reals = (float(sx / twice), float(sy / twice),
                         float(twice / (np.float32(1 << left_shift) * so)))
        for t, real in zip(("x", "y", "out"), reals):
            p["real_" + t] = real
            p[t + "_mult"], p[t + "_shift"] = _smaller_than_one(t, real, rounding)
    else:                                    # CalculateOpDataMul
        real = float(sx) * float(sy) / float(so)
        p["real_out"] = real
        m, shift = quantize_multiplier(real, rounding)
        if shift > 30:
            raise Refused("MUL multiplier %.17g needs shift %d > 30: TFLM's 1 << shift "
                          "is undefined under double rounding" % (real, shift))
        p["out_mult"], p["out_shift"] = m, shift
    p["lo"], p["hi"] = activation_range(activation, so, p["zo"], qmin, qmax)
    return p


def compute(p, x, y):
    """The kernel of params P on NumPy arrays X and Y of P's dtype,
    broadcast by NumPy's rule: the result, an array of that dtype."""
    nptype = DTYPES[p["dtype"]][0]
    x = np.asarray(x)
    y = np.asarray(y)
    if x.dtype != nptype or y.dtype != nptype:
        raise ValueError("operands are %s and %s, not %s" % (x.dtype, y.dtype, p["dtype"]))
    x, y = np.broadcast_arrays(x, y)
    shape = x.shape
    xv = x.reshape(-1).astype(np.int64) - p["zx"]   # 1-d: 0-d stays an array
    yv = y.reshape(-1).astype(np.int64) - p["zy"]
    r = p["rounding"]
    if p["op"] == "mul":
        raw = mbqm(wrap32(xv * yv), p["out_mult"], p["out_shift"], r)
    else:
        scale = 1 << p["left_shift"]
        a = mbqm(wrap32(xv * scale), p["x_mult"], p["x_shift"], r)
        b = mbqm(wrap32(yv * scale), p["y_mult"], p["y_shift"], r)
        raw = mbqm(wrap32(a + b if p["op"] == "add" else a - b),
                   p["out_mult"], p["out_shift"], r)
    out = np.clip(wrap32(raw + p["zo"]), p["lo"], p["hi"])
    return out.astype(nptype).reshape(shape)


def element(p, x, y):
    """One element of the kernel of params P: X and Y Python ints; the
    same math as compute() through the scalar paths."""
    xv = int(x) - p["zx"]
    yv = int(y) - p["zy"]
    r = p["rounding"]
    if p["op"] == "mul":
        raw = mbqm(wrap32(xv * yv), p["out_mult"], p["out_shift"], r)
    else:
        a = mbqm(wrap32(xv << p["left_shift"]), p["x_mult"], p["x_shift"], r)
        b = mbqm(wrap32(yv << p["left_shift"]), p["y_mult"], p["y_shift"], r)
        raw = mbqm(wrap32(a + b if p["op"] == "add" else a - b),
                   p["out_mult"], p["out_shift"], r)
    return min(p["hi"], max(p["lo"], wrap32(raw + p["zo"])))
