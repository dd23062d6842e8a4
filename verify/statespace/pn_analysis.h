/* pn_analysis: explicit-state analysis of a pn_net (docs/analysis.md).
 *
 * Explores every reachable marking of the tracked places breadth-first
 * (environment places abstracted), then computes the safe set S by a
 * backward greatest-fixpoint over reverse firings (no edge list is kept),
 * classifies every marking, and checks the model's assertions, each
 * violation with a shortest firing sequence from the initial marking.
 *
 * States are numbered 0..states-1 in breadth-first order; state 0 is the
 * initial marking. */
#ifndef CS_VERIFY_PN_ANALYSIS_H
#define CS_VERIFY_PN_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>

#include "pn_net.h"

#define PN_DEFAULT_MAX_STATES UINT64_C(100000000)

enum pn_class {
  PN_CLASS_DEAD,      /* nothing can fire */
  PN_CLASS_UNSAFE,    /* not dead, outside the safe set S */
  PN_CLASS_SATURATED, /* in S, but no admission keeps the net in S */
  PN_CLASS_SAFE,      /* in S, and some admission is allowed */
};

struct pn_analysis_opts {
  uint64_t max_states; /* 0: PN_DEFAULT_MAX_STATES; reaching it is -E2BIG */
  bool show_progress;  /* progress lines on stderr; the caller passes isatty(2) */
  /* Threads for the searches: 0 picks PNETC_THREADS from the environment
   * if set, else the online CPUs (at most 4). Results are identical for
   * any count (docs/analysis.md, "Parallel searches"). */
  unsigned threads;
};

struct pn_assert_result {
  bool holds;
  /* Shortest firing sequence (transition indices) from the initial marking
   * to the witness: the violating marking, or for PN_ASSERT_REACHABLE that
   * holds, the marking showing it. NULL when there is no witness. */
  uint32_t *trace;
  uint32_t ntrace;
  int64_t witness; /* state shown by the trace, -1 when none */
};

struct pn_analysis;

/* 0 on success; -E2BIG when max_states was reached (a message was printed),
 * -ENOMEM, -EOVERFLOW when a token count exceeds what can be represented
 * (2^32 - 1 tokens in a place); every error prints a message. The analysis
 * keeps a pointer to net: net must outlive it. max_states is capped at
 * 2^32 - 2 (state numbers are 32-bit). */
int pn_analyze(const struct pn_net *net, const struct pn_analysis_opts *opts,
               struct pn_analysis **out);
void pn_analysis_free(struct pn_analysis *a);

uint64_t pn_analysis_states(const struct pn_analysis *a);
uint64_t pn_analysis_edges(const struct pn_analysis *a);
uint64_t pn_analysis_class_count(const struct pn_analysis *a, enum pn_class c);
/* Largest token count reached per place (net->nplaces entries; environment
 * places report -1: not tracked). */
const int64_t *pn_analysis_bounds(const struct pn_analysis *a);

/* Token counts of every place in state s (environment places: 0). */
void pn_analysis_marking(const struct pn_analysis *a, uint64_t s, int64_t *tokens);
enum pn_class pn_analysis_class(const struct pn_analysis *a, uint64_t s);
/* The state reached by firing t in s, or -1 when t is not enabled in s. */
int64_t pn_analysis_successor(const struct pn_analysis *a, uint64_t s, uint32_t t);
bool pn_analysis_in_safe_set(const struct pn_analysis *a, uint64_t s);
/* Markings in the safe set S: the rows of the C tables. */
uint64_t pn_analysis_safe_set_size(const struct pn_analysis *a);
/* The class as the outputs spell it ("deadlock", "unsafe", "saturated",
 * "safe"). */
const char *pn_class_name(enum pn_class c);

/* One result per net->assertions entry, same order. */
const struct pn_assert_result *pn_analysis_assertion(const struct pn_analysis *a, uint32_t i);
/* Shortest firing sequence from the initial marking to state s (caller frees). */
int pn_analysis_path_to(const struct pn_analysis *a, uint64_t s, uint32_t **trace,
                        uint32_t *ntrace);

/* Introspection for reports, tests and benchmarks. */
unsigned pn_analysis_state_bits(const struct pn_analysis *a); /* stored bits per marking */
unsigned pn_analysis_reencodes(const struct pn_analysis *a);  /* times the store was widened */
uint32_t pn_analysis_levels(const struct pn_analysis *a);     /* breadth-first depth + 1 */

#endif
