/* pnet_ast: the syntax tree the .pnet parser builds for one source file.
 *
 * Names are kept as templates (they may contain ${var} pieces that only a
 * family loop can fill in) and expressions are kept unevaluated, because
 * their meaning depends on the loop iteration; pnet_lower.c resolves both.
 * Internal to the front end. */
#ifndef CS_DSL_PNET_AST_H
#define CS_DSL_PNET_AST_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "pn_net.h"

enum pnet_expr_kind {
  PNET_EXPR_INT,
  PNET_EXPR_NAME, /* constant, loop variable or place, decided when lowering */
  PNET_EXPR_NEG,
  PNET_EXPR_ADD,
  PNET_EXPR_SUB,
  PNET_EXPR_MUL,
  PNET_EXPR_DIV,
  PNET_EXPR_MOD,
  PNET_EXPR_SUM, /* sum(loop: lhs) */
};

struct pnet_loop;

struct pnet_expr {
  enum pnet_expr_kind kind;
  int64_t value;         /* PNET_EXPR_INT */
  char *name;            /* PNET_EXPR_NAME: a name template */
  struct pnet_expr *lhs; /* operand of NEG, left of binary operators, body of SUM */
  struct pnet_expr *rhs;
  struct pnet_loop *loop; /* PNET_EXPR_SUM */
  int depth;              /* 1 for a leaf; bounded by PNET_MAX_EXPR_DEPTH */
  struct diag_loc loc;    /* the operator, or the leaf itself */
};

/* lhs rel rhs; a list of them is a conjunction. */
struct pnet_cons {
  struct pnet_expr *lhs, *rhs;
  enum pn_rel rel;
  struct diag_loc loc;
  struct pnet_cons *next;
};

/* One entry of a family list { key: value, ... }; value may be NULL. */
struct pnet_item {
  char *key;
  struct pnet_expr *value;
  struct diag_loc loc;
  struct pnet_item *next;
};

/* What a for loop or a sum runs over:
 *   VAR in { a, b }          items, no value_var
 *   VAR, VALUE in { a: 1 }   items and value_var
 *   VAR [, VALUE] in FAMILY  family
 *   VAR in LO .. HI          lo, hi */
struct pnet_loop {
  char *var;
  struct diag_loc var_loc;
  char *value_var; /* or NULL */
  struct diag_loc value_var_loc;
  struct pnet_item *items;
  char *family;
  struct diag_loc family_loc;
  struct pnet_expr *lo, *hi;
};

enum pnet_decl_kind {
  PNET_DECL_NET,
  PNET_DECL_CONST,
  PNET_DECL_PLACE,
  PNET_DECL_TRANSITION,
  PNET_DECL_ASSERT,
  PNET_DECL_FOR,
  PNET_DECL_FAMILY,
  PNET_DECL_LET,
  PNET_DECL_INCLUDE,
};

/* Optional parts of a place declaration, each allowed once. */
struct pnet_place_attrs {
  enum pn_place_role role;
  struct diag_loc role_loc;
  struct pnet_expr *capacity;
  struct pnet_expr *initial;
};

struct pnet_decl {
  enum pnet_decl_kind kind;
  struct diag_loc loc; /* the keyword that starts the declaration */
  struct pnet_decl *next;

  char *name; /* NET, CONST, FAMILY, PLACE, TRANSITION: a template; LET: plain */
  struct diag_loc name_loc;

  struct pnet_expr *value;        /* CONST, LET */
  struct pnet_place_attrs *attrs; /* PLACE, never NULL */

  enum pn_transition_kind tkind; /* TRANSITION */
  struct pnet_expr *pre, *post;  /* TRANSITION: linear sums of places */
  char *completion;              /* TRANSITION: explicit 'completion NAME', or NULL */
  struct diag_loc completion_loc;

  enum pn_assert_kind akind; /* ASSERT */
  struct pnet_cons *cons;    /* ASSERT: NULL for 'no deadlock' */

  struct pnet_item *items; /* FAMILY */
  struct pnet_loop *loop;  /* FOR */
  struct pnet_decl *body;  /* FOR */

  char *path; /* INCLUDE, as written */
};

struct pnet_expr *pnet_expr_int(int64_t value, struct diag_loc loc);
struct pnet_expr *pnet_expr_name(char *name, struct diag_loc loc);
/* Takes ownership of the operands; on allocation failure frees them and
 * returns NULL. rhs is NULL for PNET_EXPR_NEG. */
struct pnet_expr *pnet_expr_op(enum pnet_expr_kind kind, struct pnet_expr *lhs,
                               struct pnet_expr *rhs, struct diag_loc loc);
void pnet_expr_free(struct pnet_expr *e);

struct pnet_cons *pnet_cons_new(struct pnet_expr *lhs, enum pn_rel rel, struct pnet_expr *rhs,
                                struct diag_loc loc);
/* Takes ownership of the loop and the body. */
struct pnet_expr *pnet_expr_sum(struct pnet_loop *loop, struct pnet_expr *body,
                                struct diag_loc loc);
void pnet_loop_free(struct pnet_loop *loop);
void pnet_cons_free(struct pnet_cons *c);
void pnet_item_free(struct pnet_item *it);
void pnet_attrs_free(struct pnet_place_attrs *a);
struct pnet_decl *pnet_decl_new(enum pnet_decl_kind kind, struct diag_loc loc);
void pnet_decl_free(struct pnet_decl *d); /* frees the whole list from d */

#endif
