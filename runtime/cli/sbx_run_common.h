/* sbx_run_common: the parts of `sbx run` that both executables use: the
 * full sbx (sbx_run.c) and the static front end (sbx_front.c, docs/sbx.md
 * "Front end"). Nothing here needs libseccomp, libcap or jansson. */
#ifndef CS_RUNTIME_SBX_RUN_COMMON_H
#define CS_RUNTIME_SBX_RUN_COMMON_H

#include <stddef.h>
#include <stdio.h>

#include "cs_profile_table.h"
#include "sbx_cli.h"
#include "sbx_confine.h"
#include "sbx_diag.h"

/* Makes a stream of a duplicate of fd (close-on-exec, so no command ever
 * gets it) and sets it as sbx_diag's (sbx_diag.h), where every message of
 * `sbx run` after its options were parsed goes. 0, or -EBADF (not open), -EACCES (not open for
 * writing) or another negative errno; the message is on stderr. */
int sbx_diag_open(int fd);

/* Points a closed 0, 1 or 2 at /dev/null, so the next open() cannot take
 * it; -1 when even that fails. */
int sbx_std_fds(void);
/* The warm-start socket of this user ($SBX_STATE_DIR/serve-UID/serve.sock)
 * and its directory; 0, -ENOENT (no state directory) or -ENAMETOOLONG. */
int sbx_run_serve_socket(char *buf, size_t size, char *dir, size_t dir_size);
/* The workspace (given, or the current directory) resolved to an existing
 * directory in out; 0 or a negative errno, with the reason on err. */
int sbx_run_workspace(const char *given, char *out, size_t size, FILE *err);
/* The command's working directory, resolved, in out: `given` (--cwd;
 * relative to the workspace) must be a directory inside the resolved
 * workspace; NULL: the caller's current directory when it lies inside the
 * workspace, else the workspace itself. 0, or a negative errno with the
 * reason on err (-EACCES: outside the workspace). */
int sbx_run_cwd(const char *given, const char *workspace, char *out, size_t size, FILE *err);
/* Runs req with `confine` (sbx_confine_run, or the front end's
 * sbx_warm_confine) with sbx_signal's handlers live: from here a SIGINT,
 * SIGTERM or SIGHUP ends the sandbox, not sbx (sbx_signal.h). Returns
 * confine's result. */
int sbx_run_confined(struct sbx_run_request *req, struct sbx_run_result *res,
                     int (*confine)(const struct sbx_run_request *, struct sbx_run_result *));
/* The linked git worktrees a run made in the sandbox's private /tmp, lost
 * with it (sbx_run_lost.c): the workspace's worktree records before the
 * run (only when the workspace is under /tmp), then, after it, each new
 * one whose worktree is in /tmp outside the workspace and not on the host
 * is named on err. Returns how many. */
struct sbx_run_lost {
  bool active;
  char *names; /* each followed by a NUL */
  size_t len;
};
int sbx_run_lost_before(const char *workspace, struct sbx_run_lost *before);
int sbx_run_lost_worktrees(const char *workspace, struct sbx_run_lost *before, FILE *err);
/* What sbx says on stderr when a run is over (the start-up path with -v,
 * the failure, timeout or interruption, and every refusal named with its
 * rule); returns sbx's exit status (docs/sbx.1). r is sbx_confine_run's
 * return. `interrupted` receives the text of an interruption ("" if
 * none), for the audit record. */
int sbx_run_report(const struct sbx_opts *o, int r, const struct sbx_run_result *res,
                   char *interrupted, size_t interrupted_size);

#endif
