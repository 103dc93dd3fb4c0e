/*
** plan.c: turn a broadcast and a computation into the kernel IR, where
** every decision about the code is made.
**
** Loops. Dimensions of size 1 in the result are dropped. Two
** neighbouring dimensions d, d+1 merge into one loop when every operand
** (and the output) has stride[d] == stride[d+1] * size[d+1]: both
** contiguous, or both stretched. [8,64,56,56] + [64,1,1] becomes three
** loops (8, 64, 3136); same shapes become one loop.
**
** Moves. In an outer loop an operand that moves gets a pointer of its
** own, advanced by its stride; in the innermost loop it is indexed by
** the counter times its stride. A loop that does not move it (stride 0)
** reads the same elements again.
**
** Reads. An input whose strides are 0 in every loop from some loop L
** inwards is read once, into a local, before loop L ("hoisted"); one
** that varies in the innermost loop is read there, into a local when the
** value uses it twice.
**
** The value. The computation becomes a tree of typed nodes: reads,
** literals, ops in their dtype with the form they are computed in, and
** every conversion made explicit. The largest parts that vary only in
** outer loops are computed once, in the loop where they vary.
**
** Depth. Compilers bound how deeply brackets nest (clang: 256), and a
** long chain (x+x+...+x in i32 is bc_add_i32(bc_add_i32(...), x)) would
** nest once per link. So the plan counts the brackets each value's C
** spelling nests, by the table of how C spells each form
** (plan_form_spelling), and a part that would take a statement past
** PLAN_MAX_NEST is computed into a temporary first: the code stays flat
** whatever the expression.
**
** Code. Last, lower.c lays these decisions out as code items, the
** kernel's body in the order its C runs, which the templates spell.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower.h"

const char *
plan_strategy_name(enum plan_strategy s)
{
	static const char *const names[] = {"auto", "unroll", "loops", "block", "empty"};

	return names[s];
}

/*
** Fill P's loops from B: one per result dimension of size above 1, with
** the strides of the inputs and of the contiguous output, merging
** neighbours whose strides allow it.
*/
static void
build_loops(struct plan *p, const struct bcast *b)
{
	int64_t out_stride = 1;

	p->nloops = 0;
	for (int d = b->rank - 1; d >= 0; d--) {
		struct plan_loop *in = &p->loop[0];	/* the loop just inside, stored first */
		int merge = p->nloops > 0;

		p->dim[d].blocker = p->dim[d].inner_dim = -1;
		if (b->dim[d] == 1)
			continue;
		if (merge) {
			p->dim[d].inner_dim = in->dim_last;
			p->dim[d].inner_extent = in->extent;
		}
		for (int i = 0; i < p->nin && merge; i++)
			if (b->op[i].stride[d] != in->stride[i] * (int64_t)in->extent) {
				merge = 0;
				p->dim[d].blocker = i;
			}
		merge = merge && out_stride == in->stride[p->nin] * (int64_t)in->extent;
		if (merge) {
			in->extent *= b->dim[d];
			in->dim_first = d;
		} else {
			/* shift the loops found so far inwards; the new outermost at 0 */
			memmove(&p->loop[1], &p->loop[0], (size_t)p->nloops * sizeof p->loop[0]);
			p->nloops++;
			memset(in, 0, sizeof *in);
			in->extent = b->dim[d];
			in->dim_first = in->dim_last = d;
			for (int i = 0; i < p->nin; i++)
				in->stride[i] = b->op[i].stride[d];
			in->stride[p->nin] = out_stride;
		}
		out_stride *= (int64_t)b->dim[d];
	}
}

/* The column of P's strides where input I moves: the output's, written in place. */
static int
input_column(const struct plan *p, int i)
{
	return p->inplace && i == 0 ? p->nin : i;
}

/*
** Set how each loop of P moves each operand, and where each input is
** read. The loops written out (nblock innermost) move nothing: their
** elements are read at constant offsets from the pointers around them.
*/
static void
set_moves_and_reads(struct plan *p)
{
	int inner = p->nloops - p->nblock;	/* the loops spelled as loops */

	for (int l = 0; l < p->nloops; l++)
		for (int i = 0; i <= p->nin; i++) {
			struct plan_loop *loop = &p->loop[l];

			if (l >= inner || loop->stride[i] == 0 || (p->inplace && i == 0))
				loop->move[i] = MOVE_NONE;
			else if (l == inner - 1 && p->nblock == 0)
				loop->move[i] = MOVE_INDEX;
			else
				loop->move[i] = MOVE_POINTER;
		}
	for (int i = 0; i < p->nin; i++) {
		struct plan_read *r = &p->read[i];
		int col = input_column(p, i), l = p->nloops;

		while (l > 0 && p->loop[l - 1].stride[col] == 0)
			l--;
		/* before loop l, or at each element: inside a block, or unrolled */
		r->level = l <= inner && p->strategy != PLAN_UNROLL ? l : p->nloops;
		r->via_output = p->inplace && i == 0;
		if (p->strategy == PLAN_UNROLL)
			r->into_local = r->uses > 1;
		else if (r->via_output)
			r->into_local = r->uses > 1 && p->nloops > 0;
		else	/* a scalar result reads every input first */
			r->into_local = r->level < p->nloops || r->uses > 1 || p->nloops == 0;
	}
}

/* Append value V to P; return its index. */
static int
add_value(struct plan *p, const struct plan_value *v)
{
	if (p->nvalues % 64 == 0)
		p->value = xrealloc(p->value, (size_t)(p->nvalues + 64) * sizeof *p->value);
	p->value[p->nvalues] = *v;
	return p->nvalues++;
}

/*
** Return how a value of dtype FROM becomes one of dtype TO, with no
** undefined behaviour. An f16 value is held in a float, exactly.
*/
static enum value_convert
convert_kind(const struct dtype *from, const struct dtype *to)
{
	if (from == to)
		return CONVERT_NONE;
	if (to->compute && from->bits == 64 && from->is_float)
		return CONVERT_ROUND_F16_F64;	/* directly: rounding twice differs */
	if (to->compute)
		return CONVERT_ROUND_F16;
	from = dtype_compute(from);
	if (from == to)
		return CONVERT_NONE;
	if (from->is_float && !to->is_float)
		return CONVERT_SATURATE;
	if (to->is_float || !to->is_signed || from->bits < to->bits)
		return CONVERT_CAST;	/* exact, rounds, or wraps */
	return CONVERT_WRAP;
}

static int convert(struct plan *p, int a, const struct dtype *from, const struct dtype *to);

/*
** An integer becomes f16 through f32, as in NumPy: if A, of dtype *FROM,
** is to become TO, f16, and is an integer, return it converted to f32,
** *FROM then f32; else A.
*/
static int
through_f32(struct plan *p, int a, const struct dtype **from, const struct dtype *to)
{
	if (!to->compute || (*from)->is_float)
		return a;
	a = convert(p, a, *from, dtype_compute(to));
	*from = dtype_compute(to);
	return a;
}

/* Return the value of A converted from dtype FROM to TO (A itself if nothing changes). */
static int
convert(struct plan *p, int a, const struct dtype *from, const struct dtype *to)
{
	struct plan_value v = {0};

	if (from == to)
		return a;
	a = through_f32(p, a, &from, to);
	v.kind = VALUE_CONVERT;
	v.type = to;
	v.convert = convert_kind(from, to);
	v.nargs = 1;
	v.arg[0] = a;
	v.temp = v.source = -1;
	if (v.convert == CONVERT_NONE)
		return a;
	return add_value(p, &v);
}

/* Set literal V's digits and flags from expression node N, of dtype T. */
static void
set_literal(struct plan_value *v, const struct expr_node *n, const struct dtype *t)
{
	v->negative = n->negative;
	if (t->is_float) {
		double x = fabs(dtype_round(t, n->value));

		/* the shortest text that reads back as the same value */
		for (int digits = 1; digits <= 17; digits++) {
			snprintf(v->digits, sizeof v->digits, "%.*g", digits, x);
			if (t->bits <= 32 ? (double)strtof(v->digits, NULL) == x
			                  : strtod(v->digits, NULL) == x)
				break;
		}
		return;
	}
	snprintf(v->digits, sizeof v->digits, "%llu", (unsigned long long)n->magnitude);
	v->minimum = t->is_signed && n->negative && n->magnitude == (uint64_t)1 << (t->bits - 1);
}

/* Return how tightly C binds infix op OP's operator: * and / above + and -. */
static enum plan_prec
infix_binds(const struct op *op)
{
	return op->id == OP_ID_MULTIPLY || op->id == OP_ID_DIVIDE ? PREC_MUL : PREC_ADD;
}

/* Return the form that computes op node N: how the op is spelled. */
static enum value_form
op_form(const struct expr_node *n)
{
	const struct op *op = n->op;
	const struct dtype *t = n->calc;

	if (op->kind == OP_COPY || (n->nargs == 1 && op->max_args == 0))
		return FORM_PASS;
	if (op->kind == OP_SELECT)
		return FORM_SELECT;
	if (op->kind == OP_LOGICAL)
		return n->nargs == 1 ? FORM_NOT : FORM_LOGICAL;
	if (op->kind == OP_COMPARE)
		return t->is_float ? FORM_COMPARE : FORM_HELPER;
	if (t->is_float && op->exact_infix)
		return n->nargs == 1 ? FORM_PREFIX : FORM_INFIX;
	return FORM_HELPER;
}

/*
** Add op value V, computed in a wider dtype than its node I's dtype T
** (f16 in f32), rounded back to T; an op of more operands, folded from
** the left, is rounded back after each step, as NumPy's reduction of
** one ufunc after another would be. Return the last rounding: the node.
*/
static int
round_back(struct plan *p, const struct plan_value *v, const struct dtype *t, int i)
{
	struct plan_value step = *v;
	int r = v->arg[0];

	step.hoistable = 0;
	step.source = -1;
	if (v->nargs <= 2)
		r = convert(p, add_value(p, &step), v->type, t);
	for (int k = 1; v->nargs > 2 && k < v->nargs; k++) {
		step.nargs = 2;
		step.arg[0] = r;
		step.arg[1] = v->arg[k];
		r = convert(p, add_value(p, &step), v->type, t);
	}
	p->value[r].hoistable = 1;
	p->value[r].source = i;
	return r;
}

/*
** Add op value V of node I, computed by a runtime helper: an op of more
** operands is folded from the left, one step a value, so that each can
** be computed apart when the chain is long. Return the last step.
*/
static int
fold_helper(struct plan *p, const struct plan_value *v, int i)
{
	struct plan_value step = *v;

	step.hoistable = 0;
	step.source = -1;
	step.nargs = 2;
	for (int k = 1; k < v->nargs - 1; k++) {
		step.arg[0] = k == 1 ? v->arg[0] : p->nvalues - 1;
		step.arg[1] = v->arg[k];
		add_value(p, &step);
	}
	step.arg[0] = p->nvalues - 1;
	step.arg[1] = v->arg[v->nargs - 1];
	step.hoistable = 1;
	step.source = i;
	return add_value(p, &step);
}

/*
** Add the value of expression node I of RQ's computation, with its
** arguments first; return its index. An operand is read in its stored
** dtype and converted to the kernel's; an argument is converted to the
** dtype its op computes in, but for a truth test (a logical op's
** arguments, where's condition), which takes it as it is.
*/
static int
add_node(struct plan *p, const struct plan_request *rq, int i)
{
	const struct expr_node *n = &rq->expr->node[i];
	struct plan_value v = {0};
	int r;

	v.type = n->type;
	v.is_bool = n->is_bool;
	v.temp = -1;
	switch (n->kind) {
	case EXPR_OPERAND:
		v.kind = VALUE_READ;
		v.operand = n->operand;
		v.type = rq->in_dtype[n->operand];
		v.source = -1;
		p->read[n->operand].uses++;
		p->read[n->operand].widen = v.type->compute != NULL;
		r = convert(p, add_value(p, &v), rq->in_dtype[n->operand], n->type);
		p->value[r].source = i;
		return r;
	case EXPR_LITERAL:
		v.kind = VALUE_LITERAL;
		set_literal(&v, n, n->type);
		break;
	case EXPR_CAST: {
		const struct dtype *from = rq->expr->node[n->arg[0]].type;

		v.arg[0] = through_f32(p, add_node(p, rq, n->arg[0]), &from, n->type);
		v.kind = VALUE_CONVERT;
		v.convert = convert_kind(from, n->type);
		v.nargs = 1;
		v.hoistable = 1;
		break;
	}
	case EXPR_OP:
		v.kind = VALUE_OP;
		v.op = n->op;
		v.calc = n->calc;
		v.hoistable = 1;
		/* f16 computes in f32, its result rounded back, but where the
		 * runtime has an exact helper for f16 values */
		if (n->calc->compute && !(n->op->f16_exact && n->op->helper))
			v.calc = dtype_compute(n->calc);
		if (n->calc->compute && n->op->kind == OP_ARITH && v.calc != n->calc)
			v.type = v.calc;
		v.form = op_form(n);
		if (v.form == FORM_INFIX)
			v.binds = infix_binds(n->op);
		v.nargs = n->nargs;
		for (int k = 0; k < n->nargs; k++) {
			const struct expr_node *a = &rq->expr->node[n->arg[k]];

			v.arg[k] = add_node(p, rq, n->arg[k]);
			if (!expr_tests_truth(n, k))
				v.arg[k] = convert(p, v.arg[k], a->type, n->calc);
		}
		if (v.type != n->type)
			return round_back(p, &v, n->type, i);
		if (v.form == FORM_HELPER && v.nargs > 2)
			return fold_helper(p, &v, i);
		break;
	}
	v.source = i;
	return add_value(p, &v);
}

/*
** Return how many elements input I of P has where it is stretched along
** a loop outside one it moves in (its strides are 0 in the one, not in
** the other) and moves in the innermost loop, else 0: the elements of
** the loops it moves in.
*/
static uint64_t
stretched_outside(const struct plan *p, int i)
{
	uint64_t n = 1;
	int stays = 0, stretched = 0;

	for (int l = 0; l < p->nloops; l++) {
		stays |= p->loop[l].stride[i] == 0;
		stretched |= stays && p->loop[l].stride[i] != 0;
		n *= p->loop[l].stride[i] != 0 ? p->loop[l].extent : 1;
	}
	/* one that stays put in the innermost loop is requantized once outside it */
	return stretched && p->loop[p->nloops - 1].stride[i] != 0 ? n : 0;
}

/*
** Return the elements of input I's table where P's quantized kernel for
** RQ requantizes it once into one (plan_read table), else 0: add or
** subtract, loops or a block, the input stretched along a loop outside
** one it moves in, and its table within PLAN_QUANT_TABLE bytes
** (PLAN_QUANT_TABLE_SMALL on a small-code row).
*/
static uint64_t
quant_table_count(const struct plan *p, const struct plan_request *rq, int i)
{
	uint64_t n = stretched_outside(p, i);
	uint64_t most = (rq->target->small_code ? PLAN_QUANT_TABLE_SMALL : PLAN_QUANT_TABLE) / 4;

	return rq->quant->op != OP_ID_MULTIPLY && (p->strategy == PLAN_LOOPS
	                                           || p->strategy == PLAN_BLOCK) && n <= most ? n : 0;
}

/*
** Add the value of RQ's quantized kernel (quant.h) as TFLite Micro
** computes an element; return the root. Each input is read and brought
** to int32 by a step of its own (QSTEP_INPUT for add and subtract: the
** input requantized to twice the larger scale; QSTEP_OFFSET for
** multiply: its zero point taken off), which the plan may compute once
** outside the loops along which the input stays put; C's operator then
** combines the two in int32, where they cannot overflow (add, subtract:
** each below 2^29 in magnitude; multiply: below 2^16 for i8, 2^30 for
** i16 whose zero points are 0), and QSTEP_OUTPUT requantizes the result
** to the output's scale, adds its zero point and clamps it. An input
** requantized into a table (quant_table_count) is read from it instead: its
** step only spells the table's elements.
*/
static int
add_quant(struct plan *p, const struct plan_request *rq)
{
	const struct quant *q = rq->quant;
	const struct op *op = op_get((enum op_id)q->op);
	struct plan_value v = {.kind = VALUE_OP, .type = dtype_find("i32"), .op = op,
	                       .form = FORM_INFIX, .binds = infix_binds(op), .nargs = 2,
	                       .hoistable = 1, .temp = -1, .source = rq->expr->root};
	struct plan_value out = {.kind = VALUE_QUANT, .type = rq->out_dtype, .step = QSTEP_OUTPUT,
	                         .single = q->rounding == QUANT_SINGLE, .nargs = 1,
	                         .constant = {q->out.mult, q->out.shift, q->zero[2], q->lo, q->hi},
	                         .nconstants = 5, .hoistable = 1, .temp = -1,
	                         .source = rq->expr->root};

	v.calc = v.type;
	for (int k = 0; k < 2; k++) {
		struct plan_value read = {.kind = VALUE_READ, .type = rq->in_dtype[k], .operand = k,
		                          .temp = -1, .source = -1};
		struct plan_value step = {.kind = VALUE_QUANT, .type = v.type, .step = QSTEP_OFFSET,
		                          .single = out.single, .nargs = 1,
		                          .constant = {q->zero[k]}, .nconstants = 1,
		                          .hoistable = 1, .temp = -1, .source = rq->expr->root};

		if (q->op != OP_ID_MULTIPLY) {
			int32_t c[] = {q->zero[k], q->left_shift, q->in[k].mult, q->in[k].shift};

			step.step = QSTEP_INPUT;
			memcpy(step.constant, c, sizeof c);
			step.nconstants = 4;
		}
		step.arg[0] = add_value(p, &read);
		v.arg[k] = add_value(p, &step);
		if ((p->read[k].table_count = quant_table_count(p, rq, k)) > 0) {
			p->value[v.arg[k]].hoistable = 0;
			p->read[k].table = 1;
			p->read[k].table_step = v.arg[k];
			p->quant_tables++;
			read.type = v.type;
			v.arg[k] = add_value(p, &read);
		}
		p->read[k].uses++;
	}
	out.arg[0] = add_value(p, &v);
	p->quant = 1;
	return add_value(p, &out);
}

/* Return 1 if value I of P is a number written in the expression: never NaN. */
static int
is_constant(const struct plan *p, int i)
{
	const struct plan_value *v = &p->value[i];

	if (v->kind == VALUE_CONVERT)
		return is_constant(p, v->arg[0]);
	return v->kind == VALUE_LITERAL;
}

/*
** Mark P's float maxima and minima of two arguments, one of them a
** constant: NaN can come only from the other, so the runtime's helper
** for a constant tests it in the one compare that picks the result.
*/
static void
mark_constant_args(struct plan *p)
{
	static const enum op_id ops[] = {OP_ID_MAXIMUM, OP_ID_MINIMUM, OP_ID_FMAX, OP_ID_FMIN};

	for (int i = 0; i < p->nvalues; i++) {
		struct plan_value *v = &p->value[i];
		int first, second;

		if (v->kind != VALUE_OP || v->form != FORM_HELPER || !v->calc->is_float
		    || v->nargs != 2)
			continue;
		first = is_constant(p, v->arg[0]);
		second = is_constant(p, v->arg[1]);
		for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
			if (v->op->id == ops[k] && first != second)
				v->constant_arg = first ? 1 : 2;
	}
}

/* The kinds of value, the forms and the conversions as C spells them (plan.h). */
const struct plan_spelling plan_kind_spelling[] = {
	[VALUE_READ] = {"read", 2},		/* bc_f16_to_f32(x[i]) */
	[VALUE_LITERAL] = {"literal", 1},	/* (int8_t)-3 */
	[VALUE_OP] = {"op", 0},			/* as its form */
	[VALUE_CONVERT] = {"convert", 0},	/* as its conversion */
	[VALUE_QUANT] = {"quant", 1}		/* bc_q_in_d(a, 5, 20, 1073741824, -1) */
};
const struct plan_spelling plan_form_spelling[] = {
	[FORM_INFIX] = {"infix", 1},		/* (a + b) * c */
	[FORM_PREFIX] = {"prefix", 1},		/* -(a + b) */
	[FORM_HELPER] = {"helper", 1},		/* bc_add_i32(a, b): the plan folds a longer
						   chain into steps of two */
	[FORM_COMPARE] = {"compare", 2},	/* (uint8_t)((a + b) < c) */
	[FORM_LOGICAL] = {"logical", 3},	/* (uint8_t)(((a + b) != 0) && c) */
	[FORM_NOT] = {"not", 2},		/* (uint8_t)((a + b) == 0) */
	[FORM_SELECT] = {"select", 4},		/* (int8_t)(((c + d) != 0) ? a : b) */
	[FORM_PASS] = {"pass", 0}		/* a */
};
const struct plan_spelling plan_convert_spelling[] = {
	[CONVERT_NONE] = {"none", 0},		/* a */
	[CONVERT_CAST] = {"cast", 1},		/* (float)(a + b) */
	[CONVERT_WRAP] = {"wrap", 2},		/* bc_wrap_i8((uint64_t)(a + b)) */
	[CONVERT_SATURATE] = {"saturate", 1},	/* bc_f32_to_i8(a) */
	[CONVERT_ROUND_F16] = {"round_f16", 1},	/* bc_round_f16(a) */
	[CONVERT_ROUND_F16_F64] = {"round_f16_f64", 2}	/* bc_f16_to_f32(bc_f64_to_f16(a)) */
};

/*
** Return how many brackets the C of value V of P nests around its
** argument K, at most, as the spelling tables say; but C's operators
** group from the left, so the first argument of an infix operator, an
** infix value binding as tightly, needs no parentheses: a + b + c.
*/
static int
nest_around(const struct plan *p, const struct plan_value *v, int k)
{
	const struct plan_value *a = &p->value[v->arg[k]];

	if (v->kind == VALUE_CONVERT)
		return plan_convert_spelling[v->convert].brackets;
	if (v->kind == VALUE_QUANT)
		return plan_kind_spelling[VALUE_QUANT].brackets;
	if (v->form == FORM_INFIX && k == 0 && a->kind == VALUE_OP && a->form == FORM_INFIX
	    && a->binds >= v->binds)
		return 0;
	return plan_form_spelling[v->form].brackets;
}

/*
** Mark the values of P computed into a temporary first so that no
** statement nests more than PLAN_MAX_NEST brackets: the value, and the
** conversion it is stored through (one more). Bottom up, an argument
** that would take its value past the bound becomes a temporary, and is
** then spelled by its name. Assumes the values computed once are marked
** (temp 0): they too are spelled by their names.
*/
static void
split_deep(struct plan *p)
{
	int *depth = xmalloc((size_t)p->nvalues * sizeof *depth);

	for (int i = 0; i < p->nvalues; i++) {
		const struct plan_value *v = &p->value[i];
		int d = plan_kind_spelling[v->kind].brackets;

		for (int k = 0; k < v->nargs; k++) {
			struct plan_value *a = &p->value[v->arg[k]];
			int around = nest_around(p, v, k);

			if (a->temp < 0 && depth[v->arg[k]] + around > PLAN_MAX_NEST - 1) {
				a->temp = 0;
				a->split = 1;
			}
			if ((a->temp >= 0 ? 0 : depth[v->arg[k]]) + around > d)
				d = (a->temp >= 0 ? 0 : depth[v->arg[k]]) + around;
		}
		depth[i] = d;
	}
	free(depth);
}

/*
** Set each value's level, the loop from which it no longer varies, and
** choose the values computed once: the largest parts of the computation
** that read an input and vary only in outer loops. Only an op or a cast
** the user wrote is one, not a read or a conversion the plan added.
** Then the parts that would nest too deeply (split_deep) are computed
** once too, in the loop where they vary (in the innermost body, or per
** element when written out, if that is where). Temporaries are numbered
** in the order computed.
*/
static void
set_temps(struct plan *p)
{
	int *parent = xmalloc((size_t)p->nvalues * sizeof *parent);
	int *reads = xmalloc((size_t)p->nvalues * sizeof *reads);

	p->ntemps = 0;
	free(p->temps);
	p->temps = xmalloc((size_t)p->nvalues * sizeof *p->temps);
	for (int i = 0; i < p->nvalues; i++) {
		struct plan_value *v = &p->value[i];

		v->level = v->kind == VALUE_READ ? p->read[v->operand].level : 0;
		reads[i] = v->kind == VALUE_READ;
		parent[i] = -1;
		for (int k = 0; k < v->nargs; k++) {
			if (p->value[v->arg[k]].level > v->level)
				v->level = p->value[v->arg[k]].level;
			reads[i] |= reads[v->arg[k]];
			parent[v->arg[k]] = i;
		}
	}
	for (int i = 0; i < p->nvalues; i++) {
		struct plan_value *v = &p->value[i];
		int up = parent[i];

		/* the nearest node above that the user wrote */
		while (up >= 0 && p->value[up].source < 0)
			up = parent[up];
		v->temp = -1;
		v->split = 0;
		if ((p->strategy != PLAN_LOOPS && p->strategy != PLAN_BLOCK) || !v->hoistable
		    || !reads[i] || v->level >= (up >= 0 ? p->value[up].level : p->nloops))
			continue;
		v->temp = 0;
	}
	split_deep(p);
	for (int i = 0; i < p->nvalues; i++)
		if (p->value[i].temp >= 0) {
			p->value[i].temp = p->ntemps;
			p->temps[p->ntemps++] = i;
		}
	free(parent);
	free(reads);
}

/*
** Fill P's offsets: for each element of the block, in the order
** written, the element offset of each input and then of the output,
** from where the loops around the block point.
*/
static void
set_offsets(struct plan *p)
{
	uint64_t idx[SHAPE_MAX_RANK] = {0}, w = (uint64_t)p->nin + 1;
	int64_t off[PLAN_MAX_INPUTS + 1] = {0};
	int inner = p->nloops - p->nblock;

	free(p->offset);
	p->offset = xmalloc((size_t)(p->block_count * w) * sizeof *p->offset);
	for (uint64_t k = 0; k < p->block_count; k++) {
		for (int i = 0; i <= p->nin; i++)
			p->offset[k * w + (uint64_t)i] = (uint64_t)off[i];
		/* step the odometer: innermost loop first, carrying outwards */
		for (int l = p->nloops - 1; l >= inner; l--) {
			for (int i = 0; i <= p->nin; i++)
				off[i] += p->loop[l].stride[i];
			if (++idx[l] < p->loop[l].extent)
				break;
			for (int i = 0; i <= p->nin; i++)
				off[i] -= p->loop[l].stride[i] * (int64_t)p->loop[l].extent;
			idx[l] = 0;
		}
	}
}

/*
** Choose the counter of each of P's loops spelled as a loop: the
** narrowest uint_fastN_t (at least N bits) that holds its trip count and,
** in the innermost loop, every index counter * stride it computes, so
** that neither wraps, and, promoted to int where N is below int's
** width, no product overflows. Assumes the moves are set.
*/
static void
set_counters(struct plan *p)
{
	for (int l = 0; l < p->nloops - p->nblock; l++) {
		struct plan_loop *loop = &p->loop[l];
		uint64_t top = loop->extent;
		int c = COUNTER_8;

		for (int i = 0; i <= p->nin; i++)
			if (loop->move[i] == MOVE_INDEX && loop->stride[i] > 1) {
				uint64_t s = (uint64_t)loop->stride[i];
				uint64_t last = loop->extent - 1;

				top = last > UINT64_MAX / s ? UINT64_MAX
				      : last * s > top ? last * s : top;
			}
		while (c < COUNTER_64 && top >> (8 << c) != 0)
			c++;
		loop->counter = (enum plan_counter)c;
	}
}

/* Decide what follows from P's loops: moves, reads, counters, values computed once, offsets. */
static void
derive(struct plan *p)
{
	set_moves_and_reads(p);
	set_counters(p);
	set_temps(p);
	if (p->strategy == PLAN_UNROLL || p->strategy == PLAN_BLOCK)
		set_offsets(p);
}

/*
** Set how P stores its value ROOT, the last, in an f16 output: rounded to
** f16's bits as it is stored, so a rounding just before is not needed.
*/
static void
set_store(struct plan *p, int root)
{
	const struct plan_value *v = &p->value[root];

	p->store = STORE_F16;
	if (v->kind == VALUE_CONVERT && (v->convert == CONVERT_ROUND_F16
	                                 || v->convert == CONVERT_ROUND_F16_F64)) {
		if (v->convert == CONVERT_ROUND_F16_F64)
			p->store = STORE_F16_F64;
		p->nvalues--;	/* the root is now its argument */
	}
}

/*
** Return the elements of the narrowest dtype RQ stores or computes that
** fill a vector of the target: the multiple a vectorized loop's trip
** count must be for any vector width up to it; 1 on a target without
** vectors, where no trip count is better than another.
*/
static int
vector_lanes(const struct plan_request *rq)
{
	int bits = rq->out_dtype->bits;

	for (int i = 0; i < rq->nin; i++)
		if (rq->in_dtype[i]->bits < bits)
			bits = rq->in_dtype[i]->bits;
	for (int i = 0; i < rq->expr->n; i++)
		if (rq->expr->node[i].type->bits < bits)
			bits = rq->expr->node[i].type->bits;
	return rq->target->vector_bytes * 8 > bits ? rq->target->vector_bytes * 8 / bits : 1;
}

/*
** Return how many of P's innermost loops a block can write out for an
** expression of NODES nodes: as many as the target's block_max elements
** and PLAN_UNROLL_NODES nodes hold, leaving one loop around them; 0 if
** not even the innermost fits. Sets P's block_count to their elements.
*/
static int
block_loops(struct plan *p, const struct target *t, int nodes)
{
	int n = 0;

	p->block_count = 1;
	while (n < p->nloops - 1) {
		uint64_t c = p->block_count * p->loop[p->nloops - 1 - n].extent;

		if (c > (uint64_t)t->block_max || c * (uint64_t)nodes > PLAN_UNROLL_NODES)
			break;
		p->block_count = c;
		n++;
	}
	return n;
}

/*
** Split P's loop AT, of extent E, into E / U iterations of U: the U
** become loop AT + 1, returned for the caller to mark why, and the
** pointers step U times as far in loop AT. Assumes U divides E and P has
** fewer than SHAPE_MAX_RANK loops.
*/
static struct plan_loop *
split_loop(struct plan *p, int at, uint64_t u)
{
	memmove(&p->loop[at + 1], &p->loop[at], (size_t)(p->nloops - at) * sizeof p->loop[0]);
	p->nloops++;
	p->loop[at].extent /= u;
	for (int i = 0; i <= p->nin; i++)
		p->loop[at].stride[i] *= (int64_t)u;
	p->loop[at + 1].extent = u;
	return &p->loop[at + 1];
}

/*
** Return how many iterations of the loop around P's block widen it to a
** multiple of the vector's lanes, when it is shorter than one: U, the
** smallest that makes the block a multiple and divides that loop's
** extent E, where the output runs on contiguously from one iteration to
** the next (gcc vectorizes the block's straight-line code a vector at a
** time: a block of 2 elements it would leave nearly scalar). Within the
** target T's block_max elements and PLAN_UNROLL_NODES nodes for an
** expression of NODES nodes, and SHAPE_MAX_RANK loops; 0 when none is.
*/
static uint64_t
widen_by(const struct plan *p, const struct target *t, int nodes)
{
	const struct plan_loop *around = &p->loop[p->nloops - 1 - p->nblock];
	uint64_t u = 1;

	if (p->block_count >= (uint64_t)p->lanes || p->nloops >= SHAPE_MAX_RANK
	    || around->stride[p->nin] != (int64_t)p->block_count)
		return 0;
	while ((u * p->block_count) % (uint64_t)p->lanes != 0)
		u++;
	if (around->extent % u != 0 || around->extent / u < 2
	    || u * p->block_count > (uint64_t)t->block_max
	    || u * p->block_count * (uint64_t)nodes > PLAN_UNROLL_NODES)
		return 0;
	return u;
}

/*
** Whether the loop AROUND P's block runs on from one iteration to the
** next as the block does: the output's next block follows its last, and
** so does that of each input the block reads as it writes the output
** (its strides in the block are the output's). Compilers then vectorize
** its iterations as one longer block.
*/
static int
runs_on(const struct plan *p, const struct plan_loop *around)
{
	int first = p->nloops - p->nblock;

	if (around->stride[p->nin] != (int64_t)p->block_count)
		return 0;
	for (int i = 0; i < p->nin; i++) {
		int as_output = 1;

		for (int l = first; l < p->nloops; l++)
			as_output &= p->loop[l].stride[i] == p->loop[l].stride[p->nin];
		if (as_output && around->stride[i] != around->stride[p->nin])
			return 0;
	}
	return 1;
}

/* Widen P's block by U iterations of the loop around it (widen_by), U > 1. */
static void
widen_block(struct plan *p, uint64_t u)
{
	split_loop(p, p->nloops - 1 - p->nblock, u)->widened = 1;
	p->nblock++;
	p->block_count *= u;
}

/* Whether LOOP moves none of the inputs INPUTS[0..N). */
static int
moves_none(const struct plan_loop *loop, const int *inputs, int n)
{
	for (int k = 0; k < n; k++)
		if (loop->stride[inputs[k]] != 0)
			return 0;
	return 1;
}

/*
** Where P's block reads an input again within itself (a stride of 0 in a
** loop of the block that moves the output, not 0 in all of them: not one
** value for the whole block), compilers build that input's vectors by
** permutes, again each time round the loop around the block. Move the
** innermost loop further out that is shorter than a vector and moves
** none of those inputs in around the block: compilers unroll it and
** build the vectors once for all its iterations ([2,3,1,5,7] + [3,4,1,7]:
** y's row of 7 is read 5 times in each block of 35, and the loop of 2
** moves x alone). Not where RQ asks for an order, nor for a widened
** block, whose loop around is part of its own.
*/
static void
share_rebuilt(struct plan *p, const struct plan_request *rq)
{
	int around = p->nloops - 1 - p->nblock, from = -1, n = 0;
	int *rebuilt = p->rebuilt;	/* kept, with nrebuilt, where a loop moves */
	struct plan_loop moved;

	if (rq->loop_order || p->lanes < 2 || around < 1)
		return;
	for (int i = 0; i < p->nin; i++) {
		int again = 0, moves = 0;

		for (int l = around + 1; l < p->nloops; l++) {
			if (p->loop[l].widened)
				return;
			again |= p->loop[l].stride[i] == 0 && p->loop[l].stride[p->nin] != 0;
			moves |= p->loop[l].stride[i] != 0;
		}
		if (again && moves)
			rebuilt[n++] = i;
	}
	if (n == 0 || moves_none(&p->loop[around], rebuilt, n))
		return;
	for (int l = around - 1; l >= 0 && from < 0; l--)
		if (p->loop[l].extent < (uint64_t)p->lanes && moves_none(&p->loop[l], rebuilt, n))
			from = l;
	if (from < 0)
		return;
	moved = p->loop[from];
	memmove(&p->loop[from], &p->loop[from + 1], (size_t)(around - from) * sizeof p->loop[0]);
	p->loop[around] = moved;
	p->loop[around].moved_in = 1;
	p->nrebuilt = n;
}

/*
** Append how RQ's source sets FIELD (a spec's name) to VALUE, or names
** FIELD when VALUE is NULL: "--strategy loops" or "strategy = \"loops\"".
*/
static void
say_option(struct strbuf *err, const struct plan_request *rq, const char *field,
           const char *value)
{
	if (rq->spec) {
		sb_printf(err, value ? "%s = \"%s\"" : "field '%s'", field, value);
		return;
	}
	sb_add(err, "--");
	for (const char *c = field; *c; c++)
		sb_printf(err, "%c", *c == '_' ? '-' : *c);
	if (value)
		sb_printf(err, " %s", value);
}

/* Append " (use --strategy loops)", as RQ's source says it. */
static void
use_loops(struct strbuf *err, const struct plan_request *rq)
{
	sb_add(err, " (use ");
	say_option(err, rq, "strategy", "loops");
	sb_add(err, ")");
}

/* The code of converting an f16 to or from a float: software, a dozen instructions. */
static int
convert_nodes(const struct dtype *t)
{
	return t->compute ? PLAN_CONVERT_NODES : 0;
}

/*
** Return the code of one element of RQ's value, in nodes (about an
** instruction each), its inputs' reads apart: each operation and cast,
** with an f16 result's rounding, and the store, with an f16's.
*/
static uint64_t
element_nodes(const struct plan_request *rq)
{
	uint64_t n = 1 + (uint64_t)convert_nodes(rq->out_dtype);

	if (rq->quant)
		return n + 1 + 3 * PLAN_QUANT_NODES;

	for (int i = 0; i < rq->expr->n; i++)
		if (rq->expr->node[i].kind == EXPR_OP || rq->expr->node[i].kind == EXPR_CAST)
			n += 1 + (uint64_t)convert_nodes(rq->expr->node[i].type);
	return n;
}

/*
** Return the code of P for RQ, in nodes, with its innermost K loops
** written out, and U iterations of the loop around them with them (U 1:
** none; else that loop split): the target's loop_nodes for each loop
** left (its counter, its pointers' steps and its branch), ELEM for each
** element written out, and a load (with an f16's widening) for each
** element of an input the written part reads, once: compilers read an
** element that several statements use once. With K 0, the loops as
** they are, one element's code in the innermost.
*/
static uint64_t
code_nodes(const struct plan *p, const struct plan_request *rq, int k, uint64_t u, uint64_t elem)
{
	int at = p->nloops - 1 - k;
	uint64_t n = u, code;

	for (int l = at + 1; l < p->nloops; l++)
		n *= p->loop[l].extent;
	code = n * elem + (uint64_t)(rq->target->loop_nodes * (p->nloops - k));
	for (int i = 0; i < p->nin; i++) {
		uint64_t d = u > 1 && p->loop[at].stride[i] != 0 ? u : 1;

		for (int l = at + 1; l < p->nloops; l++)
			if (p->loop[l].stride[i] != 0)
				d *= p->loop[l].extent;
		code += d * (uint64_t)(1 + convert_nodes(rq->in_dtype[i]));
	}
	return code;
}

/*
** Return whether code written out for P, with vectors, has vectors to
** load: an input read a vector's lanes in a row, or more, or a value
** that is an input as it is (a copy, whose vectors repeat). Else gcc
** builds each vector of the unrolled statements lane by lane, slower
** than the loops (make size on the Cortex-M55: 3.67 instructions an
** element against 3.33 for a(4,1) - b(3) in i32).
*/
static int
vectors_load(const struct plan *p, const struct plan_request *rq)
{
	if (rq->expr->n == 1)
		return 1;
	for (int i = 0; i < p->nin; i++) {
		uint64_t run = 1;

		for (int l = p->nloops - 1; l >= 0 && p->loop[l].stride[i] == (int64_t)run; l--)
			run *= p->loop[l].extent;
		if (run >= (uint64_t)p->lanes)
			return 1;
	}
	return 0;
}

/*
** Choose P's strategy for RQ, for speed, on a target that runs its code
** from a small memory, where what is written out must pay for its
** bytes: code written out is kept within PLAN_CODE_GROWTH times the
** loops' (code_nodes). Within that budget, the whole result is unrolled.
** Else, with vectors (P's lanes), as on any target: a block where the
** innermost trip count is not a multiple of the lanes, widened to one
** where that fits, a vector at least (a shorter one gcc leaves scalar,
** no faster than the loops); else the loops, the innermost's tail split off, or,
** where it has none and a loop is around it, its last vector (gcc's
** low-overhead loop on the Cortex-M55 then shares the outer loop's
** pointer steps: make size, 1.57 instructions an element against 1.68).
** Without vectors, a loop costs its count, its pointers' steps and its
** branch for each element and buys nothing else, so the most is written
** out: the innermost loops that fit, the loop around them split to take
** in as many of its iterations as fit (the innermost itself when none
** does), where the block then holds PLAN_SPLIT_MIN elements or more (a
** smaller one does not pay for the loop the split adds); else the
** loops. Within LIMIT elements, the target's block_max for a block, and
** PLAN_UNROLL_NODES nodes for an expression of NODES nodes. Assumes P's
** loops are built and P has elements.
*/
static void
choose_small_code(struct plan *p, const struct plan_request *rq, uint64_t limit, int nodes)
{
	uint64_t elem = element_nodes(rq), budget, n = 1, u;
	int k = 0, at;

	budget = p->code_budget = PLAN_CODE_GROWTH * code_nodes(p, rq, 0, 1, elem);
	p->why = WHY_SCALAR;
	p->no_vector_loads = p->lanes > 1 && !vectors_load(p, rq);
	if (p->count <= limit && code_nodes(p, rq, p->nloops, 1, elem) <= budget
	    && !p->no_vector_loads) {
		p->strategy = PLAN_UNROLL;
		p->nblock = p->nloops;
		p->block_count = p->count;
		return;
	}
	if (limit > (uint64_t)rq->target->block_max)
		limit = (uint64_t)rq->target->block_max;
	while (k < p->nloops - 1) {
		uint64_t c = n * p->loop[p->nloops - 1 - k].extent;

		if (c > limit || c * (uint64_t)nodes > PLAN_UNROLL_NODES
		    || code_nodes(p, rq, k + 1, 1, elem) > budget)
			break;
		n = c;
		k++;
	}
	p->strategy = k > 0 ? PLAN_BLOCK : PLAN_LOOPS;
	p->nblock = k;
	p->block_count = k > 0 ? n : 0;
	if (p->lanes > 1) {
		struct plan_loop *in = &p->loop[p->nloops - 1];

		if (k > 0 && in->extent % (uint64_t)p->lanes != 0) {
			u = widen_by(p, rq->target, nodes);
			if (u > 1 && code_nodes(p, rq, k, u, elem) <= budget)
				widen_block(p, u);
			if (p->block_count >= (uint64_t)p->lanes)
				return;
		}
		p->strategy = PLAN_LOOPS;
		p->nblock = 0;
		p->block_count = 0;
		if (in->extent > (uint64_t)p->lanes)
			in->tail = in->extent % (uint64_t)p->lanes;
		if (in->extent > (uint64_t)p->lanes && in->tail == 0 && p->nloops > 1)
			in->tail = (uint64_t)p->lanes;
		return;
	}
	at = p->nloops - 1 - k;	/* the loop around them, after the split too */
	u = p->loop[at].extent / 2 < limit / n ? p->loop[at].extent / 2 : limit / n;
	for (; u >= 2; u--)	/* the most that divides it, leaving 2 iterations or more */
		if (p->loop[at].extent % u == 0 && n * u * (uint64_t)nodes <= PLAN_UNROLL_NODES
		    && code_nodes(p, rq, k, u, elem) * PLAN_CODE_GROWTH <= budget * PLAN_SPLIT_GROWTH)
			break;
	if (u >= 2 && n * u >= PLAN_SPLIT_MIN && p->nloops < SHAPE_MAX_RANK) {
		split_loop(p, at, u)->widened = 1;
		p->strategy = PLAN_BLOCK;
		p->nblock = k + 1;
		p->block_count = n * u;
	}
}

/*
** Whether --stream auto would stream P's data for RQ where the loops allow
** it: for speed, on a target with non-temporal stores, data past the
** cache.
*/
static int
past_cache(const struct plan *p, const struct plan_request *rq)
{
	return rq->stream == STREAM_AUTO && rq->goal == GOAL_SPEED && rq->target->nt_stores
	       && p->bytes > rq->cache_size;
}

/* Whether it does: past_cache, where the tuning's streaming stores pay. */
static int
streams_past_cache(const struct plan *p, const struct plan_request *rq)
{
	return past_cache(p, rq) && rq->tune->stream_pays;
}

/*
** Return 1 if P's innermost loop can run as a quantized line helper on
** target T: a vector of T's int32 lanes long at least, the output moving
** one element an iteration, each input one or none, one at least.
*/
static int
quant_line_fits(const struct plan *p, const struct target *t)
{
	const struct plan_loop *in;
	int moving = 0;

	if (p->nloops == 0)
		return 0;
	in = &p->loop[p->nloops - 1];
	if (in->stride[p->nin] != 1 || in->extent < (uint64_t)t->vector_bytes / 4)
		return 0;
	for (int i = 0; i < p->nin; i++) {
		if (in->stride[i] != 0 && in->stride[i] != 1)
			return 0;
		moving += in->stride[i] == 1;
	}
	return moving > 0;
}

/*
** Choose P's strategy for RQ, its loops built and ordered (and its data
** counted, p->bytes): unroll up to the limit (and, for an expression of
** NODES nodes, up to PLAN_UNROLL_NODES nodes in all); else, for auto, a
** block when the innermost loop fits in one and its trip count is not a
** multiple of the lanes (gcc -O2 leaves such a loop scalar, or its rest,
** and the block's straight-line code it vectorizes), or on a row that
** writes short loops out (block_short), data in the cache; else loops,
** the innermost's tail split off so that the rest is a multiple of the
** lanes. For size, auto unrolls only what a loop would not make
** smaller (PLAN_SIZE_UNROLL_MAX), writes out no block and splits no
** tail. A quantized kernel whose target computes its innermost loop a
** line at a time (quant_lines) runs loops, where that loop fits one.
** Return 0, or -1 with an error in ERR when an unroll or a block was
** asked where none can be.
*/
static int
choose_strategy(struct plan *p, const struct plan_request *rq, int nodes, struct strbuf *err)
{
	uint64_t limit = rq->unroll_limit;
	const struct plan_loop *around;
	uint64_t u;
	int block, odd;

	if (limit > PLAN_UNROLL_CEILING) {
		sb_printf(err, "unroll limit %llu is above the ceiling %d",
		          (unsigned long long)limit, PLAN_UNROLL_CEILING);
		p->fault = "unroll_limit";
		return -1;
	}
	if (rq->strategy == PLAN_UNROLL && p->count > limit && limit < PLAN_UNROLL_CEILING) {
		sb_printf(err, "cannot unroll %llu elements: the limit is %llu (set it with ",
		          (unsigned long long)p->count, (unsigned long long)limit);
		say_option(err, rq, "unroll_limit", NULL);
		sb_printf(err, ", at most %d, or use ", PLAN_UNROLL_CEILING);
		say_option(err, rq, "strategy", "loops");
		sb_add(err, ")");
		p->fault = "strategy";
		return -1;
	}
	if (rq->strategy == PLAN_UNROLL && p->count > limit) {
		sb_printf(err, "cannot unroll %llu elements: at most %d are unrolled, "
		          "whatever ", (unsigned long long)p->count, PLAN_UNROLL_CEILING);
		say_option(err, rq, "unroll_limit", NULL);
		sb_add(err, " says");
		use_loops(err, rq);
		p->fault = "strategy";
		return -1;
	}
	if (limit * (uint64_t)nodes > PLAN_UNROLL_NODES) {
		limit = PLAN_UNROLL_NODES / (uint64_t)nodes;
		p->unroll_nodes = nodes;
		if (rq->strategy == PLAN_UNROLL && p->count > limit) {
			sb_printf(err, "cannot unroll %llu elements of %d nodes each: at most %d "
			          "nodes are unrolled in all, so at most %llu elements of this "
			          "computation", (unsigned long long)p->count,
			          nodes, PLAN_UNROLL_NODES, (unsigned long long)limit);
			use_loops(err, rq);
			p->fault = "strategy";
			return -1;
		}
	}
	p->lanes = vector_lanes(rq);
	if (p->count == 0) {
		p->strategy = PLAN_EMPTY;
		p->why = WHY_EMPTY;
		return 0;
	}
	if (rq->goal == GOAL_SIZE && limit > PLAN_SIZE_UNROLL_MAX) {
		limit = PLAN_SIZE_UNROLL_MAX;
		p->unroll_nodes = 0;
	}
	p->unroll_limit = limit;
	p->why = WHY_ASKED;
	if (rq->strategy == PLAN_AUTO && rq->goal == GOAL_SPEED && rq->stream != STREAM_ON
	    && rq->quant && rq->target->quant_lines && quant_line_fits(p, rq->target)) {
		p->strategy = PLAN_LOOPS;
		p->why = WHY_QUANT_LINES;
		return 0;
	}
	if (rq->strategy == PLAN_AUTO && rq->goal == GOAL_SPEED && rq->stream != STREAM_ON
	    && rq->target->small_code) {
		choose_small_code(p, rq, limit, nodes);
		return 0;
	}
	if (rq->strategy == PLAN_UNROLL
	    || (rq->strategy == PLAN_AUTO && p->count <= limit && rq->stream != STREAM_ON)) {
		p->strategy = PLAN_UNROLL;
		p->why = rq->strategy == PLAN_AUTO ? WHY_SMALL : WHY_ASKED;
		p->nblock = p->nloops;
		p->block_count = p->count;
		return 0;
	}
	block = block_loops(p, rq->target, nodes);
	if (rq->strategy == PLAN_BLOCK && block == 0) {
		sb_printf(err, "cannot write out a block: it needs two loops or more, the "
		          "innermost of at most %d iterations (%d nodes in all); ",
		          rq->target->block_max, PLAN_UNROLL_NODES);
		if (p->nloops == 0)
			sb_add(err, "the result is a scalar, with no loop");
		for (int l = 0; l < p->nloops; l++)
			sb_printf(err, "%s%llu", l ? ", " : "the loops run ",
			          (unsigned long long)p->loop[l].extent);
		if (p->nloops > 0)
			sb_add(err, " times");
		use_loops(err, rq);
		p->fault = "strategy";
		return -1;
	}
	/* a short loop of a multiple of the lanes is a block on the rows that
	   say so, unless its data pass the cache: it may stream then */
	odd = block > 0 && p->loop[p->nloops - 1].extent % (uint64_t)p->lanes != 0;
	if (rq->strategy == PLAN_BLOCK || (rq->strategy == PLAN_AUTO && block > 0
	                                   && rq->goal == GOAL_SPEED && rq->stream != STREAM_ON
	                                   && (odd || (rq->target->block_short
	                                               && !streams_past_cache(p, rq))))) {
		p->strategy = PLAN_BLOCK;
		p->why = rq->strategy != PLAN_AUTO ? WHY_ASKED : odd ? WHY_ODD : WHY_SHORT;
		p->nblock = block;
		if ((u = widen_by(p, rq->target, nodes)) > 1)
			widen_block(p, u);
		share_rebuilt(p, rq);
		around = &p->loop[p->nloops - 1 - p->nblock];
		/* across a loop shorter than a vector, gcc -O3 vectorizes a few
		 * lanes at a time, slower than the block's straight-line code
		 * (fived, its loop of 2 moved in: 0.51x hand, 1.20x without);
		 * across a longer one, or one that runs on (runs_on: then it
		 * vectorizes its iterations as one block: axis, 2 x 60
		 * elements, 1.11x hand, 0.92x without), whole vectors: faster */
		p->slp_only = around->extent < (uint64_t)p->lanes && !runs_on(p, around);
		return 0;
	}
	p->strategy = PLAN_LOOPS;
	if (rq->strategy == PLAN_AUTO)
		p->why = rq->stream == STREAM_ON ? WHY_STREAM : rq->goal == GOAL_SIZE ? WHY_SIZE
		         : block == 0 ? WHY_NO_BLOCK : WHY_MULTIPLE;
	p->block_count = 0;
	if (p->nloops > 0) {
		struct plan_loop *in = &p->loop[p->nloops - 1];

		if (rq->goal == GOAL_SPEED && in->extent > (uint64_t)p->lanes)
			in->tail = in->extent % (uint64_t)p->lanes;
	}
	return 0;
}

/* A + B, or UINT64_MAX if it would pass it. */
static uint64_t
add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The bytes of N elements of dtype T, or UINT64_MAX if they would pass it. */
static uint64_t
bytes_of(uint64_t n, const struct dtype *t)
{
	uint64_t size = (uint64_t)t->bits / 8;

	return n > UINT64_MAX / size ? UINT64_MAX : n * size;
}

/* The data of P, from B for RQ: its inputs' elements and its output's, in bytes. */
static uint64_t
data_bytes(const struct plan *p, const struct bcast *b, const struct plan_request *rq)
{
	uint64_t bytes = bytes_of(p->count, rq->out_dtype);

	for (int i = 0; i < p->nin; i++) {
		uint64_t n = 1;

		for (int d = 0; d < b->rank; d++)
			n *= b->op[i].dim[d];	/* at most the result's count */
		bytes = add_sat(bytes, bytes_of(n, rq->in_dtype[i]));
	}
	return bytes;
}

/*
** Decide whether P, for RQ, writes its output with
** non-temporal stores: as asked, or with --stream auto when its data
** (each input's elements, and the output's) pass the cache size. It
** can where the innermost loop is a loop, not written out, and writes
** the output's elements one after the other, a line of them at least.
** Return 0, or -1 with an error in ERR when it was asked and cannot.
*/
static int
choose_stream(struct plan *p, const struct plan_request *rq, struct strbuf *err)
{
	const struct plan_loop *in = p->nloops > 0 ? &p->loop[p->nloops - 1] : NULL;
	int can;

	if (!rq->target->nt_stores) {
		if (rq->stream == STREAM_ON) {
			sb_printf(err, "cannot stream the output: the target %s has no "
			          "non-temporal stores", rq->target->name);
			p->fault = "stream";
			return -1;
		}
		return 0;
	}
	p->line = rq->target->line_bytes / (rq->out_dtype->bits / 8);
	can = p->strategy == PLAN_LOOPS && in && in->stride[p->nin] == 1
	      && in->extent >= (uint64_t)p->line;
	if (rq->stream == STREAM_ON && !can) {
		sb_printf(err, "cannot stream the output: non-temporal stores need an "
		          "innermost loop that writes whole %d-byte lines (%d elements) one "
		          "after the other", rq->target->line_bytes, p->line);
		p->fault = "stream";
		if (p->strategy == PLAN_EMPTY) {
			sb_add(err, ", and the output has no elements: there is nothing to stream");
		} else if (p->strategy == PLAN_UNROLL || p->strategy == PLAN_BLOCK) {
			sb_add(err, ", and ");
			say_option(err, rq, "strategy", plan_strategy_name(p->strategy));
			sb_add(err, p->strategy == PLAN_UNROLL
			       ? " writes a statement per element, with no loop"
			       : " writes the innermost loops out");
			use_loops(err, rq);
		} else if (in)
			sb_printf(err, "; the innermost loop runs %llu times, the output's stride "
			          "%lld", (unsigned long long)in->extent, (long long)in->stride[p->nin]);
		else
			sb_add(err, ", and the output is one element");
		return -1;
	}
	if (rq->stream == STREAM_ON)
		p->stream = STREAM_ASKED;
	else if (can && streams_past_cache(p, rq))
		p->stream = STREAM_SIZED;
	else if (can && past_cache(p, rq))
		p->stream_unpaid = 1;
	return 0;
}

/*
** Whether value V of P gives a quiet NaN (or no NaN) for a signalling NaN
** argument, as C's arithmetic on floats does, and comparisons and truth
** tests see both kinds alike: then a signalling NaN it reads may arrive
** quiet. Neither is true of an op that passes a NaN on as it is (a
** negation, a maximum, a where) or of a conversion.
*/
static int
quiets_nan(const struct plan_value *v)
{
	return v->kind == VALUE_OP && (v->form == FORM_COMPARE || v->form == FORM_LOGICAL
	                               || v->form == FORM_NOT
	                               || (v->form == FORM_INFIX && v->calc->is_float));
}

/* Whether every value of P that reads input I quiets a signalling NaN. */
static int
only_quieted(const struct plan *p, int i)
{
	for (int w = 0; w < p->nvalues; w++) {
		const struct plan_value *v = &p->value[w];

		for (int k = 0; k < v->nargs; k++) {
			const struct plan_value *a = &p->value[v->arg[k]];

			if (a->kind == VALUE_READ && a->operand == i && !quiets_nan(v))
				return 0;
		}
	}
	/* the root is the read itself: it is stored as it is */
	return !(p->value[p->nvalues - 1].kind == VALUE_READ && p->value[p->nvalues - 1].operand == i);
}

/*
** Decide whether P, for RQ, stores the elements it writes out in order, a
** vector at a time: for speed, where the tuning's stores run slower
** otherwise, in a block that is one innermost loop of two vectors or
** more, a run of the output. (Elsewhere, as in a block of short rows,
** the order points would split the groups gcc vectorizes: make bench's
** odd7 ran 2x slower with them at -O3.) Assumes P's strategy and lanes
** are set.
*/
static void
choose_store_order(struct plan *p, const struct plan_request *rq)
{
	/* a vector as gcc stores it there: at most the row's (gcc keeps to
	   256 bits on the AVX-512 cores it tunes for, by default) */
	int n = rq->tune->ordered_stores * 8 / rq->out_dtype->bits;

	n = n < p->lanes ? n : p->lanes;
	if (n > 1 && rq->goal == GOAL_SPEED && p->strategy == PLAN_BLOCK && p->nblock == 1
	    && p->loop[p->nloops - 1].stride[p->nin] == 1 && p->block_count >= 2 * (uint64_t)n)
		p->store_order = n;
}

/*
** Decide whether P converts its f16 data a line of PLAN_F16_LINE elements
** at a time (bc_f16_to_f32_n and bc_f32_to_f16_n, bc_f16.h): for speed, on a
** target with vectors and conversions in hardware, not one for small
** code (the lines cost stack and code; the Cortex-M55), in loops whose
** innermost loop runs a line at least, reads an f16 input element by
** element or stores an f16 output from floats, and does not stream as
** asked. Those lines take the place of streaming past the cache, whose
** lines convert an element at a time, and of the loop's vector tail.
** Where no signalling NaN can reach the output as one (only_quieted; an
** output of arithmetic), the
** conversions need not keep it signalling, and run faster (the _nq
** helpers). Assumes P's values and store are set.
*/
static void
choose_f16_lines(struct plan *p, const struct plan_request *rq)
{
	const struct plan_loop *in = p->nloops > 0 ? &p->loop[p->nloops - 1] : NULL;
	int any;

	if (!rq->target->f16_convert || rq->target->vector_bytes == 0 || rq->target->small_code
	    || rq->goal != GOAL_SPEED
	    || p->strategy != PLAN_LOOPS || !in || in->extent < PLAN_F16_LINE
	    || p->stream == STREAM_ASKED)
		return;
	p->f16_out_line = rq->out_dtype->compute && p->store == STORE_F16 && in->stride[p->nin] == 1;
	any = p->f16_out_line;
	for (int i = 0; i < p->nin; i++) {
		struct plan_read *r = &p->read[i];

		r->staged = r->widen && r->uses > 0 && in->stride[input_column(p, i)] == 1;
		r->quiet = r->staged && only_quieted(p, i);
		any |= r->staged;
	}
	if (!any)
		return;
	p->f16_line = PLAN_F16_LINE;
	p->loop[p->nloops - 1].tail = 0;	/* the lines and their rest take its place */
	p->f16_out_quiet = p->f16_out_line && quiets_nan(&p->value[p->nvalues - 1]);
	p->f16_not_streamed = p->stream == STREAM_SIZED;
	p->stream = STREAM_NONE;
}

/* The least common multiple of A and B, both above 0. */
static uint64_t
lcm(uint64_t a, uint64_t b)
{
	uint64_t x = a, y = b;

	while (y) {
		uint64_t r = x % y;

		x = y;
		y = r;
	}
	return a / x * b;
}

/*
** Return the chunk that P's one loop splits into for threads: the
** largest that divides its extent in PLAN_CHUNKS chunks or more (up to
** PLAN_CHUNKS_MAX), a multiple of the vector's lanes, of the output's
** cache line where it streams and of the f16 line where it converts
** lines, so that each chunk runs as the one loop did, with no tail; 0
** when none does.
*/
static uint64_t
chunk_of(const struct plan *p)
{
	uint64_t n = p->loop[0].extent, g = (uint64_t)p->lanes;

	if (p->stream != STREAM_NONE)
		g = lcm(g, (uint64_t)p->line);
	if (p->f16_line)
		g = lcm(g, (uint64_t)p->f16_line);
	for (uint64_t k = PLAN_CHUNKS; k <= PLAN_CHUNKS_MAX && k <= n / g; k++)
		if (n % k == 0 && (n / k) % g == 0)
			return n / k;
	return 0;
}

/*
** Decide whether P, for RQ, runs its innermost loop as the runtime's
** quantized line helper: a quantized kernel's loops, on a target whose
** vectors compute such lines (its quant_lines), not streamed, no input
** read from a table, where the loop fits (quant_line_fits); the line
** takes the loop's vector tail.
*/
static void
choose_quant_line(struct plan *p, const struct plan_request *rq)
{
	p->quant_line = rq->quant && rq->target->quant_lines && p->strategy == PLAN_LOOPS
	                && p->stream == STREAM_NONE && !p->quant_tables && quant_line_fits(p, rq->target);
	if (p->quant_line)
		p->loop[p->nloops - 1].tail = 0;
}

/*
** Decide whether P, for RQ, shares its outermost loop among threads: as
** --parallel asks, where the target has more than one core (its
** parallel_min), the result has parallel_min elements at least, and the
** outermost loop is a loop around another loop or around the block (the
** innermost loop keeps its shape, its lines streamed or converted
** included); one loop is split into chunks for them where it can be
** (chunk_of). Else say why not.
*/
static void
choose_parallel(struct plan *p, const struct plan_request *rq)
{
	uint64_t chunk;

	if (!rq->parallel)
		p->parallel = PARALLEL_NOT_ASKED;
	else if (rq->target->parallel_min == 0)
		p->parallel = PARALLEL_ONE_CORE;
	else if (p->count < rq->target->parallel_min)
		p->parallel = PARALLEL_SMALL;
	else if (p->strategy == PLAN_LOOPS && p->nloops == 1 && (chunk = chunk_of(p)) > 0) {
		split_loop(p, 0, chunk)->chunked = 1;	/* whole vectors: no tail */
		p->parallel = PARALLEL_YES;
	} else if (!(p->strategy == PLAN_LOOPS && p->nloops >= 2)
	         && !(p->strategy == PLAN_BLOCK && p->nloops > p->nblock))
		p->parallel = PARALLEL_ONE_LOOP;
	else
		p->parallel = PARALLEL_YES;
}

/* Make loop K of P the loop ORDER[K] was, ORDER a permutation of them. */
static void
permute(struct plan *p, const int *order)
{
	struct plan_loop old[SHAPE_MAX_RANK];

	memcpy(old, p->loop, (size_t)p->nloops * sizeof old[0]);
	for (int l = 0; l < p->nloops; l++) {
		p->loop[l] = old[order[l]];
		p->reordered |= order[l] != l;
	}
}

/*
** Put P's loops in the order ORDER[0..N) asked for. Return 0, or -1
** with an error in ERR when it is not a permutation of the loops.
*/
static int
order_loops(struct plan *p, const int *order, int n, struct strbuf *err)
{
	int seen[SHAPE_MAX_RANK] = {0}, ok = n == p->nloops;

	for (int k = 0; ok && k < n; k++)
		ok = order[k] >= 0 && order[k] < p->nloops && !seen[order[k]]++;
	if (!ok)
		p->fault = "loop_order";
	if (!ok && p->nloops == 1) {
		sb_printf(err, "the plan has one loop, of %llu iterations: the only loop "
		          "order is 0", (unsigned long long)p->loop[0].extent);
		return -1;
	}
	if (!ok) {
		sb_printf(err, "the loop order must list each of the plan's %d loops once, "
		          "outermost first", p->nloops);
		for (int l = 0; l < p->nloops; l++)
			sb_printf(err, "%s%llu", l ? ", " : "; their trip counts are ",
			          (unsigned long long)p->loop[l].extent);
		return -1;
	}
	permute(p, order);
	return 0;
}

/*
** Build the plan P for the broadcast B and the request RQ. On error
** append a message to ERR and return -1. Assumes B resolved without
** error and RQ's expression is type-checked.
*/
int
plan_build(struct plan *p, const struct bcast *b, const struct plan_request *rq,
           struct strbuf *err)
{
	const struct expr *e = rq->expr;
	struct shape s;
	int root, fma = 0;

	memset(p, 0, sizeof *p);
	if (rq->nin > PLAN_MAX_INPUTS) {	/* desc.c says so first; the arrays rely on it */
		sb_printf(err, "a kernel takes at most %d operands, got %d", PLAN_MAX_INPUTS,
		          rq->nin);
		return -1;
	}
	p->nin = rq->nin;
	p->inplace = rq->inplace;
	bcast_result_shape(b, &s);
	p->count = shape_count(&s);
	build_loops(p, b);
	p->bytes = data_bytes(p, b, rq);
	if ((rq->loop_order && order_loops(p, rq->loop_order, rq->nloop_order, err) != 0)
	    || choose_strategy(p, rq, e->n, err) != 0 || choose_stream(p, rq, err) != 0)
		return -1;
	if (rq->target->int_bits < 64 && p->bytes >> rq->target->int_bits != 0) {
		sb_printf(err, "the data, %llu bytes (the inputs' elements and the output's), "
		          "pass the %llu GiB that the %d-bit addresses of the target %s reach",
		          (unsigned long long)p->bytes,
		          (unsigned long long)(((uint64_t)1 << rq->target->int_bits) >> 30),
		          rq->target->int_bits, rq->target->name);
		p->fault = "target";
		return -1;
	}
	p->goal = rq->goal;
	p->needs_size64 = p->count > PLAN_SIZE32_MAX;
	p->has_loops = (p->strategy == PLAN_LOOPS || p->strategy == PLAN_BLOCK) && p->nloops > 0;
	/* the runtime aligns to 32 bytes, the fetch block of every row that has one */
	p->align_loops = p->has_loops && rq->goal == GOAL_SPEED ? rq->target->fetch_bytes : 0;
	p->sched_pressure = rq->target->sched_pressure && p->nblock > 0;
	root = rq->quant ? add_quant(p, rq) : add_node(p, rq, e->root);
	p->vectors_512 = rq->quant && rq->target->vector_bytes == 64 && p->strategy != PLAN_EMPTY;
	root = convert(p, root, e->node[e->root].type, rq->out_dtype);
	if (rq->out_dtype->compute)
		set_store(p, root);
	for (int i = 0; i < p->nvalues; i++) {
		const struct plan_value *v = &p->value[i];

		if (v->kind == VALUE_OP && v->op) {
			p->libm |= op_needs_libm(v->op, v->calc);
			fma |= v->calc->is_float ? v->op->fma_part : 0;
		}
	}
	p->contract = fma == (FMA_MULTIPLY | FMA_ADD);
	mark_constant_args(p);
	choose_f16_lines(p, rq);
	choose_quant_line(p, rq);
	choose_parallel(p, rq);
	choose_store_order(p, rq);
	derive(p);
	lower_code(p, b);
	return 0;
}

void
plan_free(struct plan *p)
{
	free(p->offset);
	free(p->value);
	free(p->temps);
	lower_free(&p->code);
	free(p->pointer);
	memset(p, 0, sizeof *p);
}
