/* pol_profile: a security profile after resolution and inheritance, as the
 * .pol front end (dsl/pol) hands it to the emitters (gen/ctables) and the
 * lowering to seccomp rules: everything the runtime table
 * (cs_profile_table.h) holds besides the compiled filter. The front end
 * owns every pointer; docs/pol-language.md is the language. */
#ifndef CS_DSL_IR_POL_PROFILE_H
#define CS_DSL_IR_POL_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cs_profile_table.h"
#include "diag.h"
#include "sc_rules.h"

struct pol_path_rule {
  char *path;      /* as written: absolute, or starting with ${WORKSPACE} or ~ */
  uint32_t access; /* enum cs_path_access bits */
  char *origin;    /* "profiles.pol:57:5" */
  struct diag_loc loc;
};

/* One rule of a profile after inheritance, for one system call. */
struct pol_rule {
  int nr;
  const char *name; /* the system call (owned by the policy) */
  struct sc_action action;
  const char *action_text;         /* "errno(EPERM)" (owned by the policy) */
  const struct sc_clause *clauses; /* NULL: unconditional (owned by the policy) */
  uint32_t nclauses;
  const char *origin; /* "profiles.pol:42:3 (profile strict)" */
  const char *source; /* the statement as written, blanks collapsed, comments dropped */
  struct diag_loc loc;
};

/* A command-level approval rule (`rule "name" ACTION OPERATION { ... }`),
 * checked against its examples (dsl/pol/pol_cmdrule.c). */
struct pol_cmd_rule {
  char *name;
  char *program;
  char *args;         /* "" when none */
  uint32_t action;    /* enum cs_cmdrule_action */
  uint32_t operation; /* enum cs_approval_operation */
  char *origin;       /* "profiles.pol:140:3 (profile standard)" */
  struct diag_loc loc;
};

/* One network rule (`network { allow "..."; }`, docs/pol-language.md
 * "Network"): a destination pattern, or in net_local a CIDR range. */
struct pol_net_rule {
  char *pattern;       /* normalized: lower case, no trailing dot, canonical IP text */
  char *written;       /* as written in the policy */
  char *origin;        /* "profiles.pol:57:5 (profile standard)": where it was written */
  const char *profile; /* the profile whose block wrote it (owned by the policy) */
  struct diag_loc loc;
};

struct pol_profile {
  char *name;
  char *alias;   /* NULL when none */
  char *extends; /* parent's name, NULL for a root profile */
  char *summary;
  char *tier;
  char *origin; /* "profiles.pol:12:1" */
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
  char *default_text; /* "errno(EPERM)" */
  char *default_origin;

  /* The effective rules, ordered by system call number, and for one
   * number in the order they are tried (conditional ones first). */
  struct pol_rule *rules;
  size_t nrules;

  /* Command-level approval rules, the parents' first. */
  struct pol_cmd_rule *cmd_rules;
  size_t n_cmd_rules;

  /* The sandbox's home (homeReadOnly, homePersistent; "~/..." paths) and
   * what `sbx run --add-path` may add (allowExtraPath: 0, CS_PATH_READ
   * or CS_PATH_READ | CS_PATH_WRITE). Optional settings: unset is empty
   * and none. */
  struct pol_path_rule *home_ro;
  size_t n_home_ro;
  struct pol_path_rule *home_persist;
  size_t n_home_persist;
  uint32_t extra_path_access;

  /* Network (`network { ... }`): enum cs_net_mode and enum cs_net_rest;
   * direct and deny with empty lists when no block says otherwise. */
  uint32_t net_mode;
  uint32_t net_rest;
  struct pol_net_rule *net_allow;
  size_t n_net_allow;
  struct pol_net_rule *net_deny;
  size_t n_net_deny;
  struct pol_net_rule *net_local;
  size_t n_net_local;
  /* Where `via` and `rest` were written ("profiles.pol:60:5 (profile
   * standard)"), NULL when the default holds; for messages and comments. */
  char *net_mode_origin;
  char *net_rest_origin;
  struct diag_loc net_mode_loc, net_rest_loc;
  const char *net_mode_profile, *net_rest_profile; /* the profiles that wrote them */
};

#endif
