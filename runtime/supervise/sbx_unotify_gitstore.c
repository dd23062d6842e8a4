/* sbx_unotify_gitstore: removals by which git reorganises its own object
 * store and loses no object (docs/approvals.md, "What counts as a
 * deletion"; issue 13). `git gc` (and `git repack -d`, `git prune-packed`,
 * the automatic gc after a commit or rebase) packs the loose objects, then
 * removes each loose one the new pack holds, the fan-out directories left
 * empty, and the old packs whose objects are all in the new one. Each of
 * those files existed before the run, so without this rule every one is
 * asked about, and with no approver gc leaves everything behind and says
 * so hundreds of times.
 *
 * Free here, in <workspace>/.git/objects only:
 *   - objects/XX/<38 hex>: a loose object whose id (its name) a pack index
 *     in objects/pack lists;
 *   - objects/XX, an rmdir: a fan-out directory (rmdir removes only an
 *     empty one, whose entries were each judged by a removal of their own);
 *   - objects/pack/pack-<hex>.{pack,idx,rev,bitmap,mtimes}: every id that
 *     pack-<hex>.idx lists is in another pack index of the directory.
 * Never .keep or .promisor (they change what later repacks keep, and git
 * never removes a .keep itself).
 *
 * Why names and indexes are trusted, not the objects' contents: the
 * objects directory is as writable as the file removed, so a command that
 * plants a false index could equally overwrite the loose object or the
 * pack (writes, never asked). The rule gives a command that means harm
 * nothing a write does not, and it never frees an object no pack names. */
#include "sbx_unotify_op.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool sbx_un_is_hex(const char *s, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
      return false;
  return s[n] == '\0';
}

static bool sbx_un_same_inode(int fd, int at, const char *name)
{
  struct stat a, b;
  return fstat(fd, &a) == 0 && fstatat(at, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
         S_ISDIR(b.st_mode) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static int sbx_un_hexval(char c)
{
  return c <= '9' ? c - '0' : c - 'a' + 10;
}

static void sbx_un_id_of(const char *hex40, unsigned char id[20])
{
  for (int i = 0; i < 20; i++)
    id[i] = (unsigned char)(sbx_un_hexval(hex40[2 * i]) << 4 | sbx_un_hexval(hex40[2 * i + 1]));
}

/* Does a pack index in `packfd` other than `except` (NULL: none) list id? */
static bool sbx_un_packed(int packfd, const unsigned char id[20], const char *except)
{
  int dfd = openat(packfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
  struct dirent *de;
  bool held = false;
  if (!d) {
    if (dfd >= 0)
      close(dfd);
    return false;
  }
  while (!held && (de = readdir(d))) {
    size_t l = strlen(de->d_name);
    struct stat st;
    int fd;
    if (l < 5 || strcmp(de->d_name + l - 4, ".idx") != 0 ||
        (except && strcmp(de->d_name, except) == 0))
      continue;
    fd = openat(packfd, de->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
      continue;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
      held = sbx_un_git_idx_has(fd, id);
    close(fd);
  }
  closedir(d);
  return held;
}

/* Is every id pack-<hex>.idx lists held by another index of `packfd`?
 * An index that cannot be read, or of another version: no. */
static bool sbx_un_pack_redundant(int packfd, const char *idx_name)
{
  int fd = openat(packfd, idx_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  unsigned char head[8 + 1024], id[20];
  uint32_t total;
  bool all = false;
  struct stat st;
  if (fd < 0)
    return false;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      pread(fd, head, sizeof head, 0) != (ssize_t)sizeof head ||
      memcmp(head, "\377tOc\0\0\0\2", 8) != 0)
    goto done;
  total = (uint32_t)head[8 + 1020] << 24 | (uint32_t)head[8 + 1021] << 16 |
          (uint32_t)head[8 + 1022] << 8 | head[8 + 1023];
  if ((uint64_t)st.st_size < sizeof head + (uint64_t)total * 20)
    goto done;
  all = true;
  for (uint32_t i = 0; all && i < total; i++)
    all = pread(fd, id, 20, (off_t)(sizeof head + (uint64_t)i * 20)) == 20 &&
          sbx_un_packed(packfd, id, idx_name);
done:
  close(fd);
  return all;
}

bool sbx_un_git_store_free(int dirfd, const char *name, bool is_dir, const char *workspace)
{
  char path[4200], fan[3], idx[80];
  static const char *const pack_exts[] = { ".pack", ".idx", ".rev", ".bitmap", ".mtimes", NULL };
  size_t n = strlen(name);
  int objfd, packfd = -1;
  bool free_ = false;

  if (!workspace || workspace[0] != '/')
    return false;
  snprintf(path, sizeof path, "%s%s.git/objects", workspace,
           workspace[strlen(workspace) - 1] == '/' ? "" : "/");
  /* O_NOFOLLOW on the last name: the plan refuses a .git that is a
   * symlink; objects/ as one is not the store this rule reasons about. */
  objfd = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (objfd < 0)
    return false;
  if (is_dir) {
    /* An empty fan-out directory of objects/ itself. */
    free_ = n == 2 && sbx_un_is_hex(name, 2) && sbx_un_same_inode(dirfd, objfd, ".");
    goto done;
  }
  packfd = openat(objfd, "pack", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (packfd < 0)
    goto done;
  if (n == 38 && sbx_un_is_hex(name, 38)) {
    /* A loose object: its directory must be objects/XX, XX its id's first
     * byte (found by trying the 256 names: the helper knows the directory
     * by descriptor only). */
    for (int b = 0; b < 256 && !free_; b++) {
      char hex40[41];
      unsigned char id[20];
      snprintf(fan, sizeof fan, "%02x", b);
      if (!sbx_un_same_inode(dirfd, objfd, fan))
        continue;
      snprintf(hex40, sizeof hex40, "%s%s", fan, name);
      sbx_un_id_of(hex40, id);
      free_ = sbx_un_packed(packfd, id, NULL);
      break;
    }
    goto done;
  }
  /* pack-<40 hex><ext> in objects/pack. */
  if (n > 45 && strncmp(name, "pack-", 5) == 0 && sbx_un_same_inode(dirfd, packfd, ".")) {
    const char *dot = strchr(name + 5, '.');
    if (!dot || dot - (name + 5) != 40)
      goto done;
    for (const char *const *e = pack_exts; *e; e++)
      if (strcmp(dot, *e) == 0) {
        char hex[41];
        memcpy(hex, name + 5, 40);
        hex[40] = '\0';
        if (!sbx_un_is_hex(hex, 40))
          break;
        snprintf(idx, sizeof idx, "pack-%s.idx", hex);
        free_ = sbx_un_pack_redundant(packfd, idx);
        break;
      }
  }
done:
  if (packfd >= 0)
    close(packfd);
  close(objfd);
  return free_;
}
