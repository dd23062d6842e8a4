/* pol_resolve: turns the declarations of a policy into checked profiles.
 *
 * Stages, each reporting every error it finds before the next starts:
 *   1. constants (each may use the ones defined before it),
 *   2. syscall groups (members: names resolved by libseccomp, or groups
 *      defined before),
 *   3. each profile declaration on its own: settings, paths, approvals and
 *      syscall statements are checked and lowered (a "delta"),
 *   4. inheritance: `extends` chains are followed root first (cycles are
 *      errors) and the deltas applied in order,
 *   5. the composed profile must say everything the runtime needs.
 *
 * Syscall statement semantics (docs/pol-language.md, "Rules"): statements
 * apply in order, the parent's before the child's. An unconditional
 * statement replaces everything said before about that call; a
 * conditional one adds an exception, tried before the call's fallback. */
#include <errno.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>

#include "pol_consts.h"
#include "pol_internal.h"

#define POL_MAX_PROFILES 256

char *pol_origin(const struct pol_policy *pol, const struct diag_loc *loc, const char *suffix) {
  const char *path = loc->file ? loc->file->path : "?";
  size_t dlen = strlen(pol->main_dir);
  /* Paths relative to the main file's directory keep the generated
   * tables identical whatever directory the build runs pnetc from. */
  if (strcmp(pol->main_dir, ".") != 0 && strncmp(path, pol->main_dir, dlen) == 0 && path[dlen] == '/')
    path += dlen + 1;
  else if (strncmp(path, "./", 2) == 0)
    path += 2;
  char *out = NULL;
  int n = suffix ? asprintf(&out, "%s:%d:%d %s", path, loc->line, loc->col, suffix)
                 : asprintf(&out, "%s:%d:%d", path, loc->line, loc->col);
  return n < 0 ? NULL : out;
}

char *pol_display_path(const struct pol_policy *pol, size_t i) {
  const char *path = pol->sources[i]->path;
  if (i == 0) {
    const char *slash = strrchr(path, '/');
    return strdup(slash ? slash + 1 : path);
  }
  struct diag_loc loc = {pol->sources[i], 0, 0};
  char *o = pol_origin(pol, &loc, NULL);
  if (!o) return NULL;
  char *colon = strstr(o, ":0:0");
  if (colon) *colon = '\0';
  return o;
}

static void pol_oom(void) { fprintf(diag_stream(), "pnetc: error: out of memory\n"); }

/* ---- 1. constants ---------------------------------------------------- */

int pol_value_eval(const struct pol_policy *pol, const struct pol_value *v, size_t before, uint64_t *out) {
  uint64_t acc = 0;
  int rc = 0;
  for (size_t i = 0; i < v->n; i++) {
    const struct pol_term *t = &v->terms[i];
    uint64_t x = 0;
    if (!t->is_name) {
      x = t->negative ? (uint64_t)0 - t->number : t->number;
      if (t->negative && t->number > (uint64_t)INT64_MAX + 1) {
        diag_error(&t->loc, "-%llu is below the smallest 64-bit integer", (unsigned long long)t->number);
        rc = -EINVAL;
      }
    } else {
      bool found = false;
      for (size_t c = 0; c < before && c < pol->nconsts; c++) {
        if (strcmp(pol->consts[c].decl->name.text, t->name) == 0) {
          x = pol->consts[c].value;
          found = true;
          break;
        }
      }
      if (!found && pol_const_lookup(t->name, &x) != 0) {
        diag_error(&t->loc, "unknown constant '%s'", t->name);
        rc = -EINVAL;
      }
    }
    acc |= x;
  }
  *out = acc;
  return rc;
}

static int pol_resolve_consts(struct pol_policy *pol) {
  int rc = 0;
  size_t n = 0;
  for (size_t i = 0; i < pol->ndecls; i++)
    if (pol->decls[i]->kind == POL_DECL_CONST) n++;
  pol->consts = calloc(n ? n : 1, sizeof *pol->consts);
  if (!pol->consts) return -ENOMEM;
  for (size_t i = 0; i < pol->ndecls; i++) {
    const struct pol_decl *d = pol->decls[i];
    if (d->kind != POL_DECL_CONST) continue;
    uint64_t dummy;
    bool dup = false;
    for (size_t c = 0; c < pol->nconsts; c++) {
      if (strcmp(pol->consts[c].decl->name.text, d->name.text) == 0) {
        diag_error(&d->name.loc, "constant '%s' is defined twice", d->name.text);
        diag_note(&pol->consts[c].decl->name.loc, "first definition is here");
        dup = true;
        break;
      }
    }
    if (!dup && pol_const_lookup(d->name.text, &dummy) == 0) {
      /* Shadowing a header constant would make TIOCSTI mean two things. */
      diag_error(&d->name.loc, "constant '%s' is already defined by the system headers", d->name.text);
      dup = true;
    }
    uint64_t v = 0;
    if (pol_value_eval(pol, d->value, pol->nconsts, &v) != 0 || dup) {
      rc = -EINVAL;
      continue;
    }
    pol->consts[pol->nconsts].decl = d;
    pol->consts[pol->nconsts].value = v;
    pol->nconsts++;
  }
  return rc;
}

/* ---- 2. groups ------------------------------------------------------- */

static int pol_syscall_nr(const struct pol_name *n) {
  int nr = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, n->text);
  /* libseccomp returns negative pseudo numbers for calls other
   * architectures have (socketcall, ...) and __NR_SCMP_ERROR for unknown
   * names: neither can be filtered on x86_64. */
  if (nr < 0) {
    diag_error(&n->loc, "unknown system call '%s' on x86_64", n->text);
    return -1;
  }
  return nr;
}

static const struct pol_groupdef *pol_group_find(const struct pol_policy *pol, const char *name) {
  for (size_t g = 0; g < pol->ngroups; g++)
    if (strcmp(pol->groups[g].decl->name.text, name) == 0) return &pol->groups[g];
  return NULL;
}

/* Adds nr to a sorted set; 0 or -ENOMEM. */
static int pol_set_add(int **nrs, const char ***names, size_t *n, int nr, const char *name) {
  size_t lo = 0, hi = *n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if ((*nrs)[mid] < nr) lo = mid + 1;
    else hi = mid;
  }
  if (lo < *n && (*nrs)[lo] == nr) return 0;
  int *gn = realloc(*nrs, (*n + 1) * sizeof **nrs);
  if (!gn) return -ENOMEM;
  *nrs = gn;
  const char **gs = realloc(*names, (*n + 1) * sizeof **names);
  if (!gs) return -ENOMEM;
  *names = gs;
  memmove(&(*nrs)[lo + 1], &(*nrs)[lo], (*n - lo) * sizeof **nrs);
  memmove(&(*names)[lo + 1], &(*names)[lo], (*n - lo) * sizeof **names);
  (*nrs)[lo] = nr;
  (*names)[lo] = name;
  (*n)++;
  return 0;
}

static int pol_resolve_groups(struct pol_policy *pol) {
  int rc = 0;
  size_t n = 0;
  for (size_t i = 0; i < pol->ndecls; i++)
    if (pol->decls[i]->kind == POL_DECL_GROUP) n++;
  pol->groups = calloc(n ? n : 1, sizeof *pol->groups);
  if (!pol->groups) return -ENOMEM;
  for (size_t i = 0; i < pol->ndecls; i++) {
    const struct pol_decl *d = pol->decls[i];
    if (d->kind != POL_DECL_GROUP) continue;
    const struct pol_groupdef *prev = pol_group_find(pol, d->name.text);
    if (prev) {
      diag_error(&d->name.loc, "group '%s' is defined twice", d->name.text);
      diag_note(&prev->decl->name.loc, "first definition is here");
      rc = -EINVAL;
      continue;
    }
    struct pol_groupdef *g = &pol->groups[pol->ngroups++];
    g->decl = d;
    for (size_t m = 0; m < d->members.n; m++) {
      const struct pol_name *mem = &d->members.items[m];
      if (mem->text[0] == '@') {
        const struct pol_groupdef *sub = pol_group_find(pol, mem->text);
        if (!sub || sub == g) {
          diag_error(&mem->loc, sub ? "group '%s' cannot contain itself"
                                    : "unknown group '%s' (groups must be defined before they are used)",
                     mem->text);
          rc = -EINVAL;
          continue;
        }
        for (size_t k = 0; k < sub->n; k++)
          if (pol_set_add(&g->nrs, &g->names, &g->n, sub->nrs[k], sub->names[k])) return -ENOMEM;
      } else {
        int nr = pol_syscall_nr(mem);
        if (nr < 0) {
          rc = -EINVAL;
          continue;
        }
        if (pol_set_add(&g->nrs, &g->names, &g->n, nr, mem->text)) return -ENOMEM;
      }
    }
  }
  return rc;
}

/* ---- 3. one profile declaration -------------------------------------- */

static const char *const pol_setting_keys[POL_SET_COUNT] = {
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
};
_Static_assert(sizeof pol_setting_keys / sizeof pol_setting_keys[0] == POL_SET_COUNT, "pol_setting_keys");

static const char *const pol_tiers[] = {"v8", "seccomp", "wasm", "tee"};

static int pol_expect_ident(const struct pol_prop *p, const char *what) {
  if (p->kind != POL_PROP_IDENT) {
    diag_error(&p->value_loc, "'%s' must be %s", p->key.text, what);
    return -EINVAL;
  }
  return 0;
}

static int pol_bool(const struct pol_prop *p, bool *out) {
  if (p->kind == POL_PROP_IDENT && strcmp(p->text, "true") == 0) *out = true;
  else if (p->kind == POL_PROP_IDENT && strcmp(p->text, "false") == 0) *out = false;
  else {
    diag_error(&p->value_loc, "'%s' must be true or false", p->key.text);
    return -EINVAL;
  }
  return 0;
}

static int pol_quantity(const struct pol_prop *p, enum pol_unit_kind unit, uint64_t *out) {
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

static int pol_count(const struct pol_prop *p, uint64_t max, uint64_t *out) {
  if (p->kind != POL_PROP_NUMBER) {
    diag_error(&p->value_loc, "'%s' must be a plain number", p->key.text);
    return -EINVAL;
  }
  if (p->number == 0 || p->number > max) {
    diag_error(&p->value_loc, "'%s' must be between 1 and %llu", p->key.text, (unsigned long long)max);
    return -EINVAL;
  }
  *out = p->number;
  return 0;
}

static int pol_check_prop(struct pol_delta *dl, const struct pol_item *it) {
  const struct pol_prop *p = &it->prop;
  struct pol_profile *v = &dl->values;
  int key = -1;
  for (int k = 0; k < POL_SET_COUNT; k++)
    if (k != POL_SET_APPROVE && strcmp(pol_setting_keys[k], p->key.text) == 0) key = k;
  if (key < 0) {
    diag_error(&p->key.loc,
               "unknown setting '%s' (expected summary, tier, allowShell, allowNetwork, allowFileWrite, "
               "allowFileDelete, maxExecutionTime, maxMemory, maxCpuTime, maxProcesses, maxOpenFiles "
               "or maxFileSize)",
               p->key.text);
    return -EINVAL;
  }
  if (dl->set[key]) {
    diag_error(&p->key.loc, "'%s' is set twice in profile '%s'", p->key.text, dl->decl->name.text);
    diag_note(&dl->set[key]->loc, "first set here");
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
      if (rc) return rc;
      rc = -EINVAL;
      for (size_t t = 0; t < sizeof pol_tiers / sizeof pol_tiers[0]; t++)
        if (strcmp(pol_tiers[t], p->text) == 0) rc = 0;
      if (rc) {
        diag_error(&p->value_loc, "unknown scheduler tier '%s' (expected %s)", p->text, POL_TIERS);
        return rc;
      }
      v->tier = p->text;
      break;
    case POL_SET_SHELL:
      rc = pol_expect_ident(p, "none, sandboxed or full");
      if (rc) return rc;
      if (strcmp(p->text, "none") == 0) v->shell = CS_SHELL_NONE;
      else if (strcmp(p->text, "sandboxed") == 0) v->shell = CS_SHELL_SANDBOXED;
      else if (strcmp(p->text, "full") == 0) v->shell = CS_SHELL_FULL;
      else {
        diag_error(&p->value_loc, "'allowShell' must be none, sandboxed or full");
        return -EINVAL;
      }
      break;
    case POL_SET_NETWORK: rc = pol_bool(p, &v->allow_network); break;
    case POL_SET_FILE_WRITE: rc = pol_bool(p, &v->allow_file_write); break;
    case POL_SET_FILE_DELETE: rc = pol_bool(p, &v->allow_file_delete); break;
    case POL_SET_TIME: rc = pol_quantity(p, POL_UNIT_TIME_MS, &v->limits.max_execution_ms); break;
    case POL_SET_CPU:
      rc = pol_quantity(p, POL_UNIT_TIME_MS, &ms);
      if (rc) return rc;
      if (ms % 1000) {
        /* RLIMIT_CPU counts whole seconds; rounding would change the limit. */
        diag_error(&p->value_loc, "'maxCpuTime' must be a whole number of seconds");
        return -EINVAL;
      }
      v->limits.max_cpu_seconds = ms / 1000;
      break;
    case POL_SET_MEMORY: rc = pol_quantity(p, POL_UNIT_BYTES, &v->limits.max_memory_bytes); break;
    case POL_SET_FILE_SIZE: rc = pol_quantity(p, POL_UNIT_BYTES, &v->limits.max_file_size); break;
    case POL_SET_PROCESSES: rc = pol_count(p, 1u << 22, &v->limits.max_processes); break;
    case POL_SET_OPEN_FILES: rc = pol_count(p, 1u << 20, &v->limits.max_open_files); break;
    case POL_SET_APPROVE:
    case POL_SET_COUNT: return -EINVAL;
  }
  if (rc) return rc;
  dl->set[key] = it;
  return 0;
}

/* Paths are absolute or start with ${WORKSPACE} or ~ (expanded by sbx at
 * run time); ".." is refused because a reader of the table must see the
 * directory a rule covers without resolving anything. */
static int pol_check_path(const struct pol_name *n) {
  const char *s = n->text;
  const char *rest;
  if (s[0] == '/') rest = s;
  else if (strncmp(s, "${WORKSPACE}", 12) == 0) rest = s + 12;
  else if (s[0] == '~') rest = s + 1;
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
                         const struct pol_name *path, uint32_t access) {
  for (size_t i = 0; i < *n; i++) {
    if (strcmp((*rules)[i].path, path->text) == 0) {
      (*rules)[i].access |= access;
      return 0;
    }
  }
  struct pol_path_rule *grown = realloc(*rules, (*n + 1) * sizeof **rules);
  if (!grown) return -ENOMEM;
  *rules = grown;
  struct pol_path_rule *r = &grown[*n];
  memset(r, 0, sizeof *r);
  r->path = strdup(path->text);
  r->origin = pol_origin(pol, &path->loc, NULL);
  r->access = access;
  r->loc = path->loc;
  (*n)++;
  if (!r->path || !r->origin) return -ENOMEM;
  return 0;
}

static void pol_paths_free(struct pol_path_rule *rules, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(rules[i].path);
    free(rules[i].origin);
  }
  free(rules);
}

static int pol_check_paths(const struct pol_policy *pol, struct pol_delta *dl, const struct pol_item *it) {
  bool denied = it->kind == POL_ITEM_DENIED_PATHS;
  bool *set = denied ? &dl->denied_set : &dl->allowed_set;
  const char *what = denied ? "deniedPaths" : "allowedPaths";
  if (*set) {
    diag_error(&it->loc, "'%s' appears twice in profile '%s'", what, dl->decl->name.text);
    return -EINVAL;
  }
  *set = true;
  if (denied) dl->denied_append = it->paths->append;
  else dl->allowed_append = it->paths->append;
  int rc = 0;
  for (size_t e = 0; e < it->paths->n; e++) {
    const struct pol_path_entry *pe = &it->paths->entries[e];
    uint32_t access;
    const char *a = pe->access.text;
    if (strcmp(a, "read") == 0) access = CS_PATH_READ;
    else if (strcmp(a, "write") == 0) access = CS_PATH_WRITE;
    else if (strcmp(a, "execute") == 0) access = CS_PATH_EXEC;
    else if (strcmp(a, "all") == 0) access = CS_PATH_READ | CS_PATH_WRITE | CS_PATH_EXEC;
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
      int arc = denied ? pol_paths_add(pol, &dl->denied, &dl->n_denied, &pe->paths.items[i], access)
                       : pol_paths_add(pol, &dl->allowed, &dl->n_allowed, &pe->paths.items[i], access);
      if (arc) return arc;
    }
  }
  return rc;
}

static int pol_check_approve(struct pol_delta *dl, const struct pol_item *it) {
  static const struct {
    const char *name;
    uint32_t bit;
  } ops[] = {
      {"delete", CS_APPROVE_FILE_DELETE},
      {"network", CS_APPROVE_EXTERNAL_NETWORK},
      {"sudo", CS_APPROVE_SUDO},
      {"git-config", CS_APPROVE_GIT_CONFIG},
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
      diag_error(&n->loc, "unknown operation '%s' (expected delete, network, sudo, git-config or none)", n->text);
      rc = -EINVAL;
    }
  }
  if (rc) return rc;
  dl->values.approval_ops = bits;
  dl->set[POL_SET_APPROVE] = it;
  return 0;
}

char *pol_action_text(struct sc_action a) {
  char *out = NULL;
  const char *name;
  switch (a.kind) {
    case SC_ACT_ALLOW: return strdup("allow");
    case SC_ACT_LOG: return strdup("log");
    case SC_ACT_KILL_PROCESS: return strdup("kill-process");
    case SC_ACT_KILL_THREAD: return strdup("kill-thread");
    case SC_ACT_NOTIFY: return strdup("notify");
    case SC_ACT_TRAP:
      if (a.data == 0) return strdup("trap");
      return asprintf(&out, "trap(%u)", a.data) < 0 ? NULL : out;
    case SC_ACT_TRACE:
      return asprintf(&out, "trace(%u)", a.data) < 0 ? NULL : out;
    case SC_ACT_ERRNO:
      name = pol_errno_name(a.data);
      if (name) return asprintf(&out, "errno(%s)", name) < 0 ? NULL : out;
      return asprintf(&out, "errno(%u)", a.data) < 0 ? NULL : out;
  }
  return NULL;
}

static int pol_check_action(const struct pol_action *a, struct sc_action *out) {
  static const struct {
    const char *name;
    enum sc_action_kind kind;
    int arg; /* 0 none, 1 optional, 2 required */
    unsigned max;
  } acts[] = {
      {"allow", SC_ACT_ALLOW, 0, 0},        {"log", SC_ACT_LOG, 0, 0},
      {"kill-process", SC_ACT_KILL_PROCESS, 0, 0}, {"kill-thread", SC_ACT_KILL_THREAD, 0, 0},
      {"notify", SC_ACT_NOTIFY, 0, 0},      {"trap", SC_ACT_TRAP, 1, 0xffff},
      {"trace", SC_ACT_TRACE, 1, 0xffff},   {"errno", SC_ACT_ERRNO, 2, 4095},
  };
  for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++) {
    if (strcmp(acts[i].name, a->name.text) != 0) continue;
    out->kind = acts[i].kind;
    out->data = 0;
    if (!a->has_arg) {
      if (acts[i].arg == 2) {
        diag_error(&a->name.loc, "'errno' needs a value, e.g. errno(EPERM)");
        return -EINVAL;
      }
      return 0;
    }
    if (acts[i].arg == 0) {
      diag_error(&a->arg.loc, "'%s' takes no argument", acts[i].name);
      return -EINVAL;
    }
    uint64_t v = a->arg.number;
    if (a->arg.is_name) {
      int e;
      if (out->kind != SC_ACT_ERRNO || pol_errno_lookup(a->arg.name, &e) != 0) {
        diag_error(&a->arg.loc, out->kind == SC_ACT_ERRNO ? "unknown errno name '%s'" : "'%s' is not a number",
                   a->arg.name);
        return -EINVAL;
      }
      v = (uint64_t)e;
    } else if (a->arg.negative) {
      v = UINT64_MAX;
    }
    if (v > acts[i].max) {
      diag_error(&a->arg.loc, "'%s' value must be between 0 and %u", acts[i].name, acts[i].max);
      return -EINVAL;
    }
    out->data = (uint16_t)v;
    return 0;
  }
  diag_error(&a->name.loc,
             "unknown action '%s' (expected allow, errno(N), kill-process, kill-thread, trap, log, notify or "
             "trace)",
             a->name.text);
  return -EINVAL;
}

static void pol_prepared_free(struct pol_prepared *p) {
  free(p->action_text);
  free(p->origin);
  for (size_t t = 0; t < p->ntargets; t++) pol_clauses_free(p->targets[t].clauses, p->targets[t].nclauses);
  free(p->targets);
}

static int pol_target_add(struct pol_prepared *p, int nr, const char *name, bool via_group) {
  for (size_t t = 0; t < p->ntargets; t++)
    if (p->targets[t].nr == nr) return 0;
  struct pol_target *grown = realloc(p->targets, (p->ntargets + 1) * sizeof *grown);
  if (!grown) return -ENOMEM;
  p->targets = grown;
  memset(&grown[p->ntargets], 0, sizeof grown[0]);
  grown[p->ntargets].nr = nr;
  grown[p->ntargets].name = name;
  grown[p->ntargets].via_group = via_group;
  p->ntargets++;
  return 0;
}

static int pol_check_stmt(const struct pol_policy *pol, const struct pol_delta *dl, const struct pol_stmt *s,
                          struct pol_prepared *p) {
  int rc = 0;
  memset(p, 0, sizeof *p);
  p->stmt = s;
  p->is_default = s->kind == POL_STMT_DEFAULT;
  p->conditional = s->cond != NULL;
  char suffix[96];
  snprintf(suffix, sizeof suffix, "(profile %s)", dl->decl->name.text);
  p->origin = pol_origin(pol, &s->loc, suffix);
  if (!p->origin) return -ENOMEM;
  if (pol_check_action(&s->action, &p->action) != 0) rc = -EINVAL;
  else if (!(p->action_text = pol_action_text(p->action))) return -ENOMEM;
  if (p->is_default) return rc;

  for (size_t i = 0; i < s->targets.n; i++) {
    const struct pol_name *t = &s->targets.items[i];
    if (t->text[0] == '@') {
      const struct pol_groupdef *g = pol_group_find(pol, t->text);
      if (!g) {
        diag_error(&t->loc, "unknown group '%s'", t->text);
        rc = -EINVAL;
        continue;
      }
      for (size_t k = 0; k < g->n; k++)
        if (pol_target_add(p, g->nrs[k], g->names[k], true)) return -ENOMEM;
    } else {
      int nr = pol_syscall_nr(t);
      if (nr < 0) {
        rc = -EINVAL;
        continue;
      }
      if (pol_target_add(p, nr, t->text, false)) return -ENOMEM;
    }
  }
  if (rc || !s->cond) return rc;
  for (size_t t = 0; t < p->ntargets; t++) {
    struct pol_target *tg = &p->targets[t];
    int crc = pol_cond_lower(pol, s->cond, tg->name, &tg->clauses, &tg->nclauses, &tg->never);
    if (crc == -ENOMEM) return crc;
    if (crc) {
      rc = crc;
      break; /* the same mistake would repeat for every target */
    }
  }
  if (rc == 0) {
    bool never = true, always = true;
    for (size_t t = 0; t < p->ntargets; t++) {
      never = never && p->targets[t].never;
      always = always && !p->targets[t].never && p->targets[t].nclauses == 0;
    }
    if (p->ntargets && never) diag_warning(&s->cond->loc, "this condition can never be true; the rule has no effect");
    if (p->ntargets && always) diag_warning(&s->cond->loc, "this condition is always true");
  }
  return rc;
}

static int pol_check_profile(struct pol_policy *pol, struct pol_delta *dl) {
  int rc = 0;
  const struct pol_items *body = &dl->decl->body;
  for (size_t i = 0; i < body->n; i++) {
    const struct pol_item *it = body->items[i];
    int irc = 0;
    switch (it->kind) {
      case POL_ITEM_PROP: irc = pol_check_prop(dl, it); break;
      case POL_ITEM_ALLOWED_PATHS:
      case POL_ITEM_DENIED_PATHS: irc = pol_check_paths(pol, dl, it); break;
      case POL_ITEM_APPROVE: irc = pol_check_approve(dl, it); break;
      case POL_ITEM_SYSCALLS:
        for (size_t k = 0; k < it->stmts.n; k++) {
          struct pol_prepared *grown = realloc(dl->stmts, (dl->nstmts + 1) * sizeof *grown);
          if (!grown) return -ENOMEM;
          dl->stmts = grown;
          int src = pol_check_stmt(pol, dl, it->stmts.items[k], &dl->stmts[dl->nstmts]);
          dl->nstmts++;
          if (src == -ENOMEM) return src;
          if (src) irc = src;
        }
        break;
    }
    if (irc == -ENOMEM) return irc;
    if (irc) rc = irc;
  }
  return rc;
}

/* ---- 4. inheritance -------------------------------------------------- */

static struct pol_delta *pol_delta_find(struct pol_policy *pol, const char *name) {
  for (size_t i = 0; i < pol->ndeltas; i++) {
    const struct pol_profile_decl *d = pol->deltas[i].decl;
    if (strcmp(d->name.text, name) == 0 || (d->alias.text && strcmp(d->alias.text, name) == 0))
      return &pol->deltas[i];
  }
  return NULL;
}

/* The chain root..dl; -EINVAL on an unknown parent or a cycle (printed). */
static int pol_chain(struct pol_policy *pol, struct pol_delta *dl, struct pol_delta ***chain, size_t *n) {
  struct pol_delta **c = calloc(pol->ndeltas + 1, sizeof *c);
  if (!c) return -ENOMEM;
  size_t k = 0;
  for (struct pol_delta *cur = dl; cur;) {
    for (size_t i = 0; i < k; i++) {
      if (c[i] == cur) {
        diag_error(&dl->decl->extends.loc, "profile '%s' extends itself through a cycle", dl->decl->name.text);
        for (size_t j = 0; j < k; j++)
          if (c[j]->decl->extends.text)
            diag_note(&c[j]->decl->extends.loc, "'%s' extends '%s'", c[j]->decl->name.text,
                      c[j]->decl->extends.text);
        free(c);
        return -EINVAL;
      }
    }
    c[k++] = cur;
    if (!cur->decl->extends.text) break;
    struct pol_delta *parent = pol_delta_find(pol, cur->decl->extends.text);
    if (!parent) {
      if (cur == dl)
        diag_error(&cur->decl->extends.loc, "profile '%s' extends unknown profile '%s'", cur->decl->name.text,
                   cur->decl->extends.text);
      free(c);
      return -EINVAL;
    }
    cur = parent;
  }
  /* Reverse: root first. */
  for (size_t i = 0; i < k / 2; i++) {
    struct pol_delta *t = c[i];
    c[i] = c[k - 1 - i];
    c[k - 1 - i] = t;
  }
  *chain = c;
  *n = k;
  return 0;
}

/* The rules of one system call while statements are applied. */
struct pol_entry {
  int nr;
  const char *name;
  const struct pol_prepared **cond; /* conditional exceptions, in order */
  size_t *cond_target;
  size_t ncond;
  const struct pol_prepared *fallback; /* NULL: the default action decides */
  size_t fallback_target;
};

static struct pol_entry *pol_entry_get(struct pol_entry **entries, size_t *n, int nr, const char *name) {
  for (size_t i = 0; i < *n; i++)
    if ((*entries)[i].nr == nr) return &(*entries)[i];
  struct pol_entry *grown = realloc(*entries, (*n + 1) * sizeof *grown);
  if (!grown) return NULL;
  *entries = grown;
  memset(&grown[*n], 0, sizeof grown[0]);
  grown[*n].nr = nr;
  grown[*n].name = name;
  return &grown[(*n)++];
}

static int pol_entry_cmp(const void *a, const void *b) {
  int x = ((const struct pol_entry *)a)->nr, y = ((const struct pol_entry *)b)->nr;
  return (x > y) - (x < y);
}

static int pol_rule_from(struct pol_rule *r, const struct pol_prepared *p, size_t t) {
  const struct pol_target *tg = &p->targets[t];
  r->nr = tg->nr;
  r->name = tg->name;
  r->action = p->action;
  r->action_text = p->action_text;
  r->clauses = tg->clauses;
  r->nclauses = tg->nclauses;
  r->origin = p->origin;
  r->loc = p->stmt->loc;
  return 0;
}

static int pol_apply_stmts(struct pol_profile *out, struct pol_delta **chain, size_t nchain) {
  struct pol_entry *entries = NULL;
  size_t nentries = 0;
  int rc = -ENOMEM;

  for (size_t c = 0; c < nchain; c++) {
    for (size_t s = 0; s < chain[c]->nstmts; s++) {
      const struct pol_prepared *p = &chain[c]->stmts[s];
      if (p->is_default) {
        out->default_action = p->action;
        free(out->default_text);
        free(out->default_origin);
        out->default_text = strdup(p->action_text);
        out->default_origin = strdup(p->origin);
        if (!out->default_text || !out->default_origin) goto done;
        continue;
      }
      for (size_t t = 0; t < p->ntargets; t++) {
        const struct pol_target *tg = &p->targets[t];
        struct pol_entry *e = pol_entry_get(&entries, &nentries, tg->nr, tg->name);
        if (!e) goto done;
        if (!p->conditional) {
          /* A group that silently erases an exception written for one
           * call (e.g. `allow @process` after a clone rule) is a likely
           * mistake; naming the call makes the intent explicit. */
          if (tg->via_group && e->ncond && c == nchain - 1) /* once: for the profile that says it */
            diag_warning(&p->stmt->loc, "this rule replaces the conditional rule for '%s' stated earlier",
                         tg->name);
          e->ncond = 0;
          e->fallback = p;
          e->fallback_target = t;
        } else if (!tg->never) {
          const struct pol_prepared **gc = realloc(e->cond, (e->ncond + 1) * sizeof *gc);
          if (!gc) goto done;
          e->cond = gc;
          size_t *gt = realloc(e->cond_target, (e->ncond + 1) * sizeof *gt);
          if (!gt) goto done;
          e->cond_target = gt;
          e->cond[e->ncond] = p;
          e->cond_target[e->ncond] = t;
          e->ncond++;
        }
      }
    }
  }
  if (nentries) qsort(entries, nentries, sizeof *entries, pol_entry_cmp);
  size_t total = 0;
  for (size_t i = 0; i < nentries; i++) total += entries[i].ncond + (entries[i].fallback ? 1 : 0);
  out->rules = calloc(total ? total : 1, sizeof *out->rules);
  if (!out->rules) goto done;
  for (size_t i = 0; i < nentries; i++) {
    const struct pol_entry *e = &entries[i];
    for (size_t k = 0; k < e->ncond; k++) pol_rule_from(&out->rules[out->nrules++], e->cond[k], e->cond_target[k]);
    if (e->fallback) pol_rule_from(&out->rules[out->nrules++], e->fallback, e->fallback_target);
  }
  rc = 0;

done:
  for (size_t i = 0; i < nentries; i++) {
    free(entries[i].cond);
    free(entries[i].cond_target);
  }
  free(entries);
  return rc;
}

static int pol_copy_paths(struct pol_path_rule **dst, size_t *ndst, const struct pol_path_rule *src, size_t n,
                          bool append) {
  if (!append) {
    pol_paths_free(*dst, *ndst);
    *dst = NULL;
    *ndst = 0;
  }
  for (size_t i = 0; i < n; i++) {
    bool merged = false;
    for (size_t k = 0; k < *ndst; k++) {
      if (strcmp((*dst)[k].path, src[i].path) == 0) {
        (*dst)[k].access |= src[i].access;
        merged = true;
      }
    }
    if (merged) continue;
    struct pol_path_rule *grown = realloc(*dst, (*ndst + 1) * sizeof *grown);
    if (!grown) return -ENOMEM;
    *dst = grown;
    struct pol_path_rule *r = &grown[(*ndst)++];
    *r = src[i];
    r->path = strdup(src[i].path);
    r->origin = strdup(src[i].origin);
    if (!r->path || !r->origin) return -ENOMEM;
  }
  return 0;
}

static int pol_dup(char **dst, const char *src) {
  free(*dst);
  *dst = NULL;
  if (!src) return 0;
  *dst = strdup(src);
  return *dst ? 0 : -ENOMEM;
}

static int pol_compose(struct pol_policy *pol, struct pol_delta *dl, struct pol_profile *out) {
  struct pol_delta **chain = NULL;
  size_t nchain = 0;
  const struct pol_item *set[POL_SET_COUNT] = {0};
  bool has_default = false;
  int rc = pol_chain(pol, dl, &chain, &nchain);
  if (rc) return rc;

  const struct pol_profile_decl *d = dl->decl;
  out->loc = d->name.loc;
  if ((rc = pol_dup(&out->name, d->name.text)) || (rc = pol_dup(&out->alias, d->alias.text)) ||
      (rc = pol_dup(&out->extends, nchain > 1 ? chain[nchain - 2]->decl->name.text : NULL)))
    goto done;
  out->origin = pol_origin(pol, &d->loc, NULL);
  if (!out->origin) {
    rc = -ENOMEM;
    goto done;
  }
  for (size_t c = 0; c < nchain; c++) {
    const struct pol_delta *x = chain[c];
    const struct pol_profile *v = &x->values;
    for (int k = 0; k < POL_SET_COUNT; k++) {
      if (!x->set[k]) continue;
      set[k] = x->set[k];
      switch ((enum pol_setting)k) {
        case POL_SET_SUMMARY: rc = pol_dup(&out->summary, v->summary); break;
        case POL_SET_TIER: rc = pol_dup(&out->tier, v->tier); break;
        case POL_SET_SHELL: out->shell = v->shell; break;
        case POL_SET_NETWORK: out->allow_network = v->allow_network; break;
        case POL_SET_FILE_WRITE: out->allow_file_write = v->allow_file_write; break;
        case POL_SET_FILE_DELETE: out->allow_file_delete = v->allow_file_delete; break;
        case POL_SET_TIME: out->limits.max_execution_ms = v->limits.max_execution_ms; break;
        case POL_SET_MEMORY: out->limits.max_memory_bytes = v->limits.max_memory_bytes; break;
        case POL_SET_CPU: out->limits.max_cpu_seconds = v->limits.max_cpu_seconds; break;
        case POL_SET_PROCESSES: out->limits.max_processes = v->limits.max_processes; break;
        case POL_SET_OPEN_FILES: out->limits.max_open_files = v->limits.max_open_files; break;
        case POL_SET_FILE_SIZE: out->limits.max_file_size = v->limits.max_file_size; break;
        case POL_SET_APPROVE: out->approval_ops = v->approval_ops; break;
        case POL_SET_COUNT: break;
      }
      if (rc) goto done;
    }
    if (x->allowed_set && (rc = pol_copy_paths(&out->allowed, &out->n_allowed, x->allowed, x->n_allowed,
                                               x->allowed_append)))
      goto done;
    if (x->denied_set &&
        (rc = pol_copy_paths(&out->denied, &out->n_denied, x->denied, x->n_denied, x->denied_append)))
      goto done;
    for (size_t s = 0; s < x->nstmts; s++) has_default = has_default || x->stmts[s].is_default;
  }
  rc = pol_apply_stmts(out, chain, nchain);
  if (rc) goto done;

  /* 5. Everything the runtime enforces must be stated: a missing limit
   * must not silently mean "unlimited". */
  for (int k = 0; k < POL_SET_COUNT; k++) {
    if (!set[k]) {
      diag_error(&d->name.loc, "profile '%s' does not set '%s' (nor does any profile it extends)", d->name.text,
                 pol_setting_keys[k]);
      rc = -EINVAL;
    }
  }
  if (!has_default) {
    diag_error(&d->name.loc,
               "profile '%s' has no default syscall action (write `default errno(EPERM);` in its syscalls block)",
               d->name.text);
    rc = -EINVAL;
  }
  if (set[POL_SET_FILE_WRITE] && !out->allow_file_write) {
    /* Device files such as /dev/null and /dev/tty stay writable: tools
     * redirect output there, and writing them changes no file. */
    for (size_t i = 0; i < out->n_allowed; i++) {
      if ((out->allowed[i].access & CS_PATH_WRITE) && strncmp(out->allowed[i].path, "/dev/", 5) != 0) {
        diag_error(&out->allowed[i].loc,
                   "profile '%s' sets allowFileWrite = false but allows writing '%s' (only /dev/ files may be "
                   "writable then)",
                   d->name.text, out->allowed[i].path);
        rc = -EINVAL;
      }
    }
  }

done:
  free(chain);
  return rc;
}

/* ---- entry point ----------------------------------------------------- */

static int pol_resolve_profiles(struct pol_policy *pol) {
  int rc = 0;
  size_t n = 0;
  for (size_t i = 0; i < pol->ndecls; i++)
    if (pol->decls[i]->kind == POL_DECL_PROFILE) n++;
  if (n > POL_MAX_PROFILES) {
    diag_error(&pol->decls[0]->loc, "more than %d profiles", POL_MAX_PROFILES);
    return -EINVAL;
  }
  pol->deltas = calloc(n ? n : 1, sizeof *pol->deltas);
  pol->profiles = calloc(n ? n : 1, sizeof *pol->profiles);
  if (!pol->deltas || !pol->profiles) return -ENOMEM;
  for (size_t i = 0; i < pol->ndecls; i++) {
    const struct pol_decl *d = pol->decls[i];
    if (d->kind != POL_DECL_PROFILE) continue;
    const struct pol_profile_decl *p = d->profile;
    const struct pol_name *names[2] = {&p->name, &p->alias};
    bool dup = false;
    for (int k = 0; k < 2 && !dup; k++) {
      if (!names[k]->text) continue;
      if (k == 1 && strcmp(p->alias.text, p->name.text) == 0) {
        diag_error(&p->alias.loc, "alias '%s' is the profile's own name", p->alias.text);
        dup = true;
        break;
      }
      struct pol_delta *prev = pol_delta_find(pol, names[k]->text);
      if (prev) {
        diag_error(&names[k]->loc, "profile name '%s' is already used", names[k]->text);
        diag_note(&prev->decl->name.loc, "by profile '%s' declared here", prev->decl->name.text);
        dup = true;
      }
    }
    if (dup) {
      rc = -EINVAL;
      continue;
    }
    struct pol_delta *dl = &pol->deltas[pol->ndeltas++];
    dl->decl = p;
    int crc = pol_check_profile(pol, dl);
    if (crc == -ENOMEM) return crc;
    dl->ok = crc == 0;
    if (crc) rc = crc;
  }
  if (rc) return rc;
  if (pol->ndeltas == 0) {
    struct diag_loc loc = {pol->sources[0], 0, 0};
    diag_error(&loc, "no profile is declared");
    return -EINVAL;
  }
  for (size_t i = 0; i < pol->ndeltas; i++) {
    int crc = pol_compose(pol, &pol->deltas[i], &pol->profiles[pol->nprofiles++]);
    if (crc == -ENOMEM) return crc;
    if (crc) rc = crc;
  }
  return rc;
}

int pol_resolve(struct pol_policy *pol) {
  int rc = pol_resolve_consts(pol);
  if (rc == 0) rc = pol_resolve_groups(pol);
  if (rc == 0) rc = pol_resolve_profiles(pol);
  if (rc == -ENOMEM) pol_oom();
  return rc;
}

static void pol_profile_release(struct pol_profile *p) {
  free(p->name);
  free(p->alias);
  free(p->extends);
  free(p->summary);
  free(p->tier);
  free(p->origin);
  pol_paths_free(p->allowed, p->n_allowed);
  pol_paths_free(p->denied, p->n_denied);
  free(p->default_text);
  free(p->default_origin);
  free(p->rules);
}

void pol_resolve_free(struct pol_policy *pol) {
  for (size_t i = 0; i < pol->nprofiles; i++) pol_profile_release(&pol->profiles[i]);
  free(pol->profiles);
  for (size_t i = 0; i < pol->ndeltas; i++) {
    struct pol_delta *dl = &pol->deltas[i];
    pol_paths_free(dl->allowed, dl->n_allowed);
    pol_paths_free(dl->denied, dl->n_denied);
    for (size_t s = 0; s < dl->nstmts; s++) pol_prepared_free(&dl->stmts[s]);
    free(dl->stmts);
  }
  free(pol->deltas);
  for (size_t g = 0; g < pol->ngroups; g++) {
    free(pol->groups[g].nrs);
    free(pol->groups[g].names);
  }
  free(pol->groups);
  free(pol->consts);
}

size_t pol_profile_count(const struct pol_policy *pol) { return pol->nprofiles; }
const struct pol_profile *pol_profile_at(const struct pol_policy *pol, size_t i) { return &pol->profiles[i]; }

const struct pol_profile *pol_profile_find(const struct pol_policy *pol, const char *name) {
  for (size_t i = 0; i < pol->nprofiles; i++) {
    const struct pol_profile *p = &pol->profiles[i];
    if (strcmp(p->name, name) == 0 || (p->alias && strcmp(p->alias, name) == 0)) return p;
  }
  return NULL;
}
