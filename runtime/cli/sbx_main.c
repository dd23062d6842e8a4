/* sbx: run untrusted commands confined by a security profile, admitted by
 * the compiled scheduler, with an audit record (docs/sbx.1, docs/sbx.md). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <pwd.h>
#include <unistd.h>

#include "cs_version.h"
#include "sbx_approve.h"
#include "sbx_cli.h"
#include "sbx_model.h"
#include "sbx_policy.h"
#include "sbx_profile.h"
#include "sbx_confine.h"
#include "sbx_eval.h"
#include "sbx_run.h"
#include "sbx_run_common.h"
#include "sbx_tables.h"

/* --policy: the user's profiles replace the linked ones for this run or
 * explanation, after the file and its includes passed the trust checks
 * and compiled; refused (exit 125) before anything else happens. */
static int sbx_main_user_policy(struct sbx_tables *t, const struct sbx_opts *o,
                                struct sbx_user_policy *up)
{
  char ws[PATH_MAX];
  if (sbx_run_workspace(o->workspace, ws, sizeof ws, stderr) != 0)
    return SBX_EXIT_FAILURE;
  if (sbx_policy_load(up, o->policy, ws, stderr) != 0)
    return SBX_EXIT_FAILURE;
  t->profiles = sbx_policy_table(up, &t->n_profiles);
  t->policy_file = up->path;
  /* The profile this run gets, chosen as sbx_run will choose it: none of
   * the policy's files may lie where it lets the command write. An
   * unknown name is left to sbx_run, which reports and records it. */
  const struct cs_profile *p = NULL;
  enum sbx_profile_source src;
  FILE *quiet = fopen("/dev/null", "we");
  int found = quiet && sbx_profile_select(t->profiles, t->n_profiles, o->profile,
                                          getenv(SBX_PROFILE_ENV), &p, &src, quiet) == 0;
  if (quiet)
    fclose(quiet);
  const char *home = getenv("HOME");
  if (!home || home[0] != '/') {
    struct passwd *pw = getpwuid(getuid());
    home = pw ? pw->pw_dir : NULL;
  }
  /* A writable --add-path is one more place the command writes. */
  char extra[PATH_MAX];
  bool has_extra = o->add_path && o->add_rw && o->add_path_len < sizeof extra;
  if (has_extra)
    snprintf(extra, sizeof extra, "%.*s", (int)o->add_path_len, o->add_path);
  if (found && sbx_policy_check_exposed(up, p, ws, home, has_extra ? extra : NULL, stderr) != 0)
    return SBX_EXIT_FAILURE;
  return 0;
}

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
  };

  if (sbx_std_fds() != 0)
    return SBX_EXIT_FAILURE;
  if (sbx_cli_parse(argc, argv, &o, stderr) != 0)
    return SBX_EXIT_FAILURE;
  if (o.policy && (o.cmd == SBX_CMD_RUN || o.cmd == SBX_CMD_EXPLAIN)) {
    if (sbx_main_user_policy(&t, &o, &policy) != 0) {
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
  if (o.model && o.cmd == SBX_CMD_RUN && !t.refused) {
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
  int code = sbx_main_dispatch(&t, &o);
  sbx_policy_free(&policy);
  sbx_model_free(&model);
  return code;
}
