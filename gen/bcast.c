/*
** bcast.c: resolve the broadcasting of operand shapes.
**
** The NumPy rule, from NumPy's documentation:
**
**   "When operating on two arrays, NumPy compares their shapes
**   element-wise. It starts with the trailing (i.e. rightmost) dimension
**   and works its way left. Two dimensions are compatible when
**     1. they are equal, or
**     2. one of them is 1."
**
** A missing dimension counts as 1, and the result takes the larger size
** (a 0 paired with a 1 gives 0). Paddle's elementwise axis instead puts
** the lower-rank operand, its trailing 1s dropped, at dimension AXIS of
** the other and pads it with 1s on both sides; the comparison that
** follows is the same. Both are described in DESIGN.md.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bcast.h"

/* Align every operand at its last dimension, prepending 1s. */
static void
align_right(struct bcast *b)
{
	b->rank = 0;
	for (int i = 0; i < b->nops; i++)
		if (b->ops[i].shape.rank > b->rank)
			b->rank = b->ops[i].shape.rank;
	for (int i = 0; i < b->nops; i++) {
		const struct shape *s = &b->ops[i].shape;
		struct bcast_operand *o = &b->op[i];

		o->pad = b->rank - s->rank;
		o->trimmed = 0;
		for (int d = 0; d < b->rank; d++)
			o->dim[d] = d < o->pad ? 1 : s->dim[d - o->pad];
	}
}

/* Return the rank of S once its trailing 1s are dropped. */
static int
trimmed_rank(const struct shape *s)
{
	int r = s->rank;

	while (r > 0 && s->dim[r - 1] == 1)
		r--;
	return r;
}

/*
** Fill DIM[0..RANK) with operand SMALL's sizes placed at AXIS of a shape
** of rank RANK: 1s before, its sizes without trailing 1s, 1s after.
** Assumes 0 <= AXIS <= RANK - trimmed_rank(SMALL).
*/
static void
place_at_axis(uint64_t *dim, int rank, const struct shape *small, int axis)
{
	int n = trimmed_rank(small);

	for (int d = 0; d < rank; d++)
		dim[d] = d >= axis && d < axis + n ? small->dim[d - axis] : 1;
}

/* Return 1 if sizes A and B broadcast in every one of RANK dims. */
static int
dims_broadcast(const uint64_t *a, const uint64_t *b, int rank)
{
	for (int d = 0; d < rank; d++)
		if (a[d] != b[d] && a[d] != 1 && b[d] != 1)
			return 0;
	return 1;
}

/* Return 1 if operand I has a size of its own in dimension D. */
static int
has_dim(const struct bcast *b, int i, int d)
{
	const struct bcast_operand *o = &b->op[i];
	int own = b->ops[i].shape.rank - o->trimmed;

	return d >= o->pad && d < o->pad + own;
}

/* Set each operand's rule in dimension D against result size R. */
static void
set_rules(struct bcast *b, int d, uint64_t r)
{
	for (int i = 0; i < b->nops; i++) {
		struct bcast_operand *o = &b->op[i];

		if (!has_dim(b, i, d))
			o->rule[d] = BC_MISSING;
		else if (o->dim[d] == r)
			o->rule[d] = BC_EQUAL;
		else if (o->dim[d] == 1)
			o->rule[d] = BC_STRETCH;
		else
			o->rule[d] = BC_MISMATCH;
	}
}

/*
** Set B's comparison order: the NumPy rule compares from the last
** dimension to the first. With an axis, seed 000 says, the comparison
** starts at the axis and goes forward, as Paddle's does: at the axis the
** lower-rank operand was placed at (rank x - rank y for axis -1), to
** the last dimension, then the dimensions before it, where that operand
** has none.
*/
static void
set_order(struct bcast *b)
{
	int start = 0, n = 0;

	if (!b->axis_mode) {
		for (int d = b->rank - 1; d >= 0; d--)
			b->order[n++] = d;
		return;
	}
	if (b->mode == BC_AXIS_PLACED)
		start = b->placed_at;
	else if (b->mode == BC_NUMPY)
		start = abs(b->ops[0].shape.rank - b->ops[1].shape.rank);
	b->start = start;
	for (int d = start; d < b->rank; d++)
		b->order[n++] = d;
	for (int d = 0; d < start; d++)
		b->order[n++] = d;
}

/*
** Compare the aligned sizes in B's order and fill the result shape and
** the rules. Stop at the first dimension that does not broadcast and
** record it as the error; B->ncompared counts the dimensions compared,
** that one included.
*/
static void
compare_sizes(struct bcast *b)
{
	set_order(b);
	for (b->ncompared = 0; b->ncompared < b->rank; ) {
		int d = b->order[b->ncompared++];
		uint64_t r = 1;
		int who = -1;

		for (int i = 0; i < b->nops; i++) {
			uint64_t s = b->op[i].dim[d];

			if (s == 1 || s == r)
				continue;
			if (who < 0) {
				r = s;
				who = i;
				continue;
			}
			b->err = BC_ERR_MISMATCH;
			b->err_dim = d;
			b->err_a = who;
			b->err_b = i;
			set_rules(b, d, r);
			return;
		}
		b->dim[d] = r;
		set_rules(b, d, r);
	}
}

/*
** Set the element strides of each operand within the result: the
** distance between neighbours along each dimension, 0 where stretched.
*/
static void
set_strides(struct bcast *b)
{
	for (int i = 0; i < b->nops; i++) {
		struct bcast_operand *o = &b->op[i];
		uint64_t acc = 1;

		for (int d = b->rank - 1; d >= 0; d--) {
			o->stride[d] = o->dim[d] == 1 && b->dim[d] != 1 ? 0 : (int64_t)acc;
			acc *= o->dim[d];
		}
	}
}

/*
** Resolve the axis mode for B's two operands as Paddle's shape inference
** does: identical shapes ignore the axis; equal ranks take -1 or 0;
** otherwise the axis must be from -R to R - 1 (R the larger rank), an
** axis k below -1 counts as |rank x - rank y| + k + 1, and the
** lower-rank operand, its trailing 1s dropped, must fit where it is
** placed. Sets the alignment, or BC_ERR_AXIS with the valid ranges.
*/
static void
align_axis(struct bcast *b, int axis)
{
	const struct shape *x = &b->ops[0].shape, *y = &b->ops[1].shape;
	int big, small, diff, kept;

	b->max_rank = x->rank > y->rank ? x->rank : y->rank;
	b->placed_at = axis;
	if (shape_equal(x, y) || axis == BCAST_NUMPY_AXIS) {
		b->mode = shape_equal(x, y) ? BC_AXIS_IDENTICAL : BC_NUMPY;
		align_right(b);
		return;
	}
	if (x->rank == y->rank) {
		if (axis != 0) {
			b->err = BC_ERR_AXIS;
			b->axis_lo = b->axis_hi = 0;
			b->neg_lo = 0, b->neg_hi = -1;
			return;
		}
		b->mode = BC_AXIS_EQUAL_RANK;
		align_right(b);
		return;
	}
	big = x->rank > y->rank ? 0 : 1;
	small = 1 - big;
	b->small = small;
	kept = trimmed_rank(&b->ops[small].shape);
	b->op[small].trimmed = b->ops[small].shape.rank - kept;
	diff = b->max_rank - b->ops[small].shape.rank;
	b->axis_lo = 0;
	b->axis_hi = b->max_rank - kept < b->max_rank - 1 ? b->max_rank - kept : b->max_rank - 1;
	b->neg_lo = -diff - 1 > -b->max_rank ? -diff - 1 : -b->max_rank;
	b->neg_hi = b->axis_hi - diff - 1 < -2 ? b->axis_hi - diff - 1 : -2;
	if (axis < -1 && axis >= -b->max_rank) {
		b->mapped = 1;
		b->placed_at = diff + axis + 1;
	}
	if (axis < -b->max_rank || b->placed_at < 0 || b->placed_at > b->axis_hi) {
		b->err = BC_ERR_AXIS;
		return;
	}
	b->mode = BC_AXIS_PLACED;
	b->rank = b->max_rank;
	b->op[big].pad = 0;
	memcpy(b->op[big].dim, b->ops[big].shape.dim, (size_t)b->rank * sizeof(uint64_t));
	b->op[small].pad = b->placed_at;
	place_at_axis(b->op[small].dim, b->rank, &b->ops[small].shape, b->placed_at);
}

/*
** After a mismatch in axis mode, list the axis values that would have
** worked, -1 (the NumPy rule) last.
*/
static void
find_working_axes(struct bcast *b)
{
	const struct shape *big = &b->ops[1 - b->small].shape;
	const struct shape *small = &b->ops[b->small].shape;
	uint64_t dim[SHAPE_MAX_RANK];

	b->naxis_ok = 0;
	for (int a = b->axis_lo; a <= b->axis_hi; a++) {
		place_at_axis(dim, big->rank, small, a);
		if (dims_broadcast(dim, big->dim, big->rank))
			b->axis_ok[b->naxis_ok++] = a;
	}
	for (int d = 0; d < big->rank; d++)
		dim[d] = d < big->rank - small->rank ? 1 : small->dim[d - (big->rank - small->rank)];
	if (dims_broadcast(dim, big->dim, big->rank))
		b->axis_ok[b->naxis_ok++] = BCAST_NUMPY_AXIS;
}

/*
** Allocate B's NOPS operands, each with room for RANK dimensions: one
** block per array, shared by all, zeroed.
*/
static void
alloc_operands(struct bcast *b, int nops, int rank)
{
	size_t n = (size_t)nops * (size_t)rank;
	uint64_t *dim;
	int64_t *stride;
	enum bcast_rule *rule;

	if (nops <= 0)
		return;
	dim = xmalloc(n * sizeof *dim);
	stride = xmalloc(n * sizeof *stride);
	rule = xmalloc(n * sizeof *rule);
	memset(dim, 0, n * sizeof *dim);
	memset(stride, 0, n * sizeof *stride);
	memset(rule, 0, n * sizeof *rule);
	b->op = xmalloc((size_t)nops * sizeof *b->op);
	memset(b->op, 0, (size_t)nops * sizeof *b->op);
	for (int i = 0; i < nops; i++) {
		b->op[i].dim = dim + (size_t)i * (size_t)rank;
		b->op[i].stride = stride + (size_t)i * (size_t)rank;
		b->op[i].rule = rule + (size_t)i * (size_t)rank;
	}
}

/*
** Resolve the broadcasting of OPS[0..NOPS) into B: by the NumPy rule, or
** with AXIS_MODE set, by Paddle's elementwise AXIS for exactly two
** operands. On failure B->err says why and the fields it names are set;
** the rules are set for every dimension compared before the failure.
** Assumes NOPS >= 1 (any number) and OPS outlives B; B holds memory
** until bcast_free, which must come before B is resolved again.
*/
void
bcast_resolve(struct bcast *b, const struct operand *ops, int nops,
              int axis_mode, int axis)
{
	int rank = 0;

	memset(b, 0, sizeof *b);
	b->ops = ops;
	b->nops = nops;
	for (int i = 0; i < nops; i++)	/* the result's rank, by either rule */
		rank = ops[i].shape.rank > rank ? ops[i].shape.rank : rank;
	alloc_operands(b, nops, rank);
	b->axis_mode = axis_mode;
	b->axis = axis_mode ? axis : BCAST_NUMPY_AXIS;
	b->mode = BC_NUMPY;
	if (!axis_mode) {
		align_right(b);
	} else if (nops != 2) {
		b->err = BC_ERR_OPERANDS;
		return;
	} else {
		align_axis(b, axis);
		if (b->err)
			return;
	}
	compare_sizes(b);
	if (b->err) {
		if (b->mode == BC_AXIS_PLACED)
			find_working_axes(b);
		return;
	}
	if (!shape_count_fits(b->dim, b->rank)) {
		b->err = BC_ERR_TOO_BIG;
		return;
	}
	set_strides(b);
}

/*
** Resolve the broadcasting of OPS[0..NOPS) to the shape of TO, as
** NumPy's broadcast_to: TO takes part as one more operand, after them,
** and once resolved is not one of B's operands. On failure B keeps it,
** so that the error names it. Assumes what bcast_resolve does.
*/
void
bcast_resolve_to(struct bcast *b, const struct operand *ops, int nops,
                 const struct operand *to)
{
	struct operand *all = xmalloc((size_t)(nops + 1) * sizeof *all);

	memcpy(all, ops, (size_t)nops * sizeof *all);
	all[nops] = *to;
	bcast_resolve(b, all, nops + 1, 0, 0);
	b->to = all;
	if (!b->err)
		b->nops = nops;
}

/* Free what bcast_resolve or bcast_resolve_to allocated in B. */
void
bcast_free(struct bcast *b)
{
	if (b->op && b->nops > 0) {
		free(b->op[0].dim);
		free(b->op[0].stride);
		free(b->op[0].rule);
	}
	free(b->op);
	b->op = NULL;
	free(b->to);
	b->to = NULL;
}

/* Copy B's result shape into S. Assumes B resolved without error. */
void
bcast_result_shape(const struct bcast *b, struct shape *s)
{
	s->rank = b->rank;
	memcpy(s->dim, b->dim, (size_t)b->rank * sizeof(uint64_t));
}

const char *
bcast_rule_name(enum bcast_rule r)
{
	static const char *const names[] = {"equal", "stretch", "missing", "mismatch"};

	return names[r];
}

const char *
bcast_mode_name(enum bcast_mode m)
{
	static const char *const names[] = {"numpy", "identical", "equal_rank", "placed"};

	return names[m];
}

/* Append "x(2,1,4) y(3,2)": every operand with its shape. */
static void
format_operands(struct strbuf *sb, const struct bcast *b, const char *sep)
{
	for (int i = 0; i < b->nops; i++) {
		sb_printf(sb, "%s%s", i ? sep : "", b->ops[i].name);
		shape_format(sb, &b->ops[i].shape);
	}
}

/*
** Append the aligned shapes as a table, one row per operand, the names
** right-aligned and the sizes in columns; a dimension an operand does not
** have is left blank.
*/
static void
format_table(struct strbuf *sb, const struct bcast *b)
{
	int namew = 0, colw = 1;

	for (int i = 0; i < b->nops; i++) {
		int n = (int)strlen(b->ops[i].name);

		namew = n > namew ? n : namew;
		for (int d = 0; d < b->ops[i].shape.rank; d++) {
			struct strbuf num = {0};

			sb_printf(&num, "%llu", (unsigned long long)b->ops[i].shape.dim[d]);
			colw = (int)num.len > colw ? (int)num.len : colw;
			sb_free(&num);
		}
	}
	for (int i = 0; i < b->nops; i++) {
		sb_printf(sb, "\n  %*s:", namew + 2, b->ops[i].name);
		for (int d = 0; d < b->rank; d++) {
			if (has_dim(b, i, d))
				sb_printf(sb, " %*llu", colw, (unsigned long long)b->op[i].dim[d]);
			else
				sb_printf(sb, " %*s", colw, "");
		}
		while (sb->len > 0 && sb->s[sb->len - 1] == ' ')
			sb->s[--sb->len] = '\0';
	}
}

/*
** The words of the messages about broadcasting, in each language, as
** printf formats; each takes its arguments in the same order in every
** language.
*/
static const struct bcast_words {
	const char *operands;		/* --axis with other than two operands: N */
	const char *and;		/* between two operands */
	const char *axis_out;		/* axis K out of range: K, then the operands */
	const char *axis_for;		/* after the operands */
	const char *same_rank;		/* equal ranks: -1 or 0 */
	const char *paddle_range;	/* -R, R - 1, R */
	const char *mapped;		/* K, the axis it maps to, the rule */
	const char *mapped_at;		/* the same, where the axis was placed */
	const char *rule;		/* rank x, rank y */
	const char *must_shapes;	/* after paddle_range or mapped */
	const char *must;
	const char *minus_one, *minus_one_or, *range, *or_one, *or_range;
	const char *trimmed;		/* name, its rank once trimmed */
	const char *too_big;		/* before the operands */
	const char *too_big_limit;	/* the limit */
	const char *mismatch;		/* before the operands */
	const char *placed;		/* small, axis, big */
	const char *placed_trimmed;	/* how many 1s */
	const char *colon;
	const char *dim;		/* dim, a, size, b, size */
	const char *no_axis;
	const char *axes_first, *axes_next;
} bcast_words[NLANGS] = {
	{
		"Paddle's axis needs exactly two operands (x and y), got %d",
		" and ",
		"axis %d is out of range for ",
		"",
		", which have the same rank: it must be -1 or 0",
		": Paddle's axes go from %d to %d (the larger rank is %d), and",
		" (axis %d is axis %d here: %s), and",
		" (axis %d is axis %d here: %s)",
		"an axis k below -1 means |%d - %d| + k + 1",
		" for these shapes it must be ",
		": it must be ",
		"-1, ", "-1, or ", "%d to %d", ", or %d", ", or %d to %d",
		" (%s counts as rank %d once its trailing 1s are dropped)",
		"the result of broadcasting ",
		" has more elements than the limit %lld",
		"operands could not be broadcast together with shapes ",
		"\n  %s was placed at axis %d of %s",
		" after dropping its %d trailing 1s",
		":",
		"\n  dim %d: %s has %llu, %s has %llu (sizes must be equal, or one of them 1)",
		"\n  no axis value works for these shapes",
		"\n  axis values that work: %d", ", %d"
	}, {
		"Paddle 的 axis 只用于两个张量（x 和 y），这里有 %d 个",
		" 和 ",
		"axis %d 超出了范围（",
		"）",
		"，两者维度数相同，axis 只能是 -1 或 0",
		"；Paddle 的 axis 可取 %d 到 %d（较大的维度数是 %d），",
		"（axis %d 在这里是 axis %d：%s），",
		"（axis %d 在这里是 axis %d：%s）",
		"小于 -1 的 axis k 表示 |%d - %d| + k + 1",
		"对这两个形状，axis 必须是 ",
		"，axis 必须是 ",
		"-1、", "-1，或 ", "%d 到 %d", "，或 %d", "，或 %d 到 %d",
		"（%s 去掉尾部的 1 后算作 %d 维）",
		"对 ",
		" 做广播，结果的元素个数超过了上限 %lld",
		"这些形状的张量无法一起广播：",
		"\n  %s 按 axis %d 放在 %s 上",
		"，先去掉了尾部的 %d 个 1",
		"：",
		"\n  第 %d 维：%s 是 %llu，%s 是 %llu（大小必须相等，或者其中一个是 1）",
		"\n  没有哪个 axis 能让这两个形状广播",
		"\n  可行的 axis：%d", "、%d"
	}
};

/* Append how Paddle maps an axis k below -1 for B's ranks, in the words W. */
static void
format_axis_rule(struct strbuf *sb, const struct bcast *b, const struct bcast_words *w)
{
	sb_printf(sb, w->rule, b->ops[0].shape.rank, b->ops[1].shape.rank);
}

/* Append the axes valid for B's shapes: "-1, 0 to 2, or -3 to -2". */
static void
format_valid_axes(struct strbuf *sb, const struct bcast *b, const struct bcast_words *w)
{
	int neg = b->neg_lo <= b->neg_hi;

	sb_add(sb, neg ? w->minus_one : w->minus_one_or);
	if (b->axis_lo == b->axis_hi)
		sb_printf(sb, "%d", b->axis_lo);
	else
		sb_printf(sb, w->range, b->axis_lo, b->axis_hi);
	if (neg && b->neg_lo == b->neg_hi)
		sb_printf(sb, w->or_one, b->neg_lo);
	else if (neg)
		sb_printf(sb, w->or_range, b->neg_lo, b->neg_hi);
}

/*
** Append the message for B's error in LANG: what failed, then the
** aligned shapes, the offending dimension and, in axis mode, the axes
** that would work. Assumes B->err != BC_OK.
*/
void
bcast_format_error(struct strbuf *sb, const struct bcast *b, enum lang lang)
{
	const struct bcast_words *w = &bcast_words[lang];

	switch (b->err) {
	case BC_OK:
		break;
	case BC_ERR_OPERANDS:
		sb_printf(sb, w->operands, b->nops);
		break;
	case BC_ERR_AXIS:
		sb_printf(sb, w->axis_out, b->axis);
		format_operands(sb, b, w->and);
		sb_add(sb, w->axis_for);
		if (b->ops[0].shape.rank == b->ops[1].shape.rank) {
			sb_add(sb, w->same_rank);
			break;
		}
		if (b->axis < -b->max_rank || b->axis >= b->max_rank)
			sb_printf(sb, w->paddle_range, -b->max_rank, b->max_rank - 1, b->max_rank);
		else if (b->mapped) {
			struct strbuf rule = {0};

			format_axis_rule(&rule, b, w);
			sb_printf(sb, w->mapped, b->axis, b->placed_at, rule.s);
			sb_free(&rule);
		}
		if (b->axis < -b->max_rank || b->axis >= b->max_rank || b->mapped)
			sb_add(sb, w->must_shapes);
		else
			sb_add(sb, w->must);
		format_valid_axes(sb, b, w);
		for (int i = 0; i < 2; i++) {
			const struct shape *s = &b->ops[i].shape;

			if (s->rank < b->ops[1 - i].shape.rank && trimmed_rank(s) < s->rank)
				sb_printf(sb, w->trimmed, b->ops[i].name, trimmed_rank(s));
		}
		break;
	case BC_ERR_TOO_BIG:
		sb_add(sb, w->too_big);
		format_operands(sb, b, " ");
		sb_printf(sb, w->too_big_limit, (long long)SHAPE_MAX_COUNT);
		break;
	case BC_ERR_MISMATCH: {
		const struct bcast_operand *a = &b->op[b->err_a], *c = &b->op[b->err_b];

		sb_add(sb, w->mismatch);
		format_operands(sb, b, " ");
		if (b->mode == BC_AXIS_PLACED) {
			int s = b->small;

			sb_printf(sb, w->placed, b->ops[s].name, b->placed_at, b->ops[1 - s].name);
			if (b->mapped) {
				struct strbuf rule = {0};

				format_axis_rule(&rule, b, w);
				sb_printf(sb, w->mapped_at, b->axis, b->placed_at, rule.s);
				sb_free(&rule);
			}
			if (b->op[s].trimmed)
				sb_printf(sb, w->placed_trimmed, b->op[s].trimmed);
			sb_add(sb, w->colon);
		}
		format_table(sb, b);
		sb_printf(sb, w->dim, b->err_dim,
		          b->ops[b->err_a].name, (unsigned long long)a->dim[b->err_dim],
		          b->ops[b->err_b].name, (unsigned long long)c->dim[b->err_dim]);
		if (b->mode == BC_AXIS_PLACED) {
			if (b->naxis_ok == 0)
				sb_add(sb, w->no_axis);
			for (int k = 0; k < b->naxis_ok; k++)
				sb_printf(sb, k ? w->axes_next : w->axes_first, b->axis_ok[k]);
		}
		break;
	}
	}
}
