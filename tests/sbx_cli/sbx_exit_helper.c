/* sbx_exit_helper: ends the way it is told, so the tests can check every
 * exit status of `sbx run` without a shell (the strict profile has none).
 *   exit N      exit with status N
 *   signal N    raise signal N (default action)
 *   sleep MS    sleep MS milliseconds, then exit 0
 *   touch PATH  create PATH, then exit 0 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
  if (argc != 3) {
    fprintf(stderr, "usage: sbx_exit_helper exit N | signal N | sleep MS | touch PATH\n");
    return 2;
  }
  if (strcmp(argv[1], "exit") == 0)
    return atoi(argv[2]);
  if (strcmp(argv[1], "signal") == 0) {
    int sig = atoi(argv[2]);
    signal(sig, SIG_DFL);
    raise(sig);
    return 3;
  }
  if (strcmp(argv[1], "sleep") == 0) {
    long ms = atol(argv[2]);
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0)
      ;
    return 0;
  }
  if (strcmp(argv[1], "touch") == 0) {
    int fd = open(argv[2], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      perror(argv[2]);
      return 4;
    }
    close(fd);
    return 0;
  }
  return 2;
}
