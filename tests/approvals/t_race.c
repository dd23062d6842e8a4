/* t_race: one thread flips a path buffer between "victim" and "protect"
 * as fast as it can while the main thread unlinks through that buffer.
 * The approver allows only names containing "victim": if the supervisor
 * ever acted on a name other than the one it approved, "protect" would be
 * deleted. Recreates "victim" after each deletion. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char buf[16] = "victim";
static atomic_int stop;

static void *flipper(void *arg)
{
  (void)arg;
  while (!atomic_load(&stop)) {
    memcpy(buf, "protect", 8);
    memcpy(buf, "victim\0", 8);
  }
  return NULL;
}

int main(int argc, char **argv)
{
  pthread_t t;
  int n = argc > 2 ? atoi(argv[2]) : 40, deleted = 0, refused = 0;
  if (argc < 2 || chdir(argv[1]) != 0)
    return 2;
  pthread_create(&t, NULL, flipper, NULL);
  for (int i = 0; i < n; i++) {
    close(open("victim", O_CREAT | O_WRONLY, 0600));
    if (unlink(buf) == 0)
      deleted++;
    else if (errno == EPERM)
      refused++;
  }
  atomic_store(&stop, 1);
  pthread_join(t, NULL);
  printf("deleted=%d refused=%d protect=%s\n", deleted, refused,
         access("protect", F_OK) == 0 ? "present" : "GONE");
  return access("protect", F_OK) == 0 ? 0 : 1;
}
