/* pol_cond: argument conditions to disjunctive normal form.
 *
 * The rule set (gen/sc_rules.h) holds a condition as an OR of ANDs of
 * single comparisons, which maps directly onto BPF jump chains. A .pol
 * condition may use &&, ||, ! and parentheses in any shape; it is first
 * pushed into negation normal form (! moved down onto comparisons, which
 * all have exact negations) and then multiplied out. Multiplying out can
 * grow exponentially, so the result is bounded (POL_MAX_DNF_CLAUSES
 * clauses of at most POL_MAX_DNF_CONDS comparisons) and a bigger one is
 * an error, not a huge filter.
 *
 * The only comparison without a single-comparison negation is the masked
 * one: (a & m) != v. It holds when some bit of m differs from v, so it is
 * lowered to one masked equality per bit of m: for a bit b set in v,
 * (a & b) == 0; for a bit clear in v, (a & b) == b. That is exact. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pol_internal.h"
#include "pol_sysargs.h"

struct pol_dnf {
  struct sc_clause *c;
  uint32_t n; /* 0 clauses: false; a clause with 0 comparisons: true */
};

void pol_clauses_free(struct sc_clause *clauses, uint32_t n)
{
  if (!clauses)
    return;
  for (uint32_t i = 0; i < n; i++)
    free(clauses[i].conds);
  free(clauses);
}

static void pol_dnf_free(struct pol_dnf *d)
{
  pol_clauses_free(d->c, d->n);
  d->c = NULL;
  d->n = 0;
}

struct pol_cond_ctx {
  const struct pol_policy *pol;
  const struct pol_expr *root;
  const char *syscall;
};

static int pol_too_big(const struct pol_cond_ctx *cx, const char *what)
{
  diag_error(
      &cx->root->loc,
      "condition is too complex: more than %d %s after expansion to an OR of ANDs (limit %d)",
      strcmp(what, "alternatives") == 0 ? POL_MAX_DNF_CLAUSES : POL_MAX_DNF_CONDS, what,
      strcmp(what, "alternatives") == 0 ? POL_MAX_DNF_CLAUSES : POL_MAX_DNF_CONDS);
  return -EINVAL;
}

/* A single clause with n comparisons copied from conds. */
static int pol_dnf_single(struct pol_dnf *d, const struct sc_cond *conds, uint32_t n)
{
  d->c = calloc(1, sizeof *d->c);
  if (!d->c)
    return -ENOMEM;
  d->n = 1;
  if (n) {
    d->c[0].conds = malloc(n * sizeof *conds);
    if (!d->c[0].conds)
      return -ENOMEM;
    memcpy(d->c[0].conds, conds, n * sizeof *conds);
  }
  d->c[0].nconds = n;
  return 0;
}

static bool pol_dnf_true(const struct pol_dnf *d)
{
  for (uint32_t i = 0; i < d->n; i++)
    if (d->c[i].nconds == 0)
      return true;
  return false;
}

/* a := a || b; frees b. */
static int pol_dnf_or(const struct pol_cond_ctx *cx, struct pol_dnf *a, struct pol_dnf *b)
{
  if (pol_dnf_true(a) || pol_dnf_true(b)) {
    pol_dnf_free(a);
    pol_dnf_free(b);
    return pol_dnf_single(a, NULL, 0);
  }
  if (a->n + b->n > POL_MAX_DNF_CLAUSES) {
    pol_dnf_free(b);
    return pol_too_big(cx, "alternatives");
  }
  if (b->n) {
    struct sc_clause *grown = realloc(a->c, (a->n + b->n) * sizeof *grown);
    if (!grown) {
      pol_dnf_free(b);
      return -ENOMEM;
    }
    a->c = grown;
    memcpy(a->c + a->n, b->c, b->n * sizeof *b->c);
    a->n += b->n;
    free(b->c);
  }
  b->c = NULL;
  b->n = 0;
  return 0;
}

/* a := a && b; frees b. */
static int pol_dnf_and(const struct pol_cond_ctx *cx, struct pol_dnf *a, struct pol_dnf *b)
{
  struct pol_dnf r = { 0 };
  int rc = 0;
  if ((uint64_t)a->n * b->n > POL_MAX_DNF_CLAUSES) {
    rc = pol_too_big(cx, "alternatives");
    goto done;
  }
  if (a->n && b->n) {
    r.c = calloc((size_t)a->n * b->n, sizeof *r.c);
    if (!r.c) {
      rc = -ENOMEM;
      goto done;
    }
  }
  for (uint32_t i = 0; i < a->n; i++) {
    for (uint32_t j = 0; j < b->n; j++) {
      const struct sc_clause *x = &a->c[i], *y = &b->c[j];
      uint32_t n = x->nconds + y->nconds;
      if (n > POL_MAX_DNF_CONDS) {
        rc = pol_too_big(cx, "comparisons in one alternative");
        goto done;
      }
      struct sc_clause *z = &r.c[r.n++];
      if (n) {
        z->conds = malloc(n * sizeof *z->conds);
        if (!z->conds) {
          rc = -ENOMEM;
          goto done;
        }
        if (x->nconds)
          memcpy(z->conds, x->conds, x->nconds * sizeof *z->conds);
        if (y->nconds)
          memcpy(z->conds + x->nconds, y->conds, y->nconds * sizeof *z->conds);
      }
      z->nconds = n;
    }
  }
done:
  pol_dnf_free(a);
  pol_dnf_free(b);
  if (rc) {
    pol_dnf_free(&r);
    return rc;
  }
  if (pol_dnf_true(&r)) {
    pol_dnf_free(&r);
    return pol_dnf_single(a, NULL, 0);
  }
  *a = r;
  return 0;
}

/* A value for a 32-bit argument: the kernel reads only the low word, so
 * the value must fit it; a negative int (sign-extended) is taken modulo
 * 2^32 the way the kernel truncates it. */
static int pol_fit(const struct pol_cond_ctx *cx, const struct pol_expr *e,
                   const struct pol_value *v, bool is32, uint64_t *x)
{
  if (!is32)
    return 0;
  if (*x <= UINT32_MAX)
    return 0;
  if (*x >= 0xffffffff80000000ull) {
    *x &= UINT32_MAX;
    return 0;
  }
  diag_error(&v->loc, "value 0x%llx does not fit the 32-bit argument '%s' of %s",
             (unsigned long long)*x, e->arg.text, cx->syscall);
  return -EINVAL;
}

static enum pol_cmp_op pol_negate_op(enum pol_cmp_op op)
{
  switch (op) {
  case POL_OP_EQ:
    return POL_OP_NE;
  case POL_OP_NE:
    return POL_OP_EQ;
  case POL_OP_LT:
    return POL_OP_GE;
  case POL_OP_LE:
    return POL_OP_GT;
  case POL_OP_GT:
    return POL_OP_LE;
  case POL_OP_GE:
    return POL_OP_LT;
  }
  return POL_OP_EQ;
}

static int pol_dnf_cmp(const struct pol_cond_ctx *cx, const struct pol_expr *e, bool neg,
                       struct pol_dnf *out)
{
  unsigned idx;
  bool is32;
  if (pol_sysarg_lookup(cx->syscall, e->arg.text, &idx, &is32) != 0) {
    const char *names = pol_sysarg_names(cx->syscall);
    if (names[0])
      diag_error(&e->arg.loc,
                 "system call '%s' has no argument '%s' (its arguments: %s, or arg0..arg5)",
                 cx->syscall, e->arg.text, names);
    else
      diag_error(&e->arg.loc, "unknown argument '%s' of '%s' (name it arg0..arg5)", e->arg.text,
                 cx->syscall);
    return -EINVAL;
  }
  uint64_t value, mask = 0;
  int rc = pol_value_eval(cx->pol, e->value, cx->pol->nconsts, &value);
  if (e->mask && pol_value_eval(cx->pol, e->mask, cx->pol->nconsts, &mask) != 0)
    rc = -EINVAL;
  if (rc)
    return rc;
  if (pol_fit(cx, e, e->value, is32, &value) != 0)
    return -EINVAL;
  if (e->mask && pol_fit(cx, e, e->mask, is32, &mask) != 0)
    return -EINVAL;

  enum pol_cmp_op op = neg ? pol_negate_op(e->op) : e->op;
  struct sc_cond c = { .arg = (uint8_t)idx, .value = value, .mask = 0, .is32 = is32 };
  if (!e->mask) {
    static const enum sc_cmp map[] = {
      /* enum pol_cmp_op order (tag: pol_cmp_op) */
      [POL_OP_EQ] = SC_CMP_EQ, [POL_OP_NE] = SC_CMP_NE, [POL_OP_LT] = SC_CMP_LT,
      [POL_OP_LE] = SC_CMP_LE, [POL_OP_GT] = SC_CMP_GT, [POL_OP_GE] = SC_CMP_GE,
    };
    _Static_assert(sizeof map / sizeof map[0] == POL_OP_GE + 1, "pol_cmp_op");
    c.op = map[op];
    return pol_dnf_single(out, &c, 1);
  }
  if (e->op != POL_OP_EQ && e->op != POL_OP_NE) {
    diag_error(&e->loc, "a masked argument can only be compared with == or !=");
    return -EINVAL;
  }
  if (value & ~mask) {
    /* (a & m) == v can never hold then; almost certainly a typo. */
    diag_error(&e->value->loc,
               "value 0x%llx has bits outside the mask 0x%llx, so the comparison never holds",
               (unsigned long long)value, (unsigned long long)mask);
    return -EINVAL;
  }
  c.op = SC_CMP_MASKED_EQ;
  c.mask = mask;
  /* (a & 0) == 0 always holds: no comparison is needed. */
  if (op == POL_OP_EQ)
    return pol_dnf_single(out, &c, mask ? 1 : 0);

  /* (a & m) != v: some bit of m differs from v. */
  out->c = NULL;
  out->n = 0;
  for (int bit = 0; bit < 64; bit++) {
    uint64_t b = 1ull << bit;
    if (!(mask & b))
      continue;
    if (out->n >= POL_MAX_DNF_CLAUSES) {
      pol_dnf_free(out);
      return pol_too_big(cx, "alternatives");
    }
    struct sc_clause *grown = realloc(out->c, (out->n + 1) * sizeof *grown);
    if (!grown) {
      pol_dnf_free(out);
      return -ENOMEM;
    }
    out->c = grown;
    struct sc_clause *z = &out->c[out->n];
    z->conds = malloc(sizeof *z->conds);
    if (!z->conds) {
      pol_dnf_free(out);
      return -ENOMEM;
    }
    z->nconds = 1;
    out->n++;
    z->conds[0] = c;
    z->conds[0].mask = b;
    z->conds[0].value = (value & b) ? 0 : b;
  }
  return 0;
}

static int pol_dnf_expr(const struct pol_cond_ctx *cx, const struct pol_expr *e, bool neg,
                        struct pol_dnf *out)
{
  struct pol_dnf l = { 0 }, r = { 0 };
  int rc;
  out->c = NULL;
  out->n = 0;
  switch (e->kind) {
  case POL_EXPR_CMP:
    return pol_dnf_cmp(cx, e, neg, out);
  case POL_EXPR_NOT:
    return pol_dnf_expr(cx, e->lhs, !neg, out);
  case POL_EXPR_AND:
  case POL_EXPR_OR:
    rc = pol_dnf_expr(cx, e->lhs, neg, &l);
    if (rc)
      return rc;
    rc = pol_dnf_expr(cx, e->rhs, neg, &r);
    if (rc) {
      pol_dnf_free(&l);
      return rc;
    }
    /* De Morgan: under a negation && becomes || and vice versa. */
    if ((e->kind == POL_EXPR_AND) != neg)
      rc = pol_dnf_and(cx, &l, &r);
    else
      rc = pol_dnf_or(cx, &l, &r);
    if (rc) {
      pol_dnf_free(&l);
      return rc;
    }
    *out = l;
    return 0;
  }
  return -EINVAL;
}

int pol_cond_lower(const struct pol_policy *pol, const struct pol_expr *cond, const char *syscall,
                   struct sc_clause **clauses, uint32_t *nclauses, bool *never)
{
  struct pol_cond_ctx cx = { pol, cond, syscall };
  struct pol_dnf d = { 0 };
  *clauses = NULL;
  *nclauses = 0;
  *never = false;
  int rc = pol_dnf_expr(&cx, cond, false, &d);
  if (rc)
    return rc;
  if (d.n == 0) {
    *never = true;
    return 0;
  }
  if (pol_dnf_true(&d)) {
    pol_dnf_free(&d);
    return 0;
  }
  *clauses = d.c;
  *nclauses = d.n;
  return 0;
}
