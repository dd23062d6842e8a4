/* bpf_disasm: a finished classic BPF program as text, one line per
 * instruction (see bpf_disasm.h). Reads only the program, never the rule
 * set it came from, so sbx explain --bpf shows what the kernel runs. */
#include "bpf_disasm.h"

#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>

#include "sc_rules.h"

static const char *field_name(uint32_t k, char *buf, size_t size)
{
  if (k == offsetof(struct seccomp_data, nr))
    return "nr";
  if (k == offsetof(struct seccomp_data, arch))
    return "arch";
  if (k == offsetof(struct seccomp_data, instruction_pointer))
    return "ip (low)";
  if (k == offsetof(struct seccomp_data, instruction_pointer) + 4)
    return "ip (high)";
  if (k >= offsetof(struct seccomp_data, args) && k < sizeof(struct seccomp_data)) {
    uint32_t rel = k - (uint32_t)offsetof(struct seccomp_data, args);
    snprintf(buf, size, "args[%u] %s", rel / 8, rel % 8 ? "+4" : "+0");
    return buf;
  }
  return "?";
}

void bpf_format_insn(char *buf, size_t size, const struct sock_filter *f, uint32_t pc)
{
  char fb[32];
  uint16_t c = f->code;
  const char *op = NULL;
  switch (c) {
  case BPF_LD | BPF_W | BPF_ABS:
    snprintf(buf, size, "ld   [%u]  %s", f->k, field_name(f->k, fb, sizeof fb));
    return;
  case BPF_RET | BPF_K: {
    struct sc_action a;
    char act[48];
    if (sc_action_from_ret(f->k, &a))
      sc_action_format(act, sizeof act, a);
    else
      snprintf(act, sizeof act, "unknown");
    snprintf(buf, size, "ret  #%#010x  %s", f->k, act);
    return;
  }
  case BPF_RET | BPF_A:
    snprintf(buf, size, "ret  A");
    return;
  case BPF_JMP | BPF_JA:
    snprintf(buf, size, "ja   %04u", pc + 1 + f->k);
    return;
  case BPF_ALU | BPF_AND | BPF_K:
    snprintf(buf, size, "and  #%#x", f->k);
    return;
  case BPF_JMP | BPF_JEQ | BPF_K:
    op = "jeq ";
    break;
  case BPF_JMP | BPF_JGT | BPF_K:
    op = "jgt ";
    break;
  case BPF_JMP | BPF_JGE | BPF_K:
    op = "jge ";
    break;
  case BPF_JMP | BPF_JSET | BPF_K:
    op = "jset";
    break;
  default:
    snprintf(buf, size, "op   %#06x k=%#x", c, f->k);
    return;
  }
  snprintf(buf, size, "%s #%#x  true %04u false %04u", op, f->k, pc + 1 + f->jt, pc + 1 + f->jf);
}

void bpf_write_disasm(FILE *out, const struct bpf_program_out *p)
{
  fprintf(out,
          "How to read this program: one line per instruction, in the order the kernel\n"
          "runs them. pc is the index; code, jt, jf and k are the raw fields of struct\n"
          "sock_filter; insn decodes them with absolute jump targets (\"true 0012\": go\n"
          "to pc 0012 when the test holds); the comment says what the instruction means\n"
          "for the policy. Jumps only go forward and every path ends in a ret.\n"
          "Begin BPF program (%u instructions)\n",
          p->len);
  fprintf(out, "%-5s %-6s %-4s %-4s %-10s  %-42s %s\n", "pc", "code", "jt", "jf", "k", "insn",
          "comment");
  for (uint32_t i = 0; i < p->len; i++) {
    char txt[96];
    const struct sock_filter *f = &p->insns[i];
    bpf_format_insn(txt, sizeof txt, f, i);
    fprintf(out, "%04u  0x%04x %-4u %-4u 0x%08x  %-42s %s\n", i, f->code, f->jt, f->jf, f->k, txt,
            p->comments && p->comments[i] ? p->comments[i] : "");
  }
  fprintf(out, "End BPF program\n");
}
