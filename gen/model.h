/*
** model.h: the Lua tables that templates read. Building them allocates:
** call these inside a protected call (lhost_protect), so that running
** out of memory is an error rather than a panic.
*/
#ifndef MODEL_H
#define MODEL_H

#include <lua.h>

#include "bcast.h"
#include "kernel.h"
#include "names.h"

void model_push_bcast(lua_State *L, const struct bcast *b, int inplace);
void model_push_kernel(lua_State *L, const struct kernel *k);
void model_read_declared(lua_State *L, int idx, struct names *ns, int kernel);

/* What the files' model holds besides their kernels' parts: see model_push_files. */
struct model_files {
	const char *file, *header;	/* the base names of FILE.c and FILE.h */
	const char *spec;		/* the spec's, or NULL */
	int libm, stream, contract, f16, f16_lines, quant;	/* some kernel needs it */
};

void model_push_files(lua_State *L, const struct model_files *f);
void model_set_parts(lua_State *L, const char *key, const struct strbuf *parts, int n);
void model_set_text(lua_State *L, const char *key, const char *text);
void model_push_explain(lua_State *L, const struct kernel *k, const struct bcast *b,
                        const struct desc *d, const char *depth, int columns,
                        int elements, int arange, const char *no_kernel);

#endif
