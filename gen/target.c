/*
** target.c: the machines bcastgen generates for, one row each. A row
** holds facts about the machine, not decisions: the planner (plan.c)
** reads them, as TVM's and Halide's targets are read, and no other
** number about a machine is kept in gen/ or templates/.
**
** generic, the default, keeps the choices bcastgen made before it knew
** targets: the widest x86 vectors (AVX-512's 64 bytes) for the lanes a
** loop's trip count is made a multiple of, streaming stores, and a
** 32 MiB last-level cache.
*/
#include <stdio.h>
#include <string.h>

#include "target.h"

#define MIB(n) ((uint64_t)(n) << 20)
#define KIB(n) ((uint64_t)(n) << 10)
#define F32_64 (TARGET_F32 | TARGET_F64)
#define F_ALL (TARGET_F16 | TARGET_F32 | TARGET_F64)
#define PARALLEL_MIN ((uint64_t)1 << 16)	/* see BENCHMARKS.md, Parallel */

static const struct target targets[] = {
	/* name        vector float  f16cvt nt cache    line unaligned int small fetch block loop short pressure parallel qlines */
	{"generic",    64, F32_64, 0, 1, MIB(32), 64, 1, 64, 0, 32, 64, 6, 0, 0, PARALLEL_MIN,
	 "avx-512", "the default: 64-byte vectors for the lanes, streaming, a 32 MiB cache"},
	{"x86-64",     16, F32_64, F16_FOUND, 1, MIB(32), 64, 1, 64, 0, 32, 64, 6, 1, 0, PARALLEL_MIN,
	 "avx2-run-time", "x86-64 baseline: SSE2; F16C and AVX2 (quantized lines) where the processor has them, asked at run time"},
	{"x86-64-v2",  16, F32_64, F16_FOUND, 1, MIB(32), 64, 1, 64, 0, 32, 64, 6, 1, 0, PARALLEL_MIN,
	 "avx2-run-time", "SSE4.2, POPCNT; F16C and AVX2 as on x86-64"},
	{"x86-64-v3",  32, F32_64, F16_BUILT, 1, MIB(32), 64, 1, 64, 0, 32, 64, 6, 0, 0, PARALLEL_MIN, "avx2", "AVX2, FMA, F16C"},
	{"x86-64-v4",  64, F32_64, F16_BUILT, 1, MIB(32), 64, 1, 64, 0, 32, 64, 6, 0, 0, PARALLEL_MIN, "avx-512", "AVX-512"},
	{"cortex-m0",   0, 0,      0, 0, 0,        0, 0, 32, 1, 0, 64, 3, 0, 0, 0, NULL, "Armv6-M: no FPU, no SIMD"},
	{"cortex-m4f",  0, TARGET_F32, F16_BUILT, 0, 0,    0, 0, 32, 1, 0, 64, 6, 0, 0, 0, NULL, "Armv7E-M with FPv4-SP"},
	{"cortex-m7",   0, F32_64, F16_BUILT, 0, KIB(64), 32, 0, 32, 1, 0, 64, 6, 0, 0, 0, NULL, "Armv7E-M with FPv5-D16, 64 KiB caches"},
	{"cortex-m55", 16, F_ALL,  F16_BUILT, 0, KIB(64), 32, 1, 32, 1, 0, 64, 6, 0, 0, 0, "helium", "Armv8.1-M with Helium (MVE)"},
	{"rv32imac",    0, 0,      0, 0, 0,        0, 0, 32, 1, 0, 64, 5, 0, 1, 0, NULL, "RISC-V without an FPU"},
	{"rv32imafc",   0, TARGET_F32, 0, 0, 0,    0, 0, 32, 1, 0, 64, 5, 0, 1, 0, NULL, "RISC-V with single-precision floats"},
	{NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL, NULL}
};

/*
** The processors --tune names, the first the default; a row only for a
** processor measured (make bench's tables on it, BENCHMARKS.md).
*/
static const struct tuning tunings[] = {
	/* name          stream pays, ordered stores */
	{"generic",     1, 0, "any processor: streaming past the cache pays on most"},
	{"cascadelake", 0, 32, "Intel Xeon, Cascade Lake: one thread's streaming stores past "
	                      "the cache are 1.1x to 1.3x slower than plain ones; a block's "
	                      "vectors stored last first, 2x slower than in order"},
	{"znver4",      1, 0, "AMD EPYC, Zen 4: streaming past the cache 1.2x to 1.6x faster "
	                      "than plain stores"},
	{NULL, 0, 0, NULL}
};

/* Return the row named NAME, or NULL. */
const struct target *
target_find(const char *name)
{
	for (const struct target *t = targets; t->name; t++)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

/* Return row I of the table, from 0, or NULL past its last. */
const struct target *
target_row(int i)
{
	return i >= 0 && i < (int)(sizeof targets / sizeof targets[0]) - 1 ? &targets[i] : NULL;
}

/* Return the row used when no target is named. */
const struct target *
target_default(void)
{
	return &targets[0];
}

/* Append the rows' names: "generic, x86-64, ..., rv32imafc". */
void
target_names(struct strbuf *sb)
{
	for (const struct target *t = targets; t->name; t++)
		sb_printf(sb, t == targets ? "%s" : ", %s", t->name);
}

/* Append the float precisions in FLOAT_HW, "f32 f64", or "-" for none. */
static void
float_names(struct strbuf *sb, unsigned float_hw)
{
	static const struct {
		unsigned bit;
		const char *name;
	} precisions[] = {{TARGET_F16, "f16"}, {TARGET_F32, "f32"}, {TARGET_F64, "f64"}};
	size_t start = sb->len;

	for (size_t i = 0; i < sizeof precisions / sizeof precisions[0]; i++)
		if (float_hw & precisions[i].bit)
			sb_printf(sb, sb->len > start ? " %s" : "%s", precisions[i].name);
	if (sb->len == start)
		sb_add(sb, "-");
}

/* Append the table as text, a row a line, for --target list. */
void
target_list(struct strbuf *sb)
{
	sb_add(sb, "target       vector  floats       f16<->f32  streaming  cache     "
	       "line  unaligned  int  code   fetch  block  loop  short  pressure  parallel  qlines\n");
	for (const struct target *t = targets; t->name; t++) {
		struct strbuf floats = {0};
		char cache[32], parallel[32] = "-";

		if (t->cache_bytes >= MIB(1))
			snprintf(cache, sizeof cache, "%llu MiB", (unsigned long long)(t->cache_bytes >> 20));
		else if (t->cache_bytes)
			snprintf(cache, sizeof cache, "%llu KiB", (unsigned long long)(t->cache_bytes >> 10));
		else
			snprintf(cache, sizeof cache, "-");
		float_names(&floats, t->float_hw);
		if (t->parallel_min)
			snprintf(parallel, sizeof parallel, "%llu", (unsigned long long)t->parallel_min);
		sb_printf(sb, "%-12s %-7d %-12s %-10s %-10s %-9s %-5d %-10s %-4d %-6s %-6d %-6d %-5d %-6s %-9s %-9s %s\n  %s\n",
		          t->name,
		          t->vector_bytes, floats.s,
		          t->f16_convert == F16_FOUND ? "run-time" : t->f16_convert ? "yes" : "no",
		          t->nt_stores ? "yes" : "no", cache, t->line_bytes,
		          t->unaligned_cheap ? "yes" : "no",
		          t->int_bits, t->small_code ? "small" : "-", t->fetch_bytes, t->block_max,
		          t->loop_nodes, t->block_short ? "block" : "-",
		          t->sched_pressure ? "ask" : "-", parallel, t->quant_lines ? t->quant_lines : "-",
		          t->about);
		sb_free(&floats);
	}
}

/* Return the tuning named NAME, or NULL. */
const struct tuning *
tuning_find(const char *name)
{
	for (const struct tuning *t = tunings; t->name; t++)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

/* Return the tuning used when none is named. */
const struct tuning *
tuning_default(void)
{
	return &tunings[0];
}

/* Append the tunings' names: "generic, cascadelake, znver4". */
void
tuning_names(struct strbuf *sb)
{
	for (const struct tuning *t = tunings; t->name; t++)
		sb_printf(sb, t == tunings ? "%s" : ", %s", t->name);
}

/* Append the tunings as text, a row a line, for --tune list. */
void
tuning_list(struct strbuf *sb)
{
	sb_add(sb, "tune         streaming  stores\n");
	for (const struct tuning *t = tunings; t->name; t++)
		sb_printf(sb, "%-12s %-10s %s\n  %s\n", t->name, t->stream_pays ? "pays" : "slower",
		          t->ordered_stores ? "ordered" : "-", t->about);
}
