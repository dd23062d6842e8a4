/* np_resolver: the worker pool that resolves and checks (np_resolver.h).
 * The addresses checked here are the only ones the engine dials: it never
 * resolves a name a second time, so a name that answers differently the
 * next time (DNS rebinding) reaches nothing new. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "np_addr.h"
#include "np_resolver.h"

struct np_resolver {
  pthread_mutex_t lock;
  pthread_cond_t wake;
  struct np_resolve_job *todo_head, **todo_tail;
  struct np_resolve_job *done;
  int stopping;
  int notify_fd;
  const struct np_policy *policy;
  np_resolve_fn resolve;
  void *ctx;
  unsigned n_threads;
  pthread_t *threads;
};

static int np_getaddrinfo(void *ctx, const char *name, struct sockaddr_storage *out, size_t max,
                          const char **why)
{
  (void)ctx;
  struct addrinfo hints = { 0 }, *res = NULL;
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  int rc = getaddrinfo(name, NULL, &hints, &res);
  if (rc != 0) {
    *why = gai_strerror(rc);
    return -1;
  }
  size_t n = 0;
  for (struct addrinfo *a = res; a && n < max; a = a->ai_next) {
    if ((a->ai_family != AF_INET && a->ai_family != AF_INET6) || a->ai_addrlen > sizeof out[0])
      continue;
    memset(&out[n], 0, sizeof out[n]);
    memcpy(&out[n], a->ai_addr, a->ai_addrlen);
    n++;
  }
  freeaddrinfo(res);
  return (int)n;
}

static const uint8_t *np_sa_bytes(const struct sockaddr_storage *sa, int *family)
{
  *family = sa->ss_family;
  if (sa->ss_family == AF_INET)
    return (const uint8_t *)&((const struct sockaddr_in *)(const void *)sa)->sin_addr;
  return (const uint8_t *)&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
}

size_t np_resolver_filter(const struct np_policy *policy, struct sockaddr_storage *addrs, size_t n,
                          char *why, size_t whylen)
{
  size_t kept = 0;
  why[0] = '\0';
  for (size_t i = 0; i < n; i++) {
    int family;
    const uint8_t *bytes = np_sa_bytes(&addrs[i], &family);
    char text[INET6_ADDRSTRLEN];
    if (family != AF_INET && family != AF_INET6)
      continue;
    inet_ntop(family, bytes, text, sizeof text);
    const char *range = NULL, *refusal = NULL;
    /* A local range the policy names is the owner's explicit choice to
     * reach that network: it overrides the classes and the own-address
     * check alike. */
    if (!np_policy_local_allowed(policy, family, bytes, &range)) {
      refusal = np_addr_special(family, bytes);
      if (!refusal) {
        int own = np_addr_is_own(family, bytes);
        if (own != 0)
          refusal = own > 0 ? "an address of this host"
                            : "unknown: this host's interfaces cannot be read";
      }
    }
    if (refusal) {
      if (why[0] == '\0')
        snprintf(why, whylen, "address %s is %s (no local range allows it)", text, refusal);
      continue;
    }
    if (kept != i)
      addrs[kept] = addrs[i];
    kept++;
  }
  return kept;
}

static void np_set_port(struct sockaddr_storage *sa, uint16_t port)
{
  if (sa->ss_family == AF_INET)
    ((struct sockaddr_in *)(void *)sa)->sin_port = htons(port);
  else
    ((struct sockaddr_in6 *)(void *)sa)->sin6_port = htons(port);
}

/* A literal address as the job's one address (port not set). */
static void np_literal_addr(struct np_resolve_job *job)
{
  memset(&job->addrs[0], 0, sizeof job->addrs[0]);
  if (job->host.kind == NP_HOST_IPV4) {
    struct sockaddr_in *sin = (struct sockaddr_in *)(void *)&job->addrs[0];
    sin->sin_family = AF_INET;
    memcpy(&sin->sin_addr, job->host.addr, 4);
  } else {
    struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)(void *)&job->addrs[0];
    sin6->sin6_family = AF_INET6;
    memcpy(&sin6->sin6_addr, job->host.addr, 16);
  }
}

static void np_finish_job(const struct np_policy *policy, struct np_resolve_job *job, size_t n)
{
  job->n = np_resolver_filter(policy, job->addrs, n, job->why, sizeof job->why);
  for (size_t i = 0; i < job->n; i++)
    np_set_port(&job->addrs[i], job->port);
}

int np_resolver_try_inline(const struct np_policy *policy, struct np_resolve_job *job)
{
  if (job->host.kind == NP_HOST_NAME)
    return 0;
  np_literal_addr(job);
  int family;
  const uint8_t *bytes = np_sa_bytes(&job->addrs[0], &family);
  const char *range = NULL;
  /* Decided by the policy's ranges or the address classes alone: the same
   * check np_resolver_filter makes, without the host's interface list
   * (getifaddrs), which only a worker reads. */
  if (!np_policy_local_allowed(policy, family, bytes, &range) && !np_addr_special(family, bytes))
    return 0;
  np_finish_job(policy, job, 1);
  return 1;
}

static void np_run_job(struct np_resolver *r, struct np_resolve_job *job)
{
  size_t n = 0;
  if (job->host.kind == NP_HOST_NAME) {
    const char *why = "no address";
    int got = r->resolve(r->ctx, job->host.text, job->addrs, NP_ADDRS_MAX, &why);
    if (got <= 0) {
      job->unresolvable = 1;
      snprintf(job->why, sizeof job->why, "cannot resolve %s: %s", job->host.text,
               got < 0 ? why : "no address");
      job->n = 0;
      return;
    }
    n = (size_t)got > NP_ADDRS_MAX ? NP_ADDRS_MAX : (size_t)got;
  } else {
    /* A literal address is judged exactly like a resolved one. */
    np_literal_addr(job);
    n = 1;
  }
  np_finish_job(r->policy, job, n);
}

static void *np_worker(void *arg)
{
  struct np_resolver *r = arg;
  pthread_mutex_lock(&r->lock);
  for (;;) {
    while (!r->stopping && !r->todo_head)
      pthread_cond_wait(&r->wake, &r->lock);
    if (r->stopping)
      break;
    struct np_resolve_job *job = r->todo_head;
    r->todo_head = job->next;
    if (!r->todo_head)
      r->todo_tail = &r->todo_head;
    pthread_mutex_unlock(&r->lock);
    np_run_job(r, job);
    pthread_mutex_lock(&r->lock);
    job->next = r->done;
    r->done = job;
    uint64_t one = 1;
    ssize_t w = write(r->notify_fd, &one, sizeof one);
    (void)w; /* an eventfd at its maximum is already readable */
  }
  pthread_mutex_unlock(&r->lock);
  return NULL;
}

int np_resolver_start(struct np_resolver **out, unsigned threads, const struct np_policy *policy,
                      np_resolve_fn resolve, void *ctx, int notify_fd)
{
  struct np_resolver *r = calloc(1, sizeof *r);
  if (!r)
    return -1;
  if (threads == 0)
    threads = 1;
  r->threads = calloc(threads, sizeof *r->threads);
  if (!r->threads) {
    free(r);
    return -1;
  }
  pthread_mutex_init(&r->lock, NULL);
  pthread_cond_init(&r->wake, NULL);
  r->todo_tail = &r->todo_head;
  r->notify_fd = notify_fd;
  r->policy = policy;
  r->resolve = resolve ? resolve : np_getaddrinfo;
  r->ctx = ctx;
  for (unsigned i = 0; i < threads; i++) {
    int rc = pthread_create(&r->threads[i], NULL, np_worker, r);
    if (rc != 0) {
      r->n_threads = i;
      np_resolver_stop(r);
      errno = rc;
      return -1;
    }
  }
  r->n_threads = threads;
  *out = r;
  return 0;
}

void np_resolver_submit(struct np_resolver *r, struct np_resolve_job *job)
{
  job->next = NULL;
  pthread_mutex_lock(&r->lock);
  *r->todo_tail = job;
  r->todo_tail = &job->next;
  pthread_mutex_unlock(&r->lock);
  /* After the unlock: the woken worker does not find the lock still held
   * (one futex round trip less on every connection's set-up). */
  pthread_cond_signal(&r->wake);
}

struct np_resolve_job *np_resolver_take_done(struct np_resolver *r)
{
  pthread_mutex_lock(&r->lock);
  struct np_resolve_job *job = r->done;
  if (job)
    r->done = job->next;
  pthread_mutex_unlock(&r->lock);
  return job;
}

static void np_free_jobs(struct np_resolve_job *j)
{
  while (j) {
    struct np_resolve_job *next = j->next;
    free(j);
    j = next;
  }
}

void np_resolver_stop(struct np_resolver *r)
{
  if (!r)
    return;
  pthread_mutex_lock(&r->lock);
  r->stopping = 1;
  pthread_cond_broadcast(&r->wake);
  pthread_mutex_unlock(&r->lock);
  for (unsigned i = 0; i < r->n_threads; i++)
    pthread_join(r->threads[i], NULL);
  np_free_jobs(r->todo_head);
  np_free_jobs(r->done);
  pthread_mutex_destroy(&r->lock);
  pthread_cond_destroy(&r->wake);
  free(r->threads);
  free(r);
}
