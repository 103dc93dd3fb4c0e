/*
** quant.h: quantized kernels, int8 and int16 add, subtract and multiply,
** as TensorFlow Lite Micro's reference kernels compute them. Each
** operand and the output have a scale and a zero point (--quant); the
** multipliers and shifts TFLM's Prepare computes on the device are
** computed here, at build time, and the kernel uses only integers.
*/
#ifndef QUANT_H
#define QUANT_H

#include <stdint.h>

#include "util.h"

#define QUANT_NAME_MAX 63	/* the longest operand name a --quant takes */

/* --rounding: TFLM's MultiplyByQuantizedMultiplier, as TFLITE_SINGLE_ROUNDING picks it. */
enum quant_rounding {
	QUANT_DOUBLE,		/* gemmlowp's rounding high multiply, then a rounding shift */
	QUANT_SINGLE		/* one 64-bit multiply, rounded once */
};

/* --activation: the range the output is clamped to. */
enum quant_activation {
	ACT_NONE,
	ACT_RELU,
	ACT_RELU6,
	ACT_RELU_N1_TO_1
};

/* One --quant: an operand's (or the output's) scale and zero point, as given. */
struct quant_given {
	char name[QUANT_NAME_MAX + 1];
	float scale;		/* the decimal given, rounded to float32 */
	long zero;		/* a long: checked against the dtype's range later */
};

/* A real multiplier as TFLM's QuantizeMultiplier gives it: real ~ mult * 2^(shift - 31). */
struct quant_mult {
	double real;
	int32_t mult;
	int shift;
};

/* The steps of a quantized kernel's element, as the plan lays them out. */
enum quant_step {
	QSTEP_OFFSET,		/* multiply: v - zero, in int32 */
	QSTEP_INPUT,		/* add, subtract: MBQM((v - zero) << left, mult, shift) */
	QSTEP_OUTPUT		/* clamp(MBQM(acc, mult, shift) + zero, lo, hi) */
};

/* Everything a quantized kernel needs, computed at build time (quant_prepare). */
struct quant {
	int op;				/* OP_ID_ADD, OP_ID_SUBTRACT or OP_ID_MULTIPLY */
	int bits;			/* 8 or 16 */
	enum quant_rounding rounding;
	enum quant_activation activation;
	const char *name[3];		/* the inputs', then "out": for messages */
	float scale[3];			/* the inputs', then the output's */
	int32_t zero[3];
	int left_shift;			/* add, subtract: 20 (int8) or 15 (int16) */
	struct quant_mult in[2];	/* add, subtract: each input to twice the larger scale */
	struct quant_mult out;		/* to the output's scale */
	int32_t lo, hi;			/* the activation's range */
};

extern const char *const quant_rounding_names[];
extern const char *const quant_activation_names[];

int quant_parse(const char *text, struct quant_given *q, struct strbuf *err);
int quant_prepare(struct quant *q, struct strbuf *err);
void quant_show(struct strbuf *sb, const struct quant_given *q);

#endif
