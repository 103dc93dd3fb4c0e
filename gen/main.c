/*
** main.c: bcastgen as a list of phases over one run, as lemon's main:
** read the words, the templates and the spec (run.c); without -o, or
** with --explain or --shape, answer (explain.c); then resolve, describe,
** plan and render each kernel (kernel.c, render.c), render the files
** and check the names they hold (render.c), and write them, all or none
** (write.c).
*/
#include "run.h"

/*
** Run bcastgen on the words ARGV[0..ARGC): main's body. Each call starts
** from a fresh run, so a test harness may call it again in one process
** (with exit turned into a jump back to it, and what the previous call
** held freed by the harness).
*/
int bcastgen_main(int argc, char **argv);

int
bcastgen_main(int argc, char **argv)
{
	static struct run r;

	run_read(&r, argc, argv);
	if (!r.cli.output || r.cli.explain || r.cli.shape)
		explain_answer(&r);
	run_lap(&r, RENDER);
	if (!r.cli.output)
		finish(NULL, EXIT_OK);
	kernel_generate(&r);
	render_files(&r, r.cli.output);
	render_check_names(&r);
	run_lap(&r, RENDER);
	write_files(&r);
	run_lap(&r, WRITE);
	run_print_timings(&r);
	finish(NULL, EXIT_OK);
	return 0;
}

/* The program: one run on its command line. */
int
main(int argc, char **argv)
{
	return bcastgen_main(argc, argv);
}
