/* sbx_model: see sbx_model.h. */
#include "sbx_model.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "model_build.h"
#include "sbx_trust.h"

/* The .pnet front end's largest file (docs/pnet-language.md, limits). */
#define SBX_MODEL_MAX_BYTES (1u << 20)

int sbx_model_load(struct sbx_user_model *um, const char *file, const char *workspace, FILE *err)
{
  memset(um, 0, sizeof *um);
  struct sbx_trust trust = { .layer = "model", .caller = getuid(), .workspace = workspace };
  char *text = NULL;
  size_t len = 0;
  int rc = sbx_trust_read(&trust, file, SBX_MODEL_MAX_BYTES, &text, &len, um->path, sizeof um->path,
                          err);
  if (rc != 0) {
    fprintf(err, "sbx: error: model: %s refused; nothing ran\n", file);
    return rc;
  }
  diag_set_stream(err);
  rc = model_build_load(file, text, len, &um->build);
  diag_set_stream(NULL);
  free(text);
  if (rc != 0) {
    fprintf(err, "sbx: error: model: %s refused; nothing ran\n", file);
    return rc;
  }
  /* The name goes into a file name: only characters that cannot climb
   * out of the state directory or hide a file. */
  char name[64];
  const char *model = model_build_table(um->build)->model_name;
  size_t n = 0;
  for (; model[n] && n < sizeof name - 1; n++) {
    char c = model[n];
    name[n] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '-'
                  ? c
                  : '_';
  }
  name[n] = '\0';
  snprintf(um->state_name, sizeof um->state_name, "user-%u-%s-%016" PRIx64, (unsigned)getuid(),
           name, model_build_digest(um->build));
  return 0;
}

const struct cs_model_table *sbx_model_table(const struct sbx_user_model *um)
{
  return model_build_table(um->build);
}

void sbx_model_free(struct sbx_user_model *um)
{
  model_build_free(um->build);
  um->build = NULL;
}
