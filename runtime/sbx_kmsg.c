/* sbx_kmsg: names the system call the seccomp filter refused or killed.
 *
 * When a filter returns SECCOMP_RET_KILL_* the kernel writes an audit
 * record (type=1326, "pid=... sig=31 ... syscall=N") to the kernel log;
 * filters loaded with SECCOMP_FILTER_FLAG_LOG get one for ERRNO/TRAP
 * refusals too (if kernel.seccomp.actions_logged allows). Without auditd
 * these go through printk, so they are rate limited (10 per 5 s by default)
 * and need /dev/kmsg to be readable (root, or dmesg_restrict=0). The
 * supervisor opens /dev/kmsg at the end of the log before the run and reads
 * what arrived after it, keeping only records of the command's own pid
 * (learnt from the kernel with SCM_CREDENTIALS, so it is the host pid).
 * This is best effort and documented as such: a refusal in a grandchild is
 * counted only when its pid is the command's, and a rate-limited record is
 * lost. The sandbox never depends on it; it only makes the report precise. */
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx_internal.h"

int sbx_kmsg_open(void)
{
  int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  if (lseek(fd, 0, SEEK_END) < 0) {
    int e = errno;
    close(fd);
    return -e;
  }
  return fd;
}

static long sbx_field(const char *rec, const char *key, bool *found)
{
  const char *s = rec;
  size_t kl = strlen(key);
  *found = false;
  while ((s = strstr(s, key))) {
    if (s == rec || s[-1] == ' ') {
      char *end;
      long v = strtol(s + kl, &end, 10);
      if (end != s + kl) {
        *found = true;
        return v;
      }
    }
    s += kl;
  }
  return 0;
}

void sbx_kmsg_scan(int fd, pid_t pid, struct sbx_kmsg_hit *hit)
{
  char rec[2048];
  hit->syscall = -1;
  hit->sig = 0;
  hit->count = 0;
  if (fd < 0 || pid <= 0)
    return;
  for (;;) {
    ssize_t n = read(fd, rec, sizeof rec - 1);
    bool fp, fs, fg;
    long rpid, nr, sig;
    if (n < 0 && errno == EPIPE)
      continue; /* records overwritten before we read them: skip ahead */
    if (n <= 0)
      break;
    rec[n] = '\0';
    if (!strstr(rec, "type=1326"))
      continue;
    rpid = sbx_field(rec, "pid=", &fp);
    nr = sbx_field(rec, "syscall=", &fs);
    sig = sbx_field(rec, "sig=", &fg);
    if (!fp || !fs || rpid != (long)pid)
      continue;
    /* Only x86_64 records carry a number of this filter's table; others
     * (arch=40000003, i386) are named by number only. */
    hit->count++;
    /* A killing record (sig != 0) is the one that ended the process: keep
     * it over earlier refusals. */
    if (hit->sig == 0 || sig != 0) {
      hit->syscall = (int)nr;
      hit->sig = fg ? sig : 0;
    }
  }
}

const char *sbx_syscall_name(int nr, char *buf, size_t len)
{
  char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, nr);
  snprintf(buf, len, "%s", name ? name : "?");
  free(name);
  return buf;
}
