/*
** embedded.h: files built into the binary by gen/embed.sh.
*/
#ifndef EMBEDDED_H
#define EMBEDDED_H

#include <stddef.h>

struct embedded {
	const char *path;	/* as given to embed.sh: "templates/explain.txt.lt" */
	const char *data;	/* the bytes, NUL-terminated */
	size_t len;		/* bytes, not counting the NUL */
};

/* Ends with an entry whose path is NULL. */
extern const struct embedded embedded_files[];

#endif
