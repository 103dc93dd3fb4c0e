/*
 * semihost.c: the two semihosting calls the program needs. A call is
 * the instruction bkpt 0xab with the operation in r0 and its argument
 * (or the address of its argument block) in r1.
 */
#include <stdint.h>

#include "semihost.h"

#define SYS_WRITE0 0x04	/* write a string that ends in 0 */
#define SYS_EXIT 0x18	/* end the program: r1 says why */
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u	/* success: status 0 */
#define ADP_STOPPED_RUNTIME_ERROR 0x20023u	/* failure: status 1 */

/*
** Make semihosting call op with argument arg; returns r0 afterwards.
*/
static uintptr_t
sh_call(uintptr_t op, uintptr_t arg)
{
	register uintptr_t r0 __asm__("r0") = op;
	register uintptr_t r1 __asm__("r1") = arg;

	__asm__ volatile ("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
	return r0;
}

/*
** Write the string s (ending in 0) to the host's standard output.
*/
void
sh_puts(const char *s)
{
	sh_call(SYS_WRITE0, (uintptr_t)s);
}

/*
** End the program: exit status 0 when status is 0, else 1 (all that
** SYS_EXIT can tell on a 32-bit core). Never returns.
*/
void
sh_exit(int status)
{
	sh_call(SYS_EXIT, status == 0 ? ADP_STOPPED_APPLICATION_EXIT
		: ADP_STOPPED_RUNTIME_ERROR);
	for (;;)
		;
}
