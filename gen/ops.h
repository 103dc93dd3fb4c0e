/*
** ops.h: element types and operations, and the C expressions for them.
*/
#ifndef OPS_H
#define OPS_H

#include "util.h"

#define BC_MAX_ARGS 32	/* operands of one op: BCAST_MAX_OPERANDS */

struct dtype {
	const char *name;	/* "i16" */
	int is_float;
	int is_signed;		/* floats count as signed */
	int bits;
};

enum op_kind {
	OP_ARITH,		/* result in the kernel's dtype */
	OP_BOOL,		/* comparisons and logical ops: 0 or 1, stored as u8 */
	OP_SELECT,		/* where(c, a, b): a where c is not 0, else b */
	OP_COPY			/* broadcast_to --out-shape */
};

/* The parts of a fused multiply-add that a float op can be. */
enum {
	FMA_MULTIPLY = 1,
	FMA_ADD = 2
};

enum op_types {
	OP_ANY_TYPE,
	OP_INT_TYPES,		/* bitwise ops and shifts */
	OP_FLOAT_TYPES		/* sqrt, exp, log, floor, ceil */
};

struct op {
	const char *name;	/* NumPy's ufunc name: "floor_divide" */
	const char *alias;	/* short name: "floordiv" */
	int min_args, max_args;	/* operands it takes; max_args 0 = any number */
	enum op_kind kind;
	enum op_types types;	/* the dtypes it applies to */
	const char *infix;	/* comparisons and logical ops: the C operator */
	const char *float_infix;	/* C operator exact for floats only: "+" */
	const char *helper;	/* bc_HELPER_T otherwise (and comparisons of integers) */
	int float_libm;		/* the float helper is in bc_math.h */
	const char *symbol;	/* for comments: "x + y", as NumPy writes it */
	int tests_truth;	/* logical ops: their arguments count as true if not 0 */
	int fma_part;		/* FMA_MULTIPLY or FMA_ADD: a * b + c may fuse */
};

const struct dtype *dtype_find(const char *name);
void dtype_list(struct strbuf *sb);
const struct dtype *dtype_table(void);
const struct op *op_find(const char *name);
int op_check(const struct op *op, int nargs, const struct dtype *t,
             struct strbuf *err);
void op_formula(struct strbuf *sb, const struct op *op, const char *const *names,
                int nargs);
int op_needs_libm(const struct op *op, const struct dtype *t);

#endif
