/* cs_approval: the approval workflow (docs/approvals.md, issue #5).
 * Public: included by commander.h (section 4). Implemented in
 * runtime/approval/cs_approval*.c (library cs_approval).
 *
 * A request names one sensitive operation (delete, network, sudo,
 * git-config, exec), the command it belongs to, the path or address, the
 * profile and the rule that asked. An approval manager sends it to one
 * approver (a struct of callbacks: the built-in terminal, exec:PROGRAM and
 * socket:PATH approvers, or the embedder's own) and turns everything but a
 * well-formed "allow" into a deny: no approver, an approver that fails,
 * crashes, hangs past the timeout, closes its channel or answers garbage.
 * Grants with scope "session" are kept in the manager; scope "always" in a
 * store file only the user can read and write.
 *
 * Errors (negative errno): -EINVAL bad argument; -ENOMEM; -EPERM the
 * request was denied (the decision says by whom and why); -EACCES the
 * store file is unsafe (owner, permissions, not a regular file); -ENOENT
 * no such grant; -EPROTO the store file is malformed; others from the
 * system calls the store or approvers make. */
#ifndef CS_RUNTIME_CS_APPROVAL_H
#define CS_RUNTIME_CS_APPROVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The operations (enum cs_approval_operation, cs_approval_op_name) and the
 * command rules: library cs_cmdrule, which cs_approval links. */
#include "cs_cmdrule.h"

#ifdef __cplusplus
extern "C" {
#endif

enum cs_approval_scope {
  CS_APPROVAL_ONCE = 0,    /* this request only */
  CS_APPROVAL_SESSION = 1, /* same operation and command prefix, this manager's life */
  CS_APPROVAL_ALWAYS = 2,  /* same, persisted in the store file */
};

#define CS_APPROVAL_DEFAULT_TIMEOUT_MS 60000u
#define CS_APPROVAL_MAX_REPLY 65536u /* bytes an approver may answer */

struct cs_approval_request {
  uint64_t id; /* set by the manager */
  enum cs_approval_operation operation;
  const char *const *argv; /* the command (NULL-terminated) */
  const char *path;        /* NULL when the operation has none */
  const char *address;     /* "203.0.113.7:443", "[2001:db8::1]:22", NULL */
  const char *profile;     /* "standard" */
  const char *rule;        /* "builtin rm (delete)", "unlinkat(2)" */
  const char *layer;       /* "command" or "syscall" */
  /* The workspace as the command sees it, or NULL: the terminal approver
   * shows a path inside it relative to it. path is always the resolved,
   * absolute path the call acts on (the system-call layer resolves every
   * directory component as the caller would; only the final name is
   * taken as given, as unlink and rename take it). */
  const char *workspace;
  /* Command layer: what the command's arguments name, resolved (every
   * directory component, as the command will find them; the final name as
   * given), NULL-terminated; NULL when none. A long or tricky argument
   * (`build/././.../../src/important.c`) is shown by what it reaches. */
  const char *const *targets;
  /* The caller's name for the run (sbx run --run-id), or NULL: lets an
   * approver (or its log) tie the request to the agent's own step. */
  const char *run_id;
  /* The directory the command started in (sbx run --cwd, or its default),
   * absolute, or NULL: with `workspace` it tells an approver where a
   * relative argument of the command points. */
  const char *cwd;
  /* What a "session" or "always" answer grants, or NULL: the operation
   * and the command prefix (cs_approval_prefix). The network proxy asks
   * by destination and sets "//HOST:PORT", so that a grant covers that
   * destination (for any command of the run) and never every destination
   * of a command; the leading "//" cannot come out of cs_approval_prefix
   * (a base name and a sub-command hold no '/'), so the two kinds of
   * grant never stand in for each other. */
  const char *grant_key;
};

struct cs_approval_decision {
  bool allow;
  enum cs_approval_scope scope;
  char approver[64]; /* "exec:/usr/bin/x", "socket:/run/a.sock", "tty", "store", "session" */
  char reason[256];  /* why: "approver answered deny", "approver timed out after 60000 ms" */
  uint64_t latency_ms;
};

/* An approver. decide() must answer within timeout_ms (the manager does
 * not trust it to: a late "allow" is still a deny) and return 0 with
 * *out filled, or a negative errno (a deny). It is called with the
 * manager's lock held: one request at a time per manager. */
struct cs_approver {
  const char *kind; /* "exec", "socket", "tty", or the embedder's */
  int (*decide)(void *ctx, const struct cs_approval_request *req, unsigned timeout_ms,
                struct cs_approval_decision *out);
  void (*destroy)(void *ctx);
  void *ctx;
};

/* Built-in approvers; *out is filled, destroy it with its destroy. */
int cs_approver_exec(const char *program, struct cs_approver *out);
int cs_approver_socket(const char *path, struct cs_approver *out);
/* s as the terminal approver shows it: printable ASCII as it is (a
 * backslash doubled), well-formed UTF-8 as \u{XXXX}, any other byte as
 * \xHH, so that nothing in it can act on a terminal. Cut with "..." when
 * out is too small. For messages that quote a path or a command. */
void cs_approval_escape(const char *in, char *out, size_t out_len);
/* The terminal approver for a caller with nothing sharing the terminal
 * while it asks (no sandboxed process runs): no guard. */
int cs_approver_tty(struct cs_approver *out);
/* The terminal approver when something untrusted may share the terminal
 * (sbx: the sandboxed command's output). hold() is called before the
 * prompt is drawn and must return 0 only when nothing untrusted can
 * write to, read from or inject into the terminal until release() (sbx
 * freezes the run); otherwise a negative errno and a reason in why: the
 * question is not asked and the request is denied. */
struct cs_tty_guard {
  int (*hold)(void *arg, char *why, size_t why_len);
  void (*release)(void *arg); /* may be NULL */
  void *arg;
};
int cs_approver_tty_guarded(const struct cs_tty_guard *guard, struct cs_approver *out);
/* "exec:PROGRAM", "socket:PATH" or "tty"; -EINVAL otherwise. */
int cs_approver_parse(const char *spec, struct cs_approver *out);

/* Called after every decision (audit log); may be NULL. */
typedef void (*cs_approval_record_fn)(void *ctx, const struct cs_approval_request *req,
                                      const struct cs_approval_decision *d);

struct cs_approval_opts {
  struct cs_approver approver; /* kind NULL: no approver, every request is denied */
  unsigned timeout_ms;         /* 0: CS_APPROVAL_DEFAULT_TIMEOUT_MS */
  const char *store_path;      /* NULL: no "always" grants are read or written */
  cs_approval_record_fn record;
  void *record_ctx;
};

struct cs_approval_mgr;

/* Takes ownership of opts->approver (destroyed by cs_approval_destroy,
 * also when create fails). */
int cs_approval_create(const struct cs_approval_opts *opts, struct cs_approval_mgr **out);
void cs_approval_destroy(struct cs_approval_mgr *m);

/* 0: allowed; -EPERM: denied. *d is filled in both cases (and on any
 * other error, which is a deny too). Thread-safe. */
int cs_approval_ask(struct cs_approval_mgr *m, struct cs_approval_request *req,
                    struct cs_approval_decision *d);

/* The scope key of a request: operation and command prefix (argv[0]'s
 * base name, plus argv[1] when it is a sub-command: no '-' or '/'). */
int cs_approval_prefix(const char *const *argv, char *buf, size_t len);

const char *cs_approval_scope_name(enum cs_approval_scope s);

/* The store of "always" grants (default: $XDG_CONFIG_HOME/commander/
 * approvals.json, else ~/.config/commander/approvals.json). */
int cs_approval_store_default(char *buf, size_t len);
int cs_approval_store_list(const char *path, FILE *out);
int cs_approval_store_revoke(const char *path, uint64_t id);
int cs_approval_store_clear(const char *path);

#ifdef __cplusplus
}
#endif

#endif
