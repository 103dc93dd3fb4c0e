/*
** explain.c: what a run without -o answers, or with --explain or
** --shape: the explanation of the command line's kernel (text, picture
** or page), made by the same phases as its kernel (kernel.c, render.c),
** or its result shape.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "run.h"

/*
** The words of the messages about --elements and the operand limit, in
** each language, as printf formats that take their arguments in the
** same order in every language.
*/
static const struct explain_words {
	const char *elements;		/* the most listed, the result's count */
	const char *values_limit;	/* the same, for --values */
	const char *values_op;		/* what --values cannot compute */
	const char *values_constant;	/* a constant it cannot take */
	const char *operand_limit;	/* the limit, the operands */
} explain_words[NLANGS] = {
	{
		"--elements lists at most %d elements, and the result has %llu: leave it "
		"out, or explain smaller shapes",
		"--values shows at most %d values, and the result has %llu: leave it "
		"out, or explain smaller shapes",
		"--values arange computes +, -, *, maximum, minimum, negative and "
		"absolute on numbers, and this kernel computes %s",
		"--values arange computes on integers, and this kernel has the constant %s",
		"a kernel takes at most %d operands (C guarantees that many parameters to "
		"a function), and there are %d"
	}, {
		"--elements 最多列出 %d 个元素，而结果有 %llu 个：去掉 --elements，或者"
		"解释更小的形状",
		"--values 最多显示 %d 个值，而结果有 %llu 个：去掉 --values，或者"
		"解释更小的形状",
		"--values arange 只计算数的 +、-、*、maximum、minimum、negative 和 "
		"absolute，而这个核函数计算 %s",
		"--values arange 只用整数计算，而这个核函数里有常数 %s",
		"一个核函数最多接受 %d 个张量（C 保证函数至少可以有这么多参数），这里有 %d 个"
	}
};

/* The ops --values arange computes: exact on integers, wrapped as C wraps them. */
static const enum op_id arange_ops[] = {
	OP_ID_ADD, OP_ID_SUBTRACT, OP_ID_MULTIPLY, OP_ID_MAXIMUM, OP_ID_MINIMUM,
	OP_ID_NEGATIVE, OP_ID_ABSOLUTE
};

/* Whether DIGITS, a literal's magnitude ("12", "1e+02", "0.5"), is an integer below 2^53. */
static int
is_integer(const char *digits)
{
	char *end;
	double v = strtod(digits, &end);

	return *end == '\0' && v < 9007199254740992.0 && v == (double)(long long)v;
}

/*
** What of plan P --values arange cannot compute, as its message names
** it: an op not in arange_ops, a comparison, a quantized step or a
** constant that is not an integer (*CONSTANT set); NULL if none.
*/
static const char *
arange_refuses(const struct plan *p, int *constant)
{
	*constant = 0;
	for (int i = 0; i < p->nvalues; i++) {
		const struct plan_value *v = &p->value[i];
		size_t k = 0;

		if (v->kind == VALUE_QUANT)
			return "a quantized step";
		if (v->kind == VALUE_LITERAL && !is_integer(v->digits)) {
			*constant = 1;
			return v->digits;
		}
		if (v->kind != VALUE_OP || !v->op)
			continue;
		while (k < sizeof arange_ops / sizeof arange_ops[0] && arange_ops[k] != v->op->id)
			k++;
		if (k == sizeof arange_ops / sizeof arange_ops[0] || v->is_bool)
			return v->op->name;
	}
	return NULL;
}

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

/* The arguments of explain_lua. */
struct explain_render {
	const struct run *r;
	const struct kernel *k;
	int planned;		/* K has a plan: its model is the kernel's */
	const char *no_kernel;	/* else why not, if the broadcast worked */
	struct strbuf *out;
};

/* Print the result of R's command line kernel, broadcast as B: --shape, or the operands and result. */
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

/*
** Render the explanation of UD (a struct explain_render) in its format,
** run by lhost_protect: the model of its kernel (or of its broadcast
** alone, when no plan was made), and for a page the kernel's file; a
** page holds the text and the picture too.
*/
static int
explain_lua(lua_State *L, void *ud)
{
	const struct explain_render *a = ud;
	const struct run *r = a->r;
	const struct explain_template *f = &explain_templates[r->cli.as];
	int with_c = f->with_c && r->cli.depth == DEPTH_KERNEL;

	/* a page flows its paragraphs: its text is a paragraph a line */
	model_push_explain(L, a->planned ? a->k : NULL, &a->k->b, &r->cli_kernel,
	                   explain_depth_names[r->cli.depth], f->with_c ? 0 : r->cli.wrap,
	                   r->cli.elements, r->cli.values != NULL, a->no_kernel);
	for (int i = 0; f->with_c && i < NFORMATS; i++) {
		struct strbuf part = {0};

		if (!explain_templates[i].part)
			continue;
		lua_pushvalue(L, -1);
		if (lhost_render(L, explain_templates[i].name, &part) != 0)
			return -1;
		model_set_text(L, explain_templates[i].part, part.s);
		sb_free(&part);
	}
	if (with_c)
		model_set_text(L, "c_file", r->ctext.s);
	return lhost_render(L, f->name, a->out);
}

/*
** Explain the broadcasting of R's command line kernel and the loops it
** becomes, print its result shape, or without either its operands and
** result. The kernel goes through the phases -o would take it through,
** named after -o's FILE.c, or else --name's; past the operand limit it
** is not planned, and the explanation says so as it says why on any
** error. Dies on an error, after the explanation up to it.
*/
void
explain_answer(struct run *r)
{
	struct kernel *k = xmalloc(sizeof *k);
	struct strbuf out = {0}, err = {0}, file = {0}, limit = {0};
	struct desc *d = &r->cli_kernel;
	const struct explain_words *w = &explain_words[d->lang];
	int planned = 0, broadcast;
	struct shape result;

	memset(k, 0, sizeof *k);
	kernel_resolve(d, k, &err);
	broadcast = !err.s;
	if (broadcast && (r->cli.elements || r->cli.values)) {
		uint64_t count;

		bcast_result_shape(&k->b, &result);
		if ((count = shape_count(&result)) > CLI_ELEMENTS_MAX)
			die(r->cli.elements ? w->elements : w->values_limit, CLI_ELEMENTS_MAX,
			    (unsigned long long)count);
	}
	if (r->cli.output)
		sb_add(&file, r->cli.output);
	else
		sb_printf(&file, "%s.c", d->name ? d->name : "kernel");
	if (r->cli.explain && broadcast && d->nops > PLAN_MAX_INPUTS) {
		sb_printf(&limit, w->operand_limit, PLAN_MAX_INPUTS, d->nops);
	} else if (r->cli.explain && broadcast) {
		kernel_describe(file.s, d, k, &err);
		if (!err.s)
			kernel_plan(k, &err);
		planned = !err.s;
		if (planned && r->cli.values) {
			int constant;
			const char *what = arange_refuses(&k->plan, &constant);

			if (what)
				die(constant ? w->values_constant : w->values_op, what);
		}
	}
	if (planned && explain_templates[r->cli.as].with_c && r->cli.depth == DEPTH_KERNEL) {
		r->desc = d;
		r->n = 1;
		render_alloc_parts(r, 1);
		render_kernel(r, k, 0);
		render_files(r, file.s);
		render_check_names(r);
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
