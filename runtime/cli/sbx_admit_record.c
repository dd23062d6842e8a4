/* sbx_admit_record: an admission and its audit fields (see sbx_admit_record.h). */
#include "sbx_admit_record.h"

#include <errno.h>

int sbx_admit_record(struct sbx_admit *a, const char *lane, bool no_wait,
                     struct sbx_audit_record *rec, struct sbx_audit_denial *den, size_t *n_den,
                     FILE *err)
{
  const struct cs_model_table *t = a->table;
  int r;

  /* The record names the lane asked for even when it is refused. */
  if (sbx_admit_has_lanes(t))
    rec->lane = lane ? lane : SBX_DEFAULT_LANE;
  r = sbx_admit_acquire(a, lane, rec->tier, no_wait, rec->wait_timeout_ms, err);
  if (r == 0 && a->lane)
    rec->lane = a->lane;

  rec->admission_wait_ms = a->wait_ms;
  rec->wait_noticed = a->wait_noticed;
  rec->wait_timed_out = a->wait_timed_out;
  if (r == 0) {
    rec->admitted = true;
    return 0;
  }
  rec->error = r == -EAGAIN      ? "admission refused (--no-wait)"
               : r == -ETIMEDOUT ? "admission wait exceeded --wait-timeout"
                                 : "admission failed";
  den[*n_den].layer = "admission";
  den[*n_den].rule = t->source_path ? t->source_path : t->model_name;
  den[*n_den].what = rec->tier;
  den[*n_den].action = r == -EAGAIN ? "refused" : r == -ETIMEDOUT ? "timed out" : "failed";
  (*n_den)++;
  return r;
}
