/*
** fuzz_spec: the spec loader, the Lua sandbox included. The input is a
** spec file, written to a scratch directory and read by spec_read; its
** errors exit, which returns here (fuzz.h), and what the error path left
** allocated is freed. An accepted spec is freed by spec_free, so leak
** detection stays on: whatever an accepted spec leaves is a leak.
*/
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_rt.h"
#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Read the spec in spec.lua into the struct spec ARG. */
static void
read_spec(void *arg)
{
	spec_read("spec.lua", arg);
}

/* Move into a scratch directory and throw the generator's messages away. */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (bc_fuzz_scratch("spec") != 0)
		exit(1);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spec s;
	FILE *f = fopen("spec.lua", "wb");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
		perror("spec.lua");
		abort();
	}
	if (bc_fuzz_call(read_spec, &s) < 0)
		spec_free(&s);
	else
		bc_fuzz_release();
	return 0;
}
