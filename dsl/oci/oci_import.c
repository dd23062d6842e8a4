/* oci_import: OCI/Docker seccomp JSON -> sc_ruleset (dsl/oci_import.h).
 *
 * jansson parses; positions for semantic errors are found by locating the
 * offending token in the source text (jansson keeps none for values), so a
 * message still points at the line an editor should open. */
#include "oci_import.h"

#include <errno.h>
#include <stdarg.h>
#include <jansson.h>
#include <linux/audit.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct imp {
  const char *path;
  struct diag_source *src;
  struct sc_ruleset *rs;
  struct oci_import_report *rep;
  uint32_t rule_cap;
  size_t search_from; /* token search resumes here: entries appear in file order */
  bool search_started;
};

/* Best-effort location of "token" (with quotes) or a bare token. */
static struct diag_loc token_loc(struct imp *im, const char *token, bool quoted)
{
  struct diag_loc loc = { .file = im->src, .line = 0, .col = 0 };
  char needle[256];
  if (!im->src || !token)
    return loc;
  snprintf(needle, sizeof needle, quoted ? "\"%s\"" : "%s", token);
  const char *hit = strstr(im->src->text + im->search_from, needle);
  if (!hit)
    hit = strstr(im->src->text, needle);
  if (!hit)
    return loc;
  size_t off = (size_t)(hit - im->src->text);
  size_t lo = 0, hi = im->src->line_count;
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if (im->src->line_starts[mid] <= off)
      lo = mid;
    else
      hi = mid;
  }
  loc.line = (int)lo + 1;
  loc.col = (int)(off - im->src->line_starts[lo]) + 1;
  return loc;
}

static void advance_to(struct imp *im, const char *token)
{
  char needle[256];
  if (!im->src || !token)
    return;
  snprintf(needle, sizeof needle, "\"%s\"", token);
  /* Past the previous entry's name: a call named by two entries gets
   * each entry's own position. */
  size_t from = im->search_from + (im->search_started ? 1 : 0);
  const char *hit = from <= im->src->length ? strstr(im->src->text + from, needle) : NULL;
  if (hit) {
    im->search_from = (size_t)(hit - im->src->text);
    im->search_started = true;
  }
}

static int bad(struct imp *im, const char *token, bool quoted, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int bad(struct imp *im, const char *token, bool quoted, const char *fmt, ...)
{
  struct diag_loc loc = token_loc(im, token, quoted);
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  /* With no position found, the file name alone still says where. */
  diag_error(&loc, "%s", msg);
  return -EINVAL;
}

static int parse_action(struct imp *im, json_t *act, json_t *errno_ret, struct sc_action *out)
{
  const char *s = json_string_value(act);
  json_int_t data = -1;
  if (!s)
    return bad(im, "action", true, "%s: \"action\" must be a string", "action");
  if (errno_ret && !json_is_null(errno_ret)) {
    if (!json_is_integer(errno_ret) || json_integer_value(errno_ret) < 0 ||
        json_integer_value(errno_ret) > 4095)
      return bad(im, "errnoRet", true, "%s must be an integer in 0..4095", "errnoRet");
    data = json_integer_value(errno_ret);
  }
  out->data = 0;
  /* libseccomp's SCMP_ACT_KILL is the thread-level kill. */
  if (!strcmp(s, "SCMP_ACT_KILL") || !strcmp(s, "SCMP_ACT_KILL_THREAD")) {
    out->kind = SC_ACT_KILL_THREAD;
  } else if (!strcmp(s, "SCMP_ACT_KILL_PROCESS")) {
    out->kind = SC_ACT_KILL_PROCESS;
  } else if (!strcmp(s, "SCMP_ACT_TRAP")) {
    out->kind = SC_ACT_TRAP;
  } else if (!strcmp(s, "SCMP_ACT_ERRNO")) {
    out->kind = SC_ACT_ERRNO;
    out->data = (uint16_t)(data >= 0 ? data : 1); /* runc's default: EPERM */
  } else if (!strcmp(s, "SCMP_ACT_TRACE")) {
    out->kind = SC_ACT_TRACE;
    out->data = (uint16_t)(data >= 0 ? data : 1);
  } else if (!strcmp(s, "SCMP_ACT_ALLOW")) {
    out->kind = SC_ACT_ALLOW;
  } else if (!strcmp(s, "SCMP_ACT_LOG")) {
    out->kind = SC_ACT_LOG;
  } else if (!strcmp(s, "SCMP_ACT_NOTIFY")) {
    out->kind = SC_ACT_NOTIFY;
  } else {
    return bad(im, s, true, "unknown seccomp action '%s'", s);
  }
  return 0;
}

static bool arch_is_native(const char *a)
{
  return !strcmp(a, "amd64") || !strcmp(a, "x86_64") || !strcmp(a, "SCMP_ARCH_X86_64");
}

/* "4.8" / "5.10.0" against the assumed baseline. */
static bool kernel_at_least(const char *v)
{
  int major = 0, minor = 0;
  if (sscanf(v, "%d.%d", &major, &minor) < 1)
    return false;
  if (OCI_ASSUMED_KERNEL_MAJOR != major)
    return OCI_ASSUMED_KERNEL_MAJOR > major;
  return OCI_ASSUMED_KERNEL_MINOR >= minor;
}

/* 1: the entry applies to a capability-less x86_64 process; 0: skip it. */
static int entry_applies(struct imp *im, json_t *entry)
{
  json_t *inc = json_object_get(entry, "includes"), *exc = json_object_get(entry, "excludes");
  if (inc && json_is_object(inc)) {
    json_t *caps = json_object_get(inc, "caps");
    if (json_is_array(caps) && json_array_size(caps) > 0) {
      im->rep->skipped_caps++;
      return 0;
    }
    json_t *arches = json_object_get(inc, "arches");
    if (json_is_array(arches) && json_array_size(arches) > 0) {
      bool found = false;
      size_t i;
      json_t *a;
      json_array_foreach(arches, i, a) if (json_is_string(a) &&
                                           arch_is_native(json_string_value(a))) found = true;
      if (!found) {
        im->rep->skipped_arch++;
        return 0;
      }
    }
    json_t *mk = json_object_get(inc, "minKernel");
    if (json_is_string(mk) && !kernel_at_least(json_string_value(mk))) {
      im->rep->skipped_kernel++;
      return 0;
    }
  }
  if (exc && json_is_object(exc)) {
    /* excludes.caps: "unless the process holds one of these" - we hold none,
     * so the entry applies. */
    json_t *arches = json_object_get(exc, "arches");
    size_t i;
    json_t *a;
    if (json_is_array(arches))
      json_array_foreach(arches, i,
                         a) if (json_is_string(a) && arch_is_native(json_string_value(a)))
      {
        im->rep->skipped_arch++;
        return 0;
      }
  }
  return 1;
}

static int parse_u64(struct imp *im, json_t *v, const char *what, uint64_t *out)
{
  if (!v || json_is_null(v)) {
    *out = 0;
    return 0;
  }
  /* jansson holds integers as signed 64-bit: values >= 2^63 do not parse
   * as integers and are refused rather than silently rounded. */
  if (!json_is_integer(v))
    return bad(im, what, true, "\"%s\" must be an unsigned integer", what);
  *out = (uint64_t)json_integer_value(v);
  return 0;
}

static int parse_cond(struct imp *im, json_t *arg, struct sc_cond *c)
{
  json_t *idx = json_object_get(arg, "index"), *op = json_object_get(arg, "op");
  memset(c, 0, sizeof *c);
  if (!json_is_integer(idx) || json_integer_value(idx) < 0 || json_integer_value(idx) > 5)
    return bad(im, "index", true, "argument \"%s\" must be 0..5", "index");
  c->arg = (uint8_t)json_integer_value(idx);
  const char *ops = json_string_value(op);
  if (!ops)
    return bad(im, "op", true, "argument \"%s\" must be a string", "op");
  uint64_t value = 0, two = 0;
  int rc = parse_u64(im, json_object_get(arg, "value"), "value", &value);
  if (!rc)
    rc = parse_u64(im, json_object_get(arg, "valueTwo"), "valueTwo", &two);
  if (rc)
    return rc;
  c->value = value;
  if (!strcmp(ops, "SCMP_CMP_EQ"))
    c->op = SC_CMP_EQ;
  else if (!strcmp(ops, "SCMP_CMP_NE"))
    c->op = SC_CMP_NE;
  else if (!strcmp(ops, "SCMP_CMP_LT"))
    c->op = SC_CMP_LT;
  else if (!strcmp(ops, "SCMP_CMP_LE"))
    c->op = SC_CMP_LE;
  else if (!strcmp(ops, "SCMP_CMP_GT"))
    c->op = SC_CMP_GT;
  else if (!strcmp(ops, "SCMP_CMP_GE"))
    c->op = SC_CMP_GE;
  else if (!strcmp(ops, "SCMP_CMP_MASKED_EQ")) {
    /* runc: value is the mask, valueTwo the datum. libseccomp compares
     * with the datum's bits inside the mask only ((x & m) == (d & m)), so
     * a datum with bits outside the mask still matches - as here. */
    c->op = SC_CMP_MASKED_EQ;
    c->mask = value;
    c->value = two & value;
  } else
    return bad(im, ops, true, "unknown comparison operator '%s'", ops);
  /* libseccomp compares the full 64-bit register on x86_64; so must we to
   * decide like runc's filter. */
  c->is32 = false;
  return 0;
}

static int add_rule(struct imp *im, int nr, const char *name, struct sc_action act,
                    struct sc_clause *clauses, uint32_t nclauses, struct diag_loc loc)
{
  struct sc_ruleset *rs = im->rs;
  if (rs->nrules == im->rule_cap) {
    uint32_t nc = im->rule_cap ? im->rule_cap * 2 : 64;
    struct sc_rule *g = realloc(rs->rules, nc * sizeof *g);
    if (!g)
      return -ENOMEM;
    rs->rules = g;
    im->rule_cap = nc;
  }
  struct sc_rule *r = &rs->rules[rs->nrules];
  memset(r, 0, sizeof *r);
  r->nr = nr;
  r->action = act;
  r->loc = loc;
  r->name = strdup(name);
  if (loc.line > 0) {
    if (asprintf(&r->origin, "%s:%d:%d", im->path, loc.line, loc.col) < 0)
      r->origin = NULL;
  } else {
    r->origin = strdup(im->path);
  }
  if (!r->name || !r->origin) {
    free(r->name);
    free(r->origin);
    return -ENOMEM;
  }
  r->clauses = clauses;
  r->nclauses = nclauses;
  rs->nrules++;
  return 0;
}

static void free_clauses(struct sc_clause *cl, uint32_t n)
{
  for (uint32_t i = 0; i < n; i++)
    free(cl[i].conds);
  free(cl);
}

/* Builds the clauses of one entry: one AND-clause, or (when an argument is
 * named twice) one clause per condition, as runc adds them. */
static int entry_clauses(struct imp *im, json_t *args, struct sc_clause **out, uint32_t *nout)
{
  size_t n = json_is_array(args) ? json_array_size(args) : 0;
  struct sc_cond *conds = NULL;
  struct sc_clause *cl = NULL;
  unsigned per_arg[6] = { 0 };
  bool repeated = false;
  int rc = 0;
  *out = NULL;
  *nout = 0;
  if (args && !json_is_null(args) && !json_is_array(args))
    return bad(im, "args", true, "\"%s\" must be an array", "args");
  if (n == 0)
    return 0;
  if (n > 6 * 8)
    return bad(im, "args", true, "too many conditions in \"%s\"", "args");
  conds = calloc(n, sizeof *conds);
  if (!conds)
    return -ENOMEM;
  for (size_t i = 0; i < n; i++) {
    json_t *a = json_array_get(args, i);
    if (!json_is_object(a)) {
      rc = bad(im, "args", true, "each element of \"%s\" must be an object", "args");
      goto fail;
    }
    rc = parse_cond(im, a, &conds[i]);
    if (rc)
      goto fail;
    if (++per_arg[conds[i].arg] > 1)
      repeated = true;
  }
  if (!repeated) {
    cl = calloc(1, sizeof *cl);
    if (!cl) {
      rc = -ENOMEM;
      goto fail;
    }
    cl->conds = conds;
    cl->nconds = (uint32_t)n;
    *out = cl;
    *nout = 1;
    return 0;
  }
  cl = calloc(n, sizeof *cl);
  if (!cl) {
    rc = -ENOMEM;
    goto fail;
  }
  for (size_t i = 0; i < n; i++) {
    cl[i].conds = malloc(sizeof *cl[i].conds);
    if (!cl[i].conds) {
      free_clauses(cl, (uint32_t)i);
      rc = -ENOMEM;
      goto fail;
    }
    cl[i].conds[0] = conds[i];
    cl[i].nconds = 1;
  }
  free(conds);
  *out = cl;
  *nout = (uint32_t)n;
  return 0;
fail:
  free(conds);
  return rc;
}

static int note_unknown(struct imp *im, const char *name)
{
  for (size_t i = 0; i < im->rep->n_unknown; i++)
    if (!strcmp(im->rep->unknown_names[i], name))
      return 0;
  char **g = realloc(im->rep->unknown_names, (im->rep->n_unknown + 1) * sizeof *g);
  if (!g)
    return -ENOMEM;
  im->rep->unknown_names = g;
  if (!(g[im->rep->n_unknown] = strdup(name)))
    return -ENOMEM;
  im->rep->n_unknown++;
  return 0;
}

static int import_entry(struct imp *im, json_t *entry)
{
  json_t *names = json_object_get(entry, "names"), *name1 = json_object_get(entry, "name");
  struct sc_action act;
  int rc;
  if (!json_is_object(entry))
    return bad(im, "syscalls", true, "each element of \"%s\" must be an object", "syscalls");
  if (!names && !name1)
    return bad(im, "syscalls", true, "an element of \"%s\" has no \"names\"", "syscalls");
  if (names && !json_is_array(names))
    return bad(im, "names", true, "\"%s\" must be an array of strings", "names");
  json_t *first = names ? json_array_get(names, 0) : name1;
  if (json_is_string(first))
    advance_to(im, json_string_value(first));
  rc = parse_action(im, json_object_get(entry, "action"), json_object_get(entry, "errnoRet"), &act);
  if (rc)
    return rc;
  if (!entry_applies(im, entry))
    return 0;
  if (sc_action_equal(act, im->rs->default_action)) {
    im->rep->skipped_default++;
    return 0;
  }
  size_t count = names ? json_array_size(names) : 1;
  for (size_t i = 0; i < count; i++) {
    json_t *nm = names ? json_array_get(names, i) : name1;
    const char *s = json_string_value(nm);
    if (!s)
      return bad(im, "names", true, "\"%s\" must hold strings", "names");
    int nr = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, s);
    /* Unknown here, or a number libseccomp invents for calls this
     * architecture lacks (negative): runc skips these names. */
    if (nr == __NR_SCMP_ERROR || nr < 0) {
      rc = note_unknown(im, s);
      if (rc)
        return rc;
      continue;
    }
    struct sc_clause *cl;
    uint32_t ncl;
    rc = entry_clauses(im, json_object_get(entry, "args"), &cl, &ncl);
    if (rc)
      return rc;
    struct diag_loc loc = token_loc(im, s, true);
    rc = add_rule(im, nr, s, act, cl, ncl, loc);
    if (rc) {
      free_clauses(cl, ncl);
      return rc;
    }
  }
  return 0;
}

static int cmp_rule_pos(const void *a, const void *b)
{
  const struct sc_rule *x = a, *y = b;
  if (x->nr != y->nr)
    return x->nr < y->nr ? -1 : 1;
  /* unconditional first, then file order (loc) */
  bool ux = x->nclauses == 0, uy = y->nclauses == 0;
  if (ux != uy)
    return ux ? -1 : 1;
  if (x->loc.line != y->loc.line)
    return x->loc.line < y->loc.line ? -1 : 1;
  return (x->loc.col > y->loc.col) - (x->loc.col < y->loc.col);
}

/* libseccomp semantics -> first-match order; rejects what it cannot map. */
static int order_rules(struct imp *im)
{
  struct sc_ruleset *rs = im->rs;
  /* A stable order: sort by (nr, unconditional first, position); entries
   * share positions only when one names the call twice, and those have the
   * same action. */
  if (rs->nrules)
    qsort(rs->rules, rs->nrules, sizeof *rs->rules, cmp_rule_pos);
  for (uint32_t i = 0; i < rs->nrules;) {
    uint32_t j = i;
    while (j < rs->nrules && rs->rules[j].nr == rs->rules[i].nr)
      j++;
    bool has_uncond = rs->rules[i].nclauses == 0;
    for (uint32_t k = i + 1; k < j; k++) {
      const struct sc_rule *a = &rs->rules[i], *b = &rs->rules[k];
      if (sc_action_equal(a->action, b->action))
        continue;
      if (has_uncond && b->nclauses > 0)
        continue; /* superseded by the unconditional rule */
      char aa[48], ab[48];
      sc_action_format(aa, sizeof aa, a->action);
      sc_action_format(ab, sizeof ab, b->action);
      diag_error(b->loc.line > 0 ? &b->loc : NULL,
                 "'%s' has rules with different actions (%s and %s); libseccomp's verdict for "
                 "overlapping %s rules depends on its internal rule tree, so this profile has "
                 "no exact meaning",
                 b->name, aa, ab, has_uncond ? "unconditional" : "conditional");
      if (a->loc.line > 0)
        diag_note(&a->loc, "the other rule is here");
      return -EINVAL;
    }
    i = j;
  }
  return 0;
}

int oci_import_file(const char *path, struct diag_source **srcp, struct sc_ruleset *rs,
                    struct oci_import_report *rep)
{
  struct imp im = { .path = path, .rs = rs, .rep = rep };
  json_error_t jerr;
  json_t *root = NULL;
  int rc = 0;
  memset(rs, 0, sizeof *rs);
  memset(rep, 0, sizeof *rep);
  *srcp = NULL;
  im.src = diag_source_load(path, NULL);
  if (!im.src)
    return -EIO;
  *srcp = im.src;
  root = json_loadb(im.src->text, im.src->length, JSON_REJECT_DUPLICATES, &jerr);
  if (!root) {
    struct diag_loc loc = { .file = im.src,
                            .line = jerr.line > 0 ? jerr.line : 1,
                            .col = jerr.column > 0 ? jerr.column : 1 };
    /* jansson's column is just past the token it names ("near 'tok'"):
     * move the caret to the token's first character. */
    const char *near = strstr(jerr.text, "near '");
    if (near) {
      const char *end = strrchr(near + 6, '\'');
      int toklen = end ? (int)(end - (near + 6)) : 0;
      if (toklen > 0 && loc.col > toklen)
        loc.col -= toklen - 1;
    }
    diag_error(&loc, "malformed JSON: %s", jerr.text);
    return -EINVAL;
  }
  if (!json_is_object(root)) {
    struct diag_loc loc = { .file = im.src, .line = 1, .col = 1 };
    diag_error(&loc, "a seccomp profile must be a JSON object");
    rc = -EINVAL;
    goto fail;
  }
  rs->audit_arch = AUDIT_ARCH_X86_64;
  rs->allow_x32 = false;
  rs->bad_arch_action = (struct sc_action){ .kind = SC_ACT_KILL_PROCESS };
  rs->name = path;
  if (!json_object_get(root, "defaultAction")) {
    struct diag_loc loc = { .file = im.src, .line = 1, .col = 1 };
    diag_error(&loc, "the profile has no \"defaultAction\"");
    rc = -EINVAL;
    goto fail;
  }
  rc = parse_action(&im, json_object_get(root, "defaultAction"),
                    json_object_get(root, "defaultErrnoRet"), &rs->default_action);
  if (rc)
    goto fail;
  json_t *sys = json_object_get(root, "syscalls");
  if (sys && !json_is_null(sys)) {
    if (!json_is_array(sys)) {
      rc = bad(&im, "syscalls", true, "\"%s\" must be an array", "syscalls");
      goto fail;
    }
    size_t i;
    json_t *entry;
    json_array_foreach(sys, i, entry)
    {
      rc = import_entry(&im, entry);
      if (rc)
        goto fail;
    }
  }
  rc = order_rules(&im);
  if (rc)
    goto fail;
  json_decref(root);
  return 0;
fail:
  json_decref(root);
  sc_ruleset_free(rs);
  return rc;
}

void oci_import_report_free(struct oci_import_report *rep)
{
  for (size_t i = 0; i < rep->n_unknown; i++)
    free(rep->unknown_names[i]);
  free(rep->unknown_names);
  memset(rep, 0, sizeof *rep);
}
