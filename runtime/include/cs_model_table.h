/* cs_model_table: the layout of the scheduler tables pnetc generates from a
 * .pnet model (gen/) and the admission runtime (runtime/) links.
 *
 * The runtime never searches the state space: the analysis already numbered
 * every marking of the safe set S, and next_state gives, for each of those
 * markings and each transition, the marking it leads to. An admission whose
 * successor lies outside S is CS_REFUSED; a transition that cannot fire is
 * CS_DISABLED. Progress steps never leave S (that is what makes S safe), so
 * their entries are a state or CS_DISABLED. See docs/table-format.md. */
#ifndef CS_RUNTIME_MODEL_TABLE_H
#define CS_RUNTIME_MODEL_TABLE_H

#include <stdint.h>

#define CS_MODEL_TABLE_VERSION 1

#define CS_DISABLED INT32_C(-1) /* the transition is not enabled in this marking */
#define CS_REFUSED INT32_C(-2)  /* enabled, but firing it leaves the safe set */

enum cs_transition_kind {
  CS_TRANSITION_ADMISSION = 0,
  CS_TRANSITION_PROGRESS = 1,
};

enum cs_place_role {
  CS_PLACE_TRACKED = 0,
  CS_PLACE_SOURCE = 1,
  CS_PLACE_SINK = 2,
};

struct cs_model_arc {
  uint32_t place;
  uint32_t weight;
};

struct cs_model_table {
  uint32_t version; /* CS_MODEL_TABLE_VERSION */
  const char *model_name;
  const char *source_path;

  uint32_t n_places;
  const char *const *place_names;
  const uint8_t *place_roles;      /* enum cs_place_role */
  const int64_t *place_capacities; /* -1: unbounded */
  const int64_t *place_initial;

  uint32_t n_transitions;
  const char *const *transition_names;
  const uint8_t *transition_kinds;      /* enum cs_transition_kind */
  const int32_t *transition_completion; /* admission -> its completing progress step, -1 */
  const uint32_t *pre_start;            /* arcs of t are pre_arcs[pre_start[t] .. pre_start[t+1]) */
  const struct cs_model_arc *pre_arcs;
  const uint32_t *post_start;
  const struct cs_model_arc *post_arcs;

  /* The safe set S, one row per marking, numbered in breadth-first order
   * from the initial marking (state 0). */
  uint32_t n_states;
  uint32_t n_tracked;             /* columns of markings */
  const uint32_t *tracked_places; /* column -> place index */
  const uint32_t *markings;       /* n_states x n_tracked token counts */
  const int32_t *next_state;      /* n_states x n_transitions: state, CS_DISABLED or CS_REFUSED */
  uint32_t initial_state;         /* always 0 */
};

#endif
