/* cs_approval_socket: the socket:PATH approver, JSON lines over a unix
 * stream socket to a host application (docs/approvals.md). One request
 * line out ({"type":"request","id":N,...}), one reply line back with the
 * same id. Lines with another id are stale answers to requests that
 * already timed out and are skipped. The connection is opened on first
 * use and again after any failure; a failure is always that request's
 * deny. */

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cs_approval_internal.h"

struct cs_sock_approver {
  char *path;
  int fd;
  char *buf; /* bytes received after the last complete line */
  size_t used;
};

static void cs_sock_drop(struct cs_sock_approver *a)
{
  if (a->fd >= 0)
    close(a->fd);
  a->fd = -1;
  a->used = 0;
}

static int cs_sock_connect(struct cs_sock_approver *a)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };

  if (a->fd >= 0)
    return 0;
  if (strlen(a->path) >= sizeof sa.sun_path)
    return -ENAMETOOLONG;
  memcpy(sa.sun_path, a->path, strlen(a->path) + 1);
  a->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (a->fd < 0)
    return -errno;
  if (connect(a->fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
    int e = -errno;
    cs_sock_drop(a);
    return e;
  }
  return 0;
}

static int cs_sock_decide(void *ctx, const struct cs_approval_request *req, unsigned timeout_ms,
                          struct cs_approval_decision *d)
{
  struct cs_sock_approver *a = ctx;
  uint64_t deadline = cs_approval_now_ms() + timeout_ms;
  char *json = NULL;
  size_t len, sent = 0;
  int r;

  snprintf(d->approver, sizeof d->approver, "socket:%s", a->path);
  if ((r = cs_sock_connect(a)) != 0) {
    snprintf(d->reason, sizeof d->reason, "approver socket unreachable: %s", strerror(-r));
    return r;
  }
  json = cs_approval_request_json(req, 1);
  if (!json) {
    snprintf(d->reason, sizeof d->reason, "out of memory");
    return -ENOMEM;
  }
  len = strlen(json);
  for (;;) {
    uint64_t now = cs_approval_now_ms();
    struct pollfd p = { .fd = a->fd, .events = sent < len ? POLLOUT | POLLIN : POLLIN };
    char *nl;
    int n;

    /* A complete line already buffered? */
    while ((nl = memchr(a->buf, '\n', a->used))) {
      size_t ll = (size_t)(nl - a->buf);
      struct cs_approval_decision tmp = *d;
      *nl = '\0';
      r = cs_approval_reply_parse(a->buf, req->id, &tmp);
      memmove(a->buf, nl + 1, a->used - ll - 1);
      a->used -= ll + 1;
      if (r == 0 && sent == len) {
        *d = tmp;
        goto cleanup;
      }
      /* A line with another id answers an older, timed-out request;
       * anything else unparsable is a protocol failure of this one. */
      if (strstr(tmp.reason, "id missing or not") == NULL) {
        *d = tmp;
        r = -EPROTO;
        cs_sock_drop(a);
        goto cleanup;
      }
    }
    if (now >= deadline) {
      r = -ETIMEDOUT;
      snprintf(d->reason, sizeof d->reason, "approver timed out after %u ms", timeout_ms);
      /* A late answer must not be taken for the next request's. */
      cs_sock_drop(a);
      goto cleanup;
    }
    n = poll(&p, 1, (int)(deadline - now));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      r = -errno;
      snprintf(d->reason, sizeof d->reason, "poll: %s", strerror(errno));
      cs_sock_drop(a);
      goto cleanup;
    }
    if (n == 0)
      continue;
    if ((p.revents & POLLOUT) && sent < len) {
      ssize_t w = send(a->fd, json + sent, len - sent, MSG_NOSIGNAL);
      if (w < 0 && errno != EAGAIN && errno != EINTR) {
        r = -errno;
        snprintf(d->reason, sizeof d->reason, "approver closed the channel (%s)", strerror(errno));
        cs_sock_drop(a);
        goto cleanup;
      }
      if (w > 0)
        sent += (size_t)w;
    }
    if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t rd = recv(a->fd, a->buf + a->used, CS_APPROVAL_MAX_REPLY - a->used, 0);
      if (rd < 0 && (errno == EAGAIN || errno == EINTR))
        continue;
      if (rd <= 0) {
        r = rd == 0 ? -EPIPE : -errno;
        snprintf(d->reason, sizeof d->reason, "approver closed the channel");
        cs_sock_drop(a);
        goto cleanup;
      }
      a->used += (size_t)rd;
      if (a->used == CS_APPROVAL_MAX_REPLY && !memchr(a->buf, '\n', a->used)) {
        r = -EMSGSIZE;
        snprintf(d->reason, sizeof d->reason, "reply line longer than %u bytes",
                 CS_APPROVAL_MAX_REPLY);
        cs_sock_drop(a);
        goto cleanup;
      }
    }
  }
cleanup:
  free(json);
  if (r != 0)
    d->allow = false;
  return r;
}

static void cs_sock_destroy(void *ctx)
{
  struct cs_sock_approver *a = ctx;
  if (!a)
    return;
  cs_sock_drop(a);
  free(a->buf);
  free(a->path);
  free(a);
}

int cs_approver_socket(const char *path, struct cs_approver *out)
{
  struct cs_sock_approver *a;

  if (!path || !path[0] || !out)
    return -EINVAL;
  memset(out, 0, sizeof *out);
  a = calloc(1, sizeof *a);
  if (!a)
    return -ENOMEM;
  a->fd = -1;
  a->path = strdup(path);
  a->buf = malloc(CS_APPROVAL_MAX_REPLY + 1);
  if (!a->path || !a->buf) {
    cs_sock_destroy(a);
    return -ENOMEM;
  }
  out->kind = "socket";
  out->decide = cs_sock_decide;
  out->destroy = cs_sock_destroy;
  out->ctx = a;
  return 0;
}
