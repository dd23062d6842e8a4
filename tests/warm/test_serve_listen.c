/* test_serve_listen: `sbx serve`'s socket name appears only once the
 * server listens. A client (sbx run, a test's warm_start) takes the name's
 * existence as "the server is up"; were the name bound before listen(), a
 * connect in between would be refused and that run would start cold (CI
 * caught exactly that on a loaded machine).
 *
 * The moment in between is made to last: the real `sbx serve` (argv[1])
 * runs under a seccomp filter that hands its listen() to this process
 * (SECCOMP_RET_USER_NOTIF). While the call is held, the socket's name must
 * not exist yet, or, if it does, must accept a connection; once the call
 * is let through, the name must appear and accept one. */
#include <check.h>
#include <errno.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_run.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

static const char *sbx_path;

/* Forks `sbx serve` (state directory `dir`) under a filter whose listen()
 * waits for this process; returns its pid and, in *notify, this process's
 * copy of the filter's notification descriptor. */
static pid_t serve_start_held(const char *dir, int *notify)
{
  int sv[2], child_fd = -1, pidfd;
  char ack = 0;
  pid_t pid;
  /* The child waits for the ack before exec: the notification descriptor
   * is close-on-exec, so it must be taken while the child still holds it. */
  ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    int fd = -1;
    FILE *null = freopen("/dev/null", "w", stderr);
    (void)null;
    if (ctx && seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(listen), 0) == 0 &&
        seccomp_load(ctx) == 0)
      fd = seccomp_notify_fd(ctx);
    if (write(sv[1], &fd, sizeof fd) != sizeof fd || fd < 0 || read(sv[1], &ack, 1) != 1)
      _exit(126);
    setenv("SBX_STATE_DIR", dir, 1);
    execl(sbx_path, sbx_path, "serve", "--idle", "20", (char *)NULL);
    _exit(127);
  }
  close(sv[1]);
  ck_assert_int_eq(read(sv[0], &child_fd, sizeof child_fd), (ssize_t)sizeof child_fd);
  ck_assert_msg(child_fd >= 0, "the child could not load the listen() filter");
  pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  ck_assert_int_ge(pidfd, 0);
  *notify = (int)syscall(SYS_pidfd_getfd, pidfd, child_fd, 0);
  ck_assert_msg(*notify >= 0, "could not take the filter's notification descriptor: %s",
                strerror(errno));
  close(pidfd);
  ck_assert_int_eq(write(sv[0], &ack, 1), 1);
  close(sv[0]);
  return pid;
}

/* 0 when a connect to `path` was accepted, else its errno. */
static int try_connect(const char *path)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  int fd, rc;
  ck_assert_uint_lt(strlen(path), sizeof sa.sun_path);
  strcpy(sa.sun_path, path);
  fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  ck_assert_int_ge(fd, 0);
  rc = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0 ? 0 : errno;
  close(fd);
  return rc;
}

START_TEST(t_name_means_listening)
{
  char dir[] = "/tmp/sbx-serve-listen.XXXXXX", sock[128], rm[160];
  struct seccomp_notif *req;
  struct seccomp_notif_resp *resp;
  struct stat st;
  int notify = -1, rc;
  pid_t pid;

  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(sock, sizeof sock, "%s/serve-%d/serve.sock", dir, (int)geteuid());
  pid = serve_start_held(dir, &notify);
  ck_assert_int_eq(seccomp_notify_alloc(&req, &resp), 0);
  ck_assert_int_eq(seccomp_notify_receive(notify, req), 0);
  ck_assert_int_eq(req->data.nr, seccomp_syscall_resolve_name("listen"));

  /* Held inside listen(): not listening yet. */
  if (lstat(sock, &st) == 0) {
    rc = try_connect(sock);
    ck_assert_msg(rc == 0, "%s exists before the server listens: a connect now is refused (%s)",
                  sock, strerror(rc));
  }

  resp->id = req->id;
  resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
  resp->error = 0;
  resp->val = 0;
  ck_assert_int_eq(seccomp_notify_respond(notify, resp), 0);
  for (int i = 0; i < 1000 && lstat(sock, &st) < 0; i++)
    usleep(10000);
  ck_assert_msg(lstat(sock, &st) == 0 && S_ISSOCK(st.st_mode), "%s never appeared", sock);
  rc = try_connect(sock);
  ck_assert_msg(rc == 0, "connect once %s appeared: %s", sock, strerror(rc));

  seccomp_notify_free(req, resp);
  close(notify);
  kill(pid, SIGTERM);
  ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
  snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(rm), 0);
}
END_TEST

int main(int argc, char **argv)
{
  Suite *s = suite_create("serve_listen");
  TCase *tc = tcase_create("listen");
  if (argc != 2)
    return fprintf(stderr, "usage: %s SBX\n", argv[0]), 2;
  sbx_path = argv[1];
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, t_name_means_listening);
  suite_add_tcase(s, tc);
  return test_check_run(s);
}
