/* pnet_lower: see pnet_lower.h and docs/pnet-language.md.
 *
 * Declarations are lowered in source order: a name must be declared before
 * an arc, an expression or an assertion uses it (completions, which name a
 * later transition, are resolved at the end). Family loops are expanded by
 * binding their variables and lowering the body once per entry. After an
 * error the pass goes on, so one run reports several independent mistakes,
 * but a declaration with an error still defines its name: otherwise every
 * later use would add a second, misleading "unknown name" error.
 *
 * Expressions are evaluated by pnet_eval.c, files and includes read by
 * pnet_include.c (pnet_lower_internal.h). */
#include "pnet_lower.h"
#include "pnet_lower_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const pnet_keywords[] = {
  "net",       "const",     "include",     "place", "capacity", "initial", "source", "sink",
  "admission", "progress",  "completion",  "for",   "in",       "assert",  "no",     "deadlock",
  "invariant", "reachable", "unreachable", "and",   "family",   "sum",     "let",
};

/* ENUM-TABLE(pn_rel) */
static const char *const pnet_rel_text[] = {
  [PN_REL_EQ] = "==", [PN_REL_NE] = "!=", [PN_REL_LT] = "<",
  [PN_REL_LE] = "<=", [PN_REL_GT] = ">",  [PN_REL_GE] = ">=",
};
_Static_assert(sizeof pnet_rel_text / sizeof pnet_rel_text[0] == PN_REL_GE + 1,
               "pnet_rel_text follows enum pn_rel");

/* For an error in an included file, the chain of include directives that
 * led to it, innermost first, as C compilers print it. */
void lw_include_notes(const struct pnet_lower *lw, const struct diag_loc *loc)
{
  const struct diag_source *file = loc ? loc->file : NULL;
  for (int hops = 0; file && hops < PNET_MAX_INCLUDE_DEPTH; hops++) {
    const struct diag_loc *site = NULL;
    for (uint32_t i = 0; i < lw->net->nsources; i++)
      if (lw->net->sources[i] == file)
        site = &lw->included_from[i];
    if (!site || site->line == 0)
      return;
    diag_note(site, "'%s' is included here", file->path);
    file = site->file;
  }
}

void lw_error(struct pnet_lower *lw, const struct diag_loc *loc, const char *fmt, ...)
{
  va_list ap;
  if (lw->stop)
    return;
  va_start(ap, fmt);
  diag_verror(loc, fmt, ap);
  va_end(ap);
  lw_include_notes(lw, loc);
  if (++lw->errors >= PNET_MAX_ERRORS) {
    struct diag_loc file_only = { loc ? loc->file : NULL, 0, 0 };
    diag_note(&file_only, "too many errors (%d); stopping", PNET_MAX_ERRORS);
    lw->stop = true;
  }
}

void lw_oom(struct pnet_lower *lw, const struct diag_loc *loc)
{
  lw_error(lw, loc, "out of memory");
  lw->stop = true;
}

/* Grows *array (of *cap elements of size elem) to hold at least need. */
int lw_grow(void **array, uint32_t *cap, uint32_t need, size_t elem)
{
  if (need <= *cap)
    return 0;
  uint32_t n = *cap ? *cap : 8;
  while (n < need)
    n *= 2;
  void *p = realloc(*array, (size_t)n * elem);
  if (!p)
    return -ENOMEM;
  *array = p;
  *cap = n;
  return 0;
}

/* ---- names ------------------------------------------------------------ */

const struct pnet_binding *lw_binding(const struct pnet_lower *lw, const char *name, size_t len)
{
  for (int i = lw->nenv - 1; i >= 0; i--)
    if (strlen(lw->env[i].name) == len && memcmp(lw->env[i].name, name, len) == 0)
      return &lw->env[i];
  return NULL;
}

static bool lw_is_keyword(const char *name)
{
  for (size_t i = 0; i < sizeof pnet_keywords / sizeof pnet_keywords[0]; i++)
    if (strcmp(pnet_keywords[i], name) == 0)
      return true;
  return false;
}

/* Fills the ${var} pieces of a name template. ${var} takes a family
 * variable, or a constant when no loop binds that name. out holds
 * PNET_MAX_NAME_LEN + 1 bytes. */
int lw_expand(struct pnet_lower *lw, const char *tmpl, const struct diag_loc *loc, char *out)
{
  size_t used = 0;
  for (const char *p = tmpl; *p;) {
    char piece[32];
    const char *text = piece;
    size_t len;
    if (p[0] == '$' && p[1] == '{') {
      const char *var = p + 2, *end = strchr(var, '}');
      if (!end)
        return -1; /* the scanner only accepts closed ${...} */
      struct diag_loc at = *loc;
      at.col += (int)(p - tmpl);
      const struct pnet_binding *b = lw_binding(lw, var, (size_t)(end - var));
      const struct pnet_sym *s = NULL;
      if (b && !b->is_int) {
        text = b->sval;
        len = strlen(text);
      } else if (b) {
        len = (size_t)snprintf(piece, sizeof piece, "%" PRId64, b->ival);
      } else {
        char name[PNET_MAX_NAME_LEN + 1];
        snprintf(name, sizeof name, "%.*s", (int)(end - var), var);
        s = pnet_sym_find(&lw->syms, name);
        if (!s || s->kind != PNET_SYM_CONST) {
          lw_error(lw, &at,
                   "unknown variable '%s' in ${%s}: no enclosing loop, let or constant defines it",
                   name, name);
          return -1;
        }
        len = (size_t)snprintf(piece, sizeof piece, "%" PRId64, s->value);
      }
      p = end + 1;
      if (used + len > PNET_MAX_NAME_LEN)
        goto too_long;
      memcpy(out + used, text, len);
      used += len;
    } else {
      if (used + 1 > PNET_MAX_NAME_LEN)
        goto too_long;
      out[used++] = *p++;
    }
  }
  out[used] = '\0';
  /* A substituted number may start the name, or it may spell a keyword;
   * either would make a name that cannot be written back in the language. */
  if (out[0] >= '0' && out[0] <= '9') {
    lw_error(lw, loc, "name '%s' does not start with a letter or '_' after substitution", out);
    return -1;
  }
  if (lw_is_keyword(out)) {
    lw_error(lw, loc, "name '%s' is a reserved word", out);
    return -1;
  }
  return 0;
too_long:
  lw_error(lw, loc, "name is longer than %d bytes after substitution", PNET_MAX_NAME_LEN);
  return -1;
}

const char *lw_kind_text(enum pnet_sym_kind kind)
{
  switch (kind) {
  case PNET_SYM_CONST:
    return "constant";
  case PNET_SYM_PLACE:
    return "place";
  case PNET_SYM_TRANSITION:
    return "transition";
  case PNET_SYM_FAMILY:
    return "family";
  }
  return "name";
}

/* A new global name: reports a redefinition with a note at the first one. */
static bool lw_name_is_free(struct pnet_lower *lw, const char *name, const struct diag_loc *loc)
{
  const struct pnet_sym *prev = pnet_sym_find(&lw->syms, name);
  if (prev) {
    lw_error(lw, loc, "redefinition of '%s'", name);
    if (!lw->stop)
      diag_note(&prev->loc, "'%s' was first defined here, as a %s", name, lw_kind_text(prev->kind));
    return false;
  }
  for (int i = 0; i < lw->nenv; i++)
    if (strcmp(lw->env[i].name, name) == 0) {
      lw_error(lw, loc, "'%s' is a variable of an enclosing for loop", name);
      if (!lw->stop)
        diag_note(&lw->env[i].loc, "'%s' is bound here", name);
      return false;
    }
  return true;
}

void lw_unknown(struct pnet_lower *lw, const char *name, const struct diag_loc *loc)
{
  lw_error(lw, loc, "unknown name '%s'", name);
  const struct pnet_sym *near = pnet_sym_similar(&lw->syms, name);
  if (near && !lw->stop)
    diag_note(&near->loc, "did you mean the %s '%s'?", lw_kind_text(near->kind), near->name);
}

/* ---- declarations ----------------------------------------------------- */

static int lw_bind(struct pnet_lower *lw, const char *name, const struct diag_loc *loc);

static void lw_net(struct pnet_lower *lw, const struct pnet_decl *d)
{
  char name[PNET_MAX_NAME_LEN + 1];
  if (lw->depth > 1) {
    lw_error(lw, &d->loc, "'net' names the whole model; it may only appear in the main file");
    return;
  }
  if (lw->named) {
    lw_error(lw, &d->loc, "the model is named twice");
    if (!lw->stop)
      diag_note(&lw->name_loc, "first named here");
    return;
  }
  if (lw_expand(lw, d->name, &d->name_loc, name) != 0)
    return;
  char *copy = strdup(name);
  if (!copy) {
    lw_oom(lw, &d->loc);
    return;
  }
  free(lw->net->name);
  lw->net->name = copy;
  lw->named = true;
  lw->name_loc = d->loc;
}

static void lw_const_decl(struct pnet_lower *lw, const struct pnet_decl *d)
{
  char name[PNET_MAX_NAME_LEN + 1];
  int64_t value = 0;
  if (lw_expand(lw, d->name, &d->name_loc, name) != 0)
    return;
  if (!lw_name_is_free(lw, name, &d->name_loc))
    return;
  if (lw->nconsts >= PNET_MAX_CONSTANTS) {
    lw_error(lw, &d->name_loc, "too many constants (limit %d)", PNET_MAX_CONSTANTS);
    return;
  }
  /* A failed value still defines the name (as 0) so uses do not cascade. */
  (void)lw_const(lw, d->value, "a constant", &value);
  if (pnet_sym_add(&lw->syms, name, PNET_SYM_CONST, value, d->name_loc) != 0) {
    lw_oom(lw, &d->loc);
    return;
  }
  lw->nconsts++;
}

static void lw_place(struct pnet_lower *lw, const struct pnet_decl *d)
{
  char name[PNET_MAX_NAME_LEN + 1];
  const struct pnet_place_attrs *a = d->attrs;
  struct pn_net *net = lw->net;
  int64_t capacity = PN_UNBOUNDED, initial = 0;

  if (lw_expand(lw, d->name, &d->name_loc, name) != 0)
    return;
  if (!lw_name_is_free(lw, name, &d->name_loc))
    return;
  if (net->nplaces >= PNET_MAX_PLACES) {
    lw_error(lw, &d->name_loc, "too many places (limit %d)", PNET_MAX_PLACES);
    lw->stop = true;
    return;
  }
  /* Environment places stand for the world outside the model; giving them
   * a bound or tokens would make the analysis track what it abstracts. */
  if (a->role != PN_PLACE_TRACKED && a->capacity)
    lw_error(lw, &a->capacity->loc, "a %s place is unbounded; it cannot have a capacity",
             pn_place_role_name(a->role));
  if (a->role != PN_PLACE_TRACKED && a->initial)
    lw_error(lw, &a->initial->loc,
             "a %s place is not part of the marking; it cannot have an initial marking",
             pn_place_role_name(a->role));
  if (a->role == PN_PLACE_TRACKED && a->capacity &&
      lw_const(lw, a->capacity, "a capacity", &capacity) == 0 && capacity < 1) {
    lw_error(lw, &a->capacity->loc, "capacity must be at least 1, not %" PRId64, capacity);
    capacity = PN_UNBOUNDED;
  }
  if (lw->stop)
    return;
  if (a->role == PN_PLACE_TRACKED && a->initial &&
      lw_const(lw, a->initial, "an initial marking", &initial) == 0) {
    if (initial < 0) {
      lw_error(lw, &a->initial->loc, "initial marking must not be negative, not %" PRId64, initial);
      initial = 0;
    } else if (capacity != PN_UNBOUNDED && initial > capacity) {
      lw_error(lw, &a->initial->loc,
               "initial marking %" PRId64 " of '%s' exceeds its capacity %" PRId64, initial, name,
               capacity);
      if (!lw->stop)
        diag_note(&a->capacity->loc, "capacity declared here");
    }
  }
  if (lw->stop)
    return;
  if (lw_grow((void **)&net->places, &lw->places_cap, net->nplaces + 1, sizeof *net->places) != 0)
    goto oom;
  struct pn_place *p = &net->places[net->nplaces];
  *p = (struct pn_place){ .name = strdup(name),
                          .role = a->role,
                          .capacity = capacity,
                          .initial = initial,
                          .loc = d->name_loc };
  if (!p->name)
    goto oom;
  if (pnet_sym_add(&lw->syms, name, PNET_SYM_PLACE, net->nplaces, d->name_loc) != 0) {
    free(p->name);
    goto oom;
  }
  net->nplaces++;
  return;
oom:
  lw_oom(lw, &d->loc);
}

static int lw_arc_cmp(const void *a, const void *b)
{
  const struct pn_arc *x = a, *y = b;
  return (x->place > y->place) - (x->place < y->place);
}

/* Lowers one side of a transition. Sources only give tokens and sinks only
 * take them: an arc the other way would let the model create or destroy
 * the environment's requests. */
static int lw_arcs(struct pnet_lower *lw, const struct pnet_expr *e, bool input, const char *tname,
                   struct pn_arc **arcs, uint32_t *narcs)
{
  struct pnet_lin l = { 0 };
  int rc = -1;
  *arcs = NULL;
  *narcs = 0;
  if (lw_eval(lw, e, &l) != 0)
    goto cleanup;
  if (l.k != 0) {
    lw_error(lw, &e->loc,
             "an arc list names places with weights; the constant %" PRId64 " belongs to no place",
             l.k);
    goto cleanup;
  }
  if (l.n == 0) {
    lw_error(lw, &e->loc, "transition '%s' has no %s places", tname, input ? "input" : "output");
    goto cleanup;
  }
  bool bad = false;
  for (uint32_t i = 0; i < l.n && !lw->stop; i++) {
    const struct pn_place *p = &lw->net->places[l.t[i].place];
    if (l.t[i].coef < 1) {
      lw_error(lw, &l.t[i].loc, "arc weight of '%s' must be at least 1, not %" PRId64, p->name,
               l.t[i].coef);
      bad = true;
    } else if (l.t[i].coef > UINT32_MAX) {
      lw_error(lw, &l.t[i].loc, "arc weight of '%s' is too large (%" PRId64 " > %" PRIu32 ")",
               p->name, l.t[i].coef, UINT32_MAX);
      bad = true;
    } else if (input && p->role == PN_PLACE_SINK) {
      lw_error(lw, &l.t[i].loc,
               "'%s' is a sink: tokens only flow into it, so '%s' cannot take from it", p->name,
               tname);
      if (!lw->stop)
        diag_note(&p->loc, "'%s' is declared as a sink here", p->name);
      bad = true;
    } else if (!input && p->role == PN_PLACE_SOURCE) {
      lw_error(lw, &l.t[i].loc,
               "'%s' is a source: tokens only flow out of it, so '%s' cannot put into it", p->name,
               tname);
      if (!lw->stop)
        diag_note(&p->loc, "'%s' is declared as a source here", p->name);
      bad = true;
    }
  }
  if (bad || lw->stop)
    goto cleanup;
  *arcs = malloc(l.n * sizeof **arcs);
  if (!*arcs) {
    lw_oom(lw, &e->loc);
    goto cleanup;
  }
  for (uint32_t i = 0; i < l.n; i++)
    (*arcs)[i] = (struct pn_arc){ l.t[i].place, (uint32_t)l.t[i].coef };
  qsort(*arcs, l.n, sizeof **arcs, lw_arc_cmp);
  *narcs = l.n;
  rc = 0;
cleanup:
  lin_free(&l);
  return rc;
}

static void lw_transition(struct pnet_lower *lw, const struct pnet_decl *d)
{
  char name[PNET_MAX_NAME_LEN + 1], completion[PNET_MAX_NAME_LEN + 1];
  struct pn_net *net = lw->net;
  struct pn_transition t = { .kind = d->tkind, .completion = -1, .loc = d->name_loc };

  if (lw_expand(lw, d->name, &d->name_loc, name) != 0)
    return;
  if (!lw_name_is_free(lw, name, &d->name_loc))
    return;
  if (net->ntransitions >= PNET_MAX_TRANSITIONS) {
    lw_error(lw, &d->name_loc, "too many transitions (limit %d)", PNET_MAX_TRANSITIONS);
    lw->stop = true;
    return;
  }
  (void)lw_arcs(lw, d->pre, true, name, &t.pre, &t.npre);
  (void)lw_arcs(lw, d->post, false, name, &t.post, &t.npost);
  if (d->completion) {
    if (d->tkind != PN_ADMISSION) {
      lw_error(lw, &d->completion_loc,
               "only an admission has a completion; '%s' is a progress step", name);
    } else if (lw_expand(lw, d->completion, &d->completion_loc, completion) == 0) {
      if (lw_grow((void **)&lw->completions, &lw->completions_cap, lw->ncompletions + 1,
                  sizeof *lw->completions) != 0)
        goto oom;
      struct pnet_pending_completion *c = &lw->completions[lw->ncompletions];
      c->transition = net->ntransitions;
      c->loc = d->completion_loc;
      c->name = strdup(completion);
      if (!c->name)
        goto oom;
      lw->ncompletions++;
    }
  }
  if (lw->stop)
    goto fail;
  if (lw_grow((void **)&net->transitions, &lw->transitions_cap, net->ntransitions + 1,
              sizeof *net->transitions) != 0)
    goto oom;
  t.name = strdup(name);
  if (!t.name)
    goto oom;
  if (pnet_sym_add(&lw->syms, name, PNET_SYM_TRANSITION, net->ntransitions, d->name_loc) != 0)
    goto oom;
  net->transitions[net->ntransitions++] = t;
  return;
oom:
  lw_oom(lw, &d->loc);
fail:
  free(t.name);
  free(t.pre);
  free(t.post);
}

/* The assertion's text for reports: the lowered form, written back in the
 * language, so a family assertion shows the entry it was expanded for. */
static char *lw_assert_text(const struct pn_net *net, const struct pn_assertion *a)
{
  /* ENUM-TABLE(pn_assert_kind) */
  static const char *const kind_text[] = {
    [PN_ASSERT_NO_DEADLOCK] = "no deadlock",
    [PN_ASSERT_CAPACITY] = "every place within its capacity",
    [PN_ASSERT_INVARIANT] = "invariant",
    [PN_ASSERT_REACHABLE] = "reachable",
    [PN_ASSERT_UNREACHABLE] = "unreachable",
  };
  _Static_assert(sizeof kind_text / sizeof kind_text[0] == PN_ASSERT_UNREACHABLE + 1,
                 "kind_text follows enum pn_assert_kind");
  char *buf = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&buf, &size);
  if (!f)
    return NULL;
  fputs(kind_text[a->kind], f);
  for (uint32_t i = 0; i < a->nconstraints; i++) {
    const struct pn_linear *c = &a->constraints[i];
    fputs(i ? " and " : " ", f);
    for (uint32_t j = 0; j < c->nterms; j++) {
      int64_t coef = c->terms[j].coef;
      const char *sign = coef < 0 ? "-" : "+";
      uint64_t mag = coef < 0 ? (uint64_t)0 - (uint64_t)coef : (uint64_t)coef;
      if (j == 0)
        fputs(coef < 0 ? "-" : "", f);
      else
        fprintf(f, " %s ", sign);
      if (mag != 1)
        fprintf(f, "%" PRIu64 " * ", mag);
      fputs(net->places[c->terms[j].place].name, f);
    }
    fprintf(f, " %s %" PRId64, pnet_rel_text[c->rel], c->constant);
  }
  if (fclose(f) != 0) {
    free(buf);
    return NULL;
  }
  return buf;
}

static int lw_term_cmp(const void *a, const void *b)
{
  const struct pn_term *x = a, *y = b;
  return (x->place > y->place) - (x->place < y->place);
}

/* lhs rel rhs  =>  sum(coef * place) rel constant, places in index order. */
static int lw_constraint(struct pnet_lower *lw, const struct pnet_cons *c, struct pn_linear *out)
{
  struct pnet_lin l = { 0 }, r = { 0 };
  int rc = -1;
  if (lw_eval(lw, c->lhs, &l) != 0 || lw_eval(lw, c->rhs, &r) != 0)
    goto cleanup;
  if (lin_add(lw, &l, &r, -1, &c->loc) != 0)
    goto cleanup;
  if (l.k == INT64_MIN) {
    lw_error(lw, &c->loc, "integer overflow in expression");
    goto cleanup;
  }
  uint32_t n = 0;
  bool bad = false;
  for (uint32_t i = 0; i < l.n; i++) {
    if (l.t[i].coef == 0)
      continue;
    const struct pn_place *p = &lw->net->places[l.t[i].place];
    if (p->role != PN_PLACE_TRACKED) {
      lw_error(lw, &l.t[i].loc,
               "'%s' is a %s place; its tokens are not part of the marking an assertion checks",
               p->name, pn_place_role_name(p->role));
      bad = true;
    }
    l.t[n++] = l.t[i];
  }
  if (bad)
    goto cleanup;
  if (n == 0) {
    lw_error(lw, &c->loc, "this constraint does not depend on any place, so it is always %s",
             (c->rel == PN_REL_EQ   ? 0 == -l.k
              : c->rel == PN_REL_NE ? 0 != -l.k
              : c->rel == PN_REL_LT ? 0 < -l.k
              : c->rel == PN_REL_LE ? 0 <= -l.k
              : c->rel == PN_REL_GT ? 0 > -l.k
                                    : 0 >= -l.k)
                 ? "true"
                 : "false");
    goto cleanup;
  }
  out->terms = malloc(n * sizeof *out->terms);
  if (!out->terms) {
    lw_oom(lw, &c->loc);
    goto cleanup;
  }
  for (uint32_t i = 0; i < n; i++)
    out->terms[i] = (struct pn_term){ l.t[i].coef, l.t[i].place };
  qsort(out->terms, n, sizeof *out->terms, lw_term_cmp);
  out->nterms = n;
  out->rel = c->rel;
  out->constant = -l.k;
  rc = 0;
cleanup:
  lin_free(&l);
  lin_free(&r);
  return rc;
}

static void lw_assertion_free(struct pn_assertion *a)
{
  for (uint32_t i = 0; i < a->nconstraints; i++)
    free(a->constraints[i].terms);
  free(a->constraints);
  free(a->text);
}

static int lw_push_assertion(struct pnet_lower *lw, struct pn_assertion *a)
{
  struct pn_net *net = lw->net;
  if (lw_grow((void **)&net->assertions, &lw->assertions_cap, net->nassertions + 1,
              sizeof *net->assertions) != 0)
    return -ENOMEM;
  a->text = lw_assert_text(net, a);
  if (!a->text)
    return -ENOMEM;
  net->assertions[net->nassertions++] = *a;
  return 0;
}

static void lw_assert(struct pnet_lower *lw, const struct pnet_decl *d)
{
  struct pn_assertion a = { .kind = d->akind, .loc = d->loc };
  uint32_t n = 0;
  bool bad = false;

  if (lw->net->nassertions >= PNET_MAX_ASSERTIONS) {
    lw_error(lw, &d->loc, "too many assertions (limit %d)", PNET_MAX_ASSERTIONS);
    lw->stop = true;
    return;
  }
  for (const struct pnet_cons *c = d->cons; c; c = c->next)
    n++;
  if (n) {
    a.constraints = calloc(n, sizeof *a.constraints);
    if (!a.constraints)
      goto oom;
  }
  for (const struct pnet_cons *c = d->cons; c && !lw->stop; c = c->next) {
    if (lw_constraint(lw, c, &a.constraints[a.nconstraints]) != 0)
      bad = true;
    else
      a.nconstraints++;
  }
  if (bad || lw->stop)
    goto fail;
  if (lw_push_assertion(lw, &a) != 0)
    goto oom;
  return;
oom:
  lw_oom(lw, &d->loc);
fail:
  lw_assertion_free(&a);
}

/* Binds a loop variable; names must be plain and new so a body never has
 * two readings. */
static int lw_bind(struct pnet_lower *lw, const char *name, const struct diag_loc *loc)
{
  if (strchr(name, '$')) {
    lw_error(lw, loc, "a loop variable must be a plain name, without ${...}");
    return -1;
  }
  for (int i = 0; i < lw->nenv; i++)
    if (strcmp(lw->env[i].name, name) == 0) {
      lw_error(lw, loc, "variable '%s' is already bound (by an enclosing loop, sum or let)", name);
      if (!lw->stop)
        diag_note(&lw->env[i].loc, "'%s' is bound here", name);
      return -1;
    }
  const struct pnet_sym *s = pnet_sym_find(&lw->syms, name);
  if (s) {
    lw_error(lw, loc, "variable '%s' hides the %s of the same name", name, lw_kind_text(s->kind));
    if (!lw->stop)
      diag_note(&s->loc, "'%s' is defined here", name);
    return -1;
  }
  if (lw->nenv >= PNET_MAX_BINDINGS) {
    lw_error(lw, loc, "too many loop variables and lets in scope (limit %d)", PNET_MAX_BINDINGS);
    return -1;
  }
  lw->env[lw->nenv++] = (struct pnet_binding){ .name = name, .loc = *loc };
  return 0;
}

/* Entries must be distinct plain names: each becomes part of other names. */
static bool lw_check_entries(struct pnet_lower *lw, const struct pnet_item *items)
{
  bool ok = true;
  for (const struct pnet_item *it = items; it; it = it->next) {
    if (strchr(it->key, '$') || lw_is_keyword(it->key)) {
      lw_error(lw, &it->loc, "a family entry must be a plain name");
      ok = false;
    }
    for (const struct pnet_item *prev = items; prev != it; prev = prev->next)
      if (strcmp(prev->key, it->key) == 0) {
        lw_error(lw, &it->loc, "duplicate family entry '%s'", it->key);
        if (!lw->stop)
          diag_note(&prev->loc, "first listed here");
        ok = false;
        break;
      }
  }
  return ok;
}

static void lw_family(struct pnet_lower *lw, const struct pnet_decl *d)
{
  char name[PNET_MAX_NAME_LEN + 1];
  if (lw_expand(lw, d->name, &d->name_loc, name) != 0)
    return;
  if (!lw_name_is_free(lw, name, &d->name_loc))
    return;
  /* A bad family is still defined, so its loops report nothing more. */
  (void)lw_check_entries(lw, d->items);
  if (lw_grow((void **)&lw->families, &lw->families_cap, lw->nfamilies + 1, sizeof *lw->families) !=
          0 ||
      pnet_sym_add(&lw->syms, name, PNET_SYM_FAMILY, lw->nfamilies, d->name_loc) != 0) {
    lw_oom(lw, &d->loc);
    return;
  }
  lw->families[lw->nfamilies++] = d->items;
}

/* One iteration. After an iteration with errors the loop stops: the next
 * entries would repeat the same ones. */
static bool lw_iterate(struct pnet_lower *lw, const struct pnet_loop *loop, int key,
                       const struct diag_loc *entry_loc, lw_body_fn body, void *arg)
{
  unsigned before = lw->errors;
  if (++lw->iterations > PNET_MAX_ITERATIONS) {
    lw_error(lw, &loop->var_loc, "families expand to more than %d iterations in total",
             PNET_MAX_ITERATIONS);
    lw->stop = true;
    return false;
  }
  bool go_on = body(lw, arg);
  if (lw->errors != before) {
    if (!lw->stop) {
      const struct pnet_binding *b = &lw->env[key];
      if (b->is_int)
        diag_note(entry_loc, "in the iteration with %s = %" PRId64, b->name, b->ival);
      else
        diag_note(entry_loc, "in the iteration with %s = %s", b->name, b->sval);
    }
    return false;
  }
  return go_on && !lw->stop;
}

void lw_loop(struct pnet_lower *lw, const struct pnet_loop *loop, const char *what, lw_body_fn body,
             void *arg)
{
  int saved = lw->nenv;
  const struct pnet_item *items = loop->items;

  if (loop->family) {
    char name[PNET_MAX_NAME_LEN + 1];
    if (lw_expand(lw, loop->family, &loop->family_loc, name) != 0)
      return;
    const struct pnet_sym *s = pnet_sym_find(&lw->syms, name);
    if (!s) {
      lw_unknown(lw, name, &loop->family_loc);
      return;
    }
    if (s->kind != PNET_SYM_FAMILY) {
      lw_error(lw, &loop->family_loc,
               "'%s' is a %s; %s runs over a family, a { ... } list or a range", name,
               lw_kind_text(s->kind), what);
      if (!lw->stop)
        diag_note(&s->loc, "'%s' is defined here", name);
      return;
    }
    items = lw->families[s->value];
  }
  if (lw_bind(lw, loop->var, &loop->var_loc) != 0)
    goto done;
  if (loop->value_var && lw_bind(lw, loop->value_var, &loop->value_var_loc) != 0)
    goto done;
  struct pnet_binding *key = &lw->env[saved];
  struct pnet_binding *val = loop->value_var ? &lw->env[saved + 1] : NULL;

  if (!items && !loop->family) {
    int64_t lo, hi;
    if (lw_const(lw, loop->lo, "a range bound", &lo) != 0 ||
        lw_const(lw, loop->hi, "a range bound", &hi) != 0)
      goto done;
    if (hi >= lo && (uint64_t)hi - (uint64_t)lo >= PNET_MAX_FAMILY_ITEMS) {
      lw_error(lw, &loop->hi->loc, "range %" PRId64 " .. %" PRId64 " has more than %d entries", lo,
               hi, PNET_MAX_FAMILY_ITEMS);
      goto done;
    }
    key->is_int = true;
    for (int64_t i = lo; i <= hi; i++) {
      key->ival = i;
      if (!lw_iterate(lw, loop, saved, &loop->lo->loc, body, arg))
        break;
    }
    goto done;
  }

  /* Check the whole list before expanding anything. */
  bool bad = !loop->family && !lw_check_entries(lw, items);
  for (const struct pnet_item *it = items; it && !lw->stop; it = it->next) {
    if (loop->value_var && !it->value) {
      lw_error(lw, loop->family ? &loop->family_loc : &it->loc,
               "entry '%s' has no value, but '%s, %s in ...' binds %s to one", it->key, loop->var,
               loop->value_var, loop->value_var);
      if (loop->family && !lw->stop)
        diag_note(&it->loc, "entry '%s' is listed here", it->key);
      bad = true;
    } else if (!loop->value_var && !loop->family && it->value) {
      /* Only an inline list: a named family may carry values some of its
       * loops do not need. */
      lw_error(lw, &it->value->loc,
               "entry '%s' has a value but the loop does not name it; write '%s, VALUE in {...}'",
               it->key, loop->var);
      bad = true;
    }
  }
  if (bad)
    goto done;
  for (const struct pnet_item *it = items; it && !lw->stop; it = it->next) {
    key->sval = it->key;
    if (val) {
      val->is_int = true;
      if (lw_const(lw, it->value, "a family value", &val->ival) != 0)
        break;
    }
    if (!lw_iterate(lw, loop, saved, &it->loc, body, arg))
      break;
  }
done:
  lw->nenv = saved;
}

static bool lw_for_body(struct pnet_lower *lw, void *arg)
{
  int saved = lw->nenv; /* drops the iteration's lets */
  lw_decls(lw, ((const struct pnet_decl *)arg)->body);
  lw->nenv = saved;
  return true;
}

/* The value is computed before the name is bound, so it cannot refer to
 * itself. A failed value still binds the name (as 0), so its uses add no
 * second error. */
static void lw_let(struct pnet_lower *lw, const struct pnet_decl *d)
{
  int64_t value = 0;
  if (lw_const(lw, d->value, "a let value", &value) != 0)
    value = 0;
  if (lw_bind(lw, d->name, &d->name_loc) != 0)
    return;
  lw->env[lw->nenv - 1].is_int = true;
  lw->env[lw->nenv - 1].ival = value;
}

static void lw_for(struct pnet_lower *lw, const struct pnet_decl *d)
{
  lw_loop(lw, d->loop, "a for loop", lw_for_body, (void *)d);
}

void lw_decls(struct pnet_lower *lw, const struct pnet_decl *d)
{
  for (; d && !lw->stop; d = d->next) {
    switch (d->kind) {
    case PNET_DECL_NET:
      lw_net(lw, d);
      break;
    case PNET_DECL_CONST:
      lw_const_decl(lw, d);
      break;
    case PNET_DECL_PLACE:
      lw_place(lw, d);
      break;
    case PNET_DECL_TRANSITION:
      lw_transition(lw, d);
      break;
    case PNET_DECL_ASSERT:
      lw_assert(lw, d);
      break;
    case PNET_DECL_FOR:
      lw_for(lw, d);
      break;
    case PNET_DECL_FAMILY:
      lw_family(lw, d);
      break;
    case PNET_DECL_LET:
      lw_let(lw, d);
      break;
    case PNET_DECL_INCLUDE:
      lw_include(lw, d);
      break;
    }
  }
}

/* ---- entry points ----------------------------------------------------- */

struct pnet_lower *pnet_lower_new(void)
{
  struct pnet_lower *lw = calloc(1, sizeof *lw);
  if (!lw)
    return NULL;
  lw->net = calloc(1, sizeof *lw->net);
  if (!lw->net) {
    free(lw);
    return NULL;
  }
  return lw;
}

void pnet_lower_main(struct pnet_lower *lw, const char *path, const char *text, size_t len)
{
  lw->net->source_path = strdup(path);
  if (!lw->net->source_path) {
    lw_oom(lw, NULL);
    return;
  }
  const char *slash = strrchr(path, '/');
  char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
  if (!dir) {
    lw_oom(lw, NULL);
    return;
  }
  lw->root = realpath(dir, NULL); /* NULL (no includes) for a name that is no path */
  free(dir);
  lw_file(lw, path, text, len, NULL);
}

/* The model's name defaults to the main file's base name, made into an
 * identifier because emitters use it in C symbol names. */
static char *lw_default_name(const char *path)
{
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  const char *dot = strchr(base, '.');
  size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
  if (len > PNET_MAX_NAME_LEN)
    len = PNET_MAX_NAME_LEN;
  char *name = malloc(len + 2);
  if (!name)
    return NULL;
  size_t o = 0;
  if (len == 0 || (base[0] >= '0' && base[0] <= '9'))
    name[o++] = '_';
  for (size_t i = 0; i < len; i++) {
    char c = base[i];
    bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    name[o++] = ok ? c : '_';
  }
  name[o] = '\0';
  return name;
}

static void lw_completions(struct pnet_lower *lw)
{
  struct pn_net *net = lw->net;
  for (uint32_t i = 0; i < lw->ncompletions && !lw->stop; i++) {
    const struct pnet_pending_completion *c = &lw->completions[i];
    const struct pnet_sym *s = pnet_sym_find(&lw->syms, c->name);
    if (!s) {
      lw_unknown(lw, c->name, &c->loc);
      continue;
    }
    if (s->kind != PNET_SYM_TRANSITION) {
      lw_error(lw, &c->loc, "completion '%s' is a %s, not a transition", c->name,
               lw_kind_text(s->kind));
      continue;
    }
    if (net->transitions[s->value].kind != PN_PROGRESS) {
      lw_error(lw, &c->loc, "completion '%s' is an admission; it must be a progress step", c->name);
      if (!lw->stop)
        diag_note(&s->loc, "'%s' is declared here", c->name);
      continue;
    }
    net->transitions[c->transition].completion = (int32_t)s->value;
  }
  /* Convention: admit_<x> is finished by complete_<x>. After an error the
   * model is rejected anyway, and a warning would only add noise. */
  for (uint32_t i = 0; i < net->ntransitions && !lw->errors; i++) {
    struct pn_transition *t = &net->transitions[i];
    if (t->kind != PN_ADMISSION || t->completion >= 0)
      continue;
    if (strncmp(t->name, "admit_", 6) == 0) {
      char name[PNET_MAX_NAME_LEN + 16];
      snprintf(name, sizeof name, "complete_%s", t->name + 6);
      const struct pnet_sym *s = pnet_sym_find(&lw->syms, name);
      if (s && s->kind == PNET_SYM_TRANSITION && net->transitions[s->value].kind == PN_PROGRESS) {
        t->completion = (int32_t)s->value;
        continue;
      }
    }
    diag_warning(&t->loc,
                 "admission '%s' has no completion; name the progress step that finishes its work "
                 "with 'completion NAME'",
                 t->name);
  }
}

/* Every model gets the capacity check, stated explicitly in the IR so a
 * report lists it like any other assertion. */
static void lw_implicit_capacity(struct pnet_lower *lw)
{
  struct pn_net *net = lw->net;
  struct pn_assertion a = { .kind = PN_ASSERT_CAPACITY, .implicit = true };
  a.loc = (struct diag_loc){ net->nsources ? net->sources[0] : NULL, 0, 0 };
  if (lw_push_assertion(lw, &a) != 0) {
    lw_oom(lw, NULL);
    return;
  }
  /* First in the list: the most basic property reads first in reports. */
  struct pn_assertion cap = net->assertions[net->nassertions - 1];
  memmove(net->assertions + 1, net->assertions, (net->nassertions - 1) * sizeof *net->assertions);
  net->assertions[0] = cap;
}

struct pn_net *pnet_lower_finish(struct pnet_lower *lw)
{
  struct pn_net *net = lw->net;
  if (!lw->errors && !lw->stop) {
    if (net->nplaces == 0) {
      struct diag_loc l = { net->sources[0], 0, 0 };
      lw_error(lw, &l, "the model declares no places");
    }
  }
  if (!lw->errors && !lw->stop)
    lw_completions(lw);
  if (!lw->errors && !lw->stop)
    lw_implicit_capacity(lw);
  if (!lw->errors && !lw->stop && !net->name) {
    net->name = lw_default_name(net->source_path);
    if (!net->name)
      lw_oom(lw, NULL);
  }
  if (lw->errors || lw->stop) {
    pn_net_free(net);
    net = NULL;
  }
  pnet_symtab_free(&lw->syms);
  for (uint32_t i = 0; i < lw->nseen; i++)
    free(lw->seen[i]);
  free(lw->seen);
  for (uint32_t i = 0; i < lw->ncompletions; i++)
    free(lw->completions[i].name);
  free(lw->completions);
  free(lw->families);
  free(lw->root);
  for (uint32_t i = 0; i < lw->ntrees; i++)
    pnet_decl_free(lw->trees[i]);
  free(lw->trees);
  free(lw);
  return net;
}
