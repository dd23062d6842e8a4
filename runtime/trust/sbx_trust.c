/* sbx_trust: see sbx_trust.h. */
#include "sbx_trust.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

/* Whether the resolved path `real` is dir or lies below it (both
 * resolved, no trailing slash). */
static int sbx_trust_path_within(const char *real, const char *dir)
{
  size_t n = strlen(dir);
  if (n == 1 && dir[0] == '/')
    return real[0] == '/';
  return strncmp(real, dir, n) == 0 && (real[n] == '/' || real[n] == '\0');
}

/* The POSIX ACL xattr (linux/posix_acl_xattr.h): a version word, then
 * entries of tag, permission and id. */
#define SBX_ACL_USER 0x02
#define SBX_ACL_GROUP_OBJ 0x04
#define SBX_ACL_GROUP 0x08
#define SBX_ACL_MASK 0x10
#define SBX_ACL_WRITE 0x02

struct sbx_acl_entry {
  uint16_t tag;
  uint16_t perm;
  uint32_t id;
};

/* 0 when the ACL of fd (if any) lets nobody but root and the caller
 * write; -EPERM with the reason in why otherwise, and when it cannot be
 * read (fail closed). */
static int sbx_trust_acl(const struct sbx_trust *t, int fd, char *why, size_t size)
{
  unsigned char buf[4 + 8 * 64];
  ssize_t n = fgetxattr(fd, "system.posix_acl_access", buf, sizeof buf);
  if (n < 0) {
    if (errno == ENODATA || errno == ENOTSUP)
      return 0; /* no ACL beyond the mode bits, or none possible here */
    snprintf(why, size, "its ACL cannot be read (%s)", strerror(errno));
    return -EPERM;
  }
  if (n < 4 || (n - 4) % 8 != 0) {
    snprintf(why, size, "its ACL is malformed");
    return -EPERM;
  }
  size_t count = (size_t)(n - 4) / 8;
  uint16_t mask = 0x7;
  for (size_t i = 0; i < count; i++) {
    struct sbx_acl_entry e;
    memcpy(&e, buf + 4 + 8 * i, sizeof e);
    if (e.tag == SBX_ACL_MASK)
      mask = e.perm;
  }
  for (size_t i = 0; i < count; i++) {
    struct sbx_acl_entry e;
    memcpy(&e, buf + 4 + 8 * i, sizeof e);
    if (!(e.perm & mask & SBX_ACL_WRITE))
      continue;
    if (e.tag == SBX_ACL_USER && e.id != 0 && e.id != (uint32_t)t->caller) {
      snprintf(why, size, "its ACL lets uid %u write it", e.id);
      return -EPERM;
    }
    if (e.tag == SBX_ACL_GROUP || e.tag == SBX_ACL_GROUP_OBJ) {
      snprintf(why, size, "its ACL lets a group write it");
      return -EPERM;
    }
  }
  return 0;
}

/* Who may write what st describes, besides root and the caller. */
static int sbx_trust_writers(const struct sbx_trust *t, const struct stat *st, char *why,
                             size_t size)
{
  /* The owner can always make it writable again, so only root and the
   * caller may own anything the rules are read from. */
  if (st->st_uid != 0 && st->st_uid != t->caller) {
    snprintf(why, size, "is owned by uid %u, who can change it", (unsigned)st->st_uid);
    return -EPERM;
  }
  /* In a sticky directory (/tmp) nobody but an entry's owner can rename
   * or remove it; the entry below is checked in its turn. */
  bool sticky_dir = S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX);
  if (!sticky_dir && (st->st_mode & S_IWOTH)) {
    snprintf(why, size, "is writable by every user (mode %04o)", (unsigned)(st->st_mode & 07777));
    return -EPERM;
  }
  /* A group may hold users besides the caller; which ones is not ours to
   * know for sure, so group write is refused like any other writer. */
  if (!sticky_dir && (st->st_mode & S_IWGRP)) {
    snprintf(why, size, "is writable by group gid %u (mode %04o)", (unsigned)st->st_gid,
             (unsigned)(st->st_mode & 07777));
    return -EPERM;
  }
  return 0;
}

static int sbx_trust_fail(const struct sbx_trust *t, const char *path, const char *what,
                          const char *why, int rc, FILE *err)
{
  fprintf(err, "sbx: error: %s: %s: %s%s%s\n", t->layer, path, what ? what : "", what ? " " : "",
          why);
  return rc;
}

/* Walks real (resolved, absolute) from / with O_NOFOLLOW, checking each
 * directory and the file on their descriptors; returns the file's
 * descriptor, open for reading, or a negative errno after a message. */
static int sbx_trust_walk(const struct sbx_trust *t, const char *shown, const char *real, FILE *err)
{
  char why[160], sofar[PATH_MAX];
  int dir = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0)
    return sbx_trust_fail(t, shown, NULL, "cannot open /", -errno, err);
  struct stat st;
  if (fstat(dir, &st) != 0 || sbx_trust_writers(t, &st, why, sizeof why) != 0 ||
      sbx_trust_acl(t, dir, why, sizeof why) != 0) {
    close(dir);
    return sbx_trust_fail(t, shown, "directory /", why, -EPERM, err);
  }
  const char *p = real + 1;
  size_t sofar_len = 0;
  sofar[0] = '\0';
  for (;;) {
    const char *slash = strchr(p, '/');
    size_t len = slash ? (size_t)(slash - p) : strlen(p);
    char comp[NAME_MAX + 1];
    if (len == 0 || len > NAME_MAX || sofar_len + 1 + len >= sizeof sofar) {
      close(dir);
      return sbx_trust_fail(t, shown, NULL, "has an unusable component", -ENAMETOOLONG, err);
    }
    memcpy(comp, p, len);
    comp[len] = '\0';
    sofar[sofar_len++] = '/';
    memcpy(sofar + sofar_len, comp, len + 1);
    sofar_len += len;
    bool last = slash == NULL;
    /* O_NOFOLLOW: the path was resolved once; a link here now is one
     * swapped in since, and refused (ELOOP). A FIFO would block an open
     * for reading: O_NONBLOCK, and the type is checked on the descriptor. */
    int flags = last ? O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC
                     : O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    int fd = openat(dir, comp, flags);
    int saved = errno;
    /* A directory the caller may search but not read (0711): opened as a
     * path only. Its ACL cannot be read through such a descriptor, and
     * need not be: any ACL entry granting write raises the mask, which is
     * the mode's group write bit, refused below. */
    bool path_only = false;
    if (fd < 0 && saved == EACCES && !last) {
      fd = openat(dir, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      saved = errno;
      path_only = fd >= 0;
    }
    close(dir);
    if (fd < 0) {
      snprintf(why, sizeof why, "cannot be opened without following links (%s)",
               saved == ELOOP ? "a symbolic link appeared after it was resolved" : strerror(saved));
      return sbx_trust_fail(t, shown, sofar, why, saved == ELOOP ? -EPERM : -saved, err);
    }
    if (fstat(fd, &st) != 0) {
      saved = errno;
      close(fd);
      return sbx_trust_fail(t, shown, sofar, strerror(saved), -saved, err);
    }
    int rc = sbx_trust_writers(t, &st, why, sizeof why);
    if (rc == 0 && !path_only)
      rc = sbx_trust_acl(t, fd, why, sizeof why);
    if (rc == 0 && last && !S_ISREG(st.st_mode)) {
      snprintf(why, sizeof why, "is not a regular file");
      rc = -EPERM;
    }
    /* Another name of the same inode could lie in the workspace or in any
     * directory the sandbox writes; one name is the only one checked. */
    if (rc == 0 && last && st.st_nlink > 1) {
      snprintf(why, sizeof why, "has %lu hard links; another name may lie where the sandbox writes",
               (unsigned long)st.st_nlink);
      rc = -EPERM;
    }
    if (rc != 0) {
      close(fd);
      /* Name what failed: the directory, or the file a link led to. */
      char what[PATH_MAX + 16];
      if (!last)
        snprintf(what, sizeof what, "directory %s", sofar);
      else if (strcmp(shown, real) != 0)
        snprintf(what, sizeof what, "(resolved to %s)", real);
      else
        what[0] = '\0';
      return sbx_trust_fail(t, shown, what[0] ? what : NULL, why, rc, err);
    }
    if (last) {
      if (fcntl(fd, F_SETFL, 0) != 0) { /* blocking reads from here on */
        saved = errno;
        close(fd);
        return sbx_trust_fail(t, shown, NULL, strerror(saved), -saved, err);
      }
      return fd;
    }
    dir = fd;
    p = slash + 1;
  }
}

int sbx_trust_read(const struct sbx_trust *t, const char *path, size_t max, char **data,
                   size_t *len, char *real, size_t real_size, FILE *err)
{
  *data = NULL;
  *len = 0;
  char *resolved = realpath(path, NULL);
  if (!resolved) {
    int saved = errno;
    return sbx_trust_fail(t, path, NULL, strerror(saved), -saved, err);
  }
  int rc;
  /* The sandboxed command writes the workspace: a policy read from there
   * could be rewritten by the very command it confined, for the next run. */
  if (t->workspace && sbx_trust_path_within(resolved, t->workspace)) {
    char why[PATH_MAX + 64];
    snprintf(why, sizeof why, "lies inside the workspace %s, which the sandboxed command can write",
             t->workspace);
    rc = sbx_trust_fail(t, path, NULL, why, -EPERM, err);
    goto done;
  }
  if (strlen(resolved) >= real_size) {
    rc = sbx_trust_fail(t, path, NULL, "path too long", -ENAMETOOLONG, err);
    goto done;
  }
  int fd = sbx_trust_walk(t, path, resolved, err);
  if (fd < 0) {
    rc = fd;
    goto done;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || (size_t)st.st_size > max) {
    close(fd);
    char why[64];
    snprintf(why, sizeof why, "is larger than %zu bytes", max);
    rc = sbx_trust_fail(t, path, NULL, why, -EFBIG, err);
    goto done;
  }
  char *buf = malloc(max + 1);
  size_t got = 0;
  rc = buf ? 0 : -ENOMEM;
  while (rc == 0) {
    ssize_t n = read(fd, buf + got, max + 1 - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      rc = sbx_trust_fail(t, path, NULL, strerror(errno), -errno, err);
      break;
    }
    if (n == 0)
      break;
    got += (size_t)n;
    if (got > max) { /* grew since fstat */
      char why[64];
      snprintf(why, sizeof why, "is larger than %zu bytes", max);
      rc = sbx_trust_fail(t, path, NULL, why, -EFBIG, err);
    }
  }
  close(fd);
  if (rc != 0) {
    free(buf);
    goto done;
  }
  buf[got] = '\0';
  *data = buf;
  *len = got;
  strcpy(real, resolved);
done:
  free(resolved);
  return rc;
}
