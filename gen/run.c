/*
** run.c: one run of bcastgen: its --timings laps, its errors about a
** kernel, and the read phase: the command line, the templates, and the
** spec file it names.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

/*
** With --timings, add the processor time since the last lap to phase P
** of R and start the next lap; otherwise do nothing.
*/
void
run_lap(struct run *r, enum phase p)
{
	clock_t now;

	if (!r->cli.timings)
		return;
	now = clock();
	r->time[p] += (double)(now - r->mark) / CLOCKS_PER_SEC;
	r->mark = now;
}

/* Print the --timings line of R to stderr, if asked: the seconds of each phase. */
void
run_print_timings(const struct run *r)
{
	if (!r->cli.timings)
		return;
	fprintf(stderr, "%s: timings: read %.3f s, plan %.3f s, render %.3f s, "
	        "write %.3f s, %d kernel%s\n", progname, r->time[READ], r->time[PLAN],
	        r->time[RENDER], r->time[WRITE], r->n, r->n == 1 ? "" : "s");
}

/*
** Die with ERR about the kernel D: at its spec line, if it has one, or
** at the line of its field FAULT (NULL: none is at fault).
*/
void
run_die_kernel(const struct run *r, const struct desc *d, const char *fault, const char *err)
{
	struct strbuf at = {0};

	if (!d->line)
		die("%s", err);
	sb_printf(&at, "%s:%d", r->cli.spec, spec_field_line(&r->spec, d, fault));
	die_at(at.s, "kernel '%s': %s", d->name, err);
}

/*
** Start the run R from a fresh state and read: the words ARGV[0..ARGC),
** the templates when anything will be rendered (--dump-lua prints one
** of their Lua files and exits), and the spec file the words name, if
** any. R's kernels are then the spec's, or the command line's one.
*/
void
run_read(struct run *r, int argc, char **argv)
{
	struct strbuf out = {0};

	memset(r, 0, sizeof *r);
	r->mark = clock();
	cli_read(argc, argv, &r->cli, &r->cli_kernel);
	run_lap(r, READ);
	if (r->cli.tmpldir || r->cli.dump_lua || r->cli.explain || r->cli.output)
		r->L = lhost_open(r->cli.tmpldir);
	run_lap(r, RENDER);
	if (r->cli.dump_lua) {
		if (lhost_dump_lua(r->L, r->cli.dump_lua, &out) != 0)
			exit(EXIT_INPUT);
		finish(out.s, EXIT_OK);
	}
	if (r->cli.spec) {
		spec_read(r->cli.spec, &r->spec);
		r->desc = r->spec.kernel;
		r->n = r->spec.n;
	} else {
		r->desc = &r->cli_kernel;
		r->n = 1;
	}
	run_lap(r, READ);
}
