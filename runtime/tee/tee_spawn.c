/* tee_spawn: starting, talking to and ending one worker (see tee_spawn.h). */
#include "tee_spawn.h"

#include "tee_frame.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TEE_SPAWN_CHANNEL_FD 3

uint64_t tee_now_ms(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int tee_spawn_start(struct tee_slot *s, char *const argv[])
{
  static char *const empty_env[] = { NULL };
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  sigset_t none, all;
  int sv[2], child, r;
  pid_t pid;

  s->pid = 0;
  s->fd = -1;
  s->ready = false;
  s->spent_ms = 0;
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return -errno;
  /* The child's end must not already be descriptor 3: dup2 onto itself
   * would leave it close-on-exec and the worker without a channel. */
  child = fcntl(sv[1], F_DUPFD_CLOEXEC, TEE_SPAWN_CHANNEL_FD + 1);
  close(sv[1]);
  if (child < 0) {
    r = -errno;
    close(sv[0]);
    return r;
  }
  posix_spawn_file_actions_init(&fa);
  posix_spawnattr_init(&attr);
  sigemptyset(&none);
  sigfillset(&all);
  /* The worker starts with no blocked signal and every action default:
   * SIGXCPU (its CPU limit) and SIGKILL must end it. */
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  posix_spawn_file_actions_adddup2(&fa, child, TEE_SPAWN_CHANNEL_FD);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  /* Descriptors of the caller that lack close-on-exec: the worker closes
   * them itself first thing, but they need not reach it at all. */
  posix_spawn_file_actions_addclosefrom_np(&fa, TEE_SPAWN_CHANNEL_FD + 1);
#endif
  r = posix_spawn(&pid, argv[0], &fa, &attr, argv, empty_env);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  close(child);
  if (r != 0) {
    close(sv[0]);
    return -r;
  }
  if (fcntl(sv[0], F_SETFL, O_NONBLOCK) != 0) {
    r = -errno;
    close(sv[0]);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return r;
  }
  s->pid = pid;
  s->fd = sv[0];
  return 0;
}

/* Waits until fd is ready for `events` or the deadline passes. */
static int tee_spawn_wait(int fd, short events, uint64_t deadline)
{
  for (;;) {
    uint64_t now = tee_now_ms();
    struct pollfd pfd = { .fd = fd, .events = events };
    if (now >= deadline)
      return -ETIMEDOUT;
    int n = poll(&pfd, 1, (int)(deadline - now > 60000u ? 60000u : deadline - now));
    if (n > 0)
      return 0;
    if (n < 0 && errno != EINTR)
      return -errno;
  }
}

int tee_spawn_recv(const struct tee_slot *s, char *raw, size_t cap, uint64_t deadline, char **body,
                   size_t *len)
{
  size_t got = 0, need = TEE_FRAME_HEADER;
  uint32_t length = 0;

  *body = NULL;
  *len = 0;
  if (cap < TEE_FRAME_HEADER + 1)
    return -EMSGSIZE;
  /* As many bytes as have come, in as few reads as they take: each system
   * call is a microsecond or more on a virtual machine. The wait comes
   * first: right after a request the reply is never there yet. */
  int r = tee_spawn_wait(s->fd, POLLIN, deadline);
  if (r != 0)
    return r;
  for (;;) {
    ssize_t n = read(s->fd, raw + got, cap - 1 - got);
    if (n > 0) {
      got += (size_t)n;
      if (need == TEE_FRAME_HEADER && got >= TEE_FRAME_HEADER) {
        length = tee_frame_length((unsigned char *)raw);
        /* Refused on the header: a worker may claim 4 GiB. */
        if (length > cap - 1 - TEE_FRAME_HEADER)
          return -EMSGSIZE;
        need = TEE_FRAME_HEADER + length;
      }
      if (got >= need)
        break;
      if (got == cap - 1)
        return -EMSGSIZE;
      continue;
    }
    if (n == 0)
      return got == 0 ? -ENODATA : -EPIPE;
    if (errno == EINTR)
      continue;
    if (errno != EAGAIN)
      return -errno;
    r = tee_spawn_wait(s->fd, POLLIN, deadline);
    if (r != 0)
      return r;
  }
  /* One reply per request: bytes beyond it are an answer to a question
   * not asked yet. */
  if (got > need)
    return -EPROTO;
  raw[need] = '\0';
  *body = raw + TEE_FRAME_HEADER;
  *len = length;
  return 0;
}

int tee_spawn_send(const struct tee_slot *s, const char *const *bodies, const size_t *lens,
                   size_t n, uint64_t deadline)
{
  unsigned char headers[TEE_SPAWN_MAX_PARTS][TEE_FRAME_HEADER];
  struct iovec iov[2 * TEE_SPAWN_MAX_PARTS];
  struct msghdr msg = { 0 };
  size_t k = 0;

  if (n > TEE_SPAWN_MAX_PARTS)
    return -EINVAL;
  for (size_t i = 0; i < n; i++) {
    if (lens[i] > UINT32_MAX)
      return -EMSGSIZE;
    tee_frame_put_length(headers[i], (uint32_t)lens[i]);
    iov[k++] = (struct iovec){ headers[i], TEE_FRAME_HEADER };
    if (lens[i])
      iov[k++] = (struct iovec){ (void *)(uintptr_t)bodies[i], lens[i] };
  }
  msg.msg_iov = iov;
  msg.msg_iovlen = k;
  /* Every message of a request in one system call where the socket takes
   * it; the rest as it drains. */
  while (msg.msg_iovlen > 0) {
    /* MSG_NOSIGNAL: a dead worker is an answer, not a SIGPIPE for the
     * caller. */
    ssize_t w = sendmsg(s->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0 && errno != EAGAIN)
      return -errno;
    if (w < 0) {
      int r = tee_spawn_wait(s->fd, POLLOUT, deadline);
      if (r != 0)
        return r;
      continue;
    }
    size_t done = (size_t)w;
    while (msg.msg_iovlen > 0 && done >= msg.msg_iov[0].iov_len) {
      done -= msg.msg_iov[0].iov_len;
      msg.msg_iov++;
      msg.msg_iovlen--;
    }
    if (msg.msg_iovlen > 0) {
      msg.msg_iov[0].iov_base = (char *)msg.msg_iov[0].iov_base + done;
      msg.msg_iov[0].iov_len -= done;
    }
  }
  return 0;
}

bool tee_spawn_is_strict(pid_t pid)
{
  char path[64], buf[4096];
  ssize_t n;
  int fd;
  const char *line;

  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return false;
  buf[n] = '\0';
  line = strstr(buf, "\nSeccomp:");
  /* 1 is SECCOMP_MODE_STRICT; 2 (a filter) is not what the worker asked. */
  return line && strncmp(line, "\nSeccomp:\t1\n", 12) == 0;
}

int tee_spawn_end(struct tee_slot *s, unsigned grace_ms, int *status)
{
  int st = 0, sig = 0;
  pid_t r = 0;

  if (s->fd >= 0)
    close(s->fd);
  s->fd = -1;
  if (s->pid > 0) {
    uint64_t until = tee_now_ms() + grace_ms;
    while ((r = waitpid(s->pid, &st, WNOHANG)) == 0 && tee_now_ms() < until) {
      struct timespec ms = { 0, 1000000 };
      nanosleep(&ms, NULL);
    }
    /* r == 0: not reaped, so the pid is still the worker's and kill(2)
     * cannot reach another process. A caller that ignores SIGCHLD gets 0
     * here too while the worker lives (the test escape_loop_sigchld_ignored),
     * and -1 (ECHILD) only once it is gone. */
    if (r == 0) {
      kill(s->pid, SIGKILL);
      while ((r = waitpid(s->pid, &st, 0)) < 0 && errno == EINTR)
        ;
    }
    if (r == s->pid && WIFSIGNALED(st))
      sig = WTERMSIG(st);
    if (status)
      *status = r == s->pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }
  s->pid = 0;
  s->ready = false;
  return sig;
}
