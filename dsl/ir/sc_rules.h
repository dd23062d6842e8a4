/* sc_rules: the seccomp rule set every policy front end (.pol, OCI JSON)
 * lowers to and the BPF code generator compiles. One rule set is one filter
 * for one native architecture.
 *
 * Semantics (documented in docs/bpf-layout.md): the architecture is checked
 * first; then, for the system call number, its rules are tried in order and
 * the first rule whose condition holds decides; a call no rule decides gets
 * default_action. */
#ifndef CS_GEN_SC_RULES_H
#define CS_GEN_SC_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"

enum sc_action_kind {
  SC_ACT_ALLOW,
  SC_ACT_ERRNO, /* data: the errno value */
  SC_ACT_KILL_PROCESS,
  SC_ACT_KILL_THREAD,
  SC_ACT_TRAP,   /* SIGSYS to the thread; data: SECCOMP_RET_DATA */
  SC_ACT_LOG,    /* allowed and logged */
  SC_ACT_NOTIFY, /* handed to the supervisor (seccomp user notification) */
  SC_ACT_TRACE,  /* data: passed to the tracer */
};

struct sc_action {
  enum sc_action_kind kind;
  uint16_t data;
};

enum sc_cmp { SC_CMP_EQ, SC_CMP_NE, SC_CMP_LT, SC_CMP_LE, SC_CMP_GT, SC_CMP_GE, SC_CMP_MASKED_EQ };

/* arg OP value; for SC_CMP_MASKED_EQ: (arg & mask) == value. A 32-bit
 * argument (is32) is compared on its low word only, the way the kernel
 * truncates it, so set high bits cannot change the decision. */
struct sc_cond {
  uint8_t arg; /* 0..5 */
  enum sc_cmp op;
  uint64_t value;
  uint64_t mask;
  bool is32;
};

/* A conjunction of conditions. */
struct sc_clause {
  struct sc_cond *conds;
  uint32_t nconds;
};

struct sc_rule {
  int nr;     /* system call number on the rule set's architecture */
  char *name; /* system call name, for comments and messages */
  struct sc_action action;
  struct sc_clause *clauses; /* disjunction of conjunctions; none: unconditional */
  uint32_t nclauses;
  char *origin; /* "profiles.pol:42:3 (profile standard)", for denial messages */
  struct diag_loc loc;
};

struct sc_ruleset {
  uint32_t audit_arch; /* AUDIT_ARCH_X86_64 */
  struct sc_action default_action;
  struct sc_action bad_arch_action; /* for a foreign AUDIT_ARCH (i386 via int 0x80) */
  bool allow_x32;                   /* accept nr >= 0x40000000 on x86_64 (x32 ABI) */
  struct sc_rule *rules;            /* grouped by nr, in declaration order */
  uint32_t nrules;
  /* Names the rule set in messages ("profile standard", "moby.json");
   * not owned, may be NULL. Added last so existing initializers still work. */
  const char *name;
};

void sc_ruleset_free(struct sc_ruleset *rs);

/* ---- Helpers shared by the generator, the importers and the tests. ---- */

#include <stddef.h>

struct seccomp_data;

/* The SECCOMP_RET_* value the kernel sees for an action (the errno is kept
 * in SECCOMP_RET_DATA; the kernel clamps it to MAX_ERRNO). */
uint32_t sc_action_ret(struct sc_action a);
/* Inverse of sc_action_ret for values this project produces; false for an
 * unknown SECCOMP_RET_ACTION. */
bool sc_action_from_ret(uint32_t ret, struct sc_action *a);
/* "allow", "errno(EPERM)", "errno(38)", "kill-process", "trap(5)", ...:
 * the spelling used in comments, disassembly and messages. */
void sc_action_format(char *buf, size_t size, struct sc_action a);
bool sc_action_equal(struct sc_action a, struct sc_action b);

/* Whether one condition holds for a raw 64-bit argument (the is32 rule
 * applied). */
bool sc_cond_holds(const struct sc_cond *c, uint64_t arg);
/* The rule set's meaning, evaluated directly (no BPF): the SECCOMP_RET_*
 * value for one system call. The reference the generator is tested against. */
uint32_t sc_ruleset_eval(const struct sc_ruleset *rs, const struct seccomp_data *sd);

/* Human-readable operator ("==", "!=", "<", "<=", ">", ">=", "&"). */
const char *sc_cmp_symbol(enum sc_cmp op);

#endif
