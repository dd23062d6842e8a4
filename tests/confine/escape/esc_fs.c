/* Filesystem escapes: writing outside the workspace, reading denied paths
 * directly, through symlinks and hard links, writing kernel knobs. */
#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "esc_common.h"

static bool esc_create(const char *path)
{
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0)
    return false;
  bool ok = write(fd, "pwned\n", 6) == 6;
  close(fd);
  return ok;
}

static bool esc_read(const char *path)
{
  char buf[64];
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    return false;
  ssize_t n = read(fd, buf, sizeof buf);
  close(fd);
  return n > 0;
}

static bool esc_write_existing(const char *path, const char *text)
{
  int fd = open(path, O_WRONLY);
  if (fd < 0)
    return false;
  ssize_t n = write(fd, text, strlen(text));
  close(fd);
  return n > 0;
}

int main(int argc, char **argv)
{
  char path[4096];
  if (argc < 3)
    ESC_USAGE(
        "esc_fs write_outside DIR... | read_denied PATH... | readonly FILE... | nocreate DIR...");
  if (strcmp(argv[1], "write_outside") == 0) {
    static const char *const fixed[] = { "/etc/sbx-pwn",     "/usr/sbx-pwn",
                                         "/usr/bin/sbx-pwn", "/sbx-pwn",
                                         "/dev/sbx-pwn",     "/proc/sbx-pwn",
                                         "/oldroot/sbx-pwn", NULL };
    for (const char *const *p = fixed; *p; p++)
      ESC_ATTEMPT(esc_create(*p), *p);
    for (int i = 2; i < argc; i++) {
      snprintf(path, sizeof path, "%s/sbx-pwn", argv[i]);
      ESC_ATTEMPT(esc_create(path), path);
      ESC_ATTEMPT(mkdir(path, 0755) == 0, "mkdir outside");
    }
    /* uid 0 passes sysctl permission checks without capabilities. */
    ESC_ATTEMPT(esc_write_existing("/proc/sys/kernel/hostname", "pwned"),
                "write /proc/sys/kernel/hostname");
    ESC_ATTEMPT(esc_write_existing("/proc/sysrq-trigger", "h"), "write /proc/sysrq-trigger");
    ESC_ATTEMPT(esc_write_existing("/proc/self/oom_score_adj", "-1000"), "lower oom_score_adj");
    ESC_DONE();
  }
  if (strcmp(argv[1], "read_denied") == 0) {
    for (int i = 2; i < argc; i++) {
      ESC_ATTEMPT(esc_read(argv[i]), argv[i]);
      /* A fresh symlink and a hard link made inside (when writable). */
      snprintf(path, sizeof path, "sbx-link-%d", i);
      unlink(path);
      if (symlink(argv[i], path) == 0) {
        ESC_ATTEMPT(esc_read(path), "symlink made inside to a denied path");
        unlink(path);
      }
      snprintf(path, sizeof path, "sbx-hard-%d", i);
      unlink(path);
      if (link(argv[i], path) == 0) {
        ESC_ATTEMPT(esc_read(path), "hard link made inside to a denied path");
        unlink(path);
      }
    }
    ESC_DONE();
  }
  if (strcmp(argv[1], "nocreate") == 0) {
    for (int i = 2; i < argc; i++) {
      snprintf(path, sizeof path, "%s/sbx-new", argv[i]);
      ESC_ATTEMPT(esc_create(path), path);
    }
    ESC_DONE();
  }
  if (strcmp(argv[1], "readonly") == 0) {
    for (int i = 2; i < argc; i++) {
      struct stat st;
      ESC_ATTEMPT(esc_write_existing(argv[i], "x"), argv[i]);
      ESC_ATTEMPT(truncate(argv[i], 0) == 0, "truncate");
      ESC_ATTEMPT(unlink(argv[i]) == 0, "unlink");
      ESC_ATTEMPT(stat(argv[i], &st) == 0 && chmod(argv[i], 0777) == 0, "chmod");
    }
    ESC_DONE();
  }
  ESC_USAGE("unknown mode");
}
