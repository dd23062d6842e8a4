/* naive: an independent, deliberately simple reachability analysis used to
 * cross-check verify/ (depth-first search, a plain hash set of full int64
 * marking arrays, an explicit edge list, the safe set by a fixpoint over
 * that edge list, distances by breadth-first search over it). Shares no
 * code with verify/. */
#ifndef CS_TESTS_ANALYSIS_NAIVE_H
#define CS_TESTS_ANALYSIS_NAIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "pn_net.h"

struct naive_edge {
  uint32_t src, dst, t;
};

struct naive {
  uint32_t nplaces;
  uint64_t n;
  int64_t *marks; /* n * nplaces */
  struct naive_edge *edges;
  uint64_t nedges;
  bool *dead, *in_s;
  int *cls;  /* enum pn_class values */
  int *dist; /* edges from the initial marking */
  uint64_t *slots;
  uint64_t cap;
};

/* 0, or -1 when more than limit markings are reachable; naive_free frees
 * out either way. */
int naive_explore(const struct pn_net *net, uint64_t limit, struct naive *out);
int64_t naive_find(const struct naive *nv, const int64_t *marking);
void naive_free(struct naive *nv);

#endif
