/* cs_tee: the isolated worker (the "tee" tier, docs/tiers.md), library
 * cs_tee (runtime/tee). Public (installed with commander.h).
 *
 * JavaScript is evaluated in a worker process (the executable
 * sbx-tee-worker) that, before it is handed any code, has closed every
 * descriptor but its channel, set hard memory and CPU limits, prepared its
 * whole heap and entered seccomp strict mode: it can then only read and
 * write the channel and exit. The caller's memory is never in it (the
 * worker is a fresh executable, not a fork). The worker gives isolation,
 * not hardware attestation: nothing here involves a processor's trusted
 * execution environment.
 *
 * Messages are length-prefixed JSON (cs_tee_frame in runtime/tee) with a
 * size limit. The pool enforces the wall time of an evaluation by killing
 * the worker, replaces a worker that died, was killed or answered
 * anything malformed, and keeps `workers` of them started ahead so an
 * evaluation does not pay for the start.
 *
 * A pool is used by one thread at a time. Errors: negative errno (-EINVAL
 * bad configuration, -ENOMEM, -E2BIG a request over the size limit, or
 * what socketpair(2)/posix_spawn(3) returned). */
#ifndef CS_RUNTIME_CS_TEE_H
#define CS_RUNTIME_CS_TEE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Defaults for a zero field of struct cs_tee_config. */
#define CS_TEE_DEFAULT_WORKERS 1u
#define CS_TEE_DEFAULT_TIMEOUT_MS 1000u
#define CS_TEE_DEFAULT_HEAP_BYTES (64u * 1024u * 1024u)
#define CS_TEE_DEFAULT_CPU_SECONDS 60u
#define CS_TEE_DEFAULT_MAX_MESSAGE (1024u * 1024u)
/* Bounds a configuration may not pass. */
#define CS_TEE_MAX_WORKERS 64u
#define CS_TEE_MIN_HEAP_BYTES (1024u * 1024u)
#define CS_TEE_MAX_HEAP_BYTES (4096ull * 1024u * 1024u)
#define CS_TEE_MAX_MESSAGE_LIMIT (64u * 1024u * 1024u)

struct cs_tee_config {
  const char *worker_path; /* the sbx-tee-worker executable; required */
  /* Arguments after the worker's own (tests' fake workers); may be NULL. */
  const char *const *extra_args;
  unsigned workers;          /* kept started ahead */
  uint64_t timeout_ms;       /* wall time of one evaluation */
  size_t heap_bytes;         /* the worker's arena: all the memory JavaScript gets */
  unsigned cpu_seconds;      /* RLIMIT_CPU of one worker over its life */
  size_t max_message;        /* size limit of a request and of a reply */
  uint64_t start_timeout_ms; /* how long a new worker may take to be ready; 0: 5000 */
};

enum cs_tee_status {
  CS_TEE_OK = 0,      /* value holds the result as JSON text */
  CS_TEE_JS_ERROR,    /* the code threw (or did not compile); error says what */
  CS_TEE_TIMEOUT,     /* wall time passed; the worker was killed */
  CS_TEE_WORKER_DIED, /* the worker ended mid-evaluation (signal says by what) */
  CS_TEE_BAD_REPLY,   /* the reply was malformed, cut off or too large */
  CS_TEE_NO_WORKER,   /* no worker could be started and confined */
};

struct cs_tee_result {
  enum cs_tee_status status;
  char *value;          /* CS_TEE_OK: the result, compact JSON (malloc'd) */
  char *error;          /* otherwise: why (malloc'd) */
  int signal;           /* CS_TEE_WORKER_DIED/CS_TEE_TIMEOUT: what ended the worker; 0 none */
  uint64_t duration_us; /* request written to reply read */
  size_t heap_used;     /* the worker's arena in use after the evaluation; 0 unknown */
  pid_t worker;         /* which worker answered */
};

struct cs_tee_stats {
  uint64_t started;     /* workers started */
  uint64_t replaced;    /* workers ended by the pool (killed, died, retired) */
  uint64_t evaluations; /* evaluations asked */
};

/* cs_tee_eval flags. */
#define CS_TEE_COLLECT 1u /* run the worker's full garbage collection after the call */

struct cs_tee_pool;

int cs_tee_pool_open(struct cs_tee_pool **out, const struct cs_tee_config *cfg);
/* Evaluates `code`, the source of one JavaScript function expression
 * ("function (input) { ... }"), called with `input_json` parsed (NULL:
 * undefined). The input is parsed by the worker, confined: input that is
 * not JSON is a CS_TEE_JS_ERROR (SyntaxError). Returns 0 with *res filled
 * (the evaluation's own failure is res->status, never a return value), or
 * -EINVAL (no code, code not UTF-8, an empty input string), -E2BIG
 * (request over max_message), -ENOMEM. */
int cs_tee_eval(struct cs_tee_pool *p, const char *code, const char *input_json, unsigned flags,
                struct cs_tee_result *res);
void cs_tee_result_free(struct cs_tee_result *res);
void cs_tee_pool_stats(const struct cs_tee_pool *p, struct cs_tee_stats *st);
/* Kills and reaps every worker. NULL is a no-op. */
void cs_tee_pool_close(struct cs_tee_pool *p);
/* "ok", "js-error", "timeout", "worker-died", "bad-reply", "no-worker". */
const char *cs_tee_status_name(enum cs_tee_status s);

#ifdef __cplusplus
}
#endif

#endif
