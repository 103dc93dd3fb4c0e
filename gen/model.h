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

#endif
