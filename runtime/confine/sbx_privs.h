/* sbx_privs: the command's own limits (sbx_privs.c): rlimits,
 * no_new_privs, capabilities and securebits, the seccomp filter. */
#ifndef CS_RUNTIME_SBX_PRIVS_H
#define CS_RUNTIME_SBX_PRIVS_H

#include <stdbool.h>

#include "cs_profile_table.h"
#include "sbx_fail.h"

struct sbx_plan;

/* Resource limits of the profile (and RLIMIT_CORE = 0), all but the
 * address space, which sbx_memory_limit_apply sets after sbx's last
 * allocation in the command's process, just before seccomp. */
int sbx_rlimits_apply(const struct sbx_plan *plan, struct sbx_fail *f);
int sbx_memory_limit_apply(const struct cs_profile *p, struct sbx_fail *f);
/* no_new_privs first: Landlock and seccomp need it, and it makes every
 * later exec unable to gain privileges. */
int sbx_nnp_apply(struct sbx_fail *f);
/* Securebits locked, the ambient and bounding sets emptied (the bounding
 * set checked). The
 * effective set is untouched, so a warm spare's command does this before
 * its request (runtime/warm/sbx_serve_spare.c) and still has what joining the run's cgroup
 * needs; only sbx_caps_drop_sets remains after the go. */
int sbx_caps_drop_bound(struct sbx_fail *f);
/* sbx is root: the command becomes the plan's run_uid/run_gid with no
 * supplementary groups (sbx_plan_identity.c), and is checked to have no
 * other id left. Between sbx_caps_drop_bound (whose securebits keep the
 * permitted set through the change) and sbx_caps_drop_sets. */
int sbx_identity_apply(const struct sbx_plan *p, struct sbx_fail *f);
/* Effective, permitted and inheritable empty (and checked); after
 * sbx_caps_drop_bound. */
int sbx_caps_drop_sets(struct sbx_fail *f);
/* Loads the profile's filter; `log` asks the kernel to log refusals too. */
int sbx_seccomp_load(const struct cs_profile *p, bool log, struct sbx_fail *f);

#endif
