/*
** util.h: error reporting and allocation that never fails.
*/
#ifndef UTIL_H
#define UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

/* Exit statuses, documented in --help. */
enum {
	EXIT_OK = 0,
	EXIT_INPUT = 1,		/* bad shapes, axis, broadcast error, template error */
	EXIT_USAGE = 2		/* bad command line */
};

extern const char *const progname;

/*
** Print "WHERE: error: MSG" (with strerror if MSG ends in ':'); WHERE is
** a place in the input, or the program's name. die_at then exits 1;
** error and die say where as the program.
*/
void error_at(const char *where, const char *fmt, ...);
#define error(...) error_at(progname, __VA_ARGS__)
#define die_at(...) (error_at(__VA_ARGS__), exit(EXIT_INPUT))
#define die(...) die_at(progname, __VA_ARGS__)
void put_stdout(const char *str);
void finish(const char *str, int status);

/*
** The languages of --explain and of the messages about shapes, operands
** as written (NAME=SHAPE), axes and in-place results (--lang); the rest
** of bcastgen, names' C conflicts and expressions among it, speaks English.
*/
enum lang {
	LANG_EN,
	LANG_ZH,
	NLANGS
};

extern const char *const lang_names[NLANGS];
int find_name(const char *const *names, int n, const char *s);

void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

/* A growable string; zero-initialize it before use. */
struct strbuf {
	char *s;		/* NUL-terminated contents, or NULL when empty */
	size_t len;		/* bytes in s, not counting the NUL */
	size_t cap;		/* bytes allocated for s */
};

void sb_addn(struct strbuf *sb, const char *s, size_t n);
void sb_add(struct strbuf *sb, const char *s);
void sb_printf(struct strbuf *sb, const char *fmt, ...);
void sb_vprintf(struct strbuf *sb, const char *fmt, va_list ap);
void sb_free(struct strbuf *sb);
int sb_read_file(struct strbuf *sb, const char *path);

#endif
