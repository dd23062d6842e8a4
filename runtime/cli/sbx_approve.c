/* sbx_approve: the approval workflow in `sbx run` (see sbx_approve.h). */
#include "sbx_diag.h"
#include "sbx_approve.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sbx_audit.h"
#include "sbx_request.h"

/* One JSON line per decision, appended with one write like the run
 * records (docs/audit-log.md, "Approval records"). A failed write is
 * reported; the decision stands (the run record still follows). */
static void sbx_approve_record(void *ctx, const struct cs_approval_request *req,
                               const struct cs_approval_decision *d)
{
  struct sbx_approve *a = ctx;
  struct timespec now;
  char when[40];
  json_t *o, *argv;
  char *text = NULL;

  if (a->observe)
    a->observe(a->observe_ctx, req, d);
  if (!a->audit || a->audit->fd < 0)
    return;
  clock_gettime(CLOCK_REALTIME, &now);
  sbx_audit_rfc3339(&now, when, sizeof when);
  argv = json_array();
  for (size_t i = 0; req->argv && req->argv[i] && i < 64; i++) {
    json_t *s = json_string(req->argv[i]);
    json_array_append_new(argv, s ? s : json_string("<not UTF-8>"));
  }
  o = json_pack("{s:i, s:s, s:s, s:i, s:I, s:s, s:s, s:o, s:s?, s:s?, s:s?, s:s?, s:s, s:s, "
                "s:s, s:s, s:I, s:s?}",
                "schema", SBX_AUDIT_SCHEMA, "record", "approval", "time", when, "pid",
                (int)getpid(), "id", (json_int_t)req->id, "operation",
                cs_approval_op_name(req->operation), "layer", req->layer ? req->layer : "?",
                "command", argv, "path", req->path, "address", req->address, "profile",
                req->profile, "rule", req->rule, "decision", d->allow ? "allow" : "deny", "scope",
                cs_approval_scope_name(d->scope), "approver", d->approver, "reason", d->reason,
                "latency_ms", (json_int_t)d->latency_ms, "run_id", req->run_id);
  if (o)
    text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
  if (text) {
    size_t n = strlen(text);
    char *line = malloc(n + 2);
    if (line) {
      memcpy(line, text, n);
      line[n] = '\n';
      if (write(a->audit->fd, line, n + 1) != (ssize_t)(n + 1))
        fprintf(sbx_diag(), "sbx: warning: approval record not written to the audit log\n");
      free(line);
    }
  }
  free(text);
  json_decref(o);
}

int sbx_approve_begin(struct sbx_approve *a, const struct sbx_approve_opts *o,
                      const struct cs_profile *p, char *const *argv, struct sbx_audit *audit,
                      FILE *err)
{
  struct cs_approval_opts co;
  const char *spec = o && o->approver ? o->approver : "tty";
  const char *store = o && o->store ? o->store : getenv(SBX_APPROVAL_STORE_ENV);
  int r;

  memset(a, 0, sizeof *a);
  memset(&co, 0, sizeof co);
  a->profile = p;
  a->audit = audit;
  a->argv = argv;
  if (strcmp(spec, "tty") == 0) {
    /* The terminal is shared with the sandboxed command: the prompt is
     * drawn only while the run is frozen (sbx_freeze.c says why). */
    struct cs_tty_guard guard;
    sbx_freeze_init(&a->freeze);
    a->freeze_used = true;
    a->unotify.freeze = &a->freeze;
    guard = sbx_freeze_guard(&a->freeze);
    if ((r = cs_approver_tty_guarded(&guard, &co.approver)) != 0) {
      fprintf(sbx_diag(), "sbx: error: approvals: the terminal approver: %s\n", strerror(-r));
      sbx_freeze_fini(&a->freeze);
      a->freeze_used = false;
      return r;
    }
  } else if (strcmp(spec, "none") != 0 && (r = cs_approver_parse(spec, &co.approver)) != 0) {
    fprintf(err, "sbx: error: --approver %s: expected tty, exec:PROGRAM, socket:PATH or none\n",
            spec);
    return r;
  }
  a->store_explicit = store != NULL;
  if (store)
    snprintf(a->store, sizeof a->store, "%s", store);
  else if (cs_approval_store_default(a->store, sizeof a->store) != 0)
    a->store[0] = '\0'; /* no HOME: no standing grants */
  co.timeout_ms = o ? o->timeout_ms : 0;
  co.store_path = a->store[0] ? a->store : NULL;
  co.record = sbx_approve_record;
  co.record_ctx = a;
  r = cs_approval_create(&co, &a->mgr);
  if (r != 0) {
    fprintf(err, "sbx: error: approvals: %s\n", strerror(-r));
    goto fail_freeze;
  }
  a->unotify.mgr = a->mgr;
  a->unotify.profile = p->name;
  a->unotify.argv = argv;
  a->unotify.ops = p->approval_ops & SBX_UNOTIFY_OPS;
  /* A proxied run reaches nothing but loopback by its own connect(2): its
   * network is asked about by name, in the proxy, and an address-level
   * question here would only ask about the proxy's own port. */
  if (sbx_net_proxied(p))
    a->unotify.ops &= ~(uint32_t)CS_APPROVE_EXTERNAL_NETWORK;
  /* The supervisor's work for the command is bounded by the CPU budget
   * the command has for itself (sbx_unotify_charge.c). */
  a->unotify.cpu_budget_ns = p->limits.max_cpu_seconds * 1000000000ull;
  /* Compiled now, in sbx itself: the sandbox's process only loads it. */
  if (a->unotify.ops && (r = sbx_unotify_prepare(a->unotify.ops)) != 0) {
    fprintf(err, "sbx: error: approvals: compiling the system-call filter: %s\n", strerror(-r));
    cs_approval_destroy(a->mgr);
    a->mgr = NULL;
    goto fail_freeze;
  }
  return 0;
fail_freeze:
  if (a->freeze_used)
    sbx_freeze_fini(&a->freeze);
  a->freeze_used = false;
  return r;
}

void sbx_approve_end(struct sbx_approve *a)
{
  cs_approval_destroy(a->mgr);
  a->mgr = NULL;
  if (a->freeze_used)
    sbx_freeze_fini(&a->freeze);
  a->freeze_used = false;
}

/* Is operation `op` something profile p lets run without anyone asked? */
static bool sbx_approve_permitted(const struct cs_profile *p, enum cs_approval_operation op)
{
  switch (op) {
  case CS_APPROVAL_OP_DELETE:
    return p->allow_file_delete;
  case CS_APPROVAL_OP_NETWORK:
    return p->allow_network;
  case CS_APPROVAL_OP_GIT_CONFIG:
    return p->allow_file_write;
  case CS_APPROVAL_OP_EXEC:
    return true;
  case CS_APPROVAL_OP_SUDO: /* never: sudo is a way out of every profile */
  default:
    return false;
  }
}

static void sbx_approve_targets_free(char **t)
{
  for (size_t i = 0; t && t[i]; i++)
    free(t[i]);
  free(t);
}

/* What a delete command's arguments name, for the prompt: each argument
 * that is not an option, resolved as the command will find it (from its
 * working directory, inside the workspace, bound at the same path): every directory component
 * through realpath, the final name as given (rm removes a symlink, not
 * its target). An argument whose directory does not exist names nothing
 * and is left out. NULL-terminated; NULL on -ENOMEM (the prompt then
 * shows the arguments only). Why: `rm build/` + 600 x `./` +
 * `../src/important.c` must not read as a file under build/. */
static char **sbx_approve_targets(char *const *argv, const char *workspace)
{
  size_t n = 0, k = 0;
  bool operands_only = false;
  char **out;

  while (argv[n])
    n++;
  out = calloc(n + 1, sizeof *out);
  if (!out)
    return NULL;
  for (size_t i = 1; i < n; i++) {
    const char *w = argv[i], *name;
    char path[PATH_MAX], *dir, *real;
    size_t len, end;
    if (!operands_only && strcmp(w, "--") == 0) {
      operands_only = true;
      continue;
    }
    if ((!operands_only && w[0] == '-') || !w[0])
      continue;
    if (snprintf(path, sizeof path, "%s%s%s", w[0] == '/' || !workspace ? "" : workspace,
                 w[0] == '/' || !workspace ? "" : "/", w) >= (int)sizeof path)
      continue;
    len = strlen(path);
    end = len;
    while (end > 1 && path[end - 1] == '/')
      end--;
    while (end > 0 && path[end - 1] != '/')
      end--;
    name = w + strlen(w) - (len - end);
    dir = path;
    path[end] = '\0';
    if (!end)
      continue;
    real = realpath(dir, NULL);
    if (!real)
      continue;
    if (asprintf(&out[k], "%s%s%s", real, strcmp(real, "/") == 0 ? "" : "/", name) < 0) {
      out[k] = NULL;
      free(real);
      sbx_approve_targets_free(out);
      return NULL;
    }
    free(real);
    k++;
  }
  return out;
}

int sbx_approve_command(struct sbx_approve *a, FILE *err)
{
  const struct cs_profile *p = a->profile;
  struct cs_cmdrule *rules = NULL;
  struct cs_cmdrule_result res;
  struct cs_approval_request req;
  struct cs_approval_decision d;
  size_t n = 0;
  char **targets = NULL;
  char prog[256]; /* argv[0], escaped: the messages go to the terminal */
  int r;

  const bool proxied = sbx_net_proxied(p);

  cs_approval_escape(a->argv[0], prog, sizeof prog);
  rules = calloc(cs_cmdrules_builtin_count + p->n_command_rules + 1, sizeof *rules);
  if (!rules) {
    r = -ENOMEM;
    goto fail;
  }
  /* A rule for an operation the profile permits outright is dropped: only
   * the operations the profile lists under `approve` ask, and those it
   * neither permits nor approves are refused (the layers below would
   * refuse them anyway; refusing up front says why). */
  for (size_t i = 0; i < cs_cmdrules_builtin_count; i++) {
    const struct cs_cmdrule *rule = &cs_cmdrules_builtin[i];
    if (!(p->approval_ops & CS_APPROVAL_OP_BIT(rule->operation)) &&
        sbx_approve_permitted(p, rule->operation))
      continue;
    /* A proxied profile's network is asked about by destination, in the
     * proxy (docs/network-proxy.md): asking whether `curl` or `git clone`
     * may use the network at all would ask about every destination at
     * once, the very question the proxy exists not to ask. */
    if (proxied && rule->operation == CS_APPROVAL_OP_NETWORK && rule->action == CS_CMDRULE_ASK)
      continue;
    rules[n++] = *rule;
  }
  /* The profile's own rules (`rule` in .pol, examples checked by pnetc):
   * an ask for an operation the profile permits outright is dropped like
   * a built-in one; allow and deny always count (strictest wins, so an
   * allow never overrides another rule's ask or deny). */
  for (uint32_t i = 0; i < p->n_command_rules; i++) {
    const struct cs_command_rule *cr = &p->command_rules[i];
    if (cr->operation >= CS_APPROVAL_OP_COUNT_ || cr->action > CS_CMDRULE_DENY) {
      r = -EPROTO; /* a table this sbx does not understand: refuse */
      goto fail;
    }
    if (cr->action == CS_CMDRULE_ASK && !(p->approval_ops & CS_APPROVAL_OP_BIT(cr->operation)) &&
        cr->operation != CS_APPROVAL_OP_EXEC &&
        sbx_approve_permitted(p, (enum cs_approval_operation)cr->operation))
      continue;
    /* The same for the profile's own network asks; its allow and deny
     * rules still count (a `deny` of a program stays a deny). */
    if (proxied && cr->action == CS_CMDRULE_ASK && cr->operation == CS_APPROVAL_OP_NETWORK)
      continue;
    rules[n++] = (struct cs_cmdrule){
      .name = cr->name,
      .program = cr->program,
      .args = cr->args,
      .action = (enum cs_cmdrule_action)cr->action,
      .operation = (enum cs_approval_operation)cr->operation,
      .origin = cr->origin,
    };
  }
  r = cs_cmdrule_match(rules, n, a->argv, p->approval_ops, &res);
  if (r != 0)
    goto fail;
  if (!res.rule || res.action == CS_CMDRULE_ALLOW)
    goto done;
  snprintf(a->rule, sizeof a->rule, "%s rule '%s' (%s)",
           strcmp(res.rule->origin, "builtin") == 0 ? "builtin" : res.rule->origin, res.rule->name,
           cs_approval_op_name(res.rule->operation));
  if (res.action == CS_CMDRULE_DENY) {
    snprintf(a->message, sizeof a->message,
             "approval: %s denied by %s: profile %s neither permits nor approves '%s'", prog,
             a->rule, p->name, cs_approval_op_name(res.rule->operation));
    fprintf(err, "sbx: %s\n", a->message);
    r = -EPERM;
    goto done;
  }
  memset(&req, 0, sizeof req);
  req.operation = res.rule->operation;
  req.argv = (const char *const *)a->argv;
  req.profile = p->name;
  req.rule = a->rule;
  req.layer = "command";
  req.workspace = a->unotify.workspace;
  req.run_id = a->unotify.run_id;
  req.cwd = a->cwd ? a->cwd : a->unotify.workspace;
  if (req.operation == CS_APPROVAL_OP_DELETE) {
    /* From where the command starts (--cwd), or `rm x` in a subdirectory
     * would be shown as the workspace's x. */
    targets = sbx_approve_targets(a->argv, req.cwd);
    req.targets = (const char *const *)targets;
    /* `path` names the first of them, so an approver that reads only
     * `path` (as for a system-call layer deletion) is not shown null;
     * `targets` has them all. */
    if (targets && targets[0])
      req.path = targets[0];
  }
  r = cs_approval_ask(a->mgr, &req, &d);
  if (r != 0) {
    /* A message longer than a->message is cut there; the audit record
     * keeps the decision whole. */
    if (snprintf(a->message, sizeof a->message, "approval: %s denied (%s, %s): %s [%s]", prog,
                 cs_approval_op_name(req.operation), a->rule, d.reason,
                 d.approver) >= (int)sizeof a->message)
      memcpy(a->message + sizeof a->message - 4, "...", 4);
    fprintf(err, "sbx: %s\n", a->message);
    r = -EPERM;
    goto done;
  }
  if (req.operation == CS_APPROVAL_OP_GIT_CONFIG)
    a->git_config_granted = true;
  if (req.operation == CS_APPROVAL_OP_DELETE)
    a->unotify.preapproved |= CS_APPROVE_FILE_DELETE;
  if (req.operation == CS_APPROVAL_OP_NETWORK)
    a->unotify.preapproved |= CS_APPROVE_EXTERNAL_NETWORK;
  r = 0;
  goto done;
fail:
  /* Every failure of the workflow itself is a deny. */
  snprintf(a->message, sizeof a->message, "approval: %s not run: command rules unusable (%s)", prog,
           strerror(-r));
  fprintf(err, "sbx: %s\n", a->message);
  r = -EPERM;
done:
  sbx_approve_targets_free(targets);
  free(rules);
  return r;
}

const struct sbx_unotify_cfg *sbx_approve_unotify(struct sbx_approve *a)
{
  return a->unotify.ops ? &a->unotify : NULL;
}

int sbx_approvals_cmd(int argc, char *const argv[], FILE *out, FILE *err)
{
  char store[4096];
  const char *path = getenv(SBX_APPROVAL_STORE_ENV);
  int i = 0, r;

  /* argv[0] is "approvals". */
  for (i = 1; i + 1 < argc && strcmp(argv[i], "--approval-store") == 0; i += 2)
    path = argv[i + 1];
  if (!path) {
    if (cs_approval_store_default(store, sizeof store) != 0) {
      fprintf(err, "sbx: error: approvals: no HOME or XDG_CONFIG_HOME; pass --approval-store\n");
      return 125;
    }
    path = store;
  }
  if (i < argc && strcmp(argv[i], "list") == 0 && i + 1 == argc) {
    r = cs_approval_store_list(path, out);
  } else if (i < argc && strcmp(argv[i], "clear") == 0 && i + 1 == argc) {
    r = cs_approval_store_clear(path);
  } else if (i < argc && strcmp(argv[i], "revoke") == 0 && i + 2 == argc) {
    char *end;
    unsigned long long id = strtoull(argv[i + 1], &end, 10);
    if (!argv[i + 1][0] || *end) {
      fprintf(err, "sbx: error: approvals revoke: '%s' is not a grant id\n", argv[i + 1]);
      return 125;
    }
    r = cs_approval_store_revoke(path, id);
  } else {
    fprintf(err, "usage: sbx approvals [--approval-store FILE] list | revoke ID | clear\n");
    return 125;
  }
  if (r == -EACCES)
    fprintf(err,
            "sbx: error: approvals: %s is not safe to use (must be a regular file owned "
            "by you, mode 0600, not a symlink)\n",
            path);
  else if (r != 0)
    fprintf(err, "sbx: error: approvals: %s: %s\n", path,
            r == -ENOENT   ? "no such grant"
            : r == -EPROTO ? "malformed store"
                           : strerror(-r));
  return r == 0 ? 0 : 125;
}
