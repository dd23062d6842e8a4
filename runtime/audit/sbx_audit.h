/* sbx_audit: the audit log, one JSON line per `sbx run` (docs/audit-log.md).
 *
 * The log is opened and checked BEFORE the command runs: a log that cannot
 * be written (missing directory, not a regular file, read-only file system,
 * less free space than SBX_AUDIT_RESERVE, RLIMIT_FSIZE) refuses the run, so
 * no command ever runs without its record. A record is appended with one
 * write(2) on an O_APPEND descriptor: concurrent sbx processes sharing one
 * log never interleave their lines, and a reader never sees half a record
 * unless the file system failed mid-write (reported, and the record is then
 * printed on stderr so it is not lost).
 *
 * Returns: 0, or a negative errno (-EISDIR/-EINVAL not a regular file,
 * -ENOSPC no room, -EFBIG over RLIMIT_FSIZE, -EMSGSIZE a record that does
 * not fit SBX_AUDIT_MAX_RECORD even shortened, -ENOMEM, or what open(2),
 * write(2), fdatasync(2) returned), after a message on `err`. */
#ifndef CS_RUNTIME_SBX_AUDIT_H
#define CS_RUNTIME_SBX_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "cs_profile_table.h"

#define SBX_AUDIT_SCHEMA 1
#define SBX_AUDIT_ENV "SBX_AUDIT_LOG"
/* The longest line we write. Records are shortened (argv, denials) to fit;
 * the same number is the free space the log's file system must keep. */
#define SBX_AUDIT_MAX_RECORD (64u * 1024u)
#define SBX_AUDIT_RESERVE SBX_AUDIT_MAX_RECORD

struct sbx_audit {
  int fd; /* -1: no log */
  char *path;
};

enum sbx_audit_outcome {
  SBX_AUDIT_NOT_RUN,  /* sbx refused or failed before the command started */
  SBX_AUDIT_EXITED,   /* status: the command's exit status */
  SBX_AUDIT_SIGNALED, /* signal: what ended it */
  SBX_AUDIT_TIMED_OUT,
  SBX_AUDIT_INTERRUPTED, /* signal: the SIGINT/SIGTERM/SIGHUP sbx got; sandbox killed */
};

struct sbx_audit_denial {
  const char *layer;  /* "seccomp", "landlock", "rlimit", "namespace", "admission", ... */
  const char *rule;   /* "profiles.pol:42:3 (profile strict)" */
  const char *what;   /* "ptrace", "write /etc/passwd", ... may be NULL */
  const char *action; /* "errno(EPERM)", "kill-process", "not run", ... may be NULL */
};

/* One connection through a proxied run's network proxy (docs/audit-log.md,
 * "network"). */
struct sbx_audit_conn {
  const char *protocol; /* "http", "socks5" */
  const char *host;     /* as the client named it, normalized; "" none */
  unsigned port;
  const char *dialled; /* "203.0.113.7:443"; "" none */
  bool allowed;
  const char *basis;   /* the rule or approval that decided */
  const char *refusal; /* why refused or cut; NULL or "" none */
  uint64_t bytes_up, bytes_down, duration_ms;
};

/* The run's network through the proxy: totals over every connection, and
 * the first ones one by one (SBX_AUDIT_CONNS_MAX of them at most). */
#define SBX_AUDIT_CONNS_MAX 128
struct sbx_audit_network {
  uint64_t total, allowed, refused, bytes_up, bytes_down;
  const struct sbx_audit_conn *conns; /* the first n of them */
  size_t n;
};

/* An `sbx eval` in the isolated worker (docs/audit-log.md, "eval"). */
struct sbx_audit_eval {
  const char *status;   /* cs_tee_status_name(): "ok", "js-error", "timeout", ... */
  uint64_t heap_bytes;  /* the worker's arena: the memory limit */
  uint64_t heap_used;   /* the arena in use after the evaluation; 0 unknown */
  uint64_t max_message; /* the size limit of request and reply */
  uint64_t cpu_seconds; /* the worker's RLIMIT_CPU */
  uint64_t code_bytes, input_bytes;
};

struct sbx_audit_record {
  struct timespec start;   /* CLOCK_REALTIME when sbx began the run */
  const char *sbx_version; /* which sbx enforced it; may be NULL */
  const char *profile;
  const char *profile_alias;  /* may be NULL */
  const char *profile_source; /* "flag", "env", "default" */
  const char *tier;
  const char *lane;    /* the execution lane; NULL: the model has no lanes */
  const char *route;   /* the route taken ("default" when none matched); NULL: not chosen */
  const char *backend; /* the route's backend */
  const char *image;   /* the container backend's image; NULL: not a container run */
  char *const *argv;
  int argc;
  const char *workspace;
  const char *model; /* scheduler model name */
  bool admitted;
  uint64_t admission_wait_ms;
  const struct cs_limits *limits; /* the profile's limits */
  uint64_t timeout_ms;            /* the effective wall-clock limit */
  enum sbx_audit_outcome outcome;
  int status; /* EXITED */
  int signal; /* SIGNALED, or the signal a TIMED_OUT command was killed with */
  int sbx_exit;
  uint64_t duration_ms; /* the command's run time, 0 if not run */
  const struct sbx_audit_denial *denials;
  size_t n_denials;
  const char *error;      /* why sbx failed or refused, NULL if it did not */
  const char *start_path; /* "warm" or "cold" (sbx serve, docs/sbx.md); NULL: not started */
  /* Per-run settings (docs/audit-log.md, "settings"): */
  const char *run_id;            /* --run-id; NULL: none */
  const char *cwd;               /* the command's working directory; NULL: not decided */
  const char *const *env_set;    /* --env "NAME=VALUE" strings, NULL-terminated; may be NULL */
  const char *const *env_passed; /* --pass-env names the caller had set; may be NULL */
  const char *const *env_unset;  /* --pass-env names the caller had not set; may be NULL */
  uint64_t wait_timeout_ms;      /* --wait-timeout; 0: none */
  bool wait_noticed;             /* the wait was announced on stderr */
  bool wait_timed_out;           /* --wait-timeout passed: nothing ran */
  /* The sandbox's home as the profile lists it (docs/audit-log.md,
   * "home"), and sbx run --add-path as asked (NULL: none). */
  const struct cs_path_rule *home_read_only;
  uint32_t n_home_read_only;
  const struct cs_path_rule *home_persistent;
  uint32_t n_home_persistent;
  const char *extra_path;
  bool extra_rw;
  const char *home_state; /* where the persistent paths are kept; NULL or "": not known */
  const char *home_notes; /* what of the home was skipped and why; NULL or "": nothing */
  /* A user's own rules (docs/audit-log.md): */
  const char *policy_file; /* --policy, resolved; NULL: the linked profiles */
  const char *model_file;  /* --model, resolved; NULL: the linked model */
  /* A proxied profile's connections; NULL: the run had no proxy. */
  const struct sbx_audit_network *network;
  /* An evaluation, not a command; NULL: an `sbx run`. */
  const struct sbx_audit_eval *eval;
};

/* path NULL: no log (a->fd = -1), returns 0. */
int sbx_audit_open(struct sbx_audit *a, const char *path, FILE *err);
int sbx_audit_append(struct sbx_audit *a, const struct sbx_audit_record *r, FILE *err);
void sbx_audit_close(struct sbx_audit *a);

/* The record as one line (with '\n'), NUL-terminated, malloc'd; NULL on
 * -ENOMEM or -EMSGSIZE (*errp). Exposed for the unit tests. */
char *sbx_audit_format(const struct sbx_audit_record *r, int *errp);

/* "2026-11-29T09:40:00.123Z" into buf (>= 25 bytes). */
int sbx_audit_rfc3339(const struct timespec *ts, char *buf, size_t size);

#endif
