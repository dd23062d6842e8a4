/* sbx_admit_json: the admission model and state as JSON (jansson), for
 * `sbx check --json` (see sbx_admit.h). Kept apart from sbx_admit.c so the
 * static front end, which links no jansson, can admit runs. */
#include "sbx_admit.h"

#include <jansson.h>
#include <string.h>
#include <sys/stat.h>

json_t *sbx_admit_describe_json(const struct cs_model_table *t)
{
  char dir[4096], path[4200];
  struct cs_shared_sched *sh = NULL;
  json_t *o = NULL, *tiers = NULL, *st = NULL;
  struct stat sb;
  int bad = 0, r;

  o = json_object();
  tiers = json_array();
  st = json_object();
  if (!o || !tiers || !st)
    goto fail;
  bad |= json_object_set_new(o, "model", json_string(t->model_name));
  bad |=
      json_object_set_new(o, "source", t->source_path ? json_string(t->source_path) : json_null());
  bad |= json_object_set_new(o, "safe_states", json_integer(t->n_states));
  if (sbx_admit_has_lanes(t)) {
    /* A model with lanes: its tiers are the "<tier>_slots" places, its
     * lanes the "<lane>_lane" places, each with its initial tokens. */
    json_t *lanes = json_array();
    bad |= !lanes;
    for (uint32_t p = 0; lanes && p < t->n_places; p++) {
      const char *name = t->place_names[p];
      size_t n = strlen(name);
      if (n > 6 && strcmp(name + n - 6, "_slots") == 0)
        bad |= json_array_append_new(tiers, json_pack("{s:s#, s:I}", "name", name, n - 6, "slots",
                                                      (json_int_t)t->place_initial[p]));
      else if (n > 5 && strcmp(name + n - 5, "_lane") == 0)
        bad |=
            json_array_append_new(lanes, json_pack("{s:s#, s:I, s:b}", "name", name, n - 5, "slots",
                                                   (json_int_t)t->place_initial[p], "default",
                                                   strcmp(name, SBX_DEFAULT_LANE "_lane") == 0));
    }
    bad |= json_object_set_new(o, "lanes", lanes);
  } else {
    for (uint32_t i = 0; i < t->n_transitions; i++) {
      if (t->transition_kinds[i] != CS_TRANSITION_ADMISSION ||
          strncmp(t->transition_names[i], "admit_", 6) != 0)
        continue;
      bad |=
          json_array_append_new(tiers, json_pack("{s:s, s:I}", "name", t->transition_names[i] + 6,
                                                 "slots", (json_int_t)sbx_admit_capacity(t, i)));
    }
  }
  if (sbx_admit_state_dir(dir, sizeof(dir)) != 0) {
    bad |= json_object_set_new(st, "path", json_null());
    bad |= json_object_set_new(st, "usable", json_false());
    bad |= json_object_set_new(st, "error", json_string("no location for the shared state"));
  } else {
    snprintf(path, sizeof(path), "%s/%s.state", dir, t->model_name);
    bad |= json_object_set_new(st, "path", json_string(path));
    bad |= json_object_set_new(st, "exists", json_boolean(stat(path, &sb) == 0));
    if (stat(path, &sb) == 0) {
      r = cs_shared_open(path, t, NULL, &sh);
      bad |= json_object_set_new(st, "usable", json_boolean(r == 0));
      if (r != 0) {
        bad |= json_object_set_new(st, "error", json_string(cs_strerror(r)));
      } else {
        bad |= json_object_set_new(st, "state", json_integer(cs_shared_state(sh)));
        bad |= json_object_set_new(st, "holders", json_integer(cs_shared_holders(sh)));
        bad |= json_object_set_new(st, "waiters", json_integer(cs_shared_waiters(sh)));
        cs_shared_close(sh);
      }
    }
  }
  bad |= json_object_set_new(o, "tiers", tiers);
  tiers = NULL;
  bad |= json_object_set_new(o, "state", st);
  st = NULL;
  if (bad)
    goto fail;
  return o;
fail:
  json_decref(o);
  json_decref(tiers);
  json_decref(st);
  return NULL;
}
