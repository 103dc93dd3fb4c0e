/*
** t001-shape: parsing NAME=SHAPE operands, without Lua.
*/
#include <string.h>

#include "shape.h"
#include "tap.h"

/* Parse ARG; return 0 or -1, and the message in *MSG (static storage). */
static int
parse(const char *arg, struct operand *op, const char **msg)
{
	static struct strbuf err;
	int r;

	sb_free(&err);
	r = operand_parse(arg, op, LANG_EN, &err);
	*msg = err.s ? err.s : "";
	return r;
}

/* Return 1 if ARG fails to parse with a message containing WANT. */
static int
fails_with(const char *arg, const char *want)
{
	struct operand op;
	const char *msg;

	if (parse(arg, &op, &msg) == 0)
		return 0;
	if (!strstr(msg, want)) {
		diag("'%s': got '%s', want '%s'", arg, msg, want);
		return 0;
	}
	return 1;
}

int
main(void)
{
	struct operand op;
	const char *msg;
	struct strbuf sb = {0};
	char big[400];

	ok1(parse("x=2,3,1,5", &op, &msg) == 0 && strcmp(op.name, "x") == 0);
	ok1(op.shape.rank == 4 && op.shape.dim[0] == 2 && op.shape.dim[3] == 5);
	ok1(parse("s=", &op, &msg) == 0 && op.shape.rank == 0);
	ok1(shape_count(&op.shape) == 1);
	ok1(parse("e=0,3", &op, &msg) == 0 && op.shape.rank == 2 && op.shape.dim[0] == 0);
	ok1(shape_count(&op.shape) == 0);
	ok1(parse("_bias2=64,1,1", &op, &msg) == 0 && strcmp(op.name, "_bias2") == 0);
	ok1(parse("x=007", &op, &msg) == 0 && op.shape.dim[0] == 7);
	ok1(parse("x=9223372036854775807", &op, &msg) == 0);

	ok1(fails_with("x", "expected NAME=SHAPE (or a spec file NAME.lua), got 'x'"));
	ok1(fails_with("=3", "operand name '' is not a C identifier"));
	ok1(fails_with("1x=3", "operand name '1x' is not a C identifier"));
	ok1(fails_with("x-y=3", "operand name 'x-y' is not a C identifier"));
	ok1(fails_with("x=2,-3", "bad size '-3' in shape '2,-3' of operand 'x'"));
	ok1(fails_with("x=2,a", "bad size 'a'"));
	ok1(fails_with("x=+2", "bad size '+2'"));
	ok1(fails_with("x=2, 3", "bad size ' 3'"));
	ok1(fails_with("x=2,,3", "empty size in shape '2,,3' of operand 'x'"));
	ok1(fails_with("x=3,", "empty size"));
	ok1(fails_with("x=,3", "empty size"));
	ok1(fails_with("x=9223372036854775808", "is too large"));
	ok1(fails_with("x=99999999999999999999999", "is too large"));
	ok1(fails_with("x=4294967296,4294967296", "more elements than the limit"));
	ok1(fails_with("x=0,4294967296,4294967296", "more elements than the limit"));
	ok1(parse("x=0,4294967296,2147483647", &op, &msg) == 0);

	strcpy(big, "x=");
	for (int i = 0; i < 64; i++)
		strcat(big, i ? ",1" : "1");
	ok1(parse(big, &op, &msg) == 0 && op.shape.rank == 64);
	strcat(big, ",1");
	ok1(fails_with(big, "operand 'x' has more than 64 dimensions"));

	memset(big, 'a', 70);
	strcpy(big + 70, "=3");
	ok1(fails_with(big, "is longer than 63 characters"));

	parse("x=2,3", &op, &msg);
	shape_format(&sb, &op.shape);
	parse("x=3", &op, &msg);
	shape_format(&sb, &op.shape);
	parse("x=", &op, &msg);
	shape_format(&sb, &op.shape);
	ok1(strcmp(sb.s, "(2,3)(3,)()") == 0);
	sb_free(&sb);
	return done_testing();
}
