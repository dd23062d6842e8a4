/* sbx_slots: the test suite's independent look at sbx's admission.
 *
 *   sbx_slots model           the compiled model's name (the state file's stem)
 *   sbx_slots capacity TIER   how many admit_TIER fire in a row from the
 *                             initial marking of the compiled default model
 *                             (walks the table, touches no shared state)
 *   sbx_slots check FILE      opens the shared state FILE, reclaims dead
 *                             holders, prints state/holders/waiters; exits 0
 *                             only if every slot is free (initial state, no
 *                             holder, no waiter), 1 otherwise, 2 on error
 *   sbx_slots hold FILE TIER  takes one admission and sleeps until killed
 *                             (the tests SIGKILL it to leave a dead holder) */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commander.h"

extern const struct cs_model_table cs_model_default;

static int admission_index(const struct cs_model_table *t, const char *lane, const char *tier)
{
  char name[256];

  snprintf(name, sizeof(name), "admit_%s_%s", lane, tier);
  for (uint32_t i = 0; i < t->n_transitions; i++)
    if (strcmp(t->transition_names[i], name) == 0 &&
        t->transition_kinds[i] == CS_TRANSITION_ADMISSION)
      return (int)i;
  return -ENOENT;
}

/* Admissions of (lane, tier) fired one after the other from state *s. */
static int walk(const struct cs_model_table *t, int adm, int32_t *s)
{
  int n = 0;
  for (;;) {
    int32_t next = t->next_state[(size_t)*s * t->n_transitions + (size_t)adm];
    if (next < 0 || ++n > 1000000)
      return n;
    *s = next;
  }
}

/* How many runs of tier fit at once: in one lane, or (lane NULL) through
 * every lane of the model in turn, the tier's slots as a whole. */
static int capacity(const char *lane, const char *tier)
{
  static const char *const lanes[] = { "interactive", "background", "subagent" };
  const struct cs_model_table *t = &cs_model_default;
  int32_t s = (int32_t)t->initial_state;
  int n = 0;

  for (size_t l = 0; l < sizeof lanes / sizeof *lanes; l++) {
    const char *one = lane ? lane : lanes[l];
    int adm = admission_index(t, one, tier);
    if (adm < 0) {
      fprintf(stderr, "sbx_slots: no admission admit_%s_%s\n", one, tier);
      return 2;
    }
    n += walk(t, adm, &s);
    if (lane)
      break;
  }
  printf("%d\n", n);
  return 0;
}

static int check(const char *path)
{
  struct cs_shared_sched *sh = NULL;
  int r, holders, waiters, reclaimed;
  uint32_t state;

  r = cs_shared_open(path, &cs_model_default, NULL, &sh);
  if (r != 0) {
    fprintf(stderr, "sbx_slots: %s: %s\n", path, cs_strerror(r));
    return 2;
  }
  reclaimed = cs_shared_reclaim(sh);
  state = cs_shared_state(sh);
  holders = cs_shared_holders(sh);
  waiters = cs_shared_waiters(sh);
  printf("state=%u holders=%d waiters=%d reclaimed_now=%d\n", state, holders, waiters, reclaimed);
  cs_shared_close(sh);
  return state == cs_model_default.initial_state && holders == 0 && waiters == 0 ? 0 : 1;
}

static int hold(const char *path, const char *lane, const char *tier)
{
  struct cs_shared_sched *sh = NULL;
  struct cs_shared_ticket tk;
  int r, adm;

  r = cs_shared_open(path, &cs_model_default, NULL, &sh);
  if (r != 0) {
    fprintf(stderr, "sbx_slots: %s: %s\n", path, cs_strerror(r));
    return 2;
  }
  {
    char name[256];
    snprintf(name, sizeof(name), "admit_%s_%s", lane, tier);
    adm = cs_shared_lookup_admission(sh, name);
  }
  if (adm < 0 || cs_shared_admit(sh, (uint32_t)adm, NULL, &tk) != 0) {
    fprintf(stderr, "sbx_slots: cannot admit %s\n", tier);
    cs_shared_close(sh);
    return 2;
  }
  printf("held\n");
  fflush(stdout);
  for (;;)
    pause();
}

int main(int argc, char **argv)
{
  if (argc == 2 && strcmp(argv[1], "model") == 0)
    return printf("%s\n", cs_model_default.model_name) > 0 ? 0 : 2;
  /* capacity without LANE: the tier over every lane; hold's LANE defaults
   * to sbx's default lane, as `sbx run` without --lane. */
  if ((argc == 3 || argc == 4) && strcmp(argv[1], "capacity") == 0)
    return capacity(argc == 4 ? argv[3] : NULL, argv[2]);
  if (argc == 3 && strcmp(argv[1], "check") == 0)
    return check(argv[2]);
  if ((argc == 4 || argc == 5) && strcmp(argv[1], "hold") == 0)
    return hold(argv[2], argc == 5 ? argv[4] : "interactive", argv[3]);
  fprintf(stderr, "usage: sbx_slots model | capacity TIER [LANE] | check FILE | "
                  "hold FILE TIER [LANE]\n");
  return 2;
}
