/* sbx_cli: command-line parsing for `sbx` (see sbx_cli.h). */
#include "sbx_cli.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* A timeout longer than this is a typo, not a wish: refusing it keeps the
 * millisecond arithmetic far from overflow. */
#define SBX_MAX_TIMEOUT_MS (30ull * 24 * 3600 * 1000)

enum {
  OPT_PROFILE = 'p',
  OPT_WORKSPACE = 'w',
  OPT_TIER = 't',
  OPT_TIMEOUT = 'T',
  OPT_NO_WAIT = 'n',
  OPT_AUDIT = 'a',
  OPT_HELP = 'h',
  OPT_BPF = 'b',
  OPT_APPROVER = 256,
  OPT_APPROVAL_TIMEOUT,
  OPT_APPROVAL_STORE,
  OPT_JSON,
  OPT_COLD,
  OPT_IDLE,
  OPT_ENV,
  OPT_PASS_ENV,
  OPT_LANE,
  OPT_LABEL,
  OPT_ROUTES,
  OPT_CWD,
  OPT_WAIT_TIMEOUT,
  OPT_RUN_ID,
  OPT_DIAG_FD,
  OPT_ADD_PATH,
  OPT_POLICY,
  OPT_MODEL,
  OPT_LIVE,
  OPT_SOCKET,
  OPT_BACKEND,
  OPT_IMAGE,
  OPT_VERBOSE = 'v'
};

static const struct option sbx_run_options[] = {
  { "profile", required_argument, NULL, OPT_PROFILE },
  { "workspace", required_argument, NULL, OPT_WORKSPACE },
  { "tier", required_argument, NULL, OPT_TIER },
  { "lane", required_argument, NULL, OPT_LANE },
  { "backend", required_argument, NULL, OPT_BACKEND },
  { "image", required_argument, NULL, OPT_IMAGE },
  { "label", required_argument, NULL, OPT_LABEL },
  { "routes", no_argument, NULL, OPT_ROUTES },
  { "timeout", required_argument, NULL, OPT_TIMEOUT },
  { "no-wait", no_argument, NULL, OPT_NO_WAIT },
  { "audit", required_argument, NULL, OPT_AUDIT },
  { "help", no_argument, NULL, OPT_HELP },
  { "bpf", no_argument, NULL, OPT_BPF },
  { "json", no_argument, NULL, OPT_JSON },
  { "approver", required_argument, NULL, OPT_APPROVER },
  { "approval-timeout", required_argument, NULL, OPT_APPROVAL_TIMEOUT },
  { "approval-store", required_argument, NULL, OPT_APPROVAL_STORE },
  { "cold", no_argument, NULL, OPT_COLD },
  { "verbose", no_argument, NULL, OPT_VERBOSE },
  { "idle", required_argument, NULL, OPT_IDLE },
  { "env", required_argument, NULL, OPT_ENV },
  { "pass-env", required_argument, NULL, OPT_PASS_ENV },
  { "cwd", required_argument, NULL, OPT_CWD },
  { "wait-timeout", required_argument, NULL, OPT_WAIT_TIMEOUT },
  { "run-id", required_argument, NULL, OPT_RUN_ID },
  { "diag-fd", required_argument, NULL, OPT_DIAG_FD },
  { "add-path", required_argument, NULL, OPT_ADD_PATH },
  { "policy", required_argument, NULL, OPT_POLICY },
  { "model", required_argument, NULL, OPT_MODEL },
  { "live", no_argument, NULL, OPT_LIVE },
  { "socket", required_argument, NULL, OPT_SOCKET },
  { NULL, 0, NULL, 0 },
};

void sbx_cli_usage(FILE *out)
{
  fprintf(
      out,
      "Usage: sbx run [OPTIONS] -- CMD [ARG...]\n"
      "       sbx check [--json]\n"
      "       sbx explain [--policy FILE.pol [--workspace DIR]] [--profile NAME] [--bpf]\n"
      "       sbx approvals [--approval-store FILE] list | revoke ID | clear\n"
      "       sbx eval [--input JSON | --input-file FILE] [--timeout SECONDS]\n"
      "                [--memory MIB] [--no-wait] [--audit FILE] (CODE | --code-file FILE)\n"
      "       sbx serve [--idle SECONDS] [-v]\n"
      "       sbx exec [HOST OPTIONS] < REQUEST.json   (docs/exec-api.md)\n"
      "       sbx exec-server [--socket PATH] [HOST OPTIONS]  (JSON-RPC, docs/exec-protocol.md)\n"
      "       sbx --help | --version\n"
      "\n"
      "Runs CMD confined by a security profile, after the compiled scheduler\n"
      "admitted it (see sbx(1), docs/sbx.md).\n"
      "\n"
      "Commands:\n"
      "  run        run CMD inside the sandbox\n"
      "  check      list the kernel features present and the profiles they can enforce\n"
      "  explain    say in plain words what a profile enforces\n"
      "  approvals  list, revoke or clear the standing (\"always\") approval grants\n"
      "  eval       evaluate a JavaScript function on a JSON input in the isolated\n"
      "             worker (the tee tier; docs/tiers.md)\n"
      "  serve      keep warm templates for this user's runs (root only): `sbx run`\n"
      "             then starts from one when the server answers, else cold, with\n"
      "             the same layers either way (docs/sbx.md, \"Warm start\")\n"
      "\n"
      "Options of run (explain takes --profile, and --bpf to add the disassembly\n"
      "of the compiled seccomp filter exactly as the kernel gets it):\n"
      "  --profile NAME     profile name or alias (READ_ONLY, WORKSPACE_WRITE, ...);\n"
      "                     default: $COMMANDER_SECURITY_PROFILE, else strict.\n"
      "                     An unknown name is an error, never a fallback.\n"
      "  --policy FILE.pol  take the profiles from your own policy file instead of the\n"
      "                     linked ones; it may include <profiles.pol> (the installed\n"
      "                     seed profiles) and is refused (exit 125) when another\n"
      "                     user can write it or it lies in the workspace; cold start\n"
      "  --model FILE.pnet  admit through your own scheduler model (its own shared\n"
      "                     state), checked like a policy; cold start\n"
      "  --workspace DIR    the workspace the profile's ${WORKSPACE} rules name\n"
      "                     (default: the current directory)\n"
      "  --tier NAME        the admission tier (default: the profile's default tier)\n"
      "  --backend NAME     local or container (default: the route's backend)\n"
      "  --image NAME       the container backend's image (default: $SBX_CONTAINER_IMAGE)\n"
      "  --lane NAME        the execution lane (default: the route's, else\n"
      "                     interactive); an unknown lane is an error (exit 125)\n"
      "  --label NAME       a label the host attaches to the request (repeatable,\n"
      "                     e.g. untrusted); the routes match on it\n"
      "  --timeout SECONDS  lower the profile's maximum execution time; a value above\n"
      "                     it is an error (exit 125), never silently raised\n"
      "  --no-wait          fail at once (exit 125) when admission is refused,\n"
      "                     instead of waiting in FIFO order for a slot\n"
      "  --wait-timeout SECONDS  wait at most SECONDS for a slot, then exit 125;\n"
      "                     a wait of more than a second is announced on stderr\n"
      "  --env NAME=VALUE   set NAME in the command's environment (repeatable)\n"
      "  --pass-env NAME    pass the caller's NAME through (repeatable); loader\n"
      "                     variables (LD_*, GLIBC_TUNABLES, ...) and names of\n"
      "                     tokens, keys and passwords are refused (exit 125)\n"
      "  --cwd DIR          start in DIR, inside the workspace (relative: to the\n"
      "                     workspace); default: the current directory when it lies\n"
      "                     in the workspace, else the workspace root\n"
      "  --add-path PATH[:ro|:rw]  show one more existing host path, read-only\n"
      "                     (default) or writable, where the profile's allowExtraPath\n"
      "                     permits it; denied paths win (once per run)\n"
      "  --run-id ID        the caller's name for the run ([A-Za-z0-9._:-], at most\n"
      "                     128), in the audit record and approval requests\n"
      "  --diag-fd N        write sbx's own messages (refusals, notes, errors of the\n"
      "                     run) to descriptor N instead of stderr, which then\n"
      "                     carries only the command's output\n"
      "  --audit FILE       append one JSON line per run to FILE (default:\n"
      "                     $SBX_AUDIT_LOG; none when unset); checked before CMD runs\n"
      "  --approver SPEC    who approves the profile's sensitive operations: tty\n"
      "                     (default: a prompt on sbx's terminal), exec:PROGRAM,\n"
      "                     socket:PATH, or none (deny them all); see docs/approvals.md\n"
      "  --approval-timeout SECONDS  no answer within this is a deny (default 60)\n"
      "  --approval-store FILE  standing grants (default: $SBX_APPROVAL_STORE, else\n"
      "                     ~/.config/commander/approvals.json; must be 0600 and yours)\n"
      "  --cold             never ask a running `sbx serve`; always the cold start\n"
      "  -v, --verbose      say on stderr which start-up path ran (warm or cold, why), and\n"
      "                     why refusals could not be named after a failed command\n"
      "\n"
      "Options of serve:\n"
      "  --idle SECONDS     exit after SECONDS without a client (default: never)\n"
      "  -v, --verbose      one line per request on stderr\n"
      "  The socket is $SBX_STATE_DIR/serve.sock; the directory must be the user's,\n"
      "  mode 0700. SIGTERM or SIGINT stops the server and kills its runs.\n"
      "\n"
      "Environment:\n"
      "  COMMANDER_SECURITY_PROFILE  profile when --profile is absent\n"
      "  SBX_AUDIT_LOG               audit log when --audit is absent\n"
      "  SBX_APPROVAL_STORE          approval store when --approval-store is absent\n"
      "  SBX_STATE_DIR               directory of the shared admission state and of\n"
      "                              the `sbx serve` socket\n"
      "                              (default: /run/commander-sandbox as root,\n"
      "                              else $XDG_RUNTIME_DIR/commander-sandbox)\n"
      "\n"
      "Exit status:\n"
      "  N      the command's own exit status\n"
      "  124    the command ran out of time (profile limit or --timeout)\n"
      "  125    sbx itself failed or refused: bad usage, unknown profile,\n"
      "         missing kernel feature, admission refused with --no-wait,\n"
      "         unusable audit log, command denied by the approval workflow\n"
      "  126    the command was found but could not be executed\n"
      "  127    the command was not found\n"
      "  128+N  the command was ended by signal N (e.g. 137 for SIGKILL)\n"
      "  check, explain, --help and --version exit 0, or 125 on error.\n"
      "  exec exits 0 with a result (the statuses above are its sbx_exit), 2 for a\n"
      "  refused request (nothing ran), 125 when it cannot answer.\n");
}

int sbx_cli_parse_seconds(const char *s, uint64_t *ms)
{
  uint64_t whole = 0, frac = 0;
  int nfrac = 0;
  const char *p = s;

  if (!s || !*s)
    return -EINVAL;
  for (; *p >= '0' && *p <= '9'; p++) {
    whole = whole * 10 + (uint64_t)(*p - '0');
    if (whole > SBX_MAX_TIMEOUT_MS / 1000)
      return -EINVAL;
  }
  if (p == s && *p != '.')
    return -EINVAL;
  if (*p == '.') {
    p++;
    for (; *p >= '0' && *p <= '9'; p++) {
      if (++nfrac > 3)
        return -EINVAL;
      frac = frac * 10 + (uint64_t)(*p - '0');
    }
    if (nfrac == 0)
      return -EINVAL;
    for (int i = nfrac; i < 3; i++)
      frac *= 10;
  }
  if (*p != '\0')
    return -EINVAL;
  *ms = whole * 1000 + frac;
  if (*ms == 0 || *ms > SBX_MAX_TIMEOUT_MS)
    return -EINVAL;
  return 0;
}

int sbx_cli_env_name_ok(const char *name, size_t len)
{
  if (len == 0 || len > 128 || (name[0] >= '0' && name[0] <= '9'))
    return -EINVAL;
  for (size_t i = 0; i < len; i++) {
    char c = name[i];
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
      return -EINVAL;
  }
  return 0;
}

/* Appends --env NAME=VALUE (with_value) or --pass-env NAME to list. */
static int sbx_cli_add_env(const char **list, int *n, const char *arg, bool with_value, FILE *err)
{
  const char *opt = with_value ? "--env" : "--pass-env";
  const char *eq = strchr(arg, '=');
  size_t len = with_value ? (eq ? (size_t)(eq - arg) : 0) : strlen(arg);

  if ((with_value && !eq) || sbx_cli_env_name_ok(arg, len) != 0) {
    fprintf(err,
            "sbx: error: %s '%s': expected %s with NAME of letters, digits and '_' "
            "(not starting with a digit)\n",
            opt, arg, with_value ? "NAME=VALUE" : "NAME");
    return -EINVAL;
  }
  if (*n >= SBX_OPT_ENV_MAX) {
    fprintf(err, "sbx: error: %s: at most %d\n", opt, SBX_OPT_ENV_MAX);
    return -EINVAL;
  }
  list[(*n)++] = arg;
  return 0;
}

/* A run id goes into JSON, terminal prompts and file names of the
 * caller's tooling: a small alphabet keeps it inert everywhere. */
static int sbx_cli_run_id_ok(const char *id)
{
  size_t n = strlen(id);
  if (n == 0 || n > SBX_RUN_ID_MAX)
    return -EINVAL;
  for (size_t i = 0; i < n; i++) {
    char c = id[i];
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
          c == '_' || c == ':' || c == '-'))
      return -EINVAL;
  }
  return 0;
}

static int sbx_cli_parse_options(int argc, char *const argv[], struct sbx_opts *o, FILE *err)
{
  const char *sub = argv[0];
  int c;

  /* "+": stop at the first non-option, so CMD's own options are never
   * taken for ours even without "--". ":": we print our own messages. */
  while ((c = getopt_long(argc, argv, "+:hv", sbx_run_options, NULL)) != -1) {
    switch (c) {
    case OPT_PROFILE:
      o->profile = optarg;
      break;
    case OPT_WORKSPACE:
      o->workspace = optarg;
      break;
    case OPT_TIER:
      o->tier = optarg;
      break;
    case OPT_LANE:
      o->lane = optarg;
      break;
    case OPT_BACKEND:
      /* Only the names a route may give: anything else is a typo that
       * must not quietly run on the local backend. */
      if (strcmp(optarg, "local") != 0 && strcmp(optarg, "container") != 0) {
        fprintf(err, "sbx: error: --backend %s: expected local or container\n", optarg);
        return -EINVAL;
      }
      o->backend = optarg;
      break;
    case OPT_IMAGE:
      if (!*optarg) {
        fprintf(err, "sbx: error: --image: empty image name\n");
        return -EINVAL;
      }
      o->image = optarg;
      break;
    case OPT_LABEL:
      /* A label selects a route, which picks a tier and lane: an empty
       * one could only be a mistake. */
      if (!*optarg || o->n_labels >= SBX_OPT_LABEL_MAX) {
        if (*optarg)
          fprintf(err, "sbx: error: --label: at most %d labels\n", SBX_OPT_LABEL_MAX);
        else
          fprintf(err, "sbx: error: --label: empty label\n");
        return -EINVAL;
      }
      o->labels[o->n_labels++] = optarg;
      break;
    case OPT_ROUTES:
      o->routes = true;
      break;
    case OPT_TIMEOUT:
      if (sbx_cli_parse_seconds(optarg, &o->timeout_ms) != 0) {
        fprintf(err,
                "sbx: error: --timeout '%s': expected seconds > 0 (at most 3 decimals, "
                "at most 30 days)\n",
                optarg);
        return -EINVAL;
      }
      o->has_timeout = true;
      break;
    case OPT_NO_WAIT:
      o->no_wait = true;
      break;
    case OPT_AUDIT:
      o->audit_path = optarg;
      break;
    case OPT_BPF:
      o->bpf = true;
      break;
    case OPT_JSON:
      o->json = true;
      break;
    case OPT_APPROVER:
      o->approver = optarg;
      break;
    case OPT_APPROVAL_TIMEOUT:
      if (sbx_cli_parse_seconds(optarg, &o->approval_timeout_ms) != 0 ||
          o->approval_timeout_ms > 24ull * 3600 * 1000) {
        fprintf(err,
                "sbx: error: --approval-timeout '%s': expected seconds > 0, at most "
                "one day\n",
                optarg);
        return -EINVAL;
      }
      break;
    case OPT_APPROVAL_STORE:
      o->approval_store = optarg;
      break;
    case OPT_COLD:
      o->cold = true;
      break;
    case OPT_LIVE:
      o->exec_live = true;
      break;
    case OPT_SOCKET:
      o->exec_socket = optarg;
      break;
    case OPT_VERBOSE:
      o->verbose = true;
      break;
    case OPT_IDLE:
      if (sbx_cli_parse_seconds(optarg, &o->idle_ms) != 0) {
        fprintf(err, "sbx: error: --idle '%s': expected seconds > 0\n", optarg);
        return -EINVAL;
      }
      break;
    case OPT_ENV:
      if (sbx_cli_add_env(o->set_env, &o->n_set_env, optarg, true, err) != 0)
        return -EINVAL;
      break;
    case OPT_PASS_ENV:
      if (sbx_cli_add_env(o->pass_env, &o->n_pass_env, optarg, false, err) != 0)
        return -EINVAL;
      break;
    case OPT_ADD_PATH: {
      /* One per run: a second one is refused, not merged, so the audit
       * record names exactly what was asked. */
      size_t len = strlen(optarg);
      if (o->add_path) {
        fprintf(err, "sbx: error: --add-path: only one per run\n");
        return -EINVAL;
      }
      o->add_rw = false;
      o->add_path_len = len;
      if (len >= 3 &&
          (strcmp(optarg + len - 3, ":ro") == 0 || strcmp(optarg + len - 3, ":rw") == 0)) {
        o->add_rw = optarg[len - 1] == 'w';
        o->add_path_len = len - 3;
      }
      if (o->add_path_len == 0 || o->add_path_len >= 4096) {
        fprintf(err, "sbx: error: --add-path '%s': expected PATH, PATH:ro or PATH:rw\n", optarg);
        return -EINVAL;
      }
      o->add_path = optarg;
      break;
    }
    case OPT_CWD:
      if (!*optarg) {
        fprintf(err, "sbx: error: --cwd: empty directory\n");
        return -EINVAL;
      }
      o->cwd = optarg;
      break;
    case OPT_WAIT_TIMEOUT:
      if (sbx_cli_parse_seconds(optarg, &o->wait_timeout_ms) != 0) {
        fprintf(err,
                "sbx: error: --wait-timeout '%s': expected seconds > 0 (at most 3 "
                "decimals, at most 30 days)\n",
                optarg);
        return -EINVAL;
      }
      o->has_wait_timeout = true;
      break;
    case OPT_RUN_ID:
      if (sbx_cli_run_id_ok(optarg) != 0) {
        fprintf(err, "sbx: error: --run-id '%s': expected 1 to %d of A-Z a-z 0-9 . _ : -\n", optarg,
                SBX_RUN_ID_MAX);
        return -EINVAL;
      }
      o->run_id = optarg;
      break;
    case OPT_DIAG_FD: {
      char *end;
      long fd;
      errno = 0;
      fd = strtol(optarg, &end, 10);
      if (errno || end == optarg || *end || fd < 1 || fd > INT_MAX) {
        fprintf(err, "sbx: error: --diag-fd '%s': expected a descriptor number >= 1\n", optarg);
        return -EINVAL;
      }
      o->diag_fd = (int)fd;
      o->has_diag_fd = true;
      break;
    }
    case OPT_POLICY:
      if (!*optarg) {
        fprintf(err, "sbx: error: --policy: empty file name\n");
        return -EINVAL;
      }
      o->policy = optarg;
      break;
    case OPT_MODEL:
      if (!*optarg) {
        fprintf(err, "sbx: error: --model: empty file name\n");
        return -EINVAL;
      }
      o->model = optarg;
      break;
    case OPT_HELP:
      o->cmd = SBX_CMD_HELP;
      return 0;
    case ':':
      fprintf(err, "sbx: error: option '%s' needs an argument\n", argv[optind - 1]);
      return -EINVAL;
    default:
      fprintf(err, "sbx: error: unknown option '%s' for '%s' (see sbx --help)\n", argv[optind - 1],
              sub);
      return -EINVAL;
    }
  }
  return 0;
}

int sbx_cli_parse(int argc, char *const argv[], struct sbx_opts *o, FILE *err)
{
  const char *sub;
  int r;

  memset(o, 0, sizeof(*o));
  if (argc < 2) {
    fprintf(err, "sbx: error: no command given (see sbx --help)\n");
    return -EINVAL;
  }
  sub = argv[1];
  if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0 || strcmp(sub, "help") == 0) {
    o->cmd = SBX_CMD_HELP;
    return 0;
  }
  if (strcmp(sub, "--version") == 0) {
    o->cmd = SBX_CMD_VERSION;
    return 0;
  }
  if (strcmp(sub, "run") == 0)
    o->cmd = SBX_CMD_RUN;
  else if (strcmp(sub, "check") == 0)
    o->cmd = SBX_CMD_CHECK;
  else if (strcmp(sub, "explain") == 0)
    o->cmd = SBX_CMD_EXPLAIN;
  else if (strcmp(sub, "serve") == 0)
    o->cmd = SBX_CMD_SERVE;
  else if (strcmp(sub, "exec") == 0)
    o->cmd = SBX_CMD_EXEC;
  else if (strcmp(sub, "exec-server") == 0)
    o->cmd = SBX_CMD_EXEC_SERVER;
  else if (strcmp(sub, "approvals") == 0) {
    /* Parsed by sbx_approvals_cmd (runtime/cli/sbx_approve.c). */
    o->cmd = SBX_CMD_APPROVALS;
    o->sub_argv = argv + 1;
    o->sub_argc = argc - 1;
    return 0;
  } else if (strcmp(sub, "eval") == 0) {
    /* Parsed by sbx_eval_cmd (runtime/cli/sbx_eval.c). */
    o->cmd = SBX_CMD_EVAL;
    o->sub_argv = argv + 1;
    o->sub_argc = argc - 1;
    return 0;
  } else {
    fprintf(err,
            "sbx: error: unknown command '%s' (expected run, exec, exec-server, eval, check, "
            "explain, serve or approvals)\n",
            sub);
    return -EINVAL;
  }

  /* optind = 0 makes glibc re-initialise getopt fully, so the parser can
   * run more than once per process (the unit tests do); it then starts at
   * index 1 of the vector it gets, which is why that vector starts at the
   * subcommand. */
  argc--;
  argv++;
  optind = 0;
  opterr = 0;
  r = sbx_cli_parse_options(argc, argv, o, err);
  if (r != 0 || o->cmd == SBX_CMD_HELP)
    return r;

  switch (o->cmd) {
  case SBX_CMD_RUN:
    if (o->exec_live || o->exec_socket) {
      fprintf(err, "sbx: error: run: %s belongs to %s\n", o->exec_live ? "--live" : "--socket",
              o->exec_live ? "exec" : "exec-server");
      return -EINVAL;
    }
    if (o->bpf || o->json || o->idle_ms || o->routes) {
      fprintf(err, "sbx: error: run: %s belongs to %s\n",
              o->bpf      ? "--bpf"
              : o->routes ? "--routes"
              : o->json   ? "--json"
                          : "--idle",
              o->bpf || o->routes ? "explain"
              : o->json           ? "check"
                                  : "serve");
      return -EINVAL;
    }
    if (o->no_wait && o->has_wait_timeout) {
      fprintf(err, "sbx: error: run: --no-wait and --wait-timeout contradict each other\n");
      return -EINVAL;
    }
    if (optind >= argc) {
      fprintf(err, "sbx: error: run: no command given (sbx run [OPTIONS] -- CMD [ARG...])\n");
      return -EINVAL;
    }
    o->cmd_argv = &argv[optind];
    o->cmd_argc = argc - optind;
    return 0;
  case SBX_CMD_CHECK:
  case SBX_CMD_EXPLAIN:
    /* Options that mean nothing here are refused, not ignored: a caller
     * who passed them expected them to matter. */
    /* explain --policy checks the file as a run would, so it takes the
     * workspace the run would keep the policy out of. */
    if ((o->workspace && !(o->cmd == SBX_CMD_EXPLAIN && o->policy)) || o->tier || o->lane ||
        o->has_timeout || o->no_wait || o->audit_path || o->approver || o->approval_timeout_ms ||
        o->approval_store || o->cold || o->verbose || o->idle_ms || o->n_set_env || o->n_pass_env ||
        o->cwd || o->has_wait_timeout || o->run_id || o->model || o->has_diag_fd || o->add_path ||
        o->n_labels || o->exec_live || o->exec_socket || o->backend || o->image ||
        (o->cmd == SBX_CMD_CHECK && (o->profile || o->bpf || o->policy || o->routes)) ||
        (o->cmd == SBX_CMD_EXPLAIN && o->json)) {
      if (o->cmd == SBX_CMD_CHECK)
        fprintf(err, "sbx: error: %s: only --json is accepted\n", sub);
      else
        fprintf(err,
                "sbx: error: %s: only --profile, --bpf and --routes are accepted, and --policy "
                "FILE (with it, --workspace DIR)\n",
                sub);
      return -EINVAL;
    }
    if (optind < argc) {
      fprintf(err, "sbx: error: %s: unexpected argument '%s'\n", sub, argv[optind]);
      return -EINVAL;
    }
    return 0;
  case SBX_CMD_EXEC_SERVER:
    /* The server forwards its host options to every child `sbx exec
     * --live` (docs/exec-protocol.md): the same options as exec, checked
     * here once so a bad one fails at start, not at the first process. */
    if (o->exec_live) {
      fprintf(err, "sbx: error: exec-server: --live is the server's own option for its children\n");
      return -EINVAL;
    }
    o->sub_argv = argv;
    o->sub_argc = argc;
    /* fall through */
  case SBX_CMD_EXEC:
    if (o->cmd == SBX_CMD_EXEC && o->exec_socket) {
      fprintf(err, "sbx: error: exec: --socket belongs to exec-server\n");
      return -EINVAL;
    }
    /* What the run is comes from the request; who approves, where the
     * record goes and the workspace are the host's, never the request's
     * (docs/exec-api.md): an option that would say the same twice is
     * refused, so it cannot silently lose to the other. */
    if (o->profile || o->tier || o->has_timeout || o->n_set_env || o->n_pass_env || o->cwd ||
        o->run_id || o->has_diag_fd || o->add_path || o->policy || o->bpf || o->json ||
        o->idle_ms || o->backend || o->image) {
      fprintf(err, "sbx: error: exec: the run's settings come from the request; only --workspace, "
                   "--audit, --approver, --approval-timeout, --approval-store, --no-wait, "
                   "--wait-timeout, --model, --cold and -v are accepted\n");
      return -EINVAL;
    }
    if (o->no_wait && o->has_wait_timeout) {
      fprintf(err, "sbx: error: exec: --no-wait and --wait-timeout contradict each other\n");
      return -EINVAL;
    }
    if (optind < argc) {
      fprintf(err, "sbx: error: exec: unexpected argument '%s' (the request is read from stdin)\n",
              argv[optind]);
      return -EINVAL;
    }
    return 0;
  case SBX_CMD_SERVE:
    if (o->profile || o->workspace || o->tier || o->lane || o->has_timeout || o->no_wait ||
        o->audit_path || o->approver || o->approval_timeout_ms || o->approval_store || o->bpf ||
        o->json || o->cold || o->n_set_env || o->n_pass_env || o->cwd || o->has_wait_timeout ||
        o->run_id || o->has_diag_fd || o->add_path || o->policy || o->model || o->n_labels ||
        o->routes || o->exec_live || o->exec_socket) {
      fprintf(err, "sbx: error: serve: only --idle and -v are accepted\n");
      return -EINVAL;
    }
    if (optind < argc) {
      fprintf(err, "sbx: error: serve: unexpected argument '%s'\n", argv[optind]);
      return -EINVAL;
    }
    return 0;
  default:
    return 0;
  }
}
