/* sbx_profile: profile selection and the effective time limit (see sbx_profile.h). */
#include "sbx_profile.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

const char *sbx_profile_source_name(enum sbx_profile_source src)
{
  switch (src) {
  case SBX_PROFILE_FROM_FLAG:
    return "flag";
  case SBX_PROFILE_FROM_ENV:
    return "env";
  case SBX_PROFILE_FROM_DEFAULT:
    return "default";
  }
  return "?";
}

const struct cs_profile *sbx_profile_find(const struct cs_profile *tab, size_t n, const char *name)
{
  if (!name || !*name)
    return NULL;
  for (size_t i = 0; i < n; i++) {
    if (tab[i].name && strcmp(tab[i].name, name) == 0)
      return &tab[i];
    if (tab[i].alias && strcmp(tab[i].alias, name) == 0)
      return &tab[i];
  }
  return NULL;
}

static void sbx_profile_list_known(const struct cs_profile *tab, size_t n, FILE *err)
{
  fprintf(err, "sbx: note: known profiles:");
  for (size_t i = 0; i < n; i++) {
    fprintf(err, "%s %s", i ? "," : "", tab[i].name);
    if (tab[i].alias)
      fprintf(err, " (%s)", tab[i].alias);
  }
  fprintf(err, "\n");
}

int sbx_profile_select(const struct cs_profile *tab, size_t n, const char *flag, const char *env,
                       const struct cs_profile **out, enum sbx_profile_source *src, FILE *err)
{
  const char *name;
  const char *where;

  if (flag) {
    name = flag;
    *src = SBX_PROFILE_FROM_FLAG;
    where = "--profile";
  } else if (env) {
    /* A set but empty variable is refused rather than read as "unset":
     * whoever exported it meant some profile, and we cannot know which. */
    name = env;
    *src = SBX_PROFILE_FROM_ENV;
    where = SBX_PROFILE_ENV;
  } else {
    name = SBX_DEFAULT_PROFILE;
    *src = SBX_PROFILE_FROM_DEFAULT;
    where = "the default";
  }
  *out = sbx_profile_find(tab, n, name);
  if (*out)
    return 0;
  if (!*name)
    fprintf(err, "sbx: error: profile: %s is empty; no profile is chosen for you\n", where);
  else
    fprintf(err, "sbx: error: profile: unknown profile '%s' (from %s); no fallback is used\n", name,
            where);
  sbx_profile_list_known(tab, n, err);
  return -ENOENT;
}

int sbx_profile_timeout(const struct cs_profile *p, int has_timeout, uint64_t timeout_ms,
                        uint64_t *effective_ms, FILE *err)
{
  uint64_t limit = p->limits.max_execution_ms;

  /* --timeout may only make a run shorter: the profile's maxExecutionTime
   * is a promise to whoever chose the profile, so a longer one is refused
   * (not clamped), and the caller learns at once that it asked too much. */
  if (has_timeout && limit != 0 && timeout_ms > limit) {
    fprintf(err,
            "sbx: error: --timeout %" PRIu64 ".%03" PRIu64 "s exceeds profile '%s' "
            "maxExecutionTime %" PRIu64 ".%03" PRIu64 "s (%s); --timeout can only lower it\n",
            timeout_ms / 1000, timeout_ms % 1000, p->name, limit / 1000, limit % 1000,
            p->origin ? p->origin : "profile table");
    return -ERANGE;
  }
  *effective_ms = has_timeout ? timeout_ms : limit;
  return 0;
}
