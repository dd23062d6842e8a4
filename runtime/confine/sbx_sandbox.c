/* sbx_sandbox: the processes of a sandbox, cold and warm alike
 * (sbx_sandbox.h): pid 1 (sbx's own tiny init) and the command's last
 * steps before execve, and the descriptor and signal plumbing they and the
 * supervisor share.
 *
 *   supervisor --clone(new namespaces)--> init (pid 1) --fork--> command
 *        ^                                  |                      |
 *        +---- control socket (SEQPACKET): FAIL / READY / EXIT <---+
 *
 * Each layer that fails is reported to the supervisor as a struct sbx_fail
 * (SBX_MSG_FAIL) and nothing is executed. */
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

#include "sbx_cgroup.h"
#include "sbx_landlock.h"
#include "sbx_mount.h"
#include "sbx_netns.h"
#include "sbx_privs.h"
#include "sbx_sandbox.h"
#include "sbx_session.h"

#ifndef SYS_close_range
#define SYS_close_range 436
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
 * (runtime/warm/sbx_serve_spare.c), the cold command after setsid and closing
 * descriptors. */
int sbx_command_limit(const struct sbx_cmd *c, int ruleset, int shared, struct sbx_fail *f)
{
  /* The run's own audit session, so that refusals in every process of the
   * run (and in no other) are named: before Landlock, which would refuse
   * the write, and while the capabilities and the host's ids are still
   * there (the identity changes later, sbx_privs.c). Not having one is no
   * failure: sbx then names the command's own refusals only. */
  (void)sbx_run_session_begin();
  if (sbx_rlimits_apply(c->plan, f) < 0 || sbx_nnp_apply(f) < 0)
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
 * READY, the address-space limit (nothing of sbx's allocates after it),
 * seccomp (last), execve. Never returns. */
_Noreturn void sbx_command_exec(const struct sbx_cmd *c, int ctl, struct sbx_fail *f)
{
  int err;
  if (f->layer != SBX_LAYER_NONE)
    goto fail;
  /* The bounding set (and securebits), the host identity the command
   * runs as when sbx is root (sbx_plan_identity.c: never the host's uid
   * 0), then the capability sets. */
  if ((!c->bound_dropped && sbx_caps_drop_bound(f) < 0) || sbx_identity_apply(c->plan, f) < 0 ||
      sbx_caps_drop_sets(f) < 0)
    goto fail;
  /* Approvals: the notify filter goes before the profile's
   * (runtime/supervise/sbx_unotify_sbx.h). Without the hook there is no
   * layer to ask: the run fails rather than run the calls unasked
   * (sbx_confine_run refuses such a request before the clone). */
  if (c->unotify) {
    if (!c->approvals) {
      sbx_fail_set(f, SBX_LAYER_SECCOMP, ENOSYS,
                   "approvals: no system-call layer to hand the notify listener to");
      goto fail;
    }
    if (c->approvals->handoff(ctl, c->unotify, f) < 0)
      goto fail;
  }
  /* The supervisor learns our host pid from this message's credentials,
   * and the run's audit session from its status. */
  sbx_send(ctl, SBX_MSG_READY, NULL, (int)sbx_run_session());
  if (sbx_memory_limit_apply(c->plan->profile, f) < 0)
    goto fail;
  if (sbx_seccomp_load(c->plan->profile, !(c->flags & SBX_RUN_NO_KMSG), f) < 0)
    goto fail;
  err = sbx_exec(c->argv, c->envp);
  /* A shell refused because the profile has none (the view shows it only
   * without the execute right, sbx_plan_shells.c) is said in those words:
   * "Permission denied" alone reads like a broken file mode, and the
   * caller, an agent more often than a person, needs to know to run the
   * program directly instead of through a shell. */
  if (err == EACCES && c->plan->shell_none && sbx_plan_is_shell(c->argv[0])) {
    sbx_fail_set(f, SBX_LAYER_EXEC, err,
                 "%s: profile %s (%s) allows no shell (allowShell false): run the program "
                 "directly, without sh -c",
                 c->argv[0], c->plan->profile->name, c->plan->profile->origin);
    sbx_send(ctl, SBX_MSG_EXEC_FAIL, f, SBX_EXEC_FAIL_EXPLAINED);
    _exit(SBX_EXIT_NOT_EXECUTABLE);
  }
  sbx_fail_set(f, SBX_LAYER_EXEC, err, "%s: %s", c->argv[0], strerror(err));
  sbx_send(ctl, SBX_MSG_EXEC_FAIL, f, SBX_EXEC_FAIL_PLAIN);
  _exit(err == ENOENT ? SBX_EXIT_NOT_FOUND : SBX_EXIT_NOT_EXECUTABLE);
fail:
  sbx_send(ctl, SBX_MSG_FAIL, f, 0);
  _exit(SBX_EXIT_FAILURE);
}

/* The command's process, forked by pid 1 after the request: session,
 * descriptors, limits, Landlock, capabilities, seccomp (last), execve.
 * Never returns. A warm spare pre-forks its command instead
 * (runtime/warm/sbx_serve_spare.c), with the same steps in the same order
 * around the request. */
static _Noreturn void sbx_command(const struct sbx_cmd *c, int ctl)
{
  struct sbx_fail f = { 0 };
  int keep[3] = { ctl, c->ruleset, c->ruleset_shared };

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
 * of `sbx serve`: view and Landlock ruleset already made,
 * runtime/warm/sbx_serve_spare.c). */
_Noreturn void sbx_init_run(const struct sbx_init_args *a)
{
  struct sbx_fail f = { 0 };
  int keep[3] = { a->ctl, a->cmd.ruleset, a->cmd.ruleset_shared };
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
  /* Warm: the server now prepares the next spare (sbx serve). */
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
  /* Proxied: the run's own network namespace, whose loopback carries the
   * proxy's listeners, made here (the namespace's own sockets) and served
   * by the supervisor. Cannot: refused, never a run with a dead network
   * that looks like the proxy's fault. */
  if (a->cmd.plan->net_proxied &&
      (sbx_netns_loopback_up(&f) < 0 || sbx_netns_proxy_handoff(ctl, &f) < 0))
    goto fail;
  /* Warm: the spare did this when it started (sbx_serve.c). */
  if (!a->view_ready &&
      (sbx_memfd_noexec(a->cmd.plan, &f) < 0 || sbx_mount_build(a->cmd.plan, &f) < 0))
    goto fail;
  /* Warm: the command was forked ahead and prepared itself (sbx serve);
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
    struct pollfd pf[2] = { { .fd = sfd, .events = POLLIN }, { .fd = ctl, .events = 0 } };
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
