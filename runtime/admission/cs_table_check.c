/* cs_table_check: the runtime does not trust a table just because it
 * links: a stale or hand-edited table could admit into a marking outside S,
 * which is exactly what the scheduler exists to prevent. */
#include "cs_table_check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t arc_weight(const struct cs_model_arc *arcs, uint32_t lo, uint32_t hi, uint32_t place)
{
  for (uint32_t i = lo; i < hi; i++)
    if (arcs[i].place == place)
      return arcs[i].weight;
  return 0;
}

int64_t cs_table_effect(const struct cs_model_table *t, uint32_t tr, uint32_t col)
{
  uint32_t p = t->tracked_places[col];
  return arc_weight(t->post_arcs, t->post_start[tr], t->post_start[tr + 1], p) -
         arc_weight(t->pre_arcs, t->pre_start[tr], t->pre_start[tr + 1], p);
}

bool cs_table_is_completion(const struct cs_model_table *t, uint32_t transition)
{
  for (uint32_t a = 0; a < t->n_transitions; a++)
    if (t->transition_kinds[a] == CS_TRANSITION_ADMISSION &&
        t->transition_completion[a] == (int32_t)transition)
      return true;
  return false;
}

static int structural(const struct cs_model_table *t, char *why, size_t whylen)
{
  if (t->version != CS_MODEL_TABLE_VERSION) {
    snprintf(why, whylen, "table version %u, runtime expects %u", t->version,
             CS_MODEL_TABLE_VERSION);
    return -EPROTO;
  }
  if (t->n_states == 0 || t->n_states > (uint32_t)INT32_MAX || t->initial_state >= t->n_states ||
      t->n_transitions == 0 || t->n_tracked > t->n_places || !t->next_state ||
      !t->transition_kinds || !t->transition_completion || !t->transition_names ||
      !t->place_names) {
    snprintf(why, whylen, "table counts or pointers are inconsistent");
    return -EPROTO;
  }
  for (uint32_t c = 0; c < t->n_tracked; c++)
    if (t->tracked_places[c] >= t->n_places) {
      snprintf(why, whylen, "tracked column %u names place %u of %u", c, t->tracked_places[c],
               t->n_places);
      return -EPROTO;
    }
  for (uint32_t tr = 0; tr < t->n_transitions; tr++) {
    int32_t c = t->transition_completion[tr];
    if (t->transition_kinds[tr] > CS_TRANSITION_PROGRESS || !t->transition_names[tr]) {
      snprintf(why, whylen, "transition %u: bad kind or name", tr);
      return -EPROTO;
    }
    if (c != -1 &&
        (t->transition_kinds[tr] != CS_TRANSITION_ADMISSION || c < 0 ||
         (uint32_t)c >= t->n_transitions || t->transition_kinds[c] != CS_TRANSITION_PROGRESS)) {
      snprintf(why, whylen, "transition %s: completion %d is not a progress step",
               t->transition_names[tr], c);
      return -EPROTO;
    }
    for (uint32_t i = t->pre_start[tr]; i < t->pre_start[tr + 1]; i++)
      if (t->pre_arcs[i].place >= t->n_places)
        goto badarc;
    for (uint32_t i = t->post_start[tr]; i < t->post_start[tr + 1]; i++)
      if (t->post_arcs[i].place >= t->n_places)
        goto badarc;
    continue;
  badarc:
    snprintf(why, whylen, "transition %s: arc to a place out of range", t->transition_names[tr]);
    return -EPROTO;
  }
  for (uint32_t s = 0; s < t->n_states; s++)
    for (uint32_t tr = 0; tr < t->n_transitions; tr++) {
      int32_t nx = t->next_state[(size_t)s * t->n_transitions + tr];
      bool ok = nx == CS_DISABLED || (nx >= 0 && (uint32_t)nx < t->n_states) ||
                (nx == CS_REFUSED && t->transition_kinds[tr] == CS_TRANSITION_ADMISSION);
      if (!ok) {
        /* A progress step the table marks refused would mean S is not
         * closed under progress: the analysis that made it is wrong. */
        snprintf(why, whylen,
                 "next_state[%u][%s] = %d is not a state, disabled or (for an admission) refused",
                 s, t->transition_names[tr], nx);
        return -EPROTO;
      }
    }
  return 0;
}

static int deep(const struct cs_model_table *t, char *why, size_t whylen)
{
  /* The firing effect per transition and column, computed once: the
   * check is then O(states x transitions x tracked places). */
  int64_t *eff = calloc((size_t)t->n_transitions * t->n_tracked + 1, sizeof *eff);
  int rc = 0;
  if (!eff)
    return -ENOMEM;
  for (uint32_t tr = 0; tr < t->n_transitions; tr++)
    for (uint32_t c = 0; c < t->n_tracked; c++)
      eff[(size_t)tr * t->n_tracked + c] = cs_table_effect(t, tr, c);
  for (uint32_t s = 0; s < t->n_states && rc == 0; s++) {
    const uint32_t *m = t->markings + (size_t)s * t->n_tracked;
    for (uint32_t c = 0; c < t->n_tracked; c++) {
      int64_t cap = t->place_capacities[t->tracked_places[c]];
      if (cap >= 0 && m[c] > cap) {
        snprintf(why, whylen, "state %u: place %s holds %u, capacity %lld", s,
                 t->place_names[t->tracked_places[c]], m[c], (long long)cap);
        rc = -EPROTO;
        goto out;
      }
    }
    for (uint32_t tr = 0; tr < t->n_transitions; tr++) {
      int32_t nx = t->next_state[(size_t)s * t->n_transitions + tr];
      if (nx < 0)
        continue;
      const uint32_t *n = t->markings + (size_t)nx * t->n_tracked;
      const int64_t *e = eff + (size_t)tr * t->n_tracked;
      for (uint32_t c = 0; c < t->n_tracked; c++)
        if ((int64_t)n[c] != (int64_t)m[c] + e[c]) {
          snprintf(why, whylen,
                   "next_state[%u][%s] = %d has %s=%u, but the arcs take it from %u to %lld", s,
                   t->transition_names[tr], nx, t->place_names[t->tracked_places[c]], n[c], m[c],
                   (long long)m[c] + (long long)e[c]);
          rc = -EPROTO;
          goto out;
        }
    }
  }
out:
  free(eff);
  return rc;
}

int cs_table_check(const struct cs_model_table *t, bool deep_check, char *why, size_t whylen)
{
  int rc;
  if (!t)
    return -EINVAL;
  rc = structural(t, why, whylen);
  if (rc == 0 && deep_check)
    rc = deep(t, why, whylen);
  return rc;
}

/* FNV-1a's constants, taken 8 bytes at a time (with a shift to fold the
 * high bits back), so the ~20 KB of the default model's tables cost ~2500
 * multiplications, not 20000: every sbx run fingerprints its model. The
 * value only has to tell tables apart on one machine (it is compared with
 * the one a shared admission file was made with). */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
  const unsigned char *b = p;
  for (; n >= 8; b += 8, n -= 8) {
    uint64_t w;
    memcpy(&w, b, sizeof w);
    h = (h ^ w) * UINT64_C(0x100000001b3);
    h ^= h >> 29;
  }
  for (; n > 0; b++, n--) {
    h ^= *b;
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}

uint64_t cs_table_fingerprint(const struct cs_model_table *t)
{
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  h = fnv(h, &t->n_places, sizeof t->n_places);
  h = fnv(h, &t->n_transitions, sizeof t->n_transitions);
  h = fnv(h, &t->n_states, sizeof t->n_states);
  h = fnv(h, &t->n_tracked, sizeof t->n_tracked);
  if (t->model_name)
    h = fnv(h, t->model_name, strlen(t->model_name));
  for (uint32_t i = 0; i < t->n_transitions; i++)
    h = fnv(h, t->transition_names[i], strlen(t->transition_names[i]) + 1);
  h = fnv(h, t->next_state, (size_t)t->n_states * t->n_transitions * sizeof *t->next_state);
  h = fnv(h, t->markings, (size_t)t->n_states * t->n_tracked * sizeof *t->markings);
  return h;
}
