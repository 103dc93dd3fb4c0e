/*
** render.c: the render phase: each kernel's function and header part
** through kernel.c.lt and kernel.h.lt, then the files through file.c.lt
** and file.h.lt, and the check of every name they hold.
*/
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "run.h"

/* Make room in R for the function and header parts of N kernels, empty. */
void
render_alloc_parts(struct run *r, int n)
{
	r->c = xmalloc((size_t)n * sizeof *r->c);
	r->h = xmalloc((size_t)n * sizeof *r->h);
	memset(r->c, 0, (size_t)n * sizeof *r->c);
	memset(r->h, 0, (size_t)n * sizeof *r->h);
}

/* The arguments of render_kernel's protected part. */
struct kernel_render {
	struct run *r;
	const struct kernel *k;
	int i;
};

/*
** render_kernel's Lua work, run by lhost_protect with UD a struct
** kernel_render: build the model, render both parts, read the names the
** templates declared. Return -1 on a template error, printed.
*/
static int
render_kernel_lua(lua_State *L, void *ud)
{
	struct kernel_render *a = ud;

	model_push_kernel(L, a->k);
	lua_pushvalue(L, -1);
	lua_pushvalue(L, -1);
	if (lhost_render(L, "kernel.c.lt", &a->r->c[a->i]) != 0
	    || lhost_render(L, "kernel.h.lt", &a->r->h[a->i]) != 0)
		return -1;
	model_read_declared(L, -1, &a->r->names, a->i);
	lua_pop(L, 1);
	return 0;
}

/*
** Render kernel K, the I-th of R, its function and header part, and note
** the names it holds: those the user chose, those the templates
** declared. Assumes R has room for its parts. Exits on a template error.
*/
void
render_kernel(struct run *r, const struct kernel *k, int i)
{
	struct strbuf fn = {0}, operand = {0};
	struct kernel_render a = {r, k, i};

	if (lhost_protect(r->L, 0, render_kernel_lua, &a) != 0)
		exit(EXIT_INPUT);
	sb_printf(&fn, "the function of kernel '%s'", k->name);
	names_add(&r->names, k->name, fn.s, i, 1, 1);
	sb_printf(&operand, "an operand of kernel '%s'", k->name);
	for (int j = 0; j < k->desc->nops; j++)
		names_add(&r->names, k->desc->operand[j].name, operand.s, i, 1, 0);
	sb_free(&fn);
	sb_free(&operand);
	r->libm |= k->plan.libm;
	r->stream |= k->plan.stream != STREAM_NONE;
	r->f16_lines |= k->plan.f16_line > 0;
	r->quant |= k->plan.quant;
	r->contract |= k->plan.contract;
	r->f16 |= k->out_dtype->compute != NULL;
	for (int j = 0; j < k->desc->nops; j++)
		r->f16 |= k->desc->stored[j]->compute != NULL;
}

/*
** Render the files of run UD (a struct run) from the kernels' parts, run
** by lhost_protect. Return -1 on a template error, printed.
*/
static int
render_files_lua(lua_State *L, void *ud)
{
	struct run *r = ud;
	const struct model_files f = {
		.file = cli_base_name(r->file),
		.header = cli_base_name(r->hpath.s),
		.spec = r->cli.spec ? cli_base_name(r->cli.spec) : NULL,
		.libm = r->libm,
		.stream = r->stream,
		.contract = r->contract,
		.f16 = r->f16,
		.f16_lines = r->f16_lines,
		.quant = r->quant,
	};

	model_push_files(L, &f);
	model_set_parts(L, "kernels", r->c, r->n);
	lua_pushvalue(L, -1);
	if (lhost_render(L, "file.c.lt", &r->ctext) != 0)
		return -1;
	model_set_parts(L, "kernels", r->h, r->n);
	lua_pushvalue(L, -1);
	if (lhost_render(L, "file.h.lt", &r->htext) != 0)
		return -1;
	model_read_declared(L, -1, &r->names, -1);
	lua_pop(L, 1);
	return 0;
}

/*
** Render R's two files, FILE.c and FILE.h, from the kernels' parts.
** Exits on a template error.
*/
void
render_files(struct run *r, const char *file)
{
	r->file = file;
	sb_printf(&r->hpath, "%.*s.h", (int)strlen(file) - 2, file);
	if (lhost_protect(r->L, 0, render_files_lua, r) != 0)
		exit(EXIT_INPUT);
}

/* Check every name R's files hold against the others; die on a clash. */
void
render_check_names(struct run *r)
{
	struct strbuf err = {0};
	int at = names_check_clashes(&r->names, &err);

	if (at >= 0)
		run_die_kernel(r, &r->desc[at], NULL, err.s);
	if (at == -1)
		die("%s", err.s);
}
