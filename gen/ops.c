/*
** ops.c: the element types and operations bcastgen knows, and the C
** expression that computes one element.
**
** An expression is a pattern in which {1}, {2}, ... stand for the
** operands' values as loaded (the template decides how they are read).
** Each operand is converted to the kernel's dtype T, the operation is
** done in T with no undefined behaviour (runtime/bc.h), and the result
** is converted to the output dtype. Conversions: integer to integer
** wraps, to and between floats rounds to nearest, float to integer
** truncates and saturates, NaN giving 0 (bc_f2T).
*/
#include <stdio.h>
#include <string.h>

#include "ops.h"

static const struct dtype dtypes[] = {
	{"f32", "float", 1, 1, 32},
	{"f64", "double", 1, 1, 64},
	{"i8", "int8_t", 0, 1, 8},
	{"i16", "int16_t", 0, 1, 16},
	{"i32", "int32_t", 0, 1, 32},
	{"i64", "int64_t", 0, 1, 64},
	{"u8", "uint8_t", 0, 0, 8},
	{"u16", "uint16_t", 0, 0, 16},
	{"u32", "uint32_t", 0, 0, 32},
	{"u64", "uint64_t", 0, 0, 64},
	{NULL, NULL, 0, 0, 0}
};

static const struct op ops[] = {
	/* name             alias       args   kind     int infix float helper  libm symbol */
	{"add",            "add",      1, 0, OP_ARITH, 0, NULL, "+", "add", 0, "+"},
	{"subtract",       "sub",      2, 2, OP_ARITH, 0, NULL, "-", "sub", 0, "-"},
	{"multiply",       "mul",      1, 0, OP_ARITH, 0, NULL, "*", "mul", 0, "*"},
	{"divide",         "div",      2, 2, OP_ARITH, 0, NULL, "/", "div", 0, "/"},
	{"floor_divide",   "floordiv", 2, 2, OP_ARITH, 0, NULL, NULL, "floordiv", 1, "//"},
	{"remainder",      "mod",      2, 2, OP_ARITH, 0, NULL, NULL, "mod", 1, "%"},
	{"fmod",           "fmod",     2, 2, OP_ARITH, 0, NULL, NULL, "fmod", 1, "fmod"},
	{"power",          "pow",      2, 2, OP_ARITH, 0, NULL, NULL, "pow", 1, "**"},
	{"maximum",        "max",      1, 0, OP_ARITH, 0, NULL, NULL, "max", 0, "maximum"},
	{"minimum",        "min",      1, 0, OP_ARITH, 0, NULL, NULL, "min", 0, "minimum"},
	{"equal",          "eq",       2, 2, OP_BOOL, 0, "==", NULL, NULL, 0, "=="},
	{"not_equal",      "ne",       2, 2, OP_BOOL, 0, "!=", NULL, NULL, 0, "!="},
	{"less",           "lt",       2, 2, OP_BOOL, 0, "<", NULL, NULL, 0, "<"},
	{"less_equal",     "le",       2, 2, OP_BOOL, 0, "<=", NULL, NULL, 0, "<="},
	{"greater",        "gt",       2, 2, OP_BOOL, 0, ">", NULL, NULL, 0, ">"},
	{"greater_equal",  "ge",       2, 2, OP_BOOL, 0, ">=", NULL, NULL, 0, ">="},
	{"logical_and",    "and",      2, 2, OP_BOOL, 0, "&&", NULL, NULL, 0, "and"},
	{"logical_or",     "or",       2, 2, OP_BOOL, 0, "||", NULL, NULL, 0, "or"},
	{"logical_xor",    "xor",      2, 2, OP_BOOL, 0, "!=", NULL, NULL, 0, "xor"},
	{"logical_not",    "not",      1, 1, OP_BOOL, 0, NULL, NULL, NULL, 0, "not"},
	{"bitwise_and",    "bitwise_and", 2, 2, OP_ARITH, 1, NULL, NULL, "and", 0, "&"},
	{"bitwise_or",     "bitwise_or",  2, 2, OP_ARITH, 1, NULL, NULL, "or", 0, "|"},
	{"bitwise_xor",    "bitwise_xor", 2, 2, OP_ARITH, 1, NULL, NULL, "xor", 0, "^"},
	{"invert",         "invert",   1, 1, OP_ARITH, 1, NULL, NULL, "not", 0, "~"},
	{"left_shift",     "shl",      2, 2, OP_ARITH, 1, NULL, NULL, "shl", 0, "<<"},
	{"right_shift",    "shr",      2, 2, OP_ARITH, 1, NULL, NULL, "shr", 0, ">>"},
	{"copy",           "copy",     1, 1, OP_COPY, 0, NULL, NULL, NULL, 0, "copy"},
	{NULL, NULL, 0, 0, OP_ARITH, 0, NULL, NULL, NULL, 0, NULL}
};

const struct dtype *
dtype_find(const char *name)
{
	for (const struct dtype *t = dtypes; t->name; t++)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
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
	if (op->int_only && t->is_float) {
		sb_printf(err, "op '%s' does not apply to dtype %s: it needs an integer dtype",
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

/* The dtype of OP's value before the store: T, or u8 for comparisons. */
const struct dtype *
op_result_dtype(const struct op *op, const struct dtype *t)
{
	return op->kind == OP_BOOL ? dtype_find("u8") : t;
}

int
op_needs_libm(const struct op *op, const struct dtype *t)
{
	return t->is_float && op->float_libm;
}

/*
** Append to SB the expression converting VALUE of dtype FROM to dtype TO
** with no undefined behaviour.
*/
static void
convert(struct strbuf *sb, const char *value, const struct dtype *from,
        const struct dtype *to)
{
	/* a cast of "a * b" must convert the product, not a */
	const char *open = strchr(value, ' ') ? "(" : "";
	const char *close = *open ? ")" : "";

	if (from == to)
		sb_add(sb, value);
	else if (from->is_float && !to->is_float)
		sb_printf(sb, "bc_f2%s((double)%s%s%s)", to->name, open, value, close);
	else if (to->is_float || !to->is_signed || from->bits < to->bits)
		sb_printf(sb, "(%s)%s%s%s", to->ctype, open, value, close);	/* exact, or wraps */
	else
		sb_printf(sb, "bc_wrap_%s((uint64_t)%s%s%s)", to->name, open, value, close);
}

/*
** Append to SB the C expression computing OP on NARGS operands whose
** stored dtypes are ARGTYPES, in the kernel dtype T, converted to OUT.
** Operand k appears as the placeholder {k}. Ops of several operands fold
** from the left: ((a + b) + c).
*/
void
op_expr(struct strbuf *sb, const struct op *op, const struct dtype *t,
        const struct dtype *const *argtypes, int nargs, const struct dtype *out)
{
	struct strbuf arg[BC_MAX_ARGS] = {{0}}, e = {0};
	const char *a, *b;

	for (int k = 0; k < nargs; k++) {
		char ph[16];

		sprintf(ph, "{%d}", k + 1);
		convert(&arg[k], ph, argtypes[k], t);
	}
	a = arg[0].s;
	b = nargs > 1 ? arg[1].s : NULL;
	if (op->kind == OP_COPY || (nargs == 1 && op->max_args == 0))
		sb_add(&e, a);
	else if (op->kind == OP_BOOL && nargs == 1)
		sb_printf(&e, "(uint8_t)(%s == 0)", a);
	else if (op->kind == OP_BOOL && strncmp(op->name, "logical_", 8) == 0)
		sb_printf(&e, "(uint8_t)((%s != 0) %s (%s != 0))", a, op->infix, b);
	else if (op->kind == OP_BOOL)
		sb_printf(&e, "(uint8_t)(%s %s %s)", a, op->infix, b);
	else if (nargs == 1)
		sb_printf(&e, "bc_%s_%s(%s)", op->helper, t->name, a);
	else {
		sb_add(&e, a);
		for (int k = 1; k < nargs; k++) {
			struct strbuf next = {0};

			if (t->is_float && op->float_infix)
				sb_printf(&next, "%s %s %s", e.s, op->float_infix, arg[k].s);
			else
				sb_printf(&next, "bc_%s_%s(%s, %s)", op->helper, t->name,
				          e.s, arg[k].s);
			sb_free(&e);
			e = next;
		}
	}
	convert(sb, e.s, op_result_dtype(op, t), out);
	sb_free(&e);
	for (int k = 0; k < nargs; k++)
		sb_free(&arg[k]);
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
