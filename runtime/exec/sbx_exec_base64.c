/* sbx_exec_base64: RFC 4648 base64 (standard alphabet, padded), both
 * ways, for a request's stdin and a result's binary streams. Strict on
 * input: a byte outside the alphabet, a misplaced '=', a length that is
 * not a multiple of 4 or non-zero bits left in the last group are errors,
 * so one request text never means two inputs. */
#include "sbx_exec_base64.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

static const char sbx_b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int sbx_b64_value(unsigned char c)
{
  if (c >= 'A' && c <= 'Z')
    return c - 'A';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 26;
  if (c >= '0' && c <= '9')
    return c - '0' + 52;
  if (c == '+')
    return 62;
  if (c == '/')
    return 63;
  return -1;
}

char *sbx_b64_encode(const unsigned char *in, size_t len, size_t *out_len)
{
  size_t n = (len + 2) / 3 * 4, k = 0;
  char *out;
  if (len > (SIZE_MAX - 3) / 4 * 3 - 3)
    return NULL;
  out = malloc(n + 1);
  if (!out)
    return NULL;
  for (size_t i = 0; i < len; i += 3) {
    unsigned v = (unsigned)in[i] << 16;
    if (i + 1 < len)
      v |= (unsigned)in[i + 1] << 8;
    if (i + 2 < len)
      v |= in[i + 2];
    out[k++] = sbx_b64_alphabet[(v >> 18) & 63];
    out[k++] = sbx_b64_alphabet[(v >> 12) & 63];
    out[k++] = i + 1 < len ? sbx_b64_alphabet[(v >> 6) & 63] : '=';
    out[k++] = i + 2 < len ? sbx_b64_alphabet[v & 63] : '=';
  }
  out[k] = '\0';
  *out_len = k;
  return out;
}

int sbx_b64_decode(const char *in, size_t len, unsigned char **out, size_t *out_len)
{
  unsigned char *buf;
  size_t k = 0;

  *out = NULL;
  *out_len = 0;
  if (len % 4 != 0)
    return -EINVAL;
  buf = malloc(len / 4 * 3 + 1);
  if (!buf)
    return -ENOMEM;
  for (size_t i = 0; i < len; i += 4) {
    int v[4];
    size_t pad = 0;
    for (int j = 0; j < 4; j++) {
      unsigned char c = (unsigned char)in[i + (size_t)j];
      /* '=' only in the last group, only at its end. */
      if (c == '=' && i + 4 == len && j >= 2) {
        pad++;
        v[j] = 0;
        continue;
      }
      if (pad || (v[j] = sbx_b64_value(c)) < 0)
        goto bad;
    }
    unsigned w = (unsigned)v[0] << 18 | (unsigned)v[1] << 12 | (unsigned)v[2] << 6 | (unsigned)v[3];
    /* The bits a padded group does not carry must be zero (canonical). */
    if ((pad == 1 && (w & 0xff)) || (pad == 2 && (w & 0xffff)))
      goto bad;
    buf[k++] = (unsigned char)(w >> 16);
    if (pad < 2)
      buf[k++] = (unsigned char)(w >> 8);
    if (pad < 1)
      buf[k++] = (unsigned char)w;
  }
  *out = buf;
  *out_len = k;
  return 0;
bad:
  free(buf);
  return -EINVAL;
}
