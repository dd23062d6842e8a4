/* sbx_plan_shells: no shell for a CS_SHELL_NONE profile, not even one the
 * command finds itself (sbx_plan_shells, called by sbx_plan.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "sbx_landlock_rights.h"
#include "sbx_plan.h"
#include "sbx_plan_parts.h"

/* Names of shells withheld from CS_SHELL_NONE profiles. busybox is in the
 * list because `busybox sh` is a shell; tmux because it starts one. */
static const char *const sbx_shell_names[] = { "sh",      "bash",  "dash",   "rbash", "zsh",
                                               "ksh",     "ksh93", "mksh",   "pdksh", "ash",
                                               "yash",    "posh",  "csh",    "tcsh",  "fish",
                                               "busybox", "tmux",  "screen", NULL };
/* Library hierarchies that must stay executable for the dynamic loader
 * (the kernel opens the ELF interpreter with exec intent) and for helper
 * programs (gcc's cc1, git-core). */
static const char *const sbx_lib_dirs[] = { "/usr/lib",    "/usr/lib32",   "/usr/lib64",
                                            "/usr/libx32", "/usr/libexec", NULL };

bool sbx_plan_is_shell(const char *command)
{
  char resolved[PATH_MAX];
  const char *names[2] = { command, NULL };
  /* A path may be a link to a shell under another name (/bin/sh ->
   * dash); the name the command was given and the file it names both
   * count. */
  if (strchr(command, '/') && realpath(command, resolved))
    names[1] = resolved;
  for (size_t i = 0; i < 2 && names[i]; i++) {
    const char *base = strrchr(names[i], '/');
    base = base ? base + 1 : names[i];
    for (const char *const *s = sbx_shell_names; *s; s++)
      if (strcmp(base, *s) == 0)
        return true;
  }
  return false;
}

struct sbx_inode {
  dev_t dev;
  ino_t ino;
};

static bool sbx_inode_in(const struct sbx_inode *set, size_t n, const struct stat *st)
{
  for (size_t i = 0; i < n; i++)
    if (set[i].dev == st->st_dev && set[i].ino == st->st_ino)
      return true;
  return false;
}

/* Filesystems whose readdir d_ino is the inode number stat() reports for
 * an entry that is not a mount point: ext2/3/4, XFS, btrfs, tmpfs. On any
 * other (overlayfs, network filesystems) every entry is stat()ed. */
static bool sbx_dino_is_ino(int dfd)
{
  struct statfs sf;
  if (fstatfs(dfd, &sf) < 0)
    return false;
  switch ((unsigned long)sf.f_type) {
  case 0xEF53UL:     /* ext2/3/4 */
  case 0x58465342UL: /* XFS */
  case 0x9123683EUL: /* btrfs */
  case 0x01021994UL: /* tmpfs */
    return true;
  default:
    return false;
  }
}

/* The mount table (/proc/self/mountinfo) as one string, read once per plan:
 * the kernel builds it anew on every read. NULL if unreadable. */
static char *sbx_read_mountinfo(void)
{
  char *buf = NULL;
  size_t cap = 0;
  FILE *fp = fopen("/proc/self/mountinfo", "re");
  if (!fp)
    return NULL;
  if (getdelim(&buf, &cap, '\0', fp) < 0) {
    free(buf);
    buf = NULL;
  }
  fclose(fp);
  return buf;
}

/* Is anything mounted strictly below `dir` (resolved)? A file bound over
 * an entry is another inode than the entry's d_ino, so such a directory is
 * scanned with stat(). Unknown (mountinfo unreadable) counts as yes. */
static bool sbx_has_submount(const char *mountinfo, const char *dir)
{
  char mp[PATH_MAX];
  size_t dl = strlen(dir);
  if (!mountinfo)
    return true;
  for (const char *line = mountinfo; *line;) {
    /* "ID PARENT MAJ:MIN ROOT MOUNTPOINT ...", octal escapes in paths */
    const char *eol = line + strcspn(line, "\n"), *f = line;
    size_t n = 0;
    for (int i = 0; i < 4 && f < eol; i++) {
      f = memchr(f, ' ', (size_t)(eol - f));
      f = f ? f + 1 : eol;
    }
    for (; f < eol && *f != ' ' && n + 1 < sizeof mp; f++) {
      if (eol - f >= 4 && f[0] == '\\' && f[1] >= '0' && f[1] <= '3' && f[2] >= '0' &&
          f[2] <= '7' && f[3] >= '0' && f[3] <= '7') {
        mp[n++] = (char)((f[1] - '0') * 64 + (f[2] - '0') * 8 + (f[3] - '0'));
        f += 3;
      } else
        mp[n++] = *f;
    }
    mp[n] = '\0';
    if (n > dl && strncmp(mp, dir, dl) == 0 && mp[dl] == '/')
      return true;
    line = *eol ? eol + 1 : eol;
  }
  return false;
}

/* CS_SHELL_NONE: no shell may run, not even one the command finds itself.
 * Two layers: (1) every shell binary (by inode, so hard links and symlinks
 * are caught) is masked in the mount view by an empty mode-0000 file, so
 * execve fails with EACCES and `#!/bin/sh` scripts cannot start either;
 * (2) Landlock grants EXECUTE file by file in the bin directories, skipping
 * the shells, because a Landlock right on /usr/bin would cover them. */
int sbx_plan_shells(struct sbx_plan *p)
{
  struct sbx_inode shells[64];
  size_t n_shells = 0;
  char path[PATH_MAX], real[PATH_MAX], *mountinfo;
  struct stat st;
  FILE *fp;
  int rc = 0;

  /* The bin directories' listings (a shell added or renamed changes their
   * mtime) and /etc/shells with what it names. */
  for (const char *const *d = sbx_bin_dirs; *d; d++) {
    sbx_probe(p, *d, SBX_PROBE_RESOLVE);
    if (realpath(*d, real))
      sbx_probe(p, real, SBX_PROBE_LIST);
  }
  sbx_probe(p, "/etc/shells", SBX_PROBE_LIST);
  for (const char *const *d = sbx_bin_dirs; *d; d++)
    for (const char *const *n = sbx_shell_names; *n; n++) {
      snprintf(path, sizeof path, "%s/%s", *d, *n);
      if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && n_shells < 64 &&
          !sbx_inode_in(shells, n_shells, &st))
        shells[n_shells++] = (struct sbx_inode){ st.st_dev, st.st_ino };
    }
  fp = fopen("/etc/shells", "re");
  while (fp && fgets(path, sizeof path, fp)) {
    path[strcspn(path, "\n")] = '\0';
    if (path[0] == '/') {
      sbx_probe(p, path, SBX_PROBE_RESOLVE);
      if (realpath(path, real))
        sbx_probe(p, real, SBX_PROBE_STAT);
    }
    if (path[0] == '/' && stat(path, &st) == 0 && S_ISREG(st.st_mode) && n_shells < 64 &&
        !sbx_inode_in(shells, n_shells, &st))
      shells[n_shells++] = (struct sbx_inode){ st.st_dev, st.st_ino };
  }
  if (fp)
    fclose(fp);

  mountinfo = sbx_read_mountinfo();
  for (const char *const *d = sbx_bin_dirs; *d; d++) {
    DIR *dir;
    struct dirent *de;
    struct stat dst;
    bool by_dino;
    if (!realpath(*d, real) || !(dir = opendir(real)))
      continue;
    /* ~1,000 entries: their inode numbers come with readdir where that is
     * exactly what stat() would say, saving one stat per entry. */
    by_dino = fstat(dirfd(dir), &dst) == 0 && sbx_dino_is_ino(dirfd(dir)) &&
              !sbx_has_submount(mountinfo, real);
    while ((de = readdir(dir))) {
      /* Symlinks get no rule of their own: Landlock checks the file they
       * resolve to, which is a regular file here (its own rule), under a
       * library directory, or a masked shell. */
      if (de->d_name[0] == '.' || (de->d_type != DT_REG && de->d_type != DT_UNKNOWN))
        continue;
      if (snprintf(path, sizeof path, "%s/%s", real, de->d_name) >= (int)sizeof path)
        continue;
      if (by_dino && de->d_type == DT_REG) {
        st.st_dev = dst.st_dev;
        st.st_ino = de->d_ino;
      } else if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
                 !S_ISREG(st.st_mode))
        continue;
      if (sbx_inode_in(shells, n_shells, &st))
        rc = sbx_plan_mount(p, path, SBX_MNT_MASK, NULL, false, "shell (CS_SHELL_NONE)");
      else if ((rc = sbx_plan_rule(p, path, SBX_LL_FS_EXECUTE | SBX_LL_FS_READ_FILE, true)) == 0)
        p->rules[p->n_rules - 1].is_file = true;
      if (rc < 0)
        break;
    }
    closedir(dir);
    if (rc < 0)
      break;
  }
  free(mountinfo);
  if (rc < 0)
    return rc;
  for (const char *const *d = sbx_lib_dirs; *d; d++)
    if ((sbx_probe(p, *d, SBX_PROBE_STAT), lstat(*d, &st) == 0) && S_ISDIR(st.st_mode) &&
        (rc = sbx_plan_rule(p, *d, SBX_LL_FS_EXECUTE | SBX_LL_FS_READ, true)) < 0)
      return rc;
  /* Symlinked binaries in /usr/bin whose target lives elsewhere in /usr
   * (e.g. /etc/alternatives chains ending in /usr/lib) are covered by the
   * library rules or by the target's own file rule. */
  return 0;
}
