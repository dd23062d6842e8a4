/* Privileges: any capability left, securebits not locked, no_new_privs or
 * seccomp off, or an operation only a privileged process can do. */
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "esc_common.h"

int main(int argc, char **argv)
{
  char line[256];
  FILE *fp;
  int secbits;
  (void)argv;
  if (argc != 1)
    ESC_USAGE("esc_priv");
  fp = fopen("/proc/self/status", "r");
  if (!fp)
    ESC_USAGE("cannot read /proc/self/status");
  while (fgets(line, sizeof line, fp)) {
    unsigned long long v;
    line[strcspn(line, "\n")] = '\0';
    errno = 0;
    if (sscanf(line, "CapInh: %llx", &v) == 1 || sscanf(line, "CapPrm: %llx", &v) == 1 ||
        sscanf(line, "CapEff: %llx", &v) == 1 || sscanf(line, "CapBnd: %llx", &v) == 1 ||
        sscanf(line, "CapAmb: %llx", &v) == 1)
      ESC_ATTEMPT(v != 0, line);
    else if (sscanf(line, "NoNewPrivs: %llu", &v) == 1)
      ESC_ATTEMPT(v != 1, line);
    else if (sscanf(line, "Seccomp: %llu", &v) == 1)
      ESC_ATTEMPT(v != 2, line);
  }
  fclose(fp);
  secbits = prctl(PR_GET_SECUREBITS);
  errno = 0;
  ESC_ATTEMPT(secbits >= 0 && (secbits & (SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP_LOCKED |
                                          SECBIT_KEEP_CAPS_LOCKED)) !=
                                  (SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP_LOCKED |
                                   SECBIT_KEEP_CAPS_LOCKED),
              "securebits not locked");
  ESC_ATTEMPT(prctl(PR_SET_SECUREBITS, 0) == 0, "clear securebits");
  ESC_ATTEMPT(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_SYS_ADMIN, 0, 0) == 0,
              "raise an ambient capability");
  {
    struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct d[2] = { { ~0u, ~0u, 0 }, { ~0u, ~0u, 0 } };
    ESC_ATTEMPT(syscall(SYS_capset, &h, d) == 0, "capset(all)");
  }
  ESC_ATTEMPT(mknod("/tmp/sbx-null", S_IFCHR | 0666, makedev(1, 3)) == 0, "mknod");
  ESC_ATTEMPT(setuid(65534) == 0 && setuid(0) == 0, "setuid round trip");
  ESC_ATTEMPT(open("/etc/shadow", O_RDONLY) >= 0, "read /etc/shadow");
  ESC_ATTEMPT(sethostname("pwned", 5) == 0, "sethostname");
  ESC_DONE();
}
