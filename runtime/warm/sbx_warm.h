/* sbx_warm: the wire format between `sbx run` (client, sbx_warm.c) and
 * `sbx serve` (server, sbx_serve.c). Not installed; docs/sbx.md ("Warm
 * start") describes the protocol, docs/threat-model.md the server.
 *
 * One SOCK_SEQPACKET connection per run, on a socket in the per-user state
 * directory (mode 0700, masked in every sandbox's view); each side checks
 * the other's uid (SO_PEERCRED), and the server also that the client holds
 * CAP_SYS_ADMIN in the server's namespaces and root (sbx_serve_peer_ok):
 *   client -> server  REQUEST: struct sbx_warm_req, then NUL-terminated
 *                     strings (profile name, workspace, HOME, argv...,
 *                     env...), with SCM_RIGHTS: stdin, stdout, stderr, the
 *                     control socket, the sync pipe, [the cgroup tasks file]
 *   server -> client  STARTED (init's and the pre-forked command's host
 *                     pids; SCM_RIGHTS: init's pidfd) or
 *                     REFUSED (note says why: the client then runs cold)
 *   server -> client  DONE (init's wait status) once the server reaped it.
 * The client's end of the connection closing (a killed `sbx run`) makes
 * the server kill the run's pid 1, hence its whole pid namespace. */
#ifndef CS_RUNTIME_SBX_WARM_H
#define CS_RUNTIME_SBX_WARM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sbx_hooks.h"

#define SBX_WARM_MAGIC 0x77786273u /* "sbxw" */
/* 2: the pre-forked command's two-byte go; 3: also the caller's process
 * settings. A client and server of different versions do not talk: the
 * run goes cold. */
#define SBX_WARM_VERSION 4u
/* Resource limits sent (RLIM_NLIMITS is 16 on Linux; checked in sbx_warm.c). */
#define SBX_WARM_RLIMITS 16
/* Larger requests (huge argv or environment) run cold. */
#define SBX_WARM_MAX_REQ (96u * 1024u)
/* stdin, stdout, stderr, control socket, sync pipe, cgroup tasks file. */
#define SBX_WARM_FDS 6
#define SBX_WARM_SOCKET_NAME "serve.sock"
/* Set by the static front end, for the full sbx it hands a run to, when
 * the server declined that run: its reason (the start-up note); the full
 * sbx then runs cold without asking again. Setting it by hand only
 * forgoes the warm start. */
#define SBX_WARM_DECLINED_ENV "SBX_WARM_DECLINED"

struct sbx_warm_req {
  uint32_t magic;
  uint32_t version;
  uint64_t profile_fp; /* sbx_profile_fingerprint of the client's profile */
  uint64_t ws_dev, ws_ino;
  uint32_t uid, gid; /* the client's effective ids */
  uint32_t flags;    /* enum sbx_run_flags */
  uint32_t n_argv, n_env;
  uint32_t n_fds; /* 5, or 6 with the cgroup tasks file */
  /* What a cold run inherits from sbx run and the warm run's pid 1 (a
   * child of the server) gets from here instead: warm == cold. */
  uint32_t umask;
  int32_t nice;
  int32_t oom_score_adj;
  uint32_t reserved;
  uint64_t rlim[SBX_WARM_RLIMITS][2]; /* every resource: soft, hard */
  uint64_t cpus[16];                  /* CPU affinity: cpu_set_t (1,024 CPUs) */
};

enum sbx_warm_kind {
  SBX_WARM_STARTED = 1,
  SBX_WARM_REFUSED = 2,
  SBX_WARM_DONE = 3,
  /* Sent before a template is built or rebuilt (no descriptor, no pid):
   * the server is alive and working, the client waits longer for the
   * STARTED or REFUSED that follows (sbx_warm.c). */
  SBX_WARM_BUILDING = 4,
};

struct sbx_warm_reply {
  uint32_t magic;
  int32_t kind;     /* enum sbx_warm_kind */
  int32_t init_pid; /* STARTED: host pid of the run's pid 1 */
  int32_t cmd_pid;  /* STARTED: host pid of its pre-forked command, or <= 0 */
  int32_t status;   /* DONE: its wait status */
  char note[128];   /* REFUSED: why */
};

struct cs_profile;
struct msghdr;

/* Warm client (sbx_warm.c), confinement's warm_run hook
 * (runtime/confine/sbx_hooks.h). SBX_WARM_DECLINED: nothing was started
 * and *res is reset (with res->start_note saying why): run cold.
 * Otherwise the run happened (or failed after the server started it) and
 * the return is sbx_confine_run's. */
int sbx_warm_run(const struct sbx_run_request *req, uint64_t tmax, struct sbx_run_result *res);
/* sbx_confine_run without its cold path, for the static front end
 * (sbx_front.c): the run started from req->warm_socket, or
 * SBX_WARM_DECLINED when the server did not start it (nothing ran; the
 * front end then hands the run to the full executable). */
int sbx_warm_confine(const struct sbx_run_request *req, struct sbx_run_result *res);
/* Root with CAP_SYS_ADMIN in its effective set: what a warm start needs. */
bool sbx_warm_caller_ok(void);
/* Waits for the server's report of pid 1's wait status (0, or -EIO). */
int sbx_warm_wait_done(int server, int init_pidfd, int *status);
/* Waits (bounded) until the process of a pidfd has exited: 0 or -ETIMEDOUT. */
int sbx_warm_wait_gone(int pidfd);

/* Attaches n descriptors (SCM_RIGHTS) to *mh, using cbuf (at least
 * CMSG_SPACE(n * sizeof(int)) bytes, aligned for struct cmsghdr). */
void sbx_msg_put_fds(struct msghdr *mh, void *cbuf, const int *fds, int n);

/* The pid a pidfd refers to (its /proc fdinfo), or -1. */
pid_t sbx_pidfd_pid(int pidfd);

/* FNV-1a over everything of a profile that shapes a run (paths, flags,
 * limits, the filter): client and server must hold the same profile. */
uint64_t sbx_profile_fingerprint(const struct cs_profile *p);

/* `sbx serve`. */
struct sbx_serve_opts {
  const char *socket_path;
  const struct cs_profile *profiles;
  size_t n_profiles;
  uint64_t idle_ms;  /* exit after this long without a connection; 0 never */
  int max_templates; /* 0: 16 */
  bool verbose;      /* one line per request on stderr */
};
/* Serves until idle or SIGTERM/SIGINT; returns 0 or a negative errno
 * after a message on stderr. */
int sbx_serve(const struct sbx_serve_opts *o);

#endif
