/* commander.h: the public API of the Commander Sandbox runtime (libcs_runtime).
 *
 * Sections (each owned by one module; later modules ADD sections, never
 * change earlier ones):
 *   1. Errors                        (all sections)
 *   2. In-process admission          cs_sched_*, cs_admit*, cs_complete   runtime/admission/cs_sched.c
 *   3. Cross-process admission       cs_shared_*                     runtime/admission/cs_shared_sched.c
 *   4. Approvals                     cs_approval*, cs_approver*      runtime/approval/cs_approval*.c
 *                                    cs_cmdrule*, cs_approval_op_*   runtime/cmdrule/cs_cmdrule.c
 *
 * The scheduler never searches: pnetc already computed the safe set S of
 * the model and, for every marking of S and every transition, the marking
 * it leads to (struct cs_model_table, cs_model_table.h). Admitting
 * work is one table lookup on the current marking. See docs/runtime.md. */
#ifndef CS_RUNTIME_COMMANDER_H
#define CS_RUNTIME_COMMANDER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "cs_model_table.h"
#include "cs_version.h"

/* cs_admit_timed and cs_shared_admit_timed take a pointer to one. A strict
 * ISO C compilation (-std=c99 without POSIX) gets no struct timespec from
 * <time.h>; declared here it is one type for both. */
struct timespec;

#ifdef __cplusplus
extern "C" {
#endif

/* ===== 1. Errors ========================================================
 * Every int-returning function returns 0 (or a non-negative value where
 * stated) on success and a negative errno from this list on failure:
 *   -EINVAL     bad argument: NULL, index out of range, not an admission,
 *               a ticket this scheduler never issued (forged or corrupted)
 *   -EAGAIN     refused now: the admission would leave S (cs_try_admit),
 *               or the step is not enabled in the current marking
 *   -ETIMEDOUT  the deadline passed before the admission was granted
 *   -EALREADY   the ticket was already completed (double completion)
 *   -EPERM      cs_fire_progress on an admission or on a completion step
 *               (completions are fired by cs_complete only, so tokens and
 *               tickets can never disagree)
 *   -ENOENT     no transition of that name
 *   -ENOSPC     no free ticket / holder / waiter record (see the opts)
 *   -ENOMEM     out of memory
 *   -EPROTO     the model table is malformed or inconsistent (its version,
 *               a next_state entry out of range, a successor whose marking
 *               is not the firing of the transition, a capacity exceeded)
 *   -EBUSY      cs_sched_destroy while waiters are queued or tickets are
 *               outstanding (nothing is freed)
 *   -ESTALE     cs_shared_open: the shared file holds another model (or
 *               is not an admission file at all, or an older layout); the
 *               cs_shared_* calls: its name now holds another file
 *   other       cs_shared_open and the lock pass through open/flock/mmap/ftruncate
 *               errors (-ELOOP: the path is a symlink; -EPERM: the file is
 *               writable by others or not a regular file)
 * cs_strerror() names each of them. */
const char *cs_strerror(int err);

/* ===== 2. In-process admission ==========================================
 *
 * The whole marking is one atomic 32-bit state index into S. Admission and
 * progress steps are lock-free (load, look up next_state, compare-and-swap);
 * only a refused admission, or one whose admission already has queued
 * waiters, takes the mutex and waits in that admission's FIFO queue. */

struct cs_sched;

/* A ticket proves one granted admission. It is a value: copy it freely,
 * but complete it exactly once; cs_complete detects a second completion
 * (-EALREADY) and a ticket it never issued (-EINVAL). */
struct cs_ticket {
  uint32_t slot;       /* index in the scheduler's ticket registry */
  uint32_t admission;  /* the admission transition it was granted for */
  uint64_t generation; /* registry slot generation at grant time */
  uint32_t from_state; /* state of S the admission fired in */
  uint32_t to_state;   /* state of S it led to */
};

struct cs_sched_opts {
  /* Ticket registry size: how many tickets may be outstanding at once.
   * 0: CS_SCHED_DEFAULT_TICKETS. More outstanding tickets: -ENOSPC. From
   * 64 up, each thread may also keep one free word parked for its next
   * admission (given back when the thread exits): size it for the
   * outstanding tickets plus one per thread. */
  uint32_t max_tickets;
  /* 1: skip the O(states x transitions x places) cross-check of the table
   * at creation (the structural range checks always run). Only for tables
   * too large to check at start-up, and for the test that shows the stress
   * checker catches a corrupted table. */
  int skip_table_check;
};

#define CS_SCHED_DEFAULT_TICKETS 4096u
#define CS_SCHED_MAX_TRANSITIONS 32767u

/* opts may be NULL. The table must outlive the scheduler. */
int cs_sched_create(const struct cs_model_table *table, const struct cs_sched_opts *opts,
                    struct cs_sched **out);
/* 0, or -EBUSY (waiters queued or tickets outstanding: nothing freed).
 * NULL is accepted. */
int cs_sched_destroy(struct cs_sched *sched);

/* Transition index by name (>= 0) or -ENOENT / -EINVAL. */
int cs_sched_lookup(const struct cs_sched *sched, const char *name);
/* Like cs_sched_lookup, but -EINVAL unless the transition is an admission. */
int cs_sched_lookup_admission(const struct cs_sched *sched, const char *name);
const struct cs_model_table *cs_sched_table(const struct cs_sched *sched);

/* Blocking admission: FIFO per admission (a later caller of the same
 * admission is never granted before an earlier one that is still waiting;
 * different admissions do not wait for each other). */
int cs_admit(struct cs_sched *sched, uint32_t admission, struct cs_ticket *ticket);
/* Non-blocking: -EAGAIN when refused now, or when earlier callers of the
 * same admission are waiting (it never overtakes them). */
int cs_try_admit(struct cs_sched *sched, uint32_t admission, struct cs_ticket *ticket);
/* deadline: absolute CLOCK_MONOTONIC time; NULL waits forever. -ETIMEDOUT
 * when it passes first (the caller leaves the queue, nothing is held). */
int cs_admit_timed(struct cs_sched *sched, uint32_t admission, const struct timespec *deadline,
                   struct cs_ticket *ticket);
/* Fires the admission's completion step (transition_completion) and
 * releases the ticket. -EAGAIN (ticket kept) when the completion is not
 * enabled yet (its work still has progress steps to fire). For an
 * admission without a completion step it only releases the ticket. */
int cs_complete(struct cs_sched *sched, const struct cs_ticket *ticket);
/* Fires a progress step that is not a completion. -EAGAIN when disabled. */
int cs_fire_progress(struct cs_sched *sched, uint32_t transition);

/* Introspection (snapshots: they may be stale as soon as they return). */
uint32_t cs_sched_state(const struct cs_sched *sched);
/* Token counts of every place (n_places entries; environment places 0) in
 * the current marking; returns the state index it read (>= 0). */
int cs_sched_marking(const struct cs_sched *sched, int64_t *tokens, size_t ntokens);
/* Callers queued for an admission (>= 0), or -EINVAL. */
int cs_sched_waiting(const struct cs_sched *sched, uint32_t admission);
/* Tickets granted and not yet completed. */
uint32_t cs_sched_outstanding(const struct cs_sched *sched);

/* ===== 3. Cross-process admission (sbx) =================================
 *
 * One admission state shared by every process that opens the same file
 * (normally under /dev/shm or /run). All state lives in that mapping:
 *   - the state index in S;
 *   - a holder record per granted admission: pid + start time (field 22 of
 *     /proc/PID/stat, so a recycled pid is not mistaken for the holder),
 *     admission, generation;
 *   - a waiter record per blocked caller, with its arrival number (FIFO per
 *     admission across processes) and a futex word it sleeps on.
 * Updates happen under a lock with a redo journal: flock(2) on the file,
 * which the kernel releases when its holder dies, and which no C library
 * lays out (sbx's musl front end and its glibc core share the file); a
 * process killed inside the critical section leaves a journal the next
 * locker replays, so the state is never half-updated.
 * A holder that died (SIGKILL included), and the guard it named if any,
 * is found by cs_shared_reclaim,
 * which every refused or waiting admission runs (waiters re-check at least
 * every CS_SHARED_POLL_MS): its completion is fired and its slot returns.
 * Holders must share the pid namespace of the file's other users. */

struct cs_shared_sched;

struct cs_shared_ticket {
  uint32_t holder; /* holder record index */
  uint32_t admission;
  uint64_t generation; /* holder record generation at grant time */
};

struct cs_shared_opts {
  uint32_t max_holders; /* 0: CS_SHARED_DEFAULT_RECORDS; fixed at file creation */
  uint32_t max_waiters; /* 0: CS_SHARED_DEFAULT_RECORDS; fixed at file creation */
  mode_t mode;          /* 0: 0600; permissions of a newly created file */
};

#define CS_SHARED_DEFAULT_RECORDS 256u
#define CS_SHARED_POLL_MS 50

/* Opens (creating and initialising it when absent or empty) the shared
 * admission state for `table` at `path`. An existing file made for a
 * different model (name, places, transitions or table contents) is
 * -ESTALE: the caller must not admit against someone else's state. */
int cs_shared_open(const char *path, const struct cs_model_table *table,
                   const struct cs_shared_opts *opts, struct cs_shared_sched **out);
/* Unmaps; held tickets stay held (a live holder keeps its slot; a dead one
 * is reclaimed by others). NULL is accepted. */
void cs_shared_close(struct cs_shared_sched *sh);

/* Blocking FIFO admission on behalf of the calling process; deadline is
 * absolute CLOCK_MONOTONIC, NULL waits forever. */
int cs_shared_admit(struct cs_shared_sched *sh, uint32_t admission, const struct timespec *deadline,
                    struct cs_shared_ticket *ticket);
/* What a waiting admission waits for, as the file shows it (a snapshot:
 * for messages, never for decisions). */
struct cs_shared_wait_info {
  uint32_t state;     /* the current state of S */
  uint32_t in_use;    /* live or dead holders of the same admission (the tier's slots in use) */
  uint32_t ahead;     /* waiters of the same admission that arrived earlier */
  uint64_t waited_ms; /* since the caller queued */
};
/* A word to the caller while it waits: fn(ctx, info) is called once, with
 * the file unlocked, when the admission is still waiting after_ms after it
 * queued. fn must not call back into sh. */
struct cs_shared_wait_notice {
  uint64_t after_ms;
  void (*fn)(void *ctx, const struct cs_shared_wait_info *info);
  void *ctx;
};
/* cs_shared_admit with a notice (NULL: none); the place in the FIFO is
 * kept across the notice. */
int cs_shared_admit_notice(struct cs_shared_sched *sh, uint32_t admission,
                           const struct timespec *deadline,
                           const struct cs_shared_wait_notice *notice,
                           struct cs_shared_ticket *ticket);
/* The same snapshot for any caller: before_arrival UINT64_MAX counts every
 * waiter of the admission as ahead. */
void cs_shared_tier_info(const struct cs_shared_sched *sh, uint32_t admission,
                         uint64_t before_arrival, struct cs_shared_wait_info *info);
/* -EAGAIN when refused now or when others wait for the same admission. */
int cs_shared_try_admit(struct cs_shared_sched *sh, uint32_t admission,
                        struct cs_shared_ticket *ticket);
/* Fires the completion (after any enabled non-completion progress steps
 * its work still needs) and frees the holder record. -EALREADY / -EINVAL
 * as for cs_complete. Any process may complete a ticket it was given. */
int cs_shared_complete(struct cs_shared_sched *sh, const struct cs_shared_ticket *ticket);
/* Ties the ticket's slot to a second process, `guard` (sbx: the run's
 * pid 1, whose end is the end of its whole sandbox): reclaim then returns
 * the slot only once the holder and the guard are both dead, so a holder
 * killed while its work still runs does not free the slot early. Call it
 * before the guard may start the work. -ESRCH: guard not alive; -EPROTO:
 * its liveness cannot be told; -EINVAL / -EALREADY as for
 * cs_shared_complete. */
int cs_shared_guard(struct cs_shared_sched *sh, const struct cs_shared_ticket *ticket, pid_t guard);
/* Returns the slots of dead holders (whose guard, if any, is dead too) and
 * drops dead waiters; returns how many holders were reclaimed (>= 0). */
int cs_shared_reclaim(struct cs_shared_sched *sh);

int cs_shared_lookup_admission(const struct cs_shared_sched *sh, const char *name);
uint32_t cs_shared_state(const struct cs_shared_sched *sh);
/* Live and dead holder records currently in the file (>= 0). */
int cs_shared_holders(const struct cs_shared_sched *sh);
/* Waiter records currently queued (>= 0). */
int cs_shared_waiters(const struct cs_shared_sched *sh);

/* ===== 4. Approvals (library cs_approval) ================================
 *
 * The human-approval workflow of docs/approvals.md for embedders: an
 * approval manager (cs_approval_create / cs_approval_ask) with a pluggable
 * approver (struct cs_approver: a decide() callback; built-in: terminal
 * prompt, exec:PROGRAM, socket:PATH JSON lines), scopes once / session /
 * always (a 0600 store file), and the command-rule engine (cs_cmdrule_*,
 * built-in rules for rm, find -delete, git clean, sudo, su, doas, git
 * config, git remote add, curl, wget, ssh, ...). Everything but a
 * well-formed allow is a deny. The declarations live in cs_approval.h
 * and cs_cmdrule.h (errors listed there) so that the libraries can be
 * used alone (-lcs_approval -lcs_cmdrule; the command rules alone:
 * -lcs_cmdrule). */
#include "cs_approval.h"

#ifdef __cplusplus
}
#endif

#endif
