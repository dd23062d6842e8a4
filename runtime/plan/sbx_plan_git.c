/* sbx_plan_git: in a writable workspace, every file through which git takes
 * configuration or code is made unchangeable by the sandbox (issue 12,
 * docs/confinement.md "Git"), while what git writes in normal work
 * (objects, refs, the index, logs, HEAD, lock files, rebase and worktree
 * state) stays writable.
 *
 * The attacks this closes: the user runs `git status` on the host after a
 * run, and git executes a command the sandbox chose, through
 *   - a configuration file (core.fsmonitor, core.hooksPath, filters,
 *     aliases, pagers): config, config.worktree, their include targets;
 *   - a hook (hooks/);
 *   - a redirection of where git finds its configuration: a `commondir`
 *     file, a `.git` *file* ("gitdir: <dir>"), worktrees/NAME/gitdir and
 *     commondir, a submodule's `.git` file;
 *   - a replacement: renaming `.git` (or modules/NAME, worktrees/NAME)
 *     away and creating a new one with a crafted config.
 *
 * The means is the mount table only (no system-call inspection):
 *   - a file is bound read-only onto itself: it can be neither written
 *     (EROFS) nor renamed over, replaced or removed (EBUSY: a mount point);
 *   - a directory that must stay writable but must not be renamed or
 *     removed (.git, modules/NAME, worktrees/NAME) is bound read-write
 *     onto itself: its contents stay writable, the entry is a mount point;
 *   - a configuration file or directory that does not exist yet (config,
 *     config.worktree, hooks/, info/) is created first, empty, as git
 *     itself would, so that it can be bound: git reads an empty file as no
 *     configuration and an empty hooks/ as no hook.
 * `commondir` cannot be empty (git refuses that): it is created naming the
 * git directory itself ("."), which is what git assumes without it. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sbx_diag.h"
#include "sbx_git_config.h"
#include "sbx_landlock_rights.h"
#include "sbx_plan.h"
#include "sbx_plan_parts.h"

/* Nesting of submodules, worktrees and includes followed; deeper is
 * refused (git's own include limit is 10). */
#define SBX_GIT_MAX_DEPTH 10

/* Mount reasons (docs, `sbx explain`). "git config/hooks" is also how the
 * git-config approval layer finds the files it guards (sbx_unotify_sbx.c). */
static const char sbx_git_why_config[] = "git config/hooks";
static const char sbx_git_why_dir[] = "git directory (cannot be renamed or removed)";
static const char sbx_git_why_link[] = "git link (commondir, gitdir, .git file)";
static const char sbx_git_why_include[] = "git config include";
static const char sbx_git_why_common[] = "git common dir";

struct sbx_git {
  struct sbx_plan *p;
  const char *home;
  bool legacy;
  char *err;
  size_t err_len;
};

static int sbx_git_fail(struct sbx_git *g, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int sbx_git_fail(struct sbx_git *g, int rc, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g->err, g->err_len, fmt, ap);
  va_end(ap);
  return rc;
}

static int sbx_git_join(char *out, size_t len, const char *dir, const char *name)
{
  int n = snprintf(out, len, "%s/%s", dir, name);
  return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Could the command change `path`? The deepest planned mount covering it
 * decides (the host root's own mode when none does). Conservative: a
 * path Landlock would refuse to write still counts as writable. */
static bool sbx_git_writable(const struct sbx_plan *p, const char *path)
{
  size_t best = 0;
  bool rw = p->full_root && p->full_root_rw, found = false;
  for (size_t i = 0; i < p->n_mounts; i++) {
    const struct sbx_mount_entry *m = &p->mounts[i];
    size_t n = strlen(m->path);
    if (m->kind == SBX_MNT_SYMLINK || !sbx_path_under(path, m->path) || (found && n < best))
      continue;
    best = n;
    found = true;
    rw = m->kind == SBX_MNT_BIND_RW;
  }
  return (found || p->full_root) && rw;
}

static bool sbx_git_bound(const struct sbx_plan *p, const char *path)
{
  for (size_t i = 0; i < p->n_mounts; i++)
    if (p->mounts[i].kind != SBX_MNT_SYMLINK && strcmp(p->mounts[i].path, path) == 0)
      return true;
  return false;
}

/* Creates `path` (a directory, or a file holding `content`) owned like
 * its directory: what git would have made. Never follows a symlink; an
 * entry that appeared meanwhile is fine (the caller's lstat checks it). */
static int sbx_git_create(const char *path, bool is_dir, const char *content,
                          const struct stat *dir_st)
{
  size_t len = content ? strlen(content) : 0;
  int fd, rc = 0;
  if (is_dir) {
    if (mkdir(path, 0755) < 0)
      return errno == EEXIST ? 0 : -errno;
    fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  } else {
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST)
      return 0;
  }
  if (fd < 0)
    return -errno;
  if (len && write(fd, content, len) != (ssize_t)len)
    rc = -EIO;
  /* sbx as root would leave root-owned files in the user's repository;
   * best effort: their content is git's default either way. */
  if (geteuid() == 0 && fchown(fd, dir_st->st_uid, dir_st->st_gid) < 0)
    fprintf(sbx_diag(), "sbx: warning: %s: chown: %s\n", path, strerror(errno));
  close(fd);
  if (rc < 0)
    unlink(path);
  return rc;
}

static int sbx_git_one_name(struct sbx_git *g, const char *path, const struct stat *st)
{
  if (S_ISREG(st->st_mode) && st->st_nlink > 1)
    return sbx_git_fail(g, -EMLINK,
                        "%s has %lu hard links: refused (a name outside its read-only mount "
                        "could change it; remove the other links)",
                        path, (unsigned long)st->st_nlink);
  return 0;
}

static int sbx_git_single_names_in(struct sbx_git *g, const char *path, const struct stat *st,
                                   int depth)
{
  char sub[PATH_MAX];
  struct stat est;
  struct dirent *de;
  DIR *d;
  int rc = sbx_git_one_name(g, path, st);
  if (rc < 0 || !S_ISDIR(st->st_mode))
    return rc;
  if (depth > SBX_GIT_MAX_DEPTH)
    return sbx_git_fail(g, -ELOOP, "%s: nested more than %d deep: refused", path,
                        SBX_GIT_MAX_DEPTH);
  sbx_probe(g->p, path, SBX_PROBE_LIST);
  if (!(d = opendir(path)))
    return sbx_git_fail(g, -errno, "%s: %s", path, strerror(errno));
  while (rc == 0 && (de = readdir(d)))
    if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0 &&
        sbx_git_join(sub, sizeof sub, path, de->d_name) == 0 && lstat(sub, &est) == 0)
      rc = sbx_git_single_names_in(g, sub, &est, depth + 1);
  closedir(d);
  return rc;
}

static int sbx_git_single_names(struct sbx_git *g, const char *path, const struct stat *st)
{
  return sbx_git_single_names_in(g, path, st, 0);
}

enum sbx_git_missing {
  SBX_GIT_IF_PRESENT,  /* nothing to protect when absent */
  SBX_GIT_CREATE_FILE, /* empty: no configuration */
  SBX_GIT_CREATE_DIR,  /* empty: no hook */
  /* "." : the git directory is its own common dir, which is what git
   * assumes without the file (checked with git 2.39: status, commit,
   * stash, rebase, worktree add/list/remove, gc, fsck, submodules). */
  SBX_GIT_CREATE_SELF_COMMONDIR,
};

/* Binds dir/name onto itself: read-only (files, hooks/, info/) or, for a
 * directory git must write in, read-write (then only the entry itself is
 * fixed). A symlink is refused: its target may be writable inside and a
 * mount cannot be put on a symlink. *out_st: what was found (mode 0: none). */
static int sbx_git_fix(struct sbx_git *g, const char *dir, const char *name,
                       enum sbx_git_missing missing, bool rw, const char *why, struct stat *out_st)
{
  char path[PATH_MAX];
  struct stat st, dst;
  int rc;
  if (out_st)
    memset(out_st, 0, sizeof *out_st);
  if ((rc = sbx_git_join(path, sizeof path, dir, name)) < 0)
    return sbx_git_fail(g, rc, "%s/%s: name too long", dir, name);
  sbx_probe(g->p, path, SBX_PROBE_STAT);
  if (lstat(path, &st) < 0) {
    if (errno != ENOENT)
      return sbx_git_fail(g, -errno, "%s: %s", path, strerror(errno));
    if (missing == SBX_GIT_IF_PRESENT)
      return 0;
    if (stat(dir, &dst) < 0 ||
        (rc = sbx_git_create(path, missing == SBX_GIT_CREATE_DIR,
                             missing == SBX_GIT_CREATE_SELF_COMMONDIR ? ".\n" : NULL, &dst)) < 0)
      return sbx_git_fail(g, rc < 0 ? rc : -errno, "%s: creating it empty (to protect it): %s",
                          path, strerror(rc < 0 ? -rc : errno));
    if (lstat(path, &st) < 0)
      return sbx_git_fail(g, -errno, "%s: %s", path, strerror(errno));
  }
  if (S_ISLNK(st.st_mode))
    return sbx_git_fail(g, -ELOOP,
                        "%s is a symlink: refused (its target could be written inside, and a "
                        "mount cannot be put on a symlink)",
                        path);
  if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
    return sbx_git_fail(g, -EINVAL, "%s is neither a file nor a directory: refused", path);
  /* A read-only mount covers one name. Another name of the same file (a
   * hard link an earlier run made where it could write, e.g. beside a
   * commondir that `git worktree add` had just created there) would stay
   * writable: refused, for the file and for what a read-only directory
   * holds. */
  if (!rw && !g->legacy && (rc = sbx_git_single_names(g, path, &st)) < 0)
    return rc;
  if (out_st)
    *out_st = st;
  if (sbx_git_bound(g->p, path))
    return 0;
  if ((rc = sbx_plan_mount(g->p, path, rw ? SBX_MNT_BIND_RW : SBX_MNT_BIND_RO, NULL,
                           S_ISDIR(st.st_mode), why)) < 0)
    return sbx_git_fail(g, rc, "%s: %s", path, strerror(-rc));
  return 0;
}

static int sbx_git_protect_config(struct sbx_git *g, const char *file, int depth);

/* The file an include names, made absolute as git does: `~/` is HOME, a
 * relative path is relative to the including file's directory. */
static int sbx_git_include_path(struct sbx_git *g, const char *from, const char *value, char *out,
                                size_t len)
{
  int n;
  if (value[0] == '~' && value[1] == '/') {
    if (!g->home || g->home[0] != '/')
      return -ENOENT;
    n = snprintf(out, len, "%s%s", g->home, value + 1);
  } else if (value[0] == '/')
    n = snprintf(out, len, "%s", value);
  else {
    const char *slash = strrchr(from, '/');
    n = snprintf(out, len, "%.*s/%s", (int)(slash ? slash - from : 0), from, value);
  }
  return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Could the sandbox create the missing `path`? Its nearest existing
 * ancestor says. */
static bool sbx_git_creatable(const struct sbx_plan *p, const char *path)
{
  char dir[PATH_MAX], real[PATH_MAX];
  char *slash;
  snprintf(dir, sizeof dir, "%s", path);
  while ((slash = strrchr(dir, '/')) && slash != dir) {
    *slash = '\0';
    if (realpath(dir, real))
      break;
  }
  if (!slash || slash == dir)
    snprintf(real, sizeof real, "/");
  return sbx_is_visible(p, real) && sbx_git_writable(p, real);
}

/* An include target: if the sandbox could change it, it is bound
 * read-only; if it does not exist where the sandbox could create it, the
 * run is refused (sbx does not create files in the working tree). */
static int sbx_git_include(struct sbx_git *g, const char *from, const char *value, int depth)
{
  char path[PATH_MAX], dir[PATH_MAX], real[PATH_MAX];
  char *slash;
  int rc;
  if (!value[0])
    return 0; /* an empty path: git includes nothing */
  if (value[0] == '~' && value[1] != '/')
    return sbx_git_fail(g, -EINVAL, "%s includes '%s' (~user): refused (not resolved by sbx)", from,
                        value);
  if ((rc = sbx_git_include_path(g, from, value, path, sizeof path)) == -ENOENT)
    return 0; /* ~/ without a HOME: git does not read it either */
  if (rc < 0)
    return sbx_git_fail(g, rc, "%s includes '%s': %s", from, value, strerror(-rc));
  sbx_probe(g->p, path, SBX_PROBE_RESOLVE);
  if (realpath(path, real)) {
    /* A symlink on the way that the sandbox could re-point would make the
     * read-only copy of its present target meaningless. */
    if (strcmp(real, path) != 0 && sbx_is_visible(g->p, path) && sbx_git_writable(g->p, path)) {
      snprintf(dir, sizeof dir, "%s", path);
      for (slash = strrchr(dir, '/'); slash && slash != dir; slash = strrchr(dir, '/')) {
        struct stat st;
        if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode))
          return sbx_git_fail(g, -ELOOP,
                              "%s includes '%s' through the symlink %s, which the sandbox "
                              "could re-point: refused",
                              from, value, dir);
        *slash = '\0';
      }
    }
    if (!sbx_is_visible(g->p, real))
      return 0; /* the sandbox does not see it */
    return sbx_git_protect_config(g, real, depth + 1);
  }
  if (sbx_git_creatable(g->p, path))
    return sbx_git_fail(g, -ENOENT,
                        "%s includes '%s', which does not exist and could be created inside: "
                        "refused (create it, or remove the include)",
                        from, value);
  return 0;
}

/* core.hooksPath: the hooks are wherever it says, often a directory of the
 * working tree (`.husky`, `.githooks`). There they would be project files
 * the sandbox may write, and git runs them: read-only, like hooks/. A
 * relative path is relative to where git runs hooks, the working tree's
 * top: the workspace's (linked worktrees and submodules with a relative
 * hooksPath: docs/threat-model.md). A missing one is made empty if its
 * parent exists, else the run is refused. */
static int sbx_git_hooks_path(struct sbx_git *g, const char *file, const char *value)
{
  char path[PATH_MAX], real[PATH_MAX], parent[PATH_MAX];
  const char *slash;
  struct stat st;
  int n;
  if (!value[0])
    return 0;
  if (value[0] == '~' && value[1] == '/') {
    if (!g->home || g->home[0] != '/')
      return 0;
    n = snprintf(path, sizeof path, "%s%s", g->home, value + 1);
  } else if (value[0] == '/')
    n = snprintf(path, sizeof path, "%s", value);
  else if (value[0] == '~')
    return sbx_git_fail(g, -EINVAL, "%s: core.hooksPath '%s' (~user): refused", file, value);
  else
    n = snprintf(path, sizeof path, "%s/%s", g->p->workspace, value);
  if (n < 0 || (size_t)n >= sizeof path)
    return sbx_git_fail(g, -ENAMETOOLONG, "%s: core.hooksPath '%s': too long", file, value);
  sbx_probe(g->p, path, SBX_PROBE_RESOLVE);
  if (!realpath(path, real)) {
    if (!sbx_git_creatable(g->p, path))
      return 0;
    slash = strrchr(path, '/');
    snprintf(parent, sizeof parent, "%.*s", (int)(slash - path), path);
    if (stat(parent, &st) < 0 || !S_ISDIR(st.st_mode))
      return sbx_git_fail(g, -ENOENT,
                          "%s: core.hooksPath '%s' does not exist and could be created inside: "
                          "refused (create it)",
                          file, value);
    return sbx_git_fix(g, parent, slash + 1, SBX_GIT_CREATE_DIR, false, sbx_git_why_config, NULL);
  }
  if (strcmp(real, path) != 0 && sbx_git_writable(g->p, path))
    return sbx_git_fail(g, -ELOOP,
                        "%s: core.hooksPath '%s' goes through a symlink the sandbox could "
                        "re-point: refused",
                        file, value);
  if (!sbx_is_visible(g->p, real) || !sbx_git_writable(g->p, real) || sbx_git_bound(g->p, real))
    return 0;
  slash = strrchr(real, '/');
  snprintf(parent, sizeof parent, "%.*s", (int)(slash - real), real);
  return sbx_git_fix(g, parent, slash + 1, SBX_GIT_IF_PRESENT, false, sbx_git_why_config, NULL);
}

/* What a scan callback needs: the plan's context, the file read, the
 * nesting so far, and for core.worktree the git directory it is in. */
struct sbx_git_scan_ctx {
  struct sbx_git *g;
  const char *file;
  const char *gitdir;
  int depth;
  sbx_git_kv_fn fn;
  bool fn_failed; /* the error is the callback's (its message is written) */
};

static int sbx_git_scan_one(void *arg, const struct sbx_git_kv *kv)
{
  struct sbx_git_scan_ctx *c = arg;
  int rc = c->fn(c, kv);
  c->fn_failed = rc != 0;
  return rc;
}

/* git configuration in `file`, for `fn`: a file sbx cannot read as such
 * refuses the run. */
static int sbx_git_scan(struct sbx_git *g, const char *file, sbx_git_kv_fn fn, const char *gitdir,
                        int depth)
{
  struct sbx_git_scan_ctx c = { .g = g, .file = file, .gitdir = gitdir, .depth = depth, .fn = fn };
  int rc = sbx_git_config_scan(file, sbx_git_scan_one, &c);
  if (rc == 0 || c.fn_failed)
    return rc;
  if (rc == -EINVAL)
    return sbx_git_fail(g, rc,
                        "%s: a line sbx cannot read as git configuration: refused (git would "
                        "refuse it too)",
                        file);
  return sbx_git_fail(g, rc, "%s: reading it: %s", file, strerror(-rc));
}

static int sbx_git_on_include(void *arg, const struct sbx_git_kv *kv)
{
  const struct sbx_git_scan_ctx *c = arg;
  struct sbx_git *g = c->g;
  const char *file = c->file;
  int depth = c->depth;
  if ((strcmp(kv->section, "include") == 0 || strcmp(kv->section, "includeif") == 0) &&
      strcmp(kv->key, "path") == 0 && kv->has_value)
    return sbx_git_include(g, file, kv->value, depth);
  if (strcmp(kv->section, "core") == 0 && strcmp(kv->key, "hookspath") == 0 && kv->has_value)
    return sbx_git_hooks_path(g, file, kv->value);
  return 0;
}

/* A configuration file the view shows: read-only, and so is everything it
 * includes (includeIf conditions are not evaluated: every target is). */
static int sbx_git_protect_config(struct sbx_git *g, const char *file, int depth)
{
  struct stat st;
  const char *slash = strrchr(file, '/');
  char dir[PATH_MAX];
  int rc;
  if (depth > SBX_GIT_MAX_DEPTH)
    return sbx_git_fail(g, -ELOOP, "%s: includes nested more than %d deep: refused", file,
                        SBX_GIT_MAX_DEPTH);
  if (!slash || slash == file)
    return sbx_git_fail(g, -EINVAL, "%s: not a file in a directory", file);
  snprintf(dir, sizeof dir, "%.*s", (int)(slash - file), file);
  if (!sbx_git_bound(g->p, file) && (rc = sbx_git_fix(g, dir, slash + 1, SBX_GIT_IF_PRESENT, false,
                                                      sbx_git_why_include, &st)) < 0)
    return rc;
  sbx_probe(g->p, file, SBX_PROBE_LIST); /* its content is used */
  if (stat(file, &st) < 0 || !S_ISREG(st.st_mode))
    return 0;
  return sbx_git_scan(g, file, sbx_git_on_include, NULL, depth);
}

static int sbx_git_protect_gitdir(struct sbx_git *g, const char *gitdir, bool bind_dir, int depth);
static int sbx_git_protect_gitfile(struct sbx_git *g, const char *dotgit, int depth);

/* The first line of a file (commondir, gitdir, a .git file), without its
 * newline; its content is a fact of the plan. */
static int sbx_git_first_line(struct sbx_plan *p, const char *path, char *out, size_t len)
{
  FILE *fp;
  sbx_probe(p, path, SBX_PROBE_LIST);
  fp = fopen(path, "re");
  if (!fp)
    return -errno;
  if (!fgets(out, (int)len, fp)) {
    fclose(fp);
    return -ENODATA;
  }
  fclose(fp);
  out[strcspn(out, "\r\n")] = '\0';
  return 0;
}

/* `value` (absolute, or relative to `base`) resolved. */
static int sbx_git_resolve(const char *base, const char *value, char *out)
{
  char tmp[PATH_MAX];
  size_t nb = strlen(base), nv = strlen(value);
  if (value[0] == '/') {
    if (nv >= sizeof tmp)
      return -ENAMETOOLONG;
    memcpy(tmp, value, nv + 1);
  } else {
    if (nb + 1 + nv >= sizeof tmp)
      return -ENAMETOOLONG;
    memcpy(tmp, base, nb);
    tmp[nb] = '/';
    memcpy(tmp + nb + 1, value, nv + 1);
  }
  return realpath(tmp, out) ? 0 : -errno;
}

typedef int (*sbx_git_dir_fn)(struct sbx_git *g, const char *sub, int depth);

/* Each subdirectory of `dir` fixed (bound read-write onto itself: it can be
 * neither renamed away nor replaced) and handed to fn. */
static int sbx_git_each_subdir(struct sbx_git *g, const char *dir, int depth, sbx_git_dir_fn fn)
{
  char sub[PATH_MAX];
  struct stat st;
  DIR *d;
  struct dirent *de;
  int rc = 0;
  sbx_probe(g->p, dir, SBX_PROBE_LIST);
  if (!(d = opendir(dir)))
    return sbx_git_fail(g, -errno, "%s: %s", dir, strerror(errno));
  while ((de = readdir(d))) {
    if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
      continue;
    if ((rc = sbx_git_fix(g, dir, de->d_name, SBX_GIT_IF_PRESENT, true, sbx_git_why_dir, &st)) < 0)
      break;
    if (!S_ISDIR(st.st_mode))
      continue;
    if ((rc = sbx_git_join(sub, sizeof sub, dir, de->d_name)) < 0) {
      rc = sbx_git_fail(g, rc, "%s/%s: name too long", dir, de->d_name);
      break;
    }
    if ((rc = fn(g, sub, depth)) < 0)
      break;
  }
  closedir(d);
  return rc;
}

/* A linked worktree's own git directory (worktrees/NAME): its links
 * (commondir, gitdir) and its config.worktree read-only, the directory
 * itself fixed; and the linked worktree's .git file, when the view shows
 * it. Its HEAD, index and logs stay writable. */
static int sbx_git_protect_linked(struct sbx_git *g, const char *sub, int depth)
{
  char line[PATH_MAX], file[PATH_MAX], real[PATH_MAX], parent[PATH_MAX];
  const char *slash = strrchr(sub, '/');
  struct stat st;
  int rc;
  if (!slash)
    return sbx_git_fail(g, -EINVAL, "%s: not absolute", sub);
  snprintf(parent, sizeof parent, "%.*s", (int)(slash - sub), sub);
  if (sbx_is_visible(g->p, sub) && sbx_git_writable(g->p, sub) &&
      (rc = sbx_git_fix(g, parent, slash + 1, SBX_GIT_IF_PRESENT, true, sbx_git_why_dir, NULL)) < 0)
    return rc;
  if ((rc = sbx_git_fix(g, sub, "commondir", SBX_GIT_IF_PRESENT, false, sbx_git_why_link, NULL)) <
          0 ||
      (rc = sbx_git_fix(g, sub, "gitdir", SBX_GIT_IF_PRESENT, false, sbx_git_why_link, NULL)) < 0 ||
      (rc = sbx_git_fix(g, sub, "config.worktree", SBX_GIT_CREATE_FILE, false, sbx_git_why_config,
                        NULL)) < 0)
    return rc;
  if ((rc = sbx_git_join(file, sizeof file, sub, "config.worktree")) < 0 ||
      (rc = sbx_git_protect_config(g, file, depth + 1)) < 0)
    return rc == -ENAMETOOLONG ? sbx_git_fail(g, rc, "%s: name too long", sub) : rc;
  /* gitdir names the linked worktree's .git file: in the view, it is a
   * way into this repository the sandbox could redirect. */
  if (sbx_git_join(file, sizeof file, sub, "gitdir") == 0 &&
      sbx_git_first_line(g->p, file, line, sizeof line) == 0 && line[0] &&
      sbx_git_resolve(sub, line, real) == 0 && sbx_is_visible(g->p, real) &&
      sbx_git_writable(g->p, real) && lstat(real, &st) == 0 && S_ISREG(st.st_mode) &&
      !sbx_git_bound(g->p, real) &&
      (rc = sbx_plan_mount(g->p, real, SBX_MNT_BIND_RO, NULL, false, sbx_git_why_link)) < 0)
    return sbx_git_fail(g, rc, "%s: %s", real, strerror(-rc));
  return 0;
}

/* worktrees/: the directory fixed, and each linked worktree's git
 * directory in it. */
static int sbx_git_protect_worktrees(struct sbx_git *g, const char *gitdir, int depth)
{
  char dir[PATH_MAX];
  struct stat st;
  int rc;
  if ((rc = sbx_git_fix(g, gitdir, "worktrees", SBX_GIT_IF_PRESENT, true, sbx_git_why_dir, &st)) <
          0 ||
      !S_ISDIR(st.st_mode))
    return rc;
  if ((rc = sbx_git_join(dir, sizeof dir, gitdir, "worktrees")) < 0)
    return sbx_git_fail(g, rc, "%s/worktrees: name too long", gitdir);
  return sbx_git_each_subdir(g, dir, depth, sbx_git_protect_linked);
}

/* A submodule's git directory names its working tree (core.worktree);
 * there, its .git file leads back here and must not be redirected. */
static int sbx_git_on_worktree_key(void *arg, const struct sbx_git_kv *kv)
{
  const struct sbx_git_scan_ctx *c = arg;
  struct sbx_git *g = c->g;
  const char *gitdir = c->gitdir;
  int depth = c->depth;
  char real[PATH_MAX], dotgit[PATH_MAX];
  if (strcmp(kv->section, "core") != 0 || strcmp(kv->key, "worktree") != 0 || !kv->has_value ||
      sbx_git_resolve(gitdir, kv->value, real) < 0 ||
      sbx_git_join(dotgit, sizeof dotgit, real, ".git") < 0)
    return 0;
  if (!sbx_is_visible(g->p, dotgit) || !sbx_git_writable(g->p, dotgit))
    return 0;
  return sbx_git_protect_gitfile(g, dotgit, depth + 1);
}

static int sbx_git_protect_modules(struct sbx_git *g, const char *dir, int depth);

/* One entry of modules/: anything git could take for a git directory (or
 * that holds its configuration) is protected as one; anything else is a
 * level of a name (submodule names may hold slashes: modules/a/b). */
static int sbx_git_protect_module(struct sbx_git *g, const char *sub, int depth)
{
  static const char *const marks[] = { "HEAD", "config", "hooks", "objects", "refs", NULL };
  char probe[PATH_MAX];
  struct stat st;
  for (const char *const *m = marks; *m; m++)
    if (sbx_git_join(probe, sizeof probe, sub, *m) == 0 &&
        (sbx_probe(g->p, probe, SBX_PROBE_STAT), lstat(probe, &st) == 0))
      return sbx_git_protect_gitdir(g, sub, false, depth + 1);
  return sbx_git_protect_modules(g, sub, depth + 1);
}

/* modules/: every submodule's git directory, recursively. */
static int sbx_git_protect_modules(struct sbx_git *g, const char *dir, int depth)
{
  if (depth > SBX_GIT_MAX_DEPTH)
    return sbx_git_fail(g, -ELOOP, "%s: submodules nested more than %d deep: refused", dir,
                        SBX_GIT_MAX_DEPTH);
  return sbx_git_each_subdir(g, dir, depth, sbx_git_protect_module);
}

/* The git directory's own files. `bind_dir`: it is outside the workspace
 * (a linked worktree's common dir) and is added to the view. */
static int sbx_git_protect_gitdir(struct sbx_git *g, const char *gitdir, bool bind_dir, int depth)
{
  static const char *const legacy[] = { "config", "hooks", "config.worktree", "info", NULL };
  char path[PATH_MAX];
  struct stat st;
  int rc;
  if (depth > SBX_GIT_MAX_DEPTH)
    return sbx_git_fail(g, -ELOOP, "%s: git directories nested more than %d deep: refused", gitdir,
                        SBX_GIT_MAX_DEPTH);
  if (bind_dir && !sbx_is_visible(g->p, gitdir) &&
      (rc = sbx_plan_mount(g->p, gitdir, SBX_MNT_BIND_RW, NULL, true, sbx_git_why_common)) < 0)
    return sbx_git_fail(g, rc, "%s: %s", gitdir, strerror(-rc));
  /* git's lock-file protocol renames over files: it needs delete rights
   * in its own directory even when the profile forbids deleting files. */
  if ((rc = sbx_plan_rule(g->p, gitdir, SBX_LL_FS_READ | SBX_LL_FS_WRITE | SBX_LL_FS_DELETE,
                          false)) < 0)
    return sbx_git_fail(g, rc, "%s: %s", gitdir, strerror(-rc));

  if (g->legacy) {
    /* Before issue 12: four names, only hooks/ created, nothing else. */
    for (const char *const *n = legacy; *n; n++)
      if ((rc = sbx_git_fix(g, gitdir, *n,
                            strcmp(*n, "hooks") == 0 ? SBX_GIT_CREATE_DIR : SBX_GIT_IF_PRESENT,
                            false, sbx_git_why_config, NULL)) < 0)
        return rc;
    if (depth < 2 && sbx_git_join(path, sizeof path, gitdir, "modules") == 0 &&
        lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
      DIR *d = opendir(path);
      struct dirent *de;
      char sub[PATH_MAX];
      while (d && (de = readdir(d)) && rc == 0)
        if (de->d_name[0] != '.' && sbx_git_join(sub, sizeof sub, path, de->d_name) == 0 &&
            lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
          rc = sbx_git_protect_gitdir(g, sub, false, depth + 1);
      if (d)
        closedir(d);
    }
    return rc;
  }

  /* The directory itself must not be renamed away and replaced by one
   * with a crafted config. */
  if (sbx_is_visible(g->p, gitdir) && sbx_git_writable(g->p, gitdir) &&
      !sbx_git_bound(g->p, gitdir)) {
    if ((rc = sbx_plan_mount(g->p, gitdir, SBX_MNT_BIND_RW, NULL, true, sbx_git_why_dir)) < 0)
      return sbx_git_fail(g, rc, "%s: %s", gitdir, strerror(-rc));
  }
  /* Configuration and code: always there, read-only. config.worktree is
   * read only when the (read-only) config enables extensions.worktreeConfig,
   * but a file planted now would wait for the day the user enables it
   * (`git sparse-checkout` does): it is created empty too. */
  if ((rc = sbx_git_fix(g, gitdir, "config", SBX_GIT_CREATE_FILE, false, sbx_git_why_config,
                        NULL)) < 0 ||
      (rc = sbx_git_fix(g, gitdir, "config.worktree", SBX_GIT_CREATE_FILE, false,
                        sbx_git_why_config, NULL)) < 0 ||
      (rc = sbx_git_fix(g, gitdir, "hooks", SBX_GIT_CREATE_DIR, false, sbx_git_why_config, NULL)) <
          0 ||
      /* info/attributes can select filter, diff and merge drivers (code),
       * info/exclude and info/sparse-checkout what git reads or writes. */
      (rc = sbx_git_fix(g, gitdir, "info", SBX_GIT_CREATE_DIR, false, sbx_git_why_config, NULL)) <
          0 ||
      /* Remote definitions in the old file form (URL, refspecs): where a
       * later `git push` sends the code. git never writes them. */
      (rc = sbx_git_fix(g, gitdir, "remotes", SBX_GIT_CREATE_DIR, false, sbx_git_why_config,
                        NULL)) < 0 ||
      (rc = sbx_git_fix(g, gitdir, "branches", SBX_GIT_CREATE_DIR, false, sbx_git_why_config,
                        NULL)) < 0 ||
      /* commondir names the directory git takes its configuration,
       * hooks, objects and refs from. Absent in a main or submodule git
       * directory, and then the name could be created inside pointing at
       * a crafted directory (the attack); it cannot be created
       * empty (git refuses an empty one), so it is created naming the
       * directory itself, which changes nothing for git, and fixed. */
      (rc = sbx_git_fix(g, gitdir, "commondir", SBX_GIT_CREATE_SELF_COMMONDIR, false,
                        sbx_git_why_link, NULL)) < 0)
    return rc;
  if ((rc = sbx_git_join(path, sizeof path, gitdir, "config")) < 0 ||
      (rc = sbx_git_protect_config(g, path, 0)) < 0 ||
      (rc = sbx_git_join(path, sizeof path, gitdir, "config.worktree")) < 0 ||
      (rc = sbx_git_protect_config(g, path, 0)) < 0)
    return rc == -ENAMETOOLONG ? sbx_git_fail(g, rc, "%s: name too long", gitdir) : rc;
  if ((rc = sbx_git_protect_worktrees(g, gitdir, depth)) < 0)
    return rc;
  if ((rc = sbx_git_fix(g, gitdir, "modules", SBX_GIT_IF_PRESENT, true, sbx_git_why_dir, &st)) < 0)
    return rc;
  if (S_ISDIR(st.st_mode) && sbx_git_join(path, sizeof path, gitdir, "modules") == 0 &&
      (rc = sbx_git_protect_modules(g, path, depth)) < 0)
    return rc;
  /* A submodule's git directory: its working tree's .git file. */
  if (depth > 0 && sbx_git_join(path, sizeof path, gitdir, "config") == 0)
    return sbx_git_scan(g, path, sbx_git_on_worktree_key, gitdir, depth);
  return 0;
}

/* A .git file ("gitdir: <dir>"): read-only, and the git directory it names
 * (and that one's common dir) protected. */
static int sbx_git_protect_gitfile(struct sbx_git *g, const char *dotgit, int depth)
{
  char line[PATH_MAX + 16], base[PATH_MAX], gitdir[PATH_MAX], common[PATH_MAX], file[PATH_MAX];
  const char *slash = strrchr(dotgit, '/');
  int rc;
  if (depth > SBX_GIT_MAX_DEPTH)
    return sbx_git_fail(g, -ELOOP, "%s: nested more than %d deep: refused", dotgit,
                        SBX_GIT_MAX_DEPTH);
  if (!slash)
    return sbx_git_fail(g, -EINVAL, "%s: not absolute", dotgit);
  snprintf(base, sizeof base, "%.*s", (int)(slash - dotgit), dotgit);
  if (!g->legacy && sbx_git_bound(g->p, dotgit))
    return 0; /* done already (a submodule is reached from its git directory and back) */
  if (!g->legacy &&
      (rc = sbx_git_fix(g, base, ".git", SBX_GIT_IF_PRESENT, false, sbx_git_why_link, NULL)) < 0)
    return rc;
  if (sbx_git_first_line(g->p, dotgit, line, sizeof line) < 0 || strncmp(line, "gitdir: ", 8) != 0)
    return 0; /* not a link git follows: git refuses it too */
  if (sbx_git_resolve(base, line + 8, gitdir) < 0) {
    char named[PATH_MAX];
    bool fits = line[8] == '/' ? strlen(line + 8) < sizeof named
                               : sbx_git_join(named, sizeof named, base, line + 8) == 0;
    if (fits && line[8] == '/')
      memcpy(named, line + 8, strlen(line + 8) + 1);
    if (g->legacy || (fits && !sbx_git_creatable(g->p, named)))
      return 0; /* the host's git finds no repository there either */
    return sbx_git_fail(g, -ENOENT,
                        "%s names the git directory '%s', which does not exist and could be "
                        "created inside: refused",
                        dotgit, line + 8);
  }
  /* Its common dir (objects, refs, config) is named by its commondir. */
  snprintf(common, sizeof common, "%s", gitdir);
  if (sbx_git_join(file, sizeof file, gitdir, "commondir") == 0 &&
      sbx_git_first_line(g->p, file, line, sizeof line) == 0 && line[0] &&
      sbx_git_resolve(gitdir, line, common) < 0)
    snprintf(common, sizeof common, "%s", gitdir);
  if ((rc = sbx_git_protect_gitdir(g, common, true, depth)) < 0)
    return rc;
  /* A linked worktree's own directory: usually common/worktrees/NAME,
   * covered above; wherever it is, it is in the view and fixed. */
  if (strcmp(common, gitdir) != 0 && !g->legacy) {
    if (!sbx_is_visible(g->p, gitdir) &&
        (rc = sbx_plan_mount(g->p, gitdir, SBX_MNT_BIND_RW, NULL, true, sbx_git_why_common)) < 0)
      return sbx_git_fail(g, rc, "%s: %s", gitdir, strerror(-rc));
    if ((rc = sbx_plan_rule(g->p, gitdir, SBX_LL_FS_READ | SBX_LL_FS_WRITE | SBX_LL_FS_DELETE,
                            false)) < 0)
      return sbx_git_fail(g, rc, "%s: %s", gitdir, strerror(-rc));
    rc = sbx_git_protect_linked(g, gitdir, depth);
  } else if (strcmp(common, gitdir) != 0)
    rc = sbx_git_protect_gitdir(g, gitdir, true, depth);
  return rc;
}

int sbx_plan_git(struct sbx_plan *p, const char *home, bool legacy, char *err, size_t err_len)
{
  struct sbx_git g = { .p = p, .home = home, .legacy = legacy, .err = err, .err_len = err_len };
  char dotgit[PATH_MAX];
  struct stat st;
  int rc;
  if (sbx_git_join(dotgit, sizeof dotgit, p->workspace, ".git") < 0)
    return sbx_git_fail(&g, -ENAMETOOLONG, "%s/.git: name too long", p->workspace);
  sbx_probe(p, dotgit, SBX_PROBE_STAT);
  if (lstat(dotgit, &st) < 0)
    return 0; /* not a repository's top (docs/threat-model.md: nested repositories) */
  if (S_ISLNK(st.st_mode))
    return sbx_git_fail(&g, -ELOOP, "%s is a symlink: refused (its target could be written inside)",
                        dotgit);
  if (S_ISDIR(st.st_mode))
    rc = sbx_git_protect_gitdir(&g, dotgit, false, 0);
  else if (S_ISREG(st.st_mode))
    rc = sbx_git_protect_gitfile(&g, dotgit, 0);
  else
    rc = sbx_git_fail(&g, -EINVAL, "%s is neither a file nor a directory: refused", dotgit);
  return rc;
}
