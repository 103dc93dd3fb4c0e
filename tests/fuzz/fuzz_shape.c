/*
** fuzz_shape: the shape and operand parser. The input is one operand per
** line ("x:i16=3,4"), added to one kernel description as the command line
** does (desc_add_operand), each line also parsed alone as a bare shape;
** the operands accepted are then broadcast together, by NumPy's rule and
** with an axis. A shape accepted must print back to itself; a rejected
** one must say why. Runs with leak detection on.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bcast.h"
#include "desc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Check that S, accepted, prints as sizes that parse back to S. */
static void
round_trip(const struct shape *s)
{
	struct strbuf text = {0}, err = {0};
	struct shape again;

	if (s->rank == 0)
		return;
	shape_format_sizes(&text, s);
	if (shape_parse(text.s, &again, "x", LANG_EN, &err) != 0 || !shape_equal(s, &again))
		abort();
	sb_free(&text);
	sb_free(&err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *line, *next;
	struct desc d;
	struct strbuf err = {0}, out = {0};
	struct bcast b;
	struct shape s;

	memcpy(text, data, size);
	text[size] = 0;
	desc_init(&d, FROM_CLI);
	for (line = text; line; line = next) {
		if ((next = strchr(line, '\n')))
			*next++ = 0;
		if (shape_parse(line, &s, "x", LANG_EN, &err) == 0)
			round_trip(&s);
		else if (!err.s)
			abort();
		sb_free(&err);
		if (desc_add_operand(&d, line, &err) != 0 && !err.s)
			abort();
		sb_free(&err);
	}
	if (d.nops > 0) {
		bcast_resolve(&b, d.operand, d.nops, 0, BCAST_NUMPY_AXIS);
		if (b.err)
			bcast_format_error(&out, &b, LANG_EN);
		else
			bcast_result_shape(&b, &s);
		bcast_free(&b);
		if (d.nops == 2) {
			for (int axis = -2; axis <= SHAPE_MAX_RANK; axis++) {
				bcast_resolve(&b, d.operand, 2, 1, axis);
				if (b.err)
					bcast_format_error(&out, &b, (enum lang)(axis & 1));
				bcast_free(&b);
				sb_free(&out);
			}
		}
	}
	sb_free(&out);
	desc_free(&d);
	free(text);
	return 0;
}
