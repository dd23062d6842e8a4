/* Process escapes: signalling, tracing or reading the memory of a process
 * outside the sandbox (its host pid is given), and of the sandbox's init. */
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <unistd.h>

#include "esc_common.h"

int main(int argc, char **argv)
{
  char buf[64], path[64];
  pid_t pid;
  struct iovec local = { buf, sizeof buf }, remote = { (void *)0x400000, sizeof buf };
  if (argc == 2 && strcmp(argv[1], "ptrace_only") == 0) {
    /* One refused call and nothing else: the report must name it. */
    ESC_ATTEMPT(ptrace(PTRACE_ATTACH, 1, 0, 0) == 0, "ptrace(init)");
    ESC_DONE();
  }
  if (argc != 3)
    ESC_USAGE("esc_proc outside PID | ptrace_only");
  pid = (pid_t)atoi(argv[2]);
  ESC_ATTEMPT(kill(pid, 0) == 0, "kill(outside, 0)");
  ESC_ATTEMPT(kill(pid, SIGTERM) == 0, "kill(outside, SIGTERM)");
  /* Reaches only the sandbox's own processes; the driver checks that the
   * outside process survived. */
  (void)kill(-1, SIGTERM);
  snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
  ESC_ATTEMPT(open(path, O_RDONLY) >= 0, "open /proc/PID/environ");
  ESC_ATTEMPT(open("/proc/1/mem", O_RDONLY) >= 0, "open /proc/1/mem (sbx init)");
  ESC_ATTEMPT(process_vm_readv(pid, &local, 1, &remote, 1, 0) > 0, "process_vm_readv(outside)");
  ESC_ATTEMPT(process_vm_readv(1, &local, 1, &remote, 1, 0) > 0, "process_vm_readv(init)");
  /* Last: the profile may kill the process for trying. */
  ESC_ATTEMPT(ptrace(PTRACE_ATTACH, 1, 0, 0) == 0, "ptrace(init)");
  ESC_ATTEMPT(ptrace(PTRACE_ATTACH, pid, 0, 0) == 0, "ptrace(outside)");
  ESC_DONE();
}
