/* sbx_run_hooks: the complete set of confinement's hooks
 * (runtime/confine/sbx_hooks.h) for a run of sbx: the supervisor
 * (runtime/supervise), the kernel's audit records (runtime/audit), the
 * warm start (this folder) and the approvals' system-call layer
 * (runtime/supervise). Assembled here, in the highest of those folders,
 * so that a caller of sbx_confine_run (the command line, the tests) sets
 * req.hooks = &sbx_run_hooks. */
#ifndef CS_RUNTIME_SBX_RUN_HOOKS_H
#define CS_RUNTIME_SBX_RUN_HOOKS_H

#include "sbx_hooks.h"

extern const struct sbx_confine_hooks sbx_run_hooks;

#endif
