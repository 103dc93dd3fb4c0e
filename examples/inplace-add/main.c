/* Seed 002: x.add_(y) in place, x of shape [3,2,3] and y = [10,20,30]. */
#include <stdio.h>

#include "add_inplace.h"

int
main(void)
{
	float x[3][2][3] = {{{1, 2, 3}, {4, 5, 6}}, {{1, 1, 1}, {2, 2, 2}}, {{3, 3, 3}, {4, 4, 4}}};
	const float y[3] = {10, 20, 30};

	add_inplace(&x[0][0][0], y);
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 2; j++)
			printf("[%g %g %g] ", x[i][j][0], x[i][j][1], x[i][j][2]);
		printf("\n");
	}
	return 0;
}
