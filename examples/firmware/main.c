/*
 * main.c: run the generated kernels on fixed inputs and compare their
 * outputs with the values worked out by hand (every value here is exact
 * in binary, so the comparison is exact); of the quantized kernels, a
 * dozen chosen elements each, as TensorFlow Lite Micro computes them.
 * Prints each kernel's verdict, then pass or fail; the exit status is 0
 * or 1.
 */
#include <stdint.h>

#include "kernels.h"
#include "semihost.h"

/* x(2,3,4): -6, -5.5, ..., 5.5; for row j of the 3, w[j], b[j], t[j]. */
static float x[BIAS_RELU_COUNT];
static const float w[3] = {1, -2, 0.5f};
static const float b[3] = {0.5f, -1, 2};
static const float t[3] = {-5, 0, 2.5f};
/* a(2,3,4): -12000, -11000, ..., 11000; c(4) at the extremes. */
static int16_t a[OFFSET_COUNT];
static const int16_t c[4] = {32767, -32768, 1, -1};
/*
 * The squeeze-and-excitation block, int8 (kernels.lua has the scales and
 * zero points): feat(1,8,8,16), element i = i*29 % 255 - 127; the gate
 * of each of the 16 channels, from 0 (-128) to 255/256 (127); skip, the
 * block's input, element i = i*71 % 253 - 126.
 */
static int8_t feat[SE_SCALE_COUNT];
static const int8_t gate[16] = {
	-128, -120, -96, -64, -32, -1, 0, 1, 31, 64, 96, 100, 112, 120, 126, 127,
};
static int8_t skip[RESIDUAL_COUNT];

/* max(x*w + b, 0): row 0 is x + 0.5, row 1 -2x - 1, row 2 x/2 + 2. */
static const float relu_want[BIAS_RELU_COUNT] = {
	0, 0, 0, 0,		7, 6, 5, 4,		1, 1.25f, 1.5f, 1.75f,
	0.5f, 1, 1.5f, 2,	0, 0, 0, 0,		4, 4.25f, 4.5f, 4.75f,
};
/* x > t: 1 or 0, stored as uint8_t. */
static const uint8_t above_want[ABOVE_COUNT] = {
	0, 0, 0, 1,	0, 0, 0, 0,	0, 0, 0, 0,
	1, 1, 1, 1,	1, 1, 1, 1,	1, 1, 1, 1,
};
/* a + c in int16_t, wrapping around as NumPy does: -12000 + 32767. */
static const int16_t offset_want[OFFSET_COUNT] = {
	20767, 21768, -9999, -9001,	24767, 25768, -5999, -5001,
	28767, 29768, -1999, -1001,	32767, -31768, 2001, 2999,
	-28769, -27768, 6001, 6999,	-24769, -23768, 10001, 10999,
};

/*
 * The quantized kernels' chosen elements: the gate 0 (0, 16), products
 * clamped to 127 (79, 334), halves rounded away from zero (102, 330,
 * 205), sums below 0 clamped by the ReLU (0, 777) and sums clamped to
 * 127 (78, 235). Their expected values are TFLite Micro's, as
 * tests/quant_oracle.py's element() computes them; one of each is worked
 * out below. residual's input a is se_scale's output.
 */
static const uint16_t picked[12] = {0, 3, 16, 78, 79, 102, 205, 235, 330, 334, 777, 1000};
/*
 * se_scale, element 102 ([0][0][6][6]): feat 26, gate[6] 0.
 * The offsets from the zero points: 26 - (-128) = 154 and 0 - (-128) =
 * 128; their product 19712.
 * The multiplier: 0.0235294122 * 0.00390625 / 0.0219607837 (in double,
 * as TFLite Micro's Prepare) = 0.00418526805 = 0.535714310 * 2^-7:
 * m = round(0.535714310 * 2^31) = 1150437721, shift -7.
 * MultiplyByQuantizedMultiplier, twice rounded: the doubling high half,
 * 19712 * 1150437721 / 2^31 = 10560.0005, rounded: 10560; then divided
 * by 2^7: 82.5, a half, rounded away from zero: 83.
 * Plus the output's zero point: 83 + (-128) = -45, in [-128, 127]: -45.
 * (In reals, 154 * 6/255 * 128/256 / (5.6/255) = 82.5: the ranges the
 * scales come from make it a half.)
 */
static const int8_t se_want[12] = {
	-128, -104, -128, 109, 127, -45, -44, 49, 0, 127, -52, -4,
};
/*
 * residual, element 205 ([0][1][4][13]): a = se_scale's -44, b = skip 8.
 * The offsets: -44 - (-128) = 84, 8 - (-18) = 26.
 * The multipliers (in double): twice the larger scale, 2 * 0.047450982
 * = 0.094901964; a's 0.0219607837 / 0.094901964 = 0.231404945 =
 * 0.925619779 * 2^-2: m = round(0.925619779 * 2^31) = 1987753339,
 * shift -2; b's 0.5: m 2^30 = 1073741824, shift 0; the output's
 * 0.094901964 / (2^20 * 0.0392156877) = 2.30789184e-06 = 0.605 * 2^-18:
 * m 1299227606, shift -18.
 * a: 84 << 20 = 88080384; 88080384 * 1987753339 / 2^31 = 81528945.54,
 * rounded: 81528946; divided by 2^2: 20382236.5, a half, away from
 * zero: 20382237.
 * b: 26 << 20 = 27262976; 27262976 * 2^30 / 2^31 = 13631488 exactly.
 * The sum: 34013725; 34013725 * 1299227606 / 2^31 = 20578303.61,
 * rounded: 20578304; divided by 2^18: 78.5, a half: 79.
 * Plus the zero point: 79 + (-128) = -49; clamped to the ReLU's range,
 * [-128 + round(0 / 0.0392156877), 127] = [-128, 127]: -49. (In reals,
 * (84 * 5.6/255 + 26 * 12.1/255) / (10/255) = 78.5, a half again.)
 */
static const int8_t residual_want[12] = {
	-128, 12, -109, 127, -64, -21, -49, 127, -1, 108, -128, 4,
};

static float relu_got[BIAS_RELU_COUNT];
static uint8_t above_got[ABOVE_COUNT];
static int16_t offset_got[OFFSET_COUNT];
static int8_t se_got[SE_SCALE_COUNT], residual_got[RESIDUAL_COUNT];
static int8_t se_picked[12], residual_picked[12];

/*
** Print "NAME: pass" or "NAME: fail" and return 1 when n bytes at got
** and want differ (bytes: every value here has one representation).
*/
static int
verdict(const char *name, const void *got, const void *want, unsigned n)
{
	const unsigned char *p = got, *q = want;
	unsigned i;
	int bad = 0;

	for (i = 0; i < n; i++)
		bad |= p[i] != q[i];
	sh_puts(name);
	sh_puts(bad ? ": fail\n" : ": pass\n");
	return bad;
}

int
main(void)
{
	int i, failed = 0;

	for (i = 0; i < BIAS_RELU_COUNT; i++)
		x[i] = (float)i * 0.5f - 6;
	for (i = 0; i < OFFSET_COUNT; i++)
		a[i] = (int16_t)(i * 1000 - 12000);
	for (i = 0; i < SE_SCALE_COUNT; i++)
		feat[i] = (int8_t)(i * 29 % 255 - 127);
	for (i = 0; i < RESIDUAL_COUNT; i++)
		skip[i] = (int8_t)(i * 71 % 253 - 126);

	bias_relu(x, w, b, relu_got);
	above(x, t, above_got);
	offset(a, c, offset_got);
	se_scale(feat, gate, se_got);
	residual(se_got, skip, residual_got);
	for (i = 0; i < 12; i++) {
		se_picked[i] = se_got[picked[i]];
		residual_picked[i] = residual_got[picked[i]];
	}

	failed |= verdict("bias_relu", relu_got, relu_want, sizeof relu_want);
	failed |= verdict("above", above_got, above_want, sizeof above_want);
	failed |= verdict("offset", offset_got, offset_want, sizeof offset_want);
	failed |= verdict("se_scale", se_picked, se_want, sizeof se_want);
	failed |= verdict("residual", residual_picked, residual_want, sizeof residual_want);
	sh_puts(failed ? "fail\n" : "pass\n");
	return failed;
}
