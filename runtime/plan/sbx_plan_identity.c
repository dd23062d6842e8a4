/* sbx_plan_identity: the host identity the command runs as when sbx is
 * root (docs/confinement.md, "Identity").
 *
 * uid 0 without capabilities still owns what it creates: a file the
 * command made setuid (chmod 4755, open(O_CREAT, 04755)) would be a
 * setuid-root program that any local user runs as root once the run is
 * over, and everything it writes would be root's to clean up. So the
 * command never keeps the host's uid 0: it becomes the owner of the
 * workspace, whose files it works on and who should own what it leaves
 * there. A workspace owned by root gives no such owner; the command then
 * runs as nobody (65534:65534), which owns nothing on the host. The choice
 * depends on the workspace alone, so a warm template (planned by the
 * server, whose environment is not the caller's) chooses as the cold run
 * does. Without root, the user-namespace path maps the caller's own ids
 * (sbx_confine.c): the command is already that unprivileged user. */
#include <errno.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sbx_fail.h"
#include "sbx_plan_parts.h"

int sbx_plan_identity(struct sbx_plan *p, bool keep_root, struct sbx_fail *f)
{
  struct stat st;
  p->run_as = false;
  p->idmap_ws = false;
  p->run_uid = p->uid;
  p->run_gid = p->gid;
  if (stat(p->workspace, &st) < 0) {
    sbx_fail_set(f, SBX_LAYER_REQUEST, errno, "workspace %s: %s", p->workspace, strerror(errno));
    return -errno;
  }
  p->ws_uid = st.st_uid;
  p->ws_gid = st.st_gid;
  /* Tests only (SBX_RUN_TEST_HOST_ROOT): the negative control of this
   * layer, the command as root as before the fix. */
  if (p->uid != 0 || keep_root)
    return 0;
  p->run_as = true;
  if (st.st_uid == 0) {
    p->run_uid = SBX_NOBODY;
    p->run_gid = SBX_NOBODY;
    p->idmap_ws = true;
    return 0;
  }
  p->run_uid = st.st_uid;
  p->run_gid = st.st_gid;
  /* A workspace in root's group would give the command gid 0, and with
   * it every file the root group may write: the owner's own primary
   * group instead, or nogroup. */
  if (p->run_gid == 0) {
    struct passwd *pw = getpwuid(st.st_uid);
    p->run_gid = pw && pw->pw_gid != 0 ? pw->pw_gid : SBX_NOBODY;
  }
  return 0;
}
