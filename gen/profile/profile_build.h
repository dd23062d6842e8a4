/* profile_build: a user's policy file compiled into profile tables in
 * memory, for `sbx run --policy FILE --profile NAME` (docs/sbx.md, "Your
 * own policies"): the same struct cs_profile entries pnetc writes into
 * profiles.c for the linked tables (cs_profile_table.h), made by the same
 * front end (dsl/pol), lowering and BPF generator (gen/bpf), so a profile
 * means the same whether it was linked or loaded.
 *
 * Before a filter is handed out, the userspace interpreter (verify/bpf)
 * validates it the way seccomp(2) does and runs it against the rule set's
 * own meaning (sc_ruleset_eval) on every system-call number, the foreign
 * architectures and the values each condition compares with: a generator
 * fault is refused here rather than enforced.
 *
 * Return values: 0, or a negative errno after a message on the
 * diagnostics stream (diag.h):
 *   -EINVAL  the policy has errors (file:line:col, line and caret)
 *   -E2BIG   a filter exceeds BPF_MAXINSNS
 *   -EPROTO  a filter disagrees with its rule set (generator fault)
 *   -ENOMEM  out of memory */
#ifndef CS_GEN_PROFILE_BUILD_H
#define CS_GEN_PROFILE_BUILD_H

#include <stddef.h>

#include "cs_profile_table.h"
#include "pol.h"

struct profile_set;

/* Loads path with lo (the library directory, the file reader; NULL: plain
 * pol_load) and builds every profile in it, declaration order. */
int profile_set_load(const char *path, const struct pol_load_options *lo, struct profile_set **out);
void profile_set_free(struct profile_set *s);

/* The table: n entries laid out as a generated cs_profiles[]; valid
 * until profile_set_free. */
const struct cs_profile *profile_set_table(const struct profile_set *s, size_t *n);

/* The policy's routes as cs_routes[] (NULL with 0 when it has none);
 * valid until profile_set_free. Their tiers and lanes are not checked
 * here: the caller checks them against the model it admits through. */
const struct cs_route *profile_set_routes(const struct profile_set *s, size_t *n);

/* Every file read (the main one first), as opened. */
size_t profile_set_file_count(const struct profile_set *s);
const char *profile_set_file(const struct profile_set *s, size_t i);

/* The cross-check of one compiled filter against its rule set, exposed
 * for the tests: 0, or -EPROTO after naming the first call they disagree
 * on (or -EINVAL: a program seccomp(2) would refuse). */
int profile_filter_check(const struct sc_ruleset *rs, const struct sock_filter *f, uint32_t len);

#endif
