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

int tee_frame_read_all(int fd, void *buf, size_t len)
{
  unsigned char *p = buf;

  while (len > 0) {
    ssize_t n = read(fd, p, len);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return -errno;
    }
    if (n == 0)
      return -EPIPE;
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

int tee_frame_recv(int fd, char *buf, size_t cap, size_t *len)
{
  unsigned char header[TEE_FRAME_HEADER];
  ssize_t n;
  uint32_t length;
  int r;

  *len = 0;
  /* The first byte apart: end of file before it is a peer that closed
   * between messages, not a cut-off one. */
  do
    n = read(fd, header, 1);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return -errno;
  if (n == 0)
    return -ENODATA;
  r = tee_frame_read_all(fd, header + 1, TEE_FRAME_HEADER - 1);
  if (r != 0)
    return r;
  length = tee_frame_length(header);
  if (cap == 0 || length > cap - 1)
    return -EMSGSIZE;
  r = tee_frame_read_all(fd, buf, length);
  if (r != 0)
    return r;
  buf[length] = '\0';
  *len = length;
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
