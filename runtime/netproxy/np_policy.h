/* np_policy: the network proxy's destination policy (docs/network-proxy.md
 * "Matching"): allow and deny patterns, the default for everything else and
 * the local address ranges that may be reached. Pure: no sockets, no
 * resolver, so the matcher is tested table by table (tests/netproxy). */
#ifndef NP_POLICY_H
#define NP_POLICY_H

#include <stddef.h>
#include <stdint.h>

#define NP_NAME_MAX 253  /* RFC 1035: a name's text, without the trailing dot */
#define NP_LABEL_MAX 63  /* RFC 1035: one label */
#define NP_HOST_TEXT 256 /* a normalized host as text, NUL included */

/* What the rest (matched by no pattern) gets. */
enum np_default {
  NP_DEFAULT_DENY = 0,
  NP_DEFAULT_ASK = 1,
};

/* The policy as its owner writes it: the strings are patterns
 * ("example.com", "*.example.com:443", "**.example.com", "[2001:db8::1]:443",
 * "192.0.2.7") and CIDR ranges ("127.0.0.0/8", "fd00::/8"). Later filled
 * from a compiled profile table; today from the test driver's command line. */
struct np_policy_spec {
  const char *const *allow;
  size_t n_allow;
  const char *const *deny;
  size_t n_deny;
  enum np_default rest;
  const char *const *local_ranges;
  size_t n_local_ranges;
};

enum np_host_kind {
  NP_HOST_NAME = 0,
  NP_HOST_IPV4 = 1,
  NP_HOST_IPV6 = 2,
};

/* A destination host after normalization: lower case, no trailing dot, IP
 * literals in their canonical text (inet_ntop) and binary form. */
struct np_host {
  enum np_host_kind kind;
  char text[NP_HOST_TEXT];
  uint8_t addr[16]; /* IPv4: first 4 bytes */
};

/* Normalizes a host as a client spelled it (len bytes, not NUL terminated;
 * IPv6 literals without brackets). 0 on success; -1 with *why set to a
 * static reason when the host is refused (non-ASCII, bad label, too long,
 * a numeric form that is no dotted quad, a zone index). */
int np_host_normalize(const char *in, size_t len, struct np_host *out, const char **why);

enum np_verdict {
  NP_VERDICT_DENY = 0,
  NP_VERDICT_ALLOW = 1,
  NP_VERDICT_ASK = 2,
};

struct np_policy;

/* Compiles a spec. 0 on success; -1 with a message naming the pattern and
 * why in err (a pattern that cannot be parsed is refused, never skipped). */
int np_policy_compile(const struct np_policy_spec *spec, struct np_policy **out, char *err,
                      size_t errlen);
void np_policy_free(struct np_policy *policy);

/* The decision for host:port. *rule is the text of the pattern that decided
 * (NULL when the default did): deny patterns first (deny wins), then allow. */
enum np_verdict np_policy_decide(const struct np_policy *policy, const struct np_host *host,
                                 uint16_t port, const char **rule);

/* Whether an address (4 or 16 bytes, network order) lies in one of the
 * policy's local ranges; *range is that range's text. */
int np_policy_local_allowed(const struct np_policy *policy, int family, const uint8_t *addr,
                            const char **range);

/* One pattern or range read on its own, with the very parser
 * np_policy_compile uses, for a policy compiler that checks rule by rule
 * (pnetc: dsl/pol/pol_network.c) and must judge what a rule covers. */
enum np_wild {
  NP_WILD_NONE = 0,
  NP_WILD_SUBDOMAINS = 1,         /* "*.example.com": subdomains only */
  NP_WILD_NAME_AND_SUBDOMAINS = 2 /* "**.example.com": the name too */
};

struct np_pattern_info {
  enum np_wild wild;
  struct np_host host; /* the base name (after the wildcard) or the IP literal */
  uint16_t port;       /* 0: any port */
};

/* 0, or -1 with *why set to a static reason (the same reasons
 * np_policy_compile names). */
int np_pattern_read(const char *text, struct np_pattern_info *out, const char **why);

/* A local range in CIDR form ("127.0.0.0/8", "fd00::/8", a bare address
 * is a /32 or /128). 0, or -1 with *why. */
int np_range_read(const char *text, int *family, uint8_t addr[16], unsigned *bits,
                  const char **why);

#endif
