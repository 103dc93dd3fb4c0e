/*
** expr.h: the element computation of a kernel as a tree: a fused --expr
** parsed from text, or one --op applied to the operands, its types
** checked. The plan (plan.c) turns it into the value it stores.
**
** The front end, by job: expr_parse.c (text to tree), expr_fold.c
** (constant parts to literals), expr_check.c (types). expr.c has the
** rest: the tree of an --op, a node's text, and where an error is.
*/
#ifndef EXPR_H
#define EXPR_H

#include <stdint.h>

#include "ops.h"

#define EXPR_MAX_NODES 1000	/* operands, literals and operators */
#define EXPR_MAX_DEPTH 64	/* levels of nesting: parentheses, calls, casts,
				   unary operators, ?: arms */

enum expr_kind {
	EXPR_OPERAND,		/* an input */
	EXPR_LITERAL,		/* a number */
	EXPR_OP,		/* an op applied to its arguments */
	EXPR_CAST		/* f32(a), i16(a), ... */
};

struct expr_node {
	enum expr_kind kind;
	int start, end;		/* its text: src[start, end) */
	int at;			/* EXPR_OP: where its operator or name is, for errors */
	int operand;		/* EXPR_OPERAND: the input's index */
	const struct op *op;	/* EXPR_OP */
	int nargs;
	int arg[BC_MAX_ARGS];	/* EXPR_OP, EXPR_CAST: the nodes of the arguments */
	const struct dtype *calc;	/* the dtype it computes in (the cast's target) */
	const struct dtype *type;	/* the dtype of its value */
	int is_bool;		/* a comparison's or logical op's 0 or 1 */
	int is_float;		/* EXPR_LITERAL: written with '.' or an exponent, or folded */
	int negative;		/* EXPR_LITERAL: its sign (an integer 0 has none: -0 is 0) */
	int folded;		/* EXPR_LITERAL: the value of constant operators */
	uint64_t magnitude;	/* EXPR_LITERAL: an integer's absolute value */
	double value;		/* EXPR_LITERAL: a float's value */
};

struct expr {
	const char *src;	/* the text parsed, or NULL for an --op */
	struct expr_node *node;
	int n;			/* nodes */
	int root;
	int err_pos;		/* after an error: its offset in src, or -1 */
	const struct dtype *const *in_dtype;	/* each operand's stored dtype, or NULL */
};


int expr_parse(struct expr *e, const char *src, const char *const *names, int nnames,
               struct strbuf *err);
const char *expr_operator(enum op_id id);
void expr_from_op(struct expr *e, const struct op *op, int nargs);
int expr_tests_truth(const struct expr_node *n, int k);
void expr_computed_operands(const struct expr *e, int *computed, int nops);
int expr_fold(struct expr *e, struct strbuf *err);
int expr_check(struct expr *e, const struct dtype *t, struct strbuf *err);
int expr_error(struct expr *e, int node, struct strbuf *err, const char *fmt, ...);
void expr_text(struct strbuf *sb, const struct expr *e, int node);
void expr_text_marked(struct strbuf *sb, const struct expr *e, int node);
void expr_where(struct strbuf *sb, const struct expr *e, const char *name);
void expr_caret(struct strbuf *sb, const struct expr *e);
void expr_free(struct expr *e);

#endif
