/* tee_worker: the isolated worker process (sbx-tee-worker, docs/tiers.md,
 * "The worker"). Started by the pool (tee_pool.c) with its channel, a
 * stream socket, on descriptor TEE_WORKER_CHANNEL_FD and an empty
 * environment. Before it reads any request it
 *
 *   1. closes every other descriptor (close_range(2));
 *   2. sets hard limits: RLIMIT_CPU, no core files, no file size, no
 *      descriptors beyond the channel, no processes; and death by
 *      SIGKILL with its caller (PR_SET_PDEATHSIG);
 *   3. maps its whole heap (the arena, tee_arena.h) and the two message
 *      buffers, creates the engine on the arena and prepares the realm
 *      (tee_realm.h), then caps RLIMIT_AS just above what is mapped;
 *   4. makes itself undumpable and enters seccomp strict mode: from then
 *      on read(2), write(2), _exit(2) and sigreturn(2) are all it has; any
 *      other system call is SIGKILL from the kernel;
 *   5. says {"ready":true,"heap":N} on the channel,
 *
 * then answers each request, two messages: {"code":..., "collect":bool}
 * and the input's JSON text (empty: undefined), with
 * {"ok":true,"value":...,"heap":N} or {"ok":false,"error":"...","heap":N}
 * (and "retire":true, after which it exits, when its arena ran dry). End
 * of file on the channel ends it. */
#ifndef CS_RUNTIME_TEE_WORKER_H
#define CS_RUNTIME_TEE_WORKER_H

#include <stdbool.h>
#include <stddef.h>

#define TEE_WORKER_CHANNEL_FD 3

struct tee_worker_opts {
  size_t heap_bytes;
  unsigned cpu_seconds;
  size_t max_message;
#ifdef TEE_WORKER_TEST_HOOKS
  bool no_filter;    /* --test-no-filter: skip step 4 (the pool must refuse it) */
  bool syscall_hook; /* --test-syscall: a native __syscall(nr, a, b, c) */
#endif
};

/* Parses "--heap=N --cpu=N --max-message=N" (and the test options in a
 * test build). 0, or -1 after nothing (there is no stderr to write to). */
int tee_worker_parse(int argc, char **argv, struct tee_worker_opts *o);
/* Never returns: the worker's exit status is 0 at end of file, 70 when a
 * set-up step failed, 71 on a channel error. */
_Noreturn void tee_worker_run(const struct tee_worker_opts *o);

#endif
