/*
** names.h: what the names a user chooses may be in the emitted C.
*/
#ifndef NAMES_H
#define NAMES_H

#include "kernel.h"

int names_check(const struct kernel *k, int from_output, struct strbuf *err);

#endif
