/*
** expr.c: fused expressions, from a checked tree to C.
**
** The front end is apart: expr_parse.c reads the text, expr_fold.c
** folds its constant parts, expr_check.c gives every node its dtypes.
** Here: the tree of one --op, hoisting, emitting C, and showing where
** an error is. A node's arguments always come before it and the last
** node is the root.
*/
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"

/* Make E the op OP applied to the NARGS operands in order (copy: the operand). */
void
expr_from_op(struct expr *e, const struct op *op, int nargs)
{
	memset(e, 0, sizeof *e);
	e->n = nargs + (op->kind != OP_COPY);
	e->node = xmalloc((size_t)e->n * sizeof *e->node);
	memset(e->node, 0, (size_t)e->n * sizeof *e->node);
	for (int k = 0; k < e->n; k++) {
		e->node[k].temp = -1;
		e->node[k].kind = k < nargs ? EXPR_OPERAND : EXPR_OP;
		e->node[k].operand = k;
	}
	if (op->kind != OP_COPY) {
		struct expr_node *n = &e->node[nargs];

		n->op = op;
		n->nargs = nargs;
		for (int k = 0; k < nargs; k++)
			n->arg[k] = k;
	}
	e->root = e->n - 1;
	e->err_pos = -1;
}

/* Return 1 if E calls a helper of bc_math.h. */
int
expr_needs_libm(const struct expr *e)
{
	for (int i = 0; i < e->n; i++)
		if (e->node[i].kind == EXPR_OP && op_needs_libm(e->node[i].op, e->node[i].calc))
			return 1;
	return 0;
}

/* Append node I's source text with each run of spaces made one space. */
void
expr_text(struct strbuf *sb, const struct expr *e, int i)
{
	const struct expr_node *n = &e->node[i];

	for (int k = n->start; k < n->end; k++) {
		char c = e->src[k];

		if (isspace((unsigned char)c)) {
			while (k + 1 < n->end && isspace((unsigned char)e->src[k + 1]))
				k++;
			c = ' ';
		}
		sb_addn(sb, &c, 1);
		if (c == '*' && k + 1 < n->end && e->src[k + 1] == '/')
			sb_add(sb, " ");	/* never end the comment it goes in */
	}
}

/*
** Set each node's level, the loop from which it no longer varies, from
** HOIST (each operand's) and NLOOPS, and choose the temporaries: the
** largest parts that vary only in outer loops, computed once there.
** Return their number, and them, dependencies first, in *TEMPS.
*/
int
expr_hoist(struct expr *e, const int *hoist, int nloops, struct expr_temp **temps)
{
	int *parent_level = xmalloc((size_t)e->n * sizeof *parent_level);
	int *has_operand = xmalloc((size_t)e->n * sizeof *has_operand);
	int ntemps = 0;

	for (int i = 0; i < e->n; i++) {
		struct expr_node *n = &e->node[i];

		n->level = n->kind == EXPR_OPERAND ? hoist[n->operand] : 0;
		has_operand[i] = n->kind == EXPR_OPERAND;
		for (int k = 0; k < n->nargs; k++) {
			int a = n->arg[k];

			if (e->node[a].level > n->level)
				n->level = e->node[a].level;
			has_operand[i] |= has_operand[a];
		}
		parent_level[i] = nloops;
	}
	for (int i = 0; i < e->n; i++)
		for (int k = 0; k < e->node[i].nargs; k++)
			parent_level[e->node[i].arg[k]] = e->node[i].level;
	*temps = xmalloc((size_t)e->n * sizeof **temps);
	for (int i = 0; i < e->n; i++) {
		struct expr_node *n = &e->node[i];

		n->temp = -1;
		if (n->kind == EXPR_OPERAND || !has_operand[i] || n->level >= parent_level[i])
			continue;
		n->temp = ntemps;
		(*temps)[ntemps].node = i;
		(*temps)[ntemps].level = n->level;
		ntemps++;
	}
	free(parent_level);
	free(has_operand);
	return ntemps;
}

/* Set R to the C text of literal node N: 2.5f, (int8_t)-3, UINT64_C(7). */
static void
literal_text(struct ctext *r, const struct expr_node *n)
{
	const struct dtype *t = n->type;
	char buf[64];

	memset(r, 0, sizeof *r);
	r->prec = n->negative ? PREC_UNARY : PREC_PRIMARY;
	if (t->is_float) {
		double v = t->bits == 32 ? (double)(float)n->value : n->value;

		/* the shortest text that reads back as the same value */
		for (int digits = 1; digits <= 17; digits++) {
			snprintf(buf, sizeof buf, "%.*g", digits, v);
			if (t->bits == 32 ? (double)strtof(buf, NULL) == v : strtod(buf, NULL) == v)
				break;
		}
		sb_add(&r->s, buf);
		if (!strpbrk(buf, ".e"))
			sb_add(&r->s, ".0");
		if (t->bits == 32)
			sb_add(&r->s, "f");
		return;
	}
	snprintf(buf, sizeof buf, "%s%llu", n->negative ? "-" : "",
	         (unsigned long long)n->magnitude);
	if (t->is_signed && t->bits >= 32 && n->negative
	    && n->magnitude == (uint64_t)1 << (t->bits - 1)) {
		sb_printf(&r->s, "INT%d_MIN", t->bits);	/* no literal has its value */
		r->prec = PREC_PRIMARY;
	} else if (t->bits < 32) {
		sb_printf(&r->s, "(%s)%s", t->ctype, buf);
		r->prec = PREC_UNARY;
	} else if (t->bits == 64) {
		sb_printf(&r->s, "%s(%s)", t->is_signed ? "INT64_C" : "UINT64_C", buf);
		r->prec = PREC_PRIMARY;
	} else {
		sb_printf(&r->s, t->is_signed ? "%s" : "%su", buf);
	}
}

/* Set R to argument K of op node I, converted to the dtype the op computes in. */
static void
emit_arg(struct ctext *r, const struct expr *e, int i, int k, const struct dtype *t,
         const struct dtype *const *in_dtype, int use_temps)
{
	const struct expr_node *n = &e->node[i], *a = &e->node[n->arg[k]];
	/* logical ops and where's condition test any dtype against 0 */
	int as_is = (n->op->kind == OP_BOOL && strncmp(n->op->name, "logical_", 8) == 0)
	            || (n->op->kind == OP_SELECT && k == 0);
	struct ctext v;

	expr_value(&v, e, n->arg[k], t, in_dtype, use_temps);
	if (as_is) {
		*r = v;
	} else {
		dtype_convert(r, &v, a->type, n->calc);
		sb_free(&v.s);
	}
}

/*
** Set R to the C expression of node I of E in a kernel of dtype T whose
** inputs are stored as IN_DTYPE: operand k appears as the placeholder
** {k+1}, for the template to say how it is read. With USE_TEMPS, the
** temporaries chosen by expr_hoist inside node I appear by name: t0, ...
*/
void
expr_emit(struct ctext *r, const struct expr *e, int i, const struct dtype *t,
          const struct dtype *const *in_dtype, int use_temps)
{
	const struct expr_node *n = &e->node[i];
	struct ctext args[BC_MAX_ARGS], v;

	memset(r, 0, sizeof *r);
	switch (n->kind) {
	case EXPR_OPERAND:
		memset(&v, 0, sizeof v);
		sb_printf(&v.s, "{%d}", n->operand + 1);
		v.prec = PREC_PRIMARY;
		dtype_convert(r, &v, in_dtype[n->operand], t);
		sb_free(&v.s);
		return;
	case EXPR_LITERAL:
		literal_text(r, n);
		return;
	case EXPR_CAST:
		expr_value(&v, e, n->arg[0], t, in_dtype, use_temps);
		dtype_convert(r, &v, e->node[n->arg[0]].type, n->type);
		sb_free(&v.s);
		return;
	case EXPR_OP:
		break;
	}
	for (int k = 0; k < n->nargs; k++)
		emit_arg(&args[k], e, i, k, t, in_dtype, use_temps);
	op_apply(r, n->op, n->calc, args, n->nargs);
	for (int k = 0; k < n->nargs; k++)
		sb_free(&args[k].s);
}

/*
** Set R to the value of node I, as its users read it: with USE_TEMPS, a
** temporary's name (t0, t1, ...); otherwise its expression (expr_emit).
*/
void
expr_value(struct ctext *r, const struct expr *e, int i, const struct dtype *t,
           const struct dtype *const *in_dtype, int use_temps)
{
	const struct expr_node *n = &e->node[i];

	if (use_temps && n->temp >= 0) {
		memset(r, 0, sizeof *r);
		sb_printf(&r->s, "t%d", n->temp);
		r->prec = PREC_PRIMARY;
		r->is_bool = n->is_bool;
	} else {
		expr_emit(r, e, i, t, in_dtype, use_temps);
	}
}

/* Return how many times E reads operand K. */
int
expr_uses(const struct expr *e, int k)
{
	int uses = 0;

	for (int i = 0; i < e->n; i++)
		uses += e->node[i].kind == EXPR_OPERAND && e->node[i].operand == k;
	return uses;
}

/* Append "NAME:LINE:COL", the place of E's error in its text NAME. */
void
expr_where(struct strbuf *sb, const struct expr *e, const char *name)
{
	int line = 1, bol = 0;

	for (int k = 0; k < e->err_pos; k++)
		if (e->src[k] == '\n') {
			line++;
			bol = k + 1;
		}
	sb_printf(sb, "%s:%d:%d", name, line, e->err_pos - bol + 1);
}

/* Append the line of E's error, then a caret under its place. */
void
expr_caret(struct strbuf *sb, const struct expr *e)
{
	int bol = e->err_pos, eol = e->err_pos;

	while (bol > 0 && e->src[bol - 1] != '\n')
		bol--;
	eol += (int)strcspn(e->src + eol, "\n");
	sb_printf(sb, "    %.*s\n    ", eol - bol, e->src + bol);
	for (int k = bol; k < e->err_pos; k++)
		sb_add(sb, e->src[k] == '\t' ? "\t" : " ");
	sb_add(sb, "^");
}

void
expr_free(struct expr *e)
{
	free(e->node);
	e->node = NULL;
	e->n = 0;
}
