/*
** kernel.c: the phases of one kernel, from its description to its plan:
** resolve the broadcasting and check the result against the options,
** describe it for the templates (its name, types and texts), and plan
** the walk over the result; then each kernel of a run in turn, rendered.
*/
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "run.h"

/*
** The words of the messages about results in place or of another shape,
** in each language, as printf formats that take their arguments in the
** same order in every language.
*/
static const struct kernel_words {
	const char *inplace;		/* the operand; then the result shape */
	const char *not_shape_of;	/* the operand; then its shape */
	const char *result_shape;	/* then the result shape */
	const char *not_out_shape;	/* then how its source names --out-shape, its shape */
	const char *inplace_dtype;	/* the operand, its dtype, the result's */
} kernel_words[NLANGS] = {
	{
		"cannot write the result in place into '%s': the result shape ",
		" is not the shape of '%s' ",
		"the result shape ",
		" is not the %s ",
		"--inplace writes the result into '%s', whose dtype %s is not the result's %s"
	}, {
		"不能把结果原地写回 '%s'：结果的形状 ",
		" 不是 '%s' 的形状 ",
		"结果的形状 ",
		" 不是 %s ",
		"--inplace 把结果写回 '%s'，它的类型 %s 不是结果的类型 %s"
	}
};

/*
** Resolve the broadcasting of D's operands into K->b (copy stretches its
** operand to its out shape) and check the result against the options:
** --inplace needs the first operand's shape, --out-shape the result's.
** Append any error to ERR, and return the field at fault, or NULL.
*/
const char *
kernel_resolve(struct desc *d, struct kernel *k, struct strbuf *err)
{
	const struct kernel_words *w = &kernel_words[d->lang];
	struct shape result;

	if (!d->expr_src && d->op->kind == OP_COPY && d->has_out_shape && !d->axis_mode)
		bcast_resolve_to(&k->b, d->operand, d->nops, &d->out_shape);
	else
		bcast_resolve(&k->b, d->operand, d->nops, d->axis_mode, d->axis);
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
const char *
kernel_describe(const char *file, struct desc *d, struct kernel *k, struct strbuf *err)
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
		sb_printf(err, kernel_words[d->lang].inplace_dtype, d->operand[0].name,
		          d->stored[0]->name, k->out_dtype->name);
		return "inplace";
	}
	return NULL;
}

/*
** Plan kernel K, described: every decision about its code. Append any
** error to ERR, and return the field at fault, or NULL.
*/
const char *
kernel_plan(struct kernel *k, struct strbuf *err)
{
	const struct desc *d = k->desc;
	struct plan_request rq = {
		.nin = d->nops,
		.inplace = d->inplace,
		.strategy = d->strategy,
		.unroll_limit = d->unroll_limit,
		.loop_order = d->nloop_order ? d->loop_order : NULL,
		.nloop_order = d->nloop_order,
		.stream = d->stream,
		.parallel = d->parallel,
		.cache_size = d->cache_size,
		.expr = &d->expr,
		.dtype = d->dtype,
		.in_dtype = d->stored,
		.out_dtype = k->out_dtype,
		.quant = d->quantized ? &d->quant : NULL,
		.goal = d->goal,
		.spec = d->source == FROM_SPEC,
		.target = d->target,
		.tune = d->tune,
	};

	plan_build(&k->plan, &k->b, &rq, err);
	return k->plan.fault;
}

/* Free what the phases put in K. */
void
kernel_free(struct kernel *k)
{
	plan_free(&k->plan);
	bcast_free(&k->b);
	free(k->name);
	free(k->command);
	free(k->formula);
}

/*
** Resolve, describe, plan and render each kernel of R in turn. Dies on
** the first error, naming its kernel, or when the files would pass
** OUTPUT_MAX_BYTES.
*/
void
kernel_generate(struct run *r)
{
	struct kernel *k = xmalloc(sizeof *k);
	size_t bytes = 0;

	render_alloc_parts(r, r->n);
	for (int i = 0; i < r->n; i++) {
		struct strbuf err = {0};
		const char *fault;	/* the field an error is about, or NULL */

		memset(k, 0, sizeof *k);
		fault = kernel_resolve(&r->desc[i], k, &err);
		if (!err.s)
			fault = kernel_describe(r->cli.output, &r->desc[i], k, &err);
		if (!err.s)
			fault = kernel_plan(k, &err);
		if (err.s)
			run_die_kernel(r, &r->desc[i], fault, err.s);
		run_lap(r, PLAN);
		render_kernel(r, k, i);
		kernel_free(k);
		run_lap(r, RENDER);
		bytes += r->c[i].len + r->h[i].len;
		if (bytes > OUTPUT_MAX_BYTES)
			run_die_kernel(r, &r->desc[i], NULL, "the generated files would pass the "
			               "limit of 64 MB, more than a compiler takes in reasonable "
			               "time: split the kernels into several files");
	}
	free(k);
}
