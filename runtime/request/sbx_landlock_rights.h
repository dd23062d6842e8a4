/* sbx_landlock_rights: the kernel's Landlock constants and what the
 * running kernel's Landlock offers (sbx_landlock_abi.c): the rights an ABI
 * understands, the ABI itself, the flags of landlock_restrict_self. Shared
 * by the plan (which rights a rule gets), the Landlock layer
 * (runtime/confine/sbx_landlock.c) and the naming of refusals
 * (runtime/audit). */
#ifndef CS_RUNTIME_SBX_LANDLOCK_RIGHTS_H
#define CS_RUNTIME_SBX_LANDLOCK_RIGHTS_H

#include <stdint.h>

/* Landlock constants newer than Debian 12's <linux/landlock.h> (6.1): the
 * kernel's values, so the ruleset uses the best ABI the running kernel has. */
#define SBX_LL_CREATE_RULESET_VERSION (1u << 0)
#define SBX_LL_RULE_PATH_BENEATH 1
#define SBX_LL_RULE_NET_PORT 2
#define SBX_LL_FS_EXECUTE (1ull << 0)
#define SBX_LL_FS_WRITE_FILE (1ull << 1)
#define SBX_LL_FS_READ_FILE (1ull << 2)
#define SBX_LL_FS_READ_DIR (1ull << 3)
#define SBX_LL_FS_REMOVE_DIR (1ull << 4)
#define SBX_LL_FS_REMOVE_FILE (1ull << 5)
#define SBX_LL_FS_MAKE_CHAR (1ull << 6)
#define SBX_LL_FS_MAKE_DIR (1ull << 7)
#define SBX_LL_FS_MAKE_REG (1ull << 8)
#define SBX_LL_FS_MAKE_SOCK (1ull << 9)
#define SBX_LL_FS_MAKE_FIFO (1ull << 10)
#define SBX_LL_FS_MAKE_BLOCK (1ull << 11)
#define SBX_LL_FS_MAKE_SYM (1ull << 12)
#define SBX_LL_FS_REFER (1ull << 13)                  /* ABI 2 */
#define SBX_LL_FS_TRUNCATE (1ull << 14)               /* ABI 3 */
#define SBX_LL_FS_IOCTL_DEV (1ull << 15)              /* ABI 5 */
#define SBX_LL_NET_BIND_TCP (1ull << 0)               /* ABI 4 */
#define SBX_LL_NET_CONNECT_TCP (1ull << 1)            /* ABI 4 */
#define SBX_LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ull << 0) /* ABI 6 */
#define SBX_LL_SCOPE_SIGNAL (1ull << 1)               /* ABI 6 */

/* Rights a file (not a directory) can carry in a path-beneath rule. */
#define SBX_LL_FS_FILE_RIGHTS                                                                      \
  (SBX_LL_FS_EXECUTE | SBX_LL_FS_WRITE_FILE | SBX_LL_FS_READ_FILE | SBX_LL_FS_TRUNCATE |           \
   SBX_LL_FS_IOCTL_DEV)
#define SBX_LL_FS_READ (SBX_LL_FS_READ_FILE | SBX_LL_FS_READ_DIR)
#define SBX_LL_FS_CREATE                                                                           \
  (SBX_LL_FS_MAKE_CHAR | SBX_LL_FS_MAKE_DIR | SBX_LL_FS_MAKE_REG | SBX_LL_FS_MAKE_SOCK |           \
   SBX_LL_FS_MAKE_FIFO | SBX_LL_FS_MAKE_BLOCK | SBX_LL_FS_MAKE_SYM)
#define SBX_LL_FS_WRITE                                                                            \
  (SBX_LL_FS_WRITE_FILE | SBX_LL_FS_TRUNCATE | SBX_LL_FS_REFER | SBX_LL_FS_MAKE_DIR |              \
   SBX_LL_FS_MAKE_REG | SBX_LL_FS_MAKE_SYM | SBX_LL_FS_MAKE_FIFO | SBX_LL_FS_MAKE_SOCK)
#define SBX_LL_FS_DELETE (SBX_LL_FS_REMOVE_DIR | SBX_LL_FS_REMOVE_FILE)

/* Landlock rights the kernel with this ABI understands (0 for ABI 0). */
uint64_t sbx_ll_fs_rights(int abi);

/* landlock_restrict_self() flags (ABI 7), the kernel's values. */
#define SBX_LL_RESTRICT_SELF_LOG_SAME_EXEC_OFF (1u << 0)
#define SBX_LL_RESTRICT_SELF_LOG_NEW_EXEC_ON (1u << 1)
#define SBX_LL_RESTRICT_SELF_LOG_SUBDOMAINS_OFF (1u << 2)

/* The flags sbx passes to landlock_restrict_self on a kernel with this
 * Landlock ABI: LOG_NEW_EXEC_ON from ABI 7, 0 before (older kernels
 * reject unknown flags with EINVAL). */
unsigned sbx_ll_restrict_flags(int abi);
/* The running kernel's Landlock ABI (0: none). */
int sbx_ll_abi(void);

#endif
