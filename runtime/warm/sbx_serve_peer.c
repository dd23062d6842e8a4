/* sbx_serve_peer: who may connect to `sbx serve`: the same uid, and a
 * client that shares the server's namespaces and root and holds
 * CAP_SYS_ADMIN in them (sbx_serve_peer_ok). */
#include <errno.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "sbx_serve_parts.h"

/* What a peer must share with us (sbx_serve_peer_ok). */
static const char *const sbx_peer_ns[SBX_PEER_NS] = { "ns/mnt", "ns/pid", "ns/net", "ns/user",
                                                      "root" };

/* Our own namespaces and root, read once: the server never changes them
 * (only its children join others), and every request compares them. */
int sbx_serve_self_ns(struct sbx_srv *s)
{
  for (int i = 0; i < SBX_PEER_NS; i++) {
    char self[64];
    struct stat st;
    snprintf(self, sizeof self, "/proc/self/%s", sbx_peer_ns[i]);
    if (stat(self, &st) < 0)
      return -errno;
    s->self_ns[i].dev = st.st_dev;
    s->self_ns[i].ino = st.st_ino;
  }
  return 0;
}

/* Same object (dev, ino) at /proc/<pid>/<name i> (pid's directory dir)
 * as ours? */
static bool sbx_peer_same(const struct sbx_srv *s, int dir, int i)
{
  struct stat a;
  return fstatat(dir, sbx_peer_ns[i], &a, 0) == 0 && a.st_dev == s->self_ns[i].dev &&
         a.st_ino == s->self_ns[i].ino;
}

/* Is the client on fd entitled to what a cold run of its own would do?
 * The uid alone is not enough: a command inside a (permissive) sandbox
 * runs as uid 0 too, without capabilities, in other namespaces, and can
 * reach the socket when its view shows the state directory; served, it
 * would get a run outside its own sandbox (no deadline, cgroup or pid
 * namespace of the outer run). So the peer must hold CAP_SYS_ADMIN (what
 * `sbx run --cold` needs as root) and share our mount, pid, network and
 * user namespaces and our root directory. The peer is pinned by a pidfd
 * (SO_PEERPIDFD, else pidfd_open of SO_PEERCRED's pid) that must still
 * be running after the checks: a pid reused meanwhile is refused. */
bool sbx_serve_peer_ok(const struct sbx_srv *s, int fd, char *why, size_t why_len)
{
  struct ucred cred;
  socklen_t cl = sizeof cred, pl = sizeof(int);
  char path[64], status[4096], *cap, *sec;
  unsigned long long eff = 0;
  int mode = -1;
  int pidfd = -1, dir = -1, sfd = -1;
  struct pollfd pp;
  ssize_t n;
  bool ok = false;

  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) < 0 || cl != sizeof cred) {
    snprintf(why, why_len, "no peer credentials");
    goto cleanup;
  }
  /* Only our own uid: anyone else could otherwise run commands as us. */
  if (cred.uid != geteuid()) {
    snprintf(why, why_len, "refused a client of uid %d", (int)cred.uid);
    goto cleanup;
  }
  if (cred.pid <= 0) {
    snprintf(why, why_len, "refused a client outside our pid namespace");
    goto cleanup;
  }
  if (getsockopt(fd, SOL_SOCKET, SBX_SO_PEERPIDFD, &pidfd, &pl) < 0) {
    pidfd = (int)syscall(SYS_pidfd_open, cred.pid, 0);
    if (pidfd < 0) {
      snprintf(why, why_len, "refused client pid %d: pidfd: %s", (int)cred.pid, strerror(errno));
      goto cleanup;
    }
  } else if (sbx_pidfd_pid(pidfd) != cred.pid) {
    snprintf(why, why_len, "refused client pid %d: its pidfd names another process", (int)cred.pid);
    goto cleanup;
  }
  snprintf(path, sizeof path, "/proc/%d", (int)cred.pid);
  if ((dir = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
      (sfd = openat(dir, "status", O_RDONLY | O_CLOEXEC)) < 0 ||
      (n = read(sfd, status, sizeof status - 1)) <= 0) {
    snprintf(why, why_len, "refused client pid %d: %s", (int)cred.pid, strerror(errno));
    goto cleanup;
  }
  status[n] = '\0';
  if (!(cap = strstr(status, "\nCapEff:")) || sscanf(cap + 8, "%llx", &eff) != 1 ||
      !(eff & (1ull << 21 /* CAP_SYS_ADMIN */))) {
    snprintf(why, why_len, "refused client pid %d: no CAP_SYS_ADMIN (a sandboxed command?)",
             (int)cred.pid);
    goto cleanup;
  }
  /* A seccomp filter of the caller's own would be inherited by a cold run
   * (filters stack, the profile's on top); a warm run starts from the
   * server's processes and would shed it: such a caller runs cold. */
  if (!(sec = strstr(status, "\nSeccomp:")) || sscanf(sec + 9, "%d", &mode) != 1 || mode != 0) {
    snprintf(why, why_len,
             "refused client pid %d: it runs under a seccomp filter, which a warm "
             "run would not keep",
             (int)cred.pid);
    goto cleanup;
  }
  for (int i = 0; i < SBX_PEER_NS; i++)
    if (!sbx_peer_same(s, dir, i)) {
      snprintf(why, why_len,
               "refused client pid %d: its %s is not the server's (a sandboxed "
               "command?)",
               (int)cred.pid, sbx_peer_ns[i]);
      goto cleanup;
    }
  /* Still the process we checked: not exited, so its pid not reused. */
  pp = (struct pollfd){ .fd = pidfd, .events = POLLIN };
  if (poll(&pp, 1, 0) != 0) {
    snprintf(why, why_len, "refused client pid %d: exited during the check", (int)cred.pid);
    goto cleanup;
  }
  ok = true;
cleanup:
  if (sfd >= 0)
    close(sfd);
  if (dir >= 0)
    close(dir);
  if (pidfd >= 0)
    close(pidfd);
  return ok;
}
