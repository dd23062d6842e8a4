/* A fake isolated worker for tests/tee: it confines itself as the real one
 * does (seccomp strict mode), says ready, then answers every request the
 * way --mode=NAME says, most of them wrongly. What the pool must make of
 * each is in test_tee.c. */
#include <linux/seccomp.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CHANNEL 3

static _Noreturn void fake_exit(int status)
{
  for (;;)
    syscall(SYS_exit, status);
}

static void put(const void *p, size_t n)
{
  if (write(CHANNEL, p, n) != (ssize_t)n)
    fake_exit(2);
}

static void frame(const char *body, size_t n)
{
  unsigned char h[4] = { (unsigned char)(n >> 24), (unsigned char)(n >> 16),
                         (unsigned char)(n >> 8), (unsigned char)n };
  put(h, 4);
  put(body, n);
}

/* Reads one message and forgets it. */
static void drain_one(void)
{
  static char buf[1 << 20];
  unsigned char h[4];
  size_t n, got = 0;

  while (got < 4) {
    ssize_t r = read(CHANNEL, h + got, 4 - got);
    if (r <= 0)
      fake_exit(0);
    got += (size_t)r;
  }
  n = (size_t)h[0] << 24 | (size_t)h[1] << 16 | (size_t)h[2] << 8 | h[3];
  while (n > 0) {
    ssize_t r = read(CHANNEL, buf, n < sizeof buf ? n : sizeof buf);
    if (r <= 0)
      fake_exit(0);
    n -= (size_t)r;
  }
}

/* Blocks until the pool closes the channel (or kills it). */
/* A request is two messages: the header and the input. */
static void drain(void)
{
  drain_one();
  drain_one();
}

static _Noreturn void hang(void)
{
  char c;
  while (read(CHANNEL, &c, 1) > 0)
    ;
  fake_exit(0);
}

int main(int argc, char **argv)
{
  static const char ready[] = "{\"ready\":true,\"heap\":0}";
  const char *mode = "good";

  for (int i = 1; i < argc; i++)
    if (strncmp(argv[i], "--mode=", 7) == 0)
      mode = argv[i] + 7;
  if (strcmp(mode, "unconfined") != 0 && prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0) != 0)
    return 1;
  if (strcmp(mode, "no-ready") == 0) {
    frame("{\"ok\":true,\"value\":1,\"heap\":0}", 30);
    hang();
  }
  if (strcmp(mode, "silent") == 0)
    hang();
  frame(ready, sizeof ready - 1);
  if (strcmp(mode, "gone") == 0)
    fake_exit(0); /* ready, then gone before the request */
  for (;;) {
    drain();
    if (strcmp(mode, "good") == 0 || strcmp(mode, "unconfined") == 0) {
      frame("{\"ok\":true,\"value\":1,\"heap\":0}", 30);
    } else if (strcmp(mode, "garbage") == 0) {
      put("\x00\x00\x00\x08garbage!", 12);
    } else if (strcmp(mode, "not-json") == 0) {
      frame("{\"ok\":tru", 9);
    } else if (strcmp(mode, "raw-bytes") == 0) {
      put("HTTP/1.1 200 OK\r\n", 17); /* a length of 1.2 GB, then nothing */
      hang();
    } else if (strcmp(mode, "cut-header") == 0) {
      put("\x00\x00", 2);
      fake_exit(0);
    } else if (strcmp(mode, "cut-body") == 0) {
      put("\x00\x00\x00\x40{\"ok\":true,", 15);
      fake_exit(0);
    } else if (strcmp(mode, "cut-hang") == 0) {
      put("\x00\x00\x00\x40{\"ok\":true,", 15);
      hang();
    } else if (strcmp(mode, "oversize") == 0) {
      put("\x7f\xff\xff\xff", 4);
      hang();
    } else if (strcmp(mode, "no-ok") == 0) {
      frame("{\"value\":1,\"heap\":0}", 20);
    } else if (strcmp(mode, "unknown-field") == 0) {
      frame("{\"ok\":true,\"value\":1,\"heap\":0,\"x\":1}", 36);
    } else if (strcmp(mode, "duplicate") == 0) {
      frame("{\"ok\":true,\"value\":1,\"value\":2,\"heap\":0}", 40);
    } else if (strcmp(mode, "error-not-string") == 0) {
      frame("{\"ok\":false,\"error\":7,\"heap\":0}", 31);
    } else if (strcmp(mode, "two-replies") == 0) {
      /* This answer and the next, ahead of the question. */
      put("\x00\x00\x00\x1e{\"ok\":true,\"value\":1,\"heap\":0}"
          "\x00\x00\x00\x1e{\"ok\":true,\"value\":2,\"heap\":0}",
          68);
    } else if (strcmp(mode, "array") == 0) {
      frame("[1,2]", 5);
    } else if (strcmp(mode, "die") == 0) {
      fake_exit(3);
    } else if (strcmp(mode, "hang") == 0) {
      hang();
    } else {
      fake_exit(4);
    }
  }
}
