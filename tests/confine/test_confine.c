/* Confinement tests: the escape battery (tests/confine/escape/) and the
 * positive checks, run through sbx_confine_run() on the real kernel.
 * Usage: test_confine SUITE (ctest runs one suite per test). Exits 77 when
 * the kernel lacks a layer the profiles need (the test is then SKIPPED). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <limits.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <termios.h>
#include <unistd.h>

#include "confine_fixture.h"
#include "sbx_confine.h"
#include "sbx_run_hooks.h"
#include "sbx_proxy.h"
#include "sbx_unotify.h"
#include "sbx_warm.h"

#define ESC(name) CONFINE_ESCAPE_DIR "/" name

static char ws[128];
static char outside[128];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(path);
}

static void ws_setup(void)
{
  snprintf(ws, sizeof ws, "/tmp/sbx-confine-ws-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(ws));
  snprintf(outside, sizeof outside, "/tmp/sbx-confine-out-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(outside));
  chmod(ws, 0755);
}

static void ws_teardown(void)
{
  nftw(ws, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  nftw(outside, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  cfx_release();
}

static void put_file(const char *dir, const char *name, const char *text)
{
  char path[PATH_MAX];
  FILE *fp;
  ck_assert_int_lt(snprintf(path, sizeof path, "%s/%s", dir, name), (int)sizeof path);
  fp = fopen(path, "w");
  ck_assert_ptr_nonnull(fp);
  fputs(text, fp);
  fclose(fp);
}

static char *read_file(const char *dir, const char *name)
{
  static char buf[4096];
  char path[PATH_MAX];
  FILE *fp;
  size_t n;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  fp = fopen(path, "r");
  if (!fp)
    return NULL;
  n = fread(buf, 1, sizeof buf - 1, fp);
  buf[n] = '\0';
  fclose(fp);
  return buf;
}

/* A proxied profile's proxy in the battery, asking nobody: no approver
 * runs here, so a destination left to a person is refused. */
static const struct sbx_proxy_cfg battery_proxy = { 0 };

/* The battery's profile `name`. With CONFINE_WARM, without approvals at
 * the system-call layer and with a direct network (below): the server serves such a profile cold only
 * (sbx_serve.c), and the battery (which never serves that layer: no
 * unotify) checks the other layers through the warm path; client and
 * server hold the same copy (the fingerprint covers approval_ops). */
static const struct cs_profile *battery_profile(const char *name)
{
  static struct cs_profile copies[4];
  static int n_copies;
  const struct cs_profile *p = cfx_profile(name);
  if (!p || !getenv("CONFINE_WARM") ||
      (!(p->approval_ops & SBX_UNOTIFY_OPS) && !sbx_net_proxied(p)))
    return p;
  for (int i = 0; i < n_copies; i++)
    if (strcmp(copies[i].name, p->name) == 0)
      return &copies[i];
  if (n_copies == 4)
    return NULL;
  copies[n_copies] = *p;
  copies[n_copies].approval_ops &= ~(uint32_t)SBX_UNOTIFY_OPS;
  /* Nor with the proxy: its listeners are made and served by the cold
   * path (sbx_warm.c). The copy keeps a direct network; the proxied
   * network is tested cold (t_network_proxied, t_network_proxy_answers). */
  copies[n_copies].net_mode = CS_NET_DIRECT;
  return &copies[n_copies++];
}

/* Runs argv (from `ap`, NULL-terminated) under `prof` in `dir`; `warm`:
 * through the battery's warm server when there is one (CONFINE_WARM). */
static int run_va(const struct cs_profile *prof, const char *dir, uint64_t timeout_ms,
                  uint32_t flags, bool warm, struct sbx_run_result *res, va_list ap)
{
  char *argv[32];
  int n = 0, rc;
  struct sbx_run_request req = { 0 };
  while (n < 31 && (argv[n] = va_arg(ap, char *)))
    n++;
  argv[n] = NULL;
  ck_assert_ptr_nonnull(prof);
  req.profile = prof;
  req.workspace = dir;
  req.argv = argv;
  req.timeout_ms = timeout_ms;
  req.flags = flags;
  req.hooks = &sbx_run_hooks;
  if (sbx_net_proxied(prof))
    req.proxy = &battery_proxy;
  /* confine_warm_* (tests/warm/with_server.sh): the same battery through a
   * running `sbx serve`; every run that started must have started warm. */
  req.warm_socket = warm ? getenv("CONFINE_WARM_SOCKET") : NULL;
  rc = sbx_confine_run(&req, res);
  fprintf(stderr, "[%s%s] %s %s: rc=%d exit=%d %s (start: %s%s%s)\n", prof->name,
          flags ? ", test flags" : "", argv[0], argv[1] ? argv[1] : "", rc, res->exit_code,
          res->message, res->start_path, res->start_note[0] ? ", " : "", res->start_note);
  if (warm && getenv("CONFINE_REQUIRE_WARM") && res->outcome != SBX_OUTCOME_FAILED)
    ck_assert_msg(strcmp(res->start_path, "warm") == 0, "run did not start warm: %s",
                  res->start_note);
  return rc;
}

/* Runs argv (NULL-terminated varargs) under `profile` in `dir`. */
static int run_in(const char *profile, const char *dir, uint64_t timeout_ms,
                  struct sbx_run_result *res, ...)
{
  const struct cs_profile *prof = battery_profile(profile);
  va_list ap;
  int rc;
  ck_assert_msg(prof != NULL, "no profile %s", profile);
  va_start(ap, res);
  rc = run_va(prof, dir, timeout_ms, 0, true, res, ap);
  va_end(ap);
  return rc;
}

#define RUN(profile, res, ...) run_in(profile, ws, 0, res, __VA_ARGS__, (char *)NULL)

/* The sandbox held: exit 0 from the escape program, or killed by the
 * seccomp filter (SIGSYS) when `sigsys_ok`. */
static void assert_held(const struct sbx_run_result *res, bool sigsys_ok)
{
  if (sigsys_ok && res->outcome == SBX_OUTCOME_SIGNALED && res->status == SIGSYS)
    return;
  ck_assert_msg(res->outcome == SBX_OUTCOME_EXITED && res->exit_code == 0,
                "escape attempt not refused: %s (exit %d)", res->message, res->exit_code);
}

/* A negative control: the escape program got through (exit 10), so the
 * run it stands beside would have caught the hole. */
static void assert_escaped(const struct sbx_run_result *res, const char *what)
{
  ck_assert_msg(res->outcome == SBX_OUTCOME_EXITED && res->exit_code == 10,
                "negative control: %s (%s, exit %d)", what, res->message, res->exit_code);
}

/* ---- filesystem ---- */

START_TEST(t_write_outside)
{
  static const char *const profiles[] = { "standard", "strict", "hardened" };
  struct sbx_run_result res;
  char path[PATH_MAX];
  struct stat st;
  for (size_t i = 0; i < 3; i++) {
    RUN(profiles[i], &res, ESC("esc_fs"), "write_outside", outside, "/work", "/root");
    assert_held(&res, false);
    snprintf(path, sizeof path, "%s/sbx-pwn", outside);
    ck_assert_int_ne(stat(path, &st), 0);
    ck_assert_int_ne(stat("/etc/sbx-pwn", &st), 0);
  }
}
END_TEST

START_TEST(t_read_denied)
{
  static const char *const profiles[] = { "standard", "strict", "hardened" };
  struct sbx_run_result res;
  char target[PATH_MAX], link[PATH_MAX];
  put_file(ws, "secret.txt", "top secret\n");
  ck_assert_int_eq(mkdir(strcat(strcpy(target, ws), "/secrets"), 0755), 0);
  put_file(target, "key", "private key\n");
  put_file(outside, "key", "outside key\n");
  /* Planted symlinks: to the denied file, into the denied dir, outside. */
  snprintf(link, sizeof link, "%s/link", ws);
  ck_assert_int_eq(symlink("secret.txt", link), 0);
  snprintf(link, sizeof link, "%s/link-dir", ws);
  ck_assert_int_eq(symlink("secrets/key", link), 0);
  snprintf(target, sizeof target, "%s/key", outside);
  snprintf(link, sizeof link, "%s/link-out", ws);
  ck_assert_int_eq(symlink(target, link), 0);
  for (size_t i = 0; i < 3; i++) {
    RUN(profiles[i], &res, ESC("esc_fs"), "read_denied", "secret.txt", "link", "secrets/key",
        "link-dir", "link-out", target, "/etc/shadow", "/proc/1/environ");
    assert_held(&res, false);
  }
  ck_assert_str_eq(read_file(ws, "secret.txt"), "top secret\n");
}
END_TEST

START_TEST(t_readonly_workspace)
{
  struct sbx_run_result res;
  put_file(ws, "file.txt", "original\n");
  RUN("strict", &res, ESC("esc_fs"), "readonly", "file.txt");
  assert_held(&res, false);
  RUN("hardened", &res, ESC("esc_fs"), "readonly", "file.txt");
  assert_held(&res, false);
  RUN("hardened", &res, ESC("esc_fs"), "nocreate", ".", "/tmp", "/dev/shm");
  assert_held(&res, false);
  ck_assert_str_eq(read_file(ws, "file.txt"), "original\n");
}
END_TEST

/* Denied paths win over the workspace itself and over allowed paths. */
START_TEST(t_denied_workspace)
{
  struct sbx_run_result res;
  struct sbx_run_request req = { 0 };
  char home[256], inner[300];
  char *argv[] = { "true", NULL };
  const char *old = getenv("HOME");
  char *saved = old ? strdup(old) : NULL;
  snprintf(home, sizeof home, "%s/home", outside);
  snprintf(inner, sizeof inner, "%s/.ssh/project", home);
  ck_assert_int_eq(mkdir(home, 0755), 0);
  ck_assert_int_eq(mkdir(strcat(strcpy(inner, home), "/.ssh"), 0700), 0);
  strcat(inner, "/project");
  ck_assert_int_eq(mkdir(inner, 0755), 0);
  setenv("HOME", home, 1);
  req.profile = cfx_profile("standard");
  req.workspace = inner;
  req.argv = argv;
  req.hooks = &sbx_run_hooks;
  if (sbx_net_proxied(req.profile))
    req.proxy = &battery_proxy;
  ck_assert_int_lt(sbx_confine_run(&req, &res), 0);
  ck_assert_int_eq(res.exit_code, SBX_EXIT_FAILURE);
  ck_assert_int_eq(res.layer, SBX_LAYER_MOUNT);
  ck_assert_ptr_nonnull(strstr(res.message, "inside denied path"));
  if (saved)
    setenv("HOME", saved, 1);
  free(saved);
}
END_TEST

/* ---- processes ---- */

START_TEST(t_process_outside)
{
  struct sbx_run_result res;
  char pid_s[16];
  pid_t victim = fork();
  ck_assert_int_ge(victim, 0);
  if (victim == 0) {
    for (;;)
      pause();
  }
  snprintf(pid_s, sizeof pid_s, "%d", (int)victim);
  RUN("standard", &res, ESC("esc_proc"), "outside", pid_s);
  assert_held(&res, true);
  /* The victim outside is alive and untouched. */
  ck_assert_int_eq(kill(victim, 0), 0);
  ck_assert_int_eq(waitpid(victim, NULL, WNOHANG), 0);
  kill(victim, SIGKILL);
  waitpid(victim, NULL, 0);
  RUN("strict", &res, ESC("esc_proc"), "outside", pid_s);
  assert_held(&res, true);
}
END_TEST

/* The report names the refused call and the profile's rule for it, from
 * the kernel's audit record; when that record cannot be had (kernel log not
 * readable, printk rate limit) it says so instead of guessing. */
START_TEST(t_denial_named)
{
  static const char *const profiles[] = { "standard", "strict" };
  struct sbx_run_result res;
  for (size_t i = 0; i < 2; i++) {
    RUN(profiles[i], &res, ESC("esc_proc"), "ptrace_only");
    assert_held(&res, true);
    if (res.denied_syscall >= 0) {
      ck_assert_int_eq(res.denied_syscall, SYS_ptrace);
      ck_assert_str_eq(res.denied_syscall_name, "ptrace");
      ck_assert_ptr_nonnull(strstr(res.message, "seccomp: "));
      ck_assert_ptr_nonnull(strstr(res.message, "ptrace (101)"));
      ck_assert_ptr_nonnull(res.denied_note);
      ck_assert_int_eq(res.denied_note->nr, SYS_ptrace);
    } else if (res.outcome == SBX_OUTCOME_SIGNALED) {
      ck_assert_ptr_nonnull(strstr(res.message, "could not be named"));
    }
  }
}
END_TEST

START_TEST(t_tiocsti)
{
  static const char *const profiles[] = { "standard", "strict" };
  for (size_t i = 0; i < 2; i++) {
    int master = posix_openpt(O_RDWR | O_NOCTTY), st;
    pid_t helper;
    ck_assert_int_ge(master, 0);
    ck_assert_int_eq(grantpt(master), 0);
    ck_assert_int_eq(unlockpt(master), 0);
    helper = fork();
    ck_assert_int_ge(helper, 0);
    if (helper == 0) {
      /* The terminal becomes the controlling terminal of the caller, as
       * when sbx runs from an interactive shell. */
      struct sbx_run_result res;
      struct termios t;
      char c;
      int slave;
      setsid();
      slave = open(ptsname(master), O_RDWR);
      if (slave < 0 || ioctl(slave, TIOCSCTTY, 0) < 0)
        _exit(90);
      tcgetattr(slave, &t);
      cfmakeraw(&t);
      tcsetattr(slave, TCSANOW, &t);
      dup2(slave, 0);
      run_in(profiles[i], ws, 0, &res, ESC("esc_tty"), (char *)NULL);
      fcntl(slave, F_SETFL, O_NONBLOCK);
      if (read(slave, &c, 1) == 1)
        _exit(91); /* a byte was injected into the caller's terminal */
      _exit(res.outcome == SBX_OUTCOME_EXITED ? res.exit_code : 92);
    }
    ck_assert_int_eq(waitpid(helper, &st, 0), helper);
    close(master);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "TIOCSTI under %s: status %d", profiles[i],
                  WIFEXITED(st) ? WEXITSTATUS(st) : -1);
  }
}
END_TEST

/* Other system-call ABIs (esc_arch): each is its own suite (abi_i386,
 * abi_x32) so that a kernel which does not offer the ABI at all skips it
 * with the reason (host_offers_abi) instead of passing trivially. */
static void other_abi_held(const char *abi)
{
  static const char *const profiles[] = { "standard", "strict" };
  struct sbx_run_result res;
  for (size_t i = 0; i < 2; i++) {
    RUN(profiles[i], &res, ESC("esc_arch"), abi);
    assert_held(&res, true);
  }
}

START_TEST(t_abi_i386)
{
  other_abi_held("i386");
}
END_TEST

START_TEST(t_abi_x32)
{
  other_abi_held("x32");
}
END_TEST

START_TEST(t_namespaces_io_uring)
{
  static const char *const profiles[] = { "standard", "strict", "hardened" };
  struct sbx_run_result res;
  for (size_t i = 0; i < 3; i++) {
    RUN(profiles[i], &res, ESC("esc_ns"));
    assert_held(&res, true);
  }
}
END_TEST

/* ---- network ---- */

static int tcp_listener(int *port)
{
  struct sockaddr_in a = { .sin_family = AF_INET };
  socklen_t len = sizeof a;
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
  ck_assert_int_eq(listen(fd, 8), 0);
  ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
  *port = ntohs(a.sin_port);
  return fd;
}

static int abstract_listener(char *name, size_t len)
{
  struct sockaddr_un a = { .sun_family = AF_UNIX };
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  snprintf(name, len, "sbx-confine-test-%d", (int)getpid());
  memcpy(a.sun_path + 1, name, strlen(name));
  ck_assert_int_eq(bind(fd, (struct sockaddr *)&a,
                        (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name))),
                   0);
  ck_assert_int_eq(listen(fd, 8), 0);
  return fd;
}

START_TEST(t_network)
{
  struct sbx_run_result res;
  char port_s[16], name[64];
  int port, lfd = tcp_listener(&port), ufd = abstract_listener(name, sizeof name);
  snprintf(port_s, sizeof port_s, "%d", port);
  /* Network blocked: the host's loopback listener is unreachable. */
  RUN("strict", &res, ESC("esc_net"), "tcp", port_s);
  assert_held(&res, false);
  RUN("hardened", &res, ESC("esc_net"), "tcp", port_s);
  assert_held(&res, false);
  /* Abstract unix sockets of the host: unreachable under every profile,
   * including one that allows the network (Landlock scoping). */
  RUN("strict", &res, ESC("esc_net"), "abstract", name);
  assert_held(&res, false);
  RUN("standard", &res, ESC("esc_net"), "abstract", name);
  assert_held(&res, false);
  /* Positive: standard allows the network; directly, or (the seed's
   * standard) through the proxy only, which t_network_proxied and
   * t_network_proxy_answers test. */
  if (cfx_profile("standard")->allow_network && !sbx_net_proxied(cfx_profile("standard"))) {
    RUN("standard", &res, ESC("esc_net"), "tcp_ok", port_s);
    ck_assert_int_eq(res.exit_code, 0);
  }
  close(lfd);
  close(ufd);
}
END_TEST

/* A proxied profile (net_mode proxy): the run's own network namespace.
 * Its loopback is up (the proxy's listeners live there), the host's
 * loopback listener and abstract sockets are out of reach. The negative
 * control is t_network's standard run reaching the same kind of listener
 * with tcp_ok, and here the same listener reached from this process. */
/* Cold: the warm path declines proxied profiles (sbx_warm.c), and the
 * battery's server holds no template of this one. */
static void run_proxied(struct sbx_run_result *res, ...)
{
  va_list ap;
  va_start(ap, res);
  run_va(cfx_profile("standard-proxied"), ws, 0, 0, false, res, ap);
  va_end(ap);
}

START_TEST(t_network_proxied)
{
  struct sbx_run_result res;
  char port_s[16], name[64];
  int port, lfd = tcp_listener(&port), ufd = abstract_listener(name, sizeof name);
  snprintf(port_s, sizeof port_s, "%d", port);
  {
    /* Control: the listener is reachable from the host's namespace. */
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(connect(c, (struct sockaddr *)&a, sizeof a), 0);
    close(c);
  }
  run_proxied(&res, ESC("esc_net"), "lo_ok", "-", (char *)NULL);
  ck_assert_msg(res.exit_code == 0, "loopback inside a proxied run: %s", res.message);
  ck_assert_str_eq(res.start_path, "cold");
  run_proxied(&res, ESC("esc_net"), "reach", port_s, (char *)NULL);
  assert_held(&res, false);
  run_proxied(&res, ESC("esc_net"), "abstract", name, (char *)NULL);
  assert_held(&res, false);
  close(lfd);
  close(ufd);
}
END_TEST

/* The proxied run's way out is the proxy, served by the supervisor on the
 * run's own loopback: curl, pointed at it by the environment the run
 * gets, is answered 403 with the reason for a name the policy does not
 * allow (the fixture's profile allows none and asks nobody). Control:
 * the same request to a port nothing listens on fails to connect, so the
 * 403 can only come from the proxy. */
START_TEST(t_network_proxy_answers)
{
  struct sbx_run_result res;
  char path[PATH_MAX];
  const char *head;
  if (access("/usr/bin/curl", X_OK) != 0) {
    fprintf(stderr, "SKIP: no /usr/bin/curl\n");
    return;
  }
  snprintf(path, sizeof path, "%s/head.out", ws);
  unlink(path);
  run_proxied(&res, "/usr/bin/curl", "-sS", "-o", "/dev/null", "-D", "head.out",
              "http://refused.example/", (char *)NULL);
  ck_assert_msg(res.exit_code == 0, "curl through the proxy: %s", res.message);
  head = read_file(ws, "head.out");
  ck_assert_msg(head && strstr(head, " 403 ") && strstr(head, "X-Proxy-Error:"),
                "the proxy's refusal: %s", head ? head : "(no head.out)");
  run_proxied(&res, "/usr/bin/curl", "-sS", "-o", "/dev/null", "--proxy", "http://127.0.0.1:9",
              "http://refused.example/", (char *)NULL);
  ck_assert_msg(res.exit_code == 7, "curl to a port with no proxy: %s", res.message);
  /* Without the proxy's configuration, a proxied run is refused before
   * anything is set up: never a run with no way out that looks broken. */
  {
    struct sbx_run_request req = { 0 };
    char *argv[] = { "true", NULL };
    req.profile = cfx_profile("standard-proxied");
    req.workspace = ws;
    req.argv = argv;
    req.hooks = &sbx_run_hooks;
    ck_assert_int_lt(sbx_confine_run(&req, &res), 0);
    ck_assert_int_eq(res.layer, SBX_LAYER_REQUEST);
    ck_assert_ptr_nonnull(strstr(res.message, "no proxy was given"));
    req.proxy = &battery_proxy; /* control: the same request with it runs */
    ck_assert_int_eq(sbx_confine_run(&req, &res), 0);
    ck_assert_int_eq(res.exit_code, 0);
  }
}
END_TEST

/* ---- inherited state and privileges ---- */

START_TEST(t_fds_env)
{
  static const char *const profiles[] = { "standard", "strict", "hardened" };
  struct sbx_run_result res;
  int fd = open("/etc/hostname", O_RDONLY), sock[2];
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(dup2(fd, 37), 37);
  ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sock), 0);
  setenv("AWS_SECRET_ACCESS_KEY", "sbx-secret-value", 1);
  setenv("GITHUB_TOKEN", "sbx-secret-value", 1);
  setenv("SBX_TEST_SECRET", "sbx-secret-value", 1);
  setenv("LD_PRELOAD", "/nonexistent/sbx.so", 1);
  setenv("LD_LIBRARY_PATH", "/tmp/sbx-secret-value", 1);
  /* A caller that ignores or blocks signals (SIGCHLD ignored would make
   * the kernel reap sbx's init behind its back). */
  {
    sigset_t set;
    signal(SIGPIPE, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    signal(SIGCHLD, SIG_IGN);
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_BLOCK, &set, NULL);
  }
  for (size_t i = 0; i < 3; i++) {
    RUN(profiles[i], &res, ESC("esc_fdenv"));
    assert_held(&res, false);
  }
  ck_assert_ptr_eq(signal(SIGCHLD, SIG_DFL), SIG_IGN); /* restored after each run */
  unsetenv("LD_PRELOAD");
  unsetenv("LD_LIBRARY_PATH");
}
END_TEST

/* A caller with stdin, stdout and stderr closed: sbx's own descriptors
 * must not land on 0..2 where the command would keep them. */
START_TEST(t_closed_stdio)
{
  int st;
  pid_t helper = fork();
  ck_assert_int_ge(helper, 0);
  if (helper == 0) {
    struct sbx_run_result res;
    close(0);
    close(1);
    close(2);
    run_in("standard", ws, 0, &res, ESC("esc_fdenv"), (char *)NULL);
    _exit(res.outcome == SBX_OUTCOME_EXITED ? res.exit_code : 92);
  }
  ck_assert_int_eq(waitpid(helper, &st, 0), helper);
  ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "closed stdio: status %d",
                WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}
END_TEST

/* Leases and dnotify (issue 12, section 7) are refused in every profile;
 * the fixture's standard without that refusal (standard-weak) lets the
 * same program through: the negative control. */
START_TEST(t_leases)
{
  static const char *const profiles[] = { "standard", "strict", "hardened", "permissive" };
  struct sbx_run_result res;
  put_file(ws, "file.txt", "x\n");
  for (size_t i = 0; i < 4; i++) {
    /* permissive exists only among the generated profiles. */
    if (i == 3 && (getenv("CONFINE_WARM") || !cfx_profile(profiles[i])))
      continue;
    /* A file the command creates (it owns it) where it may write; the
     * workspace's file elsewhere. */
    RUN(profiles[i], &res, ESC("esc_lease"), i == 0 || i == 3 ? "new.txt" : "file.txt", ".");
    assert_held(&res, false);
  }
  if (!getenv("CONFINE_WARM")) { /* the warm server holds the three seed profiles only */
    RUN("standard-weak", &res, ESC("esc_lease"), "weak.txt", ".");
    assert_escaped(&res, "the lease was not taken without the rule");
  }
}
END_TEST

/* Routing headers and IP source routes (issue 12, section 4), in the
 * network namespace main() made for this suite (198.51.100.1 and
 * 2001:db8::2 on an interface that leads nowhere): refused by standard's
 * setsockopt rules; standard-weak lets them through (negative control). */
START_TEST(t_route_headers)
{
  static const char *const profiles[] = { "standard", "strict", "hardened" };
  struct sbx_run_result res;
  for (size_t i = 0; i < 3; i++) {
    RUN(profiles[i], &res, ESC("esc_reach"), "route", "2001:db8::1", "198.51.100.1", "4400");
    assert_held(&res, false);
  }
  RUN("standard-weak", &res, ESC("esc_reach"), "route", "2001:db8::1", "198.51.100.1", "4400");
  assert_escaped(&res, "no routing header went through without the rule");
}
END_TEST

START_TEST(t_privileges)
{
  static const char *const profiles[] = { "standard", "strict", "hardened" };
  struct sbx_run_result res;
  for (size_t i = 0; i < 3; i++) {
    RUN(profiles[i], &res, ESC("esc_priv"));
    assert_held(&res, true);
  }
}
END_TEST

/* ---- resources and lifetime ---- */

START_TEST(t_fork_bomb)
{
  struct sbx_run_result res;
  const struct cs_profile *p = cfx_profile("hardened");
  char want[32];
  snprintf(want, sizeof want, "%llu", (unsigned long long)p->limits.max_processes * 8);
  run_in("hardened", ws, 20000, &res, ESC("esc_res"), "forkbomb", want, (char *)NULL);
  ck_assert_msg(res.outcome != SBX_OUTCOME_TIMED_OUT, "fork bomb ran until the timeout");
  if (!(res.outcome == SBX_OUTCOME_SIGNALED && res.status == SIGKILL))
    assert_held(&res, false);
}
END_TEST

START_TEST(t_memory_hog)
{
  struct sbx_run_result res;
  const struct cs_profile *p = cfx_profile("hardened");
  char want[32];
  snprintf(want, sizeof want, "%llu", (unsigned long long)p->limits.max_memory_bytes * 2);
  run_in("hardened", ws, 20000, &res, ESC("esc_res"), "memory", want, (char *)NULL);
  if (!(res.outcome == SBX_OUTCOME_SIGNALED && (res.status == SIGKILL || res.status == SIGSEGV)))
    assert_held(&res, false);
}
END_TEST

START_TEST(t_daemon_dies)
{
  struct sbx_run_result res;
  char path[PATH_MAX];
  struct stat a, b;
  RUN("standard", &res, ESC("esc_daemon"), "daemon.out");
  ck_assert_int_eq(res.exit_code, 0);
  snprintf(path, sizeof path, "%s/daemon.out", ws);
  ck_assert_int_eq(stat(path, &a), 0);
  ck_assert_int_gt(a.st_size, 0); /* it did run */
  usleep(300000);
  ck_assert_int_eq(stat(path, &b), 0);
  ck_assert_msg(a.st_size == b.st_size, "the daemon outlived the sandbox (%lld -> %lld bytes)",
                (long long)a.st_size, (long long)b.st_size);
}
END_TEST

/* The run's cgroup (when one is used) exists during the run and is gone
 * after it, also after a timeout. */
START_TEST(t_cgroup_lifecycle)
{
  struct sbx_run_result res;
  char pattern[128];
  glob_t g;
  char *seen;
  RUN("standard", &res, "sh", "-c", "cat /proc/self/cgroup > cgroup.out");
  ck_assert_int_eq(res.exit_code, 0);
  /* The sandbox's cgroup namespace is rooted at its own cgroup: no host
   * path (the run's cgroup is named after sbx's pid) shows inside. */
  seen = read_file(ws, "cgroup.out");
  ck_assert_ptr_nonnull(seen);
  ck_assert_msg(strstr(seen, "sbx-") == NULL, "/proc/self/cgroup shows the host's path: %s", seen);
  if (strncmp(res.cgroup_info, "none", 4) == 0)
    return; /* rlimits only on this machine (sbx check says so) */
  ck_assert_ptr_nonnull(strstr(res.cgroup_info, "pids.max="));
  run_in("standard", ws, 300, &res, "sleep", "30", (char *)NULL);
  ck_assert_int_eq(res.outcome, SBX_OUTCOME_TIMED_OUT);
  snprintf(pattern, sizeof pattern, "/sys/fs/cgroup/*/sbx-%d-*", (int)getpid());
  ck_assert_int_eq(glob(pattern, 0, NULL, &g), GLOB_NOMATCH);
  snprintf(pattern, sizeof pattern, "/sys/fs/cgroup/sbx-%d-*", (int)getpid());
  ck_assert_int_eq(glob(pattern, 0, NULL, &g), GLOB_NOMATCH);
  /* A cgroup left by a SIGKILLed sbx (its pid is dead) is removed by the
   * next run (checked where this machine puts them: cgroup v1 pids root). */
  if (strstr(res.cgroup_info, "v1") && access("/sys/fs/cgroup/pids", W_OK) == 0) {
    char stale[128];
    pid_t dead = fork();
    ck_assert_int_ge(dead, 0);
    if (dead == 0)
      _exit(0);
    waitpid(dead, NULL, 0);
    snprintf(stale, sizeof stale, "/sys/fs/cgroup/pids/sbx-%d-1", (int)dead);
    if (mkdir(stale, 0755) == 0) {
      RUN("standard", &res, "true");
      ck_assert_msg(access(stale, F_OK) != 0, "stale cgroup %s not removed", stale);
    }
  }
}
END_TEST

/* The same at the deadline: killing pid 1 kills the daemon too. */
START_TEST(t_timeout_kills_tree)
{
  struct sbx_run_result res;
  char path[PATH_MAX];
  struct stat a, b;
  /* esc_daemon returns once its daemon has written; the deadline leaves
   * a loaded machine seconds for that, so the kill finds a live daemon
   * (at 800 ms the deadline once came first). */
  run_in("standard", ws, 5000, &res, "sh", "-c", ESC("esc_daemon") " daemon.out; sleep 30",
         (char *)NULL);
  ck_assert_int_eq(res.outcome, SBX_OUTCOME_TIMED_OUT);
  snprintf(path, sizeof path, "%s/daemon.out", ws);
  ck_assert_int_eq(stat(path, &a), 0);
  ck_assert_int_gt(a.st_size, 0);
  usleep(300000);
  ck_assert_int_eq(stat(path, &b), 0);
  ck_assert_msg(a.st_size == b.st_size, "the daemon outlived the timeout (%lld -> %lld bytes)",
                (long long)a.st_size, (long long)b.st_size);
}
END_TEST

START_TEST(t_timeout)
{
  struct sbx_run_result res;
  run_in("standard", ws, 300, &res, "sleep", "30", (char *)NULL);
  ck_assert_int_eq(res.outcome, SBX_OUTCOME_TIMED_OUT);
  ck_assert_int_eq(res.exit_code, SBX_EXIT_TIMEOUT);
  /* Killed at the deadline, not after sleep's 30 s (a loaded machine
   * may take seconds to tear the sandbox down). */
  ck_assert_uint_lt(res.elapsed_ms, 20000);
  /* A request can only lower the profile's limit. */
  run_in("standard", ws, 100000000, &res, "true", (char *)NULL);
  ck_assert_uint_eq(res.timeout_ms, cfx_profile("standard")->limits.max_execution_ms);
}
END_TEST

/* ---- shells ---- */

START_TEST(t_no_shell)
{
  static const char *const profiles[] = { "strict", "hardened" };
  struct sbx_run_result res;
  for (size_t i = 0; i < 2; i++) {
    RUN(profiles[i], &res, ESC("esc_shell"));
    assert_held(&res, true);
    RUN(profiles[i], &res, "sh", "-c", "exit 0");
    ck_assert_int_eq(res.outcome, SBX_OUTCOME_EXEC_FAILED);
    ck_assert_int_eq(res.exit_code, SBX_EXIT_NOT_EXECUTABLE);
    RUN(profiles[i], &res, "/usr/bin/bash", "-c", "exit 0");
    ck_assert_int_eq(res.exit_code, SBX_EXIT_NOT_EXECUTABLE);
  }
  /* No shell + EXECUTE on the workspace is a contradiction: refused. */
  {
    struct cs_profile bad = *cfx_profile("strict");
    struct cs_path_rule rules[1] = { { "${WORKSPACE}", CS_PATH_READ | CS_PATH_EXEC, "test" } };
    struct sbx_run_request req = { 0 };
    char *argv[] = { "true", NULL };
    bad.allowed_paths = rules;
    bad.n_allowed_paths = 1;
    req.profile = &bad;
    req.workspace = ws;
    req.argv = argv;
    req.hooks = &sbx_run_hooks;
    ck_assert_int_lt(sbx_confine_run(&req, &res), 0);
    ck_assert_int_eq(res.exit_code, SBX_EXIT_FAILURE);
    ck_assert_ptr_nonnull(strstr(res.message, "could be a shell"));
  }
  /* The sandboxed-shell profile runs one (confined like the rest). */
  RUN("standard", &res, "sh", "-c", "exit 3");
  ck_assert_int_eq(res.outcome, SBX_OUTCOME_EXITED);
  ck_assert_int_eq(res.exit_code, 3);
}
END_TEST

/* ---- code execution without an execute right (issue 12) ---- */

/* The profile's rules compiled by pnetc, not the fixture's filter: the
 * seccomp parts of these tests are policy (profiles.pol), the mount and
 * Landlock parts mechanism. */
static bool policy_generated(void)
{
  return strcmp(cfx_source(), "generated") == 0;
}

static void put_copy(const char *src, const char *dir, const char *name)
{
  char cmd[PATH_MAX * 3];
  snprintf(cmd, sizeof cmd, "cp '%s' '%s/%s' && chmod 0755 '%s/%s'", src, dir, name, dir, name);
  ck_assert_int_eq(system(cmd), 0);
}

/* A run that never goes warm: the negative controls (a weakened profile
 * or SBX_RUN_TEST_EXEC_MOUNTS, which no server holds or accepts) and
 * permissive (the host's root as the view: never warm). */
static void run_cold(const struct cs_profile *p, uint32_t flags, struct sbx_run_result *res, ...)
{
  va_list ap;
  va_start(ap, res);
  run_va(p, ws, 0, flags, false, res, ap);
  va_end(ap);
}

/* A deliberately weakened profile for the negative controls: `p` with
 * the system-call filter of `filter_of` (its rule notes with it). */
static struct cs_profile weakened(const struct cs_profile *p, const struct cs_profile *filter_of)
{
  struct cs_profile w;
  ck_assert_ptr_nonnull(p);
  ck_assert_ptr_nonnull(filter_of);
  w = *p;
  w.filter = filter_of->filter;
  w.filter_len = filter_of->filter_len;
  w.syscall_notes = filter_of->syscall_notes;
  w.n_syscall_notes = filter_of->n_syscall_notes;
  w.default_action = filter_of->default_action;
  return w;
}

/* A copy of bash in the workspace (prepared before the run, as an attacker
 * preparing a repository would) run through the ELF loader, fexecve, or
 * mapped as code; a shared object there dlopen'ed. Under standard, the
 * places it may write but not execute from: /tmp, /dev/shm, HOME. */
START_TEST(t_exec_loader)
{
  static const char *const no_exec_ws[] = { "strict", "hardened" };
  struct sbx_run_result res;
  put_copy("/usr/bin/bash", ws, "x");
  put_copy(ESC("esc_lib.so"), ws, "lib.so");
  for (size_t i = 0; i < 2; i++) {
    RUN(no_exec_ws[i], &res, ESC("esc_exec"), "loader", "./x");
    assert_held(&res, false);
    RUN(no_exec_ws[i], &res, ESC("esc_exec"), "dlopen", "./lib.so");
    assert_held(&res, false);
    /* The command line itself (the report). */
    RUN(no_exec_ws[i], &res, "/lib64/ld-linux-x86-64.so.2", "./x", "-c", "exit 0");
    ck_assert_int_ne(res.exit_code, 0);
  }
  RUN("standard", &res, ESC("esc_exec"), "place", "/usr/bin/bash", "/tmp", "/dev/shm",
      "/tmp/home" /* HOME */);
  assert_held(&res, false);
  RUN("standard", &res, ESC("esc_exec"), "tmpfile", "/usr/bin/true", "/tmp", "/dev/shm");
  assert_held(&res, false);

  /* Negative control: the same runs with the view's noexec switched off
   * (SBX_RUN_TEST_EXEC_MOUNTS: the mounts as before the fix) escape, so
   * the attempts above do detect the hole. */
  for (size_t i = 0; i < 2; i++) {
    run_cold(cfx_profile(no_exec_ws[i]), SBX_RUN_TEST_EXEC_MOUNTS, &res, ESC("esc_exec"), "loader",
             "./x", (char *)NULL);
    assert_escaped(&res, "loader, exec mounts");
    run_cold(cfx_profile(no_exec_ws[i]), SBX_RUN_TEST_EXEC_MOUNTS, &res, ESC("esc_exec"), "dlopen",
             "./lib.so", (char *)NULL);
    assert_escaped(&res, "dlopen, exec mounts");
  }
  {
    static const char *const dirs[] = { "/tmp", "/dev/shm", "/tmp/home" /* HOME */ };
    for (size_t i = 0; i < 3; i++) {
      run_cold(cfx_profile("standard"), SBX_RUN_TEST_EXEC_MOUNTS, &res, ESC("esc_exec"), "place",
               "/usr/bin/bash", dirs[i], (char *)NULL);
      assert_escaped(&res, dirs[i]);
    }
    run_cold(cfx_profile("standard"), SBX_RUN_TEST_EXEC_MOUNTS, &res, ESC("esc_exec"), "tmpfile",
             "/usr/bin/true", "/tmp", (char *)NULL);
    assert_escaped(&res, "O_TMPFILE in /tmp, exec mounts");
  }
}
END_TEST

/* Positive controls: standard builds its own program in the workspace and
 * runs it, by execve and through the loader; the loader-mapped system
 * libraries and programs work under every profile. */
START_TEST(t_exec_allowed)
{
  static const char *const profiles[] = { "standard", "strict", "hardened" };
  struct sbx_run_result res;
  put_file(ws, "hello.c", "int main(void){return 0;}\n");
  RUN("standard", &res, "cc", "-o", "a.out", "hello.c");
  ck_assert_msg(res.exit_code == 0, "cc under standard: %s", res.message);
  RUN("standard", &res, ESC("esc_exec"), "runs", "./a.out");
  ck_assert_msg(res.exit_code == 0, "standard runs its a.out: %s", res.message);
  put_file(ws, "Makefile", "all: made\nmade: hello.c\n\tcc -o made hello.c && ./made\n");
  RUN("standard", &res, "make", "-s");
  ck_assert_msg(res.exit_code == 0, "make && ./made under standard: %s", res.message);
  for (size_t i = 0; i < 3; i++) {
    RUN(profiles[i], &res, ESC("esc_exec"), "runs", "/usr/bin/true");
    ck_assert_msg(res.exit_code == 0, "%s: a system program through the loader: %s", profiles[i],
                  res.message);
    /* libm: not linked by esc_exec, so the loader maps it afresh, found
     * through the loader's cache. */
    RUN(profiles[i], &res, ESC("esc_exec"), "loads", "libm.so.6");
    ck_assert_msg(res.exit_code == 0, "%s: dlopen of a system library: %s", profiles[i],
                  res.message);
  }
  if (policy_generated()) {
    /* permissive executes anywhere (allowedPaths all "/"): no noexec. */
    run_cold(cfx_profile("permissive"), 0, &res, ESC("esc_exec"), "place", "/usr/bin/true", "/tmp",
             "/dev/shm", (char *)NULL);
    assert_escaped(&res, "permissive executes from /tmp and /dev/shm");
  }
}
END_TEST

/* Anonymous files: a copy of bash in a memfd, fexecve'd (Landlock's
 * execute rules do not cover anonymous files). strict and hardened refuse
 * memfd_create and execveat (profiles.pol); standard allows both (it has
 * a shell), which is the negative control: the same program runs the
 * copy there. */
START_TEST(t_exec_memfd)
{
  static const char *const no_shell[] = { "strict", "hardened" };
  struct sbx_run_result res;
  if (!policy_generated())
    return; /* the fixture's filter does not refuse memfd_create */
  put_copy("/usr/bin/bash", ws, "x");
  for (size_t i = 0; i < 2; i++) {
    RUN(no_shell[i], &res, ESC("esc_exec"), "memfd", "./x");
    assert_held(&res, false);
  }
  RUN("standard", &res, ESC("esc_exec"), "memfd", "/usr/bin/true");
  assert_escaped(&res, "memfd under standard");
  /* The kernel's layer under the filter's (sbx_memfd.c): in the pid
   * namespace of a no-shell profile vm.memfd_noexec is 2, so a memfd is
   * never executable even where the filter allowed memfd_create (strict
   * with permissive's filter). Only sbx as root can set it (the sysctl
   * belongs to the host's root); standard, which has a shell, does not
   * get it and runs the copy (above). */
  if (geteuid() == 0 && access("/proc/sys/vm/memfd_noexec", F_OK) == 0) {
    struct cs_profile weak = weakened(cfx_profile("strict"), cfx_profile("permissive"));
    /* Set in the runs of the profiles themselves, cold and (confine_warm_exec)
     * warm, where the spare sets it. */
    for (size_t i = 0; i < 2; i++) {
      RUN(no_shell[i], &res, "grep", "-qx", "2", "/proc/sys/vm/memfd_noexec");
      ck_assert_msg(res.exit_code == 0, "%s: vm.memfd_noexec is not 2 in the sandbox: %s",
                    no_shell[i], res.message);
    }
    run_cold(&weak, 0, &res, ESC("esc_exec"), "memfd_exec", "./x", (char *)NULL);
    assert_held(&res, false);
    weak.shell = CS_SHELL_SANDBOXED;
    run_cold(&weak, 0, &res, ESC("esc_exec"), "memfd_exec", "./x", (char *)NULL);
    assert_escaped(&res, "memfd, filter allowing it, shell allowed");
  }
}
END_TEST

/* Code written at run time and executed: hardened's W^X (profiles.pol),
 * and the routes around a filter that reads mmap's and mprotect's `prot`
 * (pkey_mprotect, a second SysV attach with SHM_EXEC, /proc/self/mem,
 * READ_IMPLIES_EXEC). */
START_TEST(t_exec_wx)
{
  static const char *const wx[] = { "mmap_wx",    "mmap_anon_x", "mprotect_x",  "pkey_mprotect_x",
                                    "shmat_exec", "proc_mem",    "ptrace_poke", "personality" };
  static const char *const jit[] = { "standard", "strict" };
  const struct cs_profile *perm;
  struct cs_profile weak;
  struct sbx_run_result res;
  if (!policy_generated()) {
    /* Mechanism only: /proc/self/mem is never writable (Landlock). */
    RUN("hardened", &res, ESC("esc_exec"), "wx", "proc_mem");
    assert_held(&res, false);
    return;
  }
  RUN("hardened", &res, ESC("esc_exec"), "wx", wx[0], wx[1], wx[2], wx[3], wx[4], wx[5], wx[6],
      wx[7]);
  assert_held(&res, false);
  /* strict and standard allow JIT compilers (writable, then executable,
   * anonymous memory: docs/profiles.md); the other routes stay closed. */
  for (size_t i = 0; i < 2; i++) {
    RUN(jit[i], &res, ESC("esc_exec"), "wx", "pkey_mprotect_x", "shmat_exec", "proc_mem",
        "ptrace_poke", "personality");
    assert_held(&res, false);
  }
  /* Negative controls, one per route: with nothing refusing it
   * (permissive) each route runs its code; hardened's view and paths with
   * permissive's filter (a hardened without its W^X rules) let every route
   * but /proc/self/mem through, which its Landlock rules refuse. */
  perm = cfx_profile("permissive");
  weak = weakened(cfx_profile("hardened"), perm);
  for (size_t i = 0; i < sizeof wx / sizeof wx[0]; i++) {
    run_cold(perm, 0, &res, ESC("esc_exec"), "wx", wx[i], (char *)NULL);
    assert_escaped(&res, wx[i]);
    if (strcmp(wx[i], "proc_mem") == 0)
      continue;
    run_cold(&weak, 0, &res, ESC("esc_exec"), "wx", wx[i], (char *)NULL);
    assert_escaped(&res, wx[i]);
  }
}
END_TEST

/* The workspace of the interpreter tests: a copy of bash, a shared
 * object, and s.py, which tries every way a script could run code that
 * is not its interpreter's and exits 10 when one worked. */
static void put_interpreter_script(void)
{
  put_copy("/usr/bin/bash", ws, "x");
  put_copy(ESC("esc_lib.so"), ws, "lib.so");
  put_file(
      ws, "s.py",
      "import ctypes, os, subprocess, sys\n"
      "ran = []\n"
      "def tries(what, f):\n"
      "    try:\n"
      "        if f(): ran.append(what)\n"
      "    except OSError as e:\n"
      "        print('held:', what, e, file=sys.stderr)\n"
      "tries('os.system', lambda: os.system('exit 0') == 0)\n"
      "tries('subprocess ./x', lambda: subprocess.run(['./x', '-c', 'exit 0']).returncode == 0)\n"
      "tries('subprocess loader ./x', lambda: subprocess.run(['/lib64/ld-linux-x86-64.so.2',"
      " './x', '-c', 'exit 0']).returncode == 0)\n"
      "tries('subprocess sh', lambda: subprocess.run(['sh', '-c', 'exit 0']).returncode == 0)\n"
      "tries('ctypes ./lib.so', lambda: ctypes.CDLL('./lib.so') is not None)\n"
      "print('ESCAPED:', ran, file=sys.stderr) if ran else None\n"
      "sys.exit(10 if ran else 0)\n");
  put_file(ws, "s.sh", "exit 0\n");
}

/* Interpreters the profile allows reading scripts from the workspace:
 * that is reading data, and allowed; everything such a script could
 * execute is refused by the exec rules: a shell (os.system, a shell
 * named as the interpreter), the workspace's copy of bash (subprocess,
 * the loader), a shared object of the workspace (ctypes). */
START_TEST(t_exec_interpreters)
{
  static const char *const no_shell[] = { "strict", "hardened" };
  struct sbx_run_result res;
  put_interpreter_script();
  for (size_t i = 0; i < 2; i++) {
    RUN(no_shell[i], &res, "python3", "s.py");
    assert_held(&res, false);
    RUN(no_shell[i], &res, "perl", "-e", "exit(system('exit 0') == 0 ? 10 : 0)");
    assert_held(&res, false);
    RUN(no_shell[i], &res, "sh", "s.sh");
    ck_assert_int_eq(res.exit_code, SBX_EXIT_NOT_EXECUTABLE);
  }
}
END_TEST

/* Negative control of t_exec_interpreters: where the exec rules allow it
 * (standard executes from its workspace and has a shell) the same script
 * escapes. */
START_TEST(t_exec_interpreters_control)
{
  struct sbx_run_result res;
  put_interpreter_script();
  RUN("standard", &res, "python3", "s.py");
  assert_escaped(&res, "s.py under standard");
}
END_TEST

/* ---- exit reporting ---- */

START_TEST(t_exit_codes)
{
  struct sbx_run_result res;
  RUN("strict", &res, "false");
  ck_assert_int_eq(res.exit_code, 1);
  RUN("strict", &res, "sbx-no-such-command");
  ck_assert_int_eq(res.exit_code, SBX_EXIT_NOT_FOUND);
  ck_assert_int_eq(res.outcome, SBX_OUTCOME_EXEC_FAILED);
  RUN("strict", &res, "/etc/passwd");
  ck_assert_int_eq(res.exit_code, SBX_EXIT_NOT_EXECUTABLE);
  RUN("standard", &res, "sh", "-c", "kill -SEGV $$");
  ck_assert_int_eq(res.outcome, SBX_OUTCOME_SIGNALED);
  ck_assert_int_eq(res.exit_code, 128 + SIGSEGV);
  /* Refusals name the layer. */
  {
    struct sbx_run_request req = { 0 };
    char *argv[] = { "true", NULL };
    req.profile = cfx_profile("strict");
    req.workspace = ws;
    req.argv = argv;
    /* No supervisor hook (sbx_hooks.h): refused before anything is set
     * up, never a run nobody waits for. */
    ck_assert_int_lt(sbx_confine_run(&req, &res), 0);
    ck_assert_int_eq(res.exit_code, SBX_EXIT_FAILURE);
    ck_assert_int_eq(res.layer, SBX_LAYER_REQUEST);
    ck_assert_ptr_nonnull(strstr(res.message, "request: no supervisor given"));
    req.hooks = &sbx_run_hooks;
    req.workspace = "/proc";
    ck_assert_int_lt(sbx_confine_run(&req, &res), 0);
    ck_assert_int_eq(res.exit_code, SBX_EXIT_FAILURE);
    ck_assert_int_eq(res.layer, SBX_LAYER_REQUEST);
    req.workspace = ws;
    {
      const char *pass[] = { "LD_PRELOAD", NULL };
      req.pass_env = pass;
      ck_assert_int_lt(sbx_confine_run(&req, &res), 0);
      ck_assert_int_eq(res.layer, SBX_LAYER_ENV);
      req.pass_env = NULL;
    }
    /* The env rules hold below the CLI too (issue 13): a request that
     * skipped sbx's checks still cannot set a secret's or a loader
     * variable; an innocent name runs (the negative control). */
    {
      const char *refused[][2] = { { "GITHUB_TOKEN=x", NULL },
                                   { "GLIBC_TUNABLES=x", NULL },
                                   { "PWD=/", NULL },
                                   { "aws_secret_access_key=x", NULL } };
      const char *innocent[] = { "GIT_AUTHOR_NAME=x", NULL };
      for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        req.set_env = refused[i];
        ck_assert_int_lt(sbx_confine_run(&req, &res), 0);
        ck_assert_int_eq(res.layer, SBX_LAYER_ENV);
        ck_assert_ptr_nonnull(strstr(res.message, "env rule"));
      }
      req.set_env = innocent;
      ck_assert_int_eq(sbx_confine_run(&req, &res), 0);
      ck_assert_int_eq(res.exit_code, 0);
      req.set_env = NULL;
    }
    /* A working directory outside the workspace, even through a symlink
     * inside it, is refused by confinement itself; one inside runs. */
    {
      char link[PATH_MAX], sub[PATH_MAX];
      snprintf(link, sizeof link, "%s/cwd-out", ws);
      snprintf(sub, sizeof sub, "%s/cwd-in", ws);
      ck_assert_int_eq(symlink("/etc", link), 0);
      ck_assert_int_eq(mkdir(sub, 0755), 0);
      req.cwd = link;
      ck_assert_int_lt(sbx_confine_run(&req, &res), 0);
      ck_assert_int_eq(res.layer, SBX_LAYER_REQUEST);
      ck_assert_ptr_nonnull(strstr(res.message, "outside the workspace"));
      req.cwd = sub;
      ck_assert_int_eq(sbx_confine_run(&req, &res), 0);
      ck_assert_int_eq(res.exit_code, 0);
      req.cwd = NULL;
      unlink(link);
      rmdir(sub);
    }
  }
}
END_TEST

/* ---- set-id files and the command's identity (issue 12, section 3) ---- */

/* The owner the battery gives its workspace when it runs as root: an
 * unprivileged uid with no account, as a developer's would be. */
#define TEST_OWNER 4242

static uid_t chown_to;
static gid_t chown_gid;

static int chown_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  (void)st;
  (void)flag;
  (void)ftw;
  return lchown(path, chown_to, chown_gid);
}

/* dir and everything in it owned by uid:gid (the workspace of a user). */
static void chown_tree(const char *dir, uid_t uid, gid_t gid)
{
  chown_to = uid;
  chown_gid = gid;
  ck_assert_int_eq(nftw(dir, chown_entry, 16, FTW_PHYS), 0);
}

static char planted_what[PATH_MAX + 64];
static bool planted_root_owned;

/* The first file of the class under the walked directory: set-id bits, a
 * device node, file capabilities, or (planted_root_owned) owned by root. */
static int planted_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  (void)flag;
  (void)ftw;
  if (st->st_mode & (S_ISUID | S_ISGID))
    snprintf(planted_what, sizeof planted_what, "%s: mode %o", path, (unsigned)st->st_mode);
  else if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
    snprintf(planted_what, sizeof planted_what, "%s: a device node", path);
  else if (lgetxattr(path, "security.capability", NULL, 0) > 0)
    snprintf(planted_what, sizeof planted_what, "%s: file capabilities", path);
  else if (planted_root_owned && st->st_uid == 0)
    snprintf(planted_what, sizeof planted_what, "%s: owned by root", path);
  else
    return 0;
  return 1;
}

/* NULL when nothing of the class is under dir, else what was found. */
static const char *planted_in(const char *dir, bool root_owned_too)
{
  planted_what[0] = '\0';
  planted_root_owned = root_owned_too;
  nftw(dir, planted_entry, 16, FTW_PHYS);
  return planted_what[0] ? planted_what : NULL;
}

/* A set-uid program of the system, for the hard-link attempt. */
static const char *setuid_program(void)
{
  static const char *const candidates[] = { "/usr/bin/passwd", "/usr/bin/gpasswd", "/usr/bin/su",
                                            "/usr/bin/newgrp", "/usr/bin/chsh",    NULL };
  struct stat st;
  for (const char *const *c = candidates; *c; c++)
    if (stat(*c, &st) == 0 && (st.st_mode & S_ISUID) && st.st_uid == 0)
      return *c;
  return NULL;
}

/* Every way to plant a set-id file, a device node or file capabilities
 * (esc_setid) fails under every profile, in a workspace a user owns and
 * (as root) in one root owns; afterwards nothing of the class, and, in
 * the user's, nothing owned by root is in it. The fixture's standard
 * without the refusals (standard-weak) lets chmod 4755 through, and the
 * same check finds it: the negative control of both. The hard link goes
 * to a directory on the same mount as the program under permissive (the
 * host's root as the view); elsewhere it crosses mounts. */
START_TEST(t_setid)
{
  static const char *const profiles[] = { "standard", "strict", "hardened", "permissive" };
  const char *prog = setuid_program();
  bool root = geteuid() == 0, warm = getenv("CONFINE_WARM") != NULL;
  char vartmp[] = "/var/tmp/sbx-setid-XXXXXX", link_path[64];
  struct sbx_run_result res;
  const char *found;
  struct stat st;
  if (!prog)
    prog = "/usr/bin/true"; /* no set-uid program here: the link attempt still runs */
  ck_assert_ptr_nonnull(mkdtemp(vartmp));
  ck_assert_int_eq(chmod(vartmp, 01777), 0);
  snprintf(link_path, sizeof link_path, "%s/sbx-setid-link", vartmp);
  for (int owned_by_root = 0; owned_by_root < (root ? 2 : 1); owned_by_root++)
    for (size_t i = 0; i < 4; i++) {
      /* permissive exists only among the generated profiles, never warm. */
      if (i == 3 && (warm || !cfx_profile(profiles[i])))
        continue;
      put_copy("/usr/bin/true", ws, "copy");
      if (root)
        chown_tree(ws, owned_by_root ? 0 : TEST_OWNER, owned_by_root ? 0 : TEST_OWNER);
      RUN(profiles[i], &res, ESC("esc_setid"), prog, i == 3 ? vartmp : ".");
      assert_held(&res, false);
      found = planted_in(ws, root && !owned_by_root);
      ck_assert_msg(found == NULL, "%s (%s workspace): %s", profiles[i],
                    owned_by_root ? "root's" : "a user's", found);
      ck_assert_msg(lstat(link_path, &st) != 0, "a hard link to %s was made", prog);
    }
  /* Negative control (cold: the warm server holds no weakened profile). */
  if (root)
    chown_tree(ws, TEST_OWNER, TEST_OWNER);
  run_cold(cfx_profile("standard-weak"), 0, &res, ESC("esc_setid"), prog, ".", (char *)NULL);
  assert_escaped(&res, "no set-id mode went through without the rules");
  ck_assert_msg(planted_in(ws, false) != NULL, "the check found nothing after standard-weak");
  unlink(link_path);
  /* Gone again (and the workspace with them), so the next control's
   * report is its own. */
  nftw(ws, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  ck_assert_int_eq(mkdir(ws, 0755), 0);
  /* The hard link's own control: the command kept as root (the owner of
   * the program, which protected_hardlinks then lets link it) gets it
   * made under permissive; only the identity stops it. */
  if (root && !warm && cfx_profile("permissive") && strcmp(prog, "/usr/bin/true") != 0) {
    run_cold(cfx_profile("permissive"), SBX_RUN_TEST_HOST_ROOT, &res, ESC("esc_setid"), prog,
             vartmp, (char *)NULL);
    assert_escaped(&res, "no hard link made by a command kept as root");
    ck_assert_int_eq(lstat(link_path, &st), 0);
    unlink(link_path);
  }
  ck_assert_int_eq(rmdir(vartmp), 0);
}
END_TEST

/* Which uid runs the command (docs/confinement.md, "Identity"): as root,
 * the owner of the workspace, and what it makes (a build, a commit) is
 * the owner's; in a workspace root owns, nobody (65534), and its files
 * there are stored as root's, the workspace owner's; without root, the
 * caller. The negative control (SBX_RUN_TEST_HOST_ROOT: the command
 * keeps the host's uid 0, as before the fix) leaves a root-owned file,
 * which the same check finds. */
START_TEST(t_identity)
{
  struct sbx_run_result res;
  bool root = geteuid() == 0;
  unsigned want = root ? TEST_OWNER : (unsigned)geteuid();
  char expect[32], path[PATH_MAX];
  struct stat st;
  const char *found;

  put_file(ws, "hello.c", "int main(void){return 7;}\n");
  if (root)
    chown_tree(ws, TEST_OWNER, TEST_OWNER);
  RUN("standard", &res, "sh", "-c", "{ id -u; id -g; id -G; } > id.out && touch made");
  ck_assert_int_eq(res.exit_code, 0);
  snprintf(expect, sizeof expect, "%u\n%u\n%u\n", want, root ? TEST_OWNER : (unsigned)getegid(),
           root ? TEST_OWNER : (unsigned)getegid());
  if (root)
    ck_assert_str_eq(read_file(ws, "id.out"), expect);
  snprintf(path, sizeof path, "%s/made", ws);
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_uint_eq(st.st_uid, want);
  /* Everyday work in the user's workspace: a build, its program, git. */
  RUN("standard", &res, "cc", "-o", "a.out", "hello.c");
  ck_assert_int_eq(res.exit_code, 0);
  RUN("standard", &res, "./a.out");
  ck_assert_int_eq(res.exit_code, 7);
  RUN("standard", &res, "sh", "-c",
      "git init -q . && git -c user.name=sbx -c user.email=sbx@example.invalid add hello.c && "
      "git -c user.name=sbx -c user.email=sbx@example.invalid commit -q -m one");
  ck_assert_int_eq(res.exit_code, 0);
  found = planted_in(ws, root);
  ck_assert_msg(found == NULL, "after work in a user's workspace: %s", found);
  if (!root)
    return;

  /* root's workspace: the command is nobody, its files are root's. */
  chown_tree(ws, 0, 0);
  RUN("standard", &res, "sh", "-c", "id -u > id.out && touch made-in-roots");
  ck_assert_int_eq(res.exit_code, 0);
  ck_assert_str_eq(read_file(ws, "id.out"), "65534\n");
  snprintf(path, sizeof path, "%s/made-in-roots", ws);
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_uint_eq(st.st_uid, 0);
  RUN("standard", &res, "sh", "-c",
      "git -c user.name=sbx -c user.email=sbx@example.invalid commit -q --allow-empty -m two");
  ck_assert_int_eq(res.exit_code, 0);

  /* Negative control (cold: the server refuses the flag), in a directory
   * anyone may write (root without capabilities could not write the
   * user's 0755 one at all). */
  chown_tree(ws, TEST_OWNER, TEST_OWNER);
  ck_assert_int_eq(chmod(ws, 0777), 0);
  run_cold(cfx_profile("standard"), SBX_RUN_TEST_HOST_ROOT, &res, "touch", "as-root", (char *)NULL);
  ck_assert_int_eq(res.exit_code, 0);
  ck_assert_msg(planted_in(ws, true) != NULL, "a command kept as root left no root-owned file");
}
END_TEST

/* ---- positive: real tools ---- */

static int git_setup(const char *dir)
{
  char cmd[PATH_MAX * 2];
  snprintf(cmd, sizeof cmd,
           "cd '%s' && git init -q -b main . && git config user.name sbx && "
           "git config user.email sbx@example.invalid && echo one > a.txt && git add a.txt && "
           "git commit -q -m one",
           dir);
  return system(cmd);
}

/* The plan of `profile` for the workspace in words (sbx explain); free it. */
static char *describe_plan(const char *profile)
{
  struct sbx_run_request req = { 0 };
  char *argv[] = { "true", NULL }, *text = NULL;
  size_t len = 0;
  FILE *out;
  req.workspace = ws;
  req.argv = argv;
  req.profile = cfx_profile(profile);
  out = open_memstream(&text, &len);
  ck_assert_ptr_nonnull(out);
  ck_assert_int_eq(sbx_confine_describe(&req, out), 0);
  fclose(out);
  return text;
}

START_TEST(t_standard_tools)
{
  struct sbx_run_result res;
  put_file(ws, "hello.c", "#include <stdio.h>\nint main(void){puts(\"hi\");return 7;}\n");
  RUN("standard", &res, "cc", "-o", "hello", "hello.c");
  ck_assert_int_eq(res.exit_code, 0);
  RUN("standard", &res, "./hello");
  ck_assert_int_eq(res.exit_code, 7);
  RUN("standard", &res, "python3", "-c", "import sys; sys.exit(5)");
  ck_assert_int_eq(res.exit_code, 5);
}
END_TEST

/* make runs recipes through /bin/sh with posix_spawn(POSIX_SPAWN_RESETIDS),
 * i.e. setresuid/setresgid to the ids it already has: the profile's filter
 * must allow that for make to work. */
START_TEST(t_standard_make)
{
  struct sbx_run_result res;
  put_file(ws, "Makefile", "all: made.txt\nmade.txt:\n\techo made > made.txt\n");
  RUN("standard", &res, "make", "-s");
  ck_assert_msg(res.exit_code == 0, "make under standard: %s", res.message);
  ck_assert_str_eq(read_file(ws, "made.txt"), "made\n");
}
END_TEST

START_TEST(t_standard_git)
{
  struct sbx_run_result res;
  char wt[PATH_MAX + 8], cmd[PATH_MAX * 3];
  ck_assert_int_eq(git_setup(ws), 0);
  put_file(ws, "b.txt", "two\n");
  RUN("standard", &res, "git", "add", "b.txt");
  ck_assert_int_eq(res.exit_code, 0);
  RUN("standard", &res, "git", "commit", "-q", "-m", "two");
  ck_assert_int_eq(res.exit_code, 0);
  /* .git/config and hooks stay read-only. */
  RUN("standard", &res, "git", "config", "core.hooksPath", "/tmp");
  ck_assert_int_ne(res.exit_code, 0);
  RUN("standard", &res, ESC("esc_fs"), "readonly", ".git/config");
  assert_held(&res, false);
  RUN("standard", &res, ESC("esc_fs"), "nocreate", ".git/hooks");
  assert_held(&res, false);
  ck_assert_ptr_null(strstr(read_file(ws, ".git/config"), "hooksPath"));
  /* A submodule's config and hooks are protected too. */
  snprintf(cmd, sizeof cmd,
           "mkdir -p '%s/.git/modules/sub/hooks' && echo '[core]' > '%s/.git/modules/sub/config'",
           ws, ws);
  ck_assert_int_eq(system(cmd), 0);
  RUN("standard", &res, ESC("esc_fs"), "readonly", ".git/modules/sub/config");
  assert_held(&res, false);
  RUN("standard", &res, ESC("esc_fs"), "nocreate", ".git/modules/sub/hooks");
  assert_held(&res, false);
  /* A linked worktree commits into the main repository. */
  snprintf(wt, sizeof wt, "%s/wt", outside);
  snprintf(cmd, sizeof cmd, "cd '%s' && git worktree add -q '%s' -b side", ws, wt);
  ck_assert_int_eq(system(cmd), 0);
  put_file(wt, "c.txt", "three\n");
  run_in("standard", wt, 0, &res, "git", "add", "c.txt", (char *)NULL);
  ck_assert_int_eq(res.exit_code, 0);
  run_in("standard", wt, 0, &res, "git", "commit", "-q", "-m", "three", (char *)NULL);
  ck_assert_int_eq(res.exit_code, 0);
  run_in("standard", wt, 0, &res, "git", "config", "core.hooksPath", "/tmp", (char *)NULL);
  ck_assert_int_ne(res.exit_code, 0);
  snprintf(cmd, sizeof cmd, "cd '%s' && git log --oneline side | grep -q three", ws);
  ck_assert_int_eq(system(cmd), 0);
  /* A symlinked .git/config could lead to a file writable inside: refused. */
  snprintf(cmd, sizeof cmd, "cd '%s' && mv .git/config cfg && ln -s ../cfg .git/config", ws);
  ck_assert_int_eq(system(cmd), 0);
  RUN("standard", &res, "true");
  ck_assert_int_eq(res.exit_code, SBX_EXIT_FAILURE);
  ck_assert_ptr_nonnull(strstr(res.message, "symlink"));
}
END_TEST

START_TEST(t_strict_tools)
{
  struct sbx_run_result res;
  ck_assert_int_eq(git_setup(ws), 0);
  put_file(ws, "notes.txt", "alpha\nbeta\n");
  RUN("strict", &res, "cat", "notes.txt");
  ck_assert_int_eq(res.exit_code, 0);
  RUN("strict", &res, "grep", "-q", "beta", "notes.txt");
  ck_assert_int_eq(res.exit_code, 0);
  RUN("strict", &res, "git", "--no-pager", "log", "--oneline");
  ck_assert_int_eq(res.exit_code, 0);
}
END_TEST

/* ---- git: the user's next git on the host (issue 12, section 2) ----
 * Each case prepares a real repository in the workspace (as the user, on
 * the host), lets esc_git plant something under standard, then runs the
 * user's own git on the host and looks for the marker the planted command
 * would touch. The crafted repository `evil` (a config with core.fsmonitor
 * = touch MARKER) lies in the workspace: the sandbox could have made it. */

static char git_marker[PATH_MAX];

/* Runs `script` with sh on the host in the workspace, M the marker, OUT the
 * directory outside the workspace. */
static int git_host(const char *script)
{
  char cmd[PATH_MAX * 4];
  /* The script goes through the environment: no quoting to get wrong. */
  setenv("CONFINE_GIT_SCRIPT", script, 1);
  snprintf(cmd, sizeof cmd,
           "cd '%s' && M='%s' OUT='%s' GIT_AUTHOR_NAME=sbx GIT_AUTHOR_EMAIL=sbx@example.invalid "
           "GIT_COMMITTER_NAME=sbx GIT_COMMITTER_EMAIL=sbx@example.invalid "
           "sh -c \"$CONFINE_GIT_SCRIPT\" >/dev/null 2>&1",
           ws, git_marker, outside);
  return system(cmd);
}

/* Did a command the sandbox planted run on the host? (and reset) */
static bool git_marker_ran(void)
{
  struct stat st;
  bool ran = stat(git_marker, &st) == 0;
  unlink(git_marker);
  return ran;
}

#define GIT_EVIL_CONFIG "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
#define GIT_FSMONITOR "\tfsmonitor = \"touch %s #\"\n"

struct git_case {
  const char *name;
  const char *prepare; /* host shell, after git_setup */
  const char *argv[5]; /* esc_git's arguments; "%s" in the content: the marker */
  const char *check;   /* host shell whose git would run the planted command */
  uint32_t control;    /* the flags that switch the protection off for this case */
};

/* The workspace emptied and made a fresh repository with `evil` beside. */
static void git_case_setup(const struct git_case *c)
{
  char cmd[PATH_MAX * 2];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -m 0755 '%s' && rm -rf '%s'/* && chmod 0755 '%s'",
           ws, ws, outside, outside);
  ck_assert_int_eq(system(cmd), 0);
  ck_assert_int_eq(git_setup(ws), 0);
  ck_assert_int_eq(git_host("git init -q --bare evil && printf '" GIT_EVIL_CONFIG GIT_FSMONITOR
                            "' \"$M\" > evil/config"),
                   0);
  if (c->prepare)
    ck_assert_msg(git_host(c->prepare) == 0, "%s: preparing the repository failed", c->name);
  unlink(git_marker);
}

/* esc_git under standard with `flags`. */
static void git_case_attack(const struct git_case *c, uint32_t flags, struct sbx_run_result *res)
{
  char content[PATH_MAX + 1024];
  const char *at = strstr(c->argv[2], "%s");
  /* The content's %s is the marker (not a printf format: -Wformat). */
  if (at)
    snprintf(content, sizeof content, "%.*s%s%s", (int)(at - c->argv[2]), c->argv[2], git_marker,
             at + 2);
  else
    snprintf(content, sizeof content, "%s", c->argv[2]);
  if (flags)
    run_cold(battery_profile("standard"), flags, res, ESC("esc_git"), c->argv[0], c->argv[1],
             content, c->argv[3], (char *)NULL);
  else
    RUN("standard", res, ESC("esc_git"), c->argv[0], c->argv[1], content, c->argv[3]);
}

static const struct git_case git_cases[] = {
  { "commondir planted in .git",
    NULL,
    { "write", ".git/commondir", "../evil\n" },
    "git status",
    SBX_RUN_TEST_GIT_LEGACY },
  { ".git renamed away, a .git file in its place",
    NULL,
    { "move", ".git", "gitdir: evil\n" },
    "git status",
    SBX_RUN_TEST_GIT_LEGACY },
  { "config.worktree planted (worktreeConfig on)",
    "git config extensions.worktreeConfig true",
    { "write", ".git/config.worktree", GIT_EVIL_CONFIG GIT_FSMONITOR },
    "git status",
    SBX_RUN_TEST_GIT_LEGACY },
  { "linked worktree's commondir",
    "git worktree add -q wt -b wtb",
    { "write", ".git/worktrees/wt/commondir", "../../../evil\n" },
    "cd wt && git status",
    SBX_RUN_TEST_GIT_LEGACY },
  { "linked worktree's .git file",
    "git worktree add -q wt -b wtb",
    { "write", "wt/.git", "gitdir: ../evil\n" },
    "cd wt && git status",
    SBX_RUN_TEST_GIT_LEGACY },
  { "linked worktree's config.worktree",
    "git config extensions.worktreeConfig true && git worktree add -q wt -b wtb",
    { "write", ".git/worktrees/wt/config.worktree", GIT_EVIL_CONFIG GIT_FSMONITOR },
    "cd wt && git status",
    SBX_RUN_TEST_GIT_LEGACY },
  { "linked worktree's gitdir",
    "git worktree add -q wt -b wtb",
    { "write", ".git/worktrees/wt/gitdir", "/tmp/sbx-elsewhere/.git\n" },
    NULL,
    SBX_RUN_TEST_GIT_LEGACY },
  { "linked worktree's directory replaced",
    "git worktree add -q wt -b wtb && cp -a .git/worktrees/wt wt-new && "
    "echo ../../../evil > wt-new/commondir",
    { "move", ".git/worktrees/wt", GIT_EVIL_CONFIG, "wt-new" },
    "cd wt && git status",
    SBX_RUN_TEST_GIT_LEGACY },
  { "submodule's config",
    "git init -q \"$OUT/src\" && git -C \"$OUT/src\" commit -q --allow-empty -m s && "
    "git -c protocol.file.allow=always submodule add -q \"$OUT/src\" sub && git commit -qm sub",
    { "write", ".git/modules/sub/config",
      GIT_EVIL_CONFIG "\tworktree = ../../../sub\n" GIT_FSMONITOR },
    "cd sub && git status",
    SBX_RUN_ALLOW_GIT_CONFIG },
  { "submodule's git directory replaced",
    "git init -q \"$OUT/src\" && git -C \"$OUT/src\" commit -q --allow-empty -m s && "
    "git -c protocol.file.allow=always submodule add -q \"$OUT/src\" sub && git commit -qm sub && "
    "cp -a .git/modules/sub sub-new",
    { "move", ".git/modules/sub", GIT_EVIL_CONFIG "\tworktree = ../../../sub\n" GIT_FSMONITOR,
      "sub-new" },
    "cd sub && git status",
    SBX_RUN_TEST_GIT_LEGACY },
  { "submodule's .git file",
    "git init -q \"$OUT/src\" && git -C \"$OUT/src\" commit -q --allow-empty -m s && "
    "git -c protocol.file.allow=always submodule add -q \"$OUT/src\" sub && git commit -qm sub",
    { "write", "sub/.git", "gitdir: ../evil\n" },
    "cd sub && git status",
    SBX_RUN_TEST_GIT_LEGACY },
  { "info/attributes selecting a configured filter",
    "git config filter.sbxf.clean \"touch $M; cat\" && git config filter.sbxf.smudge cat",
    { "write", ".git/info/attributes", "* filter=sbxf\n" },
    "touch a.txt && git add a.txt",
    SBX_RUN_ALLOW_GIT_CONFIG },
  { "a file the repository's config includes",
    "git config include.path ../shared.gitconfig && : > shared.gitconfig",
    { "write", "shared.gitconfig", "[core]\n" GIT_FSMONITOR },
    "git status",
    SBX_RUN_TEST_GIT_LEGACY },
  { "a hook in the working tree core.hooksPath names",
    "mkdir .githooks && git config core.hooksPath .githooks",
    { "write", ".githooks/pre-commit", "#!/bin/sh\ntouch %s\n" },
    "chmod +x .githooks/pre-commit; git commit -q --allow-empty -m x",
    SBX_RUN_TEST_GIT_LEGACY },
  { "hooks/pre-commit",
    "git config core.hooksPath .git/hooks",
    { "write", ".git/hooks/pre-commit", "#!/bin/sh\ntouch %s\n" },
    "chmod +x .git/hooks/pre-commit; git commit -q --allow-empty -m x",
    SBX_RUN_ALLOW_GIT_CONFIG },
};

START_TEST(t_git_host_config)
{
  struct sbx_run_result res;
  const struct git_case *c = &git_cases[_i];
  snprintf(git_marker, sizeof git_marker, "%s/sbx-git-marker", outside);
  fprintf(stderr, "--- git case: %s\n", c->name);
  git_case_setup(c);
  git_case_attack(c, 0, &res);
  ck_assert_msg(res.outcome == SBX_OUTCOME_EXITED && res.exit_code == 0,
                "%s: the plant was not refused: %s (exit %d)", c->name, res.message, res.exit_code);
  if (c->check) {
    git_host(c->check);
    ck_assert_msg(!git_marker_ran(), "%s: the host's git ran the planted command", c->name);
  }
  /* Negative control: the same plant with the protection switched off
   * lands, and the host's git runs it: the case does catch the hole. */
  git_case_setup(c);
  git_case_attack(c, c->control, &res);
  assert_escaped(&res, c->name);
  if (c->check) {
    git_host(c->check);
    ck_assert_msg(git_marker_ran(), "%s: negative control: the host's git did not run it", c->name);
  }
}
END_TEST

/* Decided writable (docs/confinement.md): objects/info/alternates names
 * more object stores only; an alternate's config and hooks are never read,
 * so planting one runs nothing on the host. */
START_TEST(t_git_alternates_data)
{
  struct sbx_run_result res;
  static const struct git_case c = {
    "alternates",
    "mkdir -p evil/hooks && printf '#!/bin/sh\\ntouch %s\\n' \"$M\" > evil/hooks/pre-commit && chmod +x evil/hooks/pre-commit",
    { "write", ".git/objects/info/alternates", "../../evil/objects\n" },
    NULL,
    0
  };
  snprintf(git_marker, sizeof git_marker, "%s/sbx-git-marker", outside);
  git_case_setup(&c);
  git_case_attack(&c, 0, &res);
  ck_assert_int_eq(res.exit_code, 10); /* written: it is data */
  git_host("git status && git log && git commit -q --allow-empty -m x && git fsck");
  ck_assert(!git_marker_ran());
}
END_TEST

/* An include the sandbox could create (missing, in the workspace) cannot
 * be protected by a mount: the run is refused, naming it. */
START_TEST(t_git_include_missing)
{
  struct sbx_run_result res;
  static const struct git_case c = {
    "missing include", "git config include.path ../later.gitconfig", { NULL, NULL, NULL }, NULL, 0
  };
  snprintf(git_marker, sizeof git_marker, "%s/sbx-git-marker", outside);
  git_case_setup(&c);
  RUN("standard", &res, "true");
  ck_assert_int_eq(res.exit_code, SBX_EXIT_FAILURE);
  ck_assert_int_eq(res.layer, SBX_LAYER_MOUNT);
  ck_assert_ptr_nonnull(strstr(res.message, "later.gitconfig', which does not exist"));
}
END_TEST

/* What a mount cannot protect refuses the run (exit 125, layer mount,
 * naming it): a second name of a protected file, an include reached
 * through a symlink the sandbox could re-point, a .git file naming a git
 * directory the sandbox could create. Negative control: with the
 * protection as before (SBX_RUN_TEST_GIT_LEGACY) the run goes ahead and
 * the plant through that name makes the host's git run it. */
static const struct git_case git_refusals[] = {
  { "has 2 hard links",
    "git worktree add -q wt -b wtb && ln .git/worktrees/wt/commondir .git/second-name",
    { "write", ".git/second-name", "../../../evil\n" },
    "cd wt && git status",
    SBX_RUN_TEST_GIT_LEGACY },
  { "through the symlink",
    "mkdir real && : > real/shared.cfg && ln -s real via && git config include.path ../via/shared.cfg",
    { "write", "real/shared.cfg", "[core]\n" GIT_FSMONITOR },
    "git status",
    SBX_RUN_TEST_GIT_LEGACY },
  { "which does not exist and could be created inside",
    "rm -rf .git && echo \"gitdir: made-later\" > .git",
    { NULL },
    NULL,
    SBX_RUN_TEST_GIT_LEGACY },
};

START_TEST(t_git_refused)
{
  struct sbx_run_result res;
  const struct git_case *c = &git_refusals[_i];
  snprintf(git_marker, sizeof git_marker, "%s/sbx-git-marker", outside);
  git_case_setup(c);
  RUN("standard", &res, "true");
  ck_assert_int_eq(res.exit_code, SBX_EXIT_FAILURE);
  ck_assert_int_eq(res.layer, SBX_LAYER_MOUNT);
  ck_assert_msg(strstr(res.message, c->name) != NULL, "refusal does not say '%s': %s", c->name,
                res.message);
  if (!c->argv[0])
    return;
  git_case_setup(c);
  git_case_attack(c, c->control, &res);
  assert_escaped(&res, c->name);
  git_host(c->check);
  ck_assert_msg(git_marker_ran(), "%s: negative control: the host's git did not run it", c->name);
}
END_TEST

/* Every include the configuration names is found, whatever git syntax
 * spells it (quotes, escapes, a key on the header's line, comments,
 * includeIf, an include in an included file, `~/`), and bound read-only;
 * the plan in words (sbx explain) shows each. */
START_TEST(t_git_include_syntax)
{
  static const char *const targets[] = { "i1.cfg", "i2 x.cfg", "i3.cfg", "i4.cfg",
                                         "i5.cfg", "i6.cfg",   NULL };
  static const struct git_case c = {
    "include syntax",
    "for f in i1.cfg \"i2 x.cfg\" i3.cfg i4.cfg i5.cfg i6.cfg; do : > \"$f\"; done && "
    "printf '[Include]\\n\\tPath = ../i1.cfg ; comment\\n[include] path = \"../i2 x.cfg\"\\n"
    "[includeIf \"gitdir:/nowhere/\"]\\n\\tpath = ../i\\\\\\n3.cfg\\n"
    "[includeIf \"onbranch:x\"]\\npath=\"../i4\".cfg # trailing\\n' >> .git/config && "
    "printf '[include]\\n\\tpath = i5.cfg\\n' > i4.cfg && "
    "printf '[include]\\n\\tpath = ~/i6.cfg\\n' > i5.cfg",
    { NULL, NULL, NULL },
    NULL,
    0
  };
  char *text, want[PATH_MAX + 64];
  const char *old = getenv("HOME");
  char *saved = old ? strdup(old) : NULL;
  snprintf(git_marker, sizeof git_marker, "%s/sbx-git-marker", outside);
  git_case_setup(&c);
  setenv("HOME", ws, 1); /* ~/i6.cfg is in the workspace */
  text = describe_plan("standard");
  for (const char *const *t = targets; *t; t++) {
    snprintf(want, sizeof want, "%s/%s  [git config include]", ws, *t);
    ck_assert_msg(strstr(text, want) != NULL, "include %s not protected:\n%s", *t, text);
  }
  free(text);
  if (saved)
    setenv("HOME", saved, 1);
  else
    unsetenv("HOME");
  free(saved);
}
END_TEST

/* What git writes in normal work stays writable: add, commit, stash,
 * rebase, branch, worktree add and remove, in the protected repository
 * and in a linked worktree made before the run. */
START_TEST(t_git_work_allowed)
{
  struct sbx_run_result res;
  static const struct git_case c = {
    "work", "git worktree add -q wt0 -b wt0", { NULL, NULL, NULL }, NULL, 0
  };
  snprintf(git_marker, sizeof git_marker, "%s/sbx-git-marker", outside);
  git_case_setup(&c);
  RUN("standard", &res, "sh", "-c",
      "set -e; echo two > b.txt; git add b.txt; git commit -q -m two; "
      "echo three >> a.txt; git stash -q; git stash list | grep -q stash; git stash pop -q; "
      "git commit -q -am three; git branch side HEAD~1; git checkout -q side; "
      "echo four > d.txt; git add d.txt; git commit -q -m four; git rebase -q main; "
      "git log --oneline | grep -q four; git worktree add -q wt1 -b wt1; "
      "(cd wt1 && echo five > e.txt && git add e.txt && git commit -q -m five); "
      "git worktree remove wt1; git branch -q -D wt1; "
      "(cd wt0 && echo six > f.txt && git add f.txt && git commit -q -m six); "
      "git gc -q; git fsck >/dev/null");
  ck_assert_msg(res.exit_code == 0, "git work under standard failed: %s", res.message);
  ck_assert_int_eq(
      git_host("git log --oneline side -- | grep -q four && git log --oneline wt0 -- | "
               "grep -q six && git status"),
      0);
}
END_TEST

/* ---- feature probe ---- */

/* ---- two runs at the same time ---- */

/* Two runs of one profile and workspace overlap (warm: two spares of the
 * same template): neither sees the other's /tmp, /dev/shm or processes,
 * nor can it signal them (esc_warm). */
START_TEST(t_concurrent_isolated)
{
  struct sbx_run_result res;
  int st = 0;
  pid_t first = fork();
  ck_assert_int_ge(first, 0);
  if (first == 0) {
    run_in("standard", ws, 20000, &res, ESC("esc_warm"), "hold", "2", (char *)NULL);
    _exit(res.outcome == SBX_OUTCOME_EXITED && res.exit_code == 0 ? 0 : 1);
  }
  usleep(600000); /* the first run is holding its markers by now */
  RUN("standard", &res, ESC("esc_warm"), "probe");
  ck_assert_msg(res.outcome == SBX_OUTCOME_EXITED && res.exit_code == 0,
                "the second run saw or reached the first: %s (exit %d)", res.message,
                res.exit_code);
  ck_assert_int_eq(waitpid(first, &st, 0), first);
  ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                "the first run was reached by the second (or failed)");
}
END_TEST

START_TEST(t_features)
{
  struct sbx_features f, none;
  char why[256];
  const struct cs_profile *p = cfx_profile("strict");
  ck_assert_int_eq(sbx_probe_features(&f), 0);
  sbx_features_describe(&f, stderr);
  ck_assert_int_eq(sbx_profile_enforceable(p, &f, why, sizeof why), 0);
  /* Fail closed: without Landlock the profile is refused, with a reason. */
  none = f;
  none.landlock_abi = 0;
  ck_assert_int_eq(sbx_profile_enforceable(p, &none, why, sizeof why), -ENOTSUP);
  ck_assert_ptr_nonnull(strstr(why, "landlock"));
  none = f;
  none.landlock_abi = 3;
  ck_assert_int_eq(sbx_profile_enforceable(p, &none, why, sizeof why), -ENOTSUP);
  none = f;
  none.ns_net = false;
  ck_assert_int_eq(sbx_profile_enforceable(p, &none, why, sizeof why), -ENOTSUP);
  ck_assert_ptr_nonnull(strstr(why, "network"));
  /* As root without a pids cgroup the process limit would not hold. */
  none = f;
  none.root = true;
  none.cgroup = SBX_CGROUP_NONE;
  ck_assert_int_eq(sbx_profile_enforceable(p, &none, why, sizeof why), -ENOTSUP);
  ck_assert_ptr_nonnull(strstr(why, "cgroup"));
  none.root = false;
  ck_assert_int_eq(sbx_profile_enforceable(p, &none, why, sizeof why), 0);
}
END_TEST

/* The plan in words is the plan that is enforced. */
START_TEST(t_describe)
{
  char *text = describe_plan("strict");
  ck_assert_ptr_nonnull(strstr(text, "[shell (CS_SHELL_NONE)]"));
  ck_assert_ptr_nonnull(strstr(text, "net (empty)"));
  ck_assert_ptr_nonnull(strstr(text, "tcp: bind and connect refused"));
  ck_assert_ptr_nonnull(strstr(text, "files of the bin directories (no shells)"));
  ck_assert_ptr_nonnull(
      strstr(text, geteuid() == 0 ? "identity: uid 65534 gid 65534, nobody" : "identity: uid "));
  ck_assert_ptr_null(strstr(text, "GITHUB_TOKEN"));
  free(text);
  ck_assert_int_eq(git_setup(ws), 0);
  text = describe_plan("standard");
  ck_assert_ptr_nonnull(strstr(text, "/.git/hooks  [git config/hooks]"));
  ck_assert_ptr_nonnull(strstr(text, sbx_net_proxied(cfx_profile("standard"))
                                         ? "loopback only; the way out is the proxy"
                                         : "(host network)"));
  free(text);
}
END_TEST

static bool add_suite(TCase *tc, const char *name)
{
  if (strcmp(name, "fs") == 0) {
    tcase_add_test(tc, t_write_outside);
    tcase_add_test(tc, t_read_denied);
    tcase_add_test(tc, t_readonly_workspace);
    tcase_add_test(tc, t_denied_workspace);
  } else if (strcmp(name, "proc") == 0) {
    tcase_add_test(tc, t_process_outside);
    tcase_add_test(tc, t_denial_named);
    tcase_add_test(tc, t_tiocsti);
    tcase_add_test(tc, t_namespaces_io_uring);
  } else if (strcmp(name, "abi_i386") == 0) {
    tcase_add_test(tc, t_abi_i386);
  } else if (strcmp(name, "abi_x32") == 0) {
    tcase_add_test(tc, t_abi_x32);
  } else if (strcmp(name, "net") == 0) {
    tcase_add_test(tc, t_network);
    tcase_add_test(tc, t_network_proxied);
    tcase_add_test(tc, t_network_proxy_answers);
  } else if (strcmp(name, "privs") == 0) {
    tcase_add_test(tc, t_fds_env);
    tcase_add_test(tc, t_privileges);
    tcase_add_test(tc, t_closed_stdio);
    tcase_add_test(tc, t_leases);
    tcase_add_test(tc, t_setid);
    tcase_add_test(tc, t_identity);
  } else if (strcmp(name, "netroute") == 0) {
    tcase_add_test(tc, t_route_headers);
  } else if (strcmp(name, "resources") == 0) {
    tcase_add_test(tc, t_fork_bomb);
    tcase_add_test(tc, t_memory_hog);
    tcase_add_test(tc, t_daemon_dies);
    tcase_add_test(tc, t_timeout);
    tcase_add_test(tc, t_timeout_kills_tree);
    tcase_add_test(tc, t_cgroup_lifecycle);
  } else if (strcmp(name, "shell") == 0) {
    tcase_add_test(tc, t_no_shell);
    tcase_add_test(tc, t_exit_codes);
  } else if (strcmp(name, "tools") == 0) {
    tcase_add_test(tc, t_standard_tools);
    tcase_add_test(tc, t_standard_make);
    tcase_add_test(tc, t_standard_git);
    tcase_add_test(tc, t_strict_tools);
  } else if (strcmp(name, "git") == 0) {
    tcase_add_loop_test(tc, t_git_host_config, 0, (int)(sizeof git_cases / sizeof git_cases[0]));
    tcase_add_test(tc, t_git_alternates_data);
    tcase_add_test(tc, t_git_include_missing);
    tcase_add_test(tc, t_git_include_syntax);
    tcase_add_loop_test(tc, t_git_refused, 0, (int)(sizeof git_refusals / sizeof git_refusals[0]));
    tcase_add_test(tc, t_git_work_allowed);
  } else if (strcmp(name, "exec") == 0) {
    tcase_add_test(tc, t_exec_loader);
    tcase_add_test(tc, t_exec_allowed);
    tcase_add_test(tc, t_exec_memfd);
    tcase_add_test(tc, t_exec_wx);
    tcase_add_test(tc, t_exec_interpreters);
    tcase_add_test(tc, t_exec_interpreters_control);
  } else if (strcmp(name, "isolation") == 0) {
    tcase_add_test(tc, t_concurrent_isolated);
  } else if (strcmp(name, "features") == 0) {
    tcase_add_test(tc, t_features);
    tcase_add_test(tc, t_describe);
  } else
    return false;
  return true;
}

/* CONFINE_WARM=1 (ctest confine_warm_*): a `sbx serve` (the library's
 * sbx_serve, in a child) holding exactly this battery's profiles, on a
 * private socket; every run then asks it (CONFINE_WARM_SOCKET) and must
 * start warm (CONFINE_REQUIRE_WARM). Returns the server's pid, 0 when
 * not asked, -1 on failure; 77 is the caller's when not root. */
static char warm_dir[] = "/tmp/confine-warm.XXXXXX";
static char warm_sock[64];

static pid_t warm_server_start(void)
{
  static const char *const names[] = { "standard", "strict", "hardened" };
  static struct cs_profile table[3];
  pid_t pid;
  if (!getenv("CONFINE_WARM"))
    return 0;
  if (!mkdtemp(warm_dir))
    return -1;
  snprintf(warm_sock, sizeof warm_sock, "%s/serve.sock", warm_dir);
  pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    struct sbx_serve_opts o = { .socket_path = warm_sock,
                                .profiles = table,
                                .n_profiles = 3,
                                .idle_ms = 600000,
                                .verbose = true };
    for (int i = 0; i < 3; i++) {
      const struct cs_profile *p = battery_profile(names[i]);
      if (!p)
        _exit(1);
      table[i] = *p;
    }
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    _exit(sbx_serve(&o) == 0 ? 0 : 1);
  }
  for (int i = 0; i < 200; i++) {
    struct stat st;
    if (stat(warm_sock, &st) == 0) {
      setenv("CONFINE_WARM_SOCKET", warm_sock, 1);
      setenv("CONFINE_REQUIRE_WARM", "1", 1);
      return pid;
    }
    if (waitpid(pid, NULL, WNOHANG) == pid)
      return -1;
    usleep(20000);
  }
  kill(pid, SIGTERM);
  return -1;
}

/* Stops the battery's server: SIGTERM, then up to 60 s for it to exit.
 * A server that does not (once, under ASan on a loaded machine, the
 * suite hit ctest's 600 s limit here after every check had passed) is
 * a failure of its own, reported with what it and its children were
 * waiting in, then killed: a hang becomes a finding, not a timeout
 * without a trace. Returns 0, or -1 when the server had to be killed. */
static int warm_server_stop(pid_t pid)
{
  if (pid <= 0)
    return 0;
  kill(pid, SIGTERM);
  for (int i = 0; i < 600; i++) {
    if (waitpid(pid, NULL, WNOHANG) == pid) {
      rmdir(warm_dir);
      return 0;
    }
    usleep(100 * 1000);
  }
  char cmd[160];
  fprintf(stderr, "FAIL: sbx serve (pid %d) did not exit within 60 s of SIGTERM:\n", (int)pid);
  snprintf(cmd, sizeof cmd, "ps -o pid,ppid,stat,wchan:32,args --ppid %d -p %d >&2", (int)pid,
           (int)pid);
  if (system(cmd) != 0)
    fprintf(stderr, "(ps failed)\n");
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  rmdir(warm_dir);
  return -1;
}

/* netroute: the suite runs in a network namespace of its own, where
 * 198.51.100.1/24 and 2001:db8::2/64 are on an interface (dummy, else
 * veth) that leads nowhere, so a packet routed "to another host" leaves
 * through it and is dropped. Nothing real is contacted. */
static int netns_enter(char *why, size_t len)
{
  if (unshare(CLONE_NEWNET) != 0) {
    snprintf(why, len, "cannot create a network namespace: %s", strerror(errno));
    return -1;
  }
  if (system("ip link set lo up && { ip link add sbxd0 type dummy 2>/dev/null || "
             "ip link add sbxd0 type veth peer name sbxd1; } && "
             "ip addr add 198.51.100.1/24 dev sbxd0 && "
             "ip -6 addr add 2001:db8::2/64 dev sbxd0 nodad && ip link set sbxd0 up") != 0) {
    snprintf(why, len, "cannot set up the test's network namespace with ip(8)");
    return -1;
  }
  return 0;
}

/* Whether this kernel runs getpid through the other ABI at all, outside
 * any sandbox: the negative control of the abi_* suites. A kernel built
 * without x32, booted with ia32_emulation=0, or a hypervisor that does not
 * deliver int 0x80 (the child dies by SIGSEGV) offers nothing for a filter
 * to refuse, and the suite is skipped with the reason. */
static bool host_offers_abi(const char *abi, char *why, size_t why_len)
{
  int status;
  pid_t pid = fork();
  if (pid < 0)
    return snprintf(why, why_len, "fork: %s", strerror(errno)), false;
  if (pid == 0) {
    long r;
    if (strcmp(abi, "i386") == 0)
      __asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory"); /* i386 getpid */
    else
      r = syscall(0x40000000L | 39); /* x32 getpid */
    _exit(r > 0 ? 0 : 1);
  }
  if (waitpid(pid, &status, 0) != pid)
    return snprintf(why, why_len, "waitpid: %s", strerror(errno)), false;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return true;
  snprintf(why, why_len, "this kernel offers no %s system calls outside a sandbox (%s)", abi,
           WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "getpid failed");
  return false;
}

int main(int argc, char **argv)
{
  pid_t warm;
  struct sbx_features f;
  char why[256];
  Suite *s;
  TCase *tc;
  SRunner *sr;
  int failed;

  static const char *const names[] = { "fs",        "proc",     "abi_i386",  "abi_x32", "net",
                                       "netroute",  "privs",    "resources", "shell",   "tools",
                                       "isolation", "features", "exec",      "git",     NULL };
  bool known = false;
  if (argc != 2)
    return fprintf(stderr, "usage: %s SUITE\n", argv[0]), 2;
  for (const char *const *n = names; *n; n++)
    known |= strcmp(*n, argv[1]) == 0;
  if (!known)
    return fprintf(stderr, "unknown suite %s\n", argv[1]), 2;
  sbx_probe_features(&f);
  for (const char *const *n = (const char *const[]){ "standard", "strict", "hardened", NULL }; *n;
       n++) {
    const struct cs_profile *p = cfx_profile(*n);
    if (!p)
      return fprintf(stderr, "profile %s missing (%s profiles)\n", *n, cfx_source()), 1;
    if (sbx_profile_enforceable(p, &f, why, sizeof why) == -ENOTSUP) {
      printf("SKIP: %s\n", why);
      return 77;
    }
  }
  cfx_release();
  fprintf(stderr, "profiles: %s\n", cfx_source());
  if (getenv("CONFINE_WARM") && geteuid() != 0) {
    printf("SKIP: sbx serve needs root\n");
    return 77;
  }
  if (strncmp(argv[1], "abi_", 4) == 0 && !host_offers_abi(argv[1] + 4, why, sizeof why)) {
    printf("SKIP: %s\n", why);
    return 77;
  }
  if (strcmp(argv[1], "netroute") == 0 && netns_enter(why, sizeof why) != 0) {
    printf("SKIP: %s\n", why);
    return 77;
  }
  if ((warm = warm_server_start()) < 0)
    return fprintf(stderr, "confine: the warm server did not start\n"), 1;
  s = suite_create(argv[1]);
  tc = tcase_create(argv[1]);
  tcase_set_timeout(tc, 300);
  tcase_add_checked_fixture(tc, ws_setup, ws_teardown);
  add_suite(tc, argv[1]);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  if (warm_server_stop(warm) != 0)
    failed++;
  return failed ? 1 : 0;
}
