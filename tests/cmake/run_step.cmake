# run_step.cmake: run(<what> <command...>) for the tests' cmake -P scripts:
# runs the command, fails the test naming <what> and showing both outputs
# when it exits non-zero, else leaves its standard output in run_out.
include_guard(GLOBAL)

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "FAIL: ${what} (exit ${rc})\n${out}\n${err}")
  endif()
  set(run_out "${out}" PARENT_SCOPE)
endfunction()
