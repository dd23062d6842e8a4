/* sbx_syscall_name: the x86_64 name of a system-call number, from a table
 * generated at build time from libseccomp's (gen/syscall_names_gen.c). */
#ifndef SBX_SYSCALL_NAME_H
#define SBX_SYSCALL_NAME_H

#include <stddef.h>

#define SBX_SYSCALL_NAMES_MAX 1024
/* Generated: row nr is call nr's name, NULL where there is none. */
extern const char *const sbx_syscall_names[SBX_SYSCALL_NAMES_MAX];

/* Writes the name of x86_64 call nr to buf ("?" when unknown) and
 * returns buf. */
const char *sbx_syscall_name(int nr, char *buf, size_t len);

#endif
