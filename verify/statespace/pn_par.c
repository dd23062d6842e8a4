/* pn_par: threads for the parallel searches (docs/analysis.md, "Parallel
 * searches").
 *
 * Why a pool of workers kept for the whole analysis: a round (a forward
 * chunk of PNR_CHUNK states, a backward level) takes about a millisecond
 * and Kanban N=5 runs about 700 of them; starting a thread per round cost
 * tens of microseconds each, in system time, and a fresh thread starts
 * with cold caches. A worker waits for its next job on a condition
 * variable after a short spin (the next round usually follows within
 * microseconds). The rounds only read the shared store and table and
 * write disjoint outputs (or bitsets through atomic operations), so the
 * jobs need no lock; the pool's own lock only hands jobs over. Workers
 * hold nothing between jobs, so an analysis that fails half-way just
 * stops them in pn_analysis_free. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "pn_reach_internal.h"

unsigned pnr_threads_choose(const struct pn_analysis_opts *opts)
{
  long n = opts ? (long)opts->threads : 0;
  if (n == 0) {
    /* A knob for benchmarks and tests (single-thread figures); anything
     * that is not a plain positive number is ignored. */
    const char *env = getenv("PNETC_THREADS");
    if (env && *env) {
      char *end;
      long v = strtol(env, &end, 10);
      if (!*end && v > 0)
        n = v;
    }
  }
  if (n == 0)
    n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1)
    n = 1;
  if (n > (long)PNR_MAX_THREADS)
    n = PNR_MAX_THREADS;
  return (unsigned)n;
}

int pnr_scratch_get(struct pn_analysis *a, unsigned i, struct pnr_scratch *out)
{
  if (i == 0) {
    *out = (struct pnr_scratch){ a->buf_b, a->succ_buf, a->succ_hash };
    return 0;
  }
  struct pnr_scratch *sc = &a->extra[i - 1];
  uint32_t nw = a->lay.nwords;
  if (a->extra_nwords != nw) {
    /* The layout got wider since the last round: every thread's buffers
     * are resized before any is used again. */
    for (unsigned k = 0; k < PNR_MAX_THREADS - 1; k++) {
      free(a->extra[k].state);
      free(a->extra[k].pipe_buf);
      free(a->extra[k].pipe_hash);
      a->extra[k] = (struct pnr_scratch){ 0 };
    }
    a->extra_nwords = nw;
  }
  if (!sc->state) {
    sc->state = calloc(nw, sizeof *sc->state);
    sc->pipe_buf = calloc(PNR_PIPE * a->succ_cap * nw, sizeof *sc->pipe_buf);
    sc->pipe_hash = calloc(PNR_PIPE * a->succ_cap, sizeof *sc->pipe_hash);
    if (!sc->state || !sc->pipe_buf || !sc->pipe_hash)
      return -ENOMEM;
  }
  *out = *sc;
  return 0;
}

void pnr_scratch_free(struct pn_analysis *a)
{
  for (unsigned k = 0; k < PNR_MAX_THREADS - 1; k++) {
    free(a->extra[k].state);
    free(a->extra[k].pipe_buf);
    free(a->extra[k].pipe_hash);
    a->extra[k] = (struct pnr_scratch){ 0 };
  }
}

/* One worker: jobs are numbered; job counts those handed over, done
 * those finished (both written under mu, read atomically while spinning). */
struct pnr_worker {
  pthread_t tid;
  bool running;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  void *(*fn)(void *);
  void *arg;
  unsigned job, done;
  bool quit;
};

struct pnr_pool {
  struct pnr_worker w[PNR_MAX_THREADS]; /* w[0]: the caller, unused */
};

/* Spins before sleeping: a few microseconds (a pause is 10-140 cycles,
 * depending on the processor). */
#define PNR_SPIN 2048u

static void pnr_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

static void *pnr_worker_main(void *arg)
{
  struct pnr_worker *w = arg;
  unsigned seen = 0;
  for (;;) {
    for (unsigned i = 0; i < PNR_SPIN && __atomic_load_n(&w->job, __ATOMIC_ACQUIRE) == seen &&
                         !__atomic_load_n(&w->quit, __ATOMIC_RELAXED);
         i++)
      pnr_pause();
    pthread_mutex_lock(&w->mu);
    while (w->job == seen && !w->quit)
      pthread_cond_wait(&w->cv, &w->mu);
    if (w->quit) {
      pthread_mutex_unlock(&w->mu);
      return NULL;
    }
    void *(*fn)(void *) = w->fn;
    void *job_arg = w->arg;
    seen = w->job;
    pthread_mutex_unlock(&w->mu);
    fn(job_arg);
    pthread_mutex_lock(&w->mu);
    __atomic_store_n(&w->done, seen, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
  }
}

/* Starts worker i if needed; false when it cannot run. */
static bool pnr_worker_ready(struct pn_analysis *a, unsigned i)
{
  if (!a->pool) {
    a->pool = calloc(1, sizeof *a->pool);
    if (!a->pool)
      return false;
  }
  struct pnr_worker *w = &a->pool->w[i];
  if (w->running)
    return true;
  if (pthread_mutex_init(&w->mu, NULL))
    return false;
  if (pthread_cond_init(&w->cv, NULL)) {
    pthread_mutex_destroy(&w->mu);
    return false;
  }
  if (pthread_create(&w->tid, NULL, pnr_worker_main, w)) {
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    return false;
  }
  w->running = true;
  return true;
}

bool pnr_pool_start(struct pn_analysis *a, unsigned i, void *(*fn)(void *), void *arg)
{
  if (i == 0 || i >= PNR_MAX_THREADS || !pnr_worker_ready(a, i))
    return false;
  struct pnr_worker *w = &a->pool->w[i];
  pthread_mutex_lock(&w->mu);
  if (w->done != w->job) {
    /* Still busy (a table rebuild during phase 2 while this worker
     * expands the next chunk): one job at a time, the caller does this
     * one itself. */
    pthread_mutex_unlock(&w->mu);
    return false;
  }
  w->fn = fn;
  w->arg = arg;
  __atomic_store_n(&w->job, w->job + 1, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&w->cv);
  pthread_mutex_unlock(&w->mu);
  return true;
}

void pnr_pool_wait(struct pn_analysis *a, unsigned i)
{
  struct pnr_worker *w = &a->pool->w[i];
  unsigned job = w->job; /* only this thread writes it */
  for (unsigned k = 0; k < PNR_SPIN && __atomic_load_n(&w->done, __ATOMIC_ACQUIRE) != job; k++)
    pnr_pause();
  pthread_mutex_lock(&w->mu);
  while (w->done != job)
    pthread_cond_wait(&w->cv, &w->mu);
  pthread_mutex_unlock(&w->mu);
}

void pnr_pool_free(struct pn_analysis *a)
{
  if (!a->pool)
    return;
  for (unsigned i = 1; i < PNR_MAX_THREADS; i++) {
    struct pnr_worker *w = &a->pool->w[i];
    if (!w->running)
      continue;
    pthread_mutex_lock(&w->mu);
    __atomic_store_n(&w->quit, true, __ATOMIC_RELAXED);
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->tid, NULL);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
  }
  free(a->pool);
  a->pool = NULL;
}

void pnr_run_threads(struct pn_analysis *a, unsigned n, void *(*fn)(void *), void *arg, size_t size)
{
  bool started[PNR_MAX_THREADS] = { false };
  char *base = arg;
  for (unsigned i = 1; i < n && i < PNR_MAX_THREADS; i++)
    started[i] = pnr_pool_start(a, i, fn, base + (size_t)i * size);
  fn(base);
  for (unsigned i = 1; i < n && i < PNR_MAX_THREADS; i++) {
    if (started[i])
      pnr_pool_wait(a, i);
    else
      fn(base + (size_t)i * size); /* could not start: same work, here */
  }
}
