/* sbx_trust: whether sbx may believe a file a user hands it as the rules
 * of a sandbox (a policy of `sbx --policy`, every file it includes, a
 * scheduler model of `--model`), and reading it without a gap between the
 * check and the read (docs/sbx.md, "Your own policies"; docs/threat-model.md).
 *
 * A file is refused when anyone but root and the caller could change what
 * it says, or the sandbox itself could:
 *   - it, or any directory on its resolved path, is owned by another user
 *     (an owner can always chmod), or is group- or world-writable (a
 *     sticky directory such as /tmp excepted: there, others cannot rename
 *     or remove the entry, and the entry itself must pass), or carries a
 *     POSIX ACL granting write to another user or to any group;
 *   - it lies inside the workspace, which the sandboxed command writes;
 *   - it has more than one hard link (another name, perhaps inside the
 *     workspace, would reach the same inode);
 *   - it is not a regular file (a FIFO, a device, a directory).
 * Symbolic links are resolved once (realpath); the resolved path is then
 * walked from / one component at a time with O_NOFOLLOW, each directory
 * checked on its open descriptor, so a link swapped in after the check
 * fails the walk instead of being followed. The file is read from the
 * descriptor that was checked.
 *
 * Every refusal is one line on err, "sbx: error: LAYER: PATH: why", and
 * a negative errno: -EPERM (untrusted), -ENOENT/-EACCES/... (cannot be
 * opened), -EFBIG (larger than the limit), -ENOMEM. */
#ifndef CS_RUNTIME_SBX_TRUST_H
#define CS_RUNTIME_SBX_TRUST_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

struct sbx_trust {
  const char *layer;     /* "policy", "model": the messages' layer */
  uid_t caller;          /* who runs sbx (the real uid); root is trusted too */
  const char *workspace; /* resolved workspace; NULL: none to keep out of */
};

/* Checks path and reads it whole (at most max bytes, NUL-terminated in
 * *data, which the caller frees); real receives the resolved path. */
int sbx_trust_read(const struct sbx_trust *t, const char *path, size_t max, char **data,
                   size_t *len, char *real, size_t real_size, FILE *err);

#endif
