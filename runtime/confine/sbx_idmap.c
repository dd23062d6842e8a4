/* sbx_idmap: the workspace of root, bound so that the command, which is
 * not root (sbx_plan_identity.c), works on it as its owner.
 *
 * A workspace root owns cannot be written by the unprivileged identity the
 * command runs as, which would end every build, edit and commit in it.
 * Its bind is made an idmapped mount instead: through it, files root owns
 * on disk show as the command's (run_uid/run_gid), and what the command
 * creates is stored as root's, the workspace owner's, like the rest of
 * the workspace. Only this bind is mapped: everywhere else (/tmp, allowed
 * paths, the host's root under permissive) the command is the plain
 * unprivileged uid it is. Nothing it creates can be set-id or carry file
 * capabilities: the system-call filter refuses the mode bits
 * (models/profiles.pol) and the command has no CAP_SETFCAP. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sbx_mount.h"

static int sbx_idmap_write(const char *proc, const char *file, const char *text)
{
  char path[PATH_MAX];
  size_t n = strlen(text);
  int fd, rc = 0;
  if (snprintf(path, sizeof path, "%s/%s", proc, file) >= (int)sizeof path)
    return -ENAMETOOLONG;
  if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
    return -errno;
  if (write(fd, text, n) != (ssize_t)n)
    rc = -errno;
  close(fd);
  return rc;
}

/* A user namespace whose uid 0 and gid 0 are uid/gid: the mapping of the
 * idmapped bind (on-disk root <-> uid/gid). Made by a child that only
 * waits; its host pid comes from procfs/self (procfs: the host's /proc,
 * as the view's builder sees it; this process may be pid 1 of a new pid
 * namespace, where its own pid is not the host's). */
static int sbx_idmap_userns(const char *procfs, uid_t uid, gid_t gid)
{
  char proc[PATH_MAX], link[PATH_MAX], self[32], map[PATH_MAX + 16];
  int go[2], back[2], fd = -1, rc;
  ssize_t n;
  pid_t child;
  if (pipe2(go, O_CLOEXEC) < 0)
    return -errno;
  if (pipe2(back, O_CLOEXEC) < 0) {
    rc = -errno;
    close(go[0]);
    close(go[1]);
    return rc;
  }
  child = (pid_t)syscall(SYS_clone, (unsigned long)CLONE_NEWUSER | SIGCHLD, NULL, NULL, NULL, 0);
  if (child == 0) {
    char c;
    close(go[1]);
    close(back[0]);
    n = snprintf(link, sizeof link, "%s/self", procfs) < (int)sizeof link
            ? readlink(link, self, sizeof self - 1)
            : -1;
    if (n > 0)
      (void)!write(back[1], self, (size_t)n);
    close(back[1]);
    (void)!read(go[0], &c, 1); /* until the parent is done */
    _exit(0);
  }
  close(back[1]);
  close(go[0]);
  if (child < 0) {
    rc = -errno;
    goto out;
  }
  n = read(back[0], self, sizeof self - 1);
  if (n <= 0) {
    rc = n < 0 ? -errno : -ESRCH;
    goto reap;
  }
  self[n] = '\0';
  if (snprintf(proc, sizeof proc, "%s/%s", procfs, self) >= (int)sizeof proc) {
    rc = -ENAMETOOLONG;
    goto reap;
  }
  snprintf(map, sizeof map, "0 %u 1\n", (unsigned)uid);
  if ((rc = sbx_idmap_write(proc, "uid_map", map)) < 0)
    goto reap;
  snprintf(map, sizeof map, "0 %u 1\n", (unsigned)gid);
  if ((rc = sbx_idmap_write(proc, "gid_map", map)) < 0)
    goto reap;
  if (snprintf(map, sizeof map, "%s/ns/user", proc) >= (int)sizeof map) {
    rc = -ENAMETOOLONG;
    goto reap;
  }
  fd = open(map, O_RDONLY | O_CLOEXEC);
  rc = fd < 0 ? -errno : fd;
reap:
  close(go[1]);
  go[1] = -1;
  while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
    ;
out:
  if (go[1] >= 0)
    close(go[1]);
  close(back[0]);
  return rc;
}

int sbx_bind_idmapped(const char *src, const char *dst, uint64_t attrs, uid_t uid, gid_t gid,
                      const char *procfs)
{
  struct sbx_mount_attr a = { .attr_set = attrs | SBX_MOUNT_ATTR_IDMAP };
  int tree, userns, rc = 0;
  if ((userns = sbx_idmap_userns(procfs, uid, gid)) < 0)
    return userns;
  a.userns_fd = (uint64_t)userns;
  tree = (int)syscall(SYS_open_tree, AT_FDCWD, src, SBX_OPEN_TREE_CLONE | AT_RECURSIVE | O_CLOEXEC);
  if (tree < 0 ||
      syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &a, sizeof a) < 0 ||
      syscall(SYS_move_mount, tree, "", AT_FDCWD, dst, SBX_MOVE_MOUNT_F_EMPTY_PATH) < 0)
    rc = -errno;
  if (tree >= 0)
    close(tree);
  close(userns);
  return rc;
}
