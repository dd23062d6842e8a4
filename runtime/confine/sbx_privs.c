/* sbx_privs: the last steps before execve in the command's process:
 * resource limits, no_new_privs, capabilities and securebits, the seccomp
 * filter. Order matters and is fixed by sbx_sandbox.c: rlimits, nnp,
 * Landlock, capabilities, the address-space limit (after sbx's last
 * allocation), seccomp (last, so sbx's own setup calls need not be allowed
 * by the profile's filter). */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/securebits.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sbx_plan.h"
#include "sbx_privs.h"

#ifndef SECCOMP_FILTER_FLAG_LOG
#define SECCOMP_FILTER_FLAG_LOG (1ul << 1)
#endif

static int sbx_rlimit(int res, const char *name, uint64_t soft, uint64_t hard, struct sbx_fail *f)
{
  struct rlimit rl = { .rlim_cur = soft, .rlim_max = hard };
  struct rlimit old;
  /* Never raise a limit the caller already had lower. */
  if (getrlimit(res, &old) == 0) {
    if (old.rlim_max != RLIM_INFINITY && rl.rlim_max > old.rlim_max)
      rl.rlim_max = old.rlim_max;
    if (rl.rlim_cur > rl.rlim_max)
      rl.rlim_cur = rl.rlim_max;
  }
  if (setrlimit(res, &rl) < 0) {
    sbx_fail_set(f, SBX_LAYER_RLIMIT, errno, "setrlimit(%s, %llu): %s", name,
                 (unsigned long long)soft, strerror(errno));
    return -errno;
  }
  return 0;
}

int sbx_rlimits_apply(const struct sbx_plan *plan, struct sbx_fail *f)
{
  const struct cs_limits *l = &plan->profile->limits;
  int rc = 0;
  /* No core files: a core dump of a process that read secrets would write
   * them into the workspace. */
  if ((rc = sbx_rlimit(RLIMIT_CORE, "RLIMIT_CORE", 0, 0, f)) < 0)
    return rc;
  /* CPU: SIGXCPU at the limit (a program may save its work), SIGKILL one
   * second later. */
  if (l->max_cpu_seconds && (rc = sbx_rlimit(RLIMIT_CPU, "RLIMIT_CPU", l->max_cpu_seconds,
                                             l->max_cpu_seconds + 1, f)) < 0)
    return rc;
  /* RLIMIT_NPROC counts every process of the real uid on the host: for a
   * command that becomes the workspace's owner (sbx is root), the
   * owner's own processes outside would count, and above the limit even
   * the identity change makes execve fail (EAGAIN). There the pids
   * cgroup, which sbx requires as root (sbx_profile_enforceable), is the
   * limit, counting the run's processes only. */
  if (l->max_processes && !plan->run_as &&
      (rc = sbx_rlimit(RLIMIT_NPROC, "RLIMIT_NPROC", l->max_processes, l->max_processes, f)) < 0)
    return rc;
  if (l->max_open_files && (rc = sbx_rlimit(RLIMIT_NOFILE, "RLIMIT_NOFILE", l->max_open_files,
                                            l->max_open_files, f)) < 0)
    return rc;
  if (l->max_file_size &&
      (rc = sbx_rlimit(RLIMIT_FSIZE, "RLIMIT_FSIZE", l->max_file_size, l->max_file_size, f)) < 0)
    return rc;
  return 0;
}

/* The address-space limit, apart from the others and applied last, right
 * before the seccomp filter (sbx_command_exec): after it sbx's own code in
 * the command's process allocates nothing. Applied earlier, every later
 * malloc of sbx's (libcap's sets, the warm request's argv) had to fit the
 * profile's limit, and an AddressSanitizer build, whose shadow mappings
 * alone exceed any such limit, could not map one more page ("Failed to
 * mmap" aborts under load). Nothing of the command runs before execve, so
 * the command is limited from its first instruction either way. */
/* What the limit counts: the memory a process writes. RLIMIT_DATA (its
 * heap, anonymous and private writable mappings: what a malloc bomb
 * grows) is the profile's maxMemory. The address space, RLIMIT_AS, gets
 * SBX_AS_RESERVE_HEADROOM more: runtimes reserve address space they never
 * touch, and a maxMemory-sized RLIMIT_AS refused them (V8 reserves 10 GiB
 * of inaccessible guard space per WebAssembly memory, so Node's own fetch,
 * whose HTTP parser is WebAssembly, failed under every profile with "could
 * not allocate memory"). The price: shared writable mappings (memfd,
 * MAP_SHARED), which RLIMIT_DATA does not count, may grow to the headroom;
 * the run's total is bounded only by a memory cgroup (docs/confinement.md,
 * "Resource limits"). */
#define SBX_AS_RESERVE_HEADROOM (64ull << 30)

int sbx_memory_limit_apply(const struct cs_profile *p, struct sbx_fail *f)
{
  uint64_t max = p->limits.max_memory_bytes, as;
  int rc;
  if (max == 0)
    return 0;
  as = max > UINT64_MAX - SBX_AS_RESERVE_HEADROOM ? UINT64_MAX : max + SBX_AS_RESERVE_HEADROOM;
  if ((rc = sbx_rlimit(RLIMIT_DATA, "RLIMIT_DATA", max, max, f)) < 0)
    return rc;
  return sbx_rlimit(RLIMIT_AS, "RLIMIT_AS", as, as, f);
}

int sbx_nnp_apply(struct sbx_fail *f)
{
  /* Set-uid/set-gid bits and file capabilities are ignored by every later
   * execve, and Landlock and seccomp may then be applied without
   * CAP_SYS_ADMIN. It cannot be undone. */
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
    sbx_fail_set(f, SBX_LAYER_CAPS, errno, "PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
    return -errno;
  }
  return 0;
}

int sbx_caps_drop_bound(struct sbx_fail *f)
{
  const char *what;
  cap_value_t n = (cap_value_t)cap_max_bits();

  /* Securebits first (needs CAP_SETPCAP): uid 0 gets no capabilities from
   * execve (NOROOT), changing uids does not restore any (NO_SETUID_FIXUP),
   * ambient capabilities cannot be raised, and every bit is locked so the
   * command cannot turn them back. */
  what = "securebits";
  if (cap_set_secbits(SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                      SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
                      SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED) < 0)
    goto fail_errno;
  /* Ambient set empty; the locked NO_CAP_AMBIENT_RAISE above keeps it so
   * until execve, which is why this belongs here, before a warm request
   * (libcap asks the kernel about each capability: ~40 prctl calls). */
  what = "ambient set";
  if (cap_reset_ambient() < 0 && errno != EINVAL)
    goto fail_errno;
  /* Bounding set empty: no later execve of any file can bring one back. */
  what = "bounding set";
  for (cap_value_t c = 0; c < n; c++)
    if (cap_drop_bound(c) < 0 && errno != EINVAL)
      goto fail_errno;
  /* Check: a kernel or libcap that silently kept one would be a hole. No
   * capability can ever return to the bounding set, so this holds until
   * execve. */
  what = "verify";
  for (cap_value_t c = 0; c < n; c++)
    if (cap_get_bound(c) > 0) {
      errno = EPERM;
      goto fail_errno;
    }
  return 0;
fail_errno:
  sbx_fail_set(f, SBX_LAYER_CAPS, errno, "dropping capabilities (%s): %s", what, strerror(errno));
  return -errno;
}

int sbx_identity_apply(const struct sbx_plan *p, struct sbx_fail *f)
{
  const char *what;
  if (!p->run_as)
    return 0;
  /* Raw system calls: glibc's wrappers would signal every thread of the
   * process to change theirs too (there is only this one), and this runs
   * after the bounding set is gone, where SECBIT_NO_SETUID_FIXUP keeps
   * the permitted set through the change (sbx_caps_drop_bound): the
   * capability sets are emptied right after, by the caller. Groups
   * first (changing them needs the uid that may). No supplementary
   * groups: root's would give the command every file of theirs, the
   * owner's are not needed to work on the owner's files. */
  what = "setgroups";
  if (syscall(SYS_setgroups, 0, NULL) < 0)
    goto fail_errno;
  what = "setresgid";
  if (syscall(SYS_setresgid, p->run_gid, p->run_gid, p->run_gid) < 0)
    goto fail_errno;
  what = "setresuid";
  if (syscall(SYS_setresuid, p->run_uid, p->run_uid, p->run_uid) < 0)
    goto fail_errno;
  /* A change of credentials clears the parent-death signal. */
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  /* Check: every id is the new one (a kernel that kept one would leave
   * the command able to switch back to root). */
  {
    uid_t r, e, s;
    gid_t rg, eg, sg;
    what = "verify";
    if (getresuid(&r, &e, &s) < 0 || getresgid(&rg, &eg, &sg) < 0)
      goto fail_errno;
    if (r != p->run_uid || e != p->run_uid || s != p->run_uid || rg != p->run_gid ||
        eg != p->run_gid || sg != p->run_gid || getgroups(0, NULL) != 0) {
      errno = EPERM;
      goto fail_errno;
    }
  }
  return 0;
fail_errno:
  sbx_fail_set(f, SBX_LAYER_CAPS, errno, "running as uid %u gid %u (%s): %s", (unsigned)p->run_uid,
               (unsigned)p->run_gid, what, strerror(errno));
  return -errno;
}

int sbx_caps_drop_sets(struct sbx_fail *f)
{
  cap_t empty = NULL, now = NULL;
  const char *what;
  int rc = 0;

  /* Effective, permitted and inheritable empty (the ambient set went
   * with the bounding set, sbx_caps_drop_bound; the kernel keeps it a
   * subset of permitted and inheritable, so it is empty twice over). */
  what = "capability sets";
  if (!(empty = cap_init()) || cap_set_proc(empty) < 0)
    goto fail_errno;
  what = "verify";
  if (!(now = cap_get_proc()))
    goto fail_errno;
  if (cap_compare(now, empty) != 0) {
    errno = EPERM;
    goto fail_errno;
  }
  goto cleanup;
fail_errno:
  rc = -errno;
  sbx_fail_set(f, SBX_LAYER_CAPS, errno, "dropping capabilities (%s): %s", what, strerror(errno));
cleanup:
  if (empty)
    cap_free(empty);
  if (now)
    cap_free(now);
  return rc;
}

int sbx_seccomp_load(const struct cs_profile *p, bool log, struct sbx_fail *f)
{
  struct sock_fprog prog;
  if (!p->filter || p->filter_len == 0 || p->filter_len > BPF_MAXINSNS) {
    sbx_fail_set(f, SBX_LAYER_SECCOMP, EINVAL, "profile %s has no usable seccomp filter",
                 p->name ? p->name : "?");
    return -EINVAL;
  }
  prog.len = (unsigned short)p->filter_len;
  prog.filter = (struct sock_filter *)p->filter;
  /* FLAG_LOG: the kernel also logs refused (not only killed) calls, which
   * is how sbx names the call and the rule afterwards (sbx_kmsg.c). */
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, log ? SECCOMP_FILTER_FLAG_LOG : 0, &prog) < 0) {
    sbx_fail_set(f, SBX_LAYER_SECCOMP, errno, "loading the filter of profile %s: %s",
                 p->name ? p->name : "?", strerror(errno));
    return -errno;
  }
  return 0;
}
