/* Tests of the cross-process admission state (runtime/admission/cs_shared_sched.c):
 * real processes, real SIGKILLs, a real shared file. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commander.h"
#include "fixture_opposite.h"
#include "model_tables.h"
#include "check_run.h"
#include "test_util.h"

static char dir[64], path[128];

static void setup(void)
{
  strcpy(dir, "/tmp/cs_shared_XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/model.state", dir);
}

static void teardown(void)
{
  char p[160];
  unlink(path);
  snprintf(p, sizeof p, "%s/link", dir);
  unlink(p);
  rmdir(dir);
}

static struct cs_shared_sched *open_or_die(const struct cs_model_table *t)
{
  struct cs_shared_sched *sh = NULL;
  int rc = cs_shared_open(path, t, NULL, &sh);
  if (rc != 0) {
    fprintf(stderr, "cs_shared_open(%s): %s\n", path, cs_strerror(rc));
    _exit(3);
  }
  return sh;
}

START_TEST(shared_basic)
{
  struct cs_shared_sched *sh = open_or_die(&fixture_opposite), *other = NULL;
  struct cs_shared_ticket a, b, forged;
  struct stat st;
  char link[160];

  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_int_eq(st.st_mode & 0777, 0600);
  ck_assert_int_eq(cs_shared_lookup_admission(sh, "admit_a"), 0);
  ck_assert_int_eq(cs_shared_lookup_admission(sh, "start_a"), -EINVAL);
  ck_assert_int_eq(cs_shared_lookup_admission(sh, "nope"), -ENOENT);
  ck_assert_int_eq(cs_shared_try_admit(sh, 0, &a), 0);
  ck_assert_uint_eq(cs_shared_state(sh), 1);
  ck_assert_int_eq(cs_shared_holders(sh), 1);
  /* admit_b would deadlock with the admitted a: refused. */
  ck_assert_int_eq(cs_shared_try_admit(sh, 3, &b), -EAGAIN);
  ck_assert_int_eq(cs_shared_try_admit(sh, 1, &b), -EINVAL);
  /* A second opener sees the same state. */
  ck_assert_int_eq(cs_shared_open(path, &fixture_opposite, NULL, &other), 0);
  ck_assert_uint_eq(cs_shared_state(other), 1);
  forged = a;
  forged.generation += 3;
  ck_assert_int_eq(cs_shared_complete(other, &forged), -EINVAL);
  forged = a;
  forged.admission = 3;
  ck_assert_int_eq(cs_shared_complete(other, &forged), -EINVAL);
  forged.holder = 100000;
  ck_assert_int_eq(cs_shared_complete(other, &forged), -EINVAL);
  /* Completion runs the work's remaining progress step (start_a) first. */
  ck_assert_int_eq(cs_shared_complete(other, &a), 0);
  ck_assert_uint_eq(cs_shared_state(sh), 0);
  ck_assert_int_eq(cs_shared_complete(sh, &a), -EALREADY);
  ck_assert_int_eq(cs_shared_holders(sh), 0);
  /* Nothing of this process is dead: reclaim finds nothing. */
  ck_assert_int_eq(cs_shared_try_admit(sh, 3, &b), 0);
  ck_assert_int_eq(cs_shared_reclaim(sh), 0);
  ck_assert_int_eq(cs_shared_holders(sh), 1);
  ck_assert_int_eq(cs_shared_complete(sh, &b), 0);
  cs_shared_close(other);
  cs_shared_close(sh);
  cs_shared_close(NULL);

  /* Another model's file, a symlink, a file others may write: refused. */
  other = NULL;
  ck_assert_int_eq(cs_shared_open(path, &fixture_opposite_broken, NULL, &other), -EPROTO);
#ifdef HAVE_MODEL_DEFAULT
  ck_assert_int_eq(cs_shared_open(path, &cs_model_default, NULL, &other), -ESTALE);
#endif
  snprintf(link, sizeof link, "%s/link", dir);
  ck_assert_int_eq(symlink(path, link), 0);
  ck_assert_int_eq(cs_shared_open(link, &fixture_opposite, NULL, &other), -ELOOP);
  ck_assert_int_eq(chmod(path, 0666), 0);
  ck_assert_int_eq(cs_shared_open(path, &fixture_opposite, NULL, &other), -EPERM);
  ck_assert_int_eq(chmod(path, 0600), 0);
  ck_assert_int_eq(truncate(path, 100), 0);
  ck_assert_int_eq(cs_shared_open(path, &fixture_opposite, NULL, &other), -ESTALE);
  ck_assert_ptr_null(other);
  /* A creator killed before it set the magic left zeros: made again. */
  ck_assert_int_eq(truncate(path, 0), 0);
  ck_assert_int_eq(truncate(path, 65536), 0);
  ck_assert_int_eq(cs_shared_open(path, &fixture_opposite, NULL, &other), 0);
  ck_assert_int_eq(cs_shared_try_admit(other, 0, &a), 0);
  ck_assert_int_eq(cs_shared_complete(other, &a), 0);
  cs_shared_close(other);
}
END_TEST

/* The notice of a wait (sbx's "waiting for admission" line): called once,
 * with the holders of the same admission and the earlier waiters; not at
 * all when the wait ends first or the slot is free. */
struct notice_seen {
  int calls;
  struct cs_shared_wait_info info;
};
static void notice_count(void *ctx, const struct cs_shared_wait_info *info)
{
  struct notice_seen *seen = ctx;
  seen->calls++;
  seen->info = *info;
}

static struct timespec deadline_in(long ms)
{
  struct timespec dl;
  clock_gettime(CLOCK_MONOTONIC, &dl);
  dl.tv_sec += ms / 1000;
  dl.tv_nsec += (ms % 1000) * 1000000L;
  if (dl.tv_nsec >= 1000000000L) {
    dl.tv_sec++;
    dl.tv_nsec -= 1000000000L;
  }
  return dl;
}

START_TEST(shared_wait_notice)
{
  struct cs_shared_sched *sh = open_or_die(&fixture_opposite);
  struct cs_shared_ticket held[16], tk;
  struct notice_seen seen = { 0 };
  struct cs_shared_wait_notice notice = { .after_ms = 100, .fn = notice_count, .ctx = &seen };
  struct cs_shared_wait_info info;
  struct timespec dl;
  int n = 0;

  while (n < 16 && cs_shared_try_admit(sh, 0, &held[n]) == 0)
    n++;
  ck_assert_int_ge(n, 1);
  ck_assert_int_lt(n, 16);
  dl = deadline_in(1500); /* room for a loaded machine: the notice comes at 100 ms */
  ck_assert_int_eq(cs_shared_admit_notice(sh, 0, &dl, &notice, &tk), -ETIMEDOUT);
  ck_assert_int_eq(seen.calls, 1);
  ck_assert_uint_eq(seen.info.in_use, (uint32_t)n);
  ck_assert_uint_eq(seen.info.ahead, 0);
  ck_assert_uint_ge(seen.info.waited_ms, 100);
  cs_shared_tier_info(sh, 0, UINT64_MAX, &info);
  ck_assert_uint_eq(info.in_use, (uint32_t)n);
  ck_assert_uint_eq(info.ahead, 0); /* the timed-out waiter left the queue */
  /* The deadline before the notice: no call. */
  seen.calls = 0;
  notice.after_ms = 10000;
  dl = deadline_in(150);
  ck_assert_int_eq(cs_shared_admit_notice(sh, 0, &dl, &notice, &tk), -ETIMEDOUT);
  ck_assert_int_eq(seen.calls, 0);
  /* A free slot: granted at once, no call. */
  ck_assert_int_eq(cs_shared_complete(sh, &held[--n]), 0);
  notice.after_ms = 0;
  dl = deadline_in(1000);
  ck_assert_int_eq(cs_shared_admit_notice(sh, 0, &dl, &notice, &held[n++]), 0);
  ck_assert_int_eq(seen.calls, 0);
  while (n > 0)
    ck_assert_int_eq(cs_shared_complete(sh, &held[--n]), 0);
  cs_shared_close(sh);
}
END_TEST

/* A guard keeps a killed holder's slot until the guard is dead too (sbx:
 * the slot of a SIGKILLed `sbx run` returns only once its sandbox's pid 1
 * is gone); a zombie guard counts as dead. Bad guards are refused. */
START_TEST(shared_guard_holds_slot)
{
  struct cs_shared_sched *sh = open_or_die(&fixture_opposite);
  struct cs_shared_ticket tk;
  int fds[2], status;
  pid_t guard, holder, gone;
  char c;

  ck_assert_int_eq(pipe(fds), 0);
  guard = fork();
  if (guard == 0)
    for (;;)
      pause();
  holder = fork();
  if (holder == 0) {
    struct cs_shared_sched *mine = open_or_die(&fixture_opposite);
    struct cs_shared_ticket t;
    if (cs_shared_try_admit(mine, 0, &t) != 0 || cs_shared_guard(mine, &t, guard) != 0 ||
        write(fds[1], "h", 1) != 1)
      _exit(1);
    for (;;)
      pause();
  }
  ck_assert_int_eq(read(fds[0], &c, 1), 1);
  kill(holder, SIGKILL);
  ck_assert_int_eq(waitpid(holder, &status, 0), holder);
  /* The holder is dead, its guard runs: the slot stays taken. */
  ck_assert_int_eq(cs_shared_reclaim(sh), 0);
  ck_assert_int_eq(cs_shared_holders(sh), 1);
  ck_assert_int_eq(cs_shared_try_admit(sh, 3, &tk), -EAGAIN);
  /* The guard dies (a zombie, not reaped yet): the slot returns. */
  kill(guard, SIGKILL);
  for (int spin = 0; cs_shared_reclaim(sh) == 0; spin++) {
    ck_assert_int_lt(spin, 2000);
    usleep(1000);
  }
  ck_assert_int_eq(cs_shared_holders(sh), 0);
  ck_assert_uint_eq(cs_shared_state(sh), 0);
  ck_assert_int_eq(waitpid(guard, &status, 0), guard);

  /* Refused: no such process (the reaped guard), pid 0, a completed
   * ticket; our own ticket takes a live guard. */
  ck_assert_int_eq(cs_shared_try_admit(sh, 0, &tk), 0);
  ck_assert_int_eq(cs_shared_guard(sh, &tk, guard), -ESRCH);
  ck_assert_int_eq(cs_shared_guard(sh, &tk, 0), -EINVAL);
  ck_assert_int_eq(cs_shared_guard(sh, &tk, getpid()), 0);
  gone = tk.holder;
  ck_assert_int_eq(cs_shared_complete(sh, &tk), 0);
  ck_assert_int_eq(cs_shared_guard(sh, &tk, getpid()), -EALREADY);
  ck_assert_uint_eq(tk.holder, (uint32_t)gone);
  close(fds[0]);
  close(fds[1]);
  cs_shared_close(sh);
}
END_TEST

extern int cs_shared_test_kill_at; /* CS_SHARED_TEST_HOOKS build of cs_shared_sched.c */

/* A process killed at every point of a commit (before it is valid, and
 * after each of its entries): the next locker repairs the file from the
 * journal, reclaim returns the slot, and the mutex stays usable. */
START_TEST(shared_kill_inside_commit)
{
  for (int at = -2; at <= 6; at++) {
    if (at == -1)
      continue;
    struct cs_shared_sched *sh = open_or_die(&fixture_opposite);
    struct cs_shared_ticket tk;
    int status;
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
      struct cs_shared_sched *me = open_or_die(&fixture_opposite);
      cs_shared_test_kill_at = at;
      cs_shared_try_admit(me, 0, &tk);
      _exit(9); /* not reached: the commit kills us */
    }
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "at %d: status %d", at,
                  status);
    cs_shared_reclaim(sh);
    ck_assert_msg(cs_shared_state(sh) == 0 && cs_shared_holders(sh) == 0,
                  "killed after %d journal entries: state %u, %d holders", at, cs_shared_state(sh),
                  cs_shared_holders(sh));
    ck_assert_int_eq(cs_shared_try_admit(sh, 0, &tk), 0);
    ck_assert_uint_eq(cs_shared_state(sh), 1);
    ck_assert_int_eq(cs_shared_complete(sh, &tk), 0);
    cs_shared_close(sh);
  }
}
END_TEST

/* FIFO per admission across processes. */
START_TEST(shared_fifo_across_processes)
{
  struct cs_shared_sched *sh = open_or_die(&fixture_opposite);
  struct cs_shared_ticket hold;
  enum { N = 5 };
  pid_t kids[N];
  int fds[2];
  char order[N + 1] = { 0 };

  ck_assert_int_eq(pipe(fds), 0);
  ck_assert_int_eq(cs_shared_try_admit(sh, 3, &hold), 0); /* admit_b: admit_a refused */
  for (int i = 0; i < N; i++) {
    kids[i] = fork();
    ck_assert_int_ge(kids[i], 0);
    if (kids[i] == 0) {
      struct cs_shared_sched *me = open_or_die(&fixture_opposite);
      struct cs_shared_ticket tk;
      struct timespec dl;
      char c = (char)('0' + i);
      test_deadline_in(&dl, 20000);
      if (cs_shared_admit(me, 0, &dl, &tk) != 0)
        _exit(1);
      if (write(fds[1], &c, 1) != 1 || cs_shared_complete(me, &tk) != 0)
        _exit(2);
      _exit(0);
    }
    for (int spin = 0; cs_shared_waiters(sh) != i + 1; spin++) {
      ck_assert_int_lt(spin, 20000);
      usleep(500);
    }
  }
  ck_assert_int_eq(cs_shared_complete(sh, &hold), 0);
  for (int i = 0; i < N; i++) {
    int status;
    ck_assert_int_eq(waitpid(kids[i], &status, 0), kids[i]);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d status %d", i, status);
  }
  ck_assert_int_eq(read(fds[0], order, N), N);
  ck_assert_str_eq(order, "01234");
  ck_assert_uint_eq(cs_shared_state(sh), 0);
  ck_assert_int_eq(cs_shared_holders(sh), 0);
  ck_assert_int_eq(cs_shared_waiters(sh), 0);
  cs_shared_close(sh);
}
END_TEST

#ifdef HAVE_MODEL_DEFAULT
static const struct {
  const char *tier;
  int slots;
} tiers[] = { { "v8", 10 }, { "seccomp", 4 }, { "wasm", 2 }, { "tee", 1 } };
static const char *const lanes[] = { "interactive", "background", "subagent" };

/* Every lane slot of models/default.pnet (interactive 6, background 2,
 * subagent 2), over every tier: 10 runs hold the whole model. */
static const struct {
  const char *lane, *tier;
} full[] = { { "interactive", "v8" },      { "interactive", "v8" },
             { "interactive", "v8" },      { "interactive", "v8" },
             { "interactive", "seccomp" }, { "interactive", "seccomp" },
             { "background", "seccomp" },  { "background", "seccomp" },
             { "subagent", "wasm" },       { "subagent", "tee" } };

/* A child that admits (lane, tier), says so on fd, and then holds it forever. */
static pid_t spawn_holder(int fd, const char *lane, const char *tier, bool hold_forever)
{
  pid_t pid = fork();
  if (pid != 0)
    return pid;
  struct cs_shared_sched *sh = open_or_die(&cs_model_default);
  struct cs_shared_ticket tk;
  struct timespec dl;
  char name[64];
  snprintf(name, sizeof name, "admit_%s_%s", lane, tier);
  int a = cs_shared_lookup_admission(sh, name);
  test_deadline_in(&dl, 30000);
  if (a < 0 || cs_shared_admit(sh, (uint32_t)a, &dl, &tk) != 0)
    _exit(1);
  if (write(fd, "h", 1) != 1)
    _exit(2);
  if (hold_forever)
    for (;;)
      pause();
  if (cs_shared_complete(sh, &tk) != 0)
    _exit(3);
  _exit(0);
}

/* Every slot held by processes that are then SIGKILLed; processes queued
 * behind them must be admitted (they reclaim the dead holders), one queued
 * process is itself killed, and at the end every slot is back. */
START_TEST(shared_sigkill_returns_slots)
{
  struct cs_shared_sched *sh = open_or_die(&cs_model_default);
  pid_t holders[sizeof full / sizeof *full], waiters[8];
  int nh = 0, nw = 0, fds[2], status;
  char buf[32];

  ck_assert_int_eq(pipe(fds), 0);
  for (size_t i = 0; i < sizeof full / sizeof *full; i++)
    holders[nh++] = spawn_holder(fds[1], full[i].lane, full[i].tier, true);
  for (int got = 0; got < nh;)
    got +=
        (int)read(fds[0], buf, (size_t)(nh - got) < sizeof buf ? (size_t)(nh - got) : sizeof buf);
  ck_assert_int_eq(cs_shared_holders(sh), 10);
  int ntiers = (int)(sizeof tiers / sizeof *tiers), nlanes = (int)(sizeof lanes / sizeof *lanes);
  for (int i = 0; i < 8; i++)
    waiters[nw++] = spawn_holder(fds[1], lanes[i % nlanes], tiers[i % ntiers].tier, false);
  for (int spin = 0; cs_shared_waiters(sh) != 8; spin++) {
    ck_assert_int_lt(spin, 20000);
    usleep(500);
  }
  /* A waiter dies in the queue: it must not block the ones behind it. */
  kill(waiters[3], SIGKILL);
  ck_assert_int_eq(waitpid(waiters[3], &status, 0), waiters[3]);
  /* Kill every holder; do not reap them yet (zombies are dead too). */
  for (int i = 0; i < nh; i++)
    kill(holders[i], SIGKILL);
  for (int i = 0; i < nw; i++) {
    if (i == 3)
      continue;
    ck_assert_int_eq(waitpid(waiters[i], &status, 0), waiters[i]);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "waiter %d: status %d", i, status);
  }
  for (int i = 0; i < nh; i++) {
    ck_assert_int_eq(waitpid(holders[i], &status, 0), holders[i]);
    ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  }
  cs_shared_reclaim(sh);
  ck_assert_uint_eq(cs_shared_state(sh), cs_model_default.initial_state);
  ck_assert_int_eq(cs_shared_holders(sh), 0);
  ck_assert_int_eq(cs_shared_waiters(sh), 0);
  cs_shared_close(sh);
}
END_TEST

/* Workers admit and complete in a tight loop while the parent SIGKILLs
 * them at random moments, inside the critical section too (the robust
 * mutex and the journal must repair it). */
static void churn(unsigned seed)
{
  struct cs_shared_sched *sh = open_or_die(&cs_model_default);
  struct timespec dl;
  for (;;) {
    struct cs_shared_ticket tk;
    char name[64];
    seed = seed * 1103515245u + 12345u;
    snprintf(name, sizeof name, "admit_%s_%s", lanes[(seed >> 8) % 3],
             tiers[(seed >> 16) % 4].tier);
    int a = cs_shared_lookup_admission(sh, name);
    test_deadline_in(&dl, 30000);
    if (cs_shared_admit(sh, (uint32_t)a, &dl, &tk) != 0)
      _exit(1);
    if (cs_shared_complete(sh, &tk) != 0)
      _exit(2);
  }
}

START_TEST(shared_random_kills)
{
  enum { WORKERS = 6 };
  const char *env = getenv("CS_STRESS_DIVISOR");
  int kills = env && atoi(env) > 1 ? 60 : 300;
  pid_t w[WORKERS];
  unsigned seed = 12345;
  struct cs_shared_sched *sh = open_or_die(&cs_model_default);
  int status;

  for (int i = 0; i < WORKERS; i++) {
    w[i] = fork();
    if (w[i] == 0)
      churn((unsigned)i * 7919u + 1);
  }
  for (int k = 0; k < kills; k++) {
    seed = seed * 1103515245u + 12345u;
    usleep((seed >> 16) % 3000);
    int i = (int)((seed >> 8) % WORKERS);
    kill(w[i], SIGKILL);
    ck_assert_int_eq(waitpid(w[i], &status, 0), w[i]);
    ck_assert_msg(WIFSIGNALED(status), "worker exited by itself with %d", WEXITSTATUS(status));
    w[i] = fork();
    if (w[i] == 0)
      churn(seed);
    /* Never more holders than lane slots (10, fewer than the 17 tier
     * slots), whatever was killed where. */
    ck_assert_int_le(cs_shared_holders(sh), 10);
  }
  for (int i = 0; i < WORKERS; i++) {
    kill(w[i], SIGKILL);
    waitpid(w[i], &status, 0);
  }
  ck_assert_int_ge(cs_shared_reclaim(sh), 0);
  ck_assert_uint_eq(cs_shared_state(sh), cs_model_default.initial_state);
  ck_assert_int_eq(cs_shared_holders(sh), 0);
  ck_assert_int_eq(cs_shared_waiters(sh), 0);
  cs_shared_close(sh);
}
END_TEST
#endif

int main(void)
{
  Suite *s = suite_create("admission_shared");
  TCase *tc = tcase_create("shared");
  tcase_set_timeout(tc, 300);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, shared_basic);
  tcase_add_test(tc, shared_guard_holds_slot);
  tcase_add_test(tc, shared_wait_notice);
  tcase_add_test(tc, shared_fifo_across_processes);
  tcase_add_test(tc, shared_kill_inside_commit);
#ifdef HAVE_MODEL_DEFAULT
  tcase_add_test(tc, shared_sigkill_returns_slots);
  tcase_add_test(tc, shared_random_kills);
#endif
  suite_add_tcase(s, tc);
  return test_check_run(s);
}
