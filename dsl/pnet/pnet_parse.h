/* pnet_parse: glue between the reentrant scanner, the pure parser and the
 * lowering pass. One pnet_parse per source file. Internal. */
#ifndef CS_DSL_PNET_PARSE_H
#define CS_DSL_PNET_PARSE_H

#include "diag.h"
#include "pnet_ast.h"

struct pnet_parse {
  const struct diag_source *src;
  struct pnet_decl *decls;       /* the file's declarations, on success */
  int nesting;                   /* open ( and { */
  int for_depth;                 /* for loops being parsed */
  struct diag_loc comment_start; /* of an open block comment */
  unsigned errors;
  int out_of_memory; /* an allocation in a grammar action failed */
};

/* Parses one file. Returns 0 and sets pp->decls, or -1 after printing
 * diagnostics (pp->errors counts them). */
int pnet_parse_source(struct pnet_parse *pp);

/* Converts a bison location (line/column of the current file) into a
 * diag_loc. */
struct diag_loc pnet_loc(const struct pnet_parse *pp, int line, int col);

/* Reports an error at line:col of the file being parsed. */
void pnet_parse_error(struct pnet_parse *pp, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
