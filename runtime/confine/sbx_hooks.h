/* sbx_hooks: what confinement reaches only through its caller (grep tag:
 * SBX_HOOKS).
 *
 * Confinement (runtime/confine) is the lowest layer of a run. The
 * supervisor that waits for a run (runtime/supervise), the warm start
 * (runtime/warm), the approvals' system-call layer (runtime/supervise)
 * and the kernel's audit records (runtime/audit) all sit above it and use
 * it; where a cold run needs them, sbx_confine_run calls them through the
 * function pointers of struct sbx_confine_hooks, which the caller passes
 * in (struct sbx_run_request.hooks; the complete set is sbx_run_hooks,
 * runtime/warm/sbx_run_hooks.h). No file of confinement calls up, and a
 * request without a supervisor hook is refused (request layer): never a
 * run with a part missing. */
#ifndef CS_RUNTIME_SBX_HOOKS_H
#define CS_RUNTIME_SBX_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sbx_fail;
struct sbx_plan;
struct sbx_run_request;
struct sbx_run_result;
struct sbx_unotify_cfg;

/* The supervisor's side of one run, cold (sbx_confine.c) or warm
 * (runtime/warm/sbx_warm.c), handed to the supervise hook. */
struct sbx_sup {
  int ctl;        /* our end of the control socket (SO_PASSCRED) */
  pid_t init;     /* host pid of pid 1 */
  int init_pidfd; /* warm: pidfd of pid 1 (not our child); -1 cold */
  int server;     /* warm: connection to `sbx serve` (reports init's status); -1 cold */
  uint64_t t0, tmax;
  const struct sbx_plan *plan; /* cold; NULL warm */
  /* Cold with approvals: the state serving this run's system-call layer
   * (struct sbx_approval_hooks.open); NULL otherwise. */
  void *approvals;
  /* Cold: takes the approvals' notify listener from the process `from`
   * that announced it ('L') and serves it. A hook, so that the supervisor
   * links no libseccomp (the static front end uses it too); NULL (warm):
   * no system-call layer in this run, the announcing process is killed. */
  void (*serve_listener)(struct sbx_sup *s, pid_t from, const struct sbx_run_request *req);
  /* Cold with approvals: the pids of the helpers that acted for the
   * command (up to max, into out), whose Landlock refusals are the run's
   * too. NULL: none. */
  size_t (*helper_pids)(struct sbx_sup *s, pid_t *out, size_t max);
  /* Cold: the run's cgroup directory, where the approvals' helpers are
   * created (runtime/supervise/sbx_unotify_charge.c); NULL when the run
   * has none. */
  const char *cgroup_dir;
  /* Warm: pid 1 is the server's child, so the supervisor cannot waitpid
   * it. wait_gone: until the process of the pidfd has exited (0, or
   * -ETIMEDOUT); wait_done: the server's report of its wait status (0, or
   * -EIO). Set by the warm client (runtime/warm); with either NULL a warm
   * run's end is unknown: everything is killed and the run fails. */
  int (*wait_gone)(int pidfd);
  int (*wait_done)(int server, int init_pidfd, int *status);
  /* Out: a layer reported failing (SBX_MSG_FAIL) and the command never
   * said READY, exec-failed or exited: nothing of it was executed. */
  bool fail_before_ready;
};

/* The approvals' system-call layer (docs/approvals.md), for a request
 * with req->unotify. */
struct sbx_approval_hooks {
  /* In the command, after no_new_privs and before the profile's filter:
   * loads the notify filter for cfg (req->unotify, opaque here) and hands
   * its listener to the supervisor over ctl. 0, or a negative errno with
   * *f filled. */
  int (*handoff)(int ctl, const struct sbx_unotify_cfg *cfg, struct sbx_fail *f);
  /* In the supervisor, before the clone: the state that serves this run
   * (struct sbx_sup.approvals); NULL when out of memory. */
  void *(*open)(void);
  /* struct sbx_sup.serve_listener and .helper_pids (above). */
  void (*serve_listener)(struct sbx_sup *s, pid_t from, const struct sbx_run_request *req);
  size_t (*helper_pids)(struct sbx_sup *s, pid_t *out, size_t max);
  /* Once the sandbox is gone: stops serving and frees the state. */
  void (*close)(void *state);
};

/* The network proxy of a proxied profile (docs/network-proxy.md), for a
 * request with req->proxy. */
struct sbx_proxy_hooks {
  /* In the supervisor, when pid 1 handed over the listeners it made in
   * the run's network namespace (owned from now on, closed on failure):
   * starts serving them for req (req->proxy, opaque here). The state, or
   * NULL with *f filled: the run is then stopped before the command. */
  void *(*start)(const struct sbx_run_request *req, int http_fd, int socks_fd, struct sbx_fail *f);
  /* Once the sandbox is gone: closes every connection (each recorded)
   * and frees the state. */
  void (*stop)(void *state);
};

/* warm_run's answer when the server did not start the run: nothing was
 * started and *res is reset (res->start_note says why): run cold. */
#define SBX_WARM_DECLINED 1

struct sbx_confine_hooks {
  /* Required: waits for the run's messages and end (or its deadline:
   * kills pid 1), fills *res; 0 when the command ran, a negative errno
   * otherwise (runtime/supervise, sbx_supervise). */
  int (*supervise)(struct sbx_sup *s, const struct sbx_run_request *req, struct sbx_run_result *res,
                   int kmsg);
  /* A descriptor reading the kernel's audit records from now on, or
   * negative (runtime/audit, sbx_kmsg_open). NULL: refusals of the run
   * are not named. */
  int (*kmsg_open)(void);
  /* The run started from a warm-start server (req->warm_socket):
   * SBX_WARM_DECLINED, or the return of a run that happened
   * (runtime/warm, sbx_warm_run). NULL: every run is cold. */
  int (*warm_run)(const struct sbx_run_request *req, uint64_t tmax, struct sbx_run_result *res);
  /* NULL: a request with req->unotify is refused. */
  const struct sbx_approval_hooks *approvals;
  /* NULL: a request for a proxied profile is refused. */
  const struct sbx_proxy_hooks *proxy;
};

#endif
