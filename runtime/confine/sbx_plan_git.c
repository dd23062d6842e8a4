/* sbx_plan_git: a writable workspace's git configuration and hooks kept
 * read-only in the view (sbx_plan_git, called by sbx_plan.c). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sbx_landlock.h"
#include "sbx_plan.h"
#include "sbx_plan_parts.h"

/* Git: .git/config and .git/hooks decide what git runs next time, outside
 * the sandbox (core.hooksPath, core.fsmonitor, filters, hooks), so a
 * command that can write them escapes on the user's next `git` call. They
 * are bound read-only over the writable workspace; objects, refs, the index
 * and logs stay writable so `git commit` works. A linked worktree's .git is
 * a file naming <main>/.git/worktrees/NAME; the main repository's git dir is
 * then bound read-write too (commits write objects and refs there) with the
 * same read-only carve-outs. */
static int sbx_plan_git_dir(struct sbx_plan *p, const char *gitdir, bool bind_dir, int depth)
{
  static const char *const protect[] = {"config", "hooks", "config.worktree", "info", NULL};
  char path[PATH_MAX];
  int rc = 0;
  if (bind_dir && !sbx_is_visible(p, gitdir)) {
    if ((rc = sbx_plan_mount(p, gitdir, SBX_MNT_BIND_RW, NULL, true, "git common dir")) < 0)
      return rc;
  }
  /* git's lock-file protocol renames over files: it needs delete rights
   * in its own directory even when the profile forbids deleting files. */
  if ((rc = sbx_plan_rule(p, gitdir, SBX_LL_FS_READ | SBX_LL_FS_WRITE | SBX_LL_FS_DELETE,
                          false)) < 0)
    return rc;
  for (const char *const *n = protect; *n; n++) {
    struct stat st;
    if (snprintf(path, sizeof path, "%s/%s", gitdir, *n) >= (int)sizeof path)
      return -ENAMETOOLONG;
    if (strcmp(*n, "hooks") == 0 && lstat(path, &st) < 0 && errno == ENOENT) {
      /* A missing hooks dir could be created and filled inside: create it
       * (as `git init` would) so it can be bound read-only. */
      if (mkdir(path, 0755) < 0 && errno != EEXIST)
        return -errno;
    }
    sbx_probe(p, path, SBX_PROBE_STAT);
    if (lstat(path, &st) < 0)
      continue;
    if (S_ISLNK(st.st_mode)) {
      /* A symlinked config or hooks dir could point at a file the command
       * can write; a mount cannot be put on a symlink: refuse the run. */
      return -ELOOP;
    }
    if ((rc = sbx_plan_mount(p, path, SBX_MNT_BIND_RO, NULL, S_ISDIR(st.st_mode),
                             "git config/hooks")) < 0)
      return rc;
  }
  /* Submodules keep their own config and hooks in modules/NAME (git runs
   * them when it recurses): the same protection, two levels deep. */
  if (depth < 2 && snprintf(path, sizeof path, "%s/modules", gitdir) < (int)sizeof path) {
    DIR *dir;
    sbx_probe(p, path, SBX_PROBE_LIST);
    dir = opendir(path);
    struct dirent *de;
    char sub[PATH_MAX];
    while (dir && (de = readdir(dir))) {
      struct stat st;
      if (de->d_name[0] == '.' ||
          snprintf(sub, sizeof sub, "%s/%s", path, de->d_name) >= (int)sizeof sub ||
          lstat(sub, &st) < 0 || !S_ISDIR(st.st_mode))
        continue;
      if ((rc = sbx_plan_git_dir(p, sub, false, depth + 1)) < 0)
        break;
    }
    if (dir)
      closedir(dir);
    if (rc < 0)
      return rc;
  }
  return 0;
}

int sbx_plan_git(struct sbx_plan *p)
{
  char dotgit[PATH_MAX], buf[PATH_MAX + 16], gitdir[PATH_MAX], common[PATH_MAX];
  char tmp[PATH_MAX * 2 + 32];
  struct stat st;
  FILE *fp = NULL;
  int rc = 0;

  if (snprintf(dotgit, sizeof dotgit, "%s/.git", p->workspace) >= (int)sizeof dotgit)
    return -ENAMETOOLONG;
  /* A .git directory: what matters is probed below; a .git file (linked
   * worktree): its content, hence its times. */
  sbx_probe(p, dotgit, SBX_PROBE_STAT);
  if (lstat(dotgit, &st) == 0 && S_ISREG(st.st_mode))
    sbx_probe(p, dotgit, SBX_PROBE_LIST);
  if (lstat(dotgit, &st) < 0)
    return 0;
  if (S_ISDIR(st.st_mode))
    return sbx_plan_git_dir(p, dotgit, false, 0);
  if (!S_ISREG(st.st_mode))
    return -ELOOP; /* a symlinked .git: its target may be writable inside */

  /* Linked worktree: "gitdir: <path>". */
  fp = fopen(dotgit, "re");
  if (!fp || !fgets(buf, sizeof buf, fp) || strncmp(buf, "gitdir: ", 8) != 0) {
    rc = 0; /* not a git link we understand: leave it to the mount rules */
    goto cleanup;
  }
  buf[strcspn(buf, "\n")] = '\0';
  if (buf[8] == '/')
    snprintf(tmp, sizeof tmp, "%s", buf + 8);
  else
    snprintf(tmp, sizeof tmp, "%s/%s", p->workspace, buf + 8);
  if (!realpath(tmp, gitdir)) {
    rc = 0;
    goto cleanup;
  }
  fclose(fp);
  fp = NULL;
  /* The common dir (objects, refs) is named by worktrees/NAME/commondir. */
  snprintf(tmp, sizeof tmp, "%s/commondir", gitdir);
  sbx_probe(p, tmp, SBX_PROBE_LIST);
  fp = fopen(tmp, "re");
  if (fp && fgets(buf, sizeof buf, fp)) {
    buf[strcspn(buf, "\n")] = '\0';
    if (buf[0] == '/')
      snprintf(tmp, sizeof tmp, "%s", buf);
    else
      snprintf(tmp, sizeof tmp, "%s/%s", gitdir, buf);
    if (!realpath(tmp, common))
      snprintf(common, sizeof common, "%s", gitdir);
  } else
    snprintf(common, sizeof common, "%s", gitdir);
  if ((rc = sbx_plan_git_dir(p, common, true, 0)) < 0)
    goto cleanup;
  if (strcmp(common, gitdir) != 0)
    rc = sbx_plan_git_dir(p, gitdir, true, 0);
cleanup:
  if (fp)
    fclose(fp);
  return rc;
}
