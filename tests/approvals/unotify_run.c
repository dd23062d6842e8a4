/* unotify_run: runs a program under the approval workflow's system-call
 * layer alone (sbx_unotify + cs_approval), for the tests:
 *   unotify_run [--timeout MS] [--store FILE] APPROVER OPS -- PROGRAM ARGS...
 * --git-config FILE: guard FILE as git configuration (ops git-config).
 * --private-tmp: as sbx, a missing file or one on /tmp is deleted (or
 * answered ENOENT) by a probe helper without asking.
 * --cpu-budget-ms N: the supervisor's CPU budget for the run (0: none).
 * --helper-cgroup DIR: create the helpers in that cgroup.
 * --naive-continue: instead of sbx_unotify_serve, a deliberately WRONG
 * supervisor that checks the path and answers CONTINUE (the negative
 * control of the race test: it shows the race is real).
 * APPROVER: exec:PATH | socket:PATH | none; OPS: a comma list of
 * delete, network, git-config. Exits with the program's status; 77 when the kernel
 * lacks seccomp user notification; 125 on its own failure. Approval
 * records are printed on stderr as "record: ..." lines. */
#include <errno.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cs_approval.h"
#include "sbx_unotify.h"

static void record(void *ctx, const struct cs_approval_request *req,
                   const struct cs_approval_decision *d)
{
  (void)ctx;
  fprintf(stderr, "record: op=%s path=%s address=%s decision=%s scope=%s approver=%s reason=%s\n",
          cs_approval_op_name(req->operation), req->path ? req->path : "-",
          req->address ? req->address : "-", d->allow ? "allow" : "deny",
          cs_approval_scope_name(d->scope), d->approver, d->reason);
}

/* The wrong way (seccomp_unotify(2) warns against it): read the path,
 * allow names containing "victim", and let the kernel re-read it. */
static void naive_serve(int l)
{
  struct seccomp_notif n;
  struct seccomp_notif_resp r;
  for (;;) {
    struct pollfd p = { .fd = l, .events = POLLIN };
    if (poll(&p, 1, -1) < 0 || !(p.revents & POLLIN))
      return;
    memset(&n, 0, sizeof n);
    if (ioctl(l, SECCOMP_IOCTL_NOTIF_RECV, &n) != 0)
      continue;
    char path[256] = "";
    struct iovec lo = { path, sizeof path - 1 },
                 re = { (void *)(uintptr_t)n.data.args[0], sizeof path - 1 };
    process_vm_readv((pid_t)n.pid, &lo, 1, &re, 1, 0);
    memset(&r, 0, sizeof r);
    r.id = n.id;
    if (strstr(path, "victim"))
      r.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    else
      r.error = -EPERM;
    ioctl(l, SECCOMP_IOCTL_NOTIF_SEND, &r);
  }
}

int main(int argc, char **argv)
{
  struct cs_approval_opts o = { 0 };
  struct cs_approval_mgr *m = NULL;
  struct sbx_unotify_cfg cfg = { 0 };
  uint32_t ops = 0;
  struct sbx_unotify_gitfile *git = NULL;
  size_t n_git = 0;
  int i = 1, sv[2], st, listener, naive = 0, private_tmp = 0;
  uint64_t budget_ms = 0;
  const char *helper_cgroup = NULL;
  pid_t pid;

  while (i < argc && argv[i][0] == '-' && argv[i][1] == '-' && argv[i][2]) {
    if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc)
      o.timeout_ms = (unsigned)atoi(argv[++i]);
    else if (strcmp(argv[i], "--store") == 0 && i + 1 < argc)
      o.store_path = argv[++i];
    else if (strcmp(argv[i], "--naive-continue") == 0)
      naive = 1;
    else if (strcmp(argv[i], "--private-tmp") == 0)
      private_tmp = 1;
    else if (strcmp(argv[i], "--cpu-budget-ms") == 0 && i + 1 < argc)
      budget_ms = strtoull(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--helper-cgroup") == 0 && i + 1 < argc)
      helper_cgroup = argv[++i];
    else if (strcmp(argv[i], "--git-config") == 0 && i + 1 < argc) {
      /* A file to guard as git configuration (no read-only mount here:
       * only for measuring the write-open path, never for the race). */
      int r = sbx_unotify_git_add(&git, &n_git, argv[++i]);
      if (r != 0) {
        fprintf(stderr, "unotify_run: --git-config %s: %s\n", argv[i], strerror(-r));
        return 125;
      }
    }
    i++;
  }
  if (argc - i < 4 || strcmp(argv[i + 2], "--") != 0) {
    fprintf(stderr, "usage: unotify_run [--timeout MS] [--store F] APPROVER OPS -- PROG ARGS\n");
    return 125;
  }
  if (strcmp(argv[i], "none") != 0 && cs_approver_parse(argv[i], &o.approver) != 0) {
    fprintf(stderr, "unotify_run: bad approver %s\n", argv[i]);
    return 125;
  }
  if (strstr(argv[i + 1], "delete"))
    ops |= CS_APPROVE_FILE_DELETE;
  if (strstr(argv[i + 1], "network"))
    ops |= CS_APPROVE_EXTERNAL_NETWORK;
  if (strstr(argv[i + 1], "git-config"))
    ops |= CS_APPROVE_GIT_CONFIG;
  o.record = record;
  if (cs_approval_create(&o, &m) != 0)
    return 125;
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
    return 125;
  pid = fork();
  if (pid == 0) {
    close(sv[0]);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
      _exit(125);
    int l = sbx_unotify_install(ops);
    if (l < 0) {
      fprintf(stderr, "unotify_run: %s\n", strerror(-l));
      _exit(l == -ENOSYS ? 77 : 125);
    }
    /* The listener must not stay in the process it supervises: the
     * parent takes it (pidfd_getfd) once told, and the barrier returns
     * only when the parent serves (sbx_unotify.h). */
    if (write(sv[1], "L", 1) != 1)
      _exit(125);
    sbx_unotify_barrier();
    close(l);
    close(sv[1]);
    execv(argv[i + 3], argv + i + 3);
    _exit(127);
  }
  close(sv[1]);
  {
    char c;
    listener = read(sv[0], &c, 1) == 1 && c == 'L' ? sbx_unotify_pull(pid) : -1;
  }
  close(sv[0]);
  if (listener >= 0 && naive) {
    naive_serve(listener);
    close(listener);
  } else if (listener >= 0) {
    cfg.mgr = m;
    cfg.profile = "test";
    cfg.argv = argv + i + 3;
    cfg.ops = ops;
    cfg.git = git;
    cfg.n_git = n_git;
    cfg.private_tmp = private_tmp;
    cfg.cpu_budget_ns = budget_ms * 1000000u;
    cfg.helper_cgroup = helper_cgroup;
    int r = sbx_unotify_serve(listener, &cfg, -1);
    if (r != 0)
      fprintf(stderr, "unotify_run: serve: %s\n", strerror(-r));
    close(listener);
  }
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
    ;
  cs_approval_destroy(m);
  sbx_unotify_git_free(git, n_git);
  if (WIFEXITED(st))
    return WEXITSTATUS(st);
  return 128 + WTERMSIG(st);
}
