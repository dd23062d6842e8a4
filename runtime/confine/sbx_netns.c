/* sbx_netns: loopback of a proxied run's network namespace.
 *
 * A new network namespace has only "lo", and it is down: nothing, not even
 * 127.0.0.1, can be reached. A proxied run needs loopback for the proxy's
 * listeners (docs/network-proxy.md), so pid 1, which holds every
 * capability of the namespace before it drops them, sets it up with
 * SIOCSIFFLAGS. No other interface exists, and none can be added once the
 * command has lost CAP_NET_ADMIN, so loopback is all it can reach. */
#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sbx_netns.h"

int sbx_netns_loopback_up(struct sbx_fail *f)
{
  struct ifreq ifr;
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), e;
  if (fd < 0) {
    e = errno;
    sbx_fail_set(f, SBX_LAYER_NAMESPACES, e, "network namespace: a socket to set loopback up: %s",
                 strerror(e));
    return -e;
  }
  memset(&ifr, 0, sizeof ifr);
  memcpy(ifr.ifr_name, "lo", 3);
  if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
    goto fail;
  ifr.ifr_flags = (short)(ifr.ifr_flags | IFF_UP);
  if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
    goto fail;
  /* Read back: a loopback that stayed down would leave the proxy
   * unreachable with a confusing error later; refuse now instead. */
  if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
    goto fail;
  if (!(ifr.ifr_flags & IFF_UP)) {
    close(fd);
    sbx_fail_set(f, SBX_LAYER_NAMESPACES, EIO,
                 "network namespace: loopback did not come up (the proxy would be unreachable)");
    return -EIO;
  }
  close(fd);
  return 0;
fail:
  e = errno;
  close(fd);
  sbx_fail_set(f, SBX_LAYER_NAMESPACES, e, "network namespace: setting loopback up: %s",
               strerror(e));
  return -e;
}
