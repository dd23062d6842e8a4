/* sbx_exec_base64: RFC 4648 base64, standard alphabet, padded (see
 * sbx_exec_base64.c). */
#ifndef CS_RUNTIME_SBX_EXEC_BASE64_H
#define CS_RUNTIME_SBX_EXEC_BASE64_H

#include <stddef.h>

/* A NUL-terminated encoding of len bytes (its length in *out_len), or
 * NULL when out of memory. */
char *sbx_b64_encode(const unsigned char *in, size_t len, size_t *out_len);
/* 0 and a malloc'd *out of *out_len bytes; -EINVAL (not canonical
 * base64) or -ENOMEM. */
int sbx_b64_decode(const char *in, size_t len, unsigned char **out, size_t *out_len);

#endif
