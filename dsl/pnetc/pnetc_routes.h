/* pnetc_routes: a policy's routes checked against a scheduler model
 * (pnetc --model FILE.pnet, or the project's default model's names).
 * Returns 0, -EINVAL after diagnostics, -ENOMEM. */
#ifndef CS_DSL_PNETC_ROUTES_H
#define CS_DSL_PNETC_ROUTES_H

#include "pol.h"

int pnetc_routes_check(const struct pol_policy *pol, const char *model_path);

#endif
