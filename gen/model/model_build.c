/* model_build: see model_build.h. The arrays mirror, one for one, the
 * ones emit_c_net.c writes into a model's .c file. */
#include "model_build.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "pn_analysis.h"
#include "pn_net.h"
#include "pnet.h"

struct model_build {
  struct pn_net *net;
  struct cs_model_table table;
  const char **place_names, **transition_names;
  uint8_t *place_roles, *transition_kinds;
  int64_t *place_capacities, *place_initial;
  int32_t *transition_completion;
  uint32_t *pre_start, *post_start, *tracked, *markings;
  struct cs_model_arc *pre_arcs, *post_arcs;
  int32_t *next_state;
};

void model_build_free(struct model_build *m)
{
  if (!m)
    return;
  free(m->place_names);
  free(m->transition_names);
  free(m->place_roles);
  free(m->transition_kinds);
  free(m->place_capacities);
  free(m->place_initial);
  free(m->transition_completion);
  free(m->pre_start);
  free(m->post_start);
  free(m->tracked);
  free(m->markings);
  free(m->pre_arcs);
  free(m->post_arcs);
  free(m->next_state);
  pn_net_free(m->net);
  free(m);
}

/* calloc of n elements, at least one, so that no array is NULL. */
#define MB_ALLOC(p, n) ((p) = calloc((n) ? (n) : 1, sizeof *(p)))

static int model_build_arcs(struct model_build *m, bool post)
{
  const struct pn_net *net = m->net;
  uint32_t total = 0, *start;
  struct cs_model_arc *arcs;
  for (uint32_t t = 0; t < net->ntransitions; t++)
    total += post ? net->transitions[t].npost : net->transitions[t].npre;
  if (!MB_ALLOC(start, net->ntransitions + 1) || !MB_ALLOC(arcs, total)) {
    free(start);
    return -ENOMEM;
  }
  uint32_t at = 0;
  for (uint32_t t = 0; t < net->ntransitions; t++) {
    const struct pn_transition *tr = &net->transitions[t];
    start[t] = at;
    for (uint32_t i = 0; i < (post ? tr->npost : tr->npre); i++) {
      const struct pn_arc *a = post ? &tr->post[i] : &tr->pre[i];
      arcs[at++] = (struct cs_model_arc){ a->place, a->weight };
    }
  }
  start[net->ntransitions] = at;
  if (post) {
    m->post_start = start;
    m->post_arcs = arcs;
  } else {
    m->pre_start = start;
    m->pre_arcs = arcs;
  }
  return 0;
}

/* The safe set, numbered as the generated tables number it (analysis
 * order restricted to S), its markings and its successor table. */
static int model_build_states(struct model_build *m, const struct pn_analysis *a, uint32_t ntracked)
{
  const struct pn_net *net = m->net;
  uint64_t states = pn_analysis_states(a);
  if (states >= UINT32_MAX)
    return -EOVERFLOW;
  uint32_t *to_safe = malloc((states ? states : 1) * sizeof *to_safe);
  uint64_t *from_safe = malloc((states ? states : 1) * sizeof *from_safe);
  int64_t *tokens = calloc(net->nplaces ? net->nplaces : 1, sizeof *tokens);
  int rc = -ENOMEM;
  if (!to_safe || !from_safe || !tokens)
    goto done;
  uint32_t nsafe = 0;
  for (uint64_t s = 0; s < states; s++) {
    to_safe[s] = pn_analysis_in_safe_set(a, s) ? nsafe : UINT32_MAX;
    if (to_safe[s] != UINT32_MAX)
      from_safe[nsafe++] = s;
  }
  rc = -EOVERFLOW;
  if (nsafe > INT32_MAX)
    goto done;
  if (states == 0 || to_safe[0] != 0) {
    fprintf(diag_stream(),
            "%s: error: the initial marking is outside the safe set S: no admission can ever be "
            "granted safely\n",
            net->source_path);
    rc = -EDOM;
    goto done;
  }
  rc = -ENOMEM;
  size_t ncells = (size_t)nsafe * ntracked, nnext = (size_t)nsafe * net->ntransitions;
  if (!MB_ALLOC(m->markings, ncells) || !MB_ALLOC(m->next_state, nnext))
    goto done;
  for (uint32_t k = 0; k < nsafe; k++) {
    pn_analysis_marking(a, from_safe[k], tokens);
    for (uint32_t j = 0; j < ntracked; j++) {
      int64_t v = tokens[m->tracked[j]];
      if (v < 0 || v > (int64_t)UINT32_MAX) {
        rc = -EOVERFLOW;
        goto done;
      }
      m->markings[(size_t)k * ntracked + j] = (uint32_t)v;
    }
    for (uint32_t t = 0; t < net->ntransitions; t++) {
      int64_t succ = pn_analysis_successor(a, from_safe[k], t);
      int32_t cell;
      if (succ < 0)
        cell = CS_DISABLED;
      else if (to_safe[succ] != UINT32_MAX)
        cell = (int32_t)to_safe[succ];
      else if (net->transitions[t].kind == PN_ADMISSION)
        cell = CS_REFUSED;
      else {
        /* The runtime cannot refuse a progress step: a table in which one
         * leaves S would promise nothing. */
        fprintf(diag_stream(),
                "%s: error: progress step '%s' leads out of the safe set; no table\n",
                net->source_path, net->transitions[t].name);
        rc = -EPROTO;
        goto done;
      }
      m->next_state[(size_t)k * net->ntransitions + t] = cell;
    }
  }
  m->table.n_states = nsafe;
  rc = 0;
done:
  free(to_safe);
  free(from_safe);
  free(tokens);
  return rc;
}

int model_build_load(const char *name, const char *text, size_t len, struct model_build **out)
{
  struct model_build *m = calloc(1, sizeof *m);
  struct pn_analysis *a = NULL;
  int rc = -ENOMEM;
  *out = NULL;
  if (!m)
    goto fail;
  rc = -EINVAL;
  if (!(m->net = pnet_parse_memory(name, text, len)))
    goto fail; /* the front end printed file:line:col */
  const struct pn_net *net = m->net;
  /* The caller checked who may write the one file it read; an include
   * would bring in text nobody checked. */
  if (net->nsources > 1) {
    fprintf(diag_stream(), "%s: error: a model for --model cannot include other files (%s)\n", name,
            net->sources[1]->path);
    goto fail;
  }
  struct pn_analysis_opts aopts = { .max_states = 0 };
  if ((rc = pn_analyze(net, &aopts, &a)) != 0)
    goto fail;
  rc = -EINVAL;
  for (uint32_t i = 0; i < net->nassertions; i++) {
    if (!pn_analysis_assertion(a, i)->holds) {
      diag_error(&net->assertions[i].loc, "%s assertion does not hold; no table",
                 pn_assert_kind_name(net->assertions[i].kind));
      goto fail;
    }
  }
  rc = -ENOMEM;
  if (!MB_ALLOC(m->place_names, net->nplaces) || !MB_ALLOC(m->place_roles, net->nplaces) ||
      !MB_ALLOC(m->place_capacities, net->nplaces) || !MB_ALLOC(m->place_initial, net->nplaces) ||
      !MB_ALLOC(m->tracked, net->nplaces) || !MB_ALLOC(m->transition_names, net->ntransitions) ||
      !MB_ALLOC(m->transition_kinds, net->ntransitions) ||
      !MB_ALLOC(m->transition_completion, net->ntransitions))
    goto fail;
  uint32_t ntracked = 0;
  for (uint32_t i = 0; i < net->nplaces; i++) {
    const struct pn_place *p = &net->places[i];
    m->place_names[i] = p->name;
    m->place_roles[i] = p->role == PN_PLACE_TRACKED  ? CS_PLACE_TRACKED
                        : p->role == PN_PLACE_SOURCE ? CS_PLACE_SOURCE
                                                     : CS_PLACE_SINK;
    m->place_capacities[i] = p->capacity;
    m->place_initial[i] = p->initial;
    if (p->role == PN_PLACE_TRACKED)
      m->tracked[ntracked++] = i;
  }
  for (uint32_t t = 0; t < net->ntransitions; t++) {
    const struct pn_transition *tr = &net->transitions[t];
    m->transition_names[t] = tr->name;
    m->transition_kinds[t] =
        tr->kind == PN_ADMISSION ? CS_TRANSITION_ADMISSION : CS_TRANSITION_PROGRESS;
    m->transition_completion[t] =
        tr->completion >= 0 && (uint32_t)tr->completion < net->ntransitions ? tr->completion : -1;
  }
  if ((rc = model_build_arcs(m, false)) != 0 || (rc = model_build_arcs(m, true)) != 0 ||
      (rc = model_build_states(m, a, ntracked)) != 0)
    goto fail;
  m->table.version = CS_MODEL_TABLE_VERSION;
  m->table.model_name = net->name && net->name[0] ? net->name : "model";
  m->table.source_path = net->source_path ? net->source_path : name;
  m->table.n_places = net->nplaces;
  m->table.place_names = m->place_names;
  m->table.place_roles = m->place_roles;
  m->table.place_capacities = m->place_capacities;
  m->table.place_initial = m->place_initial;
  m->table.n_transitions = net->ntransitions;
  m->table.transition_names = m->transition_names;
  m->table.transition_kinds = m->transition_kinds;
  m->table.transition_completion = m->transition_completion;
  m->table.pre_start = m->pre_start;
  m->table.pre_arcs = m->pre_arcs;
  m->table.post_start = m->post_start;
  m->table.post_arcs = m->post_arcs;
  m->table.n_tracked = ntracked;
  m->table.tracked_places = m->tracked;
  m->table.markings = m->markings;
  m->table.next_state = m->next_state;
  m->table.initial_state = 0;
  pn_analysis_free(a);
  *out = m;
  return 0;
fail:
  if (rc == -ENOMEM)
    fprintf(diag_stream(), "%s: error: out of memory\n", name);
  pn_analysis_free(a);
  model_build_free(m);
  return rc;
}

const struct cs_model_table *model_build_table(const struct model_build *m)
{
  return &m->table;
}

static uint64_t mb_fnv(uint64_t h, const void *data, size_t len)
{
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

uint64_t model_build_digest(const struct model_build *m)
{
  const struct cs_model_table *t = &m->table;
  uint64_t h = 14695981039346656037ull;
  h = mb_fnv(h, t->model_name, strlen(t->model_name) + 1);
  h = mb_fnv(h, &t->n_places, sizeof t->n_places);
  for (uint32_t i = 0; i < t->n_places; i++) {
    h = mb_fnv(h, t->place_names[i], strlen(t->place_names[i]) + 1);
    h = mb_fnv(h, &t->place_roles[i], 1);
    h = mb_fnv(h, &t->place_capacities[i], sizeof t->place_capacities[i]);
    h = mb_fnv(h, &t->place_initial[i], sizeof t->place_initial[i]);
  }
  h = mb_fnv(h, &t->n_transitions, sizeof t->n_transitions);
  for (uint32_t i = 0; i < t->n_transitions; i++) {
    h = mb_fnv(h, t->transition_names[i], strlen(t->transition_names[i]) + 1);
    h = mb_fnv(h, &t->transition_kinds[i], 1);
    h = mb_fnv(h, &t->transition_completion[i], sizeof t->transition_completion[i]);
  }
  h = mb_fnv(h, t->pre_start, (t->n_transitions + 1) * sizeof *t->pre_start);
  h = mb_fnv(h, t->pre_arcs, t->pre_start[t->n_transitions] * sizeof *t->pre_arcs);
  h = mb_fnv(h, t->post_start, (t->n_transitions + 1) * sizeof *t->post_start);
  h = mb_fnv(h, t->post_arcs, t->post_start[t->n_transitions] * sizeof *t->post_arcs);
  h = mb_fnv(h, &t->n_states, sizeof t->n_states);
  h = mb_fnv(h, t->markings, (size_t)t->n_states * t->n_tracked * sizeof *t->markings);
  h = mb_fnv(h, t->next_state, (size_t)t->n_states * t->n_transitions * sizeof *t->next_state);
  return h;
}
