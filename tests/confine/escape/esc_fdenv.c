/* What the caller had that the command must not get: open descriptors
 * beyond 0-2 and secrets in the environment (tokens, keys, LD_*). */
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "esc_common.h"

extern char **environ;

int main(int argc, char **argv)
{
  static const char *const secrets[] = { "AWS_SECRET_ACCESS_KEY",
                                         "GITHUB_TOKEN",
                                         "SSH_AUTH_SOCK",
                                         "LD_PRELOAD",
                                         "LD_LIBRARY_PATH",
                                         "SBX_TEST_SECRET",
                                         NULL };
  char what[64];
  const char *home = getenv("HOME"), *path = getenv("PATH");
  (void)argv;
  if (argc != 1)
    ESC_USAGE("esc_fdenv");
  /* sbx's control channel is a SEQPACKET socket: it must not be reachable,
   * not even on 0..2 when the caller ran sbx with its stdio closed. */
  for (int fd = 0; fd < 3; fd++) {
    struct stat st;
    int type = 0;
    socklen_t len = sizeof type;
    errno = 0;
    snprintf(what, sizeof what, "descriptor %d closed (a later open would land there)", fd);
    ESC_ATTEMPT(fcntl(fd, F_GETFD) < 0, what);
    if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode) &&
        getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_SEQPACKET) {
      snprintf(what, sizeof what, "descriptor %d is a SEQPACKET socket", fd);
      ESC_ATTEMPT(1, what);
    }
  }
  for (int fd = 3; fd < 4096; fd++) {
    if (fcntl(fd, F_GETFD) >= 0) {
      snprintf(what, sizeof what, "inherited descriptor %d is open", fd);
      ESC_ATTEMPT(1, what);
    }
  }
  for (const char *const *s = secrets; *s; s++) {
    snprintf(what, sizeof what, "environment variable %s", *s);
    errno = 0;
    ESC_ATTEMPT(getenv(*s) != NULL, what);
  }
  for (char **e = environ; *e; e++)
    if (strstr(*e, "sbx-secret-value")) {
      ESC_ATTEMPT(1, *e);
    }
  /* Ignored or blocked signals of the caller must not carry over. */
  {
    char line[256];
    FILE *fp = fopen("/proc/self/status", "r");
    while (fp && fgets(line, sizeof line, fp)) {
      unsigned long long v;
      line[strcspn(line, "\n")] = '\0';
      errno = 0;
      if (sscanf(line, "SigBlk: %llx", &v) == 1 || sscanf(line, "SigIgn: %llx", &v) == 1)
        ESC_ATTEMPT(v != 0, line);
    }
    if (fp)
      fclose(fp);
  }
  errno = 0;
  ESC_ATTEMPT(!home || strcmp(home, "/tmp/home") != 0, "HOME is not the private one");
  ESC_ATTEMPT(!path || strstr(path, "/root") != NULL, "PATH is the caller's");
  ESC_DONE();
}
