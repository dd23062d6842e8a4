/* pol_internal: the state shared by the stages of the .pol front end
 * (pol_load.c -> pol_resolve.c -> pol_cond.c -> pol_lower.c). */
#ifndef CS_DSL_POL_INTERNAL_H
#define CS_DSL_POL_INTERNAL_H

#include "pol.h"
#include "pol_ast.h"

struct pol_constdef {
  const struct pol_decl *decl;
  uint64_t value;
};

struct pol_groupdef {
  const struct pol_decl *decl;
  int *nrs;           /* sorted, no duplicates */
  const char **names; /* the call's name for each nr (libseccomp's) */
  size_t n;
};

/* A syscalls statement after checking, ready to apply to a profile. */
struct pol_target {
  int nr;
  const char *name;
  bool via_group;            /* named through an @group, not by itself */
  struct sc_clause *clauses; /* lowered condition for this call; NULL if unconditional */
  uint32_t nclauses;
  bool never; /* the condition can never hold: the rule is dropped */
};

struct pol_prepared {
  const struct pol_stmt *stmt;
  bool is_default;
  struct sc_action action;
  char *action_text;
  bool conditional;
  struct pol_target *targets;
  size_t ntargets;
  char *origin; /* "file:line:col (profile NAME)" */
  char *source; /* the statement's text, on one line */
};

/* What one profile declaration itself says (before inheritance). */
enum pol_setting {
  POL_SET_SUMMARY,
  POL_SET_TIER,
  POL_SET_SHELL,
  POL_SET_NETWORK,
  POL_SET_FILE_WRITE,
  POL_SET_FILE_DELETE,
  POL_SET_TIME,
  POL_SET_MEMORY,
  POL_SET_CPU,
  POL_SET_PROCESSES,
  POL_SET_OPEN_FILES,
  POL_SET_FILE_SIZE,
  POL_SET_APPROVE,
  /* Optional from here on: unset means empty (no home binds) and none
   * (no extra path), the closed choice. */
  POL_SET_HOME_RO,
  POL_SET_HOME_PERSIST,
  POL_SET_EXTRA_PATH,
  POL_SET_COUNT
};
#define POL_SET_FIRST_OPTIONAL POL_SET_HOME_RO

/* What one declaration's `network` block says. */
struct pol_net_delta {
  const struct pol_item *block;            /* NULL: no block; the parent's network stays */
  bool append;                             /* `network += { ... }` */
  const struct pol_path_entry *via, *rest; /* NULL when not written */
  uint32_t mode, rest_value;               /* enum cs_net_mode, enum cs_net_rest */
  char *via_origin, *rest_origin;          /* "file:line:col (profile NAME)" */
  struct pol_net_rule *allow, *deny, *local;
  size_t n_allow, n_deny, n_local;
};

struct pol_delta {
  const struct pol_profile_decl *decl;
  struct pol_net_delta net;
  bool home_ro_append, home_persist_append;  /* written with `+=` */
  const struct pol_item *set[POL_SET_COUNT]; /* the item that set it, NULL if unset */
  struct pol_profile values;                 /* only fields whose set[] is non-NULL */
  struct pol_path_rule *allowed, *denied;
  size_t n_allowed, n_denied;
  bool allowed_set, allowed_append, denied_set, denied_append;
  struct pol_prepared *stmts;
  size_t nstmts;
  bool ok;      /* no error in this declaration */
  int visiting; /* 2 once an inheritance cycle through it was reported */
};

struct pol_policy {
  struct diag_source **sources;
  size_t nsources, cap_sources;
  struct pol_file **files;
  size_t nfiles, cap_files;
  const struct pol_decl **decls; /* every declaration, includes expanded in place */
  size_t ndecls, cap_decls;
  char *main_dir; /* directory of the main file, for origins */
  bool allow_includes;
  char *library_real; /* the library directory, resolved; NULL: none */
  struct pol_load_options opts;

  struct pol_constdef *consts;
  size_t nconsts;
  struct pol_groupdef *groups;
  size_t ngroups;
  struct pol_delta *deltas;
  size_t ndeltas;
  struct pol_profile *profiles;
  size_t nprofiles;
  struct pol_route *routes; /* declaration order */
  size_t nroutes;
};

/* pol_route.c: the routes, after the profiles they name are resolved. */
#define POL_MAX_ROUTES 64
int pol_resolve_routes(struct pol_policy *pol);
void pol_routes_free(struct pol_policy *pol);

/* pol_resolve.c: names, inheritance, validation. Errors are printed;
 * returns 0, -EINVAL or -ENOMEM (as do the stage functions below). */
int pol_resolve(struct pol_policy *pol);
void pol_resolve_free(struct pol_policy *pol);
/* The x86_64 number of a system call name; -1 after printing an error. */
int pol_syscall_nr(const struct pol_name *n);
const struct pol_groupdef *pol_group_find(const struct pol_policy *pol, const char *name);

/* pol_settings.c: one profile declaration on its own (settings, paths,
 * approvals, then its statements through pol_stmt.c) into dl. */
extern const char *const pol_setting_keys[POL_SET_COUNT];
int pol_check_profile(struct pol_policy *pol, struct pol_delta *dl);
int pol_check_prop(const struct pol_policy *pol, struct pol_delta *dl, const struct pol_item *it);
int pol_check_paths(const struct pol_policy *pol, struct pol_delta *dl, const struct pol_item *it);
int pol_check_approve(struct pol_delta *dl, const struct pol_item *it);
void pol_paths_free(struct pol_path_rule *rules, size_t n);

/* pol_home.c: the home settings of one declaration (homeReadOnly,
 * homePersistent, allowExtraPath) into dl, and, after inheritance, their
 * checks against each other, the denied paths and allowFileWrite. */
int pol_check_home_prop(const struct pol_policy *pol, struct pol_delta *dl,
                        const struct pol_item *it, enum pol_setting key);
int pol_home_compose(struct pol_profile *out, const struct pol_delta *x);
int pol_home_validate(const struct pol_profile_decl *d, struct pol_profile *out);

/* pol_network.c: the `network` block of one declaration into dl->net
 * (each pattern and range checked on its own), composed down the extends
 * chain into out, then checked as a whole (allowNetwork, via, rules that
 * can never match). */
int pol_check_network(const struct pol_policy *pol, struct pol_delta *dl,
                      const struct pol_item *it);
int pol_network_compose(struct pol_profile *out, const struct pol_delta *x);
int pol_network_validate(const struct pol_profile_decl *d, struct pol_profile *out);
void pol_net_rules_free(struct pol_net_rule *rules, size_t n);
void pol_net_delta_free(struct pol_net_delta *net);

/* pol_stmt.c: one syscalls statement, checked and lowered into p (which
 * the caller frees with pol_prepared_free even after an error). */
int pol_check_stmt(const struct pol_policy *pol, const struct pol_delta *dl,
                   const struct pol_stmt *s, struct pol_prepared *p);
void pol_prepared_free(struct pol_prepared *p);

/* pol_inherit.c: the profile dl resolves to, after its extends chain. */
struct pol_delta *pol_delta_find(struct pol_policy *pol, const char *name);
int pol_compose(struct pol_policy *pol, struct pol_delta *dl, struct pol_profile *out);

/* "path:line:col" for loc, with path relative to the main file's
 * directory; caller frees. suffix, when not NULL, is appended after a space. */
char *pol_origin(const struct pol_policy *pol, const struct diag_loc *loc, const char *suffix);

/* pol_cond.c: lowers cond to disjunctive normal form for system call
 * `syscall`. Returns 0 with *clauses (NULL and 0 when the condition is
 * always true; *never set when it can never be true), or -EINVAL (printed)
 * or -ENOMEM. */
int pol_cond_lower(const struct pol_policy *pol, const struct pol_expr *cond, const char *syscall,
                   struct sc_clause **clauses, uint32_t *nclauses, bool *never);
void pol_clauses_free(struct sc_clause *clauses, uint32_t n);

/* pol_resolve.c: a constant expression's value (user constants defined
 * before `before`, then the header table). 0, or -EINVAL (printed). */
int pol_value_eval(const struct pol_policy *pol, const struct pol_value *v, size_t before,
                   uint64_t *out);

#endif
