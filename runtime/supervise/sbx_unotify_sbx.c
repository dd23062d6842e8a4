/* sbx_unotify_sbx: see sbx_unotify_sbx.h. */
#include "sbx_diag.h"
#include "sbx_unotify_sbx.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

int sbx_unotify_handoff(int ctl, uint32_t ops, struct sbx_fail *f)
{
  int l = sbx_unotify_install(ops);

  if (l < 0) {
    sbx_fail_set(f, SBX_LAYER_SECCOMP, -l, "approval filter (seccomp user notification): %s",
                 l == -ENOSYS ? "not supported by this kernel" : strerror(-l));
    return l;
  }
  /* pidfd_getfd is a ptrace-mode access: sbx without root can make it
   * only to a dumpable process, and init made itself (and so us) not
   * dumpable. We are about to exec the command, which makes the process
   * dumpable again anyway; until then it holds nothing of sbx's. */
  (void)prctl(PR_SET_DUMPABLE, 1);
  /* One byte 'L' (the supervisor learns our pid from its credentials and
   * takes the listener with pidfd_getfd: sbx_unotify.h); write(2), since
   * the filter now stops sendmsg. */
  if (write(ctl, "L", 1) != 1) {
    int e = errno;
    close(l);
    sbx_fail_set(f, SBX_LAYER_SECCOMP, e, "approval filter: handing the listener over: %s",
                 strerror(e));
    return -e;
  }
  sbx_unotify_barrier();
  /* A process holding its own listener could answer its own calls. */
  close(l);
  return 0;
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
    fprintf(sbx_diag(), "sbx: approval: system-call layer stopped: %s; pending calls fail\n",
            strerror(-r));
  return NULL;
}

/* cfg.helper_started: remembers a helper's pid. Its Landlock domain's
 * records carry that pid, not the command's; only this run's helpers are
 * claimed, a helper of another sbx on the machine looks the same. */
static void sbx_unotify_note_helper(void *arg, pid_t helper)
{
  struct sbx_unotify_srv *s = arg;
  pthread_mutex_lock(&s->lock);
  if (s->n_helpers < SBX_UNOTIFY_HELPERS_MAX)
    s->helpers[s->n_helpers++] = helper;
  pthread_mutex_unlock(&s->lock);
}

size_t sbx_unotify_helpers(struct sbx_unotify_srv *s, pid_t *out, size_t max)
{
  size_t n;
  if (!s->running && !s->n_helpers)
    return 0;
  pthread_mutex_lock(&s->lock);
  n = s->n_helpers < max ? s->n_helpers : max;
  memcpy(out, s->helpers, n * sizeof *out);
  pthread_mutex_unlock(&s->lock);
  return n;
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
  pthread_mutex_init(&s->lock, NULL);
  s->cfg.helper_started = sbx_unotify_note_helper;
  s->cfg.helper_arg = s;
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
      /* A second name of the file on the writable workspace is not under
       * the read-only mount: writes through it are not stopped there, and
       * a write-open swapped to it after our check would not be either. */
      if (r == 0 && s->git[s->n_git - 1].nlink > 1)
        fprintf(sbx_diag(),
                "sbx: approval: warning: %s has %lu hard links; a write through "
                "another name is not stopped by its read-only mount\n",
                me->path, (unsigned long)s->git[s->n_git - 1].nlink);
    }
    s->cfg.git = s->git;
    s->cfg.n_git = s->n_git;
  }
  /* delete: the persistent home's directories, sbx's caches (sbx_plan_home.c). */
  if ((s->cfg.ops & CS_APPROVE_FILE_DELETE) && plan) {
    for (size_t i = 0; i < plan->n_mounts && s->n_kept < sizeof s->kept / sizeof s->kept[0]; i++) {
      const struct sbx_mount_entry *me = &plan->mounts[i];
      if (me->kind == SBX_MNT_BIND_RW && me->is_dir && me->why &&
          strcmp(me->why, SBX_MOUNT_WHY_HOME_KEPT) == 0)
        s->kept[s->n_kept++] = me->path;
    }
    s->cfg.kept_dirs = s->kept;
    s->cfg.n_kept_dirs = s->n_kept;
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
