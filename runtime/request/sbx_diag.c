/* sbx_diag: the process's stream for sbx's own messages (sbx_diag.h). */
#include "sbx_diag.h"

static FILE *sbx_diag_stream;

FILE *sbx_diag(void)
{
  return sbx_diag_stream ? sbx_diag_stream : stderr;
}

void sbx_diag_set(FILE *stream)
{
  sbx_diag_stream = stream;
}
