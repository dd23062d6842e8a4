/* naive: see naive.h. */
#include "naive.h"
#include "pn_analysis.h" /* only for the enum pn_class values */

#include <stdlib.h>
#include <string.h>

static uint64_t naive_hash(const int64_t *m, uint32_t n)
{
  uint64_t h = 1469598103934665603u; /* FNV-1a over the bytes */
  const unsigned char *b = (const unsigned char *)m;
  for (size_t i = 0; i < n * sizeof *m; i++)
    h = (h ^ b[i]) * 1099511628211u;
  return h;
}

int64_t naive_find(const struct naive *nv, const int64_t *m)
{
  uint64_t i = naive_hash(m, nv->nplaces) % nv->cap;
  while (nv->slots[i]) {
    uint64_t s = nv->slots[i] - 1;
    if (!memcmp(nv->marks + s * nv->nplaces, m, nv->nplaces * sizeof *m))
      return (int64_t)s;
    i = (i + 1) % nv->cap;
  }
  return -1;
}

static void naive_rehash(struct naive *nv)
{
  free(nv->slots);
  nv->cap = nv->cap ? nv->cap * 2 : 1024;
  nv->slots = calloc(nv->cap, sizeof *nv->slots);
  if (!nv->slots)
    abort();
  for (uint64_t s = 0; s < nv->n; s++) {
    uint64_t i = naive_hash(nv->marks + s * nv->nplaces, nv->nplaces) % nv->cap;
    while (nv->slots[i])
      i = (i + 1) % nv->cap;
    nv->slots[i] = s + 1;
  }
}

static uint64_t naive_add(struct naive *nv, const int64_t *m, bool *fresh)
{
  int64_t f = naive_find(nv, m);
  *fresh = f < 0;
  if (f >= 0)
    return (uint64_t)f;
  if ((nv->n & (nv->n - 1)) == 0) { /* capacity doubles at powers of two */
    nv->marks = realloc(nv->marks, (nv->n ? nv->n * 2 : 1) * nv->nplaces * sizeof *m);
    if (!nv->marks)
      abort();
  }
  memcpy(nv->marks + nv->n * nv->nplaces, m, nv->nplaces * sizeof *m);
  nv->n++;
  if (nv->n * 2 > nv->cap)
    naive_rehash(nv);
  else {
    uint64_t i = naive_hash(m, nv->nplaces) % nv->cap;
    while (nv->slots[i])
      i = (i + 1) % nv->cap;
    nv->slots[i] = nv->n;
  }
  return nv->n - 1;
}

static bool naive_enabled(const struct pn_net *net, const int64_t *m, uint32_t t)
{
  const struct pn_transition *tr = &net->transitions[t];
  for (uint32_t k = 0; k < tr->npre; k++)
    if (net->places[tr->pre[k].place].role == PN_PLACE_TRACKED &&
        m[tr->pre[k].place] < tr->pre[k].weight)
      return false;
  return true;
}

static void naive_fire(const struct pn_net *net, const int64_t *m, uint32_t t, int64_t *out)
{
  const struct pn_transition *tr = &net->transitions[t];
  memcpy(out, m, net->nplaces * sizeof *m);
  for (uint32_t k = 0; k < tr->npre; k++)
    if (net->places[tr->pre[k].place].role == PN_PLACE_TRACKED)
      out[tr->pre[k].place] -= tr->pre[k].weight;
  for (uint32_t k = 0; k < tr->npost; k++)
    if (net->places[tr->post[k].place].role == PN_PLACE_TRACKED)
      out[tr->post[k].place] += tr->post[k].weight;
}

int naive_explore(const struct pn_net *net, uint64_t limit, struct naive *nv)
{
  memset(nv, 0, sizeof *nv);
  nv->nplaces = net->nplaces ? net->nplaces : 1;
  naive_rehash(nv);
  int64_t *m = calloc(nv->nplaces, sizeof *m), *next = calloc(nv->nplaces, sizeof *next);
  uint64_t *stack = NULL, sp = 0, stack_cap = 0;
  bool fresh;
  if (!m || !next)
    abort();
  for (uint32_t p = 0; p < net->nplaces; p++)
    m[p] = net->places[p].role == PN_PLACE_TRACKED ? net->places[p].initial : 0;
  naive_add(nv, m, &fresh);
  stack = malloc(sizeof *stack);
  stack_cap = 1;
  stack[sp++] = 0;
  uint64_t edge_cap = 0;
  while (sp) {
    uint64_t s = stack[--sp];
    memcpy(m, nv->marks + s * nv->nplaces, nv->nplaces * sizeof *m);
    for (uint32_t t = 0; t < net->ntransitions; t++) {
      if (!naive_enabled(net, m, t))
        continue;
      naive_fire(net, m, t, next);
      uint64_t d = naive_add(nv, next, &fresh);
      if (nv->n > limit)
        goto too_big;
      if (nv->nedges == edge_cap) {
        edge_cap = edge_cap ? edge_cap * 2 : 1024;
        nv->edges = realloc(nv->edges, edge_cap * sizeof *nv->edges);
        if (!nv->edges)
          abort();
      }
      nv->edges[nv->nedges++] = (struct naive_edge){ (uint32_t)s, (uint32_t)d, t };
      if (fresh) {
        if (sp == stack_cap) {
          stack_cap *= 2;
          stack = realloc(stack, stack_cap * sizeof *stack);
          if (!stack)
            abort();
        }
        stack[sp++] = d;
      }
    }
  }
  free(stack);
  free(m);
  free(next);

  uint64_t n = nv->n;
  nv->dead = calloc(n, sizeof *nv->dead);
  nv->in_s = calloc(n, sizeof *nv->in_s);
  nv->cls = calloc(n, sizeof *nv->cls);
  nv->dist = calloc(n, sizeof *nv->dist);
  bool *reach = calloc(n, sizeof *reach);
  if (!nv->dead || !nv->in_s || !nv->cls || !nv->dist || !reach)
    abort();
  for (uint64_t s = 0; s < n; s++)
    nv->dead[s] = true;
  for (uint64_t e = 0; e < nv->nedges; e++)
    nv->dead[nv->edges[e].src] = false;

  /* Distances: Bellman-Ford style relaxation to a fixpoint (unit weights). */
  for (uint64_t s = 0; s < n; s++)
    nv->dist[s] = -1;
  nv->dist[0] = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (uint64_t e = 0; e < nv->nedges; e++) {
      const struct naive_edge *ed = &nv->edges[e];
      if (nv->dist[ed->src] < 0)
        continue;
      if (nv->dist[ed->dst] < 0 || nv->dist[ed->src] + 1 < nv->dist[ed->dst]) {
        nv->dist[ed->dst] = nv->dist[ed->src] + 1;
        changed = true;
      }
    }
  }

  /* S: start from every marking, shrink until stable. */
  for (uint64_t s = 0; s < n; s++)
    nv->in_s[s] = true;
  for (bool changed = true; changed;) {
    changed = false;
    memset(reach, 0, n * sizeof *reach);
    reach[0] = nv->in_s[0];
    for (bool grew = true; grew;) {
      grew = false;
      for (uint64_t e = 0; e < nv->nedges; e++) {
        const struct naive_edge *ed = &nv->edges[e];
        if (nv->in_s[ed->src] && nv->in_s[ed->dst] && reach[ed->dst] && !reach[ed->src]) {
          reach[ed->src] = true;
          grew = true;
        }
      }
    }
    for (uint64_t s = 0; s < n; s++)
      if (nv->in_s[s] && !reach[s]) {
        nv->in_s[s] = false;
        changed = true;
      }
    for (uint64_t e = 0; e < nv->nedges; e++) {
      const struct naive_edge *ed = &nv->edges[e];
      if (net->transitions[ed->t].kind == PN_PROGRESS && nv->in_s[ed->src] && !nv->in_s[ed->dst]) {
        nv->in_s[ed->src] = false;
        changed = true;
      }
    }
  }
  free(reach);

  for (uint64_t s = 0; s < n; s++)
    nv->cls[s] = nv->dead[s] ? PN_CLASS_DEAD : nv->in_s[s] ? PN_CLASS_SATURATED : PN_CLASS_UNSAFE;
  for (uint64_t e = 0; e < nv->nedges; e++) {
    const struct naive_edge *ed = &nv->edges[e];
    if (nv->cls[ed->src] == PN_CLASS_SATURATED && net->transitions[ed->t].kind == PN_ADMISSION &&
        nv->in_s[ed->dst])
      nv->cls[ed->src] = PN_CLASS_SAFE;
  }
  return 0;

too_big:
  free(stack);
  free(m);
  free(next);
  return -1;
}

void naive_free(struct naive *nv)
{
  free(nv->marks);
  free(nv->edges);
  free(nv->dead);
  free(nv->in_s);
  free(nv->cls);
  free(nv->dist);
  free(nv->slots);
  memset(nv, 0, sizeof *nv);
}
