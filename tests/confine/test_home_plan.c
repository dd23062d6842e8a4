/* test_home_plan: the plan of the sandbox's home (runtime/plan/
 * sbx_plan_home.c) from hand-written profile tables, the ones pnetc would
 * refuse: sbx must hold them to the same rules. A home name that is a
 * denied path (or holds one) refuses the plan, where the same listing
 * without the deny binds it (the control); a persistent path in a profile
 * that writes nothing refuses the plan; a name bound comes from the real
 * home, at the same name below the sandbox's HOME. */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sbx_fail.h"
#include "sbx_plan.h"

static char home[PATH_MAX], ws[PATH_MAX];

static void put(const char *rel, const char *text)
{
  char path[PATH_MAX * 2];
  snprintf(path, sizeof path, "%s/%s", home, rel);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

static void setup(void)
{
  char h[] = "/tmp/sbx-home-plan.XXXXXX", w[] = "/tmp/sbx-home-ws.XXXXXX";
  char ssh[PATH_MAX + 8];
  ck_assert_ptr_nonnull(mkdtemp(h));
  ck_assert_ptr_nonnull(mkdtemp(w));
  ck_assert_ptr_nonnull(realpath(h, home));
  ck_assert_ptr_nonnull(realpath(w, ws));
  snprintf(ssh, sizeof ssh, "%s/.ssh", home);
  ck_assert_int_eq(mkdir(ssh, 0700), 0);
  put(".ssh/config", "Host *\n");
  put(".gitconfig", "[user]\n");
  setenv("HOME", home, 1);
  unsetenv("XDG_STATE_HOME");
}

static void teardown(void)
{
  char cmd[PATH_MAX * 3];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", home, ws);
  ck_assert_int_eq(system(cmd), 0);
}

static const struct cs_path_rule denied_ssh[] = { { "~/.ssh", 7, "test:1:1" } };
static const struct cs_path_rule allowed_ws[] = { { "${WORKSPACE}", 3, "test:2:1" },
                                                  { "/usr", 5, "test:3:1" } };

static struct cs_profile profile(const struct cs_path_rule *ro, uint32_t n_ro,
                                 const struct cs_path_rule *keep, uint32_t n_keep, bool deny,
                                 bool write)
{
  struct cs_profile p = { 0 };
  p.name = "handmade";
  p.summary = "hand-written";
  p.shell = CS_SHELL_SANDBOXED;
  p.allow_file_write = write;
  p.allowed_paths = allowed_ws;
  p.n_allowed_paths = 2;
  p.denied_paths = deny ? denied_ssh : NULL;
  p.n_denied_paths = deny ? 1 : 0;
  p.limits = (struct cs_limits){ 60000, 1u << 30, 60, 64, 64, 1u << 20 };
  p.home_read_only = ro;
  p.n_home_read_only = n_ro;
  p.home_persistent = keep;
  p.n_home_persistent = n_keep;
  return p;
}

static int plan_of(const struct cs_profile *p, struct sbx_plan *plan, struct sbx_fail *f)
{
  char *argv[] = { "true", NULL };
  struct sbx_run_request req = { 0 };
  req.profile = p;
  req.workspace = ws;
  req.argv = argv;
  return sbx_plan_build(&req, 6, plan, f);
}

static const struct sbx_mount_entry *bound_at(const struct sbx_plan *plan, const char *path)
{
  for (size_t i = 0; i < plan->n_mounts; i++)
    if (strcmp(plan->mounts[i].path, path) == 0)
      return &plan->mounts[i];
  return NULL;
}

START_TEST(denied_name_refused)
{
  static const struct cs_path_rule ro[] = { { "~/.ssh/config", 1, "test:9:1" } };
  struct cs_profile p = profile(ro, 1, NULL, 0, true, false);
  struct sbx_plan plan;
  struct sbx_fail f;
  char msg[1024];
  ck_assert_int_eq(plan_of(&p, &plan, &f), -EACCES);
  sbx_fail_format(&f, msg, sizeof msg);
  ck_assert_msg(strstr(msg, "overlaps denied path '~/.ssh'"), "message: %s", msg);
  /* Control: the same listing without the deny is bound, from the real
   * home: the refusal above is the deny's doing. */
  p = profile(ro, 1, NULL, 0, false, false);
  ck_assert_int_eq(plan_of(&p, &plan, &f), 0);
  const struct sbx_mount_entry *e = bound_at(&plan, SBX_SANDBOX_HOME "/.ssh/config");
  ck_assert_ptr_nonnull(e);
  ck_assert_int_eq(e->kind, SBX_MNT_BIND_RO);
  char want[PATH_MAX + 32];
  snprintf(want, sizeof want, "%s/.ssh/config", home);
  ck_assert_str_eq(e->source, want);
  sbx_plan_free(&plan);
}
END_TEST

START_TEST(holding_a_denied_name_refused)
{
  static const struct cs_path_rule ro[] = { { "~/.gitconfig", 1, "test:9:1" } };
  static const struct cs_path_rule denied_all[] = { { "~/.gitconfig/x", 7, "test:1:1" } };
  static const struct cs_path_rule whole[] = { { "~/.config", 1, "test:9:1" } };
  static const struct cs_path_rule denied_in[] = { { "~/.config/gh", 7, "test:1:1" } };
  struct cs_profile p = profile(ro, 1, NULL, 0, false, false);
  struct sbx_plan plan;
  struct sbx_fail f;
  p.denied_paths = denied_all;
  p.n_denied_paths = 1;
  ck_assert_int_eq(plan_of(&p, &plan, &f), -EACCES);
  p = profile(whole, 1, NULL, 0, false, false);
  p.denied_paths = denied_in;
  p.n_denied_paths = 1;
  ck_assert_int_eq(plan_of(&p, &plan, &f), -EACCES);
}
END_TEST

START_TEST(persistent_needs_write)
{
  static const struct cs_path_rule keep[] = { { "~/.cache", 3, "test:9:1" } };
  struct cs_profile p = profile(NULL, 0, keep, 1, true, false);
  struct sbx_plan plan;
  struct sbx_fail f;
  ck_assert_int_eq(plan_of(&p, &plan, &f), -EINVAL);
  /* Control: with writes, the cache is bound read-write from the state
   * directory, never from the real ~/.cache. */
  p = profile(NULL, 0, keep, 1, true, true);
  ck_assert_int_eq(plan_of(&p, &plan, &f), 0);
  const struct sbx_mount_entry *e = bound_at(&plan, SBX_SANDBOX_HOME "/.cache");
  ck_assert_ptr_nonnull(e);
  ck_assert_int_eq(e->kind, SBX_MNT_BIND_RW);
  char want[PATH_MAX + 64];
  snprintf(want, sizeof want, "%s/.local/state/commander-sandbox/home/handmade", home);
  ck_assert_msg(strncmp(e->source, want, strlen(want)) == 0, "source %s", e->source);
  sbx_plan_free(&plan);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("home_plan");
  TCase *tc = tcase_create("all");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, denied_name_refused);
  tcase_add_test(tc, holding_a_denied_name_refused);
  tcase_add_test(tc, persistent_needs_write);
  suite_add_tcase(s, tc);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}
