/* np_policy: destination patterns and local ranges, compiled and matched
 * (np_policy.h, docs/network-proxy.md "Matching"). */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "np_addr.h"
#include "np_policy.h"

struct np_pattern {
  const char *text; /* as written, for records and messages */
  enum np_wild wild;
  struct np_host host;
  uint16_t port; /* 0: any port */
};

struct np_cidr {
  const char *text;
  int family;
  uint8_t addr[16];
  unsigned bits;
};

struct np_policy {
  struct np_pattern *allow, *deny;
  size_t n_allow, n_deny;
  enum np_default rest;
  struct np_cidr *ranges;
  size_t n_ranges;
};

static int np_is_label_char(unsigned char c)
{
  /* Letters, digits and hyphen (RFC 1123), and underscore, which real
   * service names use (_acme-challenge, some CDNs); nothing else reaches
   * the resolver. */
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

static int np_all_digits(const char *s, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (s[i] < '0' || s[i] > '9')
      return 0;
  return n > 0;
}

static int np_numeric_label(const char *s, size_t n)
{
  if (np_all_digits(s, n))
    return 1;
  /* inet_aton reads "0x7f" as a number: a name whose last label is one
   * would reach the resolver as an address no pattern was written for. */
  if (n >= 2 && s[0] == '0' && s[1] == 'x') {
    for (size_t i = 2; i < n; i++)
      if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
        return 0;
    return 1;
  }
  return 0;
}

static int np_normalize_ipv6(const char *in, size_t len, struct np_host *out, const char **why)
{
  char tmp[64];
  if (memchr(in, '%', len)) {
    /* A zone index names an interface of the proxy's host: link-local
     * by definition, and never a destination a policy is written for. */
    *why = "IPv6 address with a zone index";
    return -1;
  }
  if (len >= sizeof tmp) {
    *why = "not an IPv6 address";
    return -1;
  }
  memcpy(tmp, in, len);
  tmp[len] = '\0';
  if (inet_pton(AF_INET6, tmp, out->addr) != 1) {
    *why = "not an IPv6 address";
    return -1;
  }
  static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
  if (memcmp(out->addr, mapped, 12) == 0) {
    /* ::ffff:a.b.c.d is the IPv4 address: one spelling, so that a deny of
     * a.b.c.d cannot be stepped around. */
    memmove(out->addr, out->addr + 12, 4);
    memset(out->addr + 4, 0, 12);
    out->kind = NP_HOST_IPV4;
    inet_ntop(AF_INET, out->addr, out->text, sizeof out->text);
    return 0;
  }
  out->kind = NP_HOST_IPV6;
  inet_ntop(AF_INET6, out->addr, out->text, sizeof out->text);
  return 0;
}

int np_host_normalize(const char *in, size_t len, struct np_host *out, const char **why)
{
  memset(out, 0, sizeof *out);
  if (len == 0) {
    *why = "empty host";
    return -1;
  }
  if (memchr(in, ':', len))
    return np_normalize_ipv6(in, len, out, why);
  if (in[len - 1] == '.')
    len--; /* the root's dot: "example.com." is "example.com" */
  if (len == 0) {
    *why = "empty host";
    return -1;
  }
  if (len > NP_NAME_MAX) {
    *why = "name longer than 253 characters";
    return -1;
  }
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)in[i];
    if (c >= 0x80) {
      /* Unicode names have look-alikes; only the IDNA form (xn--) says
       * unambiguously which name is meant. */
      *why = "non-ASCII name (write it in its IDNA xn-- form)";
      return -1;
    }
    out->text[i] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  }
  out->text[len] = '\0';
  int dotted = 1;
  for (size_t i = 0; i < len; i++)
    if (!(out->text[i] == '.' || (out->text[i] >= '0' && out->text[i] <= '9')))
      dotted = 0;
  if (dotted) {
    if (inet_pton(AF_INET, out->text, out->addr) != 1) {
      /* "127.1", "017.0.0.1": the resolver's reading of these differs
       * from a reader's; only the dotted quad is an address. */
      *why = "numeric host that is not a dotted-quad IPv4 address";
      return -1;
    }
    out->kind = NP_HOST_IPV4;
    inet_ntop(AF_INET, out->addr, out->text, sizeof out->text);
    return 0;
  }
  const char *label = out->text;
  const char *end = out->text + len;
  while (label <= end) {
    const char *dot = memchr(label, '.', (size_t)(end - label));
    size_t n = (size_t)((dot ? dot : end) - label);
    if (n == 0) {
      *why = "empty label in name";
      return -1;
    }
    if (n > NP_LABEL_MAX) {
      *why = "label longer than 63 characters";
      return -1;
    }
    if (label[0] == '-' || label[n - 1] == '-') {
      *why = "label begins or ends with a hyphen";
      return -1;
    }
    for (size_t i = 0; i < n; i++)
      if (!np_is_label_char((unsigned char)label[i])) {
        *why = "character not allowed in a host name";
        return -1;
      }
    if (!dot) {
      if (np_numeric_label(label, n)) {
        *why = "numeric host that is not a dotted-quad IPv4 address";
        return -1;
      }
      break;
    }
    label = dot + 1;
  }
  out->kind = NP_HOST_NAME;
  return 0;
}

static int np_parse_port(const char *s, size_t n, uint16_t *port)
{
  if (n == 0 || n > 5 || !np_all_digits(s, n))
    return -1;
  unsigned long v = 0;
  for (size_t i = 0; i < n; i++)
    v = v * 10 + (unsigned long)(s[i] - '0');
  if (v == 0 || v > 65535)
    return -1;
  *port = (uint16_t)v;
  return 0;
}

static int np_pattern_parse(const char *text, struct np_pattern *p, const char **why)
{
  memset(p, 0, sizeof *p);
  p->text = text;
  size_t len = strlen(text);
  const char *host = text, *port = NULL;
  size_t host_len = len;
  if (text[0] == '[') {
    const char *close = strchr(text, ']');
    if (!close) {
      *why = "'[' without ']'";
      return -1;
    }
    host = text + 1;
    host_len = (size_t)(close - host);
    if (close[1] == ':')
      port = close + 2;
    else if (close[1] != '\0') {
      *why = "text after ']' that is no :port";
      return -1;
    }
    if (!memchr(host, ':', host_len)) {
      *why = "brackets around something that is no IPv6 address";
      return -1;
    }
  } else {
    const char *colon = strchr(text, ':');
    if (colon && strchr(colon + 1, ':')) {
      *why = "an IPv6 address in a pattern is written in brackets: [2001:db8::1]:443";
      return -1;
    }
    if (colon) {
      host_len = (size_t)(colon - text);
      port = colon + 1;
    }
  }
  if (port && np_parse_port(port, strlen(port), &p->port) != 0) {
    *why = "port is not a number from 1 to 65535";
    return -1;
  }
  if (host_len >= 3 && memcmp(host, "**.", 3) == 0) {
    p->wild = NP_WILD_NAME_AND_SUBDOMAINS;
    host += 3;
    host_len -= 3;
  } else if (host_len >= 2 && memcmp(host, "*.", 2) == 0) {
    p->wild = NP_WILD_SUBDOMAINS;
    host += 2;
    host_len -= 2;
  }
  if (memchr(host, '*', host_len)) {
    *why = "a wildcard stands only as the whole first label (*.name or **.name)";
    return -1;
  }
  if (text[0] == '[' && p->wild == NP_WILD_NONE) {
    if (np_normalize_ipv6(host, host_len, &p->host, why) != 0)
      return -1;
    return 0;
  }
  if (text[0] != '[' && memchr(host, ':', host_len)) {
    *why = "an IPv6 address in a pattern is written in brackets";
    return -1;
  }
  if (np_host_normalize(host, host_len, &p->host, why) != 0)
    return -1;
  if (p->wild != NP_WILD_NONE && p->host.kind != NP_HOST_NAME) {
    *why = "a wildcard applies to names, not to IP addresses";
    return -1;
  }
  return 0;
}

static int np_cidr_parse(const char *text, struct np_cidr *c, const char **why)
{
  char tmp[64];
  const char *slash = strchr(text, '/');
  size_t n = slash ? (size_t)(slash - text) : strlen(text);
  if (n >= sizeof tmp) {
    *why = "not an address range";
    return -1;
  }
  memcpy(tmp, text, n);
  tmp[n] = '\0';
  memset(c, 0, sizeof *c);
  c->text = text;
  unsigned max;
  if (inet_pton(AF_INET, tmp, c->addr) == 1) {
    c->family = AF_INET;
    max = 32;
  } else if (inet_pton(AF_INET6, tmp, c->addr) == 1) {
    c->family = AF_INET6;
    max = 128;
  } else {
    *why = "not an IPv4 or IPv6 address before '/'";
    return -1;
  }
  c->bits = max;
  if (slash) {
    uint16_t bits;
    size_t m = strlen(slash + 1);
    if (m == 1 && slash[1] == '0')
      bits = 0;
    else if (np_parse_port(slash + 1, m, &bits) != 0 || bits > max) {
      *why = "prefix length out of range";
      return -1;
    }
    c->bits = bits;
  }
  for (unsigned b = c->bits; b < max; b++)
    if (c->addr[b / 8] & (0x80 >> (b % 8))) {
      /* "10.1.2.3/8" is most likely a typo for a narrower range: refused
       * rather than guessed. */
      *why = "address has bits set beyond the prefix length";
      return -1;
    }
  return 0;
}

static int np_compile_list(const char *const *in, size_t n, struct np_pattern **out,
                           const char *what, char *err, size_t errlen)
{
  *out = calloc(n ? n : 1, sizeof **out);
  if (!*out) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    const char *why = NULL;
    if (!in[i] || np_pattern_parse(in[i], &(*out)[i], &why) != 0) {
      snprintf(err, errlen, "network proxy policy: %s pattern \"%s\": %s", what,
               in[i] ? in[i] : "(null)", why ? why : "missing");
      return -1;
    }
  }
  return 0;
}

int np_policy_compile(const struct np_policy_spec *spec, struct np_policy **out, char *err,
                      size_t errlen)
{
  struct np_policy *p = calloc(1, sizeof *p);
  *out = NULL;
  if (!p) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  if (spec->rest != NP_DEFAULT_DENY && spec->rest != NP_DEFAULT_ASK) {
    snprintf(err, errlen, "network proxy policy: unknown default %d", (int)spec->rest);
    free(p);
    return -1;
  }
  p->rest = spec->rest;
  p->n_allow = spec->n_allow;
  p->n_deny = spec->n_deny;
  p->n_ranges = spec->n_local_ranges;
  if (np_compile_list(spec->allow, spec->n_allow, &p->allow, "allow", err, errlen) != 0 ||
      np_compile_list(spec->deny, spec->n_deny, &p->deny, "deny", err, errlen) != 0)
    goto fail;
  p->ranges = calloc(p->n_ranges ? p->n_ranges : 1, sizeof *p->ranges);
  if (!p->ranges) {
    snprintf(err, errlen, "out of memory");
    goto fail;
  }
  for (size_t i = 0; i < p->n_ranges; i++) {
    const char *why = NULL;
    const char *text = spec->local_ranges[i];
    if (!text || np_cidr_parse(text, &p->ranges[i], &why) != 0) {
      snprintf(err, errlen, "network proxy policy: local range \"%s\": %s", text ? text : "(null)",
               why ? why : "missing");
      goto fail;
    }
  }
  *out = p;
  return 0;
fail:
  np_policy_free(p);
  return -1;
}

void np_policy_free(struct np_policy *policy)
{
  if (!policy)
    return;
  free(policy->allow);
  free(policy->deny);
  free(policy->ranges);
  free(policy);
}

/* The IPv4 address an IP host stands for, if any (IPv4 itself, or an IPv6
 * form carrying one), so that 1.2.3.4 and [64:ff9b::102:304] are one
 * destination to the matcher as they are to the network. */
static int np_effective_v4(const struct np_host *h, uint8_t v4[4])
{
  if (h->kind == NP_HOST_IPV4) {
    memcpy(v4, h->addr, 4);
    return 1;
  }
  return h->kind == NP_HOST_IPV6 && np_addr_embedded_ipv4(h->addr, v4);
}

static int np_host_matches(const struct np_pattern *p, const struct np_host *h)
{
  if (p->host.kind == NP_HOST_NAME || h->kind == NP_HOST_NAME) {
    if (p->host.kind != h->kind)
      return 0;
    size_t hl = strlen(h->text), bl = strlen(p->host.text);
    int equal = strcmp(h->text, p->host.text) == 0;
    int below =
        hl > bl + 1 && h->text[hl - bl - 1] == '.' && strcmp(h->text + hl - bl, p->host.text) == 0;
    switch (p->wild) {
    case NP_WILD_NONE:
      return equal;
    case NP_WILD_SUBDOMAINS:
      return below;
    case NP_WILD_NAME_AND_SUBDOMAINS:
      return equal || below;
    }
    return 0;
  }
  uint8_t pa[4], ha[4];
  int pv4 = np_effective_v4(&p->host, pa), hv4 = np_effective_v4(h, ha);
  if (pv4 && hv4)
    return memcmp(pa, ha, 4) == 0;
  if (p->host.kind == NP_HOST_IPV6 && h->kind == NP_HOST_IPV6)
    return memcmp(p->host.addr, h->addr, 16) == 0;
  return 0;
}

static const struct np_pattern *np_first_match(const struct np_pattern *list, size_t n,
                                               const struct np_host *h, uint16_t port)
{
  for (size_t i = 0; i < n; i++)
    if ((list[i].port == 0 || list[i].port == port) && np_host_matches(&list[i], h))
      return &list[i];
  return NULL;
}

enum np_verdict np_policy_decide(const struct np_policy *policy, const struct np_host *host,
                                 uint16_t port, const char **rule)
{
  const struct np_pattern *m;
  /* Deny first: a deny pattern overrides any allow, however specific. */
  if ((m = np_first_match(policy->deny, policy->n_deny, host, port))) {
    *rule = m->text;
    return NP_VERDICT_DENY;
  }
  if ((m = np_first_match(policy->allow, policy->n_allow, host, port))) {
    *rule = m->text;
    return NP_VERDICT_ALLOW;
  }
  *rule = NULL;
  return policy->rest == NP_DEFAULT_ASK ? NP_VERDICT_ASK : NP_VERDICT_DENY;
}

static int np_cidr_contains(const struct np_cidr *c, const uint8_t *addr)
{
  unsigned full = c->bits / 8, rest = c->bits % 8;
  if (memcmp(addr, c->addr, full) != 0)
    return 0;
  if (rest == 0)
    return 1;
  uint8_t mask = (uint8_t)(0xff << (8 - rest));
  return (addr[full] & mask) == (c->addr[full] & mask);
}

int np_policy_local_allowed(const struct np_policy *policy, int family, const uint8_t *addr,
                            const char **range)
{
  uint8_t v4[4];
  int has_v4 = family == AF_INET6 && np_addr_embedded_ipv4(addr, v4);
  for (size_t i = 0; i < policy->n_ranges; i++) {
    const struct np_cidr *c = &policy->ranges[i];
    if ((c->family == family && np_cidr_contains(c, addr)) ||
        (has_v4 && c->family == AF_INET && np_cidr_contains(c, v4))) {
      *range = c->text;
      return 1;
    }
  }
  return 0;
}

int np_pattern_read(const char *text, struct np_pattern_info *out, const char **why)
{
  struct np_pattern p;
  if (np_pattern_parse(text, &p, why) != 0)
    return -1;
  out->wild = p.wild;
  out->host = p.host;
  out->port = p.port;
  return 0;
}

int np_range_read(const char *text, int *family, uint8_t addr[16], unsigned *bits, const char **why)
{
  struct np_cidr c;
  if (np_cidr_parse(text, &c, why) != 0)
    return -1;
  *family = c.family;
  memcpy(addr, c.addr, 16);
  *bits = c.bits;
  return 0;
}
