/*
 * fw.c: the target-independent part of the start-up code, and output
 * and exit through semihosting (ARM's semihosting specification, which
 * QEMU implements for Arm and RISC-V alike).
 *
 * Compile it with -fno-tree-loop-distribute-patterns (and -fno-builtin):
 * gcc would otherwise turn the copy and the clearing loops below into
 * calls to memcpy and memset, which a -nostdlib link does not have.
 */
#include <stdint.h>
#include "fw.h"

/* Semihosting operations and the reason code of a normal exit. */
#define FW_SYS_WRITE0 0x04
#define FW_SYS_EXIT_EXTENDED 0x20
#define FW_ADP_STOPPED_APPLICATION_EXIT 0x20026

/* Defined by the linker script: the initial values of .data (in flash,
 * or where the ELF loader put them), .data itself, and .bss. */
extern uint32_t __data_load[], __data_start[], __data_end[];
extern uint32_t __bss_start[], __bss_end[];

int main(void);

/*
** Writes S, up to its NUL, to QEMU's stdout (SYS_WRITE0).
*/
void fw_write0(const char *s)
{
	fw_semihost(FW_SYS_WRITE0, s);
}

/*
** Ends the run with STATUS as QEMU's exit status: SYS_EXIT_EXTENDED
** takes a block of two words, the reason (a normal exit) and the status.
** Assumes QEMU was started with -semihosting-config target=native.
*/
void fw_exit(int status)
{
	static long block[2];

	block[0] = FW_ADP_STOPPED_APPLICATION_EXIT;
	block[1] = status;
	for (;;)
		fw_semihost(FW_SYS_EXIT_EXTENDED, block);
}

/*
** Sets up C's memory (.data from its load address, .bss to zero), runs
** main and exits with its value. Assumes a stack; word-aligned sections
** (the linker scripts align them).
*/
void fw_start(void)
{
	uint32_t *from = __data_load, *to = __data_start;

	if (from != to)
		while (to < __data_end)
			*to++ = *from++;
	for (to = __bss_start; to < __bss_end; to++)
		*to = 0;
	fw_exit(main());
}
