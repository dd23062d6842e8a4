/* sbx_netns: the run's own network namespace of a proxied profile
 * (plan.net_proxied): its loopback, brought up by pid 1 before the
 * command exists, and the proxy's listeners on it, made by pid 1 and
 * handed to the supervisor (docs/network-proxy.md, "Reaching the
 * proxy"). */
#ifndef CS_RUNTIME_SBX_NETNS_H
#define CS_RUNTIME_SBX_NETNS_H

#include "sbx_fail.h"

/* Sets "lo" of the calling process's network namespace UP and checks it
 * came up. 0, or a negative errno with *f naming the namespaces layer. */
int sbx_netns_loopback_up(struct sbx_fail *f);

/* pid 1, once loopback is up: makes the proxy's two listeners
 * (127.0.0.1:SBX_PROXY_HTTP_PORT and :SBX_PROXY_SOCKS_PORT, in this
 * namespace), hands them to the supervisor over ctl (SBX_MSG_PROXY with
 * SCM_RIGHTS, HTTP first), closes its own copies and waits for the
 * supervisor's 'p' (its proxy serves them). 0, or a negative errno with
 * *f naming the proxy layer. */
int sbx_netns_proxy_handoff(int ctl, struct sbx_fail *f);

#endif
