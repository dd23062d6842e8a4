/* np_http: the HTTP proxy's request head, parsed and rewritten (RFC 9112):
 * CONNECT host:port, and absolute-form requests (GET http://host/path)
 * forwarded in origin-form without the hop-by-hop headers. Pure: a buffer
 * in, a result out; fuzzed (tests/fuzz/fuzz_nphttp.c). */
#ifndef NP_HTTP_H
#define NP_HTTP_H

#include <stddef.h>
#include <stdint.h>

enum np_http_status {
  NP_HTTP_NEED_MORE = 0, /* no end of head yet, and still under the limit */
  NP_HTTP_OK = 1,
  NP_HTTP_REFUSED = 2, /* answer with req->status and req->why */
};

struct np_http_request {
  int is_connect;
  size_t head_len; /* bytes up to and including the blank line */
  const char *method;
  size_t method_len;
  const char *host; /* brackets of an IPv6 literal removed */
  size_t host_len;
  const char *authority; /* host[:port] as written: the Host header sent on */
  size_t authority_len;
  uint16_t port;
  const char *path; /* origin-form target ("/..." or "?..."), absolute-form only */
  size_t path_len;
  const char *version; /* "HTTP/1.0" or "HTTP/1.1" */
  int status;          /* when refused: 400, 431, 501 */
  const char *why;     /* when refused: static text */
};

/* Parses the head at the start of buf (len bytes). A head is at most max
 * bytes, blank line included; more without an end is refused with 431. */
enum np_http_status np_http_parse(const char *buf, size_t len, size_t max,
                                  struct np_http_request *req);

/* Writes the head to forward for an absolute-form request that
 * np_http_parse accepted from buf: origin-form request line, the Host header
 * from the URL, the client's headers minus hop-by-hop ones (and those its
 * Connection header names), and "Connection: close". Returns the length,
 * or 0 when cap is too small. */
size_t np_http_rewrite(const char *buf, const struct np_http_request *req, char *out, size_t cap);

#endif
