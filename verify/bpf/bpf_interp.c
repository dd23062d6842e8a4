/* bpf_interp: classic BPF for seccomp, in userspace (verify/bpf_interp.h).
 * Independent of the generator: it decodes raw instructions the way the
 * kernel does, so it can also run libseccomp's programs as an oracle. */
#include "bpf_interp.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MEMWORDS 16

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
  if (err && errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return -EINVAL;
}

static bool is_cond_jump(uint16_t code)
{
  switch (code) {
  case BPF_JMP | BPF_JEQ | BPF_K:
  case BPF_JMP | BPF_JEQ | BPF_X:
  case BPF_JMP | BPF_JGE | BPF_K:
  case BPF_JMP | BPF_JGE | BPF_X:
  case BPF_JMP | BPF_JGT | BPF_K:
  case BPF_JMP | BPF_JGT | BPF_X:
  case BPF_JMP | BPF_JSET | BPF_K:
  case BPF_JMP | BPF_JSET | BPF_X:
    return true;
  default:
    return false;
  }
}

/* The opcodes seccomp_check_filter lets through. */
static bool seccomp_opcode_ok(uint16_t code)
{
  switch (code) {
  case BPF_LD | BPF_W | BPF_ABS:
  case BPF_LD | BPF_W | BPF_LEN:
  case BPF_LDX | BPF_W | BPF_LEN:
  case BPF_RET | BPF_K:
  case BPF_RET | BPF_A:
  case BPF_ALU | BPF_ADD | BPF_K:
  case BPF_ALU | BPF_ADD | BPF_X:
  case BPF_ALU | BPF_SUB | BPF_K:
  case BPF_ALU | BPF_SUB | BPF_X:
  case BPF_ALU | BPF_MUL | BPF_K:
  case BPF_ALU | BPF_MUL | BPF_X:
  case BPF_ALU | BPF_DIV | BPF_K:
  case BPF_ALU | BPF_DIV | BPF_X:
  case BPF_ALU | BPF_AND | BPF_K:
  case BPF_ALU | BPF_AND | BPF_X:
  case BPF_ALU | BPF_OR | BPF_K:
  case BPF_ALU | BPF_OR | BPF_X:
  case BPF_ALU | BPF_XOR | BPF_K:
  case BPF_ALU | BPF_XOR | BPF_X:
  case BPF_ALU | BPF_LSH | BPF_K:
  case BPF_ALU | BPF_LSH | BPF_X:
  case BPF_ALU | BPF_RSH | BPF_K:
  case BPF_ALU | BPF_RSH | BPF_X:
  case BPF_ALU | BPF_NEG:
  case BPF_LD | BPF_IMM:
  case BPF_LDX | BPF_IMM:
  case BPF_MISC | BPF_TAX:
  case BPF_MISC | BPF_TXA:
  case BPF_LD | BPF_MEM:
  case BPF_LDX | BPF_MEM:
  case BPF_ST:
  case BPF_STX:
  case BPF_JMP | BPF_JA:
    return true;
  default:
    return is_cond_jump(code);
  }
}

/* The kernel's check_load_and_stores: a forward data-flow pass over the
 * set of scratch words written on every path reaching each instruction. */
static int check_memory(const struct sock_filter *f, uint32_t len, char *err, size_t errlen)
{
  uint16_t *masks = malloc(len * sizeof *masks);
  int rc = 0;
  if (!masks)
    return -ENOMEM;
  for (uint32_t i = 0; i < len; i++)
    masks[i] = 0xffff;
  uint16_t memvalid = 0;
  for (uint32_t pc = 0; pc < len; pc++) {
    memvalid &= masks[pc];
    const struct sock_filter *x = &f[pc];
    switch (x->code) {
    case BPF_ST:
    case BPF_STX:
      memvalid |= (uint16_t)(1u << x->k);
      break;
    case BPF_LD | BPF_MEM:
    case BPF_LDX | BPF_MEM:
      if (!(memvalid & (1u << x->k))) {
        rc = fail(err, errlen, "pc %u: scratch word %u read before it is written", pc, x->k);
        goto done;
      }
      break;
    case BPF_JMP | BPF_JA:
      masks[pc + 1 + x->k] &= memvalid;
      memvalid = 0xffff;
      break;
    default:
      if (is_cond_jump(x->code)) {
        masks[pc + 1 + x->jt] &= memvalid;
        masks[pc + 1 + x->jf] &= memvalid;
        memvalid = 0xffff;
      }
      break;
    }
  }
done:
  free(masks);
  return rc;
}

int bpf_validate(const struct sock_filter *f, uint32_t len, char *err, size_t errlen)
{
  if (len == 0 || len > BPF_MAXINSNS)
    return fail(err, errlen, "program length %u outside 1..%d", len, BPF_MAXINSNS);
  for (uint32_t pc = 0; pc < len; pc++) {
    const struct sock_filter *x = &f[pc];
    if (!seccomp_opcode_ok(x->code))
      return fail(err, errlen, "pc %u: opcode %#06x is not allowed in a seccomp filter", pc,
                  x->code);
    switch (x->code) {
    case BPF_LD | BPF_W | BPF_ABS:
      if (x->k >= sizeof(struct seccomp_data) || (x->k & 3))
        return fail(err, errlen,
                    "pc %u: load of offset %u is outside struct seccomp_data or unaligned", pc,
                    x->k);
      break;
    case BPF_ALU | BPF_DIV | BPF_K:
      if (x->k == 0)
        return fail(err, errlen, "pc %u: division by constant 0", pc);
      break;
    case BPF_ALU | BPF_LSH | BPF_K:
    case BPF_ALU | BPF_RSH | BPF_K:
      if (x->k >= 32)
        return fail(err, errlen, "pc %u: shift by %u", pc, x->k);
      break;
    case BPF_LD | BPF_MEM:
    case BPF_LDX | BPF_MEM:
    case BPF_ST:
    case BPF_STX:
      if (x->k >= MEMWORDS)
        return fail(err, errlen, "pc %u: scratch word %u out of range", pc, x->k);
      break;
    case BPF_JMP | BPF_JA:
      if (x->k >= len - pc - 1)
        return fail(err, errlen, "pc %u: ja leaves the program", pc);
      break;
    default:
      if (is_cond_jump(x->code) && (pc + 1u + x->jt >= len || pc + 1u + x->jf >= len))
        return fail(err, errlen, "pc %u: conditional jump leaves the program", pc);
      break;
    }
  }
  if (f[len - 1].code != (BPF_RET | BPF_K) && f[len - 1].code != (BPF_RET | BPF_A))
    return fail(err, errlen, "the last instruction is not a ret");
  return check_memory(f, len, err, errlen);
}

static uint32_t load_word(const struct seccomp_data *sd, uint32_t off)
{
  uint32_t w;
  memcpy(&w, (const unsigned char *)sd + off, sizeof w);
  return w;
}

int bpf_run(const struct sock_filter *f, uint32_t len, const struct seccomp_data *sd,
            struct bpf_run_result *res)
{
  uint32_t A = 0, X = 0, mem[MEMWORDS] = { 0 };
  uint32_t executed = 0;
  for (uint32_t pc = 0; pc < len; pc++) {
    const struct sock_filter *x = &f[pc];
    executed++;
    switch (x->code) {
    case BPF_LD | BPF_W | BPF_ABS:
      if (x->k >= sizeof *sd || (x->k & 3))
        return -EINVAL;
      A = load_word(sd, x->k);
      break;
    case BPF_LD | BPF_W | BPF_LEN:
      A = sizeof *sd;
      break;
    case BPF_LDX | BPF_W | BPF_LEN:
      X = sizeof *sd;
      break;
    case BPF_LD | BPF_IMM:
      A = x->k;
      break;
    case BPF_LDX | BPF_IMM:
      X = x->k;
      break;
    case BPF_LD | BPF_MEM:
      A = mem[x->k & (MEMWORDS - 1)];
      break;
    case BPF_LDX | BPF_MEM:
      X = mem[x->k & (MEMWORDS - 1)];
      break;
    case BPF_ST:
      mem[x->k & (MEMWORDS - 1)] = A;
      break;
    case BPF_STX:
      mem[x->k & (MEMWORDS - 1)] = X;
      break;
    case BPF_MISC | BPF_TAX:
      X = A;
      break;
    case BPF_MISC | BPF_TXA:
      A = X;
      break;
    case BPF_ALU | BPF_ADD | BPF_K:
      A += x->k;
      break;
    case BPF_ALU | BPF_ADD | BPF_X:
      A += X;
      break;
    case BPF_ALU | BPF_SUB | BPF_K:
      A -= x->k;
      break;
    case BPF_ALU | BPF_SUB | BPF_X:
      A -= X;
      break;
    case BPF_ALU | BPF_MUL | BPF_K:
      A *= x->k;
      break;
    case BPF_ALU | BPF_MUL | BPF_X:
      A *= X;
      break;
    case BPF_ALU | BPF_DIV | BPF_K:
      if (!x->k)
        return -EINVAL;
      A /= x->k;
      break;
    case BPF_ALU | BPF_DIV | BPF_X:
      /* The kernel's classic BPF returns 0 from the program on X == 0. */
      if (!X) {
        res->ret = 0;
        res->executed = executed;
        return 0;
      }
      A /= X;
      break;
    case BPF_ALU | BPF_AND | BPF_K:
      A &= x->k;
      break;
    case BPF_ALU | BPF_AND | BPF_X:
      A &= X;
      break;
    case BPF_ALU | BPF_OR | BPF_K:
      A |= x->k;
      break;
    case BPF_ALU | BPF_OR | BPF_X:
      A |= X;
      break;
    case BPF_ALU | BPF_XOR | BPF_K:
      A ^= x->k;
      break;
    case BPF_ALU | BPF_XOR | BPF_X:
      A ^= X;
      break;
    case BPF_ALU | BPF_LSH | BPF_K:
      A = x->k < 32 ? A << x->k : 0;
      break;
    /* The kernel runs classic BPF as eBPF, whose 32-bit shifts use the low
     * five bits of the count. */
    case BPF_ALU | BPF_LSH | BPF_X:
      A <<= (X & 31);
      break;
    case BPF_ALU | BPF_RSH | BPF_K:
      A = x->k < 32 ? A >> x->k : 0;
      break;
    case BPF_ALU | BPF_RSH | BPF_X:
      A >>= (X & 31);
      break;
    case BPF_ALU | BPF_NEG:
      A = (uint32_t)-A;
      break;
    case BPF_JMP | BPF_JA:
      pc += x->k;
      break;
    case BPF_JMP | BPF_JEQ | BPF_K:
      pc += A == x->k ? x->jt : x->jf;
      break;
    case BPF_JMP | BPF_JEQ | BPF_X:
      pc += A == X ? x->jt : x->jf;
      break;
    case BPF_JMP | BPF_JGT | BPF_K:
      pc += A > x->k ? x->jt : x->jf;
      break;
    case BPF_JMP | BPF_JGT | BPF_X:
      pc += A > X ? x->jt : x->jf;
      break;
    case BPF_JMP | BPF_JGE | BPF_K:
      pc += A >= x->k ? x->jt : x->jf;
      break;
    case BPF_JMP | BPF_JGE | BPF_X:
      pc += A >= X ? x->jt : x->jf;
      break;
    case BPF_JMP | BPF_JSET | BPF_K:
      pc += (A & x->k) ? x->jt : x->jf;
      break;
    case BPF_JMP | BPF_JSET | BPF_X:
      pc += (A & X) ? x->jt : x->jf;
      break;
    case BPF_RET | BPF_K:
      res->ret = x->k;
      res->executed = executed;
      return 0;
    case BPF_RET | BPF_A:
      res->ret = A;
      res->executed = executed;
      return 0;
    default:
      return -EINVAL;
    }
  }
  return -EINVAL; /* ran off the end: bpf_validate rejects such programs */
}

bool bpf_nr_is_const_allow(const struct sock_filter *f, uint32_t len, uint32_t arch, uint32_t nr)
{
  uint32_t A = 0;
  for (uint32_t pc = 0; pc < len; pc++) {
    const struct sock_filter *x = &f[pc];
    bool res;
    switch (x->code) {
    case BPF_LD | BPF_W | BPF_ABS:
      if (x->k == offsetof(struct seccomp_data, nr))
        A = nr;
      else if (x->k == offsetof(struct seccomp_data, arch))
        A = arch;
      else
        return false; /* an argument or the instruction pointer: not constant */
      break;
    case BPF_RET | BPF_K:
      return x->k == SECCOMP_RET_ALLOW;
    case BPF_JMP | BPF_JA:
      pc += x->k;
      break;
    case BPF_JMP | BPF_JEQ | BPF_K:
    case BPF_JMP | BPF_JGE | BPF_K:
    case BPF_JMP | BPF_JGT | BPF_K:
    case BPF_JMP | BPF_JSET | BPF_K:
      switch (BPF_OP(x->code)) {
      case BPF_JEQ:
        res = A == x->k;
        break;
      case BPF_JGE:
        res = A >= x->k;
        break;
      case BPF_JGT:
        res = A > x->k;
        break;
      default:
        res = (A & x->k) != 0;
        break;
      }
      pc += res ? x->jt : x->jf;
      break;
    case BPF_ALU | BPF_AND | BPF_K:
      A &= x->k;
      break;
    default:
      return false; /* the kernel gives up on any other instruction */
    }
  }
  return false;
}
