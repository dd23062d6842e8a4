/* pn_reach: breadth-first exploration of every reachable marking into a
 * bit-packed state store indexed by an open-addressing hash table of 32-bit
 * state numbers (docs/analysis.md, "State encoding").
 *
 * Why this shape: the analysis must hold millions of markings in a few bytes
 * each, so a state is a run of bits in one big array (no per-state malloc,
 * no pointers), the table stores only state numbers (the key is re-read from
 * the store), and the breadth-first queue is the store itself: states are
 * appended in discovery order, so "the next state to expand" is an index. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "pn_reach_internal.h"
#include "pn_semiflow.h"
#include "pn_trace_internal.h"

/* ---- big arrays ------------------------------------------------------------ */

/* The store and the table are the two big arrays and are read at random:
 * they are mapped directly (zero-filled, grown with mremap without copying,
 * so growth never holds two copies). The table is always filled evenly and
 * is marked for transparent huge pages, because with 4 KiB pages nearly
 * every probe is also a TLB miss; the store is not, because a huge page
 * past its end would be populated whole (up to 2 MiB of slack, measured
 * at 0.7 bytes per state on FMS N=5) for no measurable speed. */
static size_t pnr_page_round(size_t bytes)
{
  return (bytes + 4095) & ~(size_t)4095;
}

#define PNR_HUGE ((size_t)2 << 20)

/* An address range of bytes aligned to 2 MiB (huge pages only back
 * aligned extents), still inaccessible. */
static void *pnr_reserve(size_t bytes)
{
  uint8_t *p =
      mmap(NULL, bytes + PNR_HUGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  uint8_t *al = (uint8_t *)(((uintptr_t)p + PNR_HUGE - 1) & ~(uintptr_t)(PNR_HUGE - 1));
  if (al > p)
    munmap(p, (size_t)(al - p));
  size_t tail = (size_t)(p + bytes + PNR_HUGE - (al + bytes));
  if (tail)
    munmap(al + bytes, tail);
  return al;
}

static void *pnr_map(size_t bytes, bool huge)
{
  bytes = pnr_page_round(bytes);
  void *r = pnr_reserve(bytes);
  if (!r)
    return NULL;
  void *p = mmap(r, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  if (p == MAP_FAILED) {
    munmap(r, bytes);
    return NULL;
  }
  if (huge)
    (void)madvise(p, bytes, MADV_HUGEPAGE); /* a hint: fine if refused */
  return p;
}

static void *pnr_remap(void *old, size_t old_bytes, size_t bytes)
{
  if (!old)
    return pnr_map(bytes, false);
  bytes = pnr_page_round(bytes);
  void *r = pnr_reserve(bytes);
  if (!r)
    return NULL;
  /* Moving the pages (no copy) onto the aligned range keeps them huge. */
  void *p = mremap(old, pnr_page_round(old_bytes), bytes, MREMAP_MAYMOVE | MREMAP_FIXED, r);
  if (p == MAP_FAILED) {
    munmap(r, bytes);
    return NULL;
  }
  return p;
}

static void pnr_unmap(void *p, size_t bytes)
{
  if (p)
    munmap(p, pnr_page_round(bytes));
}

/* ---- packed store ------------------------------------------------------ */

static inline void pnr_write_bits(uint64_t *store, uint64_t off, uint64_t n, uint64_t v)
{
  uint64_t w = off >> 6, sh = off & 63;
  uint64_t m = pnr_mask_bits(n);
  v &= m;
  store[w] = (store[w] & ~(m << sh)) | (v << sh);
  if (sh + n > 64) {
    uint64_t hi = 64 - sh;
    store[w + 1] = (store[w + 1] & ~(m >> hi)) | (v >> hi);
  }
}

static void pnr_store_state(struct pn_analysis *a, uint64_t s, const uint64_t *buf)
{
  uint64_t off = s * a->lay.bits, left = a->lay.bits;
  for (uint32_t i = 0; i < a->lay.nwords; i++) {
    uint64_t n = left < 64 ? left : 64;
    if (n)
      pnr_write_bits(a->store, off, n, buf[i]);
    off += n;
    left -= n;
  }
}

void pnr_encode(const struct pn_analysis *a, const uint32_t *tokens, uint64_t *buf)
{
  const struct pnr_layout *l = &a->lay;
  memset(buf, 0, l->nwords * sizeof *buf);
  for (uint32_t i = 0; i < a->ntracked; i++)
    buf[l->word[i]] |= (uint64_t)tokens[i] << l->shift[i];
}

static bool pnr_fits(const struct pn_analysis *a, const uint32_t *tokens)
{
  for (uint32_t i = 0; i < a->ntracked; i++)
    if (tokens[i] > a->lay.mask[i])
      return false;
  return true;
}

/* Lays the fields out greedily; a field that does not fit the current word
 * starts the next one so decoding never joins two words. */
static void pnr_layout_compute(struct pnr_layout *l, uint32_t n)
{
  uint32_t word = 0, used = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (used + l->width[i] > 64) {
      word++;
      used = 0;
    }
    l->word[i] = word;
    l->shift[i] = used;
    l->mask[i] = pnr_mask_bits(l->width[i]);
    used += l->width[i];
  }
  l->nwords = word + 1;
  l->bits = (uint64_t)word * 64 + used;
}

/* ---- hash table ---------------------------------------------------------- */

static inline uint32_t pnr_entry(const struct pn_analysis *a, uint64_t h, uint64_t s)
{
  return (uint32_t)((uint64_t)pnr_fingerprint(a, h) << a->idx_bits) | (uint32_t)(s + 1);
}

int64_t pnr_lookup(const struct pn_analysis *a, const uint64_t *buf)
{
  bool found;
  uint64_t s = 0;
  pnr_probe(a, buf, pnr_hash(buf, a->lay.nwords), &found, &s);
  return found ? (int64_t)s : -1;
}

int64_t pnr_lookup_tokens(const struct pn_analysis *a, const uint32_t *tokens, uint64_t *scratch)
{
  /* A count wider than its field was never stored. */
  if (!pnr_fits(a, tokens))
    return -1;
  pnr_encode(a, tokens, scratch);
  return pnr_lookup(a, scratch);
}

/* One thread of a table rebuild: inserts the states [first, end). */
struct pnr_rebuild_work {
  struct pn_analysis *a;
  struct pnr_scratch sc;
  uint64_t first, end;
  bool shared; /* other threads insert at the same time */
};

static void *pnr_rebuild_run(void *arg)
{
  struct pnr_rebuild_work *w = arg;
  struct pn_analysis *a = w->a;
  uint64_t hash[PNR_REBUILD_BATCH];
  /* Hash a batch of (sequentially read) states and prefetch their slots
   * before inserting them, so the random writes overlap. */
  for (uint64_t first = w->first; first < w->end; first += PNR_REBUILD_BATCH) {
    uint64_t count = w->end - first < PNR_REBUILD_BATCH ? w->end - first : PNR_REBUILD_BATCH;
    for (uint64_t k = 0; k < count; k++) {
      pnr_load(a, first + k, w->sc.state);
      hash[k] = pnr_hash(w->sc.state, a->lay.nwords);
      __builtin_prefetch(&a->table[hash[k] & a->table_mask]);
    }
    for (uint64_t k = 0; k < count; k++) {
      uint64_t i = hash[k] & a->table_mask;
      uint32_t e = pnr_entry(a, hash[k], first + k);
      if (!w->shared) {
        while (a->table[i])
          i = (i + 1) & a->table_mask;
        a->table[i] = e;
        continue;
      }
      /* Another thread may claim the same empty slot: only one
       * compare-and-swap from 0 wins, the other probes on. */
      for (;;) {
        uint32_t empty = 0;
        if (__atomic_compare_exchange_n(&a->table[i], &empty, e, false, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
          break;
        i = (i + 1) & a->table_mask;
      }
    }
  }
  return NULL;
}

/* Rebuilds the table with slots slots from the store, in several threads
 * for large stores. Where an entry lands depends on the order of the
 * insertions, but no result does: a lookup finds a state wherever it is. */
static int pnr_table_rebuild(struct pn_analysis *a, uint64_t slots)
{
  if (a->table && slots == a->table_mask + 1) {
    /* Same size (after a widening changed every key): rebuild in place, so
     * the peak memory does not hold two tables. */
    memset(a->table, 0, slots * sizeof *a->table);
  } else {
    uint32_t *t = pnr_map(slots * sizeof *t, true);
    if (!t)
      return -ENOMEM;
    if (a->table)
      pnr_unmap(a->table, (a->table_mask + 1) * sizeof *a->table);
    a->table = t;
    a->table_mask = slots - 1;
  }
  a->idx_bits = 0;
  while (a->idx_bits < 32 && (UINT64_C(1) << a->idx_bits) < slots)
    a->idx_bits++;
  struct pnr_rebuild_work work[PNR_MAX_THREADS];
  unsigned nt = a->nstates >= 16 * PNR_PAR_MIN ? a->nthreads : 1;
  for (unsigned t = 0; t < nt; t++) {
    int rc = pnr_scratch_get(a, t, &work[t].sc);
    if (rc)
      return rc;
    work[t].a = a;
    work[t].first = a->nstates * t / nt;
    work[t].end = a->nstates * (t + 1) / nt;
    work[t].shared = nt > 1;
  }
  pnr_run_threads(a, nt, pnr_rebuild_run, work, sizeof work[0]);
  return 0;
}

/* ---- growth -------------------------------------------------------------- */

static int pnr_trans_pack(struct pn_analysis *a);

static int pnr_store_reserve(struct pn_analysis *a, uint64_t states, uint64_t bits)
{
  /* +1 word: pnr_read_bits may touch the word after the last field. */
  uint64_t need = (states * bits + 63) / 64 + 1;
  if (need <= a->store_words)
    return 0;
  uint64_t cap = a->store_words ? a->store_words : 1024;
  while (cap < need)
    cap += cap / 2;
  uint64_t *s = pnr_remap(a->store, a->store_words * sizeof *s, cap * sizeof *s);
  if (!s)
    return -ENOMEM;
  a->store = s;
  a->store_words = cap;
  return 0;
}

static int pnr_bits_reserve(struct pn_analysis *a, uint64_t states)
{
  size_t need = (size_t)((states + 63) / 64);
  if (need <= a->bits_cap)
    return 0;
  size_t cap = a->bits_cap ? a->bits_cap : 64;
  while (cap < need)
    cap += cap / 2;
  uint64_t *d = realloc(a->dead, cap * sizeof *d);
  if (!d)
    return -ENOMEM;
  memset(d + a->bits_cap, 0, (cap - a->bits_cap) * sizeof *d);
  a->dead = d;
  a->bits_cap = cap;
  return 0;
}

/* Widens the fields of the places whose count no longer fits and re-encodes
 * every stored state in place. New states are never narrower, so walking
 * from the last state down never overwrites a state not yet read. */
static int pnr_widen(struct pn_analysis *a, const uint32_t *tokens)
{
  struct pnr_layout *l = &a->lay;
  uint32_t n = a->ntracked;
  struct pnr_layout old = *l;
  int rc = -ENOMEM;
  uint32_t *width = malloc(n * sizeof *width), *word = malloc(n * sizeof *word),
           *shift = malloc(n * sizeof *shift);
  uint64_t *mask = malloc(n * sizeof *mask);
  uint64_t *nbuf_a = NULL, *nbuf_b = NULL;
  if (!width || !word || !shift || !mask)
    goto fail;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t w = l->width[i];
    while (w < PNR_MAX_WIDTH && (uint64_t)tokens[i] > pnr_mask_bits(w))
      w++;
    width[i] = w;
  }
  struct pnr_layout nl = { width, word, shift, mask, 0, 0 };
  pnr_layout_compute(&nl, n);
  nbuf_a = calloc(nl.nwords, sizeof *nbuf_a);
  nbuf_b = calloc(nl.nwords, sizeof *nbuf_b);
  if (!nbuf_a || !nbuf_b)
    goto fail;
  if (nl.nwords > old.nwords) {
    uint64_t *sb = realloc(a->succ_buf, PNR_PIPE * a->succ_cap * nl.nwords * sizeof *sb);
    if (!sb)
      goto fail;
    a->succ_buf = sb;
  }
  rc = pnr_store_reserve(a, a->nstates, nl.bits);
  if (rc)
    goto fail;

  if (old.nwords == 1 && nl.nwords == 1) {
    /* One word before and after: widening field i inserts zero bits just
     * above it, moving the fields above up; done from the highest field
     * down, each insertion leaves the positions below it valid. */
    for (uint64_t s = a->nstates; s-- > 0;) {
      uint64_t v = pnr_read_bits(a->store, s * old.bits, old.bits);
      for (uint32_t i = n; i-- > 0;) {
        uint32_t d = width[i] - old.width[i], pos = old.shift[i] + old.width[i];
        uint64_t hi = d ? v >> pos : 0; /* the fields above i; none: pos + d may be 64 */
        if (d)
          v = (v & pnr_mask_bits(pos)) | (hi ? hi << (pos + d) : 0);
      }
      pnr_write_bits(a->store, s * nl.bits, nl.bits, v);
    }
  } else {
    uint32_t *tok = a->tok_b;
    for (uint64_t s = a->nstates; s-- > 0;) {
      pnr_load(a, s, a->buf_b); /* old layout still in a->lay */
      pnr_decode(a, a->buf_b, tok);
      *l = nl;
      pnr_encode(a, tok, nbuf_a);
      pnr_store_state(a, s, nbuf_a);
      *l = old;
    }
  }
  *l = nl;
  /* The re-encoding wrote the store up to the new end: pnr_store_touch
   * must not zero anything below it. */
  if (a->store_touched < (a->nstates * nl.bits + 63) / 64 + 1)
    a->store_touched = (a->nstates * nl.bits + 63) / 64 + 1;
  free(old.width);
  free(old.word);
  free(old.shift);
  free(old.mask);
  free(a->buf_a);
  free(a->buf_b);
  a->buf_a = nbuf_a;
  a->buf_b = nbuf_b;
  a->reencodes++;
  rc = pnr_trans_pack(a);
  if (rc)
    return rc;
  return pnr_table_rebuild(a, a->table_mask + 1);

fail:
  free(width);
  free(word);
  free(shift);
  free(mask);
  free(nbuf_a);
  free(nbuf_b);
  return rc;
}

/* ---- compilation of the net ---------------------------------------------- */

/* A field test for slot in the current layout: at least value
 * (at_least) or at most value. */
static struct pnr_guard pnr_guard_for(const struct pn_analysis *a, uint32_t slot, uint64_t value,
                                      bool at_least)
{
  uint64_t m = a->lay.mask[slot];
  unsigned sh = a->lay.shift[slot];
  struct pnr_guard g = { a->lay.word[slot], false, m << sh, 0 };
  if (at_least) {
    if (value > m)
      g.never = true, g.bound = UINT64_MAX; /* the field cannot hold it */
    else
      g.bound = value << sh;
  } else {
    if (value > m)
      g.never = true;
    else
      g.bound = (m - value) << sh; /* room for value more */
  }
  return g;
}

/* (Re)computes every transition's packed add/sub words and field tests for
 * the layout. */
static int pnr_trans_pack(struct pn_analysis *a)
{
  uint32_t nw = a->lay.nwords;
  for (uint32_t i = 0; i < a->ntrans; i++) {
    struct pnr_trans *t = &a->trans[i];
    uint64_t *add = realloc(t->add, nw * sizeof *add);
    if (!add)
      return -ENOMEM;
    t->add = add;
    uint64_t *sub = realloc(t->sub, nw * sizeof *sub);
    if (!sub)
      return -ENOMEM;
    t->sub = sub;
    if (!t->g_pre) {
      t->g_pre = calloc(t->npre + 1, sizeof *t->g_pre);
      t->g_post = calloc(t->npost + 1, sizeof *t->g_post);
      t->g_inc = calloc(t->ndelta + 1, sizeof *t->g_inc);
      t->g_dec = calloc(t->ndelta + 1, sizeof *t->g_dec);
      if (!t->g_pre || !t->g_post || !t->g_inc || !t->g_dec)
        return -ENOMEM;
    }
    memset(add, 0, nw * sizeof *add);
    memset(sub, 0, nw * sizeof *sub);
    t->ninc = t->ndec = 0;
    for (uint32_t k = 0; k < t->ndelta; k++) {
      uint32_t slot = t->delta[k].slot;
      int64_t d = (int32_t)t->delta[k].weight;
      /* A fixed field needs no room test: every marking a firing or a
       * reverse firing of a stored marking can produce (the reverse one
       * once its output places passed their tests) has the same
       * semiflow values, hence fits. */
      if (d > 0) {
        add[a->lay.word[slot]] += (uint64_t)d << a->lay.shift[slot];
        if (!a->fixed[slot])
          t->g_inc[t->ninc++] = pnr_guard_for(a, slot, (uint64_t)d, false);
      } else {
        sub[a->lay.word[slot]] += (uint64_t)(-d) << a->lay.shift[slot];
        if (!a->fixed[slot])
          t->g_dec[t->ndec++] = pnr_guard_for(a, slot, (uint64_t)(-d), false);
      }
    }
    for (uint32_t k = 0; k < t->npre; k++)
      t->g_pre[k] = pnr_guard_for(a, t->pre[k].slot, t->pre[k].weight, true);
    for (uint32_t k = 0; k < t->npost; k++)
      t->g_post[k] = pnr_guard_for(a, t->post[k].slot, t->post[k].weight, true);
  }
  return 0;
}

bool pnr_fire(const struct pnr_trans *t, const uint32_t *tokens, uint32_t *next, uint32_t n)
{
  for (uint32_t i = 0; i < t->npre; i++)
    if (tokens[t->pre[i].slot] < t->pre[i].weight)
      return false;
  memcpy(next, tokens, n * sizeof *next);
  for (uint32_t i = 0; i < t->ndelta; i++) {
    int64_t v = (int64_t)next[t->delta[i].slot] + (int32_t)t->delta[i].weight;
    if (v > UINT32_MAX)
      return false;
    next[t->delta[i].slot] = (uint32_t)v;
  }
  return true;
}

bool pnr_unfire(const struct pnr_trans *t, const uint32_t *tokens, uint32_t *pred, uint32_t n)
{
  for (uint32_t i = 0; i < t->npost; i++)
    if (tokens[t->post[i].slot] < t->post[i].weight)
      return false;
  memcpy(pred, tokens, n * sizeof *pred);
  for (uint32_t i = 0; i < t->ndelta; i++) {
    int64_t v = (int64_t)pred[t->delta[i].slot] - (int32_t)t->delta[i].weight;
    if (v > UINT32_MAX || v < 0)
      return false;
    pred[t->delta[i].slot] = (uint32_t)v;
  }
  return true;
}

static int pnr_compile_arcs(const struct pn_analysis *a, const struct pn_arc *arcs, uint32_t narcs,
                            struct pnr_arc **out, uint32_t *nout)
{
  *out = calloc(narcs ? narcs : 1, sizeof **out);
  if (!*out)
    return -ENOMEM;
  *nout = 0;
  for (uint32_t i = 0; i < narcs; i++) {
    int32_t slot = a->slot_of[arcs[i].place];
    if (slot < 0)
      continue; /* environment place: abstracted */
    (*out)[(*nout)++] = (struct pnr_arc){ (uint32_t)slot, arcs[i].weight };
  }
  return 0;
}

static int pnr_compile(struct pn_analysis *a)
{
  const struct pn_net *net = a->net;
  a->slot_of = calloc(net->nplaces ? net->nplaces : 1, sizeof *a->slot_of);
  a->place_of = calloc(net->nplaces ? net->nplaces : 1, sizeof *a->place_of);
  a->trans = calloc(net->ntransitions ? net->ntransitions : 1, sizeof *a->trans);
  if (!a->slot_of || !a->place_of || !a->trans)
    return -ENOMEM;
  for (uint32_t p = 0; p < net->nplaces; p++) {
    if (net->places[p].role == PN_PLACE_TRACKED) {
      a->slot_of[p] = (int32_t)a->ntracked;
      a->place_of[a->ntracked++] = p;
    } else {
      a->slot_of[p] = -1;
    }
  }
  a->ntrans = net->ntransitions;
  for (uint32_t i = 0; i < net->ntransitions; i++) {
    const struct pn_transition *t = &net->transitions[i];
    struct pnr_trans *c = &a->trans[i];
    c->admission = t->kind == PN_ADMISSION;
    for (uint32_t k = 0; k < t->npre; k++)
      if (t->pre[k].weight > INT32_MAX)
        return -EOVERFLOW;
    for (uint32_t k = 0; k < t->npost; k++)
      if (t->post[k].weight > INT32_MAX)
        return -EOVERFLOW;
    if (pnr_compile_arcs(a, t->pre, t->npre, &c->pre, &c->npre) ||
        pnr_compile_arcs(a, t->post, t->npost, &c->post, &c->npost))
      return -ENOMEM;
    c->delta = calloc(c->npre + c->npost + 1, sizeof *c->delta);
    if (!c->delta)
      return -ENOMEM;
    /* pre and post are sorted by place, so a merge gives one delta per slot. */
    uint32_t i1 = 0, i2 = 0;
    while (i1 < c->npre || i2 < c->npost) {
      int64_t d;
      uint32_t slot;
      if (i2 == c->npost || (i1 < c->npre && c->pre[i1].slot < c->post[i2].slot)) {
        slot = c->pre[i1].slot;
        d = -(int64_t)c->pre[i1++].weight;
      } else if (i1 == c->npre || c->post[i2].slot < c->pre[i1].slot) {
        slot = c->post[i2].slot;
        d = c->post[i2++].weight;
      } else {
        slot = c->pre[i1].slot;
        d = (int64_t)c->post[i2++].weight - c->pre[i1++].weight;
      }
      if (d)
        c->delta[c->ndelta++] = (struct pnr_arc){ slot, (uint32_t)(int32_t)d };
    }
  }
  return 0;
}

/* Structural bounds above this many tokens do not size a field from the
 * start: such a bound is more likely far above the counts the net really
 * reaches, and a field sized by demand costs fewer bits per marking. */
#define PNR_PRESIZE_MAX 65535

/* Sizes every field whose place the P-semiflows bound (at most
 * PNR_PRESIZE_MAX) to hold that bound, so that the exploration never
 * widens it: on FMS N=5 three late widenings re-encoded 1.7, 2.2 and 2.8
 * million markings and rebuilt the table each time. A net the semiflow
 * computation gives up on is explored as before. */
static int pnr_presize(struct pn_analysis *a)
{
  const struct pn_net *net = a->net;
  int64_t *bound = malloc((net->nplaces ? net->nplaces : 1) * sizeof *bound);
  if (!bound)
    return -ENOMEM;
  int rc = pn_semiflow_bounds(net, bound);
  if (rc == -ENOMEM)
    goto out;
  rc = 0; /* -E2BIG: no bounds, every entry is -1 */
  for (uint32_t k = 0; k < a->ntracked; k++) {
    int64_t b = bound[a->place_of[k]];
    if (b < 0 || b > PNR_PRESIZE_MAX)
      continue;
    uint32_t w = 1;
    while ((uint64_t)b > pnr_mask_bits(w))
      w++;
    if (w > a->lay.width[k])
      a->lay.width[k] = w;
    a->fixed[k] = true;
    a->sbound[k] = (uint32_t)b;
  }
out:
  free(bound);
  return rc;
}

/* ---- progress line --------------------------------------------------------- */

struct pnr_progress {
  bool on;
  double start, last;
};

static double pnr_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t pnr_memory(const struct pn_analysis *a)
{
  return a->store_words * 8 + (a->table_mask + 1) * 4 + a->bits_cap * 8;
}

static void pnr_progress_print(const struct pn_analysis *a, struct pnr_progress *p, bool final)
{
  double now = pnr_now();
  if (!final && now - p->last < 0.25)
    return;
  p->last = now;
  double el = now - p->start;
  fprintf(stderr, "\rpnetc: %" PRIu64 " markings, %.0f/s, %.1f MiB%s", a->nstates,
          el > 0 ? (double)a->nstates / el : 0.0, (double)pnr_memory(a) / 1048576.0,
          final ? "\n" : "\033[K");
  fflush(stderr);
}

/* ---- exploration --------------------------------------------------------- */

static int pnr_level_push(struct pn_analysis *a, uint64_t start)
{
  if (a->nlevels == a->level_cap) {
    size_t cap = a->level_cap ? a->level_cap * 2 : 64;
    uint64_t *l = realloc(a->level_start, cap * sizeof *l);
    if (!l)
      return -ENOMEM;
    a->level_start = l;
    a->level_cap = cap;
  }
  a->level_start[a->nlevels++] = start;
  return 0;
}

/* Makes every field wide enough for tokens (re-encoding the store). */
static int pnr_make_fit(struct pn_analysis *a, const uint32_t *tokens)
{
  if (pnr_fits(a, tokens))
    return 0;
  for (uint32_t i = 0; i < a->ntracked; i++)
    if (tokens[i] > pnr_mask_bits(PNR_MAX_WIDTH))
      return -EOVERFLOW;
  return pnr_widen(a, tokens);
}

/* Writes a zero into each store page from store_touched up to two pages
 * past word `end` (the store's capacity permitting). Why: appending a
 * state reads the word before writing it, and the read of a fresh page
 * maps the shared zero page, so the write then faults again, copies, and
 * flushes the other cores' TLBs with an interrupt — on Kanban N=5 about
 * 1.5 % of the run, in the one-thread phase 2. A page first written needs
 * one fault. Words past the stored states are zero (fresh pages; a
 * widening only moves states to higher bits within what it writes). */
#define PNR_PAGE_WORDS 512u
static inline void pnr_store_touch(struct pn_analysis *a, uint64_t end)
{
  uint64_t want = end + 2 * PNR_PAGE_WORDS;
  if (want > a->store_words)
    want = a->store_words;
  while (a->store_touched < want) {
    a->store[a->store_touched] = 0;
    a->store_touched = (a->store_touched / PNR_PAGE_WORDS + 1) * PNR_PAGE_WORDS;
  }
}

/* Adds the marking packed in buf with hash h, if it is new. tokens is the
 * same marking decoded, or NULL to decode it only when it is new (most
 * successors are not: decoding them all would be wasted work). */
static int pnr_add_at(struct pn_analysis *a, const uint32_t *tokens, const uint64_t *buf,
                      uint64_t h, uint64_t slot)
{
  int rc;
  uint64_t s;
  if (a->nstates >= a->max_states) {
    diag_error(NULL,
               "%s: the state space has more than %" PRIu64
               " reachable markings (the --max-states limit); bound the model or raise the limit",
               a->net->name ? a->net->name : "net", a->max_states);
    return -E2BIG;
  }
  s = a->nstates;
  /* The store and the bitsets grow by half at a time: check inline, grow
   * out of line. */
  if (((s + 1) * a->lay.bits + 63) / 64 + 1 > a->store_words &&
      (rc = pnr_store_reserve(a, s + 1, a->lay.bits)))
    return rc;
  if ((s + 64) / 64 > a->bits_cap && (rc = pnr_bits_reserve(a, s + 1)))
    return rc;
  pnr_store_touch(a, ((s + 1) * a->lay.bits + 63) / 64);
  if (a->lay.nwords == 1)
    pnr_write_bits(a->store, s * a->lay.bits, a->lay.bits, buf[0]);
  else
    pnr_store_state(a, s, buf);
  a->table[slot] = pnr_entry(a, h, s);
  a->nstates++;
  /* Keep the load factor under 3/4 so probe runs stay short. */
  if (a->nstates * 4 > (a->table_mask + 1) * 3) {
    rc = pnr_table_rebuild(a, (a->table_mask + 1) * 2);
    if (rc)
      return rc;
  }
  /* Phase 2 of a parallel chunk runs here in one thread: nothing that
   * can be done later in parallel is done here (the bounds: pnr_bounds). */
  if (!a->visit)
    return 0;
  if (!tokens) {
    pnr_decode(a, buf, a->tok_b);
    tokens = a->tok_b;
  }
  pnr_assert_visit(a, s, tokens);
  return 0;
}

/* One thread of pnr_bounds: the largest count per slot in [first, end). */
struct pnr_bounds_work {
  const struct pn_analysis *a;
  uint64_t first, end;
  uint64_t *state;
  uint32_t *max, *open;
};

/* Only the places still below the bound their semiflows prove are
 * decoded (open), and the list is pruned every 1 024 states: no state can
 * raise a maximum that has reached it. On Kanban and FMS most places get
 * there early, so most of the decoding is skipped. */
static void *pnr_bounds_run(void *arg)
{
  struct pnr_bounds_work *w = arg;
  const struct pn_analysis *a = w->a;
  const struct pnr_layout *l = &a->lay;
  uint32_t nopen = 0;
  for (uint32_t k = 0; k < a->ntracked; k++)
    w->open[nopen++] = k;
  for (uint64_t s = w->first; s < w->end && nopen; s++) {
    if (!(s & 1023)) {
      uint32_t kept = 0;
      for (uint32_t i = 0; i < nopen; i++) {
        uint32_t k = w->open[i];
        if (!a->fixed[k] || w->max[k] < a->sbound[k])
          w->open[kept++] = k;
      }
      nopen = kept;
    }
    pnr_load(a, s, w->state);
    for (uint32_t i = 0; i < nopen; i++) {
      uint32_t k = w->open[i];
      uint32_t v = (uint32_t)((w->state[l->word[k]] >> l->shift[k]) & l->mask[k]);
      if (v > w->max[k])
        w->max[k] = v;
    }
  }
  return NULL;
}

/* The largest count of every place over all stored states, in one pass
 * over the store split between the threads, once the exploration is over
 * (during it, the serial phase 2 would pay for it state by state). */
static int pnr_bounds(struct pn_analysis *a)
{
  struct pnr_bounds_work work[PNR_MAX_THREADS];
  unsigned nt = a->nstates >= 16 * PNR_PAR_MIN ? a->nthreads : 1;
  uint32_t n = a->ntracked ? a->ntracked : 1;
  int rc = -ENOMEM;
  memset(work, 0, sizeof work);
  for (unsigned t = 0; t < nt; t++) {
    work[t] = (struct pnr_bounds_work){ a,
                                        a->nstates * t / nt,
                                        a->nstates * (t + 1) / nt,
                                        calloc(a->lay.nwords, sizeof(uint64_t)),
                                        calloc(n, sizeof(uint32_t)),
                                        calloc(n, sizeof(uint32_t)) };
    if (!work[t].state || !work[t].max || !work[t].open)
      goto out;
  }
  pnr_run_threads(a, nt, pnr_bounds_run, work, sizeof work[0]);
  for (unsigned t = 0; t < nt; t++)
    for (uint32_t k = 0; k < a->ntracked; k++)
      if ((int64_t)work[t].max[k] > a->bounds[a->place_of[k]])
        a->bounds[a->place_of[k]] = work[t].max[k];
  rc = 0;
out:
  for (unsigned t = 0; t < nt; t++) {
    free(work[t].state);
    free(work[t].max);
    free(work[t].open);
  }
  return rc;
}

static int pnr_insert_packed(struct pn_analysis *a, const uint32_t *tokens, const uint64_t *buf,
                             uint64_t h)
{
  bool found;
  uint64_t s = 0;
  uint64_t slot = pnr_probe(a, buf, h, &found, &s);
  return found ? 0 : pnr_add_at(a, tokens, buf, h, slot);
}

static int pnr_insert(struct pn_analysis *a, const uint32_t *tokens)
{
  int rc = pnr_make_fit(a, tokens);
  if (rc)
    return rc;
  pnr_encode(a, tokens, a->buf_a);
  return pnr_insert_packed(a, tokens, a->buf_a, pnr_hash(a->buf_a, a->lay.nwords));
}

/* Fills pipeline slot slot of sc with the successors of the states
 * [b->first, b->first + b->count), state i's from b->start[i]; prefetches
 * their table slots. Only reads the analysis, so threads may run it side
 * by side. Returns 0, or 2 when a count would outgrow its field: *wide_s
 * and *wide_t name the state and the transition. */
static int pnr_expand_ro(const struct pn_analysis *a, const struct pnr_scratch *sc,
                         struct pnr_batch *b, unsigned slot, uint64_t *wide_s, uint32_t *wide_t)
{
  uint32_t nw = a->lay.nwords, nsucc = 0;
  uint64_t *buf = pnr_pipe_buf(a, sc, slot), *hash = pnr_pipe_hash(a, sc, slot);
  for (uint32_t i = 0; i < b->count; i++) {
    b->start[i] = nsucc;
    pnr_load(a, b->first + i, sc->state);
    for (uint32_t t = 0; t < a->ntrans; t++) {
      uint64_t *nb = buf + (size_t)nsucc * nw;
      int fired = pnr_try_fire(&a->trans[t], sc->state, nb, nw);
      if (!fired)
        continue;
      if (fired == 2) {
        *wide_s = b->first + i;
        *wide_t = t;
        return 2;
      }
      hash[nsucc] = pnr_hash(nb, nw);
      __builtin_prefetch(&a->table[hash[nsucc] & a->table_mask]);
      nsucc++;
    }
  }
  b->start[b->count] = nsucc;
  return 0;
}

/* pnr_expand_ro for the sequential search: widens the store (and starts
 * over) when a count outgrows its field; the caller then recomputes the
 * other slots, packed for the old layout. */
static int pnr_expand_batch(struct pn_analysis *a, struct pnr_batch *b, unsigned slot)
{
  int rc;
  for (;;) {
    struct pnr_scratch sc;
    uint64_t ws;
    uint32_t wt;
    pnr_scratch_get(a, 0, &sc); /* thread 0: cannot fail */
    if (!pnr_expand_ro(a, &sc, b, slot, &ws, &wt))
      return 0;
    /* Rare: a count outgrows its field. */
    uint32_t *next = a->succ_tok;
    pnr_load(a, ws, a->buf_b);
    pnr_decode(a, a->buf_b, a->tok_a);
    if (!pnr_fire(&a->trans[wt], a->tok_a, next, a->ntracked))
      return -EOVERFLOW;
    if ((rc = pnr_make_fit(a, next)))
      return rc;
  }
}

/* The bookkeeping of expanded state s before its successors are inserted:
 * level boundaries (s opens a level when it is the first state numbered
 * after the previous level was complete), dead states, firings. */
static int pnr_expanded(struct pn_analysis *a, uint64_t s, uint32_t nsucc, uint64_t *level_end)
{
  if (s == *level_end) {
    int rc = pnr_level_push(a, s);
    if (rc)
      return rc;
    *level_end = a->nstates;
  }
  if (!nsucc)
    pnr_set(a->dead, s);
  a->edges += nsucc;
  return 0;
}

/* Inserts the successors of pipeline slot b, state by state: keeps the
 * store in breadth-first order and records levels and dead states. */
static int pnr_insert_batch(struct pn_analysis *a, const struct pnr_batch *b, unsigned slot,
                            uint64_t *level_end)
{
  int rc;
  uint32_t nw = a->lay.nwords;
  struct pnr_scratch sc;
  pnr_scratch_get(a, 0, &sc);
  const uint64_t *buf = pnr_pipe_buf(a, &sc, slot), *hash = pnr_pipe_hash(a, &sc, slot);
  for (uint32_t i = 0; i < b->count; i++) {
    if ((rc = pnr_expanded(a, b->first + i, b->start[i + 1] - b->start[i], level_end)))
      return rc;
    for (uint32_t k = b->start[i]; k < b->start[i + 1]; k++) {
      /* Most successors were seen before: probe inline, add out of line. */
      bool found;
      uint64_t old;
      uint64_t at = pnr_probe(a, buf + (size_t)k * nw, hash[k], &found, &old);
      if (!found && (rc = pnr_add_at(a, NULL, buf + (size_t)k * nw, hash[k], at)))
        return rc;
    }
  }
  return 0;
}

/* Expands the queue [*cur, limit) (or until it is empty) in one thread.
 * A software pipeline over batches of PNR_BATCH states: expand batch i
 * (successors, hashes, table-slot prefetches), prefetch the keys of
 * batch i - 1, insert batch i - 2. The cache misses of hundreds of
 * lookups are then in flight together instead of one after another.
 * Batches are inserted in order, so the store stays breadth-first. */
static int pnr_explore_seq(struct pn_analysis *a, uint64_t limit, uint64_t *cur,
                           uint64_t *level_end, struct pnr_progress *prog)
{
  int rc;
  struct pnr_batch ring[PNR_PIPE];
  unsigned head = 0, npend = 0;
  uint64_t next_progress = *cur;
  for (;;) {
    uint64_t end = a->nstates < limit ? a->nstates : limit, avail = end - *cur;
    if (avail && npend < PNR_PIPE) {
      unsigned slot = (head + npend) % PNR_PIPE;
      ring[slot].first = *cur;
      ring[slot].count = avail < PNR_BATCH ? (uint32_t)avail : PNR_BATCH;
      npend++;
      *cur += ring[slot].count;
      unsigned before = a->reencodes;
      if ((rc = pnr_expand_batch(a, &ring[slot], slot)))
        return rc;
      /* A widening re-encoded the store: re-pack every pending batch. */
      while (before != a->reencodes) {
        before = a->reencodes;
        for (unsigned j = 0; j < npend && before == a->reencodes; j++)
          if ((rc = pnr_expand_batch(a, &ring[(head + j) % PNR_PIPE], (head + j) % PNR_PIPE)))
            return rc;
      }
      if (npend >= 2) {
        struct pnr_scratch sc;
        unsigned prev = (head + npend - 2) % PNR_PIPE;
        pnr_scratch_get(a, 0, &sc);
        pnr_prefetch_keys(a, pnr_pipe_hash(a, &sc, prev), ring[prev].start[ring[prev].count]);
      }
      if (npend < PNR_PIPE)
        continue;
    }
    if (!npend)
      return 0;
    if ((rc = pnr_insert_batch(a, &ring[head], head, level_end)))
      return rc;
    head = (head + 1) % PNR_PIPE;
    npend--;
    if (prog->on && *cur >= next_progress) {
      pnr_progress_print(a, prog, false);
      next_progress = *cur + 65536;
    }
  }
}

/* The forward search in several threads cuts the queue in chunks of
 * PNR_CHUNK states and each chunk in pieces of PNR_PIECE states, handed
 * out in order to whichever thread is free (a thread that the scheduler
 * delays holds up one piece, not half the chunk). */
#define PNR_PIECE 256u
#define PNR_PIECES (PNR_CHUNK / PNR_PIECE)

/* One thread of a parallel chunk: the pieces it took are expanded and
 * their successors looked up while the table is only read; the
 * successors not found (candidates: new states, or states that another
 * thread or an earlier state of the chunk also found) are kept in order. */
struct pnr_fwd_work {
  const struct pn_analysis *a;
  struct pnr_fwd_chunk *chunk;
  unsigned id;
  struct pnr_scratch sc;
  uint64_t *cand, *cand_hash;
  size_t ncand, cand_cap;
  /* The candidates of this thread in this chunk, hashed (16 bits of the
   * hash above candidate + 1, 0 empty): a state this thread already kept
   * is kept once, because its first copy is inserted first in phase 2
   * anyway. The hash bits settle most mismatches without reading the
   * candidate's hash, and 4-byte entries keep the set at 64 KiB. */
  uint32_t *seen;
  int rc; /* 0, 2: a count outgrows its field, -ENOMEM */
};
#define PNR_SEEN_SLOTS 16384u

/* What the threads share in one chunk: the next piece to take, and per
 * state of the chunk its firings and the end of its candidates in the
 * buffer of the thread that took its piece. */
struct pnr_fwd_pre;
struct pnr_fwd_chunk {
  uint64_t first;
  uint32_t count;
  const struct pnr_fwd_pre *pre; /* pre_ok: holds this chunk's successors */
  bool pre_ok;
  uint32_t next_piece; /* atomic */
  uint8_t piece_thread[PNR_PIECES];
  uint32_t piece_cand[PNR_PIECES]; /* first candidate of the piece */
  uint32_t nsucc[PNR_CHUNK];
  uint32_t cand_end[PNR_CHUNK];
};

/* Usually one or two words: a loop the compiler inlines beats a memcmp
 * call (2 % of the whole analysis on Kanban N=5). */
static inline bool pnr_words_equal(const uint64_t *x, const uint64_t *y, uint32_t n)
{
  for (uint32_t i = 0; i < n; i++)
    if (x[i] != y[i])
      return false;
  return true;
}

static bool pnr_fwd_keep(struct pnr_fwd_work *w, const uint64_t *buf, uint64_t h)
{
  uint32_t nw = w->a->lay.nwords;
  uint32_t i = (uint32_t)(h >> 40) & (PNR_SEEN_SLOTS - 1), *slot = NULL;
  uint32_t fp = (uint32_t)h << 16; /* low hash bits: not the ones that chose i */
  for (uint32_t probes = 0; probes < 16; probes++, i = (i + 1) & (PNR_SEEN_SLOTS - 1)) {
    uint32_t e = w->seen[i];
    if (!e) {
      slot = &w->seen[i];
      break;
    }
    /* The entry holds 16 hash bits: most mismatches cost no candidate read. */
    if ((e & 0xffff0000u) == fp && w->cand_hash[(e & 0xffffu) - 1] == h &&
        pnr_words_equal(w->cand + (size_t)((e & 0xffffu) - 1) * nw, buf, nw))
      return true;
  }
  if (w->ncand == w->cand_cap) {
    size_t cap = w->cand_cap ? w->cand_cap * 2 : 4096;
    uint64_t *c = realloc(w->cand, cap * nw * sizeof *c);
    if (!c)
      return false;
    w->cand = c;
    uint64_t *ch = realloc(w->cand_hash, cap * sizeof *ch);
    if (!ch)
      return false;
    w->cand_hash = ch;
    w->cand_cap = cap;
  }
  memcpy(w->cand + w->ncand * nw, buf, nw * sizeof *buf);
  w->cand_hash[w->ncand++] = h;
  /* A full run, or more candidates than 16 bits number: just not
   * deduplicated. */
  if (slot && w->ncand <= 0xffffu)
    *slot = fp | (uint32_t)w->ncand;
  return true;
}

/* Phase 1 of one piece: the same pipeline as pnr_explore_seq, but its last
 * stage only probes. */
static int pnr_fwd_piece(struct pnr_fwd_work *w, uint64_t first, uint32_t count)
{
  const struct pn_analysis *a = w->a;
  struct pnr_fwd_chunk *c = w->chunk;
  uint32_t nw = a->lay.nwords;
  struct pnr_batch ring[PNR_PIPE];
  unsigned head = 0, npend = 0;
  uint64_t cur = first, end = first + count, ws;
  uint32_t wt;
  for (;;) {
    if (cur < end && npend < PNR_PIPE) {
      unsigned slot = (head + npend) % PNR_PIPE;
      ring[slot].first = cur;
      ring[slot].count = end - cur < PNR_BATCH ? (uint32_t)(end - cur) : PNR_BATCH;
      npend++;
      cur += ring[slot].count;
      if (pnr_expand_ro(a, &w->sc, &ring[slot], slot, &ws, &wt))
        return 2;
      if (npend >= 2) {
        unsigned prev = (head + npend - 2) % PNR_PIPE;
        pnr_prefetch_keys(a, pnr_pipe_hash(a, &w->sc, prev), ring[prev].start[ring[prev].count]);
      }
      if (npend < PNR_PIPE)
        continue;
    }
    if (!npend)
      return 0;
    const struct pnr_batch *b = &ring[head];
    const uint64_t *buf = pnr_pipe_buf(a, &w->sc, head), *hash = pnr_pipe_hash(a, &w->sc, head);
    for (uint32_t i = 0; i < b->count; i++) {
      uint32_t at = (uint32_t)(b->first + i - c->first);
      c->nsucc[at] = b->start[i + 1] - b->start[i];
      for (uint32_t k = b->start[i]; k < b->start[i + 1]; k++) {
        bool found;
        uint64_t old;
        pnr_probe(a, buf + (size_t)k * nw, hash[k], &found, &old);
        if (!found && !pnr_fwd_keep(w, buf + (size_t)k * nw, hash[k]))
          return -ENOMEM;
      }
      c->cand_end[at] = (uint32_t)w->ncand;
    }
    head = (head + 1) % PNR_PIPE;
    npend--;
  }
}

/* The successors of the next chunk, computed by one more thread while
 * phase 2 of the current chunk runs in this one (the other cores would
 * idle): firing only reads the states, which phase 2 neither moves (the
 * store is reserved beforehand) nor writes (it appends after them), and
 * the pre-expansion does not touch the table that phase 2 writes. The
 * successors of state first + i are buf[start[i] .. start[i + 1]). */
struct pnr_fwd_pre {
  const struct pn_analysis *a;
  uint64_t first;
  uint32_t count;
  unsigned reencodes; /* the layout the successors are packed in */
  bool ready;
  bool stop;     /* atomic: phase 2 is over, stop at the next state */
  uint32_t done; /* states [first, first + done) expanded */
  int rc;        /* 0, 2: a count outgrows its field, -ENOMEM */
  uint64_t *state, *buf;
  size_t cap; /* successors buf can hold */
  uint32_t start[PNR_CHUNK + 1];
};

static void *pnr_fwd_pre_run(void *arg)
{
  struct pnr_fwd_pre *p = arg;
  const struct pn_analysis *a = p->a;
  uint32_t nw = a->lay.nwords;
  size_t n = 0;
  p->rc = 0;
  p->done = 0;
  for (uint32_t i = 0; i < p->count; i++) {
    p->start[i] = (uint32_t)n;
    /* Whatever is not expanded when phase 2 ends is expanded by phase 1
     * as usual: waiting for this thread would cost more. */
    if (__atomic_load_n(&p->stop, __ATOMIC_RELAXED))
      return NULL;
    if (n + a->ntrans > p->cap) {
      size_t cap = p->cap ? p->cap * 2 : 16384;
      while (cap < n + a->ntrans)
        cap *= 2;
      uint64_t *b = realloc(p->buf, cap * nw * sizeof *b);
      if (!b) {
        p->rc = -ENOMEM;
        return NULL;
      }
      p->buf = b;
      p->cap = cap;
    }
    pnr_load(a, p->first + i, p->state);
    for (uint32_t t = 0; t < a->ntrans; t++) {
      int fired = pnr_try_fire(&a->trans[t], p->state, p->buf + n * nw, nw);
      if (fired == 2) {
        p->rc = 2;
        return NULL;
      }
      n += (size_t)fired;
    }
    p->start[i + 1] = (uint32_t)n;
    p->done = i + 1;
  }
  return NULL;
}

/* Phase 1 of one piece from the pre-expanded successors: hash them a
 * little ahead (PNR_PRE_AHEAD) and prefetch their slots, then their keys,
 * then probe, as the pipeline of pnr_fwd_piece does. */
#define PNR_PRE_AHEAD 16u
static int pnr_fwd_piece_pre(struct pnr_fwd_work *w, uint64_t first, uint32_t count)
{
  const struct pn_analysis *a = w->a;
  struct pnr_fwd_chunk *c = w->chunk;
  const struct pnr_fwd_pre *p = c->pre;
  uint32_t nw = a->lay.nwords;
  uint32_t base = (uint32_t)(first - p->first);
  uint32_t k = p->start[base], ahead = k, hi = p->start[base + count];
  uint64_t ring[2 * PNR_PRE_AHEAD];
  for (uint32_t i = 0; i < count; i++) {
    uint32_t at = (uint32_t)(first + i - c->first), end = p->start[base + i + 1];
    c->nsucc[at] = end - p->start[base + i];
    for (; k < end; k++) {
      for (; ahead < hi && ahead < k + PNR_PRE_AHEAD; ahead++) {
        uint64_t h = pnr_hash(p->buf + (size_t)ahead * nw, nw);
        ring[ahead % (2 * PNR_PRE_AHEAD)] = h;
        pnr_prefetch(a, h);
      }
      if (k + PNR_PRE_AHEAD / 2 < ahead)
        pnr_prefetch_keys(a, &ring[(k + PNR_PRE_AHEAD / 2) % (2 * PNR_PRE_AHEAD)], 1);
      bool found;
      uint64_t old, h = ring[k % (2 * PNR_PRE_AHEAD)];
      const uint64_t *buf = p->buf + (size_t)k * nw;
      pnr_probe(a, buf, h, &found, &old);
      if (!found && !pnr_fwd_keep(w, buf, h))
        return -ENOMEM;
    }
    c->cand_end[at] = (uint32_t)w->ncand;
  }
  return 0;
}

static void *pnr_fwd_scan(void *arg)
{
  struct pnr_fwd_work *w = arg;
  struct pnr_fwd_chunk *c = w->chunk;
  uint32_t npieces = (c->count + PNR_PIECE - 1) / PNR_PIECE;
  w->ncand = 0;
  w->rc = 0;
  memset(w->seen, 0, PNR_SEEN_SLOTS * sizeof *w->seen);
  for (;;) {
    uint32_t p = __atomic_fetch_add(&c->next_piece, 1, __ATOMIC_RELAXED);
    if (p >= npieces)
      return NULL;
    uint32_t off = p * PNR_PIECE;
    c->piece_thread[p] = (uint8_t)w->id;
    c->piece_cand[p] = (uint32_t)w->ncand;
    uint32_t n = c->count - off < PNR_PIECE ? c->count - off : PNR_PIECE;
    w->rc = c->pre_ok && off + n <= c->pre->done ? pnr_fwd_piece_pre(w, c->first + off, n)
                                                 : pnr_fwd_piece(w, c->first + off, n);
    if (w->rc) {
      /* Stop every thread: the chunk will be redone sequentially. */
      __atomic_store_n(&c->next_piece, npieces, __ATOMIC_RELAXED);
      return NULL;
    }
  }
}

/* Expands the states [first, first + count) with the threads: phase 1
 * (pnr_fwd_scan) spreads the pieces over the threads, phase 2 inserts the
 * candidates in this thread in state order, probing each again. A
 * successor found in phase 1 is also found by the sequential search (the
 * table only grows), and the candidates are probed in the sequential
 * order, so the numbering is exactly the one-thread numbering. Returns 0,
 * 1 when a count outgrows its field (nothing was changed: the caller
 * expands the chunk sequentially, which widens the layout), or an error. */
static int pnr_explore_par(struct pn_analysis *a, struct pnr_fwd_work *work,
                           struct pnr_fwd_chunk *c, struct pnr_fwd_pre *pre, uint64_t first,
                           uint32_t count, uint64_t *level_end)
{
  unsigned nt = a->nthreads;
  uint32_t nw = a->lay.nwords;
  int rc;
  c->first = first;
  c->count = count;
  c->next_piece = 0;
  c->pre = pre;
  c->pre_ok = pre->ready && !pre->rc && pre->first == first && pre->count == count &&
              pre->reencodes == a->reencodes;
  pre->ready = false;
  for (unsigned t = 0; t < nt; t++) {
    if ((rc = pnr_scratch_get(a, t, &work[t].sc)))
      return rc;
    work[t].a = a;
    work[t].chunk = c;
    work[t].id = t;
  }
  pnr_run_threads(a, nt, pnr_fwd_scan, work, sizeof work[0]);
  for (unsigned t = 0; t < nt; t++)
    if (work[t].rc)
      return work[t].rc == 2 ? 1 : work[t].rc;
  /* Expand the next chunk during phase 2 when its states all exist, with
   * a margin of 64 states so that no store word it reads is one phase 2
   * writes. */
  bool started = false;
  if (a->nstates >= first + count + PNR_CHUNK + 64) {
    size_t total = 0;
    for (unsigned t = 0; t < nt; t++)
      total += work[t].ncand;
    uint64_t *st = realloc(pre->state, nw * sizeof *st);
    if (!st)
      return -ENOMEM;
    pre->state = st;
    if ((rc = pnr_store_reserve(a, a->nstates + total, a->lay.bits)))
      return rc;
    pre->a = a;
    pre->first = first + count;
    pre->count = PNR_CHUNK;
    pre->reencodes = a->reencodes;
    pre->stop = false;
    started = pnr_pool_start(a, 1, pnr_fwd_pre_run, pre);
  }
  rc = 0;
  for (uint32_t p = 0; p * PNR_PIECE < count && !rc; p++) {
    const struct pnr_fwd_work *w = &work[c->piece_thread[p]];
    uint32_t k = c->piece_cand[p];
    uint32_t end = (p + 1) * PNR_PIECE < count ? (p + 1) * PNR_PIECE : count;
    for (uint32_t i = p * PNR_PIECE; i < end && !rc; i++) {
      if ((rc = pnr_expanded(a, first + i, c->nsucc[i], level_end)))
        break;
      for (; k < c->cand_end[i]; k++) {
        /* The candidates are random states: fetch the slots ahead. */
        if (k + 8 < w->ncand)
          pnr_prefetch(a, w->cand_hash[k + 8]);
        bool found;
        uint64_t old;
        const uint64_t *buf = w->cand + (size_t)k * nw;
        uint64_t at = pnr_probe(a, buf, w->cand_hash[k], &found, &old);
        if (!found && (rc = pnr_add_at(a, NULL, buf, w->cand_hash[k], at)))
          break;
      }
    }
  }
  if (started) {
    __atomic_store_n(&pre->stop, true, __ATOMIC_RELAXED);
    pnr_pool_wait(a, 1);
    pre->ready = true;
  }
  return rc;
}

static int pnr_explore(struct pn_analysis *a, bool show_progress)
{
  int rc;
  const struct pn_net *net = a->net;
  uint32_t n = a->ntracked;
  uint32_t *tok = a->tok_a;
  struct pnr_progress prog = { show_progress, 0, 0 };
  struct pnr_fwd_work work[PNR_MAX_THREADS];
  struct pnr_fwd_chunk *chunk = NULL;
  struct pnr_fwd_pre *pre = NULL;
  memset(work, 0, sizeof work);
  prog.start = prog.last = pnr_now();

  for (uint32_t k = 0; k < n; k++) {
    int64_t init = net->places[a->place_of[k]].initial;
    if (init < 0 || init > (int64_t)UINT32_MAX)
      return -EOVERFLOW;
    tok[k] = (uint32_t)init;
  }
  if ((rc = pnr_table_rebuild(a, 1024)) || (rc = pnr_level_push(a, 0)) || (rc = pnr_insert(a, tok)))
    goto out;
  rc = -ENOMEM;
  if (a->nthreads > 1) {
    if (!(chunk = malloc(sizeof *chunk)) || !(pre = calloc(1, sizeof *pre)))
      goto out;
    for (unsigned t = 0; t < a->nthreads; t++)
      if (!(work[t].seen = malloc(PNR_SEEN_SLOTS * sizeof *work[t].seen)))
        goto out;
  }

  /* With one thread, one pipeline runs to the end. With more, the queue is
   * cut in chunks of PNR_CHUNK states; small chunks (the first and last
   * levels) go through the sequential pipeline. */
  uint64_t level_end = 1, cur = 0;
  while (cur < a->nstates) {
    uint64_t avail = a->nstates - cur;
    uint32_t take = avail < PNR_CHUNK ? (uint32_t)avail : PNR_CHUNK;
    uint64_t limit = UINT64_MAX;
    if (a->nthreads > 1) {
      limit = cur + take;
      if (take >= PNR_PAR_MIN) {
        rc = pnr_explore_par(a, work, chunk, pre, cur, take, &level_end);
        if (rc < 0)
          goto out;
        if (rc == 0) {
          cur += take;
          if (prog.on)
            pnr_progress_print(a, &prog, false);
          continue;
        }
      }
    }
    if ((rc = pnr_explore_seq(a, limit, &cur, &level_end, &prog)))
      goto out;
  }
  if (prog.on)
    pnr_progress_print(a, &prog, true);
  rc = 0;
out:
  free(chunk);
  if (pre) {
    free(pre->state);
    free(pre->buf);
    free(pre);
  }
  for (unsigned t = 0; t < PNR_MAX_THREADS; t++) {
    free(work[t].cand);
    free(work[t].seen);
    free(work[t].cand_hash);
  }
  if (rc && prog.on)
    fputc('\n', stderr);
  return rc;
}

/* ---- public interface ------------------------------------------------------ */

int pn_analyze(const struct pn_net *net, const struct pn_analysis_opts *opts,
               struct pn_analysis **out)
{
  int rc = -ENOMEM;
  *out = NULL;
  struct pn_analysis *a = calloc(1, sizeof *a);
  if (!a)
    return -ENOMEM;
  a->net = net;
  a->max_states = opts && opts->max_states ? opts->max_states : PN_DEFAULT_MAX_STATES;
  /* State numbers are 32-bit table entries and 0 marks an empty slot. */
  if (a->max_states > UINT32_MAX - 1)
    a->max_states = UINT32_MAX - 1;
  a->nthreads = pnr_threads_choose(opts);
  if ((rc = pnr_compile(a)))
    goto fail;
  uint32_t n = a->ntracked ? a->ntracked : 1;
  a->lay.width = calloc(n, sizeof *a->lay.width);
  a->lay.word = calloc(n, sizeof *a->lay.word);
  a->lay.shift = calloc(n, sizeof *a->lay.shift);
  a->lay.mask = calloc(n, sizeof *a->lay.mask);
  a->fixed = calloc(n, sizeof *a->fixed);
  a->sbound = calloc(n, sizeof *a->sbound);
  a->tok_a = calloc(n, sizeof *a->tok_a);
  a->tok_b = calloc(n, sizeof *a->tok_b);
  a->bounds = calloc(net->nplaces ? net->nplaces : 1, sizeof *a->bounds);
  rc = -ENOMEM;
  if (!a->lay.width || !a->lay.word || !a->lay.shift || !a->lay.mask || !a->fixed || !a->sbound ||
      !a->tok_a || !a->tok_b || !a->bounds)
    goto fail;
  for (uint32_t p = 0; p < net->nplaces; p++)
    a->bounds[p] = a->slot_of[p] < 0 ? -1 : 0;
  for (uint32_t k = 0; k < a->ntracked; k++) {
    int64_t init = net->places[a->place_of[k]].initial;
    uint32_t w = 1;
    while (w < PNR_MAX_WIDTH && init > (int64_t)pnr_mask_bits(w))
      w++;
    a->lay.width[k] = w;
  }
  if ((rc = pnr_presize(a)))
    goto fail;
  rc = -ENOMEM;
  pnr_layout_compute(&a->lay, a->ntracked);
  a->buf_a = calloc(a->lay.nwords, sizeof *a->buf_a);
  a->buf_b = calloc(a->lay.nwords, sizeof *a->buf_b);
  a->succ_cap = (size_t)PNR_BATCH * a->ntrans + 1;
  a->succ_tok = calloc(a->succ_cap * n, sizeof *a->succ_tok);
  a->succ_buf = calloc(PNR_PIPE * a->succ_cap * a->lay.nwords, sizeof *a->succ_buf);
  a->succ_hash = calloc(PNR_PIPE * a->succ_cap, sizeof *a->succ_hash);
  if (!a->buf_a || !a->buf_b || !a->succ_tok || !a->succ_buf || !a->succ_hash)
    goto fail;
  if ((rc = pnr_trans_pack(a)) || (rc = pnr_assert_init(a)))
    goto fail;
  a->visit = pnr_assert_visits(a);
  if ((rc = pnr_explore(a, opts && opts->show_progress)) || (rc = pnr_bounds(a)))
    goto fail;
  if (!a->nlevels || a->level_start[a->nlevels - 1] != a->nstates) {
    /* Sentinel: level k spans [level_start[k], level_start[k + 1]). */
    if ((rc = pnr_level_push(a, a->nstates)))
      goto fail;
    a->nlevels--;
  }
  /* The backward searches take about as long as the exploration: say so,
   * then erase the line. */
  if (opts && opts->show_progress)
    fputs("pnetc: computing the safe set and the classes...", stderr);
  rc = pnr_compute_safe(a);
  if (opts && opts->show_progress)
    fputs("\r\033[K", stderr);
  if (rc)
    goto fail;
  if ((rc = pnr_assert_finish(a)))
    goto fail;
  *out = a;
  return 0;

fail:
  if (rc == -ENOMEM)
    diag_error(NULL, "out of memory during the state-space analysis");
  else if (rc == -EOVERFLOW)
    diag_error(NULL, "%s: a token count exceeds %" PRIu32 " (the net is unbounded?)",
               net->name ? net->name : "net", UINT32_MAX);
  pn_analysis_free(a);
  return rc;
}

void pn_analysis_free(struct pn_analysis *a)
{
  if (!a)
    return;
  if (a->trans) {
    for (uint32_t i = 0; i < a->ntrans; i++) {
      free(a->trans[i].pre);
      free(a->trans[i].post);
      free(a->trans[i].delta);
      free(a->trans[i].add);
      free(a->trans[i].sub);
      free(a->trans[i].g_pre);
      free(a->trans[i].g_post);
      free(a->trans[i].g_inc);
      free(a->trans[i].g_dec);
    }
  }
  pnr_pool_free(a); /* first: no worker may still read what follows */
  pnr_assert_free(a);
  pnr_scratch_free(a);
  free(a->trans);
  free(a->slot_of);
  free(a->place_of);
  free(a->lay.width);
  free(a->lay.word);
  free(a->lay.shift);
  free(a->lay.mask);
  free(a->fixed);
  free(a->sbound);
  pnr_unmap(a->store, a->store_words * sizeof *a->store);
  if (a->table)
    pnr_unmap(a->table, (a->table_mask + 1) * sizeof *a->table);
  free(a->level_start);
  free(a->dead);
  free(a->safe);
  free(a->bounds);
  free(a->buf_a);
  free(a->buf_b);
  free(a->tok_a);
  free(a->tok_b);
  free(a->succ_tok);
  free(a->succ_buf);
  free(a->succ_hash);
  free(a);
}

uint64_t pn_analysis_states(const struct pn_analysis *a)
{
  return a->nstates;
}
uint64_t pn_analysis_edges(const struct pn_analysis *a)
{
  return a->edges;
}
uint64_t pn_analysis_class_count(const struct pn_analysis *a, enum pn_class c)
{
  return (unsigned)c < 4 ? a->class_count[c] : 0;
}
const int64_t *pn_analysis_bounds(const struct pn_analysis *a)
{
  return a->bounds;
}
unsigned pn_analysis_state_bits(const struct pn_analysis *a)
{
  return (unsigned)a->lay.bits;
}
unsigned pn_analysis_reencodes(const struct pn_analysis *a)
{
  return a->reencodes;
}
uint32_t pn_analysis_levels(const struct pn_analysis *a)
{
  return a->nlevels;
}

void pn_analysis_marking(const struct pn_analysis *a, uint64_t s, int64_t *tokens)
{
  const struct pn_net *net = a->net;
  uint64_t *w = calloc(a->lay.nwords, sizeof *w);
  uint32_t *t = calloc(a->ntracked ? a->ntracked : 1, sizeof *t);
  for (uint32_t p = 0; p < net->nplaces; p++)
    tokens[p] = 0;
  if (w && t && s < a->nstates) {
    pnr_load(a, s, w);
    pnr_decode(a, w, t);
    for (uint32_t k = 0; k < a->ntracked; k++)
      tokens[a->place_of[k]] = t[k];
  }
  free(w);
  free(t);
}

int64_t pn_analysis_successor(const struct pn_analysis *a, uint64_t s, uint32_t t)
{
  if (s >= a->nstates || t >= a->ntrans)
    return -1;
  int64_t r = -1;
  uint32_t n = a->ntracked ? a->ntracked : 1;
  uint64_t *w = calloc(a->lay.nwords, sizeof *w);
  uint32_t *tok = calloc(n, sizeof *tok), *next = calloc(n, sizeof *next);
  if (!w || !tok || !next)
    goto out;
  pnr_load(a, s, w);
  pnr_decode(a, w, tok);
  if (pnr_fire(&a->trans[t], tok, next, a->ntracked))
    r = pnr_lookup_tokens(a, next, w);
out:
  free(w);
  free(tok);
  free(next);
  return r;
}

bool pn_analysis_in_safe_set(const struct pn_analysis *a, uint64_t s)
{
  return s < a->nstates && pnr_bit(a->safe, s);
}
