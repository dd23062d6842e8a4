/* pn_par: threads for the parallel searches (docs/analysis.md, "Parallel
 * searches").
 *
 * Why threads are started per round instead of kept in a pool: a round
 * (a forward chunk of PNR_CHUNK states, a backward frontier) takes
 * milliseconds, a thread start tens of microseconds, and a thread that
 * exits with its round cannot be left waiting on a lock when the analysis
 * fails half-way. The rounds only read the shared store and table and
 * write disjoint outputs (or bitsets through atomic operations), so no
 * lock is needed. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "pn_reach_internal.h"

unsigned pnr_threads_choose(const struct pn_analysis_opts *opts) {
  long n = opts ? (long)opts->threads : 0;
  if (n == 0) {
    /* A knob for benchmarks and tests (single-thread figures); anything
     * that is not a plain positive number is ignored. */
    const char *env = getenv("PNETC_THREADS");
    if (env && *env) {
      char *end;
      long v = strtol(env, &end, 10);
      if (!*end && v > 0) n = v;
    }
  }
  if (n == 0) n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) n = 1;
  if (n > (long)PNR_MAX_THREADS) n = PNR_MAX_THREADS;
  return (unsigned)n;
}

int pnr_scratch_get(struct pn_analysis *a, unsigned i, struct pnr_scratch *out) {
  if (i == 0) {
    *out = (struct pnr_scratch){a->buf_b, a->succ_buf, a->succ_hash};
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
      a->extra[k] = (struct pnr_scratch){0};
    }
    a->extra_nwords = nw;
  }
  if (!sc->state) {
    sc->state = calloc(nw, sizeof *sc->state);
    sc->pipe_buf = calloc(PNR_PIPE * a->succ_cap * nw, sizeof *sc->pipe_buf);
    sc->pipe_hash = calloc(PNR_PIPE * a->succ_cap, sizeof *sc->pipe_hash);
    if (!sc->state || !sc->pipe_buf || !sc->pipe_hash) return -ENOMEM;
  }
  *out = *sc;
  return 0;
}

void pnr_scratch_free(struct pn_analysis *a) {
  for (unsigned k = 0; k < PNR_MAX_THREADS - 1; k++) {
    free(a->extra[k].state);
    free(a->extra[k].pipe_buf);
    free(a->extra[k].pipe_hash);
    a->extra[k] = (struct pnr_scratch){0};
  }
}

void pnr_run_threads(unsigned n, void *(*fn)(void *), void *arg, size_t size) {
  pthread_t tid[PNR_MAX_THREADS];
  bool started[PNR_MAX_THREADS] = {false};
  char *base = arg;
  for (unsigned i = 1; i < n && i < PNR_MAX_THREADS; i++)
    started[i] = pthread_create(&tid[i], NULL, fn, base + (size_t)i * size) == 0;
  fn(base);
  for (unsigned i = 1; i < n && i < PNR_MAX_THREADS; i++) {
    if (started[i]) pthread_join(tid[i], NULL);
    else fn(base + (size_t)i * size); /* could not start: same work, here */
  }
}
