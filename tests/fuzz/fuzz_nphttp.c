/* libFuzzer harness for the network proxy's HTTP request-head parser and
 * rewriter (runtime/netproxy/np_http.h): the head comes from the sandboxed
 * command, so any input is a request or a refusal, never a crash, an
 * overrun or undefined behaviour. The input is copied to a buffer of its
 * exact size so that the sanitizers see any read past its end. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "np_http.h"
#include "np_policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *buf = malloc(size ? size : 1);
  if (!buf)
    return 0;
  memcpy(buf, data, size);
  struct np_http_request req;
  /* A small limit too, so that the 431 path is reached by short inputs. */
  size_t max = size > 0 && (data[0] & 1) ? 64 : 8192;
  if (np_http_parse(buf, size, max, &req) == NP_HTTP_OK) {
    if (req.head_len > size || req.head_len > max || req.host < buf ||
        req.host + req.host_len > buf + req.head_len)
      abort();
    struct np_host host;
    const char *why;
    (void)np_host_normalize(req.host, req.host_len, &host, &why);
    if (!req.is_connect) {
      char out[8192 + 1024];
      size_t n = np_http_rewrite(buf, &req, out, sizeof out);
      if (n > sizeof out)
        abort();
    }
  }
  free(buf);
  return 0;
}
