/*
 * bc_stream.h: non-temporal ("streaming") stores for kernels whose data
 * are larger than the last-level cache.
 *
 * A streaming store writes a whole cache line to memory without reading
 * it into the cache first, and without pushing out what the cache
 * holds: past the last-level cache it moves more bytes per second than
 * ordinary stores.  A kernel that streams computes each 64-byte line of
 * its output into a local buffer, as plain C, and hands the buffer to
 * bc_stream_line_T (T its output's dtype); an ordinary loop writes the
 * elements before the first line boundary and after the last;
 * bc_stream_fence orders the streaming stores before whatever the caller
 * does next.  The output must be aligned to its type, as C requires of
 * any pointer to it (the line stores fault otherwise): BC_ASSERT checks
 * it in a debug build.
 *
 * BC_STREAM is 1 where this header has streaming stores, else 0: the
 * kernel then runs its ordinary loop, with the same results bit for bit.
 * BC_LINE_LOOP (bc.h) goes before the loop that computes a line.
 * x86 with SSE2, AVX or AVX-512: their intrinsics, a whole line at a
 * time.  Elsewhere, compilers with __builtin_nontemporal_store (clang):
 * the builtin, an element at a time.  Define BC_NO_STREAM to turn them
 * off, or BC_STREAM_BUILTIN to prefer the builtin on x86 too.
 */
#ifndef BC_STREAM_H
#define BC_STREAM_H

#include <stddef.h>
#include <stdint.h>

/*
 * BC_ASSERT(c) checks, in a debug build, what the caller of a streaming
 * kernel must guarantee and C cannot check: that its output pointer is
 * aligned to its type.  Define it before including this header to check
 * your own way, or to nothing.  By default it is nothing under NDEBUG;
 * else assert(c) from <assert.h> in a hosted build, and in a
 * freestanding one, which may have no <assert.h> and no C library,
 * __builtin_trap() when c is false (gcc, clang) or nothing.
 */
#ifndef BC_ASSERT
#if defined(NDEBUG)
#define BC_ASSERT(c) ((void)0)
#elif __STDC_HOSTED__
#include <assert.h>
#define BC_ASSERT(c) assert(c)
#elif defined(__GNUC__)
#define BC_ASSERT(c) ((c) ? (void)0 : __builtin_trap())
#else
#define BC_ASSERT(c) ((void)0)
#endif
#endif

#if defined(BC_NO_STREAM)
#define BC_STREAM 0
#elif (defined(__AVX512F__) || defined(__AVX__) || defined(__SSE2__)) \
	&& !defined(BC_STREAM_BUILTIN)
#define BC_STREAM 1
#define BC__STREAM_X86 1
#include <immintrin.h>
#elif defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
#define BC_STREAM 1
#endif
#endif
#ifndef BC_STREAM
#define BC_STREAM 0
#endif

#define BC_STREAM_LINE 64	/* bytes a streaming store group writes */

#if BC_STREAM
/*
 * The elements of SIZE bytes before P + that many is on a line boundary,
 * at most N.  P must be aligned to SIZE, as a pointer to an object of
 * that size is in C (BC_ASSERT checks it): then P + head is on a line
 * boundary, as the streaming stores after it need (they fault
 * otherwise).  Any such P will do, however far from a line it is.
 */
static inline size_t bc_stream_head(const void *p, size_t size, size_t n)
{
	size_t off = (size_t)((uintptr_t)p % BC_STREAM_LINE);
	size_t head = off ? (BC_STREAM_LINE - off) / size : 0;

	BC_ASSERT((uintptr_t)p % size == 0
	          && "the output of a kernel must be aligned to its type");
	return head < n ? head : n;
}

#if defined(BC__STREAM_X86)
/* Write the 64 bytes at SRC to DST, on a line boundary, around the cache. */
static inline void bc__stream_line(void *dst, const void *src)
{
#if defined(__AVX512F__)
	_mm512_stream_si512((__m512i *)dst, _mm512_loadu_si512(src));
#elif defined(__AVX__)
	__m256i *d = (__m256i *)dst;
	const __m256i *s = (const __m256i *)src;

	_mm256_stream_si256(d, _mm256_loadu_si256(s));
	_mm256_stream_si256(d + 1, _mm256_loadu_si256(s + 1));
#else
	__m128i *d = (__m128i *)dst;
	const __m128i *s = (const __m128i *)src;

	_mm_stream_si128(d, _mm_loadu_si128(s));
	_mm_stream_si128(d + 1, _mm_loadu_si128(s + 1));
	_mm_stream_si128(d + 2, _mm_loadu_si128(s + 2));
	_mm_stream_si128(d + 3, _mm_loadu_si128(s + 3));
#endif
}
#define BC__STREAM_BODY(T) bc__stream_line(dst, src)

/* Order the streaming stores before the stores and loads that follow. */
static inline void bc_stream_fence(void)
{
	_mm_sfence();
}
#else
#define BC__STREAM_BODY(T)                                                    \
	size_t k;                                                                \
	for (k = 0; k < BC_STREAM_LINE / sizeof(T); k++)                         \
		__builtin_nontemporal_store(src[k], &dst[k])

static inline void bc_stream_fence(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}
#endif

/* bc_stream_line_S(dst, src): the line of elements of type T at SRC, to DST. */
#define BC__STREAM_LINE(S, T)                                                 \
static inline void bc_stream_line_##S(T *dst, const T *src)                  \
{                                                                             \
	BC__STREAM_BODY(T);                                                      \
}
BC__STREAM_LINE(i8, int8_t)
BC__STREAM_LINE(i16, int16_t)
BC__STREAM_LINE(i32, int32_t)
BC__STREAM_LINE(i64, int64_t)
BC__STREAM_LINE(u8, uint8_t)
BC__STREAM_LINE(u16, uint16_t)
BC__STREAM_LINE(u32, uint32_t)
BC__STREAM_LINE(u64, uint64_t)
BC__STREAM_LINE(f16, uint16_t)
BC__STREAM_LINE(f32, float)
BC__STREAM_LINE(f64, double)
#endif

#endif
