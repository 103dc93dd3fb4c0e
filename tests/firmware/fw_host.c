/*
 * fw_host.c: fw.h's output on the host, for a test program that runs on
 * the firmware cores and on the build machine alike (t630).
 */
#include <stdio.h>

#include "fw.h"

/* fw_write0(s): writes S to standard output. */
void
fw_write0(const char *s)
{
	fputs(s, stdout);
}
