# pnetc_case(<test> <outdir> EXPECT_RC <n> ARGS ... [FILES ... GOLDENS ...] ...):
# one test that runs pnetc as a user does through
# tests/pnetc_cli/run_pnetc.cmake (its header lists the checks), in the
# source root so paths recorded in outputs are relative to it
# (models/default.pnet), like the build's own pnetc_add_model() calls.
# <outdir> is emptied before the run and checked for leftovers after it.
function(pnetc_case test outdir)
  cmake_parse_arguments(PARSE_ARGV 2 t "RERUN;STDOUT_EMPTY" "EXPECT_RC;STDOUT_GOLDEN;CONTENT_FILE"
                        "ARGS;FILES;GOLDENS;STDOUT_HAS;STDERR_HAS;ABSENT;CONTENT_HAS")
  set(defs)
  foreach(var ARGS FILES GOLDENS STDOUT_HAS STDERR_HAS ABSENT CONTENT_HAS)
    if(DEFINED t_${var})
      list(JOIN t_${var} "@@" joined)
      list(APPEND defs "-D${var}=${joined}")
    endif()
  endforeach()
  foreach(var STDOUT_GOLDEN CONTENT_FILE)
    if(t_${var})
      list(APPEND defs "-D${var}=${t_${var}}")
    endif()
  endforeach()
  if(t_RERUN)
    list(APPEND defs -DRERUN=1)
  endif()
  if(t_STDOUT_EMPTY)
    list(APPEND defs -DSTDOUT_EMPTY=1)
  endif()
  add_test(NAME ${test}
           COMMAND ${CMAKE_COMMAND} -DPNETC=$<TARGET_FILE:pnetc> -DWORKDIR=${CS_SOURCE_ROOT}
                   -DEXPECT_RC=${t_EXPECT_RC} -DOUTDIR=${outdir} ${defs}
                   -P ${CS_SOURCE_ROOT}/tests/pnetc_cli/run_pnetc.cmake)
endfunction()
