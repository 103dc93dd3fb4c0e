/* Seed 001: [4,3,32,32] + [3,1,1], one value per RGB channel. */
#include <stdio.h>

#include "bias_add.h"

static float x[4 * 3 * 32 * 32], out[BIAS_ADD_COUNT];
static const float b[3] = {100, 200, 300};

int
main(void)
{
	for (int i = 0; i < 4 * 3 * 32 * 32; i++)
		x[i] = (float)(i % 32);
	bias_add(x, b, out);
	/* out[n][c][h][w] = x[n][c][h][w] + b[c] */
	printf("out[0][0][0][0] = %g\n", out[0]);
	printf("out[0][1][5][7] = %g\n", out[((0 * 3 + 1) * 32 + 5) * 32 + 7]);
	printf("out[3][2][31][31] = %g\n", out[BIAS_ADD_COUNT - 1]);
	return 0;
}
