/* Seed 001: add 5 points to every score of [class, students, scores]. */
#include <stdio.h>

#include "add_five.h"

static float scores[4 * 32 * 8], out[ADD_FIVE_COUNT];

int
main(void)
{
	const float five = 5;

	for (int i = 0; i < 4 * 32 * 8; i++)
		scores[i] = (float)(60 + i % 40);
	add_five(scores, &five, out);
	printf("class 0, student 0: %g -> %g\n", scores[0], out[0]);
	printf("class 3, student 31, score 7: %g -> %g\n", scores[ADD_FIVE_COUNT - 1],
	       out[ADD_FIVE_COUNT - 1]);
	return 0;
}
