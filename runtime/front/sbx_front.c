/* sbx_front: the executable installed as `sbx` when musl is available: a
 * static binary that starts a warm run itself and hands everything else
 * to the full sbx (sbx-core) with execve (docs/sbx.md, "Front end").
 *
 * Why: every process linked against glibc spends its start probing the
 * CPU (cpuid leaves 2 and 4 for the cache sizes, dozens of times). Under a
 * hypervisor each cpuid traps, and on the machines this project runs on
 * that alone costs about 0.45 ms of every `sbx run`, a fifth of a warm
 * start (docs/performance.md). musl's start-up asks nothing, and a static
 * binary needs no dynamic loader.
 *
 * The rule that keeps the two executables equal: the front end does a run
 * itself only when the full sbx would do exactly the same, i.e. a warm
 * start with no audit log and nothing for the approval workflow to
 * decide. For everything else (another command, --cold, an audit log, an
 * approval option, a profile with approvals or a command an approval rule
 * matches, a profile that writes files (the full sbx checks what that
 * exposes), a caller that is not root with CAP_SYS_ADMIN, no server, any
 * error the full sbx would report and record) it execs the full sbx with
 * the same arguments and environment before it has done anything. When
 * the server declines the run after admission, the slot is given back
 * first, and the full sbx runs it cold (SBX_WARM_DECLINED_ENV says why).
 * The same source files do the shared steps in both executables. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cs_approval.h"
#include "sbx_admit.h"
#include "sbx_audit.h"
#include "sbx_cli.h"
#include "sbx_sandbox.h"
#include "sbx_profile.h"
#include "sbx_route.h"
#include "sbx_run.h"
#include "sbx_run_common.h"
#include "sbx_signal.h"
#include "sbx_tables.h"
#include "sbx_warm.h"

#if !defined(SBX_CORE_INSTALLED) || !defined(SBX_CORE_RELATIVE)
#error "SBX_CORE_INSTALLED, SBX_CORE_RELATIVE: where the full sbx (sbx-core) is installed"
#endif

/* Execs the full sbx with our own argv and environment (plus, after a
 * declined warm start, the reason). Its place: beside this executable (a
 * build tree), else where the install puts it relative to this
 * executable (bin/ -> libexec/commander-sandbox/: any prefix), else the
 * configured install path. Never returns. */
static _Noreturn void sbx_front_core(char *const argv[], const char *declined)
{
  char self[PATH_MAX], core[PATH_MAX + 64];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  char *slash;

  if (declined && setenv(SBX_WARM_DECLINED_ENV, declined, 1) != 0) {
    fprintf(stderr, "sbx: error: handing the run to %s: %s\n", SBX_CORE_INSTALLED, strerror(errno));
    _exit(SBX_EXIT_FAILURE);
  }
  if (n > 0 && (self[n] = '\0', slash = strrchr(self, '/')) != NULL) {
    slash[1] = '\0';
    snprintf(core, sizeof core, "%ssbx-core", self);
    if (access(core, X_OK) == 0)
      execv(core, argv);
    snprintf(core, sizeof core, "%s" SBX_CORE_RELATIVE, self);
    if (access(core, X_OK) == 0)
      execv(core, argv);
  }
  execv(SBX_CORE_INSTALLED, argv);
  fprintf(stderr, "sbx: error: cannot run the full sbx %s: %s\n", SBX_CORE_INSTALLED,
          strerror(errno));
  _exit(SBX_EXIT_FAILURE);
}

/* Does any approval rule (built in, or the profile's own) match argv, by
 * whatever action? Then the approval workflow has something to decide,
 * which only the full sbx does: this errs towards handing over. */
static bool sbx_front_rule_matches(const struct cs_profile *p, char *const *argv)
{
  struct cs_cmdrule_result res;
  if (cs_cmdrule_match(cs_cmdrules_builtin, cs_cmdrules_builtin_count, argv, 0, &res) != 0 ||
      res.rule)
    return true;
  for (uint32_t i = 0; i < p->n_command_rules; i++) {
    const struct cs_command_rule *cr = &p->command_rules[i];
    struct cs_cmdrule r = { .name = cr->name,
                            .program = cr->program,
                            .args = cr->args,
                            .action = CS_CMDRULE_ASK,
                            .operation = CS_APPROVAL_OP_EXEC,
                            .origin = cr->origin };
    if (cs_cmdrule_match(&r, 1, argv, 0, &res) != 0 || res.rule)
      return true;
  }
  return false;
}

/* The run as sbx_run does it when there is no audit log and no approval
 * (see the file comment), or -1 with nothing done but an admission slot
 * taken and given back: then the full sbx must run it, *declined saying
 * why when the server declined it. */
static int sbx_front_run(const struct sbx_tables *t, const struct sbx_opts *o,
                         const struct cs_profile *p, FILE *quiet, const char **declined)
{
  static struct sbx_run_result res;
  static char note[sizeof res.start_note];
  struct sbx_run_request req;
  struct sbx_admit adm;
  char workspace[PATH_MAX], serve_sock[PATH_MAX], serve_dir[PATH_MAX], interrupted[96];
  /* The route exactly as the full sbx picks it (sbx_route.c, shared):
   * both executables admit a request into the same tier and lane. */
  struct sbx_route_request rq = {
    .kind = "command", .profile = p->name, .labels = o->labels, .n_labels = (size_t)o->n_labels
  };
  struct sbx_route_choice route;
  sbx_route_choose(t->routes, t->n_routes, &rq, &route);
  const char *tier = sbx_route_tier(&route, o->tier, p->default_tier);
  const char *lane = sbx_route_lane(&route, o->lane);
  uint64_t timeout_ms = 0;
  struct stat st;
  int code, r;

  /* A check the full sbx would fail with a message (and a record) is
   * left to it: here it only decides to hand over. */
  /* --backend wins over the route: a container run is never started
   * here as a local warm one. */
  if (!tier || strcmp(o->backend ? o->backend : route.backend, "local") != 0 ||
      sbx_run_workspace(o->workspace, workspace, sizeof workspace, quiet) != 0 ||
      sbx_profile_timeout(p, o->has_timeout, o->timeout_ms, &timeout_ms, quiet) != 0 ||
      sbx_run_serve_socket(serve_sock, sizeof serve_sock, serve_dir, sizeof serve_dir) != 0 ||
      stat(serve_sock, &st) != 0 || !S_ISSOCK(st.st_mode))
    return -1;
  /* A caller in a subdirectory of the workspace starts there: the cold
   * path's (the full sbx's) work. */
  {
    char cwd[PATH_MAX];
    if (sbx_run_cwd(NULL, workspace, cwd, sizeof cwd, quiet) != 0 || strcmp(cwd, workspace) != 0)
      return -1;
  }
  memset(&adm, 0, sizeof adm);
  if (sbx_admit_open(&adm, t->model, stderr) != 0)
    return SBX_EXIT_FAILURE;
  if (sbx_admit_acquire(&adm, lane, tier, o->no_wait, 0, stderr) != 0) {
    sbx_admit_close(&adm);
    return SBX_EXIT_FAILURE;
  }
  memset(&req, 0, sizeof req);
  req.profile = p;
  req.workspace = workspace;
  req.argv = o->cmd_argv;
  req.timeout_ms = timeout_ms;
  req.mask_dir = serve_dir;
  req.warm_socket = serve_sock;
  req.on_init = sbx_admit_on_init;
  req.on_init_ctx = &adm;
  r = sbx_run_confined(&req, &res, sbx_warm_confine);
  if (r == SBX_WARM_DECLINED && !sbx_signal_received()) {
    /* Nothing ran: the full sbx runs it cold, after the slot is free. */
    sbx_admit_release(&adm, stderr);
    sbx_admit_close(&adm);
    snprintf(note, sizeof note, "%s", res.start_note);
    *declined = note;
    return -1;
  }
  code = sbx_run_report(o, r == SBX_WARM_DECLINED ? 0 : r, &res, interrupted, sizeof interrupted);
  if (sbx_admit_release(&adm, stderr) != 0)
    code = SBX_EXIT_FAILURE;
  sbx_admit_close(&adm);
  return code;
}

int main(int argc, char *argv[])
{
  struct sbx_tables t = { .profiles = SBX_PROFILES,
                          .n_profiles = SBX_N_PROFILES,
                          .model = &SBX_MODEL,
                          .routes = SBX_ROUTES,
                          .n_routes = SBX_N_ROUTES };
  enum sbx_profile_source src;
  const struct cs_profile *p = NULL;
  const char *declined = NULL, *warm = getenv("SBX_WARM");
  struct sbx_opts o;
  FILE *quiet;
  int code;

  if (sbx_std_fds() != 0)
    return SBX_EXIT_FAILURE;
  if (argc < 2 || strcmp(argv[1], "run") != 0)
    sbx_front_core(argv, NULL);
  /* The checks below only decide whether to hand over; the full sbx
   * reports (and records) what they find. */
  if (!(quiet = fopen("/dev/null", "we")))
    sbx_front_core(argv, NULL);
  if (sbx_cli_parse(argc, argv, &o, quiet) != 0 || o.cmd != SBX_CMD_RUN)
    sbx_front_core(argv, NULL);
  /* Asked to run cold, or with a log or an approval setting: the full sbx. */
  if (o.cold || (warm && strcmp(warm, "0") == 0) || getenv(SBX_WARM_DECLINED_ENV) || o.audit_path ||
      getenv(SBX_AUDIT_ENV) || o.approver || o.approval_store || o.approval_timeout_ms ||
      !sbx_warm_caller_ok() ||
      /* Per-run settings are recorded and checked by the full sbx. */
      o.n_set_env || o.n_pass_env || o.cwd || o.run_id || o.has_wait_timeout || o.has_diag_fd ||
      o.add_path ||
      /* A user's policy or model is compiled and checked by the full sbx;
       * the front end knows the linked tables only. */
      o.policy || o.model)
    sbx_front_core(argv, NULL);
  if (sbx_profile_select(t.profiles, t.n_profiles, o.profile, getenv(SBX_PROFILE_ENV), &p, &src,
                         quiet) != 0 ||
      p->approval_ops || sbx_front_rule_matches(p, o.cmd_argv) ||
      /* A profile that writes may expose the approval store or the state
       * directory, which the full sbx refuses (sbx_run.c,
       * sbx_run_kept_exposed): it decides. */
      p->allow_file_write)
    sbx_front_core(argv, NULL);
  code = sbx_front_run(&t, &o, p, quiet, &declined);
  fclose(quiet);
  if (code < 0)
    sbx_front_core(argv, declined);
  return code;
}
