/*
** kernel.h: everything that defines one kernel, gathered for rendering.
*/
#ifndef KERNEL_H
#define KERNEL_H

#include "expr.h"
#include "plan.h"

struct kernel {
	const char *name;		/* the C function */
	const char *command;		/* the options and operands that define it */
	const char *formula;		/* the computation as NumPy would write it */
	struct expr *expr;		/* the computation */
	struct expr_temp *temps;	/* PLAN_LOOPS: its parts computed in outer loops */
	int ntemps;
	const struct dtype *dtype;	/* the computation's */
	const struct dtype *out_dtype;	/* the result's as stored */
	const struct dtype *in_dtype[BCAST_MAX_OPERANDS];	/* each input's */
	int nin;			/* inputs: the first nin operands of b */
	int inplace;			/* the result goes into input 0 */
	const struct bcast *b;
	const struct plan *plan;
};

#endif
