/* sbx_proxy: the network proxy of one proxied run (docs/network-proxy.md),
 * as confinement's proxy hooks (struct sbx_proxy_hooks, sbx_hooks.h).
 *
 * pid 1 makes the two listeners inside the run's network namespace and
 * hands them over (runtime/confine/sbx_netns.c); start() compiles the
 * profile's destination policy (net_allow, net_deny, net_rest, net_local)
 * and serves them with the engine (runtime/netproxy) on a thread of the
 * supervisor, outside the sandbox: it resolves and dials in the host's
 * namespace. A destination the policy leaves to a person is asked through
 * the run's approval manager, by name, on a second thread, so the engine
 * never waits. Every connection's record goes to cfg->record.
 *
 * If the engine fails mid-run its thread closes the listeners and every
 * connection: from then on the command's connections to the proxy are
 * refused, and it has no other way out (its namespace has only loopback). */
#ifndef CS_RUNTIME_SBX_PROXY_H
#define CS_RUNTIME_SBX_PROXY_H

#include <stdbool.h>
#include <stdint.h>

#include "cs_approval.h"
#include "sbx_hooks.h"

/* Tests only (issue 14, "the proxy killed mid-run"): after this many
 * connections have ended, the proxy stops as if it had died. It can only
 * take network away. */
#define SBX_PROXY_DIES_AFTER_ENV "SBX_TEST_PROXY_DIES_AFTER"

/* One connection through the proxy, as the audit log keeps it
 * (docs/audit-log.md, "connections"). */
struct sbx_proxy_conn {
  char protocol[8];  /* "http" or "socks5" */
  char host[256];    /* the name (or literal) the client asked for; "" none */
  uint16_t port;     /* 0 when the client never named one */
  char dialled[64];  /* "203.0.113.7:443" connected to; "" none */
  bool allowed;      /* the policy or an approval let it through */
  char basis[224];   /* "rule registry.npmjs.org:443", "default deny", "approval ..." */
  char refusal[224]; /* why it was refused or cut; "" when it was not */
  uint64_t bytes_up, bytes_down;
  uint64_t duration_ms;
};

struct sbx_proxy_cfg {
  /* Asked about destinations under `rest ask`; NULL: they are refused. */
  struct cs_approval_mgr *mgr;
  unsigned ask_timeout_ms; /* the manager's timeout; a client waits a little longer */
  /* What an approval request names besides the destination. */
  const char *profile;
  char *const *argv;
  const char *workspace, *cwd, *run_id;
  /* Each connection at its close, on the proxy's thread; may be NULL. */
  void (*record)(void *ctx, const struct sbx_proxy_conn *conn);
  void *record_ctx;
};

extern const struct sbx_proxy_hooks sbx_proxy_hooks;

#endif
