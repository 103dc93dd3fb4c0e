/* Seed 004: c = a + b + d with a = arange(6).reshape(3,1,2),
   b = arange(2).reshape(1,2,1), d = arange(8).reshape(2,1,2,2). */
#include <stdio.h>

#include "add3.h"

int
main(void)
{
	int32_t a[6], b[2], d[8], c[ADD3_COUNT];
	const long shape[ADD3_RANK] = ADD3_SHAPE;

	for (int i = 0; i < 6; i++)
		a[i] = i;
	for (int i = 0; i < 2; i++)
		b[i] = i;
	for (int i = 0; i < 8; i++)
		d[i] = i;
	add3(a, b, d, c);
	printf("shape (%ld, %ld, %ld, %ld)\n", shape[0], shape[1], shape[2], shape[3]);
	for (int i = 0; i < ADD3_COUNT; i += 2)
		printf("[%2d %2d]%s", (int)c[i], (int)c[i + 1], i % 4 == 2 ? "\n" : " ");
	return 0;
}
