/* Kernel surface that undoes confinement: new namespaces (a user namespace
 * gives back every capability inside it), mounts, io_uring (its operations
 * bypass seccomp filtering of the equivalent system calls). */
#include <linux/io_uring.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "esc_common.h"

int main(int argc, char **argv)
{
  struct io_uring_params params;
  long r;
  (void)argv;
  if (argc != 1)
    ESC_USAGE("esc_ns");
  ESC_ATTEMPT(unshare(CLONE_NEWUSER) == 0, "unshare(CLONE_NEWUSER)");
  ESC_ATTEMPT(unshare(CLONE_NEWNS) == 0, "unshare(CLONE_NEWNS)");
  ESC_ATTEMPT(unshare(CLONE_NEWNET) == 0, "unshare(CLONE_NEWNET)");
  r = syscall(SYS_clone, (unsigned long)(CLONE_NEWUSER | SIGCHLD), NULL, NULL, NULL, 0);
  if (r == 0)
    _exit(0);
  if (r > 0)
    waitpid((pid_t)r, NULL, 0);
  ESC_ATTEMPT(r > 0, "clone(CLONE_NEWUSER)");
  ESC_ATTEMPT(mount("none", "/tmp", "tmpfs", 0, NULL) == 0, "mount tmpfs");
  ESC_ATTEMPT(chroot("/tmp") == 0, "chroot");
  memset(&params, 0, sizeof params);
  r = syscall(__NR_io_uring_setup, 8, &params);
  ESC_ATTEMPT(r >= 0, "io_uring_setup");
  ESC_DONE();
}
