/* sbx_plan: everything a sandbox will be (mount view, Landlock rules,
 * environment), computed by the supervisor before it forks
 * (sbx_plan*.c); for warm templates also the facts it was computed from
 * (probes, sbx_probe.c). */
#ifndef CS_RUNTIME_SBX_PLAN_H
#define CS_RUNTIME_SBX_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "sbx_request.h"

struct sbx_fail;

/* The sandbox's PATH; the caller's PATH is not used because its entries
 * (pyenv shims, ~/bin) are not visible inside and could be attacker-chosen. */
#define SBX_SANDBOX_PATH "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"
/* nobody and nogroup on Debian: the identity of a command whose workspace
 * root owns (sbx_plan_identity.c). */
#define SBX_NOBODY 65534
/* HOME inside the sandbox: private, on the sandbox's own /tmp tmpfs; the
 * profile's home paths are bound below it (sbx_plan_home.c). */
#define SBX_SANDBOX_HOME "/tmp/home"

enum sbx_mount_kind {
  SBX_MNT_BIND_RO = 0, /* bind the host path read-only, nosuid, nodev (recursive) */
  SBX_MNT_BIND_RW = 1, /* bind read-write, nosuid, nodev */
  SBX_MNT_SYMLINK = 2, /* recreate a symlink (its target resolves in the view) */
  SBX_MNT_MASK = 3,    /* hide: empty 0000 file or empty read-only tmpfs */
};

/* The `why` of the persistent home's binds (sbx_plan_home.c), by which
 * the approvals' layer finds sbx's caches (removals there are free). */
#define SBX_MOUNT_WHY_HOME_KEPT "home (persistent)"

struct sbx_mount_entry {
  char *path; /* absolute path, the same inside and outside (but see source) */
  /* BIND_*: the host path bound at `path` when it differs (the sandbox's
   * home: sbx_plan_home.c); NULL: `path` itself. Bound without following
   * a symlink and only while it is still the object planned (dev, ino):
   * a cache an earlier run could change must not lead elsewhere. */
  char *source;
  dev_t dev;
  ino_t ino;
  char *target; /* SYMLINK: link text */
  enum sbx_mount_kind kind;
  bool is_dir;
  /* BIND_*: mounted noexec (and so no file of it can be executed or mapped
   * PROT_EXEC, the ELF loader's way in): no Landlock EXECUTE rule reaches a
   * file that lives on this mount (sbx_plan_noexec). */
  bool noexec;
  const char *why; /* for error messages: "system", "workspace", "denied path rule" */
};

struct sbx_ll_rule {
  char *path;      /* inside the sandbox */
  uint64_t access; /* SBX_LL_FS_* rights, before masking by the ABI */
  bool optional;   /* skipped silently when absent inside the view */
  bool is_file;    /* known to be a regular file (per-file EXECUTE grants) */
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
  /* The private /tmp (HOME is on it) and /dev/shm are noexec; the host's
   * root as the view's base (full_root) too: sbx_plan_noexec. */
  bool tmp_noexec;
  bool shm_noexec;
  bool root_noexec;
  bool net_blocked;
  /* allow_network with net_mode CS_NET_PROXY: the command gets a network
   * namespace of its own with only loopback (brought up by pid 1), so the
   * host's network is out of reach and the only way out can be sbx's
   * proxy (docs/network-proxy.md "How a run reaches the proxy"). */
  bool net_proxied;
  bool shell_none;
  bool userns;       /* sbx is not root */
  bool full_root;    /* an allowed path is "/": the host root is the view's base */
  bool full_root_rw; /* ... and it is writable */
  int landlock_abi;
  uint64_t timeout_ms;
  uid_t uid; /* sbx's own effective ids */
  gid_t gid;
  /* sbx is root: the command becomes run_uid/run_gid (no supplementary
   * groups) before it drops its capabilities (sbx_plan_identity.c says
   * who that is). Otherwise run_uid/run_gid are uid/gid. */
  bool run_as;
  uid_t run_uid;
  gid_t run_gid;
  /* The workspace's owner they were chosen from (a warm template is
   * reused only while it is the same: runtime/warm/sbx_serve.c). */
  uid_t ws_uid;
  gid_t ws_gid;
  /* run_as, and root owns the workspace: its bind is idmapped, root's
   * files there are the command's (sbx_idmap.c). */
  bool idmap_ws;

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
  char *cwd; /* the command's working directory, resolved; NULL: the workspace */
  /* The sandbox's home (sbx_plan_home.c, docs/confinement.md "Home"):
   * the real home its read-only names came from (resolved; NULL: none),
   * the directory its persistent paths are kept in (NULL: none), and
   * what was skipped and why, for `sbx explain` and the audit record. */
  char *home_real;
  char *home_state;
  char home_notes[1024];
  /* sbx run --add-path, resolved (NULL: none), and whether writable. */
  char *extra_path;
  bool extra_rw;
};

/* Fills *plan for req on a kernel with Landlock ABI `abi`. On failure
 * returns a negative errno with *f filled (layer request, env or mount). */
int sbx_plan_build(const struct sbx_run_request *req, int abi, struct sbx_plan *plan,
                   struct sbx_fail *f);
void sbx_plan_free(struct sbx_plan *plan);
/* sbx_plan_build for a warm template: `home` replaces $HOME (the client's;
 * "" for none) and every fact the plan uses is recorded as a probe. */
int sbx_plan_build_warm(const struct sbx_run_request *req, int abi, const char *home,
                        struct sbx_plan *plan, struct sbx_fail *f);
/* true when every probe still holds (and none was lost); false on any
 * change or doubt (a timestamp too close to when it was taken to prove
 * nothing changed within the file system's clock granularity). `why`
 * names the first changed path. */
bool sbx_plan_fresh(const struct sbx_plan *plan, char *why, size_t why_len);
/* The same for the probes sbx_watch does not vouch for (!watched) only. */
bool sbx_plan_fresh_unwatched(const struct sbx_plan *plan, char *why, size_t why_len);

/* The sandbox's environment for req (allowlist, pass_env, sbx's own
 * PATH/HOME/PWD/SBX_PROFILE) into plan->envp; plan->profile and
 * plan->workspace must be set. */
int sbx_plan_environment(struct sbx_plan *p, const struct sbx_run_request *req);

/* Expands ${WORKSPACE} and a leading ~ of a profile path into out. */
int sbx_expand_path(const char *in, const char *workspace, const char *home, char *out,
                    size_t out_len);

/* realpath(path, NULL), with one openat2 instead of a readlink per
 * component when no component is a symlink (sbx_probe.c): what the warm
 * server's freshness check resolves. Freed by the caller; NULL with errno
 * as realpath's when it fails. */
char *sbx_path_resolve(const char *path);

/* Is `path` `dir` or below it (every path is below "/")? */
bool sbx_path_under(const char *path, const char *dir);

/* Whether the command (a name looked up in PATH, or a path) is one of the
 * shells a CS_SHELL_NONE profile withholds (sbx_plan_shells.c), by its
 * name or, for a path, by the name of the file it resolves to. */
bool sbx_plan_is_shell(const char *command);

/* The environment allowlist (NULL-terminated; entries ending in '*' are
 * prefixes, e.g. "LC_*"), for docs and `sbx explain`. */
extern const char *const sbx_env_allowlist[];

#endif
