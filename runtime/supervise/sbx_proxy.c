/* sbx_proxy: the network proxy of one proxied run (see sbx_proxy.h). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "np_proxy.h"
#include "sbx_diag.h"
#include "sbx_fail.h"
#include "sbx_proxy.h"
#include "sbx_request.h"

/* Connections a run may hold open through the proxy at once. */
#define SBX_PROXY_MAX_CONNECTIONS 1024

/* One destination waiting for a person's answer, with every connection
 * that asked for it while the question was open: they share the answer,
 * so ten parallel downloads from one registry are one question. */
struct sbx_proxy_ask {
  struct sbx_proxy_ask *next;
  char host[NP_HOST_TEXT];
  uint16_t port;
  char rule[160];
  uint64_t *ids;
  size_t n_ids, cap_ids;
};

struct sbx_proxy_run {
  const struct sbx_proxy_cfg *cfg;
  const char *profile_name;
  struct np_policy *policy;
  struct np_engine *engine; /* NULL once the loop has ended and freed it */
  pthread_t loop, asker;
  bool asker_started;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  struct sbx_proxy_ask *queue;  /* not yet asked, oldest first */
  struct sbx_proxy_ask *asking; /* the one being asked now */
  bool stopping;
  unsigned dies_after; /* SBX_PROXY_DIES_AFTER_ENV; 0: never */
  unsigned ended;      /* connections recorded */
  bool destroying;     /* the loop's thread is freeing the engine */
};

static void sbx_proxy_ask_free(struct sbx_proxy_ask *a)
{
  if (a) {
    free(a->ids);
    free(a);
  }
}

static int sbx_proxy_ask_add_id(struct sbx_proxy_ask *a, uint64_t id)
{
  if (a->n_ids == a->cap_ids) {
    size_t cap = a->cap_ids ? a->cap_ids * 2 : 4;
    uint64_t *n = realloc(a->ids, cap * sizeof *n);
    if (!n)
      return -ENOMEM;
    a->ids = n;
    a->cap_ids = cap;
  }
  a->ids[a->n_ids++] = id;
  return 0;
}

/* The engine's ask callback, on its loop: never blocks. A connection
 * whose question cannot be queued is left unanswered, which the engine
 * turns into a deny at its ask deadline. */
static void sbx_proxy_on_ask(void *ctx, const struct np_ask *ask)
{
  struct sbx_proxy_run *r = ctx;
  struct sbx_proxy_ask *a, **tail;

  pthread_mutex_lock(&r->lock);
  for (a = r->asking; a; a = NULL)
    if (strcmp(a->host, ask->host) == 0 && a->port == ask->port)
      goto join;
  for (tail = &r->queue; *tail; tail = &(*tail)->next)
    if (strcmp((*tail)->host, ask->host) == 0 && (*tail)->port == ask->port) {
      a = *tail;
      goto join;
    }
  a = calloc(1, sizeof *a);
  if (!a)
    goto out;
  snprintf(a->host, sizeof a->host, "%s", ask->host);
  a->port = ask->port;
  snprintf(a->rule, sizeof a->rule, "%s (profile %s)", ask->rule ? ask->rule : "default ask",
           r->profile_name);
  *tail = a;
  pthread_cond_signal(&r->wake);
join:
  (void)sbx_proxy_ask_add_id(a, ask->id);
out:
  pthread_mutex_unlock(&r->lock);
}

/* Asks the approval manager, one destination at a time (the manager
 * asks one question at a time anyway), and hands the answer to every
 * connection waiting for it. */
static void *sbx_proxy_asker(void *arg)
{
  struct sbx_proxy_run *r = arg;
  const struct sbx_proxy_cfg *cfg = r->cfg;

  pthread_mutex_lock(&r->lock);
  for (;;) {
    struct sbx_proxy_ask *a;
    struct cs_approval_decision d;
    char address[NP_HOST_TEXT + 16], key[NP_HOST_TEXT + 24], basis[640];
    int allow;

    while (!r->queue && !r->stopping)
      pthread_cond_wait(&r->wake, &r->lock);
    if (!r->queue)
      break;
    a = r->asking = r->queue;
    r->queue = a->next;
    pthread_mutex_unlock(&r->lock);

    /* An IPv6 literal is shown bracketed, as a URL writes it. */
    snprintf(address, sizeof address, strchr(a->host, ':') ? "[%s]:%u" : "%s:%u", a->host,
             (unsigned)a->port);
    snprintf(key, sizeof key, "//%s", address);
    memset(&d, 0, sizeof d);
    if (!cfg->mgr) {
      allow = 0;
      snprintf(basis, sizeof basis, "refused: no approval workflow for this run");
    } else {
      struct cs_approval_request req = { .operation = CS_APPROVAL_OP_NETWORK,
                                         .argv = (const char *const *)cfg->argv,
                                         .address = address,
                                         .profile = cfg->profile,
                                         .rule = a->rule,
                                         .layer = "proxy",
                                         .workspace = cfg->workspace,
                                         .run_id = cfg->run_id,
                                         .cwd = cfg->cwd,
                                         .grant_key = key };
      allow = cs_approval_ask(cfg->mgr, &req, &d) == 0;
      snprintf(basis, sizeof basis, "%s by %.63s (%s): %.255s", allow ? "approved" : "refused",
               d.approver, cs_approval_scope_name(d.scope), d.reason);
    }

    pthread_mutex_lock(&r->lock);
    /* Connections that asked while this question was open joined it
     * (under the lock); all of them get this answer. */
    if (r->engine)
      for (size_t i = 0; i < a->n_ids; i++)
        np_engine_answer(r->engine, a->ids[i], allow, basis);
    r->asking = NULL;
    sbx_proxy_ask_free(a);
  }
  pthread_mutex_unlock(&r->lock);
  return NULL;
}

static void sbx_proxy_text(char *dst, size_t len, const char *src)
{
  snprintf(dst, len, "%s", src ? src : "");
}

/* The engine's record callback, on its loop. */
static void sbx_proxy_on_record(void *ctx, const struct np_record *rec)
{
  struct sbx_proxy_run *r = ctx;
  struct sbx_proxy_conn c;

  memset(&c, 0, sizeof c);
  sbx_proxy_text(c.protocol, sizeof c.protocol, np_protocol_name(rec->protocol));
  sbx_proxy_text(c.host, sizeof c.host, rec->host);
  c.port = rec->port;
  sbx_proxy_text(c.dialled, sizeof c.dialled, rec->dialled);
  c.allowed = rec->allowed != 0;
  sbx_proxy_text(c.basis, sizeof c.basis, rec->basis);
  sbx_proxy_text(c.refusal, sizeof c.refusal, rec->refusal);
  c.bytes_up = rec->bytes_up;
  c.bytes_down = rec->bytes_down;
  c.duration_ms = rec->duration_ms;
  if (r->cfg->record)
    r->cfg->record(r->cfg->record_ctx, &c);
  /* Test knob: the proxy "dies" here, as a crash would end it. */
  if (r->dies_after && !r->destroying && ++r->ended == r->dies_after)
    np_engine_stop(r->engine);
}

/* The engine's loop. When it ends, for a stop or a failure, the engine
 * is freed here: its listeners close, so the command's connections to
 * the proxy are refused from then on, never left to another way out. */
static void *sbx_proxy_loop(void *arg)
{
  struct sbx_proxy_run *r = arg;
  struct np_engine *e = r->engine;
  int rc = np_engine_run(e), err = errno;
  bool asked_to_stop;

  pthread_mutex_lock(&r->lock);
  asked_to_stop = r->stopping;
  pthread_mutex_unlock(&r->lock);
  if (rc != 0 && !asked_to_stop)
    fprintf(sbx_diag(), "sbx: proxy: stopped (%s); the run has no network from now on\n",
            strerror(err));
  else if (!asked_to_stop)
    fprintf(sbx_diag(), "sbx: proxy: stopped; the run has no network from now on\n");
  /* Records go out during destroy (on this thread) while the asker may
   * want to answer: it answers only while r->engine is set. */
  pthread_mutex_lock(&r->lock);
  r->destroying = true;
  np_engine_destroy(e);
  r->engine = NULL;
  pthread_mutex_unlock(&r->lock);
  return NULL;
}

/* The profile's destination policy, compiled. */
static int sbx_proxy_policy(const struct cs_profile *p, struct np_policy **out, char *err,
                            size_t errlen)
{
  struct np_policy_spec spec;
  const char **allow = calloc(p->n_net_allow + 1, sizeof *allow);
  const char **deny = calloc(p->n_net_deny + 1, sizeof *deny);
  const char **local = calloc(p->n_net_local + 1, sizeof *local);
  int rc = -ENOMEM;

  if (!allow || !deny || !local) {
    snprintf(err, errlen, "out of memory");
    goto done;
  }
  for (uint32_t i = 0; i < p->n_net_allow; i++)
    allow[i] = p->net_allow[i].pattern;
  for (uint32_t i = 0; i < p->n_net_deny; i++)
    deny[i] = p->net_deny[i].pattern;
  for (uint32_t i = 0; i < p->n_net_local; i++)
    local[i] = p->net_local[i].pattern;
  memset(&spec, 0, sizeof spec);
  spec.allow = allow;
  spec.n_allow = p->n_net_allow;
  spec.deny = deny;
  spec.n_deny = p->n_net_deny;
  /* Anything but an explicit ask is a deny: a table from a newer
   * compiler with a value this sbx does not know asks nobody. */
  spec.rest = p->net_rest == CS_NET_REST_ASK ? NP_DEFAULT_ASK : NP_DEFAULT_DENY;
  spec.local_ranges = local;
  spec.n_local_ranges = p->n_net_local;
  rc = np_policy_compile(&spec, out, err, errlen) == 0 ? 0 : -EINVAL;
done:
  free(allow);
  free(deny);
  free(local);
  return rc;
}

static void sbx_proxy_raise_nofile(void)
{
  struct rlimit rl;
  /* Best effort: without it the engine still bounds itself, and a
   * connection it cannot accept is refused, never let around it. */
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    (void)setrlimit(RLIMIT_NOFILE, &rl);
  }
}

static void sbx_proxy_free(struct sbx_proxy_run *r)
{
  while (r->queue) {
    struct sbx_proxy_ask *a = r->queue;
    r->queue = a->next;
    sbx_proxy_ask_free(a);
  }
  np_policy_free(r->policy);
  pthread_cond_destroy(&r->wake);
  pthread_mutex_destroy(&r->lock);
  free(r);
}

static void *sbx_proxy_start(const struct sbx_run_request *req, int http_fd, int socks_fd,
                             struct sbx_fail *f)
{
  const struct sbx_proxy_cfg *cfg = req->proxy;
  struct sbx_proxy_run *r = calloc(1, sizeof *r);
  struct np_engine_config ec;
  char err[320];
  const char *knob = getenv(SBX_PROXY_DIES_AFTER_ENV);
  int rc;

  if (!r) {
    close(http_fd);
    close(socks_fd);
    sbx_fail_set(f, SBX_LAYER_PROXY, ENOMEM, "out of memory");
    return NULL;
  }
  pthread_mutex_init(&r->lock, NULL);
  pthread_cond_init(&r->wake, NULL);
  r->cfg = cfg;
  r->profile_name = req->profile->name ? req->profile->name : "?";
  if (knob && *knob)
    r->dies_after = (unsigned)strtoul(knob, NULL, 10);
  if (sbx_proxy_policy(req->profile, &r->policy, err, sizeof err) != 0) {
    close(http_fd);
    close(socks_fd);
    /* pnetc refuses such a table; one that reaches here anyway (another
     * compiler, a damaged file) runs nothing. */
    sbx_fail_set(f, SBX_LAYER_PROXY, EINVAL, "profile '%s': %s", r->profile_name, err);
    sbx_proxy_free(r);
    return NULL;
  }
  memset(&ec, 0, sizeof ec);
  ec.policy = r->policy;
  np_limits_default(&ec.limits);
  /* A package manager's parallel downloads, with room: each connection
   * holds two sockets here (and the relay's pipes), so sbx's own soft
   * descriptor limit is raised to its hard one for them. Past the cap a
   * new connection is refused at once (503), never queued unbounded. */
  ec.limits.max_connections = SBX_PROXY_MAX_CONNECTIONS;
  sbx_proxy_raise_nofile();
  /* A client waits as long as the person may take, and a little more, so
   * that the manager's timeout (a deny, recorded) is what ends the wait. */
  if (cfg->ask_timeout_ms)
    ec.limits.ask_ms = cfg->ask_timeout_ms + 5000;
  ec.callbacks.ask = sbx_proxy_on_ask;
  ec.callbacks.record = sbx_proxy_on_record;
  ec.callbacks.ctx = r;
  ec.http_fds = &http_fd;
  ec.n_http = 1;
  ec.socks_fds = &socks_fd;
  ec.n_socks = 1;
  if (np_engine_create(&ec, &r->engine, err, sizeof err) != 0) {
    sbx_fail_set(f, SBX_LAYER_PROXY, EIO, "%s", err);
    sbx_proxy_free(r);
    return NULL;
  }
  if ((rc = pthread_create(&r->asker, NULL, sbx_proxy_asker, r)) != 0) {
    np_engine_destroy(r->engine);
    sbx_fail_set(f, SBX_LAYER_PROXY, rc, "starting the approval thread: %s", strerror(rc));
    sbx_proxy_free(r);
    return NULL;
  }
  r->asker_started = true;
  if ((rc = pthread_create(&r->loop, NULL, sbx_proxy_loop, r)) != 0) {
    pthread_mutex_lock(&r->lock);
    r->stopping = true;
    pthread_cond_signal(&r->wake);
    pthread_mutex_unlock(&r->lock);
    pthread_join(r->asker, NULL);
    np_engine_destroy(r->engine);
    sbx_fail_set(f, SBX_LAYER_PROXY, rc, "starting the proxy thread: %s", strerror(rc));
    sbx_proxy_free(r);
    return NULL;
  }
  return r;
}

static void sbx_proxy_stop(void *state)
{
  struct sbx_proxy_run *r = state;
  if (!r)
    return;
  pthread_mutex_lock(&r->lock);
  r->stopping = true;
  if (r->engine)
    np_engine_stop(r->engine);
  pthread_cond_signal(&r->wake);
  pthread_mutex_unlock(&r->lock);
  pthread_join(r->loop, NULL);
  /* A question already put to a person is waited for (bounded by the
   * approval timeout): the manager it uses is freed after this. */
  if (r->asker_started)
    pthread_join(r->asker, NULL);
  sbx_proxy_free(r);
}

const struct sbx_proxy_hooks sbx_proxy_hooks = {
  .start = sbx_proxy_start,
  .stop = sbx_proxy_stop,
};
