/*
** t004-plan: the planner's decisions, without Lua: loops and their
** extents, how each operand moves, where each input is read, the
** strategy, the unrolled offsets, the typed value tree, the values
** computed once, the loops put in another order and the code items laid
** out from it all.
*/
#include <string.h>

#include "plan.h"
#include "tap.h"

static struct operand ops[PLAN_MAX_INPUTS];
static const char *names[PLAN_MAX_INPUTS];
static const struct dtype *in_dt[PLAN_MAX_INPUTS];
static struct bcast b;
static struct expr e;
static struct plan p;
static struct plan_request rq;
static struct strbuf err;

/*
** Set up a request: the operands in ARGS ("x=8,64,56,56 b:i16=64,1,1"),
** resolved by the NumPy rule, and COMP computed in dtype T: an op's
** name, or else an expression of the operands. The result is stored in
** the computation's dtype. Free what the previous request made. Return
** 0, or -1 (with a diagnostic) if the test's input is bad.
*/
static int
request(const char *args, const char *comp, const char *t)
{
	char buf[512], *tok;
	const struct op *op = op_find(comp);
	int n = 0;

	plan_free(&p);
	expr_free(&e);
	sb_free(&err);
	strcpy(buf, args);
	for (tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
		if (operand_parse(tok, &ops[n], LANG_EN, &err) != 0) {
			diag("bad operand in test: %s", err.s);
			return -1;
		}
		names[n] = ops[n].name;
		in_dt[n] = dtype_find(ops[n].dtype[0] ? ops[n].dtype : t);
		n++;
	}
	bcast_resolve(&b, ops, n, 0, BCAST_NUMPY_AXIS);
	if (b.err) {
		diag("operands in test do not broadcast: %s", args);
		return -1;
	}
	if (op)
		expr_from_op(&e, op, n);
	else if (expr_parse(&e, comp, names, n, &err) != 0) {
		diag("bad expression in test: %s", err.s);
		return -1;
	}
	if (expr_check(&e, dtype_find(t), &err) != 0) {
		diag("expression in test does not check: %s", err.s);
		return -1;
	}
	memset(&rq, 0, sizeof rq);
	rq.nin = n;
	rq.strategy = PLAN_AUTO;
	rq.unroll_limit = (uint64_t)target_default()->block_max;
	rq.cache_size = (uint64_t)32 << 20;
	rq.target = target_default();
	rq.tune = tuning_default();
	rq.expr = &e;
	rq.dtype = dtype_find(t);
	rq.in_dtype = in_dt;
	rq.out_dtype = e.node[e.root].type;
	return 0;
}

/* Build the plan for the request; return plan_build's result. */
static int
build(void)
{
	int r;

	sb_free(&err);
	plan_free(&p);
	r = plan_build(&p, &b, &rq, &err);
	if (r != 0)
		plan_free(&p);
	return r;
}

/* Set up and build with STRATEGY; return 0 on success. */
static int
plan_for(const char *args, const char *comp, const char *t, enum plan_strategy strategy)
{
	if (request(args, comp, t) != 0)
		return -1;
	rq.strategy = strategy;
	return build();
}

/* Return 1 if the plan's loops have the N extents in WANT. */
static int
extents_are(int n, const unsigned long long *want)
{
	int ok = p.nloops == n;

	for (int l = 0; ok && l < n; l++)
		ok = p.loop[l].extent == want[l];
	if (!ok) {
		struct strbuf sb = {0};

		sb_add(&sb, "");
		for (int l = 0; l < p.nloops; l++)
			sb_printf(&sb, " %llu", (unsigned long long)p.loop[l].extent);
		diag("extents:%s", sb.s);
		sb_free(&sb);
	}
	return ok;
}

/* Return 1 if operand I (nin: the output) moves as MOVES and STRIDES say, loop by loop. */
static int
moves_are(int i, const enum plan_move *moves, const long long *strides)
{
	for (int l = 0; l < p.nloops; l++)
		if (p.loop[l].move[i] != moves[l] || p.loop[l].stride[i] != strides[l]) {
			diag("operand %d, loop %d: move %d stride %lld", i, l,
			     (int)p.loop[l].move[i], (long long)p.loop[l].stride[i]);
			return 0;
		}
	return 1;
}

/* Return 1 if the error message contains WANT. */
static int
message_has(const char *want)
{
	int r = err.s && strstr(err.s, want) != NULL;

	if (!r)
		diag("message: %s\nwant: %s", err.s ? err.s : "(none)", want);
	return r;
}

/* The value at the root of the plan's tree. */
static const struct plan_value *
root(void)
{
	return &p.value[p.nvalues - 1];
}

/* Argument K of value V. */
static const struct plan_value *
arg(const struct plan_value *v, int k)
{
	return &p.value[v->arg[k]];
}

/* Return 1 if value V is a read of input I in dtype T. */
static int
is_read(const struct plan_value *v, int i, const char *t)
{
	return v->kind == VALUE_READ && v->operand == i && v->type == dtype_find(t);
}

/* Return 1 if value V converts, in the way HOW, to dtype T. */
static int
is_convert(const struct plan_value *v, enum value_convert how, const char *t)
{
	return v->kind == VALUE_CONVERT && v->convert == how && v->type == dtype_find(t)
	       && v->nargs == 1;
}

/* Return 1 if value V applies op NAME in dtype CALC with FORM. */
static int
is_op(const struct plan_value *v, const char *name, const char *calc, enum value_form form)
{
	return v->kind == VALUE_OP && v->op == op_find(name) && v->calc == dtype_find(calc)
	       && v->form == form;
}

/* Count the values that convert; a plan's tree needs none for same dtypes. */
static int
converts(void)
{
	int n = 0;

	for (int i = 0; i < p.nvalues; i++)
		n += p.value[i].kind == VALUE_CONVERT;
	return n;
}

/* The DESIGN examples: merged loops, moves, reads. */
static void
test_design(void)
{
	static const unsigned long long bias[] = {8, 64, 3136}, row[] = {4096, 1024}, same[] = {60};
	static const enum plan_move x_moves[] = {MOVE_POINTER, MOVE_POINTER, MOVE_INDEX};
	static const enum plan_move b_moves[] = {MOVE_NONE, MOVE_POINTER, MOVE_NONE};
	static const long long x_strides[] = {200704, 3136, 1}, b_strides[] = {0, 1, 0};
	static const enum plan_move row_moves[] = {MOVE_NONE, MOVE_INDEX};
	static const long long row_strides[] = {0, 1}, row_out[] = {1024, 1};

	ok1(plan_for("x=8,64,56,56 b=64,1,1", "add", "f32", PLAN_AUTO) == 0);
	ok1(p.strategy == PLAN_LOOPS);
	ok1(p.count == 8ull * 64 * 56 * 56);
	ok1(extents_are(3, bias));
	ok1(moves_are(0, x_moves, x_strides));
	ok1(moves_are(1, b_moves, b_strides));
	ok1(moves_are(2, x_moves, x_strides));	/* the output, contiguous like x */
	ok1(p.read[1].level == 2 && p.read[1].into_local);	/* once per i1 */
	ok1(p.read[0].level == 3 && !p.read[0].into_local);	/* in the body, used once */
	ok1(p.read[0].uses == 1 && p.read[1].uses == 1 && !p.read[0].via_output);
	ok1(p.nvalues == 3 && converts() == 0);
	ok1(is_op(root(), "add", "f32", FORM_INFIX) && is_read(arg(root(), 0), 0, "f32")
	    && is_read(arg(root(), 1), 1, "f32"));
	ok1(p.ntemps == 0 && p.offset == NULL && !p.libm);

	ok1(plan_for("x=4096,1024 r=1024", "add", "f32", PLAN_AUTO) == 0);
	ok1(extents_are(2, row));
	ok1(moves_are(1, row_moves, row_strides));
	ok1(moves_are(2, (const enum plan_move[]){MOVE_POINTER, MOVE_INDEX}, row_out));
	ok1(p.read[1].level == 2 && !p.read[1].into_local);

	ok1(plan_for("x=3,4,5 y=3,4,5 z=3,4,5", "add", "f32", PLAN_LOOPS) == 0);
	ok1(extents_are(1, same));
	ok1(p.loop[0].counter == COUNTER_8);
	ok1(p.loop[0].stride[0] == 1 && p.loop[0].stride[3] == 1
	    && p.loop[0].move[2] == MOVE_INDEX && p.loop[0].move[3] == MOVE_INDEX);
	/* add of three: one op, folded by the templates */
	ok1(p.nvalues == 4 && root()->nargs == 3);

	/* size-1 dimensions are dropped, even between others */
	ok1(plan_for("x=5,1,1,7 y=5,1,1,1", "add", "f32", PLAN_LOOPS) == 0);
	ok1(extents_are(2, (const unsigned long long[]){5, 7}));
	ok1(p.loop[0].stride[0] == 7 && p.loop[0].stride[1] == 1 && p.loop[1].stride[1] == 0);

	/* in place: the first input is read through the output's pointer */
	request("x=8,64,5,5 b=64,1,1", "add", "f32");
	rq.inplace = 1;
	rq.strategy = PLAN_LOOPS;
	ok1(build() == 0);
	ok1(p.inplace && p.read[0].via_output && p.read[0].level == 3 && !p.read[0].into_local);
	ok1(p.loop[0].move[0] == MOVE_NONE && p.loop[1].move[0] == MOVE_NONE
	    && p.loop[2].move[0] == MOVE_NONE && p.loop[2].move[2] == MOVE_INDEX);
}

/* The strategy: unroll up to the limit, loops beyond, errors when asked. */
static void
test_strategy(void)
{
	static const char big[] = "x*y + x*y + x*y + x*y + x*y";	/* 19 nodes */

	ok1(plan_for("x=8,8 y=8", "add", "f32", PLAN_AUTO) == 0);
	ok1(p.strategy == PLAN_UNROLL && p.count == (uint64_t)target_default()->block_max);
	ok1(plan_for("x=65 y=65", "add", "f32", PLAN_AUTO) == 0);
	ok1(p.strategy == PLAN_LOOPS && p.offset == NULL);
	request("x=65 y=65", "add", "f32");
	rq.unroll_limit = 65;
	ok1(build() == 0 && p.strategy == PLAN_UNROLL);

	ok1(plan_for("x=65 y=65", "add", "f32", PLAN_UNROLL) == -1);
	ok1(message_has("cannot unroll 65 elements: the limit is 64"));
	request("x=3 y=3", "add", "f32");
	rq.unroll_limit = PLAN_UNROLL_CEILING + 1;
	ok1(build() == -1 && message_has("unroll limit 513 is above the ceiling 512"));
	ok1(plan_for("x=17 y=17", "add", "f32", PLAN_LOOPS) == 0 && p.strategy == PLAN_LOOPS);
	ok1(plan_for("x=2 y=2", "add", "f32", PLAN_LOOPS) == 0 && p.strategy == PLAN_LOOPS
	    && p.offset == NULL && p.nloops == 1);

	/* the node bound, 1024: 341 elements of 3 nodes unroll, 342 do not;
	 * 512 of 2 do; 53 of 19 do, 54 do not */
	request("x=341 y=341", "add", "f32");
	rq.unroll_limit = PLAN_UNROLL_CEILING;
	ok1(build() == 0 && p.strategy == PLAN_UNROLL);
	request("x=342 y=342", "add", "f32");
	rq.unroll_limit = PLAN_UNROLL_CEILING;
	ok1(build() == 0 && p.strategy == PLAN_LOOPS);
	request("x=512", "negative", "f32");
	rq.unroll_limit = PLAN_UNROLL_CEILING;
	ok1(build() == 0 && p.strategy == PLAN_UNROLL);
	request("x=4000 y=4000", big, "f32");
	ok1(e.n == 19);
	rq.unroll_limit = PLAN_UNROLL_CEILING;
	ok1(build() == 0 && p.strategy == PLAN_LOOPS);
	request("x=53 y=53", big, "f32");
	rq.unroll_limit = PLAN_UNROLL_CEILING;
	ok1(build() == 0 && p.strategy == PLAN_UNROLL);	/* 53 * 19 <= 1024 */
	request("x=54 y=54", big, "f32");
	rq.unroll_limit = PLAN_UNROLL_CEILING;
	rq.strategy = PLAN_UNROLL;
	ok1(build() == -1);
	ok1(message_has("cannot unroll 54 elements of 19 nodes each"));
	ok1(message_has("so at most 53 elements of this computation"));

	/* no elements: nothing to loop over or unroll, whatever was asked */
	ok1(plan_for("x=3,0,4 y=4", "add", "f32", PLAN_AUTO) == 0);
	ok1(p.strategy == PLAN_EMPTY && p.count == 0);
	ok1(plan_for("x=3,0,4 y=4", "add", "f32", PLAN_UNROLL) == 0 && p.strategy == PLAN_EMPTY);

	/* scalars: a loop nest of no loops; every input read first */
	ok1(plan_for("x= y=", "add", "f32", PLAN_LOOPS) == 0);
	ok1(p.strategy == PLAN_LOOPS && p.nloops == 0 && p.count == 1);
	ok1(p.read[0].level == 0 && p.read[0].into_local && p.read[1].level == 0
	    && p.read[1].into_local);
	ok1(plan_for("x= y=", "add", "f32", PLAN_AUTO) == 0 && p.strategy == PLAN_UNROLL);
	ok1(p.offset && p.offset[0] == 0 && p.offset[1] == 0 && p.offset[2] == 0);
	/* a size-1 result is a scalar too */
	ok1(plan_for("x=1,1 y=1", "add", "f32", PLAN_LOOPS) == 0 && p.nloops == 0
	    && p.count == 1);
}

/*
** What the plan does with the sizes it knows: the lanes of a vector, the
** innermost loop's tail split off, short innermost loops written out as
** a block, and the errors when a block is asked where none can be.
*/
static void
test_speed(void)
{
	int bad = 0;

	/* lanes: 64 bytes of the narrowest dtype stored or computed */
	ok1(plan_for("x=999,1023 y=1023", "add", "f32", PLAN_AUTO) == 0 && p.lanes == 16);
	ok1(plan_for("x=999,1023 y=1023", "add", "f64", PLAN_AUTO) == 0 && p.lanes == 8);
	ok1(plan_for("x:u8=999,1023 y=1023", "add", "f64", PLAN_AUTO) == 0 && p.lanes == 64);
	ok1(plan_for("x=999,1023 y=1023", "x < y", "f64", PLAN_AUTO) == 0 && p.lanes == 64);
	ok1(plan_for("x=99 y=99", "add", "f16", PLAN_AUTO) == 0 && p.lanes == 32);

	/* a long innermost loop: its trip count cut to a multiple of the lanes */
	ok1(plan_for("x=999,1023 y=1023", "add", "f32", PLAN_AUTO) == 0);
	ok1(p.strategy == PLAN_LOOPS && extents_are(2, (const unsigned long long[]){999, 1023}));
	ok1(p.loop[1].tail == 15 && p.loop[0].tail == 0 && p.nblock == 0 && !p.slp_only);
	ok1(plan_for("x=999,1024 y=1024", "add", "f32", PLAN_AUTO) == 0 && p.loop[1].tail == 0);
	ok1(plan_for("x=4096 y=4096", "add", "f32", PLAN_LOOPS) == 0 && p.loop[0].tail == 0);
	ok1(plan_for("x=4097 y=", "add", "f32", PLAN_LOOPS) == 0 && p.loop[0].tail == 1);
	ok1(plan_for("x=300,17 y=300,1", "add", "f32", PLAN_LOOPS) == 0 && p.loop[1].tail == 1);
	ok1(plan_for("x:i8=300,127 y:i8=127", "add", "i8", PLAN_AUTO) == 0 && p.loop[1].tail == 63);
	/* no shorter than a vector: a loop of its own, or a block */
	ok1(plan_for("x=300,16 y=16", "add", "f32", PLAN_AUTO) == 0 && p.loop[1].tail == 0
	    && p.strategy == PLAN_LOOPS);
	ok1(plan_for("x=20,7 y=7", "add", "f32", PLAN_LOOPS) == 0 && p.loop[1].tail == 0
	    && p.nblock == 0);

	/* a short innermost loop: auto writes it out, with its neighbours up to
	 * the row's block_max elements, and keeps one loop around the block */
	ok1(plan_for("x=512,3,7 y=512,1,7", "add", "f32", PLAN_AUTO) == 0);
	ok1(p.strategy == PLAN_BLOCK && p.nblock == 2 && p.block_count == 21 && !p.slp_only);
	ok1(extents_are(3, (const unsigned long long[]){512, 3, 7}));
	ok1(p.loop[0].move[0] == MOVE_POINTER && p.loop[0].move[1] == MOVE_POINTER
	    && p.loop[0].move[2] == MOVE_POINTER);
	ok1(p.loop[1].move[0] == MOVE_NONE && p.loop[2].move[2] == MOVE_NONE);
	for (unsigned j = 0; p.offset && j < 3; j++)	/* from the pointers of i0 */
		for (unsigned l = 0; l < 7; l++) {
			const uint64_t *o = &p.offset[(j * 7 + l) * 3];

			bad += o[0] != j * 7 + l || o[1] != l || o[2] != j * 7 + l;
		}
	ok1(p.offset && bad == 0);
	ok1(plan_for("x=2,3,1,5,7 y=3,4,1,7", "add", "f32", PLAN_AUTO) == 0);
	ok1(p.strategy == PLAN_BLOCK && p.nblock == 2 && p.block_count == 35);
	/* the block reads y's rows of 7 again (y += 0 in the loop of 5): the
	 * loop of 2, which does not move y, is moved in around it */
	ok1(extents_are(5, (const unsigned long long[]){3, 4, 2, 5, 7}));
	ok1(p.loop[2].moved_in && p.loop[2].stride[1] == 0 && p.loop[2].stride[2] == 420);
	ok1(!p.loop[0].moved_in && !p.loop[1].moved_in && p.nrebuilt == 1 && p.rebuilt[0] == 1 && !p.reordered);
	ok1(p.slp_only);	/* the loop around the block runs twice: fewer than 16 lanes */
	/* not where that loop runs on, the output and x from one iteration to
	 * the next: compilers vectorize the two as one block; but where x,
	 * read as the output is written, does not run on (the loop of 4
	 * moves y, not x) */
	ok1(plan_for("x=2,3,4,5 y=3,1,1", "add", "f32", PLAN_AUTO) == 0
	    && p.strategy == PLAN_BLOCK && p.block_count == 60
	    && extents_are(3, (const unsigned long long[]){2, 3, 20}) && !p.slp_only);
	ok1(plan_for("x=64,3,1,5,7 y=3,4,1,7", "add", "f32", PLAN_AUTO) == 0
	    && extents_are(5, (const unsigned long long[]){64, 3, 4, 5, 7}) && p.slp_only);
	/* not where the order is asked for, nor where no loop further out
	 * leaves y alone, nor where the one that does is not shorter than a
	 * vector, nor where the block reads nothing again */
	request("x=2,3,1,5,7 y=3,4,1,7", "add", "f32");
	rq.loop_order = (const int[]){0, 1, 2, 3, 4};
	rq.nloop_order = 5;
	ok1(build() == 0 && extents_are(5, (const unsigned long long[]){2, 3, 4, 5, 7})
	    && p.nrebuilt == 0 && !p.loop[2].moved_in);
	ok1(plan_for("x=512,3,7 y=512,1,7", "add", "f32", PLAN_AUTO) == 0
	    && p.strategy == PLAN_BLOCK && extents_are(3, (const unsigned long long[]){512, 3, 7})
	    && p.nrebuilt == 0);
	ok1(plan_for("x=16,3,1,5,7 y=3,4,1,7", "add", "f32", PLAN_AUTO) == 0
	    && extents_are(5, (const unsigned long long[]){16, 3, 4, 5, 7}) && p.nrebuilt == 0);
	ok1(plan_for("x=2,9,7 y=9,1", "add", "f32", PLAN_AUTO) == 0	/* one y a block */
	    && p.strategy == PLAN_BLOCK && extents_are(3, (const unsigned long long[]){2, 9, 7})
	    && p.nrebuilt == 0);
	ok1(plan_for("x=100,4,4,4 y=4,4,4", "add", "f32", PLAN_AUTO) == 0	/* merged: 100, 64 */
	    && p.strategy == PLAN_LOOPS && p.nblock == 0 && p.loop[1].tail == 0);
	ok1(plan_for("x=1000,5 y=5", "add", "f32", PLAN_AUTO) == 0
	    && p.strategy == PLAN_BLOCK && p.nblock == 1 && p.block_count == 5);
	ok1(plan_for("x=9,9,9 y=9,1", "add", "f32", PLAN_AUTO) == 0
	    && p.nblock == 1 && p.block_count == 9);	/* 81 would pass 64 */
	/* an input constant in the block is read once, before it; one that
	 * varies in it, at each element */
	ok1(plan_for("x=100,6 y=100,1", "x*y + y", "f32", PLAN_AUTO) == 0);
	ok1(p.strategy == PLAN_BLOCK && p.read[1].level == 1 && p.read[1].into_local);
	ok1(p.read[0].level == 2 && !p.read[0].into_local);
	ok1(plan_for("x=100,6 y=6", "x*x + y", "f32", PLAN_AUTO) == 0);
	ok1(p.read[0].level == 2 && p.read[0].into_local && p.read[1].level == 2);
	/* a value that does not vary in the block is computed once, before it */
	ok1(plan_for("x=100,6 y=100,1", "x + exp(y)", "f32", PLAN_AUTO) == 0);
	ok1(p.ntemps == 1 && p.value[p.temps[0]].level == 1);
	/* the nodes bound holds for a block as for an unroll: 64 elements of
	 * 19 nodes do not fit in 1024, 53 do, so an inner 8 of 8 becomes 1 */
	ok1(plan_for("x=100,8,8 y=8,1", "x*y + x*y + x*y + x*y + x*y", "f32", PLAN_AUTO) == 0);
	ok1(p.strategy == PLAN_BLOCK && p.nblock == 2 && p.block_count == 16);	/* widened */
	ok1(extents_are(4, (const unsigned long long[]){100, 4, 2, 8}) && p.loop[2].widened);

	/* a block shorter than a vector is widened: the loop around it split,
	 * where the output runs on from one iteration to the next */
	ok1(plan_for("x=65536,2 y=2", "add", "f32", PLAN_AUTO) == 0);
	ok1(p.strategy == PLAN_BLOCK && p.nblock == 2 && p.block_count == 16);
	ok1(extents_are(3, (const unsigned long long[]){8192, 8, 2}));
	ok1(p.loop[1].widened && !p.loop[0].widened && !p.loop[2].widened);
	ok1(p.loop[0].stride[0] == 16 && p.loop[0].stride[1] == 0 && p.loop[0].stride[2] == 16
	    && p.loop[1].stride[0] == 2 && p.loop[1].stride[2] == 2);
	ok1(p.offset && p.offset[15 * 3] == 15 && p.offset[15 * 3 + 1] == 1
	    && p.offset[15 * 3 + 2] == 15);
	ok1(!p.slp_only);	/* 8192 iterations around it */
	ok1(plan_for("x=1000,5 y=5", "add", "f32", PLAN_AUTO) == 0	/* 16 x 5 would pass 64 */
	    && p.nblock == 1 && p.block_count == 5);
	ok1(plan_for("x=65537,2 y=2", "add", "f32", PLAN_AUTO) == 0	/* 8 does not divide it */
	    && p.nblock == 1 && p.block_count == 2);
	ok1(plan_for("x=8,2 y=2", "add", "f32", PLAN_BLOCK) == 0	/* one iteration left */
	    && p.nblock == 1 && p.block_count == 2);
	request("x=2,4096 y=2,1", "add", "f32");
	rq.strategy = PLAN_BLOCK;
	rq.loop_order = (const int[]){1, 0};
	rq.nloop_order = 2;
	ok1(build() == 0 && p.nblock == 1 && p.block_count == 2 && p.nloops == 2);	/* strided */
	ok1(plan_for("x=64,12,5 y=12,1", "add", "f32", PLAN_AUTO) == 0);	/* 5 and 12: 60 */
	ok1(p.nblock == 2 && p.block_count == 60 && p.nloops == 3);

	/* block asked: where the innermost loop fits; else an error */
	ok1(plan_for("x=300,16 y=16", "add", "f32", PLAN_BLOCK) == 0);
	ok1(p.strategy == PLAN_BLOCK && p.nblock == 1 && p.block_count == 16);
	ok1(plan_for("x=300,65 y=65", "add", "f32", PLAN_BLOCK) == -1);
	ok1(message_has("cannot write out a block") && message_has("the loops run 300, 65 times"));
	ok1(plan_for("x=40 y=40", "add", "f32", PLAN_BLOCK) == -1);
	ok1(message_has("the loops run 40 times"));
	/* streaming: by size, where the data pass the cache size */
	ok1(plan_for("x=1024,2048 y=2048", "add", "f32", PLAN_AUTO) == 0);
	ok1(p.bytes == 1024ull * 2048 * 8 + 2048 * 4 && p.line == 16 && p.stream == STREAM_NONE);
	ok1(plan_for("x=2048,2048 y=2048", "add", "f32", PLAN_AUTO) == 0);	/* 32 MiB + 8 KiB */
	ok1(p.stream == STREAM_SIZED && p.strategy == PLAN_LOOPS);
	request("x=2048,2048 y=2048", "add", "f32");
	rq.cache_size = 2048ull * 2048 * 8 + 2048 * 4;
	ok1(build() == 0 && p.stream == STREAM_NONE);	/* not past it */
	request("x=2048,2048 y=2048", "add", "f32");
	rq.cache_size = 2048ull * 2048 * 8 + 2048 * 4 - 1;
	ok1(build() == 0 && p.stream == STREAM_SIZED);
	request("x:u8=300,4096 y:u8=4096", "add", "u8");
	rq.cache_size = 1024;
	ok1(build() == 0 && p.stream == STREAM_SIZED && p.line == 64
	    && p.bytes == 300 * 4096 * 2 + 4096);
	request("x=300,4096 y=4096", "add", "f32");
	rq.cache_size = 1024;
	rq.stream = STREAM_OFF;
	ok1(build() == 0 && p.stream == STREAM_NONE);
	/* not where the innermost loop is written out, shorter than a line, or strided */
	request("x=30000,7 y=7", "add", "f32");
	rq.cache_size = 1024;
	ok1(build() == 0 && p.strategy == PLAN_BLOCK && p.stream == STREAM_NONE);
	request("x=30000,12 y=30000,1", "add", "f32");
	rq.cache_size = 1024;
	rq.strategy = PLAN_LOOPS;
	ok1(build() == 0 && p.stream == STREAM_NONE);
	request("x=3000,300 y=300", "add", "f32");
	rq.cache_size = 1024;
	rq.loop_order = (const int[]){1, 0};
	rq.nloop_order = 2;
	ok1(build() == 0 && p.stream == STREAM_NONE);	/* the output strides 300 */
	/* asked: auto then neither unrolls nor writes a block */
	request("x=30000,16 y=16", "add", "f32");
	rq.stream = STREAM_ON;
	ok1(build() == 0 && p.strategy == PLAN_LOOPS && p.stream == STREAM_ASKED);
	request("x=4,4 y=4", "add", "f32");
	rq.stream = STREAM_ON;
	ok1(build() == -1 && message_has("cannot stream the output")
	    && message_has("the innermost loop runs 4 times"));
	request("x=16 y=16", "add", "f32");
	rq.stream = STREAM_ON;
	ok1(build() == 0 && p.stream == STREAM_ASKED);
	request("x=16 y=16", "add", "f32");
	rq.stream = STREAM_ON;
	rq.strategy = PLAN_UNROLL;
	ok1(build() == -1 && message_has("--strategy unroll writes a statement per element"));
	request("x=0,100", "add", "f32");
	rq.stream = STREAM_ON;
	ok1(build() == -1 && message_has("the output has no elements"));
	request("x=30000,15 y=15", "add", "f32");
	rq.stream = STREAM_ON;
	ok1(build() == -1 && message_has("runs 15 times"));

	/* loops aligned: wherever the kernel has loops */
	ok1(plan_for("x=999,1023 y=1023", "add", "f32", PLAN_AUTO) == 0 && p.align_loops);
	ok1(plan_for("x=512,3,7 y=512,1,7", "add", "f32", PLAN_AUTO) == 0 && p.align_loops);
	ok1(plan_for("x=4,3 y=3", "add", "f32", PLAN_AUTO) == 0 && !p.align_loops);
	ok1(plan_for("x= y=", "add", "f32", PLAN_LOOPS) == 0 && !p.align_loops);
	ok1(plan_for("x=0,3 y=3", "add", "f32", PLAN_LOOPS) == 0 && !p.align_loops);

	/* and explicit loops stay loops */
	ok1(plan_for("x=512,3,7 y=512,1,7", "add", "f32", PLAN_LOOPS) == 0);
	ok1(p.strategy == PLAN_LOOPS && p.nblock == 0 && !p.slp_only && p.offset == NULL);
}

/* Unrolled offsets: [element * (nin + 1) + operand], output last. */
static void
test_offsets(void)
{
	int bad = 0;

	request("x=2,1,4 y=3,1", "add", "f32");
	rq.strategy = PLAN_UNROLL;
	rq.unroll_limit = 24;
	ok1(build() == 0);
	ok1(p.strategy == PLAN_UNROLL && p.count == 24);
	ok1(extents_are(3, (const unsigned long long[]){2, 3, 4}));
	ok1(p.offset != NULL);
	for (unsigned i = 0; p.offset && i < 2; i++)
		for (unsigned j = 0; j < 3; j++)
			for (unsigned l = 0; l < 4; l++) {
				unsigned k = i * 12 + j * 4 + l;
				const uint64_t *o = &p.offset[k * 3];

				if (o[0] != 4 * i + l || o[1] != j || o[2] != k) {
					if (!bad)
						diag("element %u: offsets %llu %llu %llu", k,
						     (unsigned long long)o[0], (unsigned long long)o[1],
						     (unsigned long long)o[2]);
					bad++;
				}
			}
	ok1(p.offset && bad == 0);
	/* used twice when unrolled: read into a local once per element */
	ok1(plan_for("x=2,3", "x*x + x", "f32", PLAN_UNROLL) == 0);
	ok1(p.read[0].uses == 3 && p.read[0].into_local);
	ok1(p.offset && p.offset[2 * 1] == 1 && p.offset[2 * 1 + 1] == 1);	/* x, out */
	ok1(plan_for("x=2,3 y=3", "add", "f32", PLAN_UNROLL) == 0);
	ok1(!p.read[0].into_local && !p.read[1].into_local);
}

/* The value tree: reads in their stored dtype, every conversion explicit. */
static void
test_values(void)
{
	const struct plan_value *v;

	/* x stored as i16 in an f32 kernel: read as i16, cast on load */
	ok1(plan_for("x:i16=4,5 y=4,5", "add", "f32", PLAN_LOOPS) == 0);
	ok1(p.nvalues == 4);
	v = root();
	ok1(is_op(v, "add", "f32", FORM_INFIX) && v->type == dtype_find("f32") && !v->is_bool);
	ok1(is_convert(arg(v, 0), CONVERT_CAST, "f32") && is_read(arg(arg(v, 0), 0), 0, "i16"));
	ok1(is_read(arg(v, 1), 1, "f32"));
	ok1(arg(v, 0)->source == 0 && arg(arg(v, 0), 0)->source == -1);	/* the cast is x's */
	ok1(!arg(v, 0)->hoistable && v->hoistable);

	/* float to integer saturates; narrower signed integers wrap */
	ok1(plan_for("x:f32=4 y=4", "add", "i32", PLAN_LOOPS) == 0);
	ok1(is_convert(arg(root(), 0), CONVERT_SATURATE, "i32"));
	ok1(is_op(root(), "add", "i32", FORM_HELPER));
	ok1(plan_for("x:i64=4 y=4", "add", "i8", PLAN_LOOPS) == 0);
	ok1(is_convert(arg(root(), 0), CONVERT_WRAP, "i8"));
	ok1(plan_for("x:i64=4 y=4", "add", "u8", PLAN_LOOPS) == 0);
	ok1(is_convert(arg(root(), 0), CONVERT_CAST, "u8"));	/* unsigned wraps as C does */
	ok1(plan_for("x:i8=4 y=4", "add", "i64", PLAN_LOOPS) == 0);
	ok1(is_convert(arg(root(), 0), CONVERT_CAST, "i64"));	/* widening is exact */
	ok1(plan_for("x:u32=4 y=4", "add", "i32", PLAN_LOOPS) == 0);
	ok1(is_convert(arg(root(), 0), CONVERT_WRAP, "i32"));	/* same width, signed */

	/* comparisons */
	ok1(plan_for("x=4 y=4", "less", "f32", PLAN_LOOPS) == 0);
	ok1(is_op(root(), "less", "f32", FORM_COMPARE) && root()->is_bool
	    && root()->type == dtype_find("u8"));
	ok1(plan_for("x=4 y=4", "less", "i32", PLAN_LOOPS) == 0);
	ok1(is_op(root(), "less", "i32", FORM_HELPER) && root()->is_bool);

	/* truth tests take their arguments as they are */
	ok1(plan_for("x=4 y=4", "logical_and", "f32", PLAN_LOOPS) == 0);
	ok1(is_op(root(), "logical_and", "u8", FORM_LOGICAL) && root()->is_bool);
	ok1(is_read(arg(root(), 0), 0, "f32") && is_read(arg(root(), 1), 1, "f32"));
	ok1(converts() == 0);
	ok1(plan_for("x=4", "logical_not", "f32", PLAN_LOOPS) == 0);
	ok1(root()->form == FORM_NOT && is_read(arg(root(), 0), 0, "f32"));
	ok1(plan_for("x=4 y=4", "where(x < y, x, y)", "f32", PLAN_LOOPS) == 0);
	v = root();
	ok1(is_op(v, "where", "f32", FORM_SELECT) && v->nargs == 3);
	ok1(is_op(arg(v, 0), "less", "f32", FORM_COMPARE) && arg(v, 0)->type == dtype_find("u8"));
	ok1(is_read(arg(v, 1), 0, "f32") && is_read(arg(v, 2), 1, "f32") && converts() == 0);
	/* an arithmetic op on a comparison converts it */
	ok1(plan_for("x=4 y=4", "(x < y) + x", "f32", PLAN_LOOPS) == 0);
	ok1(is_convert(arg(root(), 0), CONVERT_CAST, "f32")
	    && is_op(arg(arg(root(), 0), 0), "less", "f32", FORM_COMPARE));

	/* the root converted to the stored result's dtype */
	request("x=4 y=4", "add", "f32");
	rq.out_dtype = dtype_find("f64");
	ok1(build() == 0 && is_convert(root(), CONVERT_CAST, "f64")
	    && is_op(arg(root(), 0), "add", "f32", FORM_INFIX));
	request("x=4 y=4", "add", "f32");
	rq.out_dtype = dtype_find("i16");
	ok1(build() == 0 && is_convert(root(), CONVERT_SATURATE, "i16"));
	request("x=4 y=4", "less", "f32");
	rq.out_dtype = dtype_find("f32");
	ok1(build() == 0 && is_convert(root(), CONVERT_CAST, "f32")
	    && arg(root(), 0)->is_bool);

	/* other forms, literals */
	ok1(plan_for("x=4", "-x", "f32", PLAN_LOOPS) == 0 && root()->form == FORM_PREFIX);
	ok1(plan_for("x=4", "copy", "f32", PLAN_LOOPS) == 0 && p.nvalues == 1
	    && is_read(root(), 0, "f32"));
	ok1(plan_for("x=4", "add", "f32", PLAN_LOOPS) == 0 && root()->form == FORM_PASS);
	ok1(plan_for("x=4", "x * 0.1", "f32", PLAN_LOOPS) == 0);
	v = arg(root(), 1);
	ok1(v->kind == VALUE_LITERAL && strcmp(v->digits, "0.1") == 0 && !v->negative);
	ok1(plan_for("x=4", "x + -128", "i8", PLAN_LOOPS) == 0);
	v = arg(root(), 1);
	ok1(v->kind == VALUE_LITERAL && v->negative && v->minimum
	    && strcmp(v->digits, "128") == 0);
}

/* Values computed once, before the loop from which they no longer vary. */
static void
test_hoisting(void)
{
	static const char hoist[] = "x + exp(b)*sqrt(s)";
	const struct plan_value *t0, *t1;

	ok1(plan_for("x=4,3,32,32 b=3,1,1 s=", hoist, "f32", PLAN_AUTO) == 0);
	ok1(p.strategy == PLAN_LOOPS);
	ok1(extents_are(3, (const unsigned long long[]){4, 3, 1024}));
	ok1(p.read[0].level == 3 && p.read[1].level == 2 && p.read[2].level == 0);
	ok1(p.read[2].into_local && p.read[1].into_local);
	ok1(p.ntemps == 2);
	if (p.ntemps == 2) {
		t0 = &p.value[p.temps[0]];
		t1 = &p.value[p.temps[1]];
		ok1(is_op(t0, "sqrt", "f32", FORM_HELPER) && t0->level == 0 && t0->temp == 0);
		ok1(is_op(t1, "multiply", "f32", FORM_INFIX) && t1->level == 2 && t1->temp == 1);
		ok1(arg(t1, 1) == t0);	/* sqrt(s) computed once, used by the product */
		ok1(is_op(arg(t1, 0), "exp", "f32", FORM_HELPER) && arg(t1, 0)->temp == -1);
	}
	ok1(root()->level == 3 && root()->temp == -1);
	ok1(p.libm);

	/* nothing is computed once when unrolled */
	request("x=2,3,2,2 b=3,1,1 s=", hoist, "f32");
	rq.strategy = PLAN_UNROLL;
	rq.unroll_limit = 64;
	ok1(build() == 0);
	ok1(p.strategy == PLAN_UNROLL && p.ntemps == 0 && p.libm);
	ok1(plan_for("x=2,3,2,2 b=3,1,1 s=", hoist, "f32", PLAN_LOOPS) == 0 && p.ntemps == 2);

	/* a read alone is not computed once, nor a conversion the plan added */
	ok1(plan_for("x=4,3,32,32 b:i16=3,1,1", "add", "f32", PLAN_LOOPS) == 0);
	ok1(p.ntemps == 0 && p.read[1].level == 2 && arg(root(), 1)->level == 2);
	/* but a cast the user wrote is */
	ok1(plan_for("x=4,3,32,32 b:i16=3,1,1", "x + f32(b * b)", "f32", PLAN_LOOPS) == 0);
	ok1(p.ntemps == 1 && p.value[p.temps[0]].kind == VALUE_CONVERT
	    && p.value[p.temps[0]].source >= 0 && p.value[p.temps[0]].level == 2);
	ok1(p.read[1].uses == 2 && p.read[1].into_local);
	/* a comparison converted for the op above it: computed once, before the cast */
	ok1(plan_for("x=4,3,32,32 b=3,1,1", "x + (b < 1)", "f32", PLAN_LOOPS) == 0);
	ok1(p.ntemps == 1 && is_op(&p.value[p.temps[0]], "less", "f32", FORM_COMPARE)
	    && p.value[p.temps[0]].level == 2);
	ok1(is_convert(arg(root(), 1), CONVERT_CAST, "f32") && arg(root(), 1)->temp == -1);
	/* a value of literals alone is left to the compiler */
	ok1(plan_for("x=4,3", "x + 2*3", "f32", PLAN_LOOPS) == 0 && p.ntemps == 0);
}

/*
** Set Q to the quantized OP of dtype T's bits, the scales of x, y and
** out 0.05, 0.02 and 0.1, their zero points ZX, ZY and -1, and prepare
** it; return quant_prepare's result.
*/
static int
quantized(struct quant *q, enum op_id op, int bits, int32_t zx, int32_t zy)
{
	struct strbuf why = {0};
	int r;

	*q = (struct quant){.op = (int)op, .bits = bits, .name = {"x", "y", "out"},
	                    .scale = {0.05f, 0.02f, 0.1f}, .zero = {zx, zy, bits == 8 ? -1 : 0}};
	r = quant_prepare(q, &why);
	if (r != 0)
		diag("quant_prepare: %s", why.s);
	sb_free(&why);
	return r;
}

/* Return 1 if value V is quantized step STEP of the read of input I, with N constants. */
static int
is_step(const struct plan_value *v, enum quant_step step, int i, int n)
{
	return v->kind == VALUE_QUANT && v->step == step && v->nconstants == n
	       && (step == QSTEP_OUTPUT || is_read(arg(v, 0), i, "i8") || is_read(arg(v, 0), i, "i16"));
}

/*
** A quantized kernel: each input requantized by a step of its own, the
** one that stays put along the innermost loop computed once outside
** it; the constants of the steps as TFLite Micro's Prepare computes them.
*/
static void
test_quant(void)
{
	struct quant q;

	ok1(quantized(&q, OP_ID_ADD, 8, -3, 5) == 0);
	ok1(q.left_shift == 20 && q.in[0].mult == 1073741824 && q.in[0].shift == 0
	    && q.in[1].mult == 1717986854 && q.in[1].shift == -2
	    && q.out.mult == 1073741824 && q.out.shift == -19 && q.lo == -128 && q.hi == 127);
	request("x:i8=64,256 y:i8=64,1", "add", "i8");
	rq.quant = &q;
	rq.strategy = PLAN_LOOPS;
	ok1(build() == 0 && p.quant && extents_are(2, (const unsigned long long[]){64, 256}));
	ok1(is_step(root(), QSTEP_OUTPUT, 0, 5) && root()->level == 2 && root()->temp == -1);
	ok1(root()->constant[0] == 1073741824 && root()->constant[1] == -19
	    && root()->constant[2] == -1 && root()->constant[3] == -128 && root()->constant[4] == 127);
	ok1(is_op(arg(root(), 0), "add", "i32", FORM_INFIX));
	ok1(is_step(arg(arg(root(), 0), 0), QSTEP_INPUT, 0, 4) && arg(arg(root(), 0), 0)->temp == -1);
	ok1(p.ntemps == 1 && is_step(&p.value[p.temps[0]], QSTEP_INPUT, 1, 4)
	    && p.value[p.temps[0]].level == 1 && p.value[p.temps[0]].constant[0] == 5
	    && p.value[p.temps[0]].constant[1] == 20 && p.value[p.temps[0]].constant[2] == 1717986854
	    && p.value[p.temps[0]].constant[3] == -2);
	/* y moves in the innermost loop: nothing is computed once */
	request("x:i8=64,256 y:i8=256", "add", "i8");
	rq.quant = &q;
	ok1(build() == 0 && p.ntemps == 0 && p.strategy == PLAN_LOOPS);
	/* written out: each element's own statement */
	request("x:i8=4,3 y:i8=4,1", "add", "i8");
	rq.quant = &q;
	ok1(build() == 0 && p.strategy == PLAN_UNROLL && p.ntemps == 0);
	/* multiply: the offsets, the product in int32, x's offset computed once */
	ok1(quantized(&q, OP_ID_MULTIPLY, 8, -3, 5) == 0 && q.out.mult == 1374389504
	    && q.out.shift == -6);
	request("x:i8=8,1 y:i8=8,512", "multiply", "i8");
	rq.quant = &q;
	ok1(build() == 0 && p.ntemps == 1 && is_step(&p.value[p.temps[0]], QSTEP_OFFSET, 0, 1)
	    && p.value[p.temps[0]].constant[0] == -3 && p.value[p.temps[0]].level == 1);
	ok1(is_op(arg(root(), 0), "multiply", "i32", FORM_INFIX));
	/* y stretched along a loop outside the one it moves in: requantized
	 * once into its table, which the loops read in its place */
	ok1(quantized(&q, OP_ID_ADD, 8, -3, 5) == 0);
	request("x:i8=1,16,16,8 y:i8=8", "add", "i8");
	rq.quant = &q;
	rq.strategy = PLAN_LOOPS;
	ok1(build() == 0 && p.quant_tables == 1 && p.read[1].table && !p.read[0].table
	    && p.read[1].table_count == 8);
	ok1(is_read(arg(arg(root(), 0), 1), 1, "i32") && p.ntemps == 0);
	ok1(is_step(&p.value[p.read[1].table_step], QSTEP_INPUT, 1, 4)
	    && p.value[p.read[1].table_step].constant[0] == 5);
	rq.strategy = PLAN_BLOCK;
	ok1(build() == 0 && p.strategy == PLAN_BLOCK && p.read[1].table);
	/* not unrolled, not past the table's bytes, not where the target computes lines */
	rq.strategy = PLAN_UNROLL;
	rq.unroll_limit = 512;
	request("x:i8=4,8 y:i8=8", "add", "i8");
	rq.quant = &q;
	rq.strategy = PLAN_UNROLL;
	ok1(build() == 0 && !p.read[1].table);
	request("x:i8=2,1025 y:i8=1025", "add", "i8");
	rq.quant = &q;
	ok1(build() == 0 && !p.read[1].table);
	request("x:i8=2,257 y:i8=257", "add", "i8");
	rq.quant = &q;
	rq.target = target_find("cortex-m4f");
	ok1(build() == 0 && !p.read[1].table);	/* 1028 bytes: past a small-code row's 1024 */
	request("x:i8=2,256 y:i8=256", "add", "i8");
	rq.quant = &q;
	rq.target = target_find("cortex-m4f");
	ok1(build() == 0 && p.read[1].table);
	request("x:i8=1,16,16,8 y:i8=8", "add", "i8");
	rq.quant = &q;
	rq.target = target_find("cortex-m55");
	ok1(build() == 0 && p.read[1].table && !p.quant_line);	/* a table first */
	/* y staying put in the innermost loop is requantized once outside it, no table */
	request("x:i8=8,64,56,56 y:i8=64,1,1", "add", "i8");
	rq.quant = &q;
	ok1(build() == 0 && !p.read[1].table && p.ntemps == 1 && p.quant_line
	    && p.why == WHY_QUANT_LINES);
	/* a line on the Cortex-M55: y staying put in it is given as its value */
	request("x:i8=64,256 y:i8=64,1", "add", "i8");
	rq.quant = &q;
	rq.target = target_find("cortex-m55");
	ok1(build() == 0 && p.quant_line && p.ntemps == 1 && p.loop[1].tail == 0);
	ok1(p.code.n >= 1 && p.code.item[p.code.n - 1].kind == CODE_LOOP
	    && p.code.item[p.code.n - 1].body.item[p.code.item[p.code.n - 1].body.n - 1].kind
	       == CODE_QUANT_LINE);
	/* multiply has no table: its offsets cost a subtraction */
	ok1(quantized(&q, OP_ID_MULTIPLY, 8, -3, 5) == 0);
	request("x:i8=1,16,16,8 y:i8=8", "multiply", "i8");
	rq.quant = &q;
	rq.strategy = PLAN_LOOPS;
	ok1(build() == 0 && !p.read[1].table);
	/* what TFLite Micro refuses: an output multiplier of 1 or more */
	q = (struct quant){.op = OP_ID_ADD, .bits = 8, .name = {"x", "y", "out"},
	                   .scale = {0.05f, 0.02f, 1e-9f}};
	ok1(quant_prepare(&q, &err) != 0 && message_has("multiplier of 'out'"));
}

/* Plan COMP of x=8,64,5,5 b=64,1,1 s= as loops in the order ORDER of 3. */
static int
build_ordered(const char *comp, const int *order)
{
	request("x=8,64,5,5 b=64,1,1 s=", comp, "f32");
	rq.strategy = PLAN_LOOPS;
	rq.loop_order = order;
	rq.nloop_order = 3;
	return build();
}

/* The loops in another order: the plan follows them. */
static void
test_reorder(void)
{
	static const char hoist[] = "x + exp(b)*sqrt(s)";
	static const int rotate[] = {2, 0, 1}, swap[] = {1, 0, 2};
	static const enum plan_move x_moves[] = {MOVE_POINTER, MOVE_POINTER, MOVE_INDEX};
	static const enum plan_move b_moves[] = {MOVE_NONE, MOVE_NONE, MOVE_INDEX};
	static const long long x_strides[] = {1, 1600, 25}, b_strides[] = {0, 0, 1};
	int nvalues;

	/* planner's order: 8 (x 1600, b 0), 64 (x 25, b 1), 25 (x 1, b 0) */
	ok1(plan_for("x=8,64,5,5 b=64,1,1", "add", "f32", PLAN_LOOPS) == 0);
	ok1(extents_are(3, (const unsigned long long[]){8, 64, 25}));
	ok1(p.loop[2].move[2] == MOVE_INDEX && p.loop[2].stride[2] == 1
	    && p.loop[1].move[1] == MOVE_POINTER && p.loop[2].move[1] == MOVE_NONE);
	ok1(p.read[1].level == 2 && p.read[1].into_local);

	/* rotated: 25 outermost */
	request("x=8,64,5,5 b=64,1,1", "add", "f32");
	rq.strategy = PLAN_LOOPS;
	rq.loop_order = rotate;
	rq.nloop_order = 3;
	ok1(build() == 0);
	ok1(extents_are(3, (const unsigned long long[]){25, 8, 64}));
	ok1(moves_are(0, x_moves, x_strides));	/* x's innermost stride is 25 */
	ok1(moves_are(1, b_moves, b_strides));
	ok1(moves_are(2, x_moves, x_strides));	/* so is the output's */
	ok1(p.read[1].level == 3 && !p.read[1].into_local);	/* b varies innermost now */

	/* the values computed once follow: b varies in the outermost loop */
	ok1(plan_for("x=8,64,5,5 b=64,1,1 s=", hoist, "f32", PLAN_LOOPS) == 0);
	ok1(p.ntemps == 2 && p.value[p.temps[1]].level == 2 && p.read[1].level == 2);
	nvalues = p.nvalues;
	request("x=8,64,5,5 b=64,1,1 s=", hoist, "f32");
	rq.strategy = PLAN_LOOPS;
	rq.loop_order = swap;
	rq.nloop_order = 3;
	ok1(build() == 0);
	ok1(extents_are(3, (const unsigned long long[]){64, 8, 25}));
	ok1(p.read[1].level == 1 && p.read[1].into_local && p.read[2].level == 0);
	ok1(p.loop[0].move[1] == MOVE_POINTER && p.loop[1].move[1] == MOVE_NONE);
	ok1(p.ntemps == 2 && p.value[p.temps[0]].level == 0 && p.value[p.temps[1]].level == 1
	    && is_op(&p.value[p.temps[1]], "multiply", "f32", FORM_INFIX));
	ok1(build_ordered(hoist, (const int[]){2, 1, 0}) == 0);	/* 25, 64, 8: b is read in the middle loop */
	ok1(p.read[1].level == 2 && p.ntemps == 2 && p.value[p.temps[1]].level == 2);
	ok1(build_ordered(hoist, swap) == 0);	/* 64, 8, 25 again */
	ok1(p.read[1].level == 1 && p.value[p.temps[1]].level == 1);
	ok1(build_ordered(hoist, (const int[]){0, 2, 1}) == 0);	/* 8, 25, 64: b innermost */
	ok1(extents_are(3, (const unsigned long long[]){8, 25, 64}));
	ok1(p.read[1].level == 3 && !p.read[1].into_local);
	/* only sqrt(s) is left to compute once */
	ok1(p.ntemps == 1 && is_op(&p.value[p.temps[0]], "sqrt", "f32", FORM_HELPER)
	    && p.value[p.temps[0]].level == 0);
	ok1(p.nvalues == nvalues);	/* the tree is the same; only levels move */

	/* unrolled: the offsets follow the order of the loops */
	request("x=2,1,4 y=3,1", "add", "f32");
	rq.strategy = PLAN_UNROLL;
	rq.unroll_limit = 24;
	rq.loop_order = rotate;	/* 4, 2, 3 */
	rq.nloop_order = 3;
	ok1(build() == 0 && p.strategy == PLAN_UNROLL);
	/* element 1 is (i0, i1, i2) = (0, 0, 1): x 0, y 1, out 4; element 3 is (0, 1, 0) */
	ok1(p.offset && p.offset[3] == 0 && p.offset[4] == 1 && p.offset[5] == 4);
	ok1(p.offset && p.offset[9] == 4 && p.offset[10] == 0 && p.offset[11] == 12);

	/* not a permutation of the loops */
	request("x=8,64,5,5 b=64,1,1", "add", "f32");
	rq.loop_order = (const int[]){1, 0};
	rq.nloop_order = 2;
	ok1(build() == -1);
	ok1(message_has("the loop order must list each of the plan's 3 loops once, "
	                "outermost first; their trip counts are 8, 64, 25"));
	rq.loop_order = (const int[]){0, 0, 1};
	rq.nloop_order = 3;
	ok1(build() == -1 && message_has("plan's 3 loops once"));
	rq.loop_order = (const int[]){0, 1, 3};
	ok1(build() == -1 && message_has("plan's 3 loops once"));
	rq.loop_order = (const int[]){0, -1, 1};
	ok1(build() == -1 && message_has("plan's 3 loops once"));
	request("x=3,4 y=3,4", "add", "f32");
	rq.loop_order = (const int[]){0, 1};
	rq.nloop_order = 2;
	ok1(build() == -1 && message_has("the plan has one loop, of 12 iterations: the only loop order is 0"));
	rq.nloop_order = 1;
	ok1(build() == 0 && p.nloops == 1);
	request("x= y=", "add", "f32");
	rq.strategy = PLAN_LOOPS;
	rq.loop_order = (const int[]){0};
	rq.nloop_order = 0;
	ok1(build() == 0 && p.nloops == 0);
}

/*
** Depth: a part whose C would nest past PLAN_MAX_NEST brackets is
** computed into a temporary first, where it varies (in the innermost
** body here); a helper op of more operands is folded into binary steps;
** a flat chain (float +, spelled infix) needs none.
*/
static void
test_depth(void)
{
	struct strbuf chain = {0};
	int split = 0, level = 0;

	sb_add(&chain, "x");
	for (int k = 1; k < 300; k++)
		sb_add(&chain, " + x");
	ok1(plan_for("x=8", chain.s, "i32", PLAN_LOOPS) == 0);
	for (int t = 0; t < p.ntemps; t++) {
		split += p.value[p.temps[t]].split;
		level += p.value[p.temps[t]].level == p.nloops;
	}
	/* 299 helper calls, at most 31 a statement */
	ok(p.ntemps >= 299 / (PLAN_MAX_NEST - 1) && split == p.ntemps && level == p.ntemps,
	   "a 300-term i32 chain: %d temporaries, all for depth, per element", p.ntemps);
	for (int t = 1; t < p.ntemps; t++)
		ok1(p.temps[t] > p.temps[t - 1] && p.value[p.temps[t]].temp == t);
	ok1(plan_for("x=", chain.s, "i32", PLAN_AUTO) == 0 && p.strategy == PLAN_UNROLL
	    && p.ntemps >= 299 / (PLAN_MAX_NEST - 1));
	ok1(plan_for("x=8", chain.s, "f32", PLAN_LOOPS) == 0 && p.ntemps == 0);
	sb_free(&chain);
	for (int k = 0; k < 20; k++)
		sb_add(&chain, "-(");
	sb_add(&chain, "x");
	for (int k = 0; k < 20; k++)
		sb_add(&chain, ")");
	ok(plan_for("x=8", chain.s, "f32", PLAN_LOOPS) == 0 && p.ntemps == 0, "%s: %d temporaries", chain.s, p.ntemps);
	sb_free(&chain);

	ok1(plan_for("x=8 y=8 w=8", "max(x, y, w)", "i32", PLAN_LOOPS) == 0);
	ok1(is_op(root(), "maximum", "i32", FORM_HELPER) && root()->nargs == 2);
	ok1(is_op(arg(root(), 0), "maximum", "i32", FORM_HELPER) && arg(root(), 0)->nargs == 2
	    && arg(root(), 0)->source < 0 && is_read(arg(arg(root(), 0), 1), 1, "i32"));
	ok1(p.ntemps == 0);
}

/* Build with GOAL; return 0 on success. */
static int
plan_goal(const char *args, const char *comp, const char *t, enum plan_goal goal)
{
	if (request(args, comp, t) != 0)
		return -1;
	rq.goal = goal;
	return build();
}

/*
** Firmware: counters as narrow as the trip counts and indices allow,
** --optimize size, the 32-bit size_t limit, max and min against a
** constant.
*/
/* Return item K of LIST, or an empty item (kind -1) past its end. */
static const struct code_item *
item(const struct code_list *list, int k)
{
	static struct code_item none;

	none.kind = (enum code_kind)-1;
	return k >= 0 && k < list->n ? &list->item[k] : &none;
}

/* Return 1 if pointer K is OPERAND's, moved by LOOP (-1: its parameter). */
static int
pointer_is(int k, int operand, int loop)
{
	return k >= 0 && k < p.npointers && p.pointer[k].operand == operand
	       && p.pointer[k].loop == loop;
}

/* Return 1 if AT is where KIND says, through the pointer of OPERAND moved by LOOP. */
static int
at_is(const struct code_at *at, enum code_at_kind kind, int operand, int loop)
{
	return at->kind == kind && pointer_is(at->pointer, operand, loop);
}

/*
** The code items laid out from the plan: the counters by type, each
** loop after what is read once and the pointers it moves, one element's
** statements in the innermost loop, the streaming head, lines and tail
** under their #if, a block's elements with where they are, and an
** empty result's operands unused.
*/
static void
test_code(void)
{
	const struct code_item *loop0, *loop1, *inner, *store, *head, *lines;

	ok1(plan_for("x=8,64,56,56 b=64,1,1", "add", "f32", PLAN_LOOPS) == 0);
	ok1(p.code.n == 5 && item(&p.code, 0)->kind == CODE_COUNTERS
	    && item(&p.code, 0)->bits == 8 && item(&p.code, 0)->nloops == 2
	    && item(&p.code, 1)->bits == 16 && item(&p.code, 1)->loops[0] == 2);
	ok1(item(&p.code, 2)->kind == CODE_POINTER && pointer_is(item(&p.code, 2)->pointer, 0, 0)
	    && pointer_is(item(&p.code, 2)->from, 0, -1)
	    && pointer_is(item(&p.code, 3)->pointer, 2, 0));
	loop0 = item(&p.code, 4);
	ok1(loop0->kind == CODE_LOOP && loop0->loop == 0 && loop0->to == 8 && !loop0->elements
	    && loop0->nsteps == 2 && loop0->steps[0].by == 200704);
	loop1 = item(&loop0->body, 3);	/* after x's, b's and out's pointers */
	ok1(pointer_is(item(&loop0->body, 1)->from, 1, -1) && loop1->kind == CODE_LOOP
	    && loop1->loop == 1 && loop1->nsteps == 3);
	ok1(item(&loop1->body, 0)->kind == CODE_LOCAL && item(&loop1->body, 0)->operand == 1
	    && at_is(&item(&loop1->body, 0)->at, AT_POINTER, 1, 1));
	inner = item(&loop1->body, 1);
	store = item(&inner->body, 0);
	ok1(inner->kind == CODE_LOOP && inner->elements && inner->to == 3136 && inner->body.n == 1
	    && store->kind == CODE_STORE && store->value == p.nvalues - 1
	    && at_is(&store->at, AT_INDEX, 2, 1) && store->at.loop == 2 && store->at.stride == 1
	    && at_is(&store->reads[0], AT_INDEX, 0, 1) && store->reads[1].kind == AT_LOCAL);

	/* streaming: the head, the lines and the tail, else the plain loop */
	ok1(request("x=3,1000 y=1000", "add", "f32") == 0);
	rq.stream = STREAM_ON;
	ok1(build() == 0 && p.code.n == 6 && item(&p.code, 5)->kind == CODE_IF
	    && item(&item(&p.code, 5)->body, 0)->kind == CODE_FENCE);
	loop0 = item(&p.code, 4);
	ok1(item(&loop0->body, 0)->kind == CODE_IF && !item(&loop0->body, 0)->hosted
	    && item(&loop0->body, 0)->orelse.n == 2
	    && item(&item(&loop0->body, 0)->orelse, 0)->to == 992
	    && item(&item(&loop0->body, 0)->orelse, 1)->from_here);
	inner = item(&item(&loop0->body, 0)->body, 0);
	head = item(&inner->body, 0);
	lines = item(&inner->body, 1);
	ok1(inner->kind == CODE_STREAM && inner->to == 1000 && pointer_is(inner->pointer, 2, 0)
	    && head->to_head && lines->kind == CODE_LINES && lines->line == 16
	    && item(&inner->body, 2)->from_here && item(&inner->body, 2)->to == 1000);
	store = item(&item(&lines->body, 0)->body, 0);
	ok1(item(&lines->body, 0)->lane && item(&lines->body, 0)->to == 16
	    && store->at.kind == AT_LINE && store->reads[0].lane);

	/* elements written out: where each is in the loops, or in the result */
	ok1(plan_for("x=3,5,7 y=7", "add", "f32", PLAN_BLOCK) == 0);
	inner = item(&item(&p.code, 3)->body, 2);
	ok1(inner->kind == CODE_ELEMENT && inner->loop == 1 && inner->nwhere == 1
	    && inner->where[0] == 2 && item(&inner->body, 0)->at.offset == 2);
	ok1(plan_for("x=4,1,3 y=3", "x * y + y", "f32", PLAN_UNROLL) == 0 && p.code.n == 12);
	inner = item(&p.code, 5);
	ok1(inner->kind == CODE_ELEMENT && inner->loop == -1 && inner->nwhere == 3
	    && inner->where[0] == 1 && inner->where[1] == 0 && inner->where[2] == 2
	    && item(&inner->body, 0)->kind == CODE_LOCAL && item(&inner->body, 0)->operand == 1
	    && item(&inner->body, 1)->at.offset == 5);
	ok1(plan_for("x=0,3 y=3", "add", "f32", PLAN_AUTO) == 0 && p.code.n == 4
	    && item(&p.code, 0)->kind == CODE_EMPTY && item(&p.code, 3)->kind == CODE_UNUSED
	    && item(&p.code, 3)->operand == 2);
}

static void
test_firmware(void)
{
	/* counters: the trip count, and in the innermost loop its indices */
	ok1(plan_for("x=300,255 y=255", "add", "f32", PLAN_LOOPS) == 0);
	ok1(p.loop[0].counter == COUNTER_16 && p.loop[1].counter == COUNTER_8);
	ok1(plan_for("x=256 y=256", "add", "u8", PLAN_LOOPS) == 0);
	ok1(p.loop[0].counter == COUNTER_16);
	ok1(plan_for("x=65535", "neg", "f32", PLAN_LOOPS) == 0);
	ok1(p.loop[0].counter == COUNTER_16);
	ok1(plan_for("x=65536", "neg", "f32", PLAN_LOOPS) == 0);
	ok1(p.loop[0].counter == COUNTER_32);
	/* swapped, the innermost loop indexes x by 2 up to 999 * 2 */
	ok1(plan_for("x=1000,2 y=1000,1", "add", "f32", PLAN_LOOPS) == 0);
	ok1(p.loop[1].counter == COUNTER_8);
	{
		static const int swap[] = {1, 0};

		ok1(request("x=1000,2 y=1000,1", "add", "f32") == 0);
		rq.strategy = PLAN_LOOPS;
		rq.loop_order = swap;
		rq.nloop_order = 2;
		ok1(build() == 0 && p.loop[1].extent == 1000 && p.loop[0].counter == COUNTER_8);
		ok(p.loop[1].counter == COUNTER_16, "innermost counter %d: 999 * 2 needs 16 bits",
		   (int)p.loop[1].counter);
	}
	ok1(plan_for("x=70000,70000 y=70000", "add", "u8", PLAN_LOOPS) == 0);
	ok1(p.loop[0].counter == COUNTER_32 && p.loop[1].counter == COUNTER_32);
	ok1(p.needs_size64);
	ok1(plan_for("x=65536,65536", "neg", "u8", PLAN_LOOPS) == 0);
	ok1(p.nloops == 1 && p.loop[0].counter == COUNTER_64 && p.needs_size64);
	ok1(plan_for("x=65536,65535", "neg", "u8", PLAN_LOOPS) == 0);
	ok1(p.loop[0].counter == COUNTER_32 && !p.needs_size64);

	/* for size: unrolled only up to PLAN_SIZE_UNROLL_MAX; no block, tail,
	 * alignment or streaming */
	ok1(plan_goal("x=3,3 y=3", "add", "f32", GOAL_SIZE) == 0);
	ok1(p.strategy == PLAN_LOOPS && !p.align_loops && p.loop[1].tail == 0);
	ok1(plan_goal("x=3,3 y=3", "add", "f32", GOAL_SPEED) == 0 && p.strategy == PLAN_UNROLL);
	ok1(plan_goal("x=2 y=1", "add", "f32", GOAL_SIZE) == 0);
	ok1(p.strategy == (PLAN_SIZE_UNROLL_MAX >= 2 ? PLAN_UNROLL : PLAN_LOOPS));
	ok1(plan_goal("x=1000,7 y=7", "add", "f32", GOAL_SIZE) == 0);
	ok1(p.strategy == PLAN_LOOPS && p.nblock == 0);
	ok1(plan_goal("x=1000,7 y=7", "add", "f32", GOAL_SPEED) == 0 && p.strategy == PLAN_BLOCK);
	ok1(plan_goal("x=1000 y=1000", "add", "f32", GOAL_SIZE) == 0 && p.loop[0].tail == 0);
	ok1(plan_goal("x=1000 y=1000", "add", "f32", GOAL_SPEED) == 0 && p.loop[0].tail == 8);
	ok1(request("x=100000000 y=100000000", "add", "f32") == 0);
	rq.goal = GOAL_SIZE;
	ok1(build() == 0 && p.stream == STREAM_NONE);
	rq.goal = GOAL_SPEED;
	ok1(build() == 0 && p.stream == STREAM_SIZED);
	rq.goal = GOAL_SIZE;
	rq.stream = STREAM_ON;
	ok1(build() == 0 && p.stream == STREAM_ASKED);
	/* an explicit unroll is kept, up to its own limit */
	ok1(request("x=4,4 y=4", "add", "f32") == 0);
	rq.goal = GOAL_SIZE;
	rq.strategy = PLAN_UNROLL;
	ok1(build() == 0 && p.strategy == PLAN_UNROLL);

	/* max and min against a constant: its side marked, floats only */
	ok1(plan_for("x=8 b=8", "max(x + b, 0)", "f32", PLAN_LOOPS) == 0);
	ok1(is_op(root(), "maximum", "f32", FORM_HELPER) && root()->constant_arg == 2);
	ok1(plan_for("x=8", "fmin(-1.5, x)", "f64", PLAN_LOOPS) == 0);
	ok1(is_op(root(), "fmin", "f64", FORM_HELPER) && root()->constant_arg == 1);
	ok1(plan_for("x=8", "min(x, 2)", "f16", PLAN_LOOPS) == 0);
	ok1(root()->kind == VALUE_OP && root()->constant_arg == 2);
	ok1(plan_for("x=8", "max(x, 2)", "i32", PLAN_LOOPS) == 0 && root()->constant_arg == 0);
	ok1(plan_for("x=8 y=8", "max(x, y)", "f32", PLAN_LOOPS) == 0 && root()->constant_arg == 0);
	ok1(plan_for("x=8", "x + 2", "f32", PLAN_LOOPS) == 0 && root()->constant_arg == 0);
}

/*
** What --explain says of the plan: how each dimension became a loop,
** what kept two apart, and why the strategy.
*/
static void
test_explained(void)
{
	/* [8,64,56,56] + [64,1,1]: dims 2 and 3 merge; b keeps 1 and 0 apart */
	ok1(request("x=8,64,56,56 b=64,1,1", "add", "f32") == 0 && build() == 0);
	ok1(p.nloops == 3 && p.loop[2].dim_first == 2 && p.loop[2].dim_last == 3);
	ok1(p.loop[0].dim_first == 0 && p.loop[1].dim_first == 1 && p.loop[1].dim_last == 1);
	ok1(p.dim[3].inner_dim == -1 && p.dim[2].inner_dim == 3 && p.dim[2].inner_extent == 56);
	ok1(p.dim[2].blocker == -1 && p.dim[1].blocker == 1 && p.dim[0].blocker == 1);
	ok1(p.dim[1].inner_dim == 3 && p.dim[1].inner_extent == 3136);
	ok1(p.strategy == PLAN_LOOPS && p.why == WHY_NO_BLOCK && p.unroll_limit == 64);
	/* a dropped size-1 dimension inside a merged loop */
	ok1(request("x=4,1,5 y=4,1,5", "add", "f32") == 0 && build() == 0);
	ok1(p.nloops == 1 && p.loop[0].dim_first == 0 && p.loop[0].dim_last == 2);
	ok1(p.dim[1].inner_dim == -1 && p.dim[0].inner_dim == 2 && p.dim[0].inner_extent == 5);
	ok1(p.why == WHY_SMALL && p.strategy == PLAN_UNROLL);
	/* each reason of auto */
	ok1(request("x=100,7 y=7", "add", "f32") == 0 && build() == 0 && p.why == WHY_ODD);
	ok1(request("x=100,64 y=64", "add", "f32") == 0 && build() == 0 && p.why == WHY_MULTIPLE);
	ok1(request("x=0,3 y=3", "add", "f32") == 0 && build() == 0 && p.why == WHY_EMPTY);
	ok1(request("x=100,7 y=7", "add", "f32") == 0);
	rq.goal = GOAL_SIZE;
	ok1(build() == 0 && p.why == WHY_SIZE);
	ok1(request("x=100,64 y=64", "add", "f32") == 0);
	rq.stream = STREAM_ON;
	ok1(build() == 0 && p.why == WHY_STREAM && p.strategy == PLAN_LOOPS);
	rq.stream = STREAM_AUTO;
	rq.strategy = PLAN_LOOPS;
	ok1(build() == 0 && p.why == WHY_ASKED);
	/* a loop order keeps each loop's dimensions with it */
	ok1(request("x=3,5 y=3,1", "add", "f32") == 0);
	rq.loop_order = (const int[]){1, 0};
	rq.nloop_order = 2;
	rq.strategy = PLAN_LOOPS;
	ok1(build() == 0 && p.loop[0].dim_first == 1 && p.loop[1].dim_first == 0);
}

/*
** A row changed in one fact, generic's 64 vector bytes to 16, changes
** only what reads it: the lanes, and the strategy exactly where the
** innermost extent is a multiple of the new lanes and not of the old.
*/
static void
test_one_fact(void)
{
	static const char *const cases[] = {
		"x=4,16 y=16", "x=4,17 y=17", "x=4,20 y=20", "x=8,64,56,56 b=64,1,1",
		"x=4096,4096 y=4096", "x=3,5,7 y=7", "x=100 y=100",
	};
	struct target narrow = *target_default();

	narrow.vector_bytes = 16;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		enum plan_strategy strategy;
		enum plan_stream stream;
		uint64_t inner;
		int nloops, changes;

		request(cases[i], "add", "f32");
		if (build() != 0) {
			ok(0, "%s plans", cases[i]);
			continue;
		}
		strategy = p.strategy, stream = p.stream, nloops = p.nloops;
		inner = nloops ? p.loop[nloops - 1].extent : 0;
		rq.target = &narrow;
		changes = strategy == PLAN_BLOCK && inner % 16 != 0 && inner % 4 == 0;
		ok(build() == 0 && p.lanes == 4 && p.stream == stream && p.nloops == nloops
		   && p.strategy == (changes ? PLAN_LOOPS : strategy),
		   "%s: 16 vector bytes, not 64, change the lanes%s and nothing else", cases[i],
		   changes ? " and block to loops" : "");
	}
}

/* Return the elements of a vector of row T for the narrowest of BITS: the lanes. */
static int
lanes_of(const struct target *t, int bits)
{
	return t->vector_bytes * 8 > bits ? t->vector_bytes * 8 / bits : 1;
}

/*
** What auto writes out on a small-code row T keeps within the code
** budget, for an f32 add: counted in nodes, an element written out as 2
** (its add and its store), each element of an input it reads as 1, once,
** and each loop left as T's loop_nodes; at most PLAN_CODE_GROWTH times
** the loops' (those before a split, with one element's code), and a block
** that a split loop adds to at most PLAN_SPLIT_GROWTH times. Return 1 if so.
*/
static int
within_budget(const struct target *t)
{
	int k = p.nloops, at = p.nloops - p.nblock, split = 0;
	uint64_t budget, code, written = 1;

	for (int l = 0; l < p.nloops; l++) {
		k -= p.loop[l].widened;
		split |= p.loop[l].widened;
	}
	budget = (uint64_t)PLAN_CODE_GROWTH * (uint64_t)(2 + t->loop_nodes * k + rq.nin);
	if (p.code_budget != budget)
		return 0;
	if (p.strategy == PLAN_LOOPS)
		return p.nblock == 0;
	if (p.strategy == PLAN_UNROLL)
		at = 0;
	for (int l = at; l < p.nloops; l++)
		written *= p.loop[l].extent;
	code = written * 2 + (uint64_t)(t->loop_nodes * at);
	for (int i = 0; i < rq.nin; i++) {
		uint64_t d = 1;

		for (int l = at; l < p.nloops; l++)
			d *= p.loop[l].stride[i] != 0 ? p.loop[l].extent : 1;
		code += d;
	}
	if (written != p.block_count || (split && p.block_count < PLAN_SPLIT_MIN))
		return 0;
	return split && t->vector_bytes == 0 ? code * PLAN_CODE_GROWTH <= budget * PLAN_SPLIT_GROWTH
	                                     : code <= budget;
}

/*
** The small-code choices make size measured as the fastest within 4
** times the smallest strategy's bytes at -O2: on the Cortex-M4F, 17
** columns written out (3.3 instructions an element against the loops'
** 5.6); on rv32imafc, where the same block is 4.3 times the loops'
** bytes, the loops; the 5-D case's innermost 7 there, and its 35 on
** the Cortex-M4F; on the Cortex-M55, a block of 5 where the innermost
** loop is not a multiple of its 4 lanes, and loops where it is; 12
** elements unrolled where an input is read 4 in a row, and loops where
** none is (gcc would build each vector lane by lane).
*/
static void
test_small_code_measured(void)
{
	static const struct {
		const char *target, *args;
		enum plan_strategy strategy;
		uint64_t block_count;
	} cases[] = {
		{"cortex-m4f", "x=300,17 y=300,1", PLAN_BLOCK, 17},
		{"rv32imafc", "x=300,17 y=300,1", PLAN_LOOPS, 0},
		{"rv32imafc", "x=2,3,1,5,7 y=3,4,1,7", PLAN_BLOCK, 7},
		{"cortex-m4f", "x=2,3,1,5,7 y=3,4,1,7", PLAN_BLOCK, 35},
		{"cortex-m4f", "x=2,3,4 y=3,1", PLAN_UNROLL, 24},
		{"cortex-m55", "x=1000,5 y=5", PLAN_BLOCK, 5},
		{"cortex-m55", "x=2,3,4,5 y=3,1,1", PLAN_LOOPS, 0},
		{"cortex-m55", "a=4,1 b=3", PLAN_LOOPS, 0},
		{"cortex-m55", "a=4,3 b=3", PLAN_UNROLL, 12},
	};

	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		request(cases[c].args, "add", "f32");
		rq.target = target_find(cases[c].target);
		ok(build() == 0 && p.strategy == cases[c].strategy
		   && p.block_count == cases[c].block_count,
		   "%s: %s: %s, %llu written out", cases[c].target, cases[c].args,
		   plan_strategy_name(cases[c].strategy), (unsigned long long)cases[c].block_count);
	}
}

/*
** The tail a small-code row with LANES lanes splits off P's innermost
** loop: the rest past a multiple of the lanes, or, where there is none
** and a loop around it, the last vector (gcc's low-overhead loop on the
** Cortex-M55 then shares the outer loop's pointer steps: 1.57
** instructions an element against 1.68 for [2,3,4,5] + [3] at axis 1).
*/
static uint64_t
peeled_tail(int lanes)
{
	uint64_t n = p.loop[p.nloops - 1].extent, l = (uint64_t)lanes;

	if (n <= l)
		return 0;
	return n % l ? n % l : p.nloops > 1 ? l : 0;
}

/*
** Each decision on each row: the lanes, when to unroll and write out a
** block, the tail, whether to stream and in which lines, whether to align
** loops, and what the addresses reach. A row's facts decide, and nothing
** else: a row with plenty of code memory plans as generic does with its
** vector bytes; a row with small code writes out what the code budget
** allows, and with vectors runs loops, their tails split, otherwise.
*/
static void
test_rows(void)
{
	static const char *const cases[] = {
		"x=2,3,4,5 y=3,1,1", "x=2,3,4 y=2,3,4", "x=4,3 y=3", "x=2,3,4 y=3,1",
		"x=1024,1024 y=1024", "x=999,1023 y=1023", "x=2,3,1,5,7 y=3,4,1,7",
		"x=65536,2 y=2", "x=300,17 y=300,1", "x=100 y=", "x:i8=16,16,8 b:i8=8",
	};
	static const char *const rows[] = {
		"generic", "x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4", "cortex-m0",
		"cortex-m4f", "cortex-m7", "cortex-m55", "rv32imac", "rv32imafc",
	};
	const struct target *t;

	for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++)
		ok(target_find(rows[r]) != NULL, "the row %s is in the table", rows[r]);
	for (int r = 0; (t = target_row(r)) != NULL; r++) {
		struct target like = *target_default();

		like.vector_bytes = t->vector_bytes;
		like.block_short = t->block_short;
		for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
			struct plan want;
			int bits;

			if (request(cases[c], "add", "f32") != 0) {
				ok(0, "%s: %s is a request", t->name, cases[c]);
				continue;
			}
			bits = rq.out_dtype->bits;
			for (int i = 0; i < rq.nin; i++)
				bits = rq.in_dtype[i]->bits < bits ? rq.in_dtype[i]->bits : bits;
			rq.target = &like;
			if (build() != 0 || (want = p, p.offset = NULL, p.value = NULL,
			                     p.temps = NULL, p.code.item = NULL, p.code.n = 0,
			                     p.pointer = NULL, p.npointers = 0, rq.target = t,
			                     build()) != 0) {
				ok(0, "%s: %s plans", t->name, cases[c]);
				continue;
			}
			if (!t->small_code)
				ok(p.lanes == lanes_of(t, bits) && p.strategy == want.strategy
				   && p.nloops == want.nloops && p.nblock == want.nblock
				   && p.block_count == want.block_count && p.slp_only == want.slp_only
				   && p.loop[p.nloops ? p.nloops - 1 : 0].tail
				      == want.loop[want.nloops ? want.nloops - 1 : 0].tail,
				   "%s: %s: %d lanes, and the plan of %d vector bytes", t->name,
				   cases[c], p.lanes, t->vector_bytes);
			else if (t->vector_bytes > 0)
				ok(p.lanes == lanes_of(t, bits) && p.why == WHY_SCALAR && within_budget(t)
				   && (p.strategy == PLAN_UNROLL
				       || (p.strategy == PLAN_BLOCK && p.block_count >= (uint64_t)p.lanes
				           && want.loop[want.nloops - 1].extent % (uint64_t)p.lanes != 0)
				       || (p.strategy == PLAN_LOOPS
				           && p.loop[p.nloops - 1].tail == peeled_tail(p.lanes))),
				   "%s: %s: small code, %d lanes, so %s within the code budget",
				   t->name, cases[c], p.lanes, plan_strategy_name(p.strategy));
			else
				ok(p.lanes == 1 && p.why == WHY_SCALAR && !p.slp_only && within_budget(t)
				   && (p.nloops == 0 || p.loop[p.nloops - 1].tail == 0),
				   "%s: %s: no vectors, so %s within the code budget (%llu written "
				   "out)", t->name, cases[c], plan_strategy_name(p.strategy),
				   (unsigned long long)(p.strategy == PLAN_LOOPS ? 0 : p.block_count));
			/* gcc asked to count registers where the row says so
			   and statements are written out */
			ok(p.sched_pressure == (t->sched_pressure && p.nblock > 0),
			   "%s: %s: %d statements written out, so gcc is %sasked to "
			   "schedule by register pressure", t->name, cases[c],
			   (int)(p.nblock ? p.block_count : 0), p.sched_pressure ? "" : "not ");
			plan_free(&want);
		}
		/* streaming: above the row's cache, in the row's lines; else refused */
		request("x=4096,4096 y=4096", "add", "f32");
		rq.target = t;
		rq.cache_size = t->cache_bytes;
		ok(build() == 0 && p.stream == (t->nt_stores ? STREAM_SIZED : STREAM_NONE)
		   && p.line == (t->nt_stores ? t->line_bytes / 4 : 0),
		   "%s: 128 MiB of data %s", t->name, t->nt_stores ? "stream, in whole lines"
		   : "do not stream: no non-temporal stores");
		ok(p.has_loops && p.align_loops == t->fetch_bytes,
		   "%s: loops are %saligned", t->name, t->fetch_bytes > 0 ? "" : "not ");
		/* tuned for a processor whose streaming stores are the slower:
		   plain stores, and the plan says why; where the row writes
		   short loops out, a short one past the cache becomes a block */
		rq.tune = tuning_find("cascadelake");
		ok(build() == 0 && p.stream == STREAM_NONE && p.stream_unpaid == t->nt_stores,
		   "%s, --tune cascadelake: 128 MiB of data do not stream%s", t->name,
		   t->nt_stores ? ", as the plan says" : "");
		request("x=1048576,32 y=32", "add", "f32");
		rq.target = t;
		rq.cache_size = t->cache_bytes;
		if (t->nt_stores && t->block_short) {
			ok(build() == 0 && p.strategy == PLAN_LOOPS && p.stream == STREAM_SIZED,
			   "%s: a short loop past the cache streams", t->name);
			rq.tune = tuning_find("cascadelake");
			ok(build() == 0 && p.strategy == PLAN_BLOCK && p.why == WHY_SHORT
			   && p.stream == STREAM_NONE && !p.stream_unpaid,
			   "%s, --tune cascadelake: a short loop past the cache is a block", t->name);
		}
		/* a block of 17 floats: on a tuning whose stores go in order,
		   stored a vector at a time where the row has vectors */
		request("x=300,17 y=300,1", "add", "f32");
		rq.target = t;
		rq.strategy = PLAN_BLOCK;
		ok(build() == 0 && p.store_order == 0, "%s: a block's stores as compiled", t->name);
		rq.tune = tuning_find("cascadelake");
		ok(build() == 0 && p.store_order == (p.lanes > 1 && 2 * (p.lanes < 8 ? p.lanes : 8) <= 17
		                                     ? (p.lanes < 8 ? p.lanes : 8) : 0),
		   "%s, --tune cascadelake: a block of 17 stored a vector at a time (at most 8 floats, "
		   "as gcc vectorizes there) where two fit", t->name);
		rq.goal = GOAL_SIZE;
		rq.strategy = PLAN_AUTO;
		ok(build() == 0 && p.store_order == 0,
		   "%s, --tune cascadelake --optimize size: stores as compiled", t->name);
		request("x=4096,4096 y=4096", "add", "f32");
		rq.target = t;
		rq.stream = STREAM_ON;
		rq.tune = tuning_find("cascadelake");
		ok(t->nt_stores ? build() == 0 : build() != 0 && strstr(err.s, "has no non-temporal"),
		   "%s: --stream on %s", t->name, t->nt_stores ? "streams" : "is refused");
		/* what the addresses reach: 4 GiB and more of data on 32 bits */
		request("x=65536,16384 y=16384", "add", "f32");
		rq.target = t;
		ok(t->int_bits < 64 ? build() != 0 && strstr(err.s, "32-bit addresses")
		   : build() == 0,
		   "%s: 4 GiB of output %s", t->name, t->int_bits < 64 ? "is refused" : "plans");
	}
}

/*
** The target's rows decide the lanes, streaming and blocks: the facts
** of the row, and nothing else, change what the plan does.
*/
static void
test_targets(void)
{
	const struct target *t;

	/* i8 and i32 in, i8 out: generic writes the inner 8 out as a block of
	   64; on a core without vectors, the 8 alone, within the budget
	   (make size on the Cortex-M4F at -O2: 268 bytes and 10.5
	   instructions an element, against 1920 and 12.0, and the loops'
	   72 and 12.9) */
	request("x:i8=1,16,16,8 b:i32=8", "min(max(i32(x) + b, -128), 127)", "i32");
	rq.out_dtype = dtype_find("i8");
	ok1(build() == 0 && p.strategy == PLAN_BLOCK && p.block_count == 64);
	rq.target = target_find("cortex-m4f");
	ok1(build() == 0 && p.strategy == PLAN_BLOCK && p.block_count == 8 && p.why == WHY_SCALAR
	    && p.lanes == 1);
	/* without vectors: the innermost loop split so that 4 go into a block,
	   where 1024 has no divisor nearer the budget; a loop of 24 too short
	   for a block that pays for the split */
	ok1(request("x=1024,1024 y=1024", "add", "f32") == 0);
	rq.target = target_find("rv32imac");
	ok1(build() == 0 && p.strategy == PLAN_BLOCK && p.nloops == 3 && p.block_count == 4
	    && p.loop[2].widened && p.loop[1].extent == 256);
	ok1(request("x=24 y=24", "add", "f32") == 0);
	rq.target = target_find("cortex-m0");
	ok1(build() == 0 && p.strategy == PLAN_LOOPS && p.why == WHY_SCALAR);
	ok1(request("x=4,3 y=3", "add", "f32") == 0);
	rq.target = target_find("cortex-m0");
	ok1(build() == 0 && p.strategy == PLAN_UNROLL && p.why == WHY_SCALAR);
	/* for size, or a strategy asked: the budget does not apply */
	ok1(request("x=4,3 y=3", "add", "f32") == 0);
	rq.target = target_find("cortex-m0");
	rq.goal = GOAL_SIZE;
	ok1(build() == 0 && p.strategy == PLAN_LOOPS && p.why == WHY_SIZE);
	ok1(target_find("pdp-11") == NULL);
	/* a short innermost loop of a multiple of the lanes: a block on the
	   rows that say so (block_short), loops on the others */
	for (int r = 0; (t = target_row(r)) != NULL; r++) {
		static const struct {
			const char *shapes;
			int inner;
		} shorts[] = {{"x=2,3,4,5 y=3,1,1", 20}, {"x=8,32 y=32", 32}};

		for (size_t c = 0; c < sizeof shorts / sizeof shorts[0] && !t->small_code; c++) {
			int built;

			request(shorts[c].shapes, "add", "f32");
			rq.target = t;
			built = build() == 0;
			ok(built && (shorts[c].inner % p.lanes != 0
			             ? p.strategy == PLAN_BLOCK && p.why == WHY_ODD
			             : t->block_short ? p.strategy == PLAN_BLOCK && p.why == WHY_SHORT
			             : p.strategy == PLAN_LOOPS && p.why == WHY_MULTIPLE),
			   "%s: %s, an innermost loop of %d and %d lanes: %s", t->name,
			   shorts[c].shapes, shorts[c].inner, p.lanes, plan_strategy_name(p.strategy));
		}
	}
	/* past the cache, a short loop of a multiple of the lanes streams,
	   as a loop, on those rows too */
	request("x=200000,64 y=64", "add", "f32");
	rq.target = target_find("x86-64");
	rq.cache_size = rq.target->cache_bytes;
	ok1(build() == 0 && p.strategy == PLAN_LOOPS && p.stream == STREAM_SIZED);
	test_rows();
	test_small_code_measured();
	test_one_fact();
}

int
main(void)
{
	test_explained();
	test_design();
	test_strategy();
	test_speed();
	test_offsets();
	test_values();
	test_hoisting();
	test_quant();
	test_reorder();
	test_depth();
	test_code();
	test_firmware();
	test_targets();
	plan_free(&p);
	expr_free(&e);
	sb_free(&err);
	return done_testing();
}
