/* sbx_route: which route a run takes (docs/sbx.md, "Routes"). The routes
 * are the linked policy's (cs_routes, cs_profile_table.h), tried in order;
 * the first whose every condition holds wins. A request: kind of work
 * ("command" for sbx run), the profile's name, the labels the host
 * attached (--label), the target host (NULL: this machine). None matching
 * is the default route: backend local, the profile's default tier, lane
 * SBX_DEFAULT_LANE. --tier and --lane, when given, win over the route's:
 * both are admission classes a caller may choose, never confinement. */
#ifndef CS_RUNTIME_SBX_ROUTE_H
#define CS_RUNTIME_SBX_ROUTE_H

#include <stddef.h>
#include <stdio.h>

#include "cs_model_table.h"
#include "cs_profile_table.h"

struct sbx_route_request {
  const char *kind;
  const char *profile;
  const char *const *labels;
  size_t n_labels;
  const char *host;
};

struct sbx_route_choice {
  const struct cs_route *route; /* NULL: the default route */
  const char *name;             /* the route's name, or "default" */
  const char *backend;
};

void sbx_route_choose(const struct cs_route *routes, size_t n, const struct sbx_route_request *rq,
                      struct sbx_route_choice *out);
/* The route's tier, else the profile's default (may be NULL), unless
 * asked; the route's lane, else NULL (the admission's default lane). */
const char *sbx_route_tier(const struct sbx_route_choice *c, const char *asked,
                           const char *profile_tier);
const char *sbx_route_lane(const struct sbx_route_choice *c, const char *asked);
/* Whether every route's tier ("<tier>_slots") and lane ("<lane>_lane")
 * is a place of the model the runs are admitted through: 0, or -ENOENT
 * after a message on err naming the first route that is not (for a
 * user's policy, which pnetc did not check against this model). */
int sbx_route_check_model(const struct cs_route *routes, size_t n, const struct cs_model_table *t,
                          FILE *err);
/* `sbx explain --routes`: every route, then the default. */
void sbx_route_list(FILE *out, const struct cs_route *routes, size_t n);

#endif
