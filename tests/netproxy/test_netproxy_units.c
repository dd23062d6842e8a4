/* Check tests of the network proxy's pure parts: host normalization, the
 * policy's patterns and decisions, the address classes, local ranges, the
 * filter of resolved addresses, the HTTP and SOCKS5 parsers. Table-driven:
 * one row per case, each row names what it shows. */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "np_addr.h"
#include "np_http.h"
#include "np_policy.h"
#include "np_resolver.h"
#include "np_socks.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static char *repeat(char c, size_t n, const char *suffix)
{
  static char buf[600];
  memset(buf, c, n);
  strcpy(buf + n, suffix);
  return buf;
}

/* ---- host normalization ---- */

struct norm_case {
  const char *in;
  int ok;
  enum np_host_kind kind;
  const char *text;
};

static const struct norm_case norm_cases[] = {
  { "Example.COM", 1, NP_HOST_NAME, "example.com" },
  { "example.com.", 1, NP_HOST_NAME, "example.com" },
  { "xn--bcher-kva.example", 1, NP_HOST_NAME, "xn--bcher-kva.example" },
  { "b\xc3\xbc"
    "cher.example",
    0, 0, NULL }, /* non-ASCII: IDNA form only */
  { "a..b", 0, 0, NULL },
  { ".", 0, 0, NULL },
  { "", 0, 0, NULL },
  { "example.com..", 0, 0, NULL },
  { "-a.com", 0, 0, NULL },
  { "a-.com", 0, 0, NULL },
  { "a b.com", 0, 0, NULL },
  { "a/b.com", 0, 0, NULL },
  { "127.0.0.1", 1, NP_HOST_IPV4, "127.0.0.1" },
  { "1.2.3.4.", 1, NP_HOST_IPV4, "1.2.3.4" },
  { "127.1", 0, 0, NULL },      /* inet_aton's short form */
  { "017.0.0.1", 0, 0, NULL },  /* octal to inet_aton */
  { "2130706433", 0, 0, NULL }, /* one number */
  { "foo.0x7f", 0, 0, NULL },   /* hex last label */
  { "host.123", 0, 0, NULL },   /* numeric top label */
  { "0x7f.example", 1, NP_HOST_NAME, "0x7f.example" },
  { "::1", 1, NP_HOST_IPV6, "::1" },
  { "2001:DB8:0:0::1", 1, NP_HOST_IPV6, "2001:db8::1" },
  { "::ffff:127.0.0.1", 1, NP_HOST_IPV4, "127.0.0.1" }, /* mapped = the IPv4 address */
  { "fe80::1%eth0", 0, 0, NULL },
  { "1:2:3", 0, 0, NULL },
};

START_TEST(test_normalize)
{
  const struct norm_case *c = &norm_cases[_i];
  struct np_host h;
  const char *why = NULL;
  int rc = np_host_normalize(c->in, strlen(c->in), &h, &why);
  ck_assert_msg((rc == 0) == c->ok, "%s: rc %d (%s)", c->in, rc, why ? why : "");
  if (c->ok) {
    ck_assert_int_eq(h.kind, c->kind);
    ck_assert_str_eq(h.text, c->text);
  } else {
    ck_assert_ptr_nonnull(why);
  }
}
END_TEST

START_TEST(test_normalize_lengths)
{
  struct np_host h;
  const char *why;
  char name[300];
  /* a 63-character label is fine, 64 is not */
  strcpy(name, repeat('a', 63, ".com"));
  ck_assert_int_eq(np_host_normalize(name, strlen(name), &h, &why), 0);
  strcpy(name, repeat('a', 64, ".com"));
  ck_assert_int_eq(np_host_normalize(name, strlen(name), &h, &why), -1);
  /* 253 characters is the longest name; 254 is refused */
  char long_name[300] = "";
  while (strlen(long_name) + 50 < 253)
    strcat(long_name, repeat('b', 49, "."));
  size_t have = strlen(long_name);
  strcat(long_name, repeat('c', 253 - have, ""));
  ck_assert_uint_eq(strlen(long_name), 253);
  ck_assert_int_eq(np_host_normalize(long_name, 253, &h, &why), 0);
  strcat(long_name, "c");
  ck_assert_int_eq(np_host_normalize(long_name, 254, &h, &why), -1);
  /* with the root's dot, 254 characters are still the 253-character name */
  long_name[253] = '.';
  ck_assert_int_eq(np_host_normalize(long_name, 254, &h, &why), 0);
}
END_TEST

/* ---- patterns ---- */

struct pattern_case {
  const char *pattern;
  int ok;
};

static const struct pattern_case pattern_cases[] = {
  { "example.com", 1 },
  { "*.example.com:443", 1 },
  { "**.example.com", 1 },
  { "[2001:db8::1]:443", 1 },
  { "[2001:db8::1]", 1 },
  { "192.0.2.7", 1 },
  { "192.0.2.7:22", 1 },
  { "*", 0 },
  { "**", 0 },
  { "*.", 0 },
  { "a.*.com", 0 },
  { "*a.com", 0 },
  { "***.a.com", 0 },
  { "example.com:0", 0 },
  { "example.com:65536", 0 },
  { "example.com:", 0 },
  { "example.com:x", 0 },
  { "2001:db8::1", 0 }, /* IPv6 needs brackets */
  { "[2001:db8::1", 0 },
  { "[example.com]", 0 },
  { "[2001:db8::1]x", 0 },
  { "*.1.2.3.4", 0 }, /* wildcards are for names */
  { "b\xc3\xbc"
    "cher.de",
    0 },
  { "127.1", 0 },
};

START_TEST(test_pattern)
{
  const struct pattern_case *c = &pattern_cases[_i];
  const char *allow[] = { c->pattern };
  struct np_policy_spec spec = { .allow = allow, .n_allow = 1 };
  struct np_policy *p = NULL;
  char err[256] = "";
  int rc = np_policy_compile(&spec, &p, err, sizeof err);
  ck_assert_msg((rc == 0) == c->ok, "%s: %s", c->pattern, err);
  if (!c->ok)
    ck_assert_msg(strstr(err, c->pattern) != NULL, "message names the pattern: %s", err);
  np_policy_free(p);
}
END_TEST

/* ---- decisions ---- */

static const char *const dec_allow[] = {
  "example.com",       "*.sub.test", "**.both.test", "api.port.test:443",
  "[2001:db8::1]:443", "192.0.2.7",  "1.2.3.4"
};
static const char *const dec_deny[] = { "bad.sub.test", "**.both.test:25", "1.2.3.4" };

struct decide_case {
  const char *host;
  uint16_t port;
  enum np_verdict verdict;
  const char *rule; /* NULL: the default decided */
};

static const struct decide_case decide_cases[] = {
  { "example.com", 80, NP_VERDICT_ALLOW, "example.com" },
  { "EXAMPLE.com.", 443, NP_VERDICT_ALLOW, "example.com" },
  { "www.example.com", 443, NP_VERDICT_DENY, NULL }, /* exact is exact */
  { "sub.test", 443, NP_VERDICT_DENY, NULL },        /* *. is subdomains only */
  { "a.sub.test", 443, NP_VERDICT_ALLOW, "*.sub.test" },
  { "a.b.sub.test", 443, NP_VERDICT_ALLOW, "*.sub.test" },
  { "xsub.test", 443, NP_VERDICT_DENY, NULL },              /* a label boundary, not a suffix */
  { "bad.sub.test", 443, NP_VERDICT_DENY, "bad.sub.test" }, /* deny wins */
  { "x.bad.sub.test", 443, NP_VERDICT_ALLOW, "*.sub.test" },
  { "both.test", 443, NP_VERDICT_ALLOW, "**.both.test" },
  { "x.both.test", 443, NP_VERDICT_ALLOW, "**.both.test" },
  { "both.test", 25, NP_VERDICT_DENY, "**.both.test:25" },
  { "x.both.test", 25, NP_VERDICT_DENY, "**.both.test:25" },
  { "api.port.test", 443, NP_VERDICT_ALLOW, "api.port.test:443" },
  { "api.port.test", 80, NP_VERDICT_DENY, NULL },
  { "2001:db8:0::1", 443, NP_VERDICT_ALLOW, "[2001:db8::1]:443" },
  { "2001:db8::1", 80, NP_VERDICT_DENY, NULL },
  { "192.0.2.7", 8080, NP_VERDICT_ALLOW, "192.0.2.7" },
  { "1.2.3.4", 443, NP_VERDICT_DENY, "1.2.3.4" },
  { "::ffff:1.2.3.4", 443, NP_VERDICT_DENY, "1.2.3.4" },   /* mapped form */
  { "64:ff9b::102:304", 443, NP_VERDICT_DENY, "1.2.3.4" }, /* NAT64 form */
  { "192.0.2.8", 443, NP_VERDICT_DENY, NULL },
};

START_TEST(test_decide)
{
  const struct decide_case *c = &decide_cases[_i];
  struct np_policy_spec spec = {
    .allow = dec_allow, .n_allow = N(dec_allow), .deny = dec_deny, .n_deny = N(dec_deny)
  };
  struct np_policy *p;
  char err[256];
  ck_assert_int_eq(np_policy_compile(&spec, &p, err, sizeof err), 0);
  struct np_host h;
  const char *why, *rule = "unset";
  ck_assert_int_eq(np_host_normalize(c->host, strlen(c->host), &h, &why), 0);
  enum np_verdict v = np_policy_decide(p, &h, c->port, &rule);
  ck_assert_msg(v == c->verdict, "%s:%u verdict %d", c->host, c->port, (int)v);
  if (c->rule)
    ck_assert_str_eq(rule, c->rule);
  else
    ck_assert_ptr_null(rule);
  np_policy_free(p);
}
END_TEST

START_TEST(test_decide_ask)
{
  struct np_policy_spec spec = { .allow = dec_allow,
                                 .n_allow = N(dec_allow),
                                 .deny = dec_deny,
                                 .n_deny = N(dec_deny),
                                 .rest = NP_DEFAULT_ASK };
  struct np_policy *p;
  char err[256];
  ck_assert_int_eq(np_policy_compile(&spec, &p, err, sizeof err), 0);
  struct np_host h;
  const char *why, *rule;
  np_host_normalize("unknown.test", 12, &h, &why);
  ck_assert_int_eq(np_policy_decide(p, &h, 443, &rule), NP_VERDICT_ASK);
  np_host_normalize("bad.sub.test", 12, &h, &why);
  ck_assert_int_eq(np_policy_decide(p, &h, 443, &rule), NP_VERDICT_DENY); /* deny is never asked */
  np_policy_free(p);
  spec.rest = (enum np_default)7;
  ck_assert_int_eq(np_policy_compile(&spec, &p, err, sizeof err), -1);
}
END_TEST

/* ---- address classes ---- */

struct addr_case {
  const char *addr;
  const char *class_part; /* a word of the class's name; NULL: public */
};

static const struct addr_case addr_cases[] = {
  { "127.0.0.1", "loopback" },
  { "127.255.0.9", "loopback" },
  { "10.1.2.3", "private" },
  { "172.16.0.1", "private" },
  { "172.31.255.255", "private" },
  { "172.32.0.1", NULL },
  { "192.168.1.1", "private" },
  { "100.64.0.1", "carrier-grade" },
  { "100.128.0.1", NULL },
  { "169.254.169.254", "metadata" },
  { "169.254.1.1", "link-local" },
  { "0.1.2.3", "this network" },
  { "192.0.0.8", "IETF" },
  { "198.18.0.1", "benchmarking" },
  { "198.19.255.255", "benchmarking" },
  { "198.20.0.1", NULL },
  { "224.0.0.1", "multicast" },
  { "239.255.255.250", "multicast" },
  { "240.0.0.1", "reserved" },
  { "255.255.255.255", "broadcast" },
  { "8.8.8.8", NULL },
  { "1.1.1.1", NULL },
  { "::", "unspecified" },
  { "::1", "loopback" },
  { "::ffff:127.0.0.1", "loopback" },
  { "::ffff:10.0.0.1", "private" },
  { "::ffff:8.8.8.8", NULL },
  { "::127.0.0.1", "loopback" }, /* IPv4-compatible */
  { "64:ff9b::a00:1", "private" },
  { "64:ff9b::a9fe:a9fe", "metadata" },
  { "64:ff9b::808:808", NULL },
  { "64:ff9b:1::1", "NAT64" },
  { "2002:7f00:1::", "loopback" }, /* 6to4 */
  { "2002:808:808::", NULL },
  { "fd00:ec2::254", "metadata" },
  { "fc00::1", "unique local" },
  { "fd12:3456::1", "unique local" },
  { "fe80::1", "link-local" },
  { "febf::1", "link-local" },
  { "ff02::1", "multicast" },
  { "2001:db8::1", "documentation" },
  { "2001::1", "Teredo" },
  { "2606:4700::1111", NULL },
};

START_TEST(test_addr_special)
{
  const struct addr_case *c = &addr_cases[_i];
  uint8_t a[16];
  int family = strchr(c->addr, ':') ? AF_INET6 : AF_INET;
  ck_assert_int_eq(inet_pton(family, c->addr, a), 1);
  const char *cls = np_addr_special(family, a);
  if (!c->class_part)
    ck_assert_msg(cls == NULL, "%s: %s", c->addr, cls);
  else
    ck_assert_msg(cls && strstr(cls, c->class_part), "%s: %s", c->addr, cls ? cls : "public");
}
END_TEST

/* A range holds a refused address when it overlaps a special range from
 * either side (inside one, or holding one), through the IPv6 forms that
 * carry IPv4 too; purely public ranges hold none (pnetc refuses a local
 * range over them as having no effect). */
static const struct range_case {
  const char *range;
  const char *class_part; /* NULL: only public addresses */
} range_cases[] = {
  { "127.0.0.0/8", "loopback" },
  { "127.0.0.1/32", "loopback" },
  { "10.20.0.0/16", "private 10." },
  { "0.0.0.0/0", "this network" },
  { "96.0.0.0/4", "carrier-grade NAT" }, /* holds 100.64.0.0/10 */
  { "169.254.169.254/32", "metadata" },
  { "8.8.8.0/24", NULL },
  { "100.128.0.0/9", NULL },  /* beside 100.64.0.0/10 */
  { "fd00::/8", "metadata" }, /* the most specific class it holds */
  { "fc00::/16", "unique local" },
  { "fe80::/64", "link-local" },
  { "2606:4700::/32", NULL },
  { "::ffff:10.0.0.0/104", "private 10." },
  { "::ffff:8.8.8.0/120", NULL },
  { "2002::/16", "this network" }, /* 6to4: carries every IPv4 address */
  { "2002:c0a8::/32", "private 192.168" },
  { "2002:0808:0800::/40", NULL },
  { "64:ff9b::7f00:0/104", "loopback" },
};

START_TEST(test_range_special)
{
  const struct range_case *c = &range_cases[_i];
  int family;
  uint8_t a[16];
  unsigned bits;
  const char *why = NULL;
  ck_assert_msg(np_range_read(c->range, &family, a, &bits, &why) == 0, "%s: %s", c->range, why);
  const char *cls = np_addr_range_special(family, a, bits);
  if (!c->class_part)
    ck_assert_msg(cls == NULL, "%s: %s", c->range, cls);
  else
    ck_assert_msg(cls && strstr(cls, c->class_part), "%s: %s", c->range, cls ? cls : "public");
}
END_TEST

/* np_pattern_read is the compile-time parser: the same normalized host,
 * wildcard and port as matching uses, and the same refusals. */
START_TEST(test_pattern_read)
{
  struct np_pattern_info info;
  const char *why = NULL;
  ck_assert_int_eq(np_pattern_read("**.Example.COM.:443", &info, &why), 0);
  ck_assert_int_eq(info.wild, NP_WILD_NAME_AND_SUBDOMAINS);
  ck_assert_str_eq(info.host.text, "example.com");
  ck_assert_uint_eq(info.port, 443);
  ck_assert_int_eq(np_pattern_read("[::ffff:192.0.2.1]", &info, &why), 0);
  ck_assert_int_eq(info.host.kind, NP_HOST_IPV4);
  ck_assert_str_eq(info.host.text, "192.0.2.1");
  ck_assert_int_eq(np_pattern_read("*.192.0.2.1", &info, &why), -1);
  ck_assert_ptr_nonnull(why);
}
END_TEST

/* ---- local ranges and the filter ---- */

static struct sockaddr_storage sa_of(const char *text)
{
  struct sockaddr_storage s;
  memset(&s, 0, sizeof s);
  if (strchr(text, ':')) {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)(void *)&s;
    a->sin6_family = AF_INET6;
    inet_pton(AF_INET6, text, &a->sin6_addr);
  } else {
    struct sockaddr_in *a = (struct sockaddr_in *)(void *)&s;
    a->sin_family = AF_INET;
    inet_pton(AF_INET, text, &a->sin_addr);
  }
  return s;
}

START_TEST(test_local_ranges)
{
  const char *local[] = { "127.0.0.0/8", "fd00::/8" };
  struct np_policy_spec spec = { .local_ranges = local, .n_local_ranges = 2 };
  struct np_policy *p;
  char err[256];
  ck_assert_int_eq(np_policy_compile(&spec, &p, err, sizeof err), 0);
  struct {
    const char *addr;
    int allowed;
  } cases[] = { { "127.0.0.1", 1 },        { "127.9.9.9", 1 }, { "128.0.0.1", 0 },
                { "::ffff:127.0.0.1", 1 }, { "fd01::1", 1 },   { "fe80::1", 0 },
                { "10.0.0.1", 0 } };
  for (size_t i = 0; i < N(cases); i++) {
    uint8_t a[16];
    int family = strchr(cases[i].addr, ':') ? AF_INET6 : AF_INET;
    inet_pton(family, cases[i].addr, a);
    const char *range = NULL;
    ck_assert_msg(np_policy_local_allowed(p, family, a, &range) == cases[i].allowed, "%s",
                  cases[i].addr);
  }

  /* The filter: without a range loopback is dropped and named; with it kept. */
  struct sockaddr_storage addrs[3] = { sa_of("127.0.0.1"), sa_of("8.8.8.8"), sa_of("fe80::1") };
  char why[256];
  ck_assert_uint_eq(np_resolver_filter(p, addrs, 3, why, sizeof why), 2);
  ck_assert_int_eq(addrs[1].ss_family, AF_INET); /* 8.8.8.8 kept second */
  np_policy_free(p);
  struct np_policy_spec none = { 0 };
  ck_assert_int_eq(np_policy_compile(&none, &p, err, sizeof err), 0);
  struct sockaddr_storage again[3] = { sa_of("127.0.0.1"), sa_of("8.8.8.8"), sa_of("fe80::1") };
  ck_assert_uint_eq(np_resolver_filter(p, again, 3, why, sizeof why), 1);
  ck_assert_msg(strstr(why, "127.0.0.1") && strstr(why, "loopback"), "%s", why);
  np_policy_free(p);

  const char *bad[] = { "10.1.2.3/8", "10.0.0.0/33", "nonsense", "10.0.0.0/", "::/129" };
  for (size_t i = 0; i < N(bad); i++) {
    struct np_policy_spec b = { .local_ranges = &bad[i], .n_local_ranges = 1 };
    ck_assert_msg(np_policy_compile(&b, &p, err, sizeof err) == -1, "%s accepted", bad[i]);
    ck_assert(strstr(err, bad[i]) != NULL);
  }
}
END_TEST

/* ---- HTTP ---- */

struct http_case {
  const char *head;
  enum np_http_status status;
  int http_status; /* when refused */
  int is_connect;
  const char *host;
  uint16_t port;
};

static const struct http_case http_cases[] = {
  { "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", NP_HTTP_OK, 0, 1,
    "example.com", 443 },
  { "CONNECT [2001:db8::1]:443 HTTP/1.1\r\n\r\n", NP_HTTP_OK, 0, 1, "2001:db8::1", 443 },
  { "CONNECT example.com HTTP/1.1\r\n\r\n", NP_HTTP_REFUSED, 400, 0, NULL, 0 },
  { "CONNECT example.com:0 HTTP/1.1\r\n\r\n", NP_HTTP_REFUSED, 400, 0, NULL, 0 },
  { "GET http://example.com/a?b HTTP/1.1\r\nHost: x\r\n\r\n", NP_HTTP_OK, 0, 0, "example.com", 80 },
  { "GET HTTP://example.com:8080 HTTP/1.0\r\n\r\n", NP_HTTP_OK, 0, 0, "example.com", 8080 },
  { "POST http://[::1]:81/x HTTP/1.1\r\n\r\n", NP_HTTP_OK, 0, 0, "::1", 81 },
  { "GET https://example.com/ HTTP/1.1\r\n\r\n", NP_HTTP_REFUSED, 400, 0, NULL, 0 },
  { "GET /local HTTP/1.1\r\n\r\n", NP_HTTP_REFUSED, 400, 0, NULL, 0 },
  { "GET http://u:p@example.com/ HTTP/1.1\r\n\r\n", NP_HTTP_REFUSED, 400, 0, NULL, 0 },
  { "GET http://example.com/ HTTP/1.1\nHost: x\n\n", NP_HTTP_REFUSED, 400, 0, NULL, 0 },
  { "GET http://example.com/ HTTP/1.1\r\nX: a\r\n b\r\n\r\n", NP_HTTP_REFUSED, 400, 0, NULL, 0 },
  { "GET http://example.com/ HTTP/2.0\r\n\r\n", NP_HTTP_REFUSED, 505, 0, NULL, 0 },
  { "GET  http://example.com/ HTTP/1.1\r\n\r\n", NP_HTTP_REFUSED, 400, 0, NULL, 0 },
  { "GET http://example.com/ HTTP/1.1\r\nBad Header: x\r\n\r\n", NP_HTTP_REFUSED, 400, 0, NULL, 0 },
  { "GET http://example.com/ HTTP/1.1\r\nX: a\x01\r\n\r\n", NP_HTTP_REFUSED, 400, 0, NULL, 0 },
  { "GET http://example.com/ HTTP/1.1\r\nHost: x\r\n", NP_HTTP_NEED_MORE, 0, 0, NULL, 0 },
  { "GET http://exa", NP_HTTP_NEED_MORE, 0, 0, NULL, 0 },
};

START_TEST(test_http_parse)
{
  const struct http_case *c = &http_cases[_i];
  struct np_http_request r;
  enum np_http_status st = np_http_parse(c->head, strlen(c->head), 8192, &r);
  ck_assert_msg(st == c->status, "%s: status %d (%s)", c->head, (int)st, r.why ? r.why : "");
  if (st == NP_HTTP_REFUSED)
    ck_assert_int_eq(r.status, c->http_status);
  if (st == NP_HTTP_OK) {
    ck_assert_int_eq(r.is_connect, c->is_connect);
    ck_assert_uint_eq(r.host_len, strlen(c->host));
    ck_assert(memcmp(r.host, c->host, r.host_len) == 0);
    ck_assert_uint_eq(r.port, c->port);
    ck_assert_uint_eq(r.head_len, strlen(c->head));
  }
}
END_TEST

START_TEST(test_http_too_large)
{
  static char big[9000];
  memcpy(big, "GET http://example.com/ HTTP/1.1\r\nX: ", 37);
  memset(big + 37, 'a', sizeof big - 37);
  struct np_http_request r;
  ck_assert_int_eq(np_http_parse(big, sizeof big, 8192, &r), NP_HTTP_REFUSED);
  ck_assert_int_eq(r.status, 431);
  ck_assert_int_eq(np_http_parse(big, 8000, 8192, &r), NP_HTTP_NEED_MORE);
}
END_TEST

START_TEST(test_http_rewrite)
{
  const char *in = "GET http://Example.com:8080/p?q#frag HTTP/1.1\r\nHost: evil\r\n"
                   "Proxy-Authorization: secret\r\nConnection: keep-alive, X-Drop\r\n"
                   "X-Drop: 1\r\nX-Keep: 2\r\nKeep-Alive: 300\r\nProxy-Connection: x\r\n"
                   "Transfer-Encoding: chunked\r\n\r\nBODY";
  struct np_http_request r;
  ck_assert_int_eq(np_http_parse(in, strlen(in), 8192, &r), NP_HTTP_OK);
  char out[1024];
  size_t n = np_http_rewrite(in, &r, out, sizeof out);
  ck_assert_uint_gt(n, 0);
  out[n] = '\0';
  ck_assert_str_eq(out, "GET /p?q HTTP/1.1\r\nHost: Example.com:8080\r\nX-Keep: 2\r\n"
                        "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
  const char *bare = "GET http://h.test?x=1 HTTP/1.0\r\n\r\n";
  ck_assert_int_eq(np_http_parse(bare, strlen(bare), 8192, &r), NP_HTTP_OK);
  n = np_http_rewrite(bare, &r, out, sizeof out);
  out[n] = '\0';
  ck_assert_str_eq(out, "GET /?x=1 HTTP/1.0\r\nHost: h.test\r\nConnection: close\r\n\r\n");
  ck_assert_uint_eq(np_http_rewrite(bare, &r, out, 10), 0); /* too small: refused, not cut */
}
END_TEST

/* ---- SOCKS5 ---- */

struct socks_case {
  const char *what;
  uint8_t bytes[32];
  size_t len;
  enum np_socks_status status;
  uint8_t reply;
  const char *host;
  uint16_t port;
};

static const struct socks_case socks_cases[] = {
  { "domain CONNECT",
    { 5, 1, 0, 3, 11, 'e', 'x', 'a', 'm', 'p', 'l', 'e', '.', 'c', 'o', 'm', 1, 187 },
    18,
    NP_SOCKS_OK,
    0,
    "example.com",
    443 },
  { "IPv4 CONNECT", { 5, 1, 0, 1, 127, 0, 0, 1, 0, 80 }, 10, NP_SOCKS_OK, 0, "", 80 },
  { "IPv6 CONNECT",
    { 5, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 80 },
    22,
    NP_SOCKS_OK,
    0,
    "",
    80 },
  { "UDP ASSOCIATE", { 5, 3, 0, 1, 0, 0, 0, 0, 0, 0 }, 10, NP_SOCKS_REFUSED, 0x02, NULL, 0 },
  { "BIND", { 5, 2, 0, 1, 0, 0, 0, 0, 0, 1 }, 10, NP_SOCKS_REFUSED, 0x02, NULL, 0 },
  { "unknown command", { 5, 9, 0, 1, 0, 0, 0, 0, 0, 1 }, 10, NP_SOCKS_REFUSED, 0x07, NULL, 0 },
  { "unknown address type", { 5, 1, 0, 5, 0, 0, 0, 0, 0, 1 }, 10, NP_SOCKS_REFUSED, 0x08, NULL, 0 },
  { "empty name", { 5, 1, 0, 3, 0, 0, 80 }, 7, NP_SOCKS_REFUSED, 0x04, NULL, 0 },
  { "port 0", { 5, 1, 0, 1, 1, 2, 3, 4, 0, 0 }, 10, NP_SOCKS_REFUSED, 0x02, NULL, 0 },
  { "version 4", { 4, 1, 0, 1, 1, 2, 3, 4, 0, 80 }, 10, NP_SOCKS_REFUSED, 0x01, NULL, 0 },
  { "reserved byte", { 5, 1, 1, 1, 1, 2, 3, 4, 0, 80 }, 10, NP_SOCKS_REFUSED, 0x01, NULL, 0 },
  { "truncated name", { 5, 1, 0, 3, 11, 'e', 'x' }, 7, NP_SOCKS_NEED_MORE, 0, NULL, 0 },
  { "truncated header", { 5, 1, 0 }, 3, NP_SOCKS_NEED_MORE, 0, NULL, 0 },
  { "truncated port", { 5, 1, 0, 1, 1, 2, 3, 4, 0 }, 9, NP_SOCKS_NEED_MORE, 0, NULL, 0 },
};

START_TEST(test_socks_request)
{
  const struct socks_case *c = &socks_cases[_i];
  struct np_socks_request r;
  enum np_socks_status st = np_socks_parse_request(c->bytes, c->len, &r);
  ck_assert_msg(st == c->status, "%s: status %d", c->what, (int)st);
  if (st == NP_SOCKS_REFUSED)
    ck_assert_msg(r.reply == c->reply, "%s: reply %u", c->what, r.reply);
  if (st == NP_SOCKS_OK) {
    ck_assert_str_eq(r.host, c->host);
    ck_assert_uint_eq(r.port, c->port);
    ck_assert_uint_eq(r.len, c->len);
  }
}
END_TEST

START_TEST(test_socks_greeting)
{
  struct np_socks_greeting g;
  const uint8_t ok[] = { 5, 2, 2, 0 }, no_auth_missing[] = { 5, 1, 2 }, v4[] = { 4, 1, 0 },
                short_methods[] = { 5, 2, 0 }, zero[] = { 5, 0 };
  ck_assert_int_eq(np_socks_parse_greeting(ok, sizeof ok, &g), NP_SOCKS_OK);
  ck_assert(g.no_auth_offered);
  ck_assert_uint_eq(g.len, 4);
  ck_assert_int_eq(np_socks_parse_greeting(no_auth_missing, 3, &g), NP_SOCKS_OK);
  ck_assert(!g.no_auth_offered);
  ck_assert_int_eq(np_socks_parse_greeting(v4, 3, &g), NP_SOCKS_REFUSED);
  ck_assert_int_eq(np_socks_parse_greeting(v4, 1, &g), NP_SOCKS_REFUSED);
  ck_assert_int_eq(np_socks_parse_greeting(short_methods, 3, &g), NP_SOCKS_NEED_MORE);
  ck_assert_int_eq(np_socks_parse_greeting(zero, 2, &g), NP_SOCKS_REFUSED);
  ck_assert_int_eq(np_socks_parse_greeting(ok, 1, &g), NP_SOCKS_NEED_MORE);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("netproxy");
  TCase *t = tcase_create("units");
  tcase_add_loop_test(t, test_normalize, 0, N(norm_cases));
  tcase_add_test(t, test_normalize_lengths);
  tcase_add_loop_test(t, test_pattern, 0, N(pattern_cases));
  tcase_add_loop_test(t, test_decide, 0, N(decide_cases));
  tcase_add_test(t, test_decide_ask);
  tcase_add_loop_test(t, test_addr_special, 0, N(addr_cases));
  tcase_add_test(t, test_local_ranges);
  tcase_add_loop_test(t, test_range_special, 0, N(range_cases));
  tcase_add_test(t, test_pattern_read);
  tcase_add_loop_test(t, test_http_parse, 0, N(http_cases));
  tcase_add_test(t, test_http_too_large);
  tcase_add_test(t, test_http_rewrite);
  tcase_add_loop_test(t, test_socks_request, 0, N(socks_cases));
  tcase_add_test(t, test_socks_greeting);
  suite_add_tcase(s, t);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}
