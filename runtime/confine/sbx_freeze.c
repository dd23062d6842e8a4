/* sbx_freeze: freezing the run while a person is asked on the terminal
 * (see sbx_freeze.h).
 *
 * Why freezing, and why this way:
 *   - The sandboxed command shares sbx's terminal (its stdout/stderr are
 *     the user's tty). Escaping what the prompt shows does not stop the
 *     command from writing its own bytes while the prompt waits: erase
 *     the real prompt, draw a harmless one, and the person answers y to
 *     the real request. Nothing on the terminal can tell the two apart,
 *     so the sandbox must not run while the question is on the screen.
 *   - cgroup v2's freezer stops every task of the cgroup, including ones
 *     forked a moment ago, and reports when all are stopped
 *     (cgroup.events "frozen 1"); the sandbox cannot leave its cgroup (no
 *     capabilities, no writable cgroupfs) nor thaw itself. We wait for
 *     "frozen 1" before the prompt is drawn: a task still running could
 *     still write.
 *   - SIGSTOP is not a sound fallback: the sandbox can fork between our
 *     listing of its processes and the signal (a child born then runs
 *     on), a stopped process is continued by SIGCONT from any sibling
 *     that is not stopped yet, and with a tracer the stop is reported
 *     rather than enforced. So without a cgroup v2 hierarchy we do not
 *     ask on the terminal at all (fail closed); exec: and socket:
 *     approvers do not share the terminal and still work.
 *   - A pty of the sandbox's own, relayed by sbx, would also keep it off
 *     the terminal, but changes every run's terminal behaviour (raw mode,
 *     window size, job control); freezing touches only the seconds a
 *     person is asked.
 * Freezing interrupts the caller's pending notification (the seccomp
 * wait is interruptible): the kernel cancels it and restarts the call
 * after the thaw. (With SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV the wait
 * would not be interrupted, the caller would never freeze, and every
 * question would time out here unasked: closed, but useless. sbx does not
 * set that flag.) The answer is carried over to that restart
 * (sbx_unotify_carry.c), so the person is asked once. */
#include "sbx_diag.h"
#include "sbx_freeze.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx_sandbox.h"

/* How long the freezer may take to stop every task (tasks in an
 * uninterruptible sleep stop when it ends). Longer: not asked. */
#define SBX_FREEZE_WAIT_MS 3000

void sbx_freeze_init(struct sbx_freeze *f)
{
  memset(f, 0, sizeof *f);
  pthread_mutex_init(&f->lock, NULL);
  f->state = SBX_FREEZE_NO_RUN;
}

void sbx_freeze_fini(struct sbx_freeze *f)
{
  pthread_mutex_destroy(&f->lock);
}

void sbx_freeze_arm(struct sbx_freeze *f, const char *dir, const char *why)
{
  pthread_mutex_lock(&f->lock);
  if (dir) {
    f->state = SBX_FREEZE_READY;
    snprintf(f->dir, sizeof f->dir, "%s", dir);
  } else {
    f->state = SBX_FREEZE_UNAVAILABLE;
    snprintf(f->why, sizeof f->why, "%s", why ? why : "no cgroup to freeze");
  }
  pthread_mutex_unlock(&f->lock);
}

void sbx_freeze_disarm(struct sbx_freeze *f)
{
  pthread_mutex_lock(&f->lock);
  f->state = SBX_FREEZE_NO_RUN;
  f->dir[0] = '\0';
  pthread_mutex_unlock(&f->lock);
}

static int sbx_freeze_write(const char *dir, const char *value)
{
  char path[320];
  int fd, rc = 0;
  snprintf(path, sizeof path, "%s/cgroup.freeze", dir);
  fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  if (write(fd, value, 1) != 1)
    rc = -errno;
  close(fd);
  return rc;
}

/* Waits until cgroup.events says "frozen 1" (it is poll()able: a change
 * raises POLLPRI). 0, -ETIMEDOUT, -errno. */
static int sbx_freeze_wait(const char *dir)
{
  char path[320], buf[256];
  uint64_t deadline = sbx_now_ms() + SBX_FREEZE_WAIT_MS;
  int fd, rc = -ETIMEDOUT;
  snprintf(path, sizeof path, "%s/cgroup.events", dir);
  fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  for (;;) {
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    uint64_t now;
    if (n < 0) {
      rc = -errno;
      break;
    }
    buf[n] = '\0';
    if (strstr(buf, "frozen 1")) {
      rc = 0;
      break;
    }
    now = sbx_now_ms();
    if (now >= deadline)
      break;
    struct pollfd p = { .fd = fd, .events = POLLPRI };
    if (poll(&p, 1, (int)(deadline - now > 50 ? 50 : deadline - now)) < 0 && errno != EINTR) {
      rc = -errno;
      break;
    }
  }
  close(fd);
  return rc;
}

static int sbx_freeze_hold(void *arg, char *why, size_t why_len)
{
  struct sbx_freeze *f = arg;
  const char *off = getenv(SBX_FREEZE_TEST_OFF_ENV);
  int rc = 0;

  pthread_mutex_lock(&f->lock);
  if (f->state == SBX_FREEZE_NO_RUN)
    goto done; /* nothing sandboxed exists yet (the command layer) or any more */
  if (off && strcmp(off, "1") == 0) {
    fprintf(sbx_diag(), "sbx: warning: %s=1: the sandbox is NOT frozen while asking (test only)\n",
            SBX_FREEZE_TEST_OFF_ENV);
    goto done;
  }
  if (f->state == SBX_FREEZE_UNAVAILABLE) {
    snprintf(why, why_len,
             "the sandbox shares the terminal and cannot be frozen while asking (%s): not asked "
             "(fail closed; --approver exec: or socket: do not need the terminal)",
             f->why);
    rc = -EPERM;
    goto done;
  }
  rc = sbx_freeze_write(f->dir, "1");
  if (rc == 0)
    rc = sbx_freeze_wait(f->dir);
  if (rc != 0) {
    (void)sbx_freeze_write(f->dir, "0");
    snprintf(why, why_len,
             "the sandbox could not be frozen while asking on the terminal (%s: %s): not asked",
             f->dir, rc == -ETIMEDOUT ? "its tasks did not all stop" : strerror(-rc));
    rc = -EPERM;
  }
done:
  pthread_mutex_unlock(&f->lock);
  return rc;
}

static void sbx_freeze_release(void *arg)
{
  struct sbx_freeze *f = arg;
  pthread_mutex_lock(&f->lock);
  int rc = f->state == SBX_FREEZE_READY ? sbx_freeze_write(f->dir, "0") : 0;
  if (rc != 0)
    fprintf(sbx_diag(), "sbx: warning: could not thaw the sandbox (%s/cgroup.freeze): %s\n", f->dir,
            strerror(-rc));
  pthread_mutex_unlock(&f->lock);
}

struct cs_tty_guard sbx_freeze_guard(struct sbx_freeze *f)
{
  return (struct cs_tty_guard){ .hold = sbx_freeze_hold, .release = sbx_freeze_release, .arg = f };
}
