/* sbx_confine: run one command confined by every layer of a security
 * profile (struct cs_profile, runtime/include/cs_profile_table.h) on Linux.
 *
 * This is the enforcement half of `sbx run`; the CLI (runtime/cli/sbx_main.c)
 * chooses the profile, performs admission and writes the audit log, then
 * calls sbx_confine_run(). `sbx check` uses sbx_probe_features() and
 * sbx_profile_enforceable(); `sbx explain` may use sbx_features_describe().
 *
 * Layers applied, in order (docs/confinement.md has the per-profile detail,
 * docs/threat-model.md says what each one stops):
 *   1. namespaces: user (only when sbx is not root), mount, pid, ipc, uts,
 *      cgroup, and net whenever the profile blocks the network;
 *   2. mount view: a private root on a tmpfs with read-only system
 *      directories, the workspace (read-write only when allowed), denied
 *      paths masked, private /tmp, minimal /dev, a fresh /proc;
 *   3. cgroup (pids, memory) when the machine delegates it, rlimits always;
 *   4. new session (setsid), every inherited descriptor above 2 closed,
 *      environment reduced to an allowlist;
 *   5. no_new_privs, Landlock (filesystem, TCP, scoping), every capability
 *      dropped with securebits locked;
 *   6. the profile's seccomp filter, loaded last, then execve (no shell).
 * pid 1 of the new pid namespace is sbx's own init: it reaps, reports the
 * command's status and exits, and its death kills every process left in the
 * sandbox (a daemonised grandchild does not outlive the run).
 *
 * Fail closed: if any layer cannot be applied the command is not executed,
 * the outcome is SBX_OUTCOME_FAILED with exit code 125 and a message naming
 * the layer. A missing kernel feature a profile needs is a refusal, never a
 * silent downgrade.
 *
 * Errors: functions returning int return 0 or a negative errno from this
 * list: -EINVAL (bad request or contradictory profile), -ENOMEM, -ENOTSUP
 * (kernel lacks a feature the profile needs), -EACCES (the workspace lies in
 * a denied path), -ELOOP (a symlinked .git, .git/config or .git/hooks),
 * -ESTALE (a path changed between planning and mounting), -EPERM (the kernel
 * refused a layer), -EIO (supervisor channel failure), or any errno a system
 * call reported while setting up. `sbx explain` can print the exact plan with
 * sbx_confine_describe(). */
#ifndef CS_RUNTIME_SBX_CONFINE_H
#define CS_RUNTIME_SBX_CONFINE_H

#include <stdio.h>

#include "sbx_request.h"

/* Runs req->argv confined by every layer of req->profile; blocks until the
 * command and everything it started are gone. Not thread-safe with other
 * fork()ing threads of the caller (it clones); if the caller ignores
 * SIGCHLD it is set to the default for the duration of the call and
 * restored. The command never inherits ignored or blocked signals. Always fills *res. Returns 0
 * when the command was started (whatever its outcome), a negative errno when
 * sbx refused or failed before the command ran (res->outcome FAILED, 125). */
int sbx_confine_run(const struct sbx_run_request *req, struct sbx_run_result *res);

/* Probes the running kernel without changing anything outside short-lived
 * child processes. Returns 0 or -ENOMEM/-errno of a failed probe fork. */
int sbx_probe_features(struct sbx_features *f);

/* Prints the probe as `name: value  (why it matters)` lines, for `sbx check`. */
void sbx_features_describe(const struct sbx_features *f, FILE *out);

/* The Landlock ABI a profile needs: 1 for files, 3 for truncate control, 4
 * for TCP when the network is blocked, 6 for signal/abstract-unix scoping. */
int sbx_profile_landlock_abi(const struct cs_profile *p);

/* 0 when every layer of *p can be enforced on a kernel with *f; otherwise
 * -ENOTSUP and `why` says which layer and what is missing ("landlock: the
 * profile needs ABI 6 (signal and abstract unix socket scoping), the kernel
 * offers 3"). -EINVAL for a malformed profile (no filter, no limits). */
int sbx_profile_enforceable(const struct cs_profile *p, const struct sbx_features *f, char *why,
                            size_t why_len);

/* Prints what sbx_confine_run would set up for *req on this kernel, without
 * running anything: namespaces, every mount of the view (kind, path, why),
 * every Landlock rule with its rights, limits and the environment. For
 * `sbx explain --workspace` and auditors. Returns 0 or a negative errno
 * (the message of a refusal is printed). */
int sbx_confine_describe(const struct sbx_run_request *req, FILE *out);

#endif
