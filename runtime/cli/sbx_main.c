/* sbx: run untrusted commands confined by a security profile, admitted by
 * the compiled scheduler, with an audit record (docs/sbx.1, docs/sbx.md). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cs_version.h"
#include "sbx_approve.h"
#include "sbx_cli.h"
#include "sbx_confine.h"
#include "sbx_run.h"
#include "sbx_run_common.h"
#include "sbx_tables.h"

int main(int argc, char *argv[])
{
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
  }
  return SBX_EXIT_FAILURE;
}
