/* cs_table_check: validation of a generated struct cs_model_table before
 * the runtime trusts it (internal to cs_runtime). */
#ifndef CS_RUNTIME_TABLE_CHECK_H
#define CS_RUNTIME_TABLE_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cs_model_table.h"

/* Structural checks, always run: version, counts, every next_state entry a
 * state of S or CS_DISABLED / CS_REFUSED, progress steps never refused,
 * completions are progress steps. With `deep`, also re-derives every
 * successor from the arcs and checks capacities (O(states x transitions x
 * places)). 0, -ENOMEM, or -EPROTO with the first problem described in
 * `why`. */
int cs_table_check(const struct cs_model_table *t, bool deep, char *why, size_t whylen);

/* Whether transition t is the completion step of some admission. */
bool cs_table_is_completion(const struct cs_model_table *t, uint32_t transition);

/* Firing-effect of transition tr on the tracked place in column col. */
int64_t cs_table_effect(const struct cs_model_table *t, uint32_t tr, uint32_t col);

/* A hash (FNV-1a's constants, word-wise) over everything the runtime
 * relies on, to tell models apart. */
uint64_t cs_table_fingerprint(const struct cs_model_table *t);

#endif
