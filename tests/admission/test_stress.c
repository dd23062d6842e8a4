/* Stress test of the in-process admission runtime.
 *
 *   admission_stress MODEL OPS THREADS [expect-violation]
 *
 * THREADS threads admit, fire progress steps and complete until OPS
 * admissions were granted in total (CS_STRESS_DIVISOR, when set, divides
 * OPS: the sanitizer build uses it). A shadow checker, independent of the
 * scheduler's own table lookups, verifies after every step:
 *   - the current state is a state of S whose marking respects every
 *     capacity;
 *   - each granted admission moved the marking exactly by the firing of
 *     its arcs (re-derived from pre/post arcs, not from next_state);
 *   - no ticket is handed to two holders at once (an owner word per
 *     registry slot);
 * and at the end:
 *   - every thread finished (a blocked admission has a deadline; the main
 *     thread fails the run when no admission happens for RUN_DEADLINE_S:
 *     a deadlock fails, a slow machine does not);
 *   - no ticket is outstanding and every granted ticket was completed once;
 *   - the marking satisfies the state equation M = M0 + sum(fired(t) * C(t))
 *     over every tracked place (sum invariants such as
 *     v8_slots + executing_v8 == 10 follow from it; the default model's are
 *     also checked by name).
 * With `expect-violation` the run is expected to be caught (the broken
 * fixture table): exit 0 only if the checker reported a violation, so the
 * checker itself is shown to fail when it should. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commander.h"
#include "fixture_opposite.h"
#include "model_tables.h"
#include "test_util.h"

#define MAX_THREADS 64
#define MAX_HELD 4
#define STEP_DEADLINE_S 20
#define RUN_DEADLINE_S 100

static const uint32_t tickets_total = 1024;

static const struct cs_model_table *tab;
static struct cs_sched *sched;
static uint64_t target;
static _Atomic uint64_t admitted, completed, tried_refused, waited;
static _Atomic int64_t *fired;  /* per transition */
static _Atomic uint32_t *owner; /* per ticket slot: 0 free, else thread id + 1 */
static _Atomic int violations;
static _Atomic bool stop;
static pthread_mutex_t fin_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fin_cond;
static uint32_t *progress_steps, nprogress;
static int64_t **effect; /* [transition][column] from the arcs */
static _Atomic int finished;

static void violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void violation(const char *fmt, ...)
{
  va_list ap;
  if (atomic_fetch_add(&violations, 1) < 5) {
    va_start(ap, fmt);
    fputs("VIOLATION: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
  }
  atomic_store(&stop, true);
  /* Wake the main thread: threads blocked in an admission would only
   * notice at their deadline. */
  pthread_mutex_lock(&fin_lock);
  pthread_cond_signal(&fin_cond);
  pthread_mutex_unlock(&fin_lock);
}

static const uint32_t *marking_of(uint32_t st)
{
  return tab->markings + (size_t)st * tab->n_tracked;
}

/* The current state is in S and within capacities. */
static void check_state(uint32_t st)
{
  if (st >= tab->n_states) {
    violation("state %u outside S (%u states)", st, tab->n_states);
    return;
  }
  const uint32_t *m = marking_of(st);
  for (uint32_t c = 0; c < tab->n_tracked; c++) {
    int64_t cap = tab->place_capacities[tab->tracked_places[c]];
    if (cap >= 0 && m[c] > cap)
      violation("state %u: %s holds %u > capacity %lld", st,
                tab->place_names[tab->tracked_places[c]], m[c], (long long)cap);
  }
}

static void check_admission(const struct cs_ticket *tk, uint32_t tid)
{
  check_state(tk->from_state);
  check_state(tk->to_state);
  if (atomic_load(&stop))
    return;
  const uint32_t *f = marking_of(tk->from_state), *t = marking_of(tk->to_state);
  for (uint32_t c = 0; c < tab->n_tracked; c++)
    if ((int64_t)t[c] != (int64_t)f[c] + effect[tk->admission][c]) {
      violation("%s granted %u -> %u, but %s went %u -> %u (the arcs say %+lld)",
                tab->transition_names[tk->admission], tk->from_state, tk->to_state,
                tab->place_names[tab->tracked_places[c]], f[c], t[c],
                (long long)effect[tk->admission][c]);
      return;
    }
  uint32_t prev = atomic_exchange(&owner[tk->slot], tid + 1);
  if (prev != 0)
    violation("ticket slot %u handed to thread %u while thread %u holds it", tk->slot, tid,
              prev - 1);
}

static uint64_t rnd(uint64_t *x)
{
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

static bool past(const struct timespec *ts)
{
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec > ts->tv_sec || (now.tv_sec == ts->tv_sec && now.tv_nsec >= ts->tv_nsec);
}

/* Completes one of the held tickets (the one at *k first), firing
 * progress steps their work needs. It tries every held ticket: the one
 * picked may wait for a resource another ticket of the same thread holds. */
static bool complete_one(struct cs_ticket *held, uint32_t *nheld, uint32_t k, uint32_t tid,
                         uint64_t *seed)
{
  struct timespec dl;
  test_deadline_in(&dl, STEP_DEADLINE_S * 1000L);
  for (;;) {
    for (uint32_t i = 0; i < *nheld; i++, k = k + 1 == *nheld ? 0 : k + 1) {
      struct cs_ticket *tk = &held[k];
      /* Release ownership first: once cs_complete returns the slot may be
       * reissued to someone else at once. */
      atomic_store(&owner[tk->slot], 0);
      int rc = cs_complete(sched, tk);
      if (rc == 0) {
        int32_t c = tab->transition_completion[tk->admission];
        if (c >= 0)
          atomic_fetch_add(&fired[c], 1);
        atomic_fetch_add(&completed, 1);
        check_state(cs_sched_state(sched));
        held[k] = held[--*nheld];
        return true;
      }
      atomic_store(&owner[tk->slot], tid + 1);
      if (rc != -EAGAIN) {
        violation("cs_complete(%s) = %d", tab->transition_names[tk->admission], rc);
        return false;
      }
    }
    if (nprogress) {
      uint32_t t = progress_steps[rnd(seed) % nprogress];
      if (cs_fire_progress(sched, t) == 0) {
        atomic_fetch_add(&fired[t], 1);
        check_state(cs_sched_state(sched));
      }
    }
    sched_yield(); /* 2 cores, 8+ threads: let the holder that can move run */
    if (past(&dl)) {
      violation("thread %u: none of its %u tickets could complete for %d s", tid, *nheld,
                STEP_DEADLINE_S);
      return false;
    }
    if (atomic_load(&stop))
      return false;
  }
}

struct worker {
  pthread_t th;
  uint32_t id;
};

static void *work(void *p)
{
  struct worker *w = p;
  struct cs_ticket held[MAX_HELD];
  uint32_t nheld = 0, nadm = 0, adms[64];
  uint64_t seed = 0x9e3779b97f4a7c15ull * (w->id + 1);

  for (uint32_t t = 0; t < tab->n_transitions && nadm < 64; t++)
    if (tab->transition_kinds[t] == CS_TRANSITION_ADMISSION)
      adms[nadm++] = t;
  while (!atomic_load(&stop) && atomic_load(&admitted) < target) {
    uint32_t a = adms[rnd(&seed) % nadm];
    uint64_t r = rnd(&seed);
    struct cs_ticket tk;
    int rc;
    if (nheld == 0) {
      /* Holding nothing, a thread may block: others will complete. */
      struct timespec dl;
      test_deadline_in(&dl, STEP_DEADLINE_S * 1000L);
      rc = cs_admit_timed(sched, a, &dl, &tk);
      if (rc == -ETIMEDOUT) {
        violation("thread %u: %s waited %d s (deadlock or lost wake-up)", w->id,
                  tab->transition_names[a], STEP_DEADLINE_S);
        break;
      }
      atomic_fetch_add(&waited, 1);
    } else if (nheld < MAX_HELD && (r & 3) != 0) {
      rc = cs_try_admit(sched, a, &tk);
      if (rc == -EAGAIN) {
        atomic_fetch_add(&tried_refused, 1);
        rc = 1;
      }
    } else {
      rc = 1;
    }
    if (rc == 0) {
      atomic_fetch_add(&admitted, 1);
      atomic_fetch_add(&fired[a], 1);
      check_admission(&tk, w->id);
      check_state(cs_sched_state(sched));
      held[nheld++] = tk;
    } else if (rc != 1) {
      violation("thread %u: admission %s = %d", w->id, tab->transition_names[a], rc);
      break;
    } else if (nheld) {
      if (!complete_one(held, &nheld, (uint32_t)(rnd(&seed) % nheld), w->id, &seed))
        break;
    }
    /* Keep uncontrollable steps moving now and then (they belong to no
     * ticket; firing them can only keep the net inside S). */
    if (nprogress && (r & 0x30) == 0) {
      uint32_t t = progress_steps[(r >> 8) % nprogress];
      if (cs_fire_progress(sched, t) == 0) {
        atomic_fetch_add(&fired[t], 1);
        check_state(cs_sched_state(sched));
      }
    }
  }
  while (nheld && !atomic_load(&stop))
    if (!complete_one(held, &nheld, 0, w->id, &seed))
      break;
  pthread_mutex_lock(&fin_lock);
  atomic_fetch_add(&finished, 1);
  pthread_cond_signal(&fin_cond);
  pthread_mutex_unlock(&fin_lock);
  return NULL;
}

static void check_end(void)
{
  uint32_t st = cs_sched_state(sched);
  const uint32_t *m = marking_of(st);
  check_state(st);
  if (cs_sched_outstanding(sched) != 0)
    violation("%u tickets outstanding at the end", cs_sched_outstanding(sched));
  if (atomic_load(&admitted) != atomic_load(&completed))
    violation("%llu admitted but %llu completed", (unsigned long long)admitted,
              (unsigned long long)completed);
  for (uint32_t i = 0; i < tickets_total; i++)
    if (atomic_load(&owner[i]))
      violation("ticket slot %u still owned by thread %u", i, atomic_load(&owner[i]) - 1);
  /* State equation: M = M0 + sum over t of fired(t) * C(t). */
  for (uint32_t c = 0; c < tab->n_tracked; c++) {
    int64_t want = (int64_t)marking_of(tab->initial_state)[c];
    for (uint32_t t = 0; t < tab->n_transitions; t++)
      want += atomic_load(&fired[t]) * effect[t][c];
    if (want != (int64_t)m[c])
      violation("place %s holds %u, but the firings counted give %lld",
                tab->place_names[tab->tracked_places[c]], m[c], (long long)want);
  }
  /* The default model's per-tier invariants, by name. */
  for (uint32_t c = 0; c < tab->n_tracked; c++) {
    const char *pn = tab->place_names[tab->tracked_places[c]];
    size_t n = strlen(pn);
    if (n < 7 || strcmp(pn + n - 6, "_slots") != 0)
      continue;
    char exec[96];
    snprintf(exec, sizeof exec, "executing_%.*s", (int)(n - 6), pn);
    for (uint32_t d = 0; d < tab->n_tracked; d++)
      if (strcmp(tab->place_names[tab->tracked_places[d]], exec) == 0 &&
          (int64_t)(m[c] + m[d]) != tab->place_capacities[tab->tracked_places[c]])
        violation("%s + %s = %u, not %lld", pn, exec, m[c] + m[d],
                  (long long)tab->place_capacities[tab->tracked_places[c]]);
  }
}

static const struct cs_model_table *pick(const char *name)
{
  if (strcmp(name, "opposite") == 0)
    return &fixture_opposite;
  if (strcmp(name, "opposite-broken") == 0)
    return &fixture_opposite_broken;
#ifdef HAVE_MODEL_DEFAULT
  if (strcmp(name, "default") == 0)
    return &cs_model_default;
#endif
#ifdef HAVE_MODEL_TWO_STAGE
  if (strcmp(name, "two_stage") == 0)
    return &cs_model_two_stage;
#endif
  return NULL;
}

int main(int argc, char **argv)
{
  struct worker w[MAX_THREADS];
  struct cs_sched_opts opts = { .max_tickets = tickets_total };
  uint32_t nthreads;
  bool expect_violation;
  struct timespec t0, t1, dl;
  int rc = 1;

  if (argc < 4 || argc > 5) {
    fprintf(stderr, "usage: %s MODEL OPS THREADS [expect-violation]\n", argv[0]);
    return 2;
  }
  tab = pick(argv[1]);
  if (!tab) {
    fprintf(stderr, "model %s not in this build\n", argv[1]);
    return 77;
  }
  target = strtoull(argv[2], NULL, 10);
  const char *div = getenv("CS_STRESS_DIVISOR");
  if (div && atoi(div) > 1)
    target /= (uint64_t)atoi(div);
  nthreads = (uint32_t)atoi(argv[3]);
  expect_violation = argc == 5 && strcmp(argv[4], "expect-violation") == 0;
  if (nthreads < 1 || nthreads > MAX_THREADS || target == 0)
    return 2;
  /* The broken table would be rejected at creation; skip that check to
   * show the shadow checker catches what the runtime would then do. */
  opts.skip_table_check = expect_violation;
  if (cs_sched_create(tab, &opts, &sched) != 0) {
    fprintf(stderr, "cs_sched_create failed\n");
    return 1;
  }
  fired = calloc(tab->n_transitions, sizeof *fired);
  owner = calloc(tickets_total, sizeof *owner);
  effect = calloc(tab->n_transitions, sizeof *effect);
  progress_steps = calloc(tab->n_transitions, sizeof *progress_steps);
  for (uint32_t t = 0; t < tab->n_transitions; t++) {
    bool completion = false;
    effect[t] = calloc(tab->n_tracked + 1, sizeof **effect);
    for (uint32_t c = 0; c < tab->n_tracked; c++) {
      uint32_t p = tab->tracked_places[c];
      for (uint32_t i = tab->pre_start[t]; i < tab->pre_start[t + 1]; i++)
        if (tab->pre_arcs[i].place == p)
          effect[t][c] -= tab->pre_arcs[i].weight;
      for (uint32_t i = tab->post_start[t]; i < tab->post_start[t + 1]; i++)
        if (tab->post_arcs[i].place == p)
          effect[t][c] += tab->post_arcs[i].weight;
    }
    for (uint32_t a = 0; a < tab->n_transitions; a++)
      if (tab->transition_completion[a] == (int32_t)t)
        completion = true;
    if (tab->transition_kinds[t] == CS_TRANSITION_PROGRESS && !completion)
      progress_steps[nprogress++] = t;
  }
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&fin_cond, &ca);

  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (uint32_t i = 0; i < nthreads; i++) {
    w[i].id = i;
    if (pthread_create(&w[i].th, NULL, work, &w[i]) != 0) {
      fprintf(stderr, "pthread_create failed\n");
      return 1;
    }
  }
  /* Every thread must finish: a deadlock fails the test, it never hangs.
   * A deadlock is no progress: RUN_DEADLINE_S with not one admission more.
   * The bound restarts at each sign of progress, so a slow machine (the
   * suite under load) takes longer but never fails for being slow. */
  uint64_t seen = atomic_load(&admitted);
  test_deadline_in(&dl, RUN_DEADLINE_S * 1000L);
  pthread_mutex_lock(&fin_lock);
  while (atomic_load(&finished) < (int)nthreads && !atomic_load(&stop)) {
    if (pthread_cond_timedwait(&fin_cond, &fin_lock, &dl) != ETIMEDOUT)
      continue;
    if (atomic_load(&admitted) != seen) {
      seen = atomic_load(&admitted);
      test_deadline_in(&dl, RUN_DEADLINE_S * 1000L);
      continue;
    }
    fprintf(stderr, "FAIL: %d of %u threads finished, no admission for %d s (deadlock)\n",
            atomic_load(&finished), nthreads, RUN_DEADLINE_S);
    if (expect_violation) {
      fprintf(stderr, "ok: the broken table was caught (run could not finish)\n");
      _exit(0);
    }
    _exit(1);
  }
  pthread_mutex_unlock(&fin_lock);
  if (atomic_load(&stop)) {
    /* Some threads may sit in a blocked admission of a corrupted
     * scheduler: report now rather than wait for their deadlines. */
    printf("model %s: stopped at the first violation after %llu admissions\n", tab->model_name,
           (unsigned long long)atomic_load(&admitted));
    if (expect_violation)
      printf("ok: the checker caught the broken table\n");
    fflush(stdout);
    _exit(expect_violation ? 0 : 1);
  }
  for (uint32_t i = 0; i < nthreads; i++)
    pthread_join(w[i].th, NULL);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (!atomic_load(&stop))
    check_end();
  double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  printf(
      "model %s: %u threads, %llu admissions (%llu through the blocking call), %llu completions, "
      "%llu try-refusals, final state %u, %.2f s, %d violations\n",
      tab->model_name, nthreads, (unsigned long long)admitted, (unsigned long long)waited,
      (unsigned long long)completed, (unsigned long long)tried_refused, cs_sched_state(sched), secs,
      atomic_load(&violations));
  if (expect_violation) {
    rc = atomic_load(&violations) > 0 ? 0 : 1;
    if (rc)
      fprintf(stderr, "FAIL: the broken table ran without the checker noticing\n");
    else
      printf("ok: the checker caught the broken table\n");
    /* Tickets may still be held by stopped threads: the scheduler stays. */
    goto out;
  }
  if (atomic_load(&violations) == 0 && atomic_load(&admitted) >= target)
    rc = 0;
  if (cs_sched_destroy(sched) != 0) {
    fprintf(stderr, "FAIL: scheduler busy at the end\n");
    rc = 1;
  }
  sched = NULL;
out:
  for (uint32_t t = 0; t < tab->n_transitions; t++)
    free(effect[t]);
  free(effect);
  free(fired);
  free(owner);
  free(progress_steps);
  return rc;
}
