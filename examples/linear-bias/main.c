/* Seed 004: y = Xw + b, the scalar bias b broadcast to every sample. */
#include <stdio.h>

#include "add_bias.h"

int
main(void)
{
	const float X[4][3] = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {10, 11, 12}};
	const float w[3] = {0.5f, -1, 2};
	const float b = 0.25f;
	float xw[4], y[ADD_BIAS_COUNT];

	for (int i = 0; i < 4; i++) {
		xw[i] = 0;
		for (int j = 0; j < 3; j++)
			xw[i] += X[i][j] * w[j];
	}
	add_bias(xw, &b, y);
	for (int i = 0; i < 4; i++)
		printf("y[%d] = %g\n", i, y[i]);
	return 0;
}
