/* tee_frame: the isolated worker's message framing (docs/tiers.md,
 * "Messages"). A message is a 4-byte big-endian length, then that many
 * bytes of JSON. Both sides refuse a length over their limit as soon as
 * they have read it and never read more than the limit holds, so a lying
 * peer costs at most one buffer.
 *
 * Only write(2) is used: the worker calls these functions inside seccomp
 * strict mode. The readers are the worker's own (tee_worker.c, one
 * request in as few reads as it takes) and the pool's (tee_spawn.c, with
 * a deadline). */
#ifndef CS_RUNTIME_TEE_FRAME_H
#define CS_RUNTIME_TEE_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define TEE_FRAME_HEADER 4u

/* The length in a header. */
uint32_t tee_frame_length(const unsigned char header[TEE_FRAME_HEADER]);
void tee_frame_put_length(unsigned char header[TEE_FRAME_HEADER], uint32_t length);

/* Writes all of buf (retrying short writes and EINTR). 0 or -errno
 * (-EPIPE: the peer is gone). */
int tee_frame_write_all(int fd, const void *buf, size_t len);
/* Header and body in one write when they fit a 64 KiB stack buffer. */
int tee_frame_send(int fd, const char *body, size_t len);

#endif
