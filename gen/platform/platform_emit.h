/* platform_emit: one resolved profile written as what another platform
 * enforces (docs/platforms.md):
 *
 *   emit_sbpl  a Seatbelt profile for macOS sandbox-exec   (sbpl.c)
 *   emit_wsb   a Windows Sandbox configuration (.wsb XML)  (wsb.c)
 *   emit_k8s   a Kubernetes Pod and NetworkPolicy (YAML)   (k8s.c)
 *
 * Each output is deterministic (nothing from the clock, the host or the
 * environment) and opens with a banner naming the generator and the input.
 * What a target cannot express is a warning on the diagnostic stream,
 * pointing at the profile's line; where the target cannot be made at least
 * as strict as the profile in what it does express, the emitter refuses
 * (error with the line and caret, -EINVAL) and writes nothing usable: the
 * caller discards the output file (gen/text/out_file).
 *
 * Returns 0, -EINVAL (refused, message printed), -ENOMEM or the stream's
 * error (text_stream_status). */
#ifndef CS_GEN_PLATFORM_EMIT_H
#define CS_GEN_PLATFORM_EMIT_H

#include <stdio.h>

#include "pol_profile.h"

struct platform_input {
  const struct pol_profile *profile;
  const char *input;     /* the policy file as named on the command line */
  const char *generator; /* "pnetc 0.9.0" */
};

int emit_sbpl(FILE *out, const struct platform_input *in);
int emit_wsb(FILE *out, const struct platform_input *in);
int emit_k8s(FILE *out, const struct platform_input *in);

#endif
