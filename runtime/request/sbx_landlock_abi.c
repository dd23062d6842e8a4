/* sbx_landlock_abi: what the running kernel's Landlock offers and how sbx
 * asks for it (sbx_landlock_rights.h): the rights an ABI understands, the ABI
 * itself, the flags of landlock_restrict_self. Used by the plan, the
 * Landlock layer and the naming of refusals (runtime/audit). */
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sbx_landlock_rights.h"

uint64_t sbx_ll_fs_rights(int abi)
{
  uint64_t r = 0;
  if (abi >= 1)
    r |= (1ull << 13) - 1; /* EXECUTE .. MAKE_SYM */
  if (abi >= 2)
    r |= SBX_LL_FS_REFER;
  if (abi >= 3)
    r |= SBX_LL_FS_TRUNCATE;
  if (abi >= 5)
    r |= SBX_LL_FS_IOCTL_DEV;
  return r;
}

unsigned sbx_ll_restrict_flags(int abi)
{
  /* The command is executed after landlock_restrict_self: without
   * LOG_NEW_EXEC_ON the kernel would log only sbx's own last steps (an
   * execve refused by Landlock), nothing the command does. Same-exec
   * logging stays on for that execve; nested domains the command makes
   * keep the kernel's default (they are logged, under their own id). */
  return abi >= 7 ? SBX_LL_RESTRICT_SELF_LOG_NEW_EXEC_ON : 0u;
}

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif

int sbx_ll_abi(void)
{
  long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, SBX_LL_CREATE_RULESET_VERSION);
  return abi > 0 ? (int)abi : 0;
}
