/*
** expr_fold.c: the constant parts of a fused expression become literals.
**
** One rule, applied once, after parsing and before the types are
** checked: an operator whose arguments are all constants (numbers, or
** parts already folded; the nodes come in that order) is computed
** exactly and becomes one literal. expr_check.c then gives it the dtype
** of what it meets and checks that it fits, once, as for a number
** written out: in u8, x + (0 - 2) is an error about -2, and in u16,
** x ^ ~(-2) is x ^ 1.
**
** Integers compute as mathematical integers, each op with its integer
** meaning in runtime/bc.h but without wrapping: / truncates toward
** zero, % takes the sign of the divisor (Python's), >> rounds toward
** -inf, ~n is -n - 1, comparisons and logical ops give 0 or 1. An
** integer has a sign and 64 bits, as a literal: a result beyond
** -(2^64 - 1) .. 2^64 - 1 is an error at its operator. Where an integer
** meets a float it becomes a double, as in Python, and floats compute
** in double; a result beyond double is an error. So are division and
** remainder by zero and a shift by a negative count. Unary minus of an
** integer 0 is 0, as in Python: -0 and -(1 - 1) are +0.0 where they
** meet floats; only a float -0.0 is negative zero.
**
** What folds: unary - ! ~, the binary operators, c ? a : b, and the
** calls min max abs where. Casts stay (they say the dtype of their
** argument), and so do the calls that need <math.h> (sqrt exp log pow
** floor ceil fmod), their arguments folded; so do bitwise ops and shifts
** of a float, for expr_check.c to reject.
*/
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"

enum fold {
	F_ADD, F_SUB, F_MUL, F_DIV, F_MOD, F_AND, F_OR, F_XOR, F_SHL, F_SHR,
	F_EQ, F_NE, F_LT, F_LE, F_GT, F_GE, F_LAND, F_LOR,
	F_NEG, F_NOT, F_INV, F_ABS, F_MIN, F_MAX, F_WHERE
};

/* The ops that fold, by their ids in ops.c. */
static const struct folder {
	enum op_id op;
	enum fold how;
} folders[] = {
	{OP_ID_ADD, F_ADD}, {OP_ID_SUBTRACT, F_SUB}, {OP_ID_MULTIPLY, F_MUL},
	{OP_ID_DIVIDE, F_DIV}, {OP_ID_REMAINDER, F_MOD}, {OP_ID_BITWISE_AND, F_AND},
	{OP_ID_BITWISE_OR, F_OR}, {OP_ID_BITWISE_XOR, F_XOR}, {OP_ID_LEFT_SHIFT, F_SHL},
	{OP_ID_RIGHT_SHIFT, F_SHR}, {OP_ID_EQUAL, F_EQ}, {OP_ID_NOT_EQUAL, F_NE},
	{OP_ID_LESS, F_LT}, {OP_ID_LESS_EQUAL, F_LE}, {OP_ID_GREATER, F_GT},
	{OP_ID_GREATER_EQUAL, F_GE}, {OP_ID_LOGICAL_AND, F_LAND}, {OP_ID_LOGICAL_OR, F_LOR},
	{OP_ID_NEGATIVE, F_NEG}, {OP_ID_LOGICAL_NOT, F_NOT}, {OP_ID_INVERT, F_INV},
	{OP_ID_ABSOLUTE, F_ABS}, {OP_ID_MINIMUM, F_MIN}, {OP_ID_MAXIMUM, F_MAX},
	{OP_ID_WHERE, F_WHERE}, {NOP_IDS, F_ADD}
};

/* What folding an op gave. */
enum outcome {
	DONE,
	KEEP,			/* it does not fold: left for expr_check */
	OUT_OF_RANGE,		/* an integer beyond 64 bits and a sign */
	FLOAT_OVERFLOW,
	BY_ZERO,
	NEGATIVE_SHIFT
};

static const char *const why[] = {
	NULL, NULL,
	"on constants leaves the range -18446744073709551615 to 18446744073709551615",
	"on constants overflows double",
	"divides a constant by zero",
	"shifts a constant by a negative count"
};

/* A constant: an integer as a sign and a magnitude, or a double. */
struct num {
	int is_float;
	int negative;		/* the sign: an integer's, never on 0; a float's signbit */
	uint64_t mag;		/* an integer's absolute value */
	double value;		/* a float's value */
};

static void
int_set(struct num *r, int negative, uint64_t mag)
{
	memset(r, 0, sizeof *r);
	r->negative = negative && mag != 0;
	r->mag = mag;
}

static void
float_set(struct num *r, double v)
{
	memset(r, 0, sizeof *r);
	r->is_float = 1;
	r->negative = signbit(v) != 0;
	r->value = v;
}

/* Return 1 if integer A is below 0. */
static int
below0(const struct num *a)
{
	return a->negative && a->mag != 0;
}

static double
as_double(const struct num *a)
{
	if (a->is_float)
		return a->value;
	return a->negative ? -(double)a->mag : (double)a->mag;
}

static int
truth(const struct num *a)
{
	return a->is_float ? a->value != 0 : a->mag != 0;
}

/* Return -1, 0 or 1 as A is below, equal to or above B. */
static int
num_compare(const struct num *a, const struct num *b)
{
	if (a->is_float || b->is_float) {
		double x = as_double(a), y = as_double(b);

		return (x > y) - (x < y);
	}
	if (below0(a) != below0(b))
		return below0(a) ? -1 : 1;
	if (a->mag == b->mag)
		return 0;
	return (a->mag < b->mag) != below0(a) ? -1 : 1;
}

/*
** Return integer A's low 64 bits in two's complement, and in *HIGH the
** bits above them (all 1 or all 0): 65 bits hold every integer here.
*/
static uint64_t
twos(const struct num *a, int *high)
{
	*high = below0(a);
	return *high ? ~a->mag + 1 : a->mag;
}

/* Set *R to the integer of LOW bits and HIGH above them. */
static enum outcome
from_twos(struct num *r, uint64_t low, int high)
{
	if (high && low == 0)
		return OUT_OF_RANGE;	/* -2^64 */
	int_set(r, high, high ? ~low + 1 : low);
	return DONE;
}

/* Set *R to the integer of sign SA and magnitude MA plus that of SB and MB. */
static enum outcome
int_add(struct num *r, int sa, uint64_t ma, int sb, uint64_t mb)
{
	if (sa == sb && ma > UINT64_MAX - mb)
		return OUT_OF_RANGE;
	if (sa == sb)
		int_set(r, sa, ma + mb);
	else if (ma >= mb)
		int_set(r, sa, ma - mb);
	else
		int_set(r, sb, mb - ma);
	return DONE;
}

/* Set *R to integers A op B for the binary op HOW. */
static enum outcome
int_binary(enum fold how, struct num *r, const struct num *a, const struct num *b)
{
	int sa = below0(a), sb = below0(b), ha, hb;
	uint64_t ma = a->mag, mb = b->mag, la, lb, q;

	switch (how) {
	case F_ADD:
	case F_SUB:
		return int_add(r, sa, ma, how == F_SUB ? !sb : sb, mb);
	case F_MUL:
		if (ma != 0 && mb > UINT64_MAX / ma)
			return OUT_OF_RANGE;
		int_set(r, sa != sb, ma * mb);
		return DONE;
	case F_DIV:
	case F_MOD:
		if (mb == 0)
			return BY_ZERO;
		if (how == F_DIV)
			int_set(r, sa != sb, ma / mb);
		else if (ma % mb != 0 && sa != sb)
			int_set(r, sb, mb - ma % mb);
		else
			int_set(r, sb, ma % mb);
		return DONE;
	case F_AND:
	case F_OR:
	case F_XOR:
		la = twos(a, &ha);
		lb = twos(b, &hb);
		if (how == F_AND)
			return from_twos(r, la & lb, ha & hb);
		if (how == F_OR)
			return from_twos(r, la | lb, ha | hb);
		return from_twos(r, la ^ lb, ha ^ hb);
	case F_SHL:
		if (sb)
			return NEGATIVE_SHIFT;
		if (ma != 0 && (mb >= 64 || ma > UINT64_MAX >> mb))
			return OUT_OF_RANGE;
		int_set(r, sa, ma == 0 ? 0 : ma << mb);
		return DONE;
	case F_SHR:
		if (sb)
			return NEGATIVE_SHIFT;
		q = mb >= 64 ? 0 : ma >> mb;
		/* a negative number rounds toward -inf: away from 0 */
		if (sa && (mb >= 64 || (ma & ((UINT64_C(1) << mb) - 1)) != 0))
			q++;
		int_set(r, sa, q);
		return DONE;
	default:
		return KEEP;
	}
}

/* Set *R to A op B for the binary arithmetic op HOW, one of them a float. */
static enum outcome
float_binary(enum fold how, struct num *r, const struct num *a, const struct num *b)
{
	double x = as_double(a), y = as_double(b), v;

	switch (how) {
	case F_ADD:
		v = x + y;
		break;
	case F_SUB:
		v = x - y;
		break;
	case F_MUL:
		v = x * y;
		break;
	case F_DIV:
	case F_MOD:
		if (y == 0)
			return BY_ZERO;
		if (how == F_DIV) {
			v = x / y;
			break;
		}
		/* np.remainder, Python's %: the sign of the divisor */
		v = fmod(x, y);
		if (v != 0 && (y < 0) != (v < 0))
			v += y;
		else if (v == 0)
			v = copysign(0.0, y);
		break;
	default:
		return KEEP;	/* bitwise ops and shifts need integers */
	}
	if (!isfinite(v))
		return FLOAT_OVERFLOW;
	float_set(r, v);
	return DONE;
}

/* Set *R to the op HOW applied to the NARGS constants A. */
static enum outcome
fold(enum fold how, struct num *r, struct num *a, int nargs)
{
	int any_float = 0, c, high;
	uint64_t low;

	for (int k = 0; k < nargs; k++)
		any_float |= a[k].is_float;
	switch (how) {
	case F_NEG:
		if (a[0].is_float)
			float_set(r, -a[0].value);
		else
			int_set(r, !a[0].negative, a[0].mag);
		return DONE;
	case F_NOT:
		int_set(r, 0, !truth(&a[0]));
		return DONE;
	case F_LAND:
	case F_LOR:
		int_set(r, 0, how == F_LAND ? truth(&a[0]) && truth(&a[1])
		                            : truth(&a[0]) || truth(&a[1]));
		return DONE;
	case F_INV:
		if (any_float)
			return KEEP;
		low = twos(&a[0], &high);
		return from_twos(r, ~low, !high);
	case F_ABS:
		if (a[0].is_float)
			float_set(r, fabs(a[0].value));
		else
			int_set(r, 0, a[0].mag);
		return DONE;
	case F_EQ: case F_NE: case F_LT: case F_LE: case F_GT: case F_GE:
		c = num_compare(&a[0], &a[1]);
		int_set(r, 0, how == F_EQ ? c == 0 : how == F_NE ? c != 0 : how == F_LT ? c < 0
		              : how == F_LE ? c <= 0 : how == F_GT ? c > 0 : c >= 0);
		return DONE;
	case F_WHERE:
		*r = truth(&a[0]) ? a[1] : a[2];
		if (!r->is_float && (a[1].is_float || a[2].is_float))
			float_set(r, as_double(r));	/* both branches have one dtype */
		return DONE;
	case F_MIN:
	case F_MAX:
		/* bc_min / bc_max from the left: on a tie, the later argument */
		*r = a[0];
		for (int k = 1; k < nargs; k++) {
			c = num_compare(r, &a[k]);
			if (!(how == F_MAX ? c > 0 : c < 0))
				*r = a[k];
		}
		if (any_float && !r->is_float)
			float_set(r, as_double(r));
		return DONE;
	default:
		break;
	}
	if (any_float)
		return float_binary(how, r, &a[0], &a[1]);
	return int_binary(how, r, &a[0], &a[1]);
}

/* Drop the nodes the root no longer reaches, keeping the order of the rest. */
static void
compact(struct expr *e)
{
	int *index = xmalloc((size_t)e->n * sizeof *index);	/* 1 + new index, or 0 */
	int m = 0;

	memset(index, 0, (size_t)e->n * sizeof *index);
	index[e->root] = 1;
	for (int i = e->n - 1; i >= 0; i--)
		for (int k = 0; index[i] && k < e->node[i].nargs; k++)
			index[e->node[i].arg[k]] = 1;
	for (int i = 0; i < e->n; i++) {
		if (!index[i])
			continue;
		e->node[m] = e->node[i];
		for (int k = 0; k < e->node[m].nargs; k++)
			e->node[m].arg[k] = index[e->node[m].arg[k]] - 1;
		index[i] = ++m;
	}
	e->root = index[e->root] - 1;
	e->n = m;
	free(index);
}

/*
** Fold the constant parts of E into literals, by the rule above. On
** error return -1 with the message in ERR and its place in e->err_pos.
*/
int
expr_fold(struct expr *e, struct strbuf *err)
{
	for (int i = 0; i < e->n; i++) {
		struct expr_node *n = &e->node[i];
		const struct folder *f = folders;
		struct num a[BC_MAX_ARGS] = {{0, 0, 0, 0}}, r;
		enum outcome got;
		int k = 0;

		if (n->kind != EXPR_OP || n->nargs == 0)
			continue;
		while (k < n->nargs && e->node[n->arg[k]].kind == EXPR_LITERAL)
			k++;
		while (f->op != NOP_IDS && f->op != n->op->id)
			f++;
		if (k < n->nargs || f->op == NOP_IDS)
			continue;
		for (k = 0; k < n->nargs; k++) {
			const struct expr_node *lit = &e->node[n->arg[k]];

			a[k].is_float = lit->is_float;
			a[k].negative = lit->negative;
			a[k].mag = lit->magnitude;
			a[k].value = lit->value;
		}
		if ((got = fold(f->how, &r, a, n->nargs)) == KEEP)
			continue;
		if (got != DONE)
			return expr_error(e, i, err, "%s", why[got]);
		n->folded = f->how != F_NEG || e->node[n->arg[0]].folded;
		n->kind = EXPR_LITERAL;
		n->op = NULL;
		n->nargs = 0;
		n->is_float = r.is_float;
		n->negative = r.negative;
		n->magnitude = r.mag;
		n->value = r.value;
	}
	compact(e);
	return 0;
}
