"""NumPy differential test of the streaming-store kernels (--stream).

A seeded corpus of kernels whose innermost loop runs 16 to 5000 times
(add, subtract, multiply, divide, NaN-propagating maximum, a comparison
to u8, the fused 'max(x*w + b, 0)', a conversion to f16 output; dtypes
f32 f64 i8 i16 i32 u8 f16; same shapes, row, column and bias
broadcasts, a scalar, in place, Paddle's --axis) is generated with
`--stream on`, and a third of it with `--stream auto --cache-size 1K`
(64 where the data are smaller); innermost loops of exactly a line, and
of a line and an element, too. Each banner must say that the kernel
streams and why, and its .c must call bc_stream_line; the same kernels
with `--stream off`, with the default cache size, with 1G, and with
`--stream auto` and a cache size just at their data's bytes must not,
and a byte less they must (with `--tune znver4` too; with `--tune
cascadelake`, whose streaming stores are the slower, not, and the
banner says so); a kernel far past the cache whose short
innermost loop the planner writes out as a block does not stream. One driver holds every kernel and is
compiled with gcc at -O2 with strict warnings (-Werror), -O3
-march=native, -O2 -mavx, -O2 -mavx512f (where the processor has it),
-O0, -DBC_NO_STREAM and -ffreestanding, and with clang -O2 (also with
-DBC_STREAM_BUILTIN, its __builtin_nontemporal_store), where installed.
Each build runs every kernel with its output pointer at every
misalignment from a 64-byte boundary (0 to 63 bytes in steps of the
output's element size), with guard bytes before and after the output
that must come back untouched and inputs that must too, and compares the
output bytes with NumPy's result (any NaN equals any NaN). In each build
a disassembly of the driver shows which kernels hold a movnt
instruction (following the calls they make): every kernel does, but
under -DBC_NO_STREAM none does, and under -ffreestanding only those
generated with --stream on do; the auto kernels compiled freestanding
alone make an object with no movnt in it at all.

An output not aligned to its type (1, 2, 3, 62 bytes past a line for
f32) is the caller's error; without NDEBUG it stops at BC_ASSERT
(assert() with gcc and clang, __builtin_trap() under -ffreestanding),
and under -DNDEBUG no check is compiled in.

Last, errors: --stream on where it cannot apply (an innermost loop
shorter than a line, --strategy unroll), and bad values of --stream and
--cache-size, on the command line and in a spec, are one line of error,
exit 1, nothing written and an existing output left as it was.

Usage: stream_oracle.py GEN        (run with /usr/bin/python3)
Env:   BCAST_STREAM_SEED  corpus seed (default 20241123)
       BCAST_STREAM_KEEP  keep the scratch directory if set (path printed)
       BCAST_STREAM_EXTRA kernels drawn at random past the 44 fixed ones
                          (default 24)
       BCAST_STREAM_JOBS  builds compiled at once (default 2)
"""
import concurrent.futures
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

from tap import Tap, fresh

GEN = os.path.abspath(sys.argv[1])
TESTS = os.path.dirname(os.path.abspath(__file__))
RUNTIME = os.path.join(os.path.dirname(TESTS), "runtime")
SEED = int(os.environ.get("BCAST_STREAM_SEED", "20241123"))
JOBS = int(os.environ.get("BCAST_STREAM_JOBS", "2"))
EXTRA = int(os.environ.get("BCAST_STREAM_EXTRA", "24"))
LINE = 64
BLOCK_MAX = 64      # the longest innermost loop the planner writes out (the row's block_max)

DTYPES = {
    "f16": (np.float16, "bc_f16"),
    "f32": (np.float32, "float"),
    "f64": (np.float64, "double"),
    "i8": (np.int8, "int8_t"),
    "i16": (np.int16, "int16_t"),
    "i32": (np.int32, "int32_t"),
    "u8": (np.uint8, "uint8_t"),
}
FLOATS = ("f16", "f32", "f64")
STRICT = ["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Wconversion", "-Werror",
          "-ffp-contract=off"]

# ---------------------------------------------------------------- TAP

TAP = Tap()
ok, skip = TAP.ok, TAP.skip


def run(cmd, cwd=None, timeout=300):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)


# ---------------------------------------------------------------- corpus

# Innermost extents: around a line of every element size, odd ones, long.
INNER = [16, 17, 31, 33, 63, 64, 65, 100, 127, 129, 250, 333, 1000, 2047, 4999, 5000]


def line_elems(dt):
    return LINE // np.dtype(DTYPES[dt][0]).itemsize


def shapes_for(rng, pattern, inner):
    """Operand shapes (x, second) and the --axis for a broadcast pattern
    whose innermost loop (after merging) runs `inner` times."""
    if pattern == "same":
        # two dimensions that merge: the inner loop is their product
        r = [rng.choice([2, 3]), inner]
        return [r, list(r)], None, r[0] * inner
    if pattern == "row":
        r = [rng.choice([2, 3, 5]), inner]
        return [r, [inner]], None, inner
    if pattern == "column":
        r = [rng.choice([2, 3, 4]), inner]
        return [r, [r[0], 1]], None, inner
    if pattern == "bias":
        c = rng.choice([2, 3])
        r = [2, c, inner]
        return [r, [c, 1]], None, inner
    if pattern == "scalar":
        return [[inner], []], None, inner
    if pattern == "axis":
        # Paddle: y(C) placed at dimension 1 of x(N, C, L)
        c = rng.choice([2, 3])
        r = [2, c, inner]
        return [r, [c]], 1, inner
    raise ValueError(pattern)


class Case:
    def __init__(self, idx, op, dt, pattern, inner, inplace, mode, rng,
                 out_dt=None, expr=None):
        self.name = "k%03d" % idx
        self.op, self.expr, self.dt, self.pattern = op, expr, dt, pattern
        self.inplace, self.mode = inplace, mode
        if op in ("less",):
            self.out_dt = "u8"
        else:
            self.out_dt = out_dt or dt
        shapes, self.axis, self.inner = shapes_for(rng, pattern, inner)
        if expr:
            # x * w + b with w, b broadcast as the pattern's second operand
            self.operands = [("x", dt, shapes[0]), ("w", dt, shapes[1]),
                             ("b", dt, shapes[1])]
        else:
            self.operands = [("x", dt, shapes[0]), ("y", dt, shapes[1])]

    def args(self, mode=None, cache=None):
        a = []
        if self.expr:
            a += ["--expr", self.expr]
        else:
            a += ["--op", self.op]
        if self.out_dt != self.dt and self.op != "less":
            a += ["--out-dtype", self.out_dt]
        if self.inplace:
            a += ["--inplace"]
        if self.axis is not None:
            a += ["--axis", str(self.axis)]
        mode = mode or self.mode
        if mode == "auto":
            a += ["--stream", "auto", "--cache-size", cache or self.cache]
        elif mode == "default":
            pass
        else:
            a += ["--stream", mode]
            if cache:
                a += ["--cache-size", cache]
        a += ["%s:%s=%s" % (n, d, ",".join(str(s) for s in sh))
              for n, d, sh in self.operands]
        return a

    def describe(self):
        what = ("expr '%s'" % self.expr) if self.expr else self.op
        sh = " ".join("%s(%s)" % (n, ",".join(str(s) for s in sh))
                      for n, _, sh in self.operands)
        extra = ""
        if self.out_dt != self.dt:
            extra += " -> %s" % self.out_dt
        if self.inplace:
            extra += " in place"
        if self.axis is not None:
            extra += " axis %d" % self.axis
        return "%s: %s %s %s%s, %s, inner %d, --stream %s" % (
            self.name, what, self.dt, sh, extra, self.pattern, self.inner,
            "auto --cache-size " + self.cache if self.mode == "auto" else self.mode)


def build_corpus(rng):
    """Each op with the dtypes it is tested in, over the patterns, then
    EXTRA more drawn from them; the inner extents drawn so that each is at
    least a line of the output (and, for --stream auto, a loop the planner
    does not write out)."""
    plan = []
    for dt in ("f32", "f64", "i8", "i16", "i32", "u8", "f16"):
        plan += [("add", dt, {}), ("subtract", dt, {}), ("multiply", dt, {})]
    for dt in ("f32", "f64", "f16", "i32", "i8"):
        plan.append(("divide", dt, {}))
    for dt in ("f32", "f64", "f16", "i16"):
        plan.append(("maximum", dt, {}))
    for dt in ("f32", "i8", "f16", "f64"):
        plan.append(("less", dt, {}))
    for dt in ("f32", "i16", "f16"):
        plan.append((None, dt, {"expr": "max(x*w + b, 0)"}))
    for dt in ("f32", "f64"):
        plan.append(("add", dt, {"out_dt": "f16"}))
    # innermost loops of exactly one line, and one line and an element:
    # misaligned, no whole line fits, or one does
    for dt, inner in (("f32", 16), ("f64", 8), ("i8", 64), ("f16", 33), ("i32", 17)):
        plan.append(("add", dt, {"inner": inner}))
    # then drawn at random from the same ops and dtypes
    ops = [(op, dt, {}) for op, dt, kw in plan if op and not kw]
    ops += [(None, dt, {"expr": "max(x*w + b, 0)"}) for dt in DTYPES]
    ops += [("add", dt, {"out_dt": "f16"}) for dt in ("f32", "f64")]
    nfixed = len(plan)
    plan += [rng.choice(ops) for _ in range(EXTRA)]
    patterns = ["same", "row", "column", "bias", "scalar", "axis"]
    cases = []
    for i, (op, dt, kw) in enumerate(plan):
        out_dt = "u8" if op == "less" else kw.get("out_dt", dt)
        if i >= nfixed:
            mode = rng.choice(["on", "on", "auto"])
        else:
            mode = "auto" if i % 3 == 2 else "on"
        # --stream on makes the strategy loops; with auto, an innermost loop
        # of at most BLOCK_MAX is written out (block or unroll) and streams not
        need = max(line_elems(out_dt), BLOCK_MAX + 1 if mode == "auto" else 0)
        inner = rng.choice([n for n in INNER if n >= need])
        pattern = patterns[i % len(patterns)] if i < nfixed else rng.choice(patterns)
        if kw.get("expr") and pattern in ("scalar", "axis", "same"):
            pattern = rng.choice(["row", "column", "bias"])
        if "inner" in kw:
            kw = dict(kw)
            inner = kw.pop("inner")
            mode = "on"
            if pattern == "same":       # whose loops merge into a longer one
                pattern = "row"
        inplace = (op in ("add", "subtract", "multiply", "maximum") and out_dt == dt
                   and pattern != "scalar" and rng.random() < 0.3)
        cases.append(Case(len(cases), op, dt, pattern, inner, inplace, mode, rng, **kw))
    return cases


# ---------------------------------------------------------------- data

def values(rng, dt, n, divisor=False):
    """n values of dtype dt: for floats a mix of ordinary numbers, zeros
    of both signs, infinities and NaNs; for integers the whole range
    with its edges (and for a divisor, many zeros and -1s)."""
    t = DTYPES[dt][0]
    if dt in FLOATS:
        v = rng.standard_normal(n) * 8.0
        v = np.where(rng.random(n) < 0.3, np.round(v), v)
        special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-30, 65504.0,
                            1e30, -1.5])
        pick = rng.random(n) < 0.08
        v[pick] = special[rng.integers(0, len(special), pick.sum())]
        with np.errstate(all="ignore"):
            return v.astype(t)
    info = np.iinfo(t)
    v = rng.integers(int(info.min), int(info.max) + 1, n, dtype=np.int64)
    edges = np.array([0, 1, -1, int(info.min), int(info.max)], dtype=np.int64)
    pick = rng.random(n) < (0.25 if divisor else 0.06)
    v[pick] = edges[rng.integers(0, 3 if divisor else len(edges), pick.sum())]
    return v.astype(t)


def trunc_div(a, b, t):
    """C's integer division as the kernels do it: toward zero, x / 0 is 0,
    MIN / -1 wraps to MIN."""
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    safe = np.where(b64 == 0, 1, b64)
    q = np.abs(a64) // np.abs(safe) * np.sign(a64) * np.sign(safe)
    q = np.where(b64 == 0, 0, q)
    return q.astype(t)


def expected(case, arrays):
    """NumPy's result, in the output's dtype."""
    t = DTYPES[case.dt][0]
    ins = list(arrays)
    if case.axis is not None:
        # Paddle: y(C) at dimension 1 of x(N, C, L) is y(1, C, 1)
        ins[1] = ins[1].reshape((1, -1, 1))
    with np.errstate(all="ignore"):
        if case.expr:
            x, w, b = ins
            r = np.maximum(x * w + b, t(0))
        elif case.op == "add":
            r = ins[0] + ins[1]
        elif case.op == "subtract":
            r = ins[0] - ins[1]
        elif case.op == "multiply":
            r = ins[0] * ins[1]
        elif case.op == "divide":
            if case.dt in FLOATS:
                r = ins[0] / ins[1]
            else:
                a, b = np.broadcast_arrays(ins[0], ins[1])
                r = trunc_div(a, b, t)
        elif case.op == "maximum":
            r = np.maximum(ins[0], ins[1])
        elif case.op == "less":
            r = np.less(ins[0], ins[1])
        else:
            raise ValueError(case.op)
        r = np.asarray(r)
        assert r.dtype == (np.bool_ if case.op == "less" else t), (case.name, r.dtype)
        return np.ascontiguousarray(r.astype(DTYPES[case.out_dt][0]))


def make_data(case, rng):
    arrays = []
    for j, (_, dt, sh) in enumerate(case.operands):
        n = int(np.prod(sh)) if sh else 1
        arrays.append(values(rng, dt, n, divisor=(case.op == "divide" and j == 1))
                      .reshape(sh))
    case.arrays = arrays
    case.expect = expected(case, arrays)
    case.n = case.expect.size
    case.size = case.expect.itemsize
    case.data_bytes = sum(a.nbytes for a in arrays) + case.expect.nbytes
    # --stream auto: 1K, or less where the data are smaller (a few bytes
    # of i8), so that they pass it
    case.cache = "1K" if case.data_bytes > 1024 else "64"


# ---------------------------------------------------------------- driver

DRIVER_HEAD = r"""/* driver.c: runs each streaming kernel with its output at every
 * misalignment from a 64-byte boundary, guards around it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
"""

DRIVER_BODY = r"""
struct kcase {
	const char *name;
	void (*fn)(const void *const *in, void *out);
	size_t nin;
	size_t in_bytes[3];
	size_t n, size;
	int isfloat, inplace;
};

/* Whether the element of SIZE bytes at P is a NaN (any sign, any payload). */
static int is_nan(const unsigned char *p, size_t size)
{
	if (size == 2) {
		uint16_t v;
		memcpy(&v, p, 2);
		return (v & 0x7c00u) == 0x7c00u && (v & 0x03ffu) != 0;
	}
	if (size == 4) {
		uint32_t v;
		memcpy(&v, p, 4);
		return (v & 0x7f800000u) == 0x7f800000u && (v & 0x007fffffu) != 0;
	}
	if (size == 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		return (v & 0x7ff0000000000000u) == 0x7ff0000000000000u
			&& (v & 0x000fffffffffffffu) != 0;
	}
	return 0;
}

static void hex(const unsigned char *p, size_t size)
{
	size_t k;

	for (k = size; k > 0; k--)
		printf("%02x", p[k - 1]);
}

#define GUARD 64
#define PAT(m) ((unsigned char)(0xa5u ^ (unsigned)(m)))

/* Run case C at every misalignment; one line of result each. */
static int run_case(const struct kcase *c, const char *dir)
{
	char path[4096];
	FILE *f;
	unsigned char *data, *raw, *base, *out;
	const unsigned char *ins[3], *expect;
	size_t total = 0, out_bytes = c->n * c->size, region, j, k, m;
	int bad = 0;

	for (j = 0; j < c->nin; j++)
		total += c->in_bytes[j];
	total += out_bytes;
	snprintf(path, sizeof path, "%s/%s.bin", dir, c->name);
	data = malloc(total ? total : 1);
	f = fopen(path, "rb");
	if (!data || !f || fread(data, 1, total, f) != total) {
		printf("%s error cannot read %s\n", c->name, path);
		return 1;
	}
	fclose(f);
	/* each input in its own exact-size block, its pristine copy in data */
	for (j = 0, k = 0; j < c->nin; k += c->in_bytes[j], j++) {
		unsigned char *p = malloc(c->in_bytes[j] ? c->in_bytes[j] : 1);
		if (!p)
			return 1;
		memcpy(p, data + k, c->in_bytes[j]);
		ins[j] = p;
	}
	expect = data + k;
	region = GUARD + LINE_BYTES + out_bytes + GUARD;
	raw = malloc(region + LINE_BYTES);
	if (!raw)
		return 1;
	base = raw + (size_t)((LINE_BYTES - (uintptr_t)raw % LINE_BYTES) % LINE_BYTES);
	for (m = 0; m * c->size < LINE_BYTES; m++) {
		const void *args[3];
		size_t at, off = 0, bad_at = (size_t)-1, nbad = 0;

		memset(base, PAT(m), region);
		out = base + GUARD + m * c->size;
		for (j = 0; j < c->nin; j++)
			args[j] = ins[j];
		if (c->inplace)
			memcpy(out, ins[0], out_bytes);
		c->fn(args, out);
		for (at = 0; at < region; at++)
			if ((base + at < out || base + at >= out + out_bytes)
			    && base[at] != PAT(m)) {
				printf("%s +%u bytes: guard byte %ld from the output's start "
				       "changed\n", c->name, (unsigned)(m * c->size),
				       (long)(base + at - out));
				bad = 1;
				break;
			}
		for (j = 0; j < c->nin; off += c->in_bytes[j], j++)
			if (!(c->inplace && j == 0) && memcmp(ins[j], data + off, c->in_bytes[j])) {
				printf("%s +%u bytes: input %u changed\n", c->name,
				       (unsigned)(m * c->size), (unsigned)j);
				bad = 1;
			}
		for (k = 0; k < c->n; k++) {
			const unsigned char *g = out + k * c->size, *e = expect + k * c->size;
			if (memcmp(g, e, c->size) == 0)
				continue;
			if (c->isfloat && is_nan(g, c->size) && is_nan(e, c->size))
				continue;
			if (nbad++ == 0)
				bad_at = k;
		}
		if (nbad) {
			const unsigned char *g = out + bad_at * c->size;
			printf("%s +%u bytes: %lu elements differ, first at %lu: got 0x",
			       c->name, (unsigned)(m * c->size), (unsigned long)nbad,
			       (unsigned long)bad_at);
			hex(g, c->size);
			printf(", NumPy 0x");
			hex(expect + bad_at * c->size, c->size);
			printf("\n");
			bad = 1;
		} else {
			printf("%s +%u bytes: ok\n", c->name, (unsigned)(m * c->size));
		}
	}
	for (j = 0; j < c->nin; j++)
		free((void *)ins[j]);
	free(raw);
	free(data);
	return bad;
}

/* driver DIR [NAME]: run every case, or the one named NAME. */
int main(int argc, char **argv)
{
	size_t i;
	int bad = 0;

	if (argc != 2 && argc != 3)
		return 2;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		if (argc == 2 || strcmp(argv[2], cases[i].name) == 0) {
			bad |= run_case(&cases[i], argv[1]);
			fflush(stdout);
		}
	return bad;
}
"""


def write_driver(cases, path):
    lines = [DRIVER_HEAD]
    for c in cases:
        lines.append('#include "%s.c"\n' % c.name)
    lines.append("\n#define LINE_BYTES %d\n" % LINE)
    for c in cases:
        nin = len(c.operands)
        if c.inplace:
            call = "%s(out%s)" % (c.name, "".join(", in[%d]" % j for j in range(1, nin)))
        else:
            call = "%s(%s, out)" % (c.name, ", ".join("in[%d]" % j for j in range(nin)))
        lines.append("static void w_%s(const void *const *in, void *out)\n{\n"
                     "\t(void)in;\n\t%s;\n}\n" % (c.name, call))
    body_cases = []
    for c in cases:
        sizes = ", ".join("%d" % a.nbytes for a in c.arrays)
        body_cases.append('\t{"%s", w_%s, %d, {%s}, %d, %d, %d, %d},' % (
            c.name, c.name, len(c.arrays), sizes, c.n, c.size,
            int(c.out_dt in FLOATS), int(c.inplace)))
    struct_end = DRIVER_BODY.index("/* Whether")
    body = DRIVER_BODY[:struct_end]
    rest = DRIVER_BODY[struct_end:]
    table = "static const struct kcase cases[] = {\n%s\n};\n\n" % "\n".join(body_cases)
    with open(path, "w") as f:
        f.write("".join(lines) + body + table + rest)


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


def have(cmd):
    return shutil.which(cmd) is not None


def builds():
    """(tag, compiler, flags, which kernels hold movnt: 'all', 'none', 'on'
    (those generated with --stream on) or 'wide' (those of a 32- or 64-bit
    output), or 'skip: ' and the reason to skip)."""
    flags = cpu_flags()
    b = [
        ("gcc -O2", "gcc", ["-O2"], "all"),
        ("gcc -O3 -march=native", "gcc", ["-O3", "-march=native"], "all"),
        ("gcc -O2 -mavx", "gcc", ["-O2", "-mavx"],
         "all" if "avx" in flags else "skip: the processor has no AVX (no avx in /proc/cpuinfo)"),
        ("gcc -O2 -mavx512f", "gcc", ["-O2", "-mavx512f"],
         "all" if "avx512f" in flags else
         "skip: the processor has no AVX-512 (no avx512f in /proc/cpuinfo)"),
        ("gcc -O0", "gcc", ["-O0"], "all"),
        ("gcc -O2 -DBC_NO_STREAM", "gcc", ["-O2", "-DBC_NO_STREAM"], "none"),
        ("gcc -O2 -ffreestanding", "gcc", ["-O2", "-ffreestanding"], "on"),
    ]
    clang = "clang is not installed" if not have("clang") else None
    b.append(("clang -O2", "clang", ["-O2"], "skip: " + clang if clang else "all"))
    # the builtin stores an element at a time: x86 has movnti for 32 and
    # 64 bits, nothing for a byte
    b.append(("clang -O2 -DBC_STREAM_BUILTIN", "clang", ["-O2", "-DBC_STREAM_BUILTIN"],
              "skip: " + clang if clang else "wide"))
    return b


MOVNT = re.compile(r"\s(v?movnt\w*)\s")
FUNC = re.compile(r"^[0-9a-f]+ <([^>]+)>:$")
CALL = re.compile(r"\s(?:call|jmp)\w*\s+[0-9a-f]+ <([^>+]+)>")


def movnt_functions(exe):
    """The functions of exe whose code holds a movnt instruction, directly
    or through the functions it calls; None if objdump fails."""
    r = run(["objdump", "-d", "--no-show-raw-insn", exe])
    if r.returncode != 0:
        return None
    direct, calls, cur = set(), {}, None
    for line in r.stdout.splitlines():
        m = FUNC.match(line)
        if m:
            cur = m.group(1)
            calls.setdefault(cur, set())
            continue
        if cur is None:
            continue
        if MOVNT.search(line + " "):
            direct.add(cur)
        m = CALL.search(line)
        if m and m.group(1) != cur:
            calls[cur].add(m.group(1))
    has = set(direct)
    changed = True
    while changed:
        changed = False
        for f, cs in calls.items():
            if f not in has and cs & has:
                has.add(f)
                changed = True
    return has


def do_build(build, cases, work):
    tag, cc, flags, expect = build
    d = os.path.join(work, re.sub(r"[^A-Za-z0-9]+", "_", tag))
    os.makedirs(d, exist_ok=True)
    exe = os.path.join(d, "driver")
    t0 = time.time()
    cmd = [cc] + STRICT + flags + ["-I", work, "-I", RUNTIME, "-o", exe,
                                   os.path.join(work, "driver.c")]
    comp = run(cmd)
    res = {"tag": tag, "compile": comp, "cmd": cmd, "ctime": time.time() - t0}
    if comp.returncode != 0:
        return res
    t0 = time.time()
    try:
        res["run"] = run([exe, work], timeout=120)
    except subprocess.TimeoutExpired:
        res["run"] = None
    r = res["run"]
    if r is None or r.returncode not in (0, 1):
        # a crash or a hang: run each kernel alone to say which
        res["alone"] = {}
        for c in cases:
            try:
                res["alone"][c.name] = run([exe, work, c.name], timeout=30)
            except subprocess.TimeoutExpired:
                res["alone"][c.name] = None
    res["rtime"] = time.time() - t0
    res["movnt"] = movnt_functions(exe)
    return res


def report_build(build, res, cases):
    tag, cc, flags, expect = build
    comp = res["compile"]
    ok(comp.returncode == 0 and not comp.stderr.strip(),
       "%s: the driver with all %d kernels compiles (%s), no diagnostic (%.1f s)"
       % (tag, len(cases), " ".join(STRICT + flags), res["ctime"]),
       comp.stderr or "exit %d" % comp.returncode)
    if comp.returncode != 0:
        return
    r = res["run"]
    ok(r is not None and r.returncode in (0, 1) and not r.stderr,
       "%s: the driver runs to its end (%.1f s)" % (tag, res["rtime"]),
       "timed out" if r is None else "exit %d\n%s" % (r.returncode, r.stderr))
    lines = {}
    for line in (r.stdout if r else "").splitlines():
        name = line.split(" ", 1)[0]
        lines.setdefault(name, []).append(line)
    for c in cases:
        alone = res.get("alone", {})
        if c.name in alone:
            a = alone[c.name]
            lines[c.name] = a.stdout.splitlines() if a else []
            if a is None or a.returncode not in (0, 1):
                lines[c.name].append("%s run alone: %s" % (
                    c.name, "timed out" if a is None else "exit %d %s"
                    % (a.returncode, a.stderr.strip())))
        got = lines.get(c.name, [])
        mis = LINE // c.size
        bad = [l for l in got if not l.endswith(" ok")]
        ok(len(got) == mis and not bad,
           "%s: %s: output right at all %d misalignments, guards and inputs untouched"
           % (tag, c.describe(), mis),
           "\n".join(bad) if bad else "%d results of %d" % (len(got), mis))
    has = res["movnt"]
    if has is None:
        skip("%s: movnt in the streaming kernels" % tag, "objdump failed")
        return
    if expect == "wide":
        want = {c.name: True for c in cases if c.size >= 4}
    else:
        want = {c.name: expect == "all" or (expect == "on" and c.mode == "on")
                for c in cases}
    wrong = [n for n in sorted(want) if want[n] != (n in has)]
    what = {"all": "every kernel holds a movnt instruction",
            "none": "no kernel holds a movnt instruction",
            "on": "the --stream on kernels hold a movnt instruction, the auto ones none",
            "wide": "the %d kernels of a 32- or 64-bit output hold a movnt instruction"
                    % len(want)}
    ok(not wrong, "%s: %s (objdump -d)" % (tag, what[expect]),
       "wrong: " + ", ".join("%s (%s)" % (n, "has" if n in has else "has not")
                             for n in wrong))


# ---------------------------------------------------------------- generation checks

def gen(args, out):
    return run([GEN, "-o", out] + args)


def check_generation(cases, work):
    """Generate every kernel as its case asks, and check the banners;
    the same kernels without streaming must have no streaming stores."""
    bad_gen, bad_banner, bad_off = [], [], []
    for c in cases:
        out = os.path.join(work, c.name + ".c")
        r = gen(c.args() + ["--name", c.name], out)
        if r.returncode != 0:
            bad_gen.append("%s: exit %d: %s" % (c.describe(), r.returncode, r.stderr.strip()))
            continue
        with open(out) as f:
            text = f.read()
        banner = " ".join(text.split("/* Begin")[0].replace("*", " ").split())
        if c.mode == "on":
            want = "non-temporal stores), as --stream on asks, where the target has them"
        else:
            want = ("the data, %d bytes, pass the cache size, %d bytes"
                    % (c.data_bytes, 1024 if c.cache == "1K" else int(c.cache)))
        if want not in banner or "bc_stream_line_%s(" % c.out_dt not in text:
            bad_banner.append("%s: banner lacks '%s' or no bc_stream_line_%s"
                              % (c.name, want, c.out_dt))
        if c.mode == "auto" and "#if BC_STREAM && __STDC_HOSTED__" not in text:
            bad_banner.append("%s: auto streaming not under __STDC_HOSTED__" % c.name)
        if c.mode == "on" and "__STDC_HOSTED__" in text:
            bad_banner.append("%s: --stream on depends on __STDC_HOSTED__" % c.name)
        # the same kernel, not streaming
        for mode, cache in (("off", None), ("off", "1K"), ("default", None),
                            ("auto", "1G"), ("auto", str(c.data_bytes))):
            o = os.path.join(work, "off", c.name + ".c")
            r = gen(c.args(mode=mode, cache=cache) + ["--name", c.name], o)
            if r.returncode != 0:
                bad_off.append("%s --stream %s: exit %d: %s"
                               % (c.name, mode, r.returncode, r.stderr.strip()))
                continue
            with open(o) as f:
                t = f.read()
            if "bc_stream" in t or "non-temporal" in t:
                bad_off.append("%s with %s: streams" % (c.name, " ".join(
                    c.args(mode=mode, cache=cache)[:-len(c.operands)])))
        # one byte less cache than the data: auto streams, where the innermost
        # loop stays a loop
        if c.inner <= BLOCK_MAX:
            continue
        o = os.path.join(work, "off", c.name + ".c")
        r = gen(c.args(mode="auto", cache=str(c.data_bytes - 1)) + ["--name", c.name], o)
        if r.returncode != 0 or "bc_stream_line" not in open(o).read():
            bad_off.append("%s --stream auto --cache-size %d (data %d bytes): does not "
                           "stream" % (c.name, c.data_bytes - 1, c.data_bytes))
        # the same, tuned for a processor: only where its streaming stores pay
        for tune, streams in (("znver4", True), ("cascadelake", False)):
            r = gen(c.args(mode="auto", cache=str(c.data_bytes - 1))
                    + ["--tune", tune, "--name", c.name], o)
            t = open(o).read() if r.returncode == 0 else ""
            said = " ".join(t.replace("*", " ").split())
            if r.returncode != 0 or ("bc_stream_line" in t) != streams or (
                    not streams and "on cascadelake (--tune), streaming stores past the "
                    "cache are slower than plain ones" not in said):
                bad_off.append("%s --cache-size %d --tune %s: %s" % (
                    c.name, c.data_bytes - 1, tune,
                    "does not stream" if streams else "streams, or its banner does not say why not"))
    n_on = sum(c.mode == "on" for c in cases)
    ok(not bad_gen, "all %d kernels generate (%d --stream on, %d --stream auto "
       "--cache-size 1K or 64)" % (len(cases), n_on, len(cases) - n_on), "\n".join(bad_gen))
    ok(not bad_banner, "each banner says why it streams, each .c calls bc_stream_line "
       "of the output's dtype", "\n".join(bad_banner))
    ok(not bad_off, "the same %d kernels with --stream off, with the default cache size, "
       "with --cache-size 1G and with --cache-size at their data's bytes do not stream; a byte less, those "
       "whose innermost loop passes %d do, with --tune znver4 too, but with --tune cascadelake "
       "not, as their banners say" % (len(cases), BLOCK_MAX), "\n".join(bad_off))
    # Far past the cache, an innermost loop of at most 64 that is not a
    # multiple of a vector is written out as a block, which does not
    # stream (README): rows of 63 run faster as a block of ordinary
    # stores than as head, lines and tail.
    o = os.path.join(fresh(work), "big.c")
    big = ["--stream", "auto", "x=1000000,63", "y=1000000,1"]
    r = gen(big, o)
    text = open(o).read() if r.returncode == 0 else ""
    ok(r.returncode == 0 and "bc_stream_line" not in text and "written out" in text,
       "--stream auto writes x(1000000,63) + y(1000000,1), 508 MB of data, as a block, "
       "which does not stream",
       "bcastgen -o big.c %s: exit %d" % (" ".join(big), r.returncode))
    return not bad_gen


def check_freestanding_objects(cases, work):
    """The auto kernels alone, compiled freestanding: no movnt in the object;
    the --stream on kernels: some."""
    for mode in ("auto", "on"):
        sel = [c for c in cases if c.mode == mode]
        src = os.path.join(work, "fs_%s.c" % mode)
        obj = os.path.join(work, "fs_%s.o" % mode)
        with open(src, "w") as f:
            f.write("".join('#include "%s.c"\n' % c.name for c in sel))
        r = run(["gcc"] + STRICT + ["-O2", "-ffreestanding", "-c", "-I", work, "-I",
                                    RUNTIME, "-o", obj, src])
        if r.returncode != 0:
            ok(False, "-ffreestanding: the %s kernels compile alone" % mode, r.stderr)
            continue
        d = run(["objdump", "-d", "--no-show-raw-insn", obj])
        nm = run(["nm", obj])
        nmovnt = sum(1 for l in d.stdout.splitlines() if MOVNT.search(l + " "))
        defined = {l.split()[-1] for l in nm.stdout.splitlines() if " T " in l}
        missing = [c.name for c in sel if c.name not in defined]
        if mode == "auto":
            ok(d.returncode == 0 and nmovnt == 0 and not missing,
               "gcc -O2 -ffreestanding: the %d --stream auto kernels make an object with "
               "no movnt instruction (objdump -d; nm shows all %d)" % (len(sel), len(sel)),
               "%d movnt instructions; missing from nm: %s" % (nmovnt, missing))
        else:
            ok(d.returncode == 0 and nmovnt >= len(sel) and not missing,
               "gcc -O2 -ffreestanding: the %d --stream on kernels make an object with "
               "movnt instructions (%d)" % (len(sel), nmovnt),
               "%d movnt instructions; missing from nm: %s" % (nmovnt, missing))


# ---------------------------------------------------------------- misaligned output

MISALIGNED_MAIN = r"""/* misaligned.c: a streaming kernel called with its output OFF bytes
 * past a line boundary (argv[1]), which is not a multiple of its type's. */
#include <stdio.h>
#include <stdlib.h>
#include "ma.h"

static float x[1000], y[1000];
static union { double align; unsigned char b[4096 + 128]; } buf;

int main(int argc, char **argv)
{
	unsigned char *line = buf.b + (64 - (size_t)buf.b % 64) % 64;
	size_t off = argc > 1 ? (size_t)atoi(argv[1]) : 0;

	ma(x, y, (float *)(void *)(line + off));
	puts("returned");
	return 0;
}
"""


def check_misaligned(work):
    """An output not aligned to its type is the caller's error (C's
    undefined behaviour; the line stores fault): a debug build stops at
    BC_ASSERT instead, assert() in a hosted build, a trap in a
    freestanding one; under NDEBUG no check is compiled in."""
    d = os.path.join(work, "misaligned")
    os.makedirs(d, exist_ok=True)
    r = run([GEN, "-o", os.path.join(d, "ma.c"), "--stream", "on", "x=1000", "y=1000"])
    if r.returncode != 0:
        ok(False, "misaligned output: the kernel generates", r.stderr)
        return
    with open(os.path.join(d, "main.c"), "w") as f:
        f.write(MISALIGNED_MAIN)
    for cc in ("gcc", "clang"):
        if not have(cc):
            skip("%s: a misaligned output stops the debug build" % cc, cc + " not installed")
            continue
        for flags, how in (([], "assert"), (["-ffreestanding"], "trap"),
                           (["-DNDEBUG"], "none")):
            exe = os.path.join(d, "%s%s" % (cc, "".join(flags).replace("-", "_")))
            obj = exe + ".o"
            comp = run([cc] + STRICT + ["-O2"] + flags + ["-I", RUNTIME, "-c", "-o", obj,
                                                          os.path.join(d, "ma.c")])
            link = comp.returncode == 0 and run([cc, "-O2", "-I", d, "-o", exe,
                                                 os.path.join(d, "main.c"), obj])
            tag = "%s -O2 %s" % (cc, " ".join(flags) or "(no NDEBUG)")
            if comp.returncode != 0 or link.returncode != 0:
                ok(False, "%s: the misaligned-output program builds" % tag,
                   comp.stderr + (link.stderr if link else ""))
                continue
            aligned = run([exe, "0"])
            if how == "none":
                nm = run(["nm", obj])
                ok(aligned.returncode == 0 and "__assert" not in nm.stdout,
                   "%s: no alignment check is compiled in, and an aligned output "
                   "runs" % tag, nm.stdout + aligned.stderr)
                continue
            bad = [run([exe, str(off)]) for off in (1, 2, 3, 62)]
            if how == "assert":
                good = all(b.returncode == -signal.SIGABRT and
                           "must be aligned to its type" in b.stderr for b in bad)
            else:
                good = all(b.returncode in (-signal.SIGILL, -signal.SIGTRAP) and
                           "returned" not in b.stdout for b in bad)
            ok(aligned.returncode == 0 and good,
               "%s: an f32 output 1, 2, 3 or 62 bytes past a line stops at BC_ASSERT (%s), "
               "one aligned to its type runs" % (tag, "assert()" if how == "assert"
                                                  else "__builtin_trap()"),
               "\n".join("exit %d: %s" % (b.returncode, b.stderr.strip()) for b in bad))


# ---------------------------------------------------------------- errors

def check_errors(work):
    os.makedirs(os.path.join(work, "err"), exist_ok=True)

    def refused(args, what, pattern, status=1):
        out = os.path.join(fresh(work), "e.c")
        hdr = out[:-1] + "h"
        for p in (out, hdr):
            with open(p, "w") as f:
                f.write("old\n")
        r = gen(args, out)
        lines = r.stderr.splitlines()
        unchanged = all(open(p).read() == "old\n" for p in (out, hdr))
        leftovers = [n for n in os.listdir(os.path.dirname(out))
                     if n not in ("e.c", "e.h", "s.lua")]
        good = (r.returncode == status and len(lines) == 1 and not r.stdout
                and re.search(pattern, lines[0]) is not None and unchanged
                and not leftovers)
        ok(good, "%s: exit %d, one line: %s" % (what, status, lines[0] if lines else "?"),
           "bcastgen %s\nexit %d, stdout %r, stderr:\n%s\noutputs unchanged: %s, "
           "left over: %s" % (" ".join(args), r.returncode, r.stdout, r.stderr,
                               unchanged, leftovers))

    short = r"^bcastgen: error: cannot stream the output: .*whole 64-byte lines \((\d+) elements\)"
    for dt, inner in (("f32", 15), ("f64", 7), ("i8", 63), ("i16", 31), ("f16", 31)):
        m = LINE // np.dtype(DTYPES[dt][0]).itemsize
        refused(["--stream", "on", "x:%s=50,%d" % (dt, inner), "y:%s=%d" % (dt, inner)],
                "--stream on, %s, innermost loop of %d < a line of %d" % (dt, inner, m),
                short.replace(r"(\d+)", str(m)) + r".*runs %d times" % inner)
    refused(["--stream", "on", "--op", "less", "x=10,40", "y=40"],
            "--stream on, a comparison's u8 output, innermost loop of 40 < 64",
            short.replace(r"(\d+)", "64") + r".*runs 40 times")
    refused(["--stream", "on", "--axis", "1", "x=10,64,3", "y=64"],
            "--stream on, Paddle axis leaving an innermost loop of 3",
            short + r".*runs 3 times")
    refused(["--stream", "on", "--strategy", "unroll", "x=4,16"],
            "--stream on --strategy unroll",
            short + r".*--strategy unroll writes a statement per element")
    refused(["--stream", "on", "--strategy", "unroll", "x=64", "y="],
            "--stream on --strategy unroll, one loop of 64",
            short + r".*--strategy unroll writes a statement per element")
    for v in ("maybe", "ON", "", "1", "on ", "o"):
        refused(["--stream", v, "x=100,100"], "--stream '%s'" % v,
                r"^bcastgen: error: bad stream '%s': expected auto, on or off$" % re.escape(v))
    bad_cache = r"^bcastgen: error: bad cache size '%s': expected a number of bytes"
    for v in ("-1", "1X", "1k", "1.5M", "", "K", "+1", " 1", "0x10", "1 M", "1MB", "1KK"):
        refused(["--cache-size", v, "x=100,100"], "--cache-size '%s'" % v,
                bad_cache % re.escape(v))
    for v in ("0", "0K", "00", "1048577G", "1073741825M", "99999999999999999999",
              "18446744073709551616"):
        refused(["--cache-size", v, "x=100,100"], "--cache-size '%s'" % v,
                r"^bcastgen: error: cache size %s is out of range: it must be from 1 byte "
                r"to 1048576G$" % re.escape(v))
    r = gen(["--cache-size", "1048576G", "x=100,100"], os.path.join(fresh(work), "e.c"))
    ok(r.returncode == 0, "--cache-size 1048576G, the largest, is accepted", r.stderr)
    # in a spec
    spec = os.path.join(work, "err", "s.lua")
    for field, v, pat in (("stream", '"sometimes"', r"field 'stream': bad stream 'sometimes'"),
                          ("cache_size", '"1Q"', r"field 'cache_size': bad cache size '1Q'"),
                          ("cache_size", '"0"', r"field 'cache_size': cache size 0 is out")):
        with open(spec, "w") as f:
            f.write('kernel "k" { %s = %s, "x=8,100", "b=100" }\n' % (field, v))
        refused([spec], "spec field %s = %s" % (field, v),
                r"^(.*/)?s\.lua:1: error: kernel 'k': " + pat)
    os.remove(spec)
    with open(spec, "w") as f:
        f.write('kernel "k" { stream = "on", "x=8,100", "b=100" }\n')
    out = os.path.join(fresh(work), "e.c")
    r = gen([spec], out)
    ok(r.returncode == 0 and "bc_stream_line_f32(" in open(out).read(),
       "spec field stream = \"on\" streams", r.stderr)
    os.remove(spec)


# ---------------------------------------------------------------- main

def main():
    t_start = time.time()
    work = tempfile.mkdtemp(prefix="bcastgen-stream.")
    keep = bool(os.environ.get("BCAST_STREAM_KEEP"))
    os.makedirs(os.path.join(work, "off"))
    try:
        rng = random.Random(SEED)
        nrng = np.random.default_rng(SEED)
        cases = build_corpus(rng)
        for c in cases:
            make_data(c, nrng)
            with open(os.path.join(work, c.name + ".bin"), "wb") as f:
                for a in c.arrays:
                    f.write(np.ascontiguousarray(a).tobytes())
                f.write(c.expect.tobytes())
        blist = builds()
        nrun = sum(1 for b in blist if not b[3].startswith("skip"))
        # the number of tests is known at the end: the plan comes last
        print("# seed %d: %d kernels, %d builds; scratch %s" % (SEED, len(cases), nrun, work))
        if not check_generation(cases, work):
            TAP.done()
            return 1
        write_driver(cases, os.path.join(work, "driver.c"))
        check_freestanding_objects(cases, work)
        runnable = [b for b in blist if not b[3].startswith("skip")]
        with concurrent.futures.ThreadPoolExecutor(max(1, JOBS)) as ex:
            futs = [ex.submit(do_build, b, cases, work) for b in runnable]
            for b in blist:
                if b[3].startswith("skip"):
                    skip("%s: all kernels" % b[0], b[3][6:])
                    continue
                res = futs[runnable.index(b)].result()
                report_build(b, res, cases)
        check_misaligned(work)
        check_errors(work)
        status = TAP.done()
        print("# %d kernels, %d builds, %.1f s" % (len(cases), nrun, time.time() - t_start))
        return status
    finally:
        if keep:
            print("# kept %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
