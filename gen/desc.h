/*
** desc.h: one kernel as its user describes it: operands, options and
** the computation. The command line (cli.c) and a spec kernel (spec.c)
** fill it through one table of fields (fields.c), so both share one set
** of checks and messages; only the way a field is named differs.
*/
#ifndef DESC_H
#define DESC_H

#include "expr.h"
#include "plan.h"
#include "quant.h"

/* Where a description comes from: its messages name fields its way. */
enum desc_source {
	FROM_CLI,		/* options: "--axis" */
	FROM_SPEC		/* fields: "field 'axis'" */
};

struct desc {
	enum desc_source source;
	char *name;			/* the function's, or NULL: from -o */
	struct operand *operand;	/* inputs */
	int nops;			/* inputs: any number; a kernel's at most PLAN_MAX_INPUTS */
	int cap;			/* room in operand[] */
	int *slot;			/* operands by name: 1 + index, 0 empty; nslots, a power of 2 */
	int nslots;
	int shapes_only;		/* no kernel is made: past PLAN_MAX_INPUTS, skip the computation */
	const struct op *op;		/* --op, add by default */
	char *expr_src;			/* --expr, or NULL */
	const struct dtype *dtype;	/* --dtype, or NumPy's promotion of the operands' */
	int promoted;			/* dtype is NumPy's promotion of the operands' own dtypes */
	const struct dtype **stored;	/* each input's stored dtype, once desc_finish ran */
	const struct dtype *out_dtype;	/* --out-dtype, or NULL: the root's */
	int axis_mode;			/* --axis given: desc_finish reads the row's bit */
	int axis;			/* its value, or BCAST_NUMPY_AXIS */
	int inplace;			/* --inplace */
	int has_out_shape;		/* --out-shape given: desc_finish reads the row's bit */
	struct operand out_shape;	/* its shape, named "out" */
	enum plan_strategy strategy;	/* --strategy */
	int unroll_limit;		/* --unroll-limit */
	int loop_order[SHAPE_MAX_RANK];	/* --loop-order: the plan's loops, outermost first */
	int nloop_order;		/* 0: the planner's order */
	enum plan_stream_ask stream;	/* --stream */
	int parallel;			/* --parallel */
	uint64_t cache_size;		/* --cache-size */
	enum plan_goal goal;		/* --optimize */
	struct quant_given *quant_given;	/* --quant, in the order given; once desc_finish
					   ran, the inputs' in order, then the output's */
	int nquant_given;
	enum quant_activation activation;	/* --activation */
	enum quant_rounding rounding;	/* --rounding */
	int quantized;			/* --quant given: the kernel is quantized */
	struct quant quant;		/* its constants, once desc_finish ran */
	enum lang lang;			/* --lang: of its explanation and messages */
	const struct target *target;	/* --target: the machine */
	const struct tuning *tune;	/* --tune: its processor */
	unsigned given;			/* bit k: row k of the field table was set */
	char *origin;			/* a spec's "kernel 'k' of net.lua, line 3" */
	int line;			/* the line a spec declares it on, or 0 */
	int line_nth;			/* the kernels declared before it on that line */
	struct expr expr;		/* the computation, once desc_finish ran */
};

/* desc.c: a description's life. */
void desc_init(struct desc *d, enum desc_source source);
int desc_add_operand(struct desc *d, const char *text, struct strbuf *err);
int desc_finish(struct desc *d, struct strbuf *where, struct strbuf *err);
void desc_formula(struct strbuf *sb, const struct desc *d);
void desc_formula_marked(struct strbuf *sb, const struct desc *d);
void desc_command(struct strbuf *sb, const struct desc *d, const char *name);
void desc_free(struct desc *d);

/* fields.c: the kernel's options, one row each. */
int field_find(const char *name, enum desc_source source);
const char *field_name(int k);
int field_takes_value(int field);
int field_repeats(int field);
int field_given(const struct desc *d, int field);
int field_set(struct desc *d, int field, const char *value, struct strbuf *err);
void field_label(struct strbuf *sb, enum desc_source source, const char *name);
void field_list(struct strbuf *sb);
void field_show(struct strbuf *sb, const struct desc *d);
void field_help(struct strbuf *sb, int column);

#endif
