/* sbx_run: `sbx run`, `sbx check` and `sbx explain` over the linked tables.
 * Each returns the process exit status (docs/sbx.1). */
#ifndef CS_RUNTIME_SBX_RUN_H
#define CS_RUNTIME_SBX_RUN_H

#include <stddef.h>

#include "cs_model_table.h"
#include "cs_profile_table.h"
#include "sbx_cli.h"

/* The tables sbx is linked with: the profiles compiled from
 * models/profiles.pol and the scheduler compiled from models/default.pnet. */
struct sbx_tables {
  const struct cs_profile *profiles;
  size_t n_profiles;
  const struct cs_model_table *model;
  /* The linked policy's routes (cs_routes); NULL with 0: every run takes
   * the default route. */
  const struct cs_route *routes;
  size_t n_routes;
  /* Set when the profiles or the model come from a user's file (--policy,
   * --model, resolved paths): explain and the audit record name it. */
  const char *policy_file;
  const char *model_file;
  const char *model_state_name; /* --model: its shared state's name; NULL: the model's */
  /* Set when --policy or --model was refused: sbx_run records this as
   * the error and runs nothing (exit 125). */
  const char *refused;
};

struct sbx_audit_record;
struct cs_approval_request;
struct cs_approval_decision;

/* What one run came to, as its audit record says it (the record exactly
 * as appended, valid only during the call it is handed to) and sbx's exit
 * status. */
struct sbx_run_outcome {
  const struct sbx_audit_record *rec;
  int code;
};

/* Who watches a run besides the audit log (sbx exec, docs/exec-api.md):
 * each approval decision as it is made (any thread), and the outcome once
 * the record is appended. Any member may be NULL. */
struct sbx_run_observer {
  void (*approval)(void *ctx, const struct cs_approval_request *req,
                   const struct cs_approval_decision *d);
  void (*finished)(void *ctx, const struct sbx_run_outcome *out);
  void *ctx;
};

/* The one run of `sbx run` and `sbx exec`: every check, admission,
 * approvals, confinement and the audit record, in that order; returns
 * sbx's exit status. obs may be NULL (sbx run). A run that fails before
 * its audit log is open makes no record and tells obs nothing. */
int sbx_run_observed(const struct sbx_tables *t, const struct sbx_opts *o,
                     const struct sbx_run_observer *obs);
int sbx_run(const struct sbx_tables *t, const struct sbx_opts *o);
/* `sbx exec`: one JSON request on stdin, one JSON result on stdout
 * (sbx_exec_cmd.c, docs/exec-api.md). */
int sbx_exec_cmd(const struct sbx_tables *t, const struct sbx_opts *o);
/* `sbx exec-server`: JSON-RPC 2.0 on stdio, one `sbx exec --live` child
 * per process (sbx_exec_server.c, docs/exec-protocol.md). */
int sbx_exec_server_cmd(const struct sbx_opts *o);
int sbx_check(const struct sbx_tables *t, const struct sbx_opts *o);
int sbx_explain_cmd(const struct sbx_tables *t, const struct sbx_opts *o);
/* `sbx serve` on this user's socket (docs/sbx.md, "Warm start"). */
int sbx_serve_cmd(const struct sbx_tables *t, const struct sbx_opts *o);

#endif
