/*
** plan.h: the kernel IR. Every decision about the code is made here, as
** data: the strategy, the loops with their extents, counters and the
** way each operand moves in each, where each operand is read, and the
** value stored as a tree of typed nodes with the parts computed once in
** outer loops marked; and, laid out from those, the kernel's body as
** code items (lower.c). The templates only spell it in C.
*/
#ifndef PLAN_H
#define PLAN_H

#include "bcast.h"
#include "expr.h"
#include "quant.h"
#include "target.h"

#define PLAN_UNROLL_CEILING 512	/* whatever --unroll-limit says: gcc and clang
				   -O2 compile the largest in seconds */
#define PLAN_UNROLL_NODES 1024	/* elements unrolled times expression nodes: f16
				   chains, the slowest to compile, in seconds */
#define PLAN_MAX_NEST 32	/* brackets a statement's C may nest, calls, casts and
				   ?: included; a deeper part goes into a temporary */
#define PLAN_MAX_INPUTS BC_MAX_ARGS	/* a kernel's inputs: C's 127 parameters */
#define PLAN_CACHE_MAX ((uint64_t)1 << 50)	/* --cache-size at most: a petabyte */
#define PLAN_SIZE_UNROLL_MAX 1	/* --optimize size: elements unrolled at most; from two
				   on, the loop is as small or smaller on the firmware
				   targets at -Os (make size) */
#define PLAN_CODE_GROWTH 4	/* a small-code target, for speed: the code written out
				   at most this many times the loops' (make size keeps
				   the bytes within 4 times the smallest strategy's) */
#define PLAN_SPLIT_GROWTH 2	/* the same for a block a split loop adds to */
#define PLAN_CONVERT_NODES 12	/* an f16 converted to or from a float, in software */
#define PLAN_QUANT_NODES 12	/* a step of a quantized kernel: a 64-bit multiply,
				   its rounding, a rounding shift, a clamp */
#define PLAN_QUANT_TABLE 4096	/* the bytes of a quantized input's table at most
				   (1024 elements), on the stack */
#define PLAN_QUANT_TABLE_SMALL 1024	/* and on a small-code row, whose stack is
					   small too: 256 elements */
#define PLAN_SPLIT_MIN 4	/* elements a block split from a loop holds at least:
				   with 2, the loop the split adds costs more than
				   it saves (make size: 7.0 instructions an element
				   against 6.4 unsplit on the Cortex-M4F) */
#define PLAN_SIZE32_MAX UINT32_MAX	/* elements a 32-bit size_t counts */
#define PLAN_CHUNKS 64		/* --parallel, one loop: split into this many chunks
				   at least, so that threads share them evenly */
#define PLAN_CHUNKS_MAX 65536	/* and at most, where no fewer divide it */
#define PLAN_F16_LINE 64	/* f16 elements converted at a time, where the target
				   converts in hardware: 8 of its conversions an
				   operand, and a float loop of 4 AVX-512 vectors */

enum plan_strategy {
	PLAN_AUTO,		/* unroll up to the limit; else a block when the
				   innermost loop fits in one and is not a multiple
				   of the lanes; else loops */
	PLAN_UNROLL,		/* one statement per output element */
	PLAN_LOOPS,		/* the merged loop nest */
	PLAN_BLOCK,		/* loops around their innermost loops written out */
	PLAN_EMPTY		/* the result has no elements */
};

/* Why the plan has its strategy: what --explain says. */
enum plan_why {
	WHY_ASKED,		/* --strategy named it */
	WHY_EMPTY,		/* the result has no elements */
	WHY_SMALL,		/* auto: the elements are within the unroll limit */
	WHY_ODD,		/* auto: the innermost loop fits in a block and its trip
				   count is not a multiple of the lanes */
	WHY_SHORT,		/* auto: the innermost loop fits in a block, and the
				   target writes out such short loops (block_short) */
	WHY_MULTIPLE,		/* auto: the innermost trip count is a multiple of the lanes */
	WHY_NO_BLOCK,		/* auto: no block fits: one loop, or an innermost loop
				   longer than the target's block_max */
	WHY_SIZE,		/* auto for size: a loop is smaller than a block */
	WHY_SCALAR,		/* auto for speed on a small-code target: as many
				   elements written out as the code budget allows
				   (without vectors), or else loops */
	WHY_STREAM,		/* auto with --stream on: streaming stores need a loop */
	WHY_QUANT_LINES		/* auto, quantized: the target computes the innermost
				   loop a line at a time (its quant_lines) */
};

/* --stream: non-temporal stores for the output, as asked. */
enum plan_stream_ask {
	STREAM_AUTO,		/* when the data pass the cache size */
	STREAM_ON,
	STREAM_OFF
};

/* Whether the plan streams the output, and why. */
enum plan_stream {
	STREAM_NONE,
	STREAM_SIZED,		/* the data pass the cache: where the build is hosted */
	STREAM_ASKED		/* --stream on: on any target that has such stores */
};

/* --parallel: the outermost loop shared among threads, or why not. */
enum plan_parallel {
	PARALLEL_NOT_ASKED,
	PARALLEL_YES,		/* the part function runs on each thread's share */
	PARALLEL_ONE_CORE,	/* the target has one core (its parallel_min is 0) */
	PARALLEL_SMALL,		/* fewer elements than the target's parallel_min */
	PARALLEL_ONE_LOOP	/* no outermost loop around another loop or a block,
				   and one loop that does not split into chunks */
};

/* How a loop moves one operand (or the output). */
enum plan_move {
	MOVE_NONE,		/* stride 0: the loop reads the same elements again */
	MOVE_POINTER,		/* a pointer of its own, advanced by the stride (outer loops) */
	MOVE_INDEX		/* indexed by the counter times the stride (the innermost loop) */
};

/* --optimize: what auto aims for. */
enum plan_goal {
	GOAL_SPEED,		/* the fastest code: unrolled, blocks, vector tails, streaming */
	GOAL_SIZE		/* the smallest: a loop wherever a loop is smaller */
};

/*
** The type of a loop's counter: the narrowest uint_fastN_t that holds
** the trip count and every index computed from the counter.
*/
enum plan_counter {
	COUNTER_8,
	COUNTER_16,
	COUNTER_32,
	COUNTER_64
};

/*
** How a dimension of the result was made a loop, for --explain: dropped
** (size 1), merged into the loop just inside it, or the outermost
** dimension of a loop of its own, with what kept it apart.
*/
struct plan_dim {
	int inner_dim;			/* the innermost dimension of the loop inside it
					   when it was met, or -1: none, or dropped */
	uint64_t inner_extent;		/* that loop's trip count then */
	int blocker;			/* the first input whose stride kept it from
					   merging with that loop, or -1 */
};

struct plan_loop {
	uint64_t extent;		/* trip count */
	int dim_first, dim_last;	/* the result's dimensions it runs over, merged;
					   those of size 1 among them are dropped */
	int widened;			/* split from the loop around a block, and written out
					   with it: the block becomes a multiple of the lanes */
	int chunked;			/* split from the one loop of a parallel kernel: its
					   iterations a chunk, the loop around them shared
					   among threads */
	int moved_in;			/* moved in, around a block, from further out: it
					   moves none of the inputs the block reads again
					   (share_rebuilt) */
	uint64_t tail;			/* the innermost loop: its last TAIL iterations run
					   in a loop of their own, after one of extent - tail
					   iterations, a multiple of the vector's lanes */
	enum plan_counter counter;
	int64_t stride[PLAN_MAX_INPUTS + 1];	/* elements per iteration: inputs, then the output */
	enum plan_move move[PLAN_MAX_INPUTS + 1];
};

/* Where an input is read. */
struct plan_read {
	int level;		/* before loop LEVEL; nloops: in the innermost body */
	int into_local;		/* into a local once there; else at each use */
	int via_output;		/* in place: read through the output's pointer */
	int widen;		/* f16: its stored bits become a float value when read */
	int staged;		/* f16, in the innermost loop: a line of its elements is
				   converted to floats at once (plan f16_line) */
	int quiet;		/* staged, and every value reading it quiets a signalling
				   NaN: its conversion need not keep one signalling */
	int uses;		/* how many times the value uses it */
	int table;		/* a quantized input of add or subtract, stretched along
				   a loop outside one it moves in: its elements are
				   requantized once, before the loops, into a table of
				   int32 laid out as it is, which the kernel reads in
				   its place (quant_tables) */
	int table_step;		/* a table's step: the value that spells its elements,
				   applied to the input's element */
	uint64_t table_count;	/* a table's elements: the input's */
};

enum value_kind {
	VALUE_READ,		/* an input's element, in its stored dtype */
	VALUE_LITERAL,		/* a number */
	VALUE_OP,		/* an op applied to its arguments, in its dtype */
	VALUE_CONVERT,		/* its argument converted to its dtype */
	VALUE_QUANT		/* a step of a quantized kernel (quant.h) on its argument */
};

/* How an op is computed; each is spelled one way by the templates. */
enum value_form {
	FORM_INFIX,		/* a + b + c: C's operator, exact for the dtype */
	FORM_PREFIX,		/* -a: C's operator, exact for the dtype */
	FORM_HELPER,		/* the runtime's bc_HELPER_T(a, b), folded from the left */
	FORM_COMPARE,		/* a < b, giving 0 or 1 */
	FORM_LOGICAL,		/* a && b on the truth of each, giving 0 or 1 */
	FORM_NOT,		/* the truth of a, negated: 0 or 1 */
	FORM_SELECT,		/* b where the truth of a, else c */
	FORM_PASS		/* the argument itself: an n-ary op of one operand, copy */
};

/* How a conversion is done without undefined behaviour. */
enum value_convert {
	CONVERT_NONE,		/* the same dtype: the value itself */
	CONVERT_CAST,		/* a C cast: exact, rounding, or wrapping to unsigned */
	CONVERT_WRAP,		/* to a narrower signed type, modulo 2^bits: bc_wrap_T */
	CONVERT_SATURATE,	/* float to integer: truncate, saturate, NaN to 0:
				   bc_f32_to_T, bc_f64_to_T, with no double in f32 */
	CONVERT_ROUND_F16,	/* a float to the nearest f16 value, held in a float */
	CONVERT_ROUND_F16_F64	/* a double to the nearest f16 value, directly */
};

/* How the value is stored. */
enum plan_store {
	STORE_AS_IS,		/* it is of the output's dtype */
	STORE_F16,		/* an f32 value, rounded to f16's bits */
	STORE_F16_F64		/* an f64 value, rounded to f16's bits directly */
};

/*
** How tightly C binds a value as the templates spell it, loosest first;
** templates/c.lua takes these levels from the model.
*/
enum plan_prec {
	PREC_TERNARY = 1,	/* c ? a : b */
	PREC_EQUALITY,		/* a != b */
	PREC_ADD,		/* a + b */
	PREC_MUL,		/* a * b */
	PREC_UNARY,		/* -a, (T)a */
	PREC_PRIMARY		/* a call, a name, an element */
};

/*
** How C spells a kind of value, a form or a conversion: its name in the
** model, which templates/c.lua spells, and the brackets its C nests (a
** call, a cast, a parenthesis each count one): for a read or a literal,
** around nothing else (bc_f16_to_f32(x[i]): two); for a form or a
** conversion, around an argument at most (bc_wrap_i8((uint64_t)a): two).
** The plan keeps a statement's brackets within PLAN_MAX_NEST by these.
*/
struct plan_spelling {
	const char *name;
	int brackets;
};

extern const struct plan_spelling plan_kind_spelling[];	/* by enum value_kind */
extern const struct plan_spelling plan_form_spelling[];	/* by enum value_form */
extern const struct plan_spelling plan_convert_spelling[];	/* by enum value_convert */

struct plan_value {
	enum value_kind kind;
	const struct dtype *type;	/* the dtype of its value */
	int is_bool;			/* a comparison's or logical op's 0 or 1 */
	int operand;			/* VALUE_READ: the input */
	const struct op *op;		/* VALUE_OP */
	const struct dtype *calc;	/* VALUE_OP: the dtype it computes in */
	enum value_form form;		/* VALUE_OP */
	enum plan_prec binds;		/* FORM_INFIX: how tightly its C operator binds */
	enum value_convert convert;	/* VALUE_CONVERT */
	int nargs;
	int arg[BC_MAX_ARGS];		/* the values it applies to, made before it */
	int negative;			/* VALUE_LITERAL: below zero */
	int minimum;			/* VALUE_LITERAL: the dtype's least integer */
	char digits[32];		/* VALUE_LITERAL: its magnitude, the shortest
					   decimal that reads back as it */
	int level;			/* the loop from which it no longer varies */
	int hoistable;			/* an op or cast the user wrote: may be computed once */
	int temp;			/* its number as a value computed once, or -1 */
	int split;			/* a temporary only to keep the C shallow */
	int source;			/* the expression node it computes, or -1 */
	enum quant_step step;		/* VALUE_QUANT: the step */
	int single;			/* VALUE_QUANT: under single rounding, else double */
	int32_t constant[5];		/* VALUE_QUANT: the step's constants, in the order
					   its runtime helper takes them (bc_quant.h) */
	int nconstants;
	int constant_arg;		/* FORM_HELPER max/min of floats: 1 or 2 when that
					   argument is a constant (never NaN), so the
					   runtime's one-compare helper serves; else 0 */
};

/*
** The code items: the kernel's body as the plan lays it out (lower.c),
** which the templates spell in C and decide nothing of. Operands are
** numbered as in the plan: the inputs, then nin for the output.
*/

/*
** A pointer the code reads or writes through; the items name it by its
** number in the plan's pointers.
*/
struct code_pointer {
	int operand;		/* the operand it points into */
	int loop;		/* the loop that moves it, or -1: the parameter itself */
};

/* Where a statement finds an operand's element, or an input's value. */
enum code_at_kind {
	AT_LOCAL,		/* the input's local, read once before */
	AT_POINTER,		/* the element the pointer points at */
	AT_OFFSET,		/* the element OFFSET elements on from the pointer */
	AT_INDEX,		/* the element STRIDE times the counter of LOOP on (the
				   counter plus the lane of a line, with LANE) */
	AT_LINE,		/* the line's element at the lane */
	AT_STAGED,		/* the input's float of the line at the lane: its f16
				   elements converted at once */
	AT_FLOAT_LINE,		/* the float line's element at the lane, the line
				   converted to f16 at once when stored */
	AT_ONCE			/* a quantized input's value, computed once before the
				   loop along which it stays put: its step's temporary;
				   POINTER, its pointer, is not read */
};

struct code_at {
	enum code_at_kind kind;
	int pointer;			/* AT_POINTER, AT_OFFSET, AT_INDEX */
	uint64_t offset;		/* AT_OFFSET */
	int loop;			/* AT_INDEX */
	int64_t stride;			/* AT_INDEX */
	int lane;			/* AT_INDEX */
};

enum code_kind {
	CODE_COUNTERS,		/* the counters of LOOPS, of one type, BITS wide at least */
	CODE_POINTER,		/* POINTER declared, pointing where FROM points */
	CODE_LOCAL,		/* input OPERAND read once into its local, from AT */
	CODE_TEMP,		/* value VALUE computed once, its inputs read as READS say */
	CODE_STORE,		/* value VALUE, the root, stored into AT, its inputs read
				   as READS say */
	CODE_LOOP,		/* loop LOOP's counter (the lane of a line, with LANE) from 0
				   (or from where it is, FROM_HERE) to TO (or to the head,
				   TO_HEAD; or to the thread's share, TO_SHARE), moving
				   the pointers of STEPS; BODY. ELEMENTS:
				   its body is one element's statements */
	CODE_ELEMENT,		/* one element written out: BODY, and where it is, WHERE:
				   the values of the counters of loops LOOP on, or, with
				   LOOP -1, its index in the result (none for a scalar) */
	CODE_STREAM,		/* BODY, with the head: the elements of loop LOOP, of TO,
				   before a line boundary of POINTER */
	CODE_LINES,		/* the whole lines of loop LOOP, up to TO: BODY computes a
				   line of LINE elements, stored around the cache at POINTER;
				   with CONVERT, f16 lines from 0 instead: the inputs'
				   converted to floats by BODY's CODE_WIDEN items, and
				   the floats BODY computes converted to f16 at POINTER
				   where NARROW (QUIET: never a signalling NaN), else
				   BODY stores the output */
	CODE_WIDEN,		/* input OPERAND's LINE f16 elements from AT converted
				   to floats at once (QUIET: a signalling NaN may
				   become quiet) */
	CODE_IF,		/* BODY where the target streams (in a hosted build, with
				   HOSTED), else ORELSE */
	CODE_FENCE,		/* the streaming stores made visible */
	CODE_ORDER,		/* the stores above before those below (BC_STORE_ORDER) */
	CODE_QUANT_TABLE,	/* input OPERAND's TO elements requantized by value VALUE
				   into its table, before the loops */
	CODE_QUANT_LINE,	/* loop LOOP, TO iterations, of a quantized kernel by the
				   runtime's line helper: VALUE, the root, stored at
				   POINTER, its inputs as READS say (AT_POINTER: moving
				   one element an iteration; AT_ONCE: staying put) */
	CODE_UNUSED,		/* OPERAND is not used */
	CODE_EMPTY		/* nothing to do: the result has no elements */
};

/* A pointer a loop moves, and how far. */
struct code_step {
	int pointer;
	int64_t by;
};

/* Code items in the order the C runs them. */
struct code_list {
	struct code_item *item;
	int n;
};

/* One code item: the fields its kind names (enum code_kind); the others 0. */
struct code_item {
	enum code_kind kind;
	int loop;			/* a loop of the plan; CODE_ELEMENT: WHERE's first */
	int operand;			/* an input, or nin: the output */
	int value;			/* a value of the plan */
	int bits;			/* CODE_COUNTERS */
	int lane, from_here, to_head;	/* CODE_LOOP */
	int to_share;			/* CODE_LOOP: to the thread's share of its iterations,
					   a parameter of the part function (plan parallel) */
	int elements;			/* CODE_LOOP */
	int hosted;			/* CODE_IF */
	uint64_t to;			/* a loop's bound: its counter stays below it */
	int line;			/* CODE_LINES, CODE_WIDEN */
	int convert, narrow;		/* CODE_LINES */
	int quiet;			/* CODE_LINES (narrow), CODE_WIDEN: no signalling NaN
					   is kept, none can reach the output */
	int pointer, from;		/* pointers: numbers in the plan's */
	struct code_at at;		/* CODE_LOCAL, CODE_STORE */
	struct code_at *reads;		/* CODE_TEMP, CODE_STORE: one an input */
	int *loops;			/* CODE_COUNTERS */
	int nloops;
	struct code_step *steps;	/* CODE_LOOP */
	int nsteps;
	uint64_t *where;		/* CODE_ELEMENT */
	int nwhere;
	struct code_list body, orelse;	/* the items it holds: CODE_LOOP, CODE_ELEMENT,
					   CODE_STREAM, CODE_LINES, CODE_IF */
};

struct plan {
	enum plan_strategy strategy;	/* never PLAN_AUTO once built */
	enum plan_why why;		/* why that one */
	uint64_t unroll_limit;		/* elements unrolled at most, as applied: the
					   --unroll-limit, less for a long expression or
					   --optimize size */
	uint64_t code_budget;		/* WHY_SCALAR: the code allowed, in expression
					   nodes */
	int unroll_nodes;		/* the expression's nodes, when they lowered
					   unroll_limit (PLAN_UNROLL_NODES in all); else 0 */
	struct plan_dim dim[SHAPE_MAX_RANK];	/* how each result dimension became a loop */
	int nin;			/* input operands; the output is index nin */
	int inplace;			/* the output is input 0 */
	uint64_t count;			/* result elements */
	int nloops;			/* loops, outermost first */
	int nblock;			/* the innermost loops written out, one statement an
					   element: all of them when unrolled, some for
					   PLAN_BLOCK, else none */
	uint64_t block_count;		/* elements written out: the product of their extents */
	int lanes;			/* elements of the narrowest dtype in a vector of the
					   target (1 without vectors): an innermost trip
					   count is made a multiple of it, which gcc -O2
					   needs to vectorize a loop */
	int align_loops;		/* the kernel has loops, on a target that fetches
					   instructions in blocks of this many bytes: ask the
					   compiler to start each loop on a block's boundary;
					   0: not asked */
	int has_loops;			/* the kernel runs loops: none may become a call to
					   memcpy or memset, which a freestanding build lacks */
	int no_vector_loads;		/* WHY_SCALAR with vectors: no input is read a
					   vector's lanes in a row (vectors_load), so the
					   result is not unrolled */
	int sched_pressure;		/* statements are written out, on a target whose
					   compilers must be asked to count registers when
					   they schedule them (its sched_pressure) */
	int vectors_512;		/* quantized, on a row of 64-byte vectors: ask gcc for
					   them where it targets AVX-512 (BC_VECTORS_512) */
	int slp_only;			/* the loop around a block is shorter than a vector:
					   ask the compiler to vectorize the block, not
					   across that loop's iterations */
	enum plan_stream stream;	/* the innermost loop writes whole cache lines of
					   the output with non-temporal stores */
	int store_order;		/* elements written out are stored in order, this
					   many (a vector's) at a time, where the tuning's
					   stores run slower otherwise; 0: as compiled */
	int stream_unpaid;		/* the data pass the cache, but the tuning's
					   streaming stores are slower than plain ones:
					   not streamed */
	int line;			/* output elements in a cache line of the target
					   (one with non-temporal stores; else 0) */
	int f16_line;			/* the innermost loop converts its f16 data a line
					   of this many elements at a time (PLAN_F16_LINE),
					   in hardware where the compiler targets it; 0: one
					   element at a time */
	int f16_out_line;		/* f16_line, and the output is f16 */
	int f16_out_quiet;		/* f16_out_line, and the value stored is never a
					   signalling NaN: its conversion need not keep one */
	int f16_not_streamed;		/* f16_line took the place of streaming past the cache */
	enum plan_parallel parallel;	/* --parallel: whether the outermost loop is shared
					   among threads, or why not */
	uint64_t bytes;			/* the data: the inputs' elements and the output's */
	int reordered;			/* in the order --loop-order asks, not the result's
					   dimensions' */
	int rebuilt[PLAN_MAX_INPUTS];	/* the inputs the block reads again within
					   itself, whose vectors compilers build by
					   permutes, where a loop moved in around it
					   moves none of them (share_rebuilt) */
	int nrebuilt;			/* how many; 0 where no loop was moved */
	int quant_line;			/* quantized, on a target with quant_lines: the
					   innermost loop runs as the runtime's line helper
					   (CODE_QUANT_LINE), the output moving one element
					   an iteration and each input one or none */
	enum plan_goal goal;		/* what auto aimed for */
	int needs_size64;		/* the result has more elements than a 32-bit size_t
					   counts: the kernel refuses to compile where
					   size_t is narrower than 64 bits */
	struct plan_loop loop[SHAPE_MAX_RANK];
	struct plan_read read[PLAN_MAX_INPUTS];
	struct plan_value *value;	/* the stored value's tree; the root is last */
	int nvalues;
	int *temps;			/* values computed once, before their level
					   (nloops: in the innermost body, or per
					   element when unrolled) */
	int ntemps;			/* in the order computed */
	uint64_t *offset;		/* the block's elements: [element * (nin + 1) + operand],
					   from the pointers of the loop around it */
	int libm;			/* a value needs the runtime's bc_math.h */
	int quant;			/* the kernel is quantized: bc_quant.h */
	int quant_tables;		/* inputs read from their tables (plan_read table) */
	enum plan_store store;		/* how the value becomes the output's element */
	int contract;			/* a float multiply may meet an add: keep them apart,
					   under gcc's GNU dialects too */
	struct code_list code;		/* the kernel's body, as code items */
	struct code_pointer *pointer;	/* the pointers they name: each operand's parameter
					   (the output's last), then those loops move */
	int npointers;
	const char *fault;		/* on error: the request's field at fault, as a
					   spec names it ("loop_order"), or NULL */
};

/* What the plan is made from, besides the broadcast. */
struct plan_request {
	int nin;				/* inputs: the first nin operands */
	int inplace;				/* the result goes into input 0 */
	enum plan_strategy strategy;		/* as asked */
	uint64_t unroll_limit;
	const int *loop_order;			/* a permutation of the loops, or NULL */
	int nloop_order;
	enum plan_stream_ask stream;		/* --stream */
	int parallel;				/* --parallel */
	uint64_t cache_size;			/* --cache-size: bytes */
	const struct expr *expr;		/* the computation, types checked */
	const struct dtype *dtype;		/* the kernel's */
	const struct dtype *const *in_dtype;	/* each input's as stored */
	const struct dtype *out_dtype;		/* the result's as stored */
	const struct quant *quant;		/* a quantized kernel's constants, or NULL */
	enum plan_goal goal;			/* --optimize */
	int spec;				/* messages name fields as a spec does */
	const struct target *target;		/* the machine: its facts */
	const struct tuning *tune;		/* its processor: what pays */
};

int plan_build(struct plan *p, const struct bcast *b, const struct plan_request *rq,
               struct strbuf *err);
void plan_free(struct plan *p);
const char *plan_strategy_name(enum plan_strategy s);

#endif
