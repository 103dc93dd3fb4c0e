/*
 * arm.c: start-up of a Cortex-M core (M0 on QEMU's microbit, M4F on
 * mps2-an386, M55 with Helium on mps3-an547): the vector table, the
 * reset handler, a fault handler that ends the run, and the semihosting
 * trap.
 *
 * On reset the core loads the stack pointer from word 0 of the vector
 * table and jumps to word 1, so the reset handler runs in C with a stack
 * already set.
 */
#include <stdint.h>
#include "fw.h"

extern uint32_t __stack_top[];         /* from the linker script */

/* Exit statuses that say how the run went wrong. */
#define FW_STATUS_FAULT 70

/*
** The semihosting trap of Thumb code: BKPT 0xAB with the operation in r0
** and its argument in r1; the result comes back in r0.
*/
long fw_semihost(long op, const void *arg)
{
	register long r0 __asm__("r0") = op;
	register const void *r1 __asm__("r1") = arg;

	__asm__ volatile ("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
	return r0;
}

/*
** Any exception but reset: a fault (bad address, undefined instruction,
** FPU instruction with the FPU off) or a stray interrupt. Says so and
** ends the run, so a crash fails the test at once instead of hanging.
*/
static void fw_fault(void)
{
	fw_write0("fw: fault: exception taken\n");
	fw_exit(FW_STATUS_FAULT);
}

/*
** Reset: on a core with an FPU (-mfpu=... or -mcpu=cortex-m55, __ARM_FP
** defined), first grants full access to coprocessors 10 and 11 (CPACR
** bits 20-23), which are the FPU and, on the Cortex-M55, Helium (MVE)
** too, then waits for the write to take effect (DSB, ISB) before any
** floating-point or vector instruction can run. Only then fw_start
** (fw.c) copies .data and clears .bss, loops that gcc makes Helium code
** at -O3. This function has no loop or data of its own to vectorize, and
** fw_start, in another file and never inlined (fw.h), cannot be moved
** above the enabling: the volatile store and the asm with its memory
** clobber come first, whatever the optimization (t600 reads the
** disassembly to check).
*/
void fw_reset(void);

void fw_reset(void)
{
#ifdef __ARM_FP
	*(volatile uint32_t *)0xE000ED88u |= 0xFu << 20;
	__asm__ volatile ("dsb\n\tisb" ::: "memory");
#endif
	fw_start();
}

/* The vector table, placed at address 0 by the linker script: the
 * initial stack pointer, then the 15 system exceptions. */
struct fw_vectors {
	uint32_t *stack;
	void (*handler[15])(void);
};

__attribute__((section(".vectors"), used))
static const struct fw_vectors fw_vectors = {
	__stack_top,
	{
		fw_reset, fw_fault, fw_fault, fw_fault, fw_fault, fw_fault,
		fw_fault, fw_fault, fw_fault, fw_fault, fw_fault, fw_fault,
		fw_fault, fw_fault, fw_fault,
	},
};
