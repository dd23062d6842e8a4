/* libFuzzer harness for the PNML reader and everything behind it: any
 * input is either diagnostics, or a net that is analysed (with a small
 * state limit) and emitted as Promela — never a crash, a leak or undefined
 * behaviour. Diagnostics and output go to /dev/null. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "diag.h"
#include "emit_promela.h"
#include "pn_analysis.h"
#include "pnml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static FILE *promela_sink; /* the emitter runs; its text is not kept */
  if (!promela_sink && !(promela_sink = fopen("/dev/null", "w")))
    abort();
  diag_set_quiet(true);
  struct pn_net *net = pnml_parse_memory("fuzz.pnml", (const char *)data, size);
  if (net) {
    struct pn_analysis_opts opts = { .max_states = 5000 };
    struct pn_analysis *a = NULL;
    if (pn_analyze(net, &opts, &a) == 0) {
      for (uint32_t i = 0; i < net->nassertions; i++)
        (void)pn_analysis_assertion(a, i);
      pn_analysis_free(a);
    }
    if (emit_promela(promela_sink, net) != 0)
      abort();
  }
  pn_net_free(net);
  diag_reset();
  return 0;
}
