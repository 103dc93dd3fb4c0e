"""Oracle test: bcastgen against numpy.broadcast_shapes.

Generates reproducible random sets of 1-4 shapes (rank 0-6, sizes 0-5),
about half of them broadcastable, runs `bcastgen --shape a=.. b=..` on each
and checks stdout / exit status / first stderr line against what NumPy says.
Cases are grouped by category into TAP tests.  Usage: numpy_oracle.py GEN
Env: BCAST_ORACLE_N (default 1200), BCAST_ORACLE_SEED (default 20240607).
"""
import os
import random
import shlex
import subprocess
import sys

import numpy

NAMES = "abcd"
ERR_PREFIX = "bcastgen: error: operands could not be broadcast together with shapes "


# Draw one list of shapes: operands are suffixes of a common result shape
# with some dims set to 1; in about half the cases two operands are then
# made to disagree at one position (NumPy still has the final say).
def gen_shapes(rng):
    nops = 1 if rng.random() < 0.1 else rng.randint(2, 4)
    mismatch = nops > 1 and rng.random() < 0.55
    rank = rng.randint(1 if mismatch else 0, 6)
    result = [0 if rng.random() < 0.06 else rng.randint(1, 5) for _ in range(rank)]
    shapes = []
    for _ in range(nops):
        r = rank if rng.random() < 0.5 else rng.randint(0, rank)
        shapes.append([1 if rng.random() < 0.3 else d for d in result[rank - r:]])
    if mismatch:
        # two operands disagree at one position, counted from the right
        k = rng.randint(1, rank)
        i, j = rng.sample(range(nops), 2)
        for o in (i, j):
            shapes[o] = [1] * (k - len(shapes[o])) + shapes[o]
        v = result[-k] if result[-k] != 1 else rng.randint(2, 5)
        shapes[i][-k] = v
        shapes[j][-k] = rng.choice([w for w in (0, 2, 3, 4, 5) if w != v])
    return [tuple(s) for s in shapes]


# NumPy's answer: the result shape, or None if not broadcastable.
def numpy_answer(shapes):
    try:
        return tuple(numpy.broadcast_shapes(*shapes))
    except ValueError:
        return None


# Shape in NumPy tuple notation without spaces: (), (3,), (2,1,4).
def tuple_str(shape):
    inner = ",".join(str(d) for d in shape)
    return "(" + inner + ("," if len(shape) == 1 else "") + ")"


# Category (TAP test name) of a case.
def category(shapes, expected):
    name = "broadcastable" if expected is not None else "not broadcastable"
    name += ", %d operand%s" % (len(shapes), "" if len(shapes) == 1 else "s")
    if any(0 in s for s in shapes):
        name += ", with zero-size dims"
    return name


# Run bcastgen on one case; return None if it behaves, else a diagnostic.
def check(gen, shapes, expected):
    args = [gen, "--shape"]
    args += ["%s=%s" % (n, ",".join(map(str, s))) for n, s in zip(NAMES, shapes)]
    cmd = shlex.join(args)
    try:
        p = subprocess.run(args, capture_output=True, timeout=10)
    except subprocess.TimeoutExpired:
        return "%s: timed out after 10 s" % cmd
    except OSError as e:
        return "%s: cannot run: %s" % (cmd, e)
    out = p.stdout.decode(errors="replace")
    err = p.stderr.decode(errors="replace")
    got = "exit %d, stdout %r, stderr %r" % (p.returncode, out, err[:200])
    if p.returncode < 0:
        return "%s: killed by signal %d; got %s" % (cmd, -p.returncode, got)
    if expected is not None:
        want = ",".join(map(str, expected)) + "\n"
        ok = p.returncode == 0 and out == want and err == ""
        what = "exit 0, stdout %r, empty stderr" % want
    else:
        want = ERR_PREFIX + " ".join(n + tuple_str(s) for n, s in zip(NAMES, shapes))
        ok = p.returncode == 1 and out == "" and err.split("\n")[0] == want
        what = "exit 1, empty stdout, stderr line 1 %r" % want
    return None if ok else "%s: expected %s; got %s" % (cmd, what, got)


# Generate all cases, run them grouped by category, print TAP.
def main():
    gen = sys.argv[1] if len(sys.argv) > 1 else "build/bcastgen"
    n = int(os.environ.get("BCAST_ORACLE_N", "1200"))
    seed = int(os.environ.get("BCAST_ORACLE_SEED", "20240607"))
    rng = random.Random(seed)
    groups = {}
    for _ in range(n):
        shapes = gen_shapes(rng)
        expected = numpy_answer(shapes)
        groups.setdefault(category(shapes, expected), []).append((shapes, expected))
    names = sorted(groups)
    print("1..%d" % len(names))
    print("# seed %d, %d cases, bcastgen %s" % (seed, n, gen))
    failed = 0
    for num, name in enumerate(names, 1):
        diags = [d for d in (check(gen, s, e) for s, e in groups[name]) if d]
        ok = "ok" if not diags else "not ok"
        print("%s %d - %s (%d cases)" % (ok, num, name, len(groups[name])))
        for d in diags[:10]:
            print("# " + d)
        if len(diags) > 10:
            print("# ... and %d more failing cases" % (len(diags) - 10))
        failed += bool(diags)
    cases = [c for g in groups.values() for c in g]
    count = lambda f: sum(1 for c in cases if f(*c))
    print("# broadcastable %d, not broadcastable %d, zero-size dims %d, "
          "rank-0 operand %d, single operand %d" % (
              count(lambda s, e: e is not None), count(lambda s, e: e is None),
              count(lambda s, e: any(0 in x for x in s)),
              count(lambda s, e: () in s), count(lambda s, e: len(s) == 1)))
    sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
