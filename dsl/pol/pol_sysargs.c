/* pol_sysargs: see pol_sysargs.h. */
#include "pol_sysargs.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* One row per system call, sorted by name. args: the names, comma
 * separated, in register order; is32: bit i set when argument i is
 * declared int / unsigned int / pid_t / umode_t in the kernel prototype
 * (SYSCALL_DEFINEn) on x86_64. Anything wider (long, unsigned long,
 * size_t, pointers) is compared on all 64 bits. Every row says where its
 * prototype is, so a reviewer can check it. */
static const struct pol_sysargs_row {
  const char *syscall;
  const char *args;
  uint8_t is32;
} pol_sysargs[] = {
  /* kernel/bpf/syscall.c: (int cmd, union bpf_attr *uattr, unsigned int size) */
  { "bpf", "cmd,attr,size", 0x05 },
  /* fs/open.c: (const char *filename, umode_t mode) */
  { "chmod", "pathname,mode", 0x02 },
  /* kernel/fork.c (x86_64 order): (unsigned long flags, unsigned long newsp,
     * int *parent_tidptr, int *child_tidptr, unsigned long tls) */
  { "clone", "flags,stack,parent_tid,child_tid,tls", 0x00 },
  /* kernel/fork.c: (struct clone_args *uargs, size_t size) */
  { "clone3", "args,size", 0x00 },
  /* fs/open.c: (const char *pathname, umode_t mode) */
  { "creat", "pathname,mode", 0x02 },
  /* fs/open.c: (unsigned int fd, umode_t mode) */
  { "fchmod", "fd,mode", 0x03 },
  /* fs/open.c: (int dfd, const char *filename, umode_t mode) */
  { "fchmodat", "dirfd,pathname,mode", 0x05 },
  /* fs/open.c: (int dfd, const char *filename, umode_t mode, unsigned int flags) */
  { "fchmodat2", "dirfd,pathname,mode,flags", 0x0d },
  /* fs/fcntl.c: (unsigned int fd, unsigned int cmd, unsigned long arg) */
  { "fcntl", "fd,cmd,arg", 0x03 },
  /* fs/ioctl.c: (unsigned int fd, unsigned int cmd, unsigned long arg) */
  { "ioctl", "fd,cmd,arg", 0x03 },
  /* kernel/signal.c: (pid_t pid, int sig) */
  { "kill", "pid,sig", 0x03 },
  /* mm/madvise.c: (unsigned long start, size_t len, int behavior) */
  { "madvise", "addr,length,advice", 0x04 },
  /* mm/memfd.c: (const char *uname, unsigned int flags) */
  { "memfd_create", "name,flags", 0x02 },
  /* fs/namei.c: (const char *pathname, umode_t mode) */
  { "mkdir", "pathname,mode", 0x02 },
  /* fs/namei.c: (int dfd, const char *pathname, umode_t mode) */
  { "mkdirat", "dirfd,pathname,mode", 0x05 },
  /* fs/namei.c: (const char *filename, umode_t mode, unsigned dev) */
  { "mknod", "pathname,mode,dev", 0x06 },
  /* fs/namei.c: (int dfd, const char *filename, umode_t mode, unsigned int dev) */
  { "mknodat", "dirfd,pathname,mode,dev", 0x0d },
  /* arch/x86/kernel/sys_x86_64.c: six unsigned long */
  { "mmap", "addr,length,prot,flags,fd,offset", 0x00 },
  /* mm/mprotect.c: (unsigned long start, size_t len, unsigned long prot) */
  { "mprotect", "addr,length,prot", 0x00 },
  /* fs/open.c: (const char *filename, int flags, umode_t mode) */
  { "open", "pathname,flags,mode", 0x06 },
  /* fs/open.c: (int dfd, const char *filename, int flags, umode_t mode) */
  { "openat", "dirfd,pathname,flags,mode", 0x0d },
  /* kernel/exec_domain.c: (unsigned int personality) */
  { "personality", "persona", 0x01 },
  /* kernel/sys.c: (int option, unsigned long arg2 .. arg5) */
  { "prctl", "option,arg2,arg3,arg4,arg5", 0x01 },
  /* kernel/ptrace.c: (long request, long pid, unsigned long addr, unsigned long data) */
  { "ptrace", "request,pid,addr,data", 0x00 },
  /* kernel/seccomp.c: (unsigned int op, unsigned int flags, void *uargs) */
  { "seccomp", "operation,flags,args", 0x03 },
  /* net/socket.c: (int fd, int level, int optname, char *optval, int optlen) */
  { "setsockopt", "sockfd,level,optname,optval,optlen", 0x17 },
  /* kernel/nsproxy.c: (int fd, int flags) */
  { "setns", "fd,nstype", 0x03 },
  /* net/socket.c: (int family, int type, int protocol) */
  { "socket", "domain,type,protocol", 0x07 },
  /* net/socket.c: (int family, int type, int protocol, int *usockvec) */
  { "socketpair", "domain,type,protocol,sv", 0x07 },
  /* kernel/signal.c: (pid_t tgid, pid_t pid, int sig) */
  { "tgkill", "tgid,tid,sig", 0x07 },
  /* kernel/signal.c: (pid_t pid, int sig) */
  { "tkill", "tid,sig", 0x03 },
  /* kernel/fork.c: (unsigned long unshare_flags) */
  { "unshare", "flags", 0x00 },
};

static const struct pol_sysargs_row *pol_sysargs_find(const char *syscall)
{
  for (size_t i = 0; i < sizeof pol_sysargs / sizeof pol_sysargs[0]; i++)
    if (strcmp(pol_sysargs[i].syscall, syscall) == 0)
      return &pol_sysargs[i];
  return NULL;
}

const char *pol_sysarg_names(const char *syscall)
{
  const struct pol_sysargs_row *row = pol_sysargs_find(syscall);
  return row ? row->args : "";
}

int pol_sysarg_lookup(const char *syscall, const char *arg, unsigned *index, bool *is32)
{
  const struct pol_sysargs_row *row = pol_sysargs_find(syscall);
  unsigned idx = 0;
  bool found = false;
  if (strncmp(arg, "arg", 3) == 0 && arg[3] >= '0' && arg[3] <= '5' && arg[4] == '\0') {
    idx = (unsigned)(arg[3] - '0');
    found = true;
  } else if (row) {
    size_t len = strlen(arg);
    const char *p = row->args;
    for (unsigned i = 0; *p; i++) {
      const char *end = strchr(p, ',');
      size_t n = end ? (size_t)(end - p) : strlen(p);
      if (n == len && strncmp(p, arg, n) == 0) {
        idx = i;
        found = true;
        break;
      }
      if (!end)
        break;
      p = end + 1;
    }
  }
  if (!found)
    return -ENOENT;
  *index = idx;
  *is32 = row ? (row->is32 >> idx) & 1u : false;
  return 0;
}
