#!/usr/bin/python3
"""t610-relocations: a kernel built for a bare-metal target references
nothing but what its ops and dtypes need.

The kernels of t600 (tests/firmware/gen_driver.py), and the
transcendental ones, are compiled for each target of
tests/firmware/targets.py at -O0, -Os and -O2 with -ffunction-sections,
so each kernel has its own section. For each kernel the test reads the
object's relocations (readelf -r), follows those that point into the
object (its static helpers, constants, another kernel it jumps to) and
collects the symbols left undefined. Each must be in the kernel's
allowed set, computed from its ops and dtypes by ALLOWED below: the libm
functions of a transcendental op; on a core without hardware for a
precision, libgcc's soft-float helpers of that precision; integer
division helpers where an op divides integers; the 64-bit integer
helpers where a dtype is 64-bit. Nothing from libc: no memcpy, memset,
sqrtf, fabsf, errno, ...

Debian's riscv64-unknown-elf has no <math.h>: the transcendental kernels
are checked on the Arm targets only (the test says so).
"""
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

TESTS = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [TESTS, os.path.join(TESTS, "firmware")]

import gen_driver                      # noqa: E402
import optable                         # noqa: E402
import targets                         # noqa: E402
from tap import Tap                    # noqa: E402

GEN = os.path.abspath(os.environ.get("GEN", "build/bcastgen"))
RUNTIME = os.path.join(os.path.dirname(TESTS), "runtime")
LEVELS = ["-O0", "-Os", "-O2"]
CFLAGS = ["-std=c99", "-ffreestanding", "-ffunction-sections", "-fdata-sections",
          "-Wall", "-Wextra"]
JOBS = 2
TAP = Tap()

# Ops that may call libm, by alias, and the functions (the f32 names; f64
# drops the f; f16 computes in f32); the transcendental kernels' ops and
# their operands: both the op table's (bcastgen --list ops), read by
# run_all.
LIBM = {}
TRANSCENDENTAL = []
DIVIDING = {"div", "floordiv", "mod", "fmod"}

# What a kernel may reference, by class: (class, pattern of libgcc's
# names). Which classes a kernel gets is in allowed() below.
CLASSES = [
    # f32 soft-float: arithmetic, comparisons, conversions with 32-bit ints.
    ("soft-f32", r"__aeabi_f(add|sub|rsub|mul|div|neg)|__aeabi_fcmp(eq|lt|le|ge|gt|un)"
                 r"|__aeabi_(i|ui)2f|__aeabi_f2(iz|uiz)"
                 r"|__(add|sub|mul|div|neg)sf3|__(eq|ne|lt|le|gt|ge|unord|cmp)sf2"
                 r"|__float(un)?sisf|__fix(uns)?sfsi"),
    # Conversions between 64-bit integers and f64, which a core with
    # double hardware (the Cortex-M55) still calls libgcc for; before
    # soft-f64, whose pattern has them too.
    ("i64-f64", r"__aeabi_(l|ul)2d|__aeabi_d2(lz|ulz)|__float(un)?didf|__fix(uns)?dfdi"),
    # f64 soft-float, with the conversions to and from f32 and integers.
    ("soft-f64", r"__aeabi_d(add|sub|rsub|mul|div|neg)|__aeabi_dcmp(eq|lt|le|ge|gt|un)"
                 r"|__aeabi_(i|ui|l|ul|f)2d|__aeabi_d2(iz|uiz|lz|ulz|f)"
                 r"|__(add|sub|mul|div|neg)df3|__(eq|ne|lt|le|gt|ge|unord|cmp)df2"
                 r"|__float(un)?(si|di)df|__fix(uns)?df(si|di)|__extendsfdf2|__truncdfsf2"),
    # Conversions between 64-bit integers and f32 (no core has them in
    # hardware).
    ("i64-f32", r"__aeabi_(l|ul)2f|__aeabi_f2(lz|ulz)|__float(un)?disf|__fix(uns)?sfdi"),
    ("int-div", r"__aeabi_(idiv|uidiv|idivmod|uidivmod|ldivmod|uldivmod)"
                r"|__(u)?(div|mod)(si|di)3"),
    # The 64-bit product of a quantized kernel's multiply high, which a
    # core without a 32x32->64 multiply (the Cortex-M0) asks libgcc for;
    # before i64, whose pattern has it too.
    ("i64-mul", r"__aeabi_lmul|__muldi3"),
    ("i64", r"__aeabi_(lmul|llsl|llsr|lasr|lcmp|ulcmp)|__(ashl|lshr|ashr)di3|__muldi3"
            r"|__(u)?cmpdi2|__negdi2|__(clz|ctz|ffs|popcount|parity)di2"),
]


def allowed(kernel, target):
    """The classes KERNEL (cases.json's entry) may use on TARGET, and the
    libm functions it may call."""
    dtypes = {op["dtype"] for op in kernel["operands"]} | {kernel["out_dtype"]}
    if kernel.get("dtype"):
        dtypes.add(kernel["dtype"])
    f32 = bool(dtypes & {"f16", "f32"})
    f64 = "f64" in dtypes
    i64 = bool(dtypes & {"i64", "u64"})
    ints = bool(dtypes & set(gen_driver.INTS))
    classes = set()
    if f32 and "f32" not in target.hw_float:
        classes.add("soft-f32")
    if f64 and "f64" not in target.hw_float:
        classes.add("soft-f64")
    if f32 and i64:
        classes.add("i64-f32")
    if f64 and i64:
        classes.add("i64-f64")
    if ints and DIVIDING & set(kernel["ops"]):
        classes.add("int-div")
    # an f64 is 64 bits too: the runtime shifts and compares them as
    # integers where it works on a double's bits (bc_f64_to_f16)
    if i64 or f64:
        classes.add("i64")
    if "quant" in kernel["ops"]:
        classes.add("i64-mul")
    libm = set()
    for op in kernel["ops"]:
        for name in LIBM.get(op, []):
            if f32:
                libm.add(name)
            if f64:
                libm.add(name[:-1])
    return classes, libm


def reason(sym, kernel, target):
    """None if KERNEL may reference SYM on TARGET, else why not."""
    classes, libm = allowed(kernel, target)
    if sym in libm:
        return None
    matched = [cls for cls, pattern in CLASSES if re.fullmatch(pattern, sym)]
    if set(matched) & classes:
        return None
    if matched:
        return "libgcc %s helper, not allowed here" % matched[0]
    return "not allowed (%s)" % ("needs libm" if sym.rstrip("f") in
                                  {n[:-1] for ns in LIBM.values() for n in ns} |
                                  {"sqrt", "fabs", "floor", "ceil", "fmod", "copysign"}
                                  else "libc or another library")


def readelf(target):
    return target.cc.replace("-gcc", "-readelf")


def undefined_by_kernel(target, obj, names):
    """{kernel: sorted undefined symbols it reaches} for the kernels NAMES
    of OBJ: each kernel's section, and the sections of the object its
    relocations reach, followed to the end."""
    tool = readelf(target)
    sec_out = subprocess.run([tool, "-SW", obj], stdout=subprocess.PIPE,
                             universal_newlines=True, check=True).stdout
    sections = {}
    for m in re.finditer(r"^\s*\[\s*(\d+)\]\s+(\S+)", sec_out, re.M):
        sections[m.group(1)] = m.group(2)
    sym_out = subprocess.run([tool, "-sW", obj], stdout=subprocess.PIPE,
                             universal_newlines=True, check=True).stdout
    where = {}
    for line in sym_out.splitlines():
        f = line.split()
        if len(f) >= 8 and f[0].endswith(":") and f[0][:-1].isdigit():
            ndx, name = f[6], f[7]
            if ndx == "UND":
                where.setdefault(name, None)
            elif ndx.isdigit():
                where[name] = sections.get(ndx)
    rel_out = subprocess.run([tool, "-rW", obj], stdout=subprocess.PIPE,
                             universal_newlines=True, check=True).stdout
    refs = {}
    current = None
    for line in rel_out.splitlines():
        m = re.match(r"Relocation section '\.rela?(\S+)'", line)
        if m:
            current = refs.setdefault(m.group(1), set())
            continue
        f = line.split()
        if current is None or len(f) < 5 or not re.fullmatch(r"[0-9a-f]+", f[0]):
            continue
        current.add(f[4])
    out = {}
    for name in names:
        start = ".text." + name
        seen, todo, undef = {start}, [start], set()
        while todo:
            sec = todo.pop()
            for sym in refs.get(sec, ()):
                if sym in sections.values():
                    target_sec = sym
                elif sym in where:
                    target_sec = where[sym]
                    if target_sec is None:
                        undef.add(sym)
                        continue
                else:
                    continue
                if target_sec not in seen:
                    seen.add(target_sec)
                    todo.append(target_sec)
        if start not in refs and start not in sections.values():
            undef.add("(no section %s: is -ffunction-sections on?)" % start)
        out[name] = sorted(undef)
    return out


def check(target, level, src, kernels, work):
    """Compiles SRC for TARGET at LEVEL; returns (ok, diagnostic lines)."""
    obj = os.path.join(work, "%s%s-%s.o" % (target.name, level,
                                             os.path.basename(src)[:-2]))
    good, msg = targets.compile_c(target, src, obj,
                                  CFLAGS + [level, "-I", RUNTIME, "-I", os.path.dirname(src)])
    if not good:
        return False, ["compile failed:"] + msg.splitlines()
    undef = undefined_by_kernel(target, obj, [k["name"] for k in kernels])
    diags = []
    for k in kernels:
        bad = [(s, reason(s, k, target)) for s in undef[k["name"]]]
        bad = [(s, r) for s, r in bad if r]
        if bad:
            diags.append("%s (%s): %s" % (k["name"], k["command"],
                                          ", ".join("%s: %s" % b for b in bad)))
    if diags:
        diags.insert(0, "%d kernels reference what they may not:" % len(diags))
    return not diags, diags


def generate(work, tag, entries):
    """Generates a spec of ENTRIES, (name, spec fields, command, ops,
    dtype, operand dtypes), in WORK/TAG; returns its C file and their
    cases.json-like entries."""
    kernels = []
    lines = []
    for name, fields, command, ops, dt, operands in entries:
        lines.append('kernel "%s" { %s }' % (name, fields))
        kernels.append({"name": name, "command": command, "ops": ops, "dtype": dt,
                        "out_dtype": dt, "operands": [{"dtype": o} for o in operands]})
    d = os.path.join(work, tag)
    os.makedirs(d)
    with open(os.path.join(d, tag + ".lua"), "w") as f:
        f.write("\n".join(lines) + "\n")
    src = os.path.join(d, tag + ".c")
    p = subprocess.run([GEN, os.path.join(d, tag + ".lua"), "-o", src],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    if p.returncode != 0:
        raise RuntimeError(p.stdout)
    return src, kernels


def transcendental(work):
    """The transcendental kernels, each op in each float dtype."""
    entries = []
    for op, arity in TRANSCENDENTAL:
        for dt in gen_driver.FLOATS:
            operands = [("x", dt, "4")] + ([("y", dt, "4")] if arity == 2 else [])
            fields = 'op = "%s", dtype = "%s", %s' % (
                op, dt, ", ".join('"%s:%s=%s"' % o for o in operands))
            entries.append(("%s_%s" % (op, dt), fields, "--op %s --dtype %s" % (op, dt),
                            [op], dt, [o[1] for o in operands]))
    return generate(work, "trans", entries)


# Kernels whose loops copy an input or store a constant, which gcc makes
# into calls to memcpy or memset unless told not to, each where the
# kernel asks gcc for more than that (a multiply that meets an add keeps
# apart), and alone.
COPYING = [
    ("copy_where", 'expr = "where(x*y + 1 > 0, z, z)", "x=3000", "y=3000", "z=3000"',
     "--expr 'where(x*y + 1 > 0, z, z)' x=3000 y=3000 z=3000",
     ["where", "greater", "multiply", "add"], "f32", ["f32"] * 3),
    ("fill_int", 'expr = "x - x + y - y", "x:i32=3000", "y:i32=3000"',
     "--expr 'x - x + y - y' x:i32=3000 y:i32=3000", ["subtract", "add"], "i32", ["i32"] * 2),
]


# bcastgen's name of each core of tests/firmware/targets.py
BCASTGEN_TARGET = {"m4f": "cortex-m4f", "m0": "cortex-m0", "m55": "cortex-m55"}


def copying(work, target):
    """The COPYING kernels, generated for TARGET's row."""
    row = BCASTGEN_TARGET.get(target.name, target.name)
    entries = [(n, 'target = "%s", %s' % (row, f)) + tuple(rest)
               for n, f, *rest in COPYING]
    return generate(work, "copying-" + target.name, entries)


# Quantized kernels (--quant): integers only, the 64-bit product of
# their multiply high the one helper they may call; each op, dtype and
# rounding, the stretched operand on either side, loops and unrolled.
def quantized(work, target):
    """The quantized kernels, generated for TARGET's row."""
    row = BCASTGEN_TARGET.get(target.name, target.name)
    entries = []
    for op in ("add", "subtract", "multiply"):
        for dt, zx, zy, zo in (("i8", -3, 5, -1), ("i16", 0, 0, 0)):
            for rounding in ("double", "single"):
                for n, shapes in enumerate((('"x=64,33"', '"y=64,1"'), ('"x=5"', '"y=3,5"'))):
                    fields = ('target = "%s", op = "%s", dtype = "%s", rounding = "%s", '
                              'activation = "relu", quant = { x = {0.05, %d}, y = {0.02, %d}, '
                              'out = {0.1, %d} }, %s' % (row, op, dt, rounding, zx, zy, zo,
                                                         ", ".join(shapes)))
                    name = "q_%s_%s_%s_%d" % (op, dt, rounding, n)
                    entries.append((name, fields, "--op %s --dtype %s --quant ... --rounding %s"
                                    % (op, dt, rounding), [op, "quant"], dt, [dt, dt]))
    return generate(work, "quant-" + target.name, entries)


def main():
    if not os.access(GEN, os.X_OK):
        TAP.skip("relocations", "no bcastgen binary at %s: run make first" % GEN)
        return TAP.done()
    work = tempfile.mkdtemp(prefix="bcastgen-t610.")
    try:
        return run_all(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run_all(work):
    import json
    try:
        ops = optable.load(GEN)
        LIBM.update({op["alias"]: [f + "f" for f in op["libm"]] for op in ops if op["libm"]})
        TRANSCENDENTAL[:] = [(op["alias"], op["max_operands"]) for op in ops if op["libm"]]
        gen_driver.generate(GEN, work)
    except RuntimeError as e:
        TAP.ok(False, "the kernels of t600 (gen_driver.py)", str(e))
        return TAP.done()
    kernels = json.load(open(os.path.join(work, "cases.json")))["kernels"]
    trans_src, trans = transcendental(work)
    TAP.comment("%d kernels of t600 and %d transcendental ones, each in its own "
                "section; allowed references per class: %s"
                % (len(kernels), len(trans), "; ".join("%s %s" % c for c in CLASSES)))
    TAP.comment("the transcendental kernels are checked on the Arm targets only: "
                "Debian's riscv64-unknown-elf has no <math.h>")
    jobs = []
    for target in targets.TARGETS:
        why = targets.missing(target)
        for level in LEVELS:
            jobs.append((target, level, os.path.join(work, "kernels.c"), kernels, why,
                         "the kernels of t600"))
        if target.family == "arm":
            for level in LEVELS:
                jobs.append((target, level, trans_src, trans, why,
                             "the transcendental kernels"))
        copy_src, copies = copying(work, target)
        for level in LEVELS:
            jobs.append((target, level, copy_src, copies, why,
                         "kernels whose loops copy or fill (%s)" % ", ".join(
                             k["name"] for k in copies)))
        quant_src, quants = quantized(work, target)
        for level in LEVELS:
            jobs.append((target, level, quant_src, quants, why,
                         "the %d quantized kernels (integers only, the 64-bit multiply "
                         "helper at most)" % len(quants)))
    with concurrent.futures.ThreadPoolExecutor(JOBS) as pool:
        futures = [None if why else pool.submit(check, t, lv, src, ks, work)
                   for t, lv, src, ks, why, _ in jobs]
        for (target, level, _, _, why, what), fut in zip(jobs, futures):
            name = "%s %s: %s reference only what their ops and dtypes allow" % (
                target.name, level, what)
            if why:
                TAP.skip(name, why)
                continue
            good, diags = fut.result()
            TAP.ok(good, name, diags)
    return TAP.done()


if __name__ == "__main__":
    sys.exit(main())
