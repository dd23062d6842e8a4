/* np_addr: which addresses the proxy never dials on its own judgement
 * (docs/network-proxy.md "Address filtering"): the special-purpose ranges
 * of IPv4 and IPv6, IPv6 forms that carry an IPv4 address (decoded and
 * judged as that address), and the host's own interface addresses. */
#ifndef NP_ADDR_H
#define NP_ADDR_H

#include <stdint.h>

/* The IPv4 address an IPv6 address carries: IPv4-mapped ::ffff:a.b.c.d,
 * IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::/96 and 6to4 2002::/16. 1 and
 * v4 filled when it carries one, else 0. */
int np_addr_embedded_ipv4(const uint8_t v6[16], uint8_t v4[4]);

/* The name of the special-purpose range the address (AF_INET: 4 bytes,
 * AF_INET6: 16, network order) lies in, e.g. "loopback 127.0.0.0/8", or
 * NULL for an ordinary public address. An IPv6 form carrying an IPv4
 * address is judged as that address. Pure: a table. */
const char *np_addr_special(int family, const uint8_t *addr);

/* The name of a special-purpose range that shares at least one address
 * with the range addr/bits (family AF_INET or AF_INET6), NULL when the
 * range holds only ordinary public addresses: then a policy's local range
 * over it changes nothing the proxy does. IPv6 forms that carry an IPv4
 * address count as that address. Pure: the same table. */
const char *np_addr_range_special(int family, const uint8_t *addr, unsigned bits);

/* 1 when the address is one of this host's interface addresses right now
 * (getifaddrs; an embedded IPv4 address is compared too), 0 when not, -1
 * when the interfaces cannot be read (the caller refuses: fail closed). */
int np_addr_is_own(int family, const uint8_t *addr);

#endif
