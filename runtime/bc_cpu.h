/*
 * bc_cpu.h: what the x86-64 processor a hosted kernel runs on can run,
 * asked once at run time, for the runtime's forms that the compiler was
 * not told to target: bc_f16.h's F16C lines (BC_F16_DISPATCH) and
 * bc_quant.h's AVX2 lines (BC_Q_X86_DISPATCH). Included by those alone,
 * where they dispatch (GNU C, hosted, x86-64).
 */
#ifndef BC_CPU_H
#define BC_CPU_H

#include <cpuid.h>

#define BC__CPU_AVX2 1u		/* AVX2, and the operating system saves its registers */
#define BC__CPU_F16C 2u		/* F16C as well */

/*
 * The BC__CPU_ bits of this processor: CPUID's, and XCR0's for the AVX
 * registers. Asked once per translation unit; threads that ask at once
 * store the same answer.
 */
static inline unsigned bc__cpu(void)
{
	static unsigned known;	/* the bits, plus 4 once asked */
	unsigned k = __atomic_load_n(&known, __ATOMIC_RELAXED);

	if (k == 0) {
		unsigned a, b, c, d, lo, hi, f16c;

		k = 4;
		if (__get_cpuid(1, &a, &b, &c, &d) && (c & bit_OSXSAVE) && (c & bit_AVX)) {
			f16c = c & bit_F16C;
			__asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
			if ((lo & 6u) == 6u && __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_AVX2))
				k |= BC__CPU_AVX2 | (f16c ? BC__CPU_F16C : 0u);
		}
		__atomic_store_n(&known, k, __ATOMIC_RELAXED);
	}
	return k & 3u;
}

#endif
