/*
 * bc_ref.h: a generic reference kernel for shapes known only at run time.
 *
 * It walks the result of a broadcast in C order and keeps, for each
 * operand, the element offset of the element that goes with the current
 * result element.  Operands are described by their element strides per
 * result dimension (0 where the operand is stretched, as NumPy's
 * np.broadcast_to(x, shape).strides / itemsize).  The walk is an
 * odometer: the innermost counter goes up by one and every offset by that
 * dimension's stride; on a carry the counter goes back to 0, each offset
 * loses extent * stride, and the next outer counter goes up.  No division
 * or modulo per element, no allocation: the caller gives the counters.
 *
 * It is a reference to test the generated kernels against, not a fast
 * kernel.  Freestanding C99 like bc.h.
 */
#ifndef BC_REF_H
#define BC_REF_H

#include "bc.h"

/* One operand: its data and its element strides, one per result dim. */
struct bc_ref_operand {
	const void *data;
	const ptrdiff_t *strides;
};

/*
 * Start a walk: set the rank counters idx[] and the nops offsets off[] to
 * 0.  Returns the number of result elements (the product of dims; 1 for
 * rank 0, 0 if any dim is 0: then there is nothing to visit).
 */
static inline size_t bc_ref_index_init(int rank, const size_t *dims,
	size_t *idx, int nops, ptrdiff_t *off)
{
	size_t n = 1;
	int d, k;

	for (d = 0; d < rank; d++) {
		idx[d] = 0;
		n *= dims[d];
	}
	for (k = 0; k < nops; k++)
		off[k] = 0;
	return n;
}

/*
 * Move to the next result element in C order: update idx[] and, for each
 * operand k, off[k] = sum over d of idx[d] * ops[k].strides[d].  Returns 0
 * after the last element (idx[] and off[] are then back to 0), else 1.
 */
static inline int bc_ref_index_step(int rank, const size_t *dims,
	size_t *idx, int nops, const struct bc_ref_operand *ops,
	ptrdiff_t *off)
{
	int d, k;

	for (d = rank - 1; d >= 0; d--) {
		idx[d]++;
		if (idx[d] < dims[d]) {
			for (k = 0; k < nops; k++)
				off[k] += ops[k].strides[d];
			return 1;
		}
		/* carry: back to the start of this dimension */
		idx[d] = 0;
		for (k = 0; k < nops; k++)
			off[k] -= (ptrdiff_t)(dims[d] - 1) * ops[k].strides[d];
	}
	return 0;
}

/*
 * Call fn(ctx, off) once per result element, in C order, with off[k] the
 * element offset into operand k (ops[k].data is for fn to use, e.g. with
 * ctx pointing at ops).  idx (rank entries) and off (nops entries) are
 * scratch space from the caller.
 */
static inline void bc_ref_walk(int rank, const size_t *dims, int nops,
	const struct bc_ref_operand *ops, size_t *idx, ptrdiff_t *off,
	void (*fn)(void *ctx, const ptrdiff_t *off), void *ctx)
{
	if (bc_ref_index_init(rank, dims, idx, nops, off) == 0)
		return;
	do
		fn(ctx, off);
	while (bc_ref_index_step(rank, dims, idx, nops, ops, off));
}

#endif /* BC_REF_H */
