/* A layer whose kernels the build generates from net.lua. */
#include <stdio.h>

#include "net.h"

int
main(void)
{
	float x[BIAS_ADD_COUNT], w[3] = {1, -1, 2}, b[3] = {0.5f, -0.5f, -20};
	float y[BIAS_ADD_COUNT], r[RELU_BIAS_COUNT];
	int i;

	for (i = 0; i < BIAS_ADD_COUNT; i++)
		x[i] = (float)i;
	bias_add(x, b, y);
	relu_bias(x, w, b, r);
	for (i = 0; i < BIAS_ADD_COUNT; i++)
		printf("%g %g%c", y[i], r[i], i % 4 == 3 ? '\n' : ' ');
	return 0;
}
