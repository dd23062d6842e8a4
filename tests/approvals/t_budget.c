/* t_budget: THREADS threads each calling unlink("DIR/missing-N") up to
 * CALLS times, stopping at the first EPERM (the supervisor's CPU budget
 * for the run is spent: sbx_unotify_charge.c). Prints
 * "refused after K calls" or "never refused (K calls)", and
 * "other errors: E" for results other than ENOENT and EPERM. Bounded by
 * a number of calls, not by time. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *dir;
static long calls;
static atomic_long done, refused, other;

static void *worker(void *arg)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/missing-%ld", dir, (long)(intptr_t)arg);
  for (long i = 0; i < calls && !atomic_load(&refused); i++) {
    int r = unlink(path);
    atomic_fetch_add(&done, 1);
    if (r == 0 || errno == ENOENT)
      continue;
    if (errno == EPERM)
      atomic_store(&refused, 1);
    else
      atomic_fetch_add(&other, 1);
  }
  return NULL;
}

int main(int argc, char **argv)
{
  pthread_t t[64];
  long n;
  if (argc != 4 || (n = atol(argv[1])) < 1 || n > 64)
    return fprintf(stderr, "usage: t_budget THREADS CALLS DIR\n"), 2;
  calls = atol(argv[2]);
  dir = argv[3];
  for (long i = 0; i < n; i++)
    if (pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i) != 0)
      return 2;
  for (long i = 0; i < n; i++)
    pthread_join(t[i], NULL);
  if (atomic_load(&refused))
    printf("refused after %ld calls\n", atomic_load(&done));
  else
    printf("never refused (%ld calls)\n", atomic_load(&done));
  printf("other errors: %ld\n", atomic_load(&other));
  return 0;
}
