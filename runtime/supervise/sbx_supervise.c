/* sbx_supervise: the supervisor's side of a run, shared by the cold path
 * (runtime/confine/sbx_confine.c, through its supervise hook), the warm
 * client (runtime/warm/sbx_warm.c) and the static front end: it waits for the control socket's messages (FAIL, READY,
 * EXEC_FAIL, EXIT) and the run's end or deadline, then names what the
 * kernel refused (sbx_kmsg.c, sbx_denial.c). It applies no layer and links
 * none of libseccomp, libcap or jansson, so the front end can use it. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sbx_diag.h"
#include "sbx_denial.h"
#include "sbx_fail.h"
#include "sbx_landlock_rights.h"
#include "sbx_plan.h"
#include "sbx_sandbox.h"
#include "sbx_supervise.h"

/* Approval helpers whose refusals are named (more: the first ones). */
#define SBX_HELPERS_NAMED 64

#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

/* Receives one control message; the descriptors that came with it (at
 * most 2, the proxy's listeners) into fds[0..*n_fds-1], owned by the
 * caller; more than 2 are closed and the message is a protocol error. */
static int sbx_recv(int fd, struct sbx_msg *m, pid_t *sender, int fds[2], size_t *n_fds)
{
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(4 * sizeof(int))];
  } cbuf;
  struct iovec iov = { .iov_base = m, .iov_len = sizeof *m };
  struct msghdr mh = {
    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf.buf, .msg_controllen = sizeof cbuf.buf
  };
  ssize_t n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
  bool too_many = false;
  *n_fds = 0;
  if (n <= 0)
    return n == 0 ? 0 : -errno;
  *sender = 0;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
    if (c->cmsg_level != SOL_SOCKET)
      continue;
    if (c->cmsg_type == SCM_CREDENTIALS && c->cmsg_len == CMSG_LEN(sizeof(struct ucred))) {
      struct ucred uc;
      memcpy(&uc, CMSG_DATA(c), sizeof uc);
      *sender = uc.pid;
    } else if (c->cmsg_type == SCM_RIGHTS) {
      size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (size_t i = 0; i < k; i++) {
        int x;
        memcpy(&x, CMSG_DATA(c) + i * sizeof(int), sizeof x);
        if (*n_fds < 2)
          fds[(*n_fds)++] = x;
        else {
          close(x);
          too_many = true;
        }
      }
    }
  }
  if (mh.msg_flags & MSG_CTRUNC)
    too_many = true;
  /* The approvals' handoff is the one byte 'L' (other messages begin with
   * a small integer kind); the kernel-filled credentials name the sender,
   * from which s->serve_listener takes the listener (sbx_unotify.h). */
  if (n == 1 && *(const unsigned char *)m == 'L' && *sender > 0) {
    memset(m, 0, sizeof *m);
    m->kind = SBX_MSG_LISTENER;
  } else if ((size_t)n != sizeof *m) {
    too_many = true;
  } else {
    m->text[sizeof m->text - 1] = '\0';
    /* Descriptors belong to one message only: the proxy's listeners. */
    if (m->kind != SBX_MSG_PROXY && *n_fds)
      too_many = true;
  }
  if (too_many) {
    for (size_t i = 0; i < *n_fds; i++)
      close(fds[i]);
    *n_fds = 0;
    return -EIO;
  }
  return 1;
}

/* pid 1 handed over the proxy's listeners (sbx_netns.h): serve them, and
 * tell pid 1 the command may start. Anything else ends the run before
 * the command exists: a proxied run never starts without its way out. */
static void *sbx_sup_proxy(struct sbx_sup *s, const struct sbx_run_request *req, pid_t sender,
                           int *fds, size_t n_fds, struct sbx_fail *f)
{
  void *state = NULL;
  const struct sbx_proxy_hooks *h = req->hooks ? req->hooks->proxy : NULL;
  if (sender != s->init || n_fds != 2 || !req->proxy || !h || !h->start) {
    for (size_t i = 0; i < n_fds; i++)
      close(fds[i]);
    sbx_fail_set(f, SBX_LAYER_PROXY, EPROTO,
                 sender != s->init ? "proxy listeners offered by a process other than pid 1"
                 : n_fds != 2      ? "proxy listeners missing from pid 1's message"
                                   : "no proxy to serve this run");
    return NULL;
  }
  state = h->start(req, fds[0], fds[1], f);
  if (!state)
    return NULL;
  if (write(s->ctl, "p", 1) != 1) {
    h->stop(state);
    sbx_fail_set(f, SBX_LAYER_PROXY, errno, "telling pid 1 the proxy serves: %s", strerror(errno));
    return NULL;
  }
  return state;
}

/* Names every distinct seccomp refusal of the run's processes with the
 * rule of the profile that ran behind it (sbx_seccomp_explain); the first
 * one that is not an expected fallback (a kill first) becomes the run's
 * denied_* and its message. Expected fallbacks are kept, marked, and
 * never reported. */
static void sbx_explain_seccomp(const struct cs_profile *p, const struct sbx_kmsg_scan *scan,
                                bool old_naming, int kmsg, struct sbx_run_result *res)
{
  char *msg = res->message;
  const size_t ml = sizeof res->message;
  int primary = -1, reported = 0;

  for (int i = 0; scan && i < scan->n_sc && res->n_sc_denials < SBX_SC_DENIALS_MAX; i++) {
    struct sbx_sc_denial *d = &res->sc_denials[res->n_sc_denials++];
    sbx_seccomp_explain(p, &scan->sc[i], old_naming, d);
    if (d->expected)
      continue;
    reported++;
    if (primary < 0 || (d->sig && !res->sc_denials[primary].sig))
      primary = res->n_sc_denials - 1;
  }
  /* The one reported first goes first (stderr, the audit log's order). */
  if (primary > 0) {
    struct sbx_sc_denial t = res->sc_denials[0];
    res->sc_denials[0] = res->sc_denials[primary];
    res->sc_denials[primary] = t;
    primary = 0;
  }
  res->denied_count = reported;
  if (primary < 0) {
    if (res->outcome == SBX_OUTCOME_SIGNALED && res->status == SIGSYS) {
      sbx_msg_append(msg, ml, "; seccomp: killed by SIGSYS, the call could not be named (%s)",
                     kmsg < 0 ? "kernel log not readable"
                              : "no audit record of the run's processes");
    }
    return;
  }
  {
    const struct sbx_sc_denial *d = &res->sc_denials[0];
    res->denied_syscall = d->nr;
    snprintf(res->denied_syscall_name, sizeof res->denied_syscall_name, "%s", d->name);
    res->denied_note = d->note;
    sbx_msg_append(msg, ml, "; seccomp: %s %s (%d) by %s at %s", d->sig ? "killed at" : "refused",
                   res->denied_syscall_name, d->nr, d->action, d->rule);
  }
}

/* Names what seccomp and Landlock refused during the run, from the
 * kernel's audit records of the command's pid (sbx_kmsg.c) and the
 * profile's rules (sbx_denial.c); says why when they cannot be named. */
static void sbx_explain_denial(const struct sbx_run_request *req, const struct sbx_plan *plan,
                               int kmsg, pid_t cmd_pid, unsigned session, const pid_t *helpers,
                               size_t n_helpers, bool exec_explained, struct sbx_run_result *res)
{
  const struct cs_profile *p = req->profile;
  struct sbx_kmsg_scan *scan = calloc(1, sizeof *scan);
  /* Test knob: the naming before the deciding rule was named. */
  const char *old_env = getenv(SBX_DENIAL_OLD_ENV);
  bool old_naming = old_env && strcmp(old_env, "1") == 0;
  const char *home = getenv("HOME");
  char *msg = res->message, exe[PATH_MAX], wsbuf[PATH_MAX], marker[96] = "";
  const size_t ml = sizeof res->message;
  /* A warm run has no plan here: the workspace and ABI are looked up. */
  const char *ws = plan ? plan->workspace : realpath(req->workspace, wsbuf);
  int abi = plan ? plan->landlock_abi : sbx_ll_abi();
  ssize_t n;
  int audit_on = -1, asked = -EAGAIN, ll_expected = 0;
  /* A clean run is not made to wait for records or to ask the kernel's
   * audit state (an AUDIT_GET costs ~80 us: its reply comes from a kernel
   * thread started for it); a failed one may have met a refusal whose
   * record is still in kauditd's queue. */
  bool clean = res->outcome == SBX_OUTCOME_EXITED && res->status == 0;

  /* Our domain's 1424 record names sbx's binary as exe: the command's
   * process made it before its execve. */
  n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = '\0';
  if (kmsg >= 0 && !clean)
    asked = sbx_kmsg_settle(&audit_on);
  /* A failed run with the kernel's audit on: a marker record sent now
   * comes after all of the run's records (same queue, same thread), so
   * reading until it arrives cannot miss one still being delivered, even
   * under load (bounded: SBX_KMSG_MARK_MS). The multicast group only. */
  if (asked == 0 && audit_on == 1 && sbx_kmsg_is_netlink(kmsg) &&
      sbx_kmsg_mark(marker, sizeof marker) != 0)
    marker[0] = '\0';
  if (scan) {
    sbx_kmsg_collect_until(kmsg, cmd_pid, helpers, n_helpers, old_naming ? 0 : session,
                           n > 0 ? exe : NULL, marker[0] ? marker : NULL, SBX_KMSG_MARK_MS, scan);
    res->audit_lost = scan->lost;
  }
  if (req->flags & SBX_RUN_NO_KMSG)
    res->ll_naming = SBX_NAMING_NOT_ASKED;
  else if (kmsg < 0 || !scan)
    res->ll_naming = SBX_NAMING_NO_LOG;
  else if (abi < 7)
    res->ll_naming = SBX_NAMING_OLD_ABI;
  else if (scan->ll_count > 0)
    res->ll_naming = SBX_NAMING_OK;
  else if (clean)
    res->ll_naming = SBX_NAMING_UNCHECKED;
  else if (asked == 0 && audit_on == 0)
    res->ll_naming = SBX_NAMING_AUDIT_DISABLED;
  else
    res->ll_naming = SBX_NAMING_OK;
  if (home && home[0] != '/')
    home = NULL;
  for (int i = 0; scan && i < scan->n_ll && res->n_ll_denials < SBX_LL_DENIALS_MAX; i++) {
    struct sbx_denial *d = &res->ll_denials[res->n_ll_denials];
    bool dup = false;
    sbx_denial_explain(p, ws, home, &scan->ll[i], d);
    /* isatty()'s probe of /dev/null is no refusal of the command's: not
     * named, not counted (the test knob reports it, as before). */
    if (d->expected && !old_naming) {
      ll_expected++;
      continue;
    }
    /* A refusal repeated (a PATH search, a retry loop) is named once. */
    for (int j = 0; j < res->n_ll_denials && !dup; j++)
      dup = strcmp(res->ll_denials[j].what, d->what) == 0;
    if (!dup)
      res->n_ll_denials++;
  }
  res->ll_denied_count = scan ? scan->ll_count - ll_expected : 0;
  if (res->n_ll_denials) {
    sbx_msg_append(msg, ml, "; landlock: refused %s: %s%s", res->ll_denials[0].what,
                   res->ll_denials[0].rule,
                   res->ll_denied_count > 1 ? " (and further refusals)" : "");
  } else if (res->outcome == SBX_OUTCOME_EXEC_FAILED && res->error == EACCES &&
             res->ll_naming != SBX_NAMING_OK && !exec_explained) {
    /* Landlock or the mount view refused the execve; which one cannot be
     * told without the record: say so instead of guessing. */
    sbx_msg_append(msg, ml, "; a refusal by Landlock could not be named: %s",
                   sbx_naming_text(res->ll_naming));
  }
  sbx_explain_seccomp(p, scan, old_naming, kmsg, res);
  free(scan);
}

/* Kills pid 1 of the run: by pid (our child) or through its pidfd (warm:
 * the server's child). Killing it kills everything in its pid namespace. */
static void sbx_sup_kill(const struct sbx_sup *s)
{
  if (s->init_pidfd >= 0)
    syscall(SYS_pidfd_send_signal, s->init_pidfd, SIGKILL, NULL, 0);
  else if (s->init > 0)
    kill(s->init, SIGKILL);
}

/* Waits for pid 1 to be gone and gets its wait status: waitpid for our
 * child. Warm: its pidfd turns readable only once pid 1 has exited, and
 * pid 1 exits only after the kernel killed the rest of its pid namespace,
 * so that is "everything is gone"; the server's report of the status (it
 * reaps) is read only when `need_status` (no EXIT message came). -1 when
 * unknown. */
static void sbx_sup_reap(struct sbx_sup *s, int *st, bool need_status)
{
  *st = 0;
  if (s->server < 0) {
    while (s->init > 0 && waitpid(s->init, st, 0) < 0 && errno == EINTR)
      ;
    s->init = -1;
    return;
  }
  /* The warm client's hooks know the server's protocol; without them
   * the end is unknown, which is treated as no report. */
  if (!s->wait_gone || !s->wait_done || s->wait_gone(s->init_pidfd) < 0 ||
      (need_status && s->wait_done(s->server, s->init_pidfd, st) < 0)) {
    /* No report: make sure nothing of the run is left, then say so. */
    sbx_sup_kill(s);
    if (s->wait_gone)
      s->wait_gone(s->init_pidfd);
    *st = -1;
  }
}

int sbx_supervise(struct sbx_sup *s, const struct sbx_run_request *req, struct sbx_run_result *res,
                  int kmsg)
{
  struct sbx_msg m, fail_msg = { 0 }, exec_msg = { 0 };
  struct sbx_fail f, proxy_fail = { 0 };
  void *proxy = NULL;
  int fds[2];
  size_t n_fds = 0;
  bool have_exit = false, have_fail = false, have_exec_fail = false, timed_out = false;
  bool fail_first = false;
  pid_t cmd_pid = 0;
  unsigned session = 0;
  uint64_t deadline = 0;
  int rc, wst = 0, st = 0;

  if (s->tmax)
    deadline = s->t0 + s->tmax;
  for (;;) {
    struct pollfd pfd = { .fd = s->ctl, .events = POLLIN };
    int wait_ms = -1;
    pid_t sender = 0;
    if (deadline) {
      uint64_t now = sbx_now_ms();
      if (now >= deadline) {
        timed_out = true;
        break;
      }
      wait_ms = (int)((deadline - now) > INT_MAX ? INT_MAX : (deadline - now));
    }
    rc = poll(&pfd, 1, wait_ms);
    if (rc < 0 && errno == EINTR) {
      /* Warm: init is not our child, so sbx_signal's handler cannot kill
       * it; the interruption is acted on here. */
      if (req->interrupted && req->interrupted())
        sbx_sup_kill(s);
      continue;
    }
    if (rc < 0) {
      rc = -errno;
      sbx_fail_set(&f, SBX_LAYER_SUPERVISOR, -rc, "poll failed");
      sbx_result_from_fail(res, &f);
      sbx_sup_kill(s);
      sbx_sup_reap(s, &st, false);
      if (proxy)
        req->hooks->proxy->stop(proxy);
      return rc;
    }
    if (rc == 0)
      continue; /* the deadline check above decides */
    rc = sbx_recv(s->ctl, &m, &sender, fds, &n_fds);
    if (rc == -EINTR)
      continue;
    if (rc <= 0)
      break; /* EOF: init is gone and the command has exec'd or died */
    switch (m.kind) {
    case SBX_MSG_FAIL:
      if (!have_fail) {
        fail_msg = m;
        fail_first = !cmd_pid && !have_exec_fail && !have_exit;
      }
      have_fail = true;
      break;
    case SBX_MSG_READY:
      cmd_pid = sender;
      /* The run's audit session (sbx_session.h), from sbx's own code in
       * the command's process before its execve: 0 when it has none. */
      session = (unsigned)m.status;
      break;
    case SBX_MSG_EXEC_FAIL:
      exec_msg = m;
      have_exec_fail = true;
      break;
    case SBX_MSG_LISTENER:
      if (s->serve_listener) {
        s->serve_listener(s, sender, req);
      } else {
        /* Only the cold path serves a system-call layer. The sender waits
         * at its barrier for a supervisor that will never come: end it
         * now (the run fails, closed) rather than at its timeout. */
        fprintf(sbx_diag(), "sbx: approval: no system-call layer is served in this run; the "
                            "sandbox was stopped\n");
        (void)kill(sender, SIGKILL);
      }
      break;
    case SBX_MSG_PROXY:
      if (proxy || !(proxy = sbx_sup_proxy(s, req, sender, fds, n_fds, &proxy_fail))) {
        /* A second offer, or a proxy that did not start: the run ends
         * here, reported as the proxy layer's failure. */
        if (proxy_fail.layer == SBX_LAYER_NONE)
          sbx_fail_set(&proxy_fail, SBX_LAYER_PROXY, EPROTO, "proxy listeners offered twice");
        if (!have_fail) {
          memset(&fail_msg, 0, sizeof fail_msg);
          fail_msg.kind = SBX_MSG_FAIL;
          fail_msg.layer = (int32_t)proxy_fail.layer;
          fail_msg.error = proxy_fail.error;
          snprintf(fail_msg.text, sizeof fail_msg.text, "proxy: %.300s", proxy_fail.text);
          fail_first = !cmd_pid && !have_exec_fail && !have_exit;
        }
        have_fail = true;
        sbx_sup_kill(s);
      }
      break;
    case SBX_MSG_EXIT:
      wst = m.status;
      have_exit = true;
      break;
    default:
      break;
    }
  }
  if (timed_out)
    sbx_sup_kill(s); /* pid 1 dies: the kernel kills the whole sandbox */
  sbx_sup_reap(s, &st, !have_exit && !have_fail && !have_exec_fail);
  /* The sandbox is gone: its connections end now, each recorded. */
  if (proxy)
    req->hooks->proxy->stop(proxy);
  res->elapsed_ms = sbx_now_ms() - s->t0;

  if (have_fail) {
    /* Nothing of the command executed: no READY (the command sends it
     * before seccomp and execve), no exec failure, and either no EXIT
     * (pid 1 failed, and exited without forking or after killing its
     * pre-forked command) or the FAIL came before any other report and
     * the EXIT is the command's own failure exit after it (a warm spare's
     * pre-forked command failing before READY, e.g. on the caller's
     * process settings, its wait status then reported by pid 1). The
     * control socket is close-on-exec in the command, so nothing it
     * executed could have sent that FAIL. */
    s->fail_before_ready =
        !cmd_pid && !have_exec_fail &&
        (!have_exit || (fail_first && WIFEXITED(wst) && WEXITSTATUS(wst) == SBX_EXIT_FAILURE));
    /* The layer's own report, as the sandbox's process filled it. */
    sbx_fail_set(&f, (enum sbx_layer)fail_msg.layer, fail_msg.error, "%s", fail_msg.text);
    sbx_result_from_fail(res, &f);
    rc = fail_msg.error ? -fail_msg.error : -EPERM;
    return rc;
  }
  rc = 0;
  if (timed_out) {
    res->outcome = SBX_OUTCOME_TIMED_OUT;
    res->exit_code = SBX_EXIT_TIMEOUT;
    snprintf(res->message, sizeof res->message,
             "timeout: killed after %llu ms (the whole process tree)", (unsigned long long)s->tmax);
  } else if (have_exec_fail) {
    res->outcome = SBX_OUTCOME_EXEC_FAILED;
    res->layer = SBX_LAYER_EXEC;
    res->error = exec_msg.error;
    res->exit_code = exec_msg.error == ENOENT ? SBX_EXIT_NOT_FOUND : SBX_EXIT_NOT_EXECUTABLE;
    snprintf(res->message, sizeof res->message, "exec: %s", exec_msg.text);
  } else if (have_exit && WIFEXITED(wst)) {
    res->outcome = SBX_OUTCOME_EXITED;
    res->status = WEXITSTATUS(wst);
    res->exit_code = res->status;
    snprintf(res->message, sizeof res->message, "exited with status %d", res->status);
  } else if (have_exit && WIFSIGNALED(wst)) {
    res->outcome = SBX_OUTCOME_SIGNALED;
    res->status = WTERMSIG(wst);
    res->exit_code = SBX_EXIT_SIGNAL_BASE + res->status;
    snprintf(res->message, sizeof res->message, "killed by signal %d (%s)", res->status,
             strsignal(res->status));
  } else {
    sbx_fail_set(&f, SBX_LAYER_SUPERVISOR, EIO, "init ended without a report (%s %d)",
                 WIFSIGNALED(st) ? "signal" : "status",
                 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
    sbx_result_from_fail(res, &f);
    return -EIO;
  }
  {
    pid_t helpers[SBX_HELPERS_NAMED];
    size_t n_helpers = s->helper_pids ? s->helper_pids(s, helpers, SBX_HELPERS_NAMED) : 0;
    sbx_explain_denial(req, s->plan, kmsg, cmd_pid, session, helpers, n_helpers,
                       have_exec_fail && exec_msg.status == SBX_EXEC_FAIL_EXPLAINED, res);
  }
  return rc;
}
