/* sbx_mount: the sandbox's private root view, built from the plan
 * (sbx_mount.c; cold: by pid 1, warm: a template's and each run's). */
#ifndef CS_RUNTIME_SBX_MOUNT_H
#define CS_RUNTIME_SBX_MOUNT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sbx_fail.h"
#include "sbx_plan.h"

/* The kernel's new mount API, by number and value (Debian 12's glibc
 * headers name none of it): open_tree, move_mount, mount_setattr and
 * their flags, shared by the view (sbx_mount.c), the idmapped workspace
 * (sbx_idmap.c) and the feature probe (sbx_features.c). */
#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#define SBX_OPEN_TREE_CLONE 1u
#define SBX_MOVE_MOUNT_F_EMPTY_PATH 0x4u
#define SBX_MOUNT_ATTR_RDONLY 0x1ull
#define SBX_MOUNT_ATTR_NOSUID 0x2ull
#define SBX_MOUNT_ATTR_NODEV 0x4ull
#define SBX_MOUNT_ATTR_NOEXEC 0x8ull
#define SBX_MOUNT_ATTR_IDMAP 0x100000ull

/* struct mount_attr of mount_setattr(2). */
struct sbx_mount_attr {
  uint64_t attr_set;
  uint64_t attr_clr;
  uint64_t propagation;
  uint64_t userns_fd;
};

/* Runs as pid 1 of the new namespaces: builds the root view and pivots into
 * it. Returns 0 or -errno with *f filled. */
int sbx_mount_build(const struct sbx_plan *plan, struct sbx_fail *f);
/* Warm start (runtime/warm/sbx_serve_tmpl.c): the run-independent part of the same view, in
 * a template's own mount namespace: /proc, /tmp and /dev/shm are left as
 * empty mount points for each run's own. */
int sbx_mount_template(const struct sbx_plan *plan, struct sbx_fail *f);
/* Per run, in a private copy of a template's mount namespace: a fresh
 * /tmp (the plan's entries under /tmp moved onto it), /dev/shm and /proc,
 * exactly as sbx_mount_build makes them; then chdir to the workspace. */
int sbx_mount_fresh(const struct sbx_plan *plan, struct sbx_fail *f);
/* As pid 1 of the sandbox's pid namespace, before the command exists: no
 * executable memfd in that namespace for a profile without a shell
 * (sbx_memfd.c). 0 also when the kernel or a user namespace does not
 * offer it (the filter is the profile's layer); -errno with *f filled. */
int sbx_memfd_noexec(const struct sbx_plan *plan, struct sbx_fail *f);
/* Binds src at dst (an existing mount point) as an idmapped mount whose
 * on-disk uid 0 and gid 0 are uid/gid, with the mount attributes `attrs`
 * (MOUNT_ATTR_*), recursively (sbx_idmap.c); `procfs`: where the host's
 * /proc is. 0 or -errno. */
int sbx_bind_idmapped(const char *src, const char *dst, uint64_t attrs, uid_t uid, gid_t gid,
                      const char *procfs);
/* Can a template and sbx_mount_fresh reproduce this plan's view? (Not
 * over the host's root; no symlink entry under /tmp.) */
bool sbx_mount_warm_ok(const struct sbx_plan *plan);

#endif
