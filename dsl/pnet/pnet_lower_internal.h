/* pnet_lower_internal: what the three parts of the lowering share
 * (internal to cs_pnet): the lowering state, the linear forms expressions
 * evaluate to, and the functions one part calls in another.
 *
 *   pnet_lower.c    declarations, names, errors, completions, entry points
 *   pnet_eval.c     expressions: constants, sums, linear forms over places
 *   pnet_include.c  files: reading, include resolution, cycles, the root */
#ifndef CS_DSL_PNET_LOWER_INTERNAL_H
#define CS_DSL_PNET_LOWER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "pn_net.h"
#include "pnet_ast.h"
#include "pnet_limits.h"
#include "pnet_sym.h"

/* A family variable: the entry's key (a name piece) or its value / range
 * index (a number). */
struct pnet_binding {
  const char *name;
  bool is_int;
  int64_t ival;
  const char *sval;
  struct diag_loc loc;
};

struct pnet_pending_completion {
  uint32_t transition;
  char *name;
  struct diag_loc loc;
};

struct pnet_lower {
  struct pn_net *net;
  uint32_t places_cap, transitions_cap, assertions_cap;
  struct pnet_symtab syms;
  uint32_t nconsts;

  struct pnet_binding env[PNET_MAX_BINDINGS];
  int nenv;

  /* Files being lowered, outermost first: canonical path (NULL for an
   * in-memory buffer) and the path as written, for cycle messages. */
  char *stack_real[PNET_MAX_INCLUDE_DEPTH + 1];
  /* Canonical directory of the main file; includes must resolve below it.
   * NULL when it cannot be resolved: then no include is read. */
  char *root;
  const char *stack_shown[PNET_MAX_INCLUDE_DEPTH + 1];
  int depth;
  char **seen; /* canonical paths of every file read */
  /* The include directive that read net->sources[i]; line 0 for the main file. */
  struct diag_loc included_from[PNET_MAX_SOURCES];
  uint32_t nseen;

  struct pnet_pending_completion *completions;
  uint32_t ncompletions, completions_cap;

  /* Named families; their entries stay in the syntax trees, which are
   * kept until the end because a family may be used after its file. */
  const struct pnet_item **families;
  uint32_t nfamilies, families_cap;
  struct pnet_decl **trees;
  uint32_t ntrees;

  bool named;
  struct diag_loc name_loc;
  uint64_t iterations;
  unsigned errors;
  bool stop;
};

/* A linear form sum(coef * place) + k, the value of any .pnet expression. */
struct pnet_term {
  uint32_t place;
  int64_t coef;
  struct diag_loc loc; /* first mention */
};

struct pnet_lin {
  struct pnet_term *t;
  uint32_t n, cap;
  int64_t k;
};

/* ---- pnet_lower.c -------------------------------------------------------- */

void lw_error(struct pnet_lower *lw, const struct diag_loc *loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
const struct pnet_binding *lw_binding(const struct pnet_lower *lw, const char *name, size_t len);
void lw_decls(struct pnet_lower *lw, const struct pnet_decl *d);
int lw_expand(struct pnet_lower *lw, const char *tmpl, const struct diag_loc *loc, char *out);
int lw_grow(void **array, uint32_t *cap, uint32_t need, size_t elem);
void lw_include_notes(const struct pnet_lower *lw, const struct diag_loc *loc);
const char *lw_kind_text(enum pnet_sym_kind kind);
void lw_oom(struct pnet_lower *lw, const struct diag_loc *loc);
void lw_unknown(struct pnet_lower *lw, const char *name, const struct diag_loc *loc);
/* Runs body once per entry of a loop, with the loop's variables bound;
 * body returns false to stop early. */
typedef bool (*lw_body_fn)(struct pnet_lower *lw, void *arg);
void lw_loop(struct pnet_lower *lw, const struct pnet_loop *loop, const char *what, lw_body_fn body,
             void *arg);

/* ---- pnet_eval.c --------------------------------------------------------- */

int lin_add(struct pnet_lower *lw, struct pnet_lin *dst, const struct pnet_lin *src, int64_t factor,
            const struct diag_loc *oploc);
void lin_free(struct pnet_lin *l);
int lw_const(struct pnet_lower *lw, const struct pnet_expr *e, const char *what, int64_t *value);
int lw_eval(struct pnet_lower *lw, const struct pnet_expr *e, struct pnet_lin *out);

/* ---- pnet_include.c ------------------------------------------------------ */

void lw_file(struct pnet_lower *lw, const char *path, const char *text, size_t len,
             const struct diag_loc *from);
void lw_include(struct pnet_lower *lw, const struct pnet_decl *d);

#endif
