/* Reaching another host without the approval the profile requires
 * (issue 12, section 4). Every target is an address of a network
 * namespace the test made itself (198.51.100.1 and 2001:db8::1 on a dummy
 * interface there); nothing real is contacted.
 *
 *   esc_reach unspec ADDR PORT   sendto / sendmsg / sendmmsg (second
 *                                message) to a sockaddr_in whose family
 *                                field is AF_UNSPEC: an IPv4 socket sends
 *                                it to ADDR; and AF_INET on an IPv6 socket
 *   esc_reach route ADDR6 ADDR PORT
 *                                a segment-routing header to ADDR6 by
 *                                setsockopt, a type-2 one by ancillary
 *                                data and inside IPV6_2292PKTOPTIONS, then
 *                                a send to ::1;
 *                                an LSRR option via ADDR by IP_OPTIONS and
 *                                as IP_RETOPTS ancillary data, then a send
 *                                to 127.0.0.1
 *   esc_reach listen ADDR PORT   bind 0.0.0.0, [::] or ADDR and listen;
 *                                listen on a socket never bound; bind UDP
 *                                to 0.0.0.0
 *   esc_reach listen_lo PORT     positive: bind 127.0.0.1 and listen works,
 *                                and UDP bind to 0.0.0.0:0 (an ephemeral
 *                                port, as the kernel binds a UDP socket
 *                                on its first send)
 *   esc_reach packet IFNAME      an AF_PACKET datagram on IFNAME (a family
 *                                the supervisor must not take as local)
 *   esc_reach uring              io_uring_setup: its connect/send/bind are
 *                                seen by no filter
 *
 * Exit 0: every attempt refused; 10: one went through (ESCAPED). */
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <linux/if_packet.h>
#include <linux/if_ether.h>
#include <linux/io_uring.h>
#include <linux/seg6.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "esc_common.h"

#ifndef IPV6_RTHDR
#define IPV6_RTHDR 57
#endif

static struct sockaddr_in esc_v4(const char *ip, int port)
{
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
  inet_pton(AF_INET, ip, &a.sin_addr);
  return a;
}

static struct sockaddr_in6 esc_v6(const char *ip, int port)
{
  struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port) };
  inet_pton(AF_INET6, ip, &a.sin6_addr);
  return a;
}

static int esc_unspec(const char *ip, int port)
{
  struct sockaddr_in a = esc_v4(ip, port), lo = esc_v4("127.0.0.1", port);
  struct iovec iov = { .iov_base = "x", .iov_len = 1 };
  struct msghdr mh = { .msg_name = &a, .msg_namelen = sizeof a, .msg_iov = &iov, .msg_iovlen = 1 };
  struct mmsghdr mm[2];
  int fd = socket(AF_INET, SOCK_DGRAM, 0), fd6 = socket(AF_INET6, SOCK_DGRAM, 0);

  a.sin_family = AF_UNSPEC;
  ESC_ATTEMPT(fd >= 0 && sendto(fd, "x", 1, 0, (struct sockaddr *)&a, sizeof a) == 1,
              "sendto AF_UNSPEC sockaddr on an IPv4 socket");
  ESC_ATTEMPT(fd >= 0 && sendmsg(fd, &mh, 0) == 1, "sendmsg AF_UNSPEC sockaddr on an IPv4 socket");
  memset(mm, 0, sizeof mm);
  mm[0].msg_hdr = (struct msghdr){
    .msg_name = &lo, .msg_namelen = sizeof lo, .msg_iov = &iov, .msg_iovlen = 1
  };
  mm[1].msg_hdr = mh;
  ESC_ATTEMPT(fd >= 0 && sendmmsg(fd, mm, 2, 0) == 2, "sendmmsg: loopback first, AF_UNSPEC second");
  /* An IPv6 UDP socket sends an AF_INET sockaddr as IPv4. */
  a.sin_family = AF_INET;
  ESC_ATTEMPT(fd6 >= 0 && sendto(fd6, "x", 1, 0, (struct sockaddr *)&a, sizeof a) == 1,
              "sendto AF_INET sockaddr on an IPv6 socket");
  ESC_DONE();
}

/* A segment-routing header (type 4) with one segment, ADDR6. */
static size_t esc_srh(unsigned char *buf, const char *ip6)
{
  struct ipv6_sr_hdr *h = (void *)buf;
  memset(buf, 0, 24);
  h->hdrlen = 2; /* 8-byte units after the first 8: one 16-byte segment */
  h->type = 4;
  h->segments_left = 0;
  h->first_segment = 0;
  inet_pton(AF_INET6, ip6, &h->segments[0]);
  return 24;
}

/* A type-2 routing header (Mobile IPv6) through ADDR6: the only type the
 * kernel takes as ancillary data; it routes the packet to ADDR6 too. */
static size_t esc_rh2(unsigned char *buf, const char *ip6)
{
  memset(buf, 0, 24);
  buf[1] = 2; /* hdrlen */
  buf[2] = 2; /* type */
  buf[3] = 1; /* segments left */
  inet_pton(AF_INET6, ip6, buf + 8);
  return 24;
}

/* An LSRR option through ADDR, padded to 8 bytes. */
static size_t esc_lsrr(unsigned char *buf, const char *ip)
{
  buf[0] = IPOPT_NOP;
  buf[1] = IPOPT_LSRR;
  buf[2] = 7;
  buf[3] = 4;
  inet_pton(AF_INET, ip, buf + 4);
  return 8;
}

/* One control message (level, type, data) into buf; its space. */
static size_t esc_cmsg(unsigned char *buf, size_t cap, int level, int type,
                       const unsigned char *data, size_t len)
{
  struct msghdr mh = { .msg_control = buf, .msg_controllen = CMSG_SPACE(len) };
  struct cmsghdr *c;
  memset(buf, 0, cap);
  c = CMSG_FIRSTHDR(&mh);
  c->cmsg_level = level;
  c->cmsg_type = type;
  c->cmsg_len = CMSG_LEN(len);
  memcpy(CMSG_DATA(c), data, len);
  return CMSG_SPACE(len);
}

/* A fresh datagram socket of `domain`: setsockopt(level, opt, val) when
 * val, then one byte to `to`, with control message (clevel, ctype, cdata)
 * when cdata. True when every step was accepted. */
static bool esc_try(int domain, int level, int opt, const void *val, size_t vlen, const void *to,
                    socklen_t tolen, int clevel, int ctype, const unsigned char *cdata, size_t clen)
{
  unsigned char cbuf[CMSG_SPACE(64)];
  struct iovec iov = { .iov_base = "x", .iov_len = 1 };
  struct msghdr mh = {
    .msg_name = (void *)to, .msg_namelen = tolen, .msg_iov = &iov, .msg_iovlen = 1
  };
  int fd = socket(domain, SOCK_DGRAM, 0);
  bool ok;
  if (cdata) {
    mh.msg_control = cbuf;
    mh.msg_controllen = esc_cmsg(cbuf, sizeof cbuf, clevel, ctype, cdata, clen);
  }
  ok = fd >= 0 && (!val || setsockopt(fd, level, opt, val, (socklen_t)vlen) == 0) &&
       sendmsg(fd, &mh, 0) == 1;
  if (fd >= 0)
    close(fd);
  return ok;
}

static int esc_route(const char *ip6, const char *ip, int port)
{
  unsigned char srh[24], rh2[24], lsrr[8], pkt[CMSG_SPACE(24)];
  struct sockaddr_in6 lo6 = esc_v6("::1", port);
  struct sockaddr_in lo = esc_v4("127.0.0.1", port);
  size_t n = esc_srh(srh, ip6), n2 = esc_rh2(rh2, ip6), m = esc_lsrr(lsrr, ip), k;

  ESC_ATTEMPT(esc_try(AF_INET6, IPPROTO_IPV6, IPV6_RTHDR, srh, n, &lo6, sizeof lo6, 0, 0, NULL, 0),
              "setsockopt IPV6_RTHDR (segment routing), send to ::1");
  ESC_ATTEMPT(esc_try(AF_INET6, 0, 0, NULL, 0, &lo6, sizeof lo6, IPPROTO_IPV6, IPV6_RTHDR, rh2, n2),
              "sendmsg to ::1 with an IPV6_RTHDR (type 2) control message");
  /* IPV6_2292PKTOPTIONS takes control messages as its value. */
  k = esc_cmsg(pkt, sizeof pkt, IPPROTO_IPV6, IPV6_RTHDR, rh2, n2);
  ESC_ATTEMPT(
      esc_try(AF_INET6, IPPROTO_IPV6, IPV6_2292PKTOPTIONS, pkt, k, &lo6, sizeof lo6, 0, 0, NULL, 0),
      "setsockopt IPV6_2292PKTOPTIONS with a routing header, send to ::1");
  ESC_ATTEMPT(esc_try(AF_INET, IPPROTO_IP, IP_OPTIONS, lsrr, m, &lo, sizeof lo, 0, 0, NULL, 0),
              "setsockopt IP_OPTIONS (LSRR), send to 127.0.0.1");
  ESC_ATTEMPT(esc_try(AF_INET, 0, 0, NULL, 0, &lo, sizeof lo, IPPROTO_IP, IP_RETOPTS, lsrr, m),
              "sendmsg to 127.0.0.1 with an IP_RETOPTS (LSRR) control message");
  ESC_DONE();
}

static bool esc_bind_listen(int domain, int type, const void *a, socklen_t len, bool do_listen)
{
  int fd = socket(domain, type, 0), one = 1, ok;
  if (fd < 0)
    return false;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  ok = (!a || bind(fd, a, len) == 0) && (!do_listen || listen(fd, 1) == 0);
  /* Kept open: an escape that worked stays listening until exit. */
  return ok;
}

static int esc_listen(const char *ip, int port)
{
  struct sockaddr_in any = esc_v4("0.0.0.0", port), at = esc_v4(ip, port + 1),
                     uany = esc_v4("0.0.0.0", port + 3);
  struct sockaddr_in6 any6 = esc_v6("::", port + 2);
  ESC_ATTEMPT(esc_bind_listen(AF_INET, SOCK_STREAM, &any, sizeof any, true),
              "TCP listen on 0.0.0.0 (every interface)");
  ESC_ATTEMPT(esc_bind_listen(AF_INET, SOCK_STREAM, &at, sizeof at, true),
              "TCP listen on the interface's address");
  ESC_ATTEMPT(esc_bind_listen(AF_INET6, SOCK_STREAM, &any6, sizeof any6, true),
              "TCP listen on [::]");
  ESC_ATTEMPT(esc_bind_listen(AF_INET, SOCK_STREAM, NULL, 0, true),
              "TCP listen on a socket never bound (the kernel binds it to 0.0.0.0)");
  ESC_ATTEMPT(esc_bind_listen(AF_INET, SOCK_DGRAM, &uany, sizeof uany, false),
              "UDP bind to 0.0.0.0");
  ESC_DONE();
}

static int esc_packet(const char *ifname)
{
  struct sockaddr_ll ll = { .sll_family = AF_PACKET,
                            .sll_protocol = htons(ETH_P_IP),
                            .sll_ifindex = (int)if_nametoindex(ifname),
                            .sll_halen = 6 };
  int fd = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_IP));
  memset(ll.sll_addr, 0xff, 6);
  if (fd < 0 && (errno == EPERM || errno == EAFNOSUPPORT || errno == EACCES))
    fprintf(stderr, "note: no packet socket here (%s)\n", strerror(errno));
  ESC_ATTEMPT(fd >= 0 && ll.sll_ifindex > 0 &&
                  sendto(fd, "xxxxxxxxxxxxxxxxxxxx", 20, 0, (struct sockaddr *)&ll, sizeof ll) ==
                      20,
              "AF_PACKET datagram on the interface");
  ESC_DONE();
}

static int esc_uring(void)
{
  struct io_uring_params params;
  memset(&params, 0, sizeof params);
  ESC_ATTEMPT(syscall(__NR_io_uring_setup, 8, &params) >= 0, "io_uring_setup");
  ESC_DONE();
}

int main(int argc, char **argv)
{
  if (argc == 4 && strcmp(argv[1], "unspec") == 0)
    return esc_unspec(argv[2], atoi(argv[3]));
  if (argc == 5 && strcmp(argv[1], "route") == 0)
    return esc_route(argv[2], argv[3], atoi(argv[4]));
  if (argc == 4 && strcmp(argv[1], "listen") == 0)
    return esc_listen(argv[2], atoi(argv[3]));
  if (argc == 3 && strcmp(argv[1], "listen_lo") == 0) {
    struct sockaddr_in lo = esc_v4("127.0.0.1", atoi(argv[2]));
    struct sockaddr_in eph = esc_v4("0.0.0.0", 0);
    if (!esc_bind_listen(AF_INET, SOCK_STREAM, &lo, sizeof lo, true)) {
      fprintf(stderr, "listen on 127.0.0.1 failed: %s\n", strerror(errno));
      return 1;
    }
    /* What libuv does before a UDP send: not an operation to ask about. */
    if (!esc_bind_listen(AF_INET, SOCK_DGRAM, &eph, sizeof eph, false)) {
      fprintf(stderr, "UDP bind to 0.0.0.0:0 failed: %s\n", strerror(errno));
      return 1;
    }
    return 0;
  }
  if (argc == 3 && strcmp(argv[1], "packet") == 0)
    return esc_packet(argv[2]);
  if (argc == 2 && strcmp(argv[1], "uring") == 0)
    return esc_uring();
  ESC_USAGE("esc_reach unspec ADDR PORT | route ADDR6 ADDR PORT | listen ADDR PORT | "
            "listen_lo PORT | packet IFNAME | uring");
}
