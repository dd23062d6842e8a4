/* sbx_watch: when `sbx serve` may skip re-probing a template's facts
 * (sbx_watch.c, docs/sbx.md "Warm start"). */
#ifndef CS_RUNTIME_SBX_WATCH_H
#define CS_RUNTIME_SBX_WATCH_H

#include <stdint.h>

#include "sbx_plan.h"

/* sbx_watch (sbx_watch.c): an inotify instance whose epoch changes with
 * every change seen in a watched directory. fd -1: vouches for nothing. */
struct sbx_watch {
  int fd;
  uint64_t epoch; /* 0: never vouches */
};
void sbx_watch_init(struct sbx_watch *w);
void sbx_watch_fini(struct sbx_watch *w);
/* Reads every queued event; the current epoch (0 once unusable). */
uint64_t sbx_watch_epoch(struct sbx_watch *w);
/* Watches every directory the plan's probes depend on and marks each
 * probe whose changes that covers (probe.watched). 0, or a negative errno
 * when the plan cannot be watched (then nothing may be vouched). */
int sbx_watch_plan(struct sbx_watch *w, struct sbx_plan *plan);

#endif
