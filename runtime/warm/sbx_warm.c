/* sbx_warm: the client side of a warm start (protocol: sbx_warm.h).
 *
 * `sbx run` (sbx_confine_run) asks a running `sbx serve` of the same user
 * to start pid 1 of the run from a template (a finished mount view and a
 * built Landlock ruleset, sbx_serve.c). Everything else stays here, as in
 * the cold path: the cgroup, the control socket, the deadline, the
 * messages, the result. Any refusal or error before the command started
 * returns SBX_WARM_DECLINED: nothing ran, the caller runs cold, which is
 * equally confined. After the go only an explicit failure before the
 * command's READY declines; any other loss is reported (never rerun). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <sched.h>
#include <linux/capability.h>
#include <sys/resource.h>

#include "sbx_cgroup.h"
#include "sbx_denial.h"
#include "sbx_fail.h"
#include "sbx_plan.h"
#include "sbx_sandbox.h"
#include "sbx_supervise.h"
#include "sbx_warm.h"

#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

/* How long the server may take to answer a request: a fork from a ready
 * spare and the freshness check take a few ms, but the request may queue
 * behind the server's making of the previous run's spares, seconds on a
 * loaded machine (5 s sent runs cold under ctest -j4 with the CPUs busy).
 * Only a server stuck this long sends the run cold. */
#define SBX_WARM_REPLY_MS 20000
/* After the server said BUILDING: a template is being made (a fork, the
 * view's mounts, the shared Landlock layer), which on a loaded machine can
 * take seconds; a server that said it is working gets this long. */
#define SBX_WARM_BUILD_MS 60000
/* How long the report of pid 1's status may lag behind its last message. */
#define SBX_WARM_DONE_MS 10000

static uint64_t sbx_fnv(uint64_t h, const void *data, size_t n)
{
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

static uint64_t sbx_fnv_str(uint64_t h, const char *s)
{
  return s ? sbx_fnv(h, s, strlen(s) + 1) : sbx_fnv(h, "\xff", 1);
}

uint64_t sbx_profile_fingerprint(const struct cs_profile *p)
{
  uint64_t h = 0xcbf29ce484222325ull;
  uint32_t flags = (uint32_t)p->shell | (uint32_t)p->allow_network << 8 |
                   (uint32_t)p->allow_file_write << 9 | (uint32_t)p->allow_file_delete << 10;
  h = sbx_fnv_str(h, p->name);
  h = sbx_fnv(h, &flags, sizeof flags);
  for (uint32_t i = 0; i < p->n_allowed_paths; i++) {
    h = sbx_fnv_str(h, p->allowed_paths[i].path);
    h = sbx_fnv(h, &p->allowed_paths[i].access, sizeof p->allowed_paths[i].access);
  }
  h = sbx_fnv(h, "|", 1);
  for (uint32_t i = 0; i < p->n_denied_paths; i++) {
    h = sbx_fnv_str(h, p->denied_paths[i].path);
    h = sbx_fnv(h, &p->denied_paths[i].access, sizeof p->denied_paths[i].access);
  }
  h = sbx_fnv(h, &p->limits, sizeof p->limits);
  h = sbx_fnv(h, &p->approval_ops, sizeof p->approval_ops);
  /* A proxied profile's sandbox differs from a direct one's (its own
   * network namespace): never the same template. */
  h = sbx_fnv(h, &p->net_mode, sizeof p->net_mode);
  if (p->filter)
    h = sbx_fnv(h, p->filter, (size_t)p->filter_len * 8u);
  return h;
}

_Static_assert(RLIM_NLIMITS <= SBX_WARM_RLIMITS, "every resource limit fits the request");
_Static_assert(sizeof(cpu_set_t) == sizeof(((struct sbx_warm_req *)0)->cpus),
               "the affinity mask fits the request");

/* This process's settings a cold run's pid 1 would inherit (umask, nice,
 * OOM score adjustment, resource limits, CPU affinity). 0 or -errno. */
static int sbx_warm_settings(struct sbx_warm_req *h)
{
  mode_t m = umask(0);
  char buf[32];
  int fd, rc = 0;
  ssize_t n;
  umask(m);
  h->umask = (uint32_t)m;
  errno = 0;
  h->nice = getpriority(PRIO_PROCESS, 0);
  if (errno)
    return -errno;
  if ((fd = open("/proc/self/oom_score_adj", O_RDONLY | O_CLOEXEC)) < 0)
    return -errno;
  n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return -EIO;
  buf[n] = '\0';
  h->oom_score_adj = (int32_t)strtol(buf, NULL, 10);
  for (int r = 0; r < RLIM_NLIMITS && rc == 0; r++) {
    struct rlimit rl;
    if (getrlimit(r, &rl) < 0)
      rc = -errno;
    h->rlim[r][0] = rl.rlim_cur;
    h->rlim[r][1] = rl.rlim_max;
  }
  if (rc == 0 && sched_getaffinity(0, sizeof h->cpus, (cpu_set_t *)(void *)h->cpus) < 0)
    rc = -errno;
  return rc;
}

pid_t sbx_pidfd_pid(int pidfd)
{
  char path[64], line[128];
  FILE *f;
  int pid = -1;
  snprintf(path, sizeof path, "/proc/self/fdinfo/%d", pidfd);
  if (!(f = fopen(path, "re")))
    return -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "Pid: %d", &pid) == 1)
      break;
  fclose(f);
  return (pid_t)pid;
}

static int sbx_warm_decline(struct sbx_run_result *res, uint64_t tmax, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int sbx_warm_decline(struct sbx_run_result *res, uint64_t tmax, const char *fmt, ...)
{
  va_list ap;
  memset(res, 0, sizeof *res);
  res->denied_syscall = -1;
  res->timeout_ms = tmax;
  snprintf(res->start_path, sizeof res->start_path, "cold");
  va_start(ap, fmt);
  vsnprintf(res->start_note, sizeof res->start_note, fmt, ap);
  va_end(ap);
  return SBX_WARM_DECLINED;
}

/* Appends a NUL-terminated string; false when the request would be too big. */
static bool sbx_warm_put(char *buf, size_t *len, const char *s)
{
  size_t n = strlen(s) + 1;
  if (*len + n > SBX_WARM_MAX_REQ)
    return false;
  memcpy(buf + *len, s, n);
  *len += n;
  return true;
}

static int sbx_warm_connect(const char *path, char *why, size_t why_len)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  struct ucred cred;
  socklen_t cl = sizeof cred;
  int fd;
  if (strlen(path) >= sizeof sa.sun_path) {
    snprintf(why, why_len, "server socket path too long");
    return -ENAMETOOLONG;
  }
  strcpy(sa.sun_path, path);
  fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
    int e = errno;
    snprintf(why, why_len, "no server at %s (%s)", path, strerror(e));
    if (fd >= 0)
      close(fd);
    return -e;
  }
  /* Only a server of our own uid may start our runs: another user's
   * server could hand us any sandbox (or none). */
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) < 0 || cred.uid != geteuid()) {
    snprintf(why, why_len, "server at %s runs as uid %d, not %d: refused", path,
             cl == sizeof cred ? (int)cred.uid : -1, (int)geteuid());
    close(fd);
    return -EPERM;
  }
  return sbx_above_stdio(fd);
}

void sbx_msg_put_fds(struct msghdr *mh, void *cbuf, const int *fds, int n)
{
  struct cmsghdr *c;
  memset(cbuf, 0, CMSG_SPACE(sizeof(int) * (size_t)n));
  mh->msg_control = cbuf;
  mh->msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n);
  c = CMSG_FIRSTHDR(mh);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
  memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)n);
}

static int sbx_warm_send(int fd, const char *buf, size_t len, const int *fds, int n_fds)
{
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(sizeof(int) * SBX_WARM_FDS)];
  } cbuf;
  struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
  struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
  sbx_msg_put_fds(&mh, cbuf.buf, fds, n_fds);
  if (sendmsg(fd, &mh, MSG_NOSIGNAL) != (ssize_t)len)
    return -errno;
  return 0;
}

/* One reply, waiting at most ms; *pidfd gets a passed descriptor (or -1). */
static int sbx_warm_reply(int fd, struct sbx_warm_reply *r, int *pidfd, int ms)
{
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(sizeof(int))];
  } cbuf;
  struct iovec iov = { .iov_base = r, .iov_len = sizeof *r };
  struct msghdr mh = {
    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf.buf, .msg_controllen = sizeof cbuf.buf
  };
  struct pollfd pfd = { .fd = fd, .events = POLLIN };
  uint64_t end = sbx_now_ms() + (uint64_t)ms;
  ssize_t n;
  int rc;
  if (pidfd)
    *pidfd = -1;
  for (;;) {
    uint64_t now = sbx_now_ms();
    if (now >= end)
      return -ETIMEDOUT;
    rc = poll(&pfd, 1, (int)(end - now));
    if (rc < 0 && errno == EINTR)
      continue;
    if (rc < 0)
      return -errno;
    if (rc > 0)
      break;
  }
  n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
  if (n < 0)
    return -errno;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
        c->cmsg_len == CMSG_LEN(sizeof(int))) {
      int passed;
      memcpy(&passed, CMSG_DATA(c), sizeof passed);
      if (pidfd && *pidfd < 0)
        *pidfd = passed;
      else
        close(passed);
    }
  if (n != (ssize_t)sizeof *r || r->magic != SBX_WARM_MAGIC) {
    if (pidfd && *pidfd >= 0) {
      close(*pidfd);
      *pidfd = -1;
    }
    return n == 0 ? -ECONNRESET : -EPROTO;
  }
  r->note[sizeof r->note - 1] = '\0';
  return 0;
}

int sbx_warm_wait_gone(int pidfd)
{
  struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
  uint64_t end = sbx_now_ms() + SBX_WARM_DONE_MS;
  for (;;) {
    uint64_t now = sbx_now_ms();
    int rc;
    if (now >= end)
      return -ETIMEDOUT;
    rc = poll(&pfd, 1, (int)(end - now));
    if (rc > 0)
      return 0;
    if (rc < 0 && errno != EINTR)
      return -errno;
  }
}

int sbx_warm_wait_done(int server, int init_pidfd, int *status)
{
  struct sbx_warm_reply r;
  (void)init_pidfd;
  if (sbx_warm_reply(server, &r, NULL, SBX_WARM_DONE_MS) < 0 || r.kind != SBX_WARM_DONE)
    return -EIO;
  *status = r.status;
  return 0;
}

/* Root with CAP_SYS_ADMIN in its effective set, as sbx_probe_for_run
 * decides it. Read with capget(2) itself: this file is part of the static
 * front end too, which links no libcap (docs/dependencies.md); it only
 * reads one bit, every change of capabilities still goes through libcap. */
bool sbx_warm_caller_ok(void)
{
  struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
  struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
  if (geteuid() != 0 || syscall(SYS_capget, &h, d) != 0)
    return false;
  return (d[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective & CAP_TO_MASK(CAP_SYS_ADMIN)) != 0;
}

int sbx_warm_run(const struct sbx_run_request *req, uint64_t tmax, struct sbx_run_result *res)
{
  struct sbx_features feat0 = { 0 }, *feat = &feat0;
  struct sbx_plan envp = { 0 };
  struct sbx_cgroup cg = { .join_fd = -1 };
  struct sbx_warm_req *hdr;
  struct sbx_warm_reply reply;
  char ws[PATH_MAX], why[160], cgerr[sizeof(struct sbx_fail) + 64];
  struct sbx_fail f;
  char *buf = NULL;
  const char *home = getenv("HOME");
  size_t len = sizeof *hdr;
  struct stat st;
  int server = -1, kmsg = -1, sv[2] = { -1, -1 }, sync_pipe[2] = { -1, -1 }, pidfd = -1;
  int fds[SBX_WARM_FDS], n_fds = 5, one = 1, null_fd = -1, rc;
  uint64_t t0;

  /* The template's view is built without a user namespace: a server of
   * an unprivileged user could not mount a fresh /proc in it. */
  if (!(feat->root = sbx_warm_caller_ok()))
    return sbx_warm_decline(res, tmax, "warm start needs sbx to run as root");
  if (!realpath(req->workspace, ws) || stat(ws, &st) < 0 || !S_ISDIR(st.st_mode))
    return sbx_warm_decline(res, tmax, "workspace does not resolve");
  /* A template's processes start in the workspace root, where its view
   * was built: another working directory is the cold path's. */
  if (req->cwd)
    return sbx_warm_decline(res, tmax, "working directory other than the workspace root");
  /* A template's view is the profile's; one more path is this run's own. */
  if (req->extra_path)
    return sbx_warm_decline(res, tmax, "an extra path (--add-path)");
  /* The proxy's listeners are made inside the run's own network
   * namespace and served by this process: the cold path's job. */
  if (sbx_net_proxied(req->profile))
    return sbx_warm_decline(res, tmax, "a proxied network is served by the cold path");
  /* The server plans a persistent home from the client's HOME alone
   * (runtime/plan/sbx_plan_home.c); a state directory named by the
   * client's XDG_STATE_HOME is the cold path's, so the view is the same
   * either way. */
  if (req->profile->n_home_persistent && getenv("XDG_STATE_HOME") &&
      getenv("XDG_STATE_HOME")[0] == '/')
    return sbx_warm_decline(res, tmax, "a persistent home under XDG_STATE_HOME");
  if (!(buf = malloc(SBX_WARM_MAX_REQ)))
    return sbx_warm_decline(res, tmax, "out of memory");
  /* The environment is the client's (its allowlisted variables), computed
   * by the same function as the cold path's. */
  envp.profile = req->profile;
  envp.workspace = ws;
  rc = sbx_plan_environment(&envp, req);
  envp.workspace = NULL;
  if (rc < 0) {
    sbx_warm_decline(res, tmax, "environment: %s", strerror(-rc));
    goto declined;
  }
  hdr = (struct sbx_warm_req *)buf;
  memset(hdr, 0, sizeof *hdr);
  hdr->magic = SBX_WARM_MAGIC;
  hdr->version = SBX_WARM_VERSION;
  hdr->profile_fp = sbx_profile_fingerprint(req->profile);
  hdr->ws_dev = st.st_dev;
  hdr->ws_ino = st.st_ino;
  hdr->uid = geteuid();
  hdr->gid = getegid();
  hdr->flags = req->flags;
  if ((rc = sbx_warm_settings(hdr)) < 0) {
    sbx_warm_decline(res, tmax, "process settings: %s", strerror(-rc));
    goto declined;
  }
  bool fits = sbx_warm_put(buf, &len, req->profile->name ? req->profile->name : "") &&
              sbx_warm_put(buf, &len, ws) && sbx_warm_put(buf, &len, home ? home : "");
  for (char *const *a = req->argv; fits && *a; a++, hdr->n_argv++)
    fits = sbx_warm_put(buf, &len, *a);
  for (size_t i = 0; fits && i < envp.n_env; i++, hdr->n_env++)
    fits = sbx_warm_put(buf, &len, envp.envp[i]);
  if (!fits) {
    sbx_warm_decline(res, tmax, "request larger than %u bytes", SBX_WARM_MAX_REQ);
    goto declined;
  }
  if ((server = sbx_warm_connect(req->warm_socket, why, sizeof why)) < 0) {
    sbx_warm_decline(res, tmax, "%s", why);
    goto declined;
  }
  /* From here on as the cold path: cgroup, control channel (the kernel
   * log once the request is sent). */
  if ((rc = sbx_cgroup_create(req->profile, feat, &cg, &f)) < 0) {
    sbx_fail_format(&f, cgerr, sizeof cgerr);
    sbx_warm_decline(res, tmax, "%s", cgerr);
    goto declined;
  }
  /* As root without a cgroup nothing bounds the processes: the cold path
   * refuses such a run (sbx_profile_enforceable) and says why. */
  if (cg.mode == SBX_CGROUP_NONE && req->profile->limits.max_processes) {
    sbx_warm_decline(res, tmax, "no usable cgroup");
    goto declined;
  }
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0 ||
      (sv[0] = sbx_above_stdio(sv[0])) < 0 || (sv[1] = sbx_above_stdio(sv[1])) < 0 ||
      setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0 ||
      pipe2(sync_pipe, O_CLOEXEC) < 0 || (sync_pipe[0] = sbx_above_stdio(sync_pipe[0])) < 0 ||
      (sync_pipe[1] = sbx_above_stdio(sync_pipe[1])) < 0) {
    sbx_warm_decline(res, tmax, "control channel: %s", strerror(errno));
    goto declined;
  }
  /* A closed stdio descriptor is /dev/null for the command, as the cold
   * path's command makes it (runtime/confine/sbx_sandbox.c); a descriptor must be sent. */
  for (int i = 0; i < 3; i++) {
    fds[i] = i;
    if (fcntl(i, F_GETFD) < 0 && errno == EBADF) {
      if (null_fd < 0 && (null_fd = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0)
        null_fd = sbx_above_stdio(null_fd);
      fds[i] = null_fd;
    }
  }
  fds[3] = sv[1];
  fds[4] = sync_pipe[0];
  if (cg.join_fd >= 0)
    fds[n_fds++] = cg.join_fd;
  hdr->n_fds = (uint32_t)n_fds;
  t0 = sbx_now_ms();
  if ((rc = sbx_warm_send(server, buf, len, fds, n_fds)) < 0) {
    sbx_warm_decline(res, tmax, "sending the request: %s", strerror(-rc));
    goto declined;
  }
  /* The sandbox holds its own copies now (or none: then EOF below). */
  close(sv[1]);
  sv[1] = -1;
  close(sync_pipe[0]);
  sync_pipe[0] = -1;
  /* The kernel-log cursor while the server checks the template: it only
   * has to exist before the go, when the command may start to be
   * refused. */
  if (!(req->flags & SBX_RUN_NO_KMSG))
    kmsg = sbx_above_stdio(sbx_kmsg_open());
  rc = sbx_warm_reply(server, &reply, &pidfd, SBX_WARM_REPLY_MS);
  if (rc == 0 && reply.kind == SBX_WARM_BUILDING) {
    if (pidfd >= 0)
      close(pidfd);
    rc = sbx_warm_reply(server, &reply, &pidfd, SBX_WARM_BUILD_MS);
  }
  if (rc < 0) {
    sbx_warm_decline(res, tmax, "server did not answer: %s", strerror(-rc));
    goto declined;
  }
  if (reply.kind != SBX_WARM_STARTED || pidfd < 0 || reply.init_pid <= 0) {
    sbx_warm_decline(res, tmax, "server: %s",
                     reply.kind == SBX_WARM_REFUSED ? reply.note : "unexpected answer");
    goto declined;
  }
  /* v2: pid 1 is moved into the run's cgroup before it may fork (it
   * waits for 'g'); v1: it joins by itself through the passed file. */
  if (cg.join_fd < 0 && (rc = sbx_cgroup_attach(&cg, reply.init_pid)) < 0) {
    sbx_warm_decline(res, tmax, "cgroup: attaching pid %d: %s", (int)reply.init_pid, strerror(-rc));
    goto kill_declined;
  }
  /* The attach went by pid number: it named pid 1 only if the pidfd is
   * that pid's and pid 1 (waiting for the go) is still running now, so
   * the number was never reused in between. */
  {
    struct pollfd pp = { .fd = pidfd, .events = POLLIN };
    if (sbx_pidfd_pid(pidfd) != reply.init_pid || poll(&pp, 1, 0) != 0) {
      sbx_warm_decline(res, tmax, "pid %d is not the run's pid 1 any more", (int)reply.init_pid);
      goto kill_declined;
    }
  }
  /* v2: so is the spare's pre-forked command (it waits for pid 1's go,
   * which follows ours); v1: it joins by itself, as pid 1. */
  if (cg.join_fd < 0 && reply.cmd_pid > 0 && (rc = sbx_cgroup_attach(&cg, reply.cmd_pid)) < 0) {
    sbx_warm_decline(res, tmax, "cgroup: attaching pid %d: %s", (int)reply.cmd_pid, strerror(-rc));
    goto kill_declined;
  }
  /* The admission slot now lasts as long as the sandbox (sbx_admit.h);
   * not tied, nothing runs: the cold path tries again and says why. */
  if (req->on_init && req->on_init(req->on_init_ctx, reply.init_pid) != 0) {
    sbx_warm_decline(res, tmax, "admission: the slot could not be tied to pid %d",
                     (int)reply.init_pid);
    goto kill_declined;
  }
  /* The go only once the server said STARTED: a request it answers late
   * (after we gave up and ran cold) then finds the sync pipe closed and
   * pid 1 exits without running anything; the command never runs twice.
   * Two bytes: one for pid 1, one for the spare's pre-forked command,
   * which each join the run's cgroup themselves and so need not wait for
   * each other. */
  if (write(sync_pipe[1], "gg", 2) != 2) {
    sbx_warm_decline(res, tmax, "releasing the sandbox: %s", strerror(errno));
    goto kill_declined;
  }
  close(sync_pipe[1]);
  sync_pipe[1] = -1;
  snprintf(res->cgroup_info, sizeof res->cgroup_info, "%s", cg.info);
  struct sbx_sup sup = { .ctl = sv[0],
                         .init = reply.init_pid,
                         .init_pidfd = pidfd,
                         .server = server,
                         .t0 = t0,
                         .tmax = tmax,
                         .wait_gone = sbx_warm_wait_gone,
                         .wait_done = sbx_warm_wait_done };
  rc = sbx_supervise(&sup, req, res, kmsg);
  if (res->outcome == SBX_OUTCOME_FAILED && sup.fail_before_ready &&
      !(req->interrupted && req->interrupted())) {
    /* A layer reported failing in the warm sandbox before the command
     * said READY: nothing was executed, the cold path decides (and
     * reports) instead. */
    char note[sizeof res->start_note];
    snprintf(note, sizeof note, "warm start failed before exec: %.120s", res->message);
    sbx_warm_decline(res, tmax, "%s", note);
    rc = SBX_WARM_DECLINED;
  } else {
    /* Anything else after the go (pid 1 ended without a report: the
     * server stopped or crashed, the run was killed) may have executed
     * the command: report it, never run it a second time cold. */
    if (res->outcome == SBX_OUTCOME_FAILED) {
      char msg[sizeof res->message];
      snprintf(msg, sizeof msg, "warm start: %.380s (not rerun cold: the command may have run)",
               res->message);
      snprintf(res->message, sizeof res->message, "%s", msg);
      res->exit_code = SBX_EXIT_FAILURE;
    }
    snprintf(res->start_path, sizeof res->start_path, "warm");
    snprintf(res->start_note, sizeof res->start_note, "%s",
             res->outcome == SBX_OUTCOME_FAILED ? "failed after start" : reply.note);
  }
  goto cleanup;

kill_declined:
  syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
declined:
  rc = SBX_WARM_DECLINED;
cleanup:
  if (pidfd >= 0)
    close(pidfd);
  if (server >= 0)
    close(server);
  for (int i = 0; i < 2; i++) {
    if (sv[i] >= 0)
      close(sv[i]);
    if (sync_pipe[i] >= 0)
      close(sync_pipe[i]);
  }
  if (kmsg >= 0)
    close(kmsg);
  if (null_fd >= 0)
    close(null_fd);
  sbx_cgroup_destroy(&cg);
  sbx_plan_free(&envp);
  free(buf);
  return rc;
}

int sbx_warm_confine(const struct sbx_run_request *req, struct sbx_run_result *res)
{
  struct sigaction old_chld;
  bool restore_chld;
  uint64_t tmax;
  int rc;
  if ((rc = sbx_confine_begin(req, res, &tmax)) < 0)
    return rc;
  if (!req->warm_socket)
    return SBX_WARM_DECLINED;
  /* As sbx_confine_run: the server reaps pid 1, but a SIGCHLD ignored by
   * our caller would still be inherited by nothing of ours; defaulted for
   * the run like the cold path does, restored after. */
  restore_chld = sbx_sigchld_default(&old_chld);
  rc = sbx_warm_run(req, tmax, res);
  if (restore_chld)
    sigaction(SIGCHLD, &old_chld, NULL);
  return rc;
}
