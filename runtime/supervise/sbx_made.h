/* sbx_made: the record of when earlier runs of a workspace ran (grep tag:
 * SBX_MADE), so that what they made is not taken for someone's work
 * (docs/approvals.md, "What earlier runs made").
 *
 * `approve delete` asks before a run removes what existed when it started.
 * A build's outputs from an earlier run existed when the next run started,
 * and as(1) and ld(1) remove their old output before they write it, so
 * every incremental build in a new run asked. What an earlier sandboxed
 * run made, and nothing outside a sandboxed run changed since, is no one's
 * work but the runs'. An inode's birth time and change time say when it
 * was made and last changed (no system call sets either); this record says
 * when the workspace's runs were going. An inode both of whose times fall
 * inside such spans (or inside the current run) was made, and last
 * changed, while a run was going.
 *
 * The record is one file per workspace in sbx's state directory
 * ($XDG_STATE_HOME, else ~/.local/state, /commander-sandbox/made), out of
 * every command's reach for writing (sbx_run.c refuses a run whose
 * command could write it), owned by the user and writable by no one else
 * (else it is not used). It only ever lets a removal through unasked that
 * would otherwise be asked; a record that is missing, unreadable, foreign
 * or damaged means more is asked, never less. */
#ifndef CS_RUNTIME_SBX_MADE_H
#define CS_RUNTIME_SBX_MADE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* Spans kept per workspace: the newest, after merging overlaps. A file
 * an older run made is asked about again (closed). */
#define SBX_MADE_SPANS_MAX 512

/* One run: from its start (taken before anything of the command ran) to
 * its end (the coarse clock after every process of it was gone), both
 * exclusive. */
struct sbx_made_span {
  struct timespec from, to;
};

struct sbx_made {
  /* Earlier runs of the workspace, sorted by `from`, not overlapping. */
  struct sbx_made_span *spans;
  size_t n;
  /* This run's start, stamped by the supervisor (sbx_approval_hooks.c)
   * when it takes the notify listener; unset: nothing is recorded. */
  struct timespec run_from;
  bool run_from_set;
};

/* The record's directory for the caller: "$XDG_STATE_HOME/commander-
 * sandbox/made" (an absolute XDG_STATE_HOME only), else "$HOME/.local/
 * state/commander-sandbox/made". 0, -ENOENT (no HOME), -ENAMETOOLONG. */
int sbx_made_dir(char *buf, size_t len);

/* Reads the spans recorded for `workspace` (its resolved host path) from
 * `dir` into *m (zeroed first). A record that is missing, not the
 * caller's, writable by group or others, or of another directory that
 * had the same device and inode: no spans. Lines that do not parse are
 * skipped. 0, or -ENOMEM. */
int sbx_made_load(const char *dir, const char *workspace, struct sbx_made *m);

/* Adds the span (m->run_from, now) when m->run_from_set, creating `dir`
 * (0700) and the record (0600) as needed, under an exclusive lock, and
 * rewriting the record with at most SBX_MADE_SPANS_MAX merged spans when
 * it has grown. Call after every process of the run is gone. 0 (also
 * when there is nothing to add), or -errno. */
int sbx_made_record(const char *dir, const char *workspace, const struct sbx_made *m);

/* Does `t` lie strictly inside one of m's spans? */
bool sbx_made_covers(const struct sbx_made *m, const struct timespec *t);

void sbx_made_free(struct sbx_made *m);

/* Waits (at most ~100 ms) until the coarse real-time clock, which stamps
 * most inodes, reads later than `t`, a reading of the fine one: every
 * inode stamped afterwards, by either clock, is stamped after `t`. */
void sbx_made_wait_coarse_past(const struct timespec *t);

#endif
