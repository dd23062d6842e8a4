/* Runs a Check suite; the process exit status for ctest. */
#ifndef CS_TESTS_ADMISSION_CHECK_RUN_H
#define CS_TESTS_ADMISSION_CHECK_RUN_H

#include <check.h>

int test_check_run(Suite *suite);

#endif
