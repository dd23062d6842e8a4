/* pnet_ast: see pnet_ast.h. */
#include "pnet_ast.h"

#include <stdlib.h>

struct pnet_expr *pnet_expr_int(int64_t value, struct diag_loc loc)
{
  struct pnet_expr *e = calloc(1, sizeof *e);
  if (!e)
    return NULL;
  e->kind = PNET_EXPR_INT;
  e->value = value;
  e->depth = 1;
  e->loc = loc;
  return e;
}

struct pnet_expr *pnet_expr_name(char *name, struct diag_loc loc)
{
  struct pnet_expr *e = calloc(1, sizeof *e);
  if (!e) {
    free(name);
    return NULL;
  }
  e->kind = PNET_EXPR_NAME;
  e->name = name;
  e->depth = 1;
  e->loc = loc;
  return e;
}

struct pnet_expr *pnet_expr_op(enum pnet_expr_kind kind, struct pnet_expr *lhs,
                               struct pnet_expr *rhs, struct diag_loc loc)
{
  struct pnet_expr *e = calloc(1, sizeof *e);
  if (!e) {
    pnet_expr_free(lhs);
    pnet_expr_free(rhs);
    return NULL;
  }
  e->kind = kind;
  e->lhs = lhs;
  e->rhs = rhs;
  int dl = lhs ? lhs->depth : 0, dr = rhs ? rhs->depth : 0;
  e->depth = 1 + (dl > dr ? dl : dr);
  e->loc = loc;
  return e;
}

struct pnet_expr *pnet_expr_sum(struct pnet_loop *loop, struct pnet_expr *body, struct diag_loc loc)
{
  struct pnet_expr *e = pnet_expr_op(PNET_EXPR_SUM, body, NULL, loc);
  if (!e) {
    pnet_loop_free(loop);
    return NULL;
  }
  e->loop = loop;
  /* The range bounds are expressions too: they count toward the depth. */
  int dl = loop->lo ? loop->lo->depth + 1 : 0, dh = loop->hi ? loop->hi->depth + 1 : 0;
  if (dl > e->depth)
    e->depth = dl;
  if (dh > e->depth)
    e->depth = dh;
  return e;
}

void pnet_loop_free(struct pnet_loop *loop)
{
  if (!loop)
    return;
  free(loop->var);
  free(loop->value_var);
  pnet_item_free(loop->items);
  free(loop->family);
  pnet_expr_free(loop->lo);
  pnet_expr_free(loop->hi);
  free(loop);
}

void pnet_expr_free(struct pnet_expr *e)
{
  /* Depth is bounded by the grammar, so recursion is bounded too. */
  if (!e)
    return;
  pnet_loop_free(e->loop);
  pnet_expr_free(e->lhs);
  pnet_expr_free(e->rhs);
  free(e->name);
  free(e);
}

struct pnet_cons *pnet_cons_new(struct pnet_expr *lhs, enum pn_rel rel, struct pnet_expr *rhs,
                                struct diag_loc loc)
{
  struct pnet_cons *c = calloc(1, sizeof *c);
  if (!c) {
    pnet_expr_free(lhs);
    pnet_expr_free(rhs);
    return NULL;
  }
  c->lhs = lhs;
  c->rhs = rhs;
  c->rel = rel;
  c->loc = loc;
  return c;
}

void pnet_cons_free(struct pnet_cons *c)
{
  while (c) {
    struct pnet_cons *next = c->next;
    pnet_expr_free(c->lhs);
    pnet_expr_free(c->rhs);
    free(c);
    c = next;
  }
}

void pnet_item_free(struct pnet_item *it)
{
  while (it) {
    struct pnet_item *next = it->next;
    free(it->key);
    pnet_expr_free(it->value);
    free(it);
    it = next;
  }
}

void pnet_attrs_free(struct pnet_place_attrs *a)
{
  if (!a)
    return;
  pnet_expr_free(a->capacity);
  pnet_expr_free(a->initial);
  free(a);
}

struct pnet_decl *pnet_decl_new(enum pnet_decl_kind kind, struct diag_loc loc)
{
  struct pnet_decl *d = calloc(1, sizeof *d);
  if (!d)
    return NULL;
  d->kind = kind;
  d->loc = loc;
  return d;
}

void pnet_decl_free(struct pnet_decl *d)
{
  while (d) {
    struct pnet_decl *next = d->next;
    free(d->name);
    pnet_expr_free(d->value);
    pnet_attrs_free(d->attrs);
    pnet_expr_free(d->pre);
    pnet_expr_free(d->post);
    free(d->completion);
    pnet_cons_free(d->cons);
    pnet_item_free(d->items);
    pnet_loop_free(d->loop);
    pnet_decl_free(d->body); /* nesting is bounded by PNET_MAX_FOR_DEPTH */
    free(d->path);
    free(d);
    d = next;
  }
}
