/*
** spec.c: spec files, many kernels in one Lua file.
**
**   kernel "bias_add" { op = "add", "x=8,64,56,56", "b=64,1,1" }
**
** The array part holds the operands, in order, written as on the command
** line; the hash part the options, named as the long options with '_'
** for '-' (out_dtype = "u8"). Each kernel fills a description through
** the same table of fields as the command line (fields.c), so both share
** one set of checks and messages.
**
** The file runs in its own Lua state with lhost.c's safe libraries (no
** io, os, package or debug), without load, print or collectgarbage
** either, no bytecode, and bounds on memory and on the instructions run,
** so a hostile or buggy spec cannot hang or exhaust the build.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "cli.h"
#include "lhost.h"
#include "names.h"
#include "spec.h"

#define SPEC_MEMORY (64u << 20)		/* bytes a spec may allocate */
#define SPEC_STEPS 1000			/* instructions between hook calls */
#define SPEC_MAX_STEPS 100000		/* hook calls: 100 million instructions */
#define DECLARED_KEY "bcastgen.declared"	/* registry: kernel name -> line */

struct reader {
	struct spec *spec;
	const char *chunk;	/* the spec's name in messages */
	size_t memory;		/* bytes allocated now */
	int steps;		/* hook calls so far */
};

/* lua_Alloc that refuses to go past SPEC_MEMORY. */
static void *
limited_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	struct reader *r = ud;

	if (!ptr)
		osize = 0;
	if (nsize == 0) {
		free(ptr);
		r->memory -= osize;
		return NULL;
	}
	if (nsize > osize && r->memory + (nsize - osize) > SPEC_MEMORY)
		return NULL;
	ptr = realloc(ptr, nsize);
	if (ptr)
		r->memory = r->memory - osize + nsize;
	return ptr;
}

/* Count hook: stop a spec that runs too long. */
static void
step_hook(lua_State *L, lua_Debug *ar)
{
	struct reader *r;

	(void)ar;
	lua_getallocf(L, (void **)&r);
	if (++r->steps > SPEC_MAX_STEPS)
		luaL_error(L, "the spec runs too long (more than %d million instructions)",
		           SPEC_MAX_STEPS * SPEC_STEPS / 1000000);
}

/* Raise "CHUNK:LINE: MSG" for the kernel declared at LINE. */
static int
kernel_error(lua_State *L, const struct reader *r, int line, const char *fmt, ...)
{
	va_list ap;

	lua_pushfstring(L, "%s:%d: ", r->chunk, line);
	va_start(ap, fmt);
	lua_pushvfstring(L, fmt, ap);
	va_end(ap);
	lua_concat(L, 2);
	return lua_error(L);
}

/* Raise the error in ERR (freed) about kernel D, declared at LINE. */
static int
desc_error(lua_State *L, const struct reader *r, const struct desc *d, struct strbuf *err)
{
	lua_pushstring(L, err->s);
	sb_free(err);
	return kernel_error(L, r, d->line, "kernel '%s': %s", d->name, lua_tostring(L, -1));
}

/* Set row K of the field table in D from the value on top of the stack. */
static void
set_field(lua_State *L, const struct reader *r, struct desc *d, int k)
{
	struct strbuf err = {0};
	const char *name = field_name(k);
	int type = lua_type(L, -1);

	if (!field_takes_value(k) && type != LUA_TBOOLEAN) {
		sb_printf(&err, "field '%s': expected true or false, not a %s", name,
		          lua_typename(L, type));
		desc_error(L, r, d, &err);
	}
	if (field_takes_value(k) && type != LUA_TSTRING && !lua_isinteger(L, -1)) {
		sb_printf(&err, "field '%s': expected a string or an integer, not a %s",
		          name, lua_typename(L, type));
		desc_error(L, r, d, &err);
	}
	if (type == LUA_TBOOLEAN && !lua_toboolean(L, -1))
		return;
	lua_pushvalue(L, -1);	/* lua_tostring converts an integer in place */
	sb_printf(&err, "field '%s': ", name);
	if (field_set(d, k, type == LUA_TBOOLEAN ? "" : lua_tostring(L, -1), &err) != 0)
		desc_error(L, r, d, &err);
	lua_pop(L, 1);
	sb_free(&err);
}

/*
** kernel "NAME" { ... } calls this with the table: describe the kernel.
** Upvalues: the name, the line of the call, and whether it ran already.
*/
static int
l_kernel_body(lua_State *L)
{
	struct reader *r;
	struct spec *s;
	struct desc *d;
	struct strbuf err = {0};
	const char *unknown = NULL;
	lua_Integer n;

	lua_getallocf(L, (void **)&r);
	if (lua_toboolean(L, lua_upvalueindex(3)))
		kernel_error(L, r, (int)lua_tointeger(L, lua_upvalueindex(2)),
		             "kernel '%s' is given a table twice",
		             lua_tostring(L, lua_upvalueindex(1)));
	lua_pushboolean(L, 1);
	lua_replace(L, lua_upvalueindex(3));
	s = r->spec;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->kernel = xrealloc(s->kernel, (size_t)s->cap * sizeof *s->kernel);
	}
	d = &s->kernel[s->n++];
	desc_init(d, FROM_SPEC);
	d->name = xstrdup(lua_tostring(L, lua_upvalueindex(1)));
	d->line = (int)lua_tointeger(L, lua_upvalueindex(2));
	if (!lua_istable(L, 1) || lua_gettop(L) != 1)
		kernel_error(L, r, d->line, "kernel '%s' needs one table: kernel \"%s\" "
		             "{ op = \"add\", \"x=2,3\", \"y=3\" }", d->name, d->name);
	n = (lua_Integer)lua_rawlen(L, 1);
	for (lua_Integer i = 1; i <= n; i++) {
		lua_rawgeti(L, 1, i);
		if (lua_type(L, -1) != LUA_TSTRING) {
			sb_printf(&err, "operand %d is not a string like \"x=2,3\"", (int)i);
			desc_error(L, r, d, &err);
		}
		if (desc_add_operand(d, lua_tostring(L, -1), &err) != 0)
			desc_error(L, r, d, &err);
		lua_pop(L, 1);
	}
	/* a key that is no field: report the least, so that the message is fixed */
	lua_pushnil(L);
	while (lua_next(L, 1)) {
		lua_pop(L, 1);
		if (lua_isinteger(L, -1) && lua_tointeger(L, -1) >= 1 && lua_tointeger(L, -1) <= n)
			continue;	/* an operand */
		if (lua_type(L, -1) != LUA_TSTRING) {
			sb_add(&err, "a key that is not a field name (operands are the "
			       "strings in order: \"x=2,3\", \"y=3\")");
			desc_error(L, r, d, &err);
		}
		if (field_find(lua_tostring(L, -1), FROM_SPEC) < 0
		    && (!unknown || strcmp(lua_tostring(L, -1), unknown) < 0))
			unknown = lua_tostring(L, -1);	/* a key of the table: kept alive */
	}
	if (unknown) {
		sb_printf(&err, "unknown field '%s' (there are ", unknown);
		field_list(&err);
		sb_add(&err, ", and the operands)");
		desc_error(L, r, d, &err);
	}
	/* the fields in the table's order, whatever the spec's */
	for (int k = 0; field_name(k); k++) {
		if (lua_getfield(L, 1, field_name(k)) != LUA_TNIL)
			set_field(L, r, d, k);
		lua_pop(L, 1);
	}
	return 0;
}

/* kernel "NAME": check the name is new, return the function that takes the table. */
static int
l_kernel(lua_State *L)
{
	struct reader *r;
	struct strbuf long_name = {0};
	lua_Debug ar;
	int line = 0;

	lua_getallocf(L, (void **)&r);
	if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "l", &ar))
		line = ar.currentline;
	if (lua_type(L, 1) != LUA_TSTRING)
		kernel_error(L, r, line, "kernel needs a name: kernel \"bias_add\" { ... }");
	if (names_check_length(lua_tostring(L, 1), &long_name) != 0) {
		lua_pushstring(L, long_name.s);
		sb_free(&long_name);
		kernel_error(L, r, line, "%s", lua_tostring(L, -1));
	}
	lua_settop(L, 1);
	lua_getfield(L, LUA_REGISTRYINDEX, DECLARED_KEY);
	lua_pushvalue(L, 1);
	if (lua_rawget(L, -2) != LUA_TNIL)
		kernel_error(L, r, line, "kernel '%s' is declared twice (first on line %d)",
		             lua_tostring(L, 1), (int)lua_tointeger(L, -1));
	lua_pop(L, 1);
	lua_pushvalue(L, 1);
	lua_pushinteger(L, line);
	lua_rawset(L, -3);
	lua_pop(L, 1);
	lua_pushinteger(L, line);
	lua_pushboolean(L, 0);
	lua_pushcclosure(L, l_kernel_body, 3);
	return 1;
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
** Check kernel D of the spec PATH and read its computation; note where
** it was declared, for its banner. Dies on any error, at its line.
*/
static void
finish_kernel(struct desc *d, const char *path)
{
	struct strbuf where = {0}, err = {0}, at = {0}, origin = {0};

	sb_printf(&at, "%s:%d", path, d->line);
	if (desc_finish(d, &where, &err) != 0)
		die_at(at.s, "kernel '%s': %s%s%s", d->name, where.s ? where.s : "",
		       where.s ? ": " : "", err.s);
	sb_printf(&origin, "kernel '%s' of %s, line %d", d->name, cli_base_name(path),
	          d->line);
	d->origin = origin.s;
	sb_free(&at);
}

/*
** Run the spec file PATH and fill S with its kernels, in order. Dies on
** any error, with the place in PATH.
*/
void
spec_read(const char *path, struct spec *s)
{
	/* beyond what lhost_open_safe_libs removes */
	static const char *const unsafe[] = {"load", "print", "collectgarbage", NULL};
	struct reader r = {s, path, 0, 0};
	struct strbuf src = {0}, chunk = {0};
	lua_State *L;
	FILE *f;
	char buf[4096];
	size_t n;

	memset(s, 0, sizeof *s);
	if (!(f = fopen(path, "rb")))
		die("cannot open spec file '%s':", path);
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sb_addn(&src, buf, n);
	if (ferror(f))
		die("cannot read spec file '%s':", path);
	fclose(f);
	if (!(L = lua_newstate(limited_alloc, &r)))
		die("cannot create a Lua state: out of memory");
	lhost_open_safe_libs(L);
	for (int i = 0; unsafe[i]; i++) {
		lua_pushnil(L);
		lua_setglobal(L, unsafe[i]);
	}
	lua_pushcfunction(L, l_kernel);
	lua_setglobal(L, "kernel");
	lua_newtable(L);
	lua_setfield(L, LUA_REGISTRYINDEX, DECLARED_KEY);
	lua_sethook(L, step_hook, LUA_MASKCOUNT, SPEC_STEPS);
	lua_pushcfunction(L, lhost_msghandler);
	sb_printf(&chunk, "@%s", path);
	if (luaL_loadbufferx(L, src.s ? src.s : "", src.len, chunk.s, "t") != LUA_OK
	    || lua_pcall(L, 0, 0, 1) != LUA_OK)
		die_lua(path, lua_tostring(L, -1));
	if (s->n == 0)
		die_at(path, "the spec declares no kernel: kernel \"%s\" { op = \"add\", "
		       "\"x=2,3\", \"y=3\" }", "name");
	lua_close(L);
	sb_free(&src);
	sb_free(&chunk);
	for (int i = 0; i < s->n; i++)
		finish_kernel(&s->kernel[i], path);
}

/* Free what spec_read allocated in S. */
void
spec_free(struct spec *s)
{
	for (int i = 0; i < s->n; i++)
		desc_free(&s->kernel[i]);
	free(s->kernel);
	memset(s, 0, sizeof *s);
}
