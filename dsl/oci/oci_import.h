/* oci_import: an OCI runtime-spec / Docker seccomp profile (JSON) compiled
 * into an sc_ruleset for x86_64, so that the generated filter decides every
 * x86_64 system call and argument exactly like the filter runc builds with
 * libseccomp from the same profile, for a process holding NO capabilities.
 * The mapping (docs/bpf-layout.md, "OCI mapping"):
 *   - defaultAction/defaultErrnoRet -> default action (errno default EPERM);
 *   - entries whose includes.caps is non-empty are skipped (no capability is
 *     held); excludes.caps entries apply; includes.arches / excludes.arches
 *     are matched against amd64 (x86_64); includes.minKernel is compared with
 *     OCI_ASSUMED_KERNEL (a fixed baseline, so output never depends on the
 *     build host);
 *   - names unknown on x86_64 are skipped, as runc does, and reported;
 *   - an entry whose action equals the default action is skipped (runc too:
 *     libseccomp refuses such rules);
 *   - args: conditions on distinct arguments are ANDed; if two conditions
 *     name the same argument, runc adds one rule per condition, so they are
 *     ORed (one clause each); SCMP_CMP_MASKED_EQ: value is the mask,
 *     valueTwo the datum; comparisons are 64-bit (libseccomp's width);
 *   - per system call, libseccomp lets an unconditional rule supersede every
 *     conditional one: the first unconditional entry is placed first; two
 *     unconditional entries with different actions, or conditional entries
 *     with different actions, are rejected (libseccomp's verdict would hang on
 *     its internal tree order, or runc would refuse the profile);
 *   - the x32 ABI and foreign architectures (i386) get the bad-arch action
 *     kill-process (stricter than runc, which adds the sub-architectures).
 *
 * Errors are printed as file:line:col: error: ... and returned as negative
 * errnos: -EINVAL (bad input), -ENOMEM, -EIO (unreadable file). */
#ifndef CS_DSL_OCI_IMPORT_H
#define CS_DSL_OCI_IMPORT_H

#include <stddef.h>

#include "sc_rules.h"
#include "diag.h"

#define OCI_ASSUMED_KERNEL_MAJOR 5
#define OCI_ASSUMED_KERNEL_MINOR 13

struct oci_import_report {
  char **unknown_names; /* names skipped because x86_64 has no such call */
  size_t n_unknown;
  unsigned skipped_caps;    /* entries needing a capability */
  unsigned skipped_arch;    /* entries for other architectures */
  unsigned skipped_kernel;  /* entries needing a newer kernel than assumed */
  unsigned skipped_default; /* entries whose action is the default action */
};

/* Loads path into src (kept for diagnostics; the caller frees it with
 * diag_source_free) and fills rs. On error rs is left empty. */
int oci_import_file(const char *path, struct diag_source **src, struct sc_ruleset *rs,
                    struct oci_import_report *rep);
void oci_import_report_free(struct oci_import_report *rep);

#endif
