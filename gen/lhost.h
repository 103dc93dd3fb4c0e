/*
** lhost.h: the embedded Lua interpreter that renders templates.
*/
#ifndef LHOST_H
#define LHOST_H

#include <lua.h>

#include "util.h"

/* The bytes a Lua state allocated, and how many it may (lhost_alloc). */
struct lhost_memory {
	size_t used;
	size_t limit;
};

void *lhost_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
lua_State *lhost_new_state(struct lhost_memory *m);
int lhost_protect(lua_State *L, int nargs, int (*fn)(lua_State *L, void *ud), void *ud);

lua_State *lhost_open(const char *tmpldir);
void lhost_close(lua_State *L);
int lhost_render(lua_State *L, const char *name, struct strbuf *out);
int lhost_dump_lua(lua_State *L, const char *name, struct strbuf *out);

const char **lhost_files_read(lua_State *L, int *n);
void lhost_open_safe_libs(lua_State *L);
int lhost_msghandler(lua_State *L);

#endif
