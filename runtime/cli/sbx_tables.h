/* sbx_tables: the generated tables the sbx executable is linked with.
 * cs_model_default comes from models/default.pnet (pnetc's C emitter,
 * static lib cs_model_default); the profiles from models/profiles.pol
 * (static lib cs_profiles). Only sbx_main.c includes this: every other
 * module takes the tables as parameters, so the tests can give their own. */
#ifndef CS_RUNTIME_SBX_TABLES_H
#define CS_RUNTIME_SBX_TABLES_H

#include <stdint.h>

#include "cs_model_table.h"
#include "cs_profile_table.h"
#include "default.h"  /* generated: extern const struct cs_model_table cs_model_default */
#include "profiles.h" /* generated: cs_profiles[], cs_profiles_count */

#define SBX_PROFILES cs_profiles
#define SBX_N_PROFILES cs_profiles_count
#define SBX_MODEL cs_model_default
#define SBX_ROUTES cs_routes
#define SBX_N_ROUTES cs_routes_count

#endif
