/*
** model.c: turn the results of the C phases into Lua tables for the
** templates. Arrays are 1-based Lua sequences; dimension numbers stored
** in fields are 0-based, as printed. Nothing here decides anything: it
** copies what bcast.c resolved, plan.c planned (and lower.c laid out as
** code items) and kernel.c described.
*/
#include <limits.h>

#include <lauxlib.h>

#include "model.h"

static void
set_int(lua_State *L, const char *key, long long v)
{
	lua_pushinteger(L, (lua_Integer)v);
	lua_setfield(L, -2, key);
}

static void
set_str(lua_State *L, const char *key, const char *v)
{
	lua_pushstring(L, v);
	lua_setfield(L, -2, key);
}

static void
set_bool(lua_State *L, const char *key, int v)
{
	lua_pushboolean(L, v);
	lua_setfield(L, -2, key);
}

/* Set field KEY to the sequence of integers V[0..N). */
static void
set_ints(lua_State *L, const char *key, const int64_t *v, int n)
{
	lua_createtable(L, n, 0);
	for (int i = 0; i < n; i++) {
		lua_pushinteger(L, (lua_Integer)v[i]);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, key);
}

/* Set field KEY to the sequence V[0..N), each plus BASE (1: an index made 1-based). */
static void
set_int_seq(lua_State *L, const char *key, const int *v, int n, int base)
{
	lua_createtable(L, n, 0);
	for (int i = 0; i < n; i++) {
		lua_pushinteger(L, v[i] + base);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, key);
}

/* Set field KEY to the sequence of sizes DIM[0..N), each at most SHAPE_MAX_COUNT. */
static void
set_dims(lua_State *L, const char *key, const uint64_t *dim, int n)
{
	set_ints(L, key, (const int64_t *)dim, n);	/* may alias: C99 6.5p7 */
}

/* Push the table for operand I of B. */
static void
push_operand(lua_State *L, const struct bcast *b, int i)
{
	const struct bcast_operand *o = &b->op[i];

	lua_createtable(L, 0, 8);
	set_str(L, "name", b->ops[i].name);
	set_dims(L, "shape", b->ops[i].shape.dim, b->ops[i].shape.rank);
	set_int(L, "pad", o->pad);
	set_int(L, "trimmed", o->trimmed);
	set_dims(L, "aligned", o->dim, b->rank);
	/* own[d]: the operand has a size of its own in dimension d-1 */
	lua_createtable(L, b->rank, 0);
	for (int d = 0; d < b->rank; d++) {
		int own = b->ops[i].shape.rank - o->trimmed;

		lua_pushboolean(L, d >= o->pad && d < o->pad + own);
		lua_rawseti(L, -2, d + 1);
	}
	lua_setfield(L, -2, "own");
	if (b->err == BC_OK || b->err == BC_ERR_MISMATCH || b->err == BC_ERR_TOO_BIG) {
		lua_createtable(L, b->rank, 0);
		for (int k = 0; k < b->ncompared; k++) {
			int d = b->order[k];

			lua_pushstring(L, bcast_rule_name(o->rule[d]));
			lua_rawseti(L, -2, d + 1);
		}
		lua_setfield(L, -2, "rules");
	}
	if (b->err == BC_OK) {
		lua_createtable(L, b->rank, 0);
		for (int d = 0; d < b->rank; d++) {
			lua_pushinteger(L, (lua_Integer)o->stride[d]);
			lua_rawseti(L, -2, d + 1);
		}
		lua_setfield(L, -2, "strides");
	}
}

/*
** Push the model of a resolution, the explanation's (explain.*.lt) when
** no kernel is planned and the base of model_push_kernel's: the mode,
** the operands with their aligned shapes, rules and strides, the result
** and the error, if any. INPLACE: the result is written into operand 1.
*/
void
model_push_bcast(lua_State *L, const struct bcast *b, int inplace)
{
	static const char *const errs[] = {NULL, "mismatch", "axis", "operands", "too_big"};

	lua_createtable(L, 0, 12);
	set_str(L, "mode", bcast_mode_name(b->mode));
	set_bool(L, "axis_mode", b->axis_mode);
	set_int(L, "axis", b->axis);
	if (b->axis_mode && b->err != BC_ERR_OPERANDS) {
		set_int(L, "placed_at", b->placed_at);
		set_bool(L, "mapped", b->mapped);
		set_int(L, "max_rank", b->max_rank);
		set_int(L, "axis_lo", b->axis_lo);
		set_int(L, "axis_hi", b->axis_hi);
		set_int(L, "neg_lo", b->neg_lo);
		set_int(L, "neg_hi", b->neg_hi);
	}
	set_int(L, "rank", b->rank);
	set_bool(L, "inplace", inplace);
	if (b->mode == BC_AXIS_PLACED)
		set_int(L, "small", b->small + 1);
	lua_createtable(L, b->nops, 0);
	for (int i = 0; i < b->nops; i++) {
		push_operand(L, b, i);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, "operands");
	if (b->err == BC_OK || b->err == BC_ERR_MISMATCH || b->err == BC_ERR_TOO_BIG) {
		int known = b->ncompared - (b->err == BC_ERR_MISMATCH);

		/* result[d]: sizes are known only for dims compared before a mismatch */
		lua_createtable(L, b->rank, 0);
		for (int k = 0; k < known; k++) {
			lua_pushinteger(L, (lua_Integer)b->dim[b->order[k]]);
			lua_rawseti(L, -2, b->order[k] + 1);
		}
		lua_setfield(L, -2, "result");
		/* order: the dims (0-based) in the order compared, a mismatch last */
		set_int_seq(L, "order", b->order, b->ncompared, 0);
		if (b->axis_mode)
			set_int(L, "start", b->start);
	}
	if (b->err == BC_OK) {
		struct shape s;

		bcast_result_shape(b, &s);
		set_int(L, "count", (long long)shape_count(&s));
	}
	if (b->err != BC_OK) {
		lua_createtable(L, 0, 6);
		set_str(L, "kind", errs[b->err]);
		if (b->err == BC_ERR_MISMATCH) {
			set_int(L, "dim", b->err_dim);
			set_int(L, "a", b->err_a + 1);
			set_int(L, "b", b->err_b + 1);
		}
		if (b->err == BC_ERR_AXIS) {
			set_int(L, "lo", b->axis_lo);
			set_int(L, "hi", b->axis_hi);
		}
		set_int_seq(L, "axis_ok", b->axis_ok, b->naxis_ok, 0);
		lua_setfield(L, -2, "err");
	}
}

/*
** Set the loops of plan P: each {extent, tail, widened, strides}, inputs
** then output, and {dim_first, dim_last}, the result's dimensions it
** runs over (0-based).
*/
static void
set_loops(lua_State *L, const struct plan *p)
{
	lua_createtable(L, p->nloops, 0);
	for (int l = 0; l < p->nloops; l++) {
		const struct plan_loop *loop = &p->loop[l];

		lua_createtable(L, 0, 6);
		set_int(L, "extent", (long long)loop->extent);
		set_int(L, "dim_first", loop->dim_first);
		set_int(L, "dim_last", loop->dim_last);
		set_int(L, "tail", (long long)loop->tail);
		set_bool(L, "widened", loop->widened);
		set_bool(L, "chunked", loop->chunked);
		set_bool(L, "moved_in", loop->moved_in);
		set_ints(L, "strides", loop->stride, p->nin + 1);
		lua_rawseti(L, -2, l + 1);
	}
	lua_setfield(L, -2, "loops");
}

/*
** Set how each of the RANK dimensions of the result became plan P's
** loops: dims[d] = {inner_dim, inner_extent, blocker}, the dimension
** (0-based) and trip count of the loop inside it, if any, and the input
** (1-based) that kept it apart from that loop, if any.
*/
static void
set_dims_made(lua_State *L, const struct plan *p, int rank)
{
	lua_createtable(L, rank, 0);
	for (int d = 0; d < rank; d++) {
		lua_createtable(L, 0, 3);
		if (p->dim[d].inner_dim >= 0) {
			set_int(L, "inner_dim", p->dim[d].inner_dim);
			set_int(L, "inner_extent", (long long)p->dim[d].inner_extent);
		}
		if (p->dim[d].blocker >= 0)
			set_int(L, "blocker", p->dim[d].blocker + 1);
		lua_rawseti(L, -2, d + 1);
	}
	lua_setfield(L, -2, "dims");
}

/*
** Whether P's f16 lines keep no signalling NaN anywhere: its f16 output
** (if any) and every input it converts a line at a time.
*/
static int
f16_quiet(const struct plan *p)
{
	int quiet = !p->f16_out_line || p->f16_out_quiet;

	for (int i = 0; i < p->nin; i++)
		quiet &= !p->read[i].staged || p->read[i].quiet;
	return quiet;
}

/* Set the reads of plan P: per input {level (0-based), via_output, widen, staged, quiet}. */
static void
set_reads(lua_State *L, const struct plan *p)
{
	lua_createtable(L, p->nin, 0);
	for (int i = 0; i < p->nin; i++) {
		const struct plan_read *r = &p->read[i];

		lua_createtable(L, 0, 4);
		set_int(L, "level", r->level);
		set_bool(L, "via_output", r->via_output);
		set_bool(L, "widen", r->widen);
		set_bool(L, "staged", r->staged);
		set_bool(L, "quiet", r->quiet);
		set_bool(L, "table", r->table);
		if (r->table)
			set_int(L, "table_count", (long long)r->table_count);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, "reads");
}

/*
** Set the values of K's plan, the root last: each {kind, type, ...} as
** plan.h describes it, indices 1-based, with the text of the expression
** node it computes when the user wrote one.
*/
static void
set_values(lua_State *L, const struct kernel *k)
{
	const struct plan *p = &k->plan;

	lua_createtable(L, p->nvalues, 0);
	for (int i = 0; i < p->nvalues; i++) {
		const struct plan_value *v = &p->value[i];

		lua_createtable(L, 0, 12);
		set_str(L, "kind", plan_kind_spelling[v->kind].name);
		set_str(L, "type", v->type->name);
		set_bool(L, "is_bool", v->is_bool);
		set_int(L, "level", v->level);
		if (v->temp >= 0)
			set_int(L, "temp", v->temp);
		set_bool(L, "split", v->split);
		if (v->kind == VALUE_READ)
			set_int(L, "operand", v->operand + 1);
		if (v->kind == VALUE_LITERAL) {
			set_bool(L, "negative", v->negative);
			set_bool(L, "minimum", v->minimum);
			set_str(L, "digits", v->digits);
		}
		if (v->kind == VALUE_OP) {
			set_str(L, "form", plan_form_spelling[v->form].name);
			if (v->form == FORM_INFIX)
				set_int(L, "binds", v->binds);
			if (v->op) {
				set_str(L, "op", v->op->name);
				if (v->op->helper)
					set_str(L, "helper", v->op->helper);
				if (v->constant_arg)
					set_int(L, "constant_arg", v->constant_arg);
				if (op_needs_libm(v->op, v->calc)) {
					struct strbuf calls = {0};

					op_libm_calls(&calls, v->op, v->calc);
					set_str(L, "libm", calls.s);
					sb_free(&calls);
				}
				set_str(L, "calc", v->calc->name);
			}
		}
		if (v->kind == VALUE_CONVERT)
			set_str(L, "convert", plan_convert_spelling[v->convert].name);
		if (v->kind == VALUE_QUANT) {
			static const char *const steps[] = {"offset", "input", "output"};
			int64_t c[5];

			set_str(L, "step", steps[v->step]);
			set_bool(L, "single", v->single);
			for (int j = 0; j < v->nconstants; j++)
				c[j] = v->constant[j];
			set_ints(L, "constants", c, v->nconstants);
		}
		set_int_seq(L, "args", v->arg, v->nargs, 1);
		if (v->source >= 0 && k->desc->expr.src) {
			struct strbuf text = {0};

			expr_text(&text, &k->desc->expr, v->source);
			set_str(L, "text", text.s);
			sb_free(&text);
		}
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, "values");
	set_int_seq(L, "temps", p->temps, p->ntemps, 1);
}

/*
** What pushing a kernel's code items needs: its inputs, and where on the
** stack the one table of a read from a local is, which every such read
** shares.
*/
struct code_push {
	int nin;
	int local;
};

/*
** Push where AT is: {kind, pointer, offset}, {kind, pointer, loop,
** stride, lane}, {kind} for the line's element, or CP's one table of a
** read from a local; pointers 1-based.
*/
static void
push_at(lua_State *L, const struct code_at *at, const struct code_push *cp)
{
	static const char *const kinds[] = {"local", "pointer", "offset", "index", "line",
	                                    "staged", "float_line", "once"};

	if (at->kind == AT_LOCAL) {
		lua_pushvalue(L, cp->local);
		return;
	}
	lua_createtable(L, 0, 5);
	set_str(L, "kind", kinds[at->kind]);
	if (at->kind < AT_LINE || at->kind == AT_ONCE)
		set_int(L, "pointer", at->pointer + 1);
	if (at->kind == AT_OFFSET)
		set_int(L, "offset", (long long)at->offset);
	if (at->kind == AT_INDEX) {
		set_int(L, "loop", at->loop);
		set_int(L, "stride", at->stride);
		set_bool(L, "lane", at->lane);
	}
}

static void set_code(lua_State *L, const char *key, const struct code_list *list,
                     const struct code_push *cp);

/*
** Push code item IT with the fields of its kind (plan.h): operands,
** values and pointers 1-based, loops 0-based.
*/
static void
push_item(lua_State *L, const struct code_item *it, const struct code_push *cp)
{
	/* each kind's name, and whether it holds other items, in its body */
	static const struct {
		const char *name;
		int holds;
	} kinds[] = {
		[CODE_COUNTERS] = {"counters", 0}, [CODE_POINTER] = {"pointer", 0},
		[CODE_LOCAL] = {"local", 0}, [CODE_TEMP] = {"temp", 0}, [CODE_STORE] = {"store", 0},
		[CODE_LOOP] = {"loop", 1}, [CODE_ELEMENT] = {"element", 1},
		[CODE_STREAM] = {"stream", 1}, [CODE_LINES] = {"lines", 1}, [CODE_IF] = {"if", 1},
		[CODE_WIDEN] = {"widen", 0}, [CODE_QUANT_LINE] = {"quant_line", 0},
		[CODE_QUANT_TABLE] = {"quant_table", 0},
		[CODE_FENCE] = {"fence", 0}, [CODE_ORDER] = {"order", 0}, [CODE_UNUSED] = {"unused", 0}, [CODE_EMPTY] = {"empty", 0}
	};

	luaL_checkstack(L, 8, NULL);	/* a level of the loop nest */
	lua_createtable(L, 0, 8);
	set_str(L, "kind", kinds[it->kind].name);
	switch (it->kind) {
	case CODE_COUNTERS:
		set_int(L, "bits", it->bits);
		set_int_seq(L, "loops", it->loops, it->nloops, 0);
		break;
	case CODE_POINTER:
		set_int(L, "pointer", it->pointer + 1);
		set_int(L, "from", it->from + 1);
		break;
	case CODE_LOCAL:
	case CODE_UNUSED:
		set_int(L, "operand", it->operand + 1);
		break;
	case CODE_QUANT_TABLE:
		set_int(L, "operand", it->operand + 1);
		set_int(L, "to", (long long)it->to);
		set_int(L, "value", it->value + 1);
		break;
	case CODE_QUANT_LINE:
		set_int(L, "loop", it->loop);
		set_int(L, "to", (long long)it->to);
		set_int(L, "pointer", it->pointer + 1);
		/* fall through */
	case CODE_TEMP:
	case CODE_STORE:
		set_int(L, "value", it->value + 1);
		lua_createtable(L, cp->nin, 0);
		for (int i = 0; i < cp->nin; i++) {
			push_at(L, &it->reads[i], cp);
			lua_rawseti(L, -2, i + 1);
		}
		lua_setfield(L, -2, "reads");
		break;
	case CODE_LOOP:
		set_int(L, "loop", it->loop);
		set_bool(L, "lane", it->lane);
		if (!it->from_here)
			set_int(L, "from", 0);
		if (it->to_head)
			set_bool(L, "to_head", 1);
		else if (it->to_share)
			set_bool(L, "to_share", 1);
		else
			set_int(L, "to", (long long)it->to);
		set_bool(L, "elements", it->elements);
		lua_createtable(L, it->nsteps, 0);
		for (int k = 0; k < it->nsteps; k++) {
			lua_createtable(L, 0, 2);
			set_int(L, "pointer", it->steps[k].pointer + 1);
			set_int(L, "by", it->steps[k].by);
			lua_rawseti(L, -2, k + 1);
		}
		lua_setfield(L, -2, "steps");
		break;
	case CODE_ELEMENT:
		if (it->loop >= 0)
			set_int(L, "loop", it->loop);
		lua_createtable(L, it->nwhere, 0);
		for (int k = 0; k < it->nwhere; k++) {
			lua_pushinteger(L, (lua_Integer)it->where[k]);
			lua_rawseti(L, -2, k + 1);
		}
		lua_setfield(L, -2, it->loop >= 0 ? "counters" : "index");
		break;
	case CODE_WIDEN:
		set_int(L, "operand", it->operand + 1);
		set_int(L, "line", it->line);
		set_bool(L, "quiet", it->quiet);
		break;
	case CODE_LINES:
		set_int(L, "line", it->line);
		set_bool(L, "convert", it->convert);
		set_bool(L, "narrow", it->narrow);
		set_bool(L, "quiet", it->quiet);
		/* fall through */
	case CODE_STREAM:
		set_int(L, "loop", it->loop);
		set_int(L, "to", (long long)it->to);
		set_int(L, "pointer", it->pointer + 1);
		break;
	case CODE_IF:
		set_bool(L, "hosted", it->hosted);
		set_code(L, "orelse", &it->orelse, cp);
		break;
	case CODE_FENCE:
	case CODE_ORDER:
	case CODE_EMPTY:
		break;
	}
	if (it->kind == CODE_LOCAL || it->kind == CODE_STORE || it->kind == CODE_WIDEN) {
		push_at(L, &it->at, cp);
		lua_setfield(L, -2, "at");
	}
	if (kinds[it->kind].holds)
		set_code(L, "body", &it->body, cp);
}

/* Set field KEY to the sequence of the code items of LIST. */
static void
set_code(lua_State *L, const char *key, const struct code_list *list,
         const struct code_push *cp)
{
	lua_createtable(L, list->n, 0);
	for (int k = 0; k < list->n; k++) {
		push_item(L, &list->item[k], cp);
		lua_rawseti(L, -2, k + 1);
	}
	lua_setfield(L, -2, key);
}

/*
** Set the code items of plan P, "code", and the pointers they name,
** "pointers": each {operand, loop}, the operand 1-based (the output
** after the inputs), the loop that moves it 0-based, none for the
** parameter itself.
*/
static void
set_plan_code(lua_State *L, const struct plan *p)
{
	struct code_push cp = {p->nin, 0};

	lua_createtable(L, p->npointers, 0);
	for (int k = 0; k < p->npointers; k++) {
		lua_createtable(L, 0, 2);
		set_int(L, "operand", p->pointer[k].operand + 1);
		if (p->pointer[k].loop >= 0)
			set_int(L, "loop", p->pointer[k].loop);
		lua_rawseti(L, -2, k + 1);
	}
	lua_setfield(L, -2, "pointers");
	lua_createtable(L, 0, 1);
	set_str(L, "kind", "local");
	lua_insert(L, -2);	/* below the model, which set_code fills */
	cp.local = lua_gettop(L) - 1;
	set_code(L, "code", &p->code, &cp);
	lua_remove(L, cp.local);
}

/*
** Push the table of the dtypes: for each name, {is_float, is_signed,
** bits, compute}. Made anew for each kernel, so that nothing a template
** writes in it reaches the next.
*/
static void
push_dtypes(lua_State *L)
{
	lua_createtable(L, 0, 12);
	for (const struct dtype *t = dtype_table(); t->name; t++) {
		lua_createtable(L, 0, 4);
		set_bool(L, "is_float", t->is_float);
		set_bool(L, "is_signed", t->is_signed);
		set_int(L, "bits", t->bits);
		if (t->compute)
			set_str(L, "compute", t->compute);
		lua_setfield(L, -2, t->name);
	}
}

/* Set field KEY to multiplier M: {real = "%.9g", mult, shift}. */
static void
set_mult(lua_State *L, const char *key, const struct quant_mult *m)
{
	char real[32];

	snprintf(real, sizeof real, "%.9g", m->real);
	lua_createtable(L, 0, 3);
	set_str(L, "real", real);
	set_int(L, "mult", m->mult);
	set_int(L, "shift", m->shift);
	lua_setfield(L, -2, key);
}

/*
** Set "quant" to the constants of D's quantized kernel (quant.h): the
** scales as "%.9g", which reads back as the same float32, the zero
** points, multipliers and shifts, the range and the rounding; what the
** inputs make ("sum", "difference" or "product") and its operator, and
** the precision TFLite Micro computes the multipliers in.
*/
static void
set_quantized(lua_State *L, const struct desc *d)
{
	const struct quant *q = &d->quant;

	lua_createtable(L, 0, 10);
	set_str(L, "made", q->op == OP_ID_ADD ? "sum" : q->op == OP_ID_SUBTRACT ? "difference"
	                                                                     : "product");
	set_str(L, "operator", expr_operator((enum op_id)q->op));
	set_str(L, "prepared_in", q->op == OP_ID_SUBTRACT ? "float32" : "double");
	set_int(L, "left_shift", q->left_shift);
	set_int(L, "larger", q->scale[1] > q->scale[0] ? 2 : 1);
	set_str(L, "rounding", quant_rounding_names[q->rounding]);
	set_str(L, "activation", quant_activation_names[q->activation]);
	set_int(L, "lo", q->lo);
	set_int(L, "hi", q->hi);
	lua_createtable(L, 3, 0);
	for (int k = 0; k < 3; k++) {
		char scale[32];

		snprintf(scale, sizeof scale, "%.9g", (double)q->scale[k]);
		lua_createtable(L, 0, 3);
		set_str(L, "name", q->name[k]);
		set_str(L, "scale", scale);
		set_int(L, "zero", q->zero[k]);
		if (k < 2 && q->op != OP_ID_MULTIPLY)
			set_mult(L, "mult", &q->in[k]);
		lua_rawseti(L, -2, k + 1);
	}
	lua_setfield(L, -2, "operands");
	set_mult(L, "out", &q->out);
	lua_setfield(L, -2, "quant");
}

/*
** Push the model of kernel K for templates/kernel.c.lt and kernel.h.lt,
** and for the explanation of a kernel that was planned: the model of its
** broadcast (model_push_bcast) with the operands cut to the inputs, its
** names and types, and its plan as data.
*/
void
model_push_kernel(lua_State *L, const struct kernel *k)
{
	static const char *const stores[] = {"as_is", "f16", "f16_f64"};
	static const char *const streams[] = {"none", "sized", "asked"};
	static const char *const parallels[] = {"not_asked", "yes", "one_core", "small", "one_loop"};
	static const char *const whys[] = {"asked", "empty", "small", "odd", "short", "multiple",
	                                   "no_block", "size", "scalar", "stream", "quant_lines"};
	const struct desc *d = k->desc;
	const struct plan *p = &k->plan;
	const struct bcast *b = &k->b;
	int64_t out_strides[SHAPE_MAX_RANK], acc = 1;

	model_push_bcast(L, b, d->inplace);
	lua_getfield(L, -1, "operands");
	for (int i = 0; i < d->nops; i++) {
		lua_rawgeti(L, -1, i + 1);
		set_str(L, "dtype", d->stored[i]->name);
		lua_pop(L, 1);
	}
	lua_pop(L, 1);

	lua_newtable(L);
	lua_setfield(L, -2, "declared");
	set_str(L, "name", k->name);
	set_str(L, "command", k->command);
	set_str(L, "formula", k->formula);
	set_bool(L, "expr", d->expr_src != NULL);
	set_str(L, "dtype", d->dtype->name);
	set_bool(L, "promoted", d->promoted);
	set_str(L, "out_dtype", k->out_dtype->name);
	for (int dim = b->rank - 1; dim >= 0; dim--) {
		out_strides[dim] = acc;
		acc *= (int64_t)b->dim[dim];
	}
	set_ints(L, "out_strides", out_strides, b->rank);

	push_dtypes(L);
	lua_setfield(L, -2, "dtypes");
	set_str(L, "strategy", plan_strategy_name(p->strategy));
	set_str(L, "why", whys[p->why]);
	set_int(L, "unroll_limit", (long long)p->unroll_limit);
	set_int(L, "unroll_nodes", p->unroll_nodes);
	set_int(L, "code_budget", (long long)p->code_budget);
	set_int(L, "loop_nodes", d->target->loop_nodes);
	set_int(L, "expr_nodes", d->expr.n);
	set_int(L, "code_growth", PLAN_CODE_GROWTH);
	set_int(L, "block_max", d->target->block_max);
	set_int(L, "unroll_budget", PLAN_UNROLL_NODES);
	set_dims_made(L, p, b->rank);
	set_str(L, "store", stores[p->store]);
	set_bool(L, "reordered", p->reordered);
	lua_createtable(L, p->nrebuilt, 0);	/* the names of the inputs a block reads again */
	for (int j = 0; j < p->nrebuilt; j++) {
		lua_pushstring(L, b->ops[p->rebuilt[j]].name);
		lua_rawseti(L, -2, j + 1);
	}
	lua_setfield(L, -2, "rebuilt");
	set_int(L, "block", p->nblock);
	set_int(L, "block_count", (long long)p->block_count);
	set_int(L, "lanes", p->lanes);
	set_str(L, "target", k->desc->target->name);
	set_int(L, "vector_bytes", k->desc->target->vector_bytes);
	set_int(L, "align_loops", p->align_loops);
	set_bool(L, "slp_only", p->slp_only);
	set_bool(L, "vectors_512", p->vectors_512);
	set_bool(L, "sched_pressure", p->sched_pressure);
	set_bool(L, "no_vector_loads", p->no_vector_loads);
	set_bool(L, "quant_line", p->quant_line);
	if (d->target->quant_lines)
		set_str(L, "quant_lines", d->target->quant_lines);
	set_bool(L, "has_loops", p->has_loops);
	set_bool(L, "contract", p->contract);
	set_str(L, "stream", streams[p->stream]);
	set_int(L, "line", p->line);
	set_int(L, "f16_line", p->f16_line);
	set_bool(L, "f16_quiet", p->f16_line && f16_quiet(p));
	set_bool(L, "f16_not_streamed", p->f16_not_streamed);
	set_bool(L, "f16_found", d->target->f16_convert == F16_FOUND);
	set_bool(L, "stream_unpaid", p->stream_unpaid);
	set_int(L, "store_order", p->store_order);
	set_str(L, "tune", d->tune->name);
	set_str(L, "parallel", parallels[p->parallel]);
	set_int(L, "parallel_min", (long long)d->target->parallel_min);
	set_int(L, "parallel_chunks", PLAN_CHUNKS);
	/* past what Lua's integers hold, the data are "more than" that */
	set_int(L, "bytes", (long long)(p->bytes > LLONG_MAX ? LLONG_MAX : p->bytes));
	set_bool(L, "bytes_past", p->bytes > LLONG_MAX);
	set_int(L, "cache_size", (long long)k->desc->cache_size);
	set_str(L, "optimize", p->goal == GOAL_SIZE ? "size" : "speed");
	set_bool(L, "needs_size64", p->needs_size64);
	set_loops(L, p);
	set_reads(L, p);
	set_values(L, k);
	if (d->quantized)
		set_quantized(L, d);
	set_plan_code(L, p);
	/* the levels by which the plan counts brackets, for templates/c.lua */
	lua_createtable(L, 0, 6);
	set_int(L, "ternary", PREC_TERNARY);
	set_int(L, "equality", PREC_EQUALITY);
	set_int(L, "add", PREC_ADD);
	set_int(L, "mul", PREC_MUL);
	set_int(L, "unary", PREC_UNARY);
	set_int(L, "primary", PREC_PRIMARY);
	lua_setfield(L, -2, "precedence");
}

/*
** Add to NS the names that the templates rendered with the model at
** index IDX declared (its field "declared", see lib.lua), as names of
** kernel KERNEL (-1: the file's).
*/
void
model_read_declared(lua_State *L, int idx, struct names *ns, int kernel)
{
	lua_getfield(L, idx, "declared");
	for (lua_Integer i = 1; lua_rawgeti(L, -1, i) == LUA_TTABLE; i++) {
		lua_getfield(L, -1, "name");
		lua_getfield(L, -2, "what");
		lua_getfield(L, -3, "file");
		if (lua_type(L, -3) == LUA_TSTRING && lua_type(L, -2) == LUA_TSTRING)
			names_add(ns, lua_tostring(L, -3), lua_tostring(L, -2), kernel, 0,
			          lua_toboolean(L, -1));
		lua_pop(L, 4);
	}
	lua_pop(L, 2);
}

/*
** Push the model of the files: their base names (and the spec's, when
** they come from one) and what some kernel needs of the runtime; their
** kernels' parts go into "kernels" (model_set_parts).
*/
void
model_push_files(lua_State *L, const struct model_files *f)
{
	lua_createtable(L, 0, 8);
	set_str(L, "file", f->file);
	set_str(L, "header", f->header);
	set_bool(L, "libm", f->libm);
	set_bool(L, "stream", f->stream);
	set_bool(L, "contract", f->contract);
	set_bool(L, "f16", f->f16);
	set_bool(L, "f16_lines", f->f16_lines);
	set_bool(L, "quant", f->quant);
	lua_newtable(L);
	lua_setfield(L, -2, "declared");
	if (f->spec)
		set_str(L, "spec", f->spec);
}

/*
** Set field KEY of the table on top to the sequence PARTS[0..N), each
** without its final newline.
*/
void
model_set_parts(lua_State *L, const char *key, const struct strbuf *parts, int n)
{
	lua_createtable(L, n, 0);
	for (int i = 0; i < n; i++) {
		size_t len = parts[i].len;

		lua_pushlstring(L, parts[i].s ? parts[i].s : "",
		                len && parts[i].s[len - 1] == '\n' ? len - 1 : len);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, key);
}

/* Set field KEY of the table on top to TEXT, "" for NULL. */
void
model_set_text(lua_State *L, const char *key, const char *text)
{
	set_str(L, key, text ? text : "");
}

/*
** Push the model of an explanation of the kernel D: kernel K's, when it
** was planned (else NULL), or its broadcast B's alone; with D's
** language, how deep it walks (DEPTH: "rule", "strides" or "kernel"),
** the text's width (COLUMNS, 0: a paragraph a line),
** whether --elements lists the elements (ELEMENTS, for a planned
** kernel), whether --values arange fills the operands (ARANGE, for a
** planned kernel), why no kernel was made (NO_KERNEL, or NULL), and the formula
** with its operands marked.
*/
void
model_push_explain(lua_State *L, const struct kernel *k, const struct bcast *b,
                   const struct desc *d, const char *depth, int columns, int elements,
                   int arange, const char *no_kernel)
{
	if (k)
		model_push_kernel(L, k);
	else
		model_push_bcast(L, b, d->inplace);
	set_str(L, "lang", lang_names[d->lang]);
	set_str(L, "depth", depth);
	set_int(L, "wrap_columns", columns);
	set_bool(L, "elements", elements && k);
	set_bool(L, "arange", arange && k);
	if (no_kernel)
		set_str(L, "no_kernel", no_kernel);
	if (k) {
		struct strbuf marked = {0};

		desc_formula_marked(&marked, d);
		set_str(L, "formula_marked", marked.s);
		sb_free(&marked);
	}
}
