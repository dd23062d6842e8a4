/* pn_trace internals: assertion bookkeeping during the exploration. */
#ifndef CS_VERIFY_PN_TRACE_INTERNAL_H
#define CS_VERIFY_PN_TRACE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

struct pn_analysis;

int pnr_assert_init(struct pn_analysis *a);
/* Called once per new state, in breadth-first order: the first state that
 * decides an assertion is therefore one at the least depth. */
void pnr_assert_visit(struct pn_analysis *a, uint64_t s, const uint32_t *tokens);
/* Whether pnr_assert_visit looks at the states at all (no-deadlock is
 * decided from the dead states instead). */
bool pnr_assert_visits(const struct pn_analysis *a);
/* Builds the traces once the exploration is complete. */
int pnr_assert_finish(struct pn_analysis *a);
void pnr_assert_free(struct pn_analysis *a);

#endif
