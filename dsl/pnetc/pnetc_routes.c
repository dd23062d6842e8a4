/* pnetc_routes: checks a policy's routes against the scheduler model
 * (docs/pnetc.md, "--model"). The tiers a route may name are the model's
 * places "<tier>_slots", its lanes the places "<lane>_lane", the same
 * convention sbx admits by (admit_<lane>_<tier>). Without --model, the
 * names of the project's models/default.pnet, which the installed sbx is
 * built with. */
#include "pnetc_routes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pn_net.h"
#include "pnet.h"

static const char *const pnetc_default_tiers[] = { "v8", "seccomp", "wasm", "tee" };
static const char *const pnetc_default_lanes[] = { "interactive", "background", "subagent" };

/* The place names ending in suffix, without it; borrowed from net. */
static int pnetc_routes_names(const struct pn_net *net, const char *suffix, char ***out, size_t *n)
{
  size_t k = strlen(suffix);

  *out = calloc(net->nplaces ? net->nplaces : 1, sizeof **out);
  *n = 0;
  if (!*out)
    return -ENOMEM;
  for (uint32_t p = 0; p < net->nplaces; p++) {
    const char *name = net->places[p].name;
    size_t len = strlen(name);
    if (len <= k || strcmp(name + len - k, suffix) != 0)
      continue;
    if (!((*out)[*n] = strndup(name, len - k)))
      return -ENOMEM;
    (*n)++;
  }
  return 0;
}

static void pnetc_routes_free_names(char **names, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free(names[i]);
  free(names);
}

int pnetc_routes_check(const struct pol_policy *pol, const char *model_path)
{
  struct pol_route_model m = { .name = "models/default.pnet, built in; --model names another",
                               .tiers = pnetc_default_tiers,
                               .n_tiers = sizeof pnetc_default_tiers / sizeof *pnetc_default_tiers,
                               .lanes = pnetc_default_lanes,
                               .n_lanes =
                                   sizeof pnetc_default_lanes / sizeof *pnetc_default_lanes };
  char **tiers = NULL, **lanes = NULL;
  size_t nt = 0, nl = 0;
  struct pn_net *net;
  int rc;

  if (!model_path)
    return pol_routes_check_model(pol, &m);
  /* The model is read with the same front end pnetc compiles it with, so
   * a route can only name what that compilation would admit. */
  net = pnet_parse_file(model_path);
  if (!net)
    return -EINVAL; /* its diagnostics were printed */
  rc = pnetc_routes_names(net, "_slots", &tiers, &nt);
  if (rc == 0)
    rc = pnetc_routes_names(net, "_lane", &lanes, &nl);
  if (rc == 0) {
    m.name = model_path;
    m.tiers = (const char *const *)tiers;
    m.n_tiers = nt;
    m.lanes = (const char *const *)lanes;
    m.n_lanes = nl;
    rc = pol_routes_check_model(pol, &m);
  }
  pnetc_routes_free_names(tiers, nt);
  pnetc_routes_free_names(lanes, nl);
  pn_net_free(net);
  return rc;
}
