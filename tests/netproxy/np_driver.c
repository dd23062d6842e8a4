/* np_driver: the network proxy engine on loopback listeners, with a policy
 * from the command line, for the integration tests (t_proxy.sh). Names
 * resolve through a hosts file only (--hosts), never the machine's DNS, so
 * every test's traffic stays on loopback; names under "hang." never resolve
 * (until the driver exits), a resolver that hangs.
 *
 *   np_driver --ports-file F [--allow P]... [--deny P]... [--local CIDR]...
 *             [--rest deny|ask] [--ask allow|deny|hang] [--hosts FILE]
 *             [--records FILE] [--max-conns N] [--handshake-ms N]
 *             [--idle-ms N] [--ask-ms N] [--buffer BYTES] [--relay splice|copy]
 *             [--nofile keep|raise]
 * Writes "HTTP_PORT SOCKS_PORT" to F once listening; runs until SIGTERM.
 * Like sbx, it raises its soft descriptor limit to the hard one before the
 * engine sizes its splice budget (np_proxy.h); --nofile keep leaves it, so
 * a test can make connections fall back to copying. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <unistd.h>

#include "np_proxy.h"

#define MAX_LIST 64

static struct np_engine *the_engine;
static const char *hosts_file;
static FILE *records;
static int ask_pipe[2] = { -1, -1 };
static int ask_allow;
/* Names under "hang." never resolve until the driver stops: a resolver
 * that hangs, to test the handshake limit and the bound on pending jobs. */
static int hang_release[2] = { -1, -1 };

static void on_signal(int sig)
{
  (void)sig;
  if (the_engine)
    np_engine_stop(the_engine);
}

static void usage(void)
{
  fprintf(stderr, "usage: np_driver --ports-file F [--allow P] [--deny P] [--local CIDR] "
                  "[--rest deny|ask] [--ask allow|deny|hang] [--hosts FILE] [--records FILE] "
                  "[--max-conns N] [--handshake-ms N] [--idle-ms N] [--ask-ms N] [--buffer BYTES] "
                  "[--relay splice|copy] [--nofile keep|raise]\n");
  exit(2);
}

static int hosts_resolve(void *ctx, const char *name, struct sockaddr_storage *out, size_t max,
                         const char **why)
{
  (void)ctx;
  if (strncmp(name, "hang.", 5) == 0) {
    struct pollfd p = { .fd = hang_release[0], .events = POLLIN };
    while (poll(&p, 1, -1) < 0 && errno == EINTR)
      ;
    *why = "released at the driver's exit";
    return -1;
  }
  FILE *f = hosts_file ? fopen(hosts_file, "r") : NULL;
  if (!f) {
    *why = "no hosts file (the test driver never asks the machine's resolver)";
    return -1;
  }
  char line[512];
  size_t n = 0;
  while (n < max && fgets(line, sizeof line, f)) {
    char *save = NULL, *addr = strtok_r(line, " \t\r\n", &save);
    if (!addr || addr[0] == '#')
      continue;
    for (char *h; (h = strtok_r(NULL, " \t\r\n", &save));) {
      if (strcasecmp(h, name) != 0)
        continue;
      memset(&out[n], 0, sizeof out[n]);
      struct sockaddr_in *sin = (struct sockaddr_in *)(void *)&out[n];
      struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)(void *)&out[n];
      if (inet_pton(AF_INET, addr, &sin->sin_addr) == 1) {
        sin->sin_family = AF_INET;
        n++;
      } else if (inet_pton(AF_INET6, addr, &sin6->sin6_addr) == 1) {
        sin6->sin6_family = AF_INET6;
        n++;
      }
      break;
    }
  }
  fclose(f);
  if (n == 0) {
    *why = "not in the test's hosts file";
    return -1;
  }
  return (int)n;
}

static void on_record(void *ctx, const struct np_record *r)
{
  (void)ctx;
  if (!records)
    return;
  fprintf(records,
          "record proto=%s host=%s port=%u dialled=%s allowed=%d basis=\"%s\" refusal=\"%s\" "
          "up=%llu down=%llu ms=%llu relay=%s\n",
          np_protocol_name(r->protocol), r->host[0] ? r->host : "-", r->port,
          r->dialled[0] ? r->dialled : "-", r->allowed, r->basis, r->refusal ? r->refusal : "",
          (unsigned long long)r->bytes_up, (unsigned long long)r->bytes_down,
          (unsigned long long)r->duration_ms, r->relay[0] ? r->relay : "-");
  fflush(records);
}

/* The ask callback must not block: it hands the id to another thread,
 * which answers through np_engine_answer as an approver would. */
static void on_ask(void *ctx, const struct np_ask *ask)
{
  (void)ctx;
  if (records) {
    fprintf(records, "ask host=%s port=%u rule=\"%s\"\n", ask->host, ask->port, ask->rule);
    fflush(records);
  }
  if (ask_pipe[1] >= 0) {
    ssize_t w = write(ask_pipe[1], &ask->id, sizeof ask->id);
    (void)w;
  }
}

static void *answerer(void *arg)
{
  (void)arg;
  uint64_t id;
  while (read(ask_pipe[0], &id, sizeof id) == (ssize_t)sizeof id)
    np_engine_answer(the_engine, id, ask_allow,
                     ask_allow ? "approval (test allows)" : "approval (test denies)");
  return NULL;
}

static int listen_loopback(uint16_t *port)
{
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t len = sizeof sin;
  if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof sin) != 0 || listen(fd, 1024) != 0 ||
      getsockname(fd, (struct sockaddr *)&sin, &len) != 0) {
    perror("np_driver: listen");
    exit(1);
  }
  *port = ntohs(sin.sin_port);
  return fd;
}

static unsigned number(const char *s)
{
  char *end;
  unsigned long v = strtoul(s, &end, 10);
  if (*s == '\0' || *end != '\0' || v == 0 || v > 100000000ul)
    usage();
  return (unsigned)v;
}

int main(int argc, char **argv)
{
  const char *allow[MAX_LIST], *deny[MAX_LIST], *local[MAX_LIST];
  struct np_policy_spec spec = { .allow = allow, .deny = deny, .local_ranges = local };
  struct np_limits limits;
  np_limits_default(&limits);
  const char *ports_file = NULL, *records_file = NULL, *ask_mode = NULL;
  int raise_nofile = 1;
  for (int i = 1; i < argc; i++) {
    const char *opt = argv[i];
    if (i + 1 >= argc)
      usage();
    const char *val = argv[++i];
    if (!strcmp(opt, "--allow") && spec.n_allow < MAX_LIST)
      allow[spec.n_allow++] = val;
    else if (!strcmp(opt, "--deny") && spec.n_deny < MAX_LIST)
      deny[spec.n_deny++] = val;
    else if (!strcmp(opt, "--local") && spec.n_local_ranges < MAX_LIST)
      local[spec.n_local_ranges++] = val;
    else if (!strcmp(opt, "--rest") && (!strcmp(val, "deny") || !strcmp(val, "ask")))
      spec.rest = !strcmp(val, "ask") ? NP_DEFAULT_ASK : NP_DEFAULT_DENY;
    else if (!strcmp(opt, "--ask") &&
             (!strcmp(val, "allow") || !strcmp(val, "deny") || !strcmp(val, "hang")))
      ask_mode = val;
    else if (!strcmp(opt, "--hosts"))
      hosts_file = val;
    else if (!strcmp(opt, "--records"))
      records_file = val;
    else if (!strcmp(opt, "--ports-file"))
      ports_file = val;
    else if (!strcmp(opt, "--max-conns"))
      limits.max_connections = number(val);
    else if (!strcmp(opt, "--handshake-ms"))
      limits.handshake_ms = number(val);
    else if (!strcmp(opt, "--idle-ms"))
      limits.idle_ms = number(val);
    else if (!strcmp(opt, "--buffer"))
      limits.buffer_size = number(val);
    else if (!strcmp(opt, "--ask-ms"))
      limits.ask_ms = number(val);
    else if (!strcmp(opt, "--relay") && (!strcmp(val, "splice") || !strcmp(val, "copy")))
      limits.relay_copy = !strcmp(val, "copy");
    else if (!strcmp(opt, "--nofile") && (!strcmp(val, "keep") || !strcmp(val, "raise")))
      raise_nofile = !strcmp(val, "raise");
    else
      usage();
  }
  if (!ports_file)
    usage();
  struct rlimit nofile;
  if (raise_nofile && getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
    nofile.rlim_cur = nofile.rlim_max;
    setrlimit(RLIMIT_NOFILE, &nofile);
  }
  char err[512];
  struct np_policy *policy;
  if (np_policy_compile(&spec, &policy, err, sizeof err) != 0) {
    fprintf(stderr, "np_driver: %s\n", err);
    return 2;
  }
  if (records_file && !(records = fopen(records_file, "a"))) {
    perror(records_file);
    return 1;
  }
  if (pipe(hang_release) != 0) {
    perror("np_driver: pipe");
    return 1;
  }
  uint16_t http_port, socks_port;
  int http_fd = listen_loopback(&http_port), socks_fd = listen_loopback(&socks_port);
  struct np_engine_config cfg = {
    .policy = policy,
    .limits = limits,
    .callbacks = { .record = on_record, .resolve = hosts_resolve },
    .http_fds = &http_fd,
    .n_http = 1,
    .socks_fds = &socks_fd,
    .n_socks = 1,
  };
  pthread_t answer_thread;
  if (ask_mode) {
    cfg.callbacks.ask = on_ask;
    if (strcmp(ask_mode, "hang") != 0) {
      ask_allow = !strcmp(ask_mode, "allow");
      if (pipe(ask_pipe) != 0 || pthread_create(&answer_thread, NULL, answerer, NULL) != 0) {
        perror("np_driver: answerer");
        return 1;
      }
    }
  }
  if (np_engine_create(&cfg, &the_engine, err, sizeof err) != 0) {
    fprintf(stderr, "np_driver: %s\n", err);
    return 1;
  }
  struct sigaction sa = { .sa_handler = on_signal };
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", ports_file);
  FILE *pf = fopen(tmp, "w");
  if (!pf || fprintf(pf, "%u %u\n", http_port, socks_port) < 0 || fclose(pf) != 0 ||
      rename(tmp, ports_file) != 0) {
    perror(ports_file);
    return 1;
  }
  int rc = np_engine_run(the_engine);
  close(hang_release[1]); /* wakes every hung resolution: the workers can be joined */
  np_engine_destroy(the_engine);
  np_policy_free(policy);
  return rc == 0 ? 0 : 1;
}
