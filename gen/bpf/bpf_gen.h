/* bpf_gen: the optimizing seccomp-BPF code generator (docs/bpf-layout.md).
 * Compiles one sc_ruleset into a classic BPF program the kernel accepts. */
#ifndef CS_GEN_BPF_GEN_H
#define CS_GEN_BPF_GEN_H

#include <stdint.h>
#include <stdio.h>

#include "bpf_program.h"
#include "sc_rules.h"

/* 0 on success; -E2BIG when the program would exceed BPF_MAXINSNS (a
 * message naming the rule set was printed); -EINVAL for a malformed rule
 * set; -ENOMEM. */
int bpf_compile(const struct sc_ruleset *rs, struct bpf_program_out *out);

/* A pseudo-code view of the decision tree the program implements
 * (bpf_pseudo.c); the program itself is printed by bpf_disasm.h. */
void bpf_write_pseudocode(FILE *out, const struct sc_ruleset *rs);

/* How many runs of equal decisions the number line is cut into (the
 * leaves of the decision tree); 0 or a negative errno like bpf_compile. */
int bpf_plan_segments(const struct sc_ruleset *rs, uint32_t *nsegs);

#endif
