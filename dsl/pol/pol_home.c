/* pol_home: the settings of a profile's home (docs/pol-language.md,
 * "Home"): homeReadOnly (names of the real home shown read-only),
 * homePersistent (directories kept between runs) and allowExtraPath (what
 * `sbx run --add-path` may add). Checked on their own per declaration,
 * composed down the extends chain, then checked against the profile's
 * denied paths and allowFileWrite. sbx checks the same again after
 * resolving symlinks (runtime/plan/sbx_plan_home.c): a reader of the table
 * must already see that no listed name reaches a denied one. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pol_internal.h"

/* "~/" then a relative path of plain components: no "", ".", "..", no
 * variable. The table's reader then knows which name of the home a rule
 * covers without resolving anything, and "~" itself (the whole home,
 * credentials included) can never be listed. */
static int pol_check_home_path(const struct pol_prop *p, const struct pol_name *n)
{
  const char *s = n->text;
  if (strncmp(s, "~/", 2) != 0 || s[2] == '\0') {
    diag_error(&n->loc, "'%s' path '%s' must start with '~/' and name something below the home",
               p->key.text, s);
    return -EINVAL;
  }
  if (strstr(s, "${")) {
    diag_error(&n->loc, "'%s' path '%s' must not contain a variable", p->key.text, s);
    return -EINVAL;
  }
  for (const char *c = s + 2; *c;) {
    const char *end = strchr(c, '/');
    size_t len = end ? (size_t)(end - c) : strlen(c);
    if (len == 0 || (len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.')) {
      diag_error(&n->loc,
                 "'%s' path '%s' must not contain '.', '..' or empty components (nor end in '/')",
                 p->key.text, s);
      return -EINVAL;
    }
    if (!end)
      break;
    c = end + 1;
    if (*c == '\0') {
      diag_error(&n->loc,
                 "'%s' path '%s' must not contain '.', '..' or empty components (nor end in '/')",
                 p->key.text, s);
      return -EINVAL;
    }
  }
  return 0;
}

static int pol_home_add(struct pol_path_rule **rules, size_t *n, const char *path, uint32_t access,
                        char *origin, struct diag_loc loc)
{
  struct pol_path_rule *grown = realloc(*rules, (*n + 1) * sizeof **rules);
  if (!grown) {
    free(origin);
    return -ENOMEM;
  }
  *rules = grown;
  struct pol_path_rule *r = &grown[(*n)++];
  memset(r, 0, sizeof *r);
  r->path = strdup(path);
  r->origin = origin;
  r->access = access;
  r->loc = loc;
  return r->path && r->origin ? 0 : -ENOMEM;
}

static int pol_home_list(const struct pol_policy *pol, struct pol_delta *dl,
                         const struct pol_prop *p, bool persistent)
{
  struct pol_path_rule **rules = persistent ? &dl->values.home_persist : &dl->values.home_ro;
  size_t *n = persistent ? &dl->values.n_home_persist : &dl->values.n_home_ro;
  uint32_t access = persistent ? CS_PATH_READ | CS_PATH_WRITE : CS_PATH_READ;
  int rc = 0;
  if (p->kind != POL_PROP_LIST) {
    diag_error(&p->value_loc, "'%s' must be a list of paths such as [ \"~/.gitconfig\" ]",
               p->key.text);
    return -EINVAL;
  }
  for (size_t i = 0; i < p->list.n; i++) {
    const struct pol_name *item = &p->list.items[i];
    if (pol_check_home_path(p, item) != 0) {
      rc = -EINVAL;
      continue;
    }
    bool dup = false;
    for (size_t k = 0; k < *n; k++)
      dup = dup || strcmp((*rules)[k].path, item->text) == 0;
    if (dup) {
      diag_error(&item->loc, "'%s' lists '%s' twice", p->key.text, item->text);
      rc = -EINVAL;
      continue;
    }
    int arc =
        pol_home_add(rules, n, item->text, access, pol_origin(pol, &item->loc, NULL), item->loc);
    if (arc)
      return arc;
  }
  if (persistent)
    dl->home_persist_append = p->append;
  else
    dl->home_ro_append = p->append;
  return rc;
}

int pol_check_home_prop(const struct pol_policy *pol, struct pol_delta *dl,
                        const struct pol_item *it, enum pol_setting key)
{
  const struct pol_prop *p = &it->prop;
  if (key == POL_SET_HOME_RO || key == POL_SET_HOME_PERSIST)
    return pol_home_list(pol, dl, p, key == POL_SET_HOME_PERSIST);
  /* allowExtraPath */
  if (p->kind == POL_PROP_IDENT && strcmp(p->text, "none") == 0)
    dl->values.extra_path_access = 0;
  else if (p->kind == POL_PROP_IDENT && strcmp(p->text, "read") == 0)
    dl->values.extra_path_access = CS_PATH_READ;
  else if (p->kind == POL_PROP_IDENT && strcmp(p->text, "write") == 0)
    dl->values.extra_path_access = CS_PATH_READ | CS_PATH_WRITE;
  else {
    diag_error(&p->value_loc, "'allowExtraPath' must be none, read or write");
    return -EINVAL;
  }
  return 0;
}

static int pol_home_copy(struct pol_path_rule **dst, size_t *ndst, const struct pol_path_rule *src,
                         size_t n, bool append)
{
  if (!append) {
    pol_paths_free(*dst, *ndst);
    *dst = NULL;
    *ndst = 0;
  }
  for (size_t i = 0; i < n; i++) {
    bool dup = false;
    for (size_t k = 0; k < *ndst; k++)
      dup = dup || strcmp((*dst)[k].path, src[i].path) == 0;
    if (dup)
      continue; /* `+=` of a name the parent lists already */
    char *origin = strdup(src[i].origin);
    if (!origin)
      return -ENOMEM;
    int rc = pol_home_add(dst, ndst, src[i].path, src[i].access, origin, src[i].loc);
    if (rc)
      return rc;
  }
  return 0;
}

int pol_home_compose(struct pol_profile *out, const struct pol_delta *x)
{
  int rc = 0;
  if (x->set[POL_SET_HOME_RO] &&
      (rc = pol_home_copy(&out->home_ro, &out->n_home_ro, x->values.home_ro, x->values.n_home_ro,
                          x->home_ro_append)))
    return rc;
  if (x->set[POL_SET_HOME_PERSIST] &&
      (rc = pol_home_copy(&out->home_persist, &out->n_home_persist, x->values.home_persist,
                          x->values.n_home_persist, x->home_persist_append)))
    return rc;
  if (x->set[POL_SET_EXTRA_PATH])
    out->extra_path_access = x->values.extra_path_access;
  return 0;
}

/* Is `a` `b` or below it, component-wise ("~/.config" holds "~/.config/gh",
 * not "~/.configx")? */
static bool pol_home_under(const char *a, const char *b)
{
  size_t n = strlen(b);
  return strncmp(a, b, n) == 0 && (a[n] == '\0' || a[n] == '/');
}

static int pol_home_against_denied(const struct pol_profile_decl *d, const struct pol_profile *out,
                                   const struct pol_path_rule *h, const char *what)
{
  int rc = 0;
  for (size_t k = 0; k < out->n_denied; k++) {
    const struct pol_path_rule *dn = &out->denied[k];
    /* Only denied paths written with ~ compare by name here; an absolute
     * one (/etc/shadow) cannot be below the home by name, and a symlink
     * from the home to it is sbx's to catch after resolving. */
    if (dn->path[0] != '~')
      continue;
    if (pol_home_under(h->path, dn->path) || pol_home_under(dn->path, h->path)) {
      /* A denied path always wins: a listed name that is, holds or lies
       * in a denied one would show (or keep) what the profile hides. */
      diag_error(&h->loc, "%s path '%s' overlaps denied path '%s' in profile '%s'", what, h->path,
                 dn->path, d->name.text);
      diag_note(&dn->loc, "denied here; a denied path always wins");
      rc = -EINVAL;
    }
  }
  return rc;
}

int pol_home_validate(const struct pol_profile_decl *d, struct pol_profile *out)
{
  int rc = 0;
  for (size_t i = 0; i < out->n_home_ro; i++)
    if (pol_home_against_denied(d, out, &out->home_ro[i], "homeReadOnly"))
      rc = -EINVAL;
  for (size_t i = 0; i < out->n_home_persist; i++)
    if (pol_home_against_denied(d, out, &out->home_persist[i], "homePersistent"))
      rc = -EINVAL;
  /* One sandbox path, one source: a read-only name inside a persistent
   * directory (or the other way round, or two nested entries of one list)
   * would leave which one is seen to the mount order. */
  size_t n = out->n_home_ro + out->n_home_persist;
  for (size_t i = 0; i < n; i++) {
    const struct pol_path_rule *a =
        i < out->n_home_ro ? &out->home_ro[i] : &out->home_persist[i - out->n_home_ro];
    for (size_t j = i + 1; j < n; j++) {
      const struct pol_path_rule *b =
          j < out->n_home_ro ? &out->home_ro[j] : &out->home_persist[j - out->n_home_ro];
      if (pol_home_under(a->path, b->path) || pol_home_under(b->path, a->path)) {
        diag_error(&b->loc, "home path '%s' overlaps home path '%s' in profile '%s'", b->path,
                   a->path, d->name.text);
        diag_note(&a->loc, "listed here");
        rc = -EINVAL;
      }
    }
  }
  if (!out->allow_file_write) {
    /* Keeping a directory between runs is writing it; a profile that
     * writes nothing persists nothing (strict, hardened). */
    for (size_t i = 0; i < out->n_home_persist; i++) {
      diag_error(&out->home_persist[i].loc,
                 "profile '%s' sets allowFileWrite = false but keeps '%s' between runs "
                 "(homePersistent needs allowFileWrite = true)",
                 d->name.text, out->home_persist[i].path);
      rc = -EINVAL;
    }
    if (out->extra_path_access & CS_PATH_WRITE) {
      diag_error(&d->name.loc,
                 "profile '%s' sets allowFileWrite = false but allowExtraPath = write",
                 d->name.text);
      rc = -EINVAL;
    }
  }
  return rc;
}
