/*
** spec.h: spec files, which declare many kernels in Lua.
*/
#ifndef SPEC_H
#define SPEC_H

#include "util.h"

/* One kernel of a spec, as the command-line words that say the same. */
struct spec_kernel {
	char *name;
	int line;		/* where it is declared */
	int argc;
	char **argv;		/* "bcastgen", "--name=NAME", options, "--", operands */
};

struct spec {
	struct spec_kernel *kernel;	/* in the order declared */
	int n;
};

void spec_read(const char *path, struct spec *s);
void spec_free(struct spec *s);

#endif
