/* sbx_cli: the command line of `sbx` (docs/sbx.1). Parsing only: no
 * profile is looked up and nothing is opened here, so the parser can be
 * tested on its own.
 *
 * Returns of sbx_cli_parse: 0, or -EINVAL after a message on `err`. */
#ifndef CS_RUNTIME_SBX_CLI_H
#define CS_RUNTIME_SBX_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The most --env (and, separately, --pass-env) options one run takes. */
#define SBX_OPT_ENV_MAX 64
/* --label: at most this many per run. */
#define SBX_OPT_LABEL_MAX 16
/* The longest --run-id. */
#define SBX_RUN_ID_MAX 128

enum sbx_command {
  SBX_CMD_RUN,
  SBX_CMD_CHECK,
  SBX_CMD_EXPLAIN,
  SBX_CMD_HELP,
  SBX_CMD_VERSION,
  SBX_CMD_APPROVALS,   /* sbx approvals list|revoke ID|clear (runtime/cli/sbx_approve.c) */
  SBX_CMD_SERVE,       /* sbx serve: the warm-start server (runtime/warm/sbx_serve.c) */
  SBX_CMD_EXEC,        /* sbx exec: a JSON request on stdin (docs/exec-api.md) */
  SBX_CMD_EXEC_SERVER, /* sbx exec-server: JSON-RPC 2.0 (docs/exec-protocol.md) */
  SBX_CMD_EVAL,        /* sbx eval: JavaScript in the isolated worker (runtime/cli/sbx_eval.c) */
};

struct sbx_opts {
  enum sbx_command cmd;
  const char *profile;   /* --profile; NULL: COMMANDER_SECURITY_PROFILE, else strict */
  const char *workspace; /* --workspace; NULL: the current directory */
  const char *tier;      /* --tier; NULL: the profile's default tier */
  const char *lane;      /* --lane; NULL: SBX_DEFAULT_LANE (sbx_admit.h) */
  const char *backend;   /* --backend local|container; NULL: the route's */
  const char *image;     /* --image: the container backend's image; NULL: the env's */
  bool has_timeout;
  uint64_t timeout_ms;    /* --timeout, converted; may only lower the profile's limit */
  bool no_wait;           /* --no-wait: a refused admission fails at once */
  const char *audit_path; /* --audit; NULL: SBX_AUDIT_LOG, else no log */
  bool bpf;               /* explain --bpf: add the filter's disassembly */
  bool json;              /* check --json: one JSON object instead of text */
  char *const *cmd_argv;  /* run: the command and its arguments, NULL-terminated */
  int cmd_argc;
  /* Approval workflow (docs/approvals.md). */
  const char *approver;         /* --approver tty|exec:PROG|socket:PATH|none; NULL: tty */
  uint64_t approval_timeout_ms; /* --approval-timeout, 0: 60 s */
  const char *approval_store;   /* --approval-store; NULL: $SBX_APPROVAL_STORE or default */
  /* Warm start (docs/sbx.md, "sbx serve"). */
  bool cold;             /* run --cold: never ask a server */
  bool verbose;          /* run/serve -v: say which start-up path ran / log requests */
  uint64_t idle_ms;      /* serve --idle: exit after so long without a client; 0 never */
  char *const *sub_argv; /* approvals, eval: argv from the command's name on */
  int sub_argc;
  /* Per-run settings (docs/sbx.md, "Per-run settings"); NULL-terminated
   * lists pointing into argv. The names are checked against the
   * environment's rules by sbx run, not here. */
  const char *set_env[SBX_OPT_ENV_MAX + 1]; /* --env NAME=VALUE, in order */
  int n_set_env;
  const char *pass_env[SBX_OPT_ENV_MAX + 1]; /* --pass-env NAME */
  int n_pass_env;
  const char *cwd; /* --cwd DIR; NULL: the caller's directory when inside the
                                 workspace, else the workspace root */
  bool has_wait_timeout;
  uint64_t wait_timeout_ms; /* --wait-timeout: the longest admission wait */
  const char *run_id;       /* --run-id: the caller's name for the run */
  bool has_diag_fd;
  int diag_fd; /* --diag-fd N: sbx's own messages of a run go there (sbx_diag) */
  /* --add-path PATH[:ro|:rw]: the option's text, the PATH part's length
   * (the suffix excluded) and whether :rw was asked; NULL: none. */
  const char *add_path;
  size_t add_path_len;
  bool add_rw;
  /* A user's own rules (docs/sbx.md, "Your own policies and models"). */
  const char *policy; /* --policy FILE.pol: profiles from this file, not the linked ones */
  const char *model;  /* --model FILE.pnet: admission through this model */
  /* Routes (docs/sbx.md, "Routes"). */
  const char *labels[SBX_OPT_LABEL_MAX + 1]; /* run --label NAME, in order */
  int n_labels;
  bool routes; /* explain --routes: list the routes */
  /* exec --live: the request on fd 3, the result on fd 4, the command's
   * streams are sbx's own 0..2 (the exec server's child, docs/exec-protocol.md). */
  bool exec_live;
  const char *exec_socket; /* exec-server --socket PATH: serve there, not on stdio */
};

/* Parses argv (argv[0] is sbx itself). On success fills *o; the command's
 * argv points into the caller's argv. */
int sbx_cli_parse(int argc, char *const argv[], struct sbx_opts *o, FILE *err);

/* "2", "0.5", "1.250": seconds with at most 3 decimals, > 0, <= 30 days.
 * 0 and *ms set, or -EINVAL. Exposed for the tests. */
int sbx_cli_parse_seconds(const char *s, uint64_t *ms);

/* 0 when name is an environment variable name sbx accepts on its command
 * line: [A-Za-z_][A-Za-z0-9_]*, at most 128 bytes; -EINVAL otherwise. */
int sbx_cli_env_name_ok(const char *name, size_t len);

/* The full `sbx --help` text. */
void sbx_cli_usage(FILE *out);

#endif
