/* sbx_profile: which profile a run gets, and with what time limit.
 *
 * Precedence: --profile, else COMMANDER_SECURITY_PROFILE, else "strict".
 * A name matches a profile's name or its alias exactly (case matters: the
 * aliases are the upper-case names of docs/profiles.md). Anything that does
 * not match is an error naming where the name came from; there is no
 * fallback, because a typo silently turned into another profile would give
 * a command rights nobody chose.
 *
 * Returns: 0, or -ENOENT (unknown or empty name) / -ERANGE (a --timeout
 * above the profile's limit) after a message on `err`. */
#ifndef CS_RUNTIME_SBX_PROFILE_H
#define CS_RUNTIME_SBX_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cs_profile_table.h"

#define SBX_DEFAULT_PROFILE "strict"
#define SBX_PROFILE_ENV "COMMANDER_SECURITY_PROFILE"

enum sbx_profile_source {
  SBX_PROFILE_FROM_FLAG,
  SBX_PROFILE_FROM_ENV,
  SBX_PROFILE_FROM_DEFAULT,
};

const char *sbx_profile_source_name(enum sbx_profile_source src); /* "flag", "env", "default" */

/* The profile called `name` (name or alias), or NULL. */
const struct cs_profile *sbx_profile_find(const struct cs_profile *tab, size_t n, const char *name);

/* flag: --profile or NULL; env: the environment variable's value or NULL. */
int sbx_profile_select(const struct cs_profile *tab, size_t n, const char *flag, const char *env,
                       const struct cs_profile **out, enum sbx_profile_source *src, FILE *err);

/* The wall-clock limit of a run: the profile's, or the lower --timeout.
 * has_timeout/timeout_ms as parsed by sbx_cli. */
int sbx_profile_timeout(const struct cs_profile *p, int has_timeout, uint64_t timeout_ms,
                        uint64_t *effective_ms, FILE *err);

#endif
