/* pol_parse_state: what the .pol lexer and parser share while reading one
 * file. Internal to pol_lex.l, pol_parse.y and pol_load.c. */
#ifndef CS_DSL_POL_PARSE_STATE_H
#define CS_DSL_POL_PARSE_STATE_H

#include "diag.h"
#include "pol_ast.h"

struct pol_lex_extra {
  const struct diag_source *src;
  int line, col;               /* position of the next byte, 1-based */
  int paren_depth;             /* open '(' not yet closed, bounded by POL_MAX_EXPR_DEPTH */
  struct diag_loc comment_loc; /* start of the open block comment */
};

struct pol_parse_state {
  const struct diag_source *src;
  struct pol_file *file; /* declarations parsed so far */
};

/* Parses one file's text into declarations. 0, or -EINVAL after printing
 * every error, or -ENOMEM. */
int pol_parse_source(const struct diag_source *src, struct pol_file **out);

#endif
