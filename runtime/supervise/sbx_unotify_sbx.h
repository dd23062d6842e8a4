/* sbx_unotify_sbx: the system-call approval layer inside
 * sbx_confine_run (runtime/confine calls these three through its approval
 * hooks, runtime/supervise/sbx_approval_hooks.c).
 *
 *   command process, after no_new_privs and before the profile's filter:
 *     sbx_unotify_handoff() loads the notify filter, tells the supervisor
 *     over the control socket (one byte 'L', written: the filter stops
 *     sendmsg), waits at the barrier until the supervisor has taken the
 *     listener with pidfd_getfd, then closes its own copy: nothing in the
 *     sandbox holds a listener;
 *   supervisor, on receiving it: sbx_unotify_start() serves it in a thread;
 *   supervisor, when the sandbox is gone: sbx_unotify_stop().
 *
 * Why a second filter rather than notify rules in the profile's: the
 * profile's filter is generated and shared by runs with and without an
 * approver, and the kernel allows one listener per filter; a second
 * filter is loaded only when this run has approvals to ask. The kernel
 * runs both and takes the strictest action (KILL > TRAP > ERRNO >
 * USER_NOTIF > TRACE > LOG > ALLOW), so a call the profile refuses is
 * refused before anyone is asked, and approval can never widen the
 * profile. */
#ifndef CS_RUNTIME_SBX_UNOTIFY_SBX_H
#define CS_RUNTIME_SBX_UNOTIFY_SBX_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/socket.h>

#include "sbx_fail.h"
#include "sbx_landlock.h"
#include "sbx_plan.h"
#include "sbx_unotify.h"

/* Helpers remembered per run; a run with more has its first ones named. */
#define SBX_UNOTIFY_HELPERS_MAX 64

struct sbx_unotify_srv {
  pthread_t thread;
  bool running;
  int listener;
  int stop[2];
  struct sbx_unotify_cfg cfg;
  const struct sbx_plan *plan;
  struct sbx_unotify_gitfile *git; /* owned; cfg.git points here */
  size_t n_git;
  /* The persistent home's mount points (cfg.kept_dirs points here; the
   * strings are the plan's). More than this many: the rest are asked
   * about, as any other place. */
  const char *kept[16];
  size_t n_kept;
  /* The helpers forked for this run (cfg.helper_started), for naming the
   * refusals in their Landlock domains; under lock (the serving thread
   * adds, the supervisor reads after the run). */
  pthread_mutex_t lock;
  pid_t helpers[SBX_UNOTIFY_HELPERS_MAX];
  size_t n_helpers;
};

int sbx_unotify_handoff(int ctl, uint32_t ops, struct sbx_fail *f);
/* Takes ownership of listener (closed on failure). */
int sbx_unotify_start(struct sbx_unotify_srv *s, int listener, const struct sbx_unotify_cfg *cfg,
                      const struct sbx_plan *plan);
void sbx_unotify_stop(struct sbx_unotify_srv *s);
/* Copies up to max helper pids of the run to out; returns how many. */
size_t sbx_unotify_helpers(struct sbx_unotify_srv *s, pid_t *out, size_t max);

#endif
