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
 */
static inline float bc__divmod_f32(float a, float b, float *modulus)
{
	float mod = fmodf(a, b), div, floordiv;

	div = (a - mod) / b;
	if (mod != 0) {
		if ((b < 0) != (mod < 0)) {
			mod += b;
			div -= 1.0f;
		}
	} else {
		mod = copysignf(0.0f, b);
	}
	if (div != 0) {
		floordiv = floorf(div);
		if (div - floordiv > 0.5f)
			floordiv += 1.0f;
	} else {
		floordiv = copysignf(0.0f, a / b);
	}
	*modulus = mod;
	return floordiv;
}
static inline float bc_floordiv_f32(float a, float b)
{
	float mod;
	if (b == 0)
		return a / b;
	return bc__divmod_f32(a, b, &mod);
}
static inline float bc_mod_f32(float a, float b)
{
	float mod;
	if (b == 0)
		return fmodf(a, b);
	bc__divmod_f32(a, b, &mod);
	return mod;
}

static inline double bc__divmod_f64(double a, double b, double *modulus)
{
	double mod = fmod(a, b), div, floordiv;

	div = (a - mod) / b;
	if (mod != 0) {
		if ((b < 0) != (mod < 0)) {
			mod += b;
			div -= 1.0;
		}
	} else {
		mod = copysign(0.0, b);
	}
	if (div != 0) {
		floordiv = floor(div);
		if (div - floordiv > 0.5)
			floordiv += 1.0;
	} else {
		floordiv = copysign(0.0, a / b);
	}
	*modulus = mod;
	return floordiv;
}
static inline double bc_floordiv_f64(double a, double b)
{
	double mod;
	if (b == 0)
		return a / b;
	return bc__divmod_f64(a, b, &mod);
}
static inline double bc_mod_f64(double a, double b)
{
	double mod;
	if (b == 0)
		return fmod(a, b);
	bc__divmod_f64(a, b, &mod);
	return mod;
}

/*
 * np.fmod (the sign of a) and np.power for floats: the C library's
 * fmodf / fmod (exact) and powf / pow (NumPy may use its own SIMD pow,
 * which can differ from the C library's in the last bit).
 */
static inline float bc_fmod_f32(float a, float b) { return fmodf(a, b); }
static inline double bc_fmod_f64(double a, double b) { return fmod(a, b); }
static inline float bc_pow_f32(float a, float b) { return powf(a, b); }
static inline double bc_pow_f64(double a, double b) { return pow(a, b); }

/*
 * np.absolute, np.sqrt, np.floor and np.ceil for floats: exact, as the
 * C library's.  np.exp and np.log: the C library's, within a few ULP of
 * NumPy's (which may use its own SIMD versions).
 */
static inline float bc_abs_f32(float a) { return fabsf(a); }
static inline double bc_abs_f64(double a) { return fabs(a); }
static inline float bc_sqrt_f32(float a) { return sqrtf(a); }
static inline double bc_sqrt_f64(double a) { return sqrt(a); }
static inline float bc_floor_f32(float a) { return floorf(a); }
static inline double bc_floor_f64(double a) { return floor(a); }
static inline float bc_ceil_f32(float a) { return ceilf(a); }
static inline double bc_ceil_f64(double a) { return ceil(a); }
static inline float bc_exp_f32(float a) { return expf(a); }
static inline double bc_exp_f64(double a) { return exp(a); }
static inline float bc_log_f32(float a) { return logf(a); }
static inline double bc_log_f64(double a) { return log(a); }

#endif /* BC_MATH_H */
