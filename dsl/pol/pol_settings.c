/* pol_settings: the settings, paths and approvals of one profile
 * declaration, checked on their own (before inheritance) into its delta
 * (pol_internal.h). Every problem is reported at the offending token. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pol_cmdrule.h"
#include "pol_internal.h"

const char *const pol_setting_keys[POL_SET_COUNT] = {
  /* enum pol_setting order (tag: pol_setting_keys) */
  [POL_SET_SUMMARY] = "summary",
  [POL_SET_TIER] = "tier",
  [POL_SET_SHELL] = "allowShell",
  [POL_SET_NETWORK] = "allowNetwork",
  [POL_SET_FILE_WRITE] = "allowFileWrite",
  [POL_SET_FILE_DELETE] = "allowFileDelete",
  [POL_SET_TIME] = "maxExecutionTime",
  [POL_SET_MEMORY] = "maxMemory",
  [POL_SET_CPU] = "maxCpuTime",
  [POL_SET_PROCESSES] = "maxProcesses",
  [POL_SET_OPEN_FILES] = "maxOpenFiles",
  [POL_SET_FILE_SIZE] = "maxFileSize",
  [POL_SET_APPROVE] = "approve",
  [POL_SET_HOME_RO] = "homeReadOnly",
  [POL_SET_HOME_PERSIST] = "homePersistent",
  [POL_SET_EXTRA_PATH] = "allowExtraPath",
};
_Static_assert(sizeof pol_setting_keys / sizeof pol_setting_keys[0] == POL_SET_COUNT,
               "pol_setting_keys");

static const char *const pol_tiers[] = { "v8", "seccomp", "wasm", "tee" };

static int pol_expect_ident(const struct pol_prop *p, const char *what)
{
  if (p->kind != POL_PROP_IDENT) {
    diag_error(&p->value_loc, "'%s' must be %s", p->key.text, what);
    return -EINVAL;
  }
  return 0;
}

static int pol_bool(const struct pol_prop *p, bool *out)
{
  if (p->kind == POL_PROP_IDENT && strcmp(p->text, "true") == 0)
    *out = true;
  else if (p->kind == POL_PROP_IDENT && strcmp(p->text, "false") == 0)
    *out = false;
  else {
    diag_error(&p->value_loc, "'%s' must be true or false", p->key.text);
    return -EINVAL;
  }
  return 0;
}

static int pol_quantity(const struct pol_prop *p, enum pol_unit_kind unit, uint64_t *out)
{
  const char *what = unit == POL_UNIT_TIME_MS ? "a duration such as 30s, 5m or 2h"
                                              : "a size such as 512MiB or 4GiB";
  if (p->kind != POL_PROP_QUANTITY || p->unit != unit) {
    diag_error(&p->value_loc, "'%s' must be %s", p->key.text, what);
    return -EINVAL;
  }
  if (p->number == 0) {
    /* A zero limit would either mean "unlimited" or "nothing runs";
     * neither is what anyone means, so it is refused. */
    diag_error(&p->value_loc, "'%s' must be greater than zero", p->key.text);
    return -EINVAL;
  }
  *out = p->number;
  return 0;
}

static int pol_count(const struct pol_prop *p, uint64_t max, uint64_t *out)
{
  if (p->kind != POL_PROP_NUMBER) {
    diag_error(&p->value_loc, "'%s' must be a plain number", p->key.text);
    return -EINVAL;
  }
  if (p->number == 0 || p->number > max) {
    diag_error(&p->value_loc, "'%s' must be between 1 and %llu", p->key.text,
               (unsigned long long)max);
    return -EINVAL;
  }
  *out = p->number;
  return 0;
}

int pol_check_prop(const struct pol_policy *pol, struct pol_delta *dl, const struct pol_item *it)
{
  const struct pol_prop *p = &it->prop;
  struct pol_profile *v = &dl->values;
  int key = -1;
  for (int k = 0; k < POL_SET_COUNT; k++)
    if (k != POL_SET_APPROVE && strcmp(pol_setting_keys[k], p->key.text) == 0)
      key = k;
  if (key < 0) {
    diag_error(
        &p->key.loc,
        "unknown setting '%s' (expected summary, tier, allowShell, allowNetwork, allowFileWrite, "
        "allowFileDelete, maxExecutionTime, maxMemory, maxCpuTime, maxProcesses, maxOpenFiles, "
        "maxFileSize, homeReadOnly, homePersistent or allowExtraPath)",
        p->key.text);
    return -EINVAL;
  }
  if (dl->set[key]) {
    diag_error(&p->key.loc, "'%s' is set twice in profile '%s'", p->key.text, dl->decl->name.text);
    diag_note(&dl->set[key]->loc, "first set here");
    return -EINVAL;
  }
  if (key >= POL_SET_FIRST_OPTIONAL) {
    int hrc = pol_check_home_prop(pol, dl, it, (enum pol_setting)key);
    if (hrc == 0)
      dl->set[key] = it;
    return hrc;
  }
  if (p->kind == POL_PROP_LIST) {
    diag_error(&p->value_loc,
               "'%s' is not a list setting (only homeReadOnly and homePersistent are)",
               p->key.text);
    return -EINVAL;
  }
  int rc = 0;
  uint64_t ms;
  switch ((enum pol_setting)key) {
  case POL_SET_SUMMARY:
    if (p->kind != POL_PROP_STRING || p->text[0] == '\0' || strlen(p->text) > 200) {
      diag_error(&p->value_loc, "'summary' must be a non-empty string of at most 200 bytes");
      return -EINVAL;
    }
    v->summary = p->text;
    break;
  case POL_SET_TIER:
    rc = pol_expect_ident(p, "a scheduler tier (" POL_TIERS ")");
    if (rc)
      return rc;
    rc = -EINVAL;
    for (size_t t = 0; t < sizeof pol_tiers / sizeof pol_tiers[0]; t++)
      if (strcmp(pol_tiers[t], p->text) == 0)
        rc = 0;
    if (rc) {
      diag_error(&p->value_loc, "unknown scheduler tier '%s' (expected %s)", p->text, POL_TIERS);
      return rc;
    }
    v->tier = p->text;
    break;
  case POL_SET_SHELL:
    rc = pol_expect_ident(p, "none, sandboxed or full");
    if (rc)
      return rc;
    if (strcmp(p->text, "none") == 0)
      v->shell = CS_SHELL_NONE;
    else if (strcmp(p->text, "sandboxed") == 0)
      v->shell = CS_SHELL_SANDBOXED;
    else if (strcmp(p->text, "full") == 0)
      v->shell = CS_SHELL_FULL;
    else {
      diag_error(&p->value_loc, "'allowShell' must be none, sandboxed or full");
      return -EINVAL;
    }
    break;
  case POL_SET_NETWORK:
    rc = pol_bool(p, &v->allow_network);
    break;
  case POL_SET_FILE_WRITE:
    rc = pol_bool(p, &v->allow_file_write);
    break;
  case POL_SET_FILE_DELETE:
    rc = pol_bool(p, &v->allow_file_delete);
    break;
  case POL_SET_TIME:
    rc = pol_quantity(p, POL_UNIT_TIME_MS, &v->limits.max_execution_ms);
    break;
  case POL_SET_CPU:
    rc = pol_quantity(p, POL_UNIT_TIME_MS, &ms);
    if (rc)
      return rc;
    if (ms % 1000) {
      /* RLIMIT_CPU counts whole seconds; rounding would change the limit. */
      diag_error(&p->value_loc, "'maxCpuTime' must be a whole number of seconds");
      return -EINVAL;
    }
    v->limits.max_cpu_seconds = ms / 1000;
    break;
  case POL_SET_MEMORY:
    rc = pol_quantity(p, POL_UNIT_BYTES, &v->limits.max_memory_bytes);
    break;
  case POL_SET_FILE_SIZE:
    rc = pol_quantity(p, POL_UNIT_BYTES, &v->limits.max_file_size);
    break;
  case POL_SET_PROCESSES:
    rc = pol_count(p, 1u << 22, &v->limits.max_processes);
    break;
  case POL_SET_OPEN_FILES:
    rc = pol_count(p, 1u << 20, &v->limits.max_open_files);
    break;
  case POL_SET_APPROVE:
  case POL_SET_HOME_RO:
  case POL_SET_HOME_PERSIST:
  case POL_SET_EXTRA_PATH:
  case POL_SET_COUNT:
    return -EINVAL;
  }
  if (rc)
    return rc;
  dl->set[key] = it;
  return 0;
}

/* Paths are absolute or start with ${WORKSPACE} or ~ (expanded by sbx at
 * run time); ".." is refused because a reader of the table must see the
 * directory a rule covers without resolving anything. */
static int pol_check_path(const struct pol_name *n)
{
  const char *s = n->text;
  const char *rest;
  if (s[0] == '/')
    rest = s;
  else if (strncmp(s, "${WORKSPACE}", 12) == 0)
    rest = s + 12;
  else if (s[0] == '~')
    rest = s + 1;
  else if (strncmp(s, "${", 2) == 0) {
    diag_error(&n->loc, "unknown variable in path '%s' (only ${WORKSPACE} and ~ are expanded)", s);
    return -EINVAL;
  } else {
    diag_error(&n->loc, "path '%s' must be absolute or start with ${WORKSPACE} or ~", s);
    return -EINVAL;
  }
  if (rest[0] != '\0' && rest[0] != '/') {
    diag_error(&n->loc, "path '%s': ${WORKSPACE} and ~ must be followed by '/' or end the path", s);
    return -EINVAL;
  }
  if (strstr(rest, "${")) {
    diag_error(&n->loc, "path '%s': variables may only start a path", s);
    return -EINVAL;
  }
  for (const char *p = rest; (p = strstr(p, "..")) != NULL; p += 2) {
    bool starts = p == rest || p[-1] == '/';
    bool ends = p[2] == '\0' || p[2] == '/';
    if (starts && ends) {
      diag_error(&n->loc, "path '%s' must not contain '..'", s);
      return -EINVAL;
    }
  }
  return 0;
}

static int pol_paths_add(const struct pol_policy *pol, struct pol_path_rule **rules, size_t *n,
                         const struct pol_name *path, uint32_t access)
{
  for (size_t i = 0; i < *n; i++) {
    if (strcmp((*rules)[i].path, path->text) == 0) {
      (*rules)[i].access |= access;
      return 0;
    }
  }
  struct pol_path_rule *grown = realloc(*rules, (*n + 1) * sizeof **rules);
  if (!grown)
    return -ENOMEM;
  *rules = grown;
  struct pol_path_rule *r = &grown[*n];
  memset(r, 0, sizeof *r);
  r->path = strdup(path->text);
  r->origin = pol_origin(pol, &path->loc, NULL);
  r->access = access;
  r->loc = path->loc;
  (*n)++;
  if (!r->path || !r->origin)
    return -ENOMEM;
  return 0;
}

void pol_paths_free(struct pol_path_rule *rules, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    free(rules[i].path);
    free(rules[i].origin);
  }
  free(rules);
}

int pol_check_paths(const struct pol_policy *pol, struct pol_delta *dl, const struct pol_item *it)
{
  bool denied = it->kind == POL_ITEM_DENIED_PATHS;
  bool *set = denied ? &dl->denied_set : &dl->allowed_set;
  const char *what = denied ? "deniedPaths" : "allowedPaths";
  if (*set) {
    diag_error(&it->loc, "'%s' appears twice in profile '%s'", what, dl->decl->name.text);
    return -EINVAL;
  }
  *set = true;
  if (denied)
    dl->denied_append = it->paths->append;
  else
    dl->allowed_append = it->paths->append;
  int rc = 0;
  for (size_t e = 0; e < it->paths->n; e++) {
    const struct pol_path_entry *pe = &it->paths->entries[e];
    uint32_t access;
    const char *a = pe->access.text;
    if (strcmp(a, "read") == 0)
      access = CS_PATH_READ;
    else if (strcmp(a, "write") == 0)
      access = CS_PATH_WRITE;
    else if (strcmp(a, "execute") == 0)
      access = CS_PATH_EXEC;
    else if (strcmp(a, "all") == 0)
      access = CS_PATH_READ | CS_PATH_WRITE | CS_PATH_EXEC;
    else {
      diag_error(&pe->access.loc, "unknown access '%s' (expected read, write, execute or all)", a);
      rc = -EINVAL;
      continue;
    }
    for (size_t i = 0; i < pe->paths.n; i++) {
      if (pol_check_path(&pe->paths.items[i]) != 0) {
        rc = -EINVAL;
        continue;
      }
      int arc = denied
                    ? pol_paths_add(pol, &dl->denied, &dl->n_denied, &pe->paths.items[i], access)
                    : pol_paths_add(pol, &dl->allowed, &dl->n_allowed, &pe->paths.items[i], access);
      if (arc)
        return arc;
    }
  }
  return rc;
}

int pol_check_approve(struct pol_delta *dl, const struct pol_item *it)
{
  static const struct {
    const char *name;
    uint32_t bit;
  } ops[] = {
    { "delete", CS_APPROVE_FILE_DELETE },
    { "network", CS_APPROVE_EXTERNAL_NETWORK },
    { "sudo", CS_APPROVE_SUDO },
    { "git-config", CS_APPROVE_GIT_CONFIG },
  };
  if (dl->set[POL_SET_APPROVE]) {
    diag_error(&it->loc, "'approve' appears twice in profile '%s'", dl->decl->name.text);
    diag_note(&dl->set[POL_SET_APPROVE]->loc, "first set here");
    return -EINVAL;
  }
  uint32_t bits = 0;
  int rc = 0;
  for (size_t i = 0; i < it->approve.n; i++) {
    const struct pol_name *n = &it->approve.items[i];
    if (strcmp(n->text, "none") == 0) {
      if (it->approve.n != 1) {
        diag_error(&n->loc, "'none' cannot be combined with other operations");
        rc = -EINVAL;
      }
      continue;
    }
    bool found = false;
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
      if (strcmp(ops[k].name, n->text) == 0) {
        bits |= ops[k].bit;
        found = true;
      }
    }
    if (!found) {
      diag_error(&n->loc,
                 "unknown operation '%s' (expected delete, network, sudo, git-config or none)",
                 n->text);
      rc = -EINVAL;
    }
  }
  if (rc)
    return rc;
  dl->values.approval_ops = bits;
  dl->set[POL_SET_APPROVE] = it;
  return 0;
}

int pol_check_profile(struct pol_policy *pol, struct pol_delta *dl)
{
  int rc = 0;
  const struct pol_items *body = &dl->decl->body;
  for (size_t i = 0; i < body->n; i++) {
    const struct pol_item *it = body->items[i];
    int irc = 0;
    switch (it->kind) {
    case POL_ITEM_PROP:
      irc = pol_check_prop(pol, dl, it);
      break;
    case POL_ITEM_ALLOWED_PATHS:
    case POL_ITEM_DENIED_PATHS:
      irc = pol_check_paths(pol, dl, it);
      break;
    case POL_ITEM_APPROVE:
      irc = pol_check_approve(dl, it);
      break;
    case POL_ITEM_RULE:
      irc = pol_cmdrule_check(dl->decl, it);
      break;
    case POL_ITEM_BLOCK:
      if (strcmp(it->rule_name.text, "network") != 0) {
        diag_error(&it->rule_name.loc, "unknown block '%s' (expected network)", it->rule_name.text);
        irc = -EINVAL;
        break;
      }
      irc = pol_check_network(pol, dl, it);
      break;
    case POL_ITEM_SYSCALLS:
      for (size_t k = 0; k < it->stmts.n; k++) {
        struct pol_prepared *grown = realloc(dl->stmts, (dl->nstmts + 1) * sizeof *grown);
        if (!grown)
          return -ENOMEM;
        dl->stmts = grown;
        int src = pol_check_stmt(pol, dl, it->stmts.items[k], &dl->stmts[dl->nstmts]);
        dl->nstmts++;
        if (src == -ENOMEM)
          return src;
        if (src)
          irc = src;
      }
      break;
    }
    if (irc == -ENOMEM)
      return irc;
    if (irc)
      rc = irc;
  }
  return rc;
}
