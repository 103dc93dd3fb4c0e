/*
 * start.c: the bare-metal start of make size's programs (bench/size.py),
 * for the Cortex-M cores (mps2-an386, microbit, mps3-an547) and RV32
 * (virt) under QEMU: a stack, the FPU (and on the Cortex-M55 Helium) on
 * where there is one, main, and its status given back to QEMU through
 * semihosting.  The programs' data need no copying: size.py's linker
 * script puts .data where it is loaded, and QEMU loads it (and zeroes
 * .bss, which it loads as zeros too).
 */
#include <stdint.h>

int main(void);
void size_exit(int status) __attribute__((noreturn));
void size_puts(const char *s);

/* Outside the stretch of code whose instructions are counted. */
#define DRIVER __attribute__((section(".text.size_driver")))

#define SYS_WRITE0 0x04
#define SYS_EXIT 0x18
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u	/* status 0 */
#define ADP_STOPPED_RUNTIME_ERROR 0x20023u	/* status 1 */

/*
** The semihosting call op with argument arg (ARM: bkpt 0xab; RISC-V: the
** ebreak between two marker instructions, uncompressed).
*/
DRIVER static void
sh_call(uintptr_t op, uintptr_t arg)
{
#if defined(__arm__)
	register uintptr_t r0 __asm__("r0") = op;
	register uintptr_t r1 __asm__("r1") = arg;

	__asm__ volatile ("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
#elif defined(__riscv)
	register uintptr_t a0 __asm__("a0") = op;
	register uintptr_t a1 __asm__("a1") = arg;

	__asm__ volatile (
		".option push\n\t.option norvc\n\t.balign 16\n\t"
		"slli zero, zero, 0x1f\n\tebreak\n\tsrai zero, zero, 7\n\t"
		".option pop"
		: "+r"(a0) : "r"(a1) : "memory");
#else
#error "bench/size/start.c: an ARM or RISC-V target only"
#endif
}

/*
** Write the string s, ending in 0, to QEMU's output.
*/
DRIVER void
size_puts(const char *s)
{
	sh_call(SYS_WRITE0, (uintptr_t)s);
}

/*
** End the program: QEMU exits with 0 when status is 0, else with 1.
*/
DRIVER void
size_exit(int status)
{
	sh_call(SYS_EXIT, status == 0 ? ADP_STOPPED_APPLICATION_EXIT
		: ADP_STOPPED_RUNTIME_ERROR);
	for (;;)
		;
}

#if defined(__arm__)
extern uint32_t _stack_top[];
void size_reset(void);
void size_fault(void);

/*
** Reset: the FPU on where the build uses it (CPACR, CP10 and CP11: full
** access, which on Armv8.1-M also opens Helium's vector instructions),
** before anything else, then main.  Nothing here uses floats or
** vectors; main is in another file, so none of its code (gcc -O3 makes
** vector code of its loops on the Cortex-M55) can come before.
*/
DRIVER void
size_reset(void)
{
#if defined(__ARM_FP)
	*(volatile uint32_t *)0xE000ED88u |= 0xFu << 20;
	__asm__ volatile ("dsb\n\tisb" ::: "memory");
#endif
	size_exit(main());
}

/*
** Any other exception is a failure.
*/
DRIVER void
size_fault(void)
{
	size_exit(1);
}

__attribute__((section(".vectors"), used))
static void (*const size_vectors[16])(void) = {
	(void (*)(void))(uintptr_t)_stack_top, size_reset,
	size_fault, size_fault, size_fault, size_fault, size_fault,
	size_fault, size_fault, size_fault, size_fault, size_fault,
	size_fault, size_fault, size_fault, size_fault,
};
#else
/*
 * _start, first in the image: the stack, mstatus.FS on where the build
 * has the F extension (else the first float instruction traps), main.
 */
__asm__(
	".section .text.start, \"ax\"\n"
	".globl _start\n"
	"_start:\n"
	"	la sp, _stack_top\n"
#if defined(__riscv_flen)
	"	li t0, 0x2000\n"		/* mstatus.FS = initial */
	"	csrs mstatus, t0\n"
#endif
	"	call main\n"
	"	call size_exit\n");
#endif
