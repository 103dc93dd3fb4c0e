#!/usr/bin/python3
"""t600-firmware: the kernels built for five bare-metal targets, run under
QEMU, give the host's results.

tests/firmware/gen_driver.py writes a spec of kernels (every dtype times
every op family, conversions, fused multiply-adds, every strategy on
small broadcast shapes) and a driver that runs each on fixed inputs and
prints its output's bits. The driver is built for the host (gcc -O2) and,
for each target of tests/firmware/targets.py, in each of the builds its
row lists (the compiler, -std and -O: gcc at -std=c99 -Os and -O2, and
on the cores with an FPU at -std=gnu11 -O2, which contracts; on the
Cortex-M55 gcc at -Os, -O2 and -O3, where it makes Helium vector code,
and clang at -O2), freestanding, strict
warnings as errors: the kernels in every build, the driver itself (which
only feeds them and prints) once per target and compiler, with the flags
of its first build; each build is linked with -nostdlib and libgcc only,
run under QEMU with a timeout, and its output compared with the host's
line by line. One test per target and build; a difference names the
kernel, the element, its inputs and both values. On a core with an FPU
the test first reads back the start-up code's reset handler, built like
the program: the FPU (and Helium) on before any float or vector
instruction, branch or call.

Bit for bit, except where NAN_ONLY below says that a target's NaN may
have another sign or payload than the host's: there any NaN equals any
NaN; where NOT_OURS excuses a difference of the toolchain or the
emulator, within the ULP it says; and where FLUSHED or MISCOMPILED leave
elements out: subnormals on a core whose vector unit flushes them to
zero, a compiler's known wrong code. All four tables are printed as
comments, and each build says how many elements each left out.
FW_SKIP=op,... leaves ops out, FW_TARGETS=name,... runs on those targets
only (while working on the harness; said in the output too).
"""
import concurrent.futures
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

TESTS = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [TESTS, os.path.join(TESTS, "firmware")]

import gen_driver                      # noqa: E402
import targets                         # noqa: E402
from tap import Tap                    # noqa: E402

GEN = os.path.abspath(os.environ.get("GEN", "build/bcastgen"))
RUNTIME = os.path.join(os.path.dirname(TESTS), "runtime")
TIMEOUT = 60
JOBS = 2

WARN = ["-Wall", "-Wextra", "-Wconversion", "-Wdouble-promotion", "-Werror"]
# Each target's builds are its row's (targets.py: the compiler, -std and
# -O of each), freestanding with strict warnings as errors. gcc's GNU
# modes contract a*b + c into a fused multiply-add unless the file
# forbids it: the FPU targets would round once, not twice.
BUILD_FLAGS = ["-ffreestanding"] + WARN
HOST_FLAGS = ["-std=c99", "-O2", "-DFW_HOST"] + WARN
# What the libm ops' programs link with besides libgcc: newlib's libm,
# and its libc for errno.
LIBM_LIBS = ["-lm", "-lc"]

RISCV = {"rv32imac", "rv32imafc"}
ALL_TARGETS = {t.name for t in targets.TARGETS}

# Where a target may give a NaN with another sign or payload than the
# host's: (the kernels' NaN rule, from gen_driver.py; the targets; why).
# There NaN-ness alone is compared; everywhere else, bits.
NAN_ONLY = [
    (gen_driver.ARITH, ALL_TARGETS,
     "a NaN that arithmetic makes is the FPU's or soft-float's own: the "
     "host (x86) makes 0xffc00000 for an invalid operation (inf - inf, "
     "0 * inf, sqrt(-1)), Arm 0x7fc00000; RISC-V returns the canonical NaN "
     "0x7fc00000 for every NaN result, payloads dropped; and with two NaN "
     "operands, whose payload comes out depends on the operand order the "
     "compiler chose"),
    (gen_driver.CONVERT, ALL_TARGETS,
     "a NaN converted between float types keeps its payload on the host; "
     "RISC-V's fcvt.d.s and fcvt.s.d and its soft-float conversions return "
     "the canonical NaN, and libgcc's Thumb-2 __aeabi_d2f (the M4F's f64 "
     "to f32) returns 0x7fc00000 for every NaN"),
]

# Below bcastgen, in the toolchain or the emulator: (target, dtype, the
# largest difference in ULP allowed for the ARITH kernels, why). Nothing
# else is excused.
NOT_OURS = [
    ("m4f", "f64", 1,
     "libgcc's Thumb-2 double addition (__aeabi_dadd, which a + b on f64 "
     "is on a core without double hardware) run by QEMU 7.2 rounds "
     "2147483647.5 + -2^63 to 0xc3dfffffffe00001, 1 ULP from the correctly "
     "rounded 0xc3dfffffffe00000 of the host and of NumPy; the M0's libgcc "
     "(soft-fp) gives the host's bits for the same kernels"),
]

# Where a core's vector unit flushes subnormal floats to zero whatever
# FPSCR says: (target, the kernels' compute dtypes, objdump's -m for the
# vector instructions, why). In each build the test reads which kernels
# have vector float instructions (a v....f16 or .f32 on q registers);
# in those of such a dtype, the elements with a subnormal input of such
# a dtype, or whose result on the host is a subnormal of such a dtype,
# are left out. Every other element, and every kernel without vector
# float code, is compared as everywhere.
FLUSHED = [
    ("m55", {"f32"}, "armv8.1-m.main",
     "Helium's floating-point vector instructions flush subnormal inputs "
     "and results to zero whatever FPSCR.FZ says (the scalar FPU keeps them: "
     "FZ is 0), and gcc vectorizes f32 loops at -O2 and -O3, clang at -O2: "
     "there 0x00000001 + 0 is 0, 0x00000001 == 0 is true, 2^-126 * 0.5 is "
     "0. Helium has no f64 vectors, and f16 is computed as f32 from its "
     "bits (every f16 is a normal f32): those are compared bit for bit"),
]

# Below bcastgen, a compiler's wrong vector code for some ops on a
# target: (target, compiler, dtype, ops, why). In the kernels of that
# dtype with vector float code (as FLUSHED reads it) whose ops include
# one of OPS, built with that compiler, the elements with a NaN input or
# a NaN result on the host are left out.
MISCOMPILED = [
    ("m55", "clang", "f32", {"gt", "ge", "max", "fmax", "fmin"},
     "clang 14 vectorizes x > y[i], with x the same for the whole loop (a "
     "broadcast operand), as Helium's VCMP.F32 lt of y[i] and x (its scalar "
     "operand comes second), but VCMP's lt and le are true for unordered "
     "operands: NaN > y comes out true, max(NaN, y) as y, fmax(NaN, y) as "
     "NaN; gcc's vector code gives the host's results"),
]

TAP = Tap()


def nan_only(rule, target):
    """Whether kernels of NaN rule RULE compare NaN-ness only on TARGET."""
    return any(rule == r and target in ts for r, ts, _ in NAN_ONLY)


def ulp_slack(target, dtype, rule):
    """How many ULP a result may differ on TARGET (NOT_OURS), else 0."""
    if rule != gen_driver.ARITH:
        return 0
    return max([u for t, d, u, _ in NOT_OURS if t == target and d == dtype] or [0])


def ulp_distance(a, b, dtype):
    """The distance in ULP of two finite floats' BITS A and B of DTYPE, or
    None if either is not finite."""
    n = gen_driver.BITS[dtype]
    sign = 1 << (n - 1)
    exp_all = {"f16": 0x7c00, "f32": 0x7f800000, "f64": 0x7ff << 52}[dtype]
    if (a & exp_all) == exp_all or (b & exp_all) == exp_all:
        return None

    def ordered(x):
        return -(x & (sign - 1)) if x & sign else x
    return abs(ordered(a) - ordered(b))


def is_nan(bits, dtype):
    if dtype == "f16":
        return (bits & 0x7c00) == 0x7c00 and (bits & 0x3ff) != 0
    if dtype == "f32":
        return (bits & 0x7f800000) == 0x7f800000 and (bits & 0x7fffff) != 0
    if dtype == "f64":
        return ((bits >> 52) & 0x7ff) == 0x7ff and (bits & ((1 << 52) - 1)) != 0
    return False


def show(bits, dtype):
    """BITS of DTYPE as hex, and the value where that helps."""
    digits = gen_driver.BITS[dtype] // 4
    text = "0x%0*x" % (digits, bits)
    if dtype in ("f16", "f32", "f64"):
        fmt = {"f16": ("<H", "<e"), "f32": ("<I", "<f"), "f64": ("<Q", "<d")}[dtype]
        text += " (%r)" % struct.unpack(fmt[1], struct.pack(fmt[0], bits))[0]
    elif dtype[0] == "i" and bits >> (gen_driver.BITS[dtype] - 1):
        text += " (%d)" % (bits - (1 << gen_driver.BITS[dtype]))
    else:
        text += " (%d)" % bits
    return text


def element_inputs(kernel, tables, element):
    """The inputs of output ELEMENT of KERNEL: its index in the output
    shape, and [(operand name, dtype, bits)]."""
    shape = kernel["out_shape"]
    index = []
    rest = element
    for size in reversed(shape):
        index.insert(0, rest % size if size else 0)
        rest = rest // size if size else 0
    parts = []
    for op in kernel["operands"]:
        oshape = op["shape"]
        flat = 0
        for d, size in enumerate(oshape):
            i = index[len(shape) - len(oshape) + d]
            flat = flat * size + (i if size != 1 else 0)
        table = tables[op["dtype"]]
        parts.append((op["name"], op["dtype"], table[(flat + op["phase"]) % len(table)]))
    return index, parts


def inputs_of(kernel, tables, element):
    """The inputs of output ELEMENT of KERNEL, as text."""
    index, parts = element_inputs(kernel, tables, element)
    return "[%s] %s" % (",".join(str(i) for i in index),
                        " ".join("%s=%s" % (n, show(b, d)) for n, d, b in parts))


def is_subnormal(bits, dtype):
    """Whether BITS of DTYPE are a subnormal float."""
    exp, frac = {"f16": (0x7c00, 0x3ff), "f32": (0x7f800000, 0x7fffff),
                 "f64": (0x7ff << 52, (1 << 52) - 1)}.get(dtype, (0, 0))
    return bool(frac) and (bits & exp) == 0 and (bits & frac) != 0


def left_out(target, compiler, kernel, tables, host, vector):
    """The elements of KERNEL that FLUSHED and MISCOMPILED leave out on
    TARGET built with COMPILER, given the host's results HOST and the
    names of the kernels with vector float code VECTOR: (the set of
    FLUSHED's, the set of MISCOMPILED's)."""
    flushed, wrong = set(), set()
    if kernel["name"] not in vector:
        return flushed, wrong
    dtype = kernel.get("dtype")
    flush = set()
    for t, dtypes, _, _ in FLUSHED:
        if t == target and dtype in dtypes:
            flush |= dtypes
    bad_ops = any(t == target and c == compiler and d == dtype and ops & set(kernel["ops"])
                  for t, c, d, ops, _ in MISCOMPILED)
    if not flush and not bad_ops:
        return flushed, wrong
    out_dtype = kernel["out_dtype"]
    for e, result in enumerate(host):
        _, parts = element_inputs(kernel, tables, e)
        if flush and (any(d in flush and is_subnormal(b, d) for _, d, b in parts) or
                      (out_dtype in flush and is_subnormal(result, out_dtype))):
            flushed.add(e)
        if bad_ops and (any(is_nan(b, d) for _, d, b in parts) or is_nan(result, out_dtype)):
            wrong.add(e)
    return flushed, wrong


def vector_float_functions(target, obj):
    """The functions of OBJ with vector float instructions (a v...f16 or
    .f32 on a q register), if FLUSHED names TARGET; else the empty set."""
    machines = [m for t, _, m, _ in FLUSHED if t == target.name]
    if not machines:
        return set()
    tool = target.cc.replace("-gcc", "-objdump")
    p = subprocess.run([tool, "-d", "-m", machines[0], obj], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    if p.returncode != 0:
        raise RuntimeError("%s -d %s:\n%s" % (tool, obj, p.stdout))
    found, func = set(), None
    for line in p.stdout.splitlines():
        m = re.match(r"[0-9a-f]+ <(\w+)>:$", line)
        if m:
            func = m.group(1)
            continue
        fields = line.split("\t")
        if (func and len(fields) > 3 and re.match(r"v\w*\.f(16|32)$", fields[2].strip()) and
                re.search(r"\bq[0-7]\b", fields[3])):
            found.add(func)
    return found


def parse(text):
    """{kernel: [output bits]} from a driver's output, and whether it ended
    with its 'done' line."""
    out = {}
    done = False
    for line in text.splitlines():
        if line == "done":
            done = True
            continue
        name, _, rest = line.partition(":")
        out[name] = [int(w, 16) for w in rest.split()]
    return out, done


def compare(target, host, got, meta, widest=None, compiler="gcc", vector=frozenset()):
    """Differences of GOT from HOST on TARGET built with COMPILER, as
    diagnostic lines, and the numbers of elements compared as NaN-ness
    only, excused within a ULP bound (NOT_OURS's, or the kernel's own:
    its libm's), and left out by FLUSHED and by MISCOMPILED in the
    kernels with vector float code VECTOR. WIDEST, a dict, gets each
    kernel's largest distance in ULP."""
    diags = []
    relaxed = 0
    excused = 0
    flushed = 0
    wrong = 0
    for kernel in meta["kernels"]:
        name = kernel["name"]
        want = host[name]
        have = got.get(name)
        if have is None:
            diags.append("%s: no output line" % name)
            continue
        if len(have) != len(want):
            diags.append("%s: %d elements, the host has %d" % (name, len(have), len(want)))
            continue
        dtype = kernel["out_dtype"]
        loose = nan_only(kernel["nan"], target)
        slack = ulp_slack(target, dtype, kernel["nan"]) if dtype in ("f16", "f32", "f64") else 0
        slack = max(slack, kernel.get("ulp", 0))
        out_f, out_w = left_out(target, compiler, kernel, meta["tables"], want, vector)
        flushed += len(out_f)
        wrong += len(out_w - out_f)
        for e, (a, b) in enumerate(zip(want, have)):
            if a == b or e in out_f or e in out_w:
                continue
            if loose and is_nan(a, dtype) and is_nan(b, dtype):
                relaxed += 1
                continue
            if slack:
                dist = ulp_distance(a, b, dtype)
                if widest is not None and dist is not None:
                    widest[name] = max(widest.get(name, 0), dist)
                if dist is not None and dist <= slack:
                    excused += 1
                    continue
            diags.append("%s (%s) element %s: host %s, %s %s" % (
                name, kernel["command"], inputs_of(kernel, meta["tables"], e),
                show(a, dtype), target, show(b, dtype)))
    return diags, relaxed, excused, flushed, wrong


def link_summary(msg):
    """The undefined symbols of a failed link, each with the functions
    that reference it; MSG itself if there are none."""
    refs = {}
    func = "?"
    for line in msg.splitlines():
        if "in function `" in line:
            func = line.split("in function `")[1].split("'")[0]
        if "undefined reference to `" in line:
            sym = line.split("undefined reference to `")[1].split("'")[0]
            refs.setdefault(sym, [])
            if func not in refs[sym]:
                refs[sym].append(func)
    if not refs:
        return msg
    return "\n".join(["link failed: undefined references (-nostdlib, libgcc only):"] +
                     ["%s, from %s" % (sym, " ".join(fs[:8]) + (" ..." if len(fs) > 8 else ""))
                      for sym, fs in sorted(refs.items())])


# What may not run before the FPU is on, besides float and vector
# instructions (v...): coprocessor accesses (as which objdump shows
# Helium's without -m armv8.1-m.main), branches, calls and loops (b, bl,
# blx, bx, cbz, cbnz, tbb, tbh, conditional b, Armv8.1-M's branch-future
# bf... and low-overhead loops dls, dlstp, wls, wlstp, le, letp).
BEFORE_FPU_ON = (r"(ldc|stc|mcr|mrc|cdp|mcrr|mrrc)|"
                 r"(b|bl|blx|bx|cbz|cbnz|tbb|tbh|bf|bfx|bfl|bflx|bfcsel"
                 r"|dls|dlstp|wls|wlstp|le|letp)(\.[nw])?$|"
                 r"b(eq|ne|cs|cc|hs|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le)(\.[nw])?$")


def reset_problem(target, obj):
    """What is wrong with the reset handler (fw_reset) of TARGET's start-up
    object OBJ, or None: on a core with an FPU (and Helium), a store (to
    CPACR), DSB and ISB must come before any float or vector instruction,
    coprocessor access, branch or call, so that nothing the compiler made
    of the start-up's loops runs before the FPU is on."""
    tool = target.cc.replace("-gcc", "-objdump")
    p = subprocess.run([tool, "-d", obj], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if p.returncode != 0:
        return "%s -d %s:\n%s" % (tool, obj, p.stdout)
    body, inside = [], False
    for line in p.stdout.splitlines():
        if line.endswith("<fw_reset>:"):
            inside = True
        elif inside and not line.strip():
            break
        elif inside and "\t" in line:
            body.append(line)
    step = 0                    # 1: stored, 2: then DSB, 3: then ISB
    for line in body:
        fields = line.split("\t")
        op = fields[2].split()[0] if len(fields) > 2 and fields[2].strip() else "<UNDEFINED>"
        if op.startswith("str") and step == 0:
            step = 1
        elif op.startswith("dsb") and step == 1:
            step = 2
        elif op.startswith("isb") and step == 2:
            return None
        elif op[0] in "v<" or re.match(BEFORE_FPU_ON, op):
            return ("fw_reset runs %r before the FPU is on (a store to CPACR, DSB, ISB):\n%s"
                    % (op, "\n".join(body)))
    return "fw_reset has no store to CPACR, DSB and ISB:\n%s" % "\n".join(body)


def compile_driver(work, target, compiler, flags):
    """Compiles driver.c of WORK for TARGET with COMPILER and FLAGS; returns
    (ok, the object or the compiler's messages)."""
    obj = os.path.join(work, "driver-%s-%s.o" % (target.name, compiler))
    good, msg = targets.compile_c(target, os.path.join(work, "driver.c"), obj,
                                  flags + ["-I", RUNTIME, "-I", work], compiler)
    return good, obj if good else msg


def build_and_run(target, build, compiler, flags, work, driver, libs=()):
    """Builds the kernels of WORK for TARGET with COMPILER and FLAGS, links
    them with DRIVER (compile_driver's result for the target and compiler)
    and LIBS, checks the start-up code on a core with an FPU (see
    reset_problem), runs it; returns (ok, output or messages, the kernels
    with vector float code where FLUSHED names TARGET)."""
    if not driver[0]:
        return False, "build failed:\n" + driver[1], set()
    outdir = os.path.join(work, "%s-%s" % (target.name, build.replace(" ", "")))
    os.makedirs(outdir)
    elf = os.path.join(outdir, "driver.elf")
    cflags = flags + ["-I", RUNTIME, "-I", work]
    kernels = os.path.join(work, "kernels.c")
    try:
        good, msg = targets.build(target, elf, [driver[1], kernels],
                                  cflags, outdir, libs, compiler)
    except RuntimeError as e:
        return False, "start-up code: " + str(e), set()
    if not good:
        return False, "build failed:\n" + link_summary(msg), set()
    if target.family == "arm" and target.hw_float:
        for obj in targets.startup(target, outdir, compiler, targets.opt_level(cflags)):
            if obj.endswith("-arm_c.o"):
                problem = reset_problem(target, obj)
                if problem:
                    return False, "start-up code: " + problem, set()
    try:
        vector = vector_float_functions(target, "%s-%s.o" % (elf, os.path.basename(kernels)))
    except RuntimeError as e:
        return False, str(e), set()
    status, out, err = targets.run(target, elf, TIMEOUT)
    if status == targets.TIMEOUT_STATUS:
        return False, "no end within %d s under QEMU (a hang):\n%s" % (TIMEOUT, err), vector
    if status != 0:
        return False, "exit status %d under QEMU (a fault, or a crash):\n%s%s" % (
            status, out[-2000:], err), vector
    return True, out, vector


def main():
    if not os.access(GEN, os.X_OK):
        TAP.skip("firmware", "no bcastgen binary at %s: run make first" % GEN)
        return TAP.done()
    if shutil.which("gcc") is None:
        TAP.skip("firmware", "no host gcc")
        return TAP.done()
    work = tempfile.mkdtemp(prefix="bcastgen-t600.")
    try:
        return run_all(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run_all(work):
    skip = frozenset(filter(None, os.environ.get("FW_SKIP", "").split(",")))
    only = frozenset(filter(None, os.environ.get("FW_TARGETS", "").split(",")))
    on = [t for t in targets.TARGETS if not only or t.name in only]
    if only:
        TAP.comment("FW_TARGETS: only on %s" % " ".join(t.name for t in on))
    kept = gen_driver.generate(GEN, work, skip)
    if skip:
        TAP.comment("FW_SKIP: left out the ops %s" % " ".join(sorted(skip)))
    meta = json.load(open(os.path.join(work, "cases.json")))
    TAP.comment("%d kernels (%s); apart, below: exp, log, float power, hypot, arctan2 and "
                "logaddexp, which need libm (Debian's riscv64-unknown-elf has none), "
                "and what bcastgen refuses for a dtype (%d cases, skipped.txt)"
                % (len(kept), "every dtype, op family, conversions, fused multiply-adds, "
                   "every strategy",
                   sum(1 for line in open(os.path.join(work, "skipped.txt")) if line.strip())))
    for rule, ts, why in NAN_ONLY:
        TAP.comment("NaN-ness only for the '%s' kernels on %s: %s"
                    % (rule, " ".join(sorted(ts)), why))
    for target, dtype, ulp, why in NOT_OURS:
        TAP.comment("%s, %s results of arithmetic: up to %d ULP from the host's: %s"
                    % (target, dtype, ulp, why))
    for target, dtypes, _, why in FLUSHED:
        TAP.comment("%s, kernels computing in %s with vector float code: the elements with "
                    "a subnormal input (%s) or a subnormal result on the host are left out: %s"
                    % (target, " ".join(sorted(dtypes)),
                       "; ".join("%s %s" % (d, " ".join("0x%x" % b for b in meta["tables"][d]
                                                        if is_subnormal(b, d)))
                                 for d in sorted(dtypes)), why))
    for target, compiler, dtype, ops, why in MISCOMPILED:
        TAP.comment("%s built with %s, %s kernels of %s with vector float code: the "
                    "elements with a NaN input or a NaN result on the host are left out: %s"
                    % (target, compiler, dtype, " ".join(sorted(ops)), why))
    if any(t.family == "arm" and t.hw_float for t in on):
        TAP.comment("start-up code: on %s each build's fw_reset (tests/firmware/arm.c, "
                    "built like the program) is read back: a store to CPACR, DSB and ISB "
                    "before any float or vector instruction, branch or call"
                    % " ".join(t.name for t in on if t.family == "arm" and t.hw_float))
    host = host_results(work, "the driver")
    if host is None:
        return TAP.done()
    run_targets(work, host, meta, on)

    # The libm ops: on the Arm targets only, with newlib's libm, each
    # result within its op's ULP bound of the host's (glibc's) libm.
    libm_work = os.path.join(work, "libm")
    libm_kept = gen_driver.generate(GEN, libm_work, skip, libm=True)
    libm_meta = json.load(open(os.path.join(libm_work, "cases.json")))
    TAP.comment("%d libm kernels (%s in f16, f32 and f64), linked with newlib's libm and "
                "libc (%s), compared with the host's within %s ULP (f16: 1), "
                "infinities exactly, NaNs by NaN-ness; not on RISC-V: Debian's "
                "riscv64-unknown-elf has no libm"
                % (len(libm_kept), " ".join(op for op, _, _ in gen_driver.LIBM_OPS),
                   " ".join(LIBM_LIBS),
                   ", ".join("%s %d" % (op, u) for op, _, u in gen_driver.LIBM_OPS)))
    host = host_results(libm_work, "the libm driver")
    if host is None:
        return TAP.done()
    widest = {}
    run_targets(libm_work, host, libm_meta,
                [t for t in on if t.family == "arm"], LIBM_LIBS, widest)
    if widest:
        TAP.comment("largest distance seen, in ULP: " + ", ".join(
            "%s %d" % (k, v) for k, v in sorted(widest.items())))
    return TAP.done()


def host_results(work, what):
    """Builds and runs WORK's driver on the host: its results by kernel,
    or None (a failed test said why)."""
    host_exe = os.path.join(work, "host")
    p = subprocess.run(["gcc"] + HOST_FLAGS + ["-I", RUNTIME, "-I", work, "-o", host_exe,
                                               os.path.join(work, "driver.c"),
                                               os.path.join(work, "kernels.c"), "-lm"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    if not TAP.ok(p.returncode == 0, "host build of %s (gcc -O2)" % what, p.stdout):
        return None
    p = subprocess.run([host_exe], stdout=subprocess.PIPE, universal_newlines=True)
    host, done = parse(p.stdout)
    if not TAP.ok(p.returncode == 0 and done, "host run of %s" % what,
                  "exit status %d" % p.returncode):
        return None
    return host


def run_targets(work, host, meta, on, libs=(), widest=None):
    """Builds WORK's driver for each target of ON in each of its builds
    (linked with LIBS too), runs it and compares with HOST: a test each."""
    jobs = []
    for target in on:
        for build, compiler, flags in target.builds:
            jobs.append((target, build, compiler, flags + BUILD_FLAGS,
                         targets.missing(target, compiler)))
    what = "the libm ops' results" if libs else "the host's results"
    # The driver only feeds the kernels and prints their bits: it is
    # compiled once for each target and compiler, with the flags of its
    # first build, and linked into each build; the kernels are compiled
    # in every build.
    firsts = {}
    for t, _, c, f, why in jobs:
        if not why:
            firsts.setdefault((t.name, c), (work, t, c, f))
    with concurrent.futures.ThreadPoolExecutor(JOBS) as pool:
        drivers = dict(zip(firsts, pool.map(lambda a: compile_driver(*a), firsts.values())))
        futures = [None if why else pool.submit(build_and_run, t, b, c, f, work,
                                                drivers[(t.name, c)], libs)
                   for t, b, c, f, why in jobs]
        for (target, build, compiler, _, why), fut in zip(jobs, futures):
            name = "%s (%s), %s: %s" % (target.name, target.title, build, what)
            if why:
                TAP.skip(name, why)
                continue
            good, out, vector = fut.result()
            if not good:
                TAP.ok(False, name, out)
                continue
            got, done = parse(out)
            diags, relaxed, excused, flushed, wrong = compare(target.name, host, got, meta,
                                                              widest, compiler, vector)
            if not done:
                diags.insert(0, "the run ended before its 'done' line")
            if diags:
                diags.insert(0, "%d differences from the host:" % len(diags))
            TAP.ok(not diags, name, diags)
            if relaxed:
                TAP.comment("%s, %s: %d NaN results compared as NaN-ness only (NAN_ONLY)"
                            % (target.name, build, relaxed))
            if excused:
                TAP.comment("%s, %s: %d results within a ULP bound of the host's"
                            % (target.name, build, excused))
            if any(t == target.name for t, _, _, _ in FLUSHED):
                TAP.comment("%s, %s: %d kernels with vector float code%s; %d elements left "
                            "out: a subnormal input or result there (FLUSHED)"
                            % (target.name, build, len(vector),
                               " (%s)" % " ".join(sorted(vector)) if vector else "", flushed))
            if wrong:
                TAP.comment("%s, %s: %d more elements left out: a NaN meets an op the "
                            "compiler gets wrong (MISCOMPILED)" % (target.name, build, wrong))


if __name__ == "__main__":
    sys.exit(main())
