/* pnet_parser: pure LALR(1) grammar of the .pnet language
 * (docs/pnet-language.md). Builds a pnet_ast per file; every semantic value
 * has a %destructor, so a syntax error anywhere frees what was built. Limits
 * on nesting and list sizes are checked here, while parsing, so later passes
 * can recurse without a second guard. */
%define api.pure full
%define api.prefix {pnet_yy}
%define parse.error custom
%define parse.lac full
%locations
%param {void *scanner}
%parse-param {struct pnet_parse *pp}

%code requires {
#include <stdint.h>
#include "pnet_ast.h"
struct pnet_parse;
}

%code {
#include "pnet_parse.h"
#include "pnet_limits.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pnet_yylex(PNET_YYSTYPE *lval, PNET_YYLTYPE *lloc, void *scanner);
static void pnet_yyerror(PNET_YYLTYPE *loc, void *scanner, struct pnet_parse *pp, const char *msg);

#define LOC(l) pnet_loc(pp, (l).first_line, (l).first_column)

/* Bison reports a full stack and a failed allocation alike, as "memory
 * exhausted"; the flag tells them apart. The stack only fills up on input
 * nested far past every other limit (a long run of unary minus signs),
 * so the bound below is both generous and small. */
#define YYMAXDEPTH 1000
#define NOMEM             \
  do {                    \
    pp->out_of_memory = 1; \
    YYNOMEM;              \
  } while (0)
#define ERROR_AT(l, ...) pnet_parse_error(pp, (l).first_line, (l).first_column, __VA_ARGS__)

/* Lists are built backwards (prepend is O(1)) and turned around once. */
static struct pnet_decl *pnet_decl_reverse(struct pnet_decl *d) {
  struct pnet_decl *out = NULL;
  while (d) {
    struct pnet_decl *next = d->next;
    d->next = out;
    out = d;
    d = next;
  }
  return out;
}

static struct pnet_item *pnet_item_reverse(struct pnet_item *it) {
  struct pnet_item *out = NULL;
  while (it) {
    struct pnet_item *next = it->next;
    it->next = out;
    out = it;
    it = next;
  }
  return out;
}

static struct pnet_cons *pnet_cons_reverse(struct pnet_cons *c) {
  struct pnet_cons *out = NULL;
  while (c) {
    struct pnet_cons *next = c->next;
    c->next = out;
    out = c;
    c = next;
  }
  return out;
}

/* Counts a loop whose body is about to be read; the limit bounds the
 * parser's work as well as the expansion. */
#define FOR_ENTER(decl, forloc)                                                                \
  do {                                                                                         \
    if (++pp->for_depth > PNET_MAX_FOR_DEPTH) {                                                \
      ERROR_AT(forloc, "for loops nested too deeply (limit %d)", PNET_MAX_FOR_DEPTH);          \
      pnet_decl_free(decl);                                                                    \
      YYERROR;                                                                                 \
    }                                                                                          \
  } while (0)

/* Takes ownership of the names; frees them when allocation fails. */
static struct pnet_loop *pnet_loop_new(char *var, struct diag_loc var_loc, char *value_var,
                                       struct diag_loc value_var_loc) {
  struct pnet_loop *loop = calloc(1, sizeof *loop);
  if (!loop) {
    free(var);
    free(value_var);
    return NULL;
  }
  loop->var = var;
  loop->var_loc = var_loc;
  loop->value_var = value_var;
  loop->value_var_loc = value_var_loc;
  return loop;
}

/* Binary operator node with the depth limit. */
#define BINOP(res, kind, l, r, oploc)                                                  \
  do {                                                                                 \
    (res) = pnet_expr_op((kind), (l), (r), LOC(oploc));                                \
    if (!(res)) NOMEM;                                                               \
    if ((res)->depth > PNET_MAX_EXPR_DEPTH) {                                          \
      ERROR_AT(oploc, "expression nested too deeply (limit %d)", PNET_MAX_EXPR_DEPTH); \
      pnet_expr_free(res);                                                             \
      YYERROR;                                                                         \
    }                                                                                  \
  } while (0)
}

%union {
  int64_t num;
  char *str;
  int rel;
  enum pn_transition_kind tkind;
  struct pnet_expr *expr;
  struct pnet_cons *cons;
  struct pnet_item *item;
  struct pnet_decl *decl;
  struct pnet_place_attrs *attrs;
  struct pnet_loop *loop;
}

/* Bison pops values on an error; these free them. Values consumed by an
 * action before YYERROR are freed by that action (bison does not). */
%destructor { free($$); } <str>
%destructor { pnet_expr_free($$); } <expr>
%destructor { pnet_cons_free($$); } <cons>
%destructor { pnet_item_free($$); } <item>
%destructor { pnet_decl_free($$); } <decl>
%destructor { pnet_attrs_free($$); } <attrs>
%destructor { pnet_loop_free($$); } <loop>
%destructor { } <num> <rel> <tkind>

%token NET "net" CONST "const" INCLUDE "include" PLACE "place" CAPACITY "capacity"
%token INITIAL_ "initial" SOURCE "source" SINK "sink" ADMISSION "admission"
%token PROGRESS "progress" COMPLETION "completion" FOR "for" IN "in" ASSERT "assert"
%token NO "no" DEADLOCK "deadlock" INVARIANT "invariant" REACHABLE "reachable"
%token UNREACHABLE "unreachable" AND "and" FAMILY "family" SUM "sum" LET "let"
%token ARROW "->" DOTDOT ".." EQ "==" NE "!=" LE "<=" GE ">=" LT "<" GT ">"
%token <str> NAME "name"
%token <str> STRING "string"
%token <num> INT "integer"

%type <decl> decls decl body body_decl let_decl place_decl transition_decl assert_decl for_decl for_head
%type <attrs> place_attrs
%type <loop> loop_head
%type <expr> expr
%type <cons> conj cons
%type <item> item_list items item
%type <str> completion_opt
%type <rel> rel
%type <tkind> tkind

%left '+' '-'
%left '*' '/' '%'
%precedence UMINUS

%%

file:
  decls                           { pp->decls = pnet_decl_reverse($1); }
;

decls:
  %empty                          { $$ = NULL; }
| decls decl                      { $2->next = $1; $$ = $2; }
;

decl:
  NET NAME ';'                    { $$ = pnet_decl_new(PNET_DECL_NET, LOC(@1));
                                    if (!$$) { free($2); NOMEM; }
                                    $$->name = $2; $$->name_loc = LOC(@2); }
| CONST NAME '=' expr ';'         { $$ = pnet_decl_new(PNET_DECL_CONST, LOC(@1));
                                    if (!$$) { free($2); pnet_expr_free($4); NOMEM; }
                                    $$->name = $2; $$->name_loc = LOC(@2); $$->value = $4; }
| FAMILY NAME '=' '{' item_list '}' ';'
                                  { $$ = pnet_decl_new(PNET_DECL_FAMILY, LOC(@1));
                                    if (!$$) { free($2); pnet_item_free($5); NOMEM; }
                                    $$->name = $2; $$->name_loc = LOC(@2); $$->items = pnet_item_reverse($5); }
| INCLUDE STRING ';'              { $$ = pnet_decl_new(PNET_DECL_INCLUDE, LOC(@2));
                                    if (!$$) { free($2); NOMEM; }
                                    $$->path = $2; }
| body_decl
;

/* What a loop body may contain: no constants, families, includes or net names,
 * because those would be defined once per iteration. */
body:
  %empty                          { $$ = NULL; }
| body body_decl                  { $2->next = $1; $$ = $2; }
| body let_decl                   { $2->next = $1; $$ = $2; }
;

/* A name for a number computed from the loop variables, for the rest of
 * one iteration: let right = (i + 1) % n; ... fork_${right} */
let_decl:
  LET NAME '=' expr ';'           { $$ = pnet_decl_new(PNET_DECL_LET, LOC(@1));
                                    if (!$$) { free($2); pnet_expr_free($4); NOMEM; }
                                    $$->name = $2; $$->name_loc = LOC(@2); $$->value = $4; }
;

body_decl:
  place_decl
| transition_decl
| assert_decl
| for_decl
;

place_decl:
  PLACE NAME place_attrs ';'      { $$ = pnet_decl_new(PNET_DECL_PLACE, LOC(@1));
                                    if (!$$) { free($2); pnet_attrs_free($3); NOMEM; }
                                    $$->name = $2; $$->name_loc = LOC(@2); $$->attrs = $3; }
;

place_attrs:
  %empty                          { $$ = calloc(1, sizeof *$$); if (!$$) NOMEM;
                                    $$->role = PN_PLACE_TRACKED; }
| place_attrs CAPACITY expr       { $$ = $1;
                                    if ($$->capacity) {
                                      ERROR_AT(@2, "capacity given twice");
                                      pnet_attrs_free($1); pnet_expr_free($3); YYERROR;
                                    }
                                    $$->capacity = $3; }
| place_attrs INITIAL_ expr       { $$ = $1;
                                    if ($$->initial) {
                                      ERROR_AT(@2, "initial marking given twice");
                                      pnet_attrs_free($1); pnet_expr_free($3); YYERROR;
                                    }
                                    $$->initial = $3; }
| place_attrs SOURCE              { $$ = $1;
                                    if ($$->role != PN_PLACE_TRACKED) {
                                      ERROR_AT(@2, "a place is either a source or a sink, once");
                                      pnet_attrs_free($1); YYERROR;
                                    }
                                    $$->role = PN_PLACE_SOURCE; $$->role_loc = LOC(@2); }
| place_attrs SINK                { $$ = $1;
                                    if ($$->role != PN_PLACE_TRACKED) {
                                      ERROR_AT(@2, "a place is either a source or a sink, once");
                                      pnet_attrs_free($1); YYERROR;
                                    }
                                    $$->role = PN_PLACE_SINK; $$->role_loc = LOC(@2); }
;

transition_decl:
  tkind NAME ':' expr "->" expr completion_opt ';'
                                  { $$ = pnet_decl_new(PNET_DECL_TRANSITION, LOC(@1));
                                    if (!$$) { free($2); pnet_expr_free($4); pnet_expr_free($6);
                                               free($7); NOMEM; }
                                    $$->tkind = $1; $$->name = $2; $$->name_loc = LOC(@2);
                                    $$->pre = $4; $$->post = $6;
                                    $$->completion = $7; $$->completion_loc = LOC(@7); }
;

tkind:
  ADMISSION                       { $$ = PN_ADMISSION; }
| PROGRESS                        { $$ = PN_PROGRESS; }
;

completion_opt:
  %empty                          { $$ = NULL; }
| COMPLETION NAME                 { $$ = $2; @$ = @2; }
;

assert_decl:
  ASSERT NO DEADLOCK ';'          { $$ = pnet_decl_new(PNET_DECL_ASSERT, LOC(@1)); if (!$$) NOMEM;
                                    $$->akind = PN_ASSERT_NO_DEADLOCK; }
| ASSERT INVARIANT conj ';'       { $$ = pnet_decl_new(PNET_DECL_ASSERT, LOC(@1));
                                    if (!$$) { pnet_cons_free($3); NOMEM; }
                                    $$->akind = PN_ASSERT_INVARIANT; $$->cons = pnet_cons_reverse($3); }
| ASSERT REACHABLE conj ';'       { $$ = pnet_decl_new(PNET_DECL_ASSERT, LOC(@1));
                                    if (!$$) { pnet_cons_free($3); NOMEM; }
                                    $$->akind = PN_ASSERT_REACHABLE; $$->cons = pnet_cons_reverse($3); }
| ASSERT UNREACHABLE conj ';'     { $$ = pnet_decl_new(PNET_DECL_ASSERT, LOC(@1));
                                    if (!$$) { pnet_cons_free($3); NOMEM; }
                                    $$->akind = PN_ASSERT_UNREACHABLE; $$->cons = pnet_cons_reverse($3); }
;

conj:
  cons
| conj AND cons                   { int n = 1;
                                    for (const struct pnet_cons *c = $1; c; c = c->next) n++;
                                    if (n > PNET_MAX_CONSTRAINTS) {
                                      ERROR_AT(@2, "too many constraints joined by 'and' (limit %d)",
                                               PNET_MAX_CONSTRAINTS);
                                      pnet_cons_free($1); pnet_cons_free($3); YYERROR;
                                    }
                                    $3->next = $1; $$ = $3; }
;

cons:
  expr rel expr                   { $$ = pnet_cons_new($1, $2, $3, LOC(@2)); if (!$$) NOMEM; }
;

rel:
  "=="                            { $$ = PN_REL_EQ; }
| "!="                            { $$ = PN_REL_NE; }
| "<"                             { $$ = PN_REL_LT; }
| "<="                            { $$ = PN_REL_LE; }
| ">"                             { $$ = PN_REL_GT; }
| ">="                            { $$ = PN_REL_GE; }
;

for_decl:
  for_head '{' body '}'           { $$ = $1; $$->body = pnet_decl_reverse($3); pp->for_depth--; }
;

for_head:
  FOR loop_head                   { $$ = pnet_decl_new(PNET_DECL_FOR, LOC(@1));
                                    if (!$$) { pnet_loop_free($2); NOMEM; }
                                    $$->loop = $2;
                                    FOR_ENTER($$, @1); }
;

/* What a for loop or a sum runs over. */
loop_head:
  NAME IN '{' item_list '}'       { $$ = pnet_loop_new($1, LOC(@1), NULL, LOC(@1));
                                    if (!$$) { pnet_item_free($4); NOMEM; }
                                    $$->items = pnet_item_reverse($4); }
| NAME ',' NAME IN '{' item_list '}'
                                  { $$ = pnet_loop_new($1, LOC(@1), $3, LOC(@3));
                                    if (!$$) { pnet_item_free($6); NOMEM; }
                                    $$->items = pnet_item_reverse($6); }
| NAME IN NAME                    { $$ = pnet_loop_new($1, LOC(@1), NULL, LOC(@1)); if (!$$) { free($3); NOMEM; }
                                    $$->family = $3; $$->family_loc = LOC(@3); }
| NAME ',' NAME IN NAME           { $$ = pnet_loop_new($1, LOC(@1), $3, LOC(@3)); if (!$$) { free($5); NOMEM; }
                                    $$->family = $5; $$->family_loc = LOC(@5); }
| NAME IN expr ".." expr          { $$ = pnet_loop_new($1, LOC(@1), NULL, LOC(@1));
                                    if (!$$) { pnet_expr_free($3); pnet_expr_free($5); NOMEM; }
                                    $$->lo = $3; $$->hi = $5; }
;

/* A trailing comma is allowed so one entry per line diffs cleanly. */
item_list:
  items
| items ','                       { $$ = $1; }
;

items:
  item
| items ',' item                  { int n = 1;
                                    for (const struct pnet_item *i = $1; i; i = i->next) n++;
                                    if (n > PNET_MAX_FAMILY_ITEMS) {
                                      ERROR_AT(@3, "too many family entries (limit %d)", PNET_MAX_FAMILY_ITEMS);
                                      pnet_item_free($1); pnet_item_free($3); YYERROR;
                                    }
                                    $3->next = $1; $$ = $3; }
;

item:
  NAME                            { $$ = calloc(1, sizeof *$$); if (!$$) { free($1); NOMEM; }
                                    $$->key = $1; $$->loc = LOC(@1); }
| NAME ':' expr                   { $$ = calloc(1, sizeof *$$);
                                    if (!$$) { free($1); pnet_expr_free($3); NOMEM; }
                                    $$->key = $1; $$->value = $3; $$->loc = LOC(@1); }
;

expr:
  INT                             { $$ = pnet_expr_int($1, LOC(@1)); if (!$$) NOMEM; }
| NAME                            { $$ = pnet_expr_name($1, LOC(@1)); if (!$$) NOMEM; }
| '(' expr ')'                    { $$ = $2; }
| '-' expr %prec UMINUS           { $$ = pnet_expr_op(PNET_EXPR_NEG, $2, NULL, LOC(@1)); if (!$$) NOMEM;
                                    if ($$->depth > PNET_MAX_EXPR_DEPTH) {
                                      ERROR_AT(@1, "expression nested too deeply (limit %d)", PNET_MAX_EXPR_DEPTH);
                                      pnet_expr_free($$); YYERROR;
                                    } }
| expr '+' expr                   { BINOP($$, PNET_EXPR_ADD, $1, $3, @2); }
| expr '-' expr                   { BINOP($$, PNET_EXPR_SUB, $1, $3, @2); }
| expr '*' expr                   { BINOP($$, PNET_EXPR_MUL, $1, $3, @2); }
| expr '/' expr                   { BINOP($$, PNET_EXPR_DIV, $1, $3, @2); }
| expr '%' expr                   { BINOP($$, PNET_EXPR_MOD, $1, $3, @2); }
| SUM '(' loop_head ':' expr ')'  { $$ = pnet_expr_sum($3, $5, LOC(@1)); if (!$$) NOMEM;
                                    if ($$->depth > PNET_MAX_EXPR_DEPTH) {
                                      ERROR_AT(@1, "expression nested too deeply (limit %d)", PNET_MAX_EXPR_DEPTH);
                                      pnet_expr_free($$); YYERROR;
                                    } }
;

%%

static void pnet_yyerror(PNET_YYLTYPE *loc, void *scanner, struct pnet_parse *pp, const char *msg) {
  (void)scanner;
  if (!pp->out_of_memory && strcmp(msg, "memory exhausted") == 0)
    pnet_parse_error(pp, loc->first_line, loc->first_column,
                     "input nested too deeply for the parser (more than %d open constructs)", YYMAXDEPTH);
  else
    pnet_parse_error(pp, loc->first_line, loc->first_column, "%s", msg);
}

/* Token names as a reader knows them: keywords and punctuation quoted the
 * way they are written, token classes by what they are ("unexpected name",
 * "expected a name"). */
static void pnet_symbol_text(yysymbol_kind_t sym, bool expected, char *buf, size_t size) {
  switch (sym) {
  case YYSYMBOL_YYEOF: snprintf(buf, size, "end of file"); return;
  case YYSYMBOL_NAME: snprintf(buf, size, "%sname", expected ? "a " : ""); return;
  case YYSYMBOL_INT: snprintf(buf, size, "%sinteger", expected ? "an " : ""); return;
  case YYSYMBOL_STRING: snprintf(buf, size, "%sstring", expected ? "a " : ""); return;
  default: break;
  }
  const char *name = yysymbol_name(sym);
  size_t len = strlen(name);
  if (len >= 2 && (name[0] == '"' || name[0] == '\''))
    snprintf(buf, size, "'%.*s'", (int)(len - 2), name + 1);
  else
    snprintf(buf, size, "'%s'", name);
}

static int yyreport_syntax_error(const yypcontext_t *ctx, void *scanner, struct pnet_parse *pp) {
  (void)scanner;
  enum { MAX_EXPECTED = 12 };
  yysymbol_kind_t expected[YYNTOKENS];
  int n = yypcontext_expected_tokens(ctx, expected, YYNTOKENS);
  if (n < 0) return n;
  char msg[512], tok[64];
  size_t used = 0;
  pnet_symbol_text(yypcontext_token(ctx), false, tok, sizeof tok);
  used += (size_t)snprintf(msg + used, sizeof msg - used, "syntax error: unexpected %s", tok);
  /* A long list helps nobody; past a handful only the count is useful. */
  if (n > 0 && n <= MAX_EXPECTED) {
    used += (size_t)snprintf(msg + used, sizeof msg - used, "; expected ");
    for (int i = 0; i < n && used < sizeof msg; i++) {
      pnet_symbol_text(expected[i], true, tok, sizeof tok);
      used += (size_t)snprintf(msg + used, sizeof msg - used, "%s%s",
                               i == 0 ? "" : (i == n - 1 ? " or " : ", "), tok);
    }
  }
  const PNET_YYLTYPE *loc = yypcontext_location(ctx);
  pnet_parse_error(pp, loc->first_line, loc->first_column, "%s", msg);
  return 0;
}
