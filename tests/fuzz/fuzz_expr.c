/*
** fuzz_expr: the expression parser, folder and type checker, as a
** kernel's --expr meets them. The input's first byte chooses the
** computation dtype, its second how many operands (x, y, w, b, c) there
** are, the next ones their stored dtypes; the rest is the expression.
** An accepted tree must print; an error must say why and where. Runs with
** leak detection on.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {"x", "y", "w", "b", "c"};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct dtype *table = dtype_table(), *in[5];
	struct expr e = {0};
	struct strbuf err = {0}, text = {0};
	int ntypes = 0, nnames, r;
	char *src;

	if (size < 2 + 5)
		return 0;
	while (table[ntypes].name)
		ntypes++;
	nnames = 1 + data[1] % 5;
	for (int i = 0; i < 5; i++)
		in[i] = &table[data[2 + i] % ntypes];
	src = malloc(size - 7 + 1);
	memcpy(src, data + 7, size - 7);
	src[size - 7] = 0;
	r = expr_parse(&e, src, names, nnames, &err);
	if (r == 0) {
		if (data[0] & 0x80)
			e.in_dtype = in;
		r = expr_check(&e, &table[data[0] % ntypes], &err);
	}
	if (r == 0) {
		if (err.s)
			abort();
		expr_text(&text, &e, e.root);
	} else {
		if (!err.s)
			abort();
		if (e.err_pos >= 0) {
			if (e.err_pos > (int)strlen(src))
				abort();
			expr_where(&text, &e, "expr");
			expr_caret(&text, &e);
		}
	}
	sb_free(&text);
	sb_free(&err);
	expr_free(&e);
	free(src);
	return 0;
}
