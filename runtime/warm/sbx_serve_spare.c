/* sbx_serve_spare: the spares of `sbx serve`: pid 1 of a future run,
 * cloned ahead of the request into the run's namespaces and prepared
 * (view, Landlock ruleset, the pre-forked command), then handed a
 * request. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "sbx_cgroup.h"
#include "sbx_landlock.h"
#include "sbx_mount.h"
#include "sbx_privs.h"
#include "sbx_sandbox.h"
#include "sbx_serve_parts.h"

/* Gives pid (0: ourselves) the server's scheduling policy back. Failing
 * costs only speed, never a layer. */
static void sbx_sched_restore(const struct sbx_srv *s, pid_t pid)
{
  (void)!sched_setscheduler(pid, s->policy, &s->param);
}

void sbx_spare_clear(struct sbx_spare *sp)
{
  *sp = (struct sbx_spare){ .pidfd = -1, .sock = -1 };
}

void sbx_spare_drop(struct sbx_spare *sp)
{
  if (sp->pid > 0) {
    syscall(SYS_pidfd_send_signal, sp->pidfd, SIGKILL, NULL, 0);
    while (waitpid(sp->pid, NULL, 0) < 0 && errno == EINTR)
      ;
  }
  if (sp->pidfd >= 0)
    close(sp->pidfd);
  if (sp->sock >= 0)
    close(sp->sock);
  sbx_spare_clear(sp);
}

static int sbx_int_cmp(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* In a freshly cloned child: closes every descriptor above 2 except the
 * n of keep[] (sorted in place; negative entries ignored), so a spare or a
 * template builder holds nothing of the server, other templates or other
 * runs (a run's control socket held elsewhere would keep its supervisor
 * waiting). */
void sbx_close_except(int *keep, size_t n)
{
  int prev = 2;
  qsort(keep, n, sizeof *keep, sbx_int_cmp);
  for (size_t i = 0; i < n; i++) {
    if (keep[i] <= prev)
      continue;
    if (keep[i] > prev + 1)
      syscall(SYS_close_range, (unsigned)prev + 1, (unsigned)keep[i] - 1, 0u);
    prev = keep[i];
  }
  syscall(SYS_close_range, (unsigned)prev + 1, ~0u, 0u);
}

/* The caller's resource limits: a cold run's processes inherit them from
 * sbx run, the spare's would otherwise have the server's. pid 1 (this
 * process) takes them on, applies the profile's over them exactly as the
 * cold command does (sbx_rlimits_apply: never above the caller's hard
 * limit; the address space stays the caller's here, the command lowers it
 * to the profile's itself just before seccomp, warm as cold), and copies
 * the result to the pre-forked command `cmd`, whose
 * limits are the profile's over the server's: the copy only lowers them
 * (the caller's could not be taken on here if they were above the
 * server's, and without CAP_SYS_RESOURCE nothing here can raise a hard
 * limit), so it needs no privilege. Any failure sends the run cold. */
static int sbx_spare_rlimits(const struct sbx_warm_req *h, const struct sbx_plan *p, pid_t cmd,
                             const struct rlimit *mine, struct sbx_fail *f)
{
  struct rlimit rl;
  bool same = true;
  /* The common case, the caller's limits are ours (read before the
   * request, the ones the command's were computed from): the command's
   * are then already the profile's over the caller's; nothing to do on
   * the run's path. */
  for (int r = 0; r < RLIM_NLIMITS && same; r++)
    same = mine[r].rlim_cur == h->rlim[r][0] && mine[r].rlim_max == h->rlim[r][1];
  if (same)
    return 0;
  for (int r = 0; r < RLIM_NLIMITS; r++) {
    rl = (struct rlimit){ .rlim_cur = h->rlim[r][0], .rlim_max = h->rlim[r][1] };
    if (setrlimit(r, &rl) < 0) {
      sbx_fail_set(f, SBX_LAYER_RLIMIT, errno, "the caller's rlimit %d: %s", r, strerror(errno));
      return -1;
    }
  }
  if (sbx_rlimits_apply(p, f) < 0)
    return -1;
  for (int r = 0; cmd > 0 && r < RLIM_NLIMITS; r++)
    if (getrlimit(r, &rl) < 0 || prlimit(cmd, r, &rl, NULL) < 0) {
      sbx_fail_set(f, SBX_LAYER_RLIMIT, errno, "rlimit %d of the command: %s", r, strerror(errno));
      return -1;
    }
  return 0;
}

/* The rest of what a cold run inherits from sbx run (sbx_warm_req): umask,
 * nice value, OOM score adjustment, CPU affinity, for this process. `oom`
 * is /proc/self/oom_score_adj opened for writing (taken over and closed):
 * the pre-forked command opens it before its Landlock domain exists, which
 * would refuse the open afterwards. */
static int sbx_spare_process(const struct sbx_warm_req *h, int oom, struct sbx_fail *f)
{
  char buf[32];
  const char *what;
  int n, rc = -1;
  umask((mode_t)(h->umask & 07777));
  what = "nice value";
  if (setpriority(PRIO_PROCESS, 0, h->nice) < 0)
    goto fail;
  what = "OOM score adjustment";
  n = snprintf(buf, sizeof buf, "%d\n", (int)h->oom_score_adj);
  if (oom < 0 || write(oom, buf, (size_t)n) != n)
    goto fail;
  what = "CPU affinity";
  if (sched_setaffinity(0, sizeof h->cpus, (const cpu_set_t *)(const void *)h->cpus) < 0)
    goto fail;
  rc = 0;
  goto cleanup;
fail:
  sbx_fail_set(f, SBX_LAYER_SUPERVISOR, errno, "the caller's %s: %s", what, strerror(errno));
cleanup:
  if (oom >= 0)
    close(oom);
  return rc;
}

/* The spare's pre-forked command: everything of the command's preparation
 * that does not depend on the request, done before it (the cold command's
 * order: session, limits, no_new_privs, both Landlock layers, making its
 * OWN domain, so pid 1 stays outside it); then it says ready to the server
 * (`srv`, whose end reads our pid from the credentials), gets the request
 * from pid 1 (`req`), installs the client's stdio, closes everything else,
 * waits for the client's go (its own byte of the sync pipe, given after
 * the server's STARTED), joins the run's cgroup and cgroup namespace,
 * drops its remaining capabilities (the effective ones were kept until
 * then for that unshare; the bounding set went before the request),
 * seccomp last, execve. Until the go it runs nothing of the request: a spare dropped
 * before (stale template, client gone) never executes anything. */
static _Noreturn void sbx_spare_command(const struct sbx_srv *s, const struct sbx_tmpl *t, int srv,
                                        int req, int ruleset)
{
  struct sbx_fail f = { 0 };
  struct sbx_cmd cmd = { .plan = &t->plan, .ruleset = -1, .ruleset_shared = -1 };
  struct sbx_warm_req hdr;
  char **head = NULL, **argv = NULL, **envp = NULL, go = 0;
  int fds[SBX_WARM_FDS], n_fds = 0, keep[3], oom;
  bool trunc = false;
  ssize_t n;

  prctl(PR_SET_PDEATHSIG, SIGKILL);
  /* Before the Landlock domain below, which would refuse this open. */
  oom = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
  if (setsid() < 0)
    sbx_fail_set(&f, SBX_LAYER_SESSION, errno, "setsid: %s", strerror(errno));
  else if (sbx_command_limit(&cmd, ruleset, t->ll_shared, &f) == 0 && sbx_caps_drop_bound(&f) == 0)
    /* The bounding set now, off the run's path (about 85 prctl calls);
     * the effective set stays until after the go, for the cgroup join. */
    cmd.bound_dropped = true;
  /* Ready (or failed: then reported to the run that gets us, as the
   * spare's own failures are). The server may have handed the request
   * over and closed its end already (it waits for this only when it
   * needs our pid): EPIPE then is no error. */
  (void)!send(srv, "r", 1, MSG_NOSIGNAL);
  close(srv);
  n = sbx_warm_recv(req, s->buf, SBX_WARM_MAX_REQ, fds, &n_fds, &trunc);
  if (n <= 0 || trunc || sbx_warm_parse(s->buf, (size_t)n, n_fds, &hdr, &head, &argv, &envp) < 0)
    _exit(SBX_EXIT_FAILURE);
  for (int i = 0; i < 3; i++)
    if (dup2(fds[i], i) < 0)
      _exit(SBX_EXIT_FAILURE);
  /* The caller's process settings (its resource limits were set by pid 1
   * before it passed the request on); a failure is reported before READY
   * and the run goes cold. */
  if (f.layer == SBX_LAYER_NONE)
    sbx_spare_process(&hdr, oom, &f);
  else if (oom >= 0)
    close(oom);
  /* The control socket, the cgroup file and the client's go (the sync
   * pipe: one of its two bytes is ours). */
  keep[0] = fds[3];
  keep[1] = n_fds > 5 ? fds[5] : -1;
  keep[2] = fds[4];
  if (sbx_close_fds(keep, 3, &f) < 0)
    sbx_command_exec(&cmd, 3, &f);
  if (read(keep[2], &go, 1) != 1 || go != 'g')
    _exit(SBX_EXIT_FAILURE);
  close(keep[2]);
  cmd.argv = argv;
  cmd.envp = envp;
  /* The flags the server checked and keyed the template on. */
  cmd.flags = t->flags | (hdr.flags & SBX_RUN_NO_KMSG);
  if (f.layer != SBX_LAYER_NONE)
    sbx_command_exec(&cmd, keep[0], &f);
  /* Into the run's cgroup (v1; v2: the client moved us by pid) and a
   * cgroup namespace rooted there, as pid 1 did just before. */
  if (keep[1] >= 0 && sbx_cgroup_join(keep[1]) < 0)
    sbx_fail_set(&f, SBX_LAYER_CGROUP, errno, "joining the run's cgroup: %s", strerror(errno));
  else if (unshare(CLONE_NEWCGROUP) < 0)
    sbx_fail_set(&f, SBX_LAYER_NAMESPACES, errno, "cgroup namespace: %s", strerror(errno));
  if (keep[1] >= 0)
    close(keep[1]);
  sbx_command_exec(&cmd, keep[0], &f);
}

/* The spare: pid 1 of the next run of template t, prepared before its
 * request (the view's private copy and its own mounts, the Landlock
 * ruleset built there, the command forked and prepared), then handed the
 * request by the server. */
static _Noreturn void sbx_spare_main(const struct sbx_srv *s, const struct sbx_tmpl *t, int sock)
{
  struct sbx_fail f = { 0 };
  struct sbx_init_args ia = { .go_note = -1 };
  struct sbx_warm_req hdr;
  struct rlimit mine[RLIM_NLIMITS];
  char **head = NULL, **argv = NULL, **envp = NULL;
  int ruleset = -1, fds[SBX_WARM_FDS], n_fds = 0, cp[2] = { -1, -1 };
  bool trunc = false;
  ssize_t n;

  {
    /* Its socket, the template's namespace and shared Landlock layer. */
    int keep[3] = { sock, t->mntns, t->ll_shared };
    sbx_close_except(keep, 3);
  }
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  prctl(PR_SET_NAME, "sbx-spare");
  /* Holds the server's memory until its request: nobody may read it. */
  prctl(PR_SET_DUMPABLE, 0);
  /* The server's handlers must not reach the command (nor pid 1's wait). */
  sbx_reset_signals();
  /* A private copy of the template's finished view: this run's mounts
   * (/tmp, /dev/shm, /proc) never reach the template or another run. A
   * failure is kept and reported to the run that gets this spare. */
  /* pid 1 of the run's pid namespace already, still with the host's /proc
   * (the view's /proc/sys is read-only): no executable memfd, as cold. */
  if (sbx_memfd_noexec(&t->plan, &f) == 0) {
    if (setns(t->mntns, CLONE_NEWNS) < 0 || unshare(CLONE_NEWNS) < 0)
      sbx_fail_set(&f, SBX_LAYER_NAMESPACES, errno, "joining the template's view: %s",
                   strerror(errno));
    else if (close(t->mntns), sbx_mount_fresh(&t->plan, &f) == 0)
      sbx_landlock_ruleset(&t->plan, t->ll_shared >= 0 ? SBX_LL_RUN : SBX_LL_ALL, &ruleset, &f);
  }
  if (f.layer == SBX_LAYER_NONE) {
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, cp) < 0)
      sbx_fail_set(&f, SBX_LAYER_SUPERVISOR, errno, "socketpair: %s", strerror(errno));
    else if ((ia.child = fork()) < 0)
      sbx_fail_set(&f, SBX_LAYER_SUPERVISOR, errno, "fork: %s", strerror(errno));
    else if (ia.child == 0) {
      close(cp[0]);
      sbx_spare_command(s, t, sock, cp[1], ruleset);
    }
    if (cp[1] >= 0)
      close(cp[1]);
  }
  if (ruleset >= 0)
    close(ruleset);
  if (t->ll_shared >= 0)
    close(t->ll_shared);
  /* Our limits, the server's, from which the command computed its own. */
  for (int r = 0; r < RLIM_NLIMITS; r++)
    if (getrlimit(r, &mine[r]) < 0)
      sbx_fail_set(&f, SBX_LAYER_RLIMIT, errno, "rlimit %d: %s", r, strerror(errno));
  /* No command: the server hears it from us (then the run reports f). */
  if (ia.child <= 0) {
    ia.child = 0;
    (void)!send(sock, "f", 1, MSG_NOSIGNAL);
  }
  n = sbx_warm_recv(sock, s->buf, SBX_WARM_MAX_REQ, fds, &n_fds, &trunc);
  if (n <= 0 || trunc || sbx_warm_parse(s->buf, (size_t)n, n_fds, &hdr, &head, &argv, &envp) < 0)
    _exit(SBX_EXIT_FAILURE); /* dropped, or a request the server did not check */
  /* Kept until the go: its closing tells the server (sbx_serve_next_spare). */
  ia.go_note = sock;
  /* A failure here is reported to the run, before anything executed. */
  if (f.layer == SBX_LAYER_NONE && sbx_spare_rlimits(&hdr, &t->plan, ia.child, mine, &f) == 0)
    sbx_spare_process(&hdr, open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC), &f);
  /* A failed spare never passes the request on: its command, which would
   * get its own go together with ours, gets no argv and is killed, so it
   * cannot execute anything while we report the failure (after which the
   * client runs the command cold). */
  if (ia.child > 0 && f.layer != SBX_LAYER_NONE) {
    kill(ia.child, SIGKILL);
    (void)!waitpid(ia.child, NULL, 0);
    ia.child = 0;
    close(cp[0]);
  }
  /* The request goes on to the command at once (it installs its stdio
   * while the client still waits for the server's answer); the go only
   * follows the client's. */
  if (ia.child > 0) {
    sbx_sched_restore(s, ia.child);
    union {
      struct cmsghdr h;
      char buf[CMSG_SPACE(sizeof(int) * SBX_WARM_FDS)];
    } cbuf;
    struct iovec iov = { .iov_base = s->buf, .iov_len = (size_t)n };
    struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
    sbx_msg_put_fds(&mh, cbuf.buf, fds, n_fds);
    if (sendmsg(cp[0], &mh, MSG_NOSIGNAL) != n)
      sbx_fail_set(&f, SBX_LAYER_SUPERVISOR, errno, "handing the request to the command: %s",
                   strerror(errno));
    close(cp[0]);
  }
  /* The client's stdio is the command's, as in the cold path. */
  for (int i = 0; i < 3; i++)
    if (dup2(fds[i], i) < 0)
      _exit(SBX_EXIT_FAILURE);
  /* The flags the server checked and keyed the template on. */
  ia.cmd = (struct sbx_cmd){ .plan = &t->plan,
                             .argv = argv,
                             .envp = envp,
                             .flags = t->flags | (hdr.flags & SBX_RUN_NO_KMSG),
                             .unotify = NULL,
                             .ruleset = -1,
                             .ruleset_shared = -1 };
  ia.ctl = fds[3];
  ia.sync_rd = fds[4];
  ia.cg_fd = n_fds > 5 ? fds[5] : -1;
  ia.view_ready = true;
  ia.prep_fail = &f;
  sbx_init_run(&ia);
}

/* Clones a spare of template t into its free place *slot. */
int sbx_spare_make(struct sbx_srv *s, struct sbx_tmpl *t, struct sbx_spare *slot)
{
  unsigned long cflags = CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP;
  int sp[2], e;
  pid_t pid;
  if (t->plan.net_blocked || t->plan.net_proxied)
    cflags |= CLONE_NEWNET; /* an empty network namespace: only a down loopback */
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
    return -errno;
  /* Its "ready" carries the sender's pid: the pre-forked command's. */
  if (setsockopt(sp[0], SOL_SOCKET, SO_PASSCRED, &(int){ 1 }, sizeof(int)) < 0) {
    e = errno;
    close(sp[0]);
    close(sp[1]);
    return -e;
  }
  fflush(NULL);
  /* The spare (and the clone's namespace set-up, done here) runs while
   * the previous run's command does: idle priority keeps it off that
   * run's critical path (sbx_sched_restore when taken). */
  (void)!sched_setscheduler(0, SCHED_IDLE, &(struct sched_param){ 0 });
  pid = (pid_t)syscall(SYS_clone, cflags | SIGCHLD, NULL, NULL, NULL, 0);
  if (pid != 0)
    sbx_sched_restore(s, 0);
  if (pid < 0) {
    e = errno;
    close(sp[0]);
    close(sp[1]);
    return -e;
  }
  if (pid == 0) {
    close(sp[0]);
    sbx_spare_main(s, t, sp[1]);
  }
  close(sp[1]);
  slot->pid = pid;
  slot->cmd = 0;
  slot->sock = sp[0];
  slot->made = ++s->spares_made;
  slot->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  if (slot->pidfd < 0) {
    e = errno;
    sbx_spare_drop(slot);
    return -e;
  }
  return 0;
}

/* A free place for a spare of t, or NULL when t keeps enough. */
struct sbx_spare *sbx_spare_free(struct sbx_tmpl *t)
{
  for (int k = 0; k < SBX_SERVE_SPARES; k++)
    if (t->spares[k].pid <= 0)
      return &t->spares[k];
  return NULL;
}

/* t's oldest spare (the likeliest to be prepared), or NULL. */
static struct sbx_spare *sbx_spare_oldest(struct sbx_tmpl *t)
{
  struct sbx_spare *best = NULL;
  for (int k = 0; k < SBX_SERVE_SPARES; k++)
    if (t->spares[k].pid > 0 && (!best || t->spares[k].made < best->made))
      best = &t->spares[k];
  return best;
}

/* Waits (bounded) for t's spare to say it is prepared: "r" from its
 * pre-forked command (whose host pid the credentials give), "f" from pid 1
 * when there is none. */
static int sbx_spare_ready(struct sbx_spare *sp)
{
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(sizeof(struct ucred))];
  } cbuf;
  char what = 0;
  struct iovec iov = { .iov_base = &what, .iov_len = 1 };
  struct msghdr mh = {
    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf.buf, .msg_controllen = sizeof cbuf.buf
  };
  struct pollfd pfd = { .fd = sp->sock, .events = POLLIN };
  struct ucred cr = { 0 };
  int rc;
  if (sp->cmd != 0)
    return 0;
  while ((rc = poll(&pfd, 1, SBX_SERVE_SPARE_MS)) < 0 && errno == EINTR)
    ;
  if (rc <= 0)
    return rc < 0 ? -errno : -ETIMEDOUT;
  if (recvmsg(sp->sock, &mh, MSG_DONTWAIT) != 1)
    return -EIO;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
        c->cmsg_len == CMSG_LEN(sizeof cr))
      memcpy(&cr, CMSG_DATA(c), sizeof cr);
  if (what == 'r' && cr.pid > 0 && cr.pid != sp->pid)
    sp->cmd = cr.pid;
  else if (what == 'f')
    sp->cmd = -1;
  else
    return -EPROTO;
  return 0;
}

/* Hands the request in s->buf (n bytes, with fds) to t's spare, which
 * becomes the run's pid 1 (c->init, c->pidfd). */
int sbx_spare_take(struct sbx_srv *s, struct sbx_tmpl *t, struct sbx_conn *c, size_t n,
                   const int *fds, int n_fds)
{
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(sizeof(int) * SBX_WARM_FDS)];
  } cbuf;
  struct iovec iov = { .iov_base = s->buf, .iov_len = n };
  struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
  struct sbx_spare *sp;
  int rc;
  for (int attempt = 0; attempt < 1 + SBX_SERVE_SPARES; attempt++) {
    if (!(sp = sbx_spare_oldest(t))) {
      sp = &t->spares[0];
      if ((rc = sbx_spare_make(s, t, sp)) < 0)
        return rc;
    }
    sbx_msg_put_fds(&mh, cbuf.buf, fds, n_fds);
    /* The command's pid is needed only when the client moves the run
     * into its cgroup by pid (v2: no cgroup file in the request); waiting
     * for it otherwise would only delay the server's loop. */
    sbx_sched_restore(s, sp->pid);
    if ((n_fds > 5 || sbx_spare_ready(sp) == 0) &&
        sendmsg(sp->sock, &mh, MSG_NOSIGNAL) == (ssize_t)n) {
      c->init = sp->pid;
      c->cmd = sp->cmd;
      c->spare_sock = sp->sock;
      c->pidfd = sp->pidfd;
      sbx_spare_clear(sp);
      return 0;
    }
    sbx_spare_drop(sp); /* it died: another, or a fresh one */
  }
  return -EIO;
}
