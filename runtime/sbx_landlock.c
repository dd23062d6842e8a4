/* sbx_landlock: the second, independent filesystem layer (and the TCP and
 * scoping layer). It is applied inside the finished mount view, so even a
 * mistake in the view (a path shown that should not be) is still refused
 * unless a rule of the profile grants it. Landlock is an allowlist: every
 * access right the kernel knows is "handled", and only the rules below give
 * any back. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sbx_denial.h"
#include "sbx_internal.h"

#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

/* The kernel's struct landlock_ruleset_attr as of ABI 6; the size passed
 * tells an older kernel which fields this caller knows. */
struct sbx_ll_ruleset_attr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net; /* ABI 4 */
  uint64_t scoped;             /* ABI 6 */
};

struct sbx_ll_path_beneath {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));

/* Descriptors of per-file rules are closed a run at a time: one
 * close_range for up to SBX_LL_BATCH consecutive descriptors instead of one
 * close each (~1,000 per run for the no-shell profiles). */
#define SBX_LL_BATCH 32

struct sbx_ll_fds {
  int first, next; /* open run [first, next); first < 0: none */
};

static void sbx_ll_fds_flush(struct sbx_ll_fds *b)
{
  if (b->first >= 0 && syscall(SYS_close_range, (unsigned)b->first, (unsigned)(b->next - 1), 0) < 0)
    for (int fd = b->first; fd < b->next; fd++)
      close(fd);
  b->first = -1;
}

/* Takes ownership of fd (a per-file rule's, already added). */
static void sbx_ll_fds_add(struct sbx_ll_fds *b, int fd)
{
  if (b->first >= 0 && (fd != b->next || b->next - b->first >= SBX_LL_BATCH))
    sbx_ll_fds_flush(b);
  if (b->first < 0)
    b->first = fd;
  b->next = fd + 1;
}

struct sbx_ll_net_port {
  uint64_t allowed_access;
  uint64_t port;
};

/* Builds the ruleset of the plan (every path opened in the current view)
 * without restricting anyone: a warm spare (sbx_serve.c) builds it in its
 * finished view before its request arrives; the command restricts itself
 * with it (sbx_landlock_restrict). */
int sbx_landlock_ruleset(const struct sbx_plan *plan, int *out, struct sbx_fail *f)
{
  struct sbx_ll_ruleset_attr attr = {0};
  size_t attr_size;
  int abi = plan->landlock_abi, ruleset = -1, rc = 0, dir_fd = -1;
  const char *dir_path = NULL;
  size_t dir_len = 0;
  char dirbuf[4096];
  uint64_t handled = sbx_ll_fs_rights(abi);
  struct sbx_ll_fds batch = {-1, -1};

  *out = -1;

  if (abi < 1) {
    /* sbx_profile_enforceable refuses such runs; this is the last guard. */
    sbx_fail_set(f, SBX_LAYER_LANDLOCK, ENOTSUP, "the kernel offers no Landlock: refusing");
    return -ENOTSUP;
  }
  attr.handled_access_fs = handled;
  attr_size = sizeof(uint64_t);
  if (abi >= 4) {
    attr_size = 2 * sizeof(uint64_t);
    /* TCP bind/connect refused whenever the network is blocked: the empty
     * network namespace is the first layer, this one holds even if a
     * socket from outside were smuggled in. */
    if (plan->net_blocked)
      attr.handled_access_net = SBX_LL_NET_BIND_TCP | SBX_LL_NET_CONNECT_TCP;
  }
  if (abi >= 6) {
    attr_size = sizeof attr;
    /* No signals to processes outside the sandbox's Landlock domain and no
     * connecting to abstract unix sockets created outside it (those live in
     * the network namespace, which is shared when the network is allowed). */
    attr.scoped = SBX_LL_SCOPE_ABSTRACT_UNIX_SOCKET | SBX_LL_SCOPE_SIGNAL;
  }
  ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
  if (ruleset < 0) {
    rc = -errno;
    sbx_fail_set(f, SBX_LAYER_LANDLOCK, errno, "landlock_create_ruleset (ABI %d): %s", abi,
                 strerror(errno));
    goto cleanup;
  }
  for (size_t i = 0; i < plan->n_rules; i++) {
    const struct sbx_ll_rule *r = &plan->rules[i];
    struct sbx_ll_path_beneath pb;
    struct stat st;
    const char *slash = strrchr(r->path, '/');
    int fd;
    /* Per-file rules come a directory at a time (~1,000 in /usr/bin): open
     * them relative to their directory instead of walking the full path. */
    if (r->is_file && slash && slash != r->path) {
      size_t dl = (size_t)(slash - r->path);
      if (dir_fd < 0 || dl != dir_len || strncmp(r->path, dir_path, dl) != 0) {
        sbx_ll_fds_flush(&batch); /* the runs stay above dir_fd */
        if (dir_fd >= 0)
          close(dir_fd);
        dir_path = r->path;
        dir_len = dl;
        snprintf(dirbuf, sizeof dirbuf, "%.*s", (int)dl, r->path);
        dir_fd = open(dirbuf, O_PATH | O_DIRECTORY | O_CLOEXEC);
      }
      fd = dir_fd >= 0 ? openat(dir_fd, slash + 1, O_PATH | O_CLOEXEC | O_NOFOLLOW) : -1;
    } else
      fd = open(r->path, O_PATH | O_CLOEXEC);
    if (fd < 0) {
      if (r->optional && (errno == ENOENT || errno == EACCES))
        continue;
      rc = -errno;
      sbx_fail_set(f, SBX_LAYER_LANDLOCK, errno, "open rule path %s: %s", r->path,
                   strerror(errno));
      goto cleanup;
    }
    pb.parent_fd = fd;
    pb.allowed_access = r->access & handled;
    if (r->is_file || (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)))
      pb.allowed_access &= SBX_LL_FS_FILE_RIGHTS;
    if (pb.allowed_access &&
        syscall(SYS_landlock_add_rule, ruleset, SBX_LL_RULE_PATH_BENEATH, &pb, 0) < 0) {
      rc = -errno;
      sbx_fail_set(f, SBX_LAYER_LANDLOCK, errno, "landlock_add_rule %s: %s", r->path,
                   strerror(errno));
      close(fd);
      goto cleanup;
    }
    if (r->is_file)
      sbx_ll_fds_add(&batch, fd);
    else
      close(fd);
  }
  *out = ruleset;
  ruleset = -1;
cleanup:
  sbx_ll_fds_flush(&batch);
  if (dir_fd >= 0)
    close(dir_fd);
  if (ruleset >= 0)
    close(ruleset);
  return rc;
}

/* Restricts the calling thread with a finished ruleset (no_new_privs is
 * already set). The ruleset stays open: the caller owns it. */
int sbx_landlock_restrict(int ruleset, int abi, struct sbx_fail *f)
{
  int rc = 0;
  /* Logging flags (ABI 7, sbx_denial.h): refusals after the command's
   * execve are audited too, so sbx can name them (docs/confinement.md). */
  if (syscall(SYS_landlock_restrict_self, ruleset, sbx_ll_restrict_flags(abi)) < 0) {
    rc = -errno;
    sbx_fail_set(f, SBX_LAYER_LANDLOCK, errno, "landlock_restrict_self: %s", strerror(errno));
    goto cleanup;
  }
cleanup:
  return rc;
}

int sbx_landlock_apply(const struct sbx_plan *plan, struct sbx_fail *f)
{
  int ruleset = -1;
  int rc = sbx_landlock_ruleset(plan, &ruleset, f);
  if (rc == 0)
    rc = sbx_landlock_restrict(ruleset, plan->landlock_abi, f);
  if (ruleset >= 0)
    close(ruleset);
  return rc;
}
