/* tee_pool: the isolated workers kept ready and the evaluations handed to
 * them (cs_tee.h, docs/tiers.md). */
#include "cs_tee.h"

#include "tee_frame.h"
#include "tee_reply.h"
#include "tee_spawn.h"

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TEE_POOL_DEFAULT_START_MS 5000u
/* How long a worker that closed its channel gets to be reaped before it
 * is killed: its own end is the one worth reporting. */
#define TEE_POOL_EXIT_GRACE_MS 200u

struct cs_tee_pool {
  struct cs_tee_config cfg;
  char **argv; /* the worker's command line, owned */
  size_t argc;
  struct tee_slot *slots;
  unsigned next; /* round robin */
  char *buf;     /* a reply, max_message + 1 */
  struct cs_tee_stats st;
};

const char *cs_tee_status_name(enum cs_tee_status s)
{
  switch (s) {
  case CS_TEE_OK:
    return "ok";
  case CS_TEE_JS_ERROR:
    return "js-error";
  case CS_TEE_TIMEOUT:
    return "timeout";
  case CS_TEE_WORKER_DIED:
    return "worker-died";
  case CS_TEE_BAD_REPLY:
    return "bad-reply";
  case CS_TEE_NO_WORKER:
    return "no-worker";
  }
  return "?";
}

/* One more argument of the worker's command line, copied. */
static int tee_pool_arg(struct cs_tee_pool *p, const char *s)
{
  p->argv[p->argc] = strdup(s);
  return p->argv[p->argc++] ? 0 : -ENOMEM;
}

/* "--heap=" and 123 make "--heap=123". */
static int tee_pool_arg_number(struct cs_tee_pool *p, const char *option, unsigned long long v)
{
  char tmp[64];

  snprintf(tmp, sizeof tmp, "%s%llu", option, v);
  return tee_pool_arg(p, tmp);
}

static int tee_pool_config(struct cs_tee_config *c, const struct cs_tee_config *in)
{
  *c = *in;
  if (!c->worker_path || c->worker_path[0] != '/')
    return -EINVAL; /* an absolute path: never a search of PATH */
  if (!c->workers)
    c->workers = CS_TEE_DEFAULT_WORKERS;
  if (!c->timeout_ms)
    c->timeout_ms = CS_TEE_DEFAULT_TIMEOUT_MS;
  if (!c->heap_bytes)
    c->heap_bytes = CS_TEE_DEFAULT_HEAP_BYTES;
  if (!c->cpu_seconds)
    c->cpu_seconds = CS_TEE_DEFAULT_CPU_SECONDS;
  if (!c->max_message)
    c->max_message = CS_TEE_DEFAULT_MAX_MESSAGE;
  if (!c->start_timeout_ms)
    c->start_timeout_ms = TEE_POOL_DEFAULT_START_MS;
  /* A timeout the CPU budget cannot cover would retire every worker
   * before its first evaluation. */
  if (c->workers > CS_TEE_MAX_WORKERS || c->heap_bytes < CS_TEE_MIN_HEAP_BYTES ||
      c->heap_bytes > CS_TEE_MAX_HEAP_BYTES || c->max_message < 64u ||
      c->max_message > CS_TEE_MAX_MESSAGE_LIMIT || c->timeout_ms > (uint64_t)c->cpu_seconds * 1000u)
    return -EINVAL;
  return 0;
}

/* A reply's header, body (max_message) and NUL. */
static size_t tee_pool_buf_size(const struct cs_tee_pool *p)
{
  return TEE_FRAME_HEADER + p->cfg.max_message + 1;
}

/* Starts a worker in slot i (not yet checked ready). */
static int tee_pool_start(struct cs_tee_pool *p, unsigned i)
{
  int r = tee_spawn_start(&p->slots[i], p->argv);
  if (r == 0)
    p->st.started++;
  return r;
}

/* Ends the worker of slot i and starts its replacement at once, so the
 * pool is ready again by the next request. */
static int tee_pool_replace(struct cs_tee_pool *p, unsigned i, unsigned grace_ms, int *status)
{
  int sig = tee_spawn_end(&p->slots[i], grace_ms, status);
  p->st.replaced++;
  (void)tee_pool_start(p, i);
  return sig;
}

/* The worker of slot i has said ready and the kernel has it in strict
 * mode. 0, or -1 with why (the worker is then ended). */
static int tee_pool_ready(struct cs_tee_pool *p, unsigned i, const char **why)
{
  struct tee_slot *s = &p->slots[i];
  char *body;
  size_t len;
  int r;

  if (s->ready)
    return 0;
  if (s->pid == 0 && tee_pool_start(p, i) != 0) {
    *why = "the worker could not be started";
    return -1;
  }
  r = tee_spawn_recv(s, p->buf, tee_pool_buf_size(p), tee_now_ms() + p->cfg.start_timeout_ms, &body,
                     &len);
  if (r != 0)
    *why = r == -ETIMEDOUT ? "the worker did not get ready in time"
                           : "the worker ended before it was ready";
  else if (tee_reply_parse_ready(body, len, why) != 0)
    r = -1;
  /* Its word is not enough: the kernel must say it is in strict mode. */
  else if (!tee_spawn_is_strict(s->pid)) {
    *why = "the worker is not in seccomp strict mode";
    r = -1;
  }
  if (r != 0) {
    (void)tee_spawn_end(s, 0, NULL);
    p->st.replaced++;
    return -1;
  }
  s->ready = true;
  return 0;
}

static void tee_pool_free(struct cs_tee_pool *p)
{
  if (p->argv)
    for (size_t i = 0; i < p->argc; i++)
      free(p->argv[i]);
  free(p->argv);
  free(p->slots);
  free(p->buf);
  free(p);
}

int cs_tee_pool_open(struct cs_tee_pool **out, const struct cs_tee_config *cfg)
{
  struct cs_tee_pool *p;
  size_t extra = 0;
  int r;

  *out = NULL;
  if (!cfg)
    return -EINVAL;
  p = calloc(1, sizeof(*p));
  if (!p)
    return -ENOMEM;
  r = tee_pool_config(&p->cfg, cfg);
  if (r != 0) {
    free(p);
    return r;
  }
  while (cfg->extra_args && cfg->extra_args[extra])
    extra++;
  p->argv = calloc(5 + extra, sizeof(char *));
  p->slots = calloc(p->cfg.workers, sizeof(struct tee_slot));
  p->buf = malloc(tee_pool_buf_size(p));
  if (!p->argv || !p->slots || !p->buf) {
    tee_pool_free(p);
    return -ENOMEM;
  }
  r = tee_pool_arg(p, p->cfg.worker_path);
  r = r ? r : tee_pool_arg_number(p, "--heap=", p->cfg.heap_bytes);
  r = r ? r : tee_pool_arg_number(p, "--cpu=", p->cfg.cpu_seconds);
  r = r ? r : tee_pool_arg_number(p, "--max-message=", p->cfg.max_message);
  for (size_t i = 0; r == 0 && i < extra; i++)
    r = tee_pool_arg(p, cfg->extra_args[i]);
  p->cfg.worker_path = p->argv[0];
  p->cfg.extra_args = NULL;
  if (r != 0) {
    tee_pool_free(p);
    return r;
  }
  for (unsigned i = 0; i < p->cfg.workers; i++)
    p->slots[i].fd = -1;
  /* Started now, checked at first use: the workers set up while the
   * caller goes on. */
  for (unsigned i = 0; i < p->cfg.workers; i++) {
    r = tee_pool_start(p, i);
    if (r != 0) {
      cs_tee_pool_close(p);
      return r;
    }
  }
  *out = p;
  return 0;
}

void cs_tee_pool_close(struct cs_tee_pool *p)
{
  if (!p)
    return;
  for (unsigned i = 0; i < p->cfg.workers; i++)
    if (p->slots[i].pid > 0 || p->slots[i].fd >= 0)
      (void)tee_spawn_end(&p->slots[i], 0, NULL);
  tee_pool_free(p);
}

void cs_tee_pool_stats(const struct cs_tee_pool *p, struct cs_tee_stats *st)
{
  *st = p->st;
}

void cs_tee_result_free(struct cs_tee_result *res)
{
  free(res->value);
  free(res->error);
  res->value = res->error = NULL;
}

/* error = what + detail. */
static int tee_pool_fail(struct cs_tee_result *res, enum cs_tee_status status, const char *what,
                         const char *detail)
{
  char text[512];

  snprintf(text, sizeof text, "%s%s", what, detail);
  res->status = status;
  res->error = strdup(text);
  return res->error ? 0 : -ENOMEM;
}

/* The request's header, {"code":...,"collect":...}, or NULL (-EINVAL
 * code not UTF-8, -ENOMEM). The input is not in it: it goes as a message
 * of its own, unparsed here (the worker parses it, confined), so no
 * input can add to the header. */
static char *tee_pool_header(const char *code, unsigned flags, int *err)
{
  json_t *req = json_pack("{s:s, s:b}", "code", code, "collect", (flags & CS_TEE_COLLECT) != 0);
  char *text;

  *err = -EINVAL;
  if (!req)
    return NULL;
  text = json_dumps(req, JSON_COMPACT);
  json_decref(req);
  *err = text ? 0 : -ENOMEM;
  return text;
}

/* A ready worker's slot: the next in turn, replaced first when its CPU
 * budget could not cover one more evaluation. -1 when none could be made
 * ready (why says why). */
static int tee_pool_pick(struct cs_tee_pool *p, const char **why)
{
  unsigned i = p->next;

  p->next = (p->next + 1) % p->cfg.workers;
  /* Why: its RLIMIT_CPU counts over its whole life, and an evaluation
   * uses at most its wall time in CPU (one thread). A worker killed by
   * SIGXCPU mid-request would fail a request that did nothing wrong. */
  if (p->slots[i].pid > 0 &&
      p->slots[i].spent_ms + p->cfg.timeout_ms > (uint64_t)p->cfg.cpu_seconds * 1000u)
    (void)tee_pool_replace(p, i, 0, NULL);
  /* One retry: a worker that died while idle is not the request's fault. */
  for (int attempt = 0; attempt < 2; attempt++) {
    if (tee_pool_ready(p, i, why) == 0)
      return (int)i;
  }
  return -1;
}

int cs_tee_eval(struct cs_tee_pool *p, const char *code, const char *input_json, unsigned flags,
                struct cs_tee_result *res)
{
  struct tee_reply reply;
  const char *why = "";
  uint64_t start, deadline;
  size_t len = 0;
  char *body = NULL;
  char *req;
  int r, i;

  memset(res, 0, sizeof(*res));
  if (!p || !code || (input_json && !*input_json))
    return -EINVAL;
  req = tee_pool_header(code, flags, &r);
  if (!req)
    return r;
  size_t req_len = strlen(req), input_len = input_json ? strlen(input_json) : 0;
  /* The worker holds header and input in one buffer of the limit. */
  if (req_len + 1 + input_len > p->cfg.max_message) {
    free(req);
    return -E2BIG;
  }
  p->st.evaluations++;
  i = tee_pool_pick(p, &why);
  if (i < 0) {
    free(req);
    return tee_pool_fail(res, CS_TEE_NO_WORKER, "no isolated worker: ", why);
  }
  struct tee_slot *s = &p->slots[i];
  res->worker = s->pid;
  start = tee_now_ms();
  deadline = start + p->cfg.timeout_ms;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  const char *const bodies[2] = { req, input_json ? input_json : "" };
  const size_t lens[2] = { req_len, input_len };
  r = tee_spawn_send(s, bodies, lens, 2, deadline);
  free(req);
  /* A worker that cannot be written to has ended (or closed its end):
   * not a reply of any kind. */
  if (r != 0 && r != -ETIMEDOUT)
    r = -ENODATA;
  if (r == 0)
    r = tee_spawn_recv(s, p->buf, tee_pool_buf_size(p), deadline, &body, &len);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  res->duration_us =
      (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000u + (uint64_t)((t1.tv_nsec - t0.tv_nsec) / 1000);
  s->spent_ms += tee_now_ms() - start + 1;
  if (r == -ETIMEDOUT) {
    /* The wall time is enforced by killing: a worker cannot be asked to
     * stop, it has no clock and reads nothing while it computes. */
    res->signal = tee_pool_replace(p, (unsigned)i, 0, NULL);
    return tee_pool_fail(res, CS_TEE_TIMEOUT, "evaluation timed out", "");
  }
  if (r == -EMSGSIZE || r == -EPROTO) {
    res->signal = tee_pool_replace(p, (unsigned)i, 0, NULL);
    return tee_pool_fail(res, CS_TEE_BAD_REPLY, "bad reply: ",
                         r == -EPROTO ? "more than one message" : "over the size limit");
  }
  if (r == -EPIPE) {
    res->signal = tee_pool_replace(p, (unsigned)i, TEE_POOL_EXIT_GRACE_MS, NULL);
    return tee_pool_fail(res, CS_TEE_BAD_REPLY, "bad reply: ", "cut off");
  }
  if (r != 0) {
    char what[96];
    int status = -1;
    res->signal = tee_pool_replace(p, (unsigned)i, TEE_POOL_EXIT_GRACE_MS, &status);
    if (res->signal)
      snprintf(what, sizeof what, "was killed by signal %d (%s)", res->signal,
               strsignal(res->signal));
    else
      snprintf(what, sizeof what, "ended with status %d", status);
    strncat(what, " before it answered", sizeof what - strlen(what) - 1);
    return tee_pool_fail(res, CS_TEE_WORKER_DIED, "the worker ", what);
  }
  if (tee_reply_parse(body, len, &reply, &why) != 0) {
    /* A worker that says anything malformed is not believed again. */
    res->signal = tee_pool_replace(p, (unsigned)i, 0, NULL);
    return tee_pool_fail(res, CS_TEE_BAD_REPLY, "bad reply: ", why);
  }
  res->heap_used = reply.heap;
  res->status = reply.ok ? CS_TEE_OK : CS_TEE_JS_ERROR;
  res->value = reply.value;
  res->error = reply.error;
  if (reply.retire)
    (void)tee_pool_replace(p, (unsigned)i, TEE_POOL_EXIT_GRACE_MS, NULL);
  return 0;
}
