/* test_out_file: gen/text/out_file.h, the all-or-nothing output files every
 * pnetc back end writes through. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "out_file.h"

static char dir[] = "/tmp/test_out_file.XXXXXX";

static char *path_in(const char *name)
{
  static char buf[4][256];
  static int next;
  char *p = buf[next++ % 4];
  snprintf(p, 256, "%s/%s", dir, name);
  return p;
}

static char *slurp(const char *path)
{
  static char buf[256];
  FILE *f = fopen(path, "r");
  if (!f)
    return NULL;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

/* Hidden temporary files left in the directory. */
static int leftovers(void)
{
  int n = 0;
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  for (struct dirent *e; (e = readdir(d));)
    if (e->d_name[0] == '.' && strstr(e->d_name, ".tmp."))
      n++;
  closedir(d);
  return n;
}

static void setup(void)
{
  strcpy(dir, "/tmp/test_out_file.XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_commit_writes_whole_file)
{
  struct out_file *f;
  mode_t old = umask(022);
  ck_assert_int_eq(out_file_open(path_in("a.c"), &f), 0);
  fputs("int a;\n", out_file_stream(f));
  ck_assert_ptr_null(slurp(path_in("a.c"))); /* nothing visible before commit */
  ck_assert_int_eq(out_file_commit(f), 0);
  umask(old);
  ck_assert_str_eq(slurp(path_in("a.c")), "int a;\n");
  struct stat st;
  ck_assert_int_eq(stat(path_in("a.c"), &st), 0);
  ck_assert_int_eq(st.st_mode & 0777, 0644);
  ck_assert_int_eq(leftovers(), 0);
}
END_TEST

START_TEST(test_abort_leaves_previous_file)
{
  struct out_file *f;
  FILE *prev = fopen(path_in("a.c"), "w");
  fputs("old\n", prev);
  fclose(prev);
  ck_assert_int_eq(out_file_open(path_in("a.c"), &f), 0);
  fputs("new, half written", out_file_stream(f));
  out_file_abort(f);
  ck_assert_str_eq(slurp(path_in("a.c")), "old\n");
  ck_assert_int_eq(leftovers(), 0);
}
END_TEST

/* The second rename fails (its name became a directory): the first file
 * of the group must not stay behind alone. */
START_TEST(test_group_all_or_nothing)
{
  struct out_file *g[2];
  ck_assert_int_eq(out_file_open(path_in("m.c"), &g[0]), 0);
  ck_assert_int_eq(out_file_open(path_in("m.h"), &g[1]), 0);
  fputs("c\n", out_file_stream(g[0]));
  fputs("h\n", out_file_stream(g[1]));
  ck_assert_int_eq(mkdir(path_in("m.h"), 0755), 0);
  int rc = out_file_commit_all(g, 2);
  ck_assert_int_lt(rc, 0);
  ck_assert_int_ne(access(path_in("m.c"), F_OK), 0);
  ck_assert_int_eq(leftovers(), 0);
}
END_TEST

START_TEST(test_missing_directory)
{
  struct out_file *f = (struct out_file *)1;
  ck_assert_int_eq(out_file_open(path_in("no/such/dir/x.c"), &f), -ENOENT);
  ck_assert_ptr_null(f);
}
END_TEST

/* Through a symlink the target is replaced and the link stays a link. */
START_TEST(test_symlink_target_replaced)
{
  struct out_file *f;
  FILE *t = fopen(path_in("target.json"), "w");
  fputs("old\n", t);
  fclose(t);
  ck_assert_int_eq(symlink(path_in("target.json"), path_in("link.json")), 0);
  ck_assert_int_eq(out_file_open(path_in("link.json"), &f), 0);
  fputs("new\n", out_file_stream(f));
  ck_assert_int_eq(out_file_commit(f), 0);
  struct stat st;
  ck_assert_int_eq(lstat(path_in("link.json"), &st), 0);
  ck_assert(S_ISLNK(st.st_mode));
  ck_assert_str_eq(slurp(path_in("target.json")), "new\n");
}
END_TEST

/* A device is written in place, never renamed over. */
START_TEST(test_device_written_in_place)
{
  struct out_file *f;
  ck_assert_int_eq(out_file_open("/dev/null", &f), 0);
  fputs("discarded\n", out_file_stream(f));
  ck_assert_int_eq(out_file_commit(f), 0);
  struct stat st;
  ck_assert_int_eq(stat("/dev/null", &st), 0);
  ck_assert(S_ISCHR(st.st_mode));
  ck_assert_int_eq(out_file_open("/dev/full", &f), 0);
  for (int i = 0; i < 10000; i++)
    fputs("full\n", out_file_stream(f));
  ck_assert_int_eq(out_file_commit(f), -ENOSPC);
}
END_TEST

/* Outputs and depfile together, or neither. */
START_TEST(test_commit_group_with_depfile)
{
  struct out_file *g[1];
  const char *deps[] = { "/nonexistent/model.pnet" };
  ck_assert_int_eq(out_file_open(path_in("t.json"), &g[0]), 0);
  fputs("{}\n", out_file_stream(g[0]));
  ck_assert_int_lt(out_file_commit_group(g, 1, path_in("no/dir/t.d"), "t.json", deps, 1), 0);
  ck_assert_int_ne(access(path_in("t.json"), F_OK), 0);
  ck_assert_int_eq(leftovers(), 0);

  ck_assert_int_eq(out_file_open(path_in("t.json"), &g[0]), 0);
  fputs("{}\n", out_file_stream(g[0]));
  ck_assert_int_eq(out_file_commit_group(g, 1, path_in("t.d"), "/out/t.json", deps, 1), 0);
  ck_assert_str_eq(slurp(path_in("t.json")), "{}\n");
  ck_assert_str_eq(slurp(path_in("t.d")),
                   "/out/t.json: \\\n  /nonexistent/model.pnet\n\n/nonexistent/model.pnet:\n");
  ck_assert_int_eq(leftovers(), 0);
}
END_TEST

START_TEST(test_depfile_escapes)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  const char *deps[] = { "/nonexistent/a b.pnet", "/nonexistent/c$#.pnet" };
  ck_assert_int_eq(out_file_write_depfile(m, "/out/x.c", deps, 2), 0);
  fclose(m);
  ck_assert_str_eq(buf, "/out/x.c: \\\n  /nonexistent/a\\ b.pnet \\\n  /nonexistent/c$$\\#.pnet\n"
                        "\n/nonexistent/a\\ b.pnet:\n\n/nonexistent/c$$\\#.pnet:\n");
  free(buf);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("out_file");
  TCase *tc = tcase_create("out_file");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_commit_writes_whole_file);
  tcase_add_test(tc, test_abort_leaves_previous_file);
  tcase_add_test(tc, test_group_all_or_nothing);
  tcase_add_test(tc, test_missing_directory);
  tcase_add_test(tc, test_symlink_target_replaced);
  tcase_add_test(tc, test_device_written_in_place);
  tcase_add_test(tc, test_commit_group_with_depfile);
  tcase_add_test(tc, test_depfile_escapes);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
