/* sbx_confine: a cold run (sbx_confine_run, sbx_confine.h), in sbx's own
 * process.
 *
 * The supervisor computes the plan, creates the cgroup, clones pid 1 into
 * new namespaces (sbx_sandbox.c), writes the uid/gid maps when sbx is not
 * root, and then only waits, through the caller's supervise hook
 * (sbx_hooks.h): for a FAIL message (a layer could not be applied: nothing
 * is executed), READY (the command is about to exec; its host pid arrives
 * with the message as SCM_CREDENTIALS), EXIT (init's report of the
 * command's wait status), or the deadline, at which it kills init. Killing
 * pid 1 of a pid namespace makes the kernel kill every process in it, so
 * nothing the command started (daemons included) outlives the run. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sbx_cgroup.h"
#include "sbx_fail.h"
#include "sbx_freeze.h"
#include "sbx_plan.h"
#include "sbx_sandbox.h"

static int sbx_write_proc(pid_t pid, const char *file, const char *text)
{
  char path[64];
  int fd, rc = 0;
  size_t n = strlen(text);
  snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
  fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  if (write(fd, text, n) != (ssize_t)n)
    rc = -errno;
  close(fd);
  return rc;
}

/* Maps our own uid and gid (only) into the user namespace: the command is
 * the same unprivileged user inside, and "deny" for setgroups stops it from
 * dropping supplementary groups to escape a negative group permission. */
static int sbx_userns_map(pid_t pid, uid_t uid, gid_t gid)
{
  char map[64];
  int rc;
  snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
  if ((rc = sbx_write_proc(pid, "uid_map", map)) < 0)
    return rc;
  if ((rc = sbx_write_proc(pid, "setgroups", "deny")) < 0 && rc != -ENOENT)
    return rc;
  snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
  return sbx_write_proc(pid, "gid_map", map);
}

/* The hooks a cold run cannot do without, checked before anything is
 * set up: no supervisor, or approvals asked for without their system-call
 * layer, is a refused request (nothing runs with a part missing). */
static int sbx_hooks_check(const struct sbx_run_request *req, struct sbx_fail *f)
{
  const struct sbx_confine_hooks *h = req->hooks;
  if (!h || !h->supervise) {
    sbx_fail_set(f, SBX_LAYER_REQUEST, EINVAL,
                 "no supervisor given (struct sbx_run_request.hooks, sbx_hooks.h)");
    return -EINVAL;
  }
  if (req->unotify && (!h->approvals || !h->approvals->handoff || !h->approvals->open ||
                       !h->approvals->serve_listener || !h->approvals->close)) {
    sbx_fail_set(f, SBX_LAYER_REQUEST, EINVAL,
                 "approvals at the system-call layer asked for, but no layer to serve them "
                 "(struct sbx_confine_hooks.approvals)");
    return -EINVAL;
  }
  /* A proxied profile's only way out is the proxy: a run without one
   * would have no network at all and look broken, and nothing may ever
   * stand in for it with a direct one. */
  if (req->profile && sbx_net_proxied(req->profile) &&
      (!req->proxy || !h->proxy || !h->proxy->start || !h->proxy->stop)) {
    sbx_fail_set(f, SBX_LAYER_REQUEST, EINVAL,
                 "profile '%s' sends its network through the proxy, but no proxy was given "
                 "(struct sbx_run_request.proxy, struct sbx_confine_hooks.proxy)",
                 req->profile->name ? req->profile->name : "?");
    return -EINVAL;
  }
  return 0;
}

int sbx_confine_run(const struct sbx_run_request *req, struct sbx_run_result *res)
{
  const struct sbx_confine_hooks *hooks;
  const struct sbx_approval_hooks *approvals = NULL;
  struct sbx_features feat;
  struct sbx_plan plan;
  struct sbx_cgroup cg = { 0 };
  struct sbx_fail f = { 0 };
  void *approvals_state = NULL;
  char why[512];
  int sv[2] = { -1, -1 }, sync_pipe[2] = { -1, -1 }, kmsg = -1, one = 1, rc, st = 0;
  struct sigaction old_chld;
  bool restore_chld = false;
  bool have_plan = false, init_joins = false;
  pid_t init = -1;
  uint64_t t0, tmax;
  int flags;

  if ((rc = sbx_confine_begin(req, res, &tmax)) < 0)
    return rc;
  if ((rc = sbx_hooks_check(req, &f)) < 0) {
    sbx_result_from_fail(res, &f);
    return rc;
  }
  hooks = req->hooks;
  if (req->unotify)
    approvals = hooks->approvals;
  /* With SIGCHLD ignored the kernel would reap init itself and its status
   * would be lost: default it for the run, restore it afterwards. */
  restore_chld = sbx_sigchld_default(&old_chld);

  /* A running `sbx serve` (same user) starts the run from a template when
   * it can; anything short of a started command falls back to the cold
   * path below, which is equally confined (runtime/warm/sbx_warm.c). The
   * server checked the profile against the kernel when it built the
   * template. */
  if (req->warm_socket && !req->unotify && hooks->warm_run) {
    rc = hooks->warm_run(req, tmax, res);
    if (rc != SBX_WARM_DECLINED)
      goto cleanup;
  } else if (req->warm_declined)
    snprintf(res->start_note, sizeof res->start_note, "%s", req->warm_declined);
  else if (req->warm_socket && req->unotify)
    /* The approvals' system-call layer is served by this process. */
    snprintf(res->start_note, sizeof res->start_note,
             "approvals at the system-call layer are served by the cold path");
  else if (req->warm_socket)
    snprintf(res->start_note, sizeof res->start_note, "this caller has no warm-start path");
  snprintf(res->start_path, sizeof res->start_path, "cold");
  /* Layers the kernel cannot provide: refuse, never run with fewer. The
   * reason already names the layer and what it lacks. */
  sbx_probe_for_run(&feat);
  if ((rc = sbx_profile_enforceable(req->profile, &feat, why, sizeof why)) < 0) {
    sbx_result_fail(res, rc == -EINVAL ? SBX_LAYER_REQUEST : SBX_LAYER_KERNEL, -rc, why);
    goto cleanup;
  }

  if ((rc = sbx_plan_build(req, feat.landlock_abi, &plan, &f)) < 0)
    goto fail;
  have_plan = true;
  /* For the record: what the home keeps and what it skipped. */
  snprintf(res->home_state, sizeof res->home_state, "%.250s",
           plan.home_state ? plan.home_state : "");
  snprintf(res->home_notes, sizeof res->home_notes, "%.500s", plan.home_notes);
  plan.userns = !feat.root;
  plan.timeout_ms = tmax;

  if ((rc = sbx_cgroup_create(req->profile, &feat, &cg, &f)) < 0)
    goto fail;
  snprintf(res->cgroup_info, sizeof res->cgroup_info, "%s", cg.info);
  /* Best effort: < 0 only loses the refused call's name. */
  if (!(req->flags & SBX_RUN_NO_KMSG) && hooks->kmsg_open)
    kmsg = hooks->kmsg_open();
  if (approvals && !(approvals_state = approvals->open())) {
    rc = -ENOMEM;
    sbx_fail_set(&f, SBX_LAYER_SUPERVISOR, ENOMEM, "approvals: %s", strerror(ENOMEM));
    goto fail;
  }

  kmsg = sbx_above_stdio(kmsg);
  cg.join_fd = sbx_above_stdio(cg.join_fd);
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0 ||
      (sv[0] = sbx_above_stdio(sv[0])) < 0 || (sv[1] = sbx_above_stdio(sv[1])) < 0 ||
      setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0 ||
      pipe2(sync_pipe, O_CLOEXEC) < 0 || (sync_pipe[0] = sbx_above_stdio(sync_pipe[0])) < 0 ||
      (sync_pipe[1] = sbx_above_stdio(sync_pipe[1])) < 0) {
    rc = -errno;
    sbx_fail_set(&f, SBX_LAYER_SUPERVISOR, errno, "control channel: %s", strerror(errno));
    goto fail;
  }

  flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP;
  if (plan.net_blocked)
    flags |= CLONE_NEWNET; /* an empty network namespace: only a down loopback */
  else if (plan.net_proxied)
    /* A namespace of the run's own: the host's interfaces (its loopback
     * services included) and its abstract unix sockets are out of reach;
     * pid 1 brings loopback up for the proxy's listeners. */
    flags |= CLONE_NEWNET;
  if (plan.userns)
    flags |= CLONE_NEWUSER;
  fflush(NULL); /* nothing buffered may be written twice */
  t0 = sbx_now_ms();
  init = (pid_t)syscall(SYS_clone, (unsigned long)flags | SIGCHLD, NULL, NULL, NULL, 0);
  if (init < 0) {
    rc = -errno;
    sbx_fail_set(&f, plan.userns ? SBX_LAYER_USERNS : SBX_LAYER_NAMESPACES, errno,
                 "clone(%s%s): %s", plan.userns ? "user+" : "", "mount+pid+ipc+uts+cgroup",
                 strerror(errno));
    goto fail;
  }
  if (init == 0) {
    close(sv[0]);
    close(sync_pipe[1]);
    if (kmsg >= 0)
      close(kmsg);
    struct sbx_init_args ia = { .cmd = { .plan = &plan,
                                         .argv = req->argv,
                                         .envp = plan.envp,
                                         .flags = req->flags,
                                         .unotify = req->unotify,
                                         .approvals = approvals,
                                         .ruleset = -1,
                                         .ruleset_shared = -1 },
                                .ctl = sv[1],
                                .sync_rd = sync_pipe[0],
                                .cg_fd = cg.join_fd,
                                .go_note = -1 };
    sbx_init_run(&ia);
  }
  /* v1: init joins the cgroup itself (sbx_cgroup.c says why); otherwise,
   * or if its descriptor was lost, the supervisor moves it by pid. */
  init_joins = cg.join_fd >= 0;
  if (cg.join_fd >= 0) {
    close(cg.join_fd); /* init has its own; it joins by itself */
    cg.join_fd = -1;
  }
  close(sv[1]);
  sv[1] = -1;
  close(sync_pipe[0]);
  sync_pipe[0] = -1;

  if (plan.userns && (rc = sbx_userns_map(init, plan.uid, plan.gid)) < 0) {
    sbx_fail_set(&f, SBX_LAYER_USERNS, -rc, "writing uid/gid maps: %s", strerror(-rc));
    goto kill_init;
  }
  if (!init_joins && (rc = sbx_cgroup_attach(&cg, init)) < 0) {
    sbx_fail_set(&f, SBX_LAYER_CGROUP, -rc, "attaching pid %d to %s: %s", (int)init, cg.pids_dir,
                 strerror(-rc));
    goto kill_init;
  }
  /* The terminal approver freezes the whole run while it asks
   * (sbx_freeze.c): init is put in a freezable cgroup before it is
   * released, so everything it forks is inside. A run that cannot be
   * frozen still runs; its terminal questions are refused instead. */
  if (req->freeze) {
    char nofreeze[200];
    /* Without a terminal nobody can be asked on one: no cgroup to make
     * (moving init costs an RCU grace period on a hybrid machine). */
    int tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (tty < 0)
      snprintf(nofreeze, sizeof nofreeze, "no controlling terminal: %s", strerror(errno));
    else
      close(tty);
    if (tty >= 0 && sbx_cgroup_freezer(&cg, init, nofreeze, sizeof nofreeze) == 0)
      sbx_freeze_arm(req->freeze, cg.freeze_dir, NULL);
    else
      sbx_freeze_arm(req->freeze, NULL, nofreeze);
  }
  /* The admission slot now lasts as long as the sandbox (sbx_admit.h). */
  if (req->on_init && (rc = req->on_init(req->on_init_ctx, init)) != 0) {
    int error = rc < 0 ? -rc : EIO;
    rc = -error;
    sbx_fail_set(&f, SBX_LAYER_SUPERVISOR, error, "admission: tying the slot to pid %d: %s",
                 (int)init, strerror(error));
    goto kill_init;
  }
  if (write(sync_pipe[1], "g", 1) != 1) {
    rc = -errno;
    sbx_fail_set(&f, SBX_LAYER_SUPERVISOR, errno, "releasing init: %s", strerror(errno));
    goto kill_init;
  }
  close(sync_pipe[1]);
  sync_pipe[1] = -1;

  {
    struct sbx_sup sup = { .ctl = sv[0],
                           .init = init,
                           .init_pidfd = -1,
                           .server = -1,
                           .t0 = t0,
                           .tmax = tmax,
                           .plan = &plan,
                           .approvals = approvals_state,
                           .serve_listener = approvals ? approvals->serve_listener : NULL,
                           .helper_pids = approvals ? approvals->helper_pids : NULL,
                           .cgroup_dir = cg.mode != SBX_CGROUP_NONE ? cg.pids_dir : NULL };
    rc = hooks->supervise(&sup, req, res, kmsg);
    init = -1;
  }
  goto cleanup;

kill_init:
  if (init > 0) {
    kill(init, SIGKILL);
    while (waitpid(init, &st, 0) < 0 && errno == EINTR)
      ;
  }
fail:
  sbx_result_from_fail(res, &f);
cleanup:
  if (approvals_state)
    approvals->close(approvals_state);
  if (req->freeze)
    sbx_freeze_disarm(req->freeze);
  if (sv[0] >= 0)
    close(sv[0]);
  if (sv[1] >= 0)
    close(sv[1]);
  if (sync_pipe[0] >= 0)
    close(sync_pipe[0]);
  if (sync_pipe[1] >= 0)
    close(sync_pipe[1]);
  if (kmsg >= 0)
    close(kmsg);
  sbx_cgroup_destroy(&cg);
  if (have_plan)
    sbx_plan_free(&plan);
  if (restore_chld)
    sigaction(SIGCHLD, &old_chld, NULL);
  return rc;
}
