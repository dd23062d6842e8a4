/* libFuzzer harness for the .pnet front end (dsl/pnet/pnet.h): any input is
 * either a net or diagnostics, never a crash, a leak or undefined
 * behaviour. Diagnostics go to /dev/null. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "diag.h"
#include "pnet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  diag_set_quiet(true);
  struct pn_net *net = pnet_parse_memory("fuzz.pnet", (const char *)data, size);
  pn_net_free(net);
  diag_reset();
  return 0;
}
