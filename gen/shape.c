/*
** shape.c: parse "NAME=SHAPE" operands and print shapes.
**
** A shape is comma-separated decimal sizes, outermost first: "2,3,1,5".
** The empty string is a rank-0 scalar. Sizes may be 0.
*/
#include <ctype.h>
#include <string.h>

#include "shape.h"

/*
** Return 1 if the product of the nonzero sizes in DIM[0..RANK) fits in
** SHAPE_MAX_COUNT. Zero sizes are skipped so that strides, which are
** products of trailing sizes, fit too even in an empty shape.
*/
int
shape_count_fits(const uint64_t *dim, int rank)
{
	uint64_t n = 1;
	int i;

	for (i = 0; i < rank; i++) {
		if (dim[i] == 0)
			continue;
		if (dim[i] > SHAPE_MAX_COUNT / n)
			return 0;
		n *= dim[i];
	}
	return 1;
}

/*
** The messages of shape_parse and operand_parse in each language, with
** their arguments in the order they are given.
*/
static const struct shape_words {
	const char *empty_size;		/* shape, operand */
	const char *bad_size;		/* size, shape, operand */
	const char *size_too_large;	/* size, operand, limit */
	const char *too_many_dims;	/* operand, limit */
	const char *too_many_elements;	/* operand, limit */
	const char *expected;		/* the argument */
	const char *bad_dtype;		/* dtype, operand */
	const char *not_identifier;	/* operand */
	const char *name_too_long;	/* operand, limit */
} shape_words[NLANGS] = {
	{
		"empty size in shape '%s' of operand '%s'",
		"bad size '%.*s' in shape '%s' of operand '%s': sizes are non-negative "
		"integers",
		"size '%.*s' in shape of operand '%s' is too large (the limit is %lld)",
		"operand '%s' has more than %d dimensions",
		"operand '%s' has more elements than the limit %lld",
		"expected NAME=SHAPE (or a spec file NAME.lua), got '%s'",
		"bad dtype '%.*s' for operand '%.*s'",
		"operand name '%.*s' is not a C identifier",
		"operand name '%.*s' is longer than %d characters",
	}, {
		"形状 '%s' 里有一个维度的大小是空的（张量 '%s'）",
		"维度大小 '%.*s' 不对（形状 '%s'，张量 '%s'）：维度的大小必须是非负整数",
		"维度大小 '%.*s' 太大了（张量 '%s'）：上限是 %lld",
		"张量 '%s' 的维度超过了 %d 个",
		"张量 '%s' 的元素个数超过了上限 %lld",
		"张量应写成 NAME=SHAPE（或者给一个规格文件 NAME.lua），收到的是 '%s'",
		"数据类型 '%.*s' 不对（张量 '%.*s'）",
		"张量名 '%.*s' 不是合法的 C 标识符",
		"张量名 '%.*s' 超过了 %d 个字符",
	}
};

/*
** shape_parse's messages for a shape of no operand (--out-shape), in
** each language: the same arguments, the operand's name skipped (%.0s).
*/
static const struct shape_words shape_words_bare[NLANGS] = {
	{
		"empty size in shape '%s'%.0s",
		"bad size '%.*s' in shape '%s'%.0s: sizes are non-negative integers",
		"size '%.*s'%.0s is too large (the limit is %lld)",
		"%.0smore than %d dimensions",
		"%.0smore elements than the limit %lld",
		NULL, NULL, NULL, NULL
	}, {
		"形状 '%s' 里有一个维度的大小是空的%.0s",
		"维度大小 '%.*s' 不对（形状 '%s'%.0s）：维度的大小必须是非负整数",
		"维度大小 '%.*s' 太大了%.0s：上限是 %lld",
		"%.0s维度超过了 %d 个",
		"%.0s元素个数超过了上限 %lld",
		NULL, NULL, NULL, NULL
	}
};

/*
** Parse TEXT into S. On error, append a message in LANG to ERR naming
** the operand OPNAME (or none: NULL) and return -1; otherwise return 0.
*/
int
shape_parse(const char *text, struct shape *s, const char *opname, enum lang lang,
            struct strbuf *err)
{
	const struct shape_words *w = opname ? &shape_words[lang] : &shape_words_bare[lang];
	const char *p = text;

	if (!opname)
		opname = "";

	s->rank = 0;
	if (*p == '\0')
		return 0;
	for (;;) {
		const char *start = p;
		uint64_t v = 0;

		while (*p != ',' && *p != '\0')
			p++;
		if (p == start) {
			sb_printf(err, w->empty_size, text, opname);
			return -1;
		}
		for (const char *q = start; q < p; q++) {
			if (!isdigit((unsigned char)*q)) {
				sb_printf(err, w->bad_size, (int)(p - start), start, text, opname);
				return -1;
			}
			if (v > (SHAPE_MAX_COUNT - (uint64_t)(*q - '0')) / 10) {
				sb_printf(err, w->size_too_large, (int)(p - start), start, opname,
				          (long long)SHAPE_MAX_COUNT);
				return -1;
			}
			v = v * 10 + (uint64_t)(*q - '0');
		}
		if (s->rank == SHAPE_MAX_RANK) {
			sb_printf(err, w->too_many_dims, opname, SHAPE_MAX_RANK);
			return -1;
		}
		s->dim[s->rank++] = v;
		if (*p == '\0')
			break;
		p++;
	}
	if (!shape_count_fits(s->dim, s->rank)) {
		sb_printf(err, w->too_many_elements, opname, (long long)SHAPE_MAX_COUNT);
		return -1;
	}
	return 0;
}

/*
** Parse ARG, "NAME=SHAPE" or "NAME:DTYPE=SHAPE", into OP. NAME must be a
** C identifier; DTYPE is kept as written, for desc.c to check. On
** error, append a message in LANG to ERR and return -1; otherwise
** return 0.
*/
int
operand_parse(const char *arg, struct operand *op, enum lang lang, struct strbuf *err)
{
	const struct shape_words *w = &shape_words[lang];
	const char *eq = strchr(arg, '=');
	const char *colon = strchr(arg, ':');
	size_t n;
	int identifier;

	if (!eq) {
		sb_printf(err, w->expected, arg);
		return -1;
	}
	if (colon > eq)
		colon = NULL;
	n = (size_t)((colon ? colon : eq) - arg);
	op->dtype[0] = '\0';
	if (colon) {
		size_t t = (size_t)(eq - colon - 1);

		if (t == 0 || t >= sizeof op->dtype) {
			sb_printf(err, w->bad_dtype, (int)t, colon + 1, (int)n, arg);
			return -1;
		}
		memcpy(op->dtype, colon + 1, t);
		op->dtype[t] = '\0';
	}
	identifier = n > 0 && (isalpha((unsigned char)arg[0]) || arg[0] == '_');
	for (size_t i = 1; identifier && i < n; i++)
		identifier = isalnum((unsigned char)arg[i]) || arg[i] == '_';
	if (!identifier) {
		sb_printf(err, w->not_identifier, (int)n, arg);
		return -1;
	}
	if (n > OPERAND_NAME_MAX) {
		sb_printf(err, w->name_too_long, (int)n, arg, OPERAND_NAME_MAX);
		return -1;
	}
	memcpy(op->name, arg, n);
	op->name[n] = '\0';
	return shape_parse(eq + 1, &op->shape, op->name, lang, err);
}

/* Return the number of elements of S; it fits, as shape_parse checked. */
uint64_t
shape_count(const struct shape *s)
{
	uint64_t n = 1;

	for (int i = 0; i < s->rank; i++)
		n *= s->dim[i];
	return n;
}

int
shape_equal(const struct shape *a, const struct shape *b)
{
	if (a->rank != b->rank)
		return 0;
	for (int i = 0; i < a->rank; i++)
		if (a->dim[i] != b->dim[i])
			return 0;
	return 1;
}

/* Append S's sizes as they are written: "2,3", "3", or nothing for a scalar. */
void
shape_format_sizes(struct strbuf *sb, const struct shape *s)
{
	for (int i = 0; i < s->rank; i++)
		sb_printf(sb, i ? ",%llu" : "%llu", (unsigned long long)s->dim[i]);
}

/* Append S in NumPy's tuple notation: "(2,3)", "(3,)", "()". */
void
shape_format(struct strbuf *sb, const struct shape *s)
{
	sb_add(sb, "(");
	shape_format_sizes(sb, s);
	sb_add(sb, s->rank == 1 ? ",)" : ")");
}
