/* bpf_testlib: see bpf_testlib.h. */
#include "bpf_testlib.h"

#include <errno.h>
#include <linux/audit.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bpf_interp.h"
#include "emit_oci.h"

static void *xrealloc(void *p, size_t n)
{
  void *q = realloc(p, n);
  if (!q) {
    fprintf(stderr, "out of memory\n");
    abort();
  }
  return q;
}

void tl_init(struct sc_ruleset *rs, struct sc_action def)
{
  memset(rs, 0, sizeof *rs);
  rs->audit_arch = AUDIT_ARCH_X86_64;
  rs->default_action = def;
  rs->bad_arch_action = A_KILLP;
  rs->name = "test rule set";
}

uint32_t tl_rule_nr(struct sc_ruleset *rs, int nr, struct sc_action act)
{
  rs->rules = xrealloc(rs->rules, (rs->nrules + 1) * sizeof *rs->rules);
  struct sc_rule *r = &rs->rules[rs->nrules];
  memset(r, 0, sizeof *r);
  r->nr = nr;
  char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, nr & 0x3fffffff);
  if (!name && asprintf(&name, "#%d", nr) < 0)
    abort();
  r->name = name;
  if (asprintf(&r->origin, "test rule %u", rs->nrules) < 0)
    abort();
  r->action = act;
  return rs->nrules++;
}

uint32_t tl_rule(struct sc_ruleset *rs, const char *name, struct sc_action act)
{
  int nr = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, name);
  if (nr < 0) {
    fprintf(stderr, "unknown system call %s in a test table\n", name);
    abort();
  }
  return tl_rule_nr(rs, nr, act);
}

void tl_clause(struct sc_ruleset *rs, uint32_t idx, const struct sc_cond *conds, uint32_t n)
{
  struct sc_rule *r = &rs->rules[idx];
  r->clauses = xrealloc(r->clauses, (r->nclauses + 1) * sizeof *r->clauses);
  struct sc_clause *c = &r->clauses[r->nclauses++];
  c->conds = xrealloc(NULL, (n ? n : 1) * sizeof *c->conds);
  memcpy(c->conds, conds, n * sizeof *conds);
  c->nconds = n;
}

static enum scmp_compare scmp_op(enum sc_cmp op)
{
  switch (op) {
  case SC_CMP_EQ:
    return SCMP_CMP_EQ;
  case SC_CMP_NE:
    return SCMP_CMP_NE;
  case SC_CMP_LT:
    return SCMP_CMP_LT;
  case SC_CMP_LE:
    return SCMP_CMP_LE;
  case SC_CMP_GT:
    return SCMP_CMP_GT;
  case SC_CMP_GE:
    return SCMP_CMP_GE;
  case SC_CMP_MASKED_EQ:
    return SCMP_CMP_MASKED_EQ;
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
#define TL_MAX_CLAUSES 256

struct tl_clause {
  struct sc_cond c[6];
  unsigned n;
};

/* NOT in, as disjoint alternatives (each a single condition). Returns the
 * number of alternatives; -1: NOT in always holds (in never does). A masked
 * == negates to "the lowest differing mask bit is b, the bits below it
 * agree", one masked == per bit. */
static int negate(const struct sc_cond *in, struct sc_cond *alt)
{
  alt[0] = *in;
  switch (in->op) {
  case SC_CMP_EQ:
    alt[0].op = SC_CMP_NE;
    return 1;
  case SC_CMP_NE:
    alt[0].op = SC_CMP_EQ;
    return 1;
  case SC_CMP_LT:
    alt[0].op = SC_CMP_GE;
    return 1;
  case SC_CMP_GE:
    alt[0].op = SC_CMP_LT;
    return 1;
  case SC_CMP_LE:
    alt[0].op = SC_CMP_GT;
    return 1;
  case SC_CMP_GT:
    alt[0].op = SC_CMP_LE;
    return 1;
  case SC_CMP_MASKED_EQ:
    break;
  }
  uint64_t wm = in->is32 ? 0xffffffffu : UINT64_MAX, m = in->mask & wm, v = in->value & wm,
           below = 0;
  int n = 0;
  if (v & ~m)
    return -1;
  for (unsigned bit = 0; bit < 64; bit++) {
    uint64_t b = 1ull << bit;
    if (!(m & b))
      continue;
    alt[n] = *in;
    alt[n].mask = below | b;
    alt[n].value = (v & below) | ((v & b) ^ b);
    n++;
    below |= b;
  }
  return n;
}

/* The values of one argument a comparison admits, as an interval. */
static bool as_interval(const struct sc_cond *c, uint64_t max, uint64_t *lo, uint64_t *hi)
{
  uint64_t v = c->value & max;
  switch (c->op) {
  case SC_CMP_EQ:
    *lo = *hi = v;
    return true;
  case SC_CMP_LT:
    *lo = 0;
    *hi = v ? v - 1 : 0;
    return v != 0;
  case SC_CMP_LE:
    *lo = 0;
    *hi = v;
    return true;
  case SC_CMP_GT:
    *lo = v + 1;
    *hi = max;
    return v != max;
  case SC_CMP_GE:
    *lo = v;
    *hi = max;
    return true;
  default:
    return false;
  }
}

/* Adds cond to a clause. 1: added or redundant; 0: the clause can never
 * hold (drop it); -1: two conditions on one argument that libseccomp cannot
 * take in one rule (it refuses a rule naming an argument twice). */
static int clause_add(struct tl_clause *cl, const struct sc_cond *c)
{
  /* (x & m) == v with v outside m never holds for us; libseccomp would
   * compare with v & m instead, so such a condition must not reach it. */
  if (c->op == SC_CMP_MASKED_EQ && (c->value & ~c->mask))
    return 0;
  for (unsigned i = 0; i < cl->n; i++) {
    struct sc_cond *o = &cl->c[i];
    if (o->arg != c->arg)
      continue;
    if (o->is32 != c->is32)
      return -1;
    uint64_t max = c->is32 ? 0xffffffffu : UINT64_MAX;
    /* x == v decides every other comparison on x. */
    if (o->op == SC_CMP_EQ)
      return sc_cond_holds(c, o->value) ? 1 : 0;
    if (c->op == SC_CMP_EQ) {
      if (!sc_cond_holds(o, c->value))
        return 0;
      *o = *c;
      return 1;
    }
    if (o->op == SC_CMP_MASKED_EQ && c->op == SC_CMP_MASKED_EQ) {
      /* Two masks: one mask over both, if they agree where they overlap. */
      uint64_t m1 = o->mask & max, v1 = o->value & max, m2 = c->mask & max, v2 = c->value & max;
      if ((v1 & ~m1) || (v2 & ~m2) || ((v1 ^ v2) & m1 & m2))
        return 0;
      o->mask = m1 | m2;
      o->value = v1 | v2;
      return 1;
    }
    if (o->op == SC_CMP_MASKED_EQ || c->op == SC_CMP_MASKED_EQ)
      return -1;
    uint64_t l1, h1, l2, h2;
    const struct sc_cond *ne = o->op == SC_CMP_NE ? o : c->op == SC_CMP_NE ? c : NULL;
    const struct sc_cond *rg = ne == o ? c : o;
    if (ne && rg->op == SC_CMP_NE) {
      if ((ne->value & max) == (rg->value & max))
        return 1;
      return -1;
    }
    bool empty1, empty2;
    if (ne) {
      /* x != v within an interval: trim an end, or nothing to do. */
      empty1 = !as_interval(rg, max, &l1, &h1);
      uint64_t v = ne->value & max;
      if (empty1)
        return 0;
      if (v < l1 || v > h1) {
        *o = *rg;
        return 1;
      }
      if (l1 == h1)
        return 0;
      if (v == l1)
        l1++;
      else if (v == h1)
        h1--;
      else
        return -1;
    } else {
      empty1 = !as_interval(o, max, &l1, &h1);
      empty2 = !as_interval(c, max, &l2, &h2);
      if (empty1 || empty2)
        return 0;
      if (l2 > l1)
        l1 = l2;
      if (h2 < h1)
        h1 = h2;
      if (l1 > h1)
        return 0;
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
  if (cl->n == 6)
    return -1;
  cl->c[cl->n++] = *c;
  return 1;
}

/* libseccomp compares 64 bits; the oracle is only asked about inputs whose
 * 32-bit arguments have a clear high word (tl_oracle_applies), where a
 * 32-bit comparison equals the 64-bit one on the low-word constants. */
static struct sc_cond widen(const struct sc_cond *c)
{
  struct sc_cond w = *c;
  if (c->is32) {
    w.is32 = false;
    w.value &= 0xffffffffu;
    w.mask &= 0xffffffffu;
  }
  return w;
}

static int add_disjoint(scmp_filter_ctx ctx, const struct sc_ruleset *rs, const struct sc_rule *r,
                        const struct sc_rule *const *prev, uint32_t nprev)
{
  /* Start from R's clauses (an unconditional rule: one empty clause). */
  size_t cap = TL_MAX_CLAUSES, n = 0;
  struct tl_clause *cur = calloc(cap, sizeof *cur), *next = calloc(cap, sizeof *next);
  int rc = 0;
  if (!cur || !next)
    abort();
  if (r->nclauses == 0) {
    n = 1;
  } else {
    for (uint32_t c = 0; c < r->nclauses && n < cap; c++) {
      struct tl_clause cl = { .n = 0 };
      int ok = 1;
      for (uint32_t k = 0; k < r->clauses[c].nconds && ok == 1; k++) {
        struct sc_cond w = widen(&r->clauses[c].conds[k]);
        ok = clause_add(&cl, &w);
      }
      if (ok < 0) {
        rc = -ENOTSUP;
        goto done;
      }
      if (ok)
        cur[n++] = cl;
    }
  }
  /* AND NOT each earlier clause, disjointly: NOT c0, or c0 AND NOT c1, or
   * c0 AND c1 AND NOT c2, ... Earlier rules with the same action could
   * overlap this one without changing the meaning, but libseccomp 2.5.4
   * unites overlapping chains on one argument wrongly (LOG rules
   * "a3 < 0x123456789" and "a3 <= 0x5413 && a5 != 0" lose a3 = 0xffffffff;
   * found by test_random_rule_sets). So every earlier clause is subtracted
   * and every piece is disjoint; what cannot be written so is -ENOTSUP. */
  for (uint32_t p = 0; p < nprev; p++)
    for (uint32_t c = 0; c < prev[p]->nclauses; c++) {
      const struct sc_clause *pc = &prev[p]->clauses[c];
      size_t m = 0;
      for (size_t i = 0; i < n; i++) {
        struct tl_clause pos = cur[i]; /* cur[i] AND c0 .. c(k-1) */
        bool pos_ok = true;
        for (uint32_t k = 0; k < pc->nconds && pos_ok; k++) {
          struct sc_cond w = widen(&pc->conds[k]), alt[64];
          int na = negate(&w, alt);
          if (na < 0) { /* c_k never holds: NOT c_k is all of pos */
            if (m == cap) {
              rc = -ENOTSUP;
              goto done;
            }
            next[m++] = pos;
            break;
          }
          for (int a = 0; a < na; a++) {
            struct tl_clause cl = pos;
            int ok = clause_add(&cl, &alt[a]);
            if (ok < 0) {
              rc = -ENOTSUP;
              goto done;
            }
            if (!ok)
              continue;
            if (m == cap) {
              rc = -ENOTSUP;
              goto done;
            }
            next[m++] = cl;
          }
          int ok = clause_add(&pos, &w);
          if (ok < 0) {
            rc = -ENOTSUP;
            goto done;
          }
          pos_ok = ok == 1;
        }
      }
      struct tl_clause *t = cur;
      cur = next;
      next = t;
      n = m;
    }
  if (sc_action_equal(r->action, rs->default_action))
    goto done; /* libseccomp refuses these */
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

/* Builds libseccomp's filter into fd (in a child, see below). */
static int lsc_build(const struct sc_ruleset *rs, int optimize, int fd)
{
  scmp_filter_ctx ctx = seccomp_init(sc_action_ret(rs->default_action));
  const struct sc_rule **prev = NULL;
  struct sc_rule *flat = NULL;
  uint32_t nflat = 0;
  int rc = 0;
  if (!ctx)
    return -ENOMEM;
  rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, sc_action_ret(rs->bad_arch_action));
  if (!rc && optimize)
    rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, (uint32_t)optimize);
  if (rc)
    goto done;
  /* One rule per clause, in order: clauses of one rule overlap as freely as
   * rules do, and must be made disjoint the same way. */
  for (uint32_t i = 0; i < rs->nrules; i++)
    nflat += rs->rules[i].nclauses ? rs->rules[i].nclauses : 1;
  flat = calloc(nflat + 1, sizeof *flat);
  prev = calloc(nflat + 1, sizeof *prev);
  if (!flat || !prev)
    abort();
  nflat = 0;
  for (uint32_t i = 0; i < rs->nrules; i++) {
    const struct sc_rule *r = &rs->rules[i];
    if (r->nclauses == 0) {
      flat[nflat++] = *r;
      continue;
    }
    for (uint32_t c = 0; c < r->nclauses; c++) {
      flat[nflat] = *r;
      flat[nflat].clauses = &r->clauses[c];
      flat[nflat].nclauses = r->clauses[c].nconds ? 1 : 0; /* an empty clause always holds */
      nflat++;
    }
  }
  for (uint32_t i = 0; i < nflat && !rc; i++) {
    const struct sc_rule *r = &flat[i];
    uint32_t nprev = 0;
    bool dead = false;
    for (uint32_t j = 0; j < i; j++) {
      if (flat[j].nr != r->nr)
        continue;
      if (flat[j].nclauses == 0)
        dead = true; /* first match: nothing after it decides */
      prev[nprev++] = &flat[j];
    }
    if (dead)
      continue;
    rc = add_disjoint(ctx, rs, r, prev, nprev);
    if (rc)
      tl_unsupported_nr = r->nr;
  }
  if (rc)
    goto done;
  rc = seccomp_export_bpf(ctx, fd);
done:
  free(prev);
  free(flat);
  seccomp_release(ctx);
  return rc;
}

/* libseccomp 2.5.4 can take minutes inside seccomp_rule_add on some sets of
 * overlapping rules (found by test_random_rule_sets), so the oracle runs in
 * a child with a deadline: -ETIMEDOUT means libseccomp gave no answer. */
static int lsc_direct(const struct sc_ruleset *rs, int optimize, struct sock_filter **insns,
                      uint32_t *len);
static int with_deadline(int (*build)(const void *, int), const void *arg,
                         struct sock_filter **insns, uint32_t *len);
static int lsc_via_export(const struct sc_ruleset *rs, int optimize, struct sock_filter **insns,
                          uint32_t *len);

int tl_libseccomp_filter(const struct sc_ruleset *rs, int optimize, struct sock_filter **insns,
                         uint32_t *len)
{
  tl_unsupported_nr = -1;
  int rc = lsc_direct(rs, optimize, insns, len);
  if (rc == -ENOTSUP) {
    int nr = tl_unsupported_nr;
    rc = lsc_via_export(rs, optimize, insns, len);
    if (rc)
      tl_unsupported_nr = nr;
  }
  return rc;
}

/* Second route: the order-free profile gen/oci/emit_oci.c writes, loaded the
 * way runc loads it. The exporter writes what this file cannot (intervals
 * with holes as aligned masked blocks); its output is itself checked
 * against the rules by the tests (check_export). */
static int lsc_via_export(const struct sc_ruleset *rs, int optimize, struct sock_filter **insns,
                          uint32_t *len)
{
  char tmp[] = "/tmp/cs_tl_export_XXXXXX.json";
  int fd = mkstemps(tmp, 5);
  if (fd < 0)
    return -errno;
  FILE *f = fdopen(fd, "w");
  FILE *quiet = fopen("/dev/null", "w");
  FILE *saved = diag_stream();
  diag_set_stream(quiet);
  int rc = oci_export_ruleset(f, rs);
  diag_set_stream(saved);
  fclose(quiet);
  if (fclose(f) != 0 && rc == 0)
    rc = -EIO;
  if (rc == 0)
    rc = tl_runc_filter_opt(tmp, optimize, insns, len);
  else
    rc = -ENOTSUP;
  unlink(tmp);
  return rc;
}

struct lsc_args {
  const struct sc_ruleset *rs;
  int optimize;
};

static int lsc_build_cb(const void *arg, int fd)
{
  const struct lsc_args *la = arg;
  return lsc_build(la->rs, la->optimize, fd);
}

static int lsc_direct(const struct sc_ruleset *rs, int optimize, struct sock_filter **insns,
                      uint32_t *len)
{
  struct lsc_args la = { rs, optimize };
  return with_deadline(lsc_build_cb, &la, insns, len);
}

/* libseccomp 2.5.4 can run for minutes inside seccomp_rule_add on some rule
 * sets (found by test_random_rule_sets), so every libseccomp build runs in a
 * child with a 3 s deadline: -ETIMEDOUT means libseccomp gave no answer. */
static int with_deadline(int (*build)(const void *, int), const void *arg,
                         struct sock_filter **insns, uint32_t *len)
{
  int fd = memfd_create("libseccomp-bpf", 0), rc = 0, status = 0, res[2] = { 0, -1 };
  int pfd[2];
  *insns = NULL;
  *len = 0;
  if (fd < 0 || pipe(pfd) != 0)
    abort();
  pid_t pid = fork();
  if (pid < 0)
    abort();
  if (pid == 0) {
    close(pfd[0]);
    res[0] = build(arg, fd);
    res[1] = tl_unsupported_nr;
    _exit(write(pfd[1], res, sizeof res) == sizeof res ? 0 : 1);
  }
  close(pfd[1]);
  for (int i = 0; i < 300 && waitpid(pid, &status, WNOHANG) == 0; i++) {
    struct timespec ts = { 0, 10 * 1000 * 1000 };
    nanosleep(&ts, NULL);
    if (i == 299) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      rc = -ETIMEDOUT;
    }
  }
  if (rc == 0 && read(pfd[0], res, sizeof res) != sizeof res)
    rc = -EIO;
  close(pfd[0]);
  if (rc == 0) {
    rc = res[0];
    tl_unsupported_nr = res[1];
  }
  if (rc == 0) {
    off_t size = lseek(fd, 0, SEEK_END);
    if (size <= 0 || size % sizeof(struct sock_filter)) {
      rc = -EIO;
    } else {
      *insns = xrealloc(NULL, (size_t)size);
      if (pread(fd, *insns, (size_t)size, 0) != size) {
        free(*insns);
        *insns = NULL;
        rc = -EIO;
      } else {
        *len = (uint32_t)(size / sizeof(struct sock_filter));
      }
    }
  }
  close(fd);
  return rc;
}

static void push(struct tl_inputs *in, const struct seccomp_data *sd)
{
  if (in->n == in->cap) {
    in->cap = in->cap ? in->cap * 2 : 1024;
    in->v = xrealloc(in->v, in->cap * sizeof *in->v);
  }
  in->v[in->n++] = *sd;
}

static uint64_t satisfying(const struct sc_cond *c)
{
  switch (c->op) {
  case SC_CMP_EQ:
  case SC_CMP_LE:
  case SC_CMP_GE:
  case SC_CMP_MASKED_EQ:
    return c->value;
  case SC_CMP_NE:
  case SC_CMP_GT:
    return c->value + 1;
  case SC_CMP_LT:
    return c->value ? c->value - 1 : 0;
  }
  return 0;
}

static void boundaries(const struct sc_cond *c, uint64_t *b, size_t *nb)
{
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

static void inputs_for_nr(const struct sc_ruleset *rs, uint32_t nr, uint32_t arch,
                          struct tl_inputs *in)
{
  struct seccomp_data sd = { .nr = (int)nr, .arch = arch };
  push(in, &sd);
  /* "Typical" arguments: a small fd, a user pointer, a length. */
  struct seccomp_data typ = sd;
  typ.args[0] = 3;
  typ.args[1] = 0x7ffc12345000ull;
  typ.args[2] = 0x100;
  push(in, &typ);
  for (uint32_t i = 0; i < rs->nrules; i++) {
    const struct sc_rule *r = &rs->rules[i];
    if ((uint32_t)r->nr != nr)
      continue;
    for (uint32_t c = 0; c < r->nclauses; c++) {
      const struct sc_clause *cl = &r->clauses[c];
      struct seccomp_data sat = sd;
      for (uint32_t k = 0; k < cl->nconds; k++)
        sat.args[cl->conds[k].arg] = satisfying(&cl->conds[k]);
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

int tl_make_inputs(const struct sc_ruleset *rs, struct tl_inputs *in)
{
  static const uint32_t extra[] = { 0x3fffffffu, 0x40000000u, 0x40000001u, 0x40000027u, 0x4000003bu,
                                    0x40000200u, 0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu,
                                    1000,        4096,        65536 };
  memset(in, 0, sizeof *in);
  for (uint32_t nr = 0; nr <= TL_MAX_NR; nr++)
    inputs_for_nr(rs, nr, AUDIT_ARCH_X86_64, in);
  for (size_t i = 0; i < sizeof extra / sizeof *extra; i++)
    inputs_for_nr(rs, extra[i], AUDIT_ARCH_X86_64, in);
  for (uint32_t i = 0; i < rs->nrules; i++)
    if ((uint32_t)rs->rules[i].nr >= 0x40000000u)
      inputs_for_nr(rs, (uint32_t)rs->rules[i].nr, AUDIT_ARCH_X86_64, in);
  /* Foreign ABIs: i386 (int 0x80 from a 64-bit process) and another arch. */
  static const uint32_t i386_nrs[] = { 0, 1, 4, 20, 54, 252 };
  for (size_t i = 0; i < sizeof i386_nrs / sizeof *i386_nrs; i++)
    inputs_for_nr(rs, i386_nrs[i], AUDIT_ARCH_I386, in);
  inputs_for_nr(rs, 0, AUDIT_ARCH_AARCH64, in);
  inputs_for_nr(rs, 0, 0, in);
  return 0;
}

void tl_inputs_free(struct tl_inputs *in)
{
  free(in->v);
  memset(in, 0, sizeof *in);
}

bool tl_oracle_applies(const struct sc_ruleset *rs, const struct seccomp_data *sd)
{
  if (sd->arch != rs->audit_arch)
    return true;
  if (rs->allow_x32 && (uint32_t)sd->nr >= 0x40000000u && (uint32_t)sd->nr != 0xffffffffu)
    return false;
  for (uint32_t i = 0; i < rs->nrules; i++) {
    const struct sc_rule *r = &rs->rules[i];
    if ((uint32_t)r->nr != (uint32_t)sd->nr)
      continue;
    for (uint32_t c = 0; c < r->nclauses; c++)
      for (uint32_t k = 0; k < r->clauses[c].nconds; k++)
        if (r->clauses[c].conds[k].is32 && (sd->args[r->clauses[c].conds[k].arg] >> 32) != 0)
          return false;
  }
  return true;
}

size_t tl_compare(const struct sc_ruleset *rs, const struct sock_filter *mine, uint32_t mine_len,
                  const struct sock_filter *oracle, uint32_t oracle_len, const struct tl_inputs *in,
                  FILE *out)
{
  size_t bad = 0;
  for (size_t i = 0; i < in->n; i++) {
    const struct seccomp_data *sd = &in->v[i];
    uint32_t want = sc_ruleset_eval(rs, sd);
    struct bpf_run_result a = { 0 }, b = { 0 };
    int ra = bpf_run(mine, mine_len, sd, &a);
    bool disagree = ra != 0 || a.ret != want;
    bool oracle_used = oracle && tl_oracle_applies(rs, sd);
    if (oracle_used) {
      int rb = bpf_run(oracle, oracle_len, sd, &b);
      disagree = disagree || rb != 0 || b.ret != want;
    }
    if (disagree) {
      if (bad < 10 && out)
        fprintf(
            out,
            "%s: arch %#x nr %d args {%#llx, %#llx, %#llx, %#llx, %#llx, %#llx}: rules say %#x, "
            "generated filter %#x%s",
            rs->name ? rs->name : "rule set", sd->arch, sd->nr, (unsigned long long)sd->args[0],
            (unsigned long long)sd->args[1], (unsigned long long)sd->args[2],
            (unsigned long long)sd->args[3], (unsigned long long)sd->args[4],
            (unsigned long long)sd->args[5], want, a.ret, oracle_used ? "" : "\n");
      if (bad < 10 && out && oracle_used)
        fprintf(out, ", libseccomp %#x\n", b.ret);
      bad++;
    }
  }
  return bad;
}

bool tl_plain_allow(const struct sc_ruleset *rs, uint32_t nr)
{
  const struct sc_rule *list[256];
  uint32_t n = 0;
  struct sc_action fallback = rs->default_action;
  for (uint32_t i = 0; i < rs->nrules && n < 256; i++) {
    const struct sc_rule *r = &rs->rules[i];
    if ((uint32_t)r->nr != nr)
      continue;
    bool uncond = r->nclauses == 0;
    for (uint32_t c = 0; c < r->nclauses; c++)
      uncond = uncond || r->clauses[c].nconds == 0;
    if (uncond) {
      fallback = r->action;
      break;
    }
    list[n++] = r;
  }
  while (n > 0 && sc_action_equal(list[n - 1]->action, fallback))
    n--;
  return n == 0 && fallback.kind == SC_ACT_ALLOW;
}

/* ---- runc's way (libcontainer/seccomp), re-done here as the oracle ---- */

#include <jansson.h>

#include "oci_import.h"

static uint32_t runc_action(json_t *e, const char *key, const char *errkey)
{
  const char *a = json_string_value(json_object_get(e, key));
  json_t *er = json_object_get(e, errkey);
  uint32_t data = json_is_integer(er) ? (uint32_t)json_integer_value(er) : 1;
  if (!a)
    return UINT32_MAX;
  if (!strcmp(a, "SCMP_ACT_ALLOW"))
    return SCMP_ACT_ALLOW;
  if (!strcmp(a, "SCMP_ACT_ERRNO"))
    return SCMP_ACT_ERRNO(data);
  if (!strcmp(a, "SCMP_ACT_KILL") || !strcmp(a, "SCMP_ACT_KILL_THREAD"))
    return SCMP_ACT_KILL_THREAD;
  if (!strcmp(a, "SCMP_ACT_KILL_PROCESS"))
    return SCMP_ACT_KILL_PROCESS;
  if (!strcmp(a, "SCMP_ACT_TRAP"))
    return SCMP_ACT_TRAP;
  if (!strcmp(a, "SCMP_ACT_LOG"))
    return SCMP_ACT_LOG;
  if (!strcmp(a, "SCMP_ACT_TRACE"))
    return SCMP_ACT_TRACE(data);
  if (!strcmp(a, "SCMP_ACT_NOTIFY"))
    return SCMP_ACT_NOTIFY;
  return UINT32_MAX;
}

static bool runc_has(json_t *arr, const char *s1, const char *s2)
{
  size_t i;
  json_t *v;
  json_array_foreach(arr, i, v)
  {
    const char *s = json_string_value(v);
    if (s && (!strcmp(s, s1) || !strcmp(s, s2)))
      return true;
  }
  return false;
}

static bool runc_applies(json_t *e)
{
  json_t *inc = json_object_get(e, "includes"), *exc = json_object_get(e, "excludes");
  if (json_array_size(json_object_get(inc, "caps")) > 0)
    return false;
  json_t *ia = json_object_get(inc, "arches");
  if (json_array_size(ia) > 0 && !runc_has(ia, "amd64", "x86_64"))
    return false;
  const char *mk = json_string_value(json_object_get(inc, "minKernel"));
  if (mk) {
    int maj = 0, min = 0;
    sscanf(mk, "%d.%d", &maj, &min);
    if (maj > OCI_ASSUMED_KERNEL_MAJOR ||
        (maj == OCI_ASSUMED_KERNEL_MAJOR && min > OCI_ASSUMED_KERNEL_MINOR))
      return false;
  }
  if (runc_has(json_object_get(exc, "arches"), "amd64", "x86_64"))
    return false;
  return true;
}

static enum scmp_compare runc_op(const char *op)
{
  static const struct {
    const char *name;
    enum scmp_compare op;
  } ops[] = { { "SCMP_CMP_EQ", SCMP_CMP_EQ },
              { "SCMP_CMP_NE", SCMP_CMP_NE },
              { "SCMP_CMP_LT", SCMP_CMP_LT },
              { "SCMP_CMP_LE", SCMP_CMP_LE },
              { "SCMP_CMP_GT", SCMP_CMP_GT },
              { "SCMP_CMP_GE", SCMP_CMP_GE },
              { "SCMP_CMP_MASKED_EQ", SCMP_CMP_MASKED_EQ } };
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    if (op && !strcmp(op, ops[i].name))
      return ops[i].op;
  return _SCMP_CMP_MIN;
}

static int runc_build(const char *path, int optimize, int fd)
{
  json_error_t jerr;
  json_t *root = json_load_file(path, 0, &jerr);
  scmp_filter_ctx ctx = NULL;
  int rc = 0;
  if (!root)
    return -EINVAL;
  uint32_t def = runc_action(root, "defaultAction", "defaultErrnoRet");
  ctx = seccomp_init(def);
  if (!ctx) {
    rc = -EINVAL;
    goto done;
  }
  /* Our import refuses foreign ABIs with kill-process (runc would add
   * the sub-architectures instead); the oracle is told the same. */
  rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
  if (!rc && optimize)
    rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, (uint32_t)optimize);
  size_t i, j;
  json_t *e, *nm;
  json_array_foreach(json_object_get(root, "syscalls"), i, e)
  {
    if (rc)
      break;
    if (!runc_applies(e))
      continue;
    uint32_t act = runc_action(e, "action", "errnoRet");
    if (act == def)
      continue;
    json_array_foreach(json_object_get(e, "names"), j, nm)
    {
      int nr = seccomp_syscall_resolve_name(json_string_value(nm));
      if (nr == __NR_SCMP_ERROR || nr < 0)
        continue;
      json_t *args = json_object_get(e, "args");
      size_t n = json_array_size(args), k;
      struct scmp_arg_cmp cmp[16];
      unsigned count[6] = { 0 };
      bool multi = false;
      json_t *a;
      if (n > 16) {
        rc = -E2BIG;
        break;
      }
      json_array_foreach(args, k, a)
      {
        cmp[k].arg = (unsigned)json_integer_value(json_object_get(a, "index"));
        cmp[k].op = runc_op(json_string_value(json_object_get(a, "op")));
        cmp[k].datum_a = (uint64_t)json_integer_value(json_object_get(a, "value"));
        cmp[k].datum_b = (uint64_t)json_integer_value(json_object_get(a, "valueTwo"));
        if (cmp[k].arg < 6 && ++count[cmp[k].arg] > 1)
          multi = true;
      }
      if (n == 0)
        rc = seccomp_rule_add(ctx, act, nr, 0);
      else if (multi)
        for (k = 0; k < n && !rc; k++)
          rc = seccomp_rule_add_array(ctx, act, nr, 1, &cmp[k]);
      else
        rc = seccomp_rule_add_array(ctx, act, nr, (unsigned)n, cmp);
      if (rc)
        break;
    }
  }
  if (rc)
    goto done;
  if (seccomp_export_bpf(ctx, fd) != 0)
    rc = -EIO;
done:
  if (ctx)
    seccomp_release(ctx);
  json_decref(root);
  return rc;
}

struct runc_args {
  const char *path;
  int optimize;
};

static int runc_build_cb(const void *arg, int fd)
{
  const struct runc_args *ra = arg;
  return runc_build(ra->path, ra->optimize, fd);
}

int tl_runc_filter_opt(const char *path, int optimize, struct sock_filter **insns, uint32_t *len)
{
  struct runc_args ra = { path, optimize };
  return with_deadline(runc_build_cb, &ra, insns, len);
}

int tl_runc_filter(const char *path, struct sock_filter **insns, uint32_t *len)
{
  return tl_runc_filter_opt(path, 0, insns, len);
}

/* ---- OCI semantics, evaluated directly (no libseccomp) ---- */

static bool oci_cond(json_t *a, const struct seccomp_data *sd)
{
  unsigned idx = (unsigned)json_integer_value(json_object_get(a, "index"));
  uint64_t v = (uint64_t)json_integer_value(json_object_get(a, "value"));
  uint64_t two = (uint64_t)json_integer_value(json_object_get(a, "valueTwo"));
  const char *op = json_string_value(json_object_get(a, "op"));
  uint64_t x = idx < 6 ? sd->args[idx] : 0;
  if (!op)
    return false;
  if (!strcmp(op, "SCMP_CMP_EQ"))
    return x == v;
  if (!strcmp(op, "SCMP_CMP_NE"))
    return x != v;
  if (!strcmp(op, "SCMP_CMP_LT"))
    return x < v;
  if (!strcmp(op, "SCMP_CMP_LE"))
    return x <= v;
  if (!strcmp(op, "SCMP_CMP_GT"))
    return x > v;
  if (!strcmp(op, "SCMP_CMP_GE"))
    return x >= v;
  if (!strcmp(op, "SCMP_CMP_MASKED_EQ"))
    return (x & v) == (two & v);
  return false;
}

/* runc: conditions on distinct indexes are ANDed; if an index repeats, each
 * condition is a rule of its own (OR). */
static bool oci_entry_matches(json_t *e, const struct seccomp_data *sd, bool *unconditional)
{
  json_t *args = json_object_get(e, "args"), *a;
  size_t n = json_array_size(args), i;
  unsigned seen = 0;
  bool repeated = false, all = true, any = false;
  *unconditional = n == 0;
  if (n == 0)
    return true;
  json_array_foreach(args, i, a)
  {
    unsigned idx = (unsigned)json_integer_value(json_object_get(a, "index"));
    if (idx < 6 && (seen & (1u << idx)))
      repeated = true;
    if (idx < 6)
      seen |= 1u << idx;
    bool h = oci_cond(a, sd);
    all = all && h;
    any = any || h;
  }
  return repeated ? any : all;
}

struct tl_oci {
  json_t *root;
  uint32_t def;
  size_t n;
  struct {
    int nr;
    json_t *e;
  } * ents;
};

struct tl_oci *tl_oci_load(const char *path)
{
  json_error_t jerr;
  struct tl_oci *o = calloc(1, sizeof *o);
  json_t *e, *nm;
  size_t i, j;
  if (!o)
    abort();
  o->root = json_load_file(path, 0, &jerr);
  if (!o->root) {
    free(o);
    return NULL;
  }
  o->def = runc_action(o->root, "defaultAction", "defaultErrnoRet");
  json_array_foreach(json_object_get(o->root, "syscalls"), i, e)
  {
    json_array_foreach(json_object_get(e, "names"), j, nm)
    {
      o->ents = xrealloc(o->ents, (o->n + 1) * sizeof *o->ents);
      o->ents[o->n].nr = seccomp_syscall_resolve_name(json_string_value(nm));
      o->ents[o->n].e = e;
      o->n++;
    }
  }
  return o;
}

void tl_oci_free(struct tl_oci *o)
{
  if (!o)
    return;
  json_decref(o->root);
  free(o->ents);
  free(o);
}

uint32_t tl_oci_eval(const struct tl_oci *o, const struct seccomp_data *sd)
{
  uint32_t result = TL_OCI_AMBIGUOUS;
  bool decided = false;
  if (sd->arch != AUDIT_ARCH_X86_64 ||
      ((uint32_t)sd->nr >= 0x40000000u && (uint32_t)sd->nr != 0xffffffffu))
    return SCMP_ACT_KILL_PROCESS; /* tl_runc_filter's bad-arch action */
  /* An unconditional entry wins outright (libseccomp's rule); otherwise
   * the matching entries must agree. */
  for (size_t i = 0; i < o->n; i++) {
    if (o->ents[i].nr != sd->nr)
      continue;
    bool uncond;
    uint32_t act = runc_action(o->ents[i].e, "action", "errnoRet");
    bool m = oci_entry_matches(o->ents[i].e, sd, &uncond);
    if (uncond)
      return act;
    if (!m)
      continue;
    if (decided && result != act)
      result = TL_OCI_AMBIGUOUS;
    else if (!decided)
      result = act;
    decided = true;
  }
  return decided ? result : o->def;
}
