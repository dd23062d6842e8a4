# run_pnetc.cmake: runs pnetc the way a user does and checks what it did.
#
#   cmake -DPNETC=<exe> -DARGS=<a;b;c> -DWORKDIR=<dir> -DEXPECT_RC=<n>
#         [-DOUTDIR=<dir>]             emptied before the run; checked for
#                                      leftover temporary files after it
#         [-DFILES=<f1;f2>]            outputs to compare with ...
#         [-DGOLDENS=<g1;g2>]          ... these golden files (pairwise); a golden
#                                      named *.sha256 holds the SHA-256 of the
#                                      output instead of the output (tables too
#                                      large to keep in the tree: the default
#                                      model's are 17 MB of C)
#         [-DSTDOUT_GOLDEN=<g>]        compare standard output
#         [-DSTDOUT_HAS=<re;re>]       regexes standard output must match
#         [-DSTDERR_HAS=<re;re>]       regexes standard error must match
#         [-DSTDOUT_EMPTY=1]
#         [-DABSENT=<f1;f2>]           files that must not exist afterwards
#         [-DRERUN=1]                  run again: outputs must be byte-identical
#         [-DCONTENT_FILE=<f> -DCONTENT_HAS=<re;re>]  regexes a written file must match
#         -P run_pnetc.cmake
# List arguments may use "@@" instead of ";" (add_test splits on ';').
#
# With the environment variable UPDATE_GOLDEN=1, mismatching golden files
# are rewritten instead of failing (review the diff, then commit them).
cmake_minimum_required(VERSION 3.25)

function(fail msg)
  message(FATAL_ERROR "FAIL: ${msg}")
endfunction()

# Prints a unified diff (diff(1) when present) and fails, or updates.
function(compare actual golden)
  if(NOT EXISTS "${actual}")
    fail("expected output ${actual} was not written")
  endif()
  file(SHA256 "${actual}" a)
  if(golden MATCHES "\\.sha256$")
    if(EXISTS "${golden}")
      file(READ "${golden}" g)
      string(STRIP "${g}" g)
      if(a STREQUAL g)
        return()
      endif()
    endif()
    if("$ENV{UPDATE_GOLDEN}" STREQUAL "1")
      file(WRITE "${golden}" "${a}\n")
      message(STATUS "updated golden digest ${golden}")
      return()
    endif()
    fail("${actual} (SHA-256 ${a}) differs from the digest in ${golden} (rerun with "
         "UPDATE_GOLDEN=1 to accept, after reviewing the output)")
  endif()
  if(EXISTS "${golden}")
    file(SHA256 "${golden}" g)
    if(a STREQUAL g)
      return()
    endif()
  endif()
  if("$ENV{UPDATE_GOLDEN}" STREQUAL "1")
    configure_file("${actual}" "${golden}" COPYONLY)
    message(STATUS "updated golden ${golden}")
    return()
  endif()
  find_program(DIFF diff)
  if(DIFF AND EXISTS "${golden}")
    execute_process(COMMAND ${DIFF} -u "${golden}" "${actual}")
  endif()
  fail("${actual} differs from golden ${golden} (rerun with UPDATE_GOLDEN=1 to accept)")
endfunction()

function(run_once out_var err_var)
  execute_process(COMMAND ${PNETC} ${ARGS}
                  WORKING_DIRECTORY "${WORKDIR}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "pnetc ${ARGS} -> ${rc}")
  if(NOT rc STREQUAL EXPECT_RC)
    message("stdout:\n${out}\nstderr:\n${err}")
    fail("exit status ${rc}, expected ${EXPECT_RC}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
  set(${err_var} "${err}" PARENT_SCOPE)
endfunction()

foreach(var ARGS FILES GOLDENS STDOUT_HAS STDERR_HAS ABSENT CONTENT_HAS)
  string(REPLACE "@@" ";" ${var} "${${var}}")
endforeach()

if(OUTDIR)
  file(REMOVE_RECURSE "${OUTDIR}")
  file(MAKE_DIRECTORY "${OUTDIR}")
endif()
run_once(out err)

foreach(re IN LISTS STDOUT_HAS)
  if(NOT out MATCHES "${re}")
    message("stdout:\n${out}")
    fail("standard output does not match '${re}'")
  endif()
endforeach()
foreach(re IN LISTS STDERR_HAS)
  if(NOT err MATCHES "${re}")
    message("stderr:\n${err}")
    fail("standard error does not match '${re}'")
  endif()
endforeach()
if(STDOUT_EMPTY AND NOT out STREQUAL "")
  fail("standard output should be empty, got:\n${out}")
endif()
if(STDOUT_GOLDEN)
  get_filename_component(name "${STDOUT_GOLDEN}" NAME)
  set(captured "${OUTDIR}/stdout.${name}")
  file(WRITE "${captured}" "${out}")
  compare("${captured}" "${STDOUT_GOLDEN}")
endif()
list(LENGTH FILES nfiles)
if(nfiles GREATER 0)
  math(EXPR last "${nfiles} - 1")
  foreach(i RANGE ${last})
    list(GET FILES ${i} f)
    list(GET GOLDENS ${i} g)
    compare("${f}" "${g}")
  endforeach()
endif()
if(CONTENT_FILE)
  if(NOT EXISTS "${CONTENT_FILE}")
    fail("${CONTENT_FILE} was not written")
  endif()
  file(READ "${CONTENT_FILE}" content)
  foreach(re IN LISTS CONTENT_HAS)
    if(NOT content MATCHES "${re}")
      message("${CONTENT_FILE}:\n${content}")
      fail("${CONTENT_FILE} does not match '${re}'")
    endif()
  endforeach()
endif()
foreach(f IN LISTS ABSENT)
  if(EXISTS "${f}")
    fail("${f} must not exist after this run")
  endif()
endforeach()
if(OUTDIR)
  file(GLOB_RECURSE leftovers "${OUTDIR}/.*.tmp.*")
  if(leftovers)
    fail("temporary files left behind: ${leftovers}")
  endif()
endif()

# Determinism: the same input gives the same bytes.
if(RERUN)
  set(hashes)
  foreach(f IN LISTS FILES)
    file(SHA256 "${f}" h)
    list(APPEND hashes "${h}")
  endforeach()
  run_once(out2 err2)
  if(NOT out2 STREQUAL out)
    fail("standard output differs between two runs")
  endif()
  set(i 0)
  foreach(f IN LISTS FILES)
    file(SHA256 "${f}" h)
    list(GET hashes ${i} before)
    if(NOT h STREQUAL before)
      fail("${f} differs between two runs")
    endif()
    math(EXPR i "${i} + 1")
  endforeach()
endif()
message(STATUS "PASS")
