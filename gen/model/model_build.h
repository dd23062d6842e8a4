/* model_build: a user's scheduler model (.pnet text) compiled into a
 * struct cs_model_table in memory, for `sbx run --model FILE.pnet`
 * (docs/sbx.md, "Your own policies and models"): the same front end
 * (dsl/pnet) and state-space analysis (verify/statespace) pnetc runs, and
 * the same refusals: an assertion that does not hold, an initial marking
 * outside the safe set, a progress step leaving it, a model too large.
 * The table is laid out as emit_c_net.c writes it (cs_model_table.h).
 *
 * Return values: 0, or a negative errno after a message on the
 * diagnostics stream (file:line:col with the line and a caret for the
 * model's own errors): -EINVAL bad model or failed assertion, -EDOM
 * initial marking outside S, -E2BIG too many states, -EOVERFLOW, -EPROTO,
 * -ENOMEM. */
#ifndef CS_GEN_MODEL_BUILD_H
#define CS_GEN_MODEL_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "cs_model_table.h"

struct model_build;

/* name: the file, for diagnostics and the table's source_path. Includes
 * are refused: only the text given was checked by the caller. */
int model_build_load(const char *name, const char *text, size_t len, struct model_build **out);
const struct cs_model_table *model_build_table(const struct model_build *m);
/* A 64-bit FNV-1a digest of everything the table holds: two models with
 * different tables never share a digest in practice, so it keys their
 * shared admission state apart. */
uint64_t model_build_digest(const struct model_build *m);
void model_build_free(struct model_build *m);

#endif
