/* Leases and directory notifications (issue 12, section 7): a lease on a
 * file makes host processes that open it wait, and tells the sandbox they
 * did; dnotify reports changes by signal.
 *   esc_lease FILE DIR   F_SETLEASE (read lease) on FILE, F_NOTIFY on DIR
 * FILE is created first when it does not exist (so that the command owns
 * it, as a lease requires, whatever identity it runs as).
 * Exit 0: both refused; 10: one was accepted (ESCAPED). */
#include <fcntl.h>
#include <unistd.h>

#include "esc_common.h"

int main(int argc, char **argv)
{
  int fd, dfd;
  if (argc != 3)
    ESC_USAGE("esc_lease FILE DIR");
  fd = open(argv[1], O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd >= 0)
    close(fd);
  fd = open(argv[1], O_RDONLY);
  if (fd < 0) {
    fprintf(stderr, "open %s: %s\n", argv[1], strerror(errno));
    return 2;
  }
  ESC_ATTEMPT(fcntl(fd, F_SETLEASE, F_RDLCK) == 0, "F_SETLEASE (read lease)");
  dfd = open(argv[2], O_RDONLY | O_DIRECTORY);
  if (dfd < 0) {
    fprintf(stderr, "open %s: %s\n", argv[2], strerror(errno));
    return 2;
  }
  ESC_ATTEMPT(fcntl(dfd, F_NOTIFY, DN_MODIFY | DN_CREATE) == 0, "F_NOTIFY (dnotify)");
  ESC_DONE();
}
