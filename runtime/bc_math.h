/*
 * bc_math.h: the runtime helpers that need the C library's <math.h>:
 * np.power, np.exp, np.log, np.hypot, np.arctan2 and np.logaddexp for
 * floats.  Includes <math.h> and bc.h.  Everything else, np.sqrt,
 * np.floor, np.fmod and the rest included, is in bc.h and needs no
 * library at all.
 *
 * The C library functions each helper calls (link with -lm where the
 * platform wants it); f16 values are computed with the float ones:
 *   bc_pow_f32        powf            bc_pow_f64        pow
 *   bc_exp_f32        expf            bc_exp_f64        exp
 *   bc_log_f32        logf            bc_log_f64        log
 *   bc_hypot_f32      hypotf          bc_hypot_f64      hypot
 *   bc_atan2_f32      atan2f          bc_atan2_f64      atan2
 *   bc_logaddexp_f32  expf log1pf     bc_logaddexp_f64  exp log1p
 * (gen/ops.c holds the same list, which a kernel's banner repeats.)
 *
 * Floats follow IEEE-754; build without -ffast-math, or the results below
 * are no longer NumPy's.
 *
 * np.power: the C library's pow (NumPy may use its own SIMD pow, which
 * can differ in the last bit, and in the sign and payload of a NaN
 * result), but NaNs as C99's Annex F and NumPy have them: pow(a, +-0)
 * and pow(1, b) are 1 for every a and b, a signalling NaN included, and
 * otherwise a NaN b gives a NaN.  These cases never reach the C library,
 * whose answers differ: glibc's pow(sNaN, 0) and pow(1, sNaN) are NaNs,
 * newlib's pow(-1, NaN) is 1.  f16 values follow the same rules through
 * bc_pow_f32 (NumPy's float16 loop calls glibc's powf, and so gives a
 * NaN for those two; its float32 and float64 loops give 1).
 * np.exp and np.log: the C library's, within a few ULP of NumPy's (which
 * may use its own SIMD versions; NumPy's float32 ones give the NaN
 * 0x7fc00000 for any NaN).
 *
 * np.hypot and np.arctan2 (bc_atan2): the C library's hypot and atan2
 * (NumPy's float64 and float32 loops call them; on x86-64 with AVX512
 * NumPy uses its own SIMD arctan2, which can differ in the last bits,
 * and which, given two NaNs, keeps a's where the C library keeps b's).
 *
 * np.logaddexp, log(exp(a) + exp(b)) without overflow, NumPy's algorithm
 * (npy_logaddexp) step by step:
 *   - a == b: a + log(2) (so equal infinities give that infinity);
 *   - else with d = a - b: a + log1p(exp(-d)) for d > 0,
 *     b + log1p(exp(d)) for d <= 0;
 *   - else d is NaN (a or b is NaN) and is the result: the NaN the
 *     hardware's a - b gives (on x86-64: a's if a is NaN, else b's,
 *     made quiet), as NumPy's.
 * Infinite and NaN arguments give NumPy's result bit for bit; the rest
 * depends on the C library's exp and log1p, within a few ULP of NumPy's.
 *
 * tests/runtime_check.py holds these to NumPy (glibc, x86-64) within
 * pow 1, hypot 1, atan2 2, logaddexp 2, exp 2 and log 2 ULP (seen on its
 * inputs: pow 1, hypot 0, atan2 2, logaddexp 0; exp and log 2 for
 * float32, 1 for float64), and bit for bit where an operand is infinite
 * or NaN, except that the NaN out of pow, atan2, exp and log may be
 * another NaN.
 *
 * BC__FLOAT(S, T, F) defines them all for S (f32) of type T (float),
 * whose C library functions have the suffix F (powf).
 */
#ifndef BC_MATH_H
#define BC_MATH_H

#include <math.h>

#include "bc.h"

/* log(2) as NumPy's NPY_LOGE2; (float)BC__LN2 is its NPY_LOGE2f. */
#define BC__LN2 0.693147180559945309417232121458176568
#define BC__FLOAT(S, T, F)                                                    \
static inline T bc_pow_##S(T a, T b)                                          \
{                                                                             \
	if (b == 0 || a == 1)                                                 \
		return (T)1;                                                  \
	if (b != b)                                                           \
		return a + b;                                                 \
	return pow##F(a, b);                                                  \
}                                                                             \
static inline T bc_exp_##S(T a) { return exp##F(a); }                         \
static inline T bc_log_##S(T a) { return log##F(a); }                         \
static inline T bc_hypot_##S(T a, T b) { return hypot##F(a, b); }             \
static inline T bc_atan2_##S(T a, T b) { return atan2##F(a, b); }             \
static inline T bc_logaddexp_##S(T a, T b)                                    \
{                                                                             \
	T d;                                                                  \
	if (a == b)                                                           \
		return a + (T)BC__LN2;                                        \
	d = a - b;                                                            \
	if (d > 0)                                                            \
		return a + log1p##F(exp##F(-d));                              \
	if (d <= 0)                                                           \
		return b + log1p##F(exp##F(d));                               \
	return d;                                                             \
}

BC__FLOAT(f32, float, f)
BC__FLOAT(f64, double, )

#endif /* BC_MATH_H */
