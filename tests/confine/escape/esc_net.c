/* Reaching the host: a TCP listener on the host's 127.0.0.1 and an
 * abstract unix socket bound outside. `esc_net tcp PORT` and
 * `esc_net abstract NAME` succeed only if the sandbox lets them out;
 * `esc_net tcp_ok PORT` is the positive check for profiles with network. */
#include <arpa/inet.h>
#include <stddef.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "esc_common.h"

static int esc_tcp(int port)
{
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
  int fd = socket(AF_INET, SOCK_STREAM, 0), rc;
  if (fd < 0)
    return -1;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  rc = connect(fd, (struct sockaddr *)&a, sizeof a);
  close(fd);
  return rc;
}

int main(int argc, char **argv)
{
  if (argc != 3)
    ESC_USAGE("esc_net tcp PORT | reach PORT | tcp_ok PORT | lo_ok | abstract NAME");
  if (strcmp(argv[1], "tcp") == 0) {
    struct sockaddr_in b = { .sin_family = AF_INET, .sin_port = htons(47811) };
    int fd;
    ESC_ATTEMPT(esc_tcp(atoi(argv[2])) == 0, "connect 127.0.0.1 (host listener)");
    fd = socket(AF_INET, SOCK_STREAM, 0);
    b.sin_addr.s_addr = htonl(INADDR_ANY);
    ESC_ATTEMPT(fd >= 0 && bind(fd, (struct sockaddr *)&b, sizeof b) == 0 && listen(fd, 1) == 0,
                "listen on a TCP port");
    ESC_DONE();
  }
  if (strcmp(argv[1], "reach") == 0) {
    /* Only the host's listener: a proxied run may listen on its own
     * loopback, which nobody outside can reach. */
    ESC_ATTEMPT(esc_tcp(atoi(argv[2])) == 0, "connect 127.0.0.1 (host listener)");
    ESC_DONE();
  }
  if (strcmp(argv[1], "tcp_ok") == 0) {
    if (esc_tcp(atoi(argv[2])) != 0) {
      fprintf(stderr, "connect failed: %s\n", strerror(errno));
      return 1;
    }
    return 0;
  }
  if (strcmp(argv[1], "lo_ok") == 0) {
    /* Loopback inside the sandbox's own namespace is up: a listener on
     * 127.0.0.1 there takes a connection. */
    struct sockaddr_in a = { .sin_family = AF_INET };
    socklen_t len = sizeof a;
    int l = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (l < 0 || c < 0 || bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 1) != 0 ||
        getsockname(l, (struct sockaddr *)&a, &len) != 0 ||
        connect(c, (struct sockaddr *)&a, sizeof a) != 0) {
      fprintf(stderr, "loopback: %s\n", strerror(errno));
      return 1;
    }
    return 0;
  }
  if (strcmp(argv[1], "abstract") == 0) {
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    size_t n = strlen(argv[2]);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (n + 1 > sizeof a.sun_path)
      ESC_USAGE("name too long");
    memcpy(a.sun_path + 1, argv[2], n);
    ESC_ATTEMPT(fd >= 0 &&
                    connect(fd, (struct sockaddr *)&a,
                            (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) == 0,
                "connect to the host's abstract unix socket");
    ESC_DONE();
  }
  ESC_USAGE("unknown mode");
}
