/* emit: the net emitters behind `pnetc --emit c|json|dot` (docs/pnetc.md).
 *
 * Every emitter is deterministic: the same net and analysis give the same
 * bytes (no dates, no addresses, no hash order). They write to a stream;
 * the driver owns the files (gen/out_file.h) so a failure leaves nothing.
 *
 * Return values: 0, or a negative errno:
 *   -ENOMEM     out of memory
 *   -EOVERFLOW  a count does not fit the generated table's column type
 *   -EPROTO     the analysis is inconsistent with the table contract (a
 *               progress step leaves the safe set); a message was printed
 *   -EDOM       the initial marking is outside the safe set: there is no
 *               table to generate (a message was printed)
 *   -EIO        the stream reported a write error */
#ifndef CS_GEN_EMIT_H
#define CS_GEN_EMIT_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "pn_net.h"
#include "pn_analysis.h"

/* Largest reachability graph --emit dot draws; larger nets get the net only. */
#define EMIT_DOT_MAX_STATES 64

/* The identifier a model file yields: the file name without directory and
 * extension, every byte outside [A-Za-z0-9_] replaced by '_', and a '_'
 * prepended when it starts with a digit (CMake's MAKE_C_IDENTIFIER, so the
 * build knows the generated file names in advance). Caller frees. */
char *emit_model_ident(const char *path);

/* Markings in the safe set S: the rows of the C tables. */
uint64_t emit_safe_set_size(const struct pn_analysis *a);

/* The C tables: NAME.h declares `extern const struct cs_model_table
 * cs_model_<ident>;` and enums of place / transition indices, NAME.c
 * defines it (docs/table-format.md). header_name is how NAME.c includes
 * NAME.h; generator names the tool for the banner. */
int emit_c_net_header(FILE *out, const struct pn_net *net, const struct pn_analysis *a,
                      const char *ident, const char *generator);
int emit_c_net_source(FILE *out, const struct pn_net *net, const struct pn_analysis *a,
                      const char *ident, const char *header_name, const char *generator);

/* The analysis report (docs/report-schema.md); caller json_decref()s. */
json_t *emit_json_report(const struct pn_net *net, const struct pn_analysis *a);
/* Writes the report as one JSON object (sorted keys, 2-space indent, final
 * newline). */
int emit_json_write(FILE *out, const struct pn_net *net, const struct pn_analysis *a);

/* Graphviz: the net, and the reachability graph when the analysis is given
 * and has at most EMIT_DOT_MAX_STATES states. a may be NULL. */
int emit_dot(FILE *out, const struct pn_net *net, const struct pn_analysis *a);

#endif
