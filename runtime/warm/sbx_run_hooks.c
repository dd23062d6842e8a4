/* sbx_run_hooks: confinement's hooks for a run of sbx (sbx_run_hooks.h). */
#include "sbx_run_hooks.h"

#include "sbx_approval_hooks.h"
#include "sbx_denial.h"
#include "sbx_proxy.h"
#include "sbx_supervise.h"
#include "sbx_warm.h"

const struct sbx_confine_hooks sbx_run_hooks = {
  .supervise = sbx_supervise,
  .kmsg_open = sbx_kmsg_open,
  .warm_run = sbx_warm_run,
  .approvals = &sbx_approvals_unotify,
  .proxy = &sbx_proxy_hooks,
};
