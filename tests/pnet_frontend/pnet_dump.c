/* pnet_dump: parses one .pnet file and prints the lowered net in a stable
 * text form, or the diagnostics. Used by the golden tests: diagnostics on
 * stderr, the net on stdout, exit status as pnetc's (0 or 2).
 *
 *   pnet_dump [--memory] FILE
 *
 * --memory reads the file itself and goes through pnet_parse_memory, the
 * entry point of the fuzz harness. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pnet.h"
#include "pnetc_exit.h"

static const char *const role_text[] = { "", " source", " sink" };
static const char *const kind_text[] = { "admission", "progress" };
static const char *const assert_text[] = { "no_deadlock", "capacity", "invariant", "reachable",
                                           "unreachable" };

static void dump_arcs(const struct pn_net *net, const char *label, const struct pn_arc *arcs,
                      uint32_t n)
{
  printf("  %s", label);
  for (uint32_t i = 0; i < n; i++)
    printf(" %s*%u", net->places[arcs[i].place].name, arcs[i].weight);
  printf("\n");
}

static void dump(const struct pn_net *net)
{
  printf("net %s\n", net->name);
  for (uint32_t i = 0; i < net->nplaces; i++) {
    const struct pn_place *p = &net->places[i];
    printf("place %u %s%s", i, p->name, role_text[p->role]);
    if (p->capacity != PN_UNBOUNDED)
      printf(" capacity %lld", (long long)p->capacity);
    printf(" initial %lld  # %s:%d:%d\n", (long long)p->initial, p->loc.file->path, p->loc.line,
           p->loc.col);
  }
  for (uint32_t i = 0; i < net->ntransitions; i++) {
    const struct pn_transition *t = &net->transitions[i];
    printf("transition %u %s %s", i, t->name, kind_text[t->kind]);
    if (t->completion >= 0)
      printf(" completion %s", net->transitions[t->completion].name);
    printf("  # %s:%d:%d\n", t->loc.file->path, t->loc.line, t->loc.col);
    dump_arcs(net, "pre", t->pre, t->npre);
    dump_arcs(net, "post", t->post, t->npost);
  }
  for (uint32_t i = 0; i < net->nassertions; i++) {
    const struct pn_assertion *a = &net->assertions[i];
    printf("assertion %u %s%s: %s\n", i, assert_text[a->kind], a->implicit ? " implicit" : "",
           a->text);
    for (uint32_t j = 0; j < a->nconstraints; j++) {
      const struct pn_linear *c = &a->constraints[j];
      static const char *const rel[] = { "==", "!=", "<", "<=", ">", ">=" };
      printf("  ");
      for (uint32_t k = 0; k < c->nterms; k++)
        printf("%+lld*%s ", (long long)c->terms[k].coef, net->places[c->terms[k].place].name);
      printf("%s %lld\n", rel[c->rel], (long long)c->constant);
    }
  }
  for (uint32_t i = 0; i < net->nsources; i++)
    printf("source %s\n", net->sources[i]->path);
}

static char *slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  size_t cap = 0;
  *len = 0;
  if (!f)
    return NULL;
  for (;;) {
    if (*len == cap) {
      cap = cap ? cap * 2 : 4096;
      char *grown = realloc(buf, cap);
      if (!grown)
        break;
      buf = grown;
    }
    size_t got = fread(buf + *len, 1, cap - *len, f);
    *len += got;
    if (got == 0)
      break;
  }
  fclose(f);
  return buf;
}

int main(int argc, char **argv)
{
  bool memory = argc == 3 && strcmp(argv[1], "--memory") == 0;
  if (argc != 2 && !memory) {
    fprintf(stderr, "usage: pnet_dump [--memory] FILE\n");
    return PNETC_EXIT_INPUT;
  }
  const char *path = argv[argc - 1];
  struct pn_net *net;
  if (memory) {
    size_t len;
    char *text = slurp(path, &len);
    if (!text) {
      perror(path);
      return PNETC_EXIT_INPUT;
    }
    net = pnet_parse_memory(path, text, len);
    free(text);
  } else {
    net = pnet_parse_file(path);
  }
  if (!net)
    return PNETC_EXIT_INPUT;
  dump(net);
  pn_net_free(net);
  return PNETC_EXIT_OK;
}
