/* cs_approval_internal: what the approval modules share (not installed). */
#ifndef CS_RUNTIME_CS_APPROVAL_INTERNAL_H
#define CS_RUNTIME_CS_APPROVAL_INTERNAL_H

#include <stdint.h>

#include "cs_approval.h"

#define CS_APPROVAL_PREFIX_MAX 256

uint64_t cs_approval_now_ms(void);
int cs_approval_scope_parse(const char *name, enum cs_approval_scope *s);

/* The request as one JSON object and a newline (malloc'd, NULL on
 * -ENOMEM). with_type adds "type": "request" (socket protocol). */
char *cs_approval_request_json(const struct cs_approval_request *req, int with_type);

/* Parses one reply. Well-formed means: a JSON object, "decision" exactly
 * "allow" or "deny", "scope" (optional) one of once/session/always, and
 * with want_id != 0 an "id" equal to it. Anything else: -EPROTO and a
 * reason in d->reason. Fills d->allow/scope/reason. */
int cs_approval_reply_parse(const char *text, uint64_t want_id, struct cs_approval_decision *d);

/* Store (cs_approval_store.c). find: 0 and *id when a grant exists,
 * -ENOENT when not, other errors when the file is unsafe or malformed. */
int cs_approval_store_find(const char *path, enum cs_approval_operation op, const char *prefix,
                           uint64_t *id);
int cs_approval_store_add(const char *path, enum cs_approval_operation op, const char *prefix);

#endif
