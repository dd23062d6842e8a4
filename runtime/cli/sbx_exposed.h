/* sbx_exposed: whether a host path lies where a run's command may write
 * (grep tag: SBX_EXPOSED), the one answer behind every refusal to keep
 * something of sbx's, or to read a user's rules, in the command's reach:
 * the audit log, the approval store, the state directory (sbx_run.c) and
 * the files of a --policy (sbx_policy.c). The cases follow the mount
 * view the plan builds (runtime/plan/sbx_plan.c). */
#ifndef CS_RUNTIME_SBX_EXPOSED_H
#define CS_RUNTIME_SBX_EXPOSED_H

#include <limits.h>
#include <stdbool.h>

#include "cs_profile_table.h"

enum sbx_exposure_kind {
  SBX_EXPOSED_BY_HOME,  /* the profile's persistent home (homePersistent) */
  SBX_EXPOSED_BY_EXTRA, /* a writable `sbx run --add-path` */
  SBX_EXPOSED_BY_RULE,  /* a path rule with write access */
};

struct sbx_exposure {
  enum sbx_exposure_kind kind;
  char dir[PATH_MAX];      /* the host directory the command writes */
  const char *rule_path;   /* BY_RULE: the rule as written ("${WORKSPACE}") */
  const char *rule_origin; /* BY_RULE: its origin, or its path when none */
};

/* True, with *e saying where, when the host path `real` (resolved: no
 * symlink left in it) is one that profile p's command may write, given
 * the resolved workspace, `home` (the caller's home for ~ rules and the
 * persistent home; may be NULL) and `extra` (a writable --add-path, or
 * NULL). whole_host false: a rule for "/" itself (permissive: the whole
 * host writable by design) does not count. */
bool sbx_exposed(const struct cs_profile *p, const char *workspace, const char *home,
                 const char *extra, const char *real, bool whole_host, struct sbx_exposure *e);

#endif
