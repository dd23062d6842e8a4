/* pn_semiflow: P-semiflows (place invariants) of a net and the structural
 * place bounds they prove (docs/analysis.md, "Structural bounds").
 *
 * A P-semiflow is a vector y >= 0, y != 0, over the tracked places with
 * y . delta(t) = 0 for every transition t (delta restricted to the tracked
 * places, as the exploration fires it). Then y . m = y . m0 in every
 * reachable marking m, so a place p with y_p > 0 never holds more than
 * floor(y . m0 / y_p) tokens. */
#ifndef CS_VERIFY_PN_SEMIFLOW_H
#define CS_VERIFY_PN_SEMIFLOW_H

#include <stdint.h>

#include "pn_net.h"

/* The minimal-support P-semiflows: nrows rows of net->nplaces coefficients
 * each (row r at y + r * net->nplaces; environment places are 0), each
 * row's coefficients with greatest common divisor 1. */
struct pn_semiflows {
  int64_t *y;
  uint32_t nrows;
  uint32_t ncols;
};

/* Computes the minimal-support P-semiflows (Farkas' algorithm, dropping
 * every row whose support contains another row's). Returns 0, -ENOMEM, or
 * -E2BIG when the net is too large or the computation outgrows its limits
 * (rows, 63-bit coefficients): the caller then has no semiflows, which is
 * always sound. */
int pn_semiflows_compute(const struct pn_net *net, struct pn_semiflows *out);
void pn_semiflows_free(struct pn_semiflows *sf);

/* Per net place, the least bound the semiflows prove, or -1 when no
 * semiflow covers the place (or it is an environment place). bound has
 * net->nplaces entries. Returns 0, -ENOMEM or -E2BIG (then every entry is
 * -1). */
int pn_semiflow_bounds(const struct pn_net *net, int64_t *bound);

#endif
