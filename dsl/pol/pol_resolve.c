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
 * Stages 3 (pol_settings.c, pol_stmt.c) and 4-5 (pol_inherit.c) have their
 * own files; this one holds 1, 2 and the driver. */
#include <errno.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>

#include "pol_consts.h"
#include "pol_cmdrule.h"
#include "pol_internal.h"

#define POL_MAX_PROFILES 256

char *pol_origin(const struct pol_policy *pol, const struct diag_loc *loc, const char *suffix)
{
  const char *path = loc->file ? loc->file->path : "?";
  size_t dlen = strlen(pol->main_dir);
  /* Paths relative to the main file's directory keep the generated
   * tables identical whatever directory the build runs pnetc from. */
  if (strcmp(pol->main_dir, ".") != 0 && strncmp(path, pol->main_dir, dlen) == 0 &&
      path[dlen] == '/')
    path += dlen + 1;
  else if (strncmp(path, "./", 2) == 0)
    path += 2;
  /* A library file is named the way it was included, "<profiles.pol>",
   * not by where this machine installed it. */
  size_t llen = pol->library_real ? strlen(pol->library_real) : 0;
  char *out = NULL;
  if (llen && path == (loc->file ? loc->file->path : "?") &&
      strncmp(path, pol->library_real, llen) == 0 && path[llen] == '/') {
    int n = suffix ? asprintf(&out, "<%s>:%d:%d %s", path + llen + 1, loc->line, loc->col, suffix)
                   : asprintf(&out, "<%s>:%d:%d", path + llen + 1, loc->line, loc->col);
    return n < 0 ? NULL : out;
  }
  int n = suffix ? asprintf(&out, "%s:%d:%d %s", path, loc->line, loc->col, suffix)
                 : asprintf(&out, "%s:%d:%d", path, loc->line, loc->col);
  return n < 0 ? NULL : out;
}

char *pol_display_path(const struct pol_policy *pol, size_t i)
{
  const char *path = pol->sources[i]->path;
  if (i == 0) {
    const char *slash = strrchr(path, '/');
    return strdup(slash ? slash + 1 : path);
  }
  struct diag_loc loc = { pol->sources[i], 0, 0 };
  char *o = pol_origin(pol, &loc, NULL);
  if (!o)
    return NULL;
  char *colon = strstr(o, ":0:0");
  if (colon)
    *colon = '\0';
  return o;
}

static void pol_oom(void)
{
  fprintf(diag_stream(), "pnetc: error: out of memory\n");
}

/* ---- 1. constants ---------------------------------------------------- */

int pol_value_eval(const struct pol_policy *pol, const struct pol_value *v, size_t before,
                   uint64_t *out)
{
  uint64_t acc = 0;
  int rc = 0;
  for (size_t i = 0; i < v->n; i++) {
    const struct pol_term *t = &v->terms[i];
    uint64_t x = 0;
    if (!t->is_name) {
      x = t->negative ? (uint64_t)0 - t->number : t->number;
      if (t->negative && t->number > (uint64_t)INT64_MAX + 1) {
        diag_error(&t->loc, "-%llu is below the smallest 64-bit integer",
                   (unsigned long long)t->number);
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

static int pol_resolve_consts(struct pol_policy *pol)
{
  int rc = 0;
  size_t n = 0;
  for (size_t i = 0; i < pol->ndecls; i++)
    if (pol->decls[i]->kind == POL_DECL_CONST)
      n++;
  pol->consts = calloc(n ? n : 1, sizeof *pol->consts);
  if (!pol->consts)
    return -ENOMEM;
  for (size_t i = 0; i < pol->ndecls; i++) {
    const struct pol_decl *d = pol->decls[i];
    if (d->kind != POL_DECL_CONST)
      continue;
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
      diag_error(&d->name.loc, "constant '%s' is already defined by the system headers",
                 d->name.text);
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

int pol_syscall_nr(const struct pol_name *n)
{
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

const struct pol_groupdef *pol_group_find(const struct pol_policy *pol, const char *name)
{
  for (size_t g = 0; g < pol->ngroups; g++)
    if (strcmp(pol->groups[g].decl->name.text, name) == 0)
      return &pol->groups[g];
  return NULL;
}

/* Adds nr to a sorted set; 0 or -ENOMEM. */
static int pol_set_add(int **nrs, const char ***names, size_t *n, int nr, const char *name)
{
  size_t lo = 0, hi = *n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if ((*nrs)[mid] < nr)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < *n && (*nrs)[lo] == nr)
    return 0;
  int *gn = realloc(*nrs, (*n + 1) * sizeof **nrs);
  if (!gn)
    return -ENOMEM;
  *nrs = gn;
  const char **gs = realloc(*names, (*n + 1) * sizeof **names);
  if (!gs)
    return -ENOMEM;
  *names = gs;
  memmove(&(*nrs)[lo + 1], &(*nrs)[lo], (*n - lo) * sizeof **nrs);
  memmove(&(*names)[lo + 1], &(*names)[lo], (*n - lo) * sizeof **names);
  (*nrs)[lo] = nr;
  (*names)[lo] = name;
  (*n)++;
  return 0;
}

static int pol_resolve_groups(struct pol_policy *pol)
{
  int rc = 0;
  size_t n = 0;
  for (size_t i = 0; i < pol->ndecls; i++)
    if (pol->decls[i]->kind == POL_DECL_GROUP)
      n++;
  pol->groups = calloc(n ? n : 1, sizeof *pol->groups);
  if (!pol->groups)
    return -ENOMEM;
  for (size_t i = 0; i < pol->ndecls; i++) {
    const struct pol_decl *d = pol->decls[i];
    if (d->kind != POL_DECL_GROUP)
      continue;
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
          diag_error(&mem->loc,
                     sub ? "group '%s' cannot contain itself"
                         : "unknown group '%s' (groups must be defined before they are used)",
                     mem->text);
          rc = -EINVAL;
          continue;
        }
        for (size_t k = 0; k < sub->n; k++)
          if (pol_set_add(&g->nrs, &g->names, &g->n, sub->nrs[k], sub->names[k]))
            return -ENOMEM;
      } else {
        int nr = pol_syscall_nr(mem);
        if (nr < 0) {
          rc = -EINVAL;
          continue;
        }
        if (pol_set_add(&g->nrs, &g->names, &g->n, nr, mem->text))
          return -ENOMEM;
      }
    }
  }
  return rc;
}

/* ---- entry point ----------------------------------------------------- */

static int pol_resolve_profiles(struct pol_policy *pol)
{
  int rc = 0;
  size_t n = 0;
  for (size_t i = 0; i < pol->ndecls; i++)
    if (pol->decls[i]->kind == POL_DECL_PROFILE)
      n++;
  if (n > POL_MAX_PROFILES) {
    diag_error(&pol->decls[0]->loc, "more than %d profiles", POL_MAX_PROFILES);
    return -EINVAL;
  }
  pol->deltas = calloc(n ? n : 1, sizeof *pol->deltas);
  pol->profiles = calloc(n ? n : 1, sizeof *pol->profiles);
  if (!pol->deltas || !pol->profiles)
    return -ENOMEM;
  for (size_t i = 0; i < pol->ndecls; i++) {
    const struct pol_decl *d = pol->decls[i];
    if (d->kind != POL_DECL_PROFILE)
      continue;
    const struct pol_profile_decl *p = d->profile;
    const struct pol_name *names[2] = { &p->name, &p->alias };
    bool dup = false;
    for (int k = 0; k < 2 && !dup; k++) {
      if (!names[k]->text)
        continue;
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
    if (crc == -ENOMEM)
      return crc;
    dl->ok = crc == 0;
    if (crc)
      rc = crc;
  }
  if (rc)
    return rc;
  if (pol->ndeltas == 0) {
    struct diag_loc loc = { pol->sources[0], 0, 0 };
    diag_error(&loc, "no profile is declared");
    return -EINVAL;
  }
  for (size_t i = 0; i < pol->ndeltas; i++) {
    int crc = pol_compose(pol, &pol->deltas[i], &pol->profiles[pol->nprofiles++]);
    if (crc == -ENOMEM)
      return crc;
    if (crc)
      rc = crc;
  }
  return rc;
}

int pol_resolve(struct pol_policy *pol)
{
  int rc = pol_resolve_consts(pol);
  if (rc == 0)
    rc = pol_resolve_groups(pol);
  if (rc == 0)
    rc = pol_resolve_profiles(pol);
  if (rc == 0)
    rc = pol_resolve_routes(pol);
  if (rc == -ENOMEM)
    pol_oom();
  return rc;
}

static void pol_profile_release(struct pol_profile *p)
{
  free(p->name);
  free(p->alias);
  free(p->extends);
  free(p->summary);
  free(p->tier);
  free(p->origin);
  pol_paths_free(p->allowed, p->n_allowed);
  pol_paths_free(p->denied, p->n_denied);
  pol_paths_free(p->home_ro, p->n_home_ro);
  pol_paths_free(p->home_persist, p->n_home_persist);
  pol_net_rules_free(p->net_allow, p->n_net_allow);
  pol_net_rules_free(p->net_deny, p->n_net_deny);
  pol_net_rules_free(p->net_local, p->n_net_local);
  free(p->net_mode_origin);
  free(p->net_rest_origin);
  free(p->default_text);
  free(p->default_origin);
  free(p->rules);
  pol_cmdrules_free(p->cmd_rules, p->n_cmd_rules);
}

void pol_resolve_free(struct pol_policy *pol)
{
  pol_routes_free(pol);
  for (size_t i = 0; i < pol->nprofiles; i++)
    pol_profile_release(&pol->profiles[i]);
  free(pol->profiles);
  for (size_t i = 0; i < pol->ndeltas; i++) {
    struct pol_delta *dl = &pol->deltas[i];
    pol_paths_free(dl->allowed, dl->n_allowed);
    pol_paths_free(dl->denied, dl->n_denied);
    pol_paths_free(dl->values.home_ro, dl->values.n_home_ro);
    pol_paths_free(dl->values.home_persist, dl->values.n_home_persist);
    pol_net_delta_free(&dl->net);
    for (size_t s = 0; s < dl->nstmts; s++)
      pol_prepared_free(&dl->stmts[s]);
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

size_t pol_profile_count(const struct pol_policy *pol)
{
  return pol->nprofiles;
}
const struct pol_profile *pol_profile_at(const struct pol_policy *pol, size_t i)
{
  return &pol->profiles[i];
}

const struct pol_profile *pol_profile_find(const struct pol_policy *pol, const char *name)
{
  for (size_t i = 0; i < pol->nprofiles; i++) {
    const struct pol_profile *p = &pol->profiles[i];
    if (strcmp(p->name, name) == 0 || (p->alias && strcmp(p->alias, name) == 0))
      return p;
  }
  return NULL;
}
