/* sbx_unotify: the system-call layer of the approval workflow; see
 * sbx_unotify.h for the design and docs/approvals.md for the TOCTOU
 * argument. */
#include "sbx_unotify.h"

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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <grp.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
#define SBX_UN_MAX_DATA (64u * 1024u) /* sendto payload copied once */

enum sbx_un_kind { SBX_UN_UNLINK, SBX_UN_RENAME, SBX_UN_CONNECT, SBX_UN_SENDTO };

/* Everything the operation needs, copied out of the process once. */
struct sbx_un_op {
  enum sbx_un_kind kind;
  int nr;
  char path[2][4096];
  int dirfd[2];   /* in the process; AT_FDCWD for the cwd */
  int fd[2];      /* ours: O_PATH directories */
  int flags;      /* unlinkat / renameat2 / sendto flags */
  int sockfd;     /* the process's socket number */
  int sock;       /* ours: the same open file description (pidfd_getfd) */
  struct sockaddr_storage addr;
  unsigned addrlen;
  unsigned char *data;
  size_t datalen;
  uid_t uid;
  gid_t gid;
};

/* The compiled notify filter, built before the sandbox's process exists:
 * that process runs under the profile's rlimits (RLIMIT_AS) by the time
 * it loads the filter, so it must not need libseccomp's allocations (nor
 * a sanitizer's) then. Filled by sbx_unotify_prepare; fork copies it. */
static struct {
  uint32_t ops;
  unsigned short len;
  struct sock_filter insns[512];
} sbx_un_prog;

int sbx_unotify_prepare(uint32_t ops)
{
  static const char *const del[] = {"unlink", "unlinkat", "rmdir", "rename", "renameat",
                                    "renameat2"};
  scmp_filter_ctx c = NULL;
  int p[2] = {-1, -1}, r = 0;
  ssize_t n;

  if (!(ops & SBX_UNOTIFY_OPS))
    return -EINVAL;
  c = seccomp_init(SCMP_ACT_ALLOW);
  if (!c)
    return -ENOMEM;
  if (ops & CS_APPROVE_FILE_DELETE)
    for (size_t i = 0; i < sizeof del / sizeof del[0] && r == 0; i++)
      r = seccomp_rule_add(c, SCMP_ACT_NOTIFY, seccomp_syscall_resolve_name(del[i]), 0);
  if ((ops & CS_APPROVE_EXTERNAL_NETWORK) && r == 0) {
    r = seccomp_rule_add(c, SCMP_ACT_NOTIFY, SCMP_SYS(connect), 0);
    /* sendto with a destination reaches an address without connect(). */
    if (r == 0) {
      const struct scmp_arg_cmp to = {.arg = 4, .op = SCMP_CMP_NE, .datum_a = 0, .datum_b = 0};
      r = seccomp_rule_add_array(c, SCMP_ACT_NOTIFY, SCMP_SYS(sendto), 1, &to);
    }
  }
  if (r != 0)
    goto cleanup;
  /* Exported and loaded by hand: we need the listener the kernel returns
   * for SECCOMP_FILTER_FLAG_NEW_LISTENER, and libseccomp would keep its
   * own copy of it in this process. */
  if (pipe2(p, O_CLOEXEC) < 0) {
    r = -errno;
    goto cleanup;
  }
  r = seccomp_export_bpf(c, p[1]);
  close(p[1]);
  p[1] = -1;
  if (r != 0)
    goto cleanup;
  n = read(p[0], sbx_un_prog.insns, sizeof sbx_un_prog.insns);
  if (n <= 0 || n % (ssize_t)sizeof sbx_un_prog.insns[0] != 0) {
    r = -EIO;
    goto cleanup;
  }
  sbx_un_prog.len = (unsigned short)(n / (ssize_t)sizeof sbx_un_prog.insns[0]);
  sbx_un_prog.ops = ops;
cleanup:
  if (p[0] >= 0)
    close(p[0]);
  if (p[1] >= 0)
    close(p[1]);
  seccomp_release(c);
  return r;
}

int sbx_unotify_install(uint32_t ops)
{
  struct sock_fprog prog;
  int r;

  if (!(ops & SBX_UNOTIFY_OPS))
    return -EINVAL;
  if (sbx_un_prog.ops != ops || !sbx_un_prog.len) {
    r = sbx_unotify_prepare(ops);
    if (r != 0)
      return r;
  }
  prog.len = sbx_un_prog.len;
  prog.filter = sbx_un_prog.insns;
  r = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
  if (r < 0)
    r = errno == EINVAL ? -ENOSYS : -errno;
  return r;
}

bool sbx_unotify_addr_local(const struct sockaddr *sa, unsigned sa_len)
{
  if (sa->sa_family == AF_INET && sa_len >= sizeof(struct sockaddr_in)) {
    const struct sockaddr_in *in = (const void *)sa;
    uint32_t a = ntohl(in->sin_addr.s_addr);
    return (a >> 24) == 127 || a == 0;
  }
  if (sa->sa_family == AF_INET6 && sa_len >= sizeof(struct sockaddr_in6)) {
    const struct sockaddr_in6 *in6 = (const void *)sa;
    const struct in6_addr *a = &in6->sin6_addr;
    if (IN6_IS_ADDR_LOOPBACK(a) || IN6_IS_ADDR_UNSPECIFIED(a))
      return true;
    if (IN6_IS_ADDR_V4MAPPED(a))
      return a->s6_addr[12] == 127;
    return false;
  }
  /* Unix, netlink and the rest never leave the machine; AF_INET with a
   * short length is refused by the kernel on our own connect. */
  return sa->sa_family != AF_INET && sa->sa_family != AF_INET6;
}

static void sbx_un_addr_text(const struct sockaddr_storage *ss, char *buf, size_t len)
{
  char ip[INET6_ADDRSTRLEN] = "?";
  if (ss->ss_family == AF_INET) {
    const struct sockaddr_in *in = (const void *)ss;
    inet_ntop(AF_INET, &in->sin_addr, ip, sizeof ip);
    snprintf(buf, len, "%s:%u", ip, ntohs(in->sin_port));
  } else if (ss->ss_family == AF_INET6) {
    const struct sockaddr_in6 *in6 = (const void *)ss;
    inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof ip);
    snprintf(buf, len, "[%s]:%u", ip, ntohs(in6->sin6_port));
  } else {
    snprintf(buf, len, "family %u", ss->ss_family);
  }
}

/* Copies a NUL-terminated string of the process, page by page so that a
 * string ending just before an unmapped page is still read. */
static int sbx_un_read_str(pid_t pid, uint64_t addr, char *out, size_t len)
{
  size_t got = 0;
  if (!addr)
    return -EFAULT;
  while (got < len) {
    size_t chunk = 4096 - ((addr + got) & 4095);
    if (chunk > len - got)
      chunk = len - got;
    struct iovec l = {.iov_base = out + got, .iov_len = chunk};
    struct iovec r = {.iov_base = (void *)(uintptr_t)(addr + got), .iov_len = chunk};
    ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);
    if (n <= 0)
      return -EFAULT;
    if (memchr(out + got, '\0', (size_t)n))
      return 0;
    got += (size_t)n;
  }
  return -ENAMETOOLONG;
}

static int sbx_un_read_mem(pid_t pid, uint64_t addr, void *out, size_t len)
{
  struct iovec l = {.iov_base = out, .iov_len = len};
  struct iovec r = {.iov_base = (void *)(uintptr_t)addr, .iov_len = len};
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

static int sbx_un_dirfd(pid_t tid, int fdnum)
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

/* What the approver is shown: the path as the process would resolve it,
 * prefixed by its directory when relative. */
static void sbx_un_display(int dirfd, const char *path, char *out, size_t len)
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
  snprintf(out, len, "%s/%s", n ? dir : "?", path);
}

/* Probe mode (unlink family only): is the entry's directory on the
 * private /tmp? Then delete it here, through the very directory checked,
 * and say so (msg[2] = 1); otherwise do nothing (msg[2] = 0). The
 * directory is opened once and both the check and the unlinkat use that
 * descriptor, so a renamed path component cannot move the deletion
 * elsewhere after the check. */
#define SBX_UN_PROBE_TMP (-2)
static long sbx_un_tmp_unlink(const struct sbx_un_op *op, int *exempt)
{
  char dir[4096], *slash, *base;
  struct stat tmp, parent;
  size_t len;
  int pfd;
  long ret;

  *exempt = 0;
  snprintf(dir, sizeof dir, "%s", op->path[0]);
  len = strlen(dir);
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
  if (pfd < 0)
    return 0;
  if (!base[0] || strcmp(base, ".") == 0 || strcmp(base, "..") == 0 ||
      stat("/tmp", &tmp) != 0 || fstat(pfd, &parent) != 0 || tmp.st_dev != parent.st_dev) {
    close(pfd);
    return 0;
  }
  *exempt = 1;
  ret = unlinkat(pfd, base, op->flags);
  if (ret < 0)
    ret = -errno;
  close(pfd);
  return ret;
}

/* The helper: the process's root, ids, no capabilities, the confine hook,
 * then the call. Returns the call's result or -errno, via the pipe. */
static _Noreturn void sbx_un_helper(const struct sbx_un_op *op, int rootfd,
                                    const struct sbx_unotify_cfg *cfg, int flags_override,
                                    int out)
{
  int exempt = 0;
  struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
  struct __user_cap_data_struct d[2];
  long ret = -1;
  int err = 0;

  memset(d, 0, sizeof d);
  if (fchdir(rootfd) != 0 || chroot(".") != 0 || setgroups(0, NULL) != 0 ||
      setresgid(op->gid, op->gid, op->gid) != 0 || setresuid(op->uid, op->uid, op->uid) != 0 ||
      syscall(SYS_capset, &h, d) != 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    err = errno ? errno : EPERM;
    goto report;
  }
  if (cfg->confine && (err = -cfg->confine(cfg->confine_arg)) != 0)
    goto report;
  if (flags_override == SBX_UN_PROBE_TMP) {
    long r = sbx_un_tmp_unlink(op, &exempt);
    ret = r < 0 ? -1 : r;
    err = r < 0 ? (int)-r : 0;
    goto report;
  }
  switch (op->kind) {
  case SBX_UN_UNLINK:
    ret = unlinkat(op->fd[0], op->path[0], op->flags);
    break;
  case SBX_UN_RENAME:
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
  }
  err = ret < 0 ? errno : 0;
report:;
  long msg[3] = {err ? -1 : ret, err, exempt};
  (void)!write(out, msg, sizeof msg);
  _exit(0);
}

/* Runs the helper; *result is the call's return value or -errno; *exempt
 * (may be NULL) tells whether a probe found and deleted a /tmp entry. */
static int sbx_un_perform(const struct sbx_un_op *op, int rootfd,
                          const struct sbx_unotify_cfg *cfg, int flags_override, long *result,
                          int *exempt)
{
  long msg[3] = {-1, EIO, 0};
  int p[2], st;
  pid_t pid;

  if (pipe2(p, O_CLOEXEC) < 0)
    return -errno;
  pid = fork();
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
  close(p[1]);
  /* No message (the helper died) is EIO in the sandbox: fail closed. */
  while (read(p[0], msg, sizeof msg) < 0 && errno == EINTR)
    ;
  close(p[0]);
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
    ;
  *result = msg[1] ? -msg[1] : msg[0];
  if (exempt)
    *exempt = (int)msg[2];
  return 0;
}

static int sbx_un_pidfd_getfd(pid_t tgid, int fdnum)
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
static int sbx_un_collect(const struct seccomp_notif *n, struct sbx_un_op *op, pid_t *tgid)
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
  default:
    return -ENOSYS;
  }
  if (r != 0)
    return r;
  r = sbx_un_ids(tid, &op->uid, &op->gid, tgid);
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
  }
  return 0;
}

static void sbx_un_op_free(struct sbx_un_op *op)
{
  for (int i = 0; i < 2; i++)
    if (op->fd[i] > 0)
      close(op->fd[i]);
  if (op->sock > 0)
    close(op->sock);
  free(op->data);
}

static bool sbx_un_valid(int listener, uint64_t id)
{
  return ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

static void sbx_un_handle(int listener, const struct seccomp_notif *n,
                          const struct sbx_unotify_cfg *cfg, struct seccomp_notif_resp *resp)
{
  struct sbx_un_op *op = calloc(1, sizeof *op);
  struct cs_approval_request req;
  struct cs_approval_decision d;
  char shown[4200], shown2[4200], addr[80], rule[96], root[64];
  char what[8500];
  bool ask = true;
  pid_t tgid = 0;
  long result = -EPERM;
  int rootfd = -1, r;

  resp->id = n->id;
  resp->flags = 0; /* never SECCOMP_USER_NOTIF_FLAG_CONTINUE: see sbx_unotify.h */
  resp->val = 0;
  resp->error = -EPERM;
  if (!op) {
    resp->error = -ENOMEM;
    return;
  }
  op->fd[0] = op->fd[1] = op->sock = -1;
  r = sbx_un_collect(n, op, &tgid);
  if (r != 0) {
    resp->error = r;
    goto cleanup;
  }
  snprintf(root, sizeof root, "/proc/%d/root", (int)n->pid);
  rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
  /* The task may have exited and its pid been reused between the
   * notification and our /proc opens: only a still-valid id proves the
   * handles we took belong to the caller. */
  if (rootfd < 0 || !sbx_un_valid(listener, n->id)) {
    resp->error = -ESRCH;
    goto cleanup;
  }
  memset(&req, 0, sizeof req);
  req.argv = (const char *const *)cfg->argv;
  req.profile = cfg->profile;
  req.layer = "syscall";
  {
    /* libseccomp returns a copy the caller frees. */
    char *nm = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, op->nr);
    snprintf(rule, sizeof rule, "%s(2) (system-call layer)", nm ? nm : "?");
    free(nm);
  }
  req.rule = rule;
  if (op->kind == SBX_UN_UNLINK || op->kind == SBX_UN_RENAME) {
    req.operation = CS_APPROVAL_OP_DELETE;
    sbx_un_display(op->fd[0], op->path[0], shown, sizeof shown);
    req.path = shown;
    if (op->kind == SBX_UN_UNLINK && cfg->private_tmp) {
      int exempt = 0;
      r = sbx_un_perform(op, rootfd, cfg, SBX_UN_PROBE_TMP, &result, &exempt);
      if (r != 0) {
        resp->error = r;
        goto cleanup;
      }
      if (exempt)
        goto reply;
    }
    if (op->kind == SBX_UN_RENAME) {
      sbx_un_display(op->fd[1], op->path[1], shown2, sizeof shown2);
      req.path = shown2; /* what would be replaced */
      /* A rename that replaces nothing deletes nothing: tried first with
       * RENAME_NOREPLACE, and asked about only when the target exists (or
       * the file system cannot tell us). Exchanges delete nothing. */
      if (op->flags & RENAME_EXCHANGE) {
        ask = false;
      } else if (!(op->flags & RENAME_NOREPLACE)) {
        r = sbx_un_perform(op, rootfd, cfg, op->flags | RENAME_NOREPLACE, &result, NULL);
        if (r != 0) {
          resp->error = r;
          goto cleanup;
        }
        if (result != -EEXIST && result != -EINVAL)
          goto reply;
      } else {
        ask = false;
      }
    }
  } else {
    req.operation = CS_APPROVAL_OP_NETWORK;
    sbx_un_addr_text(&op->addr, addr, sizeof addr);
    req.address = addr;
    /* Loopback and non-IP families never leave the machine. */
    ask = !sbx_unotify_addr_local((const struct sockaddr *)&op->addr, op->addrlen);
  }
  if (ask && (cfg->preapproved & (req.operation == CS_APPROVAL_OP_DELETE
                                        ? CS_APPROVE_FILE_DELETE
                                        : CS_APPROVE_EXTERNAL_NETWORK)))
    ask = false;
  if (ask) {
    r = cs_approval_ask(cfg->mgr, &req, &d);
    if (r != 0) {
      snprintf(what, sizeof what, "%s %s", req.operation == CS_APPROVAL_OP_DELETE ? "delete" :
                                                   "connect to", req.path ? req.path : addr);
      fprintf(stderr, "sbx: approval: denied %s (%s, profile %s): %s [%s]\n", what, rule,
              cfg->profile ? cfg->profile : "?", d.reason, d.approver);
      resp->error = -EPERM;
      goto cleanup;
    }
    /* The approval took time; the caller may be gone. */
    if (!sbx_un_valid(listener, n->id)) {
      resp->error = -ESRCH;
      goto cleanup;
    }
  }
  r = sbx_un_perform(op, rootfd, cfg, -1, &result, NULL);
  if (r != 0) {
    resp->error = r;
    goto cleanup;
  }
reply:
  if (result < 0) {
    resp->error = (int)result;
  } else {
    resp->error = 0;
    resp->val = result;
  }
cleanup:
  if (rootfd >= 0)
    close(rootfd);
  sbx_un_op_free(op);
  free(op);
}

int sbx_unotify_serve(int listener, const struct sbx_unotify_cfg *cfg, int stop_fd)
{
  struct seccomp_notif_sizes sz;
  struct seccomp_notif *n = NULL;
  struct seccomp_notif_resp *resp = NULL;
  int r = 0;

  if (listener < 0 || !cfg || !cfg->mgr)
    return -EINVAL;
  if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) != 0)
    return -errno;
  /* The kernel's structures may be larger than our headers'. */
  n = calloc(1, sz.seccomp_notif > sizeof *n ? sz.seccomp_notif : sizeof *n);
  resp = calloc(1, sz.seccomp_notif_resp > sizeof *resp ? sz.seccomp_notif_resp : sizeof *resp);
  if (!n || !resp) {
    r = -ENOMEM;
    goto cleanup;
  }
  for (;;) {
    struct pollfd p[2] = {{.fd = listener, .events = POLLIN}, {.fd = stop_fd, .events = POLLIN}};
    int k = poll(p, stop_fd >= 0 ? 2 : 1, -1);
    if (k < 0 && errno == EINTR)
      continue;
    if (k < 0) {
      r = -errno;
      break;
    }
    if (stop_fd >= 0 && p[1].revents)
      break;
    if (p[0].revents & POLLIN) {
      memset(n, 0, sz.seccomp_notif);
      if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, n) != 0) {
        if (errno == EINTR || errno == ENOENT)
          continue;
        r = -errno;
        break;
      }
      memset(resp, 0, sz.seccomp_notif_resp);
      sbx_un_handle(listener, n, cfg, resp);
      /* ENOENT: the caller died or was interrupted meanwhile; nothing to do. */
      if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, resp) != 0 && errno != ENOENT &&
          errno != EINTR) {
        r = -errno;
        break;
      }
      continue;
    }
    if (p[0].revents & (POLLHUP | POLLERR | POLLNVAL))
      break; /* every process of the filter is gone */
  }
cleanup:
  free(n);
  free(resp);
  return r;
}
