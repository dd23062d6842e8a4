/* bpf_program: see bpf_program.h. */
#include "bpf_program.h"

#include <stdlib.h>
#include <string.h>

void bpf_program_out_free(struct bpf_program_out *p)
{
  if (!p)
    return;
  if (p->comments)
    for (uint32_t i = 0; i < p->len; i++)
      free(p->comments[i]);
  free(p->comments);
  free(p->insns);
  memset(p, 0, sizeof *p);
}
