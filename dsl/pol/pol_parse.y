/* pol_parse: the grammar of the .pol policy language (docs/pol-language.md).
 *
 * A pure parser over the reentrant scanner in pol_lex.l. It only builds
 * the syntax tree (pol_ast.h); names are looked up later (pol_resolve.c).
 * Every semantic type has a %destructor, so a syntax error in the middle
 * of a profile frees everything parsed so far. Limits on list lengths and
 * expression depth are enforced in the actions below. */
%define api.pure full
%define api.prefix {pol_yy}
%define parse.error detailed
%locations
%lex-param {yyscan_t scanner}
%parse-param {yyscan_t scanner} {struct pol_parse_state *st}

%code requires {
#include <stdint.h>
#include "pol_ast.h"
typedef void *yyscan_t;
struct pol_parse_state;
struct pol_quantity {
  uint64_t value;
  enum pol_unit_kind unit;
};
}

%code {
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pol_parse_state.h"

int pol_yylex(POL_YYSTYPE *lval, POL_YYLTYPE *lloc, yyscan_t scanner);
static void pol_yyerror(POL_YYLTYPE *lloc, yyscan_t scanner, struct pol_parse_state *st, const char *msg);

static struct diag_loc L(const struct pol_parse_state *st, const POL_YYLTYPE *l) {
  struct diag_loc loc = {st->src, l->first_line, l->first_column};
  return loc;
}

/* Takes ownership of text. */
static struct pol_name *name_new(char *text, struct diag_loc loc) {
  struct pol_name *n = calloc(1, sizeof *n);
  if (!n) {
    free(text);
    return NULL;
  }
  n->text = text;
  n->loc = loc;
  return n;
}

static void name_del(struct pol_name *n) {
  if (!n) return;
  pol_name_free(n);
  free(n);
}

static void names_del(struct pol_names *l) {
  if (!l) return;
  pol_names_free(l);
  free(l);
}

static void stmts_del(struct pol_stmts *l) {
  if (!l) return;
  pol_stmts_free(l);
  free(l);
}

static void items_del(struct pol_items *l) {
  if (!l) return;
  pol_items_free(l);
  free(l);
}

static void action_del(struct pol_action *a) {
  if (!a) return;
  pol_action_free(a);
  free(a);
}

static void term_del(struct pol_term *t) {
  if (!t) return;
  pol_term_free(t);
  free(t);
}

static void entry_del(struct pol_path_entry *e) {
  if (!e) return;
  pol_path_entry_free(e);
  free(e);
}

/* Reports an append failure (list too long or out of memory) at loc. */
static void list_error(const struct diag_loc *loc, int rc) {
  if (rc == -E2BIG)
    diag_error(loc, "list longer than %d items", POL_MAX_LIST);
  else
    diag_error(loc, "out of memory");
}

/* Prints an error at loc and stops the parse. Bison does not run the
 * destructors of the symbols of the rule whose action says YYERROR, so
 * every action frees its own right-hand side (and $$) before using these. */
#define OOM(loc)                                  \
  do {                                            \
    struct diag_loc oom_loc_ = L(st, &(loc));     \
    diag_error(&oom_loc_, "out of memory");       \
    YYERROR;                                      \
  } while (0)

#define LIST_FAIL(rc, loc)                        \
  do {                                            \
    struct diag_loc list_loc_ = L(st, &(loc));    \
    list_error(&list_loc_, (rc));                 \
    YYERROR;                                      \
  } while (0)

/* Expressions nest at most POL_MAX_EXPR_DEPTH deep: the later stages
 * recurse over them. */
#define CHECK_DEPTH(e, loc)                                                          \
  do {                                                                               \
    if ((e)->depth > POL_MAX_EXPR_DEPTH || (e)->ncmp > POL_MAX_COND_CMPS) {          \
      struct diag_loc depth_loc_ = L(st, &(loc));                                    \
      bool deep_ = (e)->depth > POL_MAX_EXPR_DEPTH;                                  \
      pol_expr_free(e);                                                              \
      if (deep_)                                                                     \
        diag_error(&depth_loc_, "condition nested deeper than %d", POL_MAX_EXPR_DEPTH); \
      else                                                                           \
        diag_error(&depth_loc_, "condition has more than %d comparisons", POL_MAX_COND_CMPS); \
      YYERROR;                                                                       \
    }                                                                                \
  } while (0)
}

%union {
  char *str;
  uint64_t num;
  struct pol_quantity qty;
  int op;
  struct pol_name *name;
  struct pol_names *names;
  struct pol_term *term;
  struct pol_value *value;
  struct pol_expr *expr;
  struct pol_action *action;
  struct pol_stmt *stmt;
  struct pol_stmts *stmts;
  struct pol_path_entry *pentry;
  struct pol_path_block *pblock;
  struct pol_item *item;
  struct pol_items *items;
  struct pol_decl *decl;
}

%token INCLUDE "include" CONST "const" GROUP_KW "group" PROFILE "profile" ROUTE "route" ALIAS "alias"
%token EXTENDS "extends" SYSCALLS "syscalls" DEFAULT "default" IF "if" APPROVE "approve"
%token ALLOWED_PATHS "allowedPaths" DENIED_PATHS "deniedPaths" RULE "rule"
%token ANDAND "&&" OROR "||" EQ "==" NE "!=" LT "<" LE "<=" GT ">" GE ">=" PLUSEQ "+="
%token <str> IDENT "identifier" GROUPNAME "group name" STRING "string"
%token <str> LIBPATH "library path"
%token <num> NUMBER "number"
%token <qty> QUANTITY "quantity"

%type <name> alias_opt extends_opt
%type <names> targets strings strings_opt idents
%type <term> term
%type <value> value
%type <expr> expr cmp cond_opt
%type <action> action
%type <stmt> stmt
%type <stmts> stmts
%type <pentry> path_entry net_entry
%type <pblock> path_block path_entries net_block net_entries
%type <item> item
%type <items> items
%type <decl> decl
%type <op> cmpop

%destructor { free($$); } <str>
%destructor { name_del($$); } <name>
%destructor { names_del($$); } <names>
%destructor { term_del($$); } <term>
%destructor { pol_value_free($$); } <value>
%destructor { pol_expr_free($$); } <expr>
%destructor { action_del($$); } <action>
%destructor { pol_stmt_free($$); } <stmt>
%destructor { stmts_del($$); } <stmts>
%destructor { entry_del($$); } <pentry>
%destructor { pol_path_block_free($$); } <pblock>
%destructor { pol_item_free($$); } <item>
%destructor { items_del($$); } <items>
%destructor { pol_decl_free($$); } <decl>

%left OROR
%left ANDAND
%precedence '!'

%%

file
  : %empty
  | file decl {
      int rc = pol_file_append(st->file, $2);
      if (rc) { pol_decl_free($2); LIST_FAIL(rc, @2); }
    }
  ;

decl
  : INCLUDE STRING ';' {
      $$ = calloc(1, sizeof *$$);
      if (!$$) { free($2); OOM(@1); }
      $$->kind = POL_DECL_INCLUDE;
      $$->loc = L(st, &@1);
      $$->name.text = $2;
      $$->name.loc = L(st, &@2);
    }
  | INCLUDE LIBPATH ';' {
      $$ = calloc(1, sizeof *$$);
      if (!$$) { free($2); OOM(@1); }
      $$->kind = POL_DECL_INCLUDE;
      $$->library = true;
      $$->loc = L(st, &@1);
      $$->name.text = $2;
      $$->name.loc = L(st, &@2);
    }
  | CONST IDENT '=' value ';' {
      $$ = calloc(1, sizeof *$$);
      if (!$$) { free($2); pol_value_free($4); OOM(@1); }
      $$->kind = POL_DECL_CONST;
      $$->loc = L(st, &@1);
      $$->name.text = $2;
      $$->name.loc = L(st, &@2);
      $$->value = $4;
    }
  | GROUP_KW GROUPNAME '{' targets comma_opt '}' {
      $$ = calloc(1, sizeof *$$);
      if (!$$) { free($2); names_del($4); OOM(@1); }
      $$->kind = POL_DECL_GROUP;
      $$->loc = L(st, &@1);
      $$->name.text = $2;
      $$->name.loc = L(st, &@2);
      $$->members = *$4;
      free($4);
    }
  | PROFILE IDENT alias_opt extends_opt '{' items '}' {
      $$ = calloc(1, sizeof *$$);
      struct pol_profile_decl *p = calloc(1, sizeof *p);
      if (!$$ || !p) { free($$); free(p); free($2); name_del($3); name_del($4); items_del($6); OOM(@1); }
      $$->kind = POL_DECL_PROFILE;
      $$->loc = L(st, &@1);
      $$->profile = p;
      p->loc = L(st, &@1);
      p->name.text = $2;
      p->name.loc = L(st, &@2);
      if ($3) { p->alias = *$3; free($3); }
      if ($4) { p->extends = *$4; free($4); }
      p->body = *$6;
      free($6);
    }
  | ROUTE IDENT '{' items '}' {
      /* Settings only (kind, profile, labels, host, backend, tier, lane),
       * checked in dsl/pol/pol_route.c. */
      $$ = calloc(1, sizeof *$$);
      struct pol_profile_decl *p = calloc(1, sizeof *p);
      if (!$$ || !p) { free($$); free(p); free($2); items_del($4); OOM(@1); }
      $$->kind = POL_DECL_ROUTE;
      $$->loc = L(st, &@1);
      $$->profile = p;
      p->loc = L(st, &@1);
      p->name.text = $2;
      p->name.loc = L(st, &@2);
      p->body = *$4;
      free($4);
    }
  ;

/* `alias NAME` then `extends NAME`, each optional, in that order. */
alias_opt
  : %empty { $$ = NULL; }
  | ALIAS IDENT {
      $$ = name_new($2, L(st, &@2));
      if (!$$) OOM(@1);
    }
  ;

extends_opt
  : %empty { $$ = NULL; }
  | EXTENDS IDENT {
      $$ = name_new($2, L(st, &@2));
      if (!$$) OOM(@1);
    }
  ;

comma_opt: %empty | ',' ;

items
  : %empty {
      $$ = calloc(1, sizeof *$$);
      if (!$$) OOM(@$);
    }
  | items item {
      $$ = $1;
      int rc = pol_items_append($$, $2);
      if (rc) { pol_item_free($2); items_del($$); LIST_FAIL(rc, @2); }
    }
  ;

item
  : IDENT '=' IDENT ';' {
      $$ = calloc(1, sizeof *$$);
      if (!$$) { free($1); free($3); OOM(@1); }
      $$->kind = POL_ITEM_PROP;
      $$->loc = L(st, &@1);
      $$->prop.key.text = $1;
      $$->prop.key.loc = L(st, &@1);
      $$->prop.kind = POL_PROP_IDENT;
      $$->prop.text = $3;
      $$->prop.value_loc = L(st, &@3);
    }
  | PROFILE '=' IDENT ';' {
      /* `profile = NAME;`: a route's match on the requested profile
       * (`profile` is a keyword, so it has its own rule). */
      $$ = calloc(1, sizeof *$$);
      char *key = strdup("profile");
      if (!$$ || !key) { free($$); free(key); free($3); OOM(@1); }
      $$->kind = POL_ITEM_PROP;
      $$->loc = L(st, &@1);
      $$->prop.key.text = key;
      $$->prop.key.loc = L(st, &@1);
      $$->prop.kind = POL_PROP_IDENT;
      $$->prop.text = $3;
      $$->prop.value_loc = L(st, &@3);
    }
  | IDENT '=' STRING ';' {
      $$ = calloc(1, sizeof *$$);
      if (!$$) { free($1); free($3); OOM(@1); }
      $$->kind = POL_ITEM_PROP;
      $$->loc = L(st, &@1);
      $$->prop.key.text = $1;
      $$->prop.key.loc = L(st, &@1);
      $$->prop.kind = POL_PROP_STRING;
      $$->prop.text = $3;
      $$->prop.value_loc = L(st, &@3);
    }
  | IDENT '=' NUMBER ';' {
      $$ = calloc(1, sizeof *$$);
      if (!$$) { free($1); OOM(@1); }
      $$->kind = POL_ITEM_PROP;
      $$->loc = L(st, &@1);
      $$->prop.key.text = $1;
      $$->prop.key.loc = L(st, &@1);
      $$->prop.kind = POL_PROP_NUMBER;
      $$->prop.number = $3;
      $$->prop.value_loc = L(st, &@3);
    }
  | IDENT '=' QUANTITY ';' {
      $$ = calloc(1, sizeof *$$);
      if (!$$) { free($1); OOM(@1); }
      $$->kind = POL_ITEM_PROP;
      $$->loc = L(st, &@1);
      $$->prop.key.text = $1;
      $$->prop.key.loc = L(st, &@1);
      $$->prop.kind = POL_PROP_QUANTITY;
      $$->prop.number = $3.value;
      $$->prop.unit = $3.unit;
      $$->prop.value_loc = L(st, &@3);
    }
  | IDENT '=' '[' strings_opt ']' ';' {
      /* A list setting (homeReadOnly, homePersistent): replaces the
       * parent's list; `[ ]` empties it. */
      $$ = calloc(1, sizeof *$$);
      if (!$$) { free($1); names_del($4); OOM(@1); }
      $$->kind = POL_ITEM_PROP;
      $$->loc = L(st, &@1);
      $$->prop.key.text = $1;
      $$->prop.key.loc = L(st, &@1);
      $$->prop.kind = POL_PROP_LIST;
      $$->prop.list = *$4;
      free($4);
      $$->prop.value_loc = L(st, &@3);
    }
  | IDENT PLUSEQ '[' strings ']' ';' {
      $$ = calloc(1, sizeof *$$);
      if (!$$) { free($1); names_del($4); OOM(@1); }
      $$->kind = POL_ITEM_PROP;
      $$->loc = L(st, &@1);
      $$->prop.key.text = $1;
      $$->prop.key.loc = L(st, &@1);
      $$->prop.kind = POL_PROP_LIST;
      $$->prop.list = *$4;
      $$->prop.append = true;
      free($4);
      $$->prop.value_loc = L(st, &@3);
    }
  | ALLOWED_PATHS path_block {
      $$ = calloc(1, sizeof *$$);
      if (!$$) { pol_path_block_free($2); OOM(@1); }
      $$->kind = POL_ITEM_ALLOWED_PATHS;
      $$->loc = L(st, &@1);
      $$->paths = $2;
    }
  | DENIED_PATHS path_block {
      $$ = calloc(1, sizeof *$$);
      if (!$$) { pol_path_block_free($2); OOM(@1); }
      $$->kind = POL_ITEM_DENIED_PATHS;
      $$->loc = L(st, &@1);
      $$->paths = $2;
    }
  | APPROVE idents ';' {
      $$ = calloc(1, sizeof *$$);
      if (!$$) { names_del($2); OOM(@1); }
      $$->kind = POL_ITEM_APPROVE;
      $$->loc = L(st, &@1);
      $$->approve = *$2;
      free($2);
    }
  | SYSCALLS '{' stmts '}' {
      $$ = calloc(1, sizeof *$$);
      if (!$$) { stmts_del($3); OOM(@1); }
      $$->kind = POL_ITEM_SYSCALLS;
      $$->loc = L(st, &@1);
      $$->stmts = *$3;
      free($3);
    }
  | IDENT net_block {
      /* A named block (`network { via proxy; allow "x.example.com"; }`);
       * its name is checked in dsl/pol/pol_settings.c, its body in
       * dsl/pol/pol_network.c. */
      $$ = calloc(1, sizeof *$$);
      if (!$$) { free($1); pol_path_block_free($2); OOM(@1); }
      $$->kind = POL_ITEM_BLOCK;
      $$->loc = L(st, &@1);
      $$->rule_name.text = $1;
      $$->rule_name.loc = L(st, &@1);
      $$->paths = $2;
    }
  | RULE STRING IDENT IDENT path_block {
      /* A command-level approval rule (docs/approvals.md); its body has
       * the shape of a path block (`key "text", ...;`) and is checked in
       * dsl/pol_cmdrule.c. */
      $$ = calloc(1, sizeof *$$);
      if (!$$) { free($2); free($3); free($4); pol_path_block_free($5); OOM(@1); }
      $$->kind = POL_ITEM_RULE;
      $$->loc = L(st, &@1);
      $$->rule_name.text = $2;
      $$->rule_name.loc = L(st, &@2);
      $$->rule_action.text = $3;
      $$->rule_action.loc = L(st, &@3);
      $$->rule_op.text = $4;
      $$->rule_op.loc = L(st, &@4);
      $$->paths = $5;
    }
  ;

path_block
  : '{' path_entries '}' { $$ = $2; $$->loc = L(st, &@1); }
  | PLUSEQ '{' path_entries '}' { $$ = $3; $$->append = true; $$->loc = L(st, &@1); }
  ;

path_entries
  : %empty {
      $$ = calloc(1, sizeof *$$);
      if (!$$) OOM(@$);
    }
  | path_entries path_entry {
      $$ = $1;
      int rc = pol_path_block_append($$, $2);
      if (rc) { entry_del($2); pol_path_block_free($$); LIST_FAIL(rc, @2); }
      free($2);
    }
  ;

path_entry
  : IDENT strings ';' {
      $$ = calloc(1, sizeof *$$);
      if (!$$) { free($1); names_del($2); OOM(@1); }
      $$->access.text = $1;
      $$->access.loc = L(st, &@1);
      $$->paths = *$2;
      free($2);
    }
  ;

net_block
  : '{' net_entries '}' { $$ = $2; $$->loc = L(st, &@1); }
  | PLUSEQ '{' net_entries '}' { $$ = $3; $$->append = true; $$->loc = L(st, &@1); }
  ;

net_entries
  : %empty {
      $$ = calloc(1, sizeof *$$);
      if (!$$) OOM(@$);
    }
  | net_entries net_entry {
      $$ = $1;
      int rc = pol_path_block_append($$, $2);
      if (rc) { entry_del($2); pol_path_block_free($$); LIST_FAIL(rc, @2); }
      free($2);
    }
  ;

/* `allow "a", "b";` or `via proxy;` */
net_entry
  : path_entry { $$ = $1; }
  | IDENT IDENT ';' {
      $$ = calloc(1, sizeof *$$);
      struct pol_name n = {$2, L(st, &@2)};
      if (!$$) { free($1); free($2); OOM(@1); }
      $$->access.text = $1;
      $$->access.loc = L(st, &@1);
      $$->bare = true;
      int rc = pol_names_append(&$$->paths, &n);
      if (rc) { free($2); entry_del($$); LIST_FAIL(rc, @2); }
    }
  ;

strings
  : STRING {
      $$ = calloc(1, sizeof *$$);
      struct pol_name n = {$1, L(st, &@1)};
      if (!$$) { free($1); OOM(@1); }
      int rc = pol_names_append($$, &n);
      if (rc) { free($1); names_del($$); LIST_FAIL(rc, @1); }
    }
  | strings ',' STRING {
      $$ = $1;
      struct pol_name n = {$3, L(st, &@3)};
      int rc = pol_names_append($$, &n);
      if (rc) { free($3); names_del($$); LIST_FAIL(rc, @3); }
    }
  ;

strings_opt
  : %empty {
      $$ = calloc(1, sizeof *$$);
      if (!$$) OOM(@$);
    }
  | strings comma_opt { $$ = $1; }
  ;

idents
  : IDENT {
      $$ = calloc(1, sizeof *$$);
      struct pol_name n = {$1, L(st, &@1)};
      if (!$$) { free($1); OOM(@1); }
      int rc = pol_names_append($$, &n);
      if (rc) { free($1); names_del($$); LIST_FAIL(rc, @1); }
    }
  | idents ',' IDENT {
      $$ = $1;
      struct pol_name n = {$3, L(st, &@3)};
      int rc = pol_names_append($$, &n);
      if (rc) { free($3); names_del($$); LIST_FAIL(rc, @3); }
    }
  ;

stmts
  : %empty {
      $$ = calloc(1, sizeof *$$);
      if (!$$) OOM(@$);
    }
  | stmts stmt {
      $$ = $1;
      int rc = pol_stmts_append($$, $2);
      if (rc) { pol_stmt_free($2); stmts_del($$); LIST_FAIL(rc, @2); }
    }
  ;

stmt
  : DEFAULT action ';' {
      $$ = calloc(1, sizeof *$$);
      if (!$$) { action_del($2); OOM(@1); }
      $$->kind = POL_STMT_DEFAULT;
      $$->loc = L(st, &@1);
      $$->action = *$2;
      free($2);
    }
  | action targets cond_opt ';' {
      $$ = calloc(1, sizeof *$$);
      if (!$$) { action_del($1); names_del($2); pol_expr_free($3); OOM(@1); }
      $$->kind = POL_STMT_RULE;
      $$->loc = L(st, &@1);
      $$->action = *$1;
      free($1);
      $$->targets = *$2;
      free($2);
      $$->cond = $3;
    }
  ;

action
  : IDENT {
      $$ = calloc(1, sizeof *$$);
      if (!$$) { free($1); OOM(@1); }
      $$->name.text = $1;
      $$->name.loc = L(st, &@1);
    }
  | IDENT '(' term ')' {
      $$ = calloc(1, sizeof *$$);
      if (!$$) { free($1); term_del($3); OOM(@1); }
      $$->name.text = $1;
      $$->name.loc = L(st, &@1);
      $$->has_arg = true;
      $$->arg = *$3;
      free($3);
    }
  ;

targets
  : IDENT {
      $$ = calloc(1, sizeof *$$);
      struct pol_name n = {$1, L(st, &@1)};
      if (!$$) { free($1); OOM(@1); }
      int rc = pol_names_append($$, &n);
      if (rc) { free($1); names_del($$); LIST_FAIL(rc, @1); }
    }
  | GROUPNAME {
      $$ = calloc(1, sizeof *$$);
      struct pol_name n = {$1, L(st, &@1)};
      if (!$$) { free($1); OOM(@1); }
      int rc = pol_names_append($$, &n);
      if (rc) { free($1); names_del($$); LIST_FAIL(rc, @1); }
    }
  | targets ',' IDENT {
      $$ = $1;
      struct pol_name n = {$3, L(st, &@3)};
      int rc = pol_names_append($$, &n);
      if (rc) { free($3); names_del($$); LIST_FAIL(rc, @3); }
    }
  | targets ',' GROUPNAME {
      $$ = $1;
      struct pol_name n = {$3, L(st, &@3)};
      int rc = pol_names_append($$, &n);
      if (rc) { free($3); names_del($$); LIST_FAIL(rc, @3); }
    }
  ;

cond_opt
  : %empty { $$ = NULL; }
  | IF expr { $$ = $2; }
  ;

expr
  : cmp { $$ = $1; }
  | '(' expr ')' { $$ = $2; }
  | '!' expr {
      $$ = pol_expr_new_bin(POL_EXPR_NOT, $2, NULL, L(st, &@1));
      if (!$$) { pol_expr_free($2); OOM(@1); }
      CHECK_DEPTH($$, @1);
    }
  | expr ANDAND expr {
      $$ = pol_expr_new_bin(POL_EXPR_AND, $1, $3, L(st, &@2));
      if (!$$) { pol_expr_free($1); pol_expr_free($3); OOM(@2); }
      CHECK_DEPTH($$, @2);
    }
  | expr OROR expr {
      $$ = pol_expr_new_bin(POL_EXPR_OR, $1, $3, L(st, &@2));
      if (!$$) { pol_expr_free($1); pol_expr_free($3); OOM(@2); }
      CHECK_DEPTH($$, @2);
    }
  ;

cmp
  : IDENT cmpop value {
      struct pol_name arg = {$1, L(st, &@1)};
      $$ = pol_expr_new_cmp(&arg, NULL, (enum pol_cmp_op)$2, $3, L(st, &@1));
      if (!$$) { free($1); pol_value_free($3); OOM(@1); }
    }
  | '(' IDENT '&' value ')' cmpop value {
      struct pol_name arg = {$2, L(st, &@2)};
      $$ = pol_expr_new_cmp(&arg, $4, (enum pol_cmp_op)$6, $7, L(st, &@1));
      if (!$$) { free($2); pol_value_free($4); pol_value_free($7); OOM(@1); }
    }
  ;

cmpop
  : EQ { $$ = POL_OP_EQ; }
  | NE { $$ = POL_OP_NE; }
  | LT { $$ = POL_OP_LT; }
  | LE { $$ = POL_OP_LE; }
  | GT { $$ = POL_OP_GT; }
  | GE { $$ = POL_OP_GE; }
  ;

value
  : term {
      $$ = pol_value_new(L(st, &@1));
      if (!$$) { term_del($1); OOM(@1); }
      int rc = pol_value_append($$, $1);
      if (rc) { term_del($1); pol_value_free($$); LIST_FAIL(rc, @1); }
      free($1);
    }
  | value '|' term {
      $$ = $1;
      int rc = pol_value_append($$, $3);
      if (rc) { term_del($3); pol_value_free($$); LIST_FAIL(rc, @3); }
      free($3);
    }
  ;

term
  : NUMBER {
      $$ = calloc(1, sizeof *$$);
      if (!$$) OOM(@1);
      $$->number = $1;
      $$->loc = L(st, &@1);
    }
  | '-' NUMBER {
      $$ = calloc(1, sizeof *$$);
      if (!$$) OOM(@1);
      $$->number = $2;
      $$->negative = true;
      $$->loc = L(st, &@1);
    }
  | IDENT {
      $$ = calloc(1, sizeof *$$);
      if (!$$) { free($1); OOM(@1); }
      $$->is_name = true;
      $$->name = $1;
      $$->loc = L(st, &@1);
    }
  ;

%%

static void pol_yyerror(POL_YYLTYPE *lloc, yyscan_t scanner, struct pol_parse_state *st, const char *msg) {
  (void)scanner;
  struct diag_loc loc = L(st, lloc);
  diag_error(&loc, "%s", msg);
}
