/* sbx_exposed: see sbx_exposed.h. */
#include "sbx_exposed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx_plan.h"

/* The sandbox gets its own /tmp, /dev, /proc and no /sys (docs/
 * confinement.md, "mount view"): a host path there is out of the
 * command's reach unless something binds it in. */
static bool sbx_exposed_private(const char *path)
{
  return sbx_path_under(path, "/tmp") || sbx_path_under(path, "/dev") ||
         sbx_path_under(path, "/proc") || sbx_path_under(path, "/sys");
}

/* The persistent home's directory of profile p (runtime/plan/
 * sbx_plan_home.c: the state directory's commander-sandbox/home/<profile>),
 * resolved; false when p keeps nothing or it does not exist. */
static bool sbx_exposed_kept_home(const struct cs_profile *p, const char *home, char *out,
                                  size_t size)
{
  const char *xdg = getenv("XDG_STATE_HOME");
  char kept[PATH_MAX], *base;
  if (!p->n_home_persistent ||
      snprintf(kept, sizeof kept, "%s%s",
               xdg && xdg[0] == '/' ? xdg
               : home               ? home
                                    : "",
               xdg && xdg[0] == '/' ? "" : "/.local/state") >= (int)sizeof kept ||
      !(base = realpath(kept, NULL)))
    return false;
  snprintf(out, size, "%s/commander-sandbox/home/%s", base, p->name);
  free(base);
  return true;
}

bool sbx_exposed(const struct cs_profile *p, const char *workspace, const char *home,
                 const char *extra, const char *real, bool whole_host, struct sbx_exposure *e)
{
  char rule[PATH_MAX], *dir;
  bool exposed = false;

  if (!p->allow_file_write)
    return false;
  if (sbx_exposed_kept_home(p, home, e->dir, sizeof e->dir) && sbx_path_under(real, e->dir)) {
    e->kind = SBX_EXPOSED_BY_HOME;
    return true;
  }
  if (extra && (dir = realpath(extra, NULL))) {
    exposed = sbx_path_under(real, dir);
    snprintf(e->dir, sizeof e->dir, "%s", dir);
    free(dir);
    if (exposed) {
      e->kind = SBX_EXPOSED_BY_EXTRA;
      return true;
    }
  }
  for (uint32_t i = 0; i < p->n_allowed_paths && !exposed; i++) {
    const struct cs_path_rule *pr = &p->allowed_paths[i];
    int k;
    if (!(pr->access & CS_PATH_WRITE))
      continue;
    if (strncmp(pr->path, "${WORKSPACE}", 12) == 0)
      k = snprintf(rule, sizeof(rule), "%s%s", workspace, pr->path + 12);
    else if (pr->path[0] == '~' && home)
      k = snprintf(rule, sizeof(rule), "%s%s", home, pr->path + 1);
    else
      k = snprintf(rule, sizeof(rule), "%s", pr->path);
    if (k < 0 || (size_t)k >= sizeof(rule))
      continue;
    dir = realpath(rule, NULL);
    if (!dir)
      continue; /* absent: the sandbox shows nothing there */
    if (sbx_path_under(dir, workspace))
      exposed = sbx_path_under(real, dir);
    else if (strcmp(dir, "/") == 0)
      exposed = sbx_path_under(real, workspace) || (whole_host && !sbx_exposed_private(real));
    else
      /* A rule below /tmp (not /tmp itself) is bound from the host into
       * the private /tmp (sbx_plan_view): what lies there is the host's
       * and writable, so it counts like any other rule. Only /tmp itself
       * and /dev, /proc, /sys are the sandbox's own. */
      exposed = (strcmp(dir, "/tmp") != 0 &&
                 (sbx_path_under(dir, "/tmp") || !sbx_exposed_private(dir))) &&
                sbx_path_under(real, dir);
    if (exposed) {
      e->kind = SBX_EXPOSED_BY_RULE;
      snprintf(e->dir, sizeof e->dir, "%s",
               strcmp(dir, "/") == 0 && sbx_path_under(real, workspace) ? workspace : dir);
      e->rule_path = pr->path;
      e->rule_origin = pr->origin ? pr->origin : pr->path;
    }
    free(dir);
  }
  return exposed;
}
