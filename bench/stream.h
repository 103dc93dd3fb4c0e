/*
 * stream.h: the memory system's limit for an out-of-cache f32 add,
 * out = x + y, measured as the best of two loops whose stores bypass the
 * cache (non-temporal), written with intrinsics:
 *   - stream_lines: line by line, each 64-byte line of the output
 *     computed and stored whole;
 *   - stream_pages: four 4 KiB pieces of the output in flight, their
 *     lines interleaved.
 * Both take the case as rows (struct stream_rows): the outer dimensions
 * walked by an odometer, the inner one contiguous in the output and of
 * stride 1 or 0 in each input.  A scalar head until the output is
 * aligned to a line, a scalar tail, and an sfence at the end.  With no
 * SSE the loops are plain and STREAM_KIND says so.
 */
#ifndef STREAM_H
#define STREAM_H

#if defined(__AVX512F__)
#include <immintrin.h>
#define STREAM_KIND "AVX-512 _mm512_stream_ps"
#define SV_W 16
typedef __m512 sv_t;
#define SV_LOAD(p) _mm512_loadu_ps(p)
#define SV_SET1(v) _mm512_set1_ps(v)
#define SV_ADD(a, b) _mm512_add_ps(a, b)
#define SV_STREAM(p, v) _mm512_stream_ps(p, v)
#define SV_FENCE() _mm_sfence()
#elif defined(__AVX__)
#include <immintrin.h>
#define STREAM_KIND "AVX _mm256_stream_ps"
#define SV_W 8
typedef __m256 sv_t;
#define SV_LOAD(p) _mm256_loadu_ps(p)
#define SV_SET1(v) _mm256_set1_ps(v)
#define SV_ADD(a, b) _mm256_add_ps(a, b)
#define SV_STREAM(p, v) _mm256_stream_ps(p, v)
#define SV_FENCE() _mm_sfence()
#elif defined(__SSE__)
#include <xmmintrin.h>
#define STREAM_KIND "SSE _mm_stream_ps"
#define SV_W 4
typedef __m128 sv_t;
#define SV_LOAD(p) _mm_loadu_ps(p)
#define SV_SET1(v) _mm_set1_ps(v)
#define SV_ADD(a, b) _mm_add_ps(a, b)
#define SV_STREAM(p, v) _mm_stream_ps(p, v)
#define SV_FENCE() _mm_sfence()
#else
#define STREAM_KIND "no streaming stores on this target (plain loop)"
#define STREAM_PLAIN 1
#endif

#define STREAM_LINE 16        /* floats in a 64-byte line */
#define STREAM_PIECE 1024     /* floats in a 4 KiB piece */

/* The case as rows: out[row][i] = x[row][i * xi] + y[row][i * yi]. */
struct stream_rows {
	int rank;                 /* outer dimensions */
	size_t dims[8];           /* their extents */
	ptrdiff_t xs[8];          /* x's element stride along each */
	ptrdiff_t ys[8];          /* y's */
	ptrdiff_t os[8];          /* the output's */
	size_t n;                 /* the inner extent */
	int xi, yi;               /* inner strides of x and y: 1 or 0 */
};

/* One contiguous piece of output and where its inputs start. */
struct stream_piece {
	float *o;
	const float *x, *y;
	size_t n;
};

/*
 * ** Compute n elements of one piece with plain stores (the head and tail
 * of a piece, and everything on a target without streaming stores).
 */
static inline void stream_plain(float *o, const float *x, const float *y,
	size_t n, int xi, int yi)
{
	size_t i;

	for (i = 0; i < n; i++)
		o[i] = x[i * (size_t)xi] + y[i * (size_t)yi];
}

#ifndef STREAM_PLAIN
/*
 * ** One 64-byte line: o is aligned to 64 bytes; xi and yi are constants
 * where this is inlined, so a stretched input is a broadcast.
 */
static inline __attribute__((always_inline)) void stream_line(float *o,
	const float *x, const float *y, int xi, int yi)
{
	int v;

	for (v = 0; v < STREAM_LINE; v += SV_W) {
		sv_t a = xi ? SV_LOAD(x + v) : SV_SET1(*x);
		sv_t b = yi ? SV_LOAD(y + v) : SV_SET1(*y);
		SV_STREAM(o + v, SV_ADD(a, b));
	}
}
#endif

/*
 * ** Split a piece into its unaligned head (done now, plainly), its
 * whole lines (returned: the count, the piece moved to them) and its
 * tail (in *tail, for the caller to do plainly after the lines).
 */
static inline size_t stream_split(struct stream_piece *p, int xi, int yi,
	size_t *tail)
{
	size_t head = (size_t)((64 - ((uintptr_t)p->o & 63)) & 63) / sizeof(float);
	size_t lines;

	if (head > p->n)
		head = p->n;
	stream_plain(p->o, p->x, p->y, head, xi, yi);
	p->o += head;
	p->x += head * (size_t)xi;
	p->y += head * (size_t)yi;
	p->n -= head;
	lines = p->n / STREAM_LINE;
	*tail = p->n - lines * STREAM_LINE;
	return lines;
}

/*
 * ** Up to four pieces at once, their lines interleaved: line 0 of each,
 * then line 1 of each, and so on; then the tails.
 */
static inline __attribute__((always_inline)) void stream_group(
	struct stream_piece *p, int np, int xi, int yi)
{
	size_t lines[4], tail[4], most = 0, l;
	int k;

	for (k = 0; k < np; k++) {
		lines[k] = stream_split(&p[k], xi, yi, &tail[k]);
		if (lines[k] > most)
			most = lines[k];
	}
	for (l = 0; l < most; l++)
		for (k = 0; k < np; k++) {
			if (l >= lines[k])
				continue;
#ifdef STREAM_PLAIN
			stream_plain(p[k].o + l * STREAM_LINE, p[k].x + l * STREAM_LINE * xi,
				p[k].y + l * STREAM_LINE * yi, STREAM_LINE, xi, yi);
#else
			stream_line(p[k].o + l * STREAM_LINE, p[k].x + l * STREAM_LINE * xi,
				p[k].y + l * STREAM_LINE * yi, xi, yi);
#endif
		}
	for (k = 0; k < np; k++) {
		size_t done = lines[k] * STREAM_LINE;
		stream_plain(p[k].o + done, p[k].x + done * xi, p[k].y + done * yi,
			tail[k], xi, yi);
	}
}

/*
 * ** Walk the rows of r, cutting each into pieces of at most piece
 * floats, and run groups of `group` pieces (1: line by line; 4: four
 * pieces in flight).  xi and yi are passed as constants by the callers.
 */
static inline __attribute__((always_inline)) void stream_walk(
	const struct stream_rows *r, float *out, const float *x, const float *y,
	size_t piece, int group, int xi, int yi)
{
	size_t idx[8] = {0};
	ptrdiff_t xo = 0, yo = 0, oo = 0;
	struct stream_piece g[4];
	int ng = 0, d;

	for (;;) {
		size_t at;
		for (at = 0; at < r->n; at += piece) {
			g[ng].o = out + oo + at;
			g[ng].x = x + xo + at * (size_t)xi;
			g[ng].y = y + yo + at * (size_t)yi;
			g[ng].n = r->n - at < piece ? r->n - at : piece;
			if (++ng == group) {
				stream_group(g, ng, xi, yi);
				ng = 0;
			}
		}
		for (d = r->rank - 1; d >= 0; d--) {
			if (++idx[d] < r->dims[d]) {
				xo += r->xs[d];
				yo += r->ys[d];
				oo += r->os[d];
				break;
			}
			idx[d] = 0;
			xo -= (ptrdiff_t)(r->dims[d] - 1) * r->xs[d];
			yo -= (ptrdiff_t)(r->dims[d] - 1) * r->ys[d];
			oo -= (ptrdiff_t)(r->dims[d] - 1) * r->os[d];
		}
		if (d < 0)
			break;
	}
	if (ng)
		stream_group(g, ng, xi, yi);
#ifndef STREAM_PLAIN
	SV_FENCE();
#endif
}

/* ** Line by line: each row a single piece, one piece at a time. */
static void stream_lines(const struct stream_rows *r, float *out,
	const float *x, const float *y)
{
	if (r->xi && r->yi)
		stream_walk(r, out, x, y, (size_t)-1, 1, 1, 1);
	else if (r->xi)
		stream_walk(r, out, x, y, (size_t)-1, 1, 1, 0);
	else
		stream_walk(r, out, x, y, (size_t)-1, 1, 0, 1);
}

/* ** Four 4 KiB pieces in flight, their lines interleaved. */
static void stream_pages(const struct stream_rows *r, float *out,
	const float *x, const float *y)
{
	if (r->xi && r->yi)
		stream_walk(r, out, x, y, STREAM_PIECE, 4, 1, 1);
	else if (r->xi)
		stream_walk(r, out, x, y, STREAM_PIECE, 4, 1, 0);
	else
		stream_walk(r, out, x, y, STREAM_PIECE, 4, 0, 1);
}

#endif /* STREAM_H */
