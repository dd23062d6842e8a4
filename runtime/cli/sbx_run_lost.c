/* sbx_run_lost: after a run whose workspace lies under /tmp, the linked
 * git worktrees the run made in the sandbox's private /tmp (issue 13).
 *
 * The sandbox's /tmp is its own tmpfs, discarded with the run. With the
 * workspace in the host's /tmp (/tmp/ws), `git worktree add ../wt` writes
 * the worktree to /tmp/wt on that tmpfs, succeeds, and leaves in the
 * workspace a record (.git/worktrees/wt) of a worktree that is on no
 * disk. Nothing in the view can refuse that write without refusing the
 * private /tmp itself (the workspace's parent is the tmpfs's root, which
 * every tool writes to). The directories between /tmp and a deeper
 * workspace (/tmp/a of /tmp/a/ws) are a read-only bind and refuse the
 * write (EROFS, sbx_mount.c); `../../wt` from there reaches the tmpfs's
 * root again. So the loss is found when the run is over, where it can be stated for
 * certain: a worktree record born during the run whose gitdir names a
 * path in /tmp, outside the workspace, that the host does not have. The
 * run then fails (exit 125) naming it: never exit 0 with nothing on the
 * host. The record is left as git left it (`git worktree prune` removes
 * it): sbx does not edit the user's repository after the fact.
 *
 * The same look, in every workspace, at the links of each worktree record
 * the run made (sbx_lost_check_links): they were writable while it ran. */
#include "sbx_run_common.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sbx_plan.h"

/* Born after `start` (statx birth time)? Unknown birth: no (then nothing
 * is claimed about it). */
/* The worktree records <workspace>/.git/worktrees holds, each name
 * followed by a NUL, into out (NULL with none). */
static char *sbx_lost_records(const char *workspace, size_t *len)
{
  char dir[PATH_MAX];
  struct dirent *de;
  char *out = NULL;
  size_t cap = 0;
  DIR *d;
  *len = 0;
  if (snprintf(dir, sizeof dir, "%s/.git/worktrees", workspace) >= (int)sizeof dir ||
      !(d = opendir(dir)))
    return NULL;
  while ((de = readdir(d))) {
    size_t n = strlen(de->d_name) + 1;
    if (de->d_name[0] == '.')
      continue;
    if (*len + n > cap) {
      char *more = realloc(out, cap = (*len + n) * 2);
      if (!more)
        break;
      out = more;
    }
    memcpy(out + *len, de->d_name, n);
    *len += n;
  }
  closedir(d);
  return out;
}

static bool sbx_lost_listed(const char *names, size_t len, const char *name)
{
  for (size_t i = 0; i < len; i += strlen(names + i) + 1)
    if (strcmp(names + i, name) == 0)
      return true;
  return false;
}

int sbx_run_lost_before(const char *workspace, struct sbx_run_lost *before)
{
  before->names = NULL;
  before->len = 0;
  before->active = workspace != NULL;
  /* Test only, and said: the check off, for the negative control of
   * workflow_git_worktree (the plant then passes and the host's git obeys
   * it). */
  if (getenv("SBX_TEST_NO_WORKTREE_CHECK") &&
      strcmp(getenv("SBX_TEST_NO_WORKTREE_CHECK"), "1") == 0) {
    fprintf(sbx_diag(),
            "sbx: warning: SBX_TEST_NO_WORKTREE_CHECK=1: the worktrees this run makes are "
            "not checked after it (test only)\n");
    before->active = false;
  }
  if (before->active)
    before->names = sbx_lost_records(workspace, &before->len);
  return 0;
}

/* The first line of `path` without its newline; false: unreadable. */
static bool sbx_lost_first_line(const char *path, char *out, size_t len)
{
  FILE *f = fopen(path, "re");
  char *nl;
  if (!f)
    return false;
  out[0] = '\0';
  if (!fgets(out, (int)len, f))
    out[0] = '\0';
  fclose(f);
  if ((nl = strchr(out, '\n')))
    *nl = '\0';
  return true;
}

/* Does `value` (relative to `base`, as git reads it) resolve to `want`? */
static bool sbx_lost_names(const char *base, const char *value, const char *want)
{
  char joined[PATH_MAX * 2], real[PATH_MAX];
  if (!value[0] ||
      snprintf(joined, sizeof joined, "%s%s%s", value[0] == '/' ? "" : base,
               value[0] == '/' ? "" : "/", value) >= (int)sizeof joined ||
      !realpath(joined, real))
    return false;
  return strcmp(real, want) == 0;
}

/* A record the run made must lead back to this repository both ways: its
 * commondir to <workspace>/.git (else the user's git in that worktree
 * takes its configuration and hooks from wherever it names), and the
 * worktree's .git file, when it exists, to the record (else git there
 * uses another git directory). Both are writable while the run that made
 * them lasts (protected from the next run on, sbx_plan_git.c), so a
 * command could have re-pointed them: named, and the run fails. */
static int sbx_lost_check_links(const char *dir, const char *name, const char *gitdir_line,
                                const char *common_real, FILE *err)
{
  char record[PATH_MAX * 2], record_real[PATH_MAX], file[PATH_MAX * 3], line[PATH_MAX];
  const char *slash;
  int bad = 0;
  snprintf(record, sizeof record, "%s/%s", dir, name);
  if (!realpath(record, record_real))
    return 0;
  snprintf(file, sizeof file, "%s/commondir", record_real);
  if (!sbx_lost_first_line(file, line, sizeof line) ||
      !sbx_lost_names(record_real, line, common_real)) {
    fprintf(err,
            "sbx: error: the git worktree record %s, made in this run, has a commondir that "
            "does not name %s ('%s'): the user's git in that worktree would take its "
            "configuration and hooks from there (remove the record)\n",
            record_real, common_real, line);
    bad++;
  }
  if (gitdir_line[0] == '/' && sbx_lost_first_line(gitdir_line, line, sizeof line) &&
      (slash = strrchr(gitdir_line, '/'))) {
    char base[PATH_MAX];
    snprintf(base, sizeof base, "%.*s", (int)(slash - gitdir_line), gitdir_line);
    if (strncmp(line, "gitdir: ", 8) != 0 || !sbx_lost_names(base, line + 8, record_real)) {
      fprintf(err,
              "sbx: error: %s, the .git file of a worktree made in this run, does not name its "
              "record %s ('%s'): git there would use another git directory (check it)\n",
              gitdir_line, record_real, line);
      bad++;
    }
  }
  return bad;
}

int sbx_run_lost_worktrees(const char *workspace, struct sbx_run_lost *before, FILE *err)
{
  char dir[PATH_MAX], line[PATH_MAX], file[PATH_MAX * 2], common_real[PATH_MAX];
  struct dirent *de;
  struct stat st;
  char *nl;
  int lost = 0;
  DIR *d;

  if (!before->active || !workspace ||
      snprintf(dir, sizeof dir, "%s/.git/worktrees", workspace) >= (int)sizeof dir ||
      !(d = opendir(dir))) {
    free(before->names);
    before->names = NULL;
    return 0;
  }
  snprintf(file, sizeof file, "%s/.git", workspace);
  if (!realpath(file, common_real))
    common_real[0] = '\0';
  while ((de = readdir(d))) {
    /* Only a record this run made: one from before is the user's. */
    if (de->d_name[0] == '.' || sbx_lost_listed(before->names, before->len, de->d_name) ||
        snprintf(file, sizeof file, "%s/%s/gitdir", dir, de->d_name) >= (int)sizeof file ||
        !sbx_lost_first_line(file, line, sizeof line))
      continue;
    if (common_real[0])
      lost += sbx_lost_check_links(dir, de->d_name, line, common_real, err);
    /* gitdir names the worktree's .git file, absolute (git writes it so). */
    if (line[0] != '/' || !sbx_path_under(workspace, "/tmp") || !sbx_path_under(line, "/tmp") ||
        sbx_path_under(line, workspace) || lstat(line, &st) == 0)
      continue;
    if ((nl = strrchr(line, '/')) && nl != line)
      *nl = '\0';
    fprintf(err,
            "sbx: error: the git worktree %s was made in the sandbox's private /tmp, which is "
            "discarded with the run: it is not on the host (%s/%s stays, `git worktree prune` "
            "removes it; make worktrees inside the workspace)\n",
            line, dir, de->d_name);
    lost++;
  }
  closedir(d);
  free(before->names);
  before->names = NULL;
  return lost;
}
