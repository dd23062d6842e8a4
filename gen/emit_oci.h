/* emit_oci: a rule set as an OCI/Docker seccomp profile (JSON), for
 * `pnetc --emit oci` (docs/bpf-layout.md, "OCI mapping").
 *
 * The profile must mean under runc + libseccomp what the rule set means
 * under first-match; where libseccomp's semantics cannot say it the export
 * fails rather than weaken the policy:
 *   - per system call, the rules that can still decide must share one
 *     action (libseccomp has no order between overlapping rules of different
 *     actions) — rules after an unconditional one and trailing rules with
 *     the default action are dropped first, since they change nothing;
 *   - a clause naming one argument twice is refused (runc would OR the two
 *     conditions);
 *   - a 32-bit argument (is32) compared with == or masked == becomes
 *     SCMP_CMP_MASKED_EQ with a 0xffffffff mask (exact); < and <= in an
 *     allow/log rule become 64-bit compares, which refuse a set high word
 *     (stricter, reported as a warning); anything else is refused;
 *   - the x32 ABI cannot be exported (runc would apply the x86_64 rules to
 *     it by name).
 * Output is deterministic JSON (insertion order, two-space indent) with a
 * "comment" member naming the generator and the input.
 *
 * Returns 0, -EINVAL (message printed) or -ENOMEM / -EIO. */
#ifndef CS_GEN_EMIT_OCI_H
#define CS_GEN_EMIT_OCI_H

#include <stdio.h>

#include "sc_rules.h"

int oci_export_ruleset(FILE *out, const struct sc_ruleset *rs);

#endif
