/*
** spec.c: spec files, many kernels in one Lua file.
**
**   kernel "bias_add" { op = "add", "x=8,64,56,56", "b=64,1,1" }
**
** The array part holds the operands, in order, written as on the command
** line; the hash part the options, named as the long options with '_'
** for '-' (out_dtype = "u8"). Each kernel fills a description through
** the same table of fields as the command line (fields.c), so both share
** one set of checks and messages. defaults { optimize = "size" } sets
** fields for the kernels declared after it; a kernel's own fields win.
**
** A spec never drops a value it cannot read: reading a global that is
** not defined (op = mul, for "mul") is an error at its line, and so is
** giving a new global any value but a function (a spec's helpers), a
** kernel's table with a metatable (its fields could come from code that
** runs while they are read), and a kernel declared but never given its
** table. Such errors, as those about a kernel's fields, end the spec as
** a limit does: pcall cannot catch them.
**
** The file runs in its own Lua state with lhost.c's safe libraries (no
** io, os, package, debug or coroutine), without load, print, warn or
** collectgarbage either, no bytecode, and within bounds, so that a
** hostile or buggy spec cannot hang or exhaust the build:
**
**   - SPEC_MEMORY bytes of Lua memory, and SPEC_MAX_KERNELS kernels;
**   - SPEC_MAX_STEPS * SPEC_STEPS instructions, and SPEC_SECONDS of
**     processor time (one instruction may compare two long strings).
**     Once past either, or out of memory, the count hook fires on every
**     instruction and pcall raises the error again, so that a spec
**     cannot catch it;
**   - no work in one C call that the hook cannot stop: string has no
**     pattern functions (find, match, gmatch, gsub: backtracking is
**     exponential), table has no move, table.insert and table.remove
**     refuse a table with a metatable (whose __len could make them loop
**     forever), setmetatable refuses __gc (finalizers run without hooks),
**     and the strings' metatable is hidden.
**
** Every Lua call runs inside one protected call, so running out of
** memory is an error at the spec like any other.
*/
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>

#include "cli.h"
#include "lhost.h"
#include "names.h"
#include "spec.h"
#include "speclex.h"

#define SPEC_MEGABYTES 64		/* memory a spec may allocate */
#define SPEC_MEMORY ((size_t)SPEC_MEGABYTES << 20)
#define SPEC_MILLIONS 100		/* instructions a spec may run, in millions */
#define SPEC_STEPS 1000			/* instructions between hook calls */
#define SPEC_MAX_STEPS (SPEC_MILLIONS * 1000)	/* hook calls */
#define SPEC_SECONDS 10			/* processor time a spec may take */
#define SPEC_MAX_KERNELS 10000		/* kernels a spec may declare */
#define DECLARED_KEY "bcastgen.declared"	/* registry: kernel name -> line */
#define DEFAULTS_KEY "bcastgen.defaults"	/* registry: the defaults' fields */
#define UNGIVEN_KEY "bcastgen.ungiven"	/* registry: kernel name -> line, until its table */

#define STR(x) STR_(x)
#define STR_(x) #x

/* The errors of the limits, once passed. */
static const char steps_message[] = "the spec runs too long (more than "
	STR(SPEC_MILLIONS) " million instructions)";
static const char time_message[] = "the spec runs too long (more than "
	STR(SPEC_SECONDS) " s of processor time)";
static const char memory_message[] = "not enough memory (a spec may use "
	STR(SPEC_MEGABYTES) " MB)";

struct reader {
	struct lhost_memory memory;	/* first: the allocator's */
	struct spec *spec;
	const char *chunk;	/* the spec's name in messages */
	const struct strbuf *src;	/* its text */
	int steps;		/* hook calls so far */
	clock_t start;		/* processor time when the spec started */
	const char *over;	/* the error that ends the spec: a limit's, or fatal.s */
	struct strbuf fatal;	/* a spec error: "CHUNK:LINE: MSG" */
	int defaults_line;	/* the line of the defaults in force, or 0 */
	struct desc scratch;	/* where defaults' fields are checked */
	struct desc pending;	/* the kernel being read, until its table is */
	int defaults_nth;	/* the calls given a table before it on its line */
	int last_line;		/* the line of the last call given a table */
	int on_line;		/* such calls on it so far */
};

/*
** Count hook: stop a spec that runs too long. Once past a limit, fire
** on every instruction, so that the error, even caught, comes back at
** the next instruction of whatever caught it.
*/
static void
step_hook(lua_State *L, lua_Debug *ar)
{
	struct reader *r;

	(void)ar;
	lua_getallocf(L, (void **)&r);
	if (!r->over && ++r->steps > SPEC_MAX_STEPS)
		r->over = steps_message;
	if (!r->over && (double)(clock() - r->start) > (double)SPEC_SECONDS * CLOCKS_PER_SEC)
		r->over = time_message;
	if (r->over) {
		lua_sethook(L, step_hook, LUA_MASKCOUNT, 1);
		lua_pushstring(L, r->over);
		lua_error(L);
	}
}

/*
** End the spec with the error MSG, a limit's, unless an error ended it
** already: from now on the count hook and every pcall raise it again, so
** that the spec cannot catch it.
*/
static int
end_spec(lua_State *L, struct reader *r, const char *msg)
{
	if (!r->over)
		r->over = msg;
	lua_sethook(L, step_hook, LUA_MASKCOUNT, 1);
	lua_pushstring(L, r->over);
	return lua_error(L);
}

/* End the spec with the error on top of the stack, a spec error. */
static int
raise_fatal(lua_State *L, struct reader *r)
{
	if (!r->over) {
		sb_add(&r->fatal, lua_tostring(L, -1));
		r->over = r->fatal.s;
	}
	return end_spec(L, r, r->over);
}

/* End the spec with an error at the place of the Lua code that runs. */
static int
fail_here(lua_State *L, const char *fmt, ...)
{
	struct reader *r;
	va_list ap;

	lua_getallocf(L, (void **)&r);
	luaL_where(L, 1);
	va_start(ap, fmt);
	lua_pushvfstring(L, fmt, ap);
	va_end(ap);
	lua_concat(L, 2);
	return raise_fatal(L, r);
}

/* End the spec with the error "CHUNK:LINE: MSG". */
static int
spec_error(lua_State *L, struct reader *r, int line, const char *fmt, ...)
{
	va_list ap;

	lua_pushfstring(L, "%s:%d: ", r->chunk, line);
	va_start(ap, fmt);
	lua_pushvfstring(L, fmt, ap);
	va_end(ap);
	lua_concat(L, 2);
	return raise_fatal(L, r);
}

/*
** A table of fields: a kernel's (who "kernel 'k'") or the defaults'
** (who "defaults"), written by the call on line LINE.
*/
struct fields_table {
	int idx;		/* its stack index */
	int line;
	int nth;		/* the calls given a table before it on its line */
	const char *who;
	int operands;		/* it lists operands: a kernel's */
};

/*
** The line the field NAME (NULL: operand INDEX, 1-based) of T is written
** on, if its table is written out at its call; else T's line.
*/
static int
field_line(lua_State *L, const struct reader *r, const struct fields_table *t,
           const char *name, int index)
{
	return speclex_field_line(r->src->s ? r->src->s : "", r->src->len, t->line, t->nth,
	                          (int)lua_rawlen(L, t->idx), name, index);
}

/* Raise "CHUNK:LINE: WHO: ERR" for T's field NAME (or operand INDEX); ERR is freed. */
static int
field_error(lua_State *L, struct reader *r, const struct fields_table *t,
            const char *name, int index, struct strbuf *err)
{
	lua_pushstring(L, err->s);
	sb_free(err);
	return spec_error(L, r, field_line(L, r, t, name, index), "%s: %s", t->who,
	                  lua_tostring(L, -1));
}

/* Return whether the string at IDX holds a NUL byte, which C would cut it at. */
static int
has_nul(lua_State *L, int idx)
{
	size_t len;
	const char *str = lua_tolstring(L, idx, &len);

	return strlen(str) != len;
}

/*
** Append the text of element I of the pair at IDX, a scale or a zero
** point, as --quant takes it: a string as written; a number's value,
** a scale rounded to float32 first ("%.9g" reads back as that float),
** a zero point as an integer. Return 0, or -1 if it is neither.
*/
static int
pair_text(lua_State *L, int idx, int i, struct strbuf *sb)
{
	int type = lua_rawgeti(L, idx, i), ok = 1;

	if (type == LUA_TSTRING && !has_nul(L, -1))
		sb_add(sb, lua_tostring(L, -1));
	else if (type == LUA_TNUMBER && i == 2 && lua_isinteger(L, -1))
		sb_printf(sb, "%lld", (long long)lua_tointeger(L, -1));
	else if (type == LUA_TNUMBER && i == 2 && lua_tonumber(L, -1) == floor(lua_tonumber(L, -1))
	         && fabs(lua_tonumber(L, -1)) < 1e18)
		sb_printf(sb, "%.0f", (double)lua_tonumber(L, -1));
	else if (type == LUA_TNUMBER && i == 1) {
		double v = (double)lua_tonumber(L, -1);

		if (v > 0 && v <= FLT_MAX)
			sb_printf(sb, "%.9g", (double)(float)v);
		else
			sb_printf(sb, "%g", v);	/* which --quant refuses, as it reads */
	} else
		ok = 0;
	lua_pop(L, 1);
	return ok ? 0 : -1;
}

/* Compare two strings for qsort. */
static int
compare_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
** Set row K, a field that repeats (quant), from the table on top of the
** stack, written in T: { x = {0.0472, -3}, out = {"0.081", -1} }, each
** name's pair set as "--quant x=0.0472,-3" would be, in the order of
** the names, so that a message is the same from run to run.
*/
static void
set_pairs(lua_State *L, struct reader *r, const struct fields_table *t, struct desc *d, int k)
{
	struct strbuf err = {0}, text = {0};
	const char *name = field_name(k), **keys;
	int n = 0, top = lua_gettop(L);

	if (!lua_istable(L, -1) || lua_getmetatable(L, -1)) {
		sb_printf(&err, "field '%s': expected a table without a metatable, such as "
		          "{ x = {0.0472, -3}, y = {0.0123, 5}, out = {0.081, -1} }", name);
		field_error(L, r, t, name, 0, &err);
	}
	for (lua_pushnil(L); lua_next(L, top); lua_pop(L, 1))
		n++;
	if (n == 0) {	/* else the kernel would not be quantized, silently */
		sb_printf(&err, "field '%s': the table is empty: give a pair for each operand "
		          "and for out, such as { x = {0.0472, -3}, y = {0.0123, 5}, "
		          "out = {0.081, -1} }", name);
		field_error(L, r, t, name, 0, &err);
	}
	/* Lua's memory, which an error leaves to the collector */
	keys = lua_newuserdatauv(L, (size_t)n * sizeof *keys, 0);
	n = 0;
	for (lua_pushnil(L); lua_next(L, top); lua_pop(L, 1)) {
		if (lua_type(L, -2) != LUA_TSTRING || has_nul(L, -2)) {
			sb_printf(&err, "field '%s': its keys are the operands' names and out", name);
			field_error(L, r, t, name, 0, &err);
		}
		keys[n++] = lua_tostring(L, -2);	/* kept alive by the table */
	}
	qsort(keys, (size_t)n, sizeof *keys, compare_names);
	for (int j = 0; j < n; j++) {
		int pair;

		lua_getfield(L, top, keys[j]);
		pair = lua_gettop(L);
		sb_free(&text);
		sb_printf(&text, "%s=", keys[j]);
		if (!lua_istable(L, pair) || lua_rawlen(L, pair) != 2 || pair_text(L, pair, 1, &text)
		    || (sb_add(&text, ","), pair_text(L, pair, 2, &text))) {
			sb_printf(&err, "field '%s': '%s' needs {SCALE, ZERO_POINT}, such as "
			          "{0.0472, -3}", name, keys[j]);
			sb_free(&text);
			field_error(L, r, t, name, 0, &err);
		}
		sb_printf(&err, "field '%s': ", name);
		if (field_set(d, k, text.s, &err) != 0) {
			sb_free(&text);
			field_error(L, r, t, name, 0, &err);
		}
		sb_free(&err);
		lua_pop(L, 1);
	}
	lua_pop(L, 1);	/* the keys */
	sb_free(&text);
}

/*
** Set row K of the field table in D from the value on top of the stack,
** written in T; a float with an integer's value counts as that integer.
*/
static void
set_field(lua_State *L, struct reader *r, const struct fields_table *t,
          struct desc *d, int k)
{
	struct strbuf err = {0};
	const char *name = field_name(k);
	int type = lua_type(L, -1);
	int exact;
	lua_Integer i;

	if (field_repeats(k)) {
		set_pairs(L, r, t, d, k);
		return;
	}
	if (!field_takes_value(k) && type != LUA_TBOOLEAN) {
		sb_printf(&err, "field '%s': expected true or false, not a %s", name,
		          lua_typename(L, type));
		field_error(L, r, t, name, 0, &err);
	}
	if (type == LUA_TNUMBER && !lua_isinteger(L, -1)) {
		lua_Number x = lua_tonumber(L, -1);

		i = lua_tointegerx(L, -1, &exact);
		if (!exact) {
			sb_printf(&err, "field '%s': ", name);
			if (isnan(x))
				sb_add(&err, "nan is not an integer");
			else if (isinf(x))
				sb_printf(&err, "%sinf is not an integer", x < 0 ? "-" : "");
			else if (x == floor(x))
				sb_printf(&err, "%s is beyond a 64-bit integer", lua_tostring(L, -1));
			else
				sb_printf(&err, "%s is not an integer", lua_tostring(L, -1));
			field_error(L, r, t, name, 0, &err);
		}
		lua_pop(L, 1);
		lua_pushinteger(L, i);
	}
	if (field_takes_value(k) && type != LUA_TSTRING && type != LUA_TNUMBER) {
		sb_printf(&err, "field '%s': expected a string or an integer, not a %s",
		          name, lua_typename(L, type));
		field_error(L, r, t, name, 0, &err);
	}
	if (type == LUA_TBOOLEAN && !lua_toboolean(L, -1))
		return;
	if (type == LUA_TSTRING && has_nul(L, -1)) {
		sb_printf(&err, "field '%s': the value holds a NUL byte", name);
		field_error(L, r, t, name, 0, &err);
	}
	lua_pushvalue(L, -1);	/* lua_tostring converts an integer in place */
	sb_printf(&err, "field '%s': ", name);
	if (field_set(d, k, type == LUA_TBOOLEAN ? "" : lua_tostring(L, -1), &err) != 0)
		field_error(L, r, t, name, 0, &err);
	lua_pop(L, 1);
	sb_free(&err);
}

/*
** Check the keys of T: its operands, if it lists them, and field names;
** report the least other key, so that the message is fixed.
*/
static void
check_keys(lua_State *L, struct reader *r, const struct fields_table *t)
{
	struct strbuf err = {0};
	const char *unknown = NULL;
	lua_Integer nops = t->operands ? (lua_Integer)lua_rawlen(L, t->idx) : 0;

	lua_pushnil(L);
	while (lua_next(L, t->idx)) {
		lua_pop(L, 1);
		if (lua_isinteger(L, -1) && lua_tointeger(L, -1) >= 1 && lua_tointeger(L, -1) <= nops)
			continue;	/* an operand */
		if (lua_type(L, -1) != LUA_TSTRING) {
			sb_add(&err, t->operands || !lua_isinteger(L, -1)
			       ? "a key that is not a field name (operands are the "
			         "strings in order: \"x=2,3\", \"y=3\")"
			       : "the operands belong to each kernel: defaults takes fields only");
			field_error(L, r, t, NULL, 0, &err);
		}
		if (has_nul(L, -1)) {
			sb_add(&err, "a field name holds a NUL byte");
			field_error(L, r, t, NULL, 0, &err);
		}
		if (field_find(lua_tostring(L, -1), FROM_SPEC) < 0
		    && (!unknown || strcmp(lua_tostring(L, -1), unknown) < 0))
			unknown = lua_tostring(L, -1);	/* a key of the table: kept alive */
	}
	if (unknown) {
		sb_printf(&err, "unknown field '%s' (there are ", unknown);
		field_list(&err);
		sb_add(&err, t->operands ? ", and the operands)" : ")");
		field_error(L, r, t, unknown, 0, &err);
	}
}

/* Fields of which a kernel gives one: its own stands for the pair. */
static const char *const one_of[][2] = {{"op", "expr"}};

/* Return the other field of the pair NAME is in, or NULL. */
static const char *
other_of_pair(const char *name)
{
	for (size_t i = 0; i < sizeof one_of / sizeof one_of[0]; i++)
		for (int j = 0; j < 2; j++)
			if (strcmp(name, one_of[i][j]) == 0)
				return one_of[i][!j];
	return NULL;
}

/* Push field NAME of the table at IDX, raw; return its type. */
static int
raw_field(lua_State *L, int idx, const char *name)
{
	lua_pushstring(L, name);
	return lua_rawget(L, idx);
}

/*
** Push field NAME of the kernel's table K, or, where K has none, of the
** defaults in force, unless K gives the other field of NAME's pair; set
** *FROM to the table it came from.
*/
static int
get_field(lua_State *L, const struct reader *r, const struct fields_table *k,
          const struct fields_table **from, const struct fields_table *defaults,
          const char *name)
{
	const char *other = other_of_pair(name);
	int own_other;

	*from = k;
	if (raw_field(L, k->idx, name) != LUA_TNIL || !r->defaults_line)
		return lua_type(L, -1);
	if (other) {
		own_other = raw_field(L, k->idx, other) != LUA_TNIL;
		lua_pop(L, 1);
		if (own_other)
			return LUA_TNIL;	/* the nil pushed first */
	}
	lua_pop(L, 1);
	*from = defaults;
	return raw_field(L, defaults->idx, name);
}

/* End the spec if the table T has a metatable: its fields are read raw. */
static void
check_plain(lua_State *L, struct reader *r, const struct fields_table *t)
{
	if (lua_getmetatable(L, t->idx))
		spec_error(L, r, t->line, "%s: its table has a metatable: write its fields "
		           "in the table itself", t->who);
}

/*
** kernel "NAME" { ... } calls this with the table: describe the kernel,
** and add it to the spec once the whole table is read. Upvalues: the
** name, the line of the call, whether it ran already, and the calls
** given a table before it on that line.
*/
static int
l_kernel_body(lua_State *L)
{
	struct reader *r;
	struct spec *s;
	struct desc *d;
	struct strbuf err = {0}, who = {0};
	struct fields_table k, defaults;
	const struct fields_table *from;
	const char *name = lua_tostring(L, lua_upvalueindex(1));
	int line = (int)lua_tointeger(L, lua_upvalueindex(2));
	lua_Integer n;
	int lang;

	lua_getallocf(L, (void **)&r);
	if (lua_toboolean(L, lua_upvalueindex(3)))
		spec_error(L, r, line, "kernel '%s' is given a table twice", name);
	lua_pushboolean(L, 1);
	lua_replace(L, lua_upvalueindex(3));
	s = r->spec;
	if (s->n == SPEC_MAX_KERNELS)
		spec_error(L, r, line, "more than %d kernels in one spec", SPEC_MAX_KERNELS);
	if (!lua_istable(L, 1) || lua_gettop(L) != 1)
		spec_error(L, r, line, "kernel '%s' needs one table: kernel \"%s\" "
		           "{ op = \"add\", \"x=2,3\", \"y=3\" }", name, name);
	sb_printf(&who, "kernel '%s'", name);
	lua_pushstring(L, who.s);	/* kept alive on the stack, at 2 */
	sb_free(&who);
	k = (struct fields_table){1, line, (int)lua_tointeger(L, lua_upvalueindex(4)),
	                          lua_tostring(L, 2), 1};
	check_plain(L, r, &k);
	lua_getfield(L, LUA_REGISTRYINDEX, DEFAULTS_KEY);
	defaults = (struct fields_table){3, r->defaults_line, r->defaults_nth, "defaults", 0};
	d = &r->pending;
	desc_free(d);
	desc_init(d, FROM_SPEC);
	d->name = xstrdup(name);
	d->line = line;
	d->line_nth = k.nth;
	/* the language first: the messages about the operands speak it too */
	if (get_field(L, r, &k, &from, &defaults, "lang") == LUA_TSTRING
	    && (lang = find_name(lang_names, NLANGS, lua_tostring(L, -1))) >= 0)
		d->lang = (enum lang)lang;
	lua_pop(L, 1);
	n = (lua_Integer)lua_rawlen(L, 1);
	for (lua_Integer i = 1; i <= n; i++) {
		lua_rawgeti(L, 1, i);
		if (lua_type(L, -1) != LUA_TSTRING) {
			sb_printf(&err, "operand %d is not a string like \"x=2,3\"", (int)i);
			field_error(L, r, &k, NULL, (int)i, &err);
		}
		if (has_nul(L, -1)) {
			sb_printf(&err, "operand %d holds a NUL byte", (int)i);
			field_error(L, r, &k, NULL, (int)i, &err);
		}
		if (desc_add_operand(d, lua_tostring(L, -1), &err) != 0)
			field_error(L, r, &k, NULL, (int)i, &err);
		lua_pop(L, 1);
	}
	check_keys(L, r, &k);
	/* the fields in the table's order, whatever the spec's */
	for (int f = 0; field_name(f); f++) {
		if (get_field(L, r, &k, &from, &defaults, field_name(f)) != LUA_TNIL)
			set_field(L, r, from, d, f);
		lua_pop(L, 1);
	}
	/* read whole: the spec has it */
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->kernel = xrealloc(s->kernel, (size_t)s->cap * sizeof *s->kernel);
	}
	s->kernel[s->n++] = *d;
	memset(d, 0, sizeof *d);
	lua_getfield(L, LUA_REGISTRYINDEX, UNGIVEN_KEY);
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_pushnil(L);
	lua_rawset(L, -3);
	return 0;
}

/*
** Return how many calls given a table came before one on LINE, and
** count it: two kernels may share a line.
*/
static int
count_on_line(struct reader *r, int line)
{
	if (line != r->last_line) {
		r->last_line = line;
		r->on_line = 0;
	}
	return r->on_line++;
}

/*
** The line of the spec's main chunk that is running: the call that led
** to the C function running now, through any helper functions.
*/
static int
main_chunk_line(lua_State *L)
{
	lua_Debug ar;
	int line = 0;

	for (int level = 1; lua_getstack(L, level, &ar); level++)
		if (lua_getinfo(L, "Sl", &ar) && strcmp(ar.what, "main") == 0)
			line = ar.currentline;
	return line;
}

/* kernel "NAME": check the name is new, return the function that takes the table. */
static int
l_kernel(lua_State *L)
{
	struct reader *r;
	struct strbuf long_name = {0};
	int line = main_chunk_line(L);

	lua_getallocf(L, (void **)&r);
	if (lua_type(L, 1) != LUA_TSTRING)
		spec_error(L, r, line, "kernel needs a name: kernel \"bias_add\" { ... }");
	if (has_nul(L, 1))
		spec_error(L, r, line, "kernel '%s': the name holds a NUL byte",
		             lua_tostring(L, 1));
	if (names_check_length(lua_tostring(L, 1), &long_name) != 0) {
		lua_pushstring(L, long_name.s);
		sb_free(&long_name);
		spec_error(L, r, line, "%s", lua_tostring(L, -1));
	}
	if (lua_gettop(L) != 1)
		spec_error(L, r, line, "kernel '%s': kernel takes its name, then its table: "
		           "kernel \"%s\" { ... }, not kernel(\"%s\", { ... })",
		           lua_tostring(L, 1), lua_tostring(L, 1), lua_tostring(L, 1));
	lua_getfield(L, LUA_REGISTRYINDEX, DECLARED_KEY);
	lua_pushvalue(L, 1);
	if (lua_rawget(L, -2) != LUA_TNIL)
		spec_error(L, r, line, "kernel '%s' is declared twice (first on line %d)",
		             lua_tostring(L, 1), (int)lua_tointeger(L, -1));
	lua_pop(L, 1);
	lua_pushvalue(L, 1);
	lua_pushinteger(L, line);
	lua_rawset(L, -3);
	lua_getfield(L, LUA_REGISTRYINDEX, UNGIVEN_KEY);
	lua_pushvalue(L, 1);
	lua_pushinteger(L, line);
	lua_rawset(L, -3);
	lua_settop(L, 1);
	lua_pushinteger(L, line);
	lua_pushboolean(L, 0);
	lua_pushinteger(L, count_on_line(r, line));
	lua_pushcclosure(L, l_kernel_body, 4);
	return 1;
}

/*
** defaults { ... }: check its fields as a kernel's, and keep a copy of
** them for the kernels declared after it, in place of any defaults
** before it.
*/
static int
l_defaults(lua_State *L)
{
	struct reader *r;
	int line = main_chunk_line(L);
	struct fields_table t;

	lua_getallocf(L, (void **)&r);
	t = (struct fields_table){1, line, count_on_line(r, line), "defaults", 0};
	if (!lua_istable(L, 1) || lua_gettop(L) != 1)
		spec_error(L, r, t.line, "defaults needs one table: defaults { optimize = \"size\" }");
	check_plain(L, r, &t);
	check_keys(L, r, &t);
	desc_free(&r->scratch);
	desc_init(&r->scratch, FROM_SPEC);
	lua_newtable(L);
	for (int f = 0; field_name(f); f++) {
		if (raw_field(L, 1, field_name(f)) != LUA_TNIL) {
			set_field(L, r, &t, &r->scratch, f);
			lua_setfield(L, 2, field_name(f));
		} else {
			lua_pop(L, 1);
		}
	}
	lua_setfield(L, LUA_REGISTRYINDEX, DEFAULTS_KEY);
	r->defaults_line = t.line;
	r->defaults_nth = t.nth;
	return 0;
}

/*
** Print the Lua error MSG as "CHUNK:LINE: error: ..." when it starts
** with the place, as Lua's errors do, and exit 1.
*/
static void
die_lua(const char *chunk, const char *msg)
{
	size_t n = strlen(chunk);
	const char *p = msg + n + 1;

	if (strncmp(msg, chunk, n) == 0 && msg[n] == ':' && *p >= '0' && *p <= '9') {
		struct strbuf where = {0};

		while (*p >= '0' && *p <= '9')
			p++;
		sb_addn(&where, msg, (size_t)(p - msg));
		if (p[0] == ':' && p[1] == ' ')
			p += 2;
		die_at(where.s, "%s", p);
	}
	die_at(chunk, "%s", msg);
}

/*
** Check kernel D of the spec S, read from PATH, and read its
** computation; note where it was declared, for its banner. Dies on any
** error, at its line (an error in the expression: at the field's).
*/
static void
finish_kernel(const struct spec *s, struct desc *d, const char *path)
{
	struct strbuf where = {0}, err = {0}, at = {0}, origin = {0};

	if (desc_finish(d, &where, &err) != 0) {
		sb_printf(&at, "%s:%d", path, spec_field_line(s, d, where.s ? "expr" : NULL));
		die_at(at.s, "kernel '%s': %s%s%s", d->name, where.s ? where.s : "",
		       where.s ? ": " : "", err.s);
	}
	sb_printf(&origin, "kernel '%s' of %s, line %d", d->name, cli_base_name(path),
	          d->line);
	d->origin = origin.s;
}

/*
** xpcall's message handler, upvalue 1, skipped once past a limit: the
** hook's error reaches it with hooks off, so it could loop forever.
*/
static int
l_handler(lua_State *L)
{
	struct reader *r;

	lua_getallocf(L, (void **)&r);
	if (r->over)
		return 1;
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, 1);
	return 1;
}

/*
** pcall and xpcall (upvalue 1 says which) that cannot catch passing a
** limit, the memory's included: they raise it again.
*/
static int
l_pcall(lua_State *L)
{
	struct reader *r;
	int xp = strcmp(lua_tostring(L, lua_upvalueindex(1)), "xpcall") == 0;
	int status;

	lua_getallocf(L, (void **)&r);
	luaL_checkany(L, 1);
	if (xp) {
		luaL_checktype(L, 2, LUA_TFUNCTION);
		lua_pushvalue(L, 2);
		lua_pushcclosure(L, l_handler, 1);
		lua_replace(L, 2);
		lua_rotate(L, 1, 1);	/* the handler first, then the function */
	}
	status = lua_pcall(L, lua_gettop(L) - 1 - xp, LUA_MULTRET, xp);
	if (status == LUA_ERRMEM)
		end_spec(L, r, memory_message);
	if (r->over)
		end_spec(L, r, r->over);
	lua_pushboolean(L, status == LUA_OK);
	if (xp)
		lua_replace(L, 1);
	else
		lua_insert(L, 1);
	return status == LUA_OK ? lua_gettop(L) : 2;
}

/* setmetatable that refuses a metatable with __gc: finalizers run without hooks. */
static int
l_setmetatable(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	luaL_argexpected(L, lua_type(L, 2) == LUA_TNIL || lua_type(L, 2) == LUA_TTABLE, 2,
	                 "nil or table");
	if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL)
		return luaL_error(L, "cannot change a protected metatable");
	if (lua_type(L, 2) == LUA_TTABLE) {
		lua_pushliteral(L, "__gc");
		if (lua_rawget(L, 2) != LUA_TNIL)
			return luaL_error(L, "a spec may not set a __gc metamethod");
		lua_pop(L, 1);
	}
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
	return lua_gettop(L);
}

/*
** table.insert and table.remove, upvalue 2, on a table without a
** metatable only: its length is then bounded by the memory it holds.
*/
static int
l_table_plain(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	if (lua_getmetatable(L, 1))
		return luaL_error(L, "%s: a spec may not use it on a value with a metatable",
		                  lua_tostring(L, lua_upvalueindex(1)));
	lua_pushvalue(L, lua_upvalueindex(2));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
	return lua_gettop(L);
}

/*
** Replace the function NAME of library LIB (NULL: a global), the table
** on top of the stack, by FN with the full name and the function as
** upvalues.
*/
static void
wrap(lua_State *L, const char *lib, const char *name, lua_CFunction fn)
{
	if (lib)
		lua_pushfstring(L, "%s.%s", lib, name);
	else
		lua_pushstring(L, name);
	lua_getfield(L, -2, name);
	lua_pushcclosure(L, fn, 2);
	lua_setfield(L, -2, name);
}

/*
** The globals a spec has not (open_sandbox removes those the safe
** libraries have), and the words a misspelt name may be meant for.
*/
static const char *const unavailable[] = {"io", "os", "package", "require", "debug",
	"coroutine", "load", "loadfile", "dofile", "print", "warn", "collectgarbage", NULL};
static const char *const spec_words[] = {"kernel", "defaults", "true", "false", NULL};

/* Return whether A, of 3 bytes or more, is at most two edits from B. */
static int
near(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[16], diag, up;

	if (la < 3 || la >= 16 || lb >= 16 || (la > lb ? la - lb : lb - la) > 2)
		return 0;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			up = row[j];
			row[j] = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < row[j])
				row[j] = up + 1;
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			diag = up;
		}
	}
	return row[lb] <= 2;
}

/*
** The globals' __index: a name the spec reads but never defined is an
** error at that line. Mostly it is a value without its quotes
** (op = mul), so the message says how to write it.
*/
static int
l_undefined(lua_State *L)
{
	const char *name = luaL_tolstring(L, 2, NULL);

	for (int i = 0; unavailable[i]; i++)
		if (strcmp(name, unavailable[i]) == 0)
			return fail_here(L, "'%s' is not available in a spec (it reads no "
			                 "file and runs no command)", name);
	for (int i = 0; spec_words[i]; i++)
		if (near(name, spec_words[i]))
			return fail_here(L, "'%s' is not defined (did you mean %s?)", name,
			                 spec_words[i]);
	return fail_here(L, "'%s' is not defined (a string needs quotes: \"%s\")", name, name);
}

/*
** The globals' __newindex: a new global may hold a function, the spec's
** helper; any other value is an error, as it would be read by no one.
*/
static int
l_new_global(lua_State *L)
{
	if (lua_type(L, 3) != LUA_TFUNCTION) {
		const char *name = luaL_tolstring(L, 2, NULL);

		return fail_here(L, "'%s' is not a global of the spec: declare it with "
		                 "'local %s = ...'", name, name);
	}
	lua_rawset(L, 1);
	return 0;
}

/* The metatable of a spec's globals. */
static const luaL_Reg strict_globals[] = {
	{"__index", l_undefined},
	{"__newindex", l_new_global},
	{NULL, NULL}
};

/*
** Fill L with what a spec sees: the safe libraries less what could read,
** write, load code or run unbounded (see the top of this file), and the
** function kernel.
*/
static void
open_sandbox(lua_State *L)
{
	static const char *const patterns[] = {"find", "match", "gmatch", "gsub", NULL};

	lhost_open_safe_libs(L);
	for (int i = 0; unavailable[i]; i++) {
		lua_pushnil(L);
		lua_setglobal(L, unavailable[i]);
	}
	lua_getglobal(L, "string");
	for (int i = 0; patterns[i]; i++) {
		lua_pushnil(L);
		lua_setfield(L, -2, patterns[i]);
	}
	lua_pop(L, 1);
	lua_pushliteral(L, "");		/* hide the strings' metatable */
	lua_getmetatable(L, -1);
	lua_pushboolean(L, 0);
	lua_setfield(L, -2, "__metatable");
	lua_pop(L, 2);
	lua_getglobal(L, "table");
	lua_pushnil(L);
	lua_setfield(L, -2, "move");
	wrap(L, "table", "insert", l_table_plain);
	wrap(L, "table", "remove", l_table_plain);
	lua_pop(L, 1);
	lua_pushglobaltable(L);
	wrap(L, NULL, "pcall", l_pcall);
	wrap(L, NULL, "xpcall", l_pcall);
	lua_getfield(L, -1, "setmetatable");
	lua_pushcclosure(L, l_setmetatable, 1);
	lua_setfield(L, -2, "setmetatable");
	lua_pop(L, 1);
	lua_pushcfunction(L, l_kernel);
	lua_setglobal(L, "kernel");
	lua_pushcfunction(L, l_defaults);
	lua_setglobal(L, "defaults");
	lua_newtable(L);
	lua_setfield(L, LUA_REGISTRYINDEX, DECLARED_KEY);
	lua_newtable(L);
	lua_setfield(L, LUA_REGISTRYINDEX, UNGIVEN_KEY);
	lua_pushglobaltable(L);
	luaL_newlib(L, strict_globals);
	lua_pushboolean(L, 0);
	lua_setfield(L, -2, "__metatable");	/* getmetatable gives false; setmetatable fails */
	lua_setmetatable(L, -2);
	lua_pop(L, 1);
}

/*
** End the spec if a kernel was declared and never given its table: name
** the first such, by line.
*/
static void
check_given(lua_State *L, struct reader *r)
{
	const char *first = NULL;
	int line = 0;

	lua_getfield(L, LUA_REGISTRYINDEX, UNGIVEN_KEY);
	lua_pushnil(L);
	while (lua_next(L, -2)) {
		int at = (int)lua_tointeger(L, -1);

		lua_pop(L, 1);
		if (!first || at < line || (at == line && strcmp(lua_tostring(L, -1), first) < 0)) {
			first = lua_tostring(L, -1);	/* a key of the table: kept alive */
			line = at;
		}
	}
	if (first)
		spec_error(L, r, line, "kernel '%s' is never given its table: kernel \"%s\" "
		           "{ op = \"add\", \"x=2,3\", \"y=3\" }", first, first);
}

/* Open the sandbox and run the spec, its reader the light userdata at 1. */
static int
run_spec(lua_State *L)
{
	struct reader *r = lua_touserdata(L, 1);
	struct strbuf chunk = {0};
	int status;

	open_sandbox(L);
	sb_printf(&chunk, "@%s", r->chunk);
	status = luaL_loadbufferx(L, r->src->s ? r->src->s : "", r->src->len, chunk.s, "t");
	sb_free(&chunk);
	if (status != LUA_OK)
		return lua_error(L);
	r->start = clock();
	lua_sethook(L, step_hook, LUA_MASKCOUNT, SPEC_STEPS);
	lua_call(L, 0, 0);
	check_given(L, r);
	return 0;
}

/*
** Run the spec file PATH and fill S with its kernels, in order. Dies on
** any error, with the place in PATH.
*/
void
spec_read(const char *path, struct spec *s)
{
	struct reader r = {.memory = {0, SPEC_MEMORY}, .spec = s, .chunk = path};
	lua_State *L;
	int status;

	memset(s, 0, sizeof *s);
	status = sb_read_file(&s->src, path);
	if (status != 0)
		die("cannot %s spec file '%s':", status == -1 ? "open" : "read", path);
	r.src = &s->src;
	L = lhost_new_state(&r.memory);
	lua_pushcfunction(L, lhost_msghandler);
	lua_pushcfunction(L, run_spec);
	lua_pushlightuserdata(L, &r);
	status = lua_pcall(L, 1, 0, 1);
	if (status == LUA_ERRMEM && !r.over)
		r.over = memory_message;
	if (r.over)
		die_lua(path, r.over);
	if (status != LUA_OK)
		die_lua(path, lua_tostring(L, -1));
	if (s->n == 0)
		die_at(path, "the spec declares no kernel: kernel \"%s\" { op = \"add\", "
		       "\"x=2,3\", \"y=3\" }", "name");
	lua_close(L);
	desc_free(&r.scratch);
	desc_free(&r.pending);
	for (int i = 0; i < s->n; i++)
		finish_kernel(s, &s->kernel[i], path);
}

/*
** Return the line of S that kernel D's FIELD is written on, or, FIELD
** NULL or not written at D's call, D's line.
*/
int
spec_field_line(const struct spec *s, const struct desc *d, const char *field)
{
	if (!field)
		return d->line;
	return speclex_field_line(s->src.s ? s->src.s : "", s->src.len, d->line, d->line_nth,
	                          d->nops, field, 0);
}

/* Free what spec_read allocated in S. */
void
spec_free(struct spec *s)
{
	for (int i = 0; i < s->n; i++)
		desc_free(&s->kernel[i]);
	free(s->kernel);
	sb_free(&s->src);
	memset(s, 0, sizeof *s);
}
