/*
** main.c: bcastgen as a list of phases over one run, as lemon's main:
** read the kernel descriptions (the command line, or a spec file), then
** for each kernel resolve the broadcasting, plan the walk over the
** result and render it through the templates, then render the files
** and write them, all or none.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "lhost.h"
#include "model.h"
#include "names.h"
#include "output.h"
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
	int contract;			/* some kernel's float multiply may meet an add */
	int f16;			/* some kernel's signature has bc_f16 */
	struct names names;		/* every name the file holds */
	struct strbuf ctext, htext;	/* the files */
	const char *file;		/* FILE.c: -o's, or the one --explain shows */
	struct strbuf hpath;		/* its FILE.h */
	clock_t mark;			/* --timings: the processor time at the last lap */
	double time[NPHASES];		/* --timings: seconds in each phase */
};

/*
** With --timings, add the processor time since the last lap to phase P
** of R and start the next lap; otherwise do nothing.
*/
static void
lap(struct run *r, enum phase p)
{
	clock_t now;

	if (!r->cli.timings)
		return;
	now = clock();
	r->time[p] += (double)(now - r->mark) / CLOCKS_PER_SEC;
	r->mark = now;
}

/* Print the --timings line of R to stderr: the seconds of each phase. */
static void
print_timings(const struct run *r)
{
	fprintf(stderr, "%s: timings: read %.3f s, plan %.3f s, render %.3f s, "
	        "write %.3f s, %d kernel%s\n", progname, r->time[READ], r->time[PLAN],
	        r->time[RENDER], r->time[WRITE], r->n, r->n == 1 ? "" : "s");
}

/*
** Die with ERR about the kernel D: at its spec line, if it has one, or
** at the line of its field FAULT (NULL: none is at fault).
*/
static void
die_kernel(const struct run *r, const struct desc *d, const char *fault, const char *err)
{
	struct strbuf at = {0};

	if (!d->line)
		die("%s", err);
	sb_printf(&at, "%s:%d", r->cli.spec, spec_field_line(&r->spec, d, fault));
	die_at(at.s, "kernel '%s': %s", d->name, err);
}

/*
** The words of the messages about results in place, of another shape,
** or too long to list, in each language, as printf formats that take
** their arguments in the same order in every language.
*/
static const struct main_words {
	const char *inplace;		/* the operand; then the result shape */
	const char *not_shape_of;	/* the operand; then its shape */
	const char *result_shape;	/* then the result shape */
	const char *not_out_shape;	/* then how its source names --out-shape, its shape */
	const char *inplace_dtype;	/* the operand, its dtype, the result's */
	const char *elements;		/* the most listed, the result's count */
	const char *operand_limit;	/* the limit, the operands */
} main_words[NLANGS] = {
	{
		"cannot write the result in place into '%s': the result shape ",
		" is not the shape of '%s' ",
		"the result shape ",
		" is not the %s ",
		"--inplace writes the result into '%s', whose dtype %s is not the result's %s",
		"--elements lists at most %d elements, and the result has %llu: leave it "
		"out, or explain smaller shapes",
		"a kernel takes at most %d operands (C guarantees that many parameters to "
		"a function), and there are %d"
	}, {
		"不能把结果原地写回 '%s'：结果的形状 ",
		" 不是 '%s' 的形状 ",
		"结果的形状 ",
		" 不是 %s ",
		"--inplace 把结果写回 '%s'，它的类型 %s 不是结果的类型 %s",
		"--elements 最多列出 %d 个元素，而结果有 %llu 个：去掉 --elements，或者"
		"解释更小的形状",
		"一个内核最多接受 %d 个张量（C 保证函数至少可以有这么多参数），这里有 %d 个"
	}
};

/*
** Resolve the broadcasting of D's operands into K->b (copy stretches its
** operand to its out shape) and check the result against the options:
** --inplace needs the first operand's shape, --out-shape the result's.
** Append any error to ERR, and return the field at fault, or NULL.
*/
static const char *
resolve_broadcast(struct desc *d, struct kernel *k, struct strbuf *err)
{
	const struct main_words *w = &main_words[d->lang];
	struct shape result;
	int nops = d->nops;

	if (!d->expr_src && d->op->kind == OP_COPY && d->has_out_shape && !d->axis_mode)
		d->operand[nops++] = d->out_shape;	/* the room desc.c keeps */
	bcast_resolve(&k->b, d->operand, nops, d->axis_mode, d->axis);
	if (k->b.err) {
		bcast_format_error(err, &k->b, d->lang);
		return k->b.err == BC_ERR_AXIS || k->b.err == BC_ERR_OPERANDS ? "axis" : NULL;
	}
	bcast_result_shape(&k->b, &result);
	if (d->inplace && !shape_equal(&result, &d->operand[0].shape)) {
		sb_printf(err, w->inplace, d->operand[0].name);
		shape_format(err, &result);
		sb_printf(err, w->not_shape_of, d->operand[0].name);
		shape_format(err, &d->operand[0].shape);
		return "inplace";
	} else if (d->has_out_shape && !shape_equal(&result, &d->out_shape.shape)) {
		sb_add(err, w->result_shape);
		shape_format(err, &result);
		sb_printf(err, w->not_out_shape, d->source == FROM_CLI ? "--out-shape" : "out_shape");
		shape_format(err, &d->out_shape.shape);
		return "out_shape";
	}
	return NULL;
}

/*
** Describe for the templates the kernel D into K: its name (--name,
** the spec's, or the base of FILE, FILE.c), types and texts, the names
** checked. Append any error to ERR, and return the field at fault, or NULL.
*/
static const char *
describe(const char *file, struct desc *d, struct kernel *k, struct strbuf *err)
{
	struct strbuf name = {0}, command = {0}, formula = {0};
	const char *base = cli_base_name(file);

	k->desc = d;
	if (d->name)
		sb_add(&name, d->name);
	else
		sb_printf(&name, "%.*s", (int)strlen(base) - 2, base);
	k->name = name.s;
	k->out_dtype = d->out_dtype ? d->out_dtype : d->expr.node[d->expr.root].type;
	desc_command(&command, d, k->name);
	k->command = command.s;
	desc_formula(&formula, d);
	k->formula = formula.s;
	if (names_check_chosen(k, !d->name, err) != 0)
		return NULL;
	if (d->inplace && d->stored[0] != k->out_dtype) {
		sb_printf(err, main_words[d->lang].inplace_dtype, d->operand[0].name,
		          d->stored[0]->name, k->out_dtype->name);
		return "inplace";
	}
	return NULL;
}

/*
** Plan kernel K: every decision about its code. Append any error to
** ERR, and return the field at fault, or NULL.
*/
static const char *
plan(struct kernel *k, struct strbuf *err)
{
	const struct desc *d = k->desc;
	struct plan_request rq = {
		d->nops, d->inplace, d->strategy, d->unroll_limit,
		d->nloop_order ? d->loop_order : NULL, d->nloop_order, d->stream, d->cache_size,
		&d->expr, d->dtype, d->stored, k->out_dtype, d->goal, d->source == FROM_SPEC,
		d->target
	};

	plan_build(&k->plan, &k->b, &rq, err);
	return k->plan.fault;
}

/* The arguments of render_kernel's protected part. */
struct kernel_render {
	struct run *r;
	const struct kernel *k;
	int i;
	struct strbuf *c, *h;
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
	if (lhost_render(L, "kernel.c.lt", a->c) != 0 || lhost_render(L, "kernel.h.lt", a->h) != 0)
		return -1;
	model_read_declared(L, -1, &a->r->names, a->i);
	lua_pop(L, 1);
	return 0;
}

/*
** Render kernel K, the I-th, its function and header part into C and H,
** and note the names it holds: those the user chose, those the templates
** declared. Exits on a template error.
*/
static void
render_kernel(struct run *r, const struct kernel *k, int i, struct strbuf *c, struct strbuf *h)
{
	struct strbuf fn = {0}, operand = {0};
	struct kernel_render a = {r, k, i, c, h};

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
	r->contract |= k->plan.contract;
	r->f16 |= k->out_dtype->compute != NULL;
	for (int j = 0; j < k->desc->nops; j++)
		r->f16 |= k->desc->stored[j]->compute != NULL;
}

/* Free what the phases put in K. */
static void
kernel_free(struct kernel *k)
{
	plan_free(&k->plan);
	bcast_free(&k->b);
	free(k->name);
	free(k->command);
	free(k->formula);
}

/* Make room in R for the function and header parts of N kernels, empty. */
static void
alloc_parts(struct run *r, int n)
{
	r->c = xmalloc((size_t)n * sizeof *r->c);
	r->h = xmalloc((size_t)n * sizeof *r->h);
	memset(r->c, 0, (size_t)n * sizeof *r->c);
	memset(r->h, 0, (size_t)n * sizeof *r->h);
}

/*
** Resolve, plan and render each kernel of R in turn. Dies on the first
** error, naming its kernel, or when the files would pass OUTPUT_MAX_BYTES.
*/
static void
generate(struct run *r)
{
	struct kernel *k = xmalloc(sizeof *k);
	size_t bytes = 0;

	alloc_parts(r, r->n);
	for (int i = 0; i < r->n; i++) {
		struct strbuf err = {0};
		const char *fault;	/* the field an error is about, or NULL */

		memset(k, 0, sizeof *k);
		/* Resolve the broadcasting. */
		fault = resolve_broadcast(&r->desc[i], k, &err);
		if (!err.s)
			fault = describe(r->cli.output, &r->desc[i], k, &err);
		/* Plan the walk over the result. */
		if (!err.s)
			fault = plan(k, &err);
		if (err.s)
			die_kernel(r, &r->desc[i], fault, err.s);
		lap(r, PLAN);
		/* Render it. */
		render_kernel(r, k, i, &r->c[i], &r->h[i]);
		kernel_free(k);
		lap(r, RENDER);
		bytes += r->c[i].len + r->h[i].len;
		if (bytes > OUTPUT_MAX_BYTES)
			die_kernel(r, &r->desc[i], NULL, "the generated files would pass the limit of "
			           "64 MB, more than a compiler takes in reasonable time: "
			           "split the kernels into several files");
	}
	free(k);
}

/* Set field KEY of the table on top to the sequence PARTS[0..N), each without its final newline. */
static void
set_parts(lua_State *L, const char *key, const struct strbuf *parts, int n)
{
	lua_createtable(L, n, 0);
	for (int i = 0; i < n; i++) {
		size_t len = parts[i].len;

		lua_pushlstring(L, parts[i].s ? parts[i].s : "",
		                len && parts[i].s[len - 1] == '\n' ? len - 1 : len);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, key);
}

/*
** Render the files of run UD (a struct run) from the kernels' parts, run
** by lhost_protect. Return -1 on a template error, printed.
*/
static int
render_files_lua(lua_State *L, void *ud)
{
	struct run *r = ud;
	const char *base = cli_base_name(r->file);

	lua_createtable(L, 0, 7);
	lua_pushstring(L, base);
	lua_setfield(L, -2, "file");
	lua_pushstring(L, cli_base_name(r->hpath.s));
	lua_setfield(L, -2, "header");
	lua_pushboolean(L, r->libm);
	lua_setfield(L, -2, "libm");
	lua_pushboolean(L, r->stream);
	lua_setfield(L, -2, "stream");
	lua_pushboolean(L, r->contract);
	lua_setfield(L, -2, "contract");
	lua_pushboolean(L, r->f16);
	lua_setfield(L, -2, "f16");
	lua_newtable(L);
	lua_setfield(L, -2, "declared");
	if (r->cli.spec) {
		lua_pushstring(L, cli_base_name(r->cli.spec));
		lua_setfield(L, -2, "spec");
	}
	set_parts(L, "kernels", r->c, r->n);
	lua_pushvalue(L, -1);
	if (lhost_render(L, "file.c.lt", &r->ctext) != 0)
		return -1;
	set_parts(L, "kernels", r->h, r->n);
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
static void
render_files(struct run *r, const char *file)
{
	r->file = file;
	sb_printf(&r->hpath, "%.*s.h", (int)strlen(file) - 2, file);
	if (lhost_protect(r->L, 0, render_files_lua, r) != 0)
		exit(EXIT_INPUT);
}

/* Check every name the file holds against the others; die on a clash. */
static void
check_names(struct run *r)
{
	struct strbuf err = {0};
	int at = names_check_clashes(&r->names, &err);

	if (at >= 0)
		die_kernel(r, &r->desc[at], NULL, err.s);
	if (at == -1)
		die("%s", err.s);
}

/*
** Write R's files, and the depfile if asked, all or none: the outputs
** depend on the spec and the templates read from --templates DIR, and
** none of them may be one of those or another output. Exits 1 on any
** error.
*/
static void
write_files(struct run *r)
{
	const char *targets[2];
	struct output_name out[3], *in;
	struct output o = {0};
	struct strbuf dep = {0};
	int nread, nout = 0, nin = 0;
	const char **read = lhost_files_read(r->L, &nread), **pre;

	in = xmalloc((size_t)(nread + 1) * sizeof *in);
	pre = xmalloc((size_t)(nread + 1) * sizeof *pre);
	out[nout++] = (struct output_name){r->cli.output, "output"};
	out[nout++] = (struct output_name){r->hpath.s, "output"};
	if (r->cli.depfile)
		out[nout++] = (struct output_name){r->cli.depfile, "depfile"};
	if (r->cli.spec)
		in[nin++] = (struct output_name){r->cli.spec, "spec"};
	for (int i = 0; i < nread; i++)
		in[nin++] = (struct output_name){read[i], "template"};
	for (int i = 0; i < nin; i++)
		pre[i] = in[i].path;
	if (output_check(out, nout, in, nin) != 0)
		goto fail;
	if (r->cli.depfile) {
		targets[0] = r->cli.dep_target ? r->cli.dep_target : r->cli.output;
		targets[1] = r->hpath.s;
		if (output_depfile(&dep, targets, r->cli.dep_target ? 1 : 2, pre, nin) != 0)
			goto fail;
	}
	if (output_add(&o, r->cli.output, &r->ctext) != 0
	    || output_add(&o, r->hpath.s, &r->htext) != 0
	    || (r->cli.depfile && output_add(&o, r->cli.depfile, &dep) != 0)
	    || output_commit(&o) != 0)
		goto fail;
	sb_free(&dep);
	free(read);
	free(in);
	free(pre);
	return;
fail:
	output_abort(&o);
	exit(EXIT_INPUT);
}

/* Print the result of the command line's kernel: --shape, or the operands and result. */
static void
print_result(const struct run *r, const struct bcast *b, struct strbuf *out)
{
	struct shape result;

	bcast_result_shape(b, &result);
	if (r->cli.shape) {
		shape_format_sizes(out, &result);
		sb_add(out, "\n");
		return;
	}
	for (int i = 0; i < r->cli_kernel.nops; i++) {
		sb_add(out, r->cli_kernel.operand[i].name);
		shape_format(out, &r->cli_kernel.operand[i].shape);
		sb_add(out, " ");
	}
	sb_add(out, "-> ");
	shape_format(out, &result);
	sb_add(out, "\n");
}

/* The arguments of explain_lua. */
struct explain_render {
	const struct run *r;
	const struct kernel *k;
	int planned;		/* K has a plan: its model is the kernel's */
	const char *no_kernel;	/* else why not, if the broadcast worked */
	struct strbuf *out;
};

/*
** The template of each --format; whether it shows the kernel's C; and
** the field of a page's model that holds what it renders, if a page
** holds it.
*/
static const struct explain_template {
	const char *name;
	int with_c;
	const char *part;
} explain_templates[NFORMATS] = {
	{"explain.txt.lt", 0, "text"},
	{"explain.svg.lt", 0, "svg"},
	{"explain.html.lt", 1, NULL}
};

/*
** Render the explanation of UD (a struct explain_render) in its format,
** run by lhost_protect: the model of its kernel (or of its broadcast
** alone, when no plan was made), with the language, --elements, and for
** a page the kernel's file; a page holds the text and the picture too.
*/
static int
explain_lua(lua_State *L, void *ud)
{
	const struct explain_render *a = ud;
	const struct run *r = a->r;
	const struct explain_template *f = &explain_templates[r->cli.as];

	if (a->planned)
		model_push_kernel(L, a->k);
	else
		model_push_bcast(L, &a->k->b, r->cli_kernel.inplace);
	lua_pushstring(L, lang_names[r->cli_kernel.lang]);
	lua_setfield(L, -2, "lang");
	lua_pushboolean(L, r->cli.elements && a->planned);
	lua_setfield(L, -2, "elements");
	if (a->no_kernel) {
		lua_pushstring(L, a->no_kernel);
		lua_setfield(L, -2, "no_kernel");
	}
	if (a->planned) {
		struct strbuf marked = {0};

		desc_formula_marked(&marked, &r->cli_kernel);
		lua_pushstring(L, marked.s);
		lua_setfield(L, -2, "formula_marked");
		sb_free(&marked);
	}
	for (int i = 0; f->with_c && i < NFORMATS; i++) {
		struct strbuf part = {0};

		if (!explain_templates[i].part)
			continue;
		lua_pushvalue(L, -1);
		if (lhost_render(L, explain_templates[i].name, &part) != 0)
			return -1;
		lua_pushstring(L, part.s ? part.s : "");
		lua_setfield(L, -2, explain_templates[i].part);
		sb_free(&part);
	}
	if (f->with_c) {
		lua_pushstring(L, r->ctext.s ? r->ctext.s : "");
		lua_setfield(L, -2, "c_file");
	}
	return lhost_render(L, f->name, a->out);
}

/*
** Explain the broadcasting of the command line's kernel and the loops
** it becomes, print its result shape, or without either its operands
** and result. Dies on an error, after the explanation up to it.
*/
static void
answer(struct run *r)
{
	struct kernel *k = xmalloc(sizeof *k);
	struct strbuf out = {0}, err = {0}, file = {0}, limit = {0};
	struct desc *d = &r->cli_kernel;
	const struct main_words *w = &main_words[d->lang];
	int planned = 0, broadcast;
	struct shape result;

	memset(k, 0, sizeof *k);
	resolve_broadcast(d, k, &err);
	broadcast = !err.s;
	if (broadcast && r->cli.elements) {
		uint64_t count;

		bcast_result_shape(&k->b, &result);
		if ((count = shape_count(&result)) > CLI_ELEMENTS_MAX)
			die(w->elements, CLI_ELEMENTS_MAX, (unsigned long long)count);
	}
	/* the kernel, as -o would make it (named after -o's FILE.c, or else
	 * --name's); past the operand limit, none, and the explanation says
	 * so as it says why on any error */
	if (r->cli.output)
		sb_add(&file, r->cli.output);
	else
		sb_printf(&file, "%s.c", d->name ? d->name : "kernel");
	if (r->cli.explain && broadcast && d->nops > PLAN_MAX_INPUTS) {
		sb_printf(&limit, w->operand_limit, PLAN_MAX_INPUTS, d->nops);
	} else if (r->cli.explain && broadcast) {
		describe(file.s, d, k, &err);
		if (!err.s)
			plan(k, &err);
		planned = !err.s;
	}
	if (planned && explain_templates[r->cli.as].with_c) {
		r->desc = d;
		r->n = 1;
		alloc_parts(r, 1);
		render_kernel(r, k, 0, r->c, r->h);
		render_files(r, file.s);
		check_names(r);
	}
	if (r->cli.explain) {
		struct explain_render a = {r, k, planned, limit.s ? limit.s : broadcast ? err.s : NULL,
		                           &out};

		if (lhost_protect(r->L, 0, explain_lua, &a) != 0)
			exit(EXIT_INPUT);
	}
	if (err.s) {
		if (out.s)
			fputs(out.s, stdout);
		fflush(stdout);
		die("%s", err.s);
	}
	if (r->cli.shape || !r->cli.explain)
		print_result(r, &k->b, &out);
	/* before -o writes its files, so that a failure leaves none */
	put_stdout(out.s);
	sb_free(&out);
	sb_free(&file);
	sb_free(&limit);
	kernel_free(k);
	free(k);
}

/*
** Run bcastgen on the words ARGV[0..ARGC): main's body. Each call starts
** from a fresh run, so a test harness may call it again in one process
** (with exit turned into a jump back to it, and what the previous call
** held freed by the harness).
*/
int bcastgen_main(int argc, char **argv);

int
bcastgen_main(int argc, char **argv)
{
	static struct run r;
	struct strbuf out = {0};

	memset(&r, 0, sizeof r);
	r.mark = clock();
	/* Read: the command line, and the spec file it names. */
	cli_read(argc, argv, &r.cli, &r.cli_kernel);
	lap(&r, READ);
	if (r.cli.tmpldir || r.cli.dump_lua || r.cli.explain || r.cli.output)
		r.L = lhost_open(r.cli.tmpldir);
	lap(&r, RENDER);
	if (r.cli.dump_lua) {
		if (lhost_dump_lua(r.L, r.cli.dump_lua, &out) != 0)
			exit(EXIT_INPUT);
		finish(out.s, EXIT_OK);
	}
	if (r.cli.spec) {
		spec_read(r.cli.spec, &r.spec);
		r.desc = r.spec.kernel;
		r.n = r.spec.n;
	} else {
		r.desc = &r.cli_kernel;
		r.n = 1;
	}
	lap(&r, READ);
	/* Without -o: explain or print the result. */
	if (!r.cli.output || r.cli.explain || r.cli.shape)
		answer(&r);
	lap(&r, RENDER);
	if (!r.cli.output)
		finish(NULL, EXIT_OK);

	/* Resolve, plan and render each kernel. */
	generate(&r);

	/* Render the files, check the names they hold, and write them. */
	render_files(&r, r.cli.output);
	check_names(&r);
	lap(&r, RENDER);
	write_files(&r);
	lap(&r, WRITE);
	if (r.cli.timings)
		print_timings(&r);
	finish(NULL, EXIT_OK);
	return 0;
}

/* The program: one run on its command line. */
int
main(int argc, char **argv)
{
	return bcastgen_main(argc, argv);
}
