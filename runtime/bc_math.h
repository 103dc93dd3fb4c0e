/*
 * bc_math.h: the runtime helpers that need <math.h> (link with -lm where
 * the platform wants it).  Includes bc.h.
 *
 * Floats follow IEEE-754; build without -ffast-math, or the results below
 * are no longer NumPy's.
 */
#ifndef BC_MATH_H
#define BC_MATH_H

#include <math.h>

#include "bc.h"

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
 * infinite or NaN a gives NaN for both.
 *
 * np.fmod (the sign of a) and np.power: the C library's fmod (exact) and
 * pow (NumPy may use its own SIMD pow, which can differ in the last bit,
 * and in the sign and payload of a NaN result).
 * np.absolute, np.sqrt, np.floor and np.ceil: exact, as NumPy's.  A NaN
 * comes out of floor and ceil made quiet, sign and payload kept, as from
 * NumPy's (some C libraries return a signalling NaN unchanged).
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
 * whose C library functions have the suffix F (fmodf).
 */
/* log(2) as NumPy's NPY_LOGE2; (float)BC__LN2 is its NPY_LOGE2f. */
#define BC__LN2 0.693147180559945309417232121458176568
#define BC__FLOAT(S, T, F)                                                    \
static inline T bc__divmod_##S(T a, T b, T *modulus)                          \
{                                                                             \
	T mod = fmod##F(a, b), div, floordiv;                                 \
                                                                              \
	div = (a - mod) / b;                                                  \
	if (mod != 0) {                                                       \
		if ((b < 0) != (mod < 0)) {                                   \
			mod += b;                                             \
			div -= (T)1;                                          \
		}                                                             \
	} else {                                                              \
		mod = copysign##F((T)0, b);                                   \
	}                                                                     \
	if (div != 0) {                                                       \
		floordiv = floor##F(div);                                     \
		if (div - floordiv > (T)0.5)                                  \
			floordiv += (T)1;                                     \
	} else {                                                              \
		floordiv = copysign##F((T)0, a / b);                          \
	}                                                                     \
	*modulus = mod;                                                       \
	return floordiv;                                                      \
}                                                                             \
static inline T bc_floordiv_##S(T a, T b)                                     \
{                                                                             \
	T mod;                                                                \
	if (b == 0)                                                           \
		return a / b;                                                 \
	return bc__divmod_##S(a, b, &mod);                                    \
}                                                                             \
static inline T bc_mod_##S(T a, T b)                                          \
{                                                                             \
	T mod;                                                                \
	if (b == 0)                                                           \
		return fmod##F(a, b);                                         \
	bc__divmod_##S(a, b, &mod);                                           \
	return mod;                                                           \
}                                                                             \
                                                                              \
static inline T bc_fmod_##S(T a, T b) { return fmod##F(a, b); }               \
static inline T bc_pow_##S(T a, T b) { return pow##F(a, b); }                 \
static inline T bc_abs_##S(T a) { return fabs##F(a); }                        \
static inline T bc_sqrt_##S(T a) { return sqrt##F(a); }                       \
static inline T bc_floor_##S(T a) { return a != a ? a + a : floor##F(a); }    \
static inline T bc_ceil_##S(T a) { return a != a ? a + a : ceil##F(a); }      \
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
