/* tee_spawn: one isolated worker's life as the pool sees it: started
 * (a fresh executable, never a fork of the caller, so none of the
 * caller's memory is in it), checked ready and confined, read from with a
 * deadline, and ended. */
#ifndef CS_RUNTIME_TEE_SPAWN_H
#define CS_RUNTIME_TEE_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct tee_slot {
  pid_t pid;         /* 0: none */
  int fd;            /* the channel, nonblocking; -1: none */
  bool ready;        /* said ready and was seen in seccomp strict mode */
  uint64_t spent_ms; /* wall time of its evaluations: a bound on its CPU time */
};

uint64_t tee_now_ms(void);

/* Starts argv[0] with argv and an empty environment, its channel on
 * descriptor 3, /dev/null on 0-2. 0 or -errno. */
int tee_spawn_start(struct tee_slot *s, char *const argv[]);
/* Reads one message within deadline (CLOCK_MONOTONIC ms) into raw
 * (capacity cap: the header, the body and a NUL); *body points at the
 * body in raw. 0, -ETIMEDOUT, -EMSGSIZE (over the capacity), -ENODATA
 * (end of file before the first byte), -EPIPE (end of file within the
 * message: cut off), -EPROTO (more bytes than the message), or -errno. */
int tee_spawn_recv(const struct tee_slot *s, char *raw, size_t cap, uint64_t deadline, char **body,
                   size_t *len);
/* The most messages one tee_spawn_send() writes. */
#define TEE_SPAWN_MAX_PARTS 2
/* Writes n messages (bodies[i], lens[i] bytes; a length of 0 is an empty
 * message) within deadline, in one system call when the socket takes them.
 * 0, -ETIMEDOUT, -EPIPE or -errno. */
int tee_spawn_send(const struct tee_slot *s, const char *const *bodies, const size_t *lens,
                   size_t n, uint64_t deadline);
/* Whether the kernel has the worker in seccomp strict mode
 * (/proc/PID/status "Seccomp: 1"): the pool trusts no worker's word for
 * it. */
bool tee_spawn_is_strict(pid_t pid);
/* Ends the worker: waits up to grace_ms for it to exit on its own, then
 * SIGKILL; reaps it. Returns the signal that ended it (0: exited), and
 * the exit status in *status when not NULL. */
int tee_spawn_end(struct tee_slot *s, unsigned grace_ms, int *status);

#endif
