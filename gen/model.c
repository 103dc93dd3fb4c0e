/*
** model.c: turn the results of the C phases into Lua tables for the
** templates. Arrays are 1-based Lua sequences; dimension numbers stored
** in fields are 0-based, as printed. Nothing here decides anything: it
** copies what bcast.c found.
*/
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

/* Set field KEY to the sequence of sizes DIM[0..N). */
static void
set_dims(lua_State *L, const char *key, const uint64_t *dim, int n)
{
	lua_createtable(L, n, 0);
	for (int i = 0; i < n; i++) {
		lua_pushinteger(L, (lua_Integer)dim[i]);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, key);
}

/* Push the table for operand I of B. */
static void
push_operand(lua_State *L, const struct bcast *b, int i)
{
	const struct bcast_operand *o = &b->op[i];
	int checked_from = b->err == BC_ERR_MISMATCH ? b->err_dim : 0;

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
		for (int d = checked_from; d < b->rank; d++) {
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
** Push the model of a resolution for templates/explain.txt.lt: the mode,
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
		int from = b->err == BC_ERR_MISMATCH ? b->err_dim + 1 : 0;

		/* result[d]: sizes are known only for dims compared so far */
		lua_createtable(L, b->rank, 0);
		for (int d = from; d < b->rank; d++) {
			lua_pushinteger(L, (lua_Integer)b->dim[d]);
			lua_rawseti(L, -2, d + 1);
		}
		lua_setfield(L, -2, "result");
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
		lua_createtable(L, b->naxis_ok, 0);
		for (int k = 0; k < b->naxis_ok; k++) {
			lua_pushinteger(L, b->axis_ok[k]);
			lua_rawseti(L, -2, k + 1);
		}
		lua_setfield(L, -2, "axis_ok");
		lua_setfield(L, -2, "err");
	}
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

/* Set the loops of plan P: each {extent, strides = {inputs..., output}}. */
static void
set_loops(lua_State *L, const struct plan *p)
{
	lua_createtable(L, p->nloops, 0);
	for (int l = 0; l < p->nloops; l++) {
		lua_createtable(L, 0, 2);
		set_int(L, "extent", (long long)p->extent[l]);
		set_ints(L, "strides", p->stride[l], p->nin + 1);
		lua_rawseti(L, -2, l + 1);
	}
	lua_setfield(L, -2, "loops");
}

/*
** Set field KEY to the value stored in each element: the root of K's
** computation converted to the output's dtype. With USE_TEMPS, the
** temporaries appear by name.
*/
static void
set_result(lua_State *L, const char *key, const struct kernel *k, int use_temps)
{
	const struct expr *e = k->expr;
	struct ctext v, r;

	expr_value(&v, e, e->root, k->dtype, k->in_dtype, use_temps);
	dtype_convert(&r, &v, e->node[e->root].type, k->out_dtype);
	set_str(L, key, r.s.s);
	sb_free(&v.s);
	sb_free(&r.s);
}

/*
** Set the temporaries of K: each {name, ctype, level, expr, text}, computed
** just before loop LEVEL (0-based) from EXPR; TEXT is its source, if any.
*/
static void
set_temps(lua_State *L, const struct kernel *k)
{
	lua_createtable(L, k->ntemps, 0);
	for (int j = 0; j < k->ntemps; j++) {
		int i = k->temps[j].node;
		struct strbuf sb = {0};
		struct ctext name, def;

		expr_value(&name, k->expr, i, k->dtype, k->in_dtype, 1);
		expr_emit(&def, k->expr, i, k->dtype, k->in_dtype, 1);
		lua_createtable(L, 0, 5);
		set_str(L, "name", name.s.s);
		set_str(L, "ctype", k->expr->node[i].type->ctype);
		set_int(L, "level", k->temps[j].level);
		set_str(L, "expr", def.s.s);
		sb_free(&name.s);
		sb_free(&def.s);
		if (k->expr->src) {
			expr_text(&sb, k->expr, i);
			set_str(L, "text", sb.s);
			sb_free(&sb);
		}
		lua_rawseti(L, -2, j + 1);
	}
	lua_setfield(L, -2, "temps");
}

/*
** Push the model of kernel K for templates/kernel.c.lt and kernel.h.lt:
** the model of its broadcast (model_push_bcast) with the operands cut to
** the inputs, and the kernel's names, types, expression and plan.
*/
void
model_push_kernel(lua_State *L, const struct kernel *k)
{
	const struct plan *p = &k->plan;
	const struct bcast *b = &k->b;
	struct strbuf sb = {0};
	int64_t out_strides[SHAPE_MAX_RANK], acc = 1;

	model_push_bcast(L, b, k->inplace);
	lua_getfield(L, -1, "operands");
	for (int i = 0; i < b->nops; i++) {
		lua_rawgeti(L, -1, i + 1);
		if (i < k->nin) {
			set_str(L, "ctype", k->in_dtype[i]->ctype);
			set_str(L, "dtype", k->in_dtype[i]->name);
			set_int(L, "hoist", p->hoist[i]);
			set_int(L, "uses", expr_uses(k->expr, i));
		}
		lua_pop(L, 1);
		if (i >= k->nin) {	/* the --out-shape of copy: not an input */
			lua_pushnil(L);
			lua_rawseti(L, -2, i + 1);
		}
	}
	lua_pop(L, 1);

	set_str(L, "name", k->name);
	for (const char *c = k->name; *c; c++)
		sb_printf(&sb, "%c", *c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
	set_str(L, "NAME", sb.s);
	sb_free(&sb);
	set_str(L, "command", k->command);
	set_str(L, "formula", k->formula);
	set_str(L, "dtype", k->dtype->name);
	set_str(L, "ctype", k->dtype->ctype);
	set_str(L, "out_dtype", k->out_dtype->name);
	set_str(L, "out_ctype", k->out_dtype->ctype);
	set_bool(L, "libm", expr_needs_libm(k->expr));
	set_result(L, "expr", k, 0);
	set_result(L, "loop_expr", k, 1);
	set_temps(L, k);

	set_str(L, "strategy", plan_strategy_name(p->strategy));
	for (int d = b->rank - 1; d >= 0; d--) {
		out_strides[d] = acc;
		acc *= (int64_t)b->dim[d];
	}
	set_ints(L, "out_strides", out_strides, b->rank);
	set_loops(L, p);
	if (p->strategy == PLAN_UNROLL) {
		uint64_t n = p->count * (uint64_t)p->nin;

		lua_createtable(L, (int)n, 0);
		for (uint64_t j = 0; j < n; j++) {
			lua_pushinteger(L, (lua_Integer)p->offset[j]);
			lua_rawseti(L, -2, (lua_Integer)j + 1);
		}
		lua_setfield(L, -2, "offsets");
	}
}
