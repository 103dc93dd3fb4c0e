/*
 * startup.c: what runs before main on a Cortex-M4F, and the way out.
 *
 * The core reads the initial stack pointer and the reset handler's
 * address from the vector table at address 0. The reset handler turns
 * the FPU on first (off at reset: the first float or vector instruction
 * would fault, and a compiler may use them for anything, even to copy
 * memory), then copies the initialized data to RAM, clears the rest,
 * calls main and ends the program through semihosting, which QEMU turns
 * into its own exit status. Any fault ends it too, as a failure.
 */
#include <stdint.h>

#include "semihost.h"

int main(void);

/* From m4f.ld. */
extern uint32_t _data_start[], _data_end[], _data_load[];
extern uint32_t _bss_start[], _bss_end[];
extern uint32_t _stack_top[];

void reset_handler(void);
void fault_handler(void);

/* CPACR: coprocessor access; CP10 and CP11 are the FPU. */
#define CPACR (*(volatile uint32_t *)0xE000ED88u)

/*
** Copy the initialized data to RAM and clear the rest. Runs once the FPU
** is on: at -O3 gcc makes these loops vector code (Helium's on a
** Cortex-M55), so they may not run before. Not inlined into
** reset_handler, so none of that code can be moved above the FPU's
** enabling.
*/
__attribute__((noinline))
static void init_memory(void)
{
	uint32_t *src = _data_load, *dst = _data_start;

	while (dst < _data_end)
		*dst++ = *src++;
	for (dst = _bss_start; dst < _bss_end; dst++)
		*dst = 0;
}

/*
** Start the program: FPU, data, bss, main, exit with main's status.
** Runs with the stack of the vector table and no initialized memory, so
** it uses neither before it has set them up, and no float or vector
** instruction before the FPU is on (this file is compiled like the rest,
** with hard float): it enables CP10 and CP11 and waits for that to take
** effect (DSB, ISB) before anything else.
*/
void
reset_handler(void)
{
	CPACR |= 0xFu << 20;	/* CP10 and CP11: full access */
	__asm__ volatile ("dsb\n\tisb" ::: "memory");
	init_memory();
	sh_exit(main());
}

/*
** Any other exception: a fault, or an interrupt nobody asked for.
** Says so and ends the program as a failure.
*/
void
fault_handler(void)
{
	sh_puts("fault\n");
	sh_exit(1);
}

/*
 * The vector table: the stack, then the handlers of the core's 15
 * exceptions (reset first). The board's interrupts would follow; this
 * program enables none.
 */
__attribute__((section(".vectors"), used))
static void (*const vectors[16])(void) = {
	(void (*)(void))(uintptr_t)_stack_top,
	reset_handler,
	fault_handler, fault_handler, fault_handler, fault_handler,
	fault_handler, fault_handler, fault_handler, fault_handler,
	fault_handler, fault_handler, fault_handler, fault_handler,
	fault_handler, fault_handler,
};
