/* t_bulk: creates and unlinks N files in DIR (the benchmark's workload:
 * each unlink is one notified call under the system-call layer). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
  char name[64];
  int n = argc > 2 ? atoi(argv[2]) : 1000;
  if (argc < 2 || chdir(argv[1]) != 0)
    return 2;
  for (int i = 0; i < n; i++) {
    snprintf(name, sizeof name, "f%d", i);
    int fd = open(name, O_CREAT | O_WRONLY, 0600);
    if (fd < 0)
      return 1;
    close(fd);
    if (unlink(name) != 0)
      return 1;
  }
  return 0;
}
