/*
** t002-bcast: the NumPy rule and Paddle's axis, without Lua: result
** shapes, rules, strides and errors.
*/
#include <stdio.h>
#include <string.h>

#include "bcast.h"
#include "tap.h"

#define MAX_OPS 1001		/* the most a test resolves: any number works */

static struct operand ops[MAX_OPS];
static struct bcast b;

/*
** Resolve the operands in ARGS ("x=2,1,4 y=3,1"), by the NumPy rule, or
** by Paddle's AXIS when AXIS_MODE. Return B.err.
*/
static int
resolve(const char *args, int axis_mode, int axis)
{
	static char buf[16384];
	char *tok;
	int n = 0;

	strcpy(buf, args);
	for (tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
		struct strbuf err = {0};

		if (operand_parse(tok, &ops[n++], LANG_EN, &err) != 0)
			diag("bad operand in test: %s", err.s);
		sb_free(&err);
	}
	bcast_free(&b);
	bcast_resolve(&b, ops, n, axis_mode, axis);
	return (int)b.err;
}

/* Return 1 if B resolved to the comma-separated result WANT. */
static int
result_is(const char *want)
{
	struct strbuf sb = {0};
	int r;

	if (b.err) {
		diag("error %d, want %s", (int)b.err, want);
		return 0;
	}
	sb_add(&sb, "");
	for (int d = 0; d < b.rank; d++)
		sb_printf(&sb, d ? ",%llu" : "%llu", (unsigned long long)b.dim[d]);
	r = strcmp(sb.s, want) == 0;
	if (!r)
		diag("result %s, want %s", sb.s, want);
	sb_free(&sb);
	return r;
}

/* Return 1 if operand I's strides are the RANK values in WANT. */
static int
strides_are(int i, const long long *want)
{
	for (int d = 0; d < b.rank; d++)
		if (b.op[i].stride[d] != want[d])
			return 0;
	return 1;
}

/* Return 1 if the error message in LANG contains WANT. */
static int
message_in(enum lang lang, const char *want)
{
	struct strbuf sb = {0};
	int r;

	bcast_format_error(&sb, &b, lang);
	r = strstr(sb.s, want) != NULL;
	if (!r)
		diag("message:\n%s\nwant: %s", sb.s, want);
	sb_free(&sb);
	return r;
}

/* Return 1 if the error message contains WANT, in English or in Chinese. */
static int
message_has(const char *want)
{
	return message_in(LANG_EN, want);
}

static int
message_zh_has(const char *want)
{
	return message_in(LANG_ZH, want);
}

int
main(void)
{
	/* The NumPy rule. */
	ok1(resolve("x=2,3,1,5 y=3,4,1", 0, 0) == BC_OK && result_is("2,3,4,5"));
	ok1(strides_are(0, (long long[]){15, 5, 0, 1}));
	ok1(strides_are(1, (long long[]){0, 4, 1, 0}));
	ok1(b.op[1].pad == 1 && b.op[1].rule[0] == BC_MISSING);
	ok1(b.op[0].rule[2] == BC_STRETCH && b.op[1].rule[2] == BC_EQUAL);
	ok1(b.op[0].rule[1] == BC_EQUAL && b.op[1].rule[3] == BC_STRETCH);

	ok1(resolve("x=2,1,4 y=3,2", 0, 0) == BC_ERR_MISMATCH);
	ok1(b.err_dim == 2 && b.err_a == 0 && b.err_b == 1);
	ok1(b.op[1].rule[2] == BC_MISMATCH);
	ok1(message_has("operands could not be broadcast together with shapes x(2,1,4) y(3,2)"));
	ok1(message_has("dim 2: x has 4, y has 2"));

	ok1(resolve("s=", 0, 0) == BC_OK && b.rank == 0);
	ok1(resolve("s= x=4,32,8", 0, 0) == BC_OK && result_is("4,32,8"));
	ok1(strides_are(0, (long long[]){0, 0, 0}));
	ok1(resolve("a=3,1,2 b=1,2,1 d=2,1,2,2", 0, 0) == BC_OK && result_is("2,3,2,2"));
	ok1(strides_are(2, (long long[]){4, 0, 2, 1}));
	ok1(resolve("a=3 b=3 c=4", 0, 0) == BC_ERR_MISMATCH && b.err_a == 0 && b.err_b == 2);

	/* Zero sizes: 0 with 1 gives 0, 0 with 0 gives 0, 0 with 2 fails. */
	ok1(resolve("x=0,3 y=1,3", 0, 0) == BC_OK && result_is("0,3"));
	ok1(resolve("x=0 y=0", 0, 0) == BC_OK && result_is("0"));
	ok1(resolve("x=0 y=2,2", 0, 0) == BC_ERR_MISMATCH && b.err_dim == 1);
	ok1(resolve("x=2 y=0", 0, 0) == BC_ERR_MISMATCH);

	/* A result too big to count, from operands that are not. */
	ok1(resolve("x=4294967296,1 y=1,4294967296", 0, 0) == BC_ERR_TOO_BIG);
	ok1(message_has("more elements than the limit"));

	/* The order compared: NumPy's from the last dimension; with an axis,
	 * Paddle's from the axis forward, then the dimensions before it. */
	ok1(resolve("x=2,3,4 y=5,6", 0, 0) == BC_ERR_MISMATCH && b.err_dim == 2);
	ok1(b.ncompared == 1 && b.order[0] == 2);
	ok1(resolve("x=2,3,4 y=5,6", 1, -1) == BC_ERR_MISMATCH && b.err_dim == 1);
	ok1(resolve("x=2,3,4,5 y=3,4", 1, 1) == BC_OK && b.ncompared == 4);
	ok1(b.order[0] == 1 && b.order[1] == 2 && b.order[2] == 3 && b.order[3] == 0);
	ok1(resolve("x=2,3 y=4,3", 1, 0) == BC_ERR_MISMATCH && b.err_dim == 0);

	/* Paddle's axis: the seeds' examples. */
	ok1(resolve("x=2,1,4 y=3,1", 1, 1) == BC_OK && result_is("2,3,4"));
	ok1(b.mode == BC_AXIS_PLACED && b.small == 1 && b.op[1].trimmed == 1);
	ok1(strides_are(1, (long long[]){0, 1, 0}));
	ok1(resolve("x=2,3,4,5 y=4,5", 1, 1) == BC_ERR_MISMATCH && b.err_dim == 1);
	ok1(b.naxis_ok == 2 && b.axis_ok[0] == 2 && b.axis_ok[1] == -1);
	ok1(message_has("y was placed at axis 1 of x"));
	ok1(message_has("axis values that work: 2, -1"));
	ok1(message_zh_has("可行的 axis：2、-1"));
	ok1(resolve("x=2,3,4,5 y=3", 1, 1) == BC_OK && result_is("2,3,4,5"));
	ok1(resolve("x=100,2,3 y=100", 1, 0) == BC_OK && result_is("100,2,3"));
	ok1(resolve("x=100,2,3 y=100", 0, 0) == BC_ERR_MISMATCH);
	ok1(resolve("x=100,2,3 y=100", 1, -1) == BC_ERR_MISMATCH && b.mode == BC_NUMPY);

	/* The lower-rank operand may be x; both may stretch. */
	ok1(resolve("x=3 y=2,3,4", 1, 1) == BC_OK && result_is("2,3,4") && b.small == 0);
	ok1(resolve("x=2,1,4 y=1,3", 1, 0) == BC_OK && result_is("2,3,4"));

	/* Identical shapes ignore the axis; equal ranks allow only -1 and 0. */
	ok1(resolve("x=2,3 y=2,3", 1, 5) == BC_OK && b.mode == BC_AXIS_IDENTICAL);
	ok1(resolve("x=2,3 y=1,3", 1, 0) == BC_OK && b.mode == BC_AXIS_EQUAL_RANK);
	ok1(resolve("x=2,3 y=1,3", 1, 1) == BC_ERR_AXIS);
	ok1(message_has("which have the same rank: it must be -1 or 0"));

	/* The axis range counts the rank without trailing 1s. */
	ok1(resolve("x=2,3,4,5 y=4,5,1", 1, 2) == BC_OK && result_is("2,3,4,5"));
	ok1(resolve("x=2,3,4,5 y=4,5,1", 1, 3) == BC_ERR_AXIS && b.axis_hi == 2);
	ok1(message_has("it must be -1, 0 to 2, or -2 (y counts as rank 2"));
	ok1(resolve("x=2,3,4 y=1,1", 1, 2) == BC_OK && result_is("2,3,4"));

	/*
	** As Paddle's shape inference: axes from -R to R - 1 (R the larger
	** rank), an axis k below -1 meaning |rank x - rank y| + k + 1.
	*/
	ok1(resolve("x=2,3,4,5 y=3,4", 1, -2) == BC_OK && result_is("2,3,4,5"));
	ok1(b.mapped && b.placed_at == 1 && b.op[1].pad == 1);
	ok1(strides_are(1, (long long[]){0, 4, 1, 0}));
	ok1(resolve("x=3,4 y=2,3,4,5", 1, -2) == BC_OK && result_is("2,3,4,5") && b.small == 0);
	ok1(resolve("x=2,3,4,5 y=3", 1, -2) == BC_ERR_MISMATCH && b.placed_at == 2);
	ok1(message_has("y was placed at axis 2 of x (axis -2 is axis 2 here: "
	                "an axis k below -1 means |4 - 1| + k + 1)"));
	ok1(resolve("x=2,3,4,5 y=2", 1, -4) == BC_OK && result_is("2,3,4,5"));
	ok1(b.placed_at == 0 && b.neg_lo == -4 && b.neg_hi == -2);
	ok1(resolve("x=2,3,4,5 y=3,4", 1, -4) == BC_ERR_AXIS && b.placed_at == -1);
	ok1(message_has("axis -4 is out of range for x(2,3,4,5) and y(3,4) (axis -4 is axis -1 "
	                "here: an axis k below -1 means |4 - 2| + k + 1), and for these "
	                "shapes it must be -1, 0 to 2, or -3 to -2"));
	ok1(resolve("x=2,3,4,5 y=3,4", 1, -5) == BC_ERR_AXIS);
	ok1(message_has("Paddle's axes go from -4 to 3 (the larger rank is 4)"));
	ok1(resolve("x=2,3,4,5 y=3,4", 1, 4) == BC_ERR_AXIS);
	ok1(resolve("x=2,3,4,5 y=3,4", 1, -2147483647 - 1) == BC_ERR_AXIS);
	/* y that trims to rank 0 may not sit at axis R: Paddle's range is [-R, R) */
	ok1(resolve("x=2,3,4 y=1,1", 1, 3) == BC_ERR_AXIS && b.axis_hi == 2);
	ok1(message_has("Paddle's axes go from -3 to 2"));
	ok1(resolve("x=2,3,4 y=1,1", 1, -2) == BC_OK && b.placed_at == 0);
	ok1(resolve("x=2,3,4 y=1,1", 1, -3) == BC_ERR_AXIS);
	ok1(resolve("x=2,3 y=1", 1, 2) == BC_ERR_AXIS);
	ok1(resolve("x=5 y=", 1, 0) == BC_OK && result_is("5"));
	ok1(resolve("x=5 y=", 1, 1) == BC_ERR_AXIS);
	ok1(resolve("x=5 y=", 1, -2) == BC_ERR_AXIS);
	ok1(message_has("it must be -1, or 0"));
	ok1(resolve("x=2,3,4 y=", 1, -3) == BC_OK && b.placed_at == 1);
	ok1(resolve("x=2,3 y=1,3", 1, -2) == BC_ERR_AXIS);
	ok1(message_has("which have the same rank: it must be -1 or 0"));
	ok1(resolve("x=2,3 y=5", 1, 0) == BC_ERR_MISMATCH && b.naxis_ok == 0);
	ok1(message_has("no axis value works"));
	ok1(resolve("x=2 y=2 z=2", 1, 0) == BC_ERR_OPERANDS);
	ok1(message_has("exactly two operands"));

	/* Any number of operands, as numpy.broadcast_shapes takes. */
	{
		static char args[16384];
		size_t len = 0;

		for (int i = 0; i < 100; i++)	/* NumPy's test: (1, 2) a hundred times */
			len += (size_t)sprintf(args + len, "%sa%d=1,2", i ? " " : "", i);
		ok1(resolve(args, 0, 0) == BC_OK && result_is("1,2") && b.nops == 100);
		len = 0;
		for (int i = 0; i < 32; i++)	/* and 32 operands plus a scalar */
			len += (size_t)sprintf(args + len, "a%d=1,2 ", i);
		sprintf(args + len, "s=");
		ok1(resolve(args, 0, 0) == BC_OK && result_is("1,2") && b.nops == 33);
		len = 0;
		for (int i = 0; i < 1000; i++)
			len += (size_t)sprintf(args + len, "%sa%d=%s", i ? " " : "", i,
			                       i == 500 ? "3,1" : i == 999 ? "4" : "1");
		ok1(resolve(args, 0, 0) == BC_OK && result_is("3,4") && b.nops == 1000);
		ok1(strides_are(500, (long long[]){1, 0}) && strides_are(999, (long long[]){0, 1}));
		len = 0;
		for (int i = 0; i < 1000; i++)
			len += (size_t)sprintf(args + len, "%sa%d=%s", i ? " " : "", i,
			                       i == 998 ? "2" : i == 999 ? "3" : "1");
		ok1(resolve(args, 0, 0) == BC_ERR_MISMATCH && b.err_a == 998 && b.err_b == 999);
	}

	/* broadcast_to: the shape takes part, and is no operand once resolved */
	{
		struct operand to;
		struct strbuf err = {0};

		ok1(operand_parse("out=3,2,2", &to, LANG_EN, &err) == 0);
		ok1(resolve("x=1,2,1", 0, 0) == BC_OK);
		bcast_free(&b);
		bcast_resolve_to(&b, ops, 1, &to);
		ok1(result_is("3,2,2") && b.nops == 1 && strides_are(0, (long long[]){0, 1, 0}));
		ok1(operand_parse("out=3,3,2", &to, LANG_EN, &err) == 0);
		bcast_free(&b);
		bcast_resolve_to(&b, ops, 1, &to);
		ok1(b.err == BC_ERR_MISMATCH && b.nops == 2 && message_has("out(3,3,2)"));
		sb_free(&err);
	}
	bcast_free(&b);
	return done_testing();
}
