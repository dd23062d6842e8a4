/* A fixed two-profile table for the unit tests: independent of
 * models/profiles.pol, so the explain golden file changes only when the
 * explain code does. */
#ifndef CS_TESTS_SBX_FIXTURE_PROFILES_H
#define CS_TESTS_SBX_FIXTURE_PROFILES_H

#include "cs_profile_table.h"

extern const struct cs_profile sbx_fixture_profiles[];
#define SBX_FIXTURE_N 2

#endif
