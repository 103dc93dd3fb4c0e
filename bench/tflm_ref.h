/*
 * tflm_ref.h: make size's TFLM-style reference for the quantized kernels
 * (bench/size.py, implementation "tflm"): int8 and int16 add, subtract
 * and multiply the way TensorFlow Lite Micro's reference kernels run
 * them, written here from their semantics, to be measured next to
 * bcastgen's kernels under QEMU.
 *
 * What makes it TFLM's way, and what it costs:
 *   - the parameters are data, read at run time: Prepare's results (the
 *     zero points, multipliers, shifts and activation range) are kept in
 *     a struct tflm_ref_op (TFLM's OpData, with the tensors' shapes),
 *     which Eval (tflm_ref_OP_T) copies into ArithmeticParams and hands
 *     to the kernel by pointer; the shapes are RuntimeShapes;
 *   - as TFLM's Eval does, equal input shapes take the flat loop
 *     (ElementWise: one index for all three), other shapes the 6-D
 *     broadcast loop (BroadcastBinaryFunction6DSlow, BroadcastAdd6DSlow,
 *     BroadcastMul6DSlow): both inputs' strides computed at run time from
 *     the shapes (NdArrayDesc, NdArrayDescsForElementwiseBroadcast: a
 *     broadcast dimension's stride is 0), six nested loops, and per
 *     element each input's offset advanced by its stride and the
 *     output's by one;
 *   - per element, both inputs requantized (add and subtract:
 *     (v + offset) << left_shift, then MultiplyByQuantizedMultiplier-
 *     SmallerThanOneExp), whatever the shapes: an input that stays put
 *     along the inner loop is requantized again for every element;
 *   - the rounding steps as gemmlowp writes them: the 64-bit product
 *     plus the nudge divided by 2^31 with C's '/', RoundingDivideByPOT
 *     with a mask from (1LL << exponent) - 1 and the exponent a run-time
 *     value; signed right shifts of negative values are the compiler's
 *     (arithmetic, as gcc and clang define them, as TFLM relies on).
 * TFLITE_SINGLE_ROUNDING's single rounding when TFLM_REF_SINGLE_ROUNDING
 * is defined to 1 (bcastgen's --rounding single); with
 * TFLM_REF_ALWAYS_BROADCAST 1, Eval takes the broadcast loop for equal
 * shapes too (what that loop costs where TFLM would not run it).
 *
 * Its outputs are TFLM's bit for bit, so bcastgen's kernels must give
 * the same bytes: size.py's program checks that.  Freestanding C99; the
 * functions are static, so an object holds only those its wrapper uses.
 */
#ifndef TFLM_REF_H
#define TFLM_REF_H

#include <stddef.h>
#include <stdint.h>

#ifndef TFLM_REF_SINGLE_ROUNDING
#define TFLM_REF_SINGLE_ROUNDING 0
#endif
/* 1: Eval takes the 6-D broadcast loop for equal shapes too. */
#ifndef TFLM_REF_ALWAYS_BROADCAST
#define TFLM_REF_ALWAYS_BROADCAST 0
#endif

#define TFLM_REF_DIMS 6

/* RuntimeShape: SIZE dimensions, the outermost first. */
struct tflm_ref_shape {
	int32_t size;
	int32_t dims[TFLM_REF_DIMS];
};

/* NdArrayDesc<6>: the extents and the strides in elements, broadcast
 * dimensions with stride 0. */
struct tflm_ref_desc {
	int32_t extents[TFLM_REF_DIMS];
	int32_t strides[TFLM_REF_DIMS];
};

/* ArithmeticParams: the fields the quantized add, sub and mul read. */
struct tflm_ref_params {
	int32_t input1_offset, input2_offset, output_offset;
	int32_t output_multiplier;
	int output_shift;
	int left_shift;
	int32_t input1_multiplier;
	int input1_shift;
	int32_t input2_multiplier;
	int input2_shift;
	int32_t quantized_activation_min, quantized_activation_max;
};

/*
 * What Eval reads: Prepare's OpData (the offsets are the negated zero
 * points; the shifts of add and subtract are exponents <= 0, as
 * QuantizeMultiplierSmallerThanOneExp gives them; multiply's is
 * QuantizeMultiplier's) and the three tensors' shapes.
 */
struct tflm_ref_op {
	int32_t input1_offset, input2_offset, output_offset;
	int left_shift;
	int32_t input1_multiplier;
	int input1_shift;
	int32_t input2_multiplier;
	int input2_shift;
	int32_t output_multiplier;
	int output_shift;
	int32_t output_activation_min, output_activation_max;
	struct tflm_ref_shape input1, input2, output;
};

/* ----------------------------------------------------------- rounding */

/* gemmlowp's SaturatingRoundingDoublingHighMul. */
static inline int32_t tflm_ref_srdhm(int32_t a, int32_t b)
{
	int overflow = a == b && a == INT32_MIN;
	int64_t ab = (int64_t)a * (int64_t)b;
	int32_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
	int32_t high = (int32_t)((ab + nudge) / ((int64_t)1 << 31));

	return overflow ? INT32_MAX : high;
}

/* gemmlowp's RoundingDivideByPOT, 0 <= exponent <= 31. */
static inline int32_t tflm_ref_rdbpot(int32_t x, int exponent)
{
	int32_t mask = (int32_t)(((int64_t)1 << exponent) - 1);
	int32_t remainder = x & mask;
	int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);

	return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/* MultiplyByQuantizedMultiplier: x * m * 2^(shift - 31), rounded. */
static inline int32_t tflm_ref_mbqm(int32_t x, int32_t m, int shift)
{
#if TFLM_REF_SINGLE_ROUNDING
	int total_shift = 31 - shift;
	int64_t round = (int64_t)1 << (total_shift - 1);
	int64_t result = (int64_t)x * (int64_t)m + round;

	return (int32_t)(result >> total_shift);
#else
	int left_shift = shift > 0 ? shift : 0;
	int right_shift = shift > 0 ? 0 : -shift;

	return tflm_ref_rdbpot(tflm_ref_srdhm((int32_t)((uint32_t)x << left_shift), m),
	                       right_shift);
#endif
}

/* MultiplyByQuantizedMultiplierSmallerThanOneExp: the same for an
 * exponent <= 0. */
static inline int32_t tflm_ref_mbqm_exp(int32_t x, int32_t m, int left_shift)
{
#if TFLM_REF_SINGLE_ROUNDING
	return tflm_ref_mbqm(x, m, left_shift);
#else
	return tflm_ref_rdbpot(tflm_ref_srdhm(x, m), -left_shift);
#endif
}

/* ------------------------------------------------------------ elements */

static inline int32_t tflm_ref_clamp(int32_t v, const struct tflm_ref_params *p)
{
	v = v > p->quantized_activation_min ? v : p->quantized_activation_min;
	return v < p->quantized_activation_max ? v : p->quantized_activation_max;
}

/* AddFunc (and SubFunc with SIGN -1): both inputs requantized. */
static inline int32_t tflm_ref_addsub(int32_t x, int32_t y, int sign,
                                      const struct tflm_ref_params *p)
{
	int32_t input1_val = p->input1_offset + x;
	int32_t input2_val = p->input2_offset + y;
	int32_t shifted_input1_val = input1_val * (1 << p->left_shift);
	int32_t shifted_input2_val = input2_val * (1 << p->left_shift);
	int32_t scaled_input1_val = tflm_ref_mbqm_exp(shifted_input1_val, p->input1_multiplier,
	                                              p->input1_shift);
	int32_t scaled_input2_val = tflm_ref_mbqm_exp(shifted_input2_val, p->input2_multiplier,
	                                              p->input2_shift);
	int32_t raw = sign > 0 ? scaled_input1_val + scaled_input2_val
	                       : scaled_input1_val - scaled_input2_val;
	int32_t raw_output = tflm_ref_mbqm_exp(raw, p->output_multiplier, p->output_shift)
	                     + p->output_offset;

	return tflm_ref_clamp(raw_output, p);
}

static inline int32_t tflm_ref_add_elem(int32_t x, int32_t y, const struct tflm_ref_params *p)
{
	return tflm_ref_addsub(x, y, 1, p);
}

static inline int32_t tflm_ref_sub_elem(int32_t x, int32_t y, const struct tflm_ref_params *p)
{
	return tflm_ref_addsub(x, y, -1, p);
}

/* MulElementwise's element. */
static inline int32_t tflm_ref_mul_elem(int32_t x, int32_t y, const struct tflm_ref_params *p)
{
	int32_t input1_val = p->input1_offset + x;
	int32_t input2_val = p->input2_offset + y;
	int32_t unclamped = p->output_offset
	                    + tflm_ref_mbqm(input1_val * input2_val, p->output_multiplier,
	                                    p->output_shift);

	return tflm_ref_clamp(unclamped, p);
}

/* -------------------------------------------------------------- shapes */

/* RuntimeShape::ExtendedShape(6, s): ones in front. */
static inline void tflm_ref_extend(const struct tflm_ref_shape *s, struct tflm_ref_shape *e)
{
	int i, pad = TFLM_REF_DIMS - s->size;

	e->size = TFLM_REF_DIMS;
	for (i = 0; i < TFLM_REF_DIMS; i++)
		e->dims[i] = i < pad ? 1 : s->dims[i - pad];
}

/* NdArrayDescsForElementwiseBroadcast: each input's extents and
 * row-major strides, a dimension of 1 against a larger one strided 0. */
static inline void tflm_ref_descs(const struct tflm_ref_shape *s1,
                                  const struct tflm_ref_shape *s2,
                                  struct tflm_ref_desc *d1, struct tflm_ref_desc *d2)
{
	struct tflm_ref_shape e1, e2;
	int32_t st1 = 1, st2 = 1;
	int i;

	tflm_ref_extend(s1, &e1);
	tflm_ref_extend(s2, &e2);
	for (i = TFLM_REF_DIMS - 1; i >= 0; i--) {
		d1->extents[i] = e1.dims[i];
		d1->strides[i] = st1;
		st1 *= e1.dims[i];
		d2->extents[i] = e2.dims[i];
		d2->strides[i] = st2;
		st2 *= e2.dims[i];
	}
	for (i = 0; i < TFLM_REF_DIMS; i++) {
		if (d1->extents[i] != d2->extents[i]) {
			if (d1->extents[i] == 1) {
				d1->strides[i] = 0;
				d1->extents[i] = d2->extents[i];
			} else {
				d2->strides[i] = 0;
				d2->extents[i] = d1->extents[i];
			}
		}
	}
}

static inline int tflm_ref_same_shape(const struct tflm_ref_shape *a,
                                      const struct tflm_ref_shape *b)
{
	int i;

	if (a->size != b->size)
		return 0;
	for (i = 0; i < a->size; i++)
		if (a->dims[i] != b->dims[i])
			return 0;
	return 1;
}

static inline int tflm_ref_flat_size(const struct tflm_ref_shape *s)
{
	int i, n = 1;

	for (i = 0; i < s->size; i++)
		n *= s->dims[i];
	return n;
}

/* ------------------------------------------------------------- kernels */

/*
 * TFLM_REF_KERNEL(NAME, T, ELEM): tflm_ref_NAME_elementwise (ElementWise:
 * the flat loop), tflm_ref_NAME_broadcast6d (BroadcastBinaryFunction6DSlow)
 * and tflm_ref_NAME, Eval: the params from the OpData, then the one or
 * the other as the shapes are equal or not.
 */
#define TFLM_REF_KERNEL(NAME, T, ELEM)                                                      \
static inline void tflm_ref_##NAME##_elementwise(                                           \
	int size, const struct tflm_ref_params *params, const T *input1_data,               \
	const T *input2_data, T *output_data)                                               \
{                                                                                           \
	int i;                                                                              \
	for (i = 0; i < size; ++i)                                                          \
		output_data[i] = (T)ELEM(input1_data[i], input2_data[i], params);           \
}                                                                                           \
static inline void tflm_ref_##NAME##_broadcast6d(                                           \
	const struct tflm_ref_params *params,                                               \
	const struct tflm_ref_shape *input1_shape, const T *input1_data,                    \
	const struct tflm_ref_shape *input2_shape, const T *input2_data,                    \
	const struct tflm_ref_shape *output_shape, T *output_data)                          \
{                                                                                           \
	struct tflm_ref_desc desc1, desc2;                                                  \
	struct tflm_ref_shape ext;                                                          \
	size_t i1_a = 0, i2_a = 0, o_a = 0;                                                 \
	int a, d, b, y, x, c;                                                               \
	tflm_ref_descs(input1_shape, input2_shape, &desc1, &desc2);                         \
	tflm_ref_extend(output_shape, &ext);                                                \
	for (a = 0; a < ext.dims[0]; ++a) {                                                 \
		size_t i1_d = i1_a, i2_d = i2_a, o_d = o_a;                                 \
		for (d = 0; d < ext.dims[1]; ++d) {                                         \
			size_t i1_b = i1_d, i2_b = i2_d, o_b = o_d;                         \
			for (b = 0; b < ext.dims[2]; ++b) {                                 \
				size_t i1_y = i1_b, i2_y = i2_b, o_y = o_b;                 \
				for (y = 0; y < ext.dims[3]; ++y) {                         \
					size_t i1_x = i1_y, i2_x = i2_y, o_x = o_y;         \
					for (x = 0; x < ext.dims[4]; ++x) {                 \
						size_t i1_c = i1_x, i2_c = i2_x, o_c = o_x; \
						for (c = 0; c < ext.dims[5]; ++c) {         \
							output_data[o_c] = (T)ELEM(         \
								input1_data[i1_c],          \
								input2_data[i2_c], params); \
							i1_c += desc1.strides[5];           \
							i2_c += desc2.strides[5];           \
							++o_c;                              \
						}                                           \
						i1_x += desc1.strides[4];                   \
						i2_x += desc2.strides[4];                   \
						o_x += ext.dims[5];                         \
					}                                                   \
					i1_y += desc1.strides[3];                           \
					i2_y += desc2.strides[3];                           \
					o_y += ext.dims[4] * ext.dims[5];                   \
				}                                                           \
				i1_b += desc1.strides[2];                                   \
				i2_b += desc2.strides[2];                                   \
				o_b += ext.dims[3] * ext.dims[4] * ext.dims[5];             \
			}                                                                   \
			i1_d += desc1.strides[1];                                           \
			i2_d += desc2.strides[1];                                           \
			o_d += ext.dims[2] * ext.dims[3] * ext.dims[4] * ext.dims[5];       \
		}                                                                           \
		i1_a += desc1.strides[0];                                                   \
		i2_a += desc2.strides[0];                                                   \
		o_a += ext.dims[1] * ext.dims[2] * ext.dims[3] * ext.dims[4] * ext.dims[5]; \
	}                                                                                   \
}                                                                                           \
static inline void tflm_ref_##NAME(const struct tflm_ref_op *op, const T *input1_data,      \
                                   const T *input2_data, T *output_data)                    \
{                                                                                           \
	struct tflm_ref_params params;                                                      \
	params.input1_offset = op->input1_offset;                                           \
	params.input2_offset = op->input2_offset;                                           \
	params.output_offset = op->output_offset;                                           \
	params.left_shift = op->left_shift;                                                 \
	params.input1_multiplier = op->input1_multiplier;                                   \
	params.input1_shift = op->input1_shift;                                             \
	params.input2_multiplier = op->input2_multiplier;                                   \
	params.input2_shift = op->input2_shift;                                             \
	params.output_multiplier = op->output_multiplier;                                   \
	params.output_shift = op->output_shift;                                             \
	params.quantized_activation_min = op->output_activation_min;                        \
	params.quantized_activation_max = op->output_activation_max;                        \
	if (!TFLM_REF_ALWAYS_BROADCAST && tflm_ref_same_shape(&op->input1, &op->input2)) \
		tflm_ref_##NAME##_elementwise(tflm_ref_flat_size(&op->output), &params,     \
		                              input1_data, input2_data, output_data);       \
	else                                                                                \
		tflm_ref_##NAME##_broadcast6d(&params, &op->input1, input1_data,            \
		                              &op->input2, input2_data, &op->output,        \
		                              output_data);                                 \
}

TFLM_REF_KERNEL(add_i8, int8_t, tflm_ref_add_elem)
TFLM_REF_KERNEL(add_i16, int16_t, tflm_ref_add_elem)
TFLM_REF_KERNEL(sub_i8, int8_t, tflm_ref_sub_elem)
TFLM_REF_KERNEL(sub_i16, int16_t, tflm_ref_sub_elem)
TFLM_REF_KERNEL(mul_i8, int8_t, tflm_ref_mul_elem)
TFLM_REF_KERNEL(mul_i16, int16_t, tflm_ref_mul_elem)

#endif
