/* pnet_parse: runs the scanner and parser over one diag_source. */
#include "pnet_parse.h"

#include <stdarg.h>

#include "pnet_parser.h"

/* From the generated scanner (prefix pnet_yy). */
typedef void *yyscan_t;
typedef struct yy_buffer_state *YY_BUFFER_STATE;
int pnet_yylex_init_extra(struct pnet_parse *extra, yyscan_t *scanner);
int pnet_yylex_destroy(yyscan_t scanner);
YY_BUFFER_STATE pnet_yy_scan_bytes(const char *bytes, int len, yyscan_t scanner);
int pnet_yyparse(void *scanner, struct pnet_parse *pp);

struct diag_loc pnet_loc(const struct pnet_parse *pp, int line, int col)
{
  struct diag_loc loc = { pp->src, line, col };
  return loc;
}

void pnet_parse_error(struct pnet_parse *pp, int line, int col, const char *fmt, ...)
{
  struct diag_loc loc = pnet_loc(pp, line, col);
  va_list ap;
  va_start(ap, fmt);
  diag_verror(&loc, fmt, ap);
  va_end(ap);
  pp->errors++;
}

int pnet_parse_source(struct pnet_parse *pp)
{
  yyscan_t scanner = NULL;
  int rc = -1;

  pp->decls = NULL;
  if (pp->src->length > (size_t)__INT_MAX__) {
    pnet_parse_error(pp, 0, 0, "file is too large");
    goto cleanup;
  }
  if (pnet_yylex_init_extra(pp, &scanner) != 0) {
    pnet_parse_error(pp, 0, 0, "out of memory");
    goto cleanup;
  }
  if (!pnet_yy_scan_bytes(pp->src->text, (int)pp->src->length, scanner)) {
    pnet_parse_error(pp, 0, 0, "out of memory");
    goto cleanup;
  }
  if (pnet_yyparse(scanner, pp) != 0 || pp->errors) {
    /* A scanner error the grammar could absorb still fails the file. */
    pnet_decl_free(pp->decls);
    pp->decls = NULL;
    if (!pp->errors)
      pnet_parse_error(pp, 0, 0, "parse failed");
    goto cleanup;
  }
  rc = 0;
cleanup:
  if (scanner)
    pnet_yylex_destroy(scanner);
  return rc;
}
