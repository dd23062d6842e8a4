/* bpf_pseudo: the pseudo-code view of the generator's decision tree
 * (pnetc --emit disasm, the profile tables' comments): nested ifs over the
 * system call number with the names of the calls each range holds, then
 * the argument blocks. It reads the same plan bpf_compile emits from, so
 * the view cannot drift from the program. */
#include "bpf_gen.h"
#include "bpf_plan.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void cond_text(const struct plan *p, const struct sc_cond *c, char *buf, size_t size)
{
  bool wide = p->is64 && !c->is32;
  const char *w = wide ? "" : " (low 32 bits)";
  uint64_t v = wide ? c->value : (uint32_t)c->value, m = wide ? c->mask : (uint32_t)c->mask;
  if (c->op == SC_CMP_MASKED_EQ)
    snprintf(buf, size, "(args[%u]%s & %#" PRIx64 ") == %#" PRIx64, (unsigned)c->arg, w, m, v);
  else
    snprintf(buf, size, "args[%u]%s %s %#" PRIx64, (unsigned)c->arg, w, sc_cmp_symbol(c->op), v);
}

static void indent(FILE *out, int depth)
{
  for (int i = 0; i < depth; i++)
    fputs("  ", out);
}

static void pseudo_tree(FILE *out, const struct plan *p, int32_t node, int depth)
{
  const struct tnode *n = &p->nodes[node];
  char r[256], lt[96];
  if (n->kind == T_LEAF) {
    bpf_node_set_text(p, n, r, sizeof r);
    bpf_leaf_text(p, n->leaf, lt, sizeof lt);
    indent(out, depth);
    fprintf(out, "%s%s;%*s# %s\n", p->leaves[n->leaf].kind == LEAF_GROUP ? "goto " : "return ", lt,
            1, "", r);
    return;
  }
  if (n->kind == T_PEEL) {
    bpf_range_text(p, n->k, n->k, r, sizeof r);
    bpf_leaf_text(p, n->leaf, lt, sizeof lt);
    indent(out, depth);
    fprintf(out, "if (nr == %" PRIu32 ") %s%s;  # %s\n", n->k,
            p->leaves[n->leaf].kind == LEAF_GROUP ? "goto " : "return ", lt, r);
    pseudo_tree(out, p, n->lo_child, depth);
    return;
  }
  indent(out, depth);
  if (n->kind == T_BIT) {
    if (n->k & (n->k - 1))
      fprintf(out, "if (nr & %#" PRIx32 ") {  # any of bits %#" PRIx32 " set\n", n->k, n->k);
    else
      fprintf(out, "if (nr & %#" PRIx32 ") {  # bit %d set\n", n->k, __builtin_ctz(n->k));
  } else {
    char nm[64], kt[16];
    bpf_nr_name(p->rs->audit_arch, n->k, nm, sizeof nm);
    snprintf(kt, sizeof kt, n->k >= NR_X32_BIT ? "%#" PRIx32 : "%" PRIu32, n->k);
    fprintf(out, "if (nr >= %s) {  # %s\n", kt, nm);
  }
  pseudo_tree(out, p, n->hi_child, depth + 1);
  indent(out, depth);
  fprintf(out, "} else {\n");
  pseudo_tree(out, p, n->lo_child, depth + 1);
  indent(out, depth);
  fprintf(out, "}\n");
}

void bpf_write_pseudocode(FILE *out, const struct sc_ruleset *rs)
{
  struct plan p;
  char act[48], bad[48];
  int rc = bpf_plan_build(rs, &p);
  if (rc) {
    fprintf(out, "# no pseudo-code: the rule set does not compile (%s)\n", strerror(-rc));
    return;
  }
  sc_action_format(act, sizeof act, rs->default_action);
  sc_action_format(bad, sizeof bad, rs->bad_arch_action);
  fprintf(out,
          "How to read this pseudo-code: it is the decision the BPF program above makes,\n"
          "written as nested ifs over the system call number (nr) with the names of the\n"
          "calls each range holds (\"[0, 40] read..getsockname\"). A range whose calls\n"
          "depend on arguments jumps to a labelled block below; in a block the rules are\n"
          "tried in order and the first that holds decides.\n"
          "Begin pseudo-code (%s, default %s)\n",
          bpf_arch_name(rs->audit_arch), act);
  fprintf(out, "if (arch != %s) return %s;  # foreign ABI, e.g. i386 via int 0x80\n",
          bpf_arch_name(rs->audit_arch), bad);
  pseudo_tree(out, &p, p.root, 0);
  for (uint32_t g = 0; g < p.ngroups; g++) {
    const struct group *gr = &p.groups[g];
    char nm[64];
    bpf_nr_name(rs->audit_arch, gr->first_nr, nm, sizeof nm);
    fprintf(out, "check %s's arguments:\n", nm);
    for (uint32_t r = 0; r < gr->nrules; r++) {
      const struct sc_rule *rule = gr->rules[r];
      sc_action_format(act, sizeof act, rule->action);
      for (uint32_t c = 0; c < rule->nclauses; c++) {
        fprintf(out, "  if (");
        for (uint32_t k = 0; k < rule->clauses[c].nconds; k++) {
          char ct[128];
          cond_text(&p, &rule->clauses[c].conds[k], ct, sizeof ct);
          fprintf(out, "%s%s", k ? " && " : "", ct);
        }
        fprintf(out, ") return %s;  # %s\n", act, rule->origin ? rule->origin : "");
      }
    }
    sc_action_format(act, sizeof act, gr->fallback);
    fprintf(out, "  return %s;  # %s\n", act,
            gr->ends_unconditional ? "unconditional rule" : "no rule holds: default");
  }
  fprintf(out, "End pseudo-code\n");
  bpf_plan_free(&p);
}
