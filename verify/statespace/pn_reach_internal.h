/* pn_reach internals shared by the exploration (pn_reach.c), the safe-set
 * fixpoint (pn_safe.c) and the assertion/trace module (pn_trace.c).
 * Not installed; docs/analysis.md describes the encoding. */
#ifndef CS_VERIFY_PN_REACH_INTERNAL_H
#define CS_VERIFY_PN_REACH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pn_analysis.h"

/* A state is at most this many 64-bit words once unpacked: 32 bits per
 * tracked place at worst. */
#define PNR_MAX_WIDTH 32u
/* States expanded together so their memory accesses overlap, and the
 * number of batches in flight in the software pipeline (expand, prefetch
 * keys, insert). */
#define PNR_BATCH 8u
#define PNR_PIPE 3u
/* Pull sweeps (pn_safe.c) look up only one or two successors per state
 * per round, so they batch more states: at most PNR_BATCH_MAX. */
#define PNR_BATCH_MAX 32u
/* States hashed together when the table is rebuilt. */
#define PNR_REBUILD_BATCH 64u
/* Threads of the parallel searches (docs/analysis.md, "Parallel
 * searches"): at most PNR_MAX_THREADS; a forward chunk or a backward
 * frontier smaller than PNR_PAR_MIN states is searched by one thread,
 * because starting threads would cost more than it saves. The forward
 * search hands out PNR_CHUNK parent states per round. */
#define PNR_MAX_THREADS 4u
#define PNR_PAR_MIN 2048u
#define PNR_CHUNK 8192u

/* One thread's buffers for a pipelined search: the state being expanded
 * and PNR_PIPE slots of successors (or predecessors) and their hashes,
 * succ_cap entries per slot. */
struct pnr_scratch {
  uint64_t *state;
  uint64_t *pipe_buf;
  uint64_t *pipe_hash;
};

/* One batch of the pipeline: states [first, first + count), the
 * successors (or predecessors) of state first + i at [start[i], start[i+1])
 * of the slot's buffers. */
struct pnr_batch {
  uint64_t first;
  uint32_t count;
  uint32_t start[PNR_BATCH_MAX + 1];
};

/* One (tracked place, weight) pair of a compiled transition. */
struct pnr_arc {
  uint32_t slot;
  uint32_t weight;
};

/* One field test on a packed state, (word & mask) against bound, both
 * at the field's position: at least bound (enabling) or at most bound (room
 * for an increase); never: the test can never pass in this layout. */
struct pnr_guard {
  uint32_t word;
  bool never;
  uint64_t mask;
  uint64_t bound;
};

/* A transition restricted to the tracked places: environment arcs vanish
 * because a source always has enough tokens and a sink is not tracked. */
struct pnr_trans {
  struct pnr_arc *pre;
  uint32_t npre;
  struct pnr_arc *post;
  uint32_t npost;
  struct pnr_arc *delta; /* post - pre per slot, weight read as int32 */
  uint32_t ndelta;
  bool admission;
  /* The firing on the packed state, per word: next = state + add - sub.
   * Valid because enabling guarantees no field borrows and the width check
   * guarantees none carries. Recomputed whenever the layout changes. */
  uint64_t *add, *sub;
  /* Per layout too: g_pre[npre] (enabled), g_inc[ninc] (each increased
   * field has room), g_post[npost] (reverse-enabled), g_dec[ndec] (each
   * field decreased by the firing has room when un-fired). */
  struct pnr_guard *g_pre, *g_inc, *g_post, *g_dec;
  uint32_t ninc, ndec;
};

/* Bit layout of one state: every tracked place is a field of width[slot]
 * bits inside word[slot] at shift[slot]. Fields never straddle a word, so
 * decoding is one shift and mask per place; the state occupies `bits` bits
 * of the packed store (the last word's unused high bits are not stored). */
struct pnr_layout {
  uint32_t *width;
  uint32_t *word;
  uint32_t *shift;
  uint64_t *mask;
  uint32_t nwords;
  uint64_t bits;
};

struct pnr_pool;

struct pn_analysis {
  const struct pn_net *net; /* borrowed: must outlive the analysis */
  uint32_t ntracked;
  uint32_t *place_of; /* slot -> net place index */
  int32_t *slot_of;   /* net place index -> slot, -1 for environment places */
  struct pnr_trans *trans;
  uint32_t ntrans;

  struct pnr_layout lay;
  unsigned reencodes;
  /* Per slot: the P-semiflows bound the place and its field holds that
   * bound, so no firing can outgrow it and the firings skip its room
   * tests (docs/analysis.md, "Structural bounds"). */
  bool *fixed;
  uint32_t *sbound; /* per fixed slot: the bound the semiflows prove */

  uint64_t *store; /* nstates * lay.bits bits, plus one spare word */
  size_t store_words;
  size_t store_touched; /* words below this one were written at least once */
  uint64_t nstates;

  /* Open addressing, linear probing. An entry is 0 when empty, else
   * index + 1 in its low idx_bits bits and, above them, the top hash bits
   * of the state as a fingerprint: the table has 2^k slots and fewer than
   * 2^k states, so the high 32 - k bits of a 32-bit entry are free, and the
   * fingerprint skips most mismatches without touching the store. */
  uint32_t *table;
  uint64_t table_mask;
  unsigned idx_bits;

  uint64_t *level_start; /* level_start[k] = first state at distance k */
  uint32_t nlevels;
  size_t level_cap;

  uint64_t *dead;  /* bitset: nothing enabled */
  uint64_t *safe;  /* bitset: in S */
  size_t bits_cap; /* words allocated for dead */

  uint64_t edges;
  uint64_t class_count[4];
  int64_t *bounds; /* per net place, filled once the exploration is over */
  bool visit;      /* pnr_assert_visits: new states are decoded for it */
  struct pn_assert_result *results;
  uint64_t max_states;

  /* Scratch buffers (nwords / ntracked entries) for the single-threaded walk. */
  uint64_t *buf_a, *buf_b;
  uint32_t *tok_a, *tok_b;
  /* Successors (or predecessors) of PNR_PIPE batches of PNR_BATCH states:
   * packed states and hashes, so the table slots can be prefetched
   * together; succ_cap = PNR_BATCH * ntrans + 1 entries per slot. */
  uint32_t *succ_tok;
  uint64_t *succ_buf, *succ_hash;
  size_t succ_cap;

  /* Threads for the parallel searches (1: everything sequential), and
   * the buffers of threads 1.. (thread 0 uses buf_b and succ_*), sized for
   * extra_nwords words per state. */
  unsigned nthreads;
  struct pnr_pool *pool; /* pn_par.c: workers, started on first use */
  struct pnr_scratch extra[PNR_MAX_THREADS - 1];
  uint32_t extra_nwords;
};

void pnr_encode(const struct pn_analysis *a, const uint32_t *tokens, uint64_t *buf);
/* Index of the packed state buf, or -1 when it was never reached. */
int64_t pnr_lookup(const struct pn_analysis *a, const uint64_t *buf);
/* Index of the marking tokens (which may exceed the current widths), or -1. */
int64_t pnr_lookup_tokens(const struct pn_analysis *a, const uint32_t *tokens, uint64_t *scratch);

/* The buffers of pipeline slot slot of sc (see succ_cap). */
static inline uint64_t *pnr_pipe_buf(const struct pn_analysis *a, const struct pnr_scratch *sc,
                                     unsigned slot)
{
  return sc->pipe_buf + (size_t)slot * a->succ_cap * a->lay.nwords;
}
static inline uint64_t *pnr_pipe_hash(const struct pn_analysis *a, const struct pnr_scratch *sc,
                                      unsigned slot)
{
  return sc->pipe_hash + (size_t)slot * a->succ_cap;
}

/* pn_par.c: the thread count from opts (0: PNETC_THREADS from the
 * environment, else the online CPUs), at most PNR_MAX_THREADS. */
unsigned pnr_threads_choose(const struct pn_analysis_opts *opts);
/* Thread i's buffers for the current layout (0: the analysis' own). */
int pnr_scratch_get(struct pn_analysis *a, unsigned i, struct pnr_scratch *out);
void pnr_scratch_free(struct pn_analysis *a);
/* Runs fn(arg + i * size) for i in [0, n): 1.. on the pool's workers, 0
 * in the caller; returns once all are done. A worker that cannot be
 * started runs in the caller instead (slower, same result). */
void pnr_run_threads(struct pn_analysis *a, unsigned n, void *(*fn)(void *), void *arg,
                     size_t size);
/* Hands fn(arg) to worker i (1 <= i < PNR_MAX_THREADS); false when it
 * cannot run or is still busy with another job (the caller then does the
 * work or skips it). pnr_pool_wait
 * returns once that job is done. */
bool pnr_pool_start(struct pn_analysis *a, unsigned i, void *(*fn)(void *), void *arg);
void pnr_pool_wait(struct pn_analysis *a, unsigned i);
/* Stops and joins the workers. */
void pnr_pool_free(struct pn_analysis *a);

/* Firing on the packed state, no decoding: 0 when t is not enabled, 1
 * when dst holds the successor, 2 when an increased count would not fit
 * its field (the caller widens the layout and tries again). */
static inline int pnr_try_fire(const struct pnr_trans *t, const uint64_t *src, uint64_t *dst,
                               uint32_t nw)
{
  for (uint32_t i = 0; i < t->npre; i++)
    if ((src[t->g_pre[i].word] & t->g_pre[i].mask) < t->g_pre[i].bound)
      return 0;
  for (uint32_t i = 0; i < t->ninc; i++)
    if (t->g_inc[i].never || (src[t->g_inc[i].word] & t->g_inc[i].mask) > t->g_inc[i].bound)
      return 2;
  for (uint32_t w = 0; w < nw; w++)
    dst[w] = src[w] + t->add[w] - t->sub[w];
  return 1;
}

/* Reverse firing on the packed state: false when the output places lack
 * the output weights, or when a predecessor count would not fit its field
 * (such a marking was never stored). */
static inline bool pnr_try_unfire(const struct pnr_trans *t, const uint64_t *src, uint64_t *dst,
                                  uint32_t nw)
{
  for (uint32_t i = 0; i < t->npost; i++)
    if ((src[t->g_post[i].word] & t->g_post[i].mask) < t->g_post[i].bound)
      return false;
  for (uint32_t i = 0; i < t->ndec; i++)
    if (t->g_dec[i].never || (src[t->g_dec[i].word] & t->g_dec[i].mask) > t->g_dec[i].bound)
      return false;
  for (uint32_t w = 0; w < nw; w++)
    dst[w] = src[w] - t->add[w] + t->sub[w];
  return true;
}

/* Reverse firing: pred = tokens - post(t) + pre(t); false when tokens < post(t). */
bool pnr_unfire(const struct pnr_trans *t, const uint32_t *tokens, uint32_t *pred, uint32_t n);
/* Forward firing: false when t is not enabled or a count would overflow. */
bool pnr_fire(const struct pnr_trans *t, const uint32_t *tokens, uint32_t *next, uint32_t n);

/* pn_safe.c: computes a->safe and a->class_count. */
int pnr_compute_safe(struct pn_analysis *a);
/* pn_trace.c */
int pnr_level_of(const struct pn_analysis *a, uint64_t s);

/* ---- hot paths, inline in both the forward and the backward search ---- */

static inline uint64_t pnr_mask_bits(uint64_t n)
{
  return n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;
}

static inline uint64_t pnr_read_bits(const uint64_t *store, uint64_t off, uint64_t n)
{
  uint64_t w = off >> 6, sh = off & 63;
  uint64_t v = store[w] >> sh;
  if (sh + n > 64)
    v |= store[w + 1] << (64 - sh);
  return v & pnr_mask_bits(n);
}

static inline void pnr_load(const struct pn_analysis *a, uint64_t s, uint64_t *buf)
{
  uint64_t off = s * a->lay.bits, left = a->lay.bits;
  for (uint32_t i = 0; i < a->lay.nwords; i++) {
    uint64_t n = left < 64 ? left : 64;
    buf[i] = n ? pnr_read_bits(a->store, off, n) : 0;
    off += n;
    left -= n;
  }
}

static inline void pnr_decode(const struct pn_analysis *a, const uint64_t *buf, uint32_t *tokens)
{
  const struct pnr_layout *l = &a->lay;
  for (uint32_t i = 0; i < a->ntracked; i++)
    tokens[i] = (uint32_t)((buf[l->word[i]] >> l->shift[i]) & l->mask[i]);
}

static inline uint64_t pnr_hash(const uint64_t *buf, uint32_t n)
{
  uint64_t h = UINT64_C(0x9e3779b97f4a7c15) ^ n;
  for (uint32_t i = 0; i < n; i++) {
    h ^= buf[i];
    h *= UINT64_C(0xbf58476d1ce4e5b9);
    h ^= h >> 31;
  }
  h *= UINT64_C(0x94d049bb133111eb);
  h ^= h >> 29;
  return h;
}

static inline bool pnr_equal(const struct pn_analysis *a, uint64_t s, const uint64_t *buf)
{
  uint64_t off = s * a->lay.bits, left = a->lay.bits;
  for (uint32_t i = 0; i < a->lay.nwords; i++) {
    uint64_t n = left < 64 ? left : 64;
    if (n && pnr_read_bits(a->store, off, n) != buf[i])
      return false;
    off += n;
    left -= n;
  }
  return true;
}

static inline uint32_t pnr_fingerprint(const struct pn_analysis *a, uint64_t h)
{
  unsigned fbits = 32 - a->idx_bits;
  return fbits ? (uint32_t)(h >> (64 - fbits)) : 0;
}

/* Slot holding buf (hash h), or the empty slot where it belongs; *found
 * tells which, *index gives the state. */
static inline uint64_t pnr_probe(const struct pn_analysis *a, const uint64_t *buf, uint64_t h,
                                 bool *found, uint64_t *index)
{
  uint64_t i = h & a->table_mask;
  uint32_t fp = pnr_fingerprint(a, h);
  uint64_t imask = pnr_mask_bits(a->idx_bits);
  for (;;) {
    uint32_t e = a->table[i];
    if (!e) {
      *found = false;
      return i;
    }
    if ((uint32_t)((uint64_t)e >> a->idx_bits) == fp && pnr_equal(a, (e & imask) - 1, buf)) {
      *found = true;
      *index = (e & imask) - 1;
      return i;
    }
    i = (i + 1) & a->table_mask;
  }
}

/* Prefetches the stored state behind the first fingerprint match of each
 * hash's slot (the slot itself was prefetched a stage earlier). Inline:
 * the forward search calls it once per successor. */
static inline void pnr_prefetch_keys(const struct pn_analysis *a, const uint64_t *hash, uint32_t n)
{
  uint64_t imask = pnr_mask_bits(a->idx_bits);
  for (uint32_t k = 0; k < n; k++) {
    uint64_t h = hash[k];
    uint32_t e = a->table[h & a->table_mask];
    if (e && (uint32_t)((uint64_t)e >> a->idx_bits) == pnr_fingerprint(a, h))
      __builtin_prefetch(&a->store[(((e & imask) - 1) * a->lay.bits) >> 6]);
  }
}

static inline uint64_t pnr_state_hash(const struct pn_analysis *a, const uint64_t *buf)
{
  return pnr_hash(buf, a->lay.nwords);
}

static inline void pnr_prefetch(const struct pn_analysis *a, uint64_t h)
{
  __builtin_prefetch(&a->table[h & a->table_mask]);
}

static inline int64_t pnr_lookup_hashed(const struct pn_analysis *a, const uint64_t *buf,
                                        uint64_t h)
{
  bool found;
  uint64_t s = 0;
  pnr_probe(a, buf, h, &found, &s);
  return found ? (int64_t)s : -1;
}

/* Bits set in x. Without -mpopcnt (the build targets any x86-64) the
 * builtin is a libgcc call; this inlines to a dozen instructions, which
 * matters for the bitset counts between backward levels (serial). */
static inline unsigned pnr_popcount64(uint64_t x)
{
  x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
  x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
  x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
  return (unsigned)((x * UINT64_C(0x0101010101010101)) >> 56);
}

static inline bool pnr_bit(const uint64_t *set, uint64_t i)
{
  return (set[i >> 6] >> (i & 63)) & 1u;
}
static inline void pnr_set(uint64_t *set, uint64_t i)
{
  set[i >> 6] |= UINT64_C(1) << (i & 63);
}
static inline void pnr_clear(uint64_t *set, uint64_t i)
{
  set[i >> 6] &= ~(UINT64_C(1) << (i & 63));
}
/* Bitset updates safe while other threads update the same words: sets
 * (clears) bit i, true when this call changed it. The plain load first
 * skips the locked instruction when the bit is already as wanted, which
 * is the common case. */
static inline bool pnr_set_atomic(uint64_t *set, uint64_t i)
{
  uint64_t m = UINT64_C(1) << (i & 63);
  if (__atomic_load_n(&set[i >> 6], __ATOMIC_RELAXED) & m)
    return false;
  return !(__atomic_fetch_or(&set[i >> 6], m, __ATOMIC_RELAXED) & m);
}
static inline bool pnr_clear_atomic(uint64_t *set, uint64_t i)
{
  uint64_t m = UINT64_C(1) << (i & 63);
  if (!(__atomic_load_n(&set[i >> 6], __ATOMIC_RELAXED) & m))
    return false;
  return (__atomic_fetch_and(&set[i >> 6], ~m, __ATOMIC_RELAXED) & m) != 0;
}

#endif
