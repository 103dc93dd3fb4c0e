/*
** spec.c: spec files, many kernels in one Lua file.
**
**   kernel "bias_add" { op = "add", "x=8,64,56,56", "b=64,1,1" }
**
** The array part holds the operands, in order, written as on the command
** line; the hash part the options, named as the long options with '_'
** for '-' (out_dtype = "u8"). Each kernel becomes the command-line words
** that say the same, so both share one parser and one set of errors.
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

#include "lhost.h"
#include "spec.h"

#define SPEC_MEMORY (64u << 20)		/* bytes a spec may allocate */
#define SPEC_STEPS 1000			/* instructions between hook calls */
#define SPEC_MAX_STEPS 100000		/* hook calls: 100 million instructions */

/* The options a kernel may set, and whether each takes no value. */
static const struct field {
	const char *name;
	const char *option;
	int is_flag;
} fields[] = {
	{"op", "--op", 0},
	{"expr", "--expr", 0},
	{"dtype", "--dtype", 0},
	{"out_dtype", "--out-dtype", 0},
	{"axis", "--axis", 0},
	{"inplace", "--inplace", 1},
	{"out_shape", "--out-shape", 0},
	{"strategy", "--strategy", 0},
	{"unroll_limit", "--unroll-limit", 0},
	{NULL, NULL, 0}
};

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

/* Append word W to kernel K's words. */
static void
add_word(struct spec_kernel *k, const char *w)
{
	k->argv = xrealloc(k->argv, (size_t)(k->argc + 2) * sizeof *k->argv);
	k->argv[k->argc++] = xstrdup(w);
	k->argv[k->argc] = NULL;
}

/* Add the option FIELD = value at the top of the stack to kernel K. */
static void
add_field(lua_State *L, struct reader *r, struct spec_kernel *k, const char *field)
{
	const struct field *f = fields;
	struct strbuf w = {0};

	while (f->name && strcmp(f->name, field) != 0)
		f++;
	if (!f->name)
		kernel_error(L, r, k->line, "kernel '%s' has an unknown field '%s' (there are "
		             "op expr dtype out_dtype axis inplace out_shape strategy "
		             "unroll_limit, and the operands)", k->name, field);
	if (f->is_flag) {
		if (!lua_isboolean(L, -1))
			kernel_error(L, r, k->line, "field '%s' of kernel '%s' must be true or "
			             "false", field, k->name);
		if (lua_toboolean(L, -1))
			add_word(k, f->option);
		return;
	}
	if (lua_isinteger(L, -1))
		sb_printf(&w, "%s=%lld", f->option, (long long)lua_tointeger(L, -1));
	else if (lua_type(L, -1) == LUA_TSTRING)
		sb_printf(&w, "%s=%s", f->option, lua_tostring(L, -1));
	else
		kernel_error(L, r, k->line, "field '%s' of kernel '%s' must be a string or an "
		             "integer", field, k->name);
	add_word(k, w.s);
	sb_free(&w);
}

/*
** kernel "NAME" { ... } calls this with the table: record the kernel as
** command-line words. Upvalues: the name and the line of the call.
*/
static int
l_kernel_body(lua_State *L)
{
	struct reader *r;
	struct spec *s;
	struct spec_kernel *k;
	lua_Integer n;
	struct strbuf w = {0};

	lua_getallocf(L, (void **)&r);
	s = r->spec;
	s->kernel = xrealloc(s->kernel, (size_t)(s->n + 1) * sizeof *s->kernel);
	k = &s->kernel[s->n++];
	memset(k, 0, sizeof *k);
	k->name = xstrdup(lua_tostring(L, lua_upvalueindex(1)));
	k->line = (int)lua_tointeger(L, lua_upvalueindex(2));
	if (!lua_istable(L, 1) || lua_gettop(L) != 1)
		kernel_error(L, r, k->line, "kernel '%s' needs one table: kernel \"%s\" "
		             "{ op = \"add\", \"x=2,3\", \"y=3\" }", k->name, k->name);
	add_word(k, "bcastgen");
	sb_printf(&w, "--name=%s", k->name);
	add_word(k, w.s);
	sb_free(&w);
	n = (lua_Integer)lua_rawlen(L, 1);
	lua_pushnil(L);
	while (lua_next(L, 1)) {
		if (lua_isinteger(L, -2) && lua_tointeger(L, -2) >= 1 && lua_tointeger(L, -2) <= n) {
			lua_pop(L, 1);	/* an operand: below, in order */
			continue;
		}
		if (lua_type(L, -2) != LUA_TSTRING)
			kernel_error(L, r, k->line, "kernel '%s' has a field that is not a name "
			             "(operands are the strings in order: \"x=2,3\", \"y=3\")",
			             k->name);
		add_field(L, r, k, lua_tostring(L, -2));
		lua_pop(L, 1);
	}
	add_word(k, "--");
	for (lua_Integer i = 1; i <= n; i++) {
		lua_rawgeti(L, 1, i);
		if (lua_type(L, -1) != LUA_TSTRING)
			kernel_error(L, r, k->line, "operand %d of kernel '%s' is not a string "
			             "like \"x=2,3\"", (int)i, k->name);
		add_word(k, lua_tostring(L, -1));
		lua_pop(L, 1);
	}
	return 0;
}

/* kernel "NAME": check the name, return the function that takes the table. */
static int
l_kernel(lua_State *L)
{
	struct reader *r;
	lua_Debug ar;
	int line = 0;

	lua_getallocf(L, (void **)&r);
	if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "l", &ar))
		line = ar.currentline;
	if (lua_type(L, 1) != LUA_TSTRING)
		kernel_error(L, r, line, "kernel needs a name: kernel \"bias_add\" { ... }");
	for (int i = 0; i < r->spec->n; i++)
		if (strcmp(r->spec->kernel[i].name, lua_tostring(L, 1)) == 0)
			kernel_error(L, r, line, "kernel '%s' is declared twice (first on line %d)",
			             lua_tostring(L, 1), r->spec->kernel[i].line);
	lua_settop(L, 1);
	lua_pushinteger(L, line);
	lua_pushcclosure(L, l_kernel_body, 2);
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
}

/* Free what spec_read allocated in S. */
void
spec_free(struct spec *s)
{
	for (int i = 0; i < s->n; i++) {
		for (int j = 0; j < s->kernel[i].argc; j++)
			free(s->kernel[i].argv[j]);
		free(s->kernel[i].argv);
		free(s->kernel[i].name);
	}
	free(s->kernel);
	s->kernel = NULL;
	s->n = 0;
}
