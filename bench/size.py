#!/usr/bin/python3
"""bench/size.py: make size's driver.

For each case (the seeds' kernels of tests/golden, then the benchmark
cases of bench/cases.txt), generate its kernel with each strategy that
bcastgen accepts for it (unroll, loops, block, auto with --optimize speed,
auto with --optimize size), and write two more implementations of the
same shapes: the runtime's generic iterator (runtime/bc_ref.h) and a
hand-written loop nest.  Compile each to an object of its own for the
four firmware targets at -Os and -O2 and read its .text bytes.  Where the
case's buffers fit the target's RAM (and it has at most COUNT_LIMIT
output elements), link every implementation into one program, run it
under QEMU with one translation block per instruction and an execution
log of the kernels' code only, and count the instructions each call
executed (the kernel and the libgcc helpers it calls) per output element;
the program also checks that every implementation gave the same bytes.

Then: for each case and target at -Os, --optimize size must be no larger
than any other strategy bcastgen emitted for it, unless the case is one
of KNOWN_LARGER (with the reason).  Prints the table, writes it as
markdown (OUT/SIZE.md, with a summary of where --optimize size is larger
than the hand-written loop and by how much, and a legend of the cases'
ops and shapes) and as TSV (OUT/size.tsv), and exits 1 when a check
fails.

  bench/size.py --gen build/bcastgen --out build/size [--only ID,...]
  bench/size.py --check FILE.tsv   (only the check, on a table's rows)
"""

import argparse
import concurrent.futures
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
RUNTIME = os.path.join(TOP, "runtime")
START = os.path.join(HERE, "size", "start.c")

# The targets: compiler and flags, QEMU's command, the memories of the
# machine (flash or code, RAM) as size.py's linker script places them.
TARGETS = [
    {"id": "m4f", "title": "Cortex-M4F", "tool": "arm-none-eabi-",
     "flags": "-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard",
     "qemu": "qemu-system-arm -M mps2-an386",
     "code": (0x00000000, 0x400000), "ram": (0x20000000, 0x400000)},
    {"id": "m0", "title": "Cortex-M0", "tool": "arm-none-eabi-",
     "flags": "-mcpu=cortex-m0 -mthumb",
     "qemu": "qemu-system-arm -M microbit",
     "code": (0x00000000, 0x40000), "ram": (0x20000000, 0x4000)},
    {"id": "rv32imac", "title": "rv32imac", "tool": "riscv64-unknown-elf-",
     "flags": "-march=rv32imac -mabi=ilp32",
     "qemu": "qemu-system-riscv32 -M virt -cpu rv32,f=false,d=false -bios none",
     "count_limit": 6000,
     "code": (0x80000000, 0x100000), "ram": (0x80100000, 0x3f00000)},
    {"id": "rv32imafc", "title": "rv32imafc", "tool": "riscv64-unknown-elf-",
     "flags": "-march=rv32imafc -mabi=ilp32f",
     "qemu": "qemu-system-riscv32 -M virt -cpu rv32 -bios none",
     "code": (0x80000000, 0x100000), "ram": (0x80100000, 0x3f00000)},
]
LEVELS = ["-Os", "-O2"]
CFLAGS = "-std=c99 -ffreestanding -ffunction-sections -fdata-sections -Wall -Wextra"
STACK = 2048            # bytes of RAM kept for the stack
# Output elements at most for an instruction count (a target may say
# fewer): the log has a line per instruction, and a soft-float add is
# some 60 of them, 400 MB of log for a case of 12288 elements.
COUNT_LIMIT = 16384

# bcastgen's implementations, then the two others.
VARIANTS = [
    ("unroll", ["--strategy", "unroll", "--unroll-limit", "512"]),
    ("loops", ["--strategy", "loops"]),
    ("block", ["--strategy", "block"]),
    ("speed", ["--optimize", "speed"]),
    ("size", ["--optimize", "size"]),
]
OTHERS = ["ref", "hand"]
ALL = [v for v, _ in VARIANTS] + OTHERS
TITLE = {"unroll": "unroll", "loops": "loops", "block": "block",
         "speed": "auto speed", "size": "auto size",
         "ref": "bc_ref.h", "hand": "hand"}
# Strategy words that the cases' own command lines may carry: dropped,
# each variant gives its own.
DROP = {"--strategy": 1, "--unroll-limit": 1, "--optimize": 1,
        "--stream": 1, "--cache-size": 1, "--loop-order": 1}

# Cases where --optimize size may be larger than another strategy at -Os,
# with why (measured: see README.md, "Code size"): (case, target) -> reason.
BLOCK3 = ("x(4,3) + y(3): on RISC-V the block (the inner 3 written out, y's "
          "three values in registers, offsets in the loads) is smaller than "
          "a second loop with its counter and address adds: 112 bytes "
          "against 114 on rv32imac, 54 against 60 on rv32imafc")
KNOWN_LARGER = {
    ("tiny43", "rv32imac"): BLOCK3,
    ("tiny43", "rv32imafc"): BLOCK3,
    ("seed001_row", "rv32imac"): BLOCK3,
    ("seed001_row", "rv32imafc"): BLOCK3,
    ("seed004_broadcast_to", "m4f"):
        "a copy of 2 values to 12 places: written out, 2 loads and 12 "
        "stores at offsets from one base (30 bytes); the loop gcc makes "
        "of it (4 stores a pass) needs a push, two bases and a compare (36)",
    ("col17", "rv32imac"):
        "gcc's register allocation at -Os around the soft-float call: the "
        "single loop of 17 keeps 11 registers saved, the loop of 16 with "
        "a tail of 1 only 9, 4 bytes less (126 against 122)",
}

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
        return "relu" if e == "max(x*w+b,0)" else None
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


RELU_C = """static inline float bc_size_relu(float v) { return v > 0 ? v : 0; }"""


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

def prepare(gen, out, cid, words):
    """Generate the case's implementations in OUT/CID/; returns a dict:
    impls [(variant, function, .c)], params, dims, count, why (variants
    that do not apply, and why), or None with the reason when even auto
    fails."""
    d = os.path.join(out, cid)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    impls, why = [], {}
    params = dims = strides = None
    for v, extra in VARIANTS:
        fn = "%s_%s" % (cid, v)
        c = os.path.join(d, fn + ".c")
        st, text = run([gen] + extra + ["--name", fn, "-o", c] + words)
        if st != 0:
            why[v] = refusal(text)
            continue
        impls.append((v, fn, c))
        if params is None:
            params, dims, strides = parse_kernel(c, c[:-2] + ".h")
    if params is None:
        return {"error": why.get("speed", "bcastgen failed")}
    op = op_of(words)
    for v, writer in (("ref", write_ref), ("hand", write_hand)):
        if op is None:
            why[v] = "not written for this op"
            continue
        fn = "%s_%s" % (cid, v)
        c = os.path.join(d, fn + ".c")
        writer(c, fn, op, params, dims, strides)
        impls.append((v, fn, c))
    count = 1
    for n in dims:
        count *= n
    return {"impls": impls, "params": params, "dims": dims, "count": count,
            "strides": strides, "why": why, "dir": d}


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


def text_bytes(t, obj):
    """The bytes of the object's .text sections (.text and .text.*)."""
    st, text = run([t["tool"] + "size", "-A", obj])
    total = 0
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 2 and (f[0] == ".text" or f[0].startswith(".text.")):
            total += int(f[1])
    return total


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


def unit(case, t, level, gen_dir):
    """Compile every implementation of one case for target t at level;
    link and run under QEMU when it fits.  Returns rows
    {variant: (bytes, instructions per element or None)} and a note."""
    d = os.path.join(gen_dir, t["id"] + level.replace("-", "_"))
    os.makedirs(d, exist_ok=True)
    cc = t["tool"] + "gcc"
    flags = t["flags"].split() + [level] + CFLAGS.split() + ["-I" + RUNTIME]
    res, objs = {}, []
    for v, fn, c in case["impls"]:
        o = os.path.join(d, fn + ".o")
        st, text = run([cc] + flags + ["-c", c, "-o", o])
        if st != 0:
            return res, "%s does not compile: %s" % (v, first_error(text))
        res[v] = [text_bytes(t, o), None]
        objs.append(o)
    params, count = case["params"], case["count"]
    nbytes = sum(ELEM_BYTES[p[0]] * (count if not p[2] else case["elems"][p[1]])
                 for p in params)
    if nbytes + STACK > t["ram"][1]:
        return res, "no count: %d bytes of data, more than the RAM" % nbytes
    limit = t.get("count_limit", COUNT_LIMIT)
    if count > limit:
        return res, "no count: %d elements, more than %d" % (count, limit)
    if count == 0:
        return res, "no count: no elements"
    drv = os.path.join(d, "driver.c")
    write_driver(drv, [(v, fn) for v, fn, c in case["impls"]], params, count,
                 case["elems"])
    ld = os.path.join(d, "prog.ld")
    with open(ld, "w") as fh:
        fh.write(linker_script(t))
    elf = os.path.join(d, "prog.elf")
    st, text = run([cc] + flags + ["-nostdlib", "-T", ld, "-Wl,--gc-sections",
                                   "-o", elf, START, drv] + objs + ["-lgcc"])
    if st != 0:
        return res, "does not link: %s" % first_error(text)
    syms = symbols(t, elf)
    log = os.path.join(d, "exec.log")
    lo, hi = syms["_counted"], syms["_counted_end"]
    cmd = ["timeout", "60"] + t["qemu"].split() + [
        "-nographic", "-semihosting-config", "enable=on,target=native",
        "-singlestep", "-d", "exec,nochain", "-dfilter", "0x%x..0x%x" % (lo, hi - 1),
        "-D", log, "-kernel", elf]
    st, text = run(cmd, stdin=subprocess.DEVNULL)
    if st != 0:
        return res, "the run failed (status %d): %s" % (st, text.strip()[:200])
    counts = count_log(log, [(v, syms[fn]) for v, fn, c in case["impls"]],
                       syms["size_mark"])
    os.remove(log)
    for v, n in counts.items():
        res[v][1] = n / count
    return res, ""


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


def count_log(log, entries, mark):
    """Instructions from each implementation's entry to the next
    size_mark, in QEMU's log of executed (one-instruction) blocks: lines
    'Trace 0: HOSTADDR [CSBASE/PC/FLAGS/CFLAGS] SYMBOL'."""
    start = {a: v for v, a in entries}
    counts, cur, n = {}, None, 0
    with open(log, "rb") as fh:
        for line in fh:
            if not line.startswith(b"Trace "):
                continue
            pc = int(line.split(b"[", 1)[1].split(b"/", 2)[1], 16)
            if cur is None:
                if pc in start:
                    cur, n = start[pc], 1
            elif pc == mark:
                counts[cur] = n
                cur = None
            else:
                n += 1
    return counts


# ------------------------------------------------- the check

def check(rows):
    """rows: (case, target, level, variant, bytes).  For each case and
    target at -Os: the size variant no larger than any other of
    bcastgen's.  Returns (failures, known): lines to print."""
    by = {}
    for cid, tid, level, v, b in rows:
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


def read_tsv(path):
    rows = []
    with open(path) as fh:
        for line in fh:
            f = line.rstrip("\n").split("\t")
            if f[0] == "case" or len(f) < 5:
                continue
            rows.append((f[0], f[1], f[2], f[3], int(f[4]) if f[4] not in ("", "-") else None))
    return rows


# ------------------------------------------------- the table

def cell(r):
    if r is None:
        return "-"
    b, ipe = r
    return "%d" % b if ipe is None else "%d (%.1f)" % (b, ipe)


def tables(cases, results):
    """The table as text lines and as markdown lines: one row per case,
    target and level; a column per implementation: bytes (instructions
    per element)."""
    head = ["kernel", "target", "flags"] + [TITLE[v] for v in ALL]
    rows = []
    for cid, words in cases:
        for t in TARGETS:
            for level in LEVELS:
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


def main():
    ap = argparse.ArgumentParser(description="make size: bytes and instructions "
                                 "per element of each case's kernels on the firmware targets")
    ap.add_argument("--gen", default=os.path.join(TOP, "build", "bcastgen"))
    ap.add_argument("--out", default=os.path.join(TOP, "build", "size"))
    ap.add_argument("--only", default="", help="case ids, comma- or space-separated")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--case", action="append", default=[], metavar="ID=WORDS",
                    help="a case of its own instead of the seeds' and cases.txt's")
    ap.add_argument("--targets", default="", help="target ids (default: all)")
    ap.add_argument("--check", metavar="TSV", help="only check the rows of TSV")
    a = ap.parse_args()
    if a.check:
        bad, known = check(read_tsv(a.check))
        for line in known:
            print("size: " + line)
        for line in bad:
            print("size: larger: " + line)
        return 1 if bad else 0
    if a.targets:
        ids = a.targets.replace(",", " ").split()
        TARGETS[:] = [t for t in TARGETS if t["id"] in ids]
        if len(TARGETS) != len(ids):
            die("unknown target in '%s'" % a.targets)
    for t in TARGETS:
        for tool in (t["tool"] + "gcc", t["qemu"].split()[0]):
            if not shutil.which(tool):
                die("'%s' not found (make deps installs the firmware toolchains)" % tool)
    t0 = time.time()
    only = set(a.only.replace(",", " ").split())
    if a.case:
        given = [c.partition("=") for c in a.case]
        cases = [(cid, shlex.split(words)) for cid, _, words in given]
    else:
        cases = seed_cases() + bench_cases()
    cases = [c for c in cases if not only or c[0] in only]
    if only and len(cases) != len(only):
        die("unknown case in '%s'" % a.only)
    os.makedirs(a.out, exist_ok=True)
    prepared, results, notes = {}, {}, []
    for cid, words in cases:
        p = prepare(a.gen, os.path.join(a.out, "cases"), cid, words)
        if "error" in p:
            die("case '%s': %s" % (cid, p["error"]))
        p["elems"] = input_elems(p["params"], p["dims"], p["strides"])
        prepared[cid] = p
    jobs = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        for cid, words in cases:
            for t in TARGETS:
                for level in LEVELS:
                    jobs.append(((cid, t["id"], level),
                                 ex.submit(unit, prepared[cid], t, level, prepared[cid]["dir"])))
        for key, f in jobs:
            results[key] = f.result()
    failed = []
    for key, (res, note) in sorted(results.items()):
        if note and not note.startswith("no count"):
            failed.append("%s on %s at %s: %s" % (key[0], key[1], key[2], note))
    tsv = ["case\ttarget\tflags\timplementation\ttext_bytes\tinstructions_per_element"]
    rows = []
    for cid, words in cases:
        for t in TARGETS:
            for level in LEVELS:
                res, note = results[(cid, t["id"], level)]
                for v in ALL:
                    if v in res:
                        b, ipe = res[v]
                        rows.append((cid, t["id"], level, v, b))
                        tsv.append("%s\t%s\t%s\t%s\t%d\t%s" % (
                            cid, t["id"], level, v, b, "" if ipe is None else "%.2f" % ipe))
    with open(os.path.join(a.out, "size.tsv"), "w") as fh:
        fh.write("\n".join(tsv) + "\n")
    text, md = tables(cases, results)
    bad, known = check(rows)
    skipped = sorted(set(note for (k, (r, note)) in results.items() if note.startswith("no count")))
    print("\n".join(text))
    print()
    print(HOW)
    legend = case_legend(cases, prepared)
    summary = size_summary(rows)
    for depth, line in summary:
        print("size: " + "  " * depth + line)
    not_applied = describe_not_applied(cases, prepared)
    for line in not_applied:
        print("size: " + line)
    uncounted = uncounted_lines(cases, results)
    for line in uncounted:
        print("size: " + line)
    for line in known:
        print("size: " + line)
    for line in bad:
        print("size: larger: " + line)
    for line in failed:
        print("size: failed: " + line)
    secs = time.time() - t0
    with open(os.path.join(a.out, "SIZE.md"), "w") as fh:
        fh.write(markdown(md, not_applied, uncounted, known, bad, legend, summary))
    print("size: %d cases, %d programs, %.0f s; the table in %s" % (
        len(cases), len(results), secs, os.path.join(a.out, "SIZE.md")))
    return 1 if bad or failed else 0


HOW = """Each cell: .text bytes of the implementation's own object (-ffunction-sections;
libgcc's helpers not included), and in parentheses the instructions one call
executes per output element, helpers included: QEMU run with -singlestep
(one instruction per translation block) and -d exec,nochain, its log limited
by -dfilter to the code after the driver, counted from the function's entry
to the marker called after it.  -: bcastgen refuses that strategy for the
case, or no hand loop was written for its op."""


def describe_not_applied(cases, prepared):
    """A note for each implementation a case does not have, and why."""
    out = []
    for cid, words in cases:
        for v, why in sorted(prepared[cid]["why"].items()):
            out.append("%s: no %s: %s" % (cid, TITLE[v], why))
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


def markdown(md, not_applied, uncounted, known, bad, legend=(), summary=()):
    """SIZE.md: how it was made, the targets, the summary, the legend of
    the cases, the table (MD, its lines), then the notes: implementations
    a case does not have, counts not run, the known exceptions and the
    failures of the check, each group a list. Nothing in it depends on
    the run's time: the same tools give the same bytes."""
    lines = ["# Code size on the firmware targets", "",
             "Written by `make size` (bench/size.py).", "",
             "Targets (each with `%s` and the flags of the row):" % CFLAGS, ""]
    for t in TARGETS:
        lines.append("- %s: `%sgcc %s`, run on `%s`" % (t["id"], t["tool"], t["flags"], t["qemu"]))
    lines.append("")
    if summary:
        lines += ["## Is `--optimize size` ever larger than a hand-written loop?", ""]
        lines += ["  " * depth + "- " + line for depth, line in summary] + [""]
    if legend:
        lines += ["## The cases", "",
                  "Each case's operation, its operands as bcastgen's words (`NAME:DTYPE=SHAPE`, "
                  "f32 where no dtype is given), the options it keeps, and the result shape.", ""]
        lines += list(legend) + [""]
    lines += ["## The table", "", HOW.replace("\n", " "), ""] + md + [""]
    if not_applied or uncounted or known or bad:
        lines += ["## Notes", "",
                  "What a case does not have and why, where it was not run, the "
                  "measured exceptions to the check (bench/size.py, KNOWN_LARGER) and "
                  "what failed it.", ""]
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
    bytes)."""
    by = {}
    for cid, tid, level, v, b in rows:
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
                   "subtract, greater, maximum, copy and the relu expression only."))
    return out


if __name__ == "__main__":
    sys.exit(main())
