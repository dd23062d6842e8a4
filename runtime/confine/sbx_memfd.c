/* sbx_memfd: no executable anonymous file in the sandbox of a profile
 * without a shell (issue 12), the kernel's layer under the filter's.
 *
 * Landlock's execute rules do not cover anonymous files, and a noexec
 * mount cannot hold a memfd: a binary copied into a memfd runs with
 * fexecve whatever the view. strict and hardened refuse memfd_create and
 * execveat in their filters (profiles.pol); this is the second lock.
 * Since Linux 6.3 vm.memfd_noexec is a property of the pid namespace,
 * inherited by the namespaces below it and never lowered by them: scope 2
 * (MEMFD_NOEXEC_SCOPE_NOEXEC_ENFORCED) makes every memfd created in the
 * sandbox non-executable, sealed so (MFD_EXEC is refused). pid 1 of the
 * sandbox's own pid namespace sets it for that namespace only; the host's
 * value is not touched (the sysctl acts on the writer's pid namespace,
 * whichever /proc it is written through). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx_fail.h"
#include "sbx_mount.h"
#include "sbx_plan.h"

#define SBX_MEMFD_SYSCTL "/proc/sys/vm/memfd_noexec"
/* MEMFD_NOEXEC_SCOPE_NOEXEC_ENFORCED, include/linux/pid_namespace.h. */
#define SBX_MEMFD_ENFORCED 2

int sbx_memfd_noexec(const struct sbx_plan *plan, struct sbx_fail *f)
{
  char buf[16];
  ssize_t n;
  int fd, e = 0;

  if (!plan->shell_none)
    return 0; /* a shell is allowed: so is running a program from a memfd */
  fd = open(SBX_MEMFD_SYSCTL, O_RDWR | O_CLOEXEC);
  /* Not this layer's to refuse the run: the filter's memfd_create and
   * execveat rules are the profile's own, and hold without it. ENOENT:
   * a kernel before 6.3; EACCES: sbx in a user namespace (the sysctl's
   * file is writable by the host's root only). */
  if (fd < 0 && (errno == ENOENT || errno == EACCES))
    return 0;
  if (fd < 0 || (write(fd, "2\n", 2) != 2 && (e = errno, true)) || lseek(fd, 0, SEEK_SET) != 0 ||
      (n = read(fd, buf, sizeof buf - 1)) <= 0) {
    e = e ? e : errno;
    if (fd >= 0)
      close(fd);
    sbx_fail_set(f, SBX_LAYER_NAMESPACES, e, "vm.memfd_noexec of the sandbox's pid namespace: %s",
                 strerror(e));
    return -e;
  }
  close(fd);
  buf[n] = '\0';
  /* Read back: a value other than the one written (a kernel that took the
   * write and kept less) fails closed. */
  if (strtol(buf, NULL, 10) < SBX_MEMFD_ENFORCED) {
    sbx_fail_set(f, SBX_LAYER_NAMESPACES, EINVAL,
                 "vm.memfd_noexec of the sandbox's pid namespace is %ld after writing %d",
                 strtol(buf, NULL, 10), SBX_MEMFD_ENFORCED);
    return -EINVAL;
  }
  return 0;
}
