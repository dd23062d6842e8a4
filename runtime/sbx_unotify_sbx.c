/* sbx_unotify_sbx: see sbx_unotify_sbx.h. */
#include "sbx_unotify_sbx.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int sbx_unotify_handoff(int ctl, uint32_t ops, struct sbx_fail *f)
{
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(sizeof(int))];
  } u;
  char c = 'L';
  struct iovec iov = {.iov_base = &c, .iov_len = 1};
  struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
                      .msg_controllen = sizeof u.buf};
  struct cmsghdr *cm;
  int l = sbx_unotify_install(ops);

  if (l < 0) {
    sbx_fail_set(f, SBX_LAYER_SECCOMP, -l, "approval filter (seccomp user notification): %s",
                 l == -ENOSYS ? "not supported by this kernel" : strerror(-l));
    return l;
  }
  memset(u.buf, 0, sizeof u.buf);
  cm = CMSG_FIRSTHDR(&mh);
  cm->cmsg_level = SOL_SOCKET;
  cm->cmsg_type = SCM_RIGHTS;
  cm->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cm), &l, sizeof l);
  if (sendmsg(ctl, &mh, MSG_NOSIGNAL) != 1) {
    int e = errno;
    close(l);
    sbx_fail_set(f, SBX_LAYER_SECCOMP, e, "approval filter: handing the listener over: %s",
                 strerror(e));
    return -e;
  }
  /* A process holding its own listener could answer its own calls. */
  close(l);
  return 0;
}

int sbx_unotify_take_fd(struct msghdr *mh)
{
  int fd = -1;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
      continue;
    size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < n; i++) {
      int x;
      memcpy(&x, CMSG_DATA(c) + i * sizeof(int), sizeof x);
      if (fd < 0)
        fd = x;
      else
        close(x);
    }
  }
  return fd;
}

/* Each helper gets the profile's Landlock rules, so the supervisor never
 * does on the sandbox's behalf what the sandbox itself could not. */
static int sbx_unotify_landlock(void *arg)
{
  const struct sbx_plan *plan = arg;
  struct sbx_fail f;
  memset(&f, 0, sizeof f);
  return sbx_landlock_apply(plan, &f);
}

static void *sbx_unotify_thread(void *arg)
{
  struct sbx_unotify_srv *s = arg;
  int r = sbx_unotify_serve(s->listener, &s->cfg, s->stop[0]);
  if (r != 0)
    fprintf(stderr, "sbx: approval: system-call layer stopped: %s; pending calls fail\n",
            strerror(-r));
  return NULL;
}

int sbx_unotify_start(struct sbx_unotify_srv *s, int listener, const struct sbx_unotify_cfg *cfg,
                      const struct sbx_plan *plan)
{
  int r;
  memset(s, 0, sizeof *s);
  s->stop[0] = s->stop[1] = -1;
  s->listener = listener;
  s->cfg = *cfg;
  s->plan = plan;
  /* sbx_mount.c gives every sandbox its own /tmp (a tmpfs); a host
   * directory under /tmp (a workspace) is a separate bind mount on it. */
  s->cfg.private_tmp = true;
  if (plan && plan->landlock_abi > 0) {
    s->cfg.confine = sbx_unotify_landlock;
    s->cfg.confine_arg = (void *)plan;
  }
  /* git-config: the configuration files sbx_plan.c bound read-only
   * (sbx_unotify_open.c). Taken by host path with no symlink followed;
   * one that cannot be taken is simply not asked about: its read-only
   * mount keeps refusing writes. */
  if ((s->cfg.ops & CS_APPROVE_GIT_CONFIG) && plan) {
    for (size_t i = 0; i < plan->n_mounts; i++) {
      const struct sbx_mount_entry *me = &plan->mounts[i];
      const char *b = strrchr(me->path, '/');
      if (me->kind != SBX_MNT_BIND_RO || me->is_dir || !me->why ||
          strcmp(me->why, "git config/hooks") != 0 || !b ||
          (strcmp(b, "/config") != 0 && strcmp(b, "/config.worktree") != 0))
        continue;
      r = sbx_unotify_git_add(&s->git, &s->n_git, me->path);
      if (r == -ENOMEM)
        goto fail;
    }
    s->cfg.git = s->git;
    s->cfg.n_git = s->n_git;
  }
  if (pipe2(s->stop, O_CLOEXEC) < 0) {
    r = -errno;
    goto fail;
  }
  r = -pthread_create(&s->thread, NULL, sbx_unotify_thread, s);
  if (r != 0)
    goto fail;
  s->running = true;
  return 0;
fail:
  close(listener);
  s->listener = -1;
  sbx_unotify_git_free(s->git, s->n_git);
  s->git = NULL;
  s->n_git = 0;
  for (int i = 0; i < 2; i++)
    if (s->stop[i] >= 0)
      close(s->stop[i]);
  s->stop[0] = s->stop[1] = -1;
  return r;
}

void sbx_unotify_stop(struct sbx_unotify_srv *s)
{
  if (!s->running)
    return;
  (void)!write(s->stop[1], "x", 1);
  pthread_join(s->thread, NULL);
  close(s->stop[0]);
  close(s->stop[1]);
  close(s->listener);
  sbx_unotify_git_free(s->git, s->n_git);
  s->git = NULL;
  s->n_git = 0;
  s->running = false;
}
