/* Outliving the sandbox: double fork + setsid, the grandchild ignores
 * SIGHUP/SIGTERM and keeps appending to a file. The driver checks after the
 * run that the file stops growing. */
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "esc_common.h"

int main(int argc, char **argv)
{
  pid_t p;
  if (argc != 2)
    ESC_USAGE("esc_daemon FILE");
  p = fork();
  if (p < 0)
    return 2;
  if (p == 0) {
    setsid();
    if (fork() != 0)
      _exit(0);
    signal(SIGHUP, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    for (;;) {
      int fd = open(argv[1], O_WRONLY | O_APPEND | O_CREAT, 0644);
      if (fd >= 0) {
        (void)!write(fd, ".", 1);
        close(fd);
      }
      usleep(10000);
    }
  }
  usleep(100000); /* let the daemon start writing */
  return 0;
}
