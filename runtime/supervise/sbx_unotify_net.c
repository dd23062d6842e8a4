/* sbx_unotify_net: what the system-call approval layer decides about
 * sockets (docs/approvals.md, "External network").
 *
 * Where an address leads is decided the way the kernel will take it, not
 * the way the caller labels it:
 *
 *   - by the socket's real family (SO_DOMAIN of the supervisor's own
 *     duplicate of the caller's socket, the same open file description),
 *     never by the sockaddr's family field alone: an AF_INET UDP or raw
 *     socket takes a sockaddr whose family is AF_UNSPEC as an IPv4
 *     destination, an AF_INET6 raw socket takes it as IPv6, an AF_INET6
 *     UDP socket takes an AF_INET one as IPv4;
 *   - fail closed: local means loopback or the unspecified address of an
 *     IP socket, or a unix or netlink socket (which never leave the
 *     machine); everything else, including any socket family sbx does not
 *     know (packet, vsock, SCTP-over-SMC, ...) and any address too short
 *     to read, is external and asked about;
 *   - an AF_UNSPEC address is read both as IPv4 and as IPv6 and is local
 *     only if both readings are: IPV6_ADDRFORM can turn an IPv6 socket
 *     into an IPv4 one between our look at its family and the send.
 *
 * The same rules decide where a socket listens: bind() to an address that
 * is not loopback (INADDR_ANY, in6addr_any, an interface's address) lets
 * other hosts connect and is asked about like an external connection, and
 * listen() on a socket never bound does too (the kernel binds it to the
 * wildcard address); listen() on a socket bound to such an address is
 * asked again (its address may not come from a bind that was asked).
 * Connections accepted on such a socket are covered by that decision.
 *
 * Routing headers and IP options (source routes) change where a packet
 * finally goes whatever its destination address says. The profiles refuse
 * setting them with setsockopt (models/profiles.pol), the notify filter
 * refuses it again for any profile that approves `network`
 * (sbx_un_net_rules), and here ancillary data is checked against a short
 * list of per-packet settings that cannot redirect a packet: anything
 * else at an IP or transport level (IPV6_RTHDR, IPV6_HOPOPTS,
 * IPV6_DSTOPTS, IP_RETOPTS, SCTP's destination addresses, ...) is
 * refused. */
#include "sbx_diag.h"
#include "sbx_unotify_op.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#ifndef SOL_UDP
#define SOL_UDP 17
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef IPV6_FLOWINFO
#define IPV6_FLOWINFO 11 /* linux/in6.h; glibc's netinet/in.h lacks it */
#endif
#ifndef IPPROTO_SCTP
#define IPPROTO_SCTP 132
#endif

int sbx_un_sock_domain(int sock)
{
  int dom = -1;
  socklen_t dl = sizeof dom;
  if (getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &dom, &dl) != 0)
    return -errno;
  return dom;
}

/* 127.0.0.0/8, and for a destination 0.0.0.0 (which Linux connects to
 * the host itself); bound, 0.0.0.0 is every interface: not local. */
static bool sbx_un_v4_local(const unsigned char *a4, bool bind)
{
  return a4[0] == 127 || (!bind && (a4[0] | a4[1] | a4[2] | a4[3]) == 0);
}

static bool sbx_un_v6_local(const struct in6_addr *a, bool bind)
{
  if (IN6_IS_ADDR_LOOPBACK(a) || (!bind && IN6_IS_ADDR_UNSPECIFIED(a)))
    return true;
  return IN6_IS_ADDR_V4MAPPED(a) && sbx_un_v4_local(a->s6_addr + 12, bind);
}

/* The two readings of the bytes of a sockaddr: as sockaddr_in (address at
 * offset 4) and as sockaddr_in6 (offset 8). Each: 1 local, 0 external,
 * -1 too short to hold one. */
static int sbx_un_read_v4(const struct sockaddr_storage *ss, unsigned len, bool bind, char *ip,
                          size_t iplen)
{
  const struct sockaddr_in *in = (const void *)ss;
  if (len < sizeof *in)
    return -1;
  inet_ntop(AF_INET, &in->sin_addr, ip, (socklen_t)iplen);
  return sbx_un_v4_local((const unsigned char *)&in->sin_addr, bind);
}

/* SIN6_LEN_RFC2133 (24 bytes, without sin6_scope_id) is what the kernel
 * accepts as an IPv6 address. */
#define SBX_UN_SIN6_MIN 24u

static int sbx_un_read_v6(const struct sockaddr_storage *ss, unsigned len, bool bind, char *ip,
                          size_t iplen)
{
  const struct sockaddr_in6 *in6 = (const void *)ss;
  if (len < SBX_UN_SIN6_MIN)
    return -1;
  inet_ntop(AF_INET6, &in6->sin6_addr, ip, (socklen_t)iplen);
  return sbx_un_v6_local(&in6->sin6_addr, bind);
}

bool sbx_un_reach_local(int domain, const struct sockaddr_storage *ss, unsigned len, bool bind,
                        char *text, size_t tlen)
{
  char ip4[INET_ADDRSTRLEN] = "?", ip6[INET6_ADDRSTRLEN] = "?";
  const struct sockaddr_in *in = (const void *)ss;
  unsigned fam = len >= sizeof ss->ss_family ? ss->ss_family : AF_UNSPEC;
  int v4, v6;

  if (domain == AF_UNIX || domain == AF_NETLINK) {
    snprintf(text, tlen, "%s socket", domain == AF_UNIX ? "unix" : "netlink");
    return true;
  }
  if (domain != AF_INET && domain != AF_INET6) {
    /* Packet, vsock, bluetooth, TIPC, SMC ... or a family we could not
     * read: sbx cannot tell where it leads, so it is external. */
    snprintf(text, tlen, "socket family %d (not classifiable)", domain);
    return false;
  }
  if (fam == AF_INET || (fam == AF_UNSPEC && domain == AF_INET)) {
    v4 = sbx_un_read_v4(ss, len, bind, ip4, sizeof ip4);
    if (fam == AF_UNSPEC) {
      /* IPv4 reading (what an AF_INET socket does with it) and the IPv6
       * one (IPV6_ADDRFORM race, and AF_INET6 raw sockets). */
      v6 = sbx_un_read_v6(ss, len, bind, ip6, sizeof ip6);
      snprintf(text, tlen, "%s:%u (family AF_UNSPEC on an IPv%c socket)", ip4, ntohs(in->sin_port),
               domain == AF_INET ? '4' : '6');
      return v4 == 1 && v6 != 0;
    }
    snprintf(text, tlen, "%s:%u", ip4, ntohs(in->sin_port));
    return v4 == 1;
  }
  if (fam == AF_INET6 || fam == AF_UNSPEC) {
    const struct sockaddr_in6 *in6 = (const void *)ss;
    v6 = sbx_un_read_v6(ss, len, bind, ip6, sizeof ip6);
    v4 = sbx_un_read_v4(ss, len, bind, ip4, sizeof ip4);
    snprintf(text, tlen, "[%s]:%u%s", ip6, ntohs(in6->sin6_port),
             fam == AF_UNSPEC ? " (family AF_UNSPEC on an IPv6 socket)" : "");
    /* The IPv4 reading matters only for AF_UNSPEC (see above); a socket
     * of this family given AF_INET6 refuses it once it became IPv4. */
    return v6 == 1 && (fam == AF_INET6 || v4 != 0);
  }
  snprintf(text, tlen, "family %u on an IPv%c socket (not classifiable)", fam,
           domain == AF_INET ? '4' : '6');
  return false;
}

bool sbx_un_bind_ephemeral_dgram(int sock, int domain, const struct sockaddr_storage *ss)
{
  int type = 0;
  socklen_t tl = sizeof type;
  /* sin_port and sin6_port are at the same offset. An unbound UDP socket
   * that sends is bound by the kernel to the wildcard address and an
   * ephemeral port, and can then receive from any host; what it sends
   * names a destination and is asked about. A bind to port 0 gives no
   * more than that. A fixed port (a server) is asked about. */
  return (domain == AF_INET || domain == AF_INET6) &&
         ((const struct sockaddr_in *)ss)->sin_port == 0 &&
         getsockopt(sock, SOL_SOCKET, SO_TYPE, &type, &tl) == 0 && type == SOCK_DGRAM;
}

bool sbx_un_listen_local(int sock, char *text, size_t tlen)
{
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;
  int dom = sbx_un_sock_domain(sock);

  memset(&ss, 0, sizeof ss);
  if (dom < 0 || dom == AF_UNIX || dom == AF_NETLINK) {
    /* No socket: listen fails in the kernel, reaching nothing. */
    snprintf(text, tlen, "%s", dom < 0 ? "not a socket" : "local socket");
    return true;
  }
  if (getsockname(sock, (struct sockaddr *)&ss, &len) != 0 || len > sizeof ss) {
    snprintf(text, tlen, "socket family %d (address unknown)", dom);
    return false;
  }
  /* Port 0: not bound yet, and listen() binds it to the wildcard address
   * (every interface). Bound: by its address, as at bind, and asked again
   * rather than trusting that the bind was the one asked about (a socket
   * may have its address from elsewhere: a connect that chose it, a
   * descriptor from outside). */
  if ((dom == AF_INET || dom == AF_INET6) && ((const struct sockaddr_in *)&ss)->sin_port == 0) {
    snprintf(text, tlen, "%s (unbound: the kernel binds it to every interface)",
             dom == AF_INET ? "0.0.0.0" : "[::]");
    return false;
  }
  return sbx_un_reach_local(dom, &ss, len, true, text, tlen);
}

/* Ancillary data of a send that cannot change where the packet goes:
 * the source address and interface (IP_PKTINFO / IPV6_PKTINFO: the
 * destination stays what was checked, and a loopback destination is not
 * routed off the host), hop limit, traffic class, flow label, don't
 * fragment, UDP segmentation. */
static bool sbx_un_cmsg_harmless(int level, int type)
{
  switch (level) {
  case SOL_SOCKET:
    return true; /* SCM_RIGHTS / SCM_CREDENTIALS: sbx_unotify_msg.c */
  case IPPROTO_IP:
    return type == IP_PKTINFO || type == IP_TTL || type == IP_TOS;
  case IPPROTO_IPV6:
    return type == IPV6_PKTINFO || type == IPV6_HOPLIMIT || type == IPV6_TCLASS ||
           type == IPV6_DONTFRAG || type == IPV6_FLOWINFO;
  case SOL_UDP:
    return type == UDP_SEGMENT;
  default:
    return false;
  }
}

int sbx_un_cmsg_check(const unsigned char *control, size_t len)
{
  struct msghdr mh = { .msg_control = (void *)control, .msg_controllen = len };
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
    if (sbx_un_cmsg_harmless(c->cmsg_level, c->cmsg_type))
      continue;
    fprintf(sbx_diag(),
            "sbx: approval: sendmsg with ancillary data level %d type %d refused (system-call "
            "layer: routing headers, IP options and other per-packet destinations are not "
            "allowed)\n",
            c->cmsg_level, c->cmsg_type);
    return -EPERM;
  }
  return 0;
}

/* The setsockopt options that attach a route to a socket's packets. */
static const struct {
  int level, optname;
} sbx_un_route_opts[] = {
  { IPPROTO_IPV6, IPV6_RTHDR },        { IPPROTO_IPV6, IPV6_2292RTHDR },
  { IPPROTO_IPV6, IPV6_HOPOPTS },      { IPPROTO_IPV6, IPV6_2292HOPOPTS },
  { IPPROTO_IPV6, IPV6_DSTOPTS },      { IPPROTO_IPV6, IPV6_2292DSTOPTS },
  { IPPROTO_IPV6, IPV6_RTHDRDSTOPTS }, { IPPROTO_IPV6, IPV6_2292PKTOPTIONS },
  { IPPROTO_IP, IP_OPTIONS },          { IPPROTO_IP, IP_RETOPTS },
};

int sbx_un_net_rules(scmp_filter_ctx c)
{
  int r = 0;
  /* Same as the profiles' rules (models/profiles.pol, which says why),
   * for any profile that approves `network`: a custom profile that
   * forgot them does not open the hole. 32-bit arguments: low word only. */
  for (size_t i = 0; i < sizeof sbx_un_route_opts / sizeof sbx_un_route_opts[0] && r == 0; i++) {
    const struct scmp_arg_cmp cmp[2] = { { .arg = 1,
                                           .op = SCMP_CMP_MASKED_EQ,
                                           .datum_a = 0xffffffffu,
                                           .datum_b = (uint64_t)sbx_un_route_opts[i].level },
                                         { .arg = 2,
                                           .op = SCMP_CMP_MASKED_EQ,
                                           .datum_a = 0xffffffffu,
                                           .datum_b = (uint64_t)sbx_un_route_opts[i].optname } };
    r = seccomp_rule_add_array(c, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setsockopt), 2, cmp);
  }
  /* SCTP connects and binds addresses through setsockopt
   * (SCTP_SOCKOPT_CONNECTX, SCTP_SOCKOPT_BINDX_ADD): past connect/bind. */
  if (r == 0) {
    const struct scmp_arg_cmp sctp = {
      .arg = 1, .op = SCMP_CMP_MASKED_EQ, .datum_a = 0xffffffffu, .datum_b = IPPROTO_SCTP
    };
    r = seccomp_rule_add_array(c, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setsockopt), 1, &sctp);
  }
  return r;
}
