/* t_connect: TCP connect and UDP sendto, sendmsg and sendmmsg to
 * ADDR:PORT, where the program itself listens first (so nothing outside
 * the test's own network namespace is ever contacted). Prints
 * "connect: ok|ERR", "sendto: ok|ERR", "sendmsg: ok|ERR",
 * "sendmmsg: ok|ERR" with what the listener received (and whether it is
 * intact), then "scm_rights: ..." and "scm_credentials: ..." for
 * ancillary data over a unix socket pair. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
  struct sockaddr_in sa = { .sin_family = AF_INET };
  int srv, cli, usrv, ucli, one = 1, inherited;
  if (argc != 3 || inet_pton(AF_INET, argv[1], &sa.sin_addr) != 1)
    return 2;
  sa.sin_port = htons((unsigned short)atoi(argv[2]));
  /* T_CONNECT_INHERITED=1: the listeners are descriptors 3 (TCP) and 4
   * (UDP), bound by the test outside the sandbox, as a server on another
   * host would be (binding a non-loopback address is itself asked about). */
  inherited = getenv("T_CONNECT_INHERITED") != NULL;
  srv = inherited ? 3 : socket(AF_INET, SOCK_STREAM, 0);
  setsockopt(srv, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (!inherited && (bind(srv, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(srv, 4) != 0)) {
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
  usrv = inherited ? 4 : socket(AF_INET, SOCK_DGRAM, 0);
  if (!inherited && bind(usrv, (struct sockaddr *)&sa, sizeof sa) != 0)
    return 2;
  ucli = socket(AF_INET, SOCK_DGRAM, 0);
  if (sendto(ucli, "hi", 2, 0, (struct sockaddr *)&sa, sizeof sa) == 2) {
    char b[4];
    ssize_t n = recv(usrv, b, sizeof b, MSG_DONTWAIT);
    printf("sendto: ok (received %zd)\n", n);
  } else {
    printf("sendto: %s\n", strerror(errno));
  }
  /* sendmsg: two pieces, unconnected socket, destination in msg_name. */
  {
    struct iovec iov[2] = { { .iov_base = "hello-", .iov_len = 6 },
                            { .iov_base = "msg", .iov_len = 3 } };
    struct msghdr mh = {
      .msg_name = &sa, .msg_namelen = sizeof sa, .msg_iov = iov, .msg_iovlen = 2
    };
    char b[32];
    ssize_t r = sendmsg(ucli, &mh, 0), n;
    if (r == 9) {
      n = recv(usrv, b, sizeof b, MSG_DONTWAIT);
      printf("sendmsg: ok (received %zd, %s)\n", n,
             n == 9 && memcmp(b, "hello-msg", 9) == 0 ? "intact" : "CORRUPT");
    } else {
      printf("sendmsg: %s\n", r < 0 ? strerror(errno) : "short");
    }
  }
  /* sendmmsg: two datagrams; msg_len must be filled in. */
  {
    struct iovec i1 = { .iov_base = "one", .iov_len = 3 },
                 i2 = { .iov_base = "second", .iov_len = 6 };
    struct mmsghdr mm[2];
    char b[32];
    memset(mm, 0, sizeof mm);
    mm[0].msg_hdr = (struct msghdr){
      .msg_name = &sa, .msg_namelen = sizeof sa, .msg_iov = &i1, .msg_iovlen = 1
    };
    mm[1].msg_hdr = (struct msghdr){
      .msg_name = &sa, .msg_namelen = sizeof sa, .msg_iov = &i2, .msg_iovlen = 1
    };
    int r = sendmmsg(ucli, mm, 2, 0);
    if (r == 2) {
      ssize_t n1 = recv(usrv, b, sizeof b, MSG_DONTWAIT);
      int ok1 = n1 == 3 && memcmp(b, "one", 3) == 0;
      ssize_t n2 = recv(usrv, b, sizeof b, MSG_DONTWAIT);
      int ok2 = n2 == 6 && memcmp(b, "second", 6) == 0;
      printf("sendmmsg: ok (lens %u %u, %s)\n", mm[0].msg_len, mm[1].msg_len,
             ok1 && ok2 && mm[0].msg_len == 3 && mm[1].msg_len == 6 ? "intact" : "CORRUPT");
    } else {
      printf("sendmmsg: %s\n", r < 0 ? strerror(errno) : "short");
    }
  }
  /* Ancillary data over a unix pair: a descriptor (a pipe's read end)
   * passed with SCM_RIGHTS arrives and reads what was written; explicit
   * SCM_CREDENTIALS cannot be vouched for by the supervisor. */
  {
    int sp[2], pp[2], got = -1;
    char c = 'x', buf[CMSG_SPACE(sizeof(int))], rbuf[CMSG_SPACE(sizeof(int))], r4[4] = "";
    struct iovec iov = { .iov_base = &c, .iov_len = 1 };
    struct msghdr mh = {
      .msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf, .msg_controllen = sizeof buf
    };
    struct cmsghdr *cm;
    if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sp) != 0 || pipe(pp) != 0)
      return 2;
    memset(buf, 0, sizeof buf);
    cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &pp[0], sizeof(int));
    if (sendmsg(sp[0], &mh, 0) == 1) {
      struct msghdr rh = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = rbuf, .msg_controllen = sizeof rbuf
      };
      if (recvmsg(sp[1], &rh, 0) == 1 && (cm = CMSG_FIRSTHDR(&rh)) && cm->cmsg_type == SCM_RIGHTS)
        memcpy(&got, CMSG_DATA(cm), sizeof got);
      (void)!write(pp[1], "fd!", 3);
      printf("scm_rights: ok (%s)\n", got >= 0 && read(got, r4, 3) == 3 && memcmp(r4, "fd!", 3) == 0
                                          ? "descriptor works"
                                          : "BROKEN");
    } else {
      printf("scm_rights: %s\n", strerror(errno));
    }
    {
      struct ucred uc = { .pid = getpid(), .uid = getuid(), .gid = getgid() };
      char cb[CMSG_SPACE(sizeof uc)];
      struct msghdr ch = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cb, .msg_controllen = sizeof cb
      };
      memset(cb, 0, sizeof cb);
      cm = CMSG_FIRSTHDR(&ch);
      cm->cmsg_level = SOL_SOCKET;
      cm->cmsg_type = SCM_CREDENTIALS;
      cm->cmsg_len = CMSG_LEN(sizeof uc);
      memcpy(CMSG_DATA(cm), &uc, sizeof uc);
      printf("scm_credentials: %s\n", sendmsg(sp[0], &ch, 0) == 1 ? "ok" : strerror(errno));
    }
  }
  return 0;
}
