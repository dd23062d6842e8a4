/* bpf_program: a compiled classic seccomp-BPF program with one symbolic
 * comment per instruction. Written by the generator (gen/bpf), read by the
 * disassembler (gen/bpfview), the interpreter's callers and the table
 * emitters; sbx builds one over a profile table's filter for explain --bpf. */
#ifndef CS_DSL_IR_BPF_PROGRAM_H
#define CS_DSL_IR_BPF_PROGRAM_H

#include <linux/filter.h>
#include <stdint.h>

struct bpf_program_out {
  struct sock_filter *insns;
  uint32_t len;
  /* One symbolic comment per instruction ("nr in [0,3] -> ...", "arg1 low
   * word == TIOCSTI"), for the generated tables and --emit disasm. */
  char **comments;
};

/* Frees what the generator allocated and empties p; NULL is allowed. */
void bpf_program_out_free(struct bpf_program_out *p);

#endif
