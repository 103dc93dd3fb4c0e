/*
** run.h: one run of bcastgen, phase after phase, as main.c lists them:
** read (run.c), resolve, describe and plan each kernel (kernel.c),
** render (render.c), write (write.c), or explain (explain.c). Each
** phase is a function over the one struct run.
*/
#ifndef RUN_H
#define RUN_H

#include <time.h>

#include "cli.h"
#include "kernel.h"
#include "lhost.h"
#include "names.h"
#include "spec.h"

/* The phases that --timings reports, in its order. */
enum phase { READ, PLAN, RENDER, WRITE, NPHASES };

/* Everything one run of bcastgen knows, phase after phase. */
struct run {
	struct cli cli;			/* what was asked */
	struct desc cli_kernel;		/* the command line's kernel */
	struct spec spec;		/* or the spec file's kernels */
	struct desc *desc;		/* the kernels to generate */
	int n;
	lua_State *L;			/* renders the templates */
	struct strbuf *c, *h;		/* each kernel's function and header part */
	int libm;			/* some kernel needs bc_math.h */
	int stream;			/* some kernel streams: bc_stream.h */
	int f16_lines;			/* some kernel converts f16 lines: bc_f16.h */
	int quant;			/* some kernel is quantized: bc_quant.h */
	int contract;			/* some kernel's float multiply may meet an add */
	int f16;			/* some kernel's signature has bc_f16 */
	struct names names;		/* every name the file holds */
	struct strbuf ctext, htext;	/* the files */
	const char *file;		/* FILE.c: -o's, or the one --explain shows */
	struct strbuf hpath;		/* its FILE.h */
	clock_t mark;			/* --timings: the processor time at the last lap */
	double time[NPHASES];		/* --timings: seconds in each phase */
};

/* run.c: the run itself, and the read phase */
void run_lap(struct run *r, enum phase p);
void run_print_timings(const struct run *r);
void run_die_kernel(const struct run *r, const struct desc *d, const char *fault,
                    const char *err);
void run_read(struct run *r, int argc, char **argv);

/* kernel.c: resolve, describe and plan one kernel; all of them in turn */
const char *kernel_resolve(struct desc *d, struct kernel *k, struct strbuf *err);
const char *kernel_describe(const char *file, struct desc *d, struct kernel *k,
                            struct strbuf *err);
const char *kernel_plan(struct kernel *k, struct strbuf *err);
void kernel_free(struct kernel *k);
void kernel_generate(struct run *r);

/* render.c: the kernels' parts, the files, the names they hold */
void render_alloc_parts(struct run *r, int n);
void render_kernel(struct run *r, const struct kernel *k, int i);
void render_files(struct run *r, const char *file);
void render_check_names(struct run *r);

/* write.c: the files, all or none */
void write_files(struct run *r);

/* explain.c: without -o, or with --explain or --shape */
void explain_answer(struct run *r);

#endif
