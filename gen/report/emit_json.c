/* emit_json: the analysis report as one JSON object (docs/report-schema.md).
 *
 * Built with jansson and dumped with sorted keys, so two runs on the same
 * model give byte-identical reports that a CI job can diff. Counts are JSON
 * integers (jansson's json_int_t is 64-bit here). */
#include "emit_report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "c_text.h"

#define EMIT_JSON_SCHEMA_VERSION 1

/* json_object_set_new / json_array_append_new steal the value even on
 * failure, so a chain of them needs one check at the end: any failure
 * leaves a member missing, which the caller detects by a counter. */
struct emit_json_b {
  int failed;
};

/* JSON text must be UTF-8; a file name need not be. Bytes that do not form
 * valid UTF-8 become U+FFFD, so the report stays valid JSON and still says
 * which name it was, instead of failing as if memory had run out. */
static char *utf8_clean(const char *s)
{
  size_t n = strlen(s), j = 0;
  char *r = malloc(n * 3 + 1);
  if (!r)
    return NULL;
  for (size_t i = 0; i < n;) {
    unsigned char c = (unsigned char)s[i];
    size_t len = c < 0x80           ? 1
                 : (c >> 5) == 0x6  ? 2
                 : (c >> 4) == 0xe  ? 3
                 : (c >> 3) == 0x1e ? 4
                                    : 0;
    int ok = len > 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; k++)
      ok = ((unsigned char)s[i + k] >> 6) == 0x2;
    if (ok) {
      memcpy(r + j, s + i, len);
      j += len;
      i += len;
    } else {
      memcpy(r + j, "\xef\xbf\xbd", 3);
      j += 3;
      i++;
    }
  }
  r[j] = '\0';
  return r;
}

static json_t *str(const char *s)
{
  json_t *v = json_string(s);
  if (v)
    return v;
  char *clean = utf8_clean(s);
  v = clean ? json_string(clean) : NULL;
  free(clean);
  return v;
}

static void set(struct emit_json_b *b, json_t *obj, const char *key, json_t *v)
{
  if (!v) {
    b->failed = 1;
    return;
  }
  /* set_new consumes v even when it fails: keep a reference for the retry. */
  json_incref(v);
  if (json_object_set_new(obj, key, v) == 0) {
    json_decref(v);
    return;
  }
  char *clean = utf8_clean(key);
  if (!clean) {
    json_decref(v);
    b->failed = 1;
    return;
  }
  if (json_object_set_new(obj, clean, v) != 0)
    b->failed = 1;
  free(clean);
}

static void push(struct emit_json_b *b, json_t *arr, json_t *v)
{
  if (!v || json_array_append_new(arr, v) != 0)
    b->failed = 1;
}

static json_t *emit_json_arcs(struct emit_json_b *b, const struct pn_net *net,
                              const struct pn_arc *arcs, uint32_t n)
{
  json_t *o = json_object();
  if (!o)
    return NULL;
  for (uint32_t i = 0; i < n; i++)
    set(b, o, net->places[arcs[i].place].name, json_integer(arcs[i].weight));
  return o;
}

static json_t *emit_json_places(struct emit_json_b *b, const struct pn_net *net)
{
  json_t *arr = json_array();
  if (!arr)
    return NULL;
  for (uint32_t i = 0; i < net->nplaces; i++) {
    const struct pn_place *p = &net->places[i];
    json_t *o = json_object();
    if (o) {
      set(b, o, "name", str(p->name));
      set(b, o, "role", str(pn_place_role_name(p->role)));
      set(b, o, "capacity", p->capacity == PN_UNBOUNDED ? json_null() : json_integer(p->capacity));
      set(b, o, "initial", json_integer(p->initial));
    }
    push(b, arr, o);
  }
  return arr;
}

static json_t *emit_json_transitions(struct emit_json_b *b, const struct pn_net *net)
{
  json_t *arr = json_array();
  if (!arr)
    return NULL;
  for (uint32_t i = 0; i < net->ntransitions; i++) {
    const struct pn_transition *t = &net->transitions[i];
    json_t *o = json_object();
    if (o) {
      set(b, o, "name", str(t->name));
      set(b, o, "kind", str(pn_transition_kind_name(t->kind)));
      set(b, o, "pre", emit_json_arcs(b, net, t->pre, t->npre));
      set(b, o, "post", emit_json_arcs(b, net, t->post, t->npost));
      if (t->completion >= 0 && (uint32_t)t->completion < net->ntransitions)
        set(b, o, "completion", str(net->transitions[t->completion].name));
      else
        set(b, o, "completion", json_null());
    }
    push(b, arr, o);
  }
  return arr;
}

static json_t *emit_json_marking(struct emit_json_b *b, const struct pn_net *net,
                                 const struct pn_analysis *a, uint64_t s, int64_t *tokens)
{
  json_t *o = json_object();
  if (!o)
    return NULL;
  pn_analysis_marking(a, s, tokens);
  for (uint32_t i = 0; i < net->nplaces; i++)
    if (net->places[i].role == PN_PLACE_TRACKED)
      set(b, o, net->places[i].name, json_integer(tokens[i]));
  return o;
}

static json_t *emit_json_assertions(struct emit_json_b *b, const struct pn_net *net,
                                    const struct pn_analysis *a, int64_t *tokens)
{
  json_t *arr = json_array();
  if (!arr)
    return NULL;
  for (uint32_t i = 0; i < net->nassertions; i++) {
    const struct pn_assertion *as = &net->assertions[i];
    const struct pn_assert_result *r = pn_analysis_assertion(a, i);
    json_t *o = json_object();
    if (o) {
      set(b, o, "text", str(as->text ? as->text : ""));
      set(b, o, "kind", str(pn_assert_kind_name(as->kind)));
      set(b, o, "implicit", json_boolean(as->implicit));
      set(b, o, "line", as->loc.line > 0 ? json_integer(as->loc.line) : json_null());
      set(b, o, "holds", json_boolean(r->holds));
      /* A violated safety assertion has a counterexample; a reachability
       * assertion that holds has a witness. Either way the sequence is the
       * shortest from the initial marking. */
      if (r->trace || r->witness >= 0) {
        json_t *trace = json_array();
        if (trace)
          for (uint32_t k = 0; k < r->ntrace; k++)
            push(b, trace, str(net->transitions[r->trace[k]].name));
        set(b, o, "trace", trace);
        if (r->witness >= 0)
          set(b, o, "state", emit_json_marking(b, net, a, (uint64_t)r->witness, tokens));
      }
    }
    push(b, arr, o);
  }
  return arr;
}

json_t *emit_json_report(const struct pn_net *net, const struct pn_analysis *a)
{
  struct emit_json_b b = { 0 };
  int64_t *tokens = calloc(net->nplaces ? net->nplaces : 1, sizeof *tokens);
  json_t *root = json_object();
  if (!tokens || !root)
    goto fail;

  set(&b, root, "schema_version", json_integer(EMIT_JSON_SCHEMA_VERSION));
  set(&b, root, "model", str(net->name && net->name[0] ? net->name : ""));
  set(&b, root, "source", str(net->source_path ? net->source_path : ""));
  set(&b, root, "places", emit_json_places(&b, net));
  set(&b, root, "transitions", emit_json_transitions(&b, net));
  set(&b, root, "states", json_integer((json_int_t)pn_analysis_states(a)));
  set(&b, root, "edges", json_integer((json_int_t)pn_analysis_edges(a)));
  set(&b, root, "deadlocks", json_integer((json_int_t)pn_analysis_class_count(a, PN_CLASS_DEAD)));

  json_t *classes = json_object();
  if (classes) {
    static const enum pn_class all[] = { PN_CLASS_DEAD, PN_CLASS_UNSAFE, PN_CLASS_SATURATED,
                                         PN_CLASS_SAFE };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
      set(&b, classes, pn_class_name(all[i]),
          json_integer((json_int_t)pn_analysis_class_count(a, all[i])));
  }
  set(&b, root, "classes", classes);
  set(&b, root, "safe_set", json_integer((json_int_t)pn_analysis_safe_set_size(a)));

  json_t *bounds = json_object();
  const int64_t *bound = pn_analysis_bounds(a);
  if (bounds)
    for (uint32_t i = 0; i < net->nplaces; i++)
      if (net->places[i].role == PN_PLACE_TRACKED)
        set(&b, bounds, net->places[i].name, json_integer(bound[i]));
  set(&b, root, "bounds", bounds);

  json_t *asserts = emit_json_assertions(&b, net, a, tokens);
  set(&b, root, "assertions", asserts);
  int holds = 1;
  for (uint32_t i = 0; i < net->nassertions; i++)
    if (!pn_analysis_assertion(a, i)->holds)
      holds = 0;
  set(&b, root, "holds", json_boolean(holds));
  if (b.failed)
    goto fail;
  free(tokens);
  return root;

fail:
  free(tokens);
  json_decref(root);
  return NULL;
}

int emit_json_write(FILE *out, const struct pn_net *net, const struct pn_analysis *a)
{
  json_t *root = emit_json_report(net, a);
  if (!root)
    return -ENOMEM;
  errno = 0;
  json_dumpf(root, out, JSON_SORT_KEYS | JSON_INDENT(2));
  json_decref(root);
  fputc('\n', out);
  return text_stream_status(out);
}
