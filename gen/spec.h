/*
** spec.h: spec files, which declare many kernels in Lua.
*/
#ifndef SPEC_H
#define SPEC_H

#include "desc.h"

struct spec {
	struct desc *kernel;	/* in the order declared, each finished */
	int n;
	int cap;		/* allocated */
};

void spec_read(const char *path, struct spec *s);
void spec_free(struct spec *s);

#endif
