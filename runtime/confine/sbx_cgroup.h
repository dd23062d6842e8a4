/* sbx_cgroup: a run's cgroup limits, supervisor side (sbx_cgroup.c). */
#ifndef CS_RUNTIME_SBX_CGROUP_H
#define CS_RUNTIME_SBX_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "sbx_confine.h"
#include "sbx_fail.h"

/* Cgroup limits; supervisor side. */
struct sbx_cgroup {
  enum sbx_cgroup_mode mode;
  char pids_dir[256];   /* the run's cgroup in the pids (v1) or unified (v2) tree */
  char memory_dir[256]; /* v1 memory, or empty */
  char info[128];
  /* v1: the run's `tasks` file, opened by the supervisor; sbx-init writes
   * "0" to it to join (sbx_cgroup_join) instead of the supervisor moving
   * init by pid. -1 otherwise (only meaningful when mode != NONE). */
  int join_fd;
  /* A cgroup v2 directory holding the whole sandbox, for freezing it
   * (cgroup.freeze) while a person is asked on the terminal: pids_dir in
   * mode V2, else one sbx_cgroup_freezer made in the unified hierarchy
   * (removed by sbx_cgroup_destroy); empty when there is none. */
  char freeze_dir[256];
  bool freeze_own;
};
/* Creates a cgroup for one run when the machine allows it; mode NONE
 * otherwise (not an error: rlimits still apply). */
int sbx_cgroup_create(const struct cs_profile *p, const struct sbx_features *feat,
                      struct sbx_cgroup *cg, struct sbx_fail *f);
/* Moves `pid` into the run's cgroup from the supervisor (v2). */
int sbx_cgroup_attach(const struct sbx_cgroup *cg, pid_t pid);
/* In sbx-init, before it forks: joins the cgroup through cg->join_fd
 * (v1). Returns 0 or a negative errno. */
int sbx_cgroup_join(int join_fd);
/* Sets cg->freeze_dir for the run whose pid 1 is `init` (not released
 * yet: nothing has forked): the run's own cgroup in mode V2, otherwise a
 * new cgroup in the v2 hierarchy (a hybrid machine mounts it at
 * /sys/fs/cgroup/unified) that init is moved into. 0, or -errno with the
 * reason in why. */
int sbx_cgroup_freezer(struct sbx_cgroup *cg, pid_t init, char *why, size_t why_len);
/* Could sbx_cgroup_freezer make a freezable cgroup here? With the reason. */
bool sbx_cgroup_freezer_detect(char *why, size_t why_len);
void sbx_cgroup_destroy(struct sbx_cgroup *cg);
/* Detects the cgroup mode usable here, with a reason. */
enum sbx_cgroup_mode sbx_cgroup_detect(char *detail, size_t detail_len);

#endif
