/* t_bulk: creates and unlinks N files in DIR (the benchmark's workload:
 * each unlink is one notified call under the system-call layer);
 * `t_bulk --udp N`: N sendmsg datagrams of 64 bytes to a socket of its
 * own on 127.0.0.1 (each sendmsg is notified under `network`). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
  char name[64];
  int n = argc > 2 ? atoi(argv[2]) : 1000;
  if (argc > 2 && strcmp(argv[1], "--udp") == 0) {
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t sl = sizeof sa;
    char buf[64] = "payload", in[64];
    struct iovec iov = { .iov_base = buf, .iov_len = sizeof buf };
    struct msghdr mh = {
      .msg_name = &sa, .msg_namelen = sizeof sa, .msg_iov = &iov, .msg_iovlen = 1
    };
    int rx = socket(AF_INET, SOCK_DGRAM, 0), tx = socket(AF_INET, SOCK_DGRAM, 0);
    if (rx < 0 || tx < 0 || bind(rx, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        getsockname(rx, (struct sockaddr *)&sa, &sl) != 0)
      return 2;
    for (int i = 0; i < n; i++)
      if (sendmsg(tx, &mh, 0) != (ssize_t)sizeof buf || recv(rx, in, sizeof in, 0) != sizeof in)
        return 1;
    return 0;
  }
  if (argc < 2 || chdir(argv[1]) != 0)
    return 2;
  for (int i = 0; i < n; i++) {
    snprintf(name, sizeof name, "f%d", i);
    int fd = open(name, O_CREAT | O_WRONLY, 0600);
    if (fd < 0)
      return 1;
    close(fd);
    if (unlink(name) != 0)
      return 1;
  }
  return 0;
}
