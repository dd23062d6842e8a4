/* np_resolver: resolving a destination once and checking every address it
 * yields, in a bounded pool of worker threads so that a slow resolver never
 * blocks the event loop (docs/network-proxy.md "Resolve once"). */
#ifndef NP_RESOLVER_H
#define NP_RESOLVER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "np_policy.h"
#include "np_proxy.h"

struct np_resolve_job {
  struct np_resolve_job *next;
  uint64_t conn_id;
  struct np_host host;
  uint16_t port;
  /* The result: the checked addresses (port set), in resolver order. */
  size_t n;
  struct sockaddr_storage addrs[NP_ADDRS_MAX];
  int unresolvable; /* the name did not resolve (else: addresses refused) */
  char why[384];    /* when n == 0 */
};

struct np_resolver;

/* Starts threads workers; a finished job is announced by writing 1 to the
 * eventfd notify_fd. 0, or -1 with errno. */
int np_resolver_start(struct np_resolver **out, unsigned threads, const struct np_policy *policy,
                      np_resolve_fn resolve, void *ctx, int notify_fd);
/* Fills a job whose host is a literal address on the caller's thread when
 * its check needs no system call (a local range of the policy covers it,
 * or its class refuses it): 1, done as a worker would have done it; 0, a
 * name or an address to compare with the host's interfaces: submit it. */
int np_resolver_try_inline(const struct np_policy *policy, struct np_resolve_job *job);
/* Queues a job (the resolver owns it until np_resolver_take_done). */
void np_resolver_submit(struct np_resolver *r, struct np_resolve_job *job);
/* One finished job, or NULL. */
struct np_resolve_job *np_resolver_take_done(struct np_resolver *r);
/* Stops and joins the workers; frees every job still held. */
void np_resolver_stop(struct np_resolver *r);

/* The check, on its own for tests: keeps the addresses a policy lets the
 * proxy dial, writing why the first refused one was refused. Returns the
 * count kept. */
size_t np_resolver_filter(const struct np_policy *policy, struct sockaddr_storage *addrs, size_t n,
                          char *why, size_t whylen);

#endif
