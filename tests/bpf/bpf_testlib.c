/* bpf_testlib: see bpf_testlib.h. */
#include "bpf_testlib.h"

#include <errno.h>
#include <linux/audit.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bpf_interp.h"

static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n);
  if (!q) {
    fprintf(stderr, "out of memory\n");
    abort();
  }
  return q;
}

void tl_init(struct sc_ruleset *rs, struct sc_action def) {
  memset(rs, 0, sizeof *rs);
  rs->audit_arch = AUDIT_ARCH_X86_64;
  rs->default_action = def;
  rs->bad_arch_action = A_KILLP;
  rs->name = "test rule set";
}

uint32_t tl_rule_nr(struct sc_ruleset *rs, int nr, struct sc_action act) {
  rs->rules = xrealloc(rs->rules, (rs->nrules + 1) * sizeof *rs->rules);
  struct sc_rule *r = &rs->rules[rs->nrules];
  memset(r, 0, sizeof *r);
  r->nr = nr;
  char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, nr & 0x3fffffff);
  if (!name && asprintf(&name, "#%d", nr) < 0) abort();
  r->name = name;
  if (asprintf(&r->origin, "test rule %u", rs->nrules) < 0) abort();
  r->action = act;
  return rs->nrules++;
}

uint32_t tl_rule(struct sc_ruleset *rs, const char *name, struct sc_action act) {
  int nr = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, name);
  if (nr < 0) {
    fprintf(stderr, "unknown system call %s in a test table\n", name);
    abort();
  }
  return tl_rule_nr(rs, nr, act);
}

void tl_clause(struct sc_ruleset *rs, uint32_t idx, const struct sc_cond *conds, uint32_t n) {
  struct sc_rule *r = &rs->rules[idx];
  r->clauses = xrealloc(r->clauses, (r->nclauses + 1) * sizeof *r->clauses);
  struct sc_clause *c = &r->clauses[r->nclauses++];
  c->conds = xrealloc(NULL, (n ? n : 1) * sizeof *c->conds);
  memcpy(c->conds, conds, n * sizeof *conds);
  c->nconds = n;
}

static enum scmp_compare scmp_op(enum sc_cmp op) {
  switch (op) {
  case SC_CMP_EQ: return SCMP_CMP_EQ;
  case SC_CMP_NE: return SCMP_CMP_NE;
  case SC_CMP_LT: return SCMP_CMP_LT;
  case SC_CMP_LE: return SCMP_CMP_LE;
  case SC_CMP_GT: return SCMP_CMP_GT;
  case SC_CMP_GE: return SCMP_CMP_GE;
  case SC_CMP_MASKED_EQ: return SCMP_CMP_MASKED_EQ;
  }
  return _SCMP_CMP_MIN;
}

/* First-match -> libseccomp. libseccomp has no order between rules, so
 * each rule is made disjoint from every earlier rule of its call: rule j
 * becomes R_j AND NOT (R_1 OR ... OR R_j-1), written in DNF (the negation
 * of a DNF is a product of negated conditions). Disjoint rules mean the
 * same under any order, so libseccomp's filter is a faithful oracle for
 * first-match rule sets. Not expressible (-ENOTSUP): a negated masked
 * comparison (libseccomp has no "masked !="), two conditions on one
 * argument that do not simplify, or more than TL_MAX_CLAUSES clauses. */
#define TL_MAX_CLAUSES 4096

struct tl_clause {
  struct sc_cond c[6];
  unsigned n;
};

/* 1: *out is the negation; 2: the negation always holds (in never does);
 * 0: not expressible. */
static int negate(const struct sc_cond *in, struct sc_cond *out) {
  *out = *in;
  if (in->op == SC_CMP_MASKED_EQ) {
    uint64_t wm = in->is32 ? 0xffffffffu : UINT64_MAX, m = in->mask & wm, v = in->value & wm;
    if (v & ~m) return 2;
    /* One bit: "bit is v" negates to "bit is not v". */
    if (m && !(m & (m - 1))) {
      out->value = v ^ m;
      return 1;
    }
    return 0;
  }
  switch (in->op) {
  case SC_CMP_EQ: out->op = SC_CMP_NE; return 1;
  case SC_CMP_NE: out->op = SC_CMP_EQ; return 1;
  case SC_CMP_LT: out->op = SC_CMP_GE; return 1;
  case SC_CMP_GE: out->op = SC_CMP_LT; return 1;
  case SC_CMP_LE: out->op = SC_CMP_GT; return 1;
  case SC_CMP_GT: out->op = SC_CMP_LE; return 1;
  case SC_CMP_MASKED_EQ: return 0;
  }
  return 0;
}

/* The values of one argument a comparison admits, as an interval. */
static bool as_interval(const struct sc_cond *c, uint64_t max, uint64_t *lo, uint64_t *hi) {
  uint64_t v = c->value & max;
  switch (c->op) {
  case SC_CMP_EQ: *lo = *hi = v; return true;
  case SC_CMP_LT: *lo = 0; *hi = v ? v - 1 : 0; return v != 0;
  case SC_CMP_LE: *lo = 0; *hi = v; return true;
  case SC_CMP_GT: *lo = v + 1; *hi = max; return v != max;
  case SC_CMP_GE: *lo = v; *hi = max; return true;
  default: return false;
  }
}

/* Adds cond to a clause. 1: added or redundant; 0: the clause can never
 * hold (drop it); -1: two conditions on one argument that libseccomp cannot
 * take in one rule (it refuses a rule naming an argument twice). */
static int clause_add(struct tl_clause *cl, const struct sc_cond *c) {
  for (unsigned i = 0; i < cl->n; i++) {
    struct sc_cond *o = &cl->c[i];
    if (o->arg != c->arg) continue;
    if (o->is32 != c->is32) return -1;
    uint64_t max = c->is32 ? 0xffffffffu : UINT64_MAX;
    /* x == v decides every other comparison on x. */
    if (o->op == SC_CMP_EQ) return sc_cond_holds(c, o->value) ? 1 : 0;
    if (c->op == SC_CMP_EQ) {
      if (!sc_cond_holds(o, c->value)) return 0;
      *o = *c;
      return 1;
    }
    if (o->op == SC_CMP_MASKED_EQ && c->op == SC_CMP_MASKED_EQ) {
      /* Two masks: one mask over both, if they agree where they overlap. */
      uint64_t m1 = o->mask & max, v1 = o->value & max, m2 = c->mask & max, v2 = c->value & max;
      if ((v1 & ~m1) || (v2 & ~m2) || ((v1 ^ v2) & m1 & m2)) return 0;
      o->mask = m1 | m2;
      o->value = v1 | v2;
      return 1;
    }
    if (o->op == SC_CMP_MASKED_EQ || c->op == SC_CMP_MASKED_EQ) return -1;
    uint64_t l1, h1, l2, h2;
    const struct sc_cond *ne = o->op == SC_CMP_NE ? o : c->op == SC_CMP_NE ? c : NULL;
    const struct sc_cond *rg = ne == o ? c : o;
    if (ne && rg->op == SC_CMP_NE) {
      if ((ne->value & max) == (rg->value & max)) return 1;
      return -1;
    }
    bool empty1, empty2;
    if (ne) {
      /* x != v within an interval: trim an end, or nothing to do. */
      empty1 = !as_interval(rg, max, &l1, &h1);
      uint64_t v = ne->value & max;
      if (empty1) return 0;
      if (v < l1 || v > h1) {
        *o = *rg;
        return 1;
      }
      if (l1 == h1) return 0;
      if (v == l1) l1++;
      else if (v == h1) h1--;
      else return -1;
    } else {
      empty1 = !as_interval(o, max, &l1, &h1);
      empty2 = !as_interval(c, max, &l2, &h2);
      if (empty1 || empty2) return 0;
      if (l2 > l1) l1 = l2;
      if (h2 < h1) h1 = h2;
      if (l1 > h1) return 0;
    }
    struct sc_cond r = *c;
    if (l1 == h1) {
      r.op = SC_CMP_EQ;
      r.value = l1;
    } else if (l1 == 0) {
      r.op = SC_CMP_LE;
      r.value = h1;
    } else if (h1 == max) {
      r.op = SC_CMP_GE;
      r.value = l1;
    } else {
      return -1;
    }
    *o = r;
    return 1;
  }
  if (cl->n == 6) return -1;
  cl->c[cl->n++] = *c;
  return 1;
}

static int add_disjoint(scmp_filter_ctx ctx, const struct sc_ruleset *rs, const struct sc_rule *r,
                        const struct sc_rule *const *prev, uint32_t nprev) {
  /* Start from R's clauses (an unconditional rule: one empty clause). */
  size_t cap = TL_MAX_CLAUSES, n = 0;
  struct tl_clause *cur = calloc(cap, sizeof *cur), *next = calloc(cap, sizeof *next);
  int rc = 0;
  if (!cur || !next) abort();
  if (r->nclauses == 0) {
    n = 1;
  } else {
    for (uint32_t c = 0; c < r->nclauses && n < cap; c++) {
      struct tl_clause cl = {.n = 0};
      int ok = 1;
      for (uint32_t k = 0; k < r->clauses[c].nconds && ok == 1; k++) ok = clause_add(&cl, &r->clauses[c].conds[k]);
      if (ok < 0) {
        rc = -ENOTSUP;
        goto done;
      }
      if (ok) cur[n++] = cl;
    }
  }
  /* AND NOT each earlier clause: split on which condition fails. */
  /* Earlier rules with the same action may overlap this one: both say the
   * same, and libseccomp unites them. Only the others are subtracted. */
  for (uint32_t p = 0; p < nprev; p++)
    for (uint32_t c = 0; c < prev[p]->nclauses && !sc_action_equal(prev[p]->action, r->action); c++) {
      const struct sc_clause *pc = &prev[p]->clauses[c];
      size_t m = 0;
      for (size_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < pc->nconds; k++) {
          struct sc_cond neg;
          int nk = negate(&pc->conds[k], &neg);
          if (nk == 0) {
            rc = -ENOTSUP;
            goto done;
          }
          struct tl_clause cl = cur[i];
          int ok = nk == 2 ? 1 : clause_add(&cl, &neg);
          if (ok < 0) {
            rc = -ENOTSUP;
            goto done;
          }
          if (!ok) continue;
          if (m == cap) {
            rc = -ENOTSUP;
            goto done;
          }
          next[m++] = cl;
        }
      struct tl_clause *t = cur;
      cur = next;
      next = t;
      n = m;
    }
  if (sc_action_equal(r->action, rs->default_action)) goto done; /* libseccomp refuses these */
  for (size_t i = 0; i < n && rc == 0; i++) {
    struct scmp_arg_cmp cmp[6];
    for (unsigned k = 0; k < cur[i].n; k++) {
      const struct sc_cond *cd = &cur[i].c[k];
      uint64_t wm = cd->is32 ? 0xffffffffu : UINT64_MAX;
      cmp[k].arg = cd->arg;
      cmp[k].op = scmp_op(cd->op);
      cmp[k].datum_a = cd->op == SC_CMP_MASKED_EQ ? cd->mask & wm : cd->value & wm;
      cmp[k].datum_b = cd->op == SC_CMP_MASKED_EQ ? cd->value & wm : 0;
    }
    rc = seccomp_rule_add_exact_array(ctx, sc_action_ret(r->action), r->nr, cur[i].n, cmp);
  }
done:
  free(cur);
  free(next);
  return rc;
}

int tl_unsupported_nr = -1;

int tl_libseccomp_filter(const struct sc_ruleset *rs, int optimize, struct sock_filter **insns,
                         uint32_t *len) {
  tl_unsupported_nr = -1;
  scmp_filter_ctx ctx = seccomp_init(sc_action_ret(rs->default_action));
  const struct sc_rule **prev = NULL;
  int rc = 0, fd = -1;
  *insns = NULL;
  *len = 0;
  if (!ctx) return -ENOMEM;
  rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, sc_action_ret(rs->bad_arch_action));
  if (!rc && optimize) rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, (uint32_t)optimize);
  if (rc) goto done;
  prev = calloc(rs->nrules + 1, sizeof *prev);
  if (!prev) abort();
  for (uint32_t i = 0; i < rs->nrules && !rc; i++) {
    const struct sc_rule *r = &rs->rules[i];
    uint32_t nprev = 0;
    bool dead = false;
    for (uint32_t j = 0; j < i; j++) {
      if (rs->rules[j].nr != r->nr) continue;
      bool uncond = rs->rules[j].nclauses == 0;
      for (uint32_t c = 0; c < rs->rules[j].nclauses; c++) uncond = uncond || rs->rules[j].clauses[c].nconds == 0;
      if (uncond) dead = true; /* first match: nothing after it decides */
      prev[nprev++] = &rs->rules[j];
    }
    if (dead) continue;
    rc = add_disjoint(ctx, rs, r, prev, nprev);
    if (rc) tl_unsupported_nr = r->nr;
  }
  if (rc) goto done;
  fd = memfd_create("libseccomp-bpf", 0);
  if (fd < 0) {
    rc = -errno;
    goto done;
  }
  rc = seccomp_export_bpf(ctx, fd);
  if (rc) goto done;
  off_t size = lseek(fd, 0, SEEK_END);
  if (size <= 0 || size % sizeof(struct sock_filter)) {
    rc = -EIO;
    goto done;
  }
  *insns = xrealloc(NULL, (size_t)size);
  if (pread(fd, *insns, (size_t)size, 0) != size) {
    free(*insns);
    *insns = NULL;
    rc = -EIO;
    goto done;
  }
  *len = (uint32_t)(size / sizeof(struct sock_filter));
done:
  free(prev);
  if (fd >= 0) close(fd);
  seccomp_release(ctx);
  return rc;
}

static void push(struct tl_inputs *in, const struct seccomp_data *sd) {
  if (in->n == in->cap) {
    in->cap = in->cap ? in->cap * 2 : 1024;
    in->v = xrealloc(in->v, in->cap * sizeof *in->v);
  }
  in->v[in->n++] = *sd;
}

static uint64_t satisfying(const struct sc_cond *c) {
  switch (c->op) {
  case SC_CMP_EQ:
  case SC_CMP_LE:
  case SC_CMP_GE:
  case SC_CMP_MASKED_EQ: return c->value;
  case SC_CMP_NE:
  case SC_CMP_GT: return c->value + 1;
  case SC_CMP_LT: return c->value ? c->value - 1 : 0;
  }
  return 0;
}

static void boundaries(const struct sc_cond *c, uint64_t *b, size_t *nb) {
  uint64_t v = c->value;
  size_t n = 0;
  b[n++] = v - 1;
  b[n++] = v;
  b[n++] = v + 1;
  b[n++] = v | (1ull << 32);
  b[n++] = (v & 0xffffffffu) | 0xffffffff00000000ull;
  b[n++] = v ^ (1ull << 63);
  b[n++] = v & 0xffffffff00000000ull;
  b[n++] = (v >> 32) | (v << 32);
  b[n++] = 0;
  b[n++] = UINT64_MAX;
  b[n++] = 0xffffffffu;
  b[n++] = 0x100000000ull;
  if (c->op == SC_CMP_MASKED_EQ) {
    uint64_t m = c->mask;
    b[n++] = v | ~m;
    b[n++] = v & m;
    b[n++] = v ^ (m & (~m + 1)); /* flip the lowest mask bit */
    b[n++] = v ^ (m & 0xffffffff00000000ull);
  }
  *nb = n;
}

static void inputs_for_nr(const struct sc_ruleset *rs, uint32_t nr, uint32_t arch, struct tl_inputs *in) {
  struct seccomp_data sd = {.nr = (int)nr, .arch = arch};
  push(in, &sd);
  /* "Typical" arguments: a small fd, a user pointer, a length. */
  struct seccomp_data typ = sd;
  typ.args[0] = 3;
  typ.args[1] = 0x7ffc12345000ull;
  typ.args[2] = 0x100;
  push(in, &typ);
  for (uint32_t i = 0; i < rs->nrules; i++) {
    const struct sc_rule *r = &rs->rules[i];
    if ((uint32_t)r->nr != nr) continue;
    for (uint32_t c = 0; c < r->nclauses; c++) {
      const struct sc_clause *cl = &r->clauses[c];
      struct seccomp_data sat = sd;
      for (uint32_t k = 0; k < cl->nconds; k++) sat.args[cl->conds[k].arg] = satisfying(&cl->conds[k]);
      push(in, &sat);
      for (uint32_t k = 0; k < cl->nconds; k++) {
        uint64_t b[20];
        size_t nb;
        boundaries(&cl->conds[k], b, &nb);
        for (size_t j = 0; j < nb; j++) {
          struct seccomp_data x = sat;
          x.args[cl->conds[k].arg] = b[j];
          push(in, &x);
          struct seccomp_data z = sd; /* the same value alone */
          z.args[cl->conds[k].arg] = b[j];
          push(in, &z);
        }
      }
    }
  }
}

int tl_make_inputs(const struct sc_ruleset *rs, struct tl_inputs *in) {
  static const uint32_t extra[] = {0x3fffffffu, 0x40000000u, 0x40000001u, 0x40000027u, 0x4000003bu,
                                   0x40000200u, 0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu,
                                   1000, 4096, 65536};
  memset(in, 0, sizeof *in);
  for (uint32_t nr = 0; nr <= TL_MAX_NR; nr++) inputs_for_nr(rs, nr, AUDIT_ARCH_X86_64, in);
  for (size_t i = 0; i < sizeof extra / sizeof *extra; i++)
    inputs_for_nr(rs, extra[i], AUDIT_ARCH_X86_64, in);
  for (uint32_t i = 0; i < rs->nrules; i++)
    if ((uint32_t)rs->rules[i].nr >= 0x40000000u) inputs_for_nr(rs, (uint32_t)rs->rules[i].nr, AUDIT_ARCH_X86_64, in);
  /* Foreign ABIs: i386 (int 0x80 from a 64-bit process) and another arch. */
  static const uint32_t i386_nrs[] = {0, 1, 4, 20, 54, 252};
  for (size_t i = 0; i < sizeof i386_nrs / sizeof *i386_nrs; i++)
    inputs_for_nr(rs, i386_nrs[i], AUDIT_ARCH_I386, in);
  inputs_for_nr(rs, 0, AUDIT_ARCH_AARCH64, in);
  inputs_for_nr(rs, 0, 0, in);
  return 0;
}

void tl_inputs_free(struct tl_inputs *in) {
  free(in->v);
  memset(in, 0, sizeof *in);
}

bool tl_oracle_applies(const struct sc_ruleset *rs, const struct seccomp_data *sd) {
  if (sd->arch != rs->audit_arch) return true;
  if (rs->allow_x32 && (uint32_t)sd->nr >= 0x40000000u && (uint32_t)sd->nr != 0xffffffffu) return false;
  for (uint32_t i = 0; i < rs->nrules; i++) {
    const struct sc_rule *r = &rs->rules[i];
    if ((uint32_t)r->nr != (uint32_t)sd->nr) continue;
    for (uint32_t c = 0; c < r->nclauses; c++)
      for (uint32_t k = 0; k < r->clauses[c].nconds; k++)
        if (r->clauses[c].conds[k].is32 && (sd->args[r->clauses[c].conds[k].arg] >> 32) != 0)
          return false;
  }
  return true;
}

size_t tl_compare(const struct sc_ruleset *rs, const struct sock_filter *mine, uint32_t mine_len,
                  const struct sock_filter *oracle, uint32_t oracle_len, const struct tl_inputs *in,
                  FILE *out) {
  size_t bad = 0;
  for (size_t i = 0; i < in->n; i++) {
    const struct seccomp_data *sd = &in->v[i];
    uint32_t want = sc_ruleset_eval(rs, sd);
    struct bpf_run_result a = {0}, b = {0};
    int ra = bpf_run(mine, mine_len, sd, &a);
    bool disagree = ra != 0 || a.ret != want;
    bool oracle_used = oracle && tl_oracle_applies(rs, sd);
    if (oracle_used) {
      int rb = bpf_run(oracle, oracle_len, sd, &b);
      disagree = disagree || rb != 0 || b.ret != want;
    }
    if (disagree) {
      if (bad < 10 && out)
        fprintf(out,
                "%s: arch %#x nr %d args {%#llx, %#llx, %#llx, %#llx, %#llx, %#llx}: rules say %#x, "
                "generated filter %#x%s",
                rs->name ? rs->name : "rule set", sd->arch, sd->nr, (unsigned long long)sd->args[0],
                (unsigned long long)sd->args[1], (unsigned long long)sd->args[2],
                (unsigned long long)sd->args[3], (unsigned long long)sd->args[4],
                (unsigned long long)sd->args[5], want, a.ret, oracle_used ? "" : "\n");
      if (bad < 10 && out && oracle_used) fprintf(out, ", libseccomp %#x\n", b.ret);
      bad++;
    }
  }
  return bad;
}

bool tl_plain_allow(const struct sc_ruleset *rs, uint32_t nr) {
  const struct sc_rule *list[256];
  uint32_t n = 0;
  struct sc_action fallback = rs->default_action;
  for (uint32_t i = 0; i < rs->nrules && n < 256; i++) {
    const struct sc_rule *r = &rs->rules[i];
    if ((uint32_t)r->nr != nr) continue;
    bool uncond = r->nclauses == 0;
    for (uint32_t c = 0; c < r->nclauses; c++) uncond = uncond || r->clauses[c].nconds == 0;
    if (uncond) {
      fallback = r->action;
      break;
    }
    list[n++] = r;
  }
  while (n > 0 && sc_action_equal(list[n - 1]->action, fallback)) n--;
  return n == 0 && fallback.kind == SC_ACT_ALLOW;
}

/* ---- runc's way (libcontainer/seccomp), re-done here as the oracle ---- */

#include <jansson.h>

#include "oci_import.h"

static uint32_t runc_action(json_t *e, const char *key, const char *errkey) {
  const char *a = json_string_value(json_object_get(e, key));
  json_t *er = json_object_get(e, errkey);
  uint32_t data = json_is_integer(er) ? (uint32_t)json_integer_value(er) : 1;
  if (!a) return UINT32_MAX;
  if (!strcmp(a, "SCMP_ACT_ALLOW")) return SCMP_ACT_ALLOW;
  if (!strcmp(a, "SCMP_ACT_ERRNO")) return SCMP_ACT_ERRNO(data);
  if (!strcmp(a, "SCMP_ACT_KILL") || !strcmp(a, "SCMP_ACT_KILL_THREAD")) return SCMP_ACT_KILL_THREAD;
  if (!strcmp(a, "SCMP_ACT_KILL_PROCESS")) return SCMP_ACT_KILL_PROCESS;
  if (!strcmp(a, "SCMP_ACT_TRAP")) return SCMP_ACT_TRAP;
  if (!strcmp(a, "SCMP_ACT_LOG")) return SCMP_ACT_LOG;
  if (!strcmp(a, "SCMP_ACT_TRACE")) return SCMP_ACT_TRACE(data);
  if (!strcmp(a, "SCMP_ACT_NOTIFY")) return SCMP_ACT_NOTIFY;
  return UINT32_MAX;
}

static bool runc_has(json_t *arr, const char *s1, const char *s2) {
  size_t i;
  json_t *v;
  json_array_foreach(arr, i, v) {
    const char *s = json_string_value(v);
    if (s && (!strcmp(s, s1) || !strcmp(s, s2))) return true;
  }
  return false;
}

static bool runc_applies(json_t *e) {
  json_t *inc = json_object_get(e, "includes"), *exc = json_object_get(e, "excludes");
  if (json_array_size(json_object_get(inc, "caps")) > 0) return false;
  json_t *ia = json_object_get(inc, "arches");
  if (json_array_size(ia) > 0 && !runc_has(ia, "amd64", "x86_64")) return false;
  const char *mk = json_string_value(json_object_get(inc, "minKernel"));
  if (mk) {
    int maj = 0, min = 0;
    sscanf(mk, "%d.%d", &maj, &min);
    if (maj > OCI_ASSUMED_KERNEL_MAJOR || (maj == OCI_ASSUMED_KERNEL_MAJOR && min > OCI_ASSUMED_KERNEL_MINOR))
      return false;
  }
  if (runc_has(json_object_get(exc, "arches"), "amd64", "x86_64")) return false;
  return true;
}

static enum scmp_compare runc_op(const char *op) {
  static const struct {
    const char *name;
    enum scmp_compare op;
  } ops[] = {{"SCMP_CMP_EQ", SCMP_CMP_EQ}, {"SCMP_CMP_NE", SCMP_CMP_NE}, {"SCMP_CMP_LT", SCMP_CMP_LT},
             {"SCMP_CMP_LE", SCMP_CMP_LE}, {"SCMP_CMP_GT", SCMP_CMP_GT}, {"SCMP_CMP_GE", SCMP_CMP_GE},
             {"SCMP_CMP_MASKED_EQ", SCMP_CMP_MASKED_EQ}};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    if (op && !strcmp(op, ops[i].name)) return ops[i].op;
  return _SCMP_CMP_MIN;
}

int tl_runc_filter_opt(const char *path, int optimize, struct sock_filter **insns, uint32_t *len) {
  json_error_t jerr;
  json_t *root = json_load_file(path, 0, &jerr);
  scmp_filter_ctx ctx = NULL;
  int rc = 0, fd = -1;
  *insns = NULL;
  *len = 0;
  if (!root) return -EINVAL;
  uint32_t def = runc_action(root, "defaultAction", "defaultErrnoRet");
  ctx = seccomp_init(def);
  if (!ctx) {
    rc = -EINVAL;
    goto done;
  }
  /* Our import refuses foreign ABIs with kill-process (runc would add
   * the sub-architectures instead); the oracle is told the same. */
  rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
  if (!rc && optimize) rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, (uint32_t)optimize);
  size_t i, j;
  json_t *e, *nm;
  json_array_foreach(json_object_get(root, "syscalls"), i, e) {
    if (rc) break;
    if (!runc_applies(e)) continue;
    uint32_t act = runc_action(e, "action", "errnoRet");
    if (act == def) continue;
    json_array_foreach(json_object_get(e, "names"), j, nm) {
      int nr = seccomp_syscall_resolve_name(json_string_value(nm));
      if (nr == __NR_SCMP_ERROR || nr < 0) continue;
      json_t *args = json_object_get(e, "args");
      size_t n = json_array_size(args), k;
      struct scmp_arg_cmp cmp[16];
      unsigned count[6] = {0};
      bool multi = false;
      json_t *a;
      if (n > 16) {
        rc = -E2BIG;
        break;
      }
      json_array_foreach(args, k, a) {
        cmp[k].arg = (unsigned)json_integer_value(json_object_get(a, "index"));
        cmp[k].op = runc_op(json_string_value(json_object_get(a, "op")));
        cmp[k].datum_a = (uint64_t)json_integer_value(json_object_get(a, "value"));
        cmp[k].datum_b = (uint64_t)json_integer_value(json_object_get(a, "valueTwo"));
        if (cmp[k].arg < 6 && ++count[cmp[k].arg] > 1) multi = true;
      }
      if (n == 0)
        rc = seccomp_rule_add(ctx, act, nr, 0);
      else if (multi)
        for (k = 0; k < n && !rc; k++) rc = seccomp_rule_add_array(ctx, act, nr, 1, &cmp[k]);
      else
        rc = seccomp_rule_add_array(ctx, act, nr, (unsigned)n, cmp);
      if (rc) break;
    }
  }
  if (rc) goto done;
  fd = memfd_create("runc-bpf", 0);
  if (fd < 0 || seccomp_export_bpf(ctx, fd) != 0) {
    rc = -EIO;
    goto done;
  }
  off_t size = lseek(fd, 0, SEEK_END);
  *insns = xrealloc(NULL, (size_t)size);
  if (pread(fd, *insns, (size_t)size, 0) != size) {
    rc = -EIO;
    goto done;
  }
  *len = (uint32_t)(size / sizeof(struct sock_filter));
done:
  if (rc) {
    free(*insns);
    *insns = NULL;
  }
  if (fd >= 0) close(fd);
  if (ctx) seccomp_release(ctx);
  json_decref(root);
  return rc;
}

int tl_runc_filter(const char *path, struct sock_filter **insns, uint32_t *len) {
  return tl_runc_filter_opt(path, 0, insns, len);
}
