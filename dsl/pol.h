/* pol: the .pol security-policy front end (docs/pol-language.md).
 *
 * pol_load() reads a policy file and everything it includes, resolves
 * names (syscalls via libseccomp for x86_64, constants, groups), resolves
 * profile inheritance and validates every profile. pol_lower() turns one
 * resolved profile into the seccomp rule set the BPF generator compiles
 * (gen/sc_rules.h). The resolved profile also carries what the runtime
 * table (runtime/include/cs_profile_table.h) needs besides the filter: shell and
 * file policy, paths, limits, approvals, scheduler tier.
 *
 * Return values: 0, or a negative errno from this list:
 *   -EINVAL  the policy has errors; each was printed (file:line:col + caret)
 *   -ENOMEM  out of memory (a message was printed)
 *   -ENOENT  pol_lower(): no such profile */
#ifndef CS_DSL_POL_H
#define CS_DSL_POL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../gen/sc_rules.h"
#include "cs_profile_table.h"
#include "diag.h"

/* The scheduler tiers of models/default.pnet a profile may name. */
#define POL_TIERS "v8, seccomp, wasm, tee"

struct pol_path_rule {
  char *path;     /* as written: absolute, or starting with ${WORKSPACE} or ~ */
  uint32_t access; /* enum cs_path_access bits */
  char *origin;   /* "profiles.pol:57:5" */
  struct diag_loc loc;
};

/* One rule of a profile after inheritance, for one system call. */
struct pol_rule {
  int nr;
  const char *name;          /* the system call (owned by the policy) */
  struct sc_action action;
  const char *action_text;   /* "errno(EPERM)" (owned by the policy) */
  const struct sc_clause *clauses; /* NULL: unconditional (owned by the policy) */
  uint32_t nclauses;
  const char *origin;        /* "profiles.pol:42:3 (profile strict)" */
  const char *source;        /* the statement as written, blanks collapsed, comments dropped */
  struct diag_loc loc;
};

/* A command-level approval rule (`rule "name" ACTION OPERATION { ... }`),
 * checked against its examples (dsl/pol_cmdrule.c). */
struct pol_cmd_rule {
  char *name;
  char *program;
  char *args;         /* "" when none */
  uint32_t action;    /* enum cs_cmdrule_action */
  uint32_t operation; /* enum cs_approval_operation */
  char *origin;       /* "profiles.pol:140:3 (profile standard)" */
  struct diag_loc loc;
};

struct pol_profile {
  char *name;
  char *alias;    /* NULL when none */
  char *extends;  /* parent's name, NULL for a root profile */
  char *summary;
  char *tier;
  char *origin;   /* "profiles.pol:12:1" */
  struct diag_loc loc;

  enum cs_shell_policy shell;
  bool allow_network;
  bool allow_file_write;
  bool allow_file_delete;

  struct pol_path_rule *allowed;
  size_t n_allowed;
  struct pol_path_rule *denied;
  size_t n_denied;

  struct cs_limits limits;
  uint32_t approval_ops; /* enum cs_approval_op bits */

  struct sc_action default_action;
  char *default_text;    /* "errno(EPERM)" */
  char *default_origin;

  /* The effective rules, ordered by system call number, and for one
   * number in the order they are tried (conditional ones first). */
  struct pol_rule *rules;
  size_t nrules;

  /* Command-level approval rules, the parents' first. */
  struct pol_cmd_rule *cmd_rules;
  size_t n_cmd_rules;
};

struct pol_policy;

/* Loads and checks path. On success *out owns everything. */
int pol_load(const char *path, struct pol_policy **out);
/* Same, for a buffer (the fuzz harness); includes are refused. */
int pol_load_memory(const char *name, const char *data, size_t len, struct pol_policy **out);
void pol_policy_free(struct pol_policy *pol);

/* Profiles in declaration order (included files first, as they appear). */
size_t pol_profile_count(const struct pol_policy *pol);
const struct pol_profile *pol_profile_at(const struct pol_policy *pol, size_t i);
/* By name or alias; NULL when neither matches. */
const struct pol_profile *pol_profile_find(const struct pol_policy *pol, const char *name);

/* Every file read, the main one first (for --depfile). */
size_t pol_file_count(const struct pol_policy *pol);
const char *pol_file_path(const struct pol_policy *pol, size_t i);

/* The path of the main file as given. */
const char *pol_main_path(const struct pol_policy *pol);
/* File i as generated tables and origins name it: the main file by its
 * base name, included files relative to the main file's directory (so
 * the output does not depend on where pnetc ran). Caller frees. */
char *pol_display_path(const struct pol_policy *pol, size_t i);

/* Fills rs with the profile's x86_64 rule set; the caller frees it with
 * sc_ruleset_free (also after a failure, which leaves it empty). Its
 * meaning is sc_ruleset_eval (gen/sc_rules.h). */
int pol_lower(const struct pol_profile *p, struct sc_ruleset *rs);

/* Text of an action as written in .pol ("errno(EPERM)"); caller frees. */
char *pol_action_text(struct sc_action a);

#endif
