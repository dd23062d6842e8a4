/* sbx_approval_hooks: the approvals' system-call layer (sbx_unotify*.c)
 * as confinement's approval hooks (runtime/confine/sbx_hooks.h). */
#ifndef CS_RUNTIME_SBX_APPROVAL_HOOKS_H
#define CS_RUNTIME_SBX_APPROVAL_HOOKS_H

#include "sbx_hooks.h"

extern const struct sbx_approval_hooks sbx_approvals_unotify;

#endif
