/* Resource exhaustion: a fork bomb and a memory hog. Each must be stopped
 * by a limit (an error from fork/malloc, or a kill) well before it gets
 * what it asks for. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "esc_common.h"

int main(int argc, char **argv)
{
  char what[128];
  if (argc != 3)
    ESC_USAGE("esc_res forkbomb MAX | memory BYTES");
  if (strcmp(argv[1], "forkbomb") == 0) {
    long max = atol(argv[2]), n = 0;
    for (; n < max; n++) {
      pid_t p = fork();
      if (p < 0)
        break;
      if (p == 0) {
        pause();
        _exit(0);
      }
    }
    snprintf(what, sizeof what, "created %ld processes (asked for %ld)", n, max);
    ESC_ATTEMPT(n >= max, what);
    kill(0, SIGKILL); /* the whole group, us included: the driver expects SIGKILL or 0 */
    ESC_DONE();
  }
  if (strcmp(argv[1], "memory") == 0) {
    unsigned long long want = strtoull(argv[2], NULL, 10), got = 0;
    const size_t chunk = 16u << 20;
    while (got < want) {
      char *p = malloc(chunk);
      if (!p)
        break;
      memset(p, 1, chunk);
      got += chunk;
    }
    snprintf(what, sizeof what, "allocated %llu MiB (asked for %llu MiB)", got >> 20, want >> 20);
    ESC_ATTEMPT(got >= want, what);
    ESC_DONE();
  }
  ESC_USAGE("unknown mode");
}
