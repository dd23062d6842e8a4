/* check_pnet: unit tests of the .pnet front end's lowering (dsl/pnet/).
 * The golden tests pin every diagnostic's text; these check the IR that
 * the analysis and the emitters read: counts, order, arcs, weights, kinds,
 * completions, constants, families, includes, assertions and limits. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pnet.h"
#include "pnet_limits.h"
#include "pnml.h"

#define MODEL(rel) CS_SOURCE_ROOT "/" rel

/* Diagnostics of the current test, captured instead of printed. */
static char *diag_text;
static size_t diag_size;
static FILE *diag_capture;

static void capture_start(void)
{
  diag_capture = open_memstream(&diag_text, &diag_size);
  ck_assert_ptr_nonnull(diag_capture);
  diag_set_stream(diag_capture);
  diag_reset();
}

static const char *capture_end(void)
{
  diag_set_stream(NULL);
  fclose(diag_capture);
  diag_capture = NULL;
  return diag_text;
}

static void capture_free(void)
{
  free(diag_text);
  diag_text = NULL;
  diag_size = 0;
}

static struct pn_net *parse_ok(const char *text)
{
  capture_start();
  struct pn_net *net = pnet_parse_memory("unit.pnet", text, strlen(text));
  const char *diags = capture_end();
  ck_assert_msg(net != NULL, "parse failed:\n%s", diags);
  capture_free();
  return net;
}

/* Parses text, expects rejection, returns whether the diagnostics contain
 * want. */
static void parse_fails_with(const char *text, const char *want)
{
  capture_start();
  struct pn_net *net = pnet_parse_memory("unit.pnet", text, strlen(text));
  const char *diags = capture_end();
  ck_assert_msg(net == NULL, "accepted a bad model:\n%s", text);
  ck_assert_msg(strstr(diags, want) != NULL, "expected '%s' in:\n%s", want, diags);
  capture_free();
}

static int32_t place_index(const struct pn_net *net, const char *name)
{
  for (uint32_t i = 0; i < net->nplaces; i++)
    if (strcmp(net->places[i].name, name) == 0)
      return (int32_t)i;
  return -1;
}

static const struct pn_transition *transition(const struct pn_net *net, const char *name)
{
  for (uint32_t i = 0; i < net->ntransitions; i++)
    if (strcmp(net->transitions[i].name, name) == 0)
      return &net->transitions[i];
  ck_abort_msg("no transition %s", name);
  return NULL;
}

static uint32_t weight(const struct pn_net *net, const struct pn_arc *arcs, uint32_t n,
                       const char *place)
{
  int32_t p = place_index(net, place);
  for (uint32_t i = 0; i < n; i++)
    if ((int32_t)arcs[i].place == p)
      return arcs[i].weight;
  return 0;
}

static void assert_arcs_sorted(const struct pn_transition *t)
{
  for (uint32_t i = 1; i < t->npre; i++)
    ck_assert_uint_lt(t->pre[i - 1].place, t->pre[i].place);
  for (uint32_t i = 1; i < t->npost; i++)
    ck_assert_uint_lt(t->post[i - 1].place, t->post[i].place);
}

START_TEST(default_model)
{
  struct pn_net *net = pnet_parse_file(MODEL("models/default.pnet"));
  ck_assert_ptr_nonnull(net);
  ck_assert_str_eq(net->name, "default");
  static const char *const places[] = { "pending",         "v8_slots",      "seccomp_slots",
                                        "wasm_slots",      "tee_slots",     "interactive_lane",
                                        "background_lane", "subagent_lane", "executing",
                                        "completed",       "executing_v8",  "executing_seccomp",
                                        "executing_wasm",  "executing_tee" };
  static const int64_t capacity[] = { PN_UNBOUNDED, 10,           4,  2, 1, 6, 2, 2,
                                      PN_UNBOUNDED, PN_UNBOUNDED, 10, 4, 2, 1 };
  static const int64_t initial[] = { 0, 10, 4, 2, 1, 6, 2, 2, 0, 0, 0, 0, 0, 0 };
  static const char *const tiers[] = { "v8", "seccomp", "wasm", "tee" };
  static const char *const lanes[] = { "interactive", "background", "subagent" };
  static const int64_t widths[] = { 6, 2, 2 };
  /* 14 named above, then one executing_<lane>_<tier> per pair. */
  ck_assert_uint_eq(net->nplaces, 14 + 3 * 4);
  for (uint32_t i = 0; i < 14; i++) {
    ck_assert_str_eq(net->places[i].name, places[i]);
    ck_assert_int_eq(net->places[i].capacity, capacity[i]);
    ck_assert_int_eq(net->places[i].initial, initial[i]);
  }
  for (uint32_t l = 0; l < 3; l++)
    for (uint32_t i = 0; i < 4; i++) {
      char name[64];
      snprintf(name, sizeof name, "executing_%s_%s", lanes[l], tiers[i]);
      ck_assert_str_eq(net->places[14 + 4 * l + i].name, name);
      ck_assert_int_eq(net->places[14 + 4 * l + i].capacity, widths[l]);
    }
  ck_assert_int_eq(net->places[0].role, PN_PLACE_SOURCE);
  ck_assert_int_eq(net->places[9].role, PN_PLACE_SINK);
  ck_assert_int_eq(net->places[8].role, PN_PLACE_TRACKED);

  /* admit_<lane>_<tier> takes a lane slot and a tier slot in one firing;
   * complete_<lane>_<tier> gives both back. */
  ck_assert_uint_eq(net->ntransitions, 24);
  for (uint32_t l = 0; l < 3; l++)
    for (uint32_t i = 0; i < 4; i++) {
      char admit[64], complete[64], slots[64], exec[64], pair[64], lane[64];
      uint32_t k = 2 * (4 * l + i);
      snprintf(admit, sizeof admit, "admit_%s_%s", lanes[l], tiers[i]);
      snprintf(complete, sizeof complete, "complete_%s_%s", lanes[l], tiers[i]);
      snprintf(slots, sizeof slots, "%s_slots", tiers[i]);
      snprintf(lane, sizeof lane, "%s_lane", lanes[l]);
      snprintf(exec, sizeof exec, "executing_%s", tiers[i]);
      snprintf(pair, sizeof pair, "executing_%s_%s", lanes[l], tiers[i]);
      const struct pn_transition *a = &net->transitions[k], *c = &net->transitions[k + 1];
      ck_assert_str_eq(a->name, admit);
      ck_assert_str_eq(c->name, complete);
      ck_assert_int_eq(a->kind, PN_ADMISSION);
      ck_assert_int_eq(c->kind, PN_PROGRESS);
      ck_assert_int_eq(a->completion, (int32_t)(k + 1));
      ck_assert_int_eq(c->completion, -1);
      ck_assert_uint_eq(a->npre, 3);
      ck_assert_uint_eq(weight(net, a->pre, a->npre, "pending"), 1);
      ck_assert_uint_eq(weight(net, a->pre, a->npre, slots), 1);
      ck_assert_uint_eq(weight(net, a->pre, a->npre, lane), 1);
      ck_assert_uint_eq(a->npost, 3);
      ck_assert_uint_eq(weight(net, a->post, a->npost, "executing"), 1);
      ck_assert_uint_eq(weight(net, a->post, a->npost, exec), 1);
      ck_assert_uint_eq(weight(net, a->post, a->npost, pair), 1);
      ck_assert_uint_eq(c->npost, 3);
      ck_assert_uint_eq(weight(net, c->post, c->npost, "completed"), 1);
      ck_assert_uint_eq(weight(net, c->post, c->npost, slots), 1);
      ck_assert_uint_eq(weight(net, c->post, c->npost, lane), 1);
      assert_arcs_sorted(a);
      assert_arcs_sorted(c);
    }

  /* Implicit capacity first, then the source order: 4 tier invariants,
   * the total, 3 lane invariants, 4 tier-by-lane invariants, no deadlock,
   * 5 reachability assertions. */
  ck_assert_uint_eq(net->nassertions, 19);
  ck_assert_int_eq(net->assertions[0].kind, PN_ASSERT_CAPACITY);
  ck_assert(net->assertions[0].implicit);
  ck_assert_uint_eq(net->assertions[0].nconstraints, 0);
  for (uint32_t i = 1; i <= 12; i++) {
    ck_assert_int_eq(net->assertions[i].kind, PN_ASSERT_INVARIANT);
    ck_assert(!net->assertions[i].implicit);
  }
  const struct pn_linear *v8 = &net->assertions[1].constraints[0];
  ck_assert_uint_eq(v8->nterms, 2);
  ck_assert_int_eq(v8->terms[0].place, place_index(net, "v8_slots"));
  ck_assert_int_eq(v8->terms[0].coef, 1);
  ck_assert_int_eq(v8->terms[1].place, place_index(net, "executing_v8"));
  ck_assert_int_eq(v8->rel, PN_REL_EQ);
  ck_assert_int_eq(v8->constant, 10);
  ck_assert_str_eq(net->assertions[1].text, "invariant v8_slots + executing_v8 == 10");
  ck_assert_int_eq(net->assertions[4].constraints[0].constant, 1); /* tee */
  const struct pn_linear *sum = &net->assertions[5].constraints[0];
  ck_assert_uint_eq(sum->nterms, 5);
  ck_assert_int_eq(sum->terms[0].coef, 1);
  ck_assert_int_eq(sum->terms[1].coef, -1);
  ck_assert_int_eq(sum->constant, 0);
  ck_assert_int_eq(net->assertions[6].constraints[0].constant, 6); /* interactive lane */
  ck_assert_uint_eq(net->assertions[6].constraints[0].nterms, 5);
  ck_assert_int_eq(net->assertions[13].kind, PN_ASSERT_NO_DEADLOCK);
  ck_assert_int_eq(net->assertions[14].kind, PN_ASSERT_REACHABLE);
  ck_assert_int_eq(net->assertions[14].constraints[0].constant, 10); /* every lane slot */
  for (uint32_t i = 15; i < 19; i++)
    ck_assert_int_eq(net->assertions[i].kind, PN_ASSERT_REACHABLE);

  ck_assert_uint_eq(net->nsources, 1);
  ck_assert_str_eq(net->sources[0]->path, MODEL("models/default.pnet"));
  ck_assert_str_eq(net->source_path, MODEL("models/default.pnet"));
  ck_assert_ptr_eq(net->places[1].loc.file, net->sources[0]);
  pn_net_free(net);
}
END_TEST

START_TEST(two_stage_model)
{
  struct pn_net *net = pnet_parse_file(MODEL("models/two_stage.pnet"));
  ck_assert_ptr_nonnull(net);
  ck_assert_uint_eq(net->nplaces, 8);
  ck_assert_uint_eq(net->ntransitions, 6);
  const struct pn_transition *ab = transition(net, "admit_build"),
                             *ai = transition(net, "admit_import");
  ck_assert_int_eq(ab->kind, PN_ADMISSION);
  ck_assert_str_eq(net->transitions[ab->completion].name, "complete_build");
  ck_assert_str_eq(net->transitions[ai->completion].name, "complete_import");
  /* The two kinds take the resources in opposite orders. */
  ck_assert_uint_eq(weight(net, ab->pre, ab->npre, "lanes"), 1);
  ck_assert_uint_eq(weight(net, ab->pre, ab->npre, "slots"), 0);
  ck_assert_uint_eq(weight(net, ai->pre, ai->npre, "slots"), 1);
  ck_assert_uint_eq(weight(net, ai->pre, ai->npre, "lanes"), 0);
  ck_assert_int_eq(transition(net, "build_take_slot")->kind, PN_PROGRESS);
  const struct pn_transition *cb = transition(net, "complete_build");
  ck_assert_uint_eq(weight(net, cb->post, cb->npost, "lanes"), 1);
  ck_assert_uint_eq(weight(net, cb->post, cb->npost, "slots"), 1);
  /* The deadlock marking, as a reachability assertion with two constraints. */
  const struct pn_assertion *dead = &net->assertions[3];
  ck_assert_int_eq(dead->kind, PN_ASSERT_REACHABLE);
  ck_assert_uint_eq(dead->nconstraints, 2);
  ck_assert_int_eq(dead->constraints[0].terms[0].place, place_index(net, "build_waiting"));
  ck_assert_int_eq(dead->constraints[1].terms[0].place, place_index(net, "import_waiting"));
  ck_assert_int_eq(net->assertions[4].kind, PN_ASSERT_UNREACHABLE);
  ck_assert_int_eq(net->assertions[4].constraints[0].rel, PN_REL_GT);
  pn_net_free(net);
}
END_TEST

START_TEST(seed_literal_model)
{
  struct pn_net *net = pnet_parse_file(MODEL("tests/models/seed_literal.pnet"));
  ck_assert_ptr_nonnull(net);
  ck_assert_uint_eq(net->nplaces, 7);
  int32_t exec = place_index(net, "executing");
  ck_assert_int_ge(exec, 0);
  /* One shared place: every completion takes from it. */
  for (uint32_t i = 0; i < net->ntransitions; i++) {
    const struct pn_transition *t = &net->transitions[i];
    if (t->kind != PN_PROGRESS)
      continue;
    ck_assert_uint_eq(t->npre, 1);
    ck_assert_int_eq(t->pre[0].place, exec);
  }
  pn_net_free(net);
}
END_TEST

/* The same net through two independent front ends: a family-generated
 * .pnet and a hand-listed PNML file must lower to the same places,
 * transitions and arcs, in the same order. */
START_TEST(philosophers_match_pnml)
{
  struct pn_net *a = pnet_parse_file(MODEL("tests/pnet_frontend/cross/philosophers3.pnet"));
  struct pn_net *b = pnml_parse_file(MODEL("tests/pnetc_cli/data/philosophers3.pnml"));
  ck_assert_ptr_nonnull(a);
  ck_assert_ptr_nonnull(b);
  ck_assert_str_eq(a->name, b->name);
  ck_assert_uint_eq(a->nplaces, 15);
  ck_assert_uint_eq(a->nplaces, b->nplaces);
  for (uint32_t i = 0; i < a->nplaces; i++) {
    ck_assert_str_eq(a->places[i].name, b->places[i].name);
    ck_assert_int_eq(a->places[i].role, b->places[i].role);
    ck_assert_int_eq(a->places[i].capacity, b->places[i].capacity);
    ck_assert_int_eq(a->places[i].initial, b->places[i].initial);
  }
  ck_assert_uint_eq(a->ntransitions, 15);
  ck_assert_uint_eq(a->ntransitions, b->ntransitions);
  for (uint32_t i = 0; i < a->ntransitions; i++) {
    const struct pn_transition *x = &a->transitions[i], *y = &b->transitions[i];
    ck_assert_str_eq(x->name, y->name);
    ck_assert_int_eq(x->kind, y->kind);
    ck_assert_uint_eq(x->npre, y->npre);
    ck_assert_uint_eq(x->npost, y->npost);
    ck_assert_mem_eq(x->pre, y->pre, x->npre * sizeof *x->pre);
    ck_assert_mem_eq(x->post, y->post, x->npost * sizeof *x->post);
  }
  pn_net_free(a);
  pn_net_free(b);
}
END_TEST

START_TEST(lets_are_per_iteration)
{
  struct pn_net *net = parse_ok("const n = 3;\n"
                                "for i in 0 .. n - 1 { place r${i}; }\n"
                                "for i in 0 .. n - 1 {\n"
                                "  let next = (i + 1) % n;\n"
                                "  let twice = 2 * next;\n"
                                "  progress pass${i}: r${i} -> (twice + 1) * r${next};\n"
                                "}\n");
  ck_assert_uint_eq(net->ntransitions, 3);
  ck_assert_uint_eq(net->transitions[0].post[0].place, 1); /* next = 1, twice = 2 */
  ck_assert_uint_eq(net->transitions[0].post[0].weight, 3);
  ck_assert_uint_eq(net->transitions[2].post[0].place, 0); /* next = 0, twice = 0 */
  ck_assert_uint_eq(net->transitions[2].post[0].weight, 1);
  /* A let lives for one iteration and cannot be rebound in it. */
  parse_fails_with("place a; for i in 1 .. 2 { let j = i; let j = 2; }",
                   "variable 'j' is already bound");
  parse_fails_with("place a; for i in 1 .. 2 { let j = i; } assert invariant a == j;",
                   "unknown name 'j'");
  pn_net_free(net);
}
END_TEST

START_TEST(constants_fold_like_c)
{
  struct pn_net *net = parse_ok("const a = 7 / 2;\n"
                                "const b = -7 / 2;\n"
                                "const c = -7 % 3;\n"
                                "const d = 2 + 3 * 4 - (1 - 5);\n"
                                "const e = --a;\n"
                                "place p capacity d initial a;\n"
                                "assert invariant p == b;\n"
                                "assert invariant p != c;\n"
                                "assert invariant p <= e;\n");
  ck_assert_int_eq(net->places[0].capacity, 18);
  ck_assert_int_eq(net->places[0].initial, 3);
  ck_assert_int_eq(net->assertions[1].constraints[0].constant, -3);
  ck_assert_int_eq(net->assertions[2].constraints[0].constant, -1);
  ck_assert_int_eq(net->assertions[3].constraints[0].constant, 3);
  pn_net_free(net);
}
END_TEST

START_TEST(weights_merge_and_sort)
{
  struct pn_net *net = parse_ok("place c; place b; place a;\n"
                                "const w = 2;\n"
                                "progress t: 3 * a + a + c -> w * (b + c) + a - a + a;\n");
  const struct pn_transition *t = &net->transitions[0];
  ck_assert_uint_eq(t->npre, 2);
  ck_assert_uint_eq(t->pre[0].place, 0); /* c */
  ck_assert_uint_eq(t->pre[0].weight, 1);
  ck_assert_uint_eq(t->pre[1].place, 2); /* a */
  ck_assert_uint_eq(t->pre[1].weight, 4);
  ck_assert_uint_eq(t->npost, 3);
  ck_assert_uint_eq(weight(net, t->post, t->npost, "b"), 2);
  ck_assert_uint_eq(weight(net, t->post, t->npost, "c"), 2);
  ck_assert_uint_eq(weight(net, t->post, t->npost, "a"), 1);
  assert_arcs_sorted(t);
  ck_assert_int_eq(t->completion, -1);
  pn_net_free(net);
}
END_TEST

START_TEST(constraints_normalised)
{
  struct pn_net *net = parse_ok("place a; place b;\n"
                                "assert invariant 2 * a + 3 <= b - 1;\n"
                                "assert unreachable -a > -(2 * b) && a + b >= 1;\n");
  const struct pn_linear *c = &net->assertions[1].constraints[0];
  ck_assert_uint_eq(c->nterms, 2);
  ck_assert_int_eq(c->terms[0].coef, 2);
  ck_assert_int_eq(c->terms[1].coef, -1);
  ck_assert_int_eq(c->rel, PN_REL_LE);
  ck_assert_int_eq(c->constant, -4);
  ck_assert_str_eq(net->assertions[1].text, "invariant 2 * a - b <= -4");
  ck_assert_uint_eq(net->assertions[2].nconstraints, 2);
  ck_assert_str_eq(net->assertions[2].text, "unreachable -a + 2 * b > 0 and a + b >= 1");
  pn_net_free(net);
}
END_TEST

START_TEST(families_expand_in_order)
{
  struct pn_net *net = parse_ok("family sizes = {s: 1, m: 2, l: 4};\n"
                                "const n = 3;\n"
                                "for i in 1 .. n {\n"
                                "  for size, cap in sizes {\n"
                                "    place w${i}_${size} capacity cap * i;\n"
                                "  }\n"
                                "}\n"
                                "for k in {x, y} { place k_${k}; }\n"
                                "for i in 5 .. 4 { place never${i}; }\n"
                                "place c${n};\n");
  ck_assert_uint_eq(net->nplaces, 3 * 3 + 2 + 1);
  ck_assert_str_eq(net->places[0].name, "w1_s");
  ck_assert_int_eq(net->places[0].capacity, 1);
  ck_assert_str_eq(net->places[8].name, "w3_l");
  ck_assert_int_eq(net->places[8].capacity, 12);
  ck_assert_str_eq(net->places[9].name, "k_x");
  ck_assert_str_eq(net->places[10].name, "k_y");
  ck_assert_str_eq(net->places[11].name, "c3");
  pn_net_free(net);
}
END_TEST

START_TEST(sums_fold_over_families)
{
  struct pn_net *net =
      parse_ok("family t = {a: 2, b: 3};\n"
               "const total = sum(k, w in t: w);\n"
               "const tri = sum(i in 1 .. 4: sum(j in 1 .. i: 1));\n"
               "const none = sum(i in 1 .. 0: i);\n"
               "for k, w in t { place p${k} capacity w; }\n"
               "place q capacity total + tri + none;\n"
               "assert invariant sum(k, w in t: w * p${k}) + q <= total;\n"
               "assert invariant sum(k in {a, b}: p${k}) - 2 * sum(k in t: p${k}) >= -5;\n");
  ck_assert_int_eq(net->places[2].capacity, 5 + 10);
  const struct pn_linear *c = &net->assertions[1].constraints[0];
  ck_assert_uint_eq(c->nterms, 3);
  ck_assert_int_eq(c->terms[0].coef, 2);
  ck_assert_int_eq(c->terms[1].coef, 3);
  ck_assert_int_eq(c->terms[2].coef, 1);
  ck_assert_int_eq(c->constant, 5);
  ck_assert_str_eq(net->assertions[2].text, "invariant -pa - pb >= -5");
  pn_net_free(net);
  /* The variable of a sum is bound only inside it. */
  parse_fails_with("family t = {a}; place p; assert invariant sum(k in t: p) + k == 1;",
                   "unknown name 'k'");
}
END_TEST

START_TEST(explicit_and_conventional_completion)
{
  struct pn_net *net = parse_ok("place pending source; place run; place done sink;\n"
                                "admission admit_a: pending -> run;\n"
                                "admission go: pending -> run completion finish;\n"
                                "admission admit_b: pending -> run completion finish;\n"
                                "progress complete_a: run -> done;\n"
                                "progress finish: run -> done;\n"
                                "progress complete_b: run -> done;\n");
  ck_assert_int_eq(net->transitions[0].completion, 3);
  ck_assert_int_eq(net->transitions[1].completion, 4);
  /* An explicit clause wins over the naming convention. */
  ck_assert_int_eq(net->transitions[2].completion, 4);
  pn_net_free(net);
}
END_TEST

START_TEST(include_diamond_reads_once)
{
  struct pn_net *net = pnet_parse_file(MODEL("tests/pnet_frontend/valid/diamond.pnet"));
  ck_assert_ptr_nonnull(net);
  ck_assert_uint_eq(net->nsources, 4);
  ck_assert_ptr_nonnull(strstr(net->sources[0]->path, "diamond.pnet"));
  ck_assert_ptr_nonnull(strstr(net->sources[2]->path, "lib/common.pnet"));
  ck_assert_str_eq(net->places[0].name, "common_pool");
  ck_assert_ptr_eq(net->places[0].loc.file, net->sources[2]);
  ck_assert_int_eq(net->places[0].loc.line, 2);
  pn_net_free(net);
}
END_TEST

START_TEST(default_name_from_path)
{
  capture_start();
  struct pn_net *net = pnet_parse_memory("dir/2-stage.model.pnet", "place a;", 8);
  capture_end();
  capture_free();
  ck_assert_ptr_nonnull(net);
  ck_assert_str_eq(net->name, "_2_stage");
  pn_net_free(net);
}
END_TEST

START_TEST(memory_is_length_bounded)
{
  /* The text after len must be ignored, NUL or not. */
  const char text[] = "place a;place b;";
  struct pn_net *net;
  capture_start();
  net = pnet_parse_memory("m.pnet", text, 8);
  capture_end();
  capture_free();
  ck_assert_ptr_nonnull(net);
  ck_assert_uint_eq(net->nplaces, 1);
  pn_net_free(net);

  parse_fails_with("", "declares no places");
  capture_start();
  net = pnet_parse_memory("nul.pnet", "place a;\0place b;", 17);
  ck_assert_ptr_null(net);
  ck_assert_ptr_nonnull(strstr(capture_end(), "nul.pnet:1:9: error: unexpected byte 0x00"));
  capture_free();
}
END_TEST

START_TEST(rejects_semantic_errors)
{
  parse_fails_with("place a; place a;", "redefinition of 'a'");
  parse_fails_with("place a capacity 2 initial 3;", "exceeds its capacity 2");
  parse_fails_with("place a; place b; progress t: a -> 0 * b;", "must be at least 1, not 0");
  parse_fails_with("place s source; place a; progress t: a -> s;", "'s' is a source");
  parse_fails_with("place s sink; place a; progress t: s -> a;", "'s' is a sink");
  parse_fails_with("const x = 9223372036854775807 * 2; place a;", "integer overflow");
  parse_fails_with("place a; assert invariant b == 1;", "unknown name 'b'");
  parse_fails_with("place a; progress t: a -> a completion t;",
                   "only an admission has a completion");
  parse_fails_with("place a\n", "expected 'capacity', 'initial', 'source', 'sink' or ';'");
}
END_TEST

/* Writes text to dir/name. */
static void write_file(const char *dir, const char *name, const char *text)
{
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  ck_assert_int_eq(fclose(f), 0);
}

START_TEST(limit_places)
{
  /* 64 * 65 places, one loop level short of any other limit. */
  parse_fails_with("for i in 0 .. 63 { for j in 0 .. 64 { place p${i}_${j}; } }",
                   "too many places (limit 4096)");
}
END_TEST

START_TEST(limit_transitions_assertions_constants)
{
  parse_fails_with(
      "place a; for i in 0 .. 63 { for j in 0 .. 64 { progress t${i}_${j}: a -> a; } }",
      "too many transitions (limit 4096)");
  parse_fails_with("place a; for i in 0 .. 1 { for j in 0 .. 600 { assert invariant a >= 0; } }",
                   "too many assertions (limit 1024)");
  /* Constants cannot be declared in loops, so write them out. */
  size_t size = (size_t)(PNET_MAX_CONSTANTS + 1) * 32 + 16;
  char *text = malloc(size), *p = text;
  ck_assert_ptr_nonnull(text);
  for (int i = 0; i <= PNET_MAX_CONSTANTS; i++)
    p += sprintf(p, "const c%d = %d;\n", i, i);
  strcpy(p, "place a;\n");
  parse_fails_with(text, "too many constants (limit 4096)");
  free(text);
}
END_TEST

START_TEST(limit_iterations)
{
  parse_fails_with("place a; for i in 1 .. 300 { for j in 1 .. 300 { } }",
                   "more than 65536 iterations");
}
END_TEST

START_TEST(limit_sources)
{
  char dir[] = "/tmp/check_pnet.XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  /* A main file including PNET_MAX_SOURCES others: one file too many. */
  char main_text[8192] = "place a;\n";
  for (int i = 0; i < PNET_MAX_SOURCES; i++) {
    char name[32], line[64], body[64];
    snprintf(name, sizeof name, "f%02d.pnet", i);
    snprintf(body, sizeof body, "place p%02d;\n", i);
    write_file(dir, name, body);
    snprintf(line, sizeof line, "include \"%s\";\n", name);
    strcat(main_text, line);
  }
  write_file(dir, "main.pnet", main_text);
  char path[512];
  snprintf(path, sizeof path, "%s/main.pnet", dir);
  capture_start();
  struct pn_net *net = pnet_parse_file(path);
  const char *diags = capture_end();
  ck_assert_ptr_null(net);
  ck_assert_msg(strstr(diags, "too many files in one model (limit 64)") != NULL, "%s", diags);
  capture_free();

  /* One file fewer is accepted and lists every source. */
  main_text[strlen(main_text) - strlen("include \"f63.pnet\";\n")] = '\0';
  write_file(dir, "main.pnet", main_text);
  net = pnet_parse_file(path);
  ck_assert_ptr_nonnull(net);
  ck_assert_uint_eq(net->nsources, PNET_MAX_SOURCES);
  ck_assert_uint_eq(net->nplaces, PNET_MAX_SOURCES);
  pn_net_free(net);

  for (int i = 0; i < PNET_MAX_SOURCES; i++) {
    snprintf(path, sizeof path, "%s/f%02d.pnet", dir, i);
    unlink(path);
  }
  snprintf(path, sizeof path, "%s/main.pnet", dir);
  unlink(path);
  rmdir(dir);
}
END_TEST

/* A symbolic link below the main file's directory does not let an include
 * read a file outside it. */
START_TEST(include_symlink_cannot_escape)
{
  char dir[] = "/tmp/check_pnet.XXXXXX", sub[64], link[128], path[128];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(sub, sizeof sub, "%s/model", dir);
  ck_assert_int_eq(mkdir(sub, 0700), 0);
  write_file(dir, "outside.pnet", "place secret;\n");
  write_file(sub, "main.pnet", "place a;\ninclude \"link.pnet\";\n");
  snprintf(link, sizeof link, "%s/link.pnet", sub);
  ck_assert_int_eq(symlink("../outside.pnet", link), 0);
  snprintf(path, sizeof path, "%s/main.pnet", sub);
  capture_start();
  struct pn_net *net = pnet_parse_file(path);
  const char *diags = capture_end();
  ck_assert_ptr_null(net);
  ck_assert_msg(strstr(diags, "link.pnet': it is outside the directory of the main file") != NULL,
                "%s", diags);
  ck_assert_msg(strstr(diags, "secret") == NULL, "%s", diags);
  capture_free();
  unlink(link);
  unlink(path);
  rmdir(sub);
  snprintf(path, sizeof path, "%s/outside.pnet", dir);
  unlink(path);
  rmdir(dir);
}
END_TEST

START_TEST(missing_main_file)
{
  capture_start();
  struct pn_net *net = pnet_parse_file("/nonexistent/model.pnet");
  const char *diags = capture_end();
  ck_assert_ptr_null(net);
  ck_assert_str_eq(diags,
                   "/nonexistent/model.pnet: error: cannot read file: No such file or directory\n");
  capture_free();
  pn_net_free(NULL);
}
END_TEST

static Suite *pnet_suite(void)
{
  Suite *s = suite_create("pnet");
  TCase *models = tcase_create("models");
  tcase_add_test(models, default_model);
  tcase_add_test(models, two_stage_model);
  tcase_add_test(models, seed_literal_model);
  tcase_add_test(models, philosophers_match_pnml);
  suite_add_tcase(s, models);
  TCase *lowering = tcase_create("lowering");
  tcase_add_test(lowering, constants_fold_like_c);
  tcase_add_test(lowering, weights_merge_and_sort);
  tcase_add_test(lowering, constraints_normalised);
  tcase_add_test(lowering, families_expand_in_order);
  tcase_add_test(lowering, sums_fold_over_families);
  tcase_add_test(lowering, lets_are_per_iteration);
  tcase_add_test(lowering, explicit_and_conventional_completion);
  tcase_add_test(lowering, include_diamond_reads_once);
  tcase_add_test(lowering, default_name_from_path);
  tcase_add_test(lowering, memory_is_length_bounded);
  tcase_add_test(lowering, rejects_semantic_errors);
  suite_add_tcase(s, lowering);
  TCase *limits = tcase_create("limits");
  tcase_set_timeout(limits, 300);
  tcase_add_test(limits, limit_places);
  tcase_add_test(limits, limit_transitions_assertions_constants);
  tcase_add_test(limits, limit_iterations);
  tcase_add_test(limits, limit_sources);
  tcase_add_test(limits, include_symlink_cannot_escape);
  tcase_add_test(limits, missing_main_file);
  suite_add_tcase(s, limits);
  return s;
}

int main(void)
{
  SRunner *sr = srunner_create(pnet_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
