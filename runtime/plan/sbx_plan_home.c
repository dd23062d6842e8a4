/* sbx_plan_home: the sandbox's home (docs/confinement.md, "Home").
 *
 * HOME inside is SBX_SANDBOX_HOME, on the sandbox's private /tmp, fresh
 * every run. Below it the profile's homeReadOnly names are bound read-only
 * from the real home, and its homePersistent directories read-write from
 * a directory kept between runs:
 *
 *   $XDG_STATE_HOME (else ~/.local/state)/commander-sandbox/home/<profile>
 *
 * Whose home: the caller's, the home `~` in the profile's denied paths
 * means (sbx_plan_build_ex: $HOME, else the caller's passwd entry). When
 * sbx is root and the command runs as the workspace's owner or nobody
 * (sbx_plan_identity.c), the person who ran sbx is still the one the
 * sandbox works for: their identity commits. Persistent directories are
 * the command's identity's own, though: below <profile> in uid-<N>, owned
 * by N, so one identity's caches never feed another's (directly in
 * <profile> when N owns the state directory: sudo keeping a user's HOME).
 *
 * What is never shown: a listed name that resolves (through symlinks)
 * outside the real home, into a denied path or onto one that holds a
 * denied path is skipped with a note; a persistent directory that is a
 * symlink, another user's, or writable by group or others refuses the run.
 * The binds themselves are made without following symlinks and only onto
 * the very objects planned (sbx_mount.c: dev and ino), so a change between
 * planning and mounting (another run of the same profile replacing its
 * cache directory with a symlink) refuses the run instead of leading out. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sbx_fail.h"
#include "sbx_plan_parts.h"

static void sbx_home_note(struct sbx_plan *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Appends "; "-separated notes; a note that does not fit ends in "...". */
static void sbx_home_note(struct sbx_plan *p, const char *fmt, ...)
{
  size_t len = strlen(p->home_notes), cap = sizeof p->home_notes;
  va_list ap;
  if (len + 8 >= cap)
    return;
  if (len)
    len += (size_t)snprintf(p->home_notes + len, cap - len, "; ");
  va_start(ap, fmt);
  int n = vsnprintf(p->home_notes + len, cap - len, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= cap - len)
    memcpy(p->home_notes + cap - 4, "...", 4);
}

/* Does resolved `real` lie in a resolved denied path, or hold one? */
static int sbx_home_denied(const struct sbx_plan *p, char *const *dreal, const char *real)
{
  for (uint32_t i = 0; i < p->profile->n_denied_paths; i++)
    if (dreal[i] && (sbx_path_under(real, dreal[i]) || sbx_path_under(dreal[i], real)))
      return (int)i;
  return -1;
}

static int sbx_home_fail(struct sbx_fail *f, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int sbx_home_fail(struct sbx_fail *f, int rc, const char *fmt, ...)
{
  char msg[PATH_MAX + 256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  sbx_fail_set(f, SBX_LAYER_MOUNT, -rc, "home: %s", msg);
  return rc;
}

/* Adds the bind of host `source` (resolved, lstat'ed as *st) at the
 * sandbox's home path for "~/rel". */
static int sbx_home_bind(struct sbx_plan *p, const char *rel, const char *source,
                         const struct stat *st, bool rw, const char *why)
{
  char inside[PATH_MAX];
  if (snprintf(inside, sizeof inside, "%s/%s", SBX_SANDBOX_HOME, rel) >= (int)sizeof inside)
    return -ENAMETOOLONG;
  int rc = sbx_plan_mount(p, inside, rw ? SBX_MNT_BIND_RW : SBX_MNT_BIND_RO, NULL,
                          S_ISDIR(st->st_mode), why);
  if (rc < 0)
    return rc;
  struct sbx_mount_entry *e = &p->mounts[p->n_mounts - 1];
  if (!(e->source = strdup(source)))
    return -ENOMEM;
  e->dev = st->st_dev;
  e->ino = st->st_ino;
  return 0;
}

/* The profile's read-only names of the real home. */
static int sbx_home_read_only(struct sbx_plan *p, char *const *dreal, struct sbx_fail *f)
{
  const struct cs_profile *prof = p->profile;
  char host[PATH_MAX], real[PATH_MAX];
  struct stat st;
  int rc;
  for (uint32_t i = 0; i < prof->n_home_read_only; i++) {
    const struct cs_path_rule *r = &prof->home_read_only[i];
    /* pnetc only emits "~/rel"; a hand-written table that says otherwise
     * is refused rather than guessed at. */
    if (strncmp(r->path, "~/", 2) != 0 || strstr(r->path, "/.."))
      return sbx_home_fail(f, -EINVAL, "read-only path '%s' (%s) is not below ~/", r->path,
                           r->origin ? r->origin : "?");
    if (snprintf(host, sizeof host, "%s/%s", p->home_real, r->path + 2) >= (int)sizeof host)
      return sbx_home_fail(f, -ENAMETOOLONG, "%s: path too long", r->path);
    sbx_probe(p, host, SBX_PROBE_RESOLVE);
    if (!realpath(host, real))
      continue; /* missing (or a dangling link): nothing to show */
    /* Through a symlink (a dotfiles checkout) the name may lead anywhere:
     * only inside the real home, and never to or over a denied path. */
    if (!sbx_path_under(real, p->home_real) || strcmp(real, p->home_real) == 0) {
      sbx_home_note(p, "%s skipped: resolves to %s, outside the home", r->path, real);
      continue;
    }
    int d = sbx_home_denied(p, dreal, real);
    if (d >= 0) {
      sbx_home_note(p, "%s skipped: resolves to %s, which meets denied path %s", r->path, real,
                    prof->denied_paths[d].path);
      continue;
    }
    if (p->home_state &&
        (sbx_path_under(real, p->home_state) || sbx_path_under(p->home_state, real))) {
      sbx_home_note(p, "%s skipped: resolves into the persistent home", r->path);
      continue;
    }
    sbx_probe(p, real, SBX_PROBE_STAT);
    if (lstat(real, &st) < 0)
      continue;
    if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
      sbx_home_note(p, "%s skipped: not a file or directory", r->path);
      continue;
    }
    /* A file with another name (a hard link) may be a denied file under
     * an innocent name: resolving names cannot tell, so it is not shown. */
    if (S_ISREG(st.st_mode) && st.st_nlink > 1) {
      sbx_home_note(p, "%s skipped: a file with %lu names (hard links)", r->path,
                    (unsigned long)st.st_nlink);
      continue;
    }
    if ((rc = sbx_home_bind(p, r->path + 2, real, &st, false, "home (read-only)")) < 0)
      return sbx_home_fail(f, rc, "%s: %s", r->path, strerror(-rc));
  }
  return 0;
}

/* Opens (creating, mode 0700, owned by uid:gid) the directory `name` in
 * `dirfd`, never through a symlink, and checks that it is a directory
 * `uid` owns that neither group nor others may write: any other state
 * means someone else could have prepared what the sandbox would keep. */
static int sbx_home_dir_at(int dirfd, const char *name, uid_t uid, gid_t gid, bool chown_new,
                           const char *shown, struct sbx_fail *f)
{
  struct stat st;
  bool made = mkdirat(dirfd, name, 0700) == 0;
  if (!made && errno != EEXIST)
    return sbx_home_fail(f, -errno, "cannot create %s: %s", shown, strerror(errno));
  int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return sbx_home_fail(f, -errno, "%s: %s%s", shown, strerror(errno),
                         errno == ELOOP || errno == ENOTDIR ? " (a symlink or not a directory)"
                                                            : "");
  if (made && chown_new && fchown(fd, uid, gid) < 0) {
    int e = errno;
    close(fd);
    return sbx_home_fail(f, -e, "chown %s: %s", shown, strerror(e));
  }
  if (fstat(fd, &st) < 0) {
    int e = errno;
    close(fd);
    return sbx_home_fail(f, -e, "%s: %s", shown, strerror(e));
  }
  if (st.st_uid != uid || (st.st_mode & 022)) {
    close(fd);
    return sbx_home_fail(f, -EPERM,
                         "%s is owned by uid %u with mode %04o: it must be uid %u's and "
                         "not writable by group or others",
                         shown, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777), (unsigned)uid);
  }
  return fd;
}

/* The directory the persistent paths are kept in, made and checked
 * component by component from the state directory down. 0 with
 * p->home_state set; 1: nothing is kept (noted); or a negative errno. */
static int sbx_home_state(struct sbx_plan *p, const char *ws, char *const *dreal,
                          struct sbx_fail *f)
{
  /* A warm template (p->record) is planned by the server, whose
   * environment is not the client's: from the client's HOME only (the
   * client runs cold when its XDG_STATE_HOME is set: runtime/warm). */
  const char *xdg = p->record ? NULL : getenv("XDG_STATE_HOME");
  char base[PATH_MAX], real[PATH_MAX], dir[PATH_MAX + 64];
  struct stat st;
  int fd, next;
  /* XDG: a relative $XDG_STATE_HOME is to be ignored. */
  if (xdg && xdg[0] == '/')
    snprintf(base, sizeof base, "%s", xdg);
  else if (snprintf(base, sizeof base, "%s/.local/state", p->home_real) >= (int)sizeof base)
    return sbx_home_fail(f, -ENAMETOOLONG, "state directory: path too long");
  /* Nothing is made in the workspace, not even the state directory (the
   * resolved check below catches the same through symlinks). */
  if (sbx_path_under(base, ws) || sbx_path_under(ws, base)) {
    sbx_home_note(p, "nothing kept: the state directory %s would overlap the workspace", base);
    return 1;
  }
  /* The state directory itself is the user's to place (it may be a
   * symlink to another disk); made 0700 when missing, like XDG says. */
  for (char *s = base + 1; *s; s++)
    if (*s == '/') {
      *s = '\0';
      (void)mkdir(base, 0700);
      *s = '/';
    }
  (void)mkdir(base, 0700);
  if (!realpath(base, real) || stat(real, &st) < 0 || !S_ISDIR(st.st_mode))
    return sbx_home_fail(f, -ENOENT, "state directory %s does not resolve to a directory", base);
  /* Yours, root's, or (sbx as root, the command as the home's user: sudo
   * keeping HOME) the command's identity's; never anyone else's. */
  if ((st.st_uid != p->uid && st.st_uid != 0 && st.st_uid != p->run_uid) || (st.st_mode & 022))
    return sbx_home_fail(f, -EPERM,
                         "state directory %s is owned by uid %u with mode %04o: it must be "
                         "yours (or the command's identity's) and not writable by group or others",
                         real, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
  /* Who the directories below belong to: the state directory's owner. */
  uid_t owner = st.st_uid;
  gid_t owner_gid = st.st_gid;
  snprintf(dir, sizeof dir, "%s/commander-sandbox/home/%s", real, p->profile->name);
  /* The command's identity keeps its own below <profile> unless it owns
   * the state directory anyway. */
  bool per_identity = p->run_uid != owner;
  if (per_identity)
    snprintf(dir + strlen(dir), sizeof dir - strlen(dir), "/uid-%u", (unsigned)p->run_uid);
  if (strlen(dir) >= PATH_MAX)
    return sbx_home_fail(f, -ENAMETOOLONG, "persistent home: path too long");
  /* Never in the workspace: the command would reach its caches there
   * (and a repository would carry them), nor around it, nor in a denied
   * path.
   * Nothing is kept then (the run still happens, with a fresh home, and
   * the note says why): a workspace that is the home itself is a use
   * sbx serves. */
  if (sbx_path_under(dir, ws) || sbx_path_under(ws, dir)) {
    sbx_home_note(p, "nothing kept: the persistent home %s would overlap the workspace", dir);
    return 1;
  }
  int d = sbx_home_denied(p, dreal, dir);
  if (d >= 0) {
    sbx_home_note(p, "nothing kept: the persistent home %s meets denied path %s", dir,
                  p->profile->denied_paths[d].path);
    return 1;
  }
  sbx_probe(p, base, SBX_PROBE_RESOLVE);
  fd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return sbx_home_fail(f, -errno, "%s: %s", real, strerror(errno));
  char uid_dir[32];
  snprintf(uid_dir, sizeof uid_dir, "uid-%u", (unsigned)p->run_uid);
  const char *parts[] = { "commander-sandbox", "home", p->profile->name, uid_dir };
  size_t n_parts = per_identity ? 4 : 3;
  char shown[PATH_MAX + 64];
  snprintf(shown, sizeof shown, "%s", real);
  for (size_t i = 0; i < n_parts; i++) {
    bool own = i == 3; /* the command's identity's own directory */
    uid_t want = own ? p->run_uid : owner;
    next =
        sbx_home_dir_at(fd, parts[i], want, own ? p->run_gid : owner_gid, want != p->uid, dir, f);
    close(fd);
    if (next < 0)
      return next;
    fd = next;
    /* A warm template keeps these binds: a directory replaced later
     * (dev, ino) makes it stale (sbx_plan_fresh). */
    snprintf(shown + strlen(shown), sizeof shown - strlen(shown), "/%s", parts[i]);
    sbx_probe(p, shown, SBX_PROBE_STAT);
  }
  close(fd);
  if (!(p->home_state = strdup(dir)))
    return sbx_home_fail(f, -ENOMEM, "out of memory");
  return 0;
}

/* The profile's persistent directories, each below the persistent home,
 * made there component by component, owned by the command's identity. */
static int sbx_home_persistent(struct sbx_plan *p, struct sbx_fail *f)
{
  const struct cs_profile *prof = p->profile;
  char rel[PATH_MAX], host[PATH_MAX * 2];
  struct stat st;
  for (uint32_t i = 0; i < prof->n_home_persistent; i++) {
    const struct cs_path_rule *r = &prof->home_persistent[i];
    if (strncmp(r->path, "~/", 2) != 0 || strstr(r->path, "/..") || strstr(r->path, "/./") ||
        snprintf(rel, sizeof rel, "%s", r->path + 2) >= (int)sizeof rel)
      return sbx_home_fail(f, -EINVAL, "persistent path '%s' (%s) is not below ~/", r->path,
                           r->origin ? r->origin : "?");
    int fd = open(p->home_state, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
      return sbx_home_fail(f, -errno, "%s: %s", p->home_state, strerror(errno));
    snprintf(host, sizeof host, "%s/%s", p->home_state, rel);
    for (char *c = rel, *end; c && *c; c = end ? end + 1 : NULL) {
      if ((end = strchr(c, '/')))
        *end = '\0';
      int next = sbx_home_dir_at(fd, c, p->run_uid, p->run_gid, true, host, f);
      char step[PATH_MAX * 2];
      snprintf(step, sizeof step, "%s/%s", p->home_state, rel);
      if (end)
        *end = '/';
      close(fd);
      if (next < 0)
        return next;
      fd = next;
      sbx_probe(p, step, SBX_PROBE_STAT);
    }
    int src = fstat(fd, &st);
    close(fd);
    if (src < 0)
      return sbx_home_fail(f, -errno, "%s: %s", host, strerror(errno));
    int rc = sbx_home_bind(p, r->path + 2, host, &st, true, SBX_MOUNT_WHY_HOME_KEPT);
    if (rc < 0)
      return sbx_home_fail(f, rc, "%s: %s", r->path, strerror(-rc));
  }
  return 0;
}

/* The table's own promise, checked again by name (pnetc refuses it; a
 * hand-written table is held to it): no home path is, holds or lies in a
 * denied path written with ~. */
static int sbx_home_names_denied(const struct cs_profile *prof, const struct cs_path_rule *list,
                                 uint32_t n, struct sbx_fail *f)
{
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t k = 0; k < prof->n_denied_paths; k++) {
      const char *dn = prof->denied_paths[k].path;
      if (dn[0] == '~' && (sbx_path_under(list[i].path, dn) || sbx_path_under(dn, list[i].path)))
        return sbx_home_fail(f, -EACCES, "home path '%s' (%s) overlaps denied path '%s' (%s)",
                             list[i].path, list[i].origin ? list[i].origin : "?", dn,
                             prof->denied_paths[k].origin ? prof->denied_paths[k].origin : "?");
    }
  return 0;
}

int sbx_plan_home(struct sbx_plan *p, const char *home, const char *ws, char *const *dreal,
                  struct sbx_fail *f)
{
  char real[PATH_MAX];
  const struct cs_profile *prof = p->profile;
  int rc;
  if (prof->n_home_read_only == 0 && prof->n_home_persistent == 0)
    return 0;
  if ((rc = sbx_home_names_denied(prof, prof->home_read_only, prof->n_home_read_only, f)) < 0 ||
      (rc = sbx_home_names_denied(prof, prof->home_persistent, prof->n_home_persistent, f)) < 0)
    return rc;
  if (!home || home[0] != '/' || !realpath(home, real) || strcmp(real, "/") == 0) {
    /* No home to take from (or "/", which would make "~/x" any path). */
    sbx_home_note(p, "no home directory: nothing of it shown or kept");
    return 0;
  }
  if (!(p->home_real = strdup(real)))
    return sbx_home_fail(f, -ENOMEM, "out of memory");
  /* A profile that cannot write keeps nothing (pnetc refuses the
   * combination; a hand-written table is held to it here too). */
  if (prof->n_home_persistent && !prof->allow_file_write)
    return sbx_home_fail(f, -EINVAL, "profile %s keeps paths but allows no writes", prof->name);
  if (prof->n_home_persistent) {
    if ((rc = sbx_home_state(p, ws, dreal, f)) < 0 ||
        (rc == 0 && (rc = sbx_home_persistent(p, f)) < 0))
      return rc;
  }
  return sbx_home_read_only(p, dreal, f);
}
