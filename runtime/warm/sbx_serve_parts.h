/* sbx_serve_parts: what the files of `sbx serve` share (sbx_serve.c the
 * server loop, sbx_serve_wire.c the requests and replies on the wire,
 * sbx_serve_tmpl.c the template cache, sbx_serve_spare.c the spares,
 * sbx_serve_peer.c who may connect). Not used outside them: the server's
 * API is sbx_serve() in sbx_warm.h. */
#ifndef CS_RUNTIME_SBX_SERVE_PARTS_H
#define CS_RUNTIME_SBX_SERVE_PARTS_H

#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sbx_confine.h"
#include "sbx_plan.h"
#include "sbx_warm.h"
#include "sbx_watch.h"

#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

#define SBX_SO_PEERPIDFD 77 /* SO_PEERPIDFD, Linux 6.5 */

#define SBX_SERVE_MAX_CONNS 64
#define SBX_SERVE_MAX_TEMPLATES 64
#define SBX_SERVE_BUILD_MS 10000
/* After a failed arming (a watched directory changed meanwhile), the
 * next try waits this long: a busy directory costs one extra walk of the
 * paths a second, not one per run. */
#define SBX_SERVE_ARM_MS 1000
/* Spares kept ready per template. Two: a run's successor is made after its
 * go (sbx_serve_next_spare), off the time the run needs both CPUs of a
 * small machine; a request arriving back to back before that one is ready
 * then still finds the other. */
#define SBX_SERVE_SPARES 2
/* The server's poll set, by what each entry is (who[]): -1 the listening
 * socket, then per connection its socket, pid 1's pidfd, the wait for its
 * go, then the spares' pidfds. */
#define SBX_SERVE_WHO_PIDFD SBX_SERVE_MAX_CONNS
#define SBX_SERVE_WHO_GO (2 * SBX_SERVE_MAX_CONNS)
#define SBX_SERVE_WHO_SPARE (3 * SBX_SERVE_MAX_CONNS)
#define SBX_SERVE_WHO_END (1 + SBX_SERVE_WHO_SPARE + SBX_SERVE_MAX_TEMPLATES * SBX_SERVE_SPARES)
/* A spare not prepared in this time is dropped (one fresh try). */
#define SBX_SERVE_SPARE_MS 5000
/* How long an accepted connection may stay without its request: sbx run
 * sends it right after connecting (a cgroup made in between). */
#define SBX_SERVE_REQUEST_MS 5000

/* A prepared pid 1 of a future run (sbx_spare_main): its pid (0: none),
 * pidfd, our end of its socket, and its pre-forked command's host pid once
 * it said it is ready (sbx_spare_ready; -1: its preparation failed, 0: not
 * heard yet); made: when (sbx_srv.spares_made), the oldest is taken first. */
struct sbx_spare {
  pid_t pid;
  int pidfd, sock;
  pid_t cmd;
  uint64_t made;
};

struct sbx_tmpl {
  bool used;
  const struct cs_profile *profile;
  char ws[PATH_MAX];
  dev_t ws_dev;
  ino_t ws_ino;
  char home[PATH_MAX];
  uint32_t uid, gid, flags;
  struct sbx_plan plan;
  int mntns;
  /* No-shell profiles: the shared Landlock layer (SBX_LL_SHARED, with the
   * ~1,000 per-file grants), built once in the template's view; -1 else. */
  int ll_shared;
  uint64_t last_used;
  /* The prepared pid 1s of the next runs (SBX_SERVE_SPARES). */
  struct sbx_spare spares[SBX_SERVE_SPARES];
  /* The watch epoch that vouches for the plan's facts (sbx_tmpl_fresh);
   * 0: none, the full check runs. */
  uint64_t watch_epoch;
  /* Arming is next tried at (sbx_now_ms); UINT64_MAX: never (the plan
   * cannot be watched). */
  uint64_t arm_after;
  /* Which build of this slot (sbx_srv.builds): a run remembers it to make
   * the next spare of the same template only (sbx_serve_next_spare). */
  uint64_t build;
};

struct sbx_conn {
  int fd;     /* -1: free slot (unless a run is still to be reaped) */
  pid_t init; /* > 0 while a run's pid 1 is not reaped */
  pid_t cmd;  /* its pre-forked command's host pid, or <= 0 */
  int pidfd;
  /* Our end of its spare's socket, kept until pid 1 is reaped: closing it
   * with the command's unread "ready" in it would make pid 1's read of
   * the request fail (ECONNRESET). */
  int spare_sock;
  /* The run's mount namespace (the spare's private copy of the view),
   * held until pid 1 is reaped: its teardown (unmounting the view, the
   * run's /tmp, /dev/shm, /proc) then happens here, after the run, not in
   * pid 1's exit, which the client waits for. -1: none. */
  int mntns;
  /* The run's template (slot and build; next_slot -1: none), which gets
   * a new spare at the run's go and at its end (sbx_serve_next_spare).
   * go_pending: the go is still to come; pid 1 closes its end of
   * spare_sock once it has it, which this side sees as a hang-up. */
  int next_slot;
  uint64_t next_build;
  bool go_pending;
  uint64_t since; /* accepted at (sbx_now_ms) */
};

#define SBX_PEER_NS 5

struct sbx_srv {
  const struct sbx_serve_opts *o;
  struct {
    dev_t dev;
    ino_t ino;
  } self_ns[SBX_PEER_NS]; /* sbx_serve_self_ns */
  struct sbx_features feat;
  int listen_fd, mountinfo_fd, lock_fd;
  struct sbx_watch watch; /* the templates' directories (sbx_watch.c) */
  uint64_t builds;        /* templates built so far (sbx_tmpl.build) */
  uint64_t spares_made;   /* spares made so far (sbx_spare.made) */
  struct sbx_tmpl *tmpl;
  int n_tmpl;
  struct sbx_conn conns[SBX_SERVE_MAX_CONNS];
  char *buf;
  /* Our scheduling policy: a spare prepares under SCHED_IDLE (it then
   * takes only CPU time nothing else wants, not the running command's) and
   * gets this back when a request takes it (sbx_sched_restore). */
  int policy;
  struct sched_param param;
};

/* The key a request builds its template for (pointers into the request). */
struct sbx_key {
  const struct cs_profile *profile;
  const char *ws, *home;
  dev_t ws_dev;
  ino_t ws_ino;
  /* The workspace's owner now: the command's identity when the server is
   * root (sbx_plan_identity.c); a template planned for another owner is
   * not this run's. */
  uid_t ws_uid;
  gid_t ws_gid;
  uint32_t uid, gid, flags;
};

/* sbx_serve.c: one line on stderr when the server is verbose. */
void sbx_serve_log(const struct sbx_srv *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* sbx_serve_wire.c */
void sbx_send_reply(int fd, enum sbx_warm_kind kind, pid_t pid, pid_t cmd, int status, int pass_fd,
                    const char *note);
/* Checks a request's header and splits its strings (pointers into buf,
 * the arrays malloc'd). 0 or -EPROTO. */
int sbx_warm_parse(char *buf, size_t n, int n_fds, struct sbx_warm_req *hdr, char ***head,
                   char ***argv, char ***envp);
/* Receives one message with up to SBX_WARM_FDS descriptors into buf. */
ssize_t sbx_warm_recv(int sock, char *buf, size_t size, int *fds, int *n_fds, bool *trunc);

/* sbx_serve_tmpl.c */
/* A template slot as unused: no descriptors, no spares. */
void sbx_tmpl_clear(struct sbx_tmpl *t);
void sbx_tmpl_drop(struct sbx_tmpl *t);
bool sbx_key_eq(const struct sbx_tmpl *t, const struct sbx_key *k);
/* Builds the template of key k into a free (or the least recently used)
 * slot. 0, or a negative errno with `why` set. */
int sbx_tmpl_build(struct sbx_srv *s, const struct sbx_key *k, char *why, size_t why_len);
/* Has the mount table changed since the last call? (The kernel flags the
 * open mountinfo file with POLLPRI; reading it re-arms.) Unknown: yes. */
bool sbx_mounts_changed(struct sbx_srv *s);
/* Does template t still hold what a fresh plan would? With an armed
 * watch whose epoch has not moved, only the probes it does not vouch for
 * are checked (a file's content); otherwise every probe, and the watch is
 * armed when that passes: the epoch read before the directories were
 * watched must still be the epoch after (docs/sbx.md "Staleness"). *how
 * says which check ran. */
bool sbx_tmpl_fresh(struct sbx_srv *s, struct sbx_tmpl *t, char *why, size_t why_len,
                    const char **how);

/* sbx_serve_spare.c */
void sbx_spare_clear(struct sbx_spare *sp);
void sbx_spare_drop(struct sbx_spare *sp);
/* In a freshly cloned child: closes every descriptor above 2 except the
 * n of keep[] (sorted in place; negative entries ignored), so a spare or a
 * template builder holds nothing of the server, other templates or other
 * runs (a run's control socket held elsewhere would keep its supervisor
 * waiting). */
void sbx_close_except(int *keep, size_t n);
/* Clones a spare of template t into its free place *slot. */
int sbx_spare_make(struct sbx_srv *s, struct sbx_tmpl *t, struct sbx_spare *slot);
/* A free place for a spare of t, or NULL when t keeps enough. */
struct sbx_spare *sbx_spare_free(struct sbx_tmpl *t);
/* Hands the request in s->buf (n bytes, with fds) to t's spare, which
 * becomes the run's pid 1 (c->init, c->pidfd). */
int sbx_spare_take(struct sbx_srv *s, struct sbx_tmpl *t, struct sbx_conn *c, size_t n,
                   const int *fds, int n_fds);

/* sbx_serve_peer.c */
/* Our own namespaces and root, read once: the server never changes them
 * (only its children join others), and every request compares them. */
int sbx_serve_self_ns(struct sbx_srv *s);
/* Is the client on fd entitled to what a cold run of its own would do?
 * The uid alone is not enough: a command inside a (permissive) sandbox
 * runs as uid 0 too, without capabilities, in other namespaces, and can
 * reach the socket when its view shows the state directory; served, it
 * would get a run outside its own sandbox (no deadline, cgroup or pid
 * namespace of the outer run). So the peer must hold CAP_SYS_ADMIN (what
 * `sbx run --cold` needs as root) and share our mount, pid, network and
 * user namespaces and our root directory. The peer is pinned by a pidfd
 * (SO_PEERPIDFD, else pidfd_open of SO_PEERCRED's pid) that must still
 * be running after the checks: a pid reused meanwhile is refused. */
bool sbx_serve_peer_ok(const struct sbx_srv *s, int fd, char *why, size_t why_len);

#endif
