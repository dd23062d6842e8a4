/* sbx_cgroup: optional cgroup limits for one run. rlimits are per process
 * (RLIMIT_DATA) or per user (RLIMIT_NPROC, and not enforced at all for uid 0),
 * so a cgroup is what bounds the whole sandbox: pids.max stops a fork bomb
 * even when sbx runs as root, memory.max bounds the sum of all processes.
 *
 * Used when the machine allows it, in this order:
 *   v2: our own cgroup in the unified hierarchy delegates "memory" and
 *       "pids" (both listed in its cgroup.subtree_control) and is writable;
 *   v1: a writable "pids" hierarchy (pids.max only: sbx does not create
 *       memory cgroups inside a v1 memory hierarchy it does not own).
 * Otherwise rlimits only, and `sbx check` says so. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "sbx_cgroup.h"

#define SBX_CGROUP2_MAGIC 0x63677270
#define SBX_CGROUP1_MAGIC 0x27e0eb
/* The detail line is a one-line message; a longer cgroup path is cut there
 * (it is in /proc/self/cgroup for the full story). */
#define SBX_DETAIL_PATH_MAX 64

/* The path of our cgroup for a v1 controller ("pids") or v2 (NULL). */
static int sbx_cgroup_self(const char *controller, char *out, size_t len)
{
  char line[512];
  FILE *fp = fopen("/proc/self/cgroup", "re");
  int rc = -ENOENT;
  if (!fp)
    return -errno;
  while (fgets(line, sizeof line, fp)) {
    char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c2)
      continue;
    *c2 = '\0';
    line[strcspn(line, "\n")] = '\0';
    c2[1 + strcspn(c2 + 1, "\n")] = '\0';
    /* v2's line is "0::PATH": hierarchy 0, no controller list. (line
     * still holds the first ':' here, so it is compared by position.) */
    if (controller ? strcmp(c1 + 1, controller) == 0
                   : (c1 == line + 1 && line[0] == '0' && c1[1] == '\0')) {
      snprintf(out, len, "%s", c2 + 1);
      rc = 0;
      break;
    }
  }
  fclose(fp);
  return rc;
}

static bool sbx_fs_is(const char *path, long magic)
{
  struct statfs sf;
  return statfs(path, &sf) == 0 && (long)sf.f_type == magic;
}

static bool sbx_file_has_word(const char *path, const char *word)
{
  char buf[512], *save = NULL;
  FILE *fp = fopen(path, "re");
  bool found = false;
  if (!fp)
    return false;
  if (fgets(buf, sizeof buf, fp))
    for (char *t = strtok_r(buf, " \n", &save); t; t = strtok_r(NULL, " \n", &save))
      if (strcmp(t, word) == 0)
        found = true;
  fclose(fp);
  return found;
}

/* Finds the v2 dir (mode V2) or v1 pids dir (mode V1) we may create in. */
static enum sbx_cgroup_mode sbx_cgroup_find(char *dir, size_t len, char *detail, size_t dlen)
{
  char self[256], path[PATH_MAX], ctl[PATH_MAX + 32];
  const char *v2root = NULL;
  if (sbx_fs_is("/sys/fs/cgroup", SBX_CGROUP2_MAGIC))
    v2root = "/sys/fs/cgroup";
  else if (sbx_fs_is("/sys/fs/cgroup/unified", SBX_CGROUP2_MAGIC))
    v2root = "/sys/fs/cgroup/unified";
  if (v2root && sbx_cgroup_self(NULL, self, sizeof self) == 0) {
    snprintf(path, sizeof path, "%s%s", v2root, strcmp(self, "/") == 0 ? "" : self);
    snprintf(ctl, sizeof ctl, "%s/cgroup.subtree_control", path);
    if (sbx_file_has_word(ctl, "pids") && sbx_file_has_word(ctl, "memory") &&
        access(path, W_OK) == 0) {
      snprintf(dir, len, "%s", path);
      snprintf(detail, dlen, "cgroup v2 at %.*s delegates memory and pids", SBX_DETAIL_PATH_MAX,
               path);
      return SBX_CGROUP_V2;
    }
    /* Root may place the run's cgroup directly under the hierarchy's root
     * (where systemd enables memory and pids), like a service manager. */
    snprintf(ctl, sizeof ctl, "%s/cgroup.subtree_control", v2root);
    if (geteuid() == 0 && sbx_file_has_word(ctl, "pids") && sbx_file_has_word(ctl, "memory") &&
        access(v2root, W_OK) == 0) {
      snprintf(dir, len, "%s", v2root);
      snprintf(detail, dlen, "cgroup v2 root %s has memory and pids (sbx is root)", v2root);
      return SBX_CGROUP_V2;
    }
  }
  if (sbx_fs_is("/sys/fs/cgroup/pids", SBX_CGROUP1_MAGIC) &&
      sbx_cgroup_self("pids", self, sizeof self) == 0) {
    snprintf(path, sizeof path, "/sys/fs/cgroup/pids%s", strcmp(self, "/") == 0 ? "" : self);
    if (access(path, W_OK) == 0) {
      snprintf(dir, len, "%s", path);
      snprintf(detail, dlen,
               "%scgroup v1 pids at %.*s (pids.max only; memory by RLIMIT_DATA per process)",
               v2root ? "cgroup v2 does not delegate memory+pids here; " : "", SBX_DETAIL_PATH_MAX,
               path);
      return SBX_CGROUP_V1;
    }
  }
  snprintf(detail, dlen, "no delegated cgroup (v2 memory+pids or writable v1 pids): rlimits only");
  return SBX_CGROUP_NONE;
}

enum sbx_cgroup_mode sbx_cgroup_detect(char *detail, size_t detail_len)
{
  char dir[PATH_MAX];
  return sbx_cgroup_find(dir, sizeof dir, detail, detail_len);
}

static int sbx_write_file(const char *dir, const char *name, const char *value)
{
  char path[PATH_MAX];
  int fd, rc = 0;
  size_t n = strlen(value);
  snprintf(path, sizeof path, "%s/%s", dir, name);
  fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  if (write(fd, value, n) != (ssize_t)n)
    rc = -errno;
  close(fd);
  return rc;
}

/* Removes the empty cgroups of earlier runs whose sbx is gone (a SIGKILLed
 * sbx cannot clean up after itself). rmdir only succeeds on an empty
 * cgroup, and a live owner's (or a reused pid's) cgroup is left alone. */
static void sbx_cgroup_reap_stale(const char *base)
{
  char path[PATH_MAX];
  struct dirent *de;
  DIR *dir = opendir(base);
  if (!dir)
    return;
  while ((de = readdir(dir))) {
    char *end;
    long pid;
    if (strncmp(de->d_name, "sbx-", 4) != 0)
      continue;
    pid = strtol(de->d_name + 4, &end, 10);
    if (end == de->d_name + 4 || *end != '-' || pid <= 0 || pid == (long)getpid())
      continue;
    if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
      continue;
    if (snprintf(path, sizeof path, "%s/%s", base, de->d_name) < (int)sizeof path)
      (void)rmdir(path);
  }
  closedir(dir);
}

int sbx_cgroup_create(const struct cs_profile *p, const struct sbx_features *feat,
                      struct sbx_cgroup *cg, struct sbx_fail *f)
{
  char base[PATH_MAX], detail[192], val[32];
  struct timespec ts;
  int rc;
  memset(cg, 0, sizeof *cg);
  cg->join_fd = -1;
  (void)feat;
  cg->mode = sbx_cgroup_find(base, sizeof base, detail, sizeof detail);
  if (cg->mode == SBX_CGROUP_NONE) {
    snprintf(cg->info, sizeof cg->info, "none (rlimits only)");
    return 0;
  }
  sbx_cgroup_reap_stale(base);
  clock_gettime(CLOCK_MONOTONIC, &ts);
  if (snprintf(cg->pids_dir, sizeof cg->pids_dir, "%s/sbx-%d-%ld", base, (int)getpid(),
               (long)(ts.tv_nsec & 0xffffff)) >= (int)sizeof cg->pids_dir) {
    rc = -ENAMETOOLONG;
    goto fail;
  }
  if (mkdir(cg->pids_dir, 0755) < 0) {
    rc = -errno;
    goto fail;
  }
  if (p->limits.max_processes) {
    snprintf(val, sizeof val, "%llu", (unsigned long long)p->limits.max_processes);
    if ((rc = sbx_write_file(cg->pids_dir, "pids.max", val)) < 0)
      goto fail;
  }
  if (cg->mode == SBX_CGROUP_V2 && p->limits.max_memory_bytes) {
    snprintf(val, sizeof val, "%llu", (unsigned long long)p->limits.max_memory_bytes);
    if ((rc = sbx_write_file(cg->pids_dir, "memory.max", val)) < 0 ||
        (rc = sbx_write_file(cg->pids_dir, "memory.swap.max", "0")) < 0)
      if (rc != -ENOENT)
        goto fail;
  }
  /* v1: sbx-init joins by writing "0" (itself) to `tasks`. Moving another
   * process by pid (cgroup.procs) takes the kernel's global threadgroup
   * lock for writing, which waits for an RCU grace period on every run
   * (1-30 ms here); a single thread moving itself does not need that lock
   * (kernel/cgroup/cgroup.c, cgroup_procs_write_start). init is single
   * threaded until it forks the command, so the whole sandbox is inside.
   * O_CLOEXEC, and init closes it before building the view: the command
   * never holds it. */
  if (cg->mode == SBX_CGROUP_V1) {
    char tasks[PATH_MAX];
    snprintf(tasks, sizeof tasks, "%s/tasks", cg->pids_dir);
    if ((cg->join_fd = open(tasks, O_WRONLY | O_CLOEXEC)) < 0) {
      rc = -errno;
      goto fail;
    }
  }
  snprintf(cg->info, sizeof cg->info, "cgroup %s pids.max=%llu%s",
           cg->mode == SBX_CGROUP_V2 ? "v2" : "v1", (unsigned long long)p->limits.max_processes,
           cg->mode == SBX_CGROUP_V2 ? " memory.max" : "");
  return 0;
fail:
  /* A cgroup the machine offers but sbx could not configure is a failure:
   * running without it would silently drop the process limit. */
  sbx_fail_set(f, SBX_LAYER_CGROUP, -rc, "%s: %s", cg->pids_dir[0] ? cg->pids_dir : base,
               strerror(-rc));
  sbx_cgroup_destroy(cg);
  return rc;
}

int sbx_cgroup_join(int join_fd)
{
  /* "0" is the writing thread itself (never a pid another process could
   * have taken over). */
  if (write(join_fd, "0", 1) != 1)
    return -errno;
  return 0;
}

int sbx_cgroup_attach(const struct sbx_cgroup *cg, pid_t pid)
{
  char val[32];
  if (cg->mode == SBX_CGROUP_NONE)
    return 0;
  snprintf(val, sizeof val, "%d", (int)pid);
  return sbx_write_file(cg->pids_dir, "cgroup.procs", val);
}

/* The v2 directory a freezer cgroup would be made in (sbx's own v2
 * cgroup), or -errno with the reason. */
static int sbx_cgroup_freezer_base(char *base, size_t len, char *why, size_t why_len)
{
  char self[256];
  const char *v2root = NULL;
  /* cgroup.freeze is a core file of every non-root v2 cgroup: no
   * controller has to be delegated, only a directory we may create in. */
  if (sbx_fs_is("/sys/fs/cgroup", SBX_CGROUP2_MAGIC))
    v2root = "/sys/fs/cgroup";
  else if (sbx_fs_is("/sys/fs/cgroup/unified", SBX_CGROUP2_MAGIC))
    v2root = "/sys/fs/cgroup/unified";
  if (!v2root || sbx_cgroup_self(NULL, self, sizeof self) != 0) {
    snprintf(why, why_len, "no cgroup v2 hierarchy to freeze the run in");
    return -ENOTSUP;
  }
  snprintf(base, len, "%s%s", v2root, strcmp(self, "/") == 0 ? "" : self);
  if (access(base, W_OK) != 0) {
    int rc = -errno;
    snprintf(why, why_len, "cgroup v2 %.64s not writable: %s", base, strerror(errno));
    return rc;
  }
  snprintf(why, why_len, "cgroup v2 under %.64s", base);
  return 0;
}

bool sbx_cgroup_freezer_detect(char *why, size_t why_len)
{
  char base[PATH_MAX], dir[PATH_MAX], detail[192];
  if (sbx_cgroup_find(dir, sizeof dir, detail, sizeof detail) == SBX_CGROUP_V2) {
    snprintf(why, why_len, "the run's cgroup v2");
    return true;
  }
  return sbx_cgroup_freezer_base(base, sizeof base, why, why_len) == 0;
}

int sbx_cgroup_freezer(struct sbx_cgroup *cg, pid_t init, char *why, size_t why_len)
{
  char base[PATH_MAX], val[32];
  struct timespec ts;
  int rc;

  if (cg->mode == SBX_CGROUP_V2) {
    snprintf(cg->freeze_dir, sizeof cg->freeze_dir, "%s", cg->pids_dir);
    return 0;
  }
  if ((rc = sbx_cgroup_freezer_base(base, sizeof base, why, why_len)) != 0)
    return rc;
  sbx_cgroup_reap_stale(base);
  clock_gettime(CLOCK_MONOTONIC, &ts);
  if (snprintf(cg->freeze_dir, sizeof cg->freeze_dir, "%s/sbx-%d-%ld", base, (int)getpid(),
               (long)(ts.tv_nsec & 0xffffff)) >= (int)sizeof cg->freeze_dir) {
    cg->freeze_dir[0] = '\0';
    snprintf(why, why_len, "cgroup v2 path too long under %.64s", base);
    return -ENAMETOOLONG;
  }
  if (mkdir(cg->freeze_dir, 0755) < 0) {
    rc = -errno;
    snprintf(why, why_len, "creating a cgroup v2 under %.64s: %s", base, strerror(errno));
    cg->freeze_dir[0] = '\0';
    return rc;
  }
  cg->freeze_own = true;
  snprintf(val, sizeof val, "%d", (int)init);
  if ((rc = sbx_write_file(cg->freeze_dir, "cgroup.procs", val)) < 0) {
    snprintf(why, why_len, "moving the sandbox into %.64s: %s", cg->freeze_dir, strerror(-rc));
    (void)rmdir(cg->freeze_dir);
    cg->freeze_dir[0] = '\0';
    cg->freeze_own = false;
    return rc;
  }
  return 0;
}

void sbx_cgroup_destroy(struct sbx_cgroup *cg)
{
  if (cg->freeze_own && cg->freeze_dir[0]) {
    for (int i = 0; i < 50 && rmdir(cg->freeze_dir) < 0 && errno == EBUSY; i++)
      usleep(2000);
  }
  cg->freeze_dir[0] = '\0';
  cg->freeze_own = false;
  if (cg->mode != SBX_CGROUP_NONE && cg->join_fd >= 0)
    close(cg->join_fd);
  cg->join_fd = -1;
  if (cg->pids_dir[0]) {
    /* The pid namespace is gone when this runs; rmdir can still race with
     * the kernel releasing the last task, so retry briefly. */
    for (int i = 0; i < 50 && rmdir(cg->pids_dir) < 0 && errno == EBUSY; i++)
      usleep(2000);
  }
  cg->pids_dir[0] = '\0';
  cg->mode = SBX_CGROUP_NONE;
}
