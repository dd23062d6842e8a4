/* bpf_disasm: the annotated disassembly of a classic seccomp-BPF program
 * (pnetc --emit disasm, the profile tables, sbx explain --bpf). Needs only
 * the program: linking it does not link the generator. */
#ifndef CS_GEN_BPF_DISASM_H
#define CS_GEN_BPF_DISASM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bpf_program.h"

/* One line per instruction with its comment, between Begin/End markers. */
void bpf_write_disasm(FILE *out, const struct bpf_program_out *p);

/* One instruction as text ("jge  #0x67  true 0012 false 0005"), jump
 * targets absolute; pc is the instruction's index. */
void bpf_format_insn(char *buf, size_t size, const struct sock_filter *f, uint32_t pc);

#endif
