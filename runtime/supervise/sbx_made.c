/* sbx_made: see sbx_made.h.
 *
 * The record, one text file per workspace named by the workspace
 * directory's device and inode ("<dev>-<ino>", hexadecimal):
 *
 *   workspace /home/me/project
 *   1764669000.123456789 1764669012.500000000
 *   ...
 *
 * the first line names the directory (so a directory that later has the
 * same device and inode is not mistaken for it), each further line one
 * run's span in seconds and nanoseconds of the real-time clock. A lock
 * file beside the records serializes writers, so that a rewrite never
 * loses another run's append. */
#include "sbx_made.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* A record larger than this is not read (and is rewritten when a run
 * records): SBX_MADE_SPANS_MAX lines are far below it. */
#define SBX_MADE_FILE_MAX (1u << 20)
/* Appends until the record holds about this much, then one rewrite. */
#define SBX_MADE_REWRITE_AT (64u * 1024u)

static int sbx_ts_cmp(const struct timespec *a, const struct timespec *b)
{
  if (a->tv_sec != b->tv_sec)
    return a->tv_sec < b->tv_sec ? -1 : 1;
  if (a->tv_nsec != b->tv_nsec)
    return a->tv_nsec < b->tv_nsec ? -1 : 1;
  return 0;
}

void sbx_made_wait_coarse_past(const struct timespec *t)
{
  struct timespec coarse, tick = { .tv_sec = 0, .tv_nsec = 1000000 };
  /* Bounded: a clock stepped back would keep it waiting; then stamps
   * merely fall inside or outside by a tick, as without the wait. */
  for (int i = 0; i < 100; i++) {
    if (clock_gettime(CLOCK_REALTIME_COARSE, &coarse) != 0 || sbx_ts_cmp(&coarse, t) > 0)
      return;
    (void)nanosleep(&tick, NULL);
  }
}

int sbx_made_dir(char *buf, size_t len)
{
  const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
  int n;
  /* XDG: a relative $XDG_STATE_HOME is to be ignored. */
  if (xdg && xdg[0] == '/')
    n = snprintf(buf, len, "%s/commander-sandbox/made", xdg);
  else if (home && home[0] == '/')
    n = snprintf(buf, len, "%s/.local/state/commander-sandbox/made", home);
  else
    return -ENOENT;
  return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* The record's name for the workspace, and its first line. */
static int sbx_made_names(const char *workspace, char *name, size_t nlen, char *head, size_t hlen)
{
  struct stat st;
  if (strchr(workspace, '\n'))
    return -EINVAL; /* cannot be written on one line: not recorded */
  if (stat(workspace, &st) != 0)
    return -errno;
  if ((size_t)snprintf(name, nlen, "%" PRIx64 "-%" PRIx64, (uint64_t)st.st_dev,
                       (uint64_t)st.st_ino) >= nlen ||
      (size_t)snprintf(head, hlen, "workspace %s\n", workspace) >= hlen)
    return -ENAMETOOLONG;
  return 0;
}

/* Ours alone: owned by the caller, writable by no one else. A record
 * another user could write could claim any span, and with it that every
 * file in the workspace was made by a run. */
static bool sbx_made_private(int fd, bool want_dir)
{
  struct stat st;
  return fstat(fd, &st) == 0 && st.st_uid == geteuid() && !(st.st_mode & 022) &&
         (want_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
}

/* Reads a whole (small) file; NUL-terminated; NULL on error or too big. */
static char *sbx_made_slurp(int fd, size_t *len)
{
  size_t cap = 4096, got = 0;
  char *buf = malloc(cap + 1), *grown;
  ssize_t n;
  if (!buf)
    return NULL;
  for (;;) {
    if (got == cap) {
      if (cap >= SBX_MADE_FILE_MAX || !(grown = realloc(buf, cap * 2 + 1)))
        goto fail;
      buf = grown;
      cap *= 2;
    }
    n = read(fd, buf + got, cap - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      goto fail;
    if (n == 0)
      break;
    got += (size_t)n;
  }
  buf[got] = '\0';
  *len = got;
  return buf;
fail:
  free(buf);
  return NULL;
}

static int sbx_span_order(const void *a, const void *b)
{
  const struct sbx_made_span *x = a, *y = b;
  return sbx_ts_cmp(&x->from, &y->from);
}

/* Sorts and merges overlapping spans, then keeps the newest `keep`. */
static void sbx_made_normalize(struct sbx_made_span *s, size_t *n, size_t keep)
{
  size_t out = 0;
  if (*n == 0)
    return;
  qsort(s, *n, sizeof *s, sbx_span_order);
  for (size_t i = 1; i < *n; i++) {
    /* Open spans: (a,b) and (b,c) leave b out, so only a real overlap
     * merges. */
    if (sbx_ts_cmp(&s[i].from, &s[out].to) < 0) {
      if (sbx_ts_cmp(&s[i].to, &s[out].to) > 0)
        s[out].to = s[i].to;
    } else {
      s[++out] = s[i];
    }
  }
  *n = out + 1;
  if (*n > keep) {
    memmove(s, s + (*n - keep), keep * sizeof *s);
    *n = keep;
  }
}

/* Parses "S.NNNNNNNNN" (nine digits of nanoseconds). */
static const char *sbx_made_ts(const char *p, struct timespec *t)
{
  char *end;
  if (*p < '0' || *p > '9')
    return NULL;
  errno = 0;
  unsigned long long s = strtoull(p, &end, 10);
  if (errno || *end != '.' || s > (unsigned long long)INT64_MAX / 2)
    return NULL;
  p = end + 1;
  long ns = 0;
  for (int i = 0; i < 9; i++, p++) {
    if (*p < '0' || *p > '9')
      return NULL;
    ns = ns * 10 + (*p - '0');
  }
  t->tv_sec = (time_t)s;
  t->tv_nsec = ns;
  return p;
}

/* Whether the record open at fd begins with `head`, its first line. */
static bool sbx_made_head_is(int fd, const char *head)
{
  size_t n = strlen(head);
  char *buf = malloc(n);
  bool same = buf && pread(fd, buf, n, 0) == (ssize_t)n && memcmp(buf, head, n) == 0;
  free(buf);
  return same;
}

/* The spans of a record's text after its first line `head`; lines that
 * are not "FROM TO" with FROM < TO <= now are skipped. Spans that end in
 * the future (a clock set back since, or a hand-edited record) would
 * cover files not made yet: skipped too. */
static int sbx_made_parse(const char *text, const char *head, struct sbx_made_span **out, size_t *n)
{
  size_t cap = 0;
  struct timespec now;
  const char *p;
  *out = NULL;
  *n = 0;
  if (strncmp(text, head, strlen(head)) != 0)
    return 0; /* another directory with the same device and inode */
  if (clock_gettime(CLOCK_REALTIME, &now) != 0)
    return 0;
  for (p = text + strlen(head); *p;) {
    const char *eol = strchr(p, '\n'), *q;
    struct sbx_made_span sp;
    if (!eol)
      break; /* an append cut short: not a whole line */
    if ((q = sbx_made_ts(p, &sp.from)) && *q == ' ' && (q = sbx_made_ts(q + 1, &sp.to)) &&
        q == eol && sbx_ts_cmp(&sp.from, &sp.to) < 0 && sbx_ts_cmp(&sp.to, &now) <= 0) {
      if (*n == cap) {
        size_t ncap = cap ? cap * 2 : 64;
        struct sbx_made_span *g = realloc(*out, ncap * sizeof *g);
        if (!g) {
          free(*out);
          *out = NULL;
          *n = 0;
          return -ENOMEM;
        }
        *out = g;
        cap = ncap;
      }
      (*out)[(*n)++] = sp;
    }
    p = eol + 1;
  }
  return 0;
}

int sbx_made_load(const char *dir, const char *workspace, struct sbx_made *m)
{
  char name[64], head[4200];
  int dfd = -1, fd = -1, r = 0;
  size_t len;
  char *text = NULL;

  memset(m, 0, sizeof *m);
  if (sbx_made_names(workspace, name, sizeof name, head, sizeof head) != 0)
    return 0;
  if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
      !sbx_made_private(dfd, true))
    goto done;
  if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0 ||
      !sbx_made_private(fd, false) || !(text = sbx_made_slurp(fd, &len)))
    goto done;
  r = sbx_made_parse(text, head, &m->spans, &m->n);
  sbx_made_normalize(m->spans, &m->n, SBX_MADE_SPANS_MAX);
done:
  free(text);
  if (fd >= 0)
    close(fd);
  if (dfd >= 0)
    close(dfd);
  return r;
}

/* Makes every missing directory of `path` (0700), leaving those that
 * exist as they are; the last must end up ours alone (checked by the
 * caller through its descriptor). */
static int sbx_made_mkdirs(const char *path)
{
  char buf[4096];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
    return -ENAMETOOLONG;
  for (char *s = buf + 1; *s; s++) {
    if (*s != '/')
      continue;
    *s = '\0';
    if (mkdir(buf, 0700) != 0 && errno != EEXIST)
      return -errno;
    *s = '/';
  }
  if (mkdir(buf, 0700) != 0 && errno != EEXIST)
    return -errno;
  return 0;
}

static int sbx_made_write_all(int fd, const char *p, size_t len)
{
  while (len) {
    ssize_t n = write(fd, p, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return n < 0 ? -errno : -EIO;
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

static int sbx_made_line(char *buf, size_t len, const struct sbx_made_span *s)
{
  int n = snprintf(buf, len, "%" PRId64 ".%09ld %" PRId64 ".%09ld\n", (int64_t)s->from.tv_sec,
                   (long)s->from.tv_nsec, (int64_t)s->to.tv_sec, (long)s->to.tv_nsec);
  return n < 0 || (size_t)n >= len ? -1 : n;
}

/* Rewrites the record with its spans merged and the newest kept, through
 * a temporary file renamed over it (under the writers' lock). */
static int sbx_made_rewrite(int dfd, const char *name, const char *head, const char *text)
{
  struct sbx_made_span *spans;
  size_t n;
  char tmp[96], line[64];
  int r = sbx_made_parse(text, head, &spans, &n), fd;
  if (r != 0)
    return r;
  sbx_made_normalize(spans, &n, SBX_MADE_SPANS_MAX);
  snprintf(tmp, sizeof tmp, "%s.new", name);
  (void)unlinkat(dfd, tmp, 0);
  if ((fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) {
    free(spans);
    return -errno;
  }
  r = sbx_made_write_all(fd, head, strlen(head));
  for (size_t i = 0; r == 0 && i < n; i++) {
    int len = sbx_made_line(line, sizeof line, &spans[i]);
    r = len < 0 ? -EOVERFLOW : sbx_made_write_all(fd, line, (size_t)len);
  }
  free(spans);
  if (r == 0 && fsync(fd) != 0)
    r = -errno;
  close(fd);
  if (r == 0 && renameat(dfd, tmp, dfd, name) != 0)
    r = -errno;
  if (r != 0)
    (void)unlinkat(dfd, tmp, 0);
  return r;
}

/* Removes the records of workspaces that are gone (their directory
 * missing, or another one at its path), so that the state directory does
 * not grow with every workspace ever used. Called under the writers'
 * lock when a new record is made, which is when one more is left. */
static void sbx_made_prune(int dfd)
{
  int fd2 = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d = fd2 >= 0 ? fdopendir(fd2) : NULL;
  struct dirent *e;
  if (!d) {
    if (fd2 >= 0)
      close(fd2);
    return;
  }
  while ((e = readdir(d))) {
    char head[4200], want[64];
    struct stat st;
    ssize_t n;
    int fd;
    if (!strchr(e->d_name, '-') || strchr(e->d_name, '.'))
      continue; /* ".", "..", "lock", "X.new" */
    if ((fd = openat(dfd, e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0)
      continue;
    n = read(fd, head, sizeof head - 1);
    close(fd);
    if (n <= 10 || strncmp(head, "workspace ", 10) != 0)
      continue; /* not one of ours: left alone */
    head[n] = '\0';
    char *nl = strchr(head, '\n');
    if (!nl)
      continue;
    *nl = '\0';
    if (stat(head + 10, &st) == 0) {
      snprintf(want, sizeof want, "%" PRIx64 "-%" PRIx64, (uint64_t)st.st_dev, (uint64_t)st.st_ino);
      if (strcmp(want, e->d_name) == 0)
        continue; /* still that workspace */
    } else if (errno != ENOENT && errno != ENOTDIR) {
      continue; /* cannot tell (EACCES, a mount gone): kept */
    }
    (void)unlinkat(dfd, e->d_name, 0);
  }
  closedir(d);
}

int sbx_made_record(const char *dir, const char *workspace, const struct sbx_made *m)
{
  char name[64], head[4200], line[64];
  struct sbx_made_span span;
  struct stat st;
  int dfd = -1, lfd = -1, fd = -1, r, len;
  size_t tlen;
  char *text = NULL;

  if (!m->run_from_set)
    return 0;
  span.from = m->run_from;
  /* The fine clock, read now that every process of the run is gone:
   * every stamp of the run is at or below it. Not the coarse clock alone:
   * since Linux 6.13 a change time may come from the fine clock
   * (multigrain timestamps), up to a tick ahead of the coarse one, so a
   * file the run's last step wrote (a build's final link) could be
   * stamped after a coarse reading and be asked about in the next run.
   * Then we wait until the coarse clock has passed the reading (at most
   * a tick), so that anything stamped once sbx has returned (a person's
   * chmod right after) is stamped after it and stays someone's. The span
   * excludes its end: one nanosecond on, so a stamp equal to the reading
   * is inside. */
  if (clock_gettime(CLOCK_REALTIME, &span.to) != 0)
    return -errno;
  sbx_made_wait_coarse_past(&span.to);
  if (++span.to.tv_nsec == 1000000000L) {
    span.to.tv_nsec = 0;
    span.to.tv_sec++;
  }
  if (sbx_ts_cmp(&span.from, &span.to) >= 0)
    return 0; /* a clock stepped back during the run: not recorded */
  if ((r = sbx_made_names(workspace, name, sizeof name, head, sizeof head)) != 0)
    return r == -EINVAL ? 0 : r;
  if ((r = sbx_made_mkdirs(dir)) != 0)
    return r;
  r = -EPERM;
  if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
    r = -errno;
    goto done;
  }
  if (!sbx_made_private(dfd, true))
    goto done;
  if ((lfd = openat(dfd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) {
    r = -errno;
    goto done;
  }
  while (flock(lfd, LOCK_EX) != 0)
    if (errno != EINTR) {
      r = -errno;
      goto done;
    }
  if ((fd = openat(dfd, name, O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
                   0600)) < 0) {
    r = -errno;
    goto done;
  }
  r = -EPERM;
  if (!sbx_made_private(fd, false) || fstat(fd, &st) != 0)
    goto done;
  /* A record whose first line names another directory is of one that is
   * gone: two directories never hold one device and inode at once, and a
   * removed workspace's inode is reused (a test suite's temporary
   * workspaces met it under load). Appending to it would keep this
   * workspace's spans unbelieved forever (sbx_made_parse): start over. */
  if (st.st_size > 0 && !sbx_made_head_is(fd, head)) {
    if (ftruncate(fd, 0) != 0) {
      r = -errno;
      goto done;
    }
    st.st_size = 0;
  }
  if (st.st_size == 0) {
    if ((r = sbx_made_write_all(fd, head, strlen(head))) != 0)
      goto done;
    sbx_made_prune(dfd);
  }
  if ((len = sbx_made_line(line, sizeof line, &span)) < 0) {
    r = -EOVERFLOW;
    goto done;
  }
  if ((r = sbx_made_write_all(fd, line, (size_t)len)) != 0)
    goto done;
  if ((uint64_t)st.st_size + (uint64_t)len > SBX_MADE_REWRITE_AT) {
    /* Grown: merge and keep the newest, read back through the same
     * descriptor (appends land at the end whatever the offset). */
    if (lseek(fd, 0, SEEK_SET) != 0) {
      r = -errno;
      goto done;
    }
    text = sbx_made_slurp(fd, &tlen);
    r = text ? sbx_made_rewrite(dfd, name, head, text) : -EFBIG;
    if (r == -EFBIG) {
      /* Too big to read back: start over (older spans are then asked
       * about again: closed). */
      r = ftruncate(fd, 0) == 0 ? sbx_made_write_all(fd, head, strlen(head)) : -errno;
      if (r == 0)
        r = sbx_made_write_all(fd, line, (size_t)len);
    }
  }
done:
  free(text);
  if (fd >= 0)
    close(fd);
  if (lfd >= 0)
    close(lfd); /* and with it the lock */
  if (dfd >= 0)
    close(dfd);
  return r;
}

bool sbx_made_covers(const struct sbx_made *m, const struct timespec *t)
{
  size_t lo = 0, hi = m ? m->n : 0;
  /* The last span that starts before t, if any, is the only candidate:
   * the spans are sorted and do not overlap. */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (sbx_ts_cmp(&m->spans[mid].from, t) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo > 0 && sbx_ts_cmp(t, &m->spans[lo - 1].to) < 0;
}

void sbx_made_free(struct sbx_made *m)
{
  free(m->spans);
  m->spans = NULL;
  m->n = 0;
}
