/* sbx_route: the route of a run (see sbx_route.h). libc only: the static
 * front end picks routes with the same code, so both executables send a
 * request to the same backend, tier and lane. */
#include "sbx_route.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "sbx_admit.h"

static bool sbx_route_has(const struct sbx_route_request *rq, const char *label)
{
  for (size_t i = 0; i < rq->n_labels; i++)
    if (rq->labels[i] && strcmp(rq->labels[i], label) == 0)
      return true;
  return false;
}

/* A condition the route leaves out holds for any request; one it sets
 * must equal the request's (a request without the attribute fails it). */
static bool sbx_route_matches(const struct cs_route *r, const struct sbx_route_request *rq)
{
  if (r->kind && (!rq->kind || strcmp(r->kind, rq->kind) != 0))
    return false;
  if (r->profile && (!rq->profile || strcmp(r->profile, rq->profile) != 0))
    return false;
  /* Host names compare without case; pnetc stored the route's in lower case. */
  if (r->host && (!rq->host || strcasecmp(r->host, rq->host) != 0))
    return false;
  for (uint32_t i = 0; i < r->n_labels; i++)
    if (!sbx_route_has(rq, r->labels[i]))
      return false;
  return true;
}

void sbx_route_choose(const struct cs_route *routes, size_t n, const struct sbx_route_request *rq,
                      struct sbx_route_choice *out)
{
  out->route = NULL;
  out->name = "default";
  out->backend = "local";
  for (size_t i = 0; routes && i < n; i++)
    if (sbx_route_matches(&routes[i], rq)) {
      out->route = &routes[i];
      out->name = routes[i].name;
      out->backend = routes[i].backend;
      return;
    }
}

const char *sbx_route_tier(const struct sbx_route_choice *c, const char *asked,
                           const char *profile_tier)
{
  if (asked)
    return asked;
  return c->route ? c->route->tier : profile_tier;
}

const char *sbx_route_lane(const struct sbx_route_choice *c, const char *asked)
{
  if (asked)
    return asked;
  return c->route ? c->route->lane : NULL;
}

static bool sbx_route_place(const struct cs_model_table *t, const char *name, const char *suffix)
{
  size_t n = strlen(name);
  for (uint32_t p = 0; p < t->n_places; p++)
    if (strncmp(t->place_names[p], name, n) == 0 && strcmp(t->place_names[p] + n, suffix) == 0)
      return true;
  return false;
}

int sbx_route_check_model(const struct cs_route *routes, size_t n, const struct cs_model_table *t,
                          FILE *err)
{
  for (size_t i = 0; routes && i < n; i++) {
    const struct cs_route *r = &routes[i];
    bool tier = sbx_route_place(t, r->tier, "_slots"), lane = sbx_route_place(t, r->lane, "_lane");
    if (tier && lane)
      continue;
    fprintf(err, "sbx: error: %s: route '%s' names %s '%s', which model '%s' does not have\n",
            r->origin, r->name, tier ? "lane" : "tier", tier ? r->lane : r->tier, t->model_name);
    return -ENOENT;
  }
  return 0;
}

void sbx_route_list(FILE *out, const struct cs_route *routes, size_t n)
{
  fprintf(out, "Routes (first match wins; --tier and --lane override a route's):\n");
  for (size_t i = 0; routes && i < n; i++) {
    const struct cs_route *r = &routes[i];
    const char *sep = "";
    fprintf(out, "  %-14s if", r->name);
    if (r->kind) {
      fprintf(out, " kind %s", r->kind);
      sep = ",";
    }
    if (r->profile) {
      fprintf(out, "%s profile %s", sep, r->profile);
      sep = ",";
    }
    for (uint32_t l = 0; l < r->n_labels; l++) {
      fprintf(out, "%s label %s", sep, r->labels[l]);
      sep = ",";
    }
    if (r->host) {
      fprintf(out, "%s host %s", sep, r->host);
      sep = ",";
    }
    if (!*sep)
      fprintf(out, " any request");
    fprintf(out, ": backend %s, tier %s, lane %s (%s)\n", r->backend, r->tier, r->lane, r->origin);
  }
  fprintf(out,
          "  %-14s otherwise: backend local, the profile's default tier, lane %s\n"
          "Backends: local runs here; container runs in podman or docker (docs/sbx.md); ssh "
          "is not available in this build (a run routed to it is refused).\n",
          "default", SBX_DEFAULT_LANE);
}
