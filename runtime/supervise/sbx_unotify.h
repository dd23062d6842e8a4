/* sbx_unotify: the system-call layer of the approval workflow
 * (docs/approvals.md, "System-call layer").
 *
 * The sandboxed process loads a second, small seccomp filter whose only
 * non-allow action is SECCOMP_RET_USER_NOTIF, for the calls that delete
 * (unlink, unlinkat, rmdir, rename, renameat, renameat2) when the profile
 * approves `delete`, and that reach an address (connect, sendto with a
 * destination, every sendmsg and sendmmsg) or choose where a socket
 * listens (bind, listen) when it approves `network` (which also refuses
 * routing-header setsockopts and io_uring: sbx_unotify_net.c), and that
 * open a file for
 * writing (open, openat, creat, truncate; openat2 always) when it
 * approves `git-config`. The kernel runs every filter
 * and applies the strictest action: the profile's ERRNO or KILL for a call
 * still wins over NOTIFY, so approval never widens a profile.
 *
 * The supervisor receives each call, copies its pointer arguments ONCE
 * (process_vm_readv), checks the notification is still live, takes the
 * process's root, cwd and descriptors (/proc/TID/root, /proc/TID/cwd,
 * pidfd_getfd), asks the approval manager and then PERFORMS the call
 * itself in a helper process that has the sandboxed process's root,
 * uids/gids, no capabilities and (via the confine hook) its Landlock
 * rules, replying with the helper's result (an IP sendmsg of plain data
 * is sent by the supervisor itself: sbx_un_msg_direct says why that is
 * the same). For those calls it never
 * answers SECCOMP_USER_NOTIF_FLAG_CONTINUE: the process's memory may
 * change between our check and the kernel's second read
 * (seccomp_unotify(2)). The one exception is a write-open that does not
 * name a git configuration file (sbx_unotify_open.c): a swapped path
 * then meets the read-only bind mount, which still refuses it.
 *
 * Errors: negative errno; -ENOSYS when the kernel or libseccomp lacks
 * user notification. */
#ifndef CS_RUNTIME_SBX_UNOTIFY_H
#define CS_RUNTIME_SBX_UNOTIFY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "cs_approval.h"
#include "cs_profile_table.h"

struct sbx_freeze;

/* A git configuration file the system-call layer guards (git-config):
 * .git/config, config.worktree of the workspace's repository, of a linked
 * worktree's common dir, of submodules. Identified by (dev, ino) so that
 * any name the sandbox reaches it by (hard link, symlink, ../) is
 * recognised; opened again through `dirfd` (the directory, held since
 * before the command ran) + `name` when an approved write needs it. */
struct sbx_unotify_gitfile {
  int dirfd;        /* O_PATH, taken with RESOLVE_NO_SYMLINKS */
  char name[32];    /* "config", "config.worktree" */
  char shown[4096]; /* the path shown to the approver */
  dev_t dev;
  ino_t ino;
  nlink_t nlink; /* > 1: other names may reach it outside the mount */
};

struct sbx_made;

struct sbx_unotify_cfg {
  struct cs_approval_mgr *mgr; /* required */
  const char *profile;
  char *const *argv; /* the command the sandbox was started with */
  uint32_t ops;      /* CS_APPROVE_* bits the filter was built for */
  /* CS_APPROVE_* bits a human already approved for this whole command at
   * the command layer (`rm -rf build` was approved: its unlinks are not
   * asked about one by one). Still performed by the supervisor. */
  uint32_t preapproved;
  /* The caller's /tmp is a private file system that dies with the run
   * (sbx's sandbox): deleting there is not asked about, since nothing of
   * it outlives the run (compilers delete temporaries on every call). */
  bool private_tmp;
  /* delete: when the run started (CLOCK_REALTIME, taken before anything
   * of the command ran; run_start_set false: unknown). Known, removing an
   * inode born after it (statx btime) is free, and a rename that replaces
   * a file is a write, never asked; unknown, every removal and every
   * replacing rename is asked (docs/approvals.md, "What counts as a
   * deletion"). */
  bool run_start_set;
  struct timespec run_start;
  /* delete: when earlier runs of the workspace were going (sbx_made.h;
   * NULL: unknown). An inode born and last changed inside those spans
   * (or in this run) was made by a run: its removal is free. The
   * supervisor stamps this run's start into it. */
  struct sbx_made *made;
  /* delete: the sandbox's persistent home directories as the command
   * sees them (sbx's caches, kept between runs: docs/confinement.md,
   * "Home"), NULL with 0 when none. What is removed on their mounts is
   * cache, no one's work: free. */
  const char *const *kept_dirs;
  size_t n_kept_dirs;
  /* Run in each helper after it took the process's root and ids, before
   * the operation (sbx: the profile's Landlock rules). 0 or -errno. */
  int (*confine)(void *arg);
  void *confine_arg;
  /* Told the pid of each helper process right after it is forked (from the
   * serving thread), so that refusals in the helper's own Landlock domain
   * can be named after the run (sbx: sbx_unotify_sbx.c). May be NULL. */
  void (*helper_started)(void *arg, pid_t helper);
  void *helper_arg;
  /* git-config: the files whose write-opens are asked about; every other
   * notified write-open is answered CONTINUE (sound only because the
   * read-only bind mounts and Landlock keep enforcing: see
   * sbx_unotify_open.c and docs/approvals.md, "TOCTOU"). */
  const struct sbx_unotify_gitfile *git;
  size_t n_git;
  /* The run's cgroup directory (v2: helpers are created in it with
   * CLONE_INTO_CGROUP; v1: they join its `tasks` before anything else),
   * so that their CPU, memory and pids count as the run's. NULL: none. */
  const char *helper_cgroup;
  /* CPU time (ns) the supervisor may spend serving this run's notified
   * calls (its threads and helpers); once spent, every notified call is
   * refused with EPERM. sbx: the profile's maxCpuTime. 0: unbounded. */
  uint64_t cpu_budget_ns;
  /* The workspace as the command sees it (shown paths inside it are
   * relative to it), or NULL. */
  const char *workspace;
  /* The terminal approver's guard (sbx_freeze.h), armed by
   * sbx_confine_run with the run's cgroup; NULL when the approver does
   * not use the terminal. */
  struct sbx_freeze *freeze;
  /* The caller's name for the run (sbx run --run-id), put in every
   * request so an approver can tell runs apart; NULL: none. */
  const char *run_id;
  /* The directory the command started in, for every request; NULL: none. */
  const char *cwd;
};

/* Test only: "1" in sbx's environment leaves run_start unknown, so that a
 * test can show what the rule changes (every deletion asked, as before
 * issue 13). sbx says so on stderr. */
#define SBX_DELETE_TEST_AS_BEFORE_ENV "SBX_TEST_DELETE_AS_BEFORE"
/* Test only: "1" leaves the directory lock out (sbx_un_lock_dir), so that
 * workflow_swap can show the race it closes. sbx says so on stderr. */
#define SBX_DELETE_TEST_NO_LOCK_ENV "SBX_TEST_DELETE_NO_DIR_LOCK"

/* Adds the git configuration file at host path `path` (absolute, no
 * symlink anywhere in it: RESOLVE_NO_SYMLINKS) to *arr. 0, -ENOENT when
 * it does not exist, -ELOOP for a symlink, -ENOMEM, -errno. */
int sbx_unotify_git_add(struct sbx_unotify_gitfile **arr, size_t *n, const char *path);
void sbx_unotify_git_free(struct sbx_unotify_gitfile *arr, size_t n);

/* Which CS_APPROVE_* bits the system-call layer handles. */
#define SBX_UNOTIFY_OPS                                                                            \
  (CS_APPROVE_FILE_DELETE | CS_APPROVE_EXTERNAL_NETWORK | CS_APPROVE_GIT_CONFIG)

/* Compiles the notify filter for `ops` (libseccomp) into a buffer of this
 * process, so that a child forked afterwards loads it without allocating.
 * 0, -EINVAL (no op the layer handles), -ENOMEM, -EIO. */
int sbx_unotify_prepare(uint32_t ops);

/* In the process to be confined, after no_new_privs: loads the notify
 * filter for `ops` and returns the listener (>= 0), which the caller must
 * hand to the supervisor and CLOSE before running anything untrusted (a
 * process holding its own listener could answer its own calls).
 * 0 ops: -EINVAL. */
int sbx_unotify_install(uint32_t ops);

/* Handing the listener over. The filter notifies sendmsg, so the
 * listener cannot travel by SCM_RIGHTS (the sendmsg would wait for a
 * supervisor that does not have the listener yet). Instead:
 *   child:      sbx_unotify_install(); tell the supervisor with write(2);
 *               sbx_unotify_barrier(); close(listener)
 *   supervisor: sbx_unotify_pull(child's pid) -> its own listener; serve.
 * The barrier is a call every notify filter stops (sendmmsg of no
 * message) and the supervisor answers 0: when it returns, the supervisor
 * holds the listener, and the child's copy may be closed. */
int sbx_unotify_pull(pid_t pid);
void sbx_unotify_barrier(void);

/* Supervisor: serves notifications until every process of the filter is
 * gone (the listener hangs up) or stop_fd (may be -1) becomes readable.
 * Returns 0, or -errno when the listener failed; pending calls then fail
 * with ENOSYS in the sandbox (the kernel's answer without a listener). */
int sbx_unotify_serve(int listener, const struct sbx_unotify_cfg *cfg, int stop_fd);

#endif
