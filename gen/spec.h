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
	struct strbuf src;	/* the spec's text */
};

void spec_read(const char *path, struct spec *s);
int spec_field_line(const struct spec *s, const struct desc *d, const char *field);
void spec_free(struct spec *s);

#endif
