/* cs_approval_json: the request and reply of the exec: and socket:
 * approver protocols (docs/approvals.md, "Approver protocols"). */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_approval_internal.h"

/* json_string refuses invalid UTF-8; such a string is shown with its
 * bytes escaped (\\xNN) rather than dropped, so the approver sees what
 * would run. */
static json_t *cs_approval_json_str(const char *s)
{
  json_t *j = json_string(s);
  char *esc;
  size_t n = 0;

  if (j)
    return j;
  esc = malloc(strlen(s) * 4 + 1);
  if (!esc)
    return NULL;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    n += (size_t)(*p >= 0x20 && *p < 0x7f ? snprintf(esc + n, 2, "%c", *p)
                                          : snprintf(esc + n, 5, "\\x%02x", *p));
  j = json_string(esc);
  free(esc);
  return j;
}

char *cs_approval_request_json(const struct cs_approval_request *req, int with_type)
{
  json_t *o = json_object();
  json_t *argv = json_array();
  char *text = NULL, *line = NULL;
  size_t n;

  if (!o || !argv)
    goto cleanup;
  for (size_t i = 0; req->argv && req->argv[i]; i++)
    if (json_array_append_new(argv, cs_approval_json_str(req->argv[i])) != 0)
      goto cleanup;
  if (with_type && json_object_set_new(o, "type", json_string("request")) != 0)
    goto cleanup;
  if (json_object_set_new(o, "id", json_integer((json_int_t)req->id)) != 0 ||
      json_object_set_new(o, "operation", json_string(cs_approval_op_name(req->operation))) != 0 ||
      json_object_set(o, "command", argv) != 0 ||
      json_object_set_new(o, "path", req->path ? cs_approval_json_str(req->path) : json_null()) !=
          0 ||
      json_object_set_new(o, "address", req->address ? json_string(req->address) : json_null()) !=
          0 ||
      json_object_set_new(o, "profile", req->profile ? json_string(req->profile) : json_null()) !=
          0 ||
      json_object_set_new(o, "rule", req->rule ? json_string(req->rule) : json_null()) != 0 ||
      json_object_set_new(o, "layer", req->layer ? json_string(req->layer) : json_null()) != 0 ||
      (req->workspace &&
       json_object_set_new(o, "workspace", cs_approval_json_str(req->workspace)) != 0) ||
      (req->cwd && json_object_set_new(o, "cwd", cs_approval_json_str(req->cwd)) != 0) ||
      (req->run_id && json_object_set_new(o, "run_id", cs_approval_json_str(req->run_id)) != 0))
    goto cleanup;
  if (req->targets) {
    json_t *t = json_array();
    if (!t || json_object_set_new(o, "targets", t) != 0)
      goto cleanup;
    for (size_t i = 0; req->targets[i]; i++)
      if (json_array_append_new(t, cs_approval_json_str(req->targets[i])) != 0)
        goto cleanup;
  }
  text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
  if (!text)
    goto cleanup;
  n = strlen(text);
  line = malloc(n + 2);
  if (line) {
    memcpy(line, text, n);
    line[n] = '\n';
    line[n + 1] = '\0';
  }
cleanup:
  free(text);
  json_decref(argv);
  json_decref(o);
  return line;
}

int cs_approval_reply_parse(const char *text, uint64_t want_id, struct cs_approval_decision *d)
{
  json_error_t jerr;
  json_t *o = NULL, *v;
  const char *dec;
  int r = -EPROTO;

  d->allow = false;
  d->scope = CS_APPROVAL_ONCE;
  /* Trailing garbage after the object is refused (jansson checks EOF). */
  o = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
  if (!o || !json_is_object(o)) {
    snprintf(d->reason, sizeof d->reason, "malformed reply (not one JSON object%s%s)",
             o ? "" : ": ", o ? "" : jerr.text);
    goto cleanup;
  }
  if (want_id) {
    v = json_object_get(o, "id");
    if (!json_is_integer(v) || (uint64_t)json_integer_value(v) != want_id) {
      snprintf(d->reason, sizeof d->reason, "malformed reply (id missing or not %llu)",
               (unsigned long long)want_id);
      goto cleanup;
    }
  }
  v = json_object_get(o, "decision");
  dec = json_string_value(v);
  if (!dec || (strcmp(dec, "allow") != 0 && strcmp(dec, "deny") != 0)) {
    snprintf(d->reason, sizeof d->reason,
             "malformed reply (\"decision\" must be \"allow\" or \"deny\")");
    goto cleanup;
  }
  v = json_object_get(o, "scope");
  if (v && !json_is_null(v) && cs_approval_scope_parse(json_string_value(v), &d->scope) != 0) {
    d->scope = CS_APPROVAL_ONCE;
    snprintf(d->reason, sizeof d->reason,
             "malformed reply (\"scope\" must be once, session or always)");
    goto cleanup;
  }
  v = json_object_get(o, "reason");
  if (json_is_string(v))
    snprintf(d->reason, sizeof d->reason, "approver: %s", json_string_value(v));
  else
    snprintf(d->reason, sizeof d->reason, "approver answered %s", dec);
  d->allow = strcmp(dec, "allow") == 0;
  if (!d->allow)
    d->scope = CS_APPROVAL_ONCE;
  r = 0;
cleanup:
  json_decref(o);
  return r;
}
