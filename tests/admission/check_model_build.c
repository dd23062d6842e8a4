/* sbx --model's in-memory scheduler table (gen/model) against the one
 * pnetc generated and sbx links (models/default.pnet -> cs_model_default):
 * every array equal, so the two paths cannot drift apart. Also: two
 * different models get different digests (their shared states are keyed
 * apart), the same model the same one, and a failing assertion is refused.
 *
 * argv[1]: models/default.pnet. Exit 0 when every check holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "default.h" /* generated: cs_model_default */
#include "model_build.h"

static int failures;
static int quiet; /* the negative control's expected failure is not printed */
#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      if (!quiet) {                                                                                \
        fprintf(stderr, "FAIL: " __VA_ARGS__);                                                     \
        fputc('\n', stderr);                                                                       \
      }                                                                                            \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

static char *slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  char *buf = malloc(1 << 20);
  *len = buf ? fread(buf, 1, 1 << 20, f) : 0;
  fclose(f);
  return buf;
}

static void tables_equal(const struct cs_model_table *a, const struct cs_model_table *b)
{
  CHECK(a->version == b->version, "version");
  CHECK(strcmp(a->model_name, b->model_name) == 0, "model_name %s vs %s", a->model_name,
        b->model_name);
  CHECK(a->n_places == b->n_places, "n_places");
  CHECK(a->n_transitions == b->n_transitions, "n_transitions");
  CHECK(a->n_states == b->n_states, "n_states %u vs %u", a->n_states, b->n_states);
  CHECK(a->n_tracked == b->n_tracked, "n_tracked");
  CHECK(a->initial_state == b->initial_state, "initial_state");
  if (failures)
    return;
  for (uint32_t i = 0; i < a->n_places; i++) {
    CHECK(strcmp(a->place_names[i], b->place_names[i]) == 0, "place %u name", i);
    CHECK(a->place_roles[i] == b->place_roles[i], "place %u role", i);
    CHECK(a->place_capacities[i] == b->place_capacities[i], "place %u capacity", i);
    CHECK(a->place_initial[i] == b->place_initial[i], "place %u initial", i);
  }
  for (uint32_t t = 0; t < a->n_transitions; t++) {
    CHECK(strcmp(a->transition_names[t], b->transition_names[t]) == 0, "transition %u", t);
    CHECK(a->transition_kinds[t] == b->transition_kinds[t], "transition %u kind", t);
    CHECK(a->transition_completion[t] == b->transition_completion[t], "transition %u done", t);
  }
  size_t starts = (a->n_transitions + 1) * sizeof(uint32_t);
  CHECK(memcmp(a->pre_start, b->pre_start, starts) == 0, "pre_start");
  CHECK(memcmp(a->post_start, b->post_start, starts) == 0, "post_start");
  CHECK(memcmp(a->pre_arcs, b->pre_arcs, a->pre_start[a->n_transitions] * sizeof *a->pre_arcs) == 0,
        "pre_arcs");
  CHECK(memcmp(a->post_arcs, b->post_arcs,
               a->post_start[a->n_transitions] * sizeof *a->post_arcs) == 0,
        "post_arcs");
  CHECK(memcmp(a->tracked_places, b->tracked_places, a->n_tracked * sizeof(uint32_t)) == 0,
        "tracked_places");
  CHECK(memcmp(a->markings, b->markings, (size_t)a->n_states * a->n_tracked * sizeof(uint32_t)) ==
            0,
        "markings");
  CHECK(memcmp(a->next_state, b->next_state,
               (size_t)a->n_states * a->n_transitions * sizeof(int32_t)) == 0,
        "next_state");
}

static const char one_slot[] = "net small;\n"
                               "place pending source;\n"
                               "place seccomp_slots capacity SLOTS initial SLOTS;\n"
                               "place executing_seccomp capacity SLOTS;\n"
                               "place completed sink;\n"
                               "admission admit_seccomp: pending + seccomp_slots -> "
                               "executing_seccomp;\n"
                               "progress complete_seccomp: executing_seccomp -> completed + "
                               "seccomp_slots;\n";

static struct model_build *small(const char *slots)
{
  char text[1024];
  size_t n = 0;
  for (const char *p = one_slot; *p && n < sizeof text - 8;) {
    if (strncmp(p, "SLOTS", 5) == 0) {
      n += (size_t)snprintf(text + n, sizeof text - n, "%s", slots);
      p += 5;
    } else {
      text[n++] = *p++;
    }
  }
  struct model_build *m = NULL;
  return model_build_load("small.pnet", text, n, &m) == 0 ? m : NULL;
}

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: %s models/default.pnet\n", argv[0]);
    return 2;
  }
  size_t len = 0;
  char *text = slurp(argv[1], &len);
  CHECK(text != NULL, "cannot read %s", argv[1]);
  struct model_build *m = NULL;
  CHECK(text && model_build_load(argv[1], text, len, &m) == 0, "default.pnet does not build");
  if (m)
    tables_equal(model_build_table(m), &cs_model_default);

  /* Negative control: the comparison notices one changed cell. */
  if (m && !failures) {
    struct cs_model_table copy = *model_build_table(m);
    size_t cells = (size_t)copy.n_states * copy.n_transitions;
    int32_t *next = malloc(cells * sizeof *next);
    memcpy(next, copy.next_state, cells * sizeof *next);
    next[cells - 1] = next[cells - 1] == CS_REFUSED ? CS_DISABLED : CS_REFUSED;
    copy.next_state = next;
    int before = failures;
    quiet = 1;
    tables_equal(&copy, &cs_model_default);
    quiet = 0;
    CHECK(failures == before + 1, "the comparison missed a changed next_state cell");
    failures = before;
    free(next);
  }

  struct model_build *a1 = small("1"), *a2 = small("1"), *b = small("2");
  CHECK(a1 && a2 && b, "the small models build");
  if (a1 && a2 && b) {
    CHECK(model_build_digest(a1) == model_build_digest(a2), "same model, different digests");
    CHECK(model_build_digest(a1) != model_build_digest(b), "1 and 2 slots share a digest");
  }
  model_build_free(a1);
  model_build_free(a2);
  model_build_free(b);

  /* A model whose assertion fails gets no table. */
  static const char bad[] = "net bad;\nplace a capacity 2 initial 1;\nassert invariant a == 2;\n";
  struct model_build *x = NULL;
  CHECK(model_build_load("bad.pnet", bad, sizeof bad - 1, &x) != 0 && !x,
        "a failing assertion was not refused");

  model_build_free(m);
  free(text);
  if (failures)
    fprintf(stderr, "%d check(s) failed\n", failures);
  else
    printf("ok: the in-memory table of %s equals the linked one; digests key models apart\n",
           argv[1]);
  return failures ? 1 : 0;
}
