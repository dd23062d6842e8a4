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
/* Reads one message within deadline (CLOCK_MONOTONIC ms) into buf
 * (capacity cap, NUL-terminated). 0, -ETIMEDOUT, -EMSGSIZE (over cap - 1),
 * -ENODATA (end of file before the first byte), -EPIPE (end of file
 * within a message: cut off), or -errno. */
int tee_spawn_recv(const struct tee_slot *s, char *buf, size_t cap, uint64_t deadline, size_t *len);
/* Writes one message within deadline. 0, -ETIMEDOUT, -EPIPE or -errno. */
int tee_spawn_send(const struct tee_slot *s, const char *body, size_t len, uint64_t deadline);
/* Whether the kernel has the worker in seccomp strict mode
 * (/proc/PID/status "Seccomp: 1"): the pool trusts no worker's word for
 * it. */
bool tee_spawn_is_strict(pid_t pid);
/* Ends the worker: waits up to grace_ms for it to exit on its own, then
 * SIGKILL; reaps it. Returns the signal that ended it (0: exited), and
 * the exit status in *status when not NULL. */
int tee_spawn_end(struct tee_slot *s, unsigned grace_ms, int *status);

#endif
