/* sbx_exec: the one-shot JSON request interface (docs/exec-api.md,
 * protocol version 1): one request in, one result out. What `sbx exec`
 * and, later, the JSON-RPC server, MCP mode and C API share:
 *   - the request parser and its validation (sbx_exec_request.c): strict,
 *     every refusal a code, a message and the field it concerns;
 *   - the capture of the command's standard streams (sbx_exec_capture.c):
 *     pipes, bounded, drained past the limit so the command never blocks;
 *   - the result and error objects (sbx_exec_result.c), the result built
 *     from the very audit record the run appended.
 * Nothing here runs a command: the caller hands the request to the run
 * `sbx run` uses (runtime/cli/sbx_run.c). */
#ifndef CS_RUNTIME_SBX_EXEC_H
#define CS_RUNTIME_SBX_EXEC_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cs_approval.h"
#include "sbx_audit.h"

#define SBX_EXEC_PROTOCOL 1
/* The largest request read (stdin data, base64, included). */
#define SBX_EXEC_REQUEST_MAX (16u * 1024u * 1024u)
/* Per stream: the default and the bounds of output_limit. */
#define SBX_EXEC_OUTPUT_DEFAULT (1024u * 1024u)
#define SBX_EXEC_OUTPUT_MAX (64u * 1024u * 1024u)
#define SBX_EXEC_ARGV_MAX 4096
#define SBX_EXEC_ENV_MAX 64     /* as many as --env takes */
#define SBX_EXEC_RUN_ID_MAX 128 /* as --run-id */
#define SBX_EXEC_LABELS_MAX 16  /* as many as --label takes */
/* The longest timeout a request may name, as --timeout (30 days). */
#define SBX_EXEC_TIMEOUT_MAX_MS (30ull * 24 * 3600 * 1000)

/* Exit status of `sbx exec` (docs/exec-api.md, "Exit codes"). */
enum sbx_exec_exit {
  SBX_EXEC_EXIT_RESULT = 0,      /* a result was written: read the command's fate there */
  SBX_EXEC_EXIT_BAD_REQUEST = 2, /* an error object was written; nothing ran */
  /* 125: sbx exec could not answer at all (options, stdout unwritable). */
};

/* A request's error (docs/exec-api.md, "Error codes"). */
struct sbx_exec_error {
  const char *code; /* static: "invalid_json", "unknown_field", ... */
  char message[256];
  char field[64]; /* "" when the request as a whole is meant */
};

struct sbx_exec_request {
  json_t *root;      /* owns every string below */
  const char **argv; /* NULL-terminated, into root */
  size_t argc;
  const char *cwd;  /* NULL: sbx run's default */
  const char **env; /* "NAME=VALUE", NULL-terminated, owned here; NULL: none */
  size_t n_env;
  unsigned char *stdin_data; /* owned; NULL: stdin is empty (/dev/null-like EOF) */
  size_t stdin_len;
  bool has_timeout;
  uint64_t timeout_ms;
  const char *profile, *policy, *tier, *run_id;
  const char *lane;    /* NULL: the route's (sbx run --lane) */
  const char *backend; /* NULL: the route's; else "local" (the one that runs) */
  /* Labels the host attaches (sbx run --label), which routes match on;
   * NULL-terminated, owned here; NULL: none. */
  const char **labels;
  size_t n_labels;
  size_t output_limit;
};

/* Parses and validates one request of len bytes. 0 and *req filled, or
 * -EINVAL and *e filled; free *req with sbx_exec_request_free either way. */
int sbx_exec_request_parse(const char *text, size_t len, struct sbx_exec_request *req,
                           struct sbx_exec_error *e);
void sbx_exec_request_free(struct sbx_exec_request *req);

/* One captured stream. */
struct sbx_exec_stream {
  unsigned char *data; /* the first `len` bytes, at most `limit` */
  size_t len, limit;
  uint64_t total; /* every byte the command wrote */
  bool truncated;
};

/* The command's standard streams for one run: pipes put on 0, 1 and 2 of
 * this process while the run lasts (the command inherits them there, warm
 * or cold), a thread feeding stdin and draining stdout and stderr. */
struct sbx_exec_capture {
  int saved[3]; /* the process's own 0, 1, 2 while the pipes stand in */
  int in_w, out_r, err_r;
  const unsigned char *in;
  size_t in_len, in_off;
  struct sbx_exec_stream out, err;
  int wake[2]; /* tells the thread the run is over */
  pthread_t thread;
  bool started;
};

/* Puts the pipes on 0..2 and starts the thread; 0 or a negative errno
 * (then nothing was changed). */
int sbx_exec_capture_start(struct sbx_exec_capture *c, const unsigned char *in, size_t in_len,
                           size_t limit);
/* Gives 0..2 back, then drains what the run's processes left (at most
 * a grace period: a descriptor held past the run is not waited for). */
void sbx_exec_capture_finish(struct sbx_exec_capture *c);
void sbx_exec_capture_free(struct sbx_exec_capture *c);

/* The approvals asked during one run, in the order answered. Filled from
 * the approval workflow's record callback, which may run on the
 * supervisor's or the proxy's thread: locked. */
#define SBX_EXEC_APPROVALS_MAX 64
struct sbx_exec_approvals {
  pthread_mutex_t lock;
  json_t *list; /* array */
  size_t dropped;
};
int sbx_exec_approvals_init(struct sbx_exec_approvals *a);
void sbx_exec_approvals_add(struct sbx_exec_approvals *a, const struct cs_approval_request *req,
                            const struct cs_approval_decision *d);
void sbx_exec_approvals_free(struct sbx_exec_approvals *a);

/* The result's fields that come from the run's audit record (the same
 * outcome, denials and network summary as the record): a new object, or
 * NULL when out of memory. */
json_t *sbx_exec_result_from_record(const struct sbx_audit_record *rec);
/* A result for a run that ended before any record was made (the audit
 * log could not be opened): sbx_exit only, and the message. */
json_t *sbx_exec_result_unrecorded(int sbx_exit);
/* Completes a result: streams, approvals, durations, sbx's messages. */
struct sbx_exec_durations {
  uint64_t total_ms, admission_ms, run_ms;
};
int sbx_exec_result_finish(json_t *result, const struct sbx_exec_capture *cap,
                           struct sbx_exec_approvals *appr, const struct sbx_exec_durations *d,
                           const char *message, size_t message_len);
/* {"version":1,"error":{"code","message","field"}}; NULL when out of memory. */
json_t *sbx_exec_error_object(const struct sbx_exec_error *e);
/* Writes an object and a newline to fd, whole; 0 or a negative errno. */
int sbx_exec_write(int fd, const json_t *o);

/* For the tests: whether len bytes are valid UTF-8 (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF). */
bool sbx_exec_utf8_valid(const unsigned char *s, size_t len);

#endif
