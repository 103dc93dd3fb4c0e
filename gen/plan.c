/*
** plan.c: turn a broadcast into a walk over the result.
**
** Dimensions of size 1 in the result are dropped. Two neighbouring
** dimensions d, d+1 merge into one loop when every operand (and the
** output) has stride[d] == stride[d+1] * size[d+1]: both contiguous, or
** both stretched. [8,64,56,56] + [64,1,1] becomes three loops (8, 64,
** 3136); same shapes become one loop. An operand whose strides are 0 in
** every loop from some loop L inwards is read once per iteration of the
** loop outside L ("hoisted"): hoist[i] = L.
*/
#include <stdlib.h>

#include "plan.h"

const char *
plan_strategy_name(enum plan_strategy s)
{
	static const char *const names[] = {"auto", "unroll", "loops", "empty"};

	return names[s];
}

/*
** Fill P's loops from B: one per result dimension of size above 1, with
** the strides of the NIN inputs and of the contiguous output, merging
** neighbours whose strides allow it.
*/
static void
build_loops(struct plan *p, const struct bcast *b)
{
	int64_t out_stride = 1;

	p->nloops = 0;
	for (int d = b->rank - 1; d >= 0; d--) {
		int64_t *s;
		int merge = p->nloops > 0;

		if (b->dim[d] == 1)
			continue;
		if (merge) {
			int in = 0;	/* the loop just inside, stored first */
			int64_t *si = p->stride[in];

			for (int i = 0; i < p->nin && merge; i++)
				merge = b->op[i].stride[d] == si[i] * (int64_t)p->extent[in];
			merge = merge && out_stride == si[p->nin] * (int64_t)p->extent[in];
		}
		if (merge) {
			p->extent[0] *= b->dim[d];
		} else {
			/* shift the loops found so far inwards; new outermost at 0 */
			for (int l = p->nloops; l > 0; l--) {
				p->extent[l] = p->extent[l - 1];
				for (int i = 0; i <= p->nin; i++)
					p->stride[l][i] = p->stride[l - 1][i];
			}
			p->nloops++;
			p->extent[0] = b->dim[d];
			s = p->stride[0];
			for (int i = 0; i < p->nin; i++)
				s[i] = b->op[i].stride[d];
			s[p->nin] = out_stride;
		}
		out_stride *= (int64_t)b->dim[d];
	}
}

/* Set P's hoist levels: the loop from which each input stops varying. */
static void
set_hoist(struct plan *p)
{
	for (int i = 0; i < p->nin; i++) {
		int l = p->nloops;

		while (l > 0 && p->stride[l - 1][i] == 0)
			l--;
		p->hoist[i] = l;
	}
}

/* Fill P's offsets: each input's element offset for each result element. */
static void
set_offsets(struct plan *p)
{
	uint64_t idx[SHAPE_MAX_RANK] = {0};
	int64_t off[BCAST_MAX_OPERANDS] = {0};

	p->offset = xmalloc((size_t)p->count * (size_t)(p->nin ? p->nin : 1) * sizeof *p->offset);
	for (uint64_t k = 0; k < p->count; k++) {
		int l;

		for (int i = 0; i < p->nin; i++)
			p->offset[k * (uint64_t)p->nin + (uint64_t)i] = (uint64_t)off[i];
		/* step the odometer: innermost loop first, carrying outwards */
		for (l = p->nloops - 1; l >= 0; l--) {
			for (int i = 0; i < p->nin; i++)
				off[i] += p->stride[l][i];
			if (++idx[l] < p->extent[l])
				break;
			for (int i = 0; i < p->nin; i++)
				off[i] -= p->stride[l][i] * (int64_t)p->extent[l];
			idx[l] = 0;
		}
	}
}

/*
** Build the plan for B, whose first NIN operands are the kernel's inputs,
** with strategy WANT. UNROLL_LIMIT bounds the elements written out one by
** one (auto unrolls up to it; unroll fails beyond it), and so does
** PLAN_UNROLL_NODES for an element expression of NODES nodes. On error
** append a message to ERR and return -1. Assumes B resolved without error.
*/
int
plan_build(struct plan *p, const struct bcast *b, int nin, enum plan_strategy want,
           uint64_t unroll_limit, int nodes, struct strbuf *err)
{
	struct shape s;

	p->nin = nin;
	p->offset = NULL;
	bcast_result_shape(b, &s);
	p->count = shape_count(&s);
	build_loops(p, b);
	set_hoist(p);
	if (unroll_limit > PLAN_UNROLL_CEILING) {
		sb_printf(err, "unroll limit %llu is above the ceiling %d",
		          (unsigned long long)unroll_limit, PLAN_UNROLL_CEILING);
		return -1;
	}
	if (unroll_limit * (uint64_t)nodes > PLAN_UNROLL_NODES) {
		unroll_limit = PLAN_UNROLL_NODES / (uint64_t)nodes;
		if (want == PLAN_UNROLL && p->count > unroll_limit) {
			sb_printf(err, "cannot unroll %llu elements of an expression of %d "
			          "nodes: at most %d nodes are unrolled in all (use --strategy "
			          "loops)", (unsigned long long)p->count, nodes, PLAN_UNROLL_NODES);
			return -1;
		}
	}
	if (p->count == 0) {
		p->strategy = PLAN_EMPTY;
	} else if (want == PLAN_UNROLL && p->count > unroll_limit) {
		sb_printf(err, "cannot unroll %llu elements: the limit is %llu "
		          "(set it with --unroll-limit, at most %d, or use --strategy loops)",
		          (unsigned long long)p->count, (unsigned long long)unroll_limit,
		          PLAN_UNROLL_CEILING);
		return -1;
	} else if (want == PLAN_UNROLL || (want == PLAN_AUTO && p->count <= unroll_limit)) {
		p->strategy = PLAN_UNROLL;
		set_offsets(p);
	} else {
		p->strategy = PLAN_LOOPS;
	}
	return 0;
}

void
plan_free(struct plan *p)
{
	free(p->offset);
	p->offset = NULL;
}
