/* esc_git: plants what would make the user's next `git` on the host run a
 * command of the sandbox's choice (issue 12, section 2). Run in the
 * workspace (a git repository); each mode tries every way the kernel offers
 * to put `content` where git will read it:
 *   write FILE CONTENT   open+write (O_CREAT|O_TRUNC), a temporary renamed
 *                        over it, unlink then create, a symlink in its place
 *   move DIR CONTENT [PREPARED]
 *                        DIR renamed away, or exchanged (RENAME_EXCHANGE),
 *                        and replaced by a file holding CONTENT (for .git:
 *                        "gitdir: <crafted>") or by a directory (PREPARED,
 *                        e.g. a copy of the real one) whose config is
 *                        CONTENT
 * Exit 0: every attempt refused; 10: one succeeded (the test then also
 * checks that the host's git runs the planted command, or not). */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "esc_common.h"

static bool put(const char *path, const char *content, int flags)
{
  int fd = open(path, O_WRONLY | flags, 0644);
  size_t n = strlen(content);
  bool ok;
  if (fd < 0)
    return false;
  ok = write(fd, content, n) == (ssize_t)n;
  close(fd);
  return ok;
}

static int plant_file(const char *file, const char *content)
{
  char tmp[4096], what[4200];
  const char *base;
  snprintf(tmp, sizeof tmp, "%s.esc-tmp", file);
  snprintf(what, sizeof what, "write %s", file);
  ESC_ATTEMPT(put(file, content, O_CREAT | O_TRUNC), what);
  /* git's own way: a lock file renamed over the target. */
  snprintf(what, sizeof what, "rename a new file over %s", file);
  unlink(tmp);
  ESC_ATTEMPT(put(tmp, content, O_CREAT | O_EXCL) && rename(tmp, file) == 0, what);
  unlink(tmp);
  snprintf(what, sizeof what, "unlink %s and create it anew", file);
  ESC_ATTEMPT(unlink(file) == 0 && put(file, content, O_CREAT | O_EXCL), what);
  snprintf(what, sizeof what, "replace %s by a symlink", file);
  base = strrchr(tmp, '/') ? strrchr(tmp, '/') + 1 : tmp; /* the link is in the same directory */
  ESC_ATTEMPT(put(tmp, content, O_CREAT | O_TRUNC) && unlink(file) == 0 && symlink(base, file) == 0,
              what);
  ESC_DONE();
}

/* DIR renamed away (or exchanged with a prepared one) and a new DIR in its
 * place holding the crafted content: a file (a .git file) or a directory
 * with `config`. */
static int plant_instead(const char *dir, const char *content, const char *prepared)
{
  char away[4096], made[4096], cfg[4200], what[4200];
  bool as_file = strncmp(content, "gitdir: ", 8) == 0;
  snprintf(away, sizeof away, "%s.esc-away", dir);
  snprintf(made, sizeof made, "%s", prepared ? prepared : "");
  if (!prepared)
    snprintf(made, sizeof made, "%s.esc-new", dir);
  snprintf(cfg, sizeof cfg, "%s/config", made);
  if (as_file) {
    if (!put(made, content, O_CREAT | O_TRUNC))
      ESC_USAGE("esc_git move: cannot prepare the replacement file");
  } else if ((mkdir(made, 0755) != 0 && errno != EEXIST) || !put(cfg, content, O_CREAT | O_TRUNC))
    ESC_USAGE("esc_git move: cannot prepare the replacement directory");
  /* The first that works leaves the plant in place (a later attempt
   * would undo it): the rest are then not tried. */
  snprintf(what, sizeof what, "exchange %s with a crafted one", dir);
  ESC_ATTEMPT(renameat2(AT_FDCWD, made, AT_FDCWD, dir, RENAME_EXCHANGE) == 0, what);
  if (esc_escaped)
    ESC_DONE();
  snprintf(what, sizeof what, "rename %s away and put a crafted one in its place", dir);
  ESC_ATTEMPT(rename(dir, away) == 0 && rename(made, dir) == 0, what);
  if (esc_escaped)
    ESC_DONE();
  snprintf(what, sizeof what, "rename a crafted one over %s", dir);
  ESC_ATTEMPT(rename(made, dir) == 0, what);
  if (esc_escaped)
    ESC_DONE();
  snprintf(what, sizeof what, "remove %s", dir);
  ESC_ATTEMPT(rmdir(dir) == 0 || unlink(dir) == 0, what);
  ESC_DONE();
}

int main(int argc, char **argv)
{
  if (argc == 4 && strcmp(argv[1], "write") == 0)
    return plant_file(argv[2], argv[3]);
  if ((argc == 4 || argc == 5) && strcmp(argv[1], "move") == 0)
    return plant_instead(argv[2], argv[3], argc == 5 ? argv[4] : NULL);
  ESC_USAGE("esc_git write FILE CONTENT | move DIR CONTENT [PREPARED-DIR]");
}
