/* emit_oci: sc_ruleset -> OCI seccomp JSON (gen/emit_oci.h). */
#include "emit_oci.h"

#include <errno.h>
#include <jansson.h>
#include <linux/audit.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>

static const char *oci_action_name(struct sc_action a)
{
  switch (a.kind) {
  case SC_ACT_ALLOW:
    return "SCMP_ACT_ALLOW";
  case SC_ACT_ERRNO:
    return "SCMP_ACT_ERRNO";
  case SC_ACT_KILL_PROCESS:
    return "SCMP_ACT_KILL_PROCESS";
  case SC_ACT_KILL_THREAD:
    return "SCMP_ACT_KILL_THREAD";
  case SC_ACT_TRAP:
    return "SCMP_ACT_TRAP";
  case SC_ACT_LOG:
    return "SCMP_ACT_LOG";
  case SC_ACT_NOTIFY:
    return "SCMP_ACT_NOTIFY";
  case SC_ACT_TRACE:
    return "SCMP_ACT_TRACE";
  }
  return NULL;
}

static const char *oci_op_name(enum sc_cmp op)
{
  switch (op) {
  case SC_CMP_EQ:
    return "SCMP_CMP_EQ";
  case SC_CMP_NE:
    return "SCMP_CMP_NE";
  case SC_CMP_LT:
    return "SCMP_CMP_LT";
  case SC_CMP_LE:
    return "SCMP_CMP_LE";
  case SC_CMP_GT:
    return "SCMP_CMP_GT";
  case SC_CMP_GE:
    return "SCMP_CMP_GE";
  case SC_CMP_MASKED_EQ:
    return "SCMP_CMP_MASKED_EQ";
  }
  return NULL;
}

static const struct diag_loc *rule_loc(const struct sc_rule *r)
{
  return r->loc.file ? &r->loc : NULL;
}

static bool rule_unconditional(const struct sc_rule *r)
{
  if (r->nclauses == 0)
    return true;
  for (uint32_t c = 0; c < r->nclauses; c++)
    if (r->clauses[c].nconds == 0)
      return true;
  return false;
}

static int set_action(json_t *obj, struct sc_action a, const char *errno_key)
{
  const char *name = oci_action_name(a);
  if (!name ||
      json_object_set_new(obj, errno_key[0] == 'd' ? "defaultAction" : "action", json_string(name)))
    return -ENOMEM;
  /* TRAP carries no datum in OCI; ERRNO and TRACE carry it in errnoRet. */
  if ((a.kind == SC_ACT_ERRNO || a.kind == SC_ACT_TRACE) &&
      json_object_set_new(obj, errno_key, json_integer(a.data)))
    return -ENOMEM;
  return 0;
}

/* ---- First-match -> order-free entries ----
 *
 * libseccomp (and so runc) has no order between the rules of one call, and
 * lets an unconditional rule win outright. So each rule is exported as its
 * first-match region: R_j AND NOT (every earlier rule), computed in DNF
 * (the negation of a clause is the OR of its negated conditions). All
 * regions are disjoint, so libseccomp's union is first-match.
 * An OCI entry ANDs conditions on distinct arguments only (runc ORs
 * conditions that repeat an index), so the conditions on one argument are
 * turned into a union of single conditions ("pieces"): a value interval
 * minus points becomes <=, >=, == or aligned blocks written as masked ==;
 * for a 32-bit argument every piece is a masked == on the low word only,
 * which is exactly the kernel's truncation. */

#define X_MAX_CONDS 16
#define X_MAX_CLAUSES 1024
#define X_MAX_PIECES 128
#define X_MAX_ENTRIES 1024

struct xclause {
  struct sc_cond c[X_MAX_CONDS];
  unsigned n;
};

struct xset {
  struct xclause *v;
  size_t n;
};

struct piece {
  bool any; /* no condition: every value */
  struct sc_cond c;
};

static int x_push(struct xset *s, const struct xclause *c)
{
  if (s->n == X_MAX_CLAUSES)
    return -E2BIG;
  struct xclause *g = realloc(s->v, (s->n + 1) * sizeof *g);
  if (!g)
    return -ENOMEM;
  s->v = g;
  s->v[s->n++] = *c;
  return 0;
}

/* The alternatives whose OR is NOT c; *always: NOT c always holds. */
static int negate_cond(const struct sc_cond *c, struct sc_cond *alt, unsigned *nalt, bool *always)
{
  uint64_t wm = c->is32 ? 0xffffffffu : UINT64_MAX;
  *nalt = 0;
  *always = false;
  struct sc_cond n = *c;
  switch (c->op) {
  case SC_CMP_EQ:
    n.op = SC_CMP_NE;
    break;
  case SC_CMP_NE:
    n.op = SC_CMP_EQ;
    break;
  case SC_CMP_LT:
    n.op = SC_CMP_GE;
    break;
  case SC_CMP_GE:
    n.op = SC_CMP_LT;
    break;
  case SC_CMP_LE:
    n.op = SC_CMP_GT;
    break;
  case SC_CMP_GT:
    n.op = SC_CMP_LE;
    break;
  case SC_CMP_MASKED_EQ: {
    uint64_t m = c->mask & wm, v = c->value & wm;
    if (v & ~m) {
      *always = true; /* c never holds */
      return 0;
    }
    /* (x & m) != v: some bit of m differs from v. Disjointly: the first
     * differing bit is b, the bits of m below it agree. */
    uint64_t below = 0;
    for (unsigned bit = 0; bit < 64; bit++) {
      uint64_t b = 1ull << bit;
      if (!(m & b))
        continue;
      if (*nalt == 64)
        return -E2BIG;
      alt[*nalt] = *c;
      alt[*nalt].mask = below | b;
      alt[*nalt].value = (v & below) | ((v & b) ^ b);
      (*nalt)++;
      below |= b;
    }
    return 0;
  }
  }
  alt[(*nalt)++] = n;
  return 0;
}

/* set := set AND NOT (rule r). */
static int x_and_not_rule(struct xset *set, const struct sc_rule *r)
{
  /* NOT (c0 AND c1 AND ...) as disjoint alternatives:
   * NOT c0, or c0 AND NOT c1, or c0 AND c1 AND NOT c2, ... so the pieces
   * of a region never overlap (libseccomp need not unite anything). */
  for (uint32_t k = 0; k < r->nclauses; k++) {
    const struct sc_clause *cl = &r->clauses[k];
    struct xset next = { 0 };
    int rc = 0;
    for (size_t i = 0; i < set->n && rc == 0; i++) {
      for (uint32_t q = 0; q < cl->nconds && rc == 0; q++) {
        struct sc_cond alt[64];
        unsigned nalt;
        bool always;
        rc = negate_cond(&cl->conds[q], alt, &nalt, &always);
        struct xclause base = set->v[i];
        if (base.n + q + 1 > X_MAX_CONDS) {
          rc = -E2BIG;
          break;
        }
        for (uint32_t p = 0; p < q; p++)
          base.c[base.n++] = cl->conds[p];
        if (always) { /* c_q never holds: NOT c_q is the rest of the region */
          if (rc == 0)
            rc = x_push(&next, &base);
          break;
        }
        for (unsigned a = 0; a < nalt && rc == 0; a++) {
          struct xclause c = base;
          c.c[c.n++] = alt[a];
          rc = x_push(&next, &c);
        }
      }
    }
    free(set->v);
    *set = next;
    if (rc)
      return rc;
  }
  return 0;
}

static int x_from_rule(struct xset *set, const struct sc_rule *r)
{
  for (uint32_t k = 0; k < r->nclauses; k++) {
    struct xclause c = { .n = 0 };
    if (r->clauses[k].nconds > X_MAX_CONDS)
      return -E2BIG;
    for (uint32_t q = 0; q < r->clauses[k].nconds; q++)
      c.c[c.n++] = r->clauses[k].conds[q];
    int rc = x_push(set, &c);
    if (rc)
      return rc;
  }
  return 0;
}

/* Aligned blocks covering [l, h] as masked == pieces over width max. */
static int blocks(uint64_t l, uint64_t h, uint64_t max, const struct sc_cond *proto,
                  struct piece *out, unsigned *n)
{
  for (;;) {
    unsigned k = 0;
    while (k < 63 && ((l >> k) & 1) == 0 && (1ull << (k + 1)) - 1 <= h - l &&
           ((1ull << (k + 1)) - 1) <= max)
      k++;
    if (k == 63 && l == 0 && h == UINT64_MAX)
      return -E2BIG; /* unreachable: callers pass partial ranges */
    uint64_t size_m1 = (1ull << k) - 1;
    if (*n == X_MAX_PIECES)
      return -E2BIG;
    out[*n] = (struct piece){ .any = false, .c = *proto };
    out[*n].c.op = SC_CMP_MASKED_EQ;
    out[*n].c.mask = max & ~size_m1;
    out[*n].c.value = l;
    (*n)++;
    if (h - l == size_m1)
      return 0;
    l += size_m1 + 1;
  }
}

/* The conditions on one argument as a union of single conditions.
 * Returns the number of pieces (0: no value satisfies them) or -errno. */
static int arg_pieces(const struct sc_cond *const *cs, unsigned n, struct piece *out)
{
  bool is32 = cs[0]->is32;
  uint64_t max = is32 ? 0xffffffffu : UINT64_MAX;
  uint64_t lo = 0, hi = max, mmask = 0, mval = 0, pts[X_MAX_CONDS];
  unsigned npts = 0, npieces = 0;
  bool masked = false;
  for (unsigned i = 0; i < n; i++) {
    const struct sc_cond *c = cs[i];
    uint64_t v = c->value & max;
    if (c->is32 != is32)
      return -EINVAL;
    switch (c->op) {
    case SC_CMP_EQ:
      if (v > lo)
        lo = v;
      if (v < hi)
        hi = v;
      break;
    case SC_CMP_NE:
      pts[npts++] = v;
      break;
    case SC_CMP_LT:
      if (v == 0)
        return 0;
      if (v - 1 < hi)
        hi = v - 1;
      break;
    case SC_CMP_LE:
      if (v < hi)
        hi = v;
      break;
    case SC_CMP_GT:
      if (v == max)
        return 0;
      if (v + 1 > lo)
        lo = v + 1;
      break;
    case SC_CMP_GE:
      if (v > lo)
        lo = v;
      break;
    case SC_CMP_MASKED_EQ: {
      uint64_t m = c->mask & max;
      if ((v & ~m) || ((mval ^ v) & mmask & m))
        return 0;
      mmask |= m;
      mval |= v;
      masked = true;
      break;
    }
    }
  }
  if (lo > hi)
    return 0;
  if (masked) {
    /* A mask with a range: only a single value can be checked exactly. */
    if (lo == hi) {
      for (unsigned i = 0; i < npts; i++)
        if (pts[i] == lo)
          return 0;
      if ((lo & mmask) != mval)
        return 0;
    } else if (lo != 0 || hi != max || npts) {
      return -EINVAL;
    } else {
      out[0] = (struct piece){ .any = false, .c = *cs[0] };
      out[0].c.op = SC_CMP_MASKED_EQ;
      out[0].c.mask = mmask;
      out[0].c.value = mval;
      return 1;
    }
  }
  /* [lo, hi] minus the points, as sorted disjoint intervals. */
  for (unsigned a = 1; a < npts; a++)
    for (unsigned b = a; b > 0 && pts[b] < pts[b - 1]; b--) {
      uint64_t t = pts[b];
      pts[b] = pts[b - 1];
      pts[b - 1] = t;
    }
  uint64_t cur = lo;
  bool done = false;
  for (unsigned i = 0; i <= npts && !done; i++) {
    uint64_t end;
    if (i < npts) {
      if (pts[i] < cur || pts[i] > hi)
        continue;
      if (pts[i] == cur) {
        if (cur == hi) {
          done = true;
          break;
        }
        cur++;
        continue;
      }
      end = pts[i] - 1;
    } else {
      end = hi;
    }
    struct sc_cond proto = *cs[0];
    if (!is32 && cur == 0 && end == max) {
      out[npieces++] = (struct piece){ .any = true };
    } else if (is32 && cur == 0 && end == max) {
      out[npieces++] = (struct piece){ .any = true };
    } else if (!is32 && cur == end) {
      proto.op = SC_CMP_EQ;
      proto.value = cur;
      out[npieces++] = (struct piece){ .c = proto };
    } else if (!is32 && cur == 0) {
      proto.op = SC_CMP_LE;
      proto.value = end;
      out[npieces++] = (struct piece){ .c = proto };
    } else if (!is32 && end == max) {
      proto.op = SC_CMP_GE;
      proto.value = cur;
      out[npieces++] = (struct piece){ .c = proto };
    } else {
      int rc = blocks(cur, end, max, &proto, out, &npieces);
      if (rc)
        return rc;
    }
    if (i < npts) {
      if (pts[i] == hi)
        done = true;
      else
        cur = pts[i] + 1;
    }
    if (npieces + 64 > X_MAX_PIECES)
      return -E2BIG;
  }
  return (int)npieces;
}

static int add_entry(json_t *calls, const char *name, struct sc_action act, const struct piece *ps,
                     unsigned np, const char *origin)
{
  json_t *e = json_object(), *names = json_array(), *args = json_array();
  int rc = 0;
  if (!e || !names || !args || json_array_append_new(names, json_string(name)) ||
      json_object_set_new(e, "names", names)) {
    json_decref(e);
    json_decref(args);
    return -ENOMEM;
  }
  rc = set_action(e, act, "errnoRet");
  for (unsigned i = 0; i < np && rc == 0; i++) {
    if (ps[i].any)
      continue;
    const struct sc_cond *c = &ps[i].c;
    uint64_t value = c->op == SC_CMP_MASKED_EQ ? c->mask : c->value;
    uint64_t two = c->op == SC_CMP_MASKED_EQ ? c->value : 0;
    if (c->is32 && c->op != SC_CMP_MASKED_EQ)
      return -EINVAL; /* pieces never do this */
    /* jansson integers are signed 64-bit; runc reads negative numbers as
     * an error, so such values cannot be written. */
    if (value > (uint64_t)INT64_MAX || two > (uint64_t)INT64_MAX) {
      rc = -ERANGE;
      break;
    }
    json_t *a = json_object();
    if (!a || json_object_set_new(a, "index", json_integer(c->arg)) ||
        json_object_set_new(a, "value", json_integer((json_int_t)value)) ||
        json_object_set_new(a, "valueTwo", json_integer((json_int_t)two)) ||
        json_object_set_new(a, "op", json_string(oci_op_name(c->op))) ||
        json_array_append_new(args, a))
      rc = -ENOMEM;
  }
  if (rc == 0 && json_array_size(args) > 0) {
    json_object_set_new(e, "args", args);
    args = NULL;
  }
  if (rc == 0 && origin)
    json_object_set_new(e, "comment", json_string(origin));
  if (rc == 0 && json_array_append_new(calls, e))
    rc = -ENOMEM;
  else if (rc)
    json_decref(e);
  json_decref(args);
  return rc;
}

/* Writes one clause as entries: the product of each argument's pieces. */
static int emit_clause(json_t *calls, const char *name, struct sc_action act,
                       const struct xclause *cl, const char *origin, unsigned *entries,
                       bool *unconditional)
{
  struct piece per[6][X_MAX_PIECES];
  unsigned np[6] = { 0 }, idx[6] = { 0 };
  for (unsigned arg = 0; arg < 6; arg++) {
    const struct sc_cond *cs[X_MAX_CONDS];
    unsigned n = 0;
    for (unsigned i = 0; i < cl->n; i++)
      if (cl->c[i].arg == arg)
        cs[n++] = &cl->c[i];
    if (n == 0) {
      per[arg][0] = (struct piece){ .any = true };
      np[arg] = 1;
      continue;
    }
    int k = arg_pieces(cs, n, per[arg]);
    if (k < 0)
      return k;
    if (k == 0)
      return 0; /* the clause never holds */
    np[arg] = (unsigned)k;
  }
  for (;;) {
    struct piece row[6];
    bool any_cond = false;
    for (unsigned arg = 0; arg < 6; arg++) {
      row[arg] = per[arg][idx[arg]];
      any_cond = any_cond || !row[arg].any;
    }
    if (!any_cond)
      *unconditional = true;
    if (++*entries > X_MAX_ENTRIES)
      return -E2BIG;
    int rc = add_entry(calls, name, act, row, 6, origin);
    if (rc)
      return rc;
    unsigned arg = 0;
    while (arg < 6 && ++idx[arg] == np[arg])
      idx[arg++] = 0;
    if (arg == 6)
      return 0;
  }
}

static int export_nr(json_t *calls, const struct sc_ruleset *rs, uint32_t first)
{
  const struct sc_rule *list[512];
  uint32_t n = 0;
  int nr = rs->rules[first].nr;
  struct sc_action fallback = rs->default_action;
  bool uncond = false;
  const struct sc_rule *uncond_rule = NULL;
  for (uint32_t i = first; i < rs->nrules; i++) {
    const struct sc_rule *r = &rs->rules[i];
    if (r->nr != nr)
      continue;
    if (n == sizeof list / sizeof *list)
      return -E2BIG;
    if (rule_unconditional(r)) {
      uncond = true;
      uncond_rule = r;
      fallback = r->action;
      break;
    }
    list[n++] = r;
  }
  /* runc resolves names with libseccomp and skips the unknown: a rule for a
   * call libseccomp cannot name would vanish (and with a default allow, a
   * deny would turn into an allow). The name written is libseccomp's. */
  char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, nr);
  if (!name || seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, name) != nr) {
    const struct sc_rule *r0 = &rs->rules[first];
    diag_error(
        rule_loc(r0),
        "'%s' (system call %d) is unknown to libseccomp %u.%u.%u, so runc would skip its rules; "
        "the profile cannot be exported",
        r0->name ? r0->name : "?", nr, seccomp_version()->major, seccomp_version()->minor,
        seccomp_version()->micro);
    free(name);
    return -EINVAL;
  }
  char *owned = name;
  int rc = 0;
  unsigned entries = 0;
  bool any_unconditional = false, mixed = false;
  struct sc_action first_act = { 0 };
  bool have_first = false;
  /* Each conditional rule, then the fallback (if it is not the default). */
  for (uint32_t j = 0; j <= n && rc == 0; j++) {
    const struct sc_rule *r = j < n ? list[j] : uncond_rule;
    struct sc_action act = j < n ? list[j]->action : fallback;
    if (j == n && (!uncond || sc_action_equal(fallback, rs->default_action)))
      break;
    if (sc_action_equal(act, rs->default_action))
      continue; /* the default needs no entry */
    struct xset set = { 0 };
    if (j < n) {
      /* Clause by clause, each minus the clauses before it: clauses of one
       * rule overlap as freely as rules do. */
      rc = x_from_rule(&set, r);
      struct xset dis = { 0 };
      for (size_t k = 0; k < set.n && rc == 0; k++) {
        struct xset one = { 0 };
        rc = x_push(&one, &set.v[k]);
        for (size_t q = 0; q < k && rc == 0; q++) {
          struct sc_clause prevc = { .conds = set.v[q].c, .nconds = set.v[q].n };
          struct sc_rule pseudo = { .nclauses = 1, .clauses = &prevc };
          rc = x_and_not_rule(&one, &pseudo);
        }
        for (size_t q = 0; q < one.n && rc == 0; q++)
          rc = x_push(&dis, &one.v[q]);
        free(one.v);
      }
      free(set.v);
      set = dis;
    } else {
      struct xclause empty = { .n = 0 };
      rc = x_push(&set, &empty);
    }
    /* Every earlier rule is subtracted, also those with the same action:
     * libseccomp 2.5.4 merges overlapping chains on one argument wrongly
     * (tests/bpf test_random_rule_sets found LOG rules "a3 < 0x123456789"
     * and "a3 <= 0x5413 && a5 != 0" losing a3 = 0xffffffff), so the export
     * never relies on its union of overlapping rules. */
    for (uint32_t i = 0; i < j && rc == 0; i++)
      rc = x_and_not_rule(&set, list[i]);
    for (size_t c = 0; c < set.n && rc == 0; c++) {
      unsigned before = entries;
      bool u = false;
      rc = emit_clause(calls, name, act, &set.v[c], r ? r->origin : NULL, &entries, &u);
      any_unconditional = any_unconditional || u;
      if (entries > before) {
        if (have_first && !sc_action_equal(first_act, act))
          mixed = true;
        first_act = act;
        have_first = true;
      }
    }
    free(set.v);
  }
  if (rc == 0 && any_unconditional && mixed)
    rc = -ENOTSUP;
  if (rc) {
    const struct sc_rule *r0 = n ? list[0] : uncond_rule;
    diag_error(r0 ? rule_loc(r0) : NULL,
               "'%s': the rules cannot be written as an OCI profile with the same meaning (%s): "
               "libseccomp has no rule order, so every rule is exported as its first-match region, "
               "and this region %s",
               name, strerror(-rc),
               rc == -E2BIG ? "needs too many entries"
               : rc == -ERANGE
                   ? "needs a value above 2^63-1, which OCI JSON integers cannot hold"
                   : "mixes comparisons on one argument that no OCI condition expresses");
    rc = -EINVAL;
  }
  free(owned);
  return rc;
}

int oci_export_ruleset(FILE *out, const struct sc_ruleset *rs)
{
  json_t *root = json_object(), *calls = json_array(), *arches = json_array();
  int rc = 0;
  if (!root || !calls || !arches) {
    rc = -ENOMEM;
    goto done;
  }
  if (rs->audit_arch != AUDIT_ARCH_X86_64 || rs->allow_x32) {
    diag_error(NULL,
               "%s: only x86_64 rule sets without the x32 ABI can be exported as OCI profiles",
               rs->name ? rs->name : "rule set");
    rc = -EINVAL;
    goto done;
  }
  char *banner = NULL;
  if (asprintf(&banner, "DO NOT EDIT: generated by pnetc --emit oci from %s",
               rs->name ? rs->name : "a rule set") < 0) {
    rc = -ENOMEM;
    goto done;
  }
  json_object_set_new(root, "comment", json_string(banner));
  free(banner);
  rc = set_action(root, rs->default_action, "defaultErrnoRet");
  if (rc)
    goto done;
  json_array_append_new(arches, json_string("SCMP_ARCH_X86_64"));
  json_object_set_new(root, "architectures", arches);
  arches = NULL;
  for (uint32_t i = 0; i < rs->nrules && rc == 0; i++) {
    bool seen = false;
    for (uint32_t j = 0; j < i && !seen; j++)
      seen = rs->rules[j].nr == rs->rules[i].nr;
    if (!seen)
      rc = export_nr(calls, rs, i);
  }
  if (rc)
    goto done;
  json_object_set_new(root, "syscalls", calls);
  calls = NULL;
  if (json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0 || fputc('\n', out) == EOF)
    rc = -EIO;
done:
  json_decref(arches);
  json_decref(calls);
  json_decref(root);
  return rc;
}
