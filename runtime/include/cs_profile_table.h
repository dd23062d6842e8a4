/* cs_profile_table: the layout of the security-profile tables pnetc
 * generates from a .pol file (gen/) and sbx (runtime/) enforces. One
 * struct cs_profile per profile; see docs/table-format.md. */
#ifndef CS_RUNTIME_PROFILE_TABLE_H
#define CS_RUNTIME_PROFILE_TABLE_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stdint.h>

#include "cs_approval_ops.h"

#define CS_PROFILE_TABLE_VERSION 4

enum cs_shell_policy {
  CS_SHELL_NONE = 0,      /* no shell may be executed, not even inside the sandbox */
  CS_SHELL_SANDBOXED = 1, /* a shell runs, confined like everything else */
  CS_SHELL_FULL = 2,
};

/* Access bits of a path rule; they map onto Landlock access rights. */
enum cs_path_access {
  CS_PATH_READ = 1u << 0,
  CS_PATH_WRITE = 1u << 1,
  CS_PATH_EXEC = 1u << 2,
};

struct cs_path_rule {
  const char *path;   /* may start with ${WORKSPACE} or ~, expanded by sbx */
  uint32_t access;    /* enum cs_path_access bits */
  const char *origin; /* "profiles.pol:57:5", for messages */
};

/* How a profile with allow_network reaches the network (version 3;
 * docs/network-proxy.md). Zero is the behaviour of tables before it. */
enum cs_net_mode {
  /* The host's network namespace; where the profile approves `network`,
   * connections are asked by address at the system-call layer. */
  CS_NET_DIRECT = 0,
  /* A network namespace of the run's own with only loopback; the only
   * way out is sbx's proxy, which decides by name (net_allow, net_deny,
   * net_rest, net_local). */
  CS_NET_PROXY = 1,
};

/* What a proxied destination that no pattern matches gets. */
enum cs_net_rest {
  CS_NET_REST_DENY = 0,
  CS_NET_REST_ASK = 1, /* an approval request, operation network */
};

/* One destination pattern ("registry.npmjs.org:443", "**.pypi.org",
 * "[2001:db8::1]:443") or, in net_local, one address range in CIDR form
 * ("127.0.0.0/8"), normalized by pnetc (lower case, no trailing dot). */
struct cs_net_rule {
  const char *pattern;
  const char *origin; /* "profiles.pol:57:5", for messages */
};

/* A command-level approval rule written in .pol (`rule "force-push" ask
 * network { program "git"; args "push --force"; }`); sbx adds them to its
 * built-in rules (docs/approvals.md, struct cs_cmdrule). action: enum
 * cs_cmdrule_action (0 allow, 1 ask, 2 deny); operation: enum
 * cs_approval_operation (cs_approval_ops.h: 0 delete, 1 network, 2 sudo, 3 git-config,
 * 4 exec). Their examples were checked by pnetc. */
struct cs_command_rule {
  const char *name;
  const char *program; /* glob on argv[0]'s base name */
  const char *args;    /* argument patterns, "" for none */
  uint32_t action;
  uint32_t operation;
  const char *origin; /* "profiles.pol:140:3 (profile standard)" */
};

/* Which rule of which profile decides a system call; sbx uses it to name
 * the rule when the kernel refuses or kills a call. */
struct cs_syscall_note {
  int nr;
  const char *name;
  const char *action; /* "allow", "errno(EPERM)", "kill-process", ... */
  const char *origin;
  /* The value the filter returns when this rule decides
   * (SECCOMP_RET_ERRNO | EPERM, ...): the kernel's audit record of a
   * refused call carries it (code=), so sbx can tell which of a call's
   * rules may have decided without the call's arguments, which the record
   * does not carry. Valid only when the profile's rets_known is set. */
  uint32_t ret;
};

struct cs_limits {
  uint64_t max_execution_ms; /* wall clock; 0 never (not produced: every profile has one) */
  uint64_t max_memory_bytes; /* RLIMIT_AS */
  uint64_t max_cpu_seconds;  /* RLIMIT_CPU */
  uint64_t max_processes;    /* RLIMIT_NPROC */
  uint64_t max_open_files;   /* RLIMIT_NOFILE */
  uint64_t max_file_size;    /* RLIMIT_FSIZE */
};

struct cs_profile {
  const char *name;    /* strict */
  const char *alias;   /* READ_ONLY */
  const char *extends; /* parent profile's name, NULL for a root */
  const char *summary; /* one line in plain words */
  const char *origin;

  enum cs_shell_policy shell;
  bool allow_network;
  bool allow_file_write;
  bool allow_file_delete;

  const struct cs_path_rule *allowed_paths;
  uint32_t n_allowed_paths;
  const struct cs_path_rule *denied_paths; /* win over allowed ones */
  uint32_t n_denied_paths;

  struct cs_limits limits;
  uint32_t approval_ops; /* CS_APPROVE_* bits (cs_approval_ops.h) */
  const char *default_tier;

  /* The compiled x86_64 seccomp filter and the rule behind each call. */
  const struct sock_filter *filter;
  uint32_t filter_len;
  const struct cs_syscall_note *syscall_notes;
  uint32_t n_syscall_notes;
  const char *default_action; /* text of the profile's default action */
  /* The filter's return value for the default action, and whether it and
   * every note's ret are set (the generated tables set them; a profile
   * written by hand without them is named by call number only). */
  uint32_t default_ret;
  bool rets_known;

  /* Command-level approval rules of the profile and its parents (parents'
   * first); NULL with count 0 when it has none. */
  const struct cs_command_rule *command_rules;
  uint32_t n_command_rules;

  /* The sandbox's home (version 2; docs/confinement.md, "Home"). Paths
   * start with "~/". home_read_only: names of the real home shown
   * read-only at the same place in the sandbox's home; home_persistent:
   * directories kept between runs of this profile (per user, under the
   * state directory), writable. NULL with count 0 when none. */
  const struct cs_path_rule *home_read_only;
  uint32_t n_home_read_only;
  const struct cs_path_rule *home_persistent;
  uint32_t n_home_persistent;
  /* `sbx run --add-path`: 0 none, CS_PATH_READ, or CS_PATH_READ |
   * CS_PATH_WRITE (at most that much; a run asks for read or write). */
  uint32_t extra_path_access;

  /* Network (version 3): see enum cs_net_mode. Used only when
   * allow_network; NULL with count 0 when a list is empty. */
  uint32_t net_mode; /* enum cs_net_mode */
  uint32_t net_rest; /* enum cs_net_rest */
  const struct cs_net_rule *net_allow;
  uint32_t n_net_allow;
  const struct cs_net_rule *net_deny; /* wins over net_allow */
  uint32_t n_net_deny;
  const struct cs_net_rule *net_local; /* local ranges the proxy may dial */
  uint32_t n_net_local;
};

/* A route (version 4; docs/pol-language.md, "Routes"): the requests it
 * matches (a NULL condition, or no labels, matches any) and where they
 * go. Routes are tried in order and the first match wins; a request no
 * route matches takes the default route: backend "local", the profile's
 * default tier, lane "interactive". */
struct cs_route {
  const char *name;
  const char *origin;        /* "profiles.pol:120:1" */
  const char *kind;          /* "command", "javascript", "wasm"; NULL: any */
  const char *profile;       /* a profile's name (never an alias); NULL: any */
  const char *const *labels; /* every one must be attached; NULL when n_labels is 0 */
  uint32_t n_labels;
  const char *host;    /* the target host, lower case; NULL: any */
  const char *backend; /* "local", "container" or "ssh" */
  const char *tier;    /* a tier of the scheduler model pnetc checked it against */
  const char *lane;    /* a lane of that model */
};
/* The layout is part of the table format: a change must bump
 * CS_PROFILE_TABLE_VERSION, and this catches one that does not. */
#if UINTPTR_MAX == UINT64_MAX
#ifdef __cplusplus
static_assert(sizeof(struct cs_route) == 80, "struct cs_route changed: bump the table version");
#else
_Static_assert(sizeof(struct cs_route) == 80, "struct cs_route changed: bump the table version");
#endif
#endif

/* What the generated tables promise (gen/emit_c_pol.c, maintained by the
 * policy compiler; changes to this header stay additive, and each one is
 * announced here for the sbx side):
 *
 * - profiles.h declares `extern const struct cs_profile cs_profiles[]`,
 *   `extern const uint32_t cs_profiles_count` and
 *   `const struct cs_profile *cs_profile_find(const char *name_or_alias)`
 *   (NULL for an unknown name: refuse to run), plus CS_PROFILES_COUNT and
 *   enum cs_profile_index. It _Static_asserts CS_PROFILE_TABLE_VERSION.
 * - filter is for AUDIT_ARCH_X86_64 only: calls from another ABI (i386,
 *   x32) hit SECCOMP_RET_KILL_PROCESS in every profile. Load it after
 *   PR_SET_NO_NEW_PRIVS, as the last step before execve.
 * - syscall_notes are ordered by nr and, for one nr, in the order the
 *   filter tries them; action is the .pol spelling followed, for a
 *   conditional rule, by " if <condition>" over argN (".lo32": compared
 *   on the low 32 bits). A call with no note gets default_action.
 * - errno values in notes and default_action are names ("errno(EPERM)");
 *   ENOSYS marks calls refused so that libc falls back (clone3, io_uring):
 *   a note whose ret is SECCOMP_RET_ERRNO | ENOSYS is an expected
 *   fallback, which sbx does not report as a refusal (the default action
 *   never is one).
 * - ret / default_ret / rets_known (added with the naming of the deciding
 *   rule, docs/confinement.md "Naming refusals"): the filter's return
 *   value of each note and of the default action.
 * - allowed_paths / denied_paths hold paths as written: absolute, or
 *   starting with "${WORKSPACE}" or "~", to expand before use; a denied
 *   path wins over any allowed one. allowed_paths is NULL with count 0
 *   when nothing is accessible; denied_paths NULL when nothing is denied.
 * - limits are all non-zero; default_tier is one of "v8", "seccomp",
 *   "wasm", "tee".
 * - home_read_only / home_persistent / extra_path_access (version 2):
 *   home paths are "~/" followed by a relative path without ".", ".."
 *   or empty components; none overlaps a denied path or another home
 *   path (pnetc checks; sbx checks again after resolving). A profile
 *   with allow_file_write false has no persistent path and
 *   extra_path_access at most CS_PATH_READ. Tables of version 1 read as
 *   zero: no home binds, no extra path.
 * - net_mode / net_rest / net_allow / net_deny / net_local (version 3):
 *   CS_NET_PROXY only with allow_network; patterns and ranges as
 *   docs/network-proxy.md ("Matching") defines them, each checked by
 *   pnetc. Tables of version 2 read as zero: direct network.
 * - cs_routes / cs_routes_count (version 4): profiles.h declares
 *   `extern const struct cs_route *const cs_routes` (NULL when the policy
 *   has no route) and `extern const uint32_t cs_routes_count`, in
 *   declaration order. Each route names a backend, tier and lane; pnetc
 *   refused every route whose tier or lane the model lacks and every one
 *   an earlier route shadows completely. Tables of version 3 have none:
 *   every request takes the default route.
 * - origin strings are "file:line:col" relative to the policy's
 *   directory, and for notes end in "(profile NAME)" naming the profile
 *   whose statement wrote the rule (a parent's, for inherited rules). */

#endif
