/*
** shape.h: operands as written on the command line, "NAME=SHAPE".
*/
#ifndef SHAPE_H
#define SHAPE_H

#include <stdint.h>

#include "util.h"

#define SHAPE_MAX_RANK 64		/* NumPy 2's limit */
#define SHAPE_MAX_COUNT INT64_MAX	/* elements in one shape (NumPy's intp) */
#define OPERAND_NAME_MAX 63		/* characters in an operand name */

struct shape {
	int rank;			/* number of dimensions, 0 for a scalar */
	uint64_t dim[SHAPE_MAX_RANK];	/* sizes, outermost first */
};

struct operand {
	char name[OPERAND_NAME_MAX + 1];	/* a C identifier */
	char dtype[8];			/* "i16" from x:i16=3,4, or "" */
	struct shape shape;
};

int shape_parse(const char *text, struct shape *s, const char *opname, enum lang lang,
                struct strbuf *err);
int operand_parse(const char *arg, struct operand *op, enum lang lang,
                  struct strbuf *err);
uint64_t shape_count(const struct shape *s);
int shape_equal(const struct shape *a, const struct shape *b);
void shape_format(struct strbuf *sb, const struct shape *s);
void shape_format_sizes(struct strbuf *sb, const struct shape *s);
int shape_count_fits(const uint64_t *dim, int rank);

#endif
