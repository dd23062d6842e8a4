/* sbx_policy: `--policy FILE.pol`, a user's own profiles instead of the
 * linked ones (docs/sbx.md, "Your own policies and models").
 *
 * The file and every file it includes pass sbx_trust (runtime/trust)
 * before a byte is parsed; `include <NAME>;` reaches the installed
 * library (pol_library_default). The profiles are compiled in memory by
 * gen/profile with every check pnetc makes, so the table sbx_run gets is
 * laid out and checked like a linked one.
 *
 * Returns: 0, or a negative errno after a message on err (the policy's
 * own errors as file:line:col with the line and a caret): sbx exits 125. */
#ifndef CS_RUNTIME_SBX_POLICY_H
#define CS_RUNTIME_SBX_POLICY_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#include "cs_profile_table.h"

struct profile_set;

struct sbx_user_policy {
  struct profile_set *set;
  char path[PATH_MAX]; /* the main file, resolved: the audit record and explain name it */
};

/* workspace: resolved; no file may lie in it. */
int sbx_policy_load(struct sbx_user_policy *up, const char *file, const char *workspace, FILE *err);
const struct cs_profile *sbx_policy_table(const struct sbx_user_policy *up, size_t *n);
/* The policy's own routes (cs_route), NULL with 0 when it has none. */
const struct cs_route *sbx_policy_routes(const struct sbx_user_policy *up, size_t *n);
void sbx_policy_free(struct sbx_user_policy *up);

/* Refuses (-EPERM) when a file of the policy lies where profile p's
 * command may write (sbx_exposed.h: its write rules, its persistent home,
 * `extra`, a writable --add-path or NULL; home is the caller's): the
 * confined command could otherwise rewrite the rules of its next run. */
int sbx_policy_check_exposed(const struct sbx_user_policy *up, const struct cs_profile *p,
                             const char *workspace, const char *home, const char *extra, FILE *err);

struct sbx_tables;
struct sbx_opts;
/* --policy (o->policy) for sbx run, explain and exec: the user's profiles
 * replace t's, after the file and its includes passed the trust checks
 * and compiled, and none of its files lies where the profile the run
 * gets lets the command write. 0, or SBX_EXIT_FAILURE with the reason on
 * err (the caller then marks t refused: the run is recorded, nothing runs). */
int sbx_policy_apply(struct sbx_tables *t, const struct sbx_opts *o, struct sbx_user_policy *up,
                     FILE *err);

#endif
