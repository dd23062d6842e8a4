/* pol_lower: one resolved profile to the rule set the BPF generator
 * compiles (gen/sc_rules.h). The profile already holds its rules in filter
 * order; this stage copies them into the generator's ownership model and
 * fixes what every profile shares: the architecture check.
 *
 * Architecture: the filter is for x86_64 only. A call made through the
 * i386 entry (int 0x80) or the x32 ABI reaches the same kernel code under
 * different numbers, so rules written for x86_64 numbers would not apply
 * to it; such calls kill the process (fail closed) in every profile. */
#include <errno.h>
#include <linux/audit.h>
#include <stdlib.h>
#include <string.h>

#include "pol.h"

static int pol_copy_rule(struct sc_rule *dst, const struct pol_rule *src)
{
  memset(dst, 0, sizeof *dst);
  dst->nr = src->nr;
  dst->action = src->action;
  dst->loc = src->loc;
  dst->name = strdup(src->name);
  dst->origin = strdup(src->origin);
  if (!dst->name || !dst->origin)
    return -ENOMEM;
  if (src->nclauses == 0)
    return 0;
  dst->clauses = calloc(src->nclauses, sizeof *dst->clauses);
  if (!dst->clauses)
    return -ENOMEM;
  dst->nclauses = src->nclauses;
  for (uint32_t c = 0; c < src->nclauses; c++) {
    const struct sc_clause *sc = &src->clauses[c];
    dst->clauses[c].conds = calloc(sc->nconds ? sc->nconds : 1, sizeof *sc->conds);
    if (!dst->clauses[c].conds)
      return -ENOMEM;
    memcpy(dst->clauses[c].conds, sc->conds, sc->nconds * sizeof *sc->conds);
    dst->clauses[c].nconds = sc->nconds;
  }
  return 0;
}

int pol_lower(const struct pol_profile *p, struct sc_ruleset *rs)
{
  memset(rs, 0, sizeof *rs);
  rs->audit_arch = AUDIT_ARCH_X86_64;
  rs->default_action = p->default_action;
  rs->bad_arch_action.kind = SC_ACT_KILL_PROCESS;
  rs->allow_x32 = false;
  rs->name = p->name;
  if (p->nrules == 0)
    return 0;
  rs->rules = calloc(p->nrules, sizeof *rs->rules);
  if (!rs->rules)
    return -ENOMEM;
  for (size_t i = 0; i < p->nrules; i++) {
    rs->nrules++;
    if (pol_copy_rule(&rs->rules[i], &p->rules[i]) != 0) {
      fprintf(diag_stream(), "pnetc: error: out of memory\n");
      sc_ruleset_free(rs);
      return -ENOMEM;
    }
  }
  return 0;
}
