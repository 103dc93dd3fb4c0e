/*
** main.c: bcastgen's command line, read as a list of phases:
** read the operands, resolve the broadcasting, then explain or print it.
*/
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bcast.h"
#include "lhost.h"
#include "model.h"

#define VERSION "0.1.0"

enum action {
	ACT_SUMMARY,		/* default: operands and result in one line */
	ACT_SHAPE,		/* --shape */
	ACT_EXPLAIN		/* --explain */
};

struct options {
	enum action action;
	int axis_mode;		/* --axis given */
	int axis;		/* its value */
	int inplace;		/* --inplace */
	const char *tmpldir;	/* --templates DIR, or NULL */
	const char *dump_lua;	/* --dump-lua NAME, or NULL */
	struct operand ops[BCAST_MAX_OPERANDS];
	int nops;
};

static const char usage_text[] =
"usage: bcastgen [options] NAME=SHAPE ...\n"
"\n"
"Resolve the broadcasting of the operands' shapes at build time.\n"
"SHAPE is comma-separated sizes, outermost first: x=2,3,1,5; s= is a\n"
"scalar (rank 0); sizes may be 0. Names are distinct C identifiers.\n"
"Without an action option, print the operands and the result shape.\n"
"\n"
"actions:\n"
"  --shape           print only the result shape, as 2,3,4 (empty line for rank 0)\n"
"  --explain         walk through the broadcast rules step by step\n"
"\n"
"options:\n"
"  --axis K          Paddle's elementwise axis for two operands x, y\n"
"                    (-1 is the NumPy rule, the default without --axis)\n"
"  --inplace         the result is written into the first operand, whose\n"
"                    shape it must have\n"
"  --templates DIR   read templates from DIR instead of the built-in ones\n"
"  --dump-lua NAME   print the Lua that template NAME compiles to\n"
"  -h, --help        print this help\n"
"  --version         print the version\n"
"\n"
"exit status: 0 success; 1 bad input (a shape, an axis, shapes that do not\n"
"broadcast, an in-place result of another shape, a template error);\n"
"2 bad usage (an unknown option, a missing argument).\n";

/* Print a usage error and exit with status 2. */
static void
usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: error: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\ntry '%s --help'\n", progname);
	exit(EXIT_USAGE);
}

/* Parse the value of --axis; any int is accepted here, bcast checks it. */
static int
parse_axis(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno == ERANGE || v < INT_MIN || v > INT_MAX)
		die("bad axis '%s': expected an integer", s);
	return (int)v;
}

/*
** If ARGV[*I] is the long option NAME taking a value ("--axis K" or
** "--axis=K"), return the value and advance *I past it; else NULL.
*/
static const char *
option_value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);
	const char *arg = argv[*i];

	if (strncmp(arg, name, n) != 0)
		return NULL;
	if (arg[n] == '=')
		return arg + n + 1;
	if (arg[n] != '\0')
		return NULL;
	if (*i + 1 >= argc)
		usage_error("option '%s' needs a value", name);
	return argv[++*i];
}

/* Add the operand written ARG, checking that its name is new. */
static void
add_operand(struct options *opt, const char *arg)
{
	struct strbuf err = {0};
	struct operand *op;

	if (opt->nops == BCAST_MAX_OPERANDS)
		die("more than %d operands", BCAST_MAX_OPERANDS);
	op = &opt->ops[opt->nops];
	if (operand_parse(arg, op, &err) != 0)
		die("%s", err.s);
	for (int i = 0; i < opt->nops; i++)
		if (strcmp(opt->ops[i].name, op->name) == 0)
			die("operand '%s' is given twice", op->name);
	opt->nops++;
}

/* Read the command line into OPT; exit on any error in it. */
static void
parse_args(int argc, char **argv, struct options *opt)
{
	int only_operands = 0;
	const char *v;

	memset(opt, 0, sizeof *opt);
	opt->axis = BCAST_NUMPY_AXIS;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (only_operands || arg[0] != '-') {
			add_operand(opt, arg);
		} else if (strcmp(arg, "--") == 0) {
			only_operands = 1;
		} else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
			fputs(usage_text, stdout);
			exit(EXIT_OK);
		} else if (strcmp(arg, "--version") == 0) {
			puts("bcastgen " VERSION);
			exit(EXIT_OK);
		} else if (strcmp(arg, "--shape") == 0) {
			opt->action = ACT_SHAPE;
		} else if (strcmp(arg, "--explain") == 0) {
			opt->action = ACT_EXPLAIN;
		} else if (strcmp(arg, "--inplace") == 0) {
			opt->inplace = 1;
		} else if ((v = option_value(argc, argv, &i, "--axis"))) {
			opt->axis_mode = 1;
			opt->axis = parse_axis(v);
		} else if ((v = option_value(argc, argv, &i, "--templates"))) {
			opt->tmpldir = v;
		} else if ((v = option_value(argc, argv, &i, "--dump-lua"))) {
			opt->dump_lua = v;
		} else {
			usage_error("unknown option '%s'", arg);
		}
	}
	if (opt->nops == 0 && !opt->dump_lua)
		usage_error("no operands: give at least one NAME=SHAPE");
}

/* Print STR to stdout and exit with STATUS, reporting a failed write. */
static void
finish(const char *str, int status)
{
	if (str)
		fputs(str, stdout);
	if (fflush(stdout) != 0 || ferror(stdout))
		die("cannot write to standard output:");
	exit(status);
}

/* Render the --explain text for B; exit 1 if the template fails. */
static void
explain(const struct options *opt, const struct bcast *b, struct strbuf *out)
{
	lua_State *L = lhost_open(opt->tmpldir);

	model_push_bcast(L, b, opt->inplace);
	if (lhost_render(L, "explain.txt.lt", out) != 0)
		exit(EXIT_INPUT);
	lhost_close(L);
}

/* Append the result shape as comma-separated sizes and a newline. */
static void
format_csv(struct strbuf *sb, const struct shape *s)
{
	for (int d = 0; d < s->rank; d++)
		sb_printf(sb, d ? ",%llu" : "%llu", (unsigned long long)s->dim[d]);
	sb_add(sb, "\n");
}

int
main(int argc, char **argv)
{
	static struct options opt;
	static struct bcast b;
	struct strbuf out = {0}, err = {0};
	struct shape result;

	/* Read the operands and options. */
	parse_args(argc, argv, &opt);
	if (opt.dump_lua) {
		lua_State *L = lhost_open(opt.tmpldir);

		if (lhost_dump_lua(L, opt.dump_lua, &out) != 0)
			exit(EXIT_INPUT);
		finish(out.s, EXIT_OK);
	}

	/* Resolve the broadcasting. */
	bcast_resolve(&b, opt.ops, opt.nops, opt.axis_mode, opt.axis);
	if (b.err)
		bcast_format_error(&err, &b);
	else
		bcast_result_shape(&b, &result);
	if (!b.err && opt.inplace && !shape_equal(&result, &opt.ops[0].shape)) {
		sb_printf(&err, "cannot write the result in place into '%s': "
		          "the result shape ", opt.ops[0].name);
		shape_format(&err, &result);
		sb_printf(&err, " is not the shape of '%s' ", opt.ops[0].name);
		shape_format(&err, &opt.ops[0].shape);
	}

	/* Explain, or report the error, or print the result. */
	if (opt.action == ACT_EXPLAIN)
		explain(&opt, &b, &out);
	if (err.s) {
		if (out.s)
			fputs(out.s, stdout);
		fflush(stdout);
		die("%s", err.s);
	}
	if (opt.action == ACT_SHAPE) {
		format_csv(&out, &result);
	} else if (opt.action == ACT_SUMMARY) {
		for (int i = 0; i < opt.nops; i++) {
			sb_printf(&out, "%s", opt.ops[i].name);
			shape_format(&out, &opt.ops[i].shape);
			sb_add(&out, " ");
		}
		sb_add(&out, "-> ");
		shape_format(&out, &result);
		sb_add(&out, "\n");
	}
	finish(out.s, EXIT_OK);
	return 0;
}
