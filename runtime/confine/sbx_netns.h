/* sbx_netns: the run's own network namespace of a proxied profile
 * (plan.net_proxied): its loopback, brought up by pid 1 before the
 * command exists. */
#ifndef CS_RUNTIME_SBX_NETNS_H
#define CS_RUNTIME_SBX_NETNS_H

#include "sbx_fail.h"

/* Sets "lo" of the calling process's network namespace UP and checks it
 * came up. 0, or a negative errno with *f naming the namespaces layer. */
int sbx_netns_loopback_up(struct sbx_fail *f);

#endif
