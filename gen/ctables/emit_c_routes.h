/* emit_c_routes: a policy's routes as C (docs/table-format.md, "Routes"):
 * `cs_routes` and `cs_routes_count` in profiles.c, declared in profiles.h
 * (struct cs_route, runtime/include/cs_profile_table.h). Deterministic.
 * Returns 0, or the stream's error (text_stream_status). */
#ifndef CS_GEN_EMIT_C_ROUTES_H
#define CS_GEN_EMIT_C_ROUTES_H

#include <stddef.h>
#include <stdio.h>

#include "pol_route.h"

/* The declarations, for profiles.h. */
int emit_c_routes_header(FILE *out, size_t n);
/* The definitions, for profiles.c, after its includes. */
int emit_c_routes_source(FILE *out, const struct pol_route *routes, size_t n);

#endif
