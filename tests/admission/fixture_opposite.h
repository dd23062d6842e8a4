/* Hand-written model table for the admission tests (NOT generated).
 *
 * It stays alongside the generated tables because it is a distinct edge
 * case: two kinds of work take the same two resources in opposite order,
 * so admitting one of each is a true deadlock and the table must refuse
 * the second admission; the generated two-stage model refuses by capacity
 * instead. It is also small enough to check by hand (5 states, below).
 *
 *   places: pending (source), lane 1, slot 1, a_wait, a_run, b_wait, b_run,
 *           completed (sink)
 *   admit_a:    pending + lane -> a_wait      start_a: a_wait + slot -> a_run
 *   complete_a: a_run -> completed + lane + slot
 *   admit_b:    pending + slot -> b_wait      start_b: b_wait + lane -> b_run
 *   complete_b: b_run -> completed + lane + slot
 *
 *   state  lane slot a_wait a_run b_wait b_run
 *   s0     1    1    0      0     0      0       initial
 *   s1     0    1    1      0     0      0       admit_a; admit_b REFUSED (dead)
 *   s2     1    0    0      0     1      0       admit_b; admit_a REFUSED (dead)
 *   s3     0    0    0      1     0      0       start_a
 *   s4     0    0    0      0     0      1       start_b */
#ifndef CS_TESTS_FIXTURE_OPPOSITE_H
#define CS_TESTS_FIXTURE_OPPOSITE_H

#include "cs_model_table.h"

extern const struct cs_model_table fixture_opposite;
/* A copy whose admit_a in s0 leads back to s0 (the lane is never taken):
 * the runtime's deep table check must reject it, and the stress checker
 * must catch it when that check is skipped. */
extern const struct cs_model_table fixture_opposite_broken;

#endif
