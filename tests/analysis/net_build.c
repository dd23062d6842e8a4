/* net_build: see net_build.h. Test helper: aborts on malformed input. */
#include "net_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *nb_xrealloc(void *p, size_t n)
{
  p = realloc(p, n ? n : 1);
  if (!p)
    abort();
  return p;
}

static char *nb_xstrdup(const char *s)
{
  char *d = strdup(s);
  if (!d)
    abort();
  return d;
}

struct pn_net *nb_new(const char *name)
{
  struct pn_net *net = calloc(1, sizeof *net);
  if (!net)
    abort();
  net->name = nb_xstrdup(name);
  net->source_path = nb_xstrdup("(test)");
  return net;
}

int32_t nb_find_place(const struct pn_net *net, const char *name)
{
  for (uint32_t i = 0; i < net->nplaces; i++)
    if (!strcmp(net->places[i].name, name))
      return (int32_t)i;
  return -1;
}

uint32_t nb_place(struct pn_net *net, const char *name, enum pn_place_role role, int64_t initial)
{
  net->places = nb_xrealloc(net->places, (net->nplaces + 1) * sizeof *net->places);
  struct pn_place *p = &net->places[net->nplaces];
  memset(p, 0, sizeof *p);
  p->name = nb_xstrdup(name);
  p->role = role;
  p->capacity = PN_UNBOUNDED;
  p->initial = initial;
  return net->nplaces++;
}

void nb_capacity(struct pn_net *net, const char *place, int64_t cap)
{
  int32_t p = nb_find_place(net, place);
  if (p < 0)
    abort();
  net->places[p].capacity = cap;
}

static int nb_arc_cmp(const void *x, const void *y)
{
  const struct pn_arc *a = x, *b = y;
  return (a->place > b->place) - (a->place < b->place);
}

static struct pn_arc *nb_arcs(const struct pn_net *net, const char *spec, uint32_t *n)
{
  struct pn_arc *arcs = NULL;
  *n = 0;
  char *copy = nb_xstrdup(spec ? spec : ""), *save = NULL;
  for (char *tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    char *colon = strchr(tok, ':');
    uint32_t w = 1;
    if (colon) {
      *colon = 0;
      w = (uint32_t)strtoul(colon + 1, NULL, 10);
    }
    int32_t p = nb_find_place(net, tok);
    if (p < 0) {
      fprintf(stderr, "net_build: unknown place %s\n", tok);
      abort();
    }
    arcs = nb_xrealloc(arcs, (*n + 1) * sizeof *arcs);
    arcs[(*n)++] = (struct pn_arc){ (uint32_t)p, w };
  }
  free(copy);
  qsort(arcs, *n, sizeof *arcs, nb_arc_cmp);
  return arcs;
}

uint32_t nb_trans(struct pn_net *net, const char *name, enum pn_transition_kind kind,
                  const char *pre, const char *post)
{
  net->transitions =
      nb_xrealloc(net->transitions, (net->ntransitions + 1) * sizeof *net->transitions);
  struct pn_transition *t = &net->transitions[net->ntransitions];
  memset(t, 0, sizeof *t);
  t->name = nb_xstrdup(name);
  t->kind = kind;
  t->completion = -1;
  t->pre = nb_arcs(net, pre, &t->npre);
  t->post = nb_arcs(net, post, &t->npost);
  return net->ntransitions++;
}

static enum pn_rel nb_rel(const char **s)
{
  static const struct {
    const char *text;
    enum pn_rel rel;
  } rels[] = { { "==", PN_REL_EQ }, { "!=", PN_REL_NE }, { "<=", PN_REL_LE },
               { ">=", PN_REL_GE }, { "<", PN_REL_LT },  { ">", PN_REL_GT } };
  for (size_t i = 0; i < sizeof rels / sizeof rels[0]; i++)
    if (!strncmp(*s, rels[i].text, strlen(rels[i].text))) {
      *s += strlen(rels[i].text);
      return rels[i].rel;
    }
  abort();
}

void nb_assert(struct pn_net *net, enum pn_assert_kind kind, const char *conj)
{
  net->assertions = nb_xrealloc(net->assertions, (net->nassertions + 1) * sizeof *net->assertions);
  struct pn_assertion *as = &net->assertions[net->nassertions++];
  memset(as, 0, sizeof *as);
  as->kind = kind;
  as->text = nb_xstrdup(conj ? conj : (kind == PN_ASSERT_NO_DEADLOCK ? "no deadlock" : "capacity"));
  if (!conj)
    return;
  char *copy = nb_xstrdup(conj), *save = NULL;
  for (char *c = strtok_r(copy, ";", &save); c; c = strtok_r(NULL, ";", &save)) {
    as->constraints =
        nb_xrealloc(as->constraints, (as->nconstraints + 1) * sizeof *as->constraints);
    struct pn_linear *lin = &as->constraints[as->nconstraints++];
    memset(lin, 0, sizeof *lin);
    const char *s = c;
    for (;;) {
      char *end;
      int64_t coef = strtoll(s, &end, 10);
      if (*end != '*')
        abort();
      s = end + 1;
      size_t len = strcspn(s, "+<>=!");
      char name[64];
      if (len >= sizeof name)
        abort();
      memcpy(name, s, len);
      name[len] = 0;
      int32_t p = nb_find_place(net, name);
      if (p < 0)
        abort();
      lin->terms = nb_xrealloc(lin->terms, (lin->nterms + 1) * sizeof *lin->terms);
      lin->terms[lin->nterms++] = (struct pn_term){ coef, (uint32_t)p };
      s += len;
      if (*s == '+') {
        s++;
        continue;
      }
      break;
    }
    lin->rel = nb_rel(&s);
    lin->constant = strtoll(s, NULL, 10);
  }
  free(copy);
}
