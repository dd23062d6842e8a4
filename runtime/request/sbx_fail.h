/* sbx_fail: confinement's one failure channel (grep tag: SBX_FAIL).
 *
 * A function of confinement that fails returns a negative errno and fills
 * a struct sbx_fail: the layer (enum sbx_layer, which also decides the
 * exit code and the audit record), the errno, and a text that does not
 * repeat the layer. Whoever reports it (the cold run, the supervisor for
 * pid 1's and the command's failures, the warm client and server) turns
 * it into the run's result with sbx_result_from_fail, which prefixes the
 * layer's name: "mount: workspace '/w' is inside denied path '~/.ssh'
 * (profiles.pol:12:5)". */
#ifndef CS_RUNTIME_SBX_FAIL_H
#define CS_RUNTIME_SBX_FAIL_H

#include <stddef.h>

#include "sbx_request.h"

/* A failure while setting a sandbox up: layer, errno and a short text
 * without the layer's name. */
struct sbx_fail {
  enum sbx_layer layer;
  int error;
  char text[320];
};

void sbx_fail_set(struct sbx_fail *f, enum sbx_layer layer, int error, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* "<layer>: <text>" into buf (what the user reads). */
void sbx_fail_format(const struct sbx_fail *f, char *buf, size_t len);
/* *res = FAILED (exit 125) in f's layer, message "<layer>: <text>". */
void sbx_result_from_fail(struct sbx_run_result *res, const struct sbx_fail *f);
/* The same for a message that already names what failed. */
void sbx_result_fail(struct sbx_run_result *res, enum sbx_layer layer, int error, const char *text);

#endif
