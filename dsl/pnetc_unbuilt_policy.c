/* pnetc_unbuilt_policy: linked into pnetc only when the policy compiler
 * (target cs_pol) is not part of this build. Refusing loudly is the only
 * honest answer: exiting 0 would let a build believe a policy was
 * compiled and enforced. */
#include <stdio.h>

#include "pnetc_exit.h"
#include "pnetc_options.h"

int pnetc_run_policy(const struct pnetc_options *opts) {
  fprintf(stderr, "%s: error: this pnetc was built without the policy compiler (cs_pol); "
                  ".pol input is not supported by this build\n", opts->input);
  return PNETC_EXIT_INPUT;
}
