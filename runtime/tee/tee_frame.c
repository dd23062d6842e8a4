/* tee_frame: length-prefixed messages (see tee_frame.h). */
#include "tee_frame.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

uint32_t tee_frame_length(const unsigned char header[TEE_FRAME_HEADER])
{
  return (uint32_t)header[0] << 24 | (uint32_t)header[1] << 16 | (uint32_t)header[2] << 8 |
         (uint32_t)header[3];
}

void tee_frame_put_length(unsigned char header[TEE_FRAME_HEADER], uint32_t length)
{
  header[0] = (unsigned char)(length >> 24);
  header[1] = (unsigned char)(length >> 16);
  header[2] = (unsigned char)(length >> 8);
  header[3] = (unsigned char)length;
}

int tee_frame_write_all(int fd, const void *buf, size_t len)
{
  const unsigned char *p = buf;

  while (len > 0) {
    ssize_t n = write(fd, p, len);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return -errno;
    }
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

int tee_frame_send(int fd, const char *body, size_t len)
{
  unsigned char small[64 * 1024];
  int r;

  if (len > UINT32_MAX)
    return -EMSGSIZE;
  if (len <= sizeof small - TEE_FRAME_HEADER) {
    tee_frame_put_length(small, (uint32_t)len);
    memcpy(small + TEE_FRAME_HEADER, body, len);
    return tee_frame_write_all(fd, small, len + TEE_FRAME_HEADER);
  }
  tee_frame_put_length(small, (uint32_t)len);
  r = tee_frame_write_all(fd, small, TEE_FRAME_HEADER);
  return r != 0 ? r : tee_frame_write_all(fd, body, len);
}
