/* Helpers shared by the admission tests. */
#ifndef CS_TESTS_ADMISSION_UTIL_H
#define CS_TESTS_ADMISSION_UTIL_H

#include <time.h>

/* *ts = now + ms on CLOCK_MONOTONIC (the clock cs_admit_timed uses). */
void test_deadline_in(struct timespec *ts, long ms);

#endif
