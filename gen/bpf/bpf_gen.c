/* bpf_gen: the optimizing seccomp-BPF code generator (docs/bpf-layout.md).
 *
 * Pipeline, one function per stage:
 *   plan_rules     per system call number, the rules that can still decide
 *                  (after the first unconditional rule nothing can) -> a leaf:
 *                  a plain action, or a "group" (argument block) shared by
 *                  every number whose rule list is structurally the same;
 *   plan_segments  the number line [0, 2^32) cut into maximal runs with the
 *                  same leaf (adjacent numbers merge into ranges);
 *   plan_tree      an optimal alphabetic decision tree over the runs,
 *                  weighted by how many allowed system calls each run holds
 *                  (dynamic programming with Knuth's bound), with JEQ chains
 *                  for isolated exceptions inside a run and JSET tests on
 *                  the low bits of nr where the decisions follow them
 *                  (bit_dp: the same search over bit-constrained sets);
 *   emit_*         instructions with symbolic labels and comments: prologue
 *                  (arch), tree, argument blocks, one shared RET per action;
 *   layout         labels -> offsets, JA trampolines for jumps > 255.
 *
 * Cacheability (why the tree uses so few opcodes): the kernel decides at
 * attach time, per (arch, nr), whether a filter allows the call for any
 * arguments by emulating it with only LD nr/arch, JEQ/JGE/JGT/JSET K, JA,
 * AND K and RET K (kernel/seccomp.c, seccomp_is_const_allow). The prologue
 * and the tree use only those and load no argument, so every number whose
 * leaf is a plain allow is cached and never runs the filter again.
 *
 * The plan's structures are in bpf_plan.h, shared with the pseudo-code view
 * (bpf_pseudo.c); the disassembler of finished programs is gen/bpfview. */
#include "bpf_gen.h"
#include "bpf_plan.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Planning                                                            */

void bpf_plan_free(struct plan *p)
{
  for (uint32_t i = 0; i < p->ngroups; i++)
    free(p->groups[i].rules);
  free(p->groups);
  free(p->leaves);
  free(p->segs);
  free(p->nodes);
  free(p->nleaf);
  free(p->nseg);
  free(p->nweight);
  for (uint32_t v = 0; p->views && v < 1u << (2 * BIT_TEST_BITS); v++) {
    free(p->views[v].pw);
    free(p->views[v].pchg);
    free(p->views[v].nextm);
    free(p->views[v].prevm);
  }
  free(p->views);
  free(p->memo);
  memset(p, 0, sizeof *p);
}

static bool cond_equal(const struct sc_cond *a, const struct sc_cond *b)
{
  uint64_t wm = a->is32 ? 0xffffffffu : UINT64_MAX;
  if (a->arg != b->arg || a->op != b->op || a->is32 != b->is32)
    return false;
  if ((a->value & wm) != (b->value & wm))
    return false;
  if (a->op == SC_CMP_MASKED_EQ && (a->mask & wm) != (b->mask & wm))
    return false;
  return true;
}

static bool rule_is_unconditional(const struct sc_rule *r)
{
  if (r->nclauses == 0)
    return true;
  for (uint32_t c = 0; c < r->nclauses; c++)
    if (r->clauses[c].nconds == 0)
      return true; /* an empty conjunction holds */
  return false;
}

static bool rule_equal(const struct sc_rule *a, const struct sc_rule *b)
{
  if (!sc_action_equal(a->action, b->action) || a->nclauses != b->nclauses)
    return false;
  for (uint32_t c = 0; c < a->nclauses; c++) {
    if (a->clauses[c].nconds != b->clauses[c].nconds)
      return false;
    for (uint32_t k = 0; k < a->clauses[c].nconds; k++)
      if (!cond_equal(&a->clauses[c].conds[k], &b->clauses[c].conds[k]))
        return false;
  }
  return true;
}

static int leaf_for_action(struct plan *p, struct sc_action a, uint32_t *out)
{
  for (uint32_t i = 0; i < p->nleaves; i++)
    if (p->leaves[i].kind == LEAF_ACTION && sc_action_equal(p->leaves[i].act, a)) {
      *out = i;
      return 0;
    }
  struct leaf *grown = realloc(p->leaves, (p->nleaves + 1) * sizeof *grown);
  if (!grown)
    return -ENOMEM;
  p->leaves = grown;
  p->leaves[p->nleaves] = (struct leaf){ .kind = LEAF_ACTION, .act = a, .label = -1 };
  *out = p->nleaves++;
  return 0;
}

static int validate_rule(const struct sc_rule *r, bool x32_gate)
{
  if (r->nr < 0) {
    diag_error(r->loc.file ? &r->loc : NULL, "system call '%s' has no number on this architecture",
               r->name ? r->name : "?");
    return -EINVAL;
  }
  if (x32_gate && (uint32_t)r->nr >= NR_X32_BIT) {
    diag_error(r->loc.file ? &r->loc : NULL,
               "rule for x32 system call %d, but the rule set refuses the x32 ABI", r->nr);
    return -EINVAL;
  }
  if ((unsigned)r->action.kind > SC_ACT_TRACE)
    return -EINVAL;
  for (uint32_t c = 0; c < r->nclauses; c++)
    for (uint32_t k = 0; k < r->clauses[c].nconds; k++) {
      const struct sc_cond *cd = &r->clauses[c].conds[k];
      if (cd->arg > 5 || (unsigned)cd->op > SC_CMP_MASKED_EQ) {
        diag_error(r->loc.file ? &r->loc : NULL, "malformed condition on argument %u of '%s'",
                   (unsigned)cd->arg, r->name ? r->name : "?");
        return -EINVAL;
      }
    }
  return 0;
}

/* Sort key: number, then declaration order (qsort is not stable). */
struct rule_ref {
  uint32_t nr;
  uint32_t idx;
};

static int cmp_rule_ref(const void *a, const void *b)
{
  const struct rule_ref *x = a, *y = b;
  if (x->nr != y->nr)
    return x->nr < y->nr ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Per number, the leaf deciding it. nr_leaf pairs are returned sorted. */
struct nr_leaf {
  uint32_t nr;
  uint32_t leaf;
};

static int plan_rules(struct plan *p, struct nr_leaf **out, uint32_t *nout)
{
  const struct sc_ruleset *rs = p->rs;
  struct rule_ref *refs = NULL;
  struct nr_leaf *nl = NULL;
  const struct sc_rule **list = NULL;
  uint32_t nnl = 0;
  int rc = 0;

  if (rs->nrules) {
    refs = calloc(rs->nrules, sizeof *refs);
    nl = calloc(rs->nrules, sizeof *nl);
    list = calloc(rs->nrules, sizeof *list);
    if (!refs || !nl || !list) {
      rc = -ENOMEM;
      goto fail;
    }
  }
  for (uint32_t i = 0; i < rs->nrules; i++) {
    rc = validate_rule(&rs->rules[i], p->x32_gate);
    if (rc)
      goto fail;
    refs[i] = (struct rule_ref){ (uint32_t)rs->rules[i].nr, i };
  }
  if (rs->nrules)
    qsort(refs, rs->nrules, sizeof *refs, cmp_rule_ref);

  for (uint32_t i = 0; i < rs->nrules;) {
    uint32_t nr = refs[i].nr, n = 0;
    bool unconditional_end = false;
    for (; i < rs->nrules && refs[i].nr == nr; i++) {
      const struct sc_rule *r = &rs->rules[refs[i].idx];
      /* First match decides: rules after an unconditional one are dead. */
      if (unconditional_end)
        continue;
      list[n++] = r;
      if (rule_is_unconditional(r))
        unconditional_end = true;
    }
    struct sc_action fallback = rs->default_action;
    if (unconditional_end) {
      fallback = list[--n]->action;
    }
    /* Trailing rules that decide what the fallback decides anyway change
     * nothing; dropping them shortens the argument block. */
    while (n > 0 && sc_action_equal(list[n - 1]->action, fallback))
      n--;
    uint32_t leaf;
    if (n == 0) {
      rc = leaf_for_action(p, fallback, &leaf);
      if (rc)
        goto fail;
    } else {
      uint32_t g;
      for (g = 0; g < p->ngroups; g++) {
        struct group *gr = &p->groups[g];
        if (gr->nrules != n || !sc_action_equal(gr->fallback, fallback))
          continue;
        uint32_t k = 0;
        while (k < n && rule_equal(gr->rules[k], list[k]))
          k++;
        if (k == n)
          break;
      }
      if (g == p->ngroups) {
        struct group *grown = realloc(p->groups, (p->ngroups + 1) * sizeof *grown);
        if (!grown) {
          rc = -ENOMEM;
          goto fail;
        }
        p->groups = grown;
        struct group *gr = &p->groups[p->ngroups];
        memset(gr, 0, sizeof *gr);
        gr->rules = malloc(n * sizeof *gr->rules);
        if (!gr->rules) {
          rc = -ENOMEM;
          goto fail;
        }
        memcpy(gr->rules, list, n * sizeof *gr->rules);
        gr->nrules = n;
        gr->first_nr = nr;
        gr->fallback = fallback;
        gr->ends_unconditional = unconditional_end;
        p->ngroups++; /* owned by the plan from here on */
        /* Every action an argument block can reach needs its RET leaf. */
        uint32_t unused;
        for (uint32_t k = 0; k < n && rc == 0; k++)
          rc = leaf_for_action(p, list[k]->action, &unused);
        if (rc == 0)
          rc = leaf_for_action(p, fallback, &unused);
        if (rc)
          goto fail;
        struct leaf *lg = realloc(p->leaves, (p->nleaves + 1) * sizeof *lg);
        if (!lg) {
          rc = -ENOMEM;
          goto fail;
        }
        p->leaves = lg;
        p->leaves[p->nleaves] = (struct leaf){ .kind = LEAF_GROUP, .group = g, .label = -1 };
        leaf = p->nleaves++;
      } else {
        for (leaf = 0; leaf < p->nleaves; leaf++)
          if (p->leaves[leaf].kind == LEAF_GROUP && p->leaves[leaf].group == g)
            break;
      }
    }
    nl[nnl++] = (struct nr_leaf){ nr, leaf };
  }
  free(refs);
  free(list);
  *out = nl;
  *nout = nnl;
  return 0;
fail:
  free(refs);
  free(list);
  free(nl);
  return rc;
}

static bool leaf_is_hot(const struct plan *p, uint32_t leaf)
{
  const struct leaf *l = &p->leaves[leaf];
  if (l->kind == LEAF_GROUP)
    return true;
  return l->act.kind == SC_ACT_ALLOW || l->act.kind == SC_ACT_LOG;
}

static bool nr_exists(uint32_t arch, uint32_t nr)
{
  char *name = seccomp_syscall_resolve_num_arch(arch, (int)nr);
  bool ok = name != NULL;
  free(name);
  return ok;
}

static int push_segment(struct plan *p, uint32_t *cap, uint32_t lo, uint32_t hi, uint32_t leaf)
{
  if (p->nsegs && p->segs[p->nsegs - 1].leaf == leaf && p->segs[p->nsegs - 1].hi + 1 == lo) {
    p->segs[p->nsegs - 1].hi = hi;
    return 0;
  }
  if (p->nsegs == *cap) {
    uint32_t ncap = *cap ? *cap * 2 : 64;
    struct segment *g = realloc(p->segs, ncap * sizeof *g);
    if (!g)
      return -ENOMEM;
    p->segs = g;
    *cap = ncap;
  }
  p->segs[p->nsegs++] = (struct segment){ .lo = lo, .hi = hi, .leaf = leaf };
  return 0;
}

static int plan_segments(struct plan *p, const struct nr_leaf *nl, uint32_t nnl)
{
  const struct sc_ruleset *rs = p->rs;
  uint32_t cap = 0, def, bad;
  int rc = leaf_for_action(p, rs->default_action, &def);
  if (rc)
    return rc;
  rc = leaf_for_action(p, rs->bad_arch_action, &bad);
  if (rc)
    return rc;
  uint32_t top = p->x32_gate ? NR_X32_BIT - 1 : UINT32_MAX;
  uint32_t next = 0;
  for (uint32_t i = 0; i < nnl; i++) {
    if (nl[i].nr > next && (rc = push_segment(p, &cap, next, nl[i].nr - 1, def)))
      return rc;
    if ((rc = push_segment(p, &cap, nl[i].nr, nl[i].nr, nl[i].leaf)))
      return rc;
    next = nl[i].nr + 1;
    if (nl[i].nr == UINT32_MAX)
      break;
  }
  if ((nnl == 0 || nl[nnl - 1].nr < top) && next <= top &&
      (rc = push_segment(p, &cap, next, top, def)))
    return rc;
  if (p->x32_gate) {
    /* x32 numbers go where a foreign architecture goes; -1 (a tracer's
     * "skip") is decided like an unknown native number, as libseccomp does. */
    if ((rc = push_segment(p, &cap, NR_X32_BIT, UINT32_MAX - 1, bad)))
      return rc;
    if ((rc = push_segment(p, &cap, UINT32_MAX, UINT32_MAX, def)))
      return rc;
  }
  p->nleaf = calloc(NR_WEIGHT_LIMIT, sizeof *p->nleaf);
  p->nseg = calloc(NR_WEIGHT_LIMIT, sizeof *p->nseg);
  p->nweight = calloc(NR_WEIGHT_LIMIT, sizeof *p->nweight);
  if (!p->nleaf || !p->nseg || !p->nweight)
    return -ENOMEM;
  for (uint32_t s = 0; s < p->nsegs; s++) {
    struct segment *sg = &p->segs[s];
    uint64_t hot = 0;
    if (sg->lo < NR_WEIGHT_LIMIT) {
      bool is_hot = leaf_is_hot(p, sg->leaf);
      uint32_t end = sg->hi < NR_WEIGHT_LIMIT ? sg->hi : NR_WEIGHT_LIMIT - 1;
      for (uint32_t nr = sg->lo; nr <= end; nr++) {
        bool h = is_hot && nr_exists(rs->audit_arch, nr);
        hot += h;
        p->nleaf[nr] = sg->leaf;
        p->nseg[nr] = s;
        p->nweight[nr] = (h ? 1024u : 0u) + (nr == sg->lo);
      }
    }
    /* Every run weighs a little so cold runs still get a balanced subtree. */
    sg->weight = 1 + 1024 * hot;
  }
  return 0;
}

/* One exception of a chain: a single number with its own leaf. */
struct exc {
  uint64_t w;
  uint32_t nr, leaf;
};

/* Heaviest first; the sort is stable, so equal weights keep the lower
 * number first (the callers collect them in increasing order). */
static void exc_sort(struct exc *e, uint32_t h)
{
  for (uint32_t a = 1; a < h; a++)
    for (uint32_t b = a; b > 0 && e[b].w > e[b - 1].w; b--) {
      struct exc t = e[b];
      e[b] = e[b - 1];
      e[b - 1] = t;
    }
}

/* The weighted comparisons of a chain: the main leaf's numbers pass every
 * JEQ, the k-th exception (heaviest first) k of them. Sorts e. */
static uint64_t exc_chain_cost(uint64_t wmain, struct exc *e, uint32_t h)
{
  exc_sort(e, h);
  uint64_t c = wmain * h;
  for (uint32_t a = 0; a < h; a++)
    c += (a + 1) * e[a].w;
  return c;
}

/* Exception chain cost for runs i..j: every run except those of leaf main
 * must be a single number; each is tested by one JEQ, heaviest first. */
static bool peel_cost(const struct plan *p, uint32_t i, uint32_t j, uint32_t main_leaf,
                      uint64_t *cost)
{
  uint64_t wmain = 0;
  struct exc e[PEEL_MAX_SEGMENTS];
  uint32_t h = 0;
  for (uint32_t s = i; s <= j; s++) {
    const struct segment *sg = &p->segs[s];
    if (sg->leaf == main_leaf) {
      wmain += sg->weight;
      continue;
    }
    if (sg->lo != sg->hi || h == PEEL_MAX_SEGMENTS)
      return false;
    e[h++] = (struct exc){ sg->weight, sg->lo, sg->leaf };
  }
  if (h == 0)
    return false;
  *cost = exc_chain_cost(wmain, e, h);
  return true;
}

/* -1 (and p->err set) when the node array cannot grow. */
static int new_node(struct plan *p, struct tnode n)
{
  if (p->nnodes == p->nodes_cap) {
    uint32_t nc = p->nodes_cap ? p->nodes_cap * 2 : 64;
    struct tnode *g = realloc(p->nodes, nc * sizeof *g);
    if (!g) {
      p->err = -ENOMEM;
      return -1;
    }
    p->nodes = g;
    p->nodes_cap = nc;
  }
  p->nodes[p->nnodes] = n;
  return (int)p->nnodes++;
}

struct dp {
  uint32_t n;
  uint64_t *cost;
  int32_t *root; /* >0: split at that run; -1/-2: exception chain with leaf of run i / j;
                    DP_ROOT_BIT - m: a test of the bits m */
  uint64_t *pre;
};

#define DP_AT(d, i, j) ((size_t)(i) * (d)->n + (j))
#define DP_ROOT_BIT (-16)

/* JEQ nodes for the exceptions e (sorted, heaviest first) above the leaf
 * node `tail`, which also gives the set the chain covers. */
static int32_t peel_chain(struct plan *p, struct tnode tail, const struct exc *e, uint32_t h)
{
  int32_t node = new_node(p, tail);
  for (uint32_t a = h; a-- > 0;) {
    struct tnode pn = tail;
    pn.kind = T_PEEL;
    pn.k = e[a].nr;
    pn.leaf = e[a].leaf;
    pn.lo_child = node;
    node = new_node(p, pn);
  }
  return node;
}

static int32_t build_chain(struct plan *p, uint32_t i, uint32_t j, uint32_t main_leaf)
{
  struct exc e[PEEL_MAX_SEGMENTS];
  uint32_t h = 0;
  for (uint32_t s = i; s <= j; s++)
    if (p->segs[s].leaf != main_leaf)
      e[h++] = (struct exc){ p->segs[s].weight, p->segs[s].lo, p->segs[s].leaf };
  exc_sort(e, h);
  return peel_chain(p,
                    (struct tnode){ .kind = T_LEAF,
                                    .leaf = main_leaf,
                                    .lo_child = -1,
                                    .hi_child = -1,
                                    .first_seg = i,
                                    .last_seg = j },
                    e, h);
}

/* ------------------------------------------------------------------ */
/* Bit tests: the tree search below a JSET on one bit of nr            */

/* A set of the search below a bit test: the numbers of runs i..j whose
 * bits in `zero` are clear and whose bits in `one` are set. Such sets only
 * hold numbers below NR_WEIGHT_LIMIT. */
static bool bit_match(uint32_t x, uint32_t zero, uint32_t one)
{
  return (x & zero) == 0 && (x & one) == one;
}

static const struct bitview *bit_view(struct plan *p, uint32_t zero, uint32_t one)
{
  if (p->err)
    return NULL;
  if (!p->views) {
    p->views = calloc(1u << (2 * BIT_TEST_BITS), sizeof *p->views);
    if (!p->views) {
      p->err = -ENOMEM;
      return NULL;
    }
  }
  struct bitview *v = &p->views[zero | one << BIT_TEST_BITS];
  if (v->pw)
    return v;
  v->pw = calloc(NR_WEIGHT_LIMIT + 1, sizeof *v->pw);
  v->pchg = calloc(NR_WEIGHT_LIMIT + 1, sizeof *v->pchg);
  v->nextm = calloc(NR_WEIGHT_LIMIT + 1, sizeof *v->nextm);
  v->prevm = calloc(NR_WEIGHT_LIMIT + 1, sizeof *v->prevm);
  if (!v->pw || !v->pchg || !v->nextm || !v->prevm) {
    free(v->pw);
    free(v->pchg);
    free(v->nextm);
    free(v->prevm);
    memset(v, 0, sizeof *v);
    p->err = -ENOMEM;
    return NULL;
  }
  bool have = false;
  uint32_t prev = 0;
  for (uint32_t x = 0; x < NR_WEIGHT_LIMIT; x++) {
    bool m = bit_match(x, zero, one);
    uint32_t change = 0;
    if (m) {
      change = have && p->nleaf[x] != prev;
      prev = p->nleaf[x];
      have = true;
    }
    v->pw[x + 1] = v->pw[x] + (m ? p->nweight[x] : 0);
    v->pchg[x + 1] = v->pchg[x] + change;
    v->prevm[x + 1] = m ? x + 1 : v->prevm[x];
  }
  v->nextm[NR_WEIGHT_LIMIT] = NR_WEIGHT_LIMIT;
  for (uint32_t x = NR_WEIGHT_LIMIT; x-- > 0;)
    v->nextm[x] = bit_match(x, zero, one) ? x : v->nextm[x + 1];
  return v;
}

enum { BM_LEAF, BM_CHAIN, BM_SPLIT, BM_BIT };

static uint64_t bit_key(uint32_t i, uint32_t j, uint32_t zero, uint32_t one)
{
  return 1 + ((uint64_t)i | (uint64_t)j << 16 | (uint64_t)zero << 32 | (uint64_t)one << 40);
}

static uint32_t bit_hash(uint64_t key, uint32_t cap)
{
  key ^= key >> 31;
  key *= 0x9e3779b97f4a7c15ull;
  key ^= key >> 29;
  return (uint32_t)key & (cap - 1);
}

/* The memo slot of key (a free one if absent); NULL when it cannot grow. */
static struct bitmemo *bit_slot(struct plan *p, uint64_t key)
{
  if (p->memo_used * 2 >= p->memo_cap) {
    uint32_t nc = p->memo_cap ? p->memo_cap * 2 : 4096;
    struct bitmemo *g = calloc(nc, sizeof *g);
    if (!g) {
      p->err = -ENOMEM;
      return NULL;
    }
    for (uint32_t s = 0; s < p->memo_cap; s++) {
      if (!p->memo[s].key)
        continue;
      uint32_t h = bit_hash(p->memo[s].key, nc);
      while (g[h].key)
        h = (h + 1) & (nc - 1);
      g[h] = p->memo[s];
    }
    free(p->memo);
    p->memo = g;
    p->memo_cap = nc;
  }
  uint32_t h = bit_hash(key, p->memo_cap);
  while (p->memo[h].key && p->memo[h].key != key)
    h = (h + 1) & (p->memo_cap - 1);
  return &p->memo[h];
}

/* Exception chain over a bit-constrained set: every member not of the main
 * leaf is tested by one JEQ, heaviest first. Fills the cheapest main leaf. */
static bool bit_chain_cost(const struct plan *p, uint32_t lo, uint32_t hi, uint32_t zero,
                           uint32_t one, uint32_t *main_leaf, uint64_t *cost)
{
  uint32_t cand[2 * BIT_CHAIN_MAX + 2], nc = 0;
  bool found = false;
  for (uint32_t x = lo; x <= hi; x++) {
    if (!bit_match(x, zero, one))
      continue;
    uint32_t c = 0;
    while (c < nc && cand[c] != p->nleaf[x])
      c++;
    if (c == nc) {
      if (nc == 2 * BIT_CHAIN_MAX + 2)
        return false;
      cand[nc++] = p->nleaf[x];
    }
  }
  for (uint32_t c = 0; c < nc; c++) {
    uint64_t wmain = 0;
    struct exc e[BIT_CHAIN_MAX];
    uint32_t h = 0;
    bool ok = true;
    for (uint32_t x = lo; x <= hi && ok; x++) {
      if (!bit_match(x, zero, one))
        continue;
      if (p->nleaf[x] == cand[c])
        wmain += p->nweight[x];
      else if (h == BIT_CHAIN_MAX)
        ok = false;
      else
        e[h++] = (struct exc){ p->nweight[x], x, p->nleaf[x] };
    }
    if (!ok)
      continue;
    uint64_t total = exc_chain_cost(wmain, e, h);
    if (!found || total < *cost) {
      *cost = total;
      *main_leaf = cand[c];
      found = true;
    }
  }
  return found;
}

/* Whether a bit test on bit `bit` is worth trying on numbers lo..hi. */
static bool bit_span_ok(uint32_t lo, uint32_t hi, uint32_t b)
{
  return hi < NR_WEIGHT_LIMIT && hi - lo + 1 <= 1u << (b + BIT_SPAN_SHIFT);
}

/* The same set named by the runs of its first and last member, so that
 * equal sets share one memo entry. */
static void bit_norm(struct plan *p, uint32_t *i, uint32_t *j, uint32_t zero, uint32_t one)
{
  const struct bitview *v = bit_view(p, zero, one);
  if (!v)
    return;
  *i = p->nseg[v->nextm[p->segs[*i].lo]];
  *j = p->nseg[v->prevm[p->segs[*j].hi + 1] - 1];
}

static uint64_t bit_dp(struct plan *p, uint32_t i, uint32_t j, uint32_t zero, uint32_t one);

/* Tests of bits of nr on the set (i, j, zero, one) of weight w: one bit,
 * each side searched further; or several bits at once when every number
 * with one of them set has the same leaf (a JSET whose true side is that
 * leaf). Lowers *best and returns true (the bits in *mask) when one is
 * cheaper. */
static bool bit_tests(struct plan *p, uint32_t i, uint32_t j, uint32_t zero, uint32_t one,
                      uint64_t w, uint64_t *best, uint32_t *mask)
{
  uint32_t lo = p->segs[i].lo, hi = p->segs[j].hi;
  uint32_t pure[BIT_TEST_BITS], pure_bits = 0;
  bool found = false;
  for (uint32_t b = 0; b < BIT_TEST_BITS && !p->err; b++) {
    uint32_t bit = 1u << b;
    if ((zero | one) & bit || !bit_span_ok(lo, hi, b))
      continue;
    const struct bitview *v0 = bit_view(p, zero | bit, one), *v1 = bit_view(p, zero, one | bit);
    if (!v0 || !v1 || v0->nextm[lo] > hi || v1->nextm[lo] > hi)
      continue;
    uint32_t f1 = v1->nextm[lo];
    if (v1->pchg[hi + 1] == v1->pchg[f1 + 1]) {
      pure[b] = p->nleaf[f1];
      pure_bits |= bit;
    }
    uint64_t c = w + bit_dp(p, i, j, zero | bit, one);
    if (c >= *best)
      continue;
    c += bit_dp(p, i, j, zero, one | bit);
    if (c < *best) {
      *best = c;
      *mask = bit;
      found = true;
    }
  }
  /* Several bits whose "set" sides share one leaf: subsets of them, in
   * increasing order (deterministic). */
  for (uint32_t m = 3; m < 1u << BIT_TEST_BITS && !p->err; m++) {
    if ((m & pure_bits) != m || (m & (m - 1)) == 0)
      continue;
    uint32_t leaf = pure[__builtin_ctz(m)];
    bool same = true;
    for (uint32_t b = 0; b < BIT_TEST_BITS; b++)
      if (m >> b & 1)
        same = same && pure[b] == leaf;
    const struct bitview *v0 = same ? bit_view(p, zero | m, one) : NULL;
    if (!v0 || v0->nextm[lo] > hi)
      continue;
    uint64_t c = w + bit_dp(p, i, j, zero | m, one);
    if (c < *best) {
      *best = c;
      *mask = m;
      found = true;
    }
  }
  return found;
}

/* A JSET node on the bits m of the set (i, j, zero, one), as bit_tests
 * chose it. */
static int32_t bit_build(struct plan *p, uint32_t i, uint32_t j, uint32_t zero, uint32_t one);

static int32_t bit_node(struct plan *p, uint32_t i, uint32_t j, uint32_t zero, uint32_t one,
                        uint32_t m)
{
  struct tnode n = {
    .kind = T_BIT, .k = m, .first_seg = i, .last_seg = j, .zero = zero, .one = one
  };
  n.lo_child = bit_build(p, i, j, zero | m, one);
  if (m & (m - 1)) {
    /* Several bits: every number with one of them set has one leaf. */
    struct tnode leaf = { .kind = T_LEAF,
                          .lo_child = -1,
                          .hi_child = -1,
                          .first_seg = i,
                          .last_seg = j,
                          .zero = zero,
                          .one = one,
                          .any = m };
    for (uint32_t x = p->segs[i].lo; x <= p->segs[j].hi; x++)
      if (bit_match(x, zero, one) && (x & m)) {
        leaf.leaf = p->nleaf[x];
        break;
      }
    n.hi_child = new_node(p, leaf);
  } else {
    n.hi_child = bit_build(p, i, j, zero, one | m);
  }
  return new_node(p, n);
}

/* The weighted number of comparisons of the best tree for a non-empty
 * bit-constrained set (0 after a failed allocation, with p->err set):
 * a leaf, an exception chain, a threshold between two runs, or a test of
 * one more bit. Memoized by (i, j, zero, one). */
static uint64_t bit_dp(struct plan *p, uint32_t i, uint32_t j, uint32_t zero, uint32_t one)
{
  bit_norm(p, &i, &j, zero, one);
  uint64_t key = bit_key(i, j, zero, one);
  struct bitmemo *slot = bit_slot(p, key);
  if (!slot)
    return 0;
  if (slot->key)
    return slot->cost;
  const struct bitview *v = bit_view(p, zero, one);
  if (!v)
    return 0;
  uint32_t lo = p->segs[i].lo, hi = p->segs[j].hi;
  uint32_t first = v->nextm[lo];
  uint64_t w = v->pw[hi + 1] - v->pw[lo], best = UINT64_MAX, c = 0;
  uint32_t changes = v->pchg[hi + 1] - v->pchg[first + 1];
  int kind = BM_LEAF;
  uint32_t arg = p->nleaf[first];
  if (changes == 0) {
    best = 0;
  } else {
    uint32_t main_leaf;
    if (changes <= 2 * BIT_CHAIN_MAX + 1 && bit_chain_cost(p, lo, hi, zero, one, &main_leaf, &c)) {
      best = c;
      kind = BM_CHAIN;
      arg = main_leaf;
    }
    for (uint32_t k = i + 1; k <= j && !p->err; k++) {
      uint32_t b = p->segs[k].lo;
      if (first >= b || v->nextm[b] > hi)
        continue; /* one side would be empty */
      /* Thresholds only where the leaf changes between two members, as
       * between runs. A heuristic below bit tests (a member moved across
       * the threshold may take another branch of a bit test); on Docker's
       * and the seed profiles it changes no tree's cost, and it halves the
       * search. */
      if (p->nleaf[v->prevm[b] - 1] == p->nleaf[v->nextm[b]])
        continue;
      c = w + bit_dp(p, i, k - 1, zero, one);
      if (c >= best)
        continue;
      c += bit_dp(p, k, j, zero, one);
      if (c < best) {
        best = c;
        kind = BM_SPLIT;
        arg = k;
      }
    }
    uint32_t mask;
    if (bit_tests(p, i, j, zero, one, w, &best, &mask)) {
      kind = BM_BIT;
      arg = mask;
    }
  }
  if (p->err)
    return 0;
  /* The recursion may have grown the table: find the slot again. */
  slot = bit_slot(p, key);
  if (!slot)
    return 0;
  if (!slot->key)
    p->memo_used++;
  *slot = (struct bitmemo){ .key = key, .cost = best, .choice = kind, .arg = arg };
  return best;
}

static int32_t bit_build(struct plan *p, uint32_t i, uint32_t j, uint32_t zero, uint32_t one)
{
  bit_norm(p, &i, &j, zero, one);
  struct bitmemo *slot = bit_slot(p, bit_key(i, j, zero, one));
  if (!slot || !slot->key) {
    if (!p->err)
      p->err = -EINVAL; /* bit_dp filled every set it chose */
    return -1;
  }
  int kind = slot->choice;
  uint32_t arg = slot->arg;
  struct tnode base = { .kind = T_LEAF,
                        .lo_child = -1,
                        .hi_child = -1,
                        .first_seg = i,
                        .last_seg = j,
                        .zero = zero,
                        .one = one };
  switch (kind) {
  case BM_LEAF:
    base.leaf = arg;
    return new_node(p, base);
  case BM_CHAIN: {
    struct exc e[BIT_CHAIN_MAX];
    uint32_t h = 0;
    for (uint32_t x = p->segs[i].lo; x <= p->segs[j].hi && h < BIT_CHAIN_MAX; x++)
      if (bit_match(x, zero, one) && p->nleaf[x] != arg)
        e[h++] = (struct exc){ p->nweight[x], x, p->nleaf[x] };
    exc_sort(e, h);
    base.leaf = arg;
    return peel_chain(p, base, e, h);
  }
  case BM_SPLIT: {
    int32_t lo = bit_build(p, i, arg - 1, zero, one);
    int32_t hi = bit_build(p, arg, j, zero, one);
    base.kind = T_SPLIT;
    base.k = p->segs[arg].lo;
    base.lo_child = lo;
    base.hi_child = hi;
    return new_node(p, base);
  }
  default:
    return bit_node(p, i, j, zero, one, arg);
  }
}

static int32_t build_dp(struct plan *p, const struct dp *d, uint32_t i, uint32_t j)
{
  if (i == j)
    return new_node(p, (struct tnode){ .kind = T_LEAF,
                                       .leaf = p->segs[i].leaf,
                                       .lo_child = -1,
                                       .hi_child = -1,
                                       .first_seg = i,
                                       .last_seg = i });
  int32_t r = d->root[DP_AT(d, i, j)];
  if (r <= DP_ROOT_BIT)
    return bit_node(p, i, j, 0, 0, (uint32_t)(DP_ROOT_BIT - r));
  if (r < 0)
    return build_chain(p, i, j, r == -1 ? p->segs[i].leaf : p->segs[j].leaf);
  int32_t lo = build_dp(p, d, i, (uint32_t)r - 1);
  int32_t hi = build_dp(p, d, (uint32_t)r, j);
  return new_node(p, (struct tnode){ .kind = T_SPLIT,
                                     .k = p->segs[r].lo,
                                     .lo_child = lo,
                                     .hi_child = hi,
                                     .first_seg = i,
                                     .last_seg = j });
}

/* Fallback for very many runs: split where the weights balance. */
static int32_t build_balanced(struct plan *p, const uint64_t *pre, uint32_t i, uint32_t j)
{
  if (i == j)
    return new_node(p, (struct tnode){ .kind = T_LEAF,
                                       .leaf = p->segs[i].leaf,
                                       .lo_child = -1,
                                       .hi_child = -1,
                                       .first_seg = i,
                                       .last_seg = i });
  uint32_t best = i + 1;
  uint64_t best_diff = UINT64_MAX;
  for (uint32_t k = i + 1; k <= j; k++) {
    uint64_t left = pre[k] - pre[i], right = pre[j + 1] - pre[k];
    uint64_t diff = left > right ? left - right : right - left;
    if (diff < best_diff) {
      best_diff = diff;
      best = k;
    }
  }
  int32_t lo = build_balanced(p, pre, i, best - 1);
  int32_t hi = build_balanced(p, pre, best, j);
  return new_node(p, (struct tnode){ .kind = T_SPLIT,
                                     .k = p->segs[best].lo,
                                     .lo_child = lo,
                                     .hi_child = hi,
                                     .first_seg = i,
                                     .last_seg = j });
}

static int plan_tree(struct plan *p)
{
  uint32_t n = p->nsegs;
  struct dp d = { .n = n };
  int rc = 0;
  d.pre = calloc((size_t)n + 1, sizeof *d.pre);
  if (!d.pre) {
    rc = -ENOMEM;
    goto done;
  }
  for (uint32_t s = 0; s < n; s++)
    d.pre[s + 1] = d.pre[s] + p->segs[s].weight;
  if (n > DP_MAX_SEGMENTS) {
    p->root = build_balanced(p, d.pre, 0, n - 1);
    if (p->err)
      rc = p->err;
    goto done;
  }
  d.cost = calloc((size_t)n * n, sizeof *d.cost);
  d.root = calloc((size_t)n * n, sizeof *d.root);
  int32_t *kroot = calloc((size_t)n * n, sizeof *kroot); /* Knuth bounds, splits only */
  if (!d.cost || !d.root || !kroot) {
    free(kroot);
    rc = -ENOMEM;
    goto done;
  }
  for (uint32_t i = 0; i < n; i++)
    kroot[DP_AT(&d, i, i)] = (int32_t)i;
  for (uint32_t len = 2; len <= n; len++) {
    for (uint32_t i = 0; i + len - 1 < n; i++) {
      uint32_t j = i + len - 1;
      uint64_t w = d.pre[j + 1] - d.pre[i], best = UINT64_MAX;
      /* Knuth: the optimal split of [i,j] lies between those of [i,j-1]
       * and [i+1,j] (the weights are additive, so the quadrangle
       * inequality holds). */
      uint32_t from = (uint32_t)kroot[DP_AT(&d, i, j - 1)],
               to = (uint32_t)kroot[DP_AT(&d, i + 1, j)];
      if (from < i + 1)
        from = i + 1;
      if (to > j)
        to = j;
      /* The exception chains below do not keep the quadrangle inequality
       * exactly: small inputs search every split. */
      if (n <= DP_FULL_SEARCH) {
        from = i + 1;
        to = j;
      }
      int32_t arg = (int32_t)from;
      for (uint32_t k = from; k <= to; k++) {
        uint64_t c = d.cost[DP_AT(&d, i, k - 1)] + d.cost[DP_AT(&d, k, j)];
        if (c < best) {
          best = c;
          arg = (int32_t)k;
        }
      }
      best += w;
      kroot[DP_AT(&d, i, j)] = arg;
      d.root[DP_AT(&d, i, j)] = arg;
      if (len <= PEEL_MAX_SEGMENTS + 1) {
        uint64_t c;
        if (peel_cost(p, i, j, p->segs[i].leaf, &c) && c < best) {
          best = c;
          d.root[DP_AT(&d, i, j)] = -1;
        }
        if (peel_cost(p, i, j, p->segs[j].leaf, &c) && c < best) {
          best = c;
          d.root[DP_AT(&d, i, j)] = -2;
        }
      }
      /* Tests of bits of nr, when the runs are few and small enough (the
       * search below them is memoized in bit_dp). */
      uint32_t mask;
      if (n <= DP_FULL_SEARCH && bit_tests(p, i, j, 0, 0, w, &best, &mask))
        d.root[DP_AT(&d, i, j)] = DP_ROOT_BIT - (int32_t)mask;
      d.cost[DP_AT(&d, i, j)] = best;
    }
  }
  free(kroot);
  if (p->err) {
    rc = p->err;
    goto done;
  }
  p->root = build_dp(p, &d, 0, n - 1);
  if (p->err)
    rc = p->err;
done:
  free(d.cost);
  free(d.root);
  free(d.pre);
  return rc;
}

int bpf_plan_build(const struct sc_ruleset *rs, struct plan *p)
{
  struct nr_leaf *nl = NULL;
  uint32_t nnl = 0;
  memset(p, 0, sizeof *p);
  p->rs = rs;
  p->is64 = (rs->audit_arch & __AUDIT_ARCH_64BIT) != 0;
  p->le = (rs->audit_arch & __AUDIT_ARCH_LE) != 0;
  p->x32_gate = rs->audit_arch == AUDIT_ARCH_X86_64 && !rs->allow_x32;
  if (rs->audit_arch == 0) {
    diag_error(NULL, "%s: rule set names no architecture",
               rs->name ? rs->name : "seccomp rule set");
    return -EINVAL;
  }
  int rc = plan_rules(p, &nl, &nnl);
  if (rc)
    goto fail;
  rc = plan_segments(p, nl, nnl);
  if (rc)
    goto fail;
  if (p->nsegs > BPF_MAXINSNS) {
    diag_error(NULL,
               "%s: the policy splits the system call numbers into %u runs; a seccomp filter "
               "holds at most %d instructions (BPF_MAXINSNS)",
               rs->name ? rs->name : "seccomp rule set", p->nsegs, BPF_MAXINSNS);
    rc = -E2BIG;
    goto fail;
  }
  rc = plan_tree(p);
  if (rc)
    goto fail;
  free(nl);
  return 0;
fail:
  free(nl);
  bpf_plan_free(p);
  return rc;
}

/* ------------------------------------------------------------------ */
/* Names                                                               */

void bpf_nr_name(uint32_t arch, uint32_t nr, char *buf, size_t size)
{
  char *name = nr < NR_X32_BIT ? seccomp_syscall_resolve_num_arch(arch, (int)nr) : NULL;
  if (name)
    snprintf(buf, size, "%s", name);
  else if (nr == UINT32_MAX)
    snprintf(buf, size, "-1");
  else if (nr == NR_X32_BIT)
    snprintf(buf, size, "x32 bit");
  else if (nr > NR_X32_BIT)
    snprintf(buf, size, "#%#" PRIx32, nr);
  else
    snprintf(buf, size, "#%" PRIu32, nr);
  free(name);
}

void bpf_range_text(const struct plan *p, uint32_t lo, uint32_t hi, char *buf, size_t size)
{
  char a[64], b[64];
  bpf_nr_name(p->rs->audit_arch, lo, a, sizeof a);
  if (lo == hi && lo >= NR_X32_BIT) {
    snprintf(buf, size, "%#" PRIx32 " %s", lo, a);
  } else if (lo == hi) {
    snprintf(buf, size, "%" PRIu32 " %s", lo, a);
  } else if (p->x32_gate && lo == NR_X32_BIT && hi == UINT32_MAX - 1) {
    snprintf(buf, size, "[0x40000000, 0xfffffffe] x32 ABI");
  } else {
    bpf_nr_name(p->rs->audit_arch, hi, b, sizeof b);
    if (hi >= NR_X32_BIT)
      snprintf(buf, size, "[%" PRIu32 ", %#" PRIx32 "] %s..%s", lo, hi, a, b);
    else
      snprintf(buf, size, "[%" PRIu32 ", %" PRIu32 "] %s..%s", lo, hi, a, b);
  }
}

/* The numbers a subtree covers: its runs' range and, below a bit test,
 * the bits they must have. */
void bpf_node_set_text(const struct plan *p, const struct tnode *n, char *buf, size_t size)
{
  char r[160];
  bpf_range_text(p, p->segs[n->first_seg].lo, p->segs[n->last_seg].hi, r, sizeof r);
  char any[48] = "";
  if (n->any)
    snprintf(any, sizeof any, "%s nr & %#" PRIx32 " != 0", n->zero | n->one ? " and" : " where",
             n->any);
  if (n->zero | n->one)
    snprintf(buf, size, "%s where nr & %#" PRIx32 " == %#" PRIx32 "%s", r, n->zero | n->one, n->one,
             any);
  else
    snprintf(buf, size, "%s%s", r, any);
}

void bpf_leaf_text(const struct plan *p, uint32_t leaf, char *buf, size_t size)
{
  const struct leaf *l = &p->leaves[leaf];
  if (l->kind == LEAF_ACTION) {
    char act[48];
    sc_action_format(act, sizeof act, l->act);
    snprintf(buf, size, "%s", act);
  } else {
    char nm[64];
    bpf_nr_name(p->rs->audit_arch, p->groups[l->group].first_nr, nm, sizeof nm);
    snprintf(buf, size, "check %s's arguments", nm);
  }
}

/* ------------------------------------------------------------------ */
/* Emission: instructions with symbolic jump labels                    */

struct ir {
  struct sock_filter f;
  int32_t jt, jf; /* labels; -1: none (JA uses jt) */
  char *comment;
};

struct emitter {
  const struct plan *p;
  struct ir *ents;
  uint32_t nents, cap;
  int32_t *label_ent; /* label -> entry index */
  uint32_t nlabels, label_cap;
  int32_t *pending; /* labels placed at the next entry */
  uint32_t npending, pending_cap;
  int32_t *ret_label; /* per leaf of kind action */
  int rc;
  int known;       /* offset of the word in A, -1 unknown */
  int false_known; /* after emit_cond: A at its false exits, -1 unknown */
};

static int32_t new_label(struct emitter *e)
{
  if (e->rc)
    return -1;
  if (e->nlabels == e->label_cap) {
    uint32_t nc = e->label_cap ? e->label_cap * 2 : 256;
    int32_t *g = realloc(e->label_ent, nc * sizeof *g);
    if (!g) {
      e->rc = -ENOMEM;
      return -1;
    }
    e->label_ent = g;
    e->label_cap = nc;
  }
  e->label_ent[e->nlabels] = -1;
  return (int32_t)e->nlabels++;
}

static void place(struct emitter *e, int32_t label)
{
  if (e->rc || label < 0)
    return;
  if (e->npending == e->pending_cap) {
    uint32_t nc = e->pending_cap ? e->pending_cap * 2 : 16;
    int32_t *g = realloc(e->pending, nc * sizeof *g);
    if (!g) {
      e->rc = -ENOMEM;
      return;
    }
    e->pending = g;
    e->pending_cap = nc;
  }
  e->pending[e->npending++] = label;
}

static void emit(struct emitter *e, uint16_t code, uint32_t k, int32_t jt, int32_t jf,
                 const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void emit(struct emitter *e, uint16_t code, uint32_t k, int32_t jt, int32_t jf,
                 const char *fmt, ...)
{
  if (e->rc)
    return;
  if (e->nents >= IR_HARD_LIMIT) {
    e->rc = -E2BIG;
    return;
  }
  if (e->nents == e->cap) {
    uint32_t nc = e->cap ? e->cap * 2 : 256;
    struct ir *g = realloc(e->ents, nc * sizeof *g);
    if (!g) {
      e->rc = -ENOMEM;
      return;
    }
    e->ents = g;
    e->cap = nc;
  }
  struct ir *x = &e->ents[e->nents];
  memset(x, 0, sizeof *x);
  x->f.code = code;
  x->f.k = k;
  x->jt = jt;
  x->jf = jf;
  va_list ap;
  va_start(ap, fmt);
  if (vasprintf(&x->comment, fmt, ap) < 0) {
    x->comment = NULL;
    e->rc = -ENOMEM;
  }
  va_end(ap);
  for (uint32_t i = 0; i < e->npending; i++)
    e->label_ent[e->pending[i]] = (int32_t)e->nents;
  e->npending = 0;
  e->nents++;
}

static int32_t leaf_label(struct emitter *e, uint32_t leaf)
{
  struct leaf *l = &e->p->leaves[leaf];
  if (l->label < 0)
    l->label = new_label(e);
  return l->label;
}

static int32_t node_label(struct emitter *e, int32_t node, int32_t *labels)
{
  const struct tnode *n = &e->p->nodes[node];
  if (n->kind == T_LEAF)
    return leaf_label(e, n->leaf);
  if (labels[node] < 0)
    labels[node] = new_label(e);
  return labels[node];
}

static void emit_tree(struct emitter *e, int32_t node, int32_t *labels)
{
  const struct plan *p = e->p;
  const struct tnode *n = &p->nodes[node];
  char r1[256], r2[256], lt[96];
  if (n->kind == T_LEAF || e->rc)
    return;
  place(e, node_label(e, node, labels));
  if (n->kind == T_SPLIT || n->kind == T_BIT) {
    const struct tnode *lo = &p->nodes[n->lo_child], *hi = &p->nodes[n->hi_child];
    char q[112];
    if (n->kind == T_SPLIT) {
      char nm[64], kt[16];
      bpf_nr_name(p->rs->audit_arch, n->k, nm, sizeof nm);
      snprintf(kt, sizeof kt, n->k >= NR_X32_BIT ? "%#" PRIx32 : "%" PRIu32, n->k);
      snprintf(q, sizeof q, "nr >= %s (%s)? yes", kt, nm);
    } else {
      snprintf(q, sizeof q, "nr & %#" PRIx32 "? set", n->k);
    }
    bpf_node_set_text(p, lo, r1, sizeof r1);
    bpf_node_set_text(p, hi, r2, sizeof r2);
    char ltxt[96] = "", htxt[96] = "";
    if (lo->kind == T_LEAF)
      bpf_leaf_text(p, lo->leaf, ltxt, sizeof ltxt);
    if (hi->kind == T_LEAF)
      bpf_leaf_text(p, hi->leaf, htxt, sizeof htxt);
    emit(e, BPF_JMP | (n->kind == T_SPLIT ? BPF_JGE : BPF_JSET) | BPF_K, n->k,
         node_label(e, n->hi_child, labels), node_label(e, n->lo_child, labels),
         "%s: %s%s%s; %s: %s%s%s", q, r2, htxt[0] ? " -> " : "", htxt,
         n->kind == T_SPLIT ? "no" : "clear", r1, ltxt[0] ? " -> " : "", ltxt);
    emit_tree(e, n->lo_child, labels);
    emit_tree(e, n->hi_child, labels);
  } else {
    bpf_range_text(p, n->k, n->k, r1, sizeof r1);
    bpf_leaf_text(p, n->leaf, lt, sizeof lt);
    const struct tnode *rest = &p->nodes[n->lo_child];
    char rt[96] = "";
    if (rest->kind == T_LEAF)
      bpf_leaf_text(p, rest->leaf, rt, sizeof rt);
    bpf_node_set_text(p, n, r2, sizeof r2);
    emit(e, BPF_JMP | BPF_JEQ | BPF_K, n->k, leaf_label(e, n->leaf),
         node_label(e, n->lo_child, labels), "nr == %s? -> %s; else rest of %s%s%s", r1, lt, r2,
         rt[0] ? " -> " : "", rt);
    emit_tree(e, n->lo_child, labels);
  }
}

static uint32_t word_off(const struct plan *p, unsigned arg, bool high)
{
  uint32_t base = (uint32_t)offsetof(struct seccomp_data, args) + 8u * arg;
  return base + ((high == p->le) ? 4u : 0u);
}

static void load_word(struct emitter *e, uint32_t off, unsigned arg, bool high)
{
  if (e->known == (int)off)
    return; /* A already holds it: every path here loaded it */
  emit(e, BPF_LD | BPF_W | BPF_ABS, off, -1, -1, "A = args[%u] %s word", arg,
       high ? "high" : "low");
  e->known = (int)off;
}

/* One comparison of one word: jumps to t when `A op v` holds, else f. */
static void cmp_word(struct emitter *e, enum sc_cmp op, uint32_t v, int32_t t, int32_t f,
                     const char *what)
{
  switch (op) {
  case SC_CMP_EQ:
  case SC_CMP_MASKED_EQ:
    emit(e, BPF_JMP | BPF_JEQ | BPF_K, v, t, f, "%s == %#" PRIx32 "?", what, v);
    break;
  case SC_CMP_NE:
    emit(e, BPF_JMP | BPF_JEQ | BPF_K, v, f, t, "%s != %#" PRIx32 "?", what, v);
    break;
  case SC_CMP_LT:
    emit(e, BPF_JMP | BPF_JGE | BPF_K, v, f, t, "%s < %#" PRIx32 "?", what, v);
    break;
  case SC_CMP_LE:
    emit(e, BPF_JMP | BPF_JGT | BPF_K, v, f, t, "%s <= %#" PRIx32 "?", what, v);
    break;
  case SC_CMP_GT:
    emit(e, BPF_JMP | BPF_JGT | BPF_K, v, t, f, "%s > %#" PRIx32 "?", what, v);
    break;
  case SC_CMP_GE:
    emit(e, BPF_JMP | BPF_JGE | BPF_K, v, t, f, "%s >= %#" PRIx32 "?", what, v);
    break;
  }
}

/* Emits `cond` with exits t (holds) and f. The low word alone for a 32-bit
 * argument; for 64 bits the high word decides unless it is equal, then the
 * low word (an unsigned comparison of the pair, like the kernel's u64). */
static void emit_cond(struct emitter *e, const struct sc_cond *c, int32_t t, int32_t f)
{
  const struct plan *p = e->p;
  bool wide = p->is64 && !c->is32;
  uint32_t vl = (uint32_t)c->value, vh = (uint32_t)(c->value >> 32);
  uint32_t ml = (uint32_t)c->mask, mh = (uint32_t)(c->mask >> 32);
  uint32_t lo_off = word_off(p, c->arg, false), hi_off = word_off(p, c->arg, true);
  char what[48];
  if (wide) {
    snprintf(what, sizeof what, "args[%u] high", (unsigned)c->arg);
    switch (c->op) {
    case SC_CMP_EQ:
    case SC_CMP_NE: {
      int32_t lo_lbl = new_label(e);
      load_word(e, hi_off, c->arg, true);
      if (c->op == SC_CMP_EQ)
        emit(e, BPF_JMP | BPF_JEQ | BPF_K, vh, lo_lbl, f, "%s == %#" PRIx32 "?", what, vh);
      else
        emit(e, BPF_JMP | BPF_JEQ | BPF_K, vh, lo_lbl, t, "%s == %#" PRIx32 "? (else differs)",
             what, vh);
      place(e, lo_lbl);
      break;
    }
    case SC_CMP_MASKED_EQ: {
      if (mh != 0 || vh != 0) {
        int32_t lo_lbl = new_label(e);
        load_word(e, hi_off, c->arg, true);
        if (mh != UINT32_MAX) {
          emit(e, BPF_ALU | BPF_AND | BPF_K, mh, -1, -1, "A &= %#" PRIx32 " (mask, high word)", mh);
          e->known = -1;
        }
        emit(e, BPF_JMP | BPF_JEQ | BPF_K, vh, lo_lbl, f, "%s & %#" PRIx32 " == %#" PRIx32 "?",
             what, mh, vh);
        place(e, lo_lbl);
      }
      break;
    }
    case SC_CMP_LT:
    case SC_CMP_LE:
    case SC_CMP_GT:
    case SC_CMP_GE: {
      int32_t lo_lbl = new_label(e), eq_lbl = new_label(e);
      bool greater = c->op == SC_CMP_GT || c->op == SC_CMP_GE;
      /* When the high words are equal the low word decides - unless its
       * test is constant (x < 0, x >= 0, x <= 0xffffffff, x > 0xffffffff),
       * then the equal case jumps straight to the answer. */
      int lo_const = -1;
      if ((c->op == SC_CMP_LT && vl == 0) || (c->op == SC_CMP_GT && vl == UINT32_MAX))
        lo_const = 0;
      if ((c->op == SC_CMP_GE && vl == 0) || (c->op == SC_CMP_LE && vl == UINT32_MAX))
        lo_const = 1;
      load_word(e, hi_off, c->arg, true);
      emit(e, BPF_JMP | BPF_JGT | BPF_K, vh, greater ? t : f, eq_lbl,
           "%s > %#" PRIx32 "? (decides)", what, vh);
      place(e, eq_lbl);
      emit(e, BPF_JMP | BPF_JEQ | BPF_K, vh,
           lo_const < 0 ? lo_lbl
           : lo_const   ? t
                        : f,
           greater ? f : t, "%s == %#" PRIx32 "? (else it is below: decides)%s", what, vh,
           lo_const < 0 ? "" : " equal: the low word cannot change the answer");
      if (lo_const >= 0) {
        e->known = -1;
        e->false_known = -1;
        return;
      }
      place(e, lo_lbl);
      break;
    }
    }
  }
  snprintf(what, sizeof what, "args[%u]%s", (unsigned)c->arg, wide ? " low" : "");
  load_word(e, lo_off, c->arg, false);
  if (c->op == SC_CMP_MASKED_EQ && ml != UINT32_MAX) {
    emit(e, BPF_ALU | BPF_AND | BPF_K, ml, -1, -1, "A &= %#" PRIx32 " (mask)", ml);
    e->known = -1;
  }
  cmp_word(e, c->op, vl, t, f, what);
  /* False exits: a narrow compare of the plain low word leaves it in A; so
   * does a wide != (its only false exit is the low-word test). */
  bool masked_lo = c->op == SC_CMP_MASKED_EQ && ml != UINT32_MAX;
  e->false_known = (!masked_lo && (!wide || c->op == SC_CMP_NE)) ? (int)lo_off : -1;
  /* Only the EQ-like forms leave a known word at their true exit. */
  if (c->op == SC_CMP_MASKED_EQ && ml != UINT32_MAX)
    e->known = -1;
  if (wide && c->op != SC_CMP_EQ && c->op != SC_CMP_MASKED_EQ)
    e->known = -1;
  if (c->op == SC_CMP_NE)
    e->known = -1;
}

/* A condition "bit b of the argument is set": (x & b) == b, one bit. */
static bool single_bit(const struct plan *p, const struct sc_cond *c, uint64_t *bit)
{
  uint64_t wm = (p->is64 && !c->is32) ? UINT64_MAX : 0xffffffffu;
  uint64_t m = c->mask & wm, v = c->value & wm;
  if (c->op != SC_CMP_MASKED_EQ || m == 0 || (m & (m - 1)) || v != m)
    return false;
  *bit = m;
  return true;
}

/* A group's rules as one first-match list of (clause, action) items: a rule
 * with several clauses is several items with the same action. */
struct item {
  const struct sc_clause *cl;
  const struct sc_rule *rule;
};

static int32_t action_leaf_label(struct emitter *e, struct sc_action a)
{
  const struct plan *p = e->p;
  for (uint32_t l = 0; l < p->nleaves; l++)
    if (p->leaves[l].kind == LEAF_ACTION && sc_action_equal(p->leaves[l].act, a))
      return leaf_label(e, l);
  e->rc = -EINVAL; /* plan_rules made a leaf for every action a block reaches */
  return -1;
}

static void emit_group(struct emitter *e, uint32_t leaf)
{
  const struct plan *p = e->p;
  const struct group *g = &p->groups[p->leaves[leaf].group];
  struct item *items = NULL;
  uint32_t n = 0, cap = 0;
  for (uint32_t r = 0; r < g->nrules; r++)
    for (uint32_t c = 0; c < g->rules[r]->nclauses; c++) {
      if (n == cap) {
        cap = cap ? cap * 2 : 16;
        struct item *grown = realloc(items, cap * sizeof *grown);
        if (!grown) {
          free(items);
          e->rc = -ENOMEM;
          return;
        }
        items = grown;
      }
      items[n++] = (struct item){ &g->rules[r]->clauses[c], g->rules[r] };
    }
  place(e, leaf_label(e, leaf));
  e->known = -1;
  int32_t fallback = action_leaf_label(e, g->fallback);
  for (uint32_t i = 0; i < n && !e->rc;) {
    const struct sc_rule *rule = items[i].rule;
    int32_t t = action_leaf_label(e, rule->action);
    uint64_t bit;
    /* A run of "bit set" tests on one argument with one action is one
     * JSET per word: (x & (b1|b2|...)) != 0. */
    uint32_t j = i;
    uint64_t bits = 0;
    while (j < n && items[j].cl->nconds == 1 &&
           sc_action_equal(items[j].rule->action, rule->action) &&
           single_bit(p, &items[j].cl->conds[0], &bit) &&
           items[j].cl->conds[0].arg == items[i].cl->conds[0].arg &&
           items[j].cl->conds[0].is32 == items[i].cl->conds[0].is32) {
      bits |= bit;
      j++;
    }
    /* Where a false outcome goes: the next item, or the fallback after the
     * last one. */
    bool last = (j > i ? j : i + 1) == n;
    int32_t next = last ? fallback : new_label(e);
    if (j > i) {
      const struct sc_cond *c0 = &items[i].cl->conds[0];
      uint32_t lo = (uint32_t)bits, hi = (uint32_t)(bits >> 32);
      int32_t hi_lbl = hi ? new_label(e) : next;
      if (lo) {
        load_word(e, word_off(p, c0->arg, false), c0->arg, false);
        emit(e, BPF_JMP | BPF_JSET | BPF_K, lo, t, hi ? hi_lbl : next,
             "args[%u]%s has any of bits %#" PRIx32 "? (%u rule%s)", (unsigned)c0->arg,
             hi || (p->is64 && !c0->is32) ? " low" : "", lo, j - i, j - i > 1 ? "s" : "");
      }
      if (hi) {
        place(e, hi_lbl);
        load_word(e, word_off(p, c0->arg, true), c0->arg, true);
        emit(e, BPF_JMP | BPF_JSET | BPF_K, hi, t, next,
             "args[%u] high has any of bits %#" PRIx32 "?", (unsigned)c0->arg, hi);
      }
      i = j;
    } else {
      /* A clause: a chain of conditions; any false one goes to the next item. */
      const struct sc_clause *cl = items[i].cl;
      int false_known = -2; /* -2: no exit yet */
      for (uint32_t k = 0; k < cl->nconds; k++) {
        int32_t tk = k + 1 < cl->nconds ? new_label(e) : t;
        emit_cond(e, &cl->conds[k], tk, next);
        false_known = false_known == -2 || false_known == e->false_known ? e->false_known : -1;
        if (k + 1 < cl->nconds)
          place(e, tk); /* reached only from the true exits */
      }
      e->known = false_known < 0 ? -1 : false_known;
      i++;
    }
    /* The next item is reached only from this one's false exits, so what A
     * holds there is known when every false exit agrees. */
    if (i < n)
      place(e, next);
  }
  free(items);
}

/* The comment of a group's first instruction names the system call and the
 * rule; prepend it once the block exists. */
static void annotate_first(struct emitter *e, uint32_t ent, const char *prefix)
{
  if (e->rc || ent >= e->nents)
    return;
  char *old = e->ents[ent].comment, *nw = NULL;
  if (asprintf(&nw, "%s: %s", prefix, old ? old : "") < 0) {
    e->rc = -ENOMEM;
    return;
  }
  free(old);
  e->ents[ent].comment = nw;
}

/* ------------------------------------------------------------------ */
/* Layout: label offsets and trampolines                               */

static int layout(struct emitter *e, struct bpf_program_out *out, const char *rs_name)
{
  int rc = 0;
  /* Entries are in program order; a trampoline is inserted into the entry
   * array itself, and the scan restarts until no jump is too long. */
  for (;;) {
    bool changed = false;
    for (uint32_t i = 0; i < e->nents && !changed; i++) {
      struct ir *x = &e->ents[i];
      if (BPF_CLASS(x->f.code) != BPF_JMP || BPF_OP(x->f.code) == BPF_JA)
        continue;
      for (int side = 0; side < 2 && !changed; side++) {
        int32_t lbl = side ? x->jf : x->jt;
        int32_t tgt = e->label_ent[lbl];
        if (tgt - (int32_t)i - 1 <= 255)
          continue;
        /* Reuse a trampoline to the same label within reach. */
        int32_t found = -1;
        for (uint32_t t = i + 1; t < e->nents && t <= i + 256; t++)
          if (BPF_CLASS(e->ents[t].f.code) == BPF_JMP && BPF_OP(e->ents[t].f.code) == BPF_JA &&
              e->ents[t].jt == lbl) {
            found = (int32_t)t;
            break;
          }
        if (found >= 0) {
          int32_t tl = new_label(e);
          if (e->rc) {
            rc = e->rc;
            goto done;
          }
          e->label_ent[tl] = found;
          if (side)
            x->jf = tl;
          else
            x->jt = tl;
          continue;
        }
        /* Insert `ja target` right after i: a conditional jump never falls
         * through, so nothing else reaches the new instruction. */
        if (e->nents + 1 > IR_HARD_LIMIT) {
          rc = -E2BIG;
          goto done;
        }
        if (e->nents == e->cap) {
          uint32_t nc = e->cap * 2;
          struct ir *g = realloc(e->ents, nc * sizeof *g);
          if (!g) {
            rc = -ENOMEM;
            goto done;
          }
          e->ents = g;
          e->cap = nc;
          x = &e->ents[i];
        }
        memmove(&e->ents[i + 2], &e->ents[i + 1], (e->nents - i - 1) * sizeof *e->ents);
        e->nents++;
        for (uint32_t l = 0; l < e->nlabels; l++)
          if (e->label_ent[l] > (int32_t)i)
            e->label_ent[l]++;
        struct ir *tr = &e->ents[i + 1];
        memset(tr, 0, sizeof *tr);
        tr->f.code = BPF_JMP | BPF_JA;
        tr->jt = lbl;
        tr->jf = -1;
        if (asprintf(&tr->comment, "trampoline: the jump above is longer than 255") < 0) {
          tr->comment = NULL;
          rc = -ENOMEM;
          goto done;
        }
        int32_t tl = new_label(e);
        if (e->rc) {
          rc = e->rc;
          goto done;
        }
        e->label_ent[tl] = (int32_t)i + 1;
        if (side)
          x->jf = tl;
        else
          x->jt = tl;
        changed = true;
      }
    }
    if (!changed)
      break;
  }
  if (e->nents > BPF_MAXINSNS) {
    diag_error(NULL,
               "%s: the seccomp filter needs %u instructions; the kernel accepts at most %d "
               "(BPF_MAXINSNS): merge rules or split the policy",
               rs_name, e->nents, BPF_MAXINSNS);
    rc = -E2BIG;
    goto done;
  }
  out->insns = calloc(e->nents, sizeof *out->insns);
  out->comments = calloc(e->nents, sizeof *out->comments);
  if (!out->insns || !out->comments) {
    rc = -ENOMEM;
    goto done;
  }
  for (uint32_t i = 0; i < e->nents; i++) {
    struct ir *x = &e->ents[i];
    out->insns[i] = x->f;
    if (BPF_CLASS(x->f.code) == BPF_JMP) {
      if (BPF_OP(x->f.code) == BPF_JA) {
        out->insns[i].k = (uint32_t)(e->label_ent[x->jt] - (int32_t)i - 1);
      } else {
        out->insns[i].jt = (uint8_t)(e->label_ent[x->jt] - (int32_t)i - 1);
        out->insns[i].jf = (uint8_t)(e->label_ent[x->jf] - (int32_t)i - 1);
      }
    }
    out->comments[i] = x->comment;
    x->comment = NULL;
  }
  out->len = e->nents;
done:
  return rc;
}

static void emitter_free(struct emitter *e)
{
  for (uint32_t i = 0; i < e->nents; i++)
    free(e->ents[i].comment);
  free(e->ents);
  free(e->label_ent);
  free(e->pending);
}

const char *bpf_arch_name(uint32_t arch)
{
  switch (arch) {
  case AUDIT_ARCH_X86_64:
    return "x86_64";
  case AUDIT_ARCH_I386:
    return "i386";
  case AUDIT_ARCH_AARCH64:
    return "aarch64";
  default:
    return "this architecture";
  }
}

int bpf_compile(const struct sc_ruleset *rs, struct bpf_program_out *out)
{
  struct plan p;
  struct emitter e = { 0 };
  int32_t *labels = NULL;
  const char *rs_name = rs->name ? rs->name : "seccomp rule set";
  memset(out, 0, sizeof *out);
  int rc = bpf_plan_build(rs, &p);
  if (rc)
    return rc;
  e.p = &p;
  e.known = -1;
  labels = malloc(p.nnodes * sizeof *labels + 1);
  if (!labels) {
    rc = -ENOMEM;
    goto fail;
  }
  for (uint32_t i = 0; i < p.nnodes; i++)
    labels[i] = -1;

  /* Prologue. The architecture first: a number means a different system
   * call under another ABI (int 0x80 is i386 even in a 64-bit process). */
  char bad[48];
  sc_action_format(bad, sizeof bad, rs->bad_arch_action);
  uint32_t bad_leaf = 0;
  for (bad_leaf = 0; bad_leaf < p.nleaves; bad_leaf++)
    if (p.leaves[bad_leaf].kind == LEAF_ACTION &&
        sc_action_equal(p.leaves[bad_leaf].act, rs->bad_arch_action))
      break;
  emit(&e, BPF_LD | BPF_W | BPF_ABS, (uint32_t)offsetof(struct seccomp_data, arch), -1, -1,
       "A = arch");
  const struct tnode *root = &p.nodes[p.root];
  int32_t after_arch = root->kind == T_LEAF ? leaf_label(&e, root->leaf) : new_label(&e);
  emit(&e, BPF_JMP | BPF_JEQ | BPF_K, rs->audit_arch, after_arch, leaf_label(&e, bad_leaf),
       "arch == %s? no: foreign ABI -> %s", bpf_arch_name(rs->audit_arch), bad);
  if (root->kind != T_LEAF) {
    place(&e, after_arch);
    emit(&e, BPF_LD | BPF_W | BPF_ABS, (uint32_t)offsetof(struct seccomp_data, nr), -1, -1,
         "A = nr (the tree below loads nothing else)");
    labels[p.root] = -1;
    emit_tree(&e, p.root, labels);
  }
  /* Argument blocks, in order of their first system call number. */
  for (uint32_t g = 0; g < p.ngroups; g++) {
    uint32_t leaf;
    for (leaf = 0; leaf < p.nleaves; leaf++)
      if (p.leaves[leaf].kind == LEAF_GROUP && p.leaves[leaf].group == g)
        break;
    if (p.leaves[leaf].label < 0)
      continue; /* not reachable from the tree */
    uint32_t first = e.nents;
    emit_group(&e, leaf);
    char nm[64], prefix[160];
    bpf_nr_name(rs->audit_arch, p.groups[g].first_nr, nm, sizeof nm);
    snprintf(prefix, sizeof prefix, "%s (nr %" PRIu32 ") rules from %s", nm, p.groups[g].first_nr,
             p.groups[g].rules[0]->origin ? p.groups[g].rules[0]->origin : "?");
    annotate_first(&e, first, prefix);
  }
  /* One RET per action, shared by every path that decides it. */
  for (uint32_t l = 0; l < p.nleaves; l++) {
    if (p.leaves[l].kind != LEAF_ACTION || p.leaves[l].label < 0)
      continue;
    char act[48];
    sc_action_format(act, sizeof act, p.leaves[l].act);
    place(&e, p.leaves[l].label);
    emit(&e, BPF_RET | BPF_K, sc_action_ret(p.leaves[l].act), -1, -1, "return %s", act);
  }
  if (e.rc) {
    rc = e.rc;
    if (rc == -E2BIG)
      diag_error(NULL,
                 "%s: the seccomp filter needs more than %u instructions; the kernel accepts at "
                 "most %d (BPF_MAXINSNS)",
                 rs_name, IR_HARD_LIMIT, BPF_MAXINSNS);
    goto fail;
  }
  rc = layout(&e, out, rs_name);
  if (rc)
    goto fail;
  free(labels);
  emitter_free(&e);
  bpf_plan_free(&p);
  return 0;
fail:
  free(labels);
  emitter_free(&e);
  bpf_plan_free(&p);
  bpf_program_out_free(out);
  return rc;
}

/* Tree statistics for benchmarks and tests: how many runs the number line
 * was cut into. */
int bpf_plan_segments(const struct sc_ruleset *rs, uint32_t *nsegs)
{
  struct plan p;
  int rc = bpf_plan_build(rs, &p);
  if (rc)
    return rc;
  *nsegs = p.nsegs;
  bpf_plan_free(&p);
  return 0;
}
