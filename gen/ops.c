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

/* Append V's text to SB, in parentheses if it binds looser than PREC. */
static void
nest(struct strbuf *sb, const struct ctext *v, int prec)
{
	if (v->prec < prec)
		sb_printf(sb, "(%s)", v->s.s);
	else
		sb_add(sb, v->s.s);
}

/*
** Set R to the expression converting V of dtype FROM to dtype TO with
** no undefined behaviour.
*/
void
dtype_convert(struct ctext *r, const struct ctext *v, const struct dtype *from,
              const struct dtype *to)
{
	struct strbuf a = {0};

	nest(&a, v, PREC_UNARY);
	memset(r, 0, sizeof *r);
	r->prec = PREC_PRIMARY;
	if (from == to) {
		sb_add(&r->s, v->s.s);
		r->prec = v->prec;
		r->is_bool = v->is_bool;
	} else if (from->is_float && !to->is_float) {
		sb_printf(&r->s, "bc_f2%s((double)%s)", to->name, a.s);
	} else if (to->is_float || !to->is_signed || from->bits < to->bits) {
		sb_printf(&r->s, "(%s)%s", to->ctype, a.s);	/* exact, or wraps */
		r->prec = PREC_UNARY;
	} else {
		sb_printf(&r->s, "bc_wrap_%s((uint64_t)%s)", to->name, a.s);
	}
	sb_free(&a);
}

/* Append "(A != 0)" for a value tested for truth, or A for a comparison's. */
static void
truth(struct strbuf *sb, const struct ctext *a)
{
	if (a->is_bool) {
		nest(sb, a, PREC_UNARY);
	} else {
		sb_add(sb, "(");
		nest(sb, a, PREC_ADD);
		sb_add(sb, " != 0)");
	}
}

/*
** Set R to the C expression computing OP in dtype T on the NARGS
** values ARGS, each already of dtype T (but the condition of where, and
** the operands of logical ops, which may be of any dtype). The result
** has dtype T, or u8 for comparisons and logical ops. Ops of several
** operands fold from the left: a + b + c is (a + b) + c.
*/
void
op_apply(struct ctext *r, const struct op *op, const struct dtype *t,
         const struct ctext *args, int nargs)
{
	memset(r, 0, sizeof *r);
	r->prec = PREC_PRIMARY;
	if (op->kind == OP_COPY || (nargs == 1 && op->max_args == 0)) {
		sb_add(&r->s, args[0].s.s);
		r->prec = args[0].prec;
		r->is_bool = args[0].is_bool;
	} else if (op->kind == OP_SELECT) {
		if (!t->is_float)
			sb_printf(&r->s, "(%s)(", t->ctype);
		truth(&r->s, &args[0]);
		sb_add(&r->s, " ? ");
		nest(&r->s, &args[1], PREC_EQUALITY);
		sb_add(&r->s, " : ");
		nest(&r->s, &args[2], PREC_EQUALITY);
		if (!t->is_float)
			sb_add(&r->s, ")");
		r->prec = t->is_float ? PREC_TERNARY : PREC_UNARY;
	} else if (op->kind == OP_BOOL && (t->is_float || !op->helper)) {
		sb_add(&r->s, "(uint8_t)(");
		if (nargs == 1) {
			nest(&r->s, &args[0], PREC_ADD);
			sb_add(&r->s, " == 0");
		} else if (strncmp(op->name, "logical_", 8) == 0) {
			truth(&r->s, &args[0]);
			sb_printf(&r->s, " %s ", op->infix);
			truth(&r->s, &args[1]);
		} else {
			nest(&r->s, &args[0], PREC_ADD);
			sb_printf(&r->s, " %s ", op->infix);
			nest(&r->s, &args[1], PREC_ADD);
		}
		sb_add(&r->s, ")");
		r->prec = PREC_UNARY;
		r->is_bool = 1;
	} else if (op->kind == OP_BOOL) {
		/* integers through a helper: gcc warns of a comparison with a
		 * constant that is always true or false for the type */
		sb_printf(&r->s, "bc_%s_%s(%s, %s)", op->helper, t->name, args[0].s.s, args[1].s.s);
		r->is_bool = 1;
	} else if (nargs == 1 && t->is_float && op->float_infix) {
		/* -a; -(-a), not --a */
		sb_add(&r->s, op->float_infix);
		nest(&r->s, &args[0], args[0].s.s[0] == '-' ? PREC_PRIMARY : PREC_UNARY);
		r->prec = PREC_UNARY;
	} else if (nargs == 1) {
		sb_printf(&r->s, "bc_%s_%s(%s)", op->helper, t->name, args[0].s.s);
	} else if (t->is_float && op->float_infix) {
		int prec = strchr("*/", op->float_infix[0]) ? PREC_MUL : PREC_ADD;

		nest(&r->s, &args[0], prec);
		for (int k = 1; k < nargs; k++) {
			sb_printf(&r->s, " %s ", op->float_infix);
			nest(&r->s, &args[k], prec + 1);
		}
		r->prec = prec;
	} else {
		struct strbuf e = {0};

		sb_add(&e, args[0].s.s);
		for (int k = 1; k < nargs; k++) {
			struct strbuf next = {0};

			sb_printf(&next, "bc_%s_%s(%s, %s)", op->helper, t->name, e.s, args[k].s.s);
			sb_free(&e);
			e = next;
		}
		r->s = e;
	}
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
