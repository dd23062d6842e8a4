/* sbx_approval_hooks: the approvals' system-call layer as confinement's
 * hooks (sbx_approval_hooks.h; runtime/confine/sbx_hooks.h): the command's
 * hand-off of its notify listener, and the supervisor's side that serves
 * it (sbx_unotify_sbx.c) and names its helpers. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sbx_diag.h"
#include "sbx_approval_hooks.h"
#include "sbx_made.h"
#include "sbx_unotify_sbx.h"

/* The run's server, zeroed: sbx_unotify_start fills it when the listener
 * comes; closed by sbx_approvals_close whether or not it did. */
static void *sbx_approvals_open(void)
{
  return calloc(1, sizeof(struct sbx_unotify_srv));
}

static int sbx_approvals_handoff(int ctl, const struct sbx_unotify_cfg *cfg, struct sbx_fail *f)
{
  return sbx_unotify_handoff(ctl, cfg->ops, f);
}

static void sbx_approvals_close(void *state)
{
  sbx_unotify_stop(state);
  free(state);
}

/* The moment the run starts, for `delete` (what the run created is free
 * to remove: sbx_unotify_op.c, docs/approvals.md). Taken here because the
 * command cannot have done anything yet: its process waits at the hand-off
 * barrier until the listener taken below is served. A file that existed
 * before has a birth time at or below the real time it was made, hence
 * below this reading; the kernel stamps new inodes from its coarse clock,
 * which lags the real one by up to a tick, so we wait until that clock has
 * passed the reading (at most one tick): every inode made after that is
 * born strictly after it. Should the wait not end (a stepped clock), new
 * files merely look old and are asked about: closed. */
static void sbx_mark_run_start(struct sbx_unotify_cfg *cfg)
{
  const char *off = getenv(SBX_DELETE_TEST_AS_BEFORE_ENV);

  cfg->run_start_set = false;
  if (off && strcmp(off, "1") == 0) {
    fprintf(sbx_diag(),
            "sbx: warning: %s=1: every deletion and replacing rename is asked about, "
            "as before issue 13 (test only)\n",
            SBX_DELETE_TEST_AS_BEFORE_ENV);
    return;
  }
  off = getenv(SBX_DELETE_TEST_NO_LOCK_ENV);
  if (off && strcmp(off, "1") == 0)
    fprintf(sbx_diag(),
            "sbx: warning: %s=1: a removal's check and act are NOT under the "
            "directory's lock (test only)\n",
            SBX_DELETE_TEST_NO_LOCK_ENV);
  if (clock_gettime(CLOCK_REALTIME, &cfg->run_start) != 0)
    return;
  sbx_made_wait_coarse_past(&cfg->run_start);
  cfg->run_start_set = true;
  /* The span this run adds to the record of what runs made (sbx_made.h),
   * written by sbx after the run. */
  if (cfg->made) {
    cfg->made->run_from = cfg->run_start;
    cfg->made->run_from_set = true;
  }
}

/* The cold path's system-call layer: takes the notify listener from the
 * process that announced it (pidfd_getfd, sbx_unotify.h) and serves it. */
static void sbx_take_listener(struct sbx_sup *s, pid_t from, const struct sbx_run_request *req)
{
  struct sbx_unotify_srv *srv = s->approvals;
  int fd = sbx_unotify_pull(from);
  if (fd < 0) {
    /* The sender waits at the barrier for a supervisor that will never
     * come: end it now (the run fails, closed) rather than at its
     * timeout. */
    fprintf(sbx_diag(), "sbx: approval: cannot take the notify listener from the sandbox: %s\n",
            strerror(-fd));
    (void)kill(from, SIGKILL);
    return;
  }
  (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
  /* Without a server the sandbox's notified calls fail (ENOSYS): closed,
   * never open. */
  struct sbx_unotify_cfg cfg;
  if (req->unotify) {
    /* The helpers' work is the run's: created in its cgroup. */
    cfg = *req->unotify;
    cfg.helper_cgroup = s->cgroup_dir;
    if (cfg.ops & CS_APPROVE_FILE_DELETE)
      sbx_mark_run_start(&cfg);
  }
  if (!req->unotify || !srv || srv->running || sbx_unotify_start(srv, fd, &cfg, s->plan) != 0) {
    if (!req->unotify || !srv || srv->running)
      close(fd);
    fprintf(sbx_diag(), "sbx: approval: system-call layer not served; those calls fail\n");
  }
}

/* The approvals' helpers of this run (sbx_unotify_sbx.h). */
static size_t sbx_helper_pids(struct sbx_sup *s, pid_t *out, size_t max)
{
  return s->approvals ? sbx_unotify_helpers(s->approvals, out, max) : 0;
}

const struct sbx_approval_hooks sbx_approvals_unotify = {
  .handoff = sbx_approvals_handoff,
  .open = sbx_approvals_open,
  .serve_listener = sbx_take_listener,
  .helper_pids = sbx_helper_pids,
  .close = sbx_approvals_close,
};
