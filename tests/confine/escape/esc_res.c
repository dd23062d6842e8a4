/* Resource exhaustion: a fork bomb and a memory hog. Each must be stopped
 * by a limit (an error from fork/malloc, or a kill) well before it gets
 * what it asks for. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "esc_common.h"

static char *volatile esc_res_keep;

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
    /* Stop the children (our process group) but not ourselves: dying by
     * SIGKILL here would hide the verdict from the driver. */
    signal(SIGTERM, SIG_IGN);
    kill(0, SIGTERM);
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
      /* The pointer escapes: clang would otherwise drop the unused
       * malloc+memset pair and "allocate" without memory. */
      esc_res_keep = p;
      got += chunk;
    }
    snprintf(what, sizeof what, "allocated %llu MiB (asked for %llu MiB)", got >> 20, want >> 20);
    ESC_ATTEMPT(got >= want, what);
    ESC_DONE();
  }
  ESC_USAGE("unknown mode");
}
