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

#include "sbx_landlock.h"

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

/* The directory of the last per-file rule, kept open: per-file rules come
 * a directory at a time (~1,000 in /usr/bin) and are opened relative to it
 * instead of walking the full path each time. */
struct sbx_ll_dir {
  int fd;
  const char *path;
  size_t len;
  char buf[4096];
};

/* Opens the path of rule r (O_PATH); -1 with errno on failure. A change of
 * directory flushes `batch` first (its runs stay above the directory's
 * descriptor), when given. */
static int sbx_ll_open_rule(const struct sbx_ll_rule *r, struct sbx_ll_dir *d,
                            struct sbx_ll_fds *batch)
{
  const char *slash = strrchr(r->path, '/');
  if (r->is_file && slash && slash != r->path) {
    size_t dl = (size_t)(slash - r->path);
    if (d->fd < 0 || dl != d->len || strncmp(r->path, d->path, dl) != 0) {
      if (batch)
        sbx_ll_fds_flush(batch);
      if (d->fd >= 0)
        close(d->fd);
      d->path = r->path;
      d->len = dl;
      snprintf(d->buf, sizeof d->buf, "%.*s", (int)dl, r->path);
      d->fd = open(d->buf, O_PATH | O_DIRECTORY | O_CLOEXEC);
    }
    return d->fd >= 0 ? openat(d->fd, slash + 1, O_PATH | O_CLOEXEC | O_NOFOLLOW) : -1;
  }
  return open(r->path, O_PATH | O_CLOEXEC);
}

/* Adds one directory-level rule opened by path; an absent optional path
 * adds nothing. */
static int sbx_ll_add(int ruleset, const struct sbx_ll_rule *r, uint64_t handled,
                      struct sbx_fail *f)
{
  struct sbx_ll_path_beneath pb = { .allowed_access = r->access & handled };
  int fd = open(r->path, O_PATH | O_CLOEXEC | O_DIRECTORY);
  if (fd < 0) {
    if (r->optional && (errno == ENOENT || errno == EACCES))
      return 0;
    sbx_fail_set(f, SBX_LAYER_LANDLOCK, errno, "open rule path %s: %s", r->path, strerror(errno));
    return -errno;
  }
  pb.parent_fd = fd;
  if (pb.allowed_access &&
      syscall(SYS_landlock_add_rule, ruleset, SBX_LL_RULE_PATH_BENEATH, &pb, 0) < 0) {
    int e = errno;
    sbx_fail_set(f, SBX_LAYER_LANDLOCK, e, "landlock_add_rule %s: %s", r->path, strerror(e));
    close(fd);
    return -e;
  }
  close(fd);
  return 0;
}

/* Is rule r on a file system each run mounts for itself (its /tmp,
 * /dev/shm, /proc)? Such a rule must be opened in the run's own view. Entries
 * under /tmp that the plan binds from the host are the host's files. */
static bool sbx_ll_per_run(const struct sbx_plan *plan, const struct sbx_ll_rule *r)
{
  const char *p = r->path;
  if (strcmp(p, "/tmp") == 0 || strcmp(p, "/dev/shm") == 0 || strncmp(p, "/dev/shm/", 9) == 0 ||
      strcmp(p, "/proc") == 0 || strncmp(p, "/proc/", 6) == 0)
    return true;
  if (strncmp(p, "/tmp/", 5) != 0)
    return false;
  for (size_t i = 0; i < plan->n_mounts; i++) {
    const struct sbx_mount_entry *e = &plan->mounts[i];
    size_t n = strlen(e->path);
    if ((e->kind == SBX_MNT_BIND_RO || e->kind == SBX_MNT_BIND_RW) && strncmp(p, e->path, n) == 0 &&
        (p[n] == '\0' || p[n] == '/'))
      return false;
  }
  return true;
}

/* Builds a ruleset of the plan (every path opened in the current view)
 * without restricting anyone (sbx_landlock.h, enum sbx_ll_part). */
int sbx_landlock_ruleset(const struct sbx_plan *plan, enum sbx_ll_part part, int *out,
                         struct sbx_fail *f)
{
  struct sbx_ll_ruleset_attr attr = { 0 };
  size_t attr_size;
  int abi = plan->landlock_abi, ruleset = -1, rc = 0;
  struct sbx_ll_dir d = { .fd = -1 };
  const char *ruled_dir = NULL;
  size_t ruled_len = 0;
  uint64_t handled = sbx_ll_fs_rights(abi);
  struct sbx_ll_fds batch = { -1, -1 };

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
    int fd;
    if (part == SBX_LL_SHARED && sbx_ll_per_run(plan, r))
      continue; /* the "/" rule below stands for it in this layer */
    if (part == SBX_LL_RUN && r->is_file) {
      /* The per-file EXECUTE grants are the shared layer's; here their
       * directory as a whole, once: the intersection is the file list. */
      const char *slash = strrchr(r->path, '/');
      size_t dl = slash ? (size_t)(slash - r->path) : 0;
      struct sbx_ll_rule dr = { .access = r->access, .optional = true };
      char dir[4096];
      if (!slash || (ruled_dir && dl == ruled_len && strncmp(r->path, ruled_dir, dl) == 0))
        continue;
      ruled_dir = r->path;
      ruled_len = dl;
      snprintf(dir, sizeof dir, "%.*s", (int)dl, r->path);
      dr.path = dir;
      if ((rc = sbx_ll_add(ruleset, &dr, handled, f)) < 0)
        goto cleanup;
      continue;
    }
    fd = sbx_ll_open_rule(r, &d, &batch);
    if (fd < 0) {
      if (r->optional && (errno == ENOENT || errno == EACCES))
        continue;
      rc = -errno;
      sbx_fail_set(f, SBX_LAYER_LANDLOCK, errno, "open rule path %s: %s", r->path, strerror(errno));
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
  if (part == SBX_LL_SHARED) {
    /* Every right but EXECUTE on the whole view: this layer decides only
     * what may be executed; the run's layer decides everything else. */
    struct sbx_ll_rule root = { .path = (char *)"/", .access = handled & ~SBX_LL_FS_EXECUTE };
    if ((rc = sbx_ll_add(ruleset, &root, handled, f)) < 0)
      goto cleanup;
  }
  *out = ruleset;
  ruleset = -1;
cleanup:
  sbx_ll_fds_flush(&batch);
  if (d.fd >= 0)
    close(d.fd);
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
  int rc = sbx_landlock_ruleset(plan, SBX_LL_ALL, &ruleset, f);
  if (rc == 0)
    rc = sbx_landlock_restrict(ruleset, plan->landlock_abi, f);
  if (ruleset >= 0)
    close(ruleset);
  return rc;
}
