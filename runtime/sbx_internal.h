/* sbx_internal: what the confinement modules share. Not installed; the
 * public API is sbx_confine.h.
 *
 * Modules (one job each, prefix sbx_):
 *   sbx_plan.c     computes, in the supervisor before any fork, everything
 *                  the sandbox will be: mount entries, Landlock rules, env;
 *   sbx_mount.c    builds the private root from the plan (runs as pid 1);
 *   sbx_landlock.c the Landlock ruleset (runs in the command's process);
 *   sbx_privs.c    rlimits, no_new_privs, capabilities, securebits, seccomp;
 *   sbx_cgroup.c   optional cgroup limits (supervisor side);
 *   sbx_kmsg.c     finds the kernel's seccomp and Landlock audit records
 *                  of a run (the audit netlink group, or /dev/kmsg);
 *   sbx_denial.c   maps a Landlock record to the profile's rule;
 *   sbx_features.c feature probe and enforceability check;
 *   sbx_confine.c  the supervisor, pid 1 and the command's last steps. */
#ifndef CS_RUNTIME_SBX_INTERNAL_H
#define CS_RUNTIME_SBX_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sbx_confine.h"
#include "sbx_syscall_name.h"

/* Landlock constants newer than Debian 12's <linux/landlock.h> (6.1): the
 * kernel's values, so the ruleset uses the best ABI the running kernel has. */
#define SBX_LL_CREATE_RULESET_VERSION (1u << 0)
#define SBX_LL_RULE_PATH_BENEATH 1
#define SBX_LL_RULE_NET_PORT 2
#define SBX_LL_FS_EXECUTE (1ull << 0)
#define SBX_LL_FS_WRITE_FILE (1ull << 1)
#define SBX_LL_FS_READ_FILE (1ull << 2)
#define SBX_LL_FS_READ_DIR (1ull << 3)
#define SBX_LL_FS_REMOVE_DIR (1ull << 4)
#define SBX_LL_FS_REMOVE_FILE (1ull << 5)
#define SBX_LL_FS_MAKE_CHAR (1ull << 6)
#define SBX_LL_FS_MAKE_DIR (1ull << 7)
#define SBX_LL_FS_MAKE_REG (1ull << 8)
#define SBX_LL_FS_MAKE_SOCK (1ull << 9)
#define SBX_LL_FS_MAKE_FIFO (1ull << 10)
#define SBX_LL_FS_MAKE_BLOCK (1ull << 11)
#define SBX_LL_FS_MAKE_SYM (1ull << 12)
#define SBX_LL_FS_REFER (1ull << 13)    /* ABI 2 */
#define SBX_LL_FS_TRUNCATE (1ull << 14) /* ABI 3 */
#define SBX_LL_FS_IOCTL_DEV (1ull << 15) /* ABI 5 */
#define SBX_LL_NET_BIND_TCP (1ull << 0)    /* ABI 4 */
#define SBX_LL_NET_CONNECT_TCP (1ull << 1) /* ABI 4 */
#define SBX_LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ull << 0) /* ABI 6 */
#define SBX_LL_SCOPE_SIGNAL (1ull << 1)               /* ABI 6 */

/* Rights a file (not a directory) can carry in a path-beneath rule. */
#define SBX_LL_FS_FILE_RIGHTS                                                          \
  (SBX_LL_FS_EXECUTE | SBX_LL_FS_WRITE_FILE | SBX_LL_FS_READ_FILE | SBX_LL_FS_TRUNCATE | \
   SBX_LL_FS_IOCTL_DEV)
#define SBX_LL_FS_READ (SBX_LL_FS_READ_FILE | SBX_LL_FS_READ_DIR)
#define SBX_LL_FS_CREATE                                                              \
  (SBX_LL_FS_MAKE_CHAR | SBX_LL_FS_MAKE_DIR | SBX_LL_FS_MAKE_REG | SBX_LL_FS_MAKE_SOCK | \
   SBX_LL_FS_MAKE_FIFO | SBX_LL_FS_MAKE_BLOCK | SBX_LL_FS_MAKE_SYM)
#define SBX_LL_FS_WRITE                                                                \
  (SBX_LL_FS_WRITE_FILE | SBX_LL_FS_TRUNCATE | SBX_LL_FS_REFER | SBX_LL_FS_MAKE_DIR |    \
   SBX_LL_FS_MAKE_REG | SBX_LL_FS_MAKE_SYM | SBX_LL_FS_MAKE_FIFO | SBX_LL_FS_MAKE_SOCK)
#define SBX_LL_FS_DELETE (SBX_LL_FS_REMOVE_DIR | SBX_LL_FS_REMOVE_FILE)

/* Landlock rights the kernel with this ABI understands (0 for ABI 0). */
uint64_t sbx_ll_fs_rights(int abi);

/* The sandbox's PATH; the caller's PATH is not used because its entries
 * (pyenv shims, ~/bin) are not visible inside and could be attacker-chosen. */
#define SBX_SANDBOX_PATH "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"
/* HOME inside the sandbox: private, on the sandbox's own /tmp tmpfs. */
#define SBX_SANDBOX_HOME "/tmp/home"

enum sbx_mount_kind {
  SBX_MNT_BIND_RO = 0, /* bind the host path read-only, nosuid, nodev (recursive) */
  SBX_MNT_BIND_RW = 1, /* bind read-write, nosuid, nodev */
  SBX_MNT_SYMLINK = 2, /* recreate a symlink (its target resolves in the view) */
  SBX_MNT_MASK = 3,    /* hide: empty 0000 file or empty read-only tmpfs */
};

struct sbx_mount_entry {
  char *path;   /* absolute path, the same inside and outside */
  char *target; /* SYMLINK: link text */
  enum sbx_mount_kind kind;
  bool is_dir;
  const char *why; /* for error messages: "system", "workspace", "denied path rule" */
};

struct sbx_ll_rule {
  char *path;     /* inside the sandbox */
  uint64_t access; /* SBX_LL_FS_* rights, before masking by the ABI */
  bool optional;  /* skipped silently when absent inside the view */
  bool is_file;   /* known to be a regular file (per-file EXECUTE grants) */
};

/* A fact the plan was computed from, recorded (warm templates only) just
 * before the plan looked at it, so that a later change is seen (grep tag:
 * SBX_PROBE). */
enum sbx_probe_kind {
  SBX_PROBE_STAT = 0,    /* lstat: exists, file type, dev, ino */
  SBX_PROBE_LIST = 1,    /* ... and mtime/ctime: a listing or a content used */
  SBX_PROBE_RESOLVE = 2, /* realpath(path) gives the same result (or none) */
};
struct sbx_probe {
  char *path;
  char *real; /* RESOLVE: the result, NULL when it did not resolve */
  enum sbx_probe_kind kind;
  bool exists;
  dev_t dev;
  ino_t ino;
  mode_t type;
  struct timespec mtime, ctime, taken;
  /* sbx_watch_plan: a change of this fact would be an inotify event. */
  bool watched;
};

struct sbx_plan {
  const struct cs_profile *profile;
  char *workspace; /* resolved, absolute */
  bool workspace_writable;
  bool tmp_writable;
  bool net_blocked;
  bool shell_none;
  bool userns; /* sbx is not root */
  bool full_root;    /* an allowed path is "/": the host root is the view's base */
  bool full_root_rw; /* ... and it is writable */
  int landlock_abi;
  uint64_t timeout_ms;
  uid_t uid;
  gid_t gid;

  struct sbx_mount_entry *mounts;
  size_t n_mounts, cap_mounts;
  struct sbx_ll_rule *rules;
  size_t n_rules, cap_rules;
  char **envp;
  size_t n_env, cap_env;
  /* Warm templates: the facts behind the plan (sbx_plan_fresh). */
  bool record;
  bool probe_lost; /* a probe could not be recorded: never reuse the plan */
  struct sbx_probe *probes;
  size_t n_probes, cap_probes;
};

/* Fills *plan for req on a kernel with Landlock ABI `abi`. On failure
 * returns a negative errno and writes a message to err. */
int sbx_plan_build(const struct sbx_run_request *req, int abi, struct sbx_plan *plan,
                   char *err, size_t err_len);
void sbx_plan_free(struct sbx_plan *plan);
/* sbx_plan_build for a warm template: `home` replaces $HOME (the client's;
 * "" for none) and every fact the plan uses is recorded as a probe. */
int sbx_plan_build_warm(const struct sbx_run_request *req, int abi, const char *home,
                        struct sbx_plan *plan, char *err, size_t err_len);
/* true when every probe still holds (and none was lost); false on any
 * change or doubt (a timestamp too close to when it was taken to prove
 * nothing changed within the file system's clock granularity). `why`
 * names the first changed path. */
bool sbx_plan_fresh(const struct sbx_plan *plan, char *why, size_t why_len);
/* The same for the probes sbx_watch does not vouch for (!watched) only. */
bool sbx_plan_fresh_unwatched(const struct sbx_plan *plan, char *why, size_t why_len);

/* sbx_watch (sbx_watch.c): an inotify instance whose epoch changes with
 * every change seen in a watched directory. fd -1: vouches for nothing. */
struct sbx_watch {
  int fd;
  uint64_t epoch; /* 0: never vouches */
};
void sbx_watch_init(struct sbx_watch *w);
void sbx_watch_fini(struct sbx_watch *w);
/* Reads every queued event; the current epoch (0 once unusable). */
uint64_t sbx_watch_epoch(struct sbx_watch *w);
/* Watches every directory the plan's probes depend on and marks each
 * probe whose changes that covers (probe.watched). 0, or a negative errno
 * when the plan cannot be watched (then nothing may be vouched). */
int sbx_watch_plan(struct sbx_watch *w, struct sbx_plan *plan);
/* The sandbox's environment for req (allowlist, pass_env, sbx's own
 * PATH/HOME/PWD/SBX_PROFILE) into plan->envp; plan->profile and
 * plan->workspace must be set. */
int sbx_plan_environment(struct sbx_plan *p, const struct sbx_run_request *req);

/* Expands ${WORKSPACE} and a leading ~ of a profile path into out. */
int sbx_expand_path(const char *in, const char *workspace, const char *home, char *out,
                    size_t out_len);

/* A failure inside the sandbox's setup: layer, errno and a short text. */
struct sbx_fail {
  enum sbx_layer layer;
  int error;
  char text[320];
};

void sbx_fail_set(struct sbx_fail *f, enum sbx_layer layer, int error, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Runs as pid 1 of the new namespaces: builds the root view and pivots into
 * it. Returns 0 or -errno with *f filled. */
int sbx_mount_build(const struct sbx_plan *plan, struct sbx_fail *f);
/* Warm start (sbx_serve.c): the run-independent part of the same view, in
 * a template's own mount namespace: /proc, /tmp and /dev/shm are left as
 * empty mount points for each run's own. */
int sbx_mount_template(const struct sbx_plan *plan, struct sbx_fail *f);
/* Per run, in a private copy of a template's mount namespace: a fresh
 * /tmp (the plan's entries under /tmp moved onto it), /dev/shm and /proc,
 * exactly as sbx_mount_build makes them; then chdir to the workspace. */
int sbx_mount_fresh(const struct sbx_plan *plan, struct sbx_fail *f);
/* Can a template and sbx_mount_fresh reproduce this plan's view? (Not
 * over the host's root; no symlink entry under /tmp.) */
bool sbx_mount_warm_ok(const struct sbx_plan *plan);

/* In the command's process, after no_new_privs: restricts it with Landlock.
 * = sbx_landlock_ruleset + sbx_landlock_restrict. */
int sbx_landlock_apply(const struct sbx_plan *plan, struct sbx_fail *f);
/* Which rules a ruleset holds (grep tag: SBX_LL_PART).
 *   ALL     the plan's rules: the cold path's one layer.
 *   SHARED  warm, no-shell profiles: the plan's rules except those on a
 *           run's own /tmp, /dev/shm, /proc, plus every right but EXECUTE
 *           on "/". Built once per template (the ~1,000 per-file EXECUTE
 *           grants), restricted in each run second (the kernel copies an
 *           older layer's rules into every newer domain: small one first).
 *   RUN     warm: the plan's rules with each per-file grant replaced by
 *           its directory (once), built per run in its own view and
 *           restricted first.
 * Landlock allows an access only if every layer does, so SHARED+RUN allow
 * exactly what ALL allows: for EXECUTE, (dirs + files) AND (dirs + the
 * files' directories) = dirs + files; for every other right, SHARED allows
 * all and RUN holds the plan's rules (a file rule's other right,
 * READ_FILE, is also what the directory grant gives, and the bin
 * directories lie under /usr, readable in every no-shell profile). The
 * per-run rules are never in a shared ruleset: Landlock's path walk skips
 * mount points, so a rule naming one run's /tmp covers no other. */
enum sbx_ll_part { SBX_LL_ALL = 0, SBX_LL_SHARED = 1, SBX_LL_RUN = 2 };
/* The ruleset `part` of the plan, nobody restricted yet (*out, owned by
 * the caller). Paths are opened in the caller's current view. */
int sbx_landlock_ruleset(const struct sbx_plan *plan, enum sbx_ll_part part, int *out,
                         struct sbx_fail *f);
/* landlock_restrict_self with a finished ruleset (after no_new_privs). */
int sbx_landlock_restrict(int ruleset, int abi, struct sbx_fail *f);

/* Resource limits of the profile (and RLIMIT_CORE = 0). */
int sbx_rlimits_apply(const struct cs_profile *p, struct sbx_fail *f);
/* no_new_privs first: Landlock and seccomp need it, and it makes every
 * later exec unable to gain privileges. */
int sbx_nnp_apply(struct sbx_fail *f);
/* realpath(path, NULL), with one openat2 instead of a readlink per
 * component when no component is a symlink (sbx_plan.c): what the warm
 * server's freshness check resolves. Freed by the caller; NULL with errno
 * as realpath's when it fails. */
char *sbx_path_resolve(const char *path);
/* Drops every capability (all five sets) and locks the securebits: the
 * two halves below, in order. */
int sbx_caps_drop(struct sbx_fail *f);
/* Securebits locked, the ambient and bounding sets emptied (the bounding
 * set checked). The
 * effective set is untouched, so a warm spare's command does this before
 * its request (sbx_serve.c) and still has what joining the run's cgroup
 * needs; only sbx_caps_drop_sets remains after the go. */
int sbx_caps_drop_bound(struct sbx_fail *f);
/* Effective, permitted and inheritable empty (and checked); after
 * sbx_caps_drop_bound. */
int sbx_caps_drop_sets(struct sbx_fail *f);
/* Loads the profile's filter; `log` asks the kernel to log refusals too. */
int sbx_seccomp_load(const struct cs_profile *p, bool log, struct sbx_fail *f);

/* Cgroup limits; supervisor side. */
struct sbx_cgroup {
  enum sbx_cgroup_mode mode;
  char pids_dir[256];   /* the run's cgroup in the pids (v1) or unified (v2) tree */
  char memory_dir[256]; /* v1 memory, or empty */
  char info[128];
  /* v1: the run's `tasks` file, opened by the supervisor; sbx-init writes
   * "0" to it to join (sbx_cgroup_join) instead of the supervisor moving
   * init by pid. -1 otherwise (only meaningful when mode != NONE). */
  int join_fd;
  /* A cgroup v2 directory holding the whole sandbox, for freezing it
   * (cgroup.freeze) while a person is asked on the terminal: pids_dir in
   * mode V2, else one sbx_cgroup_freezer made in the unified hierarchy
   * (removed by sbx_cgroup_destroy); empty when there is none. */
  char freeze_dir[256];
  bool freeze_own;
};
/* Creates a cgroup for one run when the machine allows it; mode NONE
 * otherwise (not an error: rlimits still apply). */
int sbx_cgroup_create(const struct cs_profile *p, const struct sbx_features *f,
                      struct sbx_cgroup *cg, char *err, size_t err_len);
/* Moves `pid` into the run's cgroup from the supervisor (v2). */
int sbx_cgroup_attach(const struct sbx_cgroup *cg, pid_t pid);
/* In sbx-init, before it forks: joins the cgroup through cg->join_fd
 * (v1). Returns 0 or a negative errno. */
int sbx_cgroup_join(int join_fd);
/* Sets cg->freeze_dir for the run whose pid 1 is `init` (not released
 * yet: nothing has forked): the run's own cgroup in mode V2, otherwise a
 * new cgroup in the v2 hierarchy (a hybrid machine mounts it at
 * /sys/fs/cgroup/unified) that init is moved into. 0, or -errno with the
 * reason in why. */
int sbx_cgroup_freezer(struct sbx_cgroup *cg, pid_t init, char *why, size_t why_len);
/* Could sbx_cgroup_freezer make a freezable cgroup here? With the reason. */
bool sbx_cgroup_freezer_detect(char *why, size_t why_len);
void sbx_cgroup_destroy(struct sbx_cgroup *cg);
/* Detects the cgroup mode usable here, with a reason. */
enum sbx_cgroup_mode sbx_cgroup_detect(char *detail, size_t detail_len);

/* Kernel seccomp audit records (type=1326) for one pid, read from a
 * /dev/kmsg descriptor positioned at the start of the run. */
struct sbx_kmsg_hit {
  int syscall;
  long sig;
  int count;
};
int sbx_kmsg_open(void);
void sbx_kmsg_scan(int fd, pid_t pid, struct sbx_kmsg_hit *hit);

/* If SIGCHLD is ignored (children reaped by the kernel, waitpid blind),
 * sets it to the default and returns true; *saved then holds the caller's
 * disposition to restore. */
struct sigaction;
bool sbx_sigchld_default(struct sigaction *saved);

/* What the command's process needs (sbx_confine.c). */
struct sbx_cmd {
  const struct sbx_plan *plan; /* profile, Landlock ABI; cold: the rules */
  char *const *argv;
  char *const *envp;
  uint32_t flags;              /* enum sbx_run_flags */
  const struct sbx_unotify_cfg *unotify;
  int ruleset;                 /* warm: the spare's built Landlock ruleset; -1 cold */
  int ruleset_shared;          /* warm, no-shell: the template's shared layer; else -1 */
  bool bound_dropped;          /* warm: sbx_caps_drop_bound done before the request */
};

/* pid 1 of a sandbox. */
struct sbx_init_args {
  struct sbx_cmd cmd;
  int ctl;     /* control socket to the supervisor */
  int sync_rd; /* 'g' from the supervisor (maps written, cgroup attached) */
  int cg_fd;   /* v1 cgroup tasks file to join, or -1 */
  bool view_ready; /* warm spare: the view is in place (else built here) */
  const struct sbx_fail *prep_fail; /* warm spare: its preparation failed; NULL cold */
  pid_t child;   /* warm: the pre-forked command (pid in the run's namespace), or 0 */
  int go_note;   /* warm: the server's socket, closed once the go came; cold: -1 */
};
_Noreturn void sbx_init_run(const struct sbx_init_args *a);
/* The command's steps (sbx_confine.c), shared by the cold command and a
 * warm spare's pre-forked one. sbx_close_fds: everything but keep[0..n-1]
 * (moved to 3..3+n-1, close-on-exec) is closed; sbx_command_limit: rlimits,
 * no_new_privs, Landlock; sbx_command_exec: reports a failure in *f, else
 * capabilities, READY, seccomp, execve. */
int sbx_close_fds(int *keep, int n, struct sbx_fail *f);
void sbx_reset_signals(void);
int sbx_command_limit(const struct sbx_cmd *c, int ruleset, int shared, struct sbx_fail *f);
_Noreturn void sbx_command_exec(const struct sbx_cmd *c, int ctl, struct sbx_fail *f);

struct sbx_unotify_srv;
/* The supervisor's side of one run, cold or warm. */
/* The control socket's messages (pid 1 and the command to the supervisor). */
enum sbx_msg_kind {
  SBX_MSG_FAIL = 1,      /* a layer failed before exec: nothing ran */
  SBX_MSG_READY = 2,     /* every layer applied; exec follows */
  SBX_MSG_EXEC_FAIL = 3, /* execve failed (after all layers) */
  SBX_MSG_EXIT = 4,      /* init: the command's wait status */
  SBX_MSG_LISTENER = 5,  /* approvals: status is the notify listener we received */
};

struct sbx_msg {
  int32_t kind;
  int32_t layer;
  int32_t error;
  int32_t status;
  char text[320];
};

struct sbx_sup {
  int ctl;        /* our end of the control socket (SO_PASSCRED) */
  pid_t init;     /* host pid of pid 1 */
  int init_pidfd; /* warm: pidfd of pid 1 (not our child); -1 cold */
  int server;     /* warm: connection to `sbx serve` (reports init's status); -1 cold */
  uint64_t t0, tmax;
  const struct sbx_plan *plan;     /* cold; NULL warm */
  struct sbx_unotify_srv *unotify; /* cold; NULL warm */
  /* Cold: takes the approvals' notify listener from the process `from`
   * that announced it ('L') and serves it. A hook, so that the supervisor
   * links no libseccomp (the static front end uses it too); NULL (warm):
   * no system-call layer in this run, the announcing process is killed. */
  void (*serve_listener)(struct sbx_sup *s, pid_t from, const struct sbx_run_request *req);
  /* Cold with approvals: the pids of the helpers that acted for the
   * command (up to max, into out), whose Landlock refusals are the run's
   * too. NULL: none. */
  size_t (*helper_pids)(struct sbx_sup *s, pid_t *out, size_t max);
  /* Out: a layer reported failing (SBX_MSG_FAIL) and the command never
   * said READY, exec-failed or exited: nothing of it was executed. */
  bool fail_before_ready;
};
/* Waits for the run's messages and end (or its deadline: kills pid 1),
 * fills *res; returns 0 when the command ran, a negative errno otherwise. */
int sbx_supervise(struct sbx_sup *s, const struct sbx_run_request *req,
                  struct sbx_run_result *res, int kmsg);
void sbx_result_fail(struct sbx_run_result *res, enum sbx_layer layer, int error,
                     const char *text);
int sbx_above_stdio(int fd);
uint64_t sbx_now_ms(void);
/* The start of every run, cold or warm: resets *res, checks the request
 * (-EINVAL, with *res saying why) and computes the deadline *tmax (the
 * profile's limit, lowered by the request's). */
int sbx_confine_begin(const struct sbx_run_request *req, struct sbx_run_result *res,
                      uint64_t *tmax);

/* Warm client (sbx_warm.c). SBX_WARM_DECLINED: nothing was started and
 * *res is reset (with res->start_note saying why): run cold. Otherwise the
 * run happened (or failed after the server started it) and the return is
 * sbx_confine_run's. */
#define SBX_WARM_DECLINED 1
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

/* sbx_probe_features without the probes a run does not need. */
int sbx_probe_for_run(struct sbx_features *f);

#endif
