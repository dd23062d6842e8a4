/* sbx_model: `--model FILE.pnet`, admission through a user's own
 * scheduler model (docs/sbx.md, "Your own policies and models").
 *
 * The file passes sbx_trust (layer "model") and is compiled in memory by
 * gen/model with every check pnetc makes. Its shared admission state is
 * its own: the state file is named
 *   user-<uid>-<model name>-<digest of the compiled table>.state
 * so two different models never share a state file (the digest), and one
 * user's model never shares another user's (the uid), even when both
 * name the same state directory.
 *
 * Returns: 0, or a negative errno after a message on err: sbx exits 125. */
#ifndef CS_RUNTIME_SBX_MODEL_H
#define CS_RUNTIME_SBX_MODEL_H

#include <limits.h>
#include <stdio.h>

#include "cs_model_table.h"

struct model_build;

struct sbx_user_model {
  struct model_build *build;
  char path[PATH_MAX];  /* resolved: the audit record names it */
  char state_name[256]; /* the shared state's file name, without .state */
};

int sbx_model_load(struct sbx_user_model *um, const char *file, const char *workspace, FILE *err);
const struct cs_model_table *sbx_model_table(const struct sbx_user_model *um);
void sbx_model_free(struct sbx_user_model *um);

#endif
