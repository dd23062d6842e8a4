/* sbx_freeze: the terminal approver's guard in `sbx run` (struct
 * cs_tty_guard, cs_approval.h): while a person is asked on the terminal,
 * the whole sandbox is frozen (cgroup v2 cgroup.freeze of a cgroup
 * holding every process of the run), so it can neither draw over the
 * prompt nor read or inject what the person types. A run that cannot be
 * frozen is not asked about on the terminal: the request is denied
 * (docs/approvals.md, "The terminal prompt").
 *
 * Errors: negative errno. */
#ifndef CS_RUNTIME_SBX_FREEZE_H
#define CS_RUNTIME_SBX_FREEZE_H

#include <pthread.h>
#include <stddef.h>

#include "cs_approval.h"

/* Test-only: set to 1, hold() does not freeze (and says so on stderr),
 * so that tests can show what an unfrozen sandbox does to the prompt. */
#define SBX_FREEZE_TEST_OFF_ENV "SBX_TEST_TTY_NO_FREEZE"

enum sbx_freeze_state {
  SBX_FREEZE_NO_RUN = 0,  /* no sandboxed process exists: nothing to stop */
  SBX_FREEZE_READY,       /* a run is live and dir can freeze all of it */
  SBX_FREEZE_UNAVAILABLE, /* a run is live and cannot be frozen (why) */
};

struct sbx_freeze {
  pthread_mutex_t lock;
  enum sbx_freeze_state state;
  char dir[256]; /* the cgroup v2 directory holding the whole run */
  char why[200];
};

void sbx_freeze_init(struct sbx_freeze *f);
void sbx_freeze_fini(struct sbx_freeze *f);
/* The run started (before any of its processes could fork): freezable
 * through cgroup v2 directory `dir`, or, dir NULL, not at all (why). */
void sbx_freeze_arm(struct sbx_freeze *f, const char *dir, const char *why);
/* The run is over (every process gone, the system-call layer stopped). */
void sbx_freeze_disarm(struct sbx_freeze *f);
/* The guard for cs_approver_tty_guarded (arg: the struct sbx_freeze). */
struct cs_tty_guard sbx_freeze_guard(struct sbx_freeze *f);

#endif
