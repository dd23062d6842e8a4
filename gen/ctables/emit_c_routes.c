/* emit_c_routes: a policy's routes as C tables (see emit_c_routes.h). */
#include "emit_c_routes.h"

#include "c_text.h"
#include "cs_profile_table.h"

int emit_c_routes_header(FILE *out, size_t n)
{
  fprintf(out,
          "/* The policy's routes in declaration order; the first that matches a request\n"
          " * wins, and a request none matches takes the default route (local, the\n"
          " * profile's default tier, lane interactive). NULL when there are none. */\n"
          "#define CS_ROUTES_COUNT %zuu\n"
          "extern const struct cs_route *const cs_routes;\n"
          "extern const uint32_t cs_routes_count;\n\n",
          n);
  return text_stream_status(out);
}

int emit_c_routes_source(FILE *out, const struct pol_route *routes, size_t n)
{
  fputs("/* ---- Routes (docs/pol-language.md, \"Routes\") ---- */\n", out);
  for (size_t i = 0; i < n; i++) {
    if (!routes[i].n_labels)
      continue;
    fprintf(out, "static const char *const cs_route_%zu_labels[] = { ", i);
    for (size_t l = 0; l < routes[i].n_labels; l++) {
      fputs(l ? ", " : "", out);
      text_c_string(out, routes[i].labels[l]);
    }
    fputs(" };\n", out);
  }
  if (n == 0) {
    fputs("const struct cs_route *const cs_routes = NULL;\n", out);
  } else {
    fputs("static const struct cs_route cs_routes_table[] = {\n", out);
    for (size_t i = 0; i < n; i++) {
      const struct pol_route *r = &routes[i];
      fputs("  { .name = ", out);
      text_c_string(out, r->name);
      fputs(",\n    .origin = ", out);
      text_c_string(out, r->origin);
      fputs(",\n    .kind = ", out);
      text_c_string(out, r->kind);
      fputs(",\n    .profile = ", out);
      text_c_string(out, r->profile);
      if (r->n_labels)
        fprintf(out, ",\n    .labels = cs_route_%zu_labels,\n    .n_labels = %zuu", i, r->n_labels);
      else
        fputs(",\n    .labels = NULL,\n    .n_labels = 0", out);
      fputs(",\n    .host = ", out);
      text_c_string(out, r->host);
      fputs(",\n    .backend = ", out);
      text_c_string(out, r->backend);
      fputs(",\n    .tier = ", out);
      text_c_string(out, r->tier);
      fputs(",\n    .lane = ", out);
      text_c_string(out, r->lane);
      fputs(" },\n", out);
    }
    fputs("};\nconst struct cs_route *const cs_routes = cs_routes_table;\n", out);
  }
  fputs("const uint32_t cs_routes_count = CS_ROUTES_COUNT;\n\n", out);
  return text_stream_status(out);
}
