/* The cost, per run, of reading the kernel's audit records to name
 * refusals (runtime/audit/sbx_kmsg.c), against what sbx did before: open
 * /dev/kmsg at its end and read it after the run. Measured in the same
 * process, interleaved, N rounds of each:
 *   kmsg      open("/dev/kmsg") + lseek(END) + read to EAGAIN + close (before)
 *   clean     sbx_kmsg_open (audit multicast group) + sbx_kmsg_collect +
 *             close: what a run that exited 0 pays now
 *   failed    clean + sbx_kmsg_settle (one AUDIT_GET): a run that did not
 * Needs root (the multicast group, /dev/kmsg, AUDIT_GET); exits 77 without.
 * Usage: bench_naming [ROUNDS] (default 2000); prints microseconds per run. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "sbx_denial.h"

static double bn_now_us(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static struct sbx_kmsg_scan bn_scan;

static int bn_kmsg(void)
{
  char buf[8192];
  int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 || lseek(fd, 0, SEEK_END) < 0)
    return -1;
  while (read(fd, buf, sizeof buf) > 0)
    ;
  close(fd);
  return 0;
}

static int bn_new(int failed)
{
  int on = -1, fd = sbx_kmsg_open();
  if (fd < 0)
    return -1;
  if (failed && sbx_kmsg_settle(&on) != 0) {
    close(fd);
    return -1;
  }
  sbx_kmsg_collect(fd, 1, "/nonexistent", &bn_scan);
  close(fd);
  return 0;
}

int main(int argc, char *argv[])
{
  long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : 2000;
  double t[3] = { 0, 0, 0 };
  if (rounds <= 0) {
    fprintf(stderr, "usage: bench_naming [ROUNDS]\n");
    return 2;
  }
  if (bn_kmsg() < 0 || bn_new(1) < 0) {
    fprintf(stderr, "bench_naming: needs root (/dev/kmsg, the audit group, AUDIT_GET)\n");
    return 77;
  }
  for (long i = 0; i < rounds; i++) {
    double a = bn_now_us();
    bn_kmsg();
    double b = bn_now_us();
    bn_new(0);
    double c = bn_now_us();
    bn_new(1);
    double d = bn_now_us();
    t[0] += b - a;
    t[1] += c - b;
    t[2] += d - c;
  }
  printf("kmsg (before) %.1f us  clean run %.1f us  failed run %.1f us  (%ld rounds)\n",
         t[0] / (double)rounds, t[1] / (double)rounds, t[2] / (double)rounds, rounds);
  return 0;
}
