/* sbx_run_start: what every run starts with, cold (sbx_confine.c) or warm
 * (runtime/warm/sbx_warm.c): the request's check and deadline, and the
 * process plumbing the supervisor side shares (SIGCHLD defaulted,
 * descriptors kept above stdio, the monotonic clock). libc only: the
 * static front end runs warm runs with it. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sbx_fail.h"
#include "sbx_sandbox.h"

int sbx_confine_begin(const struct sbx_run_request *req, struct sbx_run_result *res, uint64_t *tmax)
{
  struct sbx_fail f;
  memset(res, 0, sizeof *res);
  res->denied_syscall = -1;
  if (!req || !req->profile || !req->workspace || !req->argv || !req->argv[0] || !req->argv[0][0]) {
    sbx_fail_set(&f, SBX_LAYER_REQUEST, EINVAL,
                 "a profile, a workspace and a non-empty argv are required");
    sbx_result_from_fail(res, &f);
    return -EINVAL;
  }
  *tmax = req->profile->limits.max_execution_ms;
  /* A request can only lower the profile's limit. */
  if (req->timeout_ms && (*tmax == 0 || req->timeout_ms < *tmax))
    *tmax = req->timeout_ms;
  res->timeout_ms = *tmax;
  return 0;
}

bool sbx_sigchld_default(struct sigaction *saved)
{
  struct sigaction dfl;
  if (sigaction(SIGCHLD, NULL, saved) < 0 || saved->sa_handler != SIG_IGN)
    return false;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  return sigaction(SIGCHLD, &dfl, NULL) == 0;
}

uint64_t sbx_now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Moves fd above 0..2 (close-on-exec). If the caller had closed its stdio,
 * a control descriptor could otherwise land on 0..2, which the command
 * keeps: it could then forge the supervisor's messages. */
int sbx_above_stdio(int fd)
{
  int n;
  if (fd < 0 || fd > 2)
    return fd;
  n = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  close(fd);
  return n;
}
