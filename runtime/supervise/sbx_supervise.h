/* sbx_supervise: the supervisor's side of one run (sbx_supervise.c):
 * waits for the control socket's messages and the run's end or deadline,
 * then names what the kernel refused. It is confinement's supervise hook
 * (runtime/confine/sbx_hooks.h) and the warm client's supervisor. */
#ifndef CS_RUNTIME_SBX_SUPERVISE_H
#define CS_RUNTIME_SBX_SUPERVISE_H

#include "sbx_hooks.h"

/* Waits for the run's messages and end (or its deadline: kills pid 1),
 * fills *res; returns 0 when the command ran, a negative errno otherwise. */
int sbx_supervise(struct sbx_sup *s, const struct sbx_run_request *req, struct sbx_run_result *res,
                  int kmsg);

#endif
