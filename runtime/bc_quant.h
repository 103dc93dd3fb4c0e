/*
 * bc_quant.h: the steps of bcastgen's quantized kernels, int8 and int16
 * add, subtract and multiply, as TensorFlow Lite Micro's reference
 * kernels compute them (integer_ops/add.h, mul.h, reference/sub.h),
 * bit for bit.  A kernel passes each step its constants, which bcastgen
 * computed at build time as TFLM's Prepare would: multipliers, shifts,
 * zero points and the activation's range.
 *
 * Integers only: 32-bit arithmetic and the 64-bit product of a multiply
 * high.  Freestanding C99, usable from C++; every function is static
 * inline.  No input value leads to undefined behaviour: where TFLM's C++
 * would overflow a signed int (x * (1 << shift), or the 64-bit result
 * of single rounding cast to 32 bits), these wrap, as its release builds
 * do on every target it runs on; negative values are shifted right by
 * a form that is defined in C for them (~(~x >> e), a floor).  No 64-bit
 * value is shifted by a count that is not a constant, so that a 32-bit
 * core calls no libgcc helper for it, even at -O0 (the product itself
 * may be one, where the core has no 32x32->64 multiply: the Cortex-M0).
 *
 * The two roundings of TFLM's MultiplyByQuantizedMultiplier, as its
 * TFLITE_SINGLE_ROUNDING chooses: _d (double, TFLM's default) is
 * gemmlowp's SaturatingRoundingDoublingHighMul then RoundingDivideByPOT;
 * _s (single) one 64-bit multiply, rounded once.
 */
#ifndef BC_QUANT_H
#define BC_QUANT_H

#include "bc.h"

/* X shifted right by E (0 to 31), rounded down, for any sign. */
static inline int32_t bc__q_floor_shift(int32_t x, int e)
{
	return x < 0 ? ~(~x >> e) : x >> e;
}

/* X wrapped to int32, as two's complement. */
static inline int32_t bc__q_wrap32(int64_t x)
{
	return bc_wrap_i32((uint64_t)x);
}

/*
 * gemmlowp's SaturatingRoundingDoublingHighMul: the high half of 2*A*B,
 * a nudge of 2^30 (1 - 2^30 below zero) added and divided by 2^31 with
 * C's truncating division; INT32_MIN * INT32_MIN saturates.  For either
 * sign that is floor((A*B + 2^30) / 2^31), a product rounded with halves
 * up, which is computed here: one shift, no branch on the sign.
 */
static inline int32_t bc__q_srdhm(int32_t a, int32_t b)
{
	int64_t t = (int64_t)a * b + (INT64_C(1) << 30);

	if (a == INT32_MIN && b == INT32_MIN)
		return INT32_MAX;
	return (int32_t)(t < 0 ? ~(~t >> 31) : t >> 31);
}

/*
 * gemmlowp's RoundingDivideByPOT: X / 2^E (0 to 31) rounded, halves away
 * from zero, as floor((X + 2^(E-1) - (X < 0)) / 2^E): a negative X one
 * less, then rounded with halves up; by 2^31, 1 from 2^30 on, -1 to
 * -2^30, else 0. Exact for |X| < 3 * 2^29, where the sum stays in int32:
 * every value the steps below divide is at most 2^30 + 2 in magnitude
 * (a multiply high by less than 1 of an int32 below 2^30 + 3, where a
 * shift right follows it); others wrap, defined.
 */
static inline int32_t bc__q_rdbpot(int32_t x, int e)
{
	if (e == 0)
		return x;
	if (e == 31)
		return (x >= (INT32_C(1) << 30)) - (x <= -(INT32_C(1) << 30));
	return bc__q_floor_shift(bc_wrap_i32((uint64_t)((uint32_t)x + ((uint32_t)1 << (e - 1))
	                                                 - (uint32_t)(x < 0))), e);
}

/*
 * MultiplyByQuantizedMultiplier, double rounding: X * M * 2^(SHIFT - 31),
 * -31 <= SHIFT <= 30; for SHIFT below 0, |X| below 2^30 + 3 (bc__q_rdbpot).
 */
static inline int32_t bc__q_mbqm_d(int32_t x, int32_t m, int shift)
{
	int32_t left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;

	return bc__q_rdbpot(bc__q_srdhm(bc__q_wrap32((int64_t)((uint32_t)x << left)), m), right);
}

/*
 * MultiplyByQuantizedMultiplier, single rounding: the same, rounded once,
 * halves up: the 64-bit X * M + 2^(30 - SHIFT) shifted right by 31 -
 * SHIFT (1 to 62), rounded down, wrapped to int32. Its 32 bits are
 * taken from the sum's two halves, each shifted as an int32.
 */
static inline int32_t bc__q_mbqm_s(int32_t x, int32_t m, int shift)
{
	int total = 31 - shift;
	uint64_t round = total > 32 ? (uint64_t)((uint32_t)1 << (total - 33)) << 32
	                            : (uint64_t)((uint32_t)1 << (total - 1));
	int64_t s = (int64_t)x * m + (int64_t)round;
	int32_t hi = (int32_t)(s < 0 ? ~(~s >> 32) : s >> 32);
	uint32_t lo = (uint32_t)s;

	if (total < 32)
		return bc_wrap_i32((uint64_t)(lo >> total | (uint32_t)hi << (32 - total)));
	return total == 32 ? hi : bc__q_floor_shift(hi, total - 32);
}

/*
 * bc_q_offset: an input's value V less its zero point ZERO (multiply).
 * bc_q_input_R: V less ZERO, times 2^LEFT, times the multiplier M *
 * 2^(SHIFT - 31): an input of add or subtract on twice the larger scale.
 * bc_q_output_T_R: the result ACC times M * 2^(SHIFT - 31), plus the
 * output's zero point ZERO, clamped to [LO, HI], as an element of T.
 */
static inline int32_t bc_q_offset(int32_t v, int32_t zero)
{
	return v - zero;
}

/*
 * bc_q_input_d in 32-bit arithmetic.  With X = V - ZERO, an i8's or
 * i16's offset, X * 2^LEFT does not wrap, and SRDHM(X * 2^LEFT, M) is
 * floor((X*M + 2^(30 - LEFT)) / 2^(31 - LEFT)); M split at bit 31 - LEFT
 * into a high part MH and a low part ML makes that X*MH + floor((X*ML +
 * 2^(30 - LEFT)) / 2^(31 - LEFT)), each product within 32 bits for these
 * offsets (|X| <= 255 with LEFT 20, |X| <= 32768 with LEFT 15; other
 * values wrap, defined).  Compilers vectorize it in 32-bit lanes.
 */
static inline int32_t bc_q_input_d(int32_t v, int32_t zero, int left, int32_t m, int shift)
{
	uint32_t x = (uint32_t)v - (uint32_t)zero;
	int low = 31 - left;
	uint32_t mh = (uint32_t)m >> low, ml = (uint32_t)m & (((uint32_t)1 << low) - 1u);
	int32_t frac = bc__q_floor_shift(bc_wrap_i32((uint64_t)(x * ml + ((uint32_t)1 << (low - 1)))),
	                                 low);

	return bc__q_rdbpot(bc_wrap_i32((uint64_t)(x * mh + (uint32_t)frac)), -shift);
}

/* bc_q_input_s: single rounding, in 64 bits. */
static inline int32_t bc_q_input_s(int32_t v, int32_t zero, int left, int32_t m, int shift)
{
	return bc__q_mbqm_s(bc__q_wrap32((int64_t)((uint32_t)(v - zero) << left)), m, shift);
}

#define BC__Q_STEPS(R)                                                            \
static inline int32_t bc__q_output_##R(int32_t acc, int32_t m, int shift,          \
                                       int32_t zero, int32_t lo, int32_t hi)       \
{                                                                                 \
	int32_t r = bc__q_wrap32((int64_t)bc__q_mbqm_##R(acc, m, shift) + zero);      \
                                                                                  \
	return r < lo ? lo : r > hi ? hi : r;                                         \
}                                                                                 \
static inline int8_t bc_q_output_i8_##R(int32_t acc, int32_t m, int shift,        \
                                        int32_t zero, int32_t lo, int32_t hi)     \
{                                                                                 \
	return (int8_t)bc__q_output_##R(acc, m, shift, zero, lo, hi);                 \
}                                                                                 \
static inline int16_t bc_q_output_i16_##R(int32_t acc, int32_t m, int shift,      \
                                          int32_t zero, int32_t lo, int32_t hi)   \
{                                                                                 \
	return (int16_t)bc__q_output_##R(acc, m, shift, zero, lo, hi);                \
}

BC__Q_STEPS(d)
BC__Q_STEPS(s)

/*
 * The line helpers: N elements of a quantized op at once, OUT[i] from
 * X[i] and Y[i]; an input whose XMOVE (YMOVE) is 0 stays put along the
 * line, and its value, computed once before (requantized, or its offset
 * for multiply), is given instead (XV, YV): its pointer is not read.  The constants follow, each
 * input's as its step takes them, then the output's.  Where the
 * compiler targets Helium (Armv8.1-M's MVE, __ARM_FEATURE_MVE), double
 * rounding runs four lanes at a time: VQRDMULH is SRDHM exactly, and a
 * negative value less one then VRSHL's rounding shift is
 * RoundingDivideByPOT; the same bits as the scalar loop, which runs
 * everywhere else (BC_Q_NO_MVE forces it).
 */
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1) && !defined(BC_Q_NO_MVE)
#define BC_Q_MVE 1
#include <arm_mve.h>

/* SRDHM then RoundingDivideByPOT by -SHIFT (SHIFT <= 0), four lanes. */
static inline int32x4_t bc__q_mbqm_lt1_mve(int32x4_t v, int32_t m, int shift)
{
	v = vqrdmulhq_n_s32(v, m);
	if (shift == 0)
		return v;
	v = vqaddq_s32(v, vshrq_n_s32(v, 31));	/* halves away from zero */
	return vrshlq_n_s32(v, shift);
}

/* MBQM, double rounding, four lanes: a positive SHIFT shifts left first, wrapping. */
static inline int32x4_t bc__q_mbqm_mve(int32x4_t v, int32_t m, int shift)
{
	if (shift > 0)
		v = vshlq_r_s32(v, shift);
	return bc__q_mbqm_lt1_mve(v, m, shift > 0 ? 0 : shift);
}

/* The output step, four lanes: requantized, its zero point added, clamped. */
static inline int32x4_t bc__q_out_mve(int32x4_t acc, int32_t m, int shift, int32_t zero,
                                      int32_t lo, int32_t hi)
{
	int32x4_t r = vaddq_n_s32(bc__q_mbqm_mve(acc, m, shift), zero);

	return vminq_s32(vmaxq_s32(r, vdupq_n_s32(lo)), vdupq_n_s32(hi));
}

/*
 * An input of add or subtract, four lanes V, its zero point ZERO: (V -
 * ZERO) * 2^LEFT, as V * 2^LEFT less ZERO * 2^LEFT, one multiply-add;
 * requantized. The input with the larger scale has the multiplier 1/2
 * (2^30, shift 0), which halves the even (V - ZERO) * 2^LEFT exactly:
 * (V - ZERO) * 2^(LEFT - 1), with no multiply high.
 */
static inline int32x4_t bc__q_in_mve(int32x4_t v, int32_t zero, int left, int32_t m,
                                     int shift)
{
	if (m == INT32_C(1) << 30 && shift == 0)
		left--;
	v = vmlasq_n_s32(v, vdupq_n_s32((int32_t)((uint32_t)1 << left)),
	                 (int32_t)((uint32_t)-zero << left));
	if (m == INT32_C(1) << 30 && shift == 0)
		return v;
	return bc__q_mbqm_lt1_mve(v, m, shift);
}
#else
#define BC_Q_MVE 0
#endif

/*
 * Helium's four lanes of T where an input's pointer P points, or the output's:
 * loaded and stored whole, or under the predicate pred for the line's
 * last elements.
 */
#define BC__Q_MVE_LOAD_i8(p) vldrbq_s32(p)
#define BC__Q_MVE_LOAD_i16(p) vldrhq_s32(p)
#define BC__Q_MVE_LOAD_Z_i8(p) vldrbq_z_s32(p, pred)
#define BC__Q_MVE_LOAD_Z_i16(p) vldrhq_z_s32(p, pred)
#define BC__Q_MVE_STORE_i8(v) vstrbq_s32(out, v)
#define BC__Q_MVE_STORE_i16(v) vstrhq_s32(out, v)
#define BC__Q_MVE_STORE_P_i8(v) vstrbq_p_s32(out, v, pred)
#define BC__Q_MVE_STORE_P_i16(v) vstrhq_p_s32(out, v, pred)

/*
 * A line's loop LOOP over vectors of W lanes, one for each input that may
 * stay put, so that no lane asks which: A and B say how an input's lanes
 * are had (ONCE_X, ONCE_Y: its value in every lane), and the pointers
 * that move advance W elements a vector, those of the inputs that move
 * and the output's.
 */
#define BC__Q_PICK_LOOP(LOOP, W, T, A, B, ONCE_X, ONCE_Y, COMBINE)                  \
	if (xmove && ymove)                                                          \
		LOOP(T, A, B, COMBINE, (x += W, y += W, out += W))                   \
	else if (xmove)                                                              \
		LOOP(T, A, ONCE_Y, COMBINE, (x += W, out += W))                      \
	else                                                                         \
		LOOP(T, ONCE_X, B, COMBINE, (y += W, out += W))

#if BC_Q_MVE
/*
 * A line in Helium's lanes: each input's four values A and B as the
 * expressions say (LOAD(p) loads four of an input's elements), combined
 * by COMBINE and stored through the output step: whole vectors, then the
 * last one to three elements under a predicate; BC__Q_PICK_LOOP picks
 * the loop for the inputs that move.
 */
#define BC__Q_MVE_BODY(A, B, COMBINE, LOAD, STORE)                                  \
	{                                                                            \
		int32x4_t a = A(LOAD, x), b = B(LOAD, y);                            \
		STORE(bc__q_out_mve(COMBINE, om, os, oz, lo, hi));                   \
	}
#define BC__Q_MVE_LOOP(T, A, B, COMBINE, STEP)                                      \
	{                                                                            \
		size_t i = 0;                                                        \
		for (; i + 4 <= n; i += 4, STEP)                                     \
			BC__Q_MVE_BODY(A, B, COMBINE, BC__Q_MVE_LOAD_##T,            \
			               BC__Q_MVE_STORE_##T)                          \
		if (i < n) {                                                         \
			mve_pred16_t pred = vctp32q((uint32_t)(n - i));              \
			BC__Q_MVE_BODY(A, B, COMBINE, BC__Q_MVE_LOAD_Z_##T,          \
			               BC__Q_MVE_STORE_P_##T)                        \
		}                                                                    \
	}
#define BC__Q_MVE_LINES(T, A, B, COMBINE)                                            \
	{                                                                            \
		BC__Q_PICK_LOOP(BC__Q_MVE_LOOP, 4, T, A, B, BC__Q_MVE_ONCE_X,        \
		                BC__Q_MVE_ONCE_Y, COMBINE)                           \
		return;                                                              \
	}
/* An input's four values: loaded by LOAD from P and requantized, or its offset; or its value once. */
#define BC__Q_MVE_IN_X(LOAD, p) bc__q_in_mve(LOAD(p), zx, xl, xm, xs)
#define BC__Q_MVE_IN_Y(LOAD, p) bc__q_in_mve(LOAD(p), zy, yl, ym, ys)
#define BC__Q_MVE_OFF_X(LOAD, p) vsubq_n_s32(LOAD(p), zx)
#define BC__Q_MVE_OFF_Y(LOAD, p) vsubq_n_s32(LOAD(p), zy)
#define BC__Q_MVE_ONCE_X(LOAD, p) vdupq_n_s32(xv)
#define BC__Q_MVE_ONCE_Y(LOAD, p) vdupq_n_s32(yv)
/* The lines of add or subtract (SIGN 1 or -1), and multiply: double rounding. */
#define BC__Q_MVE_ADD_LINE(T)                                                       \
	BC__Q_MVE_LINES(T, BC__Q_MVE_IN_X, BC__Q_MVE_IN_Y,                           \
	                sign > 0 ? vaddq_s32(a, b) : vsubq_s32(a, b))
#define BC__Q_MVE_MUL_LINE(T)                                                       \
	BC__Q_MVE_LINES(T, BC__Q_MVE_OFF_X, BC__Q_MVE_OFF_Y, vmulq_s32(a, b))
#else
#define BC__Q_MVE_ADD_LINE(T)
#define BC__Q_MVE_MUL_LINE(T)
#endif

/*
 * The line helpers on x86, where the compiler targets AVX-512 (F and DQ)
 * or AVX2: whole vectors of 16 or 8 lanes, double rounding, the rest of
 * the line by the scalar loop. SRDHM takes two VPMULDQ (the even lanes'
 * 64-bit products, then the odd ones'), the nudge, and bits 31 to 62 of
 * each product put back in its lane; RoundingDivideByPOT as
 * bc__q_rdbpot; an input of add or subtract as bc_q_input_d, in 32-bit
 * lanes. The same bits as the scalar steps (t630 runs both); BC_Q_NO_SIMD
 * leaves them out. Where the compiler targets neither, in a hosted
 * x86-64 build with gcc or clang (at -O2 without -march, say), the AVX2
 * form is compiled all the same and runs where the processor has AVX2,
 * asked once (BC_Q_X86_DISPATCH); else the scalar loop.
 */
#if !BC_Q_MVE && !defined(BC_Q_NO_SIMD) && (defined(__x86_64__) || defined(__i386__)) \
    && (defined(__AVX2__) || (defined(__AVX512F__) && defined(__AVX512DQ__)))
#define BC_Q_X86_DISPATCH 0
#define BC__Q_V_TARGET
#include <immintrin.h>
#elif !BC_Q_MVE && !defined(BC_Q_NO_SIMD) && defined(__x86_64__) && defined(__GNUC__) \
    && __STDC_HOSTED__
#define BC_Q_X86_DISPATCH 1
#define BC__Q_V_TARGET __attribute__((target("avx2")))
#include <immintrin.h>
#include "bc_cpu.h"

/* Whether this processor runs AVX2 (bc_cpu.h); with BC__Q_NO_CPU_AVX2 (tests), no. */
static inline int bc__q_avx2(void)
{
#ifdef BC__Q_NO_CPU_AVX2
	return 0;
#else
	return (bc__cpu() & BC__CPU_AVX2) != 0;
#endif
}
#endif
#ifdef BC_Q_X86_DISPATCH
#if defined(__AVX512F__) && defined(__AVX512DQ__)
#define BC_Q_X86 16
typedef __m512i bc__q_v;
#define BC__Q_V_SET1(c) _mm512_set1_epi32(c)
#define BC__Q_V_ADD(a, b) _mm512_add_epi32(a, b)
#define BC__Q_V_SUB(a, b) _mm512_sub_epi32(a, b)
#define BC__Q_V_MUL(a, b) _mm512_mullo_epi32(a, b)
#define BC__Q_V_MAX(a, b) _mm512_max_epi32(a, b)
#define BC__Q_V_MIN(a, b) _mm512_min_epi32(a, b)
#define BC__Q_V_SRA(v, e) _mm512_sra_epi32(v, _mm_cvtsi32_si128(e))
#define BC__Q_V_SRAI(v, e) _mm512_srai_epi32(v, e)
#define BC__Q_V_SRL(v, e) _mm512_srl_epi32(v, _mm_cvtsi32_si128(e))
#define BC__Q_V_SLL(v, e) _mm512_sll_epi32(v, _mm_cvtsi32_si128(e))
#define BC__Q_V_GT(a, b) _mm512_movm_epi32(_mm512_cmpgt_epi32_mask(a, b))
#define BC__Q_V_LOAD_i8(p) _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(const void *)(p)))
#define BC__Q_V_LOAD_i16(p) _mm512_cvtepi16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(p)))
/* narrowed with saturation: it clamps to T's range */
#define BC__Q_V_STORE_i8(p, v) _mm_storeu_si128((__m128i *)(void *)(p), _mm512_cvtsepi32_epi8(v))
#define BC__Q_V_STORE_i16(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), _mm512_cvtsepi32_epi16(v))
/* four vectors' i8 at once: packed in 128-bit lanes, the lanes' dwords put back in order */
#define BC__Q_V_STORE4_i8(p, a, b, c, d)                                            \
	_mm512_storeu_si512((void *)(p), _mm512_permutexvar_epi32(                   \
		_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), \
		_mm512_packs_epi16(_mm512_packs_epi32(a, b), _mm512_packs_epi32(c, d))))
/* T less 1 where A > B */
#define BC__Q_V_DEC_GT(t, a, b) _mm512_mask_sub_epi32(t, _mm512_cmpgt_epi32_mask(a, b), t, \
                                                      _mm512_set1_epi32(1))

/* SRDHM(V, M), M >= 0, sixteen lanes. */
static inline BC__Q_V_TARGET bc__q_v bc__q_v_srdhm(bc__q_v v, int32_t m)
{
	__m512i mm = _mm512_set1_epi32(m), nudge = _mm512_set1_epi64(INT64_C(1) << 30);
	__m512i even = _mm512_add_epi64(_mm512_mul_epi32(v, mm), nudge);
	__m512i odd = _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(v, 32), mm), nudge);

	return _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(even, 31),
	                               _mm512_slli_epi64(odd, 1));
}
#else
#define BC_Q_X86 8
typedef __m256i bc__q_v;
#define BC__Q_V_SET1(c) _mm256_set1_epi32(c)
#define BC__Q_V_ADD(a, b) _mm256_add_epi32(a, b)
#define BC__Q_V_SUB(a, b) _mm256_sub_epi32(a, b)
#define BC__Q_V_MUL(a, b) _mm256_mullo_epi32(a, b)
#define BC__Q_V_MAX(a, b) _mm256_max_epi32(a, b)
#define BC__Q_V_MIN(a, b) _mm256_min_epi32(a, b)
#define BC__Q_V_SRA(v, e) _mm256_sra_epi32(v, _mm_cvtsi32_si128(e))
#define BC__Q_V_SRAI(v, e) _mm256_srai_epi32(v, e)
#define BC__Q_V_SRL(v, e) _mm256_srl_epi32(v, _mm_cvtsi32_si128(e))
#define BC__Q_V_SLL(v, e) _mm256_sll_epi32(v, _mm_cvtsi32_si128(e))
#define BC__Q_V_GT(a, b) _mm256_cmpgt_epi32(a, b)
#define BC__Q_V_LOAD_i8(p) _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(p)))
#define BC__Q_V_LOAD_i16(p) _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(p)))
/* packed with saturation: it clamps to T's range */
#define BC__Q_V_PACK(v) _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1))
#define BC__Q_V_STORE_i8(p, v) \
	_mm_storel_epi64((__m128i *)(void *)(p), _mm_packs_epi16(BC__Q_V_PACK(v), BC__Q_V_PACK(v)))
#define BC__Q_V_STORE_i16(p, v) _mm_storeu_si128((__m128i *)(void *)(p), BC__Q_V_PACK(v))
#define BC__Q_V_STORE4_i8(p, a, b, c, d)                                            \
	_mm256_storeu_si256((__m256i *)(void *)(p), _mm256_permutevar8x32_epi32(       \
		_mm256_packs_epi16(_mm256_packs_epi32(a, b), _mm256_packs_epi32(c, d)), \
		_mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)))
#define BC__Q_V_DEC_GT(t, a, b) _mm256_add_epi32(t, _mm256_cmpgt_epi32(a, b))

/* SRDHM(V, M), M >= 0, eight lanes. */
static inline BC__Q_V_TARGET bc__q_v bc__q_v_srdhm(bc__q_v v, int32_t m)
{
	__m256i mm = _mm256_set1_epi32(m), nudge = _mm256_set1_epi64x(INT64_C(1) << 30);
	__m256i even = _mm256_add_epi64(_mm256_mul_epi32(v, mm), nudge);
	__m256i odd = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(v, 32), mm), nudge);

	return _mm256_blend_epi32(_mm256_srli_epi64(even, 31), _mm256_slli_epi64(odd, 1), 0xAA);
}
#endif

/* RoundingDivideByPOT(V, E), the lanes' values as bc__q_rdbpot takes them. */
static inline BC__Q_V_TARGET bc__q_v bc__q_v_rdbpot(bc__q_v v, int e)
{
	if (e == 0)
		return v;
	if (e == 31)	/* 1 from 2^30 on, -1 to -2^30 */
		return BC__Q_V_SUB(BC__Q_V_GT(BC__Q_V_SET1(-(INT32_C(1) << 30) + 1), v),
		                   BC__Q_V_GT(v, BC__Q_V_SET1((INT32_C(1) << 30) - 1)));
	v = BC__Q_V_SUB(BC__Q_V_ADD(v, BC__Q_V_SET1(INT32_C(1) << (e - 1))), BC__Q_V_SRL(v, 31));
	return BC__Q_V_SRA(v, e);
}

/* MBQM, double rounding, the lanes: a positive SHIFT shifts left first, wrapping. */
static inline BC__Q_V_TARGET bc__q_v bc__q_v_mbqm(bc__q_v v, int32_t m, int shift)
{
	if (shift > 0)
		v = BC__Q_V_SLL(v, shift);
	return bc__q_v_rdbpot(bc__q_v_srdhm(v, m), shift > 0 ? 0 : -shift);
}

/* Whether multiplier M with SHIFT is 1/2: the input of the larger scale's. */
#define BC__Q_X86_HALF(m, s) ((m) == INT32_C(1) << 30 && (s) == 0)

/* bc_q_input_d, the lanes: in 32-bit arithmetic, the multiplier 1/2 a shift. */
static inline BC__Q_V_TARGET bc__q_v bc__q_v_in(bc__q_v v, int32_t zero, int left, int32_t m, int shift)
{
	int low = 31 - left;
	int32_t mh = (int32_t)((uint32_t)m >> low), ml = (int32_t)((uint32_t)m & (((uint32_t)1 << low) - 1u));
	bc__q_v x = BC__Q_V_SUB(v, BC__Q_V_SET1(zero)), a;

	if (BC__Q_X86_HALF(m, shift))
		return BC__Q_V_SLL(x, left - 1);
	a = BC__Q_V_MUL(x, BC__Q_V_SET1(mh));
	if (ml != 0)
		a = BC__Q_V_ADD(a, BC__Q_V_SRA(BC__Q_V_ADD(BC__Q_V_MUL(x, BC__Q_V_SET1(ml)),
		                                           BC__Q_V_SET1(INT32_C(1) << (low - 1))), low));
	return bc__q_v_rdbpot(a, -shift);
}

/*
 * R clamped to [LO, HI] where that is narrower than T's range, [TMIN,
 * TMAX]: the store's saturation clamps to that.
 */
static inline BC__Q_V_TARGET bc__q_v bc__q_v_clamp(bc__q_v r, int32_t lo, int32_t hi, int32_t tmin,
                                                   int32_t tmax)
{
	if (lo > tmin)
		r = BC__Q_V_MAX(r, BC__Q_V_SET1(lo));
	if (hi < tmax)
		r = BC__Q_V_MIN(r, BC__Q_V_SET1(hi));
	return r;
}

/* The output step, the lanes: requantized, its zero point added, clamped. */
static inline BC__Q_V_TARGET bc__q_v bc__q_v_out(bc__q_v acc, int32_t m, int shift, int32_t zero,
                                  int32_t lo, int32_t hi, int32_t tmin, int32_t tmax)
{
	return bc__q_v_clamp(BC__Q_V_ADD(bc__q_v_mbqm(acc, m, shift), BC__Q_V_SET1(zero)), lo, hi,
	                     tmin, tmax);
}
#define BC__Q_RANGE_i8 INT8_MIN, INT8_MAX
#define BC__Q_RANGE_i16 INT16_MIN, INT16_MAX

/* X / 2^E (0 to 62) rounded down, for any sign. */
static inline int64_t bc__q_floor_shift64(int64_t x, int e)
{
	return x < 0 ? ~(~x >> e) : x >> e;
}

/*
 * An i8 sum in one piece, where each input that moves has the
 * multiplier 1/2 and no shift (the input of the larger scale, whose step
 * is (V - Z) * 2^19): the sum is S = E * 2^19 + B, E the moving inputs'
 * offsets (or their sum or difference), B the value of the input that
 * stays put (0 if none). With R = -SHIFT (0 to 30) and N whether
 * SRDHM(S, M) is below 0, the output step RDBPOT(SRDHM(S, M), R) is
 * floor((S*M + 2^30 + 2^31 * (2^(R-1) - N)) / 2^(31+R)), without the
 * 2^31 term for R = 0: that is floor((E*M + Q - N * 2^12) / 2^(12+R)),
 * Q = floor((B*M + 2^30 + 2^(30+R)) / 2^19), B's part done once. M =
 * MH * 2^12 + ML and Q = QH * 2^12 + QL make it floor((E*MH + QH - N +
 * floor((E*ML + QL) / 2^12)) / 2^R), in 32-bit lanes: two multiplies
 * low, where the steps take four and two 64-bit ones. The lanes hold E'
 * = E + ZE, |E'| <= EMAX, ZE folded into QH and QL, the output's zero
 * point OZ into QH (times 2^R); N is E' < VT.
 * Fills F and answers 1 where every value stays within int32, else 0.
 */
struct bc__q_sum1 {
	int32_t mh, ml, qh, ql, vt;
	int r;
};

static inline int bc__q_sum1_prepare(struct bc__q_sum1 *f, int32_t b, int32_t ze, int32_t emax,
                                     int32_t m, int shift, int32_t oz)
{
	int64_t mh = m >> 12, ml = m - mh * 4096, q, qh, ql;
	int r = -shift;

	if (m < INT32_C(1) << 30 || r < 0 || r > 30)
		return 0;
	q = bc__q_floor_shift64((int64_t)b * m + (INT64_C(1) << 30)
	                        + (r > 0 ? INT64_C(1) << (30 + r) : 0), 19);
	qh = bc__q_floor_shift64(q, 12);
	ql = q - qh * 4096 - ze * ml;
	qh -= ze * mh - (int64_t)oz * (INT64_C(1) << r);
	if (emax * ml + (ql < 0 ? -ql : ql) >= INT64_C(1) << 30
	    || emax * mh + (qh < 0 ? -qh : qh) + (INT64_C(1) << 19) >= INT64_C(1) << 30)
		return 0;
	f->mh = (int32_t)mh;
	f->ml = (int32_t)ml;
	f->qh = (int32_t)qh;
	f->ql = (int32_t)ql;
	/* S below 0 (below -1 where M is 2^30) is E' below VT */
	f->vt = (int32_t)(ze - bc__q_floor_shift64((int64_t)b - (m == INT32_C(1) << 30 ? -1 : 0), 19));
	f->r = r;
	return 1;
}

/*
 * A line's whole vectors: each input's lanes A and B as the expressions
 * say (LOAD(p) loads them where P points), combined by COMBINE, stored
 * through the output step; STEP advances the pointers; i counts the
 * elements done. BC__Q_PICK_LOOP picks it for the inputs that move.
 */
#define BC__Q_X86_VEC(T, A, B, COMBINE, dst, k)                                       \
	{                                                                            \
		bc__q_v a = A(BC__Q_V_LOAD_##T, x + (k) * BC_Q_X86);                 \
		bc__q_v b = B(BC__Q_V_LOAD_##T, y + (k) * BC_Q_X86);                 \
		dst = bc__q_v_out(COMBINE, om, os, oz, lo, hi, BC__Q_RANGE_##T);     \
	}
#define BC__Q_X86_LOOP(T, A, B, COMBINE, STEP)                                      \
	BC__Q_X86_LOOP4(T, BC__Q_X86_VEC, (T, A, B, COMBINE, v0, 0),                 \
	                (T, A, B, COMBINE, v1, 1), (T, A, B, COMBINE, v2, 2),          \
	                (T, A, B, COMBINE, v3, 3), STEP)
/*
 * Whole vectors: for i8 four at a time, stored at once, then one at a
 * time; VEC computes a vector, its arguments ARGS0 to ARGS3 (the last,
 * k, its place among the four) into v0 to v3.
 */
#define BC__Q_X86_LOOP4(T, VEC, ARGS0, ARGS1, ARGS2, ARGS3, STEP)                   \
	{                                                                            \
		for (; BC__Q_X86_FOUR_##T && i + 4 * BC_Q_X86 <= n;                  \
		     i += 4 * BC_Q_X86, STEP, STEP, STEP, STEP) {                    \
			bc__q_v v0, v1, v2, v3;                                      \
                                                                                     \
			VEC ARGS0 VEC ARGS1 VEC ARGS2 VEC ARGS3                      \
			BC__Q_V_STORE4_i8(out, v0, v1, v2, v3);                      \
		}                                                                    \
		for (; i + BC_Q_X86 <= n; i += BC_Q_X86, STEP) {                     \
			bc__q_v v0;                                                  \
                                                                                     \
			VEC ARGS0                                                    \
			BC__Q_V_STORE_##T(out, v0);                                  \
		}                                                                    \
	}
#define BC__Q_X86_FOUR_i8 1
#define BC__Q_X86_FOUR_i16 0
#define BC__Q_X86_LINES(T, A, B, COMBINE)                                           \
	BC__Q_PICK_LOOP(BC__Q_X86_LOOP, BC_Q_X86, T, A, B, BC__Q_X86_ONCE_X,         \
	                BC__Q_X86_ONCE_Y, COMBINE)
#define BC__Q_X86_IN_X(LOAD, p) bc__q_v_in(LOAD(p), zx, xl, xm, xs)
#define BC__Q_X86_IN_Y(LOAD, p) bc__q_v_in(LOAD(p), zy, yl, ym, ys)
#define BC__Q_X86_OFF_X(LOAD, p) BC__Q_V_SUB(LOAD(p), BC__Q_V_SET1(zx))
#define BC__Q_X86_OFF_Y(LOAD, p) BC__Q_V_SUB(LOAD(p), BC__Q_V_SET1(zy))
#define BC__Q_X86_ONCE_X(LOAD, p) BC__Q_V_SET1(xv)
#define BC__Q_X86_ONCE_Y(LOAD, p) BC__Q_V_SET1(yv)
/*
 * The whole vectors of an i8 line of add or subtract in one piece
 * (bc__q_sum1), where its inputs allow: E the lanes' E'.
 */
#define BC__Q_X86_SUM1_VEC(E, dst, k)                                               \
	{                                                                            \
		bc__q_v e = E(k), t;                                                 \
		t = BC__Q_V_ADD(BC__Q_V_ADD(BC__Q_V_MUL(e, mh), qh),                 \
		                BC__Q_V_SRAI(BC__Q_V_ADD(BC__Q_V_MUL(e, ml), ql), 12)); \
		if (f.r > 0)                                                         \
			t = BC__Q_V_SRA(BC__Q_V_DEC_GT(t, vt, e), f.r);              \
		dst = bc__q_v_clamp(t, lo, hi, BC__Q_RANGE_i8);                      \
	}
#define BC__Q_X86_SUM1_LOOP(E, STEP)                                                \
	BC__Q_X86_LOOP4(i8, BC__Q_X86_SUM1_VEC, (E, v0, 0), (E, v1, 1), (E, v2, 2),   \
	                (E, v3, 3), STEP)
/* E': x; y, or -y for subtract; x + y, or x - y */
#define BC__Q_X86_E_X(k) BC__Q_V_LOAD_i8(x + (k) * BC_Q_X86)
#define BC__Q_X86_E_Y(k) (sign > 0 ? BC__Q_V_LOAD_i8(y + (k) * BC_Q_X86)               \
                          : BC__Q_V_SUB(BC__Q_V_SET1(0), BC__Q_V_LOAD_i8(y + (k) * BC_Q_X86)))
#define BC__Q_X86_E_XY(k) BC__Q_V_ADD(BC__Q_X86_E_X(k), BC__Q_X86_E_Y(k))
#define BC__Q_X86_SUM1_i8                                                           \
	{                                                                            \
		struct bc__q_sum1 f;                                                 \
		int xh = xmove && xl == 20 && BC__Q_X86_HALF(xm, xs);                \
		int yh = ymove && yl == 20 && BC__Q_X86_HALF(ym, ys);                \
		int ok = xmove && ymove                                              \
		         ? xh && yh && bc__q_sum1_prepare(&f, 0, zx + sign * zy, 256, om, os, oz) \
		         : xmove ? xh && bc__q_sum1_prepare(&f, sign * yv, zx, 128, om, os, oz) \
		         : yh && bc__q_sum1_prepare(&f, xv, sign * zy, 128, om, os, oz); \
                                                                                     \
		if (ok) {                                                            \
			bc__q_v mh = BC__Q_V_SET1(f.mh), ml = BC__Q_V_SET1(f.ml);    \
			bc__q_v qh = BC__Q_V_SET1(f.qh), ql = BC__Q_V_SET1(f.ql);    \
			bc__q_v vt = BC__Q_V_SET1(f.vt);                             \
                                                                                     \
			if (xmove && ymove)                                          \
				BC__Q_X86_SUM1_LOOP(BC__Q_X86_E_XY,                  \
				                    (x += BC_Q_X86, y += BC_Q_X86, out += BC_Q_X86)) \
			else if (xmove)                                              \
				BC__Q_X86_SUM1_LOOP(BC__Q_X86_E_X, (x += BC_Q_X86, out += BC_Q_X86)) \
			else                                                         \
				BC__Q_X86_SUM1_LOOP(BC__Q_X86_E_Y, (y += BC_Q_X86, out += BC_Q_X86)) \
			return i;                                                    \
		}                                                                    \
	}
#define BC__Q_X86_SUM1_i16
/*
 * A line's whole vectors, in a function of their own (compiled for AVX2
 * where the processor is asked, BC_Q_X86_DISPATCH): the elements it did.
 */
#define BC__Q_X86_HEADS(T, CT)                                                      \
static inline BC__Q_V_TARGET size_t bc__q_sum_head_##T(CT *out, size_t n, const CT *x, \
	int xmove, int32_t xv, const CT *y, int ymove, int32_t yv, int32_t zx, int xl, \
	int32_t xm, int xs, int32_t zy, int yl, int32_t ym, int ys, int32_t om, int os, \
	int32_t oz, int32_t lo, int32_t hi, int sign)                                  \
{                                                                                    \
	size_t i = 0;                                                                \
                                                                                     \
	BC__Q_X86_SUM1_##T                                                           \
	BC__Q_X86_LINES(T, BC__Q_X86_IN_X, BC__Q_X86_IN_Y,                           \
	                sign > 0 ? BC__Q_V_ADD(a, b) : BC__Q_V_SUB(a, b))            \
	return i;                                                                    \
}                                                                                    \
static inline BC__Q_V_TARGET size_t bc__q_mul_head_##T(CT *out, size_t n, const CT *x, \
	int xmove, int32_t xv, const CT *y, int ymove, int32_t yv, int32_t zx,        \
	int32_t zy, int32_t om, int os, int32_t oz, int32_t lo, int32_t hi)           \
{                                                                                    \
	size_t i = 0;                                                                \
                                                                                     \
	BC__Q_X86_LINES(T, BC__Q_X86_OFF_X, BC__Q_X86_OFF_Y, BC__Q_V_MUL(a, b))      \
	return i;                                                                    \
}
BC__Q_X86_HEADS(i8, int8_t)
BC__Q_X86_HEADS(i16, int16_t)
#if BC_Q_X86_DISPATCH
#define BC__Q_X86_RUNS bc__q_avx2()
#else
#define BC__Q_X86_RUNS 1
#endif
/* Whole vectors first, where they run; the pointers that move advance past them. */
#define BC__Q_X86_DONE(d)                                                           \
	if (xmove)                                                                   \
		x += d;                                                              \
	if (ymove)                                                                   \
		y += d;                                                              \
	out += d;                                                                    \
	n -= d;
#define BC__Q_X86_ADD_LINE(T)                                                       \
	if (BC__Q_X86_RUNS) {                                                        \
		size_t d = bc__q_sum_head_##T(out, n, x, xmove, xv, y, ymove, yv, zx,  \
		                              xl, xm, xs, zy, yl, ym, ys, om, os, oz,  \
		                              lo, hi, sign);                           \
		BC__Q_X86_DONE(d)                                                    \
	}
#define BC__Q_X86_MUL_LINE(T)                                                       \
	if (BC__Q_X86_RUNS) {                                                        \
		size_t d = bc__q_mul_head_##T(out, n, x, xmove, xv, y, ymove, yv, zx,  \
		                              zy, om, os, oz, lo, hi);                 \
		BC__Q_X86_DONE(d)                                                    \
	}
#else
#define BC_Q_X86 0
#define BC_Q_X86_DISPATCH 0
#define BC__Q_X86_ADD_LINE(T)
#define BC__Q_X86_MUL_LINE(T)
#endif

/*
 * bc_q_add_line_T_R, bc_q_subtract_line_T_R: X's constants (zero point,
 * left shift, multiplier, shift), Y's, then the output's (multiplier,
 * shift, zero point, range).  bc_q_multiply_line_T_R: X's zero point,
 * Y's, then the output's.  MVE (R = d) runs them in Helium's lanes.
 */
#define BC__Q_LINES(T, CT, R, MVE_ADD, MVE_MUL)                                      \
static inline void bc__q_sum_line_##T##_##R(CT *out, size_t n, const CT *x, int xmove, \
	int32_t xv, const CT *y, int ymove, int32_t yv, int32_t zx, int xl, int32_t xm, \
	int xs, int32_t zy, int yl, int32_t ym, int ys, int32_t om, int os, int32_t oz, \
	int32_t lo, int32_t hi, int sign)                                              \
{                                                                                     \
	size_t i = 0;                                                                 \
                                                                                      \
	MVE_ADD                                                                       \
	for (; i < n; i++) {                                                          \
		int32_t a = xmove ? bc_q_input_##R(x[i], zx, xl, xm, xs) : xv;        \
		int32_t b = ymove ? bc_q_input_##R(y[i], zy, yl, ym, ys) : yv;        \
		out[i] = bc_q_output_##T##_##R(sign > 0 ? a + b : a - b, om, os, oz, lo, hi); \
	}                                                                             \
}                                                                                     \
static inline void bc_q_add_line_##T##_##R(CT *out, size_t n, const CT *x, int xmove, \
	int32_t xv, const CT *y, int ymove, int32_t yv, int32_t zx, int xl, int32_t xm, \
	int xs, int32_t zy, int yl, int32_t ym, int ys, int32_t om, int os, int32_t oz, \
	int32_t lo, int32_t hi)                                                        \
{                                                                                     \
	bc__q_sum_line_##T##_##R(out, n, x, xmove, xv, y, ymove, yv, zx, xl, xm, xs,   \
	                         zy, yl, ym, ys, om, os, oz, lo, hi, 1);              \
}                                                                                     \
static inline void bc_q_subtract_line_##T##_##R(CT *out, size_t n, const CT *x,      \
	int xmove, int32_t xv, const CT *y, int ymove, int32_t yv, int32_t zx, int xl, \
	int32_t xm, int xs, int32_t zy, int yl, int32_t ym, int ys, int32_t om, int os, \
	int32_t oz, int32_t lo, int32_t hi)                                            \
{                                                                                     \
	bc__q_sum_line_##T##_##R(out, n, x, xmove, xv, y, ymove, yv, zx, xl, xm, xs,   \
	                         zy, yl, ym, ys, om, os, oz, lo, hi, -1);             \
}                                                                                     \
static inline void bc_q_multiply_line_##T##_##R(CT *out, size_t n, const CT *x,      \
	int xmove, int32_t xv, const CT *y, int ymove, int32_t yv, int32_t zx,         \
	int32_t zy, int32_t om, int os, int32_t oz, int32_t lo, int32_t hi)            \
{                                                                                     \
	size_t i = 0;                                                                 \
                                                                                      \
	MVE_MUL                                                                       \
	for (; i < n; i++) {                                                          \
		int32_t a = xmove ? bc_q_offset(x[i], zx) : xv;                       \
		int32_t b = ymove ? bc_q_offset(y[i], zy) : yv;                       \
		out[i] = bc_q_output_##T##_##R(a * b, om, os, oz, lo, hi);            \
	}                                                                             \
}

BC__Q_LINES(i8, int8_t, d, BC__Q_MVE_ADD_LINE(i8) BC__Q_X86_ADD_LINE(i8),
            BC__Q_MVE_MUL_LINE(i8) BC__Q_X86_MUL_LINE(i8))
BC__Q_LINES(i16, int16_t, d, BC__Q_MVE_ADD_LINE(i16) BC__Q_X86_ADD_LINE(i16),
            BC__Q_MVE_MUL_LINE(i16) BC__Q_X86_MUL_LINE(i16))
BC__Q_LINES(i8, int8_t, s, , )
BC__Q_LINES(i16, int16_t, s, , )

#endif
