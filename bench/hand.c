/*
 * hand.c: the hand-written loop of each benchmark case (bench/cases.txt),
 * as a careful C programmer writes it for exactly those shapes: constant
 * trip counts, the stretched operand read once outside the loops it does
 * not vary in, restrict pointers, integer adds in unsigned arithmetic
 * (NumPy wraps), and NumPy's NaN-propagating maximum as a select.
 *
 * Each is the reference every other implementation of its case is checked
 * against, byte for byte.  One function per case, named hand_ID, taking
 * the inputs in the case's order, then the output, as flat C-contiguous
 * arrays.  Compiled on its own (no inlining into the timing loop).
 */
#include <stddef.h>
#include <stdint.h>
#include "bc.h"
#include "tflm_ref.h"

#define R restrict

/* The int8 and int32 adds wrap as NumPy's do: add unsigned, convert back. */
static inline int8_t add_i8(int8_t a, int8_t b)
{
	return (int8_t)(uint8_t)((unsigned)(uint8_t)a + (unsigned)(uint8_t)b);
}

static inline int32_t add_i32(int32_t a, int32_t b)
{
	return (int32_t)((uint32_t)a + (uint32_t)b);
}

/* NumPy's maximum: a NaN in a, else a NaN in b, else the larger (b on ties). */
static inline float max_nan(float a, float b)
{
	return a != a ? a : (a > b ? a : b);
}

/* ** same: [1024,1024] + [1024,1024]. */
void hand_same(const float *R x, const float *R y, float *R out)
{
	size_t i;

	for (i = 0; i < 1024 * 1024; i++)
		out[i] = x[i] + y[i];
}

/* ** bias: [8,64,56,56] + [64,1,1]; the bias read once per channel. */
void hand_bias(const float *R x, const float *R y, float *R out)
{
	size_t n, c, i;

	for (n = 0; n < 8; n++)
		for (c = 0; c < 64; c++) {
			const float b = y[c];
			const float *xr = x + (n * 64 + c) * 3136;
			float *o = out + (n * 64 + c) * 3136;
			for (i = 0; i < 3136; i++)
				o[i] = xr[i] + b;
		}
}

/* ** row: [4096,1024] + [1024]. */
void hand_row(const float *R x, const float *R y, float *R out)
{
	size_t r, j;

	for (r = 0; r < 4096; r++)
		for (j = 0; j < 1024; j++)
			out[r * 1024 + j] = x[r * 1024 + j] + y[j];
}

/* ** column: [4096,1024] + [4096,1]. */
void hand_column(const float *R x, const float *R y, float *R out)
{
	size_t r, j;

	for (r = 0; r < 4096; r++) {
		const float b = y[r];
		for (j = 0; j < 1024; j++)
			out[r * 1024 + j] = x[r * 1024 + j] + b;
	}
}

/* ** outer: [2048,1] + [1,2048]. */
void hand_outer(const float *R x, const float *R y, float *R out)
{
	size_t i, j;

	for (i = 0; i < 2048; i++) {
		const float a = x[i];
		for (j = 0; j < 2048; j++)
			out[i * 2048 + j] = a + y[j];
	}
}

/* ** scalar: [4194304] + []. */
void hand_scalar(const float *R x, const float *R y, float *R out)
{
	const float b = y[0];
	size_t i;

	for (i = 0; i < 4194304; i++)
		out[i] = x[i] + b;
}

/* ** tiny43: [4,3] + [3]. */
void hand_tiny43(const float *R x, const float *R y, float *R out)
{
	size_t i, j;

	for (i = 0; i < 4; i++)
		for (j = 0; j < 3; j++)
			out[i * 3 + j] = x[i * 3 + j] + y[j];
}

/* ** tiny234: [2,3,4] + [3,1]. */
void hand_tiny234(const float *R x, const float *R y, float *R out)
{
	size_t a, b, c;

	for (a = 0; a < 2; a++)
		for (b = 0; b < 3; b++) {
			const float v = y[b];
			for (c = 0; c < 4; c++)
				out[(a * 3 + b) * 4 + c] = x[(a * 3 + b) * 4 + c] + v;
		}
}

/* ** fived: [2,3,1,5,7] + [3,4,1,7] = [2,3,4,5,7]. */
void hand_fived(const float *R x, const float *R y, float *R out)
{
	size_t a, b, c, d, e;

	for (a = 0; a < 2; a++)
		for (b = 0; b < 3; b++)
			for (c = 0; c < 4; c++)
				for (d = 0; d < 5; d++)
					for (e = 0; e < 7; e++)
						out[(((a * 3 + b) * 4 + c) * 5 + d) * 7 + e] =
							x[a * 105 + b * 35 + d * 7 + e] +
							y[b * 28 + c * 7 + e];
}

/* ** axis: [2,3,4,5] + [3], Paddle axis 1: y[b] over [a,b,:,:]. */
void hand_axis(const float *R x, const float *R y, float *R out)
{
	size_t a, b, i;

	for (a = 0; a < 2; a++)
		for (b = 0; b < 3; b++) {
			const float v = y[b];
			for (i = 0; i < 20; i++)
				out[(a * 3 + b) * 20 + i] = x[(a * 3 + b) * 20 + i] + v;
		}
}

/* ** bias_i8: int8 [8,64,56,56] + [64,1,1], wrapping. */
void hand_bias_i8(const int8_t *R x, const int8_t *R y, int8_t *R out)
{
	size_t n, c, i;

	for (n = 0; n < 8; n++)
		for (c = 0; c < 64; c++) {
			const int8_t b = y[c];
			const int8_t *xr = x + (n * 64 + c) * 3136;
			int8_t *o = out + (n * 64 + c) * 3136;
			for (i = 0; i < 3136; i++)
				o[i] = add_i8(xr[i], b);
		}
}

/* ** bias_i32: int32 [8,64,56,56] + [64,1,1], wrapping. */
void hand_bias_i32(const int32_t *R x, const int32_t *R y, int32_t *R out)
{
	size_t n, c, i;

	for (n = 0; n < 8; n++)
		for (c = 0; c < 64; c++) {
			const int32_t b = y[c];
			const int32_t *xr = x + (n * 64 + c) * 3136;
			int32_t *o = out + (n * 64 + c) * 3136;
			for (i = 0; i < 3136; i++)
				o[i] = add_i32(xr[i], b);
		}
}

/* ** cmp_gt: [1024,1024] > [1024], a u8 result. */
void hand_cmp_gt(const float *R x, const float *R y, uint8_t *R out)
{
	size_t r, j;

	for (r = 0; r < 1024; r++)
		for (j = 0; j < 1024; j++)
			out[r * 1024 + j] = (uint8_t)(x[r * 1024 + j] > y[j]);
}

/* ** max_nan: maximum([1024,1024], [1024]), NaN-propagating. */
void hand_max_nan(const float *R x, const float *R y, float *R out)
{
	size_t r, j;

	for (r = 0; r < 1024; r++)
		for (j = 0; j < 1024; j++)
			out[r * 1024 + j] = max_nan(x[r * 1024 + j], y[j]);
}

/* ** max_big: maximum([4096,1024], [1024]), NaN-propagating, 16 MiB out: streamed. */
void hand_max_big(const float *R x, const float *R y, float *R out)
{
	size_t r, j;

	for (r = 0; r < 4096; r++)
		for (j = 0; j < 1024; j++)
			out[r * 1024 + j] = max_nan(x[r * 1024 + j], y[j]);
}

/* ** add1k: [1024,1024] + [1024], the add that max_nan is measured against. */
void hand_add1k(const float *R x, const float *R y, float *R out)
{
	size_t r, j;

	for (r = 0; r < 1024; r++)
		for (j = 0; j < 1024; j++)
			out[r * 1024 + j] = x[r * 1024 + j] + y[j];
}

/* ** bias_f16: f16 [8,64,56,56] + [64,1,1], computed in float, rounded once. */
void hand_bias_f16(const bc_f16 *R x, const bc_f16 *R y, bc_f16 *R out)
{
	size_t n, c, i;

	for (n = 0; n < 8; n++)
		for (c = 0; c < 64; c++) {
			const float b = bc_f16_to_f32(y[c]);
			const bc_f16 *xr = x + (n * 64 + c) * 3136;
			bc_f16 *o = out + (n * 64 + c) * 3136;
			for (i = 0; i < 3136; i++)
				o[i] = bc_f32_to_f16(bc_f16_to_f32(xr[i]) + b);
		}
}

/* ** mul_f16: f16 [8,64,56,56] * [64,1,1], computed in float, rounded once. */
void hand_mul_f16(const bc_f16 *R x, const bc_f16 *R y, bc_f16 *R out)
{
	size_t n, c, i;

	for (n = 0; n < 8; n++)
		for (c = 0; c < 64; c++) {
			const float s = bc_f16_to_f32(y[c]);
			const bc_f16 *xr = x + (n * 64 + c) * 3136;
			bc_f16 *o = out + (n * 64 + c) * 3136;
			for (i = 0; i < 3136; i++)
				o[i] = bc_f32_to_f16(bc_f16_to_f32(xr[i]) * s);
		}
}

/* ** big_same: [6144,4096] + [6144,4096], 288 MiB in all. */
void hand_big_same(const float *R x, const float *R y, float *R out)
{
	size_t i;

	for (i = 0; i < (size_t)6144 * 4096; i++)
		out[i] = x[i] + y[i];
}

/* ** big_bias: [32,64,128,128] + [64,1,1], 256 MiB in all. */
void hand_big_bias(const float *R x, const float *R y, float *R out)
{
	size_t n, c, i;

	for (n = 0; n < 32; n++)
		for (c = 0; c < 64; c++) {
			const float b = y[c];
			const float *xr = x + (n * 64 + c) * 16384;
			float *o = out + (n * 64 + c) * 16384;
			for (i = 0; i < 16384; i++)
				o[i] = xr[i] + b;
		}
}

/* ** relu: max(x*w + b, 0) over [8,64,56,56], w and b [64,1,1]; no FMA. */
void hand_relu(const float *R x, const float *R w, const float *R b, float *R out)
{
	size_t n, c, i;

	for (n = 0; n < 8; n++)
		for (c = 0; c < 64; c++) {
			const float wc = w[c], bc = b[c];
			const float *xr = x + (n * 64 + c) * 3136;
			float *o = out + (n * 64 + c) * 3136;
			for (i = 0; i < 3136; i++) {
				const float t = xr[i] * wc + bc;
				o[i] = max_nan(t, 0.0f);
			}
		}
}

/* ** odd7: [512,3,7] + [512,1,7]. */
void hand_odd7(const float *R x, const float *R y, float *R out)
{
	size_t a, b, c;

	for (a = 0; a < 512; a++)
		for (b = 0; b < 3; b++)
			for (c = 0; c < 7; c++)
				out[(a * 3 + b) * 7 + c] = x[(a * 3 + b) * 7 + c] + y[a * 7 + c];
}

/*
 * Cases for the planner's decisions.
 */

/* ** inner5: [1000,5] + [5], a short odd inner extent. */
void hand_inner5(const float *R x, const float *R y, float *R out)
{
	size_t i, j;

	for (i = 0; i < 1000; i++)
		for (j = 0; j < 5; j++)
			out[i * 5 + j] = x[i * 5 + j] + y[j];
}

/* ** col17: [300,17] + [300,1], an odd inner extent under a column. */
void hand_col17(const float *R x, const float *R y, float *R out)
{
	size_t i, j;

	for (i = 0; i < 300; i++) {
		const float v = y[i];
		for (j = 0; j < 17; j++)
			out[i * 17 + j] = x[i * 17 + j] + v;
	}
}

/* ** rem: [999,1023] + [1023], a row that leaves a remainder. */
void hand_rem(const float *R x, const float *R y, float *R out)
{
	size_t i, j;

	for (i = 0; i < 999; i++)
		for (j = 0; j < 1023; j++)
			out[i * 1023 + j] = x[i * 1023 + j] + y[j];
}

/* ** wide3: [3,65536] + [3,1], a small outer extent, a long inner one. */
void hand_wide3(const float *R x, const float *R y, float *R out)
{
	size_t i, j;

	for (i = 0; i < 3; i++) {
		const float v = y[i];
		for (j = 0; j < 65536; j++)
			out[i * 65536 + j] = x[i * 65536 + j] + v;
	}
}

/* ** tall2: [65536,2] + [2], a long outer extent over a 2-element row. */
void hand_tall2(const float *R x, const float *R y, float *R out)
{
	size_t i;
	const float y0 = y[0], y1 = y[1];

	for (i = 0; i < 65536; i++) {
		out[i * 2] = x[i * 2] + y0;
		out[i * 2 + 1] = x[i * 2 + 1] + y1;
	}
}

/*
 * The quantized cases: TensorFlow Lite Micro's reference int8 and int16
 * kernels (integer_ops/add.h AddFunc, integer_ops/mul.h MulElementwise,
 * reference/add.h AddElementwise for int16), as one writes them from
 * TFLM's sources: MultiplyByQuantizedMultiplier with TFLM's default
 * double rounding (common.cc), with gemmlowp's
 * SaturatingRoundingDoublingHighMul and RoundingDivideByPOT (fixedpoint.h),
 * as bench/tflm_ref.h writes them for make size (tflm_ref_mbqm).  Nothing
 * here comes from runtime/bc_quant.h: hand is the exact reference auto is
 * checked against, and run.py checks hand's output against
 * tests/quant_oracle.py (compute) before anything is timed.
 *
 * The constants are what TFLM's Prepare computes for the scales and zero
 * points of the case's line in bench/cases.txt (quant_oracle.params gives
 * each): the input offsets (minus the zero points), the multipliers m
 * with their shifts, the output's zero point and the clamp's range.
 */

static inline int32_t q_clamp(int32_t v, int32_t lo, int32_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/*
 * The int8 add of qbias and qsame: x scale 0.0472, zero point -3; y
 * 0.0123, 5; out 0.081, -1.  Each input shifted left by 20 and brought to
 * twice the larger scale (x by 0.5: m 1073741824, shift 0; y by
 * 0.130296601: m 1119239280, shift -2), their sum to out's scale
 * (1.1114427e-06: m 1251373231, shift -19).
 */
#define QADD_Y(v) tflm_ref_mbqm(((int32_t)(v) - 5) * (1 << 20), 1119239280, -2)
static inline int8_t qadd_i8(int8_t x, int32_t y_scaled)
{
	const int32_t a = tflm_ref_mbqm(((int32_t)x + 3) * (1 << 20), 1073741824, 0);
	const int32_t raw = tflm_ref_mbqm(a + y_scaled, 1251373231, -19) + (-1);

	return (int8_t)q_clamp(raw, -128, 127);
}

/* ** qbias: int8 [8,64,56,56] + [64,1,1], TFLM's add; y requantized once per channel. */
void hand_qbias(const int8_t *R x, const int8_t *R y, int8_t *R out)
{
	size_t n, c, i;

	for (n = 0; n < 8; n++)
		for (c = 0; c < 64; c++) {
			const int32_t b = QADD_Y(y[c]);
			const int8_t *xr = x + (n * 64 + c) * 3136;
			int8_t *o = out + (n * 64 + c) * 3136;
			for (i = 0; i < 3136; i++)
				o[i] = qadd_i8(xr[i], b);
		}
}

/* ** qsame: int8 [1024,1024] + [1024,1024], TFLM's add. */
void hand_qsame(const int8_t *R x, const int8_t *R y, int8_t *R out)
{
	size_t i;

	for (i = 0; i < 1024 * 1024; i++)
		out[i] = qadd_i8(x[i], QADD_Y(y[i]));
}

/*
 * ** qmul: int8 [1,56,56,64] * [1,1,1,64], TFLM's multiply (a
 * squeeze-excitation's scaling): x scale 0.0235, zero point -4; y
 * 0.00390625 (1/256), -128, as a sigmoid's output; out 0.0214, -3.
 * (x + 4) * (y + 128) to out's scale by 0.00428957327: m 1179108922,
 * shift -7.
 */
void hand_qmul(const int8_t *R x, const int8_t *R y, int8_t *R out)
{
	size_t p, c;

	for (p = 0; p < 56 * 56; p++)
		for (c = 0; c < 64; c++) {
			const int32_t prod = ((int32_t)x[p * 64 + c] + 4) * ((int32_t)y[c] + 128);
			const int32_t raw = tflm_ref_mbqm(prod, 1179108922, -7) + (-3);

			out[p * 64 + c] = (int8_t)q_clamp(raw, -128, 127);
		}
}

/*
 * ** qbias16: int16 [8,64,56,56] + [64,1,1], TFLM's int16 add (zero
 * points 0): x scale 0.000152, y 0.000123, out 0.00025.  Each input
 * shifted left by 15 and brought to twice the larger scale (x by 0.5: m
 * 1073741824, shift 0; y by 0.404605298: m 1737766525, shift -1), their
 * sum to out's (3.71093716e-05: m 1305669938, shift -14).
 */
void hand_qbias16(const int16_t *R x, const int16_t *R y, int16_t *R out)
{
	size_t n, c, i;

	for (n = 0; n < 8; n++)
		for (c = 0; c < 64; c++) {
			const int32_t b = tflm_ref_mbqm((int32_t)y[c] * (1 << 15), 1737766525, -1);
			const int16_t *xr = x + (n * 64 + c) * 3136;
			int16_t *o = out + (n * 64 + c) * 3136;
			for (i = 0; i < 3136; i++) {
				const int32_t a = tflm_ref_mbqm((int32_t)xr[i] * (1 << 15), 1073741824, 0);
				const int32_t raw = tflm_ref_mbqm(a + b, 1305669938, -14);

				o[i] = (int16_t)q_clamp(raw, -32768, 32767);
			}
		}
}
