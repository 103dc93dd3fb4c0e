/*
** desc.c: a kernel description's life: operands added one by one,
** options set through fields.c, then desc_finish checks that they agree
** and reads the computation (an --expr parsed, or the --op applied to
** the operands) into one expression tree, its types checked.
*/
#include <stdlib.h>
#include <string.h>

#include "desc.h"

/* Start D empty, with the defaults: add, f32, NumPy's rule, auto. */
void
desc_init(struct desc *d, enum desc_source source)
{
	memset(d, 0, sizeof *d);
	d->source = source;
	d->op = op_get(OP_ID_ADD);
	d->dtype = dtype_find("f32");
	d->axis = BCAST_NUMPY_AXIS;
	d->strategy = PLAN_AUTO;
	d->stream = STREAM_AUTO;
	d->target = target_default();
	d->tune = tuning_default();
	strcpy(d->out_shape.name, "out");
}

/* Append the kernel's operand limit and its reason. */
static void
operand_limit(struct strbuf *err)
{
	sb_printf(err, "a kernel takes at most %d operands (C guarantees %d parameters "
	          "to a function)", PLAN_MAX_INPUTS, PLAN_MAX_INPUTS);
}

/* Return a hash of the C identifier S (FNV-1a). */
static unsigned
name_hash(const char *s)
{
	unsigned h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/*
** Return the slot of D's table where operand name NAME is, or the empty
** one where it would go. Assumes the table has an empty slot.
*/
static int
find_slot(const struct desc *d, const char *name)
{
	unsigned mask = (unsigned)d->nslots - 1, k = name_hash(name) & mask;

	while (d->slot[k] && strcmp(d->operand[d->slot[k] - 1].name, name) != 0)
		k = (k + 1) & mask;
	return (int)k;
}

/* Make D's table of names at least twice as large as its operands, plus one. */
static void
grow_slots(struct desc *d)
{
	if (d->nslots >= 2 * (d->nops + 1))
		return;
	d->nslots = d->nslots ? d->nslots * 2 : 16;
	free(d->slot);
	d->slot = xmalloc((size_t)d->nslots * sizeof *d->slot);
	memset(d->slot, 0, (size_t)d->nslots * sizeof *d->slot);
	for (int i = 0; i < d->nops; i++)
		d->slot[find_slot(d, d->operand[i].name)] = i + 1;
}

/* The messages of desc_add_operand in each language. */
static const struct operand_words {
	const char *unknown_dtype;	/* dtype, operand; the dtypes follow */
	const char *given_twice;	/* operand */
} operand_words[NLANGS] = {
	{"unknown dtype '%s' of operand '%s': expected ", "operand '%s' is given twice"},
	{"未知的数据类型 '%s'（张量 '%s'），可用的有：", "张量 '%s' 出现了两次"},
};

/*
** Add the operand written TEXT ("x:i16=3,4"); its name must be new. The
** command line takes any number; a spec's kernel at most PLAN_MAX_INPUTS.
*/
int
desc_add_operand(struct desc *d, const char *text, struct strbuf *err)
{
	struct operand *op;
	int k;

	if (d->source == FROM_SPEC && d->nops == PLAN_MAX_INPUTS) {
		operand_limit(err);
		return -1;
	}
	if (d->nops + 1 > d->cap) {
		d->cap = d->cap ? d->cap * 2 : 8;
		d->operand = xrealloc(d->operand, (size_t)d->cap * sizeof *d->operand);
	}
	grow_slots(d);
	op = &d->operand[d->nops];
	if (operand_parse(text, op, d->lang, err) != 0)
		return -1;
	if (op->dtype[0] && !dtype_find(op->dtype)) {
		sb_printf(err, operand_words[d->lang].unknown_dtype, op->dtype, op->name);
		dtype_list(err);
		return -1;
	}
	k = find_slot(d, op->name);
	if (d->slot[k]) {
		sb_printf(err, operand_words[d->lang].given_twice, op->name);
		return -1;
	}
	d->slot[k] = ++d->nops;
	return 0;
}

/* Append "give --op or --expr, not both" with D's names for the two fields. */
static void
both_given(struct strbuf *err, const struct desc *d, const char *a, const char *b)
{
	sb_add(err, "give ");
	field_label(err, d->source, a);
	sb_add(err, " or ");
	field_label(err, d->source, b);
	sb_add(err, ", not both");
}

/*
** Set D's dtype, unless --dtype gave it, to NumPy's promotion of its
** operands' dtypes (np.result_type; f32 for an operand without one),
** and each input's stored dtype: its own, or the kernel's. D's
** computation is read, so that, as NumPy picks its loops, an operand it
** only tests for its truth (where's condition) has no say, unless none
** has one; and an op that takes only floats computes in the least float
** that holds each operand. The dtype counts as promoted when an operand
** has a dtype of its own and the dtype is that promotion, given or not:
** the command the banner shows (with --dtype) makes the same kernel.
*/
static void
set_dtypes(struct desc *d)
{
	const struct dtype *f32 = dtype_find("f32"), *promotion;
	const struct dtype **ts = xmalloc((size_t)d->nops * sizeof *ts);
	int *computed = xmalloc((size_t)d->nops * sizeof *computed);
	int n = 0, own = 0;

	free(d->stored);
	d->stored = xmalloc((size_t)d->nops * sizeof *d->stored);
	for (int i = 0; i < d->nops; i++) {
		d->stored[i] = d->operand[i].dtype[0] ? dtype_find(d->operand[i].dtype) : f32;
		own |= d->operand[i].dtype[0] != '\0';
	}
	expr_computed_operands(&d->expr, computed, d->nops);
	for (int all = 0; all < 2 && n == 0; all++)
		for (int i = 0; i < d->nops; i++)
			if (all || computed[i])
				ts[n++] = !d->expr_src && d->op->types == OP_FLOAT_TYPES
				          ? dtype_floating(d->stored[i]) : d->stored[i];
	promotion = dtype_result(ts, n);
	if (!field_given(d, field_find("dtype", FROM_SPEC)))
		d->dtype = promotion;
	d->promoted = own && d->dtype == promotion;
	for (int i = 0; i < d->nops; i++)	/* one without a dtype is the kernel's */
		d->stored[i] = d->operand[i].dtype[0] ? d->stored[i] : d->dtype;
	free(ts);
	free(computed);
}

/*
** Return the index of D's --quant for NAME (an input, or "out"), or -1.
** Assumes no name is given twice.
*/
static int
quant_of(const struct desc *d, const char *name)
{
	for (int k = 0; k < d->nquant_given; k++)
		if (strcmp(d->quant_given[k].name, name) == 0)
			return k;
	return -1;
}

/*
** Check D's quantization: one op of two operands (add, subtract or
** multiply), i8 or i16 throughout, a --quant for each input and for
** out and for nothing else, zero points in the dtype's range (0 for
** i16); then compute its constants into d->quant, as TFLite Micro's
** Prepare would, and put the --quant list in the inputs' order, then
** the output's, as the banner shows it. Return 0, or an exit status with
** the message in ERR. Assumes D's dtypes are set.
*/
static int
quant_finish(struct desc *d, struct strbuf *err)
{
	const struct dtype *t = d->dtype;
	struct quant_given sorted[3];
	const char *names[3];

	if (!d->quantized) {
		const char *asked = field_given(d, field_find("activation", FROM_SPEC)) ? "activation"
		                  : field_given(d, field_find("rounding", FROM_SPEC)) ? "rounding" : NULL;

		if (!asked)
			return 0;
		field_label(err, d->source, asked);
		sb_add(err, " applies to quantized kernels: give ");
		field_label(err, d->source, "quant");
		sb_add(err, " for each operand and for out");
		return EXIT_USAGE;
	}
	if (d->expr_src) {
		field_label(err, d->source, "quant");
		sb_add(err, " computes one op, add, subtract or multiply: a fused ");
		field_label(err, d->source, "expr");
		sb_add(err, " is not quantized");
		return EXIT_USAGE;
	}
	if (d->op->id != OP_ID_ADD && d->op->id != OP_ID_SUBTRACT && d->op->id != OP_ID_MULTIPLY) {
		sb_printf(err, "a quantized kernel computes add, subtract or multiply, not '%s'",
		          d->op->name);
		return EXIT_INPUT;
	}
	if (d->nops != 2) {
		sb_printf(err, "a quantized %s takes two operands, got %d", d->op->name, d->nops);
		return EXIT_INPUT;
	}
	if (strcmp(t->name, "i8") != 0 && strcmp(t->name, "i16") != 0) {
		sb_printf(err, "a quantized kernel computes in i8 or i16, not %s: give ", t->name);
		field_label(err, d->source, "dtype");
		sb_add(err, " i8 or i16");
		return EXIT_INPUT;
	}
	for (int i = 0; i < d->nops; i++)
		if (d->stored[i] != t) {
			sb_printf(err, "operand '%s' is stored as %s, but the quantized kernel is %s: "
			          "its operands and output share one dtype", d->operand[i].name,
			          d->stored[i]->name, t->name);
			return EXIT_INPUT;
		}
	if (d->out_dtype && d->out_dtype != t) {
		sb_printf(err, "the quantized kernel is %s, its output %s: its operands and "
		          "output share one dtype", t->name, d->out_dtype->name);
		return EXIT_INPUT;
	}
	for (int i = 0; i < d->nops; i++)
		if (strcmp(d->operand[i].name, "out") == 0) {
			sb_add(err, "operand 'out' takes the name that ");
			field_label(err, d->source, "quant");
			sb_add(err, " gives the output: rename the operand");
			return EXIT_INPUT;
		}
	for (int k = 0; k < d->nquant_given; k++) {
		const char *name = d->quant_given[k].name;
		int known = strcmp(name, "out") == 0;

		for (int i = 0; i < d->nops; i++)
			known |= strcmp(d->operand[i].name, name) == 0;
		if (!known || quant_of(d, name) != k) {
			field_label(err, d->source, "quant");
			sb_printf(err, known ? " of '%s' is given twice" : " names '%s', which is not "
			          "an operand (nor out, the output)", name);
			return EXIT_USAGE;
		}
	}
	for (int k = 0; k < 3; k++) {
		const char *name = k < 2 ? d->operand[k].name : "out";
		long lo = -(1L << (t->bits - 1)), hi = (1L << (t->bits - 1)) - 1;
		int at = quant_of(d, name);

		if (at < 0) {
			sb_printf(err, "a quantized kernel needs the scale and zero point of '%s': give ",
			          name);
			field_label(err, d->source, "quant");
			sb_printf(err, d->source == FROM_CLI ? " %s=SCALE,ZERO_POINT"
			               : " its pair, %s = {SCALE, ZERO_POINT}", name);
			return EXIT_USAGE;
		}
		sorted[k] = d->quant_given[at];
		names[k] = name;
		if (sorted[k].zero < lo || sorted[k].zero > hi) {
			sb_printf(err, "the zero point of '%s', %ld, is out of %s's range, %ld to %ld",
			          name, sorted[k].zero, t->name, lo, hi);
			return EXIT_INPUT;
		}
		if (t->bits == 16 && sorted[k].zero != 0) {
			sb_printf(err, "the zero point of '%s' is %ld: TFLite Micro's i16 kernels "
			          "need every zero point 0", name, sorted[k].zero);
			return EXIT_INPUT;
		}
	}
	memcpy(d->quant_given, sorted, sizeof sorted);
	d->quant = (struct quant){.op = (int)d->op->id, .bits = t->bits, .rounding = d->rounding,
	                          .activation = d->activation};
	for (int k = 0; k < 3; k++) {
		d->quant.name[k] = names[k];
		d->quant.scale[k] = sorted[k].scale;
		d->quant.zero[k] = (int32_t)sorted[k].zero;
	}
	return quant_prepare(&d->quant, err) == 0 ? 0 : EXIT_INPUT;
}

/*
** Check that D's fields agree and read its computation into d->expr,
** types checked. Return 0; or, with the message in ERR (and, for an
** error in the expression, its place "expr:LINE:COL" in WHERE, the
** message then followed by the line and a caret), EXIT_USAGE for fields
** that cannot go together or are missing, EXIT_INPUT otherwise. Past
** PLAN_MAX_INPUTS operands, a description that makes no kernel is left
** without its computation: its shapes are all that is asked of it.
*/
int
desc_finish(struct desc *d, struct strbuf *where, struct strbuf *err)
{
	const char **names;
	int r;

	d->axis_mode = field_given(d, field_find("axis", FROM_SPEC));
	d->has_out_shape = field_given(d, field_find("out_shape", FROM_SPEC));
	if (d->nops == 0) {
		sb_add(err, d->source == FROM_CLI ? "no operands: give at least one NAME=SHAPE"
		       : "no operands: list them in order, as \"x=2,3\", \"y=3\"");
		return EXIT_USAGE;
	}
	if (d->expr_src && field_given(d, field_find("op", FROM_SPEC))) {
		both_given(err, d, "op", "expr");
		return EXIT_USAGE;
	}
	if (!field_given(d, field_find("cache_size", FROM_SPEC)))
		d->cache_size = d->target->cache_bytes;
	if (!field_given(d, field_find("unroll_limit", FROM_SPEC)))
		d->unroll_limit = d->target->block_max;
	if (d->nops > PLAN_MAX_INPUTS) {
		if (d->shapes_only)
			return 0;
		operand_limit(err);
		sb_printf(err, ", got %d", d->nops);
		if (d->source == FROM_CLI)
			sb_add(err, "; --shape and --explain take any number");
		return EXIT_INPUT;
	}
	if (d->expr_src) {
		names = xmalloc((size_t)d->nops * sizeof *names);
		for (int i = 0; i < d->nops; i++)
			names[i] = d->operand[i].name;
		r = expr_parse(&d->expr, d->expr_src, names, d->nops, err);
		free(names);
		if (r == 0)
			set_dtypes(d);
	} else {
		expr_from_op(&d->expr, d->op, d->nops);
		set_dtypes(d);
		if (op_check(d->op, d->nops, d->dtype, err) != 0)
			return EXIT_INPUT;
		if (d->op->kind == OP_COPY && !d->has_out_shape) {
			sb_add(err, "op 'copy' needs ");
			field_label(err, d->source, "out_shape");
			sb_printf(err, ": the shape to broadcast '%s' to", d->operand[0].name);
			return EXIT_INPUT;
		}
		r = 0;
	}
	d->expr.in_dtype = d->stored;
	d->quantized = d->nquant_given > 0;
	if (r == 0 && (r = quant_finish(d, err)) != 0)
		return r;
	if (r == 0)
		r = expr_check(&d->expr, d->dtype, err);
	if (r != 0 && d->expr.err_pos >= 0) {
		expr_where(where, &d->expr, "expr");
		sb_add(err, "\n");
		expr_caret(err, &d->expr);
	}
	return r == 0 ? 0 : EXIT_INPUT;
}

/*
** Append D's formula: "x + y", "maximum(x, y)" or the --expr as written;
** with MARKED, each operand's name as "\001I\002", I its 1-based index.
*/
static void
formula(struct strbuf *sb, const struct desc *d, int marked)
{
	char **names;

	if (d->expr_src) {
		(marked ? expr_text_marked : expr_text)(sb, &d->expr, d->expr.root);
		return;
	}
	names = xmalloc((size_t)d->nops * sizeof *names);
	for (int i = 0; i < d->nops; i++) {
		struct strbuf name = {0};

		if (marked)
			sb_printf(&name, "\001%d\002", i + 1);
		else
			sb_add(&name, d->operand[i].name);
		names[i] = name.s;
	}
	op_formula(sb, d->op, (const char *const *)names, d->nops);
	for (int i = 0; i < d->nops; i++)
		free(names[i]);
	free(names);
}

/* Append D's formula for comments: "x + y", "maximum(x, y)", the --expr. */
void
desc_formula(struct strbuf *sb, const struct desc *d)
{
	formula(sb, d, 0);
}

/*
** Append D's formula with each reference to an operand written as
** "\001I\002": what --elements fills in with an element of that operand.
*/
void
desc_formula_marked(struct strbuf *sb, const struct desc *d)
{
	formula(sb, d, 1);
}

/*
** Append the command that makes D's kernel NAME, in canonical order:
** "bcastgen --op add --dtype f32 --name k x=2,3 y=3", then where a spec
** declared it.
*/
void
desc_command(struct strbuf *sb, const struct desc *d, const char *name)
{
	sb_add(sb, "bcastgen");
	field_show(sb, d);
	sb_printf(sb, " --name %s", name);
	for (int i = 0; i < d->nops; i++) {
		const struct operand *op = &d->operand[i];

		sb_printf(sb, " %s%s%s=", op->name, op->dtype[0] ? ":" : "", op->dtype);
		shape_format_sizes(sb, &op->shape);
	}
	if (d->origin)
		sb_printf(sb, " (%s)", d->origin);
}

/* Free what D holds. */
void
desc_free(struct desc *d)
{
	free(d->name);
	free(d->expr_src);
	free(d->origin);
	free(d->operand);
	free(d->slot);
	free(d->stored);
	free(d->quant_given);
	expr_free(&d->expr);
	memset(d, 0, sizeof *d);
}
