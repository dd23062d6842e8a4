/* sbx_kmsg: reads the kernel's audit records of one run, so that a refusal
 * by seccomp or Landlock can be named afterwards (sbx_denial.h says when
 * the kernel writes them).
 *
 * Sources, best first:
 *   1. the audit netlink multicast group AUDIT_NLGRP_READLOG: every record
 *      as the kernel made it, one per datagram, not rate limited. Needs
 *      CAP_AUDIT_READ and the initial network namespace; the kernel copies
 *      each record to every reader, so auditd or journald are undisturbed;
 *   2. /dev/kmsg: without auditd the records also go through printk, rate
 *      limited (kernel.printk_ratelimit_burst, 10 per 5 s by default,
 *      shared with the whole machine) and readable by root or with
 *      kernel.dmesg_restrict=0.
 * The supervisor opens the source before the run and reads what arrived
 * after it, keeping only the run's records: seccomp's of the run's audit
 * session (sbx_session.h; without one, of the command's host pid, learnt
 * from the kernel with SCM_CREDENTIALS), Landlock's of the domain the
 * command's process created. This is best effort and documented
 * as such: a lost record leaves a refusal unnamed (and the result says
 * records were lost), never a wrong name. The sandbox never depends on it. */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "sbx_denial.h"
#include "sbx_landlock_rights.h"

/* Receive buffer of the multicast socket: the supervisor reads only after
 * the run, so every record of the machine in between must fit (~1 KiB of
 * kernel memory each). */
#define SBX_KMSG_RCVBUF (4 << 20)
/* Records of domains not yet known to be the run's, waiting for their 1424
 * record (it follows the first 1423 record of a domain, in one event). */
#define SBX_KMSG_PENDING 16
#define SBX_KMSG_DOMAINS 8

/* The kernel multicasts audit records only to sockets of the initial
 * network namespace; elsewhere binding the group works but nothing ever
 * arrives. Kernel threads live there: compared with kthreadd's (pid 2 when
 * its flags say kernel thread; pid 1 is often unreadable, even to root).
 * When that cannot be known (another pid namespace) the socket is tried. */
#define SBX_PF_KTHREAD 0x00200000u
static bool sbx_initial_netns(void)
{
  char a[64], b[64], st[512];
  unsigned long flags = 0;
  ssize_t n, m;
  const char *e;
  int fd = open("/proc/2/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return true;
  n = read(fd, st, sizeof st - 1);
  close(fd);
  if (n <= 0)
    return true;
  st[n] = '\0';
  /* "2 (kthreadd) S 0 0 0 0 -1 FLAGS ...": the 9th field, after the name. */
  e = strrchr(st, ')');
  if (!e || sscanf(e + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1 || !(flags & SBX_PF_KTHREAD))
    return true;
  n = readlink("/proc/self/ns/net", a, sizeof a);
  m = readlink("/proc/2/ns/net", b, sizeof b);
  if (n <= 0 || m <= 0)
    return true;
  return n == m && memcmp(a, b, (size_t)n) == 0;
}

int sbx_kmsg_open(void)
{
  int fd = sbx_initial_netns()
               ? socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_AUDIT)
               : -1;
  if (fd >= 0) {
    struct sockaddr_nl sa = { .nl_family = AF_NETLINK,
                              .nl_groups = 1u << (AUDIT_NLGRP_READLOG - 1) };
    int sz = SBX_KMSG_RCVBUF;
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0) {
      if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof sz) < 0)
        (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz);
      return fd;
    }
    close(fd); /* no CAP_AUDIT_READ, or not the initial network namespace */
  }
  fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  if (lseek(fd, 0, SEEK_END) < 0) {
    int e = errno;
    close(fd);
    return -e;
  }
  return fd;
}

/* A numeric field "key=N" that starts a word (so "pid=" is not "opid="),
 * in `base` (0: "0x" prefix for hex, as code= is written). */
static long sbx_field_base(const char *rec, const char *key, int base, bool *found)
{
  const char *s = rec;
  size_t kl = strlen(key);
  *found = false;
  while ((s = strstr(s, key))) {
    if (s == rec || s[-1] == ' ') {
      char *end;
      long v = (long)strtoll(s + kl, &end, base);
      if (end != s + kl) {
        *found = true;
        return v;
      }
    }
    s += kl;
  }
  return 0;
}

static long sbx_field(const char *rec, const char *key, bool *found)
{
  return sbx_field_base(rec, key, 10, found);
}

static int sbx_hexval(char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

/* Fields audit writes with audit_log_untrustedstring: "text" when the text
 * has no space, quote or control character, otherwise the bare uppercase
 * hex of its bytes. Every other field is a bare number or word. */
static bool sbx_string_field(const char *key)
{
  static const char *const keys[] = { "path", "comm", "exe", "ocomm", "name", "dev", NULL };
  for (const char *const *k = keys; *k; k++)
    if (strcmp(*k, key) == 0)
      return true;
  return false;
}

bool sbx_audit_value(const char *text, const char *key, char *out, size_t out_len)
{
  size_t kl = strlen(key), len;
  const char *s = text, *v = NULL;
  bool hex;
  /* Quoted values hold no space, so " key=" is always a field's start. */
  while ((s = strstr(s, key))) {
    if ((s == text || s[-1] == ' ') && s[kl] == '=') {
      v = s + kl + 1;
      break;
    }
    s += kl;
  }
  if (!v || out_len == 0)
    return false;
  if (*v == '"') {
    const char *e = strchr(v + 1, '"');
    if (!e || (size_t)(e - v - 1) >= out_len)
      return false;
    memcpy(out, v + 1, (size_t)(e - v - 1));
    out[e - v - 1] = '\0';
    return true;
  }
  len = strcspn(v, " \n");
  hex = sbx_string_field(key) && len > 0 && len % 2 == 0;
  for (size_t i = 0; hex && i < len; i++)
    hex = sbx_hexval(v[i]) >= 0 && !(v[i] >= 'a' && v[i] <= 'f');
  if (hex) {
    if (len / 2 >= out_len)
      return false;
    for (size_t i = 0; i < len; i += 2) {
      char c = (char)(sbx_hexval(v[i]) * 16 + sbx_hexval(v[i + 1]));
      /* A NUL (an abstract socket's first byte) would cut the text short. */
      out[i / 2] = c ? c : '?';
    }
    out[len / 2] = '\0';
    return true;
  }
  if (len >= out_len)
    return false;
  memcpy(out, v, len);
  out[len] = '\0';
  return true;
}

/* Reads the next record as its type and its text ("audit(T:S): ...").
 * Returns 1, 0 at the end, or -1 for a record to skip. */
static int sbx_next_record(int fd, bool netlink, char *buf, size_t len, int *type,
                           const char **text, bool *lost)
{
  ssize_t n;
  if (netlink) {
    struct nlmsghdr *h = (struct nlmsghdr *)(void *)buf;
    n = recv(fd, buf, len - 1, 0);
    if (n < 0 && errno == ENOBUFS) {
      *lost = true; /* the socket overran: records were dropped */
      return -1;
    }
    if (n < 0 && errno == EINTR)
      return -1;
    if (n <= 0)
      return 0;
    /* Only the kernel sends to this group (nlmsg_pid 0); the payload is
     * the record's text, not always NUL-terminated. */
    if ((size_t)n < NLMSG_HDRLEN || h->nlmsg_pid != 0)
      return -1;
    buf[n] = '\0';
    *type = h->nlmsg_type;
    *text = buf + NLMSG_HDRLEN;
    return 1;
  }
  n = read(fd, buf, len - 1);
  if (n < 0 && errno == EPIPE) {
    *lost = true; /* overwritten in the ring before we read them */
    return -1;
  }
  if (n < 0 && errno == EINTR)
    return -1;
  if (n <= 0)
    return 0;
  buf[n] = '\0';
  {
    /* "PRI,SEQ,TS,FLAGS;audit: type=N audit(...): ..." and only from the
     * kernel (facility 0): a line written to /dev/kmsg by a program has
     * facility 1 (user) and could imitate a record. */
    char *semi = strchr(buf, ';'), *end;
    long pri = strtol(buf, &end, 10);
    const char *p;
    bool ok;
    if (!semi || end == buf || (pri >> 3) != 0)
      return -1;
    p = semi + 1;
    if (strstr(p, "callbacks suppressed") && strncmp(p, "kauditd_printk_skb", 18) == 0) {
      *lost = true; /* printk's rate limit dropped audit records */
      return -1;
    }
    if (strncmp(p, "audit: ", 7) != 0)
      return -1;
    *type = (int)sbx_field(p + 7, "type=", &ok);
    if (!ok)
      return -1;
    p = strchr(p + 7, ' ');
    if (!p)
      return -1;
    *text = p + 1;
  }
  return 1;
}

/* Is pid the command's or one of the run's other processes'? */
static bool sbx_kmsg_ours(long pid, pid_t cmd, const pid_t *others, size_t n_others)
{
  if (pid == (long)cmd)
    return true;
  for (size_t i = 0; i < n_others; i++)
    if (pid == (long)others[i])
      return true;
  return false;
}

/* Only a return value that refuses the call is a refusal: the approvals'
 * notify filter's records (USER_NOTIF: the supervisor answers, and names
 * its own refusals), `log` rules and allowed calls are not. */
static bool sbx_seccomp_refuses(uint32_t code)
{
  switch (code & SECCOMP_RET_ACTION_FULL) {
  case SECCOMP_RET_KILL_PROCESS:
  case SECCOMP_RET_KILL_THREAD:
  case SECCOMP_RET_TRAP:
  case SECCOMP_RET_ERRNO:
  case SECCOMP_RET_TRACE: /* no tracer here: the kernel answers ENOSYS */
    return true;
  default:
    return false;
  }
}

static void sbx_seccomp_record(const char *text, pid_t pid, const pid_t *others, size_t n_others,
                               unsigned session, struct sbx_kmsg_scan *out)
{
  struct sbx_kmsg_hit *hit = &out->seccomp;
  bool fp, fs, fg, fc, fa, fses;
  long rpid = sbx_field(text, "pid=", &fp);
  long nr = sbx_field(text, "syscall=", &fs);
  long sig = sbx_field(text, "sig=", &fg);
  long code = sbx_field_base(text, "code=", 0, &fc);
  long arch = sbx_field_base(text, "arch=", 16, &fa);
  long ses = sbx_field(text, "ses=", &fses);
  struct sbx_sc_record r;
  if (!fp || !fs)
    return;
  /* The run's processes are those of its audit session (inherited by
   * every process the command starts, changed by none of them), or, when
   * the run has none, the command's pid sbx learnt from the kernel. A pid
   * alone names one process only: its children have other pids, and a
   * pid seen after the process is gone may be another's, which is why
   * with a session the command's pid does not count on its own. The
   * approval helpers are sbx's processes, outside the session: by pid. */
  if (session
          ? !(fses && (unsigned long)ses == session) && !sbx_kmsg_ours(rpid, 0, others, n_others)
          : !sbx_kmsg_ours(rpid, pid, others, n_others))
    return;
  /* A record without code= (older kernels) is taken for a refusal, as
   * before; one that does not refuse is not counted. */
  if (fc && !sbx_seccomp_refuses((uint32_t)code))
    return;
  hit->count++;
  /* A killing record (sig != 0) is the one that ended the process: keep
   * it over earlier refusals. */
  if (hit->sig == 0 || sig != 0) {
    hit->syscall = (int)nr;
    hit->sig = fg ? sig : 0;
  }
  r = (struct sbx_sc_record){ .syscall = (int)nr,
                              .arch = fa ? (uint32_t)arch : 0,
                              .code = fc ? (uint32_t)code : SECCOMP_RET_KILL_PROCESS,
                              .sig = fg ? sig : 0,
                              .pid = rpid };
  /* The same call refused again (a retry loop, a fallback taken by every
   * thread) is kept once, with the first process that made it. */
  for (int i = 0; i < out->n_sc; i++)
    if (out->sc[i].syscall == r.syscall && out->sc[i].arch == r.arch && out->sc[i].code == r.code) {
      if (r.sig && !out->sc[i].sig)
        out->sc[i] = r;
      return;
    }
  if (out->n_sc < SBX_SCAN_SC_MAX)
    out->sc[out->n_sc++] = r;
  else if (r.sig)
    out->sc[SBX_SCAN_SC_MAX - 1] = r; /* the kill matters more than a late refusal */
}

static bool sbx_ll_parse(const char *text, struct sbx_ll_record *r)
{
  char dom[32];
  const char *b;
  char *end;
  size_t bl;
  if (!sbx_audit_value(text, "domain", dom, sizeof dom))
    return false;
  r->domain = strtoull(dom, &end, 16);
  if (end == dom || *end)
    return false;
  b = strstr(text, " blockers=");
  if (!b)
    return false;
  b += 10;
  bl = strcspn(b, " \n");
  if (bl >= sizeof r->blockers)
    bl = sizeof r->blockers - 1;
  memcpy(r->blockers, b, bl);
  r->blockers[bl] = '\0';
  b += bl;
  b += strspn(b, " ");
  snprintf(r->object, sizeof r->object, "%.*s", (int)strcspn(b, "\n"), b);
  return true;
}

static void sbx_ll_keep(struct sbx_kmsg_scan *out, const struct sbx_ll_record *r)
{
  out->ll_count++;
  if (out->n_ll < SBX_SCAN_LL_MAX)
    out->ll[out->n_ll++] = *r;
}

void sbx_kmsg_collect(int fd, pid_t pid, const char *exe, struct sbx_kmsg_scan *out)
{
  sbx_kmsg_collect_until(fd, pid, NULL, 0, 0, exe, NULL, 0, out);
}

void sbx_kmsg_collect_until(int fd, pid_t pid, const pid_t *others, size_t n_others,
                            unsigned session, const char *exe, const char *marker, int ms,
                            struct sbx_kmsg_scan *out)
{
  struct timespec t0;
  char buf[8192 + NLMSG_HDRLEN];
  struct sbx_ll_record pending[SBX_KMSG_PENDING];
  uint64_t domains[SBX_KMSG_DOMAINS];
  size_t n_pending = 0, n_domains = 0;
  int type = 0, sotype = 0;
  socklen_t sl = sizeof sotype;
  bool netlink;

  memset(out, 0, sizeof *out);
  out->seccomp.syscall = -1;
  if (fd < 0 || pid <= 0)
    return;
  netlink = getsockopt(fd, SOL_SOCKET, SO_TYPE, &sotype, &sl) == 0;
  out->from_netlink = netlink;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    const char *text = NULL;
    int rc = sbx_next_record(fd, netlink, buf, sizeof buf, &type, &text, &out->lost);
    if (rc == 0) {
      /* Nothing more now: done, unless the marker is still on its way
       * (then wait for it, bounded: a record lost or filtered by an audit
       * rule must not hold the run). */
      struct timespec now;
      long left;
      struct pollfd pfd = { .fd = fd, .events = POLLIN };
      if (!marker)
        break;
      clock_gettime(CLOCK_MONOTONIC, &now);
      left = ms - ((now.tv_sec - t0.tv_sec) * 1000L + (now.tv_nsec - t0.tv_nsec) / 1000000L);
      if (left <= 0 || poll(&pfd, 1, (int)left) <= 0) {
        out->marker_missed = true;
        break;
      }
      continue;
    }
    if (rc < 0)
      continue;
    if (marker && type == AUDIT_USER && strstr(text, marker)) {
      marker = NULL; /* every record before it was read */
      continue;
    }
    if (type == SBX_AUDIT_SECCOMP) {
      sbx_seccomp_record(text, pid, others, n_others, session, out);
    } else if (type == SBX_AUDIT_LANDLOCK_ACCESS) {
      struct sbx_ll_record r;
      bool known = false;
      if (!sbx_ll_parse(text, &r))
        continue;
      for (size_t i = 0; i < n_domains && !known; i++)
        known = domains[i] == r.domain;
      if (known)
        sbx_ll_keep(out, &r);
      else if (n_pending < SBX_KMSG_PENDING)
        pending[n_pending++] = r;
      else {
        /* Other domains' records (other sandboxes on the machine): the
         * oldest goes; ours are claimed by their 1424 record within the
         * same event, long before 16 others arrive. */
        memmove(pending, pending + 1, (SBX_KMSG_PENDING - 1) * sizeof *pending);
        pending[SBX_KMSG_PENDING - 1] = r;
      }
    } else if (type == SBX_AUDIT_LANDLOCK_DOMAIN) {
      char dom[32], status[16], rexe[4096];
      bool fp;
      long rpid = sbx_field(text, "pid=", &fp);
      uint64_t id;
      char *end;
      size_t k = 0;
      if (!fp || !sbx_kmsg_ours(rpid, pid, others, n_others) ||
          !sbx_audit_value(text, "status", status, sizeof status) ||
          strcmp(status, "allocated") != 0 || !sbx_audit_value(text, "domain", dom, sizeof dom))
        continue;
      /* The command's own nested domain (made after its execve) has the
       * same pid but the command's binary as exe: not ours to name. */
      if (exe && (!sbx_audit_value(text, "exe", rexe, sizeof rexe) || strcmp(rexe, exe) != 0))
        continue;
      id = strtoull(dom, &end, 16);
      if (end == dom || *end)
        continue;
      if (n_domains < SBX_KMSG_DOMAINS)
        domains[n_domains++] = id;
      for (size_t i = 0; i < n_pending; i++)
        if (pending[i].domain == id)
          sbx_ll_keep(out, &pending[i]);
        else
          pending[k++] = pending[i];
      n_pending = k;
    }
  }
}

void sbx_kmsg_scan(int fd, pid_t pid, struct sbx_kmsg_hit *hit)
{
  struct sbx_kmsg_scan *s = malloc(sizeof *s);
  hit->syscall = -1;
  hit->sig = 0;
  hit->count = 0;
  if (!s)
    return;
  sbx_kmsg_collect(fd, pid, NULL, s);
  *hit = s->seccomp;
  free(s);
}

/* AUDIT_GET / AUDIT_SET over a short-lived audit netlink socket; *out
 * gets the kernel's status for AUDIT_GET. */
static int sbx_kaudit_talk(uint16_t type, int enabled, struct audit_status *out)
{
  struct {
    struct nlmsghdr h;
    struct audit_status s;
  } req;
  struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
  char buf[1024];
  int fd, rc = -EIO;

  fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
  if (fd < 0)
    return -errno;
  {
    struct timeval tv = { .tv_sec = 2 };
    (void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  memset(&req, 0, sizeof req);
  req.h.nlmsg_len = NLMSG_LENGTH(sizeof req.s);
  req.h.nlmsg_type = type;
  req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
  req.h.nlmsg_seq = 1;
  if (type == AUDIT_SET) {
    req.s.mask = AUDIT_STATUS_ENABLED;
    req.s.enabled = (uint32_t)enabled;
  }
  if (sendto(fd, &req, req.h.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof sa) < 0) {
    rc = -errno;
    goto cleanup;
  }
  /* An ACK (error 0 or -errno) and, for AUDIT_GET, the status, in
   * either order. */
  for (int i = 0; i < 4; i++) {
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    struct nlmsghdr *h = (struct nlmsghdr *)(void *)buf;
    if (n < 0) {
      rc = -errno;
      goto cleanup;
    }
    if ((size_t)n < NLMSG_HDRLEN || !NLMSG_OK(h, (unsigned)n)) {
      rc = -EIO;
      goto cleanup;
    }
    if (h->nlmsg_type == NLMSG_ERROR) {
      const struct nlmsgerr *e = NLMSG_DATA(h);
      if (h->nlmsg_len < NLMSG_LENGTH(sizeof *e)) {
        rc = -EIO;
        goto cleanup;
      }
      if (e->error != 0 || type == AUDIT_SET) {
        rc = e->error;
        goto cleanup;
      }
    } else if (h->nlmsg_type == AUDIT_GET && type == AUDIT_GET) {
      size_t len = h->nlmsg_len - NLMSG_HDRLEN;
      /* Older kernels send a shorter struct: what is missing reads 0. */
      if (h->nlmsg_len < NLMSG_LENGTH(2 * sizeof(uint32_t)) || h->nlmsg_len > (size_t)n) {
        rc = -EIO;
        goto cleanup;
      }
      memset(out, 0, sizeof *out);
      memcpy(out, NLMSG_DATA(h), len < sizeof *out ? len : sizeof *out);
      rc = 0;
      goto cleanup;
    }
  }
cleanup:
  close(fd);
  return rc;
}

bool sbx_kmsg_is_netlink(int fd)
{
  int sotype = 0;
  socklen_t sl = sizeof sotype;
  return fd >= 0 && getsockopt(fd, SOL_SOCKET, SO_TYPE, &sotype, &sl) == 0;
}

int sbx_kmsg_mark(char *token, size_t len)
{
  struct {
    struct nlmsghdr h;
    char text[128];
  } req;
  struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
  struct timespec now;
  struct timeval tv = { .tv_sec = 1 };
  char buf[1024];
  int fd, rc = -EIO;
  static unsigned seq;

  clock_gettime(CLOCK_MONOTONIC, &now);
  /* Unique on the machine: our pid, a counter and the time. */
  snprintf(token, len, "sbx-sync=%d.%u.%lld%09ld", (int)getpid(), ++seq, (long long)now.tv_sec,
           now.tv_nsec);
  fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
  if (fd < 0)
    return -errno;
  (void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  memset(&req, 0, sizeof req);
  snprintf(req.text, sizeof req.text, "op=end-of-run-records %s", token);
  req.h.nlmsg_len = NLMSG_LENGTH(strlen(req.text) + 1);
  req.h.nlmsg_type = AUDIT_USER;
  req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
  req.h.nlmsg_seq = 1;
  if (sendto(fd, &req, req.h.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof sa) < 0) {
    rc = -errno;
    goto cleanup;
  }
  {
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    struct nlmsghdr *h = (struct nlmsghdr *)(void *)buf;
    if (n < 0)
      rc = -errno;
    else if ((size_t)n >= NLMSG_LENGTH(sizeof(struct nlmsgerr)) && NLMSG_OK(h, (unsigned)n) &&
             h->nlmsg_type == NLMSG_ERROR)
      rc = ((const struct nlmsgerr *)NLMSG_DATA(h))->error;
  }
cleanup:
  close(fd);
  return rc;
}

int sbx_kaudit_get(int *enabled)
{
  struct audit_status st;
  int rc = sbx_kaudit_talk(AUDIT_GET, 0, &st);
  if (rc == 0)
    *enabled = (int)st.enabled;
  return rc;
}

int sbx_kaudit_set(int enabled)
{
  struct audit_status st;
  return sbx_kaudit_talk(AUDIT_SET, enabled, &st);
}

#define SBX_KMSG_SETTLE_MS 50
int sbx_kmsg_settle(int *enabled)
{
  struct audit_status st;
  int rc = 0;
  for (int i = 0; i < SBX_KMSG_SETTLE_MS; i++) {
    struct timespec ms = { .tv_nsec = 1000000 };
    if ((rc = sbx_kaudit_talk(AUDIT_GET, 0, &st)) != 0)
      return rc;
    *enabled = (int)st.enabled;
    if (st.backlog == 0)
      break;
    nanosleep(&ms, NULL);
  }
  return 0;
}
