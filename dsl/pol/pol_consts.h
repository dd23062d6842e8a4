/* pol_consts: the named constants a policy may use (TIOCSTI, AF_INET,
 * CLONE_NEWUSER, PR_SET_NO_NEW_PRIVS, EPERM, ...). The table is generated
 * at build time from the kernel and libc headers (pol_consts_gen.sh), so
 * every value is the one the compiler sees in <asm/ioctls.h>,
 * <linux/sched.h>, ... on the build machine, never a number typed by hand. */
#ifndef CS_DSL_POL_CONSTS_H
#define CS_DSL_POL_CONSTS_H

#include <stddef.h>
#include <stdint.h>

/* 0, or -ENOENT when name is not in the table. */
int pol_const_lookup(const char *name, uint64_t *value);
/* An errno name (EPERM, ENOSYS, ...): 0, or -ENOENT. */
int pol_errno_lookup(const char *name, int *value);
/* The first errno name with that value in alphabetical order; NULL if none. */
const char *pol_errno_name(int value);
/* Entries in the table (tests). */
size_t pol_const_count(void);

#endif
