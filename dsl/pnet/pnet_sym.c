/* pnet_sym: see pnet_sym.h. */
#include "pnet_sym.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pnet_limits.h"

static uint64_t pnet_sym_hash(const char *s)
{
  uint64_t h = 1469598103934665603u; /* FNV-1a */
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211u;
  return h;
}

const struct pnet_sym *pnet_sym_find(const struct pnet_symtab *tab, const char *name)
{
  if (!tab->size)
    return NULL;
  size_t mask = tab->size - 1;
  for (size_t i = pnet_sym_hash(name) & mask;; i = (i + 1) & mask) {
    const struct pnet_sym *s = &tab->slots[i];
    if (!s->name)
      return NULL;
    if (strcmp(s->name, name) == 0)
      return s;
  }
}

static void pnet_sym_insert(struct pnet_sym *slots, size_t size, struct pnet_sym sym)
{
  size_t mask = size - 1;
  size_t i = pnet_sym_hash(sym.name) & mask;
  while (slots[i].name)
    i = (i + 1) & mask;
  slots[i] = sym;
}

int pnet_sym_add(struct pnet_symtab *tab, const char *name, enum pnet_sym_kind kind, int64_t value,
                 struct diag_loc loc)
{
  /* Keep the load factor under one half so probes stay short. */
  if ((tab->count + 1) * 2 > tab->size) {
    size_t size = tab->size ? tab->size * 2 : 64;
    struct pnet_sym *slots = calloc(size, sizeof *slots);
    if (!slots)
      return -ENOMEM;
    for (size_t i = 0; i < tab->size; i++)
      if (tab->slots[i].name)
        pnet_sym_insert(slots, size, tab->slots[i]);
    free(tab->slots);
    tab->slots = slots;
    tab->size = size;
  }
  struct pnet_sym sym = { strdup(name), kind, value, loc };
  if (!sym.name)
    return -ENOMEM;
  pnet_sym_insert(tab->slots, tab->size, sym);
  tab->count++;
  return 0;
}

/* Levenshtein distance, capped: names are at most PNET_MAX_NAME_LEN bytes. */
static size_t pnet_edit_distance(const char *a, const char *b)
{
  size_t la = strlen(a), lb = strlen(b);
  if (la > PNET_MAX_NAME_LEN || lb > PNET_MAX_NAME_LEN)
    return (size_t)-1;
  size_t row[PNET_MAX_NAME_LEN + 1];
  for (size_t j = 0; j <= lb; j++)
    row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j];
      size_t best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best)
        best = up + 1;
      if (row[j - 1] + 1 < best)
        best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[lb];
}

const struct pnet_sym *pnet_sym_similar(const struct pnet_symtab *tab, const char *name)
{
  const struct pnet_sym *best = NULL;
  size_t best_d = 3, len = strlen(name);
  for (size_t i = 0; i < tab->size; i++) {
    const struct pnet_sym *s = &tab->slots[i];
    if (!s->name)
      continue;
    /* The distance is at least the difference in length: skipping those
     * keeps a model with thousands of names fast to diagnose. */
    size_t slen = strlen(s->name);
    if ((slen > len ? slen - len : len - slen) >= best_d)
      continue;
    size_t d = pnet_edit_distance(name, s->name);
    /* Ties go to the earlier definition so the note is deterministic. */
    if (d < best_d || (d == best_d && best && d < 3 &&
                       (s->loc.file == best->loc.file
                            ? (s->loc.line < best->loc.line ||
                               (s->loc.line == best->loc.line && s->loc.col < best->loc.col))
                            : strcmp(s->name, best->name) < 0))) {
      best = s;
      best_d = d;
    }
  }
  return best;
}

void pnet_symtab_free(struct pnet_symtab *tab)
{
  for (size_t i = 0; i < tab->size; i++)
    free(tab->slots[i].name);
  free(tab->slots);
  tab->slots = NULL;
  tab->size = tab->count = 0;
}
