/* emit_report: the views of a net that are read rather than compiled,
 * behind `pnetc --check --json` and `pnetc --emit json|dot` (docs/pnetc.md).
 *
 * Deterministic like every emitter; they write to a stream and return 0,
 * -ENOMEM, or the stream's error (text_stream_status: -ENOSPC, -EDQUOT,
 * -EFBIG or -EIO). */
#ifndef CS_GEN_EMIT_REPORT_H
#define CS_GEN_EMIT_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "pn_analysis.h"
#include "pn_net.h"

/* Largest reachability graph --emit dot draws; larger nets get the net only. */
#define EMIT_DOT_MAX_STATES 64

/* The analysis report (docs/report-schema.md); caller json_decref()s. */
json_t *emit_json_report(const struct pn_net *net, const struct pn_analysis *a);
/* Writes the report as one JSON object (sorted keys, 2-space indent, final
 * newline). */
int emit_json_write(FILE *out, const struct pn_net *net, const struct pn_analysis *a);

/* Graphviz: the net, and the reachability graph when the analysis is given
 * and has at most EMIT_DOT_MAX_STATES states. a may be NULL. */
int emit_dot(FILE *out, const struct pn_net *net, const struct pn_analysis *a);

#endif
