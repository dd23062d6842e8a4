/* sbx: run untrusted commands confined by a security profile, admitted by
 * the compiled scheduler, with an audit record (docs/sbx.1, docs/sbx.md). */
#include <stdio.h>
#include <stdlib.h>

#include "sbx_cli.h"
#include "sbx_confine.h"
#include "sbx_run.h"
#include "sbx_tables.h"

int main(int argc, char *argv[])
{
  struct sbx_opts o;
  struct sbx_tables t = {
    .profiles = SBX_PROFILES,
    .n_profiles = SBX_N_PROFILES,
    .model = &SBX_MODEL,
  };

  if (sbx_cli_parse(argc, argv, &o, stderr) != 0)
    return SBX_EXIT_FAILURE;
  switch (o.cmd) {
  case SBX_CMD_HELP:
    sbx_cli_usage(stdout);
    return fflush(stdout) == 0 ? 0 : SBX_EXIT_FAILURE;
  case SBX_CMD_VERSION:
    printf("sbx (Commander Sandbox) %s\n", SBX_VERSION);
    return fflush(stdout) == 0 ? 0 : SBX_EXIT_FAILURE;
  case SBX_CMD_CHECK:
    return sbx_check(&t);
  case SBX_CMD_EXPLAIN:
    return sbx_explain_cmd(&t, &o);
  case SBX_CMD_RUN:
    return sbx_run(&t, &o);
  }
  return SBX_EXIT_FAILURE;
}
