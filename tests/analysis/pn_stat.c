/* pn_stat: analyses a PNML net and prints the figures the tests and the
 * benchmark compare against published numbers, one key=value per line.
 *   pn_stat [--max-states N] [--progress] FILE.pnml
 *   pn_stat --promela FILE.pnml     (the Promela model on stdout) */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emit_promela.h"
#include "pn_analysis.h"
#include "pn_semiflow.h"
#include "pnml.h"

int main(int argc, char **argv)
{
  struct pn_analysis_opts opts = { 0 };
  const char *path = NULL;
  int promela = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--max-states") && i + 1 < argc)
      opts.max_states = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--promela"))
      promela = 1;
    else if (!strcmp(argv[i], "--progress"))
      opts.show_progress = isatty(2);
    else
      path = argv[i];
  }
  if (!path) {
    fprintf(stderr, "usage: pn_stat [--max-states N] [--progress] FILE.pnml\n");
    return 2;
  }
  struct pn_net *net = pnml_parse_file(path);
  if (!net)
    return 2;
  if (promela) {
    int prc = emit_promela(stdout, net);
    pn_net_free(net);
    return prc ? 2 : 0;
  }
  struct pn_analysis *a = NULL;
  int rc = pn_analyze(net, &opts, &a);
  if (rc) {
    pn_net_free(net);
    return rc == -E2BIG ? 3 : 2;
  }
  printf("states=%" PRIu64 "\nedges=%" PRIu64 "\n", pn_analysis_states(a), pn_analysis_edges(a));
  printf("dead=%" PRIu64 "\nunsafe=%" PRIu64 "\nsaturated=%" PRIu64 "\nsafe=%" PRIu64 "\n",
         pn_analysis_class_count(a, PN_CLASS_DEAD), pn_analysis_class_count(a, PN_CLASS_UNSAFE),
         pn_analysis_class_count(a, PN_CLASS_SATURATED), pn_analysis_class_count(a, PN_CLASS_SAFE));
  printf("state_bits=%u\nreencodes=%u\ndepth=%u\n", pn_analysis_state_bits(a),
         pn_analysis_reencodes(a), pn_analysis_levels(a) - 1);
  int exit_code = 0;
  for (uint32_t i = 0; i < net->nassertions; i++) {
    const struct pn_assert_result *r = pn_analysis_assertion(a, i);
    printf("assert[%u]=%s %s", i, r->holds ? "holds" : "FAILS", net->assertions[i].text);
    if (r->trace) {
      printf(" trace:");
      for (uint32_t k = 0; k < r->ntrace; k++)
        printf(" %s", net->transitions[r->trace[k]].name);
    }
    printf("\n");
    if (!r->holds)
      exit_code = 1;
  }
  /* P-semiflows and, per place, the largest count reached next to the
   * bound the semiflows prove (-1: none). */
  struct pn_semiflows sf;
  int64_t *sb = calloc(net->nplaces ? net->nplaces : 1, sizeof *sb);
  int src = sb ? pn_semiflows_compute(net, &sf) : -ENOMEM;
  if (src == -E2BIG) {
    printf("semiflows=gave-up\n"); /* too large: the analysis widens instead */
  } else if (src || pn_semiflow_bounds(net, sb)) {
    if (!src)
      pn_semiflows_free(&sf);
    fprintf(stderr, "pn_stat: semiflows failed\n");
    exit_code = 2;
  } else {
    printf("semiflows=%" PRIu32 "\n", sf.nrows);
    for (uint32_t r = 0; r < sf.nrows; r++) {
      printf("semiflow.%" PRIu32 "=", r);
      for (uint32_t p = 0, first = 1; p < net->nplaces; p++) {
        int64_t y = sf.y[(size_t)r * net->nplaces + p];
        if (y)
          printf("%s%s:%" PRId64, first ? "" : " ", net->places[p].name, y), first = 0;
      }
      printf("\n");
    }
    for (uint32_t p = 0; p < net->nplaces; p++)
      printf("bound.%s=%" PRId64 " %" PRId64 "\n", net->places[p].name, pn_analysis_bounds(a)[p],
             sb[p]);
    pn_semiflows_free(&sf);
  }
  free(sb);
  pn_analysis_free(a);
  pn_net_free(net);
  return exit_code;
}
