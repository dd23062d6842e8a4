/* test_made: the record of when earlier runs of a workspace ran
 * (runtime/supervise/sbx_made.c, docs/approvals.md "What earlier runs
 * made"): what it keeps (spans merged, the newest when full, across a
 * rewrite), what it refuses to believe (a record another user could
 * write, one of another directory, spans in the future, damaged lines) and
 * the pruning of records whose workspace is gone. Table-driven where the
 * cases are data. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sbx_made.h"

static char root[64], ws[PATH_MAX], dir[PATH_MAX];

static void setup(void)
{
  snprintf(root, sizeof root, "/tmp/test_made.XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(root));
  snprintf(ws, sizeof ws, "%s/ws", root);
  snprintf(dir, sizeof dir, "%s/state/commander-sandbox/made", root);
  ck_assert_int_eq(mkdir(ws, 0755), 0);
}

static void teardown(void)
{
  char cmd[PATH_MAX + 16];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  ck_assert_int_eq(system(cmd), 0);
}

/* The record's path for a workspace, as sbx_made.c names it. */
static void record_path(const char *w, char *out, size_t len)
{
  struct stat st;
  ck_assert_int_eq(stat(w, &st), 0);
  snprintf(out, len, "%s/%" PRIx64 "-%" PRIx64, dir, (uint64_t)st.st_dev, (uint64_t)st.st_ino);
}

static void write_record(const char *text, mode_t mode)
{
  char path[PATH_MAX * 2], cmd[PATH_MAX + 16];
  FILE *f;
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
  ck_assert_int_eq(chmod(dir, 0700), 0);
  record_path(ws, path, sizeof path);
  ck_assert_ptr_nonnull(f = fopen(path, "w"));
  fputs(text, f);
  fclose(f);
  ck_assert_int_eq(chmod(path, mode), 0);
}

static struct timespec ts(long s, long ns)
{
  struct timespec t = { .tv_sec = s, .tv_nsec = ns };
  return t;
}

/* One record run twice: the span is kept and covers the run, not its
 * ends or what came after. */
START_TEST(record_then_load)
{
  struct sbx_made m = { 0 }, got;
  struct timespec before, after;
  ck_assert_int_eq(clock_gettime(CLOCK_REALTIME, &before), 0);
  m.run_from = before;
  m.run_from_set = true;
  usleep(20000);
  ck_assert_int_eq(sbx_made_record(dir, ws, &m), 0);
  ck_assert_int_eq(sbx_made_load(dir, ws, &got), 0);
  ck_assert_uint_eq(got.n, 1);
  struct timespec mid = before;
  mid.tv_nsec += 1000;
  if (mid.tv_nsec >= 1000000000L) {
    mid.tv_sec++;
    mid.tv_nsec -= 1000000000L;
  }
  ck_assert(sbx_made_covers(&got, &mid));
  ck_assert(!sbx_made_covers(&got, &before)); /* the ends are out */
  usleep(20000);
  ck_assert_int_eq(clock_gettime(CLOCK_REALTIME, &after), 0);
  ck_assert(!sbx_made_covers(&got, &after));
  sbx_made_free(&got);
  /* Nothing stamped: nothing recorded. */
  m.run_from_set = false;
  ck_assert_int_eq(sbx_made_record(dir, ws, &m), 0);
  ck_assert_int_eq(sbx_made_load(dir, ws, &got), 0);
  ck_assert_uint_eq(got.n, 1);
  sbx_made_free(&got);
}
END_TEST

/* A record left by a directory that is gone, whose inode the workspace
 * now has (temporary workspaces meet this): the next run's span starts
 * the record over, and is believed. Control: before it, nothing of the
 * stale record covers anything, as parse_table's "another directory's
 * record" shows, so the covered span can only be the new one. */
START_TEST(stale_record_started_over)
{
  char text[PATH_MAX + 64];
  struct sbx_made m = { 0 }, got;
  struct timespec mid;
  snprintf(text, sizeof text, "workspace %s-gone\n100.000000000 200.000000000\n", ws);
  write_record(text, 0600);
  ck_assert_int_eq(sbx_made_load(dir, ws, &got), 0);
  ck_assert_uint_eq(got.n, 0);
  sbx_made_free(&got);
  ck_assert_int_eq(clock_gettime(CLOCK_REALTIME, &m.run_from), 0);
  m.run_from_set = true;
  usleep(20000);
  ck_assert_int_eq(sbx_made_record(dir, ws, &m), 0);
  ck_assert_int_eq(sbx_made_load(dir, ws, &got), 0);
  ck_assert_uint_eq(got.n, 1);
  mid = m.run_from;
  mid.tv_nsec += 1000;
  if (mid.tv_nsec >= 1000000000L) {
    mid.tv_sec++;
    mid.tv_nsec -= 1000000000L;
  }
  ck_assert(sbx_made_covers(&got, &mid));
  sbx_made_free(&got);
}
END_TEST

/* What the text of a record yields: spans covering `probe`, count. */
static const struct {
  const char *name;
  const char *body; /* after the first line; "%W" is replaced by nothing */
  bool right_head;
  mode_t mode;
  size_t n;
  long probe; /* a second covered (1) or not (0) below */
  bool covered;
} parse_cases[] = {
  { "one span", "100.000000000 200.000000000\n", true, 0600, 1, 150, true },
  { "merged overlap", "100.000000000 200.000000000\n150.000000000 300.000000000\n", true, 0600, 1,
    250, true },
  { "touching spans stay apart", "100.000000000 200.000000000\n200.000000000 300.000000000\n", true,
    0600, 2, 200, false },
  { "unsorted", "500.000000000 600.000000000\n100.000000000 200.000000000\n", true, 0600, 2, 550,
    true },
  { "from not before to", "200.000000000 200.000000000\n300.000000000 250.000000000\n", true, 0600,
    0, 225, false },
  { "in the future", "100.000000000 99999999999.000000000\n", true, 0600, 0, 150, false },
  { "damaged lines", "100.5 200.0\nx y\n100.000000000\n-1.000000000 5.000000000\n", true, 0600, 0,
    150, false },
  { "last line cut short", "100.000000000 200.000000000\n300.000000000 400.00000", true, 0600, 1,
    350, false },
  { "another directory's record", "100.000000000 200.000000000\n", false, 0600, 0, 150, false },
  { "writable by group", "100.000000000 200.000000000\n", true, 0620, 0, 150, false },
  { "writable by others", "100.000000000 200.000000000\n", true, 0602, 0, 150, false },
};

START_TEST(parse_table)
{
  char text[8192];
  struct sbx_made got;
  snprintf(text, sizeof text, "workspace %s%s\n%s", ws, parse_cases[_i].right_head ? "" : "-other",
           parse_cases[_i].body);
  write_record(text, parse_cases[_i].mode);
  ck_assert_int_eq(sbx_made_load(dir, ws, &got), 0);
  struct timespec t = ts(parse_cases[_i].probe, 0);
  ck_assert_msg(got.n == parse_cases[_i].n, "%s: %zu spans", parse_cases[_i].name, got.n);
  ck_assert_msg(sbx_made_covers(&got, &t) == parse_cases[_i].covered, "%s: covers %ld",
                parse_cases[_i].name, parse_cases[_i].probe);
  sbx_made_free(&got);
}
END_TEST

/* A directory another user could write holds nothing we believe. */
START_TEST(shared_directory_refused)
{
  char text[PATH_MAX + 64];
  struct sbx_made got;
  snprintf(text, sizeof text, "workspace %s\n100.000000000 200.000000000\n", ws);
  write_record(text, 0600);
  ck_assert_int_eq(chmod(dir, 0777), 0);
  ck_assert_int_eq(sbx_made_load(dir, ws, &got), 0);
  ck_assert_uint_eq(got.n, 0);
  /* Nor is anything written there. */
  struct sbx_made m = { .run_from = ts(1000, 0), .run_from_set = true };
  ck_assert_int_eq(sbx_made_record(dir, ws, &m), -EPERM);
  ck_assert_int_eq(chmod(dir, 0700), 0);
  ck_assert_int_eq(sbx_made_load(dir, ws, &got), 0);
  ck_assert_uint_eq(got.n, 1);
  sbx_made_free(&got);
}
END_TEST

/* A symlink in the record's place is not followed. */
START_TEST(symlink_record_refused)
{
  char path[PATH_MAX * 2], target[PATH_MAX * 2], text[PATH_MAX + 64];
  struct sbx_made got;
  snprintf(text, sizeof text, "workspace %s\n100.000000000 200.000000000\n", ws);
  write_record(text, 0600);
  record_path(ws, path, sizeof path);
  snprintf(target, sizeof target, "%s/elsewhere", root);
  ck_assert_int_eq(rename(path, target), 0);
  ck_assert_int_eq(symlink(target, path), 0);
  ck_assert_int_eq(sbx_made_load(dir, ws, &got), 0);
  ck_assert_uint_eq(got.n, 0);
  struct sbx_made m = { .run_from = ts(1000, 0), .run_from_set = true };
  ck_assert_int_lt(sbx_made_record(dir, ws, &m), 0);
}
END_TEST

/* Grown past its rewrite size, the record is merged and keeps the newest
 * SBX_MADE_SPANS_MAX spans; appends keep working after. */
START_TEST(rewrite_keeps_newest)
{
  size_t cap = 1 << 20, len;
  char *text = malloc(cap);
  struct sbx_made got;
  ck_assert_ptr_nonnull(text);
  len = (size_t)snprintf(text, cap, "workspace %s\n", ws);
  for (long i = 0; i < 3000; i++)
    len += (size_t)snprintf(text + len, cap - len, "%ld.000000000 %ld.500000000\n", 1000 + i * 10,
                            1000 + i * 10);
  write_record(text, 0600);
  free(text);
  ck_assert_int_eq(sbx_made_load(dir, ws, &got), 0);
  ck_assert_uint_eq(got.n, SBX_MADE_SPANS_MAX);
  struct timespec oldest = ts(1000, 250000000), newest = ts(1000 + 2999 * 10, 250000000);
  ck_assert(!sbx_made_covers(&got, &oldest));
  ck_assert(sbx_made_covers(&got, &newest));
  sbx_made_free(&got);
  struct timespec now;
  ck_assert_int_eq(clock_gettime(CLOCK_REALTIME, &now), 0);
  struct sbx_made m = { .run_from = ts(now.tv_sec - 5, 0), .run_from_set = true };
  ck_assert_int_eq(sbx_made_record(dir, ws, &m), 0);
  char path[PATH_MAX * 2];
  struct stat st;
  record_path(ws, path, sizeof path);
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_int_lt(st.st_size, 64 * 1024);
  ck_assert_int_eq(sbx_made_load(dir, ws, &got), 0);
  ck_assert_uint_eq(got.n, SBX_MADE_SPANS_MAX);
  struct timespec recent = ts(now.tv_sec - 2, 0);
  ck_assert(sbx_made_covers(&got, &recent));
  sbx_made_free(&got);
}
END_TEST

/* A new record prunes those of workspaces that are gone, and keeps the
 * rest (and what is not a record). */
START_TEST(prune_gone_workspaces)
{
  char gone[PATH_MAX + 8], gone_rec[PATH_MAX * 2], text[PATH_MAX + 64], other[PATH_MAX * 2];
  struct sbx_made m = { .run_from = ts(1000, 0), .run_from_set = true };
  FILE *f;
  snprintf(gone, sizeof gone, "%s/gone", root);
  ck_assert_int_eq(mkdir(gone, 0755), 0);
  record_path(gone, gone_rec, sizeof gone_rec);
  snprintf(text, sizeof text, "workspace %s\n100.000000000 200.000000000\n", gone);
  write_record("", 0600); /* makes the directory */
  ck_assert_ptr_nonnull(f = fopen(gone_rec, "w"));
  fputs(text, f);
  fclose(f);
  snprintf(other, sizeof other, "%s/notes-1", dir);
  ck_assert_ptr_nonnull(f = fopen(other, "w"));
  fputs("not a record\n", f);
  fclose(f);
  ck_assert_int_eq(rmdir(gone), 0);
  /* Our own record was made empty by write_record: remove it so the
   * next record is new. */
  char mine[PATH_MAX * 2];
  record_path(ws, mine, sizeof mine);
  ck_assert_int_eq(unlink(mine), 0);
  ck_assert_int_eq(sbx_made_record(dir, ws, &m), 0);
  ck_assert_int_eq(access(gone_rec, F_OK), -1);
  ck_assert_int_eq(access(other, F_OK), 0);
  ck_assert_int_eq(access(mine, F_OK), 0);
}
END_TEST

START_TEST(dir_from_environment)
{
  char buf[PATH_MAX];
  setenv("XDG_STATE_HOME", "/x/state", 1);
  ck_assert_int_eq(sbx_made_dir(buf, sizeof buf), 0);
  ck_assert_str_eq(buf, "/x/state/commander-sandbox/made");
  setenv("XDG_STATE_HOME", "relative", 1); /* ignored, as XDG says */
  setenv("HOME", "/h", 1);
  ck_assert_int_eq(sbx_made_dir(buf, sizeof buf), 0);
  ck_assert_str_eq(buf, "/h/.local/state/commander-sandbox/made");
  unsetenv("XDG_STATE_HOME");
  unsetenv("HOME");
  ck_assert_int_eq(sbx_made_dir(buf, sizeof buf), -ENOENT);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("made");
  TCase *tc = tcase_create("record");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, record_then_load);
  tcase_add_test(tc, stale_record_started_over);
  tcase_add_loop_test(tc, parse_table, 0, (int)(sizeof parse_cases / sizeof parse_cases[0]));
  tcase_add_test(tc, shared_directory_refused);
  tcase_add_test(tc, symlink_record_refused);
  tcase_add_test(tc, rewrite_keeps_newest);
  tcase_add_test(tc, prune_gone_workspaces);
  tcase_add_test(tc, dir_from_environment);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
