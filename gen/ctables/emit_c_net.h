/* emit_c_net: the scheduler tables of a net as C, behind `pnetc -o DIR
 * MODEL.pnet` (docs/pnetc.md, docs/table-format.md).
 *
 * Deterministic: the same net and analysis give the same bytes (no dates,
 * no addresses, no hash order). The emitters write to a stream; the driver
 * owns the files (out_file.h) so a failure leaves nothing.
 *
 * Return values: 0, or a negative errno:
 *   -ENOMEM     out of memory
 *   -EOVERFLOW  a count does not fit the generated table's column type
 *   -EPROTO     the analysis is inconsistent with the table contract (a
 *               progress step leaves the safe set); a message was printed
 *   -EDOM       the initial marking is outside the safe set: there is no
 *               table to generate (a message was printed)
 *   -EIO        the stream reported a write error */
#ifndef CS_GEN_EMIT_C_NET_H
#define CS_GEN_EMIT_C_NET_H

#include <stdio.h>

#include "pn_analysis.h"
#include "pn_net.h"

/* NAME.h declares `extern const struct cs_model_table cs_model_<ident>;`
 * and enums of place / transition indices, NAME.c defines it
 * (docs/table-format.md). header_name is how NAME.c includes NAME.h;
 * generator names the tool for the banner. */
int emit_c_net_header(FILE *out, const struct pn_net *net, const struct pn_analysis *a,
                      const char *ident, const char *generator);
int emit_c_net_source(FILE *out, const struct pn_net *net, const struct pn_analysis *a,
                      const char *ident, const char *header_name, const char *generator);

#endif
