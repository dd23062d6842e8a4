/* sbx_serve: `sbx serve`, the per-user warm-start server (protocol:
 * sbx_warm.h; docs/sbx.md "Warm start"; docs/threat-model.md "sbx serve").
 *
 * A template holds the run-independent work of one key (profile, resolved
 * workspace and its dev/ino, HOME, uid/gid, the git-config grant): the plan
 * (with the facts it was computed from), a mount namespace holding the
 * finished view (pivoted; /proc, /tmp, /dev/shm left as mount points) and,
 * for no-shell profiles, the shared Landlock layer (SBX_LL_SHARED: the
 * ~1,000 per-file EXECUTE grants, built once; enum sbx_ll_part).
 *
 * Each template keeps two spares (SBX_SERVE_SPARES), each pid 1 of a
 * future run, cloned ahead of the request into new pid, ipc, uts, cgroup
 * (and, when the profile blocks the network, net) namespaces; each has
 * joined a private copy of the
 * template's mount namespace, mounted its own /tmp, /dev/shm and /proc and
 * built the run's Landlock ruleset there (SBX_LL_RUN, or SBX_LL_ALL without
 * a shared layer; the cold path's code: its rules name this run's own
 * /tmp, /proc, /dev/shm, which is why that part is never shared). A request
 * hands the spare the client's argv, environment and descriptors; it then
 * runs the cold path's tail (sbx_init_run, sbx_confine.c): cgroup, session,
 * descriptors, rlimits, no_new_privs, Landlock (the run's layer, then the
 * shared one), capabilities, seccomp, execve. The client supervises the run
 * exactly like a cold one.
 *
 * Before a template is used its facts are checked (sbx_plan_fresh, or
 * vouched for by the watch: sbx_watch.c) and the
 * mount table must not have changed since it was built; otherwise it is
 * dropped and built anew from a fresh plan before the run (a failed build
 * sends the client to the cold path). Errors:
 * negative errno values (-EPERM not root / wrong state directory,
 * -EADDRINUSE a server already answers, or what a system call said). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sbx_cgroup.h"
#include "sbx_fail.h"
#include "sbx_landlock.h"
#include "sbx_mount.h"
#include "sbx_plan.h"
#include "sbx_privs.h"
#include "sbx_sandbox.h"
#include "sbx_watch.h"
#include "sbx_unotify.h"
#include "sbx_warm.h"

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
  int fd;    /* -1: free slot (unless a run is still to be reaped) */
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
  uint32_t uid, gid, flags;
};

static volatile sig_atomic_t sbx_serve_stop;

static void sbx_serve_on_signal(int sig)
{
  sbx_serve_stop = sig;
}

static void sbx_serve_log(const struct sbx_srv *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void sbx_serve_log(const struct sbx_srv *s, const char *fmt, ...)
{
  va_list ap;
  if (!s->o->verbose)
    return;
  va_start(ap, fmt);
  fputs("sbx serve: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

/* Gives pid (0: ourselves) the server's scheduling policy back. Failing
 * costs only speed, never a layer. */
static void sbx_sched_restore(const struct sbx_srv *s, pid_t pid)
{
  (void)!sched_setscheduler(pid, s->policy, &s->param);
}

static void sbx_spare_clear(struct sbx_spare *sp)
{
  *sp = (struct sbx_spare){.pidfd = -1, .sock = -1};
}

static void sbx_spare_drop(struct sbx_spare *sp)
{
  if (sp->pid > 0) {
    syscall(SYS_pidfd_send_signal, sp->pidfd, SIGKILL, NULL, 0);
    while (waitpid(sp->pid, NULL, 0) < 0 && errno == EINTR)
      ;
  }
  if (sp->pidfd >= 0)
    close(sp->pidfd);
  if (sp->sock >= 0)
    close(sp->sock);
  sbx_spare_clear(sp);
}

/* A template slot as unused: no descriptors, no spares. */
static void sbx_tmpl_clear(struct sbx_tmpl *t)
{
  memset(t, 0, sizeof *t);
  t->mntns = t->ll_shared = -1;
  for (int k = 0; k < SBX_SERVE_SPARES; k++)
    sbx_spare_clear(&t->spares[k]);
}

static void sbx_tmpl_drop(struct sbx_tmpl *t)
{
  if (!t->used)
    return;
  for (int k = 0; k < SBX_SERVE_SPARES; k++)
    sbx_spare_drop(&t->spares[k]);
  if (t->mntns >= 0)
    close(t->mntns);
  if (t->ll_shared >= 0)
    close(t->ll_shared);
  sbx_plan_free(&t->plan);
  sbx_tmpl_clear(t);
}

static bool sbx_key_eq(const struct sbx_tmpl *t, const struct sbx_key *k)
{
  return t->used && t->profile == k->profile && strcmp(t->ws, k->ws) == 0 &&
         t->ws_dev == k->ws_dev && t->ws_ino == k->ws_ino && strcmp(t->home, k->home) == 0 &&
         t->uid == k->uid && t->gid == k->gid && t->flags == k->flags;
}

static void sbx_send_reply(int fd, enum sbx_warm_kind kind, pid_t pid, pid_t cmd, int status,
                           int pass_fd, const char *note)
{
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(sizeof(int))];
  } cbuf;
  struct sbx_warm_reply r = {.magic = SBX_WARM_MAGIC, .kind = kind, .init_pid = pid,
                             .cmd_pid = cmd, .status = status};
  struct iovec iov = {.iov_base = &r, .iov_len = sizeof r};
  struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
  if (note)
    snprintf(r.note, sizeof r.note, "%s", note);
  if (pass_fd >= 0)
    sbx_msg_put_fds(&mh, cbuf.buf, &pass_fd, 1);
  (void)!sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
}

static int sbx_int_cmp(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* In a freshly cloned child: closes every descriptor above 2 except the
 * n of keep[] (sorted in place; negative entries ignored), so a spare or a
 * template builder holds nothing of the server, other templates or other
 * runs (a run's control socket held elsewhere would keep its supervisor
 * waiting). */
static void sbx_close_except(int *keep, size_t n)
{
  int prev = 2;
  qsort(keep, n, sizeof *keep, sbx_int_cmp);
  for (size_t i = 0; i < n; i++) {
    if (keep[i] <= prev)
      continue;
    if (keep[i] > prev + 1)
      syscall(SYS_close_range, (unsigned)prev + 1, (unsigned)keep[i] - 1, 0u);
    prev = keep[i];
  }
  syscall(SYS_close_range, (unsigned)prev + 1, ~0u, 0u);
}

/* The builder: in its own mount namespace, the template view and (no-shell
 * profiles) the shared Landlock layer; both descriptors go back over
 * `sock` with the verdict. */
static _Noreturn void sbx_tmpl_builder(const struct sbx_plan *plan, bool shared, int sock)
{
  struct sbx_fail f = {0};
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(2 * sizeof(int))];
  } cbuf;
  struct iovec iov = {.iov_base = f.text, .iov_len = sizeof f.text};
  struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
  int fds[2] = {-1, -1};

  sbx_close_except(&sock, 1);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  fds[0] = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
  if (fds[0] < 0) {
    sbx_fail_set(&f, SBX_LAYER_NAMESPACES, errno, "template: /proc/self/ns/mnt: %s",
                 strerror(errno));
    goto fail;
  }
  if (sbx_mount_template(plan, &f) < 0)
    goto fail;
  if (shared && sbx_landlock_ruleset(plan, SBX_LL_SHARED, &fds[1], &f) < 0)
    goto fail;
  sbx_msg_put_fds(&mh, cbuf.buf, fds, shared ? 2 : 1);
  f.text[0] = '\0';
  _exit(sendmsg(sock, &mh, MSG_NOSIGNAL) < 0 ? 1 : 0);
fail:
  (void)!sendmsg(sock, &mh, MSG_NOSIGNAL);
  _exit(1);
}

/* Builds the template of key k into a free (or the least recently used)
 * slot. 0, or a negative errno with `why` set. */
static int sbx_tmpl_build(struct sbx_srv *s, const struct sbx_key *k, char *why, size_t why_len)
{
  char *const dummy_argv[] = {(char *)"true", NULL};
  struct sbx_run_request rq = {.profile = k->profile, .workspace = k->ws, .argv = dummy_argv,
                               .flags = k->flags};
  struct sbx_tmpl *t = NULL;
  char err[512], text[sizeof((struct sbx_fail *)0)->text] = "", sdir[PATH_MAX], *slash;
  struct sbx_fail fail;
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(2 * sizeof(int))];
  } cbuf;
  struct iovec iov = {.iov_base = text, .iov_len = sizeof text};
  struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf.buf,
                      .msg_controllen = sizeof cbuf.buf};
  struct pollfd pfd;
  int sp[2] = {-1, -1}, fds[2] = {-1, -1}, nf = 0, rc, st;
  bool shared = false;
  ssize_t n = -1;
  pid_t pid;

  /* Our own directory is masked in every view, as sbx run masks it. */
  snprintf(sdir, sizeof sdir, "%s", s->o->socket_path);
  if ((slash = strrchr(sdir, '/')) && slash != sdir) {
    *slash = '\0';
    rq.mask_dir = sdir;
  }
  for (int i = 0; i < s->n_tmpl; i++)
    if (!s->tmpl[i].used && !t)
      t = &s->tmpl[i];
  if (!t) {
    t = &s->tmpl[0];
    for (int i = 1; i < s->n_tmpl; i++)
      if (s->tmpl[i].last_used < t->last_used)
        t = &s->tmpl[i];
    sbx_tmpl_drop(t);
  }
  /* The kernel as it is now (a cgroup hierarchy may have come or gone). */
  sbx_probe_for_run(&s->feat);
  if ((rc = sbx_profile_enforceable(k->profile, &s->feat, err, sizeof err)) < 0) {
    snprintf(why, why_len, "%.200s", err);
    return rc;
  }
  if ((rc = sbx_plan_build_warm(&rq, s->feat.landlock_abi, k->home, &t->plan, &fail)) < 0) {
    sbx_fail_format(&fail, err, sizeof err);
    snprintf(why, why_len, "plan: %.200s", err);
    return rc;
  }
  t->used = true;
  t->build = ++s->builds;
  t->mntns = t->ll_shared = -1;
  t->plan.userns = false;
  /* Per-file grants (no-shell profiles) go into a layer built once. */
  for (size_t i = 0; i < t->plan.n_rules && !shared; i++)
    shared = t->plan.rules[i].is_file;
  if (!sbx_mount_warm_ok(&t->plan)) {
    snprintf(why, why_len, "the view of this profile (the host's root, or a symlink under /tmp) "
                           "is built by the cold path only");
    rc = -EOPNOTSUPP;
    goto fail;
  }
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) {
    rc = -errno;
    snprintf(why, why_len, "socketpair: %s", strerror(errno));
    goto fail;
  }
  fflush(NULL);
  pid = (pid_t)syscall(SYS_clone, (unsigned long)CLONE_NEWNS | SIGCHLD, NULL, NULL, NULL, 0);
  if (pid < 0) {
    rc = -errno;
    snprintf(why, why_len, "clone(mount): %s", strerror(errno));
    goto fail;
  }
  if (pid == 0) {
    close(sp[0]);
    sbx_tmpl_builder(&t->plan, shared, sp[1]);
  }
  close(sp[1]);
  sp[1] = -1;
  pfd = (struct pollfd){.fd = sp[0], .events = POLLIN};
  if (poll(&pfd, 1, SBX_SERVE_BUILD_MS) == 1)
    n = recvmsg(sp[0], &mh, MSG_CMSG_CLOEXEC);
  for (struct cmsghdr *c = n >= 0 ? CMSG_FIRSTHDR(&mh) : NULL; c; c = CMSG_NXTHDR(&mh, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      nf = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
      nf = nf > 2 ? 2 : nf;
      memcpy(fds, CMSG_DATA(c), (size_t)nf * sizeof(int));
    }
  kill(pid, SIGKILL); /* it has exited or must not linger */
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
    ;
  if (nf != (shared ? 2 : 1)) {
    for (int i = 0; i < nf; i++)
      close(fds[i]);
    text[sizeof text - 1] = '\0';
    snprintf(why, why_len, "template: %.200s", n > 0 && text[0] ? text : "builder gave no answer");
    rc = -EIO;
    goto fail;
  }
  t->mntns = fds[0];
  t->ll_shared = shared ? fds[1] : -1;
  t->profile = k->profile;
  snprintf(t->ws, sizeof t->ws, "%s", k->ws);
  snprintf(t->home, sizeof t->home, "%s", k->home);
  t->ws_dev = k->ws_dev;
  t->ws_ino = k->ws_ino;
  t->uid = k->uid;
  t->gid = k->gid;
  t->flags = k->flags;
  t->last_used = sbx_now_ms();
  close(sp[0]);
  return 0;
fail:
  if (sp[0] >= 0)
    close(sp[0]);
  if (sp[1] >= 0)
    close(sp[1]);
  sbx_tmpl_drop(t);
  return rc;
}

/* Has the mount table changed since the last call? (The kernel flags the
 * open mountinfo file with POLLPRI; reading it re-arms.) Unknown: yes. */
static bool sbx_mounts_changed(struct sbx_srv *s)
{
  struct pollfd pfd = {.fd = s->mountinfo_fd, .events = POLLPRI};
  char buf[4096];
  if (s->mountinfo_fd < 0)
    return true;
  if (poll(&pfd, 1, 0) == 0)
    return false;
  lseek(s->mountinfo_fd, 0, SEEK_SET);
  while (read(s->mountinfo_fd, buf, sizeof buf) > 0)
    ;
  return true;
}

/* Does template t still hold what a fresh plan would? With an armed
 * watch whose epoch has not moved, only the probes it does not vouch for
 * are checked (a file's content); otherwise every probe, and the watch is
 * armed when that passes: the epoch read before the directories were
 * watched must still be the epoch after (docs/sbx.md "Staleness"). *how
 * says which check ran. */
static bool sbx_tmpl_fresh(struct sbx_srv *s, struct sbx_tmpl *t, char *why, size_t why_len,
                           const char **how)
{
  uint64_t e = sbx_watch_epoch(&s->watch), now = sbx_now_ms();
  bool arm = false;
  if (t->watch_epoch && t->watch_epoch == e) {
    *how = "facts watched";
    return sbx_plan_fresh_unwatched(&t->plan, why, why_len);
  }
  t->watch_epoch = 0;
  *how = "facts checked";
  if (e && now >= t->arm_after) {
    int rc = sbx_watch_plan(&s->watch, &t->plan);
    if (rc < 0) {
      t->arm_after = UINT64_MAX;
      sbx_serve_log(s, "template for %s in %s: facts not watched (%s): checked at every run",
                    t->profile->name, t->ws, strerror(-rc));
    } else if (sbx_watch_epoch(&s->watch) != e) {
      t->arm_after = now + SBX_SERVE_ARM_MS;
    } else
      arm = true;
  }
  if (!sbx_plan_fresh(&t->plan, why, why_len))
    return false;
  if (arm)
    t->watch_epoch = e;
  return true;
}

static void sbx_conn_close(struct sbx_conn *c)
{
  if (c->fd >= 0)
    close(c->fd);
  c->fd = -1;
}

/* Splits n NUL-terminated strings starting at *pos; NULL-terminated array. */
static char **sbx_take_strings(char *buf, size_t len, size_t *pos, uint32_t n)
{
  char **v;
  if (n > 65536 || !(v = calloc((size_t)n + 1, sizeof *v)))
    return NULL;
  for (uint32_t i = 0; i < n; i++) {
    char *end = *pos < len ? memchr(buf + *pos, '\0', len - *pos) : NULL;
    if (!end) {
      free(v);
      return NULL;
    }
    v[i] = buf + *pos;
    *pos = (size_t)(end - buf) + 1;
  }
  return v;
}

/* Checks a request's header and splits its strings (pointers into buf,
 * the arrays malloc'd). 0 or -EPROTO. */
static int sbx_warm_parse(char *buf, size_t n, int n_fds, struct sbx_warm_req *hdr, char ***head,
                          char ***argv, char ***envp)
{
  size_t pos = sizeof *hdr;
  *head = *argv = *envp = NULL;
  if (n < sizeof *hdr)
    return -EPROTO;
  memcpy(hdr, buf, sizeof *hdr);
  if (hdr->magic != SBX_WARM_MAGIC || hdr->version != SBX_WARM_VERSION ||
      (int)hdr->n_fds != n_fds || n_fds < 5 || hdr->n_argv < 1)
    return -EPROTO;
  if (!(*head = sbx_take_strings(buf, n, &pos, 3)) ||
      !(*argv = sbx_take_strings(buf, n, &pos, hdr->n_argv)) ||
      !(*envp = sbx_take_strings(buf, n, &pos, hdr->n_env)) || !(*argv)[0][0] ||
      /* A template keeps the workspace and HOME in PATH_MAX buffers: a
       * longer string would be cut and its key never found again. */
      strlen((*head)[1]) >= PATH_MAX || strlen((*head)[2]) >= PATH_MAX) {
    free(*head);
    free(*argv);
    free(*envp);
    *head = *argv = *envp = NULL;
    return -EPROTO;
  }
  return 0;
}

/* Receives one message with up to SBX_WARM_FDS descriptors into buf. */
static ssize_t sbx_warm_recv(int sock, char *buf, size_t size, int *fds, int *n_fds, bool *trunc)
{
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(sizeof(int) * SBX_WARM_FDS)];
  } cbuf;
  struct iovec iov = {.iov_base = buf, .iov_len = size};
  struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf.buf,
                      .msg_controllen = sizeof cbuf.buf};
  ssize_t n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
  *n_fds = 0;
  if (n < 0)
    return n;
  for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
    if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
      int cnt = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
      for (int i = 0; i < cnt; i++) {
        int fd;
        memcpy(&fd, CMSG_DATA(cm) + (size_t)i * sizeof(int), sizeof fd);
        if (*n_fds < SBX_WARM_FDS)
          fds[(*n_fds)++] = fd;
        else
          close(fd);
      }
    }
  *trunc = (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0;
  return n;
}

/* The caller's resource limits: a cold run's processes inherit them from
 * sbx run, the spare's would otherwise have the server's. pid 1 (this
 * process) takes them on, applies the profile's over them exactly as the
 * cold command does (sbx_rlimits_apply: never above the caller's hard
 * limit), and copies the result to the pre-forked command `cmd`, whose
 * limits are the profile's over the server's: the copy only lowers them
 * (the caller's could not be taken on here if they were above the
 * server's, and without CAP_SYS_RESOURCE nothing here can raise a hard
 * limit), so it needs no privilege. Any failure sends the run cold. */
static int sbx_spare_rlimits(const struct sbx_warm_req *h, const struct cs_profile *p, pid_t cmd,
                             const struct rlimit *mine, struct sbx_fail *f)
{
  struct rlimit rl;
  bool same = true;
  /* The common case, the caller's limits are ours (read before the
   * request, the ones the command's were computed from): the command's
   * are then already the profile's over the caller's; nothing to do on
   * the run's path. */
  for (int r = 0; r < RLIM_NLIMITS && same; r++)
    same = mine[r].rlim_cur == h->rlim[r][0] && mine[r].rlim_max == h->rlim[r][1];
  if (same)
    return 0;
  for (int r = 0; r < RLIM_NLIMITS; r++) {
    rl = (struct rlimit){.rlim_cur = h->rlim[r][0], .rlim_max = h->rlim[r][1]};
    if (setrlimit(r, &rl) < 0) {
      sbx_fail_set(f, SBX_LAYER_RLIMIT, errno, "the caller's rlimit %d: %s", r, strerror(errno));
      return -1;
    }
  }
  if (sbx_rlimits_apply(p, f) < 0)
    return -1;
  for (int r = 0; cmd > 0 && r < RLIM_NLIMITS; r++)
    if (getrlimit(r, &rl) < 0 || prlimit(cmd, r, &rl, NULL) < 0) {
      sbx_fail_set(f, SBX_LAYER_RLIMIT, errno, "rlimit %d of the command: %s", r, strerror(errno));
      return -1;
    }
  return 0;
}

/* The rest of what a cold run inherits from sbx run (sbx_warm_req): umask,
 * nice value, OOM score adjustment, CPU affinity, for this process. `oom`
 * is /proc/self/oom_score_adj opened for writing (taken over and closed):
 * the pre-forked command opens it before its Landlock domain exists, which
 * would refuse the open afterwards. */
static int sbx_spare_process(const struct sbx_warm_req *h, int oom, struct sbx_fail *f)
{
  char buf[32];
  const char *what;
  int n, rc = -1;
  umask((mode_t)(h->umask & 07777));
  what = "nice value";
  if (setpriority(PRIO_PROCESS, 0, h->nice) < 0)
    goto fail;
  what = "OOM score adjustment";
  n = snprintf(buf, sizeof buf, "%d\n", (int)h->oom_score_adj);
  if (oom < 0 || write(oom, buf, (size_t)n) != n)
    goto fail;
  what = "CPU affinity";
  if (sched_setaffinity(0, sizeof h->cpus, (const cpu_set_t *)(const void *)h->cpus) < 0)
    goto fail;
  rc = 0;
  goto cleanup;
fail:
  sbx_fail_set(f, SBX_LAYER_SUPERVISOR, errno, "the caller's %s: %s", what, strerror(errno));
cleanup:
  if (oom >= 0)
    close(oom);
  return rc;
}

/* The spare's pre-forked command: everything of the command's preparation
 * that does not depend on the request, done before it (the cold command's
 * order: session, limits, no_new_privs, both Landlock layers, making its
 * OWN domain, so pid 1 stays outside it); then it says ready to the server
 * (`srv`, whose end reads our pid from the credentials), gets the request
 * from pid 1 (`req`), installs the client's stdio, closes everything else,
 * waits for the client's go (its own byte of the sync pipe, given after
 * the server's STARTED), joins the run's cgroup and cgroup namespace,
 * drops its remaining capabilities (the effective ones were kept until
 * then for that unshare; the bounding set went before the request),
 * seccomp last, execve. Until the go it runs nothing of the request: a spare dropped
 * before (stale template, client gone) never executes anything. */
static _Noreturn void sbx_spare_command(const struct sbx_srv *s, const struct sbx_tmpl *t,
                                        int srv, int req, int ruleset)
{
  struct sbx_fail f = {0};
  struct sbx_cmd cmd = {.plan = &t->plan, .ruleset = -1, .ruleset_shared = -1};
  struct sbx_warm_req hdr;
  char **head = NULL, **argv = NULL, **envp = NULL, go = 0;
  int fds[SBX_WARM_FDS], n_fds = 0, keep[3], oom;
  bool trunc = false;
  ssize_t n;

  prctl(PR_SET_PDEATHSIG, SIGKILL);
  /* Before the Landlock domain below, which would refuse this open. */
  oom = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
  if (setsid() < 0)
    sbx_fail_set(&f, SBX_LAYER_SESSION, errno, "setsid: %s", strerror(errno));
  else if (sbx_command_limit(&cmd, ruleset, t->ll_shared, &f) == 0 &&
           sbx_caps_drop_bound(&f) == 0)
    /* The bounding set now, off the run's path (about 85 prctl calls);
     * the effective set stays until after the go, for the cgroup join. */
    cmd.bound_dropped = true;
  /* Ready (or failed: then reported to the run that gets us, as the
   * spare's own failures are). The server may have handed the request
   * over and closed its end already (it waits for this only when it
   * needs our pid): EPIPE then is no error. */
  (void)!send(srv, "r", 1, MSG_NOSIGNAL);
  close(srv);
  n = sbx_warm_recv(req, s->buf, SBX_WARM_MAX_REQ, fds, &n_fds, &trunc);
  if (n <= 0 || trunc ||
      sbx_warm_parse(s->buf, (size_t)n, n_fds, &hdr, &head, &argv, &envp) < 0)
    _exit(SBX_EXIT_FAILURE);
  for (int i = 0; i < 3; i++)
    if (dup2(fds[i], i) < 0)
      _exit(SBX_EXIT_FAILURE);
  /* The caller's process settings (its resource limits were set by pid 1
   * before it passed the request on); a failure is reported before READY
   * and the run goes cold. */
  if (f.layer == SBX_LAYER_NONE)
    sbx_spare_process(&hdr, oom, &f);
  else if (oom >= 0)
    close(oom);
  /* The control socket, the cgroup file and the client's go (the sync
   * pipe: one of its two bytes is ours). */
  keep[0] = fds[3];
  keep[1] = n_fds > 5 ? fds[5] : -1;
  keep[2] = fds[4];
  if (sbx_close_fds(keep, 3, &f) < 0)
    sbx_command_exec(&cmd, 3, &f);
  if (read(keep[2], &go, 1) != 1 || go != 'g')
    _exit(SBX_EXIT_FAILURE);
  close(keep[2]);
  cmd.argv = argv;
  cmd.envp = envp;
  /* The flags the server checked and keyed the template on. */
  cmd.flags = t->flags | (hdr.flags & SBX_RUN_NO_KMSG);
  if (f.layer != SBX_LAYER_NONE)
    sbx_command_exec(&cmd, keep[0], &f);
  /* Into the run's cgroup (v1; v2: the client moved us by pid) and a
   * cgroup namespace rooted there, as pid 1 did just before. */
  if (keep[1] >= 0 && sbx_cgroup_join(keep[1]) < 0)
    sbx_fail_set(&f, SBX_LAYER_CGROUP, errno, "joining the run's cgroup: %s", strerror(errno));
  else if (unshare(CLONE_NEWCGROUP) < 0)
    sbx_fail_set(&f, SBX_LAYER_NAMESPACES, errno, "cgroup namespace: %s", strerror(errno));
  if (keep[1] >= 0)
    close(keep[1]);
  sbx_command_exec(&cmd, keep[0], &f);
}

/* The spare: pid 1 of the next run of template t, prepared before its
 * request (the view's private copy and its own mounts, the Landlock
 * ruleset built there, the command forked and prepared), then handed the
 * request by the server. */
static _Noreturn void sbx_spare_main(const struct sbx_srv *s, const struct sbx_tmpl *t, int sock)
{
  struct sbx_fail f = {0};
  struct sbx_init_args ia = {.go_note = -1};
  struct sbx_warm_req hdr;
  struct rlimit mine[RLIM_NLIMITS];
  char **head = NULL, **argv = NULL, **envp = NULL;
  int ruleset = -1, fds[SBX_WARM_FDS], n_fds = 0, cp[2] = {-1, -1};
  bool trunc = false;
  ssize_t n;

  {
    /* Its socket, the template's namespace and shared Landlock layer. */
    int keep[3] = {sock, t->mntns, t->ll_shared};
    sbx_close_except(keep, 3);
  }
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  prctl(PR_SET_NAME, "sbx-spare");
  /* Holds the server's memory until its request: nobody may read it. */
  prctl(PR_SET_DUMPABLE, 0);
  /* The server's handlers must not reach the command (nor pid 1's wait). */
  sbx_reset_signals();
  /* A private copy of the template's finished view: this run's mounts
   * (/tmp, /dev/shm, /proc) never reach the template or another run. A
   * failure is kept and reported to the run that gets this spare. */
  if (setns(t->mntns, CLONE_NEWNS) < 0 || unshare(CLONE_NEWNS) < 0)
    sbx_fail_set(&f, SBX_LAYER_NAMESPACES, errno, "joining the template's view: %s",
                 strerror(errno));
  else if (close(t->mntns), sbx_mount_fresh(&t->plan, &f) == 0)
    sbx_landlock_ruleset(&t->plan, t->ll_shared >= 0 ? SBX_LL_RUN : SBX_LL_ALL, &ruleset, &f);
  if (f.layer == SBX_LAYER_NONE) {
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, cp) < 0)
      sbx_fail_set(&f, SBX_LAYER_SUPERVISOR, errno, "socketpair: %s", strerror(errno));
    else if ((ia.child = fork()) < 0)
      sbx_fail_set(&f, SBX_LAYER_SUPERVISOR, errno, "fork: %s", strerror(errno));
    else if (ia.child == 0) {
      close(cp[0]);
      sbx_spare_command(s, t, sock, cp[1], ruleset);
    }
    if (cp[1] >= 0)
      close(cp[1]);
  }
  if (ruleset >= 0)
    close(ruleset);
  if (t->ll_shared >= 0)
    close(t->ll_shared);
  /* Our limits, the server's, from which the command computed its own. */
  for (int r = 0; r < RLIM_NLIMITS; r++)
    if (getrlimit(r, &mine[r]) < 0)
      sbx_fail_set(&f, SBX_LAYER_RLIMIT, errno, "rlimit %d: %s", r, strerror(errno));
  /* No command: the server hears it from us (then the run reports f). */
  if (ia.child <= 0) {
    ia.child = 0;
    (void)!send(sock, "f", 1, MSG_NOSIGNAL);
  }
  n = sbx_warm_recv(sock, s->buf, SBX_WARM_MAX_REQ, fds, &n_fds, &trunc);
  if (n <= 0 || trunc ||
      sbx_warm_parse(s->buf, (size_t)n, n_fds, &hdr, &head, &argv, &envp) < 0)
    _exit(SBX_EXIT_FAILURE); /* dropped, or a request the server did not check */
  /* Kept until the go: its closing tells the server (sbx_serve_next_spare). */
  ia.go_note = sock;
  /* A failure here is reported to the run, before anything executed. */
  if (f.layer == SBX_LAYER_NONE &&
      sbx_spare_rlimits(&hdr, t->plan.profile, ia.child, mine, &f) == 0)
    sbx_spare_process(&hdr, open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC), &f);
  /* A failed spare never passes the request on: its command, which would
   * get its own go together with ours, gets no argv and is killed, so it
   * cannot execute anything while we report the failure (after which the
   * client runs the command cold). */
  if (ia.child > 0 && f.layer != SBX_LAYER_NONE) {
    kill(ia.child, SIGKILL);
    (void)!waitpid(ia.child, NULL, 0);
    ia.child = 0;
    close(cp[0]);
  }
  /* The request goes on to the command at once (it installs its stdio
   * while the client still waits for the server's answer); the go only
   * follows the client's. */
  if (ia.child > 0) {
    sbx_sched_restore(s, ia.child);
    union {
      struct cmsghdr h;
      char buf[CMSG_SPACE(sizeof(int) * SBX_WARM_FDS)];
    } cbuf;
    struct iovec iov = {.iov_base = s->buf, .iov_len = (size_t)n};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
    sbx_msg_put_fds(&mh, cbuf.buf, fds, n_fds);
    if (sendmsg(cp[0], &mh, MSG_NOSIGNAL) != n)
      sbx_fail_set(&f, SBX_LAYER_SUPERVISOR, errno, "handing the request to the command: %s",
                   strerror(errno));
    close(cp[0]);
  }
  /* The client's stdio is the command's, as in the cold path. */
  for (int i = 0; i < 3; i++)
    if (dup2(fds[i], i) < 0)
      _exit(SBX_EXIT_FAILURE);
  /* The flags the server checked and keyed the template on. */
  ia.cmd = (struct sbx_cmd){.plan = &t->plan, .argv = argv, .envp = envp,
                            .flags = t->flags | (hdr.flags & SBX_RUN_NO_KMSG),
                            .unotify = NULL, .ruleset = -1, .ruleset_shared = -1};
  ia.ctl = fds[3];
  ia.sync_rd = fds[4];
  ia.cg_fd = n_fds > 5 ? fds[5] : -1;
  ia.view_ready = true;
  ia.prep_fail = &f;
  sbx_init_run(&ia);
}

/* Clones a spare of template t into its free place *slot. */
static int sbx_spare_make(struct sbx_srv *s, struct sbx_tmpl *t, struct sbx_spare *slot)
{
  unsigned long cflags = CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP;
  int sp[2], e;
  pid_t pid;
  if (t->plan.net_blocked)
    cflags |= CLONE_NEWNET; /* an empty network namespace: only a down loopback */
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
    return -errno;
  /* Its "ready" carries the sender's pid: the pre-forked command's. */
  if (setsockopt(sp[0], SOL_SOCKET, SO_PASSCRED, &(int){1}, sizeof(int)) < 0) {
    e = errno;
    close(sp[0]);
    close(sp[1]);
    return -e;
  }
  fflush(NULL);
  /* The spare (and the clone's namespace set-up, done here) runs while
   * the previous run's command does: idle priority keeps it off that
   * run's critical path (sbx_sched_restore when taken). */
  (void)!sched_setscheduler(0, SCHED_IDLE, &(struct sched_param){0});
  pid = (pid_t)syscall(SYS_clone, cflags | SIGCHLD, NULL, NULL, NULL, 0);
  if (pid != 0)
    sbx_sched_restore(s, 0);
  if (pid < 0) {
    e = errno;
    close(sp[0]);
    close(sp[1]);
    return -e;
  }
  if (pid == 0) {
    close(sp[0]);
    sbx_spare_main(s, t, sp[1]);
  }
  close(sp[1]);
  slot->pid = pid;
  slot->cmd = 0;
  slot->sock = sp[0];
  slot->made = ++s->spares_made;
  slot->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  if (slot->pidfd < 0) {
    e = errno;
    sbx_spare_drop(slot);
    return -e;
  }
  return 0;
}

/* A free place for a spare of t, or NULL when t keeps enough. */
static struct sbx_spare *sbx_spare_free(struct sbx_tmpl *t)
{
  for (int k = 0; k < SBX_SERVE_SPARES; k++)
    if (t->spares[k].pid <= 0)
      return &t->spares[k];
  return NULL;
}

/* t's oldest spare (the likeliest to be prepared), or NULL. */
static struct sbx_spare *sbx_spare_oldest(struct sbx_tmpl *t)
{
  struct sbx_spare *best = NULL;
  for (int k = 0; k < SBX_SERVE_SPARES; k++)
    if (t->spares[k].pid > 0 && (!best || t->spares[k].made < best->made))
      best = &t->spares[k];
  return best;
}

/* Waits (bounded) for t's spare to say it is prepared: "r" from its
 * pre-forked command (whose host pid the credentials give), "f" from pid 1
 * when there is none. */
static int sbx_spare_ready(struct sbx_spare *sp)
{
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(sizeof(struct ucred))];
  } cbuf;
  char what = 0;
  struct iovec iov = {.iov_base = &what, .iov_len = 1};
  struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf.buf,
                      .msg_controllen = sizeof cbuf.buf};
  struct pollfd pfd = {.fd = sp->sock, .events = POLLIN};
  struct ucred cr = {0};
  int rc;
  if (sp->cmd != 0)
    return 0;
  while ((rc = poll(&pfd, 1, SBX_SERVE_SPARE_MS)) < 0 && errno == EINTR)
    ;
  if (rc <= 0)
    return rc < 0 ? -errno : -ETIMEDOUT;
  if (recvmsg(sp->sock, &mh, MSG_DONTWAIT) != 1)
    return -EIO;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
        c->cmsg_len == CMSG_LEN(sizeof cr))
      memcpy(&cr, CMSG_DATA(c), sizeof cr);
  if (what == 'r' && cr.pid > 0 && cr.pid != sp->pid)
    sp->cmd = cr.pid;
  else if (what == 'f')
    sp->cmd = -1;
  else
    return -EPROTO;
  return 0;
}

/* Hands the request in s->buf (n bytes, with fds) to t's spare, which
 * becomes the run's pid 1 (c->init, c->pidfd). */
static int sbx_spare_take(struct sbx_srv *s, struct sbx_tmpl *t, struct sbx_conn *c, size_t n,
                          const int *fds, int n_fds)
{
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(sizeof(int) * SBX_WARM_FDS)];
  } cbuf;
  struct iovec iov = {.iov_base = s->buf, .iov_len = n};
  struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
  struct sbx_spare *sp;
  int rc;
  for (int attempt = 0; attempt < 1 + SBX_SERVE_SPARES; attempt++) {
    if (!(sp = sbx_spare_oldest(t))) {
      sp = &t->spares[0];
      if ((rc = sbx_spare_make(s, t, sp)) < 0)
        return rc;
    }
    sbx_msg_put_fds(&mh, cbuf.buf, fds, n_fds);
    /* The command's pid is needed only when the client moves the run
     * into its cgroup by pid (v2: no cgroup file in the request); waiting
     * for it otherwise would only delay the server's loop. */
    sbx_sched_restore(s, sp->pid);
    if ((n_fds > 5 || sbx_spare_ready(sp) == 0) &&
        sendmsg(sp->sock, &mh, MSG_NOSIGNAL) == (ssize_t)n) {
      c->init = sp->pid;
      c->cmd = sp->cmd;
      c->spare_sock = sp->sock;
      c->pidfd = sp->pidfd;
      sbx_spare_clear(sp);
      return 0;
    }
    sbx_spare_drop(sp); /* it died: another, or a fresh one */
  }
  return -EIO;
}

static const struct cs_profile *sbx_serve_profile(const struct sbx_srv *s, const char *name)
{
  for (size_t i = 0; i < s->o->n_profiles; i++)
    if (s->o->profiles[i].name && strcmp(s->o->profiles[i].name, name) == 0)
      return &s->o->profiles[i];
  return NULL;
}

/* One request on connection c. Replies STARTED (from the key's template,
 * built or rebuilt first when missing or stale) or REFUSED (the client
 * then runs cold). */
static void sbx_serve_request(struct sbx_srv *s, struct sbx_conn *c)
{
  struct sbx_warm_req hdr;
  struct sbx_key k = {0};
  struct sbx_tmpl *t = NULL;
  char why[256] = "", note[128] = "", stale[200], **argv = NULL, **envp = NULL, **head = NULL;
  const char *facts = "template new";
  char real[PATH_MAX];
  struct stat wst;
  int fds[SBX_WARM_FDS], n_fds = 0, rc;
  bool trunc = false;
  ssize_t n = sbx_warm_recv(c->fd, s->buf, SBX_WARM_MAX_REQ, fds, &n_fds, &trunc);

  if (n <= 0) {
    for (int i = 0; i < n_fds; i++)
      close(fds[i]);
    sbx_conn_close(c);
    return;
  }
  if (trunc || sbx_warm_parse(s->buf, (size_t)n, n_fds, &hdr, &head, &argv, &envp) < 0) {
    snprintf(why, sizeof why, "malformed request, or another protocol version");
    goto refuse;
  }
  /* The plan is computed with the server's ids: they must be the client's. */
  if (hdr.uid != geteuid() || hdr.gid != getegid()) {
    snprintf(why, sizeof why, "client ids %u:%u differ from the server's", hdr.uid, hdr.gid);
    goto refuse;
  }
  k.profile = sbx_serve_profile(s, head[0]);
  /* The approvals' system-call layer (a notify listener) is served by the
   * `sbx run` process of a cold run; a spare has none. sbx run never asks
   * for such a profile, so a request for one is refused, not served
   * without the layer. */
  if (k.profile && (k.profile->approval_ops & SBX_UNOTIFY_OPS)) {
    snprintf(why, sizeof why, "profile '%.64s' has approvals at the system-call layer: "
                              "cold only", head[0]);
    goto refuse;
  }
  /* Only the flags sbx run sets itself; an unknown bit is not ignored
   * (it could mean a layer this server does not know). */
  if (hdr.flags & ~(uint32_t)(SBX_RUN_ALLOW_GIT_CONFIG | SBX_RUN_NO_KMSG)) {
    snprintf(why, sizeof why, "unknown request flags 0x%x", hdr.flags);
    goto refuse;
  }
  if (!k.profile || sbx_profile_fingerprint(k.profile) != hdr.profile_fp) {
    snprintf(why, sizeof why, "profile '%.64s' differs from the server's (another sbx build?)",
             head[0]);
    goto refuse;
  }
  k.ws = head[1];
  k.home = head[2];
  k.ws_dev = (dev_t)hdr.ws_dev;
  k.ws_ino = (ino_t)hdr.ws_ino;
  /* The client resolved the workspace; the server sees the same
   * directory under the same name, or serves nothing: a name realpath
   * would change keys no template, and another directory than the one the
   * client meant would get the run. */
  if (!realpath(k.ws, real) || strcmp(real, k.ws) != 0 || stat(real, &wst) < 0 ||
      !S_ISDIR(wst.st_mode) || wst.st_dev != k.ws_dev || wst.st_ino != k.ws_ino) {
    snprintf(why, sizeof why, "workspace is not the resolved directory the client named");
    goto refuse;
  }
  k.uid = hdr.uid;
  k.gid = hdr.gid;
  k.flags = hdr.flags & SBX_RUN_ALLOW_GIT_CONFIG;
  if (sbx_mounts_changed(s)) {
    for (int i = 0; i < s->n_tmpl; i++)
      sbx_tmpl_drop(&s->tmpl[i]);
    sbx_serve_log(s, "mount table changed: every template dropped");
  }
  for (int i = 0; i < s->n_tmpl && !t; i++)
    if (sbx_key_eq(&s->tmpl[i], &k))
      t = &s->tmpl[i];
  /* The request travels to the spare while we check the template: the
   * spare only installs it (stdio, descriptors) and runs nothing before
   * the client's go, which follows our STARTED, which follows a positive
   * verdict. Fail closed on any doubt: a changed fact means the template
   * (and its spare) may show or grant what a fresh plan would not. The
   * spare that got the request is killed (its pid namespace with it),
   * and template and spare are made anew from a fresh plan, what a cold
   * run computes. */
  if (t && sbx_spare_take(s, t, c, (size_t)n, fds, n_fds) < 0)
    c->init = 0; /* no spare: taken again below, after the check */
  if (t && !sbx_tmpl_fresh(s, t, stale, sizeof stale, &facts)) {
    sbx_serve_log(s, "template stale: %s", stale);
    if (c->init > 0) {
      syscall(SYS_pidfd_send_signal, c->pidfd, SIGKILL, NULL, 0);
      while (waitpid(c->init, NULL, 0) < 0 && errno == EINTR)
        ;
      close(c->pidfd);
      close(c->spare_sock);
      c->pidfd = c->spare_sock = -1;
      c->init = c->cmd = 0;
    }
    sbx_tmpl_drop(t);
    t = NULL;
    facts = "template rebuilt";
    snprintf(note, sizeof note, "template rebuilt: %.100s", stale);
  } else if (!t)
    snprintf(note, sizeof note, "template built");
  if (!t) {
    if ((rc = sbx_tmpl_build(s, &k, why, sizeof why)) < 0)
      goto refuse;
    for (int i = 0; i < s->n_tmpl && !t; i++)
      if (sbx_key_eq(&s->tmpl[i], &k))
        t = &s->tmpl[i];
    if (!t) { /* never expected: the key as built is not found */
      snprintf(why, sizeof why, "template built but not found under its key");
      goto refuse;
    }
    sbx_serve_log(s, "template for %s in %s built", k.profile->name, k.ws);
  }
  if (c->init <= 0 && (rc = sbx_spare_take(s, t, c, (size_t)n, fds, n_fds)) < 0) {
    snprintf(why, sizeof why, "starting the run: %s", strerror(-rc));
    goto refuse;
  }
  t->last_used = sbx_now_ms();
  sbx_send_reply(c->fd, SBX_WARM_STARTED, c->init, c->cmd, 0, c->pidfd, note[0] ? note : NULL);
  sbx_serve_log(s, "run %d started warm (profile %s, %s; %s)", (int)c->init, k.profile->name,
                k.ws, facts);
  for (int i = 0; i < n_fds; i++)
    close(fds[i]);
  n_fds = 0;
  {
    /* After the answer, off the run's path. The spare unshared its mount
     * namespace first thing; if it has not yet, this is the template's
     * or ours, which we hold anyway: harmless. */
    char ns[64];
    snprintf(ns, sizeof ns, "/proc/%d/ns/mnt", (int)c->init);
    c->mntns = open(ns, O_RDONLY | O_CLOEXEC);
  }
  /* The next run's pid 1 is prepared while this one runs, once its go
   * came (sbx_serve_next_spare): until then this run needs both CPUs of a
   * small machine (our answer, the client's go, pid 1 and the command
   * taking the request), and the clone's namespace set-up is long kernel
   * work that idle priority cannot interrupt. */
  c->next_slot = (int)(t - s->tmpl);
  c->next_build = t->build;
  c->go_pending = true;
  goto cleanup;
refuse:
  sbx_serve_log(s, "refused: %s", why);
  sbx_send_reply(c->fd, SBX_WARM_REFUSED, 0, 0, 0, -1, why);
  sbx_conn_close(c);
cleanup:
  for (int i = 0; i < n_fds; i++)
    close(fds[i]);
  free(head);
  free(argv);
  free(envp);
}

static int sbx_serve_listen(struct sbx_srv *s)
{
  struct sockaddr_un sa = {.sun_family = AF_UNIX}, tmp = {.sun_family = AF_UNIX};
  const char *path = s->o->socket_path;
  char dir[PATH_MAX], lock[PATH_MAX + 16], *slash;
  struct stat st;
  mode_t old;
  int fd, rc;

  if (strlen(path) >= sizeof sa.sun_path || snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
    return fprintf(stderr, "sbx serve: socket path too long: %s\n", path), -ENAMETOOLONG;
  strcpy(sa.sun_path, path);
  slash = strrchr(dir, '/');
  if (!slash || slash == dir)
    return fprintf(stderr, "sbx serve: socket %s: not in a state directory\n", path), -EINVAL;
  *slash = '\0';
  /* The directory is the socket's access control: ours, nobody else's. */
  if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
      (st.st_mode & 0077)) {
    fprintf(stderr, "sbx serve: state directory %s must be a directory of uid %d with mode "
                    "0700\n", dir, (int)geteuid());
    return -EPERM;
  }
  /* One server per directory, for its whole life: two starting at once
   * would both bind and rename the socket (one then serving unreachable). */
  if ((size_t)snprintf(lock, sizeof lock, "%s/serve.lock", dir) >= sizeof lock)
    return -ENAMETOOLONG;
  s->lock_fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (s->lock_fd < 0) {
    fprintf(stderr, "sbx serve: %s: %s\n", lock, strerror(errno));
    return -errno;
  }
  if (flock(s->lock_fd, LOCK_EX | LOCK_NB) < 0) {
    rc = errno == EWOULDBLOCK ? -EADDRINUSE : -errno;
    fprintf(stderr, "sbx serve: a server already runs in %s (%s is locked)\n", dir, lock);
    return rc;
  }
  fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -errno;
  if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0) {
    fprintf(stderr, "sbx serve: a server already answers at %s\n", path);
    close(fd);
    return -EADDRINUSE;
  }
  /* Bound under a temporary name and renamed once listening: bind alone
   * makes the name appear, and a client connecting before listen() would
   * be refused (and start cold) although the server is up. The lock makes
   * the temporary name ours alone. */
  if ((size_t)snprintf(tmp.sun_path, sizeof tmp.sun_path, "%s/serve.sock.new", dir) >=
      sizeof tmp.sun_path) {
    close(fd);
    return fprintf(stderr, "sbx serve: socket path too long for its temporary name %s/%s\n", dir,
                   "serve.sock.new"),
           -ENAMETOOLONG;
  }
  unlink(tmp.sun_path);
  old = umask(0077);
  rc = bind(fd, (struct sockaddr *)&tmp, sizeof tmp) < 0 || listen(fd, 64) < 0 ||
               rename(tmp.sun_path, path) < 0
           ? -errno
           : 0;
  umask(old);
  if (rc < 0) {
    fprintf(stderr, "sbx serve: %s: %s\n", path, strerror(-rc));
    unlink(tmp.sun_path);
    close(fd);
    return rc;
  }
  s->listen_fd = fd;
  return 0;
}

/* What a peer must share with us (sbx_serve_peer_ok). */
static const char *const sbx_peer_ns[SBX_PEER_NS] = {"ns/mnt", "ns/pid", "ns/net", "ns/user",
                                                     "root"};

/* Our own namespaces and root, read once: the server never changes them
 * (only its children join others), and every request compares them. */
static int sbx_serve_self_ns(struct sbx_srv *s)
{
  for (int i = 0; i < SBX_PEER_NS; i++) {
    char self[64];
    struct stat st;
    snprintf(self, sizeof self, "/proc/self/%s", sbx_peer_ns[i]);
    if (stat(self, &st) < 0)
      return -errno;
    s->self_ns[i].dev = st.st_dev;
    s->self_ns[i].ino = st.st_ino;
  }
  return 0;
}

/* Same object (dev, ino) at /proc/<pid>/<name i> (pid's directory dir)
 * as ours? */
static bool sbx_peer_same(const struct sbx_srv *s, int dir, int i)
{
  struct stat a;
  return fstatat(dir, sbx_peer_ns[i], &a, 0) == 0 && a.st_dev == s->self_ns[i].dev &&
         a.st_ino == s->self_ns[i].ino;
}

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
static bool sbx_serve_peer_ok(const struct sbx_srv *s, int fd, char *why, size_t why_len)
{
  struct ucred cred;
  socklen_t cl = sizeof cred, pl = sizeof(int);
  char path[64], status[4096], *cap, *sec;
  unsigned long long eff = 0;
  int mode = -1;
  int pidfd = -1, dir = -1, sfd = -1;
  struct pollfd pp;
  ssize_t n;
  bool ok = false;

  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) < 0 || cl != sizeof cred) {
    snprintf(why, why_len, "no peer credentials");
    goto cleanup;
  }
  /* Only our own uid: anyone else could otherwise run commands as us. */
  if (cred.uid != geteuid()) {
    snprintf(why, why_len, "refused a client of uid %d", (int)cred.uid);
    goto cleanup;
  }
  if (cred.pid <= 0) {
    snprintf(why, why_len, "refused a client outside our pid namespace");
    goto cleanup;
  }
  if (getsockopt(fd, SOL_SOCKET, SBX_SO_PEERPIDFD, &pidfd, &pl) < 0) {
    pidfd = (int)syscall(SYS_pidfd_open, cred.pid, 0);
    if (pidfd < 0) {
      snprintf(why, why_len, "refused client pid %d: pidfd: %s", (int)cred.pid, strerror(errno));
      goto cleanup;
    }
  } else if (sbx_pidfd_pid(pidfd) != cred.pid) {
    snprintf(why, why_len, "refused client pid %d: its pidfd names another process",
             (int)cred.pid);
    goto cleanup;
  }
  snprintf(path, sizeof path, "/proc/%d", (int)cred.pid);
  if ((dir = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
      (sfd = openat(dir, "status", O_RDONLY | O_CLOEXEC)) < 0 ||
      (n = read(sfd, status, sizeof status - 1)) <= 0) {
    snprintf(why, why_len, "refused client pid %d: %s", (int)cred.pid, strerror(errno));
    goto cleanup;
  }
  status[n] = '\0';
  if (!(cap = strstr(status, "\nCapEff:")) || sscanf(cap + 8, "%llx", &eff) != 1 ||
      !(eff & (1ull << 21 /* CAP_SYS_ADMIN */))) {
    snprintf(why, why_len, "refused client pid %d: no CAP_SYS_ADMIN (a sandboxed command?)",
             (int)cred.pid);
    goto cleanup;
  }
  /* A seccomp filter of the caller's own would be inherited by a cold run
   * (filters stack, the profile's on top); a warm run starts from the
   * server's processes and would shed it: such a caller runs cold. */
  if (!(sec = strstr(status, "\nSeccomp:")) || sscanf(sec + 9, "%d", &mode) != 1 || mode != 0) {
    snprintf(why, why_len, "refused client pid %d: it runs under a seccomp filter, which a warm "
                           "run would not keep", (int)cred.pid);
    goto cleanup;
  }
  for (int i = 0; i < SBX_PEER_NS; i++)
    if (!sbx_peer_same(s, dir, i)) {
      snprintf(why, why_len, "refused client pid %d: its %s is not the server's (a sandboxed "
                             "command?)", (int)cred.pid, sbx_peer_ns[i]);
      goto cleanup;
    }
  /* Still the process we checked: not exited, so its pid not reused. */
  pp = (struct pollfd){.fd = pidfd, .events = POLLIN};
  if (poll(&pp, 1, 0) != 0) {
    snprintf(why, why_len, "refused client pid %d: exited during the check", (int)cred.pid);
    goto cleanup;
  }
  ok = true;
cleanup:
  if (sfd >= 0)
    close(sfd);
  if (dir >= 0)
    close(dir);
  if (pidfd >= 0)
    close(pidfd);
  return ok;
}

static void sbx_serve_accept(struct sbx_srv *s)
{
  char why[200];
  int fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
  if (fd < 0)
    return;
  if (!sbx_serve_peer_ok(s, fd, why, sizeof why)) {
    sbx_serve_log(s, "%s", why);
    close(fd);
    return;
  }
  for (int i = 0; i < SBX_SERVE_MAX_CONNS; i++)
    if (s->conns[i].fd < 0 && s->conns[i].init <= 0) {
      s->conns[i].fd = fd;
      s->conns[i].since = sbx_now_ms();
      return;
    }
  close(fd); /* full: the client runs cold */
}

/* Run c had its go, or ended: one more spare of its template, unless that
 * template was dropped or rebuilt, or keeps enough already. Once at the
 * go (replacing the spare the run took) and once at the end (filling the
 * pool after a template is new or spares were used up). */
static void sbx_serve_next_spare(struct sbx_srv *s, struct sbx_conn *c)
{
  struct sbx_tmpl *t;
  struct sbx_spare *sp;
  int rc;
  if (c->next_slot < 0)
    return;
  t = &s->tmpl[c->next_slot];
  if (!t->used || t->build != c->next_build || !(sp = sbx_spare_free(t)))
    return;
  if ((rc = sbx_spare_make(s, t, sp)) < 0)
    sbx_serve_log(s, "no spare: %s", strerror(-rc));
}

/* pid 1 of a run ended: reap it, report to the client, free the slot. */
static void sbx_serve_reap(struct sbx_srv *s, struct sbx_conn *c)
{
  int st = 0;
  if (waitpid(c->init, &st, WNOHANG) != c->init)
    return;
  if (c->fd >= 0)
    sbx_send_reply(c->fd, SBX_WARM_DONE, c->init, 0, st, -1, NULL);
  sbx_serve_log(s, "run %d ended (status 0x%x)", (int)c->init, (unsigned)st);
  close(c->pidfd);
  close(c->spare_sock);
  if (c->mntns >= 0)
    close(c->mntns);
  c->pidfd = c->spare_sock = c->mntns = -1;
  c->init = 0;
  sbx_conn_close(c);
  sbx_serve_next_spare(s, c);
  c->next_slot = -1;
  c->go_pending = false;
}

int sbx_serve(const struct sbx_serve_opts *o)
{
  struct sbx_srv s = {.o = o, .listen_fd = -1, .mountinfo_fd = -1, .lock_fd = -1,
                      .watch = {.fd = -1}};
  /* The listening socket; per connection its socket, pid 1's pidfd and
   * the wait for its go; per template its spares' pidfds. */
  struct pollfd pfd[SBX_SERVE_WHO_END];
  int who[SBX_SERVE_WHO_END];
  struct sigaction sa = {.sa_handler = sbx_serve_on_signal};
  uint64_t last = sbx_now_ms();
  int rc = 0;

  /* Started with stdio closed, our sockets and namespaces would land on
   * 0..2, which every spare and builder keeps (sbx_close_except) and the
   * command could inherit: stdio is /dev/null instead. */
  for (int i = 0; i < 3; i++)
    if (fcntl(i, F_GETFD) < 0 && errno == EBADF) {
      int nul = open("/dev/null", O_RDWR);
      if (nul != i) {
        fprintf(stderr, "sbx serve: cannot open /dev/null as descriptor %d\n", i);
        return nul >= 0 ? (close(nul), -EBADF) : -errno;
      }
    }
  for (int i = 0; i < SBX_SERVE_MAX_CONNS; i++)
    s.conns[i] = (struct sbx_conn){.fd = -1, .init = 0, .pidfd = -1, .spare_sock = -1,
                                     .mntns = -1, .next_slot = -1};
  sbx_probe_for_run(&s.feat);
  s.n_tmpl = o->max_templates > 0 && o->max_templates <= SBX_SERVE_MAX_TEMPLATES
                 ? o->max_templates
                 : 16;
  s.tmpl = calloc((size_t)s.n_tmpl, sizeof *s.tmpl);
  s.buf = malloc(SBX_WARM_MAX_REQ);
  s.policy = sched_getscheduler(0);
  if (s.policy < 0 || sched_getparam(0, &s.param) < 0) {
    s.policy = SCHED_OTHER;
    s.param = (struct sched_param){0};
  }
  if (!s.tmpl || !s.buf) {
    rc = -ENOMEM;
    goto cleanup;
  }
  for (int i = 0; i < s.n_tmpl; i++)
    sbx_tmpl_clear(&s.tmpl[i]);
  if ((rc = sbx_serve_self_ns(&s)) < 0) {
    fprintf(stderr, "sbx serve: cannot read its own namespaces in /proc: %s\n", strerror(-rc));
    goto cleanup;
  }
  if ((rc = sbx_serve_listen(&s)) < 0)
    goto cleanup;
  s.mountinfo_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
  sbx_mounts_changed(&s); /* arms the change notification */
  sbx_watch_init(&s.watch);
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  sbx_serve_log(&s, "listening on %s", o->socket_path);

  while (!sbx_serve_stop) {
    int n = 0, timeout = -1, busy = 0;
    pfd[n] = (struct pollfd){.fd = s.listen_fd, .events = POLLIN};
    who[n++] = -1;
    for (int i = 0; i < SBX_SERVE_MAX_CONNS; i++) {
      struct sbx_conn *c = &s.conns[i];
      /* A connection that sent nothing in time loses its slot. */
      if (c->fd >= 0 && c->init <= 0) {
        uint64_t now = sbx_now_ms(), end = c->since + SBX_SERVE_REQUEST_MS;
        if (now >= end) {
          sbx_serve_log(&s, "no request within %d ms: connection closed", SBX_SERVE_REQUEST_MS);
          sbx_conn_close(c);
        } else if (timeout < 0 || (int)(end - now) < timeout)
          timeout = (int)(end - now);
      }
      if (c->fd >= 0) {
        pfd[n] = (struct pollfd){.fd = c->fd, .events = POLLIN};
        who[n++] = i;
      }
      if (c->init > 0) {
        pfd[n] = (struct pollfd){.fd = c->pidfd, .events = POLLIN};
        who[n++] = SBX_SERVE_WHO_PIDFD + i;
      }
      /* No events asked: only the hang-up (pid 1 had its go, or died);
       * the pre-forked command's unread "ready" may sit in the socket. */
      if (c->init > 0 && c->go_pending && c->spare_sock >= 0) {
        pfd[n] = (struct pollfd){.fd = c->spare_sock, .events = 0};
        who[n++] = SBX_SERVE_WHO_GO + i;
      }
      busy |= c->fd >= 0 || c->init > 0;
    }
    for (int i = 0; i < s.n_tmpl; i++)
      for (int k = 0; k < SBX_SERVE_SPARES; k++)
        if (s.tmpl[i].spares[k].pid > 0) {
          pfd[n] = (struct pollfd){.fd = s.tmpl[i].spares[k].pidfd, .events = POLLIN};
          who[n++] = SBX_SERVE_WHO_SPARE + i * SBX_SERVE_SPARES + k;
        }
    if (busy)
      last = sbx_now_ms();
    if (o->idle_ms && !busy) {
      uint64_t now = sbx_now_ms();
      if (now - last >= o->idle_ms) {
        sbx_serve_log(&s, "idle for %llu ms: exiting", (unsigned long long)o->idle_ms);
        break;
      }
      timeout = (int)(o->idle_ms - (now - last));
    }
    if (poll(pfd, (nfds_t)n, timeout) < 0) {
      if (errno == EINTR)
        continue;
      rc = -errno;
      break;
    }
    for (int i = 0; i < n; i++) {
      if (!pfd[i].revents)
        continue;
      if (who[i] < 0) {
        sbx_serve_accept(&s);
      } else if (who[i] >= SBX_SERVE_WHO_SPARE) {
        /* A spare died before its request: reaped; the next run makes
         * another. (Taken in this round already: its pidfd is the run's
         * now, and the place may hold a new spare; nothing to drop.) */
        int at = who[i] - SBX_SERVE_WHO_SPARE;
        struct sbx_tmpl *t = &s.tmpl[at / SBX_SERVE_SPARES];
        struct sbx_spare *sp = &t->spares[at % SBX_SERVE_SPARES];
        if (sp->pidfd == pfd[i].fd) {
          sbx_serve_log(&s, "spare %d of %s ended before use", (int)sp->pid, t->ws);
          sbx_spare_drop(sp);
        }
      } else if (who[i] >= SBX_SERVE_WHO_GO) {
        struct sbx_conn *c = &s.conns[who[i] - SBX_SERVE_WHO_GO];
        c->go_pending = false;
        sbx_serve_next_spare(&s, c);
      } else if (who[i] >= SBX_SERVE_WHO_PIDFD) {
        sbx_serve_reap(&s, &s.conns[who[i] - SBX_SERVE_WHO_PIDFD]);
      } else {
        struct sbx_conn *c = &s.conns[who[i]];
        if (c->fd < 0)
          continue;
        if (c->init <= 0) {
          sbx_serve_request(&s, c);
        } else {
          /* Anything from a running client is its end closing (killed,
           * or gone): the run dies with it, the whole pid namespace. */
          struct pollfd gone = {.fd = c->pidfd, .events = POLLIN};
          /* After a normal end the client leaves once pid 1 is gone. */
          if (poll(&gone, 1, 0) == 0) {
            syscall(SYS_pidfd_send_signal, c->pidfd, SIGKILL, NULL, 0);
            sbx_serve_log(&s, "client of run %d gone: killed", (int)c->init);
          }
          sbx_conn_close(c);
        }
      }
    }
  }
cleanup:
  for (int i = 0; i < SBX_SERVE_MAX_CONNS; i++)
    if (s.conns[i].init > 0) {
      syscall(SYS_pidfd_send_signal, s.conns[i].pidfd, SIGKILL, NULL, 0);
      while (waitpid(s.conns[i].init, NULL, 0) < 0 && errno == EINTR)
        ;
      close(s.conns[i].pidfd);
      close(s.conns[i].spare_sock);
      if (s.conns[i].mntns >= 0)
        close(s.conns[i].mntns);
      sbx_conn_close(&s.conns[i]);
    } else
      sbx_conn_close(&s.conns[i]);
  for (int i = 0; s.tmpl && i < s.n_tmpl; i++)
    sbx_tmpl_drop(&s.tmpl[i]);
  if (s.listen_fd >= 0) {
    close(s.listen_fd);
    unlink(o->socket_path);
  }
  if (s.mountinfo_fd >= 0)
    close(s.mountinfo_fd);
  sbx_watch_fini(&s.watch);
  if (s.lock_fd >= 0)
    close(s.lock_fd);
  free(s.tmpl);
  free(s.buf);
  return rc;
}
