/*
** fields.c: the options that describe a kernel, one row each. A row
** names the field (a spec kernel's "out_dtype"; the command line's
** option is the same name with '-' for '_': "--out-dtype"), its kind,
** where its value lives in struct desc, its limits or the names of its
** values, when the banner shows it, and its lines of --help. Each kind
** (an integer, a size, one of a few names, ...) has one function that
** sets a value from its text and one that shows it, so a value means
** the same and fails with the same message from the command line or
** from a spec, and a new option is one row.
**
** The rows' order is the canonical order of the options in the command
** that a kernel's banner shows, so the same kernel gives the same bytes
** whatever the order its options or fields were written in; a spec's
** fields are set in that order too. --help lists the rows in the order
** of their help_at.
*/
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "desc.h"

/* What a row's value is, and what holds it: each kind has a row in kinds[]. */
enum field_kind {
	FIELD_FLAG,		/* no value: an int set to 1 */
	FIELD_INTEGER,		/* an int from lo to hi */
	FIELD_SIZE,		/* bytes from 1 to hi, "32M": a uint64_t */
	FIELD_ENUM,		/* one of names[0 .. nnames-1]: an enum */
	FIELD_LIST,		/* loop numbers, "2,0,1": an int[] and its count */
	FIELD_SHAPE,		/* sizes, "2,3": a struct shape */
	FIELD_OP,		/* an op's name: const struct op * */
	FIELD_DTYPE,		/* a dtype's name: const struct dtype * */
	FIELD_TARGET,		/* a target's name: const struct target * */
	FIELD_TUNE,		/* a tuning's name: const struct tuning * */
	FIELD_EXPR,		/* an expression: char *, shown as parsed */
	FIELD_QUANT		/* "x=0.0472,-3", one per operand and the output: a
				   struct quant_given appended to a list */
};

/* When the command in the banner shows a row. */
enum field_shown {
	SHOWN_IF_GIVEN,		/* the default */
	SHOWN_ALWAYS,		/* given or not: its default is part of the kernel */
	SHOWN_NEVER		/* the kernel is the same without it */
};

/* A kernel option: a row of the table below; a member left out is 0. */
struct field {
	const char *name;	/* a spec kernel's field: "out_dtype" */
	enum field_kind kind;
	size_t at;		/* where the value is: an offset in struct desc */
	size_t count_at;	/* FIELD_LIST: where the count of values is */
	long long lo, hi;	/* FIELD_INTEGER: the limits; FIELD_SIZE: hi */
	const char *const *names;	/* FIELD_ENUM: in the enum's order */
	int nnames;
	int in_lang;		/* its messages speak --lang, not English */
	enum field_shown shown;
	int help_at;		/* its place in --help's list of them */
	const char *arg;	/* --help: its value's name, "N"; NULL for a flag */
	const char *help;	/* --help: its lines, without their indent */
};

/* The most bytes of a row's name, and of its words in messages. */
#define FIELD_NAME_MAX 31

/* The messages of the kinds that speak --lang, in each language. */
static const struct field_words {
	const char *not_integer;	/* what, the text */
	const char *out_of_range;	/* what, the text, lowest, highest */
	const char *bad_shape;		/* the field, why */
} field_words[NLANGS] = {
	{
		"bad %s '%s': expected an integer",
		"%s %s is out of range: it must be from %lld to %lld",
		"bad %s: %s",
	}, {
		"%s '%s' 不对：应当是一个整数",
		"%s %s 超出了范围：必须在 %lld 到 %lld 之间",
		"%s：%s",
	}
};

/* Return the member of D at offset AT: a row's value, or its count. */
static void *
member(struct desc *d, size_t at)
{
	return (char *)d + at;
}

/* Return the member of D at offset AT, to read. */
static const void *
member_in(const struct desc *d, size_t at)
{
	return (const char *)d + at;
}

/* Return the language of row F's messages for D. */
static enum lang
lang_of(const struct desc *d, const struct field *f)
{
	return f->in_lang ? d->lang : LANG_EN;
}

/*
** Write row F's name as messages say it, '_' as a space ("unroll
** limit"), into BUF, which holds FIELD_NAME_MAX bytes and a NUL; return BUF.
*/
static const char *
words(const struct field *f, char *buf)
{
	int k;

	for (k = 0; f->name[k] && k < FIELD_NAME_MAX; k++)
		buf[k] = f->name[k] == '_' ? ' ' : f->name[k];
	buf[k] = '\0';
	return buf;
}

/* Append the command line's option of row F: "--out-dtype". */
static void
add_option(struct strbuf *sb, const struct field *f)
{
	sb_add(sb, "--");
	for (const char *p = f->name; *p; p++)
		sb_addn(sb, *p == '_' ? "-" : p, 1);
}

/* Append row F's option as the banner's command shows it: " --out-dtype". */
static void
show_option(struct strbuf *sb, const struct field *f)
{
	sb_add(sb, " ");
	add_option(sb, f);
}

/*
** Parse S as a whole integer in [LO, HI] into *V, or append an error in
** LANG naming WHAT. As in shapes: decimal digits only, with a '-' before
** them for a negative number; no spaces, no '+'.
*/
static int
parse_int(const char *s, long long lo, long long hi, const char *what, enum lang lang,
          long long *v, struct strbuf *err)
{
	const char *digits = s + (*s == '-');
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 10);
	if (*digits < '0' || *digits > '9' || *end != '\0') {
		sb_printf(err, field_words[lang].not_integer, what, s);
		return -1;
	}
	if (errno == ERANGE || *v < lo || *v > hi) {
		sb_printf(err, field_words[lang].out_of_range, what, s, lo, hi);
		return -1;
	}
	return 0;
}

/* FIELD_FLAG: set the int to 1; the value (a flag has none) is ignored. */
static int
set_flag(struct desc *d, const struct field *f, const char *v, struct strbuf *err)
{
	int *p = member(d, f->at);

	(void)v, (void)err;
	*p = 1;
	return 0;
}

/* FIELD_FLAG: " --inplace". */
static void
show_flag(struct strbuf *sb, const struct desc *d, const struct field *f)
{
	(void)d;
	show_option(sb, f);
}

/* FIELD_INTEGER: an integer from f->lo to f->hi, which an int holds. */
static int
set_integer(struct desc *d, const struct field *f, const char *v, struct strbuf *err)
{
	char what[FIELD_NAME_MAX + 1];
	int *p = member(d, f->at);
	long long n;

	if (parse_int(v, f->lo, f->hi, words(f, what), lang_of(d, f), &n, err) != 0)
		return -1;
	*p = (int)n;
	return 0;
}

/* FIELD_INTEGER: " --axis -1". */
static void
show_integer(struct strbuf *sb, const struct desc *d, const struct field *f)
{
	const int *p = member_in(d, f->at);

	show_option(sb, f);
	sb_printf(sb, " %d", *p);
}

/*
** FIELD_SIZE: a number of bytes from 1 to f->hi (a multiple of 2^30,
** below 2^60): "33554432", or with a binary suffix, "32M"; K, M and G
** are 2^10, 2^20, 2^30.
*/
static int
set_size(struct desc *d, const struct field *f, const char *v, struct strbuf *err)
{
	static const char suffixes[] = "KMG";
	char what[FIELD_NAME_MAX + 1];
	uint64_t *bytes = member(d, f->at), hi = (uint64_t)f->hi, n = 0;
	const char *p = v, *at;
	int shift = 0;

	while (*p >= '0' && *p <= '9' && n <= hi)
		n = n * 10 + (uint64_t)(*p++ - '0');
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p && (at = strchr(suffixes, *p)) != NULL && p[1] == '\0') {
		shift = 10 * (int)(at - suffixes + 1);
		p++;
	}
	if (p == v || *p != '\0' || !(*v >= '0' && *v <= '9')) {
		sb_printf(err, "bad %s '%s': expected a number of bytes, such as "
		          "33554432 or 32M", words(f, what), v);
		return -1;
	}
	if (n == 0 || n > hi >> shift) {
		sb_printf(err, "%s %s is out of range: it must be from 1 byte to %lluG",
		          words(f, what), v, (unsigned long long)(hi >> 30));
		return -1;
	}
	*bytes = n << shift;
	return 0;
}

/* FIELD_SIZE: " --cache-size 33554432", in bytes. */
static void
show_size(struct strbuf *sb, const struct desc *d, const struct field *f)
{
	const uint64_t *bytes = member_in(d, f->at);

	show_option(sb, f);
	sb_printf(sb, " %llu", (unsigned long long)*bytes);
}

/*
** FIELD_ENUM writes an enum through an int: a compiler makes each enum
** an int or an unsigned int (unless told to make them short), which
** this type checks for size; it does not compile otherwise.
*/
typedef char enum_is_int[sizeof(enum plan_strategy) == sizeof(int)
                         && sizeof(enum plan_stream_ask) == sizeof(int)
                         && sizeof(enum plan_goal) == sizeof(int)
                         && sizeof(enum lang) == sizeof(int)
                         && sizeof(enum quant_activation) == sizeof(int)
                         && sizeof(enum quant_rounding) == sizeof(int) ? 1 : -1];

/* FIELD_ENUM: one of f->names, stored as its index. */
static int
set_enum(struct desc *d, const struct field *f, const char *v, struct strbuf *err)
{
	char what[FIELD_NAME_MAX + 1];
	int *p = member(d, f->at), k = find_name(f->names, f->nnames, v);

	if (k >= 0) {
		*p = k;
		return 0;
	}
	sb_printf(err, "bad %s '%s': expected ", words(f, what), v);
	for (k = 0; k < f->nnames; k++)
		sb_printf(err, "%s%s", k == 0 ? "" : k < f->nnames - 1 ? ", " : " or ",
		          f->names[k]);
	return -1;
}

/* FIELD_ENUM: " --stream off". */
static void
show_enum(struct strbuf *sb, const struct desc *d, const struct field *f)
{
	const int *p = member_in(d, f->at);

	show_option(sb, f);
	sb_printf(sb, " %s", f->names[*p]);
}

/*
** FIELD_LIST: "2,0,1", loop numbers, outermost first; whether they are
** a permutation of the plan's loops is checked when those are known. A
** number past the largest rank is kept as SHAPE_MAX_RANK: out of range.
*/
static int
set_list(struct desc *d, const struct field *f, const char *v, struct strbuf *err)
{
	char what[FIELD_NAME_MAX + 1];
	int *order = member(d, f->at), *count = member(d, f->count_at);
	struct strbuf why = {0};
	struct shape s;

	if (shape_parse(v, &s, words(f, what), lang_of(d, f), &why) != 0 || s.rank == 0) {
		sb_printf(err, "bad %s '%s': expected loop numbers such as 1,0,2",
		          what, v);
		sb_free(&why);
		return -1;
	}
	for (int k = 0; k < s.rank; k++)
		order[k] = s.dim[k] < SHAPE_MAX_RANK ? (int)s.dim[k] : SHAPE_MAX_RANK;
	*count = s.rank;
	return 0;
}

/* FIELD_LIST: " --loop-order 2,0,1". */
static void
show_list(struct strbuf *sb, const struct desc *d, const struct field *f)
{
	const int *order = member_in(d, f->at), *count = member_in(d, f->count_at);

	show_option(sb, f);
	for (int k = 0; k < *count; k++)
		sb_printf(sb, k ? ",%d" : " %d", order[k]);
}

/* FIELD_SHAPE: "2,3", sizes as an operand's; a message names the option or "shape". */
static int
set_shape(struct desc *d, const struct field *f, const char *v, struct strbuf *err)
{
	struct strbuf why = {0}, option = {0};

	if (shape_parse(v, member(d, f->at), NULL, lang_of(d, f), &why) == 0)
		return 0;
	if (d->source == FROM_CLI)
		add_option(&option, f);
	sb_printf(err, field_words[lang_of(d, f)].bad_shape,
	          d->source == FROM_CLI ? option.s : "shape", why.s);
	sb_free(&why);
	sb_free(&option);
	return -1;
}

/* FIELD_SHAPE: " --out-shape 2,3". */
static void
show_shape(struct strbuf *sb, const struct desc *d, const struct field *f)
{
	show_option(sb, f);
	sb_add(sb, " ");
	shape_format_sizes(sb, member_in(d, f->at));
}

/* FIELD_OP: an op by any of its names. */
static int
set_op(struct desc *d, const struct field *f, const char *v, struct strbuf *err)
{
	const struct op **op = member(d, f->at);

	if ((*op = op_find(v)) != NULL)
		return 0;
	sb_printf(err, "unknown op '%s' (see bcastgen --help)", v);
	return -1;
}

/* FIELD_OP: " --op add", by its NumPy name, unless an --expr computes instead. */
static void
show_op(struct strbuf *sb, const struct desc *d, const struct field *f)
{
	const struct op *const *op = member_in(d, f->at);

	if (d->expr_src)
		return;
	show_option(sb, f);
	sb_printf(sb, " %s", (*op)->name);
}

/* FIELD_DTYPE: a dtype by its name, "f32". */
static int
set_dtype(struct desc *d, const struct field *f, const char *v, struct strbuf *err)
{
	const struct dtype **t = member(d, f->at);

	if ((*t = dtype_find(v)) != NULL)
		return 0;
	sb_printf(err, "unknown dtype '%s': expected ", v);
	dtype_list(err);
	return -1;
}

/* FIELD_DTYPE: " --dtype f32". */
static void
show_dtype(struct strbuf *sb, const struct desc *d, const struct field *f)
{
	const struct dtype *const *t = member_in(d, f->at);

	show_option(sb, f);
	sb_printf(sb, " %s", (*t)->name);
}

/* FIELD_TARGET: a row of the target table (target.c) by its name. */
static int
set_target(struct desc *d, const struct field *f, const char *v, struct strbuf *err)
{
	const struct target **t = member(d, f->at);

	if ((*t = target_find(v)) != NULL)
		return 0;
	sb_printf(err, "unknown target '%s': expected ", v);
	target_names(err);
	sb_add(err, " (bcastgen --target list)");
	return -1;
}

/* FIELD_TARGET: " --target generic". */
static void
show_target(struct strbuf *sb, const struct desc *d, const struct field *f)
{
	const struct target *const *t = member_in(d, f->at);

	show_option(sb, f);
	sb_printf(sb, " %s", (*t)->name);
}

/* FIELD_TUNE: a row of the tunings (target.c) by its name. */
static int
set_tune(struct desc *d, const struct field *f, const char *v, struct strbuf *err)
{
	const struct tuning **t = member(d, f->at);

	if ((*t = tuning_find(v)) != NULL)
		return 0;
	sb_printf(err, "unknown tuning '%s': expected ", v);
	tuning_names(err);
	sb_add(err, " (bcastgen --tune list)");
	return -1;
}

/* FIELD_TUNE: " --tune cascadelake". */
static void
show_tune(struct strbuf *sb, const struct desc *d, const struct field *f)
{
	const struct tuning *const *t = member_in(d, f->at);

	show_option(sb, f);
	sb_printf(sb, " %s", (*t)->name);
}

/* FIELD_EXPR: the text, kept to be parsed once the operands are known. */
static int
set_expr(struct desc *d, const struct field *f, const char *v, struct strbuf *err)
{
	char **text = member(d, f->at);

	(void)err;
	free(*text);
	*text = xstrdup(v);
	return 0;
}

/*
** FIELD_EXPR: " --expr 'max(x*w + b, 0)'" as parsed, spaces folded, so
** that it reads as one word. Assumes that desc_finish parsed it.
*/
static void
show_expr(struct strbuf *sb, const struct desc *d, const struct field *f)
{
	show_option(sb, f);
	sb_add(sb, " '");
	expr_text(sb, &d->expr, d->expr.root);
	sb_add(sb, "'");
}

/*
** FIELD_QUANT: "NAME=SCALE,ZERO_POINT" appended to the list at f->at,
** its count at f->count_at; the names are checked against the operands
** in desc_finish.
*/
static int
set_quant(struct desc *d, const struct field *f, const char *v, struct strbuf *err)
{
	struct quant_given **list = member(d, f->at), q;
	int *count = member(d, f->count_at);

	if (quant_parse(v, &q, err) != 0)
		return -1;
	*list = xrealloc(*list, (size_t)(*count + 1) * sizeof **list);
	(*list)[(*count)++] = q;
	return 0;
}

/* FIELD_QUANT: " --quant x=0.0472000021,-3 --quant ...", in the list's order. */
static void
show_quant(struct strbuf *sb, const struct desc *d, const struct field *f)
{
	const struct quant_given *const *list = member_in(d, f->at);
	const int *count = member_in(d, f->count_at);

	for (int k = 0; k < *count; k++)
		quant_show(sb, &(*list)[k]);
}

/* Each kind's two functions: set from a text, or append to a command. */
static const struct kind {
	int (*set)(struct desc *d, const struct field *f, const char *v,
	           struct strbuf *err);
	void (*show)(struct strbuf *sb, const struct desc *d, const struct field *f);
} kinds[] = {
	[FIELD_FLAG] = {set_flag, show_flag},
	[FIELD_INTEGER] = {set_integer, show_integer},
	[FIELD_SIZE] = {set_size, show_size},
	[FIELD_ENUM] = {set_enum, show_enum},
	[FIELD_LIST] = {set_list, show_list},
	[FIELD_SHAPE] = {set_shape, show_shape},
	[FIELD_OP] = {set_op, show_op},
	[FIELD_DTYPE] = {set_dtype, show_dtype},
	[FIELD_TARGET] = {set_target, show_target},
	[FIELD_TUNE] = {set_tune, show_tune},
	[FIELD_EXPR] = {set_expr, show_expr},
	[FIELD_QUANT] = {set_quant, show_quant},
};

/* The names of the enums' values, in their order (plan_strategy_name's too). */
static const char *const strategy_names[PLAN_BLOCK + 1] = {
	"auto", "unroll", "loops", "block"
};
static const char *const stream_names[STREAM_OFF + 1] = {"auto", "on", "off"};
static const char *const goal_names[GOAL_SIZE + 1] = {"speed", "size"};

/* Where a row's value is in struct desc. */
#define AT(m) offsetof(struct desc, m)

/*
** The rows: name, kind and where the value is; its limits, names and
** ways; its place in --help, its value's name there and its text, in
** which %OPS, %FUNCS, %DTYPES and %TARGETS stand for lists that cli.c
** reads from their tables.
*/
static const struct field fields[] = {
	{
		.name = "inplace", .kind = FIELD_FLAG, .at = AT(inplace),
		.help_at = 6,
		.help = "the result is written into the first operand, whose\n"
		        "shape it must have",
	}, {
		.name = "axis", .kind = FIELD_INTEGER, .at = AT(axis),
		.lo = INT_MIN, .hi = INT_MAX, .in_lang = 1,
		.help_at = 5, .arg = "K",
		.help = "Paddle's elementwise axis for two operands x, y\n"
		        "(-1 is the NumPy rule, the default without --axis),\n"
		        "from -R to R-1 (R the larger rank); an axis k below -1\n"
		        "means |rank x - rank y| + k + 1, as in Paddle",
	}, {
		.name = "strategy", .kind = FIELD_ENUM, .at = AT(strategy),
		.names = strategy_names, .nnames = PLAN_BLOCK + 1,
		.help_at = 8, .arg = "S",
		.help = "unroll (a statement per element), loops (a loop nest,\n"
		        "the innermost trip count a multiple of the vector\n"
		        "width, the rest after it), block (loops around their\n"
		        "innermost loops written out, at most the target's\n"
		        "block) or\n"
		        "auto (default): unroll up to the limit, else block\n"
		        "when the innermost loop fits in one and its trip\n"
		        "count is not a multiple of the vector width (or the\n"
		        "target writes short loops out: its short column),\n"
		        "widened to one; else loops",
	}, {
		.name = "unroll_limit", .kind = FIELD_INTEGER, .at = AT(unroll_limit),
		.lo = 0, .hi = PLAN_UNROLL_CEILING,
		.help_at = 9, .arg = "N",
		.help = "elements unrolled at most (default: the target's\n"
		        "largest block, --target list's block; at most 512)",
	}, {
		.name = "loop_order", .kind = FIELD_LIST, .at = AT(loop_order),
		.count_at = AT(nloop_order),
		.help_at = 10, .arg = "P",
		.help = "run the plan's loops in the order P, outermost first:\n"
		        "a permutation of them, such as 1,0",
	}, {
		.name = "stream", .kind = FIELD_ENUM, .at = AT(stream),
		.names = stream_names, .nnames = STREAM_OFF + 1,
		.help_at = 11, .arg = "S",
		.help = "non-temporal stores for the output, whole cache lines\n"
		        "around the cache, where the target has them: auto\n"
		        "(default: when the data pass the cache size, in hosted\n"
		        "builds), on or off",
	}, {
		.name = "parallel", .kind = FIELD_FLAG, .at = AT(parallel),
		.help_at = 11,
		.help = "share the outermost loop among threads (OpenMP, when\n"
		        "built with -fopenmp) where the result has at least the\n"
		        "target's parallel elements (--target list) and an\n"
		        "outermost loop around another loop or a block (one\n"
		        "loop split into 64 chunks or more where it divides);\n"
		        "the same results",
	}, {
		.name = "cache_size", .kind = FIELD_SIZE, .at = AT(cache_size),
		.hi = (long long)PLAN_CACHE_MAX,
		.help_at = 12, .arg = "B",
		.help = "the last-level cache's bytes for --stream auto\n"
		        "(default: the target's; suffixes K, M, G)",
	}, {
		.name = "target", .kind = FIELD_TARGET, .at = AT(target),
		.help_at = 13, .arg = "T",
		.help = "the machine generated for, a row of the target table\n"
		        "(--target list prints it; the first is the default):\n"
		        "%TARGETS",
	}, {
		.name = "tune", .kind = FIELD_TUNE, .at = AT(tune),
		.help_at = 13, .arg = "P",
		.help = "the processor the kernel is tuned for, as gcc's -mtune\n"
		        "names it, where processors of one target differ\n"
		        "(--tune list prints them; the first is the default):\n"
		        "%TUNES",
	}, {
		.name = "optimize", .kind = FIELD_ENUM, .at = AT(goal),
		.names = goal_names, .nnames = GOAL_SIZE + 1,
		.help_at = 14, .arg = "G",
		.help = "what auto aims for: speed (default) or size: loops\n"
		        "from two elements on, without blocks, vector tails,\n"
		        "loop alignment or streaming",
	}, {
		.name = "out_shape", .kind = FIELD_SHAPE, .at = AT(out_shape.shape),
		.in_lang = 1,
		.help_at = 7, .arg = "S",
		.help = "the result shape: copy broadcasts its operand to S;\n"
		        "any other op checks that its result is S",
	}, {
		.name = "op", .kind = FIELD_OP, .at = AT(op),
		.shown = SHOWN_ALWAYS,
		.help_at = 1, .arg = "OP",
		.help = "the operation (default add), by NumPy's name (subtract,\n"
		        "floor_divide, ...) or a short one: %OPS",
	}, {
		.name = "expr", .kind = FIELD_EXPR, .at = AT(expr_src),
		.help_at = 2, .arg = "E",
		.help = "a fused expression of the operands instead of --op:\n"
		        "'max(x*w + b, 0)'; C's operators and precedence, casts\n"
		        "f32(a) i16(a) ..., and calls %FUNCS",
	}, {
		.name = "dtype", .kind = FIELD_DTYPE, .at = AT(dtype),
		.shown = SHOWN_ALWAYS,
		.help_at = 3, .arg = "T",
		.help = "the type computed in (default: NumPy's promotion of the\n"
		        "operands' dtypes, f32 for an operand without one);\n"
		        "NAME:T=SHAPE gives an operand its own stored type,\n"
		        "converted to T on load. The dtypes: %DTYPES",
	}, {
		.name = "out_dtype", .kind = FIELD_DTYPE, .at = AT(out_dtype),
		.help_at = 4, .arg = "T",
		.help = "the result's stored type (default T; u8 for comparisons\n"
		        "and logical ops)",
	}, {
		.name = "quant", .kind = FIELD_QUANT, .at = AT(quant_given),
		.count_at = AT(nquant_given),
		.help_at = 4, .arg = "N=S,Z",
		.help = "quantized int8 or int16 add, subtract or multiply, as\n"
		        "TensorFlow Lite Micro computes it: operand N's scale S\n"
		        "(a decimal, rounded to float32) and zero point Z; give\n"
		        "one for each operand and for out",
	}, {
		.name = "activation", .kind = FIELD_ENUM, .at = AT(activation),
		.names = quant_activation_names, .nnames = ACT_RELU_N1_TO_1 + 1,
		.help_at = 4, .arg = "A",
		.help = "quantized: the range the output is clamped to, none\n"
		        "(default), relu, relu6 or relu_n1_to_1",
	}, {
		.name = "rounding", .kind = FIELD_ENUM, .at = AT(rounding),
		.names = quant_rounding_names, .nnames = QUANT_SINGLE + 1,
		.help_at = 4, .arg = "R",
		.help = "quantized: TFLite Micro's rounding of its multiplies,\n"
		        "double (default) or single (TFLITE_SINGLE_ROUNDING)",
	}, {
		.name = "lang", .kind = FIELD_ENUM, .at = AT(lang),
		.names = lang_names, .nnames = NLANGS, .shown = SHOWN_NEVER,
		.help_at = 15, .arg = "L",
		.help = "the language of --explain and of the messages about\n"
		        "shapes, operands as written (NAME=SHAPE), axes and\n"
		        "in-place results: en (default) or zh (the chinese of\n"
		        "the seed documents)",
	},
	{.name = NULL}
};

#define NFIELDS ((int)(sizeof fields / sizeof fields[0]) - 1)

/* struct desc's given has a bit for each row: this does not compile otherwise. */
typedef char fields_fit_given[NFIELDS <= (int)sizeof(unsigned) * CHAR_BIT ? 1 : -1];

/* Return 1 if WORD names row F in SOURCE's way: "--out-dtype" or "out_dtype". */
static int
is_named(const struct field *f, const char *word, enum desc_source source)
{
	const char *p = f->name;

	if (source == FROM_CLI) {
		if (strncmp(word, "--", 2) != 0)
			return 0;
		word += 2;
	}
	for (; *p && *word == (source == FROM_CLI && *p == '_' ? '-' : *p); p++)
		word++;
	return *p == '\0' && *word == '\0';
}

/* Return the row named NAME in SOURCE's way (an option or a field), or -1. */
int
field_find(const char *name, enum desc_source source)
{
	for (int k = 0; k < NFIELDS; k++)
		if (is_named(&fields[k], name, source))
			return k;
	return -1;
}

/* Return the spec's name of row K, or NULL past the last row. */
const char *
field_name(int k)
{
	return fields[k].name;
}

/* Return 1 if row FIELD takes a value, 0 if it is a flag. */
int
field_takes_value(int field)
{
	return fields[field].kind != FIELD_FLAG;
}

/* Return 1 if row FIELD may be given more than once: --quant, one per operand. */
int
field_repeats(int field)
{
	return fields[field].kind == FIELD_QUANT;
}

/* Return 1 if row FIELD of D was set. */
int
field_given(const struct desc *d, int field)
{
	return (d->given & (1u << field)) != 0;
}

/* Set row FIELD of D from VALUE (ignored for a flag); on error append to ERR. */
int
field_set(struct desc *d, int field, const char *value, struct strbuf *err)
{
	if (kinds[fields[field].kind].set(d, &fields[field], value, err) != 0)
		return -1;
	d->given |= 1u << field;
	return 0;
}

/* Append how SOURCE names the field NAME, a row's: "--op" or "field 'op'". */
void
field_label(struct strbuf *sb, enum desc_source source, const char *name)
{
	if (source == FROM_CLI)
		add_option(sb, &fields[field_find(name, FROM_SPEC)]);
	else
		sb_printf(sb, "field '%s'", name);
}

/* Append the fields' names: "inplace axis ...". */
void
field_list(struct strbuf *sb)
{
	for (int k = 0; k < NFIELDS; k++)
		sb_printf(sb, k ? " %s" : "%s", fields[k].name);
}

/* Append D's options as the canonical words of its command, in row order. */
void
field_show(struct strbuf *sb, const struct desc *d)
{
	for (int k = 0; k < NFIELDS; k++)
		if (fields[k].shown == SHOWN_ALWAYS
		    || (fields[k].shown == SHOWN_IF_GIVEN && field_given(d, k)))
			kinds[fields[k].kind].show(sb, d, &fields[k]);
}

/*
** Append the help of the rows in the order of their help_at (rows with
** the same, in row order): "  --axis K", then its text from column
** COLUMN on, on the same line when two spaces fit before it.
*/
void
field_help(struct strbuf *sb, int column)
{
	int order[NFIELDS];

	for (int k = 0; k < NFIELDS; k++) {
		int j = k;

		for (; j > 0 && fields[order[j - 1]].help_at > fields[k].help_at; j--)
			order[j] = order[j - 1];
		order[j] = k;
	}
	for (int i = 0; i < NFIELDS; i++) {
		const struct field *f = &fields[order[i]];
		size_t start = sb->len;

		sb_add(sb, "  ");
		add_option(sb, f);
		if (f->arg)
			sb_printf(sb, " %s", f->arg);
		if ((int)(sb->len - start) + 2 > column)
			sb_printf(sb, "\n%*s", column, "");
		else
			sb_printf(sb, "%*s", column - (int)(sb->len - start), "");
		for (const char *p = f->help; *p; p++)
			if (*p == '\n')
				sb_printf(sb, "\n%*s", column, "");
			else
				sb_addn(sb, p, 1);
		sb_add(sb, "\n");
	}
}
