/* emit_oci: a rule set as an OCI/Docker seccomp profile (JSON), for
 * `pnetc --emit oci` (docs/bpf-layout.md, "OCI mapping").
 *
 * The profile means under runc + libseccomp exactly what the rule set means
 * under first-match (tests/bpf check it by loading the export the runc way
 * and comparing every input):
 *   - libseccomp has no rule order, so each rule is exported as its
 *     first-match region: the rule AND NOT every earlier rule of the call;
 *     all regions are disjoint, so libseccomp never has to unite
 *     overlapping rules (2.5.4 gets some such unions wrong);
 *   - an entry ANDs conditions on distinct arguments only (runc ORs repeated
 *     indexes), so the conditions on one argument become a union of single
 *     conditions: <=, >=, ==, or aligned value blocks as masked ==;
 *   - a 32-bit argument (is32) is only ever compared with a masked == whose
 *     mask covers the low word: exact, whatever the high word holds;
 * It fails (message naming the rule, -EINVAL) rather than weaken the policy
 * when: a call is unknown to libseccomp (runc would skip it), a value needs
 * 2^63 or more (jansson/runc JSON integers), a region needs more than 1024
 * entries, an argument mixes 32- and 64-bit comparisons or a mask with a
 * range, or the rule set accepts the x32 ABI (runc would apply the x86_64
 * rules to it by name).
 * Output is deterministic JSON (insertion order, two-space indent) with a
 * "comment" member naming the generator and the input, and each entry's
 * "comment" naming the rule it comes from.
 *
 * Returns 0, -EINVAL (message printed) or -ENOMEM / -EIO. */
#ifndef CS_GEN_EMIT_OCI_H
#define CS_GEN_EMIT_OCI_H

#include <stdio.h>

#include "sc_rules.h"

int oci_export_ruleset(FILE *out, const struct sc_ruleset *rs);

#endif
