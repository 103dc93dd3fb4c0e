/*
** target.h: the machines bcastgen generates for, one row each: the
** facts that the planner's decisions read, and nothing else does.
*/
#ifndef TARGET_H
#define TARGET_H

#include <stdint.h>

#include "util.h"

/* A row's f16_convert. */
enum {
	F16_BUILT = 1,
	F16_FOUND = 2
};

/* The float precisions a row's hardware computes in: bits of float_hw. */
enum {
	TARGET_F16 = 1,
	TARGET_F32 = 2,
	TARGET_F64 = 4
};

struct target {
	const char *name;
	int vector_bytes;	/* a vector register's bytes; 0: no vectors */
	unsigned float_hw;	/* TARGET_F16 | TARGET_F32 | TARGET_F64 in hardware */
	int f16_convert;	/* converts between f16 and f32 in hardware: 0 no,
				   F16_BUILT where the compiler targets it, F16_FOUND
				   where the processor has it, asked at run time */
	int nt_stores;		/* has non-temporal (streaming) stores */
	uint64_t cache_bytes;	/* the last-level cache to assume; 0: none */
	int line_bytes;		/* a cache line, what a streaming store writes whole; 0: none */
	int unaligned_cheap;	/* an unaligned vector access costs what an aligned one does */
	int int_bits;		/* the natural integer width */
	int small_code;		/* runs its code from a small memory (flash, TCM):
				   what is written out must pay for its bytes */
	int fetch_bytes;	/* instructions fetched a block at a time, where a loop
				   that straddles a block runs slower; 0: no such block */
	int block_max;		/* elements written out as one block at most: more run
				   slower at -O2 and -O3 (measured on x86-64); the
				   --unroll-limit default too */
	int loop_nodes;		/* a loop's code (its counter, its pointers' steps and
				   its branch) in nodes, an element's operation or load
				   counting 1: on a small-code row, what writing
				   elements out saves (make size measures it) */
	int block_short;	/* write out an innermost loop that fits a block even
				   where its trip count is a multiple of the lanes:
				   such a short loop runs slower than its block
				   (measured at -O2 on an Intel Xeon, 1.1x to 3x) */
	int sched_pressure;	/* its compilers schedule written-out statements
				   without counting registers unless asked (gcc's
				   RISC-V back end before gcc 14): every load and
				   operation moves above the first store, and
				   callee-saved registers are saved to hold them */
	uint64_t parallel_min;	/* --parallel: a kernel of this many elements or more
				   shares its outermost loop among threads (below,
				   starting them costs more than it saves); 0: never,
				   the row has one core */
	const char *quant_lines;	/* the vectors in which the runtime's line helpers
				   compute a quantized kernel's innermost loop, a line
				   at a time (bc_quant.h: "helium", VQRDMULH and
				   VRSHL; "avx2", "avx-512", two VPMULDQ a multiply
				   high), where the compiler targets them
				   ("avx2-run-time": AVX2 where the processor has
				   it, BC_Q_X86_DISPATCH); NULL: none */
	const char *about;	/* what the row is, for --target list */
};

/*
** A processor a kernel is tuned for (--tune), as gcc's -mtune names it:
** facts that differ between processors of one target row, measured on
** each (BENCHMARKS.md). The row says what the code may use; the tuning,
** which of its choices pays.
*/
struct tuning {
	const char *name;
	int stream_pays;	/* one thread's non-temporal stores past the cache
				   beat plain stores: --stream auto streams */
	int ordered_stores;	/* a block's row of stores runs slower unless they go
				   to ascending addresses a vector at a time (gcc's
				   SLP may store its vectors last first): the bytes
				   of the vectors gcc stores there; 0: no need */
	const char *about;	/* what the processor is and what was measured,
				   for --tune list */
};

const struct target *target_find(const char *name);
const struct target *target_row(int i);
const struct target *target_default(void);
void target_names(struct strbuf *sb);
void target_list(struct strbuf *sb);
const struct tuning *tuning_find(const char *name);
const struct tuning *tuning_default(void);
void tuning_names(struct strbuf *sb);
void tuning_list(struct strbuf *sb);

#endif
