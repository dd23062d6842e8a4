/* sbx_admit_record: one admission as the audit record tells it, shared by
 * `sbx run` and `sbx eval`: the wait, and on a refusal the error and the
 * admission denial naming the model and the tier. */
#ifndef CS_RUNTIME_SBX_ADMIT_RECORD_H
#define CS_RUNTIME_SBX_ADMIT_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sbx_admit.h"
#include "sbx_audit.h"

/* sbx_admit_acquire(a, lane, rec->tier, no_wait, rec->wait_timeout_ms,
 * err), with rec's admission fields set from it: the lane (of a model with
 * lanes), admitted, the wait, and on failure rec->error and one denial
 * appended at den[*n_den]. Returns its result. */
int sbx_admit_record(struct sbx_admit *a, const char *lane, bool no_wait,
                     struct sbx_audit_record *rec, struct sbx_audit_denial *den, size_t *n_den,
                     FILE *err);

#endif
