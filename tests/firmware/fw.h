/*
 * fw.h: what the bare-metal harness gives a test program.
 *
 * The program is an ordinary `int main(void)`; the start-up code of its
 * target (arm.c, riscv.S, with fw.c) sets up memory, calls main and ends
 * the run with main's return value as QEMU's exit status. Output goes
 * through semihosting to QEMU's standard output. Nothing here needs libc.
 */
#ifndef FW_H
#define FW_H

/* fw_semihost(op, arg): one semihosting call, the target's trap
 * instruction with OP and ARG in the first two argument registers;
 * returns what the host put in the first (arm.c, riscv.S). */
long fw_semihost(long op, const void *arg);

/* fw_write0(s): writes the NUL-terminated string S to QEMU's stdout. */
void fw_write0(const char *s);

/* fw_exit(status): ends the run; QEMU exits with STATUS (0 to 255). */
void fw_exit(int status) __attribute__((noreturn));

/* fw_start(): copies .data from its load address, zeroes .bss, runs
 * main and exits with its value. The target's reset code calls it once
 * the stack (and the FPU, where there is one) is ready; never inlined
 * into it, so that none of its code (vector code at -O3 on a core with
 * Helium) can run before the FPU is on. */
void fw_start(void) __attribute__((noreturn, noinline));

#endif
