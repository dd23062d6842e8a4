/* Hand-written table, see fixture_opposite.h. */
#include "fixture_opposite.h"

enum { P_PENDING, P_LANE, P_SLOT, P_A_WAIT, P_A_RUN, P_B_WAIT, P_B_RUN, P_COMPLETED };
#define D CS_DISABLED
#define R CS_REFUSED

static const char *const place_names[] = { "pending", "lane",   "slot",  "a_wait",
                                           "a_run",   "b_wait", "b_run", "completed" };
static const uint8_t place_roles[] = { CS_PLACE_SOURCE, 0, 0, 0, 0, 0, 0, CS_PLACE_SINK };
static const int64_t place_capacities[] = { -1, 1, 1, -1, -1, -1, -1, -1 };
static const int64_t place_initial[] = { 0, 1, 1, 0, 0, 0, 0, 0 };
static const char *const transition_names[] = { "admit_a", "start_a", "complete_a",
                                                "admit_b", "start_b", "complete_b" };
static const uint8_t transition_kinds[] = { CS_TRANSITION_ADMISSION, CS_TRANSITION_PROGRESS,
                                            CS_TRANSITION_PROGRESS,  CS_TRANSITION_ADMISSION,
                                            CS_TRANSITION_PROGRESS,  CS_TRANSITION_PROGRESS };
static const int32_t transition_completion[] = { 2, -1, -1, 5, -1, -1 };
static const uint32_t pre_start[] = { 0, 2, 4, 5, 7, 9, 10 };
static const struct cs_model_arc pre_arcs[] = {
  { P_PENDING, 1 }, { P_LANE, 1 }, { P_SLOT, 1 }, { P_A_WAIT, 1 }, { P_A_RUN, 1 },
  { P_PENDING, 1 }, { P_SLOT, 1 }, { P_LANE, 1 }, { P_B_WAIT, 1 }, { P_B_RUN, 1 },
};
static const uint32_t post_start[] = { 0, 1, 2, 5, 6, 7, 10 };
static const struct cs_model_arc post_arcs[] = {
  { P_A_WAIT, 1 }, { P_A_RUN, 1 }, { P_LANE, 1 }, { P_SLOT, 1 }, { P_COMPLETED, 1 },
  { P_B_WAIT, 1 }, { P_B_RUN, 1 }, { P_LANE, 1 }, { P_SLOT, 1 }, { P_COMPLETED, 1 },
};
static const uint32_t tracked_places[] = { P_LANE, P_SLOT, P_A_WAIT, P_A_RUN, P_B_WAIT, P_B_RUN };
static const uint32_t markings[] = {
  1, 1, 0, 0, 0, 0, /* s0 */
  0, 1, 1, 0, 0, 0, /* s1 */
  1, 0, 0, 0, 1, 0, /* s2 */
  0, 0, 0, 1, 0, 0, /* s3 */
  0, 0, 0, 0, 0, 1, /* s4 */
};
/*                                  admit_a start_a complete_a admit_b start_b complete_b */
static const int32_t next_state[] = { 1, D, D, 2, D, D,        /* s0 */
                                      D, 3, D, R, D, D,        /* s1 */
                                      R, D, D, D, 4, D,        /* s2 */
                                      D, D, 0, D, D, D,        /* s3 */
                                      D, D, D, D, D, 0 };      /* s4 */
static const int32_t next_state_broken[] = { 0, D, D, 2, D, D, /* s0: admit_a "takes" nothing */
                                             D, 3, D, R, D, D, R, D, D, D, 4, D,
                                             D, D, 0, D, D, D, D, D, D, D, D, 0 };

#define FIXTURE(NAME, NEXT)                                                                        \
  const struct cs_model_table NAME = {                                                             \
    .version = CS_MODEL_TABLE_VERSION,                                                             \
    .model_name = #NAME,                                                                           \
    .source_path = "tests/admission/fixture_opposite.c",                                           \
    .n_places = 8,                                                                                 \
    .place_names = place_names,                                                                    \
    .place_roles = place_roles,                                                                    \
    .place_capacities = place_capacities,                                                          \
    .place_initial = place_initial,                                                                \
    .n_transitions = 6,                                                                            \
    .transition_names = transition_names,                                                          \
    .transition_kinds = transition_kinds,                                                          \
    .transition_completion = transition_completion,                                                \
    .pre_start = pre_start,                                                                        \
    .pre_arcs = pre_arcs,                                                                          \
    .post_start = post_start,                                                                      \
    .post_arcs = post_arcs,                                                                        \
    .n_states = 5,                                                                                 \
    .n_tracked = 6,                                                                                \
    .tracked_places = tracked_places,                                                              \
    .markings = markings,                                                                          \
    .next_state = NEXT,                                                                            \
    .initial_state = 0,                                                                            \
  }

FIXTURE(fixture_opposite, next_state);
FIXTURE(fixture_opposite_broken, next_state_broken);
