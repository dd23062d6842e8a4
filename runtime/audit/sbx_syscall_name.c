/* sbx_syscall_name: see sbx_syscall_name.h. */
#include "sbx_syscall_name.h"

#include <stdio.h>

const char *sbx_syscall_name(int nr, char *buf, size_t len)
{
  const char *name = nr >= 0 && nr < SBX_SYSCALL_NAMES_MAX ? sbx_syscall_names[nr] : NULL;
  snprintf(buf, len, "%s", name ? name : "?");
  return buf;
}
