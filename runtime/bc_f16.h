/*
 * bc_f16.h: f16 converted a line at a time, for the kernels that convert
 * their f16 data so (bcastgen plans it on x86; the banner says so).
 * Apart from bc.h because on x86-64 it brings in the intrinsics' headers,
 * which every other kernel's build can do without.
 *
 * Every function is static inline, but where the processor is asked at
 * run time (BC_F16_DISPATCH); nothing here calls libc.
 */
#ifndef BC_F16_H
#define BC_F16_H

#include "bc.h"

/*
 * bc_f16_to_f32_n(dst, src, n) and bc_f32_to_f16_n(dst, src, n): N
 * elements converted as bc_f16_to_f32 and bc_f32_to_f16 do, bit for bit;
 * N a multiple of 8.  A kernel that converts its f16 data a line at a
 * time calls them.  Where the compiler targets x86's F16C and AVX2
 * (-mf16c -mavx2, -march=x86-64-v3 and later, -march=native on such a
 * machine), eight at a time by the conversion instructions (BC_F16_HW
 * is 1), which round to nearest, ties to even, whatever the rounding
 * mode.  Those make a signalling NaN quiet; NumPy keeps it signalling
 * (and gives a NaN whose top 10 payload bits are 0 payload 1), so a few
 * masks after each conversion put that back.  Where the compiler does
 * not target them but the build is hosted on x86-64 (BC_F16_DISPATCH is
 * 1), the same instructions where the processor has them, which is asked
 * once (CPUID and XGETBV), and the portable conversions where it has
 * not.  Elsewhere, or where BC_F16_PORTABLE is defined, the portable
 * conversions in a loop.
 *
 * bc_f16_to_f32_nq and bc_f32_to_f16_nq leave those masks out, about
 * half the work: a signalling NaN may come out quiet.  A kernel calls
 * them only where that cannot show: for f16s whose every use makes a
 * NaN quiet anyway (arithmetic) or sees both kinds alike (comparisons),
 * and for floats computed by arithmetic, never a signalling NaN.
 */
#if defined(__F16C__) && defined(__AVX2__) && !defined(BC_F16_PORTABLE)
#define BC_F16_HW 1
#define BC_F16_DISPATCH 0
#define BC__F16_TARGET
#include <immintrin.h>
#elif defined(__x86_64__) && defined(__GNUC__) && __STDC_HOSTED__ && !defined(BC_F16_PORTABLE)
#define BC_F16_HW 0
#define BC_F16_DISPATCH 1
#define BC__F16_TARGET __attribute__((target("avx2,f16c")))
#include <cpuid.h>
#include <immintrin.h>

/*
 * Whether this processor, and its operating system, run F16C and AVX2:
 * CPUID's bits, and XCR0's for the AVX registers. Asked once per
 * translation unit; threads that ask at once store the same answer.
 */
static inline int bc__f16c(void)
{
	static int known;	/* 0: not yet asked; 1: yes; 2: no */
	int k = __atomic_load_n(&known, __ATOMIC_RELAXED);

	if (k == 0) {
		unsigned a, b, c, d, lo, hi;

		k = 2;
		if (__get_cpuid(1, &a, &b, &c, &d) && (c & bit_OSXSAVE) && (c & bit_AVX)
		    && (c & bit_F16C)) {
			__asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
			if ((lo & 6u) == 6u && __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_AVX2))
				k = 1;
		}
		__atomic_store_n(&known, k, __ATOMIC_RELAXED);
	}
	return k == 1;
}
#else
#define BC_F16_HW 0
#define BC_F16_DISPATCH 0
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
#if BC_F16_HW
#define BC__F16_N(name, to, from, x8, one, keep)                              \
static inline void name(to *dst, const from *src, size_t n)                  \
{                                                                             \
	size_t k;                                                                \
	for (k = 0; k < n; k += 8)                                               \
		x8(dst + k, src + k, keep);                                          \
}
#elif BC_F16_DISPATCH
#define BC__F16_N(name, to, from, x8, one, keep)                              \
BC__F16_TARGET static void name##_hw(to *dst, const from *src, size_t n)     \
{                                                                             \
	size_t k;                                                                \
	for (k = 0; k < n; k += 8)                                               \
		x8(dst + k, src + k, keep);                                          \
}                                                                             \
static inline void name(to *dst, const from *src, size_t n)                  \
{                                                                             \
	size_t k;                                                                \
	if (bc__f16c()) {                                                        \
		name##_hw(dst, src, n);                                              \
		return;                                                              \
	}                                                                        \
	for (k = 0; k < n; k++)                                                  \
		dst[k] = one(src[k]);                                                \
}
#else
#define BC__F16_N(name, to, from, x8, one, keep)                              \
static inline void name(to *dst, const from *src, size_t n)                  \
{                                                                             \
	size_t k;                                                                \
	for (k = 0; k < n; k++)                                                  \
		dst[k] = one(src[k]);                                                \
}
#endif
BC__F16_N(bc_f16_to_f32_n, float, bc_f16, bc__f16x8_to_f32, bc_f16_to_f32, 1)
BC__F16_N(bc_f16_to_f32_nq, float, bc_f16, bc__f16x8_to_f32, bc_f16_to_f32, 0)
BC__F16_N(bc_f32_to_f16_n, bc_f16, float, bc__f32x8_to_f16, bc_f32_to_f16, 1)
BC__F16_N(bc_f32_to_f16_nq, bc_f16, float, bc__f32x8_to_f16, bc_f32_to_f16, 0)

#endif /* BC_F16_H */
