/* pol_cmdrule: command-level approval rules in .pol (docs/approvals.md,
 * docs/pol-language.md "Command rules"):
 *
 *   rule "force-push" ask network {
 *     program "git";
 *     args    "push --force";
 *     match   "git push --force origin main";
 *     nomatch "git push origin main";
 *   }
 *
 * Checked here, in the profile's own declaration: the action (allow, ask,
 * deny), the operation (delete, network, sudo, git-config, exec), the keys,
 * and every example against the same matcher sbx uses
 * (runtime/cmdrule/cs_cmdrule.c), with a caret at an example that fails.
 * Returns 0, -EINVAL (errors printed) or -ENOMEM. */
#ifndef CS_DSL_POL_CMDRULE_H
#define CS_DSL_POL_CMDRULE_H

#include "pol_internal.h"

int pol_cmdrule_check(const struct pol_profile_decl *decl, const struct pol_item *it);
/* Appends the rules of one declaration (already checked) to out. */
int pol_cmdrule_collect(const struct pol_policy *pol, const struct pol_profile_decl *decl,
                        struct pol_profile *out);
void pol_cmdrules_free(struct pol_cmd_rule *r, size_t n);
/* After inheritance: warns about an `ask` rule for an operation the
 * profile does not approve (it can never ask there). Never an error. */
void pol_cmdrule_lint(const struct pol_profile *p);

#endif
