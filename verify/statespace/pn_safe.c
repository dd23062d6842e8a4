/* pn_safe: the safe set S and the classification of every marking.
 *
 * S is the greatest set of reachable markings such that from every marking
 * in S the initial marking can be reached without leaving S, and no progress
 * step leads out of S (docs/analysis.md, "Classes"). It is what the most
 * permissive supervisor that may only refuse admissions can keep the net in
 * while guaranteeing that work can always drain back to the initial marking.
 *
 * Computed as a greatest fixpoint, alternating two shrinking steps until
 * neither removes anything:
 *   1. keep only the markings that reach m0 inside X (backward search from
 *      m0 over reverse firings);
 *   2. remove, transitively, every marking with a progress step into a
 *      removed marking (backward over reverse progress firings).
 * Predecessors are recomputed by firing transitions in reverse and looking
 * the result up in the state table, so no edge list is ever stored; each
 * search keeps its frontier as a bitset (one bit per state) instead of a
 * queue of 32-bit numbers. */
#include <errno.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "pn_reach_internal.h"

struct pnr_bitsets {
  uint64_t *x, *v, *f, *n;
  size_t words;
};

/* Frontier words handed out at a time to the threads of a backward
 * level: small enough that a thread the scheduler delays holds up little,
 * large enough that taking one is rare. */
#define PNR_BACK_BLOCK 256u
/* See pnr_pull and pnr_compute_safe. */
#define PNR_PULL_RATIO 40u
/* A pull computes the successors of an unmarked state a few at a time:
 * PNR_PULL_FIRST, then PNR_PULL_MORE per retry (see pnr_pull_resolve). */
#define PNR_PULL_FIRST 1u
#define PNR_PULL_MORE 2u
/* States waiting for their next successors; at most one per state in
 * flight, and at most PNR_PIPE * PNR_BATCH_MAX states are in flight. */
#define PNR_RETRY_CAP 128u
/* States a pull thread examines before it judges its sweep (it gives up
 * while it has marked fewer than 1 in 16), and the block counter of a
 * sweep given up. */
#define PNR_PULL_PROBE 16384u
#define PNR_ABORTED (SIZE_MAX / 2)
_Static_assert(PNR_RETRY_CAP >= PNR_PIPE * PNR_BATCH_MAX, "a retry for every state in flight");

/* A state of a pipeline batch and, for a pull, the transition to try
 * next: from before expansion, next after it. */
struct pnr_back_state {
  uint64_t s;
  uint32_t from, next;
};

/* One thread of a backward level. */
struct pnr_back_work {
  struct pn_analysis *a;
  struct pnr_bitsets *bs;
  struct pnr_scratch sc;
  bool progress_only;
  bool x_full; /* X is every state: no need to read it */
  bool pull;   /* pnr_pull: the unmarked states of X look forward */
  uint64_t *v;
  size_t *next_block; /* shared, atomic */
  bool any;
  uint64_t newly;            /* push: states this thread put in the next frontier */
  uint64_t examined, marked; /* pull: states looked at, states marked */
  /* Pull: states whose successors so far were not marked, FIFO. */
  struct pnr_back_state retry[PNR_RETRY_CAP];
  uint32_t retry_head, nretry;
};

/* Predecessors of the frontier states in batch b, into pipeline slot
 * slot, with their table slots prefetched; with w->pull, the next few
 * successors of the unmarked states instead. Every successor of a stored
 * state is stored and fits the layout, so a firing that would not fit
 * (pnr_try_fire returns 2) cannot happen; it is skipped all the same. */
static void pnr_backward_expand(const struct pnr_back_work *w, struct pnr_batch *b,
                                struct pnr_back_state *states, unsigned slot)
{
  const struct pn_analysis *a = w->a;
  const struct pnr_scratch *sc = &w->sc;
  uint32_t nw = a->lay.nwords, np = 0;
  uint64_t *buf = pnr_pipe_buf(a, sc, slot), *hash = pnr_pipe_hash(a, sc, slot);
  for (uint32_t i = 0; i < b->count; i++) {
    b->start[i] = np;
    pnr_load(a, states[i].s, sc->state);
    if (w->pull) {
      /* Only the first few: most unmarked states have a marked successor
       * among them, and the successors a pull does not look up would cost
       * a firing, a hash and two prefetches each for nothing (on Kanban
       * N=5, 13.5 million computed for 4.9 million looked up). */
      uint32_t t = states[i].from, got = 0, lim = t ? PNR_PULL_MORE : PNR_PULL_FIRST;
      for (; t < a->ntrans && got < lim; t++) {
        uint64_t *pb = buf + (size_t)np * nw;
        if (pnr_try_fire(&a->trans[t], sc->state, pb, nw) != 1)
          continue;
        hash[np] = pnr_state_hash(a, pb);
        pnr_prefetch(a, hash[np]);
        np++;
        got++;
      }
      states[i].next = t;
      continue;
    }
    for (uint32_t t = 0; t < a->ntrans; t++) {
      const struct pnr_trans *tr = &a->trans[t];
      uint64_t *pb = buf + (size_t)np * nw;
      {
        if (w->progress_only && tr->admission)
          continue;
        if (!pnr_try_unfire(tr, sc->state, pb, nw))
          continue;
      }
      hash[np] = pnr_state_hash(a, pb);
      pnr_prefetch(a, hash[np]);
      np++;
    }
  }
  b->start[b->count] = np;
}

/* Looks the predecessors of slot up and applies the step to them. The
 * bitsets are shared with the other threads of the level: every update
 * is atomic, and a state is taken by exactly one of them. */
static bool pnr_backward_resolve(struct pnr_back_work *w, const struct pnr_batch *b, unsigned slot)
{
  struct pn_analysis *a = w->a;
  struct pnr_bitsets *bs = w->bs;
  bool any = false;
  uint32_t nw = a->lay.nwords;
  const uint64_t *buf = pnr_pipe_buf(a, &w->sc, slot), *hash = pnr_pipe_hash(a, &w->sc, slot);
  for (uint32_t k = 0; k < b->start[b->count]; k++) {
    int64_t p = pnr_lookup_hashed(a, buf + (size_t)k * nw, hash[k]);
    if (p < 0)
      continue;
    if (w->v == bs->x) {
      /* Closure step: remove p from X. */
      if (!pnr_clear_atomic(bs->x, (uint64_t)p))
        continue;
    } else {
      /* Reachability step: p must be in X (not written in this step) and
       * not yet seen. */
      if ((!w->x_full && !pnr_bit(bs->x, (uint64_t)p)) || !pnr_set_atomic(w->v, (uint64_t)p))
        continue;
    }
    pnr_set_atomic(bs->n, (uint64_t)p);
    w->newly++;
    any = true;
  }
  return any;
}

/* Marks each state of batch b that has a marked successor, looking its
 * successors up in order and stopping at the first marked one: that early
 * stop is what makes pulling cheaper than pushing once most states are
 * marked. A state marked here joins the frontier f, so that a later push
 * level still visits its predecessors. A state whose successors so far
 * are unmarked and that has transitions left to try goes back in the
 * retry queue for its next ones. */
static bool pnr_pull_resolve(struct pnr_back_work *w, const struct pnr_batch *b,
                             const struct pnr_back_state *states, unsigned slot)
{
  struct pn_analysis *a = w->a;
  bool any = false;
  uint32_t nw = a->lay.nwords;
  const uint64_t *buf = pnr_pipe_buf(a, &w->sc, slot), *hash = pnr_pipe_hash(a, &w->sc, slot);
  for (uint32_t i = 0; i < b->count; i++) {
    bool hit = false;
    for (uint32_t k = b->start[i]; k < b->start[i + 1]; k++) {
      int64_t q = pnr_lookup_hashed(a, buf + (size_t)k * nw, hash[k]);
      /* v is being marked by the other threads: an atomic read. */
      if (q < 0 || !((__atomic_load_n(&w->v[(uint64_t)q >> 6], __ATOMIC_RELAXED) >> (q & 63)) & 1))
        continue;
      if (pnr_set_atomic(w->v, states[i].s)) {
        pnr_set_atomic(w->bs->f, states[i].s);
        w->marked++;
        any = true;
      }
      hit = true;
      break;
    }
    if (!hit && states[i].next < a->ntrans) {
      w->retry[(w->retry_head + w->nretry++) % PNR_RETRY_CAP] =
          (struct pnr_back_state){ states[i].s, states[i].next, 0 };
      continue;
    }
    w->examined++;
  }
  /* A sweep that marks few of the first states it examines is mostly
   * looking at states that cannot be marked yet: stop it early (no thread
   * takes another block) and push on. The first states of a sweep are the
   * last ones numbered, which are marked least often, hence the low bar:
   * on Kanban N=5 a sweep that went on to mark 82 % of the states had
   * marked 8.6 % of its first 16 384, one given up later 1.5 %. */
  if (w->examined >= PNR_PULL_PROBE && w->marked * 16 < w->examined)
    __atomic_store_n(w->next_block, PNR_ABORTED, __ATOMIC_RELAXED);
  return any;
}

/* The states a thread gathers from word wi: the frontier (push), or the
 * unmarked states of X (pull; v is read as it is being updated, so a state
 * marked earlier in the same sweep already counts). */
static uint64_t pnr_gather_word(const struct pnr_back_work *w, size_t wi)
{
  if (!w->pull)
    return w->bs->f[wi];
  uint64_t bits = ~__atomic_load_n(&w->v[wi], __ATOMIC_RELAXED);
  if (!w->x_full)
    bits &= w->bs->x[wi];
  uint64_t n = w->a->nstates;
  if (wi == n / 64)
    bits &= (UINT64_C(1) << (n % 64)) - 1;
  return bits;
}

/* Frontier blocks of one backward level, taken until none is left,
 * batched and pipelined like the forward search. */
static void *pnr_backward_run(void *arg)
{
  struct pnr_back_work *w = arg;
  struct pn_analysis *a = w->a;
  size_t words = w->bs->words;
  struct pnr_batch ring[PNR_PIPE];
  struct pnr_back_state states[PNR_PIPE][PNR_BATCH_MAX];
  /* A pull batch's successors must fit a pipeline slot (succ_cap). */
  uint32_t batch = PNR_BATCH;
  if (w->pull) {
    size_t fit = a->succ_cap / (PNR_PULL_FIRST > PNR_PULL_MORE ? PNR_PULL_FIRST : PNR_PULL_MORE);
    batch = fit < 1 ? 1 : fit < PNR_BATCH_MAX ? (uint32_t)fit : PNR_BATCH_MAX;
  }
  unsigned head = 0, npend = 0;
  size_t wi = 0, wend = 0; /* the block [wi, wend) being read */
  bool done = false;
  uint64_t bits = 0;
  for (;;) {
    /* Gather the next batch of frontier states. */
    uint32_t count = 0;
    unsigned slot = (head + npend) % PNR_PIPE;
    while (count < batch) {
      if (w->nretry) {
        states[slot][count++] = w->retry[w->retry_head];
        w->retry_head = (w->retry_head + 1) % PNR_RETRY_CAP;
        w->nretry--;
        continue;
      }
      if (w->pull && __atomic_load_n(w->next_block, __ATOMIC_RELAXED) >= PNR_ABORTED) {
        done = true;
        break;
      }
      if (bits && w->pull) {
        /* Pull sweeps run from the last state down. */
        unsigned b = 63u - (unsigned)__builtin_clzll(bits);
        uint64_t st = (words - 1 - wi) * 64 + b;
        __builtin_prefetch(&a->store[(st * a->lay.bits) >> 6]);
        states[slot][count++] = (struct pnr_back_state){ st, 0, 0 };
        bits &= ~(UINT64_C(1) << b);
        continue;
      }
      if (bits) {
        uint64_t st = wi * 64 + (uint64_t)__builtin_ctzll(bits);
        /* A frontier is a few percent of the states, scattered over the
         * store: fetch the batch's states together rather than miss on
         * each in turn when it is expanded. */
        __builtin_prefetch(&a->store[(st * a->lay.bits) >> 6]);
        states[slot][count++] = (struct pnr_back_state){ st, 0, 0 };
        bits &= bits - 1;
        continue;
      }
      if (++wi >= wend) {
        if (done)
          break;
        wi = __atomic_fetch_add(w->next_block, PNR_BACK_BLOCK, __ATOMIC_RELAXED);
        if (wi >= words) {
          done = true;
          break;
        }
        wend = wi + PNR_BACK_BLOCK < words ? wi + PNR_BACK_BLOCK : words;
      }
      bits = pnr_gather_word(w, w->pull ? words - 1 - wi : wi);
    }
    if (count) {
      ring[slot].count = count;
      pnr_backward_expand(w, &ring[slot], states[slot], slot);
      npend++;
      if (npend >= 2) {
        unsigned prev = (head + npend - 2) % PNR_PIPE;
        pnr_prefetch_keys(a, pnr_pipe_hash(a, &w->sc, prev), ring[prev].start[ring[prev].count]);
      }
      if (npend < PNR_PIPE)
        continue;
    }
    if (!npend)
      break;
    w->any |= w->pull ? pnr_pull_resolve(w, &ring[head], states[head], head)
                      : pnr_backward_resolve(w, &ring[head], head);
    head = (head + 1) % PNR_PIPE;
    npend--;
  }
  return NULL;
}

/* One level of a backward search: for every state of the frontier f,
 * its predecessors (via progress steps only when progress_only) are looked
 * up; with v == x they are removed from X (closure), otherwise those in X
 * are marked in v (reachability). Newly marked states form the next
 * frontier. A large frontier is shared by the threads, block by block;
 * the table and the store are only read and a state is marked once, so
 * the level's result is the same set whichever thread takes a state.
 * Returns 1 when something was marked, 0 when not, or -ENOMEM. */
static int pnr_backward_step(struct pn_analysis *a, struct pnr_bitsets *bs, bool progress_only,
                             bool x_full, uint64_t *v, uint64_t *frontier)
{
  struct pnr_back_work work[PNR_MAX_THREADS];
  size_t next_block = 0;
  unsigned nt = a->nthreads;
  if (*frontier < PNR_PAR_MIN)
    nt = 1;
  memset(bs->n, 0, bs->words * sizeof *bs->n);
  for (unsigned t = 0; t < nt; t++) {
    work[t] = (struct pnr_back_work){ .a = a,
                                      .bs = bs,
                                      .progress_only = progress_only,
                                      .x_full = x_full,
                                      .v = v,
                                      .next_block = &next_block };
    int rc = pnr_scratch_get(a, t, &work[t].sc);
    if (rc)
      return rc;
  }
  pnr_run_threads(a, nt, pnr_backward_run, work, sizeof work[0]);
  bool any = false;
  *frontier = 0;
  for (unsigned t = 0; t < nt; t++) {
    any |= work[t].any;
    *frontier += work[t].newly;
  }
  uint64_t *tmp = bs->f;
  bs->f = bs->n;
  bs->n = tmp;
  return any;
}

static uint64_t pnr_popcount(const uint64_t *set, size_t words)
{
  uint64_t c = 0;
  for (size_t i = 0; i < words; i++)
    c += (uint64_t)pnr_popcount64(set[i]);
  return c;
}

/* Finishes a reachability search (v inside X, frontier f) by pulling
 * instead of pushing: sweeps over the unmarked states of X, each marked
 * when one of its successors is marked. Why: once about half the states
 * are marked, a push level still looks up every predecessor of every
 * frontier state, most of them marked already, while a pull stops at an
 * unmarked state's first marked successor (docs/analysis.md, "Parallel
 * searches"). A sweep that marks nothing proves v closed: v is then the
 * same set the push search ends with, whatever the thread timing. A sweep
 * that marks few of the states it examined means the rest mostly cannot
 * reach m0 (each sweep would look all their successors up again), so the
 * search goes back to pushing from f, which holds the frontier and every
 * state marked here; so does a sweep whose first PNR_PULL_PROBE states per
 * thread were mostly failures (pnr_pull_resolve gives it up half-way
 * rather than pay for a whole sweep that marks little). Returns 0 when v
 * is complete, 1 to push on, or an error; adds the states it marked (all
 * also put in f) to *pulled. */
static int pnr_pull(struct pn_analysis *a, struct pnr_bitsets *bs, bool x_full, uint64_t *v,
                    uint64_t *pulled)
{
  for (;;) {
    struct pnr_back_work work[PNR_MAX_THREADS];
    size_t next_block = 0;
    unsigned nt = a->nthreads;
    for (unsigned t = 0; t < nt; t++) {
      work[t] = (struct pnr_back_work){
        .a = a, .bs = bs, .x_full = x_full, .pull = true, .v = v, .next_block = &next_block
      };
      int rc = pnr_scratch_get(a, t, &work[t].sc);
      if (rc)
        return rc;
    }
    pnr_run_threads(a, nt, pnr_backward_run, work, sizeof work[0]);
    uint64_t examined = 0, marked = 0;
    for (unsigned t = 0; t < nt; t++) {
      examined += work[t].examined;
      marked += work[t].marked;
    }
    *pulled += marked;
    if (next_block >= PNR_ABORTED)
      return 1; /* given up: proves nothing */
    if (!marked)
      return 0;
    if (marked * 4 < examined)
      return 1;
  }
}

enum pn_class pn_analysis_class(const struct pn_analysis *a, uint64_t s)
{
  if (s >= a->nstates)
    return PN_CLASS_DEAD;
  if (pnr_bit(a->dead, s))
    return PN_CLASS_DEAD;
  if (!pnr_bit(a->safe, s))
    return PN_CLASS_UNSAFE;
  for (uint32_t t = 0; t < a->ntrans; t++) {
    if (!a->trans[t].admission)
      continue;
    int64_t next = pn_analysis_successor(a, s, t);
    if (next >= 0 && pnr_bit(a->safe, (uint64_t)next))
      return PN_CLASS_SAFE;
  }
  return PN_CLASS_SATURATED;
}

int pnr_compute_safe(struct pn_analysis *a)
{
  int rc = -ENOMEM;
  struct pnr_bitsets b = { 0 };
  uint32_t n = a->ntracked ? a->ntracked : 1;
  uint32_t *tok = calloc(n, sizeof *tok), *pred = calloc(n, sizeof *pred),
           *next = calloc(n, sizeof *next);
  b.words = (size_t)((a->nstates + 63) / 64);
  b.x = malloc(b.words * sizeof *b.x);
  b.v = calloc(b.words, sizeof *b.v);
  b.f = calloc(b.words, sizeof *b.f);
  b.n = calloc(b.words, sizeof *b.n);
  if (!tok || !pred || !next || !b.x || !b.v || !b.f || !b.n)
    goto out;

  memset(b.x, 0xff, b.words * sizeof *b.x);
  bool x_full = true; /* until the first removal */
  if (a->nstates % 64)
    b.x[b.words - 1] = (UINT64_C(1) << (a->nstates % 64)) - 1;
  for (;;) {
    /* Step 1: V = markings of X that reach m0 inside X. */
    memset(b.v, 0, b.words * sizeof *b.v);
    memset(b.f, 0, b.words * sizeof *b.f);
    if (pnr_bit(b.x, 0)) {
      pnr_set(b.v, 0);
      pnr_set(b.f, 0);
      uint64_t in_x = x_full ? a->nstates : pnr_popcount(b.x, b.words);
      uint64_t ratio = PNR_PULL_RATIO, marked = 1, frontier = 1;
      while ((rc = pnr_backward_step(a, &b, false, x_full, b.v, &frontier)) > 0) {
        marked += frontier;
        /* Pull once the unmarked states are at most ratio times the
         * frontier; after a pull that did not pay, only at half the
         * ratio. Measured in lookups plus half the successors computed
         * (docs/analysis.md, "Push, then pull"), one / two threads:
         * ratio 20 / 40 / 80, Kanban N=5 20.3 / 20.5 / 20.7 and 20.2 /
         * 20.7 / 20.8 million, FMS N=5 7.5 / 6.4 / 6.3 and 9.3 / 6.8 /
         * 7.0 million; ratio 12 without giving sweeps up (the previous
         * rule): Kanban 21.2, FMS 10.3 million. */
        if (in_x - marked > ratio * frontier)
          continue;
        ratio /= 2;
        uint64_t pulled = 0;
        rc = pnr_pull(a, &b, x_full, b.v, &pulled);
        marked += pulled;
        frontier += pulled; /* f: the frontier and every state pulled */
        if (rc <= 0)
          break;
      }
      if (rc < 0)
        goto out;
    }
    /* Removed = X \ V becomes the frontier of the closure. */
    uint64_t removed = 0;
    for (size_t w = 0; w < b.words; w++) {
      b.f[w] = b.x[w] & ~b.v[w];
      removed += pnr_popcount64(b.f[w]);
      b.x[w] = b.v[w];
    }
    if (!removed)
      break;
    /* Step 2: a progress step cannot be refused, so a marking with one into
     * a removed marking must go too, transitively. */
    x_full = false;
    while ((rc = pnr_backward_step(a, &b, true, false, b.x, &removed)) > 0) {
    }
    if (rc < 0)
      goto out;
    rc = -ENOMEM;
  }
  a->safe = b.x;
  b.x = NULL;

  /* Classes. Dead and unsafe come from the bitsets; the rest needs one look
   * at the admissions of each marking in S. */
  uint64_t dead = pnr_popcount(a->dead, b.words), safe = 0, insafe = 0, dead_in_s = 0;
  bool admissions = false;
  for (uint32_t t = 0; t < a->ntrans; t++)
    admissions |= a->trans[t].admission;
  for (size_t w = 0; w < b.words; w++) {
    dead_in_s += (uint64_t)pnr_popcount64(a->dead[w] & a->safe[w]);
    uint64_t bits = a->safe[w] & ~a->dead[w];
    if (!admissions) {
      /* Without admissions every live marking of S is saturated. */
      insafe += (uint64_t)pnr_popcount64(bits);
      continue;
    }
    while (bits) {
      uint64_t s = w * 64 + (uint64_t)__builtin_ctzll(bits);
      bits &= bits - 1;
      insafe++;
      pnr_load(a, s, a->buf_b);
      pnr_decode(a, a->buf_b, tok);
      for (uint32_t t = 0; t < a->ntrans; t++) {
        if (!a->trans[t].admission || !pnr_fire(&a->trans[t], tok, next, a->ntracked))
          continue;
        int64_t q = pnr_lookup_tokens(a, next, a->buf_a);
        if (q >= 0 && pnr_bit(a->safe, (uint64_t)q)) {
          safe++;
          break;
        }
      }
    }
  }
  a->class_count[PN_CLASS_DEAD] = dead;
  a->class_count[PN_CLASS_UNSAFE] =
      a->nstates - dead - (pnr_popcount(a->safe, b.words) - dead_in_s);
  a->class_count[PN_CLASS_SAFE] = safe;
  a->class_count[PN_CLASS_SATURATED] = insafe - safe;
  rc = 0;
out:
  free(tok);
  free(pred);
  free(next);
  free(b.x);
  free(b.v);
  free(b.f);
  free(b.n);
  return rc;
}

uint64_t pn_analysis_safe_set_size(const struct pn_analysis *a)
{
  uint64_t n = 0, states = pn_analysis_states(a);
  for (uint64_t s = 0; s < states; s++)
    n += pn_analysis_in_safe_set(a, s);
  return n;
}

const char *pn_class_name(enum pn_class c)
{
  switch (c) {
  case PN_CLASS_DEAD:
    return "deadlock";
  case PN_CLASS_UNSAFE:
    return "unsafe";
  case PN_CLASS_SATURATED:
    return "saturated";
  case PN_CLASS_SAFE:
    return "safe";
  }
  return "unknown";
}
