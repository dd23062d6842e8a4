/* Unit tests of verify/ (docs/analysis.md): classes on nets whose unsafe
 * markings are known by hand, shortest traces, limits, the adaptive width,
 * and a cross-check of everything against tests/analysis/naive.c on
 * hand-built and random nets. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "naive.h"
#include "net_build.h"
#include "pn_analysis.h"
#include "pn_semiflow.h"

/* Two jobs take locks A and B in opposite orders: the textbook deadlock.
 * Each job is admitted (slot_i), then takes its locks as progress steps. */
static struct pn_net *two_locks(void)
{
  struct pn_net *net = nb_new("two_locks");
  nb_place(net, "pending", PN_PLACE_SOURCE, 0);
  nb_place(net, "done", PN_PLACE_SINK, 0);
  nb_place(net, "A", PN_PLACE_TRACKED, 1);
  nb_place(net, "B", PN_PLACE_TRACKED, 1);
  nb_place(net, "slot1", PN_PLACE_TRACKED, 1);
  nb_place(net, "slot2", PN_PLACE_TRACKED, 1);
  nb_place(net, "W1", PN_PLACE_TRACKED, 0);
  nb_place(net, "H1A", PN_PLACE_TRACKED, 0);
  nb_place(net, "H1AB", PN_PLACE_TRACKED, 0);
  nb_place(net, "W2", PN_PLACE_TRACKED, 0);
  nb_place(net, "H2B", PN_PLACE_TRACKED, 0);
  nb_place(net, "H2AB", PN_PLACE_TRACKED, 0);
  nb_trans(net, "admit_1", PN_ADMISSION, "pending slot1", "W1");
  nb_trans(net, "grabA_1", PN_PROGRESS, "W1 A", "H1A");
  nb_trans(net, "grabB_1", PN_PROGRESS, "H1A B", "H1AB");
  nb_trans(net, "complete_1", PN_PROGRESS, "H1AB", "A B slot1 done");
  nb_trans(net, "admit_2", PN_ADMISSION, "pending slot2", "W2");
  nb_trans(net, "grabB_2", PN_PROGRESS, "W2 B", "H2B");
  nb_trans(net, "grabA_2", PN_PROGRESS, "H2B A", "H2AB");
  nb_trans(net, "complete_2", PN_PROGRESS, "H2AB", "A B slot2 done");
  return net;
}

static struct pn_analysis *analyze(const struct pn_net *net, uint64_t max)
{
  struct pn_analysis_opts o = { .max_states = max };
  struct pn_analysis *a = NULL;
  ck_assert_int_eq(pn_analyze(net, &o, &a), 0);
  return a;
}

/* Fires trace from the initial marking; returns the state reached. */
static int64_t replay(const struct pn_analysis *a, const uint32_t *trace, uint32_t n)
{
  int64_t s = 0;
  for (uint32_t i = 0; i < n && s >= 0; i++)
    s = pn_analysis_successor(a, (uint64_t)s, trace[i]);
  return s;
}

static int64_t tokens_of(const struct pn_analysis *a, const struct pn_net *net, uint64_t s,
                         const char *place)
{
  int64_t *m = calloc(net->nplaces, sizeof *m);
  ck_assert_ptr_nonnull(m);
  pn_analysis_marking(a, s, m);
  int64_t v = m[nb_find_place(net, place)];
  free(m);
  return v;
}

START_TEST(test_two_locks_classes)
{
  struct pn_net *net = two_locks();
  nb_assert(net, PN_ASSERT_NO_DEADLOCK, NULL);
  struct pn_analysis *a = analyze(net, 0);
  /* Worked out by hand in docs/analysis.md ("A worked example"). */
  ck_assert_uint_eq(pn_analysis_states(a), 13);
  ck_assert_uint_eq(pn_analysis_class_count(a, PN_CLASS_DEAD), 1);
  ck_assert_uint_eq(pn_analysis_class_count(a, PN_CLASS_UNSAFE), 3);
  ck_assert_uint_eq(pn_analysis_class_count(a, PN_CLASS_SATURATED), 6);
  ck_assert_uint_eq(pn_analysis_class_count(a, PN_CLASS_SAFE), 3);
  ck_assert(pn_analysis_in_safe_set(a, 0));
  ck_assert_int_eq(pn_analysis_class(a, 0), PN_CLASS_SAFE);
  /* W1 and W2 both admitted: progress alone reaches the deadlock. */
  for (uint64_t s = 0; s < pn_analysis_states(a); s++) {
    bool both = tokens_of(a, net, s, "W1") && tokens_of(a, net, s, "W2");
    if (both)
      ck_assert_int_eq(pn_analysis_class(a, s), PN_CLASS_UNSAFE);
    bool deadlock = tokens_of(a, net, s, "H1A") && tokens_of(a, net, s, "H2B");
    ck_assert_int_eq(pn_analysis_class(a, s) == PN_CLASS_DEAD, deadlock);
  }
  const struct pn_assert_result *r = pn_analysis_assertion(a, 0);
  ck_assert(!r->holds);
  ck_assert_uint_eq(r->ntrace, 4);
  ck_assert_int_eq(replay(a, r->trace, r->ntrace), r->witness);
  ck_assert_int_eq(pn_analysis_class(a, (uint64_t)r->witness), PN_CLASS_DEAD);
  /* Environment places are not tracked. */
  ck_assert_int_eq(pn_analysis_bounds(a)[0], -1);
  ck_assert_int_eq(pn_analysis_bounds(a)[1], -1);
  ck_assert_int_eq(pn_analysis_bounds(a)[2], 1);
  pn_analysis_free(a);
  pn_net_free(net);
}
END_TEST

START_TEST(test_initial_outside_safe_set)
{
  /* From m0 a progress step leads to a dead marking: no supervisor that
   * only refuses admissions can avoid it, so S is empty. */
  struct pn_net *net = nb_new("doomed");
  nb_place(net, "a", PN_PLACE_TRACKED, 1);
  nb_place(net, "b", PN_PLACE_TRACKED, 0);
  nb_place(net, "c", PN_PLACE_TRACKED, 0);
  nb_trans(net, "fail", PN_PROGRESS, "a", "b");
  nb_trans(net, "admit_x", PN_ADMISSION, "a", "c");
  nb_trans(net, "back", PN_PROGRESS, "c", "a");
  struct pn_analysis *a = analyze(net, 0);
  ck_assert_uint_eq(pn_analysis_states(a), 3);
  ck_assert(!pn_analysis_in_safe_set(a, 0));
  ck_assert_uint_eq(pn_analysis_class_count(a, PN_CLASS_SAFE), 0);
  ck_assert_uint_eq(pn_analysis_class_count(a, PN_CLASS_SATURATED), 0);
  ck_assert_uint_eq(pn_analysis_class_count(a, PN_CLASS_UNSAFE), 2);
  ck_assert_uint_eq(pn_analysis_class_count(a, PN_CLASS_DEAD), 1);
  pn_analysis_free(a);
  pn_net_free(net);
}
END_TEST

START_TEST(test_state_limit)
{
  /* Unbounded: a source feeds p forever. The limit must stop it with a
   * message, not a crash or a hang. */
  struct pn_net *net = nb_new("unbounded");
  nb_place(net, "in", PN_PLACE_SOURCE, 0);
  nb_place(net, "p", PN_PLACE_TRACKED, 0);
  nb_trans(net, "arrive", PN_ADMISSION, "in", "p");
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  ck_assert_ptr_nonnull(mem);
  diag_set_stream(mem);
  struct pn_analysis_opts o = { .max_states = 1000 };
  struct pn_analysis *a = (struct pn_analysis *)1;
  ck_assert_int_eq(pn_analyze(net, &o, &a), -E2BIG);
  ck_assert_ptr_null(a);
  diag_set_stream(stderr);
  fclose(mem);
  ck_assert_ptr_nonnull(strstr(text, "more than 1000 reachable markings"));
  ck_assert_ptr_nonnull(strstr(text, "--max-states"));
  free(text);
  pn_net_free(net);
}
END_TEST

START_TEST(test_token_overflow)
{
  /* 2^30 tokens per firing: the fifth marking would need 2^32 tokens in p,
   * more than a count can hold. A clear error, not a wrap-around. */
  struct pn_net *net = nb_new("flood");
  nb_place(net, "in", PN_PLACE_SOURCE, 0);
  nb_place(net, "p", PN_PLACE_TRACKED, 0);
  nb_trans(net, "pour", PN_PROGRESS, "in", "p:1073741824");
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  ck_assert_ptr_nonnull(mem);
  diag_set_stream(mem);
  struct pn_analysis *a = NULL;
  ck_assert_int_eq(pn_analyze(net, NULL, &a), -EOVERFLOW);
  ck_assert_ptr_null(a);
  diag_set_stream(stderr);
  fclose(mem);
  ck_assert_ptr_nonnull(strstr(text, "token count exceeds"));
  free(text);
  pn_net_free(net);
}
END_TEST

/* budget + p = 300; with mint, a transition that never fires (nothing
 * marks "never") but would add a token to p, no P-semiflow covers p. */
static struct pn_net *budget_net(bool mint)
{
  struct pn_net *net = nb_new("budget");
  nb_place(net, "budget", PN_PLACE_TRACKED, 300);
  nb_place(net, "p", PN_PLACE_TRACKED, 0);
  nb_trans(net, "spend", PN_PROGRESS, "budget", "p");
  nb_trans(net, "refund", PN_PROGRESS, "p:2", "budget:2");
  if (mint) {
    nb_place(net, "never", PN_PLACE_TRACKED, 0);
    nb_trans(net, "mint", PN_PROGRESS, "never", "never p");
  }
  return net;
}

START_TEST(test_adaptive_width)
{
  /* p starts with 0 tokens (a 1-bit field) and grows to 300; the
   * semiflows do not bound it (mint), so the store is re-encoded several
   * times while states are being added. */
  struct pn_net *net = budget_net(true);
  int64_t sb[3];
  ck_assert_int_eq(pn_semiflow_bounds(net, sb), 0);
  ck_assert_int_eq(sb[1], -1);
  struct pn_analysis *a = analyze(net, 0);
  ck_assert_uint_eq(pn_analysis_states(a), 301);
  ck_assert_uint_ge(pn_analysis_reencodes(a), 8);
  ck_assert_int_eq(pn_analysis_bounds(a)[1], 300);
  for (uint64_t s = 0; s < 301; s++) {
    int64_t b = tokens_of(a, net, s, "budget"), p = tokens_of(a, net, s, "p");
    ck_assert_int_eq(b + p, 300);
    /* Breadth-first numbering: state s has exactly s tokens in p. */
    ck_assert_int_eq(p, (int64_t)s);
  }
  pn_analysis_free(a);
  pn_net_free(net);
}
END_TEST

START_TEST(test_presized_width)
{
  /* The same net without mint: budget + p is a P-semiflow, both fields
   * get 9 bits from the start and are never widened; same markings. */
  struct pn_net *net = budget_net(false);
  int64_t sb[2];
  ck_assert_int_eq(pn_semiflow_bounds(net, sb), 0);
  ck_assert_int_eq(sb[0], 300);
  ck_assert_int_eq(sb[1], 300);
  struct pn_analysis *a = analyze(net, 0);
  ck_assert_uint_eq(pn_analysis_states(a), 301);
  ck_assert_uint_eq(pn_analysis_reencodes(a), 0);
  ck_assert_uint_eq(pn_analysis_state_bits(a), 18);
  for (uint64_t s = 0; s < 301; s++)
    ck_assert_int_eq(tokens_of(a, net, s, "p"), (int64_t)s);
  pn_analysis_free(a);
  pn_net_free(net);
}
END_TEST

/* tokens tokens in p0 of a chain p0 -> p1 -> ... -> p40. */
static struct pn_net *chain(int tokens)
{
  struct pn_net *net = nb_new("chain");
  char name[16], next[16];
  for (int i = 0; i <= 40; i++) {
    snprintf(name, sizeof name, "p%d", i);
    nb_place(net, name, PN_PLACE_TRACKED, i == 0 ? tokens : 0);
  }
  for (int i = 0; i < 40; i++) {
    snprintf(name, sizeof name, "p%d", i);
    snprintf(next, sizeof next, "p%d", i + 1);
    nb_trans(net, name, PN_PROGRESS, name, next);
  }
  return net;
}

START_TEST(test_multiword_states)
{
  /* 3 tokens move along 41 places: C(43, 3) markings, 2 bits per place,
   * 82 bits per state: more than one 64-bit word. */
  struct pn_net *net = chain(3);
  nb_assert(net, PN_ASSERT_NO_DEADLOCK, NULL);
  nb_assert(net, PN_ASSERT_REACHABLE, "1*p40>=3");
  struct pn_analysis *a = analyze(net, 0);
  ck_assert_uint_eq(pn_analysis_states(a), 12341);
  ck_assert_uint_gt(pn_analysis_state_bits(a), 64);
  /* The only dead marking has every token at the end: 120 steps away. */
  ck_assert_uint_eq(pn_analysis_class_count(a, PN_CLASS_DEAD), 1);
  const struct pn_assert_result *r = pn_analysis_assertion(a, 0);
  ck_assert(!r->holds);
  ck_assert_uint_eq(r->ntrace, 120);
  ck_assert_int_eq(replay(a, r->trace, r->ntrace), r->witness);
  ck_assert_int_eq(tokens_of(a, net, (uint64_t)r->witness, "p40"), 3);
  r = pn_analysis_assertion(a, 1);
  ck_assert(r->holds);
  ck_assert_uint_eq(r->ntrace, 120);
  pn_analysis_free(a);
  pn_net_free(net);
}
END_TEST

START_TEST(test_degenerate_nets)
{
  /* Only environment places: every marking is the empty one. */
  struct pn_net *net = nb_new("env_only");
  nb_place(net, "in", PN_PLACE_SOURCE, 0);
  nb_place(net, "out", PN_PLACE_SINK, 0);
  nb_trans(net, "admit_pass", PN_ADMISSION, "in", "out");
  nb_assert(net, PN_ASSERT_NO_DEADLOCK, NULL);
  struct pn_analysis *a = analyze(net, 0);
  ck_assert_uint_eq(pn_analysis_states(a), 1);
  ck_assert_uint_eq(pn_analysis_edges(a), 1);
  ck_assert_int_eq(pn_analysis_class(a, 0), PN_CLASS_SAFE);
  ck_assert_int_eq(pn_analysis_successor(a, 0, 0), 0);
  ck_assert(pn_analysis_assertion(a, 0)->holds);
  pn_analysis_free(a);
  pn_net_free(net);

  /* No transition: the initial marking is dead, the violation trace empty. */
  net = nb_new("frozen");
  nb_place(net, "p", PN_PLACE_TRACKED, 2);
  nb_assert(net, PN_ASSERT_NO_DEADLOCK, NULL);
  a = analyze(net, 0);
  ck_assert_uint_eq(pn_analysis_states(a), 1);
  ck_assert_int_eq(pn_analysis_class(a, 0), PN_CLASS_DEAD);
  ck_assert_uint_eq(pn_analysis_class_count(a, PN_CLASS_DEAD), 1);
  const struct pn_assert_result *r = pn_analysis_assertion(a, 0);
  ck_assert(!r->holds);
  ck_assert_int_eq(r->witness, 0);
  ck_assert_uint_eq(r->ntrace, 0);
  ck_assert_int_eq(pn_analysis_successor(a, 0, 0), -1);
  ck_assert_int_eq(pn_analysis_successor(a, 5, 0), -1);
  pn_analysis_free(a);
  pn_net_free(net);
}
END_TEST

/* Assertion kinds on the two-lock net, each trace checked for validity and
 * against the naive breadth-first distance. */
START_TEST(test_shortest_traces)
{
  struct pn_net *net = two_locks();
  nb_assert(net, PN_ASSERT_INVARIANT, "1*H1A+1*H2B<=1"); /* fails: the deadlock */
  nb_assert(net, PN_ASSERT_REACHABLE, "1*H1AB>=1");      /* holds in 3 steps */
  nb_assert(net, PN_ASSERT_UNREACHABLE, "1*W1+1*W2>=2"); /* fails in 2 steps */
  nb_assert(net, PN_ASSERT_REACHABLE, "1*A+1*H1AB>=2");  /* never */
  nb_assert(net, PN_ASSERT_UNREACHABLE, "1*A>=2");       /* holds */
  nb_assert(net, PN_ASSERT_INVARIANT, "1*A+1*H1A+1*H1AB+1*H2AB==1;1*B+1*H1AB+1*H2B+1*H2AB==1");
  nb_assert(net, PN_ASSERT_CAPACITY, NULL); /* W2 capacity 0: 1 step */
  nb_capacity(net, "W2", 0);
  static const struct {
    bool holds;
    int len; /* -1: no trace */
  } want[] = { { false, 4 }, { true, 3 },  { false, 2 }, { false, -1 },
               { true, -1 }, { true, -1 }, { false, 1 } };
  struct pn_analysis *a = analyze(net, 0);
  struct naive nv;
  ck_assert_int_eq(naive_explore(net, 100000, &nv), 0);
  int64_t *m = calloc(net->nplaces, sizeof *m);
  for (uint32_t i = 0; i < net->nassertions; i++) {
    const struct pn_assert_result *r = pn_analysis_assertion(a, i);
    ck_assert_msg(r->holds == want[i].holds, "assertion %u", i);
    if (want[i].len < 0) {
      ck_assert_ptr_null(r->trace);
      ck_assert_int_eq(r->witness, -1);
      continue;
    }
    ck_assert_uint_eq(r->ntrace, (unsigned)want[i].len);
    ck_assert_int_eq(replay(a, r->trace, r->ntrace), r->witness);
    pn_analysis_marking(a, (uint64_t)r->witness, m);
    int64_t ns = naive_find(&nv, m);
    ck_assert_int_ge(ns, 0);
    ck_assert_int_eq(nv.dist[ns], want[i].len);
  }
  free(m);
  naive_free(&nv);
  pn_analysis_free(a);
  pn_net_free(net);
}
END_TEST

/* Compares every figure and every state's class and depth with naive.c. */
static void cross_check(const struct pn_net *net)
{
  struct naive nv;
  ck_assert_int_eq(naive_explore(net, 200000, &nv), 0);
  struct pn_analysis *a = analyze(net, 0);
  ck_assert_uint_eq(pn_analysis_states(a), nv.n);
  ck_assert_uint_eq(pn_analysis_edges(a), nv.nedges);
  uint64_t counts[4] = { 0 };
  for (uint64_t s = 0; s < nv.n; s++)
    counts[nv.cls[s]]++;
  for (int c = 0; c < 4; c++)
    ck_assert_uint_eq(pn_analysis_class_count(a, (enum pn_class)c), counts[c]);
  /* Bounds: the largest count in any marking (environment places: -1). */
  for (uint32_t p = 0; p < net->nplaces; p++) {
    int64_t max = net->places[p].role == PN_PLACE_TRACKED ? 0 : -1;
    for (uint64_t s = 0; s < nv.n && max >= 0; s++)
      if (nv.marks[s * nv.nplaces + p] > max)
        max = nv.marks[s * nv.nplaces + p];
    ck_assert_int_eq(pn_analysis_bounds(a)[p], max);
  }
  int64_t *m = calloc(net->nplaces + 1, sizeof *m);
  for (uint64_t s = 0; s < pn_analysis_states(a); s++) {
    pn_analysis_marking(a, s, m);
    int64_t ns = naive_find(&nv, m);
    ck_assert_int_ge(ns, 0);
    ck_assert_int_eq(pn_analysis_class(a, s), nv.cls[ns]);
    ck_assert_int_eq(pn_analysis_in_safe_set(a, s), nv.in_s[ns]);
    uint32_t *trace, ntrace;
    ck_assert_int_eq(pn_analysis_path_to(a, s, &trace, &ntrace), 0);
    ck_assert_int_eq((int)ntrace, nv.dist[ns]);
    ck_assert_int_eq(replay(a, trace, ntrace), (int64_t)s);
    free(trace);
  }
  free(m);
  pn_analysis_free(a);
  naive_free(&nv);
}

START_TEST(test_cross_two_locks)
{
  struct pn_net *net = two_locks();
  cross_check(net);
  pn_net_free(net);
}
END_TEST

/* Dining philosophers (MCC): 3^n markings, 2 dead ones; with admission
 * transitions for the first fork, so S is not trivial. */
static struct pn_net *philosophers(int n, bool admissions)
{
  struct pn_net *net = nb_new("philosophers");
  char a[32], b[32], c[32], d[32], e[32], f[32], pre[96], post[96];
  for (int i = 0; i < n; i++) {
    snprintf(a, sizeof a, "think%d", i);
    nb_place(net, a, PN_PLACE_TRACKED, 1);
    snprintf(a, sizeof a, "fork%d", i);
    nb_place(net, a, PN_PLACE_TRACKED, 1);
    snprintf(a, sizeof a, "catch1_%d", i);
    nb_place(net, a, PN_PLACE_TRACKED, 0);
    snprintf(a, sizeof a, "catch2_%d", i);
    nb_place(net, a, PN_PLACE_TRACKED, 0);
    snprintf(a, sizeof a, "eat%d", i);
    nb_place(net, a, PN_PLACE_TRACKED, 0);
  }
  for (int i = 0; i < n; i++) {
    snprintf(a, sizeof a, "think%d", i);
    snprintf(b, sizeof b, "fork%d", i);
    snprintf(c, sizeof c, "fork%d", (i + 1) % n);
    snprintf(d, sizeof d, "catch1_%d", i);
    snprintf(e, sizeof e, "catch2_%d", i);
    snprintf(f, sizeof f, "eat%d", i);
    enum pn_transition_kind k = admissions ? PN_ADMISSION : PN_PROGRESS;
    snprintf(pre, sizeof pre, "%s %s", a, b);
    nb_trans(net, "ff1a", k, pre, d);
    snprintf(pre, sizeof pre, "%s %s", a, c);
    nb_trans(net, "ff1b", k, pre, e);
    snprintf(pre, sizeof pre, "%s %s", d, c);
    nb_trans(net, "ff2a", PN_PROGRESS, pre, f);
    snprintf(pre, sizeof pre, "%s %s", e, b);
    nb_trans(net, "ff2b", PN_PROGRESS, pre, f);
    snprintf(post, sizeof post, "%s %s %s", a, b, c);
    nb_trans(net, "end", PN_PROGRESS, f, post);
  }
  return net;
}

START_TEST(test_cross_philosophers)
{
  struct pn_net *net = philosophers(5, false);
  struct pn_analysis *a = analyze(net, 0);
  /* Published (MCC Philosophers-PT-000005): 243 markings, 945 firings, 2 dead. */
  ck_assert_uint_eq(pn_analysis_states(a), 243);
  ck_assert_uint_eq(pn_analysis_edges(a), 945);
  ck_assert_uint_eq(pn_analysis_class_count(a, PN_CLASS_DEAD), 2);
  pn_analysis_free(a);
  cross_check(net);
  pn_net_free(net);
  /* 7: 2187 markings, enough for several table rebuilds mid-pipeline. */
  for (int n = 2; n <= 7; n++) {
    net = philosophers(n, true);
    cross_check(net);
    pn_net_free(net);
  }
}
END_TEST

/* The searches run in several threads (docs/analysis.md, "Parallel
 * searches"): the numbering, every marking, the classes, the safe set and
 * the traces must be exactly those of the one-thread search. */
static void same_with_threads(const struct pn_net *net, uint64_t min_states)
{
  struct pn_analysis_opts o1 = { .threads = 1 };
  struct pn_analysis *one = NULL;
  ck_assert_int_eq(pn_analyze(net, &o1, &one), 0);
  uint64_t n = pn_analysis_states(one);
  /* Large enough for the parallel chunks and frontiers (PNR_PAR_MIN). */
  ck_assert_uint_ge(n, min_states);
  int64_t *m1 = calloc(net->nplaces, sizeof *m1), *m2 = calloc(net->nplaces, sizeof *m2);
  ck_assert(m1 && m2);
  for (unsigned threads = 2; threads <= 3; threads++) {
    struct pn_analysis_opts o = { .threads = threads };
    struct pn_analysis *par = NULL;
    ck_assert_int_eq(pn_analyze(net, &o, &par), 0);
    ck_assert_uint_eq(pn_analysis_states(par), n);
    ck_assert_uint_eq(pn_analysis_edges(par), pn_analysis_edges(one));
    ck_assert_uint_eq(pn_analysis_levels(par), pn_analysis_levels(one));
    ck_assert_uint_eq(pn_analysis_state_bits(par), pn_analysis_state_bits(one));
    for (int c = PN_CLASS_DEAD; c <= PN_CLASS_SAFE; c++)
      ck_assert_uint_eq(pn_analysis_class_count(par, c), pn_analysis_class_count(one, c));
    for (uint32_t p = 0; p < net->nplaces; p++)
      ck_assert_int_eq(pn_analysis_bounds(par)[p], pn_analysis_bounds(one)[p]);
    for (uint64_t s = 0; s < n; s++) {
      pn_analysis_marking(one, s, m1);
      pn_analysis_marking(par, s, m2);
      ck_assert_mem_eq(m1, m2, net->nplaces * sizeof *m1);
      ck_assert_int_eq(pn_analysis_in_safe_set(par, s), pn_analysis_in_safe_set(one, s));
    }
    for (uint64_t s = 0; s < n; s += 97)
      ck_assert_int_eq(pn_analysis_class(par, s), pn_analysis_class(one, s));
    for (uint32_t i = 0; i < net->nassertions; i++) {
      const struct pn_assert_result *r1 = pn_analysis_assertion(one, i),
                                    *r2 = pn_analysis_assertion(par, i);
      ck_assert_int_eq(r1->holds, r2->holds);
      ck_assert_int_eq(r1->witness, r2->witness);
      ck_assert_uint_eq(r1->ntrace, r2->ntrace);
      if (r1->ntrace)
        ck_assert_mem_eq(r1->trace, r2->trace, r1->ntrace * sizeof *r1->trace);
    }
    pn_analysis_free(par);
  }
  free(m1);
  free(m2);
  pn_analysis_free(one);
}

START_TEST(test_threads_philosophers)
{
  /* 3^10 markings, admissions: the closure step runs too. */
  struct pn_net *net = philosophers(10, true);
  nb_assert(net, PN_ASSERT_NO_DEADLOCK, NULL);
  same_with_threads(net, 59049);
  pn_net_free(net);
}
END_TEST

START_TEST(test_threads_widening)
{
  /* 14 switches x_i -> y_i, each turn adding a token to count: 2^14
   * markings, and count outgrows its field at 2, 4 and 8 tokens; the last
   * happens while the 3432 states of level 7 are expanded in parallel
   * chunks, which must fall back to the one-thread search. */
  struct pn_net *net = nb_new("switches");
  char x[16], y[16], pre[48];
  nb_place(net, "count", PN_PLACE_TRACKED, 0);
  /* count + x_0 + ... + x_13 = 14 would size count's field from the
   * start: mint (never enabled) leaves count without a semiflow. */
  nb_place(net, "never", PN_PLACE_TRACKED, 0);
  nb_trans(net, "mint", PN_PROGRESS, "never", "never count");
  for (int i = 0; i < 14; i++) {
    snprintf(x, sizeof x, "x%d", i);
    snprintf(y, sizeof y, "y%d", i);
    nb_place(net, x, PN_PLACE_TRACKED, 1);
    nb_place(net, y, PN_PLACE_TRACKED, 0);
    snprintf(pre, sizeof pre, "%s count", y);
    nb_trans(net, "on", PN_PROGRESS, x, pre);
    nb_trans(net, "off", PN_ADMISSION, pre, x);
  }
  nb_assert(net, PN_ASSERT_NO_DEADLOCK, NULL);
  nb_assert(net, PN_ASSERT_INVARIANT, "1*count<=12");
  nb_assert(net, PN_ASSERT_REACHABLE, "1*count>=14");
  same_with_threads(net, 16384);
  struct pn_analysis *a = analyze(net, 0);
  ck_assert_uint_ge(pn_analysis_reencodes(a), 3);
  pn_analysis_free(a);
  pn_net_free(net);
}
END_TEST

START_TEST(test_threads_multiword)
{
  /* 4 tokens on a 41-place chain: C(44, 4) markings of 123 bits. */
  struct pn_net *net = chain(4);
  nb_assert(net, PN_ASSERT_NO_DEADLOCK, NULL);
  same_with_threads(net, 135751);
  pn_net_free(net);
}
END_TEST

/* Random token-conserving nets (bounded by construction) with admissions,
 * sources and sinks. */
static uint64_t rng_state;
static uint32_t rng(uint32_t n)
{
  rng_state = rng_state * 6364136223846793005u + 1442695040888963407u;
  return (uint32_t)((rng_state >> 33) % n);
}

static struct pn_net *random_net(uint64_t seed)
{
  rng_state = seed;
  struct pn_net *net = nb_new("random");
  uint32_t np = 2 + rng(5), nt = 2 + rng(6);
  char name[16], pre[128], post[128];
  nb_place(net, "src", PN_PLACE_SOURCE, 0);
  nb_place(net, "snk", PN_PLACE_SINK, 0);
  for (uint32_t i = 0; i < np; i++) {
    snprintf(name, sizeof name, "p%u", i);
    nb_place(net, name, PN_PLACE_TRACKED, rng(3));
  }
  for (uint32_t t = 0; t < nt; t++) {
    /* Move w tokens from up to two places to up to two places. */
    uint32_t w = 1 + rng(2), a = rng(np), b = rng(np), c = rng(np), d = rng(np);
    if (rng(2) || a == b)
      snprintf(pre, sizeof pre, "p%u:%u", a, w);
    else
      snprintf(pre, sizeof pre, "p%u:%u p%u:1", a, w, b);
    if (strchr(pre, ' '))
      w++;
    if (rng(2) || c == d || w < 2)
      snprintf(post, sizeof post, "p%u:%u", c, w);
    else
      snprintf(post, sizeof post, "p%u:%u p%u:1", c, w - 1, d);
    if (rng(3) == 0)
      strcat(pre, " src");
    if (rng(3) == 0)
      strcat(post, " snk");
    snprintf(name, sizeof name, "t%u", t);
    nb_trans(net, name, rng(3) == 0 ? PN_ADMISSION : PN_PROGRESS, pre, post);
  }
  return net;
}

START_TEST(test_cross_random)
{
  for (uint64_t seed = 1; seed <= 300; seed++) {
    struct pn_net *net = random_net(seed);
    cross_check(net);
    pn_net_free(net);
  }
}
END_TEST

/* ---- P-semiflows (verify/statespace/pn_semiflow.c) --------------------- */

/* Random nets that need not conserve anything: weights 1-3, outputs
 * optional; many are unbounded. */
static struct pn_net *random_free_net(uint64_t seed)
{
  rng_state = seed;
  struct pn_net *net = nb_new("random_free");
  uint32_t np = 2 + rng(4), nt = 1 + rng(5);
  char name[16], pre[128], post[128];
  nb_place(net, "src", PN_PLACE_SOURCE, 0);
  for (uint32_t i = 0; i < np; i++) {
    snprintf(name, sizeof name, "p%u", i);
    nb_place(net, name, PN_PLACE_TRACKED, rng(4));
  }
  for (uint32_t t = 0; t < nt; t++) {
    uint32_t a = rng(np), b = rng(np), c = rng(np);
    snprintf(pre, sizeof pre, "p%u:%u", a, 1 + rng(3));
    if (rng(3) == 0 && b != a)
      snprintf(pre + strlen(pre), sizeof pre - strlen(pre), " p%u:%u", b, 1 + rng(2));
    if (rng(4) == 0)
      strcat(pre, " src");
    post[0] = 0;
    if (rng(5))
      snprintf(post, sizeof post, "p%u:%u", c, 1 + rng(3));
    snprintf(name, sizeof name, "t%u", t);
    nb_trans(net, name, PN_PROGRESS, pre, post[0] ? post : "src");
  }
  return net;
}

/* Incidence of net place p under transition t, from the arcs as given
 * (the test's own reading of the net, not verify/'s). */
static int64_t incidence(const struct pn_net *net, uint32_t p, uint32_t t)
{
  const struct pn_transition *tr = &net->transitions[t];
  int64_t d = 0;
  for (uint32_t i = 0; i < tr->npre; i++)
    if (tr->pre[i].place == p)
      d -= tr->pre[i].weight;
  for (uint32_t i = 0; i < tr->npost; i++)
    if (tr->post[i].place == p)
      d += tr->post[i].weight;
  return d;
}

static bool is_semiflow(const struct pn_net *net, const int64_t *y)
{
  for (uint32_t t = 0; t < net->ntransitions; t++) {
    int64_t sum = 0;
    for (uint32_t p = 0; p < net->nplaces; p++)
      if (net->places[p].role == PN_PLACE_TRACKED)
        sum += y[p] * incidence(net, p, t);
    if (sum)
      return false;
  }
  return true;
}

static bool support_within(const int64_t *a, const int64_t *b, uint32_t n)
{
  for (uint32_t p = 0; p < n; p++)
    if (a[p] && !b[p])
      return false;
  return true;
}

/* Checks pn_semiflows_compute and pn_semiflow_bounds on net: every row is
 * a semiflow (checked here from the arcs), non-negative, zero on the
 * environment places, with coefficients of gcd 1 and a support no other
 * row's support is inside; every semiflow with coefficients 0..3 (brute
 * force, small nets) has a row's support inside its own and proves no
 * bound smaller than the computed one; and when the net has at most
 * 20000 markings (tests/analysis/naive.c), no reachable marking exceeds a
 * computed bound. */
static void check_semiflows(const struct pn_net *net)
{
  uint32_t n = net->nplaces;
  struct pn_semiflows sf;
  ck_assert_int_eq(pn_semiflows_compute(net, &sf), 0);
  int64_t *bound = calloc(n, sizeof *bound), *y = calloc(n, sizeof *y);
  ck_assert(bound && y);
  ck_assert_int_eq(pn_semiflow_bounds(net, bound), 0);
  for (uint32_t r = 0; r < sf.nrows; r++) {
    const int64_t *row = sf.y + (size_t)r * n;
    ck_assert(is_semiflow(net, row));
    int64_t g = 0;
    for (uint32_t p = 0; p < n; p++) {
      ck_assert_int_ge(row[p], 0);
      if (net->places[p].role != PN_PLACE_TRACKED)
        ck_assert_int_eq(row[p], 0);
      for (int64_t a = g, b = row[p];;) { /* g = gcd(g, row[p]) */
        if (!b) {
          g = a;
          break;
        }
        int64_t t = a % b;
        a = b;
        b = t;
      }
    }
    ck_assert_int_eq(g, 1);
    for (uint32_t k = 0; k < sf.nrows; k++)
      if (k != r)
        ck_assert(!support_within(sf.y + (size_t)k * n, row, n));
  }
  /* Brute force over y in {0..3}^tracked. */
  uint32_t tracked[8], nt = 0;
  for (uint32_t p = 0; p < n; p++)
    if (net->places[p].role == PN_PLACE_TRACKED && nt < 8)
      tracked[nt++] = p;
  if (nt <= 6) {
    uint32_t combos = 1;
    for (uint32_t i = 0; i < nt; i++)
      combos *= 4;
    for (uint32_t c = 1; c < combos; c++) {
      memset(y, 0, n * sizeof *y);
      int64_t total = 0;
      for (uint32_t i = 0, v = c; i < nt; i++, v /= 4) {
        y[tracked[i]] = v % 4;
        total += y[tracked[i]] * net->places[tracked[i]].initial;
      }
      if (!is_semiflow(net, y))
        continue;
      bool covered = false;
      for (uint32_t r = 0; r < sf.nrows && !covered; r++)
        covered = support_within(sf.y + (size_t)r * n, y, n);
      ck_assert_msg(covered, "a semiflow with no minimal row inside its support");
      for (uint32_t i = 0; i < nt; i++) {
        uint32_t p = tracked[i];
        if (!y[p])
          continue;
        ck_assert_int_ge(bound[p], 0);
        ck_assert_int_le(bound[p], total / y[p]);
      }
    }
  }
  struct naive nv;
  if (naive_explore(net, 20000, &nv) == 0)
    for (uint64_t s = 0; s < nv.n; s++)
      for (uint32_t p = 0; p < n; p++)
        if (bound[p] >= 0)
          ck_assert_int_le(nv.marks[s * nv.nplaces + p], bound[p]);
  naive_free(&nv); /* also what a search over the limit allocated */
  free(bound);
  free(y);
  pn_semiflows_free(&sf);
}

START_TEST(test_semiflow_random)
{
  for (uint64_t seed = 1; seed <= 300; seed++) {
    struct pn_net *net = random_net(seed);
    check_semiflows(net);
    pn_net_free(net);
    net = random_free_net(seed);
    check_semiflows(net);
    pn_net_free(net);
  }
}
END_TEST

START_TEST(test_semiflow_philosophers)
{
  /* Dining philosophers, n = 5: the 2n minimal P-semiflows the model's
   * structure gives (each philosopher: think_i + catch1_i + catch2_i +
   * eat_i = 1; each fork: fork_i + catch1_i + catch2_(i-1) + eat_i +
   * eat_(i-1) = 1) and every place bounded by 1. */
  struct pn_net *net = philosophers(5, false);
  struct pn_semiflows sf;
  ck_assert_int_eq(pn_semiflows_compute(net, &sf), 0);
  ck_assert_uint_eq(sf.nrows, 10);
  int64_t bound[25];
  ck_assert_int_eq(pn_semiflow_bounds(net, bound), 0);
  for (uint32_t p = 0; p < net->nplaces; p++)
    ck_assert_int_eq(bound[p], 1);
  pn_semiflows_free(&sf);
  check_semiflows(net);
  pn_net_free(net);
}
END_TEST

/* Large random nets (places x transitions, two inputs and two outputs
 * each, a token in every seventh place): Farkas' rows blow up, so the
 * computation must give up (-E2BIG) within its limits, prove nothing, and
 * leave the analysis correct (widening on demand). */
static struct pn_net *random_big_net(uint64_t seed, uint32_t np, uint32_t nt)
{
  rng_state = seed;
  struct pn_net *net = nb_new("random_big");
  char name[16], pre[64], post[64];
  for (uint32_t i = 0; i < np; i++) {
    snprintf(name, sizeof name, "p%u", i);
    nb_place(net, name, PN_PLACE_TRACKED, i % 7 == 0);
  }
  for (uint32_t t = 0; t < nt; t++) {
    uint32_t a = rng(np), b = (a + 1 + rng(np - 1)) % np, c = rng(np),
             d = (c + 1 + rng(np - 1)) % np;
    snprintf(pre, sizeof pre, "p%u p%u", a, b);
    snprintf(post, sizeof post, "p%u p%u", c, d);
    snprintf(name, sizeof name, "t%u", t);
    nb_trans(net, name, PN_PROGRESS, pre, post);
  }
  return net;
}

START_TEST(test_semiflow_give_up)
{
  unsigned gave_up = 0;
  for (uint64_t seed = 1; seed <= 4; seed++) {
    struct pn_net *net = random_big_net(seed, 120, 200);
    struct pn_semiflows sf;
    int rc = pn_semiflows_compute(net, &sf);
    ck_assert(rc == 0 || rc == -E2BIG);
    int64_t *bound = calloc(net->nplaces, sizeof *bound);
    ck_assert_ptr_nonnull(bound);
    ck_assert_int_eq(pn_semiflow_bounds(net, bound), rc);
    if (rc == -E2BIG) {
      gave_up++;
      ck_assert_ptr_null(sf.y);
      ck_assert_uint_eq(sf.nrows, 0);
      for (uint32_t p = 0; p < net->nplaces; p++)
        ck_assert_int_eq(bound[p], -1);
    } else {
      pn_semiflows_free(&sf);
    }
    free(bound);
    cross_check(net);
    pn_net_free(net);
  }
  ck_assert_uint_gt(gave_up, 0);
}
END_TEST

static Suite *analysis_suite(void)
{
  Suite *s = suite_create("analysis");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_two_locks_classes);
  tcase_add_test(tc, test_initial_outside_safe_set);
  tcase_add_test(tc, test_state_limit);
  tcase_add_test(tc, test_adaptive_width);
  tcase_add_test(tc, test_presized_width);
  tcase_add_test(tc, test_token_overflow);
  tcase_add_test(tc, test_multiword_states);
  tcase_add_test(tc, test_shortest_traces);
  tcase_add_test(tc, test_degenerate_nets);
  suite_add_tcase(s, tc);
  TCase *cross = tcase_create("cross-check");
  tcase_set_timeout(cross, 300);
  tcase_add_test(cross, test_cross_two_locks);
  tcase_add_test(cross, test_cross_philosophers);
  tcase_add_test(cross, test_cross_random);
  suite_add_tcase(s, cross);
  TCase *threads = tcase_create("threads");
  tcase_set_timeout(threads, 300);
  tcase_add_test(threads, test_threads_philosophers);
  tcase_add_test(threads, test_threads_widening);
  tcase_add_test(threads, test_threads_multiword);
  suite_add_tcase(s, threads);
  TCase *semi = tcase_create("semiflows");
  tcase_set_timeout(semi, 300);
  tcase_add_test(semi, test_semiflow_random);
  tcase_add_test(semi, test_semiflow_philosophers);
  tcase_add_test(semi, test_semiflow_give_up);
  suite_add_tcase(s, semi);
  return s;
}

int main(void)
{
  SRunner *sr = srunner_create(analysis_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
