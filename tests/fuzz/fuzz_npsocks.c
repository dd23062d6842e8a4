/* libFuzzer harness for the network proxy's SOCKS5 parsers
 * (runtime/netproxy/np_socks.h): greeting, then request from the bytes
 * after it, as the engine reads them; then the host normalization the
 * engine applies to a domain name. Any input is a request or a refusal. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "np_policy.h"
#include "np_socks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  uint8_t *buf = malloc(size ? size : 1);
  if (!buf)
    return 0;
  memcpy(buf, data, size);
  struct np_socks_greeting g;
  if (np_socks_parse_greeting(buf, size, &g) == NP_SOCKS_OK) {
    if (g.len > size)
      abort();
    struct np_socks_request r;
    if (np_socks_parse_request(buf + g.len, size - g.len, &r) == NP_SOCKS_OK) {
      if (r.len > size - g.len || r.host_len > 255)
        abort();
      struct np_host host;
      const char *why;
      if (r.atyp == NP_SOCKS_ATYP_DOMAIN)
        (void)np_host_normalize(r.host, r.host_len, &host, &why);
    }
  }
  free(buf);
  return 0;
}
