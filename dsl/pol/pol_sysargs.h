/* pol_sysargs: argument names and widths of the system calls a policy
 * conditions on, after the kernel's prototypes (include/linux/syscalls.h,
 * arch/x86/kernel/sys_x86_64.c) for x86_64.
 *
 * Width matters: the kernel reads an `int` or `unsigned int` argument from
 * the low 32 bits of the register and ignores the rest, while the seccomp
 * filter sees all 64. A condition on a 32-bit argument must therefore look
 * at the low word only (struct sc_cond.is32), or a caller could set high
 * bits to slip past `cmd == TIOCSTI`. */
#ifndef CS_DSL_POL_SYSARGS_H
#define CS_DSL_POL_SYSARGS_H

#include <stdbool.h>

/* Looks up argument `arg` (a name from the table, or arg0..arg5) of
 * syscall. 0 and *index, *is32 set; -ENOENT when the name is unknown for
 * that call. Calls missing from the table accept only arg0..arg5, as
 * 64-bit. */
int pol_sysarg_lookup(const char *syscall, const char *arg, unsigned *index, bool *is32);
/* Comma-separated argument names of syscall for messages; "" if unknown. */
const char *pol_sysarg_names(const char *syscall);

#endif
