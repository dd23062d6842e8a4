/* pol_ast: see pol_ast.h. */
#include "pol_ast.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Grows an array of elem-sized items so one more fits; the list limit is
 * checked here so every list in the language has the same bound. */
static int pol_grow(void **items, size_t n, size_t *cap, size_t elem)
{
  if (n >= POL_MAX_LIST)
    return -E2BIG;
  if (n < *cap)
    return 0;
  size_t ncap = *cap ? *cap * 2 : 4;
  void *grown = realloc(*items, ncap * elem);
  if (!grown)
    return -ENOMEM;
  *items = grown;
  *cap = ncap;
  return 0;
}

void pol_name_free(struct pol_name *n)
{
  if (!n)
    return;
  free(n->text);
  n->text = NULL;
}

void pol_names_free(struct pol_names *l)
{
  if (!l)
    return;
  for (size_t i = 0; i < l->n; i++)
    pol_name_free(&l->items[i]);
  free(l->items);
  memset(l, 0, sizeof *l);
}

int pol_names_append(struct pol_names *l, struct pol_name *item)
{
  int rc = pol_grow((void **)&l->items, l->n, &l->cap, sizeof *l->items);
  if (rc)
    return rc;
  l->items[l->n++] = *item;
  memset(item, 0, sizeof *item);
  return 0;
}

struct pol_value *pol_value_new(struct diag_loc loc)
{
  struct pol_value *v = calloc(1, sizeof *v);
  if (v)
    v->loc = loc;
  return v;
}

void pol_term_free(struct pol_term *t)
{
  if (!t)
    return;
  free(t->name);
  t->name = NULL;
}

int pol_value_append(struct pol_value *v, struct pol_term *t)
{
  int rc = pol_grow((void **)&v->terms, v->n, &v->cap, sizeof *v->terms);
  if (rc)
    return rc;
  v->terms[v->n++] = *t;
  memset(t, 0, sizeof *t);
  return 0;
}

void pol_value_free(struct pol_value *v)
{
  if (!v)
    return;
  for (size_t i = 0; i < v->n; i++)
    pol_term_free(&v->terms[i]);
  free(v->terms);
  free(v);
}

struct pol_expr *pol_expr_new_cmp(struct pol_name *arg, struct pol_value *mask, enum pol_cmp_op op,
                                  struct pol_value *value, struct diag_loc loc)
{
  struct pol_expr *e = calloc(1, sizeof *e);
  if (!e)
    return NULL;
  e->kind = POL_EXPR_CMP;
  e->loc = loc;
  e->depth = 1;
  e->ncmp = 1;
  e->arg = *arg;
  memset(arg, 0, sizeof *arg);
  e->mask = mask;
  e->op = op;
  e->value = value;
  return e;
}

struct pol_expr *pol_expr_new_bin(enum pol_expr_kind kind, struct pol_expr *lhs,
                                  struct pol_expr *rhs, struct diag_loc loc)
{
  struct pol_expr *e = calloc(1, sizeof *e);
  if (!e)
    return NULL;
  e->kind = kind;
  e->loc = loc;
  e->lhs = lhs;
  e->rhs = rhs;
  /* A chain of the same operator is one level: the stages after the
   * parser recurse through it, but its length is bounded by ncmp. */
  int d = 0;
  const struct pol_expr *kids[2] = { lhs, rhs };
  for (int i = 0; i < 2; i++) {
    if (!kids[i])
      continue;
    int kd = kids[i]->depth + (kids[i]->kind == kind && kind != POL_EXPR_NOT ? 0 : 1);
    if (kd > d)
      d = kd;
    e->ncmp += kids[i]->ncmp;
  }
  e->depth = d;
  return e;
}

void pol_expr_free(struct pol_expr *e)
{
  if (!e)
    return;
  pol_name_free(&e->arg);
  pol_value_free(e->mask);
  pol_value_free(e->value);
  pol_expr_free(e->lhs);
  pol_expr_free(e->rhs);
  free(e);
}

void pol_action_free(struct pol_action *a)
{
  if (!a)
    return;
  pol_name_free(&a->name);
  pol_term_free(&a->arg);
}

void pol_stmt_free(struct pol_stmt *s)
{
  if (!s)
    return;
  pol_action_free(&s->action);
  pol_names_free(&s->targets);
  pol_expr_free(s->cond);
  free(s);
}

int pol_stmts_append(struct pol_stmts *l, struct pol_stmt *s)
{
  int rc = pol_grow((void **)&l->items, l->n, &l->cap, sizeof *l->items);
  if (rc)
    return rc;
  l->items[l->n++] = s;
  return 0;
}

void pol_stmts_free(struct pol_stmts *l)
{
  if (!l)
    return;
  for (size_t i = 0; i < l->n; i++)
    pol_stmt_free(l->items[i]);
  free(l->items);
  memset(l, 0, sizeof *l);
}

void pol_path_entry_free(struct pol_path_entry *e)
{
  if (!e)
    return;
  pol_name_free(&e->access);
  pol_names_free(&e->paths);
}

int pol_path_block_append(struct pol_path_block *b, struct pol_path_entry *e)
{
  int rc = pol_grow((void **)&b->entries, b->n, &b->cap, sizeof *b->entries);
  if (rc)
    return rc;
  b->entries[b->n++] = *e;
  memset(e, 0, sizeof *e);
  return 0;
}

void pol_path_block_free(struct pol_path_block *b)
{
  if (!b)
    return;
  for (size_t i = 0; i < b->n; i++)
    pol_path_entry_free(&b->entries[i]);
  free(b->entries);
  free(b);
}

void pol_prop_free(struct pol_prop *p)
{
  if (!p)
    return;
  pol_name_free(&p->key);
  free(p->text);
  p->text = NULL;
  pol_names_free(&p->list);
}

void pol_item_free(struct pol_item *it)
{
  if (!it)
    return;
  pol_prop_free(&it->prop);
  pol_path_block_free(it->paths);
  pol_names_free(&it->approve);
  pol_stmts_free(&it->stmts);
  pol_name_free(&it->rule_name);
  pol_name_free(&it->rule_action);
  pol_name_free(&it->rule_op);
  free(it);
}

int pol_items_append(struct pol_items *l, struct pol_item *it)
{
  int rc = pol_grow((void **)&l->items, l->n, &l->cap, sizeof *l->items);
  if (rc)
    return rc;
  l->items[l->n++] = it;
  return 0;
}

void pol_items_free(struct pol_items *l)
{
  if (!l)
    return;
  for (size_t i = 0; i < l->n; i++)
    pol_item_free(l->items[i]);
  free(l->items);
  memset(l, 0, sizeof *l);
}

void pol_profile_decl_free(struct pol_profile_decl *p)
{
  if (!p)
    return;
  pol_name_free(&p->name);
  pol_name_free(&p->alias);
  pol_name_free(&p->extends);
  pol_items_free(&p->body);
  free(p);
}

void pol_decl_free(struct pol_decl *d)
{
  if (!d)
    return;
  pol_name_free(&d->name);
  pol_value_free(d->value);
  pol_names_free(&d->members);
  pol_profile_decl_free(d->profile);
  free(d);
}

int pol_file_append(struct pol_file *f, struct pol_decl *d)
{
  int rc = pol_grow((void **)&f->decls, f->n, &f->cap, sizeof *f->decls);
  if (rc)
    return rc;
  f->decls[f->n++] = d;
  return 0;
}

void pol_file_free(struct pol_file *f)
{
  if (!f)
    return;
  for (size_t i = 0; i < f->n; i++)
    pol_decl_free(f->decls[i]);
  free(f->decls);
  free(f);
}
