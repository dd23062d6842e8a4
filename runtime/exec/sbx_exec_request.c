/* sbx_exec_request: one request of protocol version 1 parsed and
 * checked (docs/exec-api.md, "Request"). Strict on purpose: a key sbx
 * does not know, a value of the wrong type, an empty argv or a shell
 * string where an argv belongs is an error, never guessed at or ignored.
 * An agent that misspells "timeout" must learn it, not get a run without
 * its limit; a string argv would need a shell to split it, and the
 * shell's quoting is exactly what an injected argument exploits. */
#include "sbx_exec.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx_exec_base64.h"

__attribute__((format(printf, 4, 5))) static int
sbx_exec_fail(struct sbx_exec_error *e, const char *code, const char *field, const char *fmt, ...)
{
  va_list ap;
  e->code = code;
  snprintf(e->field, sizeof e->field, "%s", field ? field : "");
  va_start(ap, fmt);
  vsnprintf(e->message, sizeof e->message, fmt, ap);
  va_end(ap);
  return -EINVAL;
}

static int sbx_exec_wrong_type(struct sbx_exec_error *e, const char *field, const char *expected)
{
  return sbx_exec_fail(e, "wrong_type", field, "%s: expected %s", field, expected);
}

/* A non-empty string, or an error naming the field. */
static int sbx_exec_text(json_t *v, const char *field, const char **out, struct sbx_exec_error *e)
{
  if (!json_is_string(v))
    return sbx_exec_wrong_type(e, field, "a string");
  if (json_string_length(v) == 0)
    return sbx_exec_fail(e, "invalid_value", field, "%s: empty", field);
  /* jansson refuses \u0000 in strings unless asked (JSON_ALLOW_NUL is not
   * passed), so C sees every string whole. */
  *out = json_string_value(v);
  return 0;
}

/* A whole number in [min, max]: a fraction or a value out of range is an
 * error, never rounded or clamped. */
static int sbx_exec_count(json_t *v, const char *field, json_int_t min, json_int_t max,
                          json_int_t *out, struct sbx_exec_error *e)
{
  if (!json_is_integer(v))
    return sbx_exec_wrong_type(e, field, "an integer");
  *out = json_integer_value(v);
  if (*out < min || *out > max)
    return sbx_exec_fail(e, "invalid_value", field, "%s: %lld is outside %lld..%lld", field,
                         (long long)*out, (long long)min, (long long)max);
  return 0;
}

static int sbx_exec_argv(json_t *v, struct sbx_exec_request *r, struct sbx_exec_error *e)
{
  size_t n;
  if (json_is_string(v))
    return sbx_exec_fail(e, "wrong_type", "argv",
                         "argv: expected an array of strings, not a shell string (sbx never runs "
                         "a request through a shell)");
  if (!json_is_array(v))
    return sbx_exec_wrong_type(e, "argv", "an array of strings");
  n = json_array_size(v);
  if (n == 0)
    return sbx_exec_fail(e, "invalid_value", "argv", "argv: empty (no command)");
  if (n > SBX_EXEC_ARGV_MAX)
    return sbx_exec_fail(e, "invalid_value", "argv", "argv: more than %d arguments",
                         SBX_EXEC_ARGV_MAX);
  r->argv = calloc(n + 1, sizeof *r->argv);
  if (!r->argv)
    return sbx_exec_fail(e, "internal", NULL, "out of memory");
  for (size_t i = 0; i < n; i++) {
    json_t *a = json_array_get(v, i);
    if (!json_is_string(a))
      return sbx_exec_fail(e, "wrong_type", "argv", "argv[%zu]: expected a string", i);
    r->argv[i] = json_string_value(a);
  }
  if (!r->argv[0][0])
    return sbx_exec_fail(e, "invalid_value", "argv", "argv[0]: empty command name");
  r->argc = n;
  return 0;
}

/* labels: an array of non-empty strings, as --label takes them. */
static int sbx_exec_labels(json_t *v, struct sbx_exec_request *r, struct sbx_exec_error *e)
{
  size_t n;
  if (!json_is_array(v))
    return sbx_exec_wrong_type(e, "labels", "an array of strings");
  n = json_array_size(v);
  if (n > SBX_EXEC_LABELS_MAX)
    return sbx_exec_fail(e, "invalid_value", "labels", "labels: more than %d", SBX_EXEC_LABELS_MAX);
  r->labels = calloc(n + 1, sizeof *r->labels);
  if (!r->labels)
    return sbx_exec_fail(e, "internal", NULL, "out of memory");
  for (size_t i = 0; i < n; i++) {
    json_t *a = json_array_get(v, i);
    if (!json_is_string(a))
      return sbx_exec_fail(e, "wrong_type", "labels", "labels[%zu]: expected a string", i);
    if (!json_string_value(a)[0])
      return sbx_exec_fail(e, "invalid_value", "labels", "labels[%zu]: empty label", i);
    r->labels[i] = json_string_value(a);
  }
  r->n_labels = n;
  return 0;
}

/* The syntax of a name only; which names may enter a sandbox is decided
 * by the run, with the env rules --env is held to (sbx_env_rules.c), so
 * the two interfaces can never differ on it. */
static bool sbx_exec_env_name_ok(const char *s)
{
  size_t n = strlen(s);
  if (n == 0 || n > 128 || (s[0] >= '0' && s[0] <= '9'))
    return false;
  for (size_t i = 0; i < n; i++)
    if (!(s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
          (s[i] >= '0' && s[i] <= '9')))
      return false;
  return true;
}

static int sbx_exec_env(json_t *v, struct sbx_exec_request *r, struct sbx_exec_error *e)
{
  const char *name;
  json_t *val;
  size_t k = 0;

  if (!json_is_object(v))
    return sbx_exec_wrong_type(e, "env", "an object of strings");
  if (json_object_size(v) > SBX_EXEC_ENV_MAX)
    return sbx_exec_fail(e, "invalid_value", "env", "env: more than %d variables",
                         SBX_EXEC_ENV_MAX);
  r->env = calloc(json_object_size(v) + 1, sizeof *r->env);
  if (!r->env)
    return sbx_exec_fail(e, "internal", NULL, "out of memory");
  json_object_foreach(v, name, val)
  {
    char *kv;
    if (!sbx_exec_env_name_ok(name))
      return sbx_exec_fail(e, "invalid_value", "env",
                           "env: '%.64s' is no variable name ([A-Za-z_][A-Za-z0-9_]*, at most "
                           "128 bytes)",
                           name);
    if (!json_is_string(val))
      return sbx_exec_fail(e, "wrong_type", "env", "env.%.64s: expected a string", name);
    kv = malloc(strlen(name) + json_string_length(val) + 2);
    if (!kv)
      return sbx_exec_fail(e, "internal", NULL, "out of memory");
    sprintf(kv, "%s=%s", name, json_string_value(val));
    r->env[k++] = kv;
    r->n_env = k;
  }
  return 0;
}

static int sbx_exec_stdin(json_t *v, struct sbx_exec_request *r, struct sbx_exec_error *e)
{
  json_t *text, *b64;
  if (!json_is_object(v))
    return sbx_exec_wrong_type(e, "stdin", "an object {\"text\": ...} or {\"base64\": ...}");
  text = json_object_get(v, "text");
  b64 = json_object_get(v, "base64");
  /* Exactly one key: two would leave which one counts to a guess. */
  if (json_object_size(v) != 1 || (!text && !b64))
    return sbx_exec_fail(e, "invalid_value", "stdin",
                         "stdin: expected exactly one of \"text\" and \"base64\"");
  if (text) {
    if (!json_is_string(text))
      return sbx_exec_wrong_type(e, "stdin.text", "a string");
    r->stdin_len = json_string_length(text);
    r->stdin_data = malloc(r->stdin_len + 1);
    if (!r->stdin_data)
      return sbx_exec_fail(e, "internal", NULL, "out of memory");
    memcpy(r->stdin_data, json_string_value(text), r->stdin_len);
    return 0;
  }
  if (!json_is_string(b64))
    return sbx_exec_wrong_type(e, "stdin.base64", "a string");
  int rc = sbx_b64_decode(json_string_value(b64), json_string_length(b64), &r->stdin_data,
                          &r->stdin_len);
  if (rc == -ENOMEM)
    return sbx_exec_fail(e, "internal", NULL, "out of memory");
  if (rc != 0)
    return sbx_exec_fail(e, "invalid_value", "stdin.base64",
                         "stdin.base64: not canonical base64 (RFC 4648, padded)");
  return 0;
}

/* --run-id's alphabet: the id goes into logs and approvers' prompts. */
static bool sbx_exec_run_id_ok(const char *s)
{
  size_t n = strlen(s);
  if (n == 0 || n > SBX_EXEC_RUN_ID_MAX)
    return false;
  for (size_t i = 0; i < n; i++)
    if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-", s[i]))
      return false;
  return true;
}

/* One known key's value into r. */
static int sbx_exec_field(const char *key, json_t *v, struct sbx_exec_request *r,
                          struct sbx_exec_error *e)
{
  json_int_t n = 0;
  if (strcmp(key, "version") == 0) {
    if (!json_is_integer(v))
      return sbx_exec_wrong_type(e, key, "an integer");
    if (json_integer_value(v) != SBX_EXEC_PROTOCOL)
      return sbx_exec_fail(e, "unsupported_version", key,
                           "version %lld: this sbx speaks version %d",
                           (long long)json_integer_value(v), SBX_EXEC_PROTOCOL);
    return 0;
  }
  if (strcmp(key, "argv") == 0)
    return sbx_exec_argv(v, r, e);
  if (strcmp(key, "cwd") == 0)
    return sbx_exec_text(v, key, &r->cwd, e);
  if (strcmp(key, "env") == 0)
    return sbx_exec_env(v, r, e);
  if (strcmp(key, "stdin") == 0)
    return sbx_exec_stdin(v, r, e);
  if (strcmp(key, "timeout") == 0) {
    if (sbx_exec_count(v, key, 1, (json_int_t)SBX_EXEC_TIMEOUT_MAX_MS, &n, e) != 0)
      return -EINVAL;
    r->has_timeout = true;
    r->timeout_ms = (uint64_t)n;
    return 0;
  }
  if (strcmp(key, "output_limit") == 0) {
    if (sbx_exec_count(v, key, 1, SBX_EXEC_OUTPUT_MAX, &n, e) != 0)
      return -EINVAL;
    r->output_limit = (size_t)n;
    return 0;
  }
  if (strcmp(key, "profile") == 0)
    return sbx_exec_text(v, key, &r->profile, e);
  if (strcmp(key, "policy") == 0)
    return sbx_exec_text(v, key, &r->policy, e);
  if (strcmp(key, "tier") == 0)
    return sbx_exec_text(v, key, &r->tier, e);
  if (strcmp(key, "run_id") == 0) {
    if (sbx_exec_text(v, key, &r->run_id, e) != 0)
      return -EINVAL;
    if (!sbx_exec_run_id_ok(r->run_id))
      return sbx_exec_fail(e, "invalid_value", key,
                           "run_id: expected 1 to %d of A-Z a-z 0-9 . _ : -", SBX_EXEC_RUN_ID_MAX);
    return 0;
  }
  /* The lane is checked against the scheduler model by the caller, which
   * has it (an unknown lane is refused there, before anything runs). */
  if (strcmp(key, "lane") == 0)
    return sbx_exec_text(v, key, &r->lane, e);
  if (strcmp(key, "labels") == 0)
    return sbx_exec_labels(v, r, e);
  /* Only what exists is accepted: a run asked for elsewhere must not
   * quietly run here, on this host. container and ssh are the router's
   * names for backends this sbx cannot run yet. */
  if (strcmp(key, "backend") == 0) {
    if (sbx_exec_text(v, key, &r->backend, e) != 0)
      return -EINVAL;
    if (strcmp(r->backend, "container") == 0 || strcmp(r->backend, "ssh") == 0)
      return sbx_exec_fail(e, "backend_unavailable", key,
                           "backend '%s' is not available in this sbx (only \"local\" runs)",
                           r->backend);
    if (strcmp(r->backend, "local") != 0)
      return sbx_exec_fail(e, "unknown_backend", key,
                           "unknown backend '%.64s' (local, container, ssh)", r->backend);
    return 0;
  }
  return sbx_exec_fail(e, "unknown_field", key, "unknown field '%.64s'", key);
}

int sbx_exec_request_parse(const char *text, size_t len, struct sbx_exec_request *r,
                           struct sbx_exec_error *e)
{
  json_error_t je;
  const char *key;
  json_t *v;

  memset(r, 0, sizeof *r);
  memset(e, 0, sizeof *e);
  r->output_limit = SBX_EXEC_OUTPUT_DEFAULT;
  if (len > SBX_EXEC_REQUEST_MAX)
    return sbx_exec_fail(e, "request_too_large", NULL, "request larger than %u bytes",
                         SBX_EXEC_REQUEST_MAX);
  /* Duplicate keys are refused: {"argv":["ls"],"argv":["rm",...]} must not
   * mean whichever a reader keeps. Any JSON value is decoded, so that a
   * bare string ("ls -l") is told it is not a request object. */
  r->root = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
  if (!r->root)
    return sbx_exec_fail(e, "invalid_json", NULL, "%d:%d: %s", je.line, je.column, je.text);
  if (!json_is_object(r->root))
    return sbx_exec_fail(e, "not_an_object", NULL, "the request must be a JSON object");
  json_object_foreach(r->root, key, v)
  {
    if (sbx_exec_field(key, v, r, e) != 0)
      return -EINVAL;
  }
  if (!r->argv)
    return sbx_exec_fail(e, "missing_field", "argv", "argv: required");
  return 0;
}

void sbx_exec_request_free(struct sbx_exec_request *r)
{
  for (size_t i = 0; r->env && i < r->n_env; i++)
    free((char *)r->env[i]);
  free(r->env);
  free(r->argv);
  free(r->labels);
  free(r->stdin_data);
  json_decref(r->root);
  memset(r, 0, sizeof *r);
}
