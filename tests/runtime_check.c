/*
 * runtime_check.c: computes every helper of runtime/bc.h, bc_math.h and
 * bc_ref.h on inputs that tests/runtime_check.py wrote, and writes the
 * results back for it to compare with NumPy.
 *
 * usage: runtime_check INDIR OUTDIR [--quick] [--every-float]
 *
 * --quick skips the bulk of the work: the f16 operations on in.f16.a and
 * in.f16.b, and the exact binary helpers on in.T.xa and in.T.xb (the
 * other checks call the same helpers on fewer inputs).  --every-float
 * writes out.f32.every too (see check_every_float).
 *
 * Reads from INDIR (raw arrays in native byte order):
 *   in.T.a, in.T.b          for T in i8 .. u64, f32, f64: the operands
 *   in.f2                   doubles for the bc_f64_to_T conversions
 *   in.f2f                  floats for the bc_f32_to_T conversions
 *   in.T.u                  for T in f32, f64: operands of the exact
 *                           unary helpers (abs, sqrt, floor, ceil)
 *   in.T.xa, in.T.xb        for T in f32, f64: operands of the exact
 *                           binary helpers (fmod, floordiv, mod)
 *   in.wrap                 uint64s for bc_wrap_T
 *   in.ref                  text: walker cases (see check_ref)
 *   in.f16.u                f16 bit patterns (uint16): every one
 *   in.f32.h, in.f64.h      floats, doubles to convert to f16
 *   in.f16.a, in.f16.b      f16 bit patterns: operands of the f16 ops
 *   in.T.h                  for T in i8 .. u64: integers to convert to f16
 * Writes to OUTDIR out.T.OP (results of bc_OP_T on the pairs), out.T.u.OP
 * and out.T.x.OP (the exact helpers), out.f2.T, out.f2f.T, out.wrap.T,
 * out.ref, and for f16:
 *   out.f16.f32, out.f16.back   every f16 to float and back, a line at a
 *                               time (bc_f16_to_f32_n, bc_f32_to_f16_n)
 *   out.f16.f32s, out.f16.backs the same one at a time (bc_f16_to_f32,
 *                               bc_f32_to_f16)
 *   out.f32.h, out.f32.hs       in.f32.h to f16, a line at a time, one at
 *                               a time
 *   out.f32.round, out.f64.h    in.f32.h through bc_round_f16, in.f64.h
 *                               through bc_f64_to_f16
 *   out.f16.hw                  text: the line helpers' form: 1 F16C
 *                               instructions built in (BC_F16_HW); 2
 *                               F16C asked for at run time and found
 *                               (BC_F16_DISPATCH); 4 the same, not found
 *                               (or BC__F16_NO_CPU_F16C), so the SSE2
 *                               form; 3 the SSE2 form alone
 *                               (BC_F16_SSE2, from BC_F16_NO_F16C); 0
 *                               the portable conversions in a loop
 *   out.f16.modes               text: how many f16s convert to another
 *                               float, a line at a time or one at a
 *                               time, under each rounding mode of
 *                               <fenv.h> but to nearest (exact: none)
 *   out.f32.every               with --every-float (check_every_float)
 * and the files that check_f16_ops names.
 *
 * Built with -DBC_PORTABLE_MATH too, so that bc.h's portable code is
 * checked on the host as well as the instructions it uses there, with
 * -DBC_F16_INTEGER, so that both forms of the f16 conversions are, where
 * the CPU has them with -mf16c -mavx2, so that the line helpers' F16C
 * form is, and on x86-64 with -DBC_F16_NO_F16C and with
 * -DBC__F16_NO_CPU_F16C, so that their SSE2 form is, alone and as the
 * run-time check's fallback.
 */
#include <fenv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bc.h"
#include "bc_math.h"
#include "bc_ref.h"
#include "bc_f16.h"

static const char *dir, *outdir;

static void die(const char *what, const char *name)
{
	fprintf(stderr, "runtime_check: %s %s\n", what, name);
	exit(2);
}

/* Read INDIR/name whole; *len gets its size in bytes. */
static void *slurp(const char *name, size_t *len)
{
	char path[4096];
	FILE *f;
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (!f)
		die("cannot open", path);
	for (;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 65536;
			buf = (char *)realloc(buf, cap);
			if (!buf)
				die("out of memory reading", path);
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	fclose(f);
	*len = n;
	return buf;
}

static void spit(const char *name, const void *data, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", outdir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0)
		die("cannot write", path);
}

/* Apply bc_OP_S to n pairs (or to a alone) and write out.S.OP
 * (BIN_TO and UN_TO: out.S.SET.OP). */
#define BIN_TO(S, T, OP, SET)                                         \
	do {                                                          \
		for (i = 0; i < n; i++)                               \
			o[i] = bc_##OP##_##S(a[i], b[i]);             \
		spit("out." #S SET "." #OP, o, n * sizeof(T));        \
	} while (0)
#define UN_TO(S, T, OP, SET)                                          \
	do {                                                          \
		for (i = 0; i < n; i++)                               \
			o[i] = bc_##OP##_##S(a[i]);                   \
		spit("out." #S SET "." #OP, o, n * sizeof(T));        \
	} while (0)
#define BIN(S, T, OP) BIN_TO(S, T, OP, "")
#define UN(S, T, OP) UN_TO(S, T, OP, "")

#define CHECK_INT(S, T)                                               \
static void check_##S(void)                                           \
{                                                                     \
	size_t la, lb, n, i;                                          \
	T *a = (T *)slurp("in." #S ".a", &la);                        \
	T *b = (T *)slurp("in." #S ".b", &lb);                        \
	T *o;                                                         \
	if (la != lb)                                                 \
		die("operand sizes differ for", #S);                  \
	n = la / sizeof(T);                                           \
	o = (T *)malloc(la + 1);                                      \
	if (!o)                                                       \
		die("out of memory for", #S);                         \
	BIN(S, T, add); BIN(S, T, sub); BIN(S, T, mul);               \
	UN(S, T, neg); UN(S, T, abs);                                 \
	BIN(S, T, div); BIN(S, T, floordiv);                          \
	BIN(S, T, mod); BIN(S, T, fmod); BIN(S, T, pow);              \
	BIN(S, T, shl); BIN(S, T, shr);                               \
	BIN(S, T, max); BIN(S, T, min); UN(S, T, not);                \
	BIN(S, T, fmax); BIN(S, T, fmin);                             \
	free(a); free(b); free(o);                                    \
}

CHECK_INT(i8, int8_t)
CHECK_INT(i16, int16_t)
CHECK_INT(i32, int32_t)
CHECK_INT(i64, int64_t)
CHECK_INT(u8, uint8_t)
CHECK_INT(u16, uint16_t)
CHECK_INT(u32, uint32_t)
CHECK_INT(u64, uint64_t)

#define CHECK_FLOAT(S, T)                                             \
static void check_##S(void)                                           \
{                                                                     \
	size_t la, lb, n, i;                                          \
	T *a = (T *)slurp("in." #S ".a", &la);                        \
	T *b = (T *)slurp("in." #S ".b", &lb);                        \
	T *o;                                                         \
	if (la != lb)                                                 \
		die("operand sizes differ for", #S);                  \
	n = la / sizeof(T);                                           \
	o = (T *)malloc(la + 1);                                      \
	if (!o)                                                       \
		die("out of memory for", #S);                         \
	BIN(S, T, max); BIN(S, T, min);                               \
	BIN(S, T, floordiv); BIN(S, T, mod);                          \
	BIN(S, T, fmod); BIN(S, T, pow);                              \
	BIN(S, T, fmax); BIN(S, T, fmin);                             \
	BIN(S, T, copysign); BIN(S, T, heaviside);                    \
	BIN(S, T, hypot); BIN(S, T, atan2); BIN(S, T, logaddexp);     \
	UN(S, T, abs); UN(S, T, sqrt); UN(S, T, floor);               \
	UN(S, T, ceil); UN(S, T, exp); UN(S, T, log);                 \
	free(a); free(b); free(o);                                    \
}

CHECK_FLOAT(f32, float)
CHECK_FLOAT(f64, double)

/* bc.h's exact helpers on their own, larger, inputs: out.S.u.OP for the
 * unary ones on in.S.u, out.S.x.OP for the binary ones on in.S.xa/xb
 * (unless PAIRS is 0). */
#define CHECK_EXACT(S, T)                                             \
static void check_exact_##S(int pairs)                                \
{                                                                     \
	size_t la, lb, n, i;                                          \
	T *a = (T *)slurp("in." #S ".u", &la);                        \
	T *b, *o;                                                     \
	n = la / sizeof(T);                                           \
	o = (T *)malloc(la + 1);                                      \
	if (!o)                                                       \
		die("out of memory for", #S);                         \
	UN_TO(S, T, abs, ".u"); UN_TO(S, T, sqrt, ".u");              \
	UN_TO(S, T, floor, ".u"); UN_TO(S, T, ceil, ".u");            \
	free(a); free(o);                                             \
	if (!pairs)                                                   \
		return;                                               \
	a = (T *)slurp("in." #S ".xa", &la);                          \
	b = (T *)slurp("in." #S ".xb", &lb);                          \
	if (la != lb)                                                 \
		die("operand sizes differ for", #S ".x");             \
	n = la / sizeof(T);                                           \
	o = (T *)malloc(la + 1);                                      \
	if (!o)                                                       \
		die("out of memory for", #S);                         \
	BIN_TO(S, T, fmod, ".x"); BIN_TO(S, T, floordiv, ".x");       \
	BIN_TO(S, T, mod, ".x");                                      \
	free(a); free(b); free(o);                                    \
}

CHECK_EXACT(f32, float)
CHECK_EXACT(f64, double)

/* bc_f64_to_T, bc_f32_to_T and bc_wrap_T for every integer T. */
#define CONV(PRE, S, T, IN, v)                                        \
	do {                                                          \
		T *o = (T *)malloc(n * sizeof(T) + 1);                \
		if (!o)                                               \
			die("out of memory for", #PRE #S);            \
		for (i = 0; i < n; i++)                               \
			o[i] = bc_##PRE##S(v[i]);                     \
		spit("out." IN "." #S, o, n * sizeof(T));             \
		free(o);                                              \
	} while (0)
#define CONV_ALL(PRE, IN, v)                                          \
	do {                                                          \
		CONV(PRE, i8, int8_t, IN, v);                         \
		CONV(PRE, i16, int16_t, IN, v);                       \
		CONV(PRE, i32, int32_t, IN, v);                       \
		CONV(PRE, i64, int64_t, IN, v);                       \
		CONV(PRE, u8, uint8_t, IN, v);                        \
		CONV(PRE, u16, uint16_t, IN, v);                      \
		CONV(PRE, u32, uint32_t, IN, v);                      \
		CONV(PRE, u64, uint64_t, IN, v);                      \
	} while (0)

static void check_conv(void)
{
	size_t len, n, i;
	double *d = (double *)slurp("in.f2", &len);
	float *f;
	uint64_t *u;

	n = len / sizeof(double);
	CONV_ALL(f64_to_, "f2", d);
	free(d);
	f = (float *)slurp("in.f2f", &len);
	n = len / sizeof(float);
	CONV_ALL(f32_to_, "f2f", f);
	free(f);
	u = (uint64_t *)slurp("in.wrap", &len);
	n = len / sizeof(uint64_t);
	CONV_ALL(wrap_, "wrap", u);
	free(u);
}

/* DST[0..N) = SRC's f16s as floats, a line at a time: the multiple of 8
 * by bc_f16_to_f32_n, the rest by bc_f16_to_f32, as a kernel does. */
static void h_to_f32_line(float *dst, const bc_f16 *src, size_t n)
{
	size_t m = n - n % 8, i;

	bc_f16_to_f32_n(dst, src, m);
	for (i = m; i < n; i++)
		dst[i] = bc_f16_to_f32(src[i]);
}

/* DST[0..N) = SRC's floats as f16s, a line at a time: the multiple of 8
 * by bc_f32_to_f16_n, the rest by bc_f32_to_f16, as a kernel does. */
static void f32_to_h_line(bc_f16 *dst, const float *src, size_t n)
{
	size_t m = n - n % 8, i;

	bc_f32_to_f16_n(dst, src, m);
	for (i = m; i < n; i++)
		dst[i] = bc_f32_to_f16(src[i]);
}

/*
 * Every f16 of H[0..N) converted to float under each rounding mode
 * <fenv.h> has but to nearest, a line at a time and one at a time, and
 * compared with WANT, the floats to nearest (out.f16.f32): the
 * conversion is exact, so no mode may change a bit.  Writes to
 * out.f16.modes how many differ.
 */
static void check_f16_modes(const bc_f16 *h, const float *want, size_t n)
{
	static const int modes[] = {
#ifdef FE_DOWNWARD
		FE_DOWNWARD,
#endif
#ifdef FE_UPWARD
		FE_UPWARD,
#endif
#ifdef FE_TOWARDZERO
		FE_TOWARDZERO,
#endif
		-1
	};
	float *got = (float *)malloc(n * sizeof(float) + 1);
	unsigned long differ = 0;
	char text[32];
	size_t m, i;

	if (!got)
		die("out of memory for", "out.f16.modes");
	for (m = 0; modes[m] != -1; m++) {
		if (fesetround(modes[m]) != 0)
			continue;
		h_to_f32_line(got, h, n);
		for (i = 0; i < n; i++)
			differ += bc__f32_bits(got[i]) != bc__f32_bits(want[i]);
		for (i = 0; i < n; i++)
			differ += bc__f32_bits(bc_f16_to_f32(h[i])) != bc__f32_bits(want[i]);
		fesetround(FE_TONEAREST);
	}
	snprintf(text, sizeof text, "%lu\n", differ);
	spit("out.f16.modes", text, strlen(text));
	free(got);
}

/*
 * f16 conversions: every f16 to float and back, a line at a time
 * (out.f16.f32, out.f16.back: h_to_f32_line, f32_to_h_line) and one at a
 * time (out.f16.f32s, out.f16.backs: bc_f16_to_f32, bc_f32_to_f16);
 * floats to f16 the same two ways (out.f32.h, out.f32.hs), doubles to
 * f16 (out.f64.h), floats rounded to f16 (out.f32.round), and which form
 * the line helpers have (out.f16.hw).
 */
static void check_f16_conv(void)
{
	char hw[8];
	size_t len, n, i;
	bc_f16 *h = (bc_f16 *)slurp("in.f16.u", &len);
	uint32_t *o32;
	bc_f16 *o16;
	float *of, *f;
	double *d;

#if BC_F16_DISPATCH
	snprintf(hw, sizeof hw, "%d\n", bc__f16c() ? 2 : 4);
#else
	snprintf(hw, sizeof hw, "%d\n", BC_F16_HW ? 1 : BC_F16_SSE2 ? 3 : 0);
#endif
	spit("out.f16.hw", hw, strlen(hw));

	n = len / sizeof(bc_f16);
	o32 = (uint32_t *)malloc(n * sizeof(uint32_t) + 1);
	o16 = (bc_f16 *)malloc(n * sizeof(bc_f16) + 1);
	of = (float *)malloc(n * sizeof(float) + 1);
	if (!o32 || !o16 || !of)
		die("out of memory for", "in.f16.u");
	h_to_f32_line(of, h, n);
	check_f16_modes(h, of, n);
	f32_to_h_line(o16, of, n);
	spit("out.f16.f32", of, n * sizeof(float));
	spit("out.f16.back", o16, n * sizeof(bc_f16));
	for (i = 0; i < n; i++) {
		o32[i] = bc__f32_bits(bc_f16_to_f32(h[i]));
		o16[i] = bc_f32_to_f16(bc__bits_f32(o32[i]));
	}
	spit("out.f16.f32s", o32, n * sizeof(uint32_t));
	spit("out.f16.backs", o16, n * sizeof(bc_f16));
	free(o32);
	free(o16);
	free(of);
	free(h);

	f = (float *)slurp("in.f32.h", &len);
	n = len / sizeof(float);
	o16 = (bc_f16 *)malloc(n * sizeof(bc_f16) + 1);
	of = (float *)malloc(n * sizeof(float) + 1);
	if (!o16 || !of)
		die("out of memory for", "in.f32.h");
	f32_to_h_line(o16, f, n);
	spit("out.f32.h", o16, n * sizeof(bc_f16));
	for (i = 0; i < n; i++) {
		o16[i] = bc_f32_to_f16(f[i]);
		of[i] = bc_round_f16(f[i]);
	}
	spit("out.f32.hs", o16, n * sizeof(bc_f16));
	spit("out.f32.round", of, n * sizeof(float));
	free(o16);
	free(of);
	free(f);

	d = (double *)slurp("in.f64.h", &len);
	n = len / sizeof(double);
	o16 = (bc_f16 *)malloc(n * sizeof(bc_f16) + 1);
	if (!o16)
		die("out of memory for", "in.f64.h");
	for (i = 0; i < n; i++)
		o16[i] = bc_f64_to_f16(d[i]);
	spit("out.f64.h", o16, n * sizeof(bc_f16));
	free(o16);
	free(d);
}

/*
 * bc_f32_to_f16_n of every float, as checksums: for each of the 65536
 * runs of floats whose bits share their top 16, the sum of the f16s and
 * the sum of each f16 times its place in the run plus one, both mod 2^32
 * (out.f32.every, 2 uint32s a run).  A build with another form of the
 * conversions (with branches, SSE2's or F16C's) must write the same
 * bytes; one f16 that differs changes the first sum.  Each run is
 * converted as one line of 65536, from a buffer of floats to one of
 * f16s, as a kernel converts a line: in the SSE2 form the runs without
 * an overflow or a NaN by its first pass alone, the others (0x477f0000
 * up, 0xc77f0000 up) by its fix as well, which must leave their other
 * f16s as they are.
 */
static void check_every_float(void)
{
	static float line[65536];
	static bc_f16 run[65536];
	uint32_t *sums = (uint32_t *)malloc(2 * 65536 * sizeof(uint32_t));
	uint32_t top, i;

	if (!sums)
		die("out of memory for", "out.f32.every");
	for (top = 0; top < 65536; top++) {
		uint32_t sum = 0, weighted = 0;

		for (i = 0; i < 65536; i++)
			line[i] = bc__bits_f32(top << 16 | i);
		bc_f32_to_f16_n(run, line, 65536);
		for (i = 0; i < 65536; i++) {
			sum += run[i];
			weighted += run[i] * (i + 1u);
		}
		sums[2 * top] = sum;
		sums[2 * top + 1] = weighted;
	}
	spit("out.f32.every", sums, 2 * 65536 * sizeof(uint32_t));
	free(sums);
}

/*
 * f16 operations as a kernel does them, in float, rounded once:
 * out.f16.NAME = bc_f32_to_f16(OP(bc_f16_to_f32(a), bc_f16_to_f32(b))),
 * where OP is an infix operator, bc_OP_f32, or (NAME OP_f16, NumPy's
 * float16 max, min, fmax, fmin) bc_OP_f16; comparisons give uint8.  One
 * small function per operation (h_NAME), one loop over a table of them.
 * Also every f16 to each integer type (out.f16.f2.T) and integers to f16
 * (out.T.h).
 */
#define H_OP(NAME, EXPR)                                              \
static bc_f16 h_##NAME(float x, float y)                              \
{                                                                     \
	(void)y;                                                      \
	return bc_f32_to_f16(EXPR);                                   \
}
#define H_CMP(NAME, OPR)                                              \
static uint8_t h_##NAME(float x, float y) { return (uint8_t)(x OPR y); }

H_OP(add, x + y) H_OP(sub, x - y) H_OP(mul, x * y) H_OP(div, x / y)
H_OP(floordiv, bc_floordiv_f32(x, y)) H_OP(mod, bc_mod_f32(x, y))
H_OP(fmod, bc_fmod_f32(x, y)) H_OP(pow, bc_pow_f32(x, y))
H_OP(max, bc_max_f32(x, y)) H_OP(min, bc_min_f32(x, y))
H_OP(fmax, bc_fmax_f32(x, y)) H_OP(fmin, bc_fmin_f32(x, y))
H_OP(max_f16, bc_max_f16(x, y)) H_OP(min_f16, bc_min_f16(x, y))
H_OP(fmax_f16, bc_fmax_f16(x, y)) H_OP(fmin_f16, bc_fmin_f16(x, y))
H_OP(copysign, bc_copysign_f32(x, y))
H_OP(heaviside, bc_heaviside_f32(x, y))
H_OP(hypot, bc_hypot_f32(x, y)) H_OP(atan2, bc_atan2_f32(x, y))
H_OP(logaddexp, bc_logaddexp_f32(x, y))
H_OP(neg, -x) H_OP(abs, bc_abs_f32(x)) H_OP(sqrt, bc_sqrt_f32(x))
H_OP(exp, bc_exp_f32(x)) H_OP(log, bc_log_f32(x))
H_OP(floor, bc_floor_f32(x)) H_OP(ceil, bc_ceil_f32(x))
H_CMP(eq, ==) H_CMP(ne, !=) H_CMP(lt, <) H_CMP(le, <=) H_CMP(gt, >)
H_CMP(ge, >=)

struct h_op {
	const char *name;
	bc_f16 (*op)(float, float);
	uint8_t (*cmp)(float, float);
};

#define H_ROW(NAME) { #NAME, h_##NAME, NULL }
#define H_CMP_ROW(NAME) { #NAME, NULL, h_##NAME }
static const struct h_op h_binary[] = {
	H_ROW(add), H_ROW(sub), H_ROW(mul), H_ROW(div), H_ROW(floordiv),
	H_ROW(mod), H_ROW(fmod), H_ROW(pow), H_ROW(max), H_ROW(min),
	H_ROW(fmax), H_ROW(fmin), H_ROW(max_f16), H_ROW(min_f16),
	H_ROW(fmax_f16), H_ROW(fmin_f16), H_ROW(copysign), H_ROW(heaviside),
	H_ROW(hypot), H_ROW(atan2), H_ROW(logaddexp),
	H_CMP_ROW(eq), H_CMP_ROW(ne), H_CMP_ROW(lt), H_CMP_ROW(le),
	H_CMP_ROW(gt), H_CMP_ROW(ge),
};
static const struct h_op h_unary[] = {
	H_ROW(neg), H_ROW(abs), H_ROW(sqrt), H_ROW(exp), H_ROW(log),
	H_ROW(floor), H_ROW(ceil),
};

/* Apply each op of the table to the n pairs (a, b): out.f16.NAME. */
static void h_apply(const struct h_op *ops, size_t nops, const bc_f16 *a,
	const bc_f16 *b, size_t n)
{
	char name[64];
	size_t k, i;
	bc_f16 *o = (bc_f16 *)malloc(n * sizeof(bc_f16) + 1);
	uint8_t *o8 = (uint8_t *)malloc(n + 1);

	if (!o || !o8)
		die("out of memory for", "f16 ops");
	for (k = 0; k < nops; k++) {
		snprintf(name, sizeof name, "out.f16.%s", ops[k].name);
		if (ops[k].op) {
			for (i = 0; i < n; i++)
				o[i] = ops[k].op(bc_f16_to_f32(a[i]),
					bc_f16_to_f32(b[i]));
			spit(name, o, n * sizeof(bc_f16));
		} else {
			for (i = 0; i < n; i++)
				o8[i] = ops[k].cmp(bc_f16_to_f32(a[i]),
					bc_f16_to_f32(b[i]));
			spit(name, o8, n);
		}
	}
	free(o);
	free(o8);
}

/* bc_f32_to_T of every f16 (through its float). */
#define H_F2(S, T)                                                    \
	do {                                                          \
		T *o = (T *)malloc(n * sizeof(T) + 1);                \
		if (!o)                                               \
			die("out of memory for", "f16 to " #S);       \
		for (i = 0; i < n; i++)                               \
			o[i] = bc_f32_to_##S(bc_f16_to_f32(a[i]));    \
		spit("out.f16.f2." #S, o, n * sizeof(T));             \
		free(o);                                              \
	} while (0)

/* An integer type to f16 the way NumPy does it: (float)x, then round. */
#define H_FROM_INT(S, T)                                              \
	do {                                                          \
		T *v = (T *)slurp("in." #S ".h", &la);                \
		bc_f16 *o;                                            \
		n = la / sizeof(T);                                   \
		o = (bc_f16 *)malloc(n * sizeof(bc_f16) + 1);         \
		if (!o)                                               \
			die("out of memory for", "in." #S ".h");      \
		for (i = 0; i < n; i++)                               \
			o[i] = bc_f32_to_f16((float)v[i]);            \
		spit("out." #S ".h", o, n * sizeof(bc_f16));          \
		free(o);                                              \
		free(v);                                              \
	} while (0)

static void check_f16_ops(int pairs)
{
	size_t la, lb, n, i;
	bc_f16 *a, *b;

	if (pairs) {
		a = (bc_f16 *)slurp("in.f16.a", &la);
		b = (bc_f16 *)slurp("in.f16.b", &lb);
		if (la != lb)
			die("operand sizes differ for", "f16");
		h_apply(h_binary, sizeof h_binary / sizeof h_binary[0], a, b,
			la / sizeof(bc_f16));
		free(a);
		free(b);
	}

	/* unary ops and conversions to integers, on every f16 */
	a = (bc_f16 *)slurp("in.f16.u", &la);
	n = la / sizeof(bc_f16);
	h_apply(h_unary, sizeof h_unary / sizeof h_unary[0], a, a, n);
	H_F2(i8, int8_t); H_F2(i16, int16_t); H_F2(i32, int32_t);
	H_F2(i64, int64_t); H_F2(u8, uint8_t); H_F2(u16, uint16_t);
	H_F2(u32, uint32_t); H_F2(u64, uint64_t);
	free(a);

	H_FROM_INT(i8, int8_t); H_FROM_INT(i16, int16_t);
	H_FROM_INT(i32, int32_t); H_FROM_INT(i64, int64_t);
	H_FROM_INT(u8, uint8_t); H_FROM_INT(u16, uint16_t);
	H_FROM_INT(u32, uint32_t); H_FROM_INT(u64, uint64_t);
}

/*
 * in.ref: lines "rank d0 .. d(rank-1) nops s00 .. s0(rank-1) s10 ..."
 * (strides of operand k for each dim).  out.ref: for each case one line
 * per operand with the offsets bc_ref_walk visits, then "end".
 */
#define REF_MAX 16

struct ref_ctx {
	int nops;
	long *seen[REF_MAX];
	size_t count, cap;
};

static void ref_visit(void *vctx, const ptrdiff_t *off)
{
	struct ref_ctx *c = (struct ref_ctx *)vctx;
	int k;

	if (c->count == c->cap)
		die("too many elements in", "in.ref");
	for (k = 0; k < c->nops; k++)
		c->seen[k][c->count] = (long)off[k];
	c->count++;
}

static void check_ref(void)
{
	char path[4096];
	FILE *in, *out;
	int rank, nops, d, k;
	size_t dims[REF_MAX], idx[REF_MAX], i;
	ptrdiff_t strides[REF_MAX][REF_MAX], off[REF_MAX];
	struct bc_ref_operand ops[REF_MAX];
	struct ref_ctx c;
	long v;

	snprintf(path, sizeof path, "%s/in.ref", dir);
	in = fopen(path, "r");
	snprintf(path, sizeof path, "%s/out.ref", outdir);
	out = fopen(path, "w");
	if (!in || !out)
		die("cannot open", "in.ref / out.ref");
	while (fscanf(in, "%d", &rank) == 1) {
		if (rank < 0 || rank > REF_MAX)
			die("bad rank in", "in.ref");
		c.cap = 1;
		for (d = 0; d < rank; d++) {
			if (fscanf(in, "%ld", &v) != 1 || v < 0)
				die("bad dim in", "in.ref");
			dims[d] = (size_t)v;
			c.cap *= dims[d];
		}
		if (fscanf(in, "%d", &nops) != 1 || nops < 1 || nops > REF_MAX)
			die("bad nops in", "in.ref");
		for (k = 0; k < nops; k++) {
			for (d = 0; d < rank; d++) {
				if (fscanf(in, "%ld", &v) != 1)
					die("bad stride in", "in.ref");
				strides[k][d] = (ptrdiff_t)v;
			}
			ops[k].data = NULL;
			ops[k].strides = strides[k];
			c.seen[k] = (long *)malloc(c.cap * sizeof(long) + 1);
			if (!c.seen[k])
				die("out of memory for", "in.ref");
		}
		c.nops = nops;
		c.count = 0;
		bc_ref_walk(rank, dims, nops, ops, idx, off, ref_visit, &c);
		for (k = 0; k < nops; k++) {
			for (i = 0; i < c.count; i++)
				fprintf(out, "%s%ld", i ? " " : "", c.seen[k][i]);
			fprintf(out, "\n");
			free(c.seen[k]);
		}
		fprintf(out, "end\n");
	}
	fclose(in);
	if (fclose(out) != 0)
		die("cannot write", "out.ref");
}

int main(int argc, char **argv)
{
	int pairs = 1, every = 0;

	for (; argc > 3; argc--) {
		if (strcmp(argv[argc - 1], "--quick") == 0)
			pairs = 0;
		else if (strcmp(argv[argc - 1], "--every-float") == 0)
			every = 1;
		else
			break;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: runtime_check INDIR OUTDIR "
			"[--quick] [--every-float]\n");
		return 2;
	}
	dir = argv[1];
	outdir = argv[2];
	check_i8(); check_i16(); check_i32(); check_i64();
	check_u8(); check_u16(); check_u32(); check_u64();
	check_f32(); check_f64();
	check_exact_f32(pairs); check_exact_f64(pairs);
	check_conv();
	check_ref();
	check_f16_conv();
	check_f16_ops(pairs);
	if (every)
		check_every_float();
	return 0;
}
