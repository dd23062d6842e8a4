/* t_parallel: while one thread's unlink waits for a person (the approver
 * hangs until the timeout), another thread's rename that replaces nothing
 * (which nobody is asked about) must complete. Prints "ok" when the rename
 * finished before the unlink returned. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static atomic_int unlink_done;

static void *asker(void *arg)
{
  (void)arg;
  int r = unlink("a");
  printf("unlink a: %s\n", r == 0 ? "ok" : strerror(errno));
  atomic_store(&unlink_done, 1);
  return NULL;
}

int main(int argc, char **argv)
{
  pthread_t t;
  if (argc != 2 || chdir(argv[1]) != 0)
    return 2;
  pthread_create(&t, NULL, asker, NULL);
  usleep(200 * 1000); /* let the unlink reach the supervisor first */
  int r = rename("f", "g");
  int waiting = !atomic_load(&unlink_done);
  printf("rename: %s, unlink still pending: %s\n", r == 0 ? "ok" : strerror(errno),
         waiting ? "yes" : "no");
  pthread_join(t, NULL);
  return r == 0 && waiting ? 0 : 1;
}
