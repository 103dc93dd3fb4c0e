"""Worker of t070-compilers: whatever bcastgen accepts, gcc and clang compile.

Usage: compilers.py GEN RUNTIME_DIR. Prints TAP.

For each expression pattern (a chain of every binary operator, the same
operator nested to the right in parentheses, nested calls and casts,
n-ary calls, unary operators, ?: nested in either arm, mixtures), in
i32, f32 and f16, it finds the largest size bcastgen accepts (a binary
search: deeper or longer is rejected past the limits), generates the
kernel at that size as a loop nest and as the strategy auto chooses for
a few elements, and compiles every kernel with gcc -O2 and clang -O0,
strict warnings as errors. clang runs with -fbracket-depth=48: the plan
keeps every statement within 32 nested brackets (PLAN_MAX_NEST), and a
rank-1 kernel adds a few, so a kernel past it means the bound is broken.

Then NumPy checks the values of the flattened code: a 300-term add chain
(i32, wrapping; f32, folded from the left) and the deepest chain of
nested ?:, built as a shared library and called through ctypes.

Last, nesting past the limits: 64 levels are accepted, 65 rejected with
the message, and expressions nested 100,000 deep are one clear error
(exit 1, no signal, nothing written).

The operators and functions are read from the op table (bcastgen --list
ops); the first test checks that the patterns write every op --expr
writes.
"""
import concurrent.futures
import ctypes
import os
import subprocess
import sys
import tempfile

import optable
from tap import Tap, fresh

GEN = os.path.abspath(sys.argv[1])
RUNTIME = os.path.abspath(sys.argv[2])
FLAGS = ["-std=c99", "-O2", "-Wall", "-Wextra", "-Wpedantic", "-Wconversion",
         "-Werror", "-ffp-contract=off", "-I", RUNTIME]
DTYPES = ["i32", "f32", "f16"]
CAP = 1000          # no pattern needs more repetitions than nodes

TAP = Tap()
ok = TAP.ok


def gen(out, args):
    return subprocess.run([GEN, "-o", out] + args, capture_output=True, text=True)


def rep(head, n, middle, tail):
    return head * n + middle + tail * n


# The casts the patterns nest. The operators and functions are the op
# table's (bcastgen --list ops): every binary and unary operator, every
# function of one argument, and of two or more.
CASTS = ["i32", "f32", "f16", "i8", "u8", "f64", "i64", "u64"]
try:
    OPS = optable.load(GEN)
except RuntimeError as e:
    print("Bail out! the op table: %s" % e)
    sys.exit(1)
BINOPS = [op["operator"] for op in OPS if op["operator"] and op["operator"] != "?:"
          and not optable.unary(op)]
UNOPS = [op["operator"] for op in OPS if op["operator"] and optable.unary(op)]
FUNCS1 = [op["function"] for op in OPS if op["function"] and optable.unary(op)] + CASTS
FUNCS2 = [op["function"] for op in OPS if op["function"]
          and op["max_operands"] in (2, None)]
NARY = [op["name"] for op in OPS if op["max_operands"] is None]


def patterns():
    """(name, n -> expression text, operand names) for every worst case."""
    p = []
    for op in BINOPS:
        p.append(("chain " + op, lambda n, op=op: "x" + (" %s x" % op) * n))
        p.append(("right-nested " + op, lambda n, op=op: rep("x %s (" % op, n, "x", ")")))
    for f in FUNCS1:
        p.append(("nested %s()" % f, lambda n, f=f: rep(f + "(", n, "x", ")")))
    for f in FUNCS2:
        p.append(("nested %s(., x)" % f, lambda n, f=f: rep(f + "(", n, "x", ", x)")))
        p.append(("nested %s(x, .)" % f, lambda n, f=f: rep(f + "(x, ", n, "x", ")")))
        p.append(("n-ary %s" % f, lambda n, f=f: f + "(" + ", ".join(["x"] * (n + 1)) + ")"))
    for u in UNOPS:
        p.append(("unary " + u, lambda n, u=u: u * n + "x"))
        p.append(("unary %s()" % u, lambda n, u=u: rep(u + "(", n, "x", ")")))
    p += [
        ("?: in the else arm", lambda n: "x ? x : " * n + "x"),
        ("?: in the then arm", lambda n: rep("x ? ", n, "x", " : x")),
        ("?: parenthesized", lambda n: rep("x ? x : (", n, "x", ")")),
        ("?: as a condition", lambda n: rep("(", n, "x", " ? x : x)")),
        ("where nested", lambda n: rep("where(x, x, ", n, "x", ")")),
        ("casts alternating", lambda n: rep("i32(f32(", n, "x", "))")),
        ("f16 casts alternating", lambda n: rep("f16(i8(", n, "x", "))")),
        ("saturating casts", lambda n: rep("i8(f64(", n, "x", "))")),
        ("chains in calls", lambda n: rep("max(", n, "x" + " + x" * 8, " - x * x, x)")),
        ("chains in ?:", lambda n: rep("(x < x) ? x - x : (", n, "x", ")")),
        ("comparisons nested", lambda n: rep("(x < ", n, "x", ")")),
        ("logical nested", lambda n: rep("(x && ", n, "x", ")")),
        ("mixed chain", lambda n: "x" + " + x * x - x / x" * n),
    ]
    return p


def accepted(expr, dtype, scratch, operands=("x=3",)):
    r = gen(os.path.join(scratch, "probe.c"), ["--dtype", dtype, "--expr", expr] + list(operands))
    return r.returncode == 0


def largest_taken(taken, cap, guess=0):
    """The largest n in [1, CAP] for which taken(n), or 0. The search takes
    every n below it to be taken and every n above it not: so GUESS
    (another dtype's answer) is it if GUESS is taken and GUESS + 1 is not,
    which two runs tell."""
    if guess and taken(guess) and (guess == cap or not taken(guess + 1)):
        return guess
    if not taken(1):
        return 0
    lo, hi = 1, cap
    if taken(hi):
        return hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if taken(mid):
            lo = mid
        else:
            hi = mid
    return lo


def largest(make, dtype, scratch, operands=("x=3",), guess=0):
    """The largest n in [1, CAP] whose expression make(n) bcastgen accepts."""
    return largest_taken(lambda n: accepted(make(n), dtype, scratch, operands), CAP, guess)


def compile_all(files, scratch, what):
    """Compile FILES with gcc and clang, as files that include them all,
    two at a time: gcc's two halves, then clang's whole; a test each."""
    parts = [("all.c", files), ("half0.c", files[0::2]), ("half1.c", files[1::2])]
    for name, part in parts:
        with open(os.path.join(scratch, name), "w") as f:
            for k in part:
                f.write('#include "%s"\n' % os.path.basename(k))
    # clang's warnings and its bracket limit come from its front end, the
    # same at every level: -O0 gives its verdict in seconds, where -O2 of
    # hundreds of kernels in one file takes minutes
    runs = [("gcc", [], "half0.c"), ("gcc", [], "half1.c"),
            ("clang", ["-fbracket-depth=48", "-O0"], "all.c")]

    def one(run):
        cc, extra, src = run
        obj = os.path.join(fresh(scratch), src[:-1] + "o")
        return subprocess.run([cc] + FLAGS + extra + ["-c", src, "-o", obj],
                              cwd=scratch, capture_output=True, text=True)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        done = list(pool.map(one, runs))
    for cc, extra in [("gcc", []), ("clang", ["-fbracket-depth=48", "-O0"])]:
        rs = [r for (c, _, _), r in zip(runs, done) if c == cc]
        ok(all(r.returncode == 0 for r in rs), "%s %s compiles %d kernels%s" % (
            cc, " ".join(extra), len(files), what), [r.stderr for r in rs])


def worst_cases(scratch):
    files = []
    kdir = os.path.join(scratch, "k")
    os.mkdir(kdir)
    seen = 0

    def sizes(pattern):
        """The largest n of each dtype for PATTERN (each dtype's search
        starts from the one before), in a probe directory of its own."""
        probe, found, n = fresh(scratch), [], 0
        for dtype in DTYPES:
            n = largest(pattern[1], dtype, probe, guess=n)
            found.append((dtype, n))
        return found
    # the searches run bcastgen hundreds of times: two patterns at a time
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        searched = list(pool.map(sizes, patterns()))
    for (name, make), found in zip(patterns(), searched):
        for dtype, n in found:
            if n == 0:
                continue
            seen += 1
            expr = make(n)
            for strategy, shape in [("loops", "x=2,64"), ("auto", "x=2")]:
                f = os.path.join(kdir, "k%d.c" % len(files))
                r = gen(f, ["--dtype", dtype, "--strategy", strategy, "--expr", expr, shape])
                if r.returncode != 0:
                    ok(False, "%s in %s, n=%d, %s: generated" % (name, dtype, n, strategy),
                       r.stderr)
                    continue
                files.append(f)
    ok(seen >= 150, "%d worst cases accepted in some dtype" % seen)
    # the n-ary ops of the command line, with as many operands as allowed
    for op in NARY:
        n = 0
        for dtype in DTYPES:
            probe = os.path.join(fresh(scratch), "probe.c")

            def taken(k):
                return gen(probe, ["--dtype", dtype, "--op", op]
                           + ["a%d=4" % i for i in range(k)]).returncode == 0
            n = largest_taken(taken, 300, guess=n)
            ok(n == 127, "--op %s takes %d operands in %s, the kernel limit" % (op, n, dtype))
            f = os.path.join(kdir, "k%d.c" % len(files))
            if gen(f, ["--dtype", dtype, "--op", op, "--strategy", "loops"]
                   + ["a%d=2,4" % i for i in range(n)]).returncode == 0:
                files.append(f)
    compile_all(files, kdir, " of the worst cases")


def build(scratch, name, args):
    """Generate kernel NAME with ARGS into a shared library; return it loaded."""
    c = os.path.join(scratch, name + ".c")
    r = gen(c, args)
    if r.returncode != 0:
        ok(False, name + ": generated", r.stderr)
        return None
    so = os.path.join(scratch, name + ".so")
    r = subprocess.run(["gcc"] + FLAGS + ["-shared", "-fPIC", c, "-o", so, "-lm"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        ok(False, name + ": compiled", r.stderr)
        return None
    return getattr(ctypes.CDLL(so), name)


def numpy_checks(scratch):
    try:
        import numpy as np
    except ImportError:
        TAP.skip("NumPy checks", "numpy not available")
        return
    rng = np.random.default_rng(70)
    n = 64
    for dtype, npt in [("i32", np.int32), ("f32", np.float32)]:
        if npt == np.int32:
            x = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
            y = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
        else:
            x = rng.standard_normal(n).astype(np.float32)
            y = rng.standard_normal(n).astype(np.float32)
        terms = ["x" if k % 3 else "y" for k in range(300)]
        for strategy, count in [("loops", n), ("unroll", 1)]:
            name = "chain_%s_%s" % (dtype, strategy)
            k = build(fresh(scratch), name, ["--dtype", dtype, "--strategy", strategy,
                                             "--expr", " + ".join(terms),
                                             "x=%d" % count, "y=%d" % count])
            if k is None:
                continue
            out = np.zeros(count, npt)
            k(x.ctypes.data, y.ctypes.data, out.ctypes.data)
            want = (x if terms[0] == "x" else y)[:count].copy()
            with np.errstate(over="ignore"):
                for t in terms[1:]:
                    want = want + (x if t == "x" else y)[:count]
            ok(np.array_equal(out, want), "%s: a 300-term add chain as NumPy adds" % name,
               "got %r\nwant %r" % (out[:4], want[:4]))
        # c1 ? a : c2 ? b : ... as deep as allowed
        def ternary(m):
            return "".join("(x > %d) ? y + %d : " % (j, j) for j in range(m)) + "y"
        depth = largest(ternary, dtype, fresh(scratch), ("x=3", "y=3"))
        ok(depth >= 60, "%d nested ?: accepted in %s" % (depth, dtype))
        xs = rng.integers(-5, depth + 5, n).astype(npt)
        name = "ternary_%s" % dtype
        k = build(fresh(scratch), name, ["--dtype", dtype, "--strategy", "loops", "--expr",
                                         ternary(depth), "x=%d" % n, "y=%d" % n])
        if k is None:
            continue
        out = np.zeros(n, npt)
        k(xs.ctypes.data, y.ctypes.data, out.ctypes.data)
        want = y.copy()
        for j in reversed(range(depth)):
            want = np.where(xs > j, y + npt(j), want).astype(npt)
        ok(np.array_equal(out, want), "%s: %d nested ?: as NumPy's where" % (name, depth),
           "got %r\nwant %r" % (out[:4], want[:4]))


def limits(scratch):
    msg = "the expression nests too deeply: more than 64 levels"
    for head, mid, tail in [("(", "x", ")"), ("abs(", "x", ")"), ("-", "x", ""),
                            ("x ? x : ", "x", ""), ("x ? ", "x", " : x"),
                            ("where(x, x, ", "x", ")"), ("f32(", "x", ")")]:
        r = gen(os.path.join(fresh(scratch), "k.c"),
                ["--expr", rep(head, 64, mid, tail), "x=3"])
        ok(r.returncode == 0, "64 levels of %s%s%s accepted" % (head, mid, tail), r.stderr)
        r = gen(os.path.join(fresh(scratch), "k.c"),
                ["--expr", rep(head, 65, mid, tail), "x=3"])
        ok(r.returncode == 1 and msg in r.stderr, "65 levels of %s%s%s rejected" % (head, mid, tail),
           r.stderr)
    for head, mid, tail in [("(", "x", ")"), ("-", "x", ""), ("sqrt(", "x", ")"),
                            ("x ? ", "x", " : x"), ("x ? x : ", "x", ""),
                            ("x + (", "x", ")"), ("max(x, ", "x", ")")]:
        # a word of the command line is at most 128 KiB: 100000 levels
        # through a spec file, 15000 on the command line
        spec = os.path.join(scratch, "deep.lua")
        with open(spec, "w") as f:
            f.write('kernel "k" { expr = [[%s]], "x=3" }\n' % rep(head, 100000, mid, tail))
        for how, args in [("spec", [spec]),
                          ("--expr", ["--expr", rep(head, 15000, mid, tail), "x=3"])]:
            d = fresh(scratch)
            r = subprocess.run([GEN] + args + ["-o", os.path.join(d, "k.c")],
                               capture_output=True, text=True)
            ok(r.returncode == 1 and msg in r.stderr and not os.listdir(d),
               "%s nested %s%s%s: one clear error" % (how, head, mid, tail),
               "exit %d: %s" % (r.returncode, r.stderr[:300]))
    d = fresh(scratch)
    r = gen(os.path.join(d, "k.c"), ["--expr", "x" + " + x" * 30000, "x=3"])
    ok(r.returncode == 1 and "too long: more than 1000 nodes" in r.stderr and not os.listdir(d),
       "a chain of 30001 terms: one clear error", r.stderr[:300])


def unroll_ceiling(scratch):
    """The largest unrolls accepted compile at -O2 (a sanity bound of 60 s
    each), two compilers at a time."""
    chain = " + ".join(["x*y"] * 12) + " - x"          # 51 nodes of f16 roundings
    cases = [
        ("neg_f16", ["--op", "negative", "x:f16=512"]),
        ("add_f16", ["--op", "add", "x:f16=341", "y:f16=341"]),
        ("chain_f16", ["--expr", chain, "x:f16=20", "y:f16=20"]),
        ("ints_i32", ["--dtype", "i32", "--expr",
                      "max(x*y + (x - y)*3, x/(y|1)) - min(x % (y|1), (x << 2) ^ y)"
                      " + abs(x - 7) * (y >> 1) - (x & 255) * (y | 3) + (x ^ y) / 5 + x*3",
                      "x=18", "y=18"]),
    ]
    made = []
    for name, args in cases:
        c = os.path.join(fresh(scratch), name + ".c")
        made.append((name, c, gen(c, ["--strategy", "unroll", "--unroll-limit", "512"] + args)))
    jobs = [(c, cc) for _, c, r in made if r.returncode == 0 for cc in ["gcc", "clang"]]

    def compile_one(job):
        c, cc = job
        obj = os.path.join(fresh(scratch), os.path.basename(c) + "." + cc + ".o")
        try:
            return subprocess.run([cc] + FLAGS + ["-c", c, "-o", obj],
                                  capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            return None
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        compiled = dict(zip(jobs, pool.map(compile_one, jobs)))
    for name, c, r in made:
        ok(r.returncode == 0, "%s: unrolled within the limits" % name, r.stderr)
        if r.returncode:
            continue
        for cc in ["gcc", "clang"]:
            r = compiled[(c, cc)]
            if r is None:
                ok(False, "%s -O2 compiles the unrolled %s within 60 s" % (cc, name))
            else:
                ok(r.returncode == 0, "%s -O2 compiles the unrolled %s" % (cc, name), r.stderr)
    # one past the ceilings: explicit unroll is an error naming the limit
    for args, want in [(["--op", "negative", "x=513"], "at most 512 are unrolled"),
                       (["--op", "add", "x=342", "y=342"], "at most 1024 nodes")]:
        r = gen(os.path.join(fresh(scratch), "over.c"),
                ["--strategy", "unroll", "--unroll-limit", "512"] + args)
        ok(r.returncode == 1 and want in r.stderr, "unroll past the ceiling: %s" % want, r.stderr)
        r = gen(os.path.join(fresh(scratch), "over.c"), ["--unroll-limit", "512"] + args)
        ok(r.returncode == 0, "auto past the ceiling: loops", r.stderr)


def covered():
    """The test that the patterns write every op that --expr writes (the
    ops of their expressions at n = 2): a function of three operands or
    more, but where, has none."""
    ops = set()
    for _, make in patterns():
        ops |= optable.ops_in_expr(OPS, make(2))
    skipped = {op["name"]: "not in --expr: the table has no operator or function for it"
               for op in OPS if not op["in_expr"]}
    ok(*optable.coverage(OPS, "the worst-case patterns", ops, skipped))


def main():
    covered()
    with tempfile.TemporaryDirectory(prefix="bcastgen-t070.") as scratch:
        limits(scratch)
        numpy_checks(scratch)
        worst_cases(scratch)
        unroll_ceiling(scratch)
    return TAP.done()


if __name__ == "__main__":
    sys.exit(main())
