/* sbx_features: what the running kernel offers, and whether a profile can
 * be enforced on it. `sbx check` prints both; sbx_confine_run refuses a
 * profile this file says cannot be enforced (fail closed: a missing layer
 * is a refusal, never a quieter sandbox). */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sbx_confine.h"
#include "sbx_cgroup.h"
#include "sbx_landlock.h"
#include "sbx_mount.h"
#include "sbx_sandbox.h"

#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#define SBX_SECCOMP_FLAG_TSYNC (1ul << 0)
#define SBX_SECCOMP_FLAG_LOG (1ul << 1)
#define SBX_SECCOMP_FLAG_SPEC_ALLOW (1ul << 2)
#define SBX_SECCOMP_FLAG_NEW_LISTENER (1ul << 3)
#define SBX_SECCOMP_FLAG_WAIT_KILLABLE_RECV (1ul << 5)

/* A flag the kernel knows makes seccomp() fail on the NULL program with
 * EFAULT; an unknown flag fails earlier with EINVAL. Nothing is loaded. */
static bool sbx_seccomp_flag(unsigned long flags)
{
  return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, NULL) < 0 && errno == EFAULT;
}

/* Tries unshare(flags) in a short-lived child. */
static bool sbx_try_unshare(int flags)
{
  struct sigaction saved;
  bool restore = sbx_sigchld_default(&saved), ok = false;
  pid_t pid = fork();
  int st;
  if (pid == 0)
    _exit(unshare(flags) == 0 ? 0 : 1);
  if (pid > 0 && waitpid(pid, &st, 0) == pid)
    ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
  if (restore)
    sigaction(SIGCHLD, &saved, NULL);
  return ok;
}

static int sbx_probe(struct sbx_features *f, bool full);

int sbx_probe_features(struct sbx_features *f)
{
  return sbx_probe(f, true);
}

/* For a run: the user-namespace probe (a fork) is skipped when sbx is root,
 * which does not need one. */
int sbx_probe_for_run(struct sbx_features *f)
{
  return sbx_probe(f, false);
}

static int sbx_probe(struct sbx_features *f, bool full)
{
  static const struct {
    const char *name;
    size_t off;
  } ns[] = {
    { "user", offsetof(struct sbx_features, ns_user) },
    { "mnt", offsetof(struct sbx_features, ns_mount) },
    { "pid", offsetof(struct sbx_features, ns_pid) },
    { "ipc", offsetof(struct sbx_features, ns_ipc) },
    { "uts", offsetof(struct sbx_features, ns_uts) },
    { "net", offsetof(struct sbx_features, ns_net) },
    { "cgroup", offsetof(struct sbx_features, ns_cgroup) },
  };
  char path[64];
  cap_t caps;
  int fd, abi;

  memset(f, 0, sizeof *f);
  caps = cap_get_proc();
  if (caps) {
    cap_flag_value_t v = CAP_CLEAR;
    cap_get_flag(caps, CAP_SYS_ADMIN, CAP_EFFECTIVE, &v);
    f->root = geteuid() == 0 && v == CAP_SET;
    cap_free(caps);
  }
  for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
    snprintf(path, sizeof path, "/proc/self/ns/%s", ns[i].name);
    *(bool *)((char *)f + ns[i].off) = access(path, F_OK) == 0;
  }
  f->userns_usable = f->ns_user && (full || !f->root) && sbx_try_unshare(CLONE_NEWUSER);

  f->seccomp_filter = prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 && sbx_seccomp_flag(0);
  if (f->seccomp_filter) {
    f->seccomp_tsync = sbx_seccomp_flag(SBX_SECCOMP_FLAG_TSYNC);
    f->seccomp_log = sbx_seccomp_flag(SBX_SECCOMP_FLAG_LOG);
    f->seccomp_spec_allow = sbx_seccomp_flag(SBX_SECCOMP_FLAG_SPEC_ALLOW);
    f->seccomp_new_listener = sbx_seccomp_flag(SBX_SECCOMP_FLAG_NEW_LISTENER);
    f->seccomp_wait_killable_recv =
        sbx_seccomp_flag(SBX_SECCOMP_FLAG_NEW_LISTENER | SBX_SECCOMP_FLAG_WAIT_KILLABLE_RECV);
  }
  abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0, SBX_LL_CREATE_RULESET_VERSION);
  f->landlock_abi = abi > 0 ? abi : 0;
  /* first > last: closes nothing, but ENOSYS tells an old kernel apart. */
  f->close_range = syscall(SYS_close_range, ~0u, ~0u - 1, 0) == 0 || errno != ENOSYS;
  f->mount_setattr = syscall(SYS_mount_setattr, -1, "", 0, NULL, 0) == 0 || errno != ENOSYS;
  fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  f->kmsg_readable = fd >= 0;
  if (fd >= 0)
    close(fd);
  f->io_uring_disabled = -1;
  fd = open("/proc/sys/kernel/io_uring_disabled", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    char b[8] = { 0 };
    if (read(fd, b, sizeof b - 1) > 0)
      f->io_uring_disabled = b[0] - '0';
    close(fd);
  }
  f->cgroup = sbx_cgroup_detect(f->cgroup_detail, sizeof f->cgroup_detail);
  return 0;
}

static const char *sbx_yn(bool b)
{
  return b ? "yes" : "no";
}

void sbx_features_describe(const struct sbx_features *f, FILE *out)
{
  fprintf(out, "privileges: %s\n",
          f->root ? "root (no user namespace needed; every capability is still dropped)"
                  : "unprivileged (a user namespace is required)");
  fprintf(out, "namespaces: user=%s (usable=%s) mount=%s pid=%s ipc=%s uts=%s net=%s cgroup=%s\n",
          sbx_yn(f->ns_user), sbx_yn(f->userns_usable), sbx_yn(f->ns_mount), sbx_yn(f->ns_pid),
          sbx_yn(f->ns_ipc), sbx_yn(f->ns_uts), sbx_yn(f->ns_net), sbx_yn(f->ns_cgroup));
  fprintf(out,
          "seccomp: filter=%s tsync=%s log=%s spec_allow=%s new_listener=%s "
          "wait_killable_recv=%s\n",
          sbx_yn(f->seccomp_filter), sbx_yn(f->seccomp_tsync), sbx_yn(f->seccomp_log),
          sbx_yn(f->seccomp_spec_allow), sbx_yn(f->seccomp_new_listener),
          sbx_yn(f->seccomp_wait_killable_recv));
  if (f->landlock_abi)
    fprintf(out, "landlock: ABI %d%s%s%s\n", f->landlock_abi,
            f->landlock_abi >= 3 ? " (truncate)" : "", f->landlock_abi >= 4 ? " (TCP)" : "",
            f->landlock_abi >= 6 ? " (signal and abstract unix scoping)" : "");
  else
    fprintf(out, "landlock: unavailable (profiles that need it are refused)\n");
  fprintf(out, "mount_setattr: %s  close_range: %s\n", sbx_yn(f->mount_setattr),
          sbx_yn(f->close_range));
  fprintf(out, "kernel log (names refused syscalls): %s\n",
          f->kmsg_readable ? "readable" : "not readable (refusals reported without the call)");
  fprintf(out, "io_uring_disabled: %d\n", f->io_uring_disabled);
  fprintf(out, "cgroup: %s: %s\n",
          f->cgroup == SBX_CGROUP_V2   ? "v2"
          : f->cgroup == SBX_CGROUP_V1 ? "v1 pids"
                                       : "none (rlimits only)",
          f->cgroup_detail);
  {
    char why[200];
    bool ok = sbx_cgroup_freezer_detect(why, sizeof why);
    fprintf(out, "terminal approvals (--approver tty, run frozen while asking): %s: %s\n",
            ok ? "yes" : "no, not asked (use exec: or socket:)", why);
  }
}

int sbx_profile_landlock_abi(const struct cs_profile *p)
{
  /* 3: truncate(2) is otherwise uncontrolled, so a read-only rule would
   *    not stop a file from being emptied;
   * 4: TCP bind/connect when the network is blocked;
   * 6: when the network is allowed the network namespace is shared, and
   *    only Landlock scoping keeps the host's abstract unix sockets (and
   *    signals) out of reach. */
  return p->allow_network ? 6 : 4;
}

int sbx_profile_enforceable(const struct cs_profile *p, const struct sbx_features *f, char *why,
                            size_t why_len)
{
  int need;
  if (!p || !p->filter || p->filter_len == 0) {
    snprintf(why, why_len, "seccomp: profile %s has no compiled filter",
             p && p->name ? p->name : "?");
    return -EINVAL;
  }
  if (!f->seccomp_filter) {
    snprintf(why, why_len, "seccomp: the kernel has no seccomp filter mode");
    return -ENOTSUP;
  }
  if (!f->root && !f->userns_usable) {
    snprintf(why, why_len,
             "user namespace: sbx is not root and cannot create a user namespace "
             "(kernel.unprivileged_userns_clone / user.max_user_namespaces)");
    return -ENOTSUP;
  }
  if (!f->ns_mount || !f->ns_pid || !f->ns_ipc || !f->ns_uts || !f->ns_cgroup ||
      ((!p->allow_network || sbx_net_proxied(p)) && !f->ns_net)) {
    snprintf(why, why_len, "namespaces: the kernel lacks %s namespaces",
             !f->ns_mount    ? "mount"
             : !f->ns_pid    ? "pid"
             : !f->ns_ipc    ? "ipc"
             : !f->ns_uts    ? "uts"
             : !f->ns_cgroup ? "cgroup"
                             : "network");
    return -ENOTSUP;
  }
  if (!f->mount_setattr) {
    snprintf(why, why_len,
             "mount: mount_setattr (Linux 5.12) is needed for recursive "
             "read-only binds");
    return -ENOTSUP;
  }
  /* RLIMIT_NPROC does not apply to uid 0 (the kernel exempts the root
   * user), so as root only a pids cgroup enforces maxProcesses. */
  if (f->root && f->cgroup == SBX_CGROUP_NONE && p->limits.max_processes) {
    snprintf(why, why_len,
             "cgroup: sbx runs as root and no pids cgroup is usable, so maxProcesses (%llu) "
             "cannot be enforced (RLIMIT_NPROC does not apply to uid 0); run sbx unprivileged "
             "or give it a cgroup with the pids controller",
             (unsigned long long)p->limits.max_processes);
    return -ENOTSUP;
  }
  need = sbx_profile_landlock_abi(p);
  if (f->landlock_abi < need) {
    snprintf(why, why_len, "landlock: profile %s needs ABI %d (%s), the kernel offers %s%d",
             p->name ? p->name : "?", need,
             need >= 6 ? "abstract unix socket and signal scoping" : "TCP bind/connect control",
             f->landlock_abi ? "ABI " : "none: ", f->landlock_abi);
    return -ENOTSUP;
  }
  snprintf(why, why_len, "every layer available (Landlock ABI %d needed, %d present)", need,
           f->landlock_abi);
  return 0;
}
