/* t_swap: the race the directory lock closes (docs/approvals.md, "the
 * inode checked is the inode removed"). In a loop the main thread makes
 * a new file `n` and removes it, which is free (born in the run), while
 * a second thread renames the file `precious`, which existed before the
 * run, over `n` (a rename is a write: free). Whichever comes first, the
 * old inode must never be removed: either the new `n` is removed and
 * `precious` then sits at `n`, or the rename comes first and the removal
 * of the old inode is refused. Each round moves it back. Exits 1 with
 * "LOST" when `precious` is gone, 0 after the rounds. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static atomic_int go;
static atomic_int round_no;

static void *renamer(void *arg)
{
  (void)arg;
  for (int seen = 0;;) {
    int r;
    while ((r = atomic_load(&round_no)) == seen)
      ;
    if (r < 0)
      return NULL;
    seen = r;
    while (!atomic_load(&go))
      ;
    /* A different delay each round sweeps the rename across the
     * supervisor's check and removal. */
    for (volatile int spin = 0; spin < (r * 7919) % 200000; spin++)
      ;
    (void)rename("precious", "n");
  }
}

int main(int argc, char **argv)
{
  int rounds = argc > 2 ? atoi(argv[2]) : 1000, lost = 0, refused = 0;
  pthread_t t;

  if (argc < 2 || chdir(argv[1]) != 0)
    return 2;
  if (pthread_create(&t, NULL, renamer, NULL) != 0)
    return 2;
  for (int i = 1; i <= rounds && !lost; i++) {
    int fd = open("n", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
    if (fd < 0) {
      perror("create n");
      return 2;
    }
    close(fd);
    atomic_store(&go, 0);
    atomic_store(&round_no, i);
    atomic_store(&go, 1);
    if (unlink("n") != 0 && errno == EPERM)
      refused++;
    /* Let the renamer finish this round: it is done when precious has
     * moved (or the unlink took it). */
    for (int k = 0; k < 2000000 && access("precious", F_OK) == 0; k++)
      ;
    if (access("n", F_OK) == 0 && rename("n", "precious") != 0) {
      perror("move back");
      return 2;
    }
    if (access("precious", F_OK) != 0)
      lost = i;
  }
  atomic_store(&round_no, -1);
  pthread_join(t, NULL);
  printf("rounds %d, removals refused %d\n", rounds, refused);
  if (lost) {
    printf("LOST: precious was removed unasked in round %d\n", lost);
    return 1;
  }
  return 0;
}
