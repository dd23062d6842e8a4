/* denial_i386: makes one system call through the i386 ABI (int 0x80,
 * getpid, i386 number 20; on x86_64 number 20 is writev), which every
 * profile's filter kills before it looks at numbers. t_denial_named checks
 * that the refusal is named as another ABI's call with the ABI check, not
 * as x86_64's writev. */
int main(void)
{
  long r;
  __asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory");
  return (int)(r & 0x7f);
}
