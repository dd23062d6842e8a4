/* cs_approval_exec: the exec:PROGRAM approver. For each request PROGRAM
 * runs (no shell, argv = {PROGRAM}) with the request's JSON on stdin and
 * must print one JSON reply on stdout and exit 0 (docs/approvals.md).
 *
 * Fail closed: exec failure, a non-zero exit, death by a signal, more than
 * CS_APPROVAL_MAX_REPLY bytes, no reply, a malformed reply, or the
 * deadline (the whole process group is then killed) are all denials. */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cs_approval_internal.h"

struct cs_exec_approver {
  char *program;
};

static int cs_exec_remaining(uint64_t deadline)
{
  uint64_t now = cs_approval_now_ms();
  return now >= deadline ? 0 : (int)(deadline - now);
}

/* Reaps pid, killing its process group first when the deadline passes. */
static int cs_exec_reap(pid_t pid, uint64_t deadline, int *status, bool *killed)
{
  for (;;) {
    pid_t w = waitpid(pid, status, WNOHANG);
    if (w == pid)
      return 0;
    if (w < 0 && errno != EINTR)
      return -errno;
    if (cs_exec_remaining(deadline) == 0) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      *killed = true;
      while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        ;
      return 0;
    }
    usleep(2000);
  }
}

static int cs_exec_decide(void *ctx, const struct cs_approval_request *req, unsigned timeout_ms,
                          struct cs_approval_decision *d)
{
  struct cs_exec_approver *a = ctx;
  uint64_t deadline = cs_approval_now_ms() + timeout_ms;
  char *json = NULL, *reply = NULL;
  size_t sent = 0, len, got = 0;
  int in[2] = { -1, -1 }, out[2] = { -1, -1 };
  pid_t pid = -1;
  int status = 0, r = -EIO;
  bool killed = false, timed_out = false;

  snprintf(d->approver, sizeof d->approver, "exec:%s", a->program);
  json = cs_approval_request_json(req, 0);
  reply = malloc(CS_APPROVAL_MAX_REPLY + 1);
  if (!json || !reply) {
    r = -ENOMEM;
    snprintf(d->reason, sizeof d->reason, "out of memory");
    goto cleanup;
  }
  len = strlen(json);
  /* stdin is a socket so our writes use MSG_NOSIGNAL: an approver that
   * closes its stdin early costs a deny, not sbx's life (SIGPIPE). */
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) < 0 || pipe2(out, O_CLOEXEC) < 0) {
    r = -errno;
    snprintf(d->reason, sizeof d->reason, "approver channel: %s", strerror(errno));
    goto cleanup;
  }
  pid = fork();
  if (pid < 0) {
    r = -errno;
    snprintf(d->reason, sizeof d->reason, "fork: %s", strerror(errno));
    goto cleanup;
  }
  if (pid == 0) {
    char *argv[] = { a->program, NULL };
    /* Its own process group, so a hung approver and everything it
     * started are killed together at the deadline. */
    setpgid(0, 0);
    signal(SIGPIPE, SIG_DFL);
    if (dup2(in[1], 0) < 0 || dup2(out[1], 1) < 0)
      _exit(127);
    syscall(SYS_close_range, 3u, ~0u, 0u);
    execv(a->program, argv);
    _exit(127);
  }
  close(in[1]);
  in[1] = -1;
  close(out[1]);
  out[1] = -1;
  fcntl(in[0], F_SETFL, O_NONBLOCK);

  /* Write the request and read the reply together: an approver may answer
   * before reading all of stdin, and neither side may block the other. */
  while (out[0] >= 0) {
    struct pollfd p[2] = { { .fd = out[0], .events = POLLIN }, { .fd = -1 } };
    int wait = cs_exec_remaining(deadline);
    if (in[0] >= 0 && sent < len)
      p[1] = (struct pollfd){ .fd = in[0], .events = POLLOUT };
    if (wait == 0) {
      timed_out = true;
      break;
    }
    int n = poll(p, 2, wait);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      r = -errno;
      break;
    }
    if (p[1].revents) {
      ssize_t w = send(in[0], json + sent, len - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (w > 0)
        sent += (size_t)w;
      if (w < 0 && errno != EAGAIN && errno != EINTR)
        sent = len; /* it closed stdin: it may still answer */
      if (sent == len) {
        shutdown(in[0], SHUT_WR); /* EOF for `read` loops and jq */
      }
    }
    if (p[0].revents) {
      ssize_t rd = read(out[0], reply + got, CS_APPROVAL_MAX_REPLY + 1 - got);
      if (rd < 0 && errno == EINTR)
        continue;
      if (rd <= 0) {
        close(out[0]);
        out[0] = -1;
        break;
      }
      got += (size_t)rd;
      if (got > CS_APPROVAL_MAX_REPLY) {
        snprintf(d->reason, sizeof d->reason, "reply longer than %u bytes", CS_APPROVAL_MAX_REPLY);
        kill(-pid, SIGKILL);
        r = -EMSGSIZE;
        break;
      }
    }
  }
  reply[got > CS_APPROVAL_MAX_REPLY ? CS_APPROVAL_MAX_REPLY : got] = '\0';
  if (cs_exec_reap(pid, timed_out ? 0 : deadline, &status, &killed) != 0)
    killed = true;
  pid = -1;
  if (timed_out || (killed && r != -EMSGSIZE)) {
    r = -ETIMEDOUT;
    snprintf(d->reason, sizeof d->reason, "approver timed out after %u ms (killed)", timeout_ms);
    goto cleanup;
  }
  if (r == -EMSGSIZE)
    goto cleanup;
  if (WIFSIGNALED(status)) {
    r = -ECHILD;
    snprintf(d->reason, sizeof d->reason, "approver died by signal %d", WTERMSIG(status));
    goto cleanup;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    r = -ECHILD;
    snprintf(d->reason, sizeof d->reason, "approver exited with status %d%s", WEXITSTATUS(status),
             WEXITSTATUS(status) == 127 ? " (not executable?)" : "");
    goto cleanup;
  }
  if (got == 0) {
    r = -EPROTO;
    snprintf(d->reason, sizeof d->reason, "approver gave no reply");
    goto cleanup;
  }
  r = cs_approval_reply_parse(reply, 0, d);
cleanup:
  if (pid > 0) {
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
      ;
  }
  for (int i = 0; i < 2; i++) {
    if (in[i] >= 0)
      close(in[i]);
    if (out[i] >= 0)
      close(out[i]);
  }
  free(json);
  free(reply);
  if (r != 0)
    d->allow = false;
  return r;
}

static void cs_exec_destroy(void *ctx)
{
  struct cs_exec_approver *a = ctx;
  if (a)
    free(a->program);
  free(a);
}

int cs_approver_exec(const char *program, struct cs_approver *out)
{
  struct cs_exec_approver *a;

  if (!program || !program[0] || !out)
    return -EINVAL;
  memset(out, 0, sizeof *out);
  a = calloc(1, sizeof *a);
  if (!a || !(a->program = strdup(program))) {
    free(a);
    return -ENOMEM;
  }
  out->kind = "exec";
  out->decide = cs_exec_decide;
  out->destroy = cs_exec_destroy;
  out->ctx = a;
  return 0;
}
