/* sbx_plan: everything the sandbox will be, computed by the supervisor
 * before it forks. Doing the path resolution here, on the host's view,
 * means pid 1 and the command only replay a list (no allocation, no policy
 * decisions after clone) and `sbx explain` could print the same list.
 *
 * This file: the view (system part, workspace, allowed and denied paths)
 * and its Landlock rules, step by step (sbx_plan_build_ex). The other
 * parts of a plan: sbx_plan_git.c (git's configuration kept read-only),
 * sbx_plan_shells.c (no shell for CS_SHELL_NONE), sbx_plan_env.c (the
 * environment), sbx_probe.c (the facts a warm template was planned from). */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sbx_fail.h"
#include "sbx_landlock_rights.h"
#include "sbx_plan.h"
#include "sbx_plan_parts.h"

/* System directories bound read-only at the same place. Each is bound
 * whole because programs expect their libraries, data and helpers there;
 * none of them holds user secrets on a Debian system. /etc is NOT here:
 * only the entries in sbx_etc_entries are shown (see below). */
static const char *const sbx_system_dirs[] = { "/usr",   "/bin",   "/sbin",   "/lib",
                                               "/lib32", "/lib64", "/libx32", NULL };

/* /etc entries programs need to start (loader cache, user and group names,
 * alternatives symlinks behind cc/python, locale and time zone, git's and
 * python's system config). /etc as a whole is not shown: it holds shadow
 * password hashes, ssh host keys and service credentials readable by uid 0,
 * and uid 0 without capabilities still passes owner permission checks. */
static const char *const sbx_etc_entries[] = { "/etc/alternatives",  "/etc/ld.so.cache",
                                               "/etc/ld.so.conf",    "/etc/ld.so.conf.d",
                                               "/etc/passwd",        "/etc/group",
                                               "/etc/nsswitch.conf", "/etc/localtime",
                                               "/etc/timezone",      "/etc/locale.alias",
                                               "/etc/gitconfig",     "/etc/python3",
                                               "/etc/python3.11",    "/etc/debian_version",
                                               "/etc/os-release",    "/etc/mime.types",
                                               "/etc/magic",         "/etc/inputrc",
                                               "/etc/profile",       "/etc/perl",
                                               "/etc/hosts",         NULL };
/* Only when the profile allows the network: name resolution and TLS roots. */
static const char *const sbx_etc_net_entries[] = { "/etc/resolv.conf",     "/etc/host.conf",
                                                   "/etc/gai.conf",        "/etc/ssl",
                                                   "/etc/ca-certificates", "/etc/services",
                                                   "/etc/protocols",       NULL };

/* The directories programs are looked up in (the sandbox's PATH). */
const char *const sbx_bin_dirs[] = { "/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin",
                                     NULL };
int sbx_expand_path(const char *in, const char *workspace, const char *home, char *out,
                    size_t out_len)
{
  int n;
  if (strncmp(in, "${WORKSPACE}", 12) == 0 && (in[12] == '\0' || in[12] == '/'))
    n = snprintf(out, out_len, "%s%s", workspace, in + 12);
  else if (in[0] == '~' && (in[1] == '\0' || in[1] == '/')) {
    if (!home || home[0] != '/')
      return -ENOENT;
    n = snprintf(out, out_len, "%s%s", home, in + 1);
  } else
    n = snprintf(out, out_len, "%s", in);
  if (n < 0 || (size_t)n >= out_len)
    return -ENAMETOOLONG;
  /* Relative paths in a profile would depend on sbx's cwd: refuse them. */
  if (out[0] != '/')
    return -EINVAL;
  return 0;
}

bool sbx_path_under(const char *path, const char *dir)
{
  size_t n = strlen(dir);
  if (strcmp(dir, "/") == 0)
    return true;
  return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

int sbx_plan_mount(struct sbx_plan *p, const char *path, enum sbx_mount_kind kind,
                   const char *target, bool is_dir, const char *why)
{
  struct sbx_mount_entry *e;
  if (p->n_mounts == p->cap_mounts) {
    size_t cap = p->cap_mounts ? p->cap_mounts * 2 : 32;
    void *m = realloc(p->mounts, cap * sizeof *p->mounts);
    if (!m)
      return -ENOMEM;
    p->mounts = m;
    p->cap_mounts = cap;
  }
  e = &p->mounts[p->n_mounts];
  memset(e, 0, sizeof *e);
  e->path = strdup(path);
  e->target = target ? strdup(target) : NULL;
  if (!e->path || (target && !e->target)) {
    free(e->path);
    free(e->target);
    return -ENOMEM;
  }
  e->kind = kind;
  e->is_dir = is_dir;
  e->why = why;
  p->n_mounts++;
  return 0;
}

int sbx_plan_rule(struct sbx_plan *p, const char *path, uint64_t access, bool optional)
{
  struct sbx_ll_rule *r;
  if (p->n_rules == p->cap_rules) {
    size_t cap = p->cap_rules ? p->cap_rules * 2 : 64;
    void *m = realloc(p->rules, cap * sizeof *p->rules);
    if (!m)
      return -ENOMEM;
    p->rules = m;
    p->cap_rules = cap;
  }
  r = &p->rules[p->n_rules];
  r->path = strdup(path);
  if (!r->path)
    return -ENOMEM;
  r->access = access;
  r->optional = optional;
  r->is_file = false;
  p->n_rules++;
  return 0;
}

/* Adds a host path to the view: symlinks are recreated (their target is
 * then resolved inside the view, so a link cannot lead out of it), other
 * entries are bound. */
int sbx_plan_host_entry(struct sbx_plan *p, const char *path, bool rw, const char *why)
{
  struct stat st;
  sbx_probe(p, path, SBX_PROBE_STAT);
  if (lstat(path, &st) < 0)
    return 0; /* absent on this machine: nothing to show */
  if (S_ISLNK(st.st_mode)) {
    char target[PATH_MAX];
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n < 0)
      return -errno;
    target[n] = '\0';
    return sbx_plan_mount(p, path, SBX_MNT_SYMLINK, target, false, why);
  }
  return sbx_plan_mount(p, path, rw ? SBX_MNT_BIND_RW : SBX_MNT_BIND_RO, NULL, S_ISDIR(st.st_mode),
                        why);
}

bool sbx_is_system_path(const char *path)
{
  static const char *const extra[] = { "/etc", "/proc", "/dev", "/tmp", "/sys", NULL };
  for (const char *const *d = sbx_system_dirs; *d; d++)
    if (sbx_path_under(path, *d))
      return true;
  for (const char *const *d = extra; *d; d++)
    if (sbx_path_under(path, *d))
      return true;
  return false;
}

/* Landlock rights for a profile rule's access bits. Deletion is separate:
 * allow_file_delete decides it, whatever the rule says. */
uint64_t sbx_rule_rights(const struct cs_profile *prof, uint32_t access)
{
  uint64_t r = 0;
  if (access & CS_PATH_READ)
    r |= SBX_LL_FS_READ;
  if ((access & CS_PATH_WRITE) && prof->allow_file_write) {
    r |= SBX_LL_FS_WRITE | SBX_LL_FS_READ;
    if (prof->allow_file_delete)
      r |= SBX_LL_FS_DELETE;
  }
  if (access & CS_PATH_EXEC)
    r |= SBX_LL_FS_EXECUTE | SBX_LL_FS_READ_FILE;
  return r;
}

/* Does the directory `path` contain (or is it) a bin directory? A Landlock
 * EXECUTE right on it would cover the shells there. */
static bool sbx_holds_bin_dir(struct sbx_plan *p, const char *path)
{
  char real[PATH_MAX];
  for (const char *const *d = sbx_bin_dirs; *d; d++)
    if ((sbx_probe(p, *d, SBX_PROBE_RESOLVE), realpath(*d, real)) && sbx_path_under(real, path))
      return true;
  return false;
}

bool sbx_is_visible(const struct sbx_plan *p, const char *path)
{
  if (p->full_root)
    return !sbx_path_under(path, "/proc") && !sbx_path_under(path, "/dev") &&
           !sbx_path_under(path, "/tmp");
  /* A bind with its own source (the home's) shows that source at another
   * place; sbx_plan_home checked it against the denied paths itself. */
  for (size_t i = 0; i < p->n_mounts; i++)
    if ((p->mounts[i].kind == SBX_MNT_BIND_RO || p->mounts[i].kind == SBX_MNT_BIND_RW) &&
        !p->mounts[i].source && sbx_path_under(path, p->mounts[i].path))
      return true;
  return false;
}

static int sbx_cmp_mount(const void *a, const void *b)
{
  const struct sbx_mount_entry *x = a, *y = b;
  /* Parents before children; masks after every bind. */
  int kx = x->kind == SBX_MNT_MASK, ky = y->kind == SBX_MNT_MASK;
  if (kx != ky)
    return kx - ky;
  return strcmp(x->path, y->path);
}

/* Resolves every denied path once (NULL where it does not resolve), for
 * sbx_denied_covering; realpath walks each component with a readlink, and
 * the check runs for the workspace and every allowed path. */
static char **sbx_denied_resolve(struct sbx_plan *p, const struct cs_profile *prof, const char *ws,
                                 const char *home)
{
  char path[PATH_MAX];
  char **dreal = calloc(prof->n_denied_paths + 1u, sizeof *dreal);
  if (!dreal)
    return NULL;
  for (uint32_t i = 0; i < prof->n_denied_paths; i++)
    if (sbx_expand_path(prof->denied_paths[i].path, ws, home, path, sizeof path) == 0) {
      sbx_probe(p, path, SBX_PROBE_RESOLVE);
      dreal[i] = realpath(path, NULL);
    }
  return dreal;
}

static void sbx_denied_free(const struct cs_profile *prof, char **dreal)
{
  for (uint32_t i = 0; dreal && i < prof->n_denied_paths; i++)
    free(dreal[i]);
  free(dreal);
}

/* The denied rule whose resolved path is `real` or one of its ancestors,
 * or NULL. Denied paths win over allowed ones and over the workspace. */
static const struct cs_path_rule *sbx_denied_covering(const struct cs_profile *prof,
                                                      char *const *dreal, const char *real)
{
  for (uint32_t i = 0; i < prof->n_denied_paths; i++)
    if (dreal[i] && sbx_path_under(real, dreal[i]))
      return &prof->denied_paths[i];
  return NULL;
}

/* One plan being built (sbx_plan_build_ex). */
struct sbx_planning {
  const struct sbx_run_request *req;
  const struct cs_profile *prof;
  const char *home;   /* what ~ expands to; NULL: nothing */
  char ws[PATH_MAX];  /* the workspace, resolved */
  uint64_t ws_rights; /* Landlock rights on the workspace */
  char **dreal;       /* the denied paths, resolved (sbx_denied_resolve) */
  struct sbx_fail *f;
};

/* A failure with no more to say than its errno, while the view is planned. */
static int sbx_plan_view_fail(struct sbx_fail *f, int rc)
{
  sbx_fail_set(f, SBX_LAYER_MOUNT, -rc, "planning the view: %s", strerror(-rc));
  return rc;
}

/* The workspace: it resolves to a directory that is no system directory
 * and lies inside no denied path. */
static int sbx_plan_workspace(struct sbx_plan *p, struct sbx_planning *c)
{
  struct stat st;
  int rc;
  errno = 0;
  sbx_probe(p, c->req->workspace, SBX_PROBE_RESOLVE);
  if (!realpath(c->req->workspace, c->ws) || stat(c->ws, &st) < 0 || !S_ISDIR(st.st_mode)) {
    rc = errno ? -errno : -ENOTDIR;
    sbx_fail_set(c->f, SBX_LAYER_REQUEST, -rc, "workspace '%s' is not a directory",
                 c->req->workspace);
    return rc;
  }
  /* A workspace that is / or inside a system tree would make the system
   * writable or replace the sandbox's own /proc, /dev. One under /tmp is
   * fine: it is bound inside the sandbox's private /tmp at the same path. */
  if (strcmp(c->ws, "/") == 0 || strcmp(c->ws, "/tmp") == 0 ||
      (sbx_is_system_path(c->ws) && !sbx_path_under(c->ws, "/tmp"))) {
    rc = -EINVAL;
    sbx_fail_set(c->f, SBX_LAYER_REQUEST, -rc, "workspace '%s' is a system directory", c->ws);
    return rc;
  }
  if (!(c->dreal = sbx_denied_resolve(p, c->prof, c->ws, c->home)))
    return sbx_plan_view_fail(c->f, -ENOMEM);
  {
    const struct cs_path_rule *d = sbx_denied_covering(c->prof, c->dreal, c->ws);
    if (d) {
      rc = -EACCES;
      sbx_fail_set(c->f, SBX_LAYER_MOUNT, -rc, "workspace '%s' is inside denied path '%s' (%s)",
                   c->ws, d->path, d->origin ? d->origin : "?");
      return rc;
    }
  }
  if (!(p->workspace = strdup(c->ws)))
    return sbx_plan_view_fail(c->f, -ENOMEM);
  return 0;
}

/* The profile's allowed paths: shown in the view, granted by Landlock. */
static int sbx_plan_allowed(struct sbx_plan *p, struct sbx_planning *c)
{
  char path[PATH_MAX], real[PATH_MAX];
  struct stat st;
  int rc;
  /* The profile's allowed paths. */
  for (uint32_t i = 0; i < c->prof->n_allowed_paths; i++) {
    const struct cs_path_rule *r = &c->prof->allowed_paths[i];
    uint64_t rights = sbx_rule_rights(c->prof, r->access);
    bool rw = (r->access & CS_PATH_WRITE) && c->prof->allow_file_write;
    rc = sbx_expand_path(r->path, c->ws, c->home, path, sizeof path);
    if (rc == -ENOENT)
      continue; /* "~" without a home: nothing to allow */
    if (rc < 0) {
      sbx_fail_set(c->f, SBX_LAYER_MOUNT, -rc, "allowed path '%s' (%s): %s", r->path,
                   r->origin ? r->origin : "?", strerror(-rc));
      return rc;
    }
    sbx_probe(p, path, SBX_PROBE_RESOLVE);
    if (!realpath(path, real))
      continue; /* absent: nothing to allow (it cannot be created outside the view) */
    sbx_probe(p, real, SBX_PROBE_STAT);
    if (sbx_denied_covering(c->prof, c->dreal, real))
      continue; /* denied wins: neither shown nor granted */
    /* No shell, yet EXECUTE on the workspace or on a writable path: a
     * binary there (a static busybox in the repository, or one written by
     * the command) could be a shell under any name. The two rules
     * contradict each other: refuse rather than pretend. */
    if (p->shell_none && (rights & SBX_LL_FS_EXECUTE) &&
        (sbx_path_under(real, c->ws) || sbx_path_under(c->ws, real) || rw)) {
      rc = -EINVAL;
      sbx_fail_set(c->f, SBX_LAYER_REQUEST, -rc,
                   "profile %s allows no shell but grants execute on '%s' (%s), which is "
                   "the workspace or writable: any binary there could be a shell",
                   c->prof->name ? c->prof->name : "?", r->path, r->origin ? r->origin : "?");
      return rc;
    }
    if (strcmp(real, "/") == 0) {
      /* Full access (permissive): the host's root is the base of the view,
       * still with sbx's own /proc, /dev, /tmp and the masks on top. */
      p->full_root = true;
      p->full_root_rw |= rw;
      p->workspace_writable |= rw;
      if ((rc = sbx_plan_rule(p, "/", rights, false)) < 0)
        return sbx_plan_view_fail(c->f, rc);
      continue;
    }
    if (sbx_path_under(real, c->ws)) {
      if (strcmp(real, c->ws) == 0) {
        c->ws_rights |= rights;
        p->workspace_writable |= rw;
        continue;
      }
      if (rw && (rc = sbx_plan_mount(p, real, SBX_MNT_BIND_RW, NULL, true, "allowed path")) < 0)
        return sbx_plan_view_fail(c->f, rc);
    } else if (!sbx_is_system_path(real) ||
               (sbx_path_under(real, "/tmp") && strcmp(real, "/tmp") != 0)) {
      /* A path below /tmp that a rule names explicitly (a tool or a build
       * tree kept under /tmp) is bound from the host into the private
       * /tmp; dropping it would make the rule silently mean nothing. */
      if ((rc = sbx_plan_host_entry(p, real, rw, "allowed path")) < 0)
        return sbx_plan_view_fail(c->f, rc);
    } else if (sbx_path_under(real, "/tmp") || sbx_path_under(real, "/dev") ||
               sbx_path_under(real, "/proc") || sbx_path_under(real, "/sys")) {
      continue; /* the sandbox has its own /tmp, /dev and /proc, and no /sys */
    }
    if (stat(real, &st) == 0 && !S_ISDIR(st.st_mode))
      rights &= SBX_LL_FS_FILE_RIGHTS;
    else if (p->shell_none && sbx_holds_bin_dir(p, real))
      rights &= ~SBX_LL_FS_EXECUTE; /* per-file grants instead (sbx_plan_shells) */
    if ((rc = sbx_plan_rule(p, real, rights, true)) < 0)
      return sbx_plan_view_fail(c->f, rc);
  }
  return 0;
}

/* The system part of the view (the host's own when the root is shown). */
static int sbx_plan_system(struct sbx_plan *p, struct sbx_fail *f)
{
  int rc;
  for (const char *const *d = sbx_system_dirs; *d; d++)
    if ((rc = sbx_plan_host_entry(p, *d, false, "system")) < 0)
      return sbx_plan_view_fail(f, rc);
  for (const char *const *d = sbx_etc_entries; *d; d++)
    if ((rc = sbx_plan_host_entry(p, *d, false, "system /etc")) < 0)
      return sbx_plan_view_fail(f, rc);
  if (!p->net_blocked)
    for (const char *const *d = sbx_etc_net_entries; *d; d++)
      if ((rc = sbx_plan_host_entry(p, *d, false, "system /etc (network)")) < 0)
        return sbx_plan_view_fail(f, rc);
  return 0;
}

/* The workspace in the view, and git's configuration kept read-only in it. */
static int sbx_plan_ws_view(struct sbx_plan *p, struct sbx_planning *c)
{
  int rc;
  if ((rc = sbx_plan_mount(p, c->ws, p->workspace_writable ? SBX_MNT_BIND_RW : SBX_MNT_BIND_RO,
                           NULL, true, "workspace")) < 0 ||
      (rc = sbx_plan_rule(p, c->ws, c->ws_rights, false)) < 0)
    return sbx_plan_view_fail(c->f, rc);
  /* Git's configuration and code (sbx_plan_git.c, issue 12). */
  if (p->workspace_writable && !(c->req->flags & SBX_RUN_ALLOW_GIT_CONFIG)) {
    char why[PATH_MAX + 256];
    if ((rc = sbx_plan_git(p, c->home, (c->req->flags & SBX_RUN_TEST_GIT_LEGACY) != 0, why,
                           sizeof why)) < 0) {
      sbx_fail_set(c->f, SBX_LAYER_MOUNT, -rc, "protecting %s/.git: %s", c->ws, why);
      return rc;
    }
  }
  return 0;
}

/* The Landlock rules of the view's fixed parts (/etc, /proc, /dev, /tmp,
 * the system directories). */
static int sbx_plan_fixed_rules(struct sbx_plan *p, struct sbx_fail *f)
{
  struct stat st;
  int rc;
  if ((rc = sbx_plan_rule(p, "/etc", SBX_LL_FS_READ, true)) < 0 ||
      (rc = sbx_plan_rule(p, "/proc", SBX_LL_FS_READ, false)) < 0 ||
      (rc = sbx_plan_rule(p, "/dev", SBX_LL_FS_READ, false)) < 0)
    return sbx_plan_view_fail(f, rc);
  static const char *const devs[] = { "/dev/null",   "/dev/zero",    "/dev/full",
                                      "/dev/random", "/dev/urandom", NULL };
  for (const char *const *d = devs; *d; d++)
    if ((rc = sbx_plan_rule(p, *d, SBX_LL_FS_READ_FILE | SBX_LL_FS_WRITE_FILE | SBX_LL_FS_TRUNCATE,
                            true)) < 0)
      return sbx_plan_view_fail(f, rc);
  {
    uint64_t tmp = SBX_LL_FS_READ;
    if (p->tmp_writable)
      tmp |= SBX_LL_FS_WRITE | SBX_LL_FS_DELETE;
    if ((rc = sbx_plan_rule(p, "/tmp", tmp, false)) < 0 ||
        (rc = sbx_plan_rule(p, "/dev/shm", tmp, true)) < 0)
      return sbx_plan_view_fail(f, rc);
  }
  if (p->shell_none) {
    if ((rc = sbx_plan_rule(p, "/usr", SBX_LL_FS_READ, true)) < 0 || (rc = sbx_plan_shells(p)) < 0)
      return sbx_plan_view_fail(f, rc);
  } else if ((rc = sbx_plan_rule(p, "/usr", SBX_LL_FS_READ | SBX_LL_FS_EXECUTE, true)) < 0)
    return sbx_plan_view_fail(f, rc);
  for (const char *const *d = sbx_system_dirs + 1; *d; d++)
    if ((sbx_probe(p, *d, SBX_PROBE_STAT), lstat(*d, &st) == 0) && S_ISDIR(st.st_mode) &&
        (rc = sbx_plan_rule(
             p, *d, p->shell_none ? SBX_LL_FS_READ : SBX_LL_FS_READ | SBX_LL_FS_EXECUTE, true)) < 0)
      return sbx_plan_view_fail(f, rc);
  return 0;
}

/* Denied paths win: the resolved target is masked where the view shows
 * it, so a symlink (in the rule or planted in the workspace) cannot reach
 * it. */
static int sbx_plan_denied(struct sbx_plan *p, struct sbx_planning *c)
{
  char path[PATH_MAX], real[PATH_MAX];
  struct stat st;
  int rc;
  for (uint32_t i = 0; i < c->prof->n_denied_paths; i++) {
    const struct cs_path_rule *r = &c->prof->denied_paths[i];
    rc = sbx_expand_path(r->path, c->ws, c->home, path, sizeof path);
    if (rc == -ENOENT)
      continue;
    if (rc < 0) {
      sbx_fail_set(c->f, SBX_LAYER_MOUNT, -rc, "denied path '%s' (%s): %s", r->path,
                   r->origin ? r->origin : "?", strerror(-rc));
      return rc;
    }
    if (!c->dreal[i])
      continue; /* absent: nothing to hide */
    snprintf(real, sizeof real, "%s", c->dreal[i]);
    if (strcmp(real, "/") == 0) {
      rc = -EINVAL;
      sbx_fail_set(c->f, SBX_LAYER_MOUNT, -rc, "denied path '%s' (%s) is /: nothing could run",
                   r->path, r->origin ? r->origin : "?");
      return rc;
    }
    if (!sbx_is_visible(p, real))
      continue; /* not in the view, and Landlock grants nothing there */
    sbx_probe(p, real, SBX_PROBE_STAT);
    if (stat(real, &st) < 0)
      continue;
    if ((rc = sbx_plan_mount(p, real, SBX_MNT_MASK, NULL, S_ISDIR(st.st_mode),
                             "denied path rule")) < 0)
      return sbx_plan_view_fail(c->f, rc);
  }
  return 0;
}

/* The command's working directory (req->cwd), resolved again here since
 * a request may come from any caller: refused unless it is a directory in
 * the workspace that no mask hides (a denied path's contents must not
 * become reachable, or even probed, by starting inside them). A symlink
 * swapped between here and the chdir can only lead elsewhere in the view,
 * which is what the command may reach anyway. */
static int sbx_plan_cwd(struct sbx_plan *p, struct sbx_planning *c)
{
  char real[PATH_MAX];
  struct stat st;
  int rc;

  if (!c->req->cwd)
    return 0;
  if (!realpath(c->req->cwd, real) || stat(real, &st) != 0) {
    rc = -errno;
    sbx_fail_set(c->f, SBX_LAYER_REQUEST, -rc, "cwd '%s': %s", c->req->cwd, strerror(-rc));
    return rc;
  }
  if (!S_ISDIR(st.st_mode)) {
    sbx_fail_set(c->f, SBX_LAYER_REQUEST, ENOTDIR, "cwd '%s': not a directory", c->req->cwd);
    return -ENOTDIR;
  }
  if (!sbx_path_under(real, p->workspace)) {
    sbx_fail_set(c->f, SBX_LAYER_REQUEST, EACCES,
                 "cwd '%s' resolves to %s, outside the "
                 "workspace %s",
                 c->req->cwd, real, p->workspace);
    return -EACCES;
  }
  for (size_t i = 0; i < p->n_mounts; i++)
    if (p->mounts[i].kind == SBX_MNT_MASK && sbx_path_under(real, p->mounts[i].path)) {
      sbx_fail_set(c->f, SBX_LAYER_REQUEST, EACCES,
                   "cwd '%s' lies in %s, which the view "
                   "hides (%s)",
                   c->req->cwd, p->mounts[i].path, p->mounts[i].why ? p->mounts[i].why : "mask");
      return -EACCES;
    }
  if (!(p->cwd = strdup(real))) {
    sbx_fail_set(c->f, SBX_LAYER_REQUEST, ENOMEM, "cwd: out of memory");
    return -ENOMEM;
  }
  return 0;
}

/* The warm-start server's directory masked, the mounts in order, the
 * environment. */
static int sbx_plan_finish(struct sbx_plan *p, struct sbx_planning *c)
{
  char real[PATH_MAX];
  struct stat st;
  int rc;
  /* The warm-start server's directory: the server checks who connects
   * (runtime/warm/sbx_serve.c), but a sandboxed command should not see it
   * at all. */
  if (c->req->mask_dir && realpath(c->req->mask_dir, real) && sbx_is_visible(p, real) &&
      (sbx_probe(p, real, SBX_PROBE_STAT), stat(real, &st) == 0) && S_ISDIR(st.st_mode) &&
      (rc = sbx_plan_mount(p, real, SBX_MNT_MASK, NULL, true, "warm-start server")) < 0)
    return sbx_plan_view_fail(c->f, rc);
  qsort(p->mounts, p->n_mounts, sizeof *p->mounts, sbx_cmp_mount);
  sbx_plan_noexec(p, (c->req->flags & SBX_RUN_TEST_EXEC_MOUNTS) != 0);

  if ((rc = sbx_plan_cwd(p, c)) < 0)
    return rc;
  if ((rc = sbx_plan_environment(p, c->req)) < 0) {
    sbx_fail_set(c->f, SBX_LAYER_ENV, -rc, "%s",
                 rc == -EINVAL  ? "invalid name in pass_env or set_env"
                 : rc == -EPERM ? "a name in pass_env or set_env is refused by an env rule "
                                  "(loader, sbx or secret; runtime/request/sbx_env_rules.c)"
                                : strerror(-rc));
    return rc;
  }
  return 0;
}

static int sbx_plan_build_ex(const struct sbx_run_request *req, int abi, const char *home_in,
                             bool record, struct sbx_plan *p, struct sbx_fail *f)
{
  struct sbx_planning c = { .req = req, .prof = req->profile, .ws_rights = SBX_LL_FS_READ, .f = f };
  const char *home = home_in ? (home_in[0] ? home_in : NULL) : getenv("HOME");
  int rc;

  memset(p, 0, sizeof *p);
  p->record = record;
  p->profile = c.prof;
  p->uid = geteuid();
  p->gid = getegid();
  p->landlock_abi = abi;
  p->net_blocked = !c.prof->allow_network;
  p->net_proxied = sbx_net_proxied(c.prof);
  p->shell_none = c.prof->shell == CS_SHELL_NONE;
  p->tmp_writable = c.prof->allow_file_write;
  if (!home || home[0] != '/') {
    struct passwd *pw = getpwuid(getuid());
    home = pw ? pw->pw_dir : NULL;
  }
  c.home = home;
  if ((rc = sbx_plan_workspace(p, &c)) < 0 ||
      (rc = sbx_plan_identity(p, (req->flags & SBX_RUN_TEST_HOST_ROOT) != 0, f)) < 0 ||
      (rc = sbx_plan_allowed(p, &c)) < 0 || (rc = sbx_plan_extra(p, req, c.ws, c.dreal, f)) < 0 ||
      (!p->full_root && (rc = sbx_plan_system(p, f)) < 0) || (rc = sbx_plan_ws_view(p, &c)) < 0 ||
      (rc = sbx_plan_fixed_rules(p, f)) < 0 || (rc = sbx_plan_denied(p, &c)) < 0 ||
      (rc = sbx_plan_home(p, c.home, c.ws, c.dreal, f)) < 0 || (rc = sbx_plan_finish(p, &c)) < 0) {
    sbx_denied_free(c.prof, c.dreal);
    sbx_plan_free(p);
    return rc;
  }
  sbx_denied_free(c.prof, c.dreal);
  return 0;
}

int sbx_plan_build(const struct sbx_run_request *req, int abi, struct sbx_plan *p,
                   struct sbx_fail *f)
{
  return sbx_plan_build_ex(req, abi, NULL, false, p, f);
}

int sbx_plan_build_warm(const struct sbx_run_request *req, int abi, const char *home,
                        struct sbx_plan *p, struct sbx_fail *f)
{
  return sbx_plan_build_ex(req, abi, home ? home : "", true, p, f);
}

void sbx_plan_free(struct sbx_plan *p)
{
  for (size_t i = 0; i < p->n_mounts; i++) {
    free(p->mounts[i].path);
    free(p->mounts[i].target);
    free(p->mounts[i].source);
  }
  for (size_t i = 0; i < p->n_rules; i++)
    free(p->rules[i].path);
  for (size_t i = 0; i < p->n_env; i++)
    free(p->envp[i]);
  for (size_t i = 0; i < p->n_probes; i++) {
    free(p->probes[i].path);
    free(p->probes[i].real);
  }
  free(p->probes);
  free(p->mounts);
  free(p->rules);
  free(p->envp);
  free(p->workspace);
  free(p->cwd);
  free(p->home_real);
  free(p->home_state);
  free(p->extra_path);
  memset(p, 0, sizeof *p);
}
