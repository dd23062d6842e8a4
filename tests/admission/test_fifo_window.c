/* The fast path must not overtake queued waiters of the same admission in
 * the window between a state change and the dispatch that follows it.
 * Links its own copy of cs_sched.c built with CS_SCHED_TEST_HOOKS. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "commander.h"
#include "fixture_opposite.h"
#include "check_run.h"
#include "test_util.h"

extern void (*cs_sched_test_after_change)(struct cs_sched *s);

static int probe_rc = 1, probe_waiting = 1;
static uint32_t probe_state;

/* Runs in the completing thread, right after its CAS made admit_a
 * possible and before the queued waiter of admit_a is granted. */
static void probe(struct cs_sched *s)
{
  struct cs_ticket tk;
  cs_sched_test_after_change = NULL; /* once */
  probe_state = cs_sched_state(s);
  probe_rc = cs_try_admit(s, 0, &tk); /* admit_a: a waiter is queued */
  probe_waiting = cs_sched_waiting(s, 0);
}

static void *waiter(void *p)
{
  struct cs_sched *s = p;
  struct cs_ticket tk;
  struct timespec dl;
  test_deadline_in(&dl, 20000);
  if (cs_admit_timed(s, 0, &dl, &tk) != 0)
    return (void *)1;
  if (cs_fire_progress(s, 1) != 0 || cs_complete(s, &tk) != 0)
    return (void *)2;
  return NULL;
}

START_TEST(no_overtaking_in_the_window)
{
  struct cs_sched *s = NULL;
  struct cs_ticket hold;
  pthread_t th;
  void *r;

  ck_assert_int_eq(cs_sched_create(&fixture_opposite, NULL, &s), 0);
  ck_assert_int_eq(cs_admit(s, 3, &hold), 0); /* admit_b: admit_a refused */
  ck_assert_int_eq(pthread_create(&th, NULL, waiter, s), 0);
  for (int spin = 0; cs_sched_waiting(s, 0) != 1; spin++) {
    ck_assert_int_lt(spin, 20000);
    usleep(100);
  }
  ck_assert_int_eq(cs_fire_progress(s, 4), 0); /* start_b */
  cs_sched_test_after_change = probe;
  ck_assert_int_eq(cs_complete(s, &hold), 0); /* s4 -> s0: admit_a allowed */
  ck_assert_uint_eq(probe_state, 0);
  ck_assert_int_eq(probe_waiting, 1);  /* the waiter was still queued */
  ck_assert_int_eq(probe_rc, -EAGAIN); /* and the newcomer did not overtake it */
  ck_assert_int_eq(pthread_join(th, &r), 0);
  ck_assert_ptr_null(r);
  ck_assert_uint_eq(cs_sched_state(s), 0);
  ck_assert_int_eq(cs_sched_destroy(s), 0);
}
END_TEST

int main(void)
{
  Suite *su = suite_create("admission_fifo_window");
  TCase *tc = tcase_create("window");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, no_overtaking_in_the_window);
  suite_add_tcase(su, tc);
  return test_check_run(su);
}
