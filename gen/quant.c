/*
** quant.c: the constants of a quantized kernel, computed as TensorFlow
** Lite Micro's Prepare computes them on the device (add_common.cc,
** sub_common.cc, mul_common.cc, quantization_util.cc, kernel_util.cc),
** and its refusals as errors at build time.
*/
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "quant.h"

const char *const quant_rounding_names[] = {"double", "single", NULL};
const char *const quant_activation_names[] = {"none", "relu", "relu6", "relu_n1_to_1", NULL};

/*
** Parse TEXT, "NAME=SCALE,ZERO_POINT", into Q: the scale a decimal
** number (digits, a point, an exponent; no sign, hex, inf or nan),
** rounded to the nearest float32, which must be positive and finite;
** the zero point an integer, its range checked once the dtype is known.
*/
int
quant_parse(const char *text, struct quant_given *q, struct strbuf *err)
{
	const char *eq = strchr(text, '='), *comma, *s;
	char *end;
	size_t n;

	if (!eq || eq == text || !(comma = strchr(eq, ','))) {
		sb_printf(err, "bad --quant '%s': expected NAME=SCALE,ZERO_POINT, such as "
		          "x=0.0472,-3", text);
		return -1;
	}
	n = (size_t)(eq - text);
	if (n > QUANT_NAME_MAX) {
		sb_printf(err, "bad --quant '%s': the name is longer than %d bytes", text,
		          QUANT_NAME_MAX);
		return -1;
	}
	memcpy(q->name, text, n);
	q->name[n] = '\0';
	s = eq + 1;
	if (s == comma || strspn(s, "0123456789.eE+-") != (size_t)(comma - s)
	    || !((*s >= '0' && *s <= '9') || *s == '.')) {
		sb_printf(err, "bad scale '%.*s' of '%s': expected a positive decimal number, "
		          "such as 0.0472 or 4.72e-2", (int)(comma - s), s, q->name);
		return -1;
	}
	errno = 0;
	q->scale = strtof(s, &end);
	if (end != comma) {
		sb_printf(err, "bad scale '%.*s' of '%s': expected a positive decimal number, "
		          "such as 0.0472 or 4.72e-2", (int)(comma - s), s, q->name);
		return -1;
	}
	if (!(q->scale > 0) || isinf(q->scale)) {
		sb_printf(err, "scale '%.*s' of '%s' is not a positive, finite float32 "
		          "(from %g to %g)", (int)(comma - s), s, q->name, 1.4e-45, 3.4028235e38);
		return -1;
	}
	s = comma + 1;
	errno = 0;
	q->zero = strtol(s, &end, 10);
	if (!((*s >= '0' && *s <= '9') || (*s == '-' && s[1] >= '0' && s[1] <= '9'))
	    || *end != '\0' || errno == ERANGE) {
		sb_printf(err, "bad zero point '%s' of '%s': expected an integer", s, q->name);
		return -1;
	}
	return 0;
}

/* Append Q as the banner's command shows it: " --quant x=0.0472000021,-3". */
void
quant_show(struct strbuf *sb, const struct quant_given *q)
{
	sb_printf(sb, " --quant %s=%.9g,%ld", q->name, (double)q->scale, q->zero);
}

/*
** QuantizeMultiplier: REAL (> 0, finite) as M * 2^(shift - 31), M in
** [2^30, 2^31): frexp, the fraction times 2^31 rounded with halves away
** from zero, 2^31 halved with the shift one more; a shift below -31 is
** 0. Under single rounding a shift above 30 saturates to 2^31 - 1, 30.
*/
static struct quant_mult
quantize_multiplier(double real, enum quant_rounding rounding)
{
	struct quant_mult m = {real, 0, 0};
	double f = frexp(real, &m.shift);
	long long q = llround(f * 2147483648.0);	/* exact: a power of 2 */

	if (q == 2147483648LL) {
		q /= 2;
		m.shift++;
	}
	if (m.shift < -31)
		return (struct quant_mult){real, 0, 0};
	if (rounding == QUANT_SINGLE && m.shift > 30)
		return (struct quant_mult){real, INT32_MAX, 30};
	m.mult = (int32_t)q;
	return m;
}

/*
** QuantizeMultiplierSmallerThanOneExp, for add and subtract: *M from
** REAL, which must be in (0, 1) and not round to 1; else an error
** naming WHAT, as TFLM aborts.
*/
static int
smaller_than_one(struct quant_mult *m, double real, enum quant_rounding rounding,
                 const char *what, struct strbuf *err)
{
	if (real > 0 && real < 1)
		*m = quantize_multiplier(real, rounding);
	if (!(real > 0 && real < 1) || m->shift > 0) {
		sb_printf(err, "the multiplier of '%s', %.17g, is not between 0 and 1: TFLite "
		          "Micro refuses these scales (QuantizeMultiplierSmallerThanOneExp)",
		          what, real);
		return -1;
	}
	return 0;
}

/*
** One bound of the activation's range, as TFLM's Quantize: ZERO plus
** VALUE / SCALE, divided in float32 and rounded with halves away from
** zero; into *OUT, or an error when it leaves int32.
*/
static int
bound(int32_t *out, float value, float scale, int32_t zero, struct strbuf *err)
{
	volatile float t = value / scale;	/* rounded to float32, also on x87 */
	float r = roundf(t);

	if (!(r >= -2147483648.0f && r < 2147483648.0f)
	    || (double)zero + r < INT32_MIN || (double)zero + r > INT32_MAX) {
		sb_printf(err, "the activation's bound %g / %.9g does not fit int32", (double)value,
		          (double)scale);
		return -1;
	}
	*out = zero + (int32_t)r;
	return 0;
}

/* The activation's range into Q's lo and hi: CalculateActivationRangeQuantized. */
static int
activation_range(struct quant *q, struct strbuf *err)
{
	static const float lows[] = {0, 0, 0, -1}, highs[] = {0, 0, 6, 1};
	int32_t qmin = -((int32_t)1 << (q->bits - 1)), qmax = ((int32_t)1 << (q->bits - 1)) - 1;
	int32_t lo, hi;

	q->lo = qmin;
	q->hi = qmax;
	if (q->activation != ACT_NONE) {
		if (bound(&lo, lows[q->activation], q->scale[2], q->zero[2], err) != 0)
			return -1;
		q->lo = lo > qmin ? lo : qmin;
	}
	if (q->activation == ACT_RELU6 || q->activation == ACT_RELU_N1_TO_1) {
		if (bound(&hi, highs[q->activation], q->scale[2], q->zero[2], err) != 0)
			return -1;
		q->hi = hi < qmax ? hi : qmax;
	}
	return 0;
}

/*
** Compute Q's multipliers, shifts and range from its op, bits, rounding,
** activation, scales and zero points (already checked against the
** dtype). Add: each input to twice the larger scale, in double; the sum
** to the output's scale (CalculateOpDataAdd). Subtract: the same in
** float32, as TFLM computes it (CalculateOpDataSub). Multiply: the
** product of the inputs' scales over the output's, in double. Return 0,
** or -1 with an error where TFLM would refuse.
*/
int
quant_prepare(struct quant *q, struct strbuf *err)
{
	double real[3];

	if (q->op == OP_ID_MULTIPLY) {
		q->left_shift = 0;
		q->out = quantize_multiplier((double)q->scale[0] * q->scale[1] / q->scale[2],
		                             q->rounding);
		if (q->out.shift > 30) {
			sb_printf(err, "the output multiplier %.17g needs a left shift of %d, past "
			          "30: TFLite Micro's 1 << shift is undefined there under double "
			          "rounding (--rounding single saturates it)", q->out.real,
			          q->out.shift);
			return -1;
		}
		return activation_range(q, err);
	}
	q->left_shift = q->bits == 8 ? 20 : 15;
	if (q->op == OP_ID_ADD) {
		double twice = 2 * (double)(q->scale[0] > q->scale[1] ? q->scale[0] : q->scale[1]);

		real[0] = q->scale[0] / twice;
		real[1] = q->scale[1] / twice;
		real[2] = twice / ((double)(1 << q->left_shift) * q->scale[2]);
	} else {
		volatile float twice = 2.0f * (q->scale[0] > q->scale[1] ? q->scale[0] : q->scale[1]);
		volatile float r0 = q->scale[0] / twice, r1 = q->scale[1] / twice;
		volatile float under = (float)(1 << q->left_shift) * q->scale[2];
		volatile float r2 = twice / under;

		real[0] = r0;
		real[1] = r1;
		real[2] = r2;
	}
	for (int k = 0; k < 3; k++)
		if (smaller_than_one(k < 2 ? &q->in[k] : &q->out, real[k], q->rounding, q->name[k],
		                     err) != 0)
			return -1;
	return activation_range(q, err);
}
