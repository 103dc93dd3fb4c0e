/*
** util.c: error reporting, allocation and growable strings.
*/
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

const char *const progname = "bcastgen";

/*
** Print "WHERE: error: " and the formatted message to stderr. A message
** ending in ':' gets the current strerror appended, as in cproc and git.
*/
static void
verror(const char *where, const char *fmt, va_list ap)
{
	int err = errno;
	size_t n = strlen(fmt);

	fprintf(stderr, "%s: error: ", where);
	vfprintf(stderr, fmt, ap);
	if (n > 0 && fmt[n - 1] == ':')
		fprintf(stderr, " %s", strerror(err));
	fputc('\n', stderr);
}

void
error_at(const char *where, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(where, fmt, ap);
	va_end(ap);
}

/*
** Print STR, if any, to stdout, and see it written: a write that failed
** (a full disk, a closed stdout) is an error.
*/
void
put_stdout(const char *str)
{
	if (str)
		fputs(str, stdout);
	if (fflush(stdout) != 0 || ferror(stdout))
		die("cannot write to standard output:");
}

/* Print STR, if any, to stdout, then exit with STATUS. */
void
finish(const char *str, int status)
{
	put_stdout(str);
	exit(status);
}

const char *const lang_names[NLANGS] = {"en", "zh"};

/* Return the index of S among the N strings NAMES, or -1. */
int
find_name(const char *const *names, int n, const char *s)
{
	for (int k = 0; k < n; k++)
		if (strcmp(s, names[k]) == 0)
			return k;
	return -1;
}

void *
xmalloc(size_t n)
{
	return xrealloc(NULL, n);
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory:");
	return p;
}

char *
xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

/* Append N bytes of S to SB, keeping SB NUL-terminated. */
void
sb_addn(struct strbuf *sb, const char *s, size_t n)
{
	if (sb->len + n + 1 > sb->cap) {
		sb->cap = (sb->len + n + 1) * 2;
		sb->s = xrealloc(sb->s, sb->cap);
	}
	memcpy(sb->s + sb->len, s, n);
	sb->len += n;
	sb->s[sb->len] = '\0';
}

void
sb_add(struct strbuf *sb, const char *s)
{
	sb_addn(sb, s, strlen(s));
}

/* sb_printf with a va_list. */
void
sb_vprintf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list again;
	char small[256];
	int n;

	va_copy(again, ap);
	n = vsnprintf(small, sizeof small, fmt, ap);
	if (n < 0)
		die("bad format '%s'", fmt);
	if ((size_t)n < sizeof small) {
		sb_addn(sb, small, (size_t)n);
	} else {
		char *big = xmalloc((size_t)n + 1);

		vsnprintf(big, (size_t)n + 1, fmt, again);
		sb_addn(sb, big, (size_t)n);
		free(big);
	}
	va_end(again);
}

void
sb_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vprintf(sb, fmt, ap);
	va_end(ap);
}

void
sb_free(struct strbuf *sb)
{
	free(sb->s);
	sb->s = NULL;
	sb->len = sb->cap = 0;
}

/*
** Append the content of the file PATH to SB. Return 0; -1 if PATH cannot
** be opened, -2 if it cannot be read, with errno saying why.
*/
int
sb_read_file(struct strbuf *sb, const char *path)
{
	FILE *f = fopen(path, "rb");
	char buf[4096];
	size_t n;
	int err;

	if (!f)
		return -1;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sb_addn(sb, buf, n);
	err = ferror(f) ? (errno ? errno : EIO) : 0;
	fclose(f);
	errno = err;
	return err ? -2 : 0;
}
