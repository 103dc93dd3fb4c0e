/*
** fuzz_rt.c: the harnesses' side of fuzz.h: exit as a jump back to the
** harness, and an allocator that lists its live blocks so that what an
** error path leaves behind can be freed. The list's links are stored
** complemented, so that LeakSanitizer, which looks for pointers, does not
** see the list reach a block: a block the generator forgot is a leak.
** Compiled without fuzz.h.
*/
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sanitizer/asan_interface.h>

#include "fuzz_rt.h"

/* A block's header, before what the caller gets; 32 bytes keep the alignment. */
struct block {
	uintptr_t prev, next;	/* complemented */
	size_t size;
	size_t magic;
};

#define MAGIC ((size_t)0xb1cca57b1cca57ULL)
#define LINK(b) (~(uintptr_t)(b))
#define UNLINK(u) ((struct block *)~(u))

static struct block head;	/* of a circular list; its links set at the first use */
static size_t live;
static jmp_buf *jump;
static int jump_status;

void bc_fuzz_exit(int status) __attribute__((noreturn));
void *bc_fuzz_malloc(size_t n);
void *bc_fuzz_realloc(void *p, size_t n);
void bc_fuzz_free(void *p);

/* Let the header of B be read and written (ASan poisons it between calls). */
static void
open_header(struct block *b)
{
	if (!head.next) {
		head.prev = head.next = LINK(&head);
		head.magic = MAGIC;
	}
	if (b != &head)
		ASAN_UNPOISON_MEMORY_REGION(b, sizeof *b);
}

/* Poison the header of B again, so that a write before a block is caught. */
static void
close_header(struct block *b)
{
	if (b != &head)
		ASAN_POISON_MEMORY_REGION(b, sizeof *b);
}

/* exit for the generator: jump back to bc_fuzz_call, or exit outside it. */
void
bc_fuzz_exit(int status)
{
	fflush(stdout);
	if (!jump)
		exit(status);
	jump_status = status;
	longjmp(*jump, 1);
}

/* malloc for the generator: a block on the list. */
void *
bc_fuzz_malloc(size_t n)
{
	struct block *b = malloc(sizeof *b + n), *next;

	if (!b)
		return NULL;
	open_header(&head);
	next = UNLINK(head.next);
	open_header(next);
	b->prev = LINK(&head);
	b->next = LINK(next);
	b->size = n;
	b->magic = MAGIC;
	next->prev = LINK(b);
	head.next = LINK(b);
	close_header(next);
	close_header(b);
	live++;
	return b + 1;
}

/* realpath for the generator: its result in a block of the list. */
char *
bc_fuzz_realpath(const char *path, char *resolved)
{
	char *libc = realpath(path, resolved), *p;

	if (!libc || resolved)
		return libc;
	if ((p = bc_fuzz_malloc(strlen(libc) + 1)))
		strcpy(p, libc);
	free(libc);
	return p;
}

/* free for the generator: take P's block off the list. */
void
bc_fuzz_free(void *p)
{
	struct block *b, *prev, *next;

	if (!p)
		return;
	b = (struct block *)p - 1;
	open_header(b);
	if (b->magic != MAGIC) {
		fprintf(stderr, "bc_fuzz_free: %p is not a block of the generator's\n", p);
		abort();
	}
	prev = UNLINK(b->prev);
	next = UNLINK(b->next);
	open_header(prev);
	open_header(next);
	prev->next = LINK(next);
	next->prev = LINK(prev);
	close_header(prev);
	close_header(next);
	b->magic = 0;
	live--;
	free(b);
}

/* realloc for the generator: always a new block, so a stale pointer is caught. */
void *
bc_fuzz_realloc(void *p, size_t n)
{
	struct block *b;
	size_t size;
	void *q;

	if (!p)
		return bc_fuzz_malloc(n);
	b = (struct block *)p - 1;
	open_header(b);
	size = b->size;
	close_header(b);
	if (!(q = bc_fuzz_malloc(n)))
		return NULL;
	memcpy(q, p, size < n ? size : n);
	bc_fuzz_free(p);
	return q;
}

/*
** Call FN(ARG), catching the generator's exit: return -1 if FN returned,
** else the status it exited with.
*/
int
bc_fuzz_call(void (*fn)(void *), void *arg)
{
	jmp_buf here;

	jump = &here;
	if (setjmp(here)) {
		jump = NULL;
		return jump_status;
	}
	fn(arg);
	jump = NULL;
	return -1;
}

/* Free every block the generator still holds. */
void
bc_fuzz_release(void)
{
	for (;;) {
		struct block *b;

		open_header(&head);
		b = UNLINK(head.next);
		if (b == &head)
			return;
		bc_fuzz_free(b + 1);
	}
}

/* The number of blocks the generator holds. */
size_t
bc_fuzz_live(void)
{
	return live;
}

static char scratch[4096];	/* bc_fuzz_scratch's directory */

/* Remove the files of the scratch directory, and the directory itself. */
static void
remove_scratch(void)
{
	DIR *dir;
	struct dirent *e;

	if (!scratch[0] || chdir(scratch) != 0)
		return;
	if ((dir = opendir("."))) {
		while ((e = readdir(dir)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlink(e->d_name);
		closedir(dir);
	}
	if (chdir("/") == 0)
		rmdir(scratch);
}

/*
** Move into a fresh scratch directory under $TMPDIR named after TAG,
** removed at exit; return 0, or -1 with a message.
*/
int
bc_fuzz_scratch(const char *tag)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(scratch, sizeof scratch, "%s/bcastgen-fuzz-%s.XXXXXX",
	         tmp && *tmp ? tmp : "/tmp", tag);
	if (!mkdtemp(scratch) || chdir(scratch) != 0) {
		perror(scratch);
		return -1;
	}
	atexit(remove_scratch);
	return 0;
}

/* Remove every file of the current directory (the scratch directory). */
void
bc_fuzz_clean(void)
{
	DIR *dir = opendir(".");
	struct dirent *e;

	if (!dir)
		return;
	while ((e = readdir(dir)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlink(e->d_name);
	closedir(dir);
}
