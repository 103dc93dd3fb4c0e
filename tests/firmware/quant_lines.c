/*
 * quant_lines.c: bc_quant.h's line helpers against its element steps,
 * on the core the program runs on (t630), or on the host. Where the
 * compiler targets Helium, AVX-512 or AVX2 the lines run in their lanes
 * (BC_Q_MVE, BC_Q_X86); each element must be
 * what bc_q_input_d, bc_q_offset and bc_q_output_T_d give it, one at
 * a time: for add, subtract and multiply, i8 over every pair of values
 * and i16 over a spread of them, each input moving or staying put, with
 * multipliers below 1, of 1 and more (a shift left), and the edges of
 * the shifts; inputs of the larger scale, whose sum x86 takes in one
 * piece (bc__q_sum1), with an output multiplier of 1/2 and output shifts
 * of 0 to 30. Prints the mismatches and the lanes' path; exits 1 on any.
 */
#include "bc_quant.h"
#include "fw.h"

#define N 65536		/* every pair of i8 values */
#define N16 16384	/* i16 values: 320 KiB in all, within the Cortex-M55's RAM */

static int8_t x8[N], y8[N], out8[N];
static int16_t x16[N16], y16[N16], out16[N16];
static long bad;

/* Write the decimal of V. */
static void
put_int(long v)
{
	char buf[24], *p = buf + sizeof buf - 1;
	unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;

	*p = '\0';
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	fw_write0(p);
}

/* Note a mismatch of set SET at element I: GOT, not WANT (the first few shown). */
static void
mismatch(int set, long i, long got, long want)
{
	if (bad++ < 8) {
		fw_write0("set ");
		put_int(set);
		fw_write0(" element ");
		put_int(i);
		fw_write0(": got ");
		put_int(got);
		fw_write0(", want ");
		put_int(want);
		fw_write0("\n");
	}
}

/* The parameters of one check: each input's constants, the output's. */
struct set {
	int op;			/* 0 add, 1 subtract, 2 multiply */
	int32_t zx, xm; int xs;
	int32_t zy, ym; int ys;
	int32_t om; int os;
	int32_t oz, lo, hi;
};

static const struct set sets[] = {
	{0, -3, 1073741824, 0, 5, 1717986854, -2, 1073741824, -19, -1, -128, 127},
	{1, 0, 1073741824, -2, 0, 1073741824, 0, 1073741824, -17, -1, -1, 59},
	{0, 127, 1518500250, -1, -128, 2147483647, 0, 1431655765, -31, 3, -100, 100},
	{0, -128, 1073741824, -31, 127, 1073741825, -5, 2147483647, -1, 127, -128, 127},
	/* inputs of the larger scale (1/2, no shift): the sum in one piece on x86 */
	{0, -3, 1073741824, 0, 7, 1073741824, 0, 1251373231, -19, -1, -128, 127},
	{1, 5, 1073741824, 0, -9, 1073741824, 0, 1073741824, 0, 4, -128, 127},
	{1, 10, 1500000000, -3, -20, 1073741824, 0, 1800000000, -20, 0, -60, 90},
	{0, 127, 1073741824, 0, -128, 1073741824, 0, 1073741824, -1, -128, -128, 127},
	{1, -128, 1073741824, 0, 127, 1073741824, 0, 2147483647, -30, 127, -128, 127},
	/* one where the low part's carry decides an element (x + y = 12) */
	{0, -78, 1073741824, 0, 98, 1073741824, 0, 1291845376, -16, 71, -128, 127},
	{2, -3, 0, 0, 5, 0, 0, 1374389504, -6, -1, -128, 127},
	{2, 127, 0, 0, -128, 0, 0, 2147483530, 3, 0, -128, 127},
	{2, 0, 0, 0, 0, 0, 0, 1073741824, 30, -7, -50, 20},
	{2, -128, 0, 0, 127, 0, 0, 1, -31, 0, -128, 127},
};

/* The element steps: what each line's element must be. */
static int32_t
want(const struct set *s, int32_t x, int32_t y, int bits, int32_t left)
{
	int32_t a, b, acc;

	if (s->op == 2) {
		acc = bc_q_offset(x, s->zx) * bc_q_offset(y, s->zy);
	} else {
		a = bc_q_input_d(x, s->zx, left, s->xm, s->xs);
		b = bc_q_input_d(y, s->zy, left, s->ym, s->ys);
		acc = s->op == 0 ? a + b : a - b;
	}
	return bits == 8 ? bc_q_output_i8_d(acc, s->om, s->os, s->oz, s->lo, s->hi)
	                 : bc_q_output_i16_d(acc, s->om, s->os, s->oz, s->lo, s->hi);
}

/*
 * The line of set S on 8-bit data, X or Y staying put when NULL: then its
 * value XV, YV is given, and a pointer that must not be read (one past
 * out8's last element).
 */
static void
line8(const struct set *s, const int8_t *x, int32_t xv, const int8_t *y, int32_t yv, size_t n)
{
	const int8_t *nowhere = out8 + N;
	const int8_t *xp = x ? x : nowhere, *yp = y ? y : nowhere;

	if (s->op == 2)
		bc_q_multiply_line_i8_d(out8, n, xp, x != NULL, xv, yp, y != NULL, yv, s->zx, s->zy,
		                        s->om, s->os, s->oz, s->lo, s->hi);
	else if (s->op == 0)
		bc_q_add_line_i8_d(out8, n, xp, x != NULL, xv, yp, y != NULL, yv, s->zx, 20, s->xm,
		                   s->xs, s->zy, 20, s->ym, s->ys, s->om, s->os, s->oz, s->lo, s->hi);
	else
		bc_q_subtract_line_i8_d(out8, n, xp, x != NULL, xv, yp, y != NULL, yv, s->zx, 20,
		                        s->xm, s->xs, s->zy, 20, s->ym, s->ys, s->om, s->os, s->oz,
		                        s->lo, s->hi);
}

/* The line of set S on 16-bit data (zero points taken as 0), as line8. */
static void
line16(const struct set *s, const int16_t *x, int32_t xv, const int16_t *y, int32_t yv,
       size_t n)
{
	const int16_t *nowhere = out16 + N16;
	const int16_t *xp = x ? x : nowhere, *yp = y ? y : nowhere;

	if (s->op == 2)
		bc_q_multiply_line_i16_d(out16, n, xp, x != NULL, xv, yp, y != NULL, yv, 0, 0, s->om,
		                         s->os, 0, -32768, 32767);
	else if (s->op == 0)
		bc_q_add_line_i16_d(out16, n, xp, x != NULL, xv, yp, y != NULL, yv, 0, 15, s->xm,
		                    s->xs, 0, 15, s->ym, s->ys, s->om, s->os, 0, -32768, 32767);
	else
		bc_q_subtract_line_i16_d(out16, n, xp, x != NULL, xv, yp, y != NULL, yv, 0, 15, s->xm,
		                         s->xs, 0, 15, s->ym, s->ys, s->om, s->os, 0, -32768, 32767);
}

/* The value an input staying put gives the line: its step, done once. */
static int32_t
once(const struct set *s, int32_t v, int32_t zero, int32_t m, int shift, int32_t left)
{
	return s->op == 2 ? bc_q_offset(v, zero) : bc_q_input_d(v, zero, left, m, shift);
}

int
main(void)
{
	uint32_t r = 12345;

	for (long i = 0; i < N; i++) {
		x8[i] = (int8_t)(i / 256 - 128);
		y8[i] = (int8_t)(i % 256 - 128);
	}
	for (long i = 0; i < N16; i++) {
		r = r * 1103515245u + 12345u;
		x16[i] = (int16_t)(r >> 16);
		r = r * 1103515245u + 12345u;
		y16[i] = (int16_t)(i % 7 == 0 ? -32768 : i % 11 == 0 ? 32767 : (int)(r >> 16) - 32768);
	}
	for (int k = 0; k < (int)(sizeof sets / sizeof sets[0]); k++) {
		const struct set *s = &sets[k];
		struct set s16;

		/* every pair of i8 values; lengths that leave 1 to 3 lanes over */
		line8(s, x8, 0, y8, 0, N - 3);
		for (long i = 0; i < N - 3; i++)
			if (out8[i] != want(s, x8[i], y8[i], 8, 20))
				mismatch(k, i, out8[i], want(s, x8[i], y8[i], 8, 20));
		for (int v = -128; v < 128; v += 5) {
			line8(s, NULL, once(s, v, s->zx, s->xm, s->xs, 20), y8, 0, 257);
			for (long i = 0; i < 257; i++)
				if (out8[i] != want(s, v, y8[i], 8, 20))
					mismatch(k, 1000000 + i, out8[i], want(s, v, y8[i], 8, 20));
			line8(s, x8 + 256 * 7, 0, NULL, once(s, v, s->zy, s->ym, s->ys, 20), 255);
			for (long i = 0; i < 255; i++)
				if (out8[i] != want(s, x8[256 * 7 + i], v, 8, 20))
					mismatch(k, 2000000 + i, out8[i], want(s, x8[256 * 7 + i], v, 8, 20));
		}
		/* i16: zero points 0, the dtype's range */
		s16.op = s->op;
		s16.xm = s->xm;
		s16.xs = s->xs;
		s16.ym = s->ym;
		s16.ys = s->ys;
		s16.om = s->om;
		s16.os = s->os;
		s16.zx = s16.zy = s16.oz = 0;
		s16.lo = -32768;
		s16.hi = 32767;
		line16(s, x16, 0, y16, 0, N16 - 1);
		for (long i = 0; i < N16 - 1; i++)
			if (out16[i] != want(&s16, x16[i], y16[i], 16, 15))
				mismatch(k, 3000000 + i, out16[i], want(&s16, x16[i], y16[i], 16, 15));
		line16(s, NULL, once(&s16, -32768, 0, s->xm, s->xs, 15), y16, 0, 1001);
		for (long i = 0; i < 1001; i++)
			if (out16[i] != want(&s16, -32768, y16[i], 16, 15))
				mismatch(k, 4000000 + i, out16[i], want(&s16, -32768, y16[i], 16, 15));
	}
#if BC_Q_X86_DISPATCH
	fw_write0(bc__q_avx2() ? "lanes: AVX2 at run time\n" : "lanes: scalar\n");
#else
	fw_write0(BC_Q_MVE ? "lanes: Helium\n" : BC_Q_X86 == 16 ? "lanes: AVX-512\n"
	          : BC_Q_X86 == 8 ? "lanes: AVX2\n" : "lanes: scalar\n");
#endif
	fw_write0("mismatches: ");
	put_int(bad);
	fw_write0("\n");
	return bad != 0;
}
