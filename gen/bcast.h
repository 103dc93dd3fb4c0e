/*
** bcast.h: resolve broadcasting by the NumPy rule or Paddle's axis.
*/
#ifndef BCAST_H
#define BCAST_H

#include "shape.h"

#define BCAST_NUMPY_AXIS -1	/* --axis -1 and the default: the NumPy rule */

/* How one operand's size in one dimension relates to the result's. */
enum bcast_rule {
	BC_EQUAL,		/* the size is the result's size */
	BC_STRETCH,		/* the size is 1 and is stretched to the result's */
	BC_MISSING,		/* no such dimension: treated as 1 */
	BC_MISMATCH		/* neither equal nor 1: the error */
};

/* How the shapes were aligned. */
enum bcast_mode {
	BC_NUMPY,		/* right-aligned (no --axis, or --axis -1) */
	BC_AXIS_IDENTICAL,	/* --axis with identical shapes: axis ignored */
	BC_AXIS_EQUAL_RANK,	/* --axis 0 with equal ranks: the NumPy rule */
	BC_AXIS_PLACED		/* the lower-rank operand placed at the axis */
};

enum bcast_error {
	BC_OK,
	BC_ERR_MISMATCH,	/* sizes in dimension err_dim do not broadcast */
	BC_ERR_AXIS,		/* axis not -1, axis_lo..axis_hi or neg_lo..neg_hi */
	BC_ERR_OPERANDS,	/* --axis needs exactly two operands */
	BC_ERR_TOO_BIG		/* the result has more than SHAPE_MAX_COUNT elements */
};

/* One operand within the result; its arrays have the result's rank. */
struct bcast_operand {
	int pad;			/* 1s put before the operand's own dims */
	int trimmed;			/* trailing 1s dropped (axis mode) */
	uint64_t *dim;			/* aligned sizes */
	int64_t *stride;		/* element strides; 0 = stretched */
	enum bcast_rule *rule;		/* valid for dims checked */
};

struct bcast {
	const struct operand *ops;	/* the operands, as given */
	struct operand *to;		/* bcast_resolve_to: the operands and the shape,
					   owned */
	int nops;			/* how many */
	enum bcast_mode mode;
	int axis_mode;			/* --axis was given */
	int axis;			/* as given, or BCAST_NUMPY_AXIS */
	int placed_at;			/* the axis once a negative one is mapped (below) */
	int mapped;			/* axis < -1: placed_at = |rank x - rank y| + axis + 1 */
	int small;			/* BC_AXIS_PLACED: index of the lower-rank operand */
	int rank;			/* result rank */
	uint64_t dim[SHAPE_MAX_RANK];	/* result sizes */
	struct bcast_operand *op;	/* nops of them, allocated: any number */
	enum bcast_error err;
	int err_dim;		/* BC_ERR_MISMATCH: the dimension */
	int err_a, err_b;	/* BC_ERR_MISMATCH: the two operands in conflict */
	int axis_lo, axis_hi;	/* axis mode, ranks differ: the valid axes from 0 */
	int neg_lo, neg_hi;	/* and below -1 (none if neg_lo > neg_hi) */
	int max_rank;		/* axis mode: Paddle takes -max_rank to max_rank - 1 */
	int axis_ok[SHAPE_MAX_RANK + 2];	/* axis mode mismatch: axes that work */
	int naxis_ok;
	int order[SHAPE_MAX_RANK];	/* the dimensions in the order compared */
	int ncompared;		/* how many were compared, a mismatch included */
	int start;		/* axis mode: the dimension the comparison starts at */
};

void bcast_resolve(struct bcast *b, const struct operand *ops, int nops,
                   int axis_mode, int axis);
void bcast_resolve_to(struct bcast *b, const struct operand *ops, int nops,
                      const struct operand *to);
void bcast_free(struct bcast *b);
void bcast_result_shape(const struct bcast *b, struct shape *s);
void bcast_format_error(struct strbuf *sb, const struct bcast *b, enum lang lang);
const char *bcast_rule_name(enum bcast_rule r);
const char *bcast_mode_name(enum bcast_mode m);

#endif
