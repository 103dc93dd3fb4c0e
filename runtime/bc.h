/*
 * bc.h: the runtime header every kernel emitted by bcastgen includes.
 *
 * Freestanding C99 (only <stdint.h> and <stddef.h>), usable from C++.
 * Every function is static inline; nothing here calls libc.
 *
 * Names: public bc_<op>_<T>, internal bc__*, macros BC_*, with the type
 * suffixes i8 i16 i32 i64 (int8_t..int64_t), u8 u16 u32 u64
 * (uint8_t..uint64_t), f32 (float) and f64 (double); f16 (IEEE binary16,
 * kept as a bc_f16 bit pattern, computed with as float) is at the end.
 *
 * No input value leads to undefined behaviour: signed arithmetic is done
 * in an unsigned "work" type and wrapped back (as NumPy's integer
 * arithmetic wraps), division by zero gives 0, INT_MIN / -1 gives INT_MIN,
 * out-of-range shift counts have a defined result, and float-to-integer
 * conversion saturates.  The semantics follow NumPy 1.24 (np.add,
 * np.floor_divide, np.remainder, np.fmod, np.power, np.left_shift,
 * np.right_shift, np.maximum, np.minimum, np.invert, ...); each group
 * below says where it departs from NumPy (where NumPy raises or leaves
 * the result undefined).
 *
 * Work types: 8- and 16-bit values are computed in `unsigned int`, which
 * is never promoted to int (uint16_t * uint16_t would be: signed
 * overflow); 32-bit values in uint32_t and 64-bit values in uint64_t.
 * (uint32_t is unsigned int or unsigned long depending on the target;
 * either way it is not promoted, as int is at most 32 bits on every
 * target this project supports.)
 *
 * Functions that need <math.h> are in bc_math.h; the generic run-time
 * reference kernel is in bc_ref.h.
 */
#ifndef BC_H
#define BC_H

#include <stddef.h>
#include <stdint.h>

/*
 * BC_LINE_LOOP goes before the loop that computes a line's elements, of
 * a streamed line (bc_stream.h) or of a line of converted f16s.  At
 * -O3 gcc writes out a loop this short before it vectorizes loops, and
 * the straight-line code it leaves is vectorized only where no element
 * chooses between two values: a NaN-propagating maximum or a where then
 * runs an element at a time, several times slower than a plain loop.
 * Kept a loop ("GCC unroll 1", which clang reads too),
 * it is vectorized as a loop, at every level.  BC_LINE_LOOP_OFF takes
 * the pragma away (t140 shows what it does).
 */
#if defined(__GNUC__) && !defined(__INTEL_COMPILER) && !defined(BC_LINE_LOOP_OFF)
#define BC_LINE_LOOP _Pragma("GCC unroll 1")
#else
#define BC_LINE_LOOP
#endif

/*
 * BC_PARALLEL is 1 where the kernel is built with OpenMP (-fopenmp) and
 * BC_NO_PARALLEL is not defined: a kernel made with --parallel then runs
 * its outermost loop on the threads of a parallel region (as many as
 * OpenMP gives it: OMP_NUM_THREADS), each a run of its iterations, in
 * order (bc_share); else on the calling thread alone.  The results are
 * the same either way: each element is computed the same way, once.
 */
#if defined(_OPENMP) && !defined(BC_NO_PARALLEL)
#define BC_PARALLEL 1
#include <omp.h>

/* [*FROM, *TO): the calling thread's share of N iterations, as even as can be. */
static inline void bc_share(size_t n, size_t *from, size_t *to)
{
	size_t t = (size_t)omp_get_thread_num(), k = (size_t)omp_get_num_threads();
	size_t each = n / k, more = n % k;

	*from = each * t + (t < more ? t : more);
	*to = *from + each + (t < more);
}
#else
#define BC_PARALLEL 0
#endif

/*
 * BC_OPTIMIZE(...) is what a kernel asks of gcc for itself alone: one
 * optimize attribute, whose options are the strings below.  One, not one
 * each: gcc 12 applies the options of a later optimize attribute over
 * the level's defaults again, which undoes an earlier one's
 * no-tree-loop-vectorize or no-tree-loop-distribute-patterns (a
 * freestanding kernel then called memcpy).
 *
 * BC_LOOPS(N), in a kernel with loops: gcc is asked to start each loop
 * on an N-byte boundary (not under -Os: align-loops=1 is no alignment),
 * N the target's instruction fetch block (bcastgen's target table).  A
 * short loop body that straddles one can run at half the speed on
 * processors that fetch N bytes at a time, and where the linker puts the
 * function is luck otherwise.
 *
 * BC_PRESSURE, in a kernel of written-out statements for a target whose
 * gcc schedules code before register allocation without counting
 * registers (RISC-V, before gcc 14): it moves every load and operation
 * above the first store, runs out of registers, and saves callee-saved
 * ones to hold the values (12 instructions more in a 24-element add).
 * gcc is asked to weigh register pressure when it schedules.
 *
 * BC_SLP_ONLY, in a kernel whose innermost loops are written out as a
 * block of statements inside a loop shorter than a vector.  gcc
 * vectorizes the block as straight-line code; at -O3 its loop vectorizer
 * would rather vectorize across the iterations of that short loop, a few
 * lanes at a time, which runs slower.  So gcc is asked not to vectorize
 * loops there.
 *
 * BC_NO_CONTRACT, in a kernel where a float multiply meets an add: gcc
 * would fuse them into one rounding in its GNU modes (its default), where
 * it ignores #pragma STDC FP_CONTRACT, and the result would not be
 * NumPy's. (No runtime helper has a multiply that feeds an add, so the
 * kernel's own code is all there is to keep apart.)
 *
 * BC_NO_MEMCPY, in a kernel with loops: gcc is asked not to make a loop
 * that copies or fills into a call to memcpy or memset, which it does
 * even under -ffreestanding, where there may be none.
 *
 * BC_STORE_ORDER() stands between the vectors of elements a kernel writes
 * out, where it is tuned for a processor whose stores run slower out of
 * order (bcastgen --tune list): gcc's SLP vectorizer may store a row's
 * second vector before its first, and stores that cross cache lines
 * then ran 2x slower on an Intel Xeon (Cascade Lake). An empty asm
 * statement that clobbers memory keeps the compiler's stores in order;
 * it emits no instruction.
 *
 * The optimize attribute is the kernel's alone, never the helpers'
 * below: gcc does not inline a helper that has one unless the kernel's
 * options are the same.
 *
 * Other compilers are asked nothing (clang keeps the standard pragma, and
 * makes no library call under -ffreestanding).
 */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__INTEL_COMPILER)
#define BC_OPTIMIZE(...) __attribute__((optimize(__VA_ARGS__)))
#else
#define BC_OPTIMIZE(...)
#endif
#if defined(__OPTIMIZE_SIZE__)
#define BC_LOOPS(n) "align-loops=1"
#else
#define BC_LOOPS(n) "align-loops=" #n
#endif
#define BC_SLP_ONLY "no-tree-loop-vectorize"
/*
 * BC_VECTORS_512 asks gcc, where it targets AVX-512, to vectorize the
 * kernel with 64-byte vectors: its tuning for Intel's processors prefers
 * 32-byte ones, where a quantized kernel's 64-bit products take twice
 * the instructions (make bench: qmul 126 us at -O3 -march=native on a
 * Cascade Lake, 93 us so). clang takes no such target attribute.
 */
#if defined(__GNUC__) && !defined(__clang__) && defined(__AVX512F__) \
    && (defined(__x86_64__) || defined(__i386__))
#define BC_VECTORS_512 __attribute__((target("prefer-vector-width=512")))
#else
#define BC_VECTORS_512
#endif
#define BC_PRESSURE "sched-pressure"
#define BC_NO_CONTRACT "fp-contract=off"
#define BC_NO_MEMCPY "no-tree-loop-distribute-patterns"
#if defined(__GNUC__)
#define BC_STORE_ORDER() __asm__ __volatile__("" ::: "memory")
#else
#define BC_STORE_ORDER() ((void)0)
#endif

/*
 * BC__SIGNED(S, T, U, W, N, MAX, LIM) defines the helpers of one signed
 * type: S the suffix, T the type, U the unsigned type of the same width,
 * W the unsigned work type, N the width in bits, MAX the largest T, LIM
 * 2^(N-1) as a double literal (MAX + 1, and -MIN).
 *
 * BC__UNSIGNED(S, T, W, N, LIM) does the same for an unsigned type, with
 * LIM 2^N.
 */
#define BC__SIGNED(S, T, U, W, N, MAX, LIM)                            \
                                                                              \
/* bc__u2s_S(v): the unsigned value v read as two's complement T, without  \
 * implementation-defined conversion (compiles to nothing).                 \
 * bc_wrap_S(u): u modulo 2^N, read as T (numpy .astype from uint64). */   \
static inline T bc__u2s_##S(U v)                                              \
{                                                                             \
	return v <= (U)MAX ? (T)v : (T)(-(T)(U)~v - 1);                          \
}                                                                             \
static inline T bc_wrap_##S(uint64_t u) { return bc__u2s_##S((U)u); }         \
                                                                              \
/* a + b, a - b, a * b and -a, wrapping modulo 2^N (NumPy).                 \
 * -MIN is MIN.  abs(a) is |a|, and abs(MIN) is MIN (as np.abs). */          \
static inline T bc_add_##S(T a, T b) { return bc__u2s_##S((U)((W)a + (W)b)); } \
static inline T bc_sub_##S(T a, T b) { return bc__u2s_##S((U)((W)a - (W)b)); } \
static inline T bc_mul_##S(T a, T b) { return bc__u2s_##S((U)((W)a * (W)b)); } \
static inline T bc_neg_##S(T a) { return bc__u2s_##S((U)((W)0 - (W)a)); }     \
static inline T bc_abs_##S(T a) { return a < 0 ? bc_neg_##S(a) : a; }         \
                                                                              \
/* Division.  For b == 0 every one gives 0 (NumPy gives 0 and warns).      \
 * div:      C's a / b, truncating toward zero; MIN / -1 is MIN.            \
 * floordiv: np.floor_divide, rounding toward -inf; MIN // -1 is MIN.       \
 * mod:      np.remainder, the sign of b; MIN % -1 is 0.                    \
 * fmod:     np.fmod, the sign of a (C's %); fmod(MIN, -1) is 0. */          \
static inline T bc_div_##S(T a, T b)                                          \
{                                                                             \
	if (b == 0) return 0;                                                    \
	if (b == -1) return bc_neg_##S(a);                                       \
	return (T)(a / b);                                                       \
}                                                                             \
static inline T bc_floordiv_##S(T a, T b)                                     \
{                                                                             \
	T q, r;                                                                  \
	if (b == 0) return 0;                                                    \
	if (b == -1) return bc_neg_##S(a);                                       \
	q = (T)(a / b);                                                          \
	r = (T)(a % b);                                                          \
	return (r != 0 && (r < 0) != (b < 0)) ? (T)(q - 1) : q;                  \
}                                                                             \
static inline T bc_mod_##S(T a, T b)                                          \
{                                                                             \
	T r;                                                                     \
	if (b == 0 || b == -1) return 0;                                         \
	r = (T)(a % b);                                                          \
	return (r != 0 && (r < 0) != (b < 0)) ? (T)(r + b) : r;                  \
}                                                                             \
static inline T bc_fmod_##S(T a, T b)                                         \
{                                                                             \
	if (b == 0 || b == -1) return 0;                                         \
	return (T)(a % b);                                                       \
}                                                                             \
                                                                              \
/* a to the power b by repeated squaring, wrapping (np.power), O(log b).    \
 * NumPy raises for b < 0; here the integer part of 1 / a^|b|:              \
 * 1 for a == 1, +-1 for a == -1 (b even / odd), 0 otherwise (and for 0). */ \
static inline T bc_pow_##S(T a, T b)                                          \
{                                                                             \
	W base = (W)a, r = 1;                                                    \
	U e = (U)b;                                                              \
	if (b < 0) {                                                             \
		if (a == 1) return 1;                                                \
		if (a == -1) return ((W)b & 1u) ? (T)-1 : (T)1;                      \
		return 0;                                                            \
	}                                                                        \
	while (e != 0) {                                                         \
		if (e & 1u) r *= base;                                               \
		base *= base;                                                        \
		e = (U)(e >> 1);                                                     \
	}                                                                        \
	return bc__u2s_##S((U)r);                                                \
}                                                                             \
                                                                              \
/* np.left_shift / np.right_shift: a shifted by b bits.  A count b < 0 or   \
 * >= N gives 0 for shl, and for shr -1 if a < 0 else 0; shl wraps to T;    \
 * shr is arithmetic (rounds toward -inf), computed without >> of a         \
 * negative value. */                                                        \
static inline T bc_shl_##S(T a, T b)                                          \
{                                                                             \
	if (b < 0 || b >= N) return 0;                                           \
	return bc__u2s_##S((U)((W)a << b));                                      \
}                                                                             \
static inline T bc_shr_##S(T a, T b)                                          \
{                                                                             \
	T r;                                                                     \
	if (b < 0 || b >= N) return a < 0 ? (T)-1 : (T)0;                        \
	if (a >= 0) {                                                            \
		r = (T)(a >> b);                                                     \
	} else {                                                                 \
		r = (T)(-1 - a);       /* = ~a, >= 0 */                              \
		r = (T)(r >> b);                                                     \
		r = (T)(-1 - r);                                                     \
	}                                                                        \
	return r;                                                                \
}                                                                             \
                                                                              \
/* np.maximum, np.minimum, np.invert (~a) and the bitwise and, or, xor. */  \
static inline T bc_max_##S(T a, T b) { return a > b ? a : b; }                \
static inline T bc_min_##S(T a, T b) { return a < b ? a : b; }                \
static inline T bc_not_##S(T a) { return bc__u2s_##S((U)~(W)a); }             \
static inline T bc_and_##S(T a, T b) { return bc__u2s_##S((U)((W)a & (W)b)); } \
static inline T bc_or_##S(T a, T b) { return bc__u2s_##S((U)((W)a | (W)b)); }  \
static inline T bc_xor_##S(T a, T b) { return bc__u2s_##S((U)((W)a ^ (W)b)); } \
                                                                              \
/* Float to T: bc_f32_to_S(float), bc_f64_to_S(double).  NaN gives 0,    \
 * others truncate toward zero and saturate to [MIN, MAX].  (NumPy leaves  \
 * out-of-range float to int conversion undefined; this is the defined     \
 * choice.)  LIM is 2^(N-1), exact in both types; the float version        \
 * compares with float constants only, so no double is involved at any    \
 * -O level (values between -LIM - 1 and -LIM truncate to MIN as well). */ \
static inline T bc_f32_to_##S(float v)                                        \
{                                                                             \
	if (v != v) return 0;                                                    \
	if (v >= LIM##f) return (T)MAX;                                          \
	if (v < -LIM##f) return (T)(-(T)MAX - 1);                                \
	return (T)v;                                                             \
}                                                                             \
static inline T bc_f64_to_##S(double v)                                       \
{                                                                             \
	if (v != v) return 0;                                                    \
	if (v >= LIM) return (T)MAX;                                             \
	if (v < -LIM) return (T)(-(T)MAX - 1);                                   \
	return (T)v;                                                             \
}

#define BC__UNSIGNED(S, T, W, N, LIM)                                        \
                                                                              \
/* bc_wrap_S(u): u modulo 2^N (numpy .astype from uint64). */               \
static inline T bc_wrap_##S(uint64_t u) { return (T)u; }                      \
                                                                              \
/* a + b, a - b, a * b and -a modulo 2^N (NumPy); abs(a) is a. */            \
static inline T bc_add_##S(T a, T b) { return (T)((W)a + (W)b); }             \
static inline T bc_sub_##S(T a, T b) { return (T)((W)a - (W)b); }             \
static inline T bc_mul_##S(T a, T b) { return (T)((W)a * (W)b); }             \
static inline T bc_neg_##S(T a) { return (T)((W)0 - (W)a); }                  \
static inline T bc_abs_##S(T a) { return a; }                                 \
                                                                              \
/* Division; b == 0 gives 0 (NumPy gives 0 and warns).  div and floordiv   \
 * are a / b; mod (np.remainder) and fmod (np.fmod) are a % b. */            \
static inline T bc_div_##S(T a, T b)                                          \
{                                                                             \
	W q;                                                                     \
	if (b == 0) return 0;                                                    \
	q = (W)a / (W)b;                                                         \
	return (T)q;                                                             \
}                                                                             \
static inline T bc_floordiv_##S(T a, T b) { return bc_div_##S(a, b); }        \
static inline T bc_mod_##S(T a, T b)                                          \
{                                                                             \
	W r;                                                                     \
	if (b == 0) return 0;                                                    \
	r = (W)a % (W)b;                                                         \
	return (T)r;                                                             \
}                                                                             \
static inline T bc_fmod_##S(T a, T b) { return bc_mod_##S(a, b); }            \
                                                                              \
/* a to the power b by repeated squaring, modulo 2^N (np.power). */         \
static inline T bc_pow_##S(T a, T b)                                          \
{                                                                             \
	W base = (W)a, r = 1;                                                    \
	T e = b;                                                                 \
	while (e != 0) {                                                         \
		if (e & 1u) r *= base;                                               \
		base *= base;                                                        \
		e = (T)(e >> 1);                                                     \
	}                                                                        \
	return (T)r;                                                             \
}                                                                             \
                                                                              \
/* np.left_shift / np.right_shift; a count b >= N gives 0. */               \
static inline T bc_shl_##S(T a, T b)                                          \
{                                                                             \
	W r;                                                                     \
	if (b >= N) return 0;                                                    \
	r = (W)a << b;                                                           \
	return (T)r;                                                             \
}                                                                             \
static inline T bc_shr_##S(T a, T b)                                          \
{                                                                             \
	W r;                                                                     \
	if (b >= N) return 0;                                                    \
	r = (W)a >> b;                                                           \
	return (T)r;                                                             \
}                                                                             \
                                                                              \
/* np.maximum, np.minimum, np.invert (~a) and the bitwise and, or, xor. */  \
static inline T bc_max_##S(T a, T b) { return a > b ? a : b; }                \
static inline T bc_min_##S(T a, T b) { return a < b ? a : b; }                \
static inline T bc_not_##S(T a) { return (T)~(W)a; }                          \
static inline T bc_and_##S(T a, T b) { return (T)((W)a & (W)b); }            \
static inline T bc_or_##S(T a, T b) { return (T)((W)a | (W)b); }             \
static inline T bc_xor_##S(T a, T b) { return (T)((W)a ^ (W)b); }            \
                                                                              \
/* Float to T: bc_f32_to_S(float), bc_f64_to_S(double).  NaN and v <= -1 \
 * give 0, v >= 2^N (LIM, exact in both types) the maximum, others         \
 * truncate toward zero (out of range is undefined in NumPy).  Float       \
 * constants only in the float version. */                                 \
static inline T bc_f32_to_##S(float v)                                        \
{                                                                             \
	if (v != v || v <= -1.0f) return 0;                                      \
	if (v >= LIM##f) return (T)~(T)0;                                        \
	return (T)v;                                                             \
}                                                                             \
static inline T bc_f64_to_##S(double v)                                       \
{                                                                             \
	if (v != v || v <= -1.0) return 0;                                       \
	if (v >= LIM) return (T)~(T)0;                                           \
	return (T)v;                                                             \
}

/*
 * Comparisons of integers, 0 or 1.  Kernels call these rather than write
 * x <= 255, which gcc -Wextra flags when it is always true for the type.
 */
#define BC__COMPARE(S, T)                                                     \
static inline uint8_t bc_eq_##S(T a, T b) { return (uint8_t)(a == b); }       \
static inline uint8_t bc_ne_##S(T a, T b) { return (uint8_t)(a != b); }       \
static inline uint8_t bc_lt_##S(T a, T b) { return (uint8_t)(a < b); }        \
static inline uint8_t bc_le_##S(T a, T b) { return (uint8_t)(a <= b); }       \
static inline uint8_t bc_gt_##S(T a, T b) { return (uint8_t)(a > b); }        \
static inline uint8_t bc_ge_##S(T a, T b) { return (uint8_t)(a >= b); }

BC__SIGNED(i8, int8_t, uint8_t, unsigned int, 8, INT8_MAX, 128.0)
BC__SIGNED(i16, int16_t, uint16_t, unsigned int, 16, INT16_MAX, 32768.0)
BC__SIGNED(i32, int32_t, uint32_t, uint32_t, 32, INT32_MAX, 2147483648.0)
BC__SIGNED(i64, int64_t, uint64_t, uint64_t, 64, INT64_MAX,
	9223372036854775808.0)

BC__UNSIGNED(u8, uint8_t, unsigned int, 8, 256.0)
BC__UNSIGNED(u16, uint16_t, unsigned int, 16, 65536.0)
BC__UNSIGNED(u32, uint32_t, uint32_t, 32, 4294967296.0)
BC__UNSIGNED(u64, uint64_t, uint64_t, 64, 18446744073709551616.0)
BC__COMPARE(i8, int8_t)
BC__COMPARE(i16, int16_t)
BC__COMPARE(i32, int32_t)
BC__COMPARE(i64, int64_t)
BC__COMPARE(u8, uint8_t)
BC__COMPARE(u16, uint16_t)
BC__COMPARE(u32, uint32_t)
BC__COMPARE(u64, uint64_t)

/* np.fmax / np.fmin of integers: np.maximum / np.minimum (no NaN here). */
#define BC__FMINMAX(S, T)                                                     \
static inline T bc_fmax_##S(T a, T b) { return bc_max_##S(a, b); }            \
static inline T bc_fmin_##S(T a, T b) { return bc_min_##S(a, b); }

BC__FMINMAX(i8, int8_t)
BC__FMINMAX(i16, int16_t)
BC__FMINMAX(i32, int32_t)
BC__FMINMAX(i64, int64_t)
BC__FMINMAX(u8, uint8_t)
BC__FMINMAX(u16, uint16_t)
BC__FMINMAX(u32, uint32_t)
BC__FMINMAX(u64, uint64_t)

/*
 * np.maximum / np.minimum for floats, bit for bit as NumPy 1.24 computes
 * them on x86-64 (its SIMD loops, built on MAXPS/MINPS, used for every
 * memory layout of the elementwise ufunc):
 *   - a NaN a is returned as it is (sign and payload kept, even a
 *     signalling NaN);
 *   - otherwise a NaN b is returned as it is;
 *   - otherwise a if a > b (a < b for min), else b; so for equal values,
 *     including -0.0 against +0.0, the result is b:
 *     maximum(-0.0, 0.0) = 0.0, maximum(0.0, -0.0) = -0.0 (min alike).
 * (NumPy's scalar fallback, `a >= b || isnan(a) ? a : b`, and other CPUs
 * may differ on signed zeros; x86-64 is the reference here.)
 * gcc vectorizes these.  No libm needed.
 */
#define BC__MAX_MIN(S, T)                                                     \
static inline T bc_max_##S(T a, T b) { return a != a ? a : (a > b ? a : b); }  \
static inline T bc_min_##S(T a, T b) { return a != a ? a : (a < b ? a : b); }
BC__MAX_MIN(f32, float)
BC__MAX_MIN(f64, double)

/*
 * Bit casts between float and uint32_t, double and uint64_t.
 *
 * In C, through a union: reading a member other than the last one
 * written gives its bytes (C99 TC3, C11 6.5.2.3), and gcc and clang keep
 * the value in a register, in a vector register too: a loop of f16
 * conversions vectorizes at -O2 and -O3 alike.  In C++ that read is
 * undefined behaviour; memcpy is defined, but needs <cstring>, which a
 * freestanding build need not have, and with -ffreestanding or
 * -fno-builtin gcc and clang call the library's memcpy for it.  Any object
 * may be read and written as an array of unsigned char, so C++ copies the
 * bytes one by one: no call at any -O level, and from -O1 on gcc and
 * clang fold the loop to one register move.  float and uint32_t (double
 * and uint64_t) are taken to have the same size (checked below) and byte
 * order, as on every target of this project.
 */
typedef char bc__float_is_32_bits[sizeof(float) == 4 ? 1 : -1];
typedef char bc__double_is_64_bits[sizeof(double) == 8 ? 1 : -1];

/* BC__CAST(TO, FROM, x): the body of a function returning x's bits as TO. */
#ifdef __cplusplus
static inline void bc__copy_bytes(void *to, const void *from, size_t n)
{
	unsigned char *d = (unsigned char *)to;
	const unsigned char *s = (const unsigned char *)from;
	size_t i;

	for (i = 0; i < n; i++)
		d[i] = s[i];
}
#define BC__CAST(TO, FROM, x) TO to; bc__copy_bytes(&to, &x, sizeof to); return to;
#else
#define BC__CAST(TO, FROM, x) union { FROM from; TO to; } v; v.from = x; return v.to;
#endif
/* bc__S_bits(f): F's bits as U; bc__bits_S(u): the float T whose bits are U. */
#define BC__BIT_CASTS(S, T, U)                                                \
static inline U bc__##S##_bits(T f) { BC__CAST(U, T, f) }                      \
static inline T bc__bits_##S(U u) { BC__CAST(T, U, u) }
BC__BIT_CASTS(f32, float, uint32_t)
BC__BIT_CASTS(f64, double, uint64_t)

/*
 * np.fmax / np.fmin for floats: the NaN-ignoring maximum and minimum, bit
 * for bit as NumPy 1.24's SIMD loops compute them on x86-64 (MAXPS/MINPS
 * with a mask for NaN b):
 *   - a NaN b gives a as it is (so two NaNs give a, sign and payload kept);
 *   - otherwise a if a > b (a < b for fmin), else b; so a NaN a gives b,
 *     and for equal values, -0.0 against +0.0 too, the result is b:
 *     fmax(-0.0, 0.0) = 0.0, fmax(0.0, -0.0) = -0.0 (fmin alike).
 * Departure: NumPy computes the last few elements of a loop (fewer than
 * one vector) with the C library's fmax, which makes a signalling NaN
 * quiet and returns that; here a signalling NaN is treated as any NaN,
 * wherever it is.
 */
#define BC__FMAX_FMIN(S, T)                                                   \
static inline T bc_fmax_##S(T a, T b) { return b != b ? a : (a > b ? a : b); } \
static inline T bc_fmin_##S(T a, T b) { return b != b ? a : (a < b ? a : b); }
BC__FMAX_FMIN(f32, float)
BC__FMAX_FMIN(f64, double)

/*
 * The same four against a constant c that is not NaN, in one compare:
 * bc_maxc_S(a, c) is bc_max_S(a, c), bc_cmax_S(c, a) is bc_max_S(c, a),
 * and alike for min, fmax and fmin. A NaN a fails every comparison, so
 * the test that picks a or c also decides what a NaN gives: a for
 * maximum and minimum, c for fmax and fmin. Equal values, -0.0 against
 * +0.0 too, give the second argument, as the general helpers do; the
 * f16 versions keep the first, as bc_max_f16 and its kin.
 *
 * BC__CONST(S, T, LE, LT, GE, GT) defines them for S of type T; the
 * comparisons are passed in so that f16 can swap them.
 */
#define BC__CONST(S, T, LE, LT, GE, GT)                                       \
static inline T bc_maxc_##S(T a, T c) { return !(a LE c) ? a : c; }          \
static inline T bc_cmax_##S(T c, T a) { return !(a LT c) ? a : c; }          \
static inline T bc_minc_##S(T a, T c) { return !(a GE c) ? a : c; }          \
static inline T bc_cmin_##S(T c, T a) { return !(a GT c) ? a : c; }          \
static inline T bc_fmaxc_##S(T a, T c) { return (a GT c) ? a : c; }          \
static inline T bc_cfmax_##S(T c, T a) { return (a GE c) ? a : c; }          \
static inline T bc_fminc_##S(T a, T c) { return (a LT c) ? a : c; }          \
static inline T bc_cfmin_##S(T c, T a) { return (a LE c) ? a : c; }
BC__CONST(f32, float, <=, <, >=, >)
BC__CONST(f64, double, <=, <, >=, >)

/*
 * np.copysign: |a| with the sign bit of b, by bits, as NumPy: a NaN a
 * keeps its payload (even a signalling NaN), a NaN b gives its sign bit.
 *
 * np.heaviside(x, h0): 0 for x < 0, h0 (as it is) for x == 0 (either
 * zero), 1 for x > 0, and for a NaN x NumPy's NPY_NAN: the positive quiet
 * NaN without payload (0x7fc00000, 0x7ff8000000000000), whatever the sign
 * and payload of x.
 */
static inline float bc_copysign_f32(float a, float b)
{
	return bc__bits_f32((bc__f32_bits(a) & 0x7fffffffu) |
		(bc__f32_bits(b) & 0x80000000u));
}
static inline double bc_copysign_f64(double a, double b)
{
	return bc__bits_f64((bc__f64_bits(a) & 0x7fffffffffffffffu) |
		(bc__f64_bits(b) & 0x8000000000000000u));
}
static inline float bc_heaviside_f32(float x, float h0)
{
	if (x != x)
		return bc__bits_f32(0x7fc00000u);
	if (x == 0)
		return h0;
	return x < 0 ? 0.0f : 1.0f;
}
static inline double bc_heaviside_f64(double x, double h0)
{
	if (x != x)
		return bc__bits_f64(0x7ff8000000000000u);
	if (x == 0)
		return h0;
	return x < 0 ? 0.0 : 1.0;
}

/*
 * Exact float operations that need no C library: np.absolute, np.floor,
 * np.ceil, np.sqrt, np.fmod, np.floor_divide and np.remainder, for f32
 * and f64 (and through float for f16), bit for bit as NumPy 1.24 gives
 * them on x86-64 (tests/runtime_check.py checks them, on both paths
 * below):
 *   - abs clears the sign bit (NaNs too, as NumPy);
 *   - floor and ceil keep the sign of a (floor(-0.0) = -0.0,
 *     ceil(-0.5) = -0.0); a NaN comes out quiet, sign and payload kept;
 *   - sqrt is correctly rounded; sqrt(-0.0) = -0.0; a NaN comes out
 *     quiet; a negative number (and -inf) gives x86-64's default NaN,
 *     0xffc00000 / 0xfff8000000000000.  (Where the target's instruction
 *     is used, NaN results are that target's: ARM's default NaN is the
 *     positive 0x7fc00000; RISC-V gives its canonical NaN, 0x7fc00000,
 *     for any NaN, without sign or payload.  Numbers are the same.);
 *   - fmod(a, b) has the sign of a and is always exact: a NaN a gives a
 *     made quiet, else a NaN b gives b made quiet; an infinite a or a
 *     zero b gives the default NaN as above; an infinite b gives a.
 *
 * Each is exact portable C on the bits (integer operations only; a
 * float unit is not needed).  Where a target has an instruction that
 * gives the same result, it is used instead, written so that no call to
 * the C library can appear (gcc and clang turn __builtin_sqrtf into the
 * instruction plus a call to sqrtf for errno, unless -fno-math-errno):
 *   - sqrt: inline asm, sqrtss/sqrtsd on x86-64, fsqrt on AArch64,
 *     vsqrt.f32/.f64 on ARM with a single/double precision FPU
 *     (__ARM_FP), fsqrt.s/.d on RISC-V with F/D and the divide and
 *     square-root instructions (__riscv_fdiv);
 *   - floor and ceil: __builtin_floor and __builtin_ceil where they
 *     are known to become one instruction: x86-64 with SSE4.1 (roundss),
 *     AArch64 (frintm, frintp) and ARM with directed rounding (vrintm,
 *     vrintp).
 * Defining BC_PORTABLE_MATH before including bc.h forces the portable
 * code everywhere (the tests build both).
 *
 * BC__EXACT(S, T, U, N, MB, BIAS, F) defines them for suffix S of type T
 * whose bits are the N-bit unsigned U, with MB stored significand bits,
 * exponent bias BIAS, and literal suffix F (f or nothing).
 */
#if !defined(BC_PORTABLE_MATH) && defined(__GNUC__)
#if defined(__x86_64__)
#define BC__HW_SQRT_F32(r) __asm__("sqrtss %0, %0" : "+x"(r))
#define BC__HW_SQRT_F64(r) __asm__("sqrtsd %0, %0" : "+x"(r))
#elif defined(__aarch64__)
#define BC__HW_SQRT_F32(r) __asm__("fsqrt %s0, %s0" : "+w"(r))
#define BC__HW_SQRT_F64(r) __asm__("fsqrt %d0, %d0" : "+w"(r))
#elif defined(__arm__) && defined(__ARM_FP)
#if __ARM_FP & 4
#define BC__HW_SQRT_F32(r) __asm__("vsqrt.f32 %0, %0" : "+t"(r))
#endif
#if __ARM_FP & 8
#define BC__HW_SQRT_F64(r) __asm__("vsqrt.f64 %P0, %P0" : "+w"(r))
#endif
#elif defined(__riscv) && defined(__riscv_flen) && defined(__riscv_fdiv)
#define BC__HW_SQRT_F32(r) __asm__("fsqrt.s %0, %0" : "+f"(r))
#if __riscv_flen >= 64
#define BC__HW_SQRT_F64(r) __asm__("fsqrt.d %0, %0" : "+f"(r))
#endif
#endif
#if defined(__SSE4_1__) || defined(__aarch64__)
#define BC__HW_FLOOR_F32 1
#define BC__HW_FLOOR_F64 1
#elif defined(__arm__) && defined(__ARM_FEATURE_DIRECTED_ROUNDING) && \
	defined(__ARM_FP)
#if __ARM_FP & 4
#define BC__HW_FLOOR_F32 1
#endif
#if __ARM_FP & 8
#define BC__HW_FLOOR_F64 1
#endif
#endif
#endif

#define BC__EXACT(S, T, U, N, MB, BIAS, F)                                    \
                                                                              \
/* bc__quiet_S(u): the NaN whose bits are u, made quiet (sign and payload   \
 * kept); bc__default_nan_S(): the default NaN (x86-64's). */          \
static inline T bc__quiet_##S(U u) { return bc__bits_##S(u | (U)1 << (MB - 1)); } \
static inline T bc__default_nan_##S(void)                                     \
{                                                                             \
	return bc__bits_##S((U)~(U)0 << (MB - 1));                               \
}                                                                             \
                                                                              \
static inline T bc_abs_##S(T a)                                               \
{                                                                             \
	return bc__bits_##S(bc__##S##_bits(a) & (((U)1 << (N - 1)) - 1u));      \
}                                                                             \
                                                                              \
/* bc__floor_S(a, UP): floor(a) for UP 1, ceil(a) for UP 0, by bits: the  \
 * fraction bits of |a| are cleared, after adding them all (rounding the    \
 * magnitude up, a carry moving up the exponent) where a's sign bit is UP. \
 * |a| >= 2^MB is an integer already. */                                    \
static inline T bc__floor_##S(T a, unsigned up)                               \
{                                                                             \
	U u = bc__##S##_bits(a), frac;                                           \
	U neg = u >> (N - 1);                                                    \
	int e = (int)((u >> MB) & (2u * BIAS + 1u));   /* biased exponent */     \
                                                                              \
	if (e >= BIAS + MB) {            /* an integer, infinity, NaN */        \
		if (e == 2 * BIAS + 1 && (u & (((U)1 << MB) - 1u)) != 0)            \
			return bc__quiet_##S(u);                                    \
		return a;                                                        \
	}                                                                        \
	if (e < BIAS) {                  /* |a| < 1: +-0 or +-1 */              \
		if ((u << 1) == 0 || neg != up)                                     \
			return bc__bits_##S(neg << (N - 1));                        \
		return bc__bits_##S(neg << (N - 1) | (U)BIAS << MB);                \
	}                                                                        \
	frac = (((U)1 << MB) - 1u) >> (e - BIAS);                                \
	if (neg == up)                                                           \
		u += frac;                                                       \
	return bc__bits_##S(u & ~frac);                                          \
}                                                                             \
                                                                              \
/* bc__sqrt_S(a): the square root, digit by digit on the significand.  A   \
 * positive a is m 2^(E - MB), m normalized to MB + 1 bits, E unbiased;   \
 * its root needs MB + 2 bits (the result's and one more, which with the    \
 * remainder, zero or not, rounds to nearest, ties to even), so it is the   \
 * root of the radicand X = m 2^(MB + 2 + (E odd)), of 2 MB + 4 bits, and  \
 * the result's exponent is floor(E / 2).  X's bits come two at a time     \
 * from the top of M = m << (W - MB - 2 + (E odd)), W bits (W even and at   \
 * least MB + 3), and then zeros.  The remainder stays below 2^(MB + 5). */ \
static inline T bc__sqrt_##S(T a)                                             \
{                                                                             \
	const int w = MB + 4 - (MB & 1);                                         \
	const U hid = (U)1 << MB;                                                \
	U u = bc__##S##_bits(a), m, q = 0, rem = 0, t, d;                        \
	int e, k, i;                                                             \
                                                                              \
	if (u >> (N - 1)) {                      /* -0, negative, -NaN */       \
		if ((u << 1) == 0)                                                  \
			return a;                                                   \
		if ((u << 1) > (U)(2 * BIAS + 1) << (MB + 1))                       \
			return bc__quiet_##S(u);                                    \
		return bc__default_nan_##S();                                       \
	}                                                                        \
	e = (int)(u >> MB);                                                      \
	m = u & (hid - 1u);                                                      \
	if (e == 2 * BIAS + 1)                   /* +inf, NaN */                \
		return m ? bc__quiet_##S(u) : a;                                    \
	if (e == 0) {                            /* +0, subnormal */            \
		if (m == 0)                                                         \
			return a;                                                   \
		e = 1;                                                              \
		while (m < hid) {                                                   \
			m <<= 1;                                                    \
			e--;                                                        \
		}                                                                   \
	} else {                                                                 \
		m |= hid;                                                           \
	}                                                                        \
	k = e + BIAS;                /* E + 2 BIAS: positive, of E's parity */   \
	m <<= w - MB - 2 + (k & 1);                                              \
	for (i = 0; i < MB + 2; i++) {       /* no branch: the digit is 50:50 */\
		rem = rem << 2 | m >> (w - 2);                                      \
		m = (m << 2) & (((U)1 << w) - 1u);                                  \
		t = q << 2 | 1u;                                                    \
		d = (U)(rem >= t);                   /* the next digit */           \
		rem -= t & (0u - d);                                                \
		q = q << 1 | d;                                                     \
	}                                                                        \
	/* k / 2 is floor(E / 2) biased; the significand t has its hidden bit,  \
	 * and a carry out of rounding moves the exponent up. */               \
	t = q >> 1;                                                              \
	if ((q & 1u) && (rem != 0 || (t & 1u)))                                  \
		t++;                                                                \
	return bc__bits_##S((((U)(k >> 1) - 1u) << MB) + t);                     \
}                                                                             \
                                                                              \
/* bc_fmod_S(a, b): np.fmod, by long division of the significands: with    \
 * |a| = ma 2^ea and |b| = mb 2^eb (scaled alike, ea >= eb), mb is taken    \
 * away from ma wherever it fits while ma moves up one bit at a time to eb; \
 * what is left, at b's scale, is the exact result, of a's sign. */        \
static inline T bc_fmod_##S(T a, T b)                                         \
{                                                                             \
	const U hid = (U)1 << MB, sign = (U)1 << (N - 1);                        \
	const U inf = (U)(2 * BIAS + 1) << MB;                                   \
	U ua = bc__##S##_bits(a), ub = bc__##S##_bits(b);                        \
	U xa = ua & (sign - 1u), xb = ub & (sign - 1u), ma, mb;                  \
	int ea, eb, d;                                                           \
                                                                              \
	if (xa > inf)                                                            \
		return bc__quiet_##S(ua);                                           \
	if (xb > inf)                                                            \
		return bc__quiet_##S(ub);                                           \
	if (xa == inf || xb == 0)                                                \
		return bc__default_nan_##S();                                       \
	if (xa < xb)                             /* |a| < |b|, b infinite */    \
		return a;                                                           \
	ea = (int)(xa >> MB);                                                    \
	eb = (int)(xb >> MB);                                                    \
	ma = xa & (hid - 1u);                                                    \
	mb = xb & (hid - 1u);                                                    \
	if (ea != 0) {                                                           \
		ma |= hid;                                                          \
	} else {                                 /* subnormal: normalize */     \
		for (ea = 1; ma < hid; ea--)                                        \
			ma <<= 1;                                                   \
	}                                                                        \
	if (eb != 0) {                                                           \
		mb |= hid;                                                          \
	} else {                                                                 \
		for (eb = 1; mb < hid; eb--)                                        \
			mb <<= 1;                                                   \
	}                                                                        \
	for (d = ea - eb; d > 0; d--) {                                          \
		if (ma >= mb)                                                       \
			ma -= mb;                                                   \
		ma <<= 1;                                                           \
	}                                                                        \
	if (ma >= mb)                                                            \
		ma -= mb;                                                           \
	if (ma == 0)                                                             \
		return bc__bits_##S(ua & sign);                                     \
	/* ma 2^eb, below |b|: normalize, or, below the normal range, shift    \
	 * to a subnormal (exact: a and b are multiples of its unit) */        \
	while (ma < hid && eb > 1) {                                             \
		ma <<= 1;                                                           \
		eb--;                                                               \
	}                                                                        \
	if (eb < 1) {                                                            \
		ma >>= 1 - eb;                                                      \
		eb = 1;                                                             \
	}                                                                        \
	return bc__bits_##S((ua & sign) | ((((U)eb - 1u) << MB) + ma));          \
}

BC__EXACT(f32, float, uint32_t, 32, 23, 127, f)
BC__EXACT(f64, double, uint64_t, 64, 52, 1023, )

/*
 * np.sqrt, np.floor and np.ceil: the instruction where there is one (see
 * above), else the portable code.
 */
static inline float bc_sqrt_f32(float a)
{
#ifdef BC__HW_SQRT_F32
	float r = a;

	BC__HW_SQRT_F32(r);
	return r;
#else
	return bc__sqrt_f32(a);
#endif
}
static inline double bc_sqrt_f64(double a)
{
#ifdef BC__HW_SQRT_F64
	double r = a;

	BC__HW_SQRT_F64(r);
	return r;
#else
	return bc__sqrt_f64(a);
#endif
}
#ifdef BC__HW_FLOOR_F32
static inline float bc_floor_f32(float a) { return __builtin_floorf(a); }
static inline float bc_ceil_f32(float a) { return __builtin_ceilf(a); }
#else
static inline float bc_floor_f32(float a) { return bc__floor_f32(a, 1u); }
static inline float bc_ceil_f32(float a) { return bc__floor_f32(a, 0u); }
#endif
#ifdef BC__HW_FLOOR_F64
static inline double bc_floor_f64(double a) { return __builtin_floor(a); }
static inline double bc_ceil_f64(double a) { return __builtin_ceil(a); }
#else
static inline double bc_floor_f64(double a) { return bc__floor_f64(a, 1u); }
static inline double bc_ceil_f64(double a) { return bc__floor_f64(a, 0u); }
#endif

/*
 * np.floor_divide and np.remainder for floats, bit for bit: NumPy 1.24's
 * npy_divmod (after CPython's float divmod), with its own treatment of
 * b == 0:
 *   floordiv(a, 0) = a / 0 (+-inf, or NaN for a 0 or NaN)
 *   mod(a, 0)      = fmod(a, 0) (NaN)
 * Otherwise, with mod = fmod(a, b) and div = (a - mod) / b:
 *   - a non-zero mod of the other sign than b gets b added (div - 1);
 *     a zero mod gets the sign of b;
 *   - div is rounded to the nearest integer (floor, then +1 when more
 *     than 0.5 above); a zero div gets the sign of a / b.
 * So mod(-1, inf) = inf and floordiv(-1, inf) = -1 (as Python); an
 * infinite or NaN a gives NaN for both: the NaN fmod gives, as it is
 * (NumPy's a - mod and its quotient pass on that NaN; computed here, a
 * compiler that sees mod is a constant NaN may fold a - mod into
 * a + -mod and flip its sign).  Built on the exact helpers above, so no
 * C library either.
 */
#define BC__DIVMOD(S, T, F)                                                   \
static inline T bc__divmod_##S(T a, T b, T *modulus)                          \
{                                                                             \
	T mod = bc_fmod_##S(a, b), div, floordiv;                                \
                                                                              \
	if (mod != mod) {                                                        \
		*modulus = mod;                                                     \
		return mod;                                                         \
	}                                                                        \
	div = (a - mod) / b;                                                     \
	if (mod != 0) {                                                          \
		if ((b < 0) != (mod < 0)) {                                         \
			mod += b;                                                   \
			div -= 1.0##F;                                              \
		}                                                                   \
	} else {                                                                 \
		mod = bc_copysign_##S(0.0##F, b);                                   \
	}                                                                        \
	if (div != 0) {                                                          \
		floordiv = bc_floor_##S(div);                                       \
		if (div - floordiv > 0.5##F)                                        \
			floordiv += 1.0##F;                                         \
	} else {                                                                 \
		floordiv = bc_copysign_##S(0.0##F, a / b);                          \
	}                                                                        \
	*modulus = mod;                                                          \
	return floordiv;                                                         \
}                                                                             \
static inline T bc_floordiv_##S(T a, T b)                                     \
{                                                                             \
	T mod;                                                                   \
	if (b == 0)                                                              \
		return a / b;                                                       \
	return bc__divmod_##S(a, b, &mod);                                       \
}                                                                             \
static inline T bc_mod_##S(T a, T b)                                          \
{                                                                             \
	T mod;                                                                   \
	if (b == 0)                                                              \
		return bc_fmod_##S(a, b);                                           \
	bc__divmod_##S(a, b, &mod);                                              \
	return mod;                                                              \
}

BC__DIVMOD(f32, float, f)
BC__DIVMOD(f64, double, )

/*
 * IEEE binary16 (f16), NumPy's float16.
 *
 * An f16 is kept in memory as its bit pattern, a bc_f16, and computed
 * with as a float: NumPy's float16 loops convert each operand to float
 * (npy_half_to_float, exact), compute in float and round the result back
 * (npy_float_to_half), once per operation.  Kernels do the same:
 * bc_f16_to_f32 on load, the float helper, bc_f32_to_f16 on store (or
 * bc_round_f16 between operations).  The bc_*_f16 helpers below
 * therefore take and return float values that hold f16 values.
 *
 * How close that comes to NumPy 1.24's float16 (x86-64; every f16
 * against edge values both ways plus random pairs, every f16 for the
 * unary ops, in tests/runtime_check.py):
 *   - Bit for bit: a + b, a - b, a * b, a / b (infix, in float; also
 *     compared once over all 2^32 pairs) and bc_sqrt_f32, which are then
 *     the correctly rounded f16 results (float has 24 bits, at least
 *     2 * 11 + 2, so rounding twice does no harm); bc_floordiv_f32,
 *     bc_mod_f32, bc_fmod_f32, -a, bc_abs_f32, bc_floor_f32,
 *     bc_ceil_f32, bc_copysign_f32, bc_heaviside_f32; the comparisons
 *     == != < <= > >= of the floats; and bc_max_f16, bc_min_f16,
 *     bc_fmax_f16, bc_fmin_f16 below.  One exception: for
 *     two NaN operands a + b and a * b give one of them, made quiet, and
 *     which one is the compiler's choice (NumPy's loops give b's, gcc
 *     here a's); a - b and a / b give a's, as NumPy.
 *   - Not bc_max_f32, bc_min_f32, bc_fmax_f32, bc_fmin_f32: for zeros of
 *     opposite sign they give b, NumPy's float16 loops a (the rest is
 *     equal); hence the f16 versions.
 *   - Within 1 f16 ULP, through the C library: bc_pow_f32, bc_exp_f32,
 *     bc_log_f32, bc_hypot_f32, bc_atan2_f32, bc_logaddexp_f32.  Only exp
 *     differed, for 4 of the 65536 f16s: there expf lands exactly on a
 *     tie between two f16s and the second rounding goes the other way
 *     than NumPy's correctly rounded result (as 0.0072975 -> 1.00732421875
 *     -> 1.0078125, not 1.0068359375).  And pow(a, 0) and pow(1, b) are
 *     1 for a NaN a or b, where NumPy's float16 loop gives a NaN
 *     (bc_math.h says why).
 *   - Conversions, all bit for bit: f32 and f64 to f16 by bc_f32_to_f16
 *     and bc_f64_to_f16 (the first over all 2^32 floats once); f16 to
 *     f32 by bc_f16_to_f32; f16 to an integer type T by
 *     bc_f32_to_T(bc_f16_to_f32(h)), NumPy's astype wherever the value
 *     fits (outside, it saturates and gives 0 for NaN, where NumPy's
 *     float-to-int cast is undefined).  An integer type to f16: NumPy
 *     converts to float first, then rounds (npy_float_to_half((float)x)),
 *     int64 and uint64 too, and so does bc_f32_to_f16((float)x); for
 *     every integer type that is also the correctly rounded f16, as
 *     integers up to 2^24 are exact in float and all larger ones are
 *     beyond 65520 (infinity) either way, so no other helper is needed.
 *     f16 to f64: NumPy converts directly, keeping a signalling NaN;
 *     (double)bc_f16_to_f32(h) is equal except that on x86-64 the float
 *     to double conversion makes such a NaN quiet.
 */
#ifndef BC_F16_DEFINED	/* a generated header may have defined it too */
#define BC_F16_DEFINED
typedef uint16_t bc_f16;
#endif

/*
 * The conversions between f16 and float come in three forms, each bit
 * for bit NumPy's (t050 checks that the first two give the same f16 for
 * every float, and NumPy's for every f16 and the edge cases):
 *   - Where the compiler has float vectors (SSE2, NEON, RISC-V V with F,
 *     AltiVec, WebAssembly SIMD): no branch, so that a loop of
 *     conversions vectorizes.  Each case is computed and the right one
 *     selected by masks.  Going to f16, the FPU rounds the subnormals:
 *     |f| + 0.5 is a multiple of 2^-24, the unit of an f16 subnormal
 *     (only |f| < 2^-14 reaches that addition, so a NaN raises no
 *     invalid-operation flag).  Rounded to nearest, ties to even, that
 *     is NumPy's f16 in C's default rounding mode; under another
 *     (fesetround) those subnormals round that way, and the addition
 *     may raise the inexact flag, which the integer form does not.
 *     Flushing subnormals to zero changes nothing.
 *   - Elsewhere, or where BC_F16_INTEGER is defined: integer operations
 *     and a branch per case, which on a scalar core runs about half the
 *     instructions (make size: 49 an element of an f16 add on the
 *     Cortex-M4F at -O2 without IEEE __fp16, against 103).  Helium is
 *     left out: gcc 12 does not vectorize the conversions for it, and
 *     clang 14 would vectorize f16 comparisons into its wrong compare of
 *     a NaN with a broadcast scalar (tests/t600-firmware.t, MISCOMPILED).
 *   - On an Arm M-profile core with an FPU (Cortex-M4F, M7, M33, M55)
 *     whose compiler has IEEE __fp16 (gcc with -mfp16-format=ieee, or by
 *     default where the core has half-precision arithmetic, as the M55;
 *     clang always): the FPU's conversion instructions, VCVTB.F32.F16
 *     and VCVTB.F16.F32, for finite values, and integer operations
 *     behind a branch for infinities and NaNs (the instructions would
 *     make a signalling NaN quiet).  make size: 23 instructions an
 *     element of an f16 add on the Cortex-M4F at -O2, against 49
 *     (clearing the quiet bit after the instructions with masks, with
 *     no branch, ran 42).  Every M-profile FPU has these instructions,
 *     but gcc 12 leaves the half-precision bit (2) out of __ARM_FP for a
 *     single-precision FPU (4; clang 14 says 6), so that bit is not
 *     tested.  Left out: clang with Helium, as clang 14 vectorizes a
 *     loop of these conversions to f16 and drops the VCVTB of every
 *     other lane.  BC_F16_PORTABLE keeps the other two forms.
 */
#if !defined(BC_F16_INTEGER) && (defined(__SSE2__) || defined(__ARM_NEON) || \
	(defined(__riscv_vector) && defined(__riscv_flen)) || defined(__ALTIVEC__) || \
	defined(__wasm_simd128__))
#define BC__F16_BRANCHES 0
#else
#define BC__F16_BRANCHES 1
#endif
#if !defined(BC_F16_PORTABLE) && defined(__ARM_FP16_FORMAT_IEEE) && defined(__ARM_FP) && \
	defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M' && \
	!(defined(__clang__) && defined(__ARM_FEATURE_MVE))
#define BC__F16_VCVT 1
/* bc__fp16_bits(x): X's bits; bc__bits_fp16(u): the __fp16 whose bits are U. */
BC__BIT_CASTS(fp16, __fp16, uint16_t)
#else
#define BC__F16_VCVT 0
#endif

/*
 * bc_f16_to_f32(h): the float of equal value, exact; infinities and NaNs
 * keep sign and payload (the 10 payload bits become the top ones of the
 * float's 23), and a signalling NaN stays signalling, as
 * np.float16.astype(np.float32). A subnormal is (2^-14 + man * 2^-24) -
 * 2^-14, where both operands and the result are normal floats and the
 * difference is exact (so no rounding mode or flush-to-zero can change
 * it; but for a zero, whose difference is -0 when rounding down, so the
 * forms below that compute it for a zero clear its sign, and t050 checks
 * every f16 in every rounding mode).
 */
/* bc__f16_tiny(m): 2^-14 + m * 2^-24 - 2^-14 for M a subnormal f16's
 * significand shifted into a float's (man << 13): exact, see above. */
static inline float bc__f16_tiny(uint32_t m)
{
	return bc__bits_f32(0x38800000u | m) - bc__bits_f32(0x38800000u);
}

#if BC__F16_VCVT
/* The FPU's VCVTB.F32.F16 for finite values (exact, whatever FPSCR
 * says: flush-to-zero never applies to a half-precision input); an
 * infinity or NaN as the integer form below. */
static inline float bc_f16_to_f32(bc_f16 h)
{
	if (((uint32_t)h & 0x7c00u) == 0x7c00u)         /* infinity, NaN */
		return bc__bits_f32(((uint32_t)h & 0x8000u) << 16 | 0x7f800000u |
		                    ((uint32_t)h & 0x3ffu) << 13);
	return (float)bc__bits_fp16(h);
}
#elif BC__F16_BRANCHES
static inline float bc_f16_to_f32(bc_f16 h)
{
	uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
	uint32_t exp = ((uint32_t)h >> 10) & 0x1fu;
	uint32_t man = (uint32_t)h & 0x3ffu;

	if (exp == 0x1fu)                       /* infinity, NaN */
		return bc__bits_f32(sign | 0x7f800000u | man << 13);
	if (exp != 0)                           /* normal: bias 15 -> 127 */
		return bc__bits_f32(sign | (exp + 112u) << 23 | man << 13);
	if (man == 0)                           /* +-0 */
		return bc__bits_f32(sign);
	return bc__bits_f32(sign | bc__f32_bits(bc__f16_tiny(man << 13)));
}
#else
/* Each case computed, the right one selected by masks (a comparison gives
 * 0 or 1, never a branch); em is at most 0x0fffe000, so int32_t compares
 * it, which SSE2 has. */
static inline float bc_f16_to_f32(bc_f16 h)
{
	uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
	int32_t em = (int32_t)(((uint32_t)h & 0x7fffu) << 13);  /* exponent, significand */
	uint32_t normal = (uint32_t)em + (112u << 23);          /* bias 15 -> 127 */
	uint32_t special = (0u - (uint32_t)(em >= 0x0f800000)) & 0x7f800000u;  /* infinity, NaN */
	/* used where em < 2^23; its sign cleared: for em 0 the difference is
	 * -0 when rounding down, +0 otherwise */
	uint32_t tiny = bc__f32_bits(bc__f16_tiny((uint32_t)em)) & 0x7fffffffu;
	uint32_t is_tiny = 0u - (uint32_t)(em < 0x00800000);    /* subnormal, zero */

	return bc__bits_f32(sign | (tiny & is_tiny) | ((normal | special) & ~is_tiny));
}
#endif

/*
 * bc_f32_to_f16(f) and bc_f64_to_f16(d): the f16 nearest to f (to d),
 * ties to even, bit for bit as NumPy's npy_floatbits_to_halfbits and
 * npy_doublebits_to_halfbits (np.float32/64 .astype(np.float16)):
 *   - |x| >= 65520 (halfway between the largest f16, 65504, and 2^16)
 *     gives +-infinity; |x| <= 2^-25 (half the smallest subnormal,
 *     2^-24) gives +-0; the sign is always kept;
 *   - a NaN keeps its sign and the top 10 bits of its payload (so a
 *     signalling NaN stays signalling); if those are all 0 the f16 gets
 *     payload 1, to stay a NaN.
 * A normal f16 is rounded by rebiasing the exponent (127 -> 15) and
 * dropping 13 bits, adding just under half of the last kept bit, plus
 * one if that bit is odd: ties go to even, and a carry out of the
 * significand moves up the exponent, as it should (past the largest,
 * to infinity). A double is rounded once, directly: rounding it to float
 * first could round twice (1 + 2^-11 + 2^-40 would become the tie
 * 1 + 2^-11, then 1; its nearest f16 is 1 + 2^-10), so bc_f64_to_f16
 * uses integer operations only.
 */
#if BC__F16_VCVT
/* The FPU's VCVTB.F16.F32 for all but NaN; a NaN as the integer form
 * below.  That is NumPy's f16 wherever FPSCR.AHP is 0 (IEEE half
 * precision, not Arm's alternative format, which has no infinity) and
 * FPSCR.RMode is round to nearest, ties to even, as out of reset:
 * FPDSCR resets to 0 and a new floating-point context takes FPSCR's
 * AHP, DN, FZ and RMode from it (Armv7-M ARM, ExecuteFPCheck).  FPSCR.FZ
 * does not matter: flush-to-zero never applies to a half-precision
 * result (Arm ARM pseudocode: FPRound leaves N == 16 out; Armv8.1-M's
 * FZ16 does not apply to conversions), and a subnormal float that it
 * flushes gives +-0, which is NumPy's f16 for it too.  Nor does
 * FPSCR.DN: no NaN reaches the instruction.  Unlike the integer form,
 * the instruction sets FPSCR's cumulative flags (inexact, underflow,
 * overflow). */
static inline bc_f16 bc_f32_to_f16(float f)
{
	if (f != f) {
		uint32_t u = bc__f32_bits(f);
		uint32_t h = (u >> 13) & 0x3ffu;

		return (bc_f16)((u >> 16 & 0x8000u) | 0x7c00u | h | (uint32_t)(h == 0));
	}
	return bc__fp16_bits((__fp16)f);
}
#elif BC__F16_BRANCHES
static inline bc_f16 bc_f32_to_f16(float f)
{
	uint32_t u = bc__f32_bits(f);
	uint32_t sign = (u >> 16) & 0x8000u;
	uint32_t a = u & 0x7fffffffu;           /* |f| */
	uint32_t m, h, s;

	if (a >= 0x7f800000u) {                 /* infinity, NaN */
		h = (a & 0x7fffffu) >> 13;
		if (a != 0x7f800000u && h == 0)
			h = 1;
		return (bc_f16)(sign | 0x7c00u | h);
	}
	if (a >= 0x477ff000u)                   /* >= 65520 */
		return (bc_f16)(sign | 0x7c00u);
	if (a >= 0x38800000u) {                 /* >= 2^-14: normal f16 */
		a -= 0x38000000u;
		return (bc_f16)(sign | (a + 0xfffu + ((a >> 13) & 1u)) >> 13);
	}
	if (a < 0x33000000u)                    /* < 2^-25 */
		return (bc_f16)sign;
	/* Subnormal f16: the float is m * 2^(e - 150); in units of 2^-24
	 * (the smallest f16) that is m >> s with s = 126 - e, 14 .. 24.
	 * Rounded as above; a carry gives the smallest normal, 0x0400. */
	s = 126u - (a >> 23);
	m = (a & 0x7fffffu) | 0x800000u;
	h = (m + (1u << (s - 1u)) - 1u + ((m >> s) & 1u)) >> s;
	return (bc_f16)(sign | h);
}
#else
/* As bc_f16_to_f32: masks, and int32_t compares |f|.  The cases are
 * selected in a 32-bit word whose bits 28..13 are the f16, shifted down
 * once at the end: selected at 16 bits, as gcc otherwise does, each mask
 * is narrowed by SSE2's shuffles, and the conversion runs at half the
 * speed. */
static inline bc_f16 bc_f32_to_f16(float f)
{
	uint32_t u = bc__f32_bits(f);
	int32_t a = (int32_t)(u & 0x7fffffffu);                 /* |f| */
	uint32_t normal = (uint32_t)a - 0x38000000u + 0xfffu + (((uint32_t)a >> 13) & 1u);
	uint32_t is_tiny = 0u - (uint32_t)(a < 0x38800000);     /* < 2^-14 */
	uint32_t tiny = (bc__f32_bits(bc__bits_f32((uint32_t)a & is_tiny) + 0.5f) - 0x3f000000u) << 13;
	uint32_t payload = (uint32_t)a & 0x007fe000u;
	uint32_t nan = 0x0f800000u | payload | (uint32_t)(payload == 0u) << 13;
	uint32_t is_inf = 0u - (uint32_t)(a >= 0x477ff000);     /* >= 65520 */
	uint32_t is_nan = 0u - (uint32_t)(a > 0x7f800000);
	uint32_t x = (normal & ~is_inf) | (0x0f800000u & is_inf);

	x = (tiny & is_tiny) | (x & ~is_tiny);
	x = (nan & is_nan) | (x & ~is_nan);
	return (bc_f16)((x | (u & 0x80000000u) >> 3) >> 13);
}
#endif

static inline bc_f16 bc_f64_to_f16(double d)
{
	uint64_t u = bc__f64_bits(d);
	uint32_t sign = (uint32_t)(u >> 48) & 0x8000u;
	uint64_t a = u & 0x7fffffffffffffffu;   /* |d| */
	uint64_t m;
	uint32_t h, s;

	if (a >= 0x7ff0000000000000u) {         /* infinity, NaN */
		h = (uint32_t)((a & 0xfffffffffffffu) >> 42);
		if (a != 0x7ff0000000000000u && h == 0)
			h = 1;
		return (bc_f16)(sign | 0x7c00u | h);
	}
	if (a >= 0x40effe0000000000u)           /* >= 65520 */
		return (bc_f16)(sign | 0x7c00u);
	if (a >= 0x3f10000000000000u) {         /* >= 2^-14: normal f16 */
		/* Bias 1023 -> 15, drop 42 bits, rounded as above. */
		a -= 0x3f00000000000000u;
		a = (a + 0x1ffffffffffu + ((a >> 42) & 1u)) >> 42;
		return (bc_f16)(sign | (uint32_t)a);
	}
	if (a < 0x3e60000000000000u)            /* < 2^-25 */
		return (bc_f16)sign;
	/* Subnormal f16: m * 2^(e - 1075) is m >> s units of 2^-24, with
	 * s = 1051 - e, 43 .. 53. */
	s = 1051u - (uint32_t)(a >> 52);
	m = (a & 0xfffffffffffffu) | 0x10000000000000u;
	m = (m + ((uint64_t)1 << (s - 1u)) - 1u + ((m >> s) & 1u)) >> s;
	return (bc_f16)(sign | (uint32_t)m);
}

/* bc_round_f16(f): f rounded to the nearest f16, as a float. */
static inline float bc_round_f16(float f)
{
	return bc_f16_to_f32(bc_f32_to_f16(f));
}

/*
 * np.maximum, np.minimum, np.fmax and np.fmin for float16, on floats that
 * hold f16 values.  NumPy's float16 loops compare the f16s directly
 * (npy_half_ge, npy_half_le) and, unlike its float32 and float64 SIMD
 * loops, keep a for equal values: maximum(-0.0, 0.0) is -0.0 here,
 * 0.0 for float32.  NaNs as for float32: maximum and minimum return a
 * NaN a, else a NaN b; fmax and fmin return a if b is NaN, else b if a
 * is NaN.  Payloads are kept (no arithmetic).
 */
static inline float bc_max_f16(float a, float b)
{
	return (a >= b || a != a) ? a : b;
}
static inline float bc_min_f16(float a, float b)
{
	return (a <= b || a != a) ? a : b;
}
static inline float bc_fmax_f16(float a, float b)
{
	return (a >= b || b != b) ? a : b;
}
static inline float bc_fmin_f16(float a, float b)
{
	return (a <= b || b != b) ? a : b;
}
/* Against a constant, in one compare (see BC__CONST): equal values keep
 * the first argument here, so each comparison is its strict or loose twin. */
BC__CONST(f16, float, <, <=, >, >=)

#endif /* BC_H */
