/*
** output.h: write generated files atomically, all or none.
*/
#ifndef OUTPUT_H
#define OUTPUT_H

#include "util.h"

#define OUTPUT_MAX 4	/* files one run writes */

struct output {
	int n;
	char *path[OUTPUT_MAX];		/* where each file goes */
	char *tmp[OUTPUT_MAX];		/* its temporary, or NULL if unchanged */
};

int output_add(struct output *o, const char *path, const struct strbuf *text);
int output_commit(struct output *o);
void output_abort(struct output *o);
void output_depfile(struct strbuf *sb, const char *const *targets, int n,
                    const char *const *prerequisites, int npre);

#endif
