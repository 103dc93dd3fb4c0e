/*
 * riscv.S: start-up of an RV32 core on QEMU's virt machine, run with
 * -bios none: QEMU jumps to _start, at the start of RAM, in machine mode.
 * Sets the global and stack pointers, a trap handler that ends the run,
 * turns the FPU on where there is one (mstatus.FS, which is Off at reset:
 * any FP instruction would trap), then calls fw_start (fw.c).
 */
	.option arch, +zicsr	/* the CSR instructions, whatever -march says */

	.section .text.start, "ax"
	.globl _start
_start:
	.option push
	.option norelax
	la	gp, __global_pointer$
	.option pop
	la	sp, __stack_top
	la	t0, fw_trap
	csrw	mtvec, t0
#ifdef __riscv_flen
	li	t0, 0x2000		/* mstatus.FS = Initial */
	csrs	mstatus, t0
	csrwi	fcsr, 0			/* round to nearest, no flags */
#endif
	call	fw_start

/*
 * A trap (illegal instruction, bad address, ...): print a line and exit
 * with status 70, so a crash fails at once instead of hanging.
 */
	.text
	.balign 4
fw_trap:
	li	a0, 0x04		/* SYS_WRITE0 */
	la	a1, fw_trap_text
	call	fw_semihost
	li	a0, 70
	call	fw_exit

/*
 * long fw_semihost(long op, const void *arg): the RISC-V semihosting
 * trap, EBREAK between two hint instructions that mark it as such. The
 * three must be uncompressed and on one page, hence norvc and the
 * alignment.
 */
	.balign 16
	.globl fw_semihost
fw_semihost:
	.option push
	.option norvc
	slli	zero, zero, 0x1f
	ebreak
	srai	zero, zero, 7
	.option pop
	ret

	.section .rodata
fw_trap_text:
	.asciz "fw: trap: exception taken\n"
