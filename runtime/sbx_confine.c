/* sbx_confine: the supervisor (in sbx's process), pid 1 of the sandbox
 * (sbx's own tiny init) and the command's last steps before execve.
 *
 *   supervisor --clone(new namespaces)--> init (pid 1) --fork--> command
 *        ^                                  |                      |
 *        +---- control socket (SEQPACKET): FAIL / READY / EXIT <---+
 *
 * The supervisor computes the plan, creates the cgroup, clones init into
 * new namespaces, writes the uid/gid maps when sbx is not root, and then
 * only waits: for a FAIL message (a layer could not be applied: nothing is
 * executed), READY (the command is about to exec; its host pid arrives with
 * the message as SCM_CREDENTIALS), EXIT (init's report of the command's
 * wait status), or the deadline, at which it kills init. Killing pid 1 of a
 * pid namespace makes the kernel kill every process in it, so nothing the
 * command started (daemons included) outlives the run. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sbx_denial.h"
#include "sbx_freeze.h"
#include "sbx_internal.h"
#include "sbx_unotify_sbx.h"

#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

static void sbx_send(int fd, enum sbx_msg_kind kind, const struct sbx_fail *f, int status)
{
  struct sbx_msg m;
  memset(&m, 0, sizeof m);
  m.kind = kind;
  m.status = status;
  if (f) {
    m.layer = (int32_t)f->layer;
    m.error = f->error;
    memcpy(m.text, f->text, sizeof m.text);
    m.text[sizeof m.text - 1] = '\0';
  }
  /* write(), not send(): after the seccomp filter is loaded only calls the
   * profile allows work, and every profile allows write (hardened refuses
   * the socket calls). A vanished supervisor means we are being killed. */
  (void)!write(fd, &m, sizeof m);
}

/* Keeps 0, 1, 2 and the n descriptors of keep[] (moved to 3, 4, ...,
 * close-on-exec; keep[i] updated, -1 entries skipped); closes every other
 * inherited descriptor, so nothing sbx's caller had open (sockets, a
 * directory outside the view, a terminal) is reachable inside. Landlock
 * does not apply to descriptors opened before it, which is why they must
 * go. */
int sbx_close_fds(int *keep, int n, struct sbx_fail *f)
{
  int err, hi = 3 + n;
  for (int i = 0; i < n; i++)
    if (keep[i] >= 0 && keep[i] < hi) {
      int d = fcntl(keep[i], F_DUPFD_CLOEXEC, hi);
      if (d < 0) {
        err = errno;
        goto fail;
      }
      keep[i] = d;
    }
  for (int i = 0; i < n; i++) {
    if (keep[i] < 0) {
      close(3 + i);
      continue;
    }
    if (dup3(keep[i], 3 + i, O_CLOEXEC) < 0) {
      err = errno;
      goto fail;
    }
    keep[i] = 3 + i;
  }
  if (syscall(SYS_close_range, (unsigned)hi, ~0u, 0u) < 0) {
    if (errno != ENOSYS) {
      err = errno;
      goto fail;
    }
    for (int fd = hi; fd < 65536; fd++)
      close(fd);
  }
  return 0;
fail:
  sbx_fail_set(f, SBX_LAYER_SESSION, err, "closing inherited descriptors: %s", strerror(err));
  return -err;
}

/* Signal dispositions set to "ignore" and the blocked mask survive execve:
 * whatever sbx's caller ignored or blocked (SIGINT, SIGPIPE, SIGCHLD) must
 * not silently change how the command (or init's waitpid) behaves. */
void sbx_reset_signals(void)
{
  sigset_t none;
  for (int sig = 1; sig < NSIG; sig++)
    if (sig != SIGKILL && sig != SIGSTOP)
      signal(sig, SIG_DFL);
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
}

/* execve without a shell: argv[0] with a '/' is used as is, otherwise each
 * directory of the sandbox's PATH is tried like execvp does, but without
 * execvp's fallback of running a file that is not a binary through
 * /bin/sh. Returns the errno to report. */
static int sbx_exec(char *const *argv, char *const *envp)
{
  char buf[PATH_MAX];
  const char *dirs = SBX_SANDBOX_PATH;
  bool denied = false;
  if (strchr(argv[0], '/')) {
    execve(argv[0], argv, envp);
    return errno;
  }
  while (*dirs) {
    size_t n = strcspn(dirs, ":");
    if (snprintf(buf, sizeof buf, "%.*s/%s", (int)n, dirs, argv[0]) < (int)sizeof buf) {
      execve(buf, argv, envp);
      if (errno == EACCES)
        denied = true;
      else if (errno != ENOENT && errno != ENOTDIR)
        return errno;
    }
    dirs += n + (dirs[n] == ':');
  }
  return denied ? EACCES : ENOENT;
}

/* The request-independent part of the command's preparation: limits,
 * no_new_privs, Landlock (ruleset/shared: warm, the spare's own layer and
 * the template's shared one, both closed here; -1: cold, built here in the
 * view). A warm spare's pre-forked command does this before the request
 * (sbx_serve.c), the cold command after setsid and closing descriptors. */
int sbx_command_limit(const struct sbx_cmd *c, int ruleset, int shared, struct sbx_fail *f)
{
  if (sbx_rlimits_apply(c->plan->profile, f) < 0 || sbx_nnp_apply(f) < 0)
    return -1;
  /* Warm: the spare's own layer, built by the same code in its own
   * finished view (its own /tmp, /proc, /dev/shm) before the request came,
   * then the template's shared one (no-shell profiles: the per-file
   * EXECUTE grants); enum sbx_ll_part says why the two allow exactly what
   * the cold path's one does. Small layer first: the kernel copies every
   * rule of the older layers into each new domain and frees the replaced
   * domain, so the ~1,000 shared rules are copied and freed once per run,
   * not twice (docs/performance.md). Each restriction makes the command's
   * own domain (never pid 1's: Landlock's signal scoping then refuses
   * kill(1, 0)). Cold: built here, in the view. */
  if (ruleset >= 0) {
    if (sbx_landlock_restrict(ruleset, c->plan->landlock_abi, f) < 0 ||
        (shared >= 0 && sbx_landlock_restrict(shared, c->plan->landlock_abi, f) < 0))
      return -1;
    close(ruleset);
    if (shared >= 0)
      close(shared);
  } else if (sbx_landlock_apply(c->plan, f) < 0)
    return -1;
  return 0;
}

/* Closed stdio would make the command's first open() land on 0..2. */
static void sbx_stdio_fill(void)
{
  for (int fd = 0; fd < 3; fd++)
    if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
      int n = open("/dev/null", O_RDWR);
      if (n >= 0 && n != fd) {
        dup2(n, fd);
        close(n);
      }
    }
}

/* The end of the command's preparation, cold and warm alike: a failure
 * already in *f is reported; capabilities, the approvals' notify filter,
 * READY, seccomp (last), execve. Never returns. */
_Noreturn void sbx_command_exec(const struct sbx_cmd *c, int ctl, struct sbx_fail *f)
{
  int err;
  if (f->layer != SBX_LAYER_NONE)
    goto fail;
  if ((c->bound_dropped ? sbx_caps_drop_sets(f) : sbx_caps_drop(f)) < 0)
    goto fail;
  /* Approvals: the notify filter goes before the profile's (sbx_unotify_sbx.h). */
  if (c->unotify && sbx_unotify_handoff(ctl, c->unotify->ops, f) < 0)
    goto fail;
  /* The supervisor learns our host pid from this message's credentials. */
  sbx_send(ctl, SBX_MSG_READY, NULL, 0);
  if (sbx_seccomp_load(c->plan->profile, !(c->flags & SBX_RUN_NO_KMSG), f) < 0)
    goto fail;
  err = sbx_exec(c->argv, c->envp);
  sbx_fail_set(f, SBX_LAYER_EXEC, err, "%s: %s", c->argv[0], strerror(err));
  sbx_send(ctl, SBX_MSG_EXEC_FAIL, f, 0);
  _exit(err == ENOENT ? SBX_EXIT_NOT_FOUND : SBX_EXIT_NOT_EXECUTABLE);
fail:
  sbx_send(ctl, SBX_MSG_FAIL, f, 0);
  _exit(SBX_EXIT_FAILURE);
}

/* The command's process, forked by pid 1 after the request: session,
 * descriptors, limits, Landlock, capabilities, seccomp (last), execve.
 * Never returns. A warm spare pre-forks its command instead
 * (sbx_serve.c), with the same steps in the same order around the
 * request. */
static _Noreturn void sbx_command(const struct sbx_cmd *c, int ctl)
{
  struct sbx_fail f = {0};
  int keep[3] = {ctl, c->ruleset, c->ruleset_shared};

  /* Dies with init; the pid namespace guarantees it, this makes it prompt. */
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  /* A new session without a controlling terminal: TIOCSTI (pushing input
   * into the caller's shell) and job-control signals to the caller's
   * process group become impossible even if fd 0 is the caller's tty. */
  if (setsid() < 0) {
    sbx_fail_set(&f, SBX_LAYER_SESSION, errno, "setsid: %s", strerror(errno));
    sbx_command_exec(c, ctl, &f);
  }
  if (sbx_close_fds(keep, 3, &f) < 0)
    sbx_command_exec(c, 3, &f);
  ctl = keep[0];
  sbx_stdio_fill();
  sbx_command_limit(c, keep[1], keep[2], &f);
  sbx_command_exec(c, ctl, &f);
}

/* pid 1 of the sandbox, cold (builds the view) or warm (a prepared spare
 * of `sbx serve`: view and Landlock ruleset already made, sbx_serve.c). */
_Noreturn void sbx_init_run(const struct sbx_init_args *a)
{
  struct sbx_fail f = {0};
  int keep[3] = {a->ctl, a->cmd.ruleset, a->cmd.ruleset_shared};
  struct sbx_cmd cmd = a->cmd;
  int ctl = a->ctl;
  char go = 0;
  pid_t pid, child;
  sigset_t chld;
  int st, sfd;

  sbx_reset_signals();
  /* If sbx dies, the sandbox dies (and with pid 1, everything in it). */
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  prctl(PR_SET_NAME, "sbx-init");
  /* Wait until the supervisor has written the uid/gid maps and put us in
   * the cgroup; EOF means it died first. */
  if (read(a->sync_rd, &go, 1) != 1 || go != 'g')
    _exit(SBX_EXIT_FAILURE);
  close(a->sync_rd);
  /* Warm: the server now prepares the next spare (sbx_serve.c). */
  if (a->go_note >= 0)
    close(a->go_note);
  /* A spare whose preparation failed reports it now, to this run. */
  if (a->prep_fail && a->prep_fail->layer != SBX_LAYER_NONE) {
    f = *a->prep_fail;
    goto fail;
  }
  /* Into the run's cgroup (v1) before anything else can fork. */
  if (a->cg_fd >= 0 && sbx_cgroup_join(a->cg_fd) < 0) {
    sbx_fail_set(&f, SBX_LAYER_CGROUP, errno, "joining the run's cgroup: %s", strerror(errno));
    goto fail;
  }
  /* The cgroup namespace of the clone is rooted where sbx runs, so the
   * run's own cgroup (named after sbx's host pid) would show in
   * /proc/self/cgroup: a new one rooted at the run's cgroup shows "/". */
  if (unshare(CLONE_NEWCGROUP) < 0) {
    sbx_fail_set(&f, SBX_LAYER_NAMESPACES, errno, "cgroup namespace: %s", strerror(errno));
    goto fail;
  }
  if (sbx_close_fds(keep, 3, &f) < 0) {
    ctl = 3;
    goto fail;
  }
  ctl = keep[0];
  cmd.ruleset = keep[1];
  cmd.ruleset_shared = keep[2];
  /* Not dumpable: the command (same uid) cannot ptrace pid 1 or read its
   * memory through /proc, even if the seccomp profile allowed ptrace. */
  prctl(PR_SET_DUMPABLE, 0);
  if (sethostname("sbx", 3) < 0) {
    sbx_fail_set(&f, SBX_LAYER_NAMESPACES, errno, "sethostname: %s", strerror(errno));
    goto fail;
  }
  if (!a->view_ready && sbx_mount_build(a->cmd.plan, &f) < 0)
    goto fail;
  /* Warm: the command was forked ahead and prepared itself (sbx_serve.c);
   * it took its own byte of the client's go. */
  if (a->child > 0)
    child = a->child;
  else
    child = fork();
  if (child < 0) {
    sbx_fail_set(&f, SBX_LAYER_SUPERVISOR, errno, "fork: %s", strerror(errno));
    goto fail;
  }
  if (child == 0)
    sbx_command(&cmd, ctl);
  if (cmd.ruleset >= 0)
    close(cmd.ruleset);
  if (cmd.ruleset_shared >= 0)
    close(cmd.ruleset_shared);
  /* Reap everything (orphans are re-parented to us); report when the
   * command itself ends. Returning then tears the namespace down. The
   * supervisor's end of the control socket closing (it died, even by
   * SIGKILL) ends the run at once: a warm pid 1 is not its child, so no
   * parent-death signal would, and the server's kill could come late,
   * after the dead supervisor's admission slot was given to another run. */
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, NULL); /* the command was forked already */
  sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
  for (;;) {
    struct pollfd pf[2] = {{.fd = sfd, .events = POLLIN}, {.fd = ctl, .events = 0}};
    pid = waitpid(-1, &st, sfd >= 0 ? WNOHANG : 0);
    if (pid == child) {
      sbx_send(ctl, SBX_MSG_EXIT, NULL, st);
      /* Our own status mirrors the command's (the report is the message). */
      _exit(WIFEXITED(st) ? WEXITSTATUS(st) : SBX_EXIT_SIGNAL_BASE + WTERMSIG(st));
    }
    if (pid < 0 && errno != EINTR)
      break;
    if (pid != 0)
      continue; /* reaped an orphan, or interrupted: look again */
    if (poll(pf, 2, -1) < 0 && errno != EINTR)
      break;
    if (pf[1].revents & (POLLHUP | POLLERR))
      _exit(SBX_EXIT_FAILURE); /* the whole pid namespace dies with us */
    if (pf[0].revents & POLLIN) {
      struct signalfd_siginfo si[8];
      (void)!read(sfd, si, sizeof si);
    }
  }
  sbx_fail_set(&f, SBX_LAYER_SUPERVISOR, errno, "init lost the command: %s", strerror(errno));
fail:
  sbx_send(ctl, SBX_MSG_FAIL, &f, 0);
  _exit(SBX_EXIT_FAILURE);
}

static int sbx_write_proc(pid_t pid, const char *file, const char *text)
{
  char path[64];
  int fd, rc = 0;
  size_t n = strlen(text);
  snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
  fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  if (write(fd, text, n) != (ssize_t)n)
    rc = -errno;
  close(fd);
  return rc;
}

/* Maps our own uid and gid (only) into the user namespace: the command is
 * the same unprivileged user inside, and "deny" for setgroups stops it from
 * dropping supplementary groups to escape a negative group permission. */
static int sbx_userns_map(pid_t pid, uid_t uid, gid_t gid)
{
  char map[64];
  int rc;
  snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
  if ((rc = sbx_write_proc(pid, "uid_map", map)) < 0)
    return rc;
  if ((rc = sbx_write_proc(pid, "setgroups", "deny")) < 0 && rc != -ENOENT)
    return rc;
  snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
  return sbx_write_proc(pid, "gid_map", map);
}

/* The cold path's system-call layer: takes the notify listener from the
 * process that announced it (pidfd_getfd, sbx_unotify.h) and serves it. */
static void sbx_take_listener(struct sbx_sup *s, pid_t from, const struct sbx_run_request *req)
{
  int fd = sbx_unotify_pull(from);
  if (fd < 0) {
    /* The sender waits at the barrier for a supervisor that will never
     * come: end it now (the run fails, closed) rather than at its
     * timeout. */
    fprintf(stderr, "sbx: approval: cannot take the notify listener from the sandbox: %s\n",
            strerror(-fd));
    (void)kill(from, SIGKILL);
    return;
  }
  (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
  /* Without a server the sandbox's notified calls fail (ENOSYS): closed,
   * never open. */
  if (!req->unotify || !s->unotify || s->unotify->running ||
      sbx_unotify_start(s->unotify, fd, req->unotify, s->plan) != 0) {
    if (!req->unotify || !s->unotify || s->unotify->running)
      close(fd);
    fprintf(stderr, "sbx: approval: system-call layer not served; those calls fail\n");
  }
}

/* The approvals' helpers of this run (sbx_unotify_sbx.h). */
static size_t sbx_helper_pids(struct sbx_sup *s, pid_t *out, size_t max)
{
  return s->unotify ? sbx_unotify_helpers(s->unotify, out, max) : 0;
}

int sbx_confine_run(const struct sbx_run_request *req, struct sbx_run_result *res)
{
  struct sbx_features feat;
  struct sbx_plan plan;
  struct sbx_cgroup cg = {0};
  struct sbx_unotify_srv unotify = {0};
  char err[512];
  int sv[2] = {-1, -1}, sync_pipe[2] = {-1, -1}, kmsg = -1, one = 1, rc, st = 0;
  struct sigaction old_chld;
  bool restore_chld = false;
  bool have_plan = false, init_joins = false;
  pid_t init = -1;
  uint64_t t0, tmax;
  int flags;

  if ((rc = sbx_confine_begin(req, res, &tmax)) < 0)
    return rc;
  /* With SIGCHLD ignored the kernel would reap init itself and its status
   * would be lost: default it for the run, restore it afterwards. */
  restore_chld = sbx_sigchld_default(&old_chld);

  /* A running `sbx serve` (same user) starts the run from a template when
   * it can; anything short of a started command falls back to the cold
   * path below, which is equally confined (sbx_warm.c). The server checked
   * the profile against the kernel when it built the template. */
  if (req->warm_socket && !req->unotify) {
    rc = sbx_warm_run(req, tmax, res);
    if (rc != SBX_WARM_DECLINED)
      goto cleanup;
  } else if (req->warm_declined)
    snprintf(res->start_note, sizeof res->start_note, "%s", req->warm_declined);
  else if (req->warm_socket)
    /* The approvals' system-call layer is served by this process. */
    snprintf(res->start_note, sizeof res->start_note,
             "approvals at the system-call layer are served by the cold path");
  snprintf(res->start_path, sizeof res->start_path, "cold");
  /* Layers the kernel cannot provide: refuse, never run with fewer. */
  sbx_probe_for_run(&feat);
  if ((rc = sbx_profile_enforceable(req->profile, &feat, err, sizeof err)) < 0) {
    sbx_result_fail(res, rc == -EINVAL ? SBX_LAYER_REQUEST : SBX_LAYER_KERNEL, -rc, err);
    goto cleanup;
  }

  if ((rc = sbx_plan_build(req, feat.landlock_abi, &plan, err, sizeof err)) < 0) {
    sbx_result_fail(res, strncmp(err, "env", 3) == 0 ? SBX_LAYER_ENV
                         : strncmp(err, "request", 7) == 0 ? SBX_LAYER_REQUEST
                                                            : SBX_LAYER_MOUNT,
                    -rc, err);
    goto cleanup;
  }
  have_plan = true;
  plan.userns = !feat.root;
  plan.timeout_ms = tmax;

  if ((rc = sbx_cgroup_create(req->profile, &feat, &cg, err, sizeof err)) < 0) {
    sbx_result_fail(res, SBX_LAYER_CGROUP, -rc, err);
    goto cleanup;
  }
  snprintf(res->cgroup_info, sizeof res->cgroup_info, "%s", cg.info);
  if (!(req->flags & SBX_RUN_NO_KMSG))
    kmsg = sbx_kmsg_open(); /* best effort: < 0 only loses the syscall's name */

  kmsg = sbx_above_stdio(kmsg);
  cg.join_fd = sbx_above_stdio(cg.join_fd);
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0 ||
      (sv[0] = sbx_above_stdio(sv[0])) < 0 || (sv[1] = sbx_above_stdio(sv[1])) < 0 ||
      setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0 ||
      pipe2(sync_pipe, O_CLOEXEC) < 0 || (sync_pipe[0] = sbx_above_stdio(sync_pipe[0])) < 0 ||
      (sync_pipe[1] = sbx_above_stdio(sync_pipe[1])) < 0) {
    rc = -errno;
    snprintf(err, sizeof err, "supervisor: control channel: %s", strerror(errno));
    sbx_result_fail(res, SBX_LAYER_SUPERVISOR, -rc, err);
    goto cleanup;
  }

  flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP;
  if (plan.net_blocked)
    flags |= CLONE_NEWNET; /* an empty network namespace: only a down loopback */
  if (plan.userns)
    flags |= CLONE_NEWUSER;
  fflush(NULL); /* nothing buffered may be written twice */
  t0 = sbx_now_ms();
  init = (pid_t)syscall(SYS_clone, (unsigned long)flags | SIGCHLD, NULL, NULL, NULL, 0);
  if (init < 0) {
    rc = -errno;
    snprintf(err, sizeof err, "namespaces: clone(%s%s): %s", plan.userns ? "user+" : "",
             "mount+pid+ipc+uts+cgroup", strerror(errno));
    sbx_result_fail(res, plan.userns ? SBX_LAYER_USERNS : SBX_LAYER_NAMESPACES, -rc, err);
    goto cleanup;
  }
  if (init == 0) {
    close(sv[0]);
    close(sync_pipe[1]);
    if (kmsg >= 0)
      close(kmsg);
    struct sbx_init_args ia = {
        .cmd = {.plan = &plan, .argv = req->argv, .envp = plan.envp, .flags = req->flags,
                .unotify = req->unotify, .ruleset = -1, .ruleset_shared = -1},
        .ctl = sv[1], .sync_rd = sync_pipe[0], .cg_fd = cg.join_fd, .go_note = -1};
    sbx_init_run(&ia);
  }
  /* v1: init joins the cgroup itself (sbx_cgroup.c says why); otherwise,
   * or if its descriptor was lost, the supervisor moves it by pid. */
  init_joins = cg.join_fd >= 0;
  if (cg.join_fd >= 0) {
    close(cg.join_fd); /* init has its own; it joins by itself */
    cg.join_fd = -1;
  }
  close(sv[1]);
  sv[1] = -1;
  close(sync_pipe[0]);
  sync_pipe[0] = -1;

  if (plan.userns && (rc = sbx_userns_map(init, plan.uid, plan.gid)) < 0) {
    snprintf(err, sizeof err, "user namespace: writing uid/gid maps: %s", strerror(-rc));
    sbx_result_fail(res, SBX_LAYER_USERNS, -rc, err);
    goto kill_init;
  }
  if (!init_joins && (rc = sbx_cgroup_attach(&cg, init)) < 0) {
    snprintf(err, sizeof err, "cgroup: attaching pid %d to %s: %s", (int)init, cg.pids_dir,
             strerror(-rc));
    sbx_result_fail(res, SBX_LAYER_CGROUP, -rc, err);
    goto kill_init;
  }
  /* The terminal approver freezes the whole run while it asks
   * (sbx_freeze.c): init is put in a freezable cgroup before it is
   * released, so everything it forks is inside. A run that cannot be
   * frozen still runs; its terminal questions are refused instead. */
  if (req->unotify && req->unotify->freeze) {
    char why[200];
    /* Without a terminal nobody can be asked on one: no cgroup to make
     * (moving init costs an RCU grace period on a hybrid machine). */
    int tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (tty < 0)
      snprintf(why, sizeof why, "no controlling terminal: %s", strerror(errno));
    else
      close(tty);
    if (tty >= 0 && sbx_cgroup_freezer(&cg, init, why, sizeof why) == 0)
      sbx_freeze_arm(req->unotify->freeze, cg.freeze_dir, NULL);
    else
      sbx_freeze_arm(req->unotify->freeze, NULL, why);
  }
  /* The admission slot now lasts as long as the sandbox (sbx_admit.h). */
  if (req->on_init && (rc = req->on_init(req->on_init_ctx, init)) != 0) {
    snprintf(err, sizeof err, "admission: tying the slot to pid %d: %s", (int)init,
             strerror(rc < 0 ? -rc : EIO));
    sbx_result_fail(res, SBX_LAYER_SUPERVISOR, rc < 0 ? -rc : EIO, err);
    goto kill_init;
  }
  if (write(sync_pipe[1], "g", 1) != 1) {
    rc = -errno;
    snprintf(err, sizeof err, "supervisor: releasing init: %s", strerror(errno));
    sbx_result_fail(res, SBX_LAYER_SUPERVISOR, -rc, err);
    goto kill_init;
  }
  close(sync_pipe[1]);
  sync_pipe[1] = -1;

  {
    struct sbx_sup sup = {.ctl = sv[0], .init = init, .init_pidfd = -1, .server = -1,
                          .t0 = t0, .tmax = tmax, .plan = &plan, .unotify = &unotify,
                          .serve_listener = sbx_take_listener,
                          .helper_pids = sbx_helper_pids};
    rc = sbx_supervise(&sup, req, res, kmsg);
    init = -1;
  }
  goto cleanup;

kill_init:
  if (init > 0) {
    kill(init, SIGKILL);
    while (waitpid(init, &st, 0) < 0 && errno == EINTR)
      ;
  }
cleanup:
  sbx_unotify_stop(&unotify);
  if (req->unotify && req->unotify->freeze)
    sbx_freeze_disarm(req->unotify->freeze);
  if (sv[0] >= 0)
    close(sv[0]);
  if (sv[1] >= 0)
    close(sv[1]);
  if (sync_pipe[0] >= 0)
    close(sync_pipe[0]);
  if (sync_pipe[1] >= 0)
    close(sync_pipe[1]);
  if (kmsg >= 0)
    close(kmsg);
  sbx_cgroup_destroy(&cg);
  if (have_plan)
    sbx_plan_free(&plan);
  if (restore_chld)
    sigaction(SIGCHLD, &old_chld, NULL);
  return rc;
}
