/* pn_net: freeing the IR (see pn_net.h). Every front end builds nets with
 * malloc, so one function frees them all, including half-built ones. */
#include "pn_net.h"

#include <stdlib.h>

void pn_net_free(struct pn_net *net)
{
  if (!net)
    return;
  free(net->name);
  free(net->source_path);
  for (uint32_t i = 0; i < net->nplaces; i++)
    free(net->places[i].name);
  free(net->places);
  for (uint32_t i = 0; i < net->ntransitions; i++) {
    free(net->transitions[i].name);
    free(net->transitions[i].pre);
    free(net->transitions[i].post);
  }
  free(net->transitions);
  for (uint32_t i = 0; i < net->nassertions; i++) {
    struct pn_assertion *a = &net->assertions[i];
    free(a->text);
    for (uint32_t j = 0; j < a->nconstraints; j++)
      free(a->constraints[j].terms);
    free(a->constraints);
  }
  free(net->assertions);
  for (uint32_t i = 0; i < net->nsources; i++)
    diag_source_free(net->sources[i]);
  free(net->sources);
  free(net);
}
