/*
** expr_parse.c: the text of a fused expression to a tree of nodes.
**
** A tokenizer hands the parser one token at a time. The parser climbs
** precedence as Lua's lparser.c does: subexpr() reads a unary
** expression, then takes every binary operator that binds tighter than
** its caller's limit, from one table of left and right priorities, and
** reads the operator's right operand by calling itself with the
** operator's right priority. c ? a : b, the loosest, is read around it.
**
** Every kind of nesting (parentheses, a call's arguments, a unary
** operator's operand, the arms of ?:, a binary operator's right operand)
** enters one level, and no more than EXPR_MAX_DEPTH levels may be open,
** so no input can exhaust the C stack.
**
** Nodes are stored in the order they are made, each after its last
** token is read, so a node's arguments always come before it and the
** last node made is the root. The tree is as written: constant parts,
** -2 included, are folded later (expr_fold.c).
*/
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"

/*
** The binary operators and how tightly each binds on its left and on
** its right, higher binding tighter (C's precedence). Equal priorities
** make an operator associate to the left: a - b - c is (a - b) - c.
*/
static const struct binop {
	const char *token;
	enum op_id op;		/* its op in ops.c */
	int left, right;
} binops[] = {
	{"||", OP_ID_LOGICAL_OR, 1, 1},
	{"&&", OP_ID_LOGICAL_AND, 2, 2},
	{"|", OP_ID_BITWISE_OR, 3, 3},
	{"^", OP_ID_BITWISE_XOR, 4, 4},
	{"&", OP_ID_BITWISE_AND, 5, 5},
	{"==", OP_ID_EQUAL, 6, 6}, {"!=", OP_ID_NOT_EQUAL, 6, 6},
	{"<", OP_ID_LESS, 7, 7}, {"<=", OP_ID_LESS_EQUAL, 7, 7},
	{">", OP_ID_GREATER, 7, 7}, {">=", OP_ID_GREATER_EQUAL, 7, 7},
	{"<<", OP_ID_LEFT_SHIFT, 8, 8}, {">>", OP_ID_RIGHT_SHIFT, 8, 8},
	{"+", OP_ID_ADD, 9, 9}, {"-", OP_ID_SUBTRACT, 9, 9},
	{"*", OP_ID_MULTIPLY, 10, 10}, {"/", OP_ID_DIVIDE, 10, 10},
	{"%", OP_ID_REMAINDER, 10, 10},
	{NULL, NOP_IDS, 0, 0}
};
#define UNARY_PRIORITY 11	/* a unary operator's operand: tighter than any binary */

static const struct unop {
	const char *token;
	enum op_id op;
} unops[] = {
	{"-", OP_ID_NEGATIVE}, {"!", OP_ID_LOGICAL_NOT}, {"~", OP_ID_INVERT}, {NULL, NOP_IDS}
};

#define TERNARY_OP OP_ID_WHERE	/* the op that c ? a : b computes */


#define NUMBER_CHARS 80		/* a number is shorter than this */
#define NAME_CHARS 64		/* a name is shorter than this */

enum token_kind {
	TK_END,			/* the end of the text */
	TK_NUMBER,
	TK_NAME,
	TK_SYMBOL		/* an operator or punctuation, or any other character */
};

/* What is wrong with a number or a name: reported only if it is used. */
enum flaw {
	FLAW_NONE,
	FLAW_HEX,		/* 0x without digits */
	FLAW_CHARS,		/* letters after the digits: 2x, 1.5e, 1.2.3 */
	FLAW_ZERO,		/* 010 */
	FLAW_INT_RANGE,		/* more than 64 bits */
	FLAW_FLOAT_RANGE,	/* beyond double */
	FLAW_LONG		/* a name of NAME_CHARS characters or more */
};

struct token {
	enum token_kind kind;
	int pos, len;		/* its text: src[pos, pos + len) */
	enum flaw flaw;		/* TK_NUMBER, TK_NAME */
	int is_float;		/* TK_NUMBER: written with '.' or an exponent */
	uint64_t magnitude;	/* TK_NUMBER: an integer's value */
	double value;		/* TK_NUMBER: a float's value */
};

struct parser {
	struct expr *e;
	const char *s;		/* the text */
	struct token tok;	/* the token being looked at */
	int prev_end;		/* where the token before it ends */
	int depth;		/* levels of nesting open */
	const char *const *names;	/* the operands */
	int nnames;
	struct strbuf *err;
};

static int ternary(struct parser *p);

/* Return 1 if C may continue an identifier or a number. */
static int
word_char(int c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.';
}

/* Read the number that starts at t->pos: 42, 0x2A, 1.5, .5, 1e-3, 2.5E+4. */
static void
lex_number(struct token *t, const char *s)
{
	int i = t->pos;
	char text[NUMBER_CHARS];

	t->kind = TK_NUMBER;
	if (s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		i += 2;
		while (isxdigit((unsigned char)s[i]))
			i++;
		if (i == t->pos + 2) {
			t->len = 2;
			t->flaw = FLAW_HEX;
			return;
		}
	} else {
		while (isdigit((unsigned char)s[i]))
			i++;
		if (s[i] == '.') {
			t->is_float = 1;
			i++;
			while (isdigit((unsigned char)s[i]))
				i++;
		}
		if ((s[i] == 'e' || s[i] == 'E')
		    && (isdigit((unsigned char)s[i + 1])
		        || ((s[i + 1] == '+' || s[i + 1] == '-') && isdigit((unsigned char)s[i + 2])))) {
			t->is_float = 1;
			i += 2;
			while (isdigit((unsigned char)s[i]))
				i++;
		}
	}
	if (word_char(s[i]) || i - t->pos >= NUMBER_CHARS) {
		while (word_char(s[i]))
			i++;
		t->len = i - t->pos;
		t->flaw = FLAW_CHARS;
		return;
	}
	t->len = i - t->pos;
	snprintf(text, sizeof text, "%.*s", t->len, s + t->pos);
	errno = 0;
	if (!t->is_float && text[0] == '0' && isdigit((unsigned char)text[1])) {
		t->flaw = FLAW_ZERO;
	} else if (t->is_float) {
		t->value = strtod(text, NULL);
		if (errno == ERANGE && isinf(t->value))
			t->flaw = FLAW_FLOAT_RANGE;
	} else {
		t->magnitude = (uint64_t)strtoull(text, NULL, 0);
		if (errno == ERANGE)
			t->flaw = FLAW_INT_RANGE;
	}
}

/* Move to the next token. */
static void
next(struct parser *p)
{
	const char *s = p->s;
	struct token *t = &p->tok;
	int i = t->pos + t->len;

	p->prev_end = i;
	while (isspace((unsigned char)s[i]))
		i++;
	memset(t, 0, sizeof *t);
	t->pos = i;
	if (s[i] == '\0') {
		t->kind = TK_END;
	} else if (isdigit((unsigned char)s[i])
	           || (s[i] == '.' && isdigit((unsigned char)s[i + 1]))) {
		lex_number(t, s);
	} else if (isalpha((unsigned char)s[i]) || s[i] == '_') {
		t->kind = TK_NAME;
		while (isalnum((unsigned char)s[i]) || s[i] == '_')
			i++;
		t->len = i - t->pos;
		if (t->len >= NAME_CHARS)
			t->flaw = FLAW_LONG;
	} else {
		t->kind = TK_SYMBOL;
		t->len = 1;
		for (const struct binop *b = binops; b->token; b++)
			if (b->token[1] && strncmp(s + i, b->token, 2) == 0)
				t->len = 2;
	}
}

/* Return 1 if the token looked at is the operator or punctuation SYM. */
static int
is(const struct parser *p, const char *sym)
{
	return p->tok.kind == TK_SYMBOL && (size_t)p->tok.len == strlen(sym)
	       && strncmp(p->s + p->tok.pos, sym, (size_t)p->tok.len) == 0;
}

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

/*
** Return the character at offset POS of S in BUF (5 bytes): the whole
** UTF-8 sequence a non-ASCII byte starts, so that a message quotes it
** as the user typed it.
*/
static const char *
char_at(const char *s, int pos, char *buf)
{
	int n = 1;

	while (n < 4 && ((unsigned char)s[pos] & 0xC0) == 0xC0
	       && ((unsigned char)s[pos + n] & 0xC0) == 0x80)
		n++;
	memcpy(buf, s + pos, (size_t)n);
	buf[n] = 0;
	return buf;
}

/* Report what is wrong with the token looked at; return -1. */
static int
fail_flaw(struct parser *p)
{
	const struct token *t = &p->tok;
	const char *text = p->s + t->pos;
	int n = t->len < NUMBER_CHARS ? t->len : NUMBER_CHARS - 1;

	switch (t->flaw) {
	case FLAW_HEX:
		return fail(p, t->pos, "bad number: '0x' needs hex digits");
	case FLAW_CHARS:
		return fail(p, t->pos, "bad number '%.*s'", n, text);
	case FLAW_ZERO:
		return fail(p, t->pos, "'%.*s' starts with 0: write decimal numbers without "
		            "leading zeros, hex ones with 0x", n, text);
	case FLAW_INT_RANGE:
		return fail(p, t->pos, "integer literal '%.*s' does not fit in 64 bits", n, text);
	case FLAW_FLOAT_RANGE:
		return fail(p, t->pos, "float literal '%.*s' is out of range", n, text);
	case FLAW_LONG:
		return fail(p, t->pos, "name '%.*s...' is too long", NAME_CHARS - 1, text);
	case FLAW_NONE:
		break;
	}
	return 0;
}

/* Open a level of nesting at the token at POS that opens it. */
static int
enter(struct parser *p, int pos)
{
	if (++p->depth > EXPR_MAX_DEPTH)
		return fail(p, pos, "the expression nests too deeply: more than %d levels",
		            EXPR_MAX_DEPTH);
	return 0;
}

static void
leave(struct parser *p)
{
	p->depth--;
}

/*
** Make a node of KIND whose text is from START to the end of the token
** just read; return its index or -1.
*/
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
	n->end = p->prev_end;
	return e->n++;
}

/* Make the node of OP applied to NARGS nodes ARGS, its operator at AT. */
static int
new_op(struct parser *p, const struct op *op, const int *args, int nargs, int start, int at)
{
	int i = new_node(p, EXPR_OP, start);

	if (i < 0)
		return -1;
	p->e->node[i].op = op;
	p->e->node[i].nargs = nargs;
	memcpy(p->e->node[i].arg, args, (size_t)nargs * sizeof *args);
	p->e->node[i].at = at;
	return i;
}

/* Read the arguments of a call after its '(': "a, b)". */
static int
arguments(struct parser *p, int *args, int *nargs)
{
	*nargs = 0;
	if (!is(p, ")")) {
		for (;;) {
			if (*nargs == BC_MAX_ARGS)
				return fail(p, p->tok.pos, "more than %d arguments in one call",
				            BC_MAX_ARGS);
			if ((args[(*nargs)++] = ternary(p)) < 0)
				return -1;
			if (!is(p, ","))
				break;
			next(p);
		}
		if (!is(p, ")"))
			return fail(p, p->tok.pos, "expected ',' or ')' in the arguments");
	}
	next(p);
	return 0;
}

/* Read a call of function or cast NAME, whose name starts at START, from its '('. */
static int
call(struct parser *p, const char *name, int start)
{
	const struct dtype *cast = dtype_find(name);
	const struct op *f = op_func(name);
	int args[BC_MAX_ARGS], nargs, i, lo, hi;

	if (!f && !cast) {
		fail(p, start, "unknown function '%s' (there are ", name);
		op_list(p->err, 1);
		sb_add(p->err, ", and the casts f32(a) i16(a) ...)");
		return -1;
	}
	/* an op of any number of operands: two or more, as min(a, b, c) */
	lo = f && f->max_args == 0 ? 2 : f ? f->min_args : 1;
	hi = f && f->max_args == 0 ? BC_MAX_ARGS : f ? f->max_args : 1;
	if (enter(p, p->tok.pos) != 0)
		return -1;
	next(p);
	if (arguments(p, args, &nargs) != 0)
		return -1;
	leave(p);
	if (cast && nargs != 1)
		return fail(p, start, "the cast %s(...) takes one argument", name);
	if (f && (nargs < lo || nargs > hi)) {
		if (lo == hi)
			return fail(p, start, "%s takes %d argument%s, got %d", name, lo,
			            lo == 1 ? "" : "s", nargs);
		return fail(p, start, "%s takes at least %d arguments, got %d", name, lo, nargs);
	}
	if (cast) {
		if ((i = new_node(p, EXPR_CAST, start)) < 0)
			return -1;
		p->e->node[i].calc = cast;
		p->e->node[i].nargs = 1;
		p->e->node[i].arg[0] = args[0];
		return i;
	}
	return new_op(p, f, args, nargs, start, start);
}

/* Read a number, an operand, a call or a parenthesized expression. */
static int
primary(struct parser *p)
{
	const struct token t = p->tok;
	int i;
	char name[NAME_CHARS], c[5];

	if ((t.kind == TK_NUMBER || t.kind == TK_NAME) && t.flaw != FLAW_NONE)
		return fail_flaw(p);
	switch (t.kind) {
	case TK_NUMBER:
		next(p);
		if ((i = new_node(p, EXPR_LITERAL, t.pos)) >= 0) {
			p->e->node[i].is_float = t.is_float;
			p->e->node[i].magnitude = t.magnitude;
			p->e->node[i].value = t.value;
		}
		return i;
	case TK_NAME:
		snprintf(name, sizeof name, "%.*s", t.len, p->s + t.pos);
		next(p);
		if (is(p, "("))
			return call(p, name, t.pos);
		for (int k = 0; k < p->nnames; k++)
			if (strcmp(p->names[k], name) == 0) {
				if ((i = new_node(p, EXPR_OPERAND, t.pos)) >= 0)
					p->e->node[i].operand = k;
				return i;
			}
		return fail(p, t.pos, "unknown operand '%s'", name);
	case TK_END:
		return fail(p, t.pos, "expected an operand, a number or '(' at the end");
	case TK_SYMBOL:
		break;
	}
	if (!is(p, "("))
		return fail(p, t.pos, "expected an operand, a number or '(', not '%s'",
		            char_at(p->s, t.pos, c));
	if (enter(p, t.pos) != 0)
		return -1;
	next(p);
	if ((i = ternary(p)) < 0)
		return -1;
	if (!is(p, ")"))
		return fail(p, p->tok.pos, "expected ')'");
	next(p);
	leave(p);
	p->e->node[i].start = t.pos;	/* its text keeps the parentheses */
	p->e->node[i].end = p->prev_end;
	return i;
}

/*
** Return the operator that writes op ID in an expression: a binary one
** ("+"), a unary one ("~"; "-" is subtract's and negative's, told apart
** by their operands) or "?:"; NULL if only a call or nothing does.
*/
const char *
expr_operator(enum op_id id)
{
	for (const struct binop *b = binops; b->token; b++)
		if (b->op == id)
			return b->token;
	for (const struct unop *u = unops; u->token; u++)
		if (u->op == id)
			return u->token;
	return id == TERNARY_OP ? "?:" : NULL;
}

/* Return the binary operator looked at, or NULL. */
static const struct binop *
binop(const struct parser *p)
{
	for (const struct binop *b = binops; b->token; b++)
		if (is(p, b->token))
			return b;
	return NULL;
}

/*
** Read a unary expression and the binary operators after it that bind
** tighter than LIMIT (their left priority is higher), as lparser.c's
** subexpr. A unary operator applies to what follows it up to an operator
** looser than itself.
*/
static int
subexpr(struct parser *p, int limit)
{
	const struct unop *u = unops;
	const struct binop *b;
	int args[2], at;

	while (u->token && !is(p, u->token))
		u++;
	if (u->token) {
		at = p->tok.pos;
		if (enter(p, at) != 0)
			return -1;
		next(p);
		if ((args[0] = subexpr(p, UNARY_PRIORITY)) < 0)
			return -1;
		leave(p);
		args[0] = new_op(p, op_get(u->op), args, 1, at, at);
	} else {
		args[0] = primary(p);
	}
	while (args[0] >= 0 && (b = binop(p)) && b->left > limit) {
		/* no level of nesting: all are left-associative, so this recursion
		   goes no deeper than the number of priorities */
		at = p->tok.pos;
		next(p);
		if ((args[1] = subexpr(p, b->right)) < 0)
			return -1;
		args[0] = new_op(p, op_get(b->op), args, 2, p->e->node[args[0]].start, at);
	}
	return args[0];
}

/* Read c ? a : b, or what binds tighter; ?: associates to the right. */
static int
ternary(struct parser *p)
{
	int args[3], at;

	if ((args[0] = subexpr(p, 0)) < 0)
		return -1;
	if (!is(p, "?"))
		return args[0];
	at = p->tok.pos;
	if (enter(p, at) != 0)
		return -1;
	next(p);
	if ((args[1] = ternary(p)) < 0)
		return -1;
	if (!is(p, ":"))
		return fail(p, p->tok.pos, "expected ':' of '?'");
	next(p);
	if ((args[2] = ternary(p)) < 0)
		return -1;
	leave(p);
	return new_op(p, op_get(TERNARY_OP), args, 3, p->e->node[args[0]].start, at);
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
	struct parser p;
	char c[5];

	memset(e, 0, sizeof *e);
	e->src = src;
	e->err_pos = -1;
	memset(&p, 0, sizeof p);
	p.e = e;
	p.s = src;
	p.names = names;
	p.nnames = nnames;
	p.err = err;
	next(&p);
	if ((e->root = ternary(&p)) < 0)
		return -1;
	if (p.tok.kind != TK_END)
		return fail(&p, p.tok.pos, "unexpected '%s' after the expression",
		            char_at(src, p.tok.pos, c));
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
