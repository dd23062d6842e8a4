/* pol_inherit: profile inheritance. The `extends` chain is followed root
 * first (a cycle is an error naming every link), each declaration's delta
 * is applied in order, and the result must state everything the runtime
 * enforces.
 *
 * Syscall statement semantics (docs/pol-language.md, "Order"): statements
 * apply in order, the parent's before the child's. An unconditional
 * statement replaces everything said before about that call; a
 * conditional one adds an exception, tried before the call's fallback. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pol_cmdrule.h"
#include "pol_internal.h"

struct pol_delta *pol_delta_find(struct pol_policy *pol, const char *name)
{
  for (size_t i = 0; i < pol->ndeltas; i++) {
    const struct pol_profile_decl *d = pol->deltas[i].decl;
    if (strcmp(d->name.text, name) == 0 || (d->alias.text && strcmp(d->alias.text, name) == 0))
      return &pol->deltas[i];
  }
  return NULL;
}

/* The chain root..dl; -EINVAL on an unknown parent or a cycle (printed). */
static int pol_chain(struct pol_policy *pol, struct pol_delta *dl, struct pol_delta ***chain,
                     size_t *n)
{
  struct pol_delta **c = calloc(pol->ndeltas + 1, sizeof *c);
  if (!c)
    return -ENOMEM;
  size_t k = 0;
  for (struct pol_delta *cur = dl; cur;) {
    for (size_t i = 0; i < k; i++) {
      if (c[i] == cur) {
        /* One report per cycle, from its first member reached; profiles
         * in it or extending into it fail without repeating it. */
        bool reported = false;
        for (size_t j = i; j < k; j++)
          reported = reported || c[j]->visiting == 2;
        if (!reported) {
          diag_error(&c[i]->decl->extends.loc, "profile '%s' extends itself through a cycle",
                     c[i]->decl->name.text);
          for (size_t j = i; j < k; j++) {
            diag_note(&c[j]->decl->extends.loc, "'%s' extends '%s'", c[j]->decl->name.text,
                      c[j]->decl->extends.text);
            c[j]->visiting = 2;
          }
        }
        free(c);
        return -EINVAL;
      }
    }
    c[k++] = cur;
    if (!cur->decl->extends.text)
      break;
    struct pol_delta *parent = pol_delta_find(pol, cur->decl->extends.text);
    if (!parent) {
      if (cur == dl)
        diag_error(&cur->decl->extends.loc, "profile '%s' extends unknown profile '%s'",
                   cur->decl->name.text, cur->decl->extends.text);
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

static struct pol_entry *pol_entry_get(struct pol_entry **entries, size_t *n, int nr,
                                       const char *name)
{
  for (size_t i = 0; i < *n; i++)
    if ((*entries)[i].nr == nr)
      return &(*entries)[i];
  struct pol_entry *grown = realloc(*entries, (*n + 1) * sizeof *grown);
  if (!grown)
    return NULL;
  *entries = grown;
  memset(&grown[*n], 0, sizeof grown[0]);
  grown[*n].nr = nr;
  grown[*n].name = name;
  return &grown[(*n)++];
}

static int pol_entry_cmp(const void *a, const void *b)
{
  int x = ((const struct pol_entry *)a)->nr, y = ((const struct pol_entry *)b)->nr;
  return (x > y) - (x < y);
}

static int pol_rule_from(struct pol_rule *r, const struct pol_prepared *p, size_t t)
{
  const struct pol_target *tg = &p->targets[t];
  r->nr = tg->nr;
  r->name = tg->name;
  r->action = p->action;
  r->action_text = p->action_text;
  r->clauses = tg->clauses;
  r->nclauses = tg->nclauses;
  r->origin = p->origin;
  r->source = p->source;
  r->loc = p->stmt->loc;
  return 0;
}

static int pol_apply_stmts(struct pol_profile *out, struct pol_delta **chain, size_t nchain)
{
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
        if (!out->default_text || !out->default_origin)
          goto done;
        continue;
      }
      for (size_t t = 0; t < p->ntargets; t++) {
        const struct pol_target *tg = &p->targets[t];
        struct pol_entry *e = pol_entry_get(&entries, &nentries, tg->nr, tg->name);
        if (!e)
          goto done;
        if (!p->conditional) {
          /* A group that silently erases an exception written for one
           * call (e.g. `allow @process` after a clone rule) is a likely
           * mistake; naming the call makes the intent explicit. */
          if (tg->via_group && e->ncond && c == nchain - 1) /* once: for the profile that says it */
            diag_warning(&p->stmt->loc,
                         "this rule replaces the conditional rule for '%s' stated earlier",
                         tg->name);
          e->ncond = 0;
          e->fallback = p;
          e->fallback_target = t;
        } else if (!tg->never) {
          const struct pol_prepared **gc = realloc(e->cond, (e->ncond + 1) * sizeof *gc);
          if (!gc)
            goto done;
          e->cond = gc;
          size_t *gt = realloc(e->cond_target, (e->ncond + 1) * sizeof *gt);
          if (!gt)
            goto done;
          e->cond_target = gt;
          e->cond[e->ncond] = p;
          e->cond_target[e->ncond] = t;
          e->ncond++;
        }
      }
    }
  }
  if (nentries)
    qsort(entries, nentries, sizeof *entries, pol_entry_cmp);
  size_t total = 0;
  for (size_t i = 0; i < nentries; i++)
    total += entries[i].ncond + (entries[i].fallback ? 1 : 0);
  out->rules = calloc(total ? total : 1, sizeof *out->rules);
  if (!out->rules)
    goto done;
  for (size_t i = 0; i < nentries; i++) {
    const struct pol_entry *e = &entries[i];
    for (size_t k = 0; k < e->ncond; k++)
      pol_rule_from(&out->rules[out->nrules++], e->cond[k], e->cond_target[k]);
    if (e->fallback)
      pol_rule_from(&out->rules[out->nrules++], e->fallback, e->fallback_target);
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

static int pol_copy_paths(struct pol_path_rule **dst, size_t *ndst, const struct pol_path_rule *src,
                          size_t n, bool append)
{
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
    if (merged)
      continue;
    struct pol_path_rule *grown = realloc(*dst, (*ndst + 1) * sizeof *grown);
    if (!grown)
      return -ENOMEM;
    *dst = grown;
    struct pol_path_rule *r = &grown[(*ndst)++];
    *r = src[i];
    r->path = strdup(src[i].path);
    r->origin = strdup(src[i].origin);
    if (!r->path || !r->origin)
      return -ENOMEM;
  }
  return 0;
}

static int pol_dup(char **dst, const char *src)
{
  free(*dst);
  *dst = NULL;
  if (!src)
    return 0;
  *dst = strdup(src);
  return *dst ? 0 : -ENOMEM;
}

int pol_compose(struct pol_policy *pol, struct pol_delta *dl, struct pol_profile *out)
{
  struct pol_delta **chain = NULL;
  size_t nchain = 0;
  const struct pol_item *set[POL_SET_COUNT] = { 0 };
  bool has_default = false;
  int rc = pol_chain(pol, dl, &chain, &nchain);
  if (rc)
    return rc;

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
      if (!x->set[k])
        continue;
      set[k] = x->set[k];
      switch ((enum pol_setting)k) {
      case POL_SET_SUMMARY:
        rc = pol_dup(&out->summary, v->summary);
        break;
      case POL_SET_TIER:
        rc = pol_dup(&out->tier, v->tier);
        break;
      case POL_SET_SHELL:
        out->shell = v->shell;
        break;
      case POL_SET_NETWORK:
        out->allow_network = v->allow_network;
        break;
      case POL_SET_FILE_WRITE:
        out->allow_file_write = v->allow_file_write;
        break;
      case POL_SET_FILE_DELETE:
        out->allow_file_delete = v->allow_file_delete;
        break;
      case POL_SET_TIME:
        out->limits.max_execution_ms = v->limits.max_execution_ms;
        break;
      case POL_SET_MEMORY:
        out->limits.max_memory_bytes = v->limits.max_memory_bytes;
        break;
      case POL_SET_CPU:
        out->limits.max_cpu_seconds = v->limits.max_cpu_seconds;
        break;
      case POL_SET_PROCESSES:
        out->limits.max_processes = v->limits.max_processes;
        break;
      case POL_SET_OPEN_FILES:
        out->limits.max_open_files = v->limits.max_open_files;
        break;
      case POL_SET_FILE_SIZE:
        out->limits.max_file_size = v->limits.max_file_size;
        break;
      case POL_SET_APPROVE:
        out->approval_ops = v->approval_ops;
        break;
      case POL_SET_HOME_RO:
      case POL_SET_HOME_PERSIST:
      case POL_SET_EXTRA_PATH:
        break; /* pol_home_compose, below */
      case POL_SET_COUNT:
        break;
      }
      if (rc)
        goto done;
    }
    if (x->allowed_set && (rc = pol_copy_paths(&out->allowed, &out->n_allowed, x->allowed,
                                               x->n_allowed, x->allowed_append)))
      goto done;
    if (x->denied_set && (rc = pol_copy_paths(&out->denied, &out->n_denied, x->denied, x->n_denied,
                                              x->denied_append)))
      goto done;
    if ((rc = pol_home_compose(out, x)))
      goto done;
    if ((rc = pol_network_compose(out, x)))
      goto done;
    for (size_t s = 0; s < x->nstmts; s++)
      has_default = has_default || x->stmts[s].is_default;
    /* Command rules accumulate down the chain, the parent's first. */
    if ((rc = pol_cmdrule_collect(pol, x->decl, out)))
      goto done;
  }
  rc = pol_apply_stmts(out, chain, nchain);
  if (rc)
    goto done;
  pol_cmdrule_lint(out);

  /* 5. Everything the runtime enforces must be stated: a missing limit
   * must not silently mean "unlimited". */
  for (int k = 0; k < POL_SET_FIRST_OPTIONAL; k++) {
    if (!set[k]) {
      diag_error(&d->name.loc, "profile '%s' does not set '%s' (nor does any profile it extends)",
                 d->name.text, pol_setting_keys[k]);
      rc = -EINVAL;
    }
  }
  if (!has_default) {
    diag_error(
        &d->name.loc,
        "profile '%s' has no default syscall action (write `default errno(EPERM);` in its syscalls block)",
        d->name.text);
    rc = -EINVAL;
  }
  if (set[POL_SET_FILE_WRITE] && !out->allow_file_write) {
    /* Device files such as /dev/null and /dev/tty stay writable: tools
     * redirect output there, and writing them changes no file. */
    for (size_t i = 0; i < out->n_allowed; i++) {
      if ((out->allowed[i].access & CS_PATH_WRITE) &&
          strncmp(out->allowed[i].path, "/dev/", 5) != 0) {
        diag_error(
            &out->allowed[i].loc,
            "profile '%s' sets allowFileWrite = false but allows writing '%s' (only /dev/ files may be "
            "writable then)",
            d->name.text, out->allowed[i].path);
        rc = -EINVAL;
      }
    }
  }

  if (pol_home_validate(d, out))
    rc = -EINVAL;
  if (pol_network_validate(d, out))
    rc = -EINVAL;

done:
  free(chain);
  return rc;
}
