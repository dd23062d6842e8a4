/* sbx_run_net: a proxied run's network as `sbx run` sees it: the proxy's
 * configuration (who is asked, what the requests name), each connection's
 * record for the audit log, and the refusals said on sbx's diagnostics
 * (docs/network-proxy.md). */
#ifndef CS_RUNTIME_SBX_RUN_NET_H
#define CS_RUNTIME_SBX_RUN_NET_H

#include <stddef.h>

#include "sbx_approve.h"
#include "sbx_audit.h"
#include "sbx_proxy.h"

/* Distinct refused destinations said on the diagnostics; the rest are in
 * the audit record only. */
#define SBX_RUN_NET_SAID_MAX 16

struct sbx_run_net {
  struct sbx_proxy_cfg cfg;
  struct sbx_proxy_conn *conns; /* the first SBX_AUDIT_CONNS_MAX */
  size_t n_conns;
  struct sbx_audit_conn *audit_conns;
  struct sbx_audit_network audit;
  char said[SBX_RUN_NET_SAID_MAX][272];
  size_t n_said;
};

/* For a proxied profile: 0 with n->cfg ready for sbx_run_request.proxy,
 * asking through appr's manager; -ENOMEM. */
int sbx_run_net_begin(struct sbx_run_net *n, struct sbx_approve *appr, const char *workspace,
                      const char *cwd, const char *run_id, unsigned ask_timeout_ms);
/* After the run: the audit record's "network" (valid until _end). */
const struct sbx_audit_network *sbx_run_net_audit(struct sbx_run_net *n);
void sbx_run_net_end(struct sbx_run_net *n);

#endif
