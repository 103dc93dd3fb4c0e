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
