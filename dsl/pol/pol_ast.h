/* pol_ast: the syntax tree of one .pol file, as the parser builds it.
 *
 * The tree is purely syntactic: names are not yet looked up, inheritance
 * is not resolved. Every node carries the location of its first token so
 * later stages (pol_resolve, pol_lower) can point a caret at it. Every
 * node type has a *_free that accepts NULL; the parser's %destructor
 * directives call them so a syntax error leaks nothing. */
#ifndef CS_DSL_POL_AST_H
#define CS_DSL_POL_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

/* Limits enforced while parsing (docs/pol-language.md, "Limits"). They
 * bound memory and recursion for hostile input; real policies stay far
 * below them. */
#define POL_MAX_INCLUDE_DEPTH 8
#define POL_MAX_EXPR_DEPTH 32 /* nesting of ( ), ! and alternations of && and || */
#define POL_MAX_COND_CMPS 256 /* comparisons in one condition */
#define POL_MAX_LIST 4096     /* items in one list (names, paths, statements) */
#define POL_MAX_STRING 4096   /* bytes in one string literal */
#define POL_MAX_IDENT 64      /* bytes in one identifier */
#define POL_MAX_FILE_BYTES (1u << 20)
#define POL_MAX_DNF_CLAUSES 64 /* clauses of one condition after expansion */
#define POL_MAX_DNF_CONDS 16   /* comparisons in one clause */
#define POL_MAX_NET_RULES                                                                          \
  1024 /* allow, deny or local rules of one profile, inherited ones included */
#define POL_MAX_NET_PATTERN                                                                        \
  272 /* bytes of one network pattern: "**." + a 253-byte name + ":65535" */

/* A name as written, with where it was written. */
struct pol_name {
  char *text;
  struct diag_loc loc;
};

struct pol_names {
  struct pol_name *items;
  size_t n, cap;
};

/* A constant value: terms OR-ed together (`CLONE_NEWNS | CLONE_NEWUSER`). */
struct pol_term {
  bool is_name;
  bool negative; /* `-1`: two's complement of the number */
  uint64_t number;
  char *name;
  struct diag_loc loc;
};

struct pol_value {
  struct pol_term *terms;
  size_t n, cap;
  struct diag_loc loc;
};

enum pol_cmp_op { POL_OP_EQ, POL_OP_NE, POL_OP_LT, POL_OP_LE, POL_OP_GT, POL_OP_GE };

enum pol_expr_kind { POL_EXPR_CMP, POL_EXPR_AND, POL_EXPR_OR, POL_EXPR_NOT };

struct pol_expr {
  enum pol_expr_kind kind;
  struct diag_loc loc;
  int depth; /* nesting depth of this subtree, bounded by POL_MAX_EXPR_DEPTH; a chain
              * of one operator (a || b || c) counts once */
  int ncmp;  /* comparisons in this subtree, bounded by POL_MAX_COND_CMPS */
  /* POL_EXPR_CMP: [ (arg & mask) | arg ] op value */
  struct pol_name arg;
  struct pol_value *mask; /* NULL: plain comparison */
  enum pol_cmp_op op;
  struct pol_value *value;
  /* AND / OR: lhs, rhs; NOT: lhs */
  struct pol_expr *lhs, *rhs;
};

/* An action as written: `allow`, `errno(EPERM)`, `kill-process`, ... */
struct pol_action {
  struct pol_name name;
  bool has_arg;
  struct pol_term arg; /* errno / trace data, a number or a name */
};

/* One statement of a syscalls block. */
enum pol_stmt_kind { POL_STMT_RULE, POL_STMT_DEFAULT };

struct pol_stmt {
  enum pol_stmt_kind kind;
  struct diag_loc loc;
  struct pol_action action;
  struct pol_names targets; /* syscall names and @groups */
  struct pol_expr *cond;    /* NULL: unconditional */
};

struct pol_stmts {
  struct pol_stmt **items;
  size_t n, cap;
};

/* A path entry: `read "/usr", "/etc";`; in a network block also
 * `allow "a.example.com", "b.example.com";` and, with bare set, `via proxy;`
 * (paths then holds the one identifier). */
struct pol_path_entry {
  struct pol_name access; /* read, write, execute, all; network: via, rest, allow, deny, local */
  struct pol_names paths; /* the strings, quotes removed */
  bool bare;              /* the value was an identifier, not strings (network blocks only) */
};

struct pol_path_block {
  bool append; /* `+=`: add to the parent's list instead of replacing it */
  struct diag_loc loc;
  struct pol_path_entry *entries;
  size_t n, cap;
};

/* `name = value;` */
enum pol_prop_kind {
  POL_PROP_IDENT,
  POL_PROP_STRING,
  POL_PROP_NUMBER,
  POL_PROP_QUANTITY,
  POL_PROP_LIST, /* `name = [ "a", "b" ];` or `name += [ ... ];` */
};

/* Units of a quantity literal: `30s`, `512MiB`. */
enum pol_unit_kind { POL_UNIT_NONE, POL_UNIT_TIME_MS, POL_UNIT_BYTES };

struct pol_prop {
  struct pol_name key;
  enum pol_prop_kind kind;
  char *text;      /* IDENT or STRING */
  uint64_t number; /* NUMBER, or QUANTITY already scaled (ms or bytes) */
  enum pol_unit_kind unit;
  struct pol_names list; /* LIST: the strings, quotes removed */
  bool append;           /* LIST written with `+=`: add to the parent's list */
  struct diag_loc value_loc;
};

enum pol_item_kind {
  POL_ITEM_PROP,
  POL_ITEM_ALLOWED_PATHS,
  POL_ITEM_DENIED_PATHS,
  POL_ITEM_APPROVE,
  POL_ITEM_SYSCALLS,
  POL_ITEM_RULE, /* rule "name" ACTION OPERATION { key "value", ...; ... } (paths holds the body) */
  POL_ITEM_BLOCK, /* NAME { ... } or NAME += { ... }: `network` (rule_name: NAME; paths: the body) */
};

struct pol_item {
  enum pol_item_kind kind;
  struct diag_loc loc;
  struct pol_prop prop;
  struct pol_path_block *paths;
  struct pol_names approve;
  struct pol_stmts stmts;
  struct pol_name rule_name, rule_action, rule_op; /* POL_ITEM_RULE */
};

struct pol_items {
  struct pol_item **items;
  size_t n, cap;
};

struct pol_profile_decl {
  struct pol_name name;
  struct pol_name alias;   /* text NULL when absent */
  struct pol_name extends; /* text NULL when absent */
  struct pol_items body;
  struct diag_loc loc;
};

/* A route (`route NAME { ... }`) is kept as a profile declaration without
 * alias or parent: a name and a body of settings (dsl/pol/pol_route.c). */
enum pol_decl_kind {
  POL_DECL_INCLUDE,
  POL_DECL_CONST,
  POL_DECL_GROUP,
  POL_DECL_PROFILE,
  POL_DECL_ROUTE
};

struct pol_decl {
  enum pol_decl_kind kind;
  struct diag_loc loc;
  struct pol_name name;     /* include: the path string; const/group: the name */
  bool library;             /* include <NAME>: searched in the library directory only */
  struct pol_value *value;  /* const */
  struct pol_names members; /* group */
  struct pol_profile_decl *profile;
};

/* The declarations of one file, in source order. */
struct pol_file {
  struct pol_decl **decls;
  size_t n, cap;
};

/* Constructors return NULL on allocation failure (the parser reports it);
 * appenders return 0, -ENOMEM or -E2BIG (POL_MAX_LIST reached). */
void pol_name_free(struct pol_name *n);
void pol_names_free(struct pol_names *l);
int pol_names_append(struct pol_names *l, struct pol_name *item);

struct pol_value *pol_value_new(struct diag_loc loc);
int pol_value_append(struct pol_value *v, struct pol_term *t);
void pol_value_free(struct pol_value *v);
void pol_term_free(struct pol_term *t);

struct pol_expr *pol_expr_new_cmp(struct pol_name *arg, struct pol_value *mask, enum pol_cmp_op op,
                                  struct pol_value *value, struct diag_loc loc);
struct pol_expr *pol_expr_new_bin(enum pol_expr_kind kind, struct pol_expr *lhs,
                                  struct pol_expr *rhs, struct diag_loc loc);
void pol_expr_free(struct pol_expr *e);

void pol_action_free(struct pol_action *a);
void pol_stmt_free(struct pol_stmt *s);
int pol_stmts_append(struct pol_stmts *l, struct pol_stmt *s);
void pol_stmts_free(struct pol_stmts *l);

void pol_path_block_free(struct pol_path_block *b);
int pol_path_block_append(struct pol_path_block *b, struct pol_path_entry *e);
void pol_path_entry_free(struct pol_path_entry *e);

void pol_prop_free(struct pol_prop *p);
void pol_item_free(struct pol_item *it);
int pol_items_append(struct pol_items *l, struct pol_item *it);
void pol_items_free(struct pol_items *l);

void pol_profile_decl_free(struct pol_profile_decl *p);
void pol_decl_free(struct pol_decl *d);
int pol_file_append(struct pol_file *f, struct pol_decl *d);
void pol_file_free(struct pol_file *f);

#endif
