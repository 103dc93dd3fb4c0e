/*
** fuzz_pipeline: the whole generator in process, from command-line words
** to the files it writes. The input is the words, one a line; after a NUL
** byte, if any, comes a spec file, written as in.lua. The files under
** tests/fuzz/files are there too. Words naming another directory ('/'
** or "..") are refused, and the run happens in a scratch directory, so
** the generator writes there only. Its exit returns here (fuzz.h); what
** it left allocated is then freed, so this harness runs with leak
** detection on as well. Output and messages go to /dev/null (with
** -close_fd_mask=2 for stderr).
*/
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_rt.h"

#define MAX_WORDS 64
#define MAX_FILES 16

#ifndef BC_FUZZ_FILES
#define BC_FUZZ_FILES "tests/fuzz/files"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);
int bcastgen_main(int argc, char **argv);

/* The files every run finds in its directory, read once. */
static struct {
	char name[256];
	char *text;
	size_t len;
} files[MAX_FILES];
static int nfiles;

/* The words of one run. */
struct call {
	int argc;
	char **argv;
};

/* Run bcastgen on the words of the struct call ARG. */
static void
run(void *arg)
{
	struct call *c = arg;

	bcastgen_main(c->argc, c->argv);
}

/* Write LEN bytes of TEXT to the file NAME of the current directory. */
static void
put(const char *name, const char *text, size_t len)
{
	FILE *f = fopen(name, "wb");

	if (!f || fwrite(text, 1, len, f) != len || fclose(f) != 0) {
		perror(name);
		abort();
	}
}

/* Read the files of $BC_FUZZ_FILES or BC_FUZZ_FILES; move into a scratch directory. */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("BC_FUZZ_FILES");
	DIR *d;
	struct dirent *e;

	(void)argc;
	(void)argv;
	if (!dir)
		dir = BC_FUZZ_FILES;
	if (!(d = opendir(dir))) {
		perror(dir);
		exit(1);
	}
	while ((e = readdir(d)) && nfiles < MAX_FILES) {
		char path[4096];
		FILE *f;
		long n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (!(f = fopen(path, "rb")) || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0) {
			perror(path);
			exit(1);
		}
		rewind(f);
		files[nfiles].text = malloc((size_t)n + 1);
		files[nfiles].len = fread(files[nfiles].text, 1, (size_t)n, f);
		fclose(f);
		snprintf(files[nfiles].name, sizeof files[nfiles].name, "%s", e->d_name);
		nfiles++;
	}
	closedir(d);
	if (!freopen("/dev/null", "w", stdout) || bc_fuzz_scratch("pipeline") != 0)
		exit(1);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *argv[MAX_WORDS + 2], *line, *next;
	const char *nul = memchr(data, 0, size);
	size_t nwords = nul ? (size_t)(nul - (const char *)data) : size;
	struct call c = {1, argv};

	memcpy(text, data, nwords);
	text[nwords] = 0;
	argv[0] = "bcastgen";
	for (line = text; line; line = next) {
		if ((next = strchr(line, '\n')))
			*next++ = 0;
		else if (!*line)
			break;	/* after the last newline */
		if (c.argc > MAX_WORDS || strchr(line, '/') || strcmp(line, "..") == 0) {
			free(text);
			return -1;
		}
		argv[c.argc++] = line;
	}
	argv[c.argc] = NULL;
	bc_fuzz_clean();
	for (int i = 0; i < nfiles; i++)
		put(files[i].name, files[i].text, files[i].len);
	if (nul)
		put("in.lua", nul + 1, size - nwords - 1);
	bc_fuzz_call(run, &c);
	bc_fuzz_release();
	free(text);
	return 0;
}
