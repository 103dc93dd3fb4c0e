"""NumPy differential test of the kernels made with --parallel.

With --parallel (spec field parallel = true), where the target row's
parallel_min (--target list, column parallel: 65536 on generic and the
x86-64 rows, '-' on the firmware rows, which have one core) is at most
the result's element count and the plan has an outermost loop around
another loop (strategy loops or block), or one loop that splits into 64
equal chunks or more of whole vectors (lines where it streams, f16 lines
where it converts them; the banner says so), the kernel's body moves into
`static void NAME_part(size_t share, ...)`, the body as it was but for
the outermost loop, which runs `share` times; NAME runs it under
`#if BC_PARALLEL` (runtime/bc.h: _OPENMP defined, BC_NO_PARALLEL not) in
`#pragma omp parallel`, each thread calling the part on its contiguous
share of the outermost loop's iterations (bc_share) with the pointers
moved there, and `#else` calls the part once on all of them. Otherwise
the kernel is the one made without --parallel but for its banner, which
says "Not parallel, though --parallel asks: ..." (one core, fewer
elements than the row's parallel_min, no outermost loop around another).

A fixed list of kernels (CASES) covers: a bias, a row, a column and an
outer product broadcast; outermost loops of 2, 3, 5, 7, 11, 13 iterations
(not divisible by 2 or 3, fewer than a thread count or just more); in
place; --stream on and --stream auto past a 1K cache (a NaN-propagating
maximum); f16 on x86-64-v3 (f16 lines); --strategy block inside a loop;
i32 floor_divide, u8 left_shift; a fused --expr of four operands broadcast
four ways; a 4-D kernel with --loop-order; where with a u8 condition; a
result of exactly 65536 elements; and kernels that must not be parallel:
65535 and 10000 elements, one loop of a prime 65537, one loop around a
block, cortex-m4f, --strategy unroll; one loop split into chunks: an
add, a scalar, in place, --stream on and f16 lines. For each, the generated .c and --explain must show the
decision: the part function, its outermost loop to `share`, the pragma,
bc_share of the outermost loop's trip count, each pointer moved by its
stride in that loop (the banner's loop table), the part function's body
the same as the kernel made without --parallel; or the banner's and
--explain's reason and a kernel the same as without --parallel. Made
without --parallel, every kernel's .c, .h and --explain hold no `_part`,
no `omp` and no word 'parallel'. A spec with parallel = true on some
kernels makes the part functions of those alone.

BC_PARALLEL must be 1 in a compile of bc.h with gcc or clang -fopenmp, 0
without -fopenmp or with -DBC_NO_PARALLEL. The kernels are compiled as
one translation unit, with their driver, by gcc -std=c99 -O2 -Wall
-Wextra -Wpedantic -Wconversion -Werror with and without -fopenmp, and by
clang with -fopenmp (where clang is installed and links an OpenMP program:
Debian's libomp-dev; else a TAP skip says why). Each OpenMP build runs
with OMP_NUM_THREADS=1, 2 and 3, the build without OpenMP once (its
driver must print BC_PARALLEL 0, the others 1 and the thread count).
Every buffer starts one element past a 64-byte boundary between 64 guard
bytes before and after it that must stay untouched, the output is filled
with that pattern first (an element no thread writes shows), and the
inputs must come back unchanged. A kernel that crashes (or hangs) the
driver fails, and the driver starts again after it. Every output is compared with NumPy 1.24
bit for bit, as tests/kernels_oracle.py does: except that where NumPy's
result is a NaN made by arithmetic on two NaNs (add, subtract, multiply,
divide, the expression) any NaN equals any NaN; each build's runs must
write the same bytes at every thread count, and the builds the same
bytes as each other wherever NumPy's result is defined bit for bit.

ThreadSanitizer: the parallel kernels and the driver are built with
clang -fsanitize=thread -fopenmp -O1 -g and run with 2 and 3 threads
(TSAN_OPTIONS=ignore_noninstrumented_modules=1: LLVM's libomp loads its
TSan tool, libarcher, which tells TSan of OpenMP's synchronisation; the
option keeps TSan from reporting the uninstrumented libomp itself;
halt_on_error=1: a kernel with a race stops the driver, which starts
again after it); no TSan report may appear and the outputs must be
NumPy's. TSan sees a race only between accesses within its history of
each thread's recent ones: shares that overlap by one row of the bias
kernel (200704 floats, written by one thread long after the other) go
unreported, and make the run very slow (a run times out at 60 s; a
passing one takes a second); those of the smaller rows are reported, and
the in-place kernel's output shows an overlap too. First a
small OpenMP program of the same shape must run without a report and
one with a data race must be reported, or the TSan tests are skipped with
what went wrong: gcc's libgomp is not instrumented and makes false
reports (the end of a parallel region is not seen as synchronisation),
so gcc is tried only where clang cannot be used.

Usage: parallel_oracle.py GEN        (run with /usr/bin/python3)
Env:   BCAST_PARALLEL_RUNTIME  the runtime directory (bc.h) to compile with
                               instead of runtime/: a copy whose bc_share
                               loses or overlaps iterations must fail (the
                               comparisons and TSan)
       BCAST_PARALLEL_FILTER   a shell command each generated --parallel
                               .c is passed through (stdin to stdout) after
                               the generation checks and before it is
                               compiled: a hand-broken kernel, such as
                               "sed 's/bc_share(\\([0-9]*\\),/bc_share(\\1 - 1,/'",
                               must fail
       BCAST_PARALLEL_SEED     the inputs' seed (default 20250601)
       BCAST_PARALLEL_JOBS     builds compiled at once (default 2)
       BCAST_PARALLEL_KEEP     keep the scratch directory if set (path printed)
"""
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

from tap import Tap

GEN = os.path.abspath(sys.argv[1])
TESTS = os.path.dirname(os.path.abspath(__file__))
RUNTIME = os.path.abspath(os.environ.get("BCAST_PARALLEL_RUNTIME") or
                          os.path.join(os.path.dirname(TESTS), "runtime"))
FILTER = os.environ.get("BCAST_PARALLEL_FILTER")
SEED = int(os.environ.get("BCAST_PARALLEL_SEED", "20250601"))
JOBS = int(os.environ.get("BCAST_PARALLEL_JOBS", "2"))
PARALLEL_MIN = 65536        # --target list's parallel on generic and x86-64 rows
THREADS = (1, 2, 3)         # OMP_NUM_THREADS of each OpenMP build's runs
TSAN_THREADS = (2, 3)

DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i32": np.int32,
          "u8": np.uint8}
UINT = {np.dtype(np.float16): np.uint16, np.dtype(np.float32): np.uint32,
        np.dtype(np.float64): np.uint64}

TAP = Tap()
ok, skip = TAP.ok, TAP.skip


def run(cmd, cwd=None, timeout=300, env=None, shell=False, stdin=None):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=env, shell=shell, input=stdin)


# ---------------------------------------------------------------- references

def nan2(a, b):
    """Where arithmetic on a and b meets two NaNs: which one comes out is
    the compiler's choice, so any NaN equals any NaN there."""
    return np.isnan(a) & np.isnan(b)


def arith(f):
    return lambda d: (f(d["x"], d["y"]), nan2(d["x"], d["y"]))


def exact(f):
    return lambda d: (f(d), None)


def ref_expr(d):
    """max(x*w + b, 0) * c in f32, NumPy's maximum (NaN-propagating)."""
    x, w, b, c = d["x"], d["w"], d["b"], d["c"]
    xw = x * w
    s = xw + b
    m = np.maximum(s, np.float32(0))
    return m * c, nan2(x, w) | nan2(xw, b) | nan2(m, c)


# ---------------------------------------------------------------- cases

class Case:
    """One kernel: bcastgen's words, NumPy's result and the plan's
    decision: extent, the outermost loop's trip count where the kernel is
    parallel; why, the reason it is not ('small', 'one_loop' or
    'one_core'), where not."""

    def __init__(self, what, args, ref, extent=None, why=None, inplace=False, chunk=None):
        assert (extent is None) != (why is None)
        self.what, self.args, self.ref = what, list(args), ref
        self.extent, self.why, self.inplace = extent, why, inplace
        self.chunk = chunk
        self.dtype = "f32"
        if "--dtype" in args:
            self.dtype = args[args.index("--dtype") + 1]
        self.operands = []
        for w in args:
            m = re.match(r"^(\w+)(?::(\w+))?=([\d,]*)$", w)
            if m:
                sh = [int(s) for s in m.group(3).split(",")] if m.group(3) else []
                self.operands.append((m.group(1), m.group(2) or self.dtype, sh))
        self.name = None

    @property
    def parallel(self):
        return self.extent is not None

    def describe(self):
        return "%s: %s" % (self.name, self.what)

    def decision(self):
        if self.parallel:
            return "parallel: the threads share i0's %d iterations" % self.extent
        return "not parallel: %s" % WHY_SHORT[self.why]


WHY_SHORT = {"small": "fewer elements than 65536", "one_loop": "no loop around another",
             "one_core": "one core"}

CASES = [
    Case("f32 bias x(8,64,56,56) + b(64,1,1)", ["x=8,64,56,56", "b=64,1,1"],
         lambda d: (d["x"] + d["b"], nan2(d["x"], d["b"])), extent=8),
    Case("row x(512,1024) + y(1024)", ["x=512,1024", "y=1024"], arith(np.add), extent=512),
    Case("column x(1024,1) - y(1024,256)", ["--op", "subtract", "x=1024,1", "y=1024,256"],
         arith(np.subtract), extent=1024),
    Case("outer product x(300,1) * y(1,300)", ["--op", "multiply", "x=300,1", "y=1,300"],
         arith(np.multiply), extent=300),
    Case("2 rows x(2,40000) + y(40000): fewer than 3 threads",
         ["x=2,40000", "y=40000"], arith(np.add), extent=2),
    Case("3 rows x(3,40000) * y(40000)", ["--op", "multiply", "x=3,40000", "y=40000"],
         arith(np.multiply), extent=3),
    Case("5 rows, f64 divide x(5,13109) / y(13109)",
         ["--op", "divide", "x:f64=5,13109", "y:f64=13109"], arith(np.divide), extent=5),
    Case("minimum x(7,11,1001), y(11,1): 7 outer iterations",
         ["--op", "minimum", "x=7,11,1001", "y=11,1"],
         exact(lambda d: np.minimum(d["x"], d["y"])), extent=7),
    Case("--inplace multiply x(13,64,97) *= y(64,1)",
         ["--op", "multiply", "--inplace", "x=13,64,97", "y=64,1"], arith(np.multiply),
         extent=13, inplace=True),
    Case("--stream on, add x(5,30011) + y(30011)",
         ["--stream", "on", "x=5,30011", "y=30011"], arith(np.add), extent=5),
    Case("--stream auto --cache-size 1K, maximum x(7,20011), y(20011) (NaNs propagate)",
         ["--op", "maximum", "--stream", "auto", "--cache-size", "1K", "x=7,20011",
          "y=20011"], exact(lambda d: np.maximum(d["x"], d["y"])), extent=7),
    Case("f16 multiply on x86-64-v3 (f16 lines), x(5,20011) * y(20011)",
         ["--target", "x86-64-v3", "--op", "multiply", "x:f16=5,20011", "y:f16=20011"],
         arith(np.multiply), extent=5),
    Case("--strategy block (7 written out) in loops: x(11,1000,7) + y(1000,1)",
         ["--strategy", "block", "x=11,1000,7", "y=1000,1"], arith(np.add), extent=11),
    Case("i32 floor_divide x(13,10007) // y(10007)",
         ["--op", "floor_divide", "x:i32=13,10007", "y:i32=10007"],
         exact(lambda d: np.floor_divide(d["x"], d["y"])), extent=13),
    Case("u8 left_shift x(7,10007) << y(10007)",
         ["--op", "left_shift", "x:u8=7,10007", "y:u8=10007"],
         exact(lambda d: np.left_shift(d["x"], d["y"])), extent=7),
    Case("--expr 'max(x*w + b, 0) * c', x(9,50,200) w(50,1) b(200) c(9,1,1)",
         ["--expr", "max(x*w + b, 0) * c", "x=9,50,200", "w=50,1", "b=200", "c=9,1,1"],
         ref_expr, extent=9),
    Case("4-D --loop-order 1,0,2,3: x(7,5,30,67) + y(5,1,67), i0 the loop of 5",
         ["--loop-order", "1,0,2,3", "x=7,5,30,67", "y=5,1,67"], arith(np.add), extent=5),
    Case("where, u8 condition c(7,13001), x(13001), y(7,1)",
         ["--op", "where", "c:u8=7,13001", "x=13001", "y=7,1"],
         exact(lambda d: np.where(d["c"] != 0, d["x"], d["y"])), extent=7),
    Case("exactly 65536 elements, x(16,4096) + y(4096)", ["x=16,4096", "y=4096"],
         arith(np.add), extent=16),
    Case("--strategy block, one loop around a block of 7: x(20000,7) + y(7)",
         ["--strategy", "block", "x=20000,7", "y=7"], arith(np.add), extent=20000),
    # not parallel
    Case("65535 elements, x(3,21845) + y(21845)", ["x=3,21845", "y=21845"],
         arith(np.add), why="small"),
    Case("10000 elements, x(100,100) + y(100)", ["x=100,100", "y=100"],
         arith(np.add), why="small"),
    # one loop: split into chunks (at least 64, each whole vectors, lines
    # where it streams, f16 lines where it converts them) for threads
    Case("one loop, x(200000) + y(200000): 100 chunks of 2000",
         ["x=200000", "y=200000"], arith(np.add), extent=100, chunk=2000),
    Case("one loop, a scalar: x(262144) * y(): 64 chunks of 4096",
         ["--op", "multiply", "x=262144", "y="], arith(np.multiply), extent=64, chunk=4096),
    Case("one loop in place, x(100000) -= y(100000): 125 chunks of 800",
         ["--op", "subtract", "--inplace", "x=100000", "y=100000"], arith(np.subtract),
         extent=125, chunk=800, inplace=True),
    Case("one loop, --stream on, x(131072) + y(131072): 64 chunks of 2048",
         ["--stream", "on", "x=131072", "y=131072"], arith(np.add), extent=64, chunk=2048),
    Case("one loop, f16 lines on x86-64-v3, x(131072) * y(): 64 chunks of 2048",
         ["--target", "x86-64-v3", "--op", "multiply", "x:f16=131072", "y:f16="],
         arith(np.multiply), extent=64, chunk=2048),
    Case("one loop of 65537, a prime: no chunks", ["x=65537", "y=65537"],
         arith(np.add), why="one_loop"),

    Case("--target cortex-m4f, bias x(8,64,56,56) + b(64,1,1)",
         ["--target", "cortex-m4f", "x=8,64,56,56", "b=64,1,1"],
         lambda d: (d["x"] + d["b"], nan2(d["x"], d["b"])), why="one_core"),
    Case("--strategy unroll, x(4,4) + y(4)", ["--strategy", "unroll", "x=4,4", "y=4"],
         arith(np.add), why="small"),
]
for _i, _c in enumerate(CASES):
    _c.name = "k%02d" % _i


# ---------------------------------------------------------------- generation

def gen_case(c, d, parallel):
    """Generate C into directory D (with or without --parallel); the
    .c, .h and --explain, or an error."""
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, c.name + ".c")
    extra = ["--parallel"] if parallel else []
    r = run([GEN, "-o", path] + extra + c.args)
    if r.returncode != 0:
        return None, "bcastgen %s: exit %d: %s" % (" ".join(extra + c.args), r.returncode,
                                                   r.stderr.strip())
    ex = run([GEN, "--explain", "--name", c.name] + extra + c.args)
    if ex.returncode != 0:
        return None, "bcastgen --explain: exit %d: %s" % (ex.returncode, ex.stderr.strip())
    with open(path) as f:
        text = f.read()
    with open(path[:-1] + "h") as f:
        header = f.read()
    return (text, header, ex.stdout), None


def banner_of(text):
    return text[:text.index("/* Begin")]


def loop_row(banner, k=0):
    """The strides of loop iK in the banner's loop table, {name: stride},
    and its trip count."""
    m = re.search(r"^ \*   i%d < (\d+) +([^\n]*)$" % k, banner, re.M)
    if not m:
        return None, None
    return {n: int(s) for n, s in re.findall(r"(\w+) \+= (\d+)", m.group(2))}, int(m.group(1))


def params_of(text, name):
    """The parameter names of void NAME(...)."""
    m = re.search(r"^void %s\(([^)]*)\)$" % name, text, re.M)
    if not m:
        return None
    return [re.search(r"(\w+)$", p.strip()).group(1) for p in m.group(1).split(",")]


def one_line(s):
    return " ".join(s.split())


# what a kernel made without --parallel must not hold
TRACE = re.compile(r"\w+_part\b|\bomp\b|\bomp_\w+|\bBC_PARALLEL\b|\bbc_share\b|parallel",
                   re.I)


def check_case(c, work):
    """Generate C with and without --parallel; what is wrong with the
    decision and the code as the .c, the .h and --explain show them."""
    got, err = gen_case(c, os.path.join(work, "par"), True)
    if err:
        return [err], None
    plain, err = gen_case(c, os.path.join(work, "plain"), False)
    if err:
        return [err], None
    text, header, explain = got
    ptext, pheader, pexplain = plain
    bad = []
    n = c.name
    banner = one_line(banner_of(text).replace("*", " "))
    explain1 = one_line(explain)
    if header != pheader:
        bad.append("the .h differs from the one made without --parallel")
    # the .c with --parallel, undone, must be the one without: first the
    # banner's command line (its first --parallel)
    undone = text.replace(" --parallel", "", 1)
    if c.parallel:
        lines = text.splitlines()
        if "static void %s_part(size_t share, " % n not in text:
            bad.append("no 'static void %s_part(size_t share, ...)'" % n)
        if "#pragma omp parallel" not in text or "#if BC_PARALLEL" not in text:
            bad.append("no '#if BC_PARALLEL' and '#pragma omp parallel'")
        strides, extent = loop_row(banner_of(text))
        if extent != c.extent:
            bad.append("the outermost loop runs %s times, expected %d" % (extent, c.extent))
        para = ("Parallel (--parallel): built with OpenMP (-fopenmp, BC_PARALLEL), the threads "
                "share i0's %d iterations, each a run of them (%s_part); else one thread runs "
                "them all. The same results either way." % (c.extent, n))
        if para not in banner:
            bad.append("the banner lacks '%s'" % para)
        if "Not parallel" in banner:
            bad.append("the banner says 'Not parallel'")
        e_para = ("With --parallel, the outermost loop's %d iterations are shared among threads "
                  "where the kernel is built with OpenMP (-fopenmp; BC_PARALLEL in bc.h): each "
                  "thread runs a run of them through %s_part" % (c.extent, n))
        if e_para not in explain1:
            bad.append("--explain lacks '%s'" % e_para)
        if "--parallel asks for threads, but" in explain1:
            bad.append("--explain says the kernel runs on one thread")
        # the wrapper: each thread its share, the pointers moved by their
        # strides in the outermost loop
        params = params_of(text, n)
        if params is None or strides is None:
            bad.append("no 'void %s(...)' or no loop table in the banner" % n)
        else:
            moved = []
            for p in params:
                s = strides.get(p, 0)
                moved.append(p if s == 0 else p + " + from" if s == 1 else
                             "%s + from * %d" % (p, s))
            want = ["void %s(%s" % (n, text.split("void %s(" % n, 1)[1].split("\n", 1)[0]),
                    "{", "#if BC_PARALLEL", "#pragma omp parallel", "\t{",
                    "\t\tsize_t from, to;", "",
                    "\t\tbc_share(%d, &from, &to);" % c.extent,
                    "\t\t%s_part(to - from, %s);" % (n, ", ".join(moved)), "\t}", "#else",
                    "\t%s_part(%d, %s);" % (n, c.extent, ", ".join(params)), "#endif", "}",
                    "/* End %s */" % n]
            at = [i for i, l in enumerate(lines) if l.startswith("void %s(" % n)]
            have = lines[at[0]:at[0] + len(want)] if at else []
            if have != want:
                bad.append("the kernel does not run %s_part on each thread's share:" % n)
                bad += ["  expected: " + l for l in want]
                bad += ["  found:    " + l for l in have]
            if c.chunk:
                # one loop split in two: the banner says so, and the
                # kernel without --parallel is that one loop
                said = ("i0 and i1 are one loop split in two, %d chunks of %d iterations, so "
                        "that threads can share it." % (c.extent, c.chunk))
                if said not in banner:
                    bad.append("the banner lacks '%s'" % said)
                if loop_row(banner_of(ptext))[1] != c.extent * c.chunk:
                    bad.append("without --parallel, not one loop of %d" % (c.extent * c.chunk))
            else:
                # the part function is the kernel without --parallel, its
                # outermost loop to the share
                undone = re.sub(r"\n \*\n \* Parallel \(--parallel\): [^/]*? either way\.\n",
                                "\n", undone, count=1)
                undone = undone.replace("static void %s_part(size_t share, " % n, "void %s(" % n)
                undone = re.sub(r"\bi0 < share;", "i0 < %d;" % c.extent, undone)
                end = undone.find("\n}\n\nvoid %s(" % n)
                if end >= 0:
                    undone = undone[:end + 3] + "/* End %s */\n" % n
                if undone != ptext:
                    bad.append("%s_part is not the kernel made without --parallel with its "
                               "outermost loop to the share" % n)
    else:
        for m in TRACE.finditer(text.replace("--parallel", "").replace("Not parallel", "")):
            bad.append("the .c holds '%s'" % m.group(0))
        why = {"small": "the result has %d elements, fewer than the target's %d" % (
            int(np.prod(np.broadcast_shapes(*[tuple(sh) for _, _, sh in c.operands]))),
            PARALLEL_MIN),
            "one_loop": "no outermost loop runs around another loop or a block, and the one "
                        "loop does not split into 64 equal chunks or more of whole vectors",
            "one_core": "the target %s has one core" % (
                c.args[c.args.index("--target") + 1] if "--target" in c.args else "")}[c.why]
        sentence = "Not parallel, though --parallel asks: %s." % why
        if sentence not in banner:
            bad.append("the banner lacks '%s'" % sentence)
        e = "--parallel asks for threads, but %s" % why
        if e not in explain1 or "so the kernel runs on one thread." not in explain1:
            bad.append("--explain lacks '%s ..., so the kernel runs on one thread.'" % e)
        if "With --parallel" in explain1:
            bad.append("--explain says the loop is shared among threads")
        undone = re.sub(r"\n \*\n \* Not parallel, though --parallel asks: [^/]*?\.\n \*/",
                        "\n */", undone, count=1)
        if undone != ptext:
            bad.append("the .c differs from the one made without --parallel by more than "
                       "'--parallel' and the banner's sentence")
    # without --parallel: nothing of it
    for what, t in (("the .c", ptext), ("the .h", pheader), ("--explain", pexplain)):
        for m in TRACE.finditer(t):
            bad.append("without --parallel, %s holds '%s'" % (what, m.group(0)))
    return bad, text


# ---------------------------------------------------------------- data

F16_EDGES = [0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x3555,
             0x7bff, 0xfbff, 0x5c00, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7e01, 0xfe2a,
             0x7c01, 0x7d00, 0xfc01]          # +-0, subnormals, normals, inf, NaNs (quiet, signalling)
F32_NANS = [0x7fc00000, 0xffc00000, 0x7fc01234, 0xffc00005, 0x7fffffff]
F64_NANS = [0x7ff8000000000000, 0xfff8000000000000, 0x7ff8000000001234,
            0xfff8000020000000]


def float_values(g, dt, n):
    """Ordinary magnitudes, small integers and halves, +-0, +-inf,
    subnormals, the largest finite, NaNs of both signs with payloads."""
    t = DTYPES[dt]
    if dt == "f16":
        v = g.integers(0, 1 << 16, n, dtype=np.uint32).astype(np.uint16)
        cat = g.random(n)
        pool = np.array(F16_EDGES, dtype=np.uint16)
        m = cat < 0.35
        v[m] = pool[g.integers(0, len(pool), m.sum())]
        m = (cat >= 0.35) & (cat < 0.75)
        v[m] = (g.integers(0x3000, 0x5400, m.sum()) |
                (g.integers(0, 2, m.sum()) << 15)).astype(np.uint16)
        if n >= len(pool):
            v[g.choice(n, len(pool), replace=False)] = pool
        return v.view(np.float16)
    fi = np.finfo(t)
    x = g.standard_normal(n) * np.power(10.0, g.integers(-6, 7, n))
    cat = g.random(n)
    m = cat < 0.2
    x[m] = g.integers(-20, 21, m.sum()) / 2
    sp = np.array([0.0, -0.0, np.inf, -np.inf, float(fi.max), -float(fi.max),
                   float(fi.tiny), float(fi.smallest_subnormal), -3 * float(fi.smallest_subnormal),
                   1.0, -1.0])
    m = (cat >= 0.2) & (cat < 0.3)
    x[m] = sp[g.integers(0, len(sp), m.sum())]
    with np.errstate(all="ignore"):
        x = x.astype(t)
    nans = np.array(F32_NANS if dt == "f32" else F64_NANS, dtype=UINT[np.dtype(t)])
    m = (cat >= 0.3) & (cat < 0.36)
    x.view(nans.dtype)[m] = nans[g.integers(0, len(nans), m.sum())]
    if n >= len(sp) + len(nans):
        at = g.choice(n, len(sp) + len(nans), replace=False)
        x[at[:len(sp)]] = sp.astype(t)
        x.view(nans.dtype)[at[len(sp):]] = nans
    return x


def int_values(g, dt, n, role):
    t = DTYPES[dt]
    info = np.iinfo(t)
    v = g.integers(int(info.min), int(info.max) + 1, n, dtype=np.int64)
    if role == "shift":             # 0 to past the width (NumPy's 0 there)
        m = g.random(n) < 0.9
        v[m] = g.integers(0, info.bits + 3, m.sum())
        return v.astype(t)
    edges = np.array([0, 1, -1, 2, -7, int(info.min), int(info.max)], dtype=np.int64)
    edges = edges[(edges >= info.min) & (edges <= info.max)]
    pick = g.random(n) < (0.3 if role == "divisor" else 0.08)
    lo = 3 if role == "divisor" else len(edges)      # a divisor: 0, 1, -1 often
    v[pick] = edges[g.integers(0, lo, pick.sum())]
    return v.astype(t)


def make_data(c, g):
    c.inputs = {}
    op = c.args[c.args.index("--op") + 1] if "--op" in c.args else None
    for j, (name, dt, sh) in enumerate(c.operands):
        n = int(np.prod(sh)) if sh else 1
        if op == "where" and j == 0:
            a = g.choice(np.array([0, 0, 0, 1, 2, 255], dtype=np.uint8), n)
        elif dt in ("f16", "f32", "f64"):
            a = float_values(g, dt, n)
        else:
            role = {("floor_divide", 1): "divisor", ("left_shift", 1): "shift"}.get(
                (op, j), "normal")
            a = int_values(g, dt, n, role)
        c.inputs[name] = a.reshape(sh)
    with np.errstate(all="ignore"):
        want, loose = c.ref(c.inputs)
    shape = np.shape(want)
    c.want = np.ascontiguousarray(want)
    c.loose = (np.zeros(shape, bool) if loose is None
               else np.ascontiguousarray(np.broadcast_to(loose, shape)))
    c.nans = int(np.isnan(c.want).sum()) if c.want.dtype.kind == "f" else 0


def write_inputs(cases, work):
    for c in cases:
        with open(os.path.join(work, c.name + ".in"), "wb") as f:
            for n, _, _ in c.operands:
                f.write(np.ascontiguousarray(c.inputs[n]).tobytes())


# ---------------------------------------------------------------- driver

DRIVER_HEAD = r"""/* driver.c: runs each kernel (compiled apart, declared by its header)
 * on its inputs, every buffer one element past a 64-byte boundary between
 * guard bytes, the output filled with their pattern first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "bc.h"
#ifdef _OPENMP
#include <omp.h>
#endif
"""

DRIVER_BODY = r"""
struct kcase {
	const char *name;
	void (*fn)(void *const *p);
	int nin, inplace;
	size_t in_bytes[8], in_size[8], out_bytes, out_size;
};

#define GUARD 64
#define PAT 0xa5

/* A buffer of N bytes SIZE bytes past a 64-byte boundary, GUARD bytes of
 * PAT before and after it, filled with PAT; the block malloc returned at
 * *RAW. */
static unsigned char *buffer(size_t n, size_t size, unsigned char **raw)
{
	unsigned char *p = malloc(n + size + 2 * GUARD + 64);

	*raw = p;
	if (!p)
		return NULL;
	memset(p, PAT, n + size + 2 * GUARD + 64);
	return p + (64 - (uintptr_t)p % 64) % 64 + GUARD + size;
}

/* Whether the GUARD bytes before and after the N bytes at B are PAT. */
static int guarded(const unsigned char *b, size_t n)
{
	size_t k;

	for (k = 1; k <= GUARD; k++)
		if (b[-(ptrdiff_t)k] != PAT || b[n + k - 1] != PAT)
			return 0;
	return 1;
}

/* Run case C on DIR/NAME.in; write its output to OUT/NAME.out. */
static int run_case(const struct kcase *c, const char *dir, const char *outdir)
{
	char path[4096];
	FILE *f;
	unsigned char *raw[9], *buf[9], *out, *data;
	size_t total = 0, off, j;
	int bad = 0;

	for (j = 0; j < (size_t)c->nin; j++)
		total += c->in_bytes[j];
	snprintf(path, sizeof path, "%s/%s.in", dir, c->name);
	data = malloc(total + 1);
	f = fopen(path, "rb");
	if (!data || !f || fread(data, 1, total, f) != total) {
		printf("%s error: cannot read %s\n%s failed\n", c->name, path, c->name);
		return 1;
	}
	fclose(f);
	for (j = 0, off = 0; j < (size_t)c->nin; off += c->in_bytes[j], j++) {
		buf[j] = buffer(c->in_bytes[j], c->in_size[j], &raw[j]);
		if (!buf[j])
			return 1;
		memcpy(buf[j], data + off, c->in_bytes[j]);
	}
	if (c->inplace) {
		out = buf[0];
	} else {
		out = buf[c->nin] = buffer(c->out_bytes, c->out_size, &raw[c->nin]);
		if (!out)
			return 1;
	}
	c->fn((void *const *)buf);
	for (j = 0; j < (size_t)c->nin + !c->inplace; j++)
		if (!guarded(buf[j], j < (size_t)c->nin ? c->in_bytes[j] : c->out_bytes)) {
			printf("%s error: a guard byte around %s %lu changed\n", c->name,
			       j < (size_t)c->nin ? "input" : "the output", (unsigned long)j);
			bad = 1;
		}
	for (j = 0, off = 0; j < (size_t)c->nin; off += c->in_bytes[j], j++)
		if (!(c->inplace && j == 0) && memcmp(buf[j], data + off, c->in_bytes[j])) {
			printf("%s error: input %lu changed\n", c->name, (unsigned long)j);
			bad = 1;
		}
	snprintf(path, sizeof path, "%s/%s.out", outdir, c->name);
	f = fopen(path, "wb");
	if (!f || fwrite(out, 1, c->out_bytes, f) != c->out_bytes || fclose(f)) {
		printf("%s error: cannot write %s\n%s failed\n", c->name, path, c->name);
		return 1;
	}
	for (j = 0; j < (size_t)c->nin + !c->inplace; j++)
		free(raw[j]);
	free(data);
	printf("%s %s\n", c->name, bad ? "failed" : "ran");
	return bad;
}

/* driver DIR OUTDIR [FIRST]: run every case, or those from the FIRST on
 * (after one that crashed). */
int main(int argc, char **argv)
{
	size_t i;
	int bad = 0;

	if (argc != 3 && argc != 4)
		return 2;
#ifdef _OPENMP
	printf("BC_PARALLEL %d threads %d\n", BC_PARALLEL, omp_get_max_threads());
#else
	printf("BC_PARALLEL %d threads 1\n", BC_PARALLEL);
#endif
	for (i = argc == 4 ? (size_t)atoi(argv[3]) : 0; i < sizeof cases / sizeof cases[0]; i++) {
		bad |= run_case(&cases[i], argv[1], argv[2]);
		fflush(stdout);
	}
	return bad;
}
"""


def write_driver(cases, path):
    """The driver of CASES at PATH."""
    parts = [DRIVER_HEAD]
    for c in cases:
        parts.append('#include "%s.h"\n' % c.name)
    for c in cases:
        n = len(c.operands) + (0 if c.inplace else 1)
        parts.append("static void w_%s(void *const *p)\n{\n\t%s(%s);\n}\n" % (
            c.name, c.name, ", ".join("p[%d]" % j for j in range(n))))
    struct_end = DRIVER_BODY.index("#define GUARD")
    rows = []
    for c in cases:
        arrs = [c.inputs[n] for n, _, _ in c.operands]
        rows.append('\t{"%s", w_%s, %d, %d, {%s}, {%s}, %d, %d},' % (
            c.name, c.name, len(arrs), int(c.inplace),
            ", ".join(str(a.nbytes) for a in arrs), ", ".join(str(a.itemsize) for a in arrs),
            c.want.nbytes, c.want.itemsize))
    parts.append(DRIVER_BODY[:struct_end])
    parts.append("static const struct kcase cases[] = {\n%s\n};\n\n" % "\n".join(rows))
    parts.append(DRIVER_BODY[struct_end:])
    with open(path, "w") as f:
        f.write("".join(parts))


# ---------------------------------------------------------------- builds

STRICT = ["-std=c99", "-O2", "-Wall", "-Wextra", "-Wpedantic", "-Wconversion", "-Werror"]
TSAN = ["-std=c99", "-O1", "-g", "-Wall", "-Wextra", "-Werror", "-fsanitize=thread",
        "-fopenmp"]
TSAN_ENV = "ignore_noninstrumented_modules=1 halt_on_error=1 exitcode=66"

OMP_PROBE = r"""#include <omp.h>
#include <stdio.h>
int main(void)
{
	int n = 0;
#pragma omp parallel
	{
#pragma omp single
		n = omp_get_num_threads();
	}
	printf("%d\n", n);
	return 0;
}
"""


def omp_problem(cc, work):
    """Why CC -fopenmp cannot build and run an OpenMP program here, or None."""
    if not shutil.which(cc):
        return "%s is not installed" % cc
    d = os.path.join(work, "probe_" + cc)
    os.makedirs(d, exist_ok=True)
    src = os.path.join(d, "omp.c")
    with open(src, "w") as f:
        f.write(OMP_PROBE)
    r = run([cc, "-fopenmp", "-o", os.path.join(d, "omp"), src])
    if r.returncode != 0:
        first = (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[0]
        return "%s -fopenmp cannot link an OpenMP program (%s; Debian: libomp-dev)" % (
            cc, first[:160])
    env = dict(os.environ, OMP_NUM_THREADS="2")
    r = run([os.path.join(d, "omp")], env=env)
    if r.returncode != 0 or r.stdout.strip() != "2":
        return "an OpenMP program built by %s -fopenmp does not run 2 threads (%s)" % (
            cc, (r.stdout + r.stderr).strip()[:160])
    return None


def builds(work):
    """(tag, compiler, flags, BC_PARALLEL it must see, thread counts, why it
    cannot be built and run here or None)."""
    clang = omp_problem("clang", work)
    return [
        ("gcc -fopenmp", "gcc", STRICT + ["-fopenmp"], 1, THREADS, omp_problem("gcc", work)),
        ("gcc", "gcc", STRICT, 0, (3,), None),
        ("clang -fopenmp", "clang", STRICT + ["-fopenmp"], 1, THREADS, clang),
    ]


MACRO_CHECK = r"""#include <stddef.h>
#include "bc.h"
#if BC_PARALLEL != %d
#error "BC_PARALLEL is not %d"
#endif
int bc_parallel_check(void);
int bc_parallel_check(void) { return BC_PARALLEL; }
"""


def check_macro(work):
    """A compile of bc.h sees BC_PARALLEL 1 with -fopenmp, 0 without it or
    with -DBC_NO_PARALLEL."""
    for cc, flags, want in (("gcc", ["-fopenmp"], 1), ("gcc", [], 0),
                            ("gcc", ["-fopenmp", "-DBC_NO_PARALLEL"], 0),
                            ("clang", ["-fopenmp"], 1), ("clang", [], 0),
                            ("clang", ["-fopenmp", "-DBC_NO_PARALLEL"], 0)):
        what = "%s %s: bc.h has BC_PARALLEL == %d" % (cc, " ".join(STRICT + flags), want)
        if not shutil.which(cc):
            skip(what, cc + " is not installed")
            continue
        src = os.path.join(work, "macro%d.c" % want)
        with open(src, "w") as f:
            f.write(MACRO_CHECK % (want, want))
        r = run([cc] + STRICT + flags + ["-I", RUNTIME, "-fsyntax-only", src])
        ok(r.returncode == 0 and not r.stderr.strip(), what, r.stderr)


def named(c, stderr):
    return [l for l in stderr.splitlines() if re.search(r"\b%s\.[ch]:" % c.name, l)]


def compile_all(cc, flags, d, src_dir, cases):
    """Compile CASES (src_dir/NAME.c) as one translation unit; those its
    diagnostics name, or all if it fails naming none, each on its own for
    their own diagnostics. Return (objects, built cases, {name: errors})."""
    inc = ["-I", src_dir, "-I", RUNTIME]
    failed = {}

    def batch(sel):
        src = os.path.join(d, "batch.c")
        with open(src, "w") as f:
            f.write("".join('#include "%s.c"\n' % c.name for c in sel))
        return run([cc] + flags + inc + ["-c", "-o", os.path.join(d, "batch.o"), src])

    alone, together = [], list(cases)
    r = batch(together)
    if r.returncode != 0 or r.stderr.strip():
        bad = [c for c in cases if named(c, r.stderr)] or list(cases)
        one = run([cc] + flags + inc + ["-c"] + [os.path.join(src_dir, c.name + ".c")
                                                 for c in bad], cwd=d)
        for c in bad:
            mine = named(c, one.stderr)
            if os.path.exists(os.path.join(d, c.name + ".o")) and not mine:
                alone.append(c)
            else:
                failed[c.name] = [l for l in mine if "error" in l or "warning" in l] \
                    or mine or ["no object: %s" % one.stderr.strip()[:200]]
        together = [c for c in cases if c not in bad]
        r = batch(together) if together else None
        if r is not None and (r.returncode != 0 or r.stderr.strip()):
            for c in together:
                failed[c.name] = ["with the others: %s" % r.stderr.strip()[:300]]
            together = []
    objs = [os.path.join(d, c.name + ".o") for c in alone]
    if together:
        objs.append(os.path.join(d, "batch.o"))
    built = [c for c in cases if c in together or c in alone]
    return objs, built, failed


def do_build(b, work, src_dir, cases, env_extra=None, timeout=120):
    """Compile the kernels and their driver with build B; run the driver
    once for each thread count, its outputs in a directory of each."""
    tag, cc, flags, _, threads, _ = b
    d = os.path.join(work, re.sub(r"[^A-Za-z0-9]+", "_", tag))
    os.makedirs(d, exist_ok=True)
    t0 = time.time()
    objs, built, failed = compile_all(cc, flags, d, src_dir, cases)
    res = {"dir": d, "failed": failed, "built": [c.name for c in built], "runs": {}}
    exe = os.path.join(d, "driver")
    write_driver(built, os.path.join(d, "driver.c"))
    res["link"] = run([cc] + flags + ["-I", src_dir, "-I", RUNTIME, "-o", exe,
                                      os.path.join(d, "driver.c")] + objs)
    res["ctime"] = time.time() - t0
    if res["link"].returncode != 0:
        return res
    for t in threads:
        out = os.path.join(d, "t%d" % t)
        os.makedirs(out, exist_ok=True)
        env = dict(os.environ, OMP_NUM_THREADS=str(t), **(env_extra or {}))
        res["runs"][t] = run_driver(exe, work, out, env, built, timeout)
    return res


class DriverRun:
    """The runs of a driver over its kernels: restarted after a kernel
    that crashes it (or hangs), which then has no output. stdout: the
    lines of every run; stderr: theirs; crashed: {name: why};
    returncode: the last run's exit status, or 1 if one crashed."""

    def __init__(self):
        self.stdout, self.stderr, self.crashed, self.returncode = [], "", {}, 0


def run_driver(exe, work, out, env, built, timeout):
    dr = DriverRun()
    first = 0
    t0 = time.time()
    while first < len(built):
        try:
            r = run([exe, work, out, str(first)], env=env, timeout=timeout)
            lines, err, status = r.stdout.splitlines(), r.stderr, r.returncode
        except subprocess.TimeoutExpired as e:
            o = e.stdout or ""
            lines = (o.decode(errors="replace") if isinstance(o, bytes) else o).splitlines()
            err, status = "timed out after %d s\n" % timeout, -1
        dr.stdout += lines
        dr.stderr += err
        if status != 0 and not dr.returncode:
            dr.returncode = status      # the first failure's
        done = sum(1 for l in lines if re.match(r"^k\d+ (ran|failed)$", l))
        at = first + done               # the kernel that crashed or hung, if one did
        if at >= len(built) or status in (0, 1):
            break
        said = [l for l in err.splitlines() if l.startswith("SUMMARY")] or \
            err.strip().splitlines()[-1:]
        dr.crashed[built[at].name] = "exit %d%s" % (status, ": " + said[0][:200] if said else "")
        first = at + 1
    dr.secs = time.time() - t0
    return dr, out, dr.secs


def output(c, d):
    path = os.path.join(d, c.name + ".out")
    if not os.path.exists(path):
        return None
    got = np.fromfile(path, dtype=c.want.dtype)
    return got.reshape(c.want.shape) if got.size == c.want.size else None


def fmt(v, dt):
    dt = np.dtype(dt)
    if dt in UINT:
        return "%s[0x%0*x]" % (v, dt.itemsize * 2, int(np.asarray(v, dt).view(UINT[dt])))
    return str(int(v))


def mismatches(c, got):
    """Where GOT is not NumPy's result: bit for bit, any NaN for any NaN
    only where the case's arithmetic met two NaNs."""
    if c.want.dtype in UINT:
        ut = UINT[c.want.dtype]
        bad = got.view(ut) != c.want.view(ut)
        return bad & ~(c.loose & np.isnan(got) & np.isnan(c.want))
    return got != c.want


def explain_mismatch(c, got, bad):
    lines = ["%d of %d elements differ from NumPy" % (bad.sum(), bad.size)]
    rows = np.nonzero(bad.reshape(bad.shape[0], -1).any(axis=1))[0] if bad.ndim > 1 else []
    if len(rows):
        lines.append("at %d of the %d indices of the result's first dimension: %s" % (
            len(rows), bad.shape[0], " ".join(str(int(r)) for r in rows[:20])))
    for idx in list(zip(*np.nonzero(bad)))[:4]:
        ins = []
        for name, _, sh in c.operands:
            v = np.broadcast_to(c.inputs[name], c.want.shape)[idx]
            ins.append("%s=%s" % (name, fmt(v, c.inputs[name].dtype)))
        lines.append("at %s: got %s, NumPy %s (%s)" % (
            ",".join(str(int(i)) for i in idx), fmt(got[idx], c.want.dtype),
            fmt(c.want[idx], c.want.dtype), ", ".join(ins)))
    return lines


def report_build(b, res, cases, outputs):
    """TAP for build B: it compiles and links, each run of its driver, each
    kernel's output NumPy's at every thread count and the same bytes."""
    tag, cc, flags, want_par, threads, _ = b
    failed = res["failed"]
    ok(not failed, "%s: all %d kernels compile (%s %s), no diagnostic (%.1f s with the "
       "driver)" % (tag, len(cases), cc, " ".join(flags), res["ctime"]),
       ["%s: %s" % (n, " | ".join(ls[:3])) for n, ls in sorted(failed.items())])
    link = res["link"]
    ok(link.returncode == 0 and not link.stderr.strip(),
       "%s: the driver of the %d kernels that compiled builds, no diagnostic"
       % (tag, len(res["built"])), link.stderr or "exit %d" % link.returncode)
    if link.returncode != 0:
        return
    nbuilt = len(res["built"])
    for t in threads:
        r, out, secs = res["runs"][t]
        lines = r.stdout
        errors = [l for l in lines if " error" in l]
        head = "BC_PARALLEL %d threads %d" % (want_par, t if want_par else 1)
        heads = [l for l in lines if l.startswith("BC_PARALLEL")]
        ok(r.returncode == 0 and not r.stderr and heads and set(heads) == {head}
           and not errors and sum(l.endswith(" ran") for l in lines) == nbuilt,
           "%s, OMP_NUM_THREADS=%d: the driver runs its %d kernels (%s), the guards "
           "around every buffer and the inputs untouched (%.1f s)" % (
               tag, t, nbuilt, head, secs),
           ["%s crashed the driver: %s" % kv for kv in sorted(r.crashed.items())] +
           ["exit %d" % r.returncode] + errors + heads[:1] + r.stderr.splitlines()[-5:])
    outputs[tag] = {}
    for c in cases:
        per = {t: (output(c, res["runs"][t][1]) if c.name in res["built"] else None)
               for t in threads}
        outputs[tag][c.name] = per
        runs = ("with %s threads, the same bytes" % ", ".join(str(t) for t in threads)
                if want_par else "on one thread (OMP_NUM_THREADS=%d, no OpenMP)" % threads[0])
        what = "%s: %s: all %d elements NumPy's %s, %s" % (
            tag, c.describe(), c.want.size, runs,
            "NaNs bit for bit (%d)" % c.nans if not c.loose.any() else
            "any NaN for NaN op NaN (%d elements)" % c.loose.sum())
        diag = []
        for t in threads:
            got = per[t]
            if got is None:
                crashed = res["runs"][t][0].crashed.get(c.name)
                diag.append("OMP_NUM_THREADS=%d: %s" % (t, "did not compile" if c.name in failed
                                                else "crashed: " + crashed if crashed
                                                else "no output"))
                continue
            bad = mismatches(c, got)
            if bad.any():
                diag.append("OMP_NUM_THREADS=%d:" % t)
                diag += ["  " + l for l in explain_mismatch(c, got, bad)]
        base = per[threads[0]]
        for t in threads[1:]:
            if base is not None and per[t] is not None and \
                    base.tobytes() != per[t].tobytes():
                diff = np.frombuffer(base.tobytes(), np.uint8) != \
                    np.frombuffer(per[t].tobytes(), np.uint8)
                diag.append("OMP_NUM_THREADS=%d and %d write different bytes (%d bytes differ)" % (
                    threads[0], t, diff.sum()))
        ok(not diag, what, diag)


def check_same(outputs, cases):
    """Every run of every build writes the same bytes wherever NumPy's
    result is defined bit for bit (where two NaNs met, the compiler's)."""
    runs = [(tag, t) for tag in outputs for t in sorted(next(iter(outputs[tag].values())))]
    diffs, loose, missing = [], 0, []
    for c in cases:
        got = [(tag, t, outputs[tag][c.name][t]) for tag, t in runs]
        got = [g for g in got if g[2] is not None]
        if len(got) < len(runs):
            missing.append(c.name)
        if not got:
            continue
        tag0, t0, a = got[0]
        for tag, t, b in got[1:]:
            if c.want.dtype in UINT:
                ut = UINT[c.want.dtype]
                differ = a.view(ut) != b.view(ut)
            else:
                differ = a != b
            loose += int((differ & c.loose).sum())
            n = int((differ & ~c.loose).sum())
            if n:
                k = tuple(np.argwhere(differ & ~c.loose)[0])
                diffs.append("%s: %s, OMP_NUM_THREADS=%d, and %s, %d: %d elements differ, first "
                             "at %s: %s against %s" % (
                                 c.name, tag0, t0, tag, t, n, ",".join(str(int(i)) for i in k),
                                 fmt(a[k], c.want.dtype), fmt(b[k], c.want.dtype)))
    ok(not diffs, "all %d runs (%s) write the same bytes wherever NumPy's result is defined "
       "bit for bit (%d NaNs of two NaNs differ%s)" % (
           len(runs), "; ".join("%s %d" % r for r in runs), loose,
           "; %s not compared: no output" % " ".join(missing) if missing else ""), diffs)


# ---------------------------------------------------------------- ThreadSanitizer

TSAN_PROBE = r"""#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
/* Each thread writes its own run of A, as the kernels do; with RACE each
 * writes one element past it too, which the next thread writes. */
int main(void)
{
	size_t n = 1000, i;
	float *a = malloc(n * sizeof *a), s = 0;

	if (!a)
		return 2;
#pragma omp parallel
	{
		size_t t = (size_t)omp_get_thread_num(), k = (size_t)omp_get_num_threads();
		size_t from = n * t / k, to = n * (t + 1) / k, j;
#ifdef RACE
		if (to < n)
			to++;
#endif
		for (j = from; j < to; j++)
			a[j] = (float)j;
	}
	for (i = 0; i < n; i++)
		s += a[i];
	printf("%g\n", (double)s);
	free(a);
	return 0;
}
"""


def tsan_problem(cc, work):
    """Why CC's ThreadSanitizer with OpenMP cannot be trusted here, or
    None: a race-free OpenMP program must run without a report, one with
    a race be reported."""
    why = omp_problem(cc, work)
    if why:
        return why
    d = os.path.join(work, "tsan_probe_" + cc)
    os.makedirs(d, exist_ok=True)
    src = os.path.join(d, "probe.c")
    with open(src, "w") as f:
        f.write(TSAN_PROBE)
    env = dict(os.environ, OMP_NUM_THREADS="3", TSAN_OPTIONS=TSAN_ENV)
    for race in (False, True):
        exe = os.path.join(d, "race" if race else "clean")
        r = run([cc] + TSAN + (["-DRACE"] if race else []) + ["-o", exe, src])
        if r.returncode != 0:
            return "%s -fsanitize=thread -fopenmp cannot build a program (%s)" % (
                cc, (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[0][:160])
        r = run([exe], env=env, timeout=60)
        reported = "WARNING: ThreadSanitizer" in r.stderr
        if not race and (reported or r.returncode != 0):
            first = [l for l in r.stderr.splitlines() if "WARNING" in l or "SUMMARY" in l]
            return ("%s -fsanitize=thread -fopenmp reports a race-free OpenMP program "
                    "(exit %d: %s)%s" % (cc, r.returncode, " / ".join(first[:2])[:200],
                                         ": gcc's libgomp is not instrumented for TSan"
                                         if cc == "gcc" else ""))
        if race and not reported:
            return "%s -fsanitize=thread -fopenmp does not report a data race (exit %d)" % (
                cc, r.returncode)
    return None


def check_tsan(work, src_dir, cases):
    """The parallel kernels under ThreadSanitizer with 2 and 3 threads."""
    par = [c for c in cases if c.parallel]
    why = {}
    chosen = None
    for cc in ("clang", "gcc"):
        why[cc] = tsan_problem(cc, work)
        if not why[cc]:
            chosen = cc
            break
    what = "ThreadSanitizer: the %d parallel kernels with %s threads, no report" % (
        len(par), " and ".join(str(t) for t in TSAN_THREADS))
    if not chosen:
        skip(what, "; ".join("%s: %s" % kv for kv in why.items()))
        return
    ok(True, "ThreadSanitizer with OpenMP works with %s%s: a race-free OpenMP program runs "
       "without a report, one with a race is reported (TSAN_OPTIONS=%s)" % (
           chosen, " (clang: %s)" % why["clang"] if chosen != "clang" else "", TSAN_ENV))
    b = ("%s -fsanitize=thread" % chosen, chosen, TSAN, 1, TSAN_THREADS, None)
    # a passing run takes a second; a race between accesses further apart
    # than TSan's history is not reported, and makes it very slow
    res = do_build(b, work, src_dir, par, {"TSAN_OPTIONS": TSAN_ENV}, timeout=60)
    failed = res["failed"]
    link = res["link"]
    ok(not failed and link.returncode == 0,
       "%s: the %d parallel kernels and their driver build (%s %s, %.1f s)" % (
           b[0], len(par), chosen, " ".join(TSAN), res["ctime"]),
       ["%s: %s" % (n, " | ".join(ls[:3])) for n, ls in sorted(failed.items())] +
       [link.stderr])
    if link.returncode != 0:
        return
    for t in TSAN_THREADS:
        r, out, secs = res["runs"][t]
        lines = r.stdout
        reports = [l for l in r.stderr.splitlines()
                   if "WARNING: ThreadSanitizer" in l or "SUMMARY" in l or
                   re.search(r"#\d .*k\d\d", l)]
        ran = sum(l.endswith(" ran") for l in lines)
        ok(r.returncode == 0 and not reports and ran == len(res["built"]),
           "%s, OMP_NUM_THREADS=%d: %d of the %d kernels run, no ThreadSanitizer report, "
           "guards and inputs untouched (%.1f s)" % (b[0], t, ran, len(res["built"]), secs),
           ["%s crashed the driver: %s" % kv for kv in sorted(r.crashed.items())] +
           ["exit %d" % r.returncode] + reports[:20] +
           [l for l in lines if " error" in l] + r.stderr.splitlines()[-5:])
    bad = []
    for c in par:
        if c.name not in res["built"]:
            continue
        for t in TSAN_THREADS:
            got = output(c, res["runs"][t][1])
            mism = mismatches(c, got) if got is not None else None
            if got is None or mism.any():
                bad.append("%s, OMP_NUM_THREADS=%d: %s" % (
                    c.name, t, "no output" if got is None else
                    explain_mismatch(c, got, mism)[0]))
    ok(not bad, "%s: the outputs with %s threads are NumPy's" % (
        b[0], " and ".join(str(t) for t in TSAN_THREADS)), bad)


# ---------------------------------------------------------------- other checks

def check_target_list():
    r = run([GEN, "--target", "list"])
    rows = {}
    lines = r.stdout.splitlines()
    head = lines[0].split() if lines else []
    col = head.index("parallel") if "parallel" in head else -1
    for l in lines[1:]:
        if l and not l.startswith(" ") and col >= 0:
            f = l.split()
            # by position from the end: the floats column holds spaces ("f32 f64");
            # what the row is comes on the next line
            rows[f[0]] = f[col - len(head)]
    want = {t: str(PARALLEL_MIN) for t in ("generic", "x86-64", "x86-64-v2", "x86-64-v3",
                                          "x86-64-v4")}
    want.update({t: "-" for t in ("cortex-m0", "cortex-m4f", "cortex-m7", "cortex-m55",
                                  "rv32imac", "rv32imafc")})
    ok(r.returncode == 0 and col >= 0 and rows == want,
       "--target list: column parallel, %d on generic and the x86-64 rows, '-' on the "
       "firmware rows" % PARALLEL_MIN, ["got %s" % rows, "header %s" % head[-2:]])


SPEC = """kernel "bias" { parallel = true, "x=8,64,56,56", "b=64,1,1" }
kernel "rowadd" { parallel = true, op = "maximum", "x=512,1024", "b=1024" }
kernel "plain" { "x=512,1024", "b=1024" }
kernel "off" { parallel = false, "x=512,1024", "b=1024" }
kernel "tiny" { parallel = true, "x=10,10", "b=10" }
"""


def check_spec(work):
    """parallel = true in a spec: the part functions of those kernels
    alone, in one file that compiles with and without OpenMP."""
    d = os.path.join(work, "spec")
    os.makedirs(d)
    with open(os.path.join(d, "s.lua"), "w") as f:
        f.write(SPEC)
    r = run([GEN, os.path.join(d, "s.lua"), "-o", os.path.join(d, "s.c")])
    if r.returncode != 0:
        ok(False, "a spec with parallel = true generates", r.stderr)
        return
    text = open(os.path.join(d, "s.c")).read()
    bad = []
    parts = re.findall(r"^static void (\w+)_part\(size_t share, ", text, re.M)
    if parts != ["bias", "rowadd"]:
        bad.append("part functions of %s, expected bias and rowadd" % parts)
    if text.count("#pragma omp parallel") != 2:
        bad.append("%d omp pragmas, expected 2" % text.count("#pragma omp parallel"))
    if "Not parallel, though --parallel asks: the result has 100 elements" not in \
            one_line(text.replace("*", " ")):
        bad.append("tiny's banner does not say why it is not parallel")
    if one_line(text).count("Not parallel") != 1:
        bad.append("'Not parallel' %d times, expected once (tiny)" %
                   one_line(text).count("Not parallel"))
    for cc, flags in (("gcc", ["-fopenmp"]), ("gcc", [])):
        r = run([cc] + STRICT + flags + ["-I", d, "-I", RUNTIME, "-c", "-o",
                                         os.path.join(d, "s.o"), os.path.join(d, "s.c")])
        if r.returncode != 0 or r.stderr.strip():
            bad.append("%s %s: %s" % (cc, " ".join(flags), r.stderr.strip()[:300]))
    for v in ('"yes"', "1"):
        with open(os.path.join(d, "e.lua"), "w") as f:
            f.write('kernel "k" { parallel = %s, "x=512,1024", "b=1024" }\n' % v)
        r = run([GEN, os.path.join(d, "e.lua"), "-o", os.path.join(d, "e.c")])
        if r.returncode != 1 or "field 'parallel': expected true or false" not in r.stderr \
                or os.path.exists(os.path.join(d, "e.c")):
            bad.append("parallel = %s: exit %d, %s" % (v, r.returncode, r.stderr.strip()))
    ok(not bad, "a spec: parallel = true makes bias_part and rowadd_part, not plain's, off's "
       "(false) or tiny's (100 elements); it compiles with gcc with and without -fopenmp; "
       "parallel = \"yes\" or 1 is an error", bad)


# ---------------------------------------------------------------- main

def main():
    t_start = time.time()
    work = tempfile.mkdtemp(prefix="bcastgen-parallel.")
    keep = bool(os.environ.get("BCAST_PARALLEL_KEEP"))
    try:
        print("# %d kernels, seed %d, runtime %s%s; scratch %s" % (
            len(CASES), SEED, RUNTIME, ", filter %r" % FILTER if FILTER else "", work))
        check_target_list()
        g = np.random.default_rng(SEED)
        generated = []
        for c in CASES:
            bad, text = check_case(c, work)
            ok(not bad, "%s: %s; without --parallel, no trace of it" % (
                c.describe(), c.decision()),
               bad + ["bcastgen --parallel %s" % " ".join(c.args)])
            if text is not None:
                make_data(c, g)
                generated.append(c)
        check_spec(work)
        if len(generated) != len(CASES):
            TAP.done()
            return 1
        src_dir = os.path.join(work, "par")
        if FILTER:
            for c in generated:
                p = os.path.join(src_dir, c.name + ".c")
                r = run(FILTER, shell=True, stdin=open(p).read())
                if r.returncode == 0:
                    with open(p, "w") as f:
                        f.write(r.stdout)
            print("# each .c passed through %s" % FILTER)
        write_inputs(generated, work)
        check_macro(work)
        blist = builds(work)
        todo = [b for b in blist if not b[5]]
        outputs = {}
        with concurrent.futures.ThreadPoolExecutor(max(1, JOBS)) as ex:
            futs = {b[0]: ex.submit(do_build, b, work, src_dir, generated) for b in todo}
            for b in blist:
                if b[5]:
                    skip("%s: all kernels" % b[0], b[5])
                    continue
                report_build(b, futs[b[0]].result(), generated, outputs)
        check_same(outputs, generated)
        check_tsan(work, src_dir, generated)
        status = TAP.done()
        print("# %d kernels, %.1f s" % (len(CASES), time.time() - t_start))
        return status
    finally:
        if keep:
            print("# kept %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
