/* sbx_serve: `sbx serve`, the per-user warm-start server (protocol:
 * sbx_warm.h; docs/sbx.md "Warm start"; docs/threat-model.md "sbx serve").
 *
 * A template holds the run-independent work of one key (profile, resolved
 * workspace and its dev/ino, HOME, uid/gid, the git-config grant): the plan
 * (with the facts it was computed from), a mount namespace holding the
 * finished view (pivoted; /proc, /tmp, /dev/shm left as mount points) and,
 * for no-shell profiles, the shared Landlock layer (SBX_LL_SHARED: the
 * ~1,000 per-file EXECUTE grants, built once; enum sbx_ll_part).
 *
 * Each template keeps two spares (SBX_SERVE_SPARES), each pid 1 of a
 * future run, cloned ahead of the request into new pid, ipc, uts, cgroup
 * (and, when the profile blocks the network, net) namespaces; each has
 * joined a private copy of the
 * template's mount namespace, mounted its own /tmp, /dev/shm and /proc and
 * built the run's Landlock ruleset there (SBX_LL_RUN, or SBX_LL_ALL without
 * a shared layer; the cold path's code: its rules name this run's own
 * /tmp, /proc, /dev/shm, which is why that part is never shared). A request
 * hands the spare the client's argv, environment and descriptors; it then
 * runs the cold path's tail (sbx_init_run, runtime/confine/sbx_sandbox.c): cgroup, session,
 * descriptors, rlimits, no_new_privs, Landlock (the run's layer, then the
 * shared one), capabilities, seccomp, execve. The client supervises the run
 * exactly like a cold one.
 *
 * Before a template is used its facts are checked (sbx_plan_fresh, or
 * vouched for by the watch: sbx_watch.c) and the
 * mount table must not have changed since it was built; otherwise it is
 * dropped and built anew from a fresh plan before the run (a failed build
 * sends the client to the cold path). Errors:
 * negative errno values (-EPERM not root / wrong state directory,
 * -EADDRINUSE a server already answers, or what a system call said).
 *
 * This file: the server loop (listen, accept, a request from receipt to
 * reply, reaping the runs). The wire format's decoding:
 * sbx_serve_wire.c; the template cache: sbx_serve_tmpl.c; the spares:
 * sbx_serve_spare.c; who may connect: sbx_serve_peer.c (shared
 * declarations: sbx_serve_parts.h). */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "sbx_sandbox.h"
#include "sbx_serve_parts.h"
#include "sbx_unotify.h"

static volatile sig_atomic_t sbx_serve_stop;

static void sbx_serve_on_signal(int sig)
{
  sbx_serve_stop = sig;
}

void sbx_serve_log(const struct sbx_srv *s, const char *fmt, ...)

    __attribute__((format(printf, 2, 3)));
void sbx_serve_log(const struct sbx_srv *s, const char *fmt, ...)
{
  va_list ap;
  if (!s->o->verbose)
    return;
  va_start(ap, fmt);
  fputs("sbx serve: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static void sbx_conn_close(struct sbx_conn *c)
{
  if (c->fd >= 0)
    close(c->fd);
  c->fd = -1;
}

static const struct cs_profile *sbx_serve_profile(const struct sbx_srv *s, const char *name)
{
  for (size_t i = 0; i < s->o->n_profiles; i++)
    if (s->o->profiles[i].name && strcmp(s->o->profiles[i].name, name) == 0)
      return &s->o->profiles[i];
  return NULL;
}

/* One request on connection c. Replies STARTED (from the key's template,
 * built or rebuilt first when missing or stale) or REFUSED (the client
 * then runs cold). */
static void sbx_serve_request(struct sbx_srv *s, struct sbx_conn *c)
{
  struct sbx_warm_req hdr;
  struct sbx_key k = { 0 };
  struct sbx_tmpl *t = NULL;
  char why[256] = "", note[128] = "", stale[200], **argv = NULL, **envp = NULL, **head = NULL;
  const char *facts = "template new";
  char real[PATH_MAX];
  struct stat wst;
  int fds[SBX_WARM_FDS], n_fds = 0, rc;
  bool trunc = false;
  ssize_t n = sbx_warm_recv(c->fd, s->buf, SBX_WARM_MAX_REQ, fds, &n_fds, &trunc);

  if (n <= 0) {
    for (int i = 0; i < n_fds; i++)
      close(fds[i]);
    sbx_conn_close(c);
    return;
  }
  if (trunc || sbx_warm_parse(s->buf, (size_t)n, n_fds, &hdr, &head, &argv, &envp) < 0) {
    snprintf(why, sizeof why, "malformed request, or another protocol version");
    goto refuse;
  }
  /* The plan is computed with the server's ids: they must be the client's. */
  if (hdr.uid != geteuid() || hdr.gid != getegid()) {
    snprintf(why, sizeof why, "client ids %u:%u differ from the server's", hdr.uid, hdr.gid);
    goto refuse;
  }
  k.profile = sbx_serve_profile(s, head[0]);
  /* The approvals' system-call layer (a notify listener) is served by the
   * `sbx run` process of a cold run; a spare has none. sbx run never asks
   * for such a profile, so a request for one is refused, not served
   * without the layer. */
  if (k.profile && (k.profile->approval_ops & SBX_UNOTIFY_OPS)) {
    snprintf(why, sizeof why,
             "profile '%.64s' has approvals at the system-call layer: "
             "cold only",
             head[0]);
    goto refuse;
  }
  /* Only the flags sbx run sets itself; an unknown bit is not ignored
   * (it could mean a layer this server does not know). */
  if (hdr.flags & ~(uint32_t)(SBX_RUN_ALLOW_GIT_CONFIG | SBX_RUN_NO_KMSG)) {
    snprintf(why, sizeof why, "unknown request flags 0x%x", hdr.flags);
    goto refuse;
  }
  if (!k.profile || sbx_profile_fingerprint(k.profile) != hdr.profile_fp) {
    snprintf(why, sizeof why, "profile '%.64s' differs from the server's (another sbx build?)",
             head[0]);
    goto refuse;
  }
  k.ws = head[1];
  k.home = head[2];
  k.ws_dev = (dev_t)hdr.ws_dev;
  k.ws_ino = (ino_t)hdr.ws_ino;
  /* The client resolved the workspace; the server sees the same
   * directory under the same name, or serves nothing: a name realpath
   * would change keys no template, and another directory than the one the
   * client meant would get the run. */
  if (!realpath(k.ws, real) || strcmp(real, k.ws) != 0 || stat(real, &wst) < 0 ||
      !S_ISDIR(wst.st_mode) || wst.st_dev != k.ws_dev || wst.st_ino != k.ws_ino) {
    snprintf(why, sizeof why, "workspace is not the resolved directory the client named");
    goto refuse;
  }
  k.ws_uid = wst.st_uid;
  k.ws_gid = wst.st_gid;
  k.uid = hdr.uid;
  k.gid = hdr.gid;
  k.flags = hdr.flags & SBX_RUN_ALLOW_GIT_CONFIG;
  if (sbx_mounts_changed(s)) {
    for (int i = 0; i < s->n_tmpl; i++)
      sbx_tmpl_drop(&s->tmpl[i]);
    sbx_serve_log(s, "mount table changed: every template dropped");
  }
  for (int i = 0; i < s->n_tmpl && !t; i++)
    if (sbx_key_eq(&s->tmpl[i], &k))
      t = &s->tmpl[i];
  /* The request travels to the spare while we check the template: the
   * spare only installs it (stdio, descriptors) and runs nothing before
   * the client's go, which follows our STARTED, which follows a positive
   * verdict. Fail closed on any doubt: a changed fact means the template
   * (and its spare) may show or grant what a fresh plan would not. The
   * spare that got the request is killed (its pid namespace with it),
   * and template and spare are made anew from a fresh plan, what a cold
   * run computes. */
  if (t && sbx_spare_take(s, t, c, (size_t)n, fds, n_fds) < 0)
    c->init = 0; /* no spare: taken again below, after the check */
  if (t && !sbx_tmpl_fresh(s, t, stale, sizeof stale, &facts)) {
    sbx_serve_log(s, "template stale: %s", stale);
    if (c->init > 0) {
      syscall(SYS_pidfd_send_signal, c->pidfd, SIGKILL, NULL, 0);
      while (waitpid(c->init, NULL, 0) < 0 && errno == EINTR)
        ;
      close(c->pidfd);
      close(c->spare_sock);
      c->pidfd = c->spare_sock = -1;
      c->init = c->cmd = 0;
    }
    sbx_tmpl_drop(t);
    t = NULL;
    facts = "template rebuilt";
    snprintf(note, sizeof note, "template rebuilt: %.100s", stale);
  } else if (!t)
    snprintf(note, sizeof note, "template built");
  if (!t) {
    /* Building takes a fork, the view's mounts and (no-shell profiles)
     * ~1,000 Landlock rules: a few ms, seconds on a loaded machine. Say
     * so, or the client's bound for a stuck server runs out first and a
     * healthy server's run goes cold. */
    sbx_send_reply(c->fd, SBX_WARM_BUILDING, 0, 0, 0, -1, NULL);
    if ((rc = sbx_tmpl_build(s, &k, why, sizeof why)) < 0)
      goto refuse;
    for (int i = 0; i < s->n_tmpl && !t; i++)
      if (sbx_key_eq(&s->tmpl[i], &k))
        t = &s->tmpl[i];
    if (!t) { /* never expected: the key as built is not found */
      snprintf(why, sizeof why, "template built but not found under its key");
      goto refuse;
    }
    sbx_serve_log(s, "template for %s in %s built", k.profile->name, k.ws);
  }
  if (c->init <= 0 && (rc = sbx_spare_take(s, t, c, (size_t)n, fds, n_fds)) < 0) {
    snprintf(why, sizeof why, "starting the run: %s", strerror(-rc));
    goto refuse;
  }
  t->last_used = sbx_now_ms();
  sbx_send_reply(c->fd, SBX_WARM_STARTED, c->init, c->cmd, 0, c->pidfd, note[0] ? note : NULL);
  sbx_serve_log(s, "run %d started warm (profile %s, %s; %s)", (int)c->init, k.profile->name, k.ws,
                facts);
  for (int i = 0; i < n_fds; i++)
    close(fds[i]);
  n_fds = 0;
  {
    /* After the answer, off the run's path. The spare unshared its mount
     * namespace first thing; if it has not yet, this is the template's
     * or ours, which we hold anyway: harmless. */
    char ns[64];
    snprintf(ns, sizeof ns, "/proc/%d/ns/mnt", (int)c->init);
    c->mntns = open(ns, O_RDONLY | O_CLOEXEC);
  }
  /* The next run's pid 1 is prepared while this one runs, once its go
   * came (sbx_serve_next_spare): until then this run needs both CPUs of a
   * small machine (our answer, the client's go, pid 1 and the command
   * taking the request), and the clone's namespace set-up is long kernel
   * work that idle priority cannot interrupt. */
  c->next_slot = (int)(t - s->tmpl);
  c->next_build = t->build;
  c->go_pending = true;
  goto cleanup;
refuse:
  sbx_serve_log(s, "refused: %s", why);
  sbx_send_reply(c->fd, SBX_WARM_REFUSED, 0, 0, 0, -1, why);
  sbx_conn_close(c);
cleanup:
  for (int i = 0; i < n_fds; i++)
    close(fds[i]);
  free(head);
  free(argv);
  free(envp);
}

static int sbx_serve_listen(struct sbx_srv *s)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX }, tmp = { .sun_family = AF_UNIX };
  const char *path = s->o->socket_path;
  char dir[PATH_MAX], lock[PATH_MAX + 16], *slash;
  struct stat st;
  mode_t old;
  int fd, rc;

  if (strlen(path) >= sizeof sa.sun_path ||
      snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
    return fprintf(stderr, "sbx serve: socket path too long: %s\n", path), -ENAMETOOLONG;
  strcpy(sa.sun_path, path);
  slash = strrchr(dir, '/');
  if (!slash || slash == dir)
    return fprintf(stderr, "sbx serve: socket %s: not in a state directory\n", path), -EINVAL;
  *slash = '\0';
  /* The directory is the socket's access control: ours, nobody else's. */
  if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
      (st.st_mode & 0077)) {
    fprintf(stderr,
            "sbx serve: state directory %s must be a directory of uid %d with mode "
            "0700\n",
            dir, (int)geteuid());
    return -EPERM;
  }
  /* One server per directory, for its whole life: two starting at once
   * would both bind and rename the socket (one then serving unreachable). */
  if ((size_t)snprintf(lock, sizeof lock, "%s/serve.lock", dir) >= sizeof lock)
    return -ENAMETOOLONG;
  s->lock_fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (s->lock_fd < 0) {
    fprintf(stderr, "sbx serve: %s: %s\n", lock, strerror(errno));
    return -errno;
  }
  if (flock(s->lock_fd, LOCK_EX | LOCK_NB) < 0) {
    rc = errno == EWOULDBLOCK ? -EADDRINUSE : -errno;
    fprintf(stderr, "sbx serve: a server already runs in %s (%s is locked)\n", dir, lock);
    return rc;
  }
  fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -errno;
  if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0) {
    fprintf(stderr, "sbx serve: a server already answers at %s\n", path);
    close(fd);
    return -EADDRINUSE;
  }
  /* Bound under a temporary name and renamed once listening: bind alone
   * makes the name appear, and a client connecting before listen() would
   * be refused (and start cold) although the server is up. The lock makes
   * the temporary name ours alone. */
  if ((size_t)snprintf(tmp.sun_path, sizeof tmp.sun_path, "%s/serve.sock.new", dir) >=
      sizeof tmp.sun_path) {
    close(fd);
    return fprintf(stderr, "sbx serve: socket path too long for its temporary name %s/%s\n", dir,
                   "serve.sock.new"),
           -ENAMETOOLONG;
  }
  unlink(tmp.sun_path);
  old = umask(0077);
  rc = bind(fd, (struct sockaddr *)&tmp, sizeof tmp) < 0 || listen(fd, 64) < 0 ||
               rename(tmp.sun_path, path) < 0
           ? -errno
           : 0;
  umask(old);
  if (rc < 0) {
    fprintf(stderr, "sbx serve: %s: %s\n", path, strerror(-rc));
    unlink(tmp.sun_path);
    close(fd);
    return rc;
  }
  s->listen_fd = fd;
  return 0;
}

static void sbx_serve_accept(struct sbx_srv *s)
{
  char why[200];
  int fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
  if (fd < 0)
    return;
  if (!sbx_serve_peer_ok(s, fd, why, sizeof why)) {
    sbx_serve_log(s, "%s", why);
    close(fd);
    return;
  }
  for (int i = 0; i < SBX_SERVE_MAX_CONNS; i++)
    if (s->conns[i].fd < 0 && s->conns[i].init <= 0) {
      s->conns[i].fd = fd;
      s->conns[i].since = sbx_now_ms();
      return;
    }
  close(fd); /* full: the client runs cold */
}

/* Run c had its go, or ended: one more spare of its template, unless that
 * template was dropped or rebuilt, or keeps enough already. Once at the
 * go (replacing the spare the run took) and once at the end (filling the
 * pool after a template is new or spares were used up). */
static void sbx_serve_next_spare(struct sbx_srv *s, struct sbx_conn *c)
{
  struct sbx_tmpl *t;
  struct sbx_spare *sp;
  int rc;
  if (c->next_slot < 0)
    return;
  t = &s->tmpl[c->next_slot];
  if (!t->used || t->build != c->next_build || !(sp = sbx_spare_free(t)))
    return;
  if ((rc = sbx_spare_make(s, t, sp)) < 0)
    sbx_serve_log(s, "no spare: %s", strerror(-rc));
}

/* pid 1 of a run ended: reap it, report to the client, free the slot. */
static void sbx_serve_reap(struct sbx_srv *s, struct sbx_conn *c)
{
  int st = 0;
  if (waitpid(c->init, &st, WNOHANG) != c->init)
    return;
  if (c->fd >= 0)
    sbx_send_reply(c->fd, SBX_WARM_DONE, c->init, 0, st, -1, NULL);
  sbx_serve_log(s, "run %d ended (status 0x%x)", (int)c->init, (unsigned)st);
  close(c->pidfd);
  close(c->spare_sock);
  if (c->mntns >= 0)
    close(c->mntns);
  c->pidfd = c->spare_sock = c->mntns = -1;
  c->init = 0;
  sbx_conn_close(c);
  sbx_serve_next_spare(s, c);
  c->next_slot = -1;
  c->go_pending = false;
}

int sbx_serve(const struct sbx_serve_opts *o)
{
  struct sbx_srv s = {
    .o = o, .listen_fd = -1, .mountinfo_fd = -1, .lock_fd = -1, .watch = { .fd = -1 }
  };
  /* The listening socket; per connection its socket, pid 1's pidfd and
   * the wait for its go; per template its spares' pidfds. */
  struct pollfd pfd[SBX_SERVE_WHO_END];
  int who[SBX_SERVE_WHO_END];
  struct sigaction sa = { .sa_handler = sbx_serve_on_signal };
  uint64_t last = sbx_now_ms();
  int rc = 0;

  /* Started with stdio closed, our sockets and namespaces would land on
   * 0..2, which every spare and builder keeps (sbx_close_except) and the
   * command could inherit: stdio is /dev/null instead. */
  for (int i = 0; i < 3; i++)
    if (fcntl(i, F_GETFD) < 0 && errno == EBADF) {
      int nul = open("/dev/null", O_RDWR);
      if (nul != i) {
        fprintf(stderr, "sbx serve: cannot open /dev/null as descriptor %d\n", i);
        return nul >= 0 ? (close(nul), -EBADF) : -errno;
      }
    }
  for (int i = 0; i < SBX_SERVE_MAX_CONNS; i++)
    s.conns[i] = (struct sbx_conn){
      .fd = -1, .init = 0, .pidfd = -1, .spare_sock = -1, .mntns = -1, .next_slot = -1
    };
  sbx_probe_for_run(&s.feat);
  s.n_tmpl =
      o->max_templates > 0 && o->max_templates <= SBX_SERVE_MAX_TEMPLATES ? o->max_templates : 16;
  s.tmpl = calloc((size_t)s.n_tmpl, sizeof *s.tmpl);
  s.buf = malloc(SBX_WARM_MAX_REQ);
  s.policy = sched_getscheduler(0);
  if (s.policy < 0 || sched_getparam(0, &s.param) < 0) {
    s.policy = SCHED_OTHER;
    s.param = (struct sched_param){ 0 };
  }
  if (!s.tmpl || !s.buf) {
    rc = -ENOMEM;
    goto cleanup;
  }
  for (int i = 0; i < s.n_tmpl; i++)
    sbx_tmpl_clear(&s.tmpl[i]);
  if ((rc = sbx_serve_self_ns(&s)) < 0) {
    fprintf(stderr, "sbx serve: cannot read its own namespaces in /proc: %s\n", strerror(-rc));
    goto cleanup;
  }
  if ((rc = sbx_serve_listen(&s)) < 0)
    goto cleanup;
  s.mountinfo_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
  sbx_mounts_changed(&s); /* arms the change notification */
  sbx_watch_init(&s.watch);
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  sbx_serve_log(&s, "listening on %s", o->socket_path);

  while (!sbx_serve_stop) {
    int n = 0, timeout = -1, busy = 0;
    pfd[n] = (struct pollfd){ .fd = s.listen_fd, .events = POLLIN };
    who[n++] = -1;
    for (int i = 0; i < SBX_SERVE_MAX_CONNS; i++) {
      struct sbx_conn *c = &s.conns[i];
      /* A connection that sent nothing in time loses its slot. */
      if (c->fd >= 0 && c->init <= 0) {
        uint64_t now = sbx_now_ms(), end = c->since + SBX_SERVE_REQUEST_MS;
        if (now >= end) {
          sbx_serve_log(&s, "no request within %d ms: connection closed", SBX_SERVE_REQUEST_MS);
          sbx_conn_close(c);
        } else if (timeout < 0 || (int)(end - now) < timeout)
          timeout = (int)(end - now);
      }
      if (c->fd >= 0) {
        pfd[n] = (struct pollfd){ .fd = c->fd, .events = POLLIN };
        who[n++] = i;
      }
      if (c->init > 0) {
        pfd[n] = (struct pollfd){ .fd = c->pidfd, .events = POLLIN };
        who[n++] = SBX_SERVE_WHO_PIDFD + i;
      }
      /* No events asked: only the hang-up (pid 1 had its go, or died);
       * the pre-forked command's unread "ready" may sit in the socket. */
      if (c->init > 0 && c->go_pending && c->spare_sock >= 0) {
        pfd[n] = (struct pollfd){ .fd = c->spare_sock, .events = 0 };
        who[n++] = SBX_SERVE_WHO_GO + i;
      }
      busy |= c->fd >= 0 || c->init > 0;
    }
    for (int i = 0; i < s.n_tmpl; i++)
      for (int k = 0; k < SBX_SERVE_SPARES; k++)
        if (s.tmpl[i].spares[k].pid > 0) {
          pfd[n] = (struct pollfd){ .fd = s.tmpl[i].spares[k].pidfd, .events = POLLIN };
          who[n++] = SBX_SERVE_WHO_SPARE + i * SBX_SERVE_SPARES + k;
        }
    if (busy)
      last = sbx_now_ms();
    if (o->idle_ms && !busy) {
      uint64_t now = sbx_now_ms();
      if (now - last >= o->idle_ms) {
        sbx_serve_log(&s, "idle for %llu ms: exiting", (unsigned long long)o->idle_ms);
        break;
      }
      timeout = (int)(o->idle_ms - (now - last));
    }
    if (poll(pfd, (nfds_t)n, timeout) < 0) {
      if (errno == EINTR)
        continue;
      rc = -errno;
      break;
    }
    for (int i = 0; i < n; i++) {
      if (!pfd[i].revents)
        continue;
      if (who[i] < 0) {
        sbx_serve_accept(&s);
      } else if (who[i] >= SBX_SERVE_WHO_SPARE) {
        /* A spare died before its request: reaped; the next run makes
         * another. (Taken in this round already: its pidfd is the run's
         * now, and the place may hold a new spare; nothing to drop.) */
        int at = who[i] - SBX_SERVE_WHO_SPARE;
        struct sbx_tmpl *t = &s.tmpl[at / SBX_SERVE_SPARES];
        struct sbx_spare *sp = &t->spares[at % SBX_SERVE_SPARES];
        if (sp->pidfd == pfd[i].fd) {
          sbx_serve_log(&s, "spare %d of %s ended before use", (int)sp->pid, t->ws);
          sbx_spare_drop(sp);
        }
      } else if (who[i] >= SBX_SERVE_WHO_GO) {
        struct sbx_conn *c = &s.conns[who[i] - SBX_SERVE_WHO_GO];
        c->go_pending = false;
        sbx_serve_next_spare(&s, c);
      } else if (who[i] >= SBX_SERVE_WHO_PIDFD) {
        sbx_serve_reap(&s, &s.conns[who[i] - SBX_SERVE_WHO_PIDFD]);
      } else {
        struct sbx_conn *c = &s.conns[who[i]];
        if (c->fd < 0)
          continue;
        if (c->init <= 0) {
          sbx_serve_request(&s, c);
        } else {
          /* Anything from a running client is its end closing (killed,
           * or gone): the run dies with it, the whole pid namespace. */
          struct pollfd gone = { .fd = c->pidfd, .events = POLLIN };
          /* After a normal end the client leaves once pid 1 is gone. */
          if (poll(&gone, 1, 0) == 0) {
            syscall(SYS_pidfd_send_signal, c->pidfd, SIGKILL, NULL, 0);
            sbx_serve_log(&s, "client of run %d gone: killed", (int)c->init);
          }
          sbx_conn_close(c);
        }
      }
    }
  }
cleanup:
  for (int i = 0; i < SBX_SERVE_MAX_CONNS; i++)
    if (s.conns[i].init > 0) {
      syscall(SYS_pidfd_send_signal, s.conns[i].pidfd, SIGKILL, NULL, 0);
      while (waitpid(s.conns[i].init, NULL, 0) < 0 && errno == EINTR)
        ;
      close(s.conns[i].pidfd);
      close(s.conns[i].spare_sock);
      if (s.conns[i].mntns >= 0)
        close(s.conns[i].mntns);
      sbx_conn_close(&s.conns[i]);
    } else
      sbx_conn_close(&s.conns[i]);
  for (int i = 0; s.tmpl && i < s.n_tmpl; i++)
    sbx_tmpl_drop(&s.tmpl[i]);
  if (s.listen_fd >= 0) {
    close(s.listen_fd);
    unlink(o->socket_path);
  }
  if (s.mountinfo_fd >= 0)
    close(s.mountinfo_fd);
  sbx_watch_fini(&s.watch);
  if (s.lock_fd >= 0)
    close(s.lock_fd);
  free(s.tmpl);
  free(s.buf);
  return rc;
}
