/* np_proxy: the network proxy engine (docs/network-proxy.md). It serves
 * already-bound listening sockets (HTTP proxy and SOCKS5), judges every
 * destination by name against a compiled np_policy, resolves once in a
 * worker thread, drops addresses it must not dial, dials only what it
 * checked, and relays bytes on one epoll loop: spliced through a pipe per
 * direction, or copied through fixed buffers where a connection cannot
 * have pipes (docs/network-proxy.md "Relaying").
 *
 * Decisions leave through callbacks: `ask` for a destination the policy
 * leaves to a person (answered later, from any thread, by np_engine_answer;
 * the approval workflow plugs in here), `record` once per connection at its
 * close (the audit log plugs in here). */
#ifndef NP_PROXY_H
#define NP_PROXY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "np_policy.h"

#define NP_ADDRS_MAX 16 /* addresses kept from one resolution */

struct np_limits {
  unsigned max_connections; /* beyond: a new connection is refused at once */
  size_t head_max;          /* HTTP request head, blank line included */
  size_t buffer_size;       /* per direction per connection; >= head_max + 1024 */
  unsigned handshake_ms;    /* accept to relaying: head, resolve, dial */
  unsigned idle_ms;         /* a relayed connection with no byte either way */
  unsigned ask_ms;          /* an unanswered ask is a deny */
  unsigned resolver_threads;
  /* 1: relay every connection through the buffers (recv/send) instead of
   * splice(2); for measurements and tests. 0 (the default): splice where
   * the descriptor budget allows (docs/network-proxy.md "Relaying"). */
  int relay_copy;
};

void np_limits_default(struct np_limits *limits);

enum np_protocol {
  NP_PROTO_HTTP = 0,
  NP_PROTO_SOCKS5 = 1,
};

const char *np_protocol_name(enum np_protocol protocol);

/* A destination the policy leaves to a person. Valid during the call. */
struct np_ask {
  uint64_t id; /* for np_engine_answer */
  enum np_protocol protocol;
  const char *host; /* normalized */
  uint16_t port;
  const char *rule; /* why it is asked: "default ask" */
};

/* One connection, handed to `record` at its close. Valid during the call. */
struct np_record {
  enum np_protocol protocol;
  const char *host;     /* normalized; "" when the client never named one */
  uint16_t port;        /* 0 when never named */
  const char *dialled;  /* "address:port" connected to, "" when none */
  int allowed;          /* the policy (or an approval) let it through */
  const char *basis;    /* "rule PATTERN", "default deny", "approval", ... */
  const char *refusal;  /* why the client was refused or cut, NULL if not */
  uint64_t bytes_up;    /* client to destination */
  uint64_t bytes_down;  /* destination to client */
  uint64_t duration_ms; /* accept to close */
  const char *relay;    /* "splice", "copy", or "" when it never relayed */
};

/* Resolves a name in a worker thread, filling up to NP_ADDRS_MAX
 * addresses (port not set); returns the count, or -1 with *why set to a
 * static reason. Default: getaddrinfo. Tests substitute a hosts file. */
typedef int (*np_resolve_fn)(void *ctx, const char *name, struct sockaddr_storage *out, size_t max,
                             const char **why);

struct np_callbacks {
  void (*ask)(void *ctx, const struct np_ask *ask);          /* must not block */
  void (*record)(void *ctx, const struct np_record *record); /* on the loop's thread */
  np_resolve_fn resolve;                                     /* NULL: getaddrinfo */
  void *ctx;
};

struct np_engine_config {
  const struct np_policy *policy; /* borrowed; outlives the engine */
  struct np_limits limits;
  struct np_callbacks callbacks;
  const int *http_fds; /* listening sockets; the engine owns them from now */
  size_t n_http;
  const int *socks_fds;
  size_t n_socks;
};

struct np_engine;

/* 0, or -1 with the reason in err (fds are closed either way on failure).
 * Descriptors: a connection holds 2 sockets, and 4 more for its pipes when
 * it is spliced; the engine splices as many connections as RLIMIT_NOFILE
 * (read here) leaves room for after 2 per max_connections and a margin of
 * 64, and copies the rest. A caller that wants every connection spliced
 * raises the soft limit (to the hard one) before calling this. */
int np_engine_create(const struct np_engine_config *config, struct np_engine **out, char *err,
                     size_t errlen);
/* Serves until np_engine_stop; 0, or -1 with errno when the loop fails. */
int np_engine_run(struct np_engine *engine);
/* From any thread or a signal handler. */
void np_engine_stop(struct np_engine *engine);
/* The answer to an ask, from any thread; basis says who answered
 * ("approval by terminal"); copied. An id no longer waiting is ignored. */
void np_engine_answer(struct np_engine *engine, uint64_t id, int allow, const char *basis);
/* Closes every connection (each recorded) and frees the engine. */
void np_engine_destroy(struct np_engine *engine);

#endif
