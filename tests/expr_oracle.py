"""NumPy differential test of bcastgen --expr (fused expressions).

Builds a seeded corpus of random, type-correct expression trees (every
operator, function, cast and literal form; 1 to 4 operands of random
broadcastable shapes, some stored as another dtype; a condition operand
(mostly u8, or a float) of another shape for where / ?:; every dtype as
the kernel's dtype T, f16 twice as often; --out-dtype; the three
strategies in turn), writes each one as
text, generates the kernels with `bcastgen -o --expr`, compiles them in a
few batches (strict warnings at -O2, then again with ASan + UBSan), runs
them on inputs full of edge values and compares every element with a
NumPy evaluation of the same text.

The oracle does not trust the generator's tree: it parses the text
itself (the grammar of README / issue: C precedence, unary minus folded
into a literal), folds its constant parts, types it with the rules below
and evaluates it with NumPy ufuncs in the dtype of each operator. The
generator's intended types must agree with the parse (a self-check of
the printer).

Constant parts (README's --expr): an operator whose arguments are all
constants becomes one literal of its exact value: integers as Python's
ints with C's / (truncating), Python's % and >>, ~n = -n - 1,
comparisons and logical ops 0 or 1, each result within +-(2^64 - 1); an
integer meeting a float becomes a float, and floats compute in double
(Python's float % is np.remainder's). Division by zero, a negative shift
count, an integer out of that range or a float beyond double is an
error. An integer 0 has no sign, as in Python: -0 and -(1 - 1) are
+0.0 as floats, and only a float -0.0 is negative zero. What folds: -
! ~, the binary operators, ?: and min max abs where; casts and the
other calls do not. The literal is then typed as any other, once.

Type rules mirrored (README's --expr and Dtypes):
  - T is --dtype, or without it NumPy's np.result_type of the operands'
    stored dtypes (an operand without a dtype counts as f32), but for
    an operand only tested for its truth (where's condition, an
    argument of && || !), which has no say, as in np.where, unless none
    has one: a third of the cases draw operand dtypes that make T so
    and give no --dtype;
  - operands are converted from their stored dtype to T on load;
  - a literal takes the dtype of what it meets (its operator's other,
    typed arguments), T when it meets only literals, or the cast's
    dtype inside a cast; it must fit; an untyped subtree (literals only,
    or a where with literal branches) is typed by what it meets the
    same way;
  - arguments of one operator share one dtype; comparisons and && || !
    give bools (u8 0/1) that convert to the dtype they meet; arithmetic
    on bools alone is an error;
  - && || ! and the condition of where / ?: test value != 0 in the
    value's own dtype (NaN is true); an operand there is tested as it is
    stored, not as loaded in T (a float 0.5 is true in an integer
    kernel, as NumPy's logical ops on the arrays);
  - conversions: int->int wraps, int->float and float->float round to
    nearest, float->int truncates and saturates, NaN -> 0; an integer
    literal's exact value rounds to its dtype once (not through double
    first; to f16 through f32, as NumPy converts integers), a float
    literal is read as a double, as Python reads it, then rounded
    (np.float16(x) rounds the double directly); -N is the negation of N
    in that dtype (an integer -0 is 0, a float -0.0 is -0.0);
  - f16 computes as NumPy's float16 loops: each operation in float,
    rounded back to f16 (so NumPy's float16 arrays are the reference;
    their maximum / minimum keep a for equal values, -0.0 against 0.0).
Operators compute as NumPy's ufuncs in that dtype, with the project's
rules (kernels_oracle.py): integer / truncates and x/0 = 0; integer pow
with a negative exponent gives the integer part; NaN-propagating
min/max; NumPy's shifts.

Inexact results (float exp, log, pow, hypot, atan2, logaddexp). Their
NumPy values may differ from the C library's by a few ULP, so the oracle
carries, per element, an error bound besides the value: each gives 4 ULP
(1 in f16); + - * neg abs min max fmax fmin, where's branches and
float<->float casts propagate the bound
(|a|eb + |b|ea + ea eb for *, plus 2 ULP of rounding slack per step).
Anything else that meets an inexact value decides exactly only when the
whole interval gives one answer (a comparison of disjoint intervals, a
truth test of an interval without 0, floor / ceil / float->int of an
interval inside one step); otherwise, and where the bound reaches
overflow, the element is "unknown" and skipped (counted and printed).
The generator keeps exp/log/pow mostly where their bound propagates (the
path to the root is + - * neg abs min max, where's branches, float
casts) and puts them anywhere in a few cases. Elements with a bound
compare within it (inf / NaN exactly); all others bit for bit (any NaN
equals any NaN).

Also: hand-written cases from the feature list (relu bias, x + exp(b),
where with a u8 condition of another shape, (x > 0) * x, integer / and %
with zeros and INT_MIN / -1, the golden expressions, truth as stored,
NumPy's promotion without --dtype, f16 rounding and literals, fmax fmin
copysign heaviside hypot atan2 logaddexp on every pair of edge values in
f16, f32 and f64); expressions that
must be rejected with exit status 1 and write nothing; the banner's
"Made by" line must give an expression that parses to the same tree;
and a hoisting check that counts the calls of expf / logf / exp in loop
kernels (compiled with -include counter.h, which #defines them to
counting functions): once per iteration of the loop where the value
changes (see HOIST).

Usage: expr_oracle.py GEN        (run with /usr/bin/python3)
Env:   BCAST_EXPR_N     number of random cases (default 640)
       BCAST_EXPR_SEED  corpus seed (default 20240715)
       BCAST_EXPR_JOBS  parallel jobs (default 2)
       BCAST_EXPR_KEEP  keep the scratch directory if set (path printed)
       BCAST_EXPR_CC    the C compiler (default gcc)

The ops the keys compute, their functions' names and arguments, the
dtypes they take and whether they call the C library are read from the
generator's op table (bcastgen --list ops, tests/optable.py).

TAP: the op table (every op --expr writes has a key here), generation,
rejects, banners, headers, coverage; then for each build
(-O2 strict; sanitizers) one test per batch for compile + link + run and
one for the values, one for the fixed cases; then the hoisting checks.
"""
import concurrent.futures
import math
import os
import random
import re
import shlex
import shutil
import signal
import sys
import tempfile
import time
import traceback

import numpy as np

import optable

# Random cases in a whole run: enough for 20 of every form (BCAST_EXPR_N).
DEFAULT_N = 640

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernels_oracle as ko  # noqa: E402  (tables, value pools, harness, TAP)

DTYPES = ko.DTYPES
DT_NAMES = ko.DT_NAMES
INTS = ko.INTS
is_float = ko.is_float
bits = ko.bits
irange = ko.irange
STRATEGIES = ko.STRATEGIES
NBATCH = 4
ULPS = 4                       # bound for one exp / log / float pow
F64 = np.float64


def npdt(d):
    return DTYPES["u8" if d == "bool" else d][0]


def prod(shape):
    return ko.prod(shape)


# ---------------------------------------------------------------- grammar

# binary operators: token -> (precedence level, key); loosest first
BINOPS = {
    "||": (0, "lor"), "&&": (1, "land"), "|": (2, "bor"), "^": (3, "bxor"),
    "&": (4, "band"), "==": (5, "eq"), "!=": (5, "ne"),
    "<=": (6, "le"), ">=": (6, "ge"), "<": (6, "lt"), ">": (6, "gt"),
    "<<": (7, "shl"), ">>": (7, "shr"), "+": (8, "add"), "-": (8, "sub"),
    "*": (9, "mul"), "/": (9, "div"), "%": (9, "mod"),
}
KEY_TOKEN = {k: t for t, (lv, k) in BINOPS.items()}
KEY_LEVEL = {k: lv for t, (lv, k) in BINOPS.items()}
UNARY = {"-": "neg", "!": "not", "~": "inv"}
UNARY_TOKEN = {k: t for t, k in UNARY.items()}
UNARY_LEVEL = 10
PRIMARY_LEVEL = 11
# two-character tokens: a one-character token is not taken before them
PAIRS = ("||", "&&", "==", "!=", "<=", ">=", "<<", ">>")
# The oracle's keys, each the op of the generator's table it computes:
# what the table says of that op (its function's name and arguments,
# the dtypes it takes, its kind, whether it calls the C library) is read
# from the table (read_table), and a test checks that every op --expr
# writes has a key, and that the grammar above writes each as the table
# does.
KEY_OP = {"lor": "logical_or", "land": "logical_and", "bor": "bitwise_or",
          "bxor": "bitwise_xor", "band": "bitwise_and", "eq": "equal", "ne": "not_equal",
          "le": "less_equal", "ge": "greater_equal", "lt": "less", "gt": "greater",
          "shl": "left_shift", "shr": "right_shift", "add": "add", "sub": "subtract",
          "mul": "multiply", "div": "divide", "mod": "remainder", "neg": "negative",
          "not": "logical_not", "inv": "invert", "min": "minimum", "max": "maximum",
          "abs": "absolute", "sqrt": "sqrt", "exp": "exp", "log": "log", "pow": "power",
          "floor": "floor", "ceil": "ceil", "fmod": "fmod", "where": "where", "fmax": "fmax",
          "fmin": "fmin", "copysign": "copysign", "hypot": "hypot", "atan2": "arctan2",
          "logaddexp": "logaddexp", "heaviside": "heaviside"}
MAX_CALL_ARGS = 32          # the most arguments min and max get here
# From the table: functions: name -> (key, min args, max args); the keys
# of integer-only and float-only ops; each key's kind (arith, cmp, logic,
# select); the keys whose float results come from the C library.
FUNCS = {}
INT_ONLY = set()
FLOAT_ONLY = set()
KIND = {}
INEXACT = []
CMP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
       "gt": np.greater, "ge": np.greater_equal}
LOGIC = set()
# keys whose inexact bound propagates (value is 1-Lipschitz-ish / exact)
PROPAGATE = ("add", "sub", "mul", "neg", "abs", "min", "max", "fmax", "fmin")
# NumPy ufuncs of the keys that compute as one ufunc in their dtype
UFUNC = {"mod": np.remainder, "fmod": np.fmod, "band": np.bitwise_and,
         "bor": np.bitwise_or, "bxor": np.bitwise_xor, "shl": np.left_shift,
         "shr": np.right_shift, "inv": np.invert, "sqrt": np.sqrt, "exp": np.exp,
         "log": np.log, "copysign": np.copysign, "hypot": np.hypot, "atan2": np.arctan2,
         "logaddexp": np.logaddexp, "heaviside": np.heaviside}


def read_table(gen):
    """Fill FUNCS, INT_ONLY, FLOAT_ONLY, KIND, INEXACT and LOGIC from GEN's
    op table; return the TAP test (ok, name, diagnostics) that KEY_OP
    covers every op --expr writes, and that BINOPS and UNARY write each
    op with the table's operator."""
    ops = optable.load(gen)
    table = optable.by_name(ops)
    skipped = {op["name"]: "not in --expr: the table has no operator or function for it"
               for op in ops if not op["in_expr"]}
    ok, name, diags = optable.coverage(ops, "expr_oracle.py's keys (KEY_OP)",
                                       KEY_OP.values(), skipped)
    kinds = {"arith": "arith", "compare": "cmp", "logical": "logic", "select": "select",
             "copy": "copy"}
    key_of = {}
    for key, opname in KEY_OP.items():
        op = table.get(opname)
        if op is None:
            continue
        key_of[opname] = key
        KIND[key] = kinds[op["kind"]]
        if op["types"] == "int":
            INT_ONLY.add(key)
        if op["types"] == "float":
            FLOAT_ONLY.add(key)
        if KIND[key] == "logic":
            LOGIC.add(key)
    for op in ops:
        key = key_of.get(op["name"])
        if key and op["function"]:
            n = op["max_operands"]
            FUNCS[op["function"]] = (key, 2 if n is None else op["min_operands"],
                                     MAX_CALL_ARGS if n is None else n)
        if key and op["libm"]:
            INEXACT.append(key)
    written = {}                        # (operator, 1 or 2 operands) -> op
    for op in ops:
        if op["operator"]:
            written[(op["operator"], 1 if optable.unary(op) else 2)] = op["name"]
    grammar = [(t, 2, k) for t, (lv, k) in BINOPS.items()] + \
        [(t, 1, k) for t, k in UNARY.items()] + [("?:", 2, "where")]
    for token, nargs, key in grammar:
        want = written.pop((token, nargs), None)
        if want != KEY_OP.get(key):
            diags.append("the grammar's %s (%s) is %s here, %s in the table" % (
                token, key, KEY_OP.get(key), want or "no op"))
    for (token, nargs), opname in sorted(written.items()):
        diags.append("the table writes %s as %s, which the grammar does not know" % (
            opname, token))
    if set(CMP) != {k for k in KIND if KIND[k] == "cmp"}:
        diags.append("CMP has %s, but the comparisons are %s" % (
            " ".join(sorted(CMP)), " ".join(sorted(k for k in KIND if KIND[k] == "cmp"))))
    return not diags, name, diags


def kind_of(key):
    return KIND[key]


class ExprError(Exception):
    pass


class Node:
    """kind: opd (name), lit (neg, is_float, text), cast (dt, args[0]),
    op (key, args, style 'call' / 'tern' / 'infix'). After typing: type
    (a dtype name, 'bool', or None while untyped) and calc (the dtype an
    op computes in)."""
    __slots__ = ("kind", "key", "args", "name", "dt", "neg", "is_float", "text",
                 "style", "type", "calc", "want", "num")

    def __init__(self, kind, key=None, args=(), name=None, dt=None, neg=False,
                 is_float=False, text=None, style=None, want=None, num=None):
        self.kind, self.key, self.args, self.name, self.dt = kind, key, list(args), name, dt
        self.neg, self.is_float, self.text, self.style = neg, is_float, text, style
        self.type = self.calc = None
        self.want = want            # the generator's intended type
        # a literal's magnitude: as written, or a folded constant's (text None)
        if kind == "lit" and num is None:
            num = float(text) if is_float else int(text, 0)
        self.num = num

    def walk(self):
        yield self
        for a in self.args:
            yield from a.walk()

    def sig(self, typed):
        """Structure (and types) for comparing two trees."""
        t = (self.type,) if typed else ()
        if self.kind == "opd":
            return ("opd", self.name) + t
        if self.kind == "lit":
            return ("lit", self.neg, self.is_float, lit_number(self)) + t
        if self.kind == "cast":
            return ("cast", self.dt, self.args[0].sig(typed)) + t
        return ("op", self.key) + tuple(a.sig(typed) for a in self.args) + t


def lit_number(n):
    return n.num


# ---------------------------------------------------------------- parser

class Parser:
    """Recursive descent over the expression text, as the README's grammar:
    ternary, then the binary levels of BINOPS, unary - ! ~ (a minus in
    front of a literal, even a parenthesized one, folds into it), then
    numbers, operands, calls, casts and parentheses."""

    def __init__(self, text, names):
        self.s, self.pos, self.names = text, 0, names

    def ws(self):
        while self.pos < len(self.s) and self.s[self.pos] in " \t\n\r\f\v":
            self.pos += 1

    def accept(self, tok):
        self.ws()
        if not self.s.startswith(tok, self.pos):
            return False
        if len(tok) == 1 and self.s[self.pos:self.pos + 2] in PAIRS:
            return False
        self.pos += len(tok)
        return True

    def parse(self):
        n = self.ternary()
        self.ws()
        if self.pos != len(self.s):
            raise ExprError("unexpected %r" % self.s[self.pos])
        return n

    def ternary(self):
        c = self.binary(0)
        if not self.accept("?"):
            return c
        a = self.ternary()
        if not self.accept(":"):
            raise ExprError("expected ':'")
        b = self.ternary()
        return Node("op", "where", [c, a, b], style="tern")

    def binary(self, level):
        if level == UNARY_LEVEL:
            return self.unary()
        left = self.binary(level + 1)
        toks = [t for t, (lv, k) in BINOPS.items() if lv == level]
        while True:
            for t in toks:
                if self.accept(t):
                    right = self.binary(level + 1)
                    left = Node("op", BINOPS[t][1], [left, right], style="infix")
                    break
            else:
                return left

    def unary(self):
        for t, key in UNARY.items():
            if self.accept(t):
                a = self.unary()
                if key == "neg" and a.kind == "lit":
                    a.neg = not a.neg
                    return a
                return Node("op", key, [a], style="infix")
        return self.primary()

    def primary(self):
        s = self.s
        self.ws()
        p = self.pos
        if p < len(s) and (s[p].isdigit() or (s[p] == "." and s[p + 1:p + 2].isdigit())):
            return self.number()
        if self.accept("("):
            n = self.ternary()
            if not self.accept(")"):
                raise ExprError("expected ')'")
            return n
        if p >= len(s) or not (s[p].isalpha() or s[p] == "_"):
            raise ExprError("expected an operand at %d" % p)
        while self.pos < len(s) and (s[self.pos].isalnum() or s[self.pos] == "_"):
            self.pos += 1
        name = s[p:self.pos]
        if self.accept("("):
            args = []
            if not self.accept(")"):
                while True:
                    args.append(self.ternary())
                    if not self.accept(","):
                        break
                if not self.accept(")"):
                    raise ExprError("expected ')' after arguments")
            if name in DTYPES:
                if len(args) != 1:
                    raise ExprError("a cast takes one argument")
                return Node("cast", dt=name, args=args)
            if name not in FUNCS:
                raise ExprError("unknown function %s" % name)
            key, lo, hi = FUNCS[name]
            if not lo <= len(args) <= hi:
                raise ExprError("%s: wrong number of arguments" % name)
            return Node("op", key, args, style="call")
        if name not in self.names:
            raise ExprError("unknown operand %s" % name)
        return Node("opd", name=name)

    def number(self):
        s, p = self.s, self.pos
        isf = False
        if s[p] == "0" and s[p + 1:p + 2] in ("x", "X"):
            self.pos += 2
            while self.pos < len(s) and s[self.pos] in "0123456789abcdefABCDEF":
                self.pos += 1
            if self.pos == p + 2:
                raise ExprError("bad hex number")
        else:
            while self.pos < len(s) and s[self.pos].isdigit():
                self.pos += 1
            if s[self.pos:self.pos + 1] == ".":
                isf = True
                self.pos += 1
                while self.pos < len(s) and s[self.pos].isdigit():
                    self.pos += 1
            e = s[self.pos:self.pos + 3]
            if e[:1] in ("e", "E") and (e[1:2].isdigit() or (e[1:2] in ("+", "-")
                                                             and e[2:3].isdigit())):
                isf = True
                self.pos += 2
                while self.pos < len(s) and s[self.pos].isdigit():
                    self.pos += 1
        if self.pos < len(s) and (s[self.pos].isalnum() or s[self.pos] in "_."):
            raise ExprError("bad number")
        text = s[p:self.pos]
        if not isf and len(text) > 1 and text[0] == "0" and text[1].isdigit():
            raise ExprError("leading zero")
        if isf and float(text) == float("inf"):
            raise ExprError("float literal out of range")
        if not isf and int(text, 0) >= 2 ** 64:
            raise ExprError("integer literal beyond 64 bits")
        return Node("lit", neg=False, is_float=isf, text=text)


# ---------------------------------------------------------------- types

def lit_value(n, d):
    """The value of literal n in dtype d (a NumPy scalar), or ExprError.
    A float literal is read as a double, as Python reads it, then
    converted (np.float32(1.5) alike); an integer converts from its exact
    value, rounding once."""
    if is_float(d):
        if n.is_float:
            # np.float16 and np.float32 round the double directly
            with np.errstate(over="ignore"):
                v = npdt(d).type(n.num)
        else:
            # an integer rounds to nearest once (no trip through double);
            # to f16 through f32, as NumPy converts integers to float16
            with np.errstate(over="ignore"):
                v = np.array([n.num], np.uint64).astype(npdt("f32" if d == "f16" else d))
                v = v.astype(npdt(d))[0]
        if np.isinf(v):
            raise ExprError("literal %r does not fit %s" % (n.num, d))
        return -v if signed(n) else v
    if n.is_float:
        raise ExprError("float literal %r in %s context" % (n.num, d))
    v = -n.num if n.neg else n.num
    lo, hi = irange(d)
    if not lo <= v <= hi:
        raise ExprError("literal %d does not fit %s" % (v, d))
    return np.array(v, npdt(d))


def check_types(n):
    if n.key in INT_ONLY and is_float(n.calc):
        raise ExprError("%s needs integers, not %s" % (n.key, n.calc))
    if n.key in FLOAT_ONLY and not is_float(n.calc):
        raise ExprError("%s needs floats, not %s" % (n.key, n.calc))


def settle(n, d):
    """Give the untyped node n (literals only below it) the dtype d."""
    if n.type is not None:
        return
    if n.kind == "lit":
        lit_value(n, d)
        n.type = n.calc = d
        return
    n.type = n.calc = d
    for a in n.args:
        settle(a, d)
    check_types(n)


def unify(args, arith):
    """The dtype args share: the typed non-bool ones must agree; bools
    convert to it; literals take it. None if all are untyped."""
    u, bools = None, False
    for a in args:
        if a.type == "bool":
            bools = True
        elif a.type is not None:
            if u is None:
                u = a.type
            elif a.type != u:
                raise ExprError("mixes %s and %s" % (u, a.type))
    if u is None and bools and arith:
        raise ExprError("arithmetic on comparison results alone")
    if u is None and bools:
        u = "u8"
    if u is not None:
        for a in args:
            settle(a, u)
    return u


def infer(n, t):
    for a in n.args:
        infer(a, t)
    if n.kind == "opd":
        n.type = n.calc = t
    elif n.kind == "lit":
        n.type = None
    elif n.kind == "cast":
        settle(n.args[0], n.dt)
        n.type = n.calc = n.dt
    else:
        k = kind_of(n.key)
        if k == "logic":
            for a in n.args:
                settle(a, t)
            n.type = "bool"
        elif k == "cmp":
            u = unify(n.args, False)
            if u is None:
                for a in n.args:
                    settle(a, t)
                u = t
            n.calc, n.type = u, "bool"
        elif k == "select":
            settle(n.args[0], t)
            u = unify(n.args[1:], False)
            n.type = n.calc = u
        else:
            u = unify(n.args, True)
            n.type = n.calc = u
            if u is not None:
                check_types(n)


# ---------------------------------------------------------------- folding

FOLDS = ("neg", "not", "inv", "abs", "min", "max", "where", "land", "lor") + \
    tuple(CMP) + tuple(KEY_LEVEL)
INT_LIMIT = 2 ** 64 - 1


def const(v, want=None):
    """A folded literal of Python int or float v."""
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ExprError("constant overflows double")
        return Node("lit", neg=math.copysign(1.0, v) < 0, is_float=True, num=abs(v),
                    want=want)
    if abs(v) > INT_LIMIT:
        raise ExprError("constant %d beyond 64 bits" % v)
    return Node("lit", neg=v < 0, is_float=False, num=abs(v), want=want)


def ival(n):
    return -n.num if n.neg else n.num


def signed(n):
    """Whether literal n is negative: an integer 0 has no sign, as in
    Python (-0 is 0); a float -0.0 has one."""
    return n.neg and (n.is_float or n.num != 0)


def fval(n):
    return -float(n.num) if signed(n) else float(n.num)


def truthy(n):
    return n.num != 0


def cmp3(a, b):
    x, y = (fval(a), fval(b)) if a.is_float or b.is_float else (ival(a), ival(b))
    return (x > y) - (x < y)


def fold_value(key, a):
    """The literal of op key on literals a, None if it does not fold."""
    anyf = any(x.is_float for x in a)
    if key == "neg":
        return Node("lit", neg=not a[0].neg, is_float=a[0].is_float, num=a[0].num)
    if key == "not":
        return const(int(not truthy(a[0])))
    if key in ("land", "lor"):
        return const(int(truthy(a[0]) and truthy(a[1]) if key == "land"
                         else truthy(a[0]) or truthy(a[1])))
    if key in CMP:
        c = cmp3(a[0], a[1])
        return const(int({"eq": c == 0, "ne": c != 0, "lt": c < 0, "le": c <= 0,
                          "gt": c > 0, "ge": c >= 0}[key]))
    if key == "abs":
        return const(abs(fval(a[0])) if anyf else abs(ival(a[0])))
    if key in ("where", "min", "max"):
        if key == "where":
            r = a[1] if truthy(a[0]) else a[2]
            anyf = a[1].is_float or a[2].is_float
        else:
            r = a[0]
            for b in a[1:]:
                c = cmp3(r, b)
                if not (c > 0 if key == "max" else c < 0):
                    r = b                           # a tie gives the later one
        if anyf and not r.is_float:
            return const(fval(r))
        return Node("lit", neg=r.neg, is_float=r.is_float, num=r.num)
    if anyf:
        if key in INT_ONLY:
            return None                             # a type error, left to infer
        x, y = fval(a[0]), fval(a[1])
        if key in ("div", "mod") and y == 0:
            raise ExprError("constant divided by zero")
        return const({"add": lambda: x + y, "sub": lambda: x - y, "mul": lambda: x * y,
                      "div": lambda: x / y, "mod": lambda: x % y}[key]())
    if key == "inv":
        return const(~ival(a[0]))
    x, y = ival(a[0]), ival(a[1])
    if key in ("div", "mod") and y == 0:
        raise ExprError("constant divided by zero")
    if key in ("shl", "shr") and y < 0:
        raise ExprError("constant shifted by a negative count")
    if key == "div":
        q = abs(x) // abs(y)
        return const(-q if (x < 0) != (y < 0) else q)
    if key == "shl":
        return const(0 if x == 0 else x << min(y, 65))
    if key == "shr":
        return const(x >> min(y, 65))
    return const({"add": lambda: x + y, "sub": lambda: x - y, "mul": lambda: x * y,
                  "mod": lambda: x % y, "band": lambda: x & y, "bor": lambda: x | y,
                  "bxor": lambda: x ^ y}[key]())


def fold(n):
    """n with its constant parts folded (a new tree; n is left as it is). A
    folded literal keeps the generator's intended type unless it was a bool
    (a literal takes the type of what it meets)."""
    if n.kind in ("opd", "lit"):
        return n
    args = [fold(a) for a in n.args]
    if n.kind == "op" and n.key in FOLDS and all(a.kind == "lit" for a in args):
        r = fold_value(n.key, args)
        if r is not None:
            r.want = None if n.want == "bool" else n.want
            return r
    m = Node(n.kind, n.key, args, n.name, n.dt, n.neg, n.is_float, n.text, n.style, n.want)
    return m


def typecheck(text, names, t):
    """Parse, fold and type text; returns the root. Raises ExprError."""
    root = Parser(text, names).parse()
    used = set(x.name for x in root.walk() if x.kind == "opd")
    for nm in names:
        if nm not in used:
            raise ExprError("operand %s is not used" % nm)
    root = fold(root)
    infer(root, t)
    settle(root, t)
    return root


def result_type(root):
    return "u8" if root.type == "bool" else root.type


# ---------------------------------------------------------------- printer

def show(n, rng, p_paren=0.08):
    """(text, level) of node n with the fewest parentheses C's precedence
    needs, some extra ones and random spacing."""
    def sp():
        r = rng.random()
        return "" if r < 0.45 else " " if r < 0.97 else rng.choice(["\n\t", "  "])

    def wrap(txt, lv, need):
        if need or rng.random() < p_paren:
            return "(" + txt + ")", PRIMARY_LEVEL
        return txt, lv

    if n.kind == "opd":
        return n.name, PRIMARY_LEVEL
    if n.kind == "lit":
        return ("-" if n.neg else "") + n.text, UNARY_LEVEL if n.neg else PRIMARY_LEVEL
    if n.kind == "cast":
        return "%s(%s)" % (n.dt, show(n.args[0], rng)[0]), PRIMARY_LEVEL
    if n.style == "call":
        name = [f for f, v in FUNCS.items() if v[0] == n.key][0]
        sep = "," + (" " if rng.random() < 0.7 else "")
        return "%s(%s)" % (name, sep.join(show(a, rng)[0] for a in n.args)), PRIMARY_LEVEL
    if n.style == "tern":
        c, lc = show(n.args[0], rng)
        c, _ = wrap(c, lc, lc < 0)
        a = show(n.args[1], rng)[0]
        b = show(n.args[2], rng)[0]
        s = sp() or " "
        return "%s%s?%s%s%s:%s%s" % (c, s, s, a, s, s, b), -1
    if n.key in UNARY_TOKEN:
        a, la = show(n.args[0], rng)
        a, _ = wrap(a, la, la < UNARY_LEVEL)
        return UNARY_TOKEN[n.key] + a, UNARY_LEVEL
    lv = KEY_LEVEL[n.key]
    a, la = show(n.args[0], rng)
    a, _ = wrap(a, la, la < lv)
    b, lb = show(n.args[1], rng)
    b, _ = wrap(b, lb, lb <= lv)
    s = sp()
    return a + s + KEY_TOKEN[n.key] + s + b, lv


# ---------------------------------------------------------------- generator

FLOAT_TEXTS = ["0.5", "1.5", ".5", ".25", "2.", "1e-3", "2.5E+4", "1e10", "3.0", "0.0",
               "1e-40", "1e30", "100.125", "6.02e23", "0.1", "3.4e38", "1e-45", "7.0e-1",
               "1e-50", "65504.0"]
F64_TEXTS = ["1e300", "1e-320", "2.2250738585072014e-308", "1.7976931348623157e308",
             "0.30000000000000004", "4.9e-324"]
# f16: the largest (65504; 65519.99 rounds to it), the smallest normal and
# subnormal (2^-24, 5.96046e-8), a tie (2049), values just below the ties
# 2^-25 (2.98e-08 rounds to 0) and 3 * 2^-25 (8.94e-8 rounds to 2^-24)
F16_TEXTS = ["65504.0", "65519.99", "6.1035e-5", "6e-8", "5.96e-08", "2049.0", "2.98e-08",
             "8.94e-8", "0.1", "0.333", "1e-4", "1.0009765625", "1.00048828125", "1000.5"]
FLOAT_INTS = [0, 1, 2, 3, 7, 10, 100, 255, 65535, 16777217, 4294967295, 2 ** 53 + 1,
              2 ** 63 - 1, 2 ** 64 - 1, 1000000, 2049, 4097, 65504, 65519]


class Gen:
    """Random type-correct trees for kernel dtype t. names: the ordinary
    operands; cond: the condition operand (or None)."""

    def __init__(self, rng, t, names, cond):
        self.rng, self.t, self.names, self.cond_name = rng, t, names, cond
        self.pending = set(names) | ({cond} if cond else set())
        self.nodes = 0

    def node(self, *a, **k):
        self.nodes += 1
        return Node(*a, **k)

    def operand(self, allow_cond=False):
        rng = self.rng
        pool = list(self.names) + ([self.cond_name] if self.cond_name and allow_cond else [])
        pend = [x for x in pool if x in self.pending]
        nm = rng.choice(pend) if pend and rng.random() < 0.75 else rng.choice(pool)
        self.pending.discard(nm)
        return self.node("opd", name=nm, want=self.t)

    def leaf(self, d):
        x = self.operand(allow_cond=self.rng.random() < 0.1)
        if d == self.t:
            return x
        return self.node("cast", dt=d, args=[x], want=d)

    def literal(self, d, role=None):
        """A literal that fits d (drawn again until it does)."""
        for _ in range(50):
            n = self.literal1(d, role)
            try:
                lit_value(n, d)
                return n
            except ExprError:
                self.nodes -= 1
        return self.node("lit", neg=False, is_float=False, text="1", want=d)

    def literal1(self, d, role=None):
        rng = self.rng
        if is_float(d):
            if role == "minmax" and rng.random() < 0.4:
                # signed zeros: max(0.0, -0.0) is -0.0 but max(0.0, -0) is
                # 0.0 (an integer -0 is 0)
                txt = rng.choice(["0", "0.0", "0x0", ".0"])
                return self.node("lit", neg=rng.random() < 0.5, is_float="x" not in txt
                                 and "." in txt, text=txt, want=d)
            if role == "pow":
                txt = rng.choice(["0.5", "2", "3", "2.0", "1.5", "10", "0", "1"])
                return self.node("lit", neg=rng.random() < 0.25, is_float="." in txt, text=txt,
                                 want=d)
            if rng.random() < 0.6:
                txt = rng.choice(FLOAT_TEXTS + (F64_TEXTS if d == "f64" else []) +
                                 (F16_TEXTS if d == "f16" else []))
                return self.node("lit", neg=rng.random() < 0.35, is_float=True, text=txt, want=d)
            v = rng.choice(FLOAT_INTS)
            txt = "0x%x" % v if rng.random() < 0.15 else str(v)
            return self.node("lit", neg=rng.random() < 0.35 and v != 0, is_float=False,
                             text=txt, want=d)
        lo, hi = irange(d)
        b = bits(d)
        if role == "shift":
            v = rng.randint(max(lo, -2), b + 2)
        elif role == "pow":
            v = rng.randint(max(lo, -3), b + 3)
        else:
            pool = [0, 1, 2, 3, 5, 7, 10, 100, 127, 255, 1000, 65535, 2 ** 31 - 1,
                    hi, hi - 1, hi // 2, -1, -2, -5, -7, -100, lo, lo + 1]
            pool = [v for v in pool if lo <= v <= hi]
            v = rng.choice(pool) if rng.random() < 0.9 else rng.randint(lo, hi)
        mag = abs(v)
        r = rng.random()
        txt = ("0x%x" if r < 0.15 else "0X%X" if r < 0.2 else "%d") % mag
        return self.node("lit", neg=v < 0, is_float=False, text=txt, want=d)

    def untyped(self, d, depth):
        """A subtree without operands: literals combined (typed by the
        operator it meets), or a where with literal branches. Literals
        combined fold to one constant, which must fit d: drawn again
        until it does."""
        rng = self.rng
        if rng.random() < 0.5 and depth > 0:
            return self.node("op", "where", [self.condition(depth - 1), self.literal(d),
                                            self.literal(d)],
                             style=rng.choice(["call", "tern"]), want=d)
        for _ in range(50):
            key = rng.choice(["add", "sub", "mul", "div"] + (["band", "bor"] if d in INTS
                                                            else []))
            n = self.node("op", key, [self.literal(d), self.literal(d)], style="infix",
                          want=d)
            try:
                lit_value(fold(n), d)
                return n
            except ExprError:
                pass
        return self.literal(d)

    def other(self, d, depth, approx, role=None):
        """An argument beside a typed one: typed d, a literal, a bool
        (converted to d) or an untyped subtree."""
        r = self.rng.random()
        if r < 0.45:
            return self.typed(d, depth, approx)
        if r < 0.80:
            return self.literal(d, role)
        if r < 0.91:
            return self.boolean(depth)
        return self.untyped(d, depth)

    def pick_dt(self):
        """A dtype for a subexpression: T, a float (for the float-only
        functions) or any."""
        r = self.rng.random()
        return self.t if r < 0.45 else self.rng.choice(ko.FLOATS) if r < 0.7 else \
            self.rng.choice(DT_NAMES)

    def condition(self, depth):
        rng = self.rng
        if self.cond_name and rng.random() < 0.6:
            self.pending.discard(self.cond_name)
            return self.node("opd", name=self.cond_name, want=self.t)
        r = rng.random()
        if r < 0.5:
            return self.boolean(depth)
        if r < 0.85:
            return self.typed(self.pick_dt(), depth, False)
        return self.operand(allow_cond=True)

    def anyval(self, depth):
        if self.rng.random() < 0.3:
            return self.boolean(depth)
        return self.typed(self.pick_dt(), depth, False)

    def boolean(self, depth):
        rng = self.rng
        r = rng.random()
        if depth <= 0 or self.nodes > 40:
            r = 0
        if r < 0.6:
            key = rng.choice(list(CMP))
            if rng.random() < 0.08 and depth > 0:
                a = self.boolean(depth - 1)              # bools compared as u8
                b = self.boolean(depth - 1) if rng.random() < 0.5 else \
                    self.node("lit", neg=False, is_float=False, text=rng.choice("01"), want="u8")
            else:
                c = self.pick_dt()
                a = self.typed(c, depth - 1, False)
                b = self.other(c, depth - 1, False)
            if rng.random() < 0.5:
                a, b = b, a
            return self.node("op", key, [a, b], style="infix", want="bool")
        if r < 0.85:
            args = [self.anyval(depth - 1) if rng.random() < 0.9 else self.literal(self.t)
                    for _ in range(2)]
            return self.node("op", rng.choice(["land", "lor"]), args, style="infix",
                             want="bool")
        return self.node("op", "not", [self.anyval(depth - 1)], style="infix", want="bool")

    def typed(self, d, depth, approx):
        """A node of dtype d (not bool, not untyped). approx: an inexact
        value (exp, log, float pow) may appear here with its bound
        propagating to the root."""
        rng = self.rng
        if depth <= 0 or self.nodes > 40 or rng.random() < 0.1:
            return self.leaf(d)
        fl = is_float(d)
        trans = fl and (approx or rng.random() < 0.3)   # exp / log / float pow here
        kinds = ["binary", "unary", "call", "where", "cast", "inexact"]
        what = rng.choices(kinds, [30, 24 if fl else 14, 26, 15, 13, 36 if trans else 0])[0]
        if what == "inexact":                           # exp, log, float pow, ...
            key = rng.choice(["exp", "log", "pow"] * 3 + ["hypot", "atan2", "logaddexp"] * 2)
            if key in ("hypot", "atan2", "logaddexp"):
                args = [self.typed(d, depth - 1, False), self.other(d, depth - 1, False)]
                if rng.random() < 0.4:
                    args.reverse()
            elif key == "pow":
                args = [self.typed(d, depth - 1, False), self.other(d, depth - 1, False, "pow")]
                if rng.random() < 0.3:
                    args.reverse()
            else:
                args = [self.typed(d, depth - 1, False)]
            return self.node("op", key, args, style="call", want=d)
        if what == "binary":
            keys = ["add", "sub", "mul", "div", "mod"]
            if not fl:
                keys += ["band", "bor", "bxor", "shl", "shr"]
            key = rng.choice(keys)
            ca = approx if key in PROPAGATE else False
            a = self.typed(d, depth - 1, ca)
            b = self.other(d, depth - 1, ca, "shift" if key in ("shl", "shr") else None)
            if rng.random() < 0.4:
                a, b = b, a
            return self.node("op", key, [a, b], style="infix", want=d)
        if what == "unary":                             # unary, one-argument calls
            keys = ["neg", "abs"] + (["sqrt", "floor", "ceil"] * 2 + (["exp", "log"] * 2 if trans
                                                                     else [])
                                     if fl else ["inv"])
            key = rng.choice(keys)
            a = self.typed(d, depth - 1, approx if key in PROPAGATE else False)
            style = "infix" if key in ("neg", "inv") else "call"
            return self.node("op", key, [a], style=style, want=d)
        if what == "call":                              # min max fmax fmin pow fmod ...
            keys = ["min", "max", "fmod", "fmax", "fmin"] + (["pow"] if not fl or trans else []) \
                + (["copysign", "heaviside"] * 2 if fl else []) \
                + (["hypot", "atan2", "logaddexp"] if trans else [])
            key = rng.choice(keys)
            ca = approx if key in PROPAGATE else False
            if key in ("fmax", "fmin", "copysign"):
                args = [self.typed(d, depth - 1, ca if key != "copysign" else False),
                        self.other(d, depth - 1, ca if key != "copysign" else False, "minmax")]
                if rng.random() < 0.4:
                    args.reverse()
            elif key in ("min", "max"):
                args = [self.typed(d, depth - 1, ca)] + [
                    self.other(d, depth - 1, ca, "minmax")
                    for _ in range(rng.choice([1, 1, 1, 2, 3]))]
                rng.shuffle(args)
            else:
                args = [self.typed(d, depth - 1, False),
                        self.other(d, depth - 1, False, "pow" if key == "pow" else None)]
                if rng.random() < 0.3:
                    args.reverse()
            return self.node("op", key, args, style="call", want=d)
        if what == "where":                             # where / ?:
            c = self.condition(depth - 1)
            a = self.typed(d, depth - 1, approx)
            b = self.other(d, depth - 1, approx)
            if rng.random() < 0.5:
                a, b = b, a
            return self.node("op", "where", [c, a, b], style=rng.choice(["call", "tern"]),
                             want=d)
        # cast from another dtype, or a bool, or the same dtype
        r2 = rng.random()
        if r2 < 0.15:
            return self.node("cast", dt=d, args=[self.boolean(depth - 1)], want=d)
        if r2 < 0.25:
            s = d
        elif r2 < 0.5:
            s = rng.choice([x for x in ko.FLOATS if x != d] or ["f32"])
        else:
            s = rng.choice([x for x in DT_NAMES if x != d])
        ca = approx if fl and is_float(s) else False
        return self.node("cast", dt=d, args=[self.typed(s, depth - 1, ca)], want=d)


def gen_tree(rng, t, names, cond, root_kind, root_dt, approx, depth):
    """A tree using every operand; retries with fresh draws."""
    for attempt in range(300):
        g = Gen(rng, t, names, cond)
        dp = depth + attempt // 60
        if root_kind == "bool":
            root = g.boolean(dp)
        elif root_kind == "where":
            c = g.condition(dp - 1)
            a = g.typed(root_dt, dp - 1, approx)
            b = g.other(root_dt, dp - 1, approx)
            root = Node("op", "where", [c, a, b], style=rng.choice(["call", "tern"]),
                        want=root_dt)
        else:
            root = g.typed(root_dt, dp, approx)
        if not g.pending:
            return root
    raise RuntimeError("could not use every operand")


# ---------------------------------------------------------------- shapes

def sub_shape(rng, r, p1=0.35):
    k = len(r) if rng.random() < 0.5 else rng.randint(0, len(r))
    return [1 if rng.random() < p1 else d for d in r[len(r) - k:]]


def gen_shapes(rng, nops, limit, cond):
    rank = rng.choice([0, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 5])
    r = [rng.choice([1, 2, 2, 3, 3, 4, 5]) for _ in range(rank)]
    while prod(r) > limit:
        i = rng.choice([k for k, d in enumerate(r) if d > 1])
        r[i] -= 1
    if rank and rng.random() < 0.08:
        r[rng.randrange(rank)] = 0
    shapes = [sub_shape(rng, r) for _ in range(nops)]
    if nops and rng.random() < 0.6:
        shapes[0] = list(r)
    if cond:
        # the condition: another shape than every other operand when possible
        for _ in range(20):
            s = sub_shape(rng, r, 0.5)
            if s not in shapes:
                break
        shapes.append(s)
    return shapes


# ---------------------------------------------------------------- corpus

NAMES = ["x", "y", "z", "w", "a", "b", "bias", "in_2", "v", "k1", "s", "p"]
COND_NAMES = ["c", "cond", "m", "mask"]


def promoted_dtype(dts):
    """The kernel's dtype without --dtype: NumPy's np.result_type of the
    operands' stored dtypes (None: no dtype given, which counts as f32)."""
    r = np.result_type(*[npdt(d or "f32") for d in dts])
    return [d for d in DT_NAMES if npdt(d) == r][0]


def computed_names(root):
    """The operands tree root computes with: all but those it only tests
    for their truth (an argument of && || !, where's condition), whose
    dtype has no say in the kernel's, as where's condition in np.where."""
    names = set()

    def visit(n, tested):
        if n.kind == "opd" and not tested:
            names.add(n.name)
        for k, a in enumerate(n.args):
            visit(a, n.kind == "op" and (n.key in LOGIC or (n.key == "where" and k == 0)))
    visit(root, False)
    return names


def kernel_dtype(operands, root):
    """The kernel's dtype without --dtype: the promotion of the dtypes of
    the operands root computes with, or of all if it computes with none."""
    comp = computed_names(root)
    return promoted_dtype([o["dt"] for o in operands if o["name"] in comp]
                          or [o["dt"] for o in operands])


def promoted_dtypes(rng, t, n):
    """n operand dtypes whose promotion is t, or None."""
    near = [d for d in ko.DT_CHOICE + [None] if promoted_dtype([d, t]) == t]
    for _ in range(40):
        dts = [t if rng.random() < 0.3 else rng.choice(near) for _ in range(n)]
        if promoted_dtype(dts) == t:
            return dts
    return None


def make_case(rng, t, strategy):
    c = {"t": t, "strategy": strategy, "out": None, "fn": None, "unroll_limit": None,
         "vseed": rng.getrandbits(63), "fixed": False, "inputs": None,
         "eq_form": rng.random() < 0.2}
    promote = rng.random() < 0.3
    nops = rng.choice([1, 2, 2, 3, 3, 4])
    has_cond = rng.random() < 0.3
    if has_cond:
        nops = max(1, min(nops, 3))
    names = rng.sample(NAMES, nops)
    cond = rng.choice(COND_NAMES) if has_cond else None
    limit = 64 if strategy == "unroll" else 3125
    shapes = gen_shapes(rng, nops, limit, has_cond)
    allnames = names + ([cond] if cond else [])
    ops = []
    dts = promoted_dtypes(rng, t, len(allnames)) if promote else None
    for k, (nm, sh) in enumerate(zip(allnames, shapes)):
        dt = None
        if dts:
            dt = dts[k]
        elif nm == cond:
            # a condition as stored: floats too (0.5, NaN are true)
            dt = "u8" if rng.random() < 0.55 else rng.choice(ko.DT_CHOICE + list(ko.FLOATS))
        elif rng.random() < 0.2:
            dt = rng.choice(ko.DT_CHOICE)
        ops.append({"name": nm, "dt": dt, "shape": sh, "aligned": sh, "cond": nm == cond})
    # no --dtype where NumPy's promotion of the operands gives t (checked
    # again once the tree says which operands have a say)
    c["omit_dtype"] = promoted_dtype([o["dt"] for o in ops]) == t and (
        dts is not None or rng.random() < 0.3)
    rng.shuffle(ops)
    c["operands"] = ops
    c["result"] = list(np.broadcast_shapes(*[tuple(o["shape"]) for o in ops]))
    # root: T mostly, sometimes another dtype (a cast at the top), or a bool
    r = rng.random()
    root_kind = "bool" if r < 0.22 else "where" if (has_cond and r < 0.5) else "typed"
    r = rng.random()
    root_dt = t if r < 0.6 else rng.choice(ko.FLOATS) if r < 0.85 else rng.choice(DT_NAMES)
    if root_kind == "bool":
        root_dt = "u8"
    if rng.random() < 0.2:
        c["out"] = rng.choice([d for d in DT_NAMES if d != root_dt])
    approx = root_kind != "bool" and is_float(root_dt) and (c["out"] is None
                                                           or is_float(c["out"]))
    depth = rng.choice([1, 2, 2, 3, 3, 3, 4, 4])
    tree = gen_tree(rng, t, names, cond, root_kind, root_dt, approx, depth)
    text = show(tree, rng)[0]
    # self-check: the oracle's parse of the text is the generated tree,
    # and, folded, has the types the generator meant
    try:
        root = typecheck(text, allnames, t)
    except ExprError as e:
        raise RuntimeError("generated an invalid expression %r: %s" % (text, e))
    c["parsed"] = Parser(text, allnames).parse()
    if c["parsed"].sig(False) != tree.sig(False):
        raise RuntimeError("printer: %r does not parse back to the tree" % text)
    for gn, pn in zip(fold(tree).walk(), root.walk()):
        w = gn.want
        if gn.kind == "opd" or w is None:
            continue
        if pn.type != w:
            raise RuntimeError("%r: node typed %s, meant %s" % (text, pn.type, w))
    c["expr"] = text
    c["root"] = root
    c["omit_dtype"] = c["omit_dtype"] and kernel_dtype(ops, c["parsed"]) == t
    # f16 code converts at every operation: unrolled, it is slow to
    # compile, so at most 16 elements
    f16 = "f16" in [t, c["out"]] + [o["dt"] for o in ops] or "f16(" in text
    # bcastgen unrolls at most 1024 nodes in all (elements times nodes);
    # the tokens that make nodes bound them from above
    nodes = len(re.findall(r"[A-Za-z_]\w*|\.?\d[\w.]*|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%<>&|^!~?]",
                           text))
    cap = min(16 if f16 else 64, max(1, 1024 // nodes))
    if strategy == "unroll" and prod(c["result"]) > cap:
        byname = dict(zip(allnames, gen_shapes(rng, nops, cap, has_cond)))
        for o in ops:
            o["shape"] = o["aligned"] = byname[o["name"]]
        c["result"] = list(np.broadcast_shapes(*[tuple(o["shape"]) for o in ops]))
    if strategy == "unroll":
        if prod(c["result"]) > 16 or rng.random() < 0.3:
            c["unroll_limit"] = 64
    elif strategy == "auto" and rng.random() < 0.3:
        c["unroll_limit"] = rng.choice([1, 8, 16] if f16 else [1, 8, 64, 256])
    if rng.random() < 0.1:
        c["fn"] = "fn_%d" % rng.randrange(10 ** 6)
    return c


def build_corpus(seed, n):
    rng = random.Random(seed)
    pairs = [(t, s) for t in ko.DT_CHOICE for s in STRATEGIES]     # f16 twice
    cases = []
    while len(cases) < n:
        order = list(pairs)
        rng.shuffle(order)
        for t, s in order[:n - len(cases)]:
            cases.append(make_case(rng, t, s))
    return cases


def fixed_cases(rng):
    """The feature list's examples, some with chosen inputs."""
    out = []

    def add(expr, t, ops, strategies=STRATEGIES, inputs=None, out_dt=None, limit=None):
        """t None: no --dtype, NumPy's promotion of the operands' dtypes."""
        for s in strategies:
            operands = []
            for spec in ops.split():
                nm, shape = spec.split("=")
                nm, dt = (nm.split(":") + [None])[:2]
                sh = [int(v) for v in shape.split(",")] if shape else []
                operands.append({"name": nm, "dt": dt, "shape": sh, "aligned": sh,
                                 "cond": False})
            omit = t is None
            if omit:
                t = kernel_dtype(operands, Parser(expr, [o["name"] for o in operands]).parse())
                where_of_three = re.fullmatch(r"where\((\w+), (\w+), (\w+)\)|(\w+) \? (\w+) : (\w+)",
                                              expr)
                if where_of_three:
                    # the rule is np.where's: the condition has no say
                    dt = {o["name"]: npdt(o["dt"] or "f32") for o in operands}
                    c3 = [dt[g] for g in where_of_three.groups() if g]
                    got = np.where(np.zeros(1, c3[0]), np.zeros(1, c3[1]), np.zeros(1, c3[2]))
                    if npdt(t) != got.dtype:
                        raise RuntimeError("%s: T %s, np.where gives %s" % (expr, t, got.dtype))
            c = {"t": t, "strategy": s, "out": out_dt, "fn": None, "vseed": rng.getrandbits(63),
                 "fixed": True, "inputs": inputs, "omit_dtype": omit, "eq_form": False,
                 "operands": operands, "expr": expr,
                 "unroll_limit": limit if s == "unroll" else None}
            c["result"] = list(np.broadcast_shapes(*[tuple(o["shape"]) for o in operands]))
            c["root"] = typecheck(expr, [o["name"] for o in operands], t)
            c["parsed"] = Parser(expr, [o["name"] for o in operands]).parse()
            out.append(c)
            if omit:
                t = None

    add("max(x*w + b, 0)", "f32", "x=3,4,3,3 w=4,1,1 b=4,1,1", limit=512)
    add("max(x*w + b, 0)", "i16", "x=2,4,3,3 w=4,1,1 b=4,1,1", limit=512)
    add("x + exp(b)", "f32", "x=2,3,4,5 b=3,1,1", limit=512)
    add("x + exp(b)", "f64", "x=2,3,4,5 b=3,1,1", limit=512)
    add("where(c, a, -a)", "f32", "c:u8=4,1 a=4,5", limit=64)
    add("where(c, a, -a)", "i8", "c:u8=4,1 a=4,5", limit=64)
    add("c ? a : b", "f64", "c:u8=3,1 a=3,4 b=4", limit=64)
    add("c ? a : b", "i32", "a=2,3,4 c:u8=3,1 b=4", limit=64)
    add("(x > 0) * x", "f32", "x=3,5", limit=64)
    add("(x > 0) * x", "i32", "x=3,5", limit=64)
    add("(x>>2)+(i16(x)&0x7f)*-3", "i16", "x:u8=2,3", limit=64)
    add("c?a:-a+1.5", "f64", "c:u8=4,1 a=4,5", limit=64)
    add("x+exp(b)*sqrt(s)", "f32", "x=4,3,32,32 b=3,1,1 s=", ("loops", "auto"))
    # integer / and % (and fmod) with zeros and INT_MIN / -1, each pair once
    for d in ("i8", "i32", "i64", "u8", "u64"):
        lo, hi = irange(d)
        if lo < 0:
            xs = [lo, lo, lo, 7, -7, 7, -7, 0, 5, -5, hi, hi, lo + 1, -1]
            ys = [-1, 0, 1, 2, 2, -2, -2, 0, 0, 0, -1, hi, -1, lo]
        else:
            xs = [0, 5, hi, hi, 7, 1, hi - 1, 3]
            ys = [0, 0, 0, hi, 2, hi, hi, 1]
        n = len(xs)
        inputs = {"x": xs, "y": ys}
        for e in ("x / y", "x % y", "fmod(x, y)"):
            add(e, d, "x=%d y=%d" % (n, n), inputs=inputs, limit=64)
    # min / max ties of signed zeros give b; NaN propagates; NaN is true
    nan, inf = float("nan"), float("inf")
    zs = {"x": [0.0, -0.0, -0.0, 0.0, nan, 1.0, nan, -nan, 2.0],
          "y": [-0.0, 0.0, -0.0, 0.0, 1.0, nan, -nan, 0.0, 0.0]}
    for e in ("max(x, y)", "min(x, y)", "max(x, y, 0)", "min(x, -0)", "max(-0.0, x)",
              "where(x, y, -y)", "!x", "x && y", "x || y", "x ? 1 : 2"):
        add(e, "f32", "x=9 y=9" if "y" in e else "x=9", ("unroll", "loops"), inputs=zs,
            limit=64)
    # conversions: saturating float -> int, i64 -> f32 rounding once
    add("i32(x) + i32(y)", "f32", "x=9 y=9", ("loops",), inputs={
        "x": [float("nan"), float("inf"), -float("inf"), 3e9, -3e9, 2.5, -2.5, -0.0, 2147483520.0],
        "y": [0.0] * 9})
    add("u8(x) | 0", "f64", "x=8", ("unroll",), inputs={
        "x": [float("nan"), -1.0, -0.5, 255.9, 256.0, 1e300, -1e300, 17.99]}, limit=64)
    add("x * 1e30", "f32", "x=6", ("loops", "unroll"), out_dt="i32", limit=64, inputs={
        "x": [float("nan"), 1.0, -1.0, 1e-31, 3e-30, -0.0]})
    add("f32(x) + 0", "i64", "x=6", ("loops",), inputs={
        "x": [2 ** 62 + 2 ** 38 + 1, -(2 ** 62 + 2 ** 38 + 1), 2 ** 24 + 1, 2 ** 53 + 1,
              2 ** 63 - 1, -2 ** 63]})
    # literals at the edges of their dtype
    add("x + -128 + 0x7f", "i8", "x=4", ("unroll",), limit=64)
    add("(x ^ 18446744073709551615) + -0", "u64", "x=4", ("unroll",), limit=64)
    add("x - -9223372036854775808", "i64", "x=4", ("unroll",), limit=64)
    add("x + -2147483648", "i32", "x=4", ("unroll",), limit=64)
    # an integer literal in a float context rounds to nearest once (through
    # double, 2^62 + 2^38 + 1 would land on a float32 midpoint and round
    # down); a float literal is a double first, as in Python, so 1 + 2^-24
    # + 1e-32 is the double 1 + 2^-24, a midpoint, which rounds to 1.0f
    add("x + 4611686293305294849", "f32", "x=3", ("unroll",), limit=64, inputs={
        "x": [0.0, 1.0, -0.0]})
    add("x + 1.00000005960464477539062500000001", "f32", "x=3", ("unroll",), limit=64,
        inputs={"x": [0.0, 1.0, -0.0]})
    # constant parts fold exactly: no wrapping inside them, integer / truncates
    # and % floors, floats in double; the value then fits the dtype it meets
    add("x ^ ~(-2)", "u16", "x=4", ("unroll",), limit=64)
    add("x + (200 - 100) + (-128 - -1)", "i8", "x=4", ("unroll",), limit=64)
    add("x + -7 / 2 * (-7 % 2) + (7 % -2) + (-5 >> 1) + (1 << 62 >> 61)", "i32", "x=4",
        ("unroll",), limit=64)
    add("x * (7 / 2) + (0.1 + 0.2) + (-7.5 % 2) + min(3, -0)", "f64", "x=4", ("unroll",),
        limit=64)
    add("x * (1 < 2) + (1e-50 && 1) + !0.5 + (1 ? 2 : 0.5) + max(1, -2, 0.5)", "f32", "x=4",
        ("unroll",), limit=64)
    add("x + (4294967295 * 4294967297 - 18446744073709551614)", "u8", "x=4", ("unroll",),
        limit=64)
    # an integer 0 has no sign, as in Python: x * -(1 - 1) and x * -0 are
    # x * +0.0 (-0.0 for a negative x), and x * -0.0 is not
    add("x * -(1 - 1)", "f32", "x=3", ("unroll",), limit=64, inputs={"x": [1.0, -1.0, 0.0]})
    add("x * -0 + y * -0.0", "f64", "x=3 y=3", ("unroll",), limit=64,
        inputs={"x": [-1.0, 1.0, -1.0], "y": [1.0, 1.0, -1.0]})

    # truth as stored: an operand of && || ! or where's condition is tested
    # in its own dtype (0.5, -0.25, NaN, 1e-45 and INT_MIN are true
    # whatever T); a condition that is an expression is computed in T
    tv = {"x": [0.5, -0.25, nan, 0.0, -0.0, 1e-45],
          "y": [-2 ** 31, 256, 1, 1, 1, 512],
          "c": [0.5, -0.25, nan, 0.0, -0.0, 2.5],
          "a": [1, 2, 3, 4, 5, 6], "b": [7, 8, 9, 10, 11, 12]}
    for e, t, ops in (("x && y", "i8", "x:f32=6 y:i32=6"),
                      ("x || !y", "u16", "x:f32=6 y:i32=6"),
                      ("a - !x + !(y)", "i8", "x:f32=6 y:i32=6 a=6"),
                      ("(x && y) ? a : b", "i16", "x:f32=6 y:i32=6 a=6 b=6"),
                      ("c ? a : b", "i32", "c:f64=6 a=6 b=6"),
                      ("where(c, a, b)", "u8", "c:f16=6 a=6 b=6"),
                      ("where(c * 2, a, b)", "i32", "c:f32=6 a=6 b=6"),
                      ("where(i8(c), a, b)", "f32", "c:f32=6 a=6 b=6"),
                      ("c ? a : b", None, "c:f64=6 a:i8=6 b:i8=6"),
                      ("where(c, a, b)", None, "c:f16=6 a:i8=6 b:i8=6"),
                      ("where(c, a, b)", None, "c:f32=6 a:u8=6 b:i16=6"),
                      ("where(c && a, a, b) + !c", None, "c:f64=6 a:i8=6 b:u8=6"),
                      ("!x", "i8", "x:i64=6"),
                      ("x || y", "u8", "x:f64=6 y:f16=6")):
        add(e, t, ops, ("unroll", "loops"), inputs={
            "x": tv["x"] if ":f" in ops.split()[0] else [-2 ** 63, 256, 0, 1, -1, 2 ** 40],
            "y": tv["y"] if ":i" in ops else [0.0, 6e-8, 0.0, -0.0, nan, 1e-300],
            "c": tv["c"], "a": tv["a"], "b": tv["b"]}, limit=64)
    # NumPy's promotion when --dtype is not given (np.result_type of the
    # operands' dtypes; one without a dtype counts as f32), where's
    # condition apart, as in np.where
    add("where(c, a, b)", None, "c:u8=4 a:i8=4 b:i8=4", ("unroll", "loops"), limit=64)
    add("c ? a : b", None, "c:i64=4 a:u8=4 b:i16=4", ("unroll",), limit=64)
    add("x + y", None, "x:i8=3 y:u8=3", ("unroll",), limit=64,
        inputs={"x": [127, -128, -1], "y": [255, 255, 1]})
    add("x + y", None, "x:u64=3 y=1", ("loops",), limit=64)
    add("x * y", None, "x:i64=4 y:i64=4", ("loops",), limit=64)
    add("x + y + z", None, "x:i8=5 y:u8=5 z:f16=5", ("unroll",), limit=64)
    add("x - y * z", None, "x:i16=2,3 y:u16=3 z:f32=1", ("loops",))
    add("sqrt(x) + y", None, "x:f16=4 y:i8=4", ("loops",))
    # f16: each operation rounded to f16; literals from the double
    add("max(x*w + b, 0)", "f16", "x=8,4,3,3 w=4,1,1 b=4,1,1", ("loops", "auto"))
    add("max(x*w + b, 0)", "f16", "x=2,2,3,2 w=2,1,1 b=2,1,1", ("unroll",), limit=64)
    add("x + y + z", "f16", "x=3,5 y=5 z=3,1", ("unroll", "loops"), limit=64)
    add("x * 0.1 + 2049 - 65519.99", "f16", "x=7", ("unroll",), limit=64, inputs={
        "x": [0.0, 1.0, -1.0, 65504.0, 6e-8, nan, 2049.0]})
    add("x + 1.00048828125 + 2.98e-08", "f16", "x=3", ("unroll",), limit=64,
        inputs={"x": [0.0, -0.0, 1.0]})
    add("f16(y) + x", "f16", "x=4 y:f64=4", ("unroll",), limit=64, inputs={
        "x": [0.0, 0.0, 0.0, -0.0],
        "y": [1 + 2.0 ** -11 + 2.0 ** -40, 65519.99, 65520.0, -2.0 ** -25]})
    add("f16(f32(x) * 3.0)", "f16", "x=4", ("unroll",), limit=64)
    add("i16(x) + 0", "f16", "x=8", ("unroll",), limit=64, out_dt="i16", inputs={
        "x": [nan, inf, -inf, 65504.0, -65504.0, 2.5, -2.5, -0.0]})
    add("min(x, y) + max(x, y) * 0 + fmax(x, y) + fmin(y, x)", "f16", "x=9 y=9", ("loops",),
        inputs=zs)
    add("x / y + x % y + fmod(x, y)", "f16", "x=8 y=8", ("unroll", "loops"), limit=64,
        inputs={"x": [7.0, -7.0, 65504.0, 1e-7, 0.0, inf, nan, 3.0],
                "y": [2.0, 2.0, 0.5, 3.0, 0.0, 2.0, 1.0, -0.0]})
    # the float functions on their edge values, every pair
    for d in ko.FLOATS:
        fi = np.finfo(npdt(d))
        sub, big = float(fi.smallest_subnormal), float(fi.max)
        e = [0.0, -0.0, 1.0, -1.0, inf, -inf, nan, sub, -sub, 2.5, -3.0, big, -big / 3]
        grid = {"x": [a for a in e for _ in e], "y": [b for _ in e for b in e]}
        n = len(e) ** 2
        for f in ("fmax", "fmin", "copysign", "heaviside", "hypot", "atan2", "logaddexp"):
            add("%s(x, y)" % f, d, "x=%d y=%d" % (n, n), ("loops",), inputs=grid)
    add("fmax(x, y) + fmin(x, 1)", "i16", "x=5 y=5", ("unroll",), limit=64,
        inputs={"x": [-32768, 32767, 0, -1, 5], "y": [0, -32768, 32767, 7, -1]})
    return out


# expressions that must be rejected (exit 1, no file written)
REJECTS = [
    ("x + 1.5", "i32", "x=3"),
    ("f64(x) + f32(y)", "f32", "x=3 y=3"),
    ("sqrt(x)", "i32", "x=3"),
    ("(x < y) + (y < x)", "f32", "x=3 y=3"),
    ("max(x < y, x > y)", "i32", "x=3 y=3"),
    ("x & y", "f32", "x=3 y=3"),
    ("~x", "f64", "x=3"),
    ("x << 1", "f32", "x=3"),
    ("x + 300", "i8", "x=3"),
    ("x + -1", "u16", "x=3"),
    ("x + -129", "i8", "x=3"),
    ("x + 18446744073709551616", "u64", "x=3"),
    ("x + 1e39", "f32", "x=3"),
    ("x + y", "f32", "x=3 y=3 z=3"),
    ("x +", "f32", "x=3"),
    ("foo(x)", "f32", "x=3"),
    ("min(x)", "f32", "x=3"),
    ("where(x, x)", "f32", "x=3"),
    ("x ? x", "f32", "x=3"),
    ("x + 007", "f32", "x=3"),
    ("x + 0x", "i32", "x=3"),
    ("exp(x) << 2", "f32", "x=3"),
    ("i32(x) + x", "f32", "x=3"),
    ("-(x < x)", "f32", "x=3"),
    ("abs(x > 0)", "f32", "x=3"),
    ("(x + 1", "f32", "x=3"),
    ("x y", "f32", "x=3 y=3"),
    ("i8(x, x)", "f32", "x=3"),
    ("floor(x) % 2", "i64", "x=3"),
    ("where(x, i8(x), u8(x))", "f32", "x=3"),
    ("x + y", "f32", "x=2,3 y=3,2"),
    # constant parts fold exactly, then must fit
    ("(0 - 2) + x", "u8", "x=3"),
    ("x + (100 + 100)", "i8", "x=3"),
    ("x * (1 << 40)", "i32", "x=3"),
    ("x + 1 / 0", "i32", "x=3"),
    ("x + 5 % (2 - 2)", "f64", "x=3"),
    ("x + (1 << -1)", "u32", "x=3"),
    ("x + 18446744073709551615 * 2", "u64", "x=3"),
    ("x + ~18446744073709551615", "i64", "x=3"),
    ("x * (2 * 3.5e38)", "f32", "x=3"),
    ("x + 1e300 * 1e300", "f64", "x=3"),
    ("x + f32(i8(100 + 100))", "f32", "x=3"),
    # f16 literals must fit once rounded (65520 rounds to inf), new functions
    # take floats only (but fmax / fmin) and exactly two arguments
    ("x + 65520.0", "f16", "x=3"),
    ("x + 65535", "f16", "x=3"),
    ("x * 1e5", "f16", "x=3"),
    ("f16(x) + x", "f32", "x=3"),
    ("hypot(x, 1)", "i32", "x=3"),
    ("copysign(x, y)", "u8", "x=3 y=3"),
    ("atan2(x, y)", "i64", "x=3 y=3"),
    ("logaddexp(x, y)", "i16", "x=3 y=3"),
    ("heaviside(x, 0)", "u32", "x=3"),
    ("heaviside(x)", "f32", "x=3"),
    ("fmax(x, y, x)", "f32", "x=3 y=3"),
    ("fmin(x)", "f16", "x=3"),
    ("arctan2(x, y)", "f32", "x=3 y=3"),
    ("atan2(x, y, x)", "f64", "x=3 y=3"),
    ("fmax(x, y) & 1", "f16", "x=3 y=3"),
]


def command(gen, c, outdir):
    args = [gen, "-o", os.path.join(outdir, c["name"] + ".c")]
    if c["fn"]:
        args += ["--name", c["fn"]]
    args += ["--expr=" + c["expr"]] if c["eq_form"] else ["--expr", c["expr"]]
    if not c["omit_dtype"]:
        args += ["--dtype", c["t"]]
    if c["out"]:
        args += ["--out-dtype", c["out"]]
    args += ["--strategy", c["strategy"]]
    if c["unroll_limit"] is not None:
        args += ["--unroll-limit", str(c["unroll_limit"])]
    for o in c["operands"]:
        args.append("%s%s=%s" % (o["name"], ":" + o["dt"] if o["dt"] else "",
                                 ko.shape_str(o["shape"])))
    return args


def stored_out(c):
    return c["out"] or result_type(c["root"])


# ---------------------------------------------------------------- values

TRAPS64 = [2 ** 62 + 2 ** 38 + 1, -(2 ** 62 + 2 ** 38 + 1), 2 ** 53 + 1, -(2 ** 53 + 1),
           2 ** 24 + 1, 2 ** 63 - 1, 2 ** 63 - 2 ** 39 - 1]


def operand_values(g, s, t, n, shared, cond):
    """Values of an operand stored as s in a kernel of dtype t."""
    if is_float(s):
        x = ko.float_values(g, s, n, shared if s == t else None)
        # more signed zeros (min / max ties) and NaNs (truth tests)
        r = g.random(n)
        x[r < 0.06] = np.where(g.random(n) < 0.5, 0.0, -0.0)[r < 0.06]
        x[(r >= 0.06) & (r < 0.09)] = np.nan
        if not is_float(t):
            # half in t's range (truncation), half anything (saturation, NaN)
            m = g.random(n) < 0.5
            if m.any():
                x[m] = ko.float_to_int_values(g, s, t, int(m.sum()))
    else:
        x = ko.int_values(g, s, n, shared if s == t else None)
        lo, hi = irange(s)
        b = bits(t)
        pool = [v for v in range(-2, max(b, 8) + 3) if lo <= v <= hi]
        m = g.random(n) < 0.2                    # shift counts, exponents
        x[m] = np.array(pool, dtype=x.dtype)[g.integers(0, len(pool), m.sum())]
        if bits(s) == 64:
            traps = [v for v in TRAPS64 + [2 ** 64 - 1, 2 ** 63 + 2 ** 39 + 1]
                     if lo <= v <= hi]
            m = g.random(n) < 0.05
            x[m] = np.array(traps, dtype=x.dtype)[g.integers(0, len(traps), m.sum())]
    if cond:
        x[g.random(n) < 0.4] = 0
    return x


def make_inputs(c):
    g = np.random.default_rng(c["vseed"])
    t = c["t"]
    if is_float(t):
        shared = list(ko.float_values(g, t, 6, None).astype(F64))
    else:
        shared = [int(v) for v in ko.int_values(g, t, 6, None)]
    arrs = []
    for o in c["operands"]:
        s = o["dt"] or t
        if c["inputs"] and o["name"] in c["inputs"]:
            a = np.array(c["inputs"][o["name"]], dtype=npdt(s))
        else:
            a = operand_values(g, s, t, prod(o["shape"]), shared, o["cond"])
        arrs.append(a.reshape(o["shape"]))
    return arrs


# ---------------------------------------------------------------- reference

def f2i(v, to):
    """Float64 array to integer dtype: truncate, saturate, NaN -> 0."""
    lo, hi = irange(to)
    b = bits(to)
    out = np.zeros(v.shape, npdt(to))
    nan = np.isnan(v)
    if lo < 0:
        top, low = 2.0 ** (b - 1), -(2.0 ** (b - 1)) - 1 if b < 64 else -(2.0 ** 63)
    else:
        top, low = 2.0 ** b, -1.0
    hs = ~nan & (v >= top)
    ls = ~nan & (v <= low)
    mid = ~(nan | hs | ls)
    with np.errstate(all="ignore"):
        out[mid] = np.trunc(v[mid]).astype(npdt(to))
    out[hs] = hi
    out[ls] = lo if lo < 0 else 0
    return out


def conv(a, frm, to):
    """Array a of dtype frm converted to dtype to (the project's rules)."""
    frm = "u8" if frm == "bool" else frm
    to = "u8" if to == "bool" else to
    if frm == to:
        return a
    if is_float(frm) and not is_float(to):
        return f2i(a.astype(F64), to)
    with np.errstate(all="ignore"):
        return a.astype(npdt(to))


class V:
    """A reference value: val (array of the node's dtype), err (float64:
    the bound on |kernel - val|, 0 = exact) and unk (elements whose
    kernel value cannot be predicted)."""

    def __init__(self, val, err=None, unk=None):
        self.val = val
        self.err = np.zeros(val.shape, F64) if err is None else err
        self.unk = np.zeros(val.shape, bool) if unk is None else unk

    def inexact(self):
        return self.err > 0

    def lohi(self):
        v = self.val.astype(F64)
        return v - self.err, v + self.err


def spacing(m, d):
    with np.errstate(all="ignore"):
        return np.spacing(m.astype(npdt(d))).astype(F64)


def finish(val, err, unk, d):
    """A float result of dtype d with a propagated bound: add rounding
    slack; an element whose interval reaches overflow, inf or NaN is
    unknown."""
    pos = err > 0
    if not pos.any():
        return V(val, np.zeros(val.shape, F64), unk)
    fmax = float(np.finfo(npdt(d)).max)
    with np.errstate(all="ignore"):
        m = np.abs(val.astype(F64)) + err
        big = pos & ~(m <= fmax)
        ok = pos & ~big
        e = np.where(ok, err + 2 * spacing(np.where(ok, m, 0), d), 0.0)
    return V(val, e, unk | big)


def truth(a):
    """(value != 0, unknown) of V a: an inexact interval holding 0 is unknown."""
    lo, hi = a.lohi()
    sure = (lo > 0) | (hi < 0)
    return a.val != 0, a.unk | (a.inexact() & ~sure)


def convert_v(a, frm, to):
    frm = "u8" if frm == "bool" else frm
    if frm == to:
        return a
    val = conv(a.val, frm, to)
    if not a.inexact().any():
        return V(val, None, a.unk.copy())
    if is_float(frm) and is_float(to):
        return finish(val, a.err, a.unk, to)
    # float -> int: sure only when both ends of the interval convert alike
    lo, hi = a.lohi()
    unk = a.unk | (a.inexact() & (f2i(lo, to) != f2i(hi, to)))
    return V(val, None, unk)


def int_div(a, b, d):
    with np.errstate(all="ignore"):
        q = np.floor_divide(a, b)
        rem = np.remainder(a, b)
        if irange(d)[0] < 0:
            adj = (rem != 0) & ((a < 0) != (b < 0))
            q = q + adj.astype(npdt(d))
        return np.where(b == 0, np.zeros_like(q), q).astype(npdt(d))


def int_pow(a, b, d):
    with np.errstate(all="ignore"):
        if irange(d)[0] >= 0:
            return np.power(a, b).astype(npdt(d))
        neg = b < 0
        r = np.power(a, np.where(neg, 0, b).astype(npdt(d)))
        odd = (b & 1) != 0
        special = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0))
        return np.where(neg, special.astype(npdt(d)), r).astype(npdt(d))


def minmax(a, b, key):
    """np.maximum / np.minimum as the project defines them for f32 and f64
    (NumPy's SIMD loops): a NaN a is returned, else a NaN b, else a > b ?
    a : b (equal values give b). For float16, and for np.fmax / np.fmin,
    NumPy's own (float16's loops give a for equal values)."""
    with np.errstate(all="ignore"):
        if key in ("fmax", "fmin") or a.dtype == np.float16:
            return {"max": np.maximum, "min": np.minimum, "fmax": np.fmax,
                    "fmin": np.fmin}[key](a, b)
        pick = (a > b) if key == "max" else (a < b)
        if a.dtype.kind == "f":
            return np.where(np.isnan(a), a, np.where(np.isnan(b), b, np.where(pick, a, b)))
        return np.where(pick, a, b)


def truth_arg(a, env, shape):
    """(value != 0, unknown) of the argument a of && || ! or where's
    condition: an operand is tested as it is stored (a float 0.5 or NaN is
    true whatever T, an i32 INT_MIN in an i8 kernel too), anything else as
    computed."""
    if a.kind == "opd":
        return env[("stored", a.name)] != 0, np.zeros(shape, bool)
    return truth(evaluate(a, env, shape))


def evaluate(n, env, shape):
    """V of node n; env: operand name -> array in T, of the result shape,
    and ("stored", name) -> the array as stored."""
    if n.kind == "opd":
        return V(env[n.name])
    if n.kind == "lit":
        return V(np.full(shape, lit_value(n, n.type), npdt(n.type)))
    if n.kind == "cast":
        a = n.args[0]
        return convert_v(evaluate(a, env, shape), a.type, n.dt)
    k = kind_of(n.key)
    if k == "logic":
        ts = [truth_arg(a, env, shape) for a in n.args]
        if n.key == "not":
            t, u = ts[0]
            return V((~t).astype(np.uint8), None, u)
        (t0, u0), (t1, u1) = ts
        if n.key == "land":
            r = t0 & t1
            known = (~u0 & ~u1) | (~u0 & ~t0) | (~u1 & ~t1)
        else:
            r = t0 | t1
            known = (~u0 & ~u1) | (~u0 & t0) | (~u1 & t1)
        return V(r.astype(np.uint8), None, ~known)
    if k == "select":
        t, cu = truth_arg(n.args[0], env, shape)
        a, b = [convert_v(evaluate(x, env, shape), x.type, n.calc) for x in n.args[1:]]
        return V(np.where(t, a.val, b.val).astype(npdt(n.calc)),
                 np.where(t, a.err, b.err), np.where(t, a.unk, b.unk) | cu)
    d = n.calc
    args = [convert_v(evaluate(x, env, shape), x.type, d) for x in n.args]
    unk = np.zeros(shape, bool)
    for a in args:
        unk = unk | a.unk
    if k == "cmp":
        a, b = args
        with np.errstate(all="ignore"):
            r = CMP[n.key](a.val, b.val).astype(np.uint8)
        if a.inexact().any() or b.inexact().any():
            alo, ahi = a.lohi()
            blo, bhi = b.lohi()
            sure = (ahi < blo) | (bhi < alo)
            sure |= (np.isnan(a.val) & ~a.inexact()) | (np.isnan(b.val) & ~b.inexact())
            unk |= (a.inexact() | b.inexact()) & ~sure
        return V(r, None, unk)
    fl = is_float(d)
    vals = [a.val for a in args]
    with np.errstate(all="ignore"):
        key = n.key
        if key in PROPAGATE:
            if key in ("min", "max", "fmax", "fmin"):
                val, err = vals[0], args[0].err
                for a in args[1:]:
                    val = minmax(val, a.val, key)
                    err = np.maximum(err, a.err)
                err = np.where(np.isnan(val.astype(F64)) if fl else False, 0.0, err)
            elif key == "neg":
                val, err = np.negative(vals[0]), args[0].err
            elif key == "abs":
                val, err = np.absolute(vals[0]), args[0].err
            else:
                a, b = args
                val = {"add": np.add, "sub": np.subtract, "mul": np.multiply}[key](a.val, b.val)
                if key == "mul":
                    err = (np.abs(a.val.astype(F64)) * b.err + np.abs(b.val.astype(F64)) * a.err
                           + a.err * b.err)
                    err = np.where((a.err > 0) | (b.err > 0), err, 0.0)
                else:
                    err = a.err + b.err
            val = np.asarray(val).astype(npdt(d))
            if not fl:
                return V(val, None, unk)
            err = np.nan_to_num(err, nan=np.inf)
            # Inexact values are finite (finish), so a non-finite result is
            # exact when an exact argument is inf or NaN (inf + y', NaN * y',
            # max(NaN, y')), except for * when the inexact factor may be 0
            # or of the other sign; otherwise it is an overflow (unknown).
            vf = val.astype(F64)
            nonfin = ~np.isfinite(vf)
            sure = np.zeros(shape, bool)
            nan_arg = np.zeros(shape, bool)
            for a in args:
                sure |= (a.err == 0) & ~np.isfinite(a.val.astype(F64))
                nan_arg |= (a.err == 0) & np.isnan(a.val.astype(F64))
            if key == "mul":
                for a in args:
                    near0 = (a.err > 0) & (np.abs(a.val.astype(F64)) <= a.err)
                    # inf * y' (NaN or +-inf?), or 0 * y' compared bit for bit
                    # (err 0: which zero?)
                    unk = unk | (near0 & ~nan_arg & (nonfin | ((vf == 0) & (err == 0))))
            err = np.where(nonfin & sure, 0.0, err)
            return finish(val, err, unk, d)
        # the rest need exact arguments (floor / ceil: or one step's interval)
        inexact = np.zeros(shape, bool)
        for a in args:
            inexact |= a.inexact()
        if key in ("floor", "ceil"):
            f = np.floor if key == "floor" else np.ceil
            val = f(vals[0])
            if inexact.any():
                lo, hi = args[0].lohi()
                flo, fhi = f(lo), f(hi)
                same = (flo == fhi) & (np.signbit(flo) == np.signbit(fhi))
                unk |= inexact & ~same
            return V(val.astype(npdt(d)), None, unk)
        unk |= inexact
        if key == "div":
            val = np.divide(*vals) if fl else int_div(vals[0], vals[1], d)
        elif key == "pow":
            val = np.power(*vals) if fl else int_pow(vals[0], vals[1], d)
        elif key in UFUNC:
            val = UFUNC[key](*vals)
        else:
            raise RuntimeError("no reference for %s" % key)
        if np.asarray(val).dtype != npdt(d):
            raise RuntimeError("NumPy computed %s in %s, not %s" % (
                key, np.asarray(val).dtype, d))
        val = np.asarray(val).astype(npdt(d))
        if fl and key in INEXACT:
            # the C library's and NumPy's may differ by a few ULP (not inf /
            # NaN); in f16 by 1 (bc.h)
            fin = np.isfinite(val) & ~unk
            ulps = 1 if d == "f16" else ULPS
            err = np.where(fin, ulps * spacing(np.abs(val.astype(F64)), d), 0.0)
            return V(val, err, unk)
        return V(val, None, unk)


def reference(c, arrs):
    """(want, err, unk) in the stored result dtype."""
    t = c["t"]
    shape = tuple(c["result"])
    env = {}
    for a, o in zip(arrs, c["operands"]):
        full = np.broadcast_to(a, shape).copy()      # (ascontiguousarray makes 0-d 1-d)
        env[o["name"]] = conv(full, o["dt"] or t, t)
        env[("stored", o["name"])] = full
    root = c["root"]
    v = evaluate(root, env, shape)
    v = convert_v(v, result_type(root), stored_out(c))
    return np.array(v.val, dtype=npdt(stored_out(c))), v.err, v.unk


# ---------------------------------------------------------------- compare

def compare(want, got, err, unk, dt):
    """(bad mask, number of bounded elements, the largest share of its
    bound an element used)."""
    if not is_float(dt):
        return (want != got) & ~unk, 0, 0.0
    ut = ko.UINT[dt]
    wn, gn = np.isnan(want), np.isnan(got)
    exact = err == 0
    bad = exact & (want.view(ut) != got.view(ut)) & ~(wn & gn)
    used = 0.0
    approx = ~exact & ~unk
    if approx.any():
        w, g, e = want[approx].astype(F64), got[approx].astype(F64), err[approx]
        with np.errstate(all="ignore"):
            diff = np.abs(w - g)
            ok = np.isfinite(g) & (diff <= e * (1 + 1e-9))
        if ok.any():
            used = float(np.max(diff[ok] / e[ok]))
        sub = np.zeros(want.shape, bool)
        sub[approx] = ~ok
        bad |= sub
    return bad & ~unk, int(approx.sum()), used


def check_case(c, odir, outdata):
    """None, or a diagnostic: the command, the expression, the first few
    mismatches with the inputs at that element."""
    head = "%s\n    expr %r, T=%s, result %s (%s)" % (
        c["cmd"], c["expr"], c["t"], ko.shape_str(c["result"]), stored_out(c))
    if c.get("gen_error"):
        return "%s: %s" % (head, c["gen_error"])
    if odir in c.get("cc_error", {}):
        return "%s: %s" % (head, c["cc_error"][odir])
    if odir in c.get("run_error", {}):
        return "%s: %s" % (head, c["run_error"][odir])
    if outdata is None:
        return "%s: not run" % head
    to = stored_out(c)
    got = np.frombuffer(outdata, dtype=npdt(to)).reshape(c["result"])
    bad, c["n_approx"], used = compare(c["want"], got, c["err"], c["unk"], to)
    c["used"] = max(c.get("used", 0.0), used)
    if not bad.any():
        return None
    lines = ["%s\n    %d of %d elements differ" % (head, int(bad.sum()), bad.size)]
    for flat in np.flatnonzero(bad.reshape(-1))[:3]:
        idx = np.unravel_index(int(flat), tuple(c["result"])) if c["result"] else ()
        ins = []
        for a, o in zip(c["arrs"], c["operands"]):
            s = o["dt"] or c["t"]
            v = np.broadcast_to(a, tuple(c["result"]))[idx]
            txt = "%s=%s" % (o["name"], ko.fmt(v, s))
            if s != c["t"]:
                txt += "->%s" % ko.fmt(conv(np.array([v]), s, c["t"])[0], c["t"])
            ins.append(txt)
        bound = " (bound %g)" % c["err"][idx] if c["err"][idx] > 0 else ""
        lines.append("    at [%s]: %s: expected %s, got %s%s" % (
            ",".join(str(int(i)) for i in idx), " ".join(ins), ko.fmt(c["want"][idx], to),
            ko.fmt(got[idx], to), bound))
    return "\n".join(lines)


# ---------------------------------------------------------------- generation

def check_rejects(gen, scratch):
    """Each REJECTS entry: the oracle's typing rejects it too, and bcastgen
    exits 1 without writing a file."""
    fails = []
    rdir = os.path.join(scratch, "rejects")
    os.makedirs(rdir)
    for k, (expr, t, ops) in enumerate(REJECTS):
        names = [o.split("=")[0].split(":")[0] for o in ops.split()]
        try:
            typecheck(expr, names, t)
            shapes = [tuple(int(v) for v in o.split("=")[1].split(",") if v) for o in ops.split()]
            np.broadcast_shapes(*shapes)
            fails.append("oracle accepts %r (dtype %s): the test's rules are wrong" % (expr, t))
        except (ExprError, ValueError):
            pass
        path = os.path.join(rdir, "r%d.c" % k)
        args = [gen, "-o", path, "--expr", expr, "--dtype", t] + ops.split()
        rc, out, err = ko.run(args, timeout=60)
        if rc != 1 or os.path.exists(path) or os.path.exists(path[:-1] + "h"):
            fails.append("%s: exit %d (want 1)%s: %s" % (
                shlex.join(args), rc, ", wrote a file" if os.path.exists(path) else "",
                ko.first_lines(err, 2)))
    return fails


def collapse(s):
    return " ".join(s.split())


def check_banner(c, kdir):
    """The banner's "Made by" command must make the same kernel: its
    --expr '...' must parse to the same tree as the expression given
    (whitespace and redundant outer parentheses may differ)."""
    try:
        with open(os.path.join(kdir, c["name"] + ".c")) as f:
            lines = f.read().split("\n")
    except OSError:
        return None
    for i, line in enumerate(lines):
        if "Made by:" in line and i + 1 < len(lines):
            made = lines[i + 1]
            j = made.find("--expr '")
            k = made.find("'", j + 8)
            if j < 0 or k < 0:
                return "%s\n    banner: %s: no --expr '...'" % (c["cmd"], made.strip())
            shown = made[j + 8:k]
            names = [o["name"] for o in c["operands"]]
            try:
                same = Parser(shown, names).parse().sig(False) == \
                    Parser(c["expr"], names).parse().sig(False)
            except ExprError:
                same = False
            if not same:
                return "%s\n    banner: %s\n    its --expr %r is not the expression given, %r" \
                    % (c["cmd"], made.strip(), shown, collapse(c["expr"]))
            return None
    return "%s: no 'Made by' line in the banner" % c["cmd"]


# ---------------------------------------------------------------- coverage

def features(c):
    """The operators, functions, casts and forms case c uses: as written
    (its parse), and as typed (folded)."""
    f = set()
    for n in c["root"].walk():
        if n.kind != "op":
            continue
        for a in n.args[1 if n.key == "where" else 0:]:
            if a.type == "bool" and kind_of(n.key) != "logic" and n.calc != "u8":
                f.add("bool converted")
        if n.key in INEXACT and is_float(n.calc):
            f.add("inexact " + n.key)
        if kind_of(n.key) == "logic" or n.key == "where":
            stored = {o["name"]: o["dt"] or c["t"] for o in c["operands"]}
            for a in n.args[:1 if n.key == "where" else len(n.args)]:
                if a.kind == "opd" and stored[a.name] != c["t"]:
                    f.add("truth as stored")
    for n in c["parsed"].walk():
        if n.kind == "cast":
            f.add("cast " + n.dt)
        elif n.kind == "lit":
            f.add("literal " + ("float" if n.is_float else "hex" if "x" in n.text.lower()
                                else "int"))
            if n.neg:
                f.add("literal negative")
        elif n.kind == "op":
            if n.key == "where":
                f.add("?:" if n.style == "tern" else "where()")
                if all(a.kind == "lit" for a in n.args[1:]):
                    f.add("untyped where")
            elif n.key in KEY_TOKEN:
                f.add(KEY_TOKEN[n.key])
            elif n.key in UNARY_TOKEN:
                f.add("unary " + UNARY_TOKEN[n.key])
            else:
                f.add(n.key + "()")
            if n.key != "where" and all(a.kind == "lit" for a in n.args):
                f.add("folded constant")
            if n.key in ("min", "max") and len(n.args) > 2:
                f.add("min/max of 3+")
    if any(o["dt"] and not o["cond"] for o in c["operands"]):
        f.add("operand dtype")
    if any(o["cond"] for o in c["operands"]):
        f.add("condition operand")
    if c["out"]:
        f.add("--out-dtype")
    if c["omit_dtype"] and c["t"] != "f32":
        f.add("no --dtype")
    if 0 in c["result"]:
        f.add("zero-size")
    f.add("T=" + c["t"])
    return f


def coverage(cases):
    count = {}
    for c in cases:
        for f in features(c):
            count[f] = count.get(f, 0) + 1
    need = (["cast " + d for d in DT_NAMES] + list(KEY_TOKEN.values()) +
            ["unary " + t for t in UNARY_TOKEN.values()] +
            [f + "()" for f in FUNCS if f != "where"] +
            ["where()", "?:", "literal float", "literal hex", "literal int",
             "literal negative", "bool converted", "min/max of 3+", "operand dtype",
             "condition operand", "--out-dtype", "zero-size", "folded constant",
             "untyped where", "no --dtype", "truth as stored"] +
            ["inexact " + k for k in INEXACT] +
            ["T=" + d for d in DT_NAMES])
    return count, need


# ---------------------------------------------------------------- hoisting

COUNTER_H = r"""
#include <math.h>
float counted_expf(float);
float counted_logf(float);
double counted_exp(double);
#define expf(v) counted_expf(v)
#define logf(v) counted_logf(v)
#define exp(v) counted_exp(v)
"""

COUNT_MAIN = r"""
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
long n_expf, n_logf, n_exp;
float counted_expf(float v) { n_expf++; return expf(v); }
float counted_logf(float v) { n_logf++; return logf(v); }
double counted_exp(double v) { n_exp++; return exp(v); }
%(proto)s
int main(void)
{
	%(decls)s
	long i;
	%(fill)s
	%(call)s;
	printf("%%ld %%ld %%ld\n", n_expf, n_logf, n_exp);
	return 0;
}
"""

# (log, not sqrt: bc.h computes sqrt without calling the C library.)
# Each exp / log is computed once per iteration of the loop where its
# value changes: exp(b) with b=3,1,1 under x=3,4,5 is called 3 times
# (loop i0 < 3); under x=2,3,4,5 the loops are i0 < 2 (b does not move),
# i1 < 3, i2 < 20, so 2 x 3 = 6 times ("once per i1"), not 120.
HOIST = [
    # expression, dtype, operands, expected (expf, logf, exp) calls
    ("x + exp(b)", "f32", "x=3,4,5 b=3,1,1", (3, 0, 0)),
    ("x + exp(b)", "f32", "x=2,3,4,5 b=3,1,1", (6, 0, 0)),
    ("x + log(s)", "f32", "x=2,3,4,5 s=", (0, 1, 0)),
    ("x+exp(b)*log(s)", "f32", "x=4,3,32,32 b=3,1,1 s=", (12, 1, 0)),
    ("x * exp(b) - exp(s)", "f64", "x=2,3,4,5 b=3,1,1 s=", (0, 0, 7)),
    ("x + exp(b)", "f16", "x=2,3,4,5 b=3,1,1", (6, 0, 0)),        # f16: expf, once
]


def hoist_check(gen, cc, runtime, scratch, k, spec, flags):
    expr, t, ops, want = spec
    d = os.path.join(scratch, "hoist%d" % k)
    os.makedirs(d)
    with open(os.path.join(d, "counter.h"), "w") as f:
        f.write(COUNTER_H)
    args = [gen, "-o", os.path.join(d, "h.c"), "--strategy", "loops", "--expr", expr,
            "--dtype", t] + ops.split()
    cmd = shlex.join(args)
    rc, out, err = ko.run(args, timeout=60)
    if rc != 0:
        return False, ["%s: exit %d: %s" % (cmd, rc, ko.first_lines(err))]
    rc, out, err = ko.run([cc] + flags + ["-I", runtime, "-include", "counter.h", "-c",
                                          "h.c", "-o", "h.o"], cwd=d)
    if rc != 0 or err.strip():
        return False, ["%s: kernel does not compile with -include counter.h: %s" % (
            cmd, ko.first_lines(err, 3))]
    ct = DTYPES[t][1]
    operands = [(o.split("=")[0], [int(v) for v in o.split("=")[1].split(",") if v])
                for o in ops.split()]
    decls = " ".join("static %s %s_[%d];" % (ct, nm, max(1, prod(sh))) for nm, sh in operands)
    n_out = prod(list(np.broadcast_shapes(*[tuple(sh) for _, sh in operands])))
    decls += " static %s out_[%d];" % (ct, n_out)
    fill = " ".join("for (i = 0; i < %d; i++) %s_[i] = (%s)(i %% 7) / 8;" % (
        prod(sh), nm, ct) for nm, sh in operands)
    proto = "void h(%s);" % ", ".join(["const %s *" % ct] * len(operands) + ["%s *" % ct])
    call = "h(%s)" % ", ".join(["%s_" % nm for nm, _ in operands] + ["out_"])
    with open(os.path.join(d, "main.c"), "w") as f:
        f.write(COUNT_MAIN % {"proto": proto, "decls": decls, "fill": fill, "call": call})
    rc, out, err = ko.run([cc, "-std=c99", "-O1", "-w", "-o", "main", "main.c", "h.o",
                           "-lm"], cwd=d)
    if rc != 0:
        return False, ["%s: harness does not link: %s" % (cmd, ko.first_lines(err, 3))]
    rc, out, err = ko.run([os.path.join(d, "main")], cwd=d)
    got = tuple(int(v) for v in out.split()) if rc == 0 else None
    if got != want:
        return False, ["%s: calls (expf, logf, exp) = %s, want %s (one per "
                       "iteration of the loop where the value changes: not hoisted?)"
                       % (cmd, got, want)]
    return True, []


# ---------------------------------------------------------------- driver

def main():
    gen = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/bcastgen")
    n = int(os.environ.get("BCAST_EXPR_N", str(DEFAULT_N)))
    seed = int(os.environ.get("BCAST_EXPR_SEED", "20240715"))
    jobs = max(1, int(os.environ.get("BCAST_EXPR_JOBS", "2")))
    cc = os.environ.get("BCAST_EXPR_CC") or "gcc"
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    runtime = os.path.join(top, "runtime")
    t0 = time.time()

    try:
        table = read_table(gen)
    except RuntimeError as e:
        print("Bail out! the op table: %s" % e, flush=True)
        return 1
    builds = ko.BUILDS
    nb = NBATCH
    tap = ko.Tap(6 + len(builds) * (2 * nb + 1) + len(HOIST))
    tap.result(*table, show=10)
    cases = build_corpus(seed, n)
    fixed = fixed_cases(random.Random(seed + 1))
    for i, c in enumerate(cases + fixed):
        c["id"] = i
        c["name"] = ("e%04d" if not c["fixed"] else "f%04d") % (i + 1)
        if c["fn"]:
            c["fn"] = "fn_e%04d" % (i + 1)
        c["to"] = stored_out(c)          # for kernels_oracle's harness writer
        c["inplace"] = False
    batches = [cases[k * len(cases) // nb:(k + 1) * len(cases) // nb] for k in range(nb)]
    batches.append(fixed)
    nodes = sum(sum(1 for _ in c["root"].walk()) for c in cases)
    print("# seed %d, %d random cases (%d nodes) + %d fixed, %s, bcastgen %s" % (
        seed, len(cases), nodes, len(fixed), cc, gen), flush=True)
    cnt = lambda f: sum(1 for c in cases if f(c))
    print("# operands 1/2/3/4: %s; result rank 0-5: %s; strategies %s" % (
        "/".join(str(cnt(lambda c, k=k: len(c["operands"]) == k)) for k in range(1, 5)),
        "/".join(str(cnt(lambda c, k=k: len(c["result"]) == k)) for k in range(6)),
        ", ".join("%s %d" % (s, cnt(lambda c, s=s: c["strategy"] == s)) for s in STRATEGIES)),
        flush=True)

    keep = os.environ.get("BCAST_EXPR_KEEP")
    scratch = tempfile.mkdtemp(prefix="bcastgen-expr.")
    if keep:
        print("# scratch directory kept: %s" % scratch)
    try:
        kdir = os.path.join(scratch, "k")
        os.makedirs(kdir)
        nunk = nall = 0
        for c in cases + fixed:
            c["arrs"] = make_inputs(c)
            c["want"], c["err"], c["unk"] = reference(c, c["arrs"])
            nunk += int(c["unk"].sum())
            nall += c["unk"].size
        ko.write_inputs(scratch, batches, lambda c: npdt(stored_out(c)).itemsize)

        # 1. generation
        allc = cases + fixed
        ko.generate(gen, allc, kdir, jobs, command, lambda c, args: ko.check_dtype(c, kdir))
        bad = [c for c in allc if c["gen_error"]]
        tap.result(not bad, "bcastgen --expr -o: %d kernels generated (%.0f s)" % (
            len(allc), time.time() - t0),
            ["%s\n    %s" % (c["cmd"], c["gen_error"]) for c in bad], total=len(allc))

        # 2. rejects
        fails = check_rejects(gen, scratch)
        tap.result(not fails, "%d invalid expressions: exit 1, no file written" % len(REJECTS),
                   fails, total=len(REJECTS))

        # 3. banners
        fails = [d for d in (check_banner(c, kdir) for c in allc if not c["gen_error"]) if d]
        tap.result(not fails, "the banner's 'Made by' line names the expression as given",
                   fails, total=len(allc))

        # 4. headers: all of them, each twice, in one translation unit
        incs = ["-I", runtime, "-I", kdir]
        ok, diags = ko.check_headers(cc, builds[0][1], incs, scratch, allc)
        tap.result(ok, "all headers, each included twice, in one file (strict flags)", diags)

        # 5. coverage of the random corpus
        count, need = coverage(cases)
        low = [f for f in need if count.get(f, 0) < 20]
        print("# coverage (cases): " + ", ".join("%s %d" % (f, count.get(f, 0)) for f in need))
        print("# reference: %d of %d elements unknown (an inexact value decides them)" % (
            nunk, nall))
        covered = "every operator, function, cast and literal form in 20+ random cases"
        if n < DEFAULT_N:
            tap.skip(covered, "a sample of %d cases (BCAST_EXPR_N); the %d of the whole "
                     "run cover every form" % (n, DEFAULT_N))
        else:
            tap.result(not low, covered, ["too few: " + ", ".join(
                "%s %d" % (f, count.get(f, 0)) for f in low)] if low else [])

        for tag, (bname, kflags, hflags) in zip(("o2", "san"), builds):
            tb = time.time()
            odirs = [os.path.join(scratch, "%s-%d" % (tag, k)) for k in range(len(batches))]
            gens = [[c for c in b if not c["gen_error"]] for b in batches]

            def build_and_run(k):
                ok, diags, objs = ko.compile_kernels(cc, kflags, incs, kdir, odirs[k], gens[k])
                exe, todo, ldiags = ko.link_harness(cc, hflags, odirs[k], gens[k], objs, "")
                if exe:
                    ko.run_harness(exe, os.path.join(scratch, "in%d.bin" % k),
                                   os.path.join(scratch, "out%d-%s.bin" % (k, tag)),
                                   todo, odirs[k])
                return ok, diags + ldiags
            # the fixed cases' batch, the slowest to compile, first
            order = [nb] + list(range(nb))
            with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
                res = dict(zip(order, ex.map(build_and_run, order)))
            for k, batch in enumerate(batches):
                with open(os.path.join(scratch, "out%d-%s.bin" % (k, tag)), "rb") as f:
                    data = f.read()
                ok, diags = res[k]
                fails = [d for d in (check_case(
                    c, odirs[k], data[c["out_off"]:c["out_off"] + c["out_bytes"]])
                    for c in batch) if d]
                if k < nb:
                    tap.result(ok and not diags, "%s: batch %d/%d: %d kernels compile (%s), "
                               "link and run" % (bname, k + 1, nb, len(gens[k]),
                                                 " ".join(kflags)), diags)
                    used = max([0.0] + [c.get("used", 0.0) for c in batch])
                    napprox = sum(c.get("n_approx", 0) for c in batch)
                    tap.result(not fails, "%s: batch %d/%d: %d cases match NumPy (strategies "
                               "%s; %d inexact elements, within %.0f%% of their bound)" % (
                                   bname, k + 1, nb, len(batch), "/".join(
                                       str(sum(1 for c in batch if c["strategy"] == s))
                                       for s in STRATEGIES), napprox, 100 * used),
                               fails, total=len(batch))
                else:
                    tap.result(ok and not diags and not fails,
                               "%s: %d fixed cases (relu bias, x + exp(b), where / ?: with a "
                               "u8 condition, integer / %% with 0 and INT_MIN/-1, ...)" % (
                                   bname, len(batch)), diags + fails, show=10)
            print("# %s build: %.0f s" % (bname, time.time() - tb), flush=True)

        # hoisting
        for k, spec in enumerate(HOIST):
            ok, diags = hoist_check(gen, cc, runtime, scratch, k, spec, builds[0][1])
            tap.result(ok, "hoisting: --strategy loops %r %s: expf/sqrtf/exp called %s "
                       "times" % (spec[0], spec[2], "/".join(str(v) for v in spec[3])), diags)
    finally:
        if not keep:
            shutil.rmtree(scratch, ignore_errors=True)
    print("# total %.0f s" % (time.time() - t0))
    return 1 if tap.failed else 0


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # clean up scratch
    try:
        sys.exit(main())
    except SystemExit:
        raise
    except BaseException:
        # never die without a TAP failure
        if not ko.Tap.started:
            print("1..1")
        print("not ok - expr_oracle.py crashed")
        for line in traceback.format_exc().splitlines():
            print("# " + line)
        sys.exit(1)
