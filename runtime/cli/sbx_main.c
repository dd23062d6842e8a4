/* sbx: run untrusted commands confined by a security profile, admitted by
 * the compiled scheduler, with an audit record (docs/sbx.1, docs/sbx.md). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <unistd.h>

#include "cs_version.h"
#include "sbx_approve.h"
#include "sbx_cli.h"
#include "sbx_model.h"
#include "sbx_policy.h"
#include "sbx_profile.h"
#include "sbx_confine.h"
#include "sbx_route.h"
#include "sbx_eval.h"
#include "sbx_run.h"
#include "sbx_run_common.h"
#include "sbx_tables.h"

static int sbx_main_dispatch(const struct sbx_tables *tp, const struct sbx_opts *op)
{
  const struct sbx_tables t = *tp;
  struct sbx_opts o = *op;
  switch (o.cmd) {
  case SBX_CMD_HELP:
    sbx_cli_usage(stdout);
    return fflush(stdout) == 0 ? 0 : SBX_EXIT_FAILURE;
  case SBX_CMD_VERSION:
    printf("sbx (Commander Sandbox) %s\n", CS_VERSION);
    return fflush(stdout) == 0 ? 0 : SBX_EXIT_FAILURE;
  case SBX_CMD_CHECK:
    return sbx_check(&t, &o);
  case SBX_CMD_EXPLAIN:
    return sbx_explain_cmd(&t, &o);
  case SBX_CMD_RUN:
    return sbx_run(&t, &o);
  case SBX_CMD_SERVE:
    return sbx_serve_cmd(&t, &o);
  case SBX_CMD_EXEC:
    return sbx_exec_cmd(&t, &o);
  case SBX_CMD_EXEC_SERVER:
    return sbx_exec_server_cmd(&o);
  case SBX_CMD_APPROVALS:
    return sbx_approvals_cmd(o.sub_argc, o.sub_argv, stdout, stderr);
  case SBX_CMD_EVAL:
    return sbx_eval_cmd(&t, o.sub_argc, o.sub_argv);
  }
  return SBX_EXIT_FAILURE;
}

int main(int argc, char *argv[])
{
  struct sbx_user_policy policy = { 0 };
  struct sbx_user_model model = { 0 };
  struct sbx_opts o;
  struct sbx_tables t = {
    .profiles = SBX_PROFILES,
    .n_profiles = SBX_N_PROFILES,
    .model = &SBX_MODEL,
    .routes = SBX_ROUTES,
    .n_routes = SBX_N_ROUTES,
  };

  if (sbx_std_fds() != 0)
    return SBX_EXIT_FAILURE;
  if (sbx_cli_parse(argc, argv, &o, stderr) != 0)
    return SBX_EXIT_FAILURE;
  if (o.policy && (o.cmd == SBX_CMD_RUN || o.cmd == SBX_CMD_EXPLAIN)) {
    if (sbx_policy_apply(&t, &o, &policy, stderr) != 0) {
      sbx_policy_free(&policy);
      if (o.cmd != SBX_CMD_RUN)
        return SBX_EXIT_FAILURE;
      /* The run is still recorded, with why: an agent handing sbx
       * untrusted rules is worth an auditor's eye. */
      t.profiles = NULL;
      t.n_profiles = 0;
      t.policy_file = o.policy;
      t.refused = "policy refused (--policy)";
    }
  }
  if (o.model && (o.cmd == SBX_CMD_RUN || o.cmd == SBX_CMD_EXEC) && !t.refused) {
    char ws[PATH_MAX];
    if (sbx_run_workspace(o.workspace, ws, sizeof ws, stderr) != 0 ||
        sbx_model_load(&model, o.model, ws, stderr) != 0) {
      sbx_model_free(&model);
      t.model_file = o.model;
      t.refused = "model refused (--model)";
    } else {
      t.model = sbx_model_table(&model);
      t.model_file = model.path;
      t.model_state_name = model.state_name;
    }
  }
  /* A user's routes were compiled without the model this run admits
   * through: a tier or lane it lacks is refused before anything runs. */
  if (o.policy && !t.refused && t.n_routes &&
      sbx_route_check_model(t.routes, t.n_routes, t.model, stderr) != 0) {
    if (o.cmd != SBX_CMD_RUN) {
      sbx_policy_free(&policy);
      sbx_model_free(&model);
      return SBX_EXIT_FAILURE;
    }
    t.refused = "policy refused (--policy): a route names a tier or lane the model lacks";
  }
  int code = sbx_main_dispatch(&t, &o);
  sbx_policy_free(&policy);
  sbx_model_free(&model);
  return code;
}
