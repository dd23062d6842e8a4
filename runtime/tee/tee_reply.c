/* tee_reply: the strict check of a worker's messages (see tee_reply.h). */
#include "tee_reply.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* An object whose keys all appear in `allowed` (NULL-terminated). */
static json_t *tee_reply_object(const char *text, size_t len, const char *const *allowed,
                                const char **why)
{
  json_error_t e;
  json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &e);
  const char *key;
  json_t *v;

  if (!o) {
    *why = "reply is not JSON";
    return NULL;
  }
  if (!json_is_object(o)) {
    *why = "reply is not a JSON object";
    json_decref(o);
    return NULL;
  }
  json_object_foreach(o, key, v)
  {
    size_t i = 0;
    while (allowed[i] && strcmp(allowed[i], key) != 0)
      i++;
    if (!allowed[i]) {
      *why = "reply has an unknown field";
      json_decref(o);
      return NULL;
    }
  }
  return o;
}

static int tee_reply_heap(json_t *o, size_t *heap, const char **why)
{
  json_t *h = json_object_get(o, "heap");

  if (!json_is_integer(h) || json_integer_value(h) < 0) {
    *why = "reply has no heap size";
    return -1;
  }
  *heap = (size_t)json_integer_value(h);
  return 0;
}

int tee_reply_parse_ready(const char *text, size_t len, const char **why)
{
  static const char *const allowed[] = { "ready", "heap", NULL };
  json_t *o = tee_reply_object(text, len, allowed, why);
  size_t heap;
  int r = -1;

  if (!o)
    return -1;
  if (!json_is_true(json_object_get(o, "ready")))
    *why = "first message is not ready";
  else if (tee_reply_heap(o, &heap, why) == 0)
    r = 0;
  json_decref(o);
  return r;
}

int tee_reply_parse(const char *text, size_t len, struct tee_reply *r, const char **why)
{
  static const char *const allowed[] = { "ok", "value", "error", "heap", "retire", NULL };
  json_t *o = tee_reply_object(text, len, allowed, why);
  json_t *ok, *value, *error, *retire;
  int rc = -1;

  memset(r, 0, sizeof(*r));
  if (!o)
    return -1;
  ok = json_object_get(o, "ok");
  value = json_object_get(o, "value");
  error = json_object_get(o, "error");
  retire = json_object_get(o, "retire");
  if (!json_is_boolean(ok))
    *why = "reply has no ok";
  else if (json_is_true(ok) && (!value || error))
    *why = "successful reply without a value";
  else if (json_is_false(ok) && (value || !json_is_string(error)))
    *why = "failed reply without an error text";
  else if (retire && !json_is_true(retire))
    *why = "reply has a bad retire";
  else if (tee_reply_heap(o, &r->heap, why) == 0) {
    r->ok = json_is_true(ok);
    r->retire = retire != NULL;
    if (r->ok)
      r->value = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY);
    else
      r->error = strdup(json_string_value(error));
    if (r->ok ? r->value != NULL : r->error != NULL)
      rc = 0;
    else
      *why = "out of memory";
  }
  json_decref(o);
  return rc;
}

void tee_reply_free(struct tee_reply *r)
{
  free(r->value);
  free(r->error);
  r->value = r->error = NULL;
}
