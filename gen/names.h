/*
** names.h: what the names a user chooses may be in the emitted C, and
** the check of every name one output file holds against the others.
*/
#ifndef NAMES_H
#define NAMES_H

#include "kernel.h"

#define NAME_PORTABLE_MAX 31	/* external names C99 keeps apart (5.2.4.1): warn past it */
#define KERNEL_NAME_MAX 255	/* a kernel's name: far above any real use */

/* A name the output file holds. */
struct name {
	char *text;
	char *what;		/* what it names: "the local that holds x's value" */
	int kernel;		/* the kernel it belongs to, or -1: the file's */
	int chosen;		/* chosen by the user; else declared by the templates */
	int file_scope;		/* seen by the whole file; else by its kernel only */
};

struct names {
	struct name *name;
	int n, cap;
};

int names_check_length(const char *name, struct strbuf *err);
int names_check_chosen(const struct kernel *k, int from_output, struct strbuf *err);
void names_add(struct names *ns, const char *text, const char *what, int kernel,
               int chosen, int file_scope);
int names_check_clashes(struct names *ns, struct strbuf *err);
void names_free(struct names *ns);

#endif
