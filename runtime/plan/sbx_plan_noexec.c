/* sbx_plan_noexec: which mounts of the view are noexec (called by
 * sbx_plan.c once the mounts are in order). */
#include <stdbool.h>
#include <string.h>

#include "sbx_landlock_rights.h"
#include "sbx_plan.h"
#include "sbx_plan_parts.h"

/* noexec (issue 12). Landlock's EXECUTE right is checked at execve only:
 * the ELF loader (`/lib64/ld-linux-x86-64.so.2 WS/x`), dlopen, LD_PRELOAD
 * and a plain mmap(PROT_EXEC) map a file as code without an execve, so a
 * copy of a shell in the workspace ran under strict. A noexec mount makes
 * the kernel refuse both (execve, and PROT_EXEC mappings of its files, in
 * do_mmap/mprotect via path_noexec), whoever asks. So every mount on which
 * no Landlock EXECUTE rule reaches a file is noexec: the two layers then
 * say the same thing, derived from the same profile rules, and a place the
 * profile does not let the command execute from cannot hold code either.
 * A rule reaches the files of mount M when M lies under the rule's path,
 * or when the rule's path lies in M and on no mount nested inside M (the
 * innermost bind holding it is M). The private /tmp (with HOME) and
 * /dev/shm are decided the same way; the view's tmpfs root holds no file
 * but mount points and the masks' empty file, so it is always noexec
 * (sbx_mount.c). `keep_exec`: SBX_RUN_TEST_EXEC_MOUNTS, the negative
 * control of the tests. */
static bool sbx_is_bind(const struct sbx_mount_entry *e)
{
  return e->kind == SBX_MNT_BIND_RO || e->kind == SBX_MNT_BIND_RW;
}

static void sbx_plan_noexec_rule(struct sbx_plan *p, const char *rule)
{
  struct sbx_mount_entry *home = NULL;
  for (size_t i = 0; i < p->n_mounts; i++) {
    struct sbx_mount_entry *e = &p->mounts[i];
    if (!sbx_is_bind(e))
      continue;
    if (sbx_path_under(e->path, rule))
      e->noexec = false; /* the whole mount is under the rule */
    if (sbx_path_under(rule, e->path) && (!home || strlen(e->path) > strlen(home->path)))
      home = e; /* the rule's path is on this bind, or on one nested in it */
  }
  if (home) {
    home->noexec = false; /* the rule's files live on that bind */
    return;
  }
  if (sbx_path_under("/tmp", rule) || sbx_path_under(rule, "/tmp"))
    p->tmp_noexec = false;
  if (sbx_path_under("/dev/shm", rule) || sbx_path_under(rule, "/dev/shm"))
    p->shm_noexec = false;
  if (p->full_root && !sbx_path_under(rule, "/tmp") && !sbx_path_under(rule, "/dev") &&
      !sbx_path_under(rule, "/proc"))
    p->root_noexec = false; /* on the host's root itself */
}

void sbx_plan_noexec(struct sbx_plan *p, bool keep_exec)
{
  const char *dir = NULL;
  size_t dir_len = 0;
  for (size_t i = 0; i < p->n_mounts; i++)
    p->mounts[i].noexec = sbx_is_bind(&p->mounts[i]) && !keep_exec;
  p->tmp_noexec = p->shm_noexec = !keep_exec;
  p->root_noexec = p->full_root && !keep_exec;
  if (keep_exec)
    return;
  for (size_t i = 0; i < p->n_rules; i++) {
    const struct sbx_ll_rule *r = &p->rules[i];
    const char *slash = strrchr(r->path, '/');
    if (!(r->access & SBX_LL_FS_EXECUTE))
      continue;
    /* The ~1,000 per-file grants of the bin directories come directory by
     * directory, and the files of one directory live on one mount (no
     * bind is planned on a file there): decide once per directory. */
    if (r->is_file && dir && (size_t)(slash - r->path) == dir_len &&
        strncmp(r->path, dir, dir_len) == 0)
      continue;
    dir = r->is_file ? r->path : NULL;
    dir_len = (size_t)(slash - r->path);
    sbx_plan_noexec_rule(p, r->path);
  }
}
