/* pol_cmdrule: command-level approval rules of a profile (pol_cmdrule.h). */
#include "pol_cmdrule.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_cmdrule.h"

static const char *const pol_cmdrule_actions[] = { "allow", "ask", "deny" };

/* One key of the body: NULL when absent. -EINVAL (printed) when it repeats
 * a single-valued key. */
static const struct pol_path_entry *pol_cmdrule_key(const struct pol_path_block *b, const char *key)
{
  for (size_t i = 0; i < b->n; i++)
    if (strcmp(b->entries[i].access.text, key) == 0)
      return &b->entries[i];
  return NULL;
}

/* Checks the examples of `key` (match: must match; nomatch: must not). */
static int pol_cmdrule_examples(const struct pol_item *it, const struct cs_cmdrule *r,
                                const struct pol_path_entry *e, bool want)
{
  char buf[1024];
  char *argv[65];
  int rc = 0;

  for (size_t k = 0; k < e->paths.n; k++) {
    const struct pol_name *ex = &e->paths.items[k];
    int n = cs_cmdrule_split(ex->text, buf, sizeof buf, argv, 65);
    if (n < 0) {
      diag_error(&ex->loc, "example of rule \"%s\" is empty or longer than 64 words / 1023 bytes",
                 it->rule_name.text);
      rc = -EINVAL;
      continue;
    }
    if (cs_cmdrule_matches(r, argv) != want) {
      diag_error(&ex->loc, "example \"%s\" %s rule \"%s\" (program \"%s\"%s%s%s)", ex->text,
                 want ? "does not match" : "matches", it->rule_name.text, r->program,
                 r->args && r->args[0] ? ", args \"" : "", r->args && r->args[0] ? r->args : "",
                 r->args && r->args[0] ? "\"" : "");
      rc = -EINVAL;
    }
  }
  return rc;
}

int pol_cmdrule_check(const struct pol_profile_decl *decl, const struct pol_item *it)
{
  static const char *const keys[] = { "program", "args", "match", "nomatch" };
  const struct pol_path_block *b = it->paths;
  const struct pol_path_entry *prog, *args, *m;
  struct cs_cmdrule r;
  enum cs_approval_operation op;
  int rc = 0, action = -1;

  (void)decl;
  if (b->append) {
    diag_error(&b->loc, "a rule body is '{ ... }', not '+= { ... }'");
    rc = -EINVAL;
  }
  for (int a = 0; a < 3; a++)
    if (strcmp(it->rule_action.text, pol_cmdrule_actions[a]) == 0)
      action = a;
  if (action < 0) {
    diag_error(&it->rule_action.loc, "unknown rule action '%s' (expected allow, ask or deny)",
               it->rule_action.text);
    rc = -EINVAL;
  }
  if (cs_approval_op_parse(it->rule_op.text, &op) != 0) {
    diag_error(&it->rule_op.loc,
               "unknown operation '%s' (expected delete, network, sudo, git-config or exec)",
               it->rule_op.text);
    rc = -EINVAL;
  }
  if (!it->rule_name.text[0]) {
    diag_error(&it->rule_name.loc, "a rule needs a name");
    rc = -EINVAL;
  }
  for (size_t i = 0; i < b->n; i++) {
    const struct pol_path_entry *e = &b->entries[i];
    bool known = false;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
      known = known || strcmp(e->access.text, keys[k]) == 0;
    if (!known) {
      diag_error(&e->access.loc, "unknown rule key '%s' (expected program, args, match or nomatch)",
                 e->access.text);
      rc = -EINVAL;
      continue;
    }
    if ((strcmp(e->access.text, "program") == 0 || strcmp(e->access.text, "args") == 0) &&
        (e->paths.n != 1 || pol_cmdrule_key(b, e->access.text) != e)) {
      diag_error(&e->access.loc, "'%s' takes one string and appears once", e->access.text);
      rc = -EINVAL;
    }
  }
  prog = pol_cmdrule_key(b, "program");
  if (!prog) {
    diag_error(&it->rule_name.loc, "rule \"%s\" has no 'program'", it->rule_name.text);
    rc = -EINVAL;
  }
  m = pol_cmdrule_key(b, "match");
  /* A rule with no example that must match is a rule nobody showed to
   * work: the examples are the reviewer's evidence. */
  if (!m) {
    diag_error(&it->rule_name.loc, "rule \"%s\" has no 'match' example", it->rule_name.text);
    rc = -EINVAL;
  }
  if (rc)
    return rc;
  args = pol_cmdrule_key(b, "args");
  memset(&r, 0, sizeof r);
  r.name = it->rule_name.text;
  r.program = prog->paths.items[0].text;
  r.args = args ? args->paths.items[0].text : "";
  r.action = (enum cs_cmdrule_action)action;
  r.operation = op;
  for (size_t i = 0; i < b->n; i++) {
    const struct pol_path_entry *e = &b->entries[i];
    if (strcmp(e->access.text, "match") == 0 || strcmp(e->access.text, "nomatch") == 0) {
      int erc = pol_cmdrule_examples(it, &r, e, strcmp(e->access.text, "match") == 0);
      if (erc)
        rc = erc;
    }
  }
  return rc;
}

int pol_cmdrule_collect(const struct pol_policy *pol, const struct pol_profile_decl *decl,
                        struct pol_profile *out)
{
  char suffix[160];

  snprintf(suffix, sizeof suffix, "(profile %s)", decl->name.text);
  for (size_t i = 0; i < decl->body.n; i++) {
    const struct pol_item *it = decl->body.items[i];
    const struct pol_path_entry *prog, *args;
    struct pol_cmd_rule *grown, *r;
    enum cs_approval_operation op = CS_APPROVAL_OP_EXEC;

    if (it->kind != POL_ITEM_RULE)
      continue;
    grown = realloc(out->cmd_rules, (out->n_cmd_rules + 1) * sizeof *grown);
    if (!grown)
      return -ENOMEM;
    out->cmd_rules = grown;
    r = &grown[out->n_cmd_rules];
    memset(r, 0, sizeof *r);
    out->n_cmd_rules++;
    prog = pol_cmdrule_key(it->paths, "program");
    args = pol_cmdrule_key(it->paths, "args");
    cs_approval_op_parse(it->rule_op.text, &op);
    r->operation = (uint32_t)op;
    for (uint32_t a = 0; a < 3; a++)
      if (strcmp(it->rule_action.text, pol_cmdrule_actions[a]) == 0)
        r->action = a;
    r->name = strdup(it->rule_name.text);
    r->program = strdup(prog ? prog->paths.items[0].text : "*");
    r->args = strdup(args ? args->paths.items[0].text : "");
    r->origin = pol_origin(pol, &it->loc, suffix);
    r->loc = it->loc;
    if (!r->name || !r->program || !r->args || !r->origin)
      return -ENOMEM;
  }
  return 0;
}

void pol_cmdrule_lint(const struct pol_profile *p)
{
  static const uint32_t bit[CS_APPROVAL_OP_COUNT_] = {
    [CS_APPROVAL_OP_DELETE] = CS_APPROVE_FILE_DELETE,
    [CS_APPROVAL_OP_NETWORK] = CS_APPROVE_EXTERNAL_NETWORK,
    [CS_APPROVAL_OP_SUDO] = CS_APPROVE_SUDO,
    [CS_APPROVAL_OP_GIT_CONFIG] = CS_APPROVE_GIT_CONFIG,
  };
  for (size_t i = 0; i < p->n_cmd_rules; i++) {
    const struct pol_cmd_rule *r = &p->cmd_rules[i];
    if (r->action != CS_CMDRULE_ASK || r->operation >= CS_APPROVAL_OP_EXEC ||
        (p->approval_ops & bit[r->operation]))
      continue;
    diag_warning(&r->loc,
                 "rule \"%s\" asks about '%s', which profile '%s' does not approve: sbx runs "
                 "such commands without asking when the profile permits '%s', and refuses them "
                 "otherwise",
                 r->name, cs_approval_op_name((enum cs_approval_operation)r->operation), p->name,
                 cs_approval_op_name((enum cs_approval_operation)r->operation));
  }
}

void pol_cmdrules_free(struct pol_cmd_rule *r, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    free(r[i].name);
    free(r[i].program);
    free(r[i].args);
    free(r[i].origin);
  }
  free(r);
}
