/*
** ops.h: element types and operations, as table rows.
*/
#ifndef OPS_H
#define OPS_H

#include "util.h"

/*
** Operands of one op or call, and inputs of one kernel: C99 guarantees
** 127 parameters in a function (5.2.4.1). A kernel's output makes 128,
** which gcc, clang and MSVC take (they take thousands).
*/
#define BC_MAX_ARGS 127

/*
** An element type. A dtype that C cannot compute in (f16) names the
** dtype it is computed in, and every result is rounded back to it.
*/
struct dtype {
	const char *name;	/* "i16" */
	int is_float;
	int is_signed;		/* floats count as signed */
	int bits;
	const char *compute;	/* computed in this dtype, or NULL: itself */
};

/* What an op gives, which says the dtype of its result. */
enum op_kind {
	OP_ARITH,		/* a number, in the dtype of its arguments */
	OP_COMPARE,		/* a comparison's 0 or 1, as u8 */
	OP_LOGICAL,		/* 0 or 1 from the truth of its arguments (not 0), as u8 */
	OP_SELECT,		/* where(c, a, b): a where c is true, else b */
	OP_COPY			/* its operand, broadcast to --out-shape */
};

/* The parts of a fused multiply-add that a float op can be. */
enum {
	FMA_MULTIPLY = 1,
	FMA_ADD = 2
};

enum op_types {
	OP_ANY_TYPE,
	OP_INT_TYPES,		/* bitwise ops and shifts */
	OP_FLOAT_TYPES		/* sqrt, exp, hypot, ... */
};

/*
** Each op's row of ops.c, for code that must know one op (constant
** folding, the runtime's helpers for a constant argument): an op is
** known by its id, never by its name.
*/
enum op_id {
	OP_ID_ADD, OP_ID_SUBTRACT, OP_ID_MULTIPLY, OP_ID_DIVIDE,
	OP_ID_FLOOR_DIVIDE, OP_ID_REMAINDER, OP_ID_FMOD, OP_ID_POWER,
	OP_ID_MAXIMUM, OP_ID_MINIMUM, OP_ID_FMAX, OP_ID_FMIN, OP_ID_NEGATIVE,
	OP_ID_ABSOLUTE, OP_ID_SQRT, OP_ID_EXP, OP_ID_LOG, OP_ID_FLOOR,
	OP_ID_CEIL, OP_ID_COPYSIGN, OP_ID_HYPOT, OP_ID_ARCTAN2,
	OP_ID_LOGADDEXP, OP_ID_HEAVISIDE, OP_ID_EQUAL, OP_ID_NOT_EQUAL,
	OP_ID_LESS, OP_ID_LESS_EQUAL, OP_ID_GREATER, OP_ID_GREATER_EQUAL,
	OP_ID_LOGICAL_AND, OP_ID_LOGICAL_OR, OP_ID_LOGICAL_XOR,
	OP_ID_LOGICAL_NOT, OP_ID_BITWISE_AND, OP_ID_BITWISE_OR,
	OP_ID_BITWISE_XOR, OP_ID_INVERT, OP_ID_LEFT_SHIFT, OP_ID_RIGHT_SHIFT,
	OP_ID_WHERE, OP_ID_COPY, NOP_IDS
};

/* An operation: everything bcastgen knows of it is in its row of ops.c. */
struct op {
	enum op_id id;		/* how code that must know this op asks for it */
	const char *name;	/* NumPy's ufunc name: "floor_divide" */
	const char *alias;	/* its short name for --op: "floordiv" */
	const char *func;	/* what --expr calls it ("max"), or NULL: an operator */
	int min_args, max_args;	/* operands it takes; max_args 0: any number, folded */
	enum op_kind kind;
	enum op_types types;	/* the dtypes it applies to */
	const char *helper;	/* the runtime's bc_HELPER_T computes it */
	int exact_infix;	/* floats: C's operator gives NumPy's result instead */
	const char *libm;	/* floats: the C library functions its helper (in
				   bc_math.h) calls, as named for double ("exp log1p";
				   for float each with a suffix f), or NULL: none, the
				   helper is in bc.h */
	int fma_part;		/* FMA_MULTIPLY or FMA_ADD: a * b + c may fuse */
	int f16_exact;		/* bc_HELPER_f16 gives NumPy's f16 result from f16 values */
	const char *symbol;	/* in formulas: "x + y", as NumPy writes it */
};

const struct dtype *dtype_find(const char *name);
void dtype_list(struct strbuf *sb);
const struct dtype *dtype_table(void);
const struct dtype *dtype_compute(const struct dtype *t);
double dtype_round(const struct dtype *t, double v);
const struct dtype *dtype_promote(const struct dtype *a, const struct dtype *b);
const struct dtype *dtype_floating(const struct dtype *t);
const struct dtype *dtype_result(const struct dtype *const *ts, int n);
const struct op *op_find(const char *name);
const struct op *op_get(enum op_id id);
const struct op *op_func(const char *func);
void op_list(struct strbuf *sb, int funcs);
void op_table(struct strbuf *sb, int json, const char *(*operator_of)(enum op_id));
int op_check(const struct op *op, int nargs, const struct dtype *t,
             struct strbuf *err);
void op_formula(struct strbuf *sb, const struct op *op, const char *const *names,
                int nargs);
int op_needs_libm(const struct op *op, const struct dtype *t);
void op_libm_calls(struct strbuf *sb, const struct op *op, const struct dtype *t);

#endif
