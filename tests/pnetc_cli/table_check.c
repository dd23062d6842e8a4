/* table_check: an independent check of the tables pnetc generated for one
 * of the project's models (CS_CHECK_TABLE: cs_model_default or
 * cs_model_two_stage, built at build time by pnetc_add_model) and of the
 * JSON report.
 *
 * The analysis computed the tables; this test does not trust it. It
 * recomputes every next_state cell from the table's own markings and arcs
 * (the Petri-net firing rule), checks that S respects every capacity, is
 * closed under progress steps and has no dead marking, and compares the
 * table with the model the front end reads. For the default model the state
 * count is also checked against a figure derived by hand (test_state_count).
 *
 *   table_check_<model> <absolute model path> <model path as recorded> */
#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "pnet.h"
#include "emit_report.h"
#include "cs_model_table.h"
#include "pn_analysis.h"

extern const struct cs_model_table CS_CHECK_TABLE;
static const struct cs_model_table *T = &CS_CHECK_TABLE;
static const char *model_path, *recorded_path;

static const uint32_t *row(uint32_t s)
{
  return T->markings + (size_t)s * T->n_tracked;
}

/* Column of place p in a marking row, -1 for environment places. */
static int column_of(uint32_t p)
{
  for (uint32_t j = 0; j < T->n_tracked; j++)
    if (T->tracked_places[j] == p)
      return (int)j;
  return -1;
}

static int64_t find_row(const uint32_t *m)
{
  for (uint32_t s = 0; s < T->n_states; s++)
    if (memcmp(row(s), m, T->n_tracked * sizeof *m) == 0)
      return s;
  return -1;
}

START_TEST(test_header)
{
  ck_assert_uint_eq(T->version, CS_MODEL_TABLE_VERSION);
  ck_assert_uint_eq(T->initial_state, 0);
  ck_assert_str_eq(T->source_path, recorded_path);
  ck_assert_uint_gt(T->n_states, 0);
}
END_TEST

/* models/default.pnet: a marking is the runs of each (lane, tier) pair,
 * within each lane's width (6, 2, 2) and each tier's slots (10, 4, 2, 1):
 * 10017 such matrices (counted independently by
 * tests/analysis/lanes_check.py), all in S. */
START_TEST(test_state_count)
{
#ifdef CS_CHECK_EXPECT_STATES
  ck_assert_uint_eq(T->n_states, CS_CHECK_EXPECT_STATES);
#endif
}
END_TEST

START_TEST(test_initial_row)
{
  for (uint32_t j = 0; j < T->n_tracked; j++)
    ck_assert_int_eq((int64_t)row(0)[j], T->place_initial[T->tracked_places[j]]);
}
END_TEST

START_TEST(test_rows_distinct_and_within_capacity)
{
  for (uint32_t s = 0; s < T->n_states; s++) {
    ck_assert_int_eq(find_row(row(s)), s);
    for (uint32_t j = 0; j < T->n_tracked; j++) {
      int64_t cap = T->place_capacities[T->tracked_places[j]];
      if (cap >= 0)
        ck_assert_int_le(row(s)[j], cap);
    }
  }
}
END_TEST

/* The firing rule, applied to the table's own data. */
START_TEST(test_next_state_recomputed)
{
  uint32_t *succ = malloc(T->n_tracked * sizeof *succ);
  ck_assert_ptr_nonnull(succ);
  for (uint32_t s = 0; s < T->n_states; s++) {
    int live = 0;
    for (uint32_t t = 0; t < T->n_transitions; t++) {
      memcpy(succ, row(s), T->n_tracked * sizeof *succ);
      int enabled = 1;
      for (uint32_t k = T->pre_start[t]; k < T->pre_start[t + 1]; k++) {
        int c = column_of(T->pre_arcs[k].place);
        if (c < 0)
          continue; /* a source always has tokens */
        if (succ[c] < T->pre_arcs[k].weight)
          enabled = 0;
        else
          succ[c] -= T->pre_arcs[k].weight;
      }
      int32_t cell = T->next_state[(size_t)s * T->n_transitions + t];
      if (!enabled) {
        ck_assert_msg(cell == CS_DISABLED, "S%u t%u: disabled by the arcs, table says %d", s, t,
                      cell);
        continue;
      }
      live = 1;
      for (uint32_t k = T->post_start[t]; k < T->post_start[t + 1]; k++) {
        int c = column_of(T->post_arcs[k].place);
        if (c >= 0)
          succ[c] += T->post_arcs[k].weight;
      }
      int64_t target = find_row(succ);
      if (target >= 0) {
        ck_assert_msg(cell == target, "S%u t%u: leads to S%lld, table says %d", s, t,
                      (long long)target, cell);
      } else {
        /* Leaving S is only ever an admission the runtime can refuse. */
        ck_assert_uint_eq(T->transition_kinds[t], CS_TRANSITION_ADMISSION);
        ck_assert_int_eq(cell, CS_REFUSED);
      }
    }
    ck_assert_msg(live, "S%u is dead", s);
  }
  free(succ);
}
END_TEST

START_TEST(test_table_matches_model)
{
  struct pn_net *net = pnet_parse_file(model_path);
  ck_assert_ptr_nonnull(net);
  ck_assert_uint_eq(T->n_places, net->nplaces);
  ck_assert_uint_eq(T->n_transitions, net->ntransitions);
  for (uint32_t p = 0; p < net->nplaces; p++) {
    ck_assert_str_eq(T->place_names[p], net->places[p].name);
    ck_assert_int_eq(T->place_roles[p], (int)net->places[p].role);
    ck_assert_int_eq(T->place_capacities[p], net->places[p].capacity);
    ck_assert_int_eq(T->place_initial[p], net->places[p].initial);
  }
  for (uint32_t t = 0; t < net->ntransitions; t++) {
    const struct pn_transition *tr = &net->transitions[t];
    ck_assert_str_eq(T->transition_names[t], tr->name);
    ck_assert_int_eq(T->transition_kinds[t],
                     tr->kind == PN_ADMISSION ? CS_TRANSITION_ADMISSION : CS_TRANSITION_PROGRESS);
    ck_assert_int_eq(T->transition_completion[t], tr->completion);
    ck_assert_uint_eq(T->pre_start[t + 1] - T->pre_start[t], tr->npre);
    for (uint32_t k = 0; k < tr->npre; k++) {
      ck_assert_uint_eq(T->pre_arcs[T->pre_start[t] + k].place, tr->pre[k].place);
      ck_assert_uint_eq(T->pre_arcs[T->pre_start[t] + k].weight, tr->pre[k].weight);
    }
    ck_assert_uint_eq(T->post_start[t + 1] - T->post_start[t], tr->npost);
    for (uint32_t k = 0; k < tr->npost; k++) {
      ck_assert_uint_eq(T->post_arcs[T->post_start[t] + k].place, tr->post[k].place);
      ck_assert_uint_eq(T->post_arcs[T->post_start[t] + k].weight, tr->post[k].weight);
    }
  }
  pn_net_free(net);
}
END_TEST

static json_int_t member_int(json_t *o, const char *key)
{
  json_t *v = json_object_get(o, key);
  ck_assert_msg(json_is_integer(v), "report: '%s' missing or not an integer", key);
  return json_integer_value(v);
}

/* docs/report-schema.md: every key present, values equal to the analysis. */
START_TEST(test_report_matches_analysis)
{
  struct pn_net *net = pnet_parse_file(model_path);
  ck_assert_ptr_nonnull(net);
  struct pn_analysis *a = NULL;
  struct pn_analysis_opts opts = { 0 };
  ck_assert_int_eq(pn_analyze(net, &opts, &a), 0);
  json_t *r = emit_json_report(net, a);
  ck_assert_ptr_nonnull(r);

  static const char *const keys[] = { "schema_version", "model",   "source",   "places",
                                      "transitions",    "states",  "edges",    "deadlocks",
                                      "bounds",         "classes", "safe_set", "assertions",
                                      "holds" };
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    ck_assert_msg(json_object_get(r, keys[i]) != NULL, "report lacks '%s'", keys[i]);
  ck_assert_int_eq(member_int(r, "states"), (json_int_t)pn_analysis_states(a));
  ck_assert_int_eq(member_int(r, "edges"), (json_int_t)pn_analysis_edges(a));
  ck_assert_int_eq(member_int(r, "deadlocks"),
                   (json_int_t)pn_analysis_class_count(a, PN_CLASS_DEAD));
  json_t *classes = json_object_get(r, "classes");
  ck_assert_int_eq(member_int(classes, "deadlock"),
                   (json_int_t)pn_analysis_class_count(a, PN_CLASS_DEAD));
  ck_assert_int_eq(member_int(classes, "unsafe"),
                   (json_int_t)pn_analysis_class_count(a, PN_CLASS_UNSAFE));
  ck_assert_int_eq(member_int(classes, "saturated"),
                   (json_int_t)pn_analysis_class_count(a, PN_CLASS_SATURATED));
  ck_assert_int_eq(member_int(classes, "safe"),
                   (json_int_t)pn_analysis_class_count(a, PN_CLASS_SAFE));
  /* The generated table holds exactly the safe set. */
  ck_assert_int_eq(member_int(r, "safe_set"), (json_int_t)T->n_states);
  ck_assert_int_eq(member_int(classes, "safe") + member_int(classes, "saturated"),
                   (json_int_t)T->n_states);

  json_t *bounds = json_object_get(r, "bounds");
  const int64_t *b = pn_analysis_bounds(a);
  for (uint32_t p = 0; p < net->nplaces; p++)
    if (net->places[p].role == PN_PLACE_TRACKED)
      ck_assert_int_eq(member_int(bounds, net->places[p].name), b[p]);
  /* Bounds again, independently: the largest count over the table's rows
   * (every reachable marking of this model is in S). */
  for (uint32_t j = 0; j < T->n_tracked; j++) {
    uint32_t max = 0;
    for (uint32_t s = 0; s < T->n_states; s++)
      if (row(s)[j] > max)
        max = row(s)[j];
    ck_assert_int_eq(member_int(bounds, T->place_names[T->tracked_places[j]]), max);
  }

  json_t *asserts = json_object_get(r, "assertions");
  ck_assert_uint_eq(json_array_size(asserts), net->nassertions);
  for (uint32_t i = 0; i < net->nassertions; i++) {
    json_t *as = json_array_get(asserts, i);
    ck_assert(json_is_string(json_object_get(as, "text")));
    ck_assert(json_is_string(json_object_get(as, "kind")));
    ck_assert(json_boolean_value(json_object_get(as, "holds")) ==
              pn_analysis_assertion(a, i)->holds);
  }
  ck_assert_uint_eq(json_array_size(json_object_get(r, "places")), net->nplaces);
  ck_assert_uint_eq(json_array_size(json_object_get(r, "transitions")), net->ntransitions);
  json_decref(r);
  pn_analysis_free(a);
  pn_net_free(net);
}
END_TEST

int main(int argc, char **argv)
{
  if (argc != 3) {
    fprintf(stderr, "usage: %s MODEL_PATH RECORDED_PATH\n", argv[0]);
    return 2;
  }
  model_path = argv[1];
  recorded_path = argv[2];
  Suite *s = suite_create("pnetc_tables");
  TCase *tc = tcase_create("table");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_header);
  tcase_add_test(tc, test_state_count);
  tcase_add_test(tc, test_initial_row);
  tcase_add_test(tc, test_rows_distinct_and_within_capacity);
  tcase_add_test(tc, test_next_state_recomputed);
  tcase_add_test(tc, test_table_matches_model);
  tcase_add_test(tc, test_report_matches_analysis);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
