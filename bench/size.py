#!/usr/bin/python3
"""bench/size.py: make size's driver.

For each case (the seeds' kernels of tests/golden, the benchmark cases of
bench/cases.txt, then SIZE_CASES), generate its kernel with each strategy
that bcastgen accepts for it (unroll, loops, block, auto with --optimize
speed, auto with --optimize size: the generic row's), with auto for each
firmware target's own row (--target ROW, for speed: "auto --target"), and
write two more implementations of the same shapes: the runtime's generic
iterator (runtime/bc_ref.h) and a hand-written loop nest (for a quantized
case, a TFLM-style loop instead: see the checks).  Compile each to
an object of its own for the five firmware targets at -Os and -O2 (the
Cortex-M55 also at -O3, and with clang at -O2) and read its .text bytes.
Where the case's buffers fit the target's RAM (and it has at most
COUNT_LIMIT output elements), link every implementation into one program,
run it under QEMU with a log of the translated blocks of the kernels' code
and of each execution of one, and count the instructions each call
executed (the kernel and the libgcc helpers it calls) per output element,
and on the Cortex-M55 how many of them were Helium's (MVE); the program
also checks that every implementation gave the same bytes.

Then the checks, for each case and target, with gcc:
  - at -Os, --optimize size no larger than any other strategy bcastgen
    emitted for it, unless the case is one of KNOWN_LARGER (with why);
  - at -O2, auto --target runs at most 5% more instructions per element
    than the fewest of the strategies (unroll, loops, block, auto speed,
    auto size) that are within 4 times the smallest's bytes, unless
    KNOWN_SLOWER says why;
  - at -Os and -O2, auto --target's bytes at most 4 times the smallest
    strategy's, unless KNOWN_BIGGER says why;
  - for F16_CASE, in each build where runtime/bc.h converts f16 with the
    FPU's VCVTB (BC__F16_VCVT: the Cortex-M4F, the M55 with gcc), auto
    --target runs no more instructions per element than the same kernel
    built with -DBC_F16_PORTABLE (bc.h's portable conversions), measured
    in a program of its own (with the normal kernel: the same bytes out);
  - for each quantized case of QUANT_CASES (--quant: TFLite Micro's int8
    and int16 add, subtract and multiply), on the Cortex-M4F at -O2,
    auto --target runs at most QUANT_RATIO (0.45) times the instructions
    per element of a TFLM-style loop, unless KNOWN_QUANT says why.  The
    loop (implementation tflm: bench/tflm_ref.h, through a wrapper of
    the kernel's signature) reads Prepare's constants (tests/
    quant_oracle.py's) and the shapes at run time, runs TFLM's flat loop
    for equal shapes and its 6-D broadcast loop otherwise, and
    requantizes both inputs for every element; where the shapes are
    equal, tflm6d is the same forced through the 6-D loop (reported).
    Not in the main table, which has no hand loop or bc_ref.h walk for
    these cases; in the section "Quantized kernels", with the Cortex-
    M55's goal (M55_GOAL instructions per element for an int8 add and
    multiply, checked).
Prints the table, writes it as markdown (OUT/SIZE.md, with a summary of
where --optimize size is larger than the hand-written loop, one of auto
--target against the strategies per target, the Cortex-M55's Helium, the
FPU's f16 conversions against the portable code, the quantized kernels
against the TFLM-style loop and a legend of the cases' ops and shapes)
and as TSV (OUT/size.tsv; the portable build's row is auto --target's as
implementation target_portable; the TFLM-style loops' rows tflm and
tflm6d), and exits 1 when a check fails or a program does not build or
run.

  bench/size.py --gen build/bcastgen --out build/size [--only ID,...]
                [--targets m4f,m55]
  bench/size.py --only-check ...   (only what the checks read: bcastgen's
                                    kernels, gcc at -Os and -O2; no table;
                                    the rows in OUT/check/size.tsv; what
                                    did not change since the last such run
                                    is taken from OUT/check/cache.json)
  bench/size.py --check FILE.tsv   (only the checks, on a table's rows)
"""

import argparse
import bisect
import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
RUNTIME = os.path.join(TOP, "runtime")
START = os.path.join(HERE, "size", "start.c")

# The targets: bcastgen's row of its target table (--target), compiler
# and flags, QEMU's command, the memories of the machine (flash or code,
# RAM) as size.py's linker script places them.  A target may have levels
# of its own (a "clang" level compiles with CLANG and links with gcc
# and libgcc), objdump's options for its instruction set (-m: one that
# knows the MVE and loop instructions), and the vector instructions whose
# executions are counted ("MVE": Armv8.1-M's).  gcc has IEEE __fp16,
# which bc.h's f16 conversions need to use the FPU's VCVTB, only with
# -mfp16-format=ieee on the Cortex-M4F; on the M55 (half-precision
# arithmetic) it has it by default, and clang has it always.
TARGETS = [
    {"id": "m4f", "title": "Cortex-M4F", "row": "cortex-m4f", "tool": "arm-none-eabi-",
     "flags": "-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard -mfp16-format=ieee",
     "qemu": "qemu-system-arm -M mps2-an386",
     "code": (0x00000000, 0x400000), "ram": (0x20000000, 0x400000)},
    {"id": "m0", "title": "Cortex-M0", "row": "cortex-m0", "tool": "arm-none-eabi-",
     "flags": "-mcpu=cortex-m0 -mthumb",
     "qemu": "qemu-system-arm -M microbit",
     "code": (0x00000000, 0x40000), "ram": (0x20000000, 0x4000)},
    {"id": "rv32imac", "title": "rv32imac", "row": "rv32imac", "tool": "riscv64-unknown-elf-",
     "flags": "-march=rv32imac -mabi=ilp32",
     "qemu": "qemu-system-riscv32 -M virt -cpu rv32,f=false,d=false -bios none",
     "count_limit": 6000,
     "code": (0x80000000, 0x100000), "ram": (0x80100000, 0x3f00000)},
    {"id": "rv32imafc", "title": "rv32imafc", "row": "rv32imafc", "tool": "riscv64-unknown-elf-",
     "flags": "-march=rv32imafc -mabi=ilp32f",
     "qemu": "qemu-system-riscv32 -M virt -cpu rv32 -bios none",
     "code": (0x80000000, 0x100000), "ram": (0x80100000, 0x3f00000)},
    # The AN547's ITCM (512 KiB at 0) for the code, its internal SRAM
    # (two 2 MiB banks behind the MPC, 0x21000000) for the data; the
    # core starts in the secure state, where both are usable as they are.
    {"id": "m55", "title": "Cortex-M55 (Helium)", "row": "cortex-m55", "tool": "arm-none-eabi-",
     "flags": "-mcpu=cortex-m55 -mthumb -mfloat-abi=hard",
     "clang": "clang-14 --target=thumbv8.1m.main-none-eabihf -mcpu=cortex-m55 "
              "-mfloat-abi=hard",
     "levels": ["-Os", "-O2", "-O3", "clang -O2"],
     "objdump": "-m armv8.1-m.main", "vector": "MVE",
     "qemu": "qemu-system-arm -M mps3-an547",
     "code": (0x00000000, 0x80000), "ram": (0x21000000, 0x400000)},
]
# The levels of every target (gcc's), and those the checks read.
LEVELS = ["-Os", "-O2"]
CHECKED = ["-Os", "-O2"]
CFLAGS = "-std=c99 -ffreestanding -ffunction-sections -fdata-sections -Wall -Wextra"
STACK = 2048            # bytes of RAM kept for the stack
# Output elements at most for an instruction count (a target may say
# fewer): the log has a line per executed block, a few instructions, and
# a soft-float add is some 60 of them.
COUNT_LIMIT = 16384

# bcastgen's implementations: the strategies, each the same for every
# target (auto's choices for the generic row), then auto for the target's
# own row (--target ROW, speed); then the two others.
VARIANTS = [
    ("unroll", ["--strategy", "unroll", "--unroll-limit", "512"]),
    ("loops", ["--strategy", "loops"]),
    ("block", ["--strategy", "block"]),
    ("speed", ["--optimize", "speed"]),
    ("size", ["--optimize", "size"]),
]
STRATEGIES = [v for v, _ in VARIANTS]
OTHERS = ["ref", "hand"]
ALL = STRATEGIES + ["target"] + OTHERS
TITLE = {"unroll": "unroll", "loops": "loops", "block": "block",
         "speed": "auto speed", "size": "auto size", "target": "auto --target",
         "ref": "bc_ref.h", "hand": "hand"}
# Strategy words that the cases' own command lines may carry: dropped,
# each variant gives its own.
DROP = {"--strategy": 1, "--unroll-limit": 1, "--optimize": 1,
        "--stream": 1, "--cache-size": 1, "--loop-order": 1, "--target": 1}

# Cases of make size's own, after the seeds' and bench/cases.txt's: the
# firmware's kernels that neither has.
SIZE_CASES = [
    # an int8 activation plus an int32 bias per channel, saturated back
    # to int8 (a quantized convolution's output stage, NHWC)
    ("fm_bias", ["--expr", "min(max(i32(x) + b, -128), 127)", "--dtype", "i32",
                 "--out-dtype", "i8", "x:i8=1,16,16,8", "b:i32=8"]),
    # an f16 bias per channel: two conversions to float and one back an
    # element, where bias_f16 is too large to run under QEMU
    ("f16_bias", ["x:f16=1,16,16,8", "y:f16=8"]),
]
# The quantized kernels (bc_quant.h), each with the scales and zero points
# of a model, small enough to be counted on the Cortex-M4F and the M55:
# the cases of the check against the TFLM-style loop (see QUANT_RATIO),
# which each of them must pass (bench/cases.txt's, too large to count,
# are built only).
QUANT_CASES = [
    (cid, ["--op", op, "--dtype", dt] + sum((["--quant", q] for q in qs), []) + extra + shapes)
    for cid, op, dt, qs, extra, shapes in [
        # a bias per row (the y input requantized once a row)
        ("q8_add_bcast", "add", "i8", ["x=0.0472,-3", "y=0.0123,5", "out=0.081,-1"], [],
         ["x=64,256", "y=64,1"]),
        # two activations of the same shape (a residual add)
        ("q8_add_same", "add", "i8", ["x=0.0472,-3", "y=0.0123,5", "out=0.081,-1"], [],
         ["x=64,256", "y=64,256"]),
        # a scale per channel, NHWC, with a ReLU
        ("q8_mul", "mul", "i8", ["x=0.0472,-3", "y=0.0123,5", "out=0.081,-1"],
         ["--activation", "relu"], ["x=1,8,8,16", "y=1,1,1,16"]),
        # int16 (zero points 0, as TFLM's int16 kernels need) plus a row
        ("q16_add", "add", "i16", ["x=0.000472,0", "y=0.000123,0", "out=0.00081,0"], [],
         ["x=16,256", "y=256"]),
    ]
]
SIZE_CASES += QUANT_CASES

# The checks of auto --target against the strategies bcastgen emitted for
# the case (unroll, loops, block, auto speed, auto size), for each case and
# target, at -O2, the level it plans for (for speed): its instructions per
# element at most SLOWER_BY times the fewest of theirs within BIGGER_BY
# times the smallest's bytes, and its bytes at most BIGGER_BY times the
# smallest of theirs.  At -Os its bytes are reported, not checked: where
# bytes matter more than speed, --optimize size plans for them.
# Exceptions, with why, measured: (case, target) -> reason.
SLOWER_BY = 1.05
BIGGER_BY = 4.0
KNOWN_SLOWER = {
    ("fived", "rv32imafc"):
        "auto --target keeps what it writes out within 4 times the loops' code in "
        "nodes (PLAN_CODE_GROWTH): 7 elements, 178 bytes at -O2, 3.8 instructions "
        "per element; the 35 of --strategy block run 3.3 but take 502 bytes, past "
        "that budget (and 3.9 times the smallest strategy's 128)",
}
KNOWN_BIGGER = {}

# Cases where --optimize size may be larger than another strategy at -Os,
# with why (measured: see README.md, "Code size"): (case, target) -> reason.
BLOCK3 = ("x(4,3) + y(3): on RISC-V the block (the inner 3 written out, y's "
          "three values in registers, offsets in the loads) is smaller than "
          "a second loop with its counter and address adds: 112 bytes "
          "against 114 on rv32imac, 54 against 60 on rv32imafc")
COPY12 = ("a copy of 2 values to 12 places: written out, 2 loads and 12 "
          "stores at offsets from one base (30 bytes); the loop gcc makes "
          "of it (4 stores a pass) needs a push, two bases and a compare (36); "
          "the same Thumb-2 code on the Cortex-M4F and the Cortex-M55")
KNOWN_LARGER = {
    ("tiny43", "rv32imac"): BLOCK3,
    ("tiny43", "rv32imafc"): BLOCK3,
    ("seed001_row", "rv32imac"): BLOCK3,
    ("seed001_row", "rv32imafc"): BLOCK3,
    ("seed004_broadcast_to", "m4f"): COPY12,
    ("seed004_broadcast_to", "m55"): COPY12,
    ("col17", "rv32imac"):
        "gcc's register allocation at -Os around the soft-float call: the "
        "single loop of 17 keeps 11 registers saved, the loop of 16 with "
        "a tail of 1 only 9, 4 bytes less (126 against 122)",
}

# The case of the f16 section and check: its auto --target kernel built
# as it is, where bc.h's f16 conversions are the FPU's (BC__F16_VCVT),
# against the same kernel with -DBC_F16_PORTABLE, the portable integer
# code those builds ran before; the check: the FPU's no slower, in
# instructions per element, at every level measured.
F16_CASE = "f16_bias"
PORTABLE = "target_portable"
TITLE[PORTABLE] = "auto --target with -DBC_F16_PORTABLE"

# The quantized kernels (bcastgen's --quant: TFLite Micro's int8 and int16
# add, subtract and multiply, bit for bit) against a TFLM-style loop
# (bench/tflm_ref.h: the parameters read at run time, TFLM's flat loop
# for equal shapes and its 6-D broadcast loop with each input's offset
# advanced by run-time strides otherwise, both inputs requantized for
# every element), implementation TFLM of every case with --quant; it is
# not in the main table (its columns are the strategies'), but in the
# section "Quantized kernels" and in size.tsv (with TFLM6D).  The check: on QUANT_CORE
# at QUANT_LEVEL, auto --target runs at most QUANT_RATIO times the TFLM-
# style loop's instructions per element, for each quantized case,
# unless KNOWN_QUANT says why ((case, target) -> reason, measured).
# The Cortex-M55's goal, at most M55_GOAL instructions per element at
# -O2 for an int8 add and an int8 multiply (M55_GOAL_OPS), is checked
# too, and reported with the share of MVE instructions.
TFLM = "tflm"
TITLE[TFLM] = "TFLM-style loop"
# For a case whose inputs have the same shape, where TFLM's Eval (and the
# TFLM-style loop) runs the flat loop: the TFLM-style loop forced through
# the 6-D broadcast loop, reported only.
TFLM6D = "tflm6d"
TITLE[TFLM6D] = "TFLM-style 6-D loop"
TFLM_REF = os.path.join(HERE, "tflm_ref.h")
QUANT_RATIO = 0.45
QUANT_CORE = "m4f"
QUANT_LEVEL = "-O2"
KNOWN_QUANT = {}
M55_GOAL = 6.0
M55_GOAL_OPS = (("add", "int8"), ("mul", "int8"))

ELEM_BYTES = {"float": 4, "bc_f16": 2, "int8_t": 1, "uint8_t": 1,
              "int16_t": 2, "uint16_t": 2, "int32_t": 4, "uint32_t": 4,
              "int64_t": 8, "uint64_t": 8, "double": 8}


def die(msg):
    sys.stderr.write("size: error: %s\n" % msg)
    sys.exit(1)


def run(cmd, **kw):
    """Run cmd (a list); return (status, stdout + stderr)."""
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, **kw)
    return p.returncode, p.stdout


# ---------------------------------------------------------------- cases

def seed_cases():
    """The seeds' kernels: tests/golden/seed*.args, one case per distinct
    command line once the strategy words are dropped."""
    gold = os.path.join(TOP, "tests", "golden")
    cases, seen = [], {}
    for f in sorted(os.listdir(gold)):
        if not (f.startswith("seed") and f.endswith(".args")):
            continue
        with open(os.path.join(gold, f)) as fh:
            words = strip_strategy(shlex.split(fh.read()))
        key = " ".join(words)
        if key in seen:
            continue
        name = re.sub(r"_(loops|unroll)$", "", f[:-5])
        if any(c[0] == name for c in cases):
            name = f[:-5]
        seen[key] = name
        cases.append((name, words))
    return cases


def bench_cases():
    """The benchmark cases: ID | words | flags lines of bench/cases.txt."""
    cases = []
    with open(os.path.join(HERE, "cases.txt")) as fh:
        for line in fh:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split("|")]
            cases.append((parts[0], strip_strategy(shlex.split(parts[1]))))
    return cases


def strip_strategy(words):
    out, i = [], 0
    while i < len(words):
        if words[i] in DROP:
            i += 1 + DROP[words[i]]
            continue
        out.append(words[i])
        i += 1
    return out


# ------------------------------------------------- reading a kernel

def parse_kernel(cfile, hfile):
    """From a generated kernel: its parameters [(ctype, name, const)], and
    the result dims and per-row element strides of its banner (rows: the
    inputs in order, the output last)."""
    with open(hfile) as fh:
        h = fh.read()
    m = re.search(r"^void \w+\((.*)\);$", h, re.M)
    params = []
    for p in m.group(1).split(","):
        p = p.strip()
        pm = re.match(r"(const )?(\w+) \*BC_RESTRICT (\w+)$", p)
        params.append((pm.group(2), pm.group(3), bool(pm.group(1))))
    with open(cfile) as fh:
        c = fh.read()
    dims, strides = [], []
    table = r"\n \*   dim[^\n]*\n((?: \*  [^\n]*\n)+)"
    sm = re.search(table, c)
    if sm:
        # the first table: the aligned shapes, the result last
        dims = [int(v) for v in sm.group(1).strip().splitlines()[-1].split()[2:]]
        tm = re.search(r"Strides in elements.*?" + table, c, re.S)
        for row in tm.group(1).strip().splitlines():
            strides.append([int(v) for v in row.split()[2:]])
    cm = re.search(r"^#define \w+_COUNT (\d+)$", h, re.M)
    count = 1
    for n in dims:
        count *= n
    if not cm or int(cm.group(1)) != count:
        die("%s: its banner's shapes (%s) are not its _COUNT" % (cfile, dims))
    return params, dims, strides


def op_of(words):
    """The case's operation for the hand loop and bc_ref.h, or None."""
    if "--expr" in words:
        e = words[words.index("--expr") + 1].replace(" ", "")
        return {"max(x*w+b,0)": "relu",
                "min(max(i32(x)+b,-128),127)": "bias_sat8"}.get(e)
    op = words[words.index("--op") + 1] if "--op" in words else "add"
    alias = {"sub": "subtract", "gt": "greater", "max": "maximum"}
    op = alias.get(op, op)
    return op if op in ("add", "subtract", "greater", "maximum", "copy") else None


def elem_c(op, ctypes, args):
    """C for one output element of op over the C expressions args whose
    stored types are ctypes, as a firmware programmer writes it: floats
    in C's arithmetic, integers wrapping through unsigned, f16 through
    float with bc.h's conversions."""
    t = ctypes[0]
    if t == "bc_f16":
        args = ["bc_f16_to_f32(%s)" % a for a in args]
    if op == "copy":
        return args[0]
    if op in ("add", "subtract"):
        sym = " + " if op == "add" else " - "
        if t.startswith("int") or t.startswith("uint"):
            u = "u" + t if t.startswith("int") else t
            e = sym.join("(%s)%s" % (u, a) for a in args)
            return "(%s)(%s)(%s)" % (t, u, e) if t.startswith("int") else "(%s)(%s)" % (t, e)
        e = sym.join(args)
        return "bc_f32_to_f16(%s)" % e if t == "bc_f16" else e
    if op == "greater":
        return "(uint8_t)(%s > %s)" % (args[0], args[1])
    if op == "maximum":     # NumPy's: a NaN in either gives it
        return "(%s > %s || %s != %s) ? %s : %s" % (args[0], args[1], args[0],
                                                      args[0], args[0], args[1])
    if op == "relu":
        return "bc_size_relu(%s * %s + %s)" % tuple(args)
    if op == "bias_sat8":   # int8 + int32, wrapping as the kernel's i32 add does
        return "bc_size_sat8((int32_t)((uint32_t)%s + (uint32_t)%s))" % tuple(args)
    return None


def write_hand(path, name, op, params, dims, strides):
    """A loop nest over every result dimension, each index computed from
    the counters: plain C as one writes it for these shapes."""
    outp = [p for p in params if not p[2]][0]
    ins = [p for p in params if p[2]]
    inplace = len(ins) == len(params) - 1 and outp is params[0]
    in_rows = strides[:-1] if strides else []
    loads = []
    srcs = ([outp] + ins) if inplace else ins
    for k, p in enumerate(srcs):
        idx = " + ".join("i%d * %d" % (d, s) for d, s in enumerate(in_rows[k]) if s) \
            if in_rows else ""
        loads.append("%s[%s]" % (p[1], idx or "0"))
    oidx = " + ".join("i%d * %d" % (d, s) for d, s in enumerate(strides[-1]) if s) \
        if strides else ""
    body = "%s[%s] = %s;" % (outp[1], oidx or "0",
                              elem_c(op, [p[0] for p in srcs], loads))
    lines = ["/* %s: the hand-written loops of this case. */" % name,
             "#include <stdint.h>", '#include "bc.h"', RELU_C,
             "void %s(%s)" % (name, sig(params)), "{"]
    if dims:
        lines.append("\tunsigned %s;" % ", ".join("i%d" % d for d in range(len(dims))))
    ind = "\t"
    for d, n in enumerate(dims):
        lines.append("%sfor (i%d = 0; i%d < %d; i%d++)" % (ind, d, d, n, d))
        ind += "\t"
    lines.append(ind + body)
    lines.append("}")
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")


RELU_C = """static inline float bc_size_relu(float v) { return v > 0 ? v : 0; }
static inline int8_t bc_size_sat8(int32_t v)
{ return (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v); }"""


def write_ref(path, name, op, params, dims, strides):
    """The same shapes through runtime/bc_ref.h's walk: strides as data,
    the element in a callback."""
    outp = [p for p in params if not p[2]][0]
    ins = [p for p in params if p[2]]
    inplace = outp is params[0] and len(ins) == len(params) - 1
    srcs = ([outp] + ins) if inplace else ins
    rank = len(dims)
    nops = len(srcs) + 1
    rows = strides if strides else [[] for _ in range(nops)]
    loads = ["((const %s *)ops[%d].data)[off[%d]]" % (p[0], k, k)
             for k, p in enumerate(srcs)]
    lines = ["/* %s: this case through bc_ref.h's generic walk. */" % name,
             "#include <stdint.h>", '#include "bc.h"', '#include "bc_ref.h"', RELU_C,
             "static void elem(void *ctx, const ptrdiff_t *off)", "{",
             "\tconst struct bc_ref_operand *ops = ctx;",
             "\t((%s *)(uintptr_t)ops[%d].data)[off[%d]] = %s;" % (
                 outp[0], nops - 1, nops - 1, elem_c(op, [p[0] for p in srcs], loads)),
             "}"]
    for k, row in enumerate(rows):
        lines.append("static const ptrdiff_t st%d[%d] = {%s};" % (
            k, max(rank, 1), ", ".join(str(s) for s in row) or "0"))
    lines.append("static const size_t dims[%d] = {%s};" % (
        max(rank, 1), ", ".join(str(n) for n in dims) or "1"))
    lines += ["void %s(%s)" % (name, sig(params)), "{",
              "\tstruct bc_ref_operand ops[%d];" % nops,
              "\tsize_t idx[%d];" % max(rank, 1),
              "\tptrdiff_t off[%d];" % nops]
    for k, p in enumerate(srcs + [outp]):
        lines.append("\tops[%d].data = %s; ops[%d].strides = st%d;" % (k, p[1], k, k))
    lines.append("\tbc_ref_walk(%d, dims, %d, ops, idx, off, elem, ops);" % (rank, nops))
    lines.append("}")
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")


def sig(params):
    return ", ".join("%s%s *restrict %s" % ("const " if c else "", t, n)
                     for t, n, c in params)


# bcastgen's names of the quantized ops, as tests/quant_oracle.py's.
QUANT_OPS = {"add": "add", "sub": "sub", "subtract": "sub", "mul": "mul", "multiply": "mul"}
QUANT_DTYPES = {"int8_t": "int8", "int16_t": "int16"}


def quant_of(words):
    """A quantized case's words as a dict: op and dtype (tests/
    quant_oracle.py's names), quant {operand: (scale, zero point)} (the
    text of each --quant), activation, rounding, shapes {operand: [dims]}
    and order (the operands in order); None for a case without
    --quant."""
    if "--quant" not in words:
        return None
    op, operands, options = case_parts(words)
    q = {"op": QUANT_OPS.get(op.replace("`", "")), "quant": {}, "activation": "none",
         "rounding": "double", "shapes": {}, "order": [], "dtype": None}
    for k in range(0, len(options) - 1):
        w, v = options[k], options[k + 1]
        if w == "--quant":
            name, _, sz = v.partition("=")
            scale, _, zero = sz.partition(",")
            q["quant"][name] = (scale, int(zero))
        elif w in ("--activation", "--rounding"):
            q[w[2:]] = v
        elif w == "--dtype":
            q["dtype"] = {"i8": "int8", "i16": "int16"}.get(v)
    for o in operands:
        name, _, dims = o.partition("=")
        name, _, dt = name.partition(":")
        if q["dtype"] is None and dt:
            q["dtype"] = {"i8": "int8", "i16": "int16"}.get(dt)
        q["order"].append(name)
        q["shapes"][name] = [int(d) for d in dims.split(",") if d]
    return q


_ORACLE = []
_ORACLE_LOCK = threading.Lock()


def quant_oracle():
    """tests/quant_oracle.py (TFLM's Prepare and kernels in Python), loaded
    once (prepare runs in threads), without writing its bytecode into
    tests/."""
    with _ORACLE_LOCK:
        if _ORACLE:
            return _ORACLE[0]
        import importlib.util
        spec = importlib.util.spec_from_file_location(
            "quant_oracle", os.path.join(TOP, "tests", "quant_oracle.py"))
        mod = importlib.util.module_from_spec(spec)
        keep, sys.dont_write_bytecode = sys.dont_write_bytecode, True
        try:
            spec.loader.exec_module(mod)
        except ImportError as e:
            die("tests/quant_oracle.py: %s (make deps installs python3-numpy)" % e)
        finally:
            sys.dont_write_bytecode = keep
        _ORACLE.append(mod)
        return mod


def write_tflm(path, name, words, params, dims, always_broadcast=False):
    """The case through bench/tflm_ref.h, as TFLite Micro's Eval runs its
    reference kernel: Prepare's constants (tests/quant_oracle.py's
    params(), not bcastgen's) and the tensors' shapes in a struct of the
    program's data (NAME_op: external, so the compiler cannot know its
    values), read at run time; the pointers without restrict, as TFLM
    passes them.  ALWAYS_BROADCAST: the 6-D broadcast loop for equal
    shapes too (TFLM_REF_ALWAYS_BROADCAST)."""
    q = quant_of(words)
    outp = [p for p in params if not p[2]][0]
    ins = [p for p in params if p[2]]
    if len(ins) != 2 or len(params) != 3 or q["op"] is None:
        die("%s: a quantized add, subtract or multiply of two inputs only" % name)
    dtype = QUANT_DTYPES[outp[0]]
    names = [ins[0][1], ins[1][1], outp[1]]
    p = quant_oracle().params(q["op"], dtype, {
        "x": q["quant"][names[0]], "y": q["quant"][names[1]], "out": q["quant"][names[2]]},
        q["activation"], q["rounding"])
    shapes = [q["shapes"][names[0]], q["shapes"][names[1]], dims]
    if any(len(s) > 6 for s in shapes):
        die("%s: TFLM's broadcast loop has 6 dimensions at most" % name)
    fields = [("input1_offset", -p["zx"]), ("input2_offset", -p["zy"]),
              ("output_offset", p["zo"])]
    if q["op"] == "mul":
        fields += [("output_multiplier", p["out_mult"]), ("output_shift", p["out_shift"])]
    else:
        fields += [("left_shift", p["left_shift"]),
                   ("input1_multiplier", p["x_mult"]), ("input1_shift", p["x_shift"]),
                   ("input2_multiplier", p["y_mult"]), ("input2_shift", p["y_shift"]),
                   ("output_multiplier", p["out_mult"]), ("output_shift", p["out_shift"])]
    fields += [("output_activation_min", p["lo"]), ("output_activation_max", p["hi"])]
    for f, s in zip(("input1", "input2", "output"), shapes):
        fields.append((f, "{%d, {%s}}" % (len(s), ", ".join(str(n) for n in s) or "0")))
    lines = ["/* %s: this case as TFLite Micro's reference kernel runs it (bench/tflm_ref.h):"
             % name,
             " * Prepare's constants (%s %s, %s rounding, activation %s) and the shapes"
             % (dtype, q["op"], q["rounding"], q["activation"]),
             " * read at run time from %s_op. */" % name,
             "#include <stdint.h>"]
    if q["rounding"] == "single":
        lines.append("#define TFLM_REF_SINGLE_ROUNDING 1")
    if always_broadcast:
        lines.append("#define TFLM_REF_ALWAYS_BROADCAST 1")
    lines += ['#include "tflm_ref.h"',
              "struct tflm_ref_op %s_op = {" % name]
    lines += ["\t.%s = %s," % f for f in fields]
    lines += ["};",
              "void %s(%s)" % (name, ", ".join("%s%s *%s" % ("const " if c else "", t, n)
                                              for t, n, c in params)),
              "{",
              "\ttflm_ref_%s_i%s(&%s_op, %s, %s, %s);" % (
                  q["op"], dtype[3:], name, names[0], names[1], names[2]),
              "}"]
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")


# ------------------------------------------------- the program

def write_driver(path, impls, params, count, elems):
    """main: for each implementation, fill the inputs (integer code only:
    fixed bit patterns, floats in [1, 2)), call it, call size_mark (the
    end of the counted stretch), hash the output; then compare every hash
    with the first and name the implementations that differ."""
    outp = [p for p in params if not p[2]][0]
    D = '__attribute__((section(".text.size_driver")))'
    lines = ["/* The program of one case: every implementation once. */",
             "#include <stddef.h>", "#include <stdint.h>", '#include "bc.h"',
             "void size_exit(int status) __attribute__((noreturn));",
             "void size_puts(const char *s);",
             "void size_mark(void);"]
    for v, fn in impls:
        lines.append("void %s(%s);" % (fn, sig(params)))
    for t, n, c in params:
        cnt = count if not c else elems[n]
        lines.append("static %s %s[%d];" % (t, n, max(cnt, 1)))
    lines += [
        "%s static void fill(void *p, size_t bytes, int kind)" % D, "{",
        "\tsize_t i;",
        "\tuint32_t h = 0x9e3779b9u;",
        "\tif (kind == 4) {",
        "\t\tfor (i = 0; i < bytes / 4; i++, h = h * 1664525u + 1013904223u)",
        "\t\t\t((uint32_t *)p)[i] = 0x3f800000u | (h >> 9);",
        "\t} else if (kind == 2) {",
        "\t\tfor (i = 0; i < bytes / 2; i++, h = h * 1664525u + 1013904223u)",
        "\t\t\t((uint16_t *)p)[i] = (uint16_t)(0x3c00u | (h >> 22));",
        "\t} else {",
        "\t\tfor (i = 0; i < bytes; i++, h = h * 1664525u + 1013904223u)",
        "\t\t\t((uint8_t *)p)[i] = (uint8_t)(h >> 24);",
        "\t}", "}",
        "%s static uint32_t hash(const void *p, size_t bytes)" % D, "{",
        "\tuint32_t h = 2166136261u;",
        "\tsize_t i;",
        "\tfor (i = 0; i < bytes; i++)",
        "\t\th = (h ^ ((const uint8_t *)p)[i]) * 16777619u;",
        "\treturn h;", "}",
        "%s static void fill_all(void)" % D, "{"]
    for t, n, c in params:
        kind = {"float": 4, "bc_f16": 2}.get(t, 1)
        lines.append("\tfill(%s, sizeof %s, %d);" % (n, n, kind))
    lines += ["}", "%s int main(void)" % D, "{",
              "\tuint32_t h[%d];" % len(impls), "\tint bad = 0;"]
    args = ", ".join(n for t, n, c in params)
    for k, (v, fn) in enumerate(impls):
        lines += ["\tfill_all();", "\t%s(%s);" % (fn, args), "\tsize_mark();",
                  "\th[%d] = hash(%s, sizeof %s);" % (k, outp[1], outp[1])]
    for k, (v, fn) in enumerate(impls[1:], 1):
        lines.append('\tif (h[%d] != h[0]) { size_puts("differs: %s\\n"); bad = 1; }'
                     % (k, v))
    lines += ["\treturn bad;", "}",
              "__attribute__((noinline)) void size_mark(void)",
              "{", "\t__asm__ volatile (\"\" ::: \"memory\");", "}"]
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")


def linker_script(t):
    return """ENTRY(%(entry)s)
MEMORY
{
	CODE (rx) : ORIGIN = 0x%(co)x, LENGTH = 0x%(cl)x
	RAM (rwx) : ORIGIN = 0x%(ro)x, LENGTH = 0x%(rl)x
}
SECTIONS
{
	.text : {
		KEEP(*(.vectors))
		*(.text.start)
		*(.text.size_driver)
		. = ALIGN(4);
		_counted = .;
		*(.text .text.*)
		_counted_end = .;
		*(.rodata .rodata.* .srodata .srodata.*)
	} >CODE
	.data : { *(.data .data.* .sdata .sdata.*) } >RAM
	.bss : { *(.bss .bss.* .sbss .sbss.* COMMON) } >RAM
	_stack_top = ORIGIN(RAM) + LENGTH(RAM);
	/DISCARD/ : { *(.ARM.exidx*) *(.ARM.extab*) *(.riscv.attributes) }
}
""" % {"entry": "size_reset" if t["id"].startswith("m") else "_start",
       "co": t["code"][0], "cl": t["code"][1],
       "ro": t["ram"][0], "rl": t["ram"][1]}


# ------------------------------------------------- one case

def prepare(gen, out, cid, words, targets, others=True):
    """Generate the case's implementations in OUT/CID/: the strategies,
    auto for each target's row (in OUT/CID/target_ID/), and unless OTHERS
    is false bc_ref.h's walk and the hand loop (not for a quantized
    case, which has the TFLM-style loop instead, TFLM, even without
    OTHERS).  Returns a dict: impls
    [(variant, function, .c)], timpls {target id: (function, .c)},
    keys {.c: its code_key} of bcastgen's, params, dims, count, why
    (variants that do not apply, and why; for auto --target, "target
    ID"), or {"error": why} when even auto fails."""
    d = os.path.join(out, cid)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    impls, timpls, why, keys = [], {}, {}, {}
    params = dims = strides = None
    for v, extra in VARIANTS:
        fn = "%s_%s" % (cid, v)
        c = os.path.join(d, fn + ".c")
        st, text = run([gen] + extra + ["--name", fn, "-o", c] + words)
        if st != 0:
            why[v] = refusal(text)
            continue
        impls.append((v, fn, c))
        keys[c] = code_key(fn, c)
        if params is None:
            params, dims, strides = parse_kernel(c, c[:-2] + ".h")
    if params is None:
        return {"error": why.get("speed", "bcastgen failed")}
    for t in targets:
        fn = "%s_target" % cid
        td = os.path.join(d, "target_" + t["id"])
        os.makedirs(td)
        c = os.path.join(td, fn + ".c")
        st, text = run([gen, "--target", t["row"], "--name", fn, "-o", c] + words)
        if st != 0:
            why["target " + t["id"]] = refusal(text)
            continue
        timpls[t["id"]] = (fn, c)
        keys[c] = code_key(fn, c)
    quant = "--quant" in words
    op = None if quant else op_of(words)
    for v, writer in (("ref", write_ref), ("hand", write_hand)):
        if not others:
            continue
        if op is None:
            why[v] = ("not written for quantized kernels (their reference is the "
                      "TFLM-style loop)" if quant else "not written for this op")
            continue
        fn = "%s_%s" % (cid, v)
        c = os.path.join(d, fn + ".c")
        writer(c, fn, op, params, dims, strides)
        impls.append((v, fn, c))
    if quant:
        # the TFLM-style loop, also for --only-check: its check reads it
        fn = "%s_%s" % (cid, TFLM)
        c = os.path.join(d, fn + ".c")
        write_tflm(c, fn, words, params, dims)
        impls.append((TFLM, fn, c))
        q = quant_of(words)
        if len(set(tuple(s) for s in q["shapes"].values())) == 1 and others:
            fn = "%s_%s" % (cid, TFLM6D)
            c = os.path.join(d, fn + ".c")
            write_tflm(c, fn, words, params, dims, always_broadcast=True)
            impls.append((TFLM6D, fn, c))
    count = 1
    for n in dims:
        count *= n
    return {"impls": impls, "timpls": timpls, "keys": keys, "params": params,
            "dims": dims, "count": count, "strides": strides, "why": why, "dir": d}


def refusal(text):
    """Why bcastgen refused, from what it printed (TEXT): its error line
    without "bcastgen: error: ". Warnings may come before it (a kernel
    name past 31 characters, such as seed001_channel_bias_unroll, has
    one), so it is not the first line."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for line in lines:
        if line.startswith("bcastgen: error: "):
            return line[len("bcastgen: error: "):]
    for line in lines:
        if "error" in line:
            return line
    return lines[-1] if lines else "refused"


def text_bytes(t, objs):
    """The bytes of each object's .text sections (.text and .text.*), in
    the order of OBJS."""
    st, text = run([t["tool"] + "size", "-A"] + objs)
    totals, cur = {}, None
    for line in text.splitlines():
        f = line.split()
        if len(f) == 2 and f[1] == ":":
            cur = f[0]
            totals[cur] = 0
        elif cur and len(f) >= 2 and (f[0] == ".text" or f[0].startswith(".text.")):
            totals[cur] += int(f[1])
    return [totals.get(o) for o in objs]


def input_elems(params, dims, strides):
    """The element count of each input: from its strides and the dims
    (1 + sum of (dim - 1) * stride)."""
    out = {}
    outp = [p for p in params if not p[2]][0]
    ins = [p for p in params if p[2]]
    inplace = outp is params[0] and len(ins) == len(params) - 1
    srcs = ([outp] + ins) if inplace else ins
    for k, p in enumerate(srcs):
        row = strides[k] if strides else []
        out[p[1]] = 1 + sum((n - 1) * s for n, s in zip(dims, row))
    return out


def compiler(t, level):
    """The command that compiles for target t at level: gcc with the
    target's flags, or for a level "clang -OX" the target's clang; the
    runtime's headers and bench/'s (tflm_ref.h) on the include path."""
    if level.startswith("clang "):
        cmd = t["clang"].split() + level.split()[1:]
    else:
        cmd = [t["tool"] + "gcc"] + t["flags"].split() + [level]
    return cmd + CFLAGS.split() + ["-I" + RUNTIME, "-I" + HERE]


def unit_dir(gen_dir, t, level):
    return os.path.join(gen_dir, t["id"] + level.replace("-", "_").replace(" ", ""))


def unit(case, t, level, gen_dir, keep=None):
    """Compile every implementation of one case (those in KEEP, when
    given) for target t at level; link and run under QEMU when it fits.
    Returns rows {variant: [bytes, instructions per element or None,
    vector instructions per element or None]} and a note."""
    d = unit_dir(gen_dir, t, level)
    os.makedirs(d, exist_ok=True)
    cc = compiler(t, level)
    impls = list(case["impls"])
    if t["id"] in case["timpls"]:
        impls.append(("target",) + case["timpls"][t["id"]])
    impls = [i for i in impls if keep is None or i[0] in keep]
    # an implementation whose code is another's under its own name is
    # neither compiled nor run: it has the other's figures
    twins, first = {}, {}
    for v, fn, c in impls:
        k = case["keys"].get(c)
        if k in first:
            twins[v] = first[k]
        elif k is not None:
            first[k] = v
    impls = [i for i in impls if i[0] not in twins]
    params, count = case["params"], case["count"]
    nbytes = sum(ELEM_BYTES[p[0]] * (count if not p[2] else case["elems"][p[1]])
                 for p in params)
    limit = t.get("count_limit", COUNT_LIMIT)
    if nbytes + STACK > t["ram"][1]:
        why = "no count: %d bytes of data, more than the RAM" % nbytes
    elif count > limit:
        why = "no count: %d elements, more than %d" % (count, limit)
    elif count == 0:
        why = "no count: no elements"
    else:
        why = ""
    srcs = [c for v, fn, c in impls]
    if not why:
        drv = os.path.join(d, "driver.c")
        write_driver(drv, [(v, fn) for v, fn, c in impls], params, count, case["elems"])
        srcs += [START, drv]
    # one compiler run for all (in D, each object named after its source)
    objs = [os.path.join(d, os.path.basename(c)[:-2] + ".o") for c in srcs]
    st, text = run(cc + ["-c"] + srcs, cwd=d)
    if st != 0:
        for src, name in zip(srcs, [v for v, fn, c in impls] + ["start.c", "driver.c"]):
            one, text1 = run(cc + ["-c", src, "-o", os.devnull])
            if one != 0:
                return {}, "%s does not compile: %s" % (name, first_error(text1))
        return {}, "does not compile: %s" % first_error(text)
    res = {}
    for (v, fn, c), b in zip(impls, text_bytes(t, objs[:len(impls)])):
        res[v] = [b, None, None]
    if why:
        return with_twins(res, twins), why
    ld = os.path.join(d, "prog.ld")
    with open(ld, "w") as fh:
        fh.write(linker_script(t))
    elf = os.path.join(d, "prog.elf")
    st, text = run([t["tool"] + "gcc"] + t["flags"].split() + [
        "-nostdlib", "-T", ld, "-Wl,--gc-sections", "-o", elf] + objs[len(impls):]
        + objs[:len(impls)] + ["-lgcc"])
    if st != 0:
        return with_twins(res, twins), "does not link: %s" % first_error(text)
    syms = symbols(t, elf)
    log = os.path.join(d, "exec.log")
    lo, hi = syms["_counted"], syms["_counted_end"]
    cmd = ["timeout", "60"] + t["qemu"].split() + [
        "-nographic", "-semihosting-config", "enable=on,target=native",
        "-d", "in_asm,exec,nochain", "-dfilter", "0x%x..0x%x" % (lo, hi - 1),
        "-D", log, "-kernel", elf]
    st, text = run(cmd, stdin=subprocess.DEVNULL)
    if st != 0:
        return with_twins(res, twins), "the run failed (status %d): %s" % (st, text.strip()[:200])
    insns, vector = disassemble(t, elf, lo, hi)
    try:
        counts = count_log(log, [(v, syms[fn]) for v, fn, c in impls],
                           syms["size_mark"], insns, vector or [])
    except ValueError as e:
        return with_twins(res, twins), "not counted: %s" % e
    os.remove(log)
    for v, (n, nv) in counts.items():
        res[v][1] = n / count
        if "vector" in t:
            res[v][2] = nv / count
    return with_twins(res, twins), ""


def with_twins(res, twins):
    """RES with the figures of each twin: {twin: the variant it is}."""
    for v, w in twins.items():
        if w in res:
            res[v] = list(res[w])
    return res


def f16_vcvt(t, level):
    """Whether runtime/bc.h converts f16 with the FPU's VCVTB when built
    for target t at level: BC__F16_VCVT, as the compiler's preprocessor
    defines it."""
    st, text = run(compiler(t, level) + ["-E", "-dM", "-x", "c", "-"],
                   input='#include "bc.h"\n')
    return st == 0 and re.search(r"^#define BC__F16_VCVT 1$", text, re.M) is not None


def f16_portable_case(case, t):
    """The program of the f16 comparison on target t, as a case for unit:
    the case's auto --target kernel as it is ("target"), and the same
    source with bc.h's portable f16 conversions under a name of its own
    (PORTABLE: a file that defines BC_F16_PORTABLE and the new name,
    then includes the kernel's), in the kernel's directory.  None when
    the case has no kernel for t."""
    if t["id"] not in case["timpls"]:
        return None
    fn, c = case["timpls"][t["id"]]
    pc = os.path.join(os.path.dirname(c), fn + "_portable.c")
    with open(pc, "w") as fh:
        fh.write("/* %s with runtime/bc.h's portable f16 conversions, as %s_portable. */\n"
                 "#define BC_F16_PORTABLE 1\n#define %s %s_portable\n#include \"%s\"\n"
                 % (fn, fn, fn, fn, os.path.basename(c)))
    p = dict(case)
    p.update(impls=[("target", fn, c), (PORTABLE, fn + "_portable", pc)], timpls={}, keys={})
    return p


def code_key(fn, c):
    """The code of the kernel FN in the file C and its header: without
    comments and with FN's name (in any case) as NAME, so that two
    kernels of the same code under different names have the same key."""
    text = ""
    for path in (c, c[:-2] + ".h"):
        with open(path) as fh:
            text += fh.read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(re.escape(fn), "NAME", text, flags=re.I)
    return " ".join(text.split())


# The vector instructions of Armv8.1-M's MVE (Helium) that name no q
# register: tail-predicated loops, predication.
MVE_NO_Q = re.compile(r"^(dlstp|wlstp|letp|lctp|vctp|vpst|vpt|vpnot|vpsel)")


def disassemble(t, elf, lo, hi):
    """The addresses of ELF's instructions in [LO, HI), sorted, from
    objdump (with the target's options), and those of its vector
    instructions, sorted (none unless the target says which): for MVE, an
    instruction whose name begins with v and whose operands name a q
    register, or one of MVE_NO_Q."""
    st, text = run([t["tool"] + "objdump", "-d"] + t.get("objdump", "").split() + [
        "--start-address=0x%x" % lo, "--stop-address=0x%x" % hi, elf])
    insns, vector = [], []
    for line in text.splitlines():
        f = line.split("\t")
        if len(f) < 3 or not re.match(r"^ *[0-9a-f]+:$", f[0]):
            continue
        pc = int(f[0].strip()[:-1], 16)
        insns.append(pc)
        mnem, ops = f[2].strip().lower(), f[3].lower() if len(f) > 3 else ""
        if t.get("vector") == "MVE" and (
                MVE_NO_Q.match(mnem) or (mnem.startswith("v") and re.search(r"\bq[0-7]\b", ops))):
            vector.append(pc)
    return sorted(insns), sorted(vector)


def first_error(text):
    for line in text.splitlines():
        if "error" in line:
            return line.strip()
    return text.strip().splitlines()[0] if text.strip() else "?"


def symbols(t, elf):
    st, text = run([t["tool"] + "nm", elf])
    syms = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) == 3:
            syms[f[2]] = int(f[0], 16)
    return syms


# QEMU's log, -d in_asm,exec,nochain: a block of translated code ("IN:
# SYMBOL", maybe a line more, then a line "0xPC:  ..." per instruction
# as QEMU decodes it, then an empty line) just before its first
# execution, and a line per execution of a block: "Trace 0: HOSTADDR
# [CSBASE/PC/FLAGS/CFLAGS] SYMBOL", HOSTADDR naming the translated block.
EVENT = re.compile(rb"^(?:Trace \d+: (0x[0-9a-f]+) \[[^/\n]*/([0-9a-f]+)/"
                   rb"|IN:[^\n]*\n((?:[^\n]+\n)*))", re.M)
INSN = re.compile(rb"^0x([0-9a-f]+):", re.M)


def count_log(log, entries, mark, insns, vector):
    """Instructions from each implementation's entry to the next
    size_mark, and how many of them are vector instructions, from QEMU's
    log (EVENT): each execution of a block adds its instructions, those
    of INSNS (objdump's addresses, sorted) from the block's first address
    to its last, and the vector instructions among them (VECTOR, sorted).
    objdump's, for QEMU's decoder may not know every instruction (it
    shows Armv8.1-M's dls and le as two halves).  Each implementation
    runs once, so its stretch begins at the first execution of its
    entry.  Returns {variant: (instructions, vector instructions)}, or
    raises ValueError when a block ran whose code the log does not show."""
    def within(addrs, first, last):
        return bisect.bisect_right(addrs, last) - bisect.bisect_left(addrs, first)
    with open(log, "rb") as fh:
        buf = fh.read()
    blocks, last = {}, None
    pcs, ns, nvs = [], [], []
    for m in EVENT.finditer(buf):
        if m.group(3) is not None:
            last = [int(x, 16) for x in INSN.findall(m.group(3))]
            continue
        host, pc = m.group(1), int(m.group(2), 16)
        if last and last[0] == pc:
            blocks[host] = (within(insns, pc, last[-1]), within(vector, pc, last[-1]))
            last = None
        if host not in blocks:
            raise ValueError("a block at 0x%x ran whose code the log does not show" % pc)
        n, nv = blocks[host]
        pcs.append(pc)
        ns.append(n)
        nvs.append(nv)
    counts = {}
    for v, a in entries:
        try:
            lo = pcs.index(a)
            hi = pcs.index(mark, lo + 1)
        except ValueError:
            continue
        counts[v] = (sum(ns[lo:hi]), sum(nvs[lo:hi]))
    return counts


# ------------------------------------------------- the check

def check(rows):
    """rows: (case, target, level, variant, bytes, instructions per
    element).  For each case and target at -Os: the size variant no
    larger than any other of bcastgen's.  Returns (failures, known):
    lines to print."""
    by = {}
    for cid, tid, level, v, b, ipe in rows:
        if level == "-Os" and b is not None:
            by.setdefault((cid, tid), {})[v] = b
    bad, known = [], []
    for (cid, tid), vs in sorted(by.items()):
        if "size" not in vs:
            continue
        for v in ("unroll", "loops", "block", "speed"):
            if v in vs and vs[v] < vs["size"]:
                line = "%s on %s at -Os: --optimize size is %d bytes, %s %d" % (
                    cid, tid, vs["size"], TITLE[v], vs[v])
                if (cid, tid) in KNOWN_LARGER:
                    known.append(line + " (known: %s)" % KNOWN_LARGER[(cid, tid)])
                else:
                    bad.append(line)
    return bad, known


def target_ratios(rows):
    """auto --target against the strategies, from rows as check's: for
    each (case, target, level) of CHECKED where it was built, a dict:
    bytes and the smallest strategy's (small, its variant), the bytes'
    ratio; where counted, instructions per element and the fewest of a
    strategy's (best, its variant and bytes), their ratio, and the fewest of a
    strategy within BIGGER_BY times the smallest's bytes (fit, fit_v,
    fit_ratio): the fastest that the bytes' check allows."""
    by = {}
    for cid, tid, level, v, b, ipe in rows:
        if level in CHECKED and b is not None:
            by.setdefault((cid, tid, level), {})[v] = (b, ipe)
    out = {}
    for key, vs in by.items():
        strat = [(v, vs[v]) for v in STRATEGIES if v in vs]
        if "target" not in vs or not strat:
            continue
        b, ipe = vs["target"]
        sv, (sb, _) = min(strat, key=lambda x: (x[1][0], STRATEGIES.index(x[0])))
        r = {"bytes": b, "small": sb, "small_v": sv, "bytes_ratio": b / sb}
        counted = [(v, x[1]) for v, x in strat if x[1] is not None]
        fit = [(v, x[1]) for v, x in strat if x[1] is not None and x[0] <= BIGGER_BY * sb]
        if ipe is not None and counted:
            bv, best = min(counted, key=lambda x: (x[1], STRATEGIES.index(x[0])))
            fv, fbest = min(fit, key=lambda x: (x[1], STRATEGIES.index(x[0])))
            r.update(ipe=ipe, best=best, best_v=bv, best_bytes=vs[bv][0], ipe_ratio=ipe / best,
                     fit=fbest, fit_v=fv, fit_ratio=ipe / fbest)
        out[key] = r
    return out


def check_target(rows):
    """The two checks of auto --target, on rows as check's: at -O2 its
    instructions per element at most SLOWER_BY times the fewest of a
    strategy's that is within BIGGER_BY times the smallest's bytes (a
    faster one that is not, no choice could match without failing the
    other check), and its bytes at most BIGGER_BY times the smallest
    strategy's.  Returns (failures, known): lines to print."""
    rat = target_ratios(rows)
    bad, known = [], []
    for (cid, tid, level), r in sorted(rat.items()):
        if level == "-O2" and "ipe" in r and r["ipe"] > SLOWER_BY * r["fit"]:
            line = ("%s on %s at -O2: auto --target runs %.2f instructions per element, "
                    "%s %.2f (%.2fx); bytes: %s" % (
                        cid, tid, r["ipe"], TITLE[r["fit_v"]], r["fit"], r["fit_ratio"],
                        ", ".join(bytes_words(rat.get((cid, tid, lv)), lv) for lv in CHECKED)))
            if (cid, tid) in KNOWN_SLOWER:
                known.append(line + " (known: %s)" % KNOWN_SLOWER[(cid, tid)])
            else:
                bad.append("slower: " + line)
        if level == "-O2" and r["bytes"] > BIGGER_BY * r["small"]:
            line = "%s on %s at %s: auto --target's bytes: %s" % (
                cid, tid, level, bytes_words(r, level))
            if (cid, tid) in KNOWN_BIGGER:
                known.append(line + " (known: %s)" % KNOWN_BIGGER[(cid, tid)])
            else:
                bad.append("bigger: " + line)
    return bad, known


def check_f16(rows):
    """The check of the FPU's f16 conversions, on rows as check's: where
    a (case, target, level) has auto --target's instructions per element
    both as built (target) and with -DBC_F16_PORTABLE (PORTABLE), the
    first no more than the second.  Returns the failures: lines to
    print."""
    by = {}
    for cid, tid, level, v, b, ipe in rows:
        if v in ("target", PORTABLE) and ipe is not None:
            by.setdefault((cid, tid, level), {})[v] = (b, ipe)
    bad = []
    for (cid, tid, level), vs in sorted(by.items()):
        if len(vs) == 2 and vs["target"][1] > vs[PORTABLE][1]:
            bad.append("f16: %s on %s at %s: auto --target runs %.2f instructions per element "
                       "with the FPU's f16 conversions, %.2f with -DBC_F16_PORTABLE (%d bytes "
                       "against %d)" % (cid, tid, level, vs["target"][1], vs[PORTABLE][1],
                                        vs["target"][0], vs[PORTABLE][0]))
    return bad


def quant_by(rows):
    """The quantized cases' rows, as check's (the cases with a TFLM-style
    loop), as {(case, target, level): {variant: (bytes, instructions per
    element)}}."""
    qcases = set(r[0] for r in rows if r[3] == TFLM)
    by = {}
    for cid, tid, level, v, b, ipe in rows:
        if cid in qcases and b is not None:
            by.setdefault((cid, tid, level), {})[v] = (b, ipe)
    return by


def check_quant(rows):
    """The check of the quantized kernels, on rows as check's: on
    QUANT_CORE at QUANT_LEVEL, for each case with a TFLM-style loop,
    auto --target's instructions per element at most QUANT_RATIO times
    the loop's, unless KNOWN_QUANT says why; a case of QUANT_CASES not
    counted fails, another (bench/cases.txt's, too large) is skipped.
    Returns (failures, known, passed): lines, each beginning with its
    case."""
    bad, known, good = [], [], []
    mine = set(cid for cid, words in QUANT_CASES)
    for (cid, tid, level), vs in sorted(quant_by(rows).items()):
        if tid != QUANT_CORE or level != QUANT_LEVEL or TFLM not in vs:
            continue
        t, r = vs.get("target"), vs[TFLM]
        if cid not in mine and (t is None or t[1] is None) and r[1] is None:
            continue        # too large to count: built only
        if t is None or t[1] is None or r[1] is None:
            bad.append("%s on %s at %s: not counted (auto --target: %s, the TFLM-style "
                       "loop: %s)" % (cid, tid, level, "not built" if t is None else
                                      cell(t + (None,)), cell(r + (None,))))
            continue
        q = t[1] / r[1]
        line = ("%s on %s at %s: auto --target runs %.2f instructions per element, the "
                "TFLM-style loop %.2f: %.2fx, %s %.2fx" % (
                    cid, tid, level, t[1], r[1], q,
                    "within" if q <= QUANT_RATIO else "more than", QUANT_RATIO))
        if q <= QUANT_RATIO:
            good.append(line)
        elif (cid, tid) in KNOWN_QUANT:
            known.append(line + " (known: %s)" % KNOWN_QUANT[(cid, tid)])
        else:
            bad.append(line)
    return bad, known, good


def m55_goal(cases, results):
    """The Cortex-M55's goal for the quantized int8 add and multiply
    (M55_GOAL_OPS): auto --target's instructions per element at -O2 with
    gcc at most M55_GOAL, a line per such case counted and per such case
    of QUANT_CASES (the other levels in parentheses), and a failure for
    each past it.  Returns (lines, failures), each beginning with
    its case."""
    t = next((t for t in TARGETS if t["id"] == "m55"), None)
    lines, bad = [], []
    if t is None:
        return lines, bad
    mine = set(cid for cid, words in QUANT_CASES)
    for cid, words in cases:
        q = quant_of(words)
        if q is None or (q["op"], q["dtype"]) not in M55_GOAL_OPS:
            continue
        r = results.get((cid, t["id"], "-O2"), ({}, ""))[0].get("target")
        if cid not in mine and (r is None or r[1] is None):
            continue        # bench/cases.txt's, too large to count
        if r is None or r[1] is None:
            line = "%s (%s %s) on m55 at -O2: auto --target not counted" % (
                cid, q["dtype"], q["op"])
            met = False
        else:
            met = r[1] <= M55_GOAL
            others = []
            for level in levels_of(t):
                o = results.get((cid, t["id"], level), ({}, ""))[0].get("target")
                if level != "-O2" and o is not None and o[1] is not None:
                    others.append("%s %.2f" % (level, o[1]))
            line = ("%s (%s %s) on m55 at -O2: auto --target runs %.2f instructions per "
                    "element, %s of them MVE (%s): %s %g, %.1fx it" % (
                        cid, q["dtype"], q["op"], r[1],
                        "none" if not r[2] else "%.2f" % r[2], ", ".join(others) or "-",
                        "within the goal," if met else "the goal not met: more than",
                        M55_GOAL, r[1] / M55_GOAL))
        lines.append(line)
        if not met:
            bad.append(line)
    return lines, bad


def quant_section(cases, results, qgood, qknown, qbad, goal):
    """The section of the quantized kernels as markdown lines (none
    without a case that has a TFLM-style loop): the check's lines, the
    Cortex-M55's goal, and a table of auto --target against the
    TFLM-style loop for each case, target and level counted or built."""
    mine = set(cid for cid, words in QUANT_CASES)
    qcases = [(cid, words) for cid, words in cases if quant_of(words) is not None]
    if not qcases:
        return []
    # the cases counted somewhere (bench/cases.txt's are too large: their
    # bytes are in the main table and size.tsv)
    qcases = [(cid, words) for cid, words in qcases if cid in mine or any(
        r[1] is not None for (c2, tid, level), (res, note) in results.items() if c2 == cid
        for r in res.values())]
    md = ["| kernel | target | flags | auto --target | TFLM-style loop | instructions, "
          "auto / TFLM | bytes, auto / TFLM | TFLM-style 6-D loop |",
          "|" + " --- |" * 8]
    for cid, words in qcases:
        for t in TARGETS:
            for level in levels_of(t):
                res = results.get((cid, t["id"], level), ({}, ""))[0]
                a, r = res.get("target"), res.get(TFLM)
                if a is None and r is None:
                    continue
                md.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    cid, t["id"], level, cell(a), cell(r),
                    ratio(a and a[1], r and r[1]), ratio(a and a[0], r and r[0]),
                    cell(res.get(TFLM6D))))
    checks = ["- " + l for l in qgood] + ["- " + l for l in qknown] + [
        "- " + l + " (**failed**)" for l in qbad]
    return ["## Quantized kernels against a TFLM-style loop", "",
            "bcastgen's quantized kernels (`--quant`: TensorFlow Lite Micro's int8 and int16 "
            "add, subtract and multiply, bit for bit; their constants computed by bcastgen "
            "and folded into the code) against a TFLM-style loop (bench/tflm_ref.h, written "
            "from the semantics of TFLM's reference kernels): Prepare's constants (computed "
            "by tests/quant_oracle.py) and the shapes read at run time from the program's "
            "data; as TFLM's Eval, the flat loop (ElementWise) for inputs of the same "
            "shape and otherwise the 6-D broadcast loop (BroadcastAdd6DSlow, "
            "BroadcastMul6DSlow: each input's strides from the shapes at run time, its "
            "offset advanced by them for every element); both inputs requantized for every "
            "element (gemmlowp's SaturatingRoundingDoublingHighMul and RoundingDivideByPOT, "
            "the exponent a run-time value). Every implementation of a case gives the "
            "same bytes (the program checks it). Each cell: .text bytes (instructions per "
            "element), as in the table below; TFLM-style 6-D loop: the same loop forced "
            "through the broadcast loop where the shapes are equal (reported only). The "
            "quantized cases of bench/cases.txt, too large to count, are built only: their "
            "bytes are in the table below, and the TFLM-style loop's in size.tsv.", "",
            "The check, on %s at %s with gcc: `auto --target` at most %gx the TFLM-style "
            "loop's instructions per element, for each case:" % (
                QUANT_CORE, QUANT_LEVEL, QUANT_RATIO), ""] + checks + [
            "", "The check on the Cortex-M55: at most %g instructions per element at -O2 "
            "(gcc) for an int8 add and an int8 multiply (with how many of them are Helium's "
            "MVE instructions, and the figures at the other levels):" % M55_GOAL,
            ""] + ["- " + l for l in goal] + ["", ] + md + [""]


def bytes_words(r, level):
    """auto --target's bytes against the smallest strategy's at level, in
    words: "88 against 58 of auto size (1.52x) at -Os"."""
    if r is None:
        return "not built at %s" % level
    return "%d against %d of %s (%.2fx) at %s" % (
        r["bytes"], r["small"], TITLE[r["small_v"]], r["bytes_ratio"], level)


def target_summary(rows):
    """Per target, as (depth, text) items of a list: the worst ratio of
    auto --target's instructions per element to the best strategy's at
    -O2, and of its bytes to the smallest strategy's at each checked
    level, with the case; and how many cases pass each check."""
    rat = target_ratios(rows)
    out = []
    for t in TARGETS:
        parts = []
        speed = [(r["ipe_ratio"], cid, r) for (cid, tid, lv), r in rat.items()
                 if tid == t["id"] and lv == "-O2" and "ipe" in r]
        if speed:
            worst = max(speed, key=lambda x: (x[0], x[1]))
            r = worst[2]
            parts.append(
                "instructions per element at -O2: %.2fx the fastest strategy's at worst "
                "(%s: %.2f against %.2f of %s, %d bytes against the smallest's %d)" % (
                    worst[0], worst[1], r["ipe"], r["best"], TITLE[r["best_v"]],
                    r["best_bytes"], r["small"]))
            fits = [(r["fit_ratio"], cid, r) for q, cid, r in speed]
            worst = max(fits, key=lambda x: (x[0], x[1]))
            r = worst[2]
            slow = sorted(cid for q, cid, r2 in fits if r2["ipe"] > SLOWER_BY * r2["fit"])
            parts.append(
                "against the fastest within %gx the smallest's bytes: %.2fx at worst (%s: "
                "%.2f against %.2f of %s); within %d%% in %d of the %d cases counted%s" % (
                    BIGGER_BY, worst[0], worst[1], r["ipe"], r["fit"], TITLE[r["fit_v"]],
                    round(100 * (SLOWER_BY - 1)), len(fits) - len(slow), len(fits),
                    (", not in " + ", ".join(slow)) if slow else ""))
        for lv in CHECKED:
            size = [(r["bytes_ratio"], cid, r) for (cid, tid, l2), r in rat.items()
                    if tid == t["id"] and l2 == lv]
            if not size:
                continue
            worst = max(size, key=lambda x: (x[0], x[1]))
            r = worst[2]
            big = sorted(cid for q, cid, r2 in size if r2["bytes"] > BIGGER_BY * r2["small"])
            parts.append(
                "bytes at %s: %.2fx the smallest strategy's at worst (%s: %d against %d of "
                "%s); at most %gx in %d of %d cases%s%s" % (
                    lv, worst[0], worst[1], r["bytes"], r["small"], TITLE[r["small_v"]],
                    BIGGER_BY, len(size) - len(big), len(size),
                    (", not in " + ", ".join(big)) if big else "",
                    "" if lv == "-O2" else " (not checked)"))
        if parts:
            out.append((0, "%s (`--target %s`)" % (t["id"], t["row"])))
            out += [(1, p) for p in parts]
    return out


def read_tsv(path):
    """The rows of a size.tsv, as check's."""
    rows = []
    num = lambda x, f: f(x) if x not in ("", "-") else None
    with open(path) as fh:
        for line in fh:
            f = line.rstrip("\n").split("\t")
            if f[0] == "case" or len(f) < 6:
                continue
            rows.append((f[0], f[1], f[2], f[3], num(f[4], int), num(f[5], float)))
    return rows


# ------------------------------------------------- the table

def cell(r):
    """A table cell: bytes, and when counted (instructions per element),
    with the vector instructions among them where they were counted."""
    if r is None:
        return "-"
    b, ipe, vec = r
    if ipe is None:
        return "%d" % b
    if vec is None:
        return "%d (%.1f)" % (b, ipe)
    return "%d (%.1f, %s MVE)" % (b, ipe, "0" if vec == 0 else "%.2f" % vec)


def levels_of(t):
    return t.get("levels", LEVELS)


def tables(cases, results):
    """The table as text lines and as markdown lines: one row per case,
    target and level; a column per implementation: bytes (instructions
    per element)."""
    head = ["kernel", "target", "flags"] + [TITLE[v] for v in ALL]
    rows = []
    for cid, words in cases:
        for t in TARGETS:
            for level in levels_of(t):
                res, note = results.get((cid, t["id"], level), ({}, "not built"))
                row = [cid, t["id"], level] + [cell(res.get(v)) for v in ALL]
                rows.append((row, note))
    widths = [max(len(head[i]), max(len(r[0][i]) for r in rows)) for i in range(len(head))]
    text = ["  ".join(h.ljust(w) for h, w in zip(head, widths))]
    for r, note in rows:
        text.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    md = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for r, note in rows:
        md.append("| " + " | ".join(r) + " |")
    return text, md


def helium(cases, results):
    """The Cortex-M55's own section as markdown lines (none without the
    target): per case, auto --target's bytes, instructions and MVE
    instructions per element with each compiler and level, and how many
    cases ran Helium code."""
    t = next((t for t in TARGETS if "vector" in t), None)
    if t is None:
        return []
    lv = levels_of(t)
    head = ["kernel"] + ["`%s`" % l for l in lv]
    md = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    used = {l: [0, 0, 0] for l in lv}
    for cid, words in cases:
        row = [cid]
        for l in lv:
            res, note = results.get((cid, t["id"], l), ({}, ""))
            r = res.get("target")
            row.append(cell(r))
            if r is not None and r[2] is not None:
                used[l][0] += r[2] > 0
                used[l][1] += r[2] >= r[1] / 4
                used[l][2] += 1
        md.append("| " + " | ".join(row) + " |")
    counts = ["- %s: in %d of the %d cases run, in %d for a quarter of the instructions "
              "or more" % (l, used[l][0], used[l][2], used[l][1]) for l in lv]
    return ["## Helium on the %s" % t["title"].split(" (")[0], "",
            "`auto --target %s` with gcc (`%sgcc %s`) and clang (`%s`, linked by gcc "
            "with its libgcc), run on `%s`. Each cell: .text bytes, and where the case "
            "was run, instructions per element and how many of them are MVE (Helium) "
            "instructions: those whose mnemonic begins with v and whose operands name "
            "a q register, the tail-predicated loop's dlstp, wlstp, letp, lctp and vctp, "
            "and the predication's vpst, vpt, vpsel and vpnot (by objdump's disassembly "
            "of the executed code)." % (t["row"], t["tool"], t["flags"], t["clang"],
                                        t["qemu"]), "",
            "Where Helium ran:", ""] + counts + [""] + md + [""]


def f16_rows(results, f16res):
    """The f16 comparison as (target, level, the FPU's [bytes, ipe, vec]
    or None, the portable code's or None), in the order of TARGETS and
    their levels: the FPU's from the table's run, the portable code's
    from its own program (F16RES: {(target, level): (res, note)})."""
    out = []
    for t in TARGETS:
        for level in levels_of(t):
            if (t["id"], level) not in f16res:
                continue
            fpu = results.get((F16_CASE, t["id"], level), ({}, ""))[0].get("target")
            out.append((t["id"], level, fpu, f16res[(t["id"], level)][0].get(PORTABLE)))
    return out


def ratio(a, b):
    return "%.2fx" % (a / b) if a is not None and b else "-"


def f16_lines(results, f16res):
    """The comparison in words, a line per build."""
    out = []
    for tid, level, fpu, port in f16_rows(results, f16res):
        out.append("%s on %s at %s: auto --target with the FPU's f16 conversions %s, with "
                   "-DBC_F16_PORTABLE %s: %s the instructions per element, %s the bytes" % (
                       F16_CASE, tid, level, cell(fpu), cell(port),
                       ratio(fpu and fpu[1], port and port[1]),
                       ratio(fpu and fpu[0], port and port[0])))
    return out


def f16_section(cases, results, f16res, portable):
    """The section of the FPU's f16 conversions as markdown lines (none
    when F16_CASE was not built where they are used): a row per build
    that uses them (F16RES), and the builds that do not (PORTABLE:
    [(target, level)])."""
    if not f16res:
        return []
    words = dict(cases)[F16_CASE]
    op, operands, options = case_parts(words)
    md = ["| target | flags | FPU's conversions | `-DBC_F16_PORTABLE` | "
          "instructions per element, FPU / portable | bytes, FPU / portable |",
          "|" + " --- |" * 6]
    for tid, level, fpu, port in f16_rows(results, f16res):
        md.append("| %s | %s | %s | %s | %s | %s |" % (
            tid, level, cell(fpu), cell(port), ratio(fpu and fpu[1], port and port[1]),
            ratio(fpu and fpu[0], port and port[0])))
    by = {}
    for t, level in portable:
        by.setdefault(t["id"], []).append(level)
    rest = []
    for t in TARGETS:
        if t["id"] in by:
            lv = by[t["id"]]
            rest.append(t["id"] if lv == levels_of(t) else "%s at %s" % (t["id"], ", ".join(lv)))
    return ["## f16: the FPU's conversions against the portable code", "",
            "`auto --target` on %s (%s `%s`: two conversions from f16 to float and one back "
            "an element) in each build where runtime/bc.h converts f16 with the FPU's "
            "VCVTB.F32.F16 and VCVTB.F16.F32 (BC__F16_VCVT, as the compiler's preprocessor "
            "says: an M-profile FPU and IEEE `__fp16`, which gcc has with "
            "`-mfp16-format=ieee` on the Cortex-M4F and by default on the M55), against the "
            "same kernel built with `-DBC_F16_PORTABLE`: bc.h's portable integer "
            "conversions, what these builds ran before. Each cell: .text bytes "
            "(instructions per element), measured as the table's; the portable build in a "
            "program of its own with the kernel as built, whose output must be the same "
            "bytes. The check: with the FPU's conversions, no more instructions per element "
            "than the portable code's, at every level." % (F16_CASE, op, " ".join(operands)),
            ""] + md + [""] + (
                ["The other builds convert with the portable code either way: %s." %
                 "; ".join(rest), ""] if rest else [])


def main():
    ap = argparse.ArgumentParser(description="make size: bytes and instructions "
                                 "per element of each case's kernels on the firmware targets")
    ap.add_argument("--gen", default=os.path.join(TOP, "build", "bcastgen"))
    ap.add_argument("--out", default=os.path.join(TOP, "build", "size"))
    ap.add_argument("--only", default="", help="case ids, comma- or space-separated")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--case", action="append", default=[], metavar="ID=WORDS",
                    help="a case of its own instead of the seeds' and cases.txt's")
    ap.add_argument("--targets", default="", help="target ids, comma- or space-separated "
                    "(default: all: %s)" % ",".join(t["id"] for t in TARGETS))
    ap.add_argument("--only-check", action="store_true",
                    help="only what the checks read: bcastgen's kernels at %s with gcc, "
                    "no table; in OUT/check/, measuring again only what changed since "
                    "the last time (OUT/check/cache.json)" % " and ".join(CHECKED))
    ap.add_argument("--check", metavar="TSV", help="only check the rows of TSV")
    a = ap.parse_args()
    if a.check:
        rows = read_tsv(a.check)
        bad, known = check(rows)
        tbad, tknown = check_target(rows)
        qbad, qknown, qgood = check_quant(rows)
        for line in qgood:
            print("size: " + line)
        return report_checks(known + tknown + qknown, ["larger: " + l for l in bad] + tbad
                             + check_f16(rows) + ["tflm: " + l for l in qbad], [])
    if a.targets:
        ids = a.targets.replace(",", " ").split()
        TARGETS[:] = [t for t in TARGETS if t["id"] in ids]
        if len(TARGETS) != len(ids):
            die("unknown target in '%s'" % a.targets)
    for t in TARGETS:
        tools = [t["tool"] + "gcc", t["qemu"].split()[0]]
        if not a.only_check and "clang" in t:
            tools.append(t["clang"].split()[0])
        for tool in tools:
            if not shutil.which(tool):
                die("'%s' not found (make deps installs the firmware toolchains)" % tool)
    t0 = time.time()
    only = set(a.only.replace(",", " ").split())
    if a.case:
        given = [c.partition("=") for c in a.case]
        cases = [(cid, shlex.split(words)) for cid, _, words in given]
    else:
        cases = seed_cases() + bench_cases() + SIZE_CASES
    cases = [c for c in cases if not only or c[0] in only]
    if only and len(cases) != len(only):
        die("unknown case in '%s'" % a.only)
    # absolute: each target's compiler runs in its own directory
    out = os.path.abspath(os.path.join(a.out, "check") if a.only_check else a.out)
    os.makedirs(out, exist_ok=True)
    keep = set(STRATEGIES + ["target", TFLM]) if a.only_check else None
    prepared, results = {}, {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        preps = [(cid, ex.submit(prepare, a.gen, os.path.join(out, "cases"), cid, words,
                                 TARGETS, not a.only_check)) for cid, words in cases]
        for cid, f in preps:
            p = f.result()
            if "error" in p:
                die("case '%s': %s" % (cid, p["error"]))
            p["elems"] = input_elems(p["params"], p["dims"], p["strides"])
            prepared[cid] = p
        # --only-check keeps what it measured in OUT/check/cache.json, by
        # everything it was measured from (unit_key), and measures again
        # only what changed
        cache = Cache(os.path.join(out, "cache.json") if a.only_check else None)
        jobs = []
        for cid, words in cases:
            for t in TARGETS:
                for level in (CHECKED if a.only_check else levels_of(t)):
                    ukey = cache.key(prepared[cid], t, level, keep)
                    if ukey in cache.old:
                        results[(cid, t["id"], level)] = cache.use(ukey)
                        continue
                    jobs.append(((cid, t["id"], level), ukey,
                                 ex.submit(unit, prepared[cid], t, level,
                                           prepared[cid]["dir"], keep)))
        # the f16 comparison: F16_CASE's auto --target with bc.h's portable
        # conversions, in each build where they are the FPU's
        f16res, f16jobs, portable = {}, [], []
        if F16_CASE in prepared:
            p = prepared[F16_CASE]
            builds = [(t, level) for t in TARGETS if t["id"] in p["timpls"]
                      for level in (CHECKED if a.only_check else levels_of(t))]
            uses = list(ex.map(lambda b: f16_vcvt(*b), builds))
            portable = [b for b, u in zip(builds, uses) if not u]
            pcases = {}
            for (t, level), u in zip(builds, uses):
                if not u:
                    continue
                if t["id"] not in pcases:
                    pcases[t["id"]] = f16_portable_case(p, t)
                ukey = cache.key(pcases[t["id"]], t, level, None)
                if ukey in cache.old:
                    f16res[(t["id"], level)] = cache.use(ukey)
                    continue
                f16jobs.append(((t["id"], level), ukey,
                                ex.submit(unit, pcases[t["id"]], t, level,
                                          os.path.join(p["dir"], "f16"))))
        for key, ukey, f in jobs:
            results[key] = f.result()
            cache.put(ukey, results[key])
        for key, ukey, f in f16jobs:
            f16res[key] = f.result()
            cache.put(ukey, f16res[key])
        cache.save()
    failed = []
    for key, (res, note) in sorted(results.items()):
        if note and not note.startswith("no count"):
            failed.append("%s on %s at %s: %s" % (key[0], key[1], key[2], note))
    for key, (res, note) in sorted(f16res.items()):
        if note and not note.startswith("no count"):
            failed.append("%s with -DBC_F16_PORTABLE on %s at %s: %s" % (
                F16_CASE, key[0], key[1], note))
    tsv = ["case\ttarget\tflags\timplementation\ttext_bytes\tinstructions_per_element"
           "\tvector_instructions_per_element"]
    rows = []
    for cid, words in cases:
        for t in TARGETS:
            for level in levels_of(t):
                if (cid, t["id"], level) not in results:
                    continue
                res, note = results[(cid, t["id"], level)]
                for v in ALL + [TFLM, TFLM6D]:
                    if v in res:
                        b, ipe, vec = res[v]
                        rows.append((cid, t["id"], level, v, b, ipe))
                        tsv.append("%s\t%s\t%s\t%s\t%d\t%s\t%s" % (
                            cid, t["id"], level, v, b, "" if ipe is None else "%.2f" % ipe,
                            "" if vec is None else "%.2f" % vec))
                if cid == F16_CASE and PORTABLE in f16res.get((t["id"], level), ({}, ""))[0]:
                    b, ipe, vec = f16res[(t["id"], level)][0][PORTABLE]
                    rows.append((cid, t["id"], level, PORTABLE, b, ipe))
                    tsv.append("%s\t%s\t%s\t%s\t%d\t%s\t%s" % (
                        cid, t["id"], level, PORTABLE, b, "" if ipe is None else "%.2f" % ipe,
                        "" if vec is None else "%.2f" % vec))
    with open(os.path.join(out, "size.tsv"), "w") as fh:
        fh.write("\n".join(tsv) + "\n")
    bad, known = check(rows)
    tbad, tknown = check_target(rows)
    tsummary = target_summary(rows)
    tbad += check_f16(rows)
    f16 = f16_lines(results, f16res)
    # the quantized kernels: the check against the TFLM-style loop, and
    # the Cortex-M55's goal; their lines begin with the case (SIZE.md's
    # notes name cases), the failures' with their kind where printed
    qbad, qknown, qgood = check_quant(rows)
    goal, gbad = m55_goal(cases, results)
    known += qknown
    printed_bad = (["larger: " + l for l in bad] + tbad + ["tflm: " + l for l in qbad]
                   + ["m55: " + l for l in gbad])
    if a.only_check:
        for depth, line in tsummary:
            print("size: " + "  " * depth + line)
        for line in f16 + qgood + goal:
            print("size: " + line)
        status = report_checks(known + tknown, printed_bad, failed)
        print("size: %d cases, %d programs, %.0f s; the rows in %s" % (
            len(cases), len(results) + len(f16res), time.time() - t0, os.path.join(out, "size.tsv")))
        return status
    text, md = tables(cases, results)
    print("\n".join(text))
    print()
    print(HOW)
    legend = case_legend(cases, prepared)
    summary = size_summary(rows)
    for depth, line in summary:
        print("size: " + "  " * depth + line)
    for depth, line in tsummary:
        print("size: " + "  " * depth + line)
    for line in f16 + qgood + goal:
        print("size: " + line)
    not_applied = describe_not_applied(cases, prepared)
    for line in not_applied:
        print("size: " + line)
    uncounted = uncounted_lines(cases, results)
    for line in uncounted:
        print("size: " + line)
    with open(os.path.join(out, "SIZE.md"), "w") as fh:
        fh.write(markdown(md, not_applied, uncounted, known + tknown,
                          ["larger: " + l for l in bad] + tbad + qbad + gbad, legend,
                          summary, tsummary, helium(cases, results),
                          f16_section(cases, results, f16res, portable),
                          quant_section(cases, results, qgood, qknown, qbad, goal)))
    status = report_checks(known + tknown, printed_bad, failed)
    print("size: %d cases, %d programs, %.0f s; the table in %s" % (
        len(cases), len(results) + len(f16res), time.time() - t0, os.path.join(out, "SIZE.md")))
    return status


class Cache:
    """The figures of units measured before, by their unit_key, in the
    JSON file PATH (none when PATH is None).  old: what the file held;
    use and put mark what this run keeps, save writes only those."""

    def __init__(self, path):
        self.path, self.old, self.new, self.versions = path, {}, {}, {}
        if path and os.path.exists(path):
            with open(path) as fh:
                self.old = json.load(fh)

    def key(self, case, t, level, keep):
        """What a unit's figures depend on: this file, the runtime
        headers and start.c, the tools' versions, the target, the level,
        the variants kept, and every source of the case with its shapes."""
        if self.path is None:
            return None
        cc = compiler(t, level)
        if cc[0] not in self.versions:
            self.versions[cc[0]] = run([cc[0], "--version"])[1]
        qemu = t["qemu"].split()[0]
        if qemu not in self.versions:
            self.versions[qemu] = run([qemu, "--version"])[1]
        srcs = [c for v, fn, c in case["impls"]]
        if t["id"] in case["timpls"]:
            srcs.append(case["timpls"][t["id"]][1])
        parts = [self.versions[cc[0]], self.versions[qemu], json.dumps(t, sort_keys=True),
                 level, " ".join(cc), sorted(keep or []), case["count"], case["elems"],
                 case["params"]]
        h = hashlib.sha256(json.dumps(parts, sort_keys=True).encode())
        files = [__file__, START, TFLM_REF] + sorted(
            os.path.join(RUNTIME, f) for f in os.listdir(RUNTIME) if f.endswith(".h"))
        for path in files + srcs + [c[:-2] + ".h" for c in srcs]:
            if os.path.exists(path):
                with open(path, "rb") as fh:
                    h.update(path.encode() if path in files else b"")
                    h.update(fh.read())
        return h.hexdigest()

    def use(self, k):
        self.new[k] = self.old[k]
        return tuple(self.old[k])

    def put(self, k, result):
        if k is not None and (not result[1] or result[1].startswith("no count")):
            self.new[k] = result

    def save(self):
        if self.path:
            with open(self.path + ".tmp", "w") as fh:
                json.dump(self.new, fh)
            os.replace(self.path + ".tmp", self.path)


def report_checks(known, bad, failed):
    """Print the known exceptions, then the checks' failures and the
    programs that failed, each under a heading that counts them; returns
    the exit status: 1 when anything failed."""
    for line in known:
        print("size: " + line)
    if bad:
        kinds = {}
        for line in bad:
            kinds.setdefault(line.split(":", 1)[0], []).append(line)
        print("size: FAILED: %d check%s: %s" % (
            len(bad), "s" if len(bad) > 1 else "",
            ", ".join("%d %s" % (len(v), k) for k, v in sorted(kinds.items()))))
        for line in bad:
            print("size:   " + line)
    if failed:
        print("size: FAILED: %d program%s" % (len(failed), "s" if len(failed) > 1 else ""))
        for line in failed:
            print("size:   failed: " + line)
    if not bad and not failed:
        print("size: every check passed")
    return 1 if bad or failed else 0


HOW = """Each cell: .text bytes of the implementation's own object (-ffunction-sections;
libgcc's helpers not included), and in parentheses the instructions one call
executes per output element, helpers included: QEMU run with -d
in_asm,exec,nochain (a line per execution of a translated block, and each
block's code once), its log limited by -dfilter to the code after the driver;
each execution of a block adds its instructions as objdump lists them,
counted from the function's entry to the marker called after it; on the
Cortex-M55, also how many of them are MVE (Helium) instructions.  auto
--target: auto for the target's own row of bcastgen's target table (the
other strategies are the generic row's).  -: bcastgen refuses that strategy
for the case, or no hand loop was written for its op."""


def describe_not_applied(cases, prepared):
    """A note for each implementation a case does not have, and why."""
    out = []
    for cid, words in cases:
        for v, why in sorted(prepared[cid]["why"].items()):
            name = TITLE[v] if v in TITLE else "auto --target on " + v.split()[1]
            out.append("%s: no %s: %s" % (cid, name, why))
    return out


def uncounted_lines(cases, results):
    """A note for each case whose instructions were not counted on some
    targets, and why."""
    out = []
    for cid, words in cases:
        notes = {}
        for t in TARGETS:
            res, note = results[(cid, t["id"], "-Os")]
            if note.startswith("no count"):
                notes.setdefault(note[len("no count: "):], []).append(t["id"])
        for note, ts in sorted(notes.items()):
            out.append("%s: not run on %s: %s" % (cid, ", ".join(ts), note))
    return out


def markdown(md, not_applied, uncounted, known, bad, legend=(), summary=(),
             tsummary=(), helium_md=(), f16_md=(), quant_md=()):
    """SIZE.md: how it was made, the targets, the summaries, the legend
    of the cases, the Cortex-M55's Helium, the FPU's f16 conversions
    against the portable code (F16_MD), the quantized kernels against
    the TFLM-style loop (QUANT_MD), the table (MD, its lines),
    then the notes: implementations a case does not have, counts not
    run, the known exceptions and the failures of the checks, each group
    a list. Nothing in it depends on the run's time: the same tools give
    the same bytes."""
    lines = ["# Code size on the firmware targets", "",
             "Written by `make size` (bench/size.py).", "",
             "Targets (each with `%s` and the flags of the row, at %s; `auto --target` is "
             "bcastgen's `--target ROW`):" % (CFLAGS, " and ".join(LEVELS)), ""]
    for t in TARGETS:
        line = "- %s: `%sgcc %s`" % (t["id"], t["tool"], t["flags"])
        extra = [l for l in levels_of(t) if l not in LEVELS]
        if extra:
            line += " (also at %s" % ", ".join(l for l in extra if not l.startswith("clang"))
            if "clang" in t:
                line += "; and `%s` at %s, linked by gcc with its libgcc" % (
                    t["clang"], ", ".join(l.split()[1] for l in extra if l.startswith("clang")))
            line += ")"
        line += ", run on `%s`; ROW `%s`" % (t["qemu"], t["row"])
        lines.append(line)
    lines.append("")
    if summary:
        lines += ["## Is `--optimize size` ever larger than a hand-written loop?", ""]
        lines += ["  " * depth + "- " + line for depth, line in summary] + [""]
    if tsummary:
        lines += ["## `auto --target` against the strategies", "",
                  "For each target, the worst case of `auto --target` (bcastgen's auto for "
                  "the target's own row, for speed) against the strategies bcastgen emits "
                  "for the same case (unroll, loops, block, auto speed, auto size: the "
                  "generic row's), with gcc: its instructions per element against the "
                  "fewest of theirs at -O2 (the check: within %d%%), its bytes against the "
                  "smallest of theirs at %s (the check, at -O2: at most %gx; at -Os, where "
                  "bytes matter more than speed, `--optimize size` plans for them)." % (
                      round(100 * (SLOWER_BY - 1)), " and ".join(CHECKED), BIGGER_BY), ""]
        lines += ["  " * depth + "- " + line for depth, line in tsummary] + [""]
    if legend:
        lines += ["## The cases", "",
                  "Each case's operation, its operands as bcastgen's words (`NAME:DTYPE=SHAPE`, "
                  "f32 where no dtype is given), the options it keeps, and the result shape.", ""]
        lines += list(legend) + [""]
    lines += list(helium_md)
    lines += list(f16_md)
    lines += list(quant_md)
    lines += ["## The table", "", HOW.replace("\n", " "), ""] + md + [""]
    if not_applied or uncounted or known or bad:
        lines += ["## Notes", "",
                  "What a case does not have and why, where it was not run, the "
                  "measured exceptions to the checks (bench/size.py: KNOWN_LARGER, "
                  "KNOWN_SLOWER, KNOWN_BIGGER, KNOWN_QUANT) and what failed them.", ""]
    for group in (not_applied, uncounted, known, bad):
        if group:
            lines += ["- " + l for l in group] + [""]
    return "\n".join(lines)


# Options of bcastgen that take no value (every other one takes one).
FLAGS = {"--inplace"}


def case_parts(words):
    """A case's words as (op, operands, options): the op or expression
    (add by default), the operand words, and the other options."""
    op, operands, options, i = "add", [], [], 0
    while i < len(words):
        w = words[i]
        if w.startswith("--") and w not in FLAGS:
            value = words[i + 1] if i + 1 < len(words) else ""
            if w == "--op":
                op = value
            elif w == "--expr":
                op = "`%s`" % value
            else:
                options += [w, value]
            i += 2
            continue
        if w.startswith("--"):
            options.append(w)
        else:
            operands.append(w)
        i += 1
    return op, operands, options


def case_legend(cases, prepared):
    """The legend of the cases as markdown lines: a row per case with its
    op, operands, options and result shape."""
    out = ["| kernel | op | operands | options | result |", "| --- | --- | --- | --- | --- |"]
    for cid, words in cases:
        op, operands, options = case_parts(words)
        dims = prepared[cid]["dims"]
        shape = "(%s)" % ",".join(str(n) for n in dims) if len(dims) != 1 else "(%d,)" % dims[0]
        out.append("| %s | %s | `%s` | %s | %s |" % (
            cid, op, " ".join(operands), "`%s`" % " ".join(options) if options else "", shape))
    return out


def size_summary(rows):
    """The answer to a firmware engineer's question, as (depth, text)
    items of a list: at each level, on how many (case, target) pairs
    --optimize size is larger than, equal to and smaller than the
    hand-written loop, each larger one with its bytes (depth 1), and the
    bytes of all of them together. ROWS: (case, target, level, variant,
    bytes, instructions per element)."""
    by = {}
    for cid, tid, level, v, b, ipe in rows:
        if b is not None and v in ("size", "hand"):
            by.setdefault((level, cid, tid), {})[v] = b
    out = []
    for level in LEVELS:
        pairs = sorted((k[1], k[2], vs["size"], vs["hand"]) for k, vs in by.items()
                       if k[0] == level and "size" in vs and "hand" in vs)
        if not pairs:
            continue
        larger = sorted((p for p in pairs if p[2] > p[3]), key=lambda p: (p[3] - p[2], p[0], p[1]))
        equal = sum(1 for p in pairs if p[2] == p[3])
        cases = len(set(p[0] for p in pairs))
        tsize, thand = sum(p[2] for p in pairs), sum(p[3] for p in pairs)
        head = ("At %s, over the %d cases that have a hand-written loop (%d case and target "
                "pairs): " % (level, cases, len(pairs)))
        if larger:
            worst = larger[0]
            rel = max(larger, key=lambda p: ((p[2] - p[3]) / p[3], p[2] - p[3]))
            head += ("`--optimize size` is larger in %d, by %d bytes at most (%s on %s, %d "
                     "against %d) and by %.0f%% at most (%s on %s, %d against %d); "
                     % (len(larger), worst[2] - worst[3], worst[0], worst[1], worst[2],
                        worst[3], 100.0 * (rel[2] - rel[3]) / rel[3], rel[0], rel[1],
                        rel[2], rel[3]))
        else:
            head += "`--optimize size` is never larger; "
        head += ("equal in %d, smaller in %d. All together %d bytes against the hand loops' "
                 "%d (%+.1f%%)." % (equal, len(pairs) - equal - len(larger), tsize, thand,
                                    100.0 * (tsize - thand) / thand))
        out.append((0, head))
        for cid, tid, sb, hb in larger:
            out.append((1, "%s on %s: %d bytes against %d, +%d (+%.0f%%)"
                        % (cid, tid, sb, hb, sb - hb, 100.0 * (sb - hb) / hb)))
    if out:
        out.append((0, "The hand-written loop: one loop per dimension of the result, each "
                   "element's offsets computed from the counters, plain C as one writes it "
                   "for the case's shapes (bench/size.py, write_hand); written for add, "
                   "subtract, greater, maximum, copy, the relu expression and fm_bias's "
                   "saturated bias only."))
    return out


if __name__ == "__main__":
    sys.exit(main())
