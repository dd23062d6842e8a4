/* sbx_mount: the sandbox's private root view. Runs as pid 1 of the new
 * mount + pid namespaces, replaying the plan computed by sbx_plan.c.
 *
 * Layout (docs/confinement.md, "Mount layout"):
 *   /            tmpfs, read-only once built (nothing can be created at /)
 *   /usr, /lib*  read-only, nosuid, nodev binds (recursive); /bin etc. as
 *                the host has them (symlinks into /usr on Debian 12)
 *   /etc/...     a few read-only entries, never the whole of /etc
 *   workspace    at its own absolute path, read-write only if allowed
 *   /proc        a new procfs of the sandbox's pid namespace; /proc/sys,
 *                /proc/sysrq-trigger, /proc/irq, /proc/bus read-only
 *   /dev         tmpfs with null, zero, full, random, urandom, shm
 *   /tmp         private tmpfs (read-only when the profile cannot write);
 *                the directories made on it to reach an entry below it
 *                (/tmp/a of a workspace /tmp/a/ws) read-only
 *   masks        empty 0000 files / empty 0000 tmpfs over denied paths and,
 *                for CS_SHELL_NONE, over every shell binary.
 * The host root is reached during the build as /oldroot (after a first
 * pivot onto a scratch tmpfs), then detached, so no path leads back. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sbx_mount.h"

#define SBX_OLD "/oldroot"
#define SBX_NEW "/newroot"
#define SBX_EMPTY "/empty"
/* A template's view keeps an empty 0000 file for the masks of each run's
 * /proc (mode 0000, on the read-only root: nothing can be read from it). */
#define SBX_EMPTY_KEPT "/.sbx-empty"

/* mount_setattr, so read-only applies to every submount of a recursive
 * bind too (MS_REMOUNT|MS_RDONLY would only change the top one, leaving,
 * e.g., a writable filesystem mounted under /usr writable). */
static int sbx_setattr(const char *path, uint64_t set, bool recursive)
{
  struct sbx_mount_attr a = { .attr_set = set };
  if (syscall(SYS_mount_setattr, AT_FDCWD, path, recursive ? AT_RECURSIVE : 0, &a, sizeof a) < 0)
    return -errno;
  return 0;
}

/* Records errno against the step `what` and returns it negated. */
static int sbx_mount_errno(struct sbx_fail *f, const char *what)
{
  int e = errno;
  sbx_fail_set(f, SBX_LAYER_MOUNT, e, "%s: %s", what, strerror(e));
  return -e;
}

static int sbx_mkdirs(char *path, mode_t mode)
{
  for (char *s = path + 1; *s; s++) {
    if (*s != '/')
      continue;
    *s = '\0';
    if (mkdir(path, mode) < 0 && errno != EEXIST) {
      *s = '/';
      return -errno;
    }
    *s = '/';
  }
  if (mkdir(path, mode) < 0 && errno != EEXIST)
    return -errno;
  return 0;
}

/* Makes sure the mount point exists in the new root (a directory or an
 * empty file, like the source). */
static int sbx_mountpoint(const char *dst, bool is_dir)
{
  char tmp[PATH_MAX];
  struct stat st;
  int fd, rc;
  if (lstat(dst, &st) == 0)
    return 0;
  if (snprintf(tmp, sizeof tmp, "%s", dst) >= (int)sizeof tmp)
    return -ENAMETOOLONG;
  if (is_dir)
    return sbx_mkdirs(tmp, 0755);
  *strrchr(tmp, '/') = '\0';
  if ((rc = sbx_mkdirs(tmp, 0755)) < 0)
    return rc;
  fd = open(dst, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0444);
  if (fd < 0)
    return -errno;
  close(fd);
  return 0;
}

/* The mount point of a bind below the sandbox's home (root: SBX_NEW while
 * building, "" in a warm run's fresh /tmp): the directories on the way
 * are the command's own, 0700, like the home itself (sbx_mount_tmp), or
 * it could not create anything beside the bound names (~/.config/git
 * bound, ~/.config/foo written by a tool). */
static int sbx_home_mountpoint(const char *root, const char *path, bool is_dir,
                               const struct sbx_plan *plan)
{
  char dst[PATH_MAX];
  struct stat st;
  size_t skip;
  if (snprintf(dst, sizeof dst, "%s%s", root, path) >= (int)sizeof dst)
    return -ENAMETOOLONG;
  /* From the home itself on: a template's view has no private /tmp, so
   * no home yet either. */
  skip = strlen(root) + strlen("/tmp");
  _Static_assert(sizeof SBX_SANDBOX_HOME > sizeof "/tmp/", "the home is below /tmp");
  for (char *s = dst + skip + 1; *s; s++) {
    if (*s != '/')
      continue;
    *s = '\0';
    if (mkdir(dst, 0700) == 0) {
      if (plan->run_as && chown(dst, plan->run_uid, plan->run_gid) < 0) {
        *s = '/';
        return -errno;
      }
    } else if (errno != EEXIST || lstat(dst, &st) < 0 || !S_ISDIR(st.st_mode)) {
      *s = '/';
      return errno == EEXIST ? -ENOTDIR : -errno;
    }
    *s = '/';
  }
  if (lstat(dst, &st) == 0)
    return 0;
  if (is_dir)
    return mkdir(dst, 0700) < 0 ? -errno : 0;
  int fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0444);
  if (fd < 0)
    return -errno;
  close(fd);
  return 0;
}

/* A bind of the sandbox's home (source set, sbx_plan_home.c): the source
 * opened without following any symlink, checked to be the object planned,
 * and bound from that descriptor, so nothing changed between planning and
 * now (a cache directory swapped for a symlink by another run) can lead
 * the bind elsewhere. */
static int sbx_bind_home(const struct sbx_plan *plan, const struct sbx_mount_entry *e,
                         const char *root, uint64_t attrs)
{
  char src[PATH_MAX], dst[PATH_MAX];
  struct stat st;
  int fd, tree, rc;
  if (snprintf(src, sizeof src, "%s%s", root[0] ? SBX_OLD : "", e->source) >= (int)sizeof src ||
      snprintf(dst, sizeof dst, "%s%s", root, e->path) >= (int)sizeof dst)
    return -ENAMETOOLONG;
  if ((rc = sbx_home_mountpoint(root, e->path, e->is_dir, plan)) < 0)
    return rc;
  struct open_how how = { .flags = O_PATH | O_CLOEXEC | O_NOFOLLOW,
                          .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
  fd = (int)syscall(SYS_openat2, AT_FDCWD, src, &how, sizeof how);
  if (fd < 0)
    return errno == ELOOP ? -ESTALE : -errno;
  if (fstat(fd, &st) < 0 || st.st_dev != e->dev || st.st_ino != e->ino ||
      (bool)S_ISDIR(st.st_mode) != e->is_dir) {
    close(fd);
    return -ESTALE;
  }
  tree = (int)syscall(SYS_open_tree, fd, "",
                      SBX_OPEN_TREE_CLONE | AT_EMPTY_PATH | AT_RECURSIVE | O_CLOEXEC);
  close(fd);
  if (tree < 0)
    return -errno;
  rc = (int)syscall(SYS_move_mount, tree, "", AT_FDCWD, dst, SBX_MOVE_MOUNT_F_EMPTY_PATH);
  close(tree);
  if (rc < 0)
    return -errno;
  return sbx_setattr(dst, attrs | SBX_MOUNT_ATTR_NOSUID | SBX_MOUNT_ATTR_NODEV, true);
}

static int sbx_bind(const char *src, const char *dst, bool is_dir, uint64_t attrs,
                    const struct sbx_plan *idmap)
{
  int rc = sbx_mountpoint(dst, is_dir);
  if (rc < 0)
    return rc;
  /* root's workspace, for a command that is not root (sbx_idmap.c). */
  if (idmap)
    return sbx_bind_idmapped(src, dst, attrs | SBX_MOUNT_ATTR_NOSUID | SBX_MOUNT_ATTR_NODEV,
                             idmap->run_uid, idmap->run_gid, SBX_OLD "/proc");
  if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) < 0)
    return -errno;
  /* nosuid and nodev always: no_new_privs already neutralises set-uid
   * files, this is the second lock; nodev stops device nodes planted on a
   * writable bind from reaching hardware. */
  return sbx_setattr(dst, attrs | SBX_MOUNT_ATTR_NOSUID | SBX_MOUNT_ATTR_NODEV, true);
}

static int sbx_mask(const char *dst, bool is_dir, const char *root)
{
  char empty[PATH_MAX];
  if (is_dir) {
    /* An empty, read-only, mode-0000 tmpfs: the directory exists (programs
     * that stat it do not break) but shows and accepts nothing. */
    if (mount("tmpfs", dst, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
              "mode=0000,size=4k,nr_inodes=1") < 0)
      return -errno;
    return 0;
  }
  /* An empty mode-0000 file: open() fails with EACCES even for uid 0
   * without CAP_DAC_OVERRIDE, and execve() of it too. */
  /* While building, the scratch root holds the empty file; in a finished
   * warm view it is the root tmpfs's /.sbx-empty (sbx_mount_template). */
  snprintf(empty, sizeof empty, "%s", root[0] ? SBX_EMPTY : SBX_EMPTY_KEPT);
  if (mount(empty, dst, NULL, MS_BIND, NULL) < 0)
    return -errno;
  return sbx_setattr(dst,
                     SBX_MOUNT_ATTR_RDONLY | SBX_MOUNT_ATTR_NOSUID | SBX_MOUNT_ATTR_NODEV |
                         SBX_MOUNT_ATTR_NOEXEC,
                     false);
}

/* A fresh procfs at root+"/proc" (root: SBX_NEW while building, "" in a
 * warm run's finished view). */
static int sbx_mount_proc(const char *root, struct sbx_fail *f)
{
  /* Writable by uid 0 even without capabilities (sysctl permission checks
   * use the file mode), or hardware-facing: bound read-only. */
  static const char *const ro[] = { "/proc/sys", "/proc/sysrq-trigger",
                                    "/proc/irq", "/proc/bus",
                                    "/proc/fs",  NULL };
  /* Kernel-wide information leaks with no use inside: hidden. */
  static const char *const hide[] = {
    "/proc/kcore", "/proc/keys", "/proc/timer_list", "/proc/sched_debug", "/proc/kallsyms",
    "/proc/kmsg",  NULL
  };
  char path[PATH_MAX];
  int rc;
  snprintf(path, sizeof path, "%s/proc", root);
  if (mkdir(path, 0555) < 0 && errno != EEXIST)
    return sbx_fail_set(f, SBX_LAYER_MOUNT, errno, "mkdir /proc: %s", strerror(errno)), -errno;
  /* A new procfs: it shows only the sandbox's pid namespace, so nothing
   * outside can be listed, read or signalled through /proc. */
  if (mount("proc", path, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
    rc = -errno;
    sbx_fail_set(f, SBX_LAYER_MOUNT, -rc, "mount proc: %s", strerror(-rc));
    return rc;
  }
  for (const char *const *p = ro; *p; p++) {
    struct stat st;
    snprintf(path, sizeof path, "%s%s", root, *p);
    if (lstat(path, &st) < 0)
      continue;
    if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) < 0 ||
        (rc =
             sbx_setattr(path, SBX_MOUNT_ATTR_RDONLY | SBX_MOUNT_ATTR_NOSUID | SBX_MOUNT_ATTR_NODEV,
                         true)) < 0) {
      rc = -errno;
      sbx_fail_set(f, SBX_LAYER_MOUNT, -rc, "read-only %s: %s", *p, strerror(-rc));
      return rc;
    }
  }
  for (const char *const *p = hide; *p; p++) {
    struct stat st;
    snprintf(path, sizeof path, "%s%s", root, *p);
    if (lstat(path, &st) < 0)
      continue;
    if ((rc = sbx_mask(path, S_ISDIR(st.st_mode), root)) < 0) {
      sbx_fail_set(f, SBX_LAYER_MOUNT, -rc, "mask %s: %s", *p, strerror(-rc));
      return rc;
    }
  }
  return 0;
}

/* The sandbox's own /dev/shm: a tmpfs, read-only when it cannot write. */
static int sbx_mount_shm(const char *root, const struct sbx_plan *plan, struct sbx_fail *f)
{
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/dev/shm", root);
  /* noexec: shared memory is data; code mapped from here would be code
   * the command wrote (sbx_plan_noexec; only a rule granting execute on
   * /dev/shm, i.e. on "/", lifts it). */
  if (mount("tmpfs", path, "tmpfs",
            MS_NOSUID | MS_NODEV | (plan->shm_noexec ? MS_NOEXEC : 0) |
                (plan->tmp_writable ? 0 : MS_RDONLY),
            "mode=1777,size=64m") < 0)
    return sbx_mount_errno(f, "/dev/shm");
  return 0;
}

static int sbx_mount_dev(const struct sbx_plan *plan, bool shm, struct sbx_fail *f)
{
  static const char *const devs[] = { "null", "zero", "full", "random", "urandom", NULL };
  static const char *const links[][2] = { { "fd", "/proc/self/fd" },
                                          { "stdin", "/proc/self/fd/0" },
                                          { "stdout", "/proc/self/fd/1" },
                                          { "stderr", "/proc/self/fd/2" } };
  char src[PATH_MAX], dst[PATH_MAX];
  int rc;
  const char *what = "mount /dev";

  if (mkdir(SBX_NEW "/dev", 0755) < 0 && errno != EEXIST)
    goto fail_errno;
  /* No host /dev: only the harmless character devices are shown, so no
   * disk, tty, kvm or kmsg node is reachable. */
  if (mount("tmpfs", SBX_NEW "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k") < 0)
    goto fail_errno;
  for (const char *const *d = devs; *d; d++) {
    snprintf(src, sizeof src, SBX_OLD "/dev/%s", *d);
    snprintf(dst, sizeof dst, SBX_NEW "/dev/%s", *d);
    what = dst + strlen(SBX_NEW);
    if ((rc = sbx_mountpoint(dst, false)) < 0 || mount(src, dst, NULL, MS_BIND, NULL) < 0 ||
        (rc = sbx_setattr(dst, SBX_MOUNT_ATTR_NOSUID | SBX_MOUNT_ATTR_NOEXEC, false)) < 0)
      goto fail_errno;
  }
  for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
    snprintf(dst, sizeof dst, SBX_NEW "/dev/%s", links[i][0]);
    what = dst + strlen(SBX_NEW);
    if (symlink(links[i][1], dst) < 0)
      goto fail_errno;
  }
  what = "/dev/shm";
  if (mkdir(SBX_NEW "/dev/shm", 01777) < 0)
    goto fail_errno;
  if (shm && (rc = sbx_mount_shm(SBX_NEW, plan, f)) < 0)
    return rc;
  what = "read-only /dev";
  if ((rc = sbx_setattr(SBX_NEW "/dev", SBX_MOUNT_ATTR_RDONLY, false)) < 0) {
    errno = -rc;
    goto fail_errno;
  }
  return 0;
fail_errno:
  return sbx_mount_errno(f, what);
}

static int sbx_mount_tmp(const char *root, const struct sbx_plan *plan, struct sbx_fail *f)
{
  char opts[64], path[PATH_MAX], home[PATH_MAX];
  uint64_t size = plan->profile->limits.max_memory_bytes;
  /* tmpfs pages are memory that RLIMIT_AS does not count: cap the size. */
  if (size == 0 || size > (1ull << 30))
    size = 1ull << 30;
  snprintf(opts, sizeof opts, "mode=1777,size=%llu", (unsigned long long)size);
  snprintf(path, sizeof path, "%s/tmp", root);
  snprintf(home, sizeof home, "%s" SBX_SANDBOX_HOME, root);
  /* noexec unless an execute rule covers /tmp (sbx_plan_noexec): without
   * it the ELF loader maps a program the command wrote here (or into its
   * HOME, which is here) although Landlock refuses its execve. Binds
   * below /tmp (a workspace there) are mounts of their own, with their
   * own flags. */
  if ((mkdir(path, 01777) < 0 && errno != EEXIST) ||
      mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV | (plan->tmp_noexec ? MS_NOEXEC : 0),
            opts) < 0 ||
      mkdir(home, 0700) < 0)
    goto fail;
  /* HOME belongs to the identity the command runs as (sbx is root:
   * sbx_plan_identity.c), or it could not use it. */
  if (plan->run_as && chown(home, plan->run_uid, plan->run_gid) < 0)
    goto fail;
  return 0;
fail:
  sbx_fail_set(f, SBX_LAYER_MOUNT, errno, "private /tmp: %s", strerror(errno));
  return -errno;
}

/* With root's workspace (sbx_idmap.c): its bind, every bind inside it (the
 * git protection binds .git, its configs and hooks onto themselves,
 * sbx_plan_git.c) and, for a linked worktree, the repository's common git
 * directory bound writable beside it, where commits go, with the binds
 * inside that: the command works on all of them as their owner (git
 * refuses a repository whose .git another uid owns: "dubious ownership").
 * Read-only binds stay read-only; any other bind keeps the host's owners. */
static bool sbx_mount_idmapped(const struct sbx_plan *plan, const struct sbx_mount_entry *e)
{
  if (!plan->idmap_ws || (e->kind != SBX_MNT_BIND_RW && e->kind != SBX_MNT_BIND_RO))
    return false;
  if (sbx_path_under(e->path, plan->workspace))
    return true;
  for (size_t i = 0; i < plan->n_mounts; i++) {
    const struct sbx_mount_entry *c = &plan->mounts[i];
    if (c->kind == SBX_MNT_BIND_RW && strcmp(c->why, "git common dir") == 0 &&
        sbx_path_under(e->path, c->path))
      return true;
  }
  return false;
}

static int sbx_mount_entries(const struct sbx_plan *plan, struct sbx_fail *f)
{
  char src[PATH_MAX], dst[PATH_MAX];
  const struct sbx_mount_entry *e = NULL;
  int rc = 0;
  for (size_t i = 0; i < plan->n_mounts; i++) {
    e = &plan->mounts[i];
    if (snprintf(src, sizeof src, SBX_OLD "%s", e->path) >= (int)sizeof src ||
        snprintf(dst, sizeof dst, SBX_NEW "%s", e->path) >= (int)sizeof dst) {
      rc = -ENAMETOOLONG;
      goto fail;
    }
    switch (e->kind) {
    case SBX_MNT_BIND_RO:
    case SBX_MNT_BIND_RW:
      if (e->source) {
        rc = sbx_bind_home(plan, e, SBX_NEW,
                           (e->kind == SBX_MNT_BIND_RO ? SBX_MOUNT_ATTR_RDONLY : 0) |
                               (e->noexec ? SBX_MOUNT_ATTR_NOEXEC : 0));
        break;
      }
      /* noexec where no execute rule reaches the mount's files
       * (sbx_plan_noexec): the workspace of a profile that does not
       * execute from it, /etc, allowed paths without execute. */
      rc = sbx_bind(src, dst, e->is_dir,
                    (e->kind == SBX_MNT_BIND_RO ? SBX_MOUNT_ATTR_RDONLY : 0) |
                        (e->noexec ? SBX_MOUNT_ATTR_NOEXEC : 0),
                    sbx_mount_idmapped(plan, e) ? plan : NULL);
      break;
    case SBX_MNT_SYMLINK: {
      char parent[PATH_MAX];
      snprintf(parent, sizeof parent, "%s", dst);
      *strrchr(parent, '/') = '\0';
      rc = sbx_mkdirs(parent, 0755);
      if (rc == 0 && symlink(e->target, dst) < 0 && errno != EEXIST)
        rc = -errno;
      break;
    }
    case SBX_MNT_MASK: {
      struct stat st;
      /* The mount point must be the very object of the plan: if the
       * command's files changed between planning and now, refuse. */
      if (lstat(dst, &st) < 0)
        rc = errno == ENOENT ? 0 : -errno;
      else if (S_ISLNK(st.st_mode) || (bool)S_ISDIR(st.st_mode) != e->is_dir)
        rc = -ESTALE;
      else
        rc = sbx_mask(dst, e->is_dir, SBX_NEW);
      break;
    }
    }
    if (rc < 0)
      goto fail;
  }
  return 0;
fail:
  sbx_fail_set(f, SBX_LAYER_MOUNT, -rc, "%s %s (%s): %s",
               rc == -ESTALE ? "changed since planning:" : "cannot set up", e ? e->path : "?",
               e ? e->why : "?", strerror(-rc));
  return rc;
}

/* The directories sbx made on the private /tmp to reach an entry below it
 * (/tmp/a for a workspace /tmp/a/ws) read-only (issue 13). They stand for
 * the host's directories of those names but are empty and discarded with
 * the run: `git worktree add ../wt` from /tmp/a/ws wrote /tmp/a/wt there,
 * git said it succeeded, and nothing reached the host. Made by sbx, they
 * refused the write only when the command ran as another uid (sbx as
 * root); in a user namespace they are the command's own. So the first
 * directory under /tmp of each such entry is bound onto itself, with
 * everything mounted inside it (the workspace, its git carve-outs, masks),
 * and only that bind made read-only: a write there fails with EROFS, which
 * the tool reports, while the entries keep their own flags. An entry
 * directly in /tmp has no such directory: its neighbours are the private
 * /tmp itself, which stays writable (sbx_run_lost.c names a worktree lost
 * there). `root`: where the view's / is now ("" once pivoted). */
static int sbx_mount_tmp_scaffold_ro(const char *root, const struct sbx_plan *plan,
                                     struct sbx_fail *f)
{
  char top[PATH_MAX], path[PATH_MAX];
  for (size_t i = 0; i < plan->n_mounts; i++) {
    const char *p = plan->mounts[i].path, *slash;
    bool done = false;
    int rc;
    if (strncmp(p, "/tmp/", 5) != 0 || !(slash = strchr(p + 5, '/')))
      continue; /* not below /tmp, or directly in it */
    /* The sandbox's HOME is no stand-in for a host directory: it is the
     * command's own, writable, and the profile's home binds below it
     * (sbx_plan_home.c) must not make it read-only (tools write ~/.foo). */
    if (strncmp(p, SBX_SANDBOX_HOME "/", sizeof SBX_SANDBOX_HOME) == 0)
      continue;
    snprintf(top, sizeof top, "%.*s", (int)(slash - p), p);
    /* Once per directory; and never over an entry of the plan itself (a
     * rule naming /tmp/a is bound from the host: its own flags decide). */
    for (size_t j = 0; j < plan->n_mounts && !done; j++) {
      const char *q = plan->mounts[j].path;
      size_t n = strlen(top);
      done = strcmp(q, top) == 0 || (j < i && strncmp(q, top, n) == 0 && q[n] == '/');
    }
    if (done)
      continue;
    if (snprintf(path, sizeof path, "%s%s", root, top) >= (int)sizeof path)
      return sbx_fail_set(f, SBX_LAYER_MOUNT, ENAMETOOLONG, "%s: name too long", top),
             -ENAMETOOLONG;
    if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) < 0)
      return sbx_mount_errno(f, "read-only directories below /tmp (bind)");
    if ((rc =
             sbx_setattr(path, SBX_MOUNT_ATTR_RDONLY | SBX_MOUNT_ATTR_NOSUID | SBX_MOUNT_ATTR_NODEV,
                         false)) < 0) {
      errno = -rc;
      return sbx_mount_errno(f, "read-only directories below /tmp");
    }
  }
  return 0;
}

/* The view; `tmpl`: a warm template's (sbx_mount_template). */
static int sbx_mount_view(const struct sbx_plan *plan, bool tmpl, struct sbx_fail *f)
{
  const char *what;
  int fd, rc;

  /* Nothing done below may propagate back to the host's mount table. */
  what = "make / private";
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
    goto fail_errno;
  /* A scratch tmpfs becomes the root for the build; the host's root is
   * then only reachable as /oldroot, which is detached at the end. */
  what = "scratch tmpfs";
  if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700,size=64k") < 0 ||
      mkdir("/tmp" SBX_NEW, 0755) < 0 || mkdir("/tmp" SBX_OLD, 0700) < 0)
    goto fail_errno;
  fd = open("/tmp" SBX_EMPTY, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0000);
  if (fd < 0)
    goto fail_errno;
  close(fd);
  what = "pivot_root to the scratch tmpfs";
  if (syscall(SYS_pivot_root, "/tmp", "/tmp" SBX_OLD) < 0 || chdir("/") < 0)
    goto fail_errno;
  if (plan->full_root) {
    /* Full access: the host's tree is the base (read-only unless the
     * profile writes), sbx's /proc, /dev and /tmp go on top of it. */
    what = "bind the host root";
    if (mount(SBX_OLD, SBX_NEW, NULL, MS_BIND | MS_REC, NULL) < 0)
      goto fail_errno;
    if ((rc = sbx_setattr(SBX_NEW,
                          (plan->full_root_rw ? 0 : SBX_MOUNT_ATTR_RDONLY) |
                              (plan->root_noexec ? SBX_MOUNT_ATTR_NOEXEC : 0) |
                              SBX_MOUNT_ATTR_NOSUID | SBX_MOUNT_ATTR_NODEV,
                          true)) < 0) {
      errno = -rc;
      goto fail_errno;
    }
  } else {
    what = "new root tmpfs";
    /* noexec: it holds mount points, symlinks and the masks' empty file,
     * never a program (those are on the binds above it). */
    if (mount("tmpfs", SBX_NEW, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0755,size=1m") < 0)
      goto fail_errno;
  }

  /* /tmp before the plan's entries, so a workspace under /tmp is bound
   * inside the private /tmp; made read-only after them. */
  if (tmpl) {
    /* Mount points only: each run mounts its own /tmp, /dev/shm and /proc
     * there. The empty file masks /proc entries in every run. */
    what = "template mount points";
    if (mkdir(SBX_NEW "/tmp", 01777) < 0 || mkdir(SBX_NEW "/proc", 0555) < 0 ||
        (fd = open(SBX_NEW SBX_EMPTY_KEPT, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0000)) < 0)
      goto fail_errno;
    close(fd);
  } else if ((rc = sbx_mount_tmp(SBX_NEW, plan, f)) < 0)
    return rc;
  if ((rc = sbx_mount_entries(plan, f)) < 0 ||
      (!tmpl && (rc = sbx_mount_tmp_scaffold_ro(SBX_NEW, plan, f)) < 0) ||
      (rc = sbx_mount_dev(plan, !tmpl, f)) < 0 || (!tmpl && (rc = sbx_mount_proc(SBX_NEW, f)) < 0))
    return rc;
  what = "read-only /tmp";
  if (!tmpl && !plan->tmp_writable &&
      (rc = sbx_setattr(SBX_NEW "/tmp", SBX_MOUNT_ATTR_RDONLY, false)) < 0) {
    errno = -rc;
    goto fail_errno;
  }

  what = "detach the host root";
  if (umount2(SBX_OLD, MNT_DETACH) < 0)
    goto fail_errno;
  what = "pivot_root to the new root";
  if (chdir(SBX_NEW) < 0 || syscall(SYS_pivot_root, ".", ".") < 0 || umount2(".", MNT_DETACH) < 0 ||
      chdir("/") < 0)
    goto fail_errno;
  /* The root tmpfs itself read-only: the command can create nothing at /
   * (only in the workspace and /tmp when the profile allows writing). */
  what = "read-only /";
  if (!plan->full_root && (rc = sbx_setattr("/",
                                            SBX_MOUNT_ATTR_RDONLY | SBX_MOUNT_ATTR_NOSUID |
                                                SBX_MOUNT_ATTR_NODEV | SBX_MOUNT_ATTR_NOEXEC,
                                            false)) < 0) {
    errno = -rc;
    goto fail_errno;
  }
  what = plan->cwd ? "chdir to the working directory (--cwd)" : "chdir to the workspace";
  if (chdir(plan->cwd ? plan->cwd : plan->workspace) < 0)
    goto fail_errno;
  return 0;
fail_errno:
  return sbx_mount_errno(f, what);
}

int sbx_mount_build(const struct sbx_plan *plan, struct sbx_fail *f)
{
  return sbx_mount_view(plan, false, f);
}

int sbx_mount_template(const struct sbx_plan *plan, struct sbx_fail *f)
{
  return sbx_mount_view(plan, true, f);
}

static bool sbx_mount_under_tmp(const char *path)
{
  return strncmp(path, "/tmp/", 5) == 0;
}

bool sbx_mount_warm_ok(const struct sbx_plan *plan)
{
  /* The host's root as the base: the template's mount points and its
   * empty file would be made on the host's own file system. */
  if (plan->full_root)
    return false;
  for (size_t i = 0; i < plan->n_mounts; i++)
    if (sbx_mount_under_tmp(plan->mounts[i].path) && plan->mounts[i].kind == SBX_MNT_SYMLINK)
      return false;
  return true;
}

/* Is an earlier entry under /tmp an ancestor of entry i? (Sorted parents
 * first; masks after every bind.) Its subtree then carries entry i. */
static bool sbx_mount_nested(const struct sbx_plan *plan, size_t i)
{
  const char *p = plan->mounts[i].path;
  for (size_t j = 0; j < plan->n_mounts; j++) {
    const char *q = plan->mounts[j].path;
    size_t n = strlen(q);
    if (j != i && sbx_mount_under_tmp(q) && plan->mounts[j].kind != SBX_MNT_MASK &&
        strncmp(p, q, n) == 0 && p[n] == '/')
      return true;
  }
  return false;
}

int sbx_mount_fresh(const struct sbx_plan *plan, struct sbx_fail *f)
{
  int *moved = NULL, rc = 0;
  size_t n = 0;
  const char *what = "make / private";

  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
    goto fail_errno;
  /* Entries under /tmp (a workspace in /tmp, with its .git carve-outs and
   * masks) are cloned whole, with their flags, and put back on the fresh
   * tmpfs: the same mounts the cold path makes inside its private /tmp. */
  moved = calloc(plan->n_mounts ? plan->n_mounts : 1, sizeof *moved);
  if (!moved) {
    errno = ENOMEM;
    what = "per-run mounts";
    goto fail_errno;
  }
  for (size_t i = 0; i < plan->n_mounts; i++) {
    moved[i] = -1;
    if (!sbx_mount_under_tmp(plan->mounts[i].path) || sbx_mount_nested(plan, i))
      continue;
    what = plan->mounts[i].path;
    moved[i] = (int)syscall(SYS_open_tree, AT_FDCWD, plan->mounts[i].path,
                            SBX_OPEN_TREE_CLONE | AT_RECURSIVE | O_CLOEXEC);
    if (moved[i] < 0)
      goto fail_errno;
    n = i + 1;
  }
  if ((rc = sbx_mount_tmp("", plan, f)) < 0)
    goto cleanup;
  for (size_t i = 0; i < n; i++) {
    if (moved[i] < 0)
      continue;
    what = plan->mounts[i].path;
    if ((rc = plan->mounts[i].source
                  ? sbx_home_mountpoint("", plan->mounts[i].path, plan->mounts[i].is_dir, plan)
                  : sbx_mountpoint(plan->mounts[i].path, plan->mounts[i].is_dir)) < 0) {
      errno = -rc;
      goto fail_errno;
    }
    if (syscall(SYS_move_mount, moved[i], "", AT_FDCWD, plan->mounts[i].path,
                SBX_MOVE_MOUNT_F_EMPTY_PATH) < 0)
      goto fail_errno;
  }
  if ((rc = sbx_mount_tmp_scaffold_ro("", plan, f)) < 0 || (rc = sbx_mount_shm("", plan, f)) < 0 ||
      (rc = sbx_mount_proc("", f)) < 0)
    goto cleanup;
  what = "read-only /tmp";
  if (!plan->tmp_writable && (rc = sbx_setattr("/tmp", SBX_MOUNT_ATTR_RDONLY, false)) < 0) {
    errno = -rc;
    goto fail_errno;
  }
  what = plan->cwd ? "chdir to the working directory (--cwd)" : "chdir to the workspace";
  if (chdir(plan->cwd ? plan->cwd : plan->workspace) < 0)
    goto fail_errno;
  goto cleanup;
fail_errno:
  rc = sbx_mount_errno(f, what);
cleanup:
  for (size_t i = 0; moved && i < n; i++)
    if (moved[i] >= 0)
      close(moved[i]);
  free(moved);
  return rc;
}
