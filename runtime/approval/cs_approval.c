/* cs_approval: the approval manager (cs_approval.h): scopes, fail-closed
 * decisions, latency. Approvers live in cs_approval_exec.c,
 * cs_approval_socket.c, cs_approval_tty.c; the store in
 * cs_approval_store.c; operation names and command rules in cs_cmdrule
 * (runtime/cmdrule). */
#include "cs_approval.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cs_approval_internal.h"

static const char *const cs_approval_scope_names[] = { "once", "session", "always" };

struct cs_approval_grant {
  enum cs_approval_operation op;
  char prefix[CS_APPROVAL_PREFIX_MAX];
};

struct cs_approval_mgr {
  pthread_mutex_t lock;
  struct cs_approver approver;
  unsigned timeout_ms;
  char *store_path;
  cs_approval_record_fn record;
  void *record_ctx;
  uint64_t next_id;
  struct cs_approval_grant *session;
  size_t n_session, cap_session;
};

const char *cs_approval_scope_name(enum cs_approval_scope s)
{
  return (unsigned)s <= CS_APPROVAL_ALWAYS ? cs_approval_scope_names[s] : "?";
}

int cs_approval_scope_parse(const char *name, enum cs_approval_scope *s)
{
  for (unsigned i = 0; name && i <= CS_APPROVAL_ALWAYS; i++)
    if (strcmp(name, cs_approval_scope_names[i]) == 0) {
      *s = (enum cs_approval_scope)i;
      return 0;
    }
  return -EINVAL;
}

uint64_t cs_approval_now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int cs_approval_prefix(const char *const *argv, char *buf, size_t len)
{
  const char *base;
  int n;

  if (!argv || !argv[0] || !argv[0][0] || !buf || len == 0)
    return -EINVAL;
  base = strrchr(argv[0], '/');
  base = base ? base + 1 : argv[0];
  /* A sub-command ("git config", "docker rm") is part of what was
   * approved; an option or a path is not (it would make every grant
   * single-use, or let "rm -i" stand for "rm -rf"). */
  if (argv[1] && argv[1][0] && argv[1][0] != '-' && !strchr(argv[1], '/'))
    n = snprintf(buf, len, "%s %s", base, argv[1]);
  else
    n = snprintf(buf, len, "%s", base);
  return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int cs_approval_create(const struct cs_approval_opts *opts, struct cs_approval_mgr **out)
{
  struct cs_approval_mgr *m = NULL;

  if (!opts || !out) {
    if (opts && opts->approver.destroy)
      opts->approver.destroy(opts->approver.ctx);
    return -EINVAL;
  }
  *out = NULL;
  m = calloc(1, sizeof *m);
  if (!m)
    goto nomem;
  if (pthread_mutex_init(&m->lock, NULL) != 0) {
    free(m);
    m = NULL;
    goto nomem;
  }
  m->approver = opts->approver;
  m->timeout_ms = opts->timeout_ms ? opts->timeout_ms : CS_APPROVAL_DEFAULT_TIMEOUT_MS;
  m->record = opts->record;
  m->record_ctx = opts->record_ctx;
  m->next_id = 1;
  if (opts->store_path && !(m->store_path = strdup(opts->store_path))) {
    cs_approval_destroy(m);
    return -ENOMEM;
  }
  *out = m;
  return 0;
nomem:
  if (opts->approver.destroy)
    opts->approver.destroy(opts->approver.ctx);
  return -ENOMEM;
}

void cs_approval_destroy(struct cs_approval_mgr *m)
{
  if (!m)
    return;
  if (m->approver.destroy)
    m->approver.destroy(m->approver.ctx);
  pthread_mutex_destroy(&m->lock);
  free(m->store_path);
  free(m->session);
  free(m);
}

static bool cs_approval_session_has(const struct cs_approval_mgr *m, enum cs_approval_operation op,
                                    const char *prefix)
{
  for (size_t i = 0; i < m->n_session; i++)
    if (m->session[i].op == op && strcmp(m->session[i].prefix, prefix) == 0)
      return true;
  return false;
}

static int cs_approval_session_add(struct cs_approval_mgr *m, enum cs_approval_operation op,
                                   const char *prefix)
{
  if (cs_approval_session_has(m, op, prefix))
    return 0;
  if (m->n_session == m->cap_session) {
    size_t cap = m->cap_session ? m->cap_session * 2 : 8;
    struct cs_approval_grant *g = realloc(m->session, cap * sizeof *g);
    if (!g)
      return -ENOMEM;
    m->session = g;
    m->cap_session = cap;
  }
  m->session[m->n_session].op = op;
  snprintf(m->session[m->n_session].prefix, sizeof m->session[0].prefix, "%s", prefix);
  m->n_session++;
  return 0;
}

static void cs_approval_deny(struct cs_approval_decision *d, const char *approver,
                             const char *reason)
{
  d->allow = false;
  d->scope = CS_APPROVAL_ONCE;
  if (approver)
    snprintf(d->approver, sizeof d->approver, "%s", approver);
  snprintf(d->reason, sizeof d->reason, "%s", reason);
}

int cs_approval_ask(struct cs_approval_mgr *m, struct cs_approval_request *req,
                    struct cs_approval_decision *d)
{
  struct cs_approval_decision got;
  char prefix[CS_APPROVAL_PREFIX_MAX];
  uint64_t t0 = cs_approval_now_ms();
  int r;

  if (!d)
    return -EINVAL;
  memset(d, 0, sizeof *d);
  if (!m || !req || (unsigned)req->operation >= CS_APPROVAL_OP_COUNT_) {
    cs_approval_deny(d, "none", "invalid approval request");
    return -EINVAL;
  }
  pthread_mutex_lock(&m->lock);
  req->id = m->next_id++;
  prefix[0] = '\0';
  if (req->grant_key) {
    if (snprintf(prefix, sizeof prefix, "%s", req->grant_key) >= (int)sizeof prefix)
      prefix[0] = '\0'; /* too long to keep: asked each time, never granted wider */
  } else if (req->argv && cs_approval_prefix(req->argv, prefix, sizeof prefix) != 0)
    prefix[0] = '\0';

  if (prefix[0] && cs_approval_session_has(m, req->operation, prefix)) {
    d->allow = true;
    d->scope = CS_APPROVAL_SESSION;
    snprintf(d->approver, sizeof d->approver, "session");
    snprintf(d->reason, sizeof d->reason, "granted earlier in this session for '%.200s'", prefix);
    goto done;
  }
  if (prefix[0] && m->store_path) {
    uint64_t gid = 0;
    r = cs_approval_store_find(m->store_path, req->operation, prefix, &gid);
    if (r == 0) {
      d->allow = true;
      d->scope = CS_APPROVAL_ALWAYS;
      snprintf(d->approver, sizeof d->approver, "store");
      snprintf(d->reason, sizeof d->reason, "standing grant %llu for '%.180s'",
               (unsigned long long)gid, prefix);
      goto done;
    }
    /* An unsafe or unreadable store is never trusted; the request still
     * goes to the approver, and an "always" answer will not be saved. */
  }
  if (!m->approver.decide) {
    cs_approval_deny(d, "none", "no approver configured (fail closed)");
    goto done;
  }
  memset(&got, 0, sizeof got);
  r = m->approver.decide(m->approver.ctx, req, m->timeout_ms, &got);
  got.approver[sizeof got.approver - 1] = '\0';
  got.reason[sizeof got.reason - 1] = '\0';
  *d = got;
  if (!d->approver[0])
    snprintf(d->approver, sizeof d->approver, "%s", m->approver.kind ? m->approver.kind : "?");
  if (r != 0) {
    d->allow = false;
    d->scope = CS_APPROVAL_ONCE;
    if (!d->reason[0])
      snprintf(d->reason, sizeof d->reason, "approver failed: %s", strerror(-r));
    goto done;
  }
  /* The approver's own clock is not trusted: an answer after the
   * deadline is a deny even if the approver says allow. */
  if (cs_approval_now_ms() - t0 > m->timeout_ms) {
    cs_approval_deny(d, NULL, "approver answered after the approval timeout");
    goto done;
  }
  if (!d->allow) {
    d->scope = CS_APPROVAL_ONCE;
    if (!d->reason[0])
      snprintf(d->reason, sizeof d->reason, "approver answered deny");
    goto done;
  }
  if (!d->reason[0])
    snprintf(d->reason, sizeof d->reason, "approver answered allow");
  if (d->scope == CS_APPROVAL_SESSION || d->scope == CS_APPROVAL_ALWAYS) {
    if (!prefix[0] || cs_approval_session_add(m, req->operation, prefix) != 0)
      d->scope = CS_APPROVAL_ONCE; /* still allowed this once */
  }
  if (d->scope == CS_APPROVAL_ALWAYS) {
    r = m->store_path ? cs_approval_store_add(m->store_path, req->operation, prefix) : -ENOENT;
    if (r != 0) {
      /* Allowed for this session only; saying so is better than silently
       * pretending a standing grant exists. */
      d->scope = CS_APPROVAL_SESSION;
      snprintf(d->reason, sizeof d->reason, "allowed; 'always' not saved (%s)",
               m->store_path ? strerror(-r) : "no store file");
    }
  }
done:
  d->latency_ms = cs_approval_now_ms() - t0;
  if (m->record)
    m->record(m->record_ctx, req, d);
  pthread_mutex_unlock(&m->lock);
  return d->allow ? 0 : -EPERM;
}

int cs_approver_parse(const char *spec, struct cs_approver *out)
{
  if (!spec || !out)
    return -EINVAL;
  if (strncmp(spec, "exec:", 5) == 0 && spec[5])
    return cs_approver_exec(spec + 5, out);
  if (strncmp(spec, "socket:", 7) == 0 && spec[7])
    return cs_approver_socket(spec + 7, out);
  if (strcmp(spec, "tty") == 0)
    return cs_approver_tty(out);
  return -EINVAL;
}
