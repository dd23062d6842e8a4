/* t_connect: TCP connect and UDP sendto to ADDR:PORT, where the program
 * itself listens first (so nothing outside the test's own network
 * namespace is ever contacted). Prints "connect: ok|ERR" and
 * "sendto: ok|ERR" and, when connected, whether the peer was accepted. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
  struct sockaddr_in sa = {.sin_family = AF_INET};
  int srv, cli, usrv, ucli, one = 1;
  if (argc != 3 || inet_pton(AF_INET, argv[1], &sa.sin_addr) != 1)
    return 2;
  sa.sin_port = htons((unsigned short)atoi(argv[2]));
  srv = socket(AF_INET, SOCK_STREAM, 0);
  setsockopt(srv, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(srv, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(srv, 4) != 0) {
    perror("listen");
    return 2;
  }
  cli = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(cli, (struct sockaddr *)&sa, sizeof sa) == 0) {
    int a = accept(srv, NULL, NULL);
    printf("connect: ok (accepted %s)\n", a >= 0 ? "yes" : "no");
  } else {
    printf("connect: %s\n", strerror(errno));
  }
  usrv = socket(AF_INET, SOCK_DGRAM, 0);
  if (bind(usrv, (struct sockaddr *)&sa, sizeof sa) != 0)
    return 2;
  ucli = socket(AF_INET, SOCK_DGRAM, 0);
  if (sendto(ucli, "hi", 2, 0, (struct sockaddr *)&sa, sizeof sa) == 2) {
    char b[4];
    ssize_t n = recv(usrv, b, sizeof b, MSG_DONTWAIT);
    printf("sendto: ok (received %zd)\n", n);
  } else {
    printf("sendto: %s\n", strerror(errno));
  }
  return 0;
}
