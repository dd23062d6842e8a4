/* pol_route: the routes of a policy (docs/pol-language.md, "Routes").
 *
 * `route NAME { kind = command; profile = strict; labels = ["untrusted"];
 * host = "build.example"; backend = local; tier = seccomp; lane = background; }`
 * Requests are matched against the routes in declaration order and the
 * first match wins; a request no route matches takes the default route
 * (local, the profile's default tier, lane interactive). Checked here:
 * every setting known and given once, backend/kind from their fixed lists,
 * the profile declared, backend, tier and lane present, and no route that
 * an earlier one shadows completely (it could never be taken, so whatever
 * it says is a mistake the author should see). Tiers and lanes are checked
 * against the scheduler model by pol_routes_check_model. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pol.h"
#include "pol_internal.h"

static const char *const pol_backends[] = { "local", "container", "ssh" };
static const char *const pol_kinds[] = { "command", "javascript", "wasm" };
#define POL_BACKENDS "local, container, ssh"
#define POL_KINDS "command, javascript, wasm"

static bool pol_in(const char *const *list, size_t n, const char *s)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp(list[i], s) == 0)
      return true;
  return false;
}

static int pol_route_dup(char **out, const char *s)
{
  *out = strdup(s);
  return *out ? 0 : -ENOMEM;
}

static void pol_route_release(struct pol_route *r)
{
  free(r->name);
  free(r->origin);
  free(r->kind);
  free(r->profile);
  for (size_t i = 0; i < r->n_labels; i++)
    free(r->labels[i]);
  free(r->labels);
  free(r->host);
  free(r->backend);
  free(r->tier);
  free(r->lane);
}

void pol_routes_free(struct pol_policy *pol)
{
  for (size_t i = 0; i < pol->nroutes; i++)
    pol_route_release(&pol->routes[i]);
  free(pol->routes);
  pol->routes = NULL;
  pol->nroutes = 0;
}

/* An identifier setting's value, with the kind of value it wants named. */
static bool pol_route_ident(const struct pol_prop *p, const char *what)
{
  if (p->kind == POL_PROP_IDENT)
    return true;
  diag_error(&p->value_loc, "'%s' takes %s", p->key.text, what);
  return false;
}

/* One setting of a route: 0, -EINVAL after an error (printed) or -ENOMEM. */
static int pol_route_setting(struct pol_policy *pol, struct pol_route *r, const struct pol_prop *p)
{
  const char *k = p->key.text;

  if (strcmp(k, "kind") == 0) {
    if (!pol_route_ident(p, "a kind of work (" POL_KINDS ")"))
      return -EINVAL;
    if (!pol_in(pol_kinds, sizeof pol_kinds / sizeof *pol_kinds, p->text)) {
      diag_error(&p->value_loc, "unknown kind of work '%s' (expected " POL_KINDS ")", p->text);
      return -EINVAL;
    }
    return pol_route_dup(&r->kind, p->text);
  }
  if (strcmp(k, "profile") == 0) {
    const struct pol_profile *prof;
    if (!pol_route_ident(p, "a profile name"))
      return -EINVAL;
    prof = pol_profile_find(pol, p->text);
    if (!prof) {
      diag_error(&p->value_loc, "route names profile '%s', which is not declared", p->text);
      return -EINVAL;
    }
    /* The name, never the alias: shadowing and matching compare one
     * spelling of each profile. */
    return pol_route_dup(&r->profile, prof->name);
  }
  if (strcmp(k, "backend") == 0) {
    if (!pol_route_ident(p, "a backend (" POL_BACKENDS ")"))
      return -EINVAL;
    if (!pol_in(pol_backends, sizeof pol_backends / sizeof *pol_backends, p->text)) {
      diag_error(&p->value_loc, "unknown backend '%s' (expected " POL_BACKENDS ")", p->text);
      return -EINVAL;
    }
    return pol_route_dup(&r->backend, p->text);
  }
  if (strcmp(k, "tier") == 0 || strcmp(k, "lane") == 0) {
    bool tier = k[0] == 't';
    if (!pol_route_ident(p, tier ? "a scheduler tier" : "an execution lane"))
      return -EINVAL;
    if (tier)
      r->tier_loc = p->value_loc;
    else
      r->lane_loc = p->value_loc;
    return pol_route_dup(tier ? &r->tier : &r->lane, p->text);
  }
  if (strcmp(k, "host") == 0) {
    if (p->kind != POL_PROP_STRING || !p->text[0]) {
      diag_error(&p->value_loc, "'host' takes a host name in quotes");
      return -EINVAL;
    }
    if (pol_route_dup(&r->host, p->text) != 0)
      return -ENOMEM;
    /* Host names compare without case (RFC 4343). */
    for (char *c = r->host; *c; c++)
      *c = (char)tolower((unsigned char)*c);
    return 0;
  }
  if (strcmp(k, "labels") == 0) {
    if (p->kind != POL_PROP_LIST || p->append || p->list.n == 0) {
      diag_error(&p->value_loc, "'labels' takes a non-empty list of strings: [\"untrusted\"]");
      return -EINVAL;
    }
    r->labels = calloc(p->list.n, sizeof *r->labels);
    if (!r->labels)
      return -ENOMEM;
    for (size_t i = 0; i < p->list.n; i++) {
      if (!p->list.items[i].text[0]) {
        diag_error(&p->list.items[i].loc, "empty label");
        return -EINVAL;
      }
      if (pol_route_dup(&r->labels[r->n_labels], p->list.items[i].text) != 0)
        return -ENOMEM;
      r->n_labels++;
    }
    return 0;
  }
  diag_error(&p->key.loc,
             "unknown route setting '%s' (expected kind, profile, labels, host, backend, tier, "
             "lane)",
             k);
  return -EINVAL;
}

static bool pol_route_has_label(const struct pol_route *r, const char *label)
{
  for (size_t i = 0; i < r->n_labels; i++)
    if (strcmp(r->labels[i], label) == 0)
      return true;
  return false;
}

static bool pol_route_cond_covers(const char *earlier, const char *later)
{
  return !earlier || (later && strcmp(earlier, later) == 0);
}

/* Whether every request `later` matches is matched by `earlier` too. */
static bool pol_route_shadows(const struct pol_route *earlier, const struct pol_route *later)
{
  if (!pol_route_cond_covers(earlier->kind, later->kind) ||
      !pol_route_cond_covers(earlier->profile, later->profile) ||
      !pol_route_cond_covers(earlier->host, later->host))
    return false;
  for (size_t i = 0; i < earlier->n_labels; i++)
    if (!pol_route_has_label(later, earlier->labels[i]))
      return false;
  return true;
}

static int pol_route_one(struct pol_policy *pol, const struct pol_profile_decl *d,
                         struct pol_route *r)
{
  const char *seen[16];
  size_t nseen = 0;
  int rc = 0;

  r->loc = d->loc;
  if (pol_route_dup(&r->name, d->name.text) != 0 || !(r->origin = pol_origin(pol, &d->loc, NULL)))
    return -ENOMEM;
  for (size_t i = 0; i < d->body.n; i++) {
    const struct pol_item *it = d->body.items[i];
    if (it->kind != POL_ITEM_PROP) {
      diag_error(&it->loc, "a route holds settings only (kind, profile, labels, host, backend, "
                           "tier, lane)");
      rc = -EINVAL;
      continue;
    }
    bool dup = false;
    for (size_t s = 0; s < nseen; s++)
      dup |= strcmp(seen[s], it->prop.key.text) == 0;
    if (dup) {
      diag_error(&it->prop.key.loc, "route '%s' sets '%s' twice", r->name, it->prop.key.text);
      rc = -EINVAL;
      continue;
    }
    if (nseen < sizeof seen / sizeof *seen)
      seen[nseen++] = it->prop.key.text;
    int one = pol_route_setting(pol, r, &it->prop);
    if (one == -ENOMEM)
      return one;
    if (one)
      rc = one;
  }
  if (rc)
    return rc;
  /* Where the request goes is never left to a guess. */
  if (!r->backend || !r->tier || !r->lane) {
    diag_error(&d->name.loc, "route '%s' must name its backend, tier and lane (missing %s)",
               r->name,
               !r->backend ? "backend"
               : !r->tier  ? "tier"
                           : "lane");
    return -EINVAL;
  }
  return 0;
}

int pol_resolve_routes(struct pol_policy *pol)
{
  size_t n = 0;
  int rc = 0;

  for (size_t i = 0; i < pol->ndecls; i++)
    if (pol->decls[i]->kind == POL_DECL_ROUTE)
      n++;
  if (n == 0)
    return 0;
  if (n > POL_MAX_ROUTES) {
    diag_error(&pol->decls[0]->loc, "more than %d routes", POL_MAX_ROUTES);
    return -EINVAL;
  }
  pol->routes = calloc(n, sizeof *pol->routes);
  if (!pol->routes)
    return -ENOMEM;
  for (size_t i = 0; i < pol->ndecls; i++) {
    const struct pol_decl *d = pol->decls[i];
    if (d->kind != POL_DECL_ROUTE)
      continue;
    struct pol_route *r = &pol->routes[pol->nroutes++];
    bool twice = false;
    for (size_t j = 0; j + 1 < pol->nroutes; j++)
      if (pol->routes[j].name && strcmp(pol->routes[j].name, d->profile->name.text) == 0) {
        diag_error(&d->profile->name.loc, "route '%s' is declared twice", d->profile->name.text);
        diag_note(&pol->routes[j].loc, "the first declaration is here");
        twice = true;
      }
    int one = pol_route_one(pol, d->profile, r);
    if (one == -ENOMEM)
      return one;
    if (one || twice) {
      /* A route with errors is not compared with later ones (its missing
       * conditions would make it look like a catch-all). */
      free(r->backend);
      r->backend = NULL;
      rc = -EINVAL;
      continue;
    }
    for (size_t j = 0; j + 1 < pol->nroutes; j++) {
      const struct pol_route *e = &pol->routes[j];
      if (!e->backend || !pol_route_shadows(e, r))
        continue;
      diag_error(&d->profile->name.loc,
                 "route '%s' can never be taken: route '%s' before it matches every request it "
                 "matches",
                 r->name, e->name);
      diag_note(&e->loc, "route '%s' is here; put the narrower route first", e->name);
      rc = -EINVAL;
      break;
    }
  }
  return rc;
}

static void pol_list_names(const struct diag_loc *loc, const char *what, const char *const *names,
                           size_t n)
{
  char buf[512];
  size_t used = 0;

  buf[0] = 0;
  for (size_t i = 0; i < n && used < sizeof buf; i++) {
    int w = snprintf(buf + used, sizeof buf - used, "%s%s", i ? ", " : "", names[i]);
    if (w < 0)
      break;
    used += (size_t)w;
  }
  diag_note(loc, "the %s of the model: %s", what, n ? buf : "none");
}

int pol_routes_check_model(const struct pol_policy *pol, const struct pol_route_model *m)
{
  int rc = 0;

  for (size_t i = 0; i < pol->nroutes; i++) {
    const struct pol_route *r = &pol->routes[i];
    if (!pol_in(m->tiers, m->n_tiers, r->tier)) {
      diag_error(&r->tier_loc, "route '%s': tier '%s' is not in the model (%s)", r->name, r->tier,
                 m->name);
      pol_list_names(&r->tier_loc, "tiers", m->tiers, m->n_tiers);
      rc = -EINVAL;
    }
    if (!pol_in(m->lanes, m->n_lanes, r->lane)) {
      diag_error(&r->lane_loc, "route '%s': lane '%s' is not in the model (%s)", r->name, r->lane,
                 m->name);
      pol_list_names(&r->lane_loc, "lanes", m->lanes, m->n_lanes);
      rc = -EINVAL;
    }
  }
  return rc;
}

size_t pol_route_count(const struct pol_policy *pol)
{
  return pol->nroutes;
}

const struct pol_route *pol_route_at(const struct pol_policy *pol, size_t i)
{
  return i < pol->nroutes ? &pol->routes[i] : NULL;
}
