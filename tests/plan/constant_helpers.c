/*
 * constant_helpers.c: the runtime's max/min helpers against a constant
 * (bc_maxc_f32, bc_cmax_f32, ...) give the general helpers' bits for
 * every pair of edge values (zeros of both signs, infinities, NaNs with
 * payloads and both signs) where the constant is not NaN, in f32, f64
 * and f16. Prints each difference; exits 1 if there is one.
 */
#include <stdio.h>

#include "bc.h"

#define NVALUES 12
#define NCONSTANTS 8	/* the first values: no NaN among them */

static int bad;

/*
 * CHECK(T, S, BITS, GENERAL, CONST2, CONST1): over the values V of type
 * T, GENERAL(a, c) against CONST2(a, c) and GENERAL(c, a) against
 * CONST1(c, a), compared as bits by BITS.
 */
#define CHECK(T, S, BITS, GENERAL, CONST2, CONST1)                            \
	for (int i = 0; i < NVALUES; i++)                                     \
		for (int j = 0; j < NCONSTANTS; j++) {                        \
			T a = v_##S[i], c = v_##S[j];                         \
			if (BITS(GENERAL(a, c)) != BITS(CONST2(a, c))) {      \
				printf(#CONST2 "(value %d, constant %d)\n", i, j); \
				bad++;                                        \
			}                                                     \
			if (BITS(GENERAL(c, a)) != BITS(CONST1(c, a))) {      \
				printf(#CONST1 "(constant %d, value %d)\n", j, i); \
				bad++;                                        \
			}                                                     \
		}

int
main(void)
{
	static const uint32_t bits32[NVALUES] = {
		0x00000000u, 0x80000000u, 0x3f800000u, 0xbf800000u, 0x40200000u,
		0x7f800000u, 0xff800000u, 0x00000001u,
		0x7fc00001u, 0xffc00002u, 0x7f800003u, 0x7fc00000u
	};
	static const uint64_t bits64[NVALUES] = {
		0x0000000000000000u, 0x8000000000000000u, 0x3ff0000000000000u,
		0xbff0000000000000u, 0x4004000000000000u, 0x7ff0000000000000u,
		0xfff0000000000000u, 0x0000000000000001u,
		0x7ff8000000000001u, 0xfff8000000000002u, 0x7ff0000000000003u,
		0x7ff8000000000000u
	};
	float v_f32[NVALUES];
	double v_f64[NVALUES];

	for (int i = 0; i < NVALUES; i++) {
		v_f32[i] = bc__bits_f32(bits32[i]);
		v_f64[i] = bc__bits_f64(bits64[i]);
	}
	CHECK(float, f32, bc__f32_bits, bc_max_f32, bc_maxc_f32, bc_cmax_f32)
	CHECK(float, f32, bc__f32_bits, bc_min_f32, bc_minc_f32, bc_cmin_f32)
	CHECK(float, f32, bc__f32_bits, bc_fmax_f32, bc_fmaxc_f32, bc_cfmax_f32)
	CHECK(float, f32, bc__f32_bits, bc_fmin_f32, bc_fminc_f32, bc_cfmin_f32)
	CHECK(double, f64, bc__f64_bits, bc_max_f64, bc_maxc_f64, bc_cmax_f64)
	CHECK(double, f64, bc__f64_bits, bc_min_f64, bc_minc_f64, bc_cmin_f64)
	CHECK(double, f64, bc__f64_bits, bc_fmax_f64, bc_fmaxc_f64, bc_cfmax_f64)
	CHECK(double, f64, bc__f64_bits, bc_fmin_f64, bc_fminc_f64, bc_cfmin_f64)
	/* f16 values are floats holding f16 values: these are */
	CHECK(float, f32, bc__f32_bits, bc_max_f16, bc_maxc_f16, bc_cmax_f16)
	CHECK(float, f32, bc__f32_bits, bc_min_f16, bc_minc_f16, bc_cmin_f16)
	CHECK(float, f32, bc__f32_bits, bc_fmax_f16, bc_fmaxc_f16, bc_cfmax_f16)
	CHECK(float, f32, bc__f32_bits, bc_fmin_f16, bc_fminc_f16, bc_cfmin_f16)
	printf("%d differences in %d comparisons\n", bad, 12 * 2 * NVALUES * NCONSTANTS);
	return bad != 0;
}
