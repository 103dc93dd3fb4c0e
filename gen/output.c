/*
** output.c: write generated files atomically. Each file is first written
** to a temporary in its own directory; only when every file of the run
** is written are they renamed into place, so an error leaves no partial
** or half-updated output. A file whose content would not change is not
** touched, so its mtime stays and dependent objects are not rebuilt.
*/
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"

/* Return 1 if the file PATH holds exactly TEXT. */
static int
same_content(const char *path, const struct strbuf *text)
{
	FILE *f = fopen(path, "rb");
	char buf[4096];
	size_t n, at = 0;
	int same = 1;

	if (!f)
		return 0;
	while (same && (n = fread(buf, 1, sizeof buf, f)) > 0) {
		same = at + n <= text->len && memcmp(buf, text->s + at, n) == 0;
		at += n;
	}
	same = same && !ferror(f) && at == text->len;
	fclose(f);
	return same;
}

/*
** Stage TEXT for PATH: write it to a temporary beside PATH, unless PATH
** already holds it. Return 0, or -1 with an error printed.
*/
int
output_add(struct output *o, const char *path, const struct strbuf *text)
{
	struct strbuf tmp = {0};
	const char *slash = strrchr(path, '/');
	FILE *f;
	int fd;

	if (o->n == OUTPUT_MAX)
		die("too many output files");
	o->path[o->n] = xstrdup(path);
	o->tmp[o->n] = NULL;
	o->n++;
	if (same_content(path, text))
		return 0;
	/* ".NAME.XXXXXX" in PATH's directory, so that rename is atomic */
	sb_printf(&tmp, "%.*s.%s.XXXXXX", slash ? (int)(slash - path + 1) : 0, path,
	          slash ? slash + 1 : path);
	fd = mkstemp(tmp.s);
	if (fd < 0) {
		error("cannot create a temporary file for '%s':", path);
		sb_free(&tmp);
		return -1;
	}
	o->tmp[o->n - 1] = tmp.s;
	f = fdopen(fd, "wb");
	if (!f || fwrite(text->s, 1, text->len, f) != text->len || fclose(f) != 0) {
		error("cannot write '%s':", tmp.s);
		return -1;
	}
	/* mkstemp makes the file 0600; give it the usual 0666 & ~umask */
	{
		mode_t mask = umask(0);

		umask(mask);
		if (chmod(tmp.s, 0666 & ~mask) != 0) {
			error("cannot chmod '%s':", tmp.s);
			return -1;
		}
	}
	return 0;
}

/* Rename every staged file into place. Return 0, or -1 with an error. */
int
output_commit(struct output *o)
{
	for (int i = 0; i < o->n; i++) {
		if (o->tmp[i] && rename(o->tmp[i], o->path[i]) != 0) {
			error("cannot rename '%s' to '%s':", o->tmp[i], o->path[i]);
			output_abort(o);
			return -1;
		}
		free(o->tmp[i]);
		o->tmp[i] = NULL;
	}
	output_abort(o);
	return 0;
}

/* Remove the temporaries not yet renamed and forget the files. */
void
output_abort(struct output *o)
{
	for (int i = 0; i < o->n; i++) {
		if (o->tmp[i])
			remove(o->tmp[i]);
		free(o->tmp[i]);
		free(o->path[i]);
	}
	o->n = 0;
}

/* Append PATH to SB as Make reads it: spaces, '#' and '$' escaped. */
static void
make_path(struct strbuf *sb, const char *path)
{
	for (const char *p = path; *p; p++) {
		if (*p == ' ' || *p == '#')
			sb_add(sb, "\\");
		sb_addn(sb, p, 1);
		if (*p == '$')
			sb_add(sb, "$");
	}
}

/*
** Append a Make depfile to SB: the N TARGETS depend on the NPRE
** PREREQUISITES, and each prerequisite gets an empty rule, as gcc -MP
** writes, so that make does not fail when one is removed.
*/
void
output_depfile(struct strbuf *sb, const char *const *targets, int n,
               const char *const *prerequisites, int npre)
{
	for (int i = 0; i < n; i++) {
		if (i)
			sb_add(sb, " ");
		make_path(sb, targets[i]);
	}
	sb_add(sb, ":");
	for (int i = 0; i < npre; i++) {
		sb_add(sb, " ");
		make_path(sb, prerequisites[i]);
	}
	sb_add(sb, "\n");
	for (int i = 0; i < npre; i++) {
		sb_add(sb, "\n");
		make_path(sb, prerequisites[i]);
		sb_add(sb, ":\n");
	}
}
