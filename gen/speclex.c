/*
** speclex.c: the line a field of a spec kernel's table is written on.
**
** Lua keeps no line for each field of a table constructor, so a message
** about a field of
**
**   kernel "k" {
**     op = "mul",
**     axis = 1.5,        <- line 3
**     "x=2,3", "y=3",
**   }
**
** would name the kernel's first line. When a message is due, this file
** reads the spec's text with a small Lua lexer (names, strings, long
** strings, comments, brackets) and finds the field in the table
** constructor that opens on the kernel's line (the nth, when kernels
** share the line) or right after it. It only reads; where the table was
** built elsewhere (a helper function, a local), it finds no constructor,
** or one without the kernel's operands, and the kernel's line stands.
*/
#include <string.h>

#include "speclex.h"

enum token {
	T_EOF,
	T_NAME,		/* a name or a keyword */
	T_OTHER,	/* a string, a number, an operator */
	T_OPEN,		/* ( [ */
	T_CLOSE,	/* ) ] } */
	T_SEP,		/* , ; */
	T_ASSIGN,	/* = alone, not == */
	T_BRACE		/* { */
};

struct lexer {
	const char *p, *end;
	int line;		/* of the text at p */
	int token_line;		/* the line the last token starts on */
	const char *name;	/* the last T_NAME's text, and its length */
	size_t name_len;
	char open;		/* the last T_OPEN's or T_BRACE's character */
};

/* Return whether C ends a line, as Lua counts: "\n", "\r", "\r\n" or "\n\r". */
static int
is_newline(char c)
{
	return c == '\n' || c == '\r';
}

/* Step over one newline at p. */
static void
newline(struct lexer *lx)
{
	char c = *lx->p++;

	if (lx->p < lx->end && is_newline(*lx->p) && *lx->p != c)
		lx->p++;
	lx->line++;
}

/*
** If p is at a long bracket's opening ("[[", "[=[", ...), step over it
** and return its level (the count of '='); otherwise return -1.
*/
static int
long_open(struct lexer *lx)
{
	const char *q = lx->p + 1;
	int level;

	while (q < lx->end && *q == '=')
		q++;
	if (q >= lx->end || *q != '[')
		return -1;
	level = (int)(q - lx->p - 1);
	lx->p = q + 1;
	return level;
}

/* Step over a long string's or comment's body and its closing bracket of LEVEL. */
static void
long_body(struct lexer *lx, int level)
{
	while (lx->p < lx->end) {
		if (is_newline(*lx->p)) {
			newline(lx);
		} else if (*lx->p == ']') {
			const char *q = lx->p + 1;

			while (q < lx->end && *q == '=')
				q++;
			if (q < lx->end && *q == ']' && q - lx->p - 1 == level) {
				lx->p = q + 1;
				return;
			}
			lx->p++;
		} else {
			lx->p++;
		}
	}
}

/* Step over a quoted string whose quote is at p; escapes may hold newlines. */
static void
quoted(struct lexer *lx)
{
	char quote = *lx->p++;

	while (lx->p < lx->end && *lx->p != quote) {
		if (is_newline(*lx->p))
			return;		/* unfinished: Lua refused it already */
		if (*lx->p == '\\' && lx->p + 1 < lx->end) {
			lx->p++;
			if (is_newline(*lx->p)) {
				newline(lx);
				continue;
			}
			if (*lx->p == 'z') {	/* \z skips the blanks and newlines after it */
				lx->p++;
				while (lx->p < lx->end && strchr(" \t\v\f\r\n", *lx->p)) {
					if (is_newline(*lx->p))
						newline(lx);
					else
						lx->p++;
				}
				continue;
			}
		}
		lx->p++;
	}
	if (lx->p < lx->end)
		lx->p++;
}

static int
is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
	       || c == '_';
}

/* Read the next token; lx->token_line is the line it starts on. */
static enum token
next_token(struct lexer *lx)
{
	int level;

	for (;;) {
		if (lx->p >= lx->end)
			return T_EOF;
		if (is_newline(*lx->p)) {
			newline(lx);
		} else if (strchr(" \t\v\f", *lx->p)) {
			lx->p++;
		} else if (lx->p[0] == '-' && lx->p + 1 < lx->end && lx->p[1] == '-') {
			lx->p += 2;
			if (lx->p < lx->end && *lx->p == '[' && (level = long_open(lx)) >= 0) {
				long_body(lx, level);
			} else {
				while (lx->p < lx->end && !is_newline(*lx->p))
					lx->p++;
			}
		} else {
			break;
		}
	}
	lx->token_line = lx->line;
	if (is_name_char(*lx->p)) {
		int name = !(*lx->p >= '0' && *lx->p <= '9');

		lx->name = lx->p;
		while (lx->p < lx->end && (is_name_char(*lx->p) || (!name && *lx->p == '.')))
			lx->p++;
		lx->name_len = (size_t)(lx->p - lx->name);
		return name ? T_NAME : T_OTHER;
	}
	if (*lx->p == '"' || *lx->p == '\'') {
		quoted(lx);
		return T_OTHER;
	}
	if (*lx->p == '[' && (level = long_open(lx)) >= 0) {
		long_body(lx, level);
		return T_OTHER;
	}
	switch (*lx->p) {
	case '(': case '[': case '{':
		lx->open = *lx->p++;
		return lx->open == '{' ? T_BRACE : T_OPEN;
	case ')': case ']': case '}':
		lx->p++;
		return T_CLOSE;
	case ',': case ';':
		lx->p++;
		return T_SEP;
	case '=':
		lx->p++;
		if (lx->p < lx->end && *lx->p == '=') {
			lx->p++;
			return T_OTHER;
		}
		return T_ASSIGN;
	default:
		lx->p++;	/* the other operators: one character is enough here */
		return T_OTHER;
	}
}

/*
** Read the items of the constructor whose '{' was just read: return the
** line of the last field NAME (or, NAME NULL, of the INDEX-th item
** without a key), or 0 if it has none or has not NPOSITIONAL items
** without a key (then it is not the table asked about).
*/
static int
find_item(struct lexer *lx, const char *name, int index, int npositional)
{
	int depth = 0, positional = 0, found = 0;
	enum token t = T_SEP;

	for (;;) {
		/* t is the token before this one: at depth 0, ',' ';' or '{' start an item */
		int start = depth == 0 && t == T_SEP;
		int line;

		t = next_token(lx);
		line = lx->token_line;
		if (t == T_EOF)
			return 0;
		if (t == T_CLOSE && depth == 0)
			return positional == npositional ? found : 0;
		if (t == T_OPEN || t == T_BRACE)
			depth++;
		else if (t == T_CLOSE)
			depth--;
		if (!start)
			continue;
		if (t == T_OPEN && lx->open == '[')
			continue;			/* [key] = value */
		if (t == T_NAME) {
			const char *key = lx->name;
			size_t key_len = lx->name_len;
			struct lexer ahead = *lx;

			if (next_token(&ahead) == T_ASSIGN) {
				if (name && strlen(name) == key_len && memcmp(name, key, key_len) == 0)
					found = line;	/* Lua keeps the last */
				continue;
			}
		}
		if (++positional == index && !name)
			found = line;
	}
}

/*
** Return the line of the field NAME, or (NAME NULL) of operand INDEX
** (1-based), in the NTH table constructor (from 0) outside any other
** that opens on line LINE of the spec's text SRC (LEN bytes): a '{' on
** that line, or the first token after it (a brace on a line of its
** own). Return LINE itself if there is no such constructor, if it has
** not NPOSITIONAL operands (it is another table than the one asked
** about), or if it has no such field.
*/
int
speclex_field_line(const char *src, size_t len, int line, int nth, int npositional,
                   const char *name, int index)
{
	struct lexer lx = {src, src + len, 1, 0, NULL, 0, 0};
	int braces = 0, seen = 0, after = 0;
	enum token t;

	while ((t = next_token(&lx)) != T_EOF && !after) {
		after = lx.token_line > line;	/* the first token after the line */
		if (t == T_BRACE && braces == 0 && (lx.token_line == line || after)
		    && seen++ == nth) {
			int found = find_item(&lx, name, index, npositional);

			return found ? found : line;
		}
		if (t == T_BRACE)
			braces++;
		else if (t == T_CLOSE && braces > 0 && lx.p[-1] == '}')
			braces--;
	}
	return line;
}
