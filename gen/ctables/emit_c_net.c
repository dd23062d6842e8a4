/* emit_c_net: the scheduler tables of a net as C (docs/table-format.md).
 *
 * The output is read by two audiences: the C compiler, which must accept
 * it under -std=c11 -Wall -Wextra -Werror -pedantic, and an auditor, who
 * must be able to check by eye which marking each row describes and what
 * the runtime will do there. Hence: every table between Begin/End markers
 * with a paragraph on how to read it, designated initializers keyed by the
 * place/transition enums, a comment with the marking and class on every
 * state row, and _Static_asserts tying each table's length to its enum. */
#include "emit_c_net.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "cs_model_table.h"
#include "c_text.h"

#define EMIT_C_TAG "cs-table"

/* Names and the safe-set numbering, computed once for both files. */
struct emit_c_ctx {
  const struct pn_net *net;
  const struct pn_analysis *a;
  const char *ident; /* model identifier, e.g. default */
  char *upper;       /* CS_MODEL_DEFAULT */
  char **place_enum; /* CS_MODEL_DEFAULT_P_V8_SLOTS */
  char **trans_enum; /* CS_MODEL_DEFAULT_T_ADMIT_V8 */
  uint32_t *tracked; /* column -> place index */
  uint32_t ntracked;
  uint32_t *to_safe;   /* analysis state -> S index, UINT32_MAX outside S */
  uint64_t *from_safe; /* S index -> analysis state */
  uint32_t nsafe;
  int64_t *tokens; /* scratch: one marking */
};

static void emit_c_ctx_free(struct emit_c_ctx *c)
{
  if (c->place_enum)
    for (uint32_t i = 0; i < c->net->nplaces; i++)
      free(c->place_enum[i]);
  if (c->trans_enum)
    for (uint32_t i = 0; i < c->net->ntransitions; i++)
      free(c->trans_enum[i]);
  free(c->place_enum);
  free(c->trans_enum);
  free(c->upper);
  free(c->tracked);
  free(c->to_safe);
  free(c->from_safe);
  free(c->tokens);
}

static char *emit_c_enum_name(const char *upper, const char *kind, const char *name)
{
  char *u = text_upper_ident(name);
  if (!u)
    return NULL;
  size_t len = strlen(upper) + strlen(kind) + strlen(u) + 3;
  char *r = malloc(len);
  if (r)
    snprintf(r, len, "%s_%s_%s", upper, kind, u);
  free(u);
  return r;
}

static int emit_c_ctx_init(struct emit_c_ctx *c, const struct pn_net *net,
                           const struct pn_analysis *a, const char *ident)
{
  int rc = -ENOMEM;
  memset(c, 0, sizeof *c);
  c->net = net;
  c->a = a;
  c->ident = ident;

  char *id_upper = text_upper_ident(ident);
  if (!id_upper)
    goto fail;
  size_t len = strlen(id_upper) + sizeof "CS_MODEL_";
  c->upper = malloc(len);
  if (c->upper)
    snprintf(c->upper, len, "CS_MODEL_%s", id_upper);
  free(id_upper);
  if (!c->upper)
    goto fail;

  c->place_enum = calloc(net->nplaces ? net->nplaces : 1, sizeof *c->place_enum);
  c->trans_enum = calloc(net->ntransitions ? net->ntransitions : 1, sizeof *c->trans_enum);
  c->tracked = calloc(net->nplaces ? net->nplaces : 1, sizeof *c->tracked);
  c->tokens = calloc(net->nplaces ? net->nplaces : 1, sizeof *c->tokens);
  if (!c->place_enum || !c->trans_enum || !c->tracked || !c->tokens)
    goto fail;
  for (uint32_t i = 0; i < net->nplaces; i++) {
    if (!(c->place_enum[i] = emit_c_enum_name(c->upper, "P", net->places[i].name)))
      goto fail;
    if (net->places[i].role == PN_PLACE_TRACKED)
      c->tracked[c->ntracked++] = i;
  }
  for (uint32_t i = 0; i < net->ntransitions; i++)
    if (!(c->trans_enum[i] = emit_c_enum_name(c->upper, "T", net->transitions[i].name)))
      goto fail;
  /* Two names may sanitize alike ("a-b", "a_b"); enumerators must not. */
  if (text_uniquify(c->place_enum, net->nplaces) != 0)
    goto fail;
  if (text_uniquify(c->trans_enum, net->ntransitions) != 0)
    goto fail;

  uint64_t states = pn_analysis_states(a);
  if (states >= UINT32_MAX) {
    rc = -EOVERFLOW;
    goto fail;
  }
  c->to_safe = malloc((states ? states : 1) * sizeof *c->to_safe);
  if (!c->to_safe)
    goto fail;
  uint64_t nsafe = 0;
  for (uint64_t s = 0; s < states; s++) {
    if (pn_analysis_in_safe_set(a, s))
      c->to_safe[s] = (uint32_t)nsafe++;
    else
      c->to_safe[s] = UINT32_MAX;
  }
  /* next_state holds int32 state numbers, negative values being markers. */
  if (nsafe > INT32_MAX) {
    rc = -EOVERFLOW;
    goto fail;
  }
  c->nsafe = (uint32_t)nsafe;
  if (states == 0 || c->to_safe[0] != 0) {
    fprintf(diag_stream(),
            "%s: error: the initial marking is outside the safe set S: no admission can "
            "ever be granted safely, so there is no scheduler table to generate\n",
            net->source_path);
    rc = -EDOM;
    goto fail;
  }
  c->from_safe = malloc(nsafe * sizeof *c->from_safe);
  if (!c->from_safe)
    goto fail;
  for (uint64_t s = 0; s < states; s++)
    if (c->to_safe[s] != UINT32_MAX)
      c->from_safe[c->to_safe[s]] = s;
  return 0;

fail:
  emit_c_ctx_free(c);
  return rc;
}

static void emit_c_banner(FILE *out, const struct emit_c_ctx *c, const char *generator,
                          const char *what)
{
  fputs("/* DO NOT EDIT: generated by ", out);
  text_c_comment(out, generator);
  fputs(" from ", out);
  text_c_comment(out, c->net->source_path);
  fputs(".\n * Edit the model and rerun pnetc instead; the build regenerates this file.\n *\n * ",
        out);
  fputs(what, out);
  fputs("\n * How to read the tables: docs/table-format.md (section \"Net tables\"). */\n", out);
}

/* One enum per index space, each entry commented with the model's name. */
static void emit_c_enum(FILE *out, const struct emit_c_ctx *c, const char *what, const char *doc,
                        char *const *enums, const char *const *names, const char *const *kinds,
                        uint32_t n, const char *count)
{
  fprintf(out, "/* %s [" EMIT_C_TAG ":cs_model_%s_%s] */\nenum cs_model_%s_%s {\n", doc, c->ident,
          what, c->ident, what);
  for (uint32_t i = 0; i < n; i++) {
    fprintf(out, "  %s = %" PRIu32 ", /* ", enums[i], i);
    text_c_comment(out, names[i]);
    fprintf(out, " (%s) */\n", kinds[i]);
  }
  fprintf(out, "  %s_%s = %" PRIu32 "\n};\n\n", c->upper, count, n);
}

int emit_c_net_header(FILE *out, const struct pn_net *net, const struct pn_analysis *a,
                      const char *ident, const char *generator)
{
  struct emit_c_ctx c;
  int rc = emit_c_ctx_init(&c, net, a, ident);
  if (rc != 0)
    return rc;

  emit_c_banner(out, &c, generator,
                "Declares the scheduler table of the model and the enums that index it.");
  fprintf(out, "#ifndef %s_H\n#define %s_H\n\n#include \"cs_model_table.h\"\n\n", c.upper, c.upper);

  const char *place_what[PN_PLACE_SINK + 1], *trans_what[PN_PROGRESS + 1];
  for (int r = 0; r <= PN_PLACE_SINK; r++)
    place_what[r] = pn_place_role_name((enum pn_place_role)r);
  for (int k = 0; k <= PN_PROGRESS; k++)
    trans_what[k] = pn_transition_kind_name((enum pn_transition_kind)k);
  const char **pnames = malloc((net->nplaces + 1) * sizeof *pnames);
  const char **tnames = malloc((net->ntransitions + 1) * sizeof *tnames);
  const char **pwhat = malloc((net->nplaces + 1) * sizeof *pwhat);
  const char **twhat = malloc((net->ntransitions + 1) * sizeof *twhat);
  if (!pnames || !tnames || !pwhat || !twhat) {
    rc = -ENOMEM;
    goto cleanup;
  }
  for (uint32_t i = 0; i < net->nplaces; i++) {
    pnames[i] = net->places[i].name;
    pwhat[i] = place_what[net->places[i].role];
  }
  for (uint32_t i = 0; i < net->ntransitions; i++) {
    tnames[i] = net->transitions[i].name;
    twhat[i] = trans_what[net->transitions[i].kind];
  }
  emit_c_enum(out, &c, "place",
              "Places in declaration order: the index of every per-place table and of\n"
              " * cs_model_table.place_names.",
              c.place_enum, pnames, pwhat, net->nplaces, "N_PLACES");
  emit_c_enum(out, &c, "transition",
              "Transitions in declaration order: the columns of next_state and the index\n"
              " * of every per-transition table.",
              c.trans_enum, tnames, twhat, net->ntransitions, "N_TRANSITIONS");

  fprintf(out,
          "/* Sizes of the safe set S: rows of the marking and next_state tables, and\n"
          " * tracked places (columns of a marking). */\n"
          "enum {\n  %s_N_STATES = %" PRIu32 ",\n  %s_N_TRACKED = %" PRIu32 "\n};\n\n",
          c.upper, c.nsafe, c.upper, c.ntracked);
  fprintf(out, "extern const struct cs_model_table cs_model_%s;\n\n#endif\n", ident);
  rc = text_stream_status(out);

cleanup:
  free(pnames);
  free(tnames);
  free(pwhat);
  free(twhat);
  emit_c_ctx_free(&c);
  return rc;
}

static void emit_c_begin(FILE *out, const char *table, const char *tag, const char *paragraph)
{
  fprintf(out, "/* ---- Begin %s", table);
  if (tag)
    fprintf(out, " [" EMIT_C_TAG ":%s]", tag);
  fprintf(out, " ----\n%s */\n", paragraph);
}

static void emit_c_end(FILE *out, const char *table)
{
  fprintf(out, "/* ---- End %s ---- */\n\n", table);
}

/* "S17  v8_slots=9 executing_v8=1  safe" */
static void emit_c_state_comment(FILE *out, struct emit_c_ctx *c, uint32_t k)
{
  uint64_t s = c->from_safe[k];
  pn_analysis_marking(c->a, s, c->tokens);
  fprintf(out, "/* S%" PRIu32 " ", k);
  for (uint32_t j = 0; j < c->ntracked; j++) {
    fputc(' ', out);
    text_c_comment(out, c->net->places[c->tracked[j]].name);
    fprintf(out, "=%" PRId64, c->tokens[c->tracked[j]]);
  }
  fprintf(out, "  %s */", pn_class_name(pn_analysis_class(c->a, s)));
}

static void emit_c_places(FILE *out, struct emit_c_ctx *c, char *tag)
{
  const struct pn_net *net = c->net;
  if (net->nplaces == 0) {
    fputs("/* The model has no places: the place tables are NULL. */\n\n", out);
    return;
  }
  emit_c_begin(out, "places", tag,
               " * One entry per place in each of the four arrays below, indexed by the\n"
               " * place enum of the header (declaration order of the model).\n"
               " *   place_names       the name used in the model and in every report;\n"
               " *   place_roles       TRACKED places are the columns of a marking; SOURCE\n"
               " *                     (requests arriving from outside) and SINK (finished\n"
               " *                     work leaving) are environment places: never counted;\n"
               " *   place_capacities  the declared bound, -1 when none was declared (the\n"
               " *                     analysis checked it in every reachable marking: pnetc\n"
               " *                     writes no table for a model that can exceed one);\n"
               " *   place_initial     tokens in the initial marking S0.");
  static const char *const arrays[] = { "place_names", "place_roles", "place_capacities",
                                        "place_initial" };
  static const char *const types[] = { "const char *const", "const uint8_t", "const int64_t",
                                       "const int64_t" };
  for (int k = 0; k < 4; k++) {
    fprintf(out, "static %s %s[] = {\n", types[k], arrays[k]);
    for (uint32_t i = 0; i < net->nplaces; i++) {
      const struct pn_place *p = &net->places[i];
      fprintf(out, "  [%s] = ", c->place_enum[i]);
      switch (k) {
      case 0:
        text_c_string(out, p->name);
        break;
      case 1:
        fputs(p->role == PN_PLACE_TRACKED  ? "CS_PLACE_TRACKED"
              : p->role == PN_PLACE_SOURCE ? "CS_PLACE_SOURCE"
                                           : "CS_PLACE_SINK",
              out);
        break;
      case 2:
        fprintf(out, "INT64_C(%" PRId64 ")", p->capacity);
        break;
      default:
        fprintf(out, "INT64_C(%" PRId64 ")", p->initial);
        break;
      }
      fputs(",\n", out);
    }
    fputs("};\n", out);
    fprintf(out,
            "_Static_assert(sizeof %s / sizeof %s[0] == %s_N_PLACES,\n"
            "               \"%s must have one entry per place\");\n",
            arrays[k], arrays[k], c->upper, arrays[k]);
  }
  emit_c_end(out, "places");
}

static void emit_c_arcs(FILE *out, struct emit_c_ctx *c, int post)
{
  const struct pn_net *net = c->net;
  const char *name = post ? "post" : "pre";
  uint32_t total = 0;
  for (uint32_t t = 0; t < net->ntransitions; t++)
    total += post ? net->transitions[t].npost : net->transitions[t].npre;

  if (total > 0) {
    fprintf(out, "static const struct cs_model_arc %s_arcs[] = {\n", name);
    for (uint32_t t = 0; t < net->ntransitions; t++) {
      const struct pn_transition *tr = &net->transitions[t];
      const struct pn_arc *arcs = post ? tr->post : tr->pre;
      uint32_t n = post ? tr->npost : tr->npre;
      for (uint32_t i = 0; i < n; i++) {
        fprintf(out, "  {%s, %" PRIu32 "}, /* ", c->place_enum[arcs[i].place], arcs[i].weight);
        text_c_comment(out, tr->name);
        fprintf(out, ": %s ", post ? "puts" : "takes");
        fprintf(out, "%" PRIu32 " %s ", arcs[i].weight, post ? "into" : "from");
        text_c_comment(out, net->places[arcs[i].place].name);
        fputs(" */\n", out);
      }
    }
    fputs("};\n", out);
    fprintf(out,
            "_Static_assert(sizeof %s_arcs / sizeof %s_arcs[0] == %" PRIu32
            ", \"%s arc count\");\n",
            name, name, total, name);
  }
  fprintf(out, "static const uint32_t %s_start[] = {\n", name);
  uint32_t at = 0;
  for (uint32_t t = 0; t < net->ntransitions; t++) {
    fprintf(out, "  [%s] = %" PRIu32 ",\n", c->trans_enum[t], at);
    at += post ? net->transitions[t].npost : net->transitions[t].npre;
  }
  fprintf(out, "  [%s_N_TRANSITIONS] = %" PRIu32 ", /* end of the last transition's arcs */\n};\n",
          c->upper, at);
  fprintf(out,
          "_Static_assert(sizeof %s_start / sizeof %s_start[0] == %s_N_TRANSITIONS + 1,\n"
          "               \"%s_start must have one entry per transition plus the end\");\n",
          name, name, c->upper, name);
}

static void emit_c_transitions(FILE *out, struct emit_c_ctx *c, char *tag)
{
  const struct pn_net *net = c->net;
  if (net->ntransitions == 0) {
    fputs("/* The model has no transitions: the transition tables are NULL. */\n\n", out);
    return;
  }
  emit_c_begin(out, "transitions", tag,
               " * One entry per transition, indexed by the transition enum of the header.\n"
               " *   transition_names       as in the model;\n"
               " *   transition_kinds       ADMISSION: the runtime may refuse it (it starts\n"
               " *                          work); PROGRESS: cannot be refused once enabled;\n"
               " *   transition_completion  for an admission, the progress step that\n"
               " *                          finishes the admitted work; -1 when none.\n"
               " * Arcs: the input arcs of transition t are pre_arcs[pre_start[t]] up to\n"
               " * pre_arcs[pre_start[t + 1]] (exclusive), each {place, weight}: firing t\n"
               " * takes weight tokens from place. post_* likewise for the tokens it puts.");
  fputs("static const char *const transition_names[] = {\n", out);
  for (uint32_t t = 0; t < net->ntransitions; t++) {
    fprintf(out, "  [%s] = ", c->trans_enum[t]);
    text_c_string(out, net->transitions[t].name);
    fputs(",\n", out);
  }
  fputs("};\n", out);
  fputs("static const uint8_t transition_kinds[] = {\n", out);
  for (uint32_t t = 0; t < net->ntransitions; t++)
    fprintf(out, "  [%s] = %s,\n", c->trans_enum[t],
            net->transitions[t].kind == PN_ADMISSION ? "CS_TRANSITION_ADMISSION"
                                                     : "CS_TRANSITION_PROGRESS");
  fputs("};\n", out);
  fputs("static const int32_t transition_completion[] = {\n", out);
  for (uint32_t t = 0; t < net->ntransitions; t++) {
    int32_t done = net->transitions[t].completion;
    if (done >= 0 && (uint32_t)done < net->ntransitions)
      fprintf(out, "  [%s] = %s,\n", c->trans_enum[t], c->trans_enum[done]);
    else
      fprintf(out, "  [%s] = -1,\n", c->trans_enum[t]);
  }
  fputs("};\n", out);
  static const char *const arrays[] = { "transition_names", "transition_kinds",
                                        "transition_completion" };
  for (int k = 0; k < 3; k++)
    fprintf(out,
            "_Static_assert(sizeof %s / sizeof %s[0] == %s_N_TRANSITIONS,\n"
            "               \"%s must have one entry per transition\");\n",
            arrays[k], arrays[k], c->upper, arrays[k]);
  emit_c_arcs(out, c, 0);
  emit_c_arcs(out, c, 1);
  emit_c_end(out, "transitions");
}

static void emit_c_tracked(FILE *out, struct emit_c_ctx *c)
{
  if (c->ntracked == 0) {
    fputs("/* The model tracks no place: a marking has no columns (tables NULL). */\n\n", out);
    return;
  }
  emit_c_begin(out, "tracked_places", NULL,
               " * Column j of a marking row counts the tokens of place tracked_places[j].\n"
               " * Environment places (sources, sinks) have no column.");
  fputs("static const uint32_t tracked_places[] = {\n", out);
  for (uint32_t j = 0; j < c->ntracked; j++)
    fprintf(out, "  %s, /* column %" PRIu32 " */\n", c->place_enum[c->tracked[j]], j);
  fputs("};\n", out);
  fprintf(out,
          "_Static_assert(sizeof tracked_places / sizeof tracked_places[0] == %s_N_TRACKED,\n"
          "               \"one column per tracked place\");\n",
          c->upper);
  emit_c_end(out, "tracked_places");
}

/* Cells padded to the widest of their column, so the table reads as one. */
static int emit_c_markings(FILE *out, struct emit_c_ctx *c)
{
  const struct pn_net *net = c->net;
  if (c->ntracked == 0)
    return 0;
  emit_c_begin(out, "markings", NULL,
               " * The safe set S: the reachable markings from which the initial marking can\n"
               " * be reached again without leaving S and from which no progress step leads\n"
               " * out of S; the runtime keeps the system inside S by refusing admissions.\n"
               " * One row per state, numbered densely in breadth-first order from the\n"
               " * initial marking (S0); row k holds the token count of each tracked place\n"
               " * (columns as in tracked_places). The comment repeats the marking by name\n"
               " * and gives the class: safe (some admission is allowed) or saturated (every\n"
               " * admission is refused until progress is made); deadlock only ever for S0,\n"
               " * when nothing at all can fire in the initial marking.");
  fputs("/*", out);
  for (uint32_t j = 0; j < c->ntracked; j++) {
    fputc(' ', out);
    text_c_comment(out, net->places[c->tracked[j]].name);
  }
  fputs(" */\n", out);
  fputs("static const uint32_t markings[] = {\n", out);
  for (uint32_t k = 0; k < c->nsafe; k++) {
    pn_analysis_marking(c->a, c->from_safe[k], c->tokens);
    fputs(" ", out);
    for (uint32_t j = 0; j < c->ntracked; j++) {
      int64_t v = c->tokens[c->tracked[j]];
      if (v < 0 || v > (int64_t)UINT32_MAX)
        return -EOVERFLOW;
      fprintf(out, " %" PRId64 ",", v);
    }
    fputc(' ', out);
    emit_c_state_comment(out, c, k);
    fputc('\n', out);
  }
  fputs("};\n", out);
  fprintf(
      out,
      "_Static_assert(sizeof markings / sizeof markings[0] == (size_t)%s_N_STATES * %s_N_TRACKED,\n"
      "               \"one row per state of S, one column per tracked place\");\n",
      c->upper, c->upper);
  emit_c_end(out, "markings");
  return 0;
}

static int emit_c_next_state(FILE *out, struct emit_c_ctx *c)
{
  const struct pn_net *net = c->net;
  int rc = 0;
  if (net->ntransitions == 0)
    return 0;
  size_t *width = calloc(net->ntransitions, sizeof *width);
  if (!width)
    return -ENOMEM;
  size_t state_digits = (size_t)snprintf(NULL, 0, "%" PRIu32, c->nsafe);
  for (uint32_t t = 0; t < net->ntransitions; t++) {
    size_t w = strlen(net->transitions[t].name);
    if (w < sizeof "CS_DISABLED," - 1)
      w = sizeof "CS_DISABLED," - 1;
    if (w < state_digits + 1)
      w = state_digits + 1;
    width[t] = w;
  }
  emit_c_begin(out, "next_state", NULL,
               " * What the runtime does: row k is state Sk of the markings table, column t\n"
               " * the transition with enum value t (header row below). A cell holds\n"
               " *   a number n       firing t in Sk leads to state Sn (still inside S);\n"
               " *   CS_DISABLED      t cannot fire in Sk (not enough tokens);\n"
               " *   CS_REFUSED       t is an admission that could fire, but its successor\n"
               " *                    lies outside S (could deadlock or overflow later):\n"
               " *                    the runtime refuses it until progress is made.\n"
               " * Progress steps never leave S, so their cells are a state or CS_DISABLED.");
  fputs("/* ", out);
  for (uint32_t t = 0; t < net->ntransitions; t++) {
    size_t written = text_c_comment(out, net->transitions[t].name);
    if (t + 1 < net->ntransitions)
      for (size_t i = written; i < width[t] + 1; i++)
        fputc(' ', out);
  }
  fputs(" */\n", out);
  fputs("static const int32_t next_state[] = {\n", out);
  char cell[32];
  for (uint32_t k = 0; k < c->nsafe && rc == 0; k++) {
    uint64_t s = c->from_safe[k];
    fputs("   ", out);
    for (uint32_t t = 0; t < net->ntransitions; t++) {
      int64_t succ = pn_analysis_successor(c->a, s, t);
      if (succ < 0) {
        snprintf(cell, sizeof cell, "CS_DISABLED,");
      } else if (c->to_safe[succ] != UINT32_MAX) {
        snprintf(cell, sizeof cell, "%" PRIu32 ",", c->to_safe[succ]);
      } else if (net->transitions[t].kind == PN_ADMISSION) {
        snprintf(cell, sizeof cell, "CS_REFUSED,");
      } else {
        /* The runtime cannot refuse a progress step: a table that claimed
         * one leaves S would give no guarantee at all. */
        fprintf(diag_stream(),
                "%s: internal error: progress step '%s' leads from safe state %" PRIu64
                " to state %" PRId64 " outside the safe set; refusing to emit tables\n",
                net->source_path, net->transitions[t].name, s, succ);
        rc = -EPROTO;
        break;
      }
      fputs(cell, out);
      for (size_t i = strlen(cell); i < width[t] + 1; i++)
        fputc(' ', out);
    }
    emit_c_state_comment(out, c, k);
    fputc('\n', out);
  }
  free(width);
  if (rc != 0)
    return rc;
  fputs("};\n", out);
  fprintf(
      out,
      "_Static_assert(sizeof next_state / sizeof next_state[0] == (size_t)%s_N_STATES * %s_N_TRANSITIONS,\n"
      "               \"one row per state of S, one column per transition\");\n",
      c->upper, c->upper);
  emit_c_end(out, "next_state");
  return 0;
}

int emit_c_net_source(FILE *out, const struct pn_net *net, const struct pn_analysis *a,
                      const char *ident, const char *header_name, const char *generator)
{
  struct emit_c_ctx c;
  int rc = emit_c_ctx_init(&c, net, a, ident);
  if (rc != 0)
    return rc;
  size_t taglen = strlen(ident) + 32;
  char *place_tag = malloc(taglen), *trans_tag = malloc(taglen);
  if (!place_tag || !trans_tag) {
    rc = -ENOMEM;
    goto cleanup;
  }
  snprintf(place_tag, taglen, "cs_model_%s_place", ident);
  snprintf(trans_tag, taglen, "cs_model_%s_transition", ident);

  emit_c_banner(out, &c, generator,
                "The scheduler table of the model: its places and transitions, the safe\n"
                " * set S of markings the admission runtime keeps the system in, and for each\n"
                " * state of S and each transition the state that firing it leads to.");
  fputs("#include ", out);
  text_c_string(out, header_name);
  fputs("\n\n#include <stddef.h>\n\n", out);

  emit_c_places(out, &c, place_tag);
  emit_c_transitions(out, &c, trans_tag);
  emit_c_tracked(out, &c);
  if ((rc = emit_c_markings(out, &c)) != 0)
    goto cleanup;
  if ((rc = emit_c_next_state(out, &c)) != 0)
    goto cleanup;

  emit_c_begin(out, "model", NULL,
               " * The descriptor the runtime links: sizes and pointers to the tables above\n"
               " * (NULL for a table with no entries).");
  fprintf(out, "const struct cs_model_table cs_model_%s = {\n", ident);
  fputs("  .version = CS_MODEL_TABLE_VERSION,\n  .model_name = ", out);
  text_c_string(out, net->name && net->name[0] ? net->name : ident);
  fputs(",\n  .source_path = ", out);
  text_c_string(out, net->source_path ? net->source_path : "");
  fputs(",\n", out);
  int hp = net->nplaces > 0, ht = net->ntransitions > 0;
  fprintf(out, "  .n_places = %s_N_PLACES,\n", c.upper);
  fprintf(out, "  .place_names = %s,\n", hp ? "place_names" : "NULL");
  fprintf(out, "  .place_roles = %s,\n", hp ? "place_roles" : "NULL");
  fprintf(out, "  .place_capacities = %s,\n", hp ? "place_capacities" : "NULL");
  fprintf(out, "  .place_initial = %s,\n", hp ? "place_initial" : "NULL");
  fprintf(out, "  .n_transitions = %s_N_TRANSITIONS,\n", c.upper);
  fprintf(out, "  .transition_names = %s,\n", ht ? "transition_names" : "NULL");
  fprintf(out, "  .transition_kinds = %s,\n", ht ? "transition_kinds" : "NULL");
  fprintf(out, "  .transition_completion = %s,\n", ht ? "transition_completion" : "NULL");
  uint32_t npre = 0, npost = 0;
  for (uint32_t t = 0; t < net->ntransitions; t++) {
    npre += net->transitions[t].npre;
    npost += net->transitions[t].npost;
  }
  fprintf(out, "  .pre_start = %s,\n", ht ? "pre_start" : "NULL");
  fprintf(out, "  .pre_arcs = %s,\n", npre ? "pre_arcs" : "NULL");
  fprintf(out, "  .post_start = %s,\n", ht ? "post_start" : "NULL");
  fprintf(out, "  .post_arcs = %s,\n", npost ? "post_arcs" : "NULL");
  fprintf(out, "  .n_states = %s_N_STATES,\n", c.upper);
  fprintf(out, "  .n_tracked = %s_N_TRACKED,\n", c.upper);
  fprintf(out, "  .tracked_places = %s,\n", c.ntracked ? "tracked_places" : "NULL");
  fprintf(out, "  .markings = %s,\n", c.ntracked ? "markings" : "NULL");
  fprintf(out, "  .next_state = %s,\n", ht ? "next_state" : "NULL");
  fputs("  .initial_state = 0,\n};\n", out);
  emit_c_end(out, "model");
  rc = text_stream_status(out);

cleanup:
  free(place_tag);
  free(trans_tag);
  emit_c_ctx_free(&c);
  return rc;
}
