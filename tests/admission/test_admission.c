/* Unit tests of the in-process admission runtime (runtime/admission/cs_sched.c). */
#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commander.h"
#include "fixture_opposite.h"
#include "model_tables.h"
#include "check_run.h"
#include "test_util.h"

static int T(struct cs_sched *s, const char *name)
{
  int t = cs_sched_lookup(s, name);
  ck_assert_msg(t >= 0, "transition %s: %d", name, t);
  return t;
}

static struct cs_sched *make(const struct cs_model_table *t)
{
  struct cs_sched *s = NULL;
  ck_assert_int_eq(cs_sched_create(t, NULL, &s), 0);
  return s;
}

START_TEST(create_rejects_bad_tables)
{
  struct cs_sched *s = (void *)1;
  struct cs_model_table bad = fixture_opposite;
  int32_t next[30];

  ck_assert_int_eq(cs_sched_create(NULL, NULL, &s), -EINVAL);
  ck_assert_int_eq(cs_sched_create(&fixture_opposite, NULL, NULL), -EINVAL);
  /* admit_a that takes no lane: caught by re-deriving the firing. */
  ck_assert_int_eq(cs_sched_create(&fixture_opposite_broken, NULL, &s), -EPROTO);
  ck_assert_ptr_null(s);
  bad.version = CS_MODEL_TABLE_VERSION + 1;
  ck_assert_int_eq(cs_sched_create(&bad, NULL, &s), -EPROTO);
  /* A successor out of range is refused even when the deep check is off. */
  bad = fixture_opposite;
  memcpy(next, fixture_opposite.next_state, sizeof next);
  next[7] = 5;
  bad.next_state = next;
  struct cs_sched_opts trust = { .skip_table_check = 1 };
  ck_assert_int_eq(cs_sched_create(&bad, &trust, &s), -EPROTO);
  /* A progress step marked refused means S is not closed: rejected. */
  memcpy(next, fixture_opposite.next_state, sizeof next);
  next[1] = CS_REFUSED;
  ck_assert_int_eq(cs_sched_create(&bad, &trust, &s), -EPROTO);
  ck_assert_int_eq(cs_sched_destroy(NULL), 0);
}
END_TEST

START_TEST(lookups_by_name)
{
  struct cs_sched *s = make(&fixture_opposite);
  ck_assert_int_eq(cs_sched_lookup(s, "admit_a"), 0);
  ck_assert_int_eq(cs_sched_lookup(s, "complete_b"), 5);
  ck_assert_int_eq(cs_sched_lookup(s, "admit_c"), -ENOENT);
  ck_assert_int_eq(cs_sched_lookup(s, NULL), -EINVAL);
  ck_assert_int_eq(cs_sched_lookup_admission(s, "admit_b"), 3);
  ck_assert_int_eq(cs_sched_lookup_admission(s, "start_a"), -EINVAL);
  ck_assert_ptr_eq(cs_sched_table(s), &fixture_opposite);
  ck_assert_str_eq(cs_strerror(-EALREADY), "ticket already completed");
  ck_assert_int_eq(cs_sched_destroy(s), 0);
}
END_TEST

START_TEST(admit_progress_complete)
{
  struct cs_sched *s = make(&fixture_opposite);
  struct cs_ticket a, b;
  int64_t tok[8];
  int admit_a = T(s, "admit_a"), admit_b = T(s, "admit_b"), start_a = T(s, "start_a");

  ck_assert_int_eq(cs_try_admit(s, (uint32_t)admit_a, &a), 0);
  ck_assert_uint_eq(a.from_state, 0);
  ck_assert_uint_eq(a.to_state, 1);
  ck_assert_uint_eq(a.admission, (uint32_t)admit_a);
  ck_assert_int_eq(cs_sched_marking(s, tok, 8), 1);
  ck_assert_int_eq(tok[1], 0); /* lane taken */
  ck_assert_int_eq(tok[3], 1); /* a_wait */
  /* admit_b now leads to the dead marking lane=0 slot=0: refused. */
  ck_assert_int_eq(cs_try_admit(s, (uint32_t)admit_b, &b), -EAGAIN);
  ck_assert_uint_eq(cs_sched_state(s), 1);
  ck_assert_int_eq(cs_try_admit(s, 1, &b), -EINVAL); /* start_a is no admission */
  /* The work has not started: its completion is not enabled yet. */
  ck_assert_int_eq(cs_complete(s, &a), -EAGAIN);
  ck_assert_uint_eq(cs_sched_outstanding(s), 1);
  ck_assert_int_eq(cs_fire_progress(s, (uint32_t)T(s, "complete_a")), -EPERM);
  ck_assert_int_eq(cs_fire_progress(s, (uint32_t)admit_a), -EPERM);
  ck_assert_int_eq(cs_fire_progress(s, (uint32_t)T(s, "start_b")), -EAGAIN);
  ck_assert_int_eq(cs_fire_progress(s, 99), -EINVAL);
  ck_assert_int_eq(cs_fire_progress(s, (uint32_t)start_a), 0);
  ck_assert_uint_eq(cs_sched_state(s), 3);
  ck_assert_int_eq(cs_sched_destroy(s), -EBUSY); /* a ticket is outstanding */
  ck_assert_int_eq(cs_complete(s, &a), 0);
  ck_assert_uint_eq(cs_sched_state(s), 0);
  ck_assert_uint_eq(cs_sched_outstanding(s), 0);
  ck_assert_int_eq(cs_admit(s, (uint32_t)admit_b, &b), 0);
  ck_assert_uint_eq(cs_sched_state(s), 2);
  ck_assert_int_eq(cs_fire_progress(s, (uint32_t)T(s, "start_b")), 0);
  ck_assert_int_eq(cs_complete(s, &b), 0);
  ck_assert_int_eq(cs_sched_destroy(s), 0);
}
END_TEST

START_TEST(double_and_forged_completion)
{
  struct cs_sched *s = make(&fixture_opposite);
  struct cs_ticket a, old, forged;
  int admit_a = T(s, "admit_a"), start_a = T(s, "start_a");

  ck_assert_int_eq(cs_admit(s, (uint32_t)admit_a, &a), 0);
  ck_assert_int_eq(cs_fire_progress(s, (uint32_t)start_a), 0);
  ck_assert_int_eq(cs_complete(s, &a), 0);
  ck_assert_int_eq(cs_complete(s, &a), -EALREADY);
  old = a;
  /* The slot is reused with a new generation; the old ticket stays dead
   * and cannot complete the new holder's work. */
  ck_assert_int_eq(cs_admit(s, (uint32_t)admit_a, &a), 0);
  ck_assert_uint_eq(a.slot, old.slot);
  ck_assert_uint_gt(a.generation, old.generation);
  ck_assert_int_eq(cs_fire_progress(s, (uint32_t)start_a), 0);
  ck_assert_int_eq(cs_complete(s, &old), -EALREADY);
  ck_assert_uint_eq(cs_sched_state(s), 3);
  forged = a;
  forged.admission = (uint32_t)T(s, "admit_b");
  ck_assert_int_eq(cs_complete(s, &forged), -EINVAL);
  forged = a;
  forged.generation += 7;
  ck_assert_int_eq(cs_complete(s, &forged), -EINVAL);
  forged = a;
  forged.slot = CS_SCHED_DEFAULT_TICKETS;
  ck_assert_int_eq(cs_complete(s, &forged), -EINVAL);
  forged.slot = a.slot + 1; /* a free slot */
  ck_assert_int_eq(cs_complete(s, &forged), -EINVAL);
  ck_assert_int_eq(cs_complete(s, NULL), -EINVAL);
  ck_assert_uint_eq(cs_sched_state(s), 3); /* none of that moved the marking */
  ck_assert_int_eq(cs_complete(s, &a), 0);
  ck_assert_int_eq(cs_sched_destroy(s), 0);
}
END_TEST

START_TEST(ticket_registry_full)
{
  struct cs_sched *s = NULL;
  struct cs_sched_opts o = { .max_tickets = 1 };
  struct cs_ticket a, b;
  ck_assert_int_eq(cs_sched_create(&fixture_opposite, &o, &s), 0);
  ck_assert_int_eq(cs_try_admit(s, 0, &a), 0);
  ck_assert_int_eq(cs_try_admit(s, 3, &b), -ENOSPC);
  ck_assert_uint_eq(cs_sched_state(s), 1);
  ck_assert_int_eq(cs_fire_progress(s, 1), 0);
  ck_assert_int_eq(cs_complete(s, &a), 0);
  ck_assert_int_eq(cs_sched_destroy(s), 0);
}
END_TEST

START_TEST(timed_admission_times_out)
{
  struct cs_sched *s = make(&fixture_opposite);
  struct cs_ticket a, b;
  struct timespec dl, t0, t1;
  int admit_b = T(s, "admit_b");

  ck_assert_int_eq(cs_admit(s, 0, &a), 0);
  test_deadline_in(&dl, 50);
  clock_gettime(CLOCK_MONOTONIC, &t0);
  ck_assert_int_eq(cs_admit_timed(s, (uint32_t)admit_b, &dl, &b), -ETIMEDOUT);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  ck_assert_int_ge((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000, 45);
  ck_assert_int_eq(cs_sched_waiting(s, (uint32_t)admit_b), 0);
  ck_assert_uint_eq(cs_sched_outstanding(s), 1);
  /* A deadline already past still admits when the table allows it now. */
  clock_gettime(CLOCK_MONOTONIC, &dl);
  ck_assert_int_eq(cs_fire_progress(s, 1), 0);
  ck_assert_int_eq(cs_complete(s, &a), 0);
  ck_assert_int_eq(cs_admit_timed(s, (uint32_t)admit_b, &dl, &b), 0);
  dl.tv_nsec = 1000000000L;
  ck_assert_int_eq(cs_admit_timed(s, 0, &dl, &a), -EINVAL);
  ck_assert_int_eq(cs_fire_progress(s, 4), 0);
  ck_assert_int_eq(cs_complete(s, &b), 0);
  ck_assert_int_eq(cs_sched_destroy(s), 0);
}
END_TEST

/* FIFO: waiters of one admission are granted in arrival order. */
#define NFIFO 6
struct fifo_arg {
  struct cs_sched *s;
  int id;
  int *order;
  int *next;
  pthread_mutex_t *m;
};

static void *fifo_waiter(void *p)
{
  struct fifo_arg *a = p;
  struct cs_ticket tk;
  struct timespec dl;
  test_deadline_in(&dl, 20000);
  if (cs_admit_timed(a->s, 0, &dl, &tk) != 0)
    return (void *)1;
  pthread_mutex_lock(a->m);
  a->order[(*a->next)++] = a->id;
  pthread_mutex_unlock(a->m);
  if (cs_fire_progress(a->s, 1) != 0 || cs_complete(a->s, &tk) != 0)
    return (void *)1;
  return NULL;
}

START_TEST(fifo_per_admission)
{
  struct cs_sched *s = make(&fixture_opposite);
  struct cs_ticket hold, b;
  pthread_t th[NFIFO];
  struct fifo_arg args[NFIFO];
  int order[NFIFO], next = 0;
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

  ck_assert_int_eq(cs_admit(s, 3, &hold), 0); /* admit_b: admit_a is refused now */
  for (int i = 0; i < NFIFO; i++) {
    args[i] = (struct fifo_arg){ s, i, order, &next, &m };
    ck_assert_int_eq(pthread_create(&th[i], NULL, fifo_waiter, &args[i]), 0);
    /* Arrival order is the order in which they queue. */
    for (int spin = 0; cs_sched_waiting(s, 0) != i + 1; spin++) {
      ck_assert_int_lt(spin, 20000);
      usleep(100);
    }
  }
  /* A newcomer is refused while admit_a has queued waiters. (At rest the
   * table refuses it here as well: a queued head whose admission is allowed
   * is granted at once by the dispatcher. The fast path's own check,
   * waiting[a] == 0, only matters in the window after a state change and
   * before the dispatch; docs/runtime.md argues it.) */
  ck_assert_int_eq(cs_try_admit(s, 0, &b), -EAGAIN);
  ck_assert_int_eq(cs_fire_progress(s, 4), 0);
  ck_assert_int_eq(cs_complete(s, &hold), 0); /* wakes the chain */
  for (int i = 0; i < NFIFO; i++) {
    void *r;
    ck_assert_int_eq(pthread_join(th[i], &r), 0);
    ck_assert_ptr_null(r);
  }
  ck_assert_int_eq(next, NFIFO);
  for (int i = 0; i < NFIFO; i++)
    ck_assert_int_eq(order[i], i);
  ck_assert_uint_eq(cs_sched_state(s), 0);
  ck_assert_int_eq(cs_sched_destroy(s), 0);
}
END_TEST

/* Breadth-first search over the table, avoiding completion steps (they need
 * a ticket), for a state where some admission is refused. Returns the path
 * length and fills path/adm, or -1. */
static int path_to_refusal(const struct cs_model_table *t, uint32_t *path, int maxlen,
                           uint32_t *adm)
{
  uint32_t n = t->n_states;
  int32_t *pred = malloc(n * sizeof *pred);
  uint32_t *via = malloc(n * sizeof *via), *fifo = malloc(n * sizeof *fifo);
  uint32_t head = 0, tail = 0;
  int len = -1;
  for (uint32_t i = 0; i < n; i++)
    pred[i] = -2;
  pred[0] = -1;
  fifo[tail++] = 0;
  while (head < tail && len < 0) {
    uint32_t st = fifo[head++];
    for (uint32_t tr = 0; tr < t->n_transitions; tr++) {
      int32_t nx = t->next_state[st * t->n_transitions + tr];
      if (nx == CS_REFUSED) {
        *adm = tr;
        len = 0;
        for (uint32_t x = st; pred[x] >= 0; x = (uint32_t)pred[x])
          len++;
        ck_assert_int_le(len, maxlen);
        int k = len;
        for (uint32_t x = st; pred[x] >= 0; x = (uint32_t)pred[x])
          path[--k] = via[x];
        break;
      }
      bool completion = false;
      for (uint32_t a = 0; a < t->n_transitions; a++)
        if (t->transition_completion[a] == (int32_t)tr)
          completion = true;
      if (nx >= 0 && !completion && pred[nx] == -2) {
        pred[nx] = (int32_t)st;
        via[nx] = tr;
        fifo[tail++] = (uint32_t)nx;
      }
    }
  }
  free(pred);
  free(via);
  free(fifo);
  return len;
}

/* Drives a scheduler to an unsafe frontier of a generated model and checks
 * that it refuses there, and that the refused step really leaves S. */
static void check_refusal(const struct cs_model_table *t)
{
  struct cs_sched *s = make(t);
  uint32_t path[256], adm = 0;
  struct cs_ticket tk[256], x;
  int ntk = 0, len = path_to_refusal(t, path, 256, &adm);

  ck_assert_msg(len >= 0, "model %s refuses nothing", t->model_name);
  for (int i = 0; i < len; i++) {
    if (t->transition_kinds[path[i]] == CS_TRANSITION_ADMISSION)
      ck_assert_int_eq(cs_try_admit(s, path[i], &tk[ntk++]), 0);
    else
      ck_assert_int_eq(cs_fire_progress(s, path[i]), 0);
  }
  uint32_t st = cs_sched_state(s);
  ck_assert_int_eq(t->next_state[st * t->n_transitions + adm], CS_REFUSED);
  ck_assert_int_eq(cs_try_admit(s, adm, &x), -EAGAIN);
  ck_assert_uint_eq(cs_sched_state(s), st);
  struct timespec dl;
  test_deadline_in(&dl, 20);
  ck_assert_int_eq(cs_admit_timed(s, adm, &dl, &x), -ETIMEDOUT);
  /* Return everything: complete each ticket, firing progress as needed. */
  for (int left = ntk, guard = 0; left > 0; guard++) {
    ck_assert_int_lt(guard, 10000);
    for (int i = 0; i < ntk; i++)
      if (tk[i].slot != UINT32_MAX && cs_complete(s, &tk[i]) == 0) {
        tk[i].slot = UINT32_MAX;
        left--;
      }
    for (uint32_t tr = 0; tr < t->n_transitions; tr++)
      (void)cs_fire_progress(s, tr);
  }
  ck_assert_int_eq(cs_sched_destroy(s), 0);
}

#ifdef HAVE_MODEL_TWO_STAGE
START_TEST(two_stage_refuses_unsafe)
{
  check_refusal(&cs_model_two_stage);
}
END_TEST
#endif

START_TEST(fixture_refuses_deadlock)
{
  check_refusal(&fixture_opposite);
}
END_TEST

#ifdef HAVE_MODEL_DEFAULT
/* Threads park the registry word of their last completed ticket for their
 * next admission; a thread that exits must give it back, or a registry of
 * 64 words would be exhausted by 64 short-lived threads. */
static void *admit_complete_once(void *p)
{
  struct cs_sched *s = p;
  struct cs_ticket tk;
  if (cs_try_admit(s, 0, &tk) != 0 || cs_complete(s, &tk) != 0)
    return (void *)1;
  return NULL;
}

START_TEST(parked_words_return_at_thread_exit)
{
  struct cs_sched *s = NULL, *s2 = NULL;
  struct cs_sched_opts o = { .max_tickets = 64 };
  struct cs_ticket tk[17];
  ck_assert_int_eq(cs_sched_create(&cs_model_default, &o, &s), 0);
  for (int i = 0; i < 200; i++) {
    pthread_t th;
    void *r;
    ck_assert_int_eq(pthread_create(&th, NULL, admit_complete_once, s), 0);
    ck_assert_int_eq(pthread_join(th, &r), 0);
    ck_assert_ptr_null(r);
  }
  /* All 64 words usable: 10 outstanding tickets (every lane slot of the
   * model; there are fewer lane slots than tier slots) from this thread,
   * then none left over. */
  int n = 0;
  for (uint32_t a = 0; a < cs_model_default.n_transitions; a++)
    while (cs_sched_table(s)->transition_kinds[a] == CS_TRANSITION_ADMISSION &&
           cs_try_admit(s, a, &tk[n]) == 0)
      n++;
  ck_assert_int_eq(n, 10);
  ck_assert_uint_eq(cs_sched_outstanding(s), 10);
  for (int i = 0; i < n; i++)
    ck_assert_int_eq(cs_complete(s, &tk[i]), 0);
  /* This thread has a word parked in s; after s is gone, a new scheduler
   * (perhaps at the same address) must not take it for its own. */
  ck_assert_int_eq(cs_sched_destroy(s), 0);
  ck_assert_int_eq(cs_sched_create(&cs_model_default, &o, &s2), 0);
  ck_assert_int_eq(cs_try_admit(s2, 0, &tk[0]), 0);
  ck_assert_uint_eq(cs_sched_outstanding(s2), 1);
  ck_assert_int_eq(cs_complete(s2, &tk[0]), 0);
  ck_assert_int_eq(cs_complete(s2, &tk[0]), -EALREADY);
  ck_assert_int_eq(cs_sched_destroy(s2), 0);
}
END_TEST

/* Each tier's slots, filled through every lane (no lane alone is wide
 * enough for v8's 10): once a tier is full, no lane admits it, its slots
 * place is empty, and the lanes' slots are all back after the completions.
 * The lane widths are the ones models/default.pnet declares. */
START_TEST(default_counts_slots)
{
  struct cs_sched *s = make(&cs_model_default);
  const struct cs_model_table *t = &cs_model_default;
  static const struct {
    const char *tier;
    int slots;
  } tiers[] = { { "v8", 10 }, { "seccomp", 4 }, { "wasm", 2 }, { "tee", 1 } };
  static const char *const lanes[] = { "interactive", "background", "subagent" };
  struct cs_ticket tk[10], x;
  int64_t tok[64];
  char name[64];

  ck_assert_uint_le(t->n_places, 64);
  for (size_t i = 0; i < sizeof tiers / sizeof *tiers; i++) {
    int n = 0;
    for (size_t l = 0; l < sizeof lanes / sizeof *lanes; l++) {
      snprintf(name, sizeof name, "admit_%s_%s", lanes[l], tiers[i].tier);
      int a = cs_sched_lookup_admission(s, name);
      ck_assert_int_ge(a, 0);
      while (n < tiers[i].slots && cs_try_admit(s, (uint32_t)a, &tk[n]) == 0)
        n++;
    }
    ck_assert_int_eq(n, tiers[i].slots);
    for (size_t l = 0; l < sizeof lanes / sizeof *lanes; l++) {
      snprintf(name, sizeof name, "admit_%s_%s", lanes[l], tiers[i].tier);
      ck_assert_int_eq(cs_try_admit(s, (uint32_t)cs_sched_lookup_admission(s, name), &x), -EAGAIN);
    }
    snprintf(name, sizeof name, "%s_slots", tiers[i].tier);
    ck_assert_int_ge(cs_sched_marking(s, tok, 64), 0);
    for (uint32_t p = 0; p < t->n_places; p++)
      if (strcmp(t->place_names[p], name) == 0)
        ck_assert_int_eq(tok[p], 0);
    ck_assert_uint_eq(cs_sched_outstanding(s), (uint32_t)n);
    for (int k = 0; k < n; k++)
      ck_assert_int_eq(cs_complete(s, &tk[k]), 0);
    ck_assert_uint_eq(cs_sched_state(s), t->initial_state);
  }
  ck_assert_int_eq(cs_sched_destroy(s), 0);
}
END_TEST
#endif

static Suite *suite(void)
{
  Suite *s = suite_create("admission");
  TCase *tc = tcase_create("unit");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, create_rejects_bad_tables);
  tcase_add_test(tc, lookups_by_name);
  tcase_add_test(tc, admit_progress_complete);
  tcase_add_test(tc, double_and_forged_completion);
  tcase_add_test(tc, ticket_registry_full);
  tcase_add_test(tc, timed_admission_times_out);
  tcase_add_test(tc, fifo_per_admission);
  tcase_add_test(tc, fixture_refuses_deadlock);
#ifdef HAVE_MODEL_TWO_STAGE
  tcase_add_test(tc, two_stage_refuses_unsafe);
#endif
#ifdef HAVE_MODEL_DEFAULT
  tcase_add_test(tc, default_counts_slots);
  tcase_add_test(tc, parked_words_return_at_thread_exit);
#endif
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return test_check_run(suite());
}
