/* sbx_approve: the approval workflow inside `sbx run` and the
 * `sbx approvals` command (docs/approvals.md). Glue between the CLI, the
 * audit log, cs_approval (command rules, approvers, scopes) and the
 * system-call layer (sbx_unotify).
 *
 * Errors: negative errno; -EPERM when the command was denied. */
#ifndef CS_RUNTIME_SBX_APPROVE_H
#define CS_RUNTIME_SBX_APPROVE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cs_approval.h"
#include "cs_profile_table.h"
#include "sbx_freeze.h"
#include "sbx_unotify.h"

struct sbx_audit;

struct sbx_approve_opts {
  const char *approver; /* --approver: "tty" (default), "exec:PROG", "socket:PATH", "none" */
  unsigned timeout_ms;  /* --approval-timeout; 0: 60 s */
  const char *store;    /* --approval-store; NULL: SBX_APPROVAL_STORE, else the default */
};

#define SBX_APPROVAL_STORE_ENV "SBX_APPROVAL_STORE"

struct sbx_approve {
  struct cs_approval_mgr *mgr;
  const struct cs_profile *profile;
  struct sbx_audit *audit;
  char *const *argv;
  struct sbx_unotify_cfg unotify;
  bool git_config_granted; /* the command-level git-config rule was approved */
  char message[512];       /* why the command was denied */
  char rule[160];          /* the rule that denied it */
  char store[4096];
  bool store_explicit; /* --approval-store or SBX_APPROVAL_STORE named it */
  /* --approver tty: the run is frozen while a person is asked. */
  struct sbx_freeze freeze;
  bool freeze_used;
  /* The command's working directory (sbx run --cwd, or the default),
   * from which a delete command's relative arguments are resolved for the
   * approver; NULL: the workspace. */
  const char *cwd;
  /* Told every decision as it is recorded (sbx exec's result lists them,
   * docs/exec-api.md); may be called from the supervisor's or the proxy's
   * thread. NULL: nobody. Set after sbx_approve_begin. */
  void (*observe)(void *ctx, const struct cs_approval_request *req,
                  const struct cs_approval_decision *d);
  void *observe_ctx;
};

/* Sets up the manager for one run (nothing is asked yet). */
int sbx_approve_begin(struct sbx_approve *a, const struct sbx_approve_opts *o,
                      const struct cs_profile *p, char *const *argv, struct sbx_audit *audit,
                      FILE *err);
void sbx_approve_end(struct sbx_approve *a);

/* The command layer: 0 to run, -EPERM with a->message and a->rule set
 * (also printed on err) when a rule denies or the approver does not allow. */
int sbx_approve_command(struct sbx_approve *a, FILE *err);

/* The system-call layer's configuration for sbx_confine_run, or NULL when
 * the profile approves nothing the system-call layer handles. */
const struct sbx_unotify_cfg *sbx_approve_unotify(struct sbx_approve *a);

/* `sbx approvals list|revoke ID|clear [--approval-store FILE]`. */
int sbx_approvals_cmd(int argc, char *const argv[], FILE *out, FILE *err);

#endif
