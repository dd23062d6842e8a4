/* sbx_exec_capture: the command's stdin, stdout and stderr as pipes (see
 * sbx_exec.h). The pipes stand on 0, 1 and 2 of sbx itself while the run
 * lasts, because that is where every start-up path (cold, and the warm
 * server, which is handed 0..2) takes the command's streams from; sbx's
 * own messages go to the diagnostics stream meanwhile, never to these.
 *
 * Why a thread that always reads: a command writing more than a pipe
 * holds would block on a full pipe until its timeout, and a bounded
 * buffer must not become a way to stall a run. Past output_limit the
 * bytes are read and dropped (counted, `truncated`). Why the stdin end is
 * non-blocking and SIGPIPE blocked in this thread only: a command that
 * never reads its input, or exits early, must cost neither a hang nor
 * sbx's life, and the signal's disposition is not changed for the
 * command, which inherits it. */
#include "sbx_exec.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* How long the thread drains after the run, for a descriptor some process
 * outside the sandbox's pid namespace still holds (the run's own
 * processes are gone by then: the sandbox ends with its pid 1). */
#define SBX_EXEC_DRAIN_GRACE_MS 2000

static uint64_t sbx_exec_now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Reads what is there; -1 at end of stream. */
static int sbx_exec_drain(int fd, struct sbx_exec_stream *s)
{
  unsigned char buf[65536];
  ssize_t n = read(fd, buf, sizeof buf);
  if (n < 0)
    return errno == EINTR || errno == EAGAIN ? 0 : -1;
  if (n == 0)
    return -1;
  s->total += (uint64_t)n;
  if (s->len < s->limit) {
    size_t take = (size_t)n < s->limit - s->len ? (size_t)n : s->limit - s->len;
    memcpy(s->data + s->len, buf, take);
    s->len += take;
  }
  if (s->total > s->len)
    s->truncated = true;
  return 0;
}

static void *sbx_exec_pump(void *arg)
{
  struct sbx_exec_capture *c = arg;
  sigset_t pipe_sig;
  uint64_t deadline = 0;

  sigemptyset(&pipe_sig);
  sigaddset(&pipe_sig, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_sig, NULL);
  if (c->in_w >= 0 && c->in_len == 0) {
    close(c->in_w);
    c->in_w = -1;
  }
  while (c->out_r >= 0 || c->err_r >= 0) {
    struct pollfd p[4];
    int n = 0, iw = -1, io = -1, ie = -1, ik = -1, timeout = -1;
    if (c->in_w >= 0) {
      p[iw = n++] = (struct pollfd){ .fd = c->in_w, .events = POLLOUT };
    }
    if (c->out_r >= 0)
      p[io = n++] = (struct pollfd){ .fd = c->out_r, .events = POLLIN };
    if (c->err_r >= 0)
      p[ie = n++] = (struct pollfd){ .fd = c->err_r, .events = POLLIN };
    if (c->wake[0] >= 0)
      p[ik = n++] = (struct pollfd){ .fd = c->wake[0], .events = POLLIN };
    if (deadline) {
      uint64_t now = sbx_exec_now_ms();
      if (now >= deadline)
        break;
      timeout = (int)(deadline - now);
    }
    if (poll(p, (nfds_t)n, timeout) < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    if (iw >= 0 && p[iw].revents) {
      ssize_t w = -1;
      if (p[iw].revents & POLLOUT)
        w = write(c->in_w, c->in + c->in_off, c->in_len - c->in_off);
      if (w > 0)
        c->in_off += (size_t)w;
      /* All given, or the command closed its end (EPIPE): EOF for it. */
      if ((w < 0 && errno != EAGAIN && errno != EINTR) || (p[iw].revents & (POLLERR | POLLHUP)) ||
          c->in_off == c->in_len) {
        close(c->in_w);
        c->in_w = -1;
      }
    }
    if (io >= 0 && p[io].revents && sbx_exec_drain(c->out_r, &c->out) < 0) {
      close(c->out_r);
      c->out_r = -1;
    }
    if (ie >= 0 && p[ie].revents && sbx_exec_drain(c->err_r, &c->err) < 0) {
      close(c->err_r);
      c->err_r = -1;
    }
    if (ik >= 0 && p[ik].revents) {
      /* The run is over: what is still open gets the grace period. */
      close(c->wake[0]);
      c->wake[0] = -1;
      deadline = sbx_exec_now_ms() + SBX_EXEC_DRAIN_GRACE_MS;
      if (c->in_w >= 0) {
        close(c->in_w);
        c->in_w = -1;
      }
    }
  }
  return NULL;
}

static void sbx_exec_close(int *fd)
{
  if (*fd >= 0)
    close(*fd);
  *fd = -1;
}

int sbx_exec_capture_start(struct sbx_exec_capture *c, const unsigned char *in, size_t in_len,
                           size_t limit)
{
  int pin[2] = { -1, -1 }, pout[2] = { -1, -1 }, perr[2] = { -1, -1 };
  int r = 0;

  memset(c, 0, sizeof *c);
  c->saved[0] = c->saved[1] = c->saved[2] = -1;
  c->in_w = c->out_r = c->err_r = -1;
  c->wake[0] = c->wake[1] = -1;
  c->in = in;
  c->in_len = in_len;
  c->out.limit = c->err.limit = limit;
  c->out.data = malloc(limit ? limit : 1);
  c->err.data = malloc(limit ? limit : 1);
  if (!c->out.data || !c->err.data) {
    sbx_exec_capture_free(c);
    return -ENOMEM;
  }
  /* sbx's ends close-on-exec: no command, approver or helper gets them. */
  if (pipe2(pin, O_CLOEXEC) != 0 || pipe2(pout, O_CLOEXEC) != 0 || pipe2(perr, O_CLOEXEC) != 0 ||
      pipe2(c->wake, O_CLOEXEC) != 0) {
    r = -errno;
    goto fail;
  }
  for (int fd = 0; fd < 3; fd++)
    if ((c->saved[fd] = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0) {
      r = -errno;
      goto fail;
    }
  if (fcntl(pin[1], F_SETFL, O_NONBLOCK) != 0) {
    r = -errno;
    goto fail;
  }
  /* dup2 clears close-on-exec: the command inherits 0..2 as it would. */
  if (dup2(pin[0], 0) < 0 || dup2(pout[1], 1) < 0 || dup2(perr[1], 2) < 0) {
    r = -errno;
    for (int fd = 0; fd < 3; fd++)
      dup2(c->saved[fd], fd);
    goto fail;
  }
  sbx_exec_close(&pin[0]);
  sbx_exec_close(&pout[1]);
  sbx_exec_close(&perr[1]);
  c->in_w = pin[1];
  c->out_r = pout[0];
  c->err_r = perr[0];
  if ((r = pthread_create(&c->thread, NULL, sbx_exec_pump, c)) != 0) {
    r = -r;
    for (int fd = 0; fd < 3; fd++)
      dup2(c->saved[fd], fd);
    goto fail;
  }
  c->started = true;
  return 0;
fail:
  sbx_exec_close(&pin[0]);
  sbx_exec_close(&pin[1]);
  sbx_exec_close(&pout[0]);
  sbx_exec_close(&pout[1]);
  sbx_exec_close(&perr[0]);
  sbx_exec_close(&perr[1]);
  c->in_w = c->out_r = c->err_r = -1;
  sbx_exec_capture_free(c);
  return r;
}

void sbx_exec_capture_finish(struct sbx_exec_capture *c)
{
  if (!c->started)
    return;
  /* sbx's own copies of the pipes go first, or the streams never end. */
  for (int fd = 0; fd < 3; fd++)
    dup2(c->saved[fd], fd);
  sbx_exec_close(&c->wake[1]);
  pthread_join(c->thread, NULL);
  c->started = false;
  sbx_exec_close(&c->in_w);
  sbx_exec_close(&c->out_r);
  sbx_exec_close(&c->err_r);
  sbx_exec_close(&c->wake[0]);
}

void sbx_exec_capture_free(struct sbx_exec_capture *c)
{
  sbx_exec_capture_finish(c);
  for (int fd = 0; fd < 3; fd++)
    sbx_exec_close(&c->saved[fd]);
  sbx_exec_close(&c->wake[0]);
  sbx_exec_close(&c->wake[1]);
  free(c->out.data);
  free(c->err.data);
  c->out.data = c->err.data = NULL;
}
