/* test_gitstore: the deletion rule for git's object store
 * (runtime/supervise/sbx_unotify_gitstore.c, docs/approvals.md "git gc
 * loses no object"), called directly on a real repository made by git:
 * what it frees (a loose object a pack holds, an empty fan-out directory,
 * a pack another pack covers) and, as controls, what it must not (an
 * unpacked loose object, the only pack, a .keep, a file outside the store,
 * a name that is not an object's, another directory). */
#include <check.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx_unotify_op.h"

static char ws[PATH_MAX];

static void sh(const char *script)
{
  char cmd[PATH_MAX * 4];
  snprintf(cmd, sizeof cmd,
           "cd '%s' && GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@e.invalid GIT_COMMITTER_NAME=t "
           "GIT_COMMITTER_EMAIL=t@e.invalid sh -c '%s' >/dev/null 2>&1",
           ws, script);
  ck_assert_msg(system(cmd) == 0, "setup failed: %s", script);
}

/* The output's first line of `script` run in the workspace. */
static void sh_out(const char *script, char *out, size_t len)
{
  char cmd[PATH_MAX * 4];
  FILE *p;
  snprintf(cmd, sizeof cmd, "cd '%s' && %s", ws, script);
  p = popen(cmd, "r");
  ck_assert_ptr_nonnull(p);
  out[0] = '\0';
  ck_assert_ptr_nonnull(fgets(out, (int)len, p));
  out[strcspn(out, "\n")] = '\0';
  pclose(p);
}

static int dir_fd(const char *rel)
{
  char path[PATH_MAX * 2];
  int fd;
  snprintf(path, sizeof path, "%s/%s", ws, rel);
  fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  ck_assert_int_ge(fd, 0);
  return fd;
}

static bool store_free(const char *dir, const char *name, bool is_dir)
{
  int fd = dir_fd(dir);
  bool f = sbx_un_git_store_free(fd, name, is_dir, ws);
  close(fd);
  return f;
}

static void setup(void)
{
  snprintf(ws, sizeof ws, "/tmp/sbx-gitstore-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(ws));
  sh("git init -q -b main && echo a > a && git add a && git commit -qm a");
}

static void teardown(void)
{
  char cmd[PATH_MAX + 32];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", ws);
  ck_assert_int_eq(system(cmd), 0);
}

/* A loose object a pack holds is free; one no pack holds is not. */
START_TEST(t_loose)
{
  char id[64], dir[16], other[64], odir[16];
  sh_out("git rev-parse HEAD", id, sizeof id);
  snprintf(dir, sizeof dir, ".git/objects/%.2s", id);
  /* Not packed yet: work, asked. */
  ck_assert(!store_free(dir, id + 2, false));
  sh("git repack -q"); /* packs, keeps the loose copies */
  ck_assert(store_free(dir, id + 2, false));
  /* Written after the pack: in no pack. */
  sh_out("echo later | git hash-object -w --stdin", other, sizeof other);
  snprintf(odir, sizeof odir, ".git/objects/%.2s", other);
  ck_assert(!store_free(odir, other + 2, false));
  /* The name must be the object's: the id of another directory, a name
   * that is not 38 hex digits. */
  if (strncmp(id, other, 2) != 0)
    ck_assert(!store_free(odir, id + 2, false));
  ck_assert(!store_free(dir, "not-an-object", false));
  /* Outside objects/: a file named like a packed object elsewhere. */
  sh("mkdir -p x");
  ck_assert(!store_free("x", id + 2, false));
}
END_TEST

/* rmdir: a fan-out directory of objects/ only. */
START_TEST(t_fanout)
{
  ck_assert(store_free(".git/objects", "ab", true));
  ck_assert(!store_free(".git/objects", "pack", true));
  ck_assert(!store_free(".git/objects", "abc", true));
  ck_assert(!store_free(".git", "ab", true));
  ck_assert(!store_free(".", "ab", true));
}
END_TEST

/* A pack is free only when another pack holds every object it has. */
START_TEST(t_packs)
{
  char first[128], name[160];
  sh("git repack -q");
  sh_out("ls .git/objects/pack/*.idx | sed 's|.*/pack-||; s|\\.idx$||'", first, sizeof first);
  snprintf(name, sizeof name, "pack-%s.pack", first);
  /* The only pack: its objects are nowhere else. */
  ck_assert(!store_free(".git/objects/pack", name, false));
  /* A second pack with only new objects: the first still alone. */
  sh("echo b > b && git add b && git commit -qm b && git repack -q");
  ck_assert(!store_free(".git/objects/pack", name, false));
  /* A pack of everything (repack -a, the old ones kept): the first is
   * covered, each of its files free; a .keep never. */
  sh("git repack -a -q");
  ck_assert(store_free(".git/objects/pack", name, false));
  snprintf(name, sizeof name, "pack-%s.idx", first);
  ck_assert(store_free(".git/objects/pack", name, false));
  snprintf(name, sizeof name, "pack-%s.keep", first);
  ck_assert(!store_free(".git/objects/pack", name, false));
  /* Not in objects/pack: the same name elsewhere. */
  snprintf(name, sizeof name, "pack-%s.pack", first);
  ck_assert(!store_free(".git/objects", name, false));
}
END_TEST

/* A repository whose .git is a file (linked worktree, submodule): not
 * looked into. */
START_TEST(t_not_a_store)
{
  ck_assert(!sbx_un_git_store_free(AT_FDCWD, "ab", true, NULL));
  ck_assert(!sbx_un_git_store_free(AT_FDCWD, "ab", true, "relative"));
  ck_assert(!sbx_un_git_store_free(AT_FDCWD, "ab", true, "/nonexistent-sbx-ws"));
}
END_TEST

int main(void)
{
  Suite *s = suite_create("gitstore");
  TCase *tc = tcase_create("rule");
  SRunner *sr;
  int failed;
  if (system("git --version >/dev/null 2>&1") != 0) {
    printf("SKIP: git not installed\n");
    return 77;
  }
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, t_loose);
  tcase_add_test(tc, t_fanout);
  tcase_add_test(tc, t_packs);
  tcase_add_test(tc, t_not_a_store);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
