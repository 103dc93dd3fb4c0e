/*
** lower.h: the plan laid out as code items (struct code_item in plan.h),
** the kernel's body in the order its C runs.
*/
#ifndef LOWER_H
#define LOWER_H

#include "plan.h"

void lower_code(struct plan *p, const struct bcast *b);
void lower_free(struct code_list *list);

#endif
