/* sbx_serve_tmpl: the template cache of `sbx serve`: a template per key
 * (profile, workspace, HOME, ids, flags) built in its own mount namespace
 * from a fresh plan, and the checks that it still holds before a run uses
 * it (its facts, the watch, the mount table). */
#include <errno.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "sbx_landlock.h"
#include "sbx_mount.h"
#include "sbx_sandbox.h"
#include "sbx_serve_parts.h"

/* A template slot as unused: no descriptors, no spares. */
void sbx_tmpl_clear(struct sbx_tmpl *t)
{
  memset(t, 0, sizeof *t);
  t->mntns = t->ll_shared = -1;
  for (int k = 0; k < SBX_SERVE_SPARES; k++)
    sbx_spare_clear(&t->spares[k]);
}

void sbx_tmpl_drop(struct sbx_tmpl *t)
{
  if (!t->used)
    return;
  for (int k = 0; k < SBX_SERVE_SPARES; k++)
    sbx_spare_drop(&t->spares[k]);
  if (t->mntns >= 0)
    close(t->mntns);
  if (t->ll_shared >= 0)
    close(t->ll_shared);
  sbx_plan_free(&t->plan);
  sbx_tmpl_clear(t);
}

bool sbx_key_eq(const struct sbx_tmpl *t, const struct sbx_key *k)
{
  return t->used && t->profile == k->profile && strcmp(t->ws, k->ws) == 0 &&
         t->ws_dev == k->ws_dev && t->ws_ino == k->ws_ino && strcmp(t->home, k->home) == 0 &&
         t->uid == k->uid && t->gid == k->gid && t->flags == k->flags &&
         t->plan.ws_uid == k->ws_uid && t->plan.ws_gid == k->ws_gid;
}

/* The builder: in its own mount namespace, the template view and (no-shell
 * profiles) the shared Landlock layer; both descriptors go back over
 * `sock` with the verdict. */
static _Noreturn void sbx_tmpl_builder(const struct sbx_plan *plan, bool shared, int sock)
{
  struct sbx_fail f = { 0 };
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(2 * sizeof(int))];
  } cbuf;
  struct iovec iov = { .iov_base = f.text, .iov_len = sizeof f.text };
  struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
  int fds[2] = { -1, -1 };

  sbx_close_except(&sock, 1);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  fds[0] = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
  if (fds[0] < 0) {
    sbx_fail_set(&f, SBX_LAYER_NAMESPACES, errno, "template: /proc/self/ns/mnt: %s",
                 strerror(errno));
    goto fail;
  }
  if (sbx_mount_template(plan, &f) < 0)
    goto fail;
  if (shared && sbx_landlock_ruleset(plan, SBX_LL_SHARED, &fds[1], &f) < 0)
    goto fail;
  sbx_msg_put_fds(&mh, cbuf.buf, fds, shared ? 2 : 1);
  f.text[0] = '\0';
  _exit(sendmsg(sock, &mh, MSG_NOSIGNAL) < 0 ? 1 : 0);
fail:
  (void)!sendmsg(sock, &mh, MSG_NOSIGNAL);
  _exit(1);
}

/* Builds the template of key k into a free (or the least recently used)
 * slot. 0, or a negative errno with `why` set. */
int sbx_tmpl_build(struct sbx_srv *s, const struct sbx_key *k, char *why, size_t why_len)
{
  char *const dummy_argv[] = { (char *)"true", NULL };
  struct sbx_run_request rq = {
    .profile = k->profile, .workspace = k->ws, .argv = dummy_argv, .flags = k->flags
  };
  struct sbx_tmpl *t = NULL;
  char err[512], text[sizeof((struct sbx_fail *)0)->text] = "", sdir[PATH_MAX], *slash;
  struct sbx_fail fail;
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(2 * sizeof(int))];
  } cbuf;
  struct iovec iov = { .iov_base = text, .iov_len = sizeof text };
  struct msghdr mh = {
    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf.buf, .msg_controllen = sizeof cbuf.buf
  };
  struct pollfd pfd;
  int sp[2] = { -1, -1 }, fds[2] = { -1, -1 }, nf = 0, rc, st;
  bool shared = false;
  ssize_t n = -1;
  pid_t pid;

  /* Our own directory is masked in every view, as sbx run masks it. */
  snprintf(sdir, sizeof sdir, "%s", s->o->socket_path);
  if ((slash = strrchr(sdir, '/')) && slash != sdir) {
    *slash = '\0';
    rq.mask_dir = sdir;
  }
  for (int i = 0; i < s->n_tmpl; i++)
    if (!s->tmpl[i].used && !t)
      t = &s->tmpl[i];
  if (!t) {
    t = &s->tmpl[0];
    for (int i = 1; i < s->n_tmpl; i++)
      if (s->tmpl[i].last_used < t->last_used)
        t = &s->tmpl[i];
    sbx_tmpl_drop(t);
  }
  /* The kernel as it is now (a cgroup hierarchy may have come or gone). */
  sbx_probe_for_run(&s->feat);
  if ((rc = sbx_profile_enforceable(k->profile, &s->feat, err, sizeof err)) < 0) {
    snprintf(why, why_len, "%.200s", err);
    return rc;
  }
  if ((rc = sbx_plan_build_warm(&rq, s->feat.landlock_abi, k->home, &t->plan, &fail)) < 0) {
    sbx_fail_format(&fail, err, sizeof err);
    snprintf(why, why_len, "plan: %.200s", err);
    return rc;
  }
  t->used = true;
  t->build = ++s->builds;
  t->mntns = t->ll_shared = -1;
  t->plan.userns = false;
  /* Per-file grants (no-shell profiles) go into a layer built once. */
  for (size_t i = 0; i < t->plan.n_rules && !shared; i++)
    shared = t->plan.rules[i].is_file;
  if (!sbx_mount_warm_ok(&t->plan)) {
    snprintf(why, why_len,
             "the view of this profile (the host's root, or a symlink under /tmp) "
             "is built by the cold path only");
    rc = -EOPNOTSUPP;
    goto fail;
  }
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) {
    rc = -errno;
    snprintf(why, why_len, "socketpair: %s", strerror(errno));
    goto fail;
  }
  fflush(NULL);
  pid = (pid_t)syscall(SYS_clone, (unsigned long)CLONE_NEWNS | SIGCHLD, NULL, NULL, NULL, 0);
  if (pid < 0) {
    rc = -errno;
    snprintf(why, why_len, "clone(mount): %s", strerror(errno));
    goto fail;
  }
  if (pid == 0) {
    close(sp[0]);
    sbx_tmpl_builder(&t->plan, shared, sp[1]);
  }
  close(sp[1]);
  sp[1] = -1;
  pfd = (struct pollfd){ .fd = sp[0], .events = POLLIN };
  if (poll(&pfd, 1, SBX_SERVE_BUILD_MS) == 1)
    n = recvmsg(sp[0], &mh, MSG_CMSG_CLOEXEC);
  for (struct cmsghdr *c = n >= 0 ? CMSG_FIRSTHDR(&mh) : NULL; c; c = CMSG_NXTHDR(&mh, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      nf = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
      nf = nf > 2 ? 2 : nf;
      memcpy(fds, CMSG_DATA(c), (size_t)nf * sizeof(int));
    }
  kill(pid, SIGKILL); /* it has exited or must not linger */
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
    ;
  if (nf != (shared ? 2 : 1)) {
    for (int i = 0; i < nf; i++)
      close(fds[i]);
    text[sizeof text - 1] = '\0';
    snprintf(why, why_len, "template: %.200s", n > 0 && text[0] ? text : "builder gave no answer");
    rc = -EIO;
    goto fail;
  }
  t->mntns = fds[0];
  t->ll_shared = shared ? fds[1] : -1;
  t->profile = k->profile;
  snprintf(t->ws, sizeof t->ws, "%s", k->ws);
  snprintf(t->home, sizeof t->home, "%s", k->home);
  t->ws_dev = k->ws_dev;
  t->ws_ino = k->ws_ino;
  t->uid = k->uid;
  t->gid = k->gid;
  t->flags = k->flags;
  t->last_used = sbx_now_ms();
  close(sp[0]);
  return 0;
fail:
  if (sp[0] >= 0)
    close(sp[0]);
  if (sp[1] >= 0)
    close(sp[1]);
  sbx_tmpl_drop(t);
  return rc;
}

/* Has the mount table changed since the last call? (The kernel flags the
 * open mountinfo file with POLLPRI; reading it re-arms.) Unknown: yes. */
bool sbx_mounts_changed(struct sbx_srv *s)
{
  struct pollfd pfd = { .fd = s->mountinfo_fd, .events = POLLPRI };
  char buf[4096];
  if (s->mountinfo_fd < 0)
    return true;
  if (poll(&pfd, 1, 0) == 0)
    return false;
  lseek(s->mountinfo_fd, 0, SEEK_SET);
  while (read(s->mountinfo_fd, buf, sizeof buf) > 0)
    ;
  return true;
}

/* Does template t still hold what a fresh plan would? With an armed
 * watch whose epoch has not moved, only the probes it does not vouch for
 * are checked (a file's content); otherwise every probe, and the watch is
 * armed when that passes: the epoch read before the directories were
 * watched must still be the epoch after (docs/sbx.md "Staleness"). *how
 * says which check ran. */
bool sbx_tmpl_fresh(struct sbx_srv *s, struct sbx_tmpl *t, char *why, size_t why_len,
                    const char **how)
{
  uint64_t e = sbx_watch_epoch(&s->watch), now = sbx_now_ms();
  bool arm = false;
  if (t->watch_epoch && t->watch_epoch == e) {
    *how = "facts watched";
    return sbx_plan_fresh_unwatched(&t->plan, why, why_len);
  }
  t->watch_epoch = 0;
  *how = "facts checked";
  if (e && now >= t->arm_after) {
    int rc = sbx_watch_plan(&s->watch, &t->plan);
    if (rc < 0) {
      t->arm_after = UINT64_MAX;
      sbx_serve_log(s, "template for %s in %s: facts not watched (%s): checked at every run",
                    t->profile->name, t->ws, strerror(-rc));
    } else if (sbx_watch_epoch(&s->watch) != e) {
      t->arm_after = now + SBX_SERVE_ARM_MS;
    } else
      arm = true;
  }
  if (!sbx_plan_fresh(&t->plan, why, why_len))
    return false;
  if (arm)
    t->watch_epoch = e;
  return true;
}
