/* sbx_unotify_git: does the workspace's git already hold a file's exact
 * contents? (docs/approvals.md, "What counts as a deletion"). Removing
 * such a file loses nothing: `git checkout`, `git stash`, `git rebase`
 * replace every work-tree file they update by unlinking it first, and
 * each of those files' contents is a blob of the repository.
 *
 * The object id is git's: SHA-1 of "blob <size>\0" and the contents (a
 * symlink's contents are its target). It is held when a loose object of
 * that name exists in <workspace>/.git/objects, or a pack index there
 * lists it. What is hashed is what the helper reads under the directory's
 * lock, through the very inode that is then removed.
 *
 * Why an object's name, not its contents, is trusted: the objects
 * directory is as writable as the file, so a command that plants a false
 * object could equally have truncated the file or renamed another over it
 * (both writes, never asked). This rule gives a command that means harm
 * nothing a write does not; it keeps asking when a tool would really lose
 * work (`git reset --hard` or `git checkout -f` over uncommitted changes:
 * those contents are in no object). Repositories with SHA-256 object
 * names, linked worktrees (.git a file) and submodules are not looked
 * into: their removals are asked, as before. */
#include "sbx_unotify_op.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

/* Larger files are asked about: hashing them would make each removal
 * slow, and a tool's checkout of such a file is rare. */
#define SBX_UN_GIT_MAX_SIZE (64u * 1024u * 1024u)

struct sbx_sha1 {
  uint32_t h[5];
  uint64_t len;
  unsigned char buf[64];
  size_t fill;
};

static uint32_t sbx_rol(uint32_t x, int n)
{
  return (x << n) | (x >> (32 - n));
}

/* FIPS 180-4, section 6.1.2: one 512-bit block. */
static void sbx_sha1_block(struct sbx_sha1 *s, const unsigned char *p)
{
  uint32_t w[80], a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4];
  for (int t = 0; t < 16; t++)
    w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 | (uint32_t)p[4 * t + 2] << 8 |
           (uint32_t)p[4 * t + 3];
  for (int t = 16; t < 80; t++)
    w[t] = sbx_rol(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
  for (int t = 0; t < 80; t++) {
    uint32_t f, k;
    if (t < 20) {
      f = (b & c) | (~b & d);
      k = 0x5a827999u;
    } else if (t < 40) {
      f = b ^ c ^ d;
      k = 0x6ed9eba1u;
    } else if (t < 60) {
      f = (b & c) | (b & d) | (c & d);
      k = 0x8f1bbcdcu;
    } else {
      f = b ^ c ^ d;
      k = 0xca62c1d6u;
    }
    uint32_t tmp = sbx_rol(a, 5) + f + e + k + w[t];
    e = d;
    d = c;
    c = sbx_rol(b, 30);
    b = a;
    a = tmp;
  }
  s->h[0] += a;
  s->h[1] += b;
  s->h[2] += c;
  s->h[3] += d;
  s->h[4] += e;
}

static void sbx_sha1_init(struct sbx_sha1 *s)
{
  static const uint32_t iv[5] = { 0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u, 0xc3d2e1f0u };
  memcpy(s->h, iv, sizeof iv);
  s->len = 0;
  s->fill = 0;
}

static void sbx_sha1_add(struct sbx_sha1 *s, const void *data, size_t n)
{
  const unsigned char *p = data;
  s->len += n;
  while (n > 0) {
    size_t k = 64 - s->fill < n ? 64 - s->fill : n;
    memcpy(s->buf + s->fill, p, k);
    s->fill += k;
    p += k;
    n -= k;
    if (s->fill == 64) {
      sbx_sha1_block(s, s->buf);
      s->fill = 0;
    }
  }
}

static void sbx_sha1_end(struct sbx_sha1 *s, unsigned char out[20])
{
  uint64_t bits = s->len * 8;
  unsigned char pad = 0x80, zero = 0, lenb[8];
  sbx_sha1_add(s, &pad, 1);
  while (s->fill != 56)
    sbx_sha1_add(s, &zero, 1);
  for (int i = 0; i < 8; i++)
    lenb[i] = (unsigned char)(bits >> (56 - 8 * i));
  sbx_sha1_add(s, lenb, 8);
  for (int i = 0; i < 20; i++)
    out[i] = (unsigned char)(s->h[i / 4] >> (24 - 8 * (i % 4)));
}

/* Git's blob id of `name` in `dirfd`, read through one descriptor (a
 * symlink: its target). false: not a regular file or symlink, too large,
 * or unreadable. */
static bool sbx_un_blob_id(int dirfd, const char *name, unsigned char id[20])
{
  struct sbx_sha1 s;
  struct stat st;
  char head[48];
  bool ok = false;
  int fd = -1;

  if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_size < 0 ||
      (uint64_t)st.st_size > SBX_UN_GIT_MAX_SIZE)
    return false;
  sbx_sha1_init(&s);
  if (S_ISLNK(st.st_mode)) {
    char target[4096];
    ssize_t n = readlinkat(dirfd, name, target, sizeof target);
    if (n < 0 || (size_t)n >= sizeof target)
      return false;
    snprintf(head, sizeof head, "blob %zd", n);
    sbx_sha1_add(&s, head, strlen(head) + 1);
    sbx_sha1_add(&s, target, (size_t)n);
    sbx_sha1_end(&s, id);
    return true;
  }
  if (!S_ISREG(st.st_mode))
    return false;
  /* O_NONBLOCK | O_NOCTTY: the name is locked to this regular inode
   * (sbx_un_lock_dir), but opening stays harmless whatever it were. */
  fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    goto done;
  snprintf(head, sizeof head, "blob %lld", (long long)st.st_size);
  sbx_sha1_add(&s, head, strlen(head) + 1);
  {
    unsigned char buf[65536];
    uint64_t left = (uint64_t)st.st_size;
    while (left > 0) {
      ssize_t n = read(fd, buf, left < sizeof buf ? left : sizeof buf);
      if (n <= 0)
        goto done; /* shorter than its size: not what git would hash */
      sbx_sha1_add(&s, buf, (size_t)n);
      left -= (uint64_t)n;
    }
  }
  sbx_sha1_end(&s, id);
  ok = true;
done:
  if (fd >= 0)
    close(fd);
  return ok;
}

/* Is `id` in the version-2 pack index open as `fd`? Its layout: magic
 * ff 74 4f 63, version 2, 256 cumulative counts, then the sorted ids. */
bool sbx_un_git_idx_has(int fd, const unsigned char id[20])
{
  struct stat st;
  const unsigned char *m;
  bool found = false;

  if (fstat(fd, &st) != 0 || st.st_size < 8 + 1024 + 40)
    return false;
  m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (m == MAP_FAILED)
    return false;
  if (memcmp(m, "\377tOc\0\0\0\2", 8) == 0) {
    const unsigned char *fan = m + 8;
#define SBX_BE32(p)                                                                                \
  ((uint32_t)(p)[0] << 24 | (uint32_t)(p)[1] << 16 | (uint32_t)(p)[2] << 8 | (p)[3])
    uint32_t hi = SBX_BE32(fan + 4 * id[0]), lo = id[0] ? SBX_BE32(fan + 4 * (id[0] - 1)) : 0;
    uint32_t total = SBX_BE32(fan + 4 * 255);
#undef SBX_BE32
    /* A truncated or inconsistent index: nothing in it counts. */
    if (lo <= hi && hi <= total && (uint64_t)st.st_size >= 8 + 1024 + (uint64_t)total * 20) {
      const unsigned char *ids = m + 8 + 1024;
      while (lo < hi && !found) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = memcmp(ids + (size_t)mid * 20, id, 20);
        if (c == 0)
          found = true;
        else if (c < 0)
          lo = mid + 1;
        else
          hi = mid;
      }
    }
  }
  munmap((void *)m, (size_t)st.st_size);
  return found;
}

bool sbx_un_git_holds(int dir, const char *name, const char *workspace)
{
  unsigned char id[20];
  char path[4200], hex[41];
  struct stat st;
  bool held = false;
  DIR *packs;
  struct dirent *de;

  if (!workspace || workspace[0] != '/' || !sbx_un_blob_id(dir, name, id))
    return false;
  for (int i = 0; i < 20; i++)
    snprintf(hex + 2 * i, 3, "%02x", id[i]);
  snprintf(path, sizeof path, "%s%s.git/objects/%.2s/%s", workspace,
           workspace[strlen(workspace) - 1] == '/' ? "" : "/", hex, hex + 2);
  if (fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
    return true;
  snprintf(path, sizeof path, "%s%s.git/objects/pack", workspace,
           workspace[strlen(workspace) - 1] == '/' ? "" : "/");
  packs = opendir(path);
  if (!packs)
    return false;
  while (!held && (de = readdir(packs))) {
    size_t l = strlen(de->d_name);
    int fd;
    if (l < 5 || strcmp(de->d_name + l - 4, ".idx") != 0)
      continue;
    fd = openat(dirfd(packs), de->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
      continue;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
      held = sbx_un_git_idx_has(fd, id);
    close(fd);
  }
  closedir(packs);
  return held;
}
