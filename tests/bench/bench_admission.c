/* bench_admission: admission latency of cs_runtime against a POSIX
 * semaphore doing the same slot counting, in one run (docs/performance.md).
 *
 *   bench_admission [PAIRS_PER_THREAD [REPEATS]]
 *
 * The scheduler admits `admit_interactive_v8` / completes it on the
 * generated default model (6 slots: the interactive lane's width, below
 * v8's 10) when the build has it, else `admit_v8` on a one-place table of
 * 10 slots built here; the semaphore starts at 10 and does sem_wait /
 * sem_post. Each configuration runs REPEATS times; the median ns per
 * admit+complete pair is reported (per thread: with 2 threads, both run
 * the loop at once on the same scheduler / semaphore). Not a test: no
 * threshold is checked here; the numbers go to docs/performance.md. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commander.h"

#ifdef HAVE_MODEL_DEFAULT
extern const struct cs_model_table cs_model_default;
#endif

#define NSLOTS 10
#ifndef HAVE_MODEL_DEFAULT
/* Fallback table: pending (source) + slots(10) -> busy; busy -> slots.
 * 11 states: state k has k slots taken. */
static const char *const fb_places[] = { "pending", "v8_slots", "executing_v8", "completed" };
static const uint8_t fb_roles[] = { CS_PLACE_SOURCE, CS_PLACE_TRACKED, CS_PLACE_TRACKED,
                                    CS_PLACE_SINK };
static const int64_t fb_caps[] = { -1, NSLOTS, -1, -1 };
static const int64_t fb_init[] = { 0, NSLOTS, 0, 0 };
static const char *const fb_trans[] = { "admit_v8", "complete_v8" };
static const uint8_t fb_kinds[] = { CS_TRANSITION_ADMISSION, CS_TRANSITION_PROGRESS };
static const int32_t fb_compl[] = { 1, -1 };
static const uint32_t fb_pre_start[] = { 0, 2, 3 };
static const struct cs_model_arc fb_pre[] = { { 0, 1 }, { 1, 1 }, { 2, 1 } };
static const uint32_t fb_post_start[] = { 0, 1, 3 };
static const struct cs_model_arc fb_post[] = { { 2, 1 }, { 1, 1 }, { 3, 1 } };
static const uint32_t fb_tracked[] = { 1, 2 };
static uint32_t fb_markings[(NSLOTS + 1) * 2];
static int32_t fb_next[(NSLOTS + 1) * 2];
static struct cs_model_table fallback = { .version = CS_MODEL_TABLE_VERSION,
                                          .model_name = "bench_slots",
                                          .source_path = "tests/bench/bench_admission.c",
                                          .n_places = 4,
                                          .place_names = fb_places,
                                          .place_roles = fb_roles,
                                          .place_capacities = fb_caps,
                                          .place_initial = fb_init,
                                          .n_transitions = 2,
                                          .transition_names = fb_trans,
                                          .transition_kinds = fb_kinds,
                                          .transition_completion = fb_compl,
                                          .pre_start = fb_pre_start,
                                          .pre_arcs = fb_pre,
                                          .post_start = fb_post_start,
                                          .post_arcs = fb_post,
                                          .n_states = NSLOTS + 1,
                                          .n_tracked = 2,
                                          .tracked_places = fb_tracked,
                                          .markings = fb_markings,
                                          .next_state = fb_next,
                                          .initial_state = 0 };
#endif

static const struct cs_model_table *bench_table(void)
{
#ifdef HAVE_MODEL_DEFAULT
  return &cs_model_default;
#else
  for (int k = 0; k <= NSLOTS; k++) {
    fb_markings[2 * k] = (uint32_t)(NSLOTS - k);
    fb_markings[2 * k + 1] = (uint32_t)k;
    fb_next[2 * k] = k < NSLOTS ? k + 1 : CS_DISABLED;
    fb_next[2 * k + 1] = k > 0 ? k - 1 : CS_DISABLED;
  }
  return &fallback;
#endif
}

enum kind { K_SCHED, K_SEM };

struct run {
  enum kind kind;
  struct cs_sched *s;
  sem_t *sem;
  uint32_t adm;
  long pairs;
  pthread_barrier_t *start;
  double ns;     /* wall clock per pair */
  double cpu_ns; /* this thread's CPU time per pair */
  int err;
};

static double clock_ns(clockid_t c)
{
  struct timespec t;
  clock_gettime(c, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void *loop(void *p)
{
  struct run *r = p;
  struct cs_ticket tk;
  pthread_barrier_wait(r->start);
  double t0 = clock_ns(CLOCK_MONOTONIC), c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  if (r->kind == K_SCHED) {
    for (long i = 0; i < r->pairs; i++)
      if (cs_admit(r->s, r->adm, &tk) != 0 || cs_complete(r->s, &tk) != 0) {
        r->err = 1;
        break;
      }
  } else {
    for (long i = 0; i < r->pairs; i++)
      if (sem_wait(r->sem) != 0 || sem_post(r->sem) != 0) {
        r->err = 1;
        break;
      }
  }
  r->cpu_ns = (clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / (double)r->pairs;
  r->ns = (clock_ns(CLOCK_MONOTONIC) - t0) / (double)r->pairs;
  return NULL;
}

static int cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* One run of one configuration: mean ns per pair per thread, wall clock
 * and thread CPU time (*cpu). */
static double run_once(enum kind kind, int threads, long pairs, struct cs_sched *s, uint32_t adm,
                       double *cpu)
{
  sem_t sem;
  pthread_barrier_t b;
  pthread_t th[2];
  struct run r[2];
  double sum = 0, csum = 0;
  sem_init(&sem, 0, NSLOTS);
  pthread_barrier_init(&b, NULL, (unsigned)threads);
  for (int i = 0; i < threads; i++) {
    r[i] = (struct run){ kind, s, &sem, adm, pairs, &b, 0, 0, 0 };
    pthread_create(&th[i], NULL, loop, &r[i]);
  }
  for (int i = 0; i < threads; i++) {
    pthread_join(th[i], NULL);
    if (r[i].err) {
      fprintf(stderr, "bench_admission: an admission failed\n");
      exit(1);
    }
    sum += r[i].ns;
    csum += r[i].cpu_ns;
  }
  *cpu = csum / threads;
  pthread_barrier_destroy(&b);
  sem_destroy(&sem);
  return sum / threads;
}

int main(int argc, char **argv)
{
  long pairs = argc > 1 ? atol(argv[1]) : 5000000;
  int repeats = argc > 2 ? atoi(argv[2]) : 5;
  const struct cs_model_table *t = bench_table();
  struct cs_sched *s = NULL;
  int adm, rc;

  if (pairs <= 0 || repeats <= 0 || repeats > 64)
    return 2;
  rc = cs_sched_create(t, NULL, &s);
  if (rc) {
    fprintf(stderr, "bench_admission: %s\n", cs_strerror(rc));
    return 1;
  }
#ifdef HAVE_MODEL_DEFAULT
  adm = cs_sched_lookup_admission(s, "admit_interactive_v8");
#else
  adm = cs_sched_lookup_admission(s, "admit_v8");
#endif
  if (adm < 0) {
    fprintf(stderr, "bench_admission: model %s has no admission of tier v8\n", t->model_name);
    return 1;
  }
  printf(
      "model %s (%u states), %ld pairs per thread, medians of %d alternating runs: wall clock (thread CPU time)\n",
      t->model_name, t->n_states, pairs, repeats);
  printf(
      "| configuration | cs_admit + cs_complete (ns/pair) | sem_wait + sem_post (ns/pair) | ratio |\n");
  printf("|---|---|---|---|\n");
  /* The two contenders alternate run by run, so a change in the machine's
   * load during the benchmark hits both alike. */
  for (int threads = 1; threads <= 2; threads++) {
    double a[64], b[64], ac[64], bc[64];
    for (int rep = 0; rep < repeats; rep++) {
      a[rep] = run_once(K_SCHED, threads, pairs, s, (uint32_t)adm, &ac[rep]);
      b[rep] = run_once(K_SEM, threads, pairs, s, (uint32_t)adm, &bc[rep]);
    }
    qsort(a, (size_t)repeats, sizeof *a, cmp);
    qsort(b, (size_t)repeats, sizeof *b, cmp);
    qsort(ac, (size_t)repeats, sizeof *ac, cmp);
    qsort(bc, (size_t)repeats, sizeof *bc, cmp);
    int m = repeats / 2;
    printf("| %s | %.1f (cpu %.1f) | %.1f (cpu %.1f) | %.2f (cpu %.2f) |\n",
           threads == 1 ? "1 thread (uncontended)" : "2 threads (same slots)", a[m], ac[m], b[m],
           bc[m], a[m] / b[m], ac[m] / bc[m]);
  }
  rc = cs_sched_destroy(s);
  return rc ? 1 : 0;
}
