/* profile_build: see profile_build.h. Every string of the table points
 * into the loaded policy (which the set keeps) or into the set's own
 * arrays; nothing is shared with the linked tables. */
#include "profile_build.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf_gen.h"
#include "bpf_interp.h"
#include "emit_c_pol.h"
#include "sc_rules.h"

/* A field added to struct cs_profile must be filled here (and compared by
 * tests/pol_frontend's cross-check, which asserts the same size): a
 * profile from a user's file missing a setting the linked tables have
 * would be enforced with that setting zeroed, silently. */
_Static_assert(sizeof(struct cs_profile) == 296,
               "struct cs_profile changed: fill the new field in profile_build.c");

struct profile_unit {
  struct sc_ruleset rs;
  struct bpf_program_out prog;
  struct cs_syscall_note *notes;
  char **note_actions;
  size_t n_notes;
  struct cs_path_rule *allowed, *denied, *home_ro, *home_persist;
  struct cs_command_rule *cmd_rules;
  struct cs_net_rule *net_allow, *net_deny, *net_local;
};

struct profile_set {
  struct pol_policy *pol;
  struct cs_profile *table;
  struct profile_unit *units;
  size_t n;
  /* The policy's routes as pnetc writes them (cs_routes), pointing into
   * the policy's own strings. */
  struct cs_route *routes;
  size_t n_routes;
};

static void profile_unit_free(struct profile_unit *u)
{
  sc_ruleset_free(&u->rs);
  bpf_program_out_free(&u->prog);
  for (size_t i = 0; i < u->n_notes; i++)
    free(u->note_actions[i]);
  free(u->note_actions);
  free(u->notes);
  free(u->allowed);
  free(u->denied);
  free(u->home_ro);
  free(u->home_persist);
  free(u->cmd_rules);
  free(u->net_allow);
  free(u->net_deny);
  free(u->net_local);
}

void profile_set_free(struct profile_set *s)
{
  if (!s)
    return;
  for (size_t i = 0; i < s->n; i++)
    profile_unit_free(&s->units[i]);
  free(s->units);
  free(s->table);
  free(s->routes);
  pol_policy_free(s->pol);
  free(s);
}

/* One run of the filter against the rule set's meaning. */
static int profile_check_one(const struct sc_ruleset *rs, const struct sock_filter *f, uint32_t len,
                             const struct seccomp_data *sd)
{
  struct bpf_run_result r;
  uint32_t want = sc_ruleset_eval(rs, sd);
  if (bpf_run(f, len, sd, &r) != 0 || r.ret != want) {
    fprintf(diag_stream(),
            "sbx: error: policy: %s: the compiled filter returns 0x%08x for call %d (arch 0x%x, "
            "arg0 0x%llx, arg1 0x%llx), its rules 0x%08x: a fault of the BPF generator; refused\n",
            rs->name ? rs->name : "profile", r.ret, sd->nr, sd->arch,
            (unsigned long long)sd->args[0], (unsigned long long)sd->args[1], want);
    return -EPROTO;
  }
  return 0;
}

int profile_filter_check(const struct sc_ruleset *rs, const struct sock_filter *f, uint32_t len)
{
  char err[256];
  if (bpf_validate(f, len, err, sizeof err) != 0) {
    fprintf(diag_stream(), "sbx: error: policy: %s: seccomp would refuse the filter: %s\n",
            rs->name ? rs->name : "profile", err);
    return -EINVAL;
  }
  /* Every number the kernel can pass (the table's calls and beyond), the
   * x32 range, and foreign architectures (i386 through int 0x80). */
  static const uint32_t arches[] = { AUDIT_ARCH_X86_64, AUDIT_ARCH_I386, 0 };
  for (size_t a = 0; a < sizeof arches / sizeof arches[0]; a++) {
    for (int nr = -1; nr < 1024; nr++) {
      struct seccomp_data sd = { .nr = nr, .arch = arches[a] };
      int rc = profile_check_one(rs, f, len, &sd);
      if (rc == 0 && a == 0) {
        sd.nr = (int)(0x40000000u + (uint32_t)(nr < 0 ? 0 : nr));
        rc = profile_check_one(rs, f, len, &sd);
      }
      if (rc)
        return rc;
    }
  }
  /* For conditional rules, each compared value, its neighbours and the
   * same with the high word set (32-bit arguments compare the low one). */
  for (uint32_t i = 0; i < rs->nrules; i++) {
    const struct sc_rule *r = &rs->rules[i];
    for (uint32_t c = 0; c < r->nclauses; c++) {
      for (uint32_t k = 0; k < r->clauses[c].nconds; k++) {
        const struct sc_cond *x = &r->clauses[c].conds[k];
        const uint64_t probes[] = { x->value,
                                    x->value - 1,
                                    x->value + 1,
                                    x->value | x->mask,
                                    x->value & ~x->mask,
                                    x->value | (1ull << 32),
                                    0,
                                    ~0ull };
        for (size_t p = 0; p < sizeof probes / sizeof probes[0]; p++) {
          struct seccomp_data sd = { .nr = r->nr, .arch = AUDIT_ARCH_X86_64 };
          sd.args[x->arg] = probes[p];
          int rc = profile_check_one(rs, f, len, &sd);
          if (rc)
            return rc;
        }
      }
    }
  }
  return 0;
}

static int profile_paths(const struct pol_path_rule *in, size_t n, struct cs_path_rule **out)
{
  *out = NULL;
  if (n == 0)
    return 0; /* NULL with count 0, as the generated tables have it */
  *out = calloc(n, sizeof **out);
  if (!*out)
    return -ENOMEM;
  for (size_t i = 0; i < n; i++)
    (*out)[i] = (struct cs_path_rule){ in[i].path, in[i].access, in[i].origin };
  return 0;
}

static int profile_net_rules(const struct pol_net_rule *in, size_t n, struct cs_net_rule **out)
{
  *out = NULL;
  if (n == 0)
    return 0; /* NULL with count 0, as the generated tables have it */
  *out = calloc(n, sizeof **out);
  if (!*out)
    return -ENOMEM;
  for (size_t i = 0; i < n; i++)
    (*out)[i] = (struct cs_net_rule){ in[i].pattern, in[i].origin };
  return 0;
}

static int profile_build_one(const struct pol_profile *p, struct profile_unit *u,
                             struct cs_profile *e)
{
  int rc = pol_lower(p, &u->rs);
  if (rc)
    return rc;
  rc = bpf_compile(&u->rs, &u->prog);
  if (rc == -EINVAL)
    fprintf(diag_stream(),
            "sbx: error: policy: profile '%s': the BPF generator refused its rules\n", p->name);
  if (rc)
    return rc;
  if ((rc = profile_filter_check(&u->rs, u->prog.insns, u->prog.len)) != 0)
    return rc;

  if (p->nrules) {
    u->notes = calloc(p->nrules, sizeof *u->notes);
    u->note_actions = calloc(p->nrules, sizeof *u->note_actions);
    if (!u->notes || !u->note_actions)
      return -ENOMEM;
    for (size_t i = 0; i < p->nrules; i++) {
      const struct pol_rule *r = &p->rules[i];
      if (!(u->note_actions[i] = emit_c_pol_note_action(r)))
        return -ENOMEM;
      u->n_notes = i + 1;
      u->notes[i] = (struct cs_syscall_note){ r->nr, r->name, u->note_actions[i], r->origin,
                                              sc_action_ret(r->action) };
    }
  }
  if (profile_paths(p->allowed, p->n_allowed, &u->allowed) != 0 ||
      profile_paths(p->denied, p->n_denied, &u->denied) != 0 ||
      profile_paths(p->home_ro, p->n_home_ro, &u->home_ro) != 0 ||
      profile_paths(p->home_persist, p->n_home_persist, &u->home_persist) != 0 ||
      profile_net_rules(p->net_allow, p->n_net_allow, &u->net_allow) != 0 ||
      profile_net_rules(p->net_deny, p->n_net_deny, &u->net_deny) != 0 ||
      profile_net_rules(p->net_local, p->n_net_local, &u->net_local) != 0)
    return -ENOMEM;
  if (p->n_cmd_rules) {
    u->cmd_rules = calloc(p->n_cmd_rules, sizeof *u->cmd_rules);
    if (!u->cmd_rules)
      return -ENOMEM;
    for (size_t i = 0; i < p->n_cmd_rules; i++) {
      const struct pol_cmd_rule *r = &p->cmd_rules[i];
      u->cmd_rules[i] = (struct cs_command_rule){ r->name,   r->program,   r->args,
                                                  r->action, r->operation, r->origin };
    }
  }

  *e = (struct cs_profile){
    .name = p->name,
    .alias = p->alias,
    .extends = p->extends,
    .summary = p->summary,
    .origin = p->origin,
    .shell = p->shell,
    .allow_network = p->allow_network,
    .allow_file_write = p->allow_file_write,
    .allow_file_delete = p->allow_file_delete,
    .allowed_paths = u->allowed,
    .n_allowed_paths = (uint32_t)p->n_allowed,
    .denied_paths = u->denied,
    .n_denied_paths = (uint32_t)p->n_denied,
    .limits = p->limits,
    .approval_ops = p->approval_ops,
    .default_tier = p->tier,
    .filter = u->prog.insns,
    .filter_len = u->prog.len,
    .syscall_notes = u->notes,
    .n_syscall_notes = (uint32_t)p->nrules,
    .default_action = p->default_text,
    .default_ret = sc_action_ret(p->default_action),
    .rets_known = true,
    .command_rules = u->cmd_rules,
    .n_command_rules = (uint32_t)p->n_cmd_rules,
    .home_read_only = u->home_ro,
    .n_home_read_only = (uint32_t)p->n_home_ro,
    .home_persistent = u->home_persist,
    .n_home_persistent = (uint32_t)p->n_home_persist,
    .extra_path_access = p->extra_path_access,
    /* The network as the table emitter writes it: pnetc checked that a
     * direct profile has no rules and rest deny, so these are zero then. */
    .net_mode = p->net_mode,
    .net_rest = p->net_rest,
    .net_allow = u->net_allow,
    .n_net_allow = (uint32_t)p->n_net_allow,
    .net_deny = u->net_deny,
    .n_net_deny = (uint32_t)p->n_net_deny,
    .net_local = u->net_local,
    .n_net_local = (uint32_t)p->n_net_local,
  };
  return 0;
}

int profile_set_load(const char *path, const struct pol_load_options *lo, struct profile_set **out)
{
  struct profile_set *s = calloc(1, sizeof *s);
  int rc = -ENOMEM;
  *out = NULL;
  if (!s)
    goto fail;
  rc = lo ? pol_load_with(path, lo, &s->pol) : pol_load(path, &s->pol);
  if (rc)
    goto done; /* the front end printed why */
  size_t n = pol_profile_count(s->pol);
  s->units = calloc(n ? n : 1, sizeof *s->units);
  s->table = calloc(n ? n : 1, sizeof *s->table);
  rc = -ENOMEM;
  if (!s->units || !s->table)
    goto fail;
  for (size_t i = 0; i < n; i++) {
    s->n = i + 1;
    if ((rc = profile_build_one(pol_profile_at(s->pol, i), &s->units[i], &s->table[i])) != 0)
      goto fail;
  }
  s->n_routes = pol_route_count(s->pol);
  if (s->n_routes) {
    rc = -ENOMEM;
    if (!(s->routes = calloc(s->n_routes, sizeof *s->routes)))
      goto fail;
    for (size_t i = 0; i < s->n_routes; i++) {
      const struct pol_route *r = pol_route_at(s->pol, i);
      s->routes[i] = (struct cs_route){ .name = r->name,
                                        .origin = r->origin,
                                        .kind = r->kind,
                                        .profile = r->profile,
                                        .labels = (const char *const *)r->labels,
                                        .n_labels = (uint32_t)r->n_labels,
                                        .host = r->host,
                                        .backend = r->backend,
                                        .tier = r->tier,
                                        .lane = r->lane };
    }
  }
  *out = s;
  return 0;
fail:
  if (rc == -ENOMEM)
    fprintf(diag_stream(), "sbx: error: policy: %s: out of memory\n", path);
done:
  profile_set_free(s);
  return rc;
}

const struct cs_profile *profile_set_table(const struct profile_set *s, size_t *n)
{
  *n = s->n;
  return s->table;
}

const struct cs_route *profile_set_routes(const struct profile_set *s, size_t *n)
{
  *n = s->n_routes;
  return s->routes;
}

size_t profile_set_file_count(const struct profile_set *s)
{
  return pol_file_count(s->pol);
}

const char *profile_set_file(const struct profile_set *s, size_t i)
{
  return pol_file_path(s->pol, i);
}
