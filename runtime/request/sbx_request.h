/* sbx_request: what one confined run is asked and what it answers, the
 * types every part of a run shares (grep tag: SBX_REQUEST): the request
 * (struct sbx_run_request), the result (struct sbx_run_result), the layer
 * a failure or refusal is attributed to (enum sbx_layer, named by
 * sbx_layer_name), the kernel's features a profile may need (struct
 * sbx_features), and the one rule set on what a request may ask for
 * (sbx_env_refusal). The plan (runtime/plan) computes a run from a
 * request; confinement (runtime/confine, sbx_confine.h) carries it out.
 * Neither is needed to build a request or to read a result. */
#ifndef CS_RUNTIME_SBX_REQUEST_H
#define CS_RUNTIME_SBX_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cs_profile_table.h"

struct sbx_unotify_cfg;
struct sbx_proxy_cfg;
struct sbx_freeze;
struct sbx_confine_hooks;

/* Exit codes of `sbx run` besides the command's own status (0..123 as the
 * command chose; 128+N when it died by signal N). Same convention as
 * timeout(1), env(1) and POSIX shells. */
enum sbx_exit_code {
  SBX_EXIT_TIMEOUT = 124,        /* maxExecutionTime / --timeout reached */
  SBX_EXIT_FAILURE = 125,        /* sbx itself failed or refused to run */
  SBX_EXIT_NOT_EXECUTABLE = 126, /* found but exec refused (EACCES, ENOEXEC, masked shell) */
  SBX_EXIT_NOT_FOUND = 127,      /* not found in the sandbox's PATH */
  SBX_EXIT_SIGNAL_BASE = 128,    /* + signal number */
};

enum sbx_outcome {
  SBX_OUTCOME_EXITED = 0,      /* the command exited; status = exit status */
  SBX_OUTCOME_SIGNALED = 1,    /* killed by signal `status` */
  SBX_OUTCOME_TIMED_OUT = 2,   /* killed by sbx at the deadline (whole tree) */
  SBX_OUTCOME_FAILED = 3,      /* sbx could not confine it; nothing ran (125) */
  SBX_OUTCOME_EXEC_FAILED = 4, /* confined, but execve failed (126 / 127) */
};

/* The layer a failure or a refusal is attributed to (grep tag: SBX_LAYER). */
enum sbx_layer {
  SBX_LAYER_NONE = 0,
  SBX_LAYER_REQUEST,    /* invalid request (workspace, argv, profile) */
  SBX_LAYER_KERNEL,     /* a kernel feature the profile needs is missing */
  SBX_LAYER_USERNS,     /* user namespace / uid-gid maps */
  SBX_LAYER_NAMESPACES, /* mount, pid, ipc, uts, cgroup, net namespaces */
  SBX_LAYER_MOUNT,      /* the private root view */
  SBX_LAYER_CGROUP,
  SBX_LAYER_RLIMIT,
  SBX_LAYER_SESSION, /* setsid, descriptors */
  SBX_LAYER_ENV,
  SBX_LAYER_LANDLOCK,
  SBX_LAYER_CAPS, /* no_new_privs, capabilities, securebits */
  SBX_LAYER_SECCOMP,
  SBX_LAYER_EXEC,
  SBX_LAYER_SUPERVISOR, /* sbx's own process management */
  SBX_LAYER_PROXY,      /* the network proxy of a proxied profile (docs/network-proxy.md) */
  SBX_LAYER_COUNT_
};

/* Name of a layer for messages ("landlock"); never NULL. */
const char *sbx_layer_name(enum sbx_layer layer);

/* Request flags. */
enum sbx_run_flags {
  /* The approval workflow granted CS_APPROVE_GIT_CONFIG: .git/config and
   * .git/hooks are left writable. Without it they are read-only whenever
   * the workspace is writable. */
  SBX_RUN_ALLOW_GIT_CONFIG = 1u << 0,
  /* Do not look for the kernel's seccomp audit records after a run (they
   * name the refused system call); for callers that cannot read /dev/kmsg. */
  SBX_RUN_NO_KMSG = 1u << 1,
  /* Tests only (the negative control of the noexec mounts, issue 12):
   * every mount of the view that sbx would make noexec stays executable,
   * as before the fix, so a test can show its escape program catches the
   * hole. sbx's command line never sets it and the warm-start server
   * refuses it (an unknown flag there), so a run with it is always cold. */
  SBX_RUN_TEST_EXEC_MOUNTS = 1u << 2,
  /* Tests only (the negative control of the git protection, issue 12):
   * only .git/config, hooks, info and config.worktree are protected, as
   * before the fix. Never set by sbx's command line; refused by the
   * warm-start server (an unknown flag there). */
  SBX_RUN_TEST_GIT_LEGACY = 1u << 3,
  /* Tests only (the negative control of the command's identity, issue
   * 12): when sbx is root the command keeps the host's uid 0, as before
   * the fix (sbx_plan_identity.c). Never set by sbx's command line; the
   * warm-start server refuses it like the flags above. */
  SBX_RUN_TEST_HOST_ROOT = 1u << 4,
};

struct sbx_run_request {
  const struct cs_profile *profile; /* required */
  const char *workspace;            /* required: existing directory; made absolute and resolved */
  char *const *argv;                /* required, argv[0] non-empty; looked up in the sandbox's PATH
                             unless it contains a '/'; never run through a shell */
  uint64_t timeout_ms;              /* 0: the profile's max_execution_ms; otherwise the smaller
                             of the two (a request can only lower the limit) */
  /* Extra environment variable NAMES the caller explicitly passes through
   * (NULL-terminated, may be NULL). Names starting with LD_ are refused. */
  const char *const *pass_env;
  uint32_t flags; /* enum sbx_run_flags */
  /* Approval workflow, system-call layer (runtime/supervise/sbx_unotify.h,
   * docs/approvals.md): non-NULL loads a notify filter for unotify->ops
   * in the command and serves it in the supervisor. NULL: none. */
  const struct sbx_unotify_cfg *unotify;
  /* The terminal approver's guard (sbx_freeze.h): armed with a cgroup
   * holding the whole run, so the run can be frozen while a person is
   * asked; NULL when no approver uses the terminal. */
  struct sbx_freeze *freeze;
  /* Required by sbx_confine_run: what confinement reaches only through
   * its caller, the supervisor first (sbx_hooks.h; sbx's own set:
   * sbx_run_hooks, runtime/warm/sbx_run_hooks.h). NULL: refused. */
  const struct sbx_confine_hooks *hooks;
  /* Warm start (docs/sbx.md, "sbx serve"): the socket of a running
   * `sbx serve` of the same user, tried first when non-NULL; any answer
   * short of a started command falls back to the cold path. NULL: cold. */
  const char *warm_socket;
  /* Why an earlier warm attempt for this run was declined (the static
   * front end tried it, then handed the run to this executable): noted as
   * the start-up path's reason; the server is not asked again. NULL:
   * none. */
  const char *warm_declined;
  /* The warm-start server's socket directory (docs/threat-model.md, "sbx
   * serve"): masked in every view that would show it, full-root ones
   * included, so no command can even try to reach the server. NULL: none. */
  const char *mask_dir;
  /* Polled when the supervisor's wait is interrupted by a signal; non-zero
   * kills the sandbox (a warm run's init is not the caller's child, so a
   * handler killing the caller's children cannot reach it). May be NULL. */
  int (*interrupted)(void);
  /* Called with the run's pid 1 (a host pid) before it may start the
   * command; non-zero fails the run before anything executed. sbx ties its
   * admission slot to it (sbx_admit_on_init): the slot of a SIGKILLed sbx
   * returns only once its sandbox is gone. May be NULL. */
  int (*on_init)(void *ctx, pid_t init);
  void *on_init_ctx;
  /* Per-run settings (docs/sbx.md, "Per-run settings"). set_env:
   * "NAME=VALUE" strings set after the allowlist and pass_env, later ones
   * winning (NULL-terminated, may be NULL); their names and pass_env's
   * must pass sbx_env_refusal, else the run is refused (layer env). cwd:
   * the command's working directory, which must resolve to a directory
   * inside the workspace that the view shows (else refused, layer
   * request); NULL: the workspace. */
  const char *const *set_env;
  const char *cwd;
  /* One more host path for this run (sbx run --add-path, docs/sbx.md):
   * NULL for none; extra_access CS_PATH_READ, or CS_PATH_READ |
   * CS_PATH_WRITE. Refused (layer request) unless the profile's
   * extra_path_access covers it, the path exists and no denied path
   * covers it (runtime/plan/sbx_plan_home.c). */
  const char *extra_path;
  uint32_t extra_access;
  /* A proxied profile's network (sbx_net_proxied, docs/network-proxy.md):
   * who is asked about destinations the policy leaves to a person and
   * where each connection's record goes (runtime/supervise/sbx_proxy.h,
   * opaque here). Required for such a profile: without it, or without
   * the proxy hooks, the run is refused (layer request), never run with
   * a network that silently refuses everything or one that is direct. */
  const struct sbx_proxy_cfg *proxy;
};

/* The loopback ports of a proxied run's own network namespace where the
 * proxy listens (docs/network-proxy.md, "Reaching the proxy"): HTTP
 * (CONNECT and absolute-form requests) and SOCKS5. Fixed, because the
 * namespace is the run's alone: nothing else can bind them first, and
 * the environment that names them is planned before the run exists. */
#define SBX_PROXY_HTTP_PORT 3128
#define SBX_PROXY_SOCKS_PORT 1080

/* Whether a profile's network goes through sbx's proxy (the run gets a
 * network namespace of its own with only loopback, and the proxy is its
 * only way out) rather than being direct or absent. The one place this
 * is decided. */
static inline bool sbx_net_proxied(const struct cs_profile *p)
{
  return p->allow_network && p->net_mode == CS_NET_PROXY;
}

/* A refusal by Landlock during the run, named from the kernel's audit
 * record (docs/confinement.md, "Naming refusals"). */
#define SBX_LL_DENIALS_MAX 8
struct sbx_denial {
  char what[224];     /* "fs.execute /tmp/x", "net.connect_tcp 127.0.0.1:443" */
  char rule[352];     /* the profile's rule behind it, with its origin */
  const char *action; /* "errno(EACCES)", "errno(EPERM)" (static) */
  /* isatty()'s probe of a device that is no terminal (TCGETS on
   * /dev/null): the answer is "not a terminal" either way; never reported
   * as a refusal. */
  bool expected;
};

/* A refusal by the seccomp filter during the run, in any process of the
 * run, named from the kernel's audit record (docs/confinement.md, "Naming
 * the refused system call"). */
#define SBX_SC_DENIALS_MAX 8
struct sbx_sc_denial {
  int nr;          /* the call's number (of `arch`'s table) */
  uint32_t arch;   /* AUDIT_ARCH_X86_64 (0xc000003e), or another ABI's */
  long pid;        /* the host pid that made it */
  long sig;        /* the signal that killed it, 0 for a refusal */
  char name[48];   /* "ptrace", "x32 call 246", "call 20 of arch=40000003" */
  char what[96];   /* "ptrace (nr 101) in pid 4711" */
  char rule[352];  /* the rule(s) of the profile that ran that may have decided */
  char action[48]; /* "errno(EPERM)": what the filter returned (the record's code) */
  /* An expected fallback (every rule that may have decided is an
   * errno(ENOSYS) rule of the profile: clone3, io_uring): recorded, never
   * reported as a refusal. */
  bool expected;
  /* The one rule that decided, when the record tells it; NULL otherwise. */
  const struct cs_syscall_note *note;
};

/* Whether Landlock's refusals of a run could be named (grep tag: SBX_NAMING). */
enum sbx_naming {
  SBX_NAMING_OK = 0,         /* the run's records were read */
  SBX_NAMING_NOT_ASKED,      /* SBX_RUN_NO_KMSG */
  SBX_NAMING_NO_LOG,         /* neither the audit socket nor /dev/kmsg could be read */
  SBX_NAMING_AUDIT_DISABLED, /* the kernel's audit is off: Landlock logs nothing */
  SBX_NAMING_OLD_ABI,        /* Landlock ABI < 7: no records */
  SBX_NAMING_UNCHECKED,      /* none found and, the command having exited 0, not asked why */
  SBX_NAMING_COUNT_
};

struct sbx_run_result {
  enum sbx_outcome outcome;
  int exit_code;        /* what `sbx run` exits with (see enum sbx_exit_code) */
  int status;           /* exit status, or signal number when SIGNALED */
  enum sbx_layer layer; /* layer of a FAILED / EXEC_FAILED outcome */
  int error;            /* errno behind a FAILED / EXEC_FAILED outcome, 0 if none */
  char message[512];    /* one line: "landlock: landlock_restrict_self: Operation not permitted" */
  uint64_t elapsed_ms;  /* wall clock of the confined run */
  uint64_t timeout_ms;  /* the limit actually applied */
  /* When the seccomp filter refused or killed a system call and the kernel's
   * audit record was found (see docs/confinement.md, "Naming the refused
   * system call"): the call's number, name and the profile's rule for it.
   * denied_syscall is -1 otherwise. denied_note points into the profile. */
  int denied_syscall;
  char denied_syscall_name[48];
  const struct cs_syscall_note *denied_note;
  int denied_count; /* audit records found for the sandbox's processes */
  /* Every distinct seccomp refusal of the run's processes (the first
   * SBX_SC_DENIALS_MAX), expected fallbacks included (marked); the
   * denied_* fields above describe the first one that is not expected (a
   * kill first). */
  struct sbx_sc_denial sc_denials[SBX_SC_DENIALS_MAX];
  int n_sc_denials;
  char cgroup_info[128]; /* "cgroup v1 pids.max=64" / "none (rlimits only)" */
  /* Which start-up path ran: "warm" (from a `sbx serve` template) or
   * "cold"; start_note says why a warm start was not used ("" if it was). */
  char start_path[8];
  char start_note[160];
  /* The sandbox's home as planned by the cold path (runtime/plan/
   * sbx_plan_home.c): where what persists is kept ("" none) and what was
   * skipped and why ("" nothing); empty for a warm run. */
  char home_state[256];
  char home_notes[512];
  /* Refusals by Landlock named from the kernel's audit records (the first
   * SBX_LL_DENIALS_MAX distinct ones); ll_denied_count counts every record
   * of the run's domain; ll_naming says why none could be named. */
  struct sbx_denial ll_denials[SBX_LL_DENIALS_MAX];
  int n_ll_denials;
  int ll_denied_count;
  enum sbx_naming ll_naming;
  bool audit_lost; /* the kernel dropped records (printk rate limit, overrun) */
};

enum sbx_cgroup_mode {
  SBX_CGROUP_NONE = 0, /* rlimits only */
  SBX_CGROUP_V2 = 1,   /* a delegated cgroup v2 subtree with memory and pids */
  SBX_CGROUP_V1 = 2,   /* cgroup v1 pids (and memory when writable) hierarchies */
};

struct sbx_features {
  bool root; /* euid 0 with CAP_SYS_ADMIN: no user namespace needed */
  bool ns_user, ns_mount, ns_pid, ns_ipc, ns_uts, ns_net, ns_cgroup;
  bool userns_usable;              /* an unprivileged user namespace can be created */
  bool seccomp_filter;             /* SECCOMP_SET_MODE_FILTER */
  bool seccomp_new_listener;       /* SECCOMP_FILTER_FLAG_NEW_LISTENER */
  bool seccomp_tsync;              /* SECCOMP_FILTER_FLAG_TSYNC */
  bool seccomp_log;                /* SECCOMP_FILTER_FLAG_LOG */
  bool seccomp_spec_allow;         /* SECCOMP_FILTER_FLAG_SPEC_ALLOW */
  bool seccomp_wait_killable_recv; /* SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV */
  int landlock_abi;                /* 0: no Landlock (disabled or not built) */
  bool close_range;
  bool mount_setattr;    /* recursive read-only binds */
  bool kmsg_readable;    /* seccomp audit records can be read from /dev/kmsg */
  int io_uring_disabled; /* kernel.io_uring_disabled, -1 unknown */
  enum sbx_cgroup_mode cgroup;
  char cgroup_detail[192]; /* why this cgroup mode */
};

/* 0 when the variable name (len bytes of name) may enter a sandbox by
 * request; -EPERM when a rule refuses it (loader and libc variables, the
 * ones sbx sets, names of secrets; sbx_env_rules.c), with
 * the rule in why. */
int sbx_env_refusal(const char *name, size_t len, char *why, size_t why_size);

#endif
