/*
** expr_check.c: the types of a fused expression.
**
** Every operand is loaded as the kernel's dtype T, but where it is
** tested for its truth, which reads it as it is stored. A literal (a
** number as written, or a constant part folded by expr_fold.c) takes the
** dtype of what it meets (T when it meets only literals) and must fit in
** it; this is the one place where a constant's value is checked.
** Arguments of one operator must have the same dtype; a cast (f32(a),
** i16(a), ...) makes them so. A comparison or logical op gives 0 or 1 as
** u8, which converts to the dtype of what it meets. Each operator
** computes as the --op of the same name (ops.c).
*/
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "expr.h"

/* Append the source token at offset POS: "sqrt", "+", "<<". */
static void
token_at(struct strbuf *sb, const struct expr *e, int pos)
{
	const char *s = e->src + pos;
	int n = 1;

	if (isalpha((unsigned char)*s) || *s == '_')
		while (isalnum((unsigned char)s[n]) || s[n] == '_')
			n++;
	else if (s[1] && strchr("|&=<>", s[1]) && strchr("|&=!<>", s[0]))
		n = 2;
	sb_addn(sb, s, (size_t)n);
}

/*
** Record an error about node I: its text in quotes (an operator's or a
** call's name), then the message; set e->err_pos to its place. Return -1.
*/
int
expr_error(struct expr *e, int i, struct strbuf *err, const char *fmt, ...)
{
	struct strbuf what = {0};
	const struct expr_node *n = &e->node[i];
	va_list ap;

	if (e->src && n->kind == EXPR_OP)
		token_at(&what, e, n->at);
	else if (n->kind == EXPR_OP)
		sb_add(&what, n->op->name);
	else
		sb_addn(&what, e->src + n->start, (size_t)(n->end - n->start));
	sb_printf(err, "'%s' ", what.s);
	va_start(ap, fmt);
	sb_vprintf(err, fmt, ap);
	va_end(ap);
	e->err_pos = n->kind == EXPR_OP ? n->at : n->start;
	sb_free(&what);
	return -1;
}

/*
** Give literal node I the dtype TO, checking that its value fits. A
** folded constant's message says its value.
*/
static int
literal_fits(struct expr *e, int i, const struct dtype *to, struct strbuf *err)
{
	struct expr_node *n = &e->node[i];
	struct strbuf is = {0};
	int r = 0;

	if (n->is_float && !to->is_float)
		return expr_error(e, i, err, "is a float, but the operands here are %s",
		                  to->name);
	if (n->folded && n->is_float)
		sb_printf(&is, "is %g, which ", n->value);
	else if (n->folded)
		sb_printf(&is, "is %s%llu, which ", n->negative && n->magnitude ? "-" : "",
		          (unsigned long long)n->magnitude);
	if (to->is_float) {
		/* an integer rounds to float directly, not through double (and
		 * to f16 from there, as NumPy converts integers) */
		if (!n->is_float && to->bits <= 32)
			n->value = (double)(n->negative ? -(float)n->magnitude : (float)n->magnitude);
		else if (!n->is_float)
			n->value = n->negative ? -(double)n->magnitude : (double)n->magnitude;
		n->value = dtype_round(to, n->value);
		if (isinf(n->value))
			r = expr_error(e, i, err, "%sdoes not fit %s", is.s ? is.s : "",
			               to->name);
	} else {
		uint64_t max = to->bits == 64 ? UINT64_MAX : ((uint64_t)1 << to->bits) - 1;
		char range[64];

		if (to->is_signed)
			max = max >> 1;
		if (n->magnitude > max + (to->is_signed && n->negative)
		    || (n->negative && !to->is_signed && n->magnitude > 0)) {
			if (to->is_signed)
				snprintf(range, sizeof range, "-%llu to %llu",
				         (unsigned long long)max + 1, (unsigned long long)max);
			else
				snprintf(range, sizeof range, "0 to %llu", (unsigned long long)max);
			r = expr_error(e, i, err, "%sdoes not fit %s (%s)",
			               is.s ? is.s : "", to->name, range);
		}
	}
	sb_free(&is);
	n->type = n->calc = to;
	return r;
}

static int check_op_types(struct expr *e, int i, struct strbuf *err);

/* Give the untyped node I (literals only) the dtype TO. */
static int
settle(struct expr *e, int i, const struct dtype *to, struct strbuf *err)
{
	struct expr_node *n = &e->node[i];

	if (n->type)
		return 0;
	if (n->kind == EXPR_LITERAL)
		return literal_fits(e, i, to, err);
	n->type = n->calc = to;
	for (int k = 0; k < n->nargs; k++)
		if (settle(e, n->arg[k], to, err) != 0)
			return -1;
	return check_op_types(e, i, err);
}

/* Check that node I's op applies to its dtype. */
static int
check_op_types(struct expr *e, int i, struct strbuf *err)
{
	const struct expr_node *n = &e->node[i];

	if (n->op->types == OP_INT_TYPES && n->calc->is_float)
		return expr_error(e, i, err, "needs integer operands, not %s", n->calc->name);
	if (n->op->types == OP_FLOAT_TYPES && !n->calc->is_float)
		return expr_error(e, i, err, "needs float operands, not %s: cast with "
		                  "f32(...) or f64(...)", n->calc->name);
	return 0;
}

/*
** Find the dtype the arguments FIRST.. of node I share: a comparison's
** u8 converts to the others' dtype, literals take it. Set *U to it, or
** to NULL when all are literals.
*/
static int
unify(struct expr *e, int i, int first, const struct dtype **u, struct strbuf *err)
{
	struct expr_node *n = &e->node[i];
	const struct dtype *bools = NULL;

	*u = NULL;
	for (int k = first; k < n->nargs; k++) {
		const struct expr_node *a = &e->node[n->arg[k]];

		if (a->type && a->is_bool)
			bools = a->type;
		else if (a->type && !*u)
			*u = a->type;
		else if (a->type && a->type != *u)
			return expr_error(e, i, err, "mixes %s and %s: cast one side, as in "
			                  "f32(...)", (*u)->name, a->type->name);
	}
	if (!*u && bools && n->op->kind == OP_ARITH)
		return expr_error(e, i, err, "on comparison results alone: cast one, as in "
		                  "i32(a < b)");
	if (!*u)
		*u = bools;
	for (int k = first; *u && k < n->nargs; k++)
		if (settle(e, n->arg[k], *u, err) != 0)
			return -1;
	return 0;
}

/*
** Let argument K of node I, tested for its truth, be an operand as it is
** stored: a float 0.5 is true whatever the kernel's dtype, as in NumPy.
*/
static void
test_as_stored(struct expr *e, int i, int k)
{
	struct expr_node *a = &e->node[e->node[i].arg[k]];

	if (a->kind == EXPR_OPERAND && e->in_dtype)
		a->type = a->calc = e->in_dtype[a->operand];
}

/* Check node I and what it applies to in a kernel of dtype T. */
static int
check(struct expr *e, int i, const struct dtype *t, struct strbuf *err)
{
	struct expr_node *n = &e->node[i];
	const struct dtype *u8 = dtype_find("u8"), *u;

	for (int k = 0; k < n->nargs; k++)
		if (check(e, n->arg[k], t, err) != 0)
			return -1;
	n = &e->node[i];
	switch (n->kind) {
	case EXPR_OPERAND:
		n->type = n->calc = t;
		return 0;
	case EXPR_LITERAL:
		return 0;
	case EXPR_CAST:
		n->type = n->calc;
		return settle(e, n->arg[0], n->calc, err);
	case EXPR_OP:
		break;
	}
	if (n->op->kind == OP_LOGICAL) {
		for (int k = 0; k < n->nargs; k++) {
			test_as_stored(e, i, k);
			if (settle(e, n->arg[k], t, err) != 0)
				return -1;
		}
		n->type = n->calc = u8;
		n->is_bool = 1;
		return 0;
	}
	if (n->op->kind == OP_SELECT)
		test_as_stored(e, i, 0);
	if (n->op->kind == OP_SELECT && settle(e, n->arg[0], t, err) != 0)
		return -1;
	if (unify(e, i, n->op->kind == OP_SELECT, &u, err) != 0)
		return -1;
	if (n->op->kind == OP_COMPARE) {
		if (!u) {
			for (int k = 0; k < n->nargs; k++)
				if (settle(e, n->arg[k], t, err) != 0)
					return -1;
			u = t;
		}
		n->calc = u;
		n->type = u8;
		n->is_bool = 1;
		return 0;
	}
	n->type = n->calc = u;
	return u ? check_op_types(e, i, err) : 0;
}

/*
** Fold E's constant parts (expr_fold), then check its types in a kernel
** of dtype T: every node gets the dtype it computes in and the dtype of
** its value. On error return -1 with the message in ERR and its place
** in e->err_pos.
*/
int
expr_check(struct expr *e, const struct dtype *t, struct strbuf *err)
{
	if (expr_fold(e, err) != 0)
		return -1;
	if (check(e, e->root, t, err) != 0 || settle(e, e->root, t, err) != 0)
		return -1;
	return 0;
}
