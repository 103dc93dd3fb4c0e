/*
** output.h: write generated files all or none (see output.c).
*/
#ifndef OUTPUT_H
#define OUTPUT_H

#include "util.h"

#define OUTPUT_MAX 4	/* files one run writes */
#define OUTPUT_MAX_BYTES (64u << 20)	/* bytes of generated C in one run */

/* One file of the run. */
struct output_file {
	char *path;		/* as the user named it */
	char *target;		/* the file written: PATH, symlinks followed, absolute */
	char *tmp;		/* its staged temporary, or NULL */
	char *backup;		/* a hard link to the old file while committing */
	struct strbuf text;	/* what a special file is given at commit */
	int special;		/* a device or FIFO: written in place */
	int existed;		/* TARGET is a file the rename replaces */
	int renamed;		/* its temporary is in place */
};

struct output {
	int n;
	struct output_file file[OUTPUT_MAX];
	char *journal;		/* the commit's journal while it is written */
};

/* A file a run reads or writes, and what it is to the user ("the spec"). */
struct output_name {
	const char *path;
	const char *role;
};

int output_check(const struct output_name *out, int nout, const struct output_name *in,
                 int nin);
int output_add(struct output *o, const char *path, const struct strbuf *text);
int output_commit(struct output *o);
void output_abort(struct output *o);
int output_depfile(struct strbuf *sb, const char *const *targets, int n,
                   const char *const *prerequisites, int npre);

#endif
