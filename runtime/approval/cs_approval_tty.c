/* cs_approval_tty: the interactive approver, a prompt on sbx's own
 * controlling terminal (/dev/tty, opened per request; never the
 * sandbox's stdin, which the sandboxed command may feed). Answers: y
 * (once), s (this command prefix, this session), a (always), anything
 * else, end of input or the timeout: deny. */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "cs_approval_internal.h"

/* Control characters of a path or argument could rewrite the prompt
 * (ANSI escapes, carriage returns): they are shown escaped. */
static void cs_tty_put(int fd, const char *s)
{
  char out[1024];
  size_t n = 0;
  for (const unsigned char *p = (const unsigned char *)s; *p && n + 5 < sizeof out; p++) {
    if (*p < 0x20 || *p == 0x7f)
      n += (size_t)snprintf(out + n, sizeof out - n, "\\x%02x", *p);
    else
      out[n++] = (char)*p;
  }
  (void)!write(fd, out, n);
}

static int cs_tty_decide(void *ctx, const struct cs_approval_request *req, unsigned timeout_ms,
                         struct cs_approval_decision *d)
{
  uint64_t deadline = cs_approval_now_ms() + timeout_ms;
  char line[16];
  size_t got = 0;
  char head[160];
  int fd, r = -ETIMEDOUT;

  (void)ctx;
  snprintf(d->approver, sizeof d->approver, "tty");
  fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    snprintf(d->reason, sizeof d->reason, "no controlling terminal to ask on (%s)",
             strerror(errno));
    return -errno;
  }
  tcflush(fd, TCIFLUSH); /* type-ahead is not an answer to this question */
  snprintf(head, sizeof head, "\nsbx: approval needed: %s (%s level, profile %s)\n  command:",
           cs_approval_op_name(req->operation), req->layer ? req->layer : "?",
           req->profile ? req->profile : "?");
  cs_tty_put(fd, head);
  for (size_t i = 0; req->argv && req->argv[i] && i < 32; i++) {
    cs_tty_put(fd, " ");
    cs_tty_put(fd, req->argv[i]);
  }
  if (req->path) {
    cs_tty_put(fd, "\n  path:    ");
    cs_tty_put(fd, req->path);
  }
  if (req->address) {
    cs_tty_put(fd, "\n  address: ");
    cs_tty_put(fd, req->address);
  }
  cs_tty_put(fd, "\n  rule:    ");
  cs_tty_put(fd, req->rule ? req->rule : "?");
  snprintf(head, sizeof head, "\nAllow? [y]es once, [s]ession, [a]lways, anything else denies "
                              "(%u s): ", timeout_ms / 1000);
  cs_tty_put(fd, head);
  for (;;) {
    uint64_t now = cs_approval_now_ms();
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (now >= deadline)
      break;
    int n = poll(&p, 1, (int)(deadline - now));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    ssize_t rd = read(fd, line + got, sizeof line - 1 - got);
    if (rd <= 0) {
      r = -EPIPE;
      break;
    }
    got += (size_t)rd;
    line[got] = '\0';
    if (strchr(line, '\n') || got == sizeof line - 1) {
      r = 0;
      break;
    }
  }
  if (r != 0) {
    cs_tty_put(fd, "\nsbx: no answer: denied\n");
    snprintf(d->reason, sizeof d->reason,
             r == -ETIMEDOUT ? "no answer on the terminal within %u ms" : "terminal closed",
             timeout_ms);
    close(fd);
    return r;
  }
  close(fd);
  d->allow = true;
  if (strcmp(line, "y\n") == 0 || strcmp(line, "yes\n") == 0)
    d->scope = CS_APPROVAL_ONCE;
  else if (strcmp(line, "s\n") == 0)
    d->scope = CS_APPROVAL_SESSION;
  else if (strcmp(line, "a\n") == 0)
    d->scope = CS_APPROVAL_ALWAYS;
  else
    d->allow = false;
  snprintf(d->reason, sizeof d->reason, "answered %s on the terminal",
           d->allow ? "allow" : "deny");
  return 0;
}

int cs_approver_tty(struct cs_approver *out)
{
  if (!out)
    return -EINVAL;
  memset(out, 0, sizeof *out);
  out->kind = "tty";
  out->decide = cs_tty_decide;
  return 0;
}
