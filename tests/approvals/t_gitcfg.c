/* t_gitcfg: opens git configuration for writing with the system calls
 * directly (not `git config`), the way a hostile or careless program
 * would; prints each result. Run in the workspace (a git repository).
 *   t_gitcfg open|openat|openat2|creat|truncate   one call on .git/config
 *   t_gitcfg plain                                a write-open of "plain"
 *   t_gitcfg race N                               N write-opens of a path
 *     another thread flips between "harmless" and ".git/config"; prints
 *     how many opens succeeded and were refused. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char line[] = "# written by t_gitcfg\n";

static void show(const char *what, int fd)
{
  if (fd < 0) {
    printf("%s: %s\n", what, strerror(errno));
    return;
  }
  if (write(fd, line, sizeof line - 1) != (ssize_t)(sizeof line - 1))
    printf("%s: opened, write failed: %s\n", what, strerror(errno));
  else
    printf("%s: ok\n", what);
  close(fd);
}

static char path[64] = "harmless";
static atomic_int stop;

static void *flip(void *arg)
{
  (void)arg;
  while (!atomic_load(&stop)) {
    memcpy(path, ".git/config", sizeof ".git/config");
    memcpy(path, "harmless\0\0\0", sizeof "harmless\0\0\0");
  }
  return NULL;
}

int main(int argc, char **argv)
{
  const char *m = argc > 1 ? argv[1] : "";
  if (strcmp(m, "open") == 0) {
    show("open .git/config", open(".git/config", O_WRONLY | O_APPEND));
  } else if (strcmp(m, "openat") == 0) {
    int d = open(".git", O_RDONLY | O_DIRECTORY);
    show("openat .git config", openat(d, "config", O_RDWR | O_APPEND));
    close(d);
  } else if (strcmp(m, "openat2") == 0) {
    struct open_how how = { .flags = O_WRONLY | O_APPEND };
    show("openat2 .git/config",
         (int)syscall(SYS_openat2, AT_FDCWD, ".git/config", &how, sizeof how));
  } else if (strcmp(m, "creat") == 0) {
    int fd = creat(".git/config", 0644);
    printf("creat .git/config: %s\n", fd < 0 ? strerror(errno) : "ok");
    if (fd >= 0)
      close(fd);
  } else if (strcmp(m, "truncate") == 0) {
    printf("truncate .git/config: %s\n", truncate(".git/config", 0) == 0 ? "ok" : strerror(errno));
  } else if (strcmp(m, "plain") == 0) {
    show("open plain", open("plain", O_WRONLY | O_CREAT | O_APPEND, 0644));
  } else if (strcmp(m, "race") == 0 && argc > 2) {
    pthread_t t;
    int n = atoi(argv[2]), ok = 0, refused = 0;
    pthread_create(&t, NULL, flip, NULL);
    for (int i = 0; i < n; i++) {
      int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
      if (fd < 0) {
        refused++;
        continue;
      }
      ok++;
      (void)!write(fd, "RACE\n", 5);
      close(fd);
    }
    atomic_store(&stop, 1);
    pthread_join(t, NULL);
    printf("race: %d opened, %d refused\n", ok, refused);
  } else {
    return 2;
  }
  return 0;
}
