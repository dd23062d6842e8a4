/* sbx_unotify_op: see sbx_unotify_op.h. */
#include "sbx_unotify_op.h"
#include "sbx_made.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <dirent.h>
#include <grp.h>
#include <unistd.h>

/* Copies a NUL-terminated string of the process, page by page so that a
 * string ending just before an unmapped page is still read. */
int sbx_un_read_str(pid_t pid, uint64_t addr, char *out, size_t len)
{
  size_t got = 0;
  if (!addr)
    return -EFAULT;
  while (got < len) {
    size_t chunk = 4096 - ((addr + got) & 4095);
    if (chunk > len - got)
      chunk = len - got;
    struct iovec l = { .iov_base = out + got, .iov_len = chunk };
    struct iovec r = { .iov_base = (void *)(uintptr_t)(addr + got), .iov_len = chunk };
    ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);
    if (n <= 0)
      return -EFAULT;
    if (memchr(out + got, '\0', (size_t)n))
      return 0;
    got += (size_t)n;
  }
  return -ENAMETOOLONG;
}

int sbx_un_read_mem(pid_t pid, uint64_t addr, void *out, size_t len)
{
  struct iovec l = { .iov_base = out, .iov_len = len };
  struct iovec r = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };
  if (len == 0)
    return 0;
  return process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t)len ? 0 : -EFAULT;
}

/* The calling thread's effective ids (fsuid is what file access uses; sbx
 * never gives the sandbox setfsuid differences to play with). */
static int sbx_un_ids(pid_t tid, uid_t *uid, gid_t *gid, pid_t *tgid)
{
  char path[64], line[256];
  FILE *f;
  int found = 0;
  snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
  f = fopen(path, "re");
  if (!f)
    return -errno;
  while (fgets(line, sizeof line, f)) {
    unsigned a, b;
    if (sscanf(line, "Uid:\t%u\t%u", &a, &b) == 2) {
      *uid = b;
      found |= 1;
    } else if (sscanf(line, "Gid:\t%u\t%u", &a, &b) == 2) {
      *gid = b;
      found |= 2;
    } else if (sscanf(line, "Tgid:\t%u", &a) == 1) {
      *tgid = (pid_t)a;
      found |= 4;
    }
  }
  fclose(f);
  return found == 7 ? 0 : -ESRCH;
}

/* Opens the caller's mount namespace, and its user namespace when that is
 * not ours (see struct sbx_un_op). */
static int sbx_un_namespaces(pid_t tid, struct sbx_un_op *op)
{
  char path[64];
  struct stat self, them;

  /* Always the mount namespace: the kernel refuses to rename or remove a
   * mount point only in the namespace where it is one (EBUSY). A helper
   * that merely chroots into the caller's root still walks the sandbox's
   * mounts but is outside that namespace, so a rename it performed went
   * over the read-only .git/config bind and moved the self-bound .git
   * (issue 12): it must act from inside. */
  snprintf(path, sizeof path, "/proc/%d/ns/mnt", (int)tid);
  if (stat("/proc/self/ns/mnt", &self) != 0 || stat(path, &them) != 0)
    return -errno;
  if (self.st_ino != them.st_ino || self.st_dev != them.st_dev) {
    op->mntns = open(path, O_RDONLY | O_CLOEXEC);
    if (op->mntns < 0)
      return -errno;
  } /* else: already there (unotify_run without a sandbox) */
  snprintf(path, sizeof path, "/proc/%d/ns/user", (int)tid);
  if (stat("/proc/self/ns/user", &self) != 0 || stat(path, &them) != 0)
    return -errno;
  if (self.st_ino == them.st_ino && self.st_dev == them.st_dev)
    return 0;
  op->userns = open(path, O_RDONLY | O_CLOEXEC);
  return op->userns < 0 ? -errno : 0;
}

int sbx_un_dirfd(pid_t tid, int fdnum)
{
  char path[64];
  int fd;
  if (fdnum == AT_FDCWD)
    snprintf(path, sizeof path, "/proc/%d/cwd", (int)tid);
  else if (fdnum < 0)
    return -EBADF;
  else
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)tid, fdnum);
  fd = open(path, O_PATH | O_CLOEXEC);
  return fd < 0 ? (errno == ENOENT ? -EBADF : -errno) : fd;
}

/* What the approver is shown: the real path of the directory the call
 * acts on (after sbx_un_resolve, the one the caller's path resolved to)
 * and the final name, or an absolute path left as it was. */
void sbx_un_display(int dirfd, const char *path, char *out, size_t len)
{
  char link[64], dir[4096];
  ssize_t n;
  if (path[0] == '/') {
    snprintf(out, len, "%s", path);
    return;
  }
  snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
  n = readlink(link, dir, sizeof dir - 1);
  if (n < 0)
    n = 0;
  dir[n] = '\0';
  snprintf(out, len, "%s%s%s", n ? dir : "?", n && dir[n - 1] == '/' ? "" : "/", path);
}

/* Serialises every change of which inode a name in directory `dirfd`
 * (O_PATH) refers to, among the helpers of every run that approves
 * `delete`: each such unlink, rmdir and rename is performed by a helper
 * (nothing else removes or replaces a name: io_uring is refused, link(2)
 * and creations need the name to be absent). Without it, "was this inode
 * born in the run?" and the unlinkat that follows could see two different
 * inodes: a thread renames a file that existed before over the checked
 * name in between (a rename is free) and the old file is removed unasked.
 * flock is on the directory's inode, so every path and mount reaching it
 * share it. A descriptor that can be locked (-1 and errno otherwise: a
 * directory the caller's identity and Landlock cannot read). */
static int sbx_un_lock_dir(int dirfd)
{
  int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  const char *off = getenv(SBX_DELETE_TEST_NO_LOCK_ENV);
  if (fd < 0)
    return -1;
  if (off && strcmp(off, "1") == 0)
    return fd; /* the negative control of workflow_swap: not locked */
  while (flock(fd, LOCK_EX) != 0) {
    if (errno != EINTR) {
      close(fd);
      return -1;
    }
  }
  return fd;
}

static bool sbx_un_after_start(const struct statx_timestamp *t, const struct sbx_unotify_cfg *cfg)
{
  return t->tv_sec > cfg->run_start.tv_sec ||
         (t->tv_sec == cfg->run_start.tv_sec && (long)t->tv_nsec > cfg->run_start.tv_nsec);
}

static bool sbx_un_in_earlier_run(const struct statx_timestamp *t,
                                  const struct sbx_unotify_cfg *cfg)
{
  struct timespec ts = { .tv_sec = (time_t)t->tv_sec, .tv_nsec = (long)t->tv_nsec };
  return cfg->made && sbx_made_covers(cfg->made, &ts);
}

/* Is the directory `dirfd` the workspace's git directory or below it?
 * Walked up by "..", comparing inodes, to the workspace's root (then no)
 * or the file system's (no). Deeper than any git directory goes, or a
 * step that fails: yes (the caller then asks). */
static bool sbx_un_in_git_dir(int dirfd, const char *workspace)
{
  char path[4200];
  struct stat git, ws, at;
  int fd, up;
  bool in = true;

  if (!workspace || workspace[0] != '/' ||
      snprintf(path, sizeof path, "%s/.git", workspace) >= (int)sizeof path)
    return true;
  if (lstat(path, &git) != 0 || !S_ISDIR(git.st_mode))
    return false; /* no git directory in the workspace */
  if (stat(workspace, &ws) != 0 || (fd = openat(dirfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
    return true;
  for (int depth = 0; depth < 64; depth++) {
    if (fstat(fd, &at) != 0)
      break;
    if (at.st_dev == git.st_dev && at.st_ino == git.st_ino)
      break; /* in it */
    if (at.st_dev == ws.st_dev && at.st_ino == ws.st_ino) {
      in = false; /* the workspace's root, not below .git */
      break;
    }
    if ((up = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
      break;
    struct stat parent;
    if (fstat(up, &parent) == 0 && parent.st_dev == at.st_dev && parent.st_ino == at.st_ino) {
      close(up);
      in = false; /* the root: outside the workspace altogether */
      break;
    }
    close(fd);
    fd = up;
  }
  close(fd);
  return in;
}

/* Was the inode `name` in `dirfd` names made by a run: born after this
 * run started, or born during an earlier run of the workspace and last
 * changed during one (or during this run)? Its birth time (statx
 * STATX_BTIME) is set by the file system when the inode is made and no
 * system call sets it (utimensat sets atime and mtime only): a rename
 * keeps the inode and so its birth, a hard link is a second name of an
 * old inode, so neither passes a file that existed before off as new.
 * The change time (STATX_CTIME) is set by every write, chmod, link and
 * rename, and by no call to a chosen value: an earlier run's file that
 * someone edited, renamed or linked outside a run since is asked about.
 * A file system that does not report them: false (asked, as before). */
static bool sbx_un_born_in_run(int dirfd, const char *name, const struct sbx_unotify_cfg *cfg)
{
  struct statx sx;
  if (!cfg->run_start_set ||
      statx(dirfd, name, AT_SYMLINK_NOFOLLOW | AT_STATX_SYNC_AS_STAT, STATX_BTIME | STATX_CTIME,
            &sx) != 0 ||
      !(sx.stx_mask & STATX_BTIME))
    return false;
  if (sbx_un_after_start(&sx.stx_btime, cfg))
    return true;
  /* Not in the git directory, which has rules of its own (below: git's
   * bookkeeping, its object store): a linked worktree's HEAD, index and
   * reflog that earlier runs wrote are its state, not a build's output,
   * and `git worktree remove` of one from before the run must stay asked. */
  return (sx.stx_mask & STATX_CTIME) && sbx_un_in_earlier_run(&sx.stx_btime, cfg) &&
         (sbx_un_after_start(&sx.stx_ctime, cfg) || sbx_un_in_earlier_run(&sx.stx_ctime, cfg)) &&
         !sbx_un_in_git_dir(dirfd, cfg->workspace);
}

/* Is the directory `dirfd` on one of the sandbox's persistent home
 * mounts (cfg->kept_dirs)? Judged by mount: nothing can be renamed or
 * linked onto a mount from another (EXDEV), so whatever a name there
 * reaches lives in sbx's cache. Run in the helper, in the caller's root,
 * where the kept directories are mount points at the paths given. */
static bool sbx_un_on_kept_mount(int dirfd, const struct sbx_unotify_cfg *cfg)
{
  struct statx here, kept;
  if (!cfg->n_kept_dirs ||
      statx(dirfd, "", AT_EMPTY_PATH | AT_STATX_SYNC_AS_STAT, STATX_MNT_ID, &here) != 0 ||
      !(here.stx_mask & STATX_MNT_ID))
    return false;
  for (size_t i = 0; i < cfg->n_kept_dirs; i++)
    if (statx(AT_FDCWD, cfg->kept_dirs[i], AT_SYMLINK_NOFOLLOW | AT_STATX_SYNC_AS_STAT,
              STATX_MNT_ID, &kept) == 0 &&
        (kept.stx_mask & STATX_MNT_ID) && kept.stx_mnt_id == here.stx_mnt_id)
      return true;
  return false;
}

/* Does directory `name` in `dirfd` hold anything? Then rmdir would fail
 * with ENOTEMPTY, losing nothing: answered so without asking (git tries
 * to remove the directories of every path it touches). Decided at one
 * moment, under the parent's lock, and the call answered as of that
 * moment: it is not performed later, when the directory may have been
 * emptied. false when it cannot be read (then asked). */
static bool sbx_un_dir_has_entries(int dirfd, const char *name)
{
  int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  DIR *d;
  struct dirent *de;
  bool any = false;

  if (fd < 0)
    return false;
  d = fdopendir(fd);
  if (!d) {
    close(fd);
    return false;
  }
  while (!any && (de = readdir(d)))
    any = strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
  closedir(d);
  return any;
}

/* The /tmp probe (unlink family only; run by the resolve helper): does
 * the entry exist at all, and is its directory on the private /tmp? Then
 * delete it here, through the very directory checked, and say so
 * (*exempt = 1); otherwise do nothing (*exempt = 0). The
 * directory is opened once and both the check and the unlinkat use that
 * descriptor, so a renamed path component cannot move the deletion
 * elsewhere after the check. */
static long sbx_un_tmp_unlink(const struct sbx_un_op *op, const struct sbx_unotify_cfg *cfg,
                              int *exempt)
{
  char dir[4096], *slash, *base;
  struct stat tmp, parent;
  size_t len;
  bool trailing;
  int pfd, lfd;
  long ret;

  *exempt = 0;
  snprintf(dir, sizeof dir, "%s", op->path[0]);
  len = strlen(dir);
  trailing = len > 1 && dir[len - 1] == '/';
  while (len > 1 && dir[len - 1] == '/')
    dir[--len] = '\0';
  slash = strrchr(dir, '/');
  if (slash) {
    *slash = '\0';
    base = slash + 1;
    pfd = openat(op->fd[0], slash == dir ? "/" : dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  } else {
    base = dir;
    pfd = openat(op->fd[0], ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  }
  /* Nothing to delete (git clears MERGE_HEAD and the like on every
   * commit whether they exist or not): answer ENOENT without asking. The
   * lookup is the helper's, in the caller's root and identity; an entry
   * created after it is as if the unlink had come first. */
  if (pfd < 0 && errno == ENOENT) {
    *exempt = 1;
    return -ENOENT;
  }
  if (pfd < 0)
    return 0;
  if (base[0] && strcmp(base, ".") != 0 && strcmp(base, "..") != 0 &&
      fstatat(pfd, base, &parent, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT) {
    close(pfd);
    *exempt = 1;
    return -ENOENT;
  }
  if (!base[0] || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
    close(pfd);
    return 0;
  }
  /* The private /tmp dies with the run, and the persistent home holds
   * sbx's caches (npm prunes its old logs there at every install): no
   * one's work is removed on either. */
  if ((cfg->private_tmp && stat("/tmp", &tmp) == 0 && fstat(pfd, &parent) == 0 &&
       tmp.st_dev == parent.st_dev) ||
      (cfg->run_start_set && sbx_un_on_kept_mount(pfd, cfg))) {
    *exempt = 1;
    ret = unlinkat(pfd, base, op->flags);
    if (ret < 0)
      ret = -errno;
    close(pfd);
    return ret;
  }
  /* What the run itself created loses nothing that was there before: free.
   * Checked and removed under the directory's lock (sbx_un_lock_dir), so
   * the inode checked is the inode removed. "name/" is left to the asked
   * path, which keeps the slash (unlink's ENOTDIR). A directory: rmdir
   * succeeds only on an empty one, whose entries were each removed by a
   * call judged the same way, so "the directory and all it held were made
   * by the run" holds for every rmdir let through here. */
  if (cfg->run_start_set && (!trailing || (op->flags & AT_REMOVEDIR)) &&
      (lfd = sbx_un_lock_dir(pfd)) >= 0) {
    ret = 0;
    /* Or git holds exactly what it contains (sbx_unotify_git.c): git's
     * checkout, stash and rebase unlink each work-tree file they update. */
    if (sbx_un_born_in_run(pfd, base, cfg) ||
        (!(op->flags & AT_REMOVEDIR) && sbx_un_git_holds(pfd, base, cfg->workspace)) ||
        /* Or git reorganises its object store and loses no object (git
         * gc: sbx_unotify_gitstore.c). */
        sbx_un_git_store_free(pfd, base, op->flags & AT_REMOVEDIR, cfg->workspace)) {
      *exempt = 1;
      ret = unlinkat(pfd, base, op->flags);
      if (ret < 0)
        ret = -errno;
    } else if ((op->flags & AT_REMOVEDIR) && sbx_un_dir_has_entries(pfd, base)) {
      *exempt = 1;
      ret = -ENOTEMPTY;
    }
    close(lfd); /* and with it the lock */
    close(pfd);
    return ret;
  }
  close(pfd);
  return 0;
}

/* A rename under the locks of sbx_un_lock_dir: both directories', in
 * (device, inode) order so that two helpers never wait on each other. A
 * directory that cannot be locked fails the rename (fail closed: unlocked,
 * it could slip an old file under a name being checked). */
static long sbx_un_locked_rename(const struct sbx_un_op *op, int flags)
{
  struct stat a, b;
  int first = op->fd[1], second = op->fd[0], l1 = -1, l2 = -1;
  long ret = -1;
  int err = 0;

  if (fstat(op->fd[0], &a) != 0 || fstat(op->fd[1], &b) != 0)
    return -1;
  if (a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
    second = -1;
  } else if (a.st_dev < b.st_dev || (a.st_dev == b.st_dev && a.st_ino < b.st_ino)) {
    first = op->fd[0];
    second = op->fd[1];
  }
  if ((l1 = sbx_un_lock_dir(first)) < 0 || (second >= 0 && (l2 = sbx_un_lock_dir(second)) < 0))
    goto done;
  ret = syscall(SYS_renameat2, op->fd[0], op->path[0], op->fd[1], op->path[1], flags);
done:
  err = errno;
  if (l2 >= 0)
    close(l2);
  if (l1 >= 0)
    close(l1);
  errno = err;
  return ret;
}

/* In a helper: the process's root, ids, no capabilities, the confine
 * hook. 0 or an errno. */
static int sbx_un_enter(const struct sbx_un_op *op, int rootfd, const struct sbx_unotify_cfg *cfg)
{
  struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
  struct __user_cap_data_struct d[2];

  int err;

  memset(d, 0, sizeof d);
  /* Into the run's cgroup before anything else (sbx_unotify_charge.c). */
  if ((err = -sbx_un_charge_child(op->charge)) != 0)
    return err;
  /* sbx without root created the sandbox's user namespace and holds every
   * capability in it, so entering it (and the mount namespace it owns)
   * gives the helper the right to chroot into the caller's root there. */
  if ((op->userns >= 0 && setns(op->userns, CLONE_NEWUSER) != 0) ||
      (op->mntns >= 0 && setns(op->mntns, CLONE_NEWNS) != 0))
    return errno ? errno : EPERM;
  /* In such a namespace setgroups is denied (sbx wrote "deny"): the helper
   * keeps the supplementary groups the caller has too, from sbx. The ids
   * change with raw system calls: this process may come from clone3
   * (sbx_unotify_charge.c), where glibc's wrappers would try to tell
   * threads that exist only in the parent. */
  if (fchdir(rootfd) != 0 || chroot(".") != 0 ||
      (syscall(SYS_setgroups, 0, NULL) != 0 && !(op->userns >= 0 && errno == EPERM)) ||
      syscall(SYS_setresgid, op->gid, op->gid, op->gid) != 0 ||
      syscall(SYS_setresuid, op->uid, op->uid, op->uid) != 0 || syscall(SYS_capset, &h, d) != 0 ||
      prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return errno ? errno : EPERM;
  /* A unix socket's relative path names a file in the caller's cwd. */
  if (op->kind >= SBX_UN_CONNECT && op->fd[0] >= 0 && fchdir(op->fd[0]) != 0)
    return errno;
  if (cfg->confine)
    return -cfg->confine(cfg->confine_arg);
  return 0;
}

/* The helper: the process's root, ids, no capabilities, the confine hook,
 * then the call. Returns the call's result or -errno, via the pipe. */
static _Noreturn void sbx_un_helper(const struct sbx_un_op *op, int rootfd,
                                    const struct sbx_unotify_cfg *cfg, int flags_override, int out)
{
  long ret = -1;
  int err = sbx_un_enter(op, rootfd, cfg);

  if (err != 0)
    goto report;
  switch (op->kind) {
  case SBX_UN_UNLINK:
    ret = unlinkat(op->fd[0], op->path[0], op->flags);
    break;
  case SBX_UN_RENAME:
    if (cfg->run_start_set)
      ret = sbx_un_locked_rename(op, flags_override >= 0 ? flags_override : op->flags);
    else
      ret = syscall(SYS_renameat2, op->fd[0], op->path[0], op->fd[1], op->path[1],
                    flags_override >= 0 ? flags_override : op->flags);
    break;
  case SBX_UN_CONNECT:
    ret = connect(op->sock, (const struct sockaddr *)&op->addr, op->addrlen);
    break;
  case SBX_UN_SENDTO:
    ret = sendto(op->sock, op->data, op->datalen, op->flags | MSG_NOSIGNAL,
                 (const struct sockaddr *)&op->addr, op->addrlen);
    break;
  case SBX_UN_SENDMSG:
    ret = sbx_un_msg_send(op);
    if (ret < 0) {
      errno = (int)-ret;
      ret = -1;
    }
    break;
  case SBX_UN_BIND:
    ret = bind(op->sock, (const struct sockaddr *)&op->addr, op->addrlen);
    break;
  case SBX_UN_LISTEN:
    ret = listen(op->sock, op->flags);
    break;
  }
  err = ret < 0 ? errno : 0;
report:;
  long msg[2] = { err ? -1 : ret, err };
  (void)!write(out, msg, sizeof msg);
  /* sendmmsg: the bytes each message took, for msg_len (a pipe write of
   * this size is atomic and fits its buffer). */
  if (op->kind == SBX_UN_SENDMSG && op->nmsgs)
    (void)!write(out, op->sent, op->nmsgs * sizeof *op->sent);
  _exit(0);
}

/* A helper's user and system CPU, ns. */
static uint64_t sbx_un_rusage_ns(const struct rusage *ru)
{
  return (uint64_t)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1000000000u +
         (uint64_t)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) * 1000u;
}

/* Where path's final name starts (trailing slashes belong to the name:
 * unlink("file/") must still fail with ENOTDIR). -1 when there is no
 * name to split off (empty, or only slashes). */
static ssize_t sbx_un_name_at(const char *path)
{
  size_t len = strlen(path), end = len;
  while (end > 0 && path[end - 1] == '/')
    end--;
  if (end == 0)
    return -1;
  while (end > 0 && path[end - 1] != '/')
    end--;
  return (ssize_t)end;
}

/* What the resolve helper answers; its descriptors travel with it. */
struct sbx_un_resolved {
  int errs[2]; /* per path: 0 (its descriptor follows), -1 (left as it is), errno */
  int exempt;  /* probe: the entry was on the private /tmp and is deleted */
  long result; /* probe: that unlinkat's result */
};

/* Resolve helper: opens, as the caller's call would resolve it (its
 * root, ids, Landlock; symlinks and ".." followed), the directory each
 * path's final name lies in, and sends the descriptors back with one
 * errno per path (0: its descriptor follows). With probe_tmp it also does
 * the /tmp probe (sbx_un_tmp_unlink) in the same process: one fork. */
static _Noreturn void sbx_un_resolve_helper(const struct sbx_un_op *op, int rootfd,
                                            const struct sbx_unotify_cfg *cfg, bool probe_tmp,
                                            int out)
{
  int k = op->kind == SBX_UN_RENAME ? 2 : 1, fds[2], nfds = 0;
  int err = sbx_un_enter(op, rootfd, cfg);
  struct sbx_un_resolved res = { .errs = { 0, 0 } };
  int *errs = res.errs;
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(sizeof fds)];
  } c;
  struct iovec iov = { .iov_base = &res, .iov_len = sizeof res };
  struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

  for (int i = 0; i < k; i++) {
    ssize_t at = sbx_un_name_at(op->path[i]);
    char dir[4096];
    int fd;
    if (err != 0) {
      errs[i] = err;
      continue;
    }
    if (at < 0) {
      errs[i] = -1; /* nothing to split: left as it is */
      continue;
    }
    memcpy(dir, op->path[i], (size_t)at);
    dir[at] = '\0';
    fd = openat(op->fd[i], at ? dir : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
      errs[i] = errno;
    else
      fds[nfds++] = fd;
  }
  if (probe_tmp && err == 0 && errs[0] == 0) {
    res.result = sbx_un_tmp_unlink(op, cfg, &res.exempt);
  }
  if (nfds) {
    memset(&c, 0, sizeof c);
    mh.msg_control = c.buf;
    mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
    struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
    memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
  }
  (void)!sendmsg(out, &mh, MSG_NOSIGNAL);
  _exit(0);
}

int sbx_un_resolve(struct sbx_un_op *op, int rootfd, const struct sbx_unotify_cfg *cfg,
                   bool probe_tmp, int *failed, int *exempt, long *result)
{
  int k = op->kind == SBX_UN_RENAME ? 2 : 1, sv[2], st, got[2] = { -1, -1 }, ngot = 0;
  struct sbx_un_resolved res = { .errs = { EIO, EIO } };
  int *errs = res.errs;
  bool bare = true;
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(2 * sizeof(int))];
  } c;
  struct iovec iov = { .iov_base = &res, .iov_len = sizeof res };
  struct msghdr mh = {
    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = c.buf, .msg_controllen = sizeof c.buf
  };
  ssize_t n;
  pid_t pid;
  struct rusage ru;

  *failed = 0;
  *exempt = 0;
  *result = 0;
  /* Bare names ("victim"): their directory is the dirfd we already hold,
   * nothing to resolve and no helper to fork unless a probe is wanted. */
  for (int i = 0; i < k; i++)
    bare = bare && sbx_un_name_at(op->path[i]) == 0;
  if (bare && !probe_tmp)
    return 0;
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
    return -errno;
  /* Created in the run's cgroup and its CPU counted, as every helper
   * (sbx_unotify_charge.c). */
  pid = sbx_un_charge_fork(op->charge);
  if (pid < 0) {
    int e = -errno;
    close(sv[0]);
    close(sv[1]);
    return e;
  }
  if (pid == 0) {
    close(sv[0]);
    sbx_un_resolve_helper(op, rootfd, cfg, probe_tmp, sv[1]);
  }
  if (cfg->helper_started)
    cfg->helper_started(cfg->helper_arg, pid);
  close(sv[1]);
  while ((n = recvmsg(sv[0], &mh, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
    ;
  close(sv[0]);
  memset(&ru, 0, sizeof ru);
  while (wait4(pid, &st, 0, &ru) < 0 && errno == EINTR)
    ;
  sbx_un_charge_add(op->charge, sbx_un_rusage_ns(&ru));
  for (struct cmsghdr *cm = n > 0 ? CMSG_FIRSTHDR(&mh) : NULL; cm; cm = CMSG_NXTHDR(&mh, cm))
    if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
      for (size_t i = 0; i < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int) && ngot < 2; i++)
        memcpy(&got[ngot++], CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
  /* No message (the helper died): EIO, nothing is asked or done. */
  if (n != (ssize_t)sizeof res) {
    errs[0] = errs[1] = EIO;
    res.exempt = 0;
  }
  *exempt = res.exempt;
  *result = res.result;
  for (int i = 0, j = 0; i < k; i++) {
    ssize_t at;
    if (errs[i] == -1)
      continue;
    if (errs[i] != 0 || j >= ngot) {
      if (!*failed)
        *failed = errs[i] > 0 ? errs[i] : EIO;
      continue;
    }
    /* From here on the call is (that directory, the final name): the
     * directory the person is shown is the one acted on. */
    at = sbx_un_name_at(op->path[i]);
    close(op->fd[i]);
    op->fd[i] = got[j];
    got[j++] = -1;
    memmove(op->path[i], op->path[i] + at, strlen(op->path[i] + at) + 1);
  }
  for (int j = 0; j < ngot; j++)
    if (got[j] >= 0)
      close(got[j]);
  return 0;
}

/* Runs the helper; *result is the call's return value or -errno. */
int sbx_un_perform(const struct sbx_un_op *op, int rootfd, const struct sbx_unotify_cfg *cfg,
                   int flags_override, long *result)
{
  long msg[2] = { -1, EIO };
  int p[2], st;
  pid_t pid;
  struct rusage ru;

  if (pipe2(p, O_CLOEXEC) < 0)
    return -errno;
  pid = sbx_un_charge_fork(op->charge);
  if (pid < 0) {
    int e = -errno;
    close(p[0]);
    close(p[1]);
    return e;
  }
  if (pid == 0) {
    close(p[0]);
    sbx_un_helper(op, rootfd, cfg, flags_override, p[1]);
  }
  if (cfg->helper_started)
    cfg->helper_started(cfg->helper_arg, pid);
  close(p[1]);
  /* No message (the helper died) is EIO in the sandbox: fail closed. */
  while (read(p[0], msg, sizeof msg) < 0 && errno == EINTR)
    ;
  if (op->kind == SBX_UN_SENDMSG && op->nmsgs && flags_override == -1) {
    size_t want = op->nmsgs * sizeof *op->sent;
    ssize_t k;
    while ((k = read(p[0], op->sent, want)) < 0 && errno == EINTR)
      ;
    if (k != (ssize_t)want && msg[1] == 0)
      msg[0] = -1, msg[1] = EIO; /* the helper died half-way: closed */
  }
  close(p[0]);
  memset(&ru, 0, sizeof ru);
  while (wait4(pid, &st, 0, &ru) < 0 && errno == EINTR)
    ;
  /* The helper's CPU is the run's (sbx_unotify_charge.c). */
  sbx_un_charge_add(op->charge, sbx_un_rusage_ns(&ru));
  *result = msg[1] ? -msg[1] : msg[0];
  return 0;
}

int sbx_un_pidfd_getfd(pid_t tgid, int fdnum)
{
  int pfd = (int)syscall(SYS_pidfd_open, tgid, 0);
  int fd;
  if (pfd < 0)
    return -errno;
  fd = (int)syscall(SYS_pidfd_getfd, pfd, fdnum, 0);
  if (fd < 0)
    fd = -errno;
  close(pfd);
  return fd;
}

/* Copies the call's arguments (once) and takes our own handles on what
 * they name. */
int sbx_un_collect(const struct seccomp_notif *n, struct sbx_un_op *op, pid_t *tgid)
{
  const __u64 *a = n->data.args;
  pid_t tid = (pid_t)n->pid;
  int r;

  op->nr = n->data.nr;
  op->dirfd[0] = op->dirfd[1] = AT_FDCWD;
  if (n->data.arch != AUDIT_ARCH_X86_64)
    return -ENOSYS;
  switch (n->data.nr) {
  case SYS_unlink:
  case SYS_rmdir:
    op->kind = SBX_UN_UNLINK;
    op->flags = n->data.nr == SYS_rmdir ? AT_REMOVEDIR : 0;
    r = sbx_un_read_str(tid, a[0], op->path[0], sizeof op->path[0]);
    break;
  case SYS_unlinkat:
    op->kind = SBX_UN_UNLINK;
    op->dirfd[0] = (int)a[0];
    op->flags = (int)a[2];
    r = sbx_un_read_str(tid, a[1], op->path[0], sizeof op->path[0]);
    break;
  case SYS_rename:
    op->kind = SBX_UN_RENAME;
    r = sbx_un_read_str(tid, a[0], op->path[0], sizeof op->path[0]);
    if (r == 0)
      r = sbx_un_read_str(tid, a[1], op->path[1], sizeof op->path[1]);
    break;
  case SYS_renameat:
  case SYS_renameat2:
    op->kind = SBX_UN_RENAME;
    op->dirfd[0] = (int)a[0];
    op->dirfd[1] = (int)a[2];
    op->flags = n->data.nr == SYS_renameat2 ? (int)a[4] : 0;
    r = sbx_un_read_str(tid, a[1], op->path[0], sizeof op->path[0]);
    if (r == 0)
      r = sbx_un_read_str(tid, a[3], op->path[1], sizeof op->path[1]);
    break;
  case SYS_connect:
  case SYS_sendto: {
    bool to = n->data.nr == SYS_sendto;
    uint64_t alen = to ? a[5] : a[2];
    op->kind = to ? SBX_UN_SENDTO : SBX_UN_CONNECT;
    op->sockfd = (int)a[0];
    if (alen > sizeof op->addr)
      return -EINVAL;
    op->addrlen = (unsigned)alen;
    r = sbx_un_read_mem(tid, to ? a[4] : a[1], &op->addr, op->addrlen);
    if (r == 0 && to) {
      op->flags = (int)a[3];
      if (a[2] > SBX_UN_MAX_DATA)
        return -EMSGSIZE; /* larger than any datagram: refused, documented */
      op->datalen = (size_t)a[2];
      op->data = malloc(op->datalen ? op->datalen : 1);
      if (!op->data)
        return -ENOMEM;
      r = sbx_un_read_mem(tid, a[1], op->data, op->datalen);
    }
    break;
  }
  case SYS_bind:
    op->kind = SBX_UN_BIND;
    op->sockfd = (int)a[0];
    if (a[2] > sizeof op->addr)
      return -EINVAL;
    op->addrlen = (unsigned)a[2];
    r = sbx_un_read_mem(tid, a[1], &op->addr, op->addrlen);
    break;
  case SYS_listen:
    op->kind = SBX_UN_LISTEN;
    op->sockfd = (int)a[0];
    op->flags = (int)a[1];
    r = 0;
    break;
  case SYS_sendmsg:
  case SYS_sendmmsg:
    /* Copied below, once we hold the socket (sbx_unotify_msg.c). */
    op->kind = SBX_UN_SENDMSG;
    op->sockfd = (int)a[0];
    r = 0;
    break;
  default:
    return -ENOSYS;
  }
  if (r != 0)
    return r;
  r = sbx_un_ids(tid, &op->uid, &op->gid, tgid);
  if (r != 0)
    return r;
  r = sbx_un_namespaces(tid, op);
  if (r != 0)
    return r;
  if (op->kind == SBX_UN_UNLINK || op->kind == SBX_UN_RENAME) {
    for (int i = 0; i < (op->kind == SBX_UN_RENAME ? 2 : 1); i++) {
      /* An absolute path ignores its dirfd (openat(2)); we still need an
       * fd for the *at call, and the helper's root makes "/" right. */
      op->fd[i] = sbx_un_dirfd(tid, op->path[i][0] == '/' ? AT_FDCWD : op->dirfd[i]);
      if (op->fd[i] < 0)
        return op->fd[i];
    }
  } else {
    op->sock = sbx_un_pidfd_getfd(*tgid, op->sockfd);
    if (op->sock < 0)
      return op->sock;
    if (sbx_un_sock_domain(op->sock) == AF_UNIX) {
      op->fd[0] = sbx_un_dirfd(tid, AT_FDCWD); /* the helper's cwd: see sbx_un_helper */
      if (op->fd[0] < 0)
        return op->fd[0];
    }
    if (op->kind == SBX_UN_SENDMSG)
      return sbx_un_msg_collect(n, op, *tgid);
  }
  return 0;
}

void sbx_un_op_free(struct sbx_un_op *op)
{
  if (op->userns >= 0)
    close(op->userns);
  if (op->mntns >= 0)
    close(op->mntns);
  for (int i = 0; i < 2; i++)
    if (op->fd[i] > 0)
      close(op->fd[i]);
  if (op->sock > 0)
    close(op->sock);
  free(op->data);
  sbx_un_msg_free(op);
}
