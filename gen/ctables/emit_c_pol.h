/* emit_c_pol: the C tables of a security policy (profiles.c + profiles.h),
 * behind `pnetc -o DIR FILE.pol` (docs/pol-language.md, docs/table-format.md).
 *
 * One `const struct cs_profile` per profile (runtime/include/cs_profile_table.h):
 * its compiled seccomp filter as sock_filter rows, each with the
 * instruction in words and the generator's symbolic comment, a pseudo-code
 * view of the decision tree next to it, and the path, system-call, limit
 * and approval tables; then `cs_profiles[]`, its count, and a lookup by
 * name or alias. Deterministic: the same policy gives the same bytes.
 *
 * Return values: 0, or a negative errno:
 *   -ENOMEM  out of memory
 *   the stream's error (text_stream_status: -ENOSPC, -EDQUOT, -EFBIG, -EIO) */
#ifndef CS_GEN_EMIT_C_POL_H
#define CS_GEN_EMIT_C_POL_H

#include <stdio.h>

#include "pol_profile.h"
#include "bpf_disasm.h"
#include "bpf_gen.h"

/* What the emitter needs per profile, in pol_profile_at() order. */
struct emit_pol_compiled {
  const struct pol_profile *profile;
  const struct sc_ruleset *ruleset;
  const struct bpf_program_out *program;
};

/* The policy's files as the banner names them: the main file first, then
 * every file it includes (pol_display_path). */
struct emit_pol_sources {
  const char *const *names;
  size_t n;
};

/* A syscall note's action as the tables spell it: the .pol action, then
 * for a conditional rule " if " and the condition over argN
 * (cs_profile_table.h); also what sbx builds a user's policy with
 * (gen/profile), so both name a rule alike. Caller frees; NULL: no memory. */
char *emit_c_pol_note_action(const struct pol_rule *r);

/* header_name: how profiles.c includes profiles.h; generator: "pnetc 0.1.0"
 * for the banner; n_routes: how many routes profiles.c defines
 * (emit_c_routes.h, written after the profiles). */
int emit_c_pol_header(FILE *out, const struct emit_pol_sources *src,
                      const struct emit_pol_compiled *c, size_t n, size_t n_routes,
                      const char *generator);
int emit_c_pol_source(FILE *out, const struct emit_pol_sources *src,
                      const struct emit_pol_compiled *c, size_t n, const char *header_name,
                      const char *generator);

#endif
