/* bpf_gen: the optimizing seccomp-BPF code generator (docs/bpf-layout.md).
 * Compiles one sc_ruleset into a classic BPF program the kernel accepts. */
#ifndef CS_GEN_BPF_GEN_H
#define CS_GEN_BPF_GEN_H

#include <linux/filter.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sc_rules.h"

struct bpf_program_out {
  struct sock_filter *insns;
  uint32_t len;
  /* One symbolic comment per instruction ("nr in [0,3] -> ...", "arg1 low
   * word == TIOCSTI"), for the generated tables and --emit disasm. */
  char **comments;
};

/* 0 on success; -E2BIG when the program would exceed BPF_MAXINSNS (a
 * message naming the rule set was printed); -EINVAL for a malformed rule
 * set; -ENOMEM. */
int bpf_compile(const struct sc_ruleset *rs, struct bpf_program_out *out);
void bpf_program_out_free(struct bpf_program_out *p);

/* The annotated disassembly and a pseudo-code view of the decision tree. */
void bpf_write_disasm(FILE *out, const struct bpf_program_out *p);
void bpf_write_pseudocode(FILE *out, const struct sc_ruleset *rs);

/* One instruction as text ("jge  #0x67  true 0012 false 0005"), jump
 * targets absolute; pc is the instruction's index. */
void bpf_format_insn(char *buf, size_t size, const struct sock_filter *f, uint32_t pc);
/* How many runs of equal decisions the number line is cut into (the
 * leaves of the decision tree); 0 or a negative errno like bpf_compile. */
int bpf_plan_segments(const struct sc_ruleset *rs, uint32_t *nsegs);

#endif
