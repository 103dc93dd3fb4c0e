/*
** lhost.c: a Lua state with only the safe libraries, which compiles
** templates with gen/tmpl.lua and runs them on a model built in C.
**
** Templates come from the binary (embedded at build time) or, with
** --templates DIR, from DIR. Only _G, string, table, math and utf8 are
** opened, without string.dump. Each template and helper is read and
** compiled once per run and kept in the registry (push_chunk); each
** render runs it in a fresh environment (tmpl.lua), so a render is a
** pure function of the model and the template. The state may allocate
** LHOST_MEMORY bytes, and every call into it that can allocate runs
** protected (lhost_protect), so running out of memory is an error like
** any other. One template
** run may take LHOST_MILLIONS million instructions and LHOST_SECONDS of
** processor time; past either bcastgen stops at once, which no pcall in
** a template can catch.
*/
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>
#include <lualib.h>

#include "embedded.h"
#include "lhost.h"

#define TMPL_KEY "bcastgen.tmpl"	/* registry: the tmpl.lua module */
#define DIR_KEY "bcastgen.tmpldir"	/* registry: --templates DIR, or nil */
#define READ_KEY "bcastgen.read"	/* registry: the files read, in order */
#define CHUNK_KEY "bcastgen.chunks"	/* registry: the compiled templates and helpers */
#define LHOST_MEMORY ((size_t)1 << 30)	/* bytes the templates' state may allocate */
#define LHOST_MILLIONS 100		/* instructions of one template run, in millions */
#define LHOST_STEPS 10000		/* instructions between hook calls */
#define LHOST_SECONDS 10		/* processor time of one template run */

/* What the templates' state may use: the allocator's data, first. */
struct budget {
	struct lhost_memory memory;
	long steps;		/* hook calls in this template run */
	clock_t start;		/* processor time when it began */
};

/* A call made protected by lhost_protect. */
struct protected {
	int (*fn)(lua_State *L, void *ud);
	void *ud;
	int status;		/* what fn returned */
};

/* The libraries opened, as in linit.c; no io, os, package or debug. */
static const luaL_Reg libs[] = {
	{LUA_GNAME, luaopen_base},
	{LUA_STRLIBNAME, luaopen_string},
	{LUA_TABLIBNAME, luaopen_table},
	{LUA_MATHLIBNAME, luaopen_math},
	{LUA_UTF8LIBNAME, luaopen_utf8},
	{NULL, NULL}
};

/* Return the embedded file PATH, or NULL. */
static const struct embedded *
find_embedded(const char *path)
{
	for (const struct embedded *e = embedded_files; e->path; e++)
		if (strcmp(e->path, path) == 0)
			return e;
	return NULL;
}

/*
** lua_Alloc that counts the bytes allocated in the lhost_memory UD and
** refuses to go past its limit.
*/
void *
lhost_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	struct lhost_memory *m = ud;

	if (!ptr)
		osize = 0;
	if (nsize == 0) {
		free(ptr);
		m->used -= osize;
		return NULL;
	}
	if (nsize > osize && nsize - osize > m->limit - m->used)
		return NULL;
	ptr = realloc(ptr, nsize);
	if (ptr)
		m->used = m->used - osize + nsize;
	return ptr;
}

/* Panic function: an error outside any protected call; should not happen. */
static int
panic(lua_State *L)
{
	const char *msg = lua_tostring(L, -1);

	die("unprotected error in Lua: %s", msg ? msg : "not a string");
	return 0;
}

/* Open a Lua state that allocates through lhost_alloc within M; die on failure. */
lua_State *
lhost_new_state(struct lhost_memory *m)
{
	lua_State *L = lua_newstate(lhost_alloc, m);

	if (!L)
		die("cannot create a Lua state: out of memory");
	lua_atpanic(L, panic);
	return L;
}

/* Print the error on top of L, which a call ended with STATUS. */
static void
report(lua_State *L, int status)
{
	struct lhost_memory *m;

	lua_getallocf(L, (void **)&m);
	if (status == LUA_ERRMEM)
		error("not enough memory (the templates may use %zu MB)", m->limit >> 20);
	else
		error("%s", lua_tostring(L, -1));
}

/* Run P's function with its argument below it: the pushed arguments after it. */
static int
trampoline(lua_State *L)
{
	struct protected *p = lua_touserdata(L, 1);

	lua_remove(L, 1);
	p->status = p->fn(L, p->ud);
	return 0;
}

/*
** Call FN(L, UD) protected, with the NARGS values on top of the stack
** (popped) as its stack. Return 0, or -1 when FN returned -1 or raised
** an error, which is then printed; running out of memory says the limit.
*/
int
lhost_protect(lua_State *L, int nargs, int (*fn)(lua_State *L, void *ud), void *ud)
{
	struct protected p = {fn, ud, 0};
	int base = lua_gettop(L) - nargs, status;

	if (!lua_checkstack(L, 3))
		die("cannot grow the Lua stack: out of memory");
	lua_pushcfunction(L, lhost_msghandler);
	lua_pushcfunction(L, trampoline);
	lua_pushlightuserdata(L, &p);
	lua_rotate(L, base + 1, 3);
	status = lua_pcall(L, nargs + 1, 0, base + 1);
	if (status != LUA_OK)
		report(L, status);
	lua_settop(L, base);
	return status != LUA_OK || p.status != 0 ? -1 : 0;
}

/* Message handler for lua_pcall: make sure the error is a string. */
int
lhost_msghandler(lua_State *L)
{
	if (!lua_isstring(L, 1))
		lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
	return 1;
}

/*
** Call the function below NARGS arguments on the stack, protected. On
** success leave one result and return 0; on error print the message,
** pop it and return -1.
*/
static int
docall(lua_State *L, int nargs)
{
	int base = lua_gettop(L) - nargs;
	int status;

	lua_pushcfunction(L, lhost_msghandler);
	lua_insert(L, base);
	status = lua_pcall(L, nargs, 1, base);
	lua_remove(L, base);
	if (status != LUA_OK) {
		report(L, status);
		lua_pop(L, 1);
		return -1;
	}
	return 0;
}

/*
** Open the safe libraries in L: _G, string, table, math and utf8, with
** no base function that reads a file (dofile, loadfile), no string.dump,
** and no math.random or math.randomseed: the same input gives the same
** bytes. Call it protected.
*/
void
lhost_open_safe_libs(lua_State *L)
{
	for (const luaL_Reg *lib = libs; lib->func; lib++) {
		luaL_requiref(L, lib->name, lib->func, 1);
		lua_pop(L, 1);
	}
	lua_pushnil(L);
	lua_setglobal(L, "dofile");
	lua_pushnil(L);
	lua_setglobal(L, "loadfile");
	lua_getglobal(L, LUA_STRLIBNAME);
	lua_pushnil(L);
	lua_setfield(L, -2, "dump");
	lua_pop(L, 1);
	lua_getglobal(L, LUA_MATHLIBNAME);
	lua_pushnil(L);
	lua_setfield(L, -2, "random");
	lua_pushnil(L);
	lua_setfield(L, -2, "randomseed");
	lua_pop(L, 1);
}

/*
** tmpl.copy(T, EXTRA), for gen/tmpl.lua: a new table holding T's fields
** (its raw fields: no metamethod is called), with room for EXTRA more,
** so that it is filled without growing.
*/
static int
copy_table(lua_State *L)
{
	lua_Integer extra = luaL_optinteger(L, 2, 0);
	int n = 0;

	luaL_checktype(L, 1, LUA_TTABLE);
	luaL_argcheck(L, extra >= 0 && extra <= 1024, 2, "out of range");
	lua_pushnil(L);
	while (lua_next(L, 1)) {
		lua_pop(L, 1);
		if (n < INT_MAX - 1024)
			n++;
	}
	lua_createtable(L, 0, n + (int)extra);
	lua_pushnil(L);
	while (lua_next(L, 1)) {
		lua_pushvalue(L, -2);
		lua_insert(L, -2);
		lua_rawset(L, -4);
	}
	return 1;
}

/* lhost_open's work, protected: the libraries, tmpl.lua, and TMPLDIR (UD). */
static int
setup(lua_State *L, void *ud)
{
	const char *tmpldir = ud;
	const struct embedded *t = find_embedded("gen/tmpl.lua");

	lhost_open_safe_libs(L);
	if (!t || luaL_loadbufferx(L, t->data, t->len, "@gen/tmpl.lua", "t") != LUA_OK
	    || docall(L, 0) != 0) {
		error("cannot load the template engine");
		return -1;
	}
	lua_pushcfunction(L, copy_table);
	lua_setfield(L, -2, "copy");
	lua_setfield(L, LUA_REGISTRYINDEX, TMPL_KEY);
	if (tmpldir)
		lua_pushstring(L, tmpldir);
	else
		lua_pushnil(L);
	lua_setfield(L, LUA_REGISTRYINDEX, DIR_KEY);
	lua_newtable(L);
	lua_setfield(L, LUA_REGISTRYINDEX, READ_KEY);
	lua_newtable(L);
	lua_setfield(L, LUA_REGISTRYINDEX, CHUNK_KEY);
	return 0;
}

/*
** Open a Lua state with the safe libraries and gen/tmpl.lua loaded,
** which may allocate LHOST_MEMORY bytes. TMPLDIR, if not NULL, is where
** templates are read from. Dies on an error.
*/
lua_State *
lhost_open(const char *tmpldir)
{
	struct budget *b = xmalloc(sizeof *b);
	lua_State *L;

	memset(b, 0, sizeof *b);
	b->memory.limit = LHOST_MEMORY;
	L = lhost_new_state(&b->memory);
	if (lhost_protect(L, 0, setup, (void *)tmpldir) != 0)
		exit(EXIT_INPUT);
	return L;
}

/* Close L, opened by lhost_open. */
void
lhost_close(lua_State *L)
{
	void *m;

	lua_getallocf(L, &m);
	lua_close(L);
	free(m);
}

/* Read the template file PATH into SB; return -1 with an error printed. */
static int
read_file(const char *path, struct strbuf *sb)
{
	int status = sb_read_file(sb, path);

	if (status != 0) {
		error("cannot %s template '%s':", status == -1 ? "open" : "read", path);
		return -1;
	}
	if (!sb->s)
		sb_add(sb, "");
	return 0;
}

/* Remember that the file PATH was read, once: READ_KEY maps it to its number. */
static void
note_read(lua_State *L, const char *path)
{
	lua_getfield(L, LUA_REGISTRYINDEX, READ_KEY);
	if (lua_getfield(L, -1, path) == LUA_TNIL) {
		lua_Integer n = (lua_Integer)lua_rawlen(L, -2) + 1;

		lua_pushstring(L, path);
		lua_rawseti(L, -3, n);
		lua_pushinteger(L, n);
		lua_setfield(L, -3, path);
	}
	lua_pop(L, 2);
}

/*
** Return the template files read from --templates DIR, in the order
** first read, however many, and set *N to their number. The array is
** the caller's to free; the strings live as long as L.
*/
const char **
lhost_files_read(lua_State *L, int *n)
{
	const char **paths;

	lua_getfield(L, LUA_REGISTRYINDEX, READ_KEY);
	*n = (int)lua_rawlen(L, -1);
	paths = xmalloc((size_t)*n * sizeof *paths);
	for (int i = 0; i < *n; i++) {
		lua_rawgeti(L, -1, i + 1);
		paths[i] = lua_tostring(L, -1);
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	return paths;
}

/*
** Push the template NAME's source and then its name for messages: the
** embedded "templates/NAME", or "DIR/NAME" under --templates DIR. With
** OPTIONAL, a file missing from DIR falls back to the embedded one.
** Return -1, with an error printed and nothing pushed, if it is missing.
*/
static int
push_template(lua_State *L, const char *name, int optional)
{
	const char *dir;

	lua_getfield(L, LUA_REGISTRYINDEX, DIR_KEY);
	dir = lua_tostring(L, -1);
	lua_pop(L, 1);
	if (dir && optional) {
		struct strbuf path = {0};
		FILE *f;

		sb_printf(&path, "%s/%s", dir, name);
		if ((f = fopen(path.s, "rb")) != NULL)
			fclose(f);
		else
			dir = NULL;
		sb_free(&path);
	}
	if (dir) {
		struct strbuf path = {0}, src = {0};

		sb_printf(&path, "%s/%s", dir, name);
		if (read_file(path.s, &src) != 0) {
			sb_free(&path);
			return -1;
		}
		note_read(L, path.s);
		lua_pushlstring(L, src.s, src.len);
		lua_pushstring(L, path.s);
		sb_free(&src);
		sb_free(&path);
	} else {
		struct strbuf path = {0};
		const struct embedded *e;

		sb_printf(&path, "templates/%s", name);
		e = find_embedded(path.s);
		if (!e) {
			error("no template named '%s'", name);
			sb_free(&path);
			return -1;
		}
		lua_pushlstring(L, e->data, e->len);
		lua_pushstring(L, path.s);
		sb_free(&path);
	}
	return 0;
}

/*
** Push the compiled chunk of NAME, a template (KIND "template") or a
** helper (KIND "helper", which may be missing from --templates DIR): the
** one compiled earlier in this run, or tmpl.load's of its source, read
** now and kept for the rest of the run. Return -1, with the error
** printed and nothing pushed, if it is missing or does not compile.
*/
static int
push_chunk(lua_State *L, const char *name, const char *kind)
{
	int top = lua_gettop(L);

	lua_getfield(L, LUA_REGISTRYINDEX, CHUNK_KEY);
	lua_pushfstring(L, "%s:%s", kind, name);
	if (lua_rawget(L, -2) != LUA_TNIL) {
		lua_replace(L, top + 1);
		return 0;
	}
	lua_pop(L, 1);
	lua_getfield(L, LUA_REGISTRYINDEX, TMPL_KEY);
	lua_getfield(L, -1, "load");
	lua_remove(L, -2);
	if (push_template(L, name, strcmp(kind, "helper") == 0) != 0) {
		lua_settop(L, top);
		return -1;
	}
	lua_pushstring(L, kind);
	if (docall(L, 3) != 0) {
		lua_settop(L, top);
		return -1;
	}
	lua_pushfstring(L, "%s:%s", kind, name);
	lua_pushvalue(L, -2);
	lua_rawset(L, top + 1);
	lua_replace(L, top + 1);
	return 0;
}

/*
** The Lua helpers, run before a template in its environment: each before
** the templates whose names start with its prefix (all of them for "").
*/
static const struct helper {
	const char *name;
	const char *prefix;
} helpers[] = {
	{"lib.lua", ""},		/* layout: tables, tuples, lists of names */
	{"c.lua", ""},			/* C's spelling of types, values and signatures */
	{"words.lua", "explain."},	/* the wording of --explain in each language */
	{NULL, NULL}
};

/* Append the string on top of L, the result of template NAME, to OUT and pop it. */
static int
take_result(lua_State *L, const char *name, struct strbuf *out)
{
	size_t len;
	const char *s = lua_tolstring(L, -1, &len);

	if (!s) {
		error("template '%s' did not give a string", name);
		lua_pop(L, 1);
		return -1;
	}
	sb_addn(out, s, len);
	lua_pop(L, 1);
	return 0;
}

/*
** Call tmpl.FN for template NAME, with NARGS more arguments on the stack
** (popped), and append the string result to OUT. For "render", the
** arguments are the compiled template and then each helper's; for
** "compile" (--dump-lua), its source and name, read afresh.
** Return 0, or -1 with the error printed.
*/
static int
call_tmpl(lua_State *L, const char *fn, const char *name, int nargs, struct strbuf *out)
{
	int base = lua_gettop(L) - nargs;
	int pushed = 0, render = strcmp(fn, "render") == 0;

	lua_getfield(L, LUA_REGISTRYINDEX, TMPL_KEY);
	lua_getfield(L, -1, fn);
	lua_remove(L, -2);
	lua_insert(L, base + 1);
	if (render && push_chunk(L, name, "template") == 0)
		pushed = 1;
	else if (!render && push_template(L, name, 0) == 0)
		pushed = 2;
	if (!pushed) {
		lua_settop(L, base);
		return -1;
	}
	for (const struct helper *h = helpers; render && h->name; h++) {
		if (strncmp(name, h->prefix, strlen(h->prefix)) != 0)
			continue;
		if (push_chunk(L, h->name, "helper") != 0) {
			lua_settop(L, base);
			return -1;
		}
		pushed++;
	}
	lua_rotate(L, base + 2, pushed);
	if (docall(L, pushed + nargs) != 0)
		return -1;
	return take_result(L, name, out);
}

/* What lhost_render and lhost_dump_lua ask of call_tmpl. */
struct tmpl_call {
	const char *fn, *name;
	int nargs;
	struct strbuf *out;
};

/* call_tmpl with the arguments in UD, a struct tmpl_call, for lhost_protect. */
static int
protected_call_tmpl(lua_State *L, void *ud)
{
	const struct tmpl_call *c = ud;

	return call_tmpl(L, c->fn, c->name, c->nargs, c->out);
}

/* Count hook of a template run: stop bcastgen when it runs too long. */
static void
time_hook(lua_State *L, lua_Debug *ar)
{
	struct budget *b;

	(void)ar;
	lua_getallocf(L, (void **)&b);
	if (++b->steps > (long)LHOST_MILLIONS * 1000000 / LHOST_STEPS
	    || (double)(clock() - b->start) > (double)LHOST_SECONDS * CLOCKS_PER_SEC)
		die("a template runs too long (more than %d million instructions or "
		    "%d s of processor time)", LHOST_MILLIONS, LHOST_SECONDS);
}

/* Run the template call C protected, within the bounds of one run. */
static int
bounded_call_tmpl(lua_State *L, int nargs, struct tmpl_call *c)
{
	struct budget *b;
	int status;

	lua_getallocf(L, (void **)&b);
	b->steps = 0;
	b->start = clock();
	lua_sethook(L, time_hook, LUA_MASKCOUNT, LHOST_STEPS);
	status = lhost_protect(L, nargs, protected_call_tmpl, c);
	lua_sethook(L, NULL, 0, 0);
	return status;
}

/*
** Render template NAME with the model table on top of the stack (popped)
** and append the text to OUT. Return 0, or -1 with the error printed.
*/
int
lhost_render(lua_State *L, const char *name, struct strbuf *out)
{
	struct tmpl_call c = {"render", name, 1, out};

	return bounded_call_tmpl(L, 1, &c);
}

/* Append the Lua source that template NAME compiles to (--dump-lua). */
int
lhost_dump_lua(lua_State *L, const char *name, struct strbuf *out)
{
	struct tmpl_call c = {"compile", name, 0, out};

	return bounded_call_tmpl(L, 0, &c);
}
