/* bpf_bound: how far pnetc's decision tree is from the best tree of
 * threshold and equality tests (docs/bpf-layout.md, "How good the tree
 * is"). Not a timing: counts of comparisons, exact.
 *
 *   bpf_bound FILTER.bpf [LABEL]
 * reads a raw x86_64 filter (pnetc --emit bpf), walks it for every number
 * 0..470 with the typical arguments bench_bpf uses, and prints one Markdown
 * row: the allowed numbers; the comparisons the tree makes for them (the
 * instructions between `ld nr` and the `ret` or the first argument load),
 * in total and per allowed number; the best tree of `jge`/`jgt`/`jeq`
 * tests with the `jeq`s in exception chains at the bottom (what pnetc
 * built before bit tests); and the fewest comparisons any tree of those
 * tests could make for the same decisions.
 *
 * The walk gives each number its leaf: the action it returns, or the pc of
 * the argument block it enters. The optimum is a dynamic program over the
 * runs of equal leaves. A `jeq` that takes out a number the rules do not
 * allow (weight 0) can always move below every other test without costing
 * more, so such tests sit in exception chains at the bottom; a `jeq` that
 * takes out a single allowed number is searched anywhere (the state carries
 * the set of those already taken out). With more than MAX_HEAVY such
 * numbers, the bound is the relaxation that gives them weight 0 plus one
 * comparison each: still a lower bound, marked "at least".
 * Numbers 471..0x3fffffff are left out (weight 0, and leaving numbers out
 * never makes the optimum larger); the x32 numbers count as one more run
 * with their own leaf, since every tree must send them apart. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NNR 471u /* numbers 0..470, then one run for the x32 numbers */
#define MAX_HEAVY 14u
#define TAB_BITS 22u

struct walk {
  uint32_t leaf;     /* action, or 0x10000 + pc of the argument block */
  uint32_t compares; /* jumps after `ld nr` before the leaf */
};

/* Runs the program on nr with the typical arguments. With to_leaf, stops
 * at the first argument load (the leaf is that block); otherwise runs to
 * the ret. -EINVAL for anything but the number-only instructions. */
static int walk_one(const struct sock_filter *f, uint32_t len, uint32_t nr, bool to_leaf,
                    struct walk *w)
{
  struct seccomp_data sd = { .nr = (int)nr, .arch = AUDIT_ARCH_X86_64 };
  sd.args[0] = 3;
  sd.args[1] = 0x7ffc12345000ull;
  sd.args[2] = 0x100;
  uint32_t a = 0, pc = 0;
  bool nr_loaded = false;
  memset(w, 0, sizeof *w);
  for (uint32_t steps = 0; pc < len && steps <= len; steps++) {
    const struct sock_filter *x = &f[pc];
    switch (x->code) {
    case BPF_LD | BPF_W | BPF_ABS:
      if (x->k > sizeof sd - 4 || x->k % 4)
        return -EINVAL;
      if (x->k >= offsetof(struct seccomp_data, args) && to_leaf) {
        w->leaf = 0x10000u + pc;
        return 0;
      }
      memcpy(&a, (const char *)&sd + x->k, 4);
      nr_loaded = nr_loaded || x->k == offsetof(struct seccomp_data, nr);
      pc++;
      break;
    case BPF_RET | BPF_K:
      w->leaf = x->k;
      return 0;
    case BPF_ALU | BPF_AND | BPF_K:
      a &= x->k;
      pc++;
      break;
    case BPF_JMP | BPF_JA:
      pc += 1 + x->k;
      break;
    case BPF_JMP | BPF_JEQ | BPF_K:
    case BPF_JMP | BPF_JGE | BPF_K:
    case BPF_JMP | BPF_JGT | BPF_K:
    case BPF_JMP | BPF_JSET | BPF_K: {
      bool t = BPF_OP(x->code) == BPF_JEQ   ? a == x->k
               : BPF_OP(x->code) == BPF_JGE ? a >= x->k
               : BPF_OP(x->code) == BPF_JGT ? a > x->k
                                            : (a & x->k) != 0;
      w->compares += nr_loaded;
      pc += 1 + (t ? x->jt : x->jf);
      break;
    }
    default:
      return -EINVAL;
    }
  }
  return -EINVAL;
}

/* The runs of equal leaves over 0..NNR (NNR: the rest of the line). */
static uint32_t nleaf[NNR + 1], nweight[NNR + 1];
static uint32_t nseg, seg_lo[NNR + 1], seg_hi[NNR + 1], seg_w[NNR + 1];
static int heavy[NNR + 1]; /* index among the single allowed numbers, -1 */
static uint32_t nheavy;

struct ent {
  uint64_t key;
  uint64_t val;
};
static struct ent *tab;

static uint64_t *slot(uint64_t key, bool *found)
{
  uint64_t h = key * 0x9e3779b97f4a7c15ull;
  size_t i = (size_t)(h >> (64 - TAB_BITS));
  while (tab[i].key && tab[i].key != key)
    i = (i + 1) & ((1u << TAB_BITS) - 1);
  *found = tab[i].key == key;
  tab[i].key = key;
  return &tab[i].val;
}

static bool removed(uint32_t s, uint32_t r)
{
  return heavy[s] >= 0 && (r >> heavy[s] & 1);
}

/* An exception chain over runs i..j minus r: every number not of the main
 * leaf tested by one jeq, heaviest first. UINT64_MAX when impossible. */
static uint64_t chain(uint32_t i, uint32_t j, uint32_t r)
{
  uint64_t best = UINT64_MAX;
  for (uint32_t c = i; c <= j; c++) {
    if (removed(c, r))
      continue;
    uint32_t main_leaf = nleaf[seg_lo[c]], h = 0, ew[NNR + 1];
    uint64_t wm = 0;
    bool ok = true;
    for (uint32_t s = i; s <= j && ok; s++) {
      if (removed(s, r))
        continue;
      if (nleaf[seg_lo[s]] == main_leaf) {
        wm += seg_w[s];
        continue;
      }
      if (seg_lo[s] == NNR)
        ok = false; /* the x32 run is not one number */
      for (uint32_t x = seg_lo[s]; x <= seg_hi[s] && ok; x++)
        ew[h++] = nweight[x];
    }
    if (!ok)
      continue;
    for (uint32_t a = 1; a < h; a++)
      for (uint32_t b = a; b > 0 && ew[b] > ew[b - 1]; b--) {
        uint32_t t = ew[b];
        ew[b] = ew[b - 1];
        ew[b - 1] = t;
      }
    uint64_t cost = wm * h;
    for (uint32_t a = 0; a < h; a++)
      cost += (uint64_t)(a + 1) * ew[a];
    if (cost < best)
      best = cost;
  }
  return best;
}

static uint64_t opt(uint32_t i, uint32_t j, uint32_t r)
{
  uint64_t key = 1 + ((uint64_t)i | (uint64_t)j << 10 | (uint64_t)r << 20);
  bool found;
  uint64_t *v = slot(key, &found);
  if (found)
    return *v;
  uint64_t w = 0;
  for (uint32_t s = i; s <= j; s++)
    if (!removed(s, r))
      w += seg_w[s];
  uint64_t best = chain(i, j, r);
  bool pure = true;
  uint32_t first = UINT32_MAX;
  for (uint32_t s = i; s <= j; s++) {
    if (removed(s, r))
      continue;
    if (first == UINT32_MAX)
      first = nleaf[seg_lo[s]];
    pure = pure && nleaf[seg_lo[s]] == first;
  }
  if (pure)
    best = 0;
  for (uint32_t k = i + 1; k <= j && best; k++) {
    uint32_t rl = 0, rr = 0, nl = 0, nr = 0;
    for (uint32_t s = i; s <= j; s++) {
      if (removed(s, r))
        *(s < k ? &rl : &rr) |= 1u << heavy[s];
      else
        (*(s < k ? &nl : &nr))++;
    }
    if (!nl || !nr)
      continue;
    uint64_t c = w + opt(i, k - 1, rl);
    if (c >= best)
      continue;
    c += opt(k, j, rr);
    if (c < best)
      best = c;
  }
  for (uint32_t s = i + 1; s < j && best; s++) {
    if (heavy[s] < 0 || removed(s, r))
      continue;
    uint64_t c = w + opt(i, j, r | 1u << heavy[s]);
    if (c < best)
      best = c;
  }
  v = slot(key, &found);
  *v = best;
  return best;
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: bpf_bound FILTER.bpf [LABEL]\n");
    return 2;
  }
  FILE *in = fopen(argv[1], "rb");
  if (!in) {
    perror(argv[1]);
    return 2;
  }
  static struct sock_filter prog[BPF_MAXINSNS + 1];
  size_t len = fread(prog, sizeof prog[0], BPF_MAXINSNS + 1, in);
  fclose(in);
  if (len == 0 || len > BPF_MAXINSNS) {
    fprintf(stderr, "%s: not a filter\n", argv[1]);
    return 2;
  }
  uint64_t actual = 0, allowed = 0, heavy_w = 0;
  for (uint32_t nr = 0; nr <= NNR; nr++) {
    struct walk w, end;
    if (walk_one(prog, (uint32_t)len, nr < NNR ? nr : 0x40000001u, true, &w) != 0 ||
        walk_one(prog, (uint32_t)len, nr < NNR ? nr : 0x40000001u, false, &end) != 0) {
      fprintf(stderr, "%s: number %u does not reach a leaf by number-only tests\n", argv[1], nr);
      return 1;
    }
    nleaf[nr] = w.leaf;
    nweight[nr] = nr < NNR && end.leaf == SECCOMP_RET_ALLOW;
    if (nweight[nr]) {
      allowed++;
      actual += w.compares;
    }
    if (nseg && nleaf[seg_hi[nseg - 1]] == w.leaf && nr < NNR) {
      seg_hi[nseg - 1] = nr;
      seg_w[nseg - 1] += nweight[nr];
    } else {
      seg_lo[nseg] = seg_hi[nseg] = nr;
      seg_w[nseg++] = nweight[nr];
    }
  }
  tab = calloc((size_t)1 << TAB_BITS, sizeof *tab);
  if (!tab)
    return 3;
  /* The best tree with every jeq in the exception chains at the bottom:
   * a tree pnetc could emit without bit tests. */
  for (uint32_t s = 0; s < nseg; s++)
    heavy[s] = -1;
  uint64_t chains = opt(0, nseg - 1, 0);
  /* Single allowed numbers between two runs: a jeq may take them out
   * anywhere in the tree. */
  for (uint32_t s = 0; s < nseg; s++)
    if (s > 0 && s + 1 < nseg && seg_lo[s] == seg_hi[s] && seg_w[s] > 0)
      heavy[s] = (int)nheavy++;
  bool exact = nheavy <= MAX_HEAVY;
  if (!exact)
    for (uint32_t s = 0; s < nseg; s++)
      if (heavy[s] >= 0) {
        heavy_w += seg_w[s];
        nweight[seg_lo[s]] = 0;
        seg_w[s] = 0;
        heavy[s] = -1;
      }
  memset(tab, 0, ((size_t)1 << TAB_BITS) * sizeof *tab);
  uint64_t best = opt(0, nseg - 1, 0) + heavy_w;
  double n = allowed ? (double)allowed : 1;
  printf("| %s | %lu | %lu (%.3f) | %lu (%.3f) | %s%lu (%.3f) |\n", argc > 2 ? argv[2] : argv[1],
         (unsigned long)allowed, (unsigned long)actual, (double)actual / n, (unsigned long)chains,
         (double)chains / n, exact ? "" : "at least ", (unsigned long)best, (double)best / n);
  free(tab);
  return 0;
}
