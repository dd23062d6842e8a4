/* Profiles for the confinement tests. With the generated profiles linked
 * (cs_profiles, from models/profiles.pol) the tests use those, adding only
 * what the tests need: read+execute on the escape programs' directory and a
 * denied file in the workspace. Without them, equivalent profiles are built
 * here, with seccomp filters compiled by libseccomp (real filters, loaded
 * by the real kernel). */
#ifndef CONFINE_FIXTURE_H
#define CONFINE_FIXTURE_H

#include "cs_profile_table.h"

/* "standard", "strict", "hardened" (or any generated profile name), or
 * "standard-weak": the fixture's standard without the refusals of routing
 * headers, IP options, leases, dnotify and set-id modes (the negative control of the
 * tests that check those). NULL if unknown. The result lives until cfx_release(). */
const struct cs_profile *cfx_profile(const char *name);
void cfx_release(void);
/* Where the profiles came from: "generated" or "fixture". */
const char *cfx_source(void);

#endif
