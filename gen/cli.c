/*
** cli.c: read the command line. Options that say what to do are rows
** of the table below; options that describe the kernel are the rows of
** fields.c, shared with spec files; every other word is an operand
** (NAME=SHAPE) or a spec file (NAME.lua).
*/
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define VERSION "0.2.0"

static const char usage_text[] =
"usage: bcastgen [options] NAME[:DTYPE]=SHAPE ...\n"
"       bcastgen SPEC -o FILE.c [-M FILE.d [-MT TARGET]] [--templates DIR]\n"
"\n"
"Resolve the broadcasting of the operands' shapes at build time and\n"
"generate a C kernel for exactly those shapes. SHAPE is comma-separated\n"
"sizes, outermost first: x=2,3,1,5; s= is a scalar (rank 0); sizes may be\n"
"0. Names are distinct C identifiers. Without -o, --shape or --explain,\n"
"print the operands and the result shape. A SPEC file (any word ending\n"
"in .lua) declares many kernels, all written to FILE.c and FILE.h:\n"
"  kernel \"bias_add\" { op = \"add\", \"x=8,64,56,56\", \"b=64,1,1\" }\n"
"with the operands in order and the options named as below, '_' for '-'.\n"
"\n"
"actions:\n"
"  -o, --output FILE.c  write the kernel to FILE.c and its header to FILE.h\n"
"  --name NAME       the function's name (default: FILE without .c)\n"
"  --shape           print only the result shape, as 2,3,4 (rank 0: empty line)\n"
"  --explain [DEPTH] walk through the broadcast rules step by step, as deep\n"
"                    as DEPTH (--explain=DEPTH too): rule (align, compare,\n"
"                    the result shape), strides (and each operand's\n"
"                    strides) or kernel (and the loops the kernel makes of\n"
"                    them); kernel for text, rule for svg and html\n"
"                    (--shape and --explain: not with a SPEC)\n"
"  --format F        what --explain writes: text (default), svg (a picture\n"
"                    of the broadcast) or html (one page with the\n"
"                    explanation, the picture and, at depth kernel, the\n"
"                    kernel); what --list writes: text (default) or json\n"
"  --values arange   fill each operand with its element numbers, as NumPy's\n"
"                    arange(n).reshape(shape), and show the result's values\n"
"                    (in the text as NumPy prints them, and in the picture),\n"
"                    for +, -, *, maximum, minimum, negative and absolute\n"
"                    and results of up to 256 elements\n"
"  --wrap N          the width of --explain's text in columns (default 72);\n"
"                    0: each paragraph one line, for slides\n"
"  --elements        --explain lists every element of the result with the\n"
"                    elements it reads, for results of up to 256 elements\n"
"                    (in the text and on the page, not in the picture)\n"
"  -M, --depfile F   with -o, also write a Make depfile F: the outputs depend\n"
"                    on the spec and the templates read from --templates\n"
"  -MT, --depfile-target TARGET\n"
"                    the depfile's target instead of FILE.c and FILE.h\n"
"                    (a stamp file, say)\n"
"  --list ops        print the op table, a line per op, or with --format json\n"
"                    every field of each op's row; only --format goes with it\n"
"\n"
"";

/*
** The end of the options that describe the kernel (print_help puts
** their rows, from fields.c, before it), and the other options.
*/
static const char kernel_text[] =
"  Integers are decimal digits, with '-' before a negative one.\n"
"\n"
"other options:\n"
"  --templates DIR   read templates from DIR instead of the built-in ones\n"
"  --dump-lua NAME   print the Lua that template NAME compiles to\n"
"  --timings         with -o, once the files are written, print to stderr the\n"
"                    processor time of each phase: read (command line, spec),\n"
"                    plan (resolve, plan), render (templates), write (files)\n"
"  -h, --help        print this help\n"
"  --version         print the version\n"
"\n";

/* The limits, one entry each with its reason; the man page and README list them too. */
static const char limits_text[] =
"limits (one line each, with its reason; past one, a clear error):\n"
"  rank              64 dimensions in a shape, as NumPy 2\n"
"  elements          2^63-1 in any operand or result: a signed 64-bit count\n"
"  operands          any number for --shape, --explain and the plain result,\n"
"                    as numpy.broadcast_shapes; 127 for a kernel: C guarantees\n"
"                    127 parameters to a function\n"
"  kernel name       255 characters, far above any real use; past 31 (or a\n"
"                    macro NAME_SHAPE past 31) a warning: some toolchains\n"
"                    truncate external names to 31 characters\n"
"  operand name      63 characters: C guarantees 63 for internal names\n"
"  expression        1000 nodes and 64 levels of nesting: bounds the work and\n"
"                    the parser's stack\n"
"  unrolling         512 elements and 1024 nodes in all: the largest unrolled\n"
"                    kernel compiles in seconds\n"
"  spec run          100 million Lua instructions and 10 s of processor time,\n"
"                    not catchable by pcall: a build step must end\n"
"  spec memory       64 MB of Lua memory\n"
"  templates         1 GB of Lua memory; 100 million instructions and 10 s of\n"
"                    processor time for each file rendered\n"
"  spec kernels      10000: generation takes 3.5 to 8 s of processor time\n"
"  output            64 MB of generated C in one run, more than a compiler\n"
"                    takes in reasonable time\n"
"\n";

static const char status_text[] =
"exit status: 0 success; 1 bad input (a shape, an op or dtype, an axis,\n"
"shapes that do not broadcast, an in-place result of another shape, an\n"
"unroll past the limit, an expression or a spec file, a template error, a\n"
"file that cannot be written), and then no file is written or changed; 2\n"
"bad usage (an unknown option, a missing argument, options that do not\n"
"go together).\n";

/* Append the ops' names, then the functions' (for print_help's marks). */
static void
op_names(struct strbuf *sb)
{
	op_list(sb, 0);
}

static void
func_names(struct strbuf *sb)
{
	op_list(sb, 1);
}

/* The lists --help reads from the tables, each in place of its mark. */
static const struct help_list {
	const char *mark;
	void (*append)(struct strbuf *sb);
} help_lists[] = {
	{"%OPS", op_names},
	{"%FUNCS", func_names},
	{"%DTYPES", dtype_list},
	{"%TARGETS", target_names},
	{"%TUNES", tuning_names},
	{NULL, NULL}
};

/*
** Print the help: usage_text, the rows of fields.c, kernel_text,
** limits_text and status_text, with help_lists in place of their marks,
** each wrapped to 78 columns.
*/
static void
print_help(void)
{
	const struct help_list *marks = help_lists;
	struct strbuf out = {0}, text = {0};
	const char *p;
	int col = 0;

	sb_add(&text, usage_text);
	sb_add(&text, "the kernel:\n");
	field_help(&text, 20);	/* from column 20, as the other options' text */
	sb_add(&text, kernel_text);
	sb_add(&text, limits_text);
	sb_add(&text, status_text);
	p = text.s;
	while (*p) {
		int k = 0;

		while (marks[k].mark && strncmp(p, marks[k].mark, strlen(marks[k].mark)) != 0)
			k++;
		if (marks[k].mark) {
			struct strbuf list = {0};
			const char *w;

			marks[k].append(&list);
			/* each word where it fits, else on a new line under the text */
			for (w = list.s; *w; ) {
				size_t n = strcspn(w, " ");

				if (col + (int)n + 1 > 78 && w != list.s) {
					sb_add(&out, "\n                   ");
					col = 19;
				}
				if (w != list.s) {
					sb_add(&out, " ");
					col++;
				}
				sb_addn(&out, w, n);
				col += (int)n;
				w += n + (w[n] == ' ');
			}
			sb_free(&list);
			p += strlen(marks[k].mark);
			continue;
		}
		col = *p == '\n' ? 0 : col + 1;
		sb_addn(&out, p++, 1);
	}
	fputs(out.s, stdout);
	sb_free(&out);
	sb_free(&text);
}

/* The options that say what to do rather than what the kernel is. */
static const struct action {
	const char *option;	/* "-o" */
	const char *alias;	/* "--output", or NULL */
	int takes_value;	/* else a flag, an int in struct cli */
	size_t offset;		/* of its field in struct cli */
	size_t may_take;	/* a flag's value, if it may have one: its
				   field (after '=', or the next bare word) */
} actions[] = {
	{"-o", "--output", 1, offsetof(struct cli, output), 0},
	{"-MT", "--depfile-target", 1, offsetof(struct cli, dep_target), 0},
	{"-M", "--depfile", 1, offsetof(struct cli, depfile), 0},
	{"--templates", NULL, 1, offsetof(struct cli, tmpldir), 0},
	{"--dump-lua", NULL, 1, offsetof(struct cli, dump_lua), 0},
	{"--name", NULL, 1, offsetof(struct cli, name), 0},
	{"--shape", NULL, 0, offsetof(struct cli, shape), 0},
	{"--explain", NULL, 0, offsetof(struct cli, explain), offsetof(struct cli, depth_given)},
	{"--format", NULL, 1, offsetof(struct cli, format), 0},
	{"--elements", NULL, 0, offsetof(struct cli, elements), 0},
	{"--wrap", NULL, 1, offsetof(struct cli, wrap_given), 0},
	{"--values", NULL, 1, offsetof(struct cli, values), 0},
	{"--timings", NULL, 0, offsetof(struct cli, timings), 0},
	{"--list", NULL, 1, offsetof(struct cli, list), 0},
	{NULL, NULL, 0, 0, 0}
};

/* The names of --explain's depths, in the order of enum explain_depth. */
const char *const explain_depth_names[NDEPTHS] = {"rule", "strides", "kernel"};

/* The names of --format's values, in the order of enum explain_format. */
static const char *const format_names[NFORMATS] = {"text", "svg", "html"};

/*
** The headers the emitted code includes, directly or through the
** runtime, which an output's FILE.h must not hide from a compiler that
** searches its directory (-I, or the directory of the .c file): the
** runtime's, the C library's it includes (<assert.h> in a debug build),
** glibc's that those include by a plain name (<features.h>, and
** <stdc-predef.h>, which gcc includes first of all), bc_cpu.h's
** <cpuid.h>, and the x86 intrinsics of bc_stream.h, bc_f16.h and bc_quant.h, which
** include a family of *intrin.h headers and <mm_malloc.h>, which
** includes <stdlib.h>.
*/
static const struct included_header {
	const char *name;
	int family;		/* any name that ends so: "intrin.h" */
} included_headers[] = {
	{"bc.h", 0}, {"bc_math.h", 0}, {"bc_stream.h", 0}, {"bc_ref.h", 0}, {"bc_f16.h", 0},
	{"bc_quant.h", 0}, {"bc_cpu.h", 0},
	{"cpuid.h", 0},
	{"stddef.h", 0}, {"stdint.h", 0}, {"limits.h", 0}, {"math.h", 0}, {"assert.h", 0},
	{"features.h", 0}, {"stdc-predef.h", 0},
	{"immintrin.h", 0}, {"intrin.h", 1}, {"mm_malloc.h", 0}, {"stdlib.h", 0},
	{NULL, 0}
};

/*
** Return 1 if the header HEADER would hide one the emitted code
** includes: compared ignoring ASCII case, as the file systems of macOS
** and Windows find a header.
*/
static int
hides_included(const char *header)
{
	size_t n = strlen(header);

	for (const struct included_header *h = included_headers; h->name; h++) {
		size_t k = strlen(h->name);
		size_t at = h->family && n > k ? n - k : 0;
		size_t i = 0;

		if (n - at != k)
			continue;
		while (i < k && tolower((unsigned char)header[at + i]) == h->name[i])
			i++;
		if (i == k)
			return 1;
	}
	return 0;
}

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

/*
** If ARGV[*I] is the option NAME, return its value ("--axis K",
** "--axis=K", or for a one-letter option "-oFILE"), or "" for a flag,
** and advance *I past it; else NULL.
*/
static const char *
option_value(int argc, char **argv, int *i, const char *name, int takes_value)
{
	size_t n = strlen(name);
	const char *arg = argv[*i];

	if (strncmp(arg, name, n) != 0)
		return NULL;
	if (!takes_value)
		return arg[n] == '\0' ? "" : NULL;
	if (arg[n] == '=' && n > 2)
		return arg + n + 1;
	if (arg[n] != '\0')
		return n == 2 ? arg + n : NULL;
	if (*i + 1 >= argc)
		usage_error("option '%s' needs a value", name);
	return argv[++*i];
}

/* Return the file name of PATH, without its directory. */
const char *
cli_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
** Return 1 if ARG names a spec file: any word that ends in ".lua", '='
** in its directory or not. No operand can: a shape ends in a digit, or
** is empty.
*/
static int
is_spec(const char *arg)
{
	size_t n = strlen(arg);

	return n > 4 && strcmp(arg + n - 4, ".lua") == 0;
}

/* Return 1 if ARGV[I] asks OPTION's table: "OPTION list" or "OPTION=list". */
static int
asks_list(int argc, char **argv, int i, const char *option)
{
	size_t n = strlen(option);

	if (strncmp(argv[i], option, n) != 0)
		return 0;
	return strcmp(argv[i] + n, "=list") == 0
	       || (argv[i][n] == '\0' && i + 1 < argc && strcmp(argv[i + 1], "list") == 0);
}

/*
** A flag NAME that may take a value, as ARGV[*I]: its value after '=', or
** the next word where that is bare (no operand, option or spec file:
** nothing else can be), moving *I past it; "" without one; NULL if
** ARGV[*I] is not NAME.
*/
static const char *
flag_value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);
	const char *arg = argv[*i], *next = *i + 1 < argc ? argv[*i + 1] : NULL;

	if (strncmp(arg, name, n) != 0 || (arg[n] != '=' && arg[n] != '\0'))
		return NULL;
	if (arg[n] == '=' && !arg[n + 1])
		usage_error("option '%s' needs a value after '='", name);
	if (arg[n] == '=')
		return arg + n + 1;
	if (next && next[0] != '-' && next[0] && !strchr(next, '=') && !is_spec(next))
		return argv[++*i];
	return "";
}

/* Set the action or the kernel field that ARGV[*I] names; return 0 if none does. */
static int
take_option(int argc, char **argv, int *i, struct cli *c, struct desc *d)
{
	struct strbuf err = {0}, opt = {0};
	const char *v;
	int k;

	for (const struct action *a = actions; a->option; a++)
		if (a->may_take && (v = flag_value(argc, argv, i, a->option))) {
			const char **value = (const char **)(void *)((char *)c + a->may_take);

			if (*v && *value)
				usage_error("option '%s' is given twice", a->option);
			*(int *)(void *)((char *)c + a->offset) = 1;
			if (*v)
				*value = v;
			return 1;
		} else if (!a->takes_value && strncmp(argv[*i], a->option, strlen(a->option)) == 0
		    && argv[*i][strlen(a->option)] == '=')
			usage_error("option '%s' takes no value", a->option);
		else if ((v = option_value(argc, argv, i, a->option, a->takes_value))
		    || (a->alias && (v = option_value(argc, argv, i, a->alias, a->takes_value)))) {
			char *field = (char *)c + a->offset;

			if (a->takes_value && *(const char **)(void *)field)
				usage_error("option '%s' is given twice", a->option);
			if (a->takes_value)
				*(const char **)(void *)field = v;
			else
				*(int *)(void *)field = 1;
			return 1;
		}
	sb_addn(&opt, argv[*i], strcspn(argv[*i], "="));
	k = field_find(opt.s, FROM_CLI);
	v = k < 0 ? NULL : option_value(argc, argv, i, opt.s, field_takes_value(k));
	if (k >= 0 && !v)
		usage_error("option '%s' takes no value", opt.s);
	if (k >= 0 && field_given(d, k) && field_takes_value(k) && !field_repeats(k))
		usage_error("option '%s' is given twice", opt.s);
	if (k >= 0 && field_set(d, k, v, &err) != 0)
		die("%s", err.s);
	sb_free(&opt);
	return k >= 0;
}

/* What --list prints, and the formats it writes (text, the default, or json). */
static const char *const list_names[] = {"ops"};
static const char *const list_formats[] = {"text", "json"};

/*
** Print the table that --list names (the op table: op_table) in its
** --format, and exit; exit with a usage error if anything but --format
** comes with it.
*/
static void
print_list(const struct cli *c, const struct desc *d)
{
	struct strbuf out = {0};
	int json = c->format ? find_name(list_formats, 2, c->format) : 0;

	if (find_name(list_names, 1, c->list) < 0)
		usage_error("bad list '%s': expected ops", c->list);
	if (json < 0)
		usage_error("bad format '%s' for --list: expected text or json", c->format);
	if (d->nops > 0 || d->given || c->spec || c->output || c->depfile || c->dep_target
	    || c->shape || c->explain || c->elements || c->values || c->wrap_given || c->tmpldir
	    || c->dump_lua || c->name || c->timings)
		usage_error("--list prints a table: not with operands, a spec file or "
		            "options other than --format");
	op_table(&out, json == 1, expr_operator);
	finish(out.s, EXIT_OK);
}

/*
** Read the command line into C (what to do) and D (the kernel, its
** computation read and checked). Exits on any error in it: 2 for bad
** usage, 1 for bad input.
*/
void
cli_read(int argc, char **argv, struct cli *c, struct desc *d)
{
	struct strbuf err = {0}, where = {0};
	int only_operands = 0, status;

	memset(c, 0, sizeof *c);
	desc_init(d, FROM_CLI);
	/* the first language given, whatever its place: the messages about
	 * the operands before it speak it too (a bad one, or a second, is
	 * reported below) */
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		const char *v = strncmp(argv[i], "--lang=", 7) == 0 ? argv[i] + 7
		                : strcmp(argv[i], "--lang") == 0 && i + 1 < argc ? argv[i + 1] : NULL;
		int k = v ? find_name(lang_names, NLANGS, v) : -1;

		if (k >= 0) {
			d->lang = (enum lang)k;
			break;
		}
	}
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (!only_operands && is_spec(arg)) {
			if (c->spec)
				usage_error("two spec files: '%s' and '%s'", c->spec, arg);
			c->spec = arg;
		} else if (only_operands || arg[0] != '-') {
			if (desc_add_operand(d, arg, &err) != 0)
				die("%s", err.s);
		} else if (strcmp(arg, "--") == 0) {
			only_operands = 1;
		} else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
			print_help();
			finish(NULL, EXIT_OK);
		} else if (strcmp(arg, "--version") == 0) {
			finish("bcastgen " VERSION "\n", EXIT_OK);
		} else if (asks_list(argc, argv, i, "--target")) {
			struct strbuf list = {0};

			target_list(&list);
			finish(list.s, EXIT_OK);
		} else if (asks_list(argc, argv, i, "--tune")) {
			struct strbuf list = {0};

			tuning_list(&list);
			finish(list.s, EXIT_OK);
		} else if (!take_option(argc, argv, &i, c, d)) {
			usage_error("unknown option '%s'", arg);
		}
	}
	if (c->list)
		print_list(c, d);
	if (c->tmpldir && !*c->tmpldir)
		usage_error("--templates needs a directory, not an empty string");
	if (c->output) {
		struct strbuf header = {0};
		const char *base = cli_base_name(c->output);
		size_t n = strlen(base);

		if (n < 2 || strcmp(base + n - 2, ".c") != 0)
			die("output file '%s' does not end in .c", c->output);
		if (n == 2)
			die("output file '%s' has no name before the .c", c->output);
		sb_printf(&header, "%.*sh", (int)n - 1, base);
		if (hides_included(header.s))
			die("output file '%s' would write a header %s that hides the "
			    "one the kernels include: choose another name", c->output, header.s);
		sb_free(&header);
	}
	if (c->format && !c->explain)
		usage_error("--format needs --explain or --list: it chooses what they write");
	if (c->format) {
		int k = find_name(format_names, NFORMATS, c->format);

		if (k < 0)
			usage_error("bad format '%s': expected text, svg or html", c->format);
		c->as = (enum explain_format)k;
	}
	c->depth = c->as == FORMAT_TEXT ? DEPTH_KERNEL : DEPTH_RULE;
	if (c->depth_given) {
		int k = find_name(explain_depth_names, NDEPTHS, c->depth_given);

		if (k < 0)
			usage_error("bad depth '%s' for --explain: expected rule, strides or kernel",
			            c->depth_given);
		c->depth = (enum explain_depth)k;
	}
	if (c->shape && c->explain)
		usage_error("--shape prints only the result shape: not with --explain, "
		            "which walks through it");
	c->wrap = CLI_WRAP;
	if (c->wrap_given) {
		const char *p = c->wrap_given;
		long n = 0;

		while (*p >= '0' && *p <= '9' && n <= CLI_WRAP_MAX)
			n = n * 10 + (*p++ - '0');
		if (!c->explain || c->as == FORMAT_SVG)
			usage_error("--wrap needs --explain with text or html: it sets the width of the text");
		if (*p || p == c->wrap_given || (n != 0 && (n < CLI_WRAP_MIN || n > CLI_WRAP_MAX)))
			usage_error("bad --wrap '%s': expected 0 (a paragraph a line) or a width of %d to %d "
			            "columns", c->wrap_given, CLI_WRAP_MIN, CLI_WRAP_MAX);
		c->wrap = (int)n;
	}
	if (c->values && strcmp(c->values, "arange") != 0)
		usage_error("bad --values '%s': expected arange", c->values);
	if (c->values && !c->explain)
		usage_error("--values needs --explain: it fills the operands of the explanation");
	if (c->elements && !c->explain)
		usage_error("--elements needs --explain: it says how to explain");
	if (c->elements && c->as == FORMAT_SVG)
		usage_error("--elements lists the elements in words: with --format text "
		            "or html, not svg");
	if (c->as != FORMAT_TEXT && c->output)
		usage_error("--format %s writes the explanation to standard output: "
		            "not with -o", c->format);
	if (c->timings && !c->output)
		usage_error("--timings needs -o: it times the phases that write the files");
	if (c->dep_target && !c->depfile)
		usage_error("-MT needs -M: it names the target of the depfile");
	if (c->spec) {
		if (d->nops > 0 || d->given || c->name)
			usage_error("with a spec file, operands and kernel options go in the spec");
		if (c->explain || c->shape)
			usage_error("%s does not apply to a spec file: it answers for the operands "
			            "of the command line", c->explain ? "--explain" : "--shape");
		if (!c->output)
			usage_error("a spec file needs -o FILE.c");
		return;
	}
	if (c->depfile && !c->output)
		usage_error("-M needs -o: the depfile lists what the outputs depend on");
	if (d->nops == 0 && c->dump_lua)
		return;
	if (c->name)
		d->name = xstrdup(c->name);
	d->shapes_only = !c->output;
	if ((status = desc_finish(d, &where, &err)) == EXIT_USAGE)
		usage_error("%s", err.s);
	if (status != 0 && where.s)
		die_at(where.s, "%s", err.s);
	if (status != 0)
		die("%s", err.s);
}
