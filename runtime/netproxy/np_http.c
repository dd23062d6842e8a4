/* np_http: request heads of the HTTP proxy (np_http.h). Strict on purpose:
 * whatever this parser accepts is what the proxy judged, so forms that
 * proxies and servers read differently (bare LF, obsolete line folding,
 * whitespace before the colon, userinfo in the URL) are refused. */
#include <string.h>

#include "np_http.h"

static int np_is_tchar(unsigned char c)
{
  /* RFC 9110 token characters */
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
    return 1;
  return c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static int np_lower(int c)
{
  return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int np_ieq(const char *a, size_t n, const char *b)
{
  if (strlen(b) != n)
    return 0;
  for (size_t i = 0; i < n; i++)
    if (np_lower((unsigned char)a[i]) != np_lower((unsigned char)b[i]))
      return 0;
  return 1;
}

static enum np_http_status np_refuse(struct np_http_request *req, int status, const char *why)
{
  req->status = status;
  req->why = why;
  return NP_HTTP_REFUSED;
}

static int np_parse_port(const char *s, size_t n, uint16_t *port)
{
  if (n == 0 || n > 5)
    return -1;
  unsigned v = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9')
      return -1;
    v = v * 10 + (unsigned)(s[i] - '0');
  }
  if (v == 0 || v > 65535)
    return -1;
  *port = (uint16_t)v;
  return 0;
}

/* host[:port] or [v6][:port]; a port is required for CONNECT. */
static int np_parse_authority(const char *a, size_t n, int need_port, uint16_t default_port,
                              struct np_http_request *req)
{
  const char *host = a, *port = NULL;
  size_t host_len = n, port_len = 0;
  if (n == 0 || memchr(a, '@', n))
    return -1; /* userinfo: credentials, and a classic confusion of hosts */
  if (a[0] == '[') {
    const char *close = memchr(a, ']', n);
    if (!close)
      return -1;
    host = a + 1;
    host_len = (size_t)(close - host);
    size_t after = n - (size_t)(close + 1 - a);
    if (after > 0) {
      if (close[1] != ':')
        return -1;
      port = close + 2;
      port_len = after - 1;
    }
  } else {
    const char *colon = memchr(a, ':', n);
    if (colon) {
      host_len = (size_t)(colon - a);
      port = colon + 1;
      port_len = n - host_len - 1;
    }
  }
  if (host_len == 0)
    return -1;
  req->host = host;
  req->host_len = host_len;
  req->authority = a;
  req->authority_len = n;
  if (port)
    return np_parse_port(port, port_len, &req->port);
  if (need_port)
    return -1;
  req->port = default_port;
  return 0;
}

static enum np_http_status np_parse_target(const char *t, size_t n, struct np_http_request *req)
{
  if (req->is_connect) {
    if (np_parse_authority(t, n, 1, 0, req) != 0)
      return np_refuse(req, 400, "CONNECT target is not host:port");
    return NP_HTTP_OK;
  }
  static const char scheme[] = "http://";
  if (n >= 8 && np_ieq(t, 8, "https://"))
    return np_refuse(req, 400, "https:// URL in a proxy request (use CONNECT)");
  if (n < sizeof scheme - 1 || !np_ieq(t, sizeof scheme - 1, scheme))
    return np_refuse(req, 400, "request target is not an absolute http:// URL");
  const char *a = t + sizeof scheme - 1;
  size_t rest = n - (sizeof scheme - 1), alen = 0;
  while (alen < rest && a[alen] != '/' && a[alen] != '?' && a[alen] != '#')
    alen++;
  if (np_parse_authority(a, alen, 0, 80, req) != 0)
    return np_refuse(req, 400, "URL authority is not host[:port]");
  req->path = a + alen;
  req->path_len = rest - alen;
  const char *frag = memchr(req->path, '#', req->path_len);
  if (frag)
    req->path_len = (size_t)(frag - req->path); /* fragments are the client's own */
  return NP_HTTP_OK;
}

enum np_http_status np_http_parse(const char *buf, size_t len, size_t max,
                                  struct np_http_request *req)
{
  memset(req, 0, sizeof *req);
  size_t scan = len < max ? len : max;
  size_t end = 0;
  for (size_t i = 0; i < scan; i++) {
    if (buf[i] == '\n' && (i == 0 || buf[i - 1] != '\r'))
      return np_refuse(req, 400, "line ends in LF without CR");
    if (buf[i] == '\r' && i + 1 < scan && buf[i + 1] != '\n')
      return np_refuse(req, 400, "CR without LF");
    if (i >= 3 && memcmp(buf + i - 3, "\r\n\r\n", 4) == 0) {
      end = i + 1;
      break;
    }
  }
  if (end == 0)
    return len >= max ? np_refuse(req, 431, "request head too large") : NP_HTTP_NEED_MORE;
  req->head_len = end;

  /* Request line: method SP target SP version CRLF, single spaces. */
  const char *line_end = memchr(buf, '\r', end);
  size_t line_len = (size_t)(line_end - buf);
  const char *sp1 = memchr(buf, ' ', line_len);
  if (!sp1 || sp1 == buf)
    return np_refuse(req, 400, "malformed request line");
  const char *sp2 = memchr(sp1 + 1, ' ', (size_t)(line_end - sp1 - 1));
  if (!sp2 || sp2 == sp1 + 1 || memchr(sp2 + 1, ' ', (size_t)(line_end - sp2 - 1)))
    return np_refuse(req, 400, "malformed request line");
  req->method = buf;
  req->method_len = (size_t)(sp1 - buf);
  for (size_t i = 0; i < req->method_len; i++)
    if (!np_is_tchar((unsigned char)buf[i]))
      return np_refuse(req, 400, "malformed method");
  const char *target = sp1 + 1;
  size_t target_len = (size_t)(sp2 - target);
  for (size_t i = 0; i < target_len; i++) {
    unsigned char c = (unsigned char)target[i];
    if (c <= 0x20 || c >= 0x7f)
      return np_refuse(req, 400, "request target has a control or non-ASCII byte");
  }
  req->version = sp2 + 1;
  size_t vlen = (size_t)(line_end - req->version);
  if (!(vlen == 8 &&
        (memcmp(req->version, "HTTP/1.1", 8) == 0 || memcmp(req->version, "HTTP/1.0", 8) == 0)))
    return np_refuse(req, 505, "HTTP version is not 1.0 or 1.1");
  req->is_connect = req->method_len == 7 && memcmp(buf, "CONNECT", 7) == 0;

  /* Header lines: name ":" value, no folding, no controls. */
  const char *p = line_end + 2;
  const char *head_end = buf + end - 2;
  while (p < head_end) {
    const char *eol = memchr(p, '\r', (size_t)(head_end - p));
    if (!eol)
      return np_refuse(req, 400, "malformed header line");
    if (*p == ' ' || *p == '\t')
      return np_refuse(req, 400, "obsolete line folding in a header");
    const char *colon = memchr(p, ':', (size_t)(eol - p));
    if (!colon || colon == p)
      return np_refuse(req, 400, "header line without a name");
    for (const char *c = p; c < colon; c++)
      if (!np_is_tchar((unsigned char)*c))
        return np_refuse(req, 400, "header name has a character outside a token");
    for (const char *c = colon + 1; c < eol; c++) {
      unsigned char ch = (unsigned char)*c;
      if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
        return np_refuse(req, 400, "header value has a control character");
    }
    p = eol + 2;
  }
  return np_parse_target(target, target_len, req);
}

/* Hop-by-hop headers (RFC 9110 7.6.1) are the proxy's business, not the
 * origin's: Proxy-Authorization in particular must not travel on. Host is
 * replaced by the URL's authority, the one that was judged.
 * Transfer-Encoding stays: the body is relayed as the client framed it. */
static int np_is_hop_header(const char *name, size_t n)
{
  static const char *const hop[] = {
    "connection", "proxy-connection",    "keep-alive",        "te", "trailer", "upgrade",
    "host",       "proxy-authorization", "proxy-authenticate"
  };
  for (size_t i = 0; i < sizeof hop / sizeof hop[0]; i++)
    if (np_ieq(name, n, hop[i]))
      return 1;
  return 0;
}

static void np_trim(const char **s, size_t *n)
{
  while (*n && (**s == ' ' || **s == '\t')) {
    (*s)++;
    (*n)--;
  }
  while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t'))
    (*n)--;
}

/* Whether a Connection header of the head lists this header name. */
static int np_named_by_connection(const char *buf, size_t head_len, const char *name, size_t n)
{
  const char *p = (const char *)memchr(buf, '\r', head_len) + 2;
  const char *end = buf + head_len - 2;
  while (p < end) {
    const char *eol = memchr(p, '\r', (size_t)(end - p));
    const char *colon = memchr(p, ':', (size_t)(eol - p));
    if (np_ieq(p, (size_t)(colon - p), "connection") ||
        np_ieq(p, (size_t)(colon - p), "proxy-connection")) {
      const char *v = colon + 1;
      while (v < eol) {
        const char *comma = memchr(v, ',', (size_t)(eol - v));
        const char *tok = v;
        size_t tlen = (size_t)((comma ? comma : eol) - v);
        np_trim(&tok, &tlen);
        if (tlen == n) {
          int same = 1;
          for (size_t i = 0; i < n; i++)
            if (np_lower((unsigned char)tok[i]) != np_lower((unsigned char)name[i]))
              same = 0;
          if (same)
            return 1;
        }
        v = comma ? comma + 1 : eol;
      }
    }
    p = eol + 2;
  }
  return 0;
}

struct np_out {
  char *buf;
  size_t cap, len;
  int overflow;
};

static void np_put(struct np_out *o, const char *s, size_t n)
{
  if (o->overflow || o->cap - o->len < n) {
    o->overflow = 1;
    return;
  }
  memcpy(o->buf + o->len, s, n);
  o->len += n;
}

static void np_puts(struct np_out *o, const char *s)
{
  np_put(o, s, strlen(s));
}

size_t np_http_rewrite(const char *buf, const struct np_http_request *req, char *out, size_t cap)
{
  struct np_out o = { out, cap, 0, 0 };
  np_put(&o, req->method, req->method_len);
  np_puts(&o, " ");
  if (req->path_len == 0 || req->path[0] != '/')
    np_puts(&o, "/"); /* "http://h" and "http://h?q" have the path "/" */
  np_put(&o, req->path, req->path_len);
  np_puts(&o, " ");
  np_put(&o, req->version, 8);
  np_puts(&o, "\r\nHost: ");
  np_put(&o, req->authority, req->authority_len);
  np_puts(&o, "\r\n");
  const char *p = (const char *)memchr(buf, '\r', req->head_len) + 2;
  const char *end = buf + req->head_len - 2;
  while (p < end) {
    const char *eol = memchr(p, '\r', (size_t)(end - p));
    const char *colon = memchr(p, ':', (size_t)(eol - p));
    size_t n = (size_t)(colon - p);
    if (!np_is_hop_header(p, n) && !np_named_by_connection(buf, req->head_len, p, n))
      np_put(&o, p, (size_t)(eol + 2 - p));
    p = eol + 2;
  }
  /* One request per upstream connection: the next request on a kept-alive
   * client connection could name another host, and this connection is
   * bound to the address that was checked for this one. */
  np_puts(&o, "Connection: close\r\n\r\n");
  return o.overflow ? 0 : o.len;
}
