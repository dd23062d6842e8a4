/* cs_cmdrule: the command-rule matcher (docs/approvals.md "Command
 * rules"), library cs_cmdrule (runtime/cmdrule/cs_cmdrule.c). Pure libc:
 * pnetc checks a policy's rules and their examples with it, sbx and its
 * static front end match commands with it, and the approval workflow
 * (cs_approval.h, which includes this header) names operations with it.
 * Public (installed with commander.h).
 *
 * Errors (negative errno): -EINVAL bad argument; -EPROTO an example does
 * not behave as its rule says. */
#ifndef CS_RUNTIME_CS_CMDRULE_H
#define CS_RUNTIME_CS_CMDRULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cs_approval_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "delete", "network", "sudo", "git-config", "exec"; "?" out of range. */
const char *cs_approval_op_name(enum cs_approval_operation op);
/* -EINVAL for an unknown name. */
int cs_approval_op_parse(const char *name, enum cs_approval_operation *op);

/* A rule matches a command line by program and argument patterns and
 * says allow, ask or deny; the strictest matching rule wins (deny > ask >
 * allow). A rule for an operation the profile does not list under
 * `approve` is deny when the profile forbids the operation outright. */
enum cs_cmdrule_action { CS_CMDRULE_ALLOW = 0, CS_CMDRULE_ASK = 1, CS_CMDRULE_DENY = 2 };

struct cs_cmdrule {
  const char *name;    /* "rm" */
  const char *program; /* base name matched against argv[0]'s base name; "*" any */
  /* Space-separated argument patterns, all of which must appear among
   * the arguments (in order): a word matches itself, "-x" also matches a
   * bundled short option containing x ("-rf" has -r and -f), "--opt"
   * matches "--opt" and "--opt=...". NULL or "": no condition. */
  const char *args;
  enum cs_cmdrule_action action;
  enum cs_approval_operation operation;
  const char *origin;            /* "builtin", "profiles.pol:12:3" */
  const char *const *must_match; /* examples, NULL-terminated or NULL */
  const char *const *must_not_match;
};

extern const struct cs_cmdrule cs_cmdrules_builtin[];
extern const size_t cs_cmdrules_builtin_count;

struct cs_cmdrule_result {
  enum cs_cmdrule_action action;
  const struct cs_cmdrule *rule; /* the deciding rule, NULL when none matched */
};

/* Also looks through wrappers (env, nice, nohup, timeout, command, exec,
 * xargs, sudo's own command) so `env rm x` is an rm. approval_ops: the
 * profile's CS_APPROVE_* bits; an ask for an operation whose bit is not
 * set becomes deny (the profile did not offer that approval). */
int cs_cmdrule_match(const struct cs_cmdrule *rules, size_t n, char *const *argv,
                     uint32_t approval_ops, struct cs_cmdrule_result *out);
/* Does one rule match argv (no wrappers looked through)? */
bool cs_cmdrule_matches(const struct cs_cmdrule *r, char *const *argv);
/* Checks every example of every rule; on failure returns -EPROTO and
 * writes which rule and example into why. */
int cs_cmdrule_check_examples(const struct cs_cmdrule *rules, size_t n, char *why, size_t why_len);
/* Splits an example ("rm -rf build") at spaces into argv (max 32 words). */
int cs_cmdrule_split(const char *text, char *buf, size_t buf_len, char **argv, size_t max);

#ifdef __cplusplus
}
#endif

#endif
