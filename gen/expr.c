/*
** expr.c: the computation of a kernel as a tree, whatever wrote it.
**
** The front end is apart: expr_parse.c reads the text, expr_fold.c
** folds its constant parts, expr_check.c gives every node its dtypes.
** Here: the tree of one --op, the text of a node, and where an error
** is. A node's arguments always come before it and the last node is the
** root. What the tree becomes in C is the plan's (plan.c).
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

/*
** Return 1 if argument K of op node N is tested for its truth: an
** argument of a logical op, or where's condition. An operand there is
** read as it is stored, not as the kernel's dtype (expr_check.c).
*/
int
expr_tests_truth(const struct expr_node *n, int k)
{
	return n->kind == EXPR_OP && (n->op->kind == OP_LOGICAL
	                              || (n->op->kind == OP_SELECT && k == 0));
}

/*
** Set COMPUTED[j], for each of E's NOPS operands, to 1 if E computes
** with its value (it is the root, or an argument not tested for its
** truth), to 0 if E only tests it: then its dtype has no say in the
** kernel's, as where's condition has none in NumPy's np.where.
*/
void
expr_computed_operands(const struct expr *e, int *computed, int nops)
{
	memset(computed, 0, (size_t)nops * sizeof *computed);
	if (e->node[e->root].kind == EXPR_OPERAND)
		computed[e->node[e->root].operand] = 1;
	for (int i = 0; i < e->n; i++)
		for (int k = 0; k < e->node[i].nargs; k++) {
			const struct expr_node *a = &e->node[e->node[i].arg[k]];

			if (a->kind == EXPR_OPERAND && !expr_tests_truth(&e->node[i], k))
				computed[a->operand] = 1;
		}
}

/*
** Append node I's source text with each run of spaces made one space;
** with MARKED, each operand's name as "\001J\002" instead, J its 1-based
** index.
*/
static void
append_text(struct strbuf *sb, const struct expr *e, int i, int marked)
{
	const struct expr_node *n = &e->node[i];

	for (int k = n->start; k < n->end; k++) {
		char c = e->src[k];
		int ref = -1;

		for (int j = 0; marked && j < e->n && ref < 0; j++)
			if (e->node[j].kind == EXPR_OPERAND && e->node[j].start == k)
				ref = j;
		if (ref >= 0) {
			sb_printf(sb, "\001%d\002", e->node[ref].operand + 1);
			k = e->node[ref].end - 1;
			continue;
		}
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

/* Append node I's source text with each run of spaces made one space. */
void
expr_text(struct strbuf *sb, const struct expr *e, int i)
{
	append_text(sb, e, i, 0);
}

/* Append node I's text as expr_text does, each operand marked "\001J\002". */
void
expr_text_marked(struct strbuf *sb, const struct expr *e, int i)
{
	append_text(sb, e, i, 1);
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

/*
** Append the line of E's error, then a caret under its place: a window
** of at most CARET_WIDTH bytes of a longer line, cut where a UTF-8
** character starts, with "..." where it is cut.
*/
#define CARET_WIDTH 66	/* with the indent and the dots, 80 columns */
void
expr_caret(struct strbuf *sb, const struct expr *e)
{
	int bol = e->err_pos, eol = e->err_pos, from, to;

	while (bol > 0 && e->src[bol - 1] != '\n')
		bol--;
	eol += (int)strcspn(e->src + eol, "\n");
	from = e->err_pos - bol > CARET_WIDTH / 2 ? e->err_pos - CARET_WIDTH / 2 : bol;
	while (from > bol && ((unsigned char)e->src[from] & 0xC0) == 0x80)
		from--;
	to = eol - from > CARET_WIDTH ? from + CARET_WIDTH : eol;
	while (to > from && to < eol && ((unsigned char)e->src[to] & 0xC0) == 0x80)
		to--;
	sb_printf(sb, "    %s%.*s%s\n    %s", from > bol ? "..." : "", to - from, e->src + from,
	          to < eol ? "..." : "", from > bol ? "   " : "");
	for (int k = from; k < e->err_pos; k++)	/* a column per character */
		if (((unsigned char)e->src[k] & 0xC0) != 0x80)
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
