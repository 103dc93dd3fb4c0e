/*
** main.c: bcastgen's command line, read as a list of phases: read the
** kernel description, resolve the broadcasting, plan the walk over the
** result, render the templates, write the output.
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
#include "output.h"
#include "spec.h"

#define VERSION "0.2.0"

struct options {
	int shape;		/* --shape */
	int explain;		/* --explain */
	int axis_mode;		/* --axis given */
	int axis;		/* its value */
	int inplace;		/* --inplace */
	const char *tmpldir;	/* --templates DIR, or NULL */
	const char *dump_lua;	/* --dump-lua NAME, or NULL */
	const char *output;	/* -o FILE.c, or NULL */
	const char *depfile;	/* -M FILE, or NULL */
	const char *dep_target;	/* -MT TARGET, or NULL: the outputs */
	const char *spec;	/* a spec file, or NULL */
	int kernel_options;	/* options given that describe a kernel */
	const char *name;	/* --name, or NULL: from -o */
	const struct op *op;	/* --op */
	const char *expr_src;	/* --expr, or NULL */
	struct expr expr;	/* the computation: --expr, or --op on the operands */
	const struct dtype *dtype;	/* --dtype */
	const struct dtype *out_dtype;	/* --out-dtype, or NULL */
	enum plan_strategy strategy;	/* --strategy */
	unsigned long long unroll_limit;	/* --unroll-limit */
	int has_out_shape;	/* --out-shape given */
	struct operand out_shape;	/* its shape, named "out" */
	struct strbuf command;	/* the options that define the kernel */
	struct strbuf operands;	/* the operands as written */
	struct operand ops[BCAST_MAX_OPERANDS + 1];	/* + copy's out shape */
	int nops;
};

static const char usage_text[] =
"usage: bcastgen [options] NAME[:DTYPE]=SHAPE ...\n"
"       bcastgen [-o FILE.c] [-M FILE.d] [--templates DIR] SPEC\n"
"\n"
"Resolve the broadcasting of the operands' shapes at build time and\n"
"generate a C kernel for exactly those shapes. SHAPE is comma-separated\n"
"sizes, outermost first: x=2,3,1,5; s= is a scalar (rank 0); sizes may be\n"
"0. Names are distinct C identifiers. Without -o, --shape or --explain,\n"
"print the operands and the result shape. A SPEC file (NAME.lua)\n"
"declares many kernels, all written to FILE.c and FILE.h:\n"
"  kernel \"bias_add\" { op = \"add\", \"x=8,64,56,56\", \"b=64,1,1\" }\n"
"with the operands in order and the options named as below, '_' for '-'.\n"
"\n"
"actions:\n"
"  -o FILE.c         write the kernel to FILE.c and its header to FILE.h\n"
"  --shape           print only the result shape, as 2,3,4 (rank 0: empty line)\n"
"  --explain         walk through the broadcast rules step by step\n"
"  -M, --depfile F   with -o, also write a Make depfile F: the outputs depend\n"
"                    on the spec and the templates read from --templates\n"
"  -MT TARGET        the depfile's target instead of FILE.c and FILE.h\n"
"                    (a stamp file, say)\n"
"\n"
"the kernel:\n"
"  --op OP           the operation (default add): add sub mul div floordiv mod\n"
"                    fmod pow max min neg abs sqrt exp log floor ceil eq ne\n"
"                    lt le gt ge and or xor not bitwise_and bitwise_or\n"
"                    bitwise_xor invert shl shr where copy, or NumPy's names\n"
"                    for them (subtract, floor_divide, ...)\n"
"  --expr E          a fused expression of the operands instead of --op:\n"
"                    'max(x*w + b, 0)'; C's operators and precedence, calls\n"
"                    min max abs sqrt exp log pow floor ceil fmod where,\n"
"                    casts f32(a) i16(a) ...\n"
"  --dtype T         the type computed in (default f32): f32 f64 i8 i16 i32\n"
"                    i64 u8 u16 u32 u64; NAME:T=SHAPE gives an operand its\n"
"                    own stored type, converted to T on load\n"
"  --out-dtype T     the result's stored type (default T; u8 for comparisons\n"
"                    and logical ops)\n"
"  --name NAME       the function's name (default: FILE without .c)\n"
"  --axis K          Paddle's elementwise axis for two operands x, y\n"
"                    (-1 is the NumPy rule, the default without --axis)\n"
"  --inplace         the result is written into the first operand, whose\n"
"                    shape it must have\n"
"  --out-shape S     the result shape: copy broadcasts its operand to S;\n"
"                    any other op checks that its result is S\n"
"  --strategy S      auto (default), unroll (a statement per element) or\n"
"                    loops (a loop nest)\n"
"  --unroll-limit N  elements unrolled at most (default 16, at most 4096)\n"
"\n"
"other options:\n"
"  --templates DIR   read templates from DIR instead of the built-in ones\n"
"  --dump-lua NAME   print the Lua that template NAME compiles to\n"
"  -h, --help        print this help\n"
"  --version         print the version\n"
"\n"
"exit status: 0 success; 1 bad input (a shape, an op or dtype, an axis,\n"
"shapes that do not broadcast, an in-place result of another shape, an\n"
"unroll past the limit, an expression or a spec file, a template error, a\n"
"file that cannot be written), and then no file is written or changed; 2\n"
"bad usage (an unknown option, a missing argument).\n";

static int in_spec;	/* reading a kernel of a spec file: progname is its place */

/* Print a usage error and exit with status 2 (1 in a spec file). */
static void
usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: error: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (in_spec) {
		fputc('\n', stderr);
		exit(EXIT_INPUT);
	}
	fprintf(stderr, "\ntry '%s --help'\n", progname);
	exit(EXIT_USAGE);
}

/* Parse S as a whole integer in [LO, HI] or die naming WHAT. */
static long long
parse_int(const char *s, long long lo, long long hi, const char *what)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (*s == '\0' || *end != '\0')
		die("bad %s '%s': expected an integer", what, s);
	if (errno == ERANGE || v < lo || v > hi)
		die("%s %s is out of range: it must be from %lld to %lld", what, s, lo, hi);
	return v;
}

/* Return the dtype named S or die. */
static const struct dtype *
parse_dtype(const char *s, const char *what)
{
	const struct dtype *t = dtype_find(s);

	if (!t)
		die("unknown %s '%s': expected f32 f64 i8 i16 i32 i64 u8 u16 u32 u64", what, s);
	return t;
}

/*
** If ARGV[*I] is the option NAME taking a value ("--axis K", "--axis=K",
** or for a one-letter option "-oFILE"), return the value and advance *I
** past it; else NULL.
*/
static const char *
option_value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);
	const char *arg = argv[*i];

	if (strncmp(arg, name, n) != 0)
		return NULL;
	if (arg[n] == '=' && n > 2)
		return arg + n + 1;
	if (arg[n] != '\0')
		return n == 2 ? arg + n : NULL;
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
	if (op->dtype[0] && !dtype_find(op->dtype))
		die("unknown dtype '%s' of operand '%s': expected f32 f64 i8 i16 i32 "
		    "i64 u8 u16 u32 u64", op->dtype, op->name);
	for (int i = 0; i < opt->nops; i++)
		if (strcmp(opt->ops[i].name, op->name) == 0)
			die("operand '%s' is given twice", op->name);
	opt->nops++;
}

/*
** Make OPT's computation: parse and check --expr, or apply --op to the
** operands. Dies on any error, pointing into the expression.
*/
static void
read_computation(struct options *opt)
{
	struct strbuf err = {0}, where = {0}, caret = {0};
	const char *names[BCAST_MAX_OPERANDS];
	int r;

	if (opt->expr_src) {
		for (int i = 0; i < opt->nops; i++)
			names[i] = opt->ops[i].name;
		r = expr_parse(&opt->expr, opt->expr_src, names, opt->nops, &err);
	} else {
		if (op_check(opt->op, opt->nops, opt->dtype, &err) != 0)
			die("%s", err.s);
		if (opt->op->kind == OP_COPY && !opt->has_out_shape)
			die("op 'copy' needs --out-shape: the shape to broadcast '%s' to",
			    opt->ops[0].name);
		expr_from_op(&opt->expr, opt->op, opt->nops);
		r = 0;
	}
	if (r == 0)
		r = expr_check(&opt->expr, opt->dtype, &err);
	if (r != 0 && opt->expr.err_pos >= 0) {
		expr_where(&where, &opt->expr, "expr");
		expr_caret(&caret, &opt->expr);
		if (in_spec)
			die("%s: %s\n%s", where.s, err.s, caret.s);
		die_at(where.s, "%s\n%s", err.s, caret.s);
	}
	if (r != 0)
		die("%s", err.s);
}

/* Return the file name of PATH, without its directory. */
static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Check that OUTPUT, the -o file, if any, is named FILE.c. */
static void
check_output(const char *output)
{
	const char *base;
	size_t n;

	if (!output)
		return;
	base = base_name(output);
	n = strlen(base);
	if (n < 3 || strcmp(base + n - 2, ".c") != 0)
		die("output file '%s' does not end in .c", output);
}

/* Read the command line into OPT; exit on any error in it. */
static void
parse_args(int argc, char **argv, struct options *opt)
{
	static const char *const strategies[] = {"auto", "unroll", "loops"};
	struct strbuf err = {0};
	int only_operands = 0, op_given = 0;
	const char *v;

	memset(opt, 0, sizeof *opt);
	opt->axis = BCAST_NUMPY_AXIS;
	opt->op = op_find("add");
	opt->dtype = dtype_find("f32");
	opt->unroll_limit = PLAN_UNROLL_DEFAULT;
	sb_add(&opt->command, "bcastgen");
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];

		size_t len = strlen(arg);

		if (!only_operands && !strchr(arg, '=') && len > 4
		    && strcmp(arg + len - 4, ".lua") == 0) {
			if (opt->spec)
				usage_error("two spec files: '%s' and '%s'", opt->spec, arg);
			opt->spec = arg;
			continue;
		} else if (only_operands || arg[0] != '-') {
			add_operand(opt, arg);
			sb_printf(&opt->operands, " %s", arg);
			continue;
		} else if (strcmp(arg, "--") == 0) {
			only_operands = 1;
			continue;
		} else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
			fputs(usage_text, stdout);
			exit(EXIT_OK);
		} else if (strcmp(arg, "--version") == 0) {
			puts("bcastgen " VERSION);
			exit(EXIT_OK);
		} else if (strcmp(arg, "--shape") == 0) {
			opt->shape = 1;
			continue;
		} else if (strcmp(arg, "--explain") == 0) {
			opt->explain = 1;
			continue;
		} else if (strcmp(arg, "--inplace") == 0) {
			opt->inplace = 1;
			sb_add(&opt->command, " --inplace");
		} else if ((v = option_value(argc, argv, &i, "--axis"))) {
			opt->axis_mode = 1;
			opt->axis = (int)parse_int(v, INT_MIN, INT_MAX, "axis");
			sb_printf(&opt->command, " --axis %d", opt->axis);
		} else if ((v = option_value(argc, argv, &i, "--op"))) {
			if (!(opt->op = op_find(v)))
				die("unknown op '%s' (see bcastgen --help)", v);
			op_given = 1;
		} else if ((v = option_value(argc, argv, &i, "--expr"))) {
			opt->expr_src = v;
		} else if ((v = option_value(argc, argv, &i, "--dtype"))) {
			opt->dtype = parse_dtype(v, "dtype");
		} else if ((v = option_value(argc, argv, &i, "--out-dtype"))) {
			opt->out_dtype = parse_dtype(v, "dtype");
		} else if ((v = option_value(argc, argv, &i, "--strategy"))) {
			int k = 0;

			while (k < 3 && strcmp(v, strategies[k]) != 0)
				k++;
			if (k == 3)
				die("unknown strategy '%s': expected auto, unroll or loops", v);
			opt->strategy = (enum plan_strategy)k;
			sb_printf(&opt->command, " --strategy %s", v);
		} else if ((v = option_value(argc, argv, &i, "--unroll-limit"))) {
			opt->unroll_limit = (unsigned long long)parse_int(v, 0,
			                    PLAN_UNROLL_CEILING, "unroll limit");
			sb_printf(&opt->command, " --unroll-limit %llu", opt->unroll_limit);
		} else if ((v = option_value(argc, argv, &i, "--out-shape"))) {
			strcpy(opt->out_shape.name, "out");
			if (shape_parse(v, &opt->out_shape.shape, "out", &err) != 0)
				die("bad --out-shape: %s", err.s);
			opt->has_out_shape = 1;
			sb_printf(&opt->command, " --out-shape %s", v);
		} else if ((v = option_value(argc, argv, &i, "--name"))) {
			opt->name = v;
		} else if ((v = option_value(argc, argv, &i, "-o"))
		           || (v = option_value(argc, argv, &i, "--output"))) {
			opt->output = v;
			continue;
		} else if ((v = option_value(argc, argv, &i, "-MT"))
		           || (v = option_value(argc, argv, &i, "--depfile-target"))) {
			opt->dep_target = v;
			continue;
		} else if ((v = option_value(argc, argv, &i, "-M"))
		           || (v = option_value(argc, argv, &i, "--depfile"))) {
			opt->depfile = v;
			continue;
		} else if ((v = option_value(argc, argv, &i, "--templates"))) {
			opt->tmpldir = v;
			continue;
		} else if ((v = option_value(argc, argv, &i, "--dump-lua"))) {
			opt->dump_lua = v;
			continue;
		} else {
			usage_error("unknown option '%s'", arg);
		}
		opt->kernel_options++;
	}
	if (opt->spec) {
		if (opt->nops > 0 || opt->kernel_options > 0)
			usage_error("with a spec file, operands and kernel options go in the spec");
		if (!opt->output)
			usage_error("a spec file needs -o FILE.c");
		check_output(opt->output);
		return;
	}
	if (opt->depfile && !opt->output)
		usage_error("-M needs -o: the depfile lists what the outputs depend on");
	check_output(opt->output);
	if (opt->nops == 0 && !opt->dump_lua)
		usage_error("no operands: give at least one NAME=SHAPE");
	if (op_given && opt->expr_src)
		usage_error("give --op or --expr, not both");
	if (opt->nops > 0)
		read_computation(opt);
	if (opt->expr_src) {
		sb_add(&opt->command, " --expr '");
		expr_text(&opt->command, &opt->expr, opt->expr.root);
		sb_printf(&opt->command, "' --dtype %s", opt->dtype->name);
	} else {
		sb_printf(&opt->command, " --op %s --dtype %s", opt->op->name, opt->dtype->name);
	}
	if (opt->out_dtype)
		sb_printf(&opt->command, " --out-dtype %s", opt->out_dtype->name);
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

/* Append the result shape as comma-separated sizes and a newline. */
static void
format_csv(struct strbuf *sb, const struct shape *s)
{
	for (int d = 0; d < s->rank; d++)
		sb_printf(sb, d ? ",%llu" : "%llu", (unsigned long long)s->dim[d]);
	sb_add(sb, "\n");
}

/*
** Check the resolution B against the options: --inplace needs the first
** operand's shape, --out-shape the result's. Append any error to ERR.
*/
static void
check_result(const struct options *opt, const struct bcast *b, struct strbuf *err)
{
	struct shape result;

	bcast_result_shape(b, &result);
	if (opt->inplace && !shape_equal(&result, &opt->ops[0].shape)) {
		sb_printf(err, "cannot write the result in place into '%s': "
		          "the result shape ", opt->ops[0].name);
		shape_format(err, &result);
		sb_printf(err, " is not the shape of '%s' ", opt->ops[0].name);
		shape_format(err, &opt->ops[0].shape);
	} else if (opt->has_out_shape && !shape_equal(&result, &opt->out_shape.shape)) {
		sb_add(err, "the result shape ");
		shape_format(err, &result);
		sb_add(err, " is not the --out-shape ");
		shape_format(err, &opt->out_shape.shape);
	}
}

/* Return 1 if S is a C identifier. */
static int
c_identifier(const char *s)
{
	if (!(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
	       == strlen(s);
}

/* Return 1 if S is a C or C++ keyword or a type the kernel code names. */
static int
reserved_name(const char *s)
{
	static const char *const words[] = {
		"auto", "break", "case", "char", "const", "continue", "default", "do",
		"double", "else", "enum", "extern", "float", "for", "goto", "if",
		"inline", "int", "long", "register", "restrict", "return", "short",
		"signed", "sizeof", "static", "struct", "switch", "typedef", "union",
		"unsigned", "void", "volatile", "while", "_Bool", "_Complex",
		"_Imaginary", "alignas", "alignof", "and", "and_eq", "asm", "bitand",
		"bitor", "bool", "catch", "char16_t", "char32_t", "class", "compl",
		"const_cast", "constexpr", "decltype", "delete", "dynamic_cast",
		"explicit", "export", "false", "friend", "mutable", "namespace", "new",
		"noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq",
		"private", "protected", "public", "reinterpret_cast", "static_assert",
		"static_cast", "template", "this", "thread_local", "throw", "true",
		"try", "typeid", "typename", "using", "virtual", "wchar_t", "xor",
		"xor_eq", "out", "NULL", "size_t", "int8_t", "int16_t", "int32_t",
		"int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", NULL
	};

	for (int i = 0; words[i]; i++)
		if (strcmp(s, words[i]) == 0)
			return 1;
	/* bc_ is the runtime's; _X and __ are the implementation's */
	return strncmp(s, "bc_", 3) == 0 || strncmp(s, "BC_", 3) == 0
	       || (s[0] == '_' && (s[1] == '_' || (s[1] >= 'A' && s[1] <= 'Z')));
}

/* Return 1 if S is all decimal digits (and not empty). */
static int
all_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

/*
** Return 1 if S is the name of a local the kernel declares: the loop
** counters i0, i1, ..., the temporaries t0, t1, ..., and for each operand x (and out) its pointers x_0,
** x_1, ... and its value x_v.
*/
static int
local_name(const char *s, const struct options *opt)
{
	if ((s[0] == 'i' || s[0] == 't') && all_digits(s + 1))
		return 1;
	for (int i = 0; i <= opt->nops; i++) {
		const char *p = i < opt->nops ? opt->ops[i].name : "out";
		size_t n = strlen(p);

		if (strncmp(s, p, n) == 0 && s[n] == '_'
		    && (strcmp(s + n + 1, "v") == 0 || all_digits(s + n + 1)))
			return 1;
	}
	return 0;
}

/*
** Describe the kernel written by -o into K from OPT and the resolution B,
** with PLAN to be built: names, dtypes, the op checked against them.
** Dies on any error in the description.
*/
static void
describe_kernel(struct kernel *k, const struct options *opt, const struct bcast *b,
                struct plan *plan)
{
	struct strbuf name = {0}, formula = {0};
	const char *base = base_name(opt->output);

	if (opt->name)
		sb_add(&name, opt->name);
	else
		sb_printf(&name, "%.*s", (int)strlen(base) - 2, base);
	if (!c_identifier(name.s))
		die("kernel name '%s' is not a C identifier%s", name.s,
		    opt->name ? "" : " (it comes from -o; set it with --name)");
	if (reserved_name(name.s) || local_name(name.s, opt) || name.s[0] == '_')
		die("kernel name '%s' is reserved: choose another with --name", name.s);
	memset(k, 0, sizeof *k);
	k->name = name.s;
	k->expr = (struct expr *)&opt->expr;
	if (opt->expr_src) {
		expr_text(&formula, k->expr, k->expr->root);
	} else {
		const char *names[BCAST_MAX_OPERANDS];

		for (int i = 0; i < opt->nops; i++)
			names[i] = opt->ops[i].name;
		op_formula(&formula, opt->op, names, opt->nops);
	}
	k->formula = formula.s;
	k->dtype = opt->dtype;
	k->nin = opt->nops;
	k->inplace = opt->inplace;
	k->b = b;
	k->plan = plan;
	k->out_dtype = opt->out_dtype ? opt->out_dtype : k->expr->node[k->expr->root].type;
	for (int i = 0; i < opt->nops; i++) {
		const char *t = opt->ops[i].dtype;

		k->in_dtype[i] = t[0] ? dtype_find(t) : opt->dtype;
		if (reserved_name(opt->ops[i].name))
			die("operand name '%s' is reserved in kernels (a keyword, a type, "
			    "'out', or bc_...)", opt->ops[i].name);
		if (local_name(opt->ops[i].name, opt))
			die("operand name '%s' clashes with a local of the kernel (i0, i1, "
			    "..., t0, t1, ..., and x_0, x_1, ..., x_v for each operand x)", opt->ops[i].name);
		if (strcmp(opt->ops[i].name, k->name) == 0)
			die("operand '%s' has the kernel's name", k->name);
	}
	if (opt->inplace && k->in_dtype[0] != k->out_dtype)
		die("--inplace writes the result into '%s', whose dtype %s is not the "
		    "result's %s", opt->ops[0].name, k->in_dtype[0]->name, k->out_dtype->name);
}

/*
** Resolve the broadcasting of OPT's operands into B (copy stretches its
** operand to --out-shape) and check the result against the options.
** Append any error to ERR.
*/
static void
resolve(struct options *opt, struct bcast *b, struct strbuf *err)
{
	int nops = opt->nops;

	if (opt->op->kind == OP_COPY && opt->has_out_shape && !opt->axis_mode)
		opt->ops[nops++] = opt->out_shape;	/* B keeps a pointer to them */
	bcast_resolve(b, opt->ops, nops, opt->axis_mode, opt->axis);
	if (b->err)
		bcast_format_error(err, b);
	else
		check_result(opt, b, err);
}

/*
** Plan the kernel OPT describes, resolved as B, and append its function
** and its part of the header, rendered by the templates, to C and H.
** ORIGIN, if not NULL, says where it was declared. Set *LIBM if it needs
** bc_math.h. Dies on any error.
*/
static void
render_kernel(lua_State *L, struct options *opt, const struct bcast *b,
              const char *origin, struct strbuf *c, struct strbuf *h, int *libm)
{
	struct kernel k;
	struct plan plan;
	struct strbuf err = {0};

	describe_kernel(&k, opt, b, &plan);
	if (plan_build(&plan, b, opt->nops, opt->strategy, opt->unroll_limit, k.expr->n,
	               &err) != 0)
		die("%s", err.s);
	if (plan.strategy == PLAN_LOOPS)
		k.ntemps = expr_hoist(k.expr, plan.hoist, plan.nloops, &k.temps);
	sb_printf(&opt->command, " --name %s%s", k.name, opt->operands.s);
	if (origin)
		sb_printf(&opt->command, " (%s)", origin);
	k.command = opt->command.s;
	model_push_kernel(L, &k);
	lua_pushvalue(L, -1);
	if (lhost_render(L, "kernel.c.lt", c) != 0 || lhost_render(L, "kernel.h.lt", h) != 0)
		exit(EXIT_INPUT);
	*libm |= expr_needs_libm(k.expr);
	plan_free(&plan);
	free(k.temps);
	free((char *)k.name);	/* describe_kernel's */
	free((char *)k.formula);
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

/* Set field KEY of the table on top to the sequence PARTS[0..N), each without its final newline. */
static void
set_parts(lua_State *L, const char *key, const struct strbuf *parts, int n)
{
	lua_createtable(L, n, 0);
	for (int i = 0; i < n; i++) {
		size_t len = parts[i].len;

		lua_pushlstring(L, parts[i].s ? parts[i].s : "", len && parts[i].s[len - 1] == '\n' ? len - 1 : len);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, key);
}

/*
** Write OPT's output FILE.c and FILE.h from the N kernels' parts C and H,
** and the depfile if asked, atomically: all of them or none. LIBM: some
** kernel needs bc_math.h. Exits 1 on any error.
*/
static void
write_files(lua_State *L, const struct options *opt, const struct strbuf *c,
            const struct strbuf *h, int n, int libm)
{
	struct strbuf ctext = {0}, htext = {0}, hpath = {0}, guard = {0}, dep = {0};
	struct strbuf phony = {0};
	const char *base = base_name(opt->output);
	const char *const *read;
	struct output out = {0};
	int nread;

	sb_printf(&hpath, "%.*s.h", (int)strlen(opt->output) - 2, opt->output);
	if (base[0] >= '0' && base[0] <= '9')
		sb_add(&guard, "H_");
	for (const char *p = base; p[2]; p++)
		sb_printf(&guard, "%c", (*p >= 'a' && *p <= 'z') ? *p - 'a' + 'A'
		          : ((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')) ? *p : '_');
	sb_add(&guard, "_H");
	lua_createtable(L, 0, 6);
	lua_pushstring(L, base);
	lua_setfield(L, -2, "file");
	lua_pushstring(L, base_name(hpath.s));
	lua_setfield(L, -2, "header");
	lua_pushstring(L, guard.s);
	lua_setfield(L, -2, "guard");
	lua_pushboolean(L, libm);
	lua_setfield(L, -2, "libm");
	if (opt->spec) {
		lua_pushstring(L, base_name(opt->spec));
		lua_setfield(L, -2, "spec");
	}
	set_parts(L, "kernels", c, n);
	lua_pushvalue(L, -1);
	if (lhost_render(L, "file.c.lt", &ctext) != 0)
		exit(EXIT_INPUT);
	set_parts(L, "kernels", h, n);
	if (lhost_render(L, "file.h.lt", &htext) != 0)
		exit(EXIT_INPUT);
	nread = lhost_files_read(&read);	/* all rendering done */
	if (output_add(&out, opt->output, &ctext) != 0 || output_add(&out, hpath.s, &htext) != 0)
		goto fail;
	if (opt->depfile) {
		/* TARGETS: PREREQUISITES, then an empty rule for each, as gcc -MP */
		if (opt->dep_target) {
			make_path(&dep, opt->dep_target);
		} else {
			make_path(&dep, opt->output);
			sb_add(&dep, " ");
			make_path(&dep, hpath.s);
		}
		sb_add(&dep, ":");
		for (int i = -1; i < nread; i++) {
			const char *p = i < 0 ? opt->spec : read[i];

			if (p) {
				sb_add(&dep, " ");
				make_path(&dep, p);
				sb_add(&phony, "\n");
				make_path(&phony, p);
				sb_add(&phony, ":\n");
			}
		}
		sb_add(&dep, "\n");
		if (phony.s)
			sb_add(&dep, phony.s);
		if (output_add(&out, opt->depfile, &dep) != 0)
			goto fail;
	}
	if (output_commit(&out) != 0)
		goto fail;
	sb_free(&ctext);
	sb_free(&htext);
	sb_free(&hpath);
	sb_free(&guard);
	sb_free(&dep);
	sb_free(&phony);
	return;
fail:
	output_abort(&out);
	exit(EXIT_INPUT);
}

/* Free what parse_args allocated in OPT. */
static void
free_options(struct options *opt)
{
	expr_free(&opt->expr);
	sb_free(&opt->command);
	sb_free(&opt->operands);
}

/*
** Generate every kernel of the spec file OPT->spec into OPT->output.
** Errors name the spec and the line of the kernel.
*/
static void
run_spec(lua_State *L, const struct options *opt)
{
	struct spec spec;
	struct strbuf *c, *h, where = {0};
	int libm = 0;

	spec_read(opt->spec, &spec);
	c = xmalloc((size_t)spec.n * sizeof *c);
	h = xmalloc((size_t)spec.n * sizeof *h);
	memset(c, 0, (size_t)spec.n * sizeof *c);
	memset(h, 0, (size_t)spec.n * sizeof *h);
	for (int i = 0; i < spec.n; i++) {
		struct spec_kernel *sk = &spec.kernel[i];
		struct options *kopt = xmalloc(sizeof *kopt);
		struct bcast *b = xmalloc(sizeof *b);
		struct strbuf err = {0}, origin = {0};

		sb_free(&where);
		sb_printf(&where, "%s:%d", opt->spec, sk->line);
		progname = where.s;	/* errors now name the kernel's line */
		in_spec = 1;
		parse_args(sk->argc, sk->argv, kopt);
		kopt->output = opt->output;
		resolve(kopt, b, &err);
		if (err.s)
			die("kernel '%s': %s", sk->name, err.s);
		sb_printf(&origin, "kernel '%s' of %s, line %d", sk->name,
		          base_name(opt->spec), sk->line);
		render_kernel(L, kopt, b, origin.s, &c[i], &h[i], &libm);
		sb_free(&origin);
		free_options(kopt);
		free(kopt);
		free(b);
	}
	progname = "bcastgen";
	in_spec = 0;
	write_files(L, opt, c, h, spec.n, libm);
	for (int i = 0; i < spec.n; i++) {
		sb_free(&c[i]);
		sb_free(&h[i]);
	}
	free(c);
	free(h);
	sb_free(&where);
	spec_free(&spec);
}

int
main(int argc, char **argv)
{
	static struct options opt;
	static struct bcast b;
	struct strbuf out = {0}, err = {0};
	lua_State *L = NULL;

	/* Read the kernel description: operands and options, or a spec. */
	parse_args(argc, argv, &opt);
	if (opt.tmpldir || opt.dump_lua || opt.explain || opt.output)
		L = lhost_open(opt.tmpldir);
	if (opt.dump_lua) {
		if (lhost_dump_lua(L, opt.dump_lua, &out) != 0)
			exit(EXIT_INPUT);
		finish(out.s, EXIT_OK);
	}
	if (opt.spec) {
		run_spec(L, &opt);
		lhost_close(L);
		finish(NULL, EXIT_OK);
	}

	/* Resolve the broadcasting, explaining it if asked. */
	resolve(&opt, &b, &err);
	if (opt.explain) {
		model_push_bcast(L, &b, opt.inplace);
		if (lhost_render(L, "explain.txt.lt", &out) != 0)
			exit(EXIT_INPUT);
	}
	if (err.s) {
		if (out.s)
			fputs(out.s, stdout);
		fflush(stdout);
		die("%s", err.s);
	}

	/* Plan the kernel, render it and write it. */
	if (opt.output) {
		struct strbuf c = {0}, h = {0};
		int libm = 0;

		render_kernel(L, &opt, &b, NULL, &c, &h, &libm);
		write_files(L, &opt, &c, &h, 1, libm);
	}

	/* Print what was asked for. */
	if (opt.shape) {
		struct shape result;

		bcast_result_shape(&b, &result);
		format_csv(&out, &result);
	} else if (!opt.explain && !opt.output) {
		struct shape result;

		bcast_result_shape(&b, &result);
		for (int i = 0; i < opt.nops; i++) {
			sb_printf(&out, "%s", opt.ops[i].name);
			shape_format(&out, &opt.ops[i].shape);
			sb_add(&out, " ");
		}
		sb_add(&out, "-> ");
		shape_format(&out, &result);
		sb_add(&out, "\n");
	}
	if (L)
		lhost_close(L);
	finish(out.s, EXIT_OK);
	return 0;
}
