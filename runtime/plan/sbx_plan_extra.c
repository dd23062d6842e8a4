/* sbx_plan_extra: the one extra host path of a run (sbx run --add-path
 * DIR[:ro|:rw], docs/sbx.md "Per-run settings"), shown at its own place
 * and granted read, or read and write, by Landlock, where the profile's
 * allowExtraPath permits that much.
 *
 * Refused (layer request, naming the rule): a profile that permits none
 * or less; a path that does not exist; "/" or a system tree the view
 * builds itself (/usr, /etc, /proc, /dev, /sys, /tmp itself: making one
 * writable, or showing all of /etc, would undo the view); one inside the
 * workspace (already shown, and a writable carve-out would bypass git's
 * protection); one that a denied path covers (a denied path always wins).
 * A denied path inside it is masked like anywhere else in the view
 * (sbx_plan_denied runs after this). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sbx_fail.h"
#include "sbx_landlock_rights.h"
#include "sbx_plan_parts.h"

static int sbx_extra_refuse(struct sbx_fail *f, int rc, const char *path, const char *why)
{
  sbx_fail_set(f, SBX_LAYER_REQUEST, -rc, "--add-path %s: %s", path, why);
  return rc;
}

int sbx_plan_extra(struct sbx_plan *p, const struct sbx_run_request *req, const char *ws,
                   char *const *dreal, struct sbx_fail *f)
{
  const struct cs_profile *prof = p->profile;
  char real[PATH_MAX], why[PATH_MAX + 128];
  struct stat st;
  int rc;
  if (!req->extra_path)
    return 0;
  uint32_t want = req->extra_access;
  if (want != CS_PATH_READ && want != (CS_PATH_READ | CS_PATH_WRITE))
    return sbx_extra_refuse(f, -EINVAL, req->extra_path, "access must be read or read-write");
  if ((want & ~prof->extra_path_access) != 0) {
    snprintf(why, sizeof why, "profile %s allows %s (allowExtraPath)", prof->name,
             prof->extra_path_access == 0              ? "no extra path"
             : prof->extra_path_access == CS_PATH_READ ? "an extra path read-only only"
                                                       : "?");
    return sbx_extra_refuse(f, -EPERM, req->extra_path, why);
  }
  sbx_probe(p, req->extra_path, SBX_PROBE_RESOLVE);
  if (!realpath(req->extra_path, real) || stat(real, &st) < 0) {
    rc = -errno;
    snprintf(why, sizeof why, "%s (the path must exist)", strerror(-rc));
    return sbx_extra_refuse(f, rc, req->extra_path, why);
  }
  if (strcmp(real, "/") == 0 || strcmp(real, "/tmp") == 0 ||
      (sbx_is_system_path(real) && !sbx_path_under(real, "/tmp"))) {
    snprintf(why, sizeof why, "resolves to %s, a system directory the view builds itself", real);
    return sbx_extra_refuse(f, -EINVAL, req->extra_path, why);
  }
  if (sbx_path_under(real, ws)) {
    snprintf(why, sizeof why, "resolves to %s, inside the workspace (already shown)", real);
    return sbx_extra_refuse(f, -EINVAL, req->extra_path, why);
  }
  for (uint32_t i = 0; i < prof->n_denied_paths; i++)
    if (dreal[i] && sbx_path_under(real, dreal[i])) {
      snprintf(why, sizeof why, "resolves to %s, inside denied path %s (%s)", real,
               prof->denied_paths[i].path,
               prof->denied_paths[i].origin ? prof->denied_paths[i].origin : "?");
      return sbx_extra_refuse(f, -EACCES, req->extra_path, why);
    }
  bool rw = (want & CS_PATH_WRITE) != 0;
  uint64_t rights = sbx_rule_rights(prof, want);
  if (!S_ISDIR(st.st_mode))
    rights &= SBX_LL_FS_FILE_RIGHTS;
  sbx_probe(p, real, SBX_PROBE_STAT);
  /* Already bound at that very path (an allowed path of the profile): one
   * mount there, made writable if asked, so the mount order (which of two
   * binds at one path is on top) decides nothing. */
  bool bound = false;
  for (size_t i = 0; i < p->n_mounts; i++) {
    struct sbx_mount_entry *e = &p->mounts[i];
    if (!e->source && (e->kind == SBX_MNT_BIND_RO || e->kind == SBX_MNT_BIND_RW) &&
        strcmp(e->path, real) == 0) {
      if (rw)
        e->kind = SBX_MNT_BIND_RW;
      bound = true;
    }
  }
  if ((!bound && (rc = sbx_plan_host_entry(p, real, rw, "extra path (--add-path)")) < 0) ||
      (rc = sbx_plan_rule(p, real, rights, false)) < 0 || !(p->extra_path = strdup(real))) {
    rc = rc < 0 ? rc : -ENOMEM;
    sbx_fail_set(f, SBX_LAYER_MOUNT, -rc, "--add-path %s: %s", real, strerror(-rc));
    return rc;
  }
  p->extra_rw = rw;
  return 0;
}
