/*
 * semihost.h: output and exit through the debugger (ARM semihosting).
 * Under QEMU with -semihosting-config enable=on,target=native the text
 * goes to QEMU's standard output and the exit status becomes QEMU's.
 * On a board with no debugger attached, a semihosting call stops the
 * core: remove them there.
 */
#ifndef SEMIHOST_H
#define SEMIHOST_H

void sh_puts(const char *s);
void sh_exit(int status) __attribute__((noreturn));

#endif
