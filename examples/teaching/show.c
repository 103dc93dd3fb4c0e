/*
** show.c: the column_row lesson worked out by its kernel. a is a column
** of 4 numbers, b a row of 3; a + b is their 4-by-3 table, each a
** stretched along the row and each b down the column.
*/
#include <stdio.h>

#include "column_row.h"

int
main(void)
{
	const float a[4] = {0, 10, 20, 30};	/* shape (4,1) */
	const float b[3] = {0, 1, 2};		/* shape (3,) */
	float out[COLUMN_ROW_COUNT];		/* shape (4,3) */

	column_row(a, b, out);
	for (int i = 0; i < 4; i++) {
		for (int j = 0; j < 3; j++)
			printf("%s%g", j ? " " : "", (double)out[i * 3 + j]);
		printf("\n");
	}
	return 0;
}
