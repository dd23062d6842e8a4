/* Outliving the sandbox: double fork + setsid, the grandchild ignores
 * SIGHUP/SIGTERM and keeps appending to a file. The driver checks after the
 * run that the file stops growing. */
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
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
    /* Like a real daemon: no stdio (an escaped one would otherwise hold
     * the test's output pipe open), and a bounded life (30 s) so that an
     * escape fails the test without lingering on the machine. */
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
      dup2(null, 0);
      dup2(null, 1);
      dup2(null, 2);
    }
    for (int i = 0; i < 3000; i++) {
      int fd = open(argv[1], O_WRONLY | O_APPEND | O_CREAT, 0644);
      if (fd >= 0) {
        (void)!write(fd, ".", 1);
        close(fd);
      }
      usleep(10000);
    }
    _exit(0);
  }
  /* Exit only once the daemon has written: the driver's checks need a
   * daemon that ran, and a fixed pause was too short on a loaded machine.
   * Bounded (20 s): a daemon that never writes fails the run. */
  for (int i = 0; i < 2000; i++) {
    struct stat st;
    if (stat(argv[1], &st) == 0 && st.st_size > 0)
      return 0;
    usleep(10000);
  }
  return 3;
}
