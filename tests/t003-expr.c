/*
** t003-expr: fused expressions without Lua: parsing and C's precedence,
** nesting, constant folding, types, and errors with their columns. How
** the tree is planned is t004's; how it is spelled in C, t160's.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "tap.h"

static const char *const names[] = {"x", "y", "w", "b", "c"};
static struct expr e;
static struct strbuf err;

/*
** Append node I as a prefix form: (add x (multiply y 2)). A number shows
** as written, a folded constant by its value: =-2.
*/
static void
show(struct strbuf *sb, int i)
{
	const struct expr_node *n = &e.node[i];

	switch (n->kind) {
	case EXPR_OPERAND:
		sb_add(sb, names[n->operand]);
		return;
	case EXPR_LITERAL:
		if (n->folded && n->is_float)
			sb_printf(sb, "=%g", n->value);
		else if (n->folded)
			sb_printf(sb, "=%s%llu", n->negative ? "-" : "",
			          (unsigned long long)n->magnitude);
		else
			sb_addn(sb, e.src + n->start, (size_t)(n->end - n->start));
		return;
	case EXPR_CAST:
		sb_printf(sb, "(%s ", n->calc->name);
		break;
	case EXPR_OP:
		sb_printf(sb, "(%s ", n->op->name);
		break;
	}
	for (int k = 0; k < n->nargs; k++) {
		if (k)
			sb_add(sb, " ");
		show(sb, n->arg[k]);
	}
	sb_add(sb, ")");
}

/* Parse and check SRC over operands x..c in dtype T; return 0 or -1. */
static int
load(const char *src, int nnames, const char *t)
{
	expr_free(&e);
	sb_free(&err);
	if (expr_parse(&e, src, names, nnames, &err) != 0)
		return -1;
	return expr_check(&e, dtype_find(t), &err);
}

/* Test that SRC over NNAMES operands in dtype T parses to the prefix form WANT. */
static void
parses_in(const char *t, const char *src, int nnames, const char *want)
{
	struct strbuf got = {0};

	if (load(src, nnames, t) == 0)
		show(&got, e.root);
	else
		sb_printf(&got, "error: %s", err.s);
	if (!ok(got.s && strcmp(got.s, want) == 0, "'%s' is %s", src, want))
		diag("got %s", got.s);
	sb_free(&got);
}

/* Test that SRC over NNAMES operands in f32 parses to the prefix form WANT. */
static void
parses(const char *src, int nnames, const char *want)
{
	parses_in("f32", src, nnames, want);
}

/*
** Test that SRC, "x * CONSTANT" in f32, gives the constant the sign
** NEGATIVE once typed: -0.0 is negative zero, an integer 0 never is.
*/
static void
zero_sign(const char *src, int negative)
{
	int lit = -1;

	if (load(src, 1, "f32") == 0 && e.node[e.root].nargs == 2)
		lit = e.node[e.root].arg[1];
	if (!ok(lit >= 0 && e.node[lit].kind == EXPR_LITERAL && e.node[lit].value == 0
	        && (signbit(e.node[lit].value) != 0) == negative, "'%s' multiplies by %s",
	        src, negative ? "-0.0" : "+0.0"))
		diag("got %s", lit >= 0 ? (signbit(e.node[lit].value) ? "-0.0" : "+0.0") : err.s);
}

/* Test that SRC in dtype T fails with MSG at 1-based column COL. */
static void
fails(const char *src, int nnames, const char *t, int col, const char *msg)
{
	int r = load(src, nnames, t);

	if (!ok(r != 0 && err.s && strcmp(err.s, msg) == 0 && e.err_pos + 1 == col,
	        "'%.40s' in %s: %d: %s", src, t, col, msg))
		diag("got %d: %d: %s", r, e.err_pos + 1, err.s);
}

/* The binary operators by C's precedence, loosest first, with their ops. */
static const struct {
	const char *token, *op;
	int level;
} binary[] = {
	{"||", "logical_or", 0}, {"&&", "logical_and", 1}, {"|", "bitwise_or", 2},
	{"^", "bitwise_xor", 3}, {"&", "bitwise_and", 4}, {"==", "equal", 5},
	{"!=", "not_equal", 5}, {"<", "less", 6}, {"<=", "less_equal", 6},
	{">", "greater", 6}, {">=", "greater_equal", 6}, {"<<", "left_shift", 7},
	{">>", "right_shift", 7}, {"+", "add", 8}, {"-", "subtract", 8},
	{"*", "multiply", 9}, {"/", "divide", 9}, {"%", "remainder", 9},
	{NULL, NULL, 0}
};

/*
** Test every pair of binary operators a, b: "x a y b w" groups to the
** left when a binds at least as tightly as b, else to the right; and
** each against the unary operators and ?: in i32. One test per pair.
*/
static void
precedence(void)
{
	char src[64], want[128];

	for (int a = 0; binary[a].token; a++) {
		const char *ta = binary[a].token, *oa = binary[a].op;

		for (int b = 0; binary[b].token; b++) {
			const char *tb = binary[b].token, *ob = binary[b].op;

			snprintf(src, sizeof src, "x %s y %s w", ta, tb);
			if (binary[a].level >= binary[b].level)
				snprintf(want, sizeof want, "(%s (%s x y) w)", ob, oa);
			else
				snprintf(want, sizeof want, "(%s x (%s y w))", oa, ob);
			parses_in("i32", src, 3, want);
		}
		snprintf(src, sizeof src, "-x %s ~y %s !w", ta, ta);
		snprintf(want, sizeof want, "(%s (%s (negative x) (invert y)) (logical_not w))",
		         oa, oa);
		parses_in("i32", src, 3, want);
		snprintf(src, sizeof src, "x %s y ? w : b %s c", ta, ta);
		snprintf(want, sizeof want, "(where (%s x y) w (%s b c))", oa, oa);
		parses_in("i32", src, 5, want);
	}
}

/* Return HEAD N times, then MIDDLE, then TAIL N times. */
static char *
nest(const char *head, int n, const char *middle, const char *tail)
{
	struct strbuf sb = {0};

	for (int k = 0; k < n; k++)
		sb_add(&sb, head);
	sb_add(&sb, middle);
	for (int k = 0; k < n; k++)
		sb_add(&sb, tail);
	return sb.s;
}

/*
** Test that MIDDLE nested N times in HEAD ... TAIL is accepted, and
** N + 1 times rejected at column COL (1-based) for its level 65.
*/
static void
depth(const char *head, int n, const char *middle, const char *tail, int col)
{
	char *src = nest(head, n, middle, tail);

	ok(load(src, 1, "i32") == 0, "%d levels of '%s%s%s' are accepted", n, head,
	   middle, tail);
	free(src);
	src = nest(head, n + 1, middle, tail);
	fails(src, 1, "i32", col, "the expression nests too deeply: more than 64 levels");
	free(src);
}

/*
** Constant parts, over x in dtype T: the tree, a folded constant shown
** as =VALUE; or, where COL is not 0, the error and its column.
*/
static const struct {
	const char *src, *t;
	int col;
	const char *want;
} folding[] = {
	{"x ^ ~(-2)", "u16", 0, "(bitwise_xor x =1)"},
	{"x + -2", "u8", 5, "'-2' does not fit u8 (0 to 255)"},
	{"(0 - 2) + x", "u8", 1, "'(0 - 2)' is -2, which does not fit u8 (0 to 255)"},
	{"x + (100 + 100)", "i8", 5, "'(100 + 100)' is 200, which does not fit i8 "
	 "(-128 to 127)"},
	{"x + (200 - 100) + (-100 - 28)", "i8", 0, "(add (add x =100) =-128)"},
	/* integers: / truncates, % and >> floor, exact in 64 bits and a sign */
	{"x + -7 / 2 + -7 % 2 + 7 % -2 + (-5 >> 1) + (-1 >> 100) + (1 << 62 >> 60)", "i64",
	 0, "(add (add (add (add (add (add x =-3) =1) =-1) =-3) =-1) =4)"},
	{"x + (1 << 63) + 18446744073709551615 * 1 + (-1 & 0xFF)", "u64", 0,
	 "(add (add (add x =9223372036854775808) =18446744073709551615) =255)"},
	{"x + (-9223372036854775807 - 1) + (-16 | 3) + (~0 ^ 0xF0)", "i64", 0,
	 "(add (add (add x =-9223372036854775808) =-13) =-241)"},
	/* a float makes the rest a float, computed in double */
	{"x * (7 / 2) * (7 / 2.0) * (-7.5 % 2)", "f64", 0,
	 "(multiply (multiply (multiply x =3) =3.5) =0.5)"},
	{"x * (2 * 3.5e38)", "f32", 5, "'(2 * 3.5e38)' is 7e+38, which does not fit f32"},
	{"x + (1 ? 2 : 0.5)", "i32", 5, "'(1 ? 2 : 0.5)' is a float, but the operands here "
	 "are i32"},
	/* comparisons and logical ops give 0 or 1; min max abs where fold */
	{"x + (1 < 2) + (2 != 2) + !0.5 + (2 && 0.5) + (0 || 0)", "i32", 0,
	 "(add (add (add (add (add x =1) =0) =0) =1) =0)"},
	{"x + (0 ? 2 : 3) + max(1, -2, 0.5) + min(3, -0) + abs(-4)", "f32", 0,
	 "(add (add (add (add x =3) =1) =0) =4)"},
	/* an integer 0 has no sign, as in Python: -(1 - 1) is 0 */
	{"x * -(1 - 1)", "f32", 0, "(multiply x =0)"},
	{"where(1 > 0, x, 2)", "i16", 0, "(where =1 x 2)"},
	/* casts and the other calls stay, their constant arguments folded */
	{"x + f64(i8(-1 - 1)) + sqrt(2 + 2) + pow(2, 3)", "f64", 0,
	 "(add (add (add x (f64 (i8 =-2))) (sqrt =4)) (power 2 3))"},
	{"x + f32(i8(100 + 100))", "f32", 12, "'100 + 100' is 200, which does not fit i8 "
	 "(-128 to 127)"},
	/* bitwise ops of floats do not fold: the types say why */
	{"x + (1.5 | 1)", "f32", 10, "'|' needs integer operands, not f32"},
	{"x + (1.5 | 1)", "i32", 6, "'1.5' is a float, but the operands here are i32"},
	/* folding errors, at their operator */
	{"x + 1/0", "i32", 6, "'/' divides a constant by zero"},
	{"x + 5 % (2 - 2)", "i32", 7, "'%' divides a constant by zero"},
	{"x + 1.5 / 0", "f32", 9, "'/' divides a constant by zero"},
	{"x + (1 << -1)", "i32", 8, "'<<' shifts a constant by a negative count"},
	{"x + (1 >> -1)", "i32", 8, "'>>' shifts a constant by a negative count"},
	{"x + (1 << 64)", "u64", 8, "'<<' on constants leaves the range "
	 "-18446744073709551615 to 18446744073709551615"},
	{"x + 18446744073709551615 * 2", "u64", 26, "'*' on constants leaves the range "
	 "-18446744073709551615 to 18446744073709551615"},
	{"x + (0 - 18446744073709551615 - 1)", "i64", 31, "'-' on constants leaves the range "
	 "-18446744073709551615 to 18446744073709551615"},
	{"x + ~18446744073709551615", "u64", 5, "'~' on constants leaves the range "
	 "-18446744073709551615 to 18446744073709551615"},
	{"x + (-18446744073709551615 & -18446744073709551614)", "i64", 28, "'&' on constants "
	 "leaves the range -18446744073709551615 to 18446744073709551615"},
	{"x + 1e300 * 1e300", "f64", 11, "'*' on constants overflows double"},
	{NULL, NULL, 0, NULL}
};

int
main(void)
{
	/* C's precedence and associativity */
	parses("x*y + w", 3, "(add (multiply x y) w)");
	parses("x + y*w", 3, "(add x (multiply y w))");
	parses("x - y - w", 3, "(subtract (subtract x y) w)");
	parses("x - (y - w)", 3, "(subtract x (subtract y w))");
	parses("x / y % w", 3, "(remainder (divide x y) w)");
	parses("-x*y", 2, "(multiply (negative x) y)");
	parses("x < y == y < x", 2, "(equal (less x y) (less y x))");
	parses("x || y && !x", 2, "(logical_or x (logical_and y (logical_not x)))");
	parses("c ? x : y ? w : b", 5, "(where c x (where y w b))");
	parses("max(x*y + w, 0)", 3, "(maximum (add (multiply x y) w) 0)");
	parses("min(x, y, 2.5)", 2, "(minimum x y 2.5)");
	parses("f64(x) + y", 2, "error: '+' mixes f64 and f32: cast one side, as in f32(...)");
	parses("-2 + x", 1, "(add -2 x)");
	parses("- (3) * x", 1, "(multiply - (3) x)");
	parses("x + 0x1F + 1e-3 + .5", 1, "(add (add (add x 0x1F) 1e-3) .5)");
	parses("where(x > 0, x, 0)", 1, "(where (greater x 0) x 0)");
	parses("pow(x, 2) + sqrt(exp(log(abs(x))))", 1,
	       "(add (power x 2) (sqrt (exp (log (absolute x)))))");

	/* types, in i16 unless said */
	parses("x & 3", 1, "error: '&' needs integer operands, not f32");
	fails("x + z", 1, "f32", 5, "unknown operand 'z'");
	fails("max(x*w + z, 0)", 3, "f32", 11, "unknown operand 'z'");
	fails("x + 300", 1, "u8", 5, "'300' does not fit u8 (0 to 255)");
	fails("x - -129", 1, "i8", 5, "'-129' does not fit i8 (-128 to 127)");
	fails("x * 1.5", 1, "i32", 5, "'1.5' is a float, but the operands here are i32");
	fails("x + 1e39", 1, "f32", 5, "'1e39' does not fit f32");
	fails("sqrt(x)", 1, "i32", 1, "'sqrt' needs float operands, not i32: cast with "
	      "f32(...) or f64(...)");
	fails("x << 1", 1, "f64", 3, "'<<' needs integer operands, not f64");
	fails("(x < y) + (y < x)", 2, "i32", 9, "'+' on comparison results alone: cast "
	      "one, as in i32(a < b)");
	fails("x + i16(y)", 2, "i32", 3, "'+' mixes i32 and i16: cast one side, as in f32(...)");

	/* syntax, with columns */
	fails("x +", 1, "f32", 4, "expected an operand, a number or '(' at the end");
	fails("(x", 1, "f32", 3, "expected ')'");
	fails("x)", 1, "f32", 2, "unexpected ')' after the expression");
	fails("x = 1", 1, "f32", 3, "unexpected '=' after the expression");
	fails("x ? 1", 1, "f32", 6, "expected ':' of '?'");
	fails("x + 010", 1, "f32", 5, "'010' starts with 0: write decimal numbers without "
	      "leading zeros, hex ones with 0x");
	fails("x + 1.5e", 1, "f32", 5, "bad number '1.5e'");
	fails("x + 2x", 1, "f32", 5, "bad number '2x'");
	fails("x + 0x", 1, "f32", 5, "bad number: '0x' needs hex digits");
	fails("x + 99999999999999999999", 1, "f32", 5,
	      "integer literal '99999999999999999999' does not fit in 64 bits");
	fails("x + 1e999", 1, "f64", 5, "float literal '1e999' is out of range");
	{
		/* the functions, as the op table lists them */
		struct strbuf want = {0};

		sb_add(&want, "unknown function 'foo' (there are ");
		op_list(&want, 1);
		sb_add(&want, ", and the casts f32(a) i16(a) ...)");
		fails("x + foo(x)", 1, "f32", 5, want.s);
		sb_free(&want);
	}
	fails("max(x)", 1, "f32", 1, "max takes at least 2 arguments, got 1");
	fails("pow(x, 1, 2)", 1, "f32", 1, "pow takes 2 arguments, got 3");
	fails("x + f32(x, x)", 1, "f32", 5, "the cast f32(...) takes one argument");
	{
		struct strbuf where = {0};

		ok1(load("x + (\n  y $ 1)", 2, "f32") != 0);
		expr_where(&where, &e, "expr");
		sb_add(&where, "|");
		expr_caret(&where, &e);
		if (!ok(strcmp(where.s, "expr:2:5|      y $ 1)\n        ^") == 0,
		        "an error on line 2 is at expr:2:5, shown under its line"))
			diag("got %s", where.s);
		sb_free(&where);
	}
	ok1(load("x", 2, "f32") != 0 && strcmp(err.s, "operand 'y' is not used in the "
	    "expression") == 0);
	fails("x + $", 1, "f32", 5, "expected an operand, a number or '(', not '$'");
	fails("max(x, x x)", 1, "f32", 10, "expected ',' or ')' in the arguments");
	{
		char big[8200], name[80];
		int k = 0;

		/* one argument more than a call takes */
		k += sprintf(big + k, "max(x");
		for (int j = 0; j < BC_MAX_ARGS; j++)
			k += sprintf(big + k, ", x");
		sprintf(big + k, ")");
		sprintf(name, "more than %d arguments in one call", BC_MAX_ARGS);
		fails(big, 1, "f32", 5 + 3 * BC_MAX_ARGS, name);
		/* x+x+...: 1001 nodes */
		k = 0;
		for (int j = 0; j < 501; j++)
			k += sprintf(big + k, j ? "+x" : "x");
		fails(big, 1, "f32", 1, "the expression is too long: more than 1000 nodes");
		memset(name, 'a', 70);
		name[70] = '\0';
		fails(name, 1, "f32", 1, "name 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' "
		      "is too long");
	}
	{
		char deep[300];

		memset(deep, '(', 100);
		strcpy(deep + 100, "x");
		memset(deep + 101, ')', 100);
		deep[201] = '\0';
		fails(deep, 1, "f32", 65, "the expression nests too deeply: more than 64 levels");
	}

	/* precedence climbing: every pair of binary operators, unary, ?: */
	precedence();
	parses_in("i32", "x<<-y", 2, "(left_shift x (negative y))");
	parses_in("i32", "x - -y", 2, "(subtract x (negative y))");
	parses_in("i32", "x ? y ? w : b : c ? x : y", 5, "(where x (where y w b) (where c x y))");
	fails("x < = y", 2, "i32", 5, "expected an operand, a number or '(', not '='");
	fails("x + 2 010", 1, "i32", 7, "unexpected '0' after the expression");

	/*
	 * Nesting: every level counts (parentheses, unary operators, calls,
	 * casts, ?: arms, binary operands), 64 are accepted, and the error
	 * is at the token that opens level 65.
	 */
	depth("(", 64, "x", ")", 65);
	depth("-", 64, "x", "", 65);
	depth("~", 64, "x", "", 65);
	depth("abs(", 64, "x", ")", 4 * 65);
	depth("i32(", 64, "x", ")", 4 * 65);
	depth("x ? x : ", 64, "x", "", 8 * 64 + 3);
	depth("x ? ", 64, "x", " : x", 4 * 64 + 3);
	depth("-(", 32, "x", ")", 65);
	{
		char *src = nest("(", 64, "x + x*x << x < x == x & x ^ x | x && x || x", ")");

		ok(load(src, 1, "i32") == 0, "every binary priority in 64 parentheses: 64 levels");
		free(src);
		src = nest("(", 64, "-x", ")");
		fails(src, 1, "i32", 64 + 1, "the expression nests too deeply: more than 64 levels");
		free(src);
	}

	/* constant parts: folded exactly, then fit the dtype they meet, once */
	for (int k = 0; folding[k].src; k++) {
		if (folding[k].col)
			fails(folding[k].src, 1, folding[k].t, folding[k].col, folding[k].want);
		else
			parses_in(folding[k].t, folding[k].src, 1, folding[k].want);
	}

	zero_sign("x * -(1 - 1)", 0);
	zero_sign("x * -0", 0);
	zero_sign("x * -(0 * 5)", 0);
	zero_sign("x * -0.0", 1);
	zero_sign("x * -(1.0 - 1)", 1);

	/* the C emitted: UB-free helpers for integers, C operators for floats */

	expr_free(&e);
	sb_free(&err);
	return done_testing();
}
