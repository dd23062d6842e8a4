/* sbx_watch: vouches that a warm template's recorded facts (its probes,
 * sbx_plan_fresh) still hold without probing them again, which takes the
 * freshness check off the warm run's path (docs/sbx.md "Staleness").
 *
 * What a probe records is decided by the entries of the directories its
 * path resolution looks names up in, by the attributes of a probed
 * directory itself (a LIST probe: its listing and times), and by the mount
 * table. The kernel queues an inotify event inside the very system call
 * that changes a watched directory's entries or attributes, before the call
 * returns; so once a client's request has arrived, every such change made
 * before the client sent it can be read here. Mount-table changes are
 * sbx_serve's (mountinfo, POLLPRI), checked at every request.
 *
 * Arming (sbx_watch_plan, then sbx_serve): every directory the probes'
 * resolutions look up in is watched, the epoch read before and after must
 * be equal (a directory swapped while we walked would leave a watch on the
 * old one), and the full check must then pass: only then does the epoch
 * vouch for the template. Any event on any watch afterwards (the templates'
 * sets overlap; one epoch keeps it simple), a queue overflow or a read
 * error ends all vouching: the next request of each template runs the full
 * check again and re-arms.
 *
 * Not vouched, checked at every request as before: a LIST probe of
 * anything but a directory (a file's content: a write through a shared
 * mapping changes it without an event). Never armed: a template with a
 * directory on a file system whose changes may bypass this kernel's VFS
 * (network file systems change on the server's side, overlayfs does not
 * report changes made to its layers directly, /proc and sysfs never
 * report), or a path the walk cannot follow (too long, a symlink loop).
 *
 * Errors: negative errno (-EXDEV: a directory on a file system not
 * watched; -ELOOP, -ENAMETOOLONG, -EINVAL: a relative path; what
 * inotify_add_watch said, e.g. -ENOSPC when out of watches). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "sbx_watch.h"

/* Entries added, removed or renamed, and attribute changes (of the
 * directory and, reported by the kernel on the directory's watch, of each
 * entry); the directory itself deleted or moved. Not IN_MODIFY: no fact of
 * a vouched probe is a file's content. */
#define SBX_WATCH_MASK                                                                             \
  (IN_ATTRIB | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF |              \
   IN_MOVE_SELF | IN_ONLYDIR)

/* As the kernel's path walk: at most 40 symlinks per resolution. */
#define SBX_WATCH_MAX_LINKS 40

/* Directories watched in one arming pass, by name (the pass is void if
 * anything changed meanwhile, so a name stands for one directory). */
#define SBX_WATCH_PASS_DIRS 256

struct sbx_watch_pass {
  struct sbx_watch *w;
  char *seen[SBX_WATCH_PASS_DIRS];
  size_t n_seen;
};

void sbx_watch_init(struct sbx_watch *w)
{
  w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  w->epoch = 1;
}

void sbx_watch_fini(struct sbx_watch *w)
{
  if (w->fd >= 0)
    close(w->fd);
  w->fd = -1;
  w->epoch = 0;
}

uint64_t sbx_watch_epoch(struct sbx_watch *w)
{
  /* Large enough for a burst; struct inotify_event is int-aligned. */
  union {
    struct inotify_event ev;
    char buf[4096];
  } u;
  bool any = false;
  if (w->fd < 0)
    return 0;
  for (;;) {
    ssize_t n = read(w->fd, u.buf, sizeof u.buf);
    if (n > 0) {
      any = true;
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && errno == EAGAIN)
      break;
    /* Anything else (EOF cannot happen): we no longer know what changed,
     * so nothing is ever vouched for again. */
    sbx_watch_fini(w);
    return 0;
  }
  if (any)
    w->epoch++;
  return w->epoch;
}

/* File systems where every change to a directory passes through this
 * kernel's VFS and so reaches inotify. */
static bool sbx_watch_fs_ok(unsigned long type)
{
  switch (type) {
  case EXT4_SUPER_MAGIC: /* also ext2 and ext3 */
  case XFS_SUPER_MAGIC:
  case BTRFS_SUPER_MAGIC:
  case F2FS_SUPER_MAGIC:
  case TMPFS_MAGIC: /* also devtmpfs */
  case RAMFS_MAGIC:
    return true;
  default:
    return false;
  }
}

/* Watches directory `dir` (an absolute path without symlinks), once per
 * pass. The file system is read from the very directory watched: the
 * watch is placed through the descriptor statfs looked at. */
static int sbx_watch_dir(struct sbx_watch_pass *ps, const char *dir)
{
  char proc[64];
  struct statfs sf;
  int fd, rc = 0;
  for (size_t i = 0; i < ps->n_seen; i++)
    if (strcmp(ps->seen[i], dir) == 0)
      return 0;
  if (ps->n_seen == SBX_WATCH_PASS_DIRS)
    return -ENOSPC;
  fd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  if (fstatfs(fd, &sf) < 0)
    rc = -errno;
  else if (!sbx_watch_fs_ok((unsigned long)sf.f_type))
    rc = -EXDEV;
  else {
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    if (inotify_add_watch(ps->w->fd, proc, SBX_WATCH_MASK) < 0)
      rc = -errno;
  }
  close(fd);
  if (rc == 0 && !(ps->seen[ps->n_seen] = strdup(dir)))
    rc = -ENOMEM;
  if (rc == 0)
    ps->n_seen++;
  return rc;
}

/* Walks `path` as the kernel resolves it, one component at a time,
 * watching each directory a name is looked up in (symlink targets
 * included: a directory reached only through a link's target counts as
 * much as the path's own). follow_last: the last component's symlink is
 * followed (realpath) or not (lstat). watch_last: the object at the end is
 * watched too, when it is a directory. A missing component ends the walk:
 * its creation is an event in the directory watched last. */
static int sbx_watch_path(struct sbx_watch_pass *ps, const char *path, bool follow_last,
                          bool watch_last)
{
  char cur[PATH_MAX] = "", rest[2 * PATH_MAX], next[PATH_MAX], link[PATH_MAX], tmp[2 * PATH_MAX];
  const char *r;
  int links = 0, rc;

  if (path[0] != '/')
    return -EINVAL;
  if (snprintf(rest, sizeof rest, "%s", path) >= (int)sizeof rest)
    return -ENAMETOOLONG;
  r = rest;
  for (;;) {
    struct stat st;
    size_t len;
    bool last;
    while (*r == '/')
      r++;
    if (!*r)
      break;
    len = strcspn(r, "/");
    last = r[len] == '\0'; /* a trailing slash follows, as the kernel does */
    if (len == 1 && r[0] == '.') {
      r += len;
      continue;
    }
    if (len == 2 && r[0] == '.' && r[1] == '.') {
      char *slash = strrchr(cur, '/');
      if (slash)
        *slash = '\0'; /* "/.." stays at the root */
      r += len;
      continue;
    }
    if ((rc = sbx_watch_dir(ps, cur[0] ? cur : "/")) < 0)
      return rc;
    if (snprintf(next, sizeof next, "%s/%.*s", cur, (int)len, r) >= (int)sizeof next)
      return -ENAMETOOLONG;
    r += len;
    if (lstat(next, &st) < 0)
      return errno == ENOENT || errno == ENOTDIR || errno == EACCES ? 0 : -errno;
    if (S_ISLNK(st.st_mode) && (!last || follow_last)) {
      ssize_t n;
      if (++links > SBX_WATCH_MAX_LINKS)
        return -ELOOP;
      n = readlink(next, link, sizeof link - 1);
      if (n < 0)
        return -errno;
      link[n] = '\0';
      /* The target, then what was left of the path, resolved from the
       * link's directory (or the root). */
      if (snprintf(tmp, sizeof tmp, "%s/%s", link, r) >= (int)sizeof tmp ||
          snprintf(rest, sizeof rest, "%s", tmp) >= (int)sizeof rest)
        return -ENAMETOOLONG;
      r = rest;
      if (link[0] == '/')
        cur[0] = '\0';
      continue;
    }
    if (last) {
      if (watch_last && S_ISDIR(st.st_mode))
        return sbx_watch_dir(ps, next);
      return 0;
    }
    if (!S_ISDIR(st.st_mode))
      return 0; /* the rest fails with ENOTDIR; replacing it is an event here */
    snprintf(cur, sizeof cur, "%s", next);
  }
  /* The path ended at a directory ("/", or after "." / ".." / a slash). */
  return watch_last ? sbx_watch_dir(ps, cur[0] ? cur : "/") : 0;
}

int sbx_watch_plan(struct sbx_watch *w, struct sbx_plan *p)
{
  struct sbx_watch_pass ps = { .w = w };
  int rc = 0;
  if (w->fd < 0)
    return -EBADF;
  for (size_t i = 0; i < p->n_probes && rc == 0; i++) {
    struct sbx_probe *pr = &p->probes[i];
    bool file_content = pr->kind == SBX_PROBE_LIST && pr->exists && pr->type != S_IFDIR;
    pr->watched = false;
    rc = sbx_watch_path(&ps, pr->path, pr->kind == SBX_PROBE_RESOLVE, pr->kind == SBX_PROBE_LIST);
    pr->watched = rc == 0 && !file_content;
  }
  for (size_t i = 0; i < ps.n_seen; i++)
    free(ps.seen[i]);
  return rc;
}
