/* pnet_sym: the one namespace of a .pnet model. Constants, places and
 * transitions share it, because an expression name may denote a constant or
 * a place and a reader must never have to guess which. Internal. */
#ifndef CS_DSL_PNET_SYM_H
#define CS_DSL_PNET_SYM_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"

enum pnet_sym_kind {
  PNET_SYM_CONST,
  PNET_SYM_PLACE,
  PNET_SYM_TRANSITION,
  PNET_SYM_FAMILY,
};

struct pnet_sym {
  char *name; /* NULL: free slot */
  enum pnet_sym_kind kind;
  int64_t value; /* constant value, or place / transition / family index */
  struct diag_loc loc;
};

struct pnet_symtab {
  struct pnet_sym *slots; /* open addressing, power-of-two size */
  size_t size, count;
};

/* NULL when absent. */
const struct pnet_sym *pnet_sym_find(const struct pnet_symtab *tab, const char *name);
/* Copies name. Returns 0 or -ENOMEM; the caller has checked it is new. */
int pnet_sym_add(struct pnet_symtab *tab, const char *name, enum pnet_sym_kind kind, int64_t value,
                 struct diag_loc loc);
/* The defined name closest to name by edit distance (at most 2 edits), for
 * "did you mean" notes; NULL when nothing is close. */
const struct pnet_sym *pnet_sym_similar(const struct pnet_symtab *tab, const char *name);
void pnet_symtab_free(struct pnet_symtab *tab);

#endif
