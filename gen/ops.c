/*
** ops.c: the element types and operations bcastgen knows, and the C
** expression that computes one element.
**
** An operation on values of the kernel's dtype T is done in T with no
** undefined behaviour (runtime/bc.h, bc_math.h); expr.c puts them
** together and converts between dtypes. Conversions: integer to integer
** wraps, to and between floats rounds to nearest, float to integer
** truncates and saturates, NaN giving 0 (bc_f2T).
*/
#include <stdio.h>
#include <string.h>

#include "ops.h"

static const struct dtype dtypes[] = {
	{"f32", 1, 1, 32},
	{"f64", 1, 1, 64},
	{"i8", 0, 1, 8},
	{"i16", 0, 1, 16},
	{"i32", 0, 1, 32},
	{"i64", 0, 1, 64},
	{"u8", 0, 0, 8},
	{"u16", 0, 0, 16},
	{"u32", 0, 0, 32},
	{"u64", 0, 0, 64},
	{NULL, 0, 0, 0}
};

static const struct op ops[] = {
	/* name             alias       args   kind     types          infix float helper  libm symbol */
	{"add",            "add",      1, 0, OP_ARITH, OP_ANY_TYPE, NULL, "+", "add", 0, "+", 0, FMA_ADD},
	{"subtract",       "sub",      2, 2, OP_ARITH, OP_ANY_TYPE, NULL, "-", "sub", 0, "-", 0, FMA_ADD},
	{"multiply",       "mul",      1, 0, OP_ARITH, OP_ANY_TYPE, NULL, "*", "mul", 0, "*", 0, FMA_MULTIPLY},
	{"divide",         "div",      2, 2, OP_ARITH, OP_ANY_TYPE, NULL, "/", "div", 0, "/", 0, 0},
	{"floor_divide",   "floordiv", 2, 2, OP_ARITH, OP_ANY_TYPE, NULL, NULL, "floordiv", 1, "//", 0, 0},
	{"remainder",      "mod",      2, 2, OP_ARITH, OP_ANY_TYPE, NULL, NULL, "mod", 1, "%", 0, 0},
	{"fmod",           "fmod",     2, 2, OP_ARITH, OP_ANY_TYPE, NULL, NULL, "fmod", 1, "fmod", 0, 0},
	{"power",          "pow",      2, 2, OP_ARITH, OP_ANY_TYPE, NULL, NULL, "pow", 1, "**", 0, 0},
	{"maximum",        "max",      1, 0, OP_ARITH, OP_ANY_TYPE, NULL, NULL, "max", 0, "maximum", 0, 0},
	{"minimum",        "min",      1, 0, OP_ARITH, OP_ANY_TYPE, NULL, NULL, "min", 0, "minimum", 0, 0},
	{"negative",       "neg",      1, 1, OP_ARITH, OP_ANY_TYPE, NULL, "-", "neg", 0, "-", 0, 0},
	{"absolute",       "abs",      1, 1, OP_ARITH, OP_ANY_TYPE, NULL, NULL, "abs", 1, "absolute", 0, 0},
	{"sqrt",           "sqrt",     1, 1, OP_ARITH, OP_FLOAT_TYPES, NULL, NULL, "sqrt", 1, "sqrt", 0, 0},
	{"exp",            "exp",      1, 1, OP_ARITH, OP_FLOAT_TYPES, NULL, NULL, "exp", 1, "exp", 0, 0},
	{"log",            "log",      1, 1, OP_ARITH, OP_FLOAT_TYPES, NULL, NULL, "log", 1, "log", 0, 0},
	{"floor",          "floor",    1, 1, OP_ARITH, OP_FLOAT_TYPES, NULL, NULL, "floor", 1, "floor", 0, 0},
	{"ceil",           "ceil",     1, 1, OP_ARITH, OP_FLOAT_TYPES, NULL, NULL, "ceil", 1, "ceil", 0, 0},
	{"equal",          "eq",       2, 2, OP_BOOL, OP_ANY_TYPE, "==", NULL, "eq", 0, "==", 0, 0},
	{"not_equal",      "ne",       2, 2, OP_BOOL, OP_ANY_TYPE, "!=", NULL, "ne", 0, "!=", 0, 0},
	{"less",           "lt",       2, 2, OP_BOOL, OP_ANY_TYPE, "<", NULL, "lt", 0, "<", 0, 0},
	{"less_equal",     "le",       2, 2, OP_BOOL, OP_ANY_TYPE, "<=", NULL, "le", 0, "<=", 0, 0},
	{"greater",        "gt",       2, 2, OP_BOOL, OP_ANY_TYPE, ">", NULL, "gt", 0, ">", 0, 0},
	{"greater_equal",  "ge",       2, 2, OP_BOOL, OP_ANY_TYPE, ">=", NULL, "ge", 0, ">=", 0, 0},
	{"logical_and",    "and",      2, 2, OP_BOOL, OP_ANY_TYPE, "&&", NULL, NULL, 0, "and", 1, 0},
	{"logical_or",     "or",       2, 2, OP_BOOL, OP_ANY_TYPE, "||", NULL, NULL, 0, "or", 1, 0},
	{"logical_xor",    "xor",      2, 2, OP_BOOL, OP_ANY_TYPE, "!=", NULL, NULL, 0, "xor", 1, 0},
	{"logical_not",    "not",      1, 1, OP_BOOL, OP_ANY_TYPE, NULL, NULL, NULL, 0, "not", 1, 0},
	{"bitwise_and",    "bitwise_and", 2, 2, OP_ARITH, OP_INT_TYPES, NULL, NULL, "and", 0, "&", 0, 0},
	{"bitwise_or",     "bitwise_or",  2, 2, OP_ARITH, OP_INT_TYPES, NULL, NULL, "or", 0, "|", 0, 0},
	{"bitwise_xor",    "bitwise_xor", 2, 2, OP_ARITH, OP_INT_TYPES, NULL, NULL, "xor", 0, "^", 0, 0},
	{"invert",         "invert",   1, 1, OP_ARITH, OP_INT_TYPES, NULL, NULL, "not", 0, "~", 0, 0},
	{"left_shift",     "shl",      2, 2, OP_ARITH, OP_INT_TYPES, NULL, NULL, "shl", 0, "<<", 0, 0},
	{"right_shift",    "shr",      2, 2, OP_ARITH, OP_INT_TYPES, NULL, NULL, "shr", 0, ">>", 0, 0},
	{"where",          "where",    3, 3, OP_SELECT, OP_ANY_TYPE, NULL, NULL, NULL, 0, "where", 0, 0},
	{"copy",           "copy",     1, 1, OP_COPY, OP_ANY_TYPE, NULL, NULL, NULL, 0, "copy", 0, 0},
	{NULL, NULL, 0, 0, OP_ARITH, OP_ANY_TYPE, NULL, NULL, NULL, 0, NULL, 0, 0}
};

const struct dtype *
dtype_find(const char *name)
{
	for (const struct dtype *t = dtypes; t->name; t++)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

/* Return the dtypes, ended by one without a name. */
const struct dtype *
dtype_table(void)
{
	return dtypes;
}

/* Append the dtypes' names: "f32 f64 i8 ...". */
void
dtype_list(struct strbuf *sb)
{
	for (const struct dtype *t = dtypes; t->name; t++)
		sb_printf(sb, t == dtypes ? "%s" : " %s", t->name);
}

/* Find an op by its NumPy name or its alias. */
const struct op *
op_find(const char *name)
{
	for (const struct op *op = ops; op->name; op++)
		if (strcmp(op->name, name) == 0 || strcmp(op->alias, name) == 0)
			return op;
	return NULL;
}

/*
** Check that OP applies to NARGS operands of dtype T. On error append a
** message to ERR and return -1.
*/
int
op_check(const struct op *op, int nargs, const struct dtype *t, struct strbuf *err)
{
	if (op->types == OP_INT_TYPES && t->is_float) {
		sb_printf(err, "op '%s' does not apply to dtype %s: it needs an integer dtype",
		          op->name, t->name);
		return -1;
	}
	if (op->types == OP_FLOAT_TYPES && !t->is_float) {
		sb_printf(err, "op '%s' does not apply to dtype %s: it needs f32 or f64",
		          op->name, t->name);
		return -1;
	}
	if (nargs < op->min_args || (op->max_args && nargs > op->max_args)) {
		if (op->max_args == 0)
			sb_printf(err, "op '%s' takes at least %d operand%s, got %d", op->name,
			          op->min_args, op->min_args == 1 ? "" : "s", nargs);
		else
			sb_printf(err, "op '%s' takes %d operand%s, got %d", op->name,
			          op->max_args, op->max_args == 1 ? "" : "s", nargs);
		return -1;
	}
	return 0;
}

int
op_needs_libm(const struct op *op, const struct dtype *t)
{
	return t->is_float && op->float_libm;
}

/* Append the formula for comments: "x + y", "maximum(x, y)", "~x". */
void
op_formula(struct strbuf *sb, const struct op *op, const char *const *names, int nargs)
{
	const char *s = op->symbol;
	int word = s[0] >= 'a' && s[0] <= 'z';

	if (op->kind == OP_COPY) {
		sb_printf(sb, "broadcast_to(%s)", names[0]);
		return;
	}
	if (nargs == 1 && !(op->min_args == 1 && op->max_args == 0)) {
		sb_printf(sb, word ? "%s %s" : "%s%s", s, names[0]);
		return;
	}
	if (word && strcmp(s, "and") && strcmp(s, "or") && strcmp(s, "xor")) {
		sb_printf(sb, "%s(", s);
		for (int k = 0; k < nargs; k++)
			sb_printf(sb, k ? ", %s" : "%s", names[k]);
		sb_add(sb, ")");
		return;
	}
	sb_add(sb, names[0]);
	for (int k = 1; k < nargs; k++)
		sb_printf(sb, " %s %s", s, names[k]);
}
