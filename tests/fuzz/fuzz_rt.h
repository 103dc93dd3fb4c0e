/*
** fuzz_rt.h: what the harnesses use of fuzz_rt.c: calling into the
** generator, which may exit, and freeing what it left behind.
*/
#ifndef BC_FUZZ_RT_H
#define BC_FUZZ_RT_H

#include <stddef.h>

int bc_fuzz_call(void (*fn)(void *), void *arg);
void bc_fuzz_release(void);
size_t bc_fuzz_live(void);
int bc_fuzz_scratch(const char *tag);
void bc_fuzz_clean(void);

#endif
