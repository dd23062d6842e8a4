/* test_tree: builds small file trees (directories, empty files, symlinks)
 * for the tests of path handling (test_resolve.c, tests/warm/test_watch.c).
 * Header only: each test is one executable. */
#ifndef CS_TESTS_TEST_TREE_H
#define CS_TESTS_TEST_TREE_H

#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/* Creates root/rel: kind 'd' a directory, 'f' an empty file, anything
 * else a symlink to target. Fails the running test on any error. */
static inline void test_tree_mk(const char *root, const char *rel, int kind, const char *target)
{
  char p[PATH_MAX + 64];
  ck_assert_int_lt(snprintf(p, sizeof p, "%s/%s", root, rel), (int)sizeof p);
  if (kind == 'd')
    ck_assert_int_eq(mkdir(p, 0755), 0);
  else if (kind == 'f') {
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
  } else {
    /* A symlink; a NULL target is the caller's mistake (and, inlined
     * into a 'd' or 'f' call, what -O3 would otherwise warn of). */
    ck_assert_ptr_nonnull(target);
    ck_assert_int_eq(symlink(target ? target : "", p), 0);
  }
}

#endif
