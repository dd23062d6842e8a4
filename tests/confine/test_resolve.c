/* test_resolve: sbx_path_resolve (runtime/plan/sbx_probe.c) returns exactly what
 * realpath(3) returns, for every kind of path the warm server's freshness
 * check may meet: plain ones (the openat2 shortcut), symlinks at every
 * position, dangling and looping ones, missing components, files used as
 * directories, ".", "..", doubled and trailing slashes, relative paths.
 * Table-driven; the oracle is glibc's realpath. */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sbx_plan.h"
#include "test_tree.h"

static char root[PATH_MAX];

static void mk(const char *rel, int kind, const char *target)
{
  test_tree_mk(root, rel, kind, target);
}

static void setup(void)
{
  char tmpl[] = "/tmp/sbx-resolve.XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(tmpl));
  ck_assert_ptr_nonnull(realpath(tmpl, root));
  mk("d", 'd', NULL);
  mk("d/e", 'd', NULL);
  mk("d/e/f", 'f', NULL);
  mk("abs", 'l', root);       /* absolute symlink to the root */
  mk("rel", 'l', "d/e");      /* relative symlink, mid-path */
  mk("d/e/up", 'l', "../.."); /* symlink with ".." */
  mk("dangling", 'l', "nowhere");
  mk("loop", 'l', "loop");
  mk("tofile", 'l', "d/e/f");
}

static void teardown(void)
{
  char cmd[PATH_MAX + 16];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  ck_assert_int_eq(system(cmd), 0);
}

START_TEST(t_same_as_realpath)
{
  static const char *const rel[] = {
    "",          "/d",          "/d/e/f",    "/d/e/f/",    "/d//e",      "/d/./e",
    "/d/e/..",   "/d/e/../e/f", "/abs",      "/abs/d/e/f", "/rel",       "/rel/f",
    "/rel/../e", "/d/e/up",     "/d/e/up/d", "/dangling",  "/loop",      "/loop/x",
    "/tofile",   "/tofile/x",   "/d/e/f/x",  "/missing",   "/missing/x", "/d/missing",
    "/.",        "/..",         "/d/",       "/d/e/f/.",
  };
  static const char *const absolute[] = {
    "/",         "/proc/self", "/proc/self/exe",   "/proc/self/cwd", "/dev/stdin", "/usr/bin",
    "/usr//bin", "/etc/.",     "/nonexistent/dir", "relative",       "./relative", ""
  };
  char path[PATH_MAX + 64];
  for (size_t i = 0; i < sizeof rel / sizeof *rel + sizeof absolute / sizeof *absolute; i++) {
    char *want, *got;
    int want_err, got_err;
    if (i < sizeof rel / sizeof *rel)
      snprintf(path, sizeof path, "%s%s", root, rel[i]);
    else
      snprintf(path, sizeof path, "%s", absolute[i - sizeof rel / sizeof *rel]);
    errno = 0;
    want = realpath(path, NULL);
    want_err = want ? 0 : errno;
    errno = 0;
    got = sbx_path_resolve(path);
    got_err = got ? 0 : errno;
    if (want && got)
      ck_assert_msg(strcmp(want, got) == 0, "%s: realpath %s, sbx_path_resolve %s", path, want,
                    got);
    else
      ck_assert_msg(!want && !got && want_err == got_err,
                    "%s: realpath %s (%s), sbx_path_resolve %s (%s)", path, want ? want : "NULL",
                    strerror(want_err), got ? got : "NULL", strerror(got_err));
    free(want);
    free(got);
  }
}
END_TEST

int main(void)
{
  Suite *s = suite_create("resolve");
  TCase *tc = tcase_create("resolve");
  SRunner *sr;
  int failed;
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, t_same_as_realpath);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
