/* pnet_eval: the value of a .pnet expression, a linear form
 * sum(coef * place) + k (docs/pnet-language.md, "Expressions"): names,
 * constants, family variables, sums over families, arithmetic with
 * overflow checks, and constant expressions where places are an error. */
#include "pnet_lower_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lin_free(struct pnet_lin *l)
{
  free(l->t);
  l->t = NULL;
  l->n = l->cap = 0;
  l->k = 0;
}

static int lin_add_term(struct pnet_lower *lw, struct pnet_lin *l, uint32_t place, int64_t coef,
                        const struct diag_loc *loc, const struct diag_loc *oploc)
{
  for (uint32_t i = 0; i < l->n; i++)
    if (l->t[i].place == place) {
      if (__builtin_add_overflow(l->t[i].coef, coef, &l->t[i].coef)) {
        lw_error(lw, oploc, "integer overflow in expression");
        return -1;
      }
      return 0;
    }
  if (lw_grow((void **)&l->t, &l->cap, l->n + 1, sizeof *l->t) != 0) {
    lw_oom(lw, loc);
    return -1;
  }
  l->t[l->n++] = (struct pnet_term){ place, coef, *loc };
  return 0;
}

/* dst += factor * src */
int lin_add(struct pnet_lower *lw, struct pnet_lin *dst, const struct pnet_lin *src, int64_t factor,
            const struct diag_loc *oploc)
{
  int64_t k;
  if (__builtin_mul_overflow(src->k, factor, &k) || __builtin_add_overflow(dst->k, k, &dst->k)) {
    lw_error(lw, oploc, "integer overflow in expression");
    return -1;
  }
  for (uint32_t i = 0; i < src->n; i++) {
    int64_t c;
    if (__builtin_mul_overflow(src->t[i].coef, factor, &c)) {
      lw_error(lw, oploc, "integer overflow in expression");
      return -1;
    }
    if (lin_add_term(lw, dst, src->t[i].place, c, &src->t[i].loc, oploc) != 0)
      return -1;
  }
  return 0;
}

struct lw_sum {
  const struct pnet_expr *e;
  struct pnet_lin *out;
};

static bool lw_sum_body(struct pnet_lower *lw, void *arg)
{
  struct lw_sum *sum = arg;
  struct pnet_lin term = { 0 };
  bool ok =
      lw_eval(lw, sum->e->lhs, &term) == 0 && lin_add(lw, sum->out, &term, 1, &sum->e->loc) == 0;
  lin_free(&term);
  return ok;
}

static int lw_eval_name(struct pnet_lower *lw, const struct pnet_expr *e, struct pnet_lin *out)
{
  char name[PNET_MAX_NAME_LEN + 1];
  if (!strchr(e->name, '$')) {
    const struct pnet_binding *b = lw_binding(lw, e->name, strlen(e->name));
    if (b && b->is_int) {
      out->k = b->ival;
      return 0;
    }
    if (b) {
      lw_error(lw, &e->loc, "'%s' stands for a name, not a number; use ${%s} inside a name",
               e->name, e->name);
      return -1;
    }
  }
  if (lw_expand(lw, e->name, &e->loc, name) != 0)
    return -1;
  const struct pnet_sym *s = pnet_sym_find(&lw->syms, name);
  if (!s) {
    lw_unknown(lw, name, &e->loc);
    return -1;
  }
  switch (s->kind) {
  case PNET_SYM_CONST:
    out->k = s->value;
    return 0;
  case PNET_SYM_PLACE:
    return lin_add_term(lw, out, (uint32_t)s->value, 1, &e->loc, &e->loc);
  case PNET_SYM_TRANSITION:
  case PNET_SYM_FAMILY:
    break;
  }
  lw_error(lw, &e->loc, "'%s' is a %s; only places and constants have a value", name,
           lw_kind_text(s->kind));
  if (!lw->stop)
    diag_note(&s->loc, "'%s' is defined here", name);
  return -1;
}

int lw_eval(struct pnet_lower *lw, const struct pnet_expr *e, struct pnet_lin *out)
{
  struct pnet_lin a = { 0 }, b = { 0 };
  int rc = -1;

  switch (e->kind) {
  case PNET_EXPR_INT:
    out->k = e->value;
    return 0;
  case PNET_EXPR_NAME:
    return lw_eval_name(lw, e, out);
  case PNET_EXPR_SUM: {
    unsigned before = lw->errors;
    struct lw_sum sum = { e, out };
    lw_loop(lw, e->loop, "a sum", lw_sum_body, &sum);
    return lw->errors == before && !lw->stop ? 0 : -1;
  }
  case PNET_EXPR_NEG:
    if (lw_eval(lw, e->lhs, &a) != 0)
      goto cleanup;
    rc = lin_add(lw, out, &a, -1, &e->loc);
    goto cleanup;
  default:
    break;
  }
  if (lw_eval(lw, e->lhs, &a) != 0 || lw_eval(lw, e->rhs, &b) != 0)
    goto cleanup;
  switch (e->kind) {
  case PNET_EXPR_ADD:
  case PNET_EXPR_SUB:
    if (lin_add(lw, out, &a, 1, &e->loc) != 0)
      goto cleanup;
    rc = lin_add(lw, out, &b, e->kind == PNET_EXPR_ADD ? 1 : -1, &e->loc);
    break;
  case PNET_EXPR_MUL:
    /* Markings enter models linearly; a product of two places is not a
     * weight, an invariant or a capacity. */
    if (a.n && b.n) {
      lw_error(lw, &e->loc,
               "cannot multiply two place counts: expressions must be linear in the places");
      goto cleanup;
    }
    rc = a.n ? lin_add(lw, out, &a, b.k, &e->loc) : lin_add(lw, out, &b, a.k, &e->loc);
    break;
  case PNET_EXPR_DIV:
  case PNET_EXPR_MOD: {
    const char *op = e->kind == PNET_EXPR_DIV ? "/" : "%";
    if (a.n || b.n) {
      lw_error(lw, &e->loc, "'%s' needs constant operands, but '%s' is a place", op,
               lw->net->places[(a.n ? a.t : b.t)[0].place].name);
      goto cleanup;
    }
    if (b.k == 0) {
      lw_error(lw, &e->loc, "division by zero");
      goto cleanup;
    }
    if (a.k == INT64_MIN && b.k == -1) {
      lw_error(lw, &e->loc, "integer overflow in expression");
      goto cleanup;
    }
    struct pnet_lin q = { .k = e->kind == PNET_EXPR_DIV ? a.k / b.k : a.k % b.k };
    rc = lin_add(lw, out, &q, 1, &e->loc);
    break;
  }
  default:
    break;
  }
cleanup:
  lin_free(&a);
  lin_free(&b);
  return rc;
}

/* A constant expression: places are an error. */
int lw_const(struct pnet_lower *lw, const struct pnet_expr *e, const char *what, int64_t *value)
{
  struct pnet_lin l = { 0 };
  int rc = -1;
  if (lw_eval(lw, e, &l) != 0)
    goto cleanup;
  if (l.n) {
    lw_error(lw, &l.t[0].loc, "%s must be a constant expression, but '%s' is a place", what,
             lw->net->places[l.t[0].place].name);
    goto cleanup;
  }
  *value = l.k;
  rc = 0;
cleanup:
  lin_free(&l);
  return rc;
}
