/* sbx_run: one confined, admitted, audited run (see sbx_run.h).
 *
 * Order matters and is the security argument of the command:
 *   1. everything that can refuse without side effects (profile, workspace,
 *      --timeout, audit log) is checked first, so a refusal costs nothing
 *      and never leaves a command without its record;
 *   2. admission, so at most what the model allows runs at once;
 *   3. confinement and the command (sbx_confine_run fails closed);
 *   4. the ticket is completed, the record appended, the status returned. */
#include "sbx_run.h"

#include <errno.h>
#include <signal.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cs_version.h"
#include "sbx_admit.h"
#include "sbx_route.h"
#include "sbx_admit_record.h"
#include "sbx_approve.h"
#include "sbx_audit.h"
#include "sbx_run_net.h"
#include "sbx_confine.h"
#include "sbx_container.h"
#include "sbx_denial.h"
#include "sbx_exposed.h"
#include "sbx_made.h"
#include "sbx_profile.h"
#include "sbx_run_hooks.h"
#include "sbx_run_common.h"
#include "sbx_signal.h"
#include "sbx_warm.h"

/* 0 unless host path `log` (resolved: no symlink left in it) lies where
 * the profile lets the command write (sbx_exposed.h: the writable
 * workspace, any other write rule, the persistent home, a writable
 * --add-path): what sbx keeps there (`what`: the audit log, the approval
 * store, sbx's state directory) could then be forged by the command for
 * every later run, so the run is refused before anything runs (-EPERM,
 * with a message). */
static int sbx_run_exposed(const struct cs_profile *p, const char *workspace, const char *extra,
                           const char *what, const char *given, const char *log, bool whole_host)
{
  struct sbx_exposure e;

  if (!sbx_exposed(p, workspace, getenv("HOME"), extra, log, whole_host, &e))
    return 0;
  switch (e.kind) {
  case SBX_EXPOSED_BY_HOME:
    fprintf(sbx_diag(),
            "sbx: error: %s %s lies in %s, the persistent home the command of profile "
            "'%s' writes; put it outside\n",
            what, given, e.dir, p->name);
    break;
  case SBX_EXPOSED_BY_EXTRA:
    fprintf(sbx_diag(), "sbx: error: %s %s lies in %s, which --add-path makes writable\n", what,
            given, e.dir);
    break;
  case SBX_EXPOSED_BY_RULE:
    fprintf(sbx_diag(),
            "sbx: error: %s %s%s%s%s lies in %s, which profile '%s' lets the command "
            "write (%s); put it outside, or use a narrower --workspace\n",
            what, given, strcmp(given, log) != 0 ? " (at " : "", strcmp(given, log) != 0 ? log : "",
            strcmp(given, log) != 0 ? ")" : "", e.dir, p->name, e.rule_origin);
    break;
  }
  return -EPERM;
}

/* The audit log, by its open descriptor (where the records really go). */
static int sbx_run_log_exposed(const struct cs_profile *p, const char *workspace, const char *extra,
                               const struct sbx_audit *audit)
{
  char fdpath[64], log[PATH_MAX];
  ssize_t n;

  if (audit->fd < 0 || !p->allow_file_write)
    return 0;
  snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", audit->fd);
  n = readlink(fdpath, log, sizeof(log) - 1);
  if (n <= 0) {
    /* Cannot tell where the log is: refuse rather than guess. */
    fprintf(sbx_diag(), "sbx: error: audit log %s: cannot resolve where it is: %s\n", audit->path,
            strerror(errno));
    return -EPERM;
  }
  log[n] = '\0';
  return sbx_run_exposed(p, workspace, extra, "audit log", log, log, true);
}

/* A file or directory sbx keeps (it may not exist yet): resolved, or, when
 * missing, its nearest existing ancestor, which is where the command
 * would create it. */
static int sbx_run_kept_exposed(const struct cs_profile *p, const char *workspace,
                                const char *extra, const char *what, const char *path,
                                bool whole_host)
{
  char probe[PATH_MAX], *real = NULL, *slash;
  int r;

  if (!p->allow_file_write)
    return 0;
  if (snprintf(probe, sizeof(probe), "%s", path) >= (int)sizeof(probe)) {
    fprintf(sbx_diag(), "sbx: error: %s %s: path too long\n", what, path);
    return -EPERM;
  }
  while (!(real = realpath(probe, NULL)) && errno == ENOENT && (slash = strrchr(probe, '/'))) {
    struct stat st;
    /* A symlink to nothing: the file would be created wherever it points,
     * which may be made to exist later (inside the workspace). */
    if (lstat(probe, &st) == 0) {
      fprintf(sbx_diag(),
              "sbx: error: %s %s: %s is a symlink to nothing, so where it would be "
              "written cannot be told\n",
              what, path, probe);
      return -EPERM;
    }
    if (slash == probe)
      slash[1] = '\0'; /* "/x" missing: its ancestor is "/" */
    else
      *slash = '\0';
  }
  if (!real) {
    /* Cannot tell where it is: refuse rather than guess. */
    fprintf(sbx_diag(), "sbx: error: %s %s: cannot resolve where it is: %s\n", what, path,
            strerror(errno));
    return -EPERM;
  }
  r = sbx_run_exposed(p, workspace, extra, what, path, real, whole_host);
  free(real);
  return r;
}

/* The names of --env and --pass-env against the environment's rules
 * (runtime/request/sbx_env_rules.c): a refused name fails the run with
 * the rule named, before anything ran (confinement checks them again).
 * Why not drop it and run: the caller asked for the variable and would
 * get a run that behaves differently from what it asked, silently. */
static int sbx_run_env_refused(const struct sbx_opts *o, char *why, size_t why_size, char *what,
                               size_t what_size)
{
  for (int i = 0; i < o->n_set_env; i++) {
    const char *eq = strchr(o->set_env[i], '=');
    size_t len = (size_t)(eq - o->set_env[i]);
    if (sbx_env_refusal(o->set_env[i], len, why, why_size) != 0) {
      fprintf(sbx_diag(), "sbx: error: --env %.*s: refused by %s\n", (int)len, o->set_env[i], why);
      /* The name only: the value of a refused variable may be the very
       * secret the rule keeps out (AWS_SECRET_ACCESS_KEY=...). */
      snprintf(what, what_size, "%.*s", (int)len, o->set_env[i]);
      return -EPERM;
    }
  }
  for (int i = 0; i < o->n_pass_env; i++)
    if (sbx_env_refusal(o->pass_env[i], strlen(o->pass_env[i]), why, why_size) != 0) {
      fprintf(sbx_diag(), "sbx: error: --pass-env %s: refused by %s\n", o->pass_env[i], why);
      snprintf(what, what_size, "%s", o->pass_env[i]);
      return -EPERM;
    }
  return 0;
}

/* The audit view of the confinement result. */
static void sbx_run_record_result(struct sbx_audit_record *rec, const struct sbx_run_result *res,
                                  struct sbx_audit_denial *den, size_t *n_den)
{
  rec->duration_ms = res->elapsed_ms;
  rec->timeout_ms = res->timeout_ms ? res->timeout_ms : rec->timeout_ms;
  switch (res->outcome) {
  case SBX_OUTCOME_EXITED:
    rec->outcome = SBX_AUDIT_EXITED;
    rec->status = res->status;
    break;
  case SBX_OUTCOME_SIGNALED:
    rec->outcome = SBX_AUDIT_SIGNALED;
    rec->signal = res->status;
    break;
  case SBX_OUTCOME_TIMED_OUT:
    rec->outcome = SBX_AUDIT_TIMED_OUT;
    break;
  case SBX_OUTCOME_EXEC_FAILED:
    rec->outcome = SBX_AUDIT_EXITED;
    rec->status = res->exit_code;
    rec->error = res->message[0] ? res->message : NULL;
    break;
  case SBX_OUTCOME_FAILED:
  default:
    rec->outcome = SBX_AUDIT_NOT_RUN;
    rec->error = res->message[0] ? res->message : "confinement failed";
    break;
  }
  /* A refusal by a layer (not by the command) is a denial with its rule. */
  if (res->outcome == SBX_OUTCOME_FAILED || res->outcome == SBX_OUTCOME_EXEC_FAILED) {
    den[*n_den].layer = sbx_layer_name(res->layer);
    den[*n_den].rule = res->message[0] ? res->message : NULL;
    den[*n_den].what = NULL;
    den[*n_den].action = "not run";
    (*n_den)++;
  }
  /* seccomp's refusals in every process of the run, each with the rule of
   * the profile that ran behind it; expected fallbacks (clone3's ENOSYS)
   * are not refusals of the command's and are left out. */
  for (int i = 0; i < res->n_sc_denials; i++) {
    if (res->sc_denials[i].expected)
      continue;
    den[*n_den].layer = sbx_layer_name(SBX_LAYER_SECCOMP);
    den[*n_den].rule = res->sc_denials[i].rule;
    den[*n_den].action = res->sc_denials[i].action;
    den[*n_den].what = res->sc_denials[i].what;
    (*n_den)++;
  }
  /* Landlock's refusals, named from the kernel's audit records. */
  for (int i = 0; i < res->n_ll_denials; i++) {
    den[*n_den].layer = sbx_layer_name(SBX_LAYER_LANDLOCK);
    den[*n_den].rule = res->ll_denials[i].rule;
    den[*n_den].what = res->ll_denials[i].what;
    den[*n_den].action = res->ll_denials[i].action;
    (*n_den)++;
  }
}

int sbx_run(const struct sbx_tables *t, const struct sbx_opts *o)
{
  return sbx_run_observed(t, o, NULL);
}

int sbx_run_observed(const struct sbx_tables *t, const struct sbx_opts *o,
                     const struct sbx_run_observer *obs)
{
  const struct cs_profile *p = NULL;
  enum sbx_profile_source src = SBX_PROFILE_FROM_DEFAULT;
  struct sbx_audit audit = { .fd = -1 };
  struct sbx_admit adm;
  struct sbx_route_choice route = { NULL, "default", "local" };
  const char *lane = NULL;
  struct sbx_audit_record rec;
  struct sbx_run_request req;
  struct sbx_run_result res;
  struct sbx_audit_denial den[3 + SBX_SC_DENIALS_MAX + SBX_LL_DENIALS_MAX];
  struct sbx_approve appr;
  bool appr_open = false;
  /* A proxied profile's network (sbx_run_net.h). */
  struct sbx_run_net net;
  bool net_open = false;
  size_t n_den = 0;
  char workspace[PATH_MAX];
  char interrupted[96];
  char profile_error[128];
  char serve_sock[PATH_MAX], serve_dir[PATH_MAX];
  char cwd[PATH_MAX], env_why[192], extra[PATH_MAX];
  char env_what[160];
  const char *env_kept[SBX_OPT_ENV_MAX + 1];
  const char *env_passed[SBX_OPT_ENV_MAX + 1] = { NULL },
                                           *env_unset[SBX_OPT_ENV_MAX + 1] = { NULL };
  size_t n_passed = 0, n_unset = 0;
  const char *audit_path = o->audit_path ? o->audit_path : getenv(SBX_AUDIT_ENV);
  bool admit_open = false;
  /* What earlier runs of the workspace made (sbx_made.h). */
  struct sbx_made made = { 0 };
  char made_dir[PATH_MAX];
  bool made_used = false;
  int code = SBX_EXIT_FAILURE;
  bool container = false;
  int r, rr;

  /* Before anything of the run can fail: every message from here on goes
   * where the caller asked (--diag-fd), or to stderr. */
  if (o->has_diag_fd && sbx_diag_open(o->diag_fd) != 0)
    return SBX_EXIT_FAILURE;
  memset(&rec, 0, sizeof(rec));
  memset(&res, 0, sizeof(res));
  memset(&adm, 0, sizeof(adm));
  clock_gettime(CLOCK_REALTIME, &rec.start);
  rec.sbx_version = CS_VERSION;
  rec.argv = o->cmd_argv;
  rec.argc = o->cmd_argc;
  rec.model = t->model->model_name;
  rec.policy_file = t->policy_file;
  rec.model_file = t->model_file;
  rec.sbx_exit = SBX_EXIT_FAILURE;
  rec.run_id = o->run_id;
  rec.env_set = o->set_env;
  rec.wait_timeout_ms = o->has_wait_timeout ? o->wait_timeout_ms : 0;
  /* Which passed names the caller really had (their values are not
   * recorded: docs/audit-log.md). */
  for (int i = 0; i < o->n_pass_env; i++) {
    if (getenv(o->pass_env[i]))
      env_passed[n_passed++] = o->pass_env[i];
    else
      env_unset[n_unset++] = o->pass_env[i];
  }
  rec.env_passed = env_passed;
  rec.env_unset = env_unset;

  /* The log first: every later refusal, even of an unknown profile (an
   * agent probing for more rights is worth an auditor's eye), is recorded. */
  if (sbx_audit_open(&audit, audit_path, sbx_diag()) != 0)
    return SBX_EXIT_FAILURE;
  /* A user's policy or model that was refused (sbx_main.c, the reason
   * already on stderr) is recorded like an unknown profile: nothing ran. */
  if (t->refused) {
    rec.profile_source = o->profile ? "flag" : getenv(SBX_PROFILE_ENV) ? "env" : "default";
    rec.error = t->refused;
    goto record;
  }

  if (sbx_profile_select(t->profiles, t->n_profiles, o->profile, getenv(SBX_PROFILE_ENV), &p, &src,
                         sbx_diag()) != 0) {
    const char *asked = o->profile ? o->profile : getenv(SBX_PROFILE_ENV);
    snprintf(profile_error, sizeof(profile_error), "unknown profile '%.64s' (from %s)",
             asked ? asked : SBX_DEFAULT_PROFILE, sbx_profile_source_name(src));
    rec.profile_source = sbx_profile_source_name(src);
    rec.error = profile_error;
    goto record;
  }
  rec.profile = p->name;
  rec.profile_alias = p->alias;
  rec.profile_source = sbx_profile_source_name(src);
  rec.limits = &p->limits;
  /* The route: what this request is (a command, its profile, the host's
   * labels) decides the backend, tier and lane; --tier and --lane win. */
  {
    struct sbx_route_request rq = {
      .kind = "command", .profile = p->name, .labels = o->labels, .n_labels = (size_t)o->n_labels
    };
    sbx_route_choose(t->routes, t->n_routes, &rq, &route);
  }
  rec.route = route.name;
  rec.backend = route.backend;
  rec.tier = sbx_route_tier(&route, o->tier, p->default_tier);
  lane = sbx_route_lane(&route, o->lane);
  /* Named with the route, so a run refused before admission (an approval,
   * the environment) still says which lane it would have taken. */
  if (sbx_admit_has_lanes(t->model))
    rec.lane = lane ? lane : SBX_DEFAULT_LANE;
  rec.home_read_only = p->home_read_only;
  rec.n_home_read_only = p->n_home_read_only;
  rec.home_persistent = p->home_persistent;
  rec.n_home_persistent = p->n_home_persistent;
  if (o->add_path) {
    /* PATH without its :ro / :rw; the plan resolves and checks it. */
    snprintf(extra, sizeof extra, "%.*s", (int)o->add_path_len, o->add_path);
    rec.extra_path = extra;
    rec.extra_rw = o->add_rw;
  }

  if (sbx_run_workspace(o->workspace, workspace, sizeof(workspace), sbx_diag()) != 0) {
    rec.error = "workspace unusable";
    goto record;
  }
  rec.workspace = workspace;
  if (sbx_run_env_refused(o, env_why, sizeof env_why, env_what, sizeof env_what) != 0) {
    rec.error = "environment variable refused by an env rule";
    /* The record's settings keep the values of the names that passed
     * only: a refused name's value may be the secret the rule keeps out
     * (the denial names it, without its value). */
    for (int i = 0, k = 0; i <= o->n_set_env; i++) {
      const char *eq = i < o->n_set_env ? strchr(o->set_env[i], '=') : NULL;
      char why[192];
      if (i == o->n_set_env)
        env_kept[k] = NULL;
      else if (eq &&
               sbx_env_refusal(o->set_env[i], (size_t)(eq - o->set_env[i]), why, sizeof why) == 0)
        env_kept[k++] = o->set_env[i];
    }
    rec.env_set = env_kept;
    den[n_den].layer = sbx_layer_name(SBX_LAYER_ENV);
    den[n_den].rule = env_why;
    /* The name only: a refused --env's value may be the secret itself. */
    den[n_den].what = env_what;
    den[n_den].action = "not run";
    n_den++;
    goto record;
  }
  if (sbx_run_cwd(o->cwd, workspace, cwd, sizeof cwd, sbx_diag()) != 0) {
    rec.error = "--cwd unusable or outside the workspace";
    goto record;
  }
  rec.cwd = cwd;
  if (sbx_run_log_exposed(p, workspace, o->add_rw ? rec.extra_path : NULL, &audit) != 0) {
    rec.error = "audit log writable by the command";
    goto record;
  }
  if (sbx_profile_timeout(p, o->has_timeout, o->timeout_ms, &rec.timeout_ms, sbx_diag()) != 0) {
    rec.error = "--timeout above the profile's maxExecutionTime";
    goto record;
  }
  if (!rec.tier) {
    fprintf(sbx_diag(), "sbx: error: profile '%s' has no default tier; pass --tier\n", p->name);
    rec.error = "no tier";
    goto record;
  }
  /* --backend wins over the route. Local and container exist; a route
   * to another is refused, never run here instead (the policy asked for
   * that isolation). */
  if (o->backend)
    rec.backend = o->backend;
  container = strcmp(rec.backend, "container") == 0;
  if (!container && strcmp(rec.backend, "local") != 0) {
    fprintf(sbx_diag(),
            "sbx: error: route '%s' sends this run to backend '%s', which this sbx does not "
            "have (local and container only); nothing ran\n",
            route.name, rec.backend);
    rec.error = "backend not available";
    goto record;
  }

  /* Approvals before admission: a command a human refuses never takes a
   * slot, and one waiting for a human holds none (docs/approvals.md). */
  {
    struct sbx_approve_opts ao = { .approver = o->approver,
                                   .timeout_ms = (unsigned)o->approval_timeout_ms,
                                   .store = o->approval_store };
    if (sbx_approve_begin(&appr, &ao, p, o->cmd_argv, &audit, sbx_diag()) != 0) {
      rec.error = "approval workflow unavailable";
      goto record;
    }
    appr_open = true;
    if (obs && obs->approval) {
      appr.observe = obs->approval;
      appr.observe_ctx = obs->ctx;
    }
    appr.unotify.workspace = workspace; /* bound at the same path in the view */
    appr.unotify.run_id = o->run_id;
    appr.unotify.cwd = cwd;
    appr.cwd = cwd;
    /* Whatever grants rights or decides admissions must be out of the
     * command's reach for writing, whatever the workspace (issue 12, 5):
     * a grant appended to the store would let a later run's rm through
     * unasked. A store named on purpose is checked like --audit; the
     * default one and the state directory are not held against a profile
     * that makes the whole host writable (permissive: by design). */
    if (appr.store[0] &&
        sbx_run_kept_exposed(p, workspace, o->add_rw ? rec.extra_path : NULL, "approval store",
                             appr.store, appr.store_explicit) != 0) {
      rec.error = "approval store writable by the command";
      goto record;
    }
    {
      char state[PATH_MAX];
      if (sbx_admit_state_dir(state, sizeof(state)) == 0 &&
          sbx_run_kept_exposed(p, workspace, o->add_rw ? rec.extra_path : NULL, "state directory",
                               state, false) != 0) {
        rec.error = "state directory writable by the command";
        goto record;
      }
    }
    /* delete: when earlier runs of this workspace were going (sbx_made.h),
     * so that what they made (a build's outputs) is removed unasked. Kept
     * where no command can write, like the store: a span written by a
     * command would make every file of its time look made by a run. */
    if ((appr.unotify.ops & CS_APPROVE_FILE_DELETE) &&
        sbx_made_dir(made_dir, sizeof made_dir) == 0) {
      if (sbx_run_kept_exposed(p, workspace, o->add_rw ? rec.extra_path : NULL,
                               "record of earlier runs", made_dir, false) != 0) {
        rec.error = "record of earlier runs writable by the command";
        goto record;
      }
      if (sbx_made_load(made_dir, workspace, &made) != 0) {
        fprintf(sbx_diag(), "sbx: error: record of earlier runs: out of memory\n");
        rec.error = "out of memory";
        goto record;
      }
      appr.unotify.made = &made;
      made_used = true;
    }
    if (sbx_approve_command(&appr, sbx_diag()) != 0) {
      rec.error = appr.message;
      den[n_den].layer = "approval";
      den[n_den].rule = appr.rule[0] ? appr.rule : NULL;
      den[n_den].what = o->cmd_argv[0];
      den[n_den].action = "not run";
      n_den++;
      goto record;
    }
  }

  r = t->model_state_name ? sbx_admit_open_named(&adm, t->model, t->model_state_name, sbx_diag())
                          : sbx_admit_open(&adm, t->model, sbx_diag());
  if (r != 0) {
    rec.error = "admission state unavailable";
    goto record;
  }
  admit_open = true;
  if (sbx_admit_record(&adm, lane, o->no_wait, &rec, den, &n_den, sbx_diag()) != 0)
    goto record;

  if (container) {
    /* Approvals asked at the system-call layer (deletes, git config,
     * connections) need sbx's own supervisor, which the container does
     * not run under: refused rather than run without them. */
    if (appr.unotify.ops || o->add_path) {
      /* --add-path is not mounted in this first cut: refused, never
       * dropped (the caller expects the path to be there). */
      snprintf(
          res.message, sizeof res.message,
          o->add_path
              ? "container: --add-path is not supported by the container backend (profile '%s')"
              : "container: profile '%s' asks a person at the system-call layer, "
                "which the container backend cannot do",
          p->name);
      res.outcome = SBX_OUTCOME_FAILED;
      res.exit_code = SBX_EXIT_FAILURE;
      res.layer = o->add_path ? SBX_LAYER_REQUEST : SBX_LAYER_SECCOMP;
      r = 0;
    } else {
      struct sbx_container_request cr = { .profile = p,
                                          .workspace = workspace,
                                          .cwd = cwd,
                                          .argv = o->cmd_argv,
                                          .image = o->image,
                                          .timeout_ms = rec.timeout_ms,
                                          .set_env = o->n_set_env ? o->set_env : NULL,
                                          .pass_env = o->n_pass_env ? o->pass_env : NULL };
      r = sbx_container_run(&cr, &res, &rec.image);
    }
    code = sbx_run_report(o, r, &res, interrupted, sizeof(interrupted));
    sbx_run_record_result(&rec, &res, den, &n_den);
    if (sbx_admit_release(&adm, sbx_diag()) != 0)
      code = SBX_EXIT_FAILURE;
    goto record;
  }

  memset(&req, 0, sizeof(req));
  req.profile = p;
  req.workspace = workspace;
  req.argv = o->cmd_argv;
  req.timeout_ms = rec.timeout_ms;
  req.pass_env = o->n_pass_env ? o->pass_env : NULL;
  req.set_env = o->n_set_env ? o->set_env : NULL;
  /* The workspace root is the default the warm start can serve too. */
  req.cwd = strcmp(cwd, workspace) != 0 ? cwd : NULL;
  req.extra_path = rec.extra_path;
  req.extra_access = o->add_rw ? CS_PATH_READ | CS_PATH_WRITE : CS_PATH_READ;
  req.unotify = sbx_approve_unotify(&appr);
  req.freeze = appr.freeze_used ? &appr.freeze : NULL;
  req.on_init = sbx_admit_on_init;
  req.on_init_ctx = &adm;
  /* The supervisor, the warm start, the approvals' system-call layer and
   * the kernel's audit records: everything confinement calls back. */
  req.hooks = &sbx_run_hooks;
  /* A proxied profile: its destinations the policy leaves to a person
   * are asked through the same workflow, by name (docs/network-proxy.md). */
  if (sbx_net_proxied(p)) {
    if (sbx_run_net_begin(&net, &appr, workspace, cwd, o->run_id,
                          (unsigned)o->approval_timeout_ms) != 0) {
      fprintf(sbx_diag(), "sbx: error: network proxy: out of memory\n");
      rec.error = "out of memory";
      goto record;
    }
    net_open = true;
    req.proxy = &net.cfg;
  }
  /* An approved `git config` may write .git/config (docs/confinement.md). */
  if (appr.git_config_granted)
    req.flags |= SBX_RUN_ALLOW_GIT_CONFIG;
  /* A running `sbx serve` of ours is asked first (never with --cold or
   * SBX_WARM=0); whatever it answers, the layers are the same. */
  if (sbx_run_serve_socket(serve_sock, sizeof(serve_sock), serve_dir, sizeof(serve_dir)) == 0) {
    /* Made now if missing (as sbx serve makes it), so that the mask is
     * there even when a server starts after this run's view was built. */
    if (mkdir(serve_dir, 0700) != 0 && errno != EEXIST)
      fprintf(sbx_diag(), "sbx: warning: %s: %s\n", serve_dir, strerror(errno));
    req.mask_dir = serve_dir; /* in every view, cold ones too */
    /* Set by the front end when the server declined this run before it
     * handed the run here (sbx_front.c): not asked twice. */
    req.warm_declined = getenv(SBX_WARM_DECLINED_ENV);
    /* The server holds templates of the linked profiles only: a run of
     * a user's policy or model is always cold. */
    if (!o->cold && !req.warm_declined && !t->policy_file && !t->model_file &&
        !(getenv("SBX_WARM") && strcmp(getenv("SBX_WARM"), "0") == 0))
      req.warm_socket = serve_sock;
  }
  r = sbx_run_confined(&req, &res, sbx_confine_run);
  /* Every process of the run is gone: its span ends now. Not recorded
   * only means its outputs are asked about later (closed). */
  if (made_used && (rr = sbx_made_record(made_dir, workspace, &made)) != 0)
    fprintf(sbx_diag(), "sbx: warning: record of earlier runs %s: %s\n", made_dir, strerror(-rr));
  if (net_open)
    rec.network = sbx_run_net_audit(&net);
  rec.start_path = res.start_path[0] ? res.start_path : NULL;
  rec.home_state = res.home_state;
  rec.home_notes = res.home_notes;
  code = sbx_run_report(o, r, &res, interrupted, sizeof(interrupted));
  sbx_run_record_result(&rec, &res, den, &n_den);
  if (sbx_signal_received()) {
    /* The supervisor's view ("init ended without a report") is our own
     * doing here, not a layer's refusal: the record says what happened. */
    rec.outcome = SBX_AUDIT_INTERRUPTED;
    rec.signal = sbx_signal_received();
    rec.error = interrupted;
    n_den = res.denied_syscall >= 0 || res.n_ll_denials ? n_den : 0;
  }

  /* A ticket that cannot be completed leaves its slot to reclamation; the
   * run itself happened, so its record is still written. */
  if (sbx_admit_release(&adm, sbx_diag()) != 0)
    code = SBX_EXIT_FAILURE;

record:
  rec.sbx_exit = code;
  rec.denials = den;
  rec.n_denials = n_den;
  if (sbx_audit_append(&audit, &rec, sbx_diag()) != 0)
    code = SBX_EXIT_FAILURE;
  if (obs && obs->finished) {
    /* Told while every string the record points to still lives. */
    struct sbx_run_outcome out = { .rec = &rec, .code = code };
    rec.sbx_exit = code;
    obs->finished(obs->ctx, &out);
  }
  if (admit_open)
    sbx_admit_close(&adm);
  if (appr_open)
    sbx_approve_end(&appr);
  if (net_open)
    sbx_run_net_end(&net);
  sbx_made_free(&made);
  sbx_audit_close(&audit);
  return code;
}

int sbx_serve_cmd(const struct sbx_tables *t, const struct sbx_opts *o)
{
  char sock[PATH_MAX], dir[PATH_MAX];
  struct sbx_serve_opts so = { .socket_path = sock,
                               .profiles = t->profiles,
                               .n_profiles = t->n_profiles,
                               .idle_ms = o->idle_ms,
                               .verbose = o->verbose };
  if (sbx_run_serve_socket(sock, sizeof(sock), dir, sizeof(dir)) != 0) {
    fprintf(stderr, "sbx serve: no state directory: set %s\n", SBX_STATE_DIR_ENV);
    return SBX_EXIT_FAILURE;
  }
  /* The state directory as admission makes it (0700 when new), then ours
   * alone inside it; sbx_serve refuses a directory that is not (0700). */
  {
    char state[PATH_MAX];
    if (sbx_admit_state_dir(state, sizeof(state)) == 0 && mkdir(state, 0700) != 0 &&
        errno != EEXIST) {
      fprintf(stderr, "sbx serve: %s: %s\n", state, strerror(errno));
      return SBX_EXIT_FAILURE;
    }
  }
  if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
    fprintf(stderr, "sbx serve: %s: %s\n", dir, strerror(errno));
    return SBX_EXIT_FAILURE;
  }
  return sbx_serve(&so) == 0 ? 0 : SBX_EXIT_FAILURE;
}
