/*
** fuzz.h: given with -include to every generator source in the fuzzing
** build. exit becomes a jump back to the harness (fuzz_rt.c), so that
** errors, which the generator reports by exiting, return to it; and the
** allocator keeps a list of live blocks, so that the harness can free
** what an error path leaves behind (the process normally exits there).
*/
#ifndef BC_FUZZ_H
#define BC_FUZZ_H

/* No system header here: the source's own feature macros come first. */
#include <stddef.h>

void bc_fuzz_exit(int status) __attribute__((noreturn));
void *bc_fuzz_malloc(size_t n);
void *bc_fuzz_realloc(void *p, size_t n);
void bc_fuzz_free(void *p);
char *bc_fuzz_realpath(const char *path, char *resolved);

#define exit(status) bc_fuzz_exit(status)
#define malloc(n) bc_fuzz_malloc(n)
#define realloc(p, n) bc_fuzz_realloc(p, n)
#define free(p) bc_fuzz_free(p)
#define realpath(path, resolved) bc_fuzz_realpath(path, resolved)

#endif
