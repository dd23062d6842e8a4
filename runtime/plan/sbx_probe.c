/* sbx_probe: the facts a warm template's plan was computed from (probes,
 * recorded while the plan looks at them: sbx_probe) and the check that
 * they all still hold before a warm run uses the template
 * (sbx_plan_fresh), with the path resolution that check repeats on every
 * warm run (sbx_path_resolve). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sbx_plan.h"
#include "sbx_plan_parts.h"

/* An absolute path with no empty, "." or ".." component and no trailing
 * slash: one that realpath would return unchanged if no component is a
 * symlink. */
static bool sbx_path_plain(const char *path)
{
  if (path[0] != '/')
    return false;
  if (path[1] == '\0')
    return true;
  for (const char *c = path; *c;) {
    const char *e = strchr(c + 1, '/');
    size_t n = e ? (size_t)(e - c - 1) : strlen(c + 1);
    if (n == 0 || (n == 1 && c[1] == '.') || (n == 2 && c[1] == '.' && c[2] == '.'))
      return false;
    c = e ? e : c + 1 + n;
  }
  return true;
}

/* realpath for a path with a symlink somewhere: the kernel resolves it
 * while opening it (O_PATH: nothing is opened for reading, no device
 * touched), and the name of what it found is read back from
 * /proc/self/fd (open, readlink, close, where glibc's realpath reads the
 * link of each component). A name that is not a plain absolute path (an
 * object deleted meanwhile, a pipe, or outside our root) is left to
 * realpath. */
static char *sbx_path_resolve_open(const char *path)
{
  char link[64], buf[PATH_MAX];
  ssize_t n;
  int fd = open(path, O_PATH | O_CLOEXEC), e;
  if (fd < 0)
    return NULL;
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  n = readlink(link, buf, sizeof buf);
  e = errno;
  close(fd);
  if (n > 0 && (size_t)n < sizeof buf && buf[0] == '/') {
    buf[n] = '\0';
    if (!strstr(buf, " (deleted)"))
      return strdup(buf);
  }
  errno = e;
  return realpath(path, NULL);
}

/* realpath(path), cheaper. Each freshness check resolves every RESOLVE
 * probe again, on the warm run's path; glibc's realpath reads each
 * component's link (a readlink per component). A plain path that the
 * kernel opens while refusing every symlink on the way (openat2
 * RESOLVE_NO_SYMLINKS) has no symlink component, so realpath would return
 * it unchanged: one openat2 and a close. Otherwise sbx_path_resolve_open.
 * tests/confine/test_resolve.c compares the result with realpath's. */
char *sbx_path_resolve(const char *path)
{
  if (sbx_path_plain(path)) {
    struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_SYMLINKS };
    int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
    if (fd >= 0) {
      close(fd);
      return strdup(path);
    }
    if (errno == ENOENT)
      return NULL; /* a component is missing before any symlink: realpath fails too */
  }
  return sbx_path_resolve_open(path);
}

static void sbx_probe_fill(struct sbx_probe *pr)
{
  struct stat st;
  if (pr->kind == SBX_PROBE_RESOLVE) {
    pr->real = sbx_path_resolve(pr->path);
    pr->exists = pr->real != NULL;
    return;
  }
  pr->exists = lstat(pr->path, &st) == 0;
  if (!pr->exists)
    return;
  pr->dev = st.st_dev;
  pr->ino = st.st_ino;
  pr->type = st.st_mode & S_IFMT;
  pr->mtime = st.st_mtim;
  pr->ctime = st.st_ctim;
}

/* Records a fact the plan is about to use (warm templates only). */
void sbx_probe(struct sbx_plan *p, const char *path, enum sbx_probe_kind kind)
{
  struct sbx_probe *pr;
  if (!p->record)
    return;
  /* A fact the plan uses twice is checked once: every probe is re-checked
   * on each warm run's path (sbx_plan_fresh). The first recording is
   * kept, the one with the earliest time taken (sbx_ts_racy). */
  for (size_t i = 0; i < p->n_probes; i++)
    if (p->probes[i].kind == kind && strcmp(p->probes[i].path, path) == 0)
      return;
  if (p->n_probes == p->cap_probes) {
    size_t cap = p->cap_probes ? p->cap_probes * 2 : 64;
    void *m = realloc(p->probes, cap * sizeof *p->probes);
    if (!m) {
      p->probe_lost = true;
      return;
    }
    p->probes = m;
    p->cap_probes = cap;
  }
  pr = &p->probes[p->n_probes];
  memset(pr, 0, sizeof *pr);
  pr->kind = kind;
  pr->path = strdup(path);
  if (!pr->path) {
    p->probe_lost = true;
    return;
  }
  clock_gettime(CLOCK_REALTIME, &pr->taken);
  sbx_probe_fill(pr);
  p->n_probes++;
}

static bool sbx_ts_eq(const struct timespec *a, const struct timespec *b)
{
  return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* A timestamp within 2 s of when the probe was taken proves nothing: the
 * file system's clock is coarse, so a change right after the probe may
 * carry the same time. Such a probe never vouches for the plan. */
static bool sbx_ts_racy(const struct timespec *t, const struct timespec *taken)
{
  return t->tv_sec + 2 >= taken->tv_sec;
}

static bool sbx_plan_fresh_ex(const struct sbx_plan *p, bool skip_watched, char *why,
                              size_t why_len)
{
  if (p->probe_lost || !p->record) {
    snprintf(why, why_len, "the template's facts were not all recorded");
    return false;
  }
  for (size_t i = 0; i < p->n_probes; i++) {
    const struct sbx_probe *old = &p->probes[i];
    struct sbx_probe now = { .path = old->path, .kind = old->kind };
    bool same, racy = false;
    if (skip_watched && old->watched)
      continue;
    sbx_probe_fill(&now);
    if (old->kind == SBX_PROBE_RESOLVE) {
      same = old->exists == now.exists && (!old->exists || strcmp(old->real, now.real) == 0);
      free(now.real);
    } else {
      same =
          old->exists == now.exists &&
          (!old->exists || (old->dev == now.dev && old->ino == now.ino && old->type == now.type));
      if (same && old->exists && old->kind == SBX_PROBE_LIST) {
        same = sbx_ts_eq(&old->mtime, &now.mtime) && sbx_ts_eq(&old->ctime, &now.ctime);
        racy = same &&
               (sbx_ts_racy(&old->mtime, &old->taken) || sbx_ts_racy(&old->ctime, &old->taken));
      }
    }
    if (racy) {
      snprintf(why, why_len,
               "%s changed within 2 s before the template was made (coarse timestamps)", old->path);
      return false;
    }
    if (!same) {
      snprintf(why, why_len, "%s changed since the template was made", old->path);
      return false;
    }
  }
  return true;
}

bool sbx_plan_fresh(const struct sbx_plan *p, char *why, size_t why_len)
{
  return sbx_plan_fresh_ex(p, false, why, why_len);
}

bool sbx_plan_fresh_unwatched(const struct sbx_plan *p, char *why, size_t why_len)
{
  return sbx_plan_fresh_ex(p, true, why, why_len);
}
