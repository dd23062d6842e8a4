/* sbx_unotify_charge: the supervisor's work for a run, charged to the run
 * (docs/approvals.md, "Cost charged to the run").
 *
 * Every notified call the supervisor performs runs in a helper process it
 * forks, and the serving threads do the copying and classifying. Left
 * alone that work is sbx's, outside the run's cgroup and outside the
 * command's RLIMIT_CPU: sixteen threads calling unlink("missing") kept
 * most of a 2-CPU machine busy in sbx while the command's own CPU limit
 * never fired. Two measures:
 *
 *   - the helpers are created inside the run's cgroup (v2: clone3 with
 *     CLONE_INTO_CGROUP, which takes only the read side of the kernel's
 *     threadgroup lock, like any fork; v1: the child writes "0" into the
 *     run's `tasks` first, which moves only itself without that lock), so
 *     their CPU, memory and process count are the run's: pids.max and
 *     memory.max bound them, and the run's cpu.stat shows them;
 *   - a CPU budget: the helpers' CPU (their rusage at wait4) and the
 *     serving threads' (CLOCK_THREAD_CPUTIME_ID, which includes the
 *     fork's copying done in the parent) are added up per run; once the
 *     sum passes cfg->cpu_budget_ns (sbx: the profile's maxCpuTime, the
 *     budget the command has for itself) every further notified call is
 *     refused with EPERM, without forking, and sbx says so once. A
 *     command cannot make sbx spend more CPU on its behalf than it may
 *     spend itself. */
#include "sbx_diag.h"
#include "sbx_unotify_op.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif
#define SBX_UN_CGROUP2_MAGIC 0x63677270

struct sbx_un_charge {
  int cgroup_fd; /* v2: the cgroup directory, for CLONE_INTO_CGROUP; -1 */
  int tasks_fd;  /* v1: the cgroup's `tasks`, written by the child; -1 */
  uint64_t budget_ns;
  _Atomic uint64_t spent_ns;
  atomic_flag told;
};

int sbx_un_charge_open(struct sbx_un_charge **out, const struct sbx_unotify_cfg *cfg)
{
  struct sbx_un_charge *c = calloc(1, sizeof *c);
  struct statfs sf;
  char tasks[4200];
  int r = 0;

  *out = NULL;
  if (!c)
    return -ENOMEM;
  c->cgroup_fd = c->tasks_fd = -1;
  c->budget_ns = cfg->cpu_budget_ns;
  atomic_flag_clear(&c->told);
  if (cfg->helper_cgroup) {
    /* A cgroup named but not usable is an error, not a silent fallback
     * to uncharged helpers. */
    if (statfs(cfg->helper_cgroup, &sf) != 0) {
      r = -errno;
    } else if ((long)sf.f_type == SBX_UN_CGROUP2_MAGIC) {
      c->cgroup_fd = open(cfg->helper_cgroup, O_PATH | O_DIRECTORY | O_CLOEXEC);
      if (c->cgroup_fd < 0)
        r = -errno;
    } else {
      snprintf(tasks, sizeof tasks, "%s/tasks", cfg->helper_cgroup);
      c->tasks_fd = open(tasks, O_WRONLY | O_CLOEXEC);
      if (c->tasks_fd < 0)
        r = -errno;
    }
  }
  if (r != 0) {
    fprintf(sbx_diag(), "sbx: approval: the run's cgroup %s cannot take the helpers: %s\n",
            cfg->helper_cgroup, strerror(-r));
    sbx_un_charge_close(c);
    return r;
  }
  *out = c;
  return 0;
}

void sbx_un_charge_close(struct sbx_un_charge *c)
{
  if (!c)
    return;
  if (c->cgroup_fd >= 0)
    close(c->cgroup_fd);
  if (c->tasks_fd >= 0)
    close(c->tasks_fd);
  free(c);
}

pid_t sbx_un_charge_fork(struct sbx_un_charge *c)
{
  struct clone_args ca;
  long pid;

  if (!c || c->cgroup_fd < 0)
    return fork();
  memset(&ca, 0, sizeof ca);
  ca.flags = CLONE_INTO_CGROUP;
  ca.exit_signal = SIGCHLD;
  ca.cgroup = (uint64_t)c->cgroup_fd;
  /* Like fork (no CLONE_VM: the child has its own copy of memory), but
   * without glibc's fork handlers: the helper therefore calls no
   * allocator and changes its ids with raw system calls
   * (sbx_unotify_op.c). pids.max reached: EAGAIN, the call fails. */
  pid = syscall(SYS_clone3, &ca, sizeof ca);
  return (pid_t)pid;
}

int sbx_un_charge_child(struct sbx_un_charge *c)
{
  if (!c || c->tasks_fd < 0)
    return 0;
  /* "0": the writing thread itself (sbx_cgroup.c, sbx_cgroup_join). */
  return write(c->tasks_fd, "0", 1) == 1 ? 0 : -errno;
}

void sbx_un_charge_add(struct sbx_un_charge *c, uint64_t ns)
{
  if (c)
    atomic_fetch_add(&c->spent_ns, ns);
}

uint64_t sbx_un_thread_ns(void)
{
  struct timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
    return 0;
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

bool sbx_un_charge_spent(struct sbx_un_charge *c, const struct sbx_unotify_cfg *cfg)
{
  if (!c || !c->budget_ns || atomic_load(&c->spent_ns) < c->budget_ns)
    return false;
  if (!atomic_flag_test_and_set(&c->told))
    fprintf(sbx_diag(),
            "sbx: approval: refused: the supervisor spent the run's CPU budget (%.3f s, the "
            "profile's maxCpuTime; profile %s) on notified calls; every further one fails "
            "with EPERM (system-call layer)\n",
            (double)c->budget_ns / 1e9, cfg->profile ? cfg->profile : "?");
  return true;
}
