/* pnml: PNML (ISO/IEC 15909-2) place/transition nets -> struct pn_net.
 *
 * libxml2 parses the document into a tree; this file walks it, checks the
 * P/T-net subset described in docs/analysis.md and lowers it. Unknown
 * elements (toolspecific, graphics, names of pages and arcs, ...) are
 * ignored because PNML tools attach them freely; anything that changes
 * the meaning of the net (another net type, reference nodes, a missing
 * arc end, a malformed number) is an error. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/hash.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include "diag.h"
#include "pnml.h"

#define PNML_MAX_PAGE_DEPTH 64

struct pnml_node {
  char *id;
  char *name; /* <name><text>, or NULL */
  int64_t initial;
  bool is_place;
  uint32_t index; /* into places or transitions */
  struct diag_loc loc;
};

struct pnml_arc {
  char *source, *target;
  uint32_t weight;
  struct diag_loc loc;
};

struct pnml_reader {
  struct diag_source *src;
  xmlHashTablePtr ids; /* id -> struct pnml_node *, or (void *)1 for arcs */
  struct pnml_node **places, **trans;
  uint32_t nplaces, ntrans;
  size_t places_cap, trans_cap;
  struct pnml_arc *arcs;
  uint32_t narcs;
  size_t arcs_cap;
  bool failed;
};

/* ---- helpers --------------------------------------------------------------- */

static bool pnml_is(const xmlNode *n, const char *name)
{
  return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

/* libxml2 gives a line; the column is where the element's tag opens on it. */
static struct diag_loc pnml_loc(const struct pnml_reader *r, const xmlNode *n)
{
  struct diag_loc loc = { r->src, (int)xmlGetLineNo(n), 1 };
  if (loc.line < 1 || (size_t)loc.line > r->src->line_count) {
    loc.line = 0;
    return loc;
  }
  const char *line = r->src->text + r->src->line_starts[loc.line - 1];
  const char *end = strchr(line, '\n');
  size_t len = end ? (size_t)(end - line) : strlen(line), nlen = strlen((const char *)n->name);
  for (size_t i = 0; i + nlen < len; i++) {
    if (line[i] != '<')
      continue;
    size_t j = i + 1;
    while (j < len && line[j] != ':' && line[j] != ' ' && line[j] != '>' && line[j] != '/')
      j++;
    size_t start = (j < len && line[j] == ':') ? j + 1 : i + 1;
    if (start + nlen <= len && memcmp(line + start, n->name, nlen) == 0 &&
        (start + nlen == len || strchr(" \t\r/>", line[start + nlen]))) {
      loc.col = (int)i + 1;
      break;
    }
  }
  return loc;
}

static void pnml_fail(struct pnml_reader *r, const xmlNode *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void pnml_fail(struct pnml_reader *r, const xmlNode *n, const char *fmt, ...)
{
  struct diag_loc loc = pnml_loc(r, n);
  va_list ap;
  va_start(ap, fmt);
  diag_verror(&loc, fmt, ap);
  va_end(ap);
  r->failed = true;
}

static char *pnml_attr(const xmlNode *n, const char *name)
{
  xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
  if (!v)
    return NULL;
  char *s = strdup((const char *)v);
  xmlFree(v);
  return s;
}

/* The <text> of child element `child` (e.g. initialMarking), or NULL. */
static char *pnml_child_text(const xmlNode *n, const char *child, const xmlNode **where)
{
  for (const xmlNode *c = n->children; c; c = c->next) {
    if (!pnml_is(c, child))
      continue;
    for (const xmlNode *t = c->children; t; t = t->next) {
      if (!pnml_is(t, "text"))
        continue;
      xmlChar *v = xmlNodeGetContent(t);
      if (!v)
        return NULL;
      char *s = strdup((const char *)v);
      xmlFree(v);
      if (where)
        *where = t;
      return s;
    }
  }
  return NULL;
}

/* A non-negative decimal with optional surrounding blanks, at most max. */
static bool pnml_number(const char *s, uint64_t max, uint64_t *out)
{
  while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
    s++;
  if (*s < '0' || *s > '9')
    return false;
  uint64_t v = 0;
  for (; *s >= '0' && *s <= '9'; s++) {
    uint64_t d = (uint64_t)(*s - '0');
    if (v > (max - d) / 10)
      return false;
    v = v * 10 + d;
  }
  while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
    s++;
  if (*s)
    return false;
  *out = v;
  return true;
}

static int pnml_grow(void **arr, size_t *cap, size_t n, size_t size)
{
  if (n < *cap)
    return 0;
  size_t c = *cap ? *cap * 2 : 16;
  void *p = realloc(*arr, c * size);
  if (!p)
    return -ENOMEM;
  *arr = p;
  *cap = c;
  return 0;
}

/* Records id; false (after an error) when it is missing or taken. */
static bool pnml_claim_id(struct pnml_reader *r, const xmlNode *n, const char *id, void *what)
{
  if (!id || !*id) {
    pnml_fail(r, n, "<%s> has no id attribute", (const char *)n->name);
    return false;
  }
  void *prev = xmlHashLookup(r->ids, (const xmlChar *)id);
  if (prev) {
    pnml_fail(r, n, "duplicate id '%s'", id);
    if (prev != (void *)1)
      diag_note(&((struct pnml_node *)prev)->loc, "'%s' first defined here", id);
    return false;
  }
  if (xmlHashAddEntry(r->ids, (const xmlChar *)id, what) != 0) {
    pnml_fail(r, n, "out of memory");
    return false;
  }
  return true;
}

/* ---- walking the tree ---------------------------------------------------- */

static void pnml_node(struct pnml_reader *r, const xmlNode *n, bool is_place)
{
  struct pnml_node *node = calloc(1, sizeof *node);
  if (!node) {
    pnml_fail(r, n, "out of memory");
    return;
  }
  node->id = pnml_attr(n, "id");
  node->name = pnml_child_text(n, "name", NULL);
  node->is_place = is_place;
  node->loc = pnml_loc(r, n);
  struct pnml_node ***arr = is_place ? &r->places : &r->trans;
  uint32_t *count = is_place ? &r->nplaces : &r->ntrans;
  size_t *cap = is_place ? &r->places_cap : &r->trans_cap;
  if (pnml_grow((void **)arr, cap, *count, sizeof **arr)) {
    pnml_fail(r, n, "out of memory");
    goto drop;
  }
  if (!pnml_claim_id(r, n, node->id, node))
    goto drop;
  node->index = *count;
  (*arr)[(*count)++] = node;

  if (is_place) {
    const xmlNode *where = n;
    char *text = pnml_child_text(n, "initialMarking", &where);
    uint64_t v = 0;
    if (text && !pnml_number(text, INT64_MAX, &v))
      pnml_fail(r, where, "initial marking of place '%s' is not a non-negative integer: '%s'",
                node->id, text);
    node->initial = (int64_t)v;
    free(text);
  }
  return;
drop:
  free(node->id);
  free(node->name);
  free(node);
}

static void pnml_arc_elem(struct pnml_reader *r, const xmlNode *n)
{
  char *id = pnml_attr(n, "id");
  struct pnml_arc arc = { pnml_attr(n, "source"), pnml_attr(n, "target"), 1, pnml_loc(r, n) };
  const xmlNode *where = n;
  char *text = pnml_child_text(n, "inscription", &where);
  if (!pnml_claim_id(r, n, id, (void *)1))
    goto drop;
  if (!arc.source || !*arc.source) {
    pnml_fail(r, n, "arc '%s' has no source attribute", id);
    goto drop;
  }
  if (!arc.target || !*arc.target) {
    pnml_fail(r, n, "arc '%s' has no target attribute", id);
    goto drop;
  }
  if (text) {
    uint64_t v;
    if (!pnml_number(text, INT32_MAX, &v) || v == 0) {
      pnml_fail(r, where, "inscription of arc '%s' is not an integer in 1..%d: '%s'", id, INT32_MAX,
                text);
      goto drop;
    }
    arc.weight = (uint32_t)v;
  }
  if (pnml_grow((void **)&r->arcs, &r->arcs_cap, r->narcs, sizeof *r->arcs)) {
    pnml_fail(r, n, "out of memory");
    goto drop;
  }
  r->arcs[r->narcs++] = arc;
  free(id);
  free(text);
  return;
drop:
  free(id);
  free(text);
  free(arc.source);
  free(arc.target);
}

static void pnml_page(struct pnml_reader *r, const xmlNode *page, int depth)
{
  if (depth > PNML_MAX_PAGE_DEPTH) {
    pnml_fail(r, page, "pages nested deeper than %d", PNML_MAX_PAGE_DEPTH);
    return;
  }
  for (const xmlNode *c = page->children; c && !r->failed; c = c->next) {
    if (c->type != XML_ELEMENT_NODE)
      continue;
    if (pnml_is(c, "page")) {
      char *id = pnml_attr(c, "id");
      if (pnml_claim_id(r, c, id, (void *)1))
        pnml_page(r, c, depth + 1);
      free(id);
    } else if (pnml_is(c, "place")) {
      pnml_node(r, c, true);
    } else if (pnml_is(c, "transition")) {
      pnml_node(r, c, false);
    } else if (pnml_is(c, "arc")) {
      pnml_arc_elem(r, c);
    } else if (pnml_is(c, "referencePlace") || pnml_is(c, "referenceTransition")) {
      /* Reference nodes alias nodes of other pages; not supported rather
       * than guessed at. */
      pnml_fail(r, c, "<%s> is not supported; flatten the net first", (const char *)c->name);
    }
    /* name, graphics, toolspecific, declarations...: no meaning for P/T semantics. */
  }
}

/* ---- lowering -------------------------------------------------------------- */

static bool pnml_prefix(const char *s, const char *p)
{
  return s && strncmp(s, p, strlen(p)) == 0;
}

static int pnml_arc_cmp(const void *x, const void *y)
{
  const struct pn_arc *a = x, *b = y;
  return (a->place > b->place) - (a->place < b->place);
}

/* Appends weight to the arc list of t, merging parallel arcs (their
 * weights add up, which is what two arcs mean under firing). */
static int pnml_add_arc(struct pn_arc **arcs, uint32_t *n, uint32_t place, uint32_t weight)
{
  for (uint32_t i = 0; i < *n; i++)
    if ((*arcs)[i].place == place) {
      if ((uint64_t)(*arcs)[i].weight + weight > INT32_MAX)
        return -EOVERFLOW;
      (*arcs)[i].weight += weight;
      return 0;
    }
  struct pn_arc *p = realloc(*arcs, (*n + 1) * sizeof *p);
  if (!p)
    return -ENOMEM;
  *arcs = p;
  p[(*n)++] = (struct pn_arc){ place, weight };
  return 0;
}

static struct pn_net *pnml_lower(struct pnml_reader *r, const char *net_id, const char *net_name)
{
  struct pn_net *net = calloc(1, sizeof *net);
  if (!net)
    goto oom;
  net->name = strdup(net_name ? net_name : net_id);
  net->source_path = strdup(r->src->path);
  net->places = calloc(r->nplaces ? r->nplaces : 1, sizeof *net->places);
  net->transitions = calloc(r->ntrans ? r->ntrans : 1, sizeof *net->transitions);
  net->assertions = calloc(1, sizeof *net->assertions);
  net->sources = calloc(1, sizeof *net->sources);
  if (!net->name || !net->source_path || !net->places || !net->transitions || !net->assertions ||
      !net->sources)
    goto oom;
  net->sources[net->nsources++] = r->src;
  r->src = NULL;
  for (uint32_t i = 0; i < r->nplaces; i++) {
    struct pn_place *p = &net->places[i];
    net->nplaces++;
    p->name = strdup(r->places[i]->id);
    if (!p->name)
      goto oom;
    p->role = PN_PLACE_TRACKED;
    p->capacity = PN_UNBOUNDED;
    p->initial = r->places[i]->initial;
    p->loc = r->places[i]->loc;
  }
  for (uint32_t i = 0; i < r->ntrans; i++) {
    struct pn_transition *t = &net->transitions[i];
    const struct pnml_node *n = r->trans[i];
    net->ntransitions++;
    t->name = strdup(n->id);
    if (!t->name)
      goto oom;
    t->kind =
        pnml_prefix(n->id, "admit_") || pnml_prefix(n->name, "admit_") ? PN_ADMISSION : PN_PROGRESS;
    t->completion = -1;
    t->loc = n->loc;
  }
  for (uint32_t i = 0; i < r->narcs; i++) {
    const struct pnml_arc *arc = &r->arcs[i];
    const struct pnml_node *s = xmlHashLookup(r->ids, (const xmlChar *)arc->source);
    const struct pnml_node *d = xmlHashLookup(r->ids, (const xmlChar *)arc->target);
    if (!s || s == (void *)1) {
      diag_error(&arc->loc, "arc source '%s' is not a place or transition of the net", arc->source);
      goto bad;
    }
    if (!d || d == (void *)1) {
      diag_error(&arc->loc, "arc target '%s' is not a place or transition of the net", arc->target);
      goto bad;
    }
    if (s->is_place == d->is_place) {
      diag_error(&arc->loc, "arc from %s '%s' to %s '%s': arcs must join a place and a transition",
                 s->is_place ? "place" : "transition", arc->source,
                 d->is_place ? "place" : "transition", arc->target);
      goto bad;
    }
    int rc = s->is_place ? pnml_add_arc(&net->transitions[d->index].pre,
                                        &net->transitions[d->index].npre, s->index, arc->weight)
                         : pnml_add_arc(&net->transitions[s->index].post,
                                        &net->transitions[s->index].npost, d->index, arc->weight);
    if (rc == -EOVERFLOW) {
      diag_error(&arc->loc, "parallel arcs between '%s' and '%s' weigh more than %d in total",
                 arc->source, arc->target, INT32_MAX);
      goto bad;
    }
    if (rc)
      goto oom;
  }
  for (uint32_t i = 0; i < net->ntransitions; i++) {
    struct pn_transition *t = &net->transitions[i];
    if (t->npre)
      qsort(t->pre, t->npre, sizeof *t->pre, pnml_arc_cmp);
    if (t->npost)
      qsort(t->post, t->npost, sizeof *t->post, pnml_arc_cmp);
    /* The completion of admit_X is complete_X when the net has one. */
    if (t->kind == PN_ADMISSION && pnml_prefix(t->name, "admit_")) {
      for (uint32_t k = 0; k < net->ntransitions; k++)
        if (pnml_prefix(net->transitions[k].name, "complete_") &&
            strcmp(net->transitions[k].name + 9, t->name + 6) == 0)
          t->completion = (int32_t)k;
    }
  }
  /* PNML carries no properties; deadlock freedom is what every model of
   * this project must have, so it is checked implicitly. */
  struct pn_assertion *as = &net->assertions[0];
  as->kind = PN_ASSERT_NO_DEADLOCK;
  as->text = strdup("no deadlock");
  as->implicit = true;
  as->loc = (struct diag_loc){ net->sources[0], 0, 0 };
  net->nassertions = 1;
  if (!as->text)
    goto oom;
  return net;
oom:
  diag_error(NULL, "%s: out of memory", r->src ? r->src->path : net->source_path);
bad:
  pn_net_free(net);
  return NULL;
}

/* ---- entry points ---------------------------------------------------------- */

struct pnml_xml_error {
  int line, col;
  char msg[256];
  bool set;
};

static void pnml_on_xml_error(void *ctx, xmlErrorPtr e)
{
  struct pnml_xml_error *st = ctx;
  if (st->set || !e || e->level < XML_ERR_ERROR)
    return;
  st->set = true;
  st->line = e->line;
  st->col = e->int2 > 0 ? e->int2 : 1;
  snprintf(st->msg, sizeof st->msg, "%s", e->message ? e->message : "malformed XML");
  size_t len = strlen(st->msg);
  while (len && (st->msg[len - 1] == '\n' || st->msg[len - 1] == ' '))
    st->msg[--len] = 0;
}

static void pnml_reader_free(struct pnml_reader *r)
{
  for (uint32_t i = 0; i < r->nplaces; i++) {
    free(r->places[i]->id);
    free(r->places[i]->name);
    free(r->places[i]);
  }
  for (uint32_t i = 0; i < r->ntrans; i++) {
    free(r->trans[i]->id);
    free(r->trans[i]->name);
    free(r->trans[i]);
  }
  for (uint32_t i = 0; i < r->narcs; i++) {
    free(r->arcs[i].source);
    free(r->arcs[i].target);
  }
  free(r->places);
  free(r->trans);
  free(r->arcs);
  if (r->ids)
    xmlHashFree(r->ids, NULL);
  diag_source_free(r->src);
}

static struct pn_net *pnml_parse_source(struct diag_source *src)
{
  struct pnml_reader r = { .src = src };
  struct pn_net *net = NULL;
  struct pnml_xml_error xe = { 0 };
  xmlDocPtr doc = NULL;
  char *net_id = NULL, *type = NULL, *net_name = NULL;

  if (src->length > INT_MAX) {
    diag_error(NULL, "%s: file too large", src->path);
    goto out;
  }
  r.ids = xmlHashCreate(64);
  if (!r.ids)
    goto out;
  /* NONET: a model must never make the compiler fetch anything; entities
   * are left unexpanded and no DTD is loaded. */
  xmlSetStructuredErrorFunc(&xe, pnml_on_xml_error);
  doc = xmlReadMemory(src->text, (int)src->length, src->path, NULL,
                      XML_PARSE_NONET | XML_PARSE_NOWARNING | XML_PARSE_NOERROR);
  xmlSetStructuredErrorFunc(NULL, NULL);
  if (!doc) {
    struct diag_loc loc = { src, xe.set ? xe.line : 0, xe.set ? xe.col : 1 };
    diag_error(&loc, "malformed XML: %s", xe.set ? xe.msg : "unreadable document");
    goto out;
  }
  xmlNode *root = xmlDocGetRootElement(doc);
  if (!root || !pnml_is(root, "pnml")) {
    struct diag_loc loc = { src, root ? (int)xmlGetLineNo(root) : 0, 1 };
    diag_error(&loc, "not a PNML document: the root element must be <pnml>");
    goto out;
  }
  const xmlNode *net_node = NULL;
  for (const xmlNode *c = root->children; c; c = c->next) {
    if (!pnml_is(c, "net"))
      continue;
    if (net_node) {
      pnml_fail(&r, c, "more than one <net> in the file; only one is supported");
      goto out;
    }
    net_node = c;
  }
  if (!net_node) {
    pnml_fail(&r, root, "no <net> element");
    goto out;
  }
  net_id = pnml_attr(net_node, "id");
  type = pnml_attr(net_node, "type");
  net_name = pnml_child_text(net_node, "name", NULL);
  if (!type) {
    pnml_fail(&r, net_node, "<net> has no type attribute (expected a P/T net, ...ptnet)");
    goto out;
  }
  size_t tl = strlen(type);
  if (tl < 5 || strcmp(type + tl - 5, "ptnet") != 0) {
    pnml_fail(&r, net_node, "net type '%s' is not a place/transition net (...ptnet)", type);
    goto out;
  }
  if (!pnml_claim_id(&r, net_node, net_id, (void *)1))
    goto out;
  /* Pages are optional: nodes may sit directly under <net>. */
  pnml_page(&r, net_node, 0);
  if (r.failed)
    goto out;
  net = pnml_lower(&r, net_id, net_name);
out:
  free(net_id);
  free(type);
  free(net_name);
  if (doc)
    xmlFreeDoc(doc);
  pnml_reader_free(&r);
  return net;
}

struct pn_net *pnml_parse_file(const char *path)
{
  struct diag_source *src = diag_source_load(path, NULL);
  return src ? pnml_parse_source(src) : NULL;
}

struct pn_net *pnml_parse_memory(const char *name, const char *data, size_t length)
{
  struct diag_source *src = diag_source_from_memory(name, data, length);
  if (!src) {
    diag_error(NULL, "%s: out of memory", name);
    return NULL;
  }
  return pnml_parse_source(src);
}
