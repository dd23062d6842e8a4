/* sbx_unotify: the system-call layer of the approval workflow; see
 * sbx_unotify.h for the design and docs/approvals.md for the TOCTOU
 * argument. */
#include "sbx_diag.h"
#include "sbx_unotify.h"
#include "sbx_unotify_op.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <dirent.h>
#include <grp.h>
#include <unistd.h>

/* The compiled notify filter, built before the sandbox's process exists:
 * that process runs under the profile's rlimits (RLIMIT_AS) by the time
 * it loads the filter, so it must not need libseccomp's allocations (nor
 * a sanitizer's) then. Filled by sbx_unotify_prepare; fork copies it. */
static struct {
  uint32_t ops;
  unsigned short len;
  struct sock_filter insns[512];
} sbx_un_prog;

int sbx_unotify_prepare(uint32_t ops)
{
  static const char *const del[] = { "unlink", "unlinkat", "rmdir",
                                     "rename", "renameat", "renameat2" };
  scmp_filter_ctx c = NULL;
  int p[2] = { -1, -1 }, r = 0;
  ssize_t n;

  if (!(ops & SBX_UNOTIFY_OPS))
    return -EINVAL;
  c = seccomp_init(SCMP_ACT_ALLOW);
  if (!c)
    return -ENOMEM;
  if (ops & CS_APPROVE_FILE_DELETE)
    for (size_t i = 0; i < sizeof del / sizeof del[0] && r == 0; i++)
      r = seccomp_rule_add(c, SCMP_ACT_NOTIFY, seccomp_syscall_resolve_name(del[i]), 0);
  if ((ops & CS_APPROVE_EXTERNAL_NETWORK) && r == 0) {
    r = seccomp_rule_add(c, SCMP_ACT_NOTIFY, SCMP_SYS(connect), 0);
    /* sendto with a destination reaches an address without connect(). */
    if (r == 0) {
      const struct scmp_arg_cmp to = { .arg = 4, .op = SCMP_CMP_NE, .datum_a = 0, .datum_b = 0 };
      r = seccomp_rule_add_array(c, SCMP_ACT_NOTIFY, SCMP_SYS(sendto), 1, &to);
    }
    /* The destination of sendmsg/sendmmsg is inside a msghdr the filter
     * cannot read: every one is notified and performed by the supervisor
     * (sbx_unotify_msg.c). */
    if (r == 0)
      r = seccomp_rule_add(c, SCMP_ACT_NOTIFY, SCMP_SYS(sendmsg), 0);
    if (r == 0)
      r = seccomp_rule_add(c, SCMP_ACT_NOTIFY, SCMP_SYS(sendmmsg), 0);
    /* Inbound: where a socket listens is chosen at bind (and at listen
     * for a socket never bound): a non-loopback address is asked about
     * like an external connection (sbx_unotify_net.c). */
    if (r == 0)
      r = seccomp_rule_add(c, SCMP_ACT_NOTIFY, SCMP_SYS(bind), 0);
    if (r == 0)
      r = seccomp_rule_add(c, SCMP_ACT_NOTIFY, SCMP_SYS(listen), 0);
    /* Routing headers and source routes, whatever the profile says. */
    if (r == 0)
      r = sbx_un_net_rules(c);
  }
  /* io_uring performs unlinkat, renameat, openat, connect, send, bind and
   * listen without a system call of their own: no filter sees them. The
   * seed profiles refuse it already; this keeps the layer sound under a
   * profile that does not (ERRNO wins over NOTIFY and ALLOW). ENOSYS, as
   * the profiles answer: runtimes take it as "not here". */
  for (int i = 0; i < 3 && r == 0; i++) {
    static const char *const uring[] = { "io_uring_setup", "io_uring_enter", "io_uring_register" };
    r = seccomp_rule_add(c, SCMP_ACT_ERRNO(ENOSYS), seccomp_syscall_resolve_name(uring[i]), 0);
  }
  if ((ops & CS_APPROVE_GIT_CONFIG) && r == 0)
    r = sbx_unotify_open_rules(c);
  /* The handoff barrier (sbx_unotify_barrier): sendmmsg of no message,
   * which does nothing, is always notified. Under `network` every
   * sendmmsg already is (a second rule would clash). */
  if (!(ops & CS_APPROVE_EXTERNAL_NETWORK) && r == 0) {
    const struct scmp_arg_cmp none = { .arg = 2, .op = SCMP_CMP_EQ, .datum_a = 0, .datum_b = 0 };
    r = seccomp_rule_add_array(c, SCMP_ACT_NOTIFY, SCMP_SYS(sendmmsg), 1, &none);
  }
  if (r != 0)
    goto cleanup;
  /* Exported and loaded by hand: we need the listener the kernel returns
   * for SECCOMP_FILTER_FLAG_NEW_LISTENER, and libseccomp would keep its
   * own copy of it in this process. */
  if (pipe2(p, O_CLOEXEC) < 0) {
    r = -errno;
    goto cleanup;
  }
  r = seccomp_export_bpf(c, p[1]);
  close(p[1]);
  p[1] = -1;
  if (r != 0)
    goto cleanup;
  n = read(p[0], sbx_un_prog.insns, sizeof sbx_un_prog.insns);
  if (n <= 0 || n % (ssize_t)sizeof sbx_un_prog.insns[0] != 0) {
    r = -EIO;
    goto cleanup;
  }
  sbx_un_prog.len = (unsigned short)(n / (ssize_t)sizeof sbx_un_prog.insns[0]);
  sbx_un_prog.ops = ops;
cleanup:
  if (p[0] >= 0)
    close(p[0]);
  if (p[1] >= 0)
    close(p[1]);
  seccomp_release(c);
  return r;
}

int sbx_unotify_install(uint32_t ops)
{
  struct sock_fprog prog;
  int r;

  if (!(ops & SBX_UNOTIFY_OPS))
    return -EINVAL;
  if (sbx_un_prog.ops != ops || !sbx_un_prog.len) {
    r = sbx_unotify_prepare(ops);
    if (r != 0)
      return r;
  }
  prog.len = sbx_un_prog.len;
  prog.filter = sbx_un_prog.insns;
  r = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
  if (r < 0)
    r = errno == EINVAL ? -ENOSYS : -errno;
  return r;
}

void sbx_unotify_barrier(void)
{
  (void)syscall(SYS_sendmmsg, -1, NULL, 0, 0);
}

int sbx_unotify_pull(pid_t pid)
{
  char dir[64], what[64];
  int pfd, fd = -ENOENT;
  DIR *d;
  struct dirent *de;

  snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
  pfd = (int)syscall(SYS_pidfd_open, pid, 0);
  if (pfd < 0)
    return -errno;
  d = opendir(dir);
  if (!d) {
    fd = -errno;
    goto done;
  }
  /* The child holds exactly one listener: the one it just created (a
   * process holding its own listener is what the barrier ends). */
  while ((de = readdir(d))) {
    ssize_t n;
    if (de->d_name[0] == '.')
      continue;
    n = readlinkat(dirfd(d), de->d_name, what, sizeof what - 1);
    if (n <= 0)
      continue;
    what[n] = '\0';
    if (strcmp(what, "anon_inode:seccomp notify") != 0)
      continue;
    fd = (int)syscall(SYS_pidfd_getfd, pfd, atoi(de->d_name), 0);
    if (fd < 0)
      fd = -errno;
    break;
  }
  closedir(d);
done:
  close(pfd);
  return fd;
}

static bool sbx_un_valid(int listener, uint64_t id)
{
  return ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* git's own temporaries and lock files inside a .git directory: the
 * object it is writing (tmp_obj_*, tmp_pack_*, tmp_idx_*) and X.lock,
 * which git removes on failure or renames over X (its atomic update of
 * refs, the index, HEAD). Neither removes anything of the user's: a
 * rename X.lock -> X overwrites X's contents, which writing X directly
 * (allowed in the writable workspace) does as well. Without this a
 * `git commit` under a profile that approves `delete` would ask for
 * every ref update. The names are our copies: what is checked is what
 * is acted on. */
static bool sbx_un_git_bookkeeping(const struct sbx_un_op *op, const char *shown,
                                   const char *shown2)
{
  const char *b0 = strrchr(op->path[0], '/'), *b1;
  size_t l0, l1;

  b0 = b0 ? b0 + 1 : op->path[0];
  l0 = strlen(b0);
  if (!strstr(op->kind == SBX_UN_RENAME ? shown2 : shown, "/.git/"))
    return false;
  if (op->kind == SBX_UN_UNLINK)
    return !(op->flags & AT_REMOVEDIR) &&
           (strncmp(b0, "tmp_", 4) == 0 || (l0 > 5 && strcmp(b0 + l0 - 5, ".lock") == 0));
  b1 = strrchr(op->path[1], '/');
  b1 = b1 ? b1 + 1 : op->path[1];
  l1 = strlen(b1);
  /* Same directory (the same one resolved for both names: sbx_un_resolve
   * left bare names), name X.lock over X. */
  struct stat s0, s1;
  return b0 == op->path[0] && b1 == op->path[1] && fstat(op->fd[0], &s0) == 0 &&
         fstat(op->fd[1], &s1) == 0 && s0.st_dev == s1.st_dev && s0.st_ino == s1.st_ino &&
         l0 == l1 + 5 && strncmp(b0, b1, l1) == 0 && strcmp(b0 + l1, ".lock") == 0;
}

/* A pseudo-ref in the git directory itself (ORIG_HEAD, MERGE_HEAD,
 * AUTO_MERGE, CHERRY_PICK_HEAD, ...: upper case and '_'), which git
 * removes when an operation ends; HEAD itself is not one of them. Like a
 * loose ref it names a commit the object store keeps. */
static bool sbx_un_git_pseudo_ref(const char *shown)
{
  const char *g = NULL, *p = shown, *name;
  while ((p = strstr(p, "/.git/")))
    g = p++;
  if (!g)
    return false;
  name = g + strlen("/.git/");
  if (!name[0] || strcmp(name, "HEAD") == 0)
    return false;
  for (p = name; *p; p++)
    if (!((*p >= 'A' && *p <= 'Z') || *p == '_'))
      return false;
  return true;
}

/* Returns 1 when the call was already answered (ADDFD + SEND). A
 * write-open comes classified (o, g) by the serve loop. */
static int sbx_un_handle(int listener, const struct seccomp_notif *n,
                         const struct sbx_unotify_cfg *cfg, struct sbx_un_charge *charge,
                         struct sbx_un_open *o, const struct sbx_unotify_gitfile *g,
                         struct seccomp_notif_resp *resp)
{
  struct sbx_un_op *op;
  struct cs_approval_request req;
  struct cs_approval_decision d;
  char shown[4200] = "", shown2[4200] = "", addr[160] = "", rule[96], root[64];
  char what[8500];
  bool ask = true;
  pid_t tgid = 0;
  long result = -EPERM;
  int rootfd = -1, r;

  if (sbx_un_is_open(n->data.nr))
    return sbx_un_open_handle(listener, n, cfg, o, g, resp);
  op = calloc(1, sizeof *op);
  resp->id = n->id;
  resp->flags = 0; /* never SECCOMP_USER_NOTIF_FLAG_CONTINUE: see sbx_unotify.h */
  resp->val = 0;
  resp->error = -EPERM;
  if (!op) {
    resp->error = -ENOMEM;
    return 0;
  }
  op->fd[0] = op->fd[1] = op->sock = op->userns = op->mntns = -1;
  op->charge = charge;
  r = sbx_un_collect(n, op, &tgid);
  if (r != 0) {
    resp->error = r;
    goto cleanup;
  }
  snprintf(root, sizeof root, "/proc/%d/root", (int)n->pid);
  rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
  /* The task may have exited and its pid been reused between the
   * notification and our /proc opens: only a still-valid id proves the
   * handles we took belong to the caller. */
  if (rootfd < 0 || !sbx_un_valid(listener, n->id)) {
    resp->error = -ESRCH;
    goto cleanup;
  }
  memset(&req, 0, sizeof req);
  req.argv = (const char *const *)cfg->argv;
  req.profile = cfg->profile;
  req.layer = "syscall";
  {
    /* libseccomp returns a copy the caller frees. */
    char *nm = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, op->nr);
    snprintf(rule, sizeof rule, "%s(2) (system-call layer)", nm ? nm : "?");
    free(nm);
  }
  req.rule = rule;
  req.workspace = cfg->workspace;
  req.cwd = cfg->cwd;
  req.run_id = cfg->run_id;
  if (op->kind == SBX_UN_UNLINK || op->kind == SBX_UN_RENAME) {
    int failed = 0, exempt = 0;
    req.operation = CS_APPROVAL_OP_DELETE;
    /* An empty name removes nothing: the kernel answers ENOENT (unlink,
     * unlinkat and rmdir take no AT_EMPTY_PATH), so does this layer,
     * unasked (git unlinks the empty name of a temporary file it failed
     * to make; asked, it showed as "delete <cwd>/"). */
    if (op->kind == SBX_UN_UNLINK && !op->path[0][0]) {
      resp->error = -ENOENT;
      goto cleanup;
    }
    /* What is shown must be what is done: the directories are resolved
     * once, as the caller would, and the call then acts on exactly those
     * (`build/././.../../src/important.c` is shown, and deleted, as
     * src/important.c in its real directory). A directory the caller's
     * own call could not resolve fails it with that errno, unasked. The
     * same helper probes an unlink's entry (sbx_un_resolve): on the
     * private /tmp, or born in this run, it loses nothing that was there
     * before the run and is removed there, unasked. */
    r = sbx_un_resolve(op, rootfd, cfg,
                       op->kind == SBX_UN_UNLINK && (cfg->private_tmp || cfg->run_start_set),
                       &failed, &exempt, &result);
    if (r != 0 || failed) {
      resp->error = r != 0 ? r : -failed;
      goto cleanup;
    }
    if (exempt)
      goto reply;
    sbx_un_display(op->fd[0], op->path[0], shown, sizeof shown);
    req.path = shown;
    if (op->kind == SBX_UN_RENAME) {
      sbx_un_display(op->fd[1], op->path[1], shown2, sizeof shown2);
      req.path = shown2; /* what would be replaced */
      /* A rename that replaces nothing deletes nothing. One that replaces
       * is a write (docs/approvals.md, "What counts as a deletion"): the
       * kernel lets it replace only a non-directory, whose contents a
       * write could destroy as well (`> file`), or an empty directory,
       * and the name is there afterwards. So when the run's start is
       * known it is never asked; the mounts and Landlock, which the
       * helper acts under, decide whether it may happen at all (a
       * read-only or denied place, another mount: EROFS, EACCES, EXDEV,
       * EBUSY). The helper performs it under the directories' locks
       * (sbx_un_lock_dir). Without the start (an embedder, the test knob)
       * as before: tried with RENAME_NOREPLACE first, asked only when
       * the target exists (or the file system cannot tell us). Exchanges
       * delete nothing. */
      if (cfg->run_start_set || (op->flags & RENAME_EXCHANGE)) {
        ask = false;
      } else if (!(op->flags & RENAME_NOREPLACE)) {
        r = sbx_un_perform(op, rootfd, cfg, op->flags | RENAME_NOREPLACE, &result);
        if (r != 0) {
          resp->error = r;
          goto cleanup;
        }
        if (result != -EEXIST && result != -EINVAL)
          goto reply;
      } else {
        ask = false;
      }
    }
  } else if (op->kind == SBX_UN_SENDMSG) {
    /* Each external destination of the batch is asked about (a repeated
     * one once); no destination means the socket's connected peer, which
     * connect() was asked about. Any deny refuses the whole call. */
    req.operation = CS_APPROVAL_OP_NETWORK;
    ask = false;
    int dom = sbx_un_sock_domain(op->sock);
    for (unsigned i = 0; i < op->nmsgs; i++) {
      const struct sbx_un_msg *m = &op->msgs[i];
      bool seen = false;
      /* Not a socket (dom < 0): the send fails in the kernel, reaching
       * nothing. */
      if (!m->namelen || dom < 0 || (cfg->preapproved & CS_APPROVE_EXTERNAL_NETWORK) ||
          sbx_un_reach_local(dom, &m->name, m->namelen, false, addr, sizeof addr))
        continue;
      for (unsigned j = 0; j < i && !seen; j++)
        seen = op->msgs[j].namelen == m->namelen &&
               memcmp(&op->msgs[j].name, &m->name, m->namelen) == 0;
      if (seen)
        continue;
      req.address = addr;
      if ((r = sbx_un_ask(listener, n, cfg, &req, &d)) != 0) {
        if (r == -ESRCH) {
          resp->error = -ESRCH;
          goto cleanup;
        }
        fprintf(sbx_diag(), "sbx: approval: denied send to %s (%s, profile %s): %s [%s]\n", addr,
                rule, cfg->profile ? cfg->profile : "?", d.reason, d.approver);
        resp->error = -EPERM;
        goto cleanup;
      }
    }
    if (!sbx_un_valid(listener, n->id)) {
      resp->error = -ESRCH;
      goto cleanup;
    }
  } else if (op->kind == SBX_UN_LISTEN) {
    /* Connections from other hosts: the same decision as reaching them. */
    req.operation = CS_APPROVAL_OP_NETWORK;
    ask = !sbx_un_listen_local(op->sock, addr, sizeof addr);
    req.address = addr;
  } else {
    int dom = sbx_un_sock_domain(op->sock);
    req.operation = CS_APPROVAL_OP_NETWORK;
    /* By the socket's real family, failing closed (sbx_unotify_net.c);
     * no address (sendto with length 0) is the connected peer, and a
     * descriptor that is no socket reaches nothing. */
    ask = op->addrlen && dom >= 0 &&
          !sbx_un_reach_local(dom, &op->addr, op->addrlen, op->kind == SBX_UN_BIND, addr,
                              sizeof addr);
    if (ask && op->kind == SBX_UN_BIND && sbx_un_bind_ephemeral_dgram(op->sock, dom, &op->addr))
      ask = false;
    req.address = addr;
  }
  if (ask && req.operation == CS_APPROVAL_OP_DELETE && sbx_un_git_bookkeeping(op, shown, shown2))
    ask = false;
  /* A loose ref or reflog (git stash pop, git branch -d): removing it
   * loses a name, not a commit, which stays in the object store until
   * git gc prunes it; a ref kept in packed-refs is removed by rewriting
   * that file (lock and rename), which was never asked. Asking for the
   * loose form only made the question depend on how git stored the ref.
   * With the run's start unknown (the test knob), asked as before. */
  if (ask && cfg->run_start_set && op->kind == SBX_UN_UNLINK && !(op->flags & AT_REMOVEDIR) &&
      (strstr(shown, "/.git/refs/") || strstr(shown, "/.git/logs/") ||
       sbx_un_git_pseudo_ref(shown)))
    ask = false;
  if (ask &&
      (cfg->preapproved & (req.operation == CS_APPROVAL_OP_DELETE ? CS_APPROVE_FILE_DELETE
                                                                  : CS_APPROVE_EXTERNAL_NETWORK)))
    ask = false;
  if (ask) {
    r = sbx_un_ask(listener, n, cfg, &req, &d);
    if (r == -ESRCH) {
      resp->error = -ESRCH;
      goto cleanup;
    }
    if (r != 0) {
      /* The path is the sandbox's choice and this goes to the terminal:
       * escaped like the prompt's fields. */
      char esc[8192];
      cs_approval_escape(req.path ? req.path : addr, esc, sizeof esc);
      snprintf(what, sizeof what, "%s %s",
               req.operation == CS_APPROVAL_OP_DELETE ? "delete"
               : op->kind == SBX_UN_BIND              ? "listen on (bind)"
               : op->kind == SBX_UN_LISTEN            ? "listen on"
                                                      : "connect to",
               esc);
      fprintf(sbx_diag(), "sbx: approval: denied %s (%s, profile %s): %s [%s]\n", what, rule,
              cfg->profile ? cfg->profile : "?", d.reason, d.approver);
      resp->error = -EPERM;
      goto cleanup;
    }
    /* The approval took time; the caller may be gone. */
    if (!sbx_un_valid(listener, n->id)) {
      resp->error = -ESRCH;
      goto cleanup;
    }
  }
  if (op->kind == SBX_UN_SENDMSG && sbx_un_msg_direct(op)) {
    result = sbx_un_msg_send(op); /* why no helper: sbx_un_msg_direct */
  } else {
    r = sbx_un_perform(op, rootfd, cfg, -1, &result);
    if (r != 0) {
      resp->error = r;
      goto cleanup;
    }
  }
  /* sendmmsg reports each message's length in the caller's array. */
  if (op->kind == SBX_UN_SENDMSG && op->mmsg && result > 0 &&
      sbx_un_msg_writeback(op, (pid_t)n->pid, result) != 0)
    result = -EFAULT;
reply:
  if (result < 0) {
    resp->error = (int)result;
  } else {
    resp->error = 0;
    resp->val = result;
  }
cleanup:
  if (rootfd >= 0)
    close(rootfd);
  sbx_un_op_free(op);
  free(op);
  return 0;
}

/* Notifications are handled by worker threads, so a call that needs no
 * person (loopback, /tmp, a call of an approved command) is not held up
 * behind one waiting for an answer. Requests to the approver itself are
 * still one at a time (the manager's lock). */
#define SBX_UN_MAX_WORKERS 16

struct sbx_un_pool {
  pthread_mutex_t lock;
  pthread_cond_t idle;
  unsigned active;
  int listener;
  const struct sbx_unotify_cfg *cfg;
  struct seccomp_notif_sizes sz;
  struct sbx_un_charge *charge; /* the run's account (sbx_unotify_charge.c) */
};

struct sbx_un_job {
  struct sbx_un_pool *pool;
  struct seccomp_notif *n;
  struct sbx_un_open *open;              /* a write-open's copied arguments */
  const struct sbx_unotify_gitfile *git; /* and the guarded file it reaches */
};

/* Handles one notification and answers it. ENOENT from SEND: the caller
 * died or was interrupted meanwhile; nothing to do. */
static void sbx_un_answer(int listener, const struct seccomp_notif *n,
                          const struct sbx_unotify_cfg *cfg, struct sbx_un_charge *charge,
                          struct sbx_un_open *o, const struct sbx_unotify_gitfile *g,
                          size_t resp_size)
{
  struct seccomp_notif_resp *resp = calloc(1, resp_size);
  uint64_t t0 = sbx_un_thread_ns();
  if (!resp) {
    free(o);
    return; /* the caller stays blocked until it is killed with the sandbox */
  }
  /* The run's budget of supervisor CPU is spent: refused, nothing more
   * is done for it (fail closed; sbx_unotify_charge.c). */
  if (sbx_un_charge_spent(charge, cfg)) {
    free(o);
    resp->id = n->id;
    resp->error = -EPERM;
    (void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, resp);
  } else if (sbx_un_handle(listener, n, cfg, charge, o, g, resp) == 0) {
    (void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, resp);
  }
  free(resp);
  /* This thread's share (the copying, the fork's page tables); the
   * helper's own CPU was added at its wait4. */
  sbx_un_charge_add(charge, sbx_un_thread_ns() - t0);
}

static void *sbx_un_worker(void *arg)
{
  struct sbx_un_job *job = arg;
  struct sbx_un_pool *pool = job->pool;
  size_t rs = pool->sz.seccomp_notif_resp > sizeof(struct seccomp_notif_resp)
                  ? pool->sz.seccomp_notif_resp
                  : sizeof(struct seccomp_notif_resp);

  sbx_un_answer(pool->listener, job->n, pool->cfg, pool->charge, job->open, job->git, rs);
  free(job->n);
  free(job);
  pthread_mutex_lock(&pool->lock);
  pool->active--;
  pthread_cond_broadcast(&pool->idle);
  pthread_mutex_unlock(&pool->lock);
  return NULL;
}

int sbx_unotify_serve(int listener, const struct sbx_unotify_cfg *cfg, int stop_fd)
{
  struct sbx_un_pool pool;
  size_t nsize, rsize;
  int r = 0;

  if (listener < 0 || !cfg || !cfg->mgr)
    return -EINVAL;
  memset(&pool, 0, sizeof pool);
  if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &pool.sz) != 0)
    return -errno;
  /* The kernel's structures may be larger than our headers'. */
  nsize = pool.sz.seccomp_notif > sizeof(struct seccomp_notif) ? pool.sz.seccomp_notif
                                                               : sizeof(struct seccomp_notif);
  rsize = pool.sz.seccomp_notif_resp > sizeof(struct seccomp_notif_resp)
              ? pool.sz.seccomp_notif_resp
              : sizeof(struct seccomp_notif_resp);
  pool.listener = listener;
  pool.cfg = cfg;
  if ((r = sbx_un_charge_open(&pool.charge, cfg)) != 0)
    return r;
  if (pthread_mutex_init(&pool.lock, NULL) != 0) {
    sbx_un_charge_close(pool.charge);
    return -ENOMEM;
  }
  if (pthread_cond_init(&pool.idle, NULL) != 0) {
    pthread_mutex_destroy(&pool.lock);
    sbx_un_charge_close(pool.charge);
    return -ENOMEM;
  }
  for (;;) {
    struct pollfd p[2] = { { .fd = listener, .events = POLLIN },
                           { .fd = stop_fd, .events = POLLIN } };
    struct sbx_un_job *job = NULL;
    struct sbx_un_open *o = NULL;
    const struct sbx_unotify_gitfile *g = NULL;
    struct seccomp_notif *n;
    pthread_t t;
    pthread_attr_t attr;
    uint64_t t0;
    int k = poll(p, stop_fd >= 0 ? 2 : 1, -1);
    if (k < 0 && errno == EINTR)
      continue;
    if (k < 0) {
      r = -errno;
      break;
    }
    if (stop_fd >= 0 && p[1].revents)
      break;
    if (!(p[0].revents & POLLIN)) {
      if (p[0].revents & (POLLHUP | POLLERR | POLLNVAL))
        break; /* every process of the filter is gone */
      continue;
    }
    /* This loop's own work is the run's too (sbx_unotify_charge.c). */
    t0 = sbx_un_thread_ns();
    n = calloc(1, nsize);
    if (!n) {
      r = -ENOMEM;
      break;
    }
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, n) != 0) {
      int e = errno;
      free(n);
      if (e == EINTR || e == ENOENT)
        continue;
      r = -e;
      break;
    }
    /* The handoff barrier, and any sendmmsg of no message: nothing to
     * send, answered 0 here. */
    if (n->data.nr == SYS_sendmmsg && n->data.args[2] == 0) {
      struct seccomp_notif_resp *resp = calloc(1, rsize);
      if (resp) {
        resp->id = n->id;
        (void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, resp);
        free(resp);
        free(n);
        continue;
      }
    }
    /* A write-open that is not git configuration (nearly all of them) is
     * answered here, without a thread: classifying it never blocks. */
    if (sbx_un_is_open(n->data.nr) && !sbx_un_charge_spent(pool.charge, cfg)) {
      sbx_un_open_classify(n, cfg, &o, &g);
      sbx_un_charge_add(pool.charge, sbx_un_thread_ns() - t0);
      if (!g) {
        struct seccomp_notif_resp *resp = calloc(1, rsize);
        if (resp) {
          resp->id = n->id;
          resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE; /* why: sbx_unotify_open.c */
          (void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, resp);
          free(resp);
          free(n);
          continue;
        }
      }
    }
    pthread_mutex_lock(&pool.lock);
    while (pool.active >= SBX_UN_MAX_WORKERS)
      pthread_cond_wait(&pool.idle, &pool.lock);
    pool.active++;
    pthread_mutex_unlock(&pool.lock);
    job = malloc(sizeof *job);
    if (job) {
      job->pool = &pool;
      job->n = n;
      job->open = o;
      job->git = g;
    }
    if (job && pthread_attr_init(&attr) == 0) {
      pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
      k = pthread_create(&t, &attr, sbx_un_worker, job);
      pthread_attr_destroy(&attr);
      if (k == 0)
        continue;
    }
    /* No thread: answer here (slower, never skipped). */
    free(job);
    sbx_un_answer(listener, n, cfg, pool.charge, o, g, rsize);
    free(n);
    pthread_mutex_lock(&pool.lock);
    pool.active--;
    pthread_mutex_unlock(&pool.lock);
  }
  /* Workers use the pool and the configuration: wait for every one. Each
   * ends within the approval timeout. */
  pthread_mutex_lock(&pool.lock);
  while (pool.active > 0)
    pthread_cond_wait(&pool.idle, &pool.lock);
  pthread_mutex_unlock(&pool.lock);
  pthread_cond_destroy(&pool.idle);
  pthread_mutex_destroy(&pool.lock);
  sbx_un_charge_close(pool.charge);
  return r;
}
