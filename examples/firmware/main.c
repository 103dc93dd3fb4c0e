/*
 * main.c: run the generated kernels on fixed inputs and compare their
 * outputs with the values worked out by hand (every value here is exact
 * in binary, so the comparison is exact). Prints each kernel's verdict,
 * then pass or fail; the exit status is 0 or 1.
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

static float relu_got[BIAS_RELU_COUNT];
static uint8_t above_got[ABOVE_COUNT];
static int16_t offset_got[OFFSET_COUNT];

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

	bias_relu(x, w, b, relu_got);
	above(x, t, above_got);
	offset(a, c, offset_got);

	failed |= verdict("bias_relu", relu_got, relu_want, sizeof relu_want);
	failed |= verdict("above", above_got, above_want, sizeof above_want);
	failed |= verdict("offset", offset_got, offset_want, sizeof offset_want);
	sh_puts(failed ? "fail\n" : "pass\n");
	return failed;
}
