/* sbx_exec_result: the result and error objects of protocol version 1
 * (docs/exec-api.md, "Result"). The outcome, the denials and the network
 * summary are read from the audit record the run appended, so what a
 * caller is told and what an auditor reads can never differ. */
#include "sbx_exec.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cs_cmdrule.h"
#include "sbx_exec_base64.h"

bool sbx_exec_utf8_valid(const unsigned char *s, size_t len)
{
  size_t i = 0;
  while (i < len) {
    unsigned char c = s[i];
    size_t need;
    uint32_t cp, min;
    if (c < 0x80) {
      i++;
      continue;
    }
    if (c >= 0xc2 && c <= 0xdf) {
      need = 1;
      cp = c & 0x1f;
      min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      cp = c & 0x0f;
      min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      cp = c & 0x07;
      min = 0x10000;
    } else
      return false;
    if (len - i - 1 < need)
      return false;
    for (size_t k = 1; k <= need; k++) {
      if ((s[i + k] & 0xc0) != 0x80)
        return false;
      cp = cp << 6 | (s[i + k] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
      return false;
    i += need + 1;
  }
  return true;
}

/* Builders that keep going on failure and remember it: one check at the end. */
static void sbx_put(json_t *o, const char *k, json_t *v, bool *bad)
{
  if (!v || json_object_set_new(o, k, v) != 0)
    *bad = true;
}

static json_t *sbx_str_or_null(const char *s)
{
  return s ? json_string(s) : json_null();
}

static const char *sbx_exec_outcome_name(enum sbx_audit_outcome o)
{
  switch (o) {
  case SBX_AUDIT_EXITED:
    return "exited";
  case SBX_AUDIT_SIGNALED:
    return "signaled";
  case SBX_AUDIT_TIMED_OUT:
    return "timed_out";
  case SBX_AUDIT_INTERRUPTED:
    return "interrupted";
  case SBX_AUDIT_NOT_RUN:
  default:
    return "not_run";
  }
}

static json_t *sbx_exec_signal(int sig)
{
  char name[32];
  const char *abbrev = sig > 0 ? sigabbrev_np(sig) : NULL;
  if (sig <= 0)
    return json_null();
  snprintf(name, sizeof name, "SIG%s", abbrev ? abbrev : "UNKNOWN");
  return json_string(name);
}

/* The denial strings come from kernel records and the profile; one not
 * in UTF-8 (a path's bytes) is replaced by a marker here (JSON strings are
 * UTF-8), while the audit record keeps its bytes. */
static json_t *sbx_exec_text_lossy(const char *s)
{
  json_t *v;
  if (!s)
    return json_null();
  v = json_string(s);
  return v ? v : json_string("<not UTF-8>");
}

/* The route, backend and lane the run took, as its audit record names
 * them (null: not chosen, the run was refused before its route). */
static void sbx_exec_common(json_t *o, const struct sbx_audit_record *rec, bool *bad)
{
  sbx_put(o, "version", json_integer(SBX_EXEC_PROTOCOL), bad);
  sbx_put(o, "route", rec ? sbx_exec_text_lossy(rec->route) : json_null(), bad);
  sbx_put(o, "backend", rec ? sbx_exec_text_lossy(rec->backend) : json_null(), bad);
  sbx_put(o, "lane", rec ? sbx_exec_text_lossy(rec->lane) : json_null(), bad);
}

json_t *sbx_exec_result_from_record(const struct sbx_audit_record *rec)
{
  json_t *o = json_object(), *den = json_array(), *adm = json_object();
  bool bad = !o || !den || !adm;

  if (bad) {
    json_decref(o);
    json_decref(den);
    json_decref(adm);
    return NULL;
  }
  sbx_exec_common(o, rec, &bad);
  sbx_put(o, "outcome", json_string(sbx_exec_outcome_name(rec->outcome)), &bad);
  sbx_put(o, "exit_code",
          rec->outcome == SBX_AUDIT_EXITED ? json_integer(rec->status) : json_null(), &bad);
  sbx_put(o, "signal",
          rec->outcome == SBX_AUDIT_SIGNALED || rec->outcome == SBX_AUDIT_TIMED_OUT ||
                  rec->outcome == SBX_AUDIT_INTERRUPTED
              ? sbx_exec_signal(rec->signal)
              : json_null(),
          &bad);
  sbx_put(o, "timed_out", json_boolean(rec->outcome == SBX_AUDIT_TIMED_OUT), &bad);
  sbx_put(o, "sbx_exit", json_integer(rec->sbx_exit), &bad);
  sbx_put(o, "profile", sbx_str_or_null(rec->profile), &bad);
  sbx_put(o, "run_id", sbx_str_or_null(rec->run_id), &bad);
  sbx_put(o, "error", sbx_exec_text_lossy(rec->error), &bad);
  for (size_t i = 0; i < rec->n_denials; i++) {
    const struct sbx_audit_denial *d = &rec->denials[i];
    json_t *j = json_object();
    if (!j) {
      bad = true;
      break;
    }
    sbx_put(j, "layer", sbx_exec_text_lossy(d->layer), &bad);
    sbx_put(j, "rule", sbx_exec_text_lossy(d->rule), &bad);
    sbx_put(j, "what", sbx_exec_text_lossy(d->what), &bad);
    sbx_put(j, "action", sbx_exec_text_lossy(d->action), &bad);
    if (json_array_append_new(den, j) != 0)
      bad = true;
  }
  sbx_put(o, "denials", den, &bad);
  sbx_put(adm, "tier", sbx_str_or_null(rec->tier), &bad);
  sbx_put(adm, "admitted", json_boolean(rec->admitted), &bad);
  sbx_put(adm, "wait_ms", json_integer((json_int_t)rec->admission_wait_ms), &bad);
  sbx_put(o, "admission", adm, &bad);
  sbx_put(o, "start_path", sbx_str_or_null(rec->start_path), &bad);
  if (rec->network) {
    const struct sbx_audit_network *n = rec->network;
    sbx_put(o, "network",
            json_pack("{s:I, s:I, s:I, s:I, s:I}", "connections", (json_int_t)n->total, "allowed",
                      (json_int_t)n->allowed, "refused", (json_int_t)n->refused, "bytes_up",
                      (json_int_t)n->bytes_up, "bytes_down", (json_int_t)n->bytes_down),
            &bad);
  }
  if (bad) {
    json_decref(o);
    return NULL;
  }
  return o;
}

json_t *sbx_exec_result_unrecorded(int sbx_exit)
{
  json_t *o = json_object();
  bool bad = !o;
  if (bad)
    return NULL;
  sbx_exec_common(o, NULL, &bad);
  sbx_put(o, "outcome", json_string("not_run"), &bad);
  sbx_put(o, "exit_code", json_null(), &bad);
  sbx_put(o, "signal", json_null(), &bad);
  sbx_put(o, "timed_out", json_false(), &bad);
  sbx_put(o, "sbx_exit", json_integer(sbx_exit), &bad);
  sbx_put(o, "profile", json_null(), &bad);
  sbx_put(o, "run_id", json_null(), &bad);
  sbx_put(o, "error", json_string("no audit record was made"), &bad);
  sbx_put(o, "denials", json_array(), &bad);
  sbx_put(o, "admission", json_pack("{s:n, s:b, s:i}", "tier", "admitted", 0, "wait_ms", 0), &bad);
  sbx_put(o, "start_path", json_null(), &bad);
  if (bad) {
    json_decref(o);
    return NULL;
  }
  return o;
}

/* {"data","encoding","bytes","truncated"}: valid UTF-8 stays text, any
 * other bytes are base64, so binary output arrives intact. */
static json_t *sbx_exec_stream_json(const struct sbx_exec_stream *s)
{
  json_t *o = json_object(), *data;
  bool bad = !o, text = sbx_exec_utf8_valid(s->data, s->len);
  if (bad)
    return NULL;
  if (text)
    data = json_stringn((const char *)s->data, s->len);
  else {
    size_t n;
    char *b = sbx_b64_encode(s->data, s->len, &n);
    data = b ? json_stringn(b, n) : NULL;
    free(b);
  }
  sbx_put(o, "data", data, &bad);
  sbx_put(o, "encoding", json_string(text ? "utf-8" : "base64"), &bad);
  sbx_put(o, "bytes", json_integer((json_int_t)s->len), &bad);
  sbx_put(o, "total_bytes", json_integer((json_int_t)s->total), &bad);
  sbx_put(o, "truncated", json_boolean(s->truncated), &bad);
  if (bad) {
    json_decref(o);
    return NULL;
  }
  return o;
}

int sbx_exec_result_finish(json_t *o, const struct sbx_exec_capture *cap,
                           struct sbx_exec_approvals *appr, const struct sbx_exec_durations *d,
                           const char *message, size_t message_len)
{
  static const struct sbx_exec_stream none = { 0 };
  bool bad = false;
  json_t *msg;

  sbx_put(o, "stdout", sbx_exec_stream_json(cap ? &cap->out : &none), &bad);
  sbx_put(o, "stderr", sbx_exec_stream_json(cap ? &cap->err : &none), &bad);
  pthread_mutex_lock(&appr->lock);
  sbx_put(o, "approvals", json_deep_copy(appr->list), &bad);
  pthread_mutex_unlock(&appr->lock);
  sbx_put(o, "durations",
          json_pack("{s:I, s:I, s:I}", "total_ms", (json_int_t)d->total_ms, "admission_ms",
                    (json_int_t)d->admission_ms, "run_ms", (json_int_t)d->run_ms),
          &bad);
  /* sbx's own messages (refusals named, notes), never mixed into the
   * command's streams; a message not in UTF-8 is not expected (sbx
   * escapes what it quotes) but would be replaced, not dropped silently. */
  msg = json_stringn(message ? message : "", message ? message_len : 0);
  sbx_put(o, "message", msg ? msg : json_string("<sbx's messages were not UTF-8>"), &bad);
  return bad ? -ENOMEM : 0;
}

json_t *sbx_exec_error_object(const struct sbx_exec_error *e)
{
  return json_pack("{s:i, s:{s:s, s:s, s:s?}}", "version", SBX_EXEC_PROTOCOL, "error", "code",
                   e->code ? e->code : "internal", "message", e->message, "field",
                   e->field[0] ? e->field : NULL);
}

int sbx_exec_write(int fd, const json_t *o)
{
  char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
  size_t n, off = 0;
  int r = 0;
  if (!text)
    return -ENOMEM;
  n = strlen(text);
  text[n] = '\n'; /* over the NUL: written by length */
  while (off < n + 1) {
    ssize_t w = write(fd, text + off, n + 1 - off);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      r = w < 0 ? -errno : -EIO;
      break;
    }
    off += (size_t)w;
  }
  free(text);
  return r;
}

int sbx_exec_approvals_init(struct sbx_exec_approvals *a)
{
  a->dropped = 0;
  a->list = json_array();
  if (!a->list)
    return -ENOMEM;
  pthread_mutex_init(&a->lock, NULL);
  return 0;
}

void sbx_exec_approvals_add(struct sbx_exec_approvals *a, const struct cs_approval_request *req,
                            const struct cs_approval_decision *d)
{
  json_t *j;
  pthread_mutex_lock(&a->lock);
  if (json_array_size(a->list) >= SBX_EXEC_APPROVALS_MAX) {
    a->dropped++;
    pthread_mutex_unlock(&a->lock);
    return;
  }
  j = json_pack("{s:s, s:s, s:o, s:o, s:s, s:s, s:s, s:s, s:I}", "operation",
                cs_approval_op_name(req->operation), "layer", req->layer ? req->layer : "?", "path",
                sbx_exec_text_lossy(req->path), "address", sbx_exec_text_lossy(req->address),
                "decision", d->allow ? "allow" : "deny", "scope", cs_approval_scope_name(d->scope),
                "approver", d->approver, "reason", d->reason, "latency_ms",
                (json_int_t)d->latency_ms);
  if (!j || json_array_append_new(a->list, j) != 0)
    a->dropped++;
  pthread_mutex_unlock(&a->lock);
}

void sbx_exec_approvals_free(struct sbx_exec_approvals *a)
{
  if (!a->list)
    return;
  json_decref(a->list);
  a->list = NULL;
  pthread_mutex_destroy(&a->lock);
}
