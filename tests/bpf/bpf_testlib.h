/* bpf_testlib: rule-set builders, the libseccomp oracle and the three-way
 * comparison shared by the BPF tests and the benchmark. */
#ifndef CS_TESTS_BPF_TESTLIB_H
#define CS_TESTS_BPF_TESTLIB_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sc_rules.h"

#define A_ALLOW ((struct sc_action){ .kind = SC_ACT_ALLOW })
#define A_ERRNO(e) ((struct sc_action){ .kind = SC_ACT_ERRNO, .data = (e) })
#define A_KILLP ((struct sc_action){ .kind = SC_ACT_KILL_PROCESS })
#define A_KILLT ((struct sc_action){ .kind = SC_ACT_KILL_THREAD })
#define A_TRAP ((struct sc_action){ .kind = SC_ACT_TRAP })
#define A_LOG ((struct sc_action){ .kind = SC_ACT_LOG })
#define A_NOTIFY ((struct sc_action){ .kind = SC_ACT_NOTIFY })
#define A_TRACE(d) ((struct sc_action){ .kind = SC_ACT_TRACE, .data = (d) })

/* An empty x86_64 rule set (bad arch: kill-process, x32 refused). */
void tl_init(struct sc_ruleset *rs, struct sc_action def);
/* Appends an unconditional rule for the named call (or "#NR"); returns its
 * index. Aborts on an unknown name: test tables are fixed. */
uint32_t tl_rule(struct sc_ruleset *rs, const char *name, struct sc_action act);
uint32_t tl_rule_nr(struct sc_ruleset *rs, int nr, struct sc_action act);
/* Adds one AND-clause of n conditions to rule idx (rules become DNF). */
void tl_clause(struct sc_ruleset *rs, uint32_t idx, const struct sc_cond *conds, uint32_t n);

/* libseccomp's filter for the same rules. libseccomp has no rule order, so
 * every clause is first made disjoint from the earlier clauses of its call
 * (C AND NOT earlier, in DNF, negations split disjointly); see
 * bpf_testlib.c. When that cannot be written with libseccomp's one
 * condition per argument, the profile --emit oci writes is loaded the runc
 * way instead. optimize: 0 = the library default, 1 or 2 =
 * SCMP_FLTATR_CTL_OPTIMIZE. 0, -ENOTSUP, -ETIMEDOUT (libseccomp did not
 * finish in 3 s) or libseccomp's error. */
int tl_libseccomp_filter(const struct sc_ruleset *rs, int optimize, struct sock_filter **insns,
                         uint32_t *len);
/* After a failure of tl_libseccomp_filter: the call it could not express. */
extern int tl_unsupported_nr;

/* Inputs that exercise a rule set: every number 0..TL_MAX_NR, x32 and
 * out-of-range numbers, foreign architectures, and for every condition the
 * boundary values value-1, value, value+1, high word set, masks. */
#define TL_MAX_NR 470
struct tl_inputs {
  struct seccomp_data *v;
  size_t n, cap;
};
int tl_make_inputs(const struct sc_ruleset *rs, struct tl_inputs *in);
void tl_inputs_free(struct tl_inputs *in);

/* Whether libseccomp is expected to agree on this input: it compares all
 * 64 bits of every argument, so inputs with a high word set on an argument
 * our rules treat as 32-bit are ours alone to decide. */
bool tl_oracle_applies(const struct sc_ruleset *rs, const struct seccomp_data *sd);

/* Three-way comparison over all inputs; prints the first disagreements to
 * out and returns how many inputs disagree (0 = all agree). oracle may be
 * NULL to compare only the filter with the direct meaning. */
size_t tl_compare(const struct sc_ruleset *rs, const struct sock_filter *mine, uint32_t mine_len,
                  const struct sock_filter *oracle, uint32_t oracle_len, const struct tl_inputs *in,
                  FILE *out);

/* Whether number nr is decided as a plain allow (no argument looked at). */
bool tl_plain_allow(const struct sc_ruleset *rs, uint32_t nr);

/* The filter runc builds for an OCI profile, written independently of
 * dsl/oci/oci_import.c: entries filtered for a capability-less x86_64 process
 * (includes.caps skipped, arches matched against amd64, minKernel against
 * the same baseline), unknown names and default-action entries skipped,
 * conditions naming one argument twice added as one rule each, the rest
 * with seccomp_rule_add_array. 0 or -errno (libseccomp's refusal). */
int tl_runc_filter(const char *path, struct sock_filter **insns, uint32_t *len);
/* What an OCI profile means for one input, evaluated from the JSON with no
 * libseccomp: runc's reading (repeated indexes OR'ed, an unconditional
 * entry wins, MASKED_EQ compares datum & mask) and libseccomp's union of
 * matching rules; TL_OCI_AMBIGUOUS when matching entries disagree. Foreign
 * architectures and x32 numbers: kill-process, like tl_runc_filter. */
#define TL_OCI_AMBIGUOUS 0xdeadbeefu
struct tl_oci;
struct tl_oci *tl_oci_load(const char *path);
void tl_oci_free(struct tl_oci *o);
uint32_t tl_oci_eval(const struct tl_oci *o, const struct seccomp_data *sd);
/* The same with SCMP_FLTATR_CTL_OPTIMIZE set (0: the library default). */
int tl_runc_filter_opt(const char *path, int optimize, struct sock_filter **insns, uint32_t *len);

#endif
