/*
** lower.c: lay the plan out as code items, the kernel's body in the
** order its C runs: the counters' declarations, then the loop nest. Each
** loop is preceded by the inputs read once and the values computed once
** before it, and by the pointers it moves; the innermost loop holds one
** element's statements: the inputs read into a local there, the values
** computed there, and the store. Where the plan streams, the innermost
** loop becomes a head up to a line boundary, whole lines computed into
** a buffer and stored around the cache, and a tail, under #if BC_STREAM,
** the plain loop under #else, and a fence after the nest. Where it
** converts f16 a line at a time, whole lines of floats converted at once,
** then the rest. A block's
** elements, and an unrolled kernel's, are written out, each with where
** it is. Nothing is decided here: plan.c has decided it all, and
** templates/c.lua spells each item.
*/
#include <stdlib.h>
#include <string.h>

#include "lower.h"

/* Where the statements of one element find the operands' elements. */
enum where_kind {
	WHERE_LOOP,		/* in the innermost loop, at its counter */
	WHERE_LANE,		/* in a line, at the counter plus the lane */
	WHERE_ELEMENT,		/* at an element of the block, or of the unrolled kernel */
	WHERE_FIRST		/* at the only element of a scalar result */
};

struct where {
	enum where_kind kind;
	uint64_t element;	/* WHERE_ELEMENT */
};

/* The lowering under way: the plan, and the pointer through which each operand is read here. */
struct lower {
	struct plan *p;
	int ptr[PLAN_MAX_INPUTS + 1];
};

/*
** Add to P's pointers the one LOOP moves through OPERAND, or with LOOP
** -1 its parameter; return its number.
*/
static int
add_pointer(struct plan *p, int operand, int loop)
{
	if (p->npointers % 16 == 0)
		p->pointer = xrealloc(p->pointer, (size_t)(p->npointers + 16) * sizeof *p->pointer);
	p->pointer[p->npointers].operand = operand;
	p->pointer[p->npointers].loop = loop;
	return p->npointers++;
}

/* Append an item of KIND, zeroed, to LIST; return it, valid until LIST grows. */
static struct code_item *
add(struct code_list *list, enum code_kind kind)
{
	struct code_item *it;

	if (list->n % 16 == 0)
		list->item = xrealloc(list->item, (size_t)(list->n + 16) * sizeof *list->item);
	it = &list->item[list->n++];
	memset(it, 0, sizeof *it);
	it->kind = kind;
	return it;
}

/* Return the operand whose pointer P reads input I through: the output, in place. */
static int
through(const struct plan *p, int i)
{
	return p->read[i].via_output ? p->nin : i;
}

/* Return the element of operand O where W is, from O's pointer here. */
static struct code_at
element_at(const struct lower *lw, const struct where *w, int o)
{
	const struct plan *p = lw->p;
	struct code_at at = {0};

	at.pointer = lw->ptr[o];
	if (w->kind == WHERE_ELEMENT || w->kind == WHERE_FIRST) {
		at.kind = AT_OFFSET;
		if (w->kind == WHERE_ELEMENT)
			at.offset = p->offset[w->element * (uint64_t)(p->nin + 1) + (uint64_t)o];
		return at;
	}
	at.kind = AT_INDEX;
	at.loop = p->nloops - 1;
	at.stride = p->loop[p->nloops - 1].stride[o];
	at.lane = w->kind == WHERE_LANE;
	return at;
}

/* Return where input I's value is where W is: in its line's floats, or its element. */
static struct code_at
input_at(const struct lower *lw, const struct where *w, int i)
{
	struct code_at at = {0};

	if (w->kind == WHERE_LANE && lw->p->f16_line && lw->p->read[i].staged) {
		at.kind = AT_STAGED;
		return at;
	}
	return element_at(lw, w, through(lw->p, i));
}

/*
** Return how each input is read where W is: from its local where the
** plan reads it into one, else from its element; an array of nin.
*/
static struct code_at *
reads_at(const struct lower *lw, const struct where *w)
{
	const struct plan *p = lw->p;
	struct code_at *reads = xmalloc((size_t)p->nin * sizeof *reads);

	for (int i = 0; i < p->nin; i++) {
		if (p->read[i].into_local) {
			memset(&reads[i], 0, sizeof reads[i]);
			reads[i].kind = AT_LOCAL;
		} else
			reads[i] = input_at(lw, w, i);
	}
	return reads;
}

/*
** Append to LIST what is read and computed once before loop LEVEL (for
** a scalar result, level 0, before its element): the inputs read into
** their locals from where their pointers point, and the values computed
** once, reading their inputs as in the innermost loop (or the element).
*/
static void
add_once(struct lower *lw, struct code_list *list, int level)
{
	const struct plan *p = lw->p;
	struct where w = {p->nloops > 0 ? WHERE_LOOP : WHERE_FIRST, 0};

	for (int i = 0; i < p->nin; i++)
		if (p->read[i].level == level && p->read[i].into_local) {
			struct code_item *it = add(list, CODE_LOCAL);

			it->operand = i;
			it->at.kind = AT_POINTER;
			it->at.pointer = lw->ptr[through(p, i)];
		}
	for (int t = 0; t < p->ntemps; t++)
		if (p->value[p->temps[t]].level == level) {
			struct code_item *it = add(list, CODE_TEMP);

			it->value = p->temps[t];
			it->reads = reads_at(lw, &w);
		}
}

/*
** Append to LIST one element's statements where W is: the inputs read
** into a local there, the values computed there, and the store into
** INTO, or, when NULL, the output's element.
*/
static void
add_element(struct lower *lw, struct code_list *list, const struct where *w,
            const struct code_at *into)
{
	const struct plan *p = lw->p;
	struct code_item *it;

	for (int i = 0; i < p->nin; i++)
		if (p->read[i].into_local && p->read[i].level == p->nloops) {
			it = add(list, CODE_LOCAL);
			it->operand = i;
			it->at = input_at(lw, w, i);
		}
	for (int t = 0; t < p->ntemps; t++)
		if (p->value[p->temps[t]].level == p->nloops) {
			it = add(list, CODE_TEMP);
			it->value = p->temps[t];
			it->reads = reads_at(lw, w);
		}
	it = add(list, CODE_STORE);
	it->value = p->nvalues - 1;
	it->at = into ? *into : element_at(lw, w, p->nin);
	it->reads = reads_at(lw, w);
}

/*
** Append to LIST the loop LOOP, its bounds set, over one element's
** statements (at its counter, or at the counter plus the lane when it
** is a line's loop), stored into INTO or, when NULL, the output.
*/
static void
add_elements_loop(struct lower *lw, struct code_list *list, struct code_item loop,
                  const struct code_at *into)
{
	struct where w = {loop.lane ? WHERE_LANE : WHERE_LOOP, 0};

	loop.kind = CODE_LOOP;
	loop.elements = 1;
	loop.loop = lw->p->nloops - 1;
	add_element(lw, &loop.body, &w, into);
	*add(list, CODE_LOOP) = loop;
}

/*
** Append to LIST the innermost loop: up to a multiple of the lanes, then
** its tail from where it is.
*/
static void
add_plain(struct lower *lw, struct code_list *list)
{
	const struct plan_loop *in = &lw->p->loop[lw->p->nloops - 1];
	struct code_item loop = {0};

	loop.to = in->extent - in->tail;
	add_elements_loop(lw, list, loop, NULL);
	if (in->tail > 0) {
		loop.from_here = 1;
		loop.to = in->extent;
		add_elements_loop(lw, list, loop, NULL);
	}
}

/*
** Append to LIST the innermost loop as the runtime's quantized line
** helper: the output and each input that moves from their pointers, an
** input that stays put as its value computed once.
*/
static void
add_quant_line(struct lower *lw, struct code_list *list)
{
	struct plan *p = lw->p;
	struct code_item *it = add(list, CODE_QUANT_LINE);

	it->loop = p->nloops - 1;
	it->to = p->loop[p->nloops - 1].extent;
	it->value = p->nvalues - 1;
	it->pointer = lw->ptr[p->nin];
	it->reads = xmalloc((size_t)p->nin * sizeof *it->reads);
	for (int i = 0; i < p->nin; i++) {
		memset(&it->reads[i], 0, sizeof it->reads[i]);
		it->reads[i].kind = p->loop[p->nloops - 1].stride[i] ? AT_POINTER : AT_ONCE;
		it->reads[i].pointer = lw->ptr[through(p, i)];
	}
}

/*
** Append to LIST the innermost loop with streaming stores: where the
** target streams, the elements up to a line boundary of the output, then
** whole lines computed into a line and stored around the cache, then the
** rest; elsewhere the plain loop.
*/
static void
add_streamed(struct lower *lw, struct code_list *list)
{
	const struct plan *p = lw->p;
	const struct plan_loop *in = &p->loop[p->nloops - 1];
	struct code_item head = {0}, lane = {0}, tail = {0}, *it;
	struct code_list stream = {0}, lines = {0}, plain = {0};
	struct code_at line = {AT_LINE, 0, 0, 0, 0, 0};

	head.to_head = 1;
	add_elements_loop(lw, &stream, head, NULL);
	lane.lane = 1;
	lane.to = (uint64_t)p->line;
	add_elements_loop(lw, &lines, lane, &line);
	it = add(&stream, CODE_LINES);
	it->loop = p->nloops - 1;
	it->to = in->extent;
	it->line = p->line;
	it->pointer = lw->ptr[p->nin];
	it->body = lines;
	tail.from_here = 1;
	tail.to = in->extent;
	add_elements_loop(lw, &stream, tail, NULL);
	add_plain(lw, &plain);

	it = add(list, CODE_IF);
	it->hosted = p->stream == STREAM_SIZED;
	it->orelse = plain;
	it = add(&it->body, CODE_STREAM);
	it->loop = p->nloops - 1;
	it->to = in->extent;
	it->pointer = lw->ptr[p->nin];
	it->body = stream;
}

/*
** Append to LIST the innermost loop converting its f16 data a line at a
** time: whole lines from 0, each input staged converted to floats, the
** elements computed from those, into a float line converted to the f16
** output at once (or stored into the output as they are); then the rest,
** if any, an element at a time.
*/
static void
add_f16_lines(struct lower *lw, struct code_list *list)
{
	const struct plan *p = lw->p;
	const struct plan_loop *in = &p->loop[p->nloops - 1];
	struct code_item lane = {0}, rest = {0}, *it;
	struct code_list lines = {0};
	struct code_at line = {AT_FLOAT_LINE, 0, 0, 0, 0, 0};
	struct where counter = {WHERE_LOOP, 0};

	for (int i = 0; i < p->nin; i++)
		if (p->read[i].staged) {
			it = add(&lines, CODE_WIDEN);
			it->operand = i;
			it->line = p->f16_line;
			it->quiet = p->read[i].quiet;
			it->at = element_at(lw, &counter, through(p, i));
		}
	lane.lane = 1;
	lane.to = (uint64_t)p->f16_line;
	add_elements_loop(lw, &lines, lane, p->f16_out_line ? &line : NULL);
	it = add(list, CODE_LINES);
	it->loop = p->nloops - 1;
	it->to = in->extent;
	it->line = p->f16_line;
	it->convert = 1;
	it->narrow = p->f16_out_line;
	it->quiet = p->f16_out_quiet;
	it->pointer = lw->ptr[p->nin];
	it->body = lines;
	if (in->extent % (uint64_t)p->f16_line != 0) {
		rest.from_here = 1;
		rest.to = in->extent;
		add_elements_loop(lw, list, rest, NULL);
	}
}

/*
** Append to LIST the elements written out, each with where it is: those
** of the block, from the pointers of the loops around it, or, unrolled,
** every element of the result B.
*/
static void
add_written_out(struct lower *lw, struct code_list *list, const struct bcast *b)
{
	const struct plan *p = lw->p;
	int inner = p->nloops - p->nblock, w = p->nin + 1;

	for (uint64_t e = 0; e < p->block_count; e++) {
		struct where here = {WHERE_ELEMENT, e};
		struct code_item *it = add(list, CODE_ELEMENT);

		add_element(lw, &it->body, &here, NULL);
		if (p->strategy == PLAN_UNROLL) {
			/* the output's offset in the result, as an index */
			uint64_t off = p->offset[e * (uint64_t)w + (uint64_t)p->nin];

			it->loop = -1;
			it->nwhere = b->rank;
			it->where = xmalloc((size_t)b->rank * sizeof *it->where);
			for (int d = b->rank - 1; d >= 0; d--) {
				it->where[d] = off % b->dim[d];
				off /= b->dim[d];
			}
		} else {
			uint64_t k = e;

			it->loop = inner;
			it->nwhere = p->nblock;
			it->where = xmalloc((size_t)p->nblock * sizeof *it->where);
			for (int l = p->nloops - 1; l >= inner; l--) {
				it->where[l - inner] = k % p->loop[l].extent;
				k /= p->loop[l].extent;
			}
		}
		/* a vector's elements stored before the next vector's */
		if (p->store_order && (e + 1) % (uint64_t)p->store_order == 0 && e + 1 < p->block_count)
			add(list, CODE_ORDER);
	}
}

/*
** Append to LIST loop L and what comes before it: what is read and
** computed once there, and the pointers it moves; inside, the next loop,
** or what is computed once around the block and the block; the
** innermost loop plain or streamed.
*/
static void
add_nest(struct lower *lw, struct code_list *list, int l, const struct bcast *b)
{
	struct plan *p = lw->p;
	struct code_item loop = {0};

	add_once(lw, list, l);
	if (l == p->nloops - 1) {
		if (p->f16_line)
			add_f16_lines(lw, list);
		else if (p->quant_line)
			add_quant_line(lw, list);
		else if (p->stream == STREAM_NONE)
			add_plain(lw, list);
		else
			add_streamed(lw, list);
		return;
	}
	loop.kind = CODE_LOOP;
	loop.loop = l;
	loop.to = p->loop[l].extent;
	loop.to_share = l == 0 && p->parallel == PARALLEL_YES;
	loop.steps = xmalloc((size_t)(p->nin + 1) * sizeof *loop.steps);
	for (int o = 0; o <= p->nin; o++)
		if (p->loop[l].move[o] == MOVE_POINTER) {
			struct code_item *it = add(list, CODE_POINTER);

			it->from = lw->ptr[o];
			it->pointer = add_pointer(p, o, l);
			lw->ptr[o] = it->pointer;
			loop.steps[loop.nsteps].pointer = it->pointer;
			loop.steps[loop.nsteps++].by = p->loop[l].stride[o];
		}
	if (l == p->nloops - p->nblock - 1) {
		add_once(lw, &loop.body, l + 1);
		add_written_out(lw, &loop.body, b);
	} else
		add_nest(lw, &loop.body, l + 1, b);
	*add(list, CODE_LOOP) = loop;
}

/*
** Append to LIST the declarations of the counters of P's loops spelled
** as loops (not the innermost, where a quantized line helper runs it):
** one for each type, in the order of the loops.
*/
static void
add_counters(const struct plan *p, struct code_list *list)
{
	int first = list->n;

	for (int l = 0; l < p->nloops - p->nblock - p->quant_line; l++) {
		int bits = 8 << p->loop[l].counter, k = first;
		struct code_item *it;

		while (k < list->n && list->item[k].bits != bits)
			k++;
		if (k == list->n) {
			it = add(list, CODE_COUNTERS);
			it->bits = bits;
			it->loops = xmalloc((size_t)p->nloops * sizeof *it->loops);
		}
		it = &list->item[k];
		it->loops[it->nloops++] = l;
	}
}

/*
** Lay out P's body as code items in P's code, from P's decisions, the
** result's shape from B: the counters, the quantized inputs' tables,
** then the loop nest. Assumes P is planned, its offsets and values
** computed once set.
*/
void
lower_code(struct plan *p, const struct bcast *b)
{
	struct lower lw = {p, {0}};
	struct code_list *code = &p->code;

	for (int o = 0; o <= p->nin; o++)
		lw.ptr[o] = add_pointer(p, o, -1);
	if (p->strategy == PLAN_EMPTY) {
		add(code, CODE_EMPTY);
		for (int o = 0; o <= p->nin; o++)
			if (o < p->nin || !p->inplace)
				add(code, CODE_UNUSED)->operand = o;
	} else if (p->strategy == PLAN_UNROLL) {
		add_written_out(&lw, code, b);
	} else if (p->nloops == 0) {
		struct where first = {WHERE_FIRST, 0};
		struct code_item *it;

		add_once(&lw, code, 0);
		it = add(code, CODE_STORE);
		it->value = p->nvalues - 1;
		it->at = element_at(&lw, &first, p->nin);
		it->reads = reads_at(&lw, &first);
	} else {
		add_counters(p, code);
		for (int i = 0; i < p->nin; i++)
			if (p->read[i].table) {
				struct code_item *it = add(code, CODE_QUANT_TABLE);

				it->operand = i;
				it->to = p->read[i].table_count;
				it->value = p->read[i].table_step;
			}
		add_nest(&lw, code, 0, b);
		if (p->stream != STREAM_NONE) {
			struct code_item *it = add(code, CODE_IF);

			it->hosted = p->stream == STREAM_SIZED;
			add(&it->body, CODE_FENCE);
		}
	}
}

/* Free the items of LIST and what they hold. */
void
lower_free(struct code_list *list)
{
	for (int k = 0; k < list->n; k++) {
		struct code_item *it = &list->item[k];

		free(it->reads);
		free(it->loops);
		free(it->steps);
		free(it->where);
		lower_free(&it->body);
		lower_free(&it->orelse);
	}
	free(list->item);
	memset(list, 0, sizeof *list);
}
