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
 *   sbx_kmsg.c     finds the kernel's seccomp audit records after a run;
 *   sbx_features.c feature probe and enforceability check;
 *   sbx_confine.c  the supervisor, pid 1 and the command's last steps. */
#ifndef CS_RUNTIME_SBX_INTERNAL_H
#define CS_RUNTIME_SBX_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sbx_confine.h"

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
};

/* Fills *plan for req on a kernel with Landlock ABI `abi`. On failure
 * returns a negative errno and writes a message to err. */
int sbx_plan_build(const struct sbx_run_request *req, int abi, struct sbx_plan *plan,
                   char *err, size_t err_len);
void sbx_plan_free(struct sbx_plan *plan);

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

/* In the command's process, after no_new_privs: restricts it with Landlock. */
int sbx_landlock_apply(const struct sbx_plan *plan, struct sbx_fail *f);

/* Resource limits of the profile (and RLIMIT_CORE = 0). */
int sbx_rlimits_apply(const struct cs_profile *p, struct sbx_fail *f);
/* no_new_privs first: Landlock and seccomp need it, and it makes every
 * later exec unable to gain privileges. */
int sbx_nnp_apply(struct sbx_fail *f);
/* Drops every capability (all five sets) and locks the securebits. */
int sbx_caps_drop(struct sbx_fail *f);
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

/* sbx_probe_features without the probes a run does not need. */
int sbx_probe_for_run(struct sbx_features *f);

/* A syscall's name on x86_64 via libseccomp; "?" when unknown. */
const char *sbx_syscall_name(int nr, char *buf, size_t len);

#endif
