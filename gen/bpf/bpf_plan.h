/* bpf_plan: the generator's plan of a rule set (the leaves, the runs of
 * the number line and the decision tree over them), shared by the two
 * parts of gen/bpf that read it: the code generator (bpf_gen.c) and the
 * pseudo-code view (bpf_pseudo.c). Internal to cs_bpf; the pipeline is
 * described at the top of bpf_gen.c and in docs/bpf-layout.md. */
#ifndef CS_GEN_BPF_PLAN_H
#define CS_GEN_BPF_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sc_rules.h"

#define NR_X32_BIT 0x40000000u
/* Numbers below this count when weighting the tree: the x86_64 table ends
 * near 460, every other architecture's well below 1024 (+ offsets are not
 * used on the architectures we build for). */
#define NR_WEIGHT_LIMIT 1024u
/* Runs beyond this use a linear-time weight-balanced split instead of the
 * quadratic optimal one (such a policy is near BPF_MAXINSNS anyway). */
#define DP_MAX_SEGMENTS 1024u
/* Up to this many runs every split is tried (cubic); above, Knuth's bound. */
#define DP_FULL_SEARCH 256u
/* Exception chains (JEQ x -> leaf) are considered for this many runs. */
#define PEEL_MAX_SEGMENTS 40u
/* Bit tests (JSET on bits of nr, docs/bpf-layout.md "Bit tests"): bits
 * 0..BIT_TEST_BITS-1, on sets of numbers below NR_WEIGHT_LIMIT that span at
 * most 2^(bit + BIT_SPAN_SHIFT) numbers (a bit test on a wider set is a
 * threshold in disguise or splits it into many stripes; measured on Docker's
 * and the seed profiles, a shift of 6 and bits 6..7 gain at most 2
 * comparisons in 1000 and triple the time), in rule
 * sets of at most DP_FULL_SEARCH runs; exception chains below a bit test
 * have at most BIT_CHAIN_MAX exceptions. */
#define BIT_TEST_BITS 6u
#define BIT_SPAN_SHIFT 5u
#define BIT_CHAIN_MAX 8u
/* The IR may grow past BPF_MAXINSNS before trampolines are counted; this
 * bounds the work on absurd inputs. */
#define IR_HARD_LIMIT (BPF_MAXINSNS * 4u)

enum leaf_kind { LEAF_ACTION, LEAF_GROUP };

struct leaf {
  enum leaf_kind kind;
  struct sc_action act; /* LEAF_ACTION */
  uint32_t group;       /* LEAF_GROUP */
  int32_t label;        /* emission */
};

/* The rules that can decide one system call, in order; the last one is
 * conditional (an unconditional rule ends the list as a plain leaf). */
struct group {
  const struct sc_rule **rules;
  uint32_t nrules;
  uint32_t first_nr;
  bool ends_unconditional;   /* the list ends with an unconditional rule */
  struct sc_action fallback; /* when no rule holds */
};

struct segment {
  uint32_t lo, hi;
  uint32_t leaf;
  uint64_t weight;
};

enum tnode_kind { T_LEAF, T_SPLIT, T_PEEL, T_BIT };

struct tnode {
  enum tnode_kind kind;
  uint32_t k;                   /* SPLIT: nr >= k goes to hi; PEEL: nr == k goes to peel_leaf;
                         BIT: nr & k (one bit) set goes to hi */
  int32_t lo_child;             /* SPLIT: nr < k; PEEL: the rest; BIT: the bit clear */
  int32_t hi_child;             /* SPLIT and BIT */
  uint32_t leaf;                /* LEAF: the leaf; PEEL: leaf of k */
  uint32_t first_seg, last_seg; /* the runs this subtree covers */
  /* Below a bit test the subtree covers only the numbers of those runs
   * whose bits in zero are clear and whose bits in one are set. */
  uint32_t zero, one;
  uint32_t any; /* and at least one of these bits set (the true side of a
                   test of several bits) */
};

/* Prefix sums over the numbers below NR_WEIGHT_LIMIT that match one pair
 * of bit constraints (built on first use, index zero | one << BIT_TEST_BITS). */
struct bitview {
  uint64_t *pw;    /* [x]: weight of the matching numbers below x */
  uint32_t *pchg;  /* [x]: matching numbers below x whose leaf differs from the previous match */
  uint32_t *nextm; /* [x]: the first matching number >= x (NR_WEIGHT_LIMIT: none) */
  uint32_t *prevm; /* [x]: the last matching number < x, + 1 (0: none) */
};

/* Memo of the bit-constrained tree search, open addressing. */
struct bitmemo {
  uint64_t key; /* 0: empty */
  uint64_t cost;
  int32_t choice; /* BM_* */
  uint32_t arg;   /* BM_LEAF, BM_CHAIN: the (main) leaf; BM_SPLIT: the run; BM_BIT: the bit
                     or bits tested */
};

struct plan {
  const struct sc_ruleset *rs;
  struct leaf *leaves;
  uint32_t nleaves;
  struct group *groups;
  uint32_t ngroups;
  struct segment *segs;
  uint32_t nsegs;
  struct tnode *nodes;
  uint32_t nnodes, nodes_cap;
  int32_t root;
  /* Per number below NR_WEIGHT_LIMIT: its leaf and weight (1024 for an
   * existing hot number, +1 for the first number of its run, so a run's
   * numbers add up to the run's weight). */
  uint32_t *nleaf;
  uint32_t *nseg; /* the run holding the number */
  uint64_t *nweight;
  struct bitview *views; /* 1 << (2 * BIT_TEST_BITS), allocated on first use */
  struct bitmemo *memo;
  uint32_t memo_cap, memo_used;
  int err;       /* a failed allocation during the tree search */
  bool is64;     /* arguments are 64 bits wide */
  bool le;       /* little endian: low word first */
  bool x32_gate; /* x86_64 refusing x32 numbers */
};

/* Plans rs into p (bpf_plan_free() frees it, also after a failure): 0, or
 * -E2BIG, -EINVAL, -ENOMEM like bpf_compile. */
int bpf_plan_build(const struct sc_ruleset *rs, struct plan *p);
void bpf_plan_free(struct plan *p);

/* Names for comments and the pseudo-code: a system call number of arch
 * ("openat", "#512"), a range of numbers, the numbers a subtree covers,
 * what a leaf decides, and the architecture. */
void bpf_nr_name(uint32_t arch, uint32_t nr, char *buf, size_t size);
void bpf_range_text(const struct plan *p, uint32_t lo, uint32_t hi, char *buf, size_t size);
void bpf_node_set_text(const struct plan *p, const struct tnode *n, char *buf, size_t size);
void bpf_leaf_text(const struct plan *p, uint32_t leaf, char *buf, size_t size);
const char *bpf_arch_name(uint32_t arch);

#endif
