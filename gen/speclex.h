/*
** speclex.h: the line a field of a spec kernel's table is written on.
*/
#ifndef SPECLEX_H
#define SPECLEX_H

#include <stddef.h>

int speclex_field_line(const char *src, size_t len, int line, int nth, int npositional,
                       const char *name, int index);

#endif
