/* sbx_sandbox: the processes of a sandbox and what they share with the
 * supervisor: pid 1 and the command's steps (sbx_sandbox.c), the control
 * socket's messages, the start of every run and its process plumbing
 * (sbx_run_start.c). */
#ifndef CS_RUNTIME_SBX_SANDBOX_H
#define CS_RUNTIME_SBX_SANDBOX_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sbx_fail.h"
#include "sbx_hooks.h"
#include "sbx_plan.h"

/* If SIGCHLD is ignored (children reaped by the kernel, waitpid blind),
 * sets it to the default and returns true; *saved then holds the caller's
 * disposition to restore. */
struct sigaction;
bool sbx_sigchld_default(struct sigaction *saved);

/* What the command's process needs (sbx_sandbox.c). */
struct sbx_cmd {
  const struct sbx_plan *plan; /* profile, Landlock ABI; cold: the rules */
  char *const *argv;
  char *const *envp;
  uint32_t flags; /* enum sbx_run_flags */
  const struct sbx_unotify_cfg *unotify;
  /* With unotify: the layer's hand-off (sbx_hooks.h); NULL otherwise. */
  const struct sbx_approval_hooks *approvals;
  int ruleset;        /* warm: the spare's built Landlock ruleset; -1 cold */
  int ruleset_shared; /* warm, no-shell: the template's shared layer; else -1 */
  bool bound_dropped; /* warm: sbx_caps_drop_bound done before the request */
};

/* pid 1 of a sandbox. */
struct sbx_init_args {
  struct sbx_cmd cmd;
  int ctl;                          /* control socket to the supervisor */
  int sync_rd;                      /* 'g' from the supervisor (maps written, cgroup attached) */
  int cg_fd;                        /* v1 cgroup tasks file to join, or -1 */
  bool view_ready;                  /* warm spare: the view is in place (else built here) */
  const struct sbx_fail *prep_fail; /* warm spare: its preparation failed; NULL cold */
  pid_t child; /* warm: the pre-forked command (pid in the run's namespace), or 0 */
  int go_note; /* warm: the server's socket, closed once the go came; cold: -1 */
};
_Noreturn void sbx_init_run(const struct sbx_init_args *a);
/* The command's steps (sbx_sandbox.c), shared by the cold command and a
 * warm spare's pre-forked one. sbx_close_fds: everything but keep[0..n-1]
 * (moved to 3..3+n-1, close-on-exec) is closed; sbx_command_limit: rlimits,
 * no_new_privs, Landlock; sbx_command_exec: reports a failure in *f, else
 * capabilities, READY, seccomp, execve. */
int sbx_close_fds(int *keep, int n, struct sbx_fail *f);
void sbx_reset_signals(void);
int sbx_command_limit(const struct sbx_cmd *c, int ruleset, int shared, struct sbx_fail *f);
_Noreturn void sbx_command_exec(const struct sbx_cmd *c, int ctl, struct sbx_fail *f);

/* The control socket's messages (pid 1 and the command to the supervisor). */
enum sbx_msg_kind {
  SBX_MSG_FAIL = 1,      /* a layer failed before exec: nothing ran */
  SBX_MSG_READY = 2,     /* every layer applied; exec follows */
  SBX_MSG_EXEC_FAIL = 3, /* execve failed (after all layers) */
  SBX_MSG_EXIT = 4,      /* init: the command's wait status */
  SBX_MSG_LISTENER = 5,  /* approvals: status is the notify listener we received */
  SBX_MSG_PROXY = 6,     /* init: SCM_RIGHTS the proxy's listeners (HTTP, SOCKS5); 'p' answers */
};

/* The status of an SBX_MSG_EXEC_FAIL: whether its text already says why
 * the execve was refused (a shell under a profile without one), so the
 * supervisor adds no guess about which layer refused it. */
enum sbx_exec_fail_status {
  SBX_EXEC_FAIL_PLAIN = 0,
  SBX_EXEC_FAIL_EXPLAINED = 1,
};

struct sbx_msg {
  int32_t kind;
  int32_t layer;
  int32_t error;
  int32_t status;
  char text[320];
};

int sbx_above_stdio(int fd);
uint64_t sbx_now_ms(void);
/* The start of every run, cold or warm: resets *res, checks the request
 * (-EINVAL, with *res saying why) and computes the deadline *tmax (the
 * profile's limit, lowered by the request's). */
int sbx_confine_begin(const struct sbx_run_request *req, struct sbx_run_result *res,
                      uint64_t *tmax);

/* sbx_probe_features without the probes a run does not need. */
int sbx_probe_for_run(struct sbx_features *f);

#endif
