/* sbx_container: the container backend (see sbx_container.h).
 *
 * The engine is told everything; nothing is left to its defaults that
 * would give the command more than the profile does: its default seccomp
 * profile, capabilities, network and writable root are each replaced by
 * an explicit option. What cannot be checked before the run (the engine
 * refusing an option) comes back as the engine's own 125, which is a
 * refusal too: nothing ran. */
#include "sbx_container.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cs_approval_ops.h"
#include "sbx_signal.h"

/* Enough for every option of the largest profile table; a profile that
 * needs more is refused, never run with some of its masks missing. */
#define SBX_CT_ARGS_MAX 512
#define SBX_CT_STR_MAX 8192

struct sbx_ct_argv {
  char *argv[SBX_CT_ARGS_MAX];
  int n;
  char buf[SBX_CT_STR_MAX * 4];
  size_t used;
  bool full;
};

__attribute__((format(printf, 2, 3))) static void ct_add(struct sbx_ct_argv *a, const char *fmt,
                                                         ...)
{
  va_list ap;
  int len;

  if (a->full || a->n >= SBX_CT_ARGS_MAX - 1) {
    a->full = true;
    return;
  }
  va_start(ap, fmt);
  len = vsnprintf(a->buf + a->used, sizeof a->buf - a->used, fmt, ap);
  va_end(ap);
  if (len < 0 || (size_t)len >= sizeof a->buf - a->used) {
    a->full = true;
    return;
  }
  a->argv[a->n++] = a->buf + a->used;
  a->argv[a->n] = NULL;
  a->used += (size_t)len + 1;
}

__attribute__((format(printf, 3, 4))) static void
ct_fail(struct sbx_run_result *res, enum sbx_layer layer, const char *fmt, ...)
{
  va_list ap;

  res->outcome = SBX_OUTCOME_FAILED;
  res->exit_code = SBX_EXIT_FAILURE;
  res->layer = layer;
  va_start(ap, fmt);
  vsnprintf(res->message, sizeof res->message, fmt, ap);
  va_end(ap);
}

/* An executable NAME in PATH, copied to out; 0 or -ENOENT. */
static int ct_which(const char *name, char *out, size_t size)
{
  const char *path = getenv("PATH");
  const char *p = path ? path : "/usr/bin:/bin";

  if (strchr(name, '/')) {
    snprintf(out, size, "%s", name);
    return access(out, X_OK) == 0 ? 0 : -ENOENT;
  }
  while (*p) {
    size_t len = strcspn(p, ":");
    if (len && (size_t)snprintf(out, size, "%.*s/%s", (int)len, p, name) < size &&
        access(out, X_OK) == 0)
      return 0;
    p += len;
    if (*p == ':')
      p++;
  }
  return -ENOENT;
}

/* A rule's path with ${WORKSPACE} and ~ expanded; 0, or -1 when it cannot
 * be (no HOME, too long). */
static int ct_expand(const char *rule, const char *workspace, char *out, size_t size)
{
  const char *home = getenv("HOME");
  int n;

  if (strncmp(rule, "${WORKSPACE}", 12) == 0)
    n = snprintf(out, size, "%s%s", workspace, rule + 12);
  else if (rule[0] == '~' && (rule[1] == '/' || !rule[1])) {
    if (!home || home[0] != '/')
      return -1;
    n = snprintf(out, size, "%s%s", home, rule + 1);
  } else
    n = snprintf(out, size, "%s", rule);
  return n > 0 && (size_t)n < size ? 0 : -1;
}

/* The image's own system: the image provides these (read-only, with the
 * root), and the engine provides /proc and /dev; the host's copies are
 * never mounted over them. */
static bool ct_system_path(const char *path)
{
  static const char *const sys[] = { "/usr", "/lib",  "/lib64", "/bin", "/sbin", "/etc",
                                     "/opt", "/proc", "/dev",   "/sys", "/tmp" };
  if (strcmp(path, "/") == 0)
    return true;
  for (size_t i = 0; i < sizeof sys / sizeof sys[0]; i++) {
    size_t len = strlen(sys[i]);
    if (strncmp(path, sys[i], len) == 0 && (path[len] == '\0' || path[len] == '/'))
      return true;
  }
  return false;
}

/* path is the workspace or lies under it. */
static bool ct_under(const char *path, const char *dir)
{
  size_t len = strlen(dir);
  return strncmp(path, dir, len) == 0 && (path[len] == '\0' || path[len] == '/');
}

/* --ulimit=NAME=V:V, V the profile's value (0: none) no higher than
 * sbx's own hard limit: a process cannot raise it, here or in the local
 * backend, and once one --ulimit is given podman sets every other one to
 * a default above what the machine may allow, so each is always given. */
static void ct_ulimit(struct sbx_ct_argv *a, const char *name, int resource, uint64_t value)
{
  struct rlimit rl;
  unsigned long long v = value;

  if (getrlimit(resource, &rl) == 0 && rl.rlim_max != RLIM_INFINITY &&
      (!v || v > (unsigned long long)rl.rlim_max))
    v = (unsigned long long)rl.rlim_max;
  if (v)
    ct_add(a, "--ulimit=%s=%llu:%llu", name, v, v);
}

/* The confinement options: what the profile says, as the engine's flags. */
static int ct_options(const struct sbx_container_request *rq, const char *seccomp, bool podman,
                      struct sbx_ct_argv *a, struct sbx_run_result *res)
{
  const struct cs_profile *p = rq->profile;
  const struct cs_limits *l = &p->limits;
  char path[4096];

  /* The profile's filter replaces the engine's default one. */
  ct_add(a, "--security-opt=seccomp=%s", seccomp);
  /* setuid programs in the image gain nothing; no capability is kept. */
  ct_add(a, "--security-opt=no-new-privileges");
  ct_add(a, "--cap-drop=all");
  ct_add(a, "--read-only");
  /* The caller's ids: what the command writes in the workspace is the
   * caller's, and it is never the image's root by default. */
  ct_add(a, "--user=%u:%u", (unsigned)getuid(), (unsigned)getgid());
  /* A direct profile gets the engine's network; a proxied one none at
   * all (stricter than sbx's own proxy, docs/sbx.md); any other none. */
  if (!(p->allow_network && p->net_mode == CS_NET_DIRECT))
    ct_add(a, "--network=none");
  if (l->max_memory_bytes) {
    /* The cgroup's limit, swap included: RLIMIT_AS is per process, the
     * container's memory is the whole run's. */
    ct_add(a, "--memory=%llu", (unsigned long long)l->max_memory_bytes);
    ct_add(a, "--memory-swap=%llu", (unsigned long long)l->max_memory_bytes);
  }
  /* Processes by the cgroup: RLIMIT_NPROC counts the uid's processes on
   * the whole host, not the run's. */
  if (l->max_processes)
    ct_add(a, "--pids-limit=%llu", (unsigned long long)l->max_processes);
  /* Also as RLIMIT_NPROC, as the local backend sets it. */
  ct_ulimit(a, "nproc", RLIMIT_NPROC, l->max_processes);
  ct_ulimit(a, "nofile", RLIMIT_NOFILE, l->max_open_files);
  ct_ulimit(a, "fsize", RLIMIT_FSIZE, l->max_file_size);
  ct_ulimit(a, "cpu", RLIMIT_CPU, l->max_cpu_seconds);
  /* The workspace at its own path, read-only unless the profile writes. */
  ct_add(a, "--volume=%s:%s:%s", rq->workspace, rq->workspace, p->allow_file_write ? "rw" : "ro");
  ct_add(a, "--workdir=%s", rq->cwd ? rq->cwd : rq->workspace);
  for (uint32_t i = 0; i < p->n_allowed_paths; i++) {
    const struct cs_path_rule *r = &p->allowed_paths[i];
    struct stat st;
    if (ct_expand(r->path, rq->workspace, path, sizeof path) != 0 || strpbrk(path, "*?[,:") ||
        ct_system_path(path) || ct_under(path, rq->workspace) || stat(path, &st) != 0)
      continue;
    /* Mounted read-only unless this rule writes: the profile's read is
     * never widened to a write by the engine's default. */
    ct_add(a, "--volume=%s:%s:%s", path, path, (r->access & CS_PATH_WRITE) ? "rw" : "ro");
  }
  for (uint32_t i = 0; i < p->n_denied_paths; i++) {
    const struct cs_path_rule *r = &p->denied_paths[i];
    struct stat st;
    if (ct_expand(r->path, rq->workspace, path, sizeof path) != 0) {
      /* A denial that cannot be placed is not dropped. */
      ct_fail(res, SBX_LAYER_MOUNT, "container: denied path %s (%s) cannot be expanded", r->path,
              r->origin ? r->origin : "?");
      return -1;
    }
    if (strpbrk(path, ",:")) {
      ct_fail(res, SBX_LAYER_MOUNT, "container: denied path %s cannot be masked (',' or ':')",
              path);
      return -1;
    }
    /* podman's masks are laid by the runtime after every mount, so one
     * inside the workspace's mount is never covered by it; they also
     * hide what the image itself has there. */
    if (podman) {
      ct_add(a, "--security-opt=mask=%s", path);
      continue;
    }
    if (stat(path, &st) != 0)
      continue; /* nothing of the host's there to hide */
    /* docker has no masks: a directory under an empty read-only tmpfs, a
     * file under the null device (docker orders mounts by depth). */
    if (S_ISDIR(st.st_mode))
      ct_add(a, "--tmpfs=%s:ro,size=4k,mode=000", path);
    else
      ct_add(a, "--volume=/dev/null:%s:ro", path);
  }
  for (const char *const *e = rq->set_env; e && *e; e++)
    ct_add(a, "--env=%s", *e);
  for (const char *const *e = rq->pass_env; e && *e; e++)
    if (getenv(*e))
      ct_add(a, "--env=%s=%s", *e, getenv(*e));
  if (a->full) {
    ct_fail(res, SBX_LAYER_REQUEST, "container: the profile needs more engine options than fit");
    return -1;
  }
  return 0;
}

static uint64_t ct_now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Runs the engine's `kill` and `rm` on the container: the engine's client
 * going away does not stop the container it started. */
static void ct_stop(const char *engine, const char *name)
{
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
      dup2(null, 1);
      dup2(null, 2);
    }
    execl(engine, engine, "rm", "-f", "-t", "0", name, (char *)NULL);
    _exit(127);
  }
  if (pid > 0)
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
      ;
}

/* Waits for the client until the deadline; 0 with *status, 1 timed out,
 * 2 interrupted by a signal sbx handles. */
static int ct_wait(pid_t pid, uint64_t deadline_ms, int *status)
{
  int pfd = (int)syscall(SYS_pidfd_open, pid, 0);

  for (;;) {
    pid_t w = waitpid(pid, status, WNOHANG);
    if (w == pid) {
      if (pfd >= 0)
        close(pfd);
      return 0;
    }
    if (sbx_signal_received()) {
      if (pfd >= 0)
        close(pfd);
      return 2;
    }
    uint64_t now = ct_now_ms();
    if (deadline_ms && now >= deadline_ms) {
      if (pfd >= 0)
        close(pfd);
      return 1;
    }
    int wait_ms = deadline_ms ? (int)(deadline_ms - now > 1000 ? 1000 : deadline_ms - now) : 1000;
    if (pfd >= 0) {
      struct pollfd pf = { .fd = pfd, .events = POLLIN };
      poll(&pf, 1, wait_ms);
    } else {
      /* No pidfd (before Linux 5.3): a short sleep per round. */
      struct timespec ts = { 0, 5 * 1000000L };
      nanosleep(&ts, NULL);
    }
  }
}

/* Refuses what the engine cannot confine as the profile says. */
static int ct_preflight(const struct sbx_container_request *rq, const char *engine_path,
                        const char *seccomp, struct sbx_run_result *res)
{
  struct stat st;
  const struct cs_profile *p = rq->profile;

  /* The kernel's own seccomp: without it the engine would run the
   * command unfiltered (runc ignores a profile it cannot load only when
   * seccomp is compiled out; we never depend on which). */
  if (access("/proc/sys/kernel/seccomp/actions_avail", R_OK) != 0) {
    ct_fail(res, SBX_LAYER_SECCOMP, "container: this kernel has no seccomp filter support");
    return -1;
  }
  if (stat(seccomp, &st) != 0 || !S_ISREG(st.st_mode)) {
    ct_fail(res, SBX_LAYER_SECCOMP,
            "container: no OCI seccomp profile %s for profile '%s' (pnetc --emit oci --profile "
            "%s; $%s)",
            seccomp, p->name, p->name, SBX_CONTAINER_SECCOMP_ENV);
    return -1;
  }
  /* Rootless podman needs the caller's subordinate ids; without them it
   * cannot make the user namespace the container lives in. */
  if (getuid() != 0 && strstr(engine_path, "podman")) {
    FILE *f = fopen("/etc/subuid", "r");
    bool found = false;
    char line[256];
    const char *user = getenv("USER");
    while (f && user && fgets(line, sizeof line, f))
      if (strncmp(line, user, strlen(user)) == 0 && line[strlen(user)] == ':')
        found = true;
    if (f)
      fclose(f);
    if (!found) {
      ct_fail(res, SBX_LAYER_USERNS,
              "container: rootless podman needs a subordinate uid range for %s in /etc/subuid",
              user ? user : "this user");
      return -1;
    }
  }
  /* Connections the profile approves by address happen at sbx's own
   * system-call layer, which the container does not have. */
  if (p->allow_network && p->net_mode == CS_NET_DIRECT &&
      (p->approval_ops & CS_APPROVE_EXTERNAL_NETWORK)) {
    ct_fail(res, SBX_LAYER_NAMESPACES,
            "container: profile '%s' asks a person about connections, which the container "
            "backend cannot do",
            p->name);
    return -1;
  }
  return 0;
}

int sbx_container_run(const struct sbx_container_request *rq, struct sbx_run_result *res,
                      const char **image_out)
{
  static struct sbx_ct_argv a;
  char engine[4096], seccomp[4096], name[64];
  const char *image = rq->image ? rq->image : getenv(SBX_CONTAINER_IMAGE_ENV);
  const char *dir = getenv(SBX_CONTAINER_SECCOMP_ENV);
  const char *want = getenv(SBX_CONTAINER_ENGINE_ENV);
  uint64_t start = ct_now_ms();
  int status = 0, w;
  pid_t pid;

  memset(&a, 0, sizeof a);
  res->timeout_ms = rq->timeout_ms;
  *image_out = image && *image ? image : NULL;
  if (!*image_out) {
    ct_fail(res, SBX_LAYER_REQUEST, "container: no image: pass --image or set $%s",
            SBX_CONTAINER_IMAGE_ENV);
    return 0;
  }
  if (want && *want ? ct_which(want, engine, sizeof engine) != 0
                    : ct_which("podman", engine, sizeof engine) != 0 &&
                          ct_which("docker", engine, sizeof engine) != 0) {
    ct_fail(res, SBX_LAYER_NAMESPACES, "container: no container runtime (%s not found)",
            want && *want ? want : "podman or docker");
    return 0;
  }
  if (!dir || !*dir) {
    ct_fail(res, SBX_LAYER_SECCOMP, "container: no OCI seccomp profiles: set $%s",
            SBX_CONTAINER_SECCOMP_ENV);
    return 0;
  }
  if ((size_t)snprintf(seccomp, sizeof seccomp, "%s/%s.json", dir, rq->profile->name) >=
      sizeof seccomp) {
    ct_fail(res, SBX_LAYER_SECCOMP, "container: seccomp profile path too long");
    return 0;
  }
  if (ct_preflight(rq, engine, seccomp, res) != 0)
    return 0;
  /* Named, so that a timeout or an interruption can remove it. */
  snprintf(name, sizeof name, "sbx-%ld-%llu", (long)getpid(), (unsigned long long)start);
  ct_add(&a, "%s", engine);
  ct_add(&a, "run");
  ct_add(&a, "--rm");
  ct_add(&a, "--interactive");
  ct_add(&a, "--name=%s", name);
  if (ct_options(rq, seccomp, strstr(engine, "podman") != NULL, &a, res) != 0)
    return 0;
  /* Everything after the image is the command's, options included. */
  ct_add(&a, "%s", image);
  for (char *const *v = rq->argv; *v; v++)
    ct_add(&a, "%s", *v);
  if (a.full) {
    ct_fail(res, SBX_LAYER_REQUEST, "container: the command line is too long");
    return 0;
  }
  pid = fork();
  if (pid < 0) {
    ct_fail(res, SBX_LAYER_SUPERVISOR, "container: fork: %s", strerror(errno));
    return 0;
  }
  if (pid == 0) {
    execv(engine, a.argv);
    _exit(127);
  }
  w = ct_wait(pid, rq->timeout_ms ? start + rq->timeout_ms : 0, &status);
  if (w != 0) {
    ct_stop(engine, name);
    kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
      ;
  }
  res->elapsed_ms = ct_now_ms() - start;
  if (w == 1) {
    res->outcome = SBX_OUTCOME_TIMED_OUT;
    res->exit_code = SBX_EXIT_TIMEOUT;
    return 0;
  }
  if (w == 2 || WIFSIGNALED(status)) {
    res->outcome = SBX_OUTCOME_SIGNALED;
    res->status = w == 2 ? sbx_signal_received() : WTERMSIG(status);
    res->exit_code = SBX_EXIT_SIGNAL_BASE + res->status;
    return 0;
  }
  status = WEXITSTATUS(status);
  /* The engine's own statuses (podman run(1), docker run(1)): 125 it
   * failed, so nothing ran; 126 and 127 the command could not be run;
   * 128+N the command was killed by signal N; else the command's own. */
  if (status == SBX_EXIT_FAILURE)
    ct_fail(res, SBX_LAYER_NAMESPACES, "container: %s run failed (its message above); nothing ran",
            strrchr(engine, '/') ? strrchr(engine, '/') + 1 : engine);
  else if (status == SBX_EXIT_NOT_EXECUTABLE || status == SBX_EXIT_NOT_FOUND) {
    res->outcome = SBX_OUTCOME_EXEC_FAILED;
    res->exit_code = status;
    res->layer = SBX_LAYER_EXEC;
    snprintf(res->message, sizeof res->message, "%s: %s in the container", rq->argv[0],
             status == SBX_EXIT_NOT_FOUND ? "not found" : "cannot be run");
  } else if (status > SBX_EXIT_SIGNAL_BASE && status < SBX_EXIT_SIGNAL_BASE + 65) {
    res->outcome = SBX_OUTCOME_SIGNALED;
    res->status = status - SBX_EXIT_SIGNAL_BASE;
    res->exit_code = status;
  } else {
    res->outcome = SBX_OUTCOME_EXITED;
    res->status = status;
    res->exit_code = status;
  }
  return 0;
}
