/* Terminal injection: TIOCSTI pushes bytes into the input queue of a
 * terminal; into the caller's shell that is arbitrary command execution.
 * Tried with the plain request and with high bits set (the kernel takes the
 * request as 32 bits, a filter comparing 64 bits would miss it). */
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "esc_common.h"

int main(int argc, char **argv)
{
  char c = 'X';
  (void)argv;
  if (argc != 1)
    ESC_USAGE("esc_tty (stdin should be a terminal)");
  ESC_ATTEMPT(ioctl(0, TIOCSTI, &c) == 0, "ioctl(0, TIOCSTI)");
  ESC_ATTEMPT(syscall(SYS_ioctl, 0, (unsigned long)TIOCSTI | 0xdead000000000000ul, &c) == 0,
              "ioctl(0, TIOCSTI | high bits)");
  ESC_ATTEMPT(open("/dev/tty", O_RDWR) >= 0, "open /dev/tty (a controlling terminal)");
  ESC_DONE();
}
