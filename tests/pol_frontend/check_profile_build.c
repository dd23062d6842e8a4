/* The in-memory profile tables sbx builds from a user's policy
 * (gen/profile) against the tables pnetc generated and sbx links
 * (models/profiles.pol -> cs_profiles): field by field, filter bytes
 * equal, so the two paths cannot drift apart when the table grows. Also
 * the library include (<NAME> searches the library only) and the
 * interpreter's cross-check, with a negative control for each.
 *
 * argv[1]: the source tree's models/ (the library and the seed policy). */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "pol.h"
#include "profile_build.h"
#include "profiles.h" /* generated: the linked cs_profiles[] */
#include "sc_rules.h"

/* The same size profile_build.c asserts: a new field of struct cs_profile
 * fails this build until it is compared below. */
_Static_assert(sizeof(struct cs_profile) == 296,
               "struct cs_profile changed: compare the new field in profiles_equal()");

static const char *models_dir;
static char policy_path[4096];

static char *diag_text;
static size_t diag_len;

static int load(const char *path, const char *library, struct profile_set **out)
{
  struct pol_load_options lo = { .library_dir = library };
  free(diag_text);
  diag_text = NULL;
  FILE *m = open_memstream(&diag_text, &diag_len);
  ck_assert_ptr_nonnull(m);
  diag_set_stream(m);
  diag_reset();
  int rc = profile_set_load(path, &lo, out);
  fclose(m);
  diag_set_stream(NULL);
  return rc;
}

static void str_eq(const char *what, const char *a, const char *b)
{
  if (!a || !b)
    ck_assert_msg(a == b, "%s: %s vs %s", what, a ? a : "NULL", b ? b : "NULL");
  else
    ck_assert_msg(strcmp(a, b) == 0, "%s: '%s' vs '%s'", what, a, b);
}

/* Two path-rule lists of the same kind are equal entry by entry; NULL
 * stands for none in both. */
static void paths_eq(const char *what, const struct cs_path_rule *a, uint32_t na,
                     const struct cs_path_rule *b, uint32_t nb)
{
  ck_assert_msg(na == nb, "%s paths: %u against %u", what, na, nb);
  ck_assert_msg((a == NULL) == (b == NULL), "%s paths: one list is NULL", what);
  for (uint32_t i = 0; i < na; i++) {
    str_eq(what, a[i].path, b[i].path);
    ck_assert_uint_eq(a[i].access, b[i].access);
    str_eq(what, a[i].origin, b[i].origin);
  }
}

static void net_rules_eq(const char *what, const struct cs_net_rule *a, uint32_t na,
                         const struct cs_net_rule *b, uint32_t nb)
{
  ck_assert_msg(na == nb, "%s rules: %u against %u", what, na, nb);
  ck_assert_msg((a == NULL) == (b == NULL), "%s rules: one list is NULL", what);
  for (uint32_t i = 0; i < na; i++) {
    str_eq(what, a[i].pattern, b[i].pattern);
    str_eq(what, a[i].origin, b[i].origin);
  }
}

static void profiles_equal(const struct cs_profile *a, const struct cs_profile *b)
{
  str_eq("name", a->name, b->name);
  str_eq("alias", a->alias, b->alias);
  str_eq("extends", a->extends, b->extends);
  str_eq("summary", a->summary, b->summary);
  str_eq("origin", a->origin, b->origin);
  ck_assert_int_eq(a->shell, b->shell);
  ck_assert_int_eq(a->allow_network, b->allow_network);
  ck_assert_int_eq(a->allow_file_write, b->allow_file_write);
  ck_assert_int_eq(a->allow_file_delete, b->allow_file_delete);
  paths_eq("allowed", a->allowed_paths, a->n_allowed_paths, b->allowed_paths, b->n_allowed_paths);
  paths_eq("denied", a->denied_paths, a->n_denied_paths, b->denied_paths, b->n_denied_paths);
  paths_eq("home read-only", a->home_read_only, a->n_home_read_only, b->home_read_only,
           b->n_home_read_only);
  paths_eq("home persistent", a->home_persistent, a->n_home_persistent, b->home_persistent,
           b->n_home_persistent);
  ck_assert_uint_eq(a->extra_path_access, b->extra_path_access);
  ck_assert_uint_eq(a->net_mode, b->net_mode);
  ck_assert_uint_eq(a->net_rest, b->net_rest);
  net_rules_eq("net allow", a->net_allow, a->n_net_allow, b->net_allow, b->n_net_allow);
  net_rules_eq("net deny", a->net_deny, a->n_net_deny, b->net_deny, b->n_net_deny);
  net_rules_eq("net local", a->net_local, a->n_net_local, b->net_local, b->n_net_local);
  ck_assert(memcmp(&a->limits, &b->limits, sizeof a->limits) == 0);
  ck_assert_uint_eq(a->approval_ops, b->approval_ops);
  str_eq("default_tier", a->default_tier, b->default_tier);
  ck_assert_uint_eq(a->filter_len, b->filter_len);
  ck_assert_msg(memcmp(a->filter, b->filter, a->filter_len * sizeof *a->filter) == 0,
                "profile %s: filter bytes differ", a->name);
  ck_assert_uint_eq(a->n_syscall_notes, b->n_syscall_notes);
  ck_assert((a->syscall_notes == NULL) == (b->syscall_notes == NULL));
  for (uint32_t i = 0; i < a->n_syscall_notes; i++) {
    const struct cs_syscall_note *x = &a->syscall_notes[i], *y = &b->syscall_notes[i];
    ck_assert_int_eq(x->nr, y->nr);
    str_eq("note name", x->name, y->name);
    str_eq("note action", x->action, y->action);
    str_eq("note origin", x->origin, y->origin);
    ck_assert_uint_eq(x->ret, y->ret);
  }
  str_eq("default_action", a->default_action, b->default_action);
  ck_assert_uint_eq(a->default_ret, b->default_ret);
  ck_assert_int_eq(a->rets_known, b->rets_known);
  ck_assert_uint_eq(a->n_command_rules, b->n_command_rules);
  ck_assert((a->command_rules == NULL) == (b->command_rules == NULL));
  for (uint32_t i = 0; i < a->n_command_rules; i++) {
    const struct cs_command_rule *x = &a->command_rules[i], *y = &b->command_rules[i];
    str_eq("rule name", x->name, y->name);
    str_eq("rule program", x->program, y->program);
    str_eq("rule args", x->args, y->args);
    ck_assert_uint_eq(x->action, y->action);
    ck_assert_uint_eq(x->operation, y->operation);
    str_eq("rule origin", x->origin, y->origin);
  }
}

START_TEST(test_seed_profiles_equal_linked_tables)
{
  struct profile_set *s = NULL;
  ck_assert_int_eq(load(policy_path, models_dir, &s), 0);
  size_t n = 0;
  const struct cs_profile *tab = profile_set_table(s, &n);
  ck_assert_uint_eq(n, cs_profiles_count);
  for (size_t i = 0; i < n; i++)
    profiles_equal(&tab[i], &cs_profiles[i]);
  /* The routes too: sbx --policy routes a run as the linked table would. */
  const struct cs_route *routes = profile_set_routes(s, &n);
  ck_assert_uint_eq(n, cs_routes_count);
  ck_assert_uint_gt(n, 0);
  for (size_t i = 0; i < n; i++) {
    const struct cs_route *a = &routes[i], *b = &cs_routes[i];
    str_eq("route name", a->name, b->name);
    str_eq("route origin", a->origin, b->origin);
    str_eq("route kind", a->kind, b->kind);
    str_eq("route profile", a->profile, b->profile);
    str_eq("route host", a->host, b->host);
    str_eq("route backend", a->backend, b->backend);
    str_eq("route tier", a->tier, b->tier);
    str_eq("route lane", a->lane, b->lane);
    ck_assert_uint_eq(a->n_labels, b->n_labels);
    for (uint32_t l = 0; l < a->n_labels; l++)
      str_eq("route label", a->labels[l], b->labels[l]);
  }
  profile_set_free(s);
}
END_TEST

/* Negative control: the comparison notices one changed byte of a filter
 * and one changed note, the kind of drift it guards against. */
START_TEST(test_comparison_catches_drift)
{
  struct profile_set *s = NULL;
  ck_assert_int_eq(load(policy_path, models_dir, &s), 0);
  size_t n = 0;
  const struct cs_profile *tab = profile_set_table(s, &n);
  struct cs_profile copy = tab[0];
  struct sock_filter *f = malloc(copy.filter_len * sizeof *f);
  ck_assert_ptr_nonnull(f);
  memcpy(f, copy.filter, copy.filter_len * sizeof *f);
  f[copy.filter_len - 1].k ^= 1;
  copy.filter = f;
  ck_assert(memcmp(copy.filter, cs_profiles[0].filter, copy.filter_len * sizeof *f) != 0);
  free(f);
  ck_assert_str_ne(tab[1].name, cs_profiles[0].name);
  profile_set_free(s);
}
END_TEST

static void write_file(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_ge(fputs(text, f), 0);
  ck_assert_int_eq(fclose(f), 0);
}

/* include <profiles.pol> reaches the library even with a file of that
 * name beside the policy (which would be a syntax error if read), and the
 * library's profiles are named by their library name. */
START_TEST(test_library_include_not_shadowed)
{
  char dir[] = "/tmp/cs-polXXXXXX", path[256], decoy[256];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/agent.pol", dir);
  snprintf(decoy, sizeof decoy, "%s/profiles.pol", dir);
  write_file(decoy, "this is not a policy\n");
  write_file(path, "include <profiles.pol>;\n"
                   "profile agent extends standard {\n"
                   "  summary = \"standard without secrets\";\n"
                   "  deniedPaths += { all \"${WORKSPACE}/secrets\"; }\n"
                   "}\n");
  struct profile_set *s = NULL;
  ck_assert_msg(load(path, models_dir, &s) == 0, "%s", diag_text ? diag_text : "");
  size_t n = 0;
  const struct cs_profile *tab = profile_set_table(s, &n);
  ck_assert_uint_eq(n, cs_profiles_count + 1);
  ck_assert_str_eq(tab[n - 1].name, "agent");
  ck_assert_str_eq(tab[n - 1].extends, "standard");
  /* Rules from the library are named by the angle form: the linked
   * table's "profiles.pol:L:C" becomes "<profiles.pol>:L:C". */
  char want[128];
  snprintf(want, sizeof want, "<profiles.pol>%s", strchr(cs_profiles[1].origin, ':'));
  ck_assert_str_eq(tab[1].origin, want);
  const struct cs_path_rule *last = &tab[n - 1].denied_paths[tab[n - 1].n_denied_paths - 1];
  ck_assert_str_eq(last->path, "${WORKSPACE}/secrets");
  ck_assert_str_eq(last->origin, "agent.pol:4:24");
  profile_set_free(s);

  /* Control: the quoted form does read the file beside the policy. */
  write_file(path, "include \"profiles.pol\";\n");
  ck_assert_int_eq(load(path, models_dir, &s), -EINVAL);
  ck_assert_ptr_nonnull(strstr(diag_text, "profiles.pol:1:"));

  /* No climbing out of the library, no absolute names, and no library
   * include without a library. */
  write_file(path, "include <../models/profiles.pol>;\n");
  ck_assert_int_eq(load(path, models_dir, &s), -EINVAL);
  ck_assert_ptr_nonnull(
      strstr(diag_text, "agent.pol:1:9: error: include <../models/profiles.pol>"));
  write_file(path, "include </etc/passwd>;\n");
  ck_assert_int_eq(load(path, models_dir, &s), -EINVAL);
  write_file(path, "include <profiles.pol>;\n");
  ck_assert_int_eq(load(path, NULL, &s), -EINVAL);
  ck_assert_ptr_nonnull(strstr(diag_text, "no library directory"));

  unlink(path);
  unlink(decoy);
  rmdir(dir);
}
END_TEST

/* The cross-check refuses a filter that disagrees with its rules (one
 * return value changed), and accepts the one generated for them. */
START_TEST(test_filter_check_refuses_disagreement)
{
  struct sc_ruleset rs = {
    .audit_arch = 0xc000003e, /* AUDIT_ARCH_X86_64 */
    .default_action = { SC_ACT_ERRNO, 1 },
    .bad_arch_action = { SC_ACT_KILL_PROCESS, 0 },
    .name = "test",
  };
  const struct cs_profile *p = &cs_profiles[0];
  struct profile_set *s = NULL;
  ck_assert_int_eq(load(policy_path, models_dir, &s), 0);
  /* The generated strict filter against a rule set of nothing but
   * errno(EPERM) disagrees (strict allows read). */
  free(diag_text);
  diag_text = NULL;
  FILE *m = open_memstream(&diag_text, &diag_len);
  diag_set_stream(m);
  ck_assert_int_eq(profile_filter_check(&rs, p->filter, p->filter_len), -EPROTO);
  fclose(m);
  diag_set_stream(NULL);
  ck_assert_ptr_nonnull(strstr(diag_text, "a fault of the BPF generator"));
  free(diag_text);
  diag_text = NULL;
  profile_set_free(s);
}
END_TEST

/* The reader hook sees every file, the library's included. */
static int reads;
static struct diag_source *counting_reader(void *ctx, const char *path, const struct diag_loc *from)
{
  (void)ctx;
  reads++;
  return diag_source_load(path, from);
}

START_TEST(test_reader_sees_every_file)
{
  struct pol_load_options lo = { .library_dir = models_dir, .read_file = counting_reader };
  struct profile_set *s = NULL;
  reads = 0;
  ck_assert_int_eq(profile_set_load(policy_path, &lo, &s), 0);
  ck_assert_int_eq(reads, 2); /* profiles.pol, stdlib/syscalls.pol */
  ck_assert_uint_eq(profile_set_file_count(s), 2);
  profile_set_free(s);
}
END_TEST

static const struct cs_profile *find(const struct cs_profile *tab, size_t n, const char *name)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp(tab[i].name, name) == 0)
      return &tab[i];
  ck_abort_msg("no profile %s", name);
  return NULL;
}

/* sbx --policy fills the network fields as the emitter writes them
 * (tests/pol_frontend/golden/small.c, profiles proxied and proxied-more):
 * mode, rest, normalized patterns, origins of own and inherited rules;
 * a profile without a network block stays direct with no rules. */
START_TEST(test_network_fields_filled)
{
  char path[4200];
  snprintf(path, sizeof path, "%s/../tests/pol_frontend/golden/small.pol", models_dir);
  struct profile_set *s = NULL;
  ck_assert_msg(load(path, models_dir, &s) == 0, "%s", diag_text ? diag_text : "");
  size_t n = 0;
  const struct cs_profile *tab = profile_set_table(s, &n);
  const struct cs_profile *base = find(tab, n, "base");
  ck_assert_uint_eq(base->net_mode, CS_NET_DIRECT);
  ck_assert_uint_eq(base->net_rest, CS_NET_REST_DENY);
  ck_assert(base->net_allow == NULL && base->n_net_allow == 0 && base->net_local == NULL);

  const struct cs_profile *px = find(tab, n, "proxied");
  ck_assert_uint_eq(px->net_mode, CS_NET_PROXY);
  ck_assert_uint_eq(px->net_rest, CS_NET_REST_ASK);
  ck_assert_uint_eq(px->n_net_allow, 5);
  str_eq("allow 0", px->net_allow[0].pattern, "registry.npmjs.org:443");
  str_eq("allow 1", px->net_allow[1].pattern, "**.pythonhosted.org"); /* "**.PythonHosted.org." */
  str_eq("allow 3", px->net_allow[3].pattern, "[2001:db8::1]:443");
  str_eq("allow 1 origin", px->net_allow[1].origin, "small.pol:55:37 (profile proxied)");
  ck_assert_uint_eq(px->n_net_deny, 1);
  str_eq("deny 0", px->net_deny[0].pattern, "evil.pypi.org");
  ck_assert_uint_eq(px->n_net_local, 1);
  str_eq("local 0", px->net_local[0].pattern, "127.0.0.0/8");

  /* `network += { ... }`: the parent's rules first, with their origin. */
  const struct cs_profile *more = find(tab, n, "proxied-more");
  ck_assert_uint_eq(more->net_mode, CS_NET_PROXY);
  ck_assert_uint_eq(more->net_rest, CS_NET_REST_DENY);
  ck_assert_uint_eq(more->n_net_allow, 6);
  str_eq("inherited origin", more->net_allow[0].origin, "small.pol:55:11 (profile proxied)");
  str_eq("own rule", more->net_allow[5].pattern, "github.com:443");
  ck_assert_msg(strstr(more->net_allow[5].origin, "(profile proxied-more)") != NULL, "%s",
                more->net_allow[5].origin);
  ck_assert_uint_eq(more->n_net_deny, 1);
  ck_assert_uint_eq(more->n_net_local, 1);
  profile_set_free(s);
}
END_TEST

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: %s MODELS_DIR\n", argv[0]);
    return 2;
  }
  models_dir = argv[1];
  snprintf(policy_path, sizeof policy_path, "%s/profiles.pol", models_dir);
  Suite *su = suite_create("profile_build");
  TCase *tc = tcase_create("in-memory tables");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_seed_profiles_equal_linked_tables);
  tcase_add_test(tc, test_comparison_catches_drift);
  tcase_add_test(tc, test_library_include_not_shadowed);
  tcase_add_test(tc, test_filter_check_refuses_disagreement);
  tcase_add_test(tc, test_reader_sees_every_file);
  tcase_add_test(tc, test_network_fields_filled);
  suite_add_tcase(su, tc);
  SRunner *sr = srunner_create(su);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
