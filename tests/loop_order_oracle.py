"""NumPy differential test of bcastgen --loop-order: the plan's loops run
in every order give the result NumPy gives.

For each case below (shapes whose loops do not merge into one, in place,
expressions with values computed once in outer loops, integer and mixed
operand dtypes, a comparison, where, an unrolled kernel, an empty result)
the plan's loop count and trip counts are read from the error that a
wrong --loop-order gets (exit 1, no file written). Then one kernel is
generated for the planner's order and one for every permutation of the
loops, each compiled with strict warnings at -O2 and again with ASan +
UBSan, and run by a small harness on exact-size heap buffers (const
inputs must come back unchanged). Every output is compared with NumPy
bit for bit (any NaN equals any NaN; the case with exp compares within
4 ULP, its values chosen so that nothing cancels) and must be the same
bytes as the planner's order gives in the same build, but for the sign
and payload of NaNs, which C does not fix.

Usage: loop_order_oracle.py GEN        (run with /usr/bin/python3)
Env:   BCAST_LOOP_ORDER_KEEP  keep the scratch directory if set (path printed)
       BCAST_LOOP_ORDER_JOBS  parallel jobs (default: the CPUs, at most 8)
       BCAST_LOOP_ORDER_CC    the C compiler (default gcc)

TAP: for each case one test that a wrong --loop-order is refused and
names the loops, then one test per kernel (the planner's order first).
"""
import concurrent.futures
import itertools
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernels_oracle as ko  # noqa: E402  (dtype table, value pools, TAP, run)

DTYPES = ko.DTYPES

# The two builds: (tag, kernel flags, harness flags).
BUILDS = [
    ("-O2", ["-std=c99", "-O2", "-Wall", "-Wextra", "-Wpedantic", "-Wconversion", "-Werror"],
     ["-std=c99", "-O1", "-Wall", "-Wextra", "-Werror"]),
    ("asan+ubsan", ["-std=c99", "-O1", "-g", "-Wall", "-Werror", "-fsanitize=address,undefined",
                    "-fno-sanitize-recover=all"],
     ["-std=c99", "-O1", "-g", "-Wall", "-Werror", "-fsanitize=address,undefined",
      "-fno-sanitize-recover=all"]),
]


def u16(v):
    return np.uint16(v)


# name, bcastgen options, operands (name, stored dtype or None, shape),
# kernel dtype, NumPy on the inputs converted to it, values ("pos":
# positive and moderate), ULPs allowed (0: bit for bit).
CASES = [
    ("bias4", ["--op", "add"], [("x", None, (8, 6, 5, 7)), ("b", None, (6, 1, 7))],
     "f32", lambda x, b: x + b, None, 0),
    ("row3", ["--op", "sub"], [("x", None, (4, 3, 5)), ("y", None, (3, 1))],
     "f64", lambda x, y: x - y, None, 0),
    ("inplace", ["--op", "mul", "--inplace"], [("x", None, (6, 5, 7)), ("b", None, (5, 1))],
     "f32", lambda x, b: x * b, None, 0),
    ("inplace_expr", ["--inplace", "--expr", "x*b - max(b, s)"],
     [("x", None, (4, 6, 5)), ("b", None, (6, 1)), ("s", None, ())],
     "f32", lambda x, b, s: x * b - np.maximum(b, s), None, 0),
    ("hoist", ["--expr", "x*(b - s) + max(b, s)*s"],
     [("x", None, (8, 6, 5, 7)), ("b", None, (6, 1, 1)), ("s", None, ())],
     "f32", lambda x, b, s: x * (b - s) + np.maximum(b, s) * s, None, 0),
    ("hoist_exp", ["--expr", "x*exp(b) + s"],
     [("x", None, (8, 6, 5, 7)), ("b", None, (6, 1, 1)), ("s", None, ())],
     "f32", lambda x, b, s: x * np.exp(b) + s, "pos", 4),
    ("ints3", ["--op", "add"],
     [("x", None, (5, 4, 3)), ("y", None, (5, 1, 3)), ("z", None, (4, 1))],
     "i32", lambda x, y, z: x + y + z, None, 0),
    ("mixed_ints", ["--op", "sub"], [("x", "i32", (6, 4, 5)), ("b", "i8", (4, 1))],
     "i16", lambda x, b: x - b, None, 0),
    ("mixed_floats", ["--op", "max", "--out-dtype", "f64"],
     [("x", "i16", (5, 4, 2)), ("b", "u8", (5, 1, 2))],
     "f32", lambda x, b: np.maximum(x, b), None, 0),
    ("compare", ["--op", "lt"], [("x", None, (7, 4, 6)), ("y", None, (4, 1))],
     "f32", lambda x, y: x < y, None, 0),
    ("where", ["--expr", "where(x < b, x, b*s)"],
     [("x", None, (3, 4, 6)), ("b", None, (4, 1)), ("s", None, ())],
     "f32", lambda x, b, s: np.where(x < b, x, b * s), None, 0),
    ("bits", ["--expr", "(x << 3) ^ (b & 255)"], [("x", None, (6, 2, 5)), ("b", None, (6, 1, 5))],
     "u16", lambda x, b: np.left_shift(x, u16(3)) ^ (b & u16(255)), None, 0),
    ("unroll", ["--op", "add", "--strategy", "unroll", "--unroll-limit", "64"],
     [("x", None, (2, 1, 4)), ("y", None, (3, 1))], "f32", lambda x, y: x + y, None, 0),
    ("empty", ["--op", "add"], [("x", None, (3, 0, 4)), ("y", None, (4,))],
     "f32", lambda x, y: x + y, None, 0),
]


def prod(shape):
    n = 1
    for d in shape:
        n *= d
    return n


class Case:
    def __init__(self, spec, index):
        (self.name, self.opts, ops, self.t, self.fn, self.values, self.ulps) = spec
        self.ops = [{"name": n, "dt": d or self.t, "given": d, "shape": tuple(s)}
                    for n, d, s in ops]
        self.inplace = "--inplace" in self.opts
        self.strategy = [] if "--strategy" in self.opts else ["--strategy", "loops"]
        self.result = tuple(np.broadcast_shapes(*[o["shape"] for o in self.ops]))
        self.seed = 20240801 + index
        self.kernels = []           # [{"name", "order" (None: the planner's), ...}]

    def operand_args(self):
        return ["%s%s=%s" % (o["name"], ":" + o["given"] if o["given"] else "",
                             ",".join(str(d) for d in o["shape"])) for o in self.ops]

    def command(self, gen, path, order):
        args = [gen, "-o", path, "--dtype", self.t] + self.strategy + self.opts
        if order is not None:
            args += ["--loop-order", ",".join(str(k) for k in order)]
        return args + self.operand_args()


def make_inputs(c):
    g = np.random.default_rng(c.seed)
    arrs = []
    for o in c.ops:
        n = prod(o["shape"])
        if c.values == "pos":
            lo, hi = (-2.0, 2.0) if o["name"] == "b" else (0.5, 4.0)
            a = g.uniform(lo, hi, n).astype(DTYPES[o["dt"]][0])
        elif ko.is_float(o["dt"]):
            a = ko.float_values(g, o["dt"], n, None)
        else:
            a = ko.int_values(g, o["dt"], n, [])
        arrs.append(np.ascontiguousarray(a).reshape(o["shape"]))
    return arrs


def reference(c, arrs):
    t = DTYPES[c.t][0]
    with np.errstate(all="ignore"):
        xs = [a.astype(t) for a in arrs]
        r = np.asarray(c.fn(*xs))
        c.out_dt = (c.opts[c.opts.index("--out-dtype") + 1] if "--out-dtype" in c.opts
                    else "u8" if r.dtype == np.bool_ else c.t)
        out = DTYPES[c.out_dt][0]
        return np.ascontiguousarray(np.broadcast_to(r, c.result)).astype(out)


def loops_of(c, gen, scratch):
    """Ask bcastgen for a wrong loop order; return (ok, diags, loop count,
    trip counts) from its refusal."""
    path = os.path.join(scratch, "refused_%s.c" % c.name)
    args = c.command(gen, path, [99])
    rc, out, err = ko.run(args, timeout=60)
    cmd = shlex.join(args)
    m = re.search(r"the plan's (\d+) loops? once, outermost first"
                  r"(?:; their trip counts are ([0-9, ]+))?", err)
    diags = []
    if rc != 1:
        diags.append("%s: exit %s, expected 1 (%s)" % (cmd, rc, ko.first_lines(err)))
    if not m:
        diags.append("%s: no loop count in the message: %s" % (cmd, ko.first_lines(err)))
        return False, diags, 0, []
    if os.path.exists(path) or os.path.exists(path[:-2] + ".h"):
        diags.append("%s: wrote a file although it failed" % cmd)
    n = int(m.group(1))
    trips = [int(v) for v in m.group(2).split(",")] if m.group(2) else []
    if len(trips) != n:
        diags.append("%s: %d loops but trip counts %s" % (cmd, n, trips))
    return not diags, diags, n, trips


HARNESS = r"""
static void *xalloc(long n)
{
	void *p = malloc(n > 0 ? (size_t)n : 1);

	if (!p) {
		perror("malloc");
		exit(3);
	}
	return p;
}

int main(int argc, char **argv)
{
	void *orig[NIN], *p[NIN + 1];
	FILE *f;
	int j, k, bad = 0;

	if (argc != 4)
		return 2;
	k = atoi(argv[3]);
	if (!(f = fopen(argv[1], "rb")))
		return 2;
	for (j = 0; j < NIN; j++) {
		orig[j] = xalloc(in_bytes[j]);
		p[j] = xalloc(in_bytes[j]);
		if (fread(orig[j], 1, (size_t)in_bytes[j], f) != (size_t)in_bytes[j])
			return 2;
		memcpy(p[j], orig[j], (size_t)in_bytes[j]);
	}
	fclose(f);
	p[NIN] = INPLACE ? p[0] : xalloc(out_bytes);
	if (!INPLACE)
		memset(p[NIN], 0xa5, (size_t)out_bytes);
	switch (k) {
CALLS
	default:
		return 2;
	}
	if (!(f = fopen(argv[2], "wb"))
	    || fwrite(p[NIN], 1, (size_t)out_bytes, f) != (size_t)out_bytes || fclose(f))
		return 2;
	for (j = INPLACE; j < NIN; j++)
		if (memcmp(orig[j], p[j], (size_t)in_bytes[j])) {
			printf("M %d\n", j);
			bad = 1;
		}
	for (j = 0; j < NIN; j++) {
		free(orig[j]);
		free(p[j]);
	}
	if (!INPLACE)
		free(p[NIN]);
	return bad ? 4 : 0;
}
"""


def write_harness(c, path, kernels):
    nin = len(c.ops)
    lines = ["#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>", ""]
    lines += ['#include "%s.h"' % k["name"] for k in kernels]
    lines += ["", "#define NIN %d" % nin, "#define INPLACE %d" % int(c.inplace),
              "static const long in_bytes[NIN] = {%s};" % ", ".join(
                  "%dL" % a.nbytes for a in c.arrs),
              "static const long out_bytes = %dL;" % (prod(c.result) * c.want.itemsize)]
    nargs = nin if c.inplace else nin + 1
    calls = []
    for k in kernels:
        calls.append("\tcase %d:\n\t\t%s(%s);\n\t\tbreak;" % (
            k["index"], k["name"], ", ".join("p[%d]" % j for j in range(nargs))))
    lines.append(HARNESS.replace("CALLS", "\n".join(calls)))
    with open(path, "w") as f:
        f.write("\n".join(lines))


def compile_case(cc, flags, hflags, incs, c, kdir, odir):
    """Compile C's kernels (one gcc run, one object each) and its harness
    into ODIR. Set each kernel's error for the build; return the harness
    path or None."""
    os.makedirs(odir, exist_ok=True)
    todo = [k for k in c.kernels if not k.get("gen_error")]
    if not todo:
        return None
    rc, out, err = ko.run([cc] + flags + incs + ["-c"] +
                          [os.path.join(kdir, k["name"] + ".c") for k in todo],
                          cwd=odir, timeout=600)
    built = []
    for k in todo:
        mine = [ln.strip() for ln in err.splitlines()
                if k["name"] + ".c:" in ln or k["name"] + ".h:" in ln]
        if not os.path.exists(os.path.join(odir, k["name"] + ".o")) or mine:
            k["err"][odir] = "does not compile cleanly (%s): %s" % (
                " ".join(flags), " | ".join(mine[:3])[:600] or ko.first_lines(err))
        else:
            built.append(k)
    if not built:
        return None
    hsrc = os.path.join(odir, "harness.c")
    exe = os.path.join(odir, "harness")
    write_harness(c, hsrc, built)
    rc, out, err = ko.run([cc] + hflags + incs + ["-o", exe, hsrc] +
                          [os.path.join(odir, k["name"] + ".o") for k in built] + ["-lm"],
                          cwd=odir, timeout=600)
    if rc != 0:
        for k in built:
            k["err"][odir] = "harness does not build: %s" % ko.first_lines(err, 3, 600)
        return None
    return exe


def run_kernel(exe, c, k, odir, infile):
    """Run kernel K of case C; set its output bytes or its error for ODIR."""
    outfile = os.path.join(odir, k["name"] + ".out")
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0", UBSAN_OPTIONS="print_stacktrace=1")
    try:
        p = subprocess.run([exe, infile, outfile, str(k["index"])], capture_output=True,
                           timeout=120, env=env)
        rc, out, err = (p.returncode, p.stdout.decode(errors="replace"),
                        p.stderr.decode(errors="replace"))
    except subprocess.TimeoutExpired:
        rc, out, err = "timeout", "", "timed out after 120 s"
    if rc != 0 or err.strip():
        msg = [ln.strip() for ln in err.splitlines()
               if "runtime error" in ln or "ERROR: AddressSanitizer" in ln or "SUMMARY" in ln]
        mod = [c.ops[int(ln.split()[1])]["name"] for ln in out.splitlines()
               if ln.startswith("M ")]
        if mod:
            k["err"][odir] = "the kernel changed its const input %s" % ", ".join(mod)
        else:
            k["err"][odir] = "harness exit %s: %s" % (
                rc, (" | ".join(msg[:3]) or ko.first_lines(err, 3))[:600])
        return
    with open(outfile, "rb") as f:
        k["out"][odir] = f.read()


def first_difference(c, want, got, bad):
    flat = int(np.flatnonzero(bad.reshape(-1))[0])
    idx = np.unravel_index(flat, c.result) if c.result else ()
    ins = []
    for a, o in zip(c.arrs, c.ops):
        v = np.broadcast_to(a, c.result)[idx]
        ins.append("%s=%s" % (o["name"], ko.fmt(v, o["dt"])))
    return "%d of %d elements differ; first at [%s]: %s: expected %s, got %s" % (
        int(bad.sum()), bad.size, ",".join(str(int(i)) for i in idx), " ".join(ins),
        ko.fmt(want[idx], c.out_dt), ko.fmt(got[idx], c.out_dt))


def compare(c, data):
    """Return None if DATA, the kernel's output bytes, is NumPy's result."""
    want = c.want
    if len(data) != want.nbytes:
        return "%d bytes of output, expected %d" % (len(data), want.nbytes)
    got = np.frombuffer(data, dtype=want.dtype).reshape(c.result)
    if not ko.is_float(c.out_dt):
        bad = want != got
    else:
        ut = np.uint32 if c.out_dt == "f32" else np.uint64
        wn, gn = np.isnan(want), np.isnan(got)
        bad = (want.view(ut) != got.view(ut)) & ~(wn & gn)
        if c.ulps and bad.any():
            with np.errstate(all="ignore"):
                near = np.abs(want.astype(np.float64) - got.astype(np.float64)) \
                    <= c.ulps * np.spacing(np.abs(want)).astype(np.float64)
            bad &= ~(near & np.isfinite(want) & np.isfinite(got))
    if not bad.any():
        return None
    return first_difference(c, want, got, bad)


def same_but_nans(c, a, b):
    """Return None if outputs A and B differ only in NaNs' sign or payload
    (C leaves them open: the compiler may swap the operands of a + b),
    else what differs."""
    if len(a) != len(b):
        return "%d bytes, the planner's %d" % (len(b), len(a))
    x = np.frombuffer(a, dtype=c.want.dtype)
    y = np.frombuffer(b, dtype=c.want.dtype)
    bad = x.view(np.uint8).reshape(x.size, -1) != y.view(np.uint8).reshape(y.size, -1)
    bad = bad.any(axis=1)
    if ko.is_float(c.out_dt):
        bad &= ~(np.isnan(x) & np.isnan(y))
    if not bad.any():
        return None
    i = int(np.flatnonzero(bad)[0])
    return "%d elements; first at flat %d: planner's %s, this %s" % (
        int(bad.sum()), i, ko.fmt(x[i], c.out_dt), ko.fmt(y[i], c.out_dt))


def main():
    gen = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/bcastgen")
    cc = os.environ.get("BCAST_LOOP_ORDER_CC") or "gcc"
    jobs = int(os.environ.get("BCAST_LOOP_ORDER_JOBS") or min(8, os.cpu_count() or 2))
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    incs = ["-I", os.path.join(top, "runtime")]
    t0 = time.time()
    scratch = tempfile.mkdtemp(prefix="bcastgen-loop-order.")
    if os.environ.get("BCAST_LOOP_ORDER_KEEP"):
        print("# scratch directory kept: %s" % scratch)
    try:
        cases = [Case(spec, i) for i, spec in enumerate(CASES)]
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(jobs, 1))
        refusals = list(pool.map(lambda c: loops_of(c, gen, scratch), cases))
        for c, (ok, diags, n, trips) in zip(cases, refusals):
            c.nloops, c.trips = n, trips
            orders = [None] + list(itertools.permutations(range(n))) if ok else []
            for i, order in enumerate(orders):
                suffix = "plan" if order is None else "p" + "".join(str(k) for k in order)
                c.kernels.append({"name": "%s_%s" % (c.name, suffix), "order": order,
                                  "index": i, "err": {}, "out": {}})
        tap = ko.Tap(len(cases) + sum(len(c.kernels) for c in cases))
        print("# %d cases, %d kernels, %s, bcastgen %s" % (
            len(cases), sum(len(c.kernels) for c in cases), cc, gen), flush=True)
        for c, (ok, diags, n, trips) in zip(cases, refusals):
            tap.result(ok, "%s: a wrong --loop-order is refused: %d loop%s (%s)" % (
                c.name, n, "" if n == 1 else "s", ",".join(str(t) for t in trips)), diags)

        kdir = os.path.join(scratch, "k")
        os.makedirs(kdir)
        for c in cases:
            c.arrs = make_inputs(c)
            c.want = reference(c, c.arrs)
            c.infile = os.path.join(scratch, c.name + ".in")
            with open(c.infile, "wb") as f:
                for a in c.arrs:
                    f.write(a.tobytes())

        def generate(ck):
            c, k = ck
            args = c.command(gen, os.path.join(kdir, k["name"] + ".c"), k["order"])
            k["cmd"] = shlex.join(args)
            rc, out, err = ko.run(args, timeout=60)
            if rc != 0:
                k["gen_error"] = "bcastgen exit %s: %s" % (rc, ko.first_lines(err, 3))
        all_kernels = [(c, k) for c in cases for k in c.kernels]
        list(pool.map(generate, all_kernels))

        def build_and_run(cb):
            c, (tag, flags, hflags) = cb
            odir = os.path.join(scratch, "%s-%s" % (c.name, "san" if "asan" in tag else "o2"))
            exe = compile_case(cc, flags, hflags, incs + ["-I", kdir], c, kdir, odir)
            if exe:
                for k in c.kernels:
                    if not k.get("gen_error") and odir not in k["err"]:
                        run_kernel(exe, c, k, odir, c.infile)
            return c, tag, odir
        done = list(pool.map(build_and_run, [(c, b) for b in BUILDS for c in cases]))
        odirs = {(c.name, tag): odir for c, tag, odir in done}

        for c in cases:
            plan = c.kernels[0] if c.kernels else None
            for k in c.kernels:
                diags = []
                if k.get("gen_error"):
                    diags.append(k["gen_error"])
                for tag, _, _ in BUILDS if not diags else []:
                    odir = odirs[(c.name, tag)]
                    if odir in k["err"]:
                        diags.append("%s: %s" % (tag, k["err"][odir]))
                        continue
                    if odir not in k["out"]:
                        diags.append("%s: not run" % tag)
                        continue
                    d = compare(c, k["out"][odir])
                    if d:
                        diags.append("%s: %s" % (tag, d))
                    if k is not plan:
                        p = plan["out"].get(odir)
                        if p is None:
                            diags.append("%s: no output of the planner's order to compare" % tag)
                        elif p != k["out"][odir]:
                            d = same_but_nans(c, p, k["out"][odir])
                            if d:
                                diags.append("%s: output bytes differ from the planner's "
                                             "order: %s" % (tag, d))
                if diags:
                    diags.insert(0, k.get("cmd", "(not generated)"))
                if k["order"] is None:
                    what = "the planner's order (%s)" % ",".join(str(t) for t in c.trips)
                else:
                    what = "--loop-order %s (loops %s)" % (
                        ",".join(str(o) for o in k["order"]),
                        ",".join(str(c.trips[o]) for o in k["order"]))
                tap.result(not diags, "%s: %s agrees with NumPy%s%s" % (
                    c.name, what, " within %d ULP" % c.ulps if c.ulps else "",
                    "" if k is plan else " and the planner's order"), diags, show=6)
        print("# %.1f s" % (time.time() - t0))
        pool.shutdown()
    finally:
        if not os.environ.get("BCAST_LOOP_ORDER_KEEP"):
            shutil.rmtree(scratch, ignore_errors=True)
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
