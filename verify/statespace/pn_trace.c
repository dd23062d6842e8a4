/* pn_trace: assertion checking and shortest firing sequences.
 *
 * No parent pointers are stored (they would cost 4 bytes per state): states
 * are numbered in breadth-first order and the level boundaries are kept, so
 * a state at depth k has a predecessor at depth k - 1, found by firing each
 * transition in reverse and looking the result up in the hash table. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pn_reach_internal.h"
#include "pn_trace_internal.h"

static int64_t pnr_sat_add(int64_t x, int64_t y)
{
  int64_t r;
  if (__builtin_add_overflow(x, y, &r))
    return y > 0 ? INT64_MAX : INT64_MIN;
  return r;
}

static bool pnr_linear_holds(const struct pn_analysis *a, const struct pn_linear *c,
                             const uint32_t *tokens)
{
  int64_t sum = 0;
  for (uint32_t i = 0; i < c->nterms; i++) {
    int32_t slot = a->slot_of[c->terms[i].place];
    /* Environment places are not tracked: they read as 0 (docs/analysis.md). */
    int64_t m = slot < 0 ? 0 : tokens[slot], prod;
    if (__builtin_mul_overflow(c->terms[i].coef, m, &prod))
      prod = (c->terms[i].coef > 0) ? INT64_MAX : INT64_MIN;
    sum = pnr_sat_add(sum, prod);
  }
  switch (c->rel) {
  case PN_REL_EQ:
    return sum == c->constant;
  case PN_REL_NE:
    return sum != c->constant;
  case PN_REL_LT:
    return sum < c->constant;
  case PN_REL_LE:
    return sum <= c->constant;
  case PN_REL_GT:
    return sum > c->constant;
  case PN_REL_GE:
    return sum >= c->constant;
  }
  return false;
}

static bool pnr_conj_holds(const struct pn_analysis *a, const struct pn_assertion *as,
                           const uint32_t *tokens)
{
  for (uint32_t i = 0; i < as->nconstraints; i++)
    if (!pnr_linear_holds(a, &as->constraints[i], tokens))
      return false;
  return true;
}

int pnr_assert_init(struct pn_analysis *a)
{
  uint32_t n = a->net->nassertions;
  a->results = calloc(n ? n : 1, sizeof *a->results);
  if (!a->results)
    return -ENOMEM;
  for (uint32_t i = 0; i < n; i++)
    a->results[i].witness = -1;
  return 0;
}

bool pnr_assert_visits(const struct pn_analysis *a)
{
  for (uint32_t i = 0; i < a->net->nassertions; i++)
    if (a->net->assertions[i].kind != PN_ASSERT_NO_DEADLOCK)
      return true;
  return false;
}

void pnr_assert_visit(struct pn_analysis *a, uint64_t s, const uint32_t *tokens)
{
  const struct pn_net *net = a->net;
  for (uint32_t i = 0; i < net->nassertions; i++) {
    const struct pn_assertion *as = &net->assertions[i];
    struct pn_assert_result *r = &a->results[i];
    if (r->witness >= 0)
      continue;
    bool hit = false;
    switch (as->kind) {
    case PN_ASSERT_NO_DEADLOCK:
      break; /* decided when the state is expanded */
    case PN_ASSERT_CAPACITY:
      for (uint32_t k = 0; k < a->ntracked && !hit; k++) {
        int64_t cap = net->places[a->place_of[k]].capacity;
        hit = cap != PN_UNBOUNDED && (int64_t)tokens[k] > cap;
      }
      break;
    case PN_ASSERT_INVARIANT:
      hit = !pnr_conj_holds(a, as, tokens);
      break;
    case PN_ASSERT_REACHABLE:
    case PN_ASSERT_UNREACHABLE:
      hit = pnr_conj_holds(a, as, tokens);
      break;
    }
    if (hit)
      r->witness = (int64_t)s;
  }
}

int pnr_assert_finish(struct pn_analysis *a)
{
  const struct pn_net *net = a->net;
  for (uint32_t i = 0; i < net->nassertions; i++) {
    struct pn_assert_result *r = &a->results[i];
    if (net->assertions[i].kind == PN_ASSERT_NO_DEADLOCK) {
      /* The dead state with the least number is one of least depth. */
      for (uint64_t w = 0; w < (a->nstates + 63) / 64 && r->witness < 0; w++)
        if (a->dead[w])
          r->witness = (int64_t)(w * 64 + (uint64_t)__builtin_ctzll(a->dead[w]));
    }
    r->holds = net->assertions[i].kind == PN_ASSERT_REACHABLE ? r->witness >= 0 : r->witness < 0;
    if (r->witness >= 0) {
      int rc = pn_analysis_path_to(a, (uint64_t)r->witness, &r->trace, &r->ntrace);
      if (rc)
        return rc;
    }
  }
  return 0;
}

void pnr_assert_free(struct pn_analysis *a)
{
  if (!a->results)
    return;
  for (uint32_t i = 0; i < a->net->nassertions; i++)
    free(a->results[i].trace);
  free(a->results);
  a->results = NULL;
}

const struct pn_assert_result *pn_analysis_assertion(const struct pn_analysis *a, uint32_t i)
{
  return i < a->net->nassertions ? &a->results[i] : NULL;
}

int pnr_level_of(const struct pn_analysis *a, uint64_t s)
{
  uint32_t lo = 0, hi = a->nlevels; /* level_start[nlevels] == nstates */
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (a->level_start[mid] <= s)
      lo = mid;
    else
      hi = mid;
  }
  return (int)lo;
}

int pn_analysis_path_to(const struct pn_analysis *a, uint64_t s, uint32_t **trace, uint32_t *ntrace)
{
  int rc = -ENOMEM;
  *trace = NULL;
  *ntrace = 0;
  if (s >= a->nstates)
    return -EINVAL;
  int depth = pnr_level_of(a, s);
  uint32_t n = a->ntracked ? a->ntracked : 1;
  uint32_t *out = calloc(depth ? (size_t)depth : 1, sizeof *out);
  uint32_t *tok = calloc(n, sizeof *tok), *pred = calloc(n, sizeof *pred);
  uint64_t *buf = calloc(a->lay.nwords, sizeof *buf);
  if (!out || !tok || !pred || !buf)
    goto fail;
  pnr_load(a, s, buf);
  pnr_decode(a, buf, tok);
  for (int k = depth; k > 0; k--) {
    bool found = false;
    /* Lowest transition index first, so traces are deterministic. */
    for (uint32_t t = 0; t < a->ntrans && !found; t++) {
      if (!pnr_unfire(&a->trans[t], tok, pred, a->ntracked))
        continue;
      int64_t p = pnr_lookup_tokens(a, pred, buf);
      if (p < 0 || (uint64_t)p < a->level_start[k - 1] || (uint64_t)p >= a->level_start[k])
        continue;
      out[k - 1] = t;
      memcpy(tok, pred, n * sizeof *tok);
      found = true;
    }
    if (!found) {
      /* Breadth-first numbering guarantees a predecessor one level up. */
      rc = -EPROTO;
      goto fail;
    }
  }
  free(tok);
  free(pred);
  free(buf);
  *trace = out;
  *ntrace = (uint32_t)depth;
  return 0;

fail:
  free(out);
  free(tok);
  free(pred);
  free(buf);
  return rc;
}
