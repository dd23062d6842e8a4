/* Other system call ABIs: i386 (int 0x80) and x32 numbers reach different
 * kernel tables; a filter that checks only x86_64 numbers would let them
 * through. getpid is harmless, so any success means the filter leaks. */
#include <sys/syscall.h>
#include <unistd.h>

#include "esc_common.h"

static long esc_int80(long nr)
{
  long ret;
  __asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr) : "memory");
  return ret;
}

int main(int argc, char **argv)
{
  if (argc != 2)
    ESC_USAGE("esc_arch i386 | x32");
  if (strcmp(argv[1], "i386") == 0) {
    long r = esc_int80(20); /* i386 getpid */
    errno = r < 0 ? (int)-r : 0;
    ESC_ATTEMPT(r > 0, "int 0x80 getpid");
    ESC_DONE();
  }
  if (strcmp(argv[1], "x32") == 0) {
    long r = syscall(0x40000000L | 39); /* x32 getpid */
    ESC_ATTEMPT(r > 0, "x32 getpid");
    ESC_DONE();
  }
  ESC_USAGE("unknown mode");
}
