/*
** kernel.h: one kernel on its way from description to text: what each
** phase found, gathered for the templates.
*/
#ifndef KERNEL_H
#define KERNEL_H

#include "desc.h"

struct kernel {
	const struct desc *desc;	/* as the user described it */
	char *name;			/* the C function */
	char *command;			/* the canonical command that makes it */
	char *formula;			/* the computation as NumPy would write it */
	const struct dtype *out_dtype;	/* the result's as stored */
	struct bcast b;			/* resolve_broadcast: the broadcast */
	struct plan plan;		/* plan: the walk over the result */
};

#endif
