/*
** plan.h: how the kernel walks the result: loops after dropping size-1
** dimensions and merging neighbours, or one statement per element.
*/
#ifndef PLAN_H
#define PLAN_H

#include "bcast.h"

#define PLAN_UNROLL_DEFAULT 16	/* --unroll-limit default */
#define PLAN_UNROLL_CEILING 4096	/* whatever --unroll-limit says */
#define PLAN_UNROLL_NODES 65536	/* elements unrolled times expression nodes */

enum plan_strategy {
	PLAN_AUTO,		/* unroll up to the limit, else loops */
	PLAN_UNROLL,		/* one statement per output element */
	PLAN_LOOPS,		/* the merged loop nest */
	PLAN_EMPTY		/* the result has no elements */
};

struct plan {
	enum plan_strategy strategy;	/* never PLAN_AUTO once built */
	int nin;			/* input operands; the output is index nin */
	uint64_t count;			/* result elements */
	int nloops;			/* loops, outermost first */
	uint64_t extent[SHAPE_MAX_RANK];	/* trip count of each loop */
	int64_t stride[SHAPE_MAX_RANK][BCAST_MAX_OPERANDS + 1];	/* [loop][operand] */
	int hoist[BCAST_MAX_OPERANDS];	/* loop from which operand is constant */
	uint64_t *offset;		/* PLAN_UNROLL: [element * nin + operand] */
};

int plan_build(struct plan *p, const struct bcast *b, int nin, enum plan_strategy want,
               uint64_t unroll_limit, int nodes, struct strbuf *err);
void plan_free(struct plan *p);
const char *plan_strategy_name(enum plan_strategy s);

#endif
