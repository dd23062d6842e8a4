/* sbx_landlock: the Landlock layer of a run (sbx_landlock.c): the
 * ruleset built from the plan's rules and the restriction of the command's
 * process. The constants and the ABI are in sbx_landlock_rights.h. */
#ifndef CS_RUNTIME_SBX_LANDLOCK_H
#define CS_RUNTIME_SBX_LANDLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "sbx_fail.h"
#include "sbx_landlock_rights.h"
#include "sbx_plan.h"

/* In the command's process, after no_new_privs: restricts it with Landlock.
 * = sbx_landlock_ruleset + sbx_landlock_restrict. */
int sbx_landlock_apply(const struct sbx_plan *plan, struct sbx_fail *f);
/* Which rules a ruleset holds (grep tag: SBX_LL_PART).
 *   ALL     the plan's rules: the cold path's one layer.
 *   SHARED  warm, no-shell profiles: the plan's rules except those on a
 *           run's own /tmp, /dev/shm, /proc, plus every right but EXECUTE
 *           on "/". Built once per template (the ~1,000 per-file EXECUTE
 *           grants), restricted in each run second (the kernel copies an
 *           older layer's rules into every newer domain: small one first).
 *   RUN     warm: the plan's rules with each per-file grant replaced by
 *           its directory (once), built per run in its own view and
 *           restricted first.
 * Landlock allows an access only if every layer does, so SHARED+RUN allow
 * exactly what ALL allows: for EXECUTE, (dirs + files) AND (dirs + the
 * files' directories) = dirs + files; for every other right, SHARED allows
 * all and RUN holds the plan's rules (a file rule's other right,
 * READ_FILE, is also what the directory grant gives, and the bin
 * directories lie under /usr, readable in every no-shell profile). The
 * per-run rules are never in a shared ruleset: Landlock's path walk skips
 * mount points, so a rule naming one run's /tmp covers no other. */
enum sbx_ll_part { SBX_LL_ALL = 0, SBX_LL_SHARED = 1, SBX_LL_RUN = 2 };
/* The ruleset `part` of the plan, nobody restricted yet (*out, owned by
 * the caller). Paths are opened in the caller's current view. */
int sbx_landlock_ruleset(const struct sbx_plan *plan, enum sbx_ll_part part, int *out,
                         struct sbx_fail *f);
/* landlock_restrict_self with a finished ruleset (after no_new_privs). */
int sbx_landlock_restrict(int ruleset, int abi, struct sbx_fail *f);

#endif
