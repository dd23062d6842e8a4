/* sc_rules: ownership and meaning of a seccomp rule set (gen/sc_rules.h).
 *
 * sc_ruleset_eval is the executable definition of the semantics the BPF
 * generator must reproduce; the tests compare every compiled program against
 * it, so it is written as plainly as possible and shares no code with the
 * generator. */
#include "sc_rules.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sc_ruleset_free(struct sc_ruleset *rs)
{
  if (!rs)
    return;
  for (uint32_t i = 0; i < rs->nrules; i++) {
    struct sc_rule *r = &rs->rules[i];
    for (uint32_t c = 0; c < r->nclauses; c++)
      free(r->clauses[c].conds);
    free(r->clauses);
    free(r->name);
    free(r->origin);
  }
  free(rs->rules);
  rs->rules = NULL;
  rs->nrules = 0;
}

uint32_t sc_action_ret(struct sc_action a)
{
  switch (a.kind) {
  case SC_ACT_ALLOW:
    return SECCOMP_RET_ALLOW;
  case SC_ACT_ERRNO:
    return SECCOMP_RET_ERRNO | a.data;
  case SC_ACT_KILL_PROCESS:
    return SECCOMP_RET_KILL_PROCESS;
  case SC_ACT_KILL_THREAD:
    return SECCOMP_RET_KILL_THREAD;
  case SC_ACT_TRAP:
    return SECCOMP_RET_TRAP | a.data;
  case SC_ACT_LOG:
    return SECCOMP_RET_LOG;
  case SC_ACT_NOTIFY:
    return SECCOMP_RET_USER_NOTIF;
  case SC_ACT_TRACE:
    return SECCOMP_RET_TRACE | a.data;
  }
  /* An out-of-range kind is a caller bug; the strictest action is the only
   * safe reading of it. */
  return SECCOMP_RET_KILL_PROCESS;
}

bool sc_action_from_ret(uint32_t ret, struct sc_action *a)
{
  uint16_t data = (uint16_t)(ret & SECCOMP_RET_DATA);
  a->data = 0;
  switch (ret & SECCOMP_RET_ACTION_FULL) {
  case SECCOMP_RET_ALLOW:
    a->kind = SC_ACT_ALLOW;
    return true;
  case SECCOMP_RET_ERRNO:
    a->kind = SC_ACT_ERRNO;
    a->data = data;
    return true;
  case SECCOMP_RET_KILL_PROCESS:
    a->kind = SC_ACT_KILL_PROCESS;
    return true;
  case SECCOMP_RET_KILL_THREAD:
    a->kind = SC_ACT_KILL_THREAD;
    return true;
  case SECCOMP_RET_TRAP:
    a->kind = SC_ACT_TRAP;
    a->data = data;
    return true;
  case SECCOMP_RET_LOG:
    a->kind = SC_ACT_LOG;
    return true;
  case SECCOMP_RET_USER_NOTIF:
    a->kind = SC_ACT_NOTIFY;
    return true;
  case SECCOMP_RET_TRACE:
    a->kind = SC_ACT_TRACE;
    a->data = data;
    return true;
  default:
    return false;
  }
}

bool sc_action_equal(struct sc_action a, struct sc_action b)
{
  return sc_action_ret(a) == sc_action_ret(b);
}

static const char *errno_name(int e)
{
  switch (e) {
  case EPERM:
    return "EPERM";
  case ENOENT:
    return "ENOENT";
  case EACCES:
    return "EACCES";
  case EINVAL:
    return "EINVAL";
  case ENOSYS:
    return "ENOSYS";
  case EAFNOSUPPORT:
    return "EAFNOSUPPORT";
  case ENOTSUP:
    return "ENOTSUP";
  case EROFS:
    return "EROFS";
  default:
    return NULL;
  }
}

void sc_action_format(char *buf, size_t size, struct sc_action a)
{
  const char *en;
  switch (a.kind) {
  case SC_ACT_ALLOW:
    snprintf(buf, size, "allow");
    return;
  case SC_ACT_ERRNO:
    en = errno_name(a.data);
    if (en)
      snprintf(buf, size, "errno(%s)", en);
    else
      snprintf(buf, size, "errno(%u)", (unsigned)a.data);
    return;
  case SC_ACT_KILL_PROCESS:
    snprintf(buf, size, "kill-process");
    return;
  case SC_ACT_KILL_THREAD:
    snprintf(buf, size, "kill-thread");
    return;
  case SC_ACT_TRAP:
    snprintf(buf, size, "trap(%u)", (unsigned)a.data);
    return;
  case SC_ACT_LOG:
    snprintf(buf, size, "log");
    return;
  case SC_ACT_NOTIFY:
    snprintf(buf, size, "notify");
    return;
  case SC_ACT_TRACE:
    snprintf(buf, size, "trace(%u)", (unsigned)a.data);
    return;
  }
  snprintf(buf, size, "invalid-action(%d)", (int)a.kind);
}

const char *sc_cmp_symbol(enum sc_cmp op)
{
  switch (op) {
  case SC_CMP_EQ:
    return "==";
  case SC_CMP_NE:
    return "!=";
  case SC_CMP_LT:
    return "<";
  case SC_CMP_LE:
    return "<=";
  case SC_CMP_GT:
    return ">";
  case SC_CMP_GE:
    return ">=";
  case SC_CMP_MASKED_EQ:
    return "&";
  }
  return "?";
}

bool sc_cond_holds(const struct sc_cond *c, uint64_t arg)
{
  uint64_t v = c->value, m = c->mask;
  /* A 32-bit argument is truncated by the kernel before use, so only its
   * low word can mean anything: comparing the high word too would let
   * `TIOCSTI | 1ULL << 32` miss a deny rule (CVE-2019-10063). */
  if (c->is32) {
    arg &= 0xffffffffu;
    v &= 0xffffffffu;
    m &= 0xffffffffu;
  }
  switch (c->op) {
  case SC_CMP_EQ:
    return arg == v;
  case SC_CMP_NE:
    return arg != v;
  case SC_CMP_LT:
    return arg < v;
  case SC_CMP_LE:
    return arg <= v;
  case SC_CMP_GT:
    return arg > v;
  case SC_CMP_GE:
    return arg >= v;
  case SC_CMP_MASKED_EQ:
    return (arg & m) == v;
  }
  return false;
}

static bool rule_holds(const struct sc_rule *r, const struct seccomp_data *sd)
{
  if (r->nclauses == 0)
    return true;
  for (uint32_t c = 0; c < r->nclauses; c++) {
    const struct sc_clause *cl = &r->clauses[c];
    bool all = true;
    for (uint32_t k = 0; k < cl->nconds && all; k++)
      all = cl->conds[k].arg < 6 && sc_cond_holds(&cl->conds[k], sd->args[cl->conds[k].arg]);
    if (all)
      return true;
  }
  return false;
}

uint32_t sc_ruleset_eval(const struct sc_ruleset *rs, const struct seccomp_data *sd)
{
  if (sd->arch != rs->audit_arch)
    return sc_action_ret(rs->bad_arch_action);
  uint32_t nr = (uint32_t)sd->nr;
  /* x32 system calls carry __X32_SYSCALL_BIT; they reach the same kernel
   * entry points under other numbers, so a filter written for x86_64 must
   * not let them through by accident. nr == -1 is not an x32 call: it is the
   * "skip this call" value tracers write, and it reaches the decision like
   * any other number (libseccomp does the same). */
  if (rs->audit_arch == AUDIT_ARCH_X86_64 && !rs->allow_x32 && nr >= 0x40000000u &&
      nr != 0xffffffffu)
    return sc_action_ret(rs->bad_arch_action);
  for (uint32_t i = 0; i < rs->nrules; i++) {
    const struct sc_rule *r = &rs->rules[i];
    if ((uint32_t)r->nr == nr && rule_holds(r, sd))
      return sc_action_ret(r->action);
  }
  return sc_action_ret(rs->default_action);
}
