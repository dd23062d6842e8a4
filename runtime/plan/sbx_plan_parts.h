/* sbx_plan_parts: what the files of the plan share (sbx_plan.c,
 * sbx_plan_git.c, sbx_plan_shells.c, sbx_plan_env.c, sbx_plan_noexec.c,
 * sbx_probe.c). Not
 * used outside them: the plan's API is sbx_plan.h. */
#ifndef CS_RUNTIME_SBX_PLAN_PARTS_H
#define CS_RUNTIME_SBX_PLAN_PARTS_H

#include <stdbool.h>
#include <stdint.h>

#include "sbx_plan.h"

struct sbx_fail;

/* The directories programs are looked up in (the sandbox's PATH). */
extern const char *const sbx_bin_dirs[];

/* Records a fact the plan is about to use (warm templates only). */
void sbx_probe(struct sbx_plan *p, const char *path, enum sbx_probe_kind kind);
/* Appends a mount entry / a Landlock rule to the plan; 0 or -ENOMEM. */
int sbx_plan_mount(struct sbx_plan *p, const char *path, enum sbx_mount_kind kind,
                   const char *target, bool is_dir, const char *why);
int sbx_plan_rule(struct sbx_plan *p, const char *path, uint64_t access, bool optional);
/* Adds a host path to the view at the same place (a symlink recreated,
 * anything else bound); absent: nothing. 0 or a negative errno. */
int sbx_plan_host_entry(struct sbx_plan *p, const char *path, bool rw, const char *why);
/* Landlock rights for a profile rule's access bits (deletion as the
 * profile's allow_file_delete says). */
uint64_t sbx_rule_rights(const struct cs_profile *prof, uint32_t access);
/* Does the view (as planned so far) show `path`? */
bool sbx_is_visible(const struct sbx_plan *p, const char *path);

/* The parts of a plan planned in their own files; 0 or a negative errno
 * (-ELOOP: a symlinked .git, .git/config or .git/hooks). */
/* Git (sbx_plan_git.c): every file through which git takes configuration
 * or code kept unchangeable in a writable workspace. `home`: the host's
 * HOME (for `~/` in include paths; may be NULL). `legacy`: the protection
 * as before issue 12 (SBX_RUN_TEST_GIT_LEGACY, tests only). 0, or a
 * negative errno with a message in err. */
int sbx_plan_git(struct sbx_plan *p, const char *home, bool legacy, char *err, size_t err_len);
/* The identity the command runs as (run_as, run_uid, run_gid); needs
 * p->uid and p->workspace. `keep_root`: SBX_RUN_TEST_HOST_ROOT. */
int sbx_plan_identity(struct sbx_plan *p, bool keep_root, struct sbx_fail *f);
int sbx_plan_shells(struct sbx_plan *p);
/* The sandbox's home (sbx_plan_home.c): the profile's read-only names of
 * the real home `home` and its persistent directories, bound below
 * SBX_SANDBOX_HOME; `ws` the resolved workspace, `dreal` the resolved
 * denied paths (NULL entries: absent). Then the request's extra path.
 * 0, or a negative errno with *f filled. */
int sbx_plan_home(struct sbx_plan *p, const char *home, const char *ws, char *const *dreal,
                  struct sbx_fail *f);
int sbx_plan_extra(struct sbx_plan *p, const struct sbx_run_request *req, const char *ws,
                   char *const *dreal, struct sbx_fail *f);
/* Is `path` in one of the system trees the view builds itself or binds
 * read-only (/usr, /etc, /proc, /dev, /tmp, /sys, ...)? */
bool sbx_is_system_path(const char *path);
/* Marks every mount no Landlock EXECUTE rule reaches noexec (and the
 * private /tmp, /dev/shm, the host root as base); `keep_exec`: the tests'
 * negative control (SBX_RUN_TEST_EXEC_MOUNTS) leaves every mount as before. */
void sbx_plan_noexec(struct sbx_plan *p, bool keep_exec);

#endif
