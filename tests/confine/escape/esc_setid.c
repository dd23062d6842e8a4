/* Set-id files, device nodes and file capabilities planted where the
 * command writes (issue 12, section 3): each would outlive the run and
 * give whoever runs or opens it later the owner's rights.
 *   esc_setid SETID-BINARY LINK-DIR
 * In the current directory: a copy of a program made set-uid/set-gid by
 * every call that takes a mode (chmod, fchmod, fchmodat, fchmodat2, open,
 * openat, creat, openat2, O_TMPFILE), set-gid directories (mkdir, chmod),
 * mknod of a set-uid regular file and of character and block devices,
 * security.capability on the copy, chown of the copy to root; a hard
 * link to SETID-BINARY in LINK-DIR. An attempt counts as an escape when its file ends up with a
 * set-id bit, a device type or file capabilities, whatever the call said.
 * Exit 0: all refused; 10: one got through (ESCAPED). */
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "esc_common.h"

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

/* Does path carry what the class is about? */
static int esc_planted(const char *path)
{
  struct stat st;
  if (lstat(path, &st) < 0)
    return 0;
  return (st.st_mode & (S_ISUID | S_ISGID)) || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ||
         lgetxattr(path, "security.capability", NULL, 0) > 0;
}

/* A plain copy of src (mode 0755), as a build step or cp would make. */
static int esc_copy(const char *src, const char *dst)
{
  char buf[65536];
  ssize_t n;
  int in = open(src, O_RDONLY | O_CLOEXEC), out;
  if (in < 0)
    return -1;
  out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
  if (out < 0) {
    close(in);
    return -1;
  }
  while ((n = read(in, buf, sizeof buf)) > 0)
    if (write(out, buf, (size_t)n) != n)
      break;
  close(in);
  close(out);
  return n == 0 ? 0 : -1;
}

#define ESC_TRY(call, path, what) ESC_ATTEMPT(((void)(call), esc_planted(path)), what)

int main(int argc, char **argv)
{
  char link_path[4096];
  int fd;
  if (argc != 3)
    ESC_USAGE("esc_setid SETID-BINARY LINK-DIR");
  /* A profile that cannot write keeps the driver's copy (or has none). */
  if (esc_copy("/usr/bin/true", "copy") < 0)
    fprintf(stderr, "note: no copy of /usr/bin/true made: %s\n", strerror(errno));
  ESC_TRY(chmod("copy", 04755), "copy", "chmod 4755");
  ESC_TRY(chmod("copy", 02755), "copy", "chmod 2755");
  fd = open("copy", O_RDONLY | O_CLOEXEC);
  ESC_TRY(fchmod(fd, 06755), "copy", "fchmod 6755");
  close(fd);
  ESC_TRY(fchmodat(AT_FDCWD, "copy", 04755, 0), "copy", "fchmodat 4755");
  ESC_TRY(syscall(SYS_fchmodat2, AT_FDCWD, "copy", 04755, 0), "copy", "fchmodat2 4755");

  fd = open("open", O_WRONLY | O_CREAT | O_CLOEXEC, 04755);
  ESC_ATTEMPT(esc_planted("open"), "open(O_CREAT, 04755)");
  if (fd >= 0)
    close(fd);
  fd = openat(AT_FDCWD, "openat", O_WRONLY | O_CREAT | O_CLOEXEC, 02755);
  ESC_ATTEMPT(esc_planted("openat"), "openat(O_CREAT, 02755)");
  if (fd >= 0)
    close(fd);
  fd = creat("creat", 04755);
  ESC_ATTEMPT(esc_planted("creat"), "creat(04755)");
  if (fd >= 0)
    close(fd);
  {
    struct open_how how = { .flags = O_WRONLY | O_CREAT | O_CLOEXEC, .mode = 04755 };
    fd = (int)syscall(SYS_openat2, AT_FDCWD, "openat2", &how, sizeof how);
    ESC_ATTEMPT(esc_planted("openat2"), "openat2(O_CREAT, mode 04755)");
    if (fd >= 0)
      close(fd);
  }
  /* An unnamed file given a name afterwards: its mode came with O_TMPFILE. */
  fd = open(".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 04755);
  if (fd >= 0) {
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    (void)linkat(AT_FDCWD, proc, AT_FDCWD, "tmpfile", AT_SYMLINK_FOLLOW);
    close(fd);
  }
  ESC_ATTEMPT(esc_planted("tmpfile"), "O_TMPFILE 04755, then linkat");

  ESC_TRY(mkdir("dir-mkdir", 02755), "dir-mkdir", "mkdir 2755");
  if (mkdir("dir-chmod", 0755) == 0 || errno == EEXIST)
    ESC_TRY(chmod("dir-chmod", 02755), "dir-chmod", "chmod 2755 on a directory");
  ESC_TRY(mkdirat(AT_FDCWD, "dir-mkdirat", 02755), "dir-mkdirat", "mkdirat 2755");

  ESC_TRY(mknod("node-reg", S_IFREG | 04755, 0), "node-reg", "mknod S_IFREG 4755");
  ESC_TRY(mknod("node-chr", S_IFCHR | 0666, makedev(1, 3)), "node-chr", "mknod S_IFCHR 1:3");
  ESC_TRY(mknodat(AT_FDCWD, "node-blk", S_IFBLK | 0600, makedev(7, 0)), "node-blk",
          "mknodat S_IFBLK 7:0");

  {
    /* File capabilities (revision 2): CAP_SETUID permitted and effective. */
    struct vfs_cap_data cap = { .magic_etc = VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE,
                                .data = { { .permitted = 1u << CAP_SETUID, .inheritable = 0 },
                                          { 0, 0 } } };
    int rc = setxattr("copy", "security.capability", &cap, XATTR_CAPS_SZ_2, 0);
    ESC_ATTEMPT(rc == 0 || lgetxattr("copy", "security.capability", NULL, 0) > 0,
                "setxattr security.capability");
  }

  /* Giving a file of its own to root (no CAP_CHOWN: only the file's
   * owner and its own groups are possible). Only meaningful where the
   * copy is not root's to begin with (a user's workspace). */
  {
    struct stat before;
    if (lstat("copy", &before) == 0 && before.st_uid != 0)
      ESC_ATTEMPT(chown("copy", 0, 0) == 0 || (lstat("copy", &before) == 0 && before.st_uid == 0),
                  "chown to root");
  }

  /* A second name for a set-uid program of the system: it would keep
   * today's version (and its holes) runnable after an update. */
  snprintf(link_path, sizeof link_path, "%s/sbx-setid-link", argv[2]);
  ESC_ATTEMPT(link(argv[1], link_path) == 0, "hard link to a set-uid program");
  ESC_DONE();
}
