/* test_watch: sbx_watch (runtime/warm/sbx_watch.c), which lets `sbx serve`
 * skip re-probing a template's facts while no watched directory changed.
 * Each case arms a plan of hand-made probes, changes the file system and
 * checks that the epoch moves exactly when a fact could have changed: a
 * directory reached only through a symlink's target, the directory where a
 * missing name would appear, a LIST probe's own directory; that unrelated
 * directories stay quiet; that a file's content is never vouched for; and
 * that paths it cannot follow, or on /proc, are refused rather than
 * half-watched. The oracle for "could have changed" is sbx_plan_fresh, the
 * full check the watch stands in for. It runs in a mount namespace of its
 * own with a private tmpfs on /tmp; skipped (77) without one (not root). */
#include <check.h>
#include <errno.h>
#include <sched.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sbx_watch.h"
#include "check_run.h"
#include "test_tree.h"

static char root[PATH_MAX];
static struct sbx_watch w;
static struct sbx_plan plan;

static void at(char *out, const char *rel)
{
  ck_assert_int_lt(snprintf(out, PATH_MAX, "%.200s/%.200s", root, rel), PATH_MAX);
}

static void mk(const char *rel, int kind, const char *target)
{
  test_tree_mk(root, rel, kind, target);
}

/* A probe of absolute path `p`, recorded now as sbx_plan records one. */
static void probe_abs(const char *p, enum sbx_probe_kind kind)
{
  struct sbx_probe *pr;
  struct stat st;
  plan.probes = realloc(plan.probes, (plan.n_probes + 1) * sizeof *plan.probes);
  ck_assert_ptr_nonnull(plan.probes);
  pr = &plan.probes[plan.n_probes++];
  memset(pr, 0, sizeof *pr);
  pr->path = strdup(p);
  ck_assert_ptr_nonnull(pr->path);
  pr->kind = kind;
  if (kind == SBX_PROBE_RESOLVE) {
    pr->real = realpath(p, NULL);
    pr->exists = pr->real != NULL;
  } else if ((pr->exists = lstat(p, &st) == 0)) {
    pr->dev = st.st_dev;
    pr->ino = st.st_ino;
    pr->type = st.st_mode & S_IFMT;
    pr->mtime = st.st_mtim;
    pr->ctime = st.st_ctim;
  }
  /* As if taken well after the times it saw: none counts as racy
   * (sbx_ts_racy), the full check compares them. */
  pr->taken.tv_sec = time(NULL) + 60;
}

static void probe(const char *rel, enum sbx_probe_kind kind)
{
  char p[PATH_MAX];
  at(p, rel);
  probe_abs(p, kind);
}

static void probes_clear(void)
{
  for (size_t i = 0; i < plan.n_probes; i++) {
    free(plan.probes[i].path);
    free(plan.probes[i].real);
  }
  free(plan.probes);
  plan.probes = NULL;
  plan.n_probes = 0;
}

static void setup(void)
{
  char tmpl[] = "/tmp/sbx-watch.XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(tmpl));
  ck_assert_ptr_nonnull(realpath(tmpl, root));
  memset(&plan, 0, sizeof plan);
  plan.record = true;
  sbx_watch_init(&w);
  ck_assert_int_ge(w.fd, 0);
}

static void teardown(void)
{
  char cmd[PATH_MAX + 16];
  probes_clear();
  sbx_watch_fini(&w);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  ck_assert_int_eq(system(cmd), 0);
}

/* Arms as sbx_serve does: watches placed, no event meanwhile, full check
 * passes. Returns the vouching epoch. */
static uint64_t arm(void)
{
  char why[200];
  uint64_t e = sbx_watch_epoch(&w);
  ck_assert_uint_ne(e, 0);
  ck_assert_int_eq(sbx_watch_plan(&w, &plan), 0);
  ck_assert_uint_eq(sbx_watch_epoch(&w), e);
  ck_assert_msg(sbx_plan_fresh(&plan, why, sizeof why), "full check: %s", why);
  return e;
}

START_TEST(t_symlink_target_dirs)
{
  char a[PATH_MAX], b[PATH_MAX];
  uint64_t e;
  /* a/b -> <root>/c/d/e; c/d/e/f -> ../../../g/h. Resolving a/b/f looks
   * names up in c and c/d, which lie on neither the path as written nor
   * its result (g/h). */
  mk("a", 'd', NULL);
  mk("c", 'd', NULL);
  mk("c/d", 'd', NULL);
  mk("c/d/e", 'd', NULL);
  mk("g", 'd', NULL);
  mk("g/h", 'f', NULL);
  mk("z", 'd', NULL);
  at(a, "c/d/e");
  mk("a/b", 'l', a);
  mk("c/d/e/f", 'l', "../../../g/h");
  probe("a/b/f", SBX_PROBE_RESOLVE);
  e = arm();
  ck_assert(plan.probes[0].watched);

  /* Unrelated: a new entry in a directory no resolution looks into. */
  mk("z/new", 'f', NULL);
  ck_assert_uint_eq(sbx_watch_epoch(&w), e);

  /* c/d swapped for a directory where f leads elsewhere: the result
   * changes, and the event is in c (a directory only the target names). */
  at(a, "c/d");
  at(b, "c/d.old");
  ck_assert_int_eq(rename(a, b), 0);
  mk("c/d", 'd', NULL);
  ck_assert_uint_ne(sbx_watch_epoch(&w), e);
  {
    char why[200];
    ck_assert(!sbx_plan_fresh(&plan, why, sizeof why));
  }
}
END_TEST

START_TEST(t_missing_name)
{
  uint64_t e;
  mk("home", 'd', NULL);
  probe("home/.ssh/id", SBX_PROBE_STAT); /* home/.ssh does not exist */
  probe("home/.aws", SBX_PROBE_RESOLVE);
  e = arm();
  mk("home/.ssh", 'd', NULL); /* the secret's directory appears */
  ck_assert_uint_ne(sbx_watch_epoch(&w), e);
}
END_TEST

START_TEST(t_list_dir_and_file)
{
  char p[PATH_MAX], why[200];
  uint64_t e;
  FILE *f;
  mk("bin", 'd', NULL);
  mk("bin/tool", 'f', NULL);
  mk("shells", 'f', NULL);
  probe("bin", SBX_PROBE_LIST);
  probe("shells", SBX_PROBE_LIST);
  e = arm();
  ck_assert(plan.probes[0].watched);
  /* A file's content is not something a directory's events show. */
  ck_assert(!plan.probes[1].watched);

  /* Rewriting the file: no directory event, the unwatched check sees it
   * (its times are compared; put them in the past first). */
  at(p, "shells");
  usleep(20000); /* past the file system's clock tick */
  f = fopen(p, "w");
  ck_assert_ptr_nonnull(f);
  fputs("/bin/newshell\n", f);
  fclose(f);
  ck_assert_uint_eq(sbx_watch_epoch(&w), e);
  ck_assert(!sbx_plan_fresh_unwatched(&plan, why, sizeof why));

  /* A program added to the listed directory. */
  mk("bin/tool2", 'f', NULL);
  ck_assert_uint_ne(sbx_watch_epoch(&w), e);
}
END_TEST

START_TEST(t_attributes)
{
  char p[PATH_MAX];
  uint64_t e;
  mk("etc", 'd', NULL);
  mk("etc/shadow", 'f', NULL);
  probe("etc/shadow", SBX_PROBE_STAT);
  e = arm();
  at(p, "etc/shadow");
  ck_assert_int_eq(chmod(p, 0600), 0);
  ck_assert_uint_ne(sbx_watch_epoch(&w), e);
}
END_TEST

START_TEST(t_refused)
{
  mk("loop", 'l', "loop");
  probe("loop/x", SBX_PROBE_RESOLVE);
  ck_assert_int_eq(sbx_watch_plan(&w, &plan), -ELOOP);
  /* /proc changes without inotify events: never watched. */
  probes_clear();
  probe_abs("/proc/self/status", SBX_PROBE_RESOLVE);
  ck_assert_int_eq(sbx_watch_plan(&w, &plan), -EXDEV);
  /* Relative paths are not what a plan records: refused all the same. */
  probes_clear();
  probe_abs("relative/path", SBX_PROBE_STAT);
  ck_assert_int_eq(sbx_watch_plan(&w, &plan), -EINVAL);
}
END_TEST

/* A private /tmp (tmpfs in a mount namespace of our own): every directory
 * on the test's paths is watched, and a /tmp shared with tests running in
 * parallel would move the epoch when a case expects it still. */
static bool tmp_private(void)
{
  if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
      mount("sbx-watch-test", "/tmp", "tmpfs", 0, "mode=1777") < 0) {
    fprintf(stderr, "test_watch: SKIP: no private /tmp (needs root): %s\n", strerror(errno));
    return false;
  }
  return true;
}

/* The temporary directory's file system must be one sbx_watch trusts. */
static bool tmp_watchable(void)
{
  struct sbx_watch t;
  struct sbx_plan p = { .record = true };
  struct sbx_probe pr = { .path = (char *)"/tmp/x", .kind = SBX_PROBE_STAT };
  int rc;
  sbx_watch_init(&t);
  p.probes = &pr;
  p.n_probes = 1;
  rc = sbx_watch_plan(&t, &p);
  sbx_watch_fini(&t);
  if (rc < 0)
    fprintf(stderr, "test_watch: SKIP: /tmp cannot be watched here (%s)\n", strerror(-rc));
  return rc == 0;
}

static Suite *watch_suite(void)
{
  Suite *s = suite_create("watch");
  TCase *tc = tcase_create("watch");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, t_symlink_target_dirs);
  tcase_add_test(tc, t_missing_name);
  tcase_add_test(tc, t_list_dir_and_file);
  tcase_add_test(tc, t_attributes);
  tcase_add_test(tc, t_refused);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  if (!tmp_private() || !tmp_watchable())
    return 77;
  return test_check_run(watch_suite());
}
