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

int sbx_run(const struct sbx_tables *t, const struct sbx_opts *o);
int sbx_check(const struct sbx_tables *t, const struct sbx_opts *o);
int sbx_explain_cmd(const struct sbx_tables *t, const struct sbx_opts *o);
/* `sbx serve` on this user's socket (docs/sbx.md, "Warm start"). */
int sbx_serve_cmd(const struct sbx_tables *t, const struct sbx_opts *o);

#endif
