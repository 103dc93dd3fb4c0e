"""optable.py: the generator's op table, for the tests that must cover
every op. The tests keep no list of ops of their own: they read the
table that `bcastgen --list ops --format json` prints (README's Ops
lists its fields), once per process, and each checks that its own
knowledge, keyed by op name (the NumPy function of each op, a case for
each, ...), covers every op of the table, or says why it leaves an op
out. So an op added to gen/ops.c that a test does not know fails that
test, by name.

    ops = optable.load(gen)         # [op, ...] in the table's order
    ok, name, diags = optable.coverage(ops, "the NumPy references",
                                       covered, skipped)

Run as a script, it makes that check for a shell test:

    optable.py GEN WHAT [--unknown-ok] <lines

Each line of standard input is "op WORD" (a case runs the op WORD, its
name or its alias), "expr TEXT" (a case's --expr: every op TEXT writes,
by the operators and functions of the table) or "skip NAME REASON" (the
test leaves op NAME out, for REASON). It prints the test's name, then
its diagnostics, and exits 1 if an op is neither covered nor skipped.
With --unknown-ok, an "op WORD" whose WORD is no op covers nothing and
is no error (a catalogue of bad input names unknown ops on purpose).
"""
import json
import re
import subprocess
import sys

_TABLES = {}


def load(gen):
    """The ops of GEN's table, in its order: each a dict of the fields of
    --list ops --format json. Raises RuntimeError if GEN cannot say."""
    if gen not in _TABLES:
        cmd = [gen, "--list", "ops", "--format", "json"]
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               universal_newlines=True)
        except OSError as e:
            raise RuntimeError("%s: %s" % (" ".join(cmd), e))
        if p.returncode != 0:
            raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), p.returncode,
                                                    p.stderr.strip()))
        try:
            ops = json.loads(p.stdout)["ops"]
        except (ValueError, KeyError) as e:
            raise RuntimeError("%s: not the op table: %s" % (" ".join(cmd), e))
        _TABLES[gen] = ops
    return _TABLES[gen]


def by_name(ops):
    """{name: op} of OPS, in the table's order."""
    return {op["name"]: op for op in ops}


def find(ops, word):
    """The op that --op WORD runs (its name or its alias), or None."""
    for op in ops:
        if word in (op["name"], op["alias"]):
            return op
    return None


def unary(op):
    """True if OP takes one operand."""
    return op["max_operands"] == 1


# numbers as --expr writes them: 2, 0x1F, 1.5, .5, 1e-3
_NUMBER = re.compile(r"0[xX][0-9a-fA-F]*|(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")
_NAME = re.compile(r"[A-Za-z_]\w*")


def ops_in_expr(ops, text):
    """The names of the ops that the --expr TEXT writes: its calls of the
    table's functions and its operators (a '-' after an operand or ')'
    subtracts, elsewhere negates; '?' is where's). Casts and unknown
    names are not ops."""
    funcs = {op["function"]: op["name"] for op in ops if op["function"]}
    tokens = {}             # token -> {1: unary op, 2: binary op}
    for op in ops:
        t = op["operator"]
        if t == "?:":
            tokens.setdefault("?", {})[2] = op["name"]
        elif t:
            tokens.setdefault(t, {})[1 if unary(op) else 2] = op["name"]
    longest = sorted(tokens, key=len, reverse=True)
    found, i, after_operand = set(), 0, False
    while i < len(text):
        c = text[i]
        if c.isspace():
            i += 1
            continue
        m = _NAME.match(text, i) if not c.isdigit() else None
        if m:
            i = m.end()
            rest = text[i:].lstrip()
            if rest.startswith("(") and m.group() in funcs:
                found.add(funcs[m.group()])
            after_operand = not rest.startswith("(")
            continue
        m = _NUMBER.match(text, i)
        if m and m.end() > i:
            i, after_operand = m.end(), True
            continue
        tok = next((t for t in longest if text.startswith(t, i)), None)
        if tok:
            forms = tokens[tok]
            name = forms.get(2 if after_operand else 1) or forms.get(2) or forms.get(1)
            found.add(name)
            i += len(tok)
            after_operand = False
            continue
        after_operand = c == ")"
        i += 1
    return found


def coverage(ops, what, covered, skipped, unknown_ok=False):
    """The check a test makes of its own knowledge against the table:
    every op of OPS is in COVERED (names or aliases) or SKIPPED ({name:
    reason}), and neither names an op the table does not have (COVERED
    may, with UNKNOWN_OK), nor an op both ways. Returns (ok, test name,
    diagnostics)."""
    diags = []
    names = [op["name"] for op in ops]
    cov = set()
    for word in covered:
        op = find(ops, word)
        if op is None and not unknown_ok:
            diags.append("%s has '%s', which is not an op of the table" % (what, word))
        elif op is not None:
            cov.add(op["name"])
    for name, reason in sorted(skipped.items()):
        if name not in names:
            diags.append("%s leaves out '%s', which is not an op of the table" % (what, name))
        elif name in cov:
            diags.append("%s leaves out '%s' (%s), but covers it" % (what, name, reason))
        elif not reason:
            diags.append("%s leaves out '%s' without a reason" % (what, name))
    missing = [n for n in names if n not in cov and n not in skipped]
    for name in missing:
        diags.append("op '%s' of the table is not covered by %s: cover it, or "
                     "leave it out with the reason" % (name, what))
    test = "every op of the table (bcastgen --list ops) is covered by %s: %d ops" % (
        what, len(names))
    out = sorted(n for n in skipped if n in names and n not in cov)
    if out:
        test += ", %d left out (%s)" % (len(out), " ".join(out))
    return not diags, test, diags


def main(argv):
    if len(argv) not in (3, 4) or argv[3:] not in ([], ["--unknown-ok"]):
        sys.stderr.write("usage: optable.py GEN WHAT [--unknown-ok] <lines\n")
        return 2
    try:
        ops = load(argv[1])
    except RuntimeError as e:
        print("the op table of %s" % argv[1])
        print(e)
        return 1
    covered, skipped = set(), {}
    for line in sys.stdin.read().splitlines():
        kind, _, rest = line.strip().partition(" ")
        if kind == "op":
            covered.add(rest.strip())
        elif kind == "expr":
            covered |= ops_in_expr(ops, rest)
        elif kind == "skip":
            name, _, reason = rest.strip().partition(" ")
            skipped[name] = reason.strip()
        elif kind:
            print("optable.py: a line that is not op, expr or skip: %s" % line)
            return 2
    ok, test, diags = coverage(ops, argv[2], covered, skipped, len(argv) == 4)
    print(test)
    for d in diags:
        print(d)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
