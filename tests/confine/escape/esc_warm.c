/* Isolation between two runs at the same time (warm: two spares of one
 * template). "hold SECONDS" plants markers in its /tmp and /dev/shm, waits,
 * and checks they are still there and nothing of the other run appeared;
 * "probe" must see none of the first run's markers, no process but its
 * own, may not even probe pid 1 (kill(1, 0): Landlock signal scoping), and
 * its kill(-1) must reach nobody. Exit 0: isolated; 1: not. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "esc_common.h"

static int plant(const char *path)
{
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0)
    return -1;
  close(fd);
  return 0;
}

static int exists(const char *path)
{
  return access(path, F_OK) == 0;
}

int main(int argc, char **argv)
{
  if (argc == 3 && strcmp(argv[1], "hold") == 0) {
    if (plant("/tmp/sbx-warm-a") < 0 || plant("/dev/shm/sbx-warm-a") < 0) {
      fprintf(stderr, "esc_warm: cannot plant markers: %s\n", strerror(errno));
      return 2;
    }
    sleep((unsigned)atoi(argv[2]));
    if (!exists("/tmp/sbx-warm-a") || !exists("/dev/shm/sbx-warm-a") || exists("/tmp/sbx-warm-b") ||
        exists("/dev/shm/sbx-warm-b")) {
      fprintf(stderr, "esc_warm: the other run reached this run's /tmp or /dev/shm\n");
      return 1;
    }
    return 0;
  }
  if (argc == 2 && strcmp(argv[1], "probe") == 0) {
    DIR *d;
    struct dirent *de;
    int pids = 0;
    if (exists("/tmp/sbx-warm-a") || exists("/dev/shm/sbx-warm-a")) {
      fprintf(stderr, "esc_warm: the other run's /tmp or /dev/shm is visible\n");
      return 1;
    }
    if (plant("/tmp/sbx-warm-b") < 0 || plant("/dev/shm/sbx-warm-b") < 0)
      return 2;
    d = opendir("/proc");
    if (!d)
      return 2;
    while ((de = readdir(d)))
      pids += de->d_name[0] >= '1' && de->d_name[0] <= '9';
    closedir(d);
    /* pid 1 (sbx's init) and this process: anything else is another run's. */
    if (pids > 2) {
      fprintf(stderr, "esc_warm: %d processes visible\n", pids);
      return 1;
    }
    /* sbx's pid 1 is outside the command's Landlock domain (cold and
     * warm alike): even probing it is refused. */
    if (kill(1, 0) == 0) {
      fprintf(stderr, "esc_warm: kill(1, 0) reached pid 1\n");
      return 1;
    }
    /* Every process this one may signal, init excepted: none but its own. */
    if (kill(-1, SIGKILL) == 0) {
      fprintf(stderr, "esc_warm: kill(-1) reached a process\n");
      return 1;
    }
    return 0;
  }
  ESC_USAGE("esc_warm hold SECONDS | probe");
}
