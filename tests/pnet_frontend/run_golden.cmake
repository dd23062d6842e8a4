# Runs pnet_dump on one input and compares what it prints (stderr, then
# stdout) and its exit status with the expected ones.
#   cmake -DDUMP=... -DDIR=... -DINPUT=... -DGOLDEN=... -DEXPECT_RC=... -P run_golden.cmake
# The input is given relative to DIR so diagnostics, and so the golden
# file, do not depend on where the tree is checked out.
# Set PNET_UPDATE_GOLDEN=1 in the environment to rewrite the golden file
# (then review the diff: a golden file is a specification).
execute_process(COMMAND ${DUMP} ${INPUT}
                WORKING_DIRECTORY ${DIR}
                RESULT_VARIABLE rc
                OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
set(actual "${err}${out}")
if(DEFINED ENV{PNET_UPDATE_GOLDEN})
  file(WRITE ${GOLDEN} "${actual}")
endif()
if(NOT EXISTS ${GOLDEN})
  message(FATAL_ERROR "missing golden file ${GOLDEN}; actual output:\n${actual}")
endif()
file(READ ${GOLDEN} expected)
if(NOT rc STREQUAL EXPECT_RC)
  message(FATAL_ERROR "${INPUT}: exit status ${rc}, expected ${EXPECT_RC}\n${actual}")
endif()
if(NOT actual STREQUAL expected)
  string(REPLACE "\n" "\n  | " show_actual "${actual}")
  string(REPLACE "\n" "\n  | " show_expected "${expected}")
  message(FATAL_ERROR "${INPUT}: output differs from ${GOLDEN}\n--- expected:\n  | ${show_expected}\n--- actual:\n  | ${show_actual}")
endif()
