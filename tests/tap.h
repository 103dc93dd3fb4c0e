/*
** tap.h: the Test Anything Protocol from C, for tests run by prove.
**
** ok(cond, fmt, ...) prints "ok N - name" or "not ok N - name";
** ok1(expr) uses the expression as the name; diag() prints a comment.
** End main with "return done_testing();", which prints the plan.
*/
#ifndef TAP_H
#define TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_count, tap_failed;

#define ok1(expr) ok(!!(expr), "%s (%s:%d)", #expr, __FILE__, __LINE__)

/* Report one test; return COND so callers can add detail on failure. */
static int
ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return cond;
}

/* Print a TAP comment line. */
static void
diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* Print the plan and return the exit status: 0 if all passed. */
static int
done_testing(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed != 0;
}

#endif
