/* sbx_unotify_open: the git-config part of the system-call approval layer
 * (docs/approvals.md, "Git configuration").
 *
 * In a profile that approves `git-config`, the notify filter also stops
 * every open/openat/creat/truncate whose flags say "write" (and every
 * openat2: its flags live in a struct the filter cannot read). For each
 * one the supervisor copies the path ONCE, resolves it as the caller
 * would (its root, cwd or directory fd) with O_PATH, and compares the
 * file it reaches with the guarded git configuration files by (dev, ino):
 *
 *   not git configuration: answer CONTINUE. Unlike the other calls of this
 *     layer that is sound here, and only here, because this layer is not
 *     what enforces the rule: the git configuration files are read-only
 *     bind mounts in the sandbox (and the rest is Landlock's). If another
 *     thread swaps the path to .git/config after our check, the kernel's
 *     own open meets the read-only mount and fails with EROFS, exactly as
 *     it would without this layer. CONTINUE never gives more than the
 *     sandbox had; the layer only adds the chance to ask.
 *
 *   git configuration: ask the approver (operation git-config). On allow
 *     the supervisor opens the real file ITSELF, in its own mount
 *     namespace where no read-only mount covers it, through the directory
 *     descriptor it took before the command ran (RESOLVE_BENEATH |
 *     RESOLVE_NO_SYMLINKS: no name the sandbox controls is followed),
 *     checks it is still the file that was matched, and installs the
 *     descriptor in the caller with SECCOMP_IOCTL_NOTIF_ADDFD +
 *     SECCOMP_ADDFD_FLAG_SEND, which answers the call with the new fd in
 *     one step. The caller's flags are cut down to access mode, append,
 *     truncate and a few harmless ones. On deny: EPERM and a message
 *     naming the rule.
 *
 * The ordinary write-open costs a copy, two /proc opens, an O_PATH open
 * and an fstat in a worker thread; no process is forked on that path
 * (docs/performance.md). */
#include "sbx_diag.h"
#include "sbx_unotify_op.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SECCOMP_ADDFD_FLAG_SEND
#define SECCOMP_ADDFD_FLAG_SEND (1UL << 1)
#endif

bool sbx_un_is_open(int nr)
{
  return nr == SYS_open || nr == SYS_openat || nr == SYS_creat || nr == SYS_truncate ||
         nr == SYS_openat2;
}

int sbx_unotify_open_rules(scmp_filter_ctx c)
{
  /* "Write intent": any of these bits in the flags argument. One rule
   * per bit (libseccomp ORs the rules of a syscall, ANDs within one).
   * O_RDONLY|O_TRUNC truncates on Linux, so O_TRUNC counts. */
  static const unsigned long bits[] = { O_WRONLY, O_RDWR, O_CREAT, O_TRUNC };
  int r = 0;

  for (size_t i = 0; i < sizeof bits / sizeof bits[0] && r == 0; i++) {
    const struct scmp_arg_cmp o = {
      .arg = 1, .op = SCMP_CMP_MASKED_EQ, .datum_a = bits[i], .datum_b = bits[i]
    };
    const struct scmp_arg_cmp oa = {
      .arg = 2, .op = SCMP_CMP_MASKED_EQ, .datum_a = bits[i], .datum_b = bits[i]
    };
    r = seccomp_rule_add_array(c, SCMP_ACT_NOTIFY, SCMP_SYS(open), 1, &o);
    if (r == 0)
      r = seccomp_rule_add_array(c, SCMP_ACT_NOTIFY, SCMP_SYS(openat), 1, &oa);
  }
  /* creat and truncate always write; openat2's flags are behind a
   * pointer, so every openat2 is notified (it is rare: no libc wrapper). */
  if (r == 0)
    r = seccomp_rule_add(c, SCMP_ACT_NOTIFY, SCMP_SYS(creat), 0);
  if (r == 0)
    r = seccomp_rule_add(c, SCMP_ACT_NOTIFY, SCMP_SYS(truncate), 0);
  if (r == 0)
    r = seccomp_rule_add(c, SCMP_ACT_NOTIFY, SCMP_SYS(openat2), 0);
  return r;
}

int sbx_unotify_git_add(struct sbx_unotify_gitfile **arr, size_t *n, const char *path)
{
  struct open_how dir_how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
                              .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
  struct open_how file_how = { .flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
                               .resolve =
                                   RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
  struct sbx_unotify_gitfile *g, *grown;
  char dir[4096];
  const char *slash = strrchr(path, '/');
  struct stat st;
  int dfd = -1, fd = -1, r;

  if (path[0] != '/' || !slash || strlen(slash + 1) >= sizeof g->name ||
      strlen(path) >= sizeof g->shown || !slash[1])
    return -EINVAL;
  snprintf(dir, sizeof dir, "%.*s", (int)(slash == path ? 1 : slash - path), path);
  /* No symlink anywhere: the host paths come from the plan, resolved; a
   * symlink now means something was swapped, and then nothing is added
   * (the read-only mount alone keeps refusing). */
  dfd = (int)syscall(SYS_openat2, AT_FDCWD, dir, &dir_how, sizeof dir_how);
  if (dfd < 0) {
    r = -errno;
    goto fail;
  }
  fd = (int)syscall(SYS_openat2, dfd, slash + 1, &file_how, sizeof file_how);
  if (fd < 0 || fstat(fd, &st) != 0) {
    r = -errno;
    goto fail;
  }
  if (!S_ISREG(st.st_mode)) {
    r = S_ISLNK(st.st_mode) ? -ELOOP : -EINVAL;
    goto fail;
  }
  grown = realloc(*arr, (*n + 1) * sizeof **arr);
  if (!grown) {
    r = -ENOMEM;
    goto fail;
  }
  *arr = grown;
  g = &grown[(*n)++];
  memset(g, 0, sizeof *g);
  g->dirfd = dfd;
  snprintf(g->name, sizeof g->name, "%s", slash + 1);
  snprintf(g->shown, sizeof g->shown, "%s", path);
  g->dev = st.st_dev;
  g->ino = st.st_ino;
  g->nlink = st.st_nlink;
  close(fd);
  return 0;
fail:
  if (fd >= 0)
    close(fd);
  if (dfd >= 0)
    close(dfd);
  return r;
}

void sbx_unotify_git_free(struct sbx_unotify_gitfile *arr, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (arr[i].dirfd >= 0)
      close(arr[i].dirfd);
  free(arr);
}

/* The call's arguments, copied once. */
struct sbx_un_open {
  int dirfd; /* the caller's; AT_FDCWD */
  int flags;
  uint64_t resolve;   /* openat2 */
  bool truncate_call; /* truncate(2): length below */
  long long length;
  char path[4096];
};

static int sbx_un_open_args(const struct seccomp_notif *n, struct sbx_un_open *o)
{
  const __u64 *a = n->data.args;
  pid_t tid = (pid_t)n->pid;
  uint64_t pathp;

  o->dirfd = AT_FDCWD;
  switch (n->data.nr) {
  case SYS_open:
    pathp = a[0];
    o->flags = (int)a[1];
    break;
  case SYS_openat:
    o->dirfd = (int)a[0];
    pathp = a[1];
    o->flags = (int)a[2];
    break;
  case SYS_creat:
    pathp = a[0];
    o->flags = O_CREAT | O_WRONLY | O_TRUNC;
    break;
  case SYS_truncate:
    pathp = a[0];
    o->flags = O_WRONLY;
    o->truncate_call = true;
    o->length = (long long)a[1];
    break;
  case SYS_openat2: {
    struct open_how how;
    /* A size the kernel refuses gets the kernel's own EINVAL/E2BIG. */
    if (a[3] < sizeof how)
      return -EINVAL;
    if (sbx_un_read_mem(tid, a[2], &how, sizeof how) != 0)
      return -EFAULT;
    o->dirfd = (int)a[0];
    pathp = a[1];
    o->flags = (int)how.flags;
    o->resolve = how.resolve;
    break;
  }
  default:
    return -ENOSYS;
  }
  return sbx_un_read_str(tid, pathp, o->path, sizeof o->path);
}

/* Which guarded file (if any) the caller's path reaches, resolved as the
 * caller would: an absolute path from its root (RESOLVE_IN_ROOT keeps
 * ".." and absolute symlinks inside it), a relative one from its cwd or
 * directory fd. A wrong answer cannot weaken anything: "not git
 * configuration" leads to CONTINUE, which the read-only mount still
 * refuses for a git configuration file; "git configuration" leads to a
 * question naming that file. */
static const struct sbx_unotify_gitfile *sbx_un_open_match(pid_t tid, const struct sbx_un_open *o,
                                                           const struct sbx_unotify_cfg *cfg)
{
  const struct sbx_unotify_gitfile *hit = NULL;
  struct open_how how = { .flags = O_PATH | O_CLOEXEC };
  char root[64];
  struct stat st;
  int base, fd;

  if (o->flags & O_NOFOLLOW)
    how.flags |= O_NOFOLLOW;
  if (o->path[0] == '/') {
    snprintf(root, sizeof root, "/proc/%d/root", (int)tid);
    base = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    how.resolve = RESOLVE_IN_ROOT;
  } else {
    base = sbx_un_dirfd(tid, o->dirfd);
    how.resolve = o->resolve & RESOLVE_IN_ROOT;
  }
  if (base < 0)
    return NULL;
  fd = (int)syscall(SYS_openat2, base, o->path, &how, sizeof how);
  close(base);
  if (fd < 0)
    return NULL;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
    for (size_t i = 0; i < cfg->n_git && !hit; i++)
      if (cfg->git[i].dev == st.st_dev && cfg->git[i].ino == st.st_ino)
        hit = &cfg->git[i];
  close(fd);
  return hit;
}

/* The approved write: opened by us through the directory held since the
 * start, never following a name the sandbox could have changed. */
static int sbx_un_open_real(const struct sbx_unotify_gitfile *g, int flags)
{
  /* Access mode, append, truncate and the harmless ones; never O_CREAT
   * (the file exists), O_PATH, O_TMPFILE or O_NOATIME. */
  const int keep = O_ACCMODE | O_APPEND | O_TRUNC | O_NONBLOCK | O_DSYNC | O_SYNC | O_NOCTTY;
  struct open_how how = { .flags = (uint64_t)((flags & keep) | O_NOFOLLOW | O_CLOEXEC),
                          .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
                                     RESOLVE_NO_XDEV };
  struct stat st;
  int fd;

  if ((flags & O_ACCMODE) == O_ACCMODE)
    return -EINVAL;
  if ((flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
    return -EEXIST; /* it exists: what the kernel would have said */
  if (flags & O_DIRECTORY)
    return -ENOTDIR;
  fd = (int)syscall(SYS_openat2, g->dirfd, g->name, &how, sizeof how);
  if (fd < 0)
    return -errno;
  /* Still the file that was matched and approved? */
  if (fstat(fd, &st) != 0 || st.st_dev != g->dev || st.st_ino != g->ino) {
    close(fd);
    return -EPERM;
  }
  return fd;
}

void sbx_un_open_classify(const struct seccomp_notif *n, const struct sbx_unotify_cfg *cfg,
                          struct sbx_un_open **o, const struct sbx_unotify_gitfile **g)
{
  *o = NULL;
  *g = NULL;
  if (cfg->n_git == 0 || n->data.arch != AUDIT_ARCH_X86_64)
    return;
  *o = calloc(1, sizeof **o);
  /* No memory: CONTINUE, which the read-only mount keeps safe. */
  if (*o && sbx_un_open_args(n, *o) == 0)
    *g = sbx_un_open_match((pid_t)n->pid, *o, cfg);
  if (!*g) {
    free(*o);
    *o = NULL;
  }
}

int sbx_un_open_handle(int listener, const struct seccomp_notif *n,
                       const struct sbx_unotify_cfg *cfg, struct sbx_un_open *o,
                       const struct sbx_unotify_gitfile *g, struct seccomp_notif_resp *resp)
{
  struct cs_approval_request req;
  struct cs_approval_decision d;
  char rule[96];
  uint64_t id = n->id;
  int fd = -1, r, answered = 0;

  resp->id = n->id;
  resp->val = 0;
  resp->error = 0;
  /* Not git configuration: see the file comment for why CONTINUE is
   * sound for such a call. */
  resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
  if (!o || !g)
    goto done;
  resp->flags = 0;
  resp->error = -EPERM;
  {
    char *nm = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, n->data.nr);
    snprintf(rule, sizeof rule, "%s(2) (system-call layer)", nm ? nm : "?");
    free(nm);
  }
  if (!(cfg->preapproved & CS_APPROVE_GIT_CONFIG)) {
    memset(&req, 0, sizeof req);
    req.operation = CS_APPROVAL_OP_GIT_CONFIG;
    req.argv = (const char *const *)cfg->argv;
    req.profile = cfg->profile;
    req.layer = "syscall";
    req.rule = rule;
    req.path = g->shown;
    req.workspace = cfg->workspace;
    req.cwd = cfg->cwd;
    req.run_id = cfg->run_id;
    if ((r = sbx_un_ask(listener, n, cfg, &req, &d)) == -ESRCH) {
      resp->error = -ESRCH;
      goto done;
    }
    if (r != 0) {
      char esc[8192];
      cs_approval_escape(g->shown, esc, sizeof esc); /* to the terminal: escaped */
      fprintf(sbx_diag(), "sbx: approval: denied git-config %s (%s, profile %s): %s [%s]\n", esc,
              rule, cfg->profile ? cfg->profile : "?", d.reason, d.approver);
      goto done;
    }
  }
  /* The approval took time; the caller may be gone (and its pid reused). */
  if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) != 0) {
    resp->error = -ESRCH;
    goto done;
  }
  fd = sbx_un_open_real(g, o->flags);
  if (fd < 0) {
    resp->error = fd;
    goto done;
  }
  if (o->truncate_call) {
    resp->error = ftruncate(fd, o->length) == 0 ? 0 : -errno;
    goto done;
  }
  {
    struct seccomp_notif_addfd add = { .id = n->id,
                                       .flags = SECCOMP_ADDFD_FLAG_SEND,
                                       .srcfd = (__u32)fd,
                                       .newfd = 0,
                                       .newfd_flags = (__u32)(o->flags & O_CLOEXEC) };
    r = ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
    if (r >= 0) {
      answered = 1; /* the call returned r in the caller */
    } else if (errno == EINVAL) {
      /* Before Linux 5.14 there is no FLAG_SEND: add, then answer. */
      add.flags = 0;
      r = ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
      if (r >= 0) {
        resp->error = 0;
        resp->val = r;
      } else {
        resp->error = -errno;
      }
    } else {
      answered = errno == ENOENT; /* the caller is gone or was interrupted */
      resp->error = -errno;
    }
  }
done:
  if (fd >= 0)
    close(fd);
  free(o);
  return answered;
}
