/* np_load: the load generator of the network proxy benchmark
 * (tests/bench/bench_netproxy.sh, docs/performance.md "Network proxy").
 * Everything stays on 127.0.0.1.
 *
 *   np_load serve PORTS_FILE
 *       an origin server on one loopback port (written to PORTS_FILE); per
 *       connection, its first byte says what it wants:
 *         'E'            echo every byte until end of file
 *         'D' + 8 bytes  (little-endian length) that many bytes sent, then close
 *         'U'            read until end of file, answer the 8-byte count
 *   np_load bulk PORT [--connect TARGET] --dir up|down --bytes N
 *       N bytes over one connection; prints seconds and MiB/s
 *   np_load setup PORT [--connect TARGET] --count N
 *       N connections one after the other, each until its first echoed byte
 *       (connect, the CONNECT exchange when --connect, one byte there and
 *       back); prints the mean, median, p90, p99 and worst in microseconds
 *
 * --connect TARGET: PORT is an HTTP proxy, reached with "CONNECT
 * 127.0.0.1:TARGET" (--name NAME: "CONNECT NAME:TARGET", a name the proxy
 * resolves); without it PORT is the origin itself, or a relay (socat) that
 * forwards to it. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (256 * 1024)

static char pattern[CHUNK];

static void die(const char *what)
{
  fprintf(stderr, "np_load: %s: %s\n", what, strerror(errno));
  exit(1);
}

static void usage(void)
{
  fprintf(stderr,
          "usage: np_load serve PORTS_FILE\n"
          "       np_load bulk PORT [--connect TARGET [--name NAME]] --dir up|down --bytes N\n"
          "       np_load setup PORT [--connect TARGET [--name NAME]] --count N\n");
  exit(2);
}

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void fill_pattern(void)
{
  /* Not compressible and not all one value, so nothing on the way can
   * take a short cut; the receiver does not check it (the proxy's tests
   * check integrity: tests/netproxy). */
  uint64_t x = 0x9e3779b97f4a7c15u;
  for (size_t i = 0; i < sizeof pattern; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    pattern[i] = (char)x;
  }
}

/* ---- the origin server: one epoll loop, non-blocking sockets ---- */

struct peer {
  int fd;
  char mode; /* 0 until the first byte arrives */
  unsigned char lenbuf[8];
  size_t lenhave;
  uint64_t todo;  /* 'D': bytes left to send */
  uint64_t count; /* 'U': bytes read */
  char echo[65536];
  size_t echo_len;
};

static void peer_close(int ep, struct peer *p)
{
  epoll_ctl(ep, EPOLL_CTL_DEL, p->fd, NULL);
  close(p->fd);
  free(p);
}

static void peer_watch(int ep, struct peer *p, uint32_t events)
{
  struct epoll_event ev = { .events = events, .data.ptr = p };
  epoll_ctl(ep, EPOLL_CTL_MOD, p->fd, &ev);
}

/* 0 keep, -1 close */
static int peer_step(int ep, struct peer *p)
{
  static char sink[CHUNK];
  for (;;) {
    if (p->mode == 'D' && p->lenhave == 8) {
      while (p->todo > 0) {
        size_t n = p->todo < CHUNK ? (size_t)p->todo : CHUNK;
        ssize_t w = send(p->fd, pattern, n, MSG_NOSIGNAL);
        if (w < 0) {
          if (errno == EAGAIN) {
            peer_watch(ep, p, EPOLLOUT);
            return 0;
          }
          return -1;
        }
        p->todo -= (uint64_t)w;
      }
      return -1; /* all sent: closing ends the stream */
    }
    if (p->mode == 'E' && p->echo_len > 0) {
      ssize_t w = send(p->fd, p->echo, p->echo_len, MSG_NOSIGNAL);
      if (w < 0) {
        if (errno == EAGAIN) {
          peer_watch(ep, p, EPOLLOUT);
          return 0;
        }
        return -1;
      }
      memmove(p->echo, p->echo + w, p->echo_len - (size_t)w);
      p->echo_len -= (size_t)w;
      continue;
    }
    /* The first read goes to the echo buffer: echoed bytes may follow 'E'. */
    char *into = p->mode == 'E' || !p->mode ? p->echo : sink;
    size_t room = p->mode == 'E' || !p->mode ? sizeof p->echo : sizeof sink;
    if (p->mode == 'D')
      room = 8 - p->lenhave;
    ssize_t n = recv(p->fd, p->mode == 'D' ? (char *)p->lenbuf + p->lenhave : into, room, 0);
    if (n == 0) {
      if (p->mode == 'U') {
        unsigned char le[8];
        for (int i = 0; i < 8; i++)
          le[i] = (unsigned char)(p->count >> (8 * i));
        ssize_t w = send(p->fd, le, 8, MSG_NOSIGNAL);
        (void)w;
      }
      return -1;
    }
    if (n < 0) {
      if (errno == EAGAIN) {
        peer_watch(ep, p, EPOLLIN);
        return 0;
      }
      return -1;
    }
    size_t used = 0;
    if (!p->mode) {
      p->mode = into[0];
      used = 1;
      if (p->mode != 'E' && p->mode != 'D' && p->mode != 'U')
        return -1;
      if (p->mode == 'D') { /* the length may follow in the same read */
        size_t take = (size_t)n - 1 < 8 ? (size_t)n - 1 : 8;
        memcpy(p->lenbuf, into + 1, take);
        p->lenhave = take;
        used += take;
      }
    } else if (p->mode == 'D') {
      p->lenhave += (size_t)n;
      used = (size_t)n;
    }
    if (p->mode == 'D' && p->lenhave == 8) {
      for (int i = 7; i >= 0; i--)
        p->todo = p->todo << 8 | p->lenbuf[i];
    }
    if (p->mode == 'U')
      p->count += (uint64_t)n - used;
    if (p->mode == 'E') {
      memmove(p->echo, p->echo + used, (size_t)n - used);
      p->echo_len = (size_t)n - used;
    }
  }
}

static _Noreturn void serve(const char *ports_file)
{
  int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t len = sizeof sin;
  int one = 1;
  setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (lfd < 0 || bind(lfd, (struct sockaddr *)&sin, sizeof sin) != 0 || listen(lfd, 4096) != 0 ||
      getsockname(lfd, (struct sockaddr *)&sin, &len) != 0)
    die("listen");
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", ports_file);
  FILE *f = fopen(tmp, "w");
  if (!f || fprintf(f, "%u\n", ntohs(sin.sin_port)) < 0 || fclose(f) != 0 ||
      rename(tmp, ports_file) != 0)
    die(ports_file);
  int ep = epoll_create1(0);
  struct epoll_event lev = { .events = EPOLLIN, .data.ptr = NULL };
  if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &lev) != 0)
    die("epoll");
  struct epoll_event evs[64];
  for (;;) {
    int n = epoll_wait(ep, evs, 64, -1);
    if (n < 0 && errno != EINTR)
      die("epoll_wait");
    for (int i = 0; i < n; i++) {
      if (!evs[i].data.ptr) {
        int fd;
        while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
          setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          struct peer *p = calloc(1, sizeof *p);
          if (!p)
            die("calloc");
          p->fd = fd;
          struct epoll_event ev = { .events = EPOLLIN, .data.ptr = p };
          if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) != 0)
            die("epoll_ctl");
        }
        continue;
      }
      struct peer *p = evs[i].data.ptr;
      if (peer_step(ep, p) < 0)
        peer_close(ep, p);
    }
  }
}

/* ---- the clients: blocking sockets, one connection at a time ---- */

static void send_all(int fd, const void *data, size_t n)
{
  const char *d = data;
  while (n > 0) {
    ssize_t w = send(fd, d, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      die("send");
    d += w;
    n -= (size_t)w;
  }
}

static void recv_all(int fd, void *data, size_t n)
{
  char *d = data;
  while (n > 0) {
    ssize_t r = recv(fd, d, n, 0);
    if (r < 0 && errno == EINTR)
      continue;
    if (r == 0) {
      fprintf(stderr, "np_load: connection closed early\n");
      exit(1);
    }
    if (r < 0)
      die("recv");
    d += r;
    n -= (size_t)r;
  }
}

/* A connection to the origin: directly, through a relay, or through the
 * proxy's CONNECT (its answer read byte by byte, so that nothing of the
 * origin's is taken with it). */
static const char *target_name = "127.0.0.1";

static int open_stream(unsigned port, unsigned target)
{
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in sin = { .sin_family = AF_INET,
                             .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  if (fd < 0 || connect(fd, (struct sockaddr *)&sin, sizeof sin) != 0)
    die("connect");
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (!target)
    return fd;
  char req[640];
  int n = snprintf(req, sizeof req, "CONNECT %.255s:%u HTTP/1.1\r\nHost: %.255s:%u\r\n\r\n",
                   target_name, target, target_name, target);
  send_all(fd, req, (size_t)n);
  char head[1024];
  size_t have = 0;
  while (have < 4 || memcmp(head + have - 4, "\r\n\r\n", 4) != 0) {
    if (have == sizeof head) {
      fprintf(stderr, "np_load: proxy answer too long\n");
      exit(1);
    }
    recv_all(fd, head + have, 1);
    have++;
  }
  if (memcmp(head, "HTTP/1.1 200", 12) != 0) {
    fprintf(stderr, "np_load: proxy refused: %.*s\n", (int)(strchr(head, '\r') - head), head);
    exit(1);
  }
  return fd;
}

static int bulk(unsigned port, unsigned target, int down, uint64_t bytes)
{
  static char buf[CHUNK];
  double t0 = now_s();
  int fd = open_stream(port, target);
  uint64_t moved = 0;
  if (down) {
    unsigned char req[9] = { 'D' };
    for (int i = 0; i < 8; i++)
      req[1 + i] = (unsigned char)(bytes >> (8 * i));
    send_all(fd, req, sizeof req);
    for (;;) {
      ssize_t r = recv(fd, buf, sizeof buf, 0);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        die("recv");
      if (r == 0)
        break;
      moved += (uint64_t)r;
    }
  } else {
    send_all(fd, "U", 1);
    for (uint64_t left = bytes; left > 0;) {
      size_t n = left < CHUNK ? (size_t)left : CHUNK;
      send_all(fd, pattern, n);
      left -= n;
    }
    shutdown(fd, SHUT_WR);
    unsigned char le[8];
    recv_all(fd, le, 8);
    for (int i = 7; i >= 0; i--)
      moved = moved << 8 | le[i];
  }
  double t = now_s() - t0;
  close(fd);
  if (moved != bytes) {
    fprintf(stderr, "np_load: %llu bytes arrived of %llu\n", (unsigned long long)moved,
            (unsigned long long)bytes);
    return 1;
  }
  printf("bulk dir=%s bytes=%llu seconds=%.4f MiB/s=%.1f\n", down ? "down" : "up",
         (unsigned long long)bytes, t, (double)bytes / t / 1048576.0);
  return 0;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static int setup(unsigned port, unsigned target, unsigned count)
{
  double *lat = calloc(count, sizeof *lat);
  if (!lat)
    die("calloc");
  double sum = 0, t_all = now_s();
  for (unsigned i = 0; i < count; i++) {
    double t0 = now_s();
    int fd = open_stream(port, target);
    char c = 'x';
    send_all(fd, "Ex", 2);
    recv_all(fd, &c, 1);
    lat[i] = (now_s() - t0) * 1e6;
    sum += lat[i];
    close(fd);
  }
  t_all = now_s() - t_all;
  qsort(lat, count, sizeof *lat, cmp_double);
  printf("setup connections=%u mean_us=%.1f median_us=%.1f p90_us=%.1f p99_us=%.1f max_us=%.1f "
         "total_s=%.3f\n",
         count, sum / count, lat[count / 2], lat[count * 9 / 10], lat[count * 99 / 100],
         lat[count - 1], t_all);
  free(lat);
  return 0;
}

static unsigned long long number(const char *s)
{
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (*s == '\0' || *end != '\0' || errno || v == 0)
    usage();
  return v;
}

int main(int argc, char **argv)
{
  signal(SIGPIPE, SIG_IGN);
  fill_pattern();
  if (argc == 3 && !strcmp(argv[1], "serve"))
    serve(argv[2]);
  if (argc < 3)
    usage();
  unsigned port = (unsigned)number(argv[2]), target = 0, count = 0;
  int down = -1;
  unsigned long long bytes = 0;
  for (int i = 3; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--connect"))
      target = (unsigned)number(argv[i + 1]);
    else if (!strcmp(argv[i], "--dir") && !strcmp(argv[i + 1], "up"))
      down = 0;
    else if (!strcmp(argv[i], "--dir") && !strcmp(argv[i + 1], "down"))
      down = 1;
    else if (!strcmp(argv[i], "--bytes"))
      bytes = number(argv[i + 1]);
    else if (!strcmp(argv[i], "--name"))
      target_name = argv[i + 1];
    else if (!strcmp(argv[i], "--count"))
      count = (unsigned)number(argv[i + 1]);
    else
      usage();
  }
  if (argc % 2 == 0)
    usage();
  if (!strcmp(argv[1], "bulk") && down >= 0 && bytes)
    return bulk(port, target, down, bytes);
  if (!strcmp(argv[1], "setup") && count)
    return setup(port, target, count);
  usage();
  return 2;
}
