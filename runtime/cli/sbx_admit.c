/* sbx_admit: cross-process admission for `sbx run` (see sbx_admit.h). */
#include "sbx_diag.h"
#include "sbx_admit.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int sbx_admit_state_dir(char *buf, size_t size)
{
  const char *env = getenv(SBX_STATE_DIR_ENV);
  const char *xdg = getenv("XDG_RUNTIME_DIR");
  int n;

  if (env && *env)
    n = snprintf(buf, size, "%s", env);
  else if (geteuid() == 0)
    n = snprintf(buf, size, "%s", SBX_STATE_DIR_ROOT);
  else if (xdg && *xdg)
    n = snprintf(buf, size, "%s/commander-sandbox", xdg);
  else
    /* No world-writable fallback such as /tmp: another user could plant a
     * state file there and decide our admissions. */
    return -ENOENT;
  if (n < 0 || (size_t)n >= size)
    return -ENAMETOOLONG;
  return 0;
}

static uint64_t sbx_now_ms(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int sbx_admit_open(struct sbx_admit *a, const struct cs_model_table *table, FILE *err)
{
  return sbx_admit_open_named(a, table, table->model_name, err);
}

int sbx_admit_open_named(struct sbx_admit *a, const struct cs_model_table *table,
                         const char *state_name, FILE *err)
{
  char dir[4096];
  struct stat st;
  int r;

  memset(a, 0, sizeof(*a));
  a->table = table;
  r = sbx_admit_state_dir(dir, sizeof(dir));
  if (r != 0) {
    fprintf(err,
            "sbx: error: admission: no place for the shared admission state: set %s "
            "(or XDG_RUNTIME_DIR)\n",
            SBX_STATE_DIR_ENV);
    return r;
  }
  if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
    r = -errno;
    fprintf(err, "sbx: error: admission: cannot create %s: %s\n", dir, strerror(-r));
    return r;
  }
  /* The state decides who runs: a directory others may write into would
   * let them replace it. */
  if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    fprintf(err, "sbx: error: admission: %s is not a directory\n", dir);
    return -ENOTDIR;
  }
  if ((st.st_mode & 0022) && !(st.st_mode & S_ISVTX)) {
    fprintf(err,
            "sbx: error: admission: %s is writable by others; refusing to share "
            "admission state through it\n",
            dir);
    return -EPERM;
  }
  if ((size_t)snprintf(a->path, sizeof(a->path), "%s/%s.state", dir, state_name) >=
      sizeof(a->path)) {
    fprintf(err, "sbx: error: admission: state path too long\n");
    return -ENAMETOOLONG;
  }
  r = cs_shared_open(a->path, table, NULL, &a->sh);
  if (r != 0) {
    fprintf(err, "sbx: error: admission: %s: %s%s\n", a->path, cs_strerror(r),
            r == -ESTALE ? " (the file belongs to another model or table version; remove it "
                           "when no sbx is running)"
                         : "");
    a->sh = NULL;
    return r;
  }
  return 0;
}

/* "v8_slots=0 v8_running=10": the tracked marking of a state of S. */
static void sbx_admit_marking(FILE *out, const struct cs_model_table *t, uint32_t state)
{
  if (state >= t->n_states) {
    fprintf(out, "(state %" PRIu32 " out of range)", state);
    return;
  }
  for (uint32_t c = 0; c < t->n_tracked; c++)
    fprintf(out, "%s%s=%" PRIu32, c ? " " : "", t->place_names[t->tracked_places[c]],
            t->markings[(size_t)state * t->n_tracked + c]);
}

/* Why the table refuses `adm` in state s, in the table's own terms: the
 * transition is not enabled (which input places lack tokens), or it is
 * enabled but its successor lies outside the safe set. */
static void sbx_admit_why(FILE *out, const struct cs_model_table *t, uint32_t s, uint32_t adm,
                          bool others_wait)
{
  int32_t next;
  const char *sep = "";

  if (s >= t->n_states) {
    fprintf(out, "state out of range");
    return;
  }
  next = t->next_state[(size_t)s * t->n_transitions + adm];
  if (next >= 0) {
    fprintf(out, "%s",
            others_wait ? "earlier runs are waiting for this tier"
                        : "the table admits it now; retry");
    return;
  }
  if (next == CS_REFUSED) {
    fprintf(out, "the table refuses it: firing it would leave the safe set");
    return;
  }
  fprintf(out, "the table has it disabled: too few tokens in");
  for (uint32_t a = t->pre_start[adm]; a < t->pre_start[adm + 1]; a++) {
    uint32_t place = t->pre_arcs[a].place;
    for (uint32_t c = 0; c < t->n_tracked; c++) {
      uint32_t have = t->markings[(size_t)s * t->n_tracked + c];
      if (t->tracked_places[c] == place && have < t->pre_arcs[a].weight) {
        fprintf(out, "%s %s (%" PRIu32 ", needs %" PRIu32 ")", sep, t->place_names[place], have,
                t->pre_arcs[a].weight);
        sep = ",";
      }
    }
  }
}

static bool sbx_admit_ends_with(const char *name, const char *suffix)
{
  size_t n = strlen(name), k = strlen(suffix);
  return n > k && strcmp(name + n - k, suffix) == 0;
}

bool sbx_admit_has_lanes(const struct cs_model_table *t)
{
  for (uint32_t p = 0; p < t->n_places; p++)
    if (sbx_admit_ends_with(t->place_names[p], "_lane"))
      return true;
  return false;
}

bool sbx_admit_lane_known(const struct cs_model_table *t, const char *lane)
{
  size_t n = strlen(lane);
  for (uint32_t p = 0; p < t->n_places; p++)
    if (strncmp(t->place_names[p], lane, n) == 0 && strcmp(t->place_names[p] + n, "_lane") == 0)
      return true;
  return false;
}

/* The admissions of one lane ("admit_<lane>_"), or of a model without
 * lanes ("admit_"): what follows the prefix is the tier. */
static const char *sbx_admit_tier_of(const struct cs_model_table *t, uint32_t i, const char *lane)
{
  const char *name = t->transition_names[i];
  size_t n;

  if (t->transition_kinds[i] != CS_TRANSITION_ADMISSION || strncmp(name, "admit_", 6) != 0)
    return NULL;
  name += 6;
  if (!lane)
    return name;
  n = strlen(lane);
  return strncmp(name, lane, n) == 0 && name[n] == '_' ? name + n + 1 : NULL;
}

static void sbx_admit_list_tiers(FILE *err, const struct cs_model_table *t, const char *lane)
{
  const char *sep = "", *tier;

  fprintf(err, "sbx: note: tiers of model '%s':", t->model_name);
  for (uint32_t i = 0; i < t->n_transitions; i++) {
    if (!(tier = sbx_admit_tier_of(t, i, lane)))
      continue;
    fprintf(err, "%s %s", sep, tier);
    sep = ",";
  }
  fprintf(err, "\n");
}

static void sbx_admit_list_lanes(FILE *err, const struct cs_model_table *t)
{
  const char *sep = "";

  fprintf(err, "sbx: note: lanes of model '%s':", t->model_name);
  for (uint32_t p = 0; p < t->n_places; p++) {
    const char *name = t->place_names[p];
    if (!sbx_admit_ends_with(name, "_lane"))
      continue;
    fprintf(err, "%s %.*s", sep, (int)(strlen(name) - 5), name);
    sep = ",";
  }
  fprintf(err, "\n");
}

/* What admission adm waits for in state s, from the marking: each input
 * place short of tokens, named as a lane slot ("<lane>_lane"), a tier
 * slot ("<tier>_slots") or by its name, with how many of its slots are in
 * use; or earlier runs, when the resources are there but runs queued
 * before this one go first, or the table refuses the firing. Why from the
 * marking: a caller with no terminal (an agent host, CI) must be able to
 * tell a full lane from a full tier, and only the marking knows which. */
static void sbx_admit_waits_for(FILE *out, const struct cs_model_table *t, uint32_t s, uint32_t adm)
{
  const char *sep = "";
  bool short_of = false;

  if (s >= t->n_states) {
    fprintf(out, "an admission state out of range");
    return;
  }
  for (uint32_t a = t->pre_start[adm]; a < t->pre_start[adm + 1]; a++) {
    uint32_t place = t->pre_arcs[a].place;
    const char *name = t->place_names[place];
    for (uint32_t c = 0; c < t->n_tracked; c++) {
      uint32_t have = t->markings[(size_t)s * t->n_tracked + c];
      int64_t all = t->place_initial[place];
      if (t->tracked_places[c] != place || have >= t->pre_arcs[a].weight)
        continue;
      if (sbx_admit_ends_with(name, "_lane"))
        fprintf(out, "%sa slot of lane %.*s", sep, (int)(strlen(name) - 5), name);
      else if (sbx_admit_ends_with(name, "_slots"))
        fprintf(out, "%sa slot of tier %.*s", sep, (int)(strlen(name) - 6), name);
      else
        fprintf(out, "%stokens in %s", sep, name);
      if (all > 0 && (uint64_t)all >= have)
        fprintf(out, " (%" PRIu64 " of %" PRId64 " in use)", (uint64_t)all - have, all);
      sep = " and ";
      short_of = true;
    }
  }
  if (!short_of)
    fprintf(out, "earlier runs (the resources are free, but runs queued before it go first "
                 "or the table refuses the firing now)");
}

/* The tier's slots as "3 of 4 slots in use, 2 earlier runs waiting". */
static void sbx_admit_slots(FILE *out, const struct sbx_admit *a,
                            const struct cs_shared_wait_info *info)
{
  sbx_admit_waits_for(out, a->table, info->state, a->admission);
  fprintf(out, ", %" PRIu32 " earlier run%s waiting", info->ahead, info->ahead == 1 ? "" : "s");
}

/* "lane interactive, tier v8" or "tier v8" for a model without lanes. */
static void sbx_admit_what(FILE *out, const struct sbx_admit *a)
{
  if (a->lane)
    fprintf(out, "lane %s, ", a->lane);
  fprintf(out, "tier %s", a->tier);
}

/* cs_shared_wait_notice: once, when the wait passes SBX_ADMIT_NOTICE_MS.
 * Why: a caller with no terminal (an agent host, CI) cannot tell a run
 * that waits for a slot from one that hangs. */
static void sbx_admit_notice(void *ctx, const struct cs_shared_wait_info *info)
{
  struct sbx_admit *a = ctx;

  fprintf(a->err, "sbx: waiting for admission: ");
  sbx_admit_what(a->err, a);
  fprintf(a->err, ": waits for ");
  sbx_admit_slots(a->err, a, info);
  fprintf(a->err, " (model '%s')\n", a->table->model_name);
  fflush(a->err);
  a->wait_noticed = true;
}

int sbx_admit_acquire(struct sbx_admit *a, const char *lane, const char *tier, bool no_wait,
                      uint64_t wait_timeout_ms, FILE *err)
{
  const struct cs_model_table *t = a->table;
  bool lanes = sbx_admit_has_lanes(t);
  char name[256];
  uint64_t t0;
  int adm, r, n;

  if (!lane)
    lane = SBX_DEFAULT_LANE;
  if (!tier || !*tier || !*lane) {
    fprintf(err, "sbx: error: admission: empty lane or tier name\n");
    return -EINVAL;
  }
  /* An unknown lane is an error, never a fallback to another lane: the
   * lane is the concurrency the caller asked to be limited by. */
  if (lanes && !sbx_admit_lane_known(t, lane)) {
    fprintf(err, "sbx: error: admission: model '%s' has no lane '%s'\n", t->model_name, lane);
    sbx_admit_list_lanes(err, t);
    return -ENOENT;
  }
  if (!lanes && strcmp(lane, SBX_DEFAULT_LANE) != 0) {
    fprintf(err,
            "sbx: error: admission: model '%s' has no lanes (no place <lane>_lane); lane '%s' "
            "cannot be honoured\n",
            t->model_name, lane);
    return -ENOENT;
  }
  a->lane = lanes ? lane : NULL;
  n = lanes ? snprintf(name, sizeof(name), "admit_%s_%s", lane, tier)
            : snprintf(name, sizeof(name), "admit_%s", tier);
  if (n < 0 || (size_t)n >= sizeof(name)) {
    fprintf(err, "sbx: error: admission: too long lane or tier name\n");
    return -EINVAL;
  }
  adm = cs_shared_lookup_admission(a->sh, name);
  if (adm < 0) {
    fprintf(err, "sbx: error: admission: model '%s' has no tier '%s'%s%s (no admission %s)\n",
            t->model_name, tier, lanes ? " in lane " : "", lanes ? lane : "", name);
    sbx_admit_list_tiers(err, t, a->lane);
    return -ENOENT;
  }
  a->tier = tier;
  a->admission = (uint32_t)adm;
  t0 = sbx_now_ms();
  if (no_wait) {
    r = cs_shared_try_admit(a->sh, (uint32_t)adm, &a->ticket);
    if (r == -EAGAIN) {
      /* A slot held by a dead sbx must not refuse a --no-wait caller:
       * reclaim once and ask again. */
      if (cs_shared_reclaim(a->sh) > 0)
        r = cs_shared_try_admit(a->sh, (uint32_t)adm, &a->ticket);
    }
  } else {
    struct cs_shared_wait_notice notice = { .after_ms = SBX_ADMIT_NOTICE_MS,
                                            .fn = sbx_admit_notice,
                                            .ctx = a };
    struct timespec deadline;
    a->err = err;
    if (wait_timeout_ms) {
      clock_gettime(CLOCK_MONOTONIC, &deadline);
      deadline.tv_sec += (time_t)(wait_timeout_ms / 1000);
      deadline.tv_nsec += (long)(wait_timeout_ms % 1000) * 1000000L;
      if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
      }
    }
    r = cs_shared_admit_notice(a->sh, (uint32_t)adm, wait_timeout_ms ? &deadline : NULL, &notice,
                               &a->ticket);
  }
  a->wait_ms = sbx_now_ms() - t0;
  if (r == -ETIMEDOUT) {
    struct cs_shared_wait_info info;
    /* Our waiter record is gone: every waiter left counts as ahead. */
    cs_shared_tier_info(a->sh, (uint32_t)adm, UINT64_MAX, &info);
    a->wait_timed_out = true;
    fprintf(err, "sbx: error: admission: ");
    sbx_admit_what(err, a);
    fprintf(err, ": not admitted within --wait-timeout (%" PRIu64 ".%03" PRIu64 " s): waits for ",
            wait_timeout_ms / 1000, wait_timeout_ms % 1000);
    sbx_admit_slots(err, a, &info);
    fprintf(err, " (model '%s'); nothing ran\n", t->model_name);
    return r;
  }
  if (r == -EAGAIN) {
    uint32_t s = cs_shared_state(a->sh);
    fprintf(err,
            "sbx: error: admission refused (--no-wait): model '%s' (%s), transition %s, "
            "state %" PRIu32 " [",
            t->model_name, t->source_path ? t->source_path : "?", name, s);
    sbx_admit_marking(err, t, s);
    fprintf(err, "]: ");
    sbx_admit_why(err, t, s, (uint32_t)adm, cs_shared_waiters(a->sh) > 0);
    fprintf(err, "\n");
    return r;
  }
  if (r != 0) {
    fprintf(err, "sbx: error: admission: %s on %s: %s\n", name, a->path, cs_strerror(r));
    return r;
  }
  a->held = true;
  return 0;
}

int sbx_admit_release(struct sbx_admit *a, FILE *err)
{
  int r;

  if (!a->held)
    return 0;
  r = cs_shared_complete(a->sh, &a->ticket);
  if (r != 0) {
    fprintf(err, "sbx: error: admission: completing the ticket in %s: %s\n", a->path,
            cs_strerror(r));
    return r;
  }
  a->held = false;
  return 0;
}

int sbx_admit_guard(struct sbx_admit *a, pid_t init, FILE *err)
{
  int r;
  if (!a->held)
    return 0;
  r = cs_shared_guard(a->sh, &a->ticket, init);
  if (r != 0)
    fprintf(err, "sbx: error: admission: tying the slot to the sandbox (pid %d) in %s: %s\n",
            (int)init, a->path, cs_strerror(r));
  return r;
}

int sbx_admit_on_init(void *admit, pid_t init)
{
  return sbx_admit_guard(admit, init, sbx_diag());
}

void sbx_admit_close(struct sbx_admit *a)
{
  cs_shared_close(a->sh);
  a->sh = NULL;
}

uint32_t sbx_admit_capacity(const struct cs_model_table *t, uint32_t adm)
{
  uint32_t s = t->initial_state, n = 0;

  while (n < t->n_states) {
    int32_t next = t->next_state[(size_t)s * t->n_transitions + adm];
    if (next < 0)
      break;
    s = (uint32_t)next;
    n++;
  }
  return n;
}

void sbx_admit_describe(FILE *out, const struct cs_model_table *t)
{
  char dir[4096], path[4200];
  struct cs_shared_sched *sh = NULL;
  struct stat st;
  int r;

  fprintf(out, "Admission (model '%s' from %s, %" PRIu32 " safe states):\n", t->model_name,
          t->source_path ? t->source_path : "?", t->n_states);
  if (sbx_admit_has_lanes(t)) {
    /* Each lane's width is its place's initial tokens; each tier's slots
     * what one lane's admissions of it reach, bounded by the lane. */
    for (uint32_t p = 0; p < t->n_places; p++) {
      const char *name = t->place_names[p];
      if (sbx_admit_ends_with(name, "_lane"))
        fprintf(out, "  lane %-12.*s %" PRId64 " at once%s\n", (int)(strlen(name) - 5), name,
                t->place_initial[p],
                strcmp(name, SBX_DEFAULT_LANE "_lane") == 0 ? " (default)" : "");
    }
    for (uint32_t p = 0; p < t->n_places; p++) {
      const char *name = t->place_names[p];
      if (sbx_admit_ends_with(name, "_slots"))
        fprintf(out, "  tier %-12.*s %" PRId64 " at once\n", (int)(strlen(name) - 6), name,
                t->place_initial[p]);
    }
  } else {
    for (uint32_t i = 0; i < t->n_transitions; i++) {
      const char *tier = sbx_admit_tier_of(t, i, NULL);
      if (tier)
        fprintf(out, "  tier %-12s %" PRIu32 " at once\n", tier, sbx_admit_capacity(t, i));
    }
  }
  if (sbx_admit_state_dir(dir, sizeof(dir)) != 0) {
    fprintf(out, "  state: no location (set %s or XDG_RUNTIME_DIR); sbx run will refuse\n",
            SBX_STATE_DIR_ENV);
    return;
  }
  snprintf(path, sizeof(path), "%s/%s.state", dir, t->model_name);
  if (stat(path, &st) != 0) {
    fprintf(out, "  state: %s (not created yet; the first sbx run creates it)\n", path);
    return;
  }
  r = cs_shared_open(path, t, NULL, &sh);
  if (r != 0) {
    fprintf(out, "  state: %s: UNUSABLE: %s; sbx run will refuse\n", path, cs_strerror(r));
    return;
  }
  fprintf(out, "  state: %s: state %" PRIu32 ", %d holder(s), %d waiter(s)\n", path,
          cs_shared_state(sh), cs_shared_holders(sh), cs_shared_waiters(sh));
  cs_shared_close(sh);
}
