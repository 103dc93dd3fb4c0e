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
 * pow (NumPy may use its own SIMD pow, which can differ in the last bit).
 * np.absolute, np.sqrt, np.floor and np.ceil: exact, as the C library's.
 * np.exp and np.log: the C library's, within a few ULP of NumPy's (which
 * may use its own SIMD versions).
 *
 * BC__FLOAT(S, T, F) defines them all for S (f32) of type T (float),
 * whose C library functions have the suffix F (fmodf).
 */
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
static inline T bc_floor_##S(T a) { return floor##F(a); }                     \
static inline T bc_ceil_##S(T a) { return ceil##F(a); }                       \
static inline T bc_exp_##S(T a) { return exp##F(a); }                         \
static inline T bc_log_##S(T a) { return log##F(a); }

BC__FLOAT(f32, float, f)
BC__FLOAT(f64, double, )

#endif /* BC_MATH_H */
