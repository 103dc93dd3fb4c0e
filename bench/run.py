#!/usr/bin/python3
"""bench/run.py: make bench's driver.

For each optimization level and each case of bench/cases.txt, in a scratch
directory under build/bench/: generate the case's kernels with bcastgen
(auto, and each strategy bcastgen accepts), for the target row of the
level's instruction set (x86-64 at -O2, the host's level at -O3
-march=native, x86-64-v3 at -O3 -march=x86-64-v3), write the case's driver in C
(case.c: buffers, the naive and reference kernels, XNNPACK's operators,
memcpy, the streaming limit, one timing loop per implementation), build
one shared object with every C implementation, all with the same compiler
and flags, and run the case in a process of its own (this script with
--child) that loads it with ctypes and times NumPy in the same process on
the same buffers.  Every output is checked against the hand-written
loop's before anything is timed; a quantized case's (--quant in its
words: TFLite Micro's int8 or int16 math) hand loop is checked against
tests/quant_oracle.py first, and XNNPACK's qs8 operator, which rounds
differently, is timed with the elements that differ counted, not
treated as an error.  Where bcastgen parallelizes a case,
its kernel made with --parallel (built with -fopenmp) runs on the cores
the bench may use, against auto and XNNPACK on as many threads, all three
timed with the wall clock.  Then callgrind's instructions per
element for the cases flagged ir, the generation speed, results.tsv,
the plot and the report: a whole run replaces the section of BENCHMARKS.md
of the processor it ran on (model name and ISA features) and keeps the
other processors' sections as they are.

Run by make bench; see BENCHMARKS.md ("Reproduce") for the options.
"""

import argparse
import json
import math
import os
import platform
import re
import shlex
import statistics
import random
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)

LEVELS = {"O2": "-O2", "O3": "-O3 -march=native", "O3v3": "-O3 -march=x86-64-v3"}
LEVEL_TITLE = {"O2": "-O2", "O3": "-O3 -march=native", "O3v3": "-O3 -march=x86-64-v3"}
# Defaults of the timing options, which the shared top of BENCHMARKS.md
# describes; a section's timing line says what its own run used.
ROUNDS, BIG_ROUNDS, BATCH_MS, PROCESSES = 11, 5, 2.0, 3

# The x86-64 levels of bcastgen's target table, newest first, and the
# macros a compiler defines for each (the psABI's lists, as far as gcc
# names them).
X86_LEVELS = [
    ("x86-64-v4", ["__AVX512F__", "__AVX512BW__", "__AVX512CD__", "__AVX512DQ__",
                   "__AVX512VL__"]),
    ("x86-64-v3", ["__AVX__", "__AVX2__", "__BMI__", "__BMI2__", "__F16C__", "__FMA__",
                   "__LZCNT__", "__MOVBE__"]),
    ("x86-64-v2", ["__SSE3__", "__SSSE3__", "__SSE4_1__", "__SSE4_2__", "__POPCNT__"]),
    ("x86-64", ["__x86_64__"]),
]


def level_target(cc, flags):
    """The row of bcastgen's target table that CC with FLAGS compiles for:
    the newest x86-64 level whose macros it defines (each level's own and
    the older ones'), or generic on another machine."""
    out = subprocess.run(shlex.split(cc) + shlex.split(flags) + ["-dM", "-E", "-x", "c",
                         "/dev/null"], capture_output=True, text=True).stdout
    defined = {line.split()[1] for line in out.splitlines() if line.startswith("#define ")}
    for i, (row, _) in enumerate(X86_LEVELS):
        if all(m in defined for _, ms in X86_LEVELS[i:] for m in ms):
            return row
    return "generic"

# The note of a case whose auto kernel streams its output past the cache.
AUTO_STREAMS = "streams its output past the cache (--stream auto)"


def machine_tuning(cc, gen):
    """The processor the bench runs on, as --tune names it: the one CC
    -march=native tunes for (its __tune_NAME__ macro), where bcastgen has a
    tuning of that name; else generic. Every level generates for it: the
    flags say what the code may use, the processor what pays."""
    out = subprocess.run(shlex.split(cc) + ["-march=native", "-dM", "-E", "-x", "c",
                         "/dev/null"], capture_output=True, text=True).stdout
    tuned = [m.group(1) for m in re.finditer(r"^#define __tune_(\w+)__ ", out, re.M)]
    known = subprocess.run([gen, "--tune", "list"], capture_output=True, text=True).stdout
    names = {line.split()[0] for line in known.splitlines()[1:] if line and line[0] != " "}
    return next((t for t in tuned if t in names), "generic")

# bcastgen's variants: the default, then each strategy or option that
# may apply; one that bcastgen refuses does not apply.  parallel is built
# with -fopenmp, and does not apply where its banner says "Not parallel".
VARIANTS = [
    ("auto", []),
    ("loops", ["--strategy", "loops"]),
    ("block", ["--strategy", "block"]),
    ("unroll", ["--strategy", "unroll", "--unroll-limit", "512"]),
    ("stream_on", ["--stream", "on"]),
    ("stream_off", ["--stream", "off"]),
    ("parallel", ["--parallel"]),
    ("f16_sse2", []),
    ("f16_loop", []),
]
# Variants that are auto's kernel compiled with flags of their own, where
# auto converts f16 lines (bc_f16.h): the line helpers' SSE2 form, as on
# a processor without F16C, and the portable loop.
VARIANT_CFLAGS = {"f16_sse2": ["-DBC_F16_NO_F16C"], "f16_loop": ["-DBC_F16_PORTABLE"]}
# Implementations timed with the wall clock (CLOCK_MONOTONIC), whatever
# --clock says, in rounds of their own after the others': the ones that
# run on several threads, and auto again (auto_wall) to compare them
# with.  They make each level's Parallel table, not the tables above it.
WALL_IMPLS = ["auto_wall", "parallel", "xnnpack_mt"]

CTYPE = {"f32": "float", "f16": "bc_f16", "i8": "int8_t", "i16": "int16_t",
         "i32": "int32_t", "u8": "uint8_t"}
CDT = {"f32": "BENCH_F32", "f16": "BENCH_F16", "i8": "BENCH_I8", "i16": "BENCH_I16",
       "i32": "BENCH_I32", "u8": "BENCH_U8"}
SIZE = {"f32": 4, "f16": 2, "i8": 1, "i16": 2, "i32": 4, "u8": 1}
NPDT = {"f32": "float32", "f16": "float16", "i8": "int8", "i16": "int16",
        "i32": "int32", "u8": "uint8"}
COMPARISONS = {"greater", "gt", "less", "lt", "equal", "eq", "not_equal",
               "ne", "greater_equal", "ge", "less_equal", "le"}
XNN_OPS = {"add": "add", "multiply": "multiply", "maximum": "maximum"}
# Quantized cases (--quant): tests/quant_oracle.py's names of bcastgen's
# ops and dtypes, and XNNPACK's quantized operators (qs8 only: Debian's
# XNNPACK has no int16 one).
QUANT_OPS = {"add": "add", "subtract": "sub", "sub": "sub", "multiply": "mul", "mul": "mul"}
QUANT_DTYPES = {"i8": "int8", "i16": "int16"}
XNN_QUANT = {"i8": "qs8"}
# The implementations a quantized case times but does not check: they
# round differently from TFLite Micro (XNNPACK's qs8 operators). Their
# elements that differ from hand's (exact, as auto must be) are counted
# and reported, not treated as an error.
COUNTED = ["xnnpack", "xnnpack_mt"]
# Implementations that are not bcastgen's, for "best other".
OTHERS = ["hand", "xnnpack", "numpy", "ref", "naive"]
# hand_again: bench/hand.c compiled a second time, each hand_ID renamed
# hand_again_ID, and timed as an implementation of its own: the same
# code at another address, so that its time over hand's (A/A) is the
# harness's noise, which the targets allow for.
with open(os.path.join(HERE, "hand.c")) as _f:
    AGAIN = ["-Dhand_%s=hand_again_%s" % (m, m)
             for m in re.findall(r"^void hand_(\w+)\(", _f.read(), re.M)]


def die(msg):
    sys.stderr.write("bench: error: %s\n" % msg)
    sys.exit(1)


# ---------------------------------------------------------------- cases

class Case:
    """One line of cases.txt, with what follows from it."""

    def __init__(self, cid, words, flags):
        self.id = cid
        self.words = words
        self.flags = {}
        for f in flags:
            k, _, v = f.partition("=")
            self.flags[k] = v if v else True
        self.ops = []          # (name, dtype, shape)
        opts = {}
        quant = {}             # operand name or "out": (scale text, zero point)
        i = 0
        while i < len(words):
            w = words[i]
            if w.startswith("--"):
                if i + 1 >= len(words):
                    die("case '%s': %s wants a value" % (cid, w))
                if w == "--quant":
                    m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)=([^,]+),([-+]?[0-9]+)$", words[i + 1])
                    if not m:
                        die("case '%s': cannot read --quant %s" % (cid, words[i + 1]))
                    quant[m.group(1)] = (m.group(2), int(m.group(3)))
                opts[w[2:]] = words[i + 1]
                i += 2
                continue
            m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)(?::([a-z0-9]+))?=(.*)$", w)
            if not m:
                die("case '%s': cannot read the word '%s'" % (cid, w))
            shape = tuple(int(s) for s in m.group(3).split(",")) if m.group(3) else ()
            self.ops.append((m.group(1), m.group(2), shape))
            i += 1
        self.op = opts.get("op", "add" if "expr" not in opts else None)
        dt = opts.get("dtype") or next((d for _, d, _ in self.ops if d), "f32")
        self.ops = [(n, d or dt, s) for n, d, s in self.ops]
        self.dtype = dt
        self.out_dtype = opts.get("out-dtype") or ("u8" if self.op in COMPARISONS else dt)
        self.axis = int(opts["axis"]) if "axis" in opts else None
        self.quant = quant_params(cid, self, quant, opts) if quant else None
        self.elem = self.flags.get("elem") or ("q_%s" % cid if self.quant else
                                               "%s_%s" % (self.op, dt))
        # NumPy's views: Paddle's axis places y inside x's dimensions.
        self.views = [s for _, _, s in self.ops]
        if self.axis is not None and len(self.ops) == 2:
            x, y = self.views
            if len(y) < len(x):
                yy = list(y)
                while yy and yy[-1] == 1:
                    yy.pop()
                ax = self.axis if self.axis >= 0 else len(x) - len(yy) + self.axis + 1
                self.views[1] = tuple(yy + [1] * (len(x) - ax - len(yy)))
        self.out_shape = broadcast_shapes(self.views)
        self.count = prod(self.out_shape)
        self.in_bytes = sum(prod(s) * SIZE[d] for _, d, s in self.ops)
        self.out_bytes = self.count * SIZE[self.out_dtype]
        self.bytes = self.in_bytes + self.out_bytes


def quant_oracle():
    """tests/quant_oracle.py, TFLite Micro's math in Python."""
    sys.path.insert(0, os.path.join(TOP, "tests"))
    try:
        import quant_oracle as q
    finally:
        sys.path.pop(0)
    return q


def quant_params(cid, case, quant, opts):
    """The constants of a quantized case (its --quant words QUANT, its
    --activation and --rounding in OPTS), as quant_oracle.params gives
    them for the oracle's x (the first operand), y (the second) and out."""
    names = [n for n, _, _ in case.ops]
    if len(names) != 2 or case.op not in QUANT_OPS or case.dtype not in QUANT_DTYPES:
        die("case '%s': a quantized case is an i8 or i16 add, subtract or multiply "
            "of two operands" % cid)
    missing = [n for n in names + ["out"] if n not in quant]
    if missing:
        die("case '%s': no --quant for %s" % (cid, ", ".join(missing)))
    q = quant_oracle()
    try:
        return q.params(QUANT_OPS[case.op], QUANT_DTYPES[case.dtype],
                        {"x": quant[names[0]], "y": quant[names[1]], "out": quant["out"]},
                        opts.get("activation", "none"), opts.get("rounding", "double"))
    except (q.Refused, ValueError) as e:
        die("case '%s': %s" % (cid, e))


def prod(s):
    n = 1
    for v in s:
        n *= v
    return n


def broadcast_shapes(shapes):
    rank = max(len(s) for s in shapes) if shapes else 0
    out = []
    for d in range(rank):
        n = 1
        for s in shapes:
            k = d - (rank - len(s))
            if k >= 0 and s[k] != 1:
                n = s[k]
        out.append(n)
    return tuple(out)


def strides(view, out_shape):
    """Element strides of an operand of shape view over out_shape (0 = stretched)."""
    rank = len(out_shape)
    full = (1,) * (rank - len(view)) + tuple(view)
    st, acc = [0] * rank, 1
    for d in range(rank - 1, -1, -1):
        st[d] = 0 if full[d] == 1 and out_shape[d] != 1 else acc
        acc *= full[d]
    return st


def read_cases(path):
    cases = []
    with open(path) as f:
        for ln, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split("|")]
            if len(parts) != 3:
                die("%s:%d: want 'ID | words | flags'" % (path, ln))
            cases.append(Case(parts[0], shlex.split(parts[1]), parts[2].split()))
    return cases


# ---------------------------------------------------------------- machine

def cache_sizes():
    """Data and unified caches of cpu0 from sysfs: [(level, bytes)]."""
    out = []
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        for d in sorted(os.listdir(base)):
            if not d.startswith("index"):
                continue
            rd = lambda f: open(os.path.join(base, d, f)).read().strip()
            if rd("type") == "Instruction":
                continue
            s = rd("size")
            mult = {"K": 1024, "M": 1 << 20, "G": 1 << 30}.get(s[-1], 1)
            out.append((int(rd("level")), int(s.rstrip("KMG")) * mult))
    except OSError:
        pass
    if not out:
        for lvl, name in ((1, "SC_LEVEL1_DCACHE_SIZE"), (2, "SC_LEVEL2_CACHE_SIZE"),
                          (3, "SC_LEVEL3_CACHE_SIZE")):
            try:
                v = os.sysconf(name)
                if v > 0:
                    out.append((lvl, v))
            except (ValueError, OSError):
                pass
    return out


def llc_bytes():
    c = cache_sizes()
    return max(c)[1] if c else 32 << 20


def machine(cc):
    cpu = "unknown"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    flags = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("flags"):
                fl = line.split()
                flags = " ".join(f for f in ("sse2", "avx", "avx2", "fma", "avx512f", "f16c")
                                 if f in fl)
                break
    except OSError:
        pass
    ccv = subprocess.run(shlex.split(cc) + ["--version"], capture_output=True,
                         text=True).stdout.splitlines()
    import numpy
    xnn = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "libxnnpack-dev"],
                         capture_output=True, text=True).stdout.strip()
    return {
        "cpu": cpu, "flags": flags, "cores": os.cpu_count(),
        "caches": cache_sizes(), "cc": ccv[0] if ccv else cc,
        "numpy": numpy.__version__, "xnnpack": xnn or "not installed",
        "kernel": platform.release(), "load0": os.getloadavg()[0],
    }


def have_xnnpack():
    return os.path.exists("/usr/include/xnnpack.h")


def xnn_of(case):
    """The case's XNNPACK operator (its flag xnn), or None: where XNNPACK
    is not installed, or the case is quantized in a dtype XNNPACK has no
    quantized operator for."""
    if not have_xnnpack() or (case.quant and case.dtype not in XNN_QUANT):
        return None
    return case.flags.get("xnn")


def quant_elem(case):
    """The element function of a quantized case, for naive and ref: the
    runtime's steps (bc_quant.h) with the case's constants."""
    p = case.quant
    r = "d" if p["rounding"] == "double" else "s"
    if p["op"] == "mul":
        acc = "bc_q_offset(x, %d) * bc_q_offset(y, %d)" % (p["zx"], p["zy"])
    else:
        acc = "bc_q_input_%s(x, %d, %d, %d, %d) %s bc_q_input_%s(y, %d, %d, %d, %d)" % (
            r, p["zx"], p["left_shift"], p["x_mult"], p["x_shift"],
            "+" if p["op"] == "add" else "-",
            r, p["zy"], p["left_shift"], p["y_mult"], p["y_shift"])
    t = CTYPE[case.dtype]
    return ["/* ** The element of this quantized case, TFLite Micro's math through bc_quant.h. */",
            "static inline %s elem_%s(%s x, %s y)" % (t, case.elem, t, t),
            "{",
            "\treturn bc_q_output_%s_%s(%s, %d, %d, %d, %d, %d);" % (
                case.dtype, r, acc, p["out_mult"], p["out_shift"], p["zo"], p["lo"], p["hi"]),
            "}"]


# ---------------------------------------------------------------- driver in C

def kernel_body(path, name):
    """The function of a generated file, its name replaced, to compare variants."""
    text = open(path).read()
    m = re.search(r"/\* Begin %s \*/(.*)/\* End %s \*/" % (name, name), text, re.S)
    body = m.group(1) if m else text
    return body.replace(name, "K")


def not_parallel(path, case):
    """Why the kernel at path, made with --parallel, is not parallel, as its
    banner says (its number of elements as N, so that the cases group), or
    None where it is parallel."""
    banner = " ".join(open(path).read().split("/* Begin")[0].replace("*", " ").split())
    m = re.search(r"(Not parallel, though --parallel asks: [^.]*)", banner)
    return m.group(1).replace("has %d elements" % case.count, "has N elements") if m else None


def have_openmp(cc, d):
    """Whether cc builds and links a program with -fopenmp (tried in d)."""
    src, exe = os.path.join(d, "omp.c"), os.path.join(d, "omp")
    with open(src, "w") as f:
        f.write("#include <omp.h>\nint main(void) { return omp_get_max_threads() < 1; }\n")
    ok = sh(shlex.split(cc) + ["-fopenmp", src, "-o", exe]).returncode == 0
    for f in (src, exe):
        if os.path.exists(f):
            os.unlink(f)
    return ok


def coalesce(out_shape, sts):
    """Drop size-1 dimensions and merge neighbours all operands allow."""
    dims = [(n, [s[d] for s in sts]) for d, n in enumerate(out_shape) if n != 1]
    merged = []
    for n, st in dims:
        if merged:
            pn, pst = merged[-1]
            if all(p == q * n for p, q in zip(pst, st)):
                merged[-1] = (pn * n, st)
                continue
        merged.append((n, st))
    return merged


def write_driver(case, d, variants, stream, wrong):
    """case.c: every C implementation of the case and its timing loops."""
    nin = len(case.ops)
    cin = [CTYPE[dt] for _, dt, _ in case.ops]
    cout = CTYPE[case.out_dtype]
    rank = len(case.out_shape)
    out_st = strides(case.out_shape, case.out_shape)
    sts = [strides(v, case.out_shape) for v in case.views] + [out_st]
    params = ", ".join("const %s *restrict" % t for t in cin) + ", %s *restrict" % cout
    args = ", ".join("in%d" % k for k in range(nin)) + ", out"
    L = []
    w = L.append
    w("/* case.c: the driver of case %s, generated by bench/run.py. */" % case.id)
    w("#define _POSIX_C_SOURCE 200809L")
    w('#include "bench.h"')
    w('#include "bc_ref.h"')
    if case.quant:
        w('#include "bc_quant.h"')
    if stream:
        w('#include "stream.h"')
    for v, _ in variants:
        w('#include "kern_%s.h"' % v)
    if xnn_of(case):
        w("#define BENCH_XNN 1")
        w("#include <xnnpack.h>")
    w("")
    w("void hand_%s(%s);" % (case.id, params))
    w("void hand_again_%s(%s);" % (case.id, params))
    w("")
    for k in range(nin):
        w("static %s *in%d;" % (cin[k], k))
    w("static %s *out, *expect;" % cout)
    w("static unsigned char *msrc;")
    w("static const char *note = \"\";")
    w("static int threads = 1;  /* xnnpack_mt's pthreadpool: bench_set_threads */")
    w("static const size_t in_count[%d] = {%s};" % (nin, ", ".join(
        str(prod(s)) for _, _, s in case.ops)))
    w("static const int in_dt[%d] = {%s};" % (nin, ", ".join(CDT[dt] for _, dt, _ in case.ops)))
    w("#define OUT_COUNT ((size_t)%d)" % case.count)
    w("#define OUT_BYTES ((size_t)%d)" % case.out_bytes)
    w("")
    if case.quant and not case.flags.get("elem"):
        for line in quant_elem(case):
            w(line)
        w("")
    # naive: offsets from the flat index by division and modulo; the
    # sizes are in writable globals, so they are not constants to gcc.
    r1 = max(rank, 1)
    w("size_t naive_dims[%d] = {%s};" % (r1, ", ".join(str(n) for n in case.out_shape) or "1"))
    w("ptrdiff_t naive_st[%d][%d] = {%s};" % (nin + 1, r1, ", ".join(
        "{%s}" % (", ".join(str(x) for x in s) or "0") for s in sts)))
    w("int naive_rank = %d;" % rank)
    w("static void naive(%s)" % ", ".join(
        ["const %s *restrict in%d" % (t, k) for k, t in enumerate(cin)] +
        ["%s *restrict out" % cout]))
    w("{")
    w("\tsize_t i;")
    w("\tfor (i = 0; i < OUT_COUNT; i++) {")
    w("\t\tsize_t rest = i;")
    w("\t\tptrdiff_t off[%d] = {0};" % (nin + 1))
    w("\t\tint dd, k;")
    w("\t\tfor (dd = naive_rank - 1; dd >= 0; dd--) {")
    w("\t\t\tsize_t q = rest % naive_dims[dd];")
    w("\t\t\trest /= naive_dims[dd];")
    w("\t\t\tfor (k = 0; k < %d; k++)" % (nin + 1))
    w("\t\t\t\toff[k] += (ptrdiff_t)q * naive_st[k][dd];")
    w("\t\t}")
    w("\t\tout[off[%d]] = elem_%s(%s);" % (nin, case.elem, ", ".join(
        "in%d[off[%d]]" % (k, k) for k in range(nin))))
    w("\t}")
    w("}")
    w("")
    # ref: the runtime's strided iterator, bc_ref.h.
    w("static void ref(%s)" % ", ".join(
        ["const %s *restrict in%d" % (t, k) for k, t in enumerate(cin)] +
        ["%s *restrict out" % cout]))
    w("{")
    w("\tsize_t idx[%d];" % r1)
    w("\tptrdiff_t off[%d];" % (nin + 1))
    w("\tstruct bc_ref_operand ops[%d];" % (nin + 1))
    w("\tint k;")
    w("\tfor (k = 0; k < %d; k++) {" % (nin + 1))
    w("\t\tops[k].data = NULL;")
    w("\t\tops[k].strides = naive_st[k];")
    w("\t}")
    w("\tif (bc_ref_index_init(naive_rank, naive_dims, idx, %d, off) == 0)" % (nin + 1))
    w("\t\treturn;")
    w("\tdo")
    w("\t\tout[off[%d]] = elem_%s(%s);" % (nin, case.elem, ", ".join(
        "in%d[off[%d]]" % (k, k) for k in range(nin))))
    w("\twhile (bc_ref_index_step(naive_rank, naive_dims, idx, %d, ops, off));" % (nin + 1))
    w("}")
    w("")
    if stream:
        loops = coalesce(case.out_shape, sts)
        inner, outer = loops[-1], loops[:-1]
        w("static const struct stream_rows rows = {")
        w("\t%d, {%s}," % (len(outer), ", ".join(str(n) for n, _ in outer) or "0"))
        for k in range(3):
            w("\t{%s}," % (", ".join(str(st[k]) for _, st in outer) or "0"))
        w("\t%d, %d, %d" % (inner[0], inner[1][0], inner[1][1]))
        w("};")
        w("")
    xnn = xnn_of(case)
    if xnn:
        w("#ifdef BENCH_XNN")
        w("static xnn_operator_t xop[2], xop_mt[2];")
        w("static pthreadpool_t pool;")
        w("static const size_t xshape[%d][%d] = {%s};" % (nin, max(rank, 1), ", ".join(
            "{%s}" % (", ".join(str(n) for n in v) or "0") for v in case.views)))
        w("static const size_t xrank[%d] = {%s};" % (nin, ", ".join(str(len(v)) for v in case.views)))
        w("")
        w("/* ** Create the case's XNNPACK operator(s) into ops, set up for the threads of tp. */")
        w("static enum xnn_status xnn_make(xnn_operator_t *ops, pthreadpool_t tp)")
        w("{")
        w("\tenum xnn_status s;")
        if xnn == "relu":
            w("\ts = xnn_create_multiply_nd_f32(-INFINITY, INFINITY, 0, &ops[0]);")
            w("\tif (s == xnn_status_success)")
            w("\t\ts = xnn_create_add_nd_f32(0.0f, INFINITY, 0, &ops[1]);")
            w("\tif (s == xnn_status_success)")
            w("\t\ts = xnn_setup_multiply_nd_f32(ops[0], xrank[0], xshape[0], xrank[1], "
              "xshape[1], in0, in1, out, tp);")
            w("\tif (s == xnn_status_success)")
            w("\t\ts = xnn_setup_add_nd_f32(ops[1], %d, naive_dims, xrank[2], xshape[2], "
              "out, in2, out, tp);" % rank)
        elif case.quant:
            # the quantized operator, with the case's scales (float32, as
            # the oracle and bcastgen round them), zero points and range
            p = case.quant
            qt = XNN_QUANT[case.dtype]
            w("\ts = xnn_create_%s_nd_%s(%d, %sf, %d, %sf, %d, %sf, %d, %d, 0, &ops[0]);" % (
                xnn, qt, p["zx"], float(p["sx"]).hex(), p["zy"], float(p["sy"]).hex(),
                p["zo"], float(p["so"]).hex(), p["lo"], p["hi"]))
            w("\tif (s == xnn_status_success)")
            w("\t\ts = xnn_setup_%s_nd_%s(ops[0], xrank[0], xshape[0], xrank[1], "
              "xshape[1], in0, in1, out, tp);" % (xnn, qt))
        elif xnn == "maximum":
            w("\ts = xnn_create_maximum_nd_f32(0, &ops[0]);")
            w("\tif (s == xnn_status_success)")
            w("\t\ts = xnn_setup_maximum_nd_f32(ops[0], xrank[0], xshape[0], xrank[1], "
              "xshape[1], in0, in1, out, tp);")
        else:
            # f16 in and out where the case is f16: XNNPACK computes it
            # with the hardware's conversions (F16C), or refuses
            w("\ts = xnn_create_%s_nd_%s(-INFINITY, INFINITY, 0, &ops[0]);" % (xnn, case.dtype))
            w("\tif (s == xnn_status_success)")
            w("\t\ts = xnn_setup_%s_nd_%s(ops[0], xrank[0], xshape[0], xrank[1], "
              "xshape[1], in0, in1, out, tp);" % (xnn, case.dtype))
        w("\treturn s;")
        w("}")
        w("")
        w("/*")
        w(" * ** Set up the case's XNNPACK operator(s) (xnnpack) and the same again for")
        w(" * a pthreadpool of threads threads (xnnpack_mt); 0 if XNNPACK cannot,")
        w(" * *mt 0 if only the pool cannot be had.")
        w(" */")
        w("static int xnn_setup(int *mt)")
        w("{")
        w("\tif (xnn_initialize(NULL) != xnn_status_success)")
        w("\t\treturn note = \"xnn_initialize failed\", 0;")
        w("\tif (xnn_make(xop, NULL) != xnn_status_success)")
        w("\t\treturn note = \"XNNPACK refused the case\", 0;")
        w("\t*mt = (pool = pthreadpool_create((size_t)threads)) != NULL &&")
        w("\t      xnn_make(xop_mt, pool) == xnn_status_success;")
        w("\tif (!*mt)")
        w("\t\tnote = \"no pthreadpool for xnnpack_mt\";")
        w("\treturn 1;")
        w("}")
        w("")
        w("/* ** One run of XNNPACK's operator(s). */")
        w("static void xnn(void)")
        w("{")
        w("\txnn_run_operator(xop[0], NULL);")
        if xnn == "relu":
            w("\txnn_run_operator(xop[1], NULL);")
        w("}")
        w("")
        w("/* ** One run of XNNPACK's operator(s) on the threads of the pool. */")
        w("static void xnn_mt(void)")
        w("{")
        w("\txnn_run_operator(xop_mt[0], pool);")
        if xnn == "relu":
            w("\txnn_run_operator(xop_mt[1], pool);")
        w("}")
        w("#endif")
        w("")
    # The implementations: name, call, whether checked.
    impls = []
    for v, _ in variants:
        impls.append((v, "kern_%s(%s)" % (v, args), 1))
    impls.append(("hand", "hand_%s(%s)" % (case.id, args), 1))
    impls.append(("hand_again", "hand_again_%s(%s)" % (case.id, args), 1))
    if xnn:
        # checked 2: the elements that differ are counted, not an error
        impls.append(("xnnpack", "xnn()", 2 if case.quant else 1))
        impls.append(("xnnpack_mt", "xnn_mt()", 2 if case.quant else 1))
    impls.append(("ref", "ref(%s)" % args, 1))
    impls.append(("naive", "naive(%s)" % args, 1))
    impls.append(("memcpy", "memcpy(out, msrc, OUT_BYTES)", 0))
    if stream:
        impls.append(("stream_lines", "stream_lines(&rows, out, in0, in1)", 1))
        impls.append(("stream_pages", "stream_pages(&rows, out, in0, in1)", 1))
    if wrong:
        impls.append(("wrong", "hand_%s(%s); ((unsigned char *)out)[OUT_BYTES / 2] ^= 0x40"
                      % (case.id, args), 1))
    if any(v == "parallel" for v, _ in variants):
        impls.append(("auto_wall", "kern_auto(%s)" % args, 1))
    w("/* The timing loops: reps calls between two readings of the clock (the")
    w(" * wall clock for the implementations of the Parallel table). */")
    for name, call, _ in impls:
        now = "bench_wall_now" if name in WALL_IMPLS else "bench_now"
        if name.startswith("xnnpack"):
            w("#ifdef BENCH_XNN")
        w("static uint64_t t_%s(long reps)" % name)
        w("{")
        w("\tuint64_t t0 = %s();" % now)
        w("\tlong r;")
        w("\tfor (r = 0; r < reps; r++) {")
        w("\t\t%s;" % call)
        w('\t\t__asm__ volatile("" ::: "memory");')
        w("\t}")
        w("\treturn %s() - t0;" % now)
        w("}")
        if name.startswith("xnnpack"):
            w("#endif")
    w("")
    w("struct impl { const char *name; uint64_t (*run)(long); int checked, wall; };")
    w("static struct impl impls[] = {")
    for name, _, chk in impls:
        if name.startswith("xnnpack"):
            w("#ifdef BENCH_XNN")
        w('\t{"%s", t_%s, %d, %d},' % (name, name, chk, name in WALL_IMPLS))
        if name.startswith("xnnpack"):
            w("#endif")
    w("};")
    w("static int nimpl = (int)(sizeof impls / sizeof impls[0]);")
    w("")
    w("/* ** Allocate and fill the buffers, run hand for the expected output. */")
    w("BENCH_API int bench_setup(void)")
    w("{")
    w("\tint k;")
    for k in range(nin):
        w("\tif (!(in%d = bench_alloc(in_count[%d] * sizeof *in%d)))" % (k, k, k))
        w("\t\treturn 0;")
        w("\tbench_fill(in%d, in_count[%d], in_dt[%d], %d, %d);" % (
            k, k, k, 1000 + k, 1 if case.flags.get("nan") else 0))
    w("\tif (!(out = bench_alloc(OUT_BYTES)) || !(expect = bench_alloc(OUT_BYTES)) ||")
    w("\t    !(msrc = bench_alloc(OUT_BYTES)))")
    w("\t\treturn 0;")
    w("\tbench_fill(msrc, OUT_BYTES, BENCH_U8, 7, 0);")
    w("\thand_%s(%s);" % (case.id, args.replace("out", "expect")))
    w("\t(void)k;")
    if xnn:
        w("#ifdef BENCH_XNN")
        w("\t{")
        w("\t\tint mt = 0, ok = xnn_setup(&mt);")
        w("\t\tfor (k = nimpl - 1; k >= 0; k--)")
        w('\t\t\tif ((!ok && !strcmp(impls[k].name, "xnnpack")) ||')
        w('\t\t\t    (!mt && !strcmp(impls[k].name, "xnnpack_mt")))')
        w("\t\t\t\timpls[k] = impls[--nimpl];")
        w("\t}")
        w("#endif")
    w("\treturn 1;")
    w("}")
    w("")
    w("/* ** Time with the wall clock instead of the thread's processor time. */")
    w("BENCH_API void bench_wall_clock(void) { bench_clock = CLOCK_MONOTONIC; }")
    w("BENCH_API int bench_nimpl(void) { return nimpl; }")
    w("BENCH_API const char *bench_name(int i) { return impls[i].name; }")
    w("BENCH_API int bench_checked(int i) { return impls[i].checked; }")
    w("/* ** Whether implementation i is timed with the wall clock, whatever the clock. */")
    w("BENCH_API int bench_timed_wall(int i) { return impls[i].wall; }")
    w("/* ** xnnpack_mt's threads: call before bench_setup. */")
    w("BENCH_API void bench_set_threads(int n) { threads = n; }")
    w("BENCH_API const char *bench_note(void) { return note; }")
    if stream:
        w("BENCH_API const char *bench_stream_kind(void) { return STREAM_KIND; }")
    else:
        w('BENCH_API const char *bench_stream_kind(void) { return ""; }')
    w("/* ** Nanoseconds for reps calls of implementation i. */")
    w("BENCH_API uint64_t bench_run(int i, long reps) { return impls[i].run(reps); }")
    w("BENCH_API void bench_poison(void) { memset(out, 0xa5, OUT_BYTES); }")
    w("/* ** Elements of the output that differ from hand's. */")
    w("BENCH_API long bench_check(void)")
    w("{")
    w("\treturn (long)bench_compare(out, expect, OUT_COUNT, %s);" % CDT[case.out_dtype])
    w("}")
    w("/* ** The largest difference of an element of the output from hand's (integers). */")
    w("BENCH_API long bench_max_diff_out(void)")
    w("{")
    w("\treturn bench_max_diff(out, expect, OUT_COUNT, %s);" % CDT[case.out_dtype])
    w("}")
    w("/* ** hand's output, which every implementation is checked against. */")
    w("BENCH_API void *bench_expect(void) { return expect; }")
    w("BENCH_API void *bench_buf(int k) { return k < %d ? (void *[]){%s}[k] : (void *)out; }"
      % (nin, ", ".join("in%d" % k for k in range(nin))))
    w("")
    w("#ifdef BENCH_MAIN")
    w("#include <stdio.h>")
    w("/* ** For callgrind: run implementation argv[1] argv[2] times. */")
    w("int main(int argc, char **argv)")
    w("{")
    w("\tint i;")
    w("\tif (argc != 3 || !bench_setup())")
    w("\t\treturn 2;")
    w("\tfor (i = 0; i < nimpl; i++)")
    w("\t\tif (!strcmp(impls[i].name, argv[1])) {")
    w("\t\t\timpls[i].run(atol(argv[2]));")
    w("\t\t\treturn 0;")
    w("\t\t}")
    w("\treturn 1;")
    w("}")
    w("#endif")
    with open(os.path.join(d, "case.c"), "w") as f:
        f.write("\n".join(L) + "\n")


# ---------------------------------------------------------------- build

def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def build_case(case, level, args, wrong=False):
    """Generate, write the driver, compile; returns (dir, variants, notes)."""
    d = os.path.join(args.out, level, case.id)
    os.makedirs(d, exist_ok=True)
    variants, notes, bodies = [], {}, {}
    for v, opts in VARIANTS:
        name = "kern_%s" % v
        path = os.path.join(d, name + ".c")
        for f in (path, path[:-2] + ".h"):
            if os.path.exists(f):
                os.unlink(f)
        if v == "parallel" and not args.openmp:
            notes[v] = "does not apply: the compiler builds nothing with -fopenmp"
            continue
        if v in VARIANT_CFLAGS and "bc_f16_to_f32_n" not in bodies["auto"]:
            notes[v] = "does not apply: auto converts no f16 line"
            continue
        r = sh([args.gen] + case.words + opts + ["--target", args.target[level],
                                                 "--tune", args.tune,
                                                 "--name", name, "-o", path])
        if r.returncode != 0:
            msg = (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[0]
            msg = re.sub(r"[0-9]+", "N", msg.replace("bcastgen: error: ", "").split(": ")[0])
            notes[v] = "does not apply: bcastgen answers: " + msg
            continue
        why = not_parallel(path, case) if v == "parallel" else None
        if why:
            notes[v] = "does not apply: bcastgen's banner says: " + why
            continue
        body = kernel_body(path, name)
        same = next((u for u, b in bodies.items() if b == body), None)
        if same and v not in VARIANT_CFLAGS:
            notes[v] = "same code as %s" % same
            continue
        bodies[v] = body
        variants.append((v, opts))
    if not variants or variants[0][0] != "auto":
        die("case '%s': bcastgen refuses the default: %s" % (case.id, notes.get("auto")))
    if "bc_stream_line" in bodies["auto"]:
        notes["auto"] = AUTO_STREAMS
    if case.quant:
        notes["numpy"] = ("does not apply: NumPy has no quantized arithmetic (hand is checked "
                          "against tests/quant_oracle.py instead)")
        if case.dtype not in XNN_QUANT:
            notes["xnnpack"] = ("does not apply: XNNPACK (Debian's) has no quantized %s operator"
                                % QUANT_DTYPES[case.dtype])
    stream = (case.bytes > args.llc and case.elem == "add_f32" and len(case.ops) == 2)
    if stream:
        sts = [strides(v, case.out_shape) for v in case.views] + \
            [strides(case.out_shape, case.out_shape)]
        inner = coalesce(case.out_shape, sts)[-1]
        stream = inner[1][2] == 1 and (inner[1][0] or inner[1][1]) and \
            inner[1][0] in (0, 1) and inner[1][1] in (0, 1) and \
            len(coalesce(case.out_shape, sts)) <= 9
    write_driver(case, d, variants, stream, wrong)
    cflags = shlex.split(args.cc) + ["-std=c99", "-ffp-contract=off", "-fPIC",
                                     "-fvisibility=hidden", "-g"] + \
        LEVELS[level].split() + ["-I", os.path.join(TOP, "runtime"), "-I", HERE, "-I", d]
    srcs = [("kern_%s.c" % v, os.path.join(d, "kern_%s.c" % v)) for v, _ in variants]
    srcs += [("hand.c", os.path.join(HERE, "hand.c")), ("hand_again.c", os.path.join(HERE, "hand.c")),
             ("case.c", os.path.join(d, "case.c"))]
    # parallel alone is built with OpenMP (BC_PARALLEL in bc.h), the case
    # linked with it where it is there
    omp = ["-fopenmp"] if any(v == "parallel" for v, _ in variants) else []
    objs = []
    for base, src in srcs:
        obj = os.path.join(d, base[:-2] + ".o")
        r = sh(cflags + (omp if base == "kern_parallel.c" else [])
               + (AGAIN if base == "hand_again.c" else [])
               + VARIANT_CFLAGS.get(base[5:-2], []) + ["-c", src, "-o", obj])
        if r.returncode != 0:
            die("case '%s': %s does not compile:\n%s" % (case.id, base, r.stderr))
        objs.append(obj)
    libs = ["-lXNNPACK", "-lpthreadpool"] if xnn_of(case) else []
    so = os.path.join(d, "case.so")
    r = sh(cflags + omp + ["-shared", "-o", so] + objs + libs + ["-lm"])
    if r.returncode != 0:
        die("case '%s': cannot link:\n%s" % (case.id, r.stderr))
    d_cg = None
    if case.flags.get("ir"):
        # hand_again is hand there: callgrind counts hand's instructions once
        d_cg = (cflags + ["-Dhand_again_%s=hand_%s" % (case.id, case.id)],
                [s for b, s in srcs if b != "hand_again.c"], libs)
        build_cg(case, d, d_cg, [])
    return d, [v for v, _ in variants], notes, bool(stream), d_cg


def build_cg(case, d, how, extra):
    """The callgrind driver: every source again, with main (BENCH_MAIN)."""
    cflags, srcs, libs = how
    r = sh(cflags + extra + ["-DBENCH_MAIN", "-o", os.path.join(d, "case_main")] +
           srcs + libs + ["-lm"])
    if r.returncode != 0:
        die("case '%s': cannot build the callgrind driver:\n%s" % (case.id, r.stderr))


# ---------------------------------------------------------------- child

def numpy_call(case, arrs, out):
    """A function running NumPy's computation of the case into out."""
    import numpy as np
    npname = case.flags.get("np")
    if npname == "relu":
        x, w, b = arrs
        zero = np.float32(0)

        def f():
            np.multiply(x, w, out=out)
            np.add(out, b, out=out)
            np.maximum(out, zero, out=out)
        return f
    ufunc = getattr(np, {"gt": "greater", "mul": "multiply", "max": "maximum",
                         "sub": "subtract"}.get(case.op, case.op))
    return lambda: ufunc(*arrs, out=out)


def child(args):
    """Run one case in this process; print its results as JSON."""
    import ctypes
    import numpy as np
    case = next(c for c in read_cases(args.cases) if c.id == args.child_case)
    lib = ctypes.CDLL(args.child)
    lib.bench_run.restype = ctypes.c_uint64
    lib.bench_run.argtypes = [ctypes.c_int, ctypes.c_long]
    lib.bench_name.restype = ctypes.c_char_p
    lib.bench_note.restype = ctypes.c_char_p
    lib.bench_stream_kind.restype = ctypes.c_char_p
    lib.bench_buf.restype = ctypes.c_void_p
    lib.bench_check.restype = ctypes.c_long
    lib.bench_max_diff_out.restype = ctypes.c_long
    lib.bench_expect.restype = ctypes.c_void_p
    lib.bench_set_threads(args.child_threads)
    if not lib.bench_setup():
        die("case '%s': out of memory" % case.id)

    def wrap(k, dt, shape):
        n = prod(shape) * SIZE[dt]
        buf = (ctypes.c_char * max(n, 1)).from_address(lib.bench_buf(k))
        return np.frombuffer(buf, dtype=NPDT[dt], count=prod(shape)).reshape(shape)

    arrs = [wrap(k, dt, case.views[k]) for k, (_, dt, _) in enumerate(case.ops)]
    out = wrap(len(case.ops), case.out_dtype, case.out_shape)
    if case.quant:
        # hand's output, which everything is checked against, against
        # TFLite Micro's math in Python, once per case (the inputs are the
        # same in every process)
        if args.order_seed == 0:
            n = case.count * SIZE[case.out_dtype]
            expect = np.frombuffer((ctypes.c_char * n).from_address(lib.bench_expect()),
                                   dtype=NPDT[case.out_dtype]).reshape(case.out_shape)
            want = quant_oracle().compute(case.quant, *arrs)
            bad = int(np.count_nonzero(want != expect))
            if bad:
                die("case '%s': hand_%s differs from tests/quant_oracle.py in %d of %d "
                    "elements: bench/hand.c does not compute the case's line of %s" % (
                        case.id, case.id, bad, case.count, os.path.basename(args.cases)))
        npf = None
    else:
        npf = numpy_call(case, arrs, out)

    clock = time.thread_time_ns
    if args.clock == "wall":
        lib.bench_wall_clock()
        clock = time.perf_counter_ns

    def np_run(reps):
        t0 = clock()
        for _ in range(reps):
            npf()
        return clock() - t0

    impls = []
    for i in range(lib.bench_nimpl()):
        name = lib.bench_name(i).decode()
        impls.append((name, (lambda i: lambda reps: lib.bench_run(i, reps))(i),
                      lib.bench_checked(i), lib.bench_timed_wall(i)))
    if npf:
        impls.insert(next(k for k, im in enumerate(impls) if im[0] == "ref"),
                     ("numpy", np_run, 1, 0))
    res = {"note": lib.bench_note().decode(), "stream_kind": lib.bench_stream_kind().decode(),
           "impls": {}}
    timed, walled = [], []
    for name, run, checked, wall in impls:
        r = {"check": "unchecked", "clock": "wall" if wall or args.clock == "wall" else "thread"}
        if checked:
            lib.bench_poison()
            run(1)
            bad = lib.bench_check()
            r["check"] = "ok" if bad == 0 else "WRONG (%d of %d elements)" % (bad, case.count)
            if checked == 2:
                # rounds differently: the elements that differ, counted
                r["differ"], r["max_diff"] = bad, lib.bench_max_diff_out()
                r["check"] = "ok" if bad == 0 else DIFFERS % (bad, case.count)
        res["impls"][name] = r
        if r["check"] in ("ok", "unchecked") or r["check"].startswith("differs"):
            (walled if wall else timed).append((name, run))
    # The threads of OpenMP and of a pthreadpool spin a while after their
    # work before they sleep: let them, before anything is timed.
    if any(name in ("parallel", "xnnpack_mt") for name, *_ in impls):
        time.sleep(0.2)
    rounds = args.rounds if case.bytes < (64 << 20) else args.big_rounds
    # The implementations timed with the wall clock (parallel, xnnpack_mt
    # and auto_wall) take their rounds after the others', among
    # themselves: the others' times stay as they were without them, with
    # no worker thread still spinning beside them.
    time_group(timed, rounds, args, res, 0)
    time_group(walled, rounds, args, res, SETTLE_S)
    res["rounds"] = rounds
    print(json.dumps(res))


# The check of an implementation that rounds differently (COUNTED), where
# some elements differ from hand's: timed all the same.
DIFFERS = "differs (%d of %d elements)"


# Seconds to wait after each batch of the implementations timed with the
# wall clock: OpenMP's and pthreadpool's workers spin some milliseconds
# after their work before they sleep (about 5-7 ms of processor time on
# the Xeon of BENCHMARKS.md), and one runtime's spinning worker takes the
# core the other's needs.
SETTLE_S = 0.03


def time_group(timed, rounds, args, res, settle):
    """Time the implementations of timed [(name, run)] in rounds, each
    round in another order, waiting settle seconds after each batch;
    their reps and times into res."""
    # Reps per implementation: a batch of at least args.batch_ns, measured
    # after a call that warms the caches (a cold first call, up to twice
    # as slow, gave a batch of half the calls)
    reps = {}
    for name, run in timed:
        run(1)
        n, t = 1, run(1)
        while t < args.batch_ns and n < 1 << 30:
            n = max(n * 2, min(n * 100, int(n * 1.2 * args.batch_ns / max(t, 1))))
            t = run(n)
        reps[name] = n
        time.sleep(settle)
    times = {name: [] for name, _ in timed}
    # Each process rotates its own order of the implementations (the first
    # keeps the listed one, the others a seeded shuffle), so that no
    # implementation always follows the same one in every process: what
    # the one before leaves in the caches can move a 16 MiB output's time
    # by half.
    order = list(timed)
    if args.order_seed:
        random.Random(args.order_seed).shuffle(order)
    for r in range(rounds if order else 0):
        k = r % len(order)
        for name, run in order[k:] + order[:k]:
            # an untimed batch first: the caches as this implementation
            # leaves them, not as the one before it in the order did (one
            # call did not do: on the Intel Xeon the same machine code ran
            # 1.25x slower after a naive loop than after a memcpy)
            run(reps[name])
            times[name].append(run(reps[name]) / reps[name])
            time.sleep(settle)
    for name, _ in timed:
        res["impls"][name].update(reps=reps[name], ns=times[name])


def merge_runs(row, more):
    """Pool the rounds of another process of the same case into ROW: where
    the pages of a process land moves in-cache timings by tens of percent,
    so each case runs in several processes, one after the other."""
    if row is None:
        return more
    for name, r in more["impls"].items():
        mine = row["impls"].setdefault(name, r)
        if mine is r:
            continue
        if r["check"].startswith("WRONG"):
            mine["check"] = r["check"]
        if "ns" in r:
            mine["ns"] = mine.get("ns", []) + r["ns"]
    row["rounds"] += more["rounds"]
    return row


# ---------------------------------------------------------------- callgrind

def callgrind(case, d, impls, how):
    """Instructions per output element of each implementation, or {}.

    Valgrind knows no AVX-512: if the driver dies under it, it is rebuilt
    with -mno-avx512f and the result says so (key "flags")."""
    exe = os.path.join(d, "case_main")
    if not os.path.exists(exe) or not shutil_which("valgrind"):
        return {}
    out = {}
    if sh(["valgrind", "--tool=none", exe, impls[0], "1"]).returncode != 0:
        build_cg(case, d, how, ["-mno-avx512f"])
        out["flags"] = "-mno-avx512f"
    for name in impls:
        fn = "kern_%s" % name if name not in ("hand",) else "hand_%s" % case.id
        n = max(10, min(1000, 200000 // max(case.count, 1)))
        cgf = os.path.join(d, "cg.%s.out" % name)
        r = sh(["valgrind", "--tool=callgrind", "--collect-atstart=no",
                "--toggle-collect=%s" % fn, "--callgrind-out-file=%s" % cgf, exe, name, str(n)])
        if r.returncode != 0:
            continue
        tot = None
        for line in open(cgf):
            if line.startswith(("totals:", "summary:")):
                tot = int(line.split()[1])
        if tot:
            out[name] = tot / (n * case.count)
    return out


def shutil_which(p):
    import shutil
    return shutil.which(p)


# ---------------------------------------------------------------- generation speed

def gen_spec(path, n, seed=14):
    """A spec of n varied kernels: ops, dtypes, ranks, broadcasts, expressions."""
    import random
    rnd = random.Random(seed)
    ops = ["add", "sub", "mul", "maximum", "minimum", "greater", "divide", "where"]
    dts = ["f32", "f32", "f32", "f64", "i32", "i8", "u8", "f16"]
    lines = []
    for i in range(n):
        rank = rnd.randint(1, 5)
        out = [rnd.choice([1, 2, 3, 4, 5, 7, 8, 16, 17, 32, 64, 100, 256]) for _ in range(rank)]
        op = rnd.choice(ops + ["expr"])
        dt = rnd.choice(dts)
        nops = 3 if op in ("where", "expr") else 2
        shapes = []
        for k in range(nops):
            keep = rnd.randint(0, rank)
            s = [n if rnd.random() < 0.7 else 1 for n in out[rank - keep:]]
            shapes.append(s)
        shapes[0] = out[:]
        if op == "where" and dt == "f16":
            dt = "f32"
        fields = []
        if op == "expr":
            fields.append('expr = "max(a*b + c, 0)"')
        else:
            fields.append('op = "%s"' % op)
        fields.append('dtype = "%s"' % dt)
        names = ["a", "b", "c"]
        for k in range(nops):
            fields.append('"%s=%s"' % (names[k], ",".join(str(v) for v in shapes[k])))
        if rnd.random() < 0.2:
            fields.append('strategy = "loops"')
        lines.append('kernel "k%d" { %s }' % (i, ", ".join(fields)))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def run_timed(cmd):
    """Run cmd; returns (returncode, cpu seconds of the child, stderr)."""
    t0 = os.times()
    r = subprocess.run(cmd, capture_output=True, text=True)
    t1 = os.times()
    return r.returncode, (t1.children_user - t0.children_user) + \
        (t1.children_system - t0.children_system), r.stderr


def gen_speed(args):
    d = os.path.join(args.out, "gen")
    os.makedirs(d, exist_ok=True)
    res = {}
    probe = os.path.join(d, "probe.c")
    rc, _, _ = run_timed([args.gen, "--timings", "x=3", "y=3", "-o", probe])
    timings = rc == 0
    for n in (1000, 10000):
        spec = os.path.join(d, "spec%d.lua" % n)
        gen_spec(spec, n)
        best, split = None, None
        for _ in range(3 if n == 1000 else 2):
            cmd = [args.gen, spec, "-o", os.path.join(d, "k%d.c" % n)]
            if timings:
                cmd.insert(1, "--timings")
            rc, cpu, err = run_timed(cmd)
            if rc != 0:
                die("the generation spec of %d kernels fails:\n%s" % (n, err))
            if best is None or cpu < best:
                best = cpu
                split = None
                for line in err.splitlines():
                    if "timings" in line:
                        split = {m.group(1): float(m.group(2)) for m in
                                 re.finditer(r"([a-z][a-z ]*?)\s+([0-9.]+)\s*s\b",
                                             line.split("timings:", 1)[-1])}
        res[n] = {"cpu": best, "split": split}
    res["timings_option"] = timings
    return res


# ---------------------------------------------------------------- report

def med(v):
    return statistics.median(v) if v else None


def fmt_ns(v):
    if v is None:
        return "-"
    if v >= 1e6:
        return "%.2f ms" % (v / 1e6)
    if v >= 1e3:
        return "%.1f us" % (v / 1e3)
    return "%.1f ns" % v


def fmt_r(v):
    return "-" if v is None else "%.2f" % v


def ratios(row):
    """Speed ratios of auto against the others: above 1 means auto is faster."""
    t = {k: med(v["ns"]) for k, v in row["impls"].items() if v.get("ns")}
    a = t.get("auto")
    if a is None:
        return {}
    out = {}
    out["hand"] = t["hand"] / a if "hand" in t else None
    out["again"] = t["hand_again"] / t["hand"] if "hand" in t and "hand_again" in t else None
    out["xnnpack"] = t["xnnpack"] / a if "xnnpack" in t else None
    others = [t[k] for k in OTHERS if k in t]
    out["best"] = min(others) / a if others else None
    tm = {k: min(v["ns"]) for k, v in row["impls"].items() if v.get("ns")}
    out["hand_min"] = tm["hand"] / tm["auto"] if "hand" in tm else None
    out["xnnpack_min"] = tm["xnnpack"] / tm["auto"] if "xnnpack" in tm else None
    st = [t[k] for k in ("stream_lines", "stream_pages") if k in t]
    out["stream"] = min(st) / a if st else None
    return out


def parallel_ratios(row, by=None):
    """The Parallel table's ratios of a case: auto_wall's median time (or
    by(times)) over parallel's (speedup) and xnnpack_mt's over parallel's
    (xnnpack_mt); above 1 means parallel is faster; {} where parallel was
    not timed."""
    t = {k: (by or med)(v["ns"]) for k, v in row["impls"].items() if v.get("ns")}
    p = t.get("parallel")
    if p is None:
        return {}
    return {"speedup": t["auto_wall"] / p if "auto_wall" in t else None,
            "xnnpack_mt": t["xnnpack_mt"] / p if "xnnpack_mt" in t else None}


def in_cache(case, llc):
    """Whether the case's data (its inputs and output) fit in the last-level
    cache of llc bytes: the cases past it are out of cache."""
    return case.bytes <= llc


def write_tsv(path, results, cases):
    """results.tsv: a line per level, case and implementation; the last
    column, clock, says which clock timed it (thread or wall)."""
    with open(path, "w") as f:
        f.write("level\tcase\timpl\tcheck\treps\trounds\tmin_ns\tmedian_ns\tmax_ns\t"
                "ns_per_elem\tGB_s\tclock\n")
        for level, rows in results.items():
            for cid, row in rows.items():
                c = cases[cid]
                for name, r in row["impls"].items():
                    ns = r.get("ns")
                    if ns:
                        m = med(ns)
                        by = 2 * c.out_bytes if name == "memcpy" else c.bytes
                        f.write("%s\t%s\t%s\t%s\t%d\t%d\t%.1f\t%.1f\t%.1f\t%.4f\t%.2f\t%s\n" % (
                            level, cid, name, r["check"], r["reps"], row["rounds"],
                            min(ns), m, max(ns), m / c.count, by / m, r.get("clock", "")))
                    else:
                        f.write("%s\t%s\t%s\t%s\t\t\t\t\t\t\t\t%s\n" % (
                            level, cid, name, r["check"], r.get("clock", "")))


def impl_columns(rows):
    """The columns of a level's table of medians: every implementation
    run, in a fixed order, but those of the Parallel table."""
    cols = []
    for row in rows.values():
        for k in row["impls"]:
            if k not in cols and k not in WALL_IMPLS:
                cols.append(k)
    order = [v for v, _ in VARIANTS] + ["hand", "hand_again", "xnnpack", "numpy", "ref", "naive",
                                        "memcpy", "stream_lines", "stream_pages", "wrong"]
    return [k for k in order if k in cols] + [k for k in cols if k not in order]


# The line that opens a processor's section of BENCHMARKS.md (and its part
# of bench/notes.md); a whole run finds its own section by it.
SECTION_MARK = "<!-- processor: %s -->"
SECTION_RE = re.compile(r"^<!-- processor: (.*) -->$")
# The target rows of a section written before make bench passed --target.
PREDATES = ("none: the run predates `--target`; every level got the choices of what is now"
            " the `generic` row")


def processor_key(mach):
    """The processor a run measured, as its section names it: the model
    name and the ISA features that matter here, as /proc/cpuinfo gives them."""
    return "%s (%s)" % (mach["cpu"], mach["flags"])


def processor_slug(mach):
    """The processor in a file name: the model name in lowercase words,
    then its newest vector extension (amd-epyc-avx512f)."""
    name = re.sub(r"\((r|tm)\)", "", mach["cpu"].lower())
    name = re.sub(r"[^a-z0-9]+", "-", name).strip("-") or "unknown"
    isa = [f for f in ("sse2", "avx", "avx2", "avx512f") if f in mach["flags"].split()]
    return name + ("-" + isa[-1] if isa else "")


def level_rows(args, levels):
    """The target row each level used, for the section's Target rows line."""
    return "; ".join("`--target %s --tune %s` at %s" % (args.target[lv], args.tune, LEVEL_TITLE[lv])
                     for lv in levels)


def report_head(sections):
    """The shared top of BENCHMARKS.md, before the processors' sections:
    the summary (one row per section, in their order), the harness, how to
    reproduce it and the implementations. Written anew by every run."""
    md = []
    w = md.append
    w("# Benchmarks")
    w("")
    w("Generated by `make bench` (bench/run.py), one section per processor, each")
    w("from the last whole run on that processor; do not edit by hand.")
    w("")
    w("| processor | measured | target row per level |")
    w("| --- | --- | --- |")
    for key, text in sections:
        date, rows = section_facts(text)
        w("| %s | %s | %s |" % (key, date, rows))
    w("")
    w("## The harness")
    w("")
    w("Every implementation of a case in one shared object built")
    w("with the same compiler and flags, run in a process of its own, checked byte for")
    w("byte against the hand-written loop before anything is timed, then timed in")
    w("rounds with the order rotated by one each round (each process of a case its own")
    w("order: the listed one, then seeded shuffles); each timed batch comes after")
    w("an untimed batch of its own (as many calls), so that no implementation")
    w("inherits the caches another left (streaming stores evict the output, for one):")
    w("after one untimed call, as before, two implementations of the same machine code")
    w("differed by up to 1.25x on an in-cache 12 MiB add on the Intel Xeon.")
    w("")
    w("## Reproduce")
    w("")
    w("```sh")
    w("make bench                                  # everything: about 15 minutes")
    w("make bench BENCH_CASES='row odd7' BENCH_LEVELS=O2   # a subset, in seconds")
    w("```")
    w("")
    w("`make bench` installs what it needs (`BENCH_DEPS`), builds bcastgen, and runs")
    w("`/usr/bin/python3 bench/run.py`. A whole run (all cases, the levels O2 and O3")
    w("at least) replaces the section of the processor it ran on (its model name and")
    w("ISA features, as the line `<!-- processor: ... -->` that opens the section")
    w("gives them), or adds one, writes that section's plot")
    w("`bench/ratios-PROCESSOR.svg`, and rewrites the shared parts at the top; the")
    w("other processors' sections stay as they are. The hand-written reading of a")
    w("processor's missed targets is its part of `bench/notes.md`. A subset writes")
    w("`build/bench/BENCHMARKS.md`, with its one section, only. Everything is in")
    w("`build/bench/`: `results.tsv` (every implementation's")
    w("min/median/max), each case's generated kernels, driver (`case.c`) and shared")
    w("object. A case is a line of `bench/cases.txt` and a function of `bench/hand.c`.")
    w("")
    w("Each level generates for a row of bcastgen's target table (`--target`): the")
    w("newest x86-64 level whose macros the compiler defines with the level's flags")
    w("(x86-64 at `-O2`, the host's level at `-O3 -march=native`); where that is")
    w("x86-64-v4 a third level, `-O3 -march=x86-64-v3`, measures the v3 row on the")
    w("same machine. Every level is tuned (`--tune`) for the processor the compiler's")
    w("`-march=native` tunes for (its `__tune_NAME__`), where bcastgen has that tuning,")
    w("else `generic`. Each section says which row and tuning each of its levels used.")
    w("")
    w("Implementations: **auto** is bcastgen's kernel with default options; **loops**,")
    w("**block**, **unroll** (`--unroll-limit 512`), **stream_on**, **stream_off** are the other")
    w("strategies and options where bcastgen accepts them and emits different code;")
    w("**hand** the hand-written loop (the reference; for a quantized case TFLite Micro's")
    w("reference math, itself checked against `tests/quant_oracle.py`); **hand_again** the same source")
    w("compiled a second time under other names and timed as an implementation of its")
    w("own, whose time over hand's (*A/A*) shows the harness's noise; **xnnpack** XNNPACK's")
    w("`xnn_*_nd_f32` operator, `xnn_*_nd_f16` for the f16 cases (`max(x*w + b, 0)` as a")
    w("multiply then an add clamped at 0, in place in the output), `xnn_*_nd_qs8` for the")
    w("quantized int8 cases (`--quant`), with the same scales, zero points and range: it")
    w("rounds differently from TFLite Micro, so it is timed and the elements of its output")
    w("that differ from hand's are counted, not treated as an error (XNNPACK has no int16")
    w("operator); **numpy** the ufunc with a preallocated `out=`")
    w("(timed with `time.perf_counter_ns` around the batch, the same buffers; none for the")
    w("quantized cases);")
    w("**ref** the runtime's strided iterator (`runtime/bc_ref.h`); **naive** offsets")
    w("from the flat index by division and modulo; **memcpy** of the output's bytes")
    w("(a yardstick, not checked; its GB/s counts the output twice);")
    w("**stream_lines** and **stream_pages** the streaming-store loops of")
    w("`bench/stream.h` (line by line; four 4 KiB pages in flight), for out-of-cache")
    w("f32 adds: the memory system's limit is the faster of the two.")
    w("**parallel** is auto made with `--parallel` and built with `-fopenmp`, where")
    w("bcastgen's banner says the kernel is parallel; **xnnpack_mt** the xnnpack operator")
    w("on a pthreadpool of as many threads (the cores the bench may use). Both, and")
    w("auto again (**auto_wall**), are timed with the wall clock in rounds of their own,")
    w("and reported in each level's Parallel table, not in the tables of ratios.")
    w("**f16_sse2** and **f16_loop** are auto's kernel built with `-DBC_F16_NO_F16C` (the")
    w("f16 line helpers' SSE2 form, as on a processor without F16C) and with")
    w("`-DBC_F16_PORTABLE` (their portable loop), where auto converts f16 lines.")
    w("")
    w("Times are per call, read by default from the thread's processor time")
    w("(`CLOCK_THREAD_CPUTIME_ID`, NumPy's `time.thread_time_ns`), which stops while")
    w("the process waits for a core (`--clock`): the machines are shared. By default")
    w("each implementation's batch repeats the call for at least %.0f ms (reps" % BATCH_MS)
    w("calibrated per implementation), %d rounds (%d for cases past 64 MiB) in each of"
      % (ROUNDS, BIG_ROUNDS))
    w("%d processes run one after the other for the case (where a process's pages land"
      % PROCESSES)
    w("moves in-cache times by tens of percent); a section's *timing* line says what")
    w("its run used, where it has one.")
    w("min/median/max are over all their rounds. GB/s counts each input and the output once.")
    w("Ratios are speed ratios of **auto** against another implementation (its median")
    w("time over auto's): above 1.00 auto is faster; *vs hand (min)* takes the two")
    w("minimums instead, less sensitive to other work on the machine. *best* is the best of hand,")
    w("xnnpack, numpy, ref and naive; *stream* is the fraction of the streaming limit.")
    w("*A/A* is hand_again's median time over hand's: the same code, so its spread over a")
    w("level's cases is what the harness cannot tell apart; the targets allow auto that")
    w("much in each case (*within the run's noise*: auto over hand at least the case's")
    w("A/A or its inverse, whichever is below 1).")
    return "\n".join(md)


def section_facts(text):
    """The date and the target rows of a section, read from its heading
    (which ends with the date) and its Target rows line; '?' where missing."""
    date, rows = "?", "?"
    for line in text.split("\n"):
        m = re.match(r"^## .*(\d{4}-\d{2}-\d{2})$", line)
        if m and date == "?":
            date = m.group(1)
        if line.startswith("Target rows: ") and rows == "?":
            rows = line[len("Target rows: "):]
    return date, rows


def report_section(args, results, cases, mach, cg, gen, full, svg_ref):
    """This run's section of BENCHMARKS.md: the processor, the date, the
    target row per level, the machine, a table set per level, the plot
    (svg_ref, relative to the document), callgrind's counts, the generation
    speed, the targets and, for a whole run, the processor's part of
    bench/notes.md. Returned without a trailing newline."""
    md = []
    w = md.append
    key = processor_key(mach)
    w(SECTION_MARK % key)
    w("## %s, %s" % (key, args.date))
    w("")
    w("Target rows: " + level_rows(args, results))
    w("")
    w("### Machine")
    w("")
    w("- processor: %s, %s cores visible (%s)" % (mach["cpu"], mach["cores"], mach["flags"]))
    w("- caches (cpu0, data and unified): %s; the last level, %d MiB, decides which"
      % (", ".join("L%d %s" % (l, ("%d MiB" % (b >> 20)) if b >= 1 << 20 else "%d KiB" % (b >> 10))
                   for l, b in mach["caches"]), args.llc >> 20))
    w("  cases are out of cache")
    w("- compiler: %s; every C implementation built with `-std=c99 -ffp-contract=off"
      " -fPIC` and the level's flags" % mach["cc"])
    w("- NumPy %s (`/usr/bin/python3`); XNNPACK %s (Debian's build, its own flags, its"
      " micro-kernels chosen at run time)" % (mach["numpy"], mach["xnnpack"]))
    w("- Linux %s; %s; load average %.2f when the run began, %.2f when it ended"
      % (mach["kernel"], args.date, mach["load0"], os.getloadavg()[0]))
    w("- timing: the %s; batches of at least %g ms, %d rounds (%d for cases past 64 MiB)"
      " in each of %d processes" % ("thread's processor time" if args.clock == "thread"
                                    else "wall clock", args.batch_ms, args.rounds,
                                    args.big_rounds, args.processes))
    w("- threads: %d, the cores the bench may use (`os.sched_getaffinity`): parallel runs with"
      " `OMP_NUM_THREADS=%d`, xnnpack_mt with `pthreadpool_create(%d)`; both, and auto again"
      " (auto_wall), timed with the wall clock in rounds of their own"
      % (args.threads, args.threads, args.threads))
    w("")
    for level, rows in results.items():
        cols = impl_columns(rows)
        w("### %s" % LEVEL_TITLE[level])
        w("")
        w("Median ns per call (WRONG: its output differed from hand's; not timed):")
        w("")
        w("| case | elements | " + " | ".join(cols) + " |")
        w("| --- | ---: | " + " | ".join("---:" for _ in cols) + " |")
        for cid, row in rows.items():
            cells = []
            for k in cols:
                r = row["impls"].get(k)
                if r is None:
                    note = row["notes"].get(k, "")
                    cells.append("=auto" if note.startswith("same code") else "")
                elif r.get("ns"):
                    cells.append(fmt_ns(med(r["ns"])))
                else:
                    cells.append("**WRONG**")
            w("| %s | %d | %s |" % (cid, cases[cid].count, " | ".join(cells)))
        w("")
        w("auto: spread, per element, bandwidth, and the ratios:")
        w("")
        w("| case | auto min / median / max | ns/elem | GB/s | vs hand | vs hand (min) | A/A | vs xnnpack | vs best other | vs stream |")
        w("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for cid, row in rows.items():
            a = row["impls"].get("auto", {}).get("ns")
            if not a:
                w("| %s | **WRONG** | | | | | | | | |" % cid)
                continue
            r = ratios(row)
            m = med(a)
            w("| %s | %s / %s / %s | %.3f | %.1f | %s | %s | %s | %s | %s | %s |" % (
                cid, fmt_ns(min(a)), fmt_ns(m), fmt_ns(max(a)), m / cases[cid].count,
                cases[cid].bytes / m, fmt_r(r["hand"]), fmt_r(r["hand_min"]), fmt_r(r["again"]),
                fmt_r(r["xnnpack"]),
                fmt_r(r["best"]), fmt_r(r["stream"])))
        wrong = [(cid, k, v["check"]) for cid, row in rows.items()
                 for k, v in row["impls"].items() if v["check"].startswith("WRONG")]
        grouped = {}
        for cid, row in rows.items():
            for k, n in row["notes"].items():
                if not n.startswith("same code"):
                    grouped.setdefault((k, n), []).append(cid)
        notes = [(k, "%s (%s)" % (n, "every case" if len(ids) == len(rows) else
                                  ", ".join(ids)))
                 for (k, n), ids in sorted(grouped.items())]
        counted = differing(rows)
        if wrong or notes or counted:
            w("")
        for cid, k, chk in wrong:
            w("- **WRONG**: %s on %s: %s" % (k, cid, chk))
        for k, ds in counted.items():
            if k != "xnnpack" and ds == counted.get("xnnpack"):
                w("- %s rounds as xnnpack does: the same elements differ" % k)
                continue
            w("- %s rounds differently from TFLite Micro's reference kernels (timed, its "
              "elements that differ counted, not an error): %s" % (k, "; ".join(
                  "%s %d of %d elements differ from hand's (and auto's, which matches hand)%s"
                  % (cid, n, cases[cid].count, ", by at most %d" % most if n else "")
                  for cid, n, most in ds)))
        for k, n in notes:
            w("- %s: %s" % (k, n))
        kinds = {row["stream_kind"] for row in rows.values() if row["stream_kind"]}
        for kd in sorted(kinds):
            w("- streaming loops: %s" % kd)
        w("")
        parallel_table(w, args, rows, cases)
    w("### Ratios")
    w("")
    w("![auto's speed over hand and over XNNPACK, per case](%s)" % svg_ref)
    w("")
    w("### Instructions per element (callgrind)")
    w("")
    w("`valgrind --tool=callgrind --collect-atstart=no --toggle-collect=KERNEL`, a C")
    w("driver calling the kernel N times; instructions per output element, next to")
    w("the median ns per element of the same run.")
    w("")
    cgcols = []
    for lv in cg.values():
        for m in lv.values():
            for k in m:
                if k not in cgcols and k != "flags":
                    cgcols.append(k)
    if cg:
        w("| level | case | " + " | ".join("%s Ir/elem" % k for k in cgcols) +
          " | auto ns/elem | hand ns/elem |")
        w("| --- | --- | " + " | ".join("---:" for _ in cgcols) + " | ---: | ---: |")
        for level, per in cg.items():
            for cid, m in per.items():
                row = results[level][cid]["impls"]
                def nse(k):
                    v = row.get(k, {}).get("ns")
                    return "%.3f" % (med(v) / cases[cid].count) if v else "-"
                w("| %s%s | %s | %s | %s | %s |" % (
                    LEVEL_TITLE[level], " " + m["flags"] + " (*)" if "flags" in m else "",
                    cid, " | ".join(
                        "%.2f" % m[k] if k in m else "-" for k in cgcols), nse("auto"), nse("hand")))
        if any("flags" in m for per in cg.values() for m in per.values()):
            w("")
            w("(*) Valgrind has no AVX-512: the instructions are counted in a build with")
            w("`-mno-avx512f` added (AVX2 at most), the times are the AVX-512 build's.")
    else:
        w("(not measured in this run)")
    w("")
    w("### Generation speed")
    w("")
    if gen:
        w("CPU time (user + system, best of 2-3) of `build/bcastgen SPEC -o F.c` on a spec")
        w("of varied kernels (random ops, dtypes, ranks 1-5, broadcasts, fused")
        w("expressions, some `strategy = \"loops\"`; `gen_spec` in bench/run.py):")
        w("")
        w("| kernels | CPU s | kernels/s | split |")
        w("| ---: | ---: | ---: | --- |")
        for n in (1000, 10000):
            g = gen[n]
            split = ", ".join("%s %.3f s" % kv for kv in g["split"].items()) if g["split"] else \
                "(bcastgen has no `--timings`)" if not gen["timings_option"] else "(not printed)"
            w("| %d | %.3f | %.0f | %s |" % (n, g["cpu"], n / g["cpu"], split))
        w("")
        w("10000 kernels take %.2fx the time of 1000 (10.00 is linear)."
          % (gen[10000]["cpu"] / gen[1000]["cpu"]))
    else:
        w("(not measured in this run)")
    w("")
    w("### Targets")
    w("")
    w("The targets, computed from this run (never asserted by a test).")
    w("")
    for line in targets(results, cases, gen, full, args):
        w("- " + line)
    notes = notes_for(key) if full else ""
    if notes:
        w("")
        w(notes)
    return "\n".join(md)


def differing(rows):
    """The implementations a level counts the differing elements of
    (COUNTED, on the quantized cases): {name: [(case, elements that
    differ from hand's, the largest difference)]}."""
    out = {}
    for cid, row in rows.items():
        for k, r in row["impls"].items():
            if "differ" in r:
                out.setdefault(k, []).append((cid, r["differ"], r.get("max_diff", 0)))
    return out


def parallel_table(w, args, rows, cases):
    """A level's Parallel table, through w: each case with a parallel
    kernel, its wall-clock medians per call (auto as auto_wall, parallel,
    xnnpack_mt) and the ratios; nothing where no case has one."""
    ids = [cid for cid, row in rows.items() if "parallel" in row["impls"]]
    if not ids:
        return
    w("Parallel (%d threads): the wall clock's median per call of auto, of parallel (auto made"
      % args.threads)
    w("with `--parallel`, built with `-fopenmp`) and of xnnpack_mt (XNNPACK's operator on a")
    w("pthreadpool); speed-up is auto's time over parallel's, vs xnnpack_mt xnnpack_mt's over")
    w("parallel's (above 1.00 parallel is faster); (min) the same of the minimums, less")
    w("sensitive to other work on the machine:")
    w("")
    w("| case | elements | in cache | auto (wall) | parallel | speed-up | xnnpack_mt "
      "| vs xnnpack_mt | speed-up (min) | vs xnnpack_mt (min) |")
    w("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")

    def cell(row, k):
        r = row["impls"].get(k)
        if r is None:
            return "-"
        return fmt_ns(med(r["ns"])) if r.get("ns") else "**WRONG**"

    for cid in ids:
        row = rows[cid]
        pr, pm = parallel_ratios(row), parallel_ratios(row, min)
        w("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            cid, cases[cid].count, "yes" if in_cache(cases[cid], args.llc) else "no",
            cell(row, "auto_wall"), cell(row, "parallel"), fmt_r(pr.get("speedup")),
            cell(row, "xnnpack_mt"), fmt_r(pr.get("xnnpack_mt")), fmt_r(pm.get("speedup")),
            fmt_r(pm.get("xnnpack_mt"))))
    w("")


def split_sections(text):
    """The processors' sections of a document in the layout above, in
    order: [(processor, text)], each text from its opening line to the
    next section's (or the end), without the blank lines that end it."""
    out = []
    for line in text.split("\n"):
        m = SECTION_RE.match(line)
        if m:
            out.append([m.group(1), []])
        elif out:
            out[-1][1].append(line)
    return [(key, "\n".join([SECTION_MARK % key] + lines).rstrip("\n")) for key, lines in out]


def notes_for(key):
    """The part of bench/notes.md for processor key, or ''."""
    path = os.path.join(HERE, "notes.md")
    if not os.path.exists(path):
        return ""
    with open(path) as f:
        parts = split_sections(f.read())
    return next(("\n".join(t.split("\n")[1:]).strip("\n") for k, t in parts if k == key), "")


def legacy_section(text, path):
    """The section of a BENCHMARKS.md written before there were sections
    (one machine, from '## Machine' on): its processor and date in a
    heading, a Target rows line (or that it predates --target), then the
    old lines from '## Machine' to the end, leaving out the shared
    '## Reproduce' part, each heading one level down, nothing else changed."""
    lines = text.rstrip("\n").split("\n")
    heads = [i for i, l in enumerate(lines) if l.startswith("## ")]
    start = next((i for i in heads if lines[i] == "## Machine"), None)
    repro = next((i for i in heads if lines[i] == "## Reproduce"), None)
    proc = next((re.match(r"^- processor: (.*), \S+ cores visible \((.*)\)$", l)
                 for l in lines if l.startswith("- processor: ")), None)
    date = next((m.group(1) for m in (re.match(r"^- Linux .*; (\d{4}-\d{2}-\d{2}); ", l)
                                      for l in lines) if m), "?")
    if start is None or not proc:
        die("%s: neither processor sections nor one machine's report: not replacing it" % path)
    rows = next((l.split(": ", 1)[1] for l in lines if l.startswith("- bcastgen's target rows")),
                PREDATES)
    keep = lines[start:]
    if repro is not None and repro > start:
        after = next((i for i in heads if i > repro), len(lines))
        keep = lines[start:repro] + lines[after:]
    key = "%s (%s)" % (proc.group(1), proc.group(2))
    body, fence = [], False
    for l in keep:
        if l.startswith("```"):
            fence = not fence
        body.append("#" + l if not fence and re.match(r"^#{2,5} ", l) else l)
    head = [SECTION_MARK % key, "## %s, %s" % (key, date), "", "Target rows: " + rows, ""]
    return key, "\n".join(head + body).rstrip("\n")


def read_sections(path):
    """The processors' sections of the document at path: [] if there is
    none, the one section of a document in the old layout, or dies where
    it cannot tell them, so that no processor's figures are lost."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        text = f.read()
    if not text.strip():
        return []
    return split_sections(text) or [legacy_section(text, path)]


def write_doc(path, sections):
    """Write the shared top and the sections (in order) to path, through
    a temporary file so that a failed write leaves the old one."""
    text = report_head(sections) + "\n\n" + "\n\n".join(t for _, t in sections) + "\n"
    with open(path + ".new", "w") as f:
        f.write(text)
    os.replace(path + ".new", path)


def merge_section(sections, key, text):
    """Sections with this run's: in the place of the same processor's, or
    after the others; every other section as it was."""
    if any(k == key for k, _ in sections):
        return [(k, text if k == key else t) for k, t in sections]
    return sections + [(key, text)]


def targets(results, cases, gen, full, args):
    """The Targets lines: each target, **met** or **missed**, and the
    figures that decide it."""
    out = []

    def verdict(cond):
        return "**met**" if cond else "**missed**"

    for level, rows in results.items():
        # the noise of each case: its A/A ratio (hand_again over hand), r
        # or 1/r, whichever is below 1; a ratio of auto's above it is as
        # fast as the harness can tell
        rat = {cid: ratios(row) for cid, row in rows.items()}
        again = {cid: r.get("again") for cid, r in rat.items()}
        aa = [r for r in again.values() if r]
        floor = {cid: min(r, 1 / r) if r else 1.0 for cid, r in again.items()}
        rs = [(cid, r.get("hand")) for cid, r in rat.items()]
        rs = [(c, r) for c, r in rs if r is not None]
        wrong = [cid for cid, row in rows.items() if not row["impls"].get("auto", {}).get("ns")]
        if rs:
            miss = sorted((r, c) for c, r in rs if r < 1.0)
            gm = math.exp(sum(math.log(r) for _, r in rs) / len(rs))
            rm = [(cid, r.get("hand_min")) for cid, r in rat.items()]
            miss_min = sorted((r, c) for c, r in rm if r is not None and r < 1.0)
            out.append("auto at least as fast as hand in every case, %s: %s; %d of %d cases, "
                       "geometric mean %.2fx%s%s; by the minimums, slower on %s" % (
                           LEVEL_TITLE[level], verdict(not miss and not wrong),
                           len(rs) - len(miss), len(rs), gm,
                           "; slower on " + ", ".join("%s %.2fx" % (c, r) for r, c in miss)
                           if miss else "",
                           "; auto WRONG on " + ", ".join(wrong) if wrong else "",
                           ", ".join("%s %.2fx" % (c, r) for r, c in miss_min)
                           if miss_min else "none"))
            if aa:
                below = [(r, c) for r, c in miss if r < floor[c]]
                out.append("auto at least as fast as hand within the run's noise, %s: %s; "
                           "hand_again over hand (A/A, the same code) %.2fx to %.2fx over %d "
                           "cases; slower than its case's A/A: %s" % (
                               LEVEL_TITLE[level], verdict(not below and not wrong),
                               min(aa), max(aa), len(aa),
                               ", ".join("%s %.2fx (A/A %.2fx)" % (c, r, again[c])
                                         for r, c in below) or "none"))
        sse2 = [(cid, med(row["impls"]["f16_loop"]["ns"]) / med(row["impls"]["f16_sse2"]["ns"]),
                 med(row["impls"]["f16_sse2"]["ns"])) for cid, row in rows.items()
                if row["impls"].get("f16_sse2", {}).get("ns")
                and row["impls"].get("f16_loop", {}).get("ns")]
        if level == "O2" and sse2:
            out.append("f16 lines without F16C (f16_sse2, the SSE2 form) over the portable "
                       "loop (f16_loop), -O2: %s" % ", ".join(
                           "%s %.2fx (%s)" % (c, r, fmt_ns(ns)) for c, r, ns in sse2))
        odd = [(cid, rat[cid].get("hand")) for cid in rows if cases[cid].flags.get("odd")]
        odd = [(c, r) for c, r in odd if r is not None]
        if level == "O2" and odd:
            miss = [(c, r) for c, r in odd if r < 2.0]
            out.append("small or odd inner extents, auto at least 2x hand at -O2: %s; %s" % (
                verdict(not miss), ", ".join("%s %.2fx" % (c, r) for c, r in odd)))
        if level == "O3":
            f16 = [(cid, r.get("xnnpack")) for cid, r in rat.items()
                   if cases[cid].dtype == "f16"]
            f16 = [(c, r) for c, r in f16 if r is not None]
            if f16:
                out.append("f16 at least as fast as XNNPACK's f16 operators, -O3 -march=native: "
                           "%s; %s" % (verdict(all(r >= 1.0 for _, r in f16)),
                                       ", ".join("%s %.2fx" % (c, r) for c, r in f16)))
            xs = [(cid, r.get("xnnpack")) for cid, r in rat.items()
                  if cases[cid].dtype == "f32"]
            xs = [(c, r) for c, r in xs if r is not None]
            if xs:
                miss = sorted((r, c) for c, r in xs if r < 1.0)
                xm = [(cid, r.get("xnnpack_min")) for cid, r in rat.items()
                      if cases[cid].dtype == "f32"]
                miss_min = sorted((r, c) for c, r in xm if r is not None and r < 1.0)
                out.append("auto at least as fast as XNNPACK in every f32 case, -O3 -march=native: "
                           "%s; %d of %d%s; by the minimums, slower on %s" % (
                               verdict(not miss), len(xs) - len(miss), len(xs),
                               "; slower on " + ", ".join("%s %.2fx" % (c, r) for r, c in miss)
                               if miss else "",
                               ", ".join("%s %.2fx" % (c, r) for r, c in miss_min)
                               if miss_min else "none"))
        qline = quant_target(level, rows, rat, cases)
        if qline:
            out.append(qline)
        for cid, row in rows.items():
            like = cases[cid].flags.get("like")
            if like and like in rows:
                a = row["impls"].get("auto", {}).get("ns")
                b = rows[like]["impls"].get("auto", {}).get("ns")
                if a and b:
                    r = med(b) / med(a)
                    out.append("%s at the speed of %s (an add of the same shapes), %s: %s; "
                               "%.2fx its speed" % (cid, like, LEVEL_TITLE[level],
                                                    verdict(r >= 0.95), r))
        par = [cid for cid, row in rows.items() if "parallel" in row["impls"]]
        if par:
            out.append(parallel_target(level, rows, par, cases, args))
        # where auto streams (its note says so), against the same kernel
        # with plain stores
        sv = [(cid, med(row["impls"]["stream_off"]["ns"]) / med(row["impls"]["auto"]["ns"]))
              for cid, row in rows.items()
              if row["notes"].get("auto") == AUTO_STREAMS
              and row["impls"].get("stream_off", {}).get("ns")
              and row["impls"].get("auto", {}).get("ns")]
        out.append("streaming never loses (within its case's A/A), %s: %s; auto streams %s" % (
            LEVEL_TITLE[level], verdict(all(r >= floor[c] for c, r in sv)),
            "in no case" if not sv else "in %d, at %s the speed of the same kernel with plain "
            "stores" % (len(sv), ", ".join("%s %.2fx (A/A %.2fx)" % (c, r, again[c] or 1)
                                          for c, r in sv))))
        st = [(cid, r.get("stream")) for cid, r in rat.items()]
        st = [(c, r) for c, r in st if r is not None]
        if st:
            miss = [(c, r) for c, r in st if r < 0.95]
            out.append("out of cache, auto at least 95%% of the streaming limit, %s: %s; %s" % (
                LEVEL_TITLE[level], verdict(not miss),
                ", ".join("%s %.0f%%" % (c, 100 * r) for c, r in st)))
    if gen:
        kps = 1000 / gen[1000]["cpu"]
        lin = gen[10000]["cpu"] / gen[1000]["cpu"]
        out.append("generation at least 2000 kernels/s from a spec of 1000: %s; %.0f kernels/s "
                   "(%.0f%% of the target)" % (verdict(kps >= 2000), kps, 100 * kps / 2000))
        out.append("generation linear in the number of kernels: %s; 10000 take %.2fx the time "
                   "of 1000 (at most 11x counted as linear)" % (verdict(lin <= 11.0), lin))
        out.append("time split between parsing, planning and rendering: %s" % (
            "**met**" if gen[1000]["split"] else "**missed**; bcastgen prints no `--timings`"))
    if not full:
        out.append("(a partial run: cases or levels left out)")
    return out


def quant_target(level, rows, rat, cases):
    """The Targets line of the quantized cases against XNNPACK's qs8
    operators: the target at -O3 -march=native, the figures alone at the
    other levels; and how many elements XNNPACK's output has that differ
    from the exact one (hand's, which auto matches). None where the level
    ran no quantized case."""
    ids = [cid for cid in rows if cases[cid].quant]
    if not ids:
        return None
    peer = [cid for cid in ids if "xnnpack" in rows[cid]["impls"]]
    none = [cid for cid in ids if cid not in peer]
    wrong = [cid for cid in ids if not rows[cid]["impls"].get("auto", {}).get("ns")]
    rs = [(cid, rat[cid].get("xnnpack")) for cid in peer]
    rs = [(c, r) for c, r in rs if r is not None]
    rmin = [(cid, rat[cid].get("xnnpack_min")) for cid in peer]
    miss_min = sorted((r, c) for c, r in rmin if r is not None and r < 1.0)
    diff = [(cid, rows[cid]["impls"]["xnnpack"].get("differ"), cases[cid].count) for cid in peer]
    counted = [(c, n, m) for c, n, m in diff if n is not None]
    if level == "O3":
        head = "quantized: auto at least as fast as XNNPACK's qs8 operators, %s: %s" % (
            LEVEL_TITLE[level], "**not measured**" if not rs else
            "**met**" if all(r >= 1.0 for _, r in rs) and not wrong and len(rs) == len(peer)
            else "**missed**")
    else:
        head = "quantized, auto against XNNPACK's qs8 operators, %s (no target)" % (
            LEVEL_TITLE[level])
    return "%s; %s; by the minimums, slower on %s; elements that differ from XNNPACK's: %s%s%s%s" % (
        head, ", ".join("%s %.2fx" % (c, r) for c, r in rs) or "no case timed against XNNPACK",
        ", ".join("%s %.2fx" % (c, r) for r, c in miss_min) or "none",
        ", ".join("%s %d of %d" % t for t in counted) or "-",
        "; %d of %d in all" % (sum(n for _, n, _ in counted), sum(m for _, _, m in counted))
        if len(counted) > 1 else "",
        "; auto WRONG on " + ", ".join(wrong) if wrong else "",
        "; no XNNPACK peer: " + ", ".join(none) if none else "")


def parallel_target(level, rows, par, cases, args):
    """The Targets line of a level's Parallel table (its cases par): the
    least speed-up of the cases in cache against 1.6x, and the least ratio
    to xnnpack_mt against 1.00, by the medians, then by the minimums."""
    wrong = [cid for cid in par if not rows[cid]["impls"]["parallel"].get("ns")]

    def figures(key, ids, by):
        rs = [(cid, parallel_ratios(rows[cid], by).get(key)) for cid in ids]
        return [(c, r) for c, r in rs if r is not None]

    def verdict(rs, goal):
        if wrong:
            return "**missed**"
        if not rs:
            return "**not measured**"
        return "**met**" if all(r >= goal for _, r in rs) else "**missed**"

    def least(rs):
        if not rs:
            return "-"
        r, c = min((r, c) for c, r in rs)
        return "least %.2fx (%s)" % (r, c)

    held = [cid for cid in par if in_cache(cases[cid], args.llc)]
    sp, sp_min = figures("speedup", held, med), figures("speedup", held, min)
    xm, xm_min = figures("xnnpack_mt", par, med), figures("xnnpack_mt", par, min)
    return ("parallel at least 1.6x auto for the cases in cache (the goal on 2 cores), %d threads, "
            "%s: %s; %s; at least as fast as xnnpack_mt on as many threads: %s; %s%s" % (
                args.threads, LEVEL_TITLE[level], verdict(sp, 1.6),
                "%s of %d cases, by the minimums %s" % (least(sp), len(sp), least(sp_min))
                if sp else "no case in cache timed" if held else "no case in cache",
                verdict(xm, 1.0),
                "%s of %d cases, by the minimums %s" % (least(xm), len(xm), least(xm_min))
                if xm else "no case timed with xnnpack_mt",
                "; parallel WRONG on " + ", ".join(wrong) if wrong else ""))


def plot(args, results, cases, svg):
    """The plot svg (bench/ratios-PROCESSOR.svg for a whole run): auto over
    hand and over XNNPACK per case, at each level run.  ratios.dat, which
    it plots, ends with the columns it does not plot: parallel's speed-up
    over auto and its ratio to xnnpack_mt, at each level."""
    if not shutil_which("gnuplot"):
        print("bench: no gnuplot: no plot")
        return
    dat = os.path.join(args.out, "ratios.dat")
    levels = list(results)
    ids = [c for c in cases if any(c in results[lv] for lv in levels)]
    with open(dat, "w") as f:
        f.write("case " + " ".join("hand_%s xnn_%s" % (lv, lv) for lv in levels) + " " +
                " ".join("par_%s par_xnn_mt_%s" % (lv, lv) for lv in levels) + "\n")
        for cid in ids:
            cells = []
            for lv in levels:
                r = ratios(results[lv][cid]) if cid in results[lv] else {}
                for k in ("hand", "xnnpack"):
                    v = r.get(k)
                    cells.append("%.4f" % v if v else "-")
            for lv in levels:
                r = parallel_ratios(results[lv][cid]) if cid in results[lv] else {}
                for k in ("speedup", "xnnpack_mt"):
                    v = r.get(k)
                    cells.append("%.4f" % v if v else "-")
            f.write("%s %s\n" % (cid, " ".join(cells)))
    cols = []
    n = 2
    for lv in levels:
        cols.append("'%s' using %d:xtic(1) title 'vs hand, %s'" % (dat, n, LEVEL_TITLE[lv]))
        cols.append("'' using %d title 'vs XNNPACK, %s'" % (n + 1, LEVEL_TITLE[lv]))
        n += 2
    gp = """set terminal svg size 1100,520 dynamic font 'sans,11'
set output '%s'
set title "auto's speed over the hand-written loop and over XNNPACK (above 1: auto faster)"
set datafile missing '-'
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set logscale y 2
set yrange [0.05:*]
set ylabel 'speed ratio (log scale)'
set xtics rotate by -45 scale 0
set key top left
set grid ytics
set arrow from graph 0, first 1 to graph 1, first 1 nohead lw 2 lc rgb 'black'
plot %s
""" % (svg, ", ".join(cols))
    gpf = os.path.join(args.out, "ratios.gp")
    with open(gpf, "w") as f:
        f.write(gp)
    r = sh(["gnuplot", gpf])
    if r.returncode != 0:
        print("bench: gnuplot failed:\n" + r.stderr)


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description="make bench's driver")
    ap.add_argument("--gen", default=os.path.join(TOP, "build", "bcastgen"))
    ap.add_argument("--out", default=os.path.join(TOP, "build", "bench"))
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--cases", default=os.path.join(HERE, "cases.txt"))
    ap.add_argument("--only", default="", help="case ids, space-separated")
    ap.add_argument("--levels", default=None,
                    help="O2, O3, O3v3 (default: O2 O3, and O3v3 where -march=native "
                    "is x86-64-v4, so that both rows are measured)")
    ap.add_argument("--rounds", type=int, default=ROUNDS)
    ap.add_argument("--processes", type=int, default=PROCESSES,
                    help="processes run for each case, their rounds pooled")
    ap.add_argument("--big-rounds", type=int, default=BIG_ROUNDS)
    ap.add_argument("--batch-ms", type=float, default=BATCH_MS)
    ap.add_argument("--clock", choices=["thread", "wall"], default="thread",
                    help="time with the thread's processor time (default) or the wall clock")
    ap.add_argument("--tune", help="bcastgen's --tune at every level (default: the processor "
                    "the compiler's -march=native tunes for, where bcastgen has it)")
    ap.add_argument("--no-callgrind", action="store_true")
    ap.add_argument("--no-gen", action="store_true")
    ap.add_argument("--inject-wrong", action="store_true",
                    help="add an implementation 'wrong' that flips a bit of hand's output")
    ap.add_argument("--report", default=None,
                    help="the report: a whole run replaces its processor's section of it "
                    "(default: BENCHMARKS.md at the top), a subset writes it anew "
                    "(default: OUT/BENCHMARKS.md)")
    ap.add_argument("--as-whole", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--child-case", help=argparse.SUPPRESS)
    ap.add_argument("--child-threads", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--order-seed", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.batch_ns = args.batch_ms * 1e6
    if args.child:
        child(args)
        return
    args.gen = os.path.abspath(args.gen)
    args.out = os.path.abspath(args.out)
    if not os.access(args.gen, os.X_OK):
        die("no bcastgen at '%s': run make first" % args.gen)
    args.llc = llc_bytes()
    args.target = {lv: level_target(args.cc, LEVELS[lv]) for lv in LEVELS}
    args.tune = args.tune or machine_tuning(args.cc, args.gen)
    if not args.levels:
        args.levels = "O2 O3" + (" O3v3" if args.target["O3"] == "x86-64-v4" else "")
    allc = read_cases(args.cases)
    cases = {c.id: c for c in allc}
    only = args.only.split()
    for o in only:
        if o not in cases:
            die("no case '%s' in %s" % (o, args.cases))
    levels = args.levels.split()
    for lv in levels:
        if lv not in LEVELS:
            die("unknown level '%s' (O2, O3 or O3v3)" % lv)
    run_ids = only or [c.id for c in allc]
    full = not only and levels[:2] == ["O2", "O3"]
    os.makedirs(args.out, exist_ok=True)
    mach = machine(args.cc)
    # The threads of parallel (OMP_NUM_THREADS) and of xnnpack_mt's
    # pthreadpool: the cores this process may run on.
    args.threads = len(os.sched_getaffinity(0))
    args.openmp = have_openmp(args.cc, args.out)
    child_env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    args.date = time.strftime("%Y-%m-%d")
    # A whole run (or a subset with the hidden --as-whole, to test this)
    # replaces its processor's section of the report and writes its plot
    # into bench/ beside it; a subset writes a report of its own. The old
    # report is read now, so that one it cannot split fails before the run,
    # and again at the end.
    whole = full or args.as_whole
    slug = processor_slug(mach)
    if whole:
        md_path = os.path.abspath(args.report or os.path.join(TOP, "BENCHMARKS.md"))
        svg = os.path.join(os.path.dirname(md_path), "bench", "ratios-%s.svg" % slug)
    else:
        md_path = os.path.abspath(args.report or os.path.join(args.out, "BENCHMARKS.md"))
        svg = os.path.join(os.path.dirname(md_path), "ratios-%s.svg" % slug)
    if whole:
        read_sections(md_path)
    results, cg = {}, {}
    t_start = time.time()
    for level in levels:
        results[level], cg[level] = {}, {}
        for cid in run_ids:
            c = cases[cid]
            t0 = time.time()
            d, variants, notes, stream, how = build_case(c, level, args, args.inject_wrong)
            cmd = [sys.executable, os.path.abspath(__file__), "--child",
                   os.path.join(d, "case.so"), "--child-case", cid, "--cases", args.cases,
                   "--rounds", str(args.rounds), "--big-rounds", str(args.big_rounds),
                   "--batch-ms", str(args.batch_ms), "--clock", args.clock,
                   "--child-threads", str(args.threads)]
            row = None
            for p in range(args.processes):
                r = sh(cmd + ["--order-seed", str(p)], env=child_env)
                if r.returncode != 0:
                    die("case '%s' at %s failed:\n%s" % (cid, level, r.stderr))
                row = merge_runs(row, json.loads(r.stdout.strip().splitlines()[-1]))
            row["notes"] = notes
            results[level][cid] = row
            if c.flags.get("ir") and not args.no_callgrind:
                cg[level][cid] = callgrind(c, d, [v for v in variants if v != "parallel"] +
                                           ["hand"], how)
            rr = ratios(row)
            pr = parallel_ratios(row)
            bad = [k for k, v in row["impls"].items() if v["check"].startswith("WRONG")]
            print("%-3s %-9s auto %10s  vs hand %5s  vs xnnpack %5s  vs best %5s%s%s  (%.0f s)%s" % (
                level, cid, fmt_ns(med(row["impls"].get("auto", {}).get("ns", []))),
                fmt_r(rr.get("hand")), fmt_r(rr.get("xnnpack")), fmt_r(rr.get("best")),
                "  vs stream %s" % fmt_r(rr["stream"]) if rr.get("stream") else "",
                "  parallel speed-up %s, vs xnnpack_mt %s" % (
                    fmt_r(pr.get("speedup")), fmt_r(pr.get("xnnpack_mt")))
                if "parallel" in row["impls"] else "",
                time.time() - t0, "  WRONG: " + ", ".join(bad) if bad else ""), flush=True)
            for k, ds in differing({cid: row}).items():
                print("    %s: %d of %d elements differ from hand's (rounds differently)"
                      % (k, ds[0][1], c.count), flush=True)
        if not cg[level]:
            del cg[level]
    gen = None if args.no_gen else gen_speed(args)
    write_tsv(os.path.join(args.out, "results.tsv"), results, cases)
    os.makedirs(os.path.dirname(svg), exist_ok=True)
    plot(args, results, list(cases), svg)
    text = report_section(args, results, cases, mach, cg, gen, full,
                          os.path.relpath(svg, os.path.dirname(md_path)))
    sections = read_sections(md_path) if whole else []
    write_doc(md_path, merge_section(sections, processor_key(mach), text))
    print("bench: %s, %s, %s (%.0f s)" % (os.path.relpath(md_path), os.path.relpath(svg),
                                         os.path.relpath(os.path.join(args.out, "results.tsv")),
                                         time.time() - t_start))


if __name__ == "__main__":
    main()
