/* pnetc_unbuilt_oci: linked into pnetc only when the BPF generator and OCI
 * import (target cs_bpf) are not part of this build. See
 * pnetc_unbuilt_policy.c for why this fails instead of doing nothing. */
#include <stdio.h>

#include "pnetc_exit.h"
#include "pnetc_options.h"

int pnetc_run_oci(const struct pnetc_options *opts) {
  fprintf(stderr, "%s: error: this pnetc was built without the seccomp generator (cs_bpf); "
                  "OCI seccomp profiles are not supported by this build\n", opts->input);
  return PNETC_EXIT_INPUT;
}
