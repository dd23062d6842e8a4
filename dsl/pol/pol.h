/* pol: the .pol security-policy front end (docs/pol-language.md).
 *
 * pol_load() reads a policy file and everything it includes, resolves
 * names (syscalls via libseccomp for x86_64, constants, groups), resolves
 * profile inheritance and validates every profile. pol_lower() turns one
 * resolved profile into the seccomp rule set the BPF generator compiles
 * (sc_rules.h). The resolved profile (pol_profile.h, in dsl/ir: the
 * emitters read it) also carries what the runtime table
 * (cs_profile_table.h) needs besides the filter: shell and file policy,
 * paths, limits, approvals, scheduler tier.
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

#include "diag.h"
#include "pol_profile.h"
#include "pol_route.h"
#include "sc_rules.h"

/* The scheduler tiers of models/default.pnet a profile may name. */
#define POL_TIERS "v8, seccomp, wasm, tee"

struct pol_policy;

/* Loads and checks path. On success *out owns everything. */
int pol_load(const char *path, struct pol_policy **out);

/* Where pol_load_with finds files and how it reads them. */
struct pol_load_options {
  /* The directory `include <NAME>;` searches, and the only one it
   * searches (the installed standard library and seed profiles); NULL:
   * such an include is an error. */
  const char *library_dir;
  /* When set, every file (the main one, from NULL, and each include) is
   * read through it instead of fopen, so a caller can check who may write
   * a file before its text is trusted (sbx --policy). Returns the file or
   * NULL after printing why (diag_error at `from` when it is non-NULL). */
  struct diag_source *(*read_file)(void *ctx, const char *path, const struct diag_loc *from);
  void *ctx;
};

/* The library directory when none is named: the installed
 * ${datadir}/commander-sandbox/pol beside the running executable, else
 * the source tree's models/ (an executable in the build tree); resolved,
 * caller frees; NULL when neither exists. */
char *pol_library_default(void);

/* pol_load with options; opts NULL is pol_load. */
int pol_load_with(const char *path, const struct pol_load_options *opts, struct pol_policy **out);
/* Same, for a buffer (the fuzz harness); includes are refused. */
int pol_load_memory(const char *name, const char *data, size_t len, struct pol_policy **out);
void pol_policy_free(struct pol_policy *pol);

/* Profiles in declaration order (included files first, as they appear). */
size_t pol_profile_count(const struct pol_policy *pol);
const struct pol_profile *pol_profile_at(const struct pol_policy *pol, size_t i);
/* By name or alias; NULL when neither matches. */
const struct pol_profile *pol_profile_find(const struct pol_policy *pol, const char *name);

/* Routes in declaration order (docs/pol-language.md, "Routes"). */
size_t pol_route_count(const struct pol_policy *pol);
const struct pol_route *pol_route_at(const struct pol_policy *pol, size_t i);

/* The names a route may use for its tier and lane: those of the scheduler
 * model the policy is compiled against (pnetc --model), or of the
 * project's models/default.pnet when none is named. */
struct pol_route_model {
  const char *name; /* for messages: "models/default.pnet" */
  const char *const *tiers;
  size_t n_tiers;
  const char *const *lanes;
  size_t n_lanes;
};
/* The lanes of models/default.pnet, for a policy compiled without a model. */
#define POL_LANES "interactive, background, subagent"
/* -EINVAL after an error at each route's tier or lane that m lacks. */
int pol_routes_check_model(const struct pol_policy *pol, const struct pol_route_model *m);

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
