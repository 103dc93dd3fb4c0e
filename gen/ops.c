/*
** ops.c: the element types and operations bcastgen knows, one row each.
** Everything else reads them from here: the command line and its help,
** the expression parser's functions, the type checker, the plan.
**
** An operation on values of the kernel's dtype T is done in T with no
** undefined behaviour (runtime/bc.h, bc_math.h); the plan puts them
** together and converts between dtypes. Conversions: integer to integer
** wraps, to and between floats rounds to nearest, float to integer
** truncates and saturates, NaN giving 0 (bc_f32_to_T, bc_f64_to_T). f16 is computed in
** f32 and rounded back after each operation.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops.h"

static const struct dtype dtypes[] = {
	{"f16", 1, 1, 16, "f32"},
	{"f32", 1, 1, 32, NULL},
	{"f64", 1, 1, 64, NULL},
	{"i8", 0, 1, 8, NULL},
	{"i16", 0, 1, 16, NULL},
	{"i32", 0, 1, 32, NULL},
	{"i64", 0, 1, 64, NULL},
	{"u8", 0, 0, 8, NULL},
	{"u16", 0, 0, 16, NULL},
	{"u32", 0, 0, 32, NULL},
	{"u64", 0, 0, 64, NULL},
	{NULL, 0, 0, 0, NULL}
};

#define ANY OP_ANY_TYPE
#define INT OP_INT_TYPES
#define FLT OP_FLOAT_TYPES
#define MUL FMA_MULTIPLY
#define ADD FMA_ADD

static const struct op ops[] = {
	/* id                   name            alias          func     args  kind        types helper   infix libm        fma f16 symbol */
	{OP_ID_ADD,            "add",           "add",         NULL,    1, 0, OP_ARITH,   ANY, "add",      1, NULL,        ADD, 0, "+"},
	{OP_ID_SUBTRACT,       "subtract",      "sub",         NULL,    2, 2, OP_ARITH,   ANY, "sub",      1, NULL,        ADD, 0, "-"},
	{OP_ID_MULTIPLY,       "multiply",      "mul",         NULL,    1, 0, OP_ARITH,   ANY, "mul",      1, NULL,        MUL, 0, "*"},
	{OP_ID_DIVIDE,         "divide",        "div",         NULL,    2, 2, OP_ARITH,   ANY, "div",      1, NULL,        0, 0, "/"},
	{OP_ID_FLOOR_DIVIDE,   "floor_divide",  "floordiv",    NULL,    2, 2, OP_ARITH,   ANY, "floordiv", 0, NULL,        0, 0, "//"},
	{OP_ID_REMAINDER,      "remainder",     "mod",         NULL,    2, 2, OP_ARITH,   ANY, "mod",      0, NULL,        0, 0, "%"},
	{OP_ID_FMOD,           "fmod",          "fmod",        "fmod",  2, 2, OP_ARITH,   ANY, "fmod",     0, NULL,        0, 0, "fmod"},
	{OP_ID_POWER,          "power",         "pow",         "pow",   2, 2, OP_ARITH,   ANY, "pow",      0, "pow",       0, 0, "**"},
	{OP_ID_MAXIMUM,        "maximum",       "max",         "max",   1, 0, OP_ARITH,   ANY, "max",      0, NULL,        0, 1, "maximum"},
	{OP_ID_MINIMUM,        "minimum",       "min",         "min",   1, 0, OP_ARITH,   ANY, "min",      0, NULL,        0, 1, "minimum"},
	{OP_ID_FMAX,           "fmax",          "fmax",        "fmax",  2, 2, OP_ARITH,   ANY, "fmax",     0, NULL,        0, 1, "fmax"},
	{OP_ID_FMIN,           "fmin",          "fmin",        "fmin",  2, 2, OP_ARITH,   ANY, "fmin",     0, NULL,        0, 1, "fmin"},
	{OP_ID_NEGATIVE,       "negative",      "neg",         NULL,    1, 1, OP_ARITH,   ANY, "neg",      1, NULL,        0, 0, "-"},
	{OP_ID_ABSOLUTE,       "absolute",      "abs",         "abs",   1, 1, OP_ARITH,   ANY, "abs",      0, NULL,        0, 0, "absolute"},
	{OP_ID_SQRT,           "sqrt",          "sqrt",        "sqrt",  1, 1, OP_ARITH,   FLT, "sqrt",     0, NULL,        0, 0, "sqrt"},
	{OP_ID_EXP,            "exp",           "exp",         "exp",   1, 1, OP_ARITH,   FLT, "exp",      0, "exp",       0, 0, "exp"},
	{OP_ID_LOG,            "log",           "log",         "log",   1, 1, OP_ARITH,   FLT, "log",      0, "log",       0, 0, "log"},
	{OP_ID_FLOOR,          "floor",         "floor",       "floor", 1, 1, OP_ARITH,   FLT, "floor",    0, NULL,        0, 0, "floor"},
	{OP_ID_CEIL,           "ceil",          "ceil",        "ceil",  1, 1, OP_ARITH,   FLT, "ceil",     0, NULL,        0, 0, "ceil"},
	{OP_ID_COPYSIGN,       "copysign",      "copysign",    "copysign", 2, 2, OP_ARITH, FLT, "copysign", 0, NULL,        0, 0, "copysign"},
	{OP_ID_HYPOT,          "hypot",         "hypot",       "hypot", 2, 2, OP_ARITH,   FLT, "hypot",    0, "hypot",     0, 0, "hypot"},
	{OP_ID_ARCTAN2,        "arctan2",       "atan2",       "atan2", 2, 2, OP_ARITH,   FLT, "atan2",    0, "atan2",     0, 0, "arctan2"},
	{OP_ID_LOGADDEXP,      "logaddexp",     "logaddexp",   "logaddexp", 2, 2, OP_ARITH, FLT, "logaddexp", 0, "exp log1p", 0, 0, "logaddexp"},
	{OP_ID_HEAVISIDE,      "heaviside",     "heaviside",   "heaviside", 2, 2, OP_ARITH, FLT, "heaviside", 0, NULL,        0, 0, "heaviside"},
	{OP_ID_EQUAL,          "equal",         "eq",          NULL,    2, 2, OP_COMPARE, ANY, "eq",       0, NULL,        0, 0, "=="},
	{OP_ID_NOT_EQUAL,      "not_equal",     "ne",          NULL,    2, 2, OP_COMPARE, ANY, "ne",       0, NULL,        0, 0, "!="},
	{OP_ID_LESS,           "less",          "lt",          NULL,    2, 2, OP_COMPARE, ANY, "lt",       0, NULL,        0, 0, "<"},
	{OP_ID_LESS_EQUAL,     "less_equal",    "le",          NULL,    2, 2, OP_COMPARE, ANY, "le",       0, NULL,        0, 0, "<="},
	{OP_ID_GREATER,        "greater",       "gt",          NULL,    2, 2, OP_COMPARE, ANY, "gt",       0, NULL,        0, 0, ">"},
	{OP_ID_GREATER_EQUAL,  "greater_equal", "ge",          NULL,    2, 2, OP_COMPARE, ANY, "ge",       0, NULL,        0, 0, ">="},
	{OP_ID_LOGICAL_AND,    "logical_and",   "and",         NULL,    2, 2, OP_LOGICAL, ANY, NULL,       0, NULL,        0, 0, "and"},
	{OP_ID_LOGICAL_OR,     "logical_or",    "or",          NULL,    2, 2, OP_LOGICAL, ANY, NULL,       0, NULL,        0, 0, "or"},
	{OP_ID_LOGICAL_XOR,    "logical_xor",   "xor",         NULL,    2, 2, OP_LOGICAL, ANY, NULL,       0, NULL,        0, 0, "xor"},
	{OP_ID_LOGICAL_NOT,    "logical_not",   "not",         NULL,    1, 1, OP_LOGICAL, ANY, NULL,       0, NULL,        0, 0, "not"},
	{OP_ID_BITWISE_AND,    "bitwise_and",   "bitwise_and", NULL,    2, 2, OP_ARITH,   INT, "and",      0, NULL,        0, 0, "&"},
	{OP_ID_BITWISE_OR,     "bitwise_or",    "bitwise_or",  NULL,    2, 2, OP_ARITH,   INT, "or",       0, NULL,        0, 0, "|"},
	{OP_ID_BITWISE_XOR,    "bitwise_xor",   "bitwise_xor", NULL,    2, 2, OP_ARITH,   INT, "xor",      0, NULL,        0, 0, "^"},
	{OP_ID_INVERT,         "invert",        "invert",      NULL,    1, 1, OP_ARITH,   INT, "not",      0, NULL,        0, 0, "~"},
	{OP_ID_LEFT_SHIFT,     "left_shift",    "shl",         NULL,    2, 2, OP_ARITH,   INT, "shl",      0, NULL,        0, 0, "<<"},
	{OP_ID_RIGHT_SHIFT,    "right_shift",   "shr",         NULL,    2, 2, OP_ARITH,   INT, "shr",      0, NULL,        0, 0, ">>"},
	{OP_ID_WHERE,          "where",         "where",       "where", 3, 3, OP_SELECT,  ANY, NULL,       0, NULL,        0, 0, "where"},
	{OP_ID_COPY,           "copy",          "copy",        NULL,    1, 1, OP_COPY,    ANY, NULL,       0, NULL,        0, 0, "copy"},
	{NOP_IDS, NULL, NULL, NULL, 0, 0, OP_ARITH, ANY, NULL, 0, NULL, 0, 0, NULL}
};

const struct dtype *
dtype_find(const char *name)
{
	for (const struct dtype *t = dtypes; t->name; t++)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

/* Return the dtype T is computed in: itself, or f32 for f16. */
const struct dtype *
dtype_compute(const struct dtype *t)
{
	return t->compute ? dtype_find(t->compute) : t;
}

/*
** Return V rounded to the nearest value of float dtype T, ties to even,
** directly from double as NumPy converts a Python float; beyond T's
** range, an infinity.
*/
double
dtype_round(const struct dtype *t, double v)
{
	int e;
	double q, r;

	if (t->bits == 64 || v == 0 || isnan(v) || isinf(v))
		return v;
	if (t->bits == 32)
		return (double)(float)v;
	/* binary16: 11 significant bits; below 2^-14, a quantum of 2^-24 */
	frexp(v, &e);
	q = ldexp(1.0, (e < -13 ? -13 : e) - 11);
	r = nearbyint(v / q) * q;
	return fabs(r) > 65504.0 ? copysign(INFINITY, v) : r;
}

/* Return the least float dtype that holds every value of integer dtype T (NumPy's). */
static const struct dtype *
float_for(const struct dtype *t)
{
	return dtype_find(t->bits <= 8 ? "f16" : t->bits <= 16 ? "f32" : "f64");
}

/*
** Return the dtype NumPy's promotion gives for A and B (np.result_type
** of the two dtypes): the larger of one kind; an integer meeting a float,
** the float that also holds the integer; signed meeting unsigned, the
** signed type that holds both (uint64 with a signed type: f64).
*/
const struct dtype *
dtype_promote(const struct dtype *a, const struct dtype *b)
{
	const struct dtype *s, *u;
	char name[8];

	if (a->is_float != b->is_float) {
		const struct dtype *f = a->is_float ? a : b, *i = a->is_float ? b : a;

		return dtype_promote(f, float_for(i));
	}
	if (a->is_float || a->is_signed == b->is_signed)
		return a->bits >= b->bits ? a : b;
	s = a->is_signed ? a : b;
	u = a->is_signed ? b : a;
	if (s->bits > u->bits)
		return s;
	if (u->bits == 64)
		return dtype_find("f64");
	snprintf(name, sizeof name, "i%d", 2 * u->bits);
	return dtype_find(name);
}

/*
** Return the dtype NumPy's promotion gives for the N dtypes TS
** (np.result_type): the float among them, if any, meets each integer on
** its own (i8, u8 and f16 give f16, not i16 then f32); integers alone
** promote pairwise.
*/
const struct dtype *
dtype_result(const struct dtype *const *ts, int n)
{
	const struct dtype *t = NULL;

	for (int i = 0; i < n; i++)
		if (ts[i]->is_float && (!t || ts[i]->bits > t->bits))
			t = ts[i];
	for (int i = 0; i < n; i++)
		if (!ts[i]->is_float)
			t = t ? dtype_promote(t, ts[i]) : ts[i];
	return t;
}

/* Return the dtype an op that takes only floats computes T's values in. */
const struct dtype *
dtype_floating(const struct dtype *t)
{
	return t->is_float ? t : float_for(t);
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

/* Return the op whose id is ID. */
const struct op *
op_get(enum op_id id)
{
	for (const struct op *op = ops; op->name; op++)
		if (op->id == id)
			return op;
	return NULL;
}

/* Find the op that an expression calls FUNC. */
const struct op *
op_func(const char *func)
{
	for (const struct op *op = ops; op->name; op++)
		if (op->func && strcmp(op->func, func) == 0)
			return op;
	return NULL;
}

/* Append the ops' short names, or with FUNCS the functions of --expr: "add sub ...". */
void
op_list(struct strbuf *sb, int funcs)
{
	const char *sep = "";

	for (const struct op *op = ops; op->name; op++)
		if (!funcs || op->func) {
			sb_printf(sb, "%s%s", sep, funcs ? op->func : op->alias);
			sep = " ";
		}
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
		sb_printf(err, "op '%s' does not apply to dtype %s: it needs f16, f32 or f64",
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

/*
** Return whether OP on values of dtype T needs the C library: its helper
** is then in bc_math.h, which includes <math.h>. Only floats do; every
** other helper is in bc.h and needs no library.
*/
int
op_needs_libm(const struct op *op, const struct dtype *t)
{
	return t->is_float && op->libm != NULL;
}

/*
** Append the C library functions OP's helper calls on values of dtype T,
** separated by spaces ("expf log1pf"), or nothing if it calls none. The
** row names the double ones; f32 (and f16, computed in f32) calls the
** float ones, which C names with a suffix f.
*/
void
op_libm_calls(struct strbuf *sb, const struct op *op, const struct dtype *t)
{
	const char *suffix = strcmp(dtype_compute(t)->name, "f32") == 0 ? "f" : "";
	const char *s = op->libm;

	if (!op_needs_libm(op, t))
		return;
	while (*s) {
		size_t n = strcspn(s, " ");

		sb_printf(sb, "%s%.*s%s", s == op->libm ? "" : " ", (int)n, s, suffix);
		s += n;
		s += strspn(s, " ");
	}
}

/* What each kind of op is called, and its result: the dtype (T: the kernel's), a 0 or 1. */
static const struct {
	const char *name, *result;
	int is_bool;
} kind_words[] = {
	[OP_ARITH] = {"arith", "T", 0}, [OP_COMPARE] = {"compare", "u8", 1},
	[OP_LOGICAL] = {"logical", "u8", 1}, [OP_SELECT] = {"select", "T", 0},
	[OP_COPY] = {"copy", "T", 0}
};
static const char *const types_words[] = {
	[OP_ANY_TYPE] = "any", [OP_INT_TYPES] = "int", [OP_FLOAT_TYPES] = "float"
};
static const char *const fma_words[] = {[0] = NULL, [FMA_MULTIPLY] = "multiply", [FMA_ADD] = "add"};

/* Return 1 if OP applies to values of dtype T. */
static int
takes_dtype(const struct op *op, const struct dtype *t)
{
	return op->types == OP_ANY_TYPE || (op->types == OP_FLOAT_TYPES) == (t->is_float != 0);
}

/* Append , "NAME": S as JSON: S a string in quotes, or null for NULL. */
static void
json_field(struct strbuf *sb, const char *name, const char *s)
{
	sb_printf(sb, ", \"%s\": ", name);
	if (!s) {
		sb_add(sb, "null");
		return;
	}
	sb_add(sb, "\"");
	for (; *s; s++)
		sb_printf(sb, *s == '"' || *s == '\\' ? "\\%c" : "%c", *s);
	sb_add(sb, "\"");
}

/* Append , "NAME": true or false as JSON. */
static void
json_bool(struct strbuf *sb, const char *name, int v)
{
	sb_printf(sb, ", \"%s\": %s", name, v ? "true" : "false");
}

/*
** Append OP's row as one JSON object on a line, every field of it: OPER
** the operator that writes it in --expr (or NULL), FORMULA its formula.
*/
static void
json_row(struct strbuf *sb, const struct op *op, const char *oper, const char *formula)
{
	const char *sep = "";

	sb_printf(sb, "    {\"name\": \"%s\"", op->name);
	json_field(sb, "alias", op->alias);
	sb_printf(sb, ", \"min_operands\": %d, \"max_operands\": ", op->min_args);
	if (op->max_args)
		sb_printf(sb, "%d", op->max_args);
	else
		sb_add(sb, "null");
	json_field(sb, "kind", kind_words[op->kind].name);
	json_field(sb, "types", types_words[op->types]);
	sb_add(sb, ", \"dtypes\": [");
	for (const struct dtype *t = dtypes; t->name; t++)
		if (takes_dtype(op, t)) {
			sb_printf(sb, "%s\"%s\"", sep, t->name);
			sep = ", ";
		}
	sb_add(sb, "]");
	json_field(sb, "result", kind_words[op->kind].result);
	json_bool(sb, "bool", kind_words[op->kind].is_bool);
	json_field(sb, "function", op->func);
	json_field(sb, "operator", oper);
	json_bool(sb, "in_expr", oper || op->func);
	json_field(sb, "helper", op->helper);
	json_bool(sb, "exact_infix", op->exact_infix);
	sb_add(sb, ", \"libm\": [");
	for (const char *s = op->libm; s && *s; ) {
		size_t n = strcspn(s, " ");

		sb_printf(sb, "%s\"%.*s\"", s == op->libm ? "" : ", ", (int)n, s);
		s += n + strspn(s + n, " ");
	}
	sb_add(sb, "]");
	json_field(sb, "fma", fma_words[op->fma_part]);
	json_bool(sb, "f16_exact", op->f16_exact);
	json_field(sb, "symbol", op->symbol);
	json_field(sb, "formula", formula);
	sb_add(sb, "}");
}

/*
** Append the op table, in its order and the same bytes on every run:
** with JSON one object {"ops": [...]} holding a row per op, every field
** of it (README.md lists them), else a header and a line per op.
** OPERATOR_OF gives the operator that writes an op in --expr, or NULL
** (the expression parser's table: expr_operator).
*/
void
op_table(struct strbuf *sb, int json, const char *(*operator_of)(enum op_id))
{
	static const char *const names[] = {"x", "y", "z"};
	static const char line[] = "%-14s %-12s %-8s %-8s %-6s %-6s %-14s %s\n";

	if (json)
		sb_add(sb, "{\n  \"ops\": [\n");
	else
		sb_printf(sb, line, "op", "alias", "operands", "kind", "dtypes", "result",
		          "expr", "formula");
	for (const struct op *op = ops; op->name; op++) {
		const char *oper = operator_of(op->id);
		struct strbuf formula = {0}, args = {0}, expr = {0};

		op_formula(&formula, op, names, op->max_args ? op->max_args : 2);
		sb_printf(&args, op->max_args ? "%d" : "%d+", op->min_args);
		sb_printf(&expr, "%s%s%s%s", oper ? oper : "", oper && op->func ? " " : "",
		          op->func ? op->func : "", op->func ? "()" : "");
		if (json) {
			json_row(sb, op, oper, formula.s);
			sb_add(sb, op[1].name ? ",\n" : "\n");
		} else {
			sb_printf(sb, line, op->name, op->alias, args.s, kind_words[op->kind].name,
			          types_words[op->types], kind_words[op->kind].result,
			          expr.len ? expr.s : "-", formula.s);
		}
		sb_free(&formula);
		sb_free(&args);
		sb_free(&expr);
	}
	if (json)
		sb_add(sb, "  ]\n}\n");
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
	if (word && op->kind != OP_LOGICAL) {
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
