/* pol_network: a profile's `network` block (docs/pol-language.md,
 * "Network"): how the profile reaches the network (via proxy or direct),
 * the destinations the proxy allows and denies, what the rest gets, and
 * the local ranges it may dial. Each pattern is read by the proxy's own
 * parser (runtime/netproxy np_pattern_read), one rule at a time, so an
 * error points at the rule and pnetc can never accept a pattern the proxy
 * would read differently. Then, after inheritance, the rules are checked
 * as a whole: a rule that can never match is an error, not dead text an
 * auditor has to reason about. */
#include <arpa/inet.h>
#include <errno.h>
#include <libpsl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "np_addr.h"
#include "np_policy.h"
#include "pol_internal.h"

void pol_net_rules_free(struct pol_net_rule *rules, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    free(rules[i].pattern);
    free(rules[i].written);
    free(rules[i].origin);
  }
  free(rules);
}

void pol_net_delta_free(struct pol_net_delta *net)
{
  pol_net_rules_free(net->allow, net->n_allow);
  pol_net_rules_free(net->deny, net->n_deny);
  pol_net_rules_free(net->local, net->n_local);
  free(net->via_origin);
  free(net->rest_origin);
}

/* Appends a rule (pattern and written text copied, origin taken over).
 * 0, -ENOMEM, or -E2BIG past POL_MAX_NET_RULES. */
static int pol_net_add(struct pol_net_rule **rules, size_t *n, const char *pattern,
                       const char *written, char *origin, const char *profile, struct diag_loc loc)
{
  if (*n >= POL_MAX_NET_RULES) {
    free(origin);
    return -E2BIG;
  }
  struct pol_net_rule *grown = realloc(*rules, (*n + 1) * sizeof *grown);
  if (!grown) {
    free(origin);
    return -ENOMEM;
  }
  *rules = grown;
  struct pol_net_rule *r = &grown[(*n)++];
  memset(r, 0, sizeof *r);
  r->pattern = strdup(pattern);
  r->written = strdup(written);
  r->origin = origin;
  r->profile = profile;
  r->loc = loc;
  return r->pattern && r->written && r->origin ? 0 : -ENOMEM;
}

/* The public suffix list (libpsl, docs/dependencies.md): the newer of the
 * list built into libpsl and the system's (Debian's publicsuffix package,
 * updated more often than libpsl), so a suffix added since libpsl was
 * built is refused too. Loaded once; NULL when neither exists. */
static const psl_ctx_t *pol_psl(void)
{
  static const psl_ctx_t *ctx;
  static bool tried;
  if (!tried) {
    tried = true;
    ctx = psl_latest(NULL);
    if (!ctx)
      ctx = psl_builtin();
  }
  return ctx;
}

/* The port text of a pattern (after the bracketed IPv6 literal, or after
 * the one colon of a name), NULL when it has none. */
static const char *pol_net_port_text(const char *t)
{
  if (t[0] == '[') {
    const char *close = strchr(t, ']');
    return close && close[1] == ':' ? close + 2 : NULL;
  }
  const char *colon = strchr(t, ':');
  return colon && !strchr(colon + 1, ':') ? colon + 1 : NULL;
}

static void pol_net_pattern_text(const struct np_pattern_info *in, char *buf, size_t len)
{
  const char *wild = in->wild == NP_WILD_SUBDOMAINS            ? "*."
                     : in->wild == NP_WILD_NAME_AND_SUBDOMAINS ? "**."
                                                               : "";
  bool v6 = in->host.kind == NP_HOST_IPV6;
  int n = snprintf(buf, len, "%s%s%s%s", wild, v6 ? "[" : "", in->host.text, v6 ? "]" : "");
  if (in->port && n > 0 && (size_t)n < len)
    snprintf(buf + n, len - (size_t)n, ":%u", (unsigned)in->port);
}

/* One allow or deny pattern on its own; its normalized text into norm. */
static int pol_net_check_pattern(const struct pol_name *n, bool allow, char *norm, size_t len)
{
  const char *what = allow ? "allow" : "deny";
  const char *t = n->text;
  if (strlen(t) > POL_MAX_NET_PATTERN) {
    diag_error(&n->loc, "%s pattern longer than %d bytes", what, POL_MAX_NET_PATTERN);
    return -EINVAL;
  }
  const char *port = pol_net_port_text(t);
  if (port && port[0] && strspn(port, "0") == strlen(port)) {
    /* No connection is ever made to port 0: the rule could never match. */
    diag_error(&n->loc, "%s \"%s\" can never match: no connection goes to port 0", what, t);
    return -EINVAL;
  }
  size_t host_len = port ? (size_t)(port - 1 - t) : strlen(t);
  if ((host_len == 1 && t[0] == '*') || (host_len == 2 && t[0] == '*' && t[1] == '*')) {
    if (allow)
      diag_error(&n->loc,
                 "allow \"%s\" is too broad: it matches every host (name the hosts, or write "
                 "`rest ask;` to be asked for each)",
                 t);
    else
      diag_error(&n->loc,
                 "deny \"%s\" is not a pattern: write `rest deny;` for every host no allow rule "
                 "matches",
                 t);
    return -EINVAL;
  }
  struct np_pattern_info info;
  const char *why = NULL;
  if (np_pattern_read(t, &info, &why) != 0) {
    diag_error(&n->loc, "%s pattern \"%s\": %s", what, t, why);
    return -EINVAL;
  }
  if (allow && info.wild != NP_WILD_NONE) {
    /* Below a public suffix anyone can register a name (attacker.com,
     * attacker.github.io): a wildcard over one lets the sandbox reach
     * hosts its author has never seen. Deny rules may be that broad. */
    const psl_ctx_t *psl = pol_psl();
    if (!psl) {
      diag_error(&n->loc,
                 "allow \"%s\": no public suffix list to check the wildcard against (libpsl has "
                 "none built in and /usr/share/publicsuffix is missing)",
                 t);
      return -EINVAL;
    }
    if (psl_is_public_suffix2(psl, info.host.text, PSL_TYPE_ANY)) {
      diag_error(&n->loc,
                 "allow \"%s\" is too broad: '%s' is a public suffix, below which anyone can "
                 "register a name",
                 t, info.host.text);
      return -EINVAL;
    }
  }
  pol_net_pattern_text(&info, norm, len);
  return 0;
}

/* One local range on its own; its canonical text ("10.0.0.0/8") into norm. */
static int pol_net_check_range(const struct pol_name *n, char *norm, size_t len)
{
  int family;
  uint8_t addr[16];
  unsigned bits;
  const char *why = NULL;
  if (strlen(n->text) > POL_MAX_NET_PATTERN || np_range_read(n->text, &family, addr, &bits, &why)) {
    diag_error(&n->loc, "local range \"%s\": %s", n->text, why ? why : "longer than a range");
    return -EINVAL;
  }
  if (!np_addr_range_special(family, addr, bits)) {
    /* The proxy dials public addresses anyway; a local range lets it dial
     * one it would refuse. One that holds none is a mistake (a typo for a
     * private range?), not a permission. */
    diag_error(&n->loc,
               "local range \"%s\" has no effect: it holds no loopback, private, link-local or "
               "other address the proxy refuses",
               n->text);
    return -EINVAL;
  }
  char text[INET6_ADDRSTRLEN];
  inet_ntop(family, addr, text, sizeof text);
  snprintf(norm, len, "%s/%u", text, bits);
  return 0;
}

static int pol_net_entry(const struct pol_policy *pol, struct pol_delta *dl,
                         const struct pol_path_entry *e)
{
  struct pol_net_delta *net = &dl->net;
  const char *key = e->access.text;
  bool is_via = strcmp(key, "via") == 0, is_rest = strcmp(key, "rest") == 0;
  if (is_via || is_rest) {
    const struct pol_path_entry **slot = is_via ? &net->via : &net->rest;
    const char *expected = is_via ? "proxy or direct" : "deny or ask";
    if (!e->bare) {
      diag_error(&e->paths.items[0].loc, "'%s' takes %s, not a string", key, expected);
      return -EINVAL;
    }
    if (*slot) {
      diag_error(&e->access.loc, "'%s' appears twice in the network block", key);
      diag_note(&(*slot)->access.loc, "first set here");
      return -EINVAL;
    }
    const char *v = e->paths.items[0].text;
    if (is_via && (strcmp(v, "proxy") == 0 || strcmp(v, "direct") == 0))
      net->mode = strcmp(v, "proxy") == 0 ? CS_NET_PROXY : CS_NET_DIRECT;
    else if (is_rest && (strcmp(v, "deny") == 0 || strcmp(v, "ask") == 0))
      net->rest_value = strcmp(v, "ask") == 0 ? CS_NET_REST_ASK : CS_NET_REST_DENY;
    else {
      diag_error(&e->paths.items[0].loc, "'%s' must be %s", key, expected);
      return -EINVAL;
    }
    *slot = e;
    char suffix[96];
    snprintf(suffix, sizeof suffix, "(profile %s)", dl->decl->name.text);
    char **origin = is_via ? &net->via_origin : &net->rest_origin;
    *origin = pol_origin(pol, &e->access.loc, suffix);
    return *origin ? 0 : -ENOMEM;
  }
  int list = strcmp(key, "allow") == 0   ? 0
             : strcmp(key, "deny") == 0  ? 1
             : strcmp(key, "local") == 0 ? 2
                                         : -1;
  if (list < 0) {
    diag_error(&e->access.loc,
               "unknown network setting '%s' (expected via, allow, deny, rest or local)", key);
    return -EINVAL;
  }
  if (e->bare) {
    diag_error(&e->paths.items[0].loc, "'%s' takes strings such as \"%s\"", key,
               list == 2 ? "127.0.0.0/8" : "registry.npmjs.org:443");
    return -EINVAL;
  }
  struct pol_net_rule **rules = list == 0 ? &net->allow : list == 1 ? &net->deny : &net->local;
  size_t *n = list == 0 ? &net->n_allow : list == 1 ? &net->n_deny : &net->n_local;
  char suffix[96];
  snprintf(suffix, sizeof suffix, "(profile %s)", dl->decl->name.text);
  int rc = 0;
  for (size_t i = 0; i < e->paths.n; i++) {
    const struct pol_name *item = &e->paths.items[i];
    char norm[NP_HOST_TEXT + 16];
    int crc = list == 2 ? pol_net_check_range(item, norm, sizeof norm)
                        : pol_net_check_pattern(item, list == 0, norm, sizeof norm);
    if (crc) {
      rc = crc;
      continue;
    }
    int arc = pol_net_add(rules, n, norm, item->text, pol_origin(pol, &item->loc, suffix),
                          dl->decl->name.text, item->loc);
    if (arc == -E2BIG) {
      diag_error(&item->loc, "more than %d %s rules in one profile", POL_MAX_NET_RULES, key);
      return -EINVAL;
    }
    if (arc)
      return arc;
  }
  return rc;
}

int pol_check_network(const struct pol_policy *pol, struct pol_delta *dl, const struct pol_item *it)
{
  if (dl->net.block) {
    diag_error(&it->loc, "'network' appears twice in profile '%s'", dl->decl->name.text);
    diag_note(&dl->net.block->loc, "first written here");
    return -EINVAL;
  }
  dl->net.block = it;
  dl->net.append = it->paths->append;
  int rc = 0;
  for (size_t e = 0; e < it->paths->n; e++) {
    int erc = pol_net_entry(pol, dl, &it->paths->entries[e]);
    if (erc == -ENOMEM)
      return erc;
    if (erc)
      rc = erc;
  }
  return rc;
}

static int pol_net_copy(struct pol_net_rule **dst, size_t *ndst, const struct pol_net_rule *src,
                        size_t n, const struct diag_loc *block)
{
  for (size_t i = 0; i < n; i++) {
    char *origin = strdup(src[i].origin);
    if (!origin)
      return -ENOMEM;
    int rc =
        pol_net_add(dst, ndst, src[i].pattern, src[i].written, origin, src[i].profile, src[i].loc);
    if (rc == -E2BIG) {
      diag_error(block, "more than %d rules of one kind after `network +=`", POL_MAX_NET_RULES);
      return -EINVAL;
    }
    if (rc)
      return rc;
  }
  return 0;
}

int pol_network_compose(struct pol_profile *out, const struct pol_delta *x)
{
  const struct pol_net_delta *net = &x->net;
  if (!net->block)
    return 0; /* no block: the parent's network, as a child keeps any unset setting */
  if (!net->append) {
    /* `network { ... }` replaces the parent's network as a block of paths
     * replaces its paths: what the block does not say is the default. */
    pol_net_rules_free(out->net_allow, out->n_net_allow);
    pol_net_rules_free(out->net_deny, out->n_net_deny);
    pol_net_rules_free(out->net_local, out->n_net_local);
    out->net_allow = out->net_deny = out->net_local = NULL;
    out->n_net_allow = out->n_net_deny = out->n_net_local = 0;
    out->net_mode = CS_NET_DIRECT;
    out->net_rest = CS_NET_REST_DENY;
    free(out->net_mode_origin);
    free(out->net_rest_origin);
    out->net_mode_origin = out->net_rest_origin = NULL;
  }
  if (net->via) {
    out->net_mode = net->mode;
    out->net_mode_loc = net->via->access.loc;
    out->net_mode_profile = x->decl->name.text;
    free(out->net_mode_origin);
    if (!(out->net_mode_origin = strdup(net->via_origin)))
      return -ENOMEM;
  }
  if (net->rest) {
    out->net_rest = net->rest_value;
    out->net_rest_loc = net->rest->access.loc;
    out->net_rest_profile = x->decl->name.text;
    free(out->net_rest_origin);
    if (!(out->net_rest_origin = strdup(net->rest_origin)))
      return -ENOMEM;
  }
  const struct diag_loc *bl = &net->block->loc;
  int rc;
  if ((rc = pol_net_copy(&out->net_allow, &out->n_net_allow, net->allow, net->n_allow, bl)) ||
      (rc = pol_net_copy(&out->net_deny, &out->n_net_deny, net->deny, net->n_deny, bl)) ||
      (rc = pol_net_copy(&out->net_local, &out->n_net_local, net->local, net->n_local, bl)))
    return rc;
  return 0;
}

/* The IPv4 address an IP host stands for (itself, or an IPv6 form that
 * carries one), as the proxy's matcher compares them. */
static bool pol_net_v4(const struct np_host *h, uint8_t v4[4])
{
  if (h->kind == NP_HOST_IPV4) {
    memcpy(v4, h->addr, 4);
    return true;
  }
  return np_addr_embedded_ipv4(h->addr, v4) != 0;
}

static bool pol_net_same_ip(const struct np_host *a, const struct np_host *b)
{
  uint8_t av4[4], bv4[4];
  bool a4 = pol_net_v4(a, av4), b4 = pol_net_v4(b, bv4);
  if (a4 && b4)
    return memcmp(av4, bv4, 4) == 0;
  return a->kind == NP_HOST_IPV6 && b->kind == NP_HOST_IPV6 && memcmp(a->addr, b->addr, 16) == 0;
}

/* Does every host:port that pattern a matches also match pattern d? */
static bool pol_net_covers(const struct np_pattern_info *d, const struct np_pattern_info *a)
{
  if (d->port != 0 && d->port != a->port)
    return false;
  bool dname = d->host.kind == NP_HOST_NAME, aname = a->host.kind == NP_HOST_NAME;
  if (dname != aname)
    return false;
  if (!dname)
    return pol_net_same_ip(&d->host, &a->host);
  const char *db = d->host.text, *ab = a->host.text;
  size_t dl = strlen(db), al = strlen(ab);
  bool equal = strcmp(ab, db) == 0;
  bool below = al > dl + 1 && ab[al - dl - 1] == '.' && strcmp(ab + al - dl, db) == 0;
  switch (d->wild) {
  case NP_WILD_NONE:
    return a->wild == NP_WILD_NONE && equal;
  case NP_WILD_SUBDOMAINS:
    return below || (equal && a->wild == NP_WILD_SUBDOMAINS);
  case NP_WILD_NAME_AND_SUBDOMAINS:
    return equal || below;
  }
  return false;
}

static bool pol_net_own(const struct pol_profile_decl *d, const struct pol_net_rule *r)
{
  return strcmp(r->profile, d->name.text) == 0;
}

/* Reports at what the profile itself wrote, or at the profile's name with
 * a note at the inherited rule. */
static void pol_net_report(const struct pol_profile_decl *d, const struct diag_loc *at, bool own,
                           const char *msg, const char *text)
{
  if (own) {
    diag_error(at, "%s", msg);
    return;
  }
  diag_error(&d->name.loc, "%s", msg);
  diag_note(at, "'%s' inherited from here", text);
}

static int pol_net_lists_check(const struct pol_profile_decl *d, const struct pol_profile *out)
{
  int rc = 0;
  char msg[1024];
  struct np_pattern_info *allow = calloc(out->n_net_allow + 1, sizeof *allow);
  struct np_pattern_info *deny = calloc(out->n_net_deny + 1, sizeof *deny);
  const char *why;
  if (!allow || !deny) {
    free(allow);
    free(deny);
    return -ENOMEM;
  }
  /* The normalized patterns were read once already; they read again. */
  for (size_t i = 0; i < out->n_net_allow; i++)
    np_pattern_read(out->net_allow[i].pattern, &allow[i], &why);
  for (size_t i = 0; i < out->n_net_deny; i++)
    np_pattern_read(out->net_deny[i].pattern, &deny[i], &why);
  const struct {
    const char *what;
    const struct pol_net_rule *rules;
    size_t n;
  } lists[] = {
    { "allow", out->net_allow, out->n_net_allow },
    { "deny", out->net_deny, out->n_net_deny },
    { "local", out->net_local, out->n_net_local },
  };
  for (size_t l = 0; l < 3; l++) {
    for (size_t j = 0; j < lists[l].n; j++) {
      const struct pol_net_rule *b = &lists[l].rules[j];
      for (size_t i = 0; i < j; i++) {
        const struct pol_net_rule *a = &lists[l].rules[i];
        if (strcmp(a->pattern, b->pattern) != 0 || (!pol_net_own(d, a) && !pol_net_own(d, b)))
          continue;
        snprintf(msg, sizeof msg, "duplicate %s rule \"%s\" can never match: \"%s\" is the same",
                 lists[l].what, b->written, a->written);
        pol_net_report(d, &b->loc, pol_net_own(d, b), msg, b->written);
        diag_note(&a->loc, "first written here");
        rc = -EINVAL;
        break;
      }
    }
  }
  /* Deny wins: an allow every destination of which a deny also matches
   * lets nothing through. */
  for (size_t j = 0; j < out->n_net_allow; j++) {
    const struct pol_net_rule *b = &out->net_allow[j];
    for (size_t i = 0; i < out->n_net_deny; i++) {
      const struct pol_net_rule *a = &out->net_deny[i];
      if (!pol_net_covers(&deny[i], &allow[j]) || (!pol_net_own(d, a) && !pol_net_own(d, b)))
        continue;
      snprintf(msg, sizeof msg, "allow \"%s\" can never match: deny \"%s\" covers it (deny wins)",
               b->written, a->written);
      pol_net_report(d, &b->loc, pol_net_own(d, b), msg, b->written);
      diag_note(&a->loc, "denied here");
      rc = -EINVAL;
      break;
    }
  }
  free(allow);
  free(deny);
  return rc;
}

/* The normalized rules as the runtime will hand them to the proxy,
 * compiled whole by np_policy_compile: every rule passed on its own, so a
 * refusal here is a fault of the normalization, and the table is refused
 * rather than written for a proxy that would not start. */
static int pol_net_whole_check(const struct pol_profile_decl *d, const struct pol_profile *out)
{
  size_t n = out->n_net_allow + out->n_net_deny + out->n_net_local;
  const char **texts = calloc(n + 1, sizeof *texts);
  if (!texts)
    return -ENOMEM;
  for (size_t i = 0; i < out->n_net_allow; i++)
    texts[i] = out->net_allow[i].pattern;
  for (size_t i = 0; i < out->n_net_deny; i++)
    texts[out->n_net_allow + i] = out->net_deny[i].pattern;
  for (size_t i = 0; i < out->n_net_local; i++)
    texts[out->n_net_allow + out->n_net_deny + i] = out->net_local[i].pattern;
  struct np_policy_spec spec = {
    .allow = texts,
    .n_allow = out->n_net_allow,
    .deny = texts + out->n_net_allow,
    .n_deny = out->n_net_deny,
    .rest = out->net_rest == CS_NET_REST_ASK ? NP_DEFAULT_ASK : NP_DEFAULT_DENY,
    .local_ranges = texts + out->n_net_allow + out->n_net_deny,
    .n_local_ranges = out->n_net_local,
  };
  struct np_policy *policy = NULL;
  char err[512];
  int rc = 0;
  if (np_policy_compile(&spec, &policy, err, sizeof err) != 0) {
    diag_error(&d->name.loc, "profile '%s': the proxy refuses its normalized policy: %s",
               d->name.text, err);
    rc = -EINVAL;
  }
  np_policy_free(policy);
  free(texts);
  return rc;
}

int pol_network_validate(const struct pol_profile_decl *d, struct pol_profile *out)
{
  /* The first thing that only the proxy would read: a rule, a written
   * rest, or `via proxy` itself. */
  const struct pol_net_rule *first = out->n_net_allow   ? &out->net_allow[0]
                                     : out->n_net_deny  ? &out->net_deny[0]
                                     : out->n_net_local ? &out->net_local[0]
                                                        : NULL;
  char msg[512];
  if (!out->allow_network) {
    if (out->net_mode == CS_NET_PROXY) {
      snprintf(msg, sizeof msg,
               "profile '%s' sets allowNetwork = false: `via proxy` can never apply", d->name.text);
      bool own = strcmp(out->net_mode_profile, d->name.text) == 0;
      pol_net_report(d, &out->net_mode_loc, own, msg, "via proxy");
      return -EINVAL;
    }
  } else if (out->net_mode == CS_NET_PROXY) {
    int rc = pol_net_lists_check(d, out);
    if (rc == 0)
      rc = pol_net_whole_check(d, out);
    return rc == -ENOMEM ? -EINVAL : rc;
  }
  /* Direct network, or none: nothing the block says can ever match. */
  const char *why = out->allow_network ? "under `via direct`, which does not use the proxy"
                                       : "in a profile with allowNetwork = false";
  if (first) {
    const char *kind = first == out->net_allow  ? "allow"
                       : first == out->net_deny ? "deny"
                                                : "local";
    snprintf(msg, sizeof msg, "%s \"%s\" can never match: it is %s", kind, first->written, why);
    pol_net_report(d, &first->loc, pol_net_own(d, first), msg, first->written);
    return -EINVAL;
  }
  if (out->net_rest_origin) {
    snprintf(msg, sizeof msg, "'rest' can never apply: it is %s", why);
    bool own = strcmp(out->net_rest_profile, d->name.text) == 0;
    pol_net_report(d, &out->net_rest_loc, own, msg, "rest");
    return -EINVAL;
  }
  return 0;
}
