/* sbx_plan: everything the sandbox will be, computed by the supervisor
 * before it forks. Doing the path resolution here, on the host's view,
 * means pid 1 and the command only replay a list (no allocation, no policy
 * decisions after clone) and `sbx explain` could print the same list. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "sbx_internal.h"
#include "sbx_plan_parts.h"

extern char **environ;

/* System directories bound read-only at the same place. Each is bound
 * whole because programs expect their libraries, data and helpers there;
 * none of them holds user secrets on a Debian system. /etc is NOT here:
 * only the entries in sbx_etc_entries are shown (see below). */
static const char *const sbx_system_dirs[] = {"/usr", "/bin", "/sbin", "/lib", "/lib32",
                                              "/lib64", "/libx32", NULL};

/* /etc entries programs need to start (loader cache, user and group names,
 * alternatives symlinks behind cc/python, locale and time zone, git's and
 * python's system config). /etc as a whole is not shown: it holds shadow
 * password hashes, ssh host keys and service credentials readable by uid 0,
 * and uid 0 without capabilities still passes owner permission checks. */
static const char *const sbx_etc_entries[] = {
    "/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
    "/etc/passwd",       "/etc/group",       "/etc/nsswitch.conf", "/etc/localtime",
    "/etc/timezone",     "/etc/locale.alias", "/etc/gitconfig",   "/etc/python3",
    "/etc/python3.11",   "/etc/debian_version", "/etc/os-release", "/etc/mime.types",
    "/etc/magic",        "/etc/inputrc",     "/etc/profile",       "/etc/perl",
    "/etc/hosts",        NULL};
/* Only when the profile allows the network: name resolution and TLS roots. */
static const char *const sbx_etc_net_entries[] = {"/etc/resolv.conf", "/etc/host.conf",
                                                  "/etc/gai.conf",    "/etc/ssl",
                                                  "/etc/ca-certificates", "/etc/services",
                                                  "/etc/protocols",   NULL};

/* Names of shells withheld from CS_SHELL_NONE profiles. busybox is in the
 * list because `busybox sh` is a shell; tmux because it starts one. */
static const char *const sbx_shell_names[] = {"sh",   "bash", "dash",  "rbash", "zsh",   "ksh",
                                              "ksh93", "mksh", "pdksh", "ash",  "yash",  "posh",
                                              "csh",  "tcsh", "fish",  "busybox", "tmux", "screen",
                                              NULL};
static const char *const sbx_bin_dirs[] = {"/usr/bin", "/usr/sbin", "/usr/local/bin",
                                           "/usr/local/sbin", NULL};
/* Library hierarchies that must stay executable for the dynamic loader
 * (the kernel opens the ELF interpreter with exec intent) and for helper
 * programs (gcc's cc1, git-core). */
static const char *const sbx_lib_dirs[] = {"/usr/lib", "/usr/lib32", "/usr/lib64", "/usr/libx32",
                                           "/usr/libexec", NULL};

const char *const sbx_env_allowlist[] = {"PATH", "HOME", "LANG", "LANGUAGE", "LC_*", "TERM",
                                         "TZ",   "USER", "LOGNAME", "PWD", "SBX_PROFILE", NULL};

uint64_t sbx_ll_fs_rights(int abi)
{
  uint64_t r = 0;
  if (abi >= 1)
    r |= (1ull << 13) - 1; /* EXECUTE .. MAKE_SYM */
  if (abi >= 2)
    r |= SBX_LL_FS_REFER;
  if (abi >= 3)
    r |= SBX_LL_FS_TRUNCATE;
  if (abi >= 5)
    r |= SBX_LL_FS_IOCTL_DEV;
  return r;
}

void sbx_fail_set(struct sbx_fail *f, enum sbx_layer layer, int error, const char *fmt, ...)
{
  va_list ap;
  f->layer = layer;
  f->error = error;
  va_start(ap, fmt);
  vsnprintf(f->text, sizeof f->text, fmt, ap);
  va_end(ap);
}

int sbx_expand_path(const char *in, const char *workspace, const char *home, char *out,
                    size_t out_len)
{
  int n;
  if (strncmp(in, "${WORKSPACE}", 12) == 0 && (in[12] == '\0' || in[12] == '/'))
    n = snprintf(out, out_len, "%s%s", workspace, in + 12);
  else if (in[0] == '~' && (in[1] == '\0' || in[1] == '/')) {
    if (!home || home[0] != '/')
      return -ENOENT;
    n = snprintf(out, out_len, "%s%s", home, in + 1);
  } else
    n = snprintf(out, out_len, "%s", in);
  if (n < 0 || (size_t)n >= out_len)
    return -ENAMETOOLONG;
  /* Relative paths in a profile would depend on sbx's cwd: refuse them. */
  if (out[0] != '/')
    return -EINVAL;
  return 0;
}

bool sbx_path_under(const char *path, const char *dir)
{
  size_t n = strlen(dir);
  if (strcmp(dir, "/") == 0)
    return true;
  return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* An absolute path with no empty, "." or ".." component and no trailing
 * slash: one that realpath would return unchanged if no component is a
 * symlink. */
static bool sbx_path_plain(const char *path)
{
  if (path[0] != '/')
    return false;
  if (path[1] == '\0')
    return true;
  for (const char *c = path; *c; ) {
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
    struct open_how how = {.flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_SYMLINKS};
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
    struct sbx_probe now = {.path = old->path, .kind = old->kind};
    bool same, racy = false;
    if (skip_watched && old->watched)
      continue;
    sbx_probe_fill(&now);
    if (old->kind == SBX_PROBE_RESOLVE) {
      same = old->exists == now.exists && (!old->exists || strcmp(old->real, now.real) == 0);
      free(now.real);
    } else {
      same = old->exists == now.exists &&
             (!old->exists || (old->dev == now.dev && old->ino == now.ino && old->type == now.type));
      if (same && old->exists && old->kind == SBX_PROBE_LIST) {
        same = sbx_ts_eq(&old->mtime, &now.mtime) && sbx_ts_eq(&old->ctime, &now.ctime);
        racy = same && (sbx_ts_racy(&old->mtime, &old->taken) || sbx_ts_racy(&old->ctime, &old->taken));
      }
    }
    if (racy) {
      snprintf(why, why_len, "%s changed within 2 s before the template was made (coarse timestamps)",
               old->path);
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

int sbx_plan_mount(struct sbx_plan *p, const char *path, enum sbx_mount_kind kind,
                   const char *target, bool is_dir, const char *why)
{
  struct sbx_mount_entry *e;
  if (p->n_mounts == p->cap_mounts) {
    size_t cap = p->cap_mounts ? p->cap_mounts * 2 : 32;
    void *m = realloc(p->mounts, cap * sizeof *p->mounts);
    if (!m)
      return -ENOMEM;
    p->mounts = m;
    p->cap_mounts = cap;
  }
  e = &p->mounts[p->n_mounts];
  memset(e, 0, sizeof *e);
  e->path = strdup(path);
  e->target = target ? strdup(target) : NULL;
  if (!e->path || (target && !e->target)) {
    free(e->path);
    free(e->target);
    return -ENOMEM;
  }
  e->kind = kind;
  e->is_dir = is_dir;
  e->why = why;
  p->n_mounts++;
  return 0;
}

int sbx_plan_rule(struct sbx_plan *p, const char *path, uint64_t access, bool optional)
{
  struct sbx_ll_rule *r;
  if (p->n_rules == p->cap_rules) {
    size_t cap = p->cap_rules ? p->cap_rules * 2 : 64;
    void *m = realloc(p->rules, cap * sizeof *p->rules);
    if (!m)
      return -ENOMEM;
    p->rules = m;
    p->cap_rules = cap;
  }
  r = &p->rules[p->n_rules];
  r->path = strdup(path);
  if (!r->path)
    return -ENOMEM;
  r->access = access;
  r->optional = optional;
  r->is_file = false;
  p->n_rules++;
  return 0;
}

/* Appends an owned "NAME=value" string (freed here on failure). */
static int sbx_plan_env_take(struct sbx_plan *p, char *s)
{
  if (!s)
    return -ENOMEM;
  if (p->n_env + 1 >= p->cap_env) {
    size_t cap = p->cap_env ? p->cap_env * 2 : 16;
    void *m = realloc(p->envp, cap * sizeof *p->envp);
    if (!m) {
      free(s);
      return -ENOMEM;
    }
    p->envp = m;
    p->cap_env = cap;
  }
  p->envp[p->n_env++] = s;
  p->envp[p->n_env] = NULL;
  return 0;
}

static int sbx_plan_env(struct sbx_plan *p, const char *name, const char *value)
{
  char *s;
  if (asprintf(&s, "%s=%s", name, value) < 0)
    return -ENOMEM;
  return sbx_plan_env_take(p, s);
}

/* Is `name` (of a "NAME=value" string, len bytes) on the allowlist or in the
 * caller's pass list? LD_* never is: the loader would obey it inside. */
static bool sbx_env_allowed(const char *name, size_t len, const char *const *pass)
{
  if (len >= 3 && strncmp(name, "LD_", 3) == 0)
    return false;
  for (const char *const *a = sbx_env_allowlist; *a; a++) {
    size_t al = strlen(*a);
    if ((*a)[al - 1] == '*' ? (len >= al - 1 && strncmp(name, *a, al - 1) == 0)
                            : (len == al && strncmp(name, *a, len) == 0))
      return true;
  }
  for (; pass && *pass; pass++)
    if (strlen(*pass) == len && strncmp(name, *pass, len) == 0)
      return true;
  return false;
}

int sbx_plan_environment(struct sbx_plan *p, const struct sbx_run_request *req)
{
  int rc;
  for (const char *const *pe = req->pass_env; pe && *pe; pe++)
    if (strncmp(*pe, "LD_", 3) == 0 || (*pe)[0] == '\0' || strchr(*pe, '='))
      return -EINVAL;
  /* PATH, HOME and PWD are sbx's, whatever the caller had. */
  if ((rc = sbx_plan_env(p, "PATH", SBX_SANDBOX_PATH)) < 0 ||
      (rc = sbx_plan_env(p, "HOME", SBX_SANDBOX_HOME)) < 0 ||
      (rc = sbx_plan_env(p, "PWD", p->workspace)) < 0 ||
      (rc = sbx_plan_env(p, "SBX_PROFILE", p->profile->name ? p->profile->name : "?")) < 0)
    return rc;
  for (char **e = environ; e && *e; e++) {
    const char *eq = strchr(*e, '=');
    size_t len;
    if (!eq)
      continue;
    len = (size_t)(eq - *e);
    if ((len == 4 && (strncmp(*e, "PATH", 4) == 0 || strncmp(*e, "HOME", 4) == 0)) ||
        (len == 3 && strncmp(*e, "PWD", 3) == 0) ||
        (len == 11 && strncmp(*e, "SBX_PROFILE", 11) == 0))
      continue;
    if (!sbx_env_allowed(*e, len, req->pass_env))
      continue;
    if ((rc = sbx_plan_env_take(p, strdup(*e))) < 0)
      return rc;
  }
  return 0;
}

/* Adds a host path to the view: symlinks are recreated (their target is
 * then resolved inside the view, so a link cannot lead out of it), other
 * entries are bound. */
static int sbx_plan_host_entry(struct sbx_plan *p, const char *path, bool rw, const char *why)
{
  struct stat st;
  sbx_probe(p, path, SBX_PROBE_STAT);
  if (lstat(path, &st) < 0)
    return 0; /* absent on this machine: nothing to show */
  if (S_ISLNK(st.st_mode)) {
    char target[PATH_MAX];
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n < 0)
      return -errno;
    target[n] = '\0';
    return sbx_plan_mount(p, path, SBX_MNT_SYMLINK, target, false, why);
  }
  return sbx_plan_mount(p, path, rw ? SBX_MNT_BIND_RW : SBX_MNT_BIND_RO, NULL,
                        S_ISDIR(st.st_mode), why);
}

static bool sbx_is_system_path(const char *path)
{
  static const char *const extra[] = {"/etc", "/proc", "/dev", "/tmp", "/sys", NULL};
  for (const char *const *d = sbx_system_dirs; *d; d++)
    if (sbx_path_under(path, *d))
      return true;
  for (const char *const *d = extra; *d; d++)
    if (sbx_path_under(path, *d))
      return true;
  return false;
}

/* Landlock rights for a profile rule's access bits. Deletion is separate:
 * allow_file_delete decides it, whatever the rule says. */
static uint64_t sbx_rule_rights(const struct cs_profile *prof, uint32_t access)
{
  uint64_t r = 0;
  if (access & CS_PATH_READ)
    r |= SBX_LL_FS_READ;
  if ((access & CS_PATH_WRITE) && prof->allow_file_write) {
    r |= SBX_LL_FS_WRITE | SBX_LL_FS_READ;
    if (prof->allow_file_delete)
      r |= SBX_LL_FS_DELETE;
  }
  if (access & CS_PATH_EXEC)
    r |= SBX_LL_FS_EXECUTE | SBX_LL_FS_READ_FILE;
  return r;
}

/* Does the directory `path` contain (or is it) a bin directory? A Landlock
 * EXECUTE right on it would cover the shells there. */
static bool sbx_holds_bin_dir(struct sbx_plan *p, const char *path)
{
  char real[PATH_MAX];
  for (const char *const *d = sbx_bin_dirs; *d; d++)
    if ((sbx_probe(p, *d, SBX_PROBE_RESOLVE), realpath(*d, real)) && sbx_path_under(real, path))
      return true;
  return false;
}

bool sbx_is_visible(const struct sbx_plan *p, const char *path)
{
  if (p->full_root)
    return !sbx_path_under(path, "/proc") && !sbx_path_under(path, "/dev") &&
           !sbx_path_under(path, "/tmp");
  for (size_t i = 0; i < p->n_mounts; i++)
    if ((p->mounts[i].kind == SBX_MNT_BIND_RO || p->mounts[i].kind == SBX_MNT_BIND_RW) &&
        sbx_path_under(path, p->mounts[i].path))
      return true;
  return false;
}

struct sbx_inode {
  dev_t dev;
  ino_t ino;
};

static bool sbx_inode_in(const struct sbx_inode *set, size_t n, const struct stat *st)
{
  for (size_t i = 0; i < n; i++)
    if (set[i].dev == st->st_dev && set[i].ino == st->st_ino)
      return true;
  return false;
}

/* Filesystems whose readdir d_ino is the inode number stat() reports for
 * an entry that is not a mount point: ext2/3/4, XFS, btrfs, tmpfs. On any
 * other (overlayfs, network filesystems) every entry is stat()ed. */
static bool sbx_dino_is_ino(int dfd)
{
  struct statfs sf;
  if (fstatfs(dfd, &sf) < 0)
    return false;
  switch ((unsigned long)sf.f_type) {
  case 0xEF53UL:     /* ext2/3/4 */
  case 0x58465342UL: /* XFS */
  case 0x9123683EUL: /* btrfs */
  case 0x01021994UL: /* tmpfs */
    return true;
  default:
    return false;
  }
}

/* The mount table (/proc/self/mountinfo) as one string, read once per plan:
 * the kernel builds it anew on every read. NULL if unreadable. */
static char *sbx_read_mountinfo(void)
{
  char *buf = NULL;
  size_t cap = 0;
  FILE *fp = fopen("/proc/self/mountinfo", "re");
  if (!fp)
    return NULL;
  if (getdelim(&buf, &cap, '\0', fp) < 0) {
    free(buf);
    buf = NULL;
  }
  fclose(fp);
  return buf;
}

/* Is anything mounted strictly below `dir` (resolved)? A file bound over
 * an entry is another inode than the entry's d_ino, so such a directory is
 * scanned with stat(). Unknown (mountinfo unreadable) counts as yes. */
static bool sbx_has_submount(const char *mountinfo, const char *dir)
{
  char mp[PATH_MAX];
  size_t dl = strlen(dir);
  if (!mountinfo)
    return true;
  for (const char *line = mountinfo; *line;) {
    /* "ID PARENT MAJ:MIN ROOT MOUNTPOINT ...", octal escapes in paths */
    const char *eol = line + strcspn(line, "\n"), *f = line;
    size_t n = 0;
    for (int i = 0; i < 4 && f < eol; i++) {
      f = memchr(f, ' ', (size_t)(eol - f));
      f = f ? f + 1 : eol;
    }
    for (; f < eol && *f != ' ' && n + 1 < sizeof mp; f++) {
      if (eol - f >= 4 && f[0] == '\\' && f[1] >= '0' && f[1] <= '3' && f[2] >= '0' &&
          f[2] <= '7' && f[3] >= '0' && f[3] <= '7') {
        mp[n++] = (char)((f[1] - '0') * 64 + (f[2] - '0') * 8 + (f[3] - '0'));
        f += 3;
      } else
        mp[n++] = *f;
    }
    mp[n] = '\0';
    if (n > dl && strncmp(mp, dir, dl) == 0 && mp[dl] == '/')
      return true;
    line = *eol ? eol + 1 : eol;
  }
  return false;
}

/* CS_SHELL_NONE: no shell may run, not even one the command finds itself.
 * Two layers: (1) every shell binary (by inode, so hard links and symlinks
 * are caught) is masked in the mount view by an empty mode-0000 file, so
 * execve fails with EACCES and `#!/bin/sh` scripts cannot start either;
 * (2) Landlock grants EXECUTE file by file in the bin directories, skipping
 * the shells, because a Landlock right on /usr/bin would cover them. */
static int sbx_plan_shells(struct sbx_plan *p)
{
  struct sbx_inode shells[64];
  size_t n_shells = 0;
  char path[PATH_MAX], real[PATH_MAX], *mountinfo;
  struct stat st;
  FILE *fp;
  int rc = 0;

  /* The bin directories' listings (a shell added or renamed changes their
   * mtime) and /etc/shells with what it names. */
  for (const char *const *d = sbx_bin_dirs; *d; d++) {
    sbx_probe(p, *d, SBX_PROBE_RESOLVE);
    if (realpath(*d, real))
      sbx_probe(p, real, SBX_PROBE_LIST);
  }
  sbx_probe(p, "/etc/shells", SBX_PROBE_LIST);
  for (const char *const *d = sbx_bin_dirs; *d; d++)
    for (const char *const *n = sbx_shell_names; *n; n++) {
      snprintf(path, sizeof path, "%s/%s", *d, *n);
      if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && n_shells < 64 &&
          !sbx_inode_in(shells, n_shells, &st))
        shells[n_shells++] = (struct sbx_inode){st.st_dev, st.st_ino};
    }
  fp = fopen("/etc/shells", "re");
  while (fp && fgets(path, sizeof path, fp)) {
    path[strcspn(path, "\n")] = '\0';
    if (path[0] == '/') {
      sbx_probe(p, path, SBX_PROBE_RESOLVE);
      if (realpath(path, real))
        sbx_probe(p, real, SBX_PROBE_STAT);
    }
    if (path[0] == '/' && stat(path, &st) == 0 && S_ISREG(st.st_mode) && n_shells < 64 &&
        !sbx_inode_in(shells, n_shells, &st))
      shells[n_shells++] = (struct sbx_inode){st.st_dev, st.st_ino};
  }
  if (fp)
    fclose(fp);

  mountinfo = sbx_read_mountinfo();
  for (const char *const *d = sbx_bin_dirs; *d; d++) {
    DIR *dir;
    struct dirent *de;
    struct stat dst;
    bool by_dino;
    if (!realpath(*d, real) || !(dir = opendir(real)))
      continue;
    /* ~1,000 entries: their inode numbers come with readdir where that is
     * exactly what stat() would say, saving one stat per entry. */
    by_dino = fstat(dirfd(dir), &dst) == 0 && sbx_dino_is_ino(dirfd(dir)) &&
              !sbx_has_submount(mountinfo, real);
    while ((de = readdir(dir))) {
      /* Symlinks get no rule of their own: Landlock checks the file they
       * resolve to, which is a regular file here (its own rule), under a
       * library directory, or a masked shell. */
      if (de->d_name[0] == '.' || (de->d_type != DT_REG && de->d_type != DT_UNKNOWN))
        continue;
      if (snprintf(path, sizeof path, "%s/%s", real, de->d_name) >= (int)sizeof path)
        continue;
      if (by_dino && de->d_type == DT_REG) {
        st.st_dev = dst.st_dev;
        st.st_ino = de->d_ino;
      } else if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
                 !S_ISREG(st.st_mode))
        continue;
      if (sbx_inode_in(shells, n_shells, &st))
        rc = sbx_plan_mount(p, path, SBX_MNT_MASK, NULL, false, "shell (CS_SHELL_NONE)");
      else if ((rc = sbx_plan_rule(p, path, SBX_LL_FS_EXECUTE | SBX_LL_FS_READ_FILE, true)) == 0)
        p->rules[p->n_rules - 1].is_file = true;
      if (rc < 0)
        break;
    }
    closedir(dir);
    if (rc < 0)
      break;
  }
  free(mountinfo);
  if (rc < 0)
    return rc;
  for (const char *const *d = sbx_lib_dirs; *d; d++)
    if ((sbx_probe(p, *d, SBX_PROBE_STAT), lstat(*d, &st) == 0) && S_ISDIR(st.st_mode) &&
        (rc = sbx_plan_rule(p, *d, SBX_LL_FS_EXECUTE | SBX_LL_FS_READ, true)) < 0)
      return rc;
  /* Symlinked binaries in /usr/bin whose target lives elsewhere in /usr
   * (e.g. /etc/alternatives chains ending in /usr/lib) are covered by the
   * library rules or by the target's own file rule. */
  return 0;
}

static int sbx_cmp_mount(const void *a, const void *b)
{
  const struct sbx_mount_entry *x = a, *y = b;
  /* Parents before children; masks after every bind. */
  int kx = x->kind == SBX_MNT_MASK, ky = y->kind == SBX_MNT_MASK;
  if (kx != ky)
    return kx - ky;
  return strcmp(x->path, y->path);
}

/* noexec (issue 12). Landlock's EXECUTE right is checked at execve only:
 * the ELF loader (`/lib64/ld-linux-x86-64.so.2 WS/x`), dlopen, LD_PRELOAD
 * and a plain mmap(PROT_EXEC) map a file as code without an execve, so a
 * copy of a shell in the workspace ran under strict. A noexec mount makes
 * the kernel refuse both (execve, and PROT_EXEC mappings of its files, in
 * do_mmap/mprotect via path_noexec), whoever asks. So every mount on which
 * no Landlock EXECUTE rule reaches a file is noexec: the two layers then
 * say the same thing, derived from the same profile rules, and a place the
 * profile does not let the command execute from cannot hold code either.
 * A rule reaches the files of mount M when M lies under the rule's path,
 * or when the rule's path lies in M and on no mount nested inside M (the
 * innermost bind holding it is M). The private /tmp (with HOME) and
 * /dev/shm are decided the same way; the view's tmpfs root holds no file
 * but mount points and the masks' empty file, so it is always noexec
 * (sbx_mount.c). `keep_exec`: SBX_RUN_TEST_EXEC_MOUNTS, the negative
 * control of the tests. */
static bool sbx_is_bind(const struct sbx_mount_entry *e)
{
  return e->kind == SBX_MNT_BIND_RO || e->kind == SBX_MNT_BIND_RW;
}

static void sbx_plan_noexec_rule(struct sbx_plan *p, const char *rule)
{
  struct sbx_mount_entry *home = NULL;
  for (size_t i = 0; i < p->n_mounts; i++) {
    struct sbx_mount_entry *e = &p->mounts[i];
    if (!sbx_is_bind(e))
      continue;
    if (sbx_path_under(e->path, rule))
      e->noexec = false; /* the whole mount is under the rule */
    if (sbx_path_under(rule, e->path) && (!home || strlen(e->path) > strlen(home->path)))
      home = e; /* the rule's path is on this bind, or on one nested in it */
  }
  if (home) {
    home->noexec = false; /* the rule's files live on that bind */
    return;
  }
  if (sbx_path_under("/tmp", rule) || sbx_path_under(rule, "/tmp"))
    p->tmp_noexec = false;
  if (sbx_path_under("/dev/shm", rule) || sbx_path_under(rule, "/dev/shm"))
    p->shm_noexec = false;
  if (p->full_root && !sbx_path_under(rule, "/tmp") && !sbx_path_under(rule, "/dev") &&
      !sbx_path_under(rule, "/proc"))
    p->root_noexec = false; /* on the host's root itself */
}

static void sbx_plan_noexec(struct sbx_plan *p, bool keep_exec)
{
  const char *dir = NULL;
  size_t dir_len = 0;
  for (size_t i = 0; i < p->n_mounts; i++)
    p->mounts[i].noexec = sbx_is_bind(&p->mounts[i]) && !keep_exec;
  p->tmp_noexec = p->shm_noexec = !keep_exec;
  p->root_noexec = p->full_root && !keep_exec;
  if (keep_exec)
    return;
  for (size_t i = 0; i < p->n_rules; i++) {
    const struct sbx_ll_rule *r = &p->rules[i];
    const char *slash = strrchr(r->path, '/');
    if (!(r->access & SBX_LL_FS_EXECUTE))
      continue;
    /* The ~1,000 per-file grants of the bin directories come directory by
     * directory, and the files of one directory live on one mount (no
     * bind is planned on a file there): decide once per directory. */
    if (r->is_file && dir && (size_t)(slash - r->path) == dir_len &&
        strncmp(r->path, dir, dir_len) == 0)
      continue;
    dir = r->is_file ? r->path : NULL;
    dir_len = (size_t)(slash - r->path);
    sbx_plan_noexec_rule(p, r->path);
  }
}

/* Resolves every denied path once (NULL where it does not resolve), for
 * sbx_denied_covering; realpath walks each component with a readlink, and
 * the check runs for the workspace and every allowed path. */
static char **sbx_denied_resolve(struct sbx_plan *p, const struct cs_profile *prof, const char *ws,
                                 const char *home)
{
  char path[PATH_MAX];
  char **dreal = calloc(prof->n_denied_paths + 1u, sizeof *dreal);
  if (!dreal)
    return NULL;
  for (uint32_t i = 0; i < prof->n_denied_paths; i++)
    if (sbx_expand_path(prof->denied_paths[i].path, ws, home, path, sizeof path) == 0) {
      sbx_probe(p, path, SBX_PROBE_RESOLVE);
      dreal[i] = realpath(path, NULL);
    }
  return dreal;
}

static void sbx_denied_free(const struct cs_profile *prof, char **dreal)
{
  for (uint32_t i = 0; dreal && i < prof->n_denied_paths; i++)
    free(dreal[i]);
  free(dreal);
}

/* The denied rule whose resolved path is `real` or one of its ancestors,
 * or NULL. Denied paths win over allowed ones and over the workspace. */
static const struct cs_path_rule *sbx_denied_covering(const struct cs_profile *prof,
                                                      char *const *dreal, const char *real)
{
  for (uint32_t i = 0; i < prof->n_denied_paths; i++)
    if (dreal[i] && sbx_path_under(real, dreal[i]))
      return &prof->denied_paths[i];
  return NULL;
}

static int sbx_plan_build_ex(const struct sbx_run_request *req, int abi, const char *home_in,
                             bool record, struct sbx_plan *p, char *err, size_t err_len);

int sbx_plan_build(const struct sbx_run_request *req, int abi, struct sbx_plan *p, char *err,
                   size_t err_len)
{
  return sbx_plan_build_ex(req, abi, NULL, false, p, err, err_len);
}

int sbx_plan_build_warm(const struct sbx_run_request *req, int abi, const char *home,
                        struct sbx_plan *p, char *err, size_t err_len)
{
  return sbx_plan_build_ex(req, abi, home ? home : "", true, p, err, err_len);
}

static int sbx_plan_build_ex(const struct sbx_run_request *req, int abi, const char *home_in,
                             bool record, struct sbx_plan *p, char *err, size_t err_len)
{
  const struct cs_profile *prof = req->profile;
  char ws[PATH_MAX], path[PATH_MAX], real[PATH_MAX];
  const char *home = home_in ? (home_in[0] ? home_in : NULL) : getenv("HOME");
  uint64_t ws_rights = SBX_LL_FS_READ;
  struct stat st;
  char **dreal = NULL;
  int rc = 0;

  memset(p, 0, sizeof *p);
  p->record = record;
  p->profile = prof;
  p->uid = geteuid();
  p->gid = getegid();
  p->landlock_abi = abi;
  p->net_blocked = !prof->allow_network;
  p->shell_none = prof->shell == CS_SHELL_NONE;
  p->tmp_writable = prof->allow_file_write;
  if (!home || home[0] != '/') {
    struct passwd *pw = getpwuid(getuid());
    home = pw ? pw->pw_dir : NULL;
  }

  errno = 0;
  sbx_probe(p, req->workspace, SBX_PROBE_RESOLVE);
  if (!realpath(req->workspace, ws) || stat(ws, &st) < 0 || !S_ISDIR(st.st_mode)) {
    rc = errno ? -errno : -ENOTDIR;
    snprintf(err, err_len, "request: workspace '%s' is not a directory", req->workspace);
    goto fail;
  }
  /* A workspace that is / or inside a system tree would make the system
   * writable or replace the sandbox's own /proc, /dev. One under /tmp is
   * fine: it is bound inside the sandbox's private /tmp at the same path. */
  if (strcmp(ws, "/") == 0 || strcmp(ws, "/tmp") == 0 ||
      (sbx_is_system_path(ws) && !sbx_path_under(ws, "/tmp"))) {
    rc = -EINVAL;
    snprintf(err, err_len, "request: workspace '%s' is a system directory", ws);
    goto fail;
  }
  if (!(dreal = sbx_denied_resolve(p, prof, ws, home)))
    goto nomem;
  {
    const struct cs_path_rule *d = sbx_denied_covering(prof, dreal, ws);
    if (d) {
      rc = -EACCES;
      snprintf(err, err_len, "mount: workspace '%s' is inside denied path '%s' (%s)", ws,
               d->path, d->origin ? d->origin : "?");
      goto fail;
    }
  }
  if (!(p->workspace = strdup(ws)))
    goto nomem;

  /* The profile's allowed paths. */
  for (uint32_t i = 0; i < prof->n_allowed_paths; i++) {
    const struct cs_path_rule *r = &prof->allowed_paths[i];
    uint64_t rights = sbx_rule_rights(prof, r->access);
    bool rw = (r->access & CS_PATH_WRITE) && prof->allow_file_write;
    rc = sbx_expand_path(r->path, ws, home, path, sizeof path);
    if (rc == -ENOENT)
      continue; /* "~" without a home: nothing to allow */
    if (rc < 0) {
      snprintf(err, err_len, "mount: allowed path '%s' (%s): %s", r->path,
               r->origin ? r->origin : "?", strerror(-rc));
      goto fail;
    }
    sbx_probe(p, path, SBX_PROBE_RESOLVE);
    if (!realpath(path, real))
      continue; /* absent: nothing to allow (it cannot be created outside the view) */
    sbx_probe(p, real, SBX_PROBE_STAT);
    if (sbx_denied_covering(prof, dreal, real))
      continue; /* denied wins: neither shown nor granted */
    /* No shell, yet EXECUTE on the workspace or on a writable path: a
     * binary there (a static busybox in the repository, or one written by
     * the command) could be a shell under any name. The two rules
     * contradict each other: refuse rather than pretend. */
    if (p->shell_none && (rights & SBX_LL_FS_EXECUTE) &&
        (sbx_path_under(real, ws) || sbx_path_under(ws, real) || rw)) {
      rc = -EINVAL;
      snprintf(err, err_len,
               "request: profile %s allows no shell but grants execute on '%s' (%s), which is "
               "the workspace or writable: any binary there could be a shell",
               prof->name ? prof->name : "?", r->path, r->origin ? r->origin : "?");
      goto fail;
    }
    if (strcmp(real, "/") == 0) {
      /* Full access (permissive): the host's root is the base of the view,
       * still with sbx's own /proc, /dev, /tmp and the masks on top. */
      p->full_root = true;
      p->full_root_rw |= rw;
      p->workspace_writable |= rw;
      if ((rc = sbx_plan_rule(p, "/", rights, false)) < 0)
        goto fail_errno;
      continue;
    }
    if (sbx_path_under(real, ws)) {
      if (strcmp(real, ws) == 0) {
        ws_rights |= rights;
        p->workspace_writable |= rw;
        continue;
      }
      if (rw && (rc = sbx_plan_mount(p, real, SBX_MNT_BIND_RW, NULL, true, "allowed path")) < 0)
        goto fail_errno;
    } else if (!sbx_is_system_path(real) ||
               (sbx_path_under(real, "/tmp") && strcmp(real, "/tmp") != 0)) {
      /* A path below /tmp that a rule names explicitly (a tool or a build
       * tree kept under /tmp) is bound from the host into the private
       * /tmp; dropping it would make the rule silently mean nothing. */
      if ((rc = sbx_plan_host_entry(p, real, rw, "allowed path")) < 0)
        goto fail_errno;
    } else if (sbx_path_under(real, "/tmp") || sbx_path_under(real, "/dev") ||
               sbx_path_under(real, "/proc") || sbx_path_under(real, "/sys")) {
      continue; /* the sandbox has its own /tmp, /dev and /proc, and no /sys */
    }
    if (stat(real, &st) == 0 && !S_ISDIR(st.st_mode))
      rights &= SBX_LL_FS_FILE_RIGHTS;
    else if (p->shell_none && sbx_holds_bin_dir(p, real))
      rights &= ~SBX_LL_FS_EXECUTE; /* per-file grants instead (sbx_plan_shells) */
    if ((rc = sbx_plan_rule(p, real, rights, true)) < 0)
      goto fail_errno;
  }
  /* The system part of the view (the host's own when the root is shown). */
  if (!p->full_root) {
    for (const char *const *d = sbx_system_dirs; *d; d++)
      if ((rc = sbx_plan_host_entry(p, *d, false, "system")) < 0)
        goto fail_errno;
    for (const char *const *d = sbx_etc_entries; *d; d++)
      if ((rc = sbx_plan_host_entry(p, *d, false, "system /etc")) < 0)
        goto fail_errno;
    if (!p->net_blocked)
      for (const char *const *d = sbx_etc_net_entries; *d; d++)
        if ((rc = sbx_plan_host_entry(p, *d, false, "system /etc (network)")) < 0)
          goto fail_errno;
  }
  if ((rc = sbx_plan_mount(p, ws, p->workspace_writable ? SBX_MNT_BIND_RW : SBX_MNT_BIND_RO, NULL,
                           true, "workspace")) < 0 ||
      (rc = sbx_plan_rule(p, ws, ws_rights, false)) < 0)
    goto fail_errno;
  /* Git's configuration and code (sbx_plan_git.c, issue 12). */
  if (p->workspace_writable && !(req->flags & SBX_RUN_ALLOW_GIT_CONFIG) &&
      (rc = sbx_plan_git(p, home, (req->flags & SBX_RUN_TEST_GIT_LEGACY) != 0, path,
                         sizeof path)) < 0) {
    snprintf(err, err_len, "mount: protecting %s/.git: %s", ws, path);
    goto fail;
  }

  /* Landlock view of the fixed parts. */
  if ((rc = sbx_plan_rule(p, "/etc", SBX_LL_FS_READ, true)) < 0 ||
      (rc = sbx_plan_rule(p, "/proc", SBX_LL_FS_READ, false)) < 0 ||
      (rc = sbx_plan_rule(p, "/dev", SBX_LL_FS_READ, false)) < 0)
    goto fail_errno;
  static const char *const devs[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random",
                                     "/dev/urandom", NULL};
  for (const char *const *d = devs; *d; d++)
    if ((rc = sbx_plan_rule(p, *d,
                            SBX_LL_FS_READ_FILE | SBX_LL_FS_WRITE_FILE | SBX_LL_FS_TRUNCATE,
                            true)) < 0)
      goto fail_errno;
  {
    uint64_t tmp = SBX_LL_FS_READ;
    if (p->tmp_writable)
      tmp |= SBX_LL_FS_WRITE | SBX_LL_FS_DELETE;
    if ((rc = sbx_plan_rule(p, "/tmp", tmp, false)) < 0 ||
        (rc = sbx_plan_rule(p, "/dev/shm", tmp, true)) < 0)
      goto fail_errno;
  }
  if (p->shell_none) {
    if ((rc = sbx_plan_rule(p, "/usr", SBX_LL_FS_READ, true)) < 0 ||
        (rc = sbx_plan_shells(p)) < 0)
      goto fail_errno;
  } else if ((rc = sbx_plan_rule(p, "/usr", SBX_LL_FS_READ | SBX_LL_FS_EXECUTE, true)) < 0)
    goto fail_errno;
  for (const char *const *d = sbx_system_dirs + 1; *d; d++)
    if ((sbx_probe(p, *d, SBX_PROBE_STAT), lstat(*d, &st) == 0) && S_ISDIR(st.st_mode) &&
        (rc = sbx_plan_rule(p, *d, p->shell_none ? SBX_LL_FS_READ
                                                 : SBX_LL_FS_READ | SBX_LL_FS_EXECUTE,
                            true)) < 0)
      goto fail_errno;

  /* Denied paths win: mask the resolved target when the view shows it, so
   * a symlink (in the rule or planted in the workspace) cannot reach it. */
  for (uint32_t i = 0; i < prof->n_denied_paths; i++) {
    const struct cs_path_rule *r = &prof->denied_paths[i];
    rc = sbx_expand_path(r->path, ws, home, path, sizeof path);
    if (rc == -ENOENT)
      continue;
    if (rc < 0) {
      snprintf(err, err_len, "mount: denied path '%s' (%s): %s", r->path,
               r->origin ? r->origin : "?", strerror(-rc));
      goto fail;
    }
    if (!dreal[i])
      continue; /* absent: nothing to hide */
    snprintf(real, sizeof real, "%s", dreal[i]);
    if (strcmp(real, "/") == 0) {
      rc = -EINVAL;
      snprintf(err, err_len, "mount: denied path '%s' (%s) is /: nothing could run", r->path,
               r->origin ? r->origin : "?");
      goto fail;
    }
    if (!sbx_is_visible(p, real))
      continue; /* not in the view, and Landlock grants nothing there */
    sbx_probe(p, real, SBX_PROBE_STAT);
    if (stat(real, &st) < 0)
      continue;
    if ((rc = sbx_plan_mount(p, real, SBX_MNT_MASK, NULL, S_ISDIR(st.st_mode),
                             "denied path rule")) < 0)
      goto fail_errno;
  }
  /* The warm-start server's directory: the server checks who connects
   * (sbx_serve.c), but a sandboxed command should not see it at all. */
  if (req->mask_dir && realpath(req->mask_dir, real) && sbx_is_visible(p, real) &&
      (sbx_probe(p, real, SBX_PROBE_STAT), stat(real, &st) == 0) && S_ISDIR(st.st_mode) &&
      (rc = sbx_plan_mount(p, real, SBX_MNT_MASK, NULL, true, "warm-start server")) < 0)
    goto fail_errno;
  qsort(p->mounts, p->n_mounts, sizeof *p->mounts, sbx_cmp_mount);
  sbx_plan_noexec(p, (req->flags & SBX_RUN_TEST_EXEC_MOUNTS) != 0);

  if ((rc = sbx_plan_environment(p, req)) < 0) {
    snprintf(err, err_len, "env: %s", rc == -EINVAL ? "invalid or LD_* name in pass_env"
                                                    : strerror(-rc));
    goto fail;
  }
  sbx_denied_free(prof, dreal);
  return 0;

nomem:
  rc = -ENOMEM;
fail_errno:
  snprintf(err, err_len, "mount: planning the view: %s", strerror(-rc));
fail:
  sbx_denied_free(prof, dreal);
  sbx_plan_free(p);
  return rc;
}

void sbx_plan_free(struct sbx_plan *p)
{
  for (size_t i = 0; i < p->n_mounts; i++) {
    free(p->mounts[i].path);
    free(p->mounts[i].target);
  }
  for (size_t i = 0; i < p->n_rules; i++)
    free(p->rules[i].path);
  for (size_t i = 0; i < p->n_env; i++)
    free(p->envp[i]);
  for (size_t i = 0; i < p->n_probes; i++) {
    free(p->probes[i].path);
    free(p->probes[i].real);
  }
  free(p->probes);
  free(p->mounts);
  free(p->rules);
  free(p->envp);
  free(p->workspace);
  memset(p, 0, sizeof *p);
}
