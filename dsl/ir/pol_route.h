/* pol_route: one resolved route of a policy (docs/pol-language.md,
 * "Routes"): which requests it matches and where they go. The .pol front
 * end fills it (dsl/pol/pol_route.c); the table emitter writes it as a
 * struct cs_route (cs_profile_table.h). */
#ifndef CS_DSL_IR_POL_ROUTE_H
#define CS_DSL_IR_POL_ROUTE_H

#include <stddef.h>

#include "diag.h"

struct pol_route {
  char *name;
  char *origin; /* "profiles.pol:120:1" */
  struct diag_loc loc;
  /* What it matches; NULL (no labels) matches anything. */
  char *kind;    /* "command", "javascript" or "wasm" */
  char *profile; /* a profile's name (an alias is resolved to it) */
  char **labels; /* every one must be attached to the request */
  size_t n_labels;
  char *host; /* the target host, lower case */
  /* Where it sends them. */
  char *backend; /* "local", "container" or "ssh" */
  char *tier;
  char *lane;
  struct diag_loc tier_loc, lane_loc;
};

#endif
