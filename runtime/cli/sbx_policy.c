/* sbx_policy: see sbx_policy.h. */
#include "sbx_policy.h"

#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "pol.h"
#include "profile_build.h"
#include "sbx_exposed.h"
#include "sbx_profile.h"
#include "sbx_run.h"
#include "sbx_run_common.h"
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

/* --policy: the user's profiles replace the linked ones for this run or
 * explanation, after the file and its includes passed the trust checks
 * and compiled; refused (exit 125) before anything else happens. */
int sbx_policy_apply(struct sbx_tables *t, const struct sbx_opts *o, struct sbx_user_policy *up,
                     FILE *err)
{
  char ws[PATH_MAX];
  if (sbx_run_workspace(o->workspace, ws, sizeof ws, err) != 0)
    return SBX_EXIT_FAILURE;
  if (sbx_policy_load(up, o->policy, ws, err) != 0)
    return SBX_EXIT_FAILURE;
  t->profiles = sbx_policy_table(up, &t->n_profiles);
  t->policy_file = up->path;
  /* Its routes replace the linked ones with its profiles: the linked
   * routes name the linked profiles. */
  t->routes = sbx_policy_routes(up, &t->n_routes);
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
  if (found && sbx_policy_check_exposed(up, p, ws, home, has_extra ? extra : NULL, err) != 0)
    return SBX_EXIT_FAILURE;
  return 0;
}
