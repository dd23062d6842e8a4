/* sbx_policy: see sbx_policy.h. */
#include "sbx_policy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "pol.h"
#include "profile_build.h"
#include "sbx_exposed.h"
#include "sbx_trust.h"

/* The front end's largest file (POL_MAX_FILE_BYTES, docs/pol-language.md). */
#define SBX_POLICY_MAX_BYTES (1u << 20)

struct sbx_policy_reader {
  struct sbx_trust trust;
  FILE *err;
};

/* pol_load_with's reader: every file, the main one, each include and the
 * library's own, is checked and read from the descriptor that was checked. */
static struct diag_source *sbx_policy_read(void *ctx, const char *path, const struct diag_loc *from)
{
  struct sbx_policy_reader *r = ctx;
  char real[PATH_MAX], *data = NULL;
  size_t len = 0;
  if (sbx_trust_read(&r->trust, path, SBX_POLICY_MAX_BYTES, &data, &len, real, sizeof real,
                     r->err) != 0) {
    if (from)
      diag_error(from, "include refused: the file is not trusted (see above)");
    return NULL;
  }
  /* A NUL byte would cut the text the lexer sees short. */
  if (memchr(data, '\0', len)) {
    fprintf(r->err, "sbx: error: policy: %s: file contains a NUL byte; not a text file\n", path);
    free(data);
    return NULL;
  }
  struct diag_source *src = diag_source_from_memory(path, data, len);
  free(data);
  if (!src)
    fprintf(r->err, "sbx: error: policy: %s: out of memory\n", path);
  return src;
}

int sbx_policy_load(struct sbx_user_policy *up, const char *file, const char *workspace, FILE *err)
{
  memset(up, 0, sizeof *up);
  struct sbx_policy_reader reader = {
    .trust = { .layer = "policy", .caller = getuid(), .workspace = workspace },
    .err = err,
  };
  char *library = pol_library_default();
  struct pol_load_options lo = {
    .library_dir = library,
    .read_file = sbx_policy_read,
    .ctx = &reader,
  };
  char *real = realpath(file, NULL);
  if (real && strlen(real) < sizeof up->path)
    strcpy(up->path, real);
  free(real);
  diag_set_stream(err);
  int rc = profile_set_load(file, &lo, &up->set);
  diag_set_stream(NULL);
  free(library);
  if (rc != 0) {
    fprintf(err, "sbx: error: policy: %s refused; nothing ran\n", file);
    return rc;
  }
  return 0;
}

const struct cs_profile *sbx_policy_table(const struct sbx_user_policy *up, size_t *n)
{
  return profile_set_table(up->set, n);
}

const struct cs_route *sbx_policy_routes(const struct sbx_user_policy *up, size_t *n)
{
  return profile_set_routes(up->set, n);
}

void sbx_policy_free(struct sbx_user_policy *up)
{
  profile_set_free(up->set);
  up->set = NULL;
}

int sbx_policy_check_exposed(const struct sbx_user_policy *up, const struct cs_profile *p,
                             const char *workspace, const char *home, const char *extra, FILE *err)
{
  struct sbx_exposure e;
  for (size_t k = 0; k < profile_set_file_count(up->set); k++) {
    char *f = realpath(profile_set_file(up->set, k), NULL);
    bool inside = f && sbx_exposed(p, workspace, home, extra, f, true, &e);
    if (inside)
      fprintf(err,
              "sbx: error: policy: %s lies in %s, which profile '%s' lets the sandboxed command "
              "write (%s%s%s): it could rewrite the rules of the next run; move the policy out\n",
              f, e.dir, p->name,
              e.kind == SBX_EXPOSED_BY_RULE   ? e.rule_path
              : e.kind == SBX_EXPOSED_BY_HOME ? "its persistent home"
                                              : "--add-path",
              e.kind == SBX_EXPOSED_BY_RULE ? " " : "",
              e.kind == SBX_EXPOSED_BY_RULE ? e.rule_origin : "");
    free(f);
    if (inside)
      return -EPERM;
  }
  return 0;
}
