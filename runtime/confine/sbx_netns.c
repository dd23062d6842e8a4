/* sbx_netns: loopback of a proxied run's network namespace, and the
 * proxy's listeners on it.
 *
 * A new network namespace has only "lo", and it is down: nothing, not even
 * 127.0.0.1, can be reached. A proxied run needs loopback for the proxy's
 * listeners (docs/network-proxy.md), so pid 1, which holds every
 * capability of the namespace before it drops them, sets it up with
 * SIOCSIFFLAGS. No other interface exists, and none can be added once the
 * command has lost CAP_NET_ADMIN, so loopback is all it can reach. */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sbx_netns.h"
#include "sbx_request.h"
#include "sbx_sandbox.h"

/* How long pid 1 waits for the supervisor to say its proxy serves the
 * listeners. The supervisor answers at once unless it is starved; past
 * this the run is refused rather than started without its way out. */
#define SBX_PROXY_ACK_MS 30000
/* Connections the kernel queues per listener before the proxy accepts:
 * a burst of parallel downloads (npm opens dozens) is not refused. */
#define SBX_PROXY_BACKLOG 1024

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

/* One listening TCP socket on 127.0.0.1:port of the calling process's
 * network namespace; a descriptor, or a negative errno with *f set. */
static int sbx_netns_listen(uint16_t port, const char *what, struct sbx_fail *f)
{
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), e;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || bind(fd, (const struct sockaddr *)&a, sizeof a) < 0 ||
      listen(fd, SBX_PROXY_BACKLOG) < 0) {
    e = errno;
    if (fd >= 0)
      close(fd);
    sbx_fail_set(f, SBX_LAYER_PROXY, e, "the %s listener on 127.0.0.1:%u: %s", what, (unsigned)port,
                 strerror(e));
    return -e;
  }
  return fd;
}

int sbx_netns_proxy_handoff(int ctl, struct sbx_fail *f)
{
  int fds[2] = { -1, -1 }, e;
  struct sbx_msg m;
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(sizeof fds)];
  } cbuf;
  struct iovec iov = { .iov_base = &m, .iov_len = sizeof m };
  struct msghdr mh = {
    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf.buf, .msg_controllen = sizeof cbuf.buf
  };
  struct cmsghdr *c;
  struct pollfd pf = { .fd = ctl, .events = POLLIN };
  char ack = 0;
  ssize_t n;

  if ((fds[0] = sbx_netns_listen(SBX_PROXY_HTTP_PORT, "HTTP proxy", f)) < 0)
    return fds[0];
  if ((fds[1] = sbx_netns_listen(SBX_PROXY_SOCKS_PORT, "SOCKS5 proxy", f)) < 0) {
    close(fds[0]);
    return fds[1];
  }
  memset(&m, 0, sizeof m);
  m.kind = SBX_MSG_PROXY;
  memset(&cbuf, 0, sizeof cbuf);
  c = CMSG_FIRSTHDR(&mh);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof fds);
  memcpy(CMSG_DATA(c), fds, sizeof fds);
  n = sendmsg(ctl, &mh, MSG_NOSIGNAL);
  e = errno;
  /* Our copies go now: only the supervisor's proxy holds the listeners,
   * so nothing of the sandbox can accept on them, and when the proxy is
   * gone they are closed and every connection to them is refused. */
  close(fds[0]);
  close(fds[1]);
  if (n != (ssize_t)sizeof m) {
    sbx_fail_set(f, SBX_LAYER_PROXY, n < 0 ? e : EIO, "handing the listeners to the proxy: %s",
                 n < 0 ? strerror(e) : "short message");
    return -(n < 0 ? e : EIO);
  }
  /* The command starts only once the proxy serves: a run whose proxy
   * could not start is refused, not started without a way out. */
  if (poll(&pf, 1, SBX_PROXY_ACK_MS) != 1 || read(ctl, &ack, 1) != 1 || ack != 'p') {
    sbx_fail_set(f, SBX_LAYER_PROXY, EIO, "the proxy did not start for this run");
    return -EIO;
  }
  return 0;
}
