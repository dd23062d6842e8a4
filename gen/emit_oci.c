/* emit_oci: sc_ruleset -> OCI seccomp JSON (gen/emit_oci.h). */
#include "emit_oci.h"

#include <errno.h>
#include <jansson.h>
#include <linux/audit.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>

static const char *oci_action_name(struct sc_action a) {
  switch (a.kind) {
  case SC_ACT_ALLOW: return "SCMP_ACT_ALLOW";
  case SC_ACT_ERRNO: return "SCMP_ACT_ERRNO";
  case SC_ACT_KILL_PROCESS: return "SCMP_ACT_KILL_PROCESS";
  case SC_ACT_KILL_THREAD: return "SCMP_ACT_KILL_THREAD";
  case SC_ACT_TRAP: return "SCMP_ACT_TRAP";
  case SC_ACT_LOG: return "SCMP_ACT_LOG";
  case SC_ACT_NOTIFY: return "SCMP_ACT_NOTIFY";
  case SC_ACT_TRACE: return "SCMP_ACT_TRACE";
  }
  return NULL;
}

static const char *oci_op_name(enum sc_cmp op) {
  switch (op) {
  case SC_CMP_EQ: return "SCMP_CMP_EQ";
  case SC_CMP_NE: return "SCMP_CMP_NE";
  case SC_CMP_LT: return "SCMP_CMP_LT";
  case SC_CMP_LE: return "SCMP_CMP_LE";
  case SC_CMP_GT: return "SCMP_CMP_GT";
  case SC_CMP_GE: return "SCMP_CMP_GE";
  case SC_CMP_MASKED_EQ: return "SCMP_CMP_MASKED_EQ";
  }
  return NULL;
}

static const struct diag_loc *rule_loc(const struct sc_rule *r) {
  return r->loc.file ? &r->loc : NULL;
}

static bool rule_unconditional(const struct sc_rule *r) {
  if (r->nclauses == 0) return true;
  for (uint32_t c = 0; c < r->nclauses; c++)
    if (r->clauses[c].nconds == 0) return true;
  return false;
}

static int set_action(json_t *obj, struct sc_action a, const char *errno_key) {
  const char *name = oci_action_name(a);
  if (!name || json_object_set_new(obj, errno_key[0] == 'd' ? "defaultAction" : "action", json_string(name)))
    return -ENOMEM;
  /* TRAP carries no datum in OCI; ERRNO and TRACE carry it in errnoRet. */
  if ((a.kind == SC_ACT_ERRNO || a.kind == SC_ACT_TRACE) &&
      json_object_set_new(obj, errno_key, json_integer(a.data)))
    return -ENOMEM;
  return 0;
}

/* One OCI "args" element; 1 when exact, 0 when stricter, -EINVAL when it
 * cannot be expressed. */
static int cond_json(const struct sc_rule *r, const struct sc_cond *c, json_t **out) {
  uint64_t value = c->value, two = 0;
  enum sc_cmp op = c->op;
  int exact = 1;
  if (op == SC_CMP_MASKED_EQ) {
    value = c->mask;
    two = c->value;
  }
  if (c->is32) {
    if (op == SC_CMP_EQ) {
      op = SC_CMP_MASKED_EQ;
      value = 0xffffffffu;
      two = (uint32_t)c->value;
    } else if (op == SC_CMP_MASKED_EQ) {
      value = (uint32_t)c->mask;
      two = (uint32_t)c->value;
    } else if ((op == SC_CMP_LT || op == SC_CMP_LE) &&
               (r->action.kind == SC_ACT_ALLOW || r->action.kind == SC_ACT_LOG)) {
      value = (uint32_t)c->value;
      exact = 0;
    } else {
      diag_error(rule_loc(r),
                 "'%s': a 32-bit argument compared with %s cannot be written as an OCI rule "
                 "(libseccomp compares all 64 bits, so a caller setting the high word would "
                 "decide the rule)",
                 r->name ? r->name : "?", sc_cmp_symbol(c->op));
      return -EINVAL;
    }
  }
  json_t *a = json_object();
  if (!a || json_object_set_new(a, "index", json_integer(c->arg)) ||
      json_object_set_new(a, "value", json_integer((json_int_t)value)) ||
      json_object_set_new(a, "valueTwo", json_integer((json_int_t)two)) ||
      json_object_set_new(a, "op", json_string(oci_op_name(op)))) {
    json_decref(a);
    return -ENOMEM;
  }
  /* jansson integers are signed: values >= 2^63 would print negative, which
   * runc reads as an error. */
  if (value > (uint64_t)INT64_MAX || two > (uint64_t)INT64_MAX) {
    json_decref(a);
    diag_error(rule_loc(r), "'%s': argument value %#llx does not fit an OCI JSON integer",
               r->name ? r->name : "?", (unsigned long long)(value > two ? value : two));
    return -EINVAL;
  }
  *out = a;
  return exact;
}

static int export_nr(json_t *calls, const struct sc_ruleset *rs, uint32_t first) {
  const struct sc_rule *list[512];
  uint32_t n = 0;
  int nr = rs->rules[first].nr;
  struct sc_action fallback = rs->default_action;
  bool uncond = false;
  for (uint32_t i = first; i < rs->nrules; i++) {
    const struct sc_rule *r = &rs->rules[i];
    if (r->nr != nr) continue;
    if (n == sizeof list / sizeof *list) return -E2BIG;
    list[n++] = r;
    if (rule_unconditional(r)) {
      uncond = true;
      fallback = r->action;
      break;
    }
  }
  if (uncond) n--; /* the unconditional rule is the fallback now */
  while (n > 0 && sc_action_equal(list[n - 1]->action, fallback)) n--;
  const char *name = rs->rules[first].name;
  char *owned = NULL;
  if (!name) name = owned = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, nr);
  if (!name) return -EINVAL;
  int rc = 0;
  if (n > 0 && uncond) {
    diag_error(rule_loc(list[0]),
               "'%s': a conditional rule (%s) precedes an unconditional rule with another action; "
               "libseccomp lets the unconditional rule win, so OCI cannot say this",
               name, list[0]->origin ? list[0]->origin : "");
    rc = -EINVAL;
    goto done;
  }
  for (uint32_t k = 1; k < n; k++)
    if (!sc_action_equal(list[k]->action, list[0]->action)) {
      diag_error(rule_loc(list[k]),
                 "'%s': rules with different actions may overlap; libseccomp gives such rules no "
                 "order, so OCI cannot say first-match here",
                 name);
      rc = -EINVAL;
      goto done;
    }
  if (n == 0 && uncond && !sc_action_equal(fallback, rs->default_action)) {
    json_t *e = json_object();
    json_t *names = json_array();
    if (!e || !names || json_array_append_new(names, json_string(name)) ||
        json_object_set_new(e, "names", names) || set_action(e, fallback, "errnoRet") ||
        json_array_append_new(calls, e)) {
      rc = -ENOMEM;
      goto done;
    }
    goto done;
  }
  for (uint32_t k = 0; k < n && rc == 0; k++) {
    const struct sc_rule *r = list[k];
    for (uint32_t c = 0; c < r->nclauses && rc == 0; c++) {
      const struct sc_clause *cl = &r->clauses[c];
      json_t *e = json_object(), *names = json_array(), *args = json_array();
      unsigned seen = 0;
      if (!e || !names || !args) {
        json_decref(e);
        json_decref(names);
        json_decref(args);
        rc = -ENOMEM;
        break;
      }
      json_array_append_new(names, json_string(name));
      json_object_set_new(e, "names", names);
      rc = set_action(e, r->action, "errnoRet");
      for (uint32_t q = 0; q < cl->nconds && rc >= 0; q++) {
        if (seen & (1u << cl->conds[q].arg)) {
          diag_error(rule_loc(r),
                     "'%s': a rule tests argument %u twice; runc would OR the two conditions",
                     name, (unsigned)cl->conds[q].arg);
          rc = -EINVAL;
          break;
        }
        seen |= 1u << cl->conds[q].arg;
        json_t *a = NULL;
        rc = cond_json(r, &cl->conds[q], &a);
        if (rc == 0)
          diag_warning(rule_loc(r),
                       "'%s': 32-bit argument %u is compared on 64 bits in OCI: a caller "
                       "setting the high word is refused (stricter than the policy)",
                       name, (unsigned)cl->conds[q].arg);
        if (rc >= 0) json_array_append_new(args, a);
      }
      if (rc >= 0) {
        rc = 0;
        json_object_set_new(e, "args", args);
        if (r->origin) json_object_set_new(e, "comment", json_string(r->origin));
        json_array_append_new(calls, e);
      } else {
        json_decref(args);
        json_decref(e);
      }
    }
  }
done:
  free(owned);
  return rc;
}

int oci_export_ruleset(FILE *out, const struct sc_ruleset *rs) {
  json_t *root = json_object(), *calls = json_array(), *arches = json_array();
  int rc = 0;
  if (!root || !calls || !arches) {
    rc = -ENOMEM;
    goto done;
  }
  if (rs->audit_arch != AUDIT_ARCH_X86_64 || rs->allow_x32) {
    diag_error(NULL, "%s: only x86_64 rule sets without the x32 ABI can be exported as OCI profiles",
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
  if (rc) goto done;
  json_array_append_new(arches, json_string("SCMP_ARCH_X86_64"));
  json_object_set_new(root, "architectures", arches);
  arches = NULL;
  for (uint32_t i = 0; i < rs->nrules && rc == 0; i++) {
    bool seen = false;
    for (uint32_t j = 0; j < i && !seen; j++) seen = rs->rules[j].nr == rs->rules[i].nr;
    if (!seen) rc = export_nr(calls, rs, i);
  }
  if (rc) goto done;
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
