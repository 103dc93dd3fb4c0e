/*
 * bc_f16.h: f16 converted a line at a time, for the kernels that convert
 * their f16 data so (bcastgen plans it on x86; the banner says so).
 * Apart from bc.h because on x86-64 it brings in the intrinsics' headers,
 * which every other kernel's build can do without.
 *
 * Every function is static inline, but where the processor is asked at
 * run time (BC_F16_DISPATCH) and the SSE2 form's rare paths, which are
 * static; nothing here calls libc.
 */
#ifndef BC_F16_H
#define BC_F16_H

#include "bc.h"

/*
 * bc_f16_to_f32_n(dst, src, n) and bc_f32_to_f16_n(dst, src, n): N
 * elements converted as bc_f16_to_f32 and bc_f32_to_f16 do, bit for bit;
 * N a multiple of 8.  A kernel that converts its f16 data a line at a
 * time calls them.  They come in four forms, the first that applies:
 *   - BC_F16_HW is 1: where the compiler targets x86's F16C and AVX2
 *     (-mf16c -mavx2, -march=x86-64-v3 and later, -march=native on such
 *     a machine), eight at a time by the conversion instructions, which
 *     round to nearest, ties to even, whatever the rounding mode.  Those
 *     make a signalling NaN quiet; NumPy keeps it signalling (and gives a
 *     NaN whose top 10 payload bits are 0 payload 1), so a few masks
 *     after each conversion put that back.
 *   - BC_F16_DISPATCH is 1: where the compiler does not target them but
 *     the build is hosted on x86-64 (GNU C), the same instructions where
 *     the processor has them, which is asked once (CPUID and XGETBV),
 *     and where it has not the SSE2 form (below).
 *   - BC_F16_SSE2 is 1: where the build defines BC_F16_NO_F16C (F16C
 *     never, neither built in nor asked for) and the compiler has SSE2
 *     (every x86-64, i686 with -msse2), the SSE2 form: eight at a time
 *     with SSE2 alone (<emmintrin.h>), in about 27 instructions to float
 *     and 31 to f16 (gcc 12 -O2, loop included) where the loop below,
 *     vectorized, runs 51 and 94: an f16 add of [8,64,56,56] and
 *     [64,1,1] at -O2 in 1.26 ms, against 2.8 ms (0.63 ms with F16C).
 *     Infinities and NaNs, and going to f16 the values that overflow,
 *     are rare and left to a fix that a line runs only if the first
 *     pass flagged one.  NumPy's bit for bit, signalling NaNs kept both
 *     ways, whatever FTZ and DAZ say: no float operation sees a NaN (so
 *     none raises invalid), or a subnormal where DAZ would change its
 *     result.  To float it is exact in every rounding mode; to f16 it
 *     rounds with a float addition, so in a mode other than to nearest
 *     a line is converted by bc_f32_to_f16 instead.
 *   - Elsewhere, or where BC_F16_PORTABLE is defined (plain C, no
 *     intrinsics at all): bc_f16_to_f32 and bc_f32_to_f16 in a loop.
 *     BC_F16_NO_F16C without SSE2 means this loop too.
 *
 * bc_f16_to_f32_nq and bc_f32_to_f16_nq may make a signalling NaN quiet:
 * with F16C they leave the masks out, about half the work (in the other
 * forms they are the _n ones).  A kernel calls them only where that cannot
 * show: for f16s whose every use makes a NaN quiet anyway (arithmetic)
 * or sees both kinds alike (comparisons), and for floats computed by
 * arithmetic, never a signalling NaN.
 *
 * Tests define BC__F16_NO_CPU_F16C to have BC_F16_DISPATCH's check answer
 * no, so that its fallback runs on a processor that has F16C.
 */
#if defined(__F16C__) && defined(__AVX2__) && !defined(BC_F16_PORTABLE) && \
	!defined(BC_F16_NO_F16C)
#define BC_F16_HW 1
#define BC_F16_DISPATCH 0
#define BC__F16_TARGET
#include <immintrin.h>
#elif defined(__x86_64__) && defined(__GNUC__) && __STDC_HOSTED__ && \
	!defined(BC_F16_PORTABLE) && !defined(BC_F16_NO_F16C)
#define BC_F16_HW 0
#define BC_F16_DISPATCH 1
#define BC__F16_TARGET __attribute__((target("avx2,f16c")))
#include <immintrin.h>
#include "bc_cpu.h"

/*
 * Whether this processor, and its operating system, run F16C and AVX2
 * (bc_cpu.h). With BC__F16_NO_CPU_F16C (tests), no without asking.
 */
static inline int bc__f16c(void)
{
#ifdef BC__F16_NO_CPU_F16C
	return 0;
#else
	return bc__cpu() == (BC__CPU_AVX2 | BC__CPU_F16C);
#endif
}
#else
#define BC_F16_HW 0
#define BC_F16_DISPATCH 0
#endif
/* BC__F16_SSE2: the SSE2 form is there, as the form or as the fallback. */
#if defined(__SSE2__) && !defined(BC_F16_PORTABLE) && defined(BC_F16_NO_F16C)
#define BC_F16_SSE2 1
#define BC__F16_SSE2 1
#elif defined(__SSE2__) && !defined(BC_F16_PORTABLE) && BC_F16_DISPATCH
#define BC_F16_SSE2 0
#define BC__F16_SSE2 1
#else
#define BC_F16_SSE2 0
#define BC__F16_SSE2 0
#endif
#if BC__F16_SSE2
#include <emmintrin.h>
#endif
#if BC_F16_HW || BC_F16_DISPATCH

/* The 8 f16s at SRC as floats at DST; with KEEP, a signalling NaN stays one. */
BC__F16_TARGET static inline void bc__f16x8_to_f32(float *dst, const bc_f16 *src, int keep)
{
	__m128i h = _mm_loadu_si128((const __m128i *)(const void *)src);
	__m256 f = _mm256_cvtph_ps(h);

	if (keep) {
		/* signalling NaN: exponent all ones, quiet bit clear, payload not 0 */
		__m128i nan_top = _mm_cmpeq_epi16(_mm_and_si128(h, _mm_set1_epi16(0x7e00)),
		                                  _mm_set1_epi16(0x7c00));
		__m128i no_payload = _mm_cmpeq_epi16(_mm_and_si128(h, _mm_set1_epi16(0x01ff)),
		                                     _mm_setzero_si128());
		__m256i snan = _mm256_cvtepi16_epi32(_mm_andnot_si128(no_payload, nan_top));
		__m256i quiet_bit = _mm256_and_si256(snan, _mm256_set1_epi32(0x00400000));

		f = _mm256_andnot_ps(_mm256_castsi256_ps(quiet_bit), f);
	}
	_mm256_storeu_ps(dst, f);
}

/* The 8 floats at SRC as f16s at DST; with KEEP, a signalling NaN stays one. */
BC__F16_TARGET static inline void bc__f32x8_to_f16(bc_f16 *dst, const float *src, int keep)
{
	__m256 f = _mm256_loadu_ps(src);
	__m128i h = _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT);

	if (keep) {
		__m256i u = _mm256_castps_si256(f);
		__m256i is_nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff)),
		                                    _mm256_set1_epi32(0x7f800000));
		__m256i no_quiet = _mm256_cmpeq_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x00400000)),
		                                      _mm256_setzero_si256());
		__m256i snan32 = _mm256_and_si256(is_nan, no_quiet);
		__m128i snan = _mm_packs_epi32(_mm256_castsi256_si128(snan32),
		                               _mm256_extracti128_si256(snan32, 1));
		__m128i empty;

		h = _mm_andnot_si128(_mm_and_si128(snan, _mm_set1_epi16(0x0200)), h);
		empty = _mm_cmpeq_epi16(_mm_and_si128(h, _mm_set1_epi16(0x03ff)), _mm_setzero_si128());
		h = _mm_or_si128(h, _mm_and_si128(_mm_and_si128(snan, empty), _mm_set1_epi16(1)));
	}
	_mm_storeu_si128((__m128i *)(void *)dst, h);
}

#endif
#if BC__F16_SSE2

/*
 * The SSE2 form, 8 elements at a time, each in two steps: a conversion
 * right for all but the rare values (infinities and NaNs, and going to
 * f16 those that overflow), and a fix for those, which a line helper
 * runs over its line only where the first step flagged one.  The fix
 * leaves the other elements as they are, so that they come from the
 * first step alone, wherever they are.
 */

/*
 * The 8 f16s at SRC as floats at DST, exact, but for infinities and
 * NaNs, whose exponent comes out 143 (255 is theirs); returns BIG with
 * each 16-bit lane raised to |h| if smaller: one above 0x7bff says there
 * was one.  Each f16 is SIG * 2^(E - 25), E its exponent but at least 1
 * and SIG its significand (1024 + its 10 bits, or those alone for a
 * subnormal or zero): SIG made a float (cvtdq2ps) times the float
 * +-2^(E - 25), built in 16-bit lanes with h's sign, which also makes a
 * zero +-0.  Both operands are normal floats and the product is exact
 * and not subnormal, so no rounding mode, FTZ or DAZ changes it.
 */
static inline __m128i bc__f16x8_to_f32_sse2(float *dst, const bc_f16 *src, __m128i big)
{
	__m128i h = _mm_loadu_si128((const __m128i *)(const void *)src);
	__m128i e = _mm_and_si128(h, _mm_set1_epi16(0x7fff));
	__m128i sig = _mm_min_epi16(_mm_or_si128(_mm_and_si128(e, _mm_set1_epi16(0x03ff)),
	                                         _mm_set1_epi16(0x0400)), e);
	/* h - sig: the sign and (E - 1) << 10; shifted arithmetically, the
	 * sign smeared over bits 15..12, of which bit 15 is kept */
	__m128i scale = _mm_and_si128(_mm_srai_epi16(_mm_sub_epi16(h, sig), 3),
	                              _mm_set1_epi16(-0x7001));
	__m128i zero = _mm_setzero_si128();

	big = _mm_max_epi16(big, e);
	scale = _mm_add_epi16(scale, _mm_set1_epi16(103 << 7));	/* + 127 - 25 + 1 */
	_mm_storeu_ps(dst, _mm_mul_ps(_mm_cvtepi32_ps(_mm_unpacklo_epi16(sig, zero)),
	                              _mm_castsi128_ps(_mm_unpacklo_epi16(zero, scale))));
	_mm_storeu_ps(dst + 4, _mm_mul_ps(_mm_cvtepi32_ps(_mm_unpackhi_epi16(sig, zero)),
	                                  _mm_castsi128_ps(_mm_unpackhi_epi16(zero, scale))));
	return big;
}

/* The 8 floats at DST that bc__f16x8_to_f32_sse2 made of the f16s at
 * SRC, their infinities and NaNs given exponent 255 (143 | 255 is 255):
 * a NaN keeps its payload, and a signalling one stays signalling. */
static inline void bc__f16x8_to_f32_sse2_fix(float *dst, const bc_f16 *src)
{
	__m128i h = _mm_loadu_si128((const __m128i *)(const void *)src);
	__m128i special = _mm_cmpgt_epi16(_mm_and_si128(h, _mm_set1_epi16(0x7fff)),
	                                  _mm_set1_epi16(0x7bff));
	__m128i exp = _mm_set1_epi32(0x7f800000);
	__m128 e0 = _mm_castsi128_ps(_mm_and_si128(_mm_unpacklo_epi16(special, special), exp));
	__m128 e1 = _mm_castsi128_ps(_mm_and_si128(_mm_unpackhi_epi16(special, special), exp));

	_mm_storeu_ps(dst, _mm_or_ps(_mm_loadu_ps(dst), e0));
	_mm_storeu_ps(dst + 4, _mm_or_ps(_mm_loadu_ps(dst + 4), e1));
}

/*
 * The 8 floats at SRC as f16s at DST, as bc_f32_to_f16, but for those
 * with |f| >= 65520 (infinity included) and NaNs, whose f16 comes out
 * 0x7c00 to 0x7c08 with its sign; returns BIG with each 16-bit lane
 * raised to the f16 (less its sign) if smaller: one above 0x7bff says
 * there was one.  With A = |f| (4 floats a vector): B = A, its high
 * half at most 0x4780 (16-bit minimum), so at most 2^16 + 2^9, no NaN
 * or infinity; C = 2^(e + 13), e B's exponent, at least -14 (16-bit
 * maximum), so that B + C, rounded to float, is B rounded to the f16
 * unit 2^(e - 10) (2^-24 for the subnormals): ties to even in the
 * default rounding mode, NumPy's.  Its exponent is C's (B < 2C) and its
 * significand 1024 + the f16's, or the subnormal itself: its low half
 * plus 8 times its high half (pmaddwd), less 126 << 10, is the f16.
 * B + C sees no NaN; a subnormal B gives C (the f16 0) with or without
 * DAZ, and the sum is never subnormal.  Then narrowed (signed
 * saturation, which reaches no f16 below 0x7c00) and the sign put in:
 * bit 15 of f's bits narrowed the same way.
 */
static inline __m128i bc__f32x8_to_f16_sse2(bc_f16 *dst, const float *src, __m128i big)
{
	__m128i u0 = _mm_loadu_si128((const __m128i *)(const void *)src);
	__m128i u1 = _mm_loadu_si128((const __m128i *)(const void *)(src + 4));
	__m128i mag = _mm_set1_epi32(0x7fffffff), exp = _mm_set1_epi32(0x7f800000);
	__m128i cap = _mm_set1_epi32(0x47807fff), least = _mm_set1_epi32(0x38808000);
	__m128i b0 = _mm_min_epi16(_mm_and_si128(u0, mag), cap);
	__m128i b1 = _mm_min_epi16(_mm_and_si128(u1, mag), cap);
	__m128i c0 = _mm_add_epi32(_mm_and_si128(_mm_max_epi16(b0, least), exp),
	                           _mm_set1_epi32(13 << 23));
	__m128i c1 = _mm_add_epi32(_mm_and_si128(_mm_max_epi16(b1, least), exp),
	                           _mm_set1_epi32(13 << 23));
	__m128 y0 = _mm_add_ps(_mm_castsi128_ps(b0), _mm_castsi128_ps(c0));
	__m128 y1 = _mm_add_ps(_mm_castsi128_ps(b1), _mm_castsi128_ps(c1));
	__m128i w = _mm_set1_epi32(8 << 16 | 1), k = _mm_set1_epi32(126 << 10);
	__m128i h = _mm_packs_epi32(_mm_sub_epi32(_mm_madd_epi16(_mm_castps_si128(y0), w), k),
	                            _mm_sub_epi32(_mm_madd_epi16(_mm_castps_si128(y1), w), k));

	_mm_storeu_si128((__m128i *)(void *)dst,
	                 _mm_or_si128(h, _mm_and_si128(_mm_packs_epi32(u0, u1), _mm_set1_epi16(-0x8000))));
	return _mm_max_epi16(big, h);
}

/* The 8 f16s at DST that bc__f32x8_to_f16_sse2 made of the floats at
 * SRC, those from 0x7c00 up made 0x7c00 (infinity) with their sign, or
 * for a NaN 0x7c00, the top 10 bits of its payload, or 1 if those are 0
 * (a signalling NaN stays one). */
static inline void bc__f32x8_to_f16_sse2_fix(bc_f16 *dst, const float *src)
{
	__m128i h = _mm_loadu_si128((const __m128i *)(const void *)dst);
	__m128i a0 = _mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)src),
	                           _mm_set1_epi32(0x7fffffff));
	__m128i a1 = _mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(src + 4)),
	                           _mm_set1_epi32(0x7fffffff));
	__m128i exp = _mm_set1_epi32(0x7f800000);
	__m128i nan = _mm_packs_epi32(_mm_cmpgt_epi32(a0, exp), _mm_cmpgt_epi32(a1, exp));
	__m128i payload = _mm_packs_epi32(_mm_srli_epi32(_mm_slli_epi32(a0, 9), 22),
	                                  _mm_srli_epi32(_mm_slli_epi32(a1, 9), 22));
	__m128i sign = _mm_set1_epi16(-0x8000);

	h = _mm_or_si128(_mm_and_si128(h, sign),
	                 _mm_min_epi16(_mm_andnot_si128(sign, h), _mm_set1_epi16(0x7c00)));
	h = _mm_or_si128(h, _mm_and_si128(_mm_max_epi16(payload, _mm_set1_epi16(1)), nan));
	_mm_storeu_si128((__m128i *)(void *)dst, h);
}

/* The rare paths below stay out of the kernels (gcc and clang would
 * inline them into each call). */
#if defined(__GNUC__)
#define BC__F16_COLD __attribute__((noinline, cold))
#else
#define BC__F16_COLD
#endif

/* The SSE2 form's line helpers, N a multiple of 8, DST and SRC apart:
 * the line converted, 16 elements a loop where it can (half the loop's
 * own instructions), then fixed if a lane was flagged.  Going to f16,
 * a rounding mode other than to nearest (fesetround) would round every
 * f16 that way: the line is then converted by bc_f32_to_f16, whose
 * rounding only its subnormals' follows the mode (bc.h).
 * BC__F16_SSE2_LINE(name, to, from, x8, fix) defines the line helper NAME
 * and its cold fix pass NAME_fix, of X8's and FIX's 8-element steps. */
#define BC__F16_SSE2_LINE(name, to, from, x8, fix)                            \
BC__F16_COLD static void name##_fix(to *dst, const from *src, size_t n)      \
{                                                                             \
	size_t k;                                                                \
	for (k = 0; k < n; k += 8)                                               \
		fix(dst + k, src + k);                                               \
}                                                                             \
static inline void name(to *dst, const from *src, size_t n)                  \
{                                                                             \
	__m128i big = _mm_setzero_si128();                                       \
	size_t k;                                                                \
	for (k = 0; k + 16 <= n; k += 16) {                                      \
		big = x8(dst + k, src + k, big);                                     \
		big = x8(dst + k + 8, src + k + 8, big);                             \
	}                                                                        \
	if (k < n)                                                               \
		big = x8(dst + k, src + k, big);                                     \
	if (_mm_movemask_epi8(_mm_cmpgt_epi16(big, _mm_set1_epi16(0x7bff))))    \
		name##_fix(dst, src, n);                                             \
}
BC__F16_SSE2_LINE(bc__f16_to_f32_sse2, float, bc_f16, bc__f16x8_to_f32_sse2,
                  bc__f16x8_to_f32_sse2_fix)
BC__F16_SSE2_LINE(bc__f32_to_f16_sse2_near, bc_f16, float, bc__f32x8_to_f16_sse2,
                  bc__f32x8_to_f16_sse2_fix)
BC__F16_COLD static void bc__f32_to_f16_sse2_each(bc_f16 *dst, const float *src, size_t n)
{
	size_t k;
	for (k = 0; k < n; k++)
		dst[k] = bc_f32_to_f16(src[k]);
}
static inline void bc__f32_to_f16_sse2(bc_f16 *dst, const float *src, size_t n)
{
	if (_mm_getcsr() & 0x6000)	/* MXCSR.RC: not to nearest */
		bc__f32_to_f16_sse2_each(dst, src, n);
	else
		bc__f32_to_f16_sse2_near(dst, src, n);
}

#endif
/*
 * BC__F16_N(name, to, from, x8, sse2, one, keep) defines the line helper
 * NAME, TO from FROM: F16C's X8 eight at a time (KEEP: a signalling NaN
 * stays one), and where that is not used the SSE2 form's line helper
 * SSE2, or ONE an element at a time (BC__F16_ELSE).  BC_F16_DISPATCH
 * calls either way: inlined into a kernel, the fallback had gcc keep its
 * constants in registers across the kernel's loop and reload them after
 * each call of the F16C one (the f16 add above at -O2: 6% slower with
 * F16C; called, the fallback is 4% slower instead).
 */
#if BC__F16_SSE2
#define BC__F16_ELSE(sse2, one) sse2(dst, src, n);
#else
#define BC__F16_ELSE(sse2, one)                                               \
	{                                                                        \
		size_t k;                                                            \
		for (k = 0; k < n; k++)                                              \
			dst[k] = one(src[k]);                                            \
	}
#endif
#if BC_F16_HW
#define BC__F16_N(name, to, from, x8, sse2, one, keep)                        \
static inline void name(to *dst, const from *src, size_t n)                  \
{                                                                             \
	size_t k;                                                                \
	for (k = 0; k < n; k += 8)                                               \
		x8(dst + k, src + k, keep);                                          \
}
#elif BC_F16_DISPATCH
#define BC__F16_N(name, to, from, x8, sse2, one, keep)                        \
BC__F16_TARGET static void name##_hw(to *dst, const from *src, size_t n)     \
{                                                                             \
	size_t k;                                                                \
	for (k = 0; k < n; k += 8)                                               \
		x8(dst + k, src + k, keep);                                          \
}                                                                             \
__attribute__((noinline)) static void name##_sw(to *dst, const from *src,    \
                                               size_t n)                     \
{                                                                             \
	BC__F16_ELSE(sse2, one)                                                  \
}                                                                             \
static inline void name(to *dst, const from *src, size_t n)                  \
{                                                                             \
	if (bc__f16c())                                                          \
		name##_hw(dst, src, n);                                              \
	else                                                                     \
		name##_sw(dst, src, n);                                              \
}
#else
#define BC__F16_N(name, to, from, x8, sse2, one, keep)                        \
static inline void name(to *dst, const from *src, size_t n)                  \
{                                                                             \
	BC__F16_ELSE(sse2, one)                                                  \
}
#endif
BC__F16_N(bc_f16_to_f32_n, float, bc_f16, bc__f16x8_to_f32, bc__f16_to_f32_sse2, bc_f16_to_f32, 1)
BC__F16_N(bc_f16_to_f32_nq, float, bc_f16, bc__f16x8_to_f32, bc__f16_to_f32_sse2, bc_f16_to_f32, 0)
BC__F16_N(bc_f32_to_f16_n, bc_f16, float, bc__f32x8_to_f16, bc__f32_to_f16_sse2, bc_f32_to_f16, 1)
BC__F16_N(bc_f32_to_f16_nq, bc_f16, float, bc__f32x8_to_f16, bc__f32_to_f16_sse2, bc_f32_to_f16, 0)

#endif /* BC_F16_H */
