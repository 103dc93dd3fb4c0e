#!/usr/bin/python3
"""Check runtime/bc.h, bc_math.h and bc_ref.h against NumPy; print TAP.

Run by tests/t050-runtime.t with /usr/bin/python3 (which has NumPy):
runtime_check.py GEN. GEN's op table (bcastgen --list ops) names each
op's helper; what is checked of it is keyed by the op's name, and the
first test checks that every op's helpers are checked, or says why not.

1. The headers compile without a warning under gcc and clang (C99),
   g++ and clang++ (C++11) and arm-none-eabi-gcc (Cortex-M4), in a file
   that calls every helper; bc.h and bc_ref.h leave no undefined symbol.
2. tests/runtime_check.c is built twice, with -O2 and with -O2 plus
   AddressSanitizer and UndefinedBehaviorSanitizer (any UB aborts); both
   compute every helper on inputs written here, and each result is
   compared with NumPy:
   - 8-bit integers: all 65536 (a, b) pairs; 16-bit: every a, with edge
     values crossed and random pairs; 32/64-bit: edge values crossed plus
     random pairs;
   - floats: edge values (zeros, infinities, quiet and signalling NaNs
     with payloads, subnormals, extremes) crossed plus random; compared
     bit for bit, or for the results of C library functions (pow, hypot,
     atan2, logaddexp, exp, log) within a few ULP (FLOAT_ULP) and bit for
     bit on infinite and NaN operands;
   - bc.h's exact float helpers (abs, sqrt, floor, ceil, fmod,
     floor_divide, remainder) on their own larger inputs, bit for bit:
     edge values and a million values over all exponents for the unary
     ones, 300000 pairs for the binary ones; runtime_check.c is also
     built with -DBC_PORTABLE_MATH (the portable code instead of
     instructions) and, where the CPU has it, -msse4.1 (floor, ceil);
   - conversions (bc_f32_to_T, bc_f64_to_T, bc_wrap_T) and the reference
     walker (bc_ref.h)
     against NumPy's casts and broadcast strides;
   - f16: conversions to and from f16 bit for bit against astype (all
     65536 f16s, every tie between f16s and its neighbours, NaN
     payloads, random floats and doubles, double rounding traps), a line
     at a time (bc_f16_to_f32_n, bc_f32_to_f16_n) and one at a time, in
     every build, one of them with -mf16c -mavx2 where the CPU has those
     (the line helpers then use the F16C instructions: BC_F16_HW), one
     on x86-64 without them (F16C found at run time: BC_F16_DISPATCH),
     on x86-64 one with -DBC_F16_NO_F16C (the SSE2 form: BC_F16_SSE2)
     and one with -DBC__F16_NO_CPU_F16C (the run-time check answers no:
     its SSE2 fallback), the others with -DBC_F16_PORTABLE (each
     build's form is checked); every one of the 2^32 floats to f16 the
     same in the builds of each form of the conversions (branch-free,
     with branches, SSE2, F16C, F16C found at run time); and
     each operation computed as kernels do it (convert to float, compute,
     round back) against NumPy's float16 ufuncs: every f16 against edge
     values both ways plus random pairs (in the -O2 build only: they are
     most of the work, and the sanitizers see the same helpers in the
     other checks), every f16 for unary ops.
3. bc_pow_f32 and bc_pow_f64 where an operand is a NaN (signalling ones
   too), b is +-0 or a is 1, against NumPy, in a small program built for
   the host and for the Arm firmware targets of tests/firmware (with
   newlib's libm) and run there under QEMU.
"""
import concurrent.futures
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import warnings

import numpy as np

import optable
from tap import Tap, fresh

HERE = os.path.dirname(os.path.abspath(__file__))
RUNTIME = os.path.join(os.path.dirname(HERE), "runtime")
CHECK_C = os.path.join(HERE, "runtime_check.c")

STRICT = ["-Wall", "-Wextra", "-Wpedantic", "-Wconversion",
          "-Wsign-conversion", "-Wshadow", "-Wstrict-prototypes",
          "-Wmissing-prototypes", "-Wundef", "-Werror"]
CXX_FLAGS = ["-std=c++11", "-Wall", "-Wextra", "-Wpedantic", "-Wconversion",
             "-Wsign-conversion", "-Wshadow", "-Werror"]

INTS = [  # suffix, dtype, bits
    ("i8", np.int8, 8), ("i16", np.int16, 16),
    ("i32", np.int32, 32), ("i64", np.int64, 64),
    ("u8", np.uint8, 8), ("u16", np.uint16, 16),
    ("u32", np.uint32, 32), ("u64", np.uint64, 64),
]
FLOATS = [("f32", np.float32, np.uint32), ("f64", np.float64, np.uint64)]

# What this file knows of each op's runtime helper, by the op's name. The
# helper's name (bc_HELPER_T), its operands, the dtypes it takes and
# whether it calls the C library are the generator's op table's
# (bcastgen --list ops, read by read_table), and a test checks that every
# op's helpers are checked here, or says why not.
#
# The integer helpers checked, in the order of the tests, with NumPy's
# function (None: expect_int computes the result).
INT_NUMPY = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": None,
    "floor_divide": np.floor_divide, "remainder": np.remainder, "fmod": np.fmod,
    "power": None, "left_shift": np.left_shift, "right_shift": np.right_shift,
    "maximum": np.maximum, "minimum": np.minimum, "fmax": np.fmax, "fmin": np.fmin,
    "negative": np.negative, "absolute": np.abs, "invert": np.invert,
}
# The integer helpers not checked here, and why.
INT_LEFT_OUT = dict.fromkeys(
    ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"),
    "C's comparison of the two values and no more; t300 compares the kernels "
    "that call it with NumPy")
INT_LEFT_OUT.update(dict.fromkeys(
    ("bitwise_and", "bitwise_or", "bitwise_xor"),
    "C's operator on the bits and no more; t300 compares the kernels that call "
    "it with NumPy"))
# The float helpers checked (an op that C's operator computes exactly,
# exact_infix, has none), with NumPy's function.
FLOAT_NUMPY = {
    "maximum": np.maximum, "minimum": np.minimum, "floor_divide": np.floor_divide,
    "remainder": np.remainder, "fmod": np.fmod, "power": np.power,
    "fmax": lambda a, b: simd_only(np.fmax, a, b),
    "fmin": lambda a, b: simd_only(np.fmin, a, b),
    "copysign": np.copysign, "heaviside": np.heaviside, "hypot": np.hypot,
    "arctan2": np.arctan2, "logaddexp": np.logaddexp,
    "absolute": np.absolute, "sqrt": np.sqrt, "floor": np.floor, "ceil": np.ceil,
    "exp": np.exp, "log": np.log,
}
FLOAT_LEFT_OUT = dict.fromkeys(
    ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"),
    "floats compare with C's operators: the kernels call no helper")
# bc.h's exact float helpers, checked on larger inputs of their own.
EXACT = ["absolute", "sqrt", "floor", "ceil", "fmod", "floor_divide", "remainder"]
# Float results that depend on the C library: largest difference from
# NumPy allowed, in ULP of the type.  Infinite and NaN operands and
# (logaddexp) equal ones must still give NumPy's result bit for bit...
# (NumPy's own float32 exp and log, AVX512F, are 2 ULP off the C
# library's on these inputs; its arctan2 is SVML's.)
ULP = {"power": 1, "hypot": 1, "arctan2": 2, "logaddexp": 2, "exp": 2, "log": 2}
# ... except that here a NaN result need only be a NaN: NumPy's own SIMD
# versions choose other NaNs (sign, payload) than the C library's.
ANY_NAN = ["power", "arctan2", "exp", "log"]
# f16: each op computed as the kernels do it, in float and rounded once,
# against NumPy's float16 ufunc: the ufunc, and the ULP bound or None.
F16_NUMPY = {
    "add": (np.add, None), "subtract": (np.subtract, None),
    "multiply": (np.multiply, None), "divide": (np.true_divide, None),
    "floor_divide": (np.floor_divide, None), "remainder": (np.remainder, None),
    "fmod": (np.fmod, None), "power": (np.power, 1),
    "maximum": (np.maximum, None), "minimum": (np.minimum, None),
    "fmax": (np.fmax, None), "fmin": (np.fmin, None),
    "copysign": (np.copysign, None), "heaviside": (np.heaviside, None),
    "hypot": (np.hypot, 1), "arctan2": (np.arctan2, 1), "logaddexp": (np.logaddexp, 1),
    "equal": (np.equal, None), "not_equal": (np.not_equal, None),
    "less": (np.less, None), "less_equal": (np.less_equal, None),
    "greater": (np.greater, None), "greater_equal": (np.greater_equal, None),
    "negative": (np.negative, None), "absolute": (np.absolute, None),
    "sqrt": (np.sqrt, None), "exp": (np.exp, 1), "log": (np.log, 1),
    "floor": (np.floor, None), "ceil": (np.ceil, None),
}
F16_LEFT_OUT = dict.fromkeys(
    ("logical_and", "logical_or", "logical_xor", "logical_not"),
    "a truth test of each operand, no float arithmetic")
F16_LEFT_OUT.update({"where": "a selection, no float arithmetic",
                     "copy": "a copy, no float arithmetic"})

# From the table (read_table), by helper name as the tests and
# runtime_check.c name them: the integer and float helpers checked, of
# two operands and of one; those of bc_math.h (the others are in bc.h and
# need no libm); the exact ones; the ULP bounds; the f16 operations
# (output name, NumPy's ufunc and bound); the f16 helpers of the ops
# whose f16 result is NumPy's (bc_max_f16, ...); the C operator of an op
# C computes exactly; the op of each helper.
INT_BIN, INT_UN, FLOAT_BIN, FLOAT_UN, FLOAT_MATH = [], [], [], [], []
EXACT_UN, EXACT_BIN, FLOAT_ANY_NAN = [], [], []
FLOAT_ULP = {}
F16_BIN, F16_CMP, F16_UN, F16_HELPERS = [], [], [], []
INFIX = {}
OP_OF = {}


def read_table(gen):
    """Fill the lists above from GEN's op table; return the TAP test (ok,
    name, diagnostics) that this file checks every op's helpers, or says
    why it does not."""
    ops = optable.load(gen)
    table = optable.by_name(ops)
    none = {op["name"]: "no runtime helper" for op in ops if not op["helper"]}
    ints = dict(none, **{op["name"]: "floats only" for op in ops if op["types"] == "float"})
    floats = dict(none, **{op["name"]: "integers only" for op in ops if op["types"] == "int"})
    floats.update({op["name"]: "C's operator gives NumPy's result: no float helper"
                   for op in ops if op["exact_infix"]})
    f16 = {op["name"]: "integers only" for op in ops if op["types"] == "int"}
    checks = [("the integer helpers checked here (INT_NUMPY)", INT_NUMPY,
               dict(INT_LEFT_OUT, **ints)),
              ("the float helpers checked here (FLOAT_NUMPY)", FLOAT_NUMPY,
               dict(FLOAT_LEFT_OUT, **floats)),
              ("the f16 operations checked here (F16_NUMPY)", F16_NUMPY,
               dict(F16_LEFT_OUT, **f16))]
    diags = []
    for what, known, left_out in checks:
        diags += optable.coverage(ops, what, known, left_out)[2]
    libm = sorted(op["name"] for op in ops if op["libm"])
    if sorted(ULP) != libm:
        diags.append("ULP has %s, but the ops that call the C library are %s" % (
            " ".join(sorted(ULP)), " ".join(libm)))
    for name in INT_NUMPY:
        if name in table and table[name]["helper"]:
            (INT_UN if optable.unary(table[name]) else INT_BIN).append(table[name]["helper"])
    for name in FLOAT_NUMPY:
        if name in table and table[name]["helper"]:
            (FLOAT_UN if optable.unary(table[name]) else FLOAT_BIN).append(
                table[name]["helper"])
    for name in EXACT:
        if name in table:
            (EXACT_UN if optable.unary(table[name]) else EXACT_BIN).append(
                table[name]["helper"])
    for op in ops:
        if op["helper"]:
            OP_OF.setdefault(op["helper"], op["name"])      # the first op of a helper
        if op["libm"]:
            FLOAT_MATH.append(op["helper"])
        if op["name"] in ULP:
            FLOAT_ULP[op["helper"]] = ULP[op["name"]]
        if op["name"] in ANY_NAN:
            FLOAT_ANY_NAN.append(op["helper"])
        if op["f16_exact"]:
            F16_HELPERS.append(op["helper"])
        if op["exact_infix"]:
            INFIX[op["helper"]] = op["symbol"]
    for name, (f, bound) in F16_NUMPY.items():
        op = table.get(name)
        if op is None or not op["helper"]:
            continue
        if op["kind"] == "compare":
            F16_CMP.append((op["helper"], f))
        else:
            out = op["helper"] + ("_f16" if op["f16_exact"] else "")
            (F16_UN if optable.unary(op) else F16_BIN).append((out, f, bound))
    test = ("every op of the table (bcastgen --list ops) has its integer, float "
            "and f16 helpers checked here, or the reason they are not: %d ops" % len(ops))
    return not diags, test, diags


warnings.simplefilter("ignore")
np.seterr(all="ignore")


def parallel(fn, items):
    """[fn(item) for item in items], two at a time (compilers and the
    check program are single-threaded; the machine may be shared)."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(fn, items))


def run(cmd, **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, **kw)
    return p.returncode, p.stdout


# ---------------------------------------------------------------------------
# 1. Compile checks

def use_file():
    """C source (also valid C++) that calls every helper once."""
    L = ['#include "bc.h"', '#include "bc_math.h"', '#include "bc_ref.h"', '#include "bc_f16.h"', ""]

    def fn(ret, name, params, body):
        L.append("%s use_%s(%s);" % (ret, name, params))
        L.append("%s use_%s(%s) { %s }" % (ret, name, params, body))

    for s, dt, bits in INTS:
        t = np.dtype(dt).name + "_t"
        for op in INT_BIN:
            fn(t, op + "_" + s, "%s a, %s b" % (t, t),
               "return bc_%s_%s(a, b);" % (op, s))
        for op in INT_UN:
            fn(t, op + "_" + s, "%s a" % t, "return bc_%s_%s(a);" % (op, s))
        fn(t, "f32_to_" + s, "float v", "return bc_f32_to_%s(v);" % s)
        fn(t, "f64_to_" + s, "double v", "return bc_f64_to_%s(v);" % s)
        fn(t, "wrap_" + s, "uint64_t u", "return bc_wrap_%s(u);" % s)
    for s, dt, _ in FLOATS:
        t = "float" if s == "f32" else "double"
        for op in FLOAT_BIN:
            fn(t, op + "_" + s, "%s a, %s b" % (t, t),
               "return bc_%s_%s(a, b);" % (op, s))
        for op in FLOAT_UN:
            fn(t, op + "_" + s, "%s a" % t, "return bc_%s_%s(a);" % (op, s))
    fn("float", "f16_to_f32", "bc_f16 h", "return bc_f16_to_f32(h);")
    fn("bc_f16", "f32_to_f16", "float f", "return bc_f32_to_f16(f);")
    fn("bc_f16", "f64_to_f16", "double d", "return bc_f64_to_f16(d);")
    fn("float", "round_f16", "float f", "return bc_round_f16(f);")
    for op in F16_HELPERS:
        fn("float", op + "_f16", "float a, float b",
           "return bc_%s_f16(a, b);" % op)
    fn("void", "add_f16", "bc_f16 *o, const bc_f16 *a, "
       "const bc_f16 *b, int n",
       "int i; for (i = 0; i < n; i++) "
       "o[i] = bc_f32_to_f16(bc_f16_to_f32(a[i]) + bc_f16_to_f32(b[i]));")
    fn("void", "f16_lines", "float *f, bc_f16 *h, size_t n",
       "bc_f16_to_f32_n(f, h, n); bc_f16_to_f32_nq(f, h, n); "
       "bc_f32_to_f16_n(h, f, n); bc_f32_to_f16_nq(h, f, n);")
    L.append("static void use_visit(void *ctx, const ptrdiff_t *off)")
    L.append("{ *(ptrdiff_t *)ctx += off[0] + off[1]; }")
    fn("ptrdiff_t", "ref", "const size_t *dims, const ptrdiff_t *s0, "
       "const ptrdiff_t *s1",
       "struct bc_ref_operand ops[2]; size_t idx[3]; ptrdiff_t off[2]; "
       "ptrdiff_t sum = 0; ops[0].data = 0; ops[0].strides = s0; "
       "ops[1].data = 0; ops[1].strides = s1; "
       "bc_ref_walk(3, dims, 2, ops, idx, off, use_visit, &sum); "
       "return sum;")
    return "\n".join(L) + "\n"


def no_math_file():
    """Calls of bc.h and bc_ref.h only: must need no external symbol."""
    src = use_file().replace('#include "bc_math.h"\n', "")
    keep = []
    for line in src.splitlines():
        if any("use_%s_f" % op in line for op in FLOAT_MATH):
            continue
        keep.append(line)
    return "\n".join(keep) + "\n"


def freestanding_file(prec):
    """C source that calls every float helper of bc.h for one precision
    once: prec "f32" (f32 and f16 helpers, float to integer and f16
    conversions) or "f64" (f64 helpers, double to integer and f16). (The
    integer helpers are checked on Cortex-M4 in compile_checks.)"""
    L = ['#include "bc.h"', ""]

    def fn(ret, name, params, body):
        L.append("%s use_%s(%s);" % (ret, name, params))
        L.append("%s use_%s(%s) { %s }" % (ret, name, params, body))

    s, t = prec, "float" if prec == "f32" else "double"
    for op in FLOAT_BIN:
        if op not in FLOAT_MATH:
            fn(t, op, "%s a, %s b" % (t, t), "return bc_%s_%s(a, b);" % (op, s))
    for op in FLOAT_UN:
        if op not in FLOAT_MATH:
            fn(t, op, "%s a" % t, "return bc_%s_%s(a);" % (op, s))
    for op in ("eq", "lt", "ge"):
        sym = {"eq": "==", "lt": "<", "ge": ">="}[op]
        fn("uint8_t", op, "%s a, %s b" % (t, t),
           "return (uint8_t)(a %s b);" % sym)
    for i, dt, _ in INTS:
        it = np.dtype(dt).name + "_t"
        fn(it, "to_" + i, "%s v" % t, "return bc_%s_to_%s(v);" % (s, i))
    fn("bc_f16", "to_f16", "%s v" % t, "return bc_%s_to_f16(v);" % s)
    if prec == "f32":
        fn("float", "f16_to_f32", "bc_f16 h", "return bc_f16_to_f32(h);")
        fn("float", "round_f16", "float f", "return bc_round_f16(f);")
        for op in F16_HELPERS:
            fn("float", op + "_f16", "float a, float b",
               "return bc_%s_f16(a, b);" % op)
        fn("bc_f16", "sqrt_f16", "bc_f16 h",
           "return bc_f32_to_f16(bc_sqrt_f32(bc_f16_to_f32(h)));")
    return "\n".join(L) + "\n"


# The four firmware targets: name, compiler and flags (the Cortex-M4F's
# with IEEE __fp16, so bc.h's f16 conversions are the FPU's VCVTB).
TARGETS = [
    ("Cortex-M4F", "arm-none-eabi-gcc",
     ["-mcpu=cortex-m4", "-mfpu=fpv4-sp-d16", "-mfloat-abi=hard", "-mthumb",
      "-mfp16-format=ieee"]),
    ("Cortex-M0", "arm-none-eabi-gcc", ["-mcpu=cortex-m0", "-mthumb"]),
    ("rv32imac", "riscv64-unknown-elf-gcc", ["-march=rv32imac", "-mabi=ilp32"]),
    ("rv32imafc", "riscv64-unknown-elf-gcc",
     ["-march=rv32imafc", "-mabi=ilp32f"]),
]
FREESTANDING = ["-std=c99", "-ffreestanding", "-Wall", "-Wextra",
                "-Wconversion", "-Wdouble-promotion", "-Werror"]
# libgcc's helpers (soft float, 64-bit integers, bit counts), by name.
LIBGCC = re.compile(
    r"^__(aeabi_\w+|(add|sub|mul|div|neg|eq|ne|lt|le|gt|ge|unord|cmp)[sd]f[23]"
    r"|fix(uns)?[sd]f[sd]i|float(un)?[sd]i[sd]f|extendsfdf2|truncdfsf2"
    r"|(ashl|ashr|lshr)di3|u?(div|mod)[sd]i3|u?divmod[sd]i4"
    r"|(clz|ctz|popcount|ffs|bswap)[sd]i2|u?cmpdi2|mul[sd]i3)$")
# Those of them that compute in or convert to double.
DOUBLE_HELPER = re.compile(r"^__(aeabi_(d\w+|\w+2d)|\w*df\w*)$")


def referenced_symbols(cc, obj):
    """The symbols OBJ needs from elsewhere: nm's undefined ones and any
    relocation's symbol that the object does not define. (list or None,
    the tools' output)"""
    prefix = cc[:-len("gcc")]
    rc, out = run([prefix + "nm", obj])
    if rc != 0:
        return None, out
    defined, need = set(), set()
    for line in out.splitlines():
        w = line.split()
        if len(w) == 2 and w[0] == "U":
            need.add(w[1])
        elif len(w) == 3:
            defined.add(w[2])
    rc, rel = run([prefix + "objdump", "-r", obj])
    if rc != 0:
        return None, rel
    for line in rel.splitlines():
        w = line.split()
        if len(w) == 3 and re.match(r"^[0-9a-f]+$", w[0]):
            sym = re.split(r"[+-]0x", w[2])[0]
            if sym and sym[0] not in ".*" and sym not in defined:
                need.add(sym)
    return sorted(need), out + rel


def freestanding_checks(tap, tmp):
    """bc.h alone builds for each firmware target at -O0, -Os and -O2
    with strict warnings and -ffreestanding, and its objects need nothing
    but libgcc: no libm, no libc (memcpy, ...), and no double helpers in
    the f32 one."""
    inc = ["-I" + RUNTIME]
    files = {}
    for prec in ("f32", "f64"):
        files[prec] = os.path.join(tmp, "fs_%s.c" % prec)
        with open(files[prec], "w") as f:
            f.write(freestanding_file(prec))
    jobs, present = [], []
    for tname, cc, flags in TARGETS:
        ok = (shutil.which(cc) and shutil.which(cc[:-3] + "nm") and
              shutil.which(cc[:-3] + "objdump"))
        present.append(ok)
        if ok:
            for opt in ("-O0", "-Os", "-O2"):
                for prec in ("f32", "f64"):
                    obj = os.path.join(tmp, "fs_%s_%s%s.o" % (
                        tname, prec, opt))
                    jobs.append((tname, cc, flags, opt, prec, obj))

    def build(job):
        tname, cc, flags, opt, prec, obj = job
        cmd = [cc] + flags + FREESTANDING + [opt] + inc + \
            ["-c", files[prec], "-o", obj]
        rc, out = run(cmd)
        syms, tools = (referenced_symbols(cc, obj) if rc == 0
                       else (None, ""))
        return cmd, rc, out, syms, tools
    results = dict(zip([j[-1] for j in jobs], parallel(build, jobs)))

    for (tname, cc, flags), ok in zip(TARGETS, present):
        if not ok:
            tap.skip("bc.h alone, freestanding on %s (%s)"
                     % (tname, " ".join(flags)), "%s not installed" % cc)
            continue
        used = set()
        for job in jobs:
            if job[0] != tname:
                continue
            _, _, _, opt, prec, obj = job
            cmd, rc, out, syms, tools = results[obj]
            what = "%s helpers of bc.h build freestanding, strict, " \
                "for %s %s" % (prec, tname, opt)
            if not tap.ok(rc == 0 and out.strip() == "", what,
                          [" ".join(cmd), out]):
                continue
            bad = [x for x in (syms or []) if not LIBGCC.match(x)]
            if prec == "f32":
                bad += [x for x in (syms or []) if DOUBLE_HELPER.match(x)]
            used.update(syms or [])
            tap.ok(syms is not None and not bad,
                   "%s helpers of bc.h on %s %s need only libgcc%s" % (
                       prec, tname, opt,
                       ", and no double helper" if prec == "f32" else ""),
                   ["not libgcc%s: %s" % (
                       " or a double helper" if prec == "f32" else "",
                       " ".join(bad)),
                    " ".join(cmd)] if syms is not None else [tools])
        tap.comment("%s: libgcc helpers used: %s" % (
            tname, " ".join(sorted(used)) or "none"))


def undefined_symbols(nm, obj):
    rc, out = run([nm, "-u", obj])
    if rc != 0:
        return None, out
    syms = [l.split()[-1] for l in out.splitlines() if l.strip()]
    return syms, out


def compile_checks(tap, tmp):
    src = os.path.join(tmp, "use.c")
    with open(src, "w") as f:
        f.write(use_file())
    src_cc = os.path.join(tmp, "use.cc")
    shutil.copy(src, src_cc)
    nomath = os.path.join(tmp, "nomath.c")
    with open(nomath, "w") as f:
        f.write(no_math_file())
    inc = ["-I" + RUNTIME]
    cases = [
        ("gcc", "gcc C99 strict", ["-std=c99"] + STRICT + ["-O2"], src),
        ("clang", "clang C99 strict", ["-std=c99"] + STRICT + ["-O2"], src),
        ("g++", "g++ C++11", CXX_FLAGS + ["-O2"], src_cc),
        ("clang++", "clang++ C++11", CXX_FLAGS + ["-O2"], src_cc),
    ]
    # on x86-64 the cases above have the line helpers' run-time check and
    # its SSE2 fallback (bc_f16.h); these the SSE2 form alone
    if platform.machine() == "x86_64":
        cases += [
            ("gcc", "gcc C99 strict -DBC_F16_NO_F16C",
             ["-std=c99"] + STRICT + ["-O2", "-DBC_F16_NO_F16C"], src),
            ("clang++", "clang++ C++11 -DBC_F16_NO_F16C",
             CXX_FLAGS + ["-O2", "-DBC_F16_NO_F16C"], src_cc),
        ]
    cases += [
        ("arm-none-eabi-gcc", "arm-none-eabi-gcc C99 strict, Cortex-M4 -Os",
         ["-std=c99"] + STRICT + ["-mcpu=cortex-m4", "-mthumb", "-Os"], src),
    ]
    def build(case):
        cc, name, flags, file = case
        if not shutil.which(cc):
            return None
        obj = os.path.join(fresh(tmp), "use.o")
        cmd = [cc] + flags + inc + ["-c", file, "-o", obj]
        return cmd, run(cmd)
    for (cc, name, _, _), res in zip(cases, parallel(build, cases)):
        if res is None:
            tap.skip("headers compile warning-free: " + name,
                     "%s not installed" % cc)
            continue
        cmd, (rc, out) = res
        tap.ok(rc == 0 and out.strip() == "",
               "headers compile warning-free: " + name,
               [" ".join(cmd), out])

    # No hidden calls (memcpy, memset, ...): bc.h and bc_ref.h use nothing,
    # not even at -O0 or with -ffreestanding (where a memcpy for the bit
    # casts would stay a call).
    for opt in (["-O0", "-ffreestanding"], ["-O2"], ["-O2", "-ffreestanding"]):
        obj = os.path.join(fresh(tmp), "nomath.o")
        cmd = ["gcc", "-std=c99"] + opt + inc + ["-c", nomath, "-o", obj]
        rc, out = run(cmd)
        syms, nmout = undefined_symbols("nm", obj) if rc == 0 else (None, out)
        tap.ok(syms == [], "bc.h and bc_ref.h call nothing external (gcc %s)"
               % " ".join(opt), [" ".join(cmd), nmout])
    for opt in (["-O0", "-ffreestanding"], ["-Os"]):
        name = ("bc.h and bc_ref.h call only libgcc helpers on Cortex-M4 (%s)"
                % " ".join(opt))
        if not (shutil.which("arm-none-eabi-gcc") and
                shutil.which("arm-none-eabi-nm")):
            tap.skip(name, "arm-none-eabi-gcc not installed")
            continue
        obj = os.path.join(fresh(tmp), "nomath.o")
        cmd = (["arm-none-eabi-gcc", "-std=c99", "-mcpu=cortex-m4",
                "-mthumb"] + opt + inc + ["-c", nomath, "-o", obj])
        rc, out = run(cmd)
        syms, nmout = (undefined_symbols("arm-none-eabi-nm", obj)
                       if rc == 0 else (None, out))
        # 64-bit division and soft float are libgcc's business.
        other = [s for s in (syms or []) if not s.startswith("__aeabi_")]
        tap.ok(syms is not None and not other, name, [" ".join(cmd), nmout])
        if syms:
            tap.comment("Cortex-M4 %s libgcc helpers used: %s"
                        % (" ".join(opt), " ".join(syms)))


# ---------------------------------------------------------------------------
# 2. Inputs

def wrap_to(vals, dt):
    """Python ints to dtype, modulo 2^bits."""
    return np.array([v % 2 ** 64 for v in vals], dtype=np.uint64).astype(dt)


def int_inputs(dt, bits, rng):
    info = np.iinfo(dt)
    if bits == 8:
        r = np.arange(info.min, info.max + 1, dtype=np.int64)
        a = np.repeat(r, r.size).astype(dt)
        b = np.tile(r, r.size).astype(dt)
        return a, b, "all 65536 pairs"
    edges = [0, 1, -1, 2, -2, 3, -3, 5, -5, 7, -7, 10, -10, 100, -100,
             bits - 1, bits, bits + 1, -(bits - 1), -bits, -(bits + 1),
             info.min, info.min + 1, info.min + 2, info.max, info.max - 1,
             info.max - 2, info.min // 2, info.max // 2, info.max // 2 + 1,
             info.max // 3, 2 ** (bits // 2), 2 ** (bits // 2) - 1,
             0x55, 0x5555 & int(info.max)]
    e = np.unique(wrap_to(edges, dt))
    parts_a = [np.repeat(e, e.size)]
    parts_b = [np.tile(e, e.size)]
    lo, hi = int(info.min), int(info.max)
    n = 20000
    # fully random pairs
    parts_a.append(rng.integers(lo, hi, size=n, endpoint=True, dtype=dt))
    parts_b.append(rng.integers(lo, hi, size=n, endpoint=True, dtype=dt))
    # random a with small b (shift counts, exponents, small divisors)
    parts_a.append(rng.integers(lo, hi, size=n // 2, endpoint=True, dtype=dt))
    parts_b.append(rng.integers(max(lo, -bits - 2), bits + 2, size=n // 2,
                                endpoint=True, dtype=dt))
    # both small
    parts_a.append(rng.integers(max(lo, -40), 40, size=n // 2,
                                endpoint=True, dtype=dt))
    parts_b.append(rng.integers(max(lo, -40), 40, size=n // 2,
                                endpoint=True, dtype=dt))
    what = "%d edge pairs + %d random" % (e.size ** 2, 2 * n)
    if bits == 16:
        # every a, against random b and against the edge values
        all_a = np.arange(lo, hi + 1, dtype=np.int64).astype(dt)
        parts_a.append(all_a)
        parts_b.append(rng.integers(lo, hi, size=all_a.size, endpoint=True,
                                    dtype=dt))
        parts_a.append(np.repeat(all_a, e.size))
        parts_b.append(np.tile(e, all_a.size))
        what += " + every a against random b and the edges"
    return np.concatenate(parts_a), np.concatenate(parts_b), what


def float_edges(dt):
    fi = np.finfo(dt)
    ui = np.uint32 if dt == np.float32 else np.uint64
    tiny_sub = np.array([1], ui).view(dt)[0]
    big_sub = (np.array([fi.tiny], dt).view(ui) - ui(1)).view(dt)[0]
    vals = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.0, -2.0, 3.0, -3.0,
            7.0, -7.0, 0.1, -0.1, 2.5, -2.5, 1e30, -1e30, 1e-30, -1e-30,
            np.inf, -np.inf, fi.tiny, -fi.tiny, tiny_sub, -tiny_sub,
            big_sub, -big_sub, fi.max, -fi.max, 16777216.0, 16777217.0,
            2.0 ** 53, 2.0 ** 53 + 1, 1e300, 0.3, -0.7, 1e10, -1e10]
    v = np.array(vals, dtype=dt)
    nan = np.array([np.nan], dt).view(ui)[0]
    sign = ui(1) << ui(8 * np.dtype(dt).itemsize - 1)
    # quiet NaNs with payloads, and signalling ones (the quiet bit, the
    # top bit of the significand, clear; a payload to keep them NaNs)
    quiet = ui(1) << ui(fi.nmant - 1)
    snan = (nan & ~quiet) | ui(1)
    nans = np.array([nan, nan | sign, nan | ui(5), nan | sign | ui(0x1234),
                     snan, snan | sign | ui(0x22)], ui).view(dt)
    return np.unique(np.concatenate([v, nans]).view(ui)).view(dt)


def float_inputs(dt, ui, rng):
    e = float_edges(dt)
    a = [np.repeat(e, e.size)]
    b = [np.tile(e, e.size)]
    n = 10000
    bits = 8 * np.dtype(dt).itemsize
    # random bit patterns: any sign, exponent, payload
    a.append(rng.integers(0, 2 ** bits - 1, size=n, endpoint=True,
                          dtype=ui).view(dt))
    b.append(rng.integers(0, 2 ** bits - 1, size=n, endpoint=True,
                          dtype=ui).view(dt))
    # moderate values: small integers and ratios, where divmod rounds
    for _ in range(2):
        a.append((rng.integers(-1000, 1000, size=n) /
                  rng.choice([1, 2, 3, 4, 7, 10, 1000], size=n)).astype(dt))
        b.append((rng.integers(-100, 100, size=n) /
                  rng.choice([1, 2, 3, 4, 7, 10], size=n)).astype(dt))
    # random magnitudes over the whole exponent range
    m = np.exp(rng.uniform(-700 if dt == np.float64 else -85,
                           700 if dt == np.float64 else 85, size=(2, n)))
    s = rng.choice([-1.0, 1.0], size=(2, n))
    a.append((m[0] * s[0]).astype(dt))
    b.append((m[1] * s[1]).astype(dt))
    # pow-friendly: a in (0, 10], b in [-40, 40]
    a.append(rng.uniform(0, 10, size=n).astype(dt))
    b.append(rng.uniform(-40, 40, size=n).astype(dt))
    return (np.concatenate(a), np.concatenate(b),
            "%d edge pairs + %d random" % (e.size ** 2, 6 * n))


def f2_inputs(rng):
    vals = [0.0, -0.0, 0.5, -0.5, 0.999, -0.999, 1.0, -1.0, 1.5, -1.5,
            np.nan, -np.nan, np.inf, -np.inf, 1e300, -1e300, 5e-324]
    for _, dt, bits in INTS:
        info = np.iinfo(dt)
        for x in (int(info.min), int(info.max)):
            for d in (-1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5):
                vals.append(float(x) + d)
            f = float(x)
            vals += [np.nextafter(f, np.inf), np.nextafter(f, -np.inf)]
    for k in range(66):
        for s in (1.0, -1.0):
            f = s * 2.0 ** k
            vals += [f, np.nextafter(f, np.inf), np.nextafter(f, -np.inf)]
    v = np.array(vals, dtype=np.float64)
    r1 = rng.uniform(-300, 300, size=4000)
    r2 = np.exp(rng.uniform(0, 46, size=4000)) * rng.choice([-1.0, 1.0],
                                                            size=4000)
    r3 = rng.integers(0, 2 ** 64 - 1, size=2000, endpoint=True,
                      dtype=np.uint64).view(np.float64)
    return np.concatenate([v, r1, r2, r3])


def f2f_inputs(f2):
    """Floats for bc_f32_to_T: the doubles of f2_inputs rounded to float,
    and around each integer type's limits the floats next to them."""
    vals = [f2.astype(np.float32)]
    for _, dt, bits in INTS:
        info = np.iinfo(dt)
        for x in (int(info.min), int(info.max), int(info.min) - 1,
                  int(info.max) + 1):
            f = np.float32(x)
            vals.append(np.array([f, np.nextafter(f, np.float32(np.inf)),
                                  np.nextafter(f, np.float32(-np.inf))],
                                 np.float32))
    return np.concatenate(vals)


def exact_edges(dt, ui):
    """float_edges and, for floor, ceil and sqrt: integers and halves
    next to 2^(MB - 1), 2^MB and 2^(MB + 1) (MB = 23 or 52 stored
    significand bits), every NaN kind, the extremes of each range."""
    mb = np.finfo(dt).nmant
    vals = []
    for k in (mb - 1, mb, mb + 1):
        for d in (-2.5, -2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2, 2.5):
            vals += [2.0 ** k + d, -(2.0 ** k + d)]
    for x in (0.25, 0.75, 0.999, 1.0001, 4.0, 9.0, 2.0, 0.5, 1e-40,
              1e-300, 1e-310):
        vals += [x, -x]
    bits = 8 * np.dtype(dt).itemsize
    inf = np.array([np.inf], dt).view(ui)[0]
    sign = ui(1) << ui(bits - 1)
    quiet = ui(1) << ui(mb - 1)
    raw = []
    for payload in (ui(1), quiet, quiet | ui(1), quiet - ui(1),
                    (quiet << ui(1)) - ui(1)):
        raw += [inf | payload, inf | payload | sign]
    raw += [ui(1), ui(2), ui(3), (ui(1) << ui(mb)) - ui(1),
            ui(1) << ui(mb), (ui(1) << ui(mb)) + ui(1), inf - ui(1)]
    raw += [r | sign for r in raw]
    v = np.concatenate([float_edges(dt), np.array(vals, dtype=dt),
                        np.array(raw, ui).view(dt)])
    return np.unique(v.view(ui)).view(dt)


def exact_inputs(dt, ui, rng):
    """Inputs of bc.h's exact helpers: (u, what) for the unary ones, every
    edge value and a million values: half random bit patterns (every
    exponent, NaNs and subnormals included), half of magnitude 2^-3 to
    2^(MB + 3) with random significands; and (xa, xb, what) for fmod,
    floor_divide and remainder: the edges crossed, and random pairs of
    random bit patterns, of exponents up to 40 apart either way (where
    floor_divide's rounding matters) and of small ratios."""
    e = exact_edges(dt, ui)
    bits = 8 * np.dtype(dt).itemsize
    mb = np.finfo(dt).nmant
    bias = np.finfo(dt).maxexp - 1

    def rbits(n):
        return rng.integers(0, 2 ** bits - 1, size=n, endpoint=True,
                            dtype=ui)

    def with_exp(exps):
        n = exps.size
        sig = rbits(n) & ui((1 << mb) - 1)
        sgn = rbits(n) & (ui(1) << ui(bits - 1))
        return (sgn | (exps.astype(ui) << ui(mb)) | sig).view(dt)

    n = 500000
    u = np.concatenate([e, rbits(n).view(dt),
                        with_exp(rng.integers(bias - 3, bias + mb + 3, size=n,
                                              endpoint=True))])
    uwhat = "%d edge values + %d random over all exponents" % (e.size, 2 * n)
    n = 100000
    ea = rng.integers(1, 2 * bias, size=n, endpoint=True)
    eb = np.clip(ea - rng.integers(-5, 40, size=n, endpoint=True), 1,
                 2 * bias)
    xa = [np.repeat(e, e.size), rbits(n).view(dt), with_exp(ea),
          (rng.integers(-1000, 1000, size=n) /
           rng.choice([1, 2, 3, 4, 7, 10], size=n)).astype(dt)]
    xb = [np.tile(e, e.size), rbits(n).view(dt), with_exp(eb),
          (rng.integers(-100, 100, size=n) /
           rng.choice([1, 2, 3, 4, 7, 10], size=n)).astype(dt)]
    xwhat = "%d edge pairs + %d random" % (e.size ** 2, 3 * n)
    return u, uwhat, np.concatenate(xa), np.concatenate(xb), xwhat


def wrap_inputs(rng):
    vals = [0, 1, 2 ** 64 - 1, 2 ** 63, 2 ** 63 - 1]
    for k in (7, 8, 15, 16, 31, 32, 62, 63):
        for d in (-1, 0, 1):
            vals.append((2 ** k + d) % 2 ** 64)
            vals.append((-2 ** k + d) % 2 ** 64)
    r = rng.integers(0, 2 ** 64 - 1, size=5000, endpoint=True,
                     dtype=np.uint64)
    return np.concatenate([np.array(vals, dtype=np.uint64), r])


def f16_edges():
    """f16 bit patterns at the edges: zeros, subnormals, the smallest
    normal, small integers and fractions, the largest finite, infinities,
    quiet and signalling NaNs with payloads and both signs."""
    pos = [0x0000, 0x0001, 0x03ff, 0x0400, 0x2e66, 0x3800, 0x3c00, 0x3c01,
           0x3e00, 0x4000, 0x4200, 0x6801, 0x7bff, 0x7c00]
    nans = [0x7e00, 0xfe01, 0x7c01, 0xfd55]
    return np.array(pos + [p | 0x8000 for p in pos] + nans, np.uint16)


def f16_inputs(rng):
    """Every f16 against every edge value (both ways round), and random
    pairs: (a, b, what) as uint16 bit patterns."""
    e = f16_edges()
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    n = 1 << 18
    a = [np.repeat(every, e.size), np.tile(e, every.size),
         rng.integers(0, 0xffff, size=n, endpoint=True, dtype=np.uint16)]
    b = [np.tile(e, every.size), np.repeat(every, e.size),
         rng.integers(0, 0xffff, size=n, endpoint=True, dtype=np.uint16)]
    return (np.concatenate(a), np.concatenate(b),
            "every f16 against %d edge values both ways + %d random pairs"
            % (e.size, n))


def f32_to_f16_inputs(rng):
    """Floats to round to f16: every f16 value, the ties halfway between
    neighbouring f16s and the floats next to them, the overflow threshold
    65520, NaNs with every payload bit, and random bit patterns."""
    h = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    fin = np.sort(np.unique(h[np.isfinite(h)].astype(np.float64)))
    mid = (fin[1:] + fin[:-1]) / 2            # exact in float32 (12 bits)
    mid = np.concatenate([mid, [65520.0, -65520.0, 65536.0, -65536.0]])
    mid = mid.astype(np.float32)
    near = [mid, np.nextafter(mid, np.float32(np.inf)),
            np.nextafter(mid, np.float32(-np.inf))]
    nan = []
    for k in range(23):
        for e in (0x7f800000, 0xff800000):
            nan += [e | 1 << k, e | 0x400000 | 1 << k]
    special = np.array([0x7f800000, 0xff800000, 0x7f7fffff, 0x00000001,
                        0x80000001, 0x007fffff, 0x00800000] + nan,
                       np.uint32).view(np.float32)
    n = 1 << 18
    rnd = rng.integers(0, 0xffffffff, size=n, endpoint=True,
                       dtype=np.uint32).view(np.float32)
    # random floats from 2^-27 to 2^18, random significand bits
    exp = rng.integers(100, 144, size=n, endpoint=True).astype(np.uint32)
    sig = rng.integers(0, 0x7fffff, size=n, endpoint=True, dtype=np.uint32)
    sgn = rng.integers(0, 1, size=n, endpoint=True).astype(np.uint32)
    inr = (sgn << 31 | exp << 23 | sig).view(np.float32)
    return np.concatenate([h.astype(np.float32)] + near +
                          [special, rnd, inr])


def f64_to_f16_inputs(rng):
    """Doubles to round to f16: as f32_to_f16_inputs, plus values just
    off a tie by less than half a float ULP, which round differently
    through float (the tie) than directly (double rounding traps)."""
    h = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    fin = np.sort(np.unique(h[np.isfinite(h)].astype(np.float64)))
    mid = (fin[1:] + fin[:-1]) / 2
    mid = np.concatenate([mid, [65520.0, -65520.0, 65536.0, -65536.0]])
    near = [mid, np.nextafter(mid, np.inf), np.nextafter(mid, -np.inf)]
    for k in (30, 40, 52):
        near += [mid * (1 + 2.0 ** -k), mid * (1 - 2.0 ** -k)]
    nan = []
    for k in range(52):
        for e in (0x7ff0000000000000, 0xfff0000000000000):
            nan += [e | 1 << k, e | 0x8000000000000 | 1 << k]
    special = np.array([0x7ff0000000000000, 0xfff0000000000000,
                        0x7fefffffffffffff, 1, 0x8000000000000001,
                        0x000fffffffffffff, 0x0010000000000000] + nan,
                       np.uint64).view(np.float64)
    n = 1 << 18
    rnd = rng.integers(0, 2 ** 64 - 1, size=n, endpoint=True,
                       dtype=np.uint64).view(np.float64)
    exp = rng.integers(996, 1040, size=n, endpoint=True).astype(np.uint64)
    sig = rng.integers(0, 2 ** 52 - 1, size=n, endpoint=True, dtype=np.uint64)
    sgn = rng.integers(0, 1, size=n, endpoint=True).astype(np.uint64)
    inr = (sgn << np.uint64(63) | exp << np.uint64(52) | sig).view(np.float64)
    return np.concatenate([h.astype(np.float64)] + near +
                          [special, rnd, inr])


def int_to_f16_inputs(dt, bits, rng):
    """Integers to convert to f16: all of them for 8 and 16 bits; else
    every integer up to 70000 in magnitude (all ties and the overflow
    threshold), the extremes and random values."""
    info = np.iinfo(dt)
    if bits <= 16:
        return np.arange(int(info.min), int(info.max) + 1).astype(dt)
    lo, hi = max(int(info.min), -70000), 70000
    vals = [int(info.min), int(info.min) + 1, int(info.max),
            int(info.max) - 1, 2 ** 24 + 1, 2 ** 24 - 1, 2 ** 31 - 1]
    vals = [v for v in vals if info.min <= v <= info.max]
    return np.concatenate([
        np.arange(lo, hi + 1).astype(dt), np.array(vals).astype(dt),
        rng.integers(int(info.min), int(info.max), size=4000, endpoint=True,
                     dtype=dt)])


# Walker cases: result shape, then operand arrays (views of aranges, so
# each element's value is its offset from the start of the buffer).
def ref_cases():
    def ar(shape):
        return np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    return [
        ((2, 3, 4), [ar((2, 3, 4)), ar((3, 1)), ar((4,)), ar(()),
                     ar((1, 1, 1)), ar((2, 1, 4))]),
        ((2, 1, 3, 1, 2), [ar((2, 1, 3, 1, 2)), ar((3, 1, 2)), ar((2, 1, 1, 1, 1))]),
        ((3, 4), [ar((3, 4)), ar((4, 3)).T, ar((4,))[::-1],
                  ar((3, 8))[:, ::2]]),
        ((5,), [ar((5,)), ar((1,))]),
        ((), [ar(()), ar(())]),
        ((0, 3), [ar((0, 3)), ar((3,))]),
        ((3, 0), [ar((3, 0)), ar((3, 1))]),
        ((2, 3, 5, 7), [ar((2, 3, 5, 7)), ar((3, 1, 1)), ar((5, 1)),
                        ar((2, 1, 1, 7))]),
    ]


def write_ref(path):
    lines, expect = [], []
    for shape, ops in ref_cases():
        words = [str(len(shape))] + [str(d) for d in shape] + [str(len(ops))]
        exp = []
        for op in ops:
            view = np.broadcast_to(op, shape)
            words += [str(s // view.itemsize) for s in view.strides]
            flat = view.ravel()
            exp.append((flat - op.flat[0] if op.size else flat).tolist())
        lines.append(" ".join(words))
        expect.append((shape, [o.shape for o in ops], exp))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return expect


# ---------------------------------------------------------------------------
# 3. Expected values

def expect_int(op, a, b, dt):
    """NumPy's result of the integer helper OP of the op INT_NUMPY knows."""
    signed = np.iinfo(dt).min < 0
    name = OP_OF[op]
    if name == "divide":
        # C division truncates: floor + 1 when inexact and signs differ
        q = np.floor_divide(a, b)
        r = np.remainder(a, b)
        if signed:
            adj = (r != 0) & ((a < 0) != (b < 0))
            q = (q + adj.astype(dt)).astype(dt)
        return q
    if name == "power":
        if not signed:
            return np.power(a, b)
        neg = b < 0
        r = np.power(a, np.where(neg, 0, b).astype(dt))
        # b < 0 (NumPy raises): integer part of 1 / a^|b|
        odd = (b.astype(np.int64) & 1) != 0
        rule = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0))
        return np.where(neg, rule, r).astype(dt)
    if op in INT_UN:
        return INT_NUMPY[name](a)
    return INT_NUMPY[name](a, b)


def simd_only(f, a, b):
    """f(a, b) with the arrays padded to a multiple of 64 elements, so that
    NumPy's SIMD loop computes every element (no scalar tail)."""
    pad = -a.size % 64
    z = np.zeros(pad, a.dtype)
    return f(np.concatenate([a, z]), np.concatenate([b, z]))[:a.size]


def expect_float(op, a, b):
    """NumPy's result of the float helper OP, of two operands."""
    return FLOAT_NUMPY[OP_OF[op]](a, b)


def expect_float_un(op, a):
    """NumPy's result of the float helper OP, of one operand."""
    return FLOAT_NUMPY[OP_OF[op]](a)


def special_pairs(op, a, b, exp):
    """Where a libm-based result must still be NumPy's bit for bit: any
    operand infinite or NaN (or, for logaddexp, equal operands), unless
    the op may give any NaN and NumPy's result is one."""
    m = ~np.isfinite(a) | (False if b is None else ~np.isfinite(b))
    if OP_OF[op] == "logaddexp":
        m |= a == b
    if op in FLOAT_ANY_NAN:
        m &= ~np.isnan(exp)
    return m


HUGE_ULP = 1 << 62


def ulp_diff(x, y, ui):
    """ULP distance of same-typed float arrays (int64; +0 and -0 are 0
    apart); NaN vs NaN is 0, NaN vs a number HUGE_ULP."""
    bits = 8 * np.dtype(ui).itemsize
    si = {16: np.int16, 32: np.int32, 64: np.int64}[bits]

    def ordered(v):
        # the floats in order as integers: -0.0 and +0.0 both 0
        k = np.ascontiguousarray(v).view(si).astype(np.int64)
        neg = np.int64(-(1 << (bits - 1))) - np.minimum(k, -1)
        return np.where(k < 0, neg, k)
    xn, yn = np.isnan(x), np.isnan(y)
    ix = ordered(x)
    iy = ordered(y)
    same = (ix >= 0) == (iy >= 0)
    cap = np.int64(HUGE_ULP // 2)
    d = np.where(same, np.abs(np.where(same, ix - iy, 0)),
                 np.minimum(np.abs(ix), cap) + np.minimum(np.abs(iy), cap))
    d[xn & yn] = 0
    d[xn != yn] = HUGE_ULP
    return d


def fmt_float(v, ui):
    return "%r (0x%0*x)" % (float(v), 2 * np.dtype(ui).itemsize,
                            int(np.array([v]).view(ui)[0]))


def mismatches(idx, a, b, exp, got, fmt, limit=5, out_fmt=None):
    """Lines for the first mismatches: operands shown with fmt, results
    with out_fmt (default fmt)."""
    out_fmt = out_fmt or fmt
    out = []
    for i in idx[:limit]:
        args = "a=%s" % fmt(a[i]) if b is None else \
            "a=%s b=%s" % (fmt(a[i]), fmt(b[i]))
        out.append("%s: expected %s, got %s" % (args, out_fmt(exp[i]),
                                                out_fmt(got[i])))
    if len(idx) > limit:
        out.append("... %d mismatches in all" % len(idx))
    return out


def saturate(v, dt):
    info = np.iinfo(dt)
    out = []
    for x in v.tolist():
        if x != x:
            out.append(0)
        elif x == math.inf:
            out.append(int(info.max))
        elif x == -math.inf:
            out.append(int(info.min))
        else:
            out.append(min(max(math.trunc(x), int(info.min)), int(info.max)))
    return out


# ---------------------------------------------------------------------------

# pow's NaN rules (bc_math.h) on the firmware path: the pairs where an
# operand is a NaN, b is +-0 or a is 1, signalling NaNs included.
POW_A = {"f32": [0x7f800001, 0xff800023, 0x7fc00000, 0xffc01234, 0x3f800000,
                 0xbf800000, 0x40000000, 0x3f000000, 0x00000000, 0x80000000,
                 0x7f800000, 0xff800000],
         "f64": [0x7ff0000000000001, 0xfff0000000000023, 0x7ff8000000000000,
                 0xfff8000000001234, 0x3ff0000000000000, 0xbff0000000000000,
                 0x4000000000000000, 0x3fe0000000000000, 0x0000000000000000,
                 0x8000000000000000, 0x7ff0000000000000, 0xfff0000000000000]}
POW_DT = {"f32": (np.float32, np.uint32, "float", 8),
          "f64": (np.float64, np.uint64, "double", 16)}


def pow_pairs(s):
    """The (a, b) bit patterns of dtype S whose pow bc_math.h decides
    itself: a NaN operand, b = +-0 or a = 1."""
    dt, ui, _, _ = POW_DT[s]
    v = np.array(POW_A[s], ui)
    a, b = np.repeat(v, v.size), np.tile(v, v.size)
    fa, fb = a.view(dt), b.view(dt)
    m = np.isnan(fa) | np.isnan(fb) | (fb == 0) | (fa == 1)
    return a[m], b[m]


def pow_nan_file():
    """A program that prints bc_pow_f32 and bc_pow_f64 of pow_pairs, in
    hex, one result a line: through fw.h, or stdio with -DFW_HOST."""
    lines = ["/* pow_nan.c: bc_pow_T on the pairs below, as bits in hex. */",
             "#include <stdint.h>", '#include "bc_math.h"', "#ifdef FW_HOST",
             "#include <stdio.h>",
             "static void fw_write0(const char *s) { fputs(s, stdout); }",
             "#else", '#include "fw.h"', "#endif", "",
             "/* Write the DIGITS low hex digits of V and a newline. */",
             "static void put_hex(uint64_t v, int digits)", "{",
             "\tchar s[20];", "\tint k;",
             "\tfor (k = digits - 1; k >= 0; k--, v >>= 4)",
             "\t\ts[k] = \"0123456789abcdef\"[v & 15u];",
             "\ts[digits] = '\\n';", "\ts[digits + 1] = '\\0';",
             "\tfw_write0(s);", "}", ""]
    for s in ("f32", "f64"):
        dt, ui, ctype, digits = POW_DT[s]
        a, b = pow_pairs(s)
        u = "uint32_t" if s == "f32" else "uint64_t"
        suf = "u" if s == "f32" else "ull"
        for name, vals in (("a", a), ("b", b)):
            lines.append("static volatile const %s %s_%s[%d] = {%s};" % (
                u, name, s, vals.size,
                ", ".join("0x%x%s" % (int(x), suf) for x in vals)))
    lines += ["", "int main(void)", "{", "\tunsigned i;"]
    for s in ("f32", "f64"):
        dt, ui, ctype, digits = POW_DT[s]
        n = pow_pairs(s)[0].size
        lines += ["\tfor (i = 0; i < %du; i++)" % n,
                  "\t\tput_hex(bc__%s_bits(bc_pow_%s(bc__bits_%s(a_%s[i]), "
                  "bc__bits_%s(b_%s[i]))), %d);" % (s, s, s, s, s, s, digits)]
    lines += ["\treturn 0;", "}", ""]
    return "\n".join(lines)


def pow_nan_expected():
    """NumPy's results of pow_pairs, f32 then f64: (dtype, a, b, bits of
    pow(a, b), whether it is a NaN)."""
    out = []
    for s in ("f32", "f64"):
        dt, ui, _, _ = POW_DT[s]
        a, b = pow_pairs(s)
        r = np.power(a.view(dt), b.view(dt))
        out += [(s, int(x), int(y), int(z), bool(n))
                for x, y, z, n in zip(a, b, r.view(ui), np.isnan(r))]
    return out


def pow_nan_checks(tap, tmp):
    """bc_pow_f32 and bc_pow_f64 give NumPy's result where an operand is
    a NaN (signalling ones too), b is +-0 or a is 1: built for the host
    (glibc) and for the Arm firmware targets with newlib's libm, run
    under QEMU (tests/firmware)."""
    sys.path.insert(0, os.path.join(HERE, "firmware"))
    import targets
    src = os.path.join(tmp, "pow_nan.c")
    with open(src, "w") as f:
        f.write(pow_nan_file())
    want = pow_nan_expected()
    what = ("bc_pow_f32 and bc_pow_f64 match NumPy where an operand is a "
            "NaN (signalling too), b is +-0 or a is 1 (%d pairs; a NaN "
            "result need only be NaN)" % len(want))

    def compare(text):
        """What in TEXT, the program's output, is not NumPy's result."""
        got = text.split()
        if len(got) != len(want):
            return ["%d results, expected %d" % (len(got), len(want)),
                    text[-500:]]
        bad = []
        for (dts, a, b, bits, nan), g in zip(want, got):
            dt, ui, _, _ = POW_DT[dts]
            v = np.array([int(g, 16)], ui)
            if (nan and not np.isnan(v.view(dt)[0])) or (not nan and v[0] != bits):
                bad.append("bc_pow_%s(0x%x, 0x%x): expected 0x%x%s, got 0x%s"
                           % (dts, a, b, bits, " (a NaN)" if nan else "", g))
        return bad
    exe = os.path.join(tmp, "pow_nan_host")
    cmd = ["gcc", "-std=c99", "-O2", "-DFW_HOST"] + STRICT + \
        ["-I" + RUNTIME, src, "-o", exe, "-lm"]
    rc, out = run(cmd)
    if rc == 0:
        rc, out = run([exe])
    bad = compare(out) if rc == 0 else [" ".join(cmd), out]
    tap.ok(not bad, what + ", on the host", bad)
    cflags = ["-std=c99", "-ffreestanding", "-O2", "-I" + RUNTIME] + STRICT
    for t in targets.TARGETS:
        if t.family != "arm":
            continue
        why = targets.missing(t)
        if why:
            tap.skip(what + ", on %s, newlib's libm" % t.title, why)
            continue
        d = fresh(tmp)
        elf = os.path.join(d, "pow_nan_%s.elf" % t.name)
        good, msg = targets.build(t, elf, [src], cflags, d, libs=["-lm", "-lc"])
        if good:
            rc, out, err = targets.run(t, elf)
            bad = compare(out) if rc == 0 else \
                ["exit status %d" % rc, out[-500:], err[-500:]]
        else:
            bad = [msg[-2000:]]
        tap.ok(not bad, what + ", on %s, newlib's libm, under QEMU" % t.title, bad)


def main():
    gen = sys.argv[1] if len(sys.argv) > 1 else "build/bcastgen"
    tap = Tap()
    try:
        table = read_table(gen)
    except RuntimeError as e:
        print("Bail out! the op table: %s" % e)
        return 1
    tap.ok(*table)
    tmp = tempfile.mkdtemp(prefix="bcastgen-runtime.")
    try:
        body(tap, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    tap.done()
    return 0


def has_sse41():
    """Whether this is x86-64 with SSE4.1 (bc.h's floor and ceil then
    use roundss/roundsd)."""
    try:
        with open("/proc/cpuinfo") as f:
            return any(l.startswith("flags") and " sse4_1" in l for l in f)
    except OSError:
        return False


def has_f16c_avx2():
    """Whether this is x86-64 with F16C and AVX2 (bc.h's line
    conversions of f16 then use vcvtph2ps/vcvtps2ph: BC_F16_HW)."""
    try:
        with open("/proc/cpuinfo") as f:
            for l in f:
                if l.startswith("flags"):
                    flags = l.split(":", 1)[-1].split()
                    return "f16c" in flags and "avx2" in flags
    except OSError:
        pass
    return False


def body(tap, tmp):
    compile_checks(tap, tmp)
    freestanding_checks(tap, tmp)
    pow_nan_checks(tap, tmp)

    indir = os.path.join(tmp, "in")
    os.mkdir(indir)
    rng = np.random.default_rng(20240601)
    inputs = {}
    for s, dt, bits in INTS:
        a, b, what = int_inputs(dt, bits, rng)
        inputs[s] = (a, b, what)
        a.tofile(os.path.join(indir, "in.%s.a" % s))
        b.tofile(os.path.join(indir, "in.%s.b" % s))
    for s, dt, ui in FLOATS:
        a, b, what = float_inputs(dt, ui, rng)
        inputs[s] = (a, b, what)
        a.tofile(os.path.join(indir, "in.%s.a" % s))
        b.tofile(os.path.join(indir, "in.%s.b" % s))
    exact = {}
    for s, dt, ui in FLOATS:
        exact[s] = exact_inputs(dt, ui, rng)
        u, _, xa, xb, _ = exact[s]
        u.tofile(os.path.join(indir, "in.%s.u" % s))
        xa.tofile(os.path.join(indir, "in.%s.xa" % s))
        xb.tofile(os.path.join(indir, "in.%s.xb" % s))
    f2 = f2_inputs(rng)
    f2.tofile(os.path.join(indir, "in.f2"))
    f2f = f2f_inputs(f2)
    f2f.tofile(os.path.join(indir, "in.f2f"))
    wr = wrap_inputs(rng)
    wr.tofile(os.path.join(indir, "in.wrap"))
    ref_expect = write_ref(os.path.join(indir, "in.ref"))
    h16u = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    h16u.tofile(os.path.join(indir, "in.f16.u"))
    f32h = f32_to_f16_inputs(rng)
    f32h.tofile(os.path.join(indir, "in.f32.h"))
    f64h = f64_to_f16_inputs(rng)
    f64h.tofile(os.path.join(indir, "in.f64.h"))
    h16a, h16b, h16what = f16_inputs(rng)
    h16a.tofile(os.path.join(indir, "in.f16.a"))
    h16b.tofile(os.path.join(indir, "in.f16.b"))
    int_h = {}
    for s, dt, bits in INTS:
        int_h[s] = int_to_f16_inputs(dt, bits, rng)
        int_h[s].tofile(os.path.join(indir, "in.%s.h" % s))

    # name, compiler flags, arguments: the bulk of the work (f16 pairs,
    # the exact binary helpers' pairs) only in the plain -O2 build; the
    # others see the same helpers on the smaller inputs (the sanitizers),
    # or differ only in sqrt, floor and ceil (portable code, SSE4.1), or
    # in the form of the f16 conversions (branch-free, with branches and
    # integers only, or the line helpers' SSE2 or F16C forms), which all
    # convert every float (--every-float); the SSE2 form as the run-time
    # check's fallback (-DBC__F16_NO_CPU_F16C) does only the quick checks,
    # the same code as -DBC_F16_NO_F16C's
    builds = [
        ("asan+ubsan", ["-fsanitize=address,undefined,float-cast-overflow",
                        "-fno-sanitize-recover=all", "-g"],
         ["--quick"]),
        ("-O2 -DBC_F16_PORTABLE", ["-DBC_F16_PORTABLE"], ["--every-float"]),
        ("-O2 -DBC_PORTABLE_MATH", ["-DBC_PORTABLE_MATH"],
         ["--quick"]),
        ("-O2 -DBC_F16_INTEGER -DBC_F16_PORTABLE", ["-DBC_F16_INTEGER", "-DBC_F16_PORTABLE"],
         ["--quick", "--every-float"]),
    ]
    if has_sse41():
        builds.append(("-O2 -msse4.1", ["-msse4.1"], ["--quick"]))
    else:
        tap.skip("build runtime_check.c (-O2 -msse4.1)",
                 "this CPU has no SSE4.1")
    if platform.machine() == "x86_64":
        builds.append(("-O2 -DBC_F16_NO_F16C", ["-DBC_F16_NO_F16C"],
                       ["--quick", "--every-float"]))
        builds.append(("-O2 -DBC__F16_NO_CPU_F16C", ["-DBC__F16_NO_CPU_F16C"],
                       ["--quick"]))
    else:
        tap.skip("build runtime_check.c (-O2 -DBC_F16_NO_F16C, and "
                 "-DBC__F16_NO_CPU_F16C)", "not x86-64: the line helpers' "
                 "SSE2 form is x86's")
    if has_f16c_avx2():
        # F16C where the compiler targets it, and where it does not but
        # the processor has it (x86-64's run-time check)
        builds.append(("-O2 -mf16c -mavx2", ["-mf16c", "-mavx2"],
                       ["--quick", "--every-float"]))
        if platform.machine() == "x86_64":
            builds.append(("-O2", [], ["--quick", "--every-float"]))
    else:
        tap.skip("build runtime_check.c (-O2 -mf16c -mavx2, and -O2 finding F16C at run time)",
                 "this CPU has no F16C and AVX2")
    outs = []
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=0"
    env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"

    def build_and_run(k):
        name, extra, args = builds[k]
        exe = os.path.join(tmp, "runtime_check_%d" % k)
        od = os.path.join(tmp, "out%d" % k)
        cmd = (["gcc", "-std=c99", "-O2"] + STRICT + extra +
               ["-I" + RUNTIME, CHECK_C, "-o", exe, "-lm"])
        built = run(cmd)
        if built[0] != 0:
            return cmd, built, None, od
        os.mkdir(od)
        return cmd, built, run([exe, indir, od] + args, env=env), od
    results = parallel(build_and_run, range(len(builds)))
    for (name, extra, args), (cmd, built, ran, od) in zip(builds, results):
        if not tap.ok(built[0] == 0, "build runtime_check.c (%s)" % name,
                      [" ".join(cmd), built[1]]):
            continue
        rc, out = ran
        if tap.ok(rc == 0, "run runtime_check (%s)" % name,
                  ["exit status %d" % rc, out[-3000:]]):
            outs.append((name, od, "--quick" not in args))
    if not outs:
        return
    names = " and ".join(n for n, _, _ in outs)
    pair_names = " and ".join(n for n, _, pairs in outs if pairs)

    def load(od, file, dt, n):
        p = os.path.join(od, file)
        if not os.path.exists(p):
            return None
        got = np.fromfile(p, dtype=dt)
        return got if got.size == n else None

    def check_builds(file, dt, n, bad_of, show, pairs_only=False):
        """Compare output FILE of each build (with pairs_only, of those
        that did the f16 pairs): bad_of(got) gives the indexes that are
        wrong, show(bad, got) their diagnostics. (good, diag)."""
        diag, good = [], True
        for bname, od, pairs in outs:
            if pairs_only and not pairs:
                continue
            got = load(od, file, dt, n)
            if got is None:
                good = False
                diag.append("%s: no output" % bname)
                continue
            bad = bad_of(got)
            if bad.size:
                good = False
                diag.append("%s build:" % bname)
                diag += show(bad, got)
        return good, diag

    # integers
    for s, dt, bits in INTS:
        a, b, what = inputs[s]
        ifmt = lambda v: str(int(v))
        for op in INT_BIN + INT_UN:
            unary = op in INT_UN
            exp = expect_int(op, a, b, dt).astype(dt)
            good, diag = check_builds(
                "out.%s.%s" % (s, op), dt, a.size,
                lambda got, exp=exp: np.nonzero(got != exp)[0],
                lambda bad, got, exp=exp, unary=unary: mismatches(
                    bad, a, None if unary else b, exp, got, ifmt))
            tap.ok(good, "bc_%s_%s matches NumPy (%s; %s)" %
                   (op, s, what, names), diag)

    # floats
    for s, dt, ui in FLOATS:
        a, b, what = inputs[s]
        ffmt = lambda v, ui=ui: fmt_float(v, ui)
        for op in FLOAT_BIN + FLOAT_UN:
            unary = op in FLOAT_UN
            exp = (expect_float_un(op, a) if unary
                   else expect_float(op, a, b)).astype(dt)
            bound = FLOAT_ULP.get(op)
            special = (special_pairs(op, a, None if unary else b, exp)
                       if bound else None)
            maxulp = noff = 0

            def bad_of(got, exp=exp, bound=bound, special=special, ui=ui):
                nonlocal maxulp, noff
                differ = exp.view(ui) != got.view(ui)
                if bound is None:
                    return np.nonzero(differ)[0]
                d = ulp_diff(exp, got, ui)
                maxulp = max(maxulp, int(d.max()))
                noff = int((d != 0).sum())
                # zeros of the wrong sign are 0 ULP off but wrong
                zsign = differ & (exp == 0) & (got == 0)
                return np.nonzero((d > bound) | (special & differ) |
                                  zsign)[0]
            good, diag = check_builds(
                "out.%s.%s" % (s, op), dt, a.size, bad_of,
                lambda bad, got, exp=exp, ffmt=ffmt, unary=unary: mismatches(
                    bad, a, None if unary else b, exp, got, ffmt))
            if bound is None:
                how = "bit for bit"
            else:
                how = ("within %d ULP, bit for bit on infinite or NaN "
                       "operands%s%s" % (
                           bound, " or a == b" if op == "logaddexp" else "",
                           " (a NaN result need only be NaN)"
                           if op in FLOAT_ANY_NAN else ""))
            tap.ok(good, "bc_%s_%s matches NumPy %s (%s; %s)" %
                   (op, s, how, what, names), diag)
            if bound is not None:
                tap.comment("bc_%s_%s: largest difference from NumPy %d ULP"
                            " (%d of %d results differ)"
                            % (op, s, maxulp, noff, a.size))

    # bc.h's exact helpers on their own inputs, bit for bit
    for s, dt, ui in FLOATS:
        u, uwhat, xa, xb, xwhat = exact[s]
        ffmt = lambda v, ui=ui: fmt_float(v, ui)
        for op in EXACT_UN + EXACT_BIN:
            unary = op in EXACT_UN
            a, b, what = (u, None, uwhat) if unary else (xa, xb, xwhat)
            exp = (expect_float_un(op, a) if unary
                   else expect_float(op, a, b)).astype(dt)
            good, diag = check_builds(
                "out.%s.%s.%s" % (s, "u" if unary else "x", op), dt, a.size,
                lambda got, exp=exp, ui=ui: np.nonzero(
                    exp.view(ui) != got.view(ui))[0],
                lambda bad, got, exp=exp, a=a, b=b, ffmt=ffmt: mismatches(
                    bad, a, b, exp, got, ffmt), pairs_only=not unary)
            tap.ok(good, "bc_%s_%s matches NumPy bit for bit (%s; %s)" %
                   (op, s, what, names if unary else pair_names), diag)

    # conversions
    f2f64 = f2f.astype(np.float64)
    for s, dt, bits in INTS:
        exp = np.array(saturate(f2f64, dt), dtype=object).astype(dt)
        info = np.iinfo(dt)
        inr = np.array([x == x and abs(x) != math.inf and
                        int(info.min) <= math.trunc(x) <= int(info.max)
                        for x in f2f64.tolist()])
        npgood = np.array_equal(f2f[inr].astype(dt), exp[inr])
        good, diag = check_builds(
            "out.f2f.%s" % s, dt, f2f.size,
            lambda got, exp=exp: np.nonzero(got != exp)[0],
            lambda bad, got, exp=exp: mismatches(bad, f2f, None, exp, got,
                                                 repr))
        tap.ok(good and npgood, "bc_f32_to_%s: NumPy astype in range (%d "
               "floats), saturating outside, NaN -> 0 (%d floats; %s)" %
               (s, int(inr.sum()), f2f.size, names),
               diag + ([] if npgood else ["NumPy astype disagrees"]))

    for s, dt, bits in INTS:
        exp = np.array(saturate(f2, dt), dtype=object).astype(dt)
        # NumPy's cast agrees where the truncated value is in range
        info = np.iinfo(dt)
        inr = np.array([x == x and abs(x) != math.inf and
                        int(info.min) <= math.trunc(x) <= int(info.max)
                        for x in f2.tolist()])
        npc = f2[inr].astype(dt)
        diag, good = [], True
        bad = np.nonzero(npc != exp[inr])[0]
        if bad.size:
            good = False
            diag.append("NumPy astype disagrees with truncation:")
            diag += mismatches(bad, f2[inr], None, exp[inr], npc, repr)
        bgood, bdiag = check_builds(
            "out.f2.%s" % s, dt, f2.size, lambda got, exp=exp: np.nonzero(got != exp)[0],
            lambda bad, got, exp=exp: mismatches(bad, f2, None, exp, got, repr))
        good = good and bgood
        diag += bdiag
        tap.ok(good, "bc_f64_to_%s: NumPy astype in range (%d values), saturating "
               "outside, NaN -> 0 (%d values; %s)" %
               (s, int(inr.sum()), f2.size, names), diag)

    for s, dt, bits in INTS:
        exp = wr.astype(dt)
        good, diag = check_builds(
            "out.wrap.%s" % s, dt, wr.size, lambda got, exp=exp: np.nonzero(got != exp)[0],
            lambda bad, got, exp=exp: mismatches(bad, wr, None, exp, got, repr))
        tap.ok(good, "bc_wrap_%s matches uint64 astype (%d values; %s)" %
               (s, wr.size, names), diag)

    check_f16_hw(tap, [(n, f16_form(extra), os.path.join(od, "out.f16.hw"))
                       for n, extra, _ in builds
                       for bn, od, _ in outs if bn == n])
    check_f16_modes(tap, [(bn, os.path.join(od, "out.f16.modes")) for bn, od, _ in outs])
    check_f16_conv(tap, names, check_builds, h16u, f32h, f64h)
    check_every_float(tap, [(n, load(od, "out.f32.every", np.uint32, 2 * 65536))
                            for (n, _, args), (_, _, _, od) in zip(builds, results)
                            if "--every-float" in args])
    check_f16_ops(tap, names, pair_names, check_builds, h16a, h16b, h16what,
                  h16u, int_h)

    # reference walker
    for bname, od, _ in outs:
        p = os.path.join(od, "out.ref")
        got = []
        if os.path.exists(p):
            cur = []
            with open(p) as f:
                for line in f:
                    line = line.strip()
                    if line == "end":
                        got.append(cur)
                        cur = []
                    else:
                        cur.append([int(w) for w in line.split()])
        diag = []
        for k, (shape, shapes, exp) in enumerate(ref_expect):
            g = got[k] if k < len(got) else None
            if g != exp:
                diag.append("walking %s with operands %s:" % (shape, shapes))
                diag.append("  expected %s" % [e[:24] for e in exp])
                diag.append("  got      %s" % ([x[:24] for x in g]
                                               if g is not None else None))
        tap.ok(not diag and len(got) == len(ref_expect),
               "bc_ref_walk visits NumPy's broadcast offsets (%d cases; %s)"
               % (len(ref_expect), bname), diag)


# ---------------------------------------------------------------------------
# 4. f16

def fmt_f16(v):
    v = np.uint16(v)
    return "%r (0x%04x)" % (float(np.array([v]).view(np.float16)[0]), int(v))


def same_bits(exp, ins, fmt=fmt_f16):
    """bad_of and show for check_builds: the results must be exp (1, 2 or
    4 bytes each) bit for bit; the operands ins (one or two arrays) are
    shown with fmt."""
    exp = np.ascontiguousarray(exp)
    ui = {1: np.uint8, 2: np.uint16, 4: np.uint32}[exp.dtype.itemsize]
    out_fmt = {1: repr, 2: fmt_f16,
               4: lambda v: fmt_float(np.uint32(v).view(np.float32),
                                      np.uint32)}[exp.dtype.itemsize]
    e = exp.view(ui)
    return (lambda got: np.nonzero(got.view(ui) != e)[0],
            lambda bad, got: mismatches(bad, ins[0],
                                        ins[1] if len(ins) > 1 else None,
                                        e, got.view(ui), fmt,
                                        out_fmt=out_fmt))


# The line helpers' forms, as runtime_check.c numbers them in out.f16.hw.
F16_FORMS = ("portable", "BC_F16_HW", "BC_F16_DISPATCH, F16C found",
             "BC_F16_SSE2", "BC_F16_DISPATCH, no F16C: SSE2")


def f16_form(extra):
    """The form of the line helpers that a build of runtime_check.c with
    the flags EXTRA must have on this machine (F16_FORMS): 0 with
    -DBC_F16_PORTABLE or off x86-64 (the portable conversions), 1 with
    -mf16c -mavx2 (BC_F16_HW: F16C instructions), 3 with
    -DBC_F16_NO_F16C (BC_F16_SSE2: SSE2), else x86-64's run-time check
    (BC_F16_DISPATCH): 2 where the processor has F16C and AVX2, 4 where
    it has not or -DBC__F16_NO_CPU_F16C says so (the SSE2 fallback)."""
    if "-DBC_F16_PORTABLE" in extra or platform.machine() != "x86_64":
        return 0
    if "-DBC_F16_NO_F16C" in extra:
        return 3
    if "-mf16c" in extra:
        return 1
    if "-DBC__F16_NO_CPU_F16C" in extra or not has_f16c_avx2():
        return 4
    return 2


def text_of(path):
    """The text a build wrote to PATH, stripped, or why it cannot be read."""
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError as e:
        return str(e)


def check_f16_hw(tap, ran):
    """The line helpers' form, as each build that ran wrote it to
    out.f16.hw: RAN holds (build, the form it must have (f16_form), the
    file's path), so that each form is the one checked."""
    diag = []
    for name, form, path in ran:
        got = text_of(path)
        if got != str(form):
            diag.append("%s: the line helpers' form is %s, not %d" % (name, got, form))
    tap.ok(bool(ran) and not diag,
           "the line conversions' form: %s" % "; ".join(
               "%s in %s" % (F16_FORMS[form], n) for n, form, _ in ran), diag)


def check_f16_modes(tap, ran):
    """Every f16 to float is exact, so the same under every rounding
    mode: RAN holds (build, its out.f16.modes), the count of f16s whose
    float differs from the one to nearest, which must be 0."""
    diag = []
    for name, path in ran:
        got = text_of(path)
        if got != "0":
            diag.append("%s: %s f16s convert to another float in another rounding mode"
                        % (name, got))
    tap.ok(bool(ran) and not diag, "every f16 to float, a line at a time and one at a "
           "time, the same bits in every rounding mode of <fenv.h> (%d builds)" % len(ran),
           diag)


def check_every_float(tap, every):
    """bc_f32_to_f16_n of every float: EVERY holds (build, its checksums
    of out.f32.every, or None) for the builds of each form of the f16
    conversions (branch-free, with branches, on x86-64 SSE2's, and where
    the CPU has them F16C's); they must be equal (runtime_check.c says
    how they are made)."""
    first = every[0][1] if every else None
    diag = []
    for name, sums in every:
        if sums is None:
            diag.append("%s: no out.f32.every" % name)
        elif first is not None and not np.array_equal(sums, first):
            runs = np.nonzero((sums.reshape(-1, 2) != first.reshape(-1, 2)).any(axis=1))[0]
            diag.append("%s: differs from %s in the floats 0x%04x0000.. and %d other runs"
                        % (name, every[0][0], runs[0], runs.size - 1))
    tap.ok(len(every) >= 2 and not diag,
           "bc_f32_to_f16_n of every one of the 2^32 floats, a line of "
           "65536 at a time: the same f16s in each form (checksums; %s)"
           % " and ".join(n for n, _ in every), diag)


def check_f16_conv(tap, names, check_builds, u, f32h, f64h):
    """Conversions between f16 and float or double, bit for bit against
    NumPy's astype: u holds every f16 bit pattern, f32h and f64h the
    floats and doubles to round."""
    fu = u.view(np.float16)

    # conversions of all f16s to float and back, and of the floats to
    # f16: each a line at a time (the line helpers, their tails one at a
    # time) into out.f16.f32 etc., one at a time into out.f16.f32s etc.
    ffmt = lambda v: fmt_float(v, np.uint32)
    exp32 = fu.astype(np.float32)
    back = exp32.astype(np.float16)
    for sfx, way, to32, to16 in (
            ("", "a line at a time", "bc_f16_to_f32_n", "bc_f32_to_f16_n"),
            ("s", "one at a time", "bc_f16_to_f32", "bc_f32_to_f16")):
        good, diag = check_builds("out.f16.f32" + sfx, np.uint32, u.size,
                                  *same_bits(exp32, [u], repr))
        tap.ok(good, "f16 to float %s (%s) matches astype(np.float32) bit "
               "for bit on all 65536 f16 bit patterns (%s)"
               % (way, to32, names), diag)
        good, diag = check_builds("out.f16.back" + sfx, np.uint16, u.size,
                                  *same_bits(back, [u]))
        tap.ok(good and np.array_equal(back.view(np.uint16), u),
               "f16 to float and back %s (%s, %s) gives h, as NumPy, for "
               "all 65536 f16 bit patterns, NaN payloads included (%s)"
               % (way, to32, to16, names), diag)
        good, diag = check_builds("out.f32.h" + sfx, np.uint16, f32h.size,
                                  *same_bits(f32h.astype(np.float16), [f32h],
                                             ffmt))
        tap.ok(good, "float to f16 %s (%s) matches astype(np.float16) bit "
               "for bit (%d floats: every f16, every tie and its "
               "neighbours, 65520, NaN payloads, random; %s)"
               % (way, to16, f32h.size, names), diag)
    good, diag = check_builds("out.f32.round", np.float32, f32h.size,
                              *same_bits(f32h.astype(np.float16)
                                         .astype(np.float32), [f32h], ffmt))
    tap.ok(good, "bc_round_f16 matches astype(np.float16).astype("
           "np.float32) bit for bit (%d floats; %s)" % (f32h.size, names),
           diag)

    direct = f64h.astype(np.float16)
    twice = f64h.astype(np.float32).astype(np.float16)
    traps = np.nonzero((direct.view(np.uint16) != twice.view(np.uint16)) &
                       np.isfinite(f64h))[0]
    tap.ok(traps.size > 0, "the doubles include %d double rounding traps "
           "(float64 -> float32 -> float16 rounds otherwise than float64 -> "
           "float16), e.g. %s" % (traps.size, ", ".join(
               "%r -> %r, not %r" % (float(f64h[i]), float(direct[i]),
                                     float(twice[i])) for i in traps[:2])))
    dfmt = lambda v: fmt_float(v, np.uint64)
    good, diag = check_builds("out.f64.h", np.uint16, f64h.size,
                              *same_bits(direct, [f64h], dfmt))
    tap.ok(good, "bc_f64_to_f16 matches astype(np.float16) bit for bit "
           "(%d doubles: every f16, every tie, its neighbours and values "
           "just off it, 65520, NaN payloads, random; %s)"
           % (f64h.size, names), diag)


def check_f16_ops(tap, names, pair_names, check_builds, a, b, what, u,
                  int_h):
    """Operations on f16s computed as kernels do them (in float, rounded
    once) against NumPy's float16 ufuncs, on the pairs (a, b) (in the
    builds pair_names) and (unary) on every f16 u; f16 to each integer
    type; int_h[S] to f16."""
    fa, fb, fu = a.view(np.float16), b.view(np.float16), u.view(np.float16)

    def within(exp, bound, ins, stats):
        e = np.ascontiguousarray(exp).view(np.uint16)

        def bad_of(got):
            d = ulp_diff(exp, got.view(np.float16), np.uint16)
            stats[0] = max(stats[0], int(d.max()))
            stats[1] = int((d != 0).sum())
            return np.nonzero(d > bound)[0]
        return (bad_of,
                lambda bad, got: mismatches(bad, ins[0],
                                            ins[1] if len(ins) > 1 else None,
                                            e, got, fmt_f16))

    # integers to f16: NumPy converts to float first; same as directly
    for s, dt, bits in INTS:
        v = int_h[s]
        exp = v.astype(np.float16)
        # directly: |v| <= 2^53 is exact as a double; beyond, both are inf
        big = np.abs(v.astype(np.float64)) > 2.0 ** 53
        direct = np.where(big, np.copysign(np.float16(np.inf),
                                           v.astype(np.float64)),
                          v.astype(np.float64).astype(np.float16))
        same = np.array_equal(exp.view(np.uint16),
                              direct.astype(np.float16).view(np.uint16))
        good, diag = check_builds("out.%s.h" % s, np.uint16, v.size,
                                  *same_bits(exp, [v], repr))
        tap.ok(good and same, "%s to f16 as NumPy, bc_f32_to_f16((float)x), "
               "bit for bit; NumPy's (through float32) is the correctly "
               "rounded f16 (%d values; %s)" % (s, v.size, names),
               diag + ([] if same else ["NumPy differs from direct "
                                        "rounding"]))

    # f16 to integers: NumPy's cast where the value fits, else saturated
    for s, dt, bits in INTS:
        f = fu.astype(np.float64)
        exp = np.array(saturate(f, dt), dtype=object).astype(dt)
        info = np.iinfo(dt)
        inr = (np.isfinite(f) & (np.trunc(f) >= int(info.min)) &
               (np.trunc(f) <= int(info.max)))
        npc = fu[inr].astype(dt)
        good, diag = check_builds(
            "out.f16.f2.%s" % s, dt, u.size,
            lambda got, exp=exp: np.nonzero(got != exp)[0],
            lambda bad, got, exp=exp: mismatches(bad, u, None, exp, got,
                                                 fmt_f16))
        npgood = np.array_equal(npc, exp[inr])
        tap.ok(good and npgood, "bc_f32_to_%s(bc_f16_to_f32(h)): NumPy's astype "
               "for the %d f16s in range, saturating outside, NaN -> 0 (all "
               "65536; %s)" % (s, int(inr.sum()), names),
               diag + ([] if npgood else ["NumPy astype disagrees"]))

    # operations, computed in float and rounded once
    def op_test(name, exp, bound, ins, label, what):
        # the pairs (two operands) are only in some builds
        only = len(ins) == 2
        bnames = pair_names if only else names
        if bound is None:
            bad_of, show = same_bits(exp, ins)
            note = ""
            if OP_OF.get(name) in ("add", "multiply"):
                # Two NaNs: NumPy's loop keeps b's (made quiet), the
                # compiler here a's; C leaves the order to the compiler.
                nan2 = (((ins[0] & 0x7fff) > 0x7c00) &
                        ((ins[1] & 0x7fff) > 0x7c00))
                qa, qb = ins[0] | 0x0200, ins[1] | 0x0200

                def bad_of(got, plain=bad_of):
                    ok_nan = nan2 & ((got == qa) | (got == qb))
                    return np.setdiff1d(plain(got), np.nonzero(ok_nan)[0])
                note = ", but for two NaNs either one, made quiet"
            good, diag = check_builds("out.f16." + name, np.uint16,
                                      ins[0].size, bad_of, show, only)
            tap.ok(good, "f16 %s in float matches NumPy's float16 bit for "
                   "bit%s (%s; %s)" % (label, note, what, bnames), diag)
            return
        stats = [0, 0]
        good, diag = check_builds("out.f16." + name, np.uint16, ins[0].size,
                                  *within(exp, bound, ins, stats),
                                  pairs_only=only)
        tap.ok(good, "f16 %s in float matches NumPy's float16 within %d "
               "ULP (%s; %s)" % (label, bound, what, bnames), diag)
        tap.comment("f16 %s: largest difference from NumPy %d ULP (%d of "
                    "%d results differ)" % (label, stats[0], stats[1],
                                            ins[0].size))

    for name, f, bound in F16_BIN:
        exp = f(fa, fb)
        if OP_OF.get(name) == "power":
            # C99's Annex F, as NumPy's float32 and float64 loops: 1 for
            # b = +-0 and for a = 1, a signalling NaN included, where its
            # float16 loop (glibc's powf) gives a NaN
            one = (fb == 0) | (fa == 1)
            exp = np.where(one, np.float16(1), exp)
            note = ("%s; 1 for b = +-0 or a = 1, signalling NaNs included, "
                    "as NumPy's float32 (%d such pairs)" % (what, int(one.sum())))
        else:
            note = what
        if name in INFIX:
            label = "a %s b" % INFIX[name]
        elif name.endswith("_f16"):
            label = "bc_%s" % name
        else:
            label = "bc_%s_f32" % name
        op_test(name, exp, bound, [a, b], label, note)
    for name, f in F16_CMP:
        good, diag = check_builds("out.f16." + name, np.uint8, a.size,
                                  *same_bits(f(fa, fb).astype(np.uint8),
                                             [a, b], repr), pairs_only=True)
        tap.ok(good, "f16 comparison %s of the floats matches NumPy's "
               "float16 (%s; %s)" % (name, what, pair_names), diag)
    for name, f, bound in F16_UN:
        label = INFIX[name] + "a" if name in INFIX else "bc_%s_f32" % name
        op_test(name, f(fu), bound, [u], label, "all 65536 f16s")

    # The float helpers of maximum and friends keep b for equal values,
    # NumPy's float16 loops keep a: they differ exactly on (+-0, -+0).
    zeros = ((a & 0x7fff) == 0) & ((b & 0x7fff) == 0) & (a != b)
    for name in F16_HELPERS:
        f = F16_NUMPY[OP_OF[name]][0]
        e = f(fa, fb).view(np.uint16)
        good, diag = check_builds(
            "out.f16." + name, np.uint16, a.size,
            lambda got, e=e: np.nonzero((got != e) != zeros)[0],
            lambda bad, got, e=e: mismatches(bad, a, b, e, got, fmt_f16),
            pairs_only=True)
        tap.ok(good, "f16 through bc_%s_f32 differs from NumPy's float16 "
               "exactly where a and b are zeros of opposite sign (%s; %s)"
               % (name, what, pair_names), diag)

if __name__ == "__main__":
    sys.exit(main())
