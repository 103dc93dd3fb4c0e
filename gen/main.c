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
"\n"
"Resolve the broadcasting of the operands' shapes at build time and\n"
"generate a C kernel for exactly those shapes. SHAPE is comma-separated\n"
"sizes, outermost first: x=2,3,1,5; s= is a scalar (rank 0); sizes may be\n"
"0. Names are distinct C identifiers. Without -o, --shape or --explain,\n"
"print the operands and the result shape.\n"
"\n"
"actions:\n"
"  -o FILE.c         write the kernel to FILE.c and its header to FILE.h\n"
"  --shape           print only the result shape, as 2,3,4 (empty line for rank 0)\n"
"  --explain         walk through the broadcast rules step by step\n"
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
"unroll past the limit, a template error, a file that cannot be written),\n"
"and then no file is written; 2 bad usage (an unknown option, a missing\n"
"argument).\n";

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
		die_at(where.s, "%s\n%s", err.s, caret.s);
	}
	if (r != 0)
		die("%s", err.s);
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

		if (only_operands || arg[0] != '-') {
			add_operand(opt, arg);
			sb_printf(&opt->operands, " %s", arg);
		} else if (strcmp(arg, "--") == 0) {
			only_operands = 1;
		} else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
			fputs(usage_text, stdout);
			exit(EXIT_OK);
		} else if (strcmp(arg, "--version") == 0) {
			puts("bcastgen " VERSION);
			exit(EXIT_OK);
		} else if (strcmp(arg, "--shape") == 0) {
			opt->shape = 1;
		} else if (strcmp(arg, "--explain") == 0) {
			opt->explain = 1;
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
	struct strbuf header = {0}, name = {0}, formula = {0};
	const char *base = strrchr(opt->output, '/');
	size_t n;

	base = base ? base + 1 : opt->output;
	n = strlen(base);
	if (n < 3 || strcmp(base + n - 2, ".c") != 0)
		die("output file '%s' does not end in .c", opt->output);
	sb_printf(&header, "%.*s.h", (int)(n - 2), base);
	if (opt->name)
		sb_add(&name, opt->name);
	else
		sb_printf(&name, "%.*s", (int)(n - 2), base);
	if (!c_identifier(name.s))
		die("kernel name '%s' is not a C identifier%s", name.s,
		    opt->name ? "" : " (it comes from -o; set it with --name)");
	if (reserved_name(name.s) || local_name(name.s, opt) || name.s[0] == '_')
		die("kernel name '%s' is reserved: choose another with --name", name.s);
	memset(k, 0, sizeof *k);
	k->name = name.s;
	k->header = header.s;
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
** Render the kernel K's .c and .h and write them to OUTPUT (FILE.c) and
** FILE.h, atomically. Return 0, or -1 with an error printed and nothing
** written.
*/
static int
write_kernel(lua_State *L, const struct kernel *k, const char *output)
{
	struct strbuf c = {0}, h = {0}, hpath = {0};
	struct output out = {0};
	int r;

	model_push_kernel(L, k);
	lua_pushvalue(L, -1);
	if (lhost_render(L, "kernel.c.lt", &c) != 0 || lhost_render(L, "kernel.h.lt", &h) != 0)
		return -1;
	sb_printf(&hpath, "%.*s.h", (int)strlen(output) - 2, output);
	r = output_add(&out, output, &c) != 0 || output_add(&out, hpath.s, &h) != 0
	    || output_commit(&out) != 0 ? -1 : 0;
	if (r != 0)
		output_abort(&out);
	sb_free(&c);
	sb_free(&h);
	sb_free(&hpath);
	return r;
}

int
main(int argc, char **argv)
{
	static struct options opt;
	static struct bcast b;
	static struct plan plan;
	static struct kernel k;
	struct strbuf out = {0}, err = {0};
	lua_State *L = NULL;
	int nops;

	/* Read the kernel description: operands and options. */
	parse_args(argc, argv, &opt);
	if (opt.tmpldir || opt.dump_lua || opt.explain || opt.output)
		L = lhost_open(opt.tmpldir);
	if (opt.dump_lua) {
		if (lhost_dump_lua(L, opt.dump_lua, &out) != 0)
			exit(EXIT_INPUT);
		finish(out.s, EXIT_OK);
	}

	/* Resolve the broadcasting; copy stretches its operand to --out-shape. */
	nops = opt.nops;
	if (opt.op->kind == OP_COPY && opt.has_out_shape && !opt.axis_mode)
		opt.ops[nops++] = opt.out_shape;
	bcast_resolve(&b, opt.ops, nops, opt.axis_mode, opt.axis);
	if (b.err)
		bcast_format_error(&err, &b);
	else
		check_result(&opt, &b, &err);
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
		describe_kernel(&k, &opt, &b, &plan);
		if (plan_build(&plan, &b, opt.nops, opt.strategy, opt.unroll_limit, &err) != 0)
			die("%s", err.s);
		if (plan.strategy == PLAN_LOOPS)
			k.ntemps = expr_hoist(k.expr, plan.hoist, plan.nloops, &k.temps);
		sb_printf(&opt.command, " --name %s%s", k.name, opt.operands.s);
		k.command = opt.command.s;
		if (write_kernel(L, &k, opt.output) != 0)
			exit(EXIT_INPUT);
		plan_free(&plan);
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
