/* getppid_loop: the cost of one cheap system call, for bench_sbx.sh.
 * getppid is allowed by every profile and does almost no work in the
 * kernel, so the difference between runs inside a profile and outside is
 * the seccomp filter's cost per call (plus Landlock's, which is zero for
 * calls that touch no file). Prints "<ns per call>". */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
  long n = argc > 1 ? atol(argv[1]) : 2000000;
  struct timespec a, b;
  double ns;

  if (n <= 0)
    return 2;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (long i = 0; i < n; i++)
    syscall(SYS_getppid); /* not the libc wrapper: it must reach the kernel */
  clock_gettime(CLOCK_MONOTONIC, &b);
  ns = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)n;
  printf("%.1f\n", ns);
  return 0;
}
