/* libFuzzer harness for sbx exec's request parser (runtime/exec,
 * docs/exec-api.md): the request comes from an agent, so any input is a
 * request or an error with a code, never a crash, an overrun or undefined
 * behaviour. An accepted request is checked against the promises the run
 * relies on (argv non-empty and terminated, env entries NAME=VALUE, the
 * bounds of timeout and output_limit), and its stdin and an error object
 * are built the way sbx exec builds its answer. The input is copied to a
 * buffer of its exact size so that the sanitizers see any read past it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbx_exec.h"
#include "sbx_exec_base64.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct sbx_exec_request r;
  struct sbx_exec_error e;
  char *buf = malloc(size ? size : 1);
  if (!buf)
    return 0;
  memcpy(buf, data, size);
  if (sbx_exec_request_parse(buf, size, &r, &e) == 0) {
    if (!r.argv || r.argc == 0 || !r.argv[0][0] || r.argv[r.argc])
      abort();
    for (size_t i = 0; i < r.n_env; i++)
      if (!strchr(r.env[i], '=') || r.env[i][0] == '=')
        abort();
    if ((r.has_timeout && (r.timeout_ms == 0 || r.timeout_ms > SBX_EXEC_TIMEOUT_MAX_MS)) ||
        r.output_limit == 0 || r.output_limit > SBX_EXEC_OUTPUT_MAX)
      abort();
    if (r.stdin_data) {
      /* What a result would carry: base64 of it decodes back to it. */
      size_t n, m;
      unsigned char *back;
      char *enc = sbx_b64_encode(r.stdin_data, r.stdin_len, &n);
      if (enc) {
        if (sbx_b64_decode(enc, n, &back, &m) != 0 || m != r.stdin_len ||
            memcmp(back, r.stdin_data, m) != 0)
          abort();
        free(back);
        free(enc);
      }
      (void)sbx_exec_utf8_valid(r.stdin_data, r.stdin_len);
    }
  } else {
    json_t *o;
    if (!e.code || !e.message[0])
      abort();
    o = sbx_exec_error_object(&e);
    json_decref(o);
  }
  sbx_exec_request_free(&r);
  free(buf);
  return 0;
}
