/* sbx_cgroup: a run's cgroup limits, supervisor side (sbx_cgroup.c). */
#ifndef CS_RUNTIME_SBX_CGROUP_H
#define CS_RUNTIME_SBX_CGROUP_H

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
void sbx_cgroup_destroy(struct sbx_cgroup *cg);
/* Detects the cgroup mode usable here, with a reason. */
enum sbx_cgroup_mode sbx_cgroup_detect(char *detail, size_t detail_len);

#endif
