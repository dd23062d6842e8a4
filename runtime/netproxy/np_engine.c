/* np_engine: the proxy's event loop (np_proxy.h). One thread, one epoll
 * set: listeners, the connections' two ends, and one eventfd through which
 * the resolver workers, np_engine_answer and np_engine_stop wake the loop.
 * Each connection owns one fixed allocation (request head + one buffer per
 * direction) and, while relaying, at most two pipes of buffer_size each
 * (splice), so memory is bounded by max_connections. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "np_http.h"
#include "np_proxy.h"
#include "np_resolver.h"
#include "np_socks.h"

enum np_watch_kind {
  NP_WATCH_HTTP = 0,
  NP_WATCH_SOCKS = 1,
  NP_WATCH_WAKE = 2,
  NP_WATCH_CLIENT = 3,
  NP_WATCH_UPSTREAM = 4,
};

/* Every epoll entry points at a struct whose first member is its kind. */
struct np_watch {
  int kind;
  int fd;
};

enum np_state {
  NP_ST_FREE = 0,
  NP_ST_HEAD,    /* reading the request (SOCKS: greeting, then request) */
  NP_ST_ASK,     /* waiting for an answer */
  NP_ST_RESOLVE, /* a worker resolves and checks */
  NP_ST_DIAL,    /* connecting to a checked address */
  NP_ST_RELAY,   /* bytes both ways */
  NP_ST_REFUSE,  /* sending the refusal, then draining until the client closes */
};

struct np_buf {
  char *data;
  size_t off, len, cap;
};

/* One direction of a spliced connection: bytes move socket -> pipe ->
 * socket inside the kernel, never through the loop's memory. */
struct np_pipe {
  int rd, wr;
  size_t held; /* spliced in, not yet out */
  size_t cap;  /* the pipe's size: what one splice in may take */
  int stalled; /* a splice in found no room, or no data with bytes held:
                * the input is not watched until some bytes went out */
};

struct np_conn;

struct np_end {
  int kind; /* NP_WATCH_CLIENT or NP_WATCH_UPSTREAM */
  int fd;
  uint32_t events;
  struct np_conn *conn;
  int parked; /* out of the epoll set: hung up, with nothing to do on it now */
};

struct np_conn {
  uint32_t gen;
  unsigned slot;
  enum np_state state;
  enum np_protocol proto;
  struct np_end client, up;
  char *mem;
  char *head;
  size_t head_len;
  struct np_buf to_up, to_client;
  int spliced; /* relaying through pipe_up and pipe_down, not the buffers */
  struct np_pipe pipe_up, pipe_down;
  int socks_greeted;
  struct np_http_request http;
  size_t leftover_off; /* head bytes after the request: the client's first payload */
  struct np_host host;
  uint16_t port;
  struct sockaddr_storage addrs[NP_ADDRS_MAX];
  size_t n_addrs, next_addr;
  int last_errno;
  char dialled[INET6_ADDRSTRLEN + 8];
  int allowed;
  char basis[320];
  char refusal[448];
  int client_eof, up_eof, client_shut, up_shut;
  uint64_t bytes_up, bytes_down, start_ms, deadline_ms;
  uint64_t handshake_end; /* resolving and dialling end here, whatever is left */
  struct np_conn *next_free;
};

/* Descriptors left to the engine's own (epoll, eventfd, listeners) and to
 * its caller's when the splice budget is sized (np_splice_budget). */
#define NP_FD_MARGIN 64
/* Empty pipes kept for the next connections (each 2 descriptors, inside
 * the splice budget). */
#define NP_PIPE_POOL 64

struct np_answer {
  struct np_answer *next;
  uint64_t id;
  int allow;
  char basis[160];
};

struct np_engine {
  int epfd;
  struct np_watch wake;
  struct np_watch *listeners;
  size_t n_listeners;
  int accept_paused;
  struct np_conn *conns;
  struct np_conn *free_list;
  const struct np_policy *policy;
  struct np_limits lim;
  struct np_callbacks cb;
  struct np_resolver *resolver;
  pthread_mutex_t answer_lock;
  struct np_answer *answers;
  volatile sig_atomic_t stopping;
  uint64_t next_due;
  unsigned jobs_out;      /* resolutions submitted and not yet taken back */
  unsigned splice_budget; /* connections that may hold pipes at once */
  unsigned spliced_now;
  struct np_pipe pipe_pool[NP_PIPE_POOL]; /* empty pipes of closed connections */
  unsigned n_pooled, n_opening;
};

void np_limits_default(struct np_limits *limits)
{
  limits->max_connections = 256;
  limits->head_max = 8192;
  limits->buffer_size =
      65536; /* 16 KiB halved throughput on loopback (one system call per 16 KiB) */
  limits->handshake_ms = 10000;
  limits->idle_ms = 300000;
  limits->ask_ms = 120000;
  limits->resolver_threads = 4;
  limits->relay_copy = 0;
}

const char *np_protocol_name(enum np_protocol protocol)
{
  return protocol == NP_PROTO_SOCKS5 ? "socks5" : "http";
}

static uint64_t np_now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint64_t np_conn_id(const struct np_conn *c)
{
  return (uint64_t)c->gen << 32 | c->slot;
}

static void np_set_deadline(struct np_engine *e, struct np_conn *c, uint64_t at)
{
  c->deadline_ms = at;
  if (at < e->next_due)
    e->next_due = at;
}

static size_t np_pending(const struct np_buf *b)
{
  return b->len - b->off;
}

static size_t np_room(struct np_buf *b)
{
  if (b->off == b->len)
    b->off = b->len = 0;
  if (b->len == b->cap && b->off > 0) {
    memmove(b->data, b->data + b->off, b->len - b->off);
    b->len -= b->off;
    b->off = 0;
  }
  return b->cap - b->len;
}

static int np_append(struct np_buf *b, const void *data, size_t n)
{
  if (np_room(b) < n && b->off > 0) {
    memmove(b->data, b->data + b->off, b->len - b->off);
    b->len -= b->off;
    b->off = 0;
  }
  if (b->cap - b->len < n)
    return -1;
  memcpy(b->data + b->len, data, n);
  b->len += n;
  return 0;
}

static void np_watch_set(struct np_engine *e, struct np_end *end, uint32_t events)
{
  if (end->fd < 0 || end->events == events)
    return;
  struct epoll_event ev = { .events = events, .data.ptr = end };
  epoll_ctl(e->epfd, end->parked ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, end->fd, &ev);
  end->parked = 0;
  end->events = events;
}

/* An end that hung up is reported at every wait, watched for anything or
 * not, so while there is nothing to do on it (its input read to the end or
 * waiting for room) it leaves the epoll set; np_watch_set brings it back
 * when there is (room again, bytes for it). */
static void np_park(struct np_engine *e, struct np_end *end)
{
  if (end->fd < 0 || end->parked)
    return;
  epoll_ctl(e->epfd, EPOLL_CTL_DEL, end->fd, NULL);
  end->parked = 1;
  end->events = 0;
}

static void np_set_listening(struct np_engine *e, int on)
{
  for (size_t i = 0; i < e->n_listeners; i++) {
    struct epoll_event ev = { .events = on ? EPOLLIN : 0, .data.ptr = &e->listeners[i] };
    epoll_ctl(e->epfd, EPOLL_CTL_MOD, e->listeners[i].fd, &ev);
  }
  e->accept_paused = !on;
}

/* ---- pipes for splicing ---- */

static void np_pipe_close(struct np_pipe *p)
{
  if (p->rd >= 0)
    close(p->rd);
  if (p->wr >= 0)
    close(p->wr);
  *p = (struct np_pipe){ .rd = -1, .wr = -1 };
}

/* A pipe for a connection that starts splicing: an empty one kept from a
 * closed connection (saves creating and closing one per connection), or a
 * new one while pipes in use and kept stay within the budget's
 * descriptors. 0, or -1: the connection is copied. */
static int np_pipe_get(struct np_engine *e, struct np_pipe *p)
{
  if (e->n_pooled > 0) {
    *p = e->pipe_pool[--e->n_pooled];
    return 0;
  }
  if (2 * e->spliced_now + e->n_pooled + e->n_opening >= 2 * e->splice_budget)
    return -1;
  int fds[2];
  if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0)
    return -1;
  *p = (struct np_pipe){ .rd = fds[0], .wr = fds[1] };
  /* The pipe holds what the buffer would have: the same bound on the
   * kernel memory a connection pins. Refused (over the user's pipe
   * allowance, fs.pipe-user-pages-soft): the default size, still bounded. */
  int got =
      e->lim.buffer_size <= INT_MAX ? fcntl(fds[1], F_SETPIPE_SZ, (int)e->lim.buffer_size) : -1;
  if (got < 0)
    got = fcntl(fds[1], F_GETPIPE_SZ);
  p->cap = got > 0 ? (size_t)got : 65536;
  return 0;
}

/* A connection's pipe when it closes: kept for the next one only when it
 * is certainly empty, by the count and by the kernel's (FIONREAD), so no
 * byte of one connection can ever reach another; else closed. */
static void np_pipe_put(struct np_engine *e, struct np_pipe *p)
{
  int unread = -1;
  if (p->rd >= 0 && p->held == 0 && e->n_pooled < NP_PIPE_POOL &&
      ioctl(p->rd, FIONREAD, &unread) == 0 && unread == 0) {
    p->stalled = 0;
    e->pipe_pool[e->n_pooled++] = *p;
    *p = (struct np_pipe){ .rd = -1, .wr = -1 };
    return;
  }
  np_pipe_close(p);
}

static void np_pipes_close(struct np_engine *e, struct np_conn *c)
{
  if (!c->spliced)
    return;
  c->spliced = 0;
  e->spliced_now--;
  np_pipe_put(e, &c->pipe_up);
  np_pipe_put(e, &c->pipe_down);
}

/* Gives a connection that starts relaying its two pipes, within the
 * descriptor budget. Without them it relays through its buffers: slower,
 * never less safe, so a connection that cannot have pipes is still served. */
static void np_pipes_open(struct np_engine *e, struct np_conn *c)
{
  if (e->lim.relay_copy || e->spliced_now >= e->splice_budget)
    return;
  if (np_pipe_get(e, &c->pipe_up) != 0)
    return;
  e->n_opening = 1; /* the first pipe is out of the pool and not yet in use */
  int rc = np_pipe_get(e, &c->pipe_down);
  e->n_opening = 0;
  if (rc != 0) {
    np_pipe_put(e, &c->pipe_up);
    return;
  }
  c->spliced = 1;
  e->spliced_now++;
}

/* ---- closing and records ---- */

static void np_close_conn(struct np_engine *e, struct np_conn *c)
{
  if (e->cb.record) {
    struct np_record r = {
      .protocol = c->proto,
      .host = c->host.text,
      .port = c->port,
      .dialled = c->dialled,
      .allowed = c->allowed,
      .basis = c->basis[0] ? c->basis : "none",
      .refusal = c->refusal[0] ? c->refusal : NULL,
      .bytes_up = c->bytes_up,
      .bytes_down = c->bytes_down,
      .duration_ms = np_now_ms() - c->start_ms,
      .relay = c->state != NP_ST_RELAY ? ""
               : c->spliced            ? "splice"
                                       : "copy",
    };
    e->cb.record(e->cb.ctx, &r);
  }
  if (c->client.fd >= 0)
    close(c->client.fd);
  if (c->up.fd >= 0)
    close(c->up.fd);
  np_pipes_close(e, c);
  free(c->mem);
  uint32_t gen = c->gen + 1;
  unsigned slot = c->slot;
  memset(c, 0, sizeof *c);
  c->gen = gen;
  c->slot = slot;
  c->client.fd = c->up.fd = -1;
  c->state = NP_ST_FREE;
  c->next_free = e->free_list;
  e->free_list = c;
  if (e->accept_paused)
    np_set_listening(e, 1);
}

static void np_note(char *dst, size_t cap, const char *text)
{
  /* Reasons travel in an HTTP header: printable ASCII only. */
  size_t i = 0;
  for (; text[i] && i + 1 < cap; i++) {
    unsigned char ch = (unsigned char)text[i];
    dst[i] = (char)(ch >= 0x20 && ch < 0x7f ? ch : '?');
  }
  dst[i] = '\0';
}

/* Ends the connection for a reason after it was relaying or while it
 * waited: nothing more is sent to the client. */
static void np_cut(struct np_engine *e, struct np_conn *c, const char *why)
{
  if (!c->refusal[0])
    np_note(c->refusal, sizeof c->refusal, why);
  np_close_conn(e, c);
}

static const char *np_status_text(int status)
{
  switch (status) {
  case 400:
    return "Bad Request";
  case 403:
    return "Forbidden";
  case 431:
    return "Request Header Fields Too Large";
  case 502:
    return "Bad Gateway";
  case 503:
    return "Service Unavailable";
  case 504:
    return "Gateway Timeout";
  case 505:
    return "HTTP Version Not Supported";
  default:
    return "Error";
  }
}

static void np_drop_upstream(struct np_engine *e, struct np_conn *c)
{
  if (c->up.fd >= 0) {
    epoll_ctl(e->epfd, EPOLL_CTL_DEL, c->up.fd, NULL);
    close(c->up.fd);
    c->up.fd = -1;
    c->up.events = 0;
    c->up.parked = 0;
  }
}

static void np_refuse_step(struct np_engine *e, struct np_conn *c);
static void np_resolved(struct np_engine *e, struct np_resolve_job *job);
static void np_dial_done(struct np_engine *e, struct np_conn *c);
static void np_read_head(struct np_engine *e, struct np_conn *c);

/* Refuses the client: an HTTP error with X-Proxy-Error naming the reason,
 * or a SOCKS reply code; then the connection drains and closes. */
static void np_refuse(struct np_engine *e, struct np_conn *c, int http_status, uint8_t socks_rep,
                      const char *why)
{
  np_note(c->refusal, sizeof c->refusal, why);
  np_drop_upstream(e, c);
  c->to_client.off = c->to_client.len = 0;
  if (c->proto == NP_PROTO_HTTP) {
    char msg[768];
    int n = snprintf(msg, sizeof msg,
                     "HTTP/1.1 %d %s\r\nX-Proxy-Error: %s\r\nContent-Type: text/plain\r\n"
                     "Content-Length: %zu\r\nConnection: close\r\n\r\n%s\n",
                     http_status, np_status_text(http_status), c->refusal, strlen(c->refusal) + 1,
                     c->refusal);
    if (n > 0 && (size_t)n < sizeof msg)
      np_append(&c->to_client, msg, (size_t)n);
  } else if (c->socks_greeted) {
    uint8_t reply[10];
    np_append(&c->to_client, reply, np_socks_reply(socks_rep, reply));
  } else {
    uint8_t reply[2] = { NP_SOCKS_VERSION, NP_SOCKS_NO_METHOD };
    np_append(&c->to_client, reply, sizeof reply);
  }
  c->state = NP_ST_REFUSE;
  /* Bounded: a client that never reads its refusal or never closes is cut
   * at the handshake limit. */
  np_set_deadline(e, c, np_now_ms() + e->lim.handshake_ms);
  np_refuse_step(e, c);
}

static void np_refuse_step(struct np_engine *e, struct np_conn *c)
{
  while (np_pending(&c->to_client)) {
    ssize_t n = send(c->client.fd, c->to_client.data + c->to_client.off, np_pending(&c->to_client),
                     MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      c->to_client.off += (size_t)n;
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      np_watch_set(e, &c->client, EPOLLOUT);
      return;
    }
    np_close_conn(e, c);
    return;
  }
  if (!c->client_shut) {
    shutdown(c->client.fd, SHUT_WR);
    c->client_shut = 1;
  }
  /* Read until the client closes: closing with unread bytes would reset
   * the connection and the client might never see the refusal. */
  char sink[4096];
  for (;;) {
    ssize_t n = recv(c->client.fd, sink, sizeof sink, MSG_DONTWAIT);
    if (n > 0)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      np_watch_set(e, &c->client, EPOLLIN);
      return;
    }
    np_close_conn(e, c);
    return;
  }
}

/* ---- relaying ---- */

/* Whether a direction can take more input now: room in its buffer, or a
 * pipe not found full. */
static int np_can_take(struct np_conn *c, struct np_buf *b, const struct np_pipe *p)
{
  return c->spliced ? !p->stalled : np_room(b) > 0;
}

/* Bytes a direction still has to deliver: its buffer, then its pipe. */
static int np_holds(const struct np_conn *c, const struct np_buf *b, const struct np_pipe *p)
{
  return np_pending(b) > 0 || (c->spliced && p->held > 0);
}

static void np_relay_watch(struct np_engine *e, struct np_conn *c)
{
  uint32_t ce = 0, ue = 0;
  if (!c->client_eof && np_can_take(c, &c->to_up, &c->pipe_up))
    ce |= EPOLLIN;
  if (np_holds(c, &c->to_client, &c->pipe_down))
    ce |= EPOLLOUT;
  if (!c->up_eof && np_can_take(c, &c->to_client, &c->pipe_down))
    ue |= EPOLLIN;
  if (np_holds(c, &c->to_up, &c->pipe_up))
    ue |= EPOLLOUT;
  np_watch_set(e, &c->client, ce);
  np_watch_set(e, &c->up, ue);
}

/* Moves bytes from one end into a buffer. 1 progress, 0 none, -1 failed. */
static int np_pull(int fd, struct np_buf *b, int *eof, uint64_t *count)
{
  if (*eof || !np_room(b))
    return 0;
  ssize_t n = recv(fd, b->data + b->len, b->cap - b->len, MSG_DONTWAIT);
  if (n > 0) {
    b->len += (size_t)n;
    if (count)
      *count += (uint64_t)n;
    return 1;
  }
  if (n == 0) {
    *eof = 1;
    return 1;
  }
  return errno == EAGAIN || errno == EINTR ? 0 : -1;
}

static int np_push(int fd, struct np_buf *b, uint64_t *count)
{
  if (!np_pending(b))
    return 0;
  ssize_t n = send(fd, b->data + b->off, np_pending(b), MSG_NOSIGNAL | MSG_DONTWAIT);
  if (n > 0) {
    b->off += (size_t)n;
    if (count)
      *count += (uint64_t)n;
    return 1;
  }
  return errno == EAGAIN || errno == EINTR ? 0 : -1;
}

/* Moves bytes from a socket into a pipe. 1 progress, 0 none, -1 failed. */
static int np_splice_in(int fd, struct np_pipe *p, int *eof, uint64_t *count)
{
  if (*eof || p->stalled)
    return 0;
  ssize_t n = splice(fd, NULL, p->wr, NULL, p->cap, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
  if (n > 0) {
    p->held += (size_t)n;
    if (count)
      *count += (uint64_t)n;
    return 1;
  }
  if (n == 0) {
    *eof = 1;
    return 1;
  }
  if (errno != EAGAIN && errno != EINTR)
    return -1;
  /* No room in the pipe, or nothing to read: with bytes held it cannot
   * tell which, so the input waits until the pipe drains a little (the
   * output is watched meanwhile); an empty pipe means no data. */
  if (p->held > 0)
    p->stalled = 1;
  return 0;
}

static int np_splice_out(int fd, struct np_pipe *p, uint64_t *count)
{
  if (p->held == 0)
    return 0;
  ssize_t n = splice(p->rd, NULL, fd, NULL, p->held, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
  if (n > 0) {
    p->held -= (size_t)n;
    p->stalled = 0;
    if (count)
      *count += (uint64_t)n;
    return 1;
  }
  return n < 0 && (errno == EAGAIN || errno == EINTR) ? 0 : -1;
}

/* One direction's input: into the pipe when spliced, else the buffer. */
static int np_flow_in(struct np_conn *c, int fd, struct np_buf *b, struct np_pipe *p, int *eof,
                      uint64_t *count)
{
  return c->spliced ? np_splice_in(fd, p, eof, count) : np_pull(fd, b, eof, count);
}

/* One direction's output: the buffer first (the bytes a spliced
 * connection still had there when it began relaying come before anything
 * read since), then the pipe. */
static int np_flow_out(struct np_conn *c, int fd, struct np_buf *b, struct np_pipe *p,
                       uint64_t *count)
{
  int r = np_push(fd, b, count);
  if (r < 0 || !c->spliced || np_pending(b))
    return r;
  int s = np_splice_out(fd, p, count);
  return s < 0 ? -1 : r | s;
}

static void np_relay(struct np_engine *e, struct np_conn *c)
{
  /* A few rounds per wake-up, not until quiet: one busy pair must not
   * starve the other connections of the loop. */
  for (int round = 0; round < 4; round++) {
    int progress = 0, r;
    if ((r = np_flow_in(c, c->client.fd, &c->to_up, &c->pipe_up, &c->client_eof, NULL)) < 0) {
      np_cut(e, c, "client connection failed");
      return;
    }
    progress |= r;
    if ((r = np_flow_out(c, c->up.fd, &c->to_up, &c->pipe_up, &c->bytes_up)) < 0) {
      np_cut(e, c, "destination connection failed");
      return;
    }
    progress |= r;
    /* Half-close travels on: a client that is done sending (shutdown)
     * still reads the answer, and the destination sees end of file once
     * everything before it (buffer and pipe) was delivered. */
    if (c->client_eof && !np_holds(c, &c->to_up, &c->pipe_up) && !c->up_shut) {
      shutdown(c->up.fd, SHUT_WR);
      c->up_shut = 1;
    }
    if ((r = np_flow_in(c, c->up.fd, &c->to_client, &c->pipe_down, &c->up_eof, &c->bytes_down)) <
        0) {
      np_cut(e, c, "destination connection failed");
      return;
    }
    progress |= r;
    if ((r = np_flow_out(c, c->client.fd, &c->to_client, &c->pipe_down, NULL)) < 0) {
      np_cut(e, c, "client connection failed");
      return;
    }
    progress |= r;
    if (c->up_eof && !np_holds(c, &c->to_client, &c->pipe_down) && !c->client_shut) {
      shutdown(c->client.fd, SHUT_WR);
      c->client_shut = 1;
    }
    if (!progress)
      break;
    np_set_deadline(e, c, np_now_ms() + e->lim.idle_ms);
  }
  if (c->client_shut && c->up_shut) {
    np_close_conn(e, c);
    return;
  }
  np_relay_watch(e, c);
}

static void np_format_addr(const struct sockaddr_storage *sa, char *out, size_t cap)
{
  char text[INET6_ADDRSTRLEN] = "?";
  if (sa->ss_family == AF_INET) {
    const struct sockaddr_in *sin = (const struct sockaddr_in *)(const void *)sa;
    inet_ntop(AF_INET, &sin->sin_addr, text, sizeof text);
    snprintf(out, cap, "%s:%u", text, ntohs(sin->sin_port));
  } else {
    const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)(const void *)sa;
    inet_ntop(AF_INET6, &sin6->sin6_addr, text, sizeof text);
    snprintf(out, cap, "[%s]:%u", text, ntohs(sin6->sin6_port));
  }
}

static void np_start_relay(struct np_engine *e, struct np_conn *c)
{
  np_format_addr(&c->addrs[c->next_addr - 1], c->dialled, sizeof c->dialled);
  const char *leftover = c->head + c->leftover_off;
  size_t leftover_len = c->head_len - c->leftover_off;
  if (c->proto == NP_PROTO_HTTP && c->http.is_connect) {
    static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
    np_append(&c->to_client, ok, sizeof ok - 1);
  } else if (c->proto == NP_PROTO_HTTP) {
    size_t n = np_http_rewrite(c->head, &c->http, c->to_up.data, c->to_up.cap);
    if (n == 0) {
      np_refuse(e, c, 431, 0, "request head too large to forward");
      return;
    }
    c->to_up.len = n;
  } else {
    uint8_t reply[10];
    np_append(&c->to_client, reply, np_socks_reply(NP_SOCKS_REP_OK, reply));
  }
  if (np_append(&c->to_up, leftover, leftover_len) != 0) {
    np_refuse(e, c, 431, 0, "request head too large to forward");
    return;
  }
  c->state = NP_ST_RELAY;
  np_pipes_open(e, c);
  np_set_deadline(e, c, np_now_ms() + e->lim.idle_ms);
  np_relay(e, c);
}

static uint8_t np_socks_code(int err)
{
  switch (err) {
  case ECONNREFUSED:
    return NP_SOCKS_REP_REFUSED;
  case ENETUNREACH:
    return NP_SOCKS_REP_NET_UNREACH;
  case EHOSTUNREACH:
  case ETIMEDOUT:
    return NP_SOCKS_REP_HOST_UNREACH;
  default:
    return NP_SOCKS_REP_FAILURE;
  }
}

static void np_dial_next(struct np_engine *e, struct np_conn *c)
{
  while (c->next_addr < c->n_addrs) {
    const struct sockaddr_storage *sa = &c->addrs[c->next_addr++];
    socklen_t len =
        sa->ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
    int fd = socket(sa->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      c->last_errno = errno;
      continue;
    }
    int rc = connect(fd, (const struct sockaddr *)sa, len);
    if (rc != 0 && errno != EINPROGRESS) {
      c->last_errno = errno;
      close(fd);
      continue;
    }
    c->up.fd = fd;
    c->up.events = rc == 0 ? 0 : EPOLLOUT;
    struct epoll_event ev = { .events = c->up.events, .data.ptr = &c->up };
    if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
      c->last_errno = errno;
      close(fd);
      c->up.fd = -1;
      continue;
    }
    if (rc == 0) {
      np_start_relay(e, c);
      return;
    }
    c->state = NP_ST_DIAL;
    /* Each address gets its share of what is left of the handshake, so
     * one that never answers (a broken IPv6 route) leaves time for the
     * next instead of failing the connection. */
    uint64_t now = np_now_ms(), left = c->n_addrs - c->next_addr + 1;
    uint64_t remaining = c->handshake_end > now ? c->handshake_end - now : 0;
    np_set_deadline(e, c, left > 1 ? now + remaining / left : c->handshake_end);
    /* A near destination (loopback, the local network) has often answered
     * already: look now rather than after another turn of the loop. */
    np_dial_done(e, c);
    return;
  }
  char why[448];
  snprintf(why, sizeof why, "cannot connect to %s port %u: %s", c->host.text, c->port,
           strerror(c->last_errno ? c->last_errno : ECONNREFUSED));
  np_refuse(e, c, 502, np_socks_code(c->last_errno), why);
}

static void np_dial_done(struct np_engine *e, struct np_conn *c)
{
  int err = 0;
  socklen_t len = sizeof err;
  if (getsockopt(c->up.fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
    err = errno;
  struct sockaddr_storage peer;
  socklen_t plen = sizeof peer;
  if (err == 0 && getpeername(c->up.fd, (struct sockaddr *)&peer, &plen) != 0 && errno == ENOTCONN)
    return; /* not connected yet: a spurious wake-up */
  if (err == 0) {
    np_start_relay(e, c);
    return;
  }
  c->last_errno = err;
  np_drop_upstream(e, c);
  np_dial_next(e, c);
}

/* ---- judging ---- */

static void np_start_resolve(struct np_engine *e, struct np_conn *c)
{
  /* A connection that times out leaves its resolution running; with a
   * resolver that hangs, reused slots would queue jobs without end. Twice
   * the connection limit bounds the queue (and its memory). */
  if (e->jobs_out >= 2 * e->lim.max_connections) {
    np_refuse(e, c, 503, NP_SOCKS_REP_FAILURE, "resolver busy: too many resolutions pending");
    return;
  }
  struct np_resolve_job *job = calloc(1, sizeof *job);
  if (!job) {
    np_refuse(e, c, 503, NP_SOCKS_REP_FAILURE, "out of memory");
    return;
  }
  job->conn_id = np_conn_id(c);
  job->host = c->host;
  job->port = c->port;
  c->state = NP_ST_RESOLVE;
  c->handshake_end = np_now_ms() + e->lim.handshake_ms;
  np_set_deadline(e, c, c->handshake_end);
  /* The client is not read while its destination is judged; a client
   * that hangs up is still seen (EPOLLHUP). */
  np_watch_set(e, &c->client, 0);
  /* A literal address the policy's ranges or the address classes decide
   * is checked here: no thread round trip on the set-up path. */
  if (np_resolver_try_inline(e->policy, job)) {
    np_resolved(e, job);
    return;
  }
  e->jobs_out++;
  np_resolver_submit(e->resolver, job);
}

static void np_judge(struct np_engine *e, struct np_conn *c, const char *host, size_t host_len,
                     uint16_t port)
{
  const char *why = NULL, *rule = NULL;
  char msg[448];
  c->port = port;
  if (np_host_normalize(host, host_len, &c->host, &why) != 0) {
    memset(&c->host, 0, sizeof c->host);
    snprintf(msg, sizeof msg, "invalid destination host: %s", why);
    snprintf(c->basis, sizeof c->basis, "invalid host");
    np_refuse(e, c, 400, NP_SOCKS_REP_RULESET, msg);
    return;
  }
  switch (np_policy_decide(e->policy, &c->host, port, &rule)) {
  case NP_VERDICT_DENY:
    if (rule) {
      snprintf(c->basis, sizeof c->basis, "rule deny %s", rule);
      snprintf(msg, sizeof msg, "%s port %u denied by rule %s", c->host.text, port, rule);
    } else {
      snprintf(c->basis, sizeof c->basis, "default deny");
      snprintf(msg, sizeof msg, "%s port %u matches no allow rule (default deny)", c->host.text,
               port);
    }
    {
      np_refuse(e, c, 403, NP_SOCKS_REP_RULESET, msg);
      return;
    }
  case NP_VERDICT_ALLOW:
    c->allowed = 1;
    snprintf(c->basis, sizeof c->basis, "rule allow %s", rule);
    np_start_resolve(e, c);
    return;
  case NP_VERDICT_ASK:
    snprintf(c->basis, sizeof c->basis, "default ask");
    if (!e->cb.ask) {
      /* Ask with nobody to ask is a deny, never an allow. */
      snprintf(msg, sizeof msg, "%s port %u needs approval and no approver is configured",
               c->host.text, port);
      np_refuse(e, c, 403, NP_SOCKS_REP_RULESET, msg);
      return;
    }
    c->state = NP_ST_ASK;
    np_set_deadline(e, c, np_now_ms() + e->lim.ask_ms);
    np_watch_set(e, &c->client, 0);
    struct np_ask ask = { .id = np_conn_id(c),
                          .protocol = c->proto,
                          .host = c->host.text,
                          .port = port,
                          .rule = c->basis };
    e->cb.ask(e->cb.ctx, &ask);
    return;
  }
}

/* ---- reading the request ---- */

static void np_http_head(struct np_engine *e, struct np_conn *c)
{
  switch (np_http_parse(c->head, c->head_len, e->lim.head_max, &c->http)) {
  case NP_HTTP_NEED_MORE:
    return;
  case NP_HTTP_REFUSED:
    snprintf(c->basis, sizeof c->basis, "malformed request");
    np_refuse(e, c, c->http.status, 0, c->http.why);
    return;
  case NP_HTTP_OK:
    c->leftover_off = c->http.head_len;
    np_judge(e, c, c->http.host, c->http.host_len, c->http.port);
    return;
  }
}

static void np_socks_head(struct np_engine *e, struct np_conn *c)
{
  if (!c->socks_greeted) {
    struct np_socks_greeting g;
    enum np_socks_status st = np_socks_parse_greeting((const uint8_t *)c->head, c->head_len, &g);
    if (st == NP_SOCKS_NEED_MORE)
      return;
    if (st == NP_SOCKS_REFUSED || !g.no_auth_offered) {
      snprintf(c->basis, sizeof c->basis, "malformed request");
      np_refuse(e, c, 0, 0,
                st == NP_SOCKS_REFUSED ? "not a SOCKS5 greeting"
                                       : "SOCKS client offers no \"no authentication\" method");
      return;
    }
    uint8_t reply[2] = { NP_SOCKS_VERSION, NP_SOCKS_NO_AUTH };
    np_append(&c->to_client, reply, sizeof reply);
    memmove(c->head, c->head + g.len, c->head_len - g.len);
    c->head_len -= g.len;
    c->socks_greeted = 1;
  }
  struct np_socks_request r;
  enum np_socks_status st = np_socks_parse_request((const uint8_t *)c->head, c->head_len, &r);
  if (st == NP_SOCKS_NEED_MORE)
    return;
  if (st == NP_SOCKS_REFUSED) {
    snprintf(c->basis, sizeof c->basis, "protocol");
    np_refuse(e, c, 0, r.reply, r.why);
    return;
  }
  c->leftover_off = r.len;
  if (r.atyp == NP_SOCKS_ATYP_DOMAIN) {
    np_judge(e, c, r.host, r.host_len, r.port);
    return;
  }
  char text[INET6_ADDRSTRLEN];
  inet_ntop(r.atyp == NP_SOCKS_ATYP_IPV4 ? AF_INET : AF_INET6, r.addr, text, sizeof text);
  np_judge(e, c, text, strlen(text), r.port);
}

static void np_read_head(struct np_engine *e, struct np_conn *c)
{
  /* The SOCKS method reply may still be on its way out. */
  if (np_push(c->client.fd, &c->to_client, NULL) < 0) {
    np_cut(e, c, "client connection failed");
    return;
  }
  size_t room = e->lim.head_max - c->head_len;
  ssize_t n = room ? recv(c->client.fd, c->head + c->head_len, room, MSG_DONTWAIT) : -1;
  if (n == 0) {
    np_cut(e, c, "client closed before its request was complete");
    return;
  }
  if (n < 0 && room && errno != EAGAIN && errno != EINTR) {
    np_cut(e, c, "client connection failed");
    return;
  }
  if (n > 0) {
    c->head_len += (size_t)n;
    if (c->proto == NP_PROTO_HTTP)
      np_http_head(e, c);
    else
      np_socks_head(e, c);
    if (c->state != NP_ST_HEAD)
      return;
    if (np_push(c->client.fd, &c->to_client, NULL) < 0) {
      np_cut(e, c, "client connection failed");
      return;
    }
  }
  np_watch_set(e, &c->client, EPOLLIN | (np_pending(&c->to_client) ? EPOLLOUT : 0));
}

/* ---- accepting ---- */

static void np_accept(struct np_engine *e, struct np_watch *l)
{
  for (;;) {
    int fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
        np_set_listening(e, 0); /* resumed when a connection closes */
      return;
    }
    enum np_protocol proto = l->kind == NP_WATCH_SOCKS ? NP_PROTO_SOCKS5 : NP_PROTO_HTTP;
    struct np_conn *c = e->free_list;
    char *mem = c ? malloc(e->lim.head_max + 2 * e->lim.buffer_size) : NULL;
    if (!mem) {
      /* Over the limit: refused at once, not queued, so a flood cannot
       * hold the proxy's memory or make the others wait. */
      static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\nX-Proxy-Error: too many "
                                 "connections\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
      static const uint8_t socks_busy[2] = { NP_SOCKS_VERSION, NP_SOCKS_NO_METHOD };
      ssize_t w = proto == NP_PROTO_HTTP
                      ? send(fd, busy, sizeof busy - 1, MSG_NOSIGNAL | MSG_DONTWAIT)
                      : send(fd, socks_busy, 2, MSG_NOSIGNAL | MSG_DONTWAIT);
      (void)w;
      close(fd);
      if (e->cb.record) {
        struct np_record r = { .protocol = proto,
                               .host = "",
                               .dialled = "",
                               .basis = "limit",
                               .refusal = "too many connections",
                               .relay = "" };
        e->cb.record(e->cb.ctx, &r);
      }
      continue;
    }
    e->free_list = c->next_free;
    c->next_free = NULL;
    c->state = NP_ST_HEAD;
    c->proto = proto;
    c->mem = mem;
    c->head = mem;
    c->to_up = (struct np_buf){ mem + e->lim.head_max, 0, 0, e->lim.buffer_size };
    c->to_client =
        (struct np_buf){ mem + e->lim.head_max + e->lim.buffer_size, 0, 0, e->lim.buffer_size };
    c->client = (struct np_end){ NP_WATCH_CLIENT, fd, EPOLLIN, c, 0 };
    c->up = (struct np_end){ NP_WATCH_UPSTREAM, -1, 0, c, 0 };
    c->start_ms = np_now_ms();
    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &c->client };
    if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
      np_cut(e, c, "cannot watch the connection");
      continue;
    }
    /* Slowloris: the whole request must arrive within the handshake limit. */
    np_set_deadline(e, c, c->start_ms + e->lim.handshake_ms);
    /* The request is usually there already (TCP_DEFER_ACCEPT): read it
     * now rather than after another turn of the loop. */
    np_read_head(e, c);
  }
}

/* ---- wake-ups: resolutions, answers ---- */

static struct np_conn *np_find(struct np_engine *e, uint64_t id, enum np_state state)
{
  uint32_t slot = (uint32_t)id, gen = (uint32_t)(id >> 32);
  if (slot >= e->lim.max_connections)
    return NULL;
  struct np_conn *c = &e->conns[slot];
  return c->gen == gen && c->state == state ? c : NULL;
}

static void np_resolved(struct np_engine *e, struct np_resolve_job *job)
{
  struct np_conn *c = np_find(e, job->conn_id, NP_ST_RESOLVE);
  if (!c) {
    free(job); /* the connection went away meanwhile */
    return;
  }
  if (job->n == 0) {
    if (job->unresolvable)
      np_refuse(e, c, 502, NP_SOCKS_REP_HOST_UNREACH, job->why);
    else
      np_refuse(e, c, 403, NP_SOCKS_REP_RULESET, job->why);
    free(job);
    return;
  }
  memcpy(c->addrs, job->addrs, job->n * sizeof job->addrs[0]);
  c->n_addrs = job->n;
  c->next_addr = 0;
  free(job);
  np_dial_next(e, c);
}

static void np_answered(struct np_engine *e, struct np_answer *a)
{
  struct np_conn *c = np_find(e, a->id, NP_ST_ASK);
  if (!c)
    return; /* timed out or closed: the deny already stands */
  snprintf(c->basis, sizeof c->basis, "%s", a->basis[0] ? a->basis : "approval");
  if (a->allow) {
    c->allowed = 1;
    np_start_resolve(e, c);
    return;
  }
  char msg[448];
  snprintf(msg, sizeof msg, "%s port %u denied by %.160s", c->host.text, c->port, c->basis);
  np_refuse(e, c, 403, NP_SOCKS_REP_RULESET, msg);
}

static void np_woken(struct np_engine *e)
{
  uint64_t v;
  ssize_t r = read(e->wake.fd, &v, sizeof v);
  (void)r;
  struct np_resolve_job *job;
  while ((job = np_resolver_take_done(e->resolver))) {
    e->jobs_out--;
    np_resolved(e, job);
  }
  pthread_mutex_lock(&e->answer_lock);
  struct np_answer *list = e->answers;
  e->answers = NULL;
  pthread_mutex_unlock(&e->answer_lock);
  while (list) {
    struct np_answer *next = list->next;
    np_answered(e, list);
    free(list);
    list = next;
  }
}

/* ---- timers ---- */

static void np_expire(struct np_engine *e, struct np_conn *c)
{
  char msg[448];
  switch (c->state) {
  case NP_ST_HEAD:
    np_cut(e, c, "handshake timeout: request incomplete");
    return;
  case NP_ST_ASK:
    snprintf(c->basis, sizeof c->basis, "approval timed out");
    snprintf(msg, sizeof msg, "%s port %u: approval timed out after %u ms (deny)", c->host.text,
             c->port, e->lim.ask_ms);
    np_refuse(e, c, 403, NP_SOCKS_REP_RULESET, msg);
    return;
  case NP_ST_DIAL:
    if (c->next_addr < c->n_addrs) {
      c->last_errno = ETIMEDOUT;
      np_drop_upstream(e, c);
      np_dial_next(e, c);
      return;
    }
    snprintf(msg, sizeof msg, "%s port %u: connecting timed out", c->host.text, c->port);
    np_refuse(e, c, 504, NP_SOCKS_REP_HOST_UNREACH, msg);
    return;
  case NP_ST_RESOLVE:
    snprintf(msg, sizeof msg, "%s port %u: resolving timed out", c->host.text, c->port);
    np_refuse(e, c, 504, NP_SOCKS_REP_HOST_UNREACH, msg);
    return;
  case NP_ST_RELAY:
    np_cut(e, c, "idle timeout");
    return;
  case NP_ST_REFUSE:
    np_close_conn(e, c);
    return;
  case NP_ST_FREE:
    return;
  }
}

static void np_timers(struct np_engine *e)
{
  uint64_t now = np_now_ms();
  if (now < e->next_due)
    return;
  uint64_t next = UINT64_MAX;
  for (unsigned i = 0; i < e->lim.max_connections; i++) {
    struct np_conn *c = &e->conns[i];
    if (c->state == NP_ST_FREE)
      continue;
    if (c->deadline_ms <= now)
      np_expire(e, c);
    /* np_expire may have set a new deadline (a refusal's) or freed it */
    if (c->state != NP_ST_FREE && c->deadline_ms < next)
      next = c->deadline_ms;
  }
  e->next_due = next;
}

/* ---- events ---- */

static void np_end_event(struct np_engine *e, struct np_end *end, uint32_t events)
{
  struct np_conn *c = end->conn;
  int is_client = end->kind == NP_WATCH_CLIENT;
  switch (c->state) {
  case NP_ST_HEAD:
    np_read_head(e, c);
    return;
  case NP_ST_ASK:
  case NP_ST_RESOLVE:
    if (events & (EPOLLHUP | EPOLLERR)) {
      np_cut(e, c, "client hung up while its destination was judged");
      return;
    }
    return;
  case NP_ST_DIAL:
    if (is_client) {
      if (events & (EPOLLHUP | EPOLLERR))
        np_cut(e, c, "client hung up while connecting");
      return;
    }
    {
      np_dial_done(e, c);
      return;
    }
  case NP_ST_RELAY: {
    uint32_t gen = c->gen;
    np_relay(e, c);
    if (c->gen != gen || c->state != NP_ST_RELAY)
      return;
    /* A hang-up or error on an end that is not read now (read to its end
     * of file, or no room for its bytes) would be reported again and
     * again. It is not the end of the connection: what this end sent may
     * still be on its way to the other, and its unread bytes wait for
     * room. It is parked; writing to it again, if ever, fails and cuts;
     * the idle limit bounds the rest. */
    int eof = is_client ? c->client_eof : c->up_eof;
    struct np_buf *in = is_client ? &c->to_up : &c->to_client;
    struct np_pipe *pipe_in = is_client ? &c->pipe_up : &c->pipe_down;
    if ((events & (EPOLLHUP | EPOLLERR)) && (eof || !np_can_take(c, in, pipe_in)))
      np_park(e, end);
    return;
  }
  case NP_ST_REFUSE:
    np_refuse_step(e, c);
    return;
  case NP_ST_FREE:
    return;
  }
}

int np_engine_run(struct np_engine *e)
{
  struct epoll_event events[64];
  while (!e->stopping) {
    int timeout = -1;
    if (e->next_due != UINT64_MAX) {
      uint64_t now = np_now_ms();
      timeout =
          e->next_due <= now ? 0 : (int)(e->next_due - now > 60000 ? 60000 : e->next_due - now);
    }
    int n = epoll_wait(e->epfd, events, 64, timeout);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    for (int i = 0; i < n; i++) {
      int kind = *(int *)events[i].data.ptr;
      if (kind == NP_WATCH_WAKE)
        np_woken(e);
      else if (kind == NP_WATCH_HTTP || kind == NP_WATCH_SOCKS)
        np_accept(e, events[i].data.ptr);
    }
    /* Connection events after the wake-ups and accepts of this batch: an
     * event for a connection closed earlier in the batch is skipped by its
     * generation (ends of a freed slot have fd -1). */
    for (int i = 0; i < n; i++) {
      int kind = *(int *)events[i].data.ptr;
      if (kind != NP_WATCH_CLIENT && kind != NP_WATCH_UPSTREAM)
        continue;
      struct np_end *end = events[i].data.ptr;
      if (end->fd < 0 || end->conn->state == NP_ST_FREE)
        continue;
      np_end_event(e, end, events[i].events);
    }
    np_timers(e);
  }
  return 0;
}

void np_engine_stop(struct np_engine *e)
{
  e->stopping = 1;
  uint64_t one = 1;
  ssize_t w = write(e->wake.fd, &one, sizeof one);
  (void)w;
}

void np_engine_answer(struct np_engine *e, uint64_t id, int allow, const char *basis)
{
  struct np_answer *a = calloc(1, sizeof *a);
  if (!a)
    return; /* no answer: the ask times out, which is a deny */
  a->id = id;
  a->allow = allow;
  if (basis)
    snprintf(a->basis, sizeof a->basis, "%s", basis);
  pthread_mutex_lock(&e->answer_lock);
  a->next = e->answers;
  e->answers = a;
  pthread_mutex_unlock(&e->answer_lock);
  uint64_t one = 1;
  ssize_t w = write(e->wake.fd, &one, sizeof one);
  (void)w;
}

static void np_close_fds(const int *fds, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (fds[i] >= 0)
      close(fds[i]);
}

/* How many connections may splice at once. A spliced connection holds 6
 * descriptors (2 sockets, 2 pipes), a copied one 2. The pipes get only what
 * the limit leaves after 2 per connection and a margin for the engine and
 * its caller, so pipes never take the descriptor a new connection's accept
 * or dial needs; the connections beyond the budget are copied. */
static unsigned np_splice_budget(unsigned max_connections)
{
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
    return 0;
  if (rl.rlim_cur == RLIM_INFINITY)
    return max_connections;
  rlim_t reserve = 2 * (rlim_t)max_connections + NP_FD_MARGIN;
  rlim_t budget = rl.rlim_cur > reserve ? (rl.rlim_cur - reserve) / 4 : 0;
  return budget < max_connections ? (unsigned)budget : max_connections;
}

int np_engine_create(const struct np_engine_config *cfg, struct np_engine **out, char *err,
                     size_t errlen)
{
  *out = NULL;
  const struct np_limits *l = &cfg->limits;
  if (!cfg->policy || l->max_connections == 0 || l->max_connections > 65536 || l->head_max < 512 ||
      l->buffer_size < l->head_max + 1024 || l->handshake_ms == 0 || l->idle_ms == 0 ||
      l->ask_ms == 0 || cfg->n_http + cfg->n_socks == 0) {
    snprintf(err, errlen, "network proxy: invalid configuration (policy, limits or listeners)");
    np_close_fds(cfg->http_fds, cfg->n_http);
    np_close_fds(cfg->socks_fds, cfg->n_socks);
    return -1;
  }
  struct np_engine *e = calloc(1, sizeof *e);
  if (e) {
    e->conns = calloc(l->max_connections, sizeof *e->conns);
    e->listeners = calloc(cfg->n_http + cfg->n_socks, sizeof *e->listeners);
  }
  if (!e || !e->conns || !e->listeners) {
    snprintf(err, errlen, "network proxy: out of memory");
    if (e) {
      free(e->conns);
      free(e->listeners);
    }
    free(e);
    np_close_fds(cfg->http_fds, cfg->n_http);
    np_close_fds(cfg->socks_fds, cfg->n_socks);
    return -1;
  }
  e->policy = cfg->policy;
  e->lim = *l;
  e->cb = cfg->callbacks;
  e->next_due = UINT64_MAX;
  e->wake = (struct np_watch){ NP_WATCH_WAKE, -1 };
  e->epfd = -1;
  pthread_mutex_init(&e->answer_lock, NULL);
  for (unsigned i = l->max_connections; i-- > 0;) {
    struct np_conn *c = &e->conns[i];
    c->slot = i;
    c->client.fd = c->up.fd = -1;
    c->next_free = e->free_list;
    e->free_list = c;
  }
  for (size_t i = 0; i < cfg->n_http + cfg->n_socks; i++) {
    int is_http = i < cfg->n_http;
    e->listeners[i].kind = is_http ? NP_WATCH_HTTP : NP_WATCH_SOCKS;
    e->listeners[i].fd = is_http ? cfg->http_fds[i] : cfg->socks_fds[i - cfg->n_http];
  }
  e->n_listeners = cfg->n_http + cfg->n_socks;
  e->splice_budget = np_splice_budget(l->max_connections);
  e->epfd = epoll_create1(EPOLL_CLOEXEC);
  e->wake.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (e->epfd < 0 || e->wake.fd < 0) {
    snprintf(err, errlen, "network proxy: epoll or eventfd: %s", strerror(errno));
    goto fail;
  }
  struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &e->wake };
  if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, e->wake.fd, &ev) != 0) {
    snprintf(err, errlen, "network proxy: epoll: %s", strerror(errno));
    goto fail;
  }
  for (size_t i = 0; i < e->n_listeners; i++) {
    int fd = e->listeners[i].fd;
    int accepting = 0;
    socklen_t len = sizeof accepting;
    /* Only a listening stream socket: anything else (a file, a connected
     * socket) would make the loop misbehave rather than fail. */
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &len) != 0 || !accepting) {
      snprintf(err, errlen, "network proxy: descriptor %d is not a listening socket", fd);
      goto fail;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0 ||
        fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
      snprintf(err, errlen, "network proxy: descriptor %d: %s", fd, strerror(errno));
      goto fail;
    }
    /* Accepted only once the client's first bytes arrived (both protocols
     * speak first): a connection that sends nothing waits in the kernel,
     * not in a slot, and the request is read at once. Not TCP (a unix
     * socket): no matter. */
    int defer = (int)((l->handshake_ms + 999) / 1000);
    setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &defer, sizeof defer);
    struct epoll_event lev = { .events = EPOLLIN, .data.ptr = &e->listeners[i] };
    if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, fd, &lev) != 0) {
      snprintf(err, errlen, "network proxy: epoll: %s", strerror(errno));
      goto fail;
    }
  }
  if (np_resolver_start(&e->resolver, l->resolver_threads, e->policy, e->cb.resolve, e->cb.ctx,
                        e->wake.fd) != 0) {
    snprintf(err, errlen, "network proxy: resolver threads: %s", strerror(errno));
    goto fail;
  }
  *out = e;
  return 0;
fail:
  np_engine_destroy(e);
  return -1;
}

void np_engine_destroy(struct np_engine *e)
{
  if (!e)
    return;
  for (unsigned i = 0; i < e->lim.max_connections; i++)
    if (e->conns[i].state != NP_ST_FREE)
      np_cut(e, &e->conns[i], "proxy stopped");
  np_resolver_stop(e->resolver);
  for (size_t i = 0; i < e->n_listeners; i++)
    if (e->listeners[i].fd >= 0)
      close(e->listeners[i].fd);
  if (e->epfd >= 0)
    close(e->epfd);
  if (e->wake.fd >= 0)
    close(e->wake.fd);
  while (e->n_pooled > 0)
    np_pipe_close(&e->pipe_pool[--e->n_pooled]);
  while (e->answers) {
    struct np_answer *next = e->answers->next;
    free(e->answers);
    e->answers = next;
  }
  pthread_mutex_destroy(&e->answer_lock);
  free(e->conns);
  free(e->listeners);
  free(e);
}
