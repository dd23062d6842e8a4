/* np_addr: the address classes the proxy refuses to dial unless a local
 * range of the policy covers them (np_addr.h). Each range is here because
 * reaching it from a sandbox reaches something that is not "the internet":
 * the host itself, its LAN, the cloud's metadata service, or a translator
 * that forwards to an address the proxy would otherwise refuse. */
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

#include "np_addr.h"

struct np_range {
  uint8_t prefix[16];
  unsigned bits;
  const char *name;
};

/* Order matters only for the name given: narrower entries come before the
 * ranges that contain them (metadata before link-local, broadcast before
 * reserved), so a refusal names the most specific reason. */
static const struct np_range np_v4_ranges[] = {
  { { 0, 0, 0, 0 }, 8, "\"this network\" 0.0.0.0/8" },
  { { 10, 0, 0, 0 }, 8, "private 10.0.0.0/8" },
  { { 100, 64, 0, 0 }, 10, "carrier-grade NAT 100.64.0.0/10" },
  { { 127, 0, 0, 0 }, 8, "loopback 127.0.0.0/8" },
  { { 169, 254, 169, 254 }, 32, "cloud metadata 169.254.169.254" },
  { { 169, 254, 0, 0 }, 16, "link-local 169.254.0.0/16" },
  { { 172, 16, 0, 0 }, 12, "private 172.16.0.0/12" },
  { { 192, 0, 0, 0 }, 24, "IETF protocol assignments 192.0.0.0/24" },
  { { 192, 0, 2, 0 }, 24, "documentation 192.0.2.0/24" },
  { { 192, 88, 99, 0 }, 24, "6to4 relay anycast 192.88.99.0/24" },
  { { 192, 168, 0, 0 }, 16, "private 192.168.0.0/16" },
  { { 198, 18, 0, 0 }, 15, "benchmarking 198.18.0.0/15" },
  { { 198, 51, 100, 0 }, 24, "documentation 198.51.100.0/24" },
  { { 203, 0, 113, 0 }, 24, "documentation 203.0.113.0/24" },
  { { 224, 0, 0, 0 }, 4, "multicast 224.0.0.0/4" },
  { { 255, 255, 255, 255 }, 32, "broadcast 255.255.255.255" },
  { { 240, 0, 0, 0 }, 4, "reserved 240.0.0.0/4" },
};

static const struct np_range np_v6_ranges[] = {
  { { 0 }, 128, "unspecified ::" },
  { { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 }, 128, "loopback ::1" },
  { { 0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54 },
    128,
    "cloud metadata fd00:ec2::254" },
  { { 0xfc }, 7, "unique local fc00::/7" },
  { { 0xfe, 0x80 }, 10, "link-local fe80::/10" },
  { { 0xfe, 0xc0 }, 10, "site-local fec0::/10" },
  { { 0xff }, 8, "multicast ff00::/8" },
  /* Teredo hides its client's IPv4 address (obfuscated): the proxy cannot
   * judge where a packet ends up, so it is refused whole. */
  { { 0x20, 0x01, 0x00, 0x00 }, 32, "Teredo 2001::/32" },
  { { 0x20, 0x01, 0x00, 0x02, 0x00, 0x00 }, 48, "benchmarking 2001:2::/48" },
  { { 0x20, 0x01, 0x0d, 0xb8 }, 32, "documentation 2001:db8::/32" },
  /* Local-use NAT64 (RFC 8215) translates with a prefix the proxy cannot
   * decode reliably: refused whole. */
  { { 0x00, 0x64, 0xff, 0x9b, 0x00, 0x01 }, 48, "local-use NAT64 64:ff9b:1::/48" },
  { { 0x01, 0x00, 0, 0, 0, 0, 0, 0 }, 64, "discard-only 100::/64" },
};

static int np_in_range(const uint8_t *addr, const struct np_range *r)
{
  unsigned full = r->bits / 8, rest = r->bits % 8;
  if (memcmp(addr, r->prefix, full) != 0)
    return 0;
  if (rest == 0)
    return 1;
  uint8_t mask = (uint8_t)(0xff << (8 - rest));
  return (addr[full] & mask) == (r->prefix[full] & mask);
}

int np_addr_embedded_ipv4(const uint8_t v6[16], uint8_t v4[4])
{
  static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
  static const uint8_t nat64[12] = { 0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0 };
  static const uint8_t zero[12] = { 0 };
  if (memcmp(v6, mapped, 12) == 0 || memcmp(v6, nat64, 12) == 0) {
    memcpy(v4, v6 + 12, 4);
    return 1;
  }
  /* IPv4-compatible ::a.b.c.d (deprecated, but a kernel may still route
   * it through a tunnel); :: and ::1 are IPv6's own. */
  if (memcmp(v6, zero, 12) == 0 && (v6[12] | v6[13]) != 0) {
    memcpy(v4, v6 + 12, 4);
    return 1;
  }
  /* 6to4 2002:AABB:CCDD::/48 is relayed to AA.BB.CC.DD. */
  if (v6[0] == 0x20 && v6[1] == 0x02) {
    memcpy(v4, v6 + 2, 4);
    return 1;
  }
  return 0;
}

static const char *np_v4_special(const uint8_t v4[4])
{
  for (size_t i = 0; i < sizeof np_v4_ranges / sizeof np_v4_ranges[0]; i++)
    if (np_in_range(v4, &np_v4_ranges[i]))
      return np_v4_ranges[i].name;
  return NULL;
}

const char *np_addr_special(int family, const uint8_t *addr)
{
  if (family == AF_INET)
    return np_v4_special(addr);
  if (family != AF_INET6)
    return "not an IP address";
  for (size_t i = 0; i < sizeof np_v6_ranges / sizeof np_v6_ranges[0]; i++)
    if (np_in_range(addr, &np_v6_ranges[i]))
      return np_v6_ranges[i].name;
  /* A form that carries an IPv4 address reaches that address (the kernel
   * for mapped, a translator or relay for the others): judged as it. */
  uint8_t v4[4];
  if (np_addr_embedded_ipv4(addr, v4)) {
    const char *why = np_v4_special(v4);
    if (why)
      return why;
  }
  return NULL;
}

static int np_same_addr(const struct sockaddr *sa, int family, const uint8_t *addr)
{
  if (sa->sa_family == AF_INET && family == AF_INET)
    return memcmp(&((const struct sockaddr_in *)(const void *)sa)->sin_addr, addr, 4) == 0;
  if (sa->sa_family == AF_INET6 && family == AF_INET6)
    return memcmp(&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, addr, 16) == 0;
  return 0;
}

int np_addr_is_own(int family, const uint8_t *addr)
{
  struct ifaddrs *list;
  /* Read each time: interfaces come and go during a run, and an address
   * added after start must not become reachable. */
  if (getifaddrs(&list) != 0)
    return -1;
  uint8_t v4[4];
  int has_v4 = family == AF_INET6 && np_addr_embedded_ipv4(addr, v4);
  int own = 0;
  for (struct ifaddrs *i = list; i && !own; i = i->ifa_next) {
    if (!i->ifa_addr)
      continue;
    own = np_same_addr(i->ifa_addr, family, addr) ||
          (has_v4 && np_same_addr(i->ifa_addr, AF_INET, v4));
  }
  freeifaddrs(list);
  return own;
}

/* Do prefixes a/abits and b/bbits share an address? Two prefixes overlap
 * exactly when the shorter one contains the other's start. */
static int np_prefixes_overlap(const uint8_t *a, unsigned abits, const uint8_t *b, unsigned bbits)
{
  struct np_range shorter = { { 0 }, abits < bbits ? abits : bbits, NULL };
  memcpy(shorter.prefix, a, 16);
  return np_in_range(b, &shorter);
}

static const char *np_v4_range_special(const uint8_t v4[4], unsigned bits)
{
  uint8_t a[16] = { 0 };
  memcpy(a, v4, 4);
  for (size_t i = 0; i < sizeof np_v4_ranges / sizeof np_v4_ranges[0]; i++) {
    uint8_t b[16] = { 0 };
    memcpy(b, np_v4_ranges[i].prefix, 4);
    if (np_prefixes_overlap(a, bits, b, np_v4_ranges[i].bits))
      return np_v4_ranges[i].name;
  }
  return NULL;
}

const char *np_addr_range_special(int family, const uint8_t *addr, unsigned bits)
{
  if (family == AF_INET)
    return bits <= 32 ? np_v4_range_special(addr, bits) : "not an address range";
  if (family != AF_INET6 || bits > 128)
    return "not an address range";
  for (size_t i = 0; i < sizeof np_v6_ranges / sizeof np_v6_ranges[0]; i++)
    if (np_prefixes_overlap(addr, bits, np_v6_ranges[i].prefix, np_v6_ranges[i].bits))
      return np_v6_ranges[i].name;
  /* The forms np_addr_embedded_ipv4 decodes: a range over (part of) one
   * reaches the IPv4 addresses it carries, which are judged as such. */
  static const struct {
    uint8_t prefix[16];
    unsigned bits, v4_at; /* prefix length; byte offset of the IPv4 address */
  } carriers[] = {
    { { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff }, 96, 12 },
    { { 0x00, 0x64, 0xff, 0x9b }, 96, 12 },
    { { 0 }, 96, 12 },
    { { 0x20, 0x02 }, 16, 2 },
  };
  for (size_t i = 0; i < sizeof carriers / sizeof carriers[0]; i++) {
    if (!np_prefixes_overlap(addr, bits, carriers[i].prefix, carriers[i].bits))
      continue;
    if (bits <= carriers[i].bits)
      return np_v4_ranges[0].name; /* the whole carrier: every IPv4 class */
    unsigned v4_bits = bits - carriers[i].bits;
    const char *why = np_v4_range_special(addr + carriers[i].v4_at, v4_bits > 32 ? 32 : v4_bits);
    if (why)
      return why;
  }
  return NULL;
}
