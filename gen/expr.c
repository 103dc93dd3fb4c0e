/*
** expr.c: fused expressions, from text to C.
**
** The parser is recursive descent over C's precedence, with the binary
** operators in a table, loosest first. Nodes are stored in the order
** they are made, so a node's arguments always come before it and the
** last node made is the root. expr_fold.c folds the constant parts,
** expr_check.c gives the types.
*/
#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"

/* The binary operators, loosest first; a level's operators associate left. */
static const struct binop {
	int level;
	const char *token;
	const char *op;
} binops[] = {
	{0, "||", "logical_or"},
	{1, "&&", "logical_and"},
	{2, "|", "bitwise_or"},
	{3, "^", "bitwise_xor"},
	{4, "&", "bitwise_and"},
	{5, "==", "equal"}, {5, "!=", "not_equal"},
	{6, "<=", "less_equal"}, {6, ">=", "greater_equal"}, {6, "<", "less"}, {6, ">", "greater"},
	{7, "<<", "left_shift"}, {7, ">>", "right_shift"},
	{8, "+", "add"}, {8, "-", "subtract"},
	{9, "*", "multiply"}, {9, "/", "divide"}, {9, "%", "remainder"},
	{-1, NULL, NULL}
};
#define UNARY_LEVEL 10

/* The functions an expression may call, besides the casts. */
static const struct func {
	const char *name;
	const char *op;
	int min_args, max_args;
} funcs[] = {
	{"min", "minimum", 2, BC_MAX_ARGS},
	{"max", "maximum", 2, BC_MAX_ARGS},
	{"abs", "absolute", 1, 1},
	{"sqrt", "sqrt", 1, 1},
	{"exp", "exp", 1, 1},
	{"log", "log", 1, 1},
	{"pow", "power", 2, 2},
	{"floor", "floor", 1, 1},
	{"ceil", "ceil", 1, 1},
	{"fmod", "fmod", 2, 2},
	{"where", "where", 3, 3},
	{NULL, NULL, 0, 0}
};

struct parser {
	struct expr *e;
	const char *s;		/* the text */
	int pos;		/* the next character to read */
	int depth;		/* nesting of the node being parsed */
	const char *const *names;	/* the operands */
	int nnames;
	struct strbuf *err;
};

static int parse_ternary(struct parser *p);

/* Record an error at offset POS of the text; return -1. */
static int
fail(struct parser *p, int pos, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vprintf(p->err, fmt, ap);
	va_end(ap);
	p->e->err_pos = pos;
	return -1;
}

/* Make a node of KIND whose text starts at START; return its index or -1. */
static int
new_node(struct parser *p, enum expr_kind kind, int start)
{
	struct expr *e = p->e;
	struct expr_node *n;

	if (e->n == EXPR_MAX_NODES)
		return fail(p, start, "the expression is too long: more than %d nodes",
		            EXPR_MAX_NODES);
	if (e->n % 64 == 0)
		e->node = xrealloc(e->node, (size_t)(e->n + 64) * sizeof *e->node);
	n = &e->node[e->n];
	memset(n, 0, sizeof *n);
	n->kind = kind;
	n->start = start;
	n->end = p->pos;
	n->temp = -1;
	return e->n++;
}

/* Make the node of OP applied to NARGS nodes ARGS, its operator at AT. */
static int
new_op(struct parser *p, const char *op, const int *args, int nargs, int start, int at)
{
	int i = new_node(p, EXPR_OP, start);

	if (i < 0)
		return -1;
	p->e->node[i].op = op_find(op);
	p->e->node[i].nargs = nargs;
	memcpy(p->e->node[i].arg, args, (size_t)nargs * sizeof *args);
	p->e->node[i].at = at;
	return i;
}

static void
skip_space(struct parser *p)
{
	while (isspace((unsigned char)p->s[p->pos]))
		p->pos++;
}

/* If the next token is TOKEN (and not a longer operator), take it. */
static int
accept(struct parser *p, const char *token)
{
	static const char *const pairs[] = {"||", "&&", "==", "!=", "<=", ">=", "<<", ">>", NULL};
	size_t n = strlen(token);
	const char *s;

	skip_space(p);
	s = p->s + p->pos;
	if (strncmp(s, token, n) != 0)
		return 0;
	if (n == 1)
		for (int k = 0; pairs[k]; k++)
			if (s[0] == pairs[k][0] && s[1] == pairs[k][1])
				return 0;
	p->pos += (int)n;
	return 1;
}

/* Return 1 if C may continue an identifier or a number. */
static int
word_char(int c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.';
}

/* Parse the number at p->pos: 42, 0x2A, 1.5, .5, 1e-3, 2.5E+4. */
static int
parse_number(struct parser *p)
{
	int start = p->pos, i, is_float = 0;
	const char *s = p->s;
	char text[80];
	struct expr_node *n;

	if (s[start] == '0' && (s[start + 1] == 'x' || s[start + 1] == 'X')) {
		p->pos += 2;
		while (isxdigit((unsigned char)s[p->pos]))
			p->pos++;
		if (p->pos == start + 2)
			return fail(p, start, "bad number: '0x' needs hex digits");
	} else {
		while (isdigit((unsigned char)s[p->pos]))
			p->pos++;
		if (s[p->pos] == '.') {
			is_float = 1;
			p->pos++;
			while (isdigit((unsigned char)s[p->pos]))
				p->pos++;
		}
		if ((s[p->pos] == 'e' || s[p->pos] == 'E')
		    && (isdigit((unsigned char)s[p->pos + 1])
		        || (strchr("+-", s[p->pos + 1]) && isdigit((unsigned char)s[p->pos + 2])))) {
			is_float = 1;
			p->pos += 2;
			while (isdigit((unsigned char)s[p->pos]))
				p->pos++;
		}
	}
	if (word_char(s[p->pos]) || p->pos - start >= (int)sizeof text) {
		while (word_char(s[p->pos]))
			p->pos++;
		snprintf(text, sizeof text, "%.*s", p->pos - start, s + start);
		return fail(p, start, "bad number '%s'", text);
	}
	snprintf(text, sizeof text, "%.*s", p->pos - start, s + start);
	if (!is_float && text[0] == '0' && isdigit((unsigned char)text[1]))
		return fail(p, start, "'%s' starts with 0: write decimal numbers without "
		            "leading zeros, hex ones with 0x", text);
	if ((i = new_node(p, EXPR_LITERAL, start)) < 0)
		return -1;
	n = &p->e->node[i];
	n->is_float = is_float;
	errno = 0;
	if (is_float) {
		n->value = strtod(text, NULL);
		if (errno == ERANGE && isinf(n->value))
			return fail(p, start, "float literal '%s' is out of range", text);
	} else {
		unsigned long long v = strtoull(text, NULL, 0);

		if (errno == ERANGE)
			return fail(p, start, "integer literal '%s' does not fit in 64 bits", text);
		n->magnitude = (uint64_t)v;
	}
	return i;
}

/* Parse the arguments of a call after its '(': "a, b)". */
static int
parse_args(struct parser *p, int *args, int *nargs)
{
	*nargs = 0;
	if (accept(p, ")"))
		return 0;
	do {
		skip_space(p);
		if (*nargs == BC_MAX_ARGS)
			return fail(p, p->pos, "more than %d arguments in one call", BC_MAX_ARGS);
		if ((args[(*nargs)++] = parse_ternary(p)) < 0)
			return -1;
	} while (accept(p, ","));
	skip_space(p);
	if (!accept(p, ")"))
		return fail(p, p->pos, "expected ',' or ')' in the arguments");
	return 0;
}

/* Parse a call of function or cast NAME, whose name starts at START. */
static int
parse_call(struct parser *p, const char *name, int start)
{
	const struct dtype *cast = dtype_find(name);
	const struct func *f = funcs;
	int args[BC_MAX_ARGS], nargs, i;

	while (f->name && strcmp(f->name, name) != 0)
		f++;
	if (!f->name && !cast)
		return fail(p, start, "unknown function '%s' (there are min max abs sqrt exp "
		            "log pow floor ceil fmod where, and the casts f32(a) i16(a) ...)", name);
	if (parse_args(p, args, &nargs) != 0)
		return -1;
	if (cast && nargs != 1)
		return fail(p, start, "the cast %s(...) takes one argument", name);
	if (f->name && (nargs < f->min_args || nargs > f->max_args)) {
		if (f->min_args == f->max_args)
			return fail(p, start, "%s takes %d argument%s, got %d", name,
			            f->min_args, f->min_args == 1 ? "" : "s", nargs);
		return fail(p, start, "%s takes at least %d arguments, got %d",
		            name, f->min_args, nargs);
	}
	if (cast) {
		if ((i = new_node(p, EXPR_CAST, start)) < 0)
			return -1;
		p->e->node[i].calc = cast;
		p->e->node[i].nargs = 1;
		p->e->node[i].arg[0] = args[0];
		return i;
	}
	return new_op(p, f->op, args, nargs, start, start);
}

/* Parse a number, an operand, a call or a parenthesized expression. */
static int
parse_primary(struct parser *p)
{
	const char *s = p->s;
	int start, i;
	char name[64];

	skip_space(p);
	start = p->pos;
	if (isdigit((unsigned char)s[start]) || (s[start] == '.' && isdigit((unsigned char)s[start + 1])))
		return parse_number(p);
	if (accept(p, "(")) {
		if ((i = parse_ternary(p)) < 0)
			return -1;
		if (!accept(p, ")"))
			return fail(p, p->pos, "expected ')'");
		p->e->node[i].start = start;	/* its text keeps the parentheses */
		p->e->node[i].end = p->pos;
		return i;
	}
	if (!(isalpha((unsigned char)s[start]) || s[start] == '_')) {
		if (s[start] == '\0')
			return fail(p, start, "expected an operand, a number or '(' at the end");
		return fail(p, start, "expected an operand, a number or '(', not '%c'", s[start]);
	}
	while (isalnum((unsigned char)s[p->pos]) || s[p->pos] == '_')
		p->pos++;
	snprintf(name, sizeof name, "%.*s", p->pos - start, s + start);
	if (p->pos - start >= (int)sizeof name)
		return fail(p, start, "name '%s...' is too long", name);
	if (accept(p, "("))
		return parse_call(p, name, start);
	for (int k = 0; k < p->nnames; k++)
		if (strcmp(p->names[k], name) == 0) {
			if ((i = new_node(p, EXPR_OPERAND, start)) >= 0)
				p->e->node[i].operand = k;
			return i;
		}
	return fail(p, start, "unknown operand '%s'", name);
}

/* Parse unary operators - ! ~ and what they apply to. */
static int
parse_unary(struct parser *p)
{
	static const struct { const char *token, *op; } unops[] = {
		{"-", "negative"}, {"!", "logical_not"}, {"~", "invert"}, {NULL, NULL}
	};
	int start, i;

	skip_space(p);
	start = p->pos;
	if (++p->depth > EXPR_MAX_DEPTH)
		return fail(p, start, "the expression nests too deeply: more than %d levels",
		            EXPR_MAX_DEPTH);
	for (int k = 0; unops[k].token; k++)
		if (accept(p, unops[k].token)) {
			if ((i = parse_unary(p)) < 0)
				return -1;
			p->depth--;
			if (k == 0 && p->e->node[i].kind == EXPR_LITERAL) {
				p->e->node[i].negative = !p->e->node[i].negative;
				p->e->node[i].value = -p->e->node[i].value;
				p->e->node[i].start = start;
				p->e->node[i].end = p->pos;
				return i;
			}
			return new_op(p, unops[k].op, &i, 1, start, start);
		}
	i = parse_primary(p);
	p->depth--;
	return i;
}

/* If the next token is a binary operator of LEVEL, take it and return it. */
static const struct binop *
accept_binop(struct parser *p, int level)
{
	for (const struct binop *b = binops; b->token; b++)
		if (b->level == level && accept(p, b->token))
			return b;
	return NULL;
}

/* Parse the binary operators of LEVEL and tighter. */
static int
parse_binary(struct parser *p, int level)
{
	const struct binop *b;
	int args[2], at;

	if (level == UNARY_LEVEL)
		return parse_unary(p);
	if ((args[0] = parse_binary(p, level + 1)) < 0)
		return -1;
	for (;;) {
		skip_space(p);
		at = p->pos;
		if (!(b = accept_binop(p, level)))
			return args[0];
		if ((args[1] = parse_binary(p, level + 1)) < 0)
			return -1;
		if ((args[0] = new_op(p, b->op, args, 2, p->e->node[args[0]].start, at)) < 0)
			return -1;
	}
}

/* Parse c ? a : b, or what binds tighter. */
static int
parse_ternary(struct parser *p)
{
	int args[3], at;

	if ((args[0] = parse_binary(p, 0)) < 0)
		return -1;
	skip_space(p);
	at = p->pos;
	if (!accept(p, "?"))
		return args[0];
	if ((args[1] = parse_ternary(p)) < 0)
		return -1;
	if (!accept(p, ":"))
		return fail(p, p->pos, "expected ':' of '?'");
	if ((args[2] = parse_ternary(p)) < 0)
		return -1;
	return new_op(p, "where", args, 3, p->e->node[args[0]].start, at);
}

/*
** Parse SRC over the operands NAMES[0..NNAMES) into E. Every operand
** must be used. On error return -1 with the message in ERR and its
** offset in e->err_pos (-1 when it is not at one place).
*/
int
expr_parse(struct expr *e, const char *src, const char *const *names, int nnames,
           struct strbuf *err)
{
	struct parser p = {e, src, 0, 0, names, nnames, err};

	memset(e, 0, sizeof *e);
	e->src = src;
	e->err_pos = -1;
	if ((e->root = parse_ternary(&p)) < 0)
		return -1;
	skip_space(&p);
	if (src[p.pos] != '\0')
		return fail(&p, p.pos, "unexpected '%c' after the expression", src[p.pos]);
	for (int k = 0; k < nnames; k++) {
		int used = 0;

		for (int i = 0; i < e->n; i++)
			used |= e->node[i].kind == EXPR_OPERAND && e->node[i].operand == k;
		if (!used) {
			sb_printf(err, "operand '%s' is not used in the expression", names[k]);
			return -1;
		}
	}
	return 0;
}

/* Make E the op OP applied to the NARGS operands in order (copy: the operand). */
void
expr_from_op(struct expr *e, const struct op *op, int nargs)
{
	memset(e, 0, sizeof *e);
	e->n = nargs + (op->kind != OP_COPY);
	e->node = xmalloc((size_t)e->n * sizeof *e->node);
	memset(e->node, 0, (size_t)e->n * sizeof *e->node);
	for (int k = 0; k < e->n; k++) {
		e->node[k].temp = -1;
		e->node[k].kind = k < nargs ? EXPR_OPERAND : EXPR_OP;
		e->node[k].operand = k;
	}
	if (op->kind != OP_COPY) {
		struct expr_node *n = &e->node[nargs];

		n->op = op;
		n->nargs = nargs;
		for (int k = 0; k < nargs; k++)
			n->arg[k] = k;
	}
	e->root = e->n - 1;
	e->err_pos = -1;
}

/* Return 1 if E calls a helper of bc_math.h. */
int
expr_needs_libm(const struct expr *e)
{
	for (int i = 0; i < e->n; i++)
		if (e->node[i].kind == EXPR_OP && op_needs_libm(e->node[i].op, e->node[i].calc))
			return 1;
	return 0;
}

/* Append node I's source text with each run of spaces made one space. */
void
expr_text(struct strbuf *sb, const struct expr *e, int i)
{
	const struct expr_node *n = &e->node[i];

	for (int k = n->start; k < n->end; k++) {
		char c = e->src[k];

		if (isspace((unsigned char)c)) {
			while (k + 1 < n->end && isspace((unsigned char)e->src[k + 1]))
				k++;
			c = ' ';
		}
		sb_addn(sb, &c, 1);
		if (c == '*' && k + 1 < n->end && e->src[k + 1] == '/')
			sb_add(sb, " ");	/* never end the comment it goes in */
	}
}

/*
** Set each node's level, the loop from which it no longer varies, from
** HOIST (each operand's) and NLOOPS, and choose the temporaries: the
** largest parts that vary only in outer loops, computed once there.
** Return their number, and them, dependencies first, in *TEMPS.
*/
int
expr_hoist(struct expr *e, const int *hoist, int nloops, struct expr_temp **temps)
{
	int *parent_level = xmalloc((size_t)e->n * sizeof *parent_level);
	int *has_operand = xmalloc((size_t)e->n * sizeof *has_operand);
	int ntemps = 0;

	for (int i = 0; i < e->n; i++) {
		struct expr_node *n = &e->node[i];

		n->level = n->kind == EXPR_OPERAND ? hoist[n->operand] : 0;
		has_operand[i] = n->kind == EXPR_OPERAND;
		for (int k = 0; k < n->nargs; k++) {
			int a = n->arg[k];

			if (e->node[a].level > n->level)
				n->level = e->node[a].level;
			has_operand[i] |= has_operand[a];
		}
		parent_level[i] = nloops;
	}
	for (int i = 0; i < e->n; i++)
		for (int k = 0; k < e->node[i].nargs; k++)
			parent_level[e->node[i].arg[k]] = e->node[i].level;
	*temps = xmalloc((size_t)e->n * sizeof **temps);
	for (int i = 0; i < e->n; i++) {
		struct expr_node *n = &e->node[i];

		n->temp = -1;
		if (n->kind == EXPR_OPERAND || !has_operand[i] || n->level >= parent_level[i])
			continue;
		n->temp = ntemps;
		(*temps)[ntemps].node = i;
		(*temps)[ntemps].level = n->level;
		ntemps++;
	}
	free(parent_level);
	free(has_operand);
	return ntemps;
}

/* Set R to the C text of literal node N: 2.5f, (int8_t)-3, UINT64_C(7). */
static void
literal_text(struct ctext *r, const struct expr_node *n)
{
	const struct dtype *t = n->type;
	char buf[64];

	memset(r, 0, sizeof *r);
	r->prec = n->negative ? PREC_UNARY : PREC_PRIMARY;
	if (t->is_float) {
		double v = t->bits == 32 ? (double)(float)n->value : n->value;

		/* the shortest text that reads back as the same value */
		for (int digits = 1; digits <= 17; digits++) {
			snprintf(buf, sizeof buf, "%.*g", digits, v);
			if (t->bits == 32 ? (double)strtof(buf, NULL) == v : strtod(buf, NULL) == v)
				break;
		}
		sb_add(&r->s, buf);
		if (!strpbrk(buf, ".e"))
			sb_add(&r->s, ".0");
		if (t->bits == 32)
			sb_add(&r->s, "f");
		return;
	}
	snprintf(buf, sizeof buf, "%s%llu", n->negative ? "-" : "",
	         (unsigned long long)n->magnitude);
	if (t->is_signed && t->bits >= 32 && n->negative
	    && n->magnitude == (uint64_t)1 << (t->bits - 1)) {
		sb_printf(&r->s, "INT%d_MIN", t->bits);	/* no literal has its value */
		r->prec = PREC_PRIMARY;
	} else if (t->bits < 32) {
		sb_printf(&r->s, "(%s)%s", t->ctype, buf);
		r->prec = PREC_UNARY;
	} else if (t->bits == 64) {
		sb_printf(&r->s, "%s(%s)", t->is_signed ? "INT64_C" : "UINT64_C", buf);
		r->prec = PREC_PRIMARY;
	} else {
		sb_printf(&r->s, t->is_signed ? "%s" : "%su", buf);
	}
}

/* Set R to argument K of op node I, converted to the dtype the op computes in. */
static void
emit_arg(struct ctext *r, const struct expr *e, int i, int k, const struct dtype *t,
         const struct dtype *const *in_dtype, int use_temps)
{
	const struct expr_node *n = &e->node[i], *a = &e->node[n->arg[k]];
	/* logical ops and where's condition test any dtype against 0 */
	int as_is = (n->op->kind == OP_BOOL && strncmp(n->op->name, "logical_", 8) == 0)
	            || (n->op->kind == OP_SELECT && k == 0);
	struct ctext v;

	expr_value(&v, e, n->arg[k], t, in_dtype, use_temps);
	if (as_is) {
		*r = v;
	} else {
		dtype_convert(r, &v, a->type, n->calc);
		sb_free(&v.s);
	}
}

/*
** Set R to the C expression of node I of E in a kernel of dtype T whose
** inputs are stored as IN_DTYPE: operand k appears as the placeholder
** {k+1}, for the template to say how it is read. With USE_TEMPS, the
** temporaries chosen by expr_hoist inside node I appear by name: t0, ...
*/
void
expr_emit(struct ctext *r, const struct expr *e, int i, const struct dtype *t,
          const struct dtype *const *in_dtype, int use_temps)
{
	const struct expr_node *n = &e->node[i];
	struct ctext args[BC_MAX_ARGS], v;

	memset(r, 0, sizeof *r);
	switch (n->kind) {
	case EXPR_OPERAND:
		memset(&v, 0, sizeof v);
		sb_printf(&v.s, "{%d}", n->operand + 1);
		v.prec = PREC_PRIMARY;
		dtype_convert(r, &v, in_dtype[n->operand], t);
		sb_free(&v.s);
		return;
	case EXPR_LITERAL:
		literal_text(r, n);
		return;
	case EXPR_CAST:
		expr_value(&v, e, n->arg[0], t, in_dtype, use_temps);
		dtype_convert(r, &v, e->node[n->arg[0]].type, n->type);
		sb_free(&v.s);
		return;
	case EXPR_OP:
		break;
	}
	for (int k = 0; k < n->nargs; k++)
		emit_arg(&args[k], e, i, k, t, in_dtype, use_temps);
	op_apply(r, n->op, n->calc, args, n->nargs);
	for (int k = 0; k < n->nargs; k++)
		sb_free(&args[k].s);
}

/*
** Set R to the value of node I, as its users read it: with USE_TEMPS, a
** temporary's name (t0, t1, ...); otherwise its expression (expr_emit).
*/
void
expr_value(struct ctext *r, const struct expr *e, int i, const struct dtype *t,
           const struct dtype *const *in_dtype, int use_temps)
{
	const struct expr_node *n = &e->node[i];

	if (use_temps && n->temp >= 0) {
		memset(r, 0, sizeof *r);
		sb_printf(&r->s, "t%d", n->temp);
		r->prec = PREC_PRIMARY;
		r->is_bool = n->is_bool;
	} else {
		expr_emit(r, e, i, t, in_dtype, use_temps);
	}
}

/* Return how many times E reads operand K. */
int
expr_uses(const struct expr *e, int k)
{
	int uses = 0;

	for (int i = 0; i < e->n; i++)
		uses += e->node[i].kind == EXPR_OPERAND && e->node[i].operand == k;
	return uses;
}

/* Append "NAME:LINE:COL", the place of E's error in its text NAME. */
void
expr_where(struct strbuf *sb, const struct expr *e, const char *name)
{
	int line = 1, bol = 0;

	for (int k = 0; k < e->err_pos; k++)
		if (e->src[k] == '\n') {
			line++;
			bol = k + 1;
		}
	sb_printf(sb, "%s:%d:%d", name, line, e->err_pos - bol + 1);
}

/* Append the line of E's error, then a caret under its place. */
void
expr_caret(struct strbuf *sb, const struct expr *e)
{
	int bol = e->err_pos, eol = e->err_pos;

	while (bol > 0 && e->src[bol - 1] != '\n')
		bol--;
	eol += (int)strcspn(e->src + eol, "\n");
	sb_printf(sb, "    %.*s\n    ", eol - bol, e->src + bol);
	for (int k = bol; k < e->err_pos; k++)
		sb_add(sb, e->src[k] == '\t' ? "\t" : " ");
	sb_add(sb, "^");
}

void
expr_free(struct expr *e)
{
	free(e->node);
	e->node = NULL;
	e->n = 0;
}
