/* emit_dot: Graphviz view of a net and, for small nets, of its reachability
 * graph (docs/pnetc.md, "--emit dot").
 *
 * Drawing conventions (also in the legend node of the output):
 *   place        circle, "name\ncap N" (or "cap -" when unbounded), initial
 *                tokens as "(k)"; environment places dashed;
 *   admission    box, filled light blue (the runtime may refuse it);
 *   progress     box, white (cannot be refused);
 *   arc          labelled with its weight when the weight is not 1.
 * Reachability graph (at most EMIT_DOT_MAX_STATES states): one node per
 * marking, named Sk as in the C tables when it is in the safe set S ("not in S"
 * otherwise), coloured by class (safe green, saturated yellow, unsafe orange,
 * deadlock red), edges labelled with the transition fired. */
#include "emit_report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "c_text.h"

/* A DOT quoted string: only '"' and '\\' need escaping; newlines are
 * written as the \n label escape. */
static void emit_dot_string(FILE *out, const char *s)
{
  fputc('"', out);
  for (const char *p = s; *p; p++) {
    if (*p == '"' || *p == '\\')
      fputc('\\', out);
    if (*p == '\n') {
      fputs("\\n", out);
      continue;
    }
    fputc(*p, out);
  }
  fputc('"', out);
}

static const char *emit_dot_class_colour(enum pn_class c)
{
  switch (c) {
  case PN_CLASS_DEAD:
    return "#f4a4a4";
  case PN_CLASS_UNSAFE:
    return "#f8c88a";
  case PN_CLASS_SATURATED:
    return "#f4ec9c";
  case PN_CLASS_SAFE:
    return "#b8e6b0";
  }
  return "white";
}

static void emit_dot_net(FILE *out, const struct pn_net *net)
{
  fputs("  subgraph cluster_net {\n    label=\"net\";\n", out);
  for (uint32_t i = 0; i < net->nplaces; i++) {
    const struct pn_place *p = &net->places[i];
    fprintf(out, "    p%" PRIu32 " [shape=circle, label=", i);
    fputc('"', out);
    for (const char *c = p->name; *c; c++) {
      if (*c == '"' || *c == '\\')
        fputc('\\', out);
      fputc(*c, out);
    }
    /* Environment places are not counted, so a capacity means nothing there. */
    if (p->role != PN_PLACE_TRACKED)
      fputs("\\n(environment)", out);
    else if (p->capacity == PN_UNBOUNDED)
      fputs("\\ncap -", out);
    else
      fprintf(out, "\\ncap %" PRId64, p->capacity);
    if (p->initial > 0)
      fprintf(out, "\\n(%" PRId64 ")", p->initial);
    fputc('"', out);
    if (p->role != PN_PLACE_TRACKED)
      fprintf(out, ", style=dashed, tooltip=\"%s place (not tracked)\"",
              pn_place_role_name(p->role));
    fputs("];\n", out);
  }
  for (uint32_t i = 0; i < net->ntransitions; i++) {
    const struct pn_transition *t = &net->transitions[i];
    fprintf(out, "    t%" PRIu32 " [shape=box, label=", i);
    emit_dot_string(out, t->name);
    if (t->kind == PN_ADMISSION)
      fputs(", style=filled, fillcolor=\"#cfe3ff\"", out);
    fputs("];\n", out);
  }
  for (uint32_t i = 0; i < net->ntransitions; i++) {
    const struct pn_transition *t = &net->transitions[i];
    for (uint32_t k = 0; k < t->npre; k++) {
      fprintf(out, "    p%" PRIu32 " -> t%" PRIu32, t->pre[k].place, i);
      if (t->pre[k].weight != 1)
        fprintf(out, " [label=\"%" PRIu32 "\"]", t->pre[k].weight);
      fputs(";\n", out);
    }
    for (uint32_t k = 0; k < t->npost; k++) {
      fprintf(out, "    t%" PRIu32 " -> p%" PRIu32, i, t->post[k].place);
      if (t->post[k].weight != 1)
        fprintf(out, " [label=\"%" PRIu32 "\"]", t->post[k].weight);
      fputs(";\n", out);
    }
    if (t->kind == PN_ADMISSION && t->completion >= 0 &&
        (uint32_t)t->completion < net->ntransitions)
      fprintf(out,
              "    t%" PRIu32 " -> t%" PRId32 " [style=dotted, arrowhead=none, constraint=false, "
              "tooltip=\"completed by\"];\n",
              i, t->completion);
  }
  fputs("    legend [shape=note, label=\"circle: place (cap = capacity, (k) = initial tokens, "
        "dashed = environment)\\lblue box: admission (may be refused)\\lwhite box: progress step"
        "\\llabel on arc: weight (1 when absent)\\l\"];\n",
        out);
  fputs("  }\n", out);
}

static int emit_dot_graph(FILE *out, const struct pn_net *net, const struct pn_analysis *a)
{
  uint64_t states = pn_analysis_states(a);
  int64_t *tokens = calloc(net->nplaces ? net->nplaces : 1, sizeof *tokens);
  if (!tokens)
    return -ENOMEM;
  fprintf(out,
          "  subgraph cluster_states {\n    label=\"reachability graph: %" PRIu64
          " states (green safe, yellow saturated, orange unsafe, red deadlock)\";\n",
          states);
  /* Labels use the numbering of the generated C tables (Sk = row k of S),
   * so the picture and the table an auditor compares name the same state;
   * markings outside S have no row and are labelled by their class only. */
  uint64_t row = 0;
  for (uint64_t s = 0; s < states; s++) {
    pn_analysis_marking(a, s, tokens);
    enum pn_class cls = pn_analysis_class(a, s);
    fprintf(out, "    s%" PRIu64 " [shape=ellipse, style=filled, fillcolor=\"%s\", label=\"", s,
            emit_dot_class_colour(cls));
    if (pn_analysis_in_safe_set(a, s))
      fprintf(out, "S%" PRIu64, row++);
    else
      fputs("not in S", out);
    for (uint32_t i = 0; i < net->nplaces; i++) {
      if (net->places[i].role != PN_PLACE_TRACKED)
        continue;
      fputs("\\n", out);
      for (const char *c = net->places[i].name; *c; c++) {
        if (*c == '"' || *c == '\\')
          fputc('\\', out);
        fputc(*c, out);
      }
      fprintf(out, "=%" PRId64, tokens[i]);
    }
    fprintf(out, "\\n%s\"%s];\n", pn_class_name(cls), s == 0 ? ", penwidth=2" : "");
  }
  for (uint64_t s = 0; s < states; s++)
    for (uint32_t t = 0; t < net->ntransitions; t++) {
      int64_t succ = pn_analysis_successor(a, s, t);
      if (succ < 0)
        continue;
      fprintf(out, "    s%" PRIu64 " -> s%" PRId64 " [label=", s, succ);
      emit_dot_string(out, net->transitions[t].name);
      /* The edges the runtime refuses: admissions leaving the safe set. */
      if (net->transitions[t].kind == PN_ADMISSION && pn_analysis_in_safe_set(a, s) &&
          !pn_analysis_in_safe_set(a, (uint64_t)succ))
        fputs(", style=dashed, color=red, fontcolor=red", out);
      fputs("];\n", out);
    }
  fputs("  }\n", out);
  free(tokens);
  return 0;
}

int emit_dot(FILE *out, const struct pn_net *net, const struct pn_analysis *a)
{
  fputs("/* DO NOT EDIT: generated by pnetc --emit dot from ", out);
  text_c_comment(out, net->source_path ? net->source_path : "");
  fputs(". */\ndigraph ", out);
  emit_dot_string(out, net->name && net->name[0] ? net->name : "net");
  fputs(" {\n  rankdir=LR;\n  node [fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\"];\n",
        out);
  emit_dot_net(out, net);
  if (a && pn_analysis_states(a) <= EMIT_DOT_MAX_STATES) {
    int rc = emit_dot_graph(out, net, a);
    if (rc != 0)
      return rc;
  } else if (a) {
    fprintf(out,
            "  /* reachability graph omitted: %" PRIu64 " states > %d (EMIT_DOT_MAX_STATES) */\n",
            pn_analysis_states(a), EMIT_DOT_MAX_STATES);
  }
  fputs("}\n", out);
  return text_stream_status(out);
}
