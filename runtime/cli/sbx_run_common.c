/* sbx_run_common: see sbx_run_common.h. */
#include "sbx_run_common.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sbx_plan.h"
#include "sbx_admit.h"
#include "sbx_denial.h"
#include "sbx_diag.h"
#include "sbx_sandbox.h"
#include "sbx_signal.h"
#include "sbx_warm.h"

/* A closed 0, 1 or 2 would be taken by the next open(): the audit log or
 * the admission state would then receive our messages (or the command's
 * output). They are pointed at /dev/null first; if even that fails sbx
 * stops, since it could not promise where anything goes. */
int sbx_std_fds(void)
{
  for (int fd = 0; fd <= 2; fd++) {
    if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
      continue;
    int nfd = open("/dev/null", O_RDWR);
    if (nfd != fd) {
      if (nfd >= 0)
        close(nfd);
      return -1;
    }
  }
  return 0;
}

/* The warm-start socket of this user: $SBX_STATE_DIR/serve-UID/serve.sock.
 * A directory per uid, mode 0700, because the state directory itself may
 * be shared by every user of the admission scheduler. */
int sbx_run_serve_socket(char *buf, size_t size, char *dir, size_t dir_size)
{
  char state[PATH_MAX];
  if (sbx_admit_state_dir(state, sizeof(state)) != 0)
    return -ENOENT;
  if ((size_t)snprintf(dir, dir_size, "%s/serve-%u", state, (unsigned)geteuid()) >= dir_size ||
      (size_t)snprintf(buf, size, "%s/" SBX_WARM_SOCKET_NAME, dir) >= size)
    return -ENAMETOOLONG;
  return 0;
}

int sbx_run_cwd(const char *given, const char *workspace, char *out, size_t size, FILE *err)
{
  char joined[PATH_MAX], here[PATH_MAX];
  char *real = NULL;
  struct stat st;
  int r = 0;

  if (!given) {
    /* The caller's directory counts only when it resolves inside the
     * workspace; anywhere else (or unreadable) the run starts at the root
     * of the workspace, never outside it. */
    real = getcwd(here, sizeof here) ? realpath(here, NULL) : NULL;
    if (!real || !sbx_path_under(real, workspace))
      given = ".";
    else
      goto copy;
    free(real);
    real = NULL;
  }
  if ((size_t)snprintf(joined, sizeof joined, "%s%s%s", given[0] == '/' ? "" : workspace,
                       given[0] == '/' ? "" : "/", given) >= sizeof joined) {
    fprintf(err, "sbx: error: --cwd %s: path too long\n", given);
    return -ENAMETOOLONG;
  }
  /* Resolved, so that a symlink inside the workspace pointing out of it
   * is judged by where it leads. */
  if (!(real = realpath(joined, NULL))) {
    r = -errno;
    fprintf(err, "sbx: error: --cwd %s: %s\n", given, strerror(-r));
    return r;
  }
  if (!sbx_path_under(real, workspace)) {
    fprintf(err, "sbx: error: --cwd %s: resolves to %s, outside the workspace %s\n", given, real,
            workspace);
    r = -EACCES;
    goto cleanup;
  }
  if (stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
    fprintf(err, "sbx: error: --cwd %s: not a directory\n", given);
    r = -ENOTDIR;
    goto cleanup;
  }
copy:
  if ((size_t)snprintf(out, size, "%s", real) >= size) {
    fprintf(err, "sbx: error: working directory %s: path too long\n", real);
    r = -ENAMETOOLONG;
  }
cleanup:
  free(real);
  return r;
}

int sbx_run_workspace(const char *given, char *out, size_t size, FILE *err)
{
  char cwd[PATH_MAX];
  char *real = NULL;
  struct stat st;
  int r = 0;

  if (!given) {
    if (!getcwd(cwd, sizeof(cwd))) {
      r = -errno;
      fprintf(err, "sbx: error: workspace: cannot read the current directory: %s\n", strerror(-r));
      return r;
    }
    given = cwd;
  }
  /* Resolved once here, so the audit record names the directory the
   * sandbox really gets, not a symlink that may change afterwards. */
  real = realpath(given, NULL);
  if (!real) {
    r = -errno;
    fprintf(err, "sbx: error: workspace %s: %s\n", given, strerror(-r));
    goto cleanup;
  }
  if (stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
    fprintf(err, "sbx: error: workspace %s: not a directory\n", given);
    r = -ENOTDIR;
    goto cleanup;
  }
  if ((size_t)snprintf(out, size, "%s", real) >= size) {
    fprintf(err, "sbx: error: workspace %s: path too long\n", given);
    r = -ENAMETOOLONG;
  }
cleanup:
  free(real);
  return r;
}

int sbx_run_confined(struct sbx_run_request *req, struct sbx_run_result *res,
                     int (*confine)(const struct sbx_run_request *, struct sbx_run_result *))
{
  struct sbx_run_lost before;
  int r;
  sbx_run_lost_before(req->workspace, &before);
  req->interrupted = sbx_signal_received;
  /* The ticket is then completed and the run recorded. */
  if (sbx_signal_install() != 0)
    fprintf(sbx_diag(), "sbx: warning: signal handlers not installed; an interrupted run "
                        "leaves no record\n");
  sbx_signal_running(1);
  r = confine(req, res);
  sbx_signal_running(0);
  /* A worktree that exists only in the discarded /tmp fails the run, even
   * when git said it succeeded (issue 13): never exit 0 with nothing on
   * the host. */
  if (sbx_run_lost_worktrees(req->workspace, &before, sbx_diag()) > 0 && r == 0 &&
      res->outcome == SBX_OUTCOME_EXITED && res->exit_code == 0)
    res->exit_code = SBX_EXIT_FAILURE;
  return r;
}

int sbx_diag_open(int fd)
{
  int flags = fcntl(fd, F_GETFL), dup_fd;
  FILE *f;
  if (flags < 0) {
    fprintf(stderr, "sbx: error: --diag-fd %d: not an open descriptor\n", fd);
    return -EBADF;
  }
  if ((flags & O_ACCMODE) == O_RDONLY) {
    fprintf(stderr, "sbx: error: --diag-fd %d: not open for writing\n", fd);
    return -EACCES;
  }
  /* A duplicate above 2, close-on-exec: sbx's messages never reach the
   * command, whatever descriptors the command is given. */
  if ((dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0 || !(f = fdopen(dup_fd, "w"))) {
    int err = errno;
    if (dup_fd >= 0)
      close(dup_fd);
    fprintf(stderr, "sbx: error: --diag-fd %d: %s\n", fd, strerror(err));
    return -err;
  }
  /* Line-buffered like a terminal's stderr: each message is whole when
   * the caller reads it, even while the run goes on. */
  setvbuf(f, NULL, _IOLBF, 0);
  sbx_diag_set(f);
  return 0;
}

int sbx_run_report(const struct sbx_opts *o, int r, const struct sbx_run_result *res,
                   char *interrupted, size_t interrupted_size)
{
  int code = r != 0 ? SBX_EXIT_FAILURE : res->exit_code;

  interrupted[0] = '\0';
  if (o->verbose)
    fprintf(sbx_diag(), "sbx: start-up: %s%s%s%s\n", res->start_path[0] ? res->start_path : "?",
            res->start_note[0] ? " (" : "", res->start_note, res->start_note[0] ? ")" : "");
  if (sbx_signal_received()) {
    int sig = sbx_signal_received();
    snprintf(interrupted, interrupted_size, "interrupted by SIG%s; the sandbox was killed",
             sbx_signal_name(sig));
    fprintf(sbx_diag(), "sbx: %s\n", interrupted);
    code = SBX_EXIT_SIGNAL_BASE + sig;
  } else if (r != 0 || res->outcome == SBX_OUTCOME_FAILED) {
    fprintf(sbx_diag(), "sbx: error: %s\n", res->message[0] ? res->message : strerror(-r));
  } else if (res->outcome == SBX_OUTCOME_EXEC_FAILED && res->message[0]) {
    /* The Landlock refusal behind it gets its own line below. */
    const char *ll = res->n_ll_denials ? strstr(res->message, "; landlock: refused ") : NULL;
    fprintf(sbx_diag(), "sbx: %.*s\n", ll ? (int)(ll - res->message) : (int)strlen(res->message),
            res->message);
  } else if (res->outcome == SBX_OUTCOME_TIMED_OUT) {
    fprintf(sbx_diag(), "sbx: %s: time limit of %llu ms reached; the command was killed\n",
            o->cmd_argv[0], (unsigned long long)res->timeout_ms);
  }
  /* Every refusal of the run's processes with the rule that decided it;
   * an expected fallback (clone3's, io_uring's ENOSYS) is not a refusal
   * and is never reported. */
  for (int i = 0; i < res->n_sc_denials; i++)
    if (!res->sc_denials[i].expected)
      fprintf(sbx_diag(), "sbx: seccomp %s %s: rule %s (%s)\n",
              res->sc_denials[i].sig ? "killed at" : "refused", res->sc_denials[i].what,
              res->sc_denials[i].rule, res->sc_denials[i].action);
  for (int i = 0; i < res->n_ll_denials; i++)
    fprintf(sbx_diag(), "sbx: landlock refused %s: %s (%s)\n", res->ll_denials[i].what,
            res->ll_denials[i].rule, res->ll_denials[i].action);
  if (res->ll_denied_count > res->n_ll_denials)
    fprintf(sbx_diag(), "sbx: landlock refused %d more time(s) in this run\n",
            res->ll_denied_count - res->n_ll_denials);
  /* A failed command may have met a Landlock refusal sbx cannot see. A
   * command that exits non-zero on its own (grep finding nothing) has met
   * nothing: the note goes to stderr only with -v, or when the command was
   * killed (something actually ended it), never on success and never when
   * a refusal already explains the failure. */
  if ((o->verbose || res->outcome == SBX_OUTCOME_SIGNALED) && !res->n_ll_denials &&
      res->denied_syscall < 0 && res->ll_naming != SBX_NAMING_OK &&
      res->ll_naming != SBX_NAMING_NOT_ASKED && r == 0 && res->exit_code != 0 &&
      (res->outcome == SBX_OUTCOME_EXITED || res->outcome == SBX_OUTCOME_SIGNALED))
    fprintf(sbx_diag(),
            "sbx: note: refusals by Landlock, if any, could not be named: %s "
            "(see sbx check)\n",
            sbx_naming_text(res->ll_naming));
  else if (res->audit_lost && res->exit_code != 0 &&
           (o->verbose || res->outcome == SBX_OUTCOME_SIGNALED || res->denied_syscall >= 0 ||
            res->n_ll_denials))
    fprintf(sbx_diag(), "sbx: note: the kernel dropped audit records during the run; a refusal "
                        "may be unnamed\n");
  return code;
}
