/*
** fields.c: the options that describe a kernel, one row each. The
** command line names a row by its option (--out-dtype), a spec kernel by
** its field (out_dtype); both set it through the same function, so a
** value means the same and fails with the same message either way.
**
** The rows' order is the canonical order of the options in the command
** that a kernel's banner shows, so the same kernel gives the same bytes
** whatever the order its options or fields were written in.
*/
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "desc.h"

/* The messages of parse_int and set_out_shape in each language. */
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

/* Set *T to the dtype named S, or append an error. */
static int
parse_dtype(const char *s, const struct dtype **t, struct strbuf *err)
{
	if ((*t = dtype_find(s)) != NULL)
		return 0;
	sb_printf(err, "unknown dtype '%s': expected ", s);
	dtype_list(err);
	return -1;
}

static int
set_inplace(struct desc *d, const char *v, struct strbuf *err)
{
	(void)v, (void)err;
	d->inplace = 1;
	return 0;
}

static int
set_axis(struct desc *d, const char *v, struct strbuf *err)
{
	long long axis;

	if (parse_int(v, INT_MIN, INT_MAX, "axis", d->lang, &axis, err) != 0)
		return -1;
	d->axis_mode = 1;
	d->axis = (int)axis;
	return 0;
}

static int
set_strategy(struct desc *d, const char *v, struct strbuf *err)
{
	for (int k = PLAN_AUTO; k <= PLAN_BLOCK; k++)
		if (strcmp(v, plan_strategy_name((enum plan_strategy)k)) == 0) {
			d->strategy = (enum plan_strategy)k;
			return 0;
		}
	sb_printf(err, "unknown strategy '%s': expected auto, unroll, loops or block", v);
	return -1;
}

static int
set_unroll_limit(struct desc *d, const char *v, struct strbuf *err)
{
	long long n;

	if (parse_int(v, 0, PLAN_UNROLL_CEILING, "unroll limit", LANG_EN, &n, err) != 0)
		return -1;
	d->unroll_limit = (uint64_t)n;
	return 0;
}

/* "2,0,1": a permutation of the plan's loops, checked when they are known. */
static int
set_loop_order(struct desc *d, const char *v, struct strbuf *err)
{
	struct shape s;
	struct strbuf why = {0};

	if (shape_parse(v, &s, "loop order", LANG_EN, &why) != 0 || s.rank == 0) {
		sb_printf(err, "bad loop order '%s': expected loop numbers such as 1,0,2", v);
		sb_free(&why);
		return -1;
	}
	for (int k = 0; k < s.rank; k++)
		d->loop_order[k] = s.dim[k] < SHAPE_MAX_RANK ? (int)s.dim[k] : SHAPE_MAX_RANK;
	d->nloop_order = s.rank;
	return 0;
}

static const char *const stream_names[] = {"auto", "on", "off"};

static int
set_stream(struct desc *d, const char *v, struct strbuf *err)
{
	int k = find_name(stream_names, STREAM_OFF + 1, v);

	if (k < 0) {
		sb_printf(err, "bad stream '%s': expected auto, on or off", v);
		return -1;
	}
	d->stream = (enum plan_stream_ask)k;
	return 0;
}

/* --target NAME: a row of the target table (target.c). */
static int
set_target(struct desc *d, const char *v, struct strbuf *err)
{
	const struct target *t = target_find(v);

	if (!t) {
		sb_printf(err, "unknown target '%s': expected ", v);
		target_names(err);
		sb_add(err, " (bcastgen --target list)");
		return -1;
	}
	d->target = t;
	return 0;
}

static const char *const goal_names[] = {"speed", "size"};

static int
set_optimize(struct desc *d, const char *v, struct strbuf *err)
{
	int k = find_name(goal_names, GOAL_SIZE + 1, v);

	if (k < 0) {
		sb_printf(err, "bad optimize '%s': expected speed or size", v);
		return -1;
	}
	d->goal = (enum plan_goal)k;
	return 0;
}

static int
set_lang(struct desc *d, const char *v, struct strbuf *err)
{
	int k = find_name(lang_names, NLANGS, v);

	if (k < 0) {
		sb_printf(err, "bad lang '%s': expected en or zh", v);
		return -1;
	}
	d->lang = (enum lang)k;
	return 0;
}

/* "33554432", or with a binary suffix: "32M"; K, M and G are 2^10, 2^20, 2^30. */
static int
set_cache_size(struct desc *d, const char *v, struct strbuf *err)
{
	static const char suffixes[] = "KMG";
	const char *p = v, *at;
	uint64_t n = 0;
	int shift = 0;

	while (*p >= '0' && *p <= '9' && n <= PLAN_CACHE_MAX)
		n = n * 10 + (uint64_t)(*p++ - '0');
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p && (at = strchr(suffixes, *p)) != NULL && p[1] == '\0') {
		shift = 10 * (int)(at - suffixes + 1);
		p++;
	}
	if (p == v || *p != '\0' || !(*v >= '0' && *v <= '9')) {
		sb_printf(err, "bad cache size '%s': expected a number of bytes, such as "
		          "33554432 or 32M", v);
		return -1;
	}
	if (n == 0 || n > PLAN_CACHE_MAX >> shift) {
		sb_printf(err, "cache size %s is out of range: it must be from 1 byte to "
		          "%lluG", v, (unsigned long long)(PLAN_CACHE_MAX >> 30));
		return -1;
	}
	d->cache_size = n << shift;
	return 0;
}

static int
set_out_shape(struct desc *d, const char *v, struct strbuf *err)
{
	struct strbuf why = {0};

	strcpy(d->out_shape.name, "out");
	if (shape_parse(v, &d->out_shape.shape, NULL, d->lang, &why) != 0) {
		sb_printf(err, field_words[d->lang].bad_shape,
		          d->source == FROM_CLI ? "--out-shape" : "shape", why.s);
		sb_free(&why);
		return -1;
	}
	d->has_out_shape = 1;
	return 0;
}

static int
set_op(struct desc *d, const char *v, struct strbuf *err)
{
	if ((d->op = op_find(v)) != NULL)
		return 0;
	sb_printf(err, "unknown op '%s' (see bcastgen --help)", v);
	return -1;
}

static int
set_expr(struct desc *d, const char *v, struct strbuf *err)
{
	(void)err;
	free(d->expr_src);
	d->expr_src = xstrdup(v);
	return 0;
}

static int
set_dtype(struct desc *d, const char *v, struct strbuf *err)
{
	return parse_dtype(v, &d->dtype, err);
}

static int
set_out_dtype(struct desc *d, const char *v, struct strbuf *err)
{
	return parse_dtype(v, &d->out_dtype, err);
}

static void
show_inplace(struct strbuf *sb, const struct desc *d)
{
	(void)d;
	sb_add(sb, " --inplace");
}

static void
show_axis(struct strbuf *sb, const struct desc *d)
{
	sb_printf(sb, " --axis %d", d->axis);
}

static void
show_strategy(struct strbuf *sb, const struct desc *d)
{
	sb_printf(sb, " --strategy %s", plan_strategy_name(d->strategy));
}

static void
show_unroll_limit(struct strbuf *sb, const struct desc *d)
{
	sb_printf(sb, " --unroll-limit %llu", (unsigned long long)d->unroll_limit);
}

static void
show_loop_order(struct strbuf *sb, const struct desc *d)
{
	sb_add(sb, " --loop-order ");
	for (int k = 0; k < d->nloop_order; k++)
		sb_printf(sb, k ? ",%d" : "%d", d->loop_order[k]);
}

static void
show_stream(struct strbuf *sb, const struct desc *d)
{
	sb_printf(sb, " --stream %s", stream_names[d->stream]);
}

static void
show_cache_size(struct strbuf *sb, const struct desc *d)
{
	sb_printf(sb, " --cache-size %llu", (unsigned long long)d->cache_size);
}

static void
show_target(struct strbuf *sb, const struct desc *d)
{
	sb_printf(sb, " --target %s", d->target->name);
}

static void
show_optimize(struct strbuf *sb, const struct desc *d)
{
	sb_printf(sb, " --optimize %s", goal_names[d->goal]);
}

static void
show_out_shape(struct strbuf *sb, const struct desc *d)
{
	sb_add(sb, " --out-shape ");
	shape_format_sizes(sb, &d->out_shape.shape);
}

/* --op, unless the computation is an --expr: an op is always shown. */
static void
show_op(struct strbuf *sb, const struct desc *d)
{
	if (!d->expr_src)
		sb_printf(sb, " --op %s", d->op->name);
}

/* --expr as parsed: spaces folded, so that it reads as one word. */
static void
show_expr(struct strbuf *sb, const struct desc *d)
{
	sb_add(sb, " --expr '");
	expr_text(sb, &d->expr, d->expr.root);
	sb_add(sb, "'");
}

static void
show_dtype(struct strbuf *sb, const struct desc *d)
{
	sb_printf(sb, " --dtype %s", d->dtype->name);
}

static void
show_out_dtype(struct strbuf *sb, const struct desc *d)
{
	sb_printf(sb, " --out-dtype %s", d->out_dtype->name);
}

/* A kernel option: how each source names it, how it is set and shown. */
static const struct field {
	const char *name;	/* a spec kernel's field: "out_dtype" */
	const char *option;	/* the command line's option: "--out-dtype" */
	int is_flag;		/* takes no value (true or false in a spec) */
	int always_shown;	/* in the banner even when not given */
	int (*set)(struct desc *d, const char *value, struct strbuf *err);
	void (*show)(struct strbuf *sb, const struct desc *d);	/* NULL: not in
				   the command, as the kernel is the same without it */
} fields[] = {
	{"inplace", "--inplace", 1, 0, set_inplace, show_inplace},
	{"axis", "--axis", 0, 0, set_axis, show_axis},
	{"strategy", "--strategy", 0, 0, set_strategy, show_strategy},
	{"unroll_limit", "--unroll-limit", 0, 0, set_unroll_limit, show_unroll_limit},
	{"loop_order", "--loop-order", 0, 0, set_loop_order, show_loop_order},
	{"stream", "--stream", 0, 0, set_stream, show_stream},
	{"cache_size", "--cache-size", 0, 0, set_cache_size, show_cache_size},
	{"target", "--target", 0, 0, set_target, show_target},
	{"optimize", "--optimize", 0, 0, set_optimize, show_optimize},
	{"out_shape", "--out-shape", 0, 0, set_out_shape, show_out_shape},
	{"op", "--op", 0, 1, set_op, show_op},
	{"expr", "--expr", 0, 0, set_expr, show_expr},
	{"dtype", "--dtype", 0, 1, set_dtype, show_dtype},
	{"out_dtype", "--out-dtype", 0, 0, set_out_dtype, show_out_dtype},
	{"lang", "--lang", 0, 0, set_lang, NULL},
	{NULL, NULL, 0, 0, NULL, NULL}
};

/* Return the row named NAME in SOURCE's way (an option or a field), or -1. */
int
field_find(const char *name, enum desc_source source)
{
	for (int k = 0; fields[k].name; k++)
		if (strcmp(source == FROM_CLI ? fields[k].option : fields[k].name, name) == 0)
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
	return !fields[field].is_flag;
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
	if (fields[field].set(d, value, err) != 0)
		return -1;
	d->given |= 1u << field;
	return 0;
}

/* Append how SOURCE names the field NAME: "--op" or "field 'op'". */
void
field_label(struct strbuf *sb, enum desc_source source, const char *name)
{
	int k = field_find(name, FROM_SPEC);

	if (source == FROM_CLI)
		sb_add(sb, fields[k].option);
	else
		sb_printf(sb, "field '%s'", name);
}

/* Append the fields' names: "op expr dtype ...". */
void
field_list(struct strbuf *sb)
{
	for (int k = 0; fields[k].name; k++)
		sb_printf(sb, k ? " %s" : "%s", fields[k].name);
}

/* Append D's options as the canonical words of its command, in row order. */
void
field_show(struct strbuf *sb, const struct desc *d)
{
	for (int k = 0; fields[k].name; k++)
		if (fields[k].show && (fields[k].always_shown || field_given(d, k)))
			fields[k].show(sb, d);
}
