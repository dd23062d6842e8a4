/* pn_semiflow: minimal-support P-semiflows by Farkas' algorithm, and the
 * place bounds they prove (docs/analysis.md, "Structural bounds").
 *
 * Why: the exploration packs each place in a bit field and widens a field
 * (re-encoding every stored marking, rebuilding the table) the first time a
 * count does not fit. On a structurally bounded net the widths can be right
 * from the start: a P-semiflow y gives y . m = y . m0 in every reachable
 * marking, hence m_p <= floor(y . m0 / y_p). Everything here is exact
 * integer arithmetic with overflow checks; on overflow or when the rows
 * outgrow the limits the caller gets no semiflows and falls back to
 * widening, which is always correct.
 *
 * The algorithm: start from the matrix [D | I] (one row per tracked place:
 * its incidence over the transitions, then its unit vector); for each
 * transition column, replace the rows by the rows with a zero in that
 * column and every positive combination of a row with a positive entry
 * and a row with a negative one that cancels it. After the last column
 * the rows are the semiflows. A row whose support (places with y_p > 0)
 * strictly contains another row's is dropped at every step, which keeps
 * exactly the minimal-support semiflows and keeps the matrix small. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pn_semiflow.h"

/* y . m0 needs more than 64 bits in the worst case. */
__extension__ typedef __int128 pns_i128;

/* Limits: beyond them the computation gives up (-E2BIG). Nets whose
 * invariants need more rows are rare and not worth the time: widening
 * still handles them. */
#define PNS_MAX_ROWS 2048u
#define PNS_MAX_CANDIDATES 8192u
#define PNS_MAX_CELLS (UINT64_C(1) << 22)   /* tracked places x transitions */
#define PNS_MAX_ENTRIES (UINT64_C(1) << 19) /* coefficients per matrix (two): 8 MiB */
#define PNS_MAX_WORK (UINT64_C(1) << 27)    /* support words compared, in all */

struct pns_rows {
  uint32_t width;  /* m incidence entries, then n coefficients */
  uint32_t swords; /* words of a support bitset over the n places */
  int64_t *v;      /* nrows * width */
  uint64_t *supp;  /* nrows * swords */
  uint32_t nrows, cap;
  uint64_t *work; /* shared budget of support comparisons (PNS_MAX_WORK) */
};

static void pns_rows_free(struct pns_rows *r)
{
  free(r->v);
  free(r->supp);
  r->v = NULL;
  r->supp = NULL;
  r->nrows = r->cap = 0;
}

/* Room for one more row; returns its index, -1 when out of memory, -2
 * when the rows would hold more than PNS_MAX_ENTRIES coefficients. */
static int64_t pns_rows_add(struct pns_rows *r)
{
  if (r->nrows == r->cap) {
    uint32_t cap = r->cap ? r->cap * 2 : 64;
    if ((uint64_t)cap * r->width > PNS_MAX_ENTRIES)
      return -2;
    int64_t *v = realloc(r->v, (size_t)cap * r->width * sizeof *v);
    if (!v)
      return -1;
    r->v = v;
    uint64_t *s = realloc(r->supp, (size_t)cap * r->swords * sizeof *s);
    if (!s)
      return -1;
    r->supp = s;
    r->cap = cap;
  }
  return r->nrows++;
}

static uint64_t pns_abs(int64_t x)
{
  return x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
}

static uint64_t pns_gcd(uint64_t a, uint64_t b)
{
  while (b) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* out = a * r + b * s, divided by the gcd of its entries; false on
 * overflow (INT64_MIN is refused too, so every entry has an absolute
 * value). */
static bool pns_combine(const int64_t *r, const int64_t *s, int64_t a, int64_t b, int64_t *out,
                        uint32_t width)
{
  uint64_t g = 0;
  for (uint32_t i = 0; i < width; i++) {
    int64_t x, y;
    if (__builtin_mul_overflow(a, r[i], &x) || __builtin_mul_overflow(b, s[i], &y) ||
        __builtin_add_overflow(x, y, &out[i]) || out[i] == INT64_MIN)
      return false;
    g = pns_gcd(g, pns_abs(out[i]));
  }
  if (g > 1)
    for (uint32_t i = 0; i < width; i++)
      out[i] /= (int64_t)g;
  return true;
}

static bool pns_subset(const uint64_t *a, const uint64_t *b, uint32_t words)
{
  for (uint32_t i = 0; i < words; i++)
    if (a[i] & ~b[i])
      return false;
  return true;
}

/* Drops the rows whose support strictly contains another row's, and
 * repeated rows (the later copy). false when that would exceed the work
 * budget: the quadratic comparison is what a net with many semiflows
 * makes slow. */
static bool pns_prune(struct pns_rows *r)
{
  uint32_t w = r->swords, kept = 0;
  uint64_t cost = (uint64_t)r->nrows * r->nrows * w;
  if (cost > PNS_MAX_WORK - *r->work)
    return false;
  *r->work += cost;
  bool *drop = calloc(r->nrows ? r->nrows : 1, sizeof *drop);
  if (!drop)
    return true; /* pruning only saves work: skip it */
  for (uint32_t i = 0; i < r->nrows; i++) {
    const uint64_t *si = r->supp + (size_t)i * w;
    for (uint32_t k = 0; k < r->nrows && !drop[i]; k++) {
      if (k == i || drop[k])
        continue;
      const uint64_t *sk = r->supp + (size_t)k * w;
      if (!pns_subset(sk, si, w))
        continue;
      if (!pns_subset(si, sk, w))
        drop[i] = true; /* strictly larger support */
      else if (k < i && !memcmp(r->v + (size_t)k * r->width, r->v + (size_t)i * r->width,
                                r->width * sizeof *r->v))
        drop[i] = true;
    }
  }
  for (uint32_t i = 0; i < r->nrows; i++) {
    if (drop[i])
      continue;
    if (kept != i) {
      memmove(r->v + (size_t)kept * r->width, r->v + (size_t)i * r->width, r->width * sizeof *r->v);
      memmove(r->supp + (size_t)kept * w, r->supp + (size_t)i * w, w * sizeof *r->supp);
    }
    kept++;
  }
  r->nrows = kept;
  free(drop);
  return true;
}

static void pns_support(struct pns_rows *r, uint32_t row, uint32_t m, uint32_t n)
{
  uint64_t *s = r->supp + (size_t)row * r->swords;
  const int64_t *y = r->v + (size_t)row * r->width + m;
  memset(s, 0, r->swords * sizeof *s);
  for (uint32_t p = 0; p < n; p++)
    if (y[p])
      s[p / 64] |= UINT64_C(1) << (p % 64);
}

/* Eliminates column j: the rows of cur with a zero there, then every
 * cancelling combination of a positive and a negative row, into next. */
static int pns_eliminate(const struct pns_rows *cur, struct pns_rows *next, uint32_t j, uint32_t m,
                         uint32_t n)
{
  uint32_t w = cur->width;
  next->nrows = 0;
  for (uint32_t i = 0; i < cur->nrows; i++) {
    if (cur->v[(size_t)i * w + j])
      continue;
    int64_t k = pns_rows_add(next);
    if (k < 0)
      return k == -1 ? -ENOMEM : -E2BIG;
    memcpy(next->v + (size_t)k * w, cur->v + (size_t)i * w, w * sizeof *cur->v);
    memcpy(next->supp + (size_t)k * cur->swords, cur->supp + (size_t)i * cur->swords,
           cur->swords * sizeof *cur->supp);
  }
  for (uint32_t i = 0; i < cur->nrows; i++) {
    int64_t ri = cur->v[(size_t)i * w + j];
    if (ri <= 0)
      continue;
    for (uint32_t k = 0; k < cur->nrows; k++) {
      int64_t sk = cur->v[(size_t)k * w + j];
      if (sk >= 0)
        continue;
      int64_t at = pns_rows_add(next);
      if (at < 0)
        return at == -1 ? -ENOMEM : -E2BIG;
      if (next->nrows > PNS_MAX_CANDIDATES)
        return -E2BIG;
      /* -sk * row_i + ri * row_k: entry j cancels, the coefficients stay
       * non-negative. */
      if (!pns_combine(cur->v + (size_t)i * w, cur->v + (size_t)k * w, -sk, ri,
                       next->v + (size_t)at * w, w))
        return -E2BIG;
      pns_support(next, (uint32_t)at, m, n);
    }
  }
  if (!pns_prune(next))
    return -E2BIG;
  return next->nrows > PNS_MAX_ROWS ? -E2BIG : 0;
}

int pn_semiflows_compute(const struct pn_net *net, struct pn_semiflows *out)
{
  int rc = -ENOMEM;
  uint32_t n = 0, m = net->ntransitions;
  int32_t *slot_of = calloc(net->nplaces ? net->nplaces : 1, sizeof *slot_of);
  uint32_t *place_of = calloc(net->nplaces ? net->nplaces : 1, sizeof *place_of);
  bool *done = calloc(m ? m : 1, sizeof *done);
  struct pns_rows a = { 0 }, b = { 0 };
  *out = (struct pn_semiflows){ NULL, 0, net->nplaces };
  if (!slot_of || !place_of || !done)
    goto out;
  for (uint32_t p = 0; p < net->nplaces; p++) {
    slot_of[p] = net->places[p].role == PN_PLACE_TRACKED ? (int32_t)n : -1;
    if (slot_of[p] >= 0)
      place_of[n++] = p;
  }
  rc = -E2BIG;
  if ((uint64_t)n * m > PNS_MAX_CELLS)
    goto out;
  rc = 0;
  if (!n)
    goto out;
  uint64_t work = 0;
  a.width = b.width = m + n;
  a.swords = b.swords = (n + 63) / 64;
  a.work = b.work = &work;
  /* [D | I]: environment arcs vanish, as in the exploration. */
  rc = -ENOMEM;
  for (uint32_t k = 0; k < n; k++) {
    int64_t at = pns_rows_add(&a);
    if (at < 0) {
      rc = at == -1 ? -ENOMEM : -E2BIG;
      goto out;
    }
    memset(a.v + (size_t)k * a.width, 0, a.width * sizeof *a.v);
    a.v[(size_t)k * a.width + m + k] = 1;
  }
  for (uint32_t t = 0; t < m; t++) {
    const struct pn_transition *tr = &net->transitions[t];
    for (uint32_t i = 0; i < tr->npre; i++) {
      int32_t s = slot_of[tr->pre[i].place];
      if (s >= 0)
        a.v[(size_t)s * a.width + t] -= tr->pre[i].weight;
    }
    for (uint32_t i = 0; i < tr->npost; i++) {
      int32_t s = slot_of[tr->post[i].place];
      if (s >= 0)
        a.v[(size_t)s * a.width + t] += tr->post[i].weight;
    }
  }
  for (uint32_t k = 0; k < n; k++)
    pns_support(&a, k, m, n);

  for (uint32_t step = 0; step < m && a.nrows; step++) {
    /* Next the column that creates the fewest rows. */
    uint32_t best = m;
    int64_t best_cost = 0;
    for (uint32_t j = 0; j < m; j++) {
      if (done[j])
        continue;
      int64_t pos = 0, neg = 0;
      for (uint32_t i = 0; i < a.nrows; i++) {
        int64_t x = a.v[(size_t)i * a.width + j];
        pos += x > 0;
        neg += x < 0;
      }
      int64_t cost = pos * neg - pos - neg;
      if (best == m || cost < best_cost)
        best = j, best_cost = cost;
    }
    done[best] = true;
    if ((rc = pns_eliminate(&a, &b, best, m, n)))
      goto out;
    struct pns_rows t = a;
    a = b;
    b = t;
  }
  rc = -ENOMEM;
  if (a.nrows) {
    out->y = calloc((size_t)a.nrows * net->nplaces, sizeof *out->y);
    if (!out->y)
      goto out;
  }
  for (uint32_t r = 0; r < a.nrows; r++)
    for (uint32_t k = 0; k < n; k++)
      out->y[(size_t)r * net->nplaces + place_of[k]] = a.v[(size_t)r * a.width + m + k];
  out->nrows = a.nrows;
  rc = 0;
out:
  if (rc)
    pn_semiflows_free(out);
  pns_rows_free(&a);
  pns_rows_free(&b);
  free(slot_of);
  free(place_of);
  free(done);
  return rc;
}

void pn_semiflows_free(struct pn_semiflows *sf)
{
  free(sf->y);
  sf->y = NULL;
  sf->nrows = 0;
}

int pn_semiflow_bounds(const struct pn_net *net, int64_t *bound)
{
  struct pn_semiflows sf;
  for (uint32_t p = 0; p < net->nplaces; p++)
    bound[p] = -1;
  int rc = pn_semiflows_compute(net, &sf);
  if (rc)
    return rc;
  for (uint32_t r = 0; r < sf.nrows; r++) {
    const int64_t *y = sf.y + (size_t)r * net->nplaces;
    pns_i128 total = 0;
    bool ok = true;
    for (uint32_t p = 0; p < net->nplaces; p++) {
      if (!y[p])
        continue;
      /* Counts the exploration refuses anyway prove nothing; the others
       * keep every product under 2^95 and the sum under 2^127. */
      if (net->places[p].initial < 0 || net->places[p].initial > UINT32_MAX)
        ok = false;
      else
        total += (pns_i128)y[p] * net->places[p].initial;
    }
    if (!ok)
      continue;
    for (uint32_t p = 0; p < net->nplaces; p++) {
      if (!y[p])
        continue;
      pns_i128 b = total / y[p];
      int64_t v = b > INT64_MAX ? INT64_MAX : (int64_t)b;
      if (bound[p] < 0 || v < bound[p])
        bound[p] = v;
    }
  }
  pn_semiflows_free(&sf);
  return 0;
}
