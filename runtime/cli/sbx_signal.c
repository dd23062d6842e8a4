/* sbx_signal: terminating signals during a run (see sbx_signal.h). */
#include "sbx_signal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t sbx_sig_running;
static volatile sig_atomic_t sbx_sig_received;

static const int sbx_sig_list[] = { SIGINT, SIGTERM, SIGHUP };

/* Kills every child of this thread, listed by the kernel in
 * /proc/thread-self/children. Only open/read/close/kill: async-signal-safe. */
static void sbx_signal_kill_children(void)
{
  char buf[512];
  ssize_t n;
  pid_t pid = 0;
  int fd = open("/proc/thread-self/children", O_RDONLY | O_CLOEXEC);

  if (fd < 0)
    return;
  n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  if (n <= 0)
    return;
  buf[n] = ' ';
  for (ssize_t i = 0; i <= n; i++) {
    if (buf[i] >= '0' && buf[i] <= '9') {
      pid = pid * 10 + (buf[i] - '0');
    } else {
      if (pid > 0)
        kill(pid, SIGKILL);
      pid = 0;
    }
  }
}

static void sbx_signal_handler(int sig)
{
  int saved = errno;

  if (!sbx_sig_running) {
    /* Not running a command: the default action (usually death) is right;
     * a slot or queue place we held is reclaimed by the others. */
    signal(sig, SIG_DFL);
    raise(sig);
    errno = saved;
    return;
  }
  if (!sbx_sig_received)
    sbx_sig_received = sig;
  /* The sandbox dies now; sbx_confine_run then returns and the run is
   * recorded. Killing init (pid 1 of the sandbox's pid namespace) kills
   * every process in it, so nothing outlives the interruption. */
  sbx_signal_kill_children();
  errno = saved;
}

int sbx_signal_install(void)
{
  struct sigaction sa;

  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = sbx_signal_handler;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < sizeof(sbx_sig_list) / sizeof(sbx_sig_list[0]); i++)
    sigaddset(&sa.sa_mask, sbx_sig_list[i]);
  for (size_t i = 0; i < sizeof(sbx_sig_list) / sizeof(sbx_sig_list[0]); i++) {
    struct sigaction old;
    /* A signal our caller ignores (a shell does so for SIGINT in `cmd &`)
     * stays ignored: the caller decided it must not stop us. */
    if (sigaction(sbx_sig_list[i], NULL, &old) != 0)
      return -errno;
    if (old.sa_handler == SIG_IGN)
      continue;
    if (sigaction(sbx_sig_list[i], &sa, NULL) != 0)
      return -errno;
  }
  return 0;
}

void sbx_signal_running(int running)
{
  sbx_sig_running = running;
}

int sbx_signal_received(void)
{
  return sbx_sig_received;
}

const char *sbx_signal_name(int sig)
{
  switch (sig) {
  case SIGINT:
    return "INT";
  case SIGTERM:
    return "TERM";
  case SIGHUP:
    return "HUP";
  default:
    return "?";
  }
}
